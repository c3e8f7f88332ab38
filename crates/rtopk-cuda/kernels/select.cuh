// Stage 3, select_topk (docs/kernel.md, "Stage 3 — select").
#pragma once

#include "search.cuh"

struct Cut {
    u32 strong_above, band_lo, strong_count;
};

// The table of docs/kernel.md, stage 3.
template <class Row>
__device__ Cut cut_of(const Row& row, const Search& s, u32 k) {
    if (s.exit == EXIT_MAX_ITER) return Cut{0xffffffffu, s.lo_key, 0u};
    if (s.exit == EXIT_HIT) return Cut{s.hi_key - 1u, s.hi_key, k};
    u32 at_hi = s.has_count_at_hi ? s.count_at_hi : row.count_ge(s.hi_key);
    if (at_hi >= k) return Cut{0xffffffffu, s.hi_key, 0u};
    return Cut{s.hi_key - 1u, s.lo_key, at_hi};
}

// The value of result (i, key): the input's bits, from its key where the key determines them,
// re-read from the input where it cannot (+-0.0, NaN payloads). 16-bit values are always
// re-read (a wide key does not hold the 16 bits); an integer's key always determines it.
__device__ __forceinline__ elem_t result_value(u32 i, u32 key, const elem_t* row_in, float sign) {
#if ELEM_KIND == ELEM_F32
    return key_keeps_bits(key) ? value_of_key(key, sign) : row_in[i];
#elif ELEM_INTEGER
    return (elem_t)int_of_key(key, sign);
#else
    return row_in[i];
#endif
}

// Writes result `pos` of the row: element i and its value (result_value).
__device__ __forceinline__ void write_result(u32 pos, u32 i, u32 key, const elem_t* row_in,
                                             elem_t* out_val, idx_t* out_idx, float sign) {
    out_idx[pos] = i;
    out_val[pos] = result_value(i, key, row_in, sign);
}

// Selects one chunk of 32 consecutive elements with one warp; returns how many it selected.
__device__ __forceinline__ u32 select_chunk(u32 key, bool valid, u32 i, const Cut& c,
                                            u32 band_left, u32 written, u32 k,
                                            const elem_t* row_in, elem_t* out_val, idx_t* out_idx,
                                            float sign, u32* band_taken) {
    u32 lanemask_lt = (1u << (threadIdx.x & 31u)) - 1u;
    bool strong = valid && key > c.strong_above;
    bool band = valid && !strong && key >= c.band_lo;
    u32 band_mask = __ballot_sync(FULL_MASK, band);
    u32 band_rank = __popc(band_mask & lanemask_lt);
    bool take_band = band && band_rank < band_left;
    bool selected = strong || take_band;
    u32 sel_mask = __ballot_sync(FULL_MASK, selected);
    u32 pos = written + __popc(sel_mask & lanemask_lt);
    if (selected && pos < k) write_result(pos, i, key, row_in, out_val, out_idx, sign);
    *band_taken = min(__popc(band_mask), band_left);
    return __popc(sel_mask);
}

// ---- selection from consecutive slots (both launch shapes) -------------------------------

// A thread's slots hold N consecutive elements first .. first + N - 1 (padding past M has key
// 0). Bit j % 32 of word j / 32 of strong / band: element first + j is strong / in the band.
// Returns the thread's strong (low 16 bits) and band (high 16 bits) counts. One compare per
// slot for each set the cut can fill: a hit (most rows) has no band, early stopping no strong
// elements. Padding (key 0) is never strong (strong_above >= 0); the band keeps only slots
// inside the row.
template <int N, class Row>
__device__ __forceinline__ u32 classify(const Row& row, u32 first, u32 m, const Cut& c,
                                        u32 (&strong)[MASK_WORDS(N)], u32 (&band)[MASK_WORDS(N)]) {
    bool any_strong = c.strong_above != 0xffffffffu, any_band = c.band_lo <= c.strong_above;
    if (any_strong) row.slots_ge(c.strong_above + 1u, strong);
    if (any_band) row.slots_ge(c.band_lo, band);
    u32 counts = 0u;
    u32 inside = m > first ? m - first : 0u;  // slots inside the row
#pragma unroll
    for (int w = 0; w < MASK_WORDS(N); ++w) {
        u32 rest = inside > 32u * (u32)w ? inside - 32u * (u32)w : 0u;
        u32 row_bits = rest >= 32u ? 0xffffffffu : (1u << rest) - 1u;
        if (!any_strong) strong[w] = 0u;
        band[w] = any_band ? band[w] & ~strong[w] & row_bits : 0u;
        counts += __popc(strong[w]) | (__popc(band[w]) << 16);
    }
    return counts;
}

