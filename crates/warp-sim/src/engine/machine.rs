//! The launcher and its executor: a [`Machine`] runs a grid of blocks, each block's tasks
//! being one `async` kernel function of a [`Warp`] each.
//!
//! # Scheduling
//! A task is a whole warp, or, in part-warp launches ([`Grid::group_lanes`] 1 to 16), the
//! lanes of one row: the rows of a warp go their own ways as the hardware's independent
//! thread scheduling lets them. The lanes of a task execute each operation together.
//!
//! The executor is single-threaded and deterministic. In order ([`Schedule::InOrder`]) each
//! task runs until it waits at a `__syncthreads` (or ends), then the next; the barrier
//! completes when every task of the block has arrived. Shuffled
//! ([`Schedule::Shuffled`]) it switches, by a seeded coin, at every memory operation and
//! barrier to a randomly chosen runnable task of the resident blocks; blocks start in a seeded
//! order, the lanes of one store are applied in a seeded order, and a racy shared load sees the
//! value before or after the racing write. Races are found from the shadow state whatever the
//! schedule; outputs that change between schedules reveal the ones that matter.
//!
//! Blocks run one at a time ([`Grid::resident`] 1), or several at once, interleaved — as
//! blocks that cooperate through global memory (counters, candidate buffers) must.
//! `__syncthreads` reached by only part of a block is reported
//! ([`DiagKind::BarrierDivergence`]) and released, never a hang; a watchdog bounds each
//! task's operations.
//!
//! sm_90 thread-block clusters ([`Grid::cluster`] blocks each) are resident together, as the
//! hardware co-schedules them: a cluster's blocks are admitted at once into consecutive slots
//! (rank `blockIdx.x % cluster`), shuffled schedules permute whole clusters, and a cluster
//! barrier ([`Warp::barrier_cluster`]) completes when every task of every block of the
//! cluster has arrived — a barrier apart from `__syncthreads`, which neither releases.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::engine::block::{BlockState, ClusterState, Core, TaskState};
use crate::engine::diag::{DiagKind, DiagPolicy, Diagnostic, Op};
use crate::engine::error::SimError;
use crate::engine::global::Global;
use crate::engine::schedule::Schedule;
use crate::engine::summary::DiagSummary;
use crate::engine::warp::{BufId, Place, Warp};

/// Which row of a buffer in rows each task owns: task `g` of block `b` works on the launch's
/// row `r = b * per_block + g / groups_per_row`, which is part of the buffers' row
/// `r / parts_per_row`, or, where the launch's rows are chunks of `interleave` rows taken
/// chunk-major, of row `r / parts_per_row % interleave`. Accesses to other rows of buffers
/// that have rows are [`DiagKind::ForeignAddress`] findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    /// Rows per block.
    pub per_block: u64,
    /// Tasks working on one row (1 for part-warp and warp rows, the block's warps for block
    /// rows).
    pub groups_per_row: u32,
    /// The launch's rows that are parts of one row of the buffers: 1, or the blocks of a
    /// cluster that hold one row between them.
    pub parts_per_row: u64,
    /// 0, or the buffers' rows whose chunks the launch's rows are, chunk-major: chunk `c` of
    /// row `i` is launch row `c * interleave + i` (a split's chunk launch).
    pub interleave: u64,
}

impl Rows {
    /// `per_block` rows per block of `groups_per_row` tasks each, every one a whole row.
    pub fn new(per_block: u64, groups_per_row: u32) -> Self {
        Self { per_block, groups_per_row, parts_per_row: 1, interleave: 0 }
    }
}

/// The shape of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Blocks in the grid (`gridDim.x`).
    pub blocks: u32,
    /// Warps per block (`blockDim.x / 32`), 1 to 32.
    pub warps_per_block: u32,
    /// 32-bit words of shared memory per block.
    pub shared_words: usize,
    /// Lanes per task: 32 (a task per warp), or a smaller power of two (a task per row of a
    /// part-warp launch: 16 or 8 lanes a row, or the pick rows' 8, 4 or 1).
    pub group_lanes: u32,
    /// The blocks simulated, `first .. end` (the whole grid by default): a launch may run
    /// only some blocks of a grid too large to simulate whole.
    pub simulate: (u32, u32),
    /// Blocks resident at once (interleaved); 0 = all of them.
    pub resident: u32,
    /// Which rows the tasks own, if the launch checks it.
    pub rows: Option<Rows>,
    /// Blocks per thread-block cluster (`%cluster_nctarank`), 1 to 16; 1 = no clusters.
    /// `blocks` and both ends of `simulate` must be multiples of it; the resident blocks are
    /// rounded up to whole clusters.
    pub cluster: u32,
}

