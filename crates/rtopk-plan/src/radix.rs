//! Radix rows (docs/kernel.md, "Radix rows"): the exact top k of rows whose k runs into the
//! thousands, by the own key's digits, as AIR Top-K's radix passes find the k-th value (paper
//! 002, §3.1). A split (crate::split) hands on k candidates from every chunk of at least 4 k,
//! so at k = 32768 each of its levels reads a quarter of the one before (one row of 2^28 took
//! five levels); a radix select reads the row a fixed number of times whatever k is: one pass
//! per digit ([`digits`]: three of [`RADIX_DIGIT_BITS`] bits and fewer for 32-bit keys, two for
//! 16-bit), a count and a write. The row's k-th own key T is found exactly, so the answer is
//! docs/contract.md §1's canonical top k: every key above T and the first ties at T, by index,
//! written in index order (kernels/radix_rows.cu; warp-sim's radix.rs).
//!
//! A row is cut into parts of [`RadixPlan::slice`] elements, one block each, so that every row
//! spreads over the device ([`RADIX_BLOCKS_PER_SM`] blocks an SM in all).

use crate::error::PlanError;
use crate::plan::{DeviceLimits, Launch, SortPlan, sort_of};
use crate::split::leaves_last_chunk;
use crate::units::ElemType;

/// Bits of the own key a digit pass resolves: its histogram has `2^RADIX_DIGIT_BITS` bins
/// (8 KiB of shared memory, a bin a word).
pub const RADIX_DIGIT_BITS: u32 = 11;
/// The bins of a digit's histogram.
pub const RADIX_BINS: u64 = 1 << RADIX_DIGIT_BITS;
/// Threads per block of the radix steps.
pub const RADIX_THREADS: u32 = 512;
/// Warps per block of the radix steps: a block's part is cut into as many ranges, one a warp,
/// for the count and the write.
pub const RADIX_WARPS: u32 = RADIX_THREADS / 32;
/// Elements a thread loads before it counts any (a tile is `RADIX_THREADS * RADIX_ITEMS`).
pub const RADIX_ITEMS: u32 = 8;
/// Elements of a tile: a part is whole tiles but the row's last.
pub const RADIX_TILE: u64 = (RADIX_THREADS * RADIX_ITEMS) as u64;
/// Blocks of the radix steps an SM is given, over all rows, where the rows are long (the
/// kernels' launch bound: four blocks of [`RADIX_THREADS`] threads an SM).
pub const RADIX_BLOCKS_PER_SM: usize = 4;
/// Blocks an SM where the rows are short: a part of at most [`RADIX_FEW_BLOCKS_TILES`] tiles
/// at this spread takes it ([`radix_plan`]).
pub const RADIX_FEW_BLOCKS_PER_SM: usize = 2;
/// The most tiles a block takes at [`RADIX_FEW_BLOCKS_PER_SM`]; past them the rows spread
/// over [`RADIX_BLOCKS_PER_SM`]. On an H200 (results/cuda/2026-12-01-radix-spread-h200) one
/// row of 2^21 at k = 2048 took 28.9 µs in 256 blocks of two tiles against 32.0 in 512 of
/// one, one row of 2^22 33.3 µs in 256 of four against 36.1 in 512 of two; one of 2^25 took
/// 95 µs in 256 blocks of 32 tiles against 92 in 512 of 16, and one of 2^28 544 µs against
/// 517: a row's blocks each add their histogram to the row's and take a ticket every pass,
/// and each block of the write sums the counts of the blocks before it, so fewer and fuller
/// blocks shorten the passes of a short row, while a long one needs more blocks in flight
/// to read at full bandwidth.
pub const RADIX_FEW_BLOCKS_TILES: u64 = 8;
/// Words of a row's radix state past its histogram: the prefix found, the k left to find
/// under it, the blocks done with the pass, the blocks whose candidates overflowed, whether
/// the second pass keeps candidates (crate::program::Content::RadixCandidates) or the first
/// kept them, the sample's floor digit (one more than the digit; 0: none). The blocks' counts
/// follow, two each, then the warps', then each block's candidates kept.
pub const RADIX_STATE_WORDS: u64 = 6;

