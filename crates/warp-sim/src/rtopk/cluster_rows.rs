//! The cluster-row kernel (the CUDA kernel's `cluster_rows.cu`): `rtopk_cluster_rows`, one
//! thread-block cluster per row (docs/kernel.md, "Cluster rows"). Block `r` of a row's
//! cluster holds elements `r SPAN .. (r + 1) SPAN - 1` in registers (`SPAN = 32 blockDim`), as
//! a block row holds its first `SPAN`; the search is the block row's, but every count, and the
//! row's min and max key, meet in each block's shared memory through distributed shared
//! memory ([`Warp::red_shared_cluster`]) and one cluster barrier ([`Warp::barrier_cluster`]).
//! The selection places each block's results after those of the blocks before it. An f32 row
//! whose search narrows gathers its candidates into block 0 ([`Warp::st_shared_cluster`]),
//! which finishes the search and the selection over them alone (`rtopk_cluster_rows_narrow`),
//! or keeps them in each block and searches several steps a cluster round
//! (`rtopk_cluster_rows`: [`value_rounds`], [`CLUSTER_ROUND_LEVELS`] steps on a portable
//! cluster, [`CLUSTER_WIDE_ROUND_LEVELS`] on a wide one).

use topk_ref::bisect::{HINT_WINDOW_SHIFTS, VALUE_PHASE_LIMIT};

use crate::engine::ClusterRed;
use crate::engine::error::SimError;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::warp::Warp;
use crate::rtopk::args::{BLOCK_EPL, BLOCK_STAGE, KernelArgs, SearchExit};
use crate::rtopk::block_rows::{
    HIST16_BINS, block_byte_histogram, block_range, bracket_of_bins, histograms, kth_bin,
    load_block_slots, plain_search, stages_loads, trace_slots,
};
use crate::rtopk::coverage::Branch;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::narrow::{
    finish_candidates, pad_results, take_candidates, trace_cut, write_iterations,
};
use crate::rtopk::order::{ElemType, number_key};
use crate::rtopk::params::Params;
use crate::rtopk::record::Tracer;
use crate::rtopk::rows::{
    BlockRow, PAIRED_COUNT_LIMIT, Row, Slots, block_prefix, block_smem, count_threshold,
    counted_twice, unpack_pair, zero_shared_words,
};
use crate::rtopk::search::{
    Exit, HintSide, Search, Value, finish_exact, recall_slack, search_hinted, search_threshold,
    value_of_bracket, value_step, window_tests,
};
use crate::rtopk::select::{RowOut, Stage, Sync, classify, cut_of, emit_staged, taken};
use rtopk_plan::{
    CLUSTER_CAND_KEYS, CLUSTER_GUESS_K_PER, CLUSTER_GUESS_LEVELS, CLUSTER_ROUND_LEVELS,
    CLUSTER_WIDE_ROUND_LEVELS, Family,
};

/// Words of a block's cluster slots (`s_cluster`, the second half of `s_chunk`): three count
/// slots (`cluster_sum`: round `i` adds into slot `i % 3`), the row's min and max key, and the
/// strong and band counts of the blocks before this one (`cluster_before`).
mod slot {
    use crate::rtopk::rows::block_smem;

    pub(super) const CLUSTER: u32 = block_smem::CHUNK + 32;
    pub(super) const SUM0: u32 = CLUSTER;
    pub(super) const MIN: u32 = CLUSTER + 3;
    pub(super) const MAX: u32 = CLUSTER + 4;
    pub(super) const STRONG: u32 = CLUSTER + 5;
    pub(super) const BAND: u32 = CLUSTER + 6;
    /// [`super::ClusterRow::cluster_sum_pair`]'s two counts, used once a launch.
    pub(super) const PAIR: u32 = CLUSTER + 8;
    pub(super) const WORDS: u32 = 10;

    /// [`super::value_rounds`]' words, the first of the selection's stage (unused until the
    /// search ends): the block's leaf counts of three rounds (`s_hist`), the cluster's
    /// (`s_clh`), a round's thresholds in heap order from 1 (`s_t`).
    pub(super) const HIST: u32 = block_smem::STAGE;
    pub(super) const CLH: u32 = HIST + 3 * super::ROUND_SLOTS;
    pub(super) const T: u32 = CLH + 3 * super::ROUND_SLOTS;
    /// The words zeroed before the first cluster barrier (`s_hist` and `s_clh`).
    pub(super) const ROUND_WORDS: u32 = 6 * super::ROUND_SLOTS;
}

/// Exact f32 rows of `rtopk_cluster_rows` narrow within their blocks once a count at the
/// bracket's lower end finds at most this many keys (rtopk-plan's `CLUSTER_LOCAL_CAP`;
/// [`local_candidates`]).
const CLUSTER_LOCAL_CAP: u32 = rtopk_plan::CLUSTER_LOCAL_CAP as u32;
/// [`CLUSTER_LOCAL_CAP`] on a wide cluster (rtopk-plan's `CLUSTER_WIDE_LOCAL_CAP`).
const CLUSTER_WIDE_LOCAL_CAP: u32 = rtopk_plan::CLUSTER_WIDE_LOCAL_CAP as u32;
/// Blocks of a wide cluster (rtopk-plan's `WIDE_CLUSTER`).
const WIDE_CLUSTER: u32 = rtopk_plan::WIDE_CLUSTER as u32;
/// The words of [`histogram_search`]'s four histograms (the first pass's block and cluster
/// histograms, then the second's) at the start of the selection's stage, zeroed before the
/// first cluster barrier.
const HIST16_WORDS: u32 = 4 * HIST16_BINS;
const _: () = assert!(HIST16_WORDS as usize <= BLOCK_STAGE, "the histograms fit the stage");
/// The thresholds of a round of a portable cluster's row narrowed within its blocks
/// ([`bucket_round`]): those of the next [`CLUSTER_ROUND_LEVELS`] steps for every outcome,
/// cutting `ROUND_LEAVES` leaves.
const ROUND_NODES: u32 = (1 << CLUSTER_ROUND_LEVELS) - 1;
const ROUND_LEAVES: u32 = 1 << CLUSTER_ROUND_LEVELS;
/// The leaf words of a round's slot (`ROUND_SLOTS`), for the most leaves of either kind.
const ROUND_SLOTS: u32 = 1 << max_levels();

const fn max_levels() -> u32 {
    if CLUSTER_WIDE_ROUND_LEVELS > CLUSTER_ROUND_LEVELS {
        CLUSTER_WIDE_ROUND_LEVELS
    } else {
        CLUSTER_ROUND_LEVELS
    }
}

/// Whether a row of `rtopk_cluster_rows` over `size` blocks runs the kernel's `WIDE`
/// instantiation (`rtopk_cluster_row`: f32 rows on a wide cluster).
fn wide(p: &Params<'_>, size: u32) -> bool {
    p.plan.family() == Family::ClusterRows && p.elem == ElemType::F32 && size >= WIDE_CLUSTER
}

/// Blocks of at most this many warps add each warp's count into the cluster's slots directly
/// (`cluster_sum`; the CUDA kernel's `CLUSTER_DIRECT_WARPS`).
const CLUSTER_DIRECT_WARPS: u32 = 8;

/// Most candidates a cluster row narrows to (`CLUSTER_CAND_CAP`, rtopk-plan's
/// [`rtopk_plan::CLUSTER_CAND_CAP`], [`CLUSTER_CAND_KEYS`] a lane of a
/// [`crate::rtopk::rows::CandRow`]): with their indices they fill 8 KB of block 0's dynamic
/// shared memory, the f32 load staging of two warps.
const CLUSTER_CAND_CAP: u32 = rtopk_plan::CLUSTER_CAND_CAP as u32;

/// `NARROW_CAP`: [`CLUSTER_CAND_CAP`] in `rtopk_cluster_rows_narrow` (f32 rows, whose launch's
/// load staging the plan makes large enough to hold the candidates and their indices); in
/// `rtopk_cluster_rows` on f32 rows [`CLUSTER_WIDE_LOCAL_CAP`] on a wide cluster ([`wide`]),
/// else [`CLUSTER_LOCAL_CAP`]; else 0: the row never narrows.
fn narrow_cap(p: &Params<'_>, size: u32) -> u32 {
    match p.plan.family() {
        Family::ClusterRowsNarrow => CLUSTER_CAND_CAP,
        _ if wide(p, size) => CLUSTER_WIDE_LOCAL_CAP,
        _ if p.elem == ElemType::F32 => CLUSTER_LOCAL_CAP,
        _ => 0,
    }
}

