//! The launch program: a top-k's route ([`crate::route()`]) written out as the kernel launches
//! it takes, in order — each with its kernel, grid, the rows it runs on (where it reads and
//! writes them) and the buffers it reads and writes. The CUDA launcher (rtopk-cuda) and the
//! warp simulator (warp-sim) each walk the same program step by step, under the same step
//! names ([`StepKind`]); neither computes a route or a row's geometry of its own.
//!
//! A direct route is `select_rows` (and `sort_rows` for sorted output). A split row
//! (docs/kernel.md, "Split rows") is `select_chunks` over its full chunks and
//! `select_last_chunks` over the last one, into the level's candidates (temporary buffers of
//! `n * width`), then the program of the second stage over the candidates' values, then
//! `gather_indices`, which turns positions among the candidates back into the row's indices.
//! Levels nest: a second stage split again gathers before the level above it does.
//! A request that wants each row's threshold (docs/contract.md §5) ends with `row_threshold`,
//! which reads it off the values output.

use serde::Serialize;

use crate::error::PlanError;
use crate::plan::{DeviceLimits, Launch, Plan, SortPlan, SortShape, Strategy};
use crate::radix::{RADIX_THREADS, RadixPlan, digits, radix_capacity};
#[cfg(test)]
use crate::split::route;
use crate::split::{Route, Split, ragged_route, route_of};
use crate::units::{ElemType, Family, Unit, sort_warp_shape};

/// Threads per block of `rtopk_split_gather`.
pub const GATHER_THREADS: u32 = 256;
/// Blocks per SM of `rtopk_split_gather` at most: its grid strides over the results.
pub const GATHER_BLOCKS_PER_SM: usize = 64;

/// What a step does; its name, the same in every executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// The top k of whole rows (or of a split row's second stage).
    SelectRows,
    /// The top k of each full chunk of split rows, into the candidates.
    SelectChunks,
    /// The top k of each split row's last chunk, into the candidates.
    SelectLastChunks,
    /// Each row's results into sorted order.
    SortRows,
    /// Positions among a split row's candidates back to the row's indices.
    GatherIndices,
    /// Each row's threshold (docs/contract.md §5) off its values output.
    RowThreshold,
    /// A radix select's sample (crate::radix::RADIX_SAMPLE_EVERY): the row's floor digit,
    /// from which the first pass keeps the candidates.
    RadixSample,
    /// One digit pass of a radix select (crate::radix): the row's histogram of the digit,
    /// and the digit of its k-th key.
    RadixDigits,
    /// Each block's keys of a radix select above the row's k-th key and at it.
    RadixCount,
    /// A radix select's results, each block's at the place the counts before it give.
    RadixWrite,
}

impl StepKind {
    /// Every kind.
    pub const ALL: [StepKind; 10] = [
        StepKind::SelectRows,
        StepKind::SelectChunks,
        StepKind::SelectLastChunks,
        StepKind::SortRows,
        StepKind::GatherIndices,
        StepKind::RowThreshold,
        StepKind::RadixSample,
        StepKind::RadixDigits,
        StepKind::RadixCount,
        StepKind::RadixWrite,
    ];

    /// The step's name.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::SelectRows => "select_rows",
            StepKind::SelectChunks => "select_chunks",
            StepKind::SelectLastChunks => "select_last_chunks",
            StepKind::SortRows => "sort_rows",
            StepKind::GatherIndices => "gather_indices",
            StepKind::RowThreshold => "row_threshold",
            StepKind::RadixSample => "radix_sample",
            StepKind::RadixDigits => "radix_digits",
            StepKind::RadixCount => "radix_count",
            StepKind::RadixWrite => "radix_write",
        }
    }
}

/// A buffer's place in [`Program::buffers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct BufferId(pub usize);

/// The caller's input X.
pub const INPUT: BufferId = BufferId(0);
/// The caller's values output.
pub const VALUES: BufferId = BufferId(1);
/// The caller's indices output.
pub const INDICES: BufferId = BufferId(2);

/// Who owns a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferRole {
    /// The caller's input.
    Input,
    /// The caller's output.
    Output,
    /// Allocated by the executor for the program's run.
    Temporary,
}

/// What a buffer holds, hence its element type: values of the launch's element type, indices
/// of the caller's index type, or 32-bit iteration counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Content {
    /// Values (the launch's element type).
    Values,
    /// Indices (the caller's index type).
    Indices,
    /// Iteration counts (u32).
    Iterations,
    /// Each row's valid length (u32, `0..=m`; docs/contract.md §5).
    Lengths,
    /// Each row's k (u32, `0..=k`; docs/contract.md §5).
    KPerRow,
    /// Each row's threshold hint (f32; docs/contract.md §5).
    Hint,
    /// Each row's threshold, written (f32; docs/contract.md §5).
    Threshold,
    /// Each split row's floor (u32, the key order of the row's elements; zeroed before the
    /// first step): a key at or below the row's k-th, raised by the chunk selects as they
    /// finish (docs/kernel.md, "Split rows: the floor").
    Floor,
    /// A radix select's words (u32, zeroed before the first step; crate::radix): each row's
    /// histogram, prefix, k left, blocks done, blocks whose candidates overflowed, then its
    /// blocks' counts and its warps', then its blocks' candidates kept.
    Radix,
    /// A radix select's candidates (u32, written by its second digit pass; crate::radix): each
    /// block's keys whose first digit is its row's k-th key's or above, `capacity` of them,
    /// then their indices.
    RadixCandidates,
}

/// The per-row arrays of a ragged request (docs/contract.md §5): which device arrays of one
/// entry per row the program reads or writes. A plain request has none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Ragged {
    /// Row `i` is its first `lengths[i]` values.
    pub lengths: bool,
    /// Row `i` selects `k_per_row[i]` values (the launch's `k` is their largest, the output
    /// width).
    pub k_per_row: bool,
    /// Row `i`'s search starts with a test at `hint[i]` (f32), read by the select steps of
    /// whole rows and by the last select of split rows (whose candidates have the row's
    /// threshold): it changes the iterations, never the answer.
    pub hint: bool,
    /// Row `i`'s threshold is written to `threshold[i]` (f32) by a last `row_threshold` step.
    pub threshold: bool,
}

impl Ragged {
    /// Whether the select steps read any per-row array (they then run the ragged twin
    /// units, and rows are not split). The threshold output alone is not such an array: its
    /// step reads the values output.
    pub fn any(self) -> bool {
        self.lengths || self.k_per_row || self.hint
    }
}

/// Where a step's rows read their own length and k (docs/contract.md §5): row `i` uses
/// `m_i = lengths[i]` (or the step's `m`) and `k_i = min(k_per_row[i] (or the step's k), m_i)`,
/// reads nothing past `m_i`, writes `k_i` results and pads the rest of its output row of
/// `k` (index PAD, value 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RowArgs {
    /// The lengths' buffer, if any.
    pub lengths: Option<BufferId>,
    /// The per-row k's buffer, if any.
    pub k_per_row: Option<BufferId>,
    /// The threshold hints' buffer, if any (select steps of whole rows, and the last select
    /// of split rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<BufferId>,
    /// The steps of a ragged split (docs/kernel.md, "Split rows"): how their rows take their
    /// lengths from the caller's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitRows>,
}

/// The rows of a ragged split's steps (docs/kernel.md, "Split rows"): row `i` of the caller
/// (length `L` = `lengths[i]` or `row_m`; `k_i = min(k_per_row[i], k)`) is cut into chunks of
/// `chunk`. On the chunk launch (`Select::chunks > 1`) chunk `c` is its first
/// `clamp(L - c chunk, 0, chunk)` values ([`SplitRows::chunk_len`]), selects `k_i` of them
/// (at most that many) and writes them at `c k_i` of the row's candidates, so that the row's
/// valid candidates are their first [`SplitRows::candidates`]; on the second stage (one chunk
/// per row) row `i` is those candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SplitRows {
    /// The caller's row width M.
    pub row_m: u32,
    /// The chunk width.
    pub chunk: u32,
}

impl SplitRows {
    /// The length of chunk `c` of a row of length `len`.
    pub fn chunk_len(&self, len: u64, c: u64) -> u64 {
        let chunk = u64::from(self.chunk);
        len.min(u64::from(self.row_m)).saturating_sub(c.saturating_mul(chunk)).min(chunk)
    }

    /// The valid candidates of a row of length `len` and `k` (at most the launch's k): `k`
    /// from each whole chunk, at most `k` from the one the length cuts.
    pub fn candidates(&self, len: u64, k: u64) -> u64 {
        let (len, chunk) = (len.min(u64::from(self.row_m)), u64::from(self.chunk).max(1));
        (len / chunk).saturating_mul(k).saturating_add(k.min(len % chunk))
    }
}

impl RowArgs {
    /// The per-row arrays of a program built with `ragged` (`None` for a plain request).
    fn of(ragged: Ragged, lengths: BufferId, k_per_row: BufferId, hint: BufferId) -> Option<Self> {
        ragged.any().then_some(RowArgs {
            lengths: ragged.lengths.then_some(lengths),
            k_per_row: ragged.k_per_row.then_some(k_per_row),
            hint: ragged.hint.then_some(hint),
            split: None,
        })
    }

    /// The same rows without the hint: what the steps but the selects read.
    pub fn without_hint(self) -> Self {
        Self { hint: None, ..self }
    }

    /// The buffers read.
    pub fn buffers(&self) -> impl Iterator<Item = BufferId> {
        self.lengths.into_iter().chain(self.k_per_row).chain(self.hint)
    }
}

/// One buffer of a program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Buffer {
    /// A plain name: `x`, `values`, `indices`, `iterations`, `candidate_values_<level>`,
    /// `candidate_indices_<level>`.
    pub name: String,
    /// Who owns it.
    pub role: BufferRole,
    /// What it holds.
    pub content: Content,
    /// Its length, in elements.
    pub elements: u64,
    /// The length of its rows (`m` for the input, `k` for the outputs, the level's candidates
    /// per row for temporaries, 1 for the iteration counts).
    pub row_len: u64,
}

/// A launch's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Grid {
    /// Blocks.
    pub blocks: u32,
    /// Threads per block.
    pub threads: u32,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Blocks per thread-block cluster (1: no clusters; crate::cluster).
    pub cluster: u32,
}

/// Where a step's rows lie in a buffer: the first row's first element at `offset`, row `r` at
/// `offset + r * ld` (elements of the buffer's type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Region {
    /// The buffer.
    pub buffer: BufferId,
    /// The first row's first element.
    pub offset: u64,
    /// The row stride.
    pub ld: u64,
}

/// A top-k launch (`select_*`): the arguments of every top-k entry point (kernels/common.cuh's
/// `Params`) but the search's, which are the program's ([`Program::launch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Select {
    /// The family, keys per lane, lanes per row, cached keys and narrowing (its `sort` is
    /// always `None`: the sort is a step of its own).
    pub plan: Plan,
    /// The kernel's rows (`n_rows`): the launch's rows times `chunks`.
    pub n_rows: u64,
    /// Each kernel row's width (a chunk's, for chunk steps).
    pub m: u32,
    /// Results per kernel row.
    pub k: u32,
    /// 1: each kernel row is a row; more: kernel row `i` is chunk `i / rows` of row
    /// `i % rows` (`rows = n_rows / chunks`: chunk-major, the kernels' `chunk_of`, so that
    /// every row's first chunks run before any row's later ones), its `m` values at
    /// `input.offset + row * input.ld + chunk * m`, its `k` results at
    /// `output.offset + row * output.ld + chunk * k` (`place_row`).
    pub chunks: u32,
    /// The rows read.
    pub input: Region,
    /// Where the values go (the indices go to `indices` at the same offset and stride).
    pub output: Region,
    /// The indices' buffer.
    pub indices: BufferId,
    /// The iteration counts' buffer (one per row), or `None`.
    pub iterations: Option<BufferId>,
    /// Whether the rows allow 16-byte loads, where the input buffer starts 16-byte aligned:
    /// the stride, width and offset are whole 16-byte groups ([`vec4_rows`]); a row of its
    /// own length uses them only where that length is a whole number of groups too.
    pub vec4: bool,
    /// The rows' own lengths and k, for a ragged request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowArgs>,
    /// Whether the kernel writes each row's results in sorted order itself (pick rows of a
    /// sorted request, crate::pick: their rounds find them in that order, and no sort step
    /// follows); else in index order.
    pub sorted: bool,
    /// The split rows' floors (one key per caller's row, [`Content::Floor`]) a chunk select
    /// reads and raises (`Some` on the chunk steps of a plain split of float rows,
    /// [`takes_floor`]): a chunk with at most k keys at or above its row's floor selects
    /// those and pads the rest of its k results with the mode's last value, which the next
    /// stage never selects; one with more searches from the floor up and raises it to its
    /// own threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floor: Option<BufferId>,
}

/// The narrowest caller's row whose split takes the floor ([`takes_floor`]). A floor pays
/// where a row's chunks run in many waves, so that the later ones find it raised: on an H200
/// (results/cuda/2026-11-30-split-floor-h200) one row of 2^25 to 2^28 took 0.50-0.94 of the time
/// without it (k = 64 to 32768), while one row of 2^22 or 2^24 took 0.76 to 1.21, by k.
pub const FLOOR_MIN_ROW: usize = 1 << 25;

/// The fewest elements of the caller's rows (`n * m`) whose split takes the floor however its
/// chunks select ([`takes_floor`]). Chunks launch chunk-major (docs/kernel.md, "Split rows"),
/// so a row's later chunks run waves after its first ones on many rows too: on an H200
/// (results/cuda/2026-11-30-chunk-major-h200) splits of 2^26 elements and more took 0.53-0.96
/// of the time without it (32 x 2^21 to 1024 x 2^20, k = 50 to 2048), while smaller splits
/// whose chunks select in one warp or narrow took 0.99-1.23 with it.
pub const FLOOR_MIN_ELEMENTS: u64 = 1 << 26;

