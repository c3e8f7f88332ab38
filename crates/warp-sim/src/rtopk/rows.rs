//! Row storage (the CUDA kernel's `rows.cuh`): where each launch family keeps a row's keys
//! and how `count_ge` reaches them — [`WarpRow`] (EPL keys per lane of a row's 8, 16 or 32
//! lanes), [`CandRow`] (a narrowed row's candidates, C per lane of one warp), [`BlockRow`] (32
//! keys per thread, then shared memory, then re-keyed from global memory) — and the row-wide
//! reductions and scans (`row_butterfly`, `row_sum`, `row_min`, `row_max`, `row_scan`,
//! `block_prefix`).

use crate::engine::error::SimError;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::Warp;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::order_key;

/// Words of one bit per slot for `n` slots (`MASK_WORDS(N)`).
#[inline]
pub(crate) fn mask_words(n: usize) -> usize {
    n.div_ceil(32)
}

/// `slots_ge`: bit `j % 32` of word `j / 32` set where `keys[j] >= t`, in every lane.
#[inline]
pub(crate) fn slots_ge(keys: &[Lanes<u32>], t: u32, ge: &mut [Lanes<u32>]) {
    for (w, g) in ge.iter_mut().enumerate() {
        let slots = &keys[32 * w..keys.len().min(32 * w + 32)];
        let mut bits = Lanes::splat(0u32);
        for (j, key) in slots.iter().enumerate() {
            bits = bits.zip(key, |b, k| b | (u32::from(k >= t) << j));
        }
        *g = bits;
    }
}

/// The lanes' number of set bits over the words of `ge` (`__popc` per word, summed).
#[inline]
pub(crate) fn popc_words(ge: &[Lanes<u32>]) -> Lanes<u32> {
    ge.iter().fold(Lanes::splat(0u32), |c, g| c.zip(g, |c, g| c.wrapping_add(g.count_ones())))
}

/// A count's threshold: `t`, or `t + 1` under [`Mutant::CountGreaterThan`] (`key > t`).
#[inline]
fn count_threshold(a: &KernelArgs, t: u32) -> u32 {
    if a.has(Mutant::CountGreaterThan) { t.saturating_add(1) } else { t }
}

/// The row's lanes: their mask and their number (8, 16 or 32).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowLanes {
    /// The collectives' mask (`row.lanes`).
    pub(crate) mask: u32,
    /// `LANES`.
    pub(crate) width: u32,
}

/// `row_butterfly`: `op` over the row's lanes in `log2(LANES)` `shfl_xor` steps; every lane
/// ends with the result.
fn row_butterfly(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    op: fn(u32, u32) -> u32,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    let mut v = v;
    let mut d = r.width / 2;
    while d >= 1 {
        // BUG (WrongShuffleOffset): offsets LANES, ..., 2 — lanes 2j, 2j + 1 never meet.
        let offset = if a.has(Mutant::WrongShuffleOffset) { 2 * d } else { d };
        let other = w.shfl_xor_sync(r.mask, &v, offset, r.width, label)?;
        v = v.zip(&other, op);
        d /= 2;
    }
    Ok(v)
}

/// `row_sum`: one `__reduce_add_sync` for a whole warp, a butterfly within a part-warp row's
/// lanes.
pub(crate) fn row_sum(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    // BUG (PartRowFullMaskReduce): the whole-warp reduction for every row width.
    if r.width == 32 || a.has(Mutant::PartRowFullMaskReduce) {
        return w.reduce_add_sync(FULL_MASK, &v, label);
    }
    row_butterfly(w, a, r, v, u32::wrapping_add, label)
}

/// `row_min`: the row's lanes' minimum.
pub(crate) fn row_min(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    if r.width == 32 {
        return w.reduce_min_sync(FULL_MASK, &v, label);
    }
    row_butterfly(w, a, r, v, u32::min, label)
}