/// One row over a cluster (`ClusterRow`): this block's keys and the count the whole cluster
/// sees.
pub(crate) struct ClusterRow<'x> {
    /// The block's part, held as a block row holds its registers.
    pub(crate) row: BlockRow<'x>,
    /// `%cluster_ctarank`, `%cluster_nctarank`.
    pub(crate) rank: u32,
    pub(crate) size: u32,
    /// Counts so far: round `i` adds into slot `i % 3`.
    pub(crate) round: u32,
    /// Most candidates the row narrows to ([`narrow_cap`]; 0: it never narrows).
    pub(crate) cand_cap: u32,
}

impl ClusterRow<'_> {
    /// `block_part`: each thread's count made the part one add carries — the warp's in blocks
    /// of at most [`CLUSTER_DIRECT_WARPS`] warps (block-uniform, sparing the block's barrier),
    /// else the block's (`block_sum`) — and the block that add goes to (lane or thread `j`:
    /// block `j`; none past the cluster's size).
    async fn block_part(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        c: &Lanes<u32>,
    ) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
        if w.warps_per_block() <= CLUSTER_DIRECT_WARPS {
            let c = w.reduce_add_sync(u32::MAX, c, "block_part: the warp's count")?;
            return Ok((w.lane_id(), c));
        }
        let total = self.row.block_sum(w, a, c).await?;
        Ok((w.thread_idx(), Lanes::splat(total)))
    }

    /// `cluster_sum`: the block's count (`block_sum`), added by thread `j` into the current
    /// slot of block `j` of the cluster, one cluster barrier, and each thread reads its own
    /// block's slot; in blocks of at most [`CLUSTER_DIRECT_WARPS`] warps each warp adds its
    /// own count (lane `j` into block `j`'s slot) instead, sparing the block's barrier
    /// ([`ClusterRow::block_part`]). Thread 0 clears the slot the next round adds into (read
    /// two rounds ago, before every thread of this block passed the last round's barrier).
    async fn cluster_sum(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        c: &Lanes<u32>,
    ) -> Result<u32, SimError> {
        let here = slot::SUM0 + self.round % 3;
        let next = slot::SUM0 + (self.round + 1) % 3;
        self.round += 1;
        let tid = w.thread_idx();
        let (ranks, count) = self.block_part(w, a, c).await?;
        let adders = ranks.map(|j| j < self.size);
        let saved = w.push_active(&adders, "cluster_sum: j < size")?;
        w.red_shared_cluster(
            ClusterRed::Add,
            &ranks,
            &Lanes::splat(here),
            &count,
            "cluster_sum: red.shared::cluster.add (block j's slot)",
        )
        .await?;
        w.pop_active(saved);
        let thread0 = tid.map(|t| t == 0);
        let saved = w.push_active(&thread0, "cluster_sum: if (threadIdx.x == 0)")?;
        w.st_shared(&Lanes::splat(next), &Lanes::splat(0), "cluster_sum: s_cluster[next] = 0")
            .await?;
        w.pop_active(saved);
        // BUG (ClusterSumMissingBarrier): the slot read before every block has added into it.
        if !a.has(Mutant::ClusterSumMissingBarrier) {
            w.barrier_cluster("cluster_sum: cluster_sync()").await?;
        }
        let sum = w.ld_shared(&Lanes::splat(here), "cluster_sum: s_cluster[slot]").await?;
        let sum = w.uniform(&sum, "cluster_sum: total")?;
        w.block_uniform(u64::from(sum), "cluster_sum: total")?;
        Ok(sum)
    }

    /// `cluster_sum_pair`: the keys `>= t` and `>= u` counted in one cluster round
    /// ([`guess_bracket`]) — each block's pair packed in one word for its sum (a block's count
    /// is at most `BLOCK_EPL * 1024 < 2^16`), then added into two slots of every block, used
    /// once a launch. `ge_last` ends as `u`'s mask.
    async fn cluster_sum_pair(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        (t, u): (u32, u32),
    ) -> Result<(u32, u32), SimError> {
        let at_t = self.row.slots_counted(w, count_threshold(a, t));
        let at_u = self.row.slots_counted(w, count_threshold(a, u));
        let c = at_t.zip(&at_u, |t, u| t << 16 | u);
        let (ranks, count) = self.block_part(w, a, &c).await?;
        let adders = ranks.map(|j| j < self.size);
        let saved = w.push_active(&adders, "cluster_sum_pair: j < size")?;
        for (word, half) in
            [(slot::PAIR, count.map(|c| c >> 16)), (slot::PAIR + 1, count.map(|c| c & 0xffff))]
        {
            let label = "cluster_sum_pair: red.shared::cluster.add (block j's two slots)";
            w.red_shared_cluster(ClusterRed::Add, &ranks, &Lanes::splat(word), &half, label)
                .await?;
        }
        w.pop_active(saved);
        w.barrier_cluster("cluster_sum_pair: cluster_sync()").await?;
        let mut sums = [0u32; 2];
        for (i, word) in [slot::PAIR, slot::PAIR + 1].into_iter().enumerate() {
            let v =
                w.ld_shared(&Lanes::splat(word), "cluster_sum_pair: s_cluster[PAIR + i]").await?;
            sums[i] = w.uniform(&v, "cluster_sum_pair: total")?;
            w.block_uniform(u64::from(sums[i]), "cluster_sum_pair: total")?;
        }
        Ok((sums[0], sums[1]))
    }
}

impl Row for ClusterRow<'_> {
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        let c = self.row.slots_counted(w, count_threshold(a, t));
        self.cluster_sum(w, a, &c).await
    }

    async fn count_above_and_at_least(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<(u32, u32), SimError> {
        if self.row.m >= PAIRED_COUNT_LIMIT {
            return counted_twice(self, w, a, t).await; // cluster-uniform: two rounds
        }
        let ge = self.row.slots_counted(w, count_threshold(a, t));
        let gt = self.row.slots_counted(w, count_threshold(a, t + 1));
        let packed = ge.zip(&gt, |ge, gt| ge << 16 | gt);
        Ok(unpack_pair(self.cluster_sum(w, a, &packed).await?))
    }

    fn m(&self) -> u32 {
        self.row.m
    }

    fn narrow_cap(&self) -> u32 {
        self.cand_cap
    }
}

/// The selection reads the block's slots as its block row's.
impl Slots for ClusterRow<'_> {
    fn slots(&self) -> usize {
        self.row.slots()
    }

    fn slots_ge(&self, t: u32, ge: &mut [Lanes<u32>]) {
        self.row.slots_ge(t, ge);
    }

    fn slot_key(&self, j: usize) -> Lanes<u32> {
        self.row.slot_key(j)
    }
}

/// `cluster_range`: the row's min and max key — the block's (`block_range`), reduced by
/// thread `j` into block `j`'s min and max slot, one cluster barrier.
async fn cluster_range(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &ClusterRow<'_>,
    lane_min: &Lanes<u32>,
    lane_max: &Lanes<u32>,
) -> Result<(u32, u32), SimError> {
    let (lo, hi) = block_range(w, a, lane_min, lane_max).await?;
    let tid = w.thread_idx();
    let saved = w.push_active(&tid.map(|t| t < row.size), "cluster_range: threadIdx.x < size")?;
    let label = "cluster_range: red.shared::cluster.min (block j's slot)";
    w.red_shared_cluster(ClusterRed::Min, &tid, &Lanes::splat(slot::MIN), &Lanes::splat(lo), label)
        .await?;
    let label = "cluster_range: red.shared::cluster.max (block j's slot)";
    w.red_shared_cluster(ClusterRed::Max, &tid, &Lanes::splat(slot::MAX), &Lanes::splat(hi), label)
        .await?;
    w.pop_active(saved);
    w.barrier_cluster("cluster_range: cluster_sync()").await?;
    let lo = w.ld_shared(&Lanes::splat(slot::MIN), "cluster_range: s_cluster[MIN]").await?;
    let hi = w.ld_shared(&Lanes::splat(slot::MAX), "cluster_range: s_cluster[MAX]").await?;
    let (lo, hi) = (w.uniform(&lo, "search: lo_key")?, w.uniform(&hi, "search: hi_key")?);
    w.block_uniform(u64::from(lo) << 32 | u64::from(hi), "cluster_range: lo_key, hi_key")?;
    Ok((lo, hi))
}

