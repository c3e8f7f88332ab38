//! The order (the CUDA kernel's `order.cuh`): keys of values and values of keys, and the
//! midpoint, with the GPU's float semantics — every arithmetic NaN is the canonical
//! `0x7fffffff`, and `v * sign + 0.0` is exact and turns -0.0 into +0.0 (one FFMA there).
//! Thresholds come out bit-identical to topk-ref's `bisect` (docs/kernel.md, "Data and the
//! order"). A 16-bit row (docs/kernel.md, "16-bit rows") is searched on its elements' own
//! 16-bit keys, as topk-ref's `bisect` searches it: thresholds are computed in f32 as for an
//! f32 row, and a test at an f32 threshold counts the own keys `>=` the key of the least value
//! of the type `>=` it (`own_key_at_least`, `ceil16`); the key phase halves own keys.

use topk_ref::order as reference;
use topk_ref::{Element, KeyBits, Mode, bf16, f16};

use crate::engine::error::SimError;
use crate::engine::lanes::Lanes;
use crate::engine::warp::Warp;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::mutant::Mutant;

pub(crate) use rtopk_plan::ElemType;

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

/// The simulator's contract check on keys made from input values: each is docs/contract.md §1's key, the
/// element's own key in its type (topk-ref's `order::key` for f32, `Element::key` for f16 and
/// bf16), in the lanes of `valid`; `values` are the elements' bits of type `elem`. A key
/// function that ranks -0.0 below +0.0, or a NaN anywhere but its mode's end, is an
/// [`crate::engine::DiagKind::AssertFailed`] at `label`, with the lanes that saw it.
pub(crate) fn check_keys(
    w: &mut Warp<'_>,
    mode: Mode,
    elem: ElemType,
    values: &Lanes<u32>,
    keys: &Lanes<u32>,
    valid: u32,
    label: &'static str,
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let ok = values.zip(keys, |v, k| reference_key(elem, v, mode) == k);
    let saved = w.push_active_mask(valid);
    let r = w.check(&ok, label);
    w.pop_active(saved);
    r
}

/// An element's own key in `mode` by topk-ref, from its bits (the contract checks' reference,
/// apart from the kernel's own key functions). An integer's is topk-ref's key in its own
/// width plus [`int_shift`]: the kernel's integer keys are topk-ref's shifted. A 64-bit
/// element has no 32-bit key and is never asked here (its rows run the wide rows alone, which
/// check their 64-bit keys themselves, `wide.rs`): 0 stands in.
pub(crate) fn reference_key(elem: ElemType, bits: u32, mode: Mode) -> u32 {
    fn shifted<E: Element>(e: E, mode: Mode) -> u32 {
        e.key(mode).to_u32().wrapping_add(int_shift::<E>(mode))
    }
    match elem {
        ElemType::F32 => reference::key(f32::from_bits(bits), mode),
        ElemType::F16 => f16::from_bits(bits as u16).key(mode).to_u32(),
        ElemType::Bf16 => bf16::from_bits(bits as u16).key(mode).to_u32(),
        ElemType::I8 => shifted(bits as u8 as i8, mode),
        ElemType::U8 => shifted(bits as u8, mode),
        ElemType::I16 => shifted(bits as u16 as i16, mode),
        ElemType::I32 => shifted(bits as i32, mode),
        ElemType::F64 | ElemType::I64 => 0,
    }
}

/// What the kernel's key of an integer of type `E` adds to topk-ref's key in `E`'s width: the
/// difference at zero (`int_key(0)` is `0x80000000` largest, `0x7fffffff` smallest).
fn int_shift<E: Element>(mode: Mode) -> u32 {
    let zero_key = if mode == Mode::Largest { 0x8000_0000u32 } else { 0x7fff_ffff };
    zero_key.wrapping_sub(E::from_bits(E::Key::from_u32(0)).key(mode).to_u32())
}

/// The element type of `E` (topk-ref's sealed nine: f32, f16, bf16, i8, u8, i16, i32, and the
/// 64-bit f64 and i64 that the wide rows take); `None` for another.
pub(crate) fn elem_type_of<E: Element>() -> Option<ElemType> {
    Some(match E::NAME {
        "f32" => ElemType::F32,
        "f16" => ElemType::F16,
        "bf16" => ElemType::Bf16,
        "i8" => ElemType::I8,
        "u8" => ElemType::U8,
        "i16" => ElemType::I16,
        "i32" => ElemType::I32,
        "f64" => ElemType::F64,
        "i64" => ElemType::I64,
        _ => return None,
    })
}

