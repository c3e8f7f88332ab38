//! The 16-bit element types (`f16`, `bf16`) through every algorithm, against the oracle, on
//! rows built to break them: every NaN payload of either sign, ±inf, ±0, subnormals, the
//! largest finite values, adjacent values and heavy ties (16-bit rows tie far more often),
//! widths that are not multiples of 32, k ∈ {0, 1, M−1, M} and random, both modes, sorted and
//! unsorted. Then the oracle itself against a plain sort of (f32 value, index) pairs, and
//! `bisect`'s 16-bit iteration counts against a direct reading of its specification (the
//! module docs of `topk_ref::bisect`), written out here on the rows' bits.

use std::cmp::Ordering;
use std::sync::OnceLock;

use proptest::prelude::*;
use test_support::{Float16, check_exact, pick_k, row, row_bf16, row_f16, row_properties};
use topk_ref::bisect::{BisectExit, max_iterations, midpoint};
use topk_ref::oracle::canonical_sorted_indices;
use topk_ref::order::keys_and_range_into;
use topk_ref::{
    Bisect, Bitonic, Bucket, Element, Heap, Mode, Options, Quickselect, Radix, bf16, f16, topk_row,
};

fn mode(smallest: bool) -> Mode {
    Mode::from_smallest(smallest)
}

fn cases() -> ProptestConfig {
    ProptestConfig { cases: 192, ..ProptestConfig::default() }
}

/// Widest row of the property tests.
const WIDTH: usize = 1500;

row_properties!(192, check_exact, WIDTH; [f16: f16, bf16: bf16];
    heap: Heap,
    quickselect: Quickselect,
    radix: Radix,
    bucket: Bucket,
    bitonic: Bitonic,
    bisect: Bisect::exact(),
);

/// The canonical order as a plain sort of (f32 value, index) pairs: value descending
/// (ascending in smallest mode) by `partial_cmp`, which ties -0.0 with +0.0, every NaN above
/// every number (below in smallest mode) and tied with the other NaNs, then index ascending.
fn plain_sorted<E: Element>(row: &[E], mode: Mode) -> Vec<u32> {
    let mut order: Vec<u32> = (0..row.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (row[a as usize].to_f32(), row[b as usize].to_f32());
        let by_value = match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        };
        // Largest: descending, NaN first; smallest: ascending, NaN last.
        let first_is_better = match mode {
            Mode::Largest => by_value.reverse(),
            Mode::Smallest => by_value,
        };
        first_is_better.then(a.cmp(&b))
    });
    order
}

proptest! {
    #![proptest_config(cases())]

    /// The generic oracle (keys of each type) is the plain f32 sort, for all three types.
    #[test]
    fn oracle_is_a_plain_sort_of_f32_values(r32 in row(400), r16 in row_f16(400),
                                            rb16 in row_bf16(400), smallest: bool) {
        let m = mode(smallest);
        prop_assert_eq!(canonical_sorted_indices(&r32, r32.len(), m), plain_sorted(&r32, m));
        prop_assert_eq!(canonical_sorted_indices(&r16, r16.len(), m), plain_sorted(&r16, m));
        prop_assert_eq!(canonical_sorted_indices(&rb16, rb16.len(), m), plain_sorted(&rb16, m));
    }
}

/// `bisect`'s specification (the module docs of `topk_ref::bisect`), read directly on the bits
/// of a 16-bit row: own keys by the sign-flip transform, thresholds in f32, counts at an f32
/// threshold by comparing f32 values, `C(t)` by searching a sorted table of the type's values.
/// It shares only the f32 midpoint formula with the implementation.
struct Spec16 {
    /// Bits of `+inf`.
    inf: u16,
    /// `(value, largest-mode key)` of every non-NaN bit pattern, by ascending value.
    table: Vec<(f32, u16)>,
}

/// What a specified search ends with.
#[derive(Debug, PartialEq, Eq)]
struct SpecResult {
    iterations: u32,
    indices: Vec<u32>,
}

