//! The launch plan: which kernel runs a launch, in what grid, with what shared memory, and how
//! its results are sorted — a pure function of the shape, the search, the device's limits and
//! the caller's [`Strategy`], so that every regime is tested on the CPU.
//!
//! The default ([`Strategy::Auto`]), by row width M (and k):
//! * `M <= 256`: four rows per warp (8 lanes each) when `k <= M / 4` and there are at least
//!   1024 rows per SM, else two (16 lanes each). Four rows share the bracket arithmetic, but
//!   each lane holds twice the keys of a half-warp's and the four rows' selections serialise,
//!   so larger k, and inputs too small to fill the SMs many times over, are faster with two
//!   rows per warp.
//! * `M <= 1024`, and `M <= 3072` when `k <= M / 8`: one warp per row (up to 96 keys per
//!   lane). Wider rows, and rows past 1024 with more results, go to the block kernel: one warp
//!   serialises the selection of many results, and at M = 4096 one warp with 128 keys per lane
//!   was no faster than the block kernel.
//! * otherwise one block of ⌈M/32⌉ threads (64 to 1024) per row, 32 keys per thread in
//!   registers, the rest in shared memory as far as the device's opt-in limit allows (re-keyed
//!   from the input beyond that). In exact mode with `k < 512` a block row of
//!   `3073 <= M <= 8192` (4 to 8 warps) narrows to its candidates (`rtopk_block_rows_narrow`).
//!
//! A warp-row kernel picks the narrowest instantiation that holds the row: ⌈M / lanes⌉ keys per
//! lane. Whole-warp rows of 12 to 32 keys per lane narrow in exact mode when `k < 128`
//! (docs/kernel.md, "Narrowing"). Sorted output is a second launch: one warp per row in
//! registers for `k <= 1024`, one block per row beyond.
//!
//! 16-bit rows (f16, bf16) keep two elements per register, so the part-warp bounds above are
//! bounds on registers: a 16-bit row of up to 512 takes four rows per warp (k <= M / 4, enough
//! rows; past 256, k <= M / 8: [`QUARTER_WIDE16_WORDS`]) or two, with twice an f32 row's
//! elements per lane — the per-count work of a lane (one packed compare per two elements, one
//! add per four) then serves twice the row, and the bracket
//! arithmetic twice the rows. Measured past that bound, 16-bit rows of up to 768 take two rows
//! per warp too ([`MAX_HALF_WARP_ROW16`]). Warps and blocks are chosen by elements as for f32
//! (their bounds are about the selection, which one warp serialises); a warp row's
//! instantiation is the one of half the registers.

use std::ops::RangeInclusive;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use topk_ref::{Bisect, EpsilonMode, Mode, TopKError, check_shape};

use crate::error::PlanError;
pub use crate::strategy::Strategy;
use crate::units::{
    BLOCK_CAND_CAP, BLOCK_EPL, BLOCK_LOAD_STAGE_WARP, BLOCK_ROWS_BOUNDS, BLOCK_ROWS_NARROW_BOUNDS,
    BLOCK_STATIC_SHARED, CAND_CAP, ElemType, Family, SORT_WARP_WIDTHS, SORT_WARPS, Unit,
    sort_warp_shape,
};

/// Widest row on one warp when `k <= M / 8` (32 lanes × 96 keys).
pub const MAX_WARP_ROW: usize = 3072;
/// Rows up to this width take a warp-row kernel whatever k is.
pub const MAX_BLOCK_FREE_ROW: usize = 1024;
/// Widest row on a half-warp (two rows per warp) by default, in registers per row.
pub const MAX_HALF_WARP_ROW: usize = 256;
/// Widest 16-bit row on a half-warp by default (24 registers per lane): at M = 768 half-warp
/// rows were 16–21 % (f16) and 4–5 % (bf16) faster than whole-warp rows for k = 16…96, and
/// even at k = 128 (results/cuda/2026-11-24-dtypes16-planned-h100, experiments/m768).
pub const MAX_HALF_WARP_ROW16: usize = 768;
/// Widest row on a quarter-warp (four rows per warp) by default, where `k <= M / 4`, in
/// registers per row.
pub const MAX_QUARTER_WARP_ROW: usize = 256;
/// 16-bit rows of more registers than this (M > 256) take four rows per warp only where
/// `k <= M / 8`: on an H200 at N = 2^20, M = 512, two rows per warp took 0.80 (f16) and 0.88
/// (bf16) of the quarter-warp rows' time at k = 128, 0.87 and 0.96 at k = 96, and 0.99 and 1.10
/// at k = 64 (docs/performance.md, "16-bit rows are bound by their instructions").
pub const QUARTER_WIDE16_WORDS: usize = 128;
/// Rows per SM from which quarter-warp rows pay.
pub const QUARTER_ROWS_PER_SM: usize = 1024;
/// Block rows that narrow in exact mode where `k <` [`BLOCK_CAND_CAP`] (blocks of 4 to 8
/// warps, the whole row in registers): on 2 or 3 warps one warp saves little of the search and
/// selects more slowly, and on wider blocks the SM idles while one warp finishes.
pub const BLOCK_NARROW_ROWS: RangeInclusive<usize> = 3073..=8192;
/// Most threads per block of the block-row kernel.
const BLOCK_THREADS: usize = BLOCK_ROWS_BOUNDS.0 as usize;
/// Longest (power-of-two padded) row the block sort keeps in shared memory within the default
/// 48 KiB: 32 KiB of 8-byte ranks. Where the device's opt-in limit is known, rows up to what it
/// holds ([`sort_shared_most`]); longer rows are sorted in place in global memory (L2).
pub const SORT_SHARED_MAX: usize = 4096;
/// Most k the warp sort takes on few rows: past it one warp's compare-exchange network over
/// 16 or 32 results a lane outlasts a block's over shared memory. On an H200 the block sort took
/// 0.46-0.93x the warp sort's sorted call at 1-512 rows of k = 300, 512 and 1024 (4096 to
/// 128256 wide), 1.00x at 2048 rows and 1.01-1.11x at 8192 (docs/performance.md, "Sorted
/// output on few rows").
pub const SORT_BLOCK_MIN_K: usize = 256;
/// Rows per SM up to which k past [`SORT_BLOCK_MIN_K`] takes the block sort.
pub const SORT_BLOCK_ROWS_PER_SM: usize = 8;
/// Positions a thread of the block sort holds in registers where the row's ranks fit shared
/// memory and pad to at least [`SORT_BLOCK_REGISTERS_MIN`] (`SORT_BLOCK_EPL` of
/// kernels/sort_rows.cu): the steps within a warp's 32 of them run in registers and shuffles,
/// only the others through shared memory between barriers.
pub const SORT_BLOCK_EPL: usize = 8;
/// Positions from which the block sort holds a row in registers ([`SORT_BLOCK_EPL`] a
/// thread); below, one thread per compare-exchange of a step over shared memory. On an H200
/// (results/cuda/2026-11-30-block-sort-h200) the registers took one row's sort of 2048 from
/// 28.4 to 21.7 µs and of 4096 from 58.1 to 35.9 (Nsight Compute, cold caches), while at 512
/// and 1024 positions sorted calls of 1-512 rows took 0.93-1.05x their time.
pub const SORT_BLOCK_REGISTERS_MIN: usize = 2048;
/// Most positions the block sort holds in registers: [`SORT_BLOCK_EPL`] a thread of a block of
/// 1024. Longer rows in shared memory take one thread per compare-exchange of a step.
pub const SORT_BLOCK_REGISTERS_MAX: usize = 1024 * SORT_BLOCK_EPL;
/// Most k the rank sort takes (`sort_rank_row` of kernels/sort_rank.cuh: each of a row's k
/// results counts the ranks below its own, over a thread-block cluster whose every block holds
/// the row's k ranks in shared memory): its k^2 compares outgrow one block's network past it.
/// On an H200 (results/cuda/2026-12-04-rank-sort-h200) the rank sort took 0.53-0.61x the block
/// sort's kernel time on one row of k = 300…2048, and 1.02x at k = 4096.
pub const SORT_RANK_MAX: usize = 2048;
/// Most results (rows times k) the rank sort takes: past it the clusters share SMs. On an
/// H200 8 rows of k = 1024 took 0.69x the block sort's time, 8 of k = 2048 1.14x.
pub const SORT_RANK_RESULTS: usize = 8192;
/// Blocks per row of the rank sort, at most (the device's `max_cluster` where smaller): one
/// cluster a row, each block counting the ranks of k / parts of its results.
pub const SORT_RANK_PARTS: usize = 16;
/// Threads per block of the rank sort, at most.
pub const SORT_RANK_THREADS: usize = 1024;
/// Threads per block of any launch of `rtopk_sort_rows` (the block, rank and merge sorts), at
/// most: CUDA's limit, and the entry point's launch bound (kernels/sort_rows.cu), which holds
/// ptxas to 64 registers a thread so that a block of that many fits an SM's 65536. Unbounded,
/// the 16-bit instantiations took 68-72 registers and every launch of more than 896 threads
/// failed (`CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`).
pub const SORT_MAX_THREADS: usize = 1024;
/// Results a slot of the rank sort's lanes holds and counts at once (`SORT_RANK_HELD` of
/// kernels/sort_rank.cuh): each rank read from shared memory is compared with all of them.
pub const SORT_RANK_HELD: usize = 4;
/// Fewest positions a block of the merge sort sorts (kernels/sort_merge.cuh: a cluster of
/// blocks a row, each block's run sorted in registers as the block sort's, then every result
/// placed by binary searches of the other runs): the block sort's narrowest register row, so
/// that a longer row spreads over more SMs before its runs grow.
pub const SORT_MERGE_PER_MIN: usize = SORT_BLOCK_REGISTERS_MIN;
/// Most k the merge sort leaves to the block sort: on an H100 (results/cuda/2026-12-07-merge-
/// sort-h100) one row of k = 2049 took 1.03x the block sort's time and one of 4096 1.00x on
/// two runs of 2048, while from k = 4097 sorted calls took 0.09-0.97x theirs.
pub const SORT_MERGE_MIN_K: usize = 4096;