/// [`elem_type_of`], or an error naming the type the kernel does not take.
pub(crate) fn elem_type<E: Element>() -> Result<ElemType, SimError> {
    elem_type_of::<E>().ok_or_else(|| {
        SimError::InvalidLaunch(format!(
            "the kernel takes f32, f16, bf16, i8, u8, i16, i32, f64 and i64 rows, not {}",
            E::NAME
        ))
    })
}

// ---- Integer rows (docs/kernel.md, "Integer rows") ------------------------------------------

/// The integer an element's bits (topk-ref's `to_bits`, zero-extended) stand for, widened to
/// `i32` (the kernel's `(int)v`).
#[inline(always)]
pub(crate) fn int_value(elem: ElemType, word: u32) -> i32 {
    match elem {
        ElemType::I8 => i32::from(word as u8 as i8),
        ElemType::U8 => i32::from(word as u8),
        ElemType::I16 => i32::from(word as u16 as i16),
        _ => word as i32,
    }
}

/// The bits of integer `v` of type `elem` (the kernel's `(elem_t)v`, as topk-ref's `to_bits`).
#[inline(always)]
pub(crate) fn int_word(elem: ElemType, v: i32) -> u32 {
    match elem {
        ElemType::I8 | ElemType::U8 => u32::from(v as u8),
        ElemType::I16 => u32::from(v as u16),
        _ => v as u32,
    }
}

/// `int_key`: an integer's own key, its value with the sign bit flipped, complemented in
/// smallest mode (the value shifted to start at 0).
#[inline(always)]
pub(crate) fn int_key(v: i32, sign: f32) -> u32 {
    let key = (v as u32) ^ 0x8000_0000;
    if sign < 0.0 { !key } else { key }
}

/// `int_of_key`: [`int_key`]'s inverse.
#[inline(always)]
pub(crate) fn int_of_key(key: u32, sign: f32) -> i32 {
    ((if sign < 0.0 { !key } else { key }) ^ 0x8000_0000) as i32
}

/// `int_hint_key`: the key of the least integer `>= hint` (largest mode) or the greatest
/// `<= hint` (smallest mode); 0 (a key no hint test takes) where that integer is beyond
/// `i32`'s range.
#[inline(always)]
pub(crate) fn int_hint_key(hint: f32, sign: f32) -> u32 {
    let v = if sign > 0.0 { hint.ceil() } else { hint.floor() };
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
        return 0;
    }
    int_key(v as i32, sign)
}

/// `hint_key`: the key the hint test tests `hint` at — on a float row the own key at least
/// its ordered value (`hint * sign`, exact), on an integer row [`int_hint_key`].
#[inline(always)]
pub(crate) fn hint_key(a: &KernelArgs, elem: ElemType, hint: f32, sign: f32) -> u32 {
    if elem.integer() { int_hint_key(hint, sign) } else { own_key_at_least(a, elem, hint * sign) }
}

/// The simulator's contract check on an integer row's hint test at key `t` over the bracket
/// `(lo, hi]`: the test is taken (`lo < t <= hi`) exactly where topk-ref's `Element::hint_key`
/// takes it, and then at the same key (topk-ref's plus [`int_shift`]).
pub(crate) fn check_int_hint_key(
    w: &mut Warp<'_>,
    (elem, mode): (ElemType, Mode),
    hint: f32,
    t: u32,
    (lo, hi): (u32, u32),
) -> Result<(), SimError> {
    fn want<E: Element>(hint: f32, mode: Mode) -> Option<u32> {
        E::hint_key(hint, mode).map(|k| k.to_u32().wrapping_add(int_shift::<E>(mode)))
    }
    if !w.checks() {
        return Ok(());
    }
    let reference = match elem {
        ElemType::I8 => want::<i8>(hint, mode),
        ElemType::U8 => want::<u8>(hint, mode),
        ElemType::I16 => want::<i16>(hint, mode),
        _ => want::<i32>(hint, mode),
    };
    let taken = |t: u32| lo < t && t <= hi;
    let ok = match reference {
        Some(r) => taken(r) == taken(t) && (!taken(t) || r == t),
        None => !taken(t),
    };
    w.check_that(ok, "hint_test: int_hint_key is topk-ref's hint_key")
}