impl Spec16 {
    fn new<T: Float16 + Element>() -> Self {
        let inf = T::FORMAT.inf;
        let spec = Spec16 { inf, table: Vec::new() };
        let mut table: Vec<(f32, u16)> = (0..=u16::MAX)
            .filter(|&b| !spec.is_nan(b))
            .map(|b| (T::from_bits16(b).to_f32(), spec.key(b, Mode::Largest)))
            .collect();
        table.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal));
        Spec16 { table, ..spec }
    }

    fn is_nan(&self, bits: u16) -> bool {
        bits & 0x7FFF > self.inf
    }

    /// The own key: NaN at the top (bottom in smallest mode), both zeros at 0x8000, negative
    /// numbers with every bit flipped, others with the sign bit set; smallest mode keys the
    /// negated value.
    fn key(&self, bits: u16, mode: Mode) -> u16 {
        if self.is_nan(bits) {
            return if mode == Mode::Largest { u16::MAX } else { 0 };
        }
        let b = if mode == Mode::Smallest { bits ^ 0x8000 } else { bits };
        if b & 0x7FFF == 0 {
            0x8000
        } else if b & 0x8000 != 0 {
            !b
        } else {
            b | 0x8000
        }
    }

    /// `C(t)`: the key of the smallest value of the type that is `>= t`.
    fn ceil_key(&self, t: f32) -> u16 {
        self.table[self.table.partition_point(|&(v, _)| v < t)].1
    }

    /// The search of `bisect` on `row` (bits of a row of `T`, `1 <= k <= M`): exact mode with
    /// relative precision `precision`, or early stopping with `max_iter`.
    fn run<T: Float16 + Element>(
        &self,
        row: &[u16],
        k: usize,
        mode: Mode,
        precision: f32,
        max_iter: Option<u32>,
    ) -> SpecResult {
        let keys: Vec<u16> = row.iter().map(|&b| self.key(b, mode)).collect();
        let ordered: Vec<f32> = row
            .iter()
            .map(|&b| {
                let v = T::from_bits16(b).to_f32();
                let o = if mode == Mode::Largest { v } else { -v };
                if o == 0.0 { 0.0 } else { o }
            })
            .collect();
        // A test at an f32 threshold: elements whose value is >= it; NaN is above every
        // number in largest mode, below in smallest mode.
        let cnt_value = |t: f32| {
            ordered
                .iter()
                .filter(|&&x| if x.is_nan() { mode == Mode::Largest } else { x >= t })
                .count()
        };
        let cnt_key = |t: u16| keys.iter().filter(|&&x| x >= t).count();
        let at = |key: u16| ordered[keys.iter().position(|&x| x == key).unwrap_or(0)];
        let (mut lo, mut hi) = (*keys.iter().min().unwrap(), *keys.iter().max().unwrap());
        let (mut lo_v, mut hi_v) = (at(lo), at(hi));
        let finite = lo_v.is_finite() && hi_v.is_finite();
        let first_k_at_least = |key: u16| -> Vec<u32> {
            (0..row.len() as u32).filter(|&i| keys[i as usize] >= key).take(k).collect()
        };
        if let Some(n) = max_iter {
            for _ in 0..n {
                if finite {
                    let thres = midpoint(lo_v, hi_v);
                    if cnt_value(thres) < k {
                        (hi_v, hi) = (thres, self.ceil_key(thres));
                    } else {
                        (lo_v, lo) = (thres, self.ceil_key(thres));
                    }
                } else {
                    let t = lo + (hi - lo) / 2;
                    if cnt_key(t) < k {
                        hi = t;
                    } else {
                        lo = t;
                    }
                }
            }
            return SpecResult { iterations: n, indices: first_k_at_least(lo) };
        }
        let mut iterations = 0;
        let mut count_at_hi = None;
        let select = |lo: u16, hi: u16, count_at_hi: Option<usize>, iterations| {
            let indices = if count_at_hi.unwrap_or_else(|| cnt_key(hi)) >= k {
                first_k_at_least(hi)
            } else {
                let mut band = k - cnt_key(hi);
                (0..row.len() as u32)
                    .filter(|&i| {
                        let x = keys[i as usize];
                        let take = x >= hi || (x >= lo && band > 0);
                        if x < hi && take {
                            band -= 1;
                        }
                        take
                    })
                    .collect()
            };
            SpecResult { iterations, indices }
        };
        if lo == hi {
            return select(lo, hi, None, 0);
        }
        if finite {
            let eps = precision * hi_v.abs();
            while iterations < 32 {
                if hi_v - lo_v <= eps {
                    return select(lo, hi, count_at_hi, iterations);
                }
                let thres = midpoint(lo_v, hi_v);
                if !(lo_v < thres && thres < hi_v) {
                    break;
                }
                iterations += 1;
                let c = cnt_value(thres);
                match c.cmp(&k) {
                    Ordering::Less => {
                        (hi_v, hi, count_at_hi) = (thres, self.ceil_key(thres), Some(c));
                    }
                    Ordering::Greater => (lo_v, lo) = (thres, self.ceil_key(thres)),
                    Ordering::Equal => {
                        return select(lo, self.ceil_key(thres), Some(c), iterations);
                    }
                }
            }
        }
        while hi - lo > 1 {
            let t = lo + (hi - lo) / 2;
            iterations += 1;
            let c = cnt_key(t);
            match c.cmp(&k) {
                Ordering::Less => (hi, count_at_hi) = (t, Some(c)),
                Ordering::Greater => lo = t,
                Ordering::Equal => return select(lo, t, Some(c), iterations),
            }
        }
        select(lo, hi, count_at_hi, iterations)
    }
}

