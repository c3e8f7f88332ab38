//! The one place that owns the order of docs/contract.md §1.
//!
//! Every algorithm in the workspace ranks elements through this module and nothing else:
//!
//! * [`key`] maps an `f32` to an order-preserving `u32` **key** for a [`Mode`]. A larger key
//!   always means "ranks higher in this mode". All NaNs share one key (the top in
//!   [`Mode::Largest`], the bottom in [`Mode::Smallest`]); `-0.0` and `+0.0` share one key;
//!   subnormals are ordinary numbers.
//! * [`rank`] folds the tie rule (lower index wins) into a unique `u64`, so that "the k largest
//!   ranks" *is* the canonical top-k. Algorithms that like unique keys (heap, quickselect,
//!   bitonic) work on ranks; those that work on digits or thresholds (radix, bucket, bisect)
//!   work on keys and break ties by index in their final pass.
//! * [`ordered_value`] / [`key_of_ordered`] connect keys with the *ordered value* used by
//!   value-space searches (bisect, bucket): the value itself in largest mode, its negation in
//!   smallest mode, so that "bigger is better" in both.
//!
//! Why a key and not a comparator: the same integer comparison is what a GPU warp does in
//! registers, it vectorises on a CPU, and radix digits come straight out of it.
//!
//! # Element types
//! Rows hold one of nine types ([`Element`]): the floats `f32`, `half::f16` (IEEE binary16),
//! `half::bf16` (bfloat16) and `f64`, and the integers `i8`, `u8`, `i16`, `i32` and `i64`.
//! docs/contract.md §1 orders floats by value (NaN above `+inf`, `-0.0 == +0.0`) and integers in their
//! usual order. Each type has its own **key**, as wide as the type ([`Element::Key`]: `u8`,
//! `u16`, `u32` or `u64`):
//!
//! * floats: the sign-flip transform on the type's bits ([`key`] for `f32`), every NaN at the
//!   largest key, both zeros at one key; smallest mode is the largest-mode key of the negated
//!   value, NaN at key 0. The keys of a 16-bit type are order-isomorphic to the `f32` keys of
//!   the same values ([`key`] of [`Element::to_f32`]), so an algorithm that works on keys gives
//!   the same answer on either;
//! * integers: the bit pattern with the sign bit flipped (unsigned types: the value itself),
//!   so keys count up from the type's minimum; smallest mode is its complement.
//!
//! Radix-style algorithms read the key width off [`KeyBits::BITS`]. Ranks (key above inverted
//! index, [`KeyBits::rank`]) are `u64` for keys of up to 32 bits and `u128` for 64-bit keys.
//!
//! Value-space searches (bisect, bucket) do their arithmetic on *ordered values* of the
//! type's [`Element::Ordered`]: `f32` for `f32`, `f16` and `bf16` (exact), `f64` for `f64`;
//! integers have none ([`NoValue`]) and search their keys, which are their values shifted.
//! [`Element::ordered_of_key`] and [`Element::key_at_least_ordered`] connect a threshold with
//! the keys; [`Element::hint_key`] turns an `f32` hint (docs/contract.md §5) into the key it
//! is tested at. Thresholds are reported as `f32` ([`Element::to_f32`]: exact for every type
//! but `i32`, `i64` and `f64`, whose k-th value is rounded to the nearest `f32`, ties to even).

use std::fmt::Debug;
use std::hash::Hash;

use half::{bf16, f16};

use crate::algorithm::{KeyBuffers, RowStats, Scratch};

/// Which end of the order is selected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The k largest values; NaN ranks above `+inf` (the default).
    #[default]
    Largest,
    /// The k smallest values; NaN ranks below everything, so it is chosen last.
    Smallest,
}

impl Mode {
    /// `Smallest` when `smallest` is true, else `Largest`.
    pub fn from_smallest(smallest: bool) -> Self {
        if smallest { Mode::Smallest } else { Mode::Largest }
    }
}

/// The sign bit of an `f32`'s bit pattern.
const SIGN: u32 = 0x8000_0000;

/// Key of every NaN in largest mode (no number maps here: it is the bit pattern of a NaN).
pub const KEY_NAN_LARGEST: u32 = u32::MAX;
/// Key of every NaN in smallest mode.
pub const KEY_NAN_SMALLEST: u32 = 0;
/// Key of both zeros (the key of `+0.0`).
pub const KEY_ZERO: u32 = SIGN;

/// Order-preserving key of a non-NaN value in *largest* orientation: flip every bit of a
/// negative number, set the sign bit of a non-negative one, and merge `-0.0` into `+0.0`.
/// Written without branches so that key loops vectorise.
#[inline(always)]
fn number_key(x: f32) -> u32 {
    let bits = x.to_bits();
    let flip = (((bits as i32) >> 31) as u32) | SIGN;
    let k = bits ^ flip;
    // -0.0 flips to 0x7FFF_FFFF, one below +0.0's key.
    if k == KEY_ZERO - 1 { KEY_ZERO } else { k }
}

/// The key of `v` in `mode`: larger key = ranks higher in that mode (docs/contract.md §1).
#[inline(always)]
pub fn key(v: f32, mode: Mode) -> u32 {
    match mode {
        Mode::Largest => key_largest(v),
        Mode::Smallest => key_smallest(v),
    }
}

/// [`key`] for [`Mode::Largest`].
#[inline(always)]
pub fn key_largest(v: f32) -> u32 {
    if v.is_nan() { KEY_NAN_LARGEST } else { number_key(v) }
}

/// [`key`] for [`Mode::Smallest`]: the largest-mode key of `-v`, NaN at the bottom.
#[inline(always)]
pub fn key_smallest(v: f32) -> u32 {
    if v.is_nan() { KEY_NAN_SMALLEST } else { number_key(-v) }
}

/// Writes the keys of `row` into `keys` (which must have the row's length).
#[inline]
pub fn keys_into<E: Element>(row: &[E], mode: Mode, keys: &mut [E::Key]) {
    debug_assert_eq!(row.len(), keys.len());
    // Two monomorphic loops so each one vectorises without a per-element mode branch.
    match mode {
        Mode::Largest => keys.iter_mut().zip(row).for_each(|(k, &v)| *k = v.key_largest()),
        Mode::Smallest => keys.iter_mut().zip(row).for_each(|(k, &v)| *k = v.key_smallest()),
    }
}

/// [`keys_into`] fused with the smallest and largest key, in one pass over the row.
#[inline]
pub fn keys_and_range_into<E: Element>(
    row: &[E],
    mode: Mode,
    keys: &mut [E::Key],
) -> (E::Key, E::Key) {
    debug_assert!(row.len() == keys.len() && !row.is_empty());
    fn run<E: Element>(
        row: &[E],
        keys: &mut [E::Key],
        f: impl Fn(E) -> E::Key,
    ) -> (E::Key, E::Key) {
        let (mut lo, mut hi) = (E::Key::MAX, E::Key::default());
        for (k, &v) in keys.iter_mut().zip(row) {
            *k = f(v);
            lo = lo.min(*k);
            hi = hi.max(*k);
        }
        (lo, hi)
    }
    match mode {
        Mode::Largest => run(row, keys, E::key_largest),
        Mode::Smallest => run(row, keys, E::key_smallest),
    }
}

/// The ordered value in `mode`: `v` in largest mode, `-v` in smallest mode (NaN stays NaN).
///
/// Value-space searches (bisect, bucket) do their arithmetic on ordered values so that one
/// code path serves both modes; negation is exact, so smallest mode is the largest-mode search
/// on the negated row, step for step.
#[inline(always)]
pub fn ordered_value(v: f32, mode: Mode) -> f32 {
    match mode {
        Mode::Largest => v,
        Mode::Smallest => -v,
    }
}

/// The key of an ordered value (the inverse direction of [`ordered_value_of_key`]).
///
/// For a non-NaN `v`, `key(v, mode) == key_of_ordered(ordered_value(v, mode))`, which is what
/// lets a value-space threshold be compared against element keys.
#[inline(always)]
pub fn key_of_ordered(ov: f32) -> u32 {
    key_largest(ov)
}

/// The ordered value that a key stands for: the inverse of the sign-flip transform.
///
/// Exact for every number (zero comes back as `+0.0`); both NaN keys come back as NaN, which
/// is how a value-space search learns that a bound is not a number.
#[inline(always)]
pub fn ordered_value_of_key(k: u32) -> f32 {
    let bits = if k & SIGN != 0 { k & !SIGN } else { !k };
    f32::from_bits(bits)
}