/// `cluster_before`: the strong and band counts of the blocks before this one (index order is
/// block order) — thread `j` adds this block's totals into block `j`'s slots for every `j`
/// past this block, one cluster barrier.
async fn cluster_before(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &ClusterRow<'_>,
    (strong, band): (u32, u32),
) -> Result<(u32, u32), SimError> {
    let tid = w.thread_idx();
    let later = tid.map(|t| t > row.rank && t < row.size);
    let saved = w.push_active(&later, "cluster_before: rank < threadIdx.x < size")?;
    let label = "cluster_before: red.shared::cluster.add (strong)";
    w.red_shared_cluster(
        ClusterRed::Add,
        &tid,
        &Lanes::splat(slot::STRONG),
        &Lanes::splat(strong),
        label,
    )
    .await?;
    let label = "cluster_before: red.shared::cluster.add (band)";
    w.red_shared_cluster(
        ClusterRed::Add,
        &tid,
        &Lanes::splat(slot::BAND),
        &Lanes::splat(band),
        label,
    )
    .await?;
    w.pop_active(saved);
    // BUG (ClusterBeforeMissingBarrier): the counts read before the blocks before have added.
    if !a.has(Mutant::ClusterBeforeMissingBarrier) {
        w.barrier_cluster("cluster_before: cluster_sync()").await?;
    }
    let s = w.ld_shared(&Lanes::splat(slot::STRONG), "cluster_before: s_cluster[STRONG]").await?;
    let b = w.ld_shared(&Lanes::splat(slot::BAND), "cluster_before: s_cluster[BAND]").await?;
    let (s, b) = (w.uniform(&s, "cluster_before: strong")?, w.uniform(&b, "cluster_before: band")?);
    Ok((s, b))
}

/// `gather_candidates`: a narrowed row's candidates (the last count's masks) and their
/// indices copied into block 0's dynamic shared memory (keys, then indices from
/// [`CLUSTER_CAND_CAP`] on) in index order — one block prefix of the threads' counts and one
/// cluster round of the blocks' (`cluster_before`) place them — then one cluster barrier.
async fn gather_candidates(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &ClusterRow<'_>,
    first: &Lanes<u32>,
) -> Result<(), SimError> {
    let mask = row.row.ge_last[0];
    let own = mask.map(u32::count_ones);
    let (before, total) = block_prefix(w, &own, block_smem::CHUNK).await?;
    let (block_before, _) = cluster_before(w, a, row, (total, 0)).await?;
    let mut at = before.map(|b| block_before.wrapping_add(b));
    let zero = Lanes::splat(0u32);
    for j in 0..BLOCK_EPL {
        let here = mask.map(|m| m >> j & 1 == 1);
        let saved = w.push_active(&here, "gather_candidates: slot j is a candidate")?;
        let key_at = at.map(|r| block_smem::KEYS + r);
        let label = "gather_candidates: st.shared::cluster cand[at] (block 0's)";
        w.st_shared_cluster(&zero, &key_at, &row.row.keys[j], label).await?;
        let index = first.map(|f| f + j as u32);
        let label = "gather_candidates: st.shared::cluster cand[CLUSTER_CAND_CAP + at]";
        w.st_shared_cluster(&zero, &key_at.map(|k| k + CLUSTER_CAND_CAP), &index, label).await?;
        let next = at.map(|r| r + 1);
        w.assign(&mut at, &next);
        w.pop_active(saved);
    }
    w.barrier_cluster("gather_candidates: cluster_sync()").await
}

