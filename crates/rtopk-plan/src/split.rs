//! Split rows (docs/kernel.md, "Split rows"): rows too long or too few to fill the GPU from
//! one warp or block each are cut into chunks, as Dr. Top-k's delegates and AIR's candidate
//! buffer do (papers 004 and 002). The first stage selects each chunk's top k with the kernels
//! of the ordinary plan (the chunks are rows to it); the second selects the row's top k among
//! its chunks' results, itself split again where it is still long; a last step turns the
//! positions among the candidates back into the row's indices.
//!
//! The answer is docs/contract.md §1's canonical top-k: every element of the row's top k is in its
//! chunk's top k, so the candidates hold the answer; and equal keys keep their index order
//! among the candidates (a chunk's results are in index order within each of its strong and
//! band groups, and a key is in one of them; chunks lie in row order), so the second stage's
//! tie-break by position is the row's tie-break by index. The search's iteration counts are
//! those of the chunks, not of the row (docs/contract.md §3 counts the row's): a launch that wants them,
//! or searches approximately (early stopping, a precision, a recall target), is never split.
//! On a device that launches thread-block clusters, the few long rows that crate::cluster takes
//! run as one cluster each instead (`route_of`), whole rows or a split's second stage.

use crate::cluster::{ClusterRows, cluster_plan, clusters};
use crate::error::PlanError;
use crate::pick::{pick_plan, picks};
use crate::plan::{DeviceLimits, Launch, MAX_WARP_ROW, Plan, Strategy, plan};
use crate::program::vec4_rows;
use crate::radix::{RadixPlan, radix_plan, takes_radix};
use crate::units::ElemType;

/// The narrowest chunk: one warp row of 64 keys per lane.
pub const MIN_CHUNK: usize = 2048;
/// The widest chunk where k allows: past it a chunk no longer fits one block's registers and
/// shared memory. Only a k above `MAX_CHUNK / MIN_CHUNK_PER_K` gets wider chunks (the
/// narrowest power of two that holds [`MIN_CHUNK_PER_K`] k, re-keyed from global memory past
/// shared memory): many such blocks side by side beat the one block a whole row would get
/// (results/cuda/2026-11-28-large-k-h200: 1 × 2^25 at k = 32768 took 358 ms on one block).
pub const MAX_CHUNK: usize = 1 << 16;
/// Chunks are this many times k wide where they can be (at most [`MAX_CHUNK`], at most a
/// quarter of the row), so that the candidates are a small part of the row and the second
/// stage reads little. On an H100 (results/cuda/2026-11-24-split-plan-h100) 16 k took 2.11 ms
/// against 8 k's 2.87 at N = 1024, M = 2^20, k = 256 (the chunk kernel reads faster at 4096
/// than at 2048 and writes half the candidates); the only cells it lost were rows left two
/// chunks (up to 20 % at M = 32768, k = 1024): hence the quarter.
pub const CHUNK_PER_K: usize = 16;
/// Chunks are at least this many times k wide: each split reads a quarter of what the one
/// before read, at most.
pub const MIN_CHUNK_PER_K: usize = 4;
/// Rows up to this width are never split, however few: one block per row (its keys in
/// registers) beat the split on an H200 at every N measured, 1 to 4096
/// (results/cuda/2026-11-28-split-hints-replay-h200/ac/: rows of 10000 and 16384, k = 64, 512,
/// 2048: 0.42-0.95 of the split's time where the split applied); on an H100 at N = 16384 (the
/// README's split-rows table) one block per row won at 16384 from k = 256 (0.71 against
/// 0.77 ms).
pub const SPLIT_WIDE_ROW: usize = 16384;
/// The widest row one block holds in registers ([`crate::units::BLOCK_EPL`] keys for each of
/// 1024 threads). Rows up to it, past [`SPLIT_WIDE_ROW`], run whole where there are at most as
/// many rows as SMs or `k` is at least a sixteenth of the row, and split otherwise: on an H200
/// (`ac/` as above; M = 24576 and 32768) one block per row took 0.64-1.05 of the split's time at
/// N <= 128, 0.70-0.91 at k = M / 16 for every N to 4096, but up to 1.71 at k = 64 and N >= 256.
/// At 32768 and k = 64 the split was 4-5 % faster for N <= 8 (16.0 against 16.8 µs).
/// On an H100 at N = 16384 split rows of 32768 took 0.98-1.80 ms against one block per row's
/// 1.63-1.97 ms (k = 50 to 1024).
pub const BLOCK_REGISTER_ROW: usize = crate::units::BLOCK_EPL * 1024;