/// The unique rank of element `index` with key `key`: larger rank = earlier in the canonical
/// order (key descending, then index ascending). The low word is `!index`, so among equal
/// keys the lower index has the larger rank.
#[inline(always)]
pub fn rank(key: u32, index: u32) -> u64 {
    (u64::from(key) << 32) | u64::from(!index)
}

/// The index stored in a [`rank`].
#[inline(always)]
pub fn rank_index(rank: u64) -> u32 {
    !(rank as u32)
}

/// The key stored in a [`rank`].
#[inline(always)]
pub fn rank_key(rank: u64) -> u32 {
    (rank >> 32) as u32
}

/// Sorts selected `indices` of `row` into the canonical order (docs/contract.md §1, `--sorted`): key
/// descending in `mode`, ties by ascending index.
pub fn sort_canonical<E: Element>(row: &[E], mode: Mode, indices: &mut [u32]) {
    indices.sort_unstable_by_key(|&i| std::cmp::Reverse(row[i as usize].key(mode).rank(i)));
}

/// `true` when `a` ranks strictly before `b` in the canonical order of `mode`.
#[inline]
pub fn ranks_before<E: Element>(a: (E, u32), b: (E, u32), mode: Mode) -> bool {
    a.0.key(mode).rank(a.1) > b.0.key(mode).rank(b.1)
}

mod sealed {
    /// Only the types below implement [`super::Element`], [`super::KeyBits`],
    /// [`super::RankBits`] and [`super::OrderedValue`]: their keys are what the algorithms'
    /// structure (digit counts, key-space bounds) is built on.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for i8 {}
    impl Sealed for i16 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for u128 {}
    impl Sealed for super::NoValue {}
}

/// The unique rank of an element ([`KeyBits::rank`]): its key above its inverted index, `u64`
/// for keys of up to 32 bits, `u128` for 64-bit keys. Larger rank = earlier in the canonical
/// order.
pub trait RankBits: Copy + Ord + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// The largest rank (a padding slot above every real rank but a NaN at index 0).
    const MAX: Self;
    /// Rank 0: below every real rank (whose low word `!index` is never 0).
    const MIN: Self;

    /// The index stored in the rank.
    fn index(self) -> u32;

    /// This width's two rank buffers in `scratch`.
    fn buffers(scratch: &mut Scratch) -> (&mut Vec<Self>, &mut Vec<Self>);
}

impl RankBits for u64 {
    const MAX: Self = u64::MAX;
    const MIN: Self = 0;

    #[inline(always)]
    fn index(self) -> u32 {
        rank_index(self)
    }

    #[inline(always)]
    fn buffers(scratch: &mut Scratch) -> (&mut Vec<Self>, &mut Vec<Self>) {
        (&mut scratch.ranks, &mut scratch.ranks2)
    }
}

impl RankBits for u128 {
    const MAX: Self = u128::MAX;
    const MIN: Self = 0;

    #[inline(always)]
    fn index(self) -> u32 {
        !(self as u32)
    }

    #[inline(always)]
    fn buffers(scratch: &mut Scratch) -> (&mut Vec<Self>, &mut Vec<Self>) {
        (&mut scratch.wide_ranks, &mut scratch.wide_ranks2)
    }
}

/// The rank type of rows of `E` ([`KeyBits::Rank`] of its key).
pub type RankOf<E> = <<E as Element>::Key as KeyBits>::Rank;

/// The unsigned integer type of an element's order key: `u8` for `i8` and `u8`, `u16` for
/// `f16`, `bf16` and `i16`, `u32` for `f32` and `i32`, `u64` for `f64` and `i64`. Key
/// arithmetic (midpoints, spans) is done on [`KeyBits::to_u64`], exact for every width;
/// digits and buckets use the key type's own shifts, so a narrow key stays narrow in the loops
/// that vectorise.
pub trait KeyBits:
    Copy
    + Ord
    + Default
    + Hash
    + Debug
    + Send
    + Sync
    + 'static
    + sealed::Sealed
    + std::ops::Shr<u32, Output = Self>
    + std::ops::Shl<u32, Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitAnd<Output = Self>
{
    /// Bits in the key: the number of binary digits a radix-style algorithm has to settle.
    const BITS: u32;
    /// The largest key (every NaN in [`Mode::Largest`]).
    const MAX: Self;
    /// The top bit alone: the key of both zeros of a float type.
    const ZERO: Self;
    /// The rank type: `u64`, or `u128` for 64-bit keys.
    type Rank: RankBits;

    /// The key as a `u64` (zero-extended).
    fn to_u64(self) -> u64;

    /// The key whose [`KeyBits::to_u64`] is `x` (higher bits are dropped).
    fn from_u64(x: u64) -> Self;

    /// The low 32 bits of the key, zero-extended: exact for keys of at most 32 bits (callers
    /// that hold `f32`, `f16` and `bf16` keys in `u32`).
    #[inline(always)]
    fn to_u32(self) -> u32 {
        self.to_u64() as u32
    }

    /// The key whose [`KeyBits::to_u64`] is `x` (higher bits are dropped).
    #[inline(always)]
    fn from_u32(x: u32) -> Self {
        Self::from_u64(u64::from(x))
    }

    /// `self - other` modulo `2^BITS`.
    fn wrapping_sub(self, other: Self) -> Self;

    /// The key's low 8 bits (a radix digit after a shift).
    fn low_byte(self) -> usize;

    /// The unique rank of the element at `index` with this key: larger rank = earlier in the
    /// canonical order (key descending, then index ascending).
    fn rank(self, index: u32) -> Self::Rank;

    /// The key stored in a [`KeyBits::rank`].
    fn of_rank(rank: Self::Rank) -> Self;

    /// This width's key buffers in `scratch`.
    fn buffers(scratch: &mut Scratch) -> &mut KeyBuffers<Self>;

    /// `|{i : keys[i] >= t}|` — the counting pass of a bisection test, vectorised for this
    /// width.
    fn count_at_least(keys: &[Self], t: Self) -> usize;
}

/// Implements [`KeyBits`] for `$k` with rank type `$r`, buffers `scratch.$buffers` and the
/// counting pass `|$keys, $t| $count`.
macro_rules! key_bits {
    ($k:ty, $r:ty, $buffers:ident, |$keys:ident, $t:ident| $count:expr) => {
        impl KeyBits for $k {
            const BITS: u32 = <$k>::BITS;
            const MAX: Self = <$k>::MAX;
            const ZERO: Self = 1 << (<$k>::BITS - 1);
            type Rank = $r;

            #[inline(always)]
            fn to_u64(self) -> u64 {
                u64::from(self)
            }

            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $k
            }

            #[inline(always)]
            fn wrapping_sub(self, other: Self) -> Self {
                <$k>::wrapping_sub(self, other)
            }

            #[inline(always)]
            fn low_byte(self) -> usize {
                (self & 0xFF) as usize
            }

            #[inline(always)]
            fn rank(self, index: u32) -> $r {
                (<$r>::from(self) << 32) | <$r>::from(!index)
            }

            #[inline(always)]
            fn of_rank(rank: $r) -> Self {
                (rank >> 32) as $k
            }

            #[inline(always)]
            fn buffers(scratch: &mut Scratch) -> &mut KeyBuffers<Self> {
                &mut scratch.$buffers
            }

            #[inline]
            fn count_at_least($keys: &[Self], $t: Self) -> usize {
                $count
            }
        }
    };
}

/// Keys counted into one 16-bit accumulator before it is added to the total: at most
/// `u16::MAX` of them, so it cannot overflow.
const COUNT_BLOCK_16: usize = 1 << 15;
/// Keys counted into one 8-bit accumulator: at most `u8::MAX` of them.
const COUNT_BLOCK_8: usize = 1 << 7;

// u32 lanes and a fixed-width accumulator let LLVM vectorise the compare-and-add.
key_bits!(u32, u64, keys32, |keys, t| keys.iter().map(|&x| u32::from(x >= t)).sum::<u32>()
    as usize);
// 16-bit lanes count twice as many keys per vector as u32 lanes; blocks of 2^15 keep each
// 16-bit sum from overflowing.
key_bits!(u16, u64, keys16, |keys, t| keys
    .chunks(COUNT_BLOCK_16)
    .map(|block| usize::from(block.iter().map(|&x| u16::from(x >= t)).sum::<u16>()))
    .sum());
// 8-bit lanes; blocks of 2^7 keep each 8-bit sum from overflowing.
key_bits!(u8, u64, keys8, |keys, t| keys
    .chunks(COUNT_BLOCK_8)
    .map(|block| usize::from(block.iter().map(|&x| u8::from(x >= t)).sum::<u8>()))
    .sum());
