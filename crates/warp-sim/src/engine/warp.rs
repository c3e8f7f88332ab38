//! A [`Warp`]: the lanes of one task — a whole warp, or the lanes of one row of a part-warp
//! launch (16, 8, 4 or one) — in lockstep with an active mask, and CUDA's warp primitives,
//! memory accesses, barriers and integer arithmetic, each checked as it executes.
//!
//! # How a kernel is written against it
//! A kernel is an `async` function of a [`Warp`]; [`crate::engine::machine::Machine`] runs one
//! per task. Per-thread variables are [`Lanes`]; values the kernel treats as uniform over the
//! task's lanes (bounds, thresholds, counts) are taken out of their lanes with
//! [`Warp::uniform`], which checks that every active lane agrees, and branches on them with
//! [`Warp::branch`]; values uniform over a block's warps are checked with
//! [`Warp::block_uniform`]. Divergent code (`if (i < M)`) is bracketed by
//! [`Warp::push_active`] / [`Warp::pop_active`], and registers written inside it are updated
//! with [`Warp::assign`], so lanes that did not execute keep their values — what the
//! hardware does. Index arithmetic goes through [`Warp::add_u32`], [`Warp::mul_u64`], ...,
//! which report a wrap at the CUDA width.
//!
//! Memory operations and barriers are `async` (`.await` them): they are where the scheduler
//! may switch to another warp ([`crate::engine::Schedule::Shuffled`]); `__syncthreads` waits
//! there until every warp of the block has arrived, a cluster barrier until every warp of
//! the cluster's blocks has. Everything else is an ordinary call.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::engine::block::{Core, TaskState};
use crate::engine::cluster::ClusterRed;
use crate::engine::diag::{DiagKind, Op};
use crate::engine::error::SimError;
use crate::engine::global::{Accessor, Source};
use crate::engine::lanes::{FULL_MASK, Lanes, WARP_SIZE, lanes_of};
use crate::engine::shared::{Now, SharedMem, WarpClocks};

/// A handle naming one global buffer of a [`crate::engine::machine::Machine`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufId(pub(crate) usize);

/// Where a task sits in its launch (set by the machine).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    pub(crate) slot: usize,
    pub(crate) task: usize,
    pub(crate) block: u32,
    pub(crate) grid_dim: u32,
    pub(crate) warp: u32,
    pub(crate) warps_per_block: u32,
    pub(crate) group: u32,
    pub(crate) lanes: u32,
    pub(crate) owned_row: Option<u64>,
    pub(crate) step_limit: u64,
    pub(crate) checks: bool,
    /// Blocks per cluster.
    pub(crate) cluster: u32,
}

/// The lanes of one task: identity, active mask, and CUDA's primitives.
#[derive(Debug)]
pub struct Warp<'c> {
    core: &'c RefCell<Core>,
    at: Place,
    active: u32,
    alive: u32,
    steps: u64,
    uniform_seq: usize,
}

/// Per-lane flags of one memory instruction, reported as one diagnostic per kind.
struct Findings {
    masks: [(DiagKind, u32, Option<u64>); 6],
    n: usize,
}

impl Findings {
    fn new() -> Self {
        Self { masks: [(DiagKind::PoisonUsed, 0, None); 6], n: 0 }
    }

    fn add(&mut self, kind: DiagKind, lane: usize, addr: u64) {
        for e in &mut self.masks[..self.n] {
            if e.0 == kind {
                e.1 |= 1 << lane;
                return;
            }
        }
        if self.n < self.masks.len() {
            self.masks[self.n] = (kind, 1 << lane, Some(addr));
            self.n += 1;
        }
    }
}

/// Lanes in store order (no allocation per instruction).
struct LaneOrder {
    lanes: [u8; WARP_SIZE],
    n: usize,
}

impl LaneOrder {
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.lanes[..self.n].iter().map(|&l| usize::from(l))
    }
}

/// Where the scheduler may run another task: pending once when it chose to.
struct SwitchPoint(bool);

impl Future for SwitchPoint {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if std::mem::take(&mut self.0) { Poll::Pending } else { Poll::Ready(()) }
    }
}

/// Waiting at `__syncthreads` or a cluster barrier until the machine completes it.
struct BarrierWait<'c> {
    core: &'c RefCell<Core>,
    task: usize,
}

impl Future for BarrierWait<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        let state = self.core.borrow().tasks[self.task];
        if matches!(state, TaskState::AtBarrier | TaskState::AtClusterBarrier) {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

/// What a lane's [`Accessor`] is made of.
#[derive(Clone, Copy)]
struct AccessorParts<'a> {
    threads_per_block: u32,
    epoch: u32,
    atomics: &'a std::collections::BTreeMap<u32, u32>,
    views: &'a std::collections::BTreeMap<u32, std::collections::BTreeMap<u32, u32>>,
    /// The accessing warp's lanes' `__syncwarp` clocks.
    clocks: Option<&'a WarpClocks>,
    /// Blocks per cluster, and the accessing block's cluster's barriers so far.
    cluster: (u32, u32),
}

impl<'a> AccessorParts<'a> {
    fn of(core: &'a Core, slot: usize, warp: u32) -> Self {
        let block = &core.blocks[slot];
        Self {
            threads_per_block: core.threads_per_block,
            epoch: block.epoch,
            atomics: &core.atomics,
            views: &core.views,
            clocks: block.clocks.get(warp as usize),
            cluster: cluster_of(core, slot),
        }
    }
}

/// Blocks per cluster, and the cluster barriers completed by the cluster of the block in
/// `slot` (its phase; 0 without clusters).
fn cluster_of(core: &Core, slot: usize) -> (u32, u32) {
    let c = core.cluster.max(1);
    let phase = core.clusters.get(slot / c as usize).map_or(0, |s| s.phase);
    (c, if c > 1 { phase } else { 0 })
}

/// The lanes of `mask` where `f(lane)` holds.
#[inline]
fn lanes_where(mask: u32, f: impl Fn(usize) -> bool) -> u32 {
    lanes_of(mask).fold(0, |m, l| if f(l) { m | 1 << l } else { m })
}

/// Where a shuffle with one source for all lanes reads: lane `l` of the segment at `base` of
/// `w` lanes reads [`ShflFrom::src`] (`None`: it keeps its own value).
#[derive(Clone, Copy)]
enum ShflFrom {
    /// `__shfl_sync`: one lane of the segment.
    Lane(usize),
    /// `__shfl_up_sync`: `delta` lanes below.
    Up(usize),
    /// `__shfl_down_sync`: `delta` lanes above.
    Down(usize),
    /// `__shfl_xor_sync`: the lane `l ^ lane_mask`.
    Xor(usize),
}

impl ShflFrom {
    fn op(self) -> Op {
        match self {
            ShflFrom::Lane(_) => Op::Shfl,
            ShflFrom::Up(_) => Op::ShflUp,
            ShflFrom::Down(_) => Op::ShflDown,
            ShflFrom::Xor(_) => Op::ShflXor,
        }
    }

    fn src(self, l: usize, base: usize, w: usize) -> Option<usize> {
        match self {
            ShflFrom::Lane(b) => Some(base + b % w),
            ShflFrom::Up(d) => (l >= base + d).then(|| l - d),
            ShflFrom::Down(d) => (l + d < base + w).then_some(l + d),
            ShflFrom::Xor(b) => Some(l ^ b).filter(|&j| j < base + w),
        }
    }
}

// The primitives that differ only in an operation or a type, one line each where they are
// listed (each `name` becomes `pub fn name(&mut self, ..., label)`).

