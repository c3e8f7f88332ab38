//! `bucket` — bucket select: value-range buckets, recursing into the one that holds the k-th.
//!
//! # Idea
//! Spread the candidates (at first: the whole row) over [`BUCKETS`] equal-width buckets
//! between their minimum and maximum, count each bucket, and walk the buckets from the top
//! until the running count reaches the remaining k. Every candidate in a higher bucket is
//! selected (counted into `above`), every one in a lower bucket is rejected, and the next level
//! buckets only the candidates of the k-th bucket, between *their* minimum and maximum. This is
//! the bucket-based selection the RTop-K paper cites among GPU top-k methods; radix select
//! (`radix`) is the same loop with buckets fixed by key bits instead of by the value range.
//!
//! The search works on the order keys ([`Element::key`]) and buckets them by their
//! **coordinate**: the ordered value ([`Element::ordered_value_of_key`]) as `f64` for numbers, with
//! `±inf` at `±2^129` and the two NaN keys at `±2^130` (top in largest mode, bottom in smallest
//! mode). Coordinates are finite, strictly increasing in the key and distinct for distinct
//! keys, so the bucket index `floor((c - cmin) · (B / (cmax - cmin)))`, clamped to `B - 1` and
//! computed in `f64`, never overflows and never decreases as the key grows.
//!
//! A level ends the search when
//! * the candidates are all equal (`cmin == cmax`): that key is the k-th;
//! * the remaining k is 1: the k-th is the largest candidate;
//! * the remaining k is all of them: the k-th is the smallest candidate.
//!
//! Otherwise the minimum lands in bucket 0 and the maximum in a higher one (bucket `B - 1` on
//! the value scale), so every level drops at least one candidate: the search ends on every
//! row. To keep pathological rows
//! short — values spread over many binades, where one huge value puts everything else in
//! bucket 0 — a level that keeps more than half its candidates makes the next level bucket
//! linearly by **key** (`(key - kmin) >> shift`, at most 256 buckets). A key level shrinks the
//! key range 256-fold, so at most 4 of them can occur before the candidates are all equal —
//! at most 2 on 16-bit keys (`f16`, `bf16`, `i16`), 1 on 8-bit keys (`i8`, `u8`), 8 on
//! 64-bit keys (`f64`, `i64`).
//!
//! Rows of the integer types and of `f64` bucket by key from the first level: an integer key
//! is its value shifted (a key level is a value level), and `f64` values reach beyond the
//! coordinates above (2^129), so their value scale is not defined; their key levels end the
//! search the same way.
//! Finally one pass in index order ([`select_with_kth_key`]) writes the canonical top-k.
//!
//! # Cost
//! Time O(M) on every row. Each level costs a pass over its candidates (bucket index,
//! count, compaction) plus a walk over 256 counters. Levels that keep at most half their
//! candidates add up to at most 2M element visits; the others number at most 9 (at most 4 key
//! levels, and at most 5 value levels, each followed by a key level or by the end), each at
//! most M.
//! On smooth data the first level leaves a few candidates per bucket and the second finishes.
//! A min/max pass and the final selection read the row's keys once more each.
//! Extra memory: M keys and M candidate keys (of the element's key type) and M bucket indices
//! (`u32`) in the scratch; 256 counters on the stack.
//!
//! # On a GPU warp
//! The per-element work maps well: the bucket index is arithmetic on one element (no
//! communication), min/max is a shuffle reduction, and the count is a shared-memory histogram
//! with atomics (private per warp, as in radix select). Compacting the k-th bucket is a
//! ballot + prefix popcount. Two things fit a warp less well than bisection: `f64` arithmetic
//! is slow on most GPUs (a GPU version would bucket in `f32`, minding the range, or in key
//! space from the start), and each level needs a scan of 256 counters and a synchronisation,
//! where a bisection step is a register count and a 5-step shuffle reduction.

use std::marker::PhantomData;

use crate::algorithm::{KeyBuffers, RowStats, Scratch, WorkCounters, grow};
use crate::bisect::key_range;
use crate::order::{Element, KeyBits, OrderedValue, keys_into};
use crate::radix::{Bin, Histogram, find_bin};
use crate::select::select_with_kth_key;