/// The sample ([`RadixPlan::sample`]): tile `t` of a row is in it where `t` is a multiple of
/// `RADIX_SAMPLE_EVERY`, so the sample reads a thirty-second of the row.
pub const RADIX_SAMPLE_EVERY: u64 = 32;
/// The fewest tiles a block's part holds where a sample runs: below, a pass over the row
/// costs about what the sample's launch does (docs/kernel.md, "Radix rows: the sample").
pub const RADIX_SAMPLE_MIN_TILES: u64 = 8;
/// The sample's floor is the greatest first digit whose bin and the bins above it hold at
/// least `RADIX_SAMPLE_MARGIN` times the sample's share of k, plus [`RADIX_SAMPLE_SLACK`]
/// sampled keys: a floor at or below the row's k-th key's first digit in all but contrived
/// rows (a floor above it costs the pass it would have saved, never the answer).
pub const RADIX_SAMPLE_MARGIN: u64 = 2;
/// See [`RADIX_SAMPLE_MARGIN`].
pub const RADIX_SAMPLE_SLACK: u64 = 32;

/// How a radix select covers its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadixPlan {
    /// Elements of a row each block takes (whole tiles, but the row's last part).
    pub slice: u32,
    /// Blocks per row: `ceil(m / slice)`.
    pub blocks_per_row: u32,
    /// The own key's width in bits: 16 for f16 and bf16, else 32.
    pub key_bits: u32,
    /// The rows' element type.
    pub elem: ElemType,
    /// The sort launch, for sorted output.
    pub sort: Option<SortPlan>,
    /// Whether a sample step ([`RADIX_SAMPLE_EVERY`]) chooses a floor digit before the first
    /// pass, so that the first pass keeps the candidates and the row is read once: parts of
    /// at least [`RADIX_SAMPLE_MIN_TILES`] tiles.
    pub sample: bool,
}

impl RadixPlan {
    /// A row's words of the radix buffer: its histogram, its state, its blocks' counts and
    /// its warps' (two each), its blocks' candidates kept (one each).
    pub fn row_words(&self) -> u64 {
        let blocks = u64::from(self.blocks_per_row);
        RADIX_BINS + RADIX_STATE_WORDS + 2 * blocks * (1 + u64::from(RADIX_WARPS)) + blocks
    }
}

/// A block's candidates are at most `1 / RADIX_CANDIDATE_SHARE` of its part: the second
/// digit pass keeps the keys whose first digit is the k-th key's or above, with their indices
/// (8 bytes each), each block its own where they fit, and while every block's fit, the passes
/// after it, the count and the write read those instead of the row. Keeping c of them costs
/// about three passes over 8 c bytes and saves two over the row (three for 32-bit keys). A
/// row whose candidates crowd into a few parts (a sorted row) overflows them and is read
/// whole, as before.
pub const RADIX_CANDIDATE_SHARE: u64 = 8;

/// The second pass keeps a row's candidates only where the first digit's bin and the bins
/// above it hold at most `1 / RADIX_KEEP_SHARE` of the row (the kernel's choice, from the first
/// pass's histogram): keeping more, the rounds that keep any cost more than the reads they save.
pub const RADIX_KEEP_SHARE: u64 = 64;

/// A block whose candidates fit writes its results from them where its part holds at most
/// `RADIX_WRITE_LIST` keys at or above the row's k-th (gathered in shared memory, each one's
/// place counted over the others: `RADIX_WRITE_LIST^2 / RADIX_THREADS` compares a thread at
/// most); any other block reads its part.
pub const RADIX_WRITE_LIST: u32 = 1024;

/// The candidates a block's part of `slice` elements keeps at most ([`RADIX_CANDIDATE_SHARE`];
/// at least one).
pub fn radix_capacity(slice: u64) -> u64 {
    slice.div_ceil(RADIX_CANDIDATE_SHARE).max(1)
}

/// The digit passes over keys of `key_bits` bits, from the top: `(shift, bits)` of each
/// (`[shift, shift + bits)` of the key), [`RADIX_DIGIT_BITS`] at a time, the last the rest.
pub fn digits(key_bits: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut hi = key_bits;
    while hi > 0 {
        let bits = hi.min(RADIX_DIGIT_BITS);
        out.push((hi - bits, bits));
        hi -= bits;
    }
    out
}

/// The smallest k the default gives a radix select ([`takes_radix`]) on more than
/// [`RADIX_FEW_ROWS`] rows.
pub const RADIX_MIN_K: usize = 4096;

/// The smallest k the default gives a radix select on at most [`RADIX_FEW_ROWS`] rows: where a
/// row's candidates fit, the radix select reads it twice whatever k is, and from k = 2048 that
/// beats the split rows' levels on one to sixteen rows (docs/kernel.md, "Radix rows", **Where
/// the default takes it**).
pub const RADIX_FEW_ROWS_MIN_K: usize = 2048;

