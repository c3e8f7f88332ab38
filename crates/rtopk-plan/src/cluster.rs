//! Cluster rows (docs/kernel.md, "Cluster rows"): a few long rows, each over a thread-block
//! cluster of compute capability 9.0 (CUDA Programming Guide, "Thread Block Clusters"). One
//! block per row leaves all but a few SMs idle and its search runs at one SM's pace (a count
//! costs about 280 cycles plus 27 a warp: docs/performance.md, "Few rows"); a split row
//! searches twice, once per stage, with a launch between. A cluster's blocks hold the row's
//! parts in registers, as many block rows side by side, and run the row's one search together:
//! each count is every block's count added in each block's shared memory through distributed
//! shared memory and one cluster barrier, so the search, its iteration counts and the answer
//! are the row's own (exact or approximate, as asked).

use topk_ref::{RowSelect, check_shape};

use crate::error::PlanError;
use crate::plan::{ClusterSlots, DeviceLimits, Launch, Plan};
use crate::units::{BLOCK_EPL, ElemType, Family, Unit};

/// Rows up to this width stay one block per row (at most 512 threads): on an H200 a cluster of
/// two blocks of 256 took 1.22-1.25x the one block's time at M = 16384 (1 to 32 rows, k = 512
/// to 2048; results/cuda/2026-11-29-cluster-rows-h200), the cluster's barriers costing more
/// than the second SM saves.
pub const CLUSTER_MIN_ROW: usize = 16384;
/// Elements a block of a cluster row aims to hold (256 threads of [`BLOCK_EPL`] keys): rows
/// take ⌈M / CLUSTER_SPAN⌉ blocks, at least 2 and at most the device's cluster size.
pub const CLUSTER_SPAN: usize = 8192;
/// Rows up to this width take a cluster whatever k is, of at most [`PORTABLE_CLUSTER`] blocks
/// (of at most 512 threads); wider ones take a wide cluster ([`WIDE_CLUSTER`]) where the device
/// launches one, else a portable one only where k is at least a [`CLUSTER_WIDE_K_PER`]-th of
/// the row. On an H200 (results/cuda/2026-11-29-cluster-rows-h200) rows of 49152 to 131072 on
/// 8 blocks took 0.51-0.93x the split's time for every k measured (20 to 2048), while at
/// 262144 (blocks of 1024 threads) the split's first stage, small chunks on many SMs, won for k
/// up to 1024 (1.03-1.48x), and at 163840 the cluster won from k = 1024 (0.63-0.92x); 16 blocks
/// at 131072 took 1.15-1.18x the time of 8 (results/cuda/2026-11-30-wide-clusters-h200).
pub const CLUSTER_MAX_ROW: usize = 131_072;
/// See [`CLUSTER_MAX_ROW`].
pub const CLUSTER_WIDE_K_PER: usize = 160;
/// The largest portable cluster (CUDA Programming Guide, "Thread Block Clusters": 8 blocks on
/// every device that launches clusters).
pub const PORTABLE_CLUSTER: usize = 8;
/// Blocks of a wide cluster: the non-portable cluster size that compute capability 9.0 launches
/// once a kernel opts in (CUDA Programming Guide, "Thread Block Clusters";
/// `cudaFuncAttributeNonPortableClusterSizeAllowed`). Rows wider than [`CLUSTER_MAX_ROW`] take
/// one where it holds them: on an H200 (results/cuda/2026-11-30-wide-clusters-h200) one to four
/// rows of 163840 to 500000 took 0.61-0.96x the time of the split or of 8 blocks at k = 256 to
/// 2048 (k = 64: 0.69-1.06x).
pub const WIDE_CLUSTER: usize = 16;
/// Threads a block of a wide cluster may hold and still share its SM with another block (two
/// blocks of 512 threads fit an SM's registers): up to this, wide clusters of every row run at
/// once where their blocks number at most the SMs.
pub const WIDE_CLUSTER_SHARED_THREADS: usize = 512;
/// Rows of wider blocks (one block an SM, a cluster on 16 SMs of one GPC) that take wide
/// clusters: at most this many. On an H200 eight rows of 393216 and 500000 took 1.04-1.40x the
/// split's time (fewer GPCs than clusters hold 16 free SMs), four took 0.63-1.00x.
pub const WIDE_CLUSTER_ROWS: usize = 4;
/// f32 rows from this width up to [`BLOCK_CLUSTER_ROW`] (rows of 4 spans) take
/// [`PORTABLE_CLUSTER`] blocks where every row's cluster runs at once, not 4. On an H100
/// (results/cuda/2026-12-06-cluster-span-h100, calls a and b: 1-32 rows, k = 20-2048) rows of
/// 32000 took 0.89-0.97 of the time of 4 blocks, and the split rows of 8-32 x 500000 at k =
/// 512-2048, whose second stage's rows are 30000 candidates, 0.96-0.99; rows of 24576 (3
/// blocks) 0.96-1.01 at 1-8 rows but 1.01-1.05 at 32, and rows of 49152 (6 blocks) 0.97-1.04,
/// which keep theirs. Hinted decode steps of 1-16 rows of 30000-32768 took 0.95-0.97 of their
/// time on 4 blocks (results/cuda/2026-12-06-large-sort-h100, call a); rows of their own
/// length at full length 0.93-0.97 (results/cuda/2026-12-07-ragged-plain-search-h100, call
/// c against call a's 4 blocks: 1 x 32768, k = 2048, 16.4 -> 15.2 us), those of mean length
/// M/4 0.93-1.14 (8 x 32768, k = 2048: 21.7 -> 24.8).
pub const SHORT_CLUSTER_MIN_ROW: usize = 3 * CLUSTER_SPAN + 1;
/// Plain f32 rows ([`ClusterRows::Plain`]) from this width up to [`CLUSTER_MAX_ROW`] that do
/// not narrow in a launch of their own, unsorted, take a wide cluster where it holds them (at
/// most 8 rows). On an H100 (results/cuda/2026-12-06-cluster-span-h100, calls a to c: 1-8
/// rows) rows that search from their range (k below an 80th of the row) took 0.88-1.01 of the
/// time of 8 blocks (1 x 100000, k = 1024: 17.5 -> 15.8 us); rows that start from a guessed
/// bracket took 1.00-1.08 before the wide cluster guessed too, 0.80-1.02 since (call h: 1 x
/// 100000, k = 2048, 17.7 -> 17.4 us; k = 4000 21.9 -> 18.1). Rows of 49152 took 0.94-1.05,
/// sorted calls 1.02-1.04 (1 and 8 x 100000, k = 512 and 1024) and a split's second stage of
/// 65536 candidates at k = 64 1.01-1.02 (1-2 rows of 2^21): those keep 8.
pub const WIDE_PLAIN_MIN_ROW: usize = 65_536;
/// Exact searches of f32 cluster rows of k at most this, on rows of at least
/// [`CLUSTER_NARROW_MIN_ROW`], take `rtopk_cluster_rows_narrow`: once a count finds at most
/// [`CLUSTER_CAND_CAP`] keys at the bracket's lower end, the row's candidates move into block
/// 0, whose first warp finishes the search and the selection alone, without a cluster round a
/// count. On an H200 (results/cuda/2026-12-02-cluster-narrow-entry-h200, call a) rows of
/// 100000 to 262144 took 0.82-0.99x the plain kernel's time at k = 8 to 128, 0.86-1.00x at
/// k = 256; rows of 40000, 49152 and 81920 1.03-1.14x, and 65536 0.86-1.04x; at k = 512 a
/// warp's serial selection over hundreds of candidates made it 1.02-1.17x
/// (results/cuda/2026-12-01-cluster-narrow-h200).
pub const CLUSTER_NARROW_MAX_K: usize = 128;
/// See [`CLUSTER_NARROW_MAX_K`]: twelve times [`CLUSTER_SPAN`].
pub const CLUSTER_NARROW_MIN_ROW: usize = 98_304;
/// Exact f32 rows of `rtopk_cluster_rows` narrow within their blocks once a count at the
/// bracket's lower end finds at most this many keys (the kernel's and the simulator's
/// `CLUSTER_LOCAL_CAP`): each block keeps its keys at or above it in its load staging, which
/// holds its whole part, and the search goes on over those [`CLUSTER_ROUND_LEVELS`] steps a
/// cluster round. On an H200 (results/cuda/2026-12-02-cluster-local-narrow-h200, call b) rows
/// of 65536 to 500000 took 0.79-0.93x the time of one step a round; rows of 40000 and 49152
/// 1.01-1.02x.
pub const CLUSTER_LOCAL_CAP: usize = 4096;
/// Bisection steps a round of a cluster row narrowed within its blocks counts at once: the
/// `2^L - 1` thresholds of the next `L` steps for every outcome (`value_rounds`).
pub const CLUSTER_ROUND_LEVELS: u32 = 4;
/// [`CLUSTER_LOCAL_CAP`] on a wide cluster ([`WIDE_CLUSTER`] blocks): its rows narrow within
/// their blocks from this many keys at the bracket's lower end, and count
/// [`CLUSTER_WIDE_ROUND_LEVELS`] steps a round (`ballot_round`: each candidate's leaf counted
/// by warp ballots, the leaves sent two to a word). On an H200
/// (results/cuda/2026-12-02-cluster-barriers-h200, calls c and e) rows of 163840 to 500000
/// took 0.90-0.97x the time of four steps a round from 4096 keys (1 x 262144, k = 2048: 16.1
/// -> 14.7 us); portable clusters took 1.08-1.10x, so they keep [`CLUSTER_LOCAL_CAP`] and
/// [`CLUSTER_ROUND_LEVELS`].
pub const CLUSTER_WIDE_LOCAL_CAP: usize = 8192;
/// See [`CLUSTER_WIDE_LOCAL_CAP`]: 31 thresholds, 32 leaves a round.
pub const CLUSTER_WIDE_ROUND_LEVELS: u32 = 5;
/// A cluster row of `rtopk_cluster_rows` whose counts nobody asked for starts its search from
/// a guessed bracket (the kernel's and the simulator's `guess_bracket`, docs/kernel.md,
/// "Cluster rows", **A guessed bracket**) where `k * CLUSTER_GUESS_K_PER >= m`: an f32 row
/// that narrows within its blocks, exact and plain, without a hint (on a wide cluster in the
/// kernel's `GUESSES` instantiation).
/// There the value phase takes four or five counts over the whole row before a count finds
/// at most the cap; the guess takes two rounds. On an H200
/// (results/cuda/2026-12-02-round-levels-h200, calls e and f) rows where `k / m` was at least
/// 1/80 took 0.94-0.98x the time (1 x 100000, k = 2048: 15.5 -> 14.7 us), rows below it up to
/// 1.06x, which keep the value phase's first steps.
pub const CLUSTER_GUESS_K_PER: usize = 80;
/// The sample's leaves of [`CLUSTER_GUESS_K_PER`]'s guess: the tree of midpoints of the
/// row's range, this many levels deep, one lane a leaf.
pub const CLUSTER_GUESS_LEVELS: u32 = 5;
/// Candidates a lane of the one warp that goes on with a narrowed cluster row holds (the
/// kernel's and the simulator's `CLUSTER_CAND_KEYS`: a `CandRow` of that many keys a lane).
pub const CLUSTER_CAND_KEYS: usize = 32;
/// Most candidates a cluster row narrows to (`CLUSTER_CAND_CAP`): [`CLUSTER_CAND_KEYS`] a lane
/// of one warp; with their indices, 8 KB of block 0's load staging.
pub const CLUSTER_CAND_CAP: usize = 32 * CLUSTER_CAND_KEYS;