impl Grid {
    /// `blocks` blocks of `warps_per_block` whole warps with `shared_words` words each, all
    /// simulated, one at a time.
    pub fn new(blocks: u32, warps_per_block: u32, shared_words: usize) -> Self {
        Self {
            blocks,
            warps_per_block,
            shared_words,
            group_lanes: 32,
            simulate: (0, blocks),
            resident: 1,
            rows: None,
            cluster: 1,
        }
    }

    fn validate(&self) -> Result<(), SimError> {
        let bad = |why: String| Err(SimError::InvalidLaunch(why));
        if !(1..=32).contains(&self.warps_per_block) {
            return bad(format!("warps per block must be 1 to 32, got {}", self.warps_per_block));
        }
        if !self.group_lanes.is_power_of_two() || self.group_lanes > 32 {
            return bad(format!(
                "lanes per task must be a power of two up to 32, got {}",
                self.group_lanes
            ));
        }
        let (first, end) = self.simulate;
        if first > end || end > self.blocks {
            return bad(format!("blocks {first}..{end} are not in a grid of {}", self.blocks));
        }
        self.validate_cluster()
    }

    /// Clusters of 1 to 16 blocks (sm_90's portable limit is 8, 16 with an opt-in), and a
    /// grid and simulated range of whole clusters (the hardware launches only whole ones).
    fn validate_cluster(&self) -> Result<(), SimError> {
        let bad = |why: String| Err(SimError::InvalidLaunch(why));
        let c = self.cluster;
        if !(1..=16).contains(&c) {
            return bad(format!("blocks per cluster must be 1 to 16, got {c}"));
        }
        if self.blocks % c != 0 {
            return bad(format!("a grid of {} blocks is not whole clusters of {c}", self.blocks));
        }
        let (first, end) = self.simulate;
        if first % c != 0 || end % c != 0 {
            return bad(format!("simulated blocks {first}..{end} are not whole clusters of {c}"));
        }
        Ok(())
    }

    fn tasks_per_block(&self) -> usize {
        (self.warps_per_block * (32 / self.group_lanes)) as usize
    }
}

type Task<'a> = Pin<Box<dyn Future<Output = Result<(), SimError>> + 'a>>;

/// Runs launches: owns global memory, the diagnostics and the schedule. Reuse one machine for
/// many launches to reuse its allocations.
#[derive(Debug)]
pub struct Machine {
    core: RefCell<Core>,
    schedule: Schedule,
    step_limit: u64,
}

impl Machine {
    /// A machine with the given diagnostics policy and schedule.
    pub fn new(policy: DiagPolicy, schedule: Schedule) -> Self {
        Self { core: RefCell::new(Core::new(policy)), schedule, step_limit: u64::MAX }
    }

    /// Limits the simulated operations one task may execute per launch (a watchdog against
    /// kernels that do not terminate).
    pub fn set_step_limit(&mut self, limit: u64) {
        self.step_limit = limit;
    }

    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Runs later launches under `schedule`.
    pub fn set_schedule(&mut self, schedule: Schedule) {
        self.schedule = schedule;
    }

    /// The diagnostics policy.
    pub fn policy(&self) -> DiagPolicy {
        if self.core.borrow().checks { DiagPolicy::Collect } else { DiagPolicy::Off }
    }

    /// Adds a global buffer; launches reach it through the returned handle.
    pub fn alloc(&mut self, buf: Global) -> BufId {
        let g = &mut self.core.get_mut().globals;
        g.push(buf);
        BufId(g.len() - 1)
    }

    /// The global buffer `id`.
    pub fn global(&mut self, id: BufId) -> &Global {
        &self.core.get_mut().globals[id.0]
    }

    /// The global buffer `id`, mutably (to fill it, or to switch its write-once check).
    pub fn global_mut(&mut self, id: BufId) -> &mut Global {
        &mut self.core.get_mut().globals[id.0]
    }

    /// Frees every global buffer (handles from before become invalid).
    pub fn free_globals(&mut self) {
        self.core.get_mut().globals.clear();
    }

    /// The cluster barriers the launches completed since the last call, each counted once per
    /// cluster (not per block), and the count reset: a cluster row's rounds, each one barrier
    /// that every block of its cluster waits at (docs/kernel.md, "Cluster rows").
    pub fn take_cluster_barriers(&mut self) -> u64 {
        std::mem::take(&mut self.core.get_mut().cluster_barriers)
    }

