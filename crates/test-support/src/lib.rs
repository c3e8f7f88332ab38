//! Property-test strategies shared by every crate's oracle and equivalence tests, so that all
//! algorithms are checked against the same hostile inputs: NaN of both signs and odd payloads,
//! ±inf, ±0.0, subnormals, ±FLT_MAX, adjacent floats, heavy ties, widths that are not
//! multiples of 32, and k ∈ {0, 1, M−1, M} or anything in between.
//!
//! The same for the 16-bit float types (`half::f16`, `half::bf16`): [`row_f16`], [`row_bf16`],
//! [`matrix_f16`], [`matrix_bf16`] draw every NaN payload of either sign, ±inf, ±0, subnormals,
//! the largest finite values, adjacent values and tie pools — 16-bit rows tie far more often —
//! and [`every_f16`] / [`every_bf16`] give all 65,536 bit patterns of a type in a shuffled order.
//!
//! The integer types (`i8`, `u8`, `i16`, `i32`, `i64`: [`row_int`], [`matrix_int`]) draw their
//! extremes (MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX), uniform bit patterns, small values (heavy
//! ties), tie pools and sorted runs; `f64` ([`row_f64`], [`matrix_f64`]) draws NaN of both signs
//! with payloads, ±inf, ±0, subnormals, ±f64::MAX, adjacent values and values beyond the f32
//! range.
//!
//! Ragged requests (docs/contract.md §5): [`ragged_shape`] draws lengths (0 and M often), k per
//! row (0, k above the length, M), a hint kind and what lies past each length; [`poison_tails`]
//! writes NaN, ±inf or copies of the valid values there — values that must never be selected.
//! [`ragged_matrix`] draws a matrix of any [`Generated`] type with a ragged shape, tails
//! poisoned; [`hint64`] gives a 64-bit row's hint of each kind (NaN, ±inf, ±0, its own
//! threshold, near and far ones, beyond ±2^63, fractional).
//!
//! The checks every crate's oracle tests make ([`check_exact`], [`check_same_ragged`]) and the
//! property tests built on them ([`row_property!`]) live here too, so that each is written
//! once for every element type and every algorithm.
//!
//! Each crate's one test binary (`tests/suite.rs`) checks that it declares every file of
//! `tests/` with [`every_test_file_in_the_suite!`].

#![forbid(unsafe_code)]

mod checks;
mod generated;
mod suite;

pub use checks::{
    check_exact, check_exact_and_work, check_same_ragged, fail, oracle_indices, ragged_rows,
    reference_algorithms,
};
pub use generated::{Generated, ragged_matrix};
pub use suite::unlisted_test_files;

use half::{bf16, f16};
use proptest::prelude::*;

/// Values that sit on the edges of the order.
pub fn special() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(-f32::NAN),
        (1u32..0x40_0000).prop_map(|p| f32::from_bits(0x7f80_0000 | p)),
        (1u32..0x40_0000).prop_map(|p| f32::from_bits(0xff80_0000 | p)),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0f32),
        Just(-0.0f32),
        (1u32..0x80_0000, any::<bool>()).prop_map(|(b, neg)| subnormal(b, neg)),
        Just(f32::MAX),
        Just(-f32::MAX),
        Just(f32::MIN_POSITIVE),
        Just(-f32::MIN_POSITIVE),
    ]
}

fn subnormal(bits: u32, negative: bool) -> f32 {
    let v = f32::from_bits(bits);
    if negative { -v } else { v }
}

/// Ordinary numbers, plus neighbours in ulps so that adjacent floats are common.
pub fn ordinary() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -1.0e3f32..1.0e3f32,
        1 => (0u32..8).prop_map(|d| f32::from_bits(1.0f32.to_bits() + d)),
        1 => any::<f32>().prop_filter("a number", |v| v.is_finite()),
    ]
}

/// One element of a row of `flavour` (0..4): ordinary; ordinary laced with specials; only
/// values of `pool` (heavy ties); pool, ordinary and specials mixed.
pub fn element(pool: Vec<f32>, flavour: u8) -> BoxedStrategy<f32> {
    let from_pool = prop::sample::select(pool);
    match flavour {
        0 => ordinary().boxed(),
        1 => prop_oneof![8 => ordinary(), 2 => special()].boxed(),
        2 => from_pool.boxed(),
        _ => prop_oneof![4 => from_pool, 4 => ordinary(), 2 => special()].boxed(),
    }
}