/// `finish_cluster_candidates`: a narrowed cluster row — its candidates gathered into block
/// 0 ([`gather_candidates`]), whose first warp goes on alone as a narrowed block row's does
/// (`take_candidates`, `finish_candidates`: a count is at most 32 slots of one warp, with
/// neither a block nor a cluster barrier); the other warps and blocks are done.
#[allow(clippy::too_many_arguments)]
async fn finish_cluster_candidates(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &ClusterRow<'_>,
    s: &mut Search,
    first: &Lanes<u32>,
    out: &RowOut<'_>,
    (p, row_id): (&Params<'_>, u64),
    tr: Tracer<'_>,
) -> Result<(), SimError> {
    gather_candidates(w, a, row, first).await?;
    if row.rank != 0 {
        return Ok(());
    }
    if w.warp_idx() > 0 {
        w.exit(); // the first warp goes on alone: no barrier follows
        return Ok(());
    }
    p.covered(crate::rtopk::coverage::Branch::ClusterNarrowed);
    let cand = block_smem::KEYS;
    let mut narrowed =
        take_candidates(w, cand, s.count_at_lo, row.row.m, CLUSTER_CAND_KEYS).await?;
    let iter_at = (p.out_iter, row_id);
    finish_candidates(w, a, &mut narrowed, s, cand, out, iter_at, tr).await?;
    Ok(())
}

/// The slots' initial values (`s_cluster[w]`: the min slot all ones, the others 0; the
/// rounds' leaf counts 0), set by the first threads before the first cluster barrier.
async fn clear_slots(w: &mut Warp<'_>, elem: ElemType) -> Result<(), SimError> {
    let tid = w.thread_idx();
    let saved = w.push_active(&tid.map(|t| t < slot::WORDS), "threadIdx.x < CLUSTER_WORDS")?;
    let at = tid.map(|t| slot::CLUSTER + t);
    let v = at.map(|s| if s == slot::MIN { u32::MAX } else { 0 });
    w.st_shared(&at, &v, "s_cluster[w] = initial").await?;
    w.pop_active(saved);
    // (histogram_search's words on a 16-bit row)
    let words = if elem.packed16() { HIST16_WORDS } else { slot::ROUND_WORDS };
    zero_shared_words(w, slot::HIST, words, "s_stage[i] = 0 (the rounds' leaf counts)").await
}

/// A cluster row narrowed within its blocks (`ClusterCands`): this block's keys `>= lo_key`
/// in its load staging, and each count the cluster's sum of the blocks' counts over their own
/// (`cluster_sum`).
struct ClusterCands<'r, 'x> {
    row: &'r mut ClusterRow<'x>,
    /// This block's candidates.
    n: u32,
    /// [`value_rounds`]' rounds so far: round `i` uses slot `i % 3`.
    rounds: u32,
}

/// Candidate `threadIdx.x + it blockDim.x` of the block's `n` (`cand[i]`, the load staging's
/// word `i`), in the lanes that have one.
async fn candidate(
    w: &mut Warp<'_>,
    n: u32,
    it: u32,
) -> Result<(Lanes<bool>, Lanes<u32>), SimError> {
    let i = w.thread_idx().map(|t| t + it * w.block_dim());
    let has = i.map(|i| i < n);
    let saved = w.push_active(&has, "for (i = threadIdx.x; i < n; i += blockDim.x)")?;
    let x = w.ld_shared(&i.map(|i| block_smem::KEYS + i), "cand[i]").await?;
    w.pop_active(saved);
    Ok((has, Lanes::select(&has, &x, &Lanes::splat(0))))
}

impl Row for ClusterCands<'_, '_> {
    async fn count_ge_positive(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        t: u32,
    ) -> Result<u32, SimError> {
        let t = count_threshold(a, t);
        let mut c = Lanes::splat(0u32);
        for it in 0..self.n.div_ceil(w.block_dim()) {
            let (has, x) = candidate(w, self.n, it).await?;
            let ge = has.zip(&x, |h, x| u32::from(h && x >= t));
            c = c.zip(&ge, |c, g| c + g);
        }
        self.row.cluster_sum(w, a, &c).await
    }

    fn m(&self) -> u32 {
        self.row.row.m
    }

    fn narrow_cap(&self) -> u32 {
        0
    }
}

/// `local_candidates`: stage 2, narrowing a cluster row within its blocks (`EXIT_NARROW`: the
/// last count, at `lo_key`, found `k < n <=` [`CLUSTER_LOCAL_CAP`] keys `>= lo_key`) — every
/// thread copies its keys the last count marked into the block's load staging (one block
/// prefix places them; their order does not matter to a count), one barrier.
async fn local_candidates<'r, 'x>(
    w: &mut Warp<'_>,
    row: &'r mut ClusterRow<'x>,
) -> Result<ClusterCands<'r, 'x>, SimError> {
    let mask = row.row.ge_last[0];
    let own = mask.map(u32::count_ones);
    let (mut at, total) = block_prefix(w, &own, block_smem::CHUNK).await?;
    for j in 0..BLOCK_EPL {
        let here = mask.map(|m| m >> j & 1 == 1);
        let saved = w.push_active(&here, "local_candidates: slot j is a candidate")?;
        let label = "local_candidates: cand[at] = keys[j]";
        w.st_shared(&at.map(|r| block_smem::KEYS + r), &row.row.keys[j], label).await?;
        let next = at.map(|r| r + 1);
        w.assign(&mut at, &next);
        w.pop_active(saved);
    }
    w.syncthreads("local_candidates: __syncthreads()").await?;
    Ok(ClusterCands { row, n: total, rounds: 0 })
}

/// Node `n`'s threshold (heap order from 1) of the tree of midpoints of `[lo, hi]`: the walk
/// from the root down `n`'s bits (1: the upper half), then the midpoint's key.
fn node_threshold(n: u32, lo: f32, hi: f32) -> u32 {
    let (mut a, mut b) = (lo, hi);
    for bit in (0..31 - n.max(1).leading_zeros()).rev() {
        let mid = (a + b) * 0.5;
        if n >> bit & 1 == 1 {
            a = mid;
        } else {
            b = mid;
        }
    }
    number_key((a + b) * 0.5)
}

/// `bucket_round`: one round of a portable cluster's row narrowed within its blocks — the
/// thresholds of the next [`CLUSTER_ROUND_LEVELS`] steps for every outcome (node `n` by thread
/// `n` into `s_t[n]`), and the cluster's count of its candidates in each leaf: a key descends
/// the tree (right where it is `>=` the node's threshold), so the keys `>=` node `n`'s threshold
/// are those in the leaves from the first of `n`'s right subtree on. The block's counts by
/// shared atomics; thread `j` adds leaf `j % 16` into block `j / 16`'s slot; one cluster
/// barrier. The slots rotate over three rounds as `cluster_sum`'s do. Returns the slot of this
/// round's counts.
async fn bucket_round(
    w: &mut Warp<'_>,
    c: &mut ClusterCands<'_, '_>,
    lo: f32,
    hi: f32,
) -> Result<u32, SimError> {
    let cur = ROUND_LEAVES * (c.rounds % 3);
    let next = ROUND_LEAVES * ((c.rounds + 1) % 3);
    c.rounds += 1;
    let tid = w.thread_idx();
    let nodes = tid.map(|n| (1..=ROUND_NODES).contains(&n));
    let saved = w.push_active(&nodes, "bucket_round: 1 <= n <= ROUND_NODES")?;
    let t = tid.map(|n| node_threshold(n, lo, hi));
    w.st_shared(&tid.map(|n| slot::T + n), &t, "bucket_round: s_t[n]").await?;
    w.pop_active(saved);
    w.syncthreads("bucket_round: __syncthreads() (the thresholds)").await?;
    for it in 0..c.n.div_ceil(w.block_dim()) {
        let (has, x) = candidate(w, c.n, it).await?;
        let saved = w.push_active(&has, "bucket_round: i < n")?;
        let mut node = Lanes::splat(1u32);
        for _ in 0..CLUSTER_ROUND_LEVELS {
            let label = "bucket_round: s_t[node]";
            let tn = w.ld_shared(&node.map(|n| slot::T + n), label).await?;
            let right = x.zip(&tn, |x, t| u32::from(x >= t));
            node = node.zip(&right, |n, r| 2 * n + r);
        }
        let leaf = node.map(|n| slot::HIST + cur + n - ROUND_LEAVES);
        let label = "bucket_round: atomicAdd(&s_hist[cur + leaf], 1)";
        w.atomic_add_shared(&leaf, &Lanes::splat(1), label).await?;
        w.pop_active(saved);
    }
    w.syncthreads("bucket_round: __syncthreads() (the block's leaves)").await?;
    let adds = ROUND_LEAVES * c.row.size;
    for it in 0..adds.div_ceil(w.block_dim()) {
        let j = tid.map(|t| t + it * w.block_dim());
        let saved = w.push_active(&j.map(|j| j < adds), "bucket_round: j < 16 size")?;
        let word = j.map(|j| cur + j % ROUND_LEAVES);
        let v = w
            .ld_shared(&word.map(|x| slot::HIST + x), "bucket_round: s_hist[cur + j % 16]")
            .await?;
        let saved_v = w.push_active(&v.map(|v| v != 0), "bucket_round: if (v)")?;
        let label = "bucket_round: red.shared::cluster.add (block j / 16's leaf)";
        let rank = j.map(|j| j / ROUND_LEAVES);
        w.red_shared_cluster(ClusterRed::Add, &rank, &word.map(|x| slot::CLH + x), &v, label)
            .await?;
        w.pop_active(saved_v);
        w.pop_active(saved);
    }
    let first = tid.map(|t| t < ROUND_LEAVES);
    let saved = w.push_active(&first, "bucket_round: threadIdx.x < ROUND_LEAVES")?;
    let zero = Lanes::splat(0u32);
    w.st_shared(&tid.map(|t| slot::CLH + next + t), &zero, "bucket_round: s_clh[next] = 0").await?;
    w.st_shared(&tid.map(|t| slot::HIST + next + t), &zero, "bucket_round: s_hist[next] = 0")
        .await?;
    w.pop_active(saved);
    w.barrier_cluster("bucket_round: cluster_sync()").await?;
    Ok(cur)
}

/// `leaf_of`: the leaf of candidate key `x` in the tree of midpoints of `[lo, hi]` (`levels`
/// levels) — the walk from the root, right where `x >=` the node's threshold, each thread
/// computing its own path's thresholds as [`node_threshold`] computes the nodes.
fn leaf_of(x: u32, lo: f32, hi: f32, levels: u32) -> u32 {
    let (mut a, mut b, mut node) = (lo, hi, 1u32);
    for _ in 0..levels {
        let mid = (a + b) * 0.5;
        let right = x >= number_key(mid);
        node = 2 * node + u32::from(right);
        if right {
            a = mid;
        } else {
            b = mid;
        }
    }
    node - (1 << levels)
}

/// `ballot_round`: one round of a wide cluster's row narrowed within its blocks —
/// [`bucket_round`]'s leaf counts for `levels` steps, counted without a tree in shared memory
/// and without contended atomics: each thread walks its own candidate's path ([`leaf_of`]),
/// the warp counts each leaf by `levels` ballots of the leaves' bits (lane `q`: the lanes
/// whose leaf is `q`), lane `q` adds the warp's count into the block's leaf `q`; the leaves go
/// to the other blocks two to a word (16 bits each). Returns the slot of this round's counts
/// (packed: word `cur / 2 + q / 2`).
async fn ballot_round(
    w: &mut Warp<'_>,
    c: &mut ClusterCands<'_, '_>,
    (lo, hi): (f32, f32),
    levels: u32,
) -> Result<u32, SimError> {
    let (leaves, words) = (1u32 << levels, 1u32 << (levels - 1));
    let cur = leaves * (c.rounds % 3);
    let next = leaves * ((c.rounds + 1) % 3);
    c.rounds += 1;
    let (lane, tid) = (w.lane_id(), w.thread_idx());
    let mut base = 32 * w.warp_idx();
    while base < c.n {
        let i = lane.map(|l| base + l);
        let valid = i.map(|i| i < c.n);
        let saved = w.push_active(&valid, "ballot_round: base + lane < n")?;
        let at = i.map(|i| block_smem::KEYS + i);
        let x = w.ld_shared(&at, "ballot_round: cand[base + lane]").await?;
        w.pop_active(saved);
        let x = Lanes::select(&valid, &x, &Lanes::splat(0));
        let leaf = x.map(|x| leaf_of(x, lo, hi, levels));
        let mut matched = w.ballot_sync(FULL_MASK, &valid, "ballot_round: __ballot_sync(valid)")?;
        for d in 0..levels {
            let label = "ballot_round: __ballot_sync(leaf bit d)";
            let bits = w.ballot_sync(FULL_MASK, &leaf.map(|l| l >> d & 1 == 1), label)?;
            let set = lane.map(|l| l >> d & 1 == 1);
            let with = matched.zip(&bits, |m, b| m & b);
            let without = matched.zip(&bits, |m, b| m & !b);
            matched = Lanes::select(&set, &with, &without);
        }
        let cnt = matched.popc();
        let adds = lane.zip(&cnt, |l, n| l < leaves && n != 0);
        let saved = w.push_active(&adds, "ballot_round: lane < LEAVES && cnt")?;
        let label = "ballot_round: atomicAdd(&s_hist[cur + lane], cnt)";
        w.atomic_add_shared(&lane.map(|l| slot::HIST + cur + l), &cnt, label).await?;
        w.pop_active(saved);
        base += w.block_dim();
    }
    w.syncthreads("ballot_round: __syncthreads() (the block's leaves)").await?;
    let adds = words * c.row.size;
    for it in 0..adds.div_ceil(w.block_dim()) {
        let j = tid.map(|t| t + it * w.block_dim());
        let saved = w.push_active(&j.map(|j| j < adds), "ballot_round: j < WORDS size")?;
        let word = j.map(|j| j % words);
        let label = "ballot_round: s_hist[cur + 2 w]";
        let low = w.ld_shared(&word.map(|x| slot::HIST + cur + 2 * x), label).await?;
        let label = "ballot_round: s_hist[cur + 2 w + 1]";
        let high = w.ld_shared(&word.map(|x| slot::HIST + cur + 2 * x + 1), label).await?;
        let v = low.zip(&high, |l, h| l | h << 16);
        let saved_v = w.push_active(&v.map(|v| v != 0), "ballot_round: if (v)")?;
        let label = "ballot_round: red.shared::cluster.add (block j / WORDS's two leaves)";
        let rank = j.map(|j| j / words);
        let at = word.map(|x| slot::CLH + cur / 2 + x);
        w.red_shared_cluster(ClusterRed::Add, &rank, &at, &v, label).await?;
        w.pop_active(saved_v);
        w.pop_active(saved);
    }
    let zero = Lanes::splat(0u32);
    let saved = w.push_active(&tid.map(|t| t < words), "ballot_round: threadIdx.x < WORDS")?;
    let label = "ballot_round: s_clh[next / 2 + t] = 0";
    w.st_shared(&tid.map(|t| slot::CLH + next / 2 + t), &zero, label).await?;
    w.pop_active(saved);
    let saved = w.push_active(&tid.map(|t| t < leaves), "ballot_round: threadIdx.x < LEAVES")?;
    w.st_shared(&tid.map(|t| slot::HIST + next + t), &zero, "ballot_round: s_hist[next] = 0")
        .await?;
    w.pop_active(saved);
    w.barrier_cluster("ballot_round: cluster_sync()").await?;
    Ok(cur)
}

/// A round's kind ([`value_rounds`]' `LEVELS` and `BALLOTS`): [`bucket_round`]'s
/// [`CLUSTER_ROUND_LEVELS`] steps on a portable cluster, [`ballot_round`]'s
/// [`CLUSTER_WIDE_ROUND_LEVELS`] on a wide one.
#[derive(Clone, Copy)]
enum Rounds {
    Bucket,
    Ballot,
}

impl Rounds {
    /// The kernel's `WIDE` instantiation takes [`ballot_round`]'s rounds.
    fn of(wide: bool) -> Self {
        if wide { Rounds::Ballot } else { Rounds::Bucket }
    }

    fn levels(self) -> u32 {
        match self {
            Rounds::Bucket => CLUSTER_ROUND_LEVELS,
            Rounds::Ballot => CLUSTER_WIDE_ROUND_LEVELS,
        }
    }
}

/// This round's leaf counts, lane `q` holding leaf `q`'s (0 past the leaves): unpacked from
/// [`ballot_round`]'s words, or [`bucket_round`]'s own.
async fn round_leaves(w: &mut Warp<'_>, rounds: Rounds, cur: u32) -> Result<Lanes<u32>, SimError> {
    let lane = w.lane_id();
    let leaves = 1u32 << rounds.levels();
    let low = lane.map(|l| l < leaves);
    let saved = w.push_active(&low, "value_rounds: lane < LEAVES")?;
    let h = match rounds {
        Rounds::Ballot => {
            let label = "value_rounds: s_clh[cur / 2 + lane / 2] >> 16 (lane & 1)";
            let word = w.ld_shared(&lane.map(|l| slot::CLH + cur / 2 + l / 2), label).await?;
            word.zip(&lane, |v, l| v >> (16 * (l & 1)) & 0xffff)
        }
        Rounds::Bucket => {
            let label = "value_rounds: s_clh[cur + lane]";
            w.ld_shared(&lane.map(|l| slot::CLH + cur + l), label).await?
        }
    };
    w.pop_active(saved);
    Ok(Lanes::select(&low, &h, &Lanes::splat(0)))
}

/// `value_rounds`: the value phase of a row narrowed within its blocks, plain and without a
/// recall target (`value_phase`'s steps: the same thresholds, counts and updates) — each
/// round counts the thresholds of the next `LEVELS` steps for every outcome in one round
/// ([`ballot_round`] or [`bucket_round`], [`Rounds`]), then replays those steps from the
/// leaves' counts (lane `q` of every warp holds leaf `q`'s; a step's count is one warp sum).
/// Returns as `value_phase` does.
async fn value_rounds(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    c: &mut ClusterCands<'_, '_>,
    s: &mut Search,
    (rounds, tr): (Rounds, Tracer<'_>),
) -> Result<bool, SimError> {
    let k = a.k as u32;
    let (mut lo, mut hi) = (s.lo, s.hi);
    let lane = w.lane_id();
    let levels = rounds.levels();
    while s.iterations < VALUE_PHASE_LIMIT {
        let cur = match rounds {
            Rounds::Ballot => ballot_round(w, c, (lo, hi), levels).await?,
            Rounds::Bucket => bucket_round(w, c, lo, hi).await?,
        };
        let leaf = round_leaves(w, rounds, cur).await?;
        let mut node = 1u32;
        for d in 0..levels {
            if s.iterations >= VALUE_PHASE_LIMIT {
                return Ok(false);
            }
            let thres = (lo + hi) * 0.5;
            let t = number_key(thres);
            if !(s.lo_key < t && t < s.hi_key) {
                return Ok(false); // adjacent floats: stall
            }
            // the first leaf of the node's right subtree
            let from = ((2 * node + 1) << (levels - 1 - d)) - (1 << levels);
            let part = Lanes::select(&lane.map(|l| l >= from), &leaf, &Lanes::splat(0));
            let cnt = w.reduce_add_sync(FULL_MASK, &part, "value_rounds: __reduce_add_sync")?;
            let cnt = w.uniform(&cnt, "value_rounds: cnt")?;
            w.block_uniform(u64::from(cnt), "value_rounds: cnt")?;
            let before = (s.lo_key, s.hi_key);
            if value_step(s, (&mut lo, &mut hi), (thres, t, cnt, k), before, tr) {
                return Ok(true);
            }
            node = 2 * node + u32::from(cnt > k);
        }
    }
    Ok(false)
}

/// `finish_local`: the rest of a row narrowed within its blocks — [`value_rounds`] where the
/// value phase is plain without a recall target, then the key phase; else `finish_exact` over
/// the candidates.
async fn finish_local(
    w: &mut Warp<'_>,
    (a, p): (&KernelArgs, &Params<'_>),
    c: &mut ClusterCands<'_, '_>,
    s: &mut Search,
    tr: Tracer<'_>,
) -> Result<(), SimError> {
    if s.value == Value::Plain && s.slack < 0 {
        p.covered(Branch::ClusterRounds);
        let rounds = Rounds::of(wide(p, c.row.size));
        if matches!(rounds, Rounds::Ballot) {
            p.covered(Branch::ClusterBallotRounds);
        }
        if value_rounds(w, a, c, s, (rounds, tr)).await? {
            return Ok(());
        }
        s.value = Value::None;
    }
    finish_exact(w, a, c, s, tr).await
}

/// `byte_histogram`: one pass of [`histogram_search`] — the block's histogram of its part at
/// `hist` (`block_byte_histogram`), then thread `j` adds bin `j % 256` into block `j / 256`'s
/// histogram at `clh`; one cluster barrier.
async fn byte_histogram(
    w: &mut Warp<'_>,
    row: &ClusterRow<'_>,
    here: u32,
    high: Option<u32>,
    (hist, clh): (u32, u32),
) -> Result<(), SimError> {
    block_byte_histogram(w, &row.row, here, high, hist).await?;
    let tid = w.thread_idx();
    let adds = HIST16_BINS * row.size;
    for it in 0..adds.div_ceil(w.block_dim()) {
        let j = tid.map(|t| t + it * w.block_dim());
        let saved = w.push_active(&j.map(|j| j < adds), "byte_histogram: j < BINS size")?;
        let bin = j.map(|j| j % HIST16_BINS);
        let v = w.ld_shared(&bin.map(|b| hist + b), "byte_histogram: s_hist[j % BINS]").await?;
        let saved_v = w.push_active(&v.map(|v| v != 0), "byte_histogram: if (v)")?;
        let label = "byte_histogram: red.shared::cluster.add (block j / BINS's bin)";
        let rank = j.map(|j| j / HIST16_BINS);
        w.red_shared_cluster(ClusterRed::Add, &rank, &bin.map(|b| clh + b), &v, label).await?;
        w.pop_active(saved_v);
        w.pop_active(saved);
    }
    w.barrier_cluster("byte_histogram: cluster_sync()").await
}

/// `histogram_search`: the exact search of a 16-bit cluster row (`histograms`) by two
/// histograms of its keys' bytes (docs/kernel.md, "16-bit rows", **16-bit rows by
/// histograms**): the high byte of the k-th greatest key is the bin of the first where the
/// keys above reach k, its low byte that of the second, over the keys of that high byte. The
/// bracket it leaves is the converged search's (`lo_key` the k-th key, `hi_key` the next, with
/// its count), so the answer is too.
async fn histogram_search(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &ClusterRow<'_>,
    (lo_key, hi_key): (u32, u32),
    here: u32,
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::Converged, 0, row.row.elem);
    if lo_key == hi_key {
        return Ok(s);
    }
    let k = a.k as u32;
    let words = |i: u32| slot::HIST + i * HIST16_BINS;
    byte_histogram(w, row, here, None, (words(0), words(1))).await?;
    let (high, above, _) = kth_bin(w, words(1), k).await?;
    byte_histogram(w, row, here, Some(high), (words(2), words(3))).await?;
    let (low, above_low, in_low) = kth_bin(w, words(3), k - above).await?;
    bracket_of_bins(&mut s, high << 8 | low, above + above_low, in_low);
    Ok(s)
}

/// `guesses`: whether a cluster row's search starts from a guessed bracket
/// ([`search_guessed`]) — an f32 row of `rtopk_cluster_rows` (on a wide cluster the kernel's
/// `GUESSES` instantiation) or of its ragged twin's first entry point ([`plain_search`]; on a
/// portable cluster) that narrows within its blocks (its load staging holds the sample),
/// exact, plain, whose counts nobody asked for (docs/contract.md §3's counts are bisect's,
/// whose steps these are not), with `k * CLUSTER_GUESS_K_PER >= m` (rtopk-plan's rule).
fn guesses(w: &Warp<'_>, p: &Params<'_>, row: &ClusterRow<'_>) -> bool {
    let a = &p.a;
    plain_search(p)
        && !(row.row.skips && wide(p, row.size))
        && p.plan.family() == Family::ClusterRows
        && uncounted_narrowing(w, p, row)
        && !matches!(a.bisect.recall, Some(r) if r > 0.0)
        && a.k as u64 * CLUSTER_GUESS_K_PER as u64 >= a.m as u64
}

/// What [`guesses`] and [`guesses_from_hint`] both ask: a cluster row that narrows (its load
/// staging holds its part: within its blocks, or into block 0 on
/// `rtopk_cluster_rows_narrow`), in exact mode without a precision or an iteration cap, whose
/// counts nobody asked for.
fn uncounted_narrowing(w: &Warp<'_>, p: &Params<'_>, row: &ClusterRow<'_>) -> bool {
    let a = &p.a;
    row.cand_cap != 0
        && p.out_iter.is_none()
        && a.bisect.max_iter.is_none()
        && a.bisect.precision == 0.0
        && stages_loads(w, p)
}

/// `leaf_floor`: the lower end of leaf `q` ([`CLUSTER_GUESS_LEVELS`] levels) of the tree of
/// midpoints of `[lo, hi]` — the walk down `q`'s bits, as [`leaf_of`]'s.
fn leaf_floor(q: u32, lo: f32, hi: f32) -> f32 {
    let (mut a, mut b) = (lo, hi);
    for d in (0..CLUSTER_GUESS_LEVELS).rev() {
        let mid = (a + b) * 0.5;
        if q >> d & 1 == 1 {
            a = mid;
        } else {
            b = mid;
        }
    }
    a
}

/// `guess_bracket`: two cluster rounds in place of the value phase's first steps. A sample —
/// each thread's first slot inside the row — counted into the leaves of the tree of midpoints
/// of `[s.lo, s.hi]` ([`ballot_round`]); the leaves' sums from the top, scaled to the row,
/// estimate the count at each leaf's lower end; the highest end whose estimate is at least
/// 5/4 k and the lowest below 3/4 k are counted over the whole row in one round
/// ([`ClusterRow::cluster_sum_pair`]), and the bracket takes what the counts prove: a hit, a
/// new hi, a new lo, narrowed at once where lo's count is at most the cap. A bad guess costs
/// the two rounds, never the answer. The round words are cleared before the counts' cluster
/// barrier, after which [`value_rounds`]' first round adds into them.
async fn guess_bracket(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut ClusterRow<'_>,
    s: &mut Search,
    here: u32,
) -> Result<(), SimError> {
    // a lane holds one leaf; the rounds' slots hold the leaves
    const {
        assert!(CLUSTER_GUESS_LEVELS == 5 && CLUSTER_GUESS_LEVELS <= CLUSTER_WIDE_ROUND_LEVELS);
    };
    let k = a.k as u32;
    let (tid, lane) = (w.thread_idx(), w.lane_id());
    let n = here.div_ceil(BLOCK_EPL as u32); // threads whose first slot lies in the row
    let saved = w.push_active(&tid.map(|t| t < n), "guess_bracket: threadIdx.x < n")?;
    let label = "guess_bracket: smem[threadIdx.x] = keys[0]";
    w.st_shared(&tid.map(|t| block_smem::KEYS + t), &row.row.keys[0], label).await?;
    w.pop_active(saved);
    w.syncthreads("guess_bracket: __syncthreads() (the sample)").await?;
    let cur = {
        let mut c = ClusterCands { row: &mut *row, n, rounds: 0 };
        ballot_round(w, &mut c, (s.lo, s.hi), CLUSTER_GUESS_LEVELS).await?
    };
    let label = "guess_bracket: s_clh[cur / 2 + lane / 2]";
    let word = w.ld_shared(&lane.map(|l| slot::CLH + cur / 2 + l / 2), label).await?;
    let mut above = word.zip(&lane, |v, l| v >> (16 * (l & 1)) & 0xffff);
    for d in [1, 2, 4, 8, 16] {
        let up =
            w.shfl_down_sync(FULL_MASK, &above, d, 32, "guess_bracket: shfl_down(above, d)")?;
        let sum = above.zip(&up, |x, u| x + u);
        above = Lanes::select(&lane.map(|l| l + d < 32), &sum, &above);
    }
    let total = w.shfl_sync(FULL_MASK, &above, 0, 32, "guess_bracket: shfl(above, 0)")?;
    let total = w.uniform(&total, "guess_bracket: total")?;
    w.syncthreads("guess_bracket: __syncthreads() (the round's words read)").await?;
    let label = "guess_bracket: s_stage[i] = 0 (value_rounds' words)";
    zero_shared_words(w, slot::HIST, slot::ROUND_WORDS, label).await?;
    // the estimated count at leaf lane's lower end, above * m / total, against k's margins
    let (m, kk) = (u64::from(row.row.m), u64::from(k) * u64::from(total));
    let est = above.map(|x| u64::from(x) * m * 4);
    let pred = |f: fn(u64, u64) -> bool| est.zip(&lane, move |e, l| l > 0 && f(e, kk));
    let enough = w.ballot_sync(FULL_MASK, &pred(|e, kk| e >= 5 * kk), "guess_bracket: enough")?;
    let enough = w.uniform(&enough, "guess_bracket: enough")?;
    let few = w.ballot_sync(FULL_MASK, &pred(|e, kk| e < 3 * kk), "guess_bracket: few")?;
    let few = w.uniform(&few, "guess_bracket: few")?;
    if total == 0 || enough == 0 {
        return Ok(()); // cluster-uniform: no guess
    }
    let q_lo = 31 - enough.leading_zeros();
    let f_lo = leaf_floor(q_lo, s.lo, s.hi);
    let f_hi = if few != 0 { leaf_floor(few.trailing_zeros(), s.lo, s.hi) } else { s.hi };
    let t_lo = number_key(f_lo);
    let t_hi = if few != 0 { number_key(f_hi) } else { s.hi_key };
    if !(s.lo_key < t_lo && t_lo < t_hi && t_hi <= s.hi_key) {
        return Ok(());
    }
    let (at_hi, at_lo) = row.cluster_sum_pair(w, a, (t_hi, t_lo)).await?; // ge_last: t_lo's
    // as value_phase's steps: a hit keeps its count (cut_of's), a moved hi does not
    if few != 0 {
        if at_hi == k {
            (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t_hi, at_hi, true);
            s.exit = Exit::Done(SearchExit::Hit);
            return Ok(());
        }
        if at_hi > k {
            (s.lo_key, s.lo, s.count_at_lo) = (t_hi, f_hi, at_hi);
            return Ok(());
        }
        (s.hi_key, s.hi) = (t_hi, f_hi);
    }
    if at_lo == k {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t_lo, at_lo, true);
        s.exit = Exit::Done(SearchExit::Hit);
        return Ok(());
    }
    if at_lo < k {
        (s.hi_key, s.hi) = (t_lo, f_lo);
        return Ok(());
    }
    (s.lo_key, s.lo, s.count_at_lo) = (t_lo, f_lo, at_lo);
    if at_lo <= row.cand_cap {
        s.exit = Exit::Narrow;
    }
    Ok(())
}

/// `search_guessed`: `search_exact` from a guessed bracket ([`guesses`], [`guess_bracket`]):
/// the value phase and the key phase go on from it unless it narrowed or hit.
async fn search_guessed(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut ClusterRow<'_>,
    (lo_key, hi_key): (u32, u32),
    here: u32,
    tr: Tracer<'_>,
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::Converged, 0, ElemType::F32);
    s.slack = recall_slack(a, a.k as u32);
    if lo_key == hi_key {
        return Ok(s);
    }
    value_of_bracket(a, &mut s);
    if s.value == Value::Plain {
        guess_bracket(w, a, row, &mut s, here).await?;
    }
    if s.exit == Exit::Done(SearchExit::Converged) {
        finish_exact(w, a, row, &mut s, tr).await?;
    }
    Ok(s)
}