    /// Takes the findings of the launches so far: the kept ones and all of them by kind.
    pub fn take_diagnostics(&mut self) -> (Vec<Diagnostic>, DiagSummary) {
        self.core.get_mut().sink.take()
    }

    /// Makes room for blocks of `words` shared words now, so that a launch too large to
    /// simulate is refused before its inputs are built.
    pub fn reserve_shared(&mut self, words: usize) -> Result<(), SimError> {
        let core = self.core.get_mut();
        if core.blocks.is_empty() {
            core.blocks.push(BlockState::default());
        }
        core.blocks[0].shared.reserve(words)
    }

    /// Reports a launch-level finding (order dependence, an unwritten output) computed
    /// outside the kernel.
    pub fn report_launch(&mut self, d: Diagnostic) -> Result<(), SimError> {
        self.core.get_mut().sink.report(d)
    }

    /// Runs `kernel` once per task of every simulated block of `grid` (see the module's
    /// scheduling). The first error a task returns (a fatal diagnostic, the watchdog) stops
    /// the launch.
    pub fn launch<K>(&mut self, grid: Grid, kernel: K) -> Result<(), SimError>
    where
        K: AsyncFn(Warp<'_>) -> Result<(), SimError>,
    {
        grid.validate()?;
        let (first, end) = grid.simulate;
        let per_block = grid.tasks_per_block();
        let cluster = grid.cluster as usize;
        let resident = match grid.resident {
            0 => (end - first) as usize,
            r => (r as usize).min((end - first) as usize),
        };
        // Whole clusters are resident (the range is whole clusters, so this stays in it).
        let resident = resident.div_ceil(cluster) * cluster;
        let order = {
            let core = self.core.get_mut();
            core.rng = self.schedule.rng();
            core.threads_per_block = grid.warps_per_block * 32;
            core.tasks_per_block = per_block;
            core.cluster = grid.cluster;
            core.clusters.clear();
            core.clusters.resize(resident / cluster, ClusterState::default());
            core.yielded = false;
            core.atomics.clear();
            core.views.clear();
            for g in &mut core.globals {
                g.new_launch();
            }
            while core.blocks.len() < resident.max(1) {
                core.blocks.push(BlockState::default());
            }
            core.tasks.clear();
            core.tasks.resize(resident * per_block, TaskState::Done { reported: true });
            // Whole clusters are permuted; a cluster's blocks keep their rank order.
            let n = (end - first) as usize / cluster;
            let clusters: Vec<usize> = match &mut core.rng {
                Some(rng) => rng.permutation(n),
                None => (0..n).collect(),
            };
            let c = grid.cluster;
            clusters
                .into_iter()
                .flat_map(|i| (0..c).map(move |r| first + i as u32 * c + r))
                .collect()
        };
        let mut run = Run {
            core: &self.core,
            kernel: &kernel,
            grid,
            per_block,
            step_limit: self.step_limit,
            tasks: (0..resident * per_block).map(|_| None).collect(),
            order,
            next: 0,
            current: 0,
        };
        run.execute()
    }
}

/// One launch in progress.
struct Run<'a, K> {
    core: &'a RefCell<Core>,
    kernel: &'a K,
    grid: Grid,
    per_block: usize,
    step_limit: u64,
    tasks: Vec<Option<Task<'a>>>,
    order: Vec<u32>,
    next: usize,
    current: usize,
}