fn spec_f16() -> &'static Spec16 {
    static SPEC: OnceLock<Spec16> = OnceLock::new();
    SPEC.get_or_init(Spec16::new::<f16>)
}

fn spec_bf16() -> &'static Spec16 {
    static SPEC: OnceLock<Spec16> = OnceLock::new();
    SPEC.get_or_init(Spec16::new::<bf16>)
}

/// `bisect` (exact, with a precision, or early stopping) against the specification.
fn check_spec<T: Float16 + Element>(
    spec: &Spec16,
    row: &[T],
    k: usize,
    mode: Mode,
    variant: u8,
    param: f32,
) -> Result<(), TestCaseError> {
    let (bisect, precision, max_iter) = match variant {
        0 => (Bisect::exact(), 0.0, None),
        1 => (Bisect::with_precision(param).unwrap(), param, None),
        _ => {
            let n = (param * 80.0) as u32;
            (Bisect::early_stopping(n), 0.0, Some(n))
        }
    };
    let got = topk_row(T::as_dyn(&bisect), row, k, Options { mode, sorted: false }).unwrap();
    let bits: Vec<u16> = row.iter().map(|v| v.to_bits16()).collect();
    let want = spec.run::<T>(&bits, k, mode, precision, max_iter);
    let iterations = got.stats.iterations.unwrap_or(0);
    prop_assert_eq!(
        (iterations, &got.indices),
        (want.iterations, &want.indices),
        "{} k={} {:?} variant {} param {}",
        T::NAME,
        k,
        mode,
        variant,
        param
    );
    if variant == 0 {
        prop_assert!(iterations <= max_iterations::<T>());
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases())]

    /// 16-bit iteration counts (and selections) are the specification's, in exact mode, with
    /// a precision and with early stopping.
    #[test]
    fn bisect_f16_follows_its_specification(row in row_f16(WIDTH), which in 0u8..6,
                                            frac in 0.0f64..1.0, smallest: bool,
                                            variant in 0u8..3, param in 0.0f32..0.5) {
        let k = pick_k(row.len(), which, frac).max(1);
        check_spec(spec_f16(), &row, k, mode(smallest), variant, param)?;
    }

    #[test]
    fn bisect_bf16_follows_its_specification(row in row_bf16(WIDTH), which in 0u8..6,
                                             frac in 0.0f64..1.0, smallest: bool,
                                             variant in 0u8..3, param in 0.0f32..0.5) {
        let k = pick_k(row.len(), which, frac).max(1);
        check_spec(spec_bf16(), &row, k, mode(smallest), variant, param)?;
    }

    /// On rows of finite values the value phase is the f32 row's: the same tests and exits,
    /// and early stopping selects what it selects on the f32 row.
    #[test]
    fn sixteen_bit_value_phase_is_the_f32_rows(row in row_f16(WIDTH), brow in row_bf16(WIDTH),
                                               which in 0u8..6, frac in 0.0f64..1.0,
                                               smallest: bool, n in 0u32..40) {
        let finite16: Vec<f16> =
            row.iter().map(|v| if v.is_finite() { *v } else { f16::ONE }).collect();
        let finite_b: Vec<bf16> =
            brow.iter().map(|v| if v.is_finite() { *v } else { bf16::ONE }).collect();
        compare_with_f32(&finite16, which, frac, mode(smallest), n)?;
        compare_with_f32(&finite_b, which, frac, mode(smallest), n)?;
    }
}