/// `guesses_from_hint`: whether a hinted row's search starts from a window about its hint
/// ([`search_from_hint`]) — an f32 row of a ragged twin (`rtopk_cluster_rows_ragged`,
/// `rtopk_cluster_rows_narrow_ragged`) on a portable cluster (not the kernel's `WIDE`
/// instantiation) that narrows (within its blocks, or into block 0), with a hint it takes
/// (exact: no precision, recall target or iteration cap), whose counts nobody asked for
/// (docs/contract.md §3's counts are bisect's, from its hint test and window tests) and that
/// selects fewer keys than it holds (`search_of` ends a row of `k_i = m_i`).
fn guesses_from_hint(w: &Warp<'_>, p: &Params<'_>, row: &ClusterRow<'_>) -> bool {
    let family = p.plan.family();
    row.row.skips
        && matches!(family, Family::ClusterRows | Family::ClusterRowsNarrow)
        && !wide(p, row.size)
        && uncounted_narrowing(w, p, row)
        && p.a.bisect.recall.is_none()
        && (p.a.k as u32) < row.row.m
}

/// `window_about`: the window about the hint's ordered value `h`, `[h - w, h + w]` with `w` the
/// window tests' first width (`2^-HINT_WINDOW_SHIFTS[0]` of the bracket), where it lies
/// strictly inside the bracket; a NaN, infinite or far hint has none.
fn window_about(s: &Search, h: f32) -> Option<(f32, f32)> {
    let scale = 0.5f32.powi(HINT_WINDOW_SHIFTS[0]); // exact
    let width = s.hi * scale - s.lo * scale;
    let (f_lo, f_hi) = (h - width, h + width);
    (s.lo < f_lo && f_lo < f_hi && f_hi < s.hi).then_some((f_lo, f_hi))
}