/// Which rows a cluster launch selects from: the plan takes for each the shapes measured on it.
/// All take [`SHORT_CLUSTER_MIN_ROW`]'s 8 blocks and `fewer_blocks`; plain rows alone take
/// [`WIDE_PLAIN_MIN_ROW`]'s wide clusters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterRows {
    /// A request's own rows, without per-row arrays: every shape.
    Plain,
    /// A split's candidates (its second stage).
    Candidates,
    /// Rows that read per-row arrays — their own length, their own k or a hint
    /// (docs/contract.md §5): the ragged twin's, whose wide rows neither start from their hint's
    /// window nor guess a bracket (both are a portable cluster's search).
    PerRow,
}

impl ClusterRows {
    /// Whether these rows take [`WIDE_PLAIN_MIN_ROW`]'s wide clusters.
    fn wide(self) -> bool {
        self == ClusterRows::Plain
    }
}

/// Whether the default runs `launch` as cluster rows: a device that launches clusters, rows of
/// at most 32-bit elements past [`CLUSTER_MIN_ROW`] that a cluster holds in registers
/// ([`CLUSTER_MAX_ROW`] says which k and cluster sizes), and few enough rows that every cluster
/// runs at once. Ragged rows (docs/contract.md §5) likewise, by their width `launch.m` (their
/// own lengths are on the device): the ragged twin (`rtopk_cluster_rows_ragged`) reads each
/// row's length, k and hint.
///
/// Rows of their own length or k take the shapes of plain rows, `fewer_blocks` and 8 blocks
/// from [`SHORT_CLUSTER_MIN_ROW`] included, since their ragged twin searches as the plain unit
/// does (docs/kernel.md, "Per-row lengths and k on the device", **The plain searches**): on an
/// H100 (results/cuda/2026-12-07-ragged-plain-search-h100) such rows at full length took
/// 0.98-1.02 of the plain rows' time where a split had taken 0.93-1.56, and rows of mean
/// length M/4 0.85-1.01 of the split's at k = 2048, 1.01-1.15 at k = 512 and 1024. Before,
/// when the twin bisected, they kept the split there (27.1 -> 34.0 us at 32 x 100000,
/// k = 2048; results/cuda/2026-12-06-h100-standing, call d).
pub fn clusters(launch: &Launch, limits: &DeviceLimits, rows: ClusterRows) -> bool {
    let Launch { m, k, .. } = *launch;
    let pays = |size: usize| {
        size == WIDE_CLUSTER || m <= CLUSTER_MAX_ROW || k.saturating_mul(CLUSTER_WIDE_K_PER) >= m
    };
    k > 0
        && m > CLUSTER_MIN_ROW
        && cluster_shape(launch, limits, rows).is_some_and(|(s, _)| pays(s))
}