/// A pool of 1–4 values for the tie-heavy flavours.
pub fn pool() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(prop_oneof![ordinary(), special()], 1..5)
}

/// Row widths: mostly short, some long, never more than `max`.
pub fn width(max: usize) -> impl Strategy<Value = usize> {
    prop_oneof![3 => 1usize..40.min(max), 2 => 1usize..300.min(max), 1 => 1usize..max]
}

/// A row of width up to `max_width` of one of the four flavours of [`element`].
pub fn row(max_width: usize) -> impl Strategy<Value = Vec<f32>> {
    (width(max_width), pool(), 0u8..4)
        .prop_flat_map(|(len, pool, flavour)| prop::collection::vec(element(pool, flavour), len))
}

/// `(n, m, values)`: 1–4 rows of one width up to `max_width`, row-major, one flavour.
pub fn matrix(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<f32>)> {
    (width(max_width), 1usize..5, pool(), 0u8..4).prop_flat_map(|(m, n, pool, flavour)| {
        (Just(n), Just(m), prop::collection::vec(element(pool, flavour), n * m))
    })
}

/// k for width `m`: `which` 0 → 0, 1 → 1, 2 → M−1, 3 → M, else `frac` of M.
pub fn pick_k(m: usize, which: u8, frac: f64) -> usize {
    match which {
        0 => 0,
        1 => 1.min(m),
        2 => m.saturating_sub(1),
        3 => m,
        _ => ((m as f64) * frac) as usize,
    }
}

/// The per-row side of a ragged request (docs/contract.md §5), drawn for an `(n, m)` input:
/// lengths, k per row, a hint per row, and what lies past each row's length.
#[derive(Clone, Debug, PartialEq)]
pub struct RaggedShape {
    /// `lengths[i]` in `0..=m`: 0 and `m` often.
    pub lengths: Vec<usize>,
    /// `k[i]` in `0..=m`: 0, 1, the length ± 1 (k above the length included), `m`, or any.
    pub k: Vec<usize>,
    /// `true`: ask `k` per row; `false`: ask one k ([`RaggedShape::one_k`]) of every row.
    pub per_row_k: bool,
    /// What to write past each row's length ([`poison_tails`]).
    pub tail: Tail,
    /// A hint per row, of one [`HintKind`].
    pub hint: HintKind,
    /// Random f32 hints (used by [`HintKind::Random`]).
    pub random_hints: Vec<f32>,
}

impl RaggedShape {
    /// The scalar k used when `per_row_k` is false: row 0's k.
    pub fn one_k(&self) -> usize {
        self.k.first().copied().unwrap_or(0)
    }
}

/// What lies past a row's length: values that must never be selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// Whatever the row generator drew.
    Keep,
    /// NaN of both signs and odd payloads (they rank highest in largest mode, lowest in
    /// smallest mode).
    Nan,
    /// `+inf` and `-inf` alternating.
    Inf,
    /// Copies of the row's valid values (ties with the k-th value outside the prefix).
    CopyPrefix,
}

/// Which hints a ragged test passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintKind {
    /// No hint.
    None,
    /// [`RaggedShape::random_hints`]: ordinary values and specials.
    Random,
    /// NaN for every row.
    Nan,
    /// `+inf` for every row.
    PosInf,
    /// `-inf` for every row.
    NegInf,
    /// Each row's own threshold (the test computes it from the oracle).
    Exact,
    /// The threshold of the row with a few values changed (the test computes it).
    Perturbed,
}

/// A row length for width `m`: 0, `m`, or anything in between.
fn length(m: usize) -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(0), 2 => Just(m), 3 => 0..=m]
}

/// A row's k for width `m` and length `len`: 0, 1, `len - 1`, `len`, `len + 1` (above the
/// length), `m`, or anything in `0..=m`.
pub fn pick_k_ragged(m: usize, len: usize, which: u8, frac: f64) -> usize {
    match which {
        0 => 0,
        1 => 1.min(m),
        2 => len.saturating_sub(1),
        3 => len,
        4 => (len + 1).min(m),
        5 => m,
        _ => ((m as f64) * frac) as usize,
    }
}