/// `guess_from_hint`: one cluster round in place of the hint test and the first window test:
/// the keys `>=` the window's two ends ([`window_about`]) counted together
/// ([`ClusterRow::cluster_sum_pair`]), and the bracket takes what the counts prove, as
/// [`guess_bracket`]'s do: a hit, the window itself (narrowed at once where lo's count is at
/// most the cap), or the side of it that holds the k-th key — returned for the wider window
/// tests (`None`: the search goes on from the bracket as it is).
async fn guess_from_hint(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut ClusterRow<'_>,
    s: &mut Search,
    (f_lo, f_hi): (f32, f32),
) -> Result<Option<HintSide>, SimError> {
    let k = a.k as u32;
    let (t_lo, t_hi) = (number_key(f_lo), number_key(f_hi));
    if !(s.lo_key < t_lo && t_lo < t_hi && t_hi <= s.hi_key) {
        return Ok(None);
    }
    let (at_hi, at_lo) = row.cluster_sum_pair(w, a, (t_hi, t_lo)).await?; // ge_last: t_lo's
    let hit = |s: &mut Search, t: u32| {
        (s.hi_key, s.count_at_hi, s.has_count_at_hi) = (t, k, true);
        s.exit = Exit::Done(SearchExit::Hit);
        None
    };
    Ok(if at_hi == k {
        hit(s, t_hi)
    } else if at_hi > k {
        // ge_last is t_lo's mask: a lo moved to t_hi narrows on a later count
        (s.lo_key, s.lo, s.count_at_lo) = (t_hi, f_hi, at_hi);
        Some(HintSide::Above)
    } else if at_lo == k {
        hit(s, t_lo)
    } else if at_lo < k {
        (s.hi_key, s.hi) = (t_lo, f_lo);
        Some(HintSide::Below)
    } else {
        (s.hi_key, s.hi) = (t_hi, f_hi);
        (s.lo_key, s.lo, s.count_at_lo) = (t_lo, f_lo, at_lo);
        if at_lo <= row.cand_cap {
            s.exit = Exit::Narrow;
        }
        None
    })
}