/// Buckets per level. 256 matches radix select's 8-bit digit: a level's walk over the counters
/// stays cheap next to a pass over the candidates, and a key level shrinks the key range as
/// much as a radix digit does.
pub const BUCKETS: usize = 256;

// The bucket walk is radix select's, on histograms of the same size.
const _: () = assert!(BUCKETS == crate::radix::BINS);

/// Coordinate of `±inf`: `2^129`, above every finite `f32` (`< 2^128`).
const INF_COORD: f64 = f64::from_bits((1023 + 129) << 52);
/// Coordinate of the top NaN key (largest mode): `2^130`.
const NAN_COORD: f64 = f64::from_bits((1023 + 130) << 52);

/// Bucket select on the value range, with key-range levels for pathological spreads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bucket;

/// What a search finds: the k-th key and the count above it, plus how it got there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketSearch<K = u32> {
    /// The k-th largest key of the row.
    pub key: K,
    /// How many keys of the row are strictly larger than [`BucketSearch::key`] (`< k`).
    pub above: usize,
    /// Bucketing levels run (0 when the row itself ends the search).
    pub levels: u32,
    /// How many of them bucketed by key range.
    pub key_levels: u32,
    /// Data moved by the search over `keys` (see [`WorkCounters`]); its passes are sweeps over
    /// `keys`.
    pub work: WorkCounters,
}

/// The coordinate of a key: its ordered value as `f64`, with `±inf` at `±2^129` and the NaN
/// keys at `±2^130`, so that coordinates are finite and strictly increasing in the key.
#[inline(always)]
pub fn coordinate<E: Element>(key: E::Key) -> f64 {
    let v = E::ordered_of_key(key).to_f64();
    // Keys at or above the key of zero are the upper half of the order.
    let sign = if key >= E::Key::ZERO { 1.0 } else { -1.0 };
    if v.is_nan() {
        sign * NAN_COORD
    } else if v.is_infinite() {
        sign * INF_COORD
    } else {
        v
    }
}

/// How one level maps a candidate key to a bucket.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scale<E: Element> {
    /// `floor((coordinate - cmin) * factor)` clamped to the top bucket,
    /// `factor = BUCKETS / (cmax - cmin)`; `finite` when every candidate is a finite number.
    Value { cmin: f64, factor: f64, finite: bool, of: PhantomData<E> },
    /// `(key - kmin) >> shift`, with `shift` chosen so that the range fits 256 buckets.
    Key { kmin: E::Key, shift: u32 },
}

impl<E: Element> Scale<E> {
    /// Value buckets between the keys `lo < hi`.
    fn value(lo: E::Key, hi: E::Key) -> Self {
        let (cmin, cmax) = (coordinate::<E>(lo), coordinate::<E>(hi));
        // Distinct keys have distinct coordinates, so the width is positive (and finite).
        let factor = BUCKETS as f64 / (cmax - cmin);
        // Keys are monotone: finite ends mean finite candidates, which skip the special cases.
        let finite = cmin.abs() < INF_COORD && cmax.abs() < INF_COORD;
        Scale::Value { cmin, factor, finite, of: PhantomData }
    }

    /// Key buckets between the keys `lo < hi`: the smallest shift that brings the span below
    /// 256, so the maximum lands in a bucket above 0 and each bucket spans `2^shift` keys.
    fn key(lo: E::Key, hi: E::Key) -> Self {
        let bits = u64::BITS - (hi.to_u64() - lo.to_u64()).leading_zeros();
        Scale::Key { kmin: lo, shift: bits.saturating_sub(BUCKETS.trailing_zeros()) }
    }
}

/// [`coordinate`] of a key known to stand for a finite number.
#[inline(always)]
fn finite_coordinate<E: Element>(key: E::Key) -> f64 {
    E::ordered_of_key(key).to_f64()
}

/// The bucket of coordinate `c` on a value scale (`c >= cmin`: a candidate of the level).
#[inline(always)]
fn value_bucket(c: f64, cmin: f64, factor: f64) -> u32 {
    floor_small(((c - cmin) * factor).min((BUCKETS - 1) as f64))
}