key_bits!(u64, u128, keys64, |keys, t| keys.iter().map(|&x| u64::from(x >= t)).sum::<u64>()
    as usize);

/// The arithmetic of a value-space search (bisect's value phase and hint windows, bucket's
/// value scale) on *ordered values* ([`ordered_value`]): `f32` for `f32`, `f16` and `bf16`
/// rows, `f64` for `f64` rows, and [`NoValue`] for integer rows, whose searches run on keys
/// alone (an integer key is its value shifted, so halving keys halves the value range).
pub trait OrderedValue: Copy + PartialOrd + Debug + Send + Sync + 'static + sealed::Sealed {
    /// The order key of the type these values are computed in (`u32` for `f32`, `u64` for
    /// `f64`): the strictly-between test of a value search compares these.
    type Wide: Copy + Ord + Debug;

    /// Whether a value-space phase exists at all (false for integer rows).
    const HAS_VALUE_PHASE: bool;

    /// A finite number (not `±inf`, not NaN); always false for [`NoValue`].
    fn is_finite(self) -> bool;

    /// NaN (for [`NoValue`], its one value).
    fn nan() -> Self;

    /// The largest-orientation key of this ordered value ([`key_of_ordered`] for `f32`).
    fn wide_key(self) -> Self::Wide;

    /// `(lo + hi) / 2` without overflow (see [`midpoint`]).
    fn midpoint(lo: Self, hi: Self) -> Self;

    /// Algorithm 1's stopping width: `precision · |hi|` when `relative`, else `precision`.
    fn epsilon(precision: f32, relative: bool, hi: Self) -> Self;

    /// `hi - lo <= eps`.
    fn within(lo: Self, hi: Self, eps: Self) -> bool;

    /// The hint window threshold `2^-shift` of `[lo, hi]` in from `lo` (`above`) or `hi`.
    fn window(lo: Self, hi: Self, shift: i32, above: bool) -> Self;

    /// The value's bits (to detect a fixed point of Algorithm 2).
    fn bits(self) -> u64;

    /// The value as `f64` (exact for `f32` and `f64`; bucket coordinates).
    fn to_f64(self) -> f64;
}

impl OrderedValue for f32 {
    type Wide = u32;
    const HAS_VALUE_PHASE: bool = true;

    #[inline(always)]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }

    #[inline(always)]
    fn nan() -> Self {
        f32::NAN
    }

    #[inline(always)]
    fn wide_key(self) -> u32 {
        key_of_ordered(self)
    }

    #[inline(always)]
    fn midpoint(lo: Self, hi: Self) -> Self {
        midpoint(lo, hi)
    }

    #[inline(always)]
    fn epsilon(precision: f32, relative: bool, hi: Self) -> Self {
        if relative { precision * hi.abs() } else { precision }
    }

    #[inline(always)]
    fn within(lo: Self, hi: Self, eps: Self) -> bool {
        hi - lo <= eps
    }

    #[inline(always)]
    fn window(lo: Self, hi: Self, shift: i32, above: bool) -> Self {
        // Scaled before subtracting, so the width cannot overflow.
        let scale = 0.5f32.powi(shift);
        let width = hi * scale - lo * scale;
        if above { lo + width } else { hi - width }
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }

    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl OrderedValue for f64 {
    type Wide = u64;
    const HAS_VALUE_PHASE: bool = true;

    #[inline(always)]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }

    #[inline(always)]
    fn nan() -> Self {
        f64::NAN
    }

    #[inline(always)]
    fn wide_key(self) -> u64 {
        key64_largest(self)
    }

    #[inline(always)]
    fn midpoint(lo: Self, hi: Self) -> Self {
        let m = (lo + hi) * 0.5;
        if m.is_finite() { m } else { lo * 0.5 + hi * 0.5 }
    }

    #[inline(always)]
    fn epsilon(precision: f32, relative: bool, hi: Self) -> Self {
        let p = f64::from(precision);
        if relative { p * hi.abs() } else { p }
    }

    #[inline(always)]
    fn within(lo: Self, hi: Self, eps: Self) -> bool {
        hi - lo <= eps
    }

    #[inline(always)]
    fn window(lo: Self, hi: Self, shift: i32, above: bool) -> Self {
        let scale = 0.5f64.powi(shift);
        let width = hi * scale - lo * scale;
        if above { lo + width } else { hi - width }
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        self.to_bits()
    }

    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

/// The ordered value of an integer row: there is none. Integer searches run on keys alone (no
/// value phase, no hint windows); [`OrderedValue::is_finite`] is always false, which is what
/// sends every search on an integer row to its key phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct NoValue;

impl OrderedValue for NoValue {
    type Wide = ();
    const HAS_VALUE_PHASE: bool = false;

    #[inline(always)]
    fn is_finite(self) -> bool {
        false
    }

    #[inline(always)]
    fn nan() -> Self {
        NoValue
    }

    #[inline(always)]
    fn wide_key(self) {}

    #[inline(always)]
    fn midpoint(_: Self, _: Self) -> Self {
        NoValue
    }

    #[inline(always)]
    fn epsilon(_: f32, _: bool, _: Self) -> Self {
        NoValue
    }

    #[inline(always)]
    fn within(_: Self, _: Self, _: Self) -> bool {
        false
    }

    #[inline(always)]
    fn window(_: Self, _: Self, _: i32, _: bool) -> Self {
        NoValue
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        0
    }

    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::NAN
    }
}

/// One element type of a row (docs/contract.md §1): the floats `f32`, `half::f16`, `half::bf16` and `f64`
/// (NaN above `+inf`, `-0.0 == +0.0`) and the integers `i8`, `u8`, `i16`, `i32`, `i64` (their
/// usual order).
///
/// Everything an algorithm needs to know about the type goes through this trait, so each
/// algorithm is written once and monomorphised per type. [`Element::key`] is the type's own
/// key, as wide as the type; value-space searches use [`Element::Ordered`].
pub trait Element: Copy + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// The order key: `u8`, `u16`, `u32` or `u64`, as wide as the type.
    type Key: KeyBits;

    /// The ordered value of a value-space search: `f32` for `f32`, `f16` and `bf16` (their
    /// exact values), `f64` for `f64`, [`NoValue`] for the integers.
    type Ordered: OrderedValue;

    /// The type's name in messages and result files: `"f32"`, `"f16"`, `"bf16"`, `"f64"`,
    /// `"i8"`, `"u8"`, `"i16"`, `"i32"` or `"i64"`.
    const NAME: &'static str;

    /// The value as `f32`, rounded to nearest (ties to even): exact for `f32`, `f16`, `bf16`,
    /// `i8`, `u8` and `i16`; the nearest `f32` for `i32`, `i64` and `f64` (a finite `f64`
    /// beyond the `f32` range becomes `±inf`). This is how a threshold is reported
    /// (docs/contract.md §5).
    fn to_f32(self) -> f32;

    /// `v` rounded to the nearest value of this type (ties to even; exact for `f32` and
    /// `f64`); integers saturate at their ends and take NaN as 0.
    fn from_f32(v: f32) -> Self;

    /// The bit pattern, in the key's integer type.
    fn to_bits(self) -> Self::Key;

    /// The element with bit pattern `bits`.
    fn from_bits(bits: Self::Key) -> Self;

    /// The key in [`Mode::Largest`]: larger key = ranks higher; for floats one key for every
    /// NaN (the largest) and one for both zeros.
    fn key_largest(self) -> Self::Key;

    /// The key in [`Mode::Smallest`]: the order reversed (floats: the largest-mode key of the
    /// negated value, every NaN at key 0; integers: the complement of the largest-mode key).
    fn key_smallest(self) -> Self::Key;

    /// The key of `self` in `mode` (docs/contract.md §1).
    #[inline(always)]
    fn key(self, mode: Mode) -> Self::Key {
        match mode {
            Mode::Largest => self.key_largest(),
            Mode::Smallest => self.key_smallest(),
        }
    }

    /// The ordered value (see [`ordered_value`]) that `key` stands for, exactly: the inverse of
    /// the key transform on numbers (zero comes back as `+0.0`); NaN for a key that is not a
    /// number's (both NaN keys among them); [`NoValue`] on integer rows.
    fn ordered_of_key(key: Self::Key) -> Self::Ordered;

    /// The key of the smallest value of this type (in largest orientation) that is `>= t`,
    /// for an ordered value `t` that is not NaN: `{e : wide key of e >= t's wide key}` equals
    /// `{e : key of e >= key_at_least_ordered(t)}`. For `f32` and `f64` it is `t`'s own key.
    /// (A NaN `t` gives the largest key.)
    fn key_at_least_ordered(t: Self::Ordered) -> Self::Key;