/// The most rows [`RADIX_FEW_ROWS_MIN_K`] applies to.
pub const RADIX_FEW_ROWS: usize = 16;

/// The smallest k the default gives a radix select on a small selection: at most
/// [`RADIX_SMALL_ROWS`] rows of [`RADIX_SMALL_ELEMS`] elements or fewer in all, where the
/// radix select's short rows take fewer, fuller blocks ([`radix_tiles_per_block`]) and its two
/// reads cost less than the split's levels from k = 512.
pub const RADIX_SMALL_MIN_K: usize = 512;

/// The most rows [`RADIX_SMALL_MIN_K`] applies to.
pub const RADIX_SMALL_ROWS: usize = 8;

/// The most elements in all (rows × width) [`RADIX_SMALL_MIN_K`] applies to, f32 rows: longer
/// rows are read about once by the split's first level, twice by the radix select.
pub const RADIX_SMALL_ELEMS: usize = 1 << 25;

/// [`RADIX_SMALL_ELEMS`] of f16 and bf16 rows: their radix select costs about what an f32
/// one of as many elements does, the bisection less (docs/kernel.md, "Radix rows", **Where
/// the default takes it**).
pub const RADIX_SMALL_ELEMS_16: usize = 1 << 23;

/// The narrowest row the default gives a radix select by k alone (rows and elements in all
/// aside); narrower rows take it where the default's split would cut them into few chunks
/// ([`RADIX_HALF_ROW`], [`RADIX_WIDE_K`]).
pub const RADIX_MIN_ROW: usize = 1 << 20;

/// Rows of at least `RADIX_HALF_ROW` (below [`RADIX_MIN_ROW`]) take the radix select from
/// k = [`RADIX_MIN_K`] on [`RADIX_HALF_ROWS`] rows: fewer rows are cluster rows, which the
/// radix select does not beat; more give the split chunks enough to fill the device.
pub const RADIX_HALF_ROW: usize = 1 << 19;

/// The rows [`RADIX_HALF_ROW`] applies to.
pub const RADIX_HALF_ROWS: std::ops::RangeInclusive<usize> = 8..=32;

/// Rows of at least [`RADIX_WIDE_K_ROW`] take the radix select from k = `RADIX_WIDE_K` on at
/// least [`RADIX_WIDE_K_ROWS`] rows, where the default splits them into chunks of 4 k or more
/// (a handful a row).
pub const RADIX_WIDE_K: usize = 16384;

/// The narrowest row [`RADIX_WIDE_K`] applies to.
pub const RADIX_WIDE_K_ROW: usize = 1 << 17;

/// The fewest rows [`RADIX_WIDE_K`] applies to: fewer are cluster rows.
pub const RADIX_WIDE_K_ROWS: usize = 32;
/// f32 rows of at least `RADIX_MID_ROW` and below [`RADIX_MIN_ROW`] take the radix select
/// from k = [`RADIX_SMALL_MIN_K`] on [`RADIX_MID_ROWS`] rows: too many for a cluster each, too
/// few for the split's chunks to fill the device. On an H100
/// (results/cuda/2026-12-06-large-sort-h100, call c) 8 and 16 rows of 393216-786432 at
/// k = 512-2048 took 0.70-0.96 of the default's time forced onto it (8 x 500000, k = 2048:
/// 52.6 -> 36.6 us), 32 rows 0.83-1.11 and 4 rows of 500000 1.19-1.27; rows of 262144 and
/// fewer 1.06-1.97. bf16 rows of the tier took 0.78-1.32 of their time by default (call d):
/// 0.78-1.00 on rows of 500000, whose split leaves a last chunk (a launch of its own after the
/// chunks'), 0.89-1.32 (eight of twelve cells above 1) on rows of 393216 and 786432, which the
/// split cuts into whole chunks of 32768. So 16-bit rows of the tier take it only where their
/// split would leave a last chunk ([`crate::split::leaves_last_chunk`]), on
/// [`RADIX_MID_ROWS_16`].
pub const RADIX_MID_ROW: usize = 393_216;

/// The rows [`RADIX_MID_ROW`] applies to.
pub const RADIX_MID_ROWS: std::ops::RangeInclusive<usize> = 8..=16;

