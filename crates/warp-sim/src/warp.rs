//! The execution model: a [`Machine`] runs a grid of blocks of warps; a [`Warp`] is 32 lanes
//! in lockstep with an active mask and CUDA's warp primitives.
//!
//! # How a kernel is written against it
//! A kernel is a Rust function of `&mut Warp`. Per-thread variables are [`Lanes`]; loops whose
//! trip count is the same in every lane (chunk loops, reduction steps) are ordinary Rust loops;
//! data-dependent decisions the kernel expects to be warp-uniform go through
//! [`Warp::branch`], which checks that every active lane agrees. Divergent code (`if (i < M)`)
//! is bracketed by [`Warp::push_active`] / [`Warp::pop_active`], and registers written inside
//! it are updated with [`Warp::assign`], so lanes that did not execute keep their values —
//! exactly what the hardware does.
//!
//! # Scheduling
//! Lanes of a warp execute each operation together. Warps of a block run one after another
//! (any interleaving is legal without `__syncthreads`, and races are found from the shadow
//! state, not from the interleaving). [`Machine::launch_phased`] runs blocks whose warps meet
//! at `__syncthreads`. In [`Schedule::Shuffled`] mode, blocks and warps run in a seeded random
//! order, the stores of one instruction are applied in a random lane order, and a racy load
//! sees either the value before or after the racing write: outputs that change between
//! schedules reveal order dependence.

use crate::diag::{DiagKind, DiagPolicy, DiagSink, Diagnostic, Op};
use crate::error::SimError;
use crate::lanes::{FULL_MASK, Lanes, WARP_SIZE, lanes_of};
use crate::memory::{Global, Now, ScheduleRng, SharedMem};

/// The order in which the simulator runs blocks, warps and the lanes of a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Block 0, 1, ...; warp 0, 1, ...; lane 0, 1, ...; racy loads see the latest write.
    #[default]
    InOrder,
    /// A seeded random order everywhere the hardware gives no order guarantee.
    Shuffled {
        /// The seed.
        seed: u64,
    },
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
}

/// How a warp ends one phase of a [`Machine::launch_phased`] kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrive {
    /// The warp reached `__syncthreads()` (with this source label).
    Barrier(&'static str),
    /// The warp returned from the kernel.
    Exit,
}

/// Runs launches: owns the diagnostics, the shared memory of the current block and the
/// schedule. Reuse one machine for many launches to reuse its allocations.
#[derive(Debug)]
pub struct Machine {
    sink: DiagSink,
    shared: SharedMem,
    checks: bool,
    schedule: Schedule,
    rng: Option<ScheduleRng>,
    block: u32,
    warps_per_block: u32,
    block_epoch: u32,
    warp_epochs: Vec<u32>,
    step_limit: u64,
}

/// Default number of findings kept per launch (all are counted).
pub const DEFAULT_KEPT_DIAGNOSTICS: usize = 256;

impl Machine {
    /// A machine with the given diagnostics policy and schedule.
    pub fn new(policy: DiagPolicy, schedule: Schedule) -> Self {
        Self {
            sink: DiagSink::new(policy, DEFAULT_KEPT_DIAGNOSTICS),
            shared: SharedMem::default(),
            checks: policy != DiagPolicy::Off,
            schedule,
            rng: None,
            block: 0,
            warps_per_block: 1,
            block_epoch: 0,
            warp_epochs: Vec::new(),
            step_limit: u64::MAX,
        }
    }

    /// Limits the simulated operations one warp may execute per phase (a watchdog against
    /// kernels that do not terminate).
    pub fn set_step_limit(&mut self, limit: u64) {
        self.step_limit = limit;
    }

    /// The diagnostics policy.
    pub fn policy(&self) -> DiagPolicy {
        if self.checks { DiagPolicy::Collect } else { DiagPolicy::Off }
    }

    /// Takes the findings of the launches so far: the kept ones and the total count.
    pub fn take_diagnostics(&mut self) -> (Vec<Diagnostic>, u64) {
        self.sink.take()
    }

    /// The shared memory of the block that ran last (for inspection).
    pub fn shared(&self) -> &SharedMem {
        &self.shared
    }

