// The order of docs/kernel.md, "Data and the order" (topk-ref/src/order.rs).
#pragma once

#include "common.cuh"

// The order key of a non-NaN value whose -0.0 has already become +0.0.
__device__ __forceinline__ u32 flip_key(float v) {
    u32 bits = __float_as_uint(v);
    return bits ^ (((u32)((int)bits >> 31)) | 0x80000000u);
}

// docs/kernel.md's key_of_ordered for the thresholds, which are never NaN.
__device__ __forceinline__ u32 number_key(float v) {
    return flip_key(__fadd_rn(v, 0.0f));  // -0.0 + 0.0 = +0.0: -0.0 joins +0.0
}

// sign = -1 in smallest mode, +1 in largest: v * sign + 0.0 is exact (one rounding of an exact
// product) and turns -0.0 into +0.0, so the ordered value and its key come from one FFMA.
__device__ __forceinline__ u32 order_key(float v, float sign) {
    u32 key = flip_key(__fmaf_rn(v, sign, 0.0f));
    return isnan(v) ? (sign < 0.0f ? 0u : 0xffffffffu) : key;
}

__device__ __forceinline__ float ordered_value_of_key(u32 key) {
    u32 bits = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
    return __uint_as_float(bits);
}

// The input value of an element from its key, where the key determines its bits: everywhere
// but +-0.0 (one key) and NaN (payloads), which the caller re-reads from the input.
__device__ __forceinline__ bool key_keeps_bits(u32 key) {
    return key != KEY_ZERO && key != 0u && key != 0xffffffffu;
}

__device__ __forceinline__ float value_of_key(u32 key, float sign) {
    return __fmul_rn(ordered_value_of_key(key), sign);
}

// topk-ref bisect::midpoint: (lo + hi) * 0.5, or lo * 0.5 + hi * 0.5 when the sum overflows.
__device__ __forceinline__ float midpoint(float lo, float hi) {
    float m = __fmul_rn(__fadd_rn(lo, hi), 0.5f);
    if (isfinite(m)) return m;
    return __fadd_rn(__fmul_rn(lo, 0.5f), __fmul_rn(hi, 0.5f));
}

// ---- 16-bit elements (docs/kernel.md, "16-bit rows") ---------------------------------------
// A 16-bit row is searched on its elements' own 16-bit keys (topk-ref's bisect): thresholds are
// computed in f32 as for an f32 row, and a test at an f32 threshold counts the own keys >= the
// key of the least value of the type >= it (own_key_at_least); the key phase halves own keys.

// The exact f32 value of 16 bits of the unit's 16-bit type.
__device__ __forceinline__ float float_of16(u32 bits) {
#if ELEM_KIND == ELEM_BF16
    return __uint_as_float(bits << 16);
#else
    float f;
    unsigned short h = (unsigned short)bits;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#endif
}

// Ordered -inf, the padding of a 16-bit row's slots past M; the own keys of -inf and +inf.
#define NEG_INF16 (ELEM_KIND == ELEM_BF16 ? 0xff80u : 0xfc00u)
#define KEY16_NEG_INF (ELEM_KIND == ELEM_BF16 ? 0x007fu : 0x03ffu)
#define KEY16_POS_INF (ELEM_KIND == ELEM_BF16 ? 0xff80u : 0xfc00u)

__device__ __forceinline__ bool is_nan16(u32 bits) {
    return (bits & 0x7fffu) > (NEG_INF16 & 0x7fffu);
}

// The own key of a number's ordered 16 bits (not NaN): key16_of_ordered without its NaN case
// (an f16 row's value phase; key16_of_ordered keeps its own body, so that the units of the
// other types compile as they did).
__device__ __forceinline__ u32 key16_of_number(u32 ordered) {
    u32 negative = (u32)((int)(ordered << 16) >> 31) & 0x7fffu;  // 0x7fff for a negative value
    u32 key = (ordered ^ (negative | 0x8000u)) & 0xffffu;
    return (ordered & 0x7fffu) == 0u ? 0x8000u : key;
}

