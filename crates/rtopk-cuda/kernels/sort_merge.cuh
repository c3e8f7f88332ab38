// The merge sort of the sorted output (docs/kernel.md, "The merge sort"): a row's k results, in
// index order from the selection, put in sorted order by a thread-block cluster of `parts`
// blocks. Block `part` sorts the results part * per .. part * per + per - 1 (per = pow2 /
// parts: a run) in registers with the block sort's network (block_bitonic_network, sort_rows.cu,
// which includes this file after it) and writes the run back in place; after the cluster's
// barrier each of its results goes to its place in the run plus, for every other run, how many
// of that run's ranks lie below its own (the ranks are distinct: so are the indices) — the run
// copied into shared memory, then a binary search — and after a second barrier (every block
// has read every run) each result is written there. The network of a long row runs on `parts`
// SMs at once instead of one.
#pragma once
#include "sort.cuh"

// The results of run q of a row of n over runs of per.
__device__ __forceinline__ u32 run_length(u32 n, u32 per, u32 q) {
    u32 start = q * per;
    return n > start ? min(n - start, per) : 0u;
}

// load_run: run q's len ranks (sorted by its block before the cluster's barrier) from the row's
// values and indices into shared memory, ascending.
__device__ __forceinline__ void load_run(u64* ranks, const elem_t* val, const idx_t* idx, u32 len,
                                         float sign) {
    for (u32 i = threadIdx.x; i < len; i += blockDim.x)
        ranks[i] = sort_rank(own_key(val[i], sign), (u32)idx[i]);
}

// ranks_below: how many of the len ascending ranks lie below `mine` (a binary search).
__device__ __forceinline__ u32 ranks_below(const u64* ranks, u32 len, u64 mine) {
    u32 lo = 0u, hi = len;
    while (lo < hi) {
        u32 mid = (lo + hi) >> 1;
        if (ranks[mid] < mine) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

// sort_merge_row: block `part` of the row's cluster (per / SORT_BLOCK_EPL threads) sorts its run
// — register e of thread t takes the run's result e threads + t, positions past the run hold
// the rank that sorts after every result — and thread t writes the run's positions E t .. E t
// + E - 1 back in place (no other block reads them before the barrier). Then, each other run in
// turn in shared memory, it counts the ranks below each of its results (ranks_below), and after
// the second barrier writes each at its run position plus those counts. Every thread reaches
// every barrier.
__device__ void sort_merge_row(const SharedRanks& s, const elem_t* row_in, elem_t* val, idx_t* idx,
                               u32 n, u32 per, u32 parts, u32 part, float sign) {
    u32 t = threadIdx.x, threads = blockDim.x, base = part * per;
    u32 len = run_length(n, per, part);
    u64 rank[SORT_BLOCK_EPL];
#pragma unroll
    for (int e = 0; e < SORT_BLOCK_EPL; ++e) {
        u32 j = (u32)e * threads + t;
        rank[e] = j < len ? sort_rank(own_key(val[base + j], sign), (u32)idx[base + j])
                          : sort_rank(0u, 0xffffffffu);
    }
    block_bitonic_network(rank, s, t, threads, per);
    u32 at[SORT_BLOCK_EPL];
#pragma unroll
    for (int e = 0; e < SORT_BLOCK_EPL; ++e) {
        u32 p = t * SORT_BLOCK_EPL + (u32)e;
        at[e] = p;
        if (p < len)
            write_result(base + p, (u32)rank[e], ~(u32)(rank[e] >> 32), row_in, val, idx, sign);
    }
    cluster_sync();  // every run written back, sorted
    for (u32 q = 0u; q < parts; ++q) {
        if (q == part) continue;
        u32 qlen = run_length(n, per, q);
        __syncthreads();  // the shared ranks are free: the network's, or the last run's searches
        load_run(s.r, val + q * per, idx + q * per, qlen, sign);
        __syncthreads();
#pragma unroll
        for (int e = 0; e < SORT_BLOCK_EPL; ++e) at[e] += ranks_below(s.r, qlen, rank[e]);
    }
    cluster_sync();  // every block has read every run
#pragma unroll
    for (int e = 0; e < SORT_BLOCK_EPL; ++e) {
        u32 p = t * SORT_BLOCK_EPL + (u32)e;
        if (p < len) write_result(at[e], (u32)rank[e], ~(u32)(rank[e] >> 32), row_in, val, idx, sign);
    }
}