/// `NEG_INF16`: the ordered -inf of a 16-bit type, the padding of a packed row's slots past M.
#[inline(always)]
pub(crate) fn neg_inf16(elem: ElemType) -> u32 {
    if elem == ElemType::Bf16 { 0xff80 } else { 0xfc00 }
}

/// `KEY16_NEG_INF`: the own key of -inf; every threshold at or below it counts every number.
#[inline(always)]
pub(crate) fn key16_neg_inf(elem: ElemType) -> u32 {
    if elem == ElemType::Bf16 { 0x007f } else { 0x03ff }
}

/// `KEY16_POS_INF`: the own key of +inf; only NaN keys (largest mode) lie above it.
#[inline(always)]
pub(crate) fn key16_pos_inf(elem: ElemType) -> u32 {
    if elem == ElemType::Bf16 { 0xff80 } else { 0xfc00 }
}

/// `float_of16`: the exact f32 value of 16 bits of a 16-bit type (bf16: the top half of an f32;
/// f16: the conversion, exact).
#[inline(always)]
pub(crate) fn float_of16(elem: ElemType, bits: u32) -> f32 {
    if elem == ElemType::Bf16 {
        f32::from_bits(bits << 16)
    } else {
        f16::from_bits(bits as u16).to_f32()
    }
}

/// `is_nan16`: whether 16 bits of the type are a NaN (either sign, any payload).
#[inline(always)]
pub(crate) fn is_nan16(elem: ElemType, bits: u32) -> bool {
    (bits & 0x7fff) > (neg_inf16(elem) & 0x7fff)
}

/// `key16_of_ordered`: the own key of ordered 16 bits (the input's, sign bit flipped in
/// smallest mode): the 16-bit `flip_key`, NaN at its mode's end, -0.0 with +0.0.
#[inline(always)]
pub(crate) fn key16_of_ordered(elem: ElemType, ordered: u32, largest: bool) -> u32 {
    if is_nan16(elem, ordered) {
        return if largest { 0xffff } else { 0 };
    }
    key16_of_number(ordered)
}

/// `key16_of_number`: the own key of a number's ordered 16 bits (not NaN),
/// [`key16_of_ordered`] without its NaN case.
#[inline(always)]
pub(crate) fn key16_of_number(ordered: u32) -> u32 {
    if ordered & 0x7fff == 0 {
        return 0x8000;
    }
    ordered ^ if ordered & 0x8000 != 0 { 0xffff } else { 0x8000 }
}

/// `ordered_of_key16`: the ordered 16 bits of an own key (zero as +0.0).
#[inline(always)]
pub(crate) fn ordered_of_key16(key: u32) -> u32 {
    if key & 0x8000 != 0 { key & 0x7fff } else { !key & 0xffff }
}

/// `own_key`: an element's own key from its bits — its f32 key (`order_key`), its 16-bit key
/// (topk-ref's `Element::key`; docs/kernel.md, "16-bit rows"), or its integer key
/// ([`int_key`]; "Integer rows").
#[inline(always)]
pub(crate) fn own_key(a: &KernelArgs, elem: ElemType, word: u32, sign: f32) -> u32 {
    match elem {
        ElemType::F32 => order_key(a, f32::from_bits(word), sign),
        _ if elem.integer() => int_key(int_value(elem, word), sign),
        _ => key16_of_ordered(elem, word ^ if sign < 0.0 { 0x8000 } else { 0 }, sign > 0.0),
    }
}

/// The next 16-bit value above the (non-NaN, not +inf) one with bits `bits`.
#[inline(always)]
fn next_up16(bits: u32) -> u32 {
    if bits & 0x7fff == 0 {
        1 // either zero: the least positive subnormal
    } else if bits & 0x8000 == 0 {
        bits + 1
    } else {
        bits - 1
    }
}