// The own key of a slot's ordered 16 bits (the input's, sign bit flipped in smallest mode):
// the 16-bit flip_key, NaN at its mode's end, -0.0 with +0.0.
// Written with selects, not branches: it runs per slot in the narrowing and the load.
__device__ __forceinline__ u32 key16_of_ordered(u32 ordered, bool largest) {
    u32 negative = (u32)((int)(ordered << 16) >> 31) & 0x7fffu;  // 0x7fff for a negative value
    u32 key = (ordered ^ (negative | 0x8000u)) & 0xffffu;
    key = (ordered & 0x7fffu) == 0u ? 0x8000u : key;
    return is_nan16(ordered) ? (largest ? 0xffffu : 0u) : key;
}

// The ordered 16 bits of an own key (zero as +0.0).
__device__ __forceinline__ u32 ordered_of_key16(u32 key) {
    u32 negative = (u32)((int)(key << 16) >> 31) ^ 0xffffffffu;  // all ones below 0x8000
    return (key ^ (negative | 0x8000u)) & 0xffffu;
}

// ---- Integer rows (docs/kernel.md, "Integer rows") ------------------------------------------
// An integer's own key is its value with the sign bit flipped, complemented in smallest mode:
// the value shifted to start at 0 (each integer type's key, topk-ref's, plus a constant), so
// that halving keys halves the value range and the key phase's tests are topk-ref's.

// The key of an integer value widened to int.
__device__ __forceinline__ u32 int_key(int v, float sign) {
    u32 key = (u32)v ^ 0x80000000u;
    return sign < 0.0f ? ~key : key;
}

// The integer whose key is `key`: int_key's inverse.
__device__ __forceinline__ int int_of_key(u32 key, float sign) {
    return (int)((sign < 0.0f ? ~key : key) ^ 0x80000000u);
}

// The key a hint (an f32 in the input's orientation) is tested at on an integer row: the key of
// the least integer >= hint (largest mode) or the greatest <= hint (smallest mode), topk-ref's
// Element::hint_key; 0 (a key no test takes: hint_test skips t <= lo_key) where that integer is
// beyond int's range (beyond the row's type's range it is beyond the row's keys, which skips
// the test as topk-ref's saturated key does).
__device__ __forceinline__ u32 int_hint_key(float hint, float sign) {
    float v = sign > 0.0f ? ceilf(hint) : floorf(hint);
    if (!(v >= -2147483648.0f && v < 2147483648.0f)) return 0u;
    return int_key((int)v, sign);
}

// An element's own key: its f32 key, its 16-bit key, or its integer key.
__device__ __forceinline__ u32 own_key(elem_t v, float sign) {
#if ELEM_KIND == ELEM_F32
    return order_key(v, sign);
#elif ELEM_INTEGER
    return int_key((int)v, sign);
#else
    return key16_of_ordered((u32)v ^ (sign < 0.0f ? 0x8000u : 0u), sign > 0.0f);
#endif
}

// The least 16-bit value >= T (T not NaN; +inf above the type's largest finite value).
__device__ __forceinline__ u32 ceil16(float T) {
#if ELEM_KIND == ELEM_BF16
    // dropping the low bits rounds toward zero: up for a negative T, down for a positive one
    u32 b = __float_as_uint(T);
    return (b >> 16) + ((b & 0x80000000u) == 0u && (b & 0xffffu) != 0u ? 1u : 0u);
#else
    unsigned short h;
    asm("cvt.rp.f16.f32 %0, %1;" : "=h"(h) : "f"(T));
    return h;
#endif
}

// The own key of the least value of the row's type >= thres (a finite ordered value): the
// key a test at thres counts from (topk-ref's Element::key_at_least). Float rows only: an
// integer row's tests are at keys (it has no value phase).
__device__ __forceinline__ u32 own_key_at_least(float thres) {
#if ELEM_KIND == ELEM_F32
    return number_key(thres);
#else
    return key16_of_ordered(ceil16(thres), true);
#endif
}

// The key the hint test tests a hint at (topk-ref's Element::hint_key): on a float row the
// own key at least the hint's ordered value (hint * sign: exact), on an integer row
// int_hint_key.
__device__ __forceinline__ u32 hint_key(float hint, float sign) {
#if ELEM_INTEGER
    return int_hint_key(hint, sign);
#else
    return own_key_at_least(__fmul_rn(hint, sign));
#endif
}

// The ordered value of an own key (zero as +0.0).
__device__ __forceinline__ float ordered_value_of_own_key(u32 key) {
#if ELEM_KIND == ELEM_F32
    return ordered_value_of_key(key);
#else
    return float_of16(ordered_of_key16(key));
#endif
}