/// A [`RaggedShape`] for an input of `n` rows of width `m`.
pub fn ragged_shape(n: usize, m: usize) -> impl Strategy<Value = RaggedShape> {
    let tail =
        prop_oneof![Just(Tail::Keep), Just(Tail::Nan), Just(Tail::Inf), Just(Tail::CopyPrefix)];
    let hint = prop_oneof![
        2 => Just(HintKind::None),
        2 => Just(HintKind::Random),
        1 => Just(HintKind::Nan),
        1 => Just(HintKind::PosInf),
        1 => Just(HintKind::NegInf),
        3 => Just(HintKind::Exact),
        2 => Just(HintKind::Perturbed),
    ];
    let row_k = (length(m), 0u8..8, 0.0f64..=1.0)
        .prop_map(move |(len, which, frac)| (len, pick_k_ragged(m, len, which, frac)));
    (
        prop::collection::vec(row_k, n),
        any::<bool>(),
        tail,
        hint,
        prop::collection::vec(prop_oneof![3 => ordinary(), 1 => special()], n),
    )
        .prop_map(|(rows, per_row_k, tail, hint, random_hints)| {
            let (lengths, k) = rows.into_iter().unzip();
            RaggedShape { lengths, k, per_row_k, tail, hint, random_hints }
        })
}

/// Overwrites the values past each row's length in the row-major `(n, m)` `values` as `tail`
/// says. `specials` are the type's `[NaN, -NaN with another payload, +inf, -inf]`.
pub fn poison_tails<T: Copy>(
    values: &mut [T],
    m: usize,
    lengths: &[usize],
    tail: Tail,
    specials: [T; 4],
) {
    for (row, &len) in values.chunks_mut(m).zip(lengths) {
        for j in len..m {
            row[j] = match tail {
                Tail::Keep => continue,
                Tail::Nan => specials[j % 2],
                Tail::Inf => specials[2 + j % 2],
                Tail::CopyPrefix if len > 0 => row[j % len],
                Tail::CopyPrefix => specials[j % 4],
            };
        }
    }
}

/// [`poison_tails`]' specials for `f32`.
pub const SPECIALS_F32: [f32; 4] =
    [f32::NAN, f32::from_bits(0xFFC0_1234), f32::INFINITY, f32::NEG_INFINITY];

/// [`poison_tails`]' specials of a 16-bit type.
pub fn specials16<T: Float16>() -> [T; 4] {
    let f = T::FORMAT;
    [
        T::from_bits16(f.inf | 1),
        T::from_bits16(0x8000 | f.inf | f.mantissa()),
        T::from_bits16(f.inf),
        T::from_bits16(0x8000 | f.inf),
    ]
}

/// The bit layout of a 16-bit float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format16 {
    /// Bits of `+inf` (exponent all ones, mantissa zero).
    pub inf: u16,
    /// Bits of `1.0`.
    pub one: u16,
}

impl Format16 {
    /// IEEE binary16: 5 exponent bits, 10 mantissa bits.
    pub const F16: Self = Self { inf: 0x7C00, one: 0x3C00 };
    /// bfloat16: 8 exponent bits, 7 mantissa bits.
    pub const BF16: Self = Self { inf: 0x7F80, one: 0x3F80 };

    /// The mantissa bits (all ones).
    pub const fn mantissa(self) -> u16 {
        !self.inf & 0x7FFF
    }

    /// The largest finite value's bits.
    pub const fn max(self) -> u16 {
        self.inf - 1
    }

    /// The smallest normal value's bits.
    pub const fn min_positive(self) -> u16 {
        self.mantissa() + 1
    }
}

/// A 16-bit float type built from its bits.
pub trait Float16: Copy + std::fmt::Debug + 'static {
    /// The type's layout.
    const FORMAT: Format16;
    /// The value with bits `bits`.
    fn from_bits16(bits: u16) -> Self;
    /// The bits of `self`.
    fn to_bits16(self) -> u16;
    /// `v` rounded to the nearest value of the type.
    fn from_f32_16(v: f32) -> Self;
}