/// `floor(x)` for `0 <= x < 2^31`, by the `2^52` trick: adding `2^52` rounds `x` to an integer
/// held in the low mantissa bits. Plain float adds and compares, so the bucket loop vectorises
/// on any x86-64 (a float-to-int cast does not: it must saturate and map NaN to 0).
#[inline(always)]
fn floor_small(x: f64) -> u32 {
    const SHIFT: f64 = (1u64 << 52) as f64;
    let nearest = (x + SHIFT) - SHIFT;
    let floor = if nearest > x { nearest - 1.0 } else { nearest };
    (floor + SHIFT).to_bits() as u32
}

/// The bucket of `key` on a key scale.
#[inline(always)]
fn key_bucket<K: KeyBits>(key: K, kmin: K, shift: u32) -> u32 {
    // In the key's own width (`shift` leaves at most 8 bits of the span), so narrow keys stay
    // narrow in the loop.
    (key.wrapping_sub(kmin) >> shift).min(K::from_u64(BUCKETS as u64 - 1)).to_u32()
}

/// Writes the bucket of every candidate of `src` into `ids` and returns the bucket holding
/// the `k`-th largest.
fn bucket_and_count<E: Element>(src: &[E::Key], scale: Scale<E>, ids: &mut [u32], k: usize) -> Bin {
    // One loop per scale, so the index computation vectorises without a per-element branch.
    match scale {
        Scale::Value { cmin, factor, finite: true, .. } => {
            ids.iter_mut().zip(src).for_each(|(id, &x)| {
                *id = value_bucket(finite_coordinate::<E>(x), cmin, factor);
            });
        }
        Scale::Value { cmin, factor, finite: false, .. } => {
            ids.iter_mut()
                .zip(src)
                .for_each(|(id, &x)| *id = value_bucket(coordinate::<E>(x), cmin, factor));
        }
        Scale::Key { kmin, shift } => {
            ids.iter_mut().zip(src).for_each(|(id, &x)| *id = key_bucket(x, kmin, shift));
        }
    }
    let mut hist: Histogram = [0; BUCKETS];
    for &id in ids.iter() {
        hist[id as usize & (BUCKETS - 1)] += 1;
    }
    find_bin(std::slice::from_ref(&hist), k)
}

/// The candidates of one level: how many, their key range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Live<K> {
    n: usize,
    lo: K,
    hi: K,
}

impl<K: KeyBits> Live<K> {
    /// The candidates `cands`. The range is a separate (vectorised) pass after compaction:
    /// a running min/max inside the compaction loop would chain each element to the previous.
    fn of(cands: &[K]) -> Self {
        let (lo, hi) = key_range(cands);
        Live { n: cands.len(), lo, hi }
    }
}

/// Copies the keys of `src` whose bucket (`ids`) is `want` to the front of `dst` (same length
/// as `src`) and returns how many there are.
fn compact_into<K: KeyBits>(src: &[K], ids: &[u32], want: u32, dst: &mut [K]) -> usize {
    let mut n = 0;
    for (&x, &id) in src.iter().zip(ids) {
        // Write unconditionally, advance only on a match: no branch to mispredict.
        // `n <= i < dst.len()` here, so the index is in bounds.
        dst[n] = x;
        n += usize::from(id == want);
    }
    n
}

/// [`compact_into`] within one buffer: the write position never passes the read position.
fn compact_in_place<K: KeyBits>(buf: &mut [K], ids: &[u32], want: u32) -> usize {
    let mut n = 0;
    for (i, &id) in ids.iter().enumerate().take(buf.len()) {
        let x = buf[i];
        buf[n] = x;
        n += usize::from(id == want);
    }
    n
}

/// Whether rows of `E` are bucketed by value at all: rows whose ordered values are `f32`
/// (`f32`, `f16`, `bf16`), the range the coordinates are built for. Integer rows bucket by key
/// from the first level — an integer key is its value shifted, so a key level *is* a value
/// level; `f64` rows too (their values reach beyond the coordinates of `±inf`).
fn value_scale<E: Element>() -> bool {
    <E::Ordered as OrderedValue>::HAS_VALUE_PHASE && <E::Key as KeyBits>::BITS <= 32
}

/// The search state between levels.
struct State<E: Element> {
    live: Live<E::Key>,
    k_left: usize,
    above: usize,
    by_key: bool,
    levels: u32,
    key_levels: u32,
    /// Data moved so far.
    work: WorkCounters,
}

