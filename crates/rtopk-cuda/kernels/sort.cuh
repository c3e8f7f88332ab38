// The sorted output (docs/kernel.md, the last table's "sorted output" row).
#pragma once

#include "select.cuh"

// The canonical order of a result as one rank sorted ascending: key descending (the mode is
// folded into the key: NaN first in largest mode, last in smallest), then index ascending.
__device__ __forceinline__ u64 sort_rank(u32 key, u32 i) {
    return ((u64)~key << 32) | i;
}

// A 16-bit row's result as one 32-bit rank for the warp sorts: its 16-bit own key descending,
// then its position p among the row's results, ascending. The selection writes a row's results
// in index order, so position order among tied keys is index order, and one 32-bit compare
// orders two results where sort_rank's 64 bits take two compares and four selects.
__device__ __forceinline__ u32 sort_rank16(u32 key, u32 p) {
    return ((key ^ 0xffffu) << 16) | p;
}

// The rank a warp sort holds a result as: sort_rank16 on f16 and bf16 rows, else sort_rank. Past
// a row's k, WARP_RANK_PAST, which sorts after every result (p < k <= 1024; an index never
// reaches 2^32 - 1 with M < 2^32).
#if ELEM_PACKED16
typedef u32 warp_rank_t;
#define WARP_RANK_PAST 0xffffffffu
#else
typedef u64 warp_rank_t;
#define WARP_RANK_PAST sort_rank(0u, 0xffffffffu)
#endif

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

// Whether position E sub + e lies in an ascending block of the network's blocks of `size`
// positions (p & size == 0): per lane where size >= E, else a constant of e.
template <int E>
__device__ __forceinline__ bool ascending(u32 sub, u32 size, int e) {
    return size >= (u32)E ? (sub & (size / (u32)E)) == 0u : ((u32)e & size) == 0u;
}

// One step of the bitonic network over a row's LANES E positions (position p = E sub + e, sub
// the lane's place among the row's LANES lanes, so partners closer than E are in the lane's
// own registers, farther ones E apart in lanes of the row, `lanes`): pairs (p, p ^ stride),
// ascending in sorted order where p & size == 0, descending elsewhere. Each result is one
// rank R (sort_rank's u64 or sort_rank16's u32: one compare orders two results), exchanged by
// selects, not branches (where `ascending` differs between lanes a branch diverges).
template <int E, class R>
__device__ __forceinline__ void bitonic_step(R (&rank)[E], u32 sub, u32 lanes, u32 size, u32 stride) {
    if (stride >= (u32)E) {
        u32 d = stride / (u32)E;
        // the lower position of an ascending pair keeps the earlier result (size > stride >= E)
        bool keeps_first = ((sub & d) == 0u) == ascending<E>(sub, size, 0);
#pragma unroll
        for (int e = 0; e < E; ++e) {
            R other = __shfl_xor_sync(lanes, rank[e], d);
            rank[e] = (other < rank[e]) == keeps_first ? other : rank[e];
        }
        return;
    }
#pragma unroll
    for (int s = E / 2; s > 0; s >>= 1) {
        if ((u32)s != stride) continue;  // registers are named by constants: one s is the stride
#pragma unroll
        for (int e = 0; e < E; ++e) {
            if (e & s) continue;
            R a = rank[e], b = rank[e + s];
            bool swap = (b < a) == ascending<E>(sub, size, e);
            rank[e] = swap ? b : a;
            rank[e + s] = swap ? a : b;
        }
    }
}

// The network unrolled: bitonic_step for SIZE = 2, 4, ... LANES E and STRIDE = SIZE / 2 ... 1
// as constants, so that each step is straight-line code.
template <int E, int LANES, u32 SIZE, u32 STRIDE, class R>
__device__ __forceinline__ void bitonic_merge(R (&rank)[E], u32 sub, u32 lanes) {
    bitonic_step<E>(rank, sub, lanes, SIZE, STRIDE);
    if constexpr (STRIDE > 1u) bitonic_merge<E, LANES, SIZE, STRIDE / 2u>(rank, sub, lanes);
    else if constexpr (SIZE < (u32)(E * LANES)) bitonic_merge<E, LANES, 2u * SIZE, SIZE>(rank, sub, lanes);
}

// The network: bitonic_step for size = 2, 4, ... LANES E and stride = size / 2 ... 1, unrolled
// where UNROLLED (rtopk-plan's SORT_UNROLLED_MAX), else in loops, whose code stays small
// (unrolled, the 1024-position network is 8832 instructions).
template <int E, int LANES, bool UNROLLED, class R>
__device__ __forceinline__ void bitonic_network(R (&rank)[E], u32 sub, u32 lanes) {
    if constexpr (UNROLLED) {
        bitonic_merge<E, LANES, 2u, 1u>(rank, sub, lanes);
    } else {
        for (u32 size = 2u; size <= (u32)(E * LANES); size <<= 1)
            for (u32 stride = size >> 1; stride > 0u; stride >>= 1) bitonic_step<E>(rank, sub, lanes, size, stride);
    }
}