/// What the plan needs to know of the device (rtopk-cuda reads it from the device; the
/// simulator takes an H100's unless told otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceLimits {
    /// Streaming multiprocessors.
    pub sm_count: usize,
    /// Shared memory a block may opt in to, in bytes.
    pub shared_optin_bytes: usize,
    /// Blocks per thread-block cluster the device launches: 1 where it launches none (compute
    /// capability below 9.0), [`crate::cluster::WIDE_CLUSTER`] on 9.x, else
    /// [`crate::cluster::PORTABLE_CLUSTER`] ([`crate::cluster::max_cluster_of`]).
    pub max_cluster: usize,
    /// How many clusters of each size the device holds at once ([`ClusterSlots`]).
    pub cluster_slots: ClusterSlots,
}

/// Clusters of `s` blocks that the device holds at once, where `p` blocks share an SM, by `p`
/// (1 to [`ClusterSlots::PER_SM`]) and `s` (1 to [`crate::cluster::WIDE_CLUSTER`]); 0 where not
/// known. Read from the driver (cuOccupancyMaxActiveClusters; CUDA Driver API, "Occupancy"). A
/// cluster's blocks run on one GPU processing cluster (GPC), and GPCs are neither alike nor
/// multiples of every size, so the count can be less than `p · sm_count / s`: an H100 SXM of
/// 132 SMs holds 30 clusters of 4 blocks that each take a whole SM and 15 of 8, not 33 and 16,
/// and 30 of 8 blocks two to an SM, not 33 (results/cuda/2026-12-06-hist32-h100, `b/probe.txt`,
/// `d/probe.txt`). A launch of more clusters than that runs the rest in a second wave, at twice
/// the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterSlots(pub [[u16; 17]; ClusterSlots::PER_SM]);

impl ClusterSlots {
    /// The most blocks an SM shares that the slots tell apart.
    pub const PER_SM: usize = 4;
    /// Nothing known: the plan takes `sm_count / s` ([`DeviceLimits::clusters_held`]).
    pub const UNKNOWN: ClusterSlots = ClusterSlots([[0; 17]; ClusterSlots::PER_SM]);
    /// What one H100 80GB HBM3 (SXM) holds (results/cuda/2026-12-06-hist32-h100, `b/probe.txt`,
    /// `d/probe.txt`, `e/probe.txt`).
    pub const H100: ClusterSlots = ClusterSlots([
        [0, 132, 66, 39, 30, 22, 17, 15, 15, 9, 7, 7, 7, 7, 7, 7, 7],
        [0, 264, 132, 79, 62, 47, 39, 32, 30, 23, 21, 16, 16, 14, 14, 14, 14],
        [0, 396, 198, 124, 92, 69, 62, 47, 45, 37, 30, 28, 28, 23, 21, 21, 21],
        [0, 528, 264, 163, 124, 94, 79, 69, 62, 51, 44, 37, 37, 30, 30, 28, 28],
    ]);

    /// Clusters of `size` blocks, `per` of which share an SM, held at once, where known (the
    /// figure of the most blocks an SM, at most `per`, that is known).
    pub fn held(&self, size: usize, per: usize) -> Option<usize> {
        let known = |p: usize| self.0[p - 1].get(size).map(|&c| usize::from(c)).filter(|&c| c > 0);
        (1..=per.min(Self::PER_SM)).rev().find_map(known)
    }
}

/// The devices whose limits the plan knows without one at hand, by name (NVIDIA's published
/// figures: the SXM boards' SM counts, and the shared memory a block may opt in to — 163 KiB on
/// compute capability 8.0, 227 KiB on 9.0; CUDA C++ Programming Guide, "Features and Technical
/// Specifications").
/// The H100's clusters held at once are one board's, measured ([`ClusterSlots::H100`]); the
/// others are not known (an H200's GPCs are the same chip's, but which SMs a board lost differs
/// from board to board), and a live device reads its own.
pub const PRESETS: [(&str, DeviceLimits); 3] = [
    ("a100", DeviceLimits { sm_count: 108, shared_optin_bytes: 163 * 1024, ..UNKNOWN_CLUSTERS }),
    ("h100", DeviceLimits { cluster_slots: ClusterSlots::H100, ..HOPPER }),
    ("h200", HOPPER),
];
/// A device of no clusters whose slots are not known ([`PRESETS`]' base).
const UNKNOWN_CLUSTERS: DeviceLimits = DeviceLimits {
    sm_count: 1,
    shared_optin_bytes: 0,
    max_cluster: 1,
    cluster_slots: ClusterSlots::UNKNOWN,
};
/// 132 SMs of compute capability 9.0 (H100 and H200 SXM), their clusters' slots not known.
const HOPPER: DeviceLimits = DeviceLimits {
    sm_count: 132,
    shared_optin_bytes: 227 * 1024,
    max_cluster: 16,
    cluster_slots: ClusterSlots::UNKNOWN,
};

impl DeviceLimits {
    /// The limits of the device named `name` (`a100`, `h100`, `h200`; [`PRESETS`]), any case.
    pub fn preset(name: &str) -> Option<DeviceLimits> {
        PRESETS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, l)| *l)
    }

    /// The names [`DeviceLimits::preset`] knows.
    pub fn preset_names() -> Vec<&'static str> {
        PRESETS.iter().map(|(n, _)| *n).collect()
    }

    /// Clusters of `size` blocks, `per` of which share an SM, that the device holds at once:
    /// its [`ClusterSlots`] where known, else one block an SM, as many as the SMs hold.
    pub fn clusters_held(&self, size: usize, per: usize) -> usize {
        self.cluster_slots.held(size, per).unwrap_or(self.sm_count / size.max(1))
    }

    /// Keys of a block row that fit shared memory past the block kernel's static shared memory.
    pub fn cached_keys_cap(&self) -> usize {
        self.shared_optin_bytes.saturating_sub(BLOCK_STATIC_SHARED) / 4
    }
}

/// One row-wise top-k launch (everything but the buffers).
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
    /// Largest or smallest.
    pub mode: Mode,
    /// Exact, with a precision, or early stopping (topk-ref's [`Bisect`]).
    pub bisect: Bisect,
    /// Each row's results in sorted order (docs/contract.md §1: the mode's value order, ties by index)
    /// instead of index order: a second launch sorts them on the device.
    pub sorted: bool,
    /// The element type: a 16-bit row packs two elements per register, so it fits a
    /// warp-row instantiation of half the registers per lane (the module's documentation).
    pub elem: ElemType,
}

/// A launch is written as its shape and search: `n`, `m`, `k`, `mode` (`largest` or
/// `smallest`), `sorted`, `elem`, `max_iter` (null: the exact search), `precision` and
/// `recall` (null: none).
impl Serialize for Launch {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Launch", 9)?;
        st.serialize_field("n", &self.n)?;
        st.serialize_field("m", &self.m)?;
        st.serialize_field("k", &self.k)?;
        let mode = match self.mode {
            Mode::Largest => "largest",
            Mode::Smallest => "smallest",
        };
        st.serialize_field("mode", mode)?;
        st.serialize_field("sorted", &self.sorted)?;
        st.serialize_field("elem", &self.elem)?;
        st.serialize_field("max_iter", &self.bisect.max_iter)?;
        st.serialize_field("precision", &self.bisect.precision)?;
        st.serialize_field("recall", &self.bisect.recall)?;
        st.end()
    }
}

/// How the top-k kernel is launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The kernel (its family and width).
    pub unit: Unit,
    /// Keys each lane (thread, for the block kernels) keeps in registers.
    pub keys_per_lane: usize,
    /// Lanes per row: 8, 16 or 32 for the warp-row families, the block's threads for the block
    /// kernels.
    pub lanes_per_row: usize,
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared: u32,
    /// Keys of each block row held in shared memory past the registers.
    pub cached_keys: u32,
    /// Whether the rows narrow to their candidates (docs/kernel.md, "Narrowing").
    pub narrows: bool,
    /// Whether f32 block rows held in registers may search from their value bins
    /// (docs/kernel.md, "Value bins"; the kernel adds the request's own conditions): launches
    /// of at most [`VALUE_BINS_GRID`] blocks.
    pub value_bins: bool,
    /// The sort launch, with sorted output and k > 1.
    pub sort: Option<SortPlan>,
    /// Blocks per thread-block cluster: 1, or a cluster row's blocks (crate::cluster).
    pub cluster: u32,
}