/// `row_max`: the row's lanes' maximum.
pub(crate) fn row_max(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    v: Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u32>, SimError> {
    if r.width == 32 {
        return w.reduce_max_sync(FULL_MASK, &v, label);
    }
    row_butterfly(w, a, r, v, u32::max, label)
}

/// `row_scan`: the inclusive prefix sum of `v` over the row's lanes (`sub`: each lane's place
/// among them), `shfl_up` with the row's width.
pub(crate) fn row_scan(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    r: RowLanes,
    sub: &Lanes<u32>,
    v: Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let mut v = v;
    let width = if a.has(Mutant::PartRowScanWidth32) { 32 } else { r.width }; // BUG: width 32
    let mut d = 1u32;
    while d < r.width {
        let up = w.shfl_up_sync(r.mask, &v, d, width, "row_scan: shfl_up(v, d)")?;
        let take = sub.map(|s| s >= d);
        v = Lanes::select(&take, &v.zip(&up, u32::wrapping_add), &v);
        d <<= 1;
    }
    Ok(v)
}

/// What every row type offers the search: `count_ge_positive(t)` for `t >= 1`, the row's
/// width, and its narrowing cap (`NARROW_CAP`, 0 where it does not narrow).
pub(crate) trait Row {
    /// `count_ge(t)` for `t >= 1`: the row's keys `>= t`, uniform over the row's lanes.
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError>;
    /// M.
    fn m(&self) -> u32;
    /// Most keys the row narrows to (0: it does not).
    fn narrow_cap(&self) -> u32;
}

/// `count_ge(t)`: the whole row for `t = 0` (padding slots hold key 0), else counted.
pub(crate) async fn count_ge<R: Row>(
    row: &mut R,
    w: &mut Warp<'_>,
    a: &KernelArgs,
    t: u32,
) -> Result<u32, SimError> {
    if t == 0 { Ok(row.m()) } else { row.count_ge_positive(w, a, t).await }
}

/// One row of a warp-row launch: lane `sub` of its `LANES` lanes holds the keys of elements
/// `sub * EPL .. sub * EPL + EPL - 1` (`keys[j]`, padding past M is key 0).
#[derive(Clone, Debug)]
pub(crate) struct WarpRow {
    /// `keys[EPL]`, one register per slot.
    pub(crate) keys: Vec<Lanes<u32>>,
    /// M.
    pub(crate) m: u32,
    /// The row's lanes.
    pub(crate) lanes: RowLanes,
    /// `NARROW_CAP`: [`crate::rtopk::args::CAND_CAP`] where the row narrows, else 0.
    pub(crate) cap: u32,
    /// The last count's slot masks (`ge_last`, for `narrow_row`).
    pub(crate) ge_last: Vec<Lanes<u32>>,
    /// The row's share of the stage (the shared counter of [`Mutant::SharedCounterNoBarrier`]).
    pub(crate) stage: u32,
}

impl Row for WarpRow {
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        slots_ge(&self.keys, count_threshold(a, t), &mut self.ge_last);
        let c = popc_words(&self.ge_last);
        let sum = if a.has(Mutant::SharedCounterNoBarrier) && self.lanes.width == 32 {
            shared_counter_sum(w, self.stage, &c).await?
        } else {
            row_sum(w, a, self.lanes, c, "count_ge: row_sum(c)")?
        };
        w.uniform(&sum, "count_ge: cnt")
    }

    fn m(&self) -> u32 {
        self.m
    }

    fn narrow_cap(&self) -> u32 {
        self.cap
    }
}

/// BUG (SharedCounterNoBarrier): `row_sum` through a shared counter with a plain
/// read-modify-write and no `__syncwarp()` between the reset, the updates and the read.
async fn shared_counter_sum(
    w: &mut Warp<'_>,
    at: u32,
    lane_cnt: &Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let s_cnt = Lanes::splat(at);
    let lane0 = w.lane_id().map(|l| l == 0);
    let saved = w.push_active(&lane0, "count_ge: if (lane == 0)")?;
    w.st_shared(&s_cnt, &Lanes::splat(0), "count_ge: s_cnt = 0").await?;
    w.pop_active(saved);
    let old = w.ld_shared(&s_cnt, "count_ge: s_cnt += c (read)").await?;
    w.st_shared(&s_cnt, &old.zip(lane_cnt, u32::wrapping_add), "count_ge: s_cnt += c (write)")
        .await?;
    w.ld_shared(&s_cnt, "count_ge: cnt = s_cnt").await
}

/// A row narrowed to its `n` candidates on one warp: candidate `r` is slot `r / 32` of lane
/// `r % 32` (`C` slots per lane; padding is key 0).
#[derive(Clone, Debug)]
pub(crate) struct CandRow {
    /// `keys[C]`.
    pub(crate) keys: Vec<Lanes<u32>>,
    /// M.
    pub(crate) m: u32,
    /// The candidates.
    pub(crate) n: u32,
}

impl CandRow {
    /// `CAP`: `32 C`; in the candidate buffer the indices start there.
    pub(crate) fn cap(&self) -> u32 {
        32 * self.keys.len() as u32
    }
}