// Loads a row's k <= LANES E results (index order) as ranks: register e of the row's lane sub
// takes result j = e LANES + sub (the row's lanes read consecutive results together) — on a
// 16-bit row its key and position (sort_rank16: the index is read after the network), else its
// key and index; positions past k hold WARP_RANK_PAST, so the full network runs. Which result
// starts where does not matter to a sorting network.
template <int E, int LANES>
__device__ __forceinline__ void load_results(const elem_t* val, const idx_t* idx, u32 k, u32 sub,
                                             float sign, warp_rank_t (&rank)[E]) {
#pragma unroll
    for (int e = 0; e < E; ++e) {
        u32 j = (u32)e * (u32)LANES + sub;
#if ELEM_PACKED16
        rank[e] = j < k ? sort_rank16(own_key(val[j], sign), j) : WARP_RANK_PAST;
#else
        rank[e] = j < k ? sort_rank(own_key(val[j], sign), (u32)idx[j]) : WARP_RANK_PAST;
#endif
    }
}

// A lane's E sorted results (positions first .. first + E - 1 below k) as values and indices.
// From a 64-bit rank: its index, and the value from its key (result_value). From a 16-bit
// row's rank: the value and index at its position among the row's results, read back from the
// output before any lane of the row writes over it (the caller's __syncwarp).
template <int E>
__device__ __forceinline__ void sorted_results(const warp_rank_t (&rank)[E], u32 first, u32 k,
                                               const elem_t* val, const idx_t* idx,
                                               const elem_t* row_in, float sign, elem_t (&v)[E],
                                               idx_t (&i)[E]) {
#pragma unroll
    for (int e = 0; e < E; ++e) {
        bool inside = first + (u32)e < k;
#if ELEM_PACKED16
        u32 p = rank[e] & 0xffffu;
        v[e] = inside ? val[p] : (elem_t)0;
        i[e] = inside ? idx[p] : (idx_t)0;
#else
        u32 key = ~(u32)(rank[e] >> 32), ix = (u32)rank[e];
        v[e] = inside ? result_value(ix, key, row_in, sign) : (elem_t)0;
        i[e] = (idx_t)ix;
#endif
    }
}

// Writes a lane's E sorted results at positions first .. first + E - 1 below k: 16 bytes at a
// time where `vec` (the row starts 16-byte aligned) and a whole group lies below k, else one
// at a time.
template <class T, int E>
__device__ __forceinline__ void store_results(T* out, u32 first, u32 k, bool vec, const T (&v)[E]) {
    constexpr int PER = 16 / (int)sizeof(T);
    if constexpr (E % PER == 0) {
        if (vec) {
#pragma unroll
            for (int g = 0; g < E / PER; ++g) {
                u32 p = first + (u32)(g * PER);
                if (p + (u32)PER <= k) {
                    union { T t[PER]; uint4 w; } group;  // the group's bits as one uint4
#pragma unroll
                    for (int j = 0; j < PER; ++j) group.t[j] = v[g * PER + j];
                    *reinterpret_cast<uint4*>(out + p) = group.w;
                } else {
#pragma unroll
                    for (int j = 0; j < PER; ++j)
                        if (p + (u32)j < k) out[p + j] = v[g * PER + j];
                }
            }
            return;
        }
    }
#pragma unroll
    for (int e = 0; e < E; ++e)
        if (first + (u32)e < k) out[first + e] = v[e];
}

// Whether a row of `width` results of T starting at `base + row_id * width` is 16-byte aligned.
template <class T>
__device__ __forceinline__ bool row_aligned16(const T* base, u32 width) {
    return ((unsigned long long)base & 15ull) == 0ull && ((u64)width * sizeof(T)) % 16u == 0u;
}

// Sorts each row's k <= LANES E results with LANES lanes in registers: load_results, the
// network (bitonic_network), then lane sub writes positions E sub .. E sub + E - 1.
template <int E, int LANES, bool UNROLLED>
__device__ void sort_warp_row(const elem_t* x, elem_t* out_val, idx_t* out_idx, u64 n_rows, u32 m,
                              u32 width, float sign, const u32* lengths, const u32* k_per_row) {
    u32 lane = threadIdx.x & 31u, sub = lane % (u32)LANES;
    u64 row_id = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / (u32)LANES;
    if (row_id >= n_rows) return;  // row-uniform: a row's lanes leave together
    u32 lanes = LANES == 32 ? FULL_MASK : ((1u << LANES) - 1u) << (lane - sub);
    elem_t* val = out_val + row_id * (u64)width;
    idx_t* idx = out_idx + row_id * (u64)width;
    u32 row_m = m, k = width;  // the row's own k (its padding stays where it is)
    row_lengths(lengths, k_per_row, row_id, &row_m, &k);
    warp_rank_t rank[E];
    load_results<E, LANES>(val, idx, k, sub, sign, rank);
    bitonic_network<E, LANES, UNROLLED>(rank, sub, lanes);
    u32 first = sub * (u32)E;
    elem_t v[E];
    idx_t i[E];
    sorted_results<E>(rank, first, k, val, idx, x + row_id * (u64)m, sign, v, i);
#if ELEM_PACKED16
    __syncwarp(lanes);  // the row's results are read back in place: all of them before any write
#endif
    store_results<idx_t, E>(idx, first, k, row_aligned16(out_idx, width), i);
    store_results<elem_t, E>(val, first, k, row_aligned16(out_val, width), v);
}
