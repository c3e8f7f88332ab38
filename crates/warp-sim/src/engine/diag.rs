//! Diagnostics: structured findings of the simulator, collected or fatal by policy.
//!
//! Every finding is a [`Diagnostic`] value — kind, operation, the kernel's source label, block,
//! warp, lanes, address — never a Rust panic. A launch either collects them
//! ([`DiagPolicy::Collect`]) or stops at the first one ([`DiagPolicy::FailFast`]);
//! [`DiagPolicy::Off`] skips the checks (and their cost) altogether. The values live here;
//! where they go during a launch is [`crate::engine::sink`].

use std::fmt;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiagKind {
    /// A shuffle read its value from a lane that is inactive or not in the mask; the result
    /// is poisoned (CUDA leaves it undefined).
    ShuffleSourceInactive,
    /// A lane executed a `*_sync` primitive with a mask that does not name itself.
    CallerNotInMask,
    /// A `*_sync` mask names lanes that do not execute the primitive (inactive or exited).
    MaskNamesInactiveLanes,
    /// Lanes executing one `__syncwarp` passed different masks.
    SyncwarpMaskMismatch,
    /// `__syncthreads` reached by only part of the block, or by a diverged warp.
    BarrierDivergence,
    /// Two threads touched one shared word, at least one writing, with no barrier between.
    SharedRace,
    /// Two threads wrote the *same value* to one shared word with no barrier between (benign
    /// in practice, reported separately).
    SharedRaceSameValue,
    /// Two threads wrote one global element with no barrier between.
    GlobalRace,
    /// Two threads wrote the same value to one global element with no barrier between.
    GlobalRaceSameValue,
    /// A shared-memory access outside the block's shared allocation.
    SharedOutOfBounds,
    /// A global-memory access outside its buffer.
    GlobalOutOfBounds,
    /// A shared word read before any thread of the block wrote it.
    UninitializedSharedRead,
    /// A poisoned (undefined) value decided a branch, formed an address or reached global
    /// memory.
    PoisonUsed,
    /// A branch the kernel relies on being warp-uniform went different ways in different lanes.
    NonUniformBranch,
    /// A value the kernel treats as uniform (a bound, a threshold, a count, a trip count)
    /// differs between the active lanes of a row, or between the warps of a block, where it
    /// is used.
    NonUniformValue,
    /// Index or address arithmetic wrapped at the width the CUDA kernel computes it in
    /// (`u32` positions and offsets, `u64` row offsets).
    IntegerOverflow,
    /// A global access outside the rows the accessing warp (or block) owns: another row's
    /// data, or memory a partial launch did not map.
    ForeignAddress,
    /// A vector access (a 16-byte load) at an address that is not a multiple of its width.
    MisalignedAccess,
    /// An invariant or contract the kernel states did not hold (the simulator's `assert`).
    AssertFailed,
    /// An output element the launch must write was never written.
    OutputUnwritten,
    /// An output element that is written once per launch was written again.
    OutputRewritten,
    /// A shift by 32 or more bits (undefined behaviour in CUDA C++).
    ShiftOverflow,
    /// A shuffle `width` that is not a power of two in `1..=32`.
    InvalidShuffleWidth,
    /// A shared word of a block of a cluster was reduced into by a distributed-shared-memory
    /// reduction ([`Op::ClusterRed`], from any block of the cluster, the owner included) and
    /// read or plainly written by the owning block, with no cluster barrier between.
    /// Reductions among themselves are atomic and do not race; a store
    /// ([`Op::ClusterStore`]) races with the owner's accesses as a reduction does, and with
    /// any other write of the word from the cluster in the same phase.
    ClusterRace,
    /// A distributed-shared-memory reduction named a block rank not in the cluster (`rank >=
    /// %cluster_nctarank`); the lane did nothing.
    ClusterRank,
    /// A distributed-shared-memory reduction targeted a block of the cluster that had already
    /// returned (its shared memory is gone), or a block returned with no cluster barrier after
    /// another block's reduction into its shared memory; the lane did nothing.
    ClusterExited,
    /// A distributed-shared-memory reduction into another block before the cluster's first
    /// cluster barrier completed: that block may not have started (CUDA requires a
    /// cluster-wide sync first). The reduction is still applied.
    ClusterUnsynced,
    /// The output changed when lanes, warps and blocks were scheduled in another order.
    OrderDependence,
}