/// `name: T = checked, wrapping;`: [`Warp::arith`] in `T`.
macro_rules! int_ops {
    ($($(#[$doc:meta])* $name:ident: $t:ty = $checked:path, $wrapping:path;)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, a: &Lanes<$t>, b: &Lanes<$t>, label: &'static str) -> Result<Lanes<$t>, SimError> {
            self.arith(a, b, $checked, $wrapping, label)
        }
    )*};
}

/// `name -> T = Op, |bits, part| result;`: a vote over the participants `part`, `bits` the
/// participants whose predicate holds.
macro_rules! votes {
    ($($(#[$doc:meta])* $name:ident -> $t:ty = $op:ident, |$bits:ident, $part:ident| $result:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, mask: u32, pred: &Lanes<bool>, label: &'static str) -> Result<Lanes<$t>, SimError> {
            let $part = self.participants(Op::$op, mask, label)?;
            let $bits = pred.mask() & $part;
            Ok(self.vote_result($result, pred.poison_mask() & $part != 0, $part))
        }
    )*};
}

/// `name = init, op;`: [`Warp::redux`] folding with `op` from `init`.
macro_rules! reductions {
    ($($(#[$doc:meta])* $name:ident = $init:expr, $op:path;)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, mask: u32, v: &Lanes<u32>, label: &'static str) -> Result<Lanes<u32>, SimError> {
            self.redux(mask, v, $init, $op, label)
        }
    )*};
}

/// `name(arg) = From;`: [`Warp::shuffle`] from [`ShflFrom`]`::From(arg % 32)`.
macro_rules! shuffles {
    ($($(#[$doc:meta])* $name:ident($arg:ident) = $from:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name<T: Copy>(&mut self, mask: u32, var: &Lanes<T>, $arg: u32, width: u32, label: &'static str) -> Result<Lanes<T>, SimError> {
            let from = ShflFrom::$from(($arg % 32) as usize);
            self.shuffle(from.op(), mask, var, width, label, |l, base, w| from.src(l, base, w))
        }
    )*};
}

/// The atomic that writes nothing: [`Warp::atomic_load_global`].
fn keep_old(old: u32, _: u32) -> u32 {
    old
}