/// The 16-bit rows [`RADIX_MID_ROW`] applies to, where their split would leave a last chunk. On
/// an H100 (results/cuda/2026-12-06-mid16-radix-h100) bf16 rows of 400000, 500000 and 600000
/// that leave one took 0.72-0.90 of the split's time on 8 and 12 rows at k = 512-2048
/// (8 x 600000, k = 2048: 54.6 -> 39.3 us), but 0.99-1.23 on 16 rows.
pub const RADIX_MID_ROWS_16: std::ops::RangeInclusive<usize> = 8..=12;

/// Fewer rows than [`RADIX_MID_ROWS`] of at least `RADIX_MID_WIDE_ROW` (and below
/// [`RADIX_MIN_ROW`]) take the radix select from k = [`RADIX_MID_WIDE_K`]: on an H100 (call c
/// as above) 1, 2 and 4 rows of 786432 took 0.69-0.92 of the default's time at k = 1024 and
/// 2048, 0.95-1.00 at 512; by default (call d) 1 and 4 rows of 786432 and 1000000 at k =
/// 1024-16384 0.20-0.88 in f32 and 0.24-0.93 in bf16 (whose 16-bit radix passes f16 rows
/// share; f16 was not timed).
pub const RADIX_MID_WIDE_ROW: usize = 786_432;

/// See [`RADIX_MID_WIDE_ROW`].
pub const RADIX_MID_WIDE_K: usize = 1024;

/// The smallest k the default gives a radix select whose rows run the sample
/// ([`RadixPlan::sample`]: read once where the sample's floor holds), on at most
/// [`RADIX_FEW_ROWS`] f32 rows of at least [`RADIX_SAMPLED_MIN_ROW`]. On an H200
/// (results/cuda/2026-12-01-radix-sample-h200/b/) such rows at k = 64–1024 took 0.61–0.98 of
/// the other routes' time (one row of 2^26 at k = 256: 0.100 ms against 0.150), at k = 16 up
/// to 1.18 of it on fewer than 2^25 elements in all.
pub const RADIX_SAMPLED_MIN_K: usize = 64;
/// See [`RADIX_SAMPLED_MIN_K`].
pub const RADIX_SAMPLED_MIN_ROW: usize = 1 << 22;
/// The smallest k the sampled rows' tier takes in f16 and bf16 (at most [`RADIX_FEW_ROWS`]
/// rows of at least [`RADIX_SAMPLED_MIN_ROW`]). On an H200
/// (results/cuda/2026-12-01-radix16-sample-h200/f/) such rows at k = 256–1024 took 0.83–1.00 of
/// the other routes' time (one row of 2^28 at k = 256: 0.440 ms against 0.507), at k = 64 on
/// 2^26 elements and more 1.29–1.46 of it: a 16-bit pass reads half the bytes of an f32 one but
/// executes about as many instructions, and at small k the other routes read 16-bit rows fast.
pub const RADIX_SAMPLED_MIN_K_16: usize = 256;

/// Whether the element type has a radix select: the float types (their own keys are 32 or 16
/// bits wide).
pub fn radix_elem(elem: ElemType) -> bool {
    matches!(elem, ElemType::F32 | ElemType::F16 | ElemType::Bf16)
}

/// Why `launch` has no radix select, if it has none: an approximate search, iteration counts
/// (a radix select has no bisection to count), or an element type without one.
pub fn cannot_radix(launch: &Launch, counts: bool) -> Option<&'static str> {
    let bisect = launch.bisect;
    if launch.k == 0 {
        return Some("k = 0: nothing to select");
    }
    if counts {
        return Some("the iteration counts are the bisection's (docs/contract.md §3)");
    }
    if bisect.max_iter.is_some() || bisect.precision > 0.0 || bisect.recall.is_some() {
        return Some("an approximate search is a bisection's (docs/contract.md §2)");
    }
    if !radix_elem(launch.elem) {
        return Some("the radix select takes f32, f16 and bf16 rows");
    }
    None
}

/// Whether the default gives `launch` a radix select on a device of `limits`, where it has
/// one: long rows by k, rows and elements in all (`long_rows_take_radix`), narrower rows
/// where k is large against them (`narrow_rows_take_radix`), few long rows that run the
/// sample (`sampled_rows_take_radix`). A split's second stage takes the same gate on its
/// candidates (crate::split).
pub fn takes_radix(launch: &Launch, limits: &DeviceLimits, counts: bool) -> bool {
    let gate = long_rows_take_radix(launch)
        || narrow_rows_take_radix(launch)
        || sampled_rows_take_radix(launch, limits);
    gate && cannot_radix(launch, counts).is_none()
}

