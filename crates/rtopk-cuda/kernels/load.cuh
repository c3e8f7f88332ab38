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

// Keys of N values of which those past m (slots first + j >= m) are padding (key 0), and their
// min/max over the slots inside.
template <int N, class Key>
__device__ __forceinline__ void key_cut_slots(u32 (&keys)[N], const float (&v)[N], Key key, u32 first,
                                              u32 m, u32* lo, u32* hi) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
        bool inside = first + (u32)j < m;
        keys[j] = inside ? key(v[j]) : 0u;
        if (inside) *lo = min(*lo, keys[j]);
        *hi = max(*hi, keys[j]);  // 0 is neutral
    }
}

// Keys of a thread's N loaded values (elements first .. first + N - 1; slots past M get key 0)
// and their min/max. Where `whole` (the caller's: every slot of the thread inside the row) a
// path without per-slot tests (key_full_slots), else every slot keyed and those past m set to 0
// (key_cut_slots).
template <int N>
__device__ __forceinline__ void key_slots(u32 (&keys)[N], const float (&v)[N], u32 first, u32 m,
                                          float sign, bool whole, u32* lane_min, u32* lane_max) {
    // Largest mode needs no NaN test: GPU float arithmetic returns the one canonical NaN,
    // 0x7fffffff, for any NaN operand, and its key is 0xffffffff, the NaN key of this mode.
    auto largest = [](float x) { return flip_key(__fmaf_rn(x, 1.0f, 0.0f)); };
    auto any = [sign](float x) { return order_key(x, sign); };
    u32 lo = *lane_min, hi = *lane_max;
    if (whole && sign > 0.0f) key_full_slots(keys, v, largest, &lo, &hi);
    else if (whole) key_full_slots(keys, v, any, &lo, &hi);
    else if (sign > 0.0f) key_cut_slots(keys, v, largest, first, m, &lo, &hi);
    else key_cut_slots(keys, v, any, first, m, &lo, &hi);
    *lane_min = lo;
    *lane_max = hi;
}

// Whether a warp row's lanes key their slots without per-slot tests (key_slots's `whole`,
// load_row): one choice for the row, all of its lanes' slots inside it. A row narrower than its
// lanes' slots — almost every ragged row, and a row narrower than its unit (M = 1000 on a unit
// of 1024) — has a lane its end cuts or passes; lanes that each chose for themselves made the
// warp run both paths, and the per-slot one costs about twice the other.
template <int EPL, int LANES>
__device__ __forceinline__ bool row_whole(u32 m) {
    return m >= (u32)(EPL * LANES);
}

// Whether the 16-byte group of GROUP elements at i is the one a ragged row's end cuts (CUT:
// a ragged twin's warp row, whose width m need not be whole groups while its row is 16-byte
// aligned): loaded element by element, so that nothing past m is read. Without CUT, m is
// whole groups and no group is cut.
template <bool CUT, int GROUP>
__device__ __forceinline__ bool cut_group(u32 i, u32 m) {
    return CUT && i < m && m - i < (u32)GROUP;
}

// ---- Integer rows (docs/kernel.md, "Integer rows") ------------------------------------------

