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
pub fn keys_into(row: &[f32], mode: Mode, keys: &mut [u32]) {
    debug_assert_eq!(row.len(), keys.len());
    // Two monomorphic loops so each one vectorises without a per-element mode branch.
    match mode {
        Mode::Largest => keys.iter_mut().zip(row).for_each(|(k, &v)| *k = key_largest(v)),
        Mode::Smallest => keys.iter_mut().zip(row).for_each(|(k, &v)| *k = key_smallest(v)),
    }
}

/// [`keys_into`] fused with the smallest and largest key, in one pass over the row.
#[inline]
pub fn keys_and_range_into(row: &[f32], mode: Mode, keys: &mut [u32]) -> (u32, u32) {
    debug_assert!(row.len() == keys.len() && !row.is_empty());
    fn run(row: &[f32], keys: &mut [u32], f: impl Fn(f32) -> u32) -> (u32, u32) {
        let (mut lo, mut hi) = (u32::MAX, 0);
        for (k, &v) in keys.iter_mut().zip(row) {
            *k = f(v);
            lo = lo.min(*k);
            hi = hi.max(*k);
        }
        (lo, hi)
    }
    match mode {
        Mode::Largest => run(row, keys, key_largest),
        Mode::Smallest => run(row, keys, key_smallest),
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
pub fn sort_canonical(row: &[f32], mode: Mode, indices: &mut [u32]) {
    indices.sort_unstable_by_key(|&i| std::cmp::Reverse(rank(key(row[i as usize], mode), i)));
}

/// `true` when `a` ranks strictly before `b` in the canonical order of `mode`.
#[inline]
pub fn ranks_before(a: (f32, u32), b: (f32, u32), mode: Mode) -> bool {
    rank(key(a.0, mode), a.1) > rank(key(b.0, mode), b.1)
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
}
