// The order on 64-bit elements (docs/contract.md §1; topk-ref's order.rs): the keys of f64 and
// i64 values, the ordered values of keys, the f64 midpoint, and warp reductions on 64-bit keys.
// Shared by the wide rows (wide_rows.cu) and the threshold step (threshold.cu).
#pragma once

#include "common.cuh"

#define SIGN64 0x8000000000000000ull

// The key of a number's bits: flip every bit of a negative number, set the sign bit of a
// non-negative one.
__device__ __forceinline__ u64 key_of_bits64(u64 bits) {
    return bits ^ ((u64)((long long)bits >> 63) | SIGN64);
}

// topk-ref's number_key64: key_of_bits64, with -0.0 joining +0.0 — as v + 0.0, which is v but
// for -0.0 + 0.0 = +0.0 (IEEE 754, round to nearest): one add instead of a test and two selects.
__device__ __forceinline__ u64 number_key64(double v) {
    return key_of_bits64((u64)__double_as_longlong(__dadd_rn(v, 0.0)));
}

// wide_key: an element's own key in the launch's mode. f64: key64_largest (every NaN at the
// top) or key64_smallest (the negated value's key, every NaN at 0); i64: the value with its
// sign bit flipped, complemented in smallest mode (topk-ref's integer keys).
__device__ __forceinline__ u64 wide_key(elem_t v, float sign) {
#if ELEM_KIND == ELEM_F64
    // v * sign + 0.0 in one rounding is the ordered value, exact (sign is +-1), with -0.0 made
    // +0.0 (number_key64's add); the NaN keys by a select. No branch: keyed in a branch each,
    // a slot took about 20 instructions (docs/kernel.md, "64-bit rows").
    u64 key = key_of_bits64((u64)__double_as_longlong(__fma_rn(v, (double)sign, 0.0)));
    return isnan(v) ? (sign > 0.0f ? ~0ull : 0ull) : key;
#else
    u64 key = (u64)(long long)v ^ SIGN64;
    return sign > 0.0f ? key : ~key;
#endif
}

// key_of_bits64 undone: the sign bit cleared where it is set, every bit flipped where it is not.
__device__ __forceinline__ u64 bits_of_key64(u64 key) {
    u64 set = (u64)((long long)key >> 63);  // all ones where the sign bit is set
    return key ^ (~set | SIGN64);
}

// topk-ref's f64 ordered_of_key: the ordered value a key stands for (NaN for the NaN keys).
__device__ __forceinline__ double ordered_of_key64(u64 key) {
    return __longlong_as_double((long long)bits_of_key64(key));
}

// Whether a key determines its element's bits (order.cuh's key_keeps_bits on 64-bit keys):
// every i64 key; every f64 key but +-0.0's (one key for both) and the NaN keys (payloads),
// whose elements the caller re-reads from the input.
__device__ __forceinline__ bool wide_key_keeps_bits(u64 key) {
#if ELEM_KIND == ELEM_F64
    // in 32-bit words: neither SIGN64 nor 0 (the low word and the high word's low 31 bits all
    // zero), nor ~0
    u32 hi = (u32)(key >> 32), lo = (u32)key;
    return (lo | (hi & 0x7fffffffu)) != 0u && (lo & hi) != 0xffffffffu;
#else
    return true;
#endif
}

// The element whose key is `key` in the mode of `sign`, where the key keeps its bits: wide_key
// undone (an f64's ordered value, negated back in smallest mode; an i64's sign bit flipped
// back, complemented back in smallest mode).
__device__ __forceinline__ elem_t wide_value_of_key(u64 key, float sign) {
#if ELEM_KIND == ELEM_F64
    // the ordered value's bits, negated back by the sign bit in smallest mode
    return __longlong_as_double((long long)(bits_of_key64(key) ^ (sign > 0.0f ? 0ull : SIGN64)));
#else
    return (elem_t)(long long)((sign > 0.0f ? key : ~key) ^ SIGN64);
#endif
}

// topk-ref's f64 midpoint: (lo + hi) * 0.5, or lo * 0.5 + hi * 0.5 where the sum overflows.
__device__ __forceinline__ double midpoint64(double lo, double hi) {
    double m = __dmul_rn(__dadd_rn(lo, hi), 0.5);
    if (isfinite(m)) return m;
    return __dadd_rn(__dmul_rn(lo, 0.5), __dmul_rn(hi, 0.5));
}

// The value as f32, as topk-ref's Element::to_f32 (Rust's `as`): the nearest f32, ties to even
// (a finite f64 beyond f32's range becomes +-inf); an f64 NaN keeps its sign and the top of
// its payload, quieted, as x86's conversion does.
__device__ __forceinline__ float wide_threshold_value(elem_t v) {
#if ELEM_KIND == ELEM_F64
    if (isnan(v)) {
        u64 b = (u64)__double_as_longlong(v);
        return __uint_as_float((u32)(b >> 32) & 0x80000000u | 0x7fc00000u | (u32)(b >> 29) & 0x7fffffu);
    }
    return __double2float_rn(v);
#else
    return __ll2float_rn((long long)v);
#endif
}

// The warp's least and greatest 64-bit key in two 32-bit reductions each: the high words'
// extreme, then the low words' extreme among the lanes whose high word is it (redux.sync takes
// 32-bit values; four instructions a word against a butterfly's five shuffle rounds of two).
__device__ __forceinline__ u64 warp_min64(u64 v) {
    u32 hi = __reduce_min_sync(FULL_MASK, (u32)(v >> 32));
    u32 lo = __reduce_min_sync(FULL_MASK, (u32)(v >> 32) == hi ? (u32)v : 0xffffffffu);
    return (u64)hi << 32 | lo;
}

__device__ __forceinline__ u64 warp_max64(u64 v) {
    u32 hi = __reduce_max_sync(FULL_MASK, (u32)(v >> 32));
    u32 lo = __reduce_max_sync(FULL_MASK, (u32)(v >> 32) == hi ? (u32)v : 0u);
    return (u64)hi << 32 | lo;
}