/// [`Float16`] of a `half` type with the layout `$format`.
macro_rules! float16 {
    ($($t:ty: $format:ident),*) => {$(
        impl Float16 for $t {
            const FORMAT: Format16 = Format16::$format;
            fn from_bits16(bits: u16) -> Self {
                <$t>::from_bits(bits)
            }
            fn to_bits16(self) -> u16 {
                self.to_bits()
            }
            fn from_f32_16(v: f32) -> Self {
                <$t>::from_f32(v)
            }
        }
    )*};
}

float16!(f16: F16, bf16: BF16);

/// Bits on the edges of the order of a 16-bit type: NaN with any payload and either sign,
/// ±inf, ±0, subnormals of both signs, ±largest finite, ±smallest normal.
pub fn special_bits16(f: Format16) -> BoxedStrategy<u16> {
    let sign = any::<bool>().prop_map(|neg| if neg { 0x8000u16 } else { 0 });
    prop_oneof![
        (1..=f.mantissa(), sign.clone()).prop_map(move |(p, s)| s | f.inf | p),
        sign.clone().prop_map(move |s| s | f.inf),
        sign.clone().prop_map(|s| s),
        (1..=f.mantissa(), sign.clone()).prop_map(|(p, s)| s | p),
        sign.clone().prop_map(move |s| s | f.max()),
        sign.prop_map(move |s| s | f.min_positive()),
    ]
    .boxed()
}

/// Ordinary finite bits of a 16-bit type: values in ±1000 (rounded to the type), neighbours
/// of 1.0 in ulps, and any finite bit pattern.
pub fn ordinary_bits16<T: Float16>() -> BoxedStrategy<u16> {
    let f = T::FORMAT;
    prop_oneof![
        4 => (-1.0e3f32..1.0e3f32).prop_map(|v| T::from_f32_16(v).to_bits16()),
        1 => (0u16..8).prop_map(move |d| f.one + d),
        1 => any::<u16>().prop_filter("a number", move |b| b & 0x7FFF < f.inf),
    ]
    .boxed()
}

/// One element's bits, of `flavour` as in [`element`].
fn element_bits16<T: Float16>(pool: Vec<u16>, flavour: u8) -> BoxedStrategy<u16> {
    let from_pool = prop::sample::select(pool);
    let f = T::FORMAT;
    match flavour {
        0 => ordinary_bits16::<T>(),
        1 => prop_oneof![8 => ordinary_bits16::<T>(), 2 => special_bits16(f)].boxed(),
        2 => from_pool.boxed(),
        _ => {
            prop_oneof![4 => from_pool, 4 => ordinary_bits16::<T>(), 2 => special_bits16(f)].boxed()
        }
    }
}

/// A pool of 1–4 bit patterns for the tie-heavy flavours.
fn pool_bits16<T: Float16>() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(prop_oneof![ordinary_bits16::<T>(), special_bits16(T::FORMAT)], 1..5)
}

/// A row of a 16-bit type, of width up to `max_width`, of one of the four flavours of
/// [`element`].
pub fn row16<T: Float16>(max_width: usize) -> impl Strategy<Value = Vec<T>> {
    (width(max_width), pool_bits16::<T>(), 0u8..4).prop_flat_map(|(len, pool, flavour)| {
        prop::collection::vec(element_bits16::<T>(pool, flavour).prop_map(T::from_bits16), len)
    })
}

/// [`row16`] of `f16`.
pub fn row_f16(max_width: usize) -> impl Strategy<Value = Vec<f16>> {
    row16::<f16>(max_width)
}

/// [`row16`] of `bf16`.
pub fn row_bf16(max_width: usize) -> impl Strategy<Value = Vec<bf16>> {
    row16::<bf16>(max_width)
}

/// `(n, m, values)` of a 16-bit type: 1–4 rows of one width up to `max_width`, one flavour.
pub fn matrix16<T: Float16>(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<T>)> {
    (width(max_width), 1usize..5, pool_bits16::<T>(), 0u8..4).prop_flat_map(
        |(m, n, pool, flavour)| {
            let e = element_bits16::<T>(pool, flavour).prop_map(T::from_bits16);
            (Just(n), Just(m), prop::collection::vec(e, n * m))
        },
    )
}