impl Plan {
    /// The launch family.
    pub fn family(&self) -> Family {
        self.unit.family()
    }

    /// Lanes per row where several rows share a warp's launch (the warp-row families, the pick
    /// rows, whose units differ, and the wide rows); `None` where a row takes a block or more.
    pub fn row_lanes(&self) -> Option<usize> {
        match self.family() {
            Family::PickRows => Some(self.lanes_per_row),
            family => family.lanes(),
        }
    }

    /// The units the launch runs: the top-k kernel's and the sort's.
    pub fn units(&self) -> Vec<Unit> {
        std::iter::once(self.unit).chain(self.sort.map(|s| s.unit)).collect()
    }
}

/// How the sorted output's launch covers the rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SortPlan {
    /// The sort kernel.
    pub unit: Unit,
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared: u32,
    /// The block sort's shape (k > 1024), `None` for the warp sorts.
    pub shape: Option<SortShape>,
}

/// Most positions (a power of two) the block sort keeps in shared memory, 8 bytes each: what the
/// device's opt-in shared memory holds past [`BLOCK_STATIC_SHARED`], at least
/// [`SORT_SHARED_MAX`] (within the default 48 KiB where the limit is not known). On an H100
/// or H200, 16384. A row in shared memory pays a barrier a step of its network; one sorted in
/// place in global memory also goes through L2 at every compare-exchange.
pub fn sort_shared_most(limits: &DeviceLimits) -> usize {
    let ranks = limits.shared_optin_bytes.saturating_sub(BLOCK_STATIC_SHARED) / 8;
    let most = if ranks == 0 { 0 } else { 1usize << ranks.ilog2() };
    most.max(SORT_SHARED_MAX)
}

/// How the block sort (rows of k > [`SORT_BLOCK_MIN_K`] results, one block each) covers a row:
/// `pow2` = k rounded up to a power of two, `row_threads` threads, `in_shared` false for rows
/// sorted in place in global memory; or, where `parts > 1`, how the rank sort does (a cluster
/// of `parts` blocks of `row_threads` threads a row, the ranks in shared memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SortShape {
    /// k rounded up to a power of two.
    pub pow2: u32,
    /// Threads per row (one block per row), or per block of the rank sort.
    pub row_threads: u32,
    /// Whether the row's ranks sit in shared memory (else in place in global memory).
    pub in_shared: bool,
    /// Blocks per row: 1 for the block sort, the cluster's blocks for the rank sort and the
    /// merge sort.
    pub parts: u32,
    /// The merge sort: a cluster of `parts` blocks a row, each sorting `pow2 / parts` positions
    /// (`row_threads` threads, [`SORT_BLOCK_EPL`] positions a thread) and placing them by
    /// binary searches of the other blocks' runs.
    pub merges: bool,
}

impl SortShape {
    /// The block sort's shape for rows of `k` results (`k <= 2^31`): in shared memory up to
    /// [`sort_shared_most`] positions, from [`SORT_BLOCK_REGISTERS_MIN`] to
    /// [`SORT_BLOCK_REGISTERS_MAX`] in registers, [`SORT_BLOCK_EPL`] a thread; else one thread
    /// per compare-exchange of a step, up to 512 (rows of [`SORT_SHARED_MAX`] or fewer) or 1024.
    fn for_k(k: usize, limits: &DeviceLimits) -> (Self, u32) {
        let pow2 = k.next_power_of_two();
        let in_shared = pow2 <= sort_shared_most(limits);
        let in_registers =
            in_shared && (SORT_BLOCK_REGISTERS_MIN..=SORT_BLOCK_REGISTERS_MAX).contains(&pow2);
        let row_threads = if in_registers {
            pow2 / SORT_BLOCK_EPL
        } else {
            (pow2 / 2).clamp(1, if pow2 <= SORT_SHARED_MAX { 512 } else { 1024 })
        };
        let smem = if in_shared { pow2 * 8 } else { 0 };
        let u = |v: usize| v as u32; // all <= 2^31 for k <= 2^31 (checked by the caller)
        let shape =
            Self { pow2: u(pow2), row_threads: u(row_threads), in_shared, parts: 1, merges: false };
        (shape, u(smem))
    }

    /// The rank sort's shape for rows of `k <=` [`SORT_RANK_MAX`] results over clusters of
    /// `parts` blocks (at most [`SORT_RANK_THREADS`] slots a block): each block counts the
    /// ranks of `per = ⌈k / parts⌉` results, [`SORT_RANK_HELD`] a slot of [`sort_rank_lanes`]
    /// lanes, and holds the row's k ranks (and one past them, so that the count reads pairs) in
    /// shared memory.
    fn rank_for_k(k: usize, parts: usize) -> (Self, u32) {
        let slots = rank_slots(k, parts);
        let threads = (slots * sort_rank_lanes(slots)).next_multiple_of(32);
        let u = |v: usize| v as u32; // k <= SORT_RANK_MAX
        let shape = Self {
            pow2: u(k.next_power_of_two()),
            row_threads: u(threads),
            in_shared: true,
            parts: u(parts),
            merges: false,
        };
        (shape, u((k + 1).next_multiple_of(2) * 8))
    }

    /// The merge sort's shape for `n` rows of `k >` [`SORT_MERGE_MIN_K`] results on a device
    /// of `limits`, where it has one: runs of `per = pow2 / parts` positions, the shortest from
    /// [`SORT_MERGE_PER_MIN`] up to [`SORT_BLOCK_REGISTERS_MAX`] whose `parts` blocks a row
    /// (at least two, at most the device's cluster) the SMs hold for every row at once. Each
    /// block holds its run (and then, one at a time, each other block's) in shared memory.
    fn merge_for_k(n: usize, k: usize, limits: &DeviceLimits) -> Option<(Self, u32)> {
        if k <= SORT_MERGE_MIN_K {
            return None;
        }
        let pow2 = k.checked_next_power_of_two()?;
        let mut per = (pow2 / limits.max_cluster.max(1)).max(SORT_MERGE_PER_MIN);
        while n.saturating_mul(pow2 / per) > limits.sm_count && per < SORT_BLOCK_REGISTERS_MAX {
            per *= 2;
        }
        let parts = pow2 / per;
        let fits = n.saturating_mul(parts) <= limits.sm_count;
        if parts < 2 || per > SORT_BLOCK_REGISTERS_MAX || !fits {
            return None;
        }
        let u = |v: usize| v as u32; // pow2 <= 2^17 here
        let shape = Self {
            pow2: u(pow2),
            row_threads: u(per / SORT_BLOCK_EPL),
            in_shared: true,
            parts: u(parts),
            merges: true,
        };
        Some((shape, u(per * 8)))
    }
}

/// Slots of lanes a block of the rank sort has for rows of `k` results over `parts` blocks:
/// one for every [`SORT_RANK_HELD`] of the block's `⌈k / parts⌉` results.
fn rank_slots(k: usize, parts: usize) -> usize {
    k.div_ceil(parts.max(1)).div_ceil(SORT_RANK_HELD)
}

/// Lanes that count one slot's ranks in the rank sort (kernels/sort_rank.cuh): the most, a
/// power of two up to 32, whose `slots` slots fit [`SORT_RANK_THREADS`] threads. The kernel
/// takes it the same way (`sort_rank_lanes`).
pub fn sort_rank_lanes(slots: usize) -> usize {
    let mut lanes = 32;
    while lanes > 1 && slots * lanes > SORT_RANK_THREADS {
        lanes /= 2;
    }
    lanes
}

/// The launch plan of `launch` on a device of `limits` with `strategy`.
///
/// Errors: a shape topk-ref refuses (k > M, M = 0, a bad search), a forced strategy that
/// cannot hold the row ([`PlanError::Strategy`]), and shapes past the kernels' index types or
/// the grid's limits ([`PlanError::TooLarge`]). `n = 0` or `k = 0` plan a launch that the
/// launcher skips (nothing to compute).
pub fn plan(launch: &Launch, limits: &DeviceLimits, strategy: Strategy) -> Result<Plan, PlanError> {
    let Launch { n, m, k, bisect, elem, .. } = *launch;
    check_shape(m, k)?;
    bisect.validate()?;
    if bisect.precision > 0.0 && bisect.epsilon_mode != EpsilonMode::RelativeToMax {
        return Err(PlanError::TopK(TopKError::InvalidParameter {
            name: "epsilon",
            reason: "the CUDA kernel takes the precision relative to |max| only".into(),
        }));
    }
    if elem.wide() {
        return crate::wide::wide_plan(launch, strategy);
    }
    if m > strategy.max_row(elem) {
        return Err(PlanError::Strategy { strategy, m, max_row: strategy.max_row(elem) });
    }
    let exact = bisect.max_iter.is_none();
    let lanes = match strategy {
        Strategy::Auto | Strategy::Split | Strategy::Radix => auto_lanes(n, m, k, elem, limits),
        Strategy::Quarter => Some(8),
        Strategy::Half => Some(16),
        Strategy::Warp => Some(32),
        Strategy::Block => None,
    };
    let mut plan = match lanes {
        Some(lanes) => warp_rows(n, m, k, lanes, elem, exact, strategy)?,
        None => block_rows(n, m, k, exact, elem, limits)?,
    };
    plan.sort = sort_of(launch, limits)?;
    Ok(Plan { unit: plan.unit.with_elem(elem), ..plan })
}