fn compare_with_f32<E: Element>(
    row: &[E],
    which: u8,
    frac: f64,
    mode: Mode,
    n: u32,
) -> Result<(), TestCaseError> {
    let k = pick_k(row.len(), which, frac).max(1);
    let wide: Vec<f32> = row.iter().map(|v| v.to_f32()).collect();
    let mut keys32 = vec![0u32; row.len()];
    let range32 = keys_and_range_into(&wide, mode, &mut keys32);
    let mut keys = vec![E::Key::default(); row.len()];
    let range = keys_and_range_into(row, mode, &mut keys);
    let o32 = Bisect::exact().search_in_range(&keys32, range32, k);
    let o = Bisect::exact().search_keys::<E>(&keys, range, k);
    let values = |it: u32, key: u32| it - key;
    prop_assert_eq!(
        values(o.iterations, o.key_phase_iterations),
        values(o32.iterations, o32.key_phase_iterations),
        "{} {:?} {:?}",
        E::NAME,
        o,
        o32
    );
    // Where the f32 search ends in its value phase (a hit or a precision stop) the 16-bit one
    // ends with it. A bracket the value phase leaves converged in f32 keys may still hold one
    // 16-bit key, e.g. the unused key below the merged zero (bf16 [-min subnormal, +0]): the
    // 16-bit key phase tests it (bisect.rs docs, step 3).
    let ended_in_value_phase = o32.key_phase_iterations == 0 && o32.exit != BisectExit::Converged;
    if ended_in_value_phase {
        prop_assert_eq!((o.iterations, o.exit), (o32.iterations, o32.exit));
    }
    let opts = Options { mode, sorted: false };
    let early = Bisect::early_stopping(n);
    let got = topk_row(E::as_dyn(&early), row, k, opts).unwrap().indices;
    prop_assert_eq!(got, topk_row(&early, &wide, k, opts).unwrap().indices);
    Ok(())
}

/// The 65,536 bit patterns of `T`, shuffled, through all six algorithms for several k, both
/// modes, sorted and unsorted, against the oracle (itself checked against the plain sort);
/// bisect's counts against the specification.
fn every_pattern<T: Float16 + Element>(row: &[T], spec: &Spec16) {
    let m = row.len();
    assert_eq!(m, 1 << 16);
    for mode in [Mode::Largest, Mode::Smallest] {
        let sorted = canonical_sorted_indices(row, m, mode);
        assert_eq!(sorted, plain_sorted(row, mode), "{} {mode:?}", T::NAME);
        for k in [0, 1, 2047, 31_744, 32_768, m - 1, m] {
            let mut want_unsorted = sorted[..k].to_vec();
            want_unsorted.sort_unstable();
            for name in topk_ref::ALGORITHM_NAMES {
                let algo = topk_ref::by_name_for::<T>(name).unwrap();
                for (sorted_out, want) in [(false, &want_unsorted), (true, &sorted[..k].to_vec())] {
                    let opts = Options { mode, sorted: sorted_out };
                    let got = topk_row(algo.as_ref(), row, k, opts).unwrap();
                    assert_eq!(&got.indices, want, "{name} {} k={k} {opts:?}", T::NAME);
                    assert!(
                        got.values
                            .iter()
                            .zip(&got.indices)
                            .all(|(v, &i)| { v.to_bits16() == row[i as usize].to_bits16() })
                    );
                }
            }
            if k > 0 {
                let bits: Vec<u16> = row.iter().map(|v| v.to_bits16()).collect();
                let want = spec.run::<T>(&bits, k, mode, 0.0, None);
                let got =
                    topk_row(T::as_dyn(&Bisect::exact()), row, k, Options { mode, sorted: false });
                let got = got.unwrap();
                assert_eq!(got.stats.iterations, Some(want.iterations), "{} k={k}", T::NAME);
                assert!(want.iterations <= max_iterations::<T>());
            }
        }
    }
}

#[test]
fn every_f16_bit_pattern_shuffled() {
    every_pattern(&test_support::every_f16(1), spec_f16());
}

#[test]
fn every_bf16_bit_pattern_shuffled() {
    every_pattern(&test_support::every_bf16(2), spec_bf16());
}