    /// The key a threshold **hint** `hint` (an `f32` in the input's orientation,
    /// docs/contract.md §5) is tested at in `mode`: the key of the value of this type nearest
    /// to `hint` on the selected side — the least value `>= hint` in largest mode, the
    /// greatest value `<= hint` in smallest mode. `None` when there is none (NaN, or an
    /// integer row's hint beyond the type's range on that side). For floats it is
    /// [`Element::key_at_least_ordered`] of the hint's ordered value.
    fn hint_key(hint: f32, mode: Mode) -> Option<Self::Key>;

    /// [`Element::ordered_of_key`] as `f32`: exact for `f32`, `f16` and `bf16` (where it is
    /// the ordered value); the nearest `f32` of the ordered value for `f64`; for integers the
    /// nearest `f32` of the value whose largest-mode key is `key`.
    fn ordered_value_of_key(key: Self::Key) -> f32;

    /// The key of the least value of this type `>= t` in largest orientation (`t` an `f32`,
    /// not NaN; a NaN `t` gives the largest float key). For `f32`, `f16` and `bf16` it is
    /// [`Element::key_at_least_ordered`]; for `f64` the key of `t` widened; for integers the
    /// key of the ceiling of `t` (saturating at the type's ends).
    fn key_at_least(t: f32) -> Self::Key;

    /// `algo` as a boxed trait object for rows of this type. Every [`RowSelect`] is a
    /// [`RowTopKOf`] of each element type, but code generic over `E` cannot name that impl;
    /// this (and [`Element::as_dyn`]) does, e.g. `topk_rows(E::as_dyn(&Bisect::exact()), x, ..)`.
    fn boxed<A: RowSelect + 'static>(algo: A) -> Box<dyn RowTopKOf<Self>>;

    /// `algo` as a borrowed trait object for rows of this type (see [`Element::boxed`]).
    fn as_dyn<'a, A: RowSelect + 'a>(algo: &'a A) -> &'a (dyn RowTopKOf<Self> + 'a);
}

/// [`Element::hint_key`] of a float type whose [`Element::Ordered`] is `f32`.
#[inline(always)]
fn float_hint_key<E: Element<Ordered = f32>>(hint: f32, mode: Mode) -> Option<E::Key> {
    if hint.is_nan() { None } else { Some(E::key_at_least_ordered(ordered_value(hint, mode))) }
}

impl Element for f32 {
    type Key = u32;
    type Ordered = f32;
    const NAME: &'static str = "f32";

    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }

    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        v
    }

    #[inline(always)]
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }

    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        f32::from_bits(bits)
    }

    #[inline(always)]
    fn key_largest(self) -> u32 {
        key_largest(self)
    }

    #[inline(always)]
    fn key_smallest(self) -> u32 {
        key_smallest(self)
    }

    #[inline(always)]
    fn ordered_of_key(key: u32) -> f32 {
        ordered_value_of_key(key)
    }

    #[inline(always)]
    fn key_at_least_ordered(t: f32) -> u32 {
        key_of_ordered(t)
    }

    #[inline(always)]
    fn hint_key(hint: f32, mode: Mode) -> Option<u32> {
        float_hint_key::<Self>(hint, mode)
    }

    #[inline(always)]
    fn ordered_value_of_key(key: u32) -> f32 {
        ordered_value_of_key(key)
    }

    #[inline(always)]
    fn key_at_least(t: f32) -> u32 {
        key_of_ordered(t)
    }

    fn boxed<A: RowSelect + 'static>(algo: A) -> Box<dyn RowTopKOf<Self>> {
        Box::new(algo)
    }

    fn as_dyn<'a, A: RowSelect + 'a>(algo: &'a A) -> &'a (dyn RowTopKOf<Self> + 'a) {
        algo
    }
}

/// The sign bit of a 16-bit float.
const SIGN16: u16 = 0x8000;
/// The bit pattern of `+inf` in f16 (5 exponent bits).
const F16_INF: u16 = 0x7C00;
/// The bit pattern of `+inf` in bf16 (8 exponent bits).
const BF16_INF: u16 = 0x7F80;

/// [`number_key`] on the bits of a 16-bit float: flip every bit of a negative number, set the
/// sign bit of a non-negative one, merge `-0.0` into `+0.0`. Branch-free, so key loops
/// vectorise.
#[inline(always)]
fn number_key16(bits: u16) -> u16 {
    let flip = (((bits as i16) >> 15) as u16) | SIGN16;
    let k = bits ^ flip;
    // -0.0 flips to 0x7FFF, one below +0.0's key.
    if k == SIGN16 - 1 { SIGN16 } else { k }
}

/// Largest-mode key of a 16-bit float whose `+inf` has bits `inf`: NaN (any exponent-all-ones
/// pattern with a non-zero mantissa, either sign) at the top.
#[inline(always)]
fn key16_largest(bits: u16, inf: u16) -> u16 {
    if bits & !SIGN16 > inf { u16::MAX } else { number_key16(bits) }
}

/// Smallest-mode key of a 16-bit float: the largest-mode key of its negation, NaN at 0.
#[inline(always)]
fn key16_smallest(bits: u16, inf: u16) -> u16 {
    if bits & !SIGN16 > inf { 0 } else { number_key16(bits ^ SIGN16) }
}

/// The bits of the 16-bit float whose largest-mode key is `key` (the inverse sign flip).
#[inline(always)]
fn bits_of_key16(key: u16) -> u16 {
    if key & SIGN16 != 0 { key & !SIGN16 } else { !key }
}

/// The own key `step` (0 or 1) places above the number key `key`: numbers of a 16-bit type have
/// consecutive keys but for the one key that [`number_key16`] leaves unused (`-0.0`'s, merged
/// into `+0.0`'s), which the step skips.
#[inline(always)]
fn step_key16(key: u16, step: u16) -> u16 {
    let k = key.saturating_add(step);
    if k == SIGN16 - 1 { SIGN16 } else { k }
}

/// f32 exponent field of the smallest normal f16 (2^-14); below it, f16 values are subnormal.
const F16_MIN_NORMAL_EXP: u32 = 113;
/// f32 exponent field of 2^16, the first power of two beyond the largest finite f16.
const F16_OVERFLOW_EXP: u32 = 143;

/// The f16 bits of the magnitude `mag` (f32 bits, sign cleared, not NaN) cut toward zero, and
/// whether anything was cut: integer arithmetic, exact for every f32.
#[inline(always)]
fn f16_magnitude_toward_zero(mag: u32) -> (u16, bool) {
    let exp = mag >> 23;
    if exp >= F16_OVERFLOW_EXP {
        // +inf stays inf; a finite magnitude beyond the largest f16 cuts to it (0x7BFF).
        return if mag == f32::INFINITY.to_bits() { (F16_INF, false) } else { (F16_INF - 1, true) };
    }
    if exp >= F16_MIN_NORMAL_EXP {
        // Rebias the exponent (127 → 15) and keep the top 10 of 23 mantissa bits.
        let bits = (mag >> 13) - ((127 - 15) << 10);
        return (bits as u16, mag & 0x1FFF != 0);
    }
    // An f16 subnormal counts units of 2^-24: the significand shifted by 126 - exp (>= 14);
    // from a shift of 24 on (f32 subnormals and zero included) nothing is left.
    let shift = 126 - exp;
    if shift >= 24 {
        return (0, mag != 0);
    }
    let significand = (mag & 0x007F_FFFF) | 0x0080_0000;
    ((significand >> shift) as u16, significand & ((1 << shift) - 1) != 0)
}

/// [`Element::key_at_least`] of f16, in integers: cut `|t|` toward zero to f16 bits; that is the
/// ceiling for a negative `t`, and one f16 up (a carry may reach the exponent, or `+inf`) for a
/// positive `t` that was cut. No float conversion on the path each bisection test waits for.
#[inline(always)]
fn f16_key_at_least(t: f32) -> u16 {
    if t.is_nan() {
        return u16::MAX;
    }
    let bits = t.to_bits();
    let (cut, inexact) = f16_magnitude_toward_zero(bits & !SIGN);
    let ceil = if bits & SIGN != 0 { cut | SIGN16 } else { cut + u16::from(inexact) };
    key16_largest(ceil, F16_INF)
}