/// The sort launch of `launch`: with sorted output and k > 1, of its element type.
pub(crate) fn sort_of(
    launch: &Launch,
    limits: &DeviceLimits,
) -> Result<Option<SortPlan>, PlanError> {
    let Launch { n, m, k, sorted, elem, .. } = *launch;
    if !(sorted && k > 1) {
        return Ok(None);
    }
    let sort = sort_plan(n, m, k, limits)?;
    Ok(Some(SortPlan { unit: sort.unit.with_elem(elem), ..sort }))
}

/// The defaults' lanes per row: 8 (four rows per warp), 16 (two) or 32, or `None` for a block
/// per row. Part-warp rows are chosen by the registers a lane needs (a 16-bit row needs half an
/// f32 row's); warps and blocks by the elements, whose selection one warp serialises.
fn auto_lanes(
    n: usize,
    m: usize,
    k: usize,
    elem: ElemType,
    limits: &DeviceLimits,
) -> Option<usize> {
    let warp = m <= MAX_BLOCK_FREE_ROW || (m <= MAX_WARP_ROW && k.saturating_mul(8) <= m);
    if !warp {
        return None;
    }
    let words = m.div_ceil(elem.per_word());
    let quarter_min_rows = QUARTER_ROWS_PER_SM.saturating_mul(limits.sm_count);
    let quarter = words <= MAX_QUARTER_WARP_ROW
        && k.saturating_mul(4) <= m
        && n >= quarter_min_rows
        && !(elem.packed16() && words > QUARTER_WIDE16_WORDS && k.saturating_mul(8) > m);
    Some(if quarter {
        8
    } else if words <= MAX_HALF_WARP_ROW || (elem.packed16() && m <= MAX_HALF_WARP_ROW16) {
        16
    } else {
        32
    })
}

/// Rows of `lanes` lanes, in the narrowest instantiation that holds the row.
fn warp_rows(
    n: usize,
    m: usize,
    k: usize,
    lanes: usize,
    elem: ElemType,
    exact: bool,
    strategy: Strategy,
) -> Result<Plan, PlanError> {
    let family = match lanes {
        8 => Family::QuarterRows,
        16 => Family::HalfRows,
        _ => Family::WarpRows,
    };
    let need = m.div_ceil(lanes);
    let per_word = elem.per_word();
    let widths = family.widths();
    let which =
        widths.iter().position(|w| w.epl * per_word >= need).ok_or(PlanError::Strategy {
            strategy,
            m,
            max_row: lanes * widths.last().map_or(0, |w| w.epl) * per_word,
        })?;
    let w = widths[which];
    let epl = w.epl * per_word;
    let rows_per_block = w.warps as usize * 32 / lanes;
    let grid = u32::try_from(n.div_ceil(rows_per_block)).map_err(|_| PlanError::TooLarge {
        n,
        m,
        why: "more than 2^32 blocks",
    })?;
    Ok(Plan {
        unit: Unit::row(family, which),
        keys_per_lane: epl,
        lanes_per_row: lanes,
        grid,
        block: w.warps * 32,
        dynamic_shared: 0, // the row lives in registers only
        cached_keys: 0,
        // by elements per lane, as the kernel's template decides (rtopk_warp_rows_impl)
        narrows: lanes == 32 && (12..=32).contains(&epl) && exact && k < CAND_CAP,
        value_bins: false,
        sort: None,
        cluster: 1,
    })
}

/// The least block that stages its loads in any launch (rows past 15360), and the most blocks
/// a launch of smaller blocks stages them in. On an H200 staging took blocks of 16 and 32 warps
/// 3–15 % below the direct loads on every shape measured (1 to 16384 rows); staging every block
/// row took the few-row grids' cells (chunks and second stages of 2 to 15 warps) 0.93–1.00 of
/// their time, while on 65536 rows of 2048 to 8192 (2 to 8 warps a block) it ranged from 14 %
/// faster to 8 % slower by k: launches of small blocks past a couple of waves load directly
/// (docs/performance.md, "Few rows").
pub const BLOCK_STAGED_THREADS: usize = 512;
/// See [`BLOCK_STAGED_THREADS`].
pub const BLOCK_STAGED_GRID: usize = 2048;

/// Bytes of dynamic shared memory a launch of `blocks` blocks of `threads` stages its loads
/// through ([`BLOCK_LOAD_STAGE_WARP`] a warp), or 0 where it loads directly (the kernel reads
/// the size it was given): rows of other elements than f32 (the kernel stages f32 rows only;
/// the memory would only cost them occupancy), smaller blocks in larger launches
/// ([`BLOCK_STAGED_THREADS`]), and where the device's opt-in limit leaves too little.
pub(crate) fn block_load_stage(
    blocks: usize,
    threads: usize,
    elem: ElemType,
    limits: &DeviceLimits,
) -> u32 {
    let bytes = threads / 32 * BLOCK_LOAD_STAGE_WARP; // <= 32 warps of 4 KB
    let fits = BLOCK_STATIC_SHARED + bytes <= limits.shared_optin_bytes;
    let pays = threads >= BLOCK_STAGED_THREADS || blocks <= BLOCK_STAGED_GRID;
    if elem == ElemType::F32 && pays && fits { bytes as u32 } else { 0 }
}

/// The most blocks of a block-row launch whose f32 rows search from their value bins
/// (docs/kernel.md, "Value bins"). Where a launch holds few rows, a row's time is its search's
/// rounds, each a barrier's latency, and the bins took 0.905-1.003 of the time (splits of 32
/// to 256 rows, 96 to 16384 whole rows); over 65536 rows of 4096 and 8192 (Appendix B, k = 512) other
/// blocks hide the rounds' latency and the bins' pass cost 5 % (H100, docs/performance.md,
/// "Value bins").
pub const VALUE_BINS_GRID: usize = 16_384;

/// One block per row: ⌈M/32⌉ threads (64 to 1024), 32 keys each in registers, then shared
/// memory.
fn block_rows(
    n: usize,
    m: usize,
    k: usize,
    exact: bool,
    elem: ElemType,
    limits: &DeviceLimits,
) -> Result<Plan, PlanError> {
    let grid = u32::try_from(n)
        .ok()
        .filter(|&b| b < i32::MAX as u32)
        .ok_or(PlanError::TooLarge { n, m, why: "more than 2^31 - 1 rows" })?;
    u32::try_from(m).map_err(|_| PlanError::TooLarge { n, m, why: "M >= 2^32" })?;
    let threads = m.div_ceil(BLOCK_EPL).next_multiple_of(32).clamp(64, BLOCK_THREADS);
    // Registers hold the first BLOCK_EPL * threads elements, shared memory as many of the
    // rest as fit.
    let in_regs = m.min(BLOCK_EPL * threads);
    let cached = (m - in_regs).min(limits.cached_keys_cap()) as u32;
    let narrows = exact && k < BLOCK_CAND_CAP && BLOCK_NARROW_ROWS.contains(&m);
    // the narrowing kernel needs the row in registers, in blocks within its launch bound
    debug_assert!(!narrows || (cached == 0 && threads <= BLOCK_ROWS_NARROW_BOUNDS.0 as usize));
    let family = if narrows { Family::BlockRowsNarrow } else { Family::BlockRows };
    let value_bins = elem == ElemType::F32 && !narrows && in_regs == m && n <= VALUE_BINS_GRID;
    Ok(Plan {
        unit: Unit::single(family),
        keys_per_lane: BLOCK_EPL,
        lanes_per_row: threads,
        grid,
        block: threads as u32,
        dynamic_shared: (cached * 4).max(block_load_stage(n, threads, elem, limits)),
        cached_keys: cached,
        narrows,
        value_bins,
        sort: None,
        cluster: 1,
    })
}