impl<'a, K> Run<'a, K>
where
    K: AsyncFn(Warp<'_>) -> Result<(), SimError>,
{
    fn execute(&mut self) -> Result<(), SimError> {
        let slots = self.tasks.len() / self.per_block.max(1);
        for slot in (0..slots).step_by(self.grid.cluster as usize) {
            self.admit_cluster(slot)?;
        }
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            let Some(t) = self.pick() else {
                if !self.release_stuck_barriers()? {
                    return Ok(());
                }
                continue;
            };
            self.current = t;
            let Some(fut) = self.tasks[t].as_mut() else { continue };
            match fut.as_mut().poll(&mut cx) {
                Poll::Ready(result) => {
                    result?;
                    self.tasks[t] = None;
                    self.core.borrow_mut().tasks[t] = TaskState::Done { reported: false };
                    self.task_returned(t / self.per_block)?;
                }
                Poll::Pending => {
                    self.complete_barriers(t / self.per_block)?;
                    let mut core = self.core.borrow_mut();
                    if std::mem::take(&mut core.yielded) {
                        // In order, a yielding task lets the next one run.
                        self.current = (t + 1) % self.tasks.len();
                    }
                }
            }
        }
    }

    /// A task of the block in `slot` returned: the next cluster starts when the whole
    /// cluster is done; else a barrier that waited only for it may complete.
    fn task_returned(&mut self, slot: usize) -> Result<(), SimError> {
        if !self.slot_done(slot) {
            return self.complete_barriers(slot).map(drop);
        }
        self.block_returned(slot)?;
        let slots = self.core.borrow().cluster_slots(slot);
        if slots.clone().all(|s| self.slot_done(s)) {
            self.admit_cluster(slots.start)
        } else {
            self.complete_cluster_barrier(slot, false).map(drop)
        }
    }

    /// The block in `slot` returned: another block's reduction into its shared memory in
    /// the current cluster phase was not ordered before its exit ([`DiagKind::ClusterExited`]).
    fn block_returned(&mut self, slot: usize) -> Result<(), SimError> {
        let mut core = self.core.borrow_mut();
        let phase = core.clusters[slot / self.grid.cluster as usize].phase;
        let b = &core.blocks[slot];
        match b.remote_red {
            Some((p, label)) if p == phase => {
                let block = b.index;
                core.report(DiagKind::ClusterExited, Op::ClusterRed, label, block, 0, 0, None)
            }
            _ => Ok(()),
        }
    }

    /// Starts the next cluster of the order in the slots from `first` (one per block).
    fn admit_cluster(&mut self, first: usize) -> Result<(), SimError> {
        let c = self.grid.cluster as usize;
        self.core.borrow_mut().clusters[first / c] = ClusterState::default();
        (first..first + c).try_for_each(|slot| self.admit(slot))
    }

    /// Starts the next block of the order in `slot`, if any is left.
    fn admit(&mut self, slot: usize) -> Result<(), SimError> {
        let Some(&block) = self.order.get(self.next) else { return Ok(()) };
        self.next += 1;
        let g = self.grid;
        let checks = {
            let mut core = self.core.borrow_mut();
            core.blocks[slot].start(block, g.warps_per_block, g.shared_words)?;
            core.checks
        };
        let groups_per_warp = (32 / g.group_lanes) as usize;
        for i in 0..self.per_block {
            let (warp, seg) = (i / groups_per_warp, i % groups_per_warp);
            let lanes = if g.group_lanes == 32 {
                u32::MAX
            } else {
                ((1u32 << g.group_lanes) - 1) << (seg as u32 * g.group_lanes)
            };
            let owned_row = g.rows.map(|r| {
                let row =
                    u64::from(block) * r.per_block + i as u64 / u64::from(r.groups_per_row.max(1));
                let row = row / r.parts_per_row.max(1);
                if r.interleave > 0 { row % r.interleave } else { row }
            });
            let place = Place {
                slot,
                task: slot * self.per_block + i,
                block,
                grid_dim: g.blocks,
                warp: warp as u32,
                warps_per_block: g.warps_per_block,
                group: i as u32,
                lanes,
                owned_row,
                step_limit: self.step_limit,
                checks,
                cluster: g.cluster,
            };
            let warp = Warp::new(self.core, place);
            self.tasks[place.task] = Some(Box::pin((self.kernel)(warp)));
            self.core.borrow_mut().tasks[place.task] = TaskState::Running;
        }
        Ok(())
    }

    /// The next task to poll: in order, the current one while it can run, else the first that
    /// can; shuffled, a random one that can.
    fn pick(&mut self) -> Option<usize> {
        let mut core = self.core.borrow_mut();
        let runnable = |t: &usize| core.tasks[*t] == TaskState::Running;
        if core.rng.is_none() {
            let n = core.tasks.len();
            return (self.current..n).chain(0..self.current).find(runnable);
        }
        let count = (0..core.tasks.len()).filter(runnable).count();
        if count == 0 {
            return None;
        }
        let pick = core.rng.as_mut().map_or(0, |r| r.below(count));
        (0..core.tasks.len()).filter(|t| core.tasks[*t] == TaskState::Running).nth(pick)
    }

    fn slot_tasks(&self, slot: usize) -> std::ops::Range<usize> {
        slot * self.per_block..(slot + 1) * self.per_block
    }

    fn slot_done(&self, slot: usize) -> bool {
        let core = self.core.borrow();
        core.tasks[self.slot_tasks(slot)].iter().all(|t| matches!(t, TaskState::Done { .. }))
    }

    /// Completes the block barrier of `slot`, then its cluster's barrier, where they can.
    fn complete_barriers(&mut self, slot: usize) -> Result<bool, SimError> {
        let block = self.complete_block_barrier(slot, false)?;
        Ok(self.complete_cluster_barrier(slot, false)? || block)
    }

    /// Completes the `__syncthreads` of `slot` when each of its tasks has arrived or
    /// returned (a task that returned while others wait is a
    /// [`DiagKind::BarrierDivergence`]). `force` (nothing else can run): tasks waiting at the
    /// cluster barrier instead are reported too, and keep waiting there.
    fn complete_block_barrier(&mut self, slot: usize, force: bool) -> Result<bool, SimError> {
        let range = self.slot_tasks(slot);
        let mut core = self.core.borrow_mut();
        let states = &core.tasks[range.clone()];
        let waiting = states.contains(&TaskState::AtBarrier);
        let other = states.contains(&TaskState::AtClusterBarrier);
        if !waiting || states.contains(&TaskState::Running) || (other && !force) {
            return Ok(false);
        }
        let label = core.blocks[slot].barrier.take().unwrap_or("__syncthreads()");
        let absent = TaskState::AtClusterBarrier;
        self.report_absent(&mut core, range.clone(), absent, Op::Syncthreads, label)?;
        let b = &mut core.blocks[slot];
        b.epoch += 1;
        b.vote = std::mem::take(&mut b.vote_pending);
        release(&mut core.tasks[range.clone()], TaskState::AtBarrier);
        // In order, the block's warps go on from its first.
        self.current = range.start;
        Ok(true)
    }

    /// Completes the cluster barrier of the cluster of `slot` when each task of its blocks
    /// has arrived or returned (reported as at `__syncthreads`): the cluster phase moves on,
    /// and each block's epoch with it. `force`: as [`Run::complete_block_barrier`], with the
    /// barriers' roles swapped.
    fn complete_cluster_barrier(&mut self, slot: usize, force: bool) -> Result<bool, SimError> {
        let mut core = self.core.borrow_mut();
        let slots = core.cluster_slots(slot);
        let range = slots.start * self.per_block..slots.end * self.per_block;
        let states = &core.tasks[range.clone()];
        let waiting = states.contains(&TaskState::AtClusterBarrier);
        let other = states.contains(&TaskState::AtBarrier);
        if !waiting || states.contains(&TaskState::Running) || (other && !force) {
            return Ok(false);
        }
        let c = &mut core.clusters[slot / self.grid.cluster as usize];
        let label = c.barrier.take().unwrap_or("barrier.cluster");
        c.phase = c.phase.wrapping_add(1);
        core.cluster_barriers += 1;
        let absent = TaskState::AtBarrier;
        self.report_absent(&mut core, range.clone(), absent, Op::ClusterBarrier, label)?;
        for b in &mut core.blocks[slots] {
            b.epoch += 1;
            b.cluster_epoch = b.epoch;
        }
        release(&mut core.tasks[range.clone()], TaskState::AtClusterBarrier);
        self.current = range.start;
        Ok(true)
    }

    /// Reports the tasks of `range` that miss a barrier: those that returned (once) and
    /// those waiting at the `other` barrier.
    fn report_absent(
        &self,
        core: &mut Core,
        range: std::ops::Range<usize>,
        other: TaskState,
        op: Op,
        label: &'static str,
    ) -> Result<(), SimError> {
        let groups_per_warp = (32 / self.grid.group_lanes) as usize;
        for t in range {
            let state = core.tasks[t];
            if state == (TaskState::Done { reported: false }) {
                core.tasks[t] = TaskState::Done { reported: true };
            } else if state != other {
                continue;
            }
            let block = core.blocks[t / self.per_block].index;
            let warp = (t % self.per_block / groups_per_warp) as u32;
            core.report(DiagKind::BarrierDivergence, op, label, block, warp, 0, None)?;
        }
        Ok(())
    }

    /// With nothing runnable: completes every barrier that can complete; failing that, a
    /// block's and its cluster's tasks are split between the two barriers (a hang on the
    /// hardware), and the barriers complete regardless, reported. `false` when none was
    /// waiting (the launch is over).
    fn release_stuck_barriers(&mut self) -> Result<bool, SimError> {
        let slots = self.tasks.len() / self.per_block.max(1);
        let mut any = false;
        for force in [false, true] {
            for slot in 0..slots {
                any |= self.complete_block_barrier(slot, force)?;
            }
            for slot in (0..slots).step_by(self.grid.cluster as usize) {
                any |= self.complete_cluster_barrier(slot, force)?;
            }
            if any {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The tasks of `tasks` waiting at barrier `at` go on.
fn release(tasks: &mut [TaskState], at: TaskState) {
    for t in tasks.iter_mut().filter(|t| **t == at) {
        *t = TaskState::Running;
    }
}