/// [`Element::key_at_least`] of bf16, in integers: a bf16 value is an f32 whose low 16 bits are
/// zero, and its own key is the high half of its f32 key (the same sign flip on the high half).
/// So the ceiling's key is the high half of `t`'s f32 key, one up when `t` is positive and off
/// the bf16 grid (for a negative `t`, the high half already rounds toward zero, i.e. up). No
/// float conversion and no branch on the data.
#[inline(always)]
fn bf16_key_at_least(t: f32) -> u16 {
    let wide = key_of_ordered(t);
    let off_grid = wide >= KEY_ZERO && wide as u16 != 0;
    step_key16((wide >> 16) as u16, u16::from(off_grid))
}

/// Implements [`Element`] for a 16-bit float type of `half` whose `+inf` has bits `$inf` and
/// whose [`Element::key_at_least`] is `$at_least`.
macro_rules! element16 {
    ($t:ty, $name:literal, $inf:expr, $at_least:path) => {
        impl Element for $t {
            type Key = u16;
            type Ordered = f32;
            const NAME: &'static str = $name;

            #[inline(always)]
            fn to_f32(self) -> f32 {
                <$t>::to_f32(self)
            }

            #[inline(always)]
            fn from_f32(v: f32) -> Self {
                <$t>::from_f32(v)
            }

            #[inline(always)]
            fn to_bits(self) -> u16 {
                <$t>::to_bits(self)
            }

            #[inline(always)]
            fn from_bits(bits: u16) -> Self {
                <$t>::from_bits(bits)
            }

            #[inline(always)]
            fn key_largest(self) -> u16 {
                key16_largest(<$t>::to_bits(self), $inf)
            }

            #[inline(always)]
            fn key_smallest(self) -> u16 {
                key16_smallest(<$t>::to_bits(self), $inf)
            }

            #[inline(always)]
            fn ordered_of_key(key: u16) -> f32 {
                <$t>::from_bits(bits_of_key16(key)).to_f32()
            }

            #[inline(always)]
            fn key_at_least_ordered(t: f32) -> u16 {
                $at_least(t)
            }

            #[inline(always)]
            fn hint_key(hint: f32, mode: Mode) -> Option<u16> {
                float_hint_key::<Self>(hint, mode)
            }

            #[inline(always)]
            fn ordered_value_of_key(key: u16) -> f32 {
                Self::ordered_of_key(key)
            }

            #[inline(always)]
            fn key_at_least(t: f32) -> u16 {
                $at_least(t)
            }

            fn boxed<A: RowSelect + 'static>(algo: A) -> Box<dyn RowTopKOf<Self>> {
                Box::new(algo)
            }

            fn as_dyn<'a, A: RowSelect + 'a>(algo: &'a A) -> &'a (dyn RowTopKOf<Self> + 'a) {
                algo
            }
        }
    };
}

element16!(f16, "f16", F16_INF, f16_key_at_least);
element16!(bf16, "bf16", BF16_INF, bf16_key_at_least);

/// The sign bit of an `f64`'s bit pattern.
const SIGN64: u64 = 1 << 63;

/// [`number_key`] for `f64`: flip every bit of a negative number, set the sign bit of a
/// non-negative one, merge `-0.0` into `+0.0`. Branch-free, so key loops vectorise.
#[inline(always)]
fn number_key64(x: f64) -> u64 {
    let bits = x.to_bits();
    let flip = (((bits as i64) >> 63) as u64) | SIGN64;
    let k = bits ^ flip;
    // -0.0 flips to 0x7FFF_FFFF_FFFF_FFFF, one below +0.0's key.
    if k == SIGN64 - 1 { SIGN64 } else { k }
}

/// Largest-mode key of an `f64`: every NaN (either sign, any payload) at `u64::MAX`.
#[inline(always)]
fn key64_largest(v: f64) -> u64 {
    if v.is_nan() { u64::MAX } else { number_key64(v) }
}

/// Smallest-mode key of an `f64`: the largest-mode key of `-v`, every NaN at 0.
#[inline(always)]
fn key64_smallest(v: f64) -> u64 {
    if v.is_nan() { 0 } else { number_key64(-v) }
}

/// `f64` rows: the transform of `f32` with 64-bit keys; the value phase runs in `f64`.
impl Element for f64 {
    type Key = u64;
    type Ordered = f64;
    const NAME: &'static str = "f64";

    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }

    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        f64::from(v)
    }

    #[inline(always)]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }

    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }

    #[inline(always)]
    fn key_largest(self) -> u64 {
        key64_largest(self)
    }

    #[inline(always)]
    fn key_smallest(self) -> u64 {
        key64_smallest(self)
    }

    #[inline(always)]
    fn ordered_of_key(key: u64) -> f64 {
        let bits = if key & SIGN64 != 0 { key & !SIGN64 } else { !key };
        f64::from_bits(bits)
    }

    #[inline(always)]
    fn key_at_least_ordered(t: f64) -> u64 {
        key64_largest(t)
    }

    #[inline(always)]
    fn hint_key(hint: f32, mode: Mode) -> Option<u64> {
        if hint.is_nan() { None } else { Some(key64_largest(f64::from(ordered_value(hint, mode)))) }
    }

    #[inline(always)]
    fn ordered_value_of_key(key: u64) -> f32 {
        Self::ordered_of_key(key) as f32
    }

    #[inline(always)]
    fn key_at_least(t: f32) -> u64 {
        key64_largest(f64::from(t))
    }

    fn boxed<A: RowSelect + 'static>(algo: A) -> Box<dyn RowTopKOf<Self>> {
        Box::new(algo)
    }

    fn as_dyn<'a, A: RowSelect + 'a>(algo: &'a A) -> &'a (dyn RowTopKOf<Self> + 'a) {
        algo
    }
}

/// The integer ceiling of `t` (not NaN), in `i128` (exact: `|t| < 2^128`, saturating at
/// `±2^127`, beyond every element type's range).
#[inline(always)]
fn ceil_i128(t: f32) -> i128 {
    f64::from(t).ceil() as i128
}

/// The integer floor of `t` (not NaN), in `i128`.
#[inline(always)]
fn floor_i128(t: f32) -> i128 {
    f64::from(t).floor() as i128
}

/// Implements [`Element`] for the integer type `$t` with key `$k`: the largest-mode key is
/// the bit pattern with the sign bit flipped (`$flip`: the top bit for signed types, 0 for
/// unsigned ones), so that keys count up from the type's minimum; the smallest-mode key is its
/// complement (which is the largest-mode key of `!v = -1 - v`, exact in the type).
macro_rules! integer_element {
    ($t:ty, $k:ty, $name:literal, $flip:expr) => {
        impl Element for $t {
            type Key = $k;
            type Ordered = NoValue;
            const NAME: &'static str = $name;

            // One body for every width: exact for 8- and 16-bit integers, round to nearest
            // (ties to even) for `i32` and `i64`, which have no `From` into `f32`.
            #[allow(clippy::cast_lossless)]
            #[inline(always)]
            fn to_f32(self) -> f32 {
                self as f32
            }

            #[inline(always)]
            fn from_f32(v: f32) -> Self {
                v.round_ties_even() as $t
            }

            #[inline(always)]
            fn to_bits(self) -> $k {
                self as $k
            }

            #[inline(always)]
            fn from_bits(bits: $k) -> Self {
                bits as $t
            }

            #[inline(always)]
            fn key_largest(self) -> $k {
                (self as $k) ^ $flip
            }

            #[inline(always)]
            fn key_smallest(self) -> $k {
                !((self as $k) ^ $flip)
            }

            #[inline(always)]
            fn ordered_of_key(_: $k) -> NoValue {
                NoValue
            }

            /// Never called on integer rows (they have no value phase): the largest key.
            #[inline(always)]
            fn key_at_least_ordered(_: NoValue) -> $k {
                <$k>::MAX
            }

            #[inline(always)]
            fn hint_key(hint: f32, mode: Mode) -> Option<$k> {
                if hint.is_nan() {
                    return None;
                }
                let (min, max) = (i128::from(<$t>::MIN), i128::from(<$t>::MAX));
                match mode {
                    Mode::Largest => {
                        let c = ceil_i128(hint);
                        (c <= max).then(|| (c.max(min) as $t).key_largest())
                    }
                    Mode::Smallest => {
                        let f = floor_i128(hint);
                        (f >= min).then(|| (f.min(max) as $t).key_smallest())
                    }
                }
            }

            #[inline(always)]
            fn ordered_value_of_key(key: $k) -> f32 {
                <$t as Element>::from_bits(key ^ $flip).to_f32()
            }

            #[inline(always)]
            fn key_at_least(t: f32) -> $k {
                if t.is_nan() {
                    return <$k>::MAX;
                }
                let c = ceil_i128(t).clamp(i128::from(<$t>::MIN), i128::from(<$t>::MAX));
                (c as $t).key_largest()
            }

            fn boxed<A: RowSelect + 'static>(algo: A) -> Box<dyn RowTopKOf<Self>> {
                Box::new(algo)
            }

            fn as_dyn<'a, A: RowSelect + 'a>(algo: &'a A) -> &'a (dyn RowTopKOf<Self> + 'a) {
                algo
            }
        }
    };
}