/// The sort launch for rows of `k > 1` results: one warp per row in registers for k <= 1024,
/// E = k/32 rounded up to a power of two results per lane; one block per row beyond, and for
/// k > [`SORT_BLOCK_MIN_K`] on few rows (at most [`SORT_BLOCK_ROWS_PER_SM`] per SM) — or,
/// where the device launches clusters, k <= [`SORT_RANK_MAX`] and the rows' clusters fit the
/// SMs at once, the rank sort: a cluster of [`SORT_RANK_PARTS`] blocks a row, whose k^2
/// compares spread over those SMs finish before one block's network (docs/kernel.md, "The rank
/// sort"); past [`SORT_MERGE_MIN_K`], where a row's `pow2` positions make runs of
/// [`SORT_MERGE_PER_MIN`] to [`SORT_BLOCK_REGISTERS_MAX`] on a cluster the device launches and
/// the rows' clusters fit the SMs at once (`SortShape::merge_for_k`), the merge sort
/// (docs/kernel.md, "The merge sort"), whose runs sort on `parts` SMs where one block's network
/// would sort them all on one.
fn sort_plan(n: usize, m: usize, k: usize, limits: &DeviceLimits) -> Result<SortPlan, PlanError> {
    let too_many = PlanError::TooLarge { n, m, why: "more than 2^31 - 1 blocks to sort" };
    let widest = SORT_WARP_WIDTHS[SORT_WARP_WIDTHS.len() - 1];
    let few_rows = n <= SORT_BLOCK_ROWS_PER_SM.saturating_mul(limits.sm_count);
    if k <= widest && !(k > SORT_BLOCK_MIN_K && few_rows) {
        let width = k.next_power_of_two().max(SORT_WARP_WIDTHS[0]);
        let rows_per_block = SORT_WARPS as usize * 32 / sort_warp_shape(width).0;
        let grid = u32::try_from(n.div_ceil(rows_per_block))
            .ok()
            .filter(|&b| b < i32::MAX as u32)
            .ok_or(too_many)?;
        return Ok(SortPlan {
            unit: Unit::sort_warp(width),
            grid,
            block: SORT_WARPS * 32,
            dynamic_shared: 0,
            shape: None,
        });
    }
    if k > 1 << 31 {
        return Err(PlanError::TooLarge { n, m, why: "k > 2^31 results to sort" });
    }
    let parts = SORT_RANK_PARTS.min(limits.max_cluster);
    let fits = k <= SORT_RANK_MAX && rank_slots(k, parts) <= SORT_RANK_THREADS;
    let few =
        n.saturating_mul(k) <= SORT_RANK_RESULTS && n.saturating_mul(parts) <= limits.sm_count;
    if parts > 1 && fits && few {
        let (shape, smem) = SortShape::rank_for_k(k, parts);
        return Ok(SortPlan {
            unit: Unit::single(Family::SortRows),
            grid: (n * parts) as u32, // <= sm_count
            block: shape.row_threads,
            dynamic_shared: smem,
            shape: Some(shape),
        });
    }
    if let Some((shape, smem)) = SortShape::merge_for_k(n, k, limits) {
        return Ok(SortPlan {
            unit: Unit::single(Family::SortRows),
            grid: n as u32 * shape.parts, // <= sm_count
            block: shape.row_threads,
            dynamic_shared: smem,
            shape: Some(shape),
        });
    }
    let grid = u32::try_from(n).ok().filter(|&b| b < i32::MAX as u32).ok_or(too_many)?;
    let (shape, smem) = SortShape::for_k(k, limits);
    Ok(SortPlan {
        unit: Unit::single(Family::SortRows),
        grid,
        block: shape.row_threads,
        dynamic_shared: smem,
        shape: Some(shape),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An H100 SXM: 132 SMs, 227 KiB of opt-in shared memory per block.
    const H100: DeviceLimits = DeviceLimits {
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

    fn auto(n: usize, m: usize, k: usize) -> Plan {
        plan(&launch(n, m, k), &H100, Strategy::Auto).unwrap()
    }

    fn early(n: usize, m: usize, k: usize) -> Plan {
        let l = Launch { bisect: Bisect::early_stopping(4), ..launch(n, m, k) };
        plan(&l, &H100, Strategy::Auto).unwrap()
    }

    fn name(p: &Plan) -> String {
        p.unit.to_string()
    }

    #[test]
    fn row_width_boundaries_pick_the_family_and_the_narrowest_width() {
        // (M, k, kernel, lanes, block) with few rows (no quarter-warp rows)
        for (m, k, kernel, lanes, block) in [
            (1, 1, "rtopk_half_rows_1", 16, 256),
            (16, 4, "rtopk_half_rows_1", 16, 256),
            (17, 4, "rtopk_half_rows_2", 16, 256),
            (256, 8, "rtopk_half_rows_16", 16, 256),
            (257, 8, "rtopk_warp_rows_12", 32, 256),
            (300, 5, "rtopk_warp_rows_12", 32, 256),
            (768, 64, "rtopk_warp_rows_24", 32, 256),
            (1024, 1024, "rtopk_warp_rows_32", 32, 256),
            (1025, 128, "rtopk_warp_rows_48", 32, 128),
            (1025, 129, "rtopk_block_rows", 64, 64),
            (2048, 256, "rtopk_warp_rows_64", 32, 128),
            (3072, 384, "rtopk_warp_rows_96", 32, 64),
            (3072, 385, "rtopk_block_rows", 96, 96),
            (3073, 100, "rtopk_block_rows_narrow", 128, 128),
            (8192, 511, "rtopk_block_rows_narrow", 256, 256),
            (8192, 512, "rtopk_block_rows", 256, 256),
            (8193, 100, "rtopk_block_rows", 288, 288),
            (32768, 64, "rtopk_block_rows", 1024, 1024),
            (32769, 64, "rtopk_block_rows", 1024, 1024),
        ] {
            let p = auto(1000, m, k);
            assert_eq!(name(&p), kernel, "M={m} k={k}");
            assert_eq!(p.block, block, "M={m} k={k}");
            if p.family().lanes().is_some() {
                assert_eq!(p.lanes_per_row, lanes, "M={m} k={k}");
                assert!(p.keys_per_lane * lanes >= m, "M={m}: the row fits");
            }
        }
    }

    #[test]
    fn sixteen_bit_rows_take_part_warps_by_registers_and_half_the_registers() {
        let typed = |n, m, k, elem, strategy| {
            let l = Launch { elem, ..launch(n, m, k) };
            plan(&l, &H100, strategy)
        };
        let many = 1024 * 132;
        for elem in [ElemType::F16, ElemType::Bf16] {
            let s = elem.suffix();
            // (N, M, k, kernel, lanes, elements per lane, narrows)
            for (n, m, k, kernel, lanes, epl, narrows) in [
                (1000, 1, 1, "rtopk_half_rows_2", 16, 2, false),
                (1000, 256, 8, "rtopk_half_rows_16", 16, 16, false),
                (1000, 512, 64, "rtopk_half_rows_32", 16, 32, false),
                (many, 512, 64, "rtopk_quarter_rows_64", 8, 64, false),
                (many, 512, 65, "rtopk_half_rows_32", 16, 32, false),
                (many, 512, 128, "rtopk_half_rows_32", 16, 32, false),
                (many, 256, 64, "rtopk_quarter_rows_32", 8, 32, false),
                (many, 300, 37, "rtopk_quarter_rows_40", 8, 40, false),
                (many, 300, 38, "rtopk_half_rows_24", 16, 24, false),
                (1000, 513, 8, "rtopk_half_rows_40", 16, 40, false),
                (many, 768, 64, "rtopk_half_rows_48", 16, 48, false),
                (1000, 769, 8, "rtopk_warp_rows_32", 32, 32, true),
                (1000, 1024, 127, "rtopk_warp_rows_32", 32, 32, true),
                (1000, 1025, 10, "rtopk_warp_rows_40", 32, 40, false),
                (1000, 3072, 384, "rtopk_warp_rows_96", 32, 96, false),
            ] {
                let p = typed(n, m, k, elem, Strategy::Auto).unwrap();
                let at = format!("{elem:?} N={n} M={m} k={k}");
                assert_eq!(p.unit.to_string(), format!("{kernel}{s}"), "{at}");
                assert_eq!(
                    (p.lanes_per_row, p.keys_per_lane, p.narrows),
                    (lanes, epl, narrows),
                    "{at}"
                );
                assert_eq!(p.unit.elems_per_lane(), epl, "{at}");
                assert_eq!(p.unit.width() * 2, epl, "{at}: two elements per register");
            }
            // blocks as for f32, in the type's units; the sort in the type too
            let l = Launch { sorted: true, ..launch(10, 5000, 100) };
            let p = plan(&Launch { elem, ..l }, &H100, Strategy::Auto).unwrap();
            assert_eq!(p.unit.to_string(), format!("rtopk_block_rows_narrow{s}"));
            assert_eq!(p.sort.unwrap().unit.to_string(), format!("rtopk_sort_warp_rows_128{s}"));
            // a forced strategy holds twice an f32 row
            assert_eq!(typed(10, 1024, 1, elem, Strategy::Half).unwrap().keys_per_lane, 64);
            match typed(10, 1025, 1, elem, Strategy::Half) {
                Err(PlanError::Strategy { max_row, .. }) => assert_eq!(max_row, 1024),
                other => panic!("{other:?}"),
            }
            assert_eq!(typed(10, 6144, 1, elem, Strategy::Warp).unwrap().keys_per_lane, 192);
        }
    }

    #[test]
    fn value_bins_take_f32_block_rows_in_registers_in_launches_of_few_blocks() {
        // whole rows and a split's steps of at most VALUE_BINS_GRID blocks; not past it
        assert!(auto(96, 16_384, 512).value_bins);
        assert!(auto(VALUE_BINS_GRID, 16_384, 256).value_bins);
        assert!(!auto(VALUE_BINS_GRID + 1, 16_384, 256).value_bins);
        assert!(!auto(65_536, 4096, 512).value_bins);
        // not the narrowing kernel, nor rows past the registers
        let narrow = auto(10, 5000, 100);
        assert!(narrow.narrows && !narrow.value_bins);
        let wide = plan(&launch(10, 40_000, 1024), &H100, Strategy::Block).unwrap();
        assert!(wide.cached_keys > 0 && !wide.value_bins);
        // f32 alone: 16-bit rows search by their own histograms, integers have no values
        for elem in [ElemType::Bf16, ElemType::F16, ElemType::I32] {
            let l = Launch { elem, ..launch(96, 16_384, 512) };
            assert!(!plan(&l, &H100, Strategy::Auto).unwrap().value_bins, "{elem:?}");
        }
        // nor the warp rows
        assert!(!auto(1000, 1000, 100).value_bins);
    }

    #[test]
    fn block_rows_take_their_threads_from_the_width() {
        assert_eq!(auto(10, 1025, 129).block, 64); // ceil(1025/32) = 33 -> 64 (at least 64)
        assert_eq!(auto(10, 2049, 300).block, 96);
        assert_eq!(auto(10, 3073, 600).block, 128);
        // the load's staging: 4 KB a warp, before the cached keys use the same memory
        let p = auto(10, 32768, 64);
        assert_eq!((p.block, p.cached_keys, p.dynamic_shared), (1024, 0, 32 * 4096));
        // blocks of fewer than 16 warps stage in launches of at most 2048 blocks
        assert_eq!(auto(10, 3073, 600).dynamic_shared, 4 * 4096);
        assert_eq!(auto(2048, 15_360, 600).dynamic_shared, 15 * 4096);
        assert_eq!(auto(2049, 15_360, 600).dynamic_shared, 0);
        assert_eq!(auto(65_536, 15_361, 600).dynamic_shared, 16 * 4096);
        // the kernel stages f32 rows only: other elements' block rows get the cached keys' alone
        for elem in [ElemType::Bf16, ElemType::F16, ElemType::I8, ElemType::I32] {
            let l = Launch { elem, ..launch(10, 32_768, 64) };
            let p = plan(&l, &H100, Strategy::Block).unwrap();
            assert_eq!((p.block, p.dynamic_shared), (1024, p.cached_keys * 4), "{elem:?}");
        }
        // past 32768 the rest goes to shared memory, up to the opt-in limit minus the static
        let cap = (232_448 - BLOCK_STATIC_SHARED) / 4;
        let p = auto(10, 32768 + 100, 64);
        assert_eq!((p.cached_keys, p.dynamic_shared), (100, 32 * 4096));
        let p = auto(10, 32768 + 40_000, 64);
        assert_eq!((p.cached_keys, p.dynamic_shared), (40_000, 160_000));
        let p = auto(10, 1 << 20, 64);
        assert_eq!(p.cached_keys as usize, cap);
        assert_eq!(p.dynamic_shared as usize, cap * 4);
        assert_eq!(p.grid, 10);
    }

    #[test]
    fn k_boundaries_move_rows_between_warps_and_blocks() {
        // M/8 for 1025..3072 rows on one warp
        for m in [1025, 1500, 2047, 2048, 3000, 3072] {
            assert_eq!(auto(100, m, m / 8).family(), Family::WarpRows, "M={m} k=M/8");
            assert_eq!(auto(100, m, m / 8 + 1).family(), Family::BlockRows, "M={m} k=M/8+1");
        }
        // M/4 for quarter-warp rows, with enough rows
        let many = 1024 * 132;
        for m in [8, 100, 255, 256] {
            assert_eq!(auto(many, m, m / 4).family(), Family::QuarterRows, "M={m}");
            assert_eq!(auto(many, m, m / 4 + 1).family(), Family::HalfRows, "M={m}");
        }
        assert_eq!(auto(many, 257, 8).family(), Family::WarpRows);
        // rows up to 1024 stay on warps whatever k is
        assert_eq!(auto(100, 1024, 1024).family(), Family::WarpRows);
    }

    #[test]
    fn quarter_warp_rows_need_1024_rows_per_sm() {
        for sms in [1, 2, 78, 108, 132, 170] {
            let limits = DeviceLimits {
                sm_count: sms,
                shared_optin_bytes: 100_000,
                max_cluster: 8,
                cluster_slots: crate::ClusterSlots::UNKNOWN,
            };
            let at = |n| plan(&launch(n, 256, 64), &limits, Strategy::Auto).unwrap().family();
            assert_eq!(at(1024 * sms), Family::QuarterRows, "{sms} SMs");
            assert_eq!(at(1024 * sms - 1), Family::HalfRows, "{sms} SMs");
        }
    }

    #[test]
    fn grids_cover_every_row() {
        // part-warp rows: blockDim / lanes rows per block
        assert_eq!(auto(1, 100, 5).grid, 1);
        assert_eq!(auto(16, 100, 5).grid, 1);
        assert_eq!(auto(17, 100, 5).grid, 2);
        let q = auto(1024 * 132 + 1, 100, 5);
        assert_eq!(
            (q.family(), q.grid),
            (Family::QuarterRows, (1024 * 132 + 1usize).div_ceil(32) as u32)
        );
        assert_eq!(auto(9, 300, 5).grid, 2); // 8 rows per block of 8 warps
        assert_eq!(auto(9, 1500, 5).grid, 3); // 4 warps per block at 48 keys
        assert_eq!(auto(9, 3000, 5).grid, 5); // 2 warps per block at 96 keys
        assert_eq!(auto(0, 300, 5).grid, 0);
        assert_eq!(auto(7, 5000, 5).grid, 7);
    }

    #[test]
    fn narrowing_follows_the_search_k_and_width() {
        for (m, k, narrows) in [
            (256, 10, false), // half-warp rows never narrow
            (257, 127, true),
            (257, 128, false),
            (1024, 1, true),
            (1025, 10, false), // 48 keys per lane: one instantiation, no narrowing
            (3073, 511, true),
            (3073, 512, false),
            (8192, 100, true),
            (8193, 100, false),
        ] {
            assert_eq!(auto(10, m, k).narrows, narrows, "M={m} k={k}");
            assert!(!early(10, m, k).narrows, "early stopping never narrows: M={m} k={k}");
        }
        assert_eq!(name(&early(10, 5000, 100)), "rtopk_block_rows");
        let precise = Bisect::with_precision(1e-3).unwrap();
        let precise = Launch { bisect: precise, ..launch(10, 5000, 100) };
        assert_eq!(
            name(&plan(&precise, &H100, Strategy::Auto).unwrap()),
            "rtopk_block_rows_narrow"
        );
    }

    #[test]
    fn sorted_output_plans_a_warp_or_a_block_sort() {
        let sorted = |n, m, k| {
            let l = Launch { sorted: true, ..launch(n, m, k) };
            plan(&l, &H100, Strategy::Auto).unwrap().sort
        };
        assert_eq!(sorted(10, 100, 1), None, "one result is sorted already");
        assert_eq!(plan(&launch(10, 100, 50), &H100, Strategy::Auto).unwrap().sort, None);
        let many = 8 * 132 + 1; // past 8 rows per SM, the warp sort up to k = 1024
        let cases = [
            (2, 8, 8),
            (8, 8, 8),
            (9, 16, 8),
            (32, 32, 8),
            (33, 64, 8),
            (65, 128, 8),
            (128, 128, 8),
            (129, 256, 16),
            (257, 512, 32),
            (513, 1024, 32),
            (1024, 1024, 32),
        ];
        for (k, width, lanes) in cases {
            let s = sorted(many, 2000, k).unwrap();
            assert_eq!(s.unit.to_string(), format!("rtopk_sort_warp_rows_{width}"), "k={k}");
            let rows_per_block = 256 / lanes;
            let blocks = many.div_ceil(rows_per_block) as u32;
            assert_eq!((s.grid, s.block, s.dynamic_shared), (blocks, 256, 0), "k={k}");
        }
        // few rows: the warp sort up to k = 256, the block sort past it
        for (k, e) in [(2, 8), (256, 256)] {
            let s = sorted(8 * 132, 2000, k).unwrap();
            assert_eq!(s.unit.to_string(), format!("rtopk_sort_warp_rows_{e}"), "k={k}");
        }
        for (k, pow2) in [(257, 512), (1024, 1024)] {
            let s = sorted(17, 2000, k).unwrap();
            assert_eq!(s.unit.to_string(), "rtopk_sort_rows", "k={k}");
            assert_eq!(s.shape.unwrap().pow2, pow2);
            assert_eq!((s.grid, s.block), (17, pow2 / 2));
        }
        // a device without clusters: the block sort on few rows too
        let a100 = DeviceLimits { max_cluster: 1, ..H100 };
        let l = Launch { sorted: true, ..launch(3, 9000, 1025) };
        let s = plan(&l, &a100, Strategy::Auto).unwrap().sort.unwrap();
        assert_eq!(s.unit.to_string(), "rtopk_sort_rows");
        let shape = s.shape.unwrap();
        assert_eq!((shape.pow2, shape.row_threads, shape.in_shared), (2048, 256, true));
        assert_eq!(shape.parts, 1);
        assert_eq!((s.grid, s.block, s.dynamic_shared), (3, 256, 2048 * 8));
        // past 4096 positions (on a device without clusters, where the merge sort does not
        // run), in the opt-in shared memory: in registers up to 8192, then one thread a
        // compare-exchange; past what shared memory holds, in place in global memory
        let a100_sorted = |n, m, k| {
            let l = Launch { sorted: true, ..launch(n, m, k) };
            plan(&l, &a100, Strategy::Auto).unwrap().sort.unwrap()
        };
        let s = a100_sorted(3, 9000, 4097);
        let shape = s.shape.unwrap();
        assert_eq!((shape.pow2, shape.row_threads, shape.in_shared), (8192, 1024, true));
        assert_eq!((s.block, s.dynamic_shared), (1024, 8192 * 8));
        let s = a100_sorted(3, 20_000, 16_384);
        let shape = s.shape.unwrap();
        assert_eq!((shape.pow2, shape.row_threads, shape.in_shared), (16_384, 1024, true));
        assert_eq!((s.block, s.dynamic_shared), (1024, 16_384 * 8));
        let s = a100_sorted(3, 20_000, 16_385).shape.unwrap();
        assert_eq!((s.pow2, s.row_threads, s.in_shared, s.parts), (32_768, 1024, false, 1));
        assert!(!s.merges);
        let p = plan(&Launch { sorted: true, ..launch(3, 9000, 2000) }, &H100, Strategy::Auto);
        assert_eq!(p.unwrap().units().len(), 2);
    }

    #[test]
    fn few_rows_of_k_up_to_2048_take_the_rank_sort_where_clusters_fit_the_sms() {
        let sorted = |limits: &DeviceLimits, n, k| {
            let l = Launch { sorted: true, ..launch(n, 9000, k) };
            plan(&l, limits, Strategy::Auto).unwrap().sort.unwrap()
        };
        let wide = DeviceLimits { max_cluster: 16, ..H100 };
        // (device, rows, k, blocks a row, threads a block: slots of 4 results, 32 lanes each
        // while they fit 1024 threads)
        for (limits, n, k, parts, threads) in [
            (&wide, 1, 257, 16, 160),
            (&wide, 8, 300, 16, 160),
            (&wide, 2, 1024, 16, 16 * 32),
            (&wide, 4, 2048, 16, 32 * 32),
            (&H100, 7, 1025, 8, 33 * 16 + 16),
            (&H100, 16, 512, 8, 16 * 32),
        ] {
            let s = sorted(limits, n, k);
            assert_eq!(s.unit.to_string(), "rtopk_sort_rows", "k={k}");
            let shape = s.shape.unwrap();
            assert_eq!((shape.parts, shape.row_threads), (parts, threads), "n={n} k={k}");
            assert_eq!((s.grid, s.block), (n as u32 * parts, threads), "n={n} k={k}");
            assert_eq!(s.dynamic_shared as usize, (k + 1).next_multiple_of(2) * 8, "k={k}");
        }
        // past what the SMs hold at once, past 8192 results, past k = 2048, within the warp
        // sorts' k, and on a device without clusters: not the rank sort
        assert_eq!(sorted(&wide, 9, 1024).shape.unwrap().parts, 1);
        assert_eq!(sorted(&wide, 5, 2048).shape.unwrap().parts, 1, "past 8192 results");
        assert_eq!(sorted(&wide, 1, 2049).shape.unwrap().parts, 1, "past k = 2048");
        assert_eq!(sorted(&H100, 17, 1024).shape.unwrap().parts, 1);
        assert_eq!(sorted(&wide, 1, 256).shape, None);
        assert_eq!(
            sorted(&DeviceLimits { max_cluster: 1, ..H100 }, 1, 1024).shape.unwrap().parts,
            1
        );
    }

    #[test]
    fn few_rows_past_k_2048_take_the_merge_sort_where_clusters_fit_the_sms() {
        let sorted = |limits: &DeviceLimits, n, k| {
            let l = Launch { sorted: true, ..launch(n, 2 * k + 3, k) };
            plan(&l, limits, Strategy::Auto).unwrap().sort.unwrap()
        };
        let wide = DeviceLimits { max_cluster: 16, ..H100 };
        // (device, rows, k, pow2, blocks a row, threads a block: 8 positions a thread)
        for (limits, n, k, pow2, parts, threads) in [
            (&wide, 3, 4097, 8192, 4, 256),
            (&wide, 8, 16_384, 16_384, 8, 256),
            (&wide, 1, 16_385, 32_768, 16, 256),
            (&wide, 2, 40_000, 65_536, 16, 512),
            (&wide, 1, 131_072, 131_072, 16, 1024),
            (&H100, 1, 32_768, 32_768, 8, 512),
            (&H100, 16, 8192, 8192, 4, 256),
            // more rows: longer runs on fewer blocks, so that every row's cluster fits
            (&wide, 9, 16_385, 32_768, 8, 512),
            (&wide, 32, 16_384, 16_384, 4, 512),
            (&wide, 34, 16_384, 16_384, 2, 1024),
        ] {
            let s = sorted(limits, n, k);
            assert_eq!(s.unit.to_string(), "rtopk_sort_rows", "k={k}");
            let shape = s.shape.unwrap();
            let got = (shape.pow2, shape.parts, shape.row_threads, shape.merges, shape.in_shared);
            assert_eq!(got, (pow2, parts, threads, true, true), "n={n} k={k}");
            assert_eq!((s.grid, s.block), (n as u32 * parts, threads), "n={n} k={k}");
            // one run of pow2 / parts ranks in shared memory
            assert_eq!(s.dynamic_shared, pow2 / parts * 8, "n={n} k={k}");
        }
        // k = 2048 and below (the rank sort or one block), past 2^17 positions on 16 blocks,
        // rows whose clusters outnumber the SMs, and a device without clusters: not the merge
        // sort
        assert!(!sorted(&wide, 1, 2048).shape.unwrap().merges);
        assert!(!sorted(&wide, 1, 4096).shape.unwrap().merges, "k = 4096: the block sort");
        assert!(!sorted(&wide, 1, 131_073).shape.unwrap().merges, "runs past the registers");
        assert!(!sorted(&wide, 67, 16_384).shape.unwrap().merges, "134 blocks of 8192");
        assert!(!sorted(&wide, 9, 131_072).shape.unwrap().merges, "144 blocks of 8192");
        assert!(!sorted(&DeviceLimits { max_cluster: 1, ..H100 }, 1, 8192).shape.unwrap().merges);
    }

    /// Every sort the plan launches on `rtopk_sort_rows` — the block, rank and merge sorts, on
    /// few rows and many, on devices with and without clusters or opt-in shared memory, in
    /// every float type — takes at most the kernel's launch bound of threads a block.
    #[test]
    fn every_block_sort_fits_the_kernels_launch_bound() {
        let no_optin = DeviceLimits { shared_optin_bytes: 0, max_cluster: 1, ..H100 };
        let wide = DeviceLimits { max_cluster: 16, ..H100 };
        let mut checked = 0;
        for limits in [&H100, &wide, &no_optin] {
            for elem in [ElemType::F32, ElemType::F16, ElemType::Bf16] {
                for n in [1, 3, 16, 200, 5000] {
                    let ks = (257..=140_000).step_by(1999).chain([1025, 2048, 8192, 16_384]);
                    for k in ks.chain([32_768, 65_536, 131_072, 131_073]) {
                        let l = Launch { sorted: true, elem, ..launch(n, k + 7, k) };
                        let sort = plan(&l, limits, Strategy::Auto).unwrap().sort.unwrap();
                        if sort.shape.is_some() {
                            let what = format!("n={n} k={k} {elem:?} {sort:?}");
                            assert!(sort.block as usize <= SORT_MAX_THREADS, "{what}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked} sorts");
    }

    #[test]
    fn the_rank_sort_gives_every_result_its_lanes_within_a_block() {
        for k in (257..=SORT_RANK_MAX).chain([2, 31, 33]) {
            for parts in [2, 8, 16] {
                let (s, smem) = SortShape::rank_for_k(k, parts);
                // slots of SORT_RANK_HELD results hold the block's share of the row
                let slots = rank_slots(k, parts);
                assert!(slots * SORT_RANK_HELD >= k.div_ceil(parts), "k={k}");
                assert!(slots <= SORT_RANK_THREADS, "k={k}");
                let lanes = sort_rank_lanes(slots);
                assert!(lanes.is_power_of_two() && lanes <= 32, "k={k}");
                // the block holds its slots of `lanes` lanes, whole warps, at most 1024
                let threads = s.row_threads as usize;
                assert!(slots * lanes <= threads && threads <= SORT_RANK_THREADS, "k={k} {s:?}");
                assert_eq!(threads % 32, 0, "k={k}");
                assert!(threads - slots * lanes < 32, "k={k} {s:?}");
                // twice the lanes would not fit: the kernel, from the same rule, takes `lanes`
                assert!(lanes == 32 || slots * lanes * 2 > SORT_RANK_THREADS, "k={k}");
                // the k ranks and one past them, whole pairs of 8 bytes
                assert!(smem as usize >= (k + 1) * 8 && smem % 16 == 0, "k={k}");
                assert_eq!((s.parts as usize, s.in_shared), (parts, true));
            }
        }
    }

    #[test]
    fn block_sort_shape_covers_every_pair_and_fits_shared_memory() {
        let no_optin = DeviceLimits { shared_optin_bytes: 0, ..H100 };
        let a100 = DeviceLimits { shared_optin_bytes: 163 * 1024, ..H100 };
        for (limits, most) in [(H100, 16_384), (a100, 16_384), (no_optin, SORT_SHARED_MAX)] {
            assert_eq!(sort_shared_most(&limits), most);
            let ks = (257..=70_000).step_by(97).chain([257, 512, 1000, 1025, 2047, 2048, 4096]);
            for k in ks.chain([4097, 8192, 8193, 16_384, 16_385, 65_536]) {
                let (s, smem) = SortShape::for_k(k, &limits);
                let what = format!("k={k} {s:?} optin={}", limits.shared_optin_bytes);
                assert!(s.pow2 as usize >= k && (s.pow2 as usize) < 2 * k, "{what}");
                assert!(s.row_threads <= s.pow2 / 2 && s.row_threads <= 1024, "{what}");
                assert_eq!(s.in_shared, k <= most, "{what}");
                let pow2 = s.pow2 as usize;
                if s.in_shared
                    && (SORT_BLOCK_REGISTERS_MIN..=SORT_BLOCK_REGISTERS_MAX).contains(&pow2)
                {
                    // every position in a register of one of the block's whole warps
                    assert_eq!(s.row_threads as usize * SORT_BLOCK_EPL, pow2, "{what}");
                    assert!(s.row_threads >= 64 && s.row_threads % 32 == 0, "{what}");
                } else if pow2 <= SORT_SHARED_MAX {
                    assert_eq!(s.row_threads, s.pow2 / 2, "{what}");
                } else {
                    // past the registers, a whole block of one thread a compare-exchange
                    assert_eq!(s.row_threads, 1024, "{what}");
                }
                if s.in_shared {
                    assert_eq!(smem as usize, pow2 * 8, "{what}");
                    let budget = limits.shared_optin_bytes.max(48 * 1024) - BLOCK_STATIC_SHARED;
                    assert!(smem as usize <= budget, "{what}: over the device's shared memory");
                } else {
                    assert_eq!(smem, 0);
                }
            }
        }
    }

    #[test]
    fn forced_strategies_hold_their_rows_or_say_why_not() {
        let force = |m, k, s| plan(&launch(100, m, k), &H100, s);
        for (s, fam, widest) in [
            (Strategy::Quarter, Family::QuarterRows, 256),
            (Strategy::Half, Family::HalfRows, 512),
            (Strategy::Warp, Family::WarpRows, 3072),
        ] {
            for m in [1, 31, widest / 2 + 1, widest] {
                for k in [1, m / 2, m] {
                    let p = force(m, k.max(1), s).unwrap();
                    assert_eq!(p.family(), fam, "{s} M={m} k={k}");
                    assert_eq!(p.lanes_per_row, fam.lanes().unwrap());
                    assert!(p.keys_per_lane * p.lanes_per_row >= m);
                }
            }
            match force(widest + 1, 1, s) {
                Err(PlanError::Strategy { strategy, m, max_row }) => {
                    assert_eq!((strategy, m, max_row), (s, widest + 1, widest));
                }
                other => panic!("{s} at M = {}: {other:?}", widest + 1),
            }
        }
        for m in [1, 100, 1024, 5000, 100_000] {
            let p = force(m, 1, Strategy::Block).unwrap();
            assert!(matches!(p.family(), Family::BlockRows | Family::BlockRowsNarrow), "M={m}");
        }
        assert_eq!(force(5000, 1, Strategy::Block).unwrap().family(), Family::BlockRowsNarrow);
        // a forced quarter-warp row does not need many rows or k <= M / 4
        assert_eq!(force(256, 200, Strategy::Quarter).unwrap().family(), Family::QuarterRows);
        let msg = force(300, 1, Strategy::Quarter).unwrap_err().to_string();
        assert!(msg.contains("quarter") && msg.contains("256") && msg.contains("300"), "{msg}");
    }

    #[test]
    fn bad_requests_and_too_large_shapes_are_errors() {
        assert!(matches!(plan(&launch(4, 10, 11), &H100, Strategy::Auto), Err(PlanError::TopK(_))));
        assert!(matches!(plan(&launch(4, 0, 0), &H100, Strategy::Auto), Err(PlanError::TopK(_))));
        let negative = Bisect { precision: -1.0, ..Bisect::exact() };
        let bad = Launch { bisect: negative, ..launch(4, 10, 1) };
        assert!(matches!(plan(&bad, &H100, Strategy::Auto), Err(PlanError::TopK(_))));
        // the kernel takes the precision relative to |max| only
        let absolute = Bisect {
            epsilon_mode: topk_ref::EpsilonMode::Absolute,
            ..Bisect::with_precision(1e-3).unwrap()
        };
        let l = Launch { bisect: absolute, ..launch(4, 10, 1) };
        assert!(matches!(plan(&l, &H100, Strategy::Auto), Err(PlanError::TopK(_))));
        let exact_absolute =
            Bisect { epsilon_mode: topk_ref::EpsilonMode::Absolute, ..Bisect::exact() };
        assert!(plan(&Launch { bisect: exact_absolute, ..l }, &H100, Strategy::Auto).is_ok());
        // more than 2^31 - 1 block rows
        let rows = i32::MAX as usize;
        assert!(matches!(
            plan(&launch(rows, 5000, 1), &H100, Strategy::Auto),
            Err(PlanError::TooLarge { .. })
        ));
        assert!(plan(&launch(rows - 1, 5000, 1), &H100, Strategy::Auto).is_ok());
        // more than 2^32 warp-row blocks
        let n = (u32::MAX as usize + 1) * 8;
        assert!(matches!(
            plan(&launch(n, 1000, 1), &H100, Strategy::Auto),
            Err(PlanError::TooLarge { .. })
        ));
        // rows of 2^32 or more (topk-ref refuses them first)
        let wide = u32::MAX as usize + 1;
        assert!(matches!(
            plan(&launch(1, wide, 1), &H100, Strategy::Block),
            Err(PlanError::TopK(TopKError::RowTooWide { .. }))
        ));
        let sorted = Launch { sorted: true, ..launch(rows, 300, 5) };
        assert!(plan(&sorted, &H100, Strategy::Auto).is_ok());
        let sorted = Launch { sorted: true, ..launch(64 * rows, 300, 5) }; // 32 rows per block
        assert!(matches!(plan(&sorted, &H100, Strategy::Auto), Err(PlanError::TooLarge { .. })));
    }

    #[test]
    fn the_plan_reads_the_devices_limits() {
        let small = DeviceLimits {
            sm_count: 16,
            shared_optin_bytes: 49_152,
            max_cluster: 8,
            cluster_slots: crate::ClusterSlots::UNKNOWN,
        };
        let p = plan(&launch(10, 40_000, 64), &small, Strategy::Auto).unwrap();
        assert_eq!(p.cached_keys as usize, 40_000 - 32_768);
        let p = plan(&launch(10, 100_000, 64), &small, Strategy::Auto).unwrap();
        assert_eq!(p.cached_keys as usize, (49_152 - BLOCK_STATIC_SHARED) / 4);
        // 49152 bytes stage no 1024-thread block's loads (128 KB): it loads directly
        assert_eq!(p.dynamic_shared as usize, 49_152 - BLOCK_STATIC_SHARED);
        let p = plan(&launch(10, 32_768, 64), &small, Strategy::Auto).unwrap();
        assert_eq!((p.cached_keys, p.dynamic_shared), (0, 0));
        let p = plan(&launch(10, 16_384, 64), &small, Strategy::Auto).unwrap();
        assert_eq!(p.dynamic_shared, 0); // 64 KB and the static do not fit 48 KB
        let p = plan(&launch(10, 4_096, 64), &small, Strategy::Auto).unwrap();
        assert_eq!(p.dynamic_shared, 4 * 4096);
        let none = DeviceLimits {
            sm_count: 1,
            shared_optin_bytes: 1000,
            max_cluster: 8,
            cluster_slots: crate::ClusterSlots::UNKNOWN,
        };
        let p = plan(&launch(10, 100_000, 64), &none, Strategy::Auto).unwrap();
        assert_eq!((p.cached_keys, p.dynamic_shared), (0, 0));
    }

    #[test]
    fn a_recall_target_narrows_as_exact_mode_does() {
        let recall = Bisect::with_recall(0.8).unwrap();
        let block =
            |bisect| plan(&Launch { bisect, ..launch(12, 5000, 100) }, &H100, Strategy::Auto);
        assert!(block(Bisect::exact()).unwrap().narrows);
        let narrowed = block(recall).unwrap();
        assert!(narrowed.narrows && narrowed.unit.family() == Family::BlockRowsNarrow);
        assert!(!block(Bisect::early_stopping(4)).unwrap().narrows);
        let warp = plan(&Launch { bisect: recall, ..launch(4096, 700, 20) }, &H100, Strategy::Auto);
        assert!(warp.unwrap().narrows);
    }

    #[test]
    fn strategies_parse_from_their_names() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::parse(s.name()), Some(s));
        }
        assert_eq!(Strategy::parse("fast"), None);
    }
}
