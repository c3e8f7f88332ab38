//! The one place that owns the order of SPEC §1.
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
//! Rows hold one of three float types ([`Element`]): `f32`, `half::f16` (IEEE binary16) and
//! `half::bf16` (bfloat16). SPEC §1 orders every element by its exact `f32` value (f16 and bf16
//! convert to f32 exactly), so one order serves all three. Each type has its own **key**, as
//! wide as the type ([`Element::Key`]: `u32` for f32, `u16` for the 16-bit types), computed
//! from the element's bits by the same sign-flip transform; the keys of a 16-bit type are
//! order-isomorphic to the `f32` keys of the same values ([`key`] of [`Element::to_f32`]), so
//! an algorithm that works on keys gives the same answer on either. Radix-style algorithms
//! read the key width off [`KeyBits::BITS`]: a 16-bit key has half the digits.
//!
//! Value-space searches (bisect, bucket) do their arithmetic in `f32` on *ordered values*
//! for every type; [`Element::ordered_value_of_key`] and [`Element::key_at_least`] connect
//! an `f32` threshold with the narrow keys.

use std::fmt::Debug;
use std::hash::Hash;

use half::{bf16, f16};

use crate::algorithm::{KeyBuffers, RowSelect, RowTopKOf, Scratch};

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

/// The key of `v` in `mode`: larger key = ranks higher in that mode (SPEC §1).
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

/// Sorts selected `indices` of `row` into the canonical order (SPEC §1, `--sorted`): key
/// descending in `mode`, ties by ascending index.
pub fn sort_canonical<E: Element>(row: &[E], mode: Mode, indices: &mut [u32]) {
    indices
        .sort_unstable_by_key(|&i| std::cmp::Reverse(rank(row[i as usize].key(mode).to_u32(), i)));
}

/// `true` when `a` ranks strictly before `b` in the canonical order of `mode`.
#[inline]
pub fn ranks_before<E: Element>(a: (E, u32), b: (E, u32), mode: Mode) -> bool {
    rank(a.0.key(mode).to_u32(), a.1) > rank(b.0.key(mode).to_u32(), b.1)
}

mod sealed {
    /// Only the types below implement [`super::Element`] and [`super::KeyBits`]: their keys
    /// are what the algorithms' structure (digit counts, key-space bounds) is built on.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for u32 {}
    impl Sealed for u16 {}
}

/// The unsigned integer type of an element's order key: `u32` for `f32`, `u16` for `f16` and
/// `bf16`. Arithmetic on keys (midpoints, digits, spans) is done on [`KeyBits::to_u32`], which
/// is free for `u32` and exact for `u16`.
pub trait KeyBits:
    Copy + Ord + Default + Hash + Debug + Send + Sync + 'static + sealed::Sealed
{
    /// Bits in the key: the number of binary digits a radix-style algorithm has to settle.
    const BITS: u32;
    /// The largest key (every NaN in [`Mode::Largest`]).
    const MAX: Self;
    /// The key of both zeros: the top bit alone.
    const ZERO: Self;

    /// The key as a `u32` (zero-extended).
    fn to_u32(self) -> u32;

    /// The key whose [`KeyBits::to_u32`] is `x`; `x` must be at most `MAX` (higher bits are
    /// dropped).
    fn from_u32(x: u32) -> Self;

    /// This width's key buffers in `scratch`.
    fn buffers(scratch: &mut Scratch) -> &mut KeyBuffers<Self>;

    /// `|{i : keys[i] >= t}|` — the counting pass of a bisection test, vectorised for this
    /// width.
    fn count_at_least(keys: &[Self], t: Self) -> usize;
}

impl KeyBits for u32 {
    const BITS: u32 = 32;
    const MAX: Self = u32::MAX;
    const ZERO: Self = KEY_ZERO;

    #[inline(always)]
    fn to_u32(self) -> u32 {
        self
    }

    #[inline(always)]
    fn from_u32(x: u32) -> Self {
        x
    }

    #[inline(always)]
    fn buffers(scratch: &mut Scratch) -> &mut KeyBuffers<Self> {
        &mut scratch.keys32
    }

    #[inline]
    fn count_at_least(keys: &[Self], t: Self) -> usize {
        // u32 lanes and a fixed-width accumulator let LLVM vectorise the compare-and-add.
        keys.iter().map(|&x| u32::from(x >= t)).sum::<u32>() as usize
    }
}

