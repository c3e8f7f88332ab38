// The block sort of the sorted output: rtopk_sort_rows, one block per row (k > 1024, and k > 256
// on few rows), or the rank sort, a cluster of blocks per row (few rows of k <= 2048 on devices
// that launch clusters: sort_rank.cuh), or the merge sort, a cluster of blocks per row (few rows
// of k > 4096 on devices that launch clusters: sort_merge.cuh).

#include "sort.cuh"
#include "sort_rank.cuh"

// Positions a thread of the block sort holds in registers where the row's ranks fit shared
// memory and pow2 >= SORT_BLOCK_REGISTERS_MIN (rtopk-plan's SORT_BLOCK_EPL and
// SORT_BLOCK_REGISTERS_MIN): the block has pow2 / SORT_BLOCK_EPL threads. Shorter rows take one
// thread per compare-exchange of a step over shared memory (bitonic_sort).
#define SORT_BLOCK_EPL 8
#define SORT_BLOCK_REGISTERS_MIN 2048u
// Most positions in registers (rtopk-plan's SORT_BLOCK_REGISTERS_MAX): SORT_BLOCK_EPL a thread of
// 1024. Longer rows in shared memory take one thread per compare-exchange (bitonic_sort).
#define SORT_BLOCK_REGISTERS_MAX (1024u * SORT_BLOCK_EPL)
// Positions of one warp's registers: network steps whose partners are closer run in a warp.
#define SORT_BLOCK_SPAN (32u * SORT_BLOCK_EPL)
// The most threads of a block of any of these sorts (rtopk-plan's SORT_MAX_THREADS): the entry
// point's launch bound, so that ptxas keeps every instantiation to the registers a block of
// that many finds on an SM (the 16-bit ones took more without it, and their launches failed).
#define SORT_MAX_THREADS 1024u

// Thread t's positions E t + e sit at word e threads + t of the shared ranks (so that a warp's
// stores and loads of one register are consecutive words).
__device__ __forceinline__ void store_block_ranks(const SharedRanks& s, u32 t, u32 threads,
                                                  const u64 (&rank)[SORT_BLOCK_EPL]) {
#pragma unroll
    for (int e = 0; e < SORT_BLOCK_EPL; ++e) s.r[(u32)e * threads + t] = rank[e];
}

__device__ __forceinline__ void load_block_ranks(const SharedRanks& s, u32 t, u32 threads,
                                                 u64 (&rank)[SORT_BLOCK_EPL]) {
#pragma unroll
    for (int e = 0; e < SORT_BLOCK_EPL; ++e) rank[e] = s.r[(u32)e * threads + t];
}

// One step of the bitonic network whose partners lie in different warps (stride >= SPAN):
// pairs (p, p ^ stride) of positions p = E q + e, at words e threads + q and e threads +
// (q ^ stride / E), ascending in sorted order where p & size == 0; thread t takes every
// threads-th pair, consecutive pairs at consecutive words.
__device__ __forceinline__ void shared_step(const SharedRanks& s, u32 t, u32 threads, u32 size,
                                            u32 stride) {
    u32 half = threads >> 1, d = stride / SORT_BLOCK_EPL;
    for (u32 c = t; c < SORT_BLOCK_EPL * half; c += threads) {
        u32 e = c / half, cc = c % half;
        u32 off = cc & (d - 1u), q = (cc - off) * 2u + off;
        u32 i = e * threads + q, j = i + d;
        if ((q & (size / SORT_BLOCK_EPL)) == 0u) s.order(i, j);
        else s.order(j, i);
    }
}

// The block sort's network over pow2 positions, SORT_BLOCK_EPL a thread (position E t + e):
// the steps whose partners lie within a warp's SPAN positions in registers and shuffles
// (bitonic_network up to SPAN, then bitonic_step), the others in shared memory between
// barriers (shared_step). Every thread of the block reaches each barrier.
__device__ void block_bitonic_network(u64 (&rank)[SORT_BLOCK_EPL], const SharedRanks& s, u32 t,
                                      u32 threads, u32 pow2) {
    bitonic_network<SORT_BLOCK_EPL, 32, false>(rank, t, FULL_MASK);
    for (u32 size = 2u * SORT_BLOCK_SPAN; size <= pow2; size <<= 1) {
        store_block_ranks(s, t, threads, rank);
        __syncthreads();
        u32 stride = size >> 1;
        for (; stride >= SORT_BLOCK_SPAN; stride >>= 1) {
            shared_step(s, t, threads, size, stride);
            __syncthreads();
        }
        load_block_ranks(s, t, threads, rank);
        for (; stride > 0u; stride >>= 1) bitonic_step<SORT_BLOCK_EPL>(rank, t, FULL_MASK, size, stride);
    }
}