integer_element!(i8, u8, "i8", 0x80);
integer_element!(u8, u8, "u8", 0);
integer_element!(i16, u16, "i16", 0x8000);
integer_element!(i32, u32, "i32", 0x8000_0000);
integer_element!(i64, u64, "i64", 1 << 63);

/// The midpoint Algorithms 1 and 2 use: `(lo + hi) / 2` in f32, without overflowing.
///
/// `(lo + hi) * 0.5` is what the paper computes; it is replaced by `lo * 0.5 + hi * 0.5` only
/// when the sum overflows (both bounds near ±FLT_MAX), where the paper's formula would give inf.
#[inline]
pub fn midpoint(lo: f32, hi: f32) -> f32 {
    let m = (lo + hi) * 0.5;
    if m.is_finite() { m } else { lo * 0.5 + hi * 0.5 }
}

/// One top-k algorithm for one row, written **once for every element type** ([`Element`]:
/// `f32`, `half::f16`, `half::bf16`, `f64`, `i8`, `u8`, `i16`, `i32`, `i64`) and
/// monomorphised per type. This is what the algorithms
/// implement; callers use the object-safe faces [`RowTopK`] (`f32` rows, as before 16-bit
/// support) and [`RowTopKOf`] (rows of any element type), which every `RowSelect` gets.
///
/// Implementations select the **canonical** top-k of docs/contract.md §1 (exact algorithms) or a valid
/// approximation (`is_exact() == false`, e.g. early stopping): `k` distinct indices of `row`.
/// The driver checks the arguments; implementations may assume
/// `1 <= k <= row.len() <= MAX_ROW_WIDTH` and `out.len() == k`.
pub trait RowSelect: Sync {
    /// The name used on the command line (`--algo NAME`).
    fn name(&self) -> &'static str;

    /// `true` when the result is always the canonical top-k.
    fn is_exact(&self) -> bool {
        true
    }

    /// `true` when [`RowStats::iterations`] is reported.
    fn reports_iterations(&self) -> bool {
        false
    }

    /// The widest element key this algorithm takes ([`crate::KeyBits::BITS`]): 64, every
    /// element type, unless its design is defined for narrower keys only (some baselines: 32).
    /// The drivers refuse rows of a wider key with [`crate::TopKError::UnsupportedElement`].
    fn max_key_bits(&self) -> u32 {
        64
    }

    /// Writes the selected indices into `out` in **ascending index order**.
    fn select<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats;

    /// [`RowSelect::select`] with a guess of the row's threshold (docs/contract.md §5): the
    /// value of the k-th selected element, as an `f32` in the input's orientation (not
    /// negated in smallest mode). A hint may change the work and the iteration count, never
    /// the selection; any `f32` is allowed (NaN, ±inf, nonsense). The default ignores it —
    /// only algorithms whose search can start from a bracket ([`crate::Bisect`]) use it.
    fn select_hinted<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let _ = hint;
        self.select(row, k, mode, scratch, out)
    }
}

/// One top-k algorithm for one `f32` row, as a trait object (`Box<dyn RowTopK>`). Every
/// [`RowSelect`] implements it; a type may also implement it directly (an `f32`-only
/// algorithm, such as the warp simulator's kernel). The contract is [`RowSelect`]'s.
pub trait RowTopK: Sync {
    /// The name used on the command line (`--algo NAME`).
    fn name(&self) -> &'static str;

    /// `true` when the result is always the canonical top-k.
    fn is_exact(&self) -> bool {
        true
    }

    /// `true` when [`RowStats::iterations`] is reported.
    fn reports_iterations(&self) -> bool {
        false
    }

    /// Writes the selected indices into `out` in **ascending index order**.
    fn select_row(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats;

    /// [`RowTopK::select_row`] with a threshold hint ([`RowSelect::select_hinted`]); the
    /// default ignores the hint.
    fn select_row_hinted(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let _ = hint;
        self.select_row(row, k, mode, scratch, out)
    }
}

/// One top-k algorithm for one row of `E`, as a trait object (`Box<dyn RowTopKOf<f16>>`): what
/// the row-wise driver runs. Implemented for every [`RowSelect`] and every `E`, and for every
/// [`RowTopK`] with `E = f32`. The contract is [`RowSelect`]'s.
pub trait RowTopKOf<E: Element>: Sync {
    /// The name used on the command line (`--algo NAME`).
    fn name(&self) -> &'static str;

    /// `true` when the result is always the canonical top-k.
    fn is_exact(&self) -> bool;

    /// `true` when [`RowStats::iterations`] is reported.
    fn reports_iterations(&self) -> bool;