/// Blocks per row and threads per block of `launch` as cluster rows, where a cluster holds it
/// and every cluster fits the device at once: a wide cluster where one does
/// ([`wide_cluster_shape`]), else a portable one (of [`fewer_blocks`] where full ones do not).
fn cluster_shape(
    launch: &Launch,
    limits: &DeviceLimits,
    rows: ClusterRows,
) -> Option<(usize, usize)> {
    let Launch { n, m, elem, .. } = *launch;
    if elem.wide() || limits.max_cluster < 2 || n == 0 {
        return None;
    }
    let wide_from = if rows.wide() && !launch.sorted && wide_pays(launch) {
        WIDE_PLAIN_MIN_ROW - 1
    } else {
        CLUSTER_MAX_ROW
    };
    wide_cluster_shape(n, m, wide_from, limits).or_else(|| portable_cluster_shape(launch, limits))
}

/// Whether an f32 row takes [`WIDE_PLAIN_MIN_ROW`]'s wide cluster: one that does not narrow
/// in a launch of its own ([`narrows`]).
fn wide_pays(launch: &Launch) -> bool {
    launch.elem == ElemType::F32 && !narrows(launch)
}

/// [`WIDE_CLUSTER`] blocks a row, for rows past `from` ([`CLUSTER_MAX_ROW`], or
/// [`WIDE_PLAIN_MIN_ROW`]'s) on a device that launches them, where every cluster runs at once
/// ([`WIDE_CLUSTER_SHARED_THREADS`], [`WIDE_CLUSTER_ROWS`]).
fn wide_cluster_shape(
    n: usize,
    m: usize,
    from: usize,
    limits: &DeviceLimits,
) -> Option<(usize, usize)> {
    if m <= from || limits.max_cluster < WIDE_CLUSTER {
        return None;
    }
    let threads = block_threads(m, WIDE_CLUSTER);
    let at_once = if threads <= WIDE_CLUSTER_SHARED_THREADS {
        n.checked_mul(WIDE_CLUSTER)? <= limits.sm_count
    } else {
        n <= WIDE_CLUSTER_ROWS
    };
    (threads <= 1024 && at_once).then_some((WIDE_CLUSTER, threads))
}