/// How a split row's first stage covers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// The chunk width (a power of two, or equal chunks near one: [`even_chunk`]).
    pub chunk: usize,
    /// Chunks of `chunk` values per row, the first ones. A ragged split's chunks
    /// ([`ragged_route`]) are all `chunk` wide, the last cut at the row's end.
    pub full: usize,
    /// The last chunk's width (`0 < last < 2 chunk`), or 0 when `full` chunks cover the row.
    pub last: usize,
    /// The launch over the full chunks (`n * full` rows of `chunk`).
    pub first_plan: Plan,
    /// The launch over the last chunks (`n` rows of `last`).
    pub last_plan: Option<Plan>,
}

impl Split {
    /// Chunks per row.
    pub fn chunks(&self) -> usize {
        self.full + usize::from(self.last > 0)
    }

    /// The second stage's row width: every chunk's k results.
    pub fn candidates(&self, k: usize) -> usize {
        self.chunks() * k
    }
}

/// A top-k launch: one plan, or a split row's first stage and the route of its second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The rows as they are.
    Direct(Plan),
    /// Split rows: the first stage, then the route of the `(n, candidates, k)` second stage.
    Split {
        /// The first stage.
        split: Split,
        /// The second stage.
        rest: Box<Route>,
    },
    /// The radix select (crate::radix): digit passes, a count and a write over whole rows.
    Radix(RadixPlan),
}

impl Route {
    /// The plans the route launches, in order (the last step of each split aside).
    pub fn plans(&self) -> Vec<Plan> {
        match self {
            Route::Direct(p) => vec![*p],
            Route::Radix(_) => Vec::new(),
            Route::Split { split, rest } => {
                let mut out = vec![split.first_plan];
                out.extend(split.last_plan);
                out.extend(rest.plans());
                out
            }
        }
    }

    /// The units the route runs: its plans' and, for each split, the gather.
    pub fn units(&self) -> Vec<crate::units::Unit> {
        let mut out: Vec<_> = self.plans().iter().flat_map(Plan::units).collect();
        if let Route::Radix(r) = self {
            out.push(crate::units::Unit::radix(r.elem));
            out.extend(r.sort.map(|s| s.unit));
        }
        if self.depth() > 0 {
            out.push(crate::units::Unit::single(crate::units::Family::SplitGather));
        }
        out
    }

    /// Whether the route's search reports each row's iteration counts (docs/contract.md §3
    /// counts the row's bisection): a direct route's; a split's are its chunks', and a radix
    /// select has no bisection.
    pub fn counts(&self) -> bool {
        matches!(self, Route::Direct(_))
    }

    /// How many times the rows are split (0 for a direct launch).
    pub fn depth(&self) -> usize {
        match self {
            Route::Direct(_) | Route::Radix(_) => 0,
            Route::Split { rest, .. } => 1 + rest.depth(),
        }
    }
}

/// The route of `launch` on a device of `limits` with `strategy`; `counts`: whether the
/// caller wants the iteration counts. [`Strategy::Auto`] splits rows where the module's rules
/// say; [`Strategy::Split`] splits wherever the shape can be split (an error where it cannot);
/// the other strategies never split.
pub fn route(
    launch: &Launch,
    limits: &DeviceLimits,
    strategy: Strategy,
    counts: bool,
) -> Result<Route, PlanError> {
    route_of(launch, limits, strategy, counts, false)
}