/// `search_from_hint`: `search_exact` from the hint's window ([`guesses_from_hint`],
/// [`guess_from_hint`]): where the k-th key lies outside the window, the window tests from its
/// side, as `search_hinted`'s after its hint test (a hint further off than the window costs one
/// round more than there, never the answer); then the value phase and the key phase from the
/// bracket left, unless it narrowed or hit. A row whose window does not lie inside its range
/// takes `search_hinted`.
async fn search_from_hint(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut ClusterRow<'_>,
    (lo_key, hi_key): (u32, u32),
    hint: f32,
    tr: Tracer<'_>,
) -> Result<Search, SimError> {
    let mut s = Search::new(row, (lo_key, hi_key), SearchExit::Converged, 0, ElemType::F32);
    if lo_key != hi_key {
        value_of_bracket(a, &mut s);
    }
    let window = window_about(&s, hint * a.sign()); // exact: a negation in smallest mode
    let Some(ends) = window.filter(|_| s.value == Value::Plain) else {
        let of = (ElemType::F32, false);
        return search_hinted(w, a, row, (lo_key, hi_key), of, hint, tr).await;
    };
    if let Some(side) = guess_from_hint(w, a, row, &mut s, ends).await? {
        if window_tests(w, a, row, &mut s, side, tr).await? || s.lo_key == s.hi_key {
            return Ok(s);
        }
        value_of_bracket(a, &mut s);
        s.has_count_at_hi = false; // the value phase moves hi without its count
    }
    if s.exit == Exit::Done(SearchExit::Converged) {
        finish_exact(w, a, row, &mut s, tr).await?;
    }
    Ok(s)
}