impl DiagKind {
    /// A short lower-case name for tables.
    pub fn name(self) -> &'static str {
        match self {
            DiagKind::ShuffleSourceInactive => "shuffle-source-inactive",
            DiagKind::CallerNotInMask => "caller-not-in-mask",
            DiagKind::MaskNamesInactiveLanes => "mask-names-inactive-lanes",
            DiagKind::SyncwarpMaskMismatch => "syncwarp-mask-mismatch",
            DiagKind::BarrierDivergence => "barrier-divergence",
            DiagKind::SharedRace => "shared-race",
            DiagKind::SharedRaceSameValue => "shared-race-same-value",
            DiagKind::GlobalRace => "global-race",
            DiagKind::GlobalRaceSameValue => "global-race-same-value",
            DiagKind::SharedOutOfBounds => "shared-out-of-bounds",
            DiagKind::GlobalOutOfBounds => "global-out-of-bounds",
            DiagKind::UninitializedSharedRead => "uninitialized-shared-read",
            DiagKind::PoisonUsed => "poison-used",
            DiagKind::NonUniformBranch => "non-uniform-branch",
            DiagKind::NonUniformValue => "non-uniform-value",
            DiagKind::IntegerOverflow => "integer-overflow",
            DiagKind::ForeignAddress => "foreign-address",
            DiagKind::MisalignedAccess => "misaligned-access",
            DiagKind::AssertFailed => "assertion-failed",
            DiagKind::OutputUnwritten => "output-unwritten",
            DiagKind::OutputRewritten => "output-rewritten",
            DiagKind::ShiftOverflow => "shift-overflow",
            DiagKind::InvalidShuffleWidth => "invalid-shuffle-width",
            DiagKind::ClusterRace => "cluster-race",
            DiagKind::ClusterRank => "cluster-rank",
            DiagKind::ClusterExited => "cluster-exited",
            DiagKind::ClusterUnsynced => "cluster-unsynced",
            DiagKind::OrderDependence => "order-dependence",
        }
    }

    /// Every kind, in table order.
    pub const ALL: [DiagKind; 28] = [
        DiagKind::ShuffleSourceInactive,
        DiagKind::CallerNotInMask,
        DiagKind::MaskNamesInactiveLanes,
        DiagKind::SyncwarpMaskMismatch,
        DiagKind::BarrierDivergence,
        DiagKind::SharedRace,
        DiagKind::SharedRaceSameValue,
        DiagKind::GlobalRace,
        DiagKind::GlobalRaceSameValue,
        DiagKind::SharedOutOfBounds,
        DiagKind::GlobalOutOfBounds,
        DiagKind::UninitializedSharedRead,
        DiagKind::PoisonUsed,
        DiagKind::NonUniformBranch,
        DiagKind::NonUniformValue,
        DiagKind::IntegerOverflow,
        DiagKind::ForeignAddress,
        DiagKind::MisalignedAccess,
        DiagKind::AssertFailed,
        DiagKind::OutputUnwritten,
        DiagKind::OutputRewritten,
        DiagKind::ShiftOverflow,
        DiagKind::InvalidShuffleWidth,
        DiagKind::ClusterRace,
        DiagKind::ClusterRank,
        DiagKind::ClusterExited,
        DiagKind::ClusterUnsynced,
        DiagKind::OrderDependence,
    ];

    /// The kind named `name` ([`DiagKind::name`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// `true` for findings that are harmless in practice (same-value races).
    pub fn is_benign(self) -> bool {
        matches!(self, DiagKind::SharedRaceSameValue | DiagKind::GlobalRaceSameValue)
    }
}

