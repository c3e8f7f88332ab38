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
