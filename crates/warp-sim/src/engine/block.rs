//! What a launch's running warps share, behind one `RefCell` that each warp borrows for the
//! length of one operation: the resident blocks (shared memory, barrier epochs, the lanes'
//! `__syncwarp` clocks, the barrier in progress), their clusters' cluster barriers, global
//! memory, the schedule's generator, the tasks' states, and where findings go. [`crate::engine::machine::Machine`] owns it;
//! [`crate::engine::warp::Warp`]s borrow it.

use std::collections::BTreeMap;

use crate::engine::diag::{DiagKind, DiagPolicy, Diagnostic, Op};
use crate::engine::error::SimError;
use crate::engine::global::Global;
use crate::engine::schedule::ScheduleRng;
use crate::engine::shared::{SharedMem, WarpClocks};
use crate::engine::sink::DiagSink;

/// Default number of findings kept per launch (all are counted).
pub const DEFAULT_KEPT_DIAGNOSTICS: usize = 256;

/// One resident block.
#[derive(Debug, Default)]
pub(crate) struct BlockState {
    /// `blockIdx.x`.
    pub(crate) index: u32,
    /// The block's shared memory.
    pub(crate) shared: SharedMem,
    /// `__syncthreads` completed by the block so far.
    pub(crate) epoch: u32,
    /// Each warp's lanes' `__syncwarp` clocks.
    pub(crate) clocks: Vec<WarpClocks>,
    /// Which warps' clocks moved (to be reset for the next block).
    pub(crate) clocks_used: Vec<bool>,
    /// The label of the barrier the block's warps are meeting at, once one arrived.
    pub(crate) barrier: Option<&'static str>,
    /// Values the block's warps treat as block-uniform, in the order the first warp used
    /// them: warp `w`'s `i`-th use is compared with entry `i`.
    pub(crate) uniform_log: Vec<(&'static str, u64)>,
    /// The block epoch at which its cluster's current phase began (its latest cluster
    /// barrier): plain accesses stamped from it on are of the current cluster phase.
    pub(crate) cluster_epoch: u32,
    /// Another block's latest reduction into this block's shared memory: the cluster phase
    /// and its label (a block returning in that phase leaves the reduction unordered).
    pub(crate) remote_red: Option<(u32, &'static str)>,
    /// `__syncthreads_or`'s predicate over the warps arrived at the barrier in progress.
    pub(crate) vote_pending: bool,
    /// `__syncthreads_or`'s result at the latest barrier completed.
    pub(crate) vote: bool,
}

impl BlockState {
    /// Starts block `index` of `warps` warps with `shared_words` fresh words.
    pub(crate) fn start(
        &mut self,
        index: u32,
        warps: u32,
        shared_words: usize,
    ) -> Result<(), SimError> {
        self.index = index;
        self.epoch = 0;
        self.barrier = None;
        self.uniform_log.clear();
        self.cluster_epoch = 0;
        self.remote_red = None;
        (self.vote_pending, self.vote) = (false, false);
        let w = warps as usize;
        if self.clocks.len() < w {
            self.clocks.resize(w, WarpClocks::default());
            self.clocks_used.resize(w, false);
        }
        for (c, used) in self.clocks.iter_mut().zip(&mut self.clocks_used) {
            if *used {
                c.reset();
                *used = false;
            }
        }
        self.shared.reset(shared_words)
    }
}

/// Where a task stands with the executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskState {
    /// May run.
    Running,
    /// Waiting at its block's barrier.
    AtBarrier,
    /// Waiting at its cluster's barrier (`barrier.cluster`), which its block's
    /// `__syncthreads` does not release.
    AtClusterBarrier,
    /// Returned from the kernel (the exit was reported if a barrier missed it).
    Done { reported: bool },
}

/// The cluster barriers of one cluster of resident blocks (consecutive slots).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClusterState {
    /// Cluster barriers completed so far (the cluster phase).
    pub(crate) phase: u32,
    /// The label of the cluster barrier the cluster's tasks are meeting at, once one arrived.
    pub(crate) barrier: Option<&'static str>,
}