    /// Writes the selected indices into `out` in **ascending index order**.
    fn select_row(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats;

    /// [`RowTopKOf::select_row`] with a threshold hint ([`RowSelect::select_hinted`]); the
    /// default ignores the hint.
    fn select_row_hinted(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let _ = hint;
        self.select_row(row, k, mode, scratch, out)
    }

    /// [`RowSelect::max_key_bits`] of the algorithm.
    fn max_key_bits(&self) -> u32 {
        64
    }
}

/// The methods of an object-safe face for rows of `$elem`, each answered by `$via`: the
/// faces differ only in which trait they forward to.
macro_rules! forward_face {
    ($elem:ty, $via:ident, $select:ident, $hinted:ident) => {
        fn name(&self) -> &'static str {
            $via::name(self)
        }

        fn is_exact(&self) -> bool {
            $via::is_exact(self)
        }

        fn reports_iterations(&self) -> bool {
            $via::reports_iterations(self)
        }

        #[inline]
        fn select_row(
            &self,
            row: &[$elem],
            k: usize,
            mode: Mode,
            scratch: &mut Scratch,
            out: &mut [u32],
        ) -> RowStats {
            $via::$select(self, row, k, mode, scratch, out)
        }

        #[inline]
        fn select_row_hinted(
            &self,
            row: &[$elem],
            k: usize,
            mode: Mode,
            hint: Option<f32>,
            scratch: &mut Scratch,
            out: &mut [u32],
        ) -> RowStats {
            $via::$hinted(self, row, k, mode, hint, scratch, out)
        }
    };
}

impl<T: RowSelect> RowTopK for T {
    forward_face!(f32, RowSelect, select, select_hinted);
}

impl<T: RowTopK + ?Sized> RowTopKOf<f32> for T {
    forward_face!(f32, RowTopK, select_row, select_row_hinted);
}

/// [`RowTopKOf`] of an element type other than `f32` (`f16`, `bf16`, `f64` and the integers)
/// for every [`RowSelect`].
macro_rules! row_topk_of {
    ($($t:ty),*) => {$(
        impl<T: RowSelect> RowTopKOf<$t> for T {
            forward_face!($t, RowSelect, select, select_hinted);

            fn max_key_bits(&self) -> u32 {
                RowSelect::max_key_bits(self)
            }
        }
    )*};
}

row_topk_of!(half::f16, half::bf16, f64, i8, u8, i16, i32, i64);

/// Implements [`RowSelect`] for an algorithm type `$algo`: its command-line name, the widest
/// key it takes ([`RowSelect::max_key_bits`]) and the body of [`RowSelect::select`], written as
/// a closure over `(algorithm, row, k, mode, scratch, out)` in which the element type is `E`.
/// The trait's signature is spelled out once, here, for every algorithm of the workspace.
#[macro_export]
macro_rules! row_select {
    ($algo:ty, $name:literal, $bits:expr,
     |$this:tt, $row:ident, $k:ident, $mode:ident, $scratch:ident, $out:ident| $body:expr) => {
        impl $crate::RowSelect for $algo {
            fn name(&self) -> &'static str {
                $name
            }

            fn max_key_bits(&self) -> u32 {
                $bits
            }

            fn select<E: $crate::Element>(
                &self,
                $row: &[E],
                $k: usize,
                $mode: $crate::Mode,
                $scratch: &mut $crate::Scratch,
                $out: &mut [u32],
            ) -> $crate::RowStats {
                let $this = self;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATTERNS: [f32; 14] = [
        f32::NEG_INFINITY,
        -f32::MAX,
        -1.5,
        -f32::MIN_POSITIVE,
        -1.0e-45,
        -0.0,
        0.0,
        1.0e-45,
        f32::MIN_POSITIVE,
        1.0,
        1.000_000_1,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
    ];

    #[test]
    fn largest_keys_follow_the_spec_order() {
        let keys: Vec<u32> = PATTERNS.iter().map(|&v| key_largest(v)).collect();
        for (i, w) in keys.windows(2).enumerate() {
            // The only tie in PATTERNS is -0.0 / +0.0 (positions 5 and 6).
            if i == 5 {
                assert_eq!(w[0], w[1], "-0.0 and +0.0 must tie");
            } else {
                assert!(w[0] < w[1], "{} must rank below {}", PATTERNS[i], PATTERNS[i + 1]);
            }
        }
    }

    #[test]
    fn nans_tie_whatever_sign_and_payload() {
        let nans = [f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001), f32::from_bits(0xffc0_1234)];
        for n in nans {
            assert_eq!(key_largest(n), KEY_NAN_LARGEST);
            assert_eq!(key_smallest(n), KEY_NAN_SMALLEST);
        }
    }

    #[test]
    fn smallest_mode_reverses_numbers_and_sinks_nan() {
        let keys: Vec<u32> = PATTERNS.iter().map(|&v| key_smallest(v)).collect();
        assert_eq!(keys[13], 0, "NaN is the lowest rank in smallest mode");
        for i in 0..12 {
            if i == 5 {
                assert_eq!(keys[i], keys[i + 1]);
            } else {
                assert!(keys[i] > keys[i + 1]);
            }
        }
    }

    #[test]
    fn ordered_value_round_trips_through_keys() {
        for &v in &PATTERNS[..13] {
            for mode in [Mode::Largest, Mode::Smallest] {
                let ov = ordered_value(v, mode);
                assert_eq!(key_of_ordered(ov), key(v, mode));
                let back = ordered_value_of_key(key(v, mode));
                assert!(back == ov, "{v} in {mode:?}: {back} != {ov}");
            }
        }
        assert!(ordered_value_of_key(KEY_NAN_LARGEST).is_nan());
        assert!(ordered_value_of_key(KEY_NAN_SMALLEST).is_nan());
        assert_eq!(ordered_value_of_key(KEY_ZERO).to_bits(), 0);
    }

    #[test]
    fn rank_breaks_ties_by_lower_index() {
        assert!(rank(7, 3) > rank(7, 4));
        assert!(rank(8, 100) > rank(7, 0));
        assert_eq!(rank_index(rank(5, 42)), 42);
        assert_eq!(rank_key(rank(5, 42)), 5);
        assert!(ranks_before((1.0, 9), (1.0, 10), Mode::Largest));
        assert!(ranks_before((-0.0, 0), (0.0, 1), Mode::Smallest));
    }

    #[test]
    fn sort_canonical_orders_by_value_then_index() {
        let row = [1.0, f32::NAN, 3.0, 1.0, -0.0, 0.0];
        let mut idx = [0, 1, 2, 3, 4, 5];
        sort_canonical(&row, Mode::Largest, &mut idx);
        assert_eq!(idx, [1, 2, 0, 3, 4, 5]);
        sort_canonical(&row, Mode::Smallest, &mut idx);
        assert_eq!(idx, [4, 5, 0, 3, 2, 1]);
    }

    /// Every value of a 16-bit type, in bit order.
    fn all16<E: Element<Key = u16>>() -> Vec<E> {
        (0..=u16::MAX).map(E::from_bits).collect()
    }

    /// The 16-bit keys rank every value exactly as the f32 keys of its exact value do.
    fn keys16_follow_the_f32_order<E: Element<Key = u16>>() {
        for mode in [Mode::Largest, Mode::Smallest] {
            let mut pairs: Vec<(u16, u32)> =
                all16::<E>().iter().map(|&v| (v.key(mode), key(v.to_f32(), mode))).collect();
            pairs.sort_unstable();
            for w in pairs.windows(2) {
                assert_eq!(w[0].0 == w[1].0, w[0].1 == w[1].1, "{} {mode:?} {w:?}", E::NAME);
                assert!(w[0].1 <= w[1].1, "{} {mode:?} {w:?}", E::NAME);
            }
            // One key for all NaNs, one for both zeros, one for every other value.
            let nans = all16::<E>().iter().filter(|v| v.to_f32().is_nan()).count();
            let mut keys: Vec<u16> = pairs.iter().map(|p| p.0).collect();
            keys.dedup();
            assert_eq!(keys.len(), (1 << 16) - (nans - 1) - 1, "{} {mode:?}", E::NAME);
        }
    }

    #[test]
    fn f16_and_bf16_keys_follow_the_f32_order() {
        keys16_follow_the_f32_order::<f16>();
        keys16_follow_the_f32_order::<bf16>();
    }

    fn special16<E: Element<Key = u16>>(inf: u16) {
        let from = E::from_bits;
        for nan in [inf | 1, inf | 0x40, 0x8000 | inf | 1, 0xFFFF, 0x7FFF] {
            assert_eq!(from(nan).key_largest(), u16::MAX, "{} {nan:#x}", E::NAME);
            assert_eq!(from(nan).key_smallest(), 0, "{} {nan:#x}", E::NAME);
        }
        assert_eq!(from(0x8000).key_largest(), from(0).key_largest(), "-0 ties +0");
        assert_eq!(from(0x8000).key_smallest(), from(0).key_smallest(), "-0 ties +0");
        assert_eq!(from(0).key_largest(), <u16 as KeyBits>::ZERO);
        assert!(
            from(inf).key_largest() < u16::MAX && from(inf).key_largest() > from(1).key_largest()
        );
        assert!(from(0x8000 | inf).key_smallest() > from(inf).key_smallest());
    }

    #[test]
    fn special_16_bit_values() {
        special16::<f16>(F16_INF);
        special16::<bf16>(BF16_INF);
        assert_eq!(f16::NAME, "f16");
        assert_eq!(<bf16 as Element>::NAME, "bf16");
    }

    fn ordered_values16<E: Element<Key = u16>>() {
        for v in all16::<E>().into_iter().filter(|v| !v.to_f32().is_nan()) {
            for mode in [Mode::Largest, Mode::Smallest] {
                let back = E::ordered_value_of_key(v.key(mode));
                let want = ordered_value(v.to_f32(), mode);
                assert!(back == want, "{} {:#x} {mode:?}: {back} != {want}", E::NAME, v.to_bits());
                assert_eq!(key_of_ordered(back), key(v.to_f32(), mode));
            }
        }
        assert!(E::ordered_value_of_key(u16::MAX).is_nan());
        assert!(E::ordered_value_of_key(0).is_nan());
        assert_eq!(E::ordered_value_of_key(<u16 as KeyBits>::ZERO).to_bits(), 0);
    }

    #[test]
    fn ordered_values_of_16_bit_keys_are_exact() {
        ordered_values16::<f16>();
        ordered_values16::<bf16>();
    }

    /// The next f32 above the finite `x`.
    fn next_f32_up(x: f32) -> f32 {
        match x.to_bits() {
            0 | 0x8000_0000 => f32::from_bits(1),
            b if b >> 31 == 0 => f32::from_bits(b + 1),
            b => f32::from_bits(b - 1),
        }
    }

    /// `key_at_least` against a search of the sorted values of the type: the key of the first
    /// value `>= t`.
    fn key_at_least16<E: Element<Key = u16>>() {
        let mut table: Vec<(f32, u16)> = all16::<E>()
            .into_iter()
            .filter(|v| !v.to_f32().is_nan())
            .map(|v| (v.to_f32(), v.key_largest()))
            .collect();
        table.sort_by(|a, b| a.0.total_cmp(&b.0));
        let ceil = |t: f32| table[table.partition_point(|&(v, _)| v < t)].1;
        // Every value, its f32 neighbours, midpoints of neighbours, and values beyond the range.
        let mut thresholds = vec![f32::MAX, -f32::MAX, 1.0e38, -1.0e38, 0.0, -0.0];
        for w in table.windows(2) {
            let (a, b) = (w[0].0, w[1].0);
            thresholds.extend([a, (a + b) * 0.5, next_f32_up(a), -next_f32_up(-b)]);
        }
        // And f32 bit patterns from every exponent, sign and mantissa (an LCG's high bits).
        let mut state = 0x853c_49e6_748f_ea9b_u64;
        thresholds.extend((0..200_000).map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            f32::from_bits((state >> 32) as u32)
        }));
        for t in thresholds.into_iter().filter(|t| t.is_finite()) {
            assert_eq!(E::key_at_least(t), ceil(t), "{} t = {t:e} ({:#x})", E::NAME, t.to_bits());
        }
        assert_eq!(E::key_at_least(f32::INFINITY), E::from_f32(f32::INFINITY).key_largest());
        assert_eq!(E::key_at_least(f32::NAN), u16::MAX);
    }