/// The operation that produced a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// `__ballot_sync`.
    Ballot,
    /// `__any_sync`.
    Any,
    /// `__all_sync`.
    All,
    /// `__shfl_sync`.
    Shfl,
    /// `__shfl_up_sync`.
    ShflUp,
    /// `__shfl_down_sync`.
    ShflDown,
    /// `__shfl_xor_sync`.
    ShflXor,
    /// `__syncwarp`.
    Syncwarp,
    /// `__syncthreads`.
    Syncthreads,
    /// `__reduce_add_sync`, `__reduce_min_sync`, `__reduce_max_sync` (`redux.sync`).
    Redux,
    /// A global atomic (`atomicAdd`, `atomicMax`, `atomicExch`).
    Atomic,
    /// A shared-memory atomic (`atomicAdd` on a `__shared__` word).
    SharedAtomic,
    /// `__threadfence`.
    Fence,
    /// Integer arithmetic on indices and addresses.
    Arith,
    /// A use of a value the kernel treats as uniform.
    Use,
    /// A kernel invariant (`assert`).
    Assert,
    /// A load from shared memory.
    SharedLoad,
    /// A store to shared memory.
    SharedStore,
    /// A load from global memory.
    GlobalLoad,
    /// A store to global memory.
    GlobalStore,
    /// A branch or loop condition.
    Branch,
    /// A shift.
    Shift,
    /// A distributed-shared-memory reduction (`red.shared::cluster.{add,min,max}.u32` at a
    /// `mapa`-mapped address).
    ClusterRed,
    /// A distributed-shared-memory store (`st.shared::cluster.u32` at a `mapa`-mapped
    /// address).
    ClusterStore,
    /// `barrier.cluster.arrive` + `barrier.cluster.wait` (`cluster.sync()`).
    ClusterBarrier,
    /// The whole launch (order dependence).
    Launch,
}

impl Op {
    /// The CUDA spelling.
    pub fn name(self) -> &'static str {
        match self {
            Op::Ballot => "__ballot_sync",
            Op::Any => "__any_sync",
            Op::All => "__all_sync",
            Op::Shfl => "__shfl_sync",
            Op::ShflUp => "__shfl_up_sync",
            Op::ShflDown => "__shfl_down_sync",
            Op::ShflXor => "__shfl_xor_sync",
            Op::Syncwarp => "__syncwarp",
            Op::Syncthreads => "__syncthreads",
            Op::Redux => "redux.sync",
            Op::Atomic => "atom.global",
            Op::SharedAtomic => "atom.shared",
            Op::Fence => "__threadfence",
            Op::Arith => "integer arithmetic",
            Op::Use => "use",
            Op::Assert => "assert",
            Op::SharedLoad => "ld.shared",
            Op::SharedStore => "st.shared",
            Op::GlobalLoad => "ld.global",
            Op::GlobalStore => "st.global",
            Op::Branch => "branch",
            Op::Shift => "shl",
            Op::ClusterRed => "red.shared::cluster",
            Op::ClusterStore => "st.shared::cluster",
            Op::ClusterBarrier => "barrier.cluster",
            Op::Launch => "launch",
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What went wrong.
    pub kind: DiagKind,
    /// The operation.
    pub op: Op,
    /// The kernel's source label of the operation, e.g. `"select_topk: ballot(strong)"`.
    pub label: &'static str,
    /// Block index.
    pub block: u32,
    /// Warp index within the block.
    pub warp: u32,
    /// The lanes concerned (bit `l` = lane `l`).
    pub lanes: u32,
    /// The first word or element concerned, for memory findings.
    pub address: Option<u64>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} in {} at `{}` (block {}, warp {}, lanes {:#010x}",
            self.kind.name(),
            self.op.name(),
            self.label,
            self.block,
            self.warp,
            self.lanes
        )?;
        if let Some(a) = self.address {
            write!(f, ", address {a}")?;
        }
        write!(f, ")")
    }
}

/// What a launch does with diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiagPolicy {
    /// No checks at all (fastest; poison still propagates but is never reported).
    Off,
    /// Run every check and collect the findings (the default).
    #[default]
    Collect,
    /// Run every check and stop the launch with
    /// [`crate::engine::error::SimError::Fatal`] at the first finding.
    FailFast,
}