    /// Runs `body` for every warp of every block; warps never wait for each other.
    pub fn launch<F>(&mut self, grid: Grid, mut body: F) -> Result<(), SimError>
    where
        F: FnMut(&mut Warp<'_>) -> Result<(), SimError>,
    {
        self.launch_phased(grid, |w: &mut Warp<'_>, _: &mut (), _| {
            body(w)?;
            Ok(Arrive::Exit)
        })
    }

    /// Runs a kernel whose warps meet at `__syncthreads()`: `body(warp, state, phase)` runs the
    /// code of one warp up to its next barrier (returning [`Arrive::Barrier`]) or to its end
    /// ([`Arrive::Exit`]); `state` carries the warp's registers across phases. When every
    /// running warp has arrived, the barrier completes and the next phase starts.
    pub fn launch_phased<S, F>(&mut self, grid: Grid, mut body: F) -> Result<(), SimError>
    where
        S: Default,
        F: FnMut(&mut Warp<'_>, &mut S, usize) -> Result<Arrive, SimError>,
    {
        if !(1..=32).contains(&grid.warps_per_block) {
            return Err(SimError::InvalidLaunch(format!(
                "warps per block must be 1 to 32, got {}",
                grid.warps_per_block
            )));
        }
        self.rng = match self.schedule {
            Schedule::InOrder => None,
            Schedule::Shuffled { seed } => Some(ScheduleRng::new(seed)),
        };
        for b in self.order(grid.blocks as usize) {
            self.run_block(grid, b as u32, &mut body)?;
        }
        Ok(())
    }

    fn order(&mut self, n: usize) -> Vec<usize> {
        match &mut self.rng {
            Some(rng) => rng.permutation(n),
            None => (0..n).collect(),
        }
    }

    fn run_block<S, F>(&mut self, grid: Grid, block: u32, body: &mut F) -> Result<(), SimError>
    where
        S: Default,
        F: FnMut(&mut Warp<'_>, &mut S, usize) -> Result<Arrive, SimError>,
    {
        let w = grid.warps_per_block as usize;
        self.block = block;
        self.warps_per_block = grid.warps_per_block;
        self.block_epoch = 0;
        self.warp_epochs.clear();
        self.warp_epochs.resize(w, 0);
        self.shared.reset(grid.shared_words);
        let mut states: Vec<S> = (0..w).map(|_| S::default()).collect();
        let mut alive = vec![FULL_MASK; w];
        let mut running = vec![true; w];
        for phase in 0.. {
            let mut barrier: Option<&'static str> = None;
            let mut exited_now = Vec::new();
            for wi in self.order(w) {
                if !running[wi] {
                    continue;
                }
                let mut warp = Warp::new(self, wi as u32, alive[wi]);
                let arrive = body(&mut warp, &mut states[wi], phase)?;
                let (active, now_alive) = (warp.active, warp.alive);
                match arrive {
                    Arrive::Barrier(label) => {
                        barrier.get_or_insert(label);
                        let missing = alive[wi] & !active;
                        if missing != 0 {
                            self.report(
                                DiagKind::BarrierDivergence,
                                Op::Syncthreads,
                                label,
                                wi as u32,
                                missing,
                                None,
                            )?;
                        }
                    }
                    Arrive::Exit => {
                        running[wi] = false;
                        exited_now.push(wi);
                    }
                }
                alive[wi] = now_alive;
            }
            let Some(label) = barrier else { break };
            for wi in exited_now {
                self.report(
                    DiagKind::BarrierDivergence,
                    Op::Syncthreads,
                    label,
                    wi as u32,
                    0,
                    None,
                )?;
            }
            self.block_epoch += 1;
        }
        Ok(())
    }

    fn report(
        &mut self,
        kind: DiagKind,
        op: Op,
        label: &'static str,
        warp: u32,
        lanes: u32,
        address: Option<usize>,
    ) -> Result<(), SimError> {
        if !self.checks {
            return Ok(());
        }
        self.sink.report(Diagnostic { kind, op, label, block: self.block, warp, lanes, address })
    }

    /// Reports a launch-level finding (order dependence) computed outside the kernel.
    pub fn report_launch(&mut self, d: Diagnostic) -> Result<(), SimError> {
        self.sink.report(d)
    }
}

/// One warp of a running block: 32 lanes, the active mask, and CUDA's warp primitives.
#[derive(Debug)]
pub struct Warp<'m> {
    m: &'m mut Machine,
    warp: u32,
    active: u32,
    alive: u32,
    steps: u64,
}

/// Per-lane flags of one memory instruction, reported as one diagnostic per kind.
struct Findings {
    masks: [(DiagKind, u32, Option<usize>); 4],
    n: usize,
}

impl Findings {
    fn new() -> Self {
        Self { masks: [(DiagKind::PoisonUsed, 0, None); 4], n: 0 }
    }

