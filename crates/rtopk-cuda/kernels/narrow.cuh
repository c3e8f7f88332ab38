// Stage 2's narrowing in exact mode (docs/kernel.md, "Narrowing").
#pragma once

#include "select.cuh"

// A thread's candidates (the slots `ge` marks, elements first + j) and their indices to
// cand[at ..] and cand[cap + at ..], in index order.
template <int N, class Row>
__device__ __forceinline__ void copy_candidates(const Row& row, const u32 (&ge)[MASK_WORDS(N)],
                                                u32 first, u32* at, u32 cap) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if ((ge[j / 32] >> (j % 32)) & 1u) {
            at[0] = row.slot_key(j);
            at[cap] = first + (u32)j;
            ++at;
        }
    }
}

// The n candidates back from cand, C per lane (candidate r: slot r / 32 of lane r % 32).
template <int C>
__device__ __forceinline__ CandRow<C> take_candidates(const u32* cand, u32 n, u32 m) {
    u32 lane = threadIdx.x & 31u;
    CandRow<C> c;
    c.m = m;
    c.n = n;
#pragma unroll
    for (int q = 0; q < C; ++q) c.keys[q] = lane + 32u * q < n ? cand[lane + 32u * q] : 0u;
    return c;
}

// A whole-warp row's candidates (the slots `ge` marks, n in all) to the row's share of the
// stage in index order (one scan of the lanes' counts places them), then 4 per lane back.
template <int EPL, class Row>
__device__ __forceinline__ CandRow<4> copy_and_take(const Row& row, const u32 (&ge)[MASK_WORDS(EPL)], u32 n,
                                                    u32* cand) {
    u32 lane = threadIdx.x & 31u, own = 0u;
#pragma unroll
    for (int w = 0; w < MASK_WORDS(EPL); ++w) own += __popc(ge[w]);
    u32 before = row_scan<32>(FULL_MASK, lane, own) - own;
    copy_candidates<EPL>(row, ge, lane * (u32)EPL, cand + before, CAND_CAP);
    __syncwarp();
    return take_candidates<4>(cand, n, row.m);
}

// Stage 2, narrowing a whole-warp row (EXIT_NARROW: the last count, at lo_key, found
// k < n <= CAND_CAP keys >= lo_key): its lanes copy those keys and their indices to the row's
// share of the stage in index order (one scan of the lanes' counts places them; the last
// count's masks say which slots), and take the keys back four per lane. From here on the
// search counts 4 slots per lane instead of EPL, and the selection looks at n elements.
template <int EPL>
__device__ __forceinline__ CandRow<4> narrow_row(const WarpRow<EPL, 32, true>& row, const Search& s, u32* cand) {
    return copy_and_take<EPL>(row, row.ge_last, s.count_at_lo, cand);
}

// The same for a 16-bit row, which keeps no masks of its counts: they are made again at the
// narrowing count's threshold, lo_key; the candidates' keys are their own keys.
template <int EPL>
__device__ __forceinline__ CandRow<4> narrow_row(const PackedRow<EPL, 32, true>& row, const Search& s, u32* cand) {
    u32 ge[MASK_WORDS(EPL)];
    row.slots_ge(s.lo_key, ge);
    return copy_and_take<EPL>(row, ge, s.count_at_lo, cand);
}

// Stage 2, narrowing a block row (EXIT_NARROW: the last count, at lo_key, found
// k < n <= BLOCK_CAND_CAP keys >= lo_key, all of them in registers): every thread copies its
// candidates and their indices to `cand` in index order (one block prefix of the threads'
// counts places them; the last count's mask says which slots). After the barrier the block's
// first warp takes them back, BLOCK_CAND_KEYS per lane, and goes on alone: from there on a
// count is at most 16 slots of one warp (4 per 128 candidates), without a barrier, instead of
// 32 slots of every thread and a block sum.
template <bool SKIPS>
__device__ __forceinline__ void narrow_row(const BlockRow<true, SKIPS>& row, u32* cand, u32* slots) {
    u32 own = __popc(row.ge_last[0]), before, total;
    block_prefix(own, slots, &before, &total);
    copy_candidates<BLOCK_EPL>(row, row.ge_last, BLOCK_EPL * threadIdx.x, cand + before, BLOCK_CAND_CAP);
    __syncthreads();
}

// A narrowed row (one warp) after narrow_row: the rest of the exact search over its
// candidates, then stage 3 over them, and the row's iteration count. Returns the cut's
// band_lo (a split's floor rises to it: floor.cuh).
template <int C>
__device__ __forceinline__ u32 finish_candidates(const CandRow<C>& narrowed, Search& s, const Params& p,
                                                 const u32* cand, const elem_t* row_in,
                                                 elem_t* out_val, idx_t* out_idx, u64 row_id) {
    finish_exact(narrowed, s, p.k);
    // stage 3: select_topk
    Cut c = cut_of(narrowed, s, p.k);
    select_candidates(narrowed, c, p, cand, row_in, out_val, out_idx);
    if ((threadIdx.x & 31u) == 0 && p.out_iter) p.out_iter[row_id] = s.iterations;
    return c.band_lo;
}
