// Stage 1, load_row, of the warp-row kernels (docs/kernel.md, "Stage 1 — load").
#pragma once

#include "rows.cuh"

// Keys of N values that are all inside the row, by `key`, and their min/max.
template <int N, class Key>
__device__ __forceinline__ void key_full_slots(u32 (&keys)[N], const float (&v)[N], Key key, u32* lo,
                                               u32* hi) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
        keys[j] = key(v[j]);
        *lo = min(*lo, keys[j]);
        *hi = max(*hi, keys[j]);
    }
}

// Keys of a thread's N loaded values (elements first .. first + N - 1; slots past M get key
// 0) and their min/max. Threads whose slots are all inside the row (all but the row's last)
// take a path without per-slot tests.
template <int N>
__device__ __forceinline__ void key_slots(u32 (&keys)[N], const float (&v)[N], u32 first, u32 m,
                                          float sign, u32* lane_min, u32* lane_max) {
    u32 lo = *lane_min, hi = *lane_max;
    if (first + (u32)N <= m && sign > 0.0f) {
        // Largest mode needs no NaN test: GPU float arithmetic returns the one canonical NaN,
        // 0x7fffffff, for any NaN operand, and its key is 0xffffffff, the NaN key of this mode.
        auto largest = [](float x) { return flip_key(__fmaf_rn(x, 1.0f, 0.0f)); };
        key_full_slots(keys, v, largest, &lo, &hi);
    } else if (first + (u32)N <= m) {
        key_full_slots(keys, v, [sign](float x) { return order_key(x, sign); }, &lo, &hi);
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) {
            bool valid = first + (u32)j < m;
            keys[j] = valid ? order_key(v[j], sign) : 0u;
            if (valid) lo = min(lo, keys[j]);
            hi = max(hi, keys[j]);  // 0 is neutral
        }
    }
    *lane_min = lo;
    *lane_max = hi;
}

// Stage 1 for one row's lanes: lane l of the row holds elements l EPL .. l EPL + EPL - 1
// (with 16-byte loads when the row allows: EPL % 4 == 0, 16-byte aligned rows, M % 4 == 0),
// and the lane's min/max key.
template <int EPL, int LANES, bool NARROWS>
__device__ __forceinline__ void load_row(WarpRow<EPL, LANES, NARROWS>& row, const float* row_in, const Params& p,
                                         u32 first, u32* lane_min, u32* lane_max) {
    // every load is issued before the first key is computed
    float v[EPL];
    bool vec4 = false;
    if constexpr (EPL % 4 == 0) vec4 = p.vec4 != 0;
    if (vec4) {
#pragma unroll
        for (int q = 0; q < EPL / 4; ++q) {
            u32 i = first + 4u * (u32)q;  // M % 4 == 0: all 4 or none
            float4 v4 = i < p.m ? *reinterpret_cast<const float4*>(row_in + i)
                                : make_float4(0.f, 0.f, 0.f, 0.f);
            v[4 * q] = v4.x; v[4 * q + 1] = v4.y; v[4 * q + 2] = v4.z; v[4 * q + 3] = v4.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < EPL; ++j) v[j] = first + (u32)j < p.m ? row_in[first + j] : 0.f;
    }
    key_slots(row.keys, v, first, p.m, p.sign, lane_min, lane_max);
}
