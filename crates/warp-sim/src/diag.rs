//! Diagnostics: structured findings of the simulator, collected or fatal by policy.
//!
//! Every finding is a [`Diagnostic`] value — kind, operation, the kernel's source label, block,
//! warp, lanes, address — never a Rust panic. A launch either collects them
//! ([`DiagPolicy::Collect`]) or stops at the first one ([`DiagPolicy::FailFast`]);
//! [`DiagPolicy::Off`] skips the checks (and their cost) altogether.

use std::fmt;

use crate::error::SimError;

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
    /// A shift by 32 or more bits (undefined behaviour in CUDA C++).
    ShiftOverflow,
    /// A shuffle `width` that is not a power of two in `1..=32`.
    InvalidShuffleWidth,
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
            DiagKind::ShiftOverflow => "shift-overflow",
            DiagKind::InvalidShuffleWidth => "invalid-shuffle-width",
            DiagKind::OrderDependence => "order-dependence",
        }
    }

    /// `true` for findings that are harmless in practice (same-value races).
    pub fn is_benign(self) -> bool {
        matches!(self, DiagKind::SharedRaceSameValue | DiagKind::GlobalRaceSameValue)
    }
}

/// The operation that produced a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
            Op::SharedLoad => "ld.shared",
            Op::SharedStore => "st.shared",
            Op::GlobalLoad => "ld.global",
            Op::GlobalStore => "st.global",
            Op::Branch => "branch",
            Op::Shift => "shl",
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
    pub address: Option<usize>,
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
    /// Run every check and stop the launch with [`SimError::Fatal`] at the first finding.
    FailFast,
}

/// Where findings go during a launch.
#[derive(Clone, Debug)]
pub struct DiagSink {
    policy: DiagPolicy,
    cap: usize,
    list: Vec<Diagnostic>,
    total: u64,
}

impl DiagSink {
    /// A sink keeping at most `cap` findings (all of them are counted).
    pub fn new(policy: DiagPolicy, cap: usize) -> Self {
        Self { policy, cap, list: Vec::new(), total: 0 }
    }

    /// `true` unless the policy is [`DiagPolicy::Off`].
    #[inline]
    pub fn enabled(&self) -> bool {
        self.policy != DiagPolicy::Off
    }

    /// Records `d`; under [`DiagPolicy::FailFast`] returns it as an error instead.
    #[inline]
    pub fn report(&mut self, d: Diagnostic) -> Result<(), SimError> {
        match self.policy {
            DiagPolicy::Off => Ok(()),
            DiagPolicy::FailFast => Err(SimError::Fatal(Box::new(d))),
            DiagPolicy::Collect => {
                self.total += 1;
                if self.list.len() < self.cap {
                    self.list.push(d);
                }
                Ok(())
            }
        }
    }

    /// The findings kept so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.list
    }

    /// How many findings were reported (kept or not).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Takes the kept findings out and resets the count.
    pub fn take(&mut self) -> (Vec<Diagnostic>, u64) {
        let total = std::mem::take(&mut self.total);
        (std::mem::take(&mut self.list), total)
    }
}