impl Row for CandRow {
    /// Groups of 4 slots (128 candidates); groups past n hold only padding and are skipped.
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        let t = count_threshold(a, t);
        let mut c = Lanes::splat(0u32);
        for g in (0..self.keys.len()).step_by(4) {
            if g > 0 && 32 * g as u32 >= self.n {
                break; // warp-uniform
            }
            let mut bits = Lanes::splat(0u32);
            for (j, key) in self.keys[g..g + 4].iter().enumerate() {
                bits = bits.zip(key, |b, k| b | (u32::from(k >= t) << j));
            }
            c = c.zip(&bits, |c, b| c.wrapping_add(b.count_ones()));
        }
        if a.has(Mutant::CountWithoutRowSum) {
            return w.uniform(&c, "count_ge: cnt"); // BUG: the lane's own count
        }
        let sum = w.reduce_add_sync(FULL_MASK, &c, "count_ge: __reduce_add_sync(c)")?;
        w.uniform(&sum, "count_ge: cnt")
    }

    fn m(&self) -> u32 {
        self.m
    }

    fn narrow_cap(&self) -> u32 {
        0
    }
}

/// The block kernels' shared memory, in words: `s_partial[128]` (two halves of 32 slots for
/// the block sums, then the range's 64), `s_chunk[64]`, `s_stage[BLOCK_STAGE]`, then the
/// row's cached keys (`smem`, dynamic).
pub(crate) mod block_smem {
    use crate::rtopk::args::BLOCK_STAGE;

    /// `s_partial`.
    pub(crate) const PARTIAL: u32 = 0;
    /// `s_chunk`.
    pub(crate) const CHUNK: u32 = 128;
    /// `s_stage`.
    pub(crate) const STAGE: u32 = 192;
    /// `smem`: the cached keys.
    pub(crate) const KEYS: u32 = STAGE + BLOCK_STAGE as u32;
}

/// One block row: thread `t` keeps keys of elements `32 t .. 32 t + 31` in registers
/// (`keys`), so the registers hold the first `in_regs = min(M, 32 blockDim)`; shared memory
/// the next `cached`; the rest is re-keyed from the input on each pass.
#[derive(Clone, Debug)]
pub(crate) struct BlockRow<'x> {
    /// `keys[BLOCK_EPL]`.
    pub(crate) keys: Vec<Lanes<u32>>,
    /// The last count's slot mask (for `narrow_row`).
    pub(crate) ge_last: Vec<Lanes<u32>>,
    /// The input (`row` is `row_off ..`).
    pub(crate) x: &'x dyn crate::engine::global::Source,
    /// `row_id * M`.
    pub(crate) row_off: u64,
    /// M, `in_regs`, `cached`.
    pub(crate) m: u32,
    pub(crate) in_regs: u32,
    pub(crate) cached: u32,
    /// Which half of `s_partial` the next block sum uses.
    pub(crate) half: u32,
    /// `sign`.
    pub(crate) sign: f32,
    /// `NARROW_CAP`.
    pub(crate) cap: u32,
}

impl BlockRow<'_> {
    /// `key_at(i)`: element `i`'s key for the selection, from shared memory where it is
    /// there, else re-keyed from the input.
    pub(crate) async fn key_at(
        &self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        i: &Lanes<u32>,
    ) -> Result<Lanes<u32>, SimError> {
        let s = i.map(|i| i.wrapping_sub(self.in_regs)); // wraps for i < in_regs
        let cached = s.map(|s| s < self.cached);
        let mut key = Lanes::splat(0u32);
        let saved = w.push_active(&cached, "key_at: s < cached")?;
        let k = w.ld_shared(&s.map(|s| block_smem::KEYS + s), "key_at: s_keys[s]").await?;
        w.assign(&mut key, &k);
        w.pop_active(saved);
        let saved = w.push_active(&cached.not(), "key_at: else")?;
        let addr = i.map(|i| self.row_off.wrapping_add(u64::from(i)));
        let v = w.ld_input(self.x, &addr, "key_at: row[i]").await?;
        let k = v.map(|v| order_key(a, f32::from_bits(v), self.sign));
        w.assign(&mut key, &k);
        w.pop_active(saved);
        Ok(key)
    }

    /// `block_sum`: one barrier per sum — consecutive sums use alternate halves of
    /// `s_partial[0..64]`, and every warp has read a half before any warp passes the next
    /// sum's barrier and reuses it.
    pub(crate) async fn block_sum(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        c: &Lanes<u32>,
    ) -> Result<u32, SimError> {
        let (warp, nwarps) = (w.warp_idx(), w.warps_per_block());
        let slots = block_smem::PARTIAL + 32 * self.half;
        if !a.has(Mutant::BlockSumOneHalf) {
            self.half ^= 1; // BUG (BlockSumOneHalf): always the same half
        }
        let c = w.reduce_add_sync(FULL_MASK, c, "block_sum: __reduce_add_sync(c)")?;
        let lane0 = w.lane_id().map(|l| l == 0);
        let saved = w.push_active(&lane0, "block_sum: if (lane == 0)")?;
        w.st_shared(&Lanes::splat(slots + warp), &c, "block_sum: slots[warp] = c").await?;
        w.pop_active(saved);
        if !a.has(Mutant::BlockSumMissingBarrier) {
            w.syncthreads("block_sum: __syncthreads()").await?;
        }
        let lane = w.lane_id();
        let reads = lane.map(|l| l < nwarps);
        let saved = w.push_active(&reads, "block_sum: lane < nwarps")?;
        let s = w.ld_shared(&lane.map(|l| slots + l), "block_sum: slots[lane]").await?;
        w.pop_active(saved);
        let v = Lanes::select(&reads, &s, &Lanes::splat(0));
        let sum = w.reduce_add_sync(FULL_MASK, &v, "block_sum: __reduce_add_sync(slots)")?;
        let sum = w.uniform(&sum, "block_sum: total")?;
        w.block_uniform(u64::from(sum), "block_sum: total")?;
        Ok(sum)
    }
}