/// `ceil16`: the least 16-bit value `>= t` (t not NaN; +inf above the largest finite value):
/// the conversion rounding toward +inf (f16: `cvt.rp.f16.f32`; bf16: the top 16 bits of the
/// f32, which rounds toward zero — up for a negative t — plus one for a positive t with low
/// bits set).
#[inline(always)]
pub(crate) fn ceil16(elem: ElemType, t: f32) -> u32 {
    if elem == ElemType::Bf16 {
        let b = t.to_bits();
        return (b >> 16) + u32::from(b & 0x8000_0000 == 0 && b & 0xffff != 0);
    }
    let r = u32::from(f16::from_f32(t).to_bits());
    if float_of16(elem, r) < t { next_up16(r) } else { r }
}

/// The 16-bit value nearest `t` (ties to even): [`Mutant::Ceil16Nearest`]'s rounding.
#[inline(always)]
fn nearest16(elem: ElemType, t: f32) -> u32 {
    if elem == ElemType::Bf16 {
        u32::from(bf16::from_f32(t).to_bits())
    } else {
        u32::from(f16::from_f32(t).to_bits())
    }
}

/// `own_key_at_least`: the own key of the least value of the row's type `>= thres` (a finite
/// ordered value), the key a test at `thres` counts from (topk-ref's `Element::key_at_least`):
/// `number_key(thres)` for f32, the 16-bit key of `ceil16(thres)` for a 16-bit type.
#[inline(always)]
pub(crate) fn own_key_at_least(a: &KernelArgs, elem: ElemType, thres: f32) -> u32 {
    match elem {
        ElemType::F32 => number_key(thres),
        _ => key16_of_number(value_at_least(a, elem, thres)),
    }
}

/// The least value of a 16-bit type `>= thres` (not NaN), as its ordered bits: `ceil16(thres)`,
/// the value a 16-bit row's value-phase test compares with (whose own key
/// [`own_key_at_least`] is).
#[inline(always)]
pub(crate) fn value_at_least(a: &KernelArgs, elem: ElemType, thres: f32) -> u32 {
    // BUG (Ceil16Nearest): thres rounded to nearest, which may lie below it.
    if a.has(Mutant::Ceil16Nearest) { nearest16(elem, thres) } else { ceil16(elem, thres) }
}

/// `ordered_value_of_own_key`: the ordered value of an own key of a float row (zero as +0.0;
/// NaN for a NaN key). An integer row has none (no value phase): NaN, never asked.
#[inline(always)]
pub(crate) fn ordered_value_of_own_key(elem: ElemType, key: u32) -> f32 {
    match elem {
        ElemType::F32 => ordered_value_of_key(key),
        _ if elem.integer() => f32::NAN,
        _ => float_of16(elem, ordered_of_key16(key)),
    }
}