impl<E: Element> State<E> {
    /// `Some` result when the candidates in `src` already determine the k-th key.
    fn done(&self, src: &[E::Key]) -> Option<BucketSearch<E::Key>> {
        let Live { n, lo, hi } = self.live;
        let (key, above) = if lo == hi {
            // All candidates equal: the k-th is that key, none of them is above it.
            (lo, self.above)
        } else if self.k_left == 1 {
            // The largest candidate; keys above it were counted on the way down.
            (hi, self.above)
        } else if self.k_left == n {
            // Every candidate is selected: the k-th is the smallest.
            let ties = src.iter().map(|&x| usize::from(x == lo)).sum::<usize>();
            (lo, self.above + n - ties)
        } else {
            return None;
        };
        let mut work = self.work;
        if self.k_left == n && lo != hi {
            // The count of ties read the candidates once more.
            Self::visit(&mut work, src.len(), self.levels == 0);
        }
        Some(BucketSearch { key, above, levels: self.levels, key_levels: self.key_levels, work })
    }

    /// Counts a read of `n` candidates: a sweep over the row while they are the row's keys
    /// (before the first level), a plain read afterwards.
    fn visit(work: &mut WorkCounters, n: usize, whole_row: bool) {
        if whole_row { work.sweep(n) } else { work.read(n) }
    }

    /// Buckets the candidates of `src` and takes the bucket of the k-th; returns its index.
    fn level(&mut self, src: &[E::Key], ids: &mut [u32]) -> u32 {
        let Live { n, lo, hi } = self.live;
        let scale = if self.by_key { Scale::<E>::key(lo, hi) } else { Scale::value(lo, hi) };
        let bin = bucket_and_count(src, scale, ids, self.k_left);
        // The bucket indices are a function of the candidates, computed as they are loaded.
        Self::visit(&mut self.work, src.len(), self.levels == 0);
        self.above += bin.higher;
        self.k_left -= bin.higher;
        // Fewer than half dropped: the value scale is not biting, switch to the key range.
        self.by_key = !value_scale::<E>() || 2 * bin.count > n;
        self.levels += 1;
        self.key_levels += u32::from(matches!(scale, Scale::Key { .. }));
        bin.digit
    }
}

/// Finds the k-th largest of `keys` (`1 <= k <= keys.len()`); `cands` and `ids` (each at
/// least `keys.len()` long) are work space for the candidate keys and their buckets.
fn search<E: Element>(
    keys: &[E::Key],
    k: usize,
    cands: &mut [E::Key],
    ids: &mut [u32],
) -> BucketSearch<E::Key> {
    let mut work = WorkCounters::default();
    // The key range is one sweep over the row's keys.
    work.sweep(keys.len());
    let mut state = State::<E> {
        live: Live::of(keys),
        k_left: k,
        above: 0,
        by_key: !value_scale::<E>(),
        levels: 0,
        key_levels: 0,
        work,
    };
    if let Some(found) = state.done(keys) {
        return found;
    }
    // The first level reads the row's keys; later ones the compacted candidates, in place.
    let ids = &mut ids[..keys.len()];
    let want = state.level(keys, ids);
    let n = compact_into(keys, ids, want, &mut cands[..keys.len()]);
    state.live = Live::of(&cands[..n]);
    // The compaction swept the keys and stored n; the new range read those n.
    state.work.sweep(keys.len());
    state.work.write(n);
    state.work.read(n);
    loop {
        let live = &mut cands[..state.live.n];
        if let Some(found) = state.done(live) {
            return found;
        }
        let ids = &mut ids[..live.len()];
        let want = state.level(live, ids);
        let n = compact_in_place(live, ids, want);
        state.live = Live::of(&live[..n]);
        state.work.read(live.len() + n);
        state.work.write(n);
    }
}

/// The k-th largest key of `keys` (the keys of a row of `E`) and the count above it, by bucket
/// select (`1 <= k <= keys.len()`); the candidate buffer of `E::Key` and `scratch.idx` hold the
/// candidates and their buckets (`keys` must not be either).
pub fn kth_key<E: Element>(
    keys: &[E::Key],
    k: usize,
    scratch: &mut Scratch,
) -> BucketSearch<E::Key> {
    let mut ids = std::mem::take(&mut scratch.idx);
    let cands = grow(&mut E::Key::buffers(scratch).cands, keys.len());
    let found = search::<E>(keys, k, cands, grow(&mut ids, keys.len()));
    scratch.idx = ids;
    found
}