// Elements first .. first + N - 1 of an integer row (0 past m): 16-byte loads where `vec`
// (N elements fill whole 16-byte groups, a 16-byte aligned row, m whole 16-byte groups: all
// of a group inside the row or none; with CUT, the group m cuts element by element: cut_group),
// else one element each.
template <int N, bool CUT = false>
__device__ __forceinline__ void load_ints(const elem_t* row_in, u32 first, u32 m, bool vec,
                                          elem_t (&v)[N]) {
    constexpr int GROUP = 16 / (int)sizeof(elem_t);  // elements per 16 bytes
    if constexpr (N % GROUP == 0) {
        if (vec) {
#pragma unroll
            for (int q = 0; q < N / GROUP; ++q) {
                u32 i = first + (u32)(GROUP * q);
                if (cut_group<CUT, GROUP>(i, m)) {
#pragma unroll
                    for (int j = 0; j < GROUP; ++j) v[GROUP * q + j] = i + (u32)j < m ? row_in[i + j] : (elem_t)0;
                    continue;
                }
                uint4 b = i < m ? *reinterpret_cast<const uint4*>(row_in + i) : make_uint4(0, 0, 0, 0);
                const elem_t* e = reinterpret_cast<const elem_t*>(&b);
#pragma unroll
                for (int j = 0; j < GROUP; ++j) v[GROUP * q + j] = e[j];
            }
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = first + (u32)j < m ? row_in[first + j] : (elem_t)0;
}

// The keys of N loaded integers (slots past m get key 0) and their min/max.
template <int N>
__device__ __forceinline__ void key_ints(u32 (&keys)[N], const elem_t (&v)[N], u32 first, u32 m,
                                         float sign, u32* lane_min, u32* lane_max) {
    u32 lo = *lane_min, hi = *lane_max;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        bool valid = first + (u32)j < m;
        keys[j] = valid ? int_key((int)v[j], sign) : 0u;
        if (valid) lo = min(lo, keys[j]);
        hi = max(hi, keys[j]);  // 0 is neutral
    }
    *lane_min = lo;
    *lane_max = hi;
}

// Stage 1 for one row's lanes: lane l of the row holds elements l EPL .. l EPL + EPL - 1
// (with 16-byte loads when the row allows: EPL % 4 == 0 and `aligned`, 16-byte aligned rows of
// M % 4 == 0 — with CUT, a ragged row's 16-byte aligned row of any width, the group its end
// cuts element by element), and the lane's min/max key.
template <bool CUT, int EPL, int LANES, bool NARROWS>
__device__ __forceinline__ void load_row(WarpRow<EPL, LANES, NARROWS>& row, const elem_t* row_in, const Params& p,
                                         u32 first, bool aligned, u32* lane_min, u32* lane_max) {
#if ELEM_INTEGER
    elem_t ints[EPL];
    load_ints<EPL, CUT>(row_in, first, p.m, aligned, ints);
    key_ints(row.keys, ints, first, p.m, p.sign, lane_min, lane_max);
#else
    // every load is issued before the first key is computed
    float v[EPL];
    bool vec4 = false;
    if constexpr (EPL % 4 == 0) vec4 = aligned;
    if (vec4) {
#pragma unroll
        for (int q = 0; q < EPL / 4; ++q) {
            u32 i = first + 4u * (u32)q;  // all 4 or none, but for the group CUT cuts
            if (cut_group<CUT, 4>(i, p.m)) {
#pragma unroll
                for (int j = 0; j < 4; ++j) v[4 * q + j] = i + (u32)j < p.m ? row_in[i + j] : 0.f;
                continue;
            }
            float4 v4 = i < p.m ? *reinterpret_cast<const float4*>(row_in + i)
                                : make_float4(0.f, 0.f, 0.f, 0.f);
            v[4 * q] = v4.x; v[4 * q + 1] = v4.y; v[4 * q + 2] = v4.z; v[4 * q + 3] = v4.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < EPL; ++j) v[j] = first + (u32)j < p.m ? row_in[first + j] : 0.f;
    }
    key_slots(row.keys, v, first, p.m, p.sign, row_whole<EPL, LANES>(p.m), lane_min, lane_max);
#endif
}

// ---- 16-bit rows (docs/kernel.md, "16-bit rows") -------------------------------------------

// The lane's min and max own key over its words, where every slot is inside the row: packed
// min/max of the ordered values (NaN at its mode's end: max.NaN keeps it in largest mode,
// min.NaN in smallest), then the two halves' keys. The mode is chosen once, not per word (a
// choice per word ran both forms of each).
template <bool LARGEST, int W>
__device__ __forceinline__ void range_of_words(const u32 (&words)[W], u32* lo, u32* hi) {
    u32 mn = words[0], mx = words[0];
#pragma unroll
    for (int q = 1; q < W; ++q) {
        if constexpr (LARGEST) {
            asm("min." PACKED " %0, %0, %1;" : "+r"(mn) : "r"(words[q]));
            asm("max.NaN." PACKED " %0, %0, %1;" : "+r"(mx) : "r"(words[q]));
        } else {
            asm("min.NaN." PACKED " %0, %0, %1;" : "+r"(mn) : "r"(words[q]));
            asm("max." PACKED " %0, %0, %1;" : "+r"(mx) : "r"(words[q]));
        }
    }
    *lo = min(*lo, min(key16_of_ordered(mn & 0xffffu, LARGEST), key16_of_ordered(mn >> 16, LARGEST)));
    *hi = max(*hi, max(key16_of_ordered(mx & 0xffffu, LARGEST), key16_of_ordered(mx >> 16, LARGEST)));
}
template <int W>
__device__ __forceinline__ void range_full_words(const u32 (&words)[W], bool largest, u32* lo, u32* hi) {
    if (largest) range_of_words<true>(words, lo, hi);
    else range_of_words<false>(words, lo, hi);
}

// The row's last lane (and odd EPL): padding, and the range over the slots inside.
template <int EPL, int LANES, bool NARROWS>
__device__ __forceinline__ void load_last_words(PackedRow<EPL, LANES, NARROWS>& row, u32* lane_min,
                                                u32* lane_max) {
#pragma unroll
    for (int j = 0; j < EPL + (EPL % 2); ++j) {
        if ((u32)j < row.inside) {
            u32 key = key16_of_ordered(row.half(j), row.largest);
            *lane_min = min(*lane_min, key);
            *lane_max = max(*lane_max, key);
        } else {
            u32 shift = 16u * (u32)(j % 2);
            row.words[j / 2] = (row.words[j / 2] & ~(0xffffu << shift)) | (NEG_INF16 << shift);
        }
    }
}

// Elements first .. first + N - 1 of a 16-bit row, two per word (element j in half j % 2 of
// words[j / 2], low half first; 0 past m): 16-byte loads of 8 where `vec8` (N % 8 == 0, a
// 16-byte aligned row, m % 8 == 0; with CUT, any m, the group it cuts element by element:
// cut_group), else 2 bytes each. Warp rows keep the pairs, block rows key them one by one.
template <int N, bool CUT = false>
__device__ __forceinline__ void load_pairs16(const elem_t* row_in, u32 first, u32 m, bool vec8,
                                             u32 (&words)[(N + 1) / 2]) {
    const unsigned short* in16 = reinterpret_cast<const unsigned short*>(row_in);
    if constexpr (N % 8 == 0) {
        if (vec8) {
#pragma unroll
            for (int q = 0; q < N / 8; ++q) {
                u32 i = first + 8u * (u32)q;  // all 8 or none, but for the group CUT cuts
                if (cut_group<CUT, 8>(i, m)) {
#pragma unroll
                    for (int h = 0; h < 4; ++h) {
                        u32 j = i + 2u * (u32)h;
                        u32 lo = j < m ? in16[j] : 0u, hi = j + 1u < m ? in16[j + 1] : 0u;
                        words[4 * q + h] = lo | hi << 16;
                    }
                    continue;
                }
                uint4 b = i < m ? *reinterpret_cast<const uint4*>(in16 + i) : make_uint4(0, 0, 0, 0);
                words[4 * q] = b.x; words[4 * q + 1] = b.y;
                words[4 * q + 2] = b.z; words[4 * q + 3] = b.w;
            }
            return;
        }
    }
#pragma unroll
    for (int q = 0; q < (N + 1) / 2; ++q) {
        u32 i = first + 2u * (u32)q;
        u32 lo = i < m ? in16[i] : 0u, hi = 2 * q + 1 < N && i + 1u < m ? in16[i + 1] : 0u;
        words[q] = lo | hi << 16;
    }
}

// Stage 1 for a 16-bit row's lanes: lane l of the row holds elements l EPL .. l EPL + EPL - 1
// (load_pairs16, 16-byte loads where `aligned`; CUT as the f32 rows') as ordered bits with
// -inf past M, and the lane's min/max own key.
template <bool CUT, int EPL, int LANES, bool NARROWS>
__device__ __forceinline__ void load_row(PackedRow<EPL, LANES, NARROWS>& row, const elem_t* row_in, const Params& p,
                                         u32 first, bool aligned, u32* lane_min, u32* lane_max) {
    constexpr int W = PackedRow<EPL, LANES, NARROWS>::WORDS;
    u32 flip = p.sign < 0.0f ? 0x80008000u : 0u;
    row.inside = p.m > first ? min(p.m - first, (u32)EPL) : 0u;
    row.largest = p.sign > 0.0f;
    load_pairs16<EPL, CUT>(row_in, first, p.m, aligned, row.words);
#pragma unroll
    for (int q = 0; q < W; ++q) row.words[q] ^= flip;
    if (row.inside == (u32)EPL && EPL % 2 == 0) {
        range_full_words(row.words, row.largest, lane_min, lane_max);
    } else {
        load_last_words(row, lane_min, lane_max);
    }
    // NaN's own key is the end of the lane's range exactly when the lane holds one
    bool nan = row.largest ? *lane_max == 0xffffu : *lane_min == 0u;
    row.nans = nan ? row.count_nans() : 0u;
}