/// `name -> N;`: [`Warp::ld_input_vec`] of `N` elements.
macro_rules! vector_loads {
    ($($(#[$doc:meta])* $name:ident -> $n:literal;)*) => {$(
        $(#[$doc])*
        pub async fn $name(&mut self, src: &dyn Source, addr: &Lanes<u64>, label: &'static str) -> Result<[Lanes<u32>; $n], SimError> {
            self.ld_input_vec(src, addr, label).await
        }
    )*};
}

/// `name = op;`: [`Warp::atomic`] with `op`.
macro_rules! atomics {
    ($($(#[$doc:meta])* $name:ident = $op:path;)*) => {$(
        $(#[$doc])*
        pub async fn $name(&mut self, buf: BufId, addr: &Lanes<u64>, val: &Lanes<u32>, label: &'static str) -> Result<Lanes<u32>, SimError> {
            self.atomic(buf, addr, val, $op, label).await
        }
    )*};
}

impl<'c> Warp<'c> {
    pub(crate) fn new(core: &'c RefCell<Core>, at: Place) -> Self {
        Self { core, at, active: at.lanes, alive: at.lanes, steps: 0, uniform_seq: 0 }
    }

    // ----- identity -------------------------------------------------------------------------

    /// `blockIdx.x`.
    pub fn block_idx(&self) -> u32 {
        self.at.block
    }

    /// `gridDim.x` (a launch may simulate only some of the grid's blocks).
    pub fn grid_dim(&self) -> u32 {
        self.at.grid_dim
    }

    /// This block's rank in its cluster (`%cluster_ctarank`: `blockIdx.x % cluster`).
    pub fn cluster_ctarank(&self) -> u32 {
        self.at.block % self.at.cluster
    }

    /// Blocks per cluster (`%cluster_nctarank`; 1 without clusters).
    pub fn cluster_size(&self) -> u32 {
        self.at.cluster
    }

    /// This warp's index in the block (`threadIdx.x / 32`).
    pub fn warp_idx(&self) -> u32 {
        self.at.warp
    }

    /// Warps per block (`blockDim.x / 32`).
    pub fn warps_per_block(&self) -> u32 {
        self.at.warps_per_block
    }

    /// `blockDim.x`.
    pub fn block_dim(&self) -> u32 {
        self.at.warps_per_block * 32
    }

    /// This task's index among its block's tasks (warp-major: `warp * groups_per_warp + g`).
    pub fn group_idx(&self) -> u32 {
        self.at.group
    }

    /// The lanes of this task within its warp (all 32, or one row's 16, 8 or one).
    pub fn group_lanes(&self) -> u32 {
        self.at.lanes
    }

    /// `threadIdx.x % 32` in every lane.
    pub fn lane_id(&self) -> Lanes<u32> {
        Lanes::from_fn(|l| l as u32)
    }

    /// `threadIdx.x` in every lane.
    pub fn thread_idx(&self) -> Lanes<u32> {
        let base = self.at.warp * 32;
        Lanes::from_fn(|l| base + l as u32)
    }

    /// `%lanemask_lt`: the lanes below each lane.
    pub fn lanemask_lt(&self) -> Lanes<u32> {
        Lanes::from_fn(|l| (1u32 << l) - 1)
    }

    /// `__activemask()`.
    pub fn active_mask(&self) -> u32 {
        self.active
    }

    /// Lanes that have not returned.
    pub fn alive_mask(&self) -> u32 {
        self.alive
    }

    /// Whether diagnostics are checked (kernels may skip work that only feeds checks).
    pub fn checks(&self) -> bool {
        self.at.checks
    }

    /// A host-side look at `len` shared words from `start` (for traces; not a simulated
    /// access, so it neither checks nor records anything). Words past the allocation are
    /// left out.
    pub fn peek_shared(&self, start: usize, len: usize) -> Vec<u32> {
        let core = self.core.borrow();
        let shared = &core.blocks[self.at.slot].shared;
        (start..start.saturating_add(len)).map_while(|a| shared.word(a)).collect()
    }

    /// A host-side look at elements `start .. start + len` of global buffer `buf` (for
    /// contract checks; not a simulated access).
    pub fn peek_global(&self, buf: BufId, start: u64, len: u64) -> Vec<u32> {
        self.core.borrow().globals[buf.0].peek(start, len)
    }

    /// [`Warp::peek_global`] of whole elements (an 8-byte element's 64 bits).
    pub fn peek_global64(&self, buf: BufId, start: u64, len: u64) -> Vec<u64> {
        self.core.borrow().globals[buf.0].peek64(start, len)
    }

    // ----- control flow ---------------------------------------------------------------------

    /// Enters divergent code: only the active lanes where `cond` holds keep executing.
    /// Returns the mask to hand back to [`Warp::pop_active`].
    pub fn push_active(
        &mut self,
        cond: &Lanes<bool>,
        label: &'static str,
    ) -> Result<u32, SimError> {
        self.check_poison(cond.poison_mask(), Op::Branch, label, None)?;
        let saved = self.active;
        self.active &= cond.mask();
        Ok(saved)
    }

    /// [`Warp::push_active`] with the condition given as a lane mask.
    pub fn push_active_mask(&mut self, mask: u32) -> u32 {
        let saved = self.active;
        self.active &= mask;
        saved
    }

    /// Leaves divergent code: the lanes of `saved` that are still alive reconverge.
    pub fn pop_active(&mut self, saved: u32) {
        self.active = saved & self.alive;
    }

    /// `return` in the active lanes where `cond` holds: they execute nothing more.
    pub fn exit_where(&mut self, cond: &Lanes<bool>, label: &'static str) -> Result<(), SimError> {
        self.check_poison(cond.poison_mask(), Op::Branch, label, None)?;
        let leaving = self.active & cond.mask();
        self.alive &= !leaving;
        self.active &= !leaving;
        Ok(())
    }

    /// `return` in every active lane.
    pub fn exit(&mut self) {
        self.alive &= !self.active;
        self.active = 0;
    }

    /// `dst = src` in the active lanes (a register write inside divergent code).
    #[inline]
    pub fn assign<T: Copy>(&self, dst: &mut Lanes<T>, src: &Lanes<T>) {
        dst.set_where(self.active, src);
    }

    // ----- uniform values -------------------------------------------------------------------

    /// The value of a register the kernel treats as the same in every active lane of the task
    /// (a bound, a threshold, a count): lanes that disagree are a
    /// [`DiagKind::NonUniformValue`], poisoned lanes a [`DiagKind::PoisonUsed`]. Returns the
    /// lowest active lane's value.
    #[inline]
    pub fn uniform<T: Copy + PartialEq>(
        &mut self,
        v: &Lanes<T>,
        label: &'static str,
    ) -> Result<T, SimError> {
        self.agree(v, DiagKind::NonUniformValue, Op::Use, label)
    }

    /// A branch on a condition the kernel expects to be uniform over the task's active lanes
    /// ([`DiagKind::NonUniformBranch`] where it is not). Returns the lowest active lane's.
    #[inline]
    pub fn branch(&mut self, cond: &Lanes<bool>, label: &'static str) -> Result<bool, SimError> {
        self.agree(cond, DiagKind::NonUniformBranch, Op::Branch, label)
    }

    #[inline]
    fn agree<T: Copy + PartialEq>(
        &mut self,
        v: &Lanes<T>,
        kind: DiagKind,
        op: Op,
        label: &'static str,
    ) -> Result<T, SimError> {
        self.step()?;
        let Some(first) = lanes_of(self.active).next() else { return Ok(v.lane(0)) };
        let value = v.lane(first);
        if self.at.checks {
            self.check_poison(v.poison_mask(), op, label, None)?;
            if self.active == FULL_MASK && v.values().iter().all(|&x| x == value) {
                return Ok(value); // the common case: a converged warp whose lanes agree
            }
            let differ = lanes_where(self.active, |l| v.lane(l) != value);
            if differ != 0 {
                self.report(kind, op, label, differ, None)?;
            }
        }
        Ok(value)
    }

    /// A value the kernel treats as the same in every warp of the block (a block sum, a
    /// bracket of a block row): the `i`-th such use of each warp is compared with the first
    /// warp's `i`-th; a different value is a [`DiagKind::NonUniformValue`], a different
    /// label (the warps took different paths) a [`DiagKind::NonUniformBranch`].
    pub fn block_uniform(&mut self, v: u64, label: &'static str) -> Result<(), SimError> {
        if !self.at.checks {
            return Ok(());
        }
        let i = self.uniform_seq;
        self.uniform_seq += 1;
        let mut core = self.core.borrow_mut();
        let log = &mut core.blocks[self.at.slot].uniform_log;
        let finding = match log.get(i) {
            None => {
                log.push((label, v));
                None
            }
            Some(&(l, _)) if l != label => Some(DiagKind::NonUniformBranch),
            Some(&(_, x)) if x != v => Some(DiagKind::NonUniformValue),
            Some(_) => None,
        };
        match finding {
            Some(kind) => {
                let (block, warp, lanes) = (self.at.block, self.at.warp, self.active);
                core.report(kind, Op::Use, label, block, warp, lanes, None)
            }
            None => Ok(()),
        }
    }

    /// A kernel invariant (`assert(cond)` in every active lane): lanes where it fails are a
    /// [`DiagKind::AssertFailed`].
    pub fn check(&mut self, cond: &Lanes<bool>, label: &'static str) -> Result<(), SimError> {
        if !self.at.checks {
            return Ok(());
        }
        let failed = self.active & !cond.mask();
        if failed != 0 {
            self.report(DiagKind::AssertFailed, Op::Assert, label, failed, None)?;
        }
        Ok(())
    }

    /// A kernel invariant on a uniform value ([`Warp::check`] in every active lane).
    pub fn check_that(&mut self, cond: bool, label: &'static str) -> Result<(), SimError> {
        if self.at.checks && !cond && self.active != 0 {
            self.report(DiagKind::AssertFailed, Op::Assert, label, self.active, None)?;
        }
        Ok(())
    }

    // ----- integer arithmetic at the CUDA widths --------------------------------------------

    /// Lane-wise `op` whose `None` (a wrap at the CUDA width) in an active lane is a
    /// [`DiagKind::IntegerOverflow`]; the result wraps there, as CUDA's does.
    #[inline]
    fn arith<A: Copy, B: Copy, T: Copy>(
        &mut self,
        a: &Lanes<A>,
        b: &Lanes<B>,
        checked: impl Fn(A, B) -> Option<T>,
        wrapping: impl Fn(A, B) -> T,
        label: &'static str,
    ) -> Result<Lanes<T>, SimError> {
        let mut over = 0u32;
        let out = Lanes::from_fn(|l| match checked(a.lane(l), b.lane(l)) {
            Some(v) => v,
            None => {
                over |= 1 << l;
                wrapping(a.lane(l), b.lane(l))
            }
        });
        let over = over & self.active;
        if over != 0 && self.at.checks {
            self.report(DiagKind::IntegerOverflow, Op::Arith, label, over, None)?;
        }
        Ok(out.poisoned(a.poison_mask() | b.poison_mask()))
    }

    int_ops! {
        /// `a + b` in `u32` (an index or a position).
        add_u32: u32 = u32::checked_add, u32::wrapping_add;
        /// `a - b` in `u32`, where the kernel means it never to go below 0.
        sub_u32: u32 = u32::checked_sub, u32::wrapping_sub;
        /// `a * b` in `u32`.
        mul_u32: u32 = u32::checked_mul, u32::wrapping_mul;
        /// `a + b` in `u64` (an address offset).
        add_u64: u64 = u64::checked_add, u64::wrapping_add;
        /// `a * b` in `u64` (a row offset: `row_id * (u64)m`).
        mul_u64: u64 = u64::checked_mul, u64::wrapping_mul;
    }

    /// `x << n` in every active lane; `n >= 32` is undefined in CUDA C++: reported, poisoned.
    pub fn shl(
        &mut self,
        x: &Lanes<u32>,
        n: &Lanes<u32>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        let over = lanes_where(self.active, |l| n.lane(l) >= 32);
        if over != 0 {
            self.report(DiagKind::ShiftOverflow, Op::Shift, label, over, None)?;
        }
        Ok(x.zip(n, |x, n| x.checked_shl(n).unwrap_or(0)).poisoned(over))
    }

    // ----- warp primitives ------------------------------------------------------------------

    /// `__syncwarp(mask)`: the lanes of `mask` meet; memory they wrote before is visible to
    /// each other after.
    pub async fn syncwarp(&mut self, mask: u32, label: &'static str) -> Result<(), SimError> {
        self.switch().await;
        let part = self.participants(Op::Syncwarp, mask, label)?;
        let mut core = self.core.borrow_mut();
        let b = &mut core.blocks[self.at.slot];
        let w = self.at.warp as usize;
        b.clocks[w].sync(part);
        b.clocks_used[w] = true;
        Ok(())
    }

    /// `__syncwarp(mask)` where each lane passes its own mask: lanes that disagree are a
    /// [`DiagKind::SyncwarpMaskMismatch`].
    pub async fn syncwarp_lanes(
        &mut self,
        masks: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        let Some(first) = lanes_of(self.active).next() else { return Ok(()) };
        let mask = masks.lane(first);
        let differ = lanes_where(self.active, |l| masks.lane(l) != mask);
        if differ != 0 {
            self.report(DiagKind::SyncwarpMaskMismatch, Op::Syncwarp, label, differ, None)?;
        }
        self.syncwarp(mask, label).await
    }

    votes! {
        /// `__ballot_sync(mask, pred)`: bit `l` set when lane `l` takes part and `pred` holds.
        ballot_sync -> u32 = Ballot, |bits, part| bits;
        /// `__any_sync(mask, pred)`.
        any_sync -> bool = Any, |bits, part| bits != 0;
        /// `__all_sync(mask, pred)`.
        all_sync -> bool = All, |bits, part| bits == part;
    }

    reductions! {
        /// `__reduce_add_sync(mask, v)` (`redux.sync.add`): the participants' sum, in every
        /// participant.
        reduce_add_sync = 0, u32::wrapping_add;
        /// `__reduce_min_sync(mask, v)`.
        reduce_min_sync = u32::MAX, u32::min;
        /// `__reduce_max_sync(mask, v)`.
        reduce_max_sync = 0, u32::max;
    }

    fn redux(
        &mut self,
        mask: u32,
        v: &Lanes<u32>,
        init: u32,
        op: fn(u32, u32) -> u32,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        let part = self.participants(Op::Redux, mask, label)?;
        let r = if part == FULL_MASK {
            v.values().iter().fold(init, |a, &b| op(a, b))
        } else {
            lanes_of(part).fold(init, |a, l| op(a, v.lane(l)))
        };
        Ok(self.vote_result(r, v.poison_mask() & part != 0, part))
    }

    /// A vote's result: the same in every participant, poisoned when a vote was, undefined
    /// in lanes that did not take part.
    fn vote_result<T: Copy>(&self, v: T, poisoned: bool, part: u32) -> Lanes<T> {
        Lanes::from_parts([v; WARP_SIZE], !part | if poisoned { part } else { 0 })
    }

    shuffles! {
        /// `__shfl_sync(mask, var, src_lane, width)` with one source lane for all (a broadcast).
        shfl_sync(src_lane) = Lane;
        /// `__shfl_up_sync(mask, var, delta, width)`: lane `l` reads lane `l - delta` of its
        /// segment, or keeps its own value when that falls below the segment.
        shfl_up_sync(delta) = Up;
        /// `__shfl_down_sync(mask, var, delta, width)`: lane `l` reads lane `l + delta` of its
        /// segment, or keeps its own value when that falls past the segment.
        shfl_down_sync(delta) = Down;
        /// `__shfl_xor_sync(mask, var, lane_mask, width)`: lane `l` reads lane `l ^ lane_mask`,
        /// or keeps its own value when that lies past its segment (PTX `shfl.bfly`).
        shfl_xor_sync(lane_mask) = Xor;
    }

    /// `__shfl_sync(mask, var, src_lane, width)` with a source lane per lane.
    pub fn shfl_idx_sync<T: Copy>(
        &mut self,
        mask: u32,
        var: &Lanes<T>,
        src_lane: &Lanes<u32>,
        width: u32,
        label: &'static str,
    ) -> Result<Lanes<T>, SimError> {
        self.check_poison(src_lane.poison_mask() & self.active, Op::Shfl, label, None)?;
        let src = *src_lane.values();
        self.shuffle(Op::Shfl, mask, var, width, label, |l, base, w| {
            Some(base + (src[l] % 32) as usize % w)
        })
    }

    /// The common part of the shuffles: `src_of(lane, segment_base, width)` is the lane read
    /// (`None` = keep the own value).
    fn shuffle<T: Copy>(
        &mut self,
        op: Op,
        mask: u32,
        var: &Lanes<T>,
        width: u32,
        label: &'static str,
        src_of: impl Fn(usize, usize, usize) -> Option<usize>,
    ) -> Result<Lanes<T>, SimError> {
        let part = self.participants(op, mask, label)?;
        if !(width.is_power_of_two() && width <= 32) {
            self.report(DiagKind::InvalidShuffleWidth, op, label, part, None)?;
            return Ok(var.poisoned(FULL_MASK));
        }
        let w = width as usize;
        let mut out = *var;
        let mut bad = 0u32;
        for l in lanes_of(part) {
            let base = l & !(w - 1);
            let Some(src) = src_of(l, base, w) else { continue };
            if part >> src & 1 == 1 {
                out.set_lane(l, var.lane(src));
                if var.is_poisoned(src) {
                    out = out.poisoned(1 << l);
                }
            } else {
                bad |= 1 << l;
            }
        }
        if bad != 0 {
            self.report(DiagKind::ShuffleSourceInactive, op, label, bad, None)?;
        }
        Ok(out.poisoned(bad | !part))
    }

    /// Checks a `*_sync` mask against the lanes executing it; returns the participants.
    #[inline]
    fn participants(&mut self, op: Op, mask: u32, label: &'static str) -> Result<u32, SimError> {
        self.step()?;
        if self.at.checks {
            let outsiders = self.active & !mask;
            if outsiders != 0 {
                self.report(DiagKind::CallerNotInMask, op, label, outsiders, None)?;
            }
            let absent = mask & !self.active;
            if absent != 0 {
                self.report(DiagKind::MaskNamesInactiveLanes, op, label, absent, None)?;
            }
        }
        Ok(self.active & mask)
    }

    // ----- barriers -------------------------------------------------------------------------

    /// `__syncthreads()`: waits until every task of the block has arrived (or returned: a
    /// [`DiagKind::BarrierDivergence`], as is arriving with some of the task's lanes diverged
    /// away). Shared and global memory written before it is visible to the block after it.
    pub async fn syncthreads(&mut self, label: &'static str) -> Result<(), SimError> {
        self.barrier_voting(false, label).await
    }

    /// `__syncthreads_or(pred)`: [`Warp::syncthreads`], returning in every thread whether
    /// `pred` held in any thread of the block that arrived.
    pub async fn syncthreads_or(
        &mut self,
        pred: &Lanes<bool>,
        label: &'static str,
    ) -> Result<bool, SimError> {
        self.check_poison(pred.poison_mask(), Op::Syncthreads, label, None)?;
        let any = pred.mask() & self.active != 0;
        self.barrier_voting(any, label).await?;
        Ok(self.core.borrow().blocks[self.at.slot].vote)
    }

    /// Arrives at the block's barrier with `vote` for its `__syncthreads_or`, and waits. The
    /// votes of one barrier are gathered until it completes (a warp cannot arrive at the next
    /// before every warp has left this one, so each reads its own barrier's result).
    async fn barrier_voting(&mut self, vote: bool, label: &'static str) -> Result<(), SimError> {
        self.step()?;
        self.switch().await;
        let missing = self.alive & !self.active;
        if missing != 0 {
            self.report(DiagKind::BarrierDivergence, Op::Syncthreads, label, missing, None)?;
        }
        {
            let mut core = self.core.borrow_mut();
            let block = &mut core.blocks[self.at.slot];
            block.barrier.get_or_insert(label);
            block.vote_pending |= vote;
            core.tasks[self.at.task] = TaskState::AtBarrier;
        }
        BarrierWait { core: self.core, task: self.at.task }.await;
        Ok(())
    }

    /// `barrier.cluster.arrive.release` + `barrier.cluster.wait.acquire` (`cluster.sync()`):
    /// waits until every task of every block of the cluster has arrived (or returned: a
    /// [`DiagKind::BarrierDivergence`], as at `__syncthreads`). It orders each block's shared
    /// memory as `__syncthreads` does, and the cluster's reductions into it (a new cluster
    /// phase). A block's `__syncthreads` does not release it, nor it a `__syncthreads`.
    pub async fn barrier_cluster(&mut self, label: &'static str) -> Result<(), SimError> {
        self.step()?;
        self.switch().await;
        let missing = self.alive & !self.active;
        if missing != 0 {
            self.report(DiagKind::BarrierDivergence, Op::ClusterBarrier, label, missing, None)?;
        }
        {
            let mut core = self.core.borrow_mut();
            let cluster = self.at.slot / self.at.cluster as usize;
            core.clusters[cluster].barrier.get_or_insert(label);
            core.tasks[self.at.task] = TaskState::AtClusterBarrier;
        }
        BarrierWait { core: self.core, task: self.at.task }.await;
        Ok(())
    }

    /// `__threadfence()`: orders this thread's global accesses (the simulator's global memory
    /// is sequentially consistent, so it is a point where another warp may run).
    pub async fn threadfence(&mut self) -> Result<(), SimError> {
        self.step()?;
        self.switch().await;
        Ok(())
    }

    /// Lets every other runnable task run before this one goes on, in any schedule: what a
    /// loop waiting for another block's progress (a spin on a global counter) must do.
    pub async fn yield_now(&mut self) -> Result<(), SimError> {
        self.step()?;
        self.core.borrow_mut().yielded = true;
        SwitchPoint(true).await;
        Ok(())
    }

    // ----- memory ---------------------------------------------------------------------------

    /// The start of a memory instruction: a step, a point where another task may run, and
    /// a report of the active lanes whose address (or value) is poisoned, which it returns.
    async fn access(&mut self, poison: u32, op: Op, label: &'static str) -> Result<u32, SimError> {
        self.step()?;
        self.switch().await;
        let bad = poison & self.active;
        self.check_poison(bad, op, label, None)?;
        Ok(bad)
    }

    /// Lets the scheduler run another task here (never in order).
    async fn switch(&mut self) {
        let now = self.core.borrow_mut().switch_now();
        SwitchPoint(now).await;
    }

    /// Lanes whose address lies outside the task's own row of a buffer in rows of `row_len`.
    #[inline]
    fn foreign(&self, addr: &Lanes<u64>, lanes: u32, row_len: Option<u64>) -> u32 {
        match (self.at.owned_row, row_len) {
            (Some(r), Some(len)) if self.at.checks => {
                let (lo, hi) = (r.saturating_mul(len), r.saturating_add(1).saturating_mul(len));
                lanes_where(lanes, |l| !(lo..hi).contains(&addr.lane(l)))
            }
            _ => 0,
        }
    }

    /// `var = src[addr]` from a read-only input, in the active lanes: one element of the
    /// input's width (a 4-, 2- or 1-byte load; the value zero-extended). An input of 8-byte
    /// elements is loaded whole ([`Warp::ld_input64`]): a narrower load of it is an error.
    pub async fn ld_input(
        &mut self,
        src: &dyn Source,
        addr: &Lanes<u64>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        if src.elem_bytes() == 8 {
            return Err(width_error(label, "a load of at most 4 bytes", src.elem_bytes()));
        }
        self.load_input(src, addr, label, |i| src.word(i)).await
    }

    /// `var = src[addr]` of an input of 8-byte elements (`double`, `long long`), in the
    /// active lanes, with [`Warp::ld_input`]'s checks; an input of another width is an error.
    pub async fn ld_input64(
        &mut self,
        src: &dyn Source,
        addr: &Lanes<u64>,
        label: &'static str,
    ) -> Result<Lanes<u64>, SimError> {
        if src.elem_bytes() != 8 {
            return Err(width_error(label, "an 8-byte load", src.elem_bytes()));
        }
        self.load_input(src, addr, label, |i| src.word64(i)).await
    }

    /// The input load of [`Warp::ld_input`] and [`Warp::ld_input64`]: element `addr` read by
    /// `read` in the active lanes, out-of-bounds and foreign addresses reported.
    async fn load_input<T: Copy + Default>(
        &mut self,
        src: &dyn Source,
        addr: &Lanes<u64>,
        label: &'static str,
        read: impl Fn(u64) -> T,
    ) -> Result<Lanes<T>, SimError> {
        let bad_addr = self.access(addr.poison_mask(), Op::GlobalLoad, label).await?;
        let lanes = self.active & !bad_addr;
        let mut out = Lanes::from_parts([T::default(); WARP_SIZE], FULL_MASK);
        let len = src.len();
        let mut oob = 0u32;
        for l in lanes_of(lanes) {
            let a = addr.lane(l);
            if a < len {
                out.set_lane(l, read(a));
            } else {
                oob |= 1 << l;
            }
        }
        let mut f = Findings::new();
        for l in lanes_of(oob) {
            f.add(DiagKind::GlobalOutOfBounds, l, addr.lane(l));
        }
        for l in lanes_of(self.foreign(addr, lanes & !oob, src.row_len())) {
            f.add(DiagKind::ForeignAddress, l, addr.lane(l));
        }
        self.report_findings(&f, Op::GlobalLoad, label)?;
        Ok(out)
    }

    vector_loads! {
        /// A 16-byte load of 4 consecutive 4-byte input elements from `addr` (a `float4`), in
        /// the active lanes: an address that is not a multiple of 4 elements is a
        /// [`DiagKind::MisalignedAccess`] (the hardware faults; the values are poisoned).
        ld_input_v4 -> 4;
        /// A 16-byte load of 8 consecutive 2-byte input elements from `addr` (a `uint4` of four
        /// `__half2`), in the active lanes: an address that is not a multiple of 8 elements is a
        /// [`DiagKind::MisalignedAccess`] (the values are poisoned).
        ld_input_v8 -> 8;
        /// A 16-byte load of 16 consecutive 1-byte input elements from `addr` (a `uint4` of
        /// 8-bit integers), in the active lanes: an address that is not a multiple of 16
        /// elements is a [`DiagKind::MisalignedAccess`] (the values are poisoned).
        ld_input_v16 -> 16;
    }

    /// A 16-byte load of `N` elements of the input's width (`N * elem_bytes == 16`, else the
    /// kernel reads the input as a type it is not: an error), aligned to 16 bytes.
    async fn ld_input_vec<const N: usize>(
        &mut self,
        src: &dyn Source,
        addr: &Lanes<u64>,
        label: &'static str,
    ) -> Result<[Lanes<u32>; N], SimError> {
        let misaligned =
            self.check_vector(addr, (N as u64, src.elem_bytes()), Op::GlobalLoad, label)?;
        let mut out = [Lanes::splat(0u32); N];
        for (q, o) in out.iter_mut().enumerate() {
            let at = addr.map(|a| a.wrapping_add(q as u64));
            *o = self.ld_input(src, &at, label).await?.poisoned(misaligned);
        }
        Ok(out)
    }

    /// Lane `lane`'s [`Accessor`], from the parts of the core it needs (so that the core's
    /// global buffers can be borrowed beside it).
    fn accessor<'a>(&self, parts: AccessorParts<'a>, lane: usize) -> Accessor<'a> {
        let tpb = u64::from(parts.threads_per_block);
        let block = self.at.block;
        Accessor {
            gtid: u64::from(block) * tpb + u64::from(self.at.warp) * 32 + lane as u64,
            threads_per_block: tpb,
            epoch: parts.epoch,
            atomics: parts.atomics.get(&block).copied().unwrap_or(0),
            view: parts.views.get(&block),
            clocks: parts.clocks.map(|c| c.row(lane)),
            own_clock: parts.clocks.map_or(0, |c| c.own(lane)),
            cluster_blocks: u64::from(parts.cluster.0),
            cluster_phase: parts.cluster.1,
        }
    }

    /// An error unless buffer `buf` holds 8-byte elements exactly when the access is of 8
    /// bytes (`wide`): a kernel accessing a buffer as a type it is not.
    fn check_width(&self, buf: BufId, wide: bool, label: &'static str) -> Result<(), SimError> {
        let bytes = self.core.borrow().globals[buf.0].elem_bytes();
        if (bytes == 8) == wide {
            return Ok(());
        }
        let access = if wide { "an 8-byte access" } else { "an access of at most 4 bytes" };
        Err(width_error(label, access, bytes))
    }

    /// `var = buf[addr]` from a writable global buffer of elements of at most 4 bytes, in the
    /// active lanes.
    pub async fn ld_global(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        self.check_width(buf, false, label)?;
        Ok(self.load_global(buf, addr, label).await?.map(|v| v as u32))
    }

    /// `var = buf[addr]` from a buffer of 8-byte elements, in the active lanes.
    pub async fn ld_global64(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        label: &'static str,
    ) -> Result<Lanes<u64>, SimError> {
        self.check_width(buf, true, label)?;
        self.load_global(buf, addr, label).await
    }

    /// The load of [`Warp::ld_global`] and [`Warp::ld_global64`]: whole elements.
    async fn load_global(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        label: &'static str,
    ) -> Result<Lanes<u64>, SimError> {
        let bad_addr = self.access(addr.poison_mask(), Op::GlobalLoad, label).await?;
        let lanes = self.active & !bad_addr;
        let mut vals = [0u64; WARP_SIZE];
        let mut poison = !lanes;
        let mut f = Findings::new();
        let row_len = {
            let core = self.core.borrow();
            let g = &core.globals[buf.0];
            let parts = AccessorParts::of(&core, self.at.slot, self.at.warp);
            for l in lanes_of(lanes) {
                let a = addr.lane(l);
                let r = g.read(a, &self.accessor(parts, l), self.at.checks);
                vals[l] = r.value;
                poison |= u32::from(r.poisoned) << l;
                if let Some(kind) = r.finding {
                    f.add(kind, l, a);
                }
            }
            g.row_len()
        };
        for l in lanes_of(self.foreign(addr, lanes, row_len)) {
            f.add(DiagKind::ForeignAddress, l, addr.lane(l));
        }
        self.report_findings(&f, Op::GlobalLoad, label)?;
        Ok(Lanes::from_parts(vals, poison))
    }

    /// `buf[addr] = val` in the active lanes, to a buffer of elements of at most 4 bytes.
    pub async fn st_global(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        val: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        self.check_width(buf, false, label)?;
        self.store_global(buf, addr, &val.map(u64::from), label).await
    }

    /// `buf[addr] = val` in the active lanes, to a buffer of 8-byte elements.
    pub async fn st_global64(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        val: &Lanes<u64>,
        label: &'static str,
    ) -> Result<(), SimError> {
        self.check_width(buf, true, label)?;
        self.store_global(buf, addr, val, label).await
    }

    /// A 16-byte store of `vals.len()` consecutive elements of the buffer's width from `addr`
    /// (a `uint4`), in the active lanes: `vals.len()` times the element's bytes must be 16
    /// (else the kernel writes the buffer as a type it is not: an error), and an address that
    /// is not a multiple of `vals.len()` elements is a [`DiagKind::MisalignedAccess`] (the
    /// hardware faults: those lanes store nothing). The buffers start 16-byte aligned.
    pub async fn st_global_v(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        vals: &[Lanes<u64>],
        label: &'static str,
    ) -> Result<(), SimError> {
        let bytes = self.core.borrow().globals[buf.0].elem_bytes();
        let shape = (vals.len() as u64, bytes);
        let misaligned = self.check_vector(addr, shape, Op::GlobalStore, label)?;
        let active = self.active;
        self.active &= !misaligned; // those lanes fault: they store nothing
        let mut stored = Ok(());
        for (q, v) in vals.iter().enumerate() {
            let at = addr.map(|a| a.wrapping_add(q as u64));
            stored = self.store_global(buf, &at, v, label).await;
            if stored.is_err() {
                break;
            }
        }
        self.active = active;
        stored
    }

    /// A 16-byte access of `n` elements of `bytes` bytes from `addr`: an error unless
    /// `n * bytes == 16` (the kernel reads or writes memory as a type it is not); the active
    /// lanes whose address is not a multiple of `n` elements, reported as
    /// [`DiagKind::MisalignedAccess`] (the hardware faults there).
    fn check_vector(
        &mut self,
        addr: &Lanes<u64>,
        (n, bytes): (u64, u32),
        op: Op,
        label: &'static str,
    ) -> Result<u32, SimError> {
        if n * u64::from(bytes) != 16 {
            return Err(SimError::InvalidLaunch(format!(
                "`{label}`: a 16-byte access of {n} elements of {bytes} bytes"
            )));
        }
        let misaligned = lanes_where(self.active, |l| addr.lane(l) % n != 0);
        if misaligned != 0 {
            let first = addr.lane(misaligned.trailing_zeros() as usize);
            self.report(DiagKind::MisalignedAccess, op, label, misaligned, Some(first))?;
        }
        Ok(misaligned)
    }

    /// The store of [`Warp::st_global`] and [`Warp::st_global64`].
    async fn store_global(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        val: &Lanes<u64>,
        label: &'static str,
    ) -> Result<(), SimError> {
        let bad_addr = self.access(addr.poison_mask(), Op::GlobalStore, label).await?;
        self.check_poison(val.poison_mask() & self.active, Op::GlobalStore, label, None)?;
        let lanes = self.active & !bad_addr;
        let order = self.lane_order(lanes);
        let mut f = Findings::new();
        let row_len = {
            let mut core = self.core.borrow_mut();
            let checks = self.at.checks;
            let cluster = cluster_of(&core, self.at.slot);
            let Core { globals, atomics, views, blocks, threads_per_block, .. } = &mut *core;
            let block = &blocks[self.at.slot];
            let parts = AccessorParts {
                threads_per_block: *threads_per_block,
                epoch: block.epoch,
                atomics,
                views,
                clocks: block.clocks.get(self.at.warp as usize),
                cluster,
            };
            let g = &mut globals[buf.0];
            for l in order.iter() {
                let a = addr.lane(l);
                let who = self.accessor(parts, l);
                let w = g.write(a, val.lane(l), val.is_poisoned(l), &who, checks);
                if let Some(kind) = w.finding {
                    f.add(kind, l, a);
                }
                if w.rewritten {
                    f.add(DiagKind::OutputRewritten, l, a);
                }
            }
            g.row_len()
        };
        for l in lanes_of(self.foreign(addr, lanes, row_len)) {
            f.add(DiagKind::ForeignAddress, l, addr.lane(l));
        }
        self.report_findings(&f, Op::GlobalStore, label)
    }

    atomics! {
        /// `old = atomicAdd(&buf[addr], val)` in the active lanes (one after another, in a
        /// seeded order when shuffled); atomics do not race with each other.
        atomic_add_global = u32::wrapping_add;
        /// `old = atomicMax(&buf[addr], val)` in the active lanes.
        atomic_max_global = u32::max;
        /// `old = ld.relaxed.gpu [buf + addr]` (a relaxed atomic load; `val` unused) in the
        /// active lanes: it does not race with the atomics that write the word.
        atomic_load_global = keep_old;
    }

    async fn atomic(
        &mut self,
        buf: BufId,
        addr: &Lanes<u64>,
        val: &Lanes<u32>,
        op: fn(u32, u32) -> u32,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        self.check_width(buf, false, label)?;
        let bad = self.access(addr.poison_mask() | val.poison_mask(), Op::Atomic, label).await?;
        let lanes = self.active & !bad;
        let order = self.lane_order(lanes);
        let mut out = Lanes::from_parts([0u32; WARP_SIZE], !lanes);
        let mut f = Findings::new();
        let row_len = {
            let mut core = self.core.borrow_mut();
            let g = &mut core.globals[buf.0];
            for l in order.iter() {
                let a = addr.lane(l);
                match g.atomic(a, |old| op(old, val.lane(l))) {
                    Ok(old) => out.set_lane(l, old),
                    Err(kind) => f.add(kind, l, a),
                }
            }
            let row_len = g.row_len();
            if lanes != 0 {
                core.atomic_done(self.at.block);
            }
            row_len
        };
        // an atomic on another task's row is as foreign as a plain access of it
        for l in lanes_of(self.foreign(addr, lanes, row_len)) {
            f.add(DiagKind::ForeignAddress, l, addr.lane(l));
        }
        self.report_findings(&f, Op::Atomic, label)?;
        Ok(out.poisoned(!lanes | bad))
    }

    /// `var = shared[addr]` in the active lanes (word addresses).
    pub async fn ld_shared(
        &mut self,
        addr: &Lanes<u32>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        let bad_addr = self.access(addr.poison_mask(), Op::SharedLoad, label).await?;
        let checks = self.at.checks;
        let thread0 = self.at.warp as u16 * 32;
        let (w, slot, active) = (self.at.warp, self.at.slot, self.active);
        let mut vals = [0u32; WARP_SIZE];
        let mut poison = !(active & !bad_addr);
        let mut f = Findings::new();
        {
            let mut core = self.core.borrow_mut();
            let phase = core.clusters[slot / self.at.cluster as usize].phase;
            let b = &mut core.blocks[slot];
            let epoch = b.epoch;
            // Words reduced into by the cluster need the full check (a `ClusterRace`).
            let reduced = checks && b.shared.has_reductions();
            let clocks = &b.clocks[w as usize];
            if let Some(start) = contiguous_run(addr, active, bad_addr).filter(|_| !reduced) {
                let own: [u32; WARP_SIZE] = std::array::from_fn(|l| clocks.own(l));
                if let Some((v, p)) =
                    b.shared.read_private_run(start, active, thread0, &own, epoch, checks)
                {
                    return Ok(Lanes::from_parts(v, p | !active));
                }
            }
            let mut races = 0u32;
            let mut prev = [0u32; WARP_SIZE];
            for l in lanes_of(active & !bad_addr) {
                let a = addr.lane(l) as usize;
                let now =
                    Now { block_epoch: epoch, warp: w, clock: clocks.row(l), own: clocks.own(l) };
                let r = b.shared.read(a, thread0 + l as u16, &now, checks);
                vals[l] = r.value;
                prev[l] = r.prev;
                races |= u32::from(r.finding == Some(DiagKind::SharedRace)) << l;
                poison |= u32::from(r.poisoned) << l;
                if let Some(kind) = r.finding {
                    f.add(kind, l, a as u64);
                }
                if reduced && b.shared.reduced_in(a, phase) {
                    f.add(DiagKind::ClusterRace, l, a as u64);
                }
            }
            // A racy load sees the value before or after the racing write, by a seeded coin
            // per lane (shuffled schedules only).
            if let Some(rng) = core.rng.as_mut().filter(|_| races != 0) {
                let coins = rng.next_u64() as u32;
                for l in lanes_of(races & coins) {
                    vals[l] = prev[l];
                }
            }
        }
        self.report_findings(&f, Op::SharedLoad, label)?;
        Ok(Lanes::from_parts(vals, poison))
    }

    /// `old = atomicAdd(&shared[addr], val)` in the active lanes (word addresses), one lane
    /// after another (in a seeded order when shuffled): atomics of a word do not race with
    /// each other, only with plain accesses of other threads that no barrier orders.
    pub async fn atomic_add_shared(
        &mut self,
        addr: &Lanes<u32>,
        val: &Lanes<u32>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        let bad = self.access(addr.poison_mask(), Op::SharedAtomic, label).await?;
        let (checks, thread0) = (self.at.checks, self.at.warp as u16 * 32);
        let lanes = self.active & !bad;
        let order = self.lane_order(lanes);
        let mut out = Lanes::from_parts([0u32; WARP_SIZE], !lanes);
        let f = self.each_shared_lane(&order, addr, |shared, l, a, now, f| {
            let who = (val.is_poisoned(l), thread0 + l as u16);
            let r = shared.atomic(a, |old| old.wrapping_add(val.lane(l)), who, now, checks);
            out.set_lane(l, r.old);
            if r.poisoned {
                out = out.poisoned(1 << l);
            }
            if let Some(kind) = r.finding {
                f.add(kind, l, a as u64);
            }
        });
        self.report_findings(&f, Op::SharedAtomic, label)?;
        Ok(out)
    }

    /// `shared[addr] = val` in the active lanes.
    pub async fn st_shared(
        &mut self,
        addr: &Lanes<u32>,
        val: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        let bad_addr = self.access(addr.poison_mask(), Op::SharedStore, label).await?;
        let (checks, thread0) = (self.at.checks, self.at.warp as u16 * 32);
        let order = self.lane_order(self.active & !bad_addr);
        let f = self.each_shared_lane(&order, addr, |shared, l, a, now, f| {
            let (value, poisoned) = (val.lane(l), val.is_poisoned(l));
            if let Some(kind) = shared.write(a, value, poisoned, thread0 + l as u16, now, checks) {
                f.add(kind, l, a as u64);
            }
        });
        self.report_findings(&f, Op::SharedStore, label)
    }

    /// `each(shared, lane, word, now, findings)` for the lanes of `order` in turn, on the
    /// block's shared memory with each lane's clocks, after the check every shared write
    /// makes first: a word a cluster reduction reached in this cluster phase is a
    /// [`DiagKind::ClusterRace`]. The lanes' findings.
    fn each_shared_lane(
        &self,
        order: &LaneOrder,
        addr: &Lanes<u32>,
        mut each: impl FnMut(&mut SharedMem, usize, usize, &Now<'_>, &mut Findings),
    ) -> Findings {
        let mut f = Findings::new();
        let mut core = self.core.borrow_mut();
        let phase = core.clusters[self.at.slot / self.at.cluster as usize].phase;
        let b = &mut core.blocks[self.at.slot];
        let epoch = b.epoch;
        let reduced = self.at.checks && b.shared.has_reductions();
        let clocks = &b.clocks[self.at.warp as usize];
        for l in order.iter() {
            let a = addr.lane(l) as usize;
            let now = Now {
                block_epoch: epoch,
                warp: self.at.warp,
                clock: clocks.row(l),
                own: clocks.own(l),
            };
            if reduced && b.shared.reduced_in(a, phase) {
                f.add(DiagKind::ClusterRace, l, a as u64);
            }
            each(&mut b.shared, l, a, &now, &mut f);
        }
        f
    }

    /// `red.shared::cluster.{op}.u32` at `mapa(addr, rank)` in the active lanes: `op` of `v`
    /// into shared word `addr` (a word address, as [`Warp::ld_shared`]'s) of the block of
    /// rank `rank` of this block's cluster — this block's own rank included. Atomic, in a
    /// seeded lane order when shuffled. A rank outside the cluster
    /// ([`DiagKind::ClusterRank`]) or a block that returned ([`DiagKind::ClusterExited`])
    /// skips the lane; another block before the cluster's first cluster barrier is a
    /// [`DiagKind::ClusterUnsynced`]; the old value never written, a
    /// [`DiagKind::UninitializedSharedRead`]; a plain access of the owner in this cluster
    /// phase, a [`DiagKind::ClusterRace`].
    pub async fn red_shared_cluster(
        &mut self,
        op: ClusterRed,
        rank: &Lanes<u32>,
        addr: &Lanes<u32>,
        v: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        self.write_shared_cluster(Some(op), rank, addr, v, label).await
    }

    /// `st.shared::cluster.u32` at `mapa(addr, rank)` in the active lanes: `v` into shared
    /// word `addr` of the block of rank `rank` of this block's cluster, checked as
    /// [`Warp::red_shared_cluster`] checks a reduction, except that the old value is not read
    /// and a second write of the word from the cluster in the same cluster phase is a
    /// [`DiagKind::ClusterRace`].
    pub async fn st_shared_cluster(
        &mut self,
        rank: &Lanes<u32>,
        addr: &Lanes<u32>,
        v: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        self.write_shared_cluster(None, rank, addr, v, label).await
    }

    /// [`Warp::red_shared_cluster`] (`op`) or [`Warp::st_shared_cluster`] (`None`) in the
    /// active lanes.
    async fn write_shared_cluster(
        &mut self,
        op: Option<ClusterRed>,
        rank: &Lanes<u32>,
        addr: &Lanes<u32>,
        v: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        let kind = if op.is_some() { Op::ClusterRed } else { Op::ClusterStore };
        let poison = rank.poison_mask() | addr.poison_mask();
        let bad = self.access(poison, kind, label).await?;
        let order = self.lane_order(self.active & !bad);
        let mut f = Findings::new();
        {
            let mut core = self.core.borrow_mut();
            for l in order.iter() {
                let (r, a) = (rank.lane(l), addr.lane(l) as usize);
                let operand = (v.lane(l), v.is_poisoned(l));
                self.reduce_lane(&mut core, op, r, a, operand, label, &mut f, l);
            }
        }
        self.report_findings(&f, kind, label)
    }

    /// Lane `l`'s reduction of [`Warp::red_shared_cluster`] (`op`), or its store of
    /// [`Warp::st_shared_cluster`] (`None`): `operand` (value, poisoned) into word `a` of the
    /// block of rank `r`; findings go to `f`.
    #[allow(clippy::too_many_arguments)]
    fn reduce_lane(
        &self,
        core: &mut Core,
        op: Option<ClusterRed>,
        r: u32,
        a: usize,
        operand: (u32, bool),
        label: &'static str,
        f: &mut Findings,
        l: usize,
    ) {
        if r >= self.at.cluster {
            return f.add(DiagKind::ClusterRank, l, a as u64);
        }
        let slots = core.cluster_slots(self.at.slot);
        let phase = core.clusters[slots.start / self.at.cluster as usize].phase;
        let remote = r != self.cluster_ctarank();
        if phase == 0 && remote {
            f.add(DiagKind::ClusterUnsynced, l, a as u64);
        }
        let target = slots.start + r as usize;
        if core.block_done(target) {
            return f.add(DiagKind::ClusterExited, l, a as u64);
        }
        let b = &mut core.blocks[target];
        let (x, poisoned) = operand;
        let red = match op {
            Some(op) => {
                b.shared.reduce(a, |old| op.apply(old, x), poisoned, phase, b.cluster_epoch)
            }
            None => b.shared.store_remote(a, x, poisoned, phase, b.cluster_epoch),
        };
        if let Some(kind) = red.finding {
            f.add(kind, l, a as u64);
        }
        if red.race {
            f.add(DiagKind::ClusterRace, l, a as u64);
        }
        if remote && red.finding != Some(DiagKind::SharedOutOfBounds) {
            b.remote_red = Some((phase, label));
        }
    }

    // ----- internals ------------------------------------------------------------------------

    /// The lanes of `mask` in the order their stores are applied: ascending, or shuffled in
    /// [`crate::engine::Schedule::Shuffled`] mode (the hardware orders the lanes of one store
    /// arbitrarily).
    fn lane_order(&mut self, mask: u32) -> LaneOrder {
        let mut order = LaneOrder { lanes: [0; WARP_SIZE], n: 0 };
        for l in lanes_of(mask) {
            order.lanes[order.n] = l as u8;
            order.n += 1;
        }
        if let Some(rng) = &mut self.core.borrow_mut().rng {
            for i in (1..order.n).rev() {
                order.lanes.swap(i, rng.below(i + 1));
            }
        }
        order
    }

    #[inline]
    fn step(&mut self) -> Result<(), SimError> {
        self.steps += 1;
        if self.steps > self.at.step_limit {
            return Err(SimError::Watchdog {
                block: self.at.block,
                warp: self.at.warp,
                limit: self.at.step_limit,
            });
        }
        Ok(())
    }

    #[inline]
    fn check_poison(
        &mut self,
        lanes: u32,
        op: Op,
        label: &'static str,
        address: Option<u64>,
    ) -> Result<(), SimError> {
        let lanes = lanes & self.active;
        if lanes != 0 {
            self.report(DiagKind::PoisonUsed, op, label, lanes, address)
        } else {
            Ok(())
        }
    }

    fn report_findings(
        &mut self,
        f: &Findings,
        op: Op,
        label: &'static str,
    ) -> Result<(), SimError> {
        for &(kind, lanes, addr) in &f.masks[..f.n] {
            self.report(kind, op, label, lanes, addr)?;
        }
        Ok(())
    }

    /// Reports a finding of this task at `label`.
    pub fn report(
        &mut self,
        kind: DiagKind,
        op: Op,
        label: &'static str,
        lanes: u32,
        address: Option<u64>,
    ) -> Result<(), SimError> {
        if !self.at.checks {
            return Ok(());
        }
        let (block, warp) = (self.at.block, self.at.warp);
        self.core.borrow_mut().report(kind, op, label, block, warp, lanes, address)
    }
}

/// The error of an access of the wrong width (`access`) to elements of `bytes` bytes: the
/// kernel reads or writes memory as a type it is not.
fn width_error(label: &'static str, access: &str, bytes: u32) -> SimError {
    SimError::InvalidLaunch(format!("`{label}`: {access} of {bytes}-byte elements"))
}

/// `Some(a)` when every active lane `l` addresses `a + l` (the usual `s[base + lane]`) and
/// no address is poisoned.
#[inline]
fn contiguous_run(addr: &Lanes<u32>, active: u32, bad_addr: u32) -> Option<usize> {
    if bad_addr != 0 || active == 0 {
        return None;
    }
    let first = active.trailing_zeros() as usize;
    let start = (addr.lane(first) as usize).wrapping_sub(first);
    let mut contiguous = true;
    for (l, &a) in addr.values().iter().enumerate() {
        contiguous &= a as usize == start.wrapping_add(l) || active >> l & 1 == 0;
    }
    contiguous.then_some(start)
}