/// [`route()`]; `ragged`: the steps read per-row arrays, which the bisection's ragged units
/// and the radix select take (so no pick rows, crate::pick). The radix select reads a row's
/// own length and k, never its hint: a hinted row it takes is not searched from the hint, as
/// no radix row is, and the bisection it would take instead is slower there (results/cuda/
/// 2026-12-01-ragged-radix-h200).
pub(crate) fn route_of(
    launch: &Launch,
    limits: &DeviceLimits,
    strategy: Strategy,
    counts: bool,
    ragged: bool,
) -> Result<Route, PlanError> {
    let rows = if ragged { ClusterRows::PerRow } else { ClusterRows::Plain };
    route_with(launch, limits, strategy, counts, ragged, true, rows)
}

/// [`route_of`]; `radix`: whether the default may take the radix select (not on the second
/// stage of a ragged request's split, whose last select reads the hints); `rows`: which rows
/// the cluster shapes are for ([`ClusterRows`]).
fn route_with(
    launch: &Launch,
    limits: &DeviceLimits,
    strategy: Strategy,
    counts: bool,
    ragged: bool,
    radix_ok: bool,
    rows: ClusterRows,
) -> Result<Route, PlanError> {
    let whole = |s| plan(launch, limits, s).map(Route::Direct);
    if launch.elem.wide() {
        // one kernel holds 64-bit rows, plain or ragged (crate::wide): never split
        return plan(launch, limits, strategy).map(Route::Direct);
    }
    let radix = || radix_plan(launch, limits, counts).map(Route::Radix);
    match strategy {
        Strategy::Auto if radix_ok && takes_radix(launch, limits, counts) => radix(),
        Strategy::Auto if picks(launch, counts, ragged) => pick_plan(launch).map(Route::Direct),
        Strategy::Auto if clusters(launch, limits, rows) => {
            cluster_plan(launch, limits, rows).map(Route::Direct)
        }
        Strategy::Auto if splits(launch, limits, counts) => split_route(launch, limits, ragged),
        Strategy::Auto => whole(Strategy::Auto),
        Strategy::Split => {
            plan(launch, limits, Strategy::Auto)?; // the shape's own errors first
            if let Some(why) = cannot_split(launch, counts) {
                return Err(PlanError::Split { n: launch.n, m: launch.m, k: launch.k, why });
            }
            split_route(launch, limits, ragged)
        }
        Strategy::Radix => {
            plan(launch, limits, Strategy::Auto)?; // the shape's own errors first
            radix()
        }
        other => whole(other),
    }
}

/// Why `launch` cannot be split, if it cannot.
fn cannot_split(launch: &Launch, counts: bool) -> Option<&'static str> {
    if launch.k == 0 {
        return Some("k = 0: nothing to select");
    }
    if counts {
        return Some(
            "the iteration counts are the row's (docs/contract.md §3): a split row has none",
        );
    }
    let bisect = launch.bisect;
    if bisect.max_iter.is_some() || bisect.precision > 0.0 || bisect.recall.is_some() {
        return Some("an approximate search answers for the whole row (docs/contract.md §2)");
    }
    if chunk_width(launch.m, launch.k).is_none() {
        return Some("no chunk of at least 2048 holds 4 k and fits the row twice");
    }
    None
}

/// Whether the default splits `launch`: an exact search with no counts wanted, rows that can
/// be split, past [`SPLIT_WIDE_ROW`], and past [`BLOCK_REGISTER_ROW`] or, up to it, more rows
/// than SMs with `k` below a sixteenth of the row.
fn splits(launch: &Launch, limits: &DeviceLimits, counts: bool) -> bool {
    let Launch { n, m, k, .. } = *launch;
    let block_holds =
        m <= BLOCK_REGISTER_ROW && (n <= limits.sm_count || k.saturating_mul(16) >= m);
    m > SPLIT_WIDE_ROW && !block_holds && cannot_split(launch, counts).is_none()
}