/// [`matrix16`] with `n` rows drawn from `rows` and a width drawn from `widths` (a range of the
/// caller's: rows that narrow, block rows, split rows), one flavour.
pub fn matrix16_in<T: Float16>(
    rows: std::ops::Range<usize>,
    widths: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = (usize, usize, Vec<T>)> {
    (widths, rows, pool_bits16::<T>(), 0u8..4).prop_flat_map(|(m, n, pool, flavour)| {
        let e = element_bits16::<T>(pool, flavour).prop_map(T::from_bits16);
        (Just(n), Just(m), prop::collection::vec(e, n * m))
    })
}

/// [`matrix16`] of `f16`.
pub fn matrix_f16(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<f16>)> {
    matrix16::<f16>(max_width)
}

/// [`matrix16`] of `bf16`.
pub fn matrix_bf16(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<bf16>)> {
    matrix16::<bf16>(max_width)
}

/// All 65,536 bit patterns of a 16-bit type, in a fixed shuffled order (a Fisher–Yates
/// shuffle driven by a 64-bit LCG seeded with `seed`).
pub fn every16<T: Float16>(seed: u64) -> Vec<T> {
    let mut bits: Vec<u16> = (0..=u16::MAX).collect();
    let mut s = seed;
    for i in (1..bits.len()).rev() {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let j = ((s >> 33) % (i as u64 + 1)) as usize;
        bits.swap(i, j);
    }
    bits.into_iter().map(T::from_bits16).collect()
}

/// [`every16`] of `f16`.
pub fn every_f16(seed: u64) -> Vec<f16> {
    every16::<f16>(seed)
}

/// [`every16`] of `bf16`.
pub fn every_bf16(seed: u64) -> Vec<bf16> {
    every16::<bf16>(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    #[test]
    fn every16_is_a_shuffled_permutation() {
        let all = every_f16(9);
        let mut bits: Vec<u16> = all.iter().map(|v| v.to_bits()).collect();
        assert_ne!(bits[..100], (0..100).collect::<Vec<u16>>()[..], "shuffled");
        bits.sort_unstable();
        assert!(bits.iter().copied().eq(0..=u16::MAX), "every pattern once");
        assert_eq!(every_bf16(9).len(), 1 << 16);
        assert_ne!(every_f16(9)[..8].iter().map(|v| v.to_bits()).collect::<Vec<_>>(), {
            every_f16(10)[..8].iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        });
    }

    #[test]
    fn formats_match_half() {
        assert_eq!(f16::from_bits(Format16::F16.inf), f16::INFINITY);
        assert_eq!(f16::from_bits(Format16::F16.max()), f16::MAX);
        assert_eq!(f16::from_bits(Format16::F16.min_positive()), f16::MIN_POSITIVE);
        assert_eq!(bf16::from_bits(Format16::BF16.inf), bf16::INFINITY);
        assert_eq!(bf16::from_bits(Format16::BF16.max()), bf16::MAX);
        assert_eq!(bf16::from_bits(Format16::BF16.min_positive()), bf16::MIN_POSITIVE);
        assert_eq!(f16::from_bits(Format16::F16.one), f16::ONE);
        assert_eq!(bf16::from_bits(Format16::BF16.one), bf16::ONE);
    }

    /// The 16-bit rows reach every class the strategies promise.
    #[test]
    fn sixteen_bit_rows_hit_every_class() {
        let mut runner = TestRunner::deterministic();
        let strategy = row_bf16(300);
        let (mut nan_signs, mut payloads, mut sub, mut inf, mut neg_zero) =
            ([false; 2], std::collections::HashSet::new(), false, false, false);
        for _ in 0..400 {
            for v in strategy.new_tree(&mut runner).unwrap().current() {
                let b = v.to_bits();
                if v.is_nan() {
                    nan_signs[usize::from(b >> 15)] = true;
                    payloads.insert(b & 0x7F);
                }
                sub |= b & 0x7F80 == 0 && b & 0x7F != 0;
                inf |= v.is_infinite();
                neg_zero |= b == 0x8000;
            }
        }
        assert!(nan_signs[0] && nan_signs[1] && sub && inf && neg_zero);
        assert!(payloads.len() > 100, "{} of 127 bf16 NaN payloads", payloads.len());
    }
}

/// An integer element type of the generators (`i8`, `u8`, `i16`, `i32`, `i64`).
pub trait IntElement: Copy + std::fmt::Debug + Ord + 'static {
    /// The least value.
    const MIN_I128: i128;
    /// The greatest value.
    const MAX_I128: i128;
    /// The value of `x`, which must be in `MIN_I128..=MAX_I128`.
    fn from_i128(x: i128) -> Self;
    /// The value with the low bits of `bits` (a uniform bit pattern).
    fn from_bits64(bits: u64) -> Self;
    /// The value as `i128`.
    fn to_i128(self) -> i128;
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl IntElement for $t {
            const MIN_I128: i128 = <$t>::MIN as i128;
            const MAX_I128: i128 = <$t>::MAX as i128;

            fn from_i128(x: i128) -> Self {
                x as $t
            }

            fn from_bits64(bits: u64) -> Self {
                bits as $t
            }

            fn to_i128(self) -> i128 {
                i128::from(self)
            }
        }
    )*};
}