/// The fewest elements of the caller's rows whose split takes the floor where its chunks are
/// block rows that search their whole chunk (`rtopk_block_rows`, k of 512 and more): their
/// search is the costliest a floor spares, so it pays from fewer waves — on an H200 splits of
/// 3 x 2^22 elements up to 2^26 took 0.70-1.00 of the time without it (geometric mean 0.85;
/// 32 x 500000, k = 2048: 0.85), while smaller ones took 0.94-1.21 with it.
pub const FLOOR_MIN_BLOCK_ELEMENTS: u64 = 3 << 22;

/// Whether a plain split of `launch`'s rows takes the floor in a chunk select of `plan`, under
/// `strategy`: a unit with a floor entry ([`Unit::has_floor_entry`]: f32, f16 and bf16 rows,
/// whose pad value, the mode's last, lies below every floor; docs/kernel.md, "Split rows: the
/// floor"), and rows of at least [`FLOOR_MIN_ROW`], or [`FLOOR_MIN_ELEMENTS`] in all, or
/// [`FLOOR_MIN_BLOCK_ELEMENTS`] for whole-chunk block rows — or any forced split
/// ([`Strategy::Split`]: the shapes the simulator and the GPU tests can hold).
pub fn takes_floor(launch: &Launch, strategy: Strategy, plan: &Plan) -> bool {
    let elements = (launch.n as u64).saturating_mul(launch.m as u64);
    let least = match plan.unit.family() {
        Family::BlockRows => FLOOR_MIN_BLOCK_ELEMENTS,
        _ => FLOOR_MIN_ELEMENTS,
    };
    plan.unit.has_floor_entry()
        && (strategy == Strategy::Split || launch.m >= FLOOR_MIN_ROW || elements >= least)
}

impl Select {
    /// The input elements each launch row reads, as `(start, width)` within the row (from
    /// `input.offset`'s row on): one per chunk.
    /// A ragged split's chunks end at the row's end ([`SplitRows`]).
    pub fn pieces(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let m = u64::from(self.m);
        let end = self.split_rows().map_or(u64::MAX, |s| u64::from(s.row_m));
        (0..u64::from(self.chunks)).map(move |c| {
            let start = self.input.offset % self.input.ld.max(1) + c * m;
            (start, m.min(end.saturating_sub(start)))
        })
    }

    /// The input elements each launch row spans (from `input.offset`'s row on): its chunks',
    /// at most the caller's row for a ragged split's chunks.
    pub fn span(&self) -> u64 {
        let all = u64::from(self.chunks) * u64::from(self.m);
        match self.split_rows() {
            Some(s) if self.chunks > 1 => all.min(u64::from(s.row_m)),
            _ => all,
        }
    }

    /// The ragged split the step belongs to, if any.
    pub fn split_rows(&self) -> Option<SplitRows> {
        self.rows.and_then(|r| r.split)
    }
}

/// The sort launch (`sort_rows`): each row's `k` results put in sorted order, their values
/// rebuilt from the rows they were selected from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sort {
    /// Rows.
    pub n_rows: u64,
    /// The width of the rows the results were selected from.
    pub m: u32,
    /// Results per row.
    pub k: u32,
    /// The rows the results were selected from.
    pub input: Region,
    /// The values (rows of `k`), sorted in place.
    pub values: BufferId,
    /// The indices (rows of `k`), sorted in place.
    pub indices: BufferId,
    /// Lanes per row of the warp sort (`rtopk_sort_warp_rows_<W>`, `sort_warp_shape`), 0 for
    /// the block sort.
    pub lanes_per_row: usize,
    /// Results per lane of the warp sort, 0 for the block sort.
    pub results_per_lane: usize,
    /// The block sort's shape, `None` for the warp sorts.
    pub shape: Option<SortShape>,
    /// The rows' own lengths and k, for a ragged request: row `i` sorts its first `k_i`
    /// results and leaves its padding where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowArgs>,
}

/// The gather (`gather_indices`): result `i` of row `i / k` holds a position `pos` among its
/// row's `width` candidates, which came from chunk `pos / k`; the chunk's index of the element
/// is in `candidates[row * width + pos]`, the row's is that plus `pos / k * chunk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Gather {
    /// Rows.
    pub n_rows: u64,
    /// Results per row.
    pub k: u32,
    /// Candidates per row.
    pub width: u32,
    /// The chunk width.
    pub chunk: u32,
    /// Full chunks per row; the last chunk (if any) ends the row.
    pub full: u32,
    /// The level's rows (whose indices are gathered): its input, of rows of `row_len`.
    pub input: Region,
    /// The width of the level's rows.
    pub row_len: u64,
    /// The chunk indices of the candidates.
    pub candidates: BufferId,
    /// The positions, rewritten as the row's indices.
    pub indices: BufferId,
    /// The results' values (read only by a checker: the gather touches no values).
    pub values: BufferId,
    /// A ragged split's k per row (docs/kernel.md, "Split rows"): row `i`'s chunk results lie
    /// `min(k_per_row[i], k)` apart, and its padding (index PAD) stays padding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k_per_row: Option<BufferId>,
}

impl Gather {
    /// The indices `[start, end)` of a row's chunk `c`: the full chunks', then the last
    /// chunk's, which ends the row.
    pub fn chunk_span(&self, c: u64) -> (u64, u64) {
        let chunk = u64::from(self.chunk);
        let start = c.saturating_mul(chunk);
        let end = if c < u64::from(self.full) { start.saturating_add(chunk) } else { self.row_len };
        (start, end)
    }
}

/// The threshold launch (`row_threshold`, docs/contract.md §5): `lanes_per_row` lanes of
/// `warps_per_row` warps per row read the `k_i` selected values of its output row and write, as f32, the one that ranks
/// last in the mode (the lowest selected in largest mode, the highest in smallest; among equal
/// keys the last position: the highest index in index order, the last in sorted order), NaN
/// where `k_i = 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Threshold {
    /// Rows.
    pub n_rows: u64,
    /// The rows' width (`k_i` is cut to the row's length).
    pub m: u32,
    /// The outputs' width.
    pub k: u32,
    /// Warps reading a row ([`threshold_warps_per_row`] of `k`): 1, 2, 4 or 8.
    pub warps_per_row: u32,
    /// Lanes of each warp reading a row ([`threshold_lanes_per_row`] of the rows, `k` and
    /// the device): 1, 2, 4, 8, 16 or 32; below 32 (one warp a row) a warp reads
    /// `32 / lanes_per_row` rows.
    pub lanes_per_row: u32,
    /// The values output (rows of `k`).
    pub values: BufferId,
    /// The thresholds (one f32 per row).
    pub threshold: BufferId,
    /// The rows' own lengths and k, for a ragged request (never the hint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowArgs>,
}

/// A radix select's step (crate::radix, kernels/radix_rows.cu): `rtopk_radix_digits` (one
/// digit pass), `rtopk_radix_count` or `rtopk_radix_write` over rows cut into parts of `slice`
/// elements, block `b` of row `r` the grid's block `r * blocks_per_row + b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Radix {
    /// Rows.
    pub n_rows: u64,
    /// The rows' width.
    pub m: u32,
    /// Results per row.
    pub k: u32,
    /// The rows read.
    pub input: Region,
    /// Where the values go (`radix_write`; the indices go to `indices` at the same offset
    /// and stride).
    pub output: Region,
    /// The indices' buffer.
    pub indices: BufferId,
    /// The radix words ([`Content::Radix`]), `words_ld` a row.
    pub words: BufferId,
    /// A row's words ([`crate::radix::RadixPlan::row_words`]).
    pub words_ld: u32,
    /// The candidates ([`Content::RadixCandidates`]), `2 * capacity` a block: its keys, then
    /// their indices.
    pub candidates: BufferId,
    /// The candidates a block keeps at most ([`crate::radix::radix_capacity`] of `slice`).
    pub capacity: u32,
    /// Elements of a row each block takes.
    pub slice: u32,
    /// Blocks per row.
    pub blocks_per_row: u32,
    /// The digit's lowest bit (`radix_digits`; 0 on the other steps).
    pub shift: u32,
    /// The digit's bits (`radix_digits`; 0 on the other steps).
    pub bits: u32,
    /// The rows' own lengths and k, for a ragged request (never the hint: the radix select
    /// guesses nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowArgs>,
}

/// Threads per block of `rtopk_row_threshold`: `THRESHOLD_THREADS / 32 / warps_per_row ·
/// 32 / lanes_per_row` rows a block at a time.
pub const THRESHOLD_THREADS: u32 = 256;

/// The warps that read one row of `k` values in the threshold launch: one up to 512 values (16
/// a lane, one batch of loads), else one for every 256 (8 a lane), a power of two, at most the
/// block's 8. One warp alone on 2048 values runs about 1400 warp-instructions, each waiting on
/// the one before (7.9 µs by Nsight Compute on an H200; the step took 4.3–4.9 µs at k = 2048
/// in a decode loop, 2.0–2.2 over eight warps), while at k = 512 two warps' barrier cost more
/// than the second warp saved (1.9–2.1 µs against 1.8; results/cuda/2026-12-02-threshold-step-h200/).
pub fn threshold_warps_per_row(k: u32) -> u32 {
    if k <= 512 {
        return 1;
    }
    k.div_ceil(256).next_power_of_two().min(THRESHOLD_THREADS / 32)
}

/// Values a lane of the threshold launch loads in one batch (the kernel's `THRESHOLD_BATCH`).
pub const THRESHOLD_BATCH: u32 = 16;

/// Warps an SM holds at once (2048 threads on compute capability 8.0 and 9.0, 1536 on 8.6 and
/// 8.9, where rows are packed a little late; CUDA C++ Programming Guide, "Features and
/// Technical Specifications"): the threshold launch reads a row a warp until its rows
/// outnumber the device's warps.
pub const SM_WARPS: usize = 64;

/// The lanes of a warp that read one row of `k` values in the threshold launch over `n` rows:
/// 32 while a warp a row fits the device at once (`n` at most `sm_count` · [`SM_WARPS`]: a
/// lane's compares run one after another, so fewer lanes a row only lengthen them), else the
/// fewest, a power of two, that read the row in one batch of [`THRESHOLD_BATCH`] loads a lane
/// (one lane up to 16 values, two up to 32, ..., 32 from 257; 32 where several warps read a
/// row), `32 / lanes` rows a warp. On an H200 a warp a row took 254 µs after 2^20 rows at
/// k = 16 (16 rows one after another a warp) and 8.8 µs after 16384 at k = 64, the fewest
/// lanes 57 and 6.2 µs, two rows a warp at 16384 rows 7.7; on 64 and 4096 rows a warp a row
/// took 3.2 and 4.2 µs, the fewest lanes 4.2 and 4.9 (docs/performance.md, "The threshold
/// launch, several rows a warp").
pub fn threshold_lanes_per_row(n: usize, k: u32, limits: &DeviceLimits) -> u32 {
    if n <= limits.sm_count.saturating_mul(SM_WARPS) {
        return 32;
    }
    k.div_ceil(THRESHOLD_BATCH).next_power_of_two().min(32)
}

/// The kernel a step runs, and its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kernel {
    /// A top-k launch.
    Select(Select),
    /// A sort launch.
    Sort(Sort),
    /// A gather launch.
    Gather(Gather),
    /// A threshold launch.
    Threshold(Threshold),
    /// A radix select's launch.
    Radix(Radix),
}

/// One kernel launch of a program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// What it does.
    pub name: StepKind,
    /// The split level it belongs to (0: the caller's rows; 1: their first candidates; ...).
    pub level: usize,
    /// The kernel's unit (of the launch's element type, 32-bit indices: the executor picks
    /// the index type).
    pub unit: Unit,
    /// Its grid.
    pub grid: Grid,
    /// The buffers it reads.
    pub reads: Vec<BufferId>,
    /// The buffers it writes.
    pub writes: Vec<BufferId>,
    /// Its arguments.
    pub kernel: Kernel,
}

/// A top-k's launches, in order, and the buffers they use.
#[derive(Clone, Debug, Serialize)]
pub struct Program {
    /// The request: shape, mode, sorted, element type and search.
    pub launch: Launch,
    /// The device limits it was planned for.
    pub limits: DeviceLimits,
    /// The strategy asked for.
    pub strategy: Strategy,
    /// Whether the iteration counts are written.
    pub counts: bool,
    /// The per-row arrays read (docs/contract.md §5).
    pub ragged: Ragged,
    /// How many times the rows are split.
    pub depth: usize,
    /// The buffers: the input, the outputs (values, indices and, with counts, iterations),
    /// then each split level's candidates.
    pub buffers: Vec<Buffer>,
    /// The launches, in order (none for `n = 0` or `k = 0`).
    pub steps: Vec<Step>,
}

impl Program {
    /// The buffer `id`.
    pub fn buffer(&self, id: BufferId) -> &Buffer {
        &self.buffers[id.0]
    }

    /// The units the program runs, in the order of its steps (each once).
    pub fn units(&self) -> Vec<Unit> {
        let mut out: Vec<Unit> = Vec::new();
        for s in &self.steps {
            if !out.contains(&s.unit) {
                out.push(s.unit);
            }
        }
        out
    }

    /// The caller's iteration counts output, where the program writes them.
    pub fn iterations(&self) -> Option<BufferId> {
        self.buffers.iter().position(|b| b.content == Content::Iterations).map(BufferId)
    }

    /// The caller's thresholds output, where the program writes them.
    pub fn threshold(&self) -> Option<BufferId> {
        self.buffers.iter().position(|b| b.content == Content::Threshold).map(BufferId)
    }

    /// The temporaries, in the order of [`Program::buffers`].
    pub fn temporaries(&self) -> impl Iterator<Item = (BufferId, &Buffer)> {
        self.buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.role == BufferRole::Temporary)
            .map(|(i, b)| (BufferId(i), b))
    }

    /// The first top-k plan (a split row's: the launch over its chunks), if any step runs.
    pub fn first_plan(&self) -> Option<Plan> {
        self.steps.iter().find_map(|s| match s.kernel {
            Kernel::Select(sel) => Some(sel.plan),
            _ => None,
        })
    }
}

/// Whether rows of `elem` at these strides, widths and offsets (in elements) allow 16-byte
/// loads from a 16-byte aligned buffer: each a multiple of the elements in 16 bytes (4 of
/// 32 bits, 8 of 16, 16 of 8).
pub fn vec4_rows(elem: ElemType, widths: &[u64]) -> bool {
    let per16 = (16 / elem.bytes()) as u64;
    widths.iter().all(|w| w % per16 == 0)
}