// One thread's selected elements (bit j % 32 of take[j / 32]: element first + j), at output positions
// from `pos` on in index order, staged chunk by chunk and written out with consecutive
// threads on consecutive results (scattered 4-byte stores would leave partly written
// sectors), each value re-read from the input at its index (independent loads of a row just
// read). total: the row's results; sync(): a barrier over the row's threads, `t` of
// `threads` the thread's place among them.
template <int W, class Sync>
__device__ __forceinline__ void emit_staged(const u32 (&taken)[W], u32 pos, u32 total, u32 first,
                                            u32* stage, u32 cap, u32 t, u32 threads, Sync sync,
                                            const elem_t* row_in, elem_t* out_val, idx_t* out_idx) {
    u32 take[W];
#pragma unroll
    for (int w = 0; w < W; ++w) take[w] = taken[w];
    for (u32 c0 = 0u; c0 < total; c0 += cap) {
        u32 end = min(c0 + cap, total);
#pragma unroll
        for (int w = 0; w < W; ++w) {
            for (; take[w] != 0u && pos < end; ++pos) {
                stage[pos - c0] = first + 32u * (u32)w + (u32)(__ffs(take[w]) - 1);
                take[w] &= take[w] - 1u;
            }
        }
        sync();
        for (u32 r = c0 + t; r < end; r += threads) {
            u32 i = stage[r - c0];
            out_idx[r] = i;
            out_val[r] = row_in[i];
        }
        sync();  // the next chunk reuses the stage
    }
}

// Which of a thread's strong and band elements are taken (into take), and the position of its
// first: every strong one, and the band ones among the row's first band_left band elements by
// index. before: the strong (low 16 bits) and band (high 16 bits) counts of the elements
// before the thread's first, from a prefix scan.
template <int W>
__device__ __forceinline__ u32 taken(const u32 (&strong)[W], const u32 (&band)[W], u32 before,
                                     u32 band_left, u32 (&take)[W]) {
    u32 band_before = before >> 16;
    u32 budget = band_left > band_before ? band_left - band_before : 0u;
#pragma unroll
    for (int w = 0; w < W; ++w) {
        u32 b = lowest_bits(band[w], budget);
        budget -= __popc(b);
        take[w] = strong[w] | b;
    }
    return (before & 0xffffu) + min(band_before, band_left);
}

// Stage 3 for one row's lanes: one shuffle scan of the lanes' strong and band counts (packed
// in one word: at most 1024 each) places every lane's elements; lane order is index order.
// The same elements in the same order as docs/kernel.md's chunks of 32: every strong one,
// then the first band_left band elements by index. sub: the lane's place among the row's.
template <int EPL, int LANES, class Row>
__device__ __forceinline__ void select_topk_lanes(const Row& row, const Cut& c,
                                                  const Params& p, u32 sub, u32 first,
                                                  const elem_t* row_in, elem_t* out_val,
                                                  idx_t* out_idx, u32* stage, u32 cap) {
    u32 strong[MASK_WORDS(EPL)], band[MASK_WORDS(EPL)];
    u32 own = classify<EPL>(row, first, p.m, c, strong, band);
    u32 incl = row_scan<LANES>(row.lanes, sub, own);
    u32 all = __shfl_sync(row.lanes, incl, LANES - 1, LANES), band_left = p.k - c.strong_count;
    u32 total = min(p.k, (all & 0xffffu) + min(all >> 16, band_left));
    u32 take[MASK_WORDS(EPL)];
    u32 pos = taken(strong, band, incl - own, band_left, take);
    u32 lanes = row.lanes;
    emit_staged(take, pos, total, first, stage, cap, sub, (u32)LANES,
                [lanes]() { __syncwarp(lanes); }, row_in, out_val, out_idx);
}

// Stage 3 over a narrowed row's candidates: the chunks of 32 of docs/kernel.md, over the
// candidates (index order) instead of the row; every element the cut takes is a candidate.
template <int C>
__device__ __forceinline__ void select_candidates(const CandRow<C>& row, const Cut& c, const Params& p,
                                                  const u32* cand, const elem_t* row_in,
                                                  elem_t* out_val, idx_t* out_idx) {
    u32 lane = threadIdx.x & 31u, written = 0u, band_left = p.k - c.strong_count;
#pragma unroll
    for (int q = 0; q < C; ++q) {
        u32 r = lane + 32u * q;
        bool valid = r < row.n;
        u32 i = valid ? cand[CandRow<C>::CAP + r] : 0u, band_taken;
        written += select_chunk(row.keys[q], valid, i, c, band_left, written, p.k, row_in,
                                out_val, out_idx, p.sign, &band_taken);
        band_left -= band_taken;
        if (written >= p.k || 32u * (q + 1) >= row.n) break;  // warp-uniform
    }
}