/// The launch's shared state.
#[derive(Debug)]
pub(crate) struct Core {
    /// Where findings go.
    pub(crate) sink: DiagSink,
    /// Whether diagnostics are checked at all.
    pub(crate) checks: bool,
    /// The schedule's generator (`None`: in order).
    pub(crate) rng: Option<ScheduleRng>,
    /// Resident blocks, by slot.
    pub(crate) blocks: Vec<BlockState>,
    /// Global memory.
    pub(crate) globals: Vec<Global>,
    /// Each task's state, by task slot.
    pub(crate) tasks: Vec<TaskState>,
    /// `blockDim.x`.
    pub(crate) threads_per_block: u32,
    /// Tasks per block.
    pub(crate) tasks_per_block: usize,
    /// Blocks per cluster (1: no clusters).
    pub(crate) cluster: u32,
    /// Each resident cluster's state, by slot / `cluster`.
    pub(crate) clusters: Vec<ClusterState>,
    /// The running task asked to let the others run first ([`crate::engine::Warp::yield_now`]).
    pub(crate) yielded: bool,
    /// Each block's global atomics so far (blocks that did any).
    pub(crate) atomics: BTreeMap<u32, u32>,
    /// What each block had seen of the others' atomics at its latest one.
    pub(crate) views: BTreeMap<u32, BTreeMap<u32, u32>>,
    /// Cluster barriers completed, each counted once per cluster, since the count was last
    /// taken ([`crate::engine::Machine::take_cluster_barriers`]).
    pub(crate) cluster_barriers: u64,
}

impl Core {
    pub(crate) fn new(policy: DiagPolicy) -> Self {
        Self {
            sink: DiagSink::new(policy, DEFAULT_KEPT_DIAGNOSTICS),
            checks: policy != DiagPolicy::Off,
            rng: None,
            blocks: Vec::new(),
            globals: Vec::new(),
            tasks: Vec::new(),
            threads_per_block: 32,
            tasks_per_block: 1,
            cluster: 1,
            clusters: Vec::new(),
            yielded: false,
            atomics: BTreeMap::new(),
            views: BTreeMap::new(),
            cluster_barriers: 0,
        }
    }

    /// Reports a finding of warp `warp` of block `block` (nothing when checks are off).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn report(
        &mut self,
        kind: DiagKind,
        op: Op,
        label: &'static str,
        block: u32,
        warp: u32,
        lanes: u32,
        address: Option<u64>,
    ) -> Result<(), SimError> {
        if !self.checks {
            return Ok(());
        }
        self.sink.report(Diagnostic { kind, op, label, block, warp, lanes, address })
    }

    /// Block `block` did a global atomic: it counts, and it sees every block's atomics so far.
    pub(crate) fn atomic_done(&mut self, block: u32) {
        *self.atomics.entry(block).or_insert(0) += 1;
        self.views.insert(block, self.atomics.clone());
    }

    /// The slots of the cluster of the block in `slot`.
    pub(crate) fn cluster_slots(&self, slot: usize) -> std::ops::Range<usize> {
        let c = self.cluster.max(1) as usize;
        slot / c * c..(slot / c + 1) * c
    }

    /// Whether every task of the block in `slot` has returned.
    pub(crate) fn block_done(&self, slot: usize) -> bool {
        let n = self.tasks_per_block;
        let tasks = self.tasks.get(slot * n..(slot + 1) * n).unwrap_or_default();
        tasks.iter().all(|t| matches!(t, TaskState::Done { .. }))
    }

    /// Whether the running task should let another run now (a seeded coin; never in order).
    #[inline]
    pub(crate) fn switch_now(&mut self) -> bool {
        self.rng.as_mut().is_some_and(|r| r.next_u64() & 1 == 1)
    }
}