/// Whether `pieces` (`(start, width)` within a row of `row_len`) cover the row exactly: every
/// element once, none twice, none past its end. `Err` names the first element that is not.
pub fn tiles_row(row_len: u64, pieces: &[(u64, u64)]) -> Result<(), TileError> {
    let mut sorted: Vec<(u64, u64)> = pieces.to_vec();
    sorted.sort_unstable();
    let mut next = 0u64;
    for (start, width) in sorted {
        if start > next {
            return Err(TileError::Gap { at: next });
        }
        if start < next {
            return Err(TileError::Overlap { at: start });
        }
        next = start.saturating_add(width);
    }
    match next.cmp(&row_len) {
        std::cmp::Ordering::Less => Err(TileError::Gap { at: next }),
        std::cmp::Ordering::Greater => Err(TileError::Past { at: row_len }),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// How pieces fail to tile a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileError {
    /// Element `at` is read by no piece.
    Gap {
        /// The element.
        at: u64,
    },
    /// Element `at` is read by two pieces.
    Overlap {
        /// The element.
        at: u64,
    },
    /// A piece reads past the row's end, from `at` on.
    Past {
        /// The row's length.
        at: u64,
    },
}

impl TileError {
    /// The element the error is about.
    pub fn at(self) -> u64 {
        match self {
            TileError::Gap { at } | TileError::Overlap { at } | TileError::Past { at } => at,
        }
    }
}

/// The program of `launch` on a device of `limits` with `strategy`; `counts`: whether the
/// iteration counts are wanted (a program that splits rows has none). Errors as
/// [`crate::route()`]'s, and shapes whose buffers overflow 64 bits.
pub fn program(
    launch: &Launch,
    limits: &DeviceLimits,
    strategy: Strategy,
    counts: bool,
) -> Result<Program, PlanError> {
    program_ragged(launch, limits, strategy, counts, Ragged::default())
}

/// [`program()`] of a ragged request (docs/contract.md §5): `launch.k` is the output width
/// (the largest k asked), and the steps read the per-row arrays `ragged` names, buffers of
/// the program (`lengths`, `k_per_row`: one u32 per row; `hint`: one f32 per row), and a
/// last `row_threshold` step writes `threshold` (one f32 per row) where `ragged.threshold`.
/// Where [`crate::route()`] splits the rows, rows of their own length or k split with the same chunk
/// width, one level deep ([`crate::split::ragged_route`]). Hints are read where the rows run
/// whole, and where they split by the last select only: its rows are the row's candidates,
/// whose k-th value is the row's threshold, while a chunk's threshold is its own, which the
/// hint does not guess. So a hint never moves a request off its fastest route.
pub fn program_ragged(
    launch: &Launch,
    limits: &DeviceLimits,
    strategy: Strategy,
    counts: bool,
    ragged: Ragged,
) -> Result<Program, PlanError> {
    let r = if ragged.lengths || ragged.k_per_row {
        ragged_route(launch, limits, strategy, counts)?
    } else {
        route_of(launch, limits, strategy, counts, ragged.any())?
    };
    let read = Ragged { hint: ragged.hint && r.depth() == 0, ..ragged };
    let last_hint = ragged.hint && r.depth() > 0;
    let Launch { n, m, k, .. } = *launch;
    let too_large = |why| PlanError::TooLarge { n, m, why };
    let (n64, m64, k64) = (n as u64, m as u64, k as u64);
    let nm = n64.checked_mul(m64).ok_or(too_large("n * m elements"))?;
    let nk = n64.checked_mul(k64).ok_or(too_large("n * k results"))?;
    let mut b = Builder {
        launch: *launch,
        limits: *limits,
        buffers: Vec::new(),
        steps: Vec::new(),
        rows: None,
        last_hint: None,
        floor: None,
        strategy,
    };
    b.buffer("x", BufferRole::Input, Content::Values, nm, m64);
    b.buffer("values", BufferRole::Output, Content::Values, nk, k64);
    b.buffer("indices", BufferRole::Output, Content::Indices, nk, k64);
    let iterations =
        counts.then(|| b.buffer("iterations", BufferRole::Output, Content::Iterations, n64, 1));
    let lengths = BufferId(b.buffers.len());
    if ragged.lengths {
        b.buffer("lengths", BufferRole::Input, Content::Lengths, n64, 1);
    }
    let k_per_row = BufferId(b.buffers.len());
    if ragged.k_per_row {
        b.buffer("k_per_row", BufferRole::Input, Content::KPerRow, n64, 1);
    }
    let hint = BufferId(b.buffers.len());
    if ragged.hint {
        b.buffer("hint", BufferRole::Input, Content::Hint, n64, 1);
    }
    let threshold = ragged
        .threshold
        .then(|| b.buffer("threshold", BufferRole::Output, Content::Threshold, n64, 1));
    b.rows = RowArgs::of(read, lengths, k_per_row, hint);
    b.last_hint = last_hint.then_some(hint);
    if n > 0 && k > 0 {
        let input = Region { buffer: INPUT, offset: 0, ld: m64 };
        b.emit(&r, 0, m, input, iterations)?;
    }
    if let Some(threshold) = threshold.filter(|_| n > 0) {
        b.threshold_step(threshold, m, ragged, lengths, k_per_row);
    }
    Ok(Program {
        launch: *launch,
        limits: *limits,
        strategy,
        counts,
        ragged,
        depth: r.depth(),
        buffers: b.buffers,
        steps: b.steps,
    })
}

/// The most rows a chunk launch has, plus one: the kernels find a chunk's row and place in
/// 32-bit arithmetic (`chunk_of`). 2^32 chunks of at least 2048 elements each would be 2^43
/// elements, more than any device holds.
pub const MAX_CHUNK_ROWS: u64 = 1 << 32;

/// The rows of a chunk launch over `n` rows of `m` cut into `full` chunks each: fewer than
/// [`MAX_CHUNK_ROWS`], else [`PlanError::TooLarge`].
fn chunk_rows(n: usize, m: usize, full: u64) -> Result<u64, PlanError> {
    let rows = (n as u64).saturating_mul(full);
    if rows >= MAX_CHUNK_ROWS {
        return Err(PlanError::TooLarge { n, m, why: "2^32 chunks or more" });
    }
    Ok(rows)
}

/// A program under construction.
struct Builder {
    launch: Launch,
    limits: DeviceLimits,
    buffers: Vec<Buffer>,
    steps: Vec<Step>,
    /// The per-row arrays every step of a ragged program reads.
    rows: Option<RowArgs>,
    /// The hints' buffer where the rows split: read by the last select alone.
    last_hint: Option<BufferId>,
    /// The split rows' floors, once a chunk select takes them: every level's chunks share
    /// them (each level selects the same rows' top k).
    floor: Option<BufferId>,
    /// The strategy the program was asked for ([`takes_floor`]).
    strategy: Strategy,
}

impl Builder {
    /// The floors' buffer for a chunk select of `plan`, made by the first that takes it.
    fn floor_for(&mut self, plan: &Plan) -> Option<BufferId> {
        if !takes_floor(&self.launch, self.strategy, plan) {
            return None;
        }
        if self.floor.is_none() {
            let n = self.launch.n as u64;
            self.floor = Some(self.buffer("floor", BufferRole::Temporary, Content::Floor, n, 1));
        }
        self.floor
    }

    fn buffer(
        &mut self,
        name: &str,
        role: BufferRole,
        content: Content,
        elements: u64,
        row_len: u64,
    ) -> BufferId {
        self.buffers.push(Buffer { name: name.to_string(), role, content, elements, row_len });
        BufferId(self.buffers.len() - 1)
    }

    /// The steps of `route` over the level's rows of `m` in `input`, into the caller's outputs.
    fn emit(
        &mut self,
        route: &Route,
        level: usize,
        m: usize,
        input: Region,
        iterations: Option<BufferId>,
    ) -> Result<(), PlanError> {
        let Launch { n, k, elem, .. } = self.launch;
        let (n64, m64, k64) = (n as u64, m as u64, k as u64);
        match route {
            Route::Direct(plan) => {
                let outputs = Region { buffer: VALUES, offset: 0, ld: k64 };
                let sel = Select {
                    plan: Plan { sort: None, ..*plan },
                    n_rows: n64,
                    m: m as u32, // < 2^32: the plan checked
                    k: k as u32,
                    chunks: 1,
                    input,
                    output: outputs,
                    indices: INDICES,
                    iterations,
                    vec4: vec4_rows(elem, &[m64]),
                    rows: self.last_rows(self.rows),
                    sorted: self.launch.sorted
                        && matches!(plan.family(), Family::PickRows | Family::WideRows),
                    floor: None,
                };
                self.select(StepKind::SelectRows, level, sel);
                if let Some(sort) = plan.sort {
                    self.sort(sort, level, m, input);
                }
                Ok(())
            }
            Route::Radix(r) => self.radix(r, level, m, input),
            Route::Split { split, rest } if self.rows.is_some() => {
                self.ragged_split(split, rest, m, input)
            }
            Route::Split { split, rest } => {
                let width = split.candidates(k);
                let w64 = width as u64;
                let too_large = PlanError::TooLarge { n, m, why: "the split rows' candidates" };
                let count = n64.checked_mul(w64).ok_or(too_large)?;
                let next = level + 1;
                let name = |what| format!("candidate_{what}_{next}");
                let cv = self.buffer(
                    &name("values"),
                    BufferRole::Temporary,
                    Content::Values,
                    count,
                    w64,
                );
                let ci = self.buffer(
                    &name("indices"),
                    BufferRole::Temporary,
                    Content::Indices,
                    count,
                    w64,
                );
                let (chunk, full) = (split.chunk as u64, split.full as u64);
                let n_rows = chunk_rows(n, m, full)?;
                let floor = self.floor_for(&split.first_plan);
                let chunks = Select {
                    plan: split.first_plan,
                    n_rows,
                    m: split.chunk as u32,
                    k: k as u32,
                    chunks: split.full as u32,
                    input,
                    output: Region { buffer: cv, offset: 0, ld: w64 },
                    indices: ci,
                    iterations: None,
                    vec4: vec4_rows(elem, &[m64, chunk]),
                    rows: None,
                    sorted: false,
                    floor,
                };
                self.select(StepKind::SelectChunks, level, chunks);
                if let Some(last_plan) = split.last_plan {
                    let before = full * chunk;
                    let floor = self.floor_for(&last_plan);
                    let last = Select {
                        plan: last_plan,
                        n_rows: n64,
                        m: split.last as u32,
                        k: k as u32,
                        chunks: 1,
                        input: Region { offset: input.offset + before, ..input },
                        output: Region { buffer: cv, offset: full * k64, ld: w64 },
                        indices: ci,
                        iterations: None,
                        vec4: vec4_rows(elem, &[m64, split.last as u64, before]),
                        rows: None,
                        sorted: false,
                        floor,
                    };
                    self.select(StepKind::SelectLastChunks, level, last);
                }
                let second = Region { buffer: cv, offset: 0, ld: w64 };
                self.emit(rest, next, width, second, None)?;
                self.gather(level, split, split.full, (input, m64), (ci, None));
                Ok(())
            }
        }
    }

    /// The steps of a radix select over the level's rows of `m` in `input` (crate::radix):
    /// a `radix_digits` step per digit, `radix_count`, `radix_write` into the caller's outputs
    /// (or, on a split's second stage, its positions, which the gather turns into indices),
    /// then the sort for sorted output.
    fn radix(
        &mut self,
        r: &RadixPlan,
        level: usize,
        m: usize,
        input: Region,
    ) -> Result<(), PlanError> {
        let Launch { n, k, .. } = self.launch;
        let too_large = PlanError::TooLarge { n, m, why: "the radix select's words" };
        let ld = r.row_words();
        let words_ld = u32::try_from(ld).map_err(|_| too_large.clone())?;
        let count = (n as u64).checked_mul(ld).ok_or(too_large)?;
        let words = self.buffer(
            &format!("radix_{level}"),
            BufferRole::Temporary,
            Content::Radix,
            count,
            ld,
        );
        let capacity = radix_capacity(u64::from(r.slice));
        let row_len = 2 * capacity * u64::from(r.blocks_per_row); // <= 2 (m + 8 blocks)
        let too_large = PlanError::TooLarge { n, m, why: "the radix select's candidates" };
        let count = (n as u64).checked_mul(row_len).ok_or(too_large)?;
        let candidates = self.buffer(
            &format!("radix_candidates_{level}"),
            BufferRole::Temporary,
            Content::RadixCandidates,
            count,
            row_len,
        );
        let args = Radix {
            n_rows: n as u64,
            m: m as u32, // < 2^32: the plan checked
            k: k as u32,
            input,
            output: Region { buffer: VALUES, offset: 0, ld: k as u64 },
            indices: INDICES,
            words,
            words_ld,
            candidates,
            capacity: capacity as u32, // <= slice / 8 + 1 < 2^32
            slice: r.slice,
            blocks_per_row: r.blocks_per_row,
            shift: 0,
            bits: 0,
            rows: self.rows.map(RowArgs::without_hint).filter(|a| a.buffers().next().is_some()),
        };
        let row_bufs: Vec<BufferId> = args.rows.iter().flat_map(RowArgs::buffers).collect();
        let grid = Grid {
            blocks: (n as u64 * u64::from(r.blocks_per_row)) as u32, // < 2^31: the plan checked
            threads: RADIX_THREADS,
            shared_bytes: 0,
            cluster: 1,
        };
        let unit = Unit::radix(self.launch.elem);
        let passes = digits(r.key_bits);
        let with_rows = |mut reads: Vec<BufferId>| {
            reads.extend_from_slice(&row_bufs);
            reads
        };
        if r.sample {
            // the first digit's floor, from a sample of the row
            let (shift, bits) = passes[0];
            self.steps.push(Step {
                name: StepKind::RadixSample,
                level,
                unit,
                grid,
                reads: with_rows(vec![input.buffer, words]),
                writes: vec![words],
                kernel: Kernel::Radix(Radix { shift, bits, ..args }),
            });
        }
        // the first pass keeps the candidates where the sample found a floor, else the second;
        // the passes after it, the count and the write read them (or the row, where they did
        // not fit)
        for (pass, (shift, bits)) in passes.into_iter().enumerate() {
            let kernel = Kernel::Radix(Radix { shift, bits, ..args });
            let (reads, writes) = match pass {
                0 if r.sample => (vec![input.buffer, words], vec![words, candidates]),
                0 => (vec![input.buffer, words], vec![words]),
                1 if r.sample => (vec![input.buffer, words, candidates], vec![words, candidates]),
                1 => (vec![input.buffer, words], vec![words, candidates]),
                _ => (vec![input.buffer, words, candidates], vec![words]),
            };
            let reads = with_rows(reads);
            let step =
                Step { name: StepKind::RadixDigits, level, unit, grid, reads, writes, kernel };
            self.steps.push(step);
        }
        self.steps.push(Step {
            name: StepKind::RadixCount,
            level,
            unit,
            grid,
            reads: with_rows(vec![input.buffer, words, candidates]),
            writes: vec![words],
            kernel: Kernel::Radix(args),
        });
        self.steps.push(Step {
            name: StepKind::RadixWrite,
            level,
            unit,
            grid,
            reads: with_rows(vec![input.buffer, words, candidates]),
            writes: vec![VALUES, INDICES],
            kernel: Kernel::Radix(args),
        });
        if let Some(sort) = r.sort {
            self.sort(sort, level, m, input);
        }
        Ok(())
    }

    /// The `row_threshold` step after every other: it reads the values output (and the
    /// lengths and per-row k where given) and writes `threshold`. With `k = 0` nothing is
    /// selected: it writes NaN everywhere.
    fn threshold_step(
        &mut self,
        threshold: BufferId,
        m: usize,
        ragged: Ragged,
        lengths: BufferId,
        k_per_row: BufferId,
    ) {
        let Launch { n, k, elem, .. } = self.launch;
        let rows = RowArgs {
            lengths: ragged.lengths.then_some(lengths),
            k_per_row: ragged.k_per_row.then_some(k_per_row),
            hint: None,
            split: None,
        };
        let rows = (rows.lengths.is_some() || rows.k_per_row.is_some()).then_some(rows);
        let warps_per_row = threshold_warps_per_row(k as u32);
        let lanes_per_row = threshold_lanes_per_row(n, k as u32, &self.limits);
        let per_block = (THRESHOLD_THREADS / 32 / warps_per_row * (32 / lanes_per_row)) as usize;
        let cap = self.limits.sm_count.saturating_mul(GATHER_BLOCKS_PER_SM).max(1);
        let blocks = n.div_ceil(per_block).clamp(1, cap);
        let kernel = Threshold {
            n_rows: n as u64,
            m: m as u32, // < 2^32: the route checked
            k: k as u32,
            warps_per_row,
            lanes_per_row,
            values: VALUES,
            threshold,
            rows,
        };
        self.steps.push(Step {
            name: StepKind::RowThreshold,
            level: 0,
            unit: Unit::threshold(elem),
            grid: Grid {
                blocks: blocks as u32,
                threads: THRESHOLD_THREADS,
                shared_bytes: 0,
                cluster: 1,
            },
            // k = 0: no value is read (nothing is selected)
            reads: (k > 0)
                .then_some(VALUES)
                .into_iter()
                .chain(rows.iter().flat_map(RowArgs::buffers))
                .collect(),
            writes: vec![threshold],
            kernel: Kernel::Threshold(kernel),
        });
    }

    /// `rows` of the select that writes the caller's results: with the hints where the rows
    /// split (a whole row's selects have them in `rows` already).
    fn last_rows(&self, rows: Option<RowArgs>) -> Option<RowArgs> {
        let Some(hint) = self.last_hint else { return rows };
        let none = RowArgs { lengths: None, k_per_row: None, hint: None, split: None };
        Some(RowArgs { hint: Some(hint), ..rows.unwrap_or(none) })
    }

    /// The sort of the results of the level's rows of `m` in `input`.
    fn sort(&mut self, sort: SortPlan, level: usize, m: usize, input: Region) {
        let Launch { n, k, .. } = self.launch;
        let warp_sort = sort_warp_shape(sort.unit.width());
        let kernel = Sort {
            n_rows: n as u64,
            m: m as u32,
            k: k as u32,
            input,
            values: VALUES,
            indices: INDICES,
            lanes_per_row: if sort.shape.is_some() { 0 } else { warp_sort.0 },
            results_per_lane: if sort.shape.is_some() { 0 } else { warp_sort.1 },
            shape: sort.shape,
            rows: self.rows.map(RowArgs::without_hint),
        };
        self.steps.push(Step {
            name: StepKind::SortRows,
            level,
            unit: sort.unit,
            grid: Grid {
                blocks: sort.grid,
                threads: sort.block,
                shared_bytes: sort.dynamic_shared,
                cluster: sort.shape.map_or(1, |s| s.parts),
            },
            reads: [input.buffer, VALUES, INDICES]
                .into_iter()
                .chain(kernel.rows.iter().flat_map(RowArgs::buffers))
                .collect(),
            writes: vec![VALUES, INDICES],
            kernel: Kernel::Sort(kernel),
        });
    }

    /// A ragged split of the caller's rows of `m` in `input` (docs/kernel.md, "Split rows";
    /// [`crate::split::ragged_route`]): `select_chunks` over every chunk, each of its own
    /// length and k, into the row's candidates (chunk `c`'s at `c k_i`: the valid ones a
    /// prefix), `select_rows` over the candidates as rows of their own length
    /// ([`SplitRows::candidates`]), `gather_indices`, then the sort over the caller's rows
    /// (whose indices the results hold by then).
    fn ragged_split(
        &mut self,
        split: &Split,
        rest: &Route,
        m: usize,
        input: Region,
    ) -> Result<(), PlanError> {
        let Launch { n, k, elem, .. } = self.launch;
        let too_large = |why| PlanError::TooLarge { n, m, why };
        let (Route::Direct(second), Some(rows)) = (rest, self.rows) else {
            let why = "a ragged split is one level deep";
            return Err(PlanError::Split { n, m, k, why });
        };
        let row_m = u32::try_from(m).map_err(|_| too_large("M >= 2^32"))?;
        let geometry = SplitRows { row_m, chunk: split.chunk as u32 };
        let split_rows = Some(RowArgs { split: Some(geometry), hint: None, ..rows });
        let (n64, m64, k64) = (n as u64, m as u64, k as u64);
        let width = split.candidates(k) as u64; // < 2^32: the route checked
        let count = n64.checked_mul(width).ok_or(too_large("the split rows' candidates"))?;
        let (temp, values, indices) = (BufferRole::Temporary, Content::Values, Content::Indices);
        let cv = self.buffer("candidate_values_1", temp, values, count, width);
        let ci = self.buffer("candidate_indices_1", temp, indices, count, width);
        let candidates = Region { buffer: cv, offset: 0, ld: width };
        let chunks = Select {
            plan: split.first_plan,
            n_rows: chunk_rows(n, m, split.full as u64)?,
            m: split.chunk as u32,
            k: k as u32,
            chunks: split.full as u32,
            input,
            output: candidates,
            indices: ci,
            iterations: None,
            vec4: vec4_rows(elem, &[m64, split.chunk as u64]),
            rows: split_rows,
            sorted: false,
            floor: None, // a ragged split's chunks select their rows' own k: no floor
        };
        self.select(StepKind::SelectChunks, 0, chunks);
        let second_stage = Select {
            plan: Plan { sort: None, ..*second },
            n_rows: n64,
            m: width as u32,
            k: k as u32,
            chunks: 1,
            input: candidates,
            output: Region { buffer: VALUES, offset: 0, ld: k64 },
            indices: INDICES,
            iterations: None,
            vec4: vec4_rows(elem, &[width]),
            rows: self.last_rows(split_rows),
            sorted: false, // ragged rows never pick
            floor: None,
        };
        self.select(StepKind::SelectRows, 1, second_stage);
        // the last chunk is cut at the row's end: the gather's chunks are full - 1 whole ones
        // and that one
        self.gather(0, split, split.full - 1, (input, m64), (ci, rows.k_per_row));
        if let Some(sort) = second.sort {
            self.sort(sort, 0, m, input);
        }
        Ok(())
    }

    /// The gather of a split level over its rows of `row_len` in `input` (of `full` whole
    /// chunks, then the one that ends the row), from the chunk indices `ci`.
    fn gather(
        &mut self,
        level: usize,
        split: &Split,
        full: usize,
        (input, row_len): (Region, u64),
        (ci, k_per_row): (BufferId, Option<BufferId>),
    ) {
        let Launch { n, k, .. } = self.launch;
        let total = n.saturating_mul(k);
        let cap = self.limits.sm_count.saturating_mul(GATHER_BLOCKS_PER_SM);
        let blocks = total.div_ceil(GATHER_THREADS as usize).min(cap).max(1);
        let gather = Gather {
            n_rows: n as u64,
            k: k as u32,
            width: split.candidates(k) as u32, // < 2^32: the route checked
            chunk: split.chunk as u32,
            full: full as u32,
            input,
            row_len,
            candidates: ci,
            indices: INDICES,
            values: VALUES,
            k_per_row,
        };
        self.steps.push(Step {
            name: StepKind::GatherIndices,
            level,
            unit: Unit::single(Family::SplitGather),
            grid: Grid {
                blocks: blocks as u32,
                threads: GATHER_THREADS,
                shared_bytes: 0,
                cluster: 1,
            },
            reads: [ci, INDICES].into_iter().chain(k_per_row).collect(),
            writes: vec![INDICES],
            kernel: Kernel::Gather(gather),
        });
    }

    fn select(&mut self, name: StepKind, level: usize, mut sel: Select) {
        // rows of their own length or k run the units built for them (units.rs)
        sel.plan.unit = sel.plan.unit.with_ragged(sel.rows.is_some());
        let mut writes = vec![sel.output.buffer, sel.indices];
        writes.extend(sel.iterations);
        writes.extend(sel.floor);
        let p = sel.plan;
        self.steps.push(Step {
            name,
            level,
            unit: p.unit,
            grid: Grid {
                blocks: p.grid,
                threads: p.block,
                shared_bytes: p.dynamic_shared,
                cluster: p.cluster,
            },
            reads: std::iter::once(sel.input.buffer)
                .chain(sel.rows.iter().flat_map(RowArgs::buffers))
                .chain(sel.floor)
                .collect(),
            writes,
            kernel: Kernel::Select(sel),
        });
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::split::BLOCK_REGISTER_ROW;

    /// An H100 that launches no clusters: the split and one-block routes these tests are
    /// about (crate::cluster's tests, and `few_long_rows_run_as_one_cluster_step`, the rest).
    fn h100() -> DeviceLimits {
        DeviceLimits { max_cluster: 1, ..DeviceLimits::preset("h100").unwrap() }
    }

    #[test]
    fn few_long_rows_run_as_one_cluster_step() {
        let limits = DeviceLimits::preset("h100").unwrap();
        let p = program(&launch(2, 100_000, 2048), &limits, Strategy::Auto, true).unwrap();
        assert_eq!(names(&p), ["select_rows"]);
        let s = &p.steps[0];
        // a wide cluster (cluster::WIDE_PLAIN_MIN_ROW)
        assert_eq!((s.unit.family(), s.grid.cluster, s.grid.blocks), (Family::ClusterRows, 16, 32));
        // the counts are the row's own: the search is the row's
        assert!(select(s).iterations.is_some());
        // sorted: the sort follows; a row of 2^21 clusters its second stage
        let sorted = Launch { sorted: true, ..launch(1, 100_000, 2048) };
        let p = program(&sorted, &limits, Strategy::Auto, false).unwrap();
        assert_eq!(names(&p), ["select_rows", "sort_rows"]);
        let p = program(&launch(1, 1 << 21, 256), &limits, Strategy::Auto, false).unwrap();
        let last = p.steps.iter().rev().find(|s| s.name == StepKind::SelectRows).unwrap();
        assert_eq!(last.unit.family(), Family::ClusterRows);
        // a forced strategy keeps its family
        let p = program(&launch(2, 100_000, 2048), &limits, Strategy::Block, false).unwrap();
        assert_eq!(p.steps[0].unit.family(), Family::BlockRows);
    }

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

    fn auto(l: &Launch, counts: bool) -> Program {
        let p = program(l, &h100(), Strategy::Auto, counts).unwrap();
        check(&p);
        p
    }

    /// `l`'s program split as the default splits rows it cannot fill the GPU with.
    fn forced(l: &Launch) -> Program {
        let p = program(l, &h100(), Strategy::Split, false).unwrap();
        check(&p);
        p
    }

    /// The floor (docs/kernel.md, "Split rows: the floor"): one buffer of a key per row, read
    /// and written by every chunk select (every level's) whose unit has a floor entry, of a
    /// row of FLOOR_MIN_ROW or more, of rows of FLOOR_MIN_ELEMENTS in all (of
    /// FLOOR_MIN_BLOCK_ELEMENTS for whole-chunk block rows), or of any forced split; never by
    /// the selects of whole rows, of smaller splits, of integer rows or of ragged rows.
    #[test]
    fn chunk_selects_of_long_rows_share_the_floor() {
        let limits = DeviceLimits::preset("h200").unwrap();
        let floors = |l: &Launch, strategy, ragged| {
            let p = program_ragged(l, &limits, strategy, false, ragged).unwrap();
            let ids: Vec<(StepKind, Option<BufferId>, Unit)> = p
                .steps
                .iter()
                .filter_map(|s| match s.kernel {
                    Kernel::Select(sel) => Some((s.name, sel.floor, sel.plan.unit)),
                    _ => None,
                })
                .collect();
            (p, ids)
        };
        let plain = Ragged::default();
        let (p, sels) = floors(&launch(1, 1 << 28, 50), Strategy::Auto, plain);
        let buffer = p.buffers.iter().position(|b| b.content == Content::Floor).map(BufferId);
        let buffer = buffer.expect("a floor buffer");
        assert_eq!(p.buffers[buffer.0].elements, 1);
        assert_eq!(p.buffers[buffer.0].role, BufferRole::Temporary);
        for (name, floor, unit) in &sels {
            let chunks = *name != StepKind::SelectRows;
            assert_eq!(*floor, chunks.then_some(buffer), "{name:?} {unit}");
            assert!(!chunks || unit.has_floor_entry(), "{unit}");
        }
        assert!(sels.iter().filter(|s| s.1.is_some()).count() >= 2, "every level's chunks");
        let step = p.steps.iter().find(|s| s.name == StepKind::SelectChunks).unwrap();
        assert!(step.reads.contains(&buffer) && step.writes.contains(&buffer));
        // rows below FLOOR_MIN_ROW split without it below FLOOR_MIN_ELEMENTS in all (below
        // FLOOR_MIN_BLOCK_ELEMENTS where the chunks are whole-chunk block rows), unless the
        // split is forced
        let family = |l: &Launch| {
            let (_, sels) = floors(l, Strategy::Auto, plain);
            let chunk = sels.iter().find(|s| s.0 == StepKind::SelectChunks).expect("a split");
            (chunk.2.family(), chunk.1.is_some())
        };
        assert_eq!(family(&launch(16, 1 << 20, 64)), (Family::WarpRows, false));
        assert_eq!(family(&launch(64, 1 << 20, 64)), (Family::WarpRows, true));
        assert_eq!(family(&launch(16, 1 << 20, 256)), (Family::BlockRowsNarrow, false));
        assert_eq!(family(&launch(9, 1 << 20, 1024)), (Family::BlockRows, false));
        assert_eq!(family(&launch(16, 1 << 20, 1024)), (Family::BlockRows, true));
        assert_eq!(family(&launch(32, 500_000, 2048)), (Family::BlockRows, true));
        let (_, sels) = floors(&launch(2, 20_001, 64), Strategy::Split, plain);
        assert!(sels.iter().any(|s| s.1.is_some()));
        // integer rows and ragged rows never
        let ints = Launch { elem: ElemType::I32, ..launch(1, 1 << 26, 64) };
        let (_, sels) = floors(&ints, Strategy::Auto, plain);
        assert!(sels.iter().all(|s| s.1.is_none()) && sels.len() > 1);
        let lengths = Ragged { lengths: true, ..Ragged::default() };
        let (_, sels) = floors(&launch(64, 1 << 20, 64), Strategy::Auto, lengths);
        assert!(sels.iter().all(|s| s.1.is_none()) && sels.len() > 1);
        let f16 = Launch { elem: ElemType::F16, ..launch(1, 1 << 26, 200) };
        let (_, sels) = floors(&f16, Strategy::Auto, plain);
        assert!(sels.iter().any(|s| s.1.is_some()));
    }

    /// A split whose chunk launch would have 2^32 rows or more is too large (the kernels
    /// place chunks in 32-bit arithmetic), never a program whose rows wrap.
    #[test]
    fn chunk_launches_have_fewer_than_2_32_rows() {
        let limits = DeviceLimits::preset("h200").unwrap();
        let err = program(&launch(1 << 22, 1 << 21, 64), &limits, Strategy::Auto, false);
        match err {
            Err(PlanError::TooLarge { why, .. }) => assert_eq!(why, "2^32 chunks or more"),
            other => panic!("{other:?}"),
        }
        let p = program(&launch(1 << 10, 1 << 21, 64), &limits, Strategy::Auto, false).unwrap();
        for s in &p.steps {
            if let Kernel::Select(sel) = s.kernel {
                assert!(sel.n_rows < MAX_CHUNK_ROWS, "{sel:?}");
            }
        }
    }

    fn names(p: &Program) -> Vec<&'static str> {
        p.steps.iter().map(|s| s.name.name()).collect()
    }

    fn select(s: &Step) -> Select {
        match s.kernel {
            Kernel::Select(sel) => sel,
            other => panic!("{other:?} is not a select"),
        }
    }

    /// The last element a region's `rows` rows of `width` touch, plus one.
    fn end(r: &Region, rows: u64, width: u64) -> u64 {
        if rows == 0 { r.offset } else { r.offset + (rows - 1) * r.ld + width }
    }

    /// Every program's invariants: steps touch only their buffers' elements, read only what
    /// the caller gave or an earlier step wrote, the chunk steps of a level cover its rows
    /// exactly, and the grids cover the rows.
    fn check(p: &Program) {
        let len = |id: BufferId| p.buffer(id).elements;
        // the caller's inputs, and the floors, which the executor zeroes before the first step
        let inputs = p.buffers.iter().enumerate().filter(|(_, b)| {
            b.role == BufferRole::Input || matches!(b.content, Content::Floor | Content::Radix)
        });
        let mut written: BTreeSet<BufferId> = inputs.map(|(i, _)| BufferId(i)).collect();
        let mut pieces: Vec<Vec<(u64, u64)>> = vec![Vec::new(); p.depth + 1];
        for s in &p.steps {
            for r in &s.reads {
                assert!(
                    written.contains(r),
                    "{:?} reads {} before it is written",
                    s.name,
                    p.buffer(*r).name
                );
            }
            match s.kernel {
                Kernel::Select(sel) => {
                    let rows = sel.n_rows / u64::from(sel.chunks);
                    let k = u64::from(sel.k);
                    let chunks = u64::from(sel.chunks);
                    assert!(end(&sel.input, rows, sel.span()) <= len(sel.input.buffer), "{s:?}");
                    assert!(end(&sel.output, rows, chunks * k) <= len(sel.output.buffer), "{s:?}");
                    assert!(end(&sel.output, rows, chunks * k) <= len(sel.indices), "{s:?}");
                    assert_eq!(s.unit, sel.plan.unit);
                    assert!(sel.plan.sort.is_none());
                    // the grid covers the kernel rows
                    let per_block = match sel.plan.row_lanes() {
                        Some(lanes) => u64::from(s.grid.threads) / lanes as u64,
                        None => 1,
                    };
                    assert!(u64::from(s.grid.blocks) * per_block >= sel.n_rows, "{s:?}");
                    if let Some(it) = sel.iterations {
                        assert_eq!(len(it), sel.n_rows);
                    }
                    if s.name != StepKind::SelectRows {
                        pieces[s.level].extend(sel.pieces());
                    }
                }
                Kernel::Sort(sort) => {
                    assert!(
                        end(&sort.input, sort.n_rows, u64::from(sort.m)) <= len(sort.input.buffer)
                    );
                    assert_eq!(len(sort.values), sort.n_rows * u64::from(sort.k));
                }
                Kernel::Threshold(t) => {
                    assert_eq!(len(t.threshold), t.n_rows);
                    assert_eq!(len(t.values), t.n_rows * u64::from(t.k));
                }
                Kernel::Radix(r) => {
                    let (slice, parts) = (u64::from(r.slice), u64::from(r.blocks_per_row));
                    let m = u64::from(r.m);
                    // the parts cover each row once; the grid is every part of every row
                    assert!(slice * parts >= m && slice * (parts - 1) < m, "{s:?}");
                    assert_eq!(u64::from(s.grid.blocks), r.n_rows * parts, "{s:?}");
                    assert!(end(&r.input, r.n_rows, m) <= len(r.input.buffer), "{s:?}");
                    assert_eq!(len(r.words), r.n_rows * u64::from(r.words_ld));
                    let warps = u64::from(crate::radix::RADIX_WARPS);
                    assert_eq!(
                        u64::from(r.words_ld),
                        crate::radix::RADIX_BINS
                            + crate::radix::RADIX_STATE_WORDS
                            + 2 * parts * (1 + warps)
                            + parts
                    );
                    let cap = crate::radix::radix_capacity(slice);
                    assert_eq!(u64::from(r.capacity), cap);
                    assert_eq!(len(r.candidates), r.n_rows * parts * 2 * cap);
                    let k = u64::from(r.k);
                    assert!(end(&r.output, r.n_rows, k) <= len(r.output.buffer), "{s:?}");
                    assert!(end(&r.output, r.n_rows, k) <= len(r.indices), "{s:?}");
                }
                Kernel::Gather(g) => {
                    assert_eq!(len(g.candidates), g.n_rows * u64::from(g.width));
                    assert_eq!(g.input.ld, g.row_len);
                    let last = g.chunk_span(u64::from(g.width / g.k) - 1);
                    assert_eq!(last.1, g.row_len, "the last chunk ends the row");
                    let threads = u64::from(s.grid.blocks) * u64::from(s.grid.threads);
                    assert!(threads >= 1 && s.grid.blocks as usize <= p.limits.sm_count * 64);
                }
            }
            written.extend(s.writes.iter().copied());
        }
        // the chunk steps of each split level tile its rows
        for s in &p.steps {
            if let Kernel::Gather(g) = s.kernel {
                assert_eq!(tiles_row(g.row_len, &pieces[s.level]), Ok(()), "level {}", s.level);
            }
        }
        if p.launch.k > 0 && !p.steps.is_empty() {
            assert!(written.contains(&VALUES) && written.contains(&INDICES));
            assert_eq!(p.iterations().is_some_and(|it| written.contains(&it)), p.counts);
        }
    }

    #[test]
    fn direct_rows_are_one_step_of_the_plans_family() {
        let many = 1024 * 132;
        for (n, m, k, family) in [
            (many, 100, 9, Family::QuarterRows),
            (10, 100, 9, Family::HalfRows),
            (10, 1000, 5, Family::WarpRows),
            (1000, 10_000, 600, Family::BlockRows),
            (10, 5000, 100, Family::BlockRowsNarrow),
        ] {
            for counts in [true, false] {
                let l = launch(n, m, k);
                let p = auto(&l, counts);
                assert_eq!(names(&p), ["select_rows"], "N={n} M={m}");
                let plan = crate::plan(&l, &h100(), Strategy::Auto).unwrap();
                let s = &p.steps[0];
                assert_eq!(s.unit.family(), family);
                assert_eq!(
                    s.grid,
                    Grid {
                        blocks: plan.grid,
                        threads: plan.block,
                        shared_bytes: plan.dynamic_shared,
                        cluster: plan.cluster,
                    }
                );
                let sel = select(s);
                assert_eq!(
                    (sel.n_rows, sel.m as usize, sel.k as usize, sel.chunks),
                    (n as u64, m, k, 1)
                );
                assert_eq!(sel.input, Region { buffer: INPUT, offset: 0, ld: m as u64 });
                assert_eq!(sel.output, Region { buffer: VALUES, offset: 0, ld: k as u64 });
                assert_eq!(sel.iterations, p.iterations());
                assert_eq!(p.iterations().is_some(), counts);
                assert_eq!(p.buffers.len(), 3 + usize::from(counts));
                assert_eq!(p.depth, 0);
            }
        }
        // sorted pick rows sort themselves: one step, no sort
        let sorted = Launch { sorted: true, ..launch(10, 50, 5) };
        let p = auto(&sorted, false);
        assert_eq!(names(&p), ["select_rows"]);
        assert!(select(&p.steps[0]).sorted);
        assert!(!select(&auto(&launch(10, 50, 5), false).steps[0]).sorted);
        assert!(!select(&auto(&sorted, true).steps[0]).sorted, "the bisection sorts after");
        // short rows of small k pick (crate::pick) where no counts are wanted
        for (m, k, counts, family) in [
            (50, 5, false, Family::PickRows),
            (50, 5, true, Family::HalfRows),
            (32, 8, false, Family::PickRows),
            (100, 5, false, Family::HalfRows), // f32 rows of M * k > 256 are bisected
            (100, 9, false, Family::HalfRows),
        ] {
            let p = auto(&launch(10, m, k), counts);
            assert_eq!(p.steps[0].unit.family(), family, "M={m} k={k} counts={counts}");
        }
        // 64-bit rows take the wide rows (crate::wide), which sort their own results, with
        // or without counts; per-row arrays take their ragged twins, thresholds the 64-bit
        // threshold unit
        for elem in ElemType::WIDE {
            for (m, k, counts) in [(50, 5, false), (9000, 100, true), (100_000, 2000, false)] {
                let l = Launch { sorted: true, elem, ..launch(10, m, k) };
                let p = auto(&l, counts);
                assert_eq!(names(&p), ["select_rows"]);
                assert_eq!(p.steps[0].unit.family(), Family::WideRows);
                assert!(select(&p.steps[0]).sorted);
                assert_eq!(p.iterations().is_some(), counts);
            }
            let l = Launch { elem, ..launch(10, 300, 5) };
            let all = Ragged { lengths: true, k_per_row: true, hint: true, threshold: true };
            for ragged in [all, Ragged { hint: true, ..Ragged::default() }] {
                let p = program_ragged(&l, &h100(), Strategy::Auto, true, ragged).unwrap();
                check(&p);
                assert_eq!(
                    p.steps[0].unit,
                    Unit::wide(elem, crate::IndexType::U32, 16).with_ragged(true)
                );
                assert_eq!(
                    p.steps[0].unit.to_string(),
                    format!("rtopk_wide_rows_ragged_16{}", elem.suffix())
                );
            }
            let p = program_ragged(&l, &h100(), Strategy::Auto, false, all).unwrap();
            assert_eq!(names(&p), ["select_rows", "row_threshold"]);
            assert_eq!(p.steps[1].unit, Unit::threshold(elem));
            let e = program(&l, &h100(), Strategy::Split, false).unwrap_err();
            assert!(matches!(e, PlanError::Wide { .. }), "{e}");
        }
        // nothing to do: no steps, the buffers still described
        for l in [launch(0, 100, 5), launch(10, 100, 0)] {
            let p = auto(&l, true);
            assert!(p.steps.is_empty());
            assert_eq!(p.buffers.len(), 4);
        }
    }

    #[test]
    fn sorted_output_adds_a_sort_over_the_outputs() {
        for (k, (lanes, per_lane), shape) in [(100, (8, 16), false), (2000, (0, 0), true)] {
            let l = Launch { sorted: true, ..launch(7, 9000, k) };
            let p = auto(&l, true);
            assert_eq!(names(&p), ["select_rows", "sort_rows"]);
            let Kernel::Sort(sort) = p.steps[1].kernel else { panic!() };
            assert_eq!((sort.n_rows, sort.m, sort.k as usize), (7, 9000, k));
            assert_eq!(sort.input.buffer, INPUT);
            assert_eq!((sort.values, sort.indices), (VALUES, INDICES));
            assert_eq!((sort.lanes_per_row, sort.results_per_lane), (lanes, per_lane));
            assert_eq!(sort.shape.is_some(), shape);
            assert_eq!(p.steps[1].reads, [INPUT, VALUES, INDICES]);
        }
        // one result: nothing to sort
        let p = auto(&Launch { sorted: true, ..launch(7, 9000, 1) }, true);
        assert_eq!(names(&p), ["select_rows"]);
    }

    #[test]
    fn split_rows_of_full_chunks_select_second_and_gather() {
        // 65536 = 32 chunks of 2048; 32 * 64 = 2048 candidates per row
        let p = auto(&launch(4, 65536, 64), false);
        assert_eq!(names(&p), ["select_chunks", "select_rows", "gather_indices"]);
        assert_eq!(p.depth, 1);
        let cand = &p.buffers[3];
        assert_eq!((cand.name.as_str(), cand.role), ("candidate_values_1", BufferRole::Temporary));
        assert_eq!((cand.elements, cand.row_len), (4 * 2048, 2048));
        assert_eq!(p.buffers[4].content, Content::Indices);
        let chunks = select(&p.steps[0]);
        assert_eq!((chunks.n_rows, chunks.m, chunks.chunks), (4 * 32, 2048, 32));
        assert_eq!(chunks.input, Region { buffer: INPUT, offset: 0, ld: 65536 });
        assert_eq!(chunks.output, Region { buffer: BufferId(3), offset: 0, ld: 2048 });
        assert_eq!(chunks.indices, BufferId(4));
        let second = select(&p.steps[1]);
        assert_eq!(second.input, Region { buffer: BufferId(3), offset: 0, ld: 2048 });
        assert_eq!((second.n_rows, second.m, second.output.buffer), (4, 2048, VALUES));
        let Kernel::Gather(g) = p.steps[2].kernel else { panic!() };
        assert_eq!((g.n_rows, g.k, g.width, g.chunk, g.full), (4, 64, 2048, 2048, 32));
        assert_eq!(g.candidates, BufferId(4));
        let grid = p.steps[2].grid;
        assert_eq!((grid.blocks, grid.threads), (1, GATHER_THREADS));
        assert_eq!(p.steps[1].level, 1);
    }

    #[test]
    fn a_last_chunk_is_a_step_of_its_own_at_the_rows_end() {
        // 20001 = 4 x 4096 + 3617
        let l = Launch { sorted: true, ..launch(3, 20_001, 300) };
        let p = forced(&l);
        assert_eq!(
            names(&p),
            ["select_chunks", "select_last_chunks", "select_rows", "sort_rows", "gather_indices"]
        );
        let last = select(&p.steps[1]);
        assert_eq!((last.n_rows, last.m, last.chunks), (3, 3617, 1));
        assert_eq!(last.input, Region { buffer: INPUT, offset: 4 * 4096, ld: 20_001 });
        assert_eq!(last.output, Region { buffer: BufferId(3), offset: 4 * 300, ld: 1500 });
        assert!(!last.vec4, "rows of 20001 values are not 16-byte aligned");
        // the sort rebuilds values from the candidates, before the gather
        let Kernel::Sort(sort) = p.steps[3].kernel else { panic!() };
        assert_eq!((sort.input.buffer, sort.m), (BufferId(3), 1500));
        let Kernel::Gather(g) = p.steps[4].kernel else { panic!() };
        assert_eq!(g.chunk_span(0), (0, 4096));
        assert_eq!(g.chunk_span(3), (3 * 4096, 4 * 4096));
        assert_eq!(g.chunk_span(4), (4 * 4096, 20_001));
        // a last chunk narrower than k joins the one before
        let p = forced(&launch(2, 8193, 50));
        let last = select(&p.steps[1]);
        assert_eq!((last.m, last.input.offset), (2049, 3 * 2048));
    }

    #[test]
    fn a_second_split_nests_inside_the_first() {
        // 2^20 / 4096 = 256 chunks; 65536 candidates, split again into 16 chunks of 4096
        let p = auto(&launch(2, 1 << 20, 256), false);
        assert_eq!(p.depth, 2);
        assert_eq!(
            names(&p),
            ["select_chunks", "select_chunks", "select_rows", "gather_indices", "gather_indices"]
        );
        let levels: Vec<usize> = p.steps.iter().map(|s| s.level).collect();
        assert_eq!(levels, [0, 1, 2, 1, 0]);
        let inner = select(&p.steps[1]);
        assert_eq!(inner.input, Region { buffer: BufferId(3), offset: 0, ld: 65536 });
        assert_eq!(inner.output.buffer, BufferId(5));
        let Kernel::Gather(g) = p.steps[3].kernel else { panic!() };
        assert_eq!((g.candidates, g.row_len), (BufferId(6), 65536));
        let Kernel::Gather(g) = p.steps[4].kernel else { panic!() };
        assert_eq!((g.candidates, g.row_len), (BufferId(4), 1 << 20));
        assert_eq!(p.temporaries().count(), 4);
    }

    #[test]
    fn every_program_keeps_its_invariants() {
        let shapes = [
            (1, 1, 1),
            (5, 300, 7),
            (1, 8193, 50),
            (3, 20_001, 300),
            (7, 40_000, 2000),
            (2, 151_936, 50),
            (1, 1 << 22, 64),
            (600, 16_385, 17),
            (1, 1_000_003, 1000),
        ];
        for (n, m, k) in shapes {
            for sorted in [false, true] {
                for elem in ElemType::ALL {
                    for strategy in [Strategy::Auto, Strategy::Split, Strategy::Block] {
                        let l = Launch { sorted, elem, ..launch(n, m, k) };
                        if let Ok(p) = program(&l, &h100(), strategy, false) {
                            check(&p);
                            // the same kernels as the route's
                            let r = route(&l, &h100(), strategy, false).unwrap();
                            let want: BTreeSet<Unit> = r.units().into_iter().collect();
                            let got: BTreeSet<Unit> = p.units().into_iter().collect();
                            assert_eq!(got, want, "N={n} M={m} k={k}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_program_is_json_with_one_entry_per_launch() {
        let l = Launch { sorted: true, elem: ElemType::F16, ..launch(3, 20_001, 300) };
        let p = forced(&l);
        let v = serde_json::to_value(&p).unwrap();
        let steps = v["steps"].as_array().unwrap();
        assert_eq!(steps.len(), p.steps.len());
        assert_eq!(steps[0]["name"], "select_chunks");
        assert_eq!(steps[0]["unit"], "rtopk_block_rows_narrow_f16");
        assert_eq!(steps[0]["kernel"]["select"]["chunks"], 4);
        assert_eq!(steps[4]["name"], "gather_indices");
        assert_eq!(steps[4]["grid"]["threads"], 256);
        assert_eq!(v["buffers"][0]["name"], "x");
        assert_eq!(v["buffers"][3]["role"], "temporary");
        assert_eq!(v["launch"]["elem"], "f16");
        assert_eq!(v["launch"]["mode"], "largest");
        assert_eq!(v["limits"]["sm_count"], 132);
    }

    #[test]
    fn presets_name_the_devices_limits() {
        assert_eq!(DeviceLimits::preset_names(), ["a100", "h100", "h200"]);
        let h100 = DeviceLimits::preset("H100").unwrap();
        assert_eq!((h100.sm_count, h100.shared_optin_bytes), (132, 232_448));
        assert_eq!(DeviceLimits::preset("a100").unwrap().sm_count, 108);
        // the H100's clusters held at once are one board's; an H200's are not known
        let h200 = DeviceLimits::preset("h200").unwrap();
        assert_eq!(DeviceLimits { cluster_slots: crate::ClusterSlots::H100, ..h200 }, h100);
        assert_eq!(h200.clusters_held(4, 1), 33);
        assert_eq!(DeviceLimits::preset("v100"), None);
        // the preset decides the split: 120 rows of 20001 run whole on an H100's 132 SMs, not
        // on an A100's 108
        let a100 = DeviceLimits::preset("a100").unwrap();
        let depth = |limits: &DeviceLimits, n| {
            program(&launch(n, 20_001, 50), limits, Strategy::Auto, false).unwrap().depth
        };
        assert_eq!((depth(&h100, 120), depth(&a100, 120)), (0, 1));
    }

    #[test]
    fn a_ragged_program_reads_its_rows_arrays() {
        let both = Ragged { lengths: true, k_per_row: true, ..Ragged::default() };
        for (n, m, k) in [(4, 65536, 64), (1, 1 << 20, 2048), (5, 300, 7), (3, 20_001, 300)] {
            for sorted in [false, true] {
                let l = Launch { sorted, ..launch(n, m, k) };
                // with counts the rows run whole
                let p = program_ragged(&l, &h100(), Strategy::Auto, true, both).unwrap();
                check(&p);
                assert_eq!(p.depth, 0, "N={n} M={m}");
                let at = |name: &str| p.buffers.iter().position(|b| b.name == name).map(BufferId);
                let (lengths, ks) = (at("lengths").unwrap(), at("k_per_row").unwrap());
                assert_eq!(p.buffer(lengths).content, Content::Lengths);
                assert_eq!(
                    (p.buffer(ks).elements, p.buffer(ks).role),
                    (n as u64, BufferRole::Input)
                );
                let rows = RowArgs {
                    lengths: Some(lengths),
                    k_per_row: Some(ks),
                    hint: None,
                    split: None,
                };
                for s in &p.steps {
                    match s.kernel {
                        Kernel::Select(sel) => {
                            assert_eq!(sel.rows, Some(rows));
                            // the units built for ragged rows; plain programs keep the others
                            assert!(s.unit.is_ragged() && sel.plan.unit.is_ragged(), "{s:?}");
                        }
                        Kernel::Sort(sort) => {
                            assert_eq!(sort.rows, Some(rows));
                            assert!(!s.unit.is_ragged());
                        }
                        Kernel::Gather(_) | Kernel::Threshold(_) | Kernel::Radix(_) => {
                            panic!("ragged rows are bisected whole, and no threshold was asked")
                        }
                    }
                    assert!(s.reads.contains(&lengths) && s.reads.contains(&ks), "{s:?}");
                }
                let v = serde_json::to_value(&p).unwrap();
                assert_eq!(v["ragged"]["lengths"], true);
                assert_eq!(v["steps"][0]["kernel"]["select"]["rows"]["k_per_row"], ks.0);
                assert!(v["steps"][0]["kernel"]["select"]["rows"].get("split").is_none());
            }
        }
        // lengths only: no k buffer; a plain program names none and serializes no rows
        let only = Ragged { lengths: true, ..Ragged::default() };
        let p = program_ragged(&launch(5, 300, 7), &h100(), Strategy::Auto, true, only).unwrap();
        assert_eq!(p.buffers.len(), 5);
        assert_eq!(select(&p.steps[0]).rows.unwrap().k_per_row, None);
        let plain = auto(&launch(5, 300, 7), true);
        assert!(plain.steps.iter().all(|s| !s.unit.is_ragged()));
        let v = serde_json::to_value(&plain).unwrap();
        assert!(v["steps"][0]["kernel"]["select"].get("rows").is_none());
        assert!(
            v["steps"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["kernel"]["gather"]["k_per_row"].is_null())
        );
    }

    /// Ragged and hinted rows take the cluster their plain shape takes (the ragged twin, on the
    /// plain launch's grid; a plain row's wide cluster below `CLUSTER_MAX_ROW` is not theirs:
    /// cluster::WIDE_PLAIN_MIN_ROW), and a ragged split's second stage a cluster where its
    /// candidates fit the rule; a device without clusters gives them none.
    #[test]
    fn ragged_and_hinted_rows_take_the_cluster_of_their_shape() {
        let h200 = DeviceLimits::preset("h200").unwrap();
        let a100 = DeviceLimits::preset("a100").unwrap();
        let lengths = Ragged { lengths: true, ..Ragged::default() };
        let hint = Ragged { hint: true, threshold: true, ..Ragged::default() };
        let l = launch(8, 131_072, 2048);
        let plain = program(&Launch { sorted: true, ..l }, &h200, Strategy::Auto, false).unwrap();
        assert_eq!(plain.steps[0].unit.to_string(), "rtopk_cluster_rows");
        assert_eq!(plain.steps[0].grid.cluster, 8);
        let unsorted = program(&l, &h200, Strategy::Auto, false).unwrap();
        assert_eq!(unsorted.steps[0].grid.cluster, 16);
        for ragged in [lengths, hint] {
            for counts in [false, true] {
                let p = program_ragged(&l, &h200, Strategy::Auto, counts, ragged).unwrap();
                check(&p);
                let unit = p.steps[0].unit.to_string();
                assert_eq!((p.depth, unit.as_str()), (0, "rtopk_cluster_rows_ragged"));
                assert_eq!(p.steps[0].grid, plain.steps[0].grid);
                let p = program_ragged(&l, &a100, Strategy::Auto, counts, ragged).unwrap();
                assert!(p.steps.iter().all(|s| s.unit.family() != Family::ClusterRows));
            }
        }
        // a ragged split (no counts) whose second stage, 37 chunks' candidates, is a cluster
        // (rows past a wide cluster's registers split)
        let l = launch(1, 600_000, 1024);
        let p = program_ragged(&l, &h200, Strategy::Auto, false, lengths).unwrap();
        check(&p);
        let last = p.steps.iter().rev().find(|s| matches!(s.kernel, Kernel::Select(_)));
        let last = last.unwrap().unit.to_string();
        assert_eq!((p.depth, last.as_str()), (1, "rtopk_cluster_rows_ragged"));
    }

    /// Rows that only fewer, wider cluster blocks hold (`cluster::fewer_blocks`): plain rows
    /// take them, and so do rows of their own length, k or hint (the ragged twin, which
    /// searches as the plain unit does), on the plain launch's grid.
    #[test]
    fn fewer_cluster_blocks_take_plain_rows_and_rows_of_their_own_length() {
        let h200 = DeviceLimits::preset("h200").unwrap();
        let l = launch(32, 100_000, 2048);
        let plain = program(&l, &h200, Strategy::Auto, false).unwrap();
        assert_eq!(
            (plain.depth, plain.steps[0].unit.to_string().as_str()),
            (0, "rtopk_cluster_rows")
        );
        let grid = plain.steps[0].grid;
        assert_eq!((grid.blocks, grid.threads, grid.cluster), (128, 800, 4));
        for ragged in [
            Ragged { hint: true, threshold: true, ..Ragged::default() },
            Ragged { lengths: true, ..Ragged::default() },
            Ragged { k_per_row: true, hint: true, ..Ragged::default() },
        ] {
            let p = program_ragged(&l, &h200, Strategy::Auto, false, ragged).unwrap();
            check(&p);
            let unit = p.steps[0].unit.to_string();
            assert_eq!((p.depth, unit.as_str()), (0, "rtopk_cluster_rows_ragged"), "{ragged:?}");
            assert_eq!(p.steps[0].grid, grid, "{ragged:?}");
        }
    }

    /// The steps of a ragged split: one chunk launch over every chunk (the last cut at the
    /// row's end), the second stage over the candidates, the gather, the sort last.
    #[test]
    fn ragged_rows_split_where_plain_rows_do() {
        let both = Ragged { lengths: true, k_per_row: true, ..Ragged::default() };
        // 20001 = 4 x 4096 + 3617: five chunks of 4096, 1500 candidates per row (the default
        // splits 3 rows of 20001 no more: forced, as where there are more rows)
        let l = Launch { sorted: true, ..launch(3, 20_001, 300) };
        let p = program_ragged(&l, &h100(), Strategy::Split, false, both).unwrap();
        check(&p);
        assert_eq!(p.depth, 1);
        assert_eq!(names(&p), ["select_chunks", "select_rows", "gather_indices", "sort_rows"]);
        let many = launch(200, 20_001, 300);
        let auto_many = program_ragged(&many, &h100(), Strategy::Auto, false, both).unwrap();
        assert_eq!(auto_many.depth, 1, "where plain rows split");
        let plain = forced(&l);
        let Kernel::Gather(pg) =
            plain.steps.iter().find(|s| s.name == StepKind::GatherIndices).unwrap().kernel
        else {
            panic!()
        };
        let chunks = select(&p.steps[0]);
        let geometry = SplitRows { row_m: 20_001, chunk: 4096 };
        assert_eq!(pg.chunk, geometry.chunk, "the plain split's chunk width");
        assert_eq!((chunks.n_rows, chunks.m, chunks.chunks), (3 * 5, 4096, 5));
        assert_eq!(chunks.rows.unwrap().split, Some(geometry));
        assert_eq!(chunks.span(), 20_001);
        assert_eq!(chunks.input, Region { buffer: INPUT, offset: 0, ld: 20_001 });
        assert_eq!(chunks.output, Region { buffer: BufferId(5), offset: 0, ld: 1500 });
        assert_eq!(chunks.indices, BufferId(6));
        assert!(p.steps[0].unit.is_ragged());
        let second = select(&p.steps[1]);
        assert_eq!((second.n_rows, second.m, second.k, second.chunks), (3, 1500, 300, 1));
        assert_eq!(second.input.buffer, BufferId(5));
        assert_eq!((second.output.buffer, second.rows.unwrap().split), (VALUES, Some(geometry)));
        assert_eq!(p.steps[1].level, 1);
        let Kernel::Gather(g) = p.steps[2].kernel else { panic!() };
        assert_eq!((g.width, g.chunk, g.full, g.k_per_row), (1500, 4096, 4, Some(BufferId(4))));
        assert_eq!(g.chunk_span(4), (4 * 4096, 20_001));
        assert_eq!(p.steps[2].reads, [BufferId(6), INDICES, BufferId(4)]);
        let Kernel::Sort(sort) = p.steps[3].kernel else { panic!() };
        assert_eq!((sort.input.buffer, sort.m, sort.rows.unwrap().split), (INPUT, 20_001, None));
        assert_eq!(p.steps[3].level, 0);
        // the chunks' lengths and the valid candidates
        assert_eq!(geometry.chunk_len(20_001, 4), 3617);
        assert_eq!(geometry.chunk_len(5000, 1), 904);
        assert_eq!(geometry.chunk_len(5000, 2), 0);
        assert_eq!(geometry.candidates(5000, 300), 600);
        assert_eq!(geometry.candidates(5000, 1000), 1904, "a chunk of fewer than k");
        assert_eq!(geometry.candidates(8192, 300), 600);
        assert_eq!(geometry.candidates(99, 300), 99);
        assert_eq!(geometry.candidates(20_001, 0), 0);
        assert_eq!(geometry.candidates(1 << 40, 300), 1500, "at most the row");
        // the same split with counts wanted is none; forced, it is one level deep
        let counted = program_ragged(&l, &h100(), Strategy::Auto, true, both).unwrap();
        assert_eq!(counted.depth, 0);
        let deep = launch(2, 1 << 20, 256);
        assert_eq!(auto(&deep, false).depth, 2);
        let only = Ragged { lengths: false, k_per_row: true, ..Ragged::default() };
        let p = program_ragged(&deep, &h100(), Strategy::Split, false, only).unwrap();
        check(&p);
        assert_eq!(p.depth, 1);
        assert_eq!(names(&p), ["select_chunks", "select_rows", "gather_indices"]);
        assert_eq!(select(&p.steps[1]).m, 256 * 256);
        // what cannot be split is refused as for plain rows
        let err = program_ragged(&launch(4, 4000, 64), &h100(), Strategy::Split, false, both);
        assert!(matches!(err, Err(PlanError::Split { .. })));
    }

    /// Every ragged program keeps the invariants of a plain one, split or not.
    #[test]
    fn every_ragged_program_keeps_its_invariants() {
        let shapes = [
            (1, 1, 1),
            (5, 300, 7),
            (1, 8193, 50),
            (3, 20_001, 300),
            (7, 40_000, 2000),
            (2, 151_936, 50),
            (1, 1 << 22, 64),
            (600, 16_385, 17),
            (1, 4096, 1),
        ];
        for (n, m, k) in shapes {
            for sorted in [false, true] {
                for ragged in [
                    Ragged { lengths: true, k_per_row: false, ..Ragged::default() },
                    Ragged { lengths: false, k_per_row: true, ..Ragged::default() },
                    Ragged { lengths: true, k_per_row: true, ..Ragged::default() },
                ] {
                    for strategy in [Strategy::Auto, Strategy::Split] {
                        let l = Launch { sorted, ..launch(n, m, k) };
                        if let Ok(p) = program_ragged(&l, &h100(), strategy, false, ragged) {
                            check(&p);
                            assert!(p.depth <= 1);
                            let r =
                                crate::split::ragged_route(&l, &h100(), strategy, false).unwrap();
                            let want: BTreeSet<Unit> =
                                r.units().into_iter().map(|u| u.with_ragged(true)).collect();
                            let got: BTreeSet<Unit> = p.units().into_iter().collect();
                            assert_eq!(got, want, "N={n} M={m} k={k}");
                            let auto_depth =
                                route(&l, &h100(), Strategy::Auto, false).unwrap().depth();
                            if strategy == Strategy::Auto {
                                assert_eq!(p.depth, auto_depth.min(1), "the plain rows' split");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_threshold_step_spreads_wide_rows_over_warps() {
        // one warp up to 512 values, then a warp for every 256, a power of two, at most 8
        let cases = [(0, 1), (1, 1), (256, 1), (257, 1), (512, 1), (513, 4), (1024, 4)];
        for (k, warps) in cases.into_iter().chain([(1025, 8), (2048, 8), (32768, 8)]) {
            assert_eq!(threshold_warps_per_row(k), warps, "k = {k}");
            assert_eq!((THRESHOLD_THREADS / 32) % warps, 0, "whole rows a block");
        }
        // the step's grid: 8 / warps · 32 / lanes rows a block, at most 64 blocks an SM (16384
        // rows at k = 64: eight a warp, 4 lanes each)
        let wanted = Ragged { threshold: true, ..Ragged::default() };
        let grids = [
            (1, 32768, 2048, 1),
            (64, 32768, 2048, 64),
            (64, 32768, 700, 32),
            (64, 32768, 512, 8),
            (1000, 4096, 16, 125),
            (16384, 4096, 64, 256),
            (1 << 20, 256, 16, 4096),
            (1 << 24, 256, 16, 132 * GATHER_BLOCKS_PER_SM as u32),
        ];
        for (n, m, k, blocks) in grids {
            let p =
                program_ragged(&launch(n, m, k), &h100(), Strategy::Auto, false, wanted).unwrap();
            let last = p.steps.last().unwrap();
            let Kernel::Threshold(th) = last.kernel else { panic!() };
            assert_eq!(th.warps_per_row, threshold_warps_per_row(k as u32));
            assert_eq!(th.lanes_per_row, threshold_lanes_per_row(n, k as u32, &h100()));
            assert_eq!((last.grid.blocks, last.grid.threads), (blocks, THRESHOLD_THREADS), "{k}");
        }
    }

    #[test]
    fn the_threshold_step_reads_many_short_rows_several_a_warp() {
        let lanes = |n: usize, k: u32| threshold_lanes_per_row(n, k, &h100());
        // as many rows as the device's warps (132 SMs of 64): a warp a row
        for (n, k) in [(1, 16), (64, 50), (8448, 1), (8448, 16)] {
            assert_eq!(lanes(n, k), 32, "{n} rows at k = {k}");
        }
        // past them: the fewest lanes that read a row in one batch of 16 loads a lane (one
        // lane up to 16 values, two up to 32, ...)
        let many = 32 * 8448;
        let cases = [(0, 1), (1, 1), (16, 1), (17, 2), (32, 2), (33, 4), (64, 4), (100, 8)];
        for (k, want) in cases.into_iter().chain([(256, 16), (257, 32), (512, 32), (513, 32)]) {
            assert_eq!(lanes(many, k), want, "k = {k}");
            assert!(k.div_ceil(THRESHOLD_BATCH) <= want || want == 32, "one batch, k = {k}");
        }
        for (n, k, want) in [(8449, 8, 1), (16384, 64, 4), (65536, 8, 1), (1 << 20, 64, 4)] {
            assert_eq!(lanes(n, k), want, "{n} rows at k = {k}");
        }
        // fewer lanes than a warp's only where one warp reads a row
        for k in 0..5000 {
            assert!(lanes(many, k) == 32 || threshold_warps_per_row(k) == 1);
        }
        let one_sm = DeviceLimits { sm_count: 1, ..h100() };
        assert_eq!(threshold_lanes_per_row(64, 8, &one_sm), 32);
        assert_eq!(threshold_lanes_per_row(65, 8, &one_sm), 1);
        assert_eq!(threshold_lanes_per_row(usize::MAX, 100, &one_sm), 8);
    }

    #[test]
    fn hints_go_to_the_selects_and_thresholds_end_the_program() {
        let hint = Ragged { hint: true, ..Ragged::default() };
        for (n, m, k) in [(4, 65536, 64), (5, 300, 7), (3, 20_001, 300)] {
            for sorted in [false, true] {
                let l = Launch { sorted, ..launch(n, m, k) };
                // a hint alone, with counts (whole rows): the ragged twins, the hint read by
                // the selects
                let p = program_ragged(&l, &h100(), Strategy::Auto, true, hint).unwrap();
                check(&p);
                assert_eq!(p.depth, 0);
                let at = p.buffers.iter().position(|b| b.name == "hint").map(BufferId).unwrap();
                assert_eq!(p.buffer(at).content, Content::Hint);
                assert_eq!(
                    (p.buffer(at).elements, p.buffer(at).role),
                    (n as u64, BufferRole::Input)
                );
                for s in &p.steps {
                    match s.kernel {
                        Kernel::Select(sel) => {
                            let rows = sel.rows.unwrap();
                            assert_eq!(
                                (rows.hint, rows.lengths, rows.k_per_row),
                                (Some(at), None, None)
                            );
                            assert!(s.unit.is_ragged() && s.reads.contains(&at));
                        }
                        Kernel::Sort(sort) => {
                            assert_eq!(sort.rows.unwrap().hint, None);
                            assert!(!s.reads.contains(&at));
                        }
                        _ => panic!("{s:?}"),
                    }
                }
                // the threshold: a last step of its own, after the sort, on whole or split rows
                for ragged in [
                    Ragged { threshold: true, ..hint },
                    Ragged { threshold: true, ..Ragged::default() },
                ] {
                    let p = program_ragged(&l, &h100(), Strategy::Auto, false, ragged).unwrap();
                    check(&p);
                    let last = p.steps.last().unwrap();
                    assert_eq!(last.name, StepKind::RowThreshold);
                    assert_eq!(last.unit, Unit::threshold(ElemType::F32));
                    let t = p.threshold().unwrap();
                    assert_eq!(p.buffer(t).content, Content::Threshold);
                    assert_eq!(
                        (p.buffer(t).elements, p.buffer(t).role),
                        (n as u64, BufferRole::Output)
                    );
                    let Kernel::Threshold(th) = last.kernel else { panic!() };
                    assert_eq!(
                        (th.n_rows, th.m, th.k, th.values, th.threshold),
                        (n as u64, m as u32, k as u32, VALUES, t)
                    );
                    assert_eq!(th.rows, None);
                    assert_eq!((last.reads.clone(), last.writes.clone()), (vec![VALUES], vec![t]));
                    assert_eq!(th.warps_per_row, threshold_warps_per_row(k as u32));
                    let threads = u64::from(last.grid.blocks) * u64::from(last.grid.threads);
                    assert!(
                        threads >= 32 && last.grid.blocks as usize <= 132 * GATHER_BLOCKS_PER_SM
                    );
                    // a block's rows at a time, and the grid's blocks cover every row once
                    // where the cap allows
                    let per_block = u64::from(THRESHOLD_THREADS / 32 / th.warps_per_row);
                    let cover = u64::from(last.grid.blocks) * per_block;
                    assert!(
                        cover >= n as u64
                            || last.grid.blocks as usize == 132 * GATHER_BLOCKS_PER_SM
                    );
                    assert!(cover < n as u64 + per_block);
                    assert_eq!(
                        p.steps.iter().filter(|s| s.name == StepKind::RowThreshold).count(),
                        1
                    );
                }
            }
        }
        // the threshold of ragged rows reads their lengths and k, never the hint
        let all = Ragged { lengths: true, k_per_row: true, hint: true, threshold: true };
        let p = program_ragged(&launch(5, 300, 7), &h100(), Strategy::Auto, true, all).unwrap();
        check(&p);
        let Kernel::Threshold(th) = p.steps.last().unwrap().kernel else { panic!() };
        let rows = th.rows.unwrap();
        assert!(rows.lengths.is_some() && rows.k_per_row.is_some() && rows.hint.is_none());
        // k = 0: nothing selected, the step writes NaN without reading the values
        let p = program_ragged(&launch(5, 300, 0), &h100(), Strategy::Auto, false, all).unwrap();
        check(&p);
        assert_eq!(names(&p), ["row_threshold"]);
        assert!(!p.steps[0].reads.contains(&VALUES));
        // no rows: nothing to do
        let p = program_ragged(&launch(0, 300, 5), &h100(), Strategy::Auto, false, all).unwrap();
        assert!(p.steps.is_empty());
        // split rows: the steps of the plain split, the last select (over the row's
        // candidates, whose threshold is the row's) reading the hint in its ragged twin, every
        // other step without it; whole rows read it everywhere
        for (n, m, k, strategy) in [
            (4, 65536, 64, Strategy::Split),
            (1, 1 << 21, 256, Strategy::Auto),
            (2, 163_840, 2048, Strategy::Auto),
        ] {
            let l = launch(n, m, k);
            let p = program_ragged(&l, &h100(), strategy, false, hint).unwrap();
            check(&p);
            let plain = program(&l, &h100(), strategy, false).unwrap();
            assert!(p.depth > 0 && p.depth == plain.depth, "{n} x {m}");
            assert_eq!(names(&p), names(&plain));
            let at = p.buffers.iter().position(|b| b.name == "hint").map(BufferId).unwrap();
            let reads: Vec<_> = p.steps.iter().map(|s| s.reads.contains(&at)).collect();
            let last = p.steps.iter().rposition(|s| s.name == StepKind::SelectRows).unwrap();
            assert_eq!(reads.iter().filter(|&&r| r).count(), 1, "{n} x {m}");
            assert!(reads[last] && p.steps[last].level == p.depth);
            for (i, s) in p.steps.iter().enumerate() {
                assert_eq!(s.unit.is_ragged(), i == last, "{n} x {m}: {s:?}");
                assert_eq!(s.unit.with_ragged(false), plain.steps[i].unit);
                if let Kernel::Select(sel) = s.kernel {
                    let want = (i == last).then_some(RowArgs {
                        lengths: None,
                        k_per_row: None,
                        hint: Some(at),
                        split: None,
                    });
                    assert_eq!(sel.rows, want);
                }
            }
        }
        // a hint never moves a request off the plain route: whole where plain rows run whole,
        // split (the hint in the last select) where they split
        for (n, m, k) in [(64, BLOCK_REGISTER_ROW, 2048), (256, BLOCK_REGISTER_ROW, 512)] {
            let l = launch(n, m, k);
            let plain = program(&l, &h100(), Strategy::Auto, false).unwrap();
            let p = program_ragged(&l, &h100(), Strategy::Auto, false, hint).unwrap();
            check(&p);
            assert_eq!(p.depth, plain.depth, "{n} x {m}");
            let last = p.steps.iter().rposition(|s| s.name == StepKind::SelectRows).unwrap();
            assert!(select(&p.steps[last]).rows.unwrap().hint.is_some());
        }
        // a ragged split: the second stage reads the hint beside the lengths, the chunks not
        let lengths = Ragged { lengths: true, ..hint };
        let p = program_ragged(&launch(2, 163_840, 2048), &h100(), Strategy::Auto, false, lengths)
            .unwrap();
        check(&p);
        let at = p.buffers.iter().position(|b| b.name == "hint").map(BufferId).unwrap();
        let selects: Vec<_> = p
            .steps
            .iter()
            .filter_map(|s| match s.kernel {
                Kernel::Select(sel) => Some((s.name, sel.rows.unwrap())),
                _ => None,
            })
            .collect();
        assert_eq!(selects.len(), 2);
        assert_eq!(selects[0].0, StepKind::SelectChunks);
        assert!(selects[0].1.hint.is_none() && selects[0].1.split.is_some());
        assert_eq!(selects[1].0, StepKind::SelectRows);
        assert!(selects[1].1.hint == Some(at) && selects[1].1.lengths.is_some());
        let p = program_ragged(&launch(4, 65536, 64), &h100(), Strategy::Auto, true, hint);
        let p = p.unwrap();
        assert!(p.depth == 0 && select(&p.steps[0]).rows.unwrap().hint.is_some());
        let only = Ragged { threshold: true, ..Ragged::default() };
        let p =
            program_ragged(&launch(4, 65536, 64), &h100(), Strategy::Split, false, only).unwrap();
        check(&p);
        assert!(p.depth > 0 && p.steps.last().unwrap().name == StepKind::RowThreshold);
        assert!(p.steps.iter().all(|s| !s.unit.is_ragged()));
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["steps"].as_array().unwrap().last().unwrap()["name"], "row_threshold");
    }

    #[test]
    fn tiles_name_the_first_gap_or_overlap() {
        assert_eq!(tiles_row(10, &[(0, 4), (4, 6)]), Ok(()));
        assert_eq!(tiles_row(10, &[(0, 4), (4, 5)]), Err(TileError::Gap { at: 9 }));
        assert_eq!(tiles_row(10, &[(0, 4), (5, 5)]), Err(TileError::Gap { at: 4 }));
        assert_eq!(tiles_row(10, &[(0, 5), (4, 6)]), Err(TileError::Overlap { at: 4 }));
        assert_eq!(tiles_row(10, &[(0, 5), (5, 6)]), Err(TileError::Past { at: 10 }));
    }

    #[test]
    fn large_k_on_long_rows_is_a_radix_select() {
        for (elem, passes) in [(ElemType::F32, 3), (ElemType::F16, 2), (ElemType::Bf16, 2)] {
            for sorted in [false, true] {
                let l = Launch { elem, sorted, ..launch(1, 1 << 22, 32768) };
                let p = auto(&l, false);
                check(&p);
                let mut want = vec!["radix_digits"; passes];
                want.extend(["radix_count", "radix_write"]);
                if sorted {
                    want.push("sort_rows");
                }
                assert_eq!(names(&p), want, "{elem:?} sorted {sorted}");
                assert_eq!(p.depth, 0);
                let radix = p.buffers.iter().filter(|b| b.content == Content::Radix).count();
                assert_eq!(radix, 1);
                // the candidates: an eighth of the row at most, written by the second pass
                // alone, read by the passes after it, the count and the write
                let kept = p.buffers.iter().position(|b| b.content == Content::RadixCandidates);
                let kept = BufferId(kept.expect("a candidates buffer"));
                assert!(p.buffer(kept).elements <= 2 * ((1 << 22) / 8 + 8 * 4096));
                let writers: Vec<usize> =
                    (0..p.steps.len()).filter(|&i| p.steps[i].writes.contains(&kept)).collect();
                assert_eq!(writers, vec![1]);
                let readers = p.steps.iter().filter(|s| s.reads.contains(&kept)).count();
                assert_eq!(readers, passes - 2 + 2);
                // each pass's digit is the next bits below the one before it
                let digits: Vec<(u32, u32)> = p
                    .steps
                    .iter()
                    .filter_map(|s| match s.kernel {
                        Kernel::Radix(r) if s.name == StepKind::RadixDigits => {
                            Some((r.shift, r.bits))
                        }
                        _ => None,
                    })
                    .collect();
                assert_eq!(digits, crate::radix::digits(if passes == 3 { 32 } else { 16 }));
            }
        }
        // rows whose parts are eight tiles or more run the sample first: the first pass keeps
        // the candidates from its floor, the second keeps them again where that missed
        let l = launch(1, 1 << 28, 8192);
        let p = auto(&l, false);
        check(&p);
        assert_eq!(names(&p)[..3], ["radix_sample", "radix_digits", "radix_digits"]);
        let kept = p.buffers.iter().position(|b| b.content == Content::RadixCandidates);
        let kept = BufferId(kept.expect("a candidates buffer"));
        let writers: Vec<usize> =
            (0..p.steps.len()).filter(|&i| p.steps[i].writes.contains(&kept)).collect();
        assert_eq!(writers, vec![1, 2]);
        assert!(!p.steps[0].reads.contains(&kept) && !p.steps[1].reads.contains(&kept));
        let shorter = launch(1, 1 << 22, 8192);
        assert!(crate::radix::radix_plan(&shorter, &h100(), false).is_ok_and(|r| !r.sample));
        // below the gates, and with counts, the bisection keeps the rows: k = 2048 takes the
        // radix select on up to sixteen rows, not on more; k = 512 on a small selection
        let radix = |l: Launch| names(&auto(&l, false))[0].starts_with("radix_");
        assert!(radix(launch(16, 1 << 22, 2048)));
        assert!(!radix(launch(17, 1 << 22, 2048)));
        assert!(radix(launch(1, 1 << 22, 512)));
        assert!(!radix(launch(1, 1 << 22, 511)));
        // the split's second stage takes the same gate: one bf16 row of 2^26 at k = 1024, split
        // (the default takes the sampled radix select there), runs a radix select over its
        // candidates
        let bf16 = Launch { elem: ElemType::Bf16, ..launch(1, 1 << 26, 1024) };
        assert!(radix(bf16));
        let split = program(&bf16, &h100(), Strategy::Split, false).unwrap();
        check(&split);
        let nested: Vec<_> = split.steps.iter().map(|s| (s.name.name(), s.level)).collect();
        assert_eq!(nested[0], ("select_chunks", 0));
        assert!(nested.contains(&("radix_digits", 1)));
        assert!(
            names(&auto(&launch(1, 1 << 19, 8192), false)).iter().all(|n| !n.starts_with("radix"))
        );
        // forced, any float shape takes it, ragged or not; integers do not
        let forced = program(&launch(3, 5000, 7), &h100(), Strategy::Radix, false).unwrap();
        check(&forced);
        assert_eq!(names(&forced)[0], "radix_digits");
        let ints = Launch { elem: ElemType::I32, ..launch(3, 5000, 7) };
        assert!(program(&ints, &h100(), Strategy::Radix, false).is_err());
        let hinted = Ragged { hint: true, ..Ragged::default() };
        let p = program_ragged(&launch(3, 5000, 7), &h100(), Strategy::Radix, false, hinted);
        assert_eq!(names(&p.unwrap())[0], "radix_digits");
        let threshold = Ragged { threshold: true, ..Ragged::default() };
        let p =
            program_ragged(&launch(1, 1 << 22, 8192), &h100(), Strategy::Auto, false, threshold)
                .unwrap();
        assert_eq!(names(&p).last(), Some(&"row_threshold"));
    }

    /// Rows of their own length and k take the radix select where plain rows of the shape do
    /// (the default's gate on the launch's width and k): every radix step reads the per-row
    /// arrays (never the hint), and the sort after it takes them too; hinted rows alone take
    /// it as well (the hint unread), while a split's second stage of hinted rows stays a
    /// bisection (its last select reads the hints).
    #[test]
    fn ragged_rows_take_the_radix_select_where_plain_rows_do() {
        let h200 = DeviceLimits::preset("h200").unwrap();
        let all = Ragged { lengths: true, k_per_row: true, hint: true, threshold: true };
        for (n, m, k) in [(1, 1 << 20, 2048), (16, 1 << 20, 2048), (8, 1 << 21, 2048)] {
            for sorted in [false, true] {
                let l = Launch { sorted, ..launch(n, m, k) };
                assert!(names(&auto(&l, false))[..2].iter().all(|s| s.starts_with("radix")));
                let p = program_ragged(&l, &h200, Strategy::Auto, false, all).unwrap();
                check(&p);
                assert_eq!(p.depth, 0);
                let id = |c| p.buffers.iter().position(|b| b.content == c).map(BufferId);
                let (lengths, ks) = (id(Content::Lengths).unwrap(), id(Content::KPerRow).unwrap());
                let rows = RowArgs {
                    lengths: Some(lengths),
                    k_per_row: Some(ks),
                    hint: None,
                    split: None,
                };
                let mut radix = 0;
                for s in &p.steps {
                    match s.kernel {
                        Kernel::Radix(r) => {
                            assert_eq!(r.rows, Some(rows), "{s:?}");
                            radix += 1;
                        }
                        Kernel::Sort(sort) => assert_eq!(sort.rows, Some(rows)),
                        Kernel::Threshold(_) => continue,
                        _ => panic!("{s:?}"),
                    }
                    assert!(s.reads.contains(&lengths) && s.reads.contains(&ks), "{s:?}");
                    assert!(!s.reads.contains(&id(Content::Hint).unwrap()), "{s:?}");
                }
                assert!(radix >= 4, "{n} x {m}");
                assert_eq!(names(&p).last(), Some(&"row_threshold"));
            }
        }
        // hints alone: the radix select reads no per-row array
        let hinted = Ragged { hint: true, ..Ragged::default() };
        let p = program_ragged(&launch(1, 1 << 20, 2048), &h200, Strategy::Auto, false, hinted);
        let p = p.unwrap();
        assert!(p.steps.iter().all(|s| matches!(s.kernel, Kernel::Radix(r) if r.rows.is_none())));
        // a bf16 row of 2^26 at k = 1024 splits (radix on its candidates when plain); with
        // hints its second stage is a bisection that reads them
        let bf16 = Launch { elem: ElemType::Bf16, ..launch(1, 1 << 26, 1024) };
        let p = program_ragged(&bf16, &h100(), Strategy::Split, false, hinted).unwrap();
        assert!(names(&p).iter().all(|s| !s.starts_with("radix")), "{:?}", names(&p));
        let last = p.steps.iter().rev().find_map(|s| match s.kernel {
            Kernel::Select(sel) => Some(sel),
            _ => None,
        });
        assert!(last.unwrap().rows.is_some_and(|r| r.hint.is_some()));
    }
}