/// At most [`RADIX_FEW_ROWS`] rows of at least [`RADIX_SAMPLED_MIN_ROW`] whose radix select
/// runs the sample (parts of at least [`RADIX_SAMPLE_MIN_TILES`] tiles on `limits`), with k of
/// at least [`RADIX_SAMPLED_MIN_K`] in f32 or [`RADIX_SAMPLED_MIN_K_16`] in f16 and bf16.
fn sampled_rows_take_radix(launch: &Launch, limits: &DeviceLimits) -> bool {
    let Launch { n, m, k, elem, .. } = *launch;
    let sampled = samples(n, m, limits);
    let min_k = match elem {
        ElemType::F32 => RADIX_SAMPLED_MIN_K,
        ElemType::F16 | ElemType::Bf16 => RADIX_SAMPLED_MIN_K_16,
        _ => return false,
    };
    n <= RADIX_FEW_ROWS && m >= RADIX_SAMPLED_MIN_ROW && k >= min_k && sampled
}

/// Rows of at least [`RADIX_MIN_ROW`] with k of at least [`RADIX_MIN_K`] —
/// [`RADIX_FEW_ROWS_MIN_K`] on at most [`RADIX_FEW_ROWS`] rows, [`RADIX_SMALL_MIN_K`] on a
/// small selection ([`RADIX_SMALL_ROWS`], [`RADIX_SMALL_ELEMS`], [`RADIX_SMALL_ELEMS_16`]).
fn long_rows_take_radix(launch: &Launch) -> bool {
    let Launch { n, m, k, elem, .. } = *launch;
    let most = if elem.packed16() { RADIX_SMALL_ELEMS_16 } else { RADIX_SMALL_ELEMS };
    let small = n <= RADIX_SMALL_ROWS && n.saturating_mul(m) <= most;
    let min_k = if small {
        RADIX_SMALL_MIN_K
    } else if n <= RADIX_FEW_ROWS {
        RADIX_FEW_ROWS_MIN_K
    } else {
        RADIX_MIN_K
    };
    k >= min_k && m >= RADIX_MIN_ROW
}

/// Rows of at least [`RADIX_HALF_ROW`] with k of at least [`RADIX_MIN_K`] on
/// [`RADIX_HALF_ROWS`] rows, of at least [`RADIX_WIDE_K_ROW`] with k of at least
/// [`RADIX_WIDE_K`] on at least [`RADIX_WIDE_K_ROWS`] rows, rows of at least [`RADIX_MID_ROW`]
/// with k of at least [`RADIX_SMALL_MIN_K`] (f32 rows on [`RADIX_MID_ROWS`], 16-bit rows whose
/// split would leave a last chunk on [`RADIX_MID_ROWS_16`]), or rows of at least
/// [`RADIX_MID_WIDE_ROW`] with k of at least [`RADIX_MID_WIDE_K`] on fewer.
fn narrow_rows_take_radix(launch: &Launch) -> bool {
    let Launch { n, m, k, elem, .. } = *launch;
    let half = m >= RADIX_HALF_ROW && RADIX_HALF_ROWS.contains(&n) && k >= RADIX_MIN_K;
    let wide_k = m >= RADIX_WIDE_K_ROW && n >= RADIX_WIDE_K_ROWS && k >= RADIX_WIDE_K;
    let mid_rows = match elem {
        ElemType::F32 => RADIX_MID_ROWS.contains(&n),
        _ => elem.packed16() && RADIX_MID_ROWS_16.contains(&n) && leaves_last_chunk(m, k, elem),
    };
    let mid = (RADIX_MID_ROW..RADIX_MIN_ROW).contains(&m) && k >= RADIX_SMALL_MIN_K && mid_rows;
    let few = n < *RADIX_MID_ROWS.start();
    let mid_wide = (RADIX_MID_WIDE_ROW..RADIX_MIN_ROW).contains(&m) && few && k >= RADIX_MID_WIDE_K;
    half || wide_k || mid || mid_wide
}