/// The chunk width for rows of `m` and `k` results: the narrowest power of two of at least
/// [`MIN_CHUNK`] and [`CHUNK_PER_K`] k, at most [`MAX_CHUNK`] (or, for a k past
/// `MAX_CHUNK / MIN_CHUNK_PER_K`, the narrowest power of two that holds [`MIN_CHUNK_PER_K`] k),
/// halved while it is wider than a quarter of the row and its half still holds [`MIN_CHUNK`]
/// and [`MIN_CHUNK_PER_K`] k; if it holds [`MIN_CHUNK_PER_K`] k and fits the row twice.
pub fn chunk_width(m: usize, k: usize) -> Option<usize> {
    let least = k.checked_mul(MIN_CHUNK_PER_K)?;
    let widest = MAX_CHUNK.max(least.checked_next_power_of_two()?);
    let mut c = k.checked_mul(CHUNK_PER_K)?.clamp(MIN_CHUNK, widest).checked_next_power_of_two()?;
    while c > m / 4 && c / 2 >= least.max(MIN_CHUNK) {
        c /= 2;
    }
    let fits = least <= c && c.checked_mul(2)? <= m;
    fits.then_some(c)
}

/// Where the power-of-two `chunk` of block rows leaves a last chunk (a launch of its own after
/// the chunks'), the width of equal chunks that cover the row exactly, nearest `chunk` by ratio,
/// where one is: from 7/8 to 5/4 of `chunk` and at most [`EVEN_MAX_WIDTH`], whole 16-byte groups
/// of `elem` (the chunks keep their 16-byte loads), at least [`MIN_CHUNK_PER_K`] k; block rows
/// (`chunk` past [`MAX_WARP_ROW`]: a warp row's chunk keeps its floor entry only at 2048), at
/// most [`EVEN_MAX_CHUNKS`] of them. On an H100 (results/cuda/2026-12-06-even-chunks-h100, call
/// a) such chunks took 0.76-0.96 of the time on 32-96 rows of 100352, 128256 and 151936 at
/// k = 512-2048 and of 100000 and 500000 at k = 512 (32 x 128256, k = 1024: 42.7 -> 32.4 us),
/// 0.96-1.01 on 256-1024 rows; chunks of 20000 (blocks of 640 threads, one an SM) took
/// 1.00-1.11 and chunks past 32768 (part of the row in shared memory) 1.29-1.32.
pub fn even_chunk(m: usize, k: usize, chunk: usize, elem: ElemType) -> Option<usize> {
    // a warp row's chunk, or one far too wide for an equal width (this bound keeps `chunk * 7`
    // from overflowing; 32768, within it, finds none through the empty range below)
    let far = chunk <= MAX_WARP_ROW || chunk > 2 * EVEN_MAX_WIDTH;
    if far || m % chunk == 0 || m / chunk > EVEN_MAX_CHUNKS {
        return None;
    }
    let least = k.checked_mul(MIN_CHUNK_PER_K)?.max((chunk * 7).div_ceil(8));
    let most = (chunk * 5 / 4).min(EVEN_MAX_WIDTH);
    // the ratio of the wider to the narrower width, as a fraction
    let off = |w: usize| (w.max(chunk) as u128, w.min(chunk) as u128);
    (m.div_ceil(most)..=m / least)
        .filter(|&c| m % c == 0)
        .map(|c| m / c)
        .filter(|&w| (least..=most).contains(&w) && vec4_rows(elem, &[w as u64]))
        .min_by(|&a, &b| {
            let ((a_hi, a_lo), (b_hi, b_lo)) = (off(a), off(b));
            (a_hi * b_lo).cmp(&(b_hi * a_lo))
        })
}

/// Whether the default's split of rows of `m` at `k` ([`chunk_width`], then [`even_chunk`])
/// leaves a last chunk: one more launch in series after the chunks' (crate::radix weighs it).
pub fn leaves_last_chunk(m: usize, k: usize, elem: ElemType) -> bool {
    chunk_width(m, k).is_some_and(|c| m % c != 0 && even_chunk(m, k, c, elem).is_none())
}

