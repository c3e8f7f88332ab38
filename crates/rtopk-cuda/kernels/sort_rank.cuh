// The rank sort of the sorted output (docs/kernel.md, "The rank sort"): a row's k results, in
// index order from the selection, put in sorted order by a thread-block cluster of `parts`
// blocks. Every block holds the row's ranks (sort_rank) in shared memory; result r goes to
// position "how many of the row's ranks lie below r's" (the ranks are distinct: so are the
// indices), counted by `lanes` lanes of one block. The k^2 compares of a row spread over the
// cluster's SMs with no barrier between them, where one block's network waits at a barrier
// every step.
#pragma once
#include "sort.cuh"

// Most threads a block of the rank sort has (rtopk-plan's SORT_RANK_THREADS).
#define SORT_RANK_THREADS 1024u
// Results a slot of lanes holds and counts at once (rtopk-plan's SORT_RANK_HELD): each rank it
// reads from shared memory is compared with all of them, so that the count is bound by its
// compares rather than by shared memory's bandwidth (docs/kernel.md, "The rank sort").
#define SORT_RANK_HELD 4

// sort_rank_lanes: lanes counting one slot's ranks, the most (a power of two up to 32) whose
// `slots` slots fit SORT_RANK_THREADS threads (rtopk-plan's sort_rank_lanes, which sizes the
// block: slots * lanes threads, rounded up to a warp).
__device__ __forceinline__ u32 sort_rank_lanes(u32 slots) {
    u32 lanes = 32u;
    while (lanes > 1u && slots * lanes > SORT_RANK_THREADS) lanes >>= 1;
    return lanes;
}

// load_ranks: the row's n results (index order) as ranks in shared memory, and past them the
// rank that sorts after every result, so that rank_below reads whole pairs.
__device__ __forceinline__ void load_ranks(u64* ranks, const elem_t* val, const idx_t* idx,
                                           u32 n, float sign) {
    for (u32 i = threadIdx.x; i < n; i += blockDim.x)
        ranks[i] = sort_rank(own_key(val[i], sign), (u32)idx[i]);
    if (threadIdx.x == 0u) ranks[n] = sort_rank(0u, 0xffffffffu);
}

// rank_below: for each of a slot's SORT_RANK_HELD ranks `mine`, how many of the row's n ranks
// lie below it, into `below`: the slot's lanes (an aligned group of `lanes`) read pairs 2 sub,
// 2 sub + 2 lanes, ... and sum their counts by butterfly shuffles. Every lane of the warp
// takes part.
__device__ __forceinline__ void rank_below(const u64* ranks, u32 n, const u64 (&mine)[SORT_RANK_HELD],
                                           u32 sub, u32 lanes, u32 (&below)[SORT_RANK_HELD]) {
#pragma unroll
    for (int e = 0; e < SORT_RANK_HELD; ++e) below[e] = 0u;
    for (u32 j = 2u * sub; j < n; j += 2u * lanes) {
        ulonglong2 p = *reinterpret_cast<const ulonglong2*>(ranks + j);  // j even: 16-byte aligned
#pragma unroll
        for (int e = 0; e < SORT_RANK_HELD; ++e)
            below[e] += (p.x < mine[e] ? 1u : 0u) + (p.y < mine[e] ? 1u : 0u);
    }
#pragma unroll
    for (int e = 0; e < SORT_RANK_HELD; ++e)
        for (u32 d = lanes >> 1; d > 0u; d >>= 1) below[e] += __shfl_xor_sync(FULL_MASK, below[e], d);
}

// sort_rank_row: block `part` of the row's cluster takes results part * per .. part * per +
// per - 1 (per = ceil(k / parts)), SORT_RANK_HELD consecutive ones a slot of `lanes` threads
// (slot = thread / lanes): it loads the row's ranks (load_ranks) and its results' values and
// indices, counts each result's rank (rank_below), and after the cluster's barrier — every
// block has read the row's results by then — writes each at that position. Every thread
// reaches the barriers.
__device__ void sort_rank_row(u64* ranks, elem_t* val, idx_t* idx, u32 n, u32 k, u32 parts,
                              u32 part, float sign) {
    load_ranks(ranks, val, idx, n, sign);
    u32 per = (k + parts - 1u) / parts;
    u32 lanes = sort_rank_lanes((per + SORT_RANK_HELD - 1u) / SORT_RANK_HELD);
    u32 slot = threadIdx.x / lanes, sub = threadIdx.x % lanes;
    bool holds[SORT_RANK_HELD];
    elem_t v[SORT_RANK_HELD];
    idx_t i[SORT_RANK_HELD];
    u64 mine[SORT_RANK_HELD];
#pragma unroll
    for (int e = 0; e < SORT_RANK_HELD; ++e) {
        u32 at = slot * SORT_RANK_HELD + (u32)e, r = part * per + at;
        holds[e] = at < per && r < n;
        v[e] = holds[e] ? val[r] : (elem_t)0;
        i[e] = holds[e] ? idx[r] : (idx_t)0;
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < SORT_RANK_HELD; ++e) {
        u32 r = part * per + slot * SORT_RANK_HELD + (u32)e;
        mine[e] = holds[e] ? ranks[r] : 0ull;
    }
    u32 below[SORT_RANK_HELD];
    rank_below(ranks, n, mine, sub, lanes, below);
    cluster_sync();
    if (sub != 0u) return;
#pragma unroll
    for (int e = 0; e < SORT_RANK_HELD; ++e) {
        if (holds[e]) {
            val[below[e]] = v[e];
            idx[below[e]] = i[e];
        }
    }
}