    #[test]
    fn key_at_least_is_the_ceiling_in_the_16_bit_type() {
        key_at_least16::<f16>();
        key_at_least16::<bf16>();
        // f32: the threshold's own key.
        assert_eq!(<f32 as Element>::key_at_least(1.5), key_largest(1.5));
    }

    #[test]
    fn sixteen_bit_counts_and_ranks() {
        let keys: Vec<u16> = vec![1, 7, 7, 9, u16::MAX, 0, 40_000];
        assert_eq!(<u16 as KeyBits>::count_at_least(&keys, 7), 5);
        // Blocks of 2^15 keep the 16-bit sums from overflowing.
        let many = vec![3u16; 70_000];
        assert_eq!(<u16 as KeyBits>::count_at_least(&many, 3), 70_000);
        assert_eq!(<u16 as KeyBits>::count_at_least(&many, 4), 0);
        let row = [f16::from_f32(1.0), f16::NAN, f16::from_f32(1.0), f16::from_f32(-0.0)];
        let mut idx = [0, 1, 2, 3];
        sort_canonical(&row, Mode::Largest, &mut idx);
        assert_eq!(idx, [1, 0, 2, 3]);
        assert!(ranks_before((bf16::from_f32(2.0), 5), (bf16::from_f32(2.0), 6), Mode::Largest));
    }

    /// Every value of an 8-bit type, and samples of the wider ones, rank by their keys in
    /// their usual order; smallest mode reverses it.
    fn integer_keys_follow_the_usual_order<T: Element + Ord>(values: &mut Vec<T>) {
        values.sort_unstable();
        values.dedup();
        for w in values.windows(2) {
            assert!(w[0].key_largest() < w[1].key_largest(), "{} {w:?}", T::NAME);
            assert!(w[0].key_smallest() > w[1].key_smallest(), "{} {w:?}", T::NAME);
            assert_eq!(T::from_bits(w[0].to_bits()), w[0]);
        }
    }

    #[test]
    fn integer_keys_order_every_type() {
        integer_keys_follow_the_usual_order(&mut (i8::MIN..=i8::MAX).collect());
        integer_keys_follow_the_usual_order(&mut (0..=u8::MAX).collect());
        integer_keys_follow_the_usual_order(&mut (i16::MIN..=i16::MAX).collect());
        let mut state = 0x853c_49e6_748f_ea9b_u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state
        };
        let mut wide32: Vec<i32> = (0..5000).map(|_| (next() >> 32) as i32).collect();
        wide32.extend([i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX]);
        integer_keys_follow_the_usual_order(&mut wide32);
        let mut wide64: Vec<i64> = (0..5000).map(|_| next() as i64).collect();
        wide64.extend([i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX]);
        integer_keys_follow_the_usual_order(&mut wide64);
        assert_eq!((i8::MIN.key_largest(), i8::MAX.key_largest()), (0, u8::MAX));
        assert_eq!((i64::MIN.key_smallest(), i64::MAX.key_smallest()), (u64::MAX, 0));
        assert_eq!((0u8.key_largest(), 0u8.key_smallest()), (0, u8::MAX));
    }

    #[test]
    fn f64_keys_follow_the_spec_order() {
        let order = [
            f64::NEG_INFINITY,
            -f64::MAX,
            -1.0e300,
            -1.5,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.0,
            f64::from_bits(1.0f64.to_bits() + 1),
            1.0e300,
            f64::MAX,
            f64::INFINITY,
        ];
        for w in order.windows(2) {
            if w[0] == 0.0 && w[1] == 0.0 {
                assert_eq!(w[0].key_largest(), w[1].key_largest(), "-0 ties +0");
                assert_eq!(w[0].key_smallest(), w[1].key_smallest());
            } else {
                assert!(w[0].key_largest() < w[1].key_largest(), "{w:?}");
                assert!(w[0].key_smallest() > w[1].key_smallest(), "{w:?}");
            }
        }
        let nans = [f64::NAN, -f64::NAN, f64::from_bits(0x7FF0_0000_0000_0001), f64::from_bits(!0)];
        for n in nans {
            assert_eq!((n.key_largest(), n.key_smallest()), (u64::MAX, 0));
        }
        for &v in &order {
            for mode in [Mode::Largest, Mode::Smallest] {
                let ov = if mode == Mode::Largest { v } else { -v };
                let back = f64::ordered_of_key(v.key(mode));
                assert!(back == ov, "{v} {mode:?}: {back}");
                assert_eq!(f64::key_at_least_ordered(back), v.key(mode));
            }
        }
        assert!(f64::ordered_of_key(u64::MAX).is_nan() && f64::ordered_of_key(0).is_nan());
        assert_eq!(<u64 as KeyBits>::ZERO, 0.0f64.key_largest());
    }

    /// An integer hint is tested at the least value `>= hint` (largest mode) or the greatest
    /// `<= hint` (smallest mode); none beyond the type's range on that side, none for NaN.
    #[test]
    fn integer_hint_keys_round_toward_the_selected_side() {
        assert_eq!(i8::hint_key(2.5, Mode::Largest), Some(3i8.key_largest()));
        assert_eq!(i8::hint_key(2.5, Mode::Smallest), Some(2i8.key_smallest()));
        assert_eq!(i8::hint_key(-2.5, Mode::Largest), Some((-2i8).key_largest()));
        assert_eq!(i8::hint_key(-2.5, Mode::Smallest), Some((-3i8).key_smallest()));
        assert_eq!(i8::hint_key(127.5, Mode::Largest), None);
        assert_eq!(i8::hint_key(127.5, Mode::Smallest), Some(127i8.key_smallest()));
        assert_eq!(i8::hint_key(-1e9, Mode::Largest), Some(i8::MIN.key_largest()));
        assert_eq!(i8::hint_key(-128.5, Mode::Smallest), None);
        assert_eq!(u8::hint_key(-0.5, Mode::Largest), Some(0u8.key_largest()));
        assert_eq!(u8::hint_key(-0.5, Mode::Smallest), None);
        assert_eq!(i32::hint_key(f32::NAN, Mode::Largest), None);
        assert_eq!(i64::hint_key(9.3e18, Mode::Largest), None);
        assert_eq!(i64::hint_key(-9.3e18, Mode::Largest), Some(i64::MIN.key_largest()));
        assert_eq!(i64::hint_key(f32::INFINITY, Mode::Smallest), Some(i64::MAX.key_smallest()));
        assert_eq!(f64::hint_key(1.5, Mode::Smallest), Some((1.5f64).key_smallest()));
        assert_eq!(f64::hint_key(f32::NAN, Mode::Smallest), None);
        assert_eq!(<i16 as Element>::key_at_least(-2.5), (-2i16).key_largest());
        assert_eq!(<i16 as Element>::key_at_least(1e9), i16::MAX.key_largest());
        assert_eq!(<i32 as Element>::ordered_value_of_key(7i32.key_largest()), 7.0);
    }

    #[test]
    fn thresholds_round_to_the_nearest_f32() {
        assert_eq!(16_777_217i32.to_f32(), 16_777_216.0);
        assert_eq!(i64::MAX.to_f32(), 9_223_372_036_854_775_807i64 as f32);
        assert_eq!(1e300f64.to_f32(), f32::INFINITY);
        assert_eq!((-3i8).to_f32(), -3.0);
        assert_eq!(<u8 as Element>::from_f32(300.0), u8::MAX);
        assert_eq!(<i16 as Element>::from_f32(2.5), 2);
        assert_eq!(<i32 as Element>::from_f32(f32::NAN), 0);
    }

    #[test]
    fn wide_ranks_and_narrow_counts() {
        let r = u64::MAX.rank(3);
        assert_eq!((r.index(), <u64 as KeyBits>::of_rank(r)), (3, u64::MAX));
        assert!(5u64.rank(3) > 5u64.rank(4) && 6u64.rank(100) > 5u64.rank(0));
        assert_eq!(<u8 as KeyBits>::of_rank(200u8.rank(9)), 200);
        let many = vec![3u8; 1000];
        assert_eq!(<u8 as KeyBits>::count_at_least(&many, 3), 1000);
        assert_eq!(<u64 as KeyBits>::count_at_least(&[1, u64::MAX, 7], 7), 2);
        let row = [-1i32, 5, -1, i32::MIN];
        let mut idx = [0, 1, 2, 3];
        sort_canonical(&row, Mode::Smallest, &mut idx);
        assert_eq!(idx, [3, 0, 2, 1]);
    }
}