int_element!(i8, u8, i16, i32, i64);

/// The edges of an integer type: MIN, MIN + 1, -1 (or 2 when unsigned), 0, 1, MAX - 1, MAX.
pub fn int_extremes<T: IntElement>() -> Vec<T> {
    let (lo, hi) = (T::MIN_I128, T::MAX_I128);
    [lo, lo + 1, -1, 0, 1, 2, hi - 1, hi]
        .into_iter()
        .filter(|x| (lo..=hi).contains(x))
        .map(T::from_i128)
        .collect()
}

/// One integer: an extreme, a uniform bit pattern, or a small value near 0 (or near an end).
pub fn int_value<T: IntElement>() -> BoxedStrategy<T> {
    let (lo, hi) = (T::MIN_I128, T::MAX_I128);
    let small = (-6i128..=6).prop_map(move |x| T::from_i128(x.clamp(lo, hi)));
    let near_ends = (0i128..4, any::<bool>())
        .prop_map(move |(d, top)| T::from_i128(if top { hi - d } else { lo + d }));
    prop_oneof![
        3 => prop::sample::select(int_extremes::<T>()),
        4 => any::<u64>().prop_map(T::from_bits64),
        3 => small,
        1 => near_ends,
    ]
    .boxed()
}

/// A row of integers of width up to `max_width`, of one flavour: mixed values; only values of
/// a pool of 1–4 (heavy ties); small values (ties); extremes only; a sorted run (ascending or
/// descending).
pub fn row_int<T: IntElement>(max_width: usize) -> impl Strategy<Value = Vec<T>> {
    (width(max_width), prop::collection::vec(int_value::<T>(), 1..5), 0u8..6).prop_flat_map(
        |(len, pool, flavour)| {
            let element = match flavour {
                0 | 1 => int_value::<T>(),
                2 => prop::sample::select(pool).boxed(),
                3 => prop::sample::select(int_extremes::<T>()).boxed(),
                _ => prop_oneof![int_value::<T>(), prop::sample::select(pool)].boxed(),
            };
            prop::collection::vec(element, len).prop_map(move |mut row| {
                match flavour {
                    4 => row.sort_unstable(),
                    5 => row.sort_unstable_by(|a, b| b.cmp(a)),
                    _ => {}
                }
                row
            })
        },
    )
}

/// `(n, m, values)`: 1–4 integer rows of one width up to `max_width`, row-major.
pub fn matrix_int<T: IntElement>(
    max_width: usize,
) -> impl Strategy<Value = (usize, usize, Vec<T>)> {
    (width(max_width), 1usize..5)
        .prop_flat_map(|(m, n)| (Just(n), Just(m), prop::collection::vec(int_value::<T>(), n * m)))
}

/// [`poison_tails`]' "specials" of an integer type: MAX, MIN, MAX, MIN (values that rank first
/// in one mode).
pub fn specials_int<T: IntElement>() -> [T; 4] {
    let (lo, hi) = (T::from_i128(T::MIN_I128), T::from_i128(T::MAX_I128));
    [hi, lo, hi, lo]
}