/// See [`even_chunk`].
pub const EVEN_MAX_CHUNKS: usize = 64;
/// See [`even_chunk`]: chunks of block rows of at most 512 threads, two an SM.
pub const EVEN_MAX_WIDTH: usize = 16384;

/// The first stage of a split of `launch` and the route of its second (`ragged`: its steps read
/// per-row arrays, [`route_of`]).
fn split_route(launch: &Launch, limits: &DeviceLimits, ragged: bool) -> Result<Route, PlanError> {
    let Launch { n, m, k, .. } = *launch;
    let chunk = chunk_width(m, k).ok_or(PlanError::Split { n, m, k, why: "no chunk width" })?;
    let chunk = if ragged { chunk } else { even_chunk(m, k, chunk, launch.elem).unwrap_or(chunk) };
    let (mut full, mut last) = (m / chunk, m % chunk);
    if last > 0 && last < k {
        // a last chunk narrower than k joins the one before it
        full -= 1;
        last += chunk;
    }
    let too_large = PlanError::TooLarge { n, m, why: "more than 2^64 chunks" };
    let stage = |rows: usize, width: usize| {
        let l = Launch { n: rows, m: width, sorted: false, ..*launch };
        plan(&l, limits, Strategy::Auto)
    };
    let first_plan = stage(n.checked_mul(full).ok_or(too_large)?, chunk)?;
    let last_plan = if last > 0 { Some(stage(n, last)?) } else { None };
    let split = Split { chunk, full, last, first_plan, last_plan };
    let width = split.candidates(k);
    u32::try_from(width).map_err(|_| PlanError::TooLarge { n, m, why: "2^32 candidates" })?;
    let rest = Launch { m: width, ..*launch };
    Ok(Route::Split { split, rest: Box::new(second_stage(&rest, limits, ragged)?) })
}

/// The route of a ragged `launch` (rows of their own length or k, docs/contract.md §5): where
/// [`route()`] splits the rows, the same chunk width, but every chunk `chunk` wide, the last one
/// cut at the row's end (`full` chunks, no last-chunk launch: each chunk's own length,
/// `clamp(length - c chunk, 0, chunk)`, is read in the kernel, so a chunk narrower than k is
/// no error), and a second stage of whole rows: a ragged split is one level deep, its second
/// stage a row of its own (derived) length. Otherwise [`route()`]'s.
pub fn ragged_route(
    launch: &Launch,
    limits: &DeviceLimits,
    strategy: Strategy,
    counts: bool,
) -> Result<Route, PlanError> {
    let r = route_with(launch, limits, strategy, counts, true, true, ClusterRows::PerRow)?;
    let Route::Split { split, .. } = r else { return Ok(r) };
    let Launch { n, m, k, .. } = *launch;
    let chunk = split.chunk;
    let full = m.div_ceil(chunk);
    let too_large = PlanError::TooLarge { n, m, why: "more than 2^64 chunks" };
    let chunks =
        Launch { n: n.checked_mul(full).ok_or(too_large)?, m: chunk, sorted: false, ..*launch };
    let first_plan = plan(&chunks, limits, Strategy::Auto)?;
    let split = Split { chunk, full, last: 0, first_plan, last_plan: None };
    let width = split.candidates(k);
    u32::try_from(width).map_err(|_| PlanError::TooLarge { n, m, why: "2^32 candidates" })?;
    let rest = Launch { m: width, ..*launch };
    let rest = if clusters(&rest, limits, ClusterRows::PerRow) {
        cluster_plan(&rest, limits, ClusterRows::PerRow)?
    } else {
        plan(&rest, limits, Strategy::Auto)?
    };
    Ok(Route::Split { split, rest: Box::new(Route::Direct(rest)) })
}