/// `ragged_span`: the elements each block of a ragged row's cluster holds — the row's own width
/// `m` spread evenly over the `size` blocks in whole threads' slots (`BLOCK_EPL`, a multiple of
/// every 16-byte group), at most a block's registers; a plain row fills each block in turn, and
/// a row much shorter than its cluster would leave all its candidates to its first block.
fn ragged_span(m: u32, size: u32, block_dim: u32) -> u32 {
    let epl = BLOCK_EPL as u32;
    (epl * block_dim).min(m.div_ceil(size).div_ceil(epl) * epl)
}

/// `rtopk_cluster_row`: a row over a cluster of `blockDim.x`-thread blocks; on the ragged twin
/// (`rtopk_cluster_row_ragged`) the row's own width, k and hint, every block of the cluster
/// reading them, the padding written by the cluster's threads together. It is the kernel's
/// `rtopk_cluster_row` and `cluster_row_of` in one: the kernel's choice of its `WIDE`
/// instantiation is [`wide`] here, which sets the narrowing cap ([`narrow_cap`]) and the
/// rounds ([`Rounds::of`]); the shared memory `rtopk_cluster_row` declares is the block's.
pub(crate) async fn rtopk_cluster_row(w: &mut Warp<'_>, p: &Params<'_>) -> Result<(), SimError> {
    let (rank, size) = (w.cluster_ctarank(), w.cluster_size());
    let row_id = u64::from(w.block_idx() / size);
    let ragged = p.plan.unit.is_ragged();
    // a ragged split's second stage pads like a whole row (its chunks never take a cluster)
    let (width_k, pads) = (p.a.k as u32, p.chunks == 1);
    // the launch's 16-byte alignment holds for every block's part whatever the row's width:
    // each part starts at a multiple of BLOCK_EPL, and the staged load cuts the last group
    let launched = p.vec4;
    let (p, at) = p.row_args(w, row_id)?;
    let p = &p;
    let aligned = launched || p.vec4;
    let a = &p.a;
    let (m, k) = (a.m as u32, a.k as u32);
    let tid = w.thread_idx();
    if k < width_k && pads {
        let bufs = (p.out_val, p.out_idx, &at.out);
        let t = tid.map(|t| rank * w.block_dim() + t);
        pad_results(w, bufs, p.elem, (k, width_k), &t, size * w.block_dim()).await?;
    }
    if k == 0 {
        // cluster-uniform: no block reaches a cluster barrier
        let writer = tid.map(|t| t == 0 && rank == 0);
        return write_iterations(w, (p.out_iter, row_id), 0, &writer).await;
    }
    let span =
        if ragged { ragged_span(m, size, w.block_dim()) } else { BLOCK_EPL as u32 * w.block_dim() };
    let start = rank * span;
    let here = m.saturating_sub(start).min(span); // this block's elements
    let row_off = at.input;
    let mut row = ClusterRow {
        row: BlockRow {
            keys: vec![Lanes::splat(0u32); BLOCK_EPL],
            ge_last: vec![Lanes::splat(0u32); 1],
            x: p.x,
            row_off: row_off.lane(0),
            m,
            in_regs: here,
            cached: 0,
            half: 0,
            sign: a.sign(),
            cap: 0,
            elem: p.elem,
            skips: ragged,
        },
        rank,
        size,
        round: 0,
        cand_cap: narrow_cap(p, size),
    };
    clear_slots(w, p.elem).await?;
    // stage 1: load_row — this block's elements, as a block row of `here` loads its own
    let part = Params { a: KernelArgs { m: here as usize, ..*a }, ..*p };
    let local = tid.map(|t| BLOCK_EPL as u32 * t);
    let part_off = row_off.map(|o| o + u64::from(start));
    let staged = p.elem == ElemType::F32 && aligned && stages_loads(w, p);
    let (lane_min, lane_max) =
        load_block_slots(w, &part, &mut row.row.keys, (&part_off, &local), (aligned, staged))
            .await?;
    let tr = p.tracer(row_id);
    if tr.on() {
        for l in 0..32 {
            let (f, n) = (local.lane(l) as usize, here as usize);
            let keys: Vec<u32> =
                row.row.keys.iter().take(n.saturating_sub(f)).map(|k| k.lane(l)).collect();
            tr.with(|r| r.loaded_slots(start as usize + f, &keys));
        }
    }
    // BUG (ClusterStartMissingBarrier): the first reduction before every block has started.
    if !a.has(Mutant::ClusterStartMissingBarrier) {
        w.barrier_cluster("cluster_sync(): every block started, its slots set").await?;
    }
    let (lo_key, hi_key) = cluster_range(w, a, &row, &lane_min, &lane_max).await?;
    tr.with(|r| r.range(lo_key, hi_key));
    // stage 2: search_threshold, the cluster's counts
    let hint = p.row_hint(row_id);
    let of = (p.elem, p.out_iter.is_some(), ragged);
    let mut s = if plain_search(p) && histograms(p) {
        p.covered(Branch::ClusterHistograms);
        histogram_search(w, a, &row, (lo_key, hi_key), here).await?
    } else if guesses(w, p, &row) {
        p.covered(Branch::ClusterGuess);
        search_guessed(w, a, &mut row, (lo_key, hi_key), here, tr).await?
    } else if let Some(h) = hint.filter(|_| guesses_from_hint(w, p, &row)) {
        p.covered(Branch::ClusterHintGuess);
        search_from_hint(w, a, &mut row, (lo_key, hi_key), h, tr).await?
    } else {
        search_threshold(w, a, &mut row, (lo_key, hi_key), of, hint, tr).await?
    };
    let first = tid.map(|t| start + BLOCK_EPL as u32 * t);
    let row_out = |out_off| RowOut {
        x: p.x,
        row_off,
        out_val: p.out_val,
        out_idx: p.out_idx,
        out_off,
        sign: a.sign(),
        elem: p.elem,
    };
    if s.exit == Exit::Narrow && p.plan.family() == Family::ClusterRowsNarrow {
        // cluster-uniform
        let out = row_out(at.out);
        let at_row = (p, row_id);
        return finish_cluster_candidates(w, a, &row, &mut s, &first, &out, at_row, tr).await;
    }
    // cluster-uniform; the staging holds the block's whole part (stages_loads), else the
    // search goes on over the registers
    while s.exit == Exit::Narrow {
        if stages_loads(w, p) {
            let mut c = local_candidates(w, &mut row).await?;
            finish_local(w, (a, p), &mut c, &mut s, tr).await?;
        } else {
            finish_exact(w, a, &mut row, &mut s, tr).await?;
        }
    }
    // stage 3: select_topk — this block's elements in index order after the blocks before it
    let c = cut_of(w, a, &mut row, &s).await?;
    trace_cut(tr, &s, &c);
    let band_left = k.wrapping_sub(c.strong_count);
    let (mut strong, mut band) = (vec![Lanes::splat(0u32)], vec![Lanes::splat(0u32)]);
    let own = classify(&row, &first, m, &c, &mut strong, &mut band);
    let (before, total) = block_prefix(w, &own, block_smem::CHUNK).await?;
    let (strong_before, band_before) =
        cluster_before(w, a, &row, (total & 0xffff, total >> 16)).await?;
    let base = strong_before + band_before.min(band_left);
    let band_here = band_left.saturating_sub(band_before);
    let written = ((total & 0xffff) + (total >> 16).min(band_here)).min(k.saturating_sub(base));
    let mut take = vec![Lanes::splat(0u32)];
    let pos = taken(a, &strong, &band, &before, band_here, &mut take);
    if tr.on() {
        trace_slots(tr, &first, a.m, &strong, &band, &take);
    }
    let out = row_out(at.out.map(|o| o + u64::from(base)));
    let stage = Stage { base: block_smem::STAGE, cap: BLOCK_STAGE as u32 };
    emit_staged(w, a, &take, &pos, written, &first, stage, &tid, w.block_dim(), Sync::Block, &out)
        .await?;
    let writer = tid.map(|t| t == 0 && rank == 0);
    write_iterations(w, (p.out_iter, row_id), s.iterations, &writer).await
}