/// ⌈M / [`CLUSTER_SPAN`]⌉ blocks a row, 2 to [`PORTABLE_CLUSTER`] ([`SHORT_CLUSTER_MIN_ROW`]'s
/// rows the most), where the device holds every row's cluster at once ([`all_at_once`]); where
/// it does not, fewer and wider blocks for the rows [`FEWER_BLOCKS_MAX_ROW`] names.
fn portable_cluster_shape(launch: &Launch, limits: &DeviceLimits) -> Option<(usize, usize)> {
    let Launch { n, m, elem, .. } = *launch;
    let most = limits.max_cluster.min(PORTABLE_CLUSTER);
    let short = elem == ElemType::F32
        && (SHORT_CLUSTER_MIN_ROW..=BLOCK_CLUSTER_ROW).contains(&m)
        && all_at_once(n, m, most, limits);
    let size = if short { most } else { m.div_ceil(CLUSTER_SPAN).clamp(2, most) };
    let threads = block_threads(m, size);
    if all_at_once(n, m, size, limits) {
        return Some((size, threads));
    }
    let size = fewer_blocks(launch, size, limits)?;
    let threads = block_threads(m, size);
    (threads <= 1024).then_some((size, threads))
}

/// Rows past [`BLOCK_CLUSTER_ROW`] up to this width, exact f32 and 16-bit rows, take fewer,
/// wider blocks where their clusters of ⌈M / [`CLUSTER_SPAN`]⌉ blocks would not all run at
/// once (`fewer_blocks`: the most that do, at least 2; where none do, at large k the most the
/// SMs hold), instead of a split's two searches and four launches. On an H100
/// (results/cuda/2026-12-06-h100-standing, call b: 20 to 64 rows of 24576 to 163840, k = 50,
/// 512, 2048, before the plan knew which clusters run at once) f32 rows took 0.79-0.87 of the
/// split's time at k = 2048 (32 x 100000: 49.0 -> 41.0 us; CUB's DeviceBatchedTopK 32.4), at
/// k = 50 and 512 (no guess) 0.85-1.09; rows of 131072 and 163840 1.11-1.36 (the split's chunks
/// are whole there). 16-bit rows, which then bisected a cluster round a step, took 0.98-1.97;
/// searched by histograms (two rounds whatever k: docs/kernel.md, "16-bit rows by histograms")
/// see [`FEWER_BLOCKS_16_K_PER`].
pub const FEWER_BLOCKS_MAX_ROW: usize = 100_000;
/// 16-bit rows take [`FEWER_BLOCKS_MAX_ROW`]'s fewer, wider blocks in two waves where k is at
/// least this fraction of the row (f32 rows: [`CLUSTER_GUESS_K_PER`]). On an H100 (results/cuda/2026-12-06-hist16-h100, call c: 20 to 66 bf16
/// rows of 40000 to 100000 at k = 64, 512, 2048, against a split whose block rows also search
/// by histograms) they took 0.53-1.00 of the split's time where k >= M / 128 (64 x 40000,
/// k = 2048: 35.6 -> 18.8 us), and 0.70-1.19 below it (32 x 81920, k = 64: 1.19).
pub const FEWER_BLOCKS_16_K_PER: usize = 128;
/// Rows up to this width that [`FEWER_BLOCKS_MAX_ROW`] would give two blocks of a cluster
/// keep one block a row, as the plan has it: two blocks of up to 512 threads took 1.03-1.28 of
/// its time on 48 and 64 rows of 24576 and 32768 (same call).
pub const BLOCK_CLUSTER_ROW: usize = 32_768;

/// [`FEWER_BLOCKS_MAX_ROW`]'s blocks a row for `launch`, or `None` where it does not apply
/// (a 16-bit row's search is two histogram rounds only where its counts are not asked; asked,
/// it bisects on the fewer blocks all the same): the most blocks a row whose clusters all run
/// at once ([`all_at_once`]); where none does, at large k (an f32 row's
/// [`CLUSTER_GUESS_K_PER`], a 16-bit row's [`FEWER_BLOCKS_16_K_PER`]) the most the SMs hold,
/// in two waves, which was still faster than the split (32 x 100000 at k = 2048: 41 against
/// 49 us), and at smaller k none (33 x 100000 at k = 512: 37.8 us against the split's 34.6;
/// results/cuda/2026-12-06-hist32-h100, call g). On a device whose cluster slots are not known,
/// as before them: at large k only.
fn fewer_blocks(launch: &Launch, size: usize, limits: &DeviceLimits) -> Option<usize> {
    let Launch { n, m, k, elem, bisect, .. } = *launch;
    let k_per = match elem {
        ElemType::F32 => CLUSTER_GUESS_K_PER, // the rows that start from a guessed bracket
        _ if elem.packed16() => FEWER_BLOCKS_16_K_PER,
        _ => return None,
    };
    let wide = m > BLOCK_CLUSTER_ROW && m <= FEWER_BLOCKS_MAX_ROW;
    if !(bisect.is_exact() && wide) {
        return None;
    }
    // where the device's slots are not known, at large k only, as many as the SMs hold
    let known = limits.cluster_slots != ClusterSlots::UNKNOWN;
    let at_once = (2..size).rev().find(|&b| all_at_once(n, m, b, limits));
    if let Some(fewer) = at_once.filter(|_| known) {
        return Some(fewer);
    }
    let most = (limits.sm_count / n.max(1)).min(size - 1);
    (k.saturating_mul(k_per) >= m && most >= 2).then(|| at_once.unwrap_or(most))
}

/// Blocks of a cluster row of `threads` threads an SM holds: the cluster kernel's launch bounds
/// (1024 threads) let it use 64 registers a thread, and an SM has 65536 (its shared memory
/// holds their load staging, 4 KB a warp); at most [`ClusterSlots::PER_SM`].
fn blocks_per_sm(threads: usize) -> usize {
    (1024 / threads.max(1)).clamp(1, ClusterSlots::PER_SM)
}