/// Keys counted into one 16-bit accumulator before it is added to the total: at most
/// `u16::MAX` of them, so it cannot overflow.
const COUNT_BLOCK_16: usize = 1 << 15;

impl KeyBits for u16 {
    const BITS: u32 = 16;
    const MAX: Self = u16::MAX;
    const ZERO: Self = SIGN16;

    #[inline(always)]
    fn to_u32(self) -> u32 {
        u32::from(self)
    }

    #[inline(always)]
    fn from_u32(x: u32) -> Self {
        x as u16
    }

    #[inline(always)]
    fn buffers(scratch: &mut Scratch) -> &mut KeyBuffers<Self> {
        &mut scratch.keys16
    }

    #[inline]
    fn count_at_least(keys: &[Self], t: Self) -> usize {
        // 16-bit lanes count twice as many keys per vector as u32 lanes; blocks of 2^15 keep
        // each 16-bit sum from overflowing.
        keys.chunks(COUNT_BLOCK_16)
            .map(|block| usize::from(block.iter().map(|&x| u16::from(x >= t)).sum::<u16>()))
            .sum()
    }
}

/// One element type of a row: `f32`, `half::f16` or `half::bf16` (SPEC §1).
///
/// Everything an algorithm needs to know about the type goes through this trait, so each
/// algorithm is written once and monomorphised per type. The order is that of the element's
/// exact `f32` value ([`Element::to_f32`]); [`Element::key`] is the type's own, narrower key
/// for that order (the same transform as [`key`], on the type's bits).
pub trait Element: Copy + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// The order key: `u32` for `f32`, `u16` for the 16-bit types.
    type Key: KeyBits;

    /// The type's name in messages and result files: `"f32"`, `"f16"` or `"bf16"`.
    const NAME: &'static str;

    /// The exact `f32` value (every f16 and bf16 value is an f32 value; NaN stays NaN).
    fn to_f32(self) -> f32;

    /// `v` rounded to the nearest value of this type (ties to even; exact for `f32`).
    fn from_f32(v: f32) -> Self;

    /// The bit pattern, in the key's integer type.
    fn to_bits(self) -> Self::Key;

    /// The element with bit pattern `bits`.
    fn from_bits(bits: Self::Key) -> Self;

    /// The key in [`Mode::Largest`]: larger key = ranks higher; one key for every NaN (the
    /// largest) and one for both zeros.
    fn key_largest(self) -> Self::Key;

    /// The key in [`Mode::Smallest`]: the largest-mode key of the negated value, every NaN at
    /// key 0.
    fn key_smallest(self) -> Self::Key;

    /// The key of `self` in `mode` (SPEC §1).
    #[inline(always)]
    fn key(self, mode: Mode) -> Self::Key {
        match mode {
            Mode::Largest => self.key_largest(),
            Mode::Smallest => self.key_smallest(),
        }
    }

    /// The ordered value (see [`ordered_value`]) that `key` stands for, as an exact `f32`:
    /// the inverse of the key transform on numbers (zero comes back as `+0.0`); NaN for a key
    /// that is not a number's (both NaN keys among them).
    fn ordered_value_of_key(key: Self::Key) -> f32;

    /// The key of the smallest value of this type (in largest orientation) that is `>= t`,
    /// for an ordered value `t` that is not NaN — the key a threshold `t` becomes when it is
    /// compared with this type's keys: `{e : f32 key of e >= key_of_ordered(t)}` equals
    /// `{e : key of e >= key_at_least(t)}` for every element `e` of the type. For `f32` it is
    /// [`key_of_ordered`] itself. (A NaN `t` gives the largest key.)
    fn key_at_least(t: f32) -> Self::Key;

    /// `algo` as a boxed trait object for rows of this type. Every [`RowSelect`] is a
    /// [`RowTopKOf`] of each element type, but code generic over `E` cannot name that impl;
    /// this (and [`Element::as_dyn`]) does, e.g. `topk_rows(E::as_dyn(&Bisect::exact()), x, ..)`.
    fn boxed<A: RowSelect + 'static>(algo: A) -> Box<dyn RowTopKOf<Self>>;

    /// `algo` as a borrowed trait object for rows of this type (see [`Element::boxed`]).
    fn as_dyn<'a, A: RowSelect + 'a>(algo: &'a A) -> &'a (dyn RowTopKOf<Self> + 'a);
}

impl Element for f32 {
    type Key = u32;
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
            fn ordered_value_of_key(key: u16) -> f32 {
                <$t>::from_bits(bits_of_key16(key)).to_f32()
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
}
