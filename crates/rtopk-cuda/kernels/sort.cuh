// The sorted output (docs/kernel.md, the last table's "sorted output" row).
#pragma once

#include "select.cuh"

// The canonical order of a result as one rank sorted ascending: key descending (the mode is
// folded into the key: NaN first in largest mode, last in smallest), then index ascending.
__device__ __forceinline__ u64 sort_rank(u32 key, u32 i) {
    return ((u64)~key << 32) | i;
}

// A row's results in shared memory, as ranks.
struct SharedRanks {
    u64* r;
    __device__ __forceinline__ void order(u32 i, u32 j) const {
        u64 a = r[i], b = r[j];
        r[i] = min(a, b);
        r[j] = max(a, b);
    }
};

// A row's results in place in the output (rows too long for shared memory): ranks recomputed
// from (value, index) at each compare; loads and stores bypass L1 so that every thread of the
// block sees the others' swaps after a barrier.
struct GlobalResults {
    elem_t* val;
    idx_t* idx;
    float sign;
    __device__ __forceinline__ void order(u32 i, u32 j) const {
        elem_t vi = __ldcg(val + i), vj = __ldcg(val + j);
        u32 ii = (u32)__ldcg(idx + i), ij = (u32)__ldcg(idx + j);
        if (sort_rank(own_key(vj, sign), ij) < sort_rank(own_key(vi, sign), ii)) {
            __stcg(val + i, vj); __stcg(val + j, vi);
            __stcg(idx + i, (idx_t)ij); __stcg(idx + j, (idx_t)ii);
        }
    }
};

// Sorts positions [0, n) ascending as if the array were `pow2` long with +infinity in
// positions n .. pow2 - 1: the bitonic network in its flip form, where every compare-exchange
// puts the smaller rank at the lower position, so the padding never moves and pairs that
// reach past n are skipped. Thread t of `threads` takes every threads-th pair; every thread of
// the block reaches each barrier (n = 0 for rows past the end).
template <class Store>
__device__ void bitonic_sort(const Store& s, u32 n, u32 pow2, u32 t, u32 threads) {
    for (u32 size = 2u; size <= pow2; size <<= 1) {
        u32 half = size >> 1;
        for (u32 c = t; c < pow2 >> 1; c += threads) {
            u32 off = c & (half - 1u), i = (c - off) * 2u + off;  // i = (c / half) size + off
            u32 j = i + size - 1u - 2u * off;                     // its mirror in the block
            if (j < n) s.order(i, j);
        }
        __syncthreads();
        for (u32 stride = size >> 2; stride > 0u; stride >>= 1) {
            for (u32 c = t; c < pow2 >> 1; c += threads) {
                u32 off = c & (stride - 1u), i = (c - off) * 2u + off, j = i + stride;
                if (j < n) s.order(i, j);
            }
            __syncthreads();
        }
    }
}

// Whether result (ka, ia) comes before (kb, ib) in sorted order: key descending, then index.
__device__ __forceinline__ bool sorts_before(u32 ka, u32 ia, u32 kb, u32 ib) {
    return ka > kb || (ka == kb && ia < ib);
}

// One step of the bitonic network over a warp's 32 E positions (position p = E lane + e, so
// partners closer than E are in the lane's own registers, farther ones E apart in lanes): pairs
// (p, p ^ stride), ascending in sorted order where p & size == 0, descending elsewhere.
template <int E>
__device__ __forceinline__ void bitonic_step(u32 (&key)[E], u32 (&idx)[E], u32 lane, u32 size,
                                             u32 stride) {
    if (stride >= (u32)E) {
        u32 d = stride / (u32)E;
        bool lower = (lane & d) == 0u;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            u32 pk = __shfl_xor_sync(FULL_MASK, key[e], d), pi = __shfl_xor_sync(FULL_MASK, idx[e], d);
            bool up = ((lane * (u32)E + (u32)e) & size) == 0u;
            // the lower position of an ascending pair keeps the earlier result
            if (sorts_before(pk, pi, key[e], idx[e]) == (lower == up)) { key[e] = pk; idx[e] = pi; }
        }
        return;
    }
#pragma unroll
    for (int s = E / 2; s > 0; s >>= 1) {
        if ((u32)s != stride) continue;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            if (e & s) continue;
            bool up = ((lane * (u32)E + (u32)e) & size) == 0u;
            if (sorts_before(key[e + s], idx[e + s], key[e], idx[e]) == up) {
                u32 tk = key[e], ti = idx[e];
                key[e] = key[e + s]; idx[e] = idx[e + s];
                key[e + s] = tk; idx[e + s] = ti;
            }
        }
    }
}

// Sorts each row's k <= 32 E results with one warp, in registers: lane l holds positions
// E l .. E l + E - 1, padded past k with (key 0, index 2^32 - 1), which sorts after every
// result (an index never reaches 2^32 - 1 with M < 2^32), so the full network runs.
template <int E>
__device__ void sort_warp_row(const elem_t* x, elem_t* out_val, idx_t* out_idx, u64 n_rows, u32 m,
                              u32 width, float sign, const u32* lengths, const u32* k_per_row) {
    u32 lane = threadIdx.x & 31u;
    u64 row_id = (u64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row_id >= n_rows) return;  // warp-uniform
    elem_t* val = out_val + row_id * (u64)width;
    idx_t* idx = out_idx + row_id * (u64)width;
    u32 row_m = m, k = width;  // the row's own k (its padding stays where it is)
    row_lengths(lengths, k_per_row, row_id, &row_m, &k);
    u32 key[E], ix[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        u32 p = lane * (u32)E + (u32)e;
        key[e] = p < k ? own_key(val[p], sign) : 0u;
        ix[e] = p < k ? (u32)idx[p] : 0xffffffffu;
    }
    for (u32 size = 2u; size <= 32u * (u32)E; size <<= 1)
        for (u32 stride = size >> 1; stride > 0u; stride >>= 1) bitonic_step(key, ix, lane, size, stride);
    const elem_t* row_in = x + row_id * (u64)m;
#pragma unroll
    for (int e = 0; e < E; ++e) {
        u32 p = lane * (u32)E + (u32)e;
        if (p < k) write_result(p, ix[e], key[e], row_in, val, idx, sign);
    }
}