/// The radix select of `launch` on a device of `limits`: parts of whole tiles, as many blocks
/// per row as spread the rows over [`RADIX_BLOCKS_PER_SM`] blocks an SM (at least one per
/// row) — or over [`RADIX_FEW_BLOCKS_PER_SM`] where each block then takes at most
/// [`RADIX_FEW_BLOCKS_TILES`] tiles ([`radix_tiles_per_block`]) — and the sort for sorted
/// output. Errors: what [`cannot_radix`] names
/// ([`PlanError::Split`]'s kind: a forced route the shape cannot take), and grids past 2^31
/// blocks.
pub fn radix_plan(
    launch: &Launch,
    limits: &DeviceLimits,
    counts: bool,
) -> Result<RadixPlan, PlanError> {
    let Launch { n, m, k, elem, .. } = *launch;
    if let Some(why) = cannot_radix(launch, counts) {
        return Err(PlanError::Split { n, m, k, why });
    }
    let too_large = |why| PlanError::TooLarge { n, m, why };
    u32::try_from(m).map_err(|_| too_large("M >= 2^32"))?;
    let per_block = radix_tiles_per_block(n, m, limits);
    let slice = per_block.saturating_mul(RADIX_TILE).min(m as u64).max(1);
    let blocks_per_row = (m as u64).div_ceil(slice);
    let grid = (n as u64).checked_mul(blocks_per_row).ok_or(too_large("2^64 blocks"))?;
    if grid >= 1 << 31 {
        return Err(too_large("2^31 blocks or more"));
    }
    Ok(RadixPlan {
        slice: slice as u32,                   // <= m < 2^32
        blocks_per_row: blocks_per_row as u32, // <= grid < 2^31
        key_bits: if elem.packed16() { 16 } else { 32 },
        elem,
        sort: sort_of(launch, limits)?,
        sample: samples(n, m, limits),
    })
}

/// Whether the radix select of `n` rows of `m` runs the sample ([`RadixPlan::sample`]): parts
/// of at least [`RADIX_SAMPLE_MIN_TILES`] whole tiles.
fn samples(n: usize, m: usize, limits: &DeviceLimits) -> bool {
    let tiles = RADIX_SAMPLE_MIN_TILES;
    radix_tiles_per_block(n, m, limits) >= tiles && m as u64 >= tiles * RADIX_TILE
}