// A row's ranks in registers (in_shared): register e of thread t takes result e threads + t (the
// block's threads read consecutive results together; positions past n hold the rank that sorts
// after every result), the network (block_bitonic_network), then thread t writes positions
// E t .. E t + E - 1 below n. pow2 >= SORT_BLOCK_REGISTERS_MIN > SPAN, so the network's barriers
// come between every thread's loads of the row's results and any thread's writes over them.
__device__ void sort_block_row(const SharedRanks& s, const elem_t* row_in, elem_t* val, idx_t* idx,
                               u32 n, u32 pow2, u32 t, u32 threads, float sign) {
    u64 rank[SORT_BLOCK_EPL];
#pragma unroll
    for (int e = 0; e < SORT_BLOCK_EPL; ++e) {
        u32 j = (u32)e * threads + t;
        rank[e] = j < n ? sort_rank(own_key(val[j], sign), (u32)idx[j]) : sort_rank(0u, 0xffffffffu);
    }
    block_bitonic_network(rank, s, t, threads, pow2);
#pragma unroll
    for (int e = 0; e < SORT_BLOCK_EPL; ++e) {
        u32 p = t * SORT_BLOCK_EPL + (u32)e;
        if (p < n) write_result(p, (u32)rank[e], ~(u32)(rank[e] >> 32), row_in, val, idx, sign);
    }
}

// The merge sort (a cluster of blocks a row) builds on the block sort's network above.
#include "sort_merge.cuh"

// Puts each row's k results (index order, from the selection) in sorted order (docs/contract.md §1:
// value order of the mode, ties by ascending index). pow2 = k rounded up to a power of two;
// row_threads threads per row, blockDim.x / row_threads rows per block. in_shared: from
// SORT_BLOCK_REGISTERS_MIN to SORT_BLOCK_REGISTERS_MAX positions the row's ranks in registers,
// SORT_BLOCK_EPL a thread (sort_block_row), the steps between warps through dynamic shared memory
// (pow2 words of 8 bytes per row); otherwise every step through shared memory (bitonic_sort over
// SharedRanks);
// values rebuilt as in write_result. Otherwise each row is sorted in place in global memory.
// parts > 1: the rank sort (sort_rank_row), block b of the grid block b % parts of row b / parts's
// cluster, the row's k + 1 ranks in dynamic shared memory; with `merges`, the merge sort
// (sort_merge_row), runs of pow2 / parts positions, one run's ranks in dynamic shared memory.
extern "C" __global__ void __launch_bounds__(SORT_MAX_THREADS)
    rtopk_sort_rows(const elem_t* x, elem_t* out_val, idx_t* out_idx, u64 n_rows, u32 m, u32 k,
                    int smallest, u32 pow2, u32 row_threads, int in_shared, u32 parts, int merges,
                    const u32* lengths, const u32* k_per_row) {
    extern __shared__ __align__(16) u64 smem_ranks[];
    wait_for_previous_step();
    float sign = smallest ? -1.0f : 1.0f;
    if (parts > 1u) {  // launch-uniform
        u64 rank_row = blockIdx.x / parts;
        // a row past the end sorts nothing but reaches the barriers; a row sorts its own k
        u32 rank_m = m, rank_n = k;
        if (rank_row < n_rows) row_lengths(lengths, k_per_row, rank_row, &rank_m, &rank_n);
        else rank_n = 0u;
        u64 row = rank_row < n_rows ? rank_row : 0u, at = row * (u64)k;
        if (merges) {  // launch-uniform
            sort_merge_row(SharedRanks{smem_ranks}, x + row * (u64)m, out_val + at, out_idx + at,
                           rank_n, pow2 / parts, parts, blockIdx.x % parts, sign);
            return;
        }
        sort_rank_row(smem_ranks, out_val + at, out_idx + at, rank_n, k, parts, blockIdx.x % parts,
                      sign);
        return;
    }
    u32 slot = threadIdx.x / row_threads, t = threadIdx.x % row_threads;
    u64 row_id = (u64)blockIdx.x * (blockDim.x / row_threads) + slot;
    // rows past the end still reach every barrier; a row sorts its own k (row_lengths)
    u32 row_m = m, n = k;
    if (row_id < n_rows) row_lengths(lengths, k_per_row, row_id, &row_m, &n);
    else n = 0u;
    elem_t* val = out_val + (row_id < n_rows ? row_id : 0u) * (u64)k;
    idx_t* idx = out_idx + (row_id < n_rows ? row_id : 0u) * (u64)k;
    if (!in_shared) {
        bitonic_sort(GlobalResults{val, idx, sign}, n, pow2, t, row_threads);
        return;
    }
    SharedRanks s{smem_ranks + (u64)slot * pow2};
    const elem_t* row_in = x + (row_id < n_rows ? row_id : 0u) * (u64)m;
    if (pow2 >= SORT_BLOCK_REGISTERS_MIN && pow2 <= SORT_BLOCK_REGISTERS_MAX) {  // launch-uniform
        sort_block_row(s, row_in, val, idx, n, pow2, t, row_threads, sign);
        return;
    }
    for (u32 i = t; i < n; i += row_threads) s.r[i] = sort_rank(own_key(val[i], sign), (u32)idx[i]);
    __syncthreads();
    bitonic_sort(s, n, pow2, t, row_threads);
    for (u32 i = t; i < n; i += row_threads) {
        u64 r = s.r[i];
        write_result(i, (u32)r, ~(u32)(r >> 32), row_in, val, idx, sign);
    }
}