/// The route of a split row's second stage: the default's for rows of its width and count
/// (split again only past [`SPLIT_WIDE_ROW`], and up to [`BLOCK_REGISTER_ROW`] only for more
/// rows than SMs). On an H100 (results/cuda/2026-11-24-split-plan-h100) one block per row of
/// 16384 candidates took 0.0223 against 0.0290 ms as two more stages (N = 1, M = 262144,
/// k = 256).
fn second_stage(rest: &Launch, limits: &DeviceLimits, ragged: bool) -> Result<Route, PlanError> {
    let rows = if ragged { ClusterRows::PerRow } else { ClusterRows::Candidates };
    route_with(rest, limits, Strategy::Auto, false, ragged, !ragged, rows)
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::units::Family;

    /// An H100 that launches no clusters: the splits these tests are about (crate::cluster's
    /// tests have the rest).
    const H100: DeviceLimits = DeviceLimits {
        sm_count: 132,
        shared_optin_bytes: 232_448,
        max_cluster: 1,
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
            elem: crate::ElemType::F32,
        }
    }

    fn auto(n: usize, m: usize, k: usize) -> Route {
        route(&launch(n, m, k), &H100, Strategy::Auto, false).unwrap()
    }

    #[test]
    fn chunks_are_powers_of_two_of_sixteen_k_at_most_a_quarter_row() {
        assert_eq!(chunk_width(1 << 20, 1), Some(2048));
        assert_eq!(chunk_width(1 << 20, 128), Some(2048));
        assert_eq!(chunk_width(1 << 20, 129), Some(4096));
        assert_eq!(chunk_width(1 << 20, 256), Some(4096));
        assert_eq!(chunk_width(1 << 20, 1024), Some(16384));
        assert_eq!(chunk_width(1 << 20, 4096), Some(65536));
        assert_eq!(chunk_width(1 << 20, 8193), Some(65536), "at least 4 k");
        // at most a quarter of the row, while half still holds 4 k and 2048
        assert_eq!(chunk_width(32768, 1024), Some(8192));
        assert_eq!(chunk_width(32768, 256), Some(4096));
        assert_eq!(chunk_width(32768, 2048), Some(8192));
        assert_eq!(chunk_width(20000, 300), Some(4096));
        assert_eq!(chunk_width(16384, 50), Some(2048));
        assert_eq!(chunk_width(16384, 1024), Some(4096));
        assert_eq!(chunk_width(16384, 1025), Some(8192), "half would hold less than 4 k");
        assert_eq!(chunk_width(1 << 20, 16384), Some(65536));
        // past MAX_CHUNK / 4: the narrowest power of two that holds 4 k
        assert_eq!(chunk_width(1 << 20, 16385), Some(131072));
        assert_eq!(chunk_width(1 << 22, 32768), Some(131072));
        assert_eq!(chunk_width(1 << 25, 32768), Some(131072));
        assert_eq!(chunk_width(1 << 17, 32768), None, "the row must hold two chunks");
        assert_eq!(chunk_width(4095, 1), None, "the row must hold two chunks");
        assert_eq!(chunk_width(4096, 1), Some(2048));
        assert_eq!(chunk_width(usize::MAX, usize::MAX), None);
    }

    #[test]
    fn the_default_splits_long_rows_and_few_rows_only() {
        assert_eq!(auto(1, 16384, 50).depth(), 0, "at most 16384: never, however few");
        assert_eq!(auto(16384, 16384, 50).depth(), 0);
        // up to one block's registers: whole for at most one row per SM or k >= M / 16
        assert_eq!(auto(1, 16385, 50).depth(), 0, "one row a block holds");
        assert_eq!(auto(132, 32768, 50).depth(), 0, "one row per SM");
        assert_eq!(auto(133, 32768, 50).depth(), 1, "more rows than SMs");
        assert_eq!(auto(4096, 32768, 2048).depth(), 0, "k = M / 16");
        assert_eq!(auto(4096, 32768, 2047).depth(), 1);
        assert_eq!(auto(16384, 16385, 50).depth(), 1, "wide rows");
        // past one block's registers: split however few
        assert_eq!(auto(1, 32769, 50).depth(), 1, "one row");
        assert_eq!(auto(16384, 65536, 1024).depth(), 1);
        // what cannot be split is not
        assert_eq!(auto(1, 1 << 19, 1 << 17).depth(), 0, "k too large for any chunk");
        assert_eq!(auto(1, 1 << 19, 1 << 16).depth(), 1, "two chunks of 4 k");
        // large k on long rows: the radix select (crate::radix)
        assert!(matches!(auto(1, 1 << 20, 1 << 17), Route::Radix(_)));
        // only rows searched whole report their iteration counts
        assert!(auto(1, 16384, 50).counts());
        assert!(!auto(1, 32769, 50).counts() && !auto(1, 1 << 20, 1 << 17).counts());
        assert_eq!(auto(1, 1 << 20, 0).depth(), 0, "nothing to select");
        let counted = route(&launch(1, 1 << 20, 64), &H100, Strategy::Auto, true).unwrap();
        assert_eq!(counted.depth(), 0, "counts wanted");
        let approximate = [
            Bisect::early_stopping(3),
            Bisect::with_precision(1e-3).unwrap(),
            Bisect::with_recall(0.9).unwrap(),
        ];
        for bisect in approximate {
            let l = Launch { bisect, ..launch(1, 1 << 20, 64) };
            assert_eq!(route(&l, &H100, Strategy::Auto, false).unwrap().depth(), 0);
        }
        // the rule reads the device's SM count
        let small = DeviceLimits { sm_count: 8, ..H100 };
        assert_eq!(route(&launch(8, 20000, 50), &small, Strategy::Auto, false).unwrap().depth(), 0);
        assert_eq!(route(&launch(9, 20000, 50), &small, Strategy::Auto, false).unwrap().depth(), 1);
    }

    #[test]
    fn chunks_cover_the_row_and_the_last_holds_k() {
        // a forced split cuts a row as the default's does
        let forced = |m, k| route(&launch(1, m, k), &H100, Strategy::Split, false).unwrap();
        for (m, k) in [(8193, 50), (1_000_000, 100), (151_936, 50), (1 << 20, 1024), (40_000, 2000)]
        {
            let Route::Split { split, .. } = forced(m, k) else { panic!("M={m} not split") };
            assert_eq!(split.full * split.chunk + split.last, m, "M={m}");
            assert!(split.last == 0 || (k <= split.last && split.last < 2 * split.chunk));
            assert_eq!(split.last_plan.is_some(), split.last > 0);
        }
        // 8193 = 4 chunks of 2048 and 1 left over, which joins the fourth
        let Route::Split { split, .. } = forced(8193, 50) else { panic!() };
        assert_eq!((split.chunk, split.full, split.last), (2048, 3, 2049));
        // 20001 = 4 x 4096 + 3617 (odd: no equal chunks): the last chunk holds k = 300
        let Route::Split { split, .. } = forced(20_001, 300) else { panic!() };
        assert_eq!((split.chunk, split.full, split.last), (4096, 4, 3617));
    }

    #[test]
    fn equal_chunks_replace_a_last_chunk_where_one_is_near() {
        use ElemType::{Bf16, F32};
        // 100352 = 7 x 14336 (16384 would leave 2048); 128256 = 8 x 16032; 8 x 12544 is
        // further from 16384
        assert_eq!(even_chunk(100_352, 1024, 16384, F32), Some(14336));
        assert_eq!(even_chunk(128_256, 512, 8192, Bf16), Some(8016));
        assert_eq!(even_chunk(100_000, 512, 8192, F32), Some(10000));
        // none within 7/8 to 5/4 of 16384 (12500 and 20000 are not), nor past 16384 (the
        // blocks would hold more than 512 threads), nor for an odd row or a warp row's chunk
        assert_eq!(even_chunk(100_000, 1024, 16384, F32), None);
        assert_eq!(even_chunk(151_936, 2048, 32768, F32), None);
        assert_eq!(even_chunk(100_001, 512, 8192, F32), None);
        assert_eq!(even_chunk(100_000, 50, 2048, F32), None);
        // whole 16-byte groups: 8200 = 2 x 4100 for f32, not for bf16
        assert_eq!(even_chunk(8200, 1000, 4096, F32), Some(4100));
        assert_eq!(even_chunk(8200, 1000, 4096, Bf16), None);
        // at least 4 k; a chunk that divides the row needs none
        assert_eq!(even_chunk(100_352, 4000, 16384, F32), None);
        assert_eq!(even_chunk(98_304, 1024, 16384, F32), None);
        assert_eq!(even_chunk(usize::MAX, usize::MAX / 4, usize::MAX / 2, F32), None);
        // the split takes it: one launch over the chunks, none for a last one
        let Route::Split { split, .. } = auto(96, 100_352, 1024) else { panic!() };
        assert_eq!((split.chunk, split.full, split.last), (14336, 7, 0));
        assert!(split.last_plan.is_none());
        // leaves_last_chunk says which splits keep a last chunk (crate::radix weighs them)
        assert!(!leaves_last_chunk(100_352, 1024, F32)); // equal chunks
        assert!(!leaves_last_chunk(393_216, 2048, Bf16)); // 12 x 32768
        assert!(!leaves_last_chunk(500_000, 512, Bf16)); // 50 x 10000
        assert!(leaves_last_chunk(500_000, 1024, Bf16)); // 30 x 16384 and 8480
        assert!(leaves_last_chunk(500_000, 2048, Bf16)); // 15 x 32768 and 8480
        assert!(!leaves_last_chunk(4096, 2048, Bf16)); // no split at all
    }

    #[test]
    fn the_second_stage_is_split_again_until_it_is_short() {
        // 2^28 values, k = 50 (below the sampled radix select's RADIX_SAMPLED_MIN_K): 2^17
        // chunks of 2048, 2^17 * 50 candidates, 2^12 ... 2^18, 2^12
        let r = auto(1, 1 << 28, 50);
        assert_eq!(r.depth(), 3);
        let Route::Split { split, rest } = &r else { panic!() };
        assert_eq!((split.chunk, split.full, split.last), (2048, 1 << 17, 0));
        assert_eq!(split.first_plan.family(), Family::WarpRows);
        let Route::Split { split, .. } = rest.as_ref() else { panic!() };
        assert_eq!(split.full * split.chunk, (1 << 17) * 50);
        // a second stage of at most 16384 candidates is one row however few the rows; past
        // it, split again
        assert_eq!(auto(1, 262_144, 256).depth(), 1, "64 chunks of 4096: 16384 candidates");
        assert_eq!(auto(1, 1 << 20, 256).depth(), 2, "256 chunks: 65536 candidates");
        // the plans of every stage are ordinary plans of unsorted chunks; only the last sorts
        let l = Launch { sorted: true, ..launch(4, 1 << 20, 100) };
        let plans = route(&l, &H100, Strategy::Auto, false).unwrap().plans();
        assert!(plans[..plans.len() - 1].iter().all(|p| p.sort.is_none()));
        assert!(plans.last().unwrap().sort.is_some());
    }

    #[test]
    fn a_forced_split_says_why_it_cannot() {
        let forced = |l: &Launch, counts| route(l, &H100, Strategy::Split, counts);
        assert_eq!(forced(&launch(16384, 16384, 50), false).unwrap().depth(), 1);
        for (l, counts, what) in [
            (launch(1, 1 << 20, 64), true, "iteration counts"),
            (launch(1, 4000, 64), false, "no chunk"),
            (
                Launch { bisect: Bisect::early_stopping(2), ..launch(1, 1 << 20, 64) },
                false,
                "approx",
            ),
        ] {
            let e = forced(&l, counts).unwrap_err();
            assert!(matches!(e, PlanError::Split { .. }), "{what}: {e}");
        }
        // other forced strategies never split
        assert_eq!(
            route(&launch(1, 1 << 20, 64), &H100, Strategy::Block, false).unwrap().depth(),
            0
        );
    }
}