    fn add(&mut self, kind: DiagKind, lane: usize, addr: usize) {
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

impl<'m> Warp<'m> {
    fn new(m: &'m mut Machine, warp: u32, alive: u32) -> Self {
        Self { m, warp, active: alive, alive, steps: 0 }
    }

    // ----- identity -------------------------------------------------------------------------

    /// `blockIdx.x`.
    pub fn block_idx(&self) -> u32 {
        self.m.block
    }

    /// This warp's index in the block (`threadIdx.x / 32`).
    pub fn warp_idx(&self) -> u32 {
        self.warp
    }

    /// Warps per block (`blockDim.x / 32`).
    pub fn warps_per_block(&self) -> u32 {
        self.m.warps_per_block
    }

    /// `threadIdx.x % 32` in every lane.
    pub fn lane_id(&self) -> Lanes<u32> {
        Lanes::from_fn(|l| l as u32)
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

    /// A host-side look at `len` shared words from `start` (for traces; not a simulated
    /// access, so it neither checks nor records anything). Words past the allocation are
    /// left out.
    pub fn peek_shared(&self, start: usize, len: usize) -> Vec<u32> {
        let shared = &self.m.shared;
        (start..start.saturating_add(len)).map_while(|a| shared.word(a)).collect()
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

    /// [`Warp::push_active`] with the condition given as a lane mask (`if (i < M)` for a
    /// chunk, computed without a per-lane test).
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

    /// The value of a register the kernel expects to be the same in every active lane (a loop
    /// bound, a bracket, a count). Lanes that disagree are a [`DiagKind::NonUniformBranch`];
    /// poisoned lanes a [`DiagKind::PoisonUsed`]. Returns the lowest active lane's value.
    pub fn uniform<T: Copy + PartialEq>(
        &mut self,
        v: &Lanes<T>,
        label: &'static str,
    ) -> Result<T, SimError> {
        self.step()?;
        let Some(first) = lanes_of(self.active).next() else { return Ok(v.lane(0)) };
        let value = v.lane(first);
        if self.m.checks {
            self.check_poison(v.poison_mask(), Op::Branch, label, None)?;
            if self.active == FULL_MASK && v.values().iter().all(|&x| x == value) {
                // The common case: a converged warp whose lanes agree.
                return Ok(value);
            }
            let differ = lanes_of(self.active)
                .fold(0, |m, l| if v.lane(l) != value { m | 1 << l } else { m });
            if differ != 0 {
                self.report(DiagKind::NonUniformBranch, Op::Branch, label, differ, None)?;
            }
        }
        Ok(value)
    }

    /// A branch on a condition the kernel expects to be warp-uniform ([`Warp::uniform`]).
    pub fn branch(&mut self, cond: &Lanes<bool>, label: &'static str) -> Result<bool, SimError> {
        self.uniform(cond, label)
    }

    // ----- warp primitives ------------------------------------------------------------------

    /// `__syncwarp(mask)`: the lanes of `mask` meet; memory they wrote before is visible to
    /// each other after.
    pub fn syncwarp(&mut self, mask: u32, label: &'static str) -> Result<(), SimError> {
        self.participants(Op::Syncwarp, mask, label)?;
        self.m.warp_epochs[self.warp as usize] += 1;
        Ok(())
    }

    /// `__syncwarp(mask)` where each lane passes its own mask: lanes that disagree are a
    /// [`DiagKind::SyncwarpMaskMismatch`].
    pub fn syncwarp_lanes(
        &mut self,
        masks: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        let Some(first) = lanes_of(self.active).next() else { return Ok(()) };
        let mask = masks.lane(first);
        let differ = lanes_of(self.active)
            .fold(0, |m, l| if masks.lane(l) != mask { m | 1 << l } else { m });
        if differ != 0 {
            self.report(DiagKind::SyncwarpMaskMismatch, Op::Syncwarp, label, differ, None)?;
        }
        self.syncwarp(mask, label)
    }

    /// `__ballot_sync(mask, pred)`: bit `l` set when lane `l` takes part and `pred` holds.
    pub fn ballot_sync(
        &mut self,
        mask: u32,
        pred: &Lanes<bool>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        let part = self.participants(Op::Ballot, mask, label)?;
        let bits = pred.mask() & part;
        Ok(self.vote_result(bits, pred.poison_mask() & part != 0, part))
    }

    /// `__any_sync(mask, pred)`.
    pub fn any_sync(
        &mut self,
        mask: u32,
        pred: &Lanes<bool>,
        label: &'static str,
    ) -> Result<Lanes<bool>, SimError> {
        let part = self.participants(Op::Any, mask, label)?;
        let any = pred.mask() & part != 0;
        Ok(self.vote_result(any, pred.poison_mask() & part != 0, part))
    }

    /// `__all_sync(mask, pred)`.
    pub fn all_sync(
        &mut self,
        mask: u32,
        pred: &Lanes<bool>,
        label: &'static str,
    ) -> Result<Lanes<bool>, SimError> {
        let part = self.participants(Op::All, mask, label)?;
        let all = pred.mask() & part == part;
        Ok(self.vote_result(all, pred.poison_mask() & part != 0, part))
    }

    /// A vote's result: the same in every participant, poisoned when a vote was, undefined
    /// in lanes that did not take part.
    fn vote_result<T: Copy>(&self, v: T, poisoned: bool, part: u32) -> Lanes<T> {
        Lanes::from_parts([v; WARP_SIZE], !part | if poisoned { part } else { 0 })
    }

    /// `__shfl_sync(mask, var, src_lane, width)` with one source lane for all (a broadcast).
    pub fn shfl_sync<T: Copy>(
        &mut self,
        mask: u32,
        var: &Lanes<T>,
        src_lane: u32,
        width: u32,
        label: &'static str,
    ) -> Result<Lanes<T>, SimError> {
        let b = (src_lane % 32) as usize;
        self.shuffle(Op::Shfl, mask, var, width, label, |_, base, w| Some(base + b % w))
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

    /// `__shfl_up_sync(mask, var, delta, width)`: lane `l` reads lane `l - delta` of its
    /// segment, or keeps its own value when that falls below the segment.
    pub fn shfl_up_sync<T: Copy>(
        &mut self,
        mask: u32,
        var: &Lanes<T>,
        delta: u32,
        width: u32,
        label: &'static str,
    ) -> Result<Lanes<T>, SimError> {
        let d = (delta % 32) as usize;
        self.shuffle(Op::ShflUp, mask, var, width, label, |l, base, _| {
            (l >= base + d).then(|| l - d)
        })
    }

    /// `__shfl_down_sync(mask, var, delta, width)`: lane `l` reads lane `l + delta` of its
    /// segment, or keeps its own value when that falls past the segment.
    pub fn shfl_down_sync<T: Copy>(
        &mut self,
        mask: u32,
        var: &Lanes<T>,
        delta: u32,
        width: u32,
        label: &'static str,
    ) -> Result<Lanes<T>, SimError> {
        let d = (delta % 32) as usize;
        self.shuffle(Op::ShflDown, mask, var, width, label, |l, base, w| {
            (l + d < base + w).then_some(l + d)
        })
    }

    /// `__shfl_xor_sync(mask, var, lane_mask, width)`: lane `l` reads lane `l ^ lane_mask`,
    /// or keeps its own value when that lies past its segment (PTX `shfl.bfly`).
    pub fn shfl_xor_sync<T: Copy>(
        &mut self,
        mask: u32,
        var: &Lanes<T>,
        lane_mask: u32,
        width: u32,
        label: &'static str,
    ) -> Result<Lanes<T>, SimError> {
        let b = (lane_mask % 32) as usize;
        self.shuffle(Op::ShflXor, mask, var, width, label, |l, base, w| {
            let j = l ^ b;
            (j < base + w).then_some(j)
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
        if self.m.checks {
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

    /// `x << n` in every active lane; `n >= 32` is undefined in CUDA C++: reported, poisoned.
    pub fn shl(
        &mut self,
        x: &Lanes<u32>,
        n: &Lanes<u32>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        let over =
            lanes_of(self.active).fold(0, |m, l| if n.lane(l) >= 32 { m | 1 << l } else { m });
        if over != 0 {
            self.report(DiagKind::ShiftOverflow, Op::Shift, label, over, None)?;
        }
        Ok(x.zip(n, |x, n| x.checked_shl(n).unwrap_or(0)).poisoned(over))
    }

    // ----- memory ---------------------------------------------------------------------------

    /// `var = buf[addr]` from a read-only global buffer, in the active lanes.
    pub fn ld_global<T: Copy + Default>(
        &mut self,
        buf: &[T],
        addr: &Lanes<usize>,
        label: &'static str,
    ) -> Result<Lanes<T>, SimError> {
        self.step()?;
        let bad_addr = addr.poison_mask() & self.active;
        self.check_poison(bad_addr, Op::GlobalLoad, label, None)?;
        let mut out = Lanes::from_parts([T::default(); WARP_SIZE], FULL_MASK);
        let mut oob = 0u32;
        for l in lanes_of(self.active & !bad_addr) {
            match buf.get(addr.lane(l)) {
                Some(&v) => out.set_lane(l, v),
                None => oob |= 1 << l,
            }
        }
        if oob != 0 {
            let first = addr.lane(oob.trailing_zeros() as usize);
            self.report(DiagKind::GlobalOutOfBounds, Op::GlobalLoad, label, oob, Some(first))?;
        }
        Ok(out)
    }

    /// `buf[addr] = val` in the active lanes.
    pub fn st_global<T: Copy + PartialEq>(
        &mut self,
        buf: &mut Global<T>,
        addr: &Lanes<usize>,
        val: &Lanes<T>,
        label: &'static str,
    ) -> Result<(), SimError> {
        self.step()?;
        let bad_addr = addr.poison_mask() & self.active;
        self.check_poison(bad_addr, Op::GlobalStore, label, None)?;
        self.check_poison(val.poison_mask() & self.active, Op::GlobalStore, label, None)?;
        let tpb = self.m.warps_per_block * 32;
        let gtid0 = (self.m.block * self.m.warps_per_block + self.warp) * 32;
        let mut f = Findings::new();
        for l in self.lane_order(self.active & !bad_addr).iter() {
            let a = addr.lane(l);
            let w = buf.write(
                a,
                val.lane(l),
                val.is_poisoned(l),
                gtid0 + l as u32,
                self.m.block_epoch,
                tpb,
                self.m.checks,
            );
            if w.out_of_bounds {
                f.add(DiagKind::GlobalOutOfBounds, l, a);
            } else if w.race {
                let kind =
                    if w.same_value { DiagKind::GlobalRaceSameValue } else { DiagKind::GlobalRace };
                f.add(kind, l, a);
            }
        }
        self.report_findings(&f, Op::GlobalStore, label)
    }

    /// `var = shared[addr]` in the active lanes.
    pub fn ld_shared(
        &mut self,
        addr: &Lanes<usize>,
        label: &'static str,
    ) -> Result<Lanes<u32>, SimError> {
        self.step()?;
        let bad_addr = addr.poison_mask() & self.active;
        self.check_poison(bad_addr, Op::SharedLoad, label, None)?;
        let now = self.now();
        let checks = self.m.checks;
        let thread0 = self.warp as u16 * 32;
        if let Some(start) = self.contiguous_run(addr, bad_addr) {
            if let Some((vals, poison)) =
                self.m.shared.read_own_run(start, self.active, thread0, now, checks)
            {
                return Ok(Lanes::from_parts(vals, poison | !self.active));
            }
        }
        let mut vals = [0u32; WARP_SIZE];
        let mut poison = !(self.active & !bad_addr);
        let mut f = Findings::new();
        for l in lanes_of(self.active & !bad_addr) {
            let a = addr.lane(l);
            let r = self.m.shared.read(a, thread0 + l as u16, now, checks);
            let stale = r.race && self.m.rng.as_mut().is_some_and(|g| g.next_u64() & 1 == 1);
            vals[l] = if stale { r.prev } else { r.value };
            poison |= u32::from(r.poisoned) << l;
            if r.out_of_bounds {
                f.add(DiagKind::SharedOutOfBounds, l, a);
            } else if r.uninit {
                f.add(DiagKind::UninitializedSharedRead, l, a);
            } else if r.race {
                f.add(DiagKind::SharedRace, l, a);
            }
        }
        self.report_findings(&f, Op::SharedLoad, label)?;
        Ok(Lanes::from_parts(vals, poison))
    }

    /// `shared[addr] = val` in the active lanes.
    pub fn st_shared(
        &mut self,
        addr: &Lanes<usize>,
        val: &Lanes<u32>,
        label: &'static str,
    ) -> Result<(), SimError> {
        self.step()?;
        let bad_addr = addr.poison_mask() & self.active;
        self.check_poison(bad_addr, Op::SharedStore, label, None)?;
        let now = self.now();
        let checks = self.m.checks;
        let mut f = Findings::new();
        let thread0 = self.warp as u16 * 32;
        for l in self.lane_order(self.active & !bad_addr).iter() {
            let a = addr.lane(l);
            let w = self.m.shared.write(
                a,
                val.lane(l),
                val.is_poisoned(l),
                thread0 + l as u16,
                now,
                checks,
            );
            if w.out_of_bounds {
                f.add(DiagKind::SharedOutOfBounds, l, a);
            } else if w.race {
                let kind =
                    if w.same_value { DiagKind::SharedRaceSameValue } else { DiagKind::SharedRace };
                f.add(kind, l, a);
            }
        }
        self.report_findings(&f, Op::SharedStore, label)
    }

    // ----- internals ------------------------------------------------------------------------

    /// `Some(a)` when every active lane `l` addresses `a + l` (the usual `s[base + lane]`) and
    /// no address is poisoned.
    #[inline]
    fn contiguous_run(&self, addr: &Lanes<usize>, bad_addr: u32) -> Option<usize> {
        if bad_addr != 0 || self.active == 0 {
            return None;
        }
        let first = self.active.trailing_zeros() as usize;
        let start = addr.lane(first).wrapping_sub(first);
        let mut contiguous = true;
        for (l, &a) in addr.values().iter().enumerate() {
            contiguous &= a == start.wrapping_add(l) || self.active >> l & 1 == 0;
        }
        contiguous.then_some(start)
    }

    fn now(&self) -> Now {
        Now {
            block_epoch: self.m.block_epoch,
            warp_epoch: self.m.warp_epochs[self.warp as usize],
            warp: self.warp,
        }
    }

    /// The lanes of `mask` in the order their stores are applied: ascending, or shuffled in
    /// [`Schedule::Shuffled`] mode (the hardware orders the lanes of one store arbitrarily).
    fn lane_order(&mut self, mask: u32) -> LaneOrder {
        let mut order = LaneOrder { lanes: [0; WARP_SIZE], n: 0 };
        for l in lanes_of(mask) {
            order.lanes[order.n] = l as u8;
            order.n += 1;
        }
        if let Some(rng) = &mut self.m.rng {
            for i in (1..order.n).rev() {
                order.lanes.swap(i, rng.below(i + 1));
            }
        }
        order
    }

    #[inline]
    fn step(&mut self) -> Result<(), SimError> {
        self.steps += 1;
        if self.steps > self.m.step_limit {
            return Err(SimError::Watchdog {
                block: self.m.block,
                warp: self.warp,
                limit: self.m.step_limit,
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
        address: Option<usize>,
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

    fn report(
        &mut self,
        kind: DiagKind,
        op: Op,
        label: &'static str,
        lanes: u32,
        address: Option<usize>,
    ) -> Result<(), SimError> {
        let warp = self.warp;
        self.m.report(kind, op, label, warp, lanes, address)
    }
}