/// Tiles per block of rows of `m`, `n` of them: the rows spread over
/// [`RADIX_BLOCKS_PER_SM`] blocks an SM, or over [`RADIX_FEW_BLOCKS_PER_SM`] where each block
/// then takes at most [`RADIX_FEW_BLOCKS_TILES`] tiles (short rows: fewer, fuller blocks);
/// at least one tile.
pub fn radix_tiles_per_block(n: usize, m: usize, limits: &DeviceLimits) -> u64 {
    let tiles = (m as u64).div_ceil(RADIX_TILE);
    let spread = |per_sm: usize| {
        let blocks = limits.sm_count.saturating_mul(per_sm).div_ceil(n.max(1)).max(1);
        tiles.div_ceil(blocks as u64)
    };
    let many = spread(RADIX_BLOCKS_PER_SM);
    let few = spread(RADIX_FEW_BLOCKS_PER_SM).min(RADIX_FEW_BLOCKS_TILES);
    many.max(few).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PRESETS;
    use topk_ref::{Bisect, Mode};

    fn launch(n: usize, m: usize, k: usize, elem: ElemType) -> Launch {
        Launch { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), sorted: false, elem }
    }

    #[test]
    fn each_radix_step_names_its_entry_point() {
        use crate::program::StepKind;
        let steps = [
            StepKind::RadixSample,
            StepKind::RadixDigits,
            StepKind::RadixCount,
            StepKind::RadixWrite,
        ];
        let names: Vec<String> = steps.iter().map(|s| format!("rtopk_{}", s.name())).collect();
        assert_eq!(names, crate::units::RADIX_ENTRIES[..4]);
        let twins: Vec<String> = names.iter().map(|n| format!("{n}_ragged")).collect();
        assert_eq!(twins, crate::units::RADIX_ENTRIES[4..]);
    }

    #[test]
    fn digits_cover_the_key_from_the_top() {
        assert_eq!(digits(32), vec![(21, 11), (10, 11), (0, 10)]);
        assert_eq!(digits(16), vec![(5, 11), (0, 5)]);
    }

    #[test]
    fn parts_cover_each_row_once_in_whole_tiles() {
        let limits = PRESETS[1].1;
        for (n, m) in [(1, 1 << 28), (1, 4_194_304), (3, 3_000_001), (256, 1 << 21), (1, 5000)] {
            let p = radix_plan(&launch(n, m, 4096.min(m), ElemType::F32), &limits, false).unwrap();
            let (slice, b) = (u64::from(p.slice), u64::from(p.blocks_per_row));
            assert!(slice * b >= m as u64 && slice * (b - 1) < m as u64, "{n} x {m}");
            assert!(slice % RADIX_TILE == 0 || b == 1, "{n} x {m}: slice {slice}");
            assert!(
                n as u64 * b >= (limits.sm_count * RADIX_FEW_BLOCKS_PER_SM) as u64
                    || b * slice >= m as u64
            );
        }
    }

    /// Short rows spread over fewer, fuller blocks; long rows as before (the H200's 132 SMs:
    /// the tiles of RADIX_FEW_BLOCKS_TILES's measurements).
    #[test]
    fn short_rows_take_fewer_fuller_blocks() {
        let h200 = PRESETS.iter().find(|(name, _)| *name == "h200").unwrap().1;
        assert_eq!(h200.sm_count, 132);
        let cases = [
            (1, 1 << 21, 2),  // 512 tiles: 256 blocks of two, not 512 of one
            (1, 1 << 22, 4),  // 1024 tiles: 256 blocks of four, not 512 of two
            (2, 1 << 21, 4),  // 128 blocks a row, not 256
            (1, 1 << 20, 1),  // 256 tiles: one a block either way
            (8, 1 << 21, 8),  // 66 blocks a row either way
            (1, 1 << 25, 16), // 8192 tiles: 512 blocks of 16, as before
            (1, 1 << 28, 125),
            (256, 1 << 20, 86),
        ];
        for (n, m, tiles) in cases {
            assert_eq!(radix_tiles_per_block(n, m, &h200), tiles, "{n} x {m}");
            let p = radix_plan(&launch(n, m, 4096, ElemType::F32), &h200, false).unwrap();
            assert_eq!(u64::from(p.slice), tiles * RADIX_TILE, "{n} x {m}");
        }
    }

    #[test]
    fn approximate_searches_counts_and_integers_take_no_radix_select() {
        let limits = PRESETS[1].1;
        let l = launch(1, 1 << 22, 8192, ElemType::F32);
        assert!(takes_radix(&l, &limits, false));
        assert!(!takes_radix(&l, &limits, true));
        assert!(radix_plan(&l, &limits, true).is_err());
        let early = Launch { bisect: Bisect::early_stopping(3), ..l };
        assert!(!takes_radix(&early, &limits, false));
        let sampled = launch(1, 1 << 28, 256, ElemType::F32);
        assert!(takes_radix(&sampled, &limits, false));
        assert!(!takes_radix(
            &Launch { bisect: Bisect::early_stopping(3), ..sampled },
            &limits,
            false
        ));
        let ints = Launch { elem: ElemType::I32, ..l };
        assert!(matches!(radix_plan(&ints, &limits, false), Err(PlanError::Split { .. })));
    }

    /// The gate's tiers and their edges (docs/kernel.md, "Radix rows", **Where the default
    /// takes it**).
    #[test]
    fn the_default_takes_a_radix_select_by_rows_width_and_k() {
        let h200 = PRESETS[2].1;
        let takes = |n: usize, m: usize, k: usize| {
            takes_radix(&launch(n, m, k, ElemType::F32), &h200, false)
        };
        // a small selection: at most 8 rows of 2^25 elements in all, from k = 512
        assert!(takes(1, 1 << 22, 512));
        assert!(!takes(1, 1 << 22, 511));
        assert!(takes(8, 1 << 22, 512));
        assert!(takes(1, 1 << 25, 512));
        assert!(!takes(9, 1 << 20, 1024)); // more rows
        // sampled rows: at most 16 rows of 2^22 and more from k = 64, where the sample runs
        // (parts of eight tiles: 2^23 elements in all and more on 132 SMs)
        assert!(takes(1, 1 << 28, 64));
        assert!(!takes(1, 1 << 28, 63));
        assert!(takes(1, 1 << 23, 64));
        assert!(!takes(1, 1 << 22, 64)); // parts of four tiles: no sample
        assert!(takes(2, 1 << 22, 256));
        assert!(takes(16, 1 << 22, 64));
        assert!(!takes(17, 1 << 22, 1024));
        assert!(!takes(32, (1 << 21) + 1, 1024)); // more rows, narrower
        assert!(!takes(16, (1 << 22) - 1, 1024));
        // few rows: at most 16, from k = 2048, whatever their width
        assert!(takes(12, 1 << 20, 2048));
        assert!(!takes(12, 1 << 20, 2047));
        assert!(takes(16, 1 << 21, 2048));
        assert!(!takes(16, 1 << 21, 2047));
        assert!(takes(16, 1 << 22, 2048));
        assert!(!takes(17, 1 << 22, 2048));
        // any rows from k = 4096
        assert!(takes(17, 1 << 22, 4096));
        assert!(takes(1024, 1 << 20, 4096));
        assert!(!takes(1, RADIX_MID_WIDE_ROW - 1, 4096));
        assert!(!takes(1, (1 << 20) - 1, 512));
        // narrower rows: 8 to 32 rows of 2^19 from k = 4096, 32 or more of 2^17 from 16384
        assert!(takes(17, 1 << 19, 4096));
        assert!(takes(32, 1 << 19, 4096));
        assert!(!takes(7, 1 << 19, 4096));
        assert!(!takes(33, 1 << 19, 4096));
        assert!(!takes(17, 1 << 19, 4095));
        assert!(!takes(17, (1 << 19) - 1, 4096));
        // 8 to 16 rows of 393216 to 2^20 from k = 512; fewer rows of 786432 to 2^20 from 1024
        assert!(takes(8, RADIX_MID_ROW, 512));
        assert!(takes(16, (1 << 20) - 1, 512));
        assert!(!takes(8, RADIX_MID_ROW, 511));
        assert!(!takes(8, RADIX_MID_ROW - 1, 4095));
        assert!(!takes(17, RADIX_MID_ROW, 2048));
        assert!(!takes(7, RADIX_MID_ROW, 2048));
        assert!(takes(1, RADIX_MID_WIDE_ROW, 1024));
        assert!(takes(7, (1 << 20) - 1, 1024));
        assert!(!takes(1, RADIX_MID_WIDE_ROW, 1023));
        assert!(!takes(2, RADIX_MID_WIDE_ROW - 1, 2048));
        assert!(takes(32, 1 << 17, 16384));
        assert!(takes(4096, 1 << 18, 16384));
        assert!(!takes(31, 1 << 17, 16384));
        assert!(!takes(32, 1 << 17, 16383));
        assert!(!takes(32, (1 << 17) - 1, 16384));
        assert!(!takes(64, 1 << 16, 16384));
        // 16-bit rows: a small selection holds at most 2^23 elements in all
        for elem in [ElemType::F16, ElemType::Bf16] {
            let takes =
                |n: usize, m: usize, k: usize| takes_radix(&launch(n, m, k, elem), &h200, false);
            assert!(takes(1, 1 << 23, 512));
            // sampled rows: at most 16 rows of 2^22 and more from k = 256
            assert!(takes(1, 1 << 24, 256));
            assert!(!takes(1, 1 << 24, 255));
            assert!(takes(1, 1 << 23, 256));
            assert!(!takes(1, 1 << 22, 256)); // parts of four tiles: no sample
            assert!(takes(16, 1 << 22, 256));
            assert!(!takes(17, 1 << 22, 256)); // more rows
            assert!(takes(1, 1 << 28, 1024));
            assert!(!takes(1, 1 << 28, 64)); // the f32 tier's k
            // a shape whose product overflows is not a small selection
            assert!(!long_rows_take_radix(&launch(8, usize::MAX, 1024, elem)));
            assert!(takes(8, 1 << 20, 512));
            assert!(!takes(8, (1 << 20) + 1, 1024)); // past a small selection's 2^23
            assert!(!takes(17, 1 << 22, 2047));
            assert!(takes(16, 1 << 22, 2048));
            // the 16-bit rows of RADIX_MID_ROW's tier, 8 to 12 of them, take it where their
            // split would leave a last chunk (500000 at k = 2048: chunks of 32768, 8480 left;
            // at k = 1024: of 16384, no equal width), not where it cuts whole chunks
            // (393216 = 12 x 32768) or equal ones (500000 at k = 512: 50 x 10000); fewer,
            // wider rows as f32 rows
            assert!(!takes(8, RADIX_MID_ROW, 2048));
            assert!(!takes(12, 786_432, 2048));
            assert!(takes(8, 500_000, 2048));
            assert!(takes(12, 500_000, 1024));
            assert!(takes(12, 600_000, 512));
            assert!(!takes(13, 500_000, 2048));
            assert!(!takes(16, 500_000, 1024));
            assert!(!takes(7, 500_000, 2048));
            assert!(!takes(8, 500_000, 512));
            assert!(!takes(8, 500_000, 511));
            assert!(takes(4, RADIX_MID_WIDE_ROW, 1024));
        }
    }
}