/// `f64` values on the edges of the order: NaN of both signs and odd payloads, ±inf, ±0,
/// subnormals, ±f64::MAX, ±f64::MIN_POSITIVE.
pub fn special_f64() -> impl Strategy<Value = f64> {
    const EXP: u64 = 0x7FF0_0000_0000_0000;
    const SIGN: u64 = 1 << 63;
    prop_oneof![
        Just(f64::NAN),
        Just(-f64::NAN),
        (1u64..1 << 52).prop_map(|p| f64::from_bits(EXP | p)),
        (1u64..1 << 52).prop_map(|p| f64::from_bits(SIGN | EXP | p)),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0f64),
        Just(-0.0f64),
        (1u64..1 << 52, any::<bool>())
            .prop_map(|(b, neg)| f64::from_bits(b | if neg { SIGN } else { 0 })),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(-f64::MIN_POSITIVE),
    ]
}

/// Ordinary `f64` numbers, neighbours in ulps, values beyond the `f32` range, any finite value.
pub fn ordinary_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -1.0e3f64..1.0e3f64,
        1 => (0u64..8).prop_map(|d| f64::from_bits(1.0f64.to_bits() + d)),
        1 => -1.0e300f64..1.0e300f64,
        1 => any::<f64>().prop_filter("a number", |v| v.is_finite()),
    ]
}

/// A row of `f64` of width up to `max_width`, in the four flavours of [`element`]: ordinary;
/// laced with specials; only values of a pool (heavy ties); all mixed.
pub fn row_f64(max_width: usize) -> impl Strategy<Value = Vec<f64>> {
    let pool = prop::collection::vec(prop_oneof![ordinary_f64(), special_f64()], 1..5);
    (width(max_width), pool, 0u8..4).prop_flat_map(|(len, pool, flavour)| {
        let from_pool = prop::sample::select(pool);
        let element = match flavour {
            0 => ordinary_f64().boxed(),
            1 => prop_oneof![8 => ordinary_f64(), 2 => special_f64()].boxed(),
            2 => from_pool.boxed(),
            _ => prop_oneof![4 => from_pool, 4 => ordinary_f64(), 2 => special_f64()].boxed(),
        };
        prop::collection::vec(element, len)
    })
}

/// `(n, m, values)`: 1–4 `f64` rows of one width up to `max_width`, row-major.
pub fn matrix_f64(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<f64>)> {
    (width(max_width), 1usize..5).prop_flat_map(|(m, n)| {
        let element = prop_oneof![4 => ordinary_f64(), 1 => special_f64()];
        (Just(n), Just(m), prop::collection::vec(element, n * m))
    })
}

/// [`poison_tails`]' specials for `f64`.
pub const SPECIALS_F64: [f64; 4] =
    [f64::NAN, f64::from_bits(0xFFF8_0000_0000_1234), f64::INFINITY, f64::NEG_INFINITY];

/// The kinds of [`hint64`].
pub const HINT64_KINDS: usize = 13;

/// The hint of kind `kind` (modulo [`HINT64_KINDS`]) for a 64-bit row whose own threshold
/// (`bisect`'s, without a hint) is `own`, `r` a hash of the place: NaN of both signs, ±inf, ±0,
/// the row's own threshold, near ones (a few ulps off, a percent off), any bits, values beyond
/// ±2^63 (past every i64; 2^63 is one past i64::MAX, −2^63 is i64::MIN exactly), and
/// fractional ones (an i64 row's hint test is at the integer next to the hint in the mode's
/// direction). The CPU tests of the simulated wide rows and the GPU's draw the same hints.
pub fn hint64(kind: usize, own: f32, r: u64) -> f32 {
    let finite = own.is_finite();
    match kind % HINT64_KINDS {
        0 => f32::NAN,
        1 => f32::from_bits(0xFFC0_4321), // -NaN with a payload
        2 => f32::INFINITY,
        3 => f32::NEG_INFINITY,
        4 | 5 => own,
        6 if finite => f32::from_bits(own.to_bits().wrapping_add(1 + (r % 4) as u32)),
        7 if finite => f32::from_bits(own.to_bits().wrapping_sub(1 + (r % 4) as u32)),
        8 if finite => own * 1.01 + 0.25,
        9 => f32::from_bits((r >> 16) as u32),
        10 => [1e19, -1e19, 9.223_372e18, -9.223_372e18, f32::MAX, -3e38][(r % 6) as usize],
        11 if finite && own.abs() < 4e6 => own.trunc() + if r % 2 == 0 { 0.5 } else { -0.25 },
        11 => [0.5, -2.5, 7.75, -1e10][(r % 4) as usize],
        _ => [0.0, -0.0][(r % 2) as usize],
    }
}