/// Whether `n` rows of `m` on clusters of `size` blocks all run at once: blocks of at most 1024
/// threads, and clusters no more than the device holds of blocks that share an SM as theirs do
/// ([`DeviceLimits::clusters_held`], [`blocks_per_sm`]). On an H100
/// (results/cuda/2026-12-06-hist32-h100) 16 to 30 f32 rows of 100000 at k = 2048 took
/// 22.0-26.3 us where their clusters fit at once, and 35.5-37.0 us where they did not (call b:
/// 20 rows on clusters of 6 blocks of 544 threads, 17 held; 24-26 on clusters of 5, 22 held);
/// 20-28 rows at k = 512 took 30.2-33.8 us as a split and 21.5-23.2 on full clusters of 8
/// blocks of 416 threads, two an SM (30 held; call e).
fn all_at_once(n: usize, m: usize, size: usize, limits: &DeviceLimits) -> bool {
    let threads = block_threads(m, size);
    threads <= 1024 && n <= limits.clusters_held(size, blocks_per_sm(threads))
}

/// Threads of each of `size` blocks holding a row of `m` ([`BLOCK_EPL`] keys a thread), whole
/// warps, at least two.
fn block_threads(m: usize, size: usize) -> usize {
    m.div_ceil(size * BLOCK_EPL).next_multiple_of(32).max(64)
}

/// The plan of `launch` as cluster rows of `rows` ([`clusters`] says where it applies): full
/// clusters where they all run at once, else fewer blocks.
pub fn cluster_plan(
    launch: &Launch,
    limits: &DeviceLimits,
    rows: ClusterRows,
) -> Result<Plan, PlanError> {
    let Launch { n, m, k, elem, .. } = *launch;
    check_shape(m, k)?;
    let why = "no cluster of the device holds the rows at once";
    let (size, threads) =
        cluster_shape(launch, limits, rows).ok_or(PlanError::TooLarge { n, m, why })?;
    let blocks = n * size; // at most the SM count
    let dynamic_shared = crate::plan::block_load_stage(blocks, threads, elem, limits);
    let narrows = narrows(launch) && dynamic_shared as usize >= 8 * CLUSTER_CAND_CAP;
    let family = if narrows { Family::ClusterRowsNarrow } else { Family::ClusterRows };
    Ok(Plan {
        unit: Unit::single(family).with_elem(elem),
        keys_per_lane: BLOCK_EPL,
        lanes_per_row: threads,
        grid: blocks as u32,
        block: threads as u32,
        dynamic_shared,
        cached_keys: 0,
        narrows,
        value_bins: false,
        sort: crate::plan::sort_of(launch, limits)?,
        cluster: size as u32,
    })
}

/// Whether cluster rows of `launch` narrow ([`CLUSTER_NARROW_MAX_K`]), where their launch
/// stages its loads (the candidates' room).
fn narrows(launch: &Launch) -> bool {
    let Launch { m, k, elem, bisect, .. } = *launch;
    let exact = bisect.max_iter.is_none();
    exact && elem == ElemType::F32 && k <= CLUSTER_NARROW_MAX_K && m >= CLUSTER_NARROW_MIN_ROW
}