impl Row for BlockRow<'_> {
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        let t = count_threshold(a, t);
        slots_ge(&self.keys, t, &mut self.ge_last);
        let mut c = popc_words(&self.ge_last);
        if self.in_regs < self.m {
            // block-uniform: rows wider than the registers
            let tid = w.thread_idx();
            let bd = w.block_dim();
            let mut i = tid;
            let mut base = 0u32;
            while base < self.cached {
                let at = i.map(|i| i < self.cached);
                let saved = w.push_active(&at, "count_ge: i < cached")?;
                let key =
                    w.ld_shared(&i.map(|i| block_smem::KEYS + i), "count_ge: s_keys[i]").await?;
                let n = c.zip(&key, |c, k| c.wrapping_add(u32::from(k >= t)));
                w.assign(&mut c, &n);
                let next = i.map(|i| i + bd);
                w.assign(&mut i, &next);
                w.pop_active(saved);
                base += bd;
            }
            i = i.map(|i| i + self.in_regs);
            let mut base = self.in_regs + self.cached;
            while base < self.m {
                let at = i.map(|i| i < self.m);
                let saved = w.push_active(&at, "count_ge: i < m")?;
                let addr = i.map(|i| self.row_off.wrapping_add(u64::from(i)));
                let v = w.ld_input(self.x, &addr, "count_ge: row[i]").await?;
                let n = c.zip(&v, |c, v| {
                    c.wrapping_add(u32::from(order_key(a, f32::from_bits(v), self.sign) >= t))
                });
                w.assign(&mut c, &n);
                let next = i.map(|i| i + bd);
                w.assign(&mut i, &next);
                w.pop_active(saved);
                base += bd;
            }
        }
        self.block_sum(w, a, &c).await
    }

    fn m(&self) -> u32 {
        self.m
    }

    fn narrow_cap(&self) -> u32 {
        self.cap
    }
}

/// `block_prefix`: the block-wide exclusive prefix and the total of each thread's `own` —
/// a warp scan, one barrier, two reductions over the warps' totals in `slots`.
pub(crate) async fn block_prefix(
    w: &mut Warp<'_>,
    own: &Lanes<u32>,
    slots: u32,
) -> Result<(Lanes<u32>, u32), SimError> {
    let lane = w.lane_id();
    let (warp, nwarps) = (w.warp_idx(), w.warps_per_block());
    let mut incl = *own;
    let mut d = 1u32;
    while d < 32 {
        let up = w.shfl_up_sync(FULL_MASK, &incl, d, 32, "block_prefix: shfl_up(incl, d)")?;
        let take = lane.map(|l| l >= d);
        incl = Lanes::select(&take, &incl.zip(&up, u32::wrapping_add), &incl);
        d <<= 1;
    }
    let lane31 = lane.map(|l| l == 31);
    let saved = w.push_active(&lane31, "block_prefix: if (lane == 31)")?;
    w.st_shared(&Lanes::splat(slots + warp), &incl, "block_prefix: slots[warp] = incl").await?;
    w.pop_active(saved);
    w.syncthreads("block_prefix: __syncthreads()").await?;
    let reads = lane.map(|l| l < nwarps);
    let saved = w.push_active(&reads, "block_prefix: lane < nwarps")?;
    let s = w.ld_shared(&lane.map(|l| slots + l), "block_prefix: slots[lane]").await?;
    w.pop_active(saved);
    let wv = Lanes::select(&reads, &s, &Lanes::splat(0));
    let below = lane.map(|l| l < warp);
    let before_warps = Lanes::select(&below, &wv, &Lanes::splat(0));
    let before = w.reduce_add_sync(FULL_MASK, &before_warps, "block_prefix: before")?;
    let total = w.reduce_add_sync(FULL_MASK, &wv, "block_prefix: total")?;
    let total = w.uniform(&total, "block_prefix: total")?;
    w.block_uniform(u64::from(total), "block_prefix: total")?;
    let before = before.zip(&incl, u32::wrapping_add).zip(own, u32::wrapping_sub);
    Ok((before, total))
}