crate::row_select!(Bucket, "bucket", 64, |_, row, k, mode, scratch, out| {
    let mut ids = std::mem::take(&mut scratch.idx);
    let KeyBuffers { keys, cands } = E::Key::buffers(scratch);
    let keys = grow(keys, row.len());
    keys_into(row, mode, keys);
    let cands = grow(cands, row.len());
    let found = search::<E>(keys, k, cands, grow(&mut ids, row.len()));
    select_with_kth_key(keys, found.key, found.above, k, out);
    scratch.idx = ids;
    // The key transform reads the row once; the search and the selection pass (up to
    // the chunk that completes k) read the keys, i.e. the row again.
    let mut work = found.work;
    work.sweep(row.len());
    work.select_pass(out, row.len());
    RowStats::with_work(work)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{Options, topk_row};
    use crate::oracle::canonical_indices;
    use crate::order::{KEY_NAN_LARGEST, KEY_NAN_SMALLEST, Mode, key, key_largest};
    use crate::test_rows::{
        MODES, assert_one_scratch, assert_some_k, lcg, odd_width_rows, random_rows, special_row,
        unsorted, widths_for_one_scratch,
    };

    fn run(row: &[f32], k: usize, mode: Mode) -> Vec<u32> {
        unsorted(&Bucket, row, k, mode)
    }

    /// The search alone, on the keys of `row`.
    fn search_row(row: &[f32], k: usize, mode: Mode) -> BucketSearch {
        let mut keys = vec![0; row.len()];
        keys_into(row, mode, &mut keys);
        kth_key::<f32>(&keys, k, &mut Scratch::default())
    }

    /// Every k from 1 to M, both modes, against the oracle; returns the most levels seen.
    fn check_all_k(row: &[f32]) -> u32 {
        let mut most = 0;
        for mode in MODES {
            for k in 1..=row.len() {
                let want = canonical_indices(row, k, mode);
                assert_eq!(run(row, k, mode), want, "k={k} {mode:?} row={row:?}");
                most = most.max(search_row(row, k, mode).levels);
            }
        }
        most
    }

    /// 2^e built from its bits: subnormal below 2^-126, normal from there up.
    fn pow2(e: i32) -> f32 {
        let bits = if e < -126 { 1u32 << (e + 149) } else { ((e + 127) as u32) << 23 };
        f32::from_bits(bits)
    }

    #[test]
    fn coordinates_are_finite_and_strictly_increasing() {
        let values = [
            f32::NEG_INFINITY,
            -f32::MAX,
            -1.0,
            -f32::from_bits(1),
            0.0,
            f32::from_bits(1),
            f32::from_bits(2),
            1.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for mode in MODES {
            let mut keys: Vec<u32> = values.iter().map(|&v| key(v, mode)).collect();
            keys.push(if mode == Mode::Largest { KEY_NAN_LARGEST } else { KEY_NAN_SMALLEST });
            keys.sort_unstable();
            let coords: Vec<f64> = keys.iter().map(|&k| coordinate::<f32>(k)).collect();
            assert!(coords.iter().all(|c| c.is_finite()), "{coords:?}");
            assert!(coords.windows(2).all(|w| w[0] < w[1]), "{mode:?}: {coords:?}");
        }
        assert_eq!(coordinate::<f32>(KEY_NAN_LARGEST), 2f64.powi(130));
        assert_eq!(coordinate::<f32>(KEY_NAN_SMALLEST), -(2f64.powi(130)));
        assert_eq!(coordinate::<f32>(key_largest(f32::NEG_INFINITY)), -(2f64.powi(129)));
        assert_eq!(coordinate::<f32>(key(f32::NEG_INFINITY, Mode::Smallest)), 2f64.powi(129));
    }

    #[test]
    fn the_range_ends_land_in_the_end_buckets() {
        // Adjacent subnormals, the whole float range, and infinities against NaN.
        let pairs = [
            (0x8000_0000, 0x8000_0001),
            (key_largest(-f32::MAX), key_largest(f32::MAX)),
            (0, u32::MAX),
            (key_largest(1.0), key_largest(1.000_000_1)),
        ];
        for (lo, hi) in pairs {
            for scale in [Scale::<f32>::value(lo, hi), Scale::key(lo, hi)] {
                let bucket = |x| match scale {
                    Scale::Value { cmin, factor, .. } => {
                        value_bucket(coordinate::<f32>(x), cmin, factor)
                    }
                    Scale::Key { kmin, shift } => key_bucket(x, kmin, shift),
                };
                assert_eq!(bucket(lo), 0, "{scale:?}");
                assert!(bucket(hi) > 0, "{scale:?}");
                if let Scale::Value { .. } = scale {
                    assert_eq!(bucket(hi), BUCKETS as u32 - 1, "{scale:?}");
                }
            }
        }
    }

    #[test]
    fn hand_checked_rows() {
        let row = [0.0, 5.0, 1.0, 8.0, 2.0];
        assert_eq!(run(&row, 2, Mode::Largest), vec![1, 3]);
        assert_eq!(run(&row, 2, Mode::Smallest), vec![0, 2]);
        assert_eq!(run(&row, 1, Mode::Largest), vec![3]);
        assert_eq!(run(&row, 5, Mode::Smallest), vec![0, 1, 2, 3, 4]);
        // Ties at the k-th value go to the lower indices.
        assert_eq!(run(&[1.0, 3.0, 3.0, 3.0, 0.0, 3.0], 2, Mode::Largest), vec![1, 2]);
        // NaN above +inf; -0.0 ties with +0.0.
        let row = [0.5, f32::NAN, 2.0, f32::INFINITY, -0.0, 0.0];
        assert_eq!(run(&row, 2, Mode::Largest), vec![1, 3]);
        assert_eq!(run(&row, 2, Mode::Smallest), vec![4, 5]);
    }

    #[test]
    fn one_level_then_done() {
        // Range 0..=255 in 256 buckets of width 255/256: value v lands in bucket
        // floor(v * 256/255), so 200 and 201 share no bucket with their neighbours.
        // k = 3 of [0, 255, 201, 200, 7]: 255 and 201 are above, 200 is alone in its bucket.
        let row = [0.0, 255.0, 201.0, 200.0, 7.0];
        let found = search_row(&row, 3, Mode::Largest);
        assert_eq!(
            (found.key, found.above, found.levels, found.key_levels),
            (key_largest(200.0), 2, 1, 0)
        );
        // Work: the key range, the level and the compaction each sweep the 5 keys; the one
        // candidate is stored and its range read.
        let w = found.work;
        assert_eq!((w.elements_read, w.elements_written, w.passes), (5 + 5 + 5 + 1, 1, 3));
        assert_eq!(run(&row, 3, Mode::Largest), vec![1, 2, 3]);
        // The ends need no level: k = 1 is the maximum, k = M the minimum.
        assert_eq!(search_row(&row, 1, Mode::Largest).levels, 0);
        let found = search_row(&row, 5, Mode::Largest);
        assert_eq!((found.key, found.above, found.levels), (key_largest(0.0), 4, 0));
    }

    #[test]
    fn all_equal_rows() {
        assert_eq!(check_all_k(&[7.0; 33]), 0);
        check_all_k(&[-0.0; 5]);
        check_all_k(&[f32::NAN; 6]);
        check_all_k(&[f32::NEG_INFINITY; 3]);
        let found = search_row(&[2.5; 40], 17, Mode::Smallest);
        assert_eq!((found.key, found.above, found.levels), (key(2.5, Mode::Smallest), 0, 0));
        // -0.0 and +0.0 are one key.
        let row = [0.0, -0.0, 0.0, -0.0];
        assert_eq!(search_row(&row, 3, Mode::Largest).levels, 0);
    }

    #[test]
    fn adjacent_floats() {
        let bases = [0x3f80_0000, 0x0000_0000, 0x0000_00ff, 0x7f7f_fffe, 0x8000_0001, 0xbf7f_ffff];
        for b in bases {
            let (a, c) = (f32::from_bits(b), f32::from_bits(b + 1));
            let row: Vec<f32> = (0..37).map(|i| if (i * 7) % 3 == 0 { a } else { c }).collect();
            // Two distinct keys: one level splits them.
            assert!(check_all_k(&row) <= 1);
            let row: Vec<f32> = (0..45).map(|i| f32::from_bits(b.wrapping_add(i % 3))).collect();
            assert_some_k(&Bucket, &row);
        }
    }

    #[test]
    fn exponentially_spread_rows_stay_short() {
        let mut row: Vec<f32> = (-149..=127).map(pow2).collect();
        row.extend((-149..=127).map(|e| -pow2(e)));
        assert_eq!((row[0], row[276]), (f32::from_bits(1), 2f32.powi(127)));
        // A fixed scramble, so that neighbours in the row are not neighbours in value.
        let n = row.len();
        let row: Vec<f32> = (0..n).map(|i| row[(i * 97) % n]).collect();
        let most = check_all_k(&row);
        // Value levels alone would peel off one binade per level (~270 levels).
        assert!(most <= 20, "{most} levels");
        // One side only, ascending: the worst case for value buckets.
        let row: Vec<f32> = (-149..=127).map(pow2).collect();
        assert!(check_all_k(&row) <= 20);
        let found = search_row(&row, 10, Mode::Smallest);
        assert!(found.key_levels > 0, "{found:?}");
    }

    #[test]
    fn special_values_in_both_modes() {
        let row = special_row();
        check_all_k(&row);
        check_all_k(&row[..1]);
        let twice: Vec<f32> = row.iter().chain(row.iter()).copied().collect();
        check_all_k(&twice);
        check_all_k(&[f32::INFINITY, f32::NAN, f32::NEG_INFINITY, f32::NAN, f32::INFINITY]);
        check_all_k(&[f32::MAX, -f32::MAX, f32::MAX, 0.0, -f32::MAX]);
    }

    #[test]
    fn widths_that_are_not_multiples_of_32() {
        for row in odd_width_rows() {
            check_all_k(&row);
        }
    }

    #[test]
    fn random_rows_match_the_oracle() {
        for row in random_rows(true) {
            assert_some_k(&Bucket, &row);
        }
    }

    #[test]
    fn sixteen_bit_rows_take_at_most_two_key_levels() {
        use half::{bf16, f16};
        // Powers of two over the whole f16 range, both signs, scrambled: value levels peel off
        // binades, key levels finish — at most two of them on 16-bit keys.
        let mut row: Vec<f16> = (-24..=15).map(|e| f16::from_f32(2f32.powi(e))).collect();
        row.extend((-24..=15).map(|e| f16::from_f32(-(2f32.powi(e)))));
        let n = row.len();
        let row: Vec<f16> = (0..n).map(|i| row[(i * 37) % n]).collect();
        let mut most_key_levels = 0;
        for mode in MODES {
            for k in 1..=n {
                let got = topk_row(&Bucket, &row, k, Options { mode, sorted: false }).unwrap();
                assert_eq!(got.indices, canonical_indices(&row, k, mode), "k={k} {mode:?}");
                let mut keys = vec![0u16; n];
                keys_into(&row, mode, &mut keys);
                let found = kth_key::<f16>(&keys, k, &mut Scratch::default());
                assert!(found.key_levels <= 2, "{found:?}");
                most_key_levels = most_key_levels.max(found.key_levels);
            }
        }
        assert!(most_key_levels > 0, "the key scale must have been used");
        // Random bit patterns (NaNs, infinities, subnormals) of both types.
        let mut seed = 23;
        for m in [1, 5, 64, 333] {
            let h: Vec<f16> = (0..m).map(|_| f16::from_bits(lcg(&mut seed) as u16)).collect();
            let b: Vec<bf16> = (0..m).map(|_| bf16::from_bits(lcg(&mut seed) as u16)).collect();
            for mode in MODES {
                for k in [1, m / 2, m].into_iter().filter(|&k| k >= 1) {
                    let opts = Options { mode, sorted: false };
                    let got = topk_row(&Bucket, &h, k, opts).unwrap().indices;
                    assert_eq!(got, canonical_indices(&h, k, mode), "f16 m={m} k={k}");
                    let got = topk_row(&Bucket, &b, k, opts).unwrap().indices;
                    assert_eq!(got, canonical_indices(&b, k, mode), "bf16 m={m} k={k}");
                }
            }
        }
    }

    #[test]
    fn scratch_is_reused_across_rows_of_different_widths() {
        assert_one_scratch(&Bucket, &widths_for_one_scratch());
    }
}