/// Blocks per cluster the device launches (its `max_cluster`): [`WIDE_CLUSTER`] on compute
/// capability 9.x (the cluster kernel opts in to the non-portable size when it is loaded), the
/// portable size on other devices that launch clusters, else 1.
pub fn max_cluster_of(launches_clusters: bool, capability_major: usize) -> usize {
    match (launches_clusters, capability_major) {
        (false, _) => 1,
        (true, 9) => WIDE_CLUSTER,
        (true, _) => PORTABLE_CLUSTER,
    }
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::ClusterRows::{Candidates, PerRow, Plain};
    use super::*;
    use crate::units::ElemType;

    const H200: DeviceLimits = DeviceLimits {
        sm_count: 132,
        shared_optin_bytes: 232_448,
        max_cluster: 8,
        cluster_slots: crate::ClusterSlots::UNKNOWN,
    };

    fn launch(n: usize, m: usize, k: usize) -> Launch {
        Launch {
            n,
            m,
            k,
            mode: Mode::Largest,
            bisect: Bisect::exact(),
            sorted: false,
            elem: ElemType::F32,
        }
    }

    #[test]
    fn few_long_rows_take_a_cluster_each_and_the_rest_do_not() {
        let p = cluster_plan(&launch(1, 163_840, 2048), &H200, Plain).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (8, 640, 8));
        assert_eq!(p.family(), Family::ClusterRows);
        let p = cluster_plan(&launch(4, 16_385, 512), &H200, Plain).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (3, 192, 12));
        assert!(!clusters(&launch(4, 16_384, 512), &H200, Plain));
        // wide rows for large k only, as far as the cluster's registers hold the row: 8 blocks
        // of 1024 threads
        assert!(clusters(&launch(1, CLUSTER_MAX_ROW, 20), &H200, Plain));
        assert!(!clusters(&launch(1, CLUSTER_MAX_ROW + 1, 64), &H200, Plain));
        assert!(clusters(&launch(1, 163_840, 1024), &H200, Plain));
        assert!(clusters(&launch(1, 8 * 32 * 1024, 2048), &H200, Plain));
        assert!(!clusters(&launch(1, 8 * 32 * 1024 + 1, 4096), &H200, Plain));
        // every cluster at once, short rows, 64-bit rows and older devices: none
        assert!(clusters(&launch(16, 100_000, 64), &H200, Plain));
        assert!(!clusters(&launch(17, 100_000, 64), &H200, Plain));
        assert!(!clusters(&launch(1, 100_000, 0), &H200, Plain));
        assert!(!clusters(&launch(1, CLUSTER_MIN_ROW, 64), &H200, Plain));
        let wide = Launch { elem: ElemType::F64, ..launch(1, 100_000, 64) };
        assert!(!clusters(&wide, &H200, Plain));
        let a100 = DeviceLimits { max_cluster: 1, ..H200 };
        assert!(!clusters(&launch(1, 100_000, 64), &a100, Plain));
        assert!(cluster_plan(&launch(1, 100_000, 64), &a100, Plain).is_err());
        // 16-bit and integer rows hold one key a slot too; f32 rows stage their loads
        let bf16 = Launch { elem: ElemType::Bf16, ..launch(2, 65_536, 1024) };
        let p = cluster_plan(&bf16, &H200, Plain).unwrap();
        assert_eq!((p.unit.elem_type(), p.dynamic_shared), (ElemType::Bf16, 0));
        assert!(cluster_plan(&launch(2, 65_536, 1024), &H200, Plain).unwrap().dynamic_shared > 0);
    }

    /// On a device of wide clusters, rows past [`CLUSTER_MAX_ROW`] take 16 blocks whatever k
    /// is, where every cluster runs at once; narrower rows keep at most 8; the rest as on a
    /// device of portable clusters.
    #[test]
    fn rows_past_the_portable_clusters_take_wide_ones_where_the_device_has_them() {
        let wide = DeviceLimits { max_cluster: WIDE_CLUSTER, ..H200 };
        let p = cluster_plan(&launch(1, 163_840, 64), &wide, Plain).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (16, 320, 16));
        assert!(clusters(&launch(1, 163_840, 64), &wide, Plain));
        assert!(!clusters(&launch(1, 163_840, 64), &H200, Plain)); // k too small for 8 blocks
        let p = cluster_plan(&launch(4, 500_000, 2048), &wide, Plain).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (16, 992, 64));
        assert!(clusters(&launch(1, 16 * 32 * 1024, 20), &wide, Plain));
        assert!(!clusters(&launch(1, 16 * 32 * 1024 + 1, 8192), &wide, Plain));
        // at most 8 blocks up to CLUSTER_MAX_ROW
        let p = cluster_plan(&launch(1, CLUSTER_MAX_ROW, 64), &wide, Plain).unwrap();
        assert_eq!((p.cluster, p.block), (8, 512));
        // blocks of up to 512 threads: as many rows as the SMs take; wider blocks: 4 rows
        assert!(clusters(&launch(8, 262_144, 64), &wide, Plain));
        assert!(!clusters(&launch(9, 262_144, 64), &wide, Plain));
        assert!(clusters(&launch(4, 262_145, 64), &wide, Plain));
        assert!(!clusters(&launch(5, 262_145, 64), &wide, Plain));
        // where 16 blocks do not run at once, 8 as on a device of portable clusters
        let p = cluster_plan(&launch(16, 163_840, 2048), &wide, Plain).unwrap();
        assert_eq!((p.cluster, p.grid), (8, 128));
        assert!(clusters(&launch(16, 163_840, 2048), &wide, Plain));
        assert!(!clusters(&launch(16, 163_840, 64), &wide, Plain));
        assert_eq!(max_cluster_of(true, 9), WIDE_CLUSTER);
        assert_eq!(max_cluster_of(true, 10), PORTABLE_CLUSTER);
        assert_eq!(max_cluster_of(false, 9), 1);
    }

    /// Where ⌈M / CLUSTER_SPAN⌉ blocks a row outnumber the SMs, exact f32 rows past
    /// [`BLOCK_CLUSTER_ROW`] up to [`FEWER_BLOCKS_MAX_ROW`] that start from a guessed bracket,
    /// and 16-bit rows there from k = M / 128, take as many blocks as the SMs hold for every
    /// row, at least 2; the rest keep their route.
    #[test]
    fn more_rows_than_full_clusters_take_fewer_wider_blocks_where_they_guess() {
        let p = cluster_plan(&launch(32, 100_000, 2048), &H200, Plain).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (4, 800, 128));
        let p = cluster_plan(&launch(64, 65_536, 2048), &H200, Plain).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (2, 1024, 128));
        let p = cluster_plan(&launch(20, 49_152, 2048), &H200, Plain).unwrap();
        assert_eq!((p.cluster, p.grid), (6, 120)); // full clusters hold 20 rows
        assert!(clusters(&launch(66, 49_152, 2048), &H200, Plain));
        assert!(!clusters(&launch(67, 49_152, 2048), &H200, Plain)); // fewer than 2 SMs a row
        assert!(!clusters(&launch(32, 100_000, 1249), &H200, Plain)); // k < M / 80: no guess
        assert!(clusters(&launch(32, 100_000, 1250), &H200, Plain));
        assert!(!clusters(&launch(32, FEWER_BLOCKS_MAX_ROW + 1, 2048), &H200, Plain));
        assert!(!clusters(&launch(64, BLOCK_CLUSTER_ROW, 2048), &H200, Plain));
        assert!(clusters(&launch(64, BLOCK_CLUSTER_ROW + 1, 2048), &H200, Plain));
        // 16-bit rows from k = M / 128; not integers
        for elem in [ElemType::F16, ElemType::Bf16] {
            let of = |n, m, k| Launch { elem, ..launch(n, m, k) };
            assert!(clusters(&of(32, 49_152, 384), &H200, Plain), "{elem:?}");
            assert!(!clusters(&of(32, 49_152, 383), &H200, Plain), "{elem:?}");
            assert!(clusters(&of(64, 40_000, 2048), &H200, Plain), "{elem:?}");
            assert!(!clusters(&of(32, 100_000, 512), &H200, Plain), "{elem:?}");
        }
        let ints = Launch { elem: ElemType::I32, ..launch(32, 100_000, 2048) };
        assert!(!clusters(&ints, &H200, Plain));
        let approx = Bisect { max_iter: Some(4), ..Bisect::exact() };
        assert!(!clusters(&Launch { bisect: approx, ..launch(32, 100_000, 2048) }, &H200, Plain));
        let recall = Bisect { recall: Some(0.9), ..Bisect::exact() };
        assert!(!clusters(&Launch { bisect: recall, ..launch(32, 100_000, 2048) }, &H200, Plain));
        // rows of their own length, k or hint: as plain rows
        let p = cluster_plan(&launch(32, 100_000, 2048), &H200, PerRow).unwrap();
        assert_eq!((p.cluster, p.block, p.grid), (4, 800, 128));
        assert!(!clusters(&launch(32, 100_000, 1249), &H200, PerRow));
    }

    /// Full clusters where the device holds every row's at once, counting the blocks an SM
    /// shares; else fewer blocks, the most a row whose clusters all run at once; where none
    /// does, at large k the most the SMs hold (two waves), at smaller k none. Without the
    /// device's slots, one block an SM.
    #[test]
    fn clusters_take_the_shapes_the_device_holds_at_once() {
        let h100 = DeviceLimits::preset("h100").unwrap();
        assert_eq!((h100.clusters_held(4, 1), h100.clusters_held(8, 2)), (30, 30));
        assert_eq!((H200.clusters_held(4, 1), H200.clusters_held(8, 2)), (33, 16));
        assert_eq!((blocks_per_sm(1024), blocks_per_sm(416), blocks_per_sm(64)), (1, 2, 4));
        let shape = |n: usize, m: usize, k: usize, limits: &DeviceLimits| {
            let p = cluster_plan(&launch(n, m, k), limits, Plain).ok()?;
            Some((p.cluster, p.block))
        };
        // 20-28 rows of 100000: full clusters of 8 blocks of 416 threads, two an SM (30 held),
        // at any k; without the slots, one an SM: fewer blocks at large k
        for n in [20, 24, 28] {
            assert_eq!(shape(n, 100_000, 2048, &h100), Some((8, 416)), "{n}");
            assert_eq!(shape(n, 100_000, 50, &h100), Some((8, 416)), "{n}");
        }
        assert_eq!(shape(20, 100_000, 2048, &H200), Some((6, 544)));
        assert_eq!(shape(20, 100_000, 512, &H200), None); // not known: large k only
        assert_eq!(shape(24, 100_000, 2048, &H200), Some((5, 640)));
        // 32 rows: 8-block clusters are 30 held, so 7 of 448 threads (32 held), at any k
        assert_eq!(shape(32, 100_000, 2048, &h100), Some((7, 448)));
        assert_eq!(shape(32, 100_000, 512, &h100), Some((7, 448)));
        // 33 rows: none runs at once; from k = M / 80 the most the SMs hold, below it none
        assert_eq!(shape(33, 100_000, 1250, &h100), Some((4, 800)));
        assert_eq!(shape(33, 100_000, 1249, &h100), None);
        // 64 rows of 65536: 8 blocks of 256 threads, four an SM, are 62 held; 2 of 1024, 66
        assert_eq!(shape(64, 65_536, 2048, &h100), Some((2, 1024)));
        assert_eq!(shape(40, 65_536, 2048, &h100), Some((8, 256)));
        assert_eq!(shape(48, 65_536, 2048, &h100), Some((8, 256)));
        assert_eq!(shape(64, 49_152, 2048, &h100), Some((6, 256)));
        // rows of their own length, k or hint: as plain rows
        let per_row = |n: usize, m: usize, k: usize| {
            let p = cluster_plan(&launch(n, m, k), &h100, PerRow).ok()?;
            Some((p.cluster, p.block))
        };
        assert_eq!(per_row(20, 100_000, 50), Some((8, 416)));
        assert_eq!(per_row(32, 100_000, 512), Some((7, 448)));
        assert_eq!(per_row(64, 65_536, 2048), Some((2, 1024)));
        let slots = crate::ClusterSlots::H100;
        assert_eq!((slots.held(0, 1), slots.held(4, 1), slots.held(17, 1)), (None, Some(30), None));
        assert_eq!((slots.held(8, 2), slots.held(8, 9)), (Some(30), Some(62)));
        let mut some = crate::ClusterSlots::UNKNOWN;
        some.0[0][4] = 30;
        assert_eq!(some.held(4, 3), Some(30)); // the most blocks an SM that is known
    }

    /// f32 rows of [`SHORT_CLUSTER_MIN_ROW`] to [`BLOCK_CLUSTER_ROW`], plain, candidates or
    /// rows of their own length, k or hint, take 8 blocks where every row's cluster runs at
    /// once; plain f32 rows from [`WIDE_PLAIN_MIN_ROW`] that do not narrow in a launch of their
    /// own, unsorted, take 16 where the wide shape holds them; 16-bit rows and the rest keep
    /// their shapes.
    #[test]
    fn plain_rows_take_the_cluster_sizes_measured_for_them() {
        let h100 = DeviceLimits::preset("h100").unwrap();
        let size = |l: Launch, rows| cluster_plan(&l, &h100, rows).ok().map(|p| p.cluster);
        let bf16 = |l: Launch| Launch { elem: ElemType::Bf16, ..l };
        assert_eq!(size(launch(1, 32_000, 1024), Plain), Some(8));
        assert_eq!(size(launch(1, 32_000, 1024), PerRow), Some(8));
        assert_eq!(size(launch(1, 32_000, 1024), Candidates), Some(8));
        assert_eq!(size(bf16(launch(1, 32_000, 1024)), Plain), Some(4));
        assert_eq!(size(launch(32, SHORT_CLUSTER_MIN_ROW, 20), Plain), Some(8));
        assert_eq!(size(launch(32, SHORT_CLUSTER_MIN_ROW - 1, 20), Plain), Some(3));
        assert_eq!(size(launch(8, BLOCK_CLUSTER_ROW + 1, 20), Plain), Some(5));
        // 8 blocks of 128 threads, four an SM: 62 clusters held
        assert_eq!(size(launch(62, 32_000, 64), Plain), Some(8));
        assert_eq!(size(launch(63, 32_000, 64), Plain), Some(4));
        // wide clusters from 65536 where k < M / 80 and the row does not narrow
        assert_eq!(size(launch(1, WIDE_PLAIN_MIN_ROW, 512), Plain), Some(16));
        assert_eq!(size(launch(1, WIDE_PLAIN_MIN_ROW - 1, 512), Plain), Some(8));
        assert_eq!(size(launch(1, 100_000, 1249), Plain), Some(16));
        assert_eq!(size(launch(1, 100_000, 1250), Plain), Some(16)); // guesses, wide too
        assert_eq!(size(launch(1, 100_000, 128), Plain), Some(8)); // narrows
        assert_eq!(size(launch(1, 65_536, 128), Plain), Some(16)); // too short to narrow
        assert_eq!(size(launch(1, 100_000, 1024), PerRow), Some(8));
        assert_eq!(size(launch(1, 100_000, 1024), Candidates), Some(8));
        assert_eq!(size(bf16(launch(1, 100_000, 1024)), Plain), Some(8));
        assert_eq!(size(launch(8, 100_000, 1024), Plain), Some(16));
        assert_eq!(size(launch(9, 100_000, 1024), Plain), Some(8)); // 16 blocks a row: 8 rows
        let sorted = Launch { sorted: true, ..launch(1, 100_000, 1024) };
        assert_eq!(size(sorted, Plain), Some(8));
        assert!(clusters(&launch(1, 100_000, 1024), &h100, Plain));
        assert!(clusters(&launch(1, 100_000, 1024), &h100, PerRow));
        // a device of portable clusters: 8 at most
        assert_eq!(cluster_plan(&launch(1, 100_000, 1024), &H200, Plain).unwrap().cluster, 8);
    }

    /// Exact f32 rows of at least [`CLUSTER_NARROW_MIN_ROW`] at small k narrow; the rest, and
    /// every approximate, 16-bit or integer launch, keep the plain kernel.
    #[test]
    fn long_f32_rows_of_small_k_narrow_in_a_launch_of_their_own() {
        let family = |l: &Launch| cluster_plan(l, &H200, Plain).unwrap().family();
        let p = cluster_plan(&launch(1, 100_000, 64), &H200, Plain).unwrap();
        assert_eq!((p.family(), p.narrows), (Family::ClusterRowsNarrow, true));
        assert!(p.dynamic_shared as usize >= 8 * CLUSTER_CAND_CAP);
        assert_eq!(p.unit.to_string(), "rtopk_cluster_rows_narrow");
        assert_eq!(family(&launch(16, 131_072, 1)), Family::ClusterRowsNarrow);
        assert_eq!(family(&launch(1, 100_000, 128)), Family::ClusterRowsNarrow);
        assert_eq!(family(&launch(1, 100_000, 129)), Family::ClusterRows);
        assert_eq!(family(&launch(1, CLUSTER_NARROW_MIN_ROW - 1, 20)), Family::ClusterRows);
        assert_eq!(family(&launch(1, CLUSTER_NARROW_MIN_ROW, 20)), Family::ClusterRowsNarrow);
        assert_eq!(family(&launch(8, 65_536, 20)), Family::ClusterRows);
        let approx = Bisect { max_iter: Some(4), ..Bisect::exact() };
        assert_eq!(
            family(&Launch { bisect: approx, ..launch(1, 100_000, 20) }),
            Family::ClusterRows
        );
        for elem in [ElemType::F16, ElemType::Bf16, ElemType::I32] {
            let p = cluster_plan(&Launch { elem, ..launch(1, 100_000, 20) }, &H200, Plain).unwrap();
            assert_eq!((p.family(), p.narrows), (Family::ClusterRows, false), "{elem:?}");
        }
    }

    #[test]
    fn every_block_of_a_cluster_holds_part_of_the_row() {
        let mut planned = 0;
        for m in [8193, 9000, 16_384, 50_000, 100_000, 163_840, 200_001, 262_144] {
            for n in [1, 2, 16] {
                let p = cluster_plan(&launch(n, m, 1), &H200, Plain).unwrap();
                planned += 1;
                let span = BLOCK_EPL * p.block as usize;
                let size = p.cluster as usize;
                assert!(span * size >= m && span * (size - 1) < m, "M={m}");
                assert!((2..=8).contains(&size) && p.block % 32 == 0 && p.block <= 1024);
                assert_eq!(p.grid as usize, n * size);
            }
        }
        assert_eq!(planned, 24);
        // past the cluster's registers, or more clusters than SMs: none
        assert!(cluster_plan(&launch(1, 8 * 32 * 1024 + 1, 1), &H200, Plain).is_err());
        assert!(cluster_plan(&launch(17, 100_000, 1), &H200, Plain).is_err());
    }
}