/// The simulator's contract check on a value-phase test: the own key it counts from is
/// topk-ref's `Element::key_at_least` of the f32 threshold (what `bisect` counts there).
pub(crate) fn check_key_at_least(
    w: &mut Warp<'_>,
    elem: ElemType,
    thres: f32,
    t: u32,
    label: &'static str,
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let want = match elem {
        ElemType::F16 => u32::from(<f16 as Element>::key_at_least(thres)),
        ElemType::Bf16 => u32::from(<bf16 as Element>::key_at_least(thres)),
        // f32 (integer rows make no value-space test)
        _ => <f32 as Element>::key_at_least(thres),
    };
    w.check_that(t == want, label)
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Element, KeyBits, Mode, bf16, f16};

    use super::*;

    fn args(mutant: Option<Mutant>) -> KernelArgs {
        KernelArgs { n: 1, m: 1, k: 1, mode: Mode::Largest, bisect: Bisect::exact(), mutant }
    }

    /// Thresholds around every value of `E` (the value and its f32 neighbours), the specials
    /// and random f32 numbers.
    fn thresholds<E: Element>() -> Vec<f32> {
        let mut out = vec![0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -f32::MAX];
        out.extend([1e-45, -1e-45, 1e-30, -1e-30, 65_519.0, 65_520.0, -65_519.0, -65_520.0]);
        for b in 0..=u16::MAX {
            let v = E::from_bits(E::Key::from_u32(u32::from(b))).to_f32();
            if v.is_finite() {
                out.extend([v, v.next_up(), v.next_down()]);
            }
        }
        let mut s = 7u64;
        out.extend((0..20_000).filter_map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            Some(f32::from_bits((s >> 32) as u32)).filter(|v| !v.is_nan())
        }));
        out
    }

    /// `ceil16` is the least value of the type `>= t`, and `own_key_at_least` is topk-ref's
    /// `Element::key_at_least`, at every threshold of [`thresholds`].
    fn thresholds_key_as_bisect_counts<E: Element>(elem: ElemType) {
        let a = args(None);
        for t in thresholds::<E>() {
            let c = ceil16(elem, t);
            assert!(float_of16(elem, c) >= t, "{} {t}: {c:#06x} below", E::NAME);
            let k = own_key_at_least(&a, elem, t);
            assert_eq!(
                k,
                E::key_at_least(t).to_u32(),
                "{} {t:e} {:#x} c={c:#x}",
                E::NAME,
                t.to_bits()
            );
        }
    }

    #[test]
    fn ceil16_rounds_toward_plus_infinity_for_both_signs() {
        thresholds_key_as_bisect_counts::<f16>(ElemType::F16);
        thresholds_key_as_bisect_counts::<bf16>(ElemType::Bf16);
        assert_eq!(own_key_at_least(&args(None), ElemType::F32, 1.5), number_key(1.5));
        // bf16 keeps the top 16 bits of a negative t: its magnitude truncated, so rounded up.
        assert_eq!(ceil16(ElemType::Bf16, f32::from_bits(0xbf80_0001)), 0xbf80); // -1.0
        assert_eq!(ceil16(ElemType::Bf16, 1.0f32.next_up()), 0x3f81);
        assert_eq!(ceil16(ElemType::F16, 65_504.5), 0x7c00); // above the largest: +inf
        assert_eq!(ceil16(ElemType::F16, -1e9), 0xfbff); // -65504, not -inf
        assert_eq!(ceil16(ElemType::F16, 1e-9), 0x0001); // the least subnormal
        // ceil16-nearest rounds 1e-9 to +0: a threshold below it, counting the zeros.
        let bug = args(Some(Mutant::Ceil16Nearest));
        assert_eq!(own_key_at_least(&bug, ElemType::F16, 1e-9), 0x8000);
    }

    /// Every pattern's own key (`own_key`, `key16_of_ordered`) is topk-ref's in both modes,
    /// and every key's ordered value is topk-ref's (NaN for the NaN keys).
    fn own_keys_are_topk_refs<E: Element>(elem: ElemType) {
        let a = args(None);
        for b in 0..=u16::MAX {
            let e = E::from_bits(E::Key::from_u32(u32::from(b)));
            for (mode, sign) in [(Mode::Largest, 1.0), (Mode::Smallest, -1.0)] {
                let want = e.key(mode).to_u32();
                assert_eq!(own_key(&a, elem, u32::from(b), sign), want, "{} {b:#06x}", E::NAME);
                assert_eq!(reference_key(elem, u32::from(b), mode), want);
            }
            let key = u32::from(b);
            let (got, want) =
                (ordered_value_of_own_key(elem, key), E::ordered_value_of_key(e.to_bits()));
            assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "{key:#06x}");
            let ordered = ordered_of_key16(key);
            if key != 0x7fff && !is_nan16(elem, ordered) {
                assert_eq!(key16_of_ordered(elem, ordered, true), key);
            }
        }
    }

    #[test]
    fn own_keys_and_their_values_are_topk_refs() {
        own_keys_are_topk_refs::<f16>(ElemType::F16);
        own_keys_are_topk_refs::<bf16>(ElemType::Bf16);
        for elem in [ElemType::F16, ElemType::Bf16] {
            let (neg, pos) = (neg_inf16(elem), neg_inf16(elem) & 0x7fff);
            assert_eq!(key16_of_ordered(elem, neg, true), key16_neg_inf(elem));
            assert_eq!(key16_of_ordered(elem, pos, true), key16_pos_inf(elem));
            assert!(is_nan16(elem, pos + 1) && !is_nan16(elem, pos) && !is_nan16(elem, neg));
        }
        assert_eq!(elem_type_of::<f32>(), Some(ElemType::F32));
        assert_eq!(
            (elem_type_of::<f16>(), elem_type_of::<i8>()),
            (Some(ElemType::F16), Some(ElemType::I8))
        );
        assert_eq!(
            (elem_type_of::<f64>(), elem_type_of::<i64>()),
            (Some(ElemType::F64), Some(ElemType::I64))
        );
    }
}
