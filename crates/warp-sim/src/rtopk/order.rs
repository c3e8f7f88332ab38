//! The order (the CUDA kernel's `order.cuh`): keys of values and values of keys, and the
//! midpoint, with the GPU's float semantics — every arithmetic NaN is the canonical
//! `0x7fffffff`, and `v * sign + 0.0` is exact and turns -0.0 into +0.0 (one FFMA there).
//! Thresholds come out bit-identical to topk-ref's `bisect` (docs/kernel.md, "Data and the
//! order").

use topk_ref::Mode;
use topk_ref::order as reference;

use crate::engine::error::SimError;
use crate::engine::lanes::Lanes;
use crate::engine::warp::Warp;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::mutant::Mutant;

/// The key of +-0.0.
pub(crate) const KEY_ZERO: u32 = 0x8000_0000;

/// A float result as the GPU returns it: NaN is the canonical `0x7fffffff`.
#[inline(always)]
pub(crate) fn gpu(v: f32) -> f32 {
    if v.is_nan() { f32::from_bits(0x7fff_ffff) } else { v }
}

/// `flip_key`: the order key of a non-NaN value whose -0.0 has already become +0.0.
#[inline(always)]
pub(crate) fn flip_key(v: f32) -> u32 {
    let bits = v.to_bits();
    bits ^ (((bits as i32 >> 31) as u32) | 0x8000_0000)
}

/// `number_key`: docs/kernel.md's `key_of_ordered` for thresholds (never NaN).
#[inline(always)]
pub(crate) fn number_key(v: f32) -> u32 {
    flip_key(gpu(v + 0.0))
}

/// `order_key(v, sign)`: `flip_key(fma(v, sign, 0.0))`, NaN to the mode's NaN key. With
/// [`Mutant::NegativeZeroKey`], `v * sign` without the `+ 0.0` that merges -0.0 into +0.0.
#[inline(always)]
pub(crate) fn order_key(a: &KernelArgs, v: f32, sign: f32) -> u32 {
    if v.is_nan() {
        return if sign < 0.0 { 0 } else { u32::MAX };
    }
    if a.has(Mutant::NegativeZeroKey) {
        return flip_key(gpu(v * sign)); // BUG: -0.0 keeps its own key
    }
    flip_key(gpu(v * sign + 0.0))
}

/// The largest-mode key of a value inside the row, without the NaN test: the GPU's
/// `v * 1 + 0` of any NaN is the canonical NaN, whose key is the NaN key `0xffffffff`.
#[inline(always)]
pub(crate) fn order_key_largest(a: &KernelArgs, v: f32) -> u32 {
    if a.has(Mutant::NegativeZeroKey) {
        return flip_key(gpu(v * 1.0));
    }
    flip_key(gpu(v * 1.0 + 0.0))
}

/// `ordered_value_of_key`.
#[inline(always)]
pub(crate) fn ordered_value_of_key(key: u32) -> f32 {
    reference::ordered_value_of_key(key)
}

/// `key_keeps_bits`: whether a key determines its value's bits (all but +-0.0 and NaN).
#[inline(always)]
pub(crate) fn key_keeps_bits(key: u32) -> bool {
    key != KEY_ZERO && key != 0 && key != u32::MAX
}

/// `value_of_key`: the input value of an element from its key (where it keeps the bits).
#[inline(always)]
pub(crate) fn value_of_key(key: u32, sign: f32) -> f32 {
    gpu(ordered_value_of_key(key) * sign)
}

/// `midpoint`: `(lo + hi) * 0.5`, or `lo * 0.5 + hi * 0.5` when the sum overflows.
#[inline(always)]
pub(crate) fn midpoint(lo: f32, hi: f32) -> f32 {
    topk_ref::bisect::midpoint(lo, hi)
}

/// The simulator's contract check on keys made from input values: each is SPEC §1's key
/// (topk-ref's `order::key`), in the lanes of `valid`. A key function that ranks -0.0 below
/// +0.0, or a NaN anywhere but its mode's end, is an [`crate::engine::DiagKind::AssertFailed`]
/// at `label`, with the lanes that saw it.
pub(crate) fn check_keys(
    w: &mut Warp<'_>,
    mode: Mode,
    values: &Lanes<u32>,
    keys: &Lanes<u32>,
    valid: u32,
    label: &'static str,
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let ok = values.zip(keys, |v, k| reference::key(f32::from_bits(v), mode) == k);
    let saved = w.push_active_mask(valid);
    let r = w.check(&ok, label);
    w.pop_active(saved);
    r
}
