// The block-row kernels: rtopk_block_rows and rtopk_block_rows_narrow, one block per row
// (docs/kernel.md, the last table). The entry points and their launch bounds are written from
// src/kernels.rs's table.

#include "load.cuh"
#include "search.cuh"
#include "select.cuh"
#include "narrow.cuh"
#include "floor.cuh"

// Block-wide min and max key, through the per-warp slots.
template <bool NARROWS, bool SKIPS>
__device__ void block_range(const BlockRow<NARROWS, SKIPS>& row, u32 lane_min, u32 lane_max, u32* lo, u32* hi) {
    u32 warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    lane_min = __reduce_min_sync(FULL_MASK, lane_min);
    lane_max = __reduce_max_sync(FULL_MASK, lane_max);
    u32* slots = row.s_partial + 64;  // apart from the block sums' slots
    if ((threadIdx.x & 31u) == 0) { slots[warp] = lane_min; slots[32 + warp] = lane_max; }
    __syncthreads();
    u32 lane = threadIdx.x & 31u;
    *lo = __reduce_min_sync(FULL_MASK, lane < nwarps ? slots[lane] : 0xffffffffu);
    *hi = __reduce_max_sync(FULL_MASK, lane < nwarps ? slots[32 + lane] : 0u);
}

// Stage 1 of a 16-bit block row: the thread's BLOCK_EPL elements (16-byte loads of 8 where
// the row starts `aligned`; a ragged row, SKIPS, of any width keeps them but for the group its
// end cuts, as an f32 row's staged loads do) as their own 16-bit keys (docs/kernel.md, "16-bit
// rows"; padding: key 0), and the thread's min and max key over those inside the row.
template <bool NARROWS, bool SKIPS>
__device__ __forceinline__ void load_block_keys16(BlockRow<NARROWS, SKIPS>& row, const elem_t* row_in, const Params& p,
                                                  u32 first, bool aligned, u32* lane_min, u32* lane_max) {
    u32 pairs[BLOCK_EPL / 2];
    load_pairs16<BLOCK_EPL, SKIPS>(row_in, first, p.m, aligned, pairs);
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) row.keys[j] = (pairs[j / 2] >> (16 * (j % 2))) & 0xffffu;
    u32 flip = p.sign < 0.0f ? 0x8000u : 0u;
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) {
        bool valid = first + (u32)j < p.m;
        row.keys[j] = valid ? key16_of_ordered(row.keys[j] ^ flip, p.sign > 0.0f) : 0u;
        if (valid) *lane_min = min(*lane_min, row.keys[j]);
        *lane_max = max(*lane_max, row.keys[j]);  // 0 is neutral
    }
}

// The slot of a warp's 16-byte chunk u in its staging area: the chunks in groups of 8 (one
// thread's), each group's order turned by the group's number, so that neither a quarter warp's
// stores (8 chunks of one group) nor its loads (one chunk of each of 8 groups) meet a bank
// twice.
__device__ __forceinline__ u32 stage_slot(u32 u) { return (u & ~7u) | ((u ^ (u >> 3)) & 7u); }

// Whether the launch gave the block the shared memory to stage its loads in (rtopk-plan's
// block_load_stage: BLOCK_LOAD_STAGE_WARP bytes a warp where the plan's rules and the device's
// opt-in limit allow).
__device__ __forceinline__ bool stages_loads() {
    u32 bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes >= (blockDim.x >> 5) * BLOCK_LOAD_STAGE_WARP;
}

// load_block_staged: stage 1's loads of an f32 block row of 16-byte aligned rows. Thread t
// owns elements BLOCK_EPL t .. BLOCK_EPL t + BLOCK_EPL - 1 (the selection's thread order is
// index order), 128 contiguous bytes; read by their owners, each 16-byte load of a warp would
// touch 32 lines, and a block's row arrives at a fraction of the rate one SM can pull
// (docs/kernel.md, "Stage 1 — load"). So lane w's load q reads its warp's chunk 32 q + w (512
// consecutive bytes a load, every load issued before any is used), and the chunks reach their
// owners through the warp's BLOCK_LOAD_STAGE_WARP bytes (4 KB) of the dynamic shared memory,
// through stage_slot. A ragged row of a width that is not
// whole 16-byte groups keeps its 16-byte loads but for the group its end cuts.
__device__ __forceinline__ void load_block_staged(u32 (&keys)[BLOCK_EPL], const elem_t* row_in, u32 m,
                                                  uint4* stage) {
    constexpr u32 CHUNKS = BLOCK_EPL / 4;  // a thread's 16-byte chunks
    u32 lane = threadIdx.x & 31u;
    uint4* own = stage + (threadIdx.x >> 5) * (32u * CHUNKS);
    u32 warp_first = (threadIdx.x & ~31u) * BLOCK_EPL;
    uint4 chunk[CHUNKS];
#pragma unroll
    for (u32 q = 0; q < CHUNKS; ++q) {
        u32 i = warp_first + 4u * (32u * q + lane);
        if (i + 4u <= m) {
            chunk[q] = *reinterpret_cast<const uint4*>(row_in + i);
        } else {  // the chunk a ragged row's end cuts, element by element; 0 past the end
            u32 e[4];
#pragma unroll
            for (u32 j = 0; j < 4u; ++j) e[j] = i + j < m ? __float_as_uint(row_in[i + j]) : 0u;
            chunk[q] = make_uint4(e[0], e[1], e[2], e[3]);
        }
    }
#pragma unroll
    for (u32 q = 0; q < CHUNKS; ++q) own[stage_slot(32u * q + lane)] = chunk[q];
    __syncwarp();
#pragma unroll
    for (u32 q = 0; q < CHUNKS; ++q) {
        uint4 c = own[stage_slot(CHUNKS * lane + q)];
        keys[4 * q] = c.x; keys[4 * q + 1] = c.y; keys[4 * q + 2] = c.z; keys[4 * q + 3] = c.w;
    }
}

// Stage 1's loads into registers: thread t's BLOCK_EPL slots hold elements first ..
// first + BLOCK_EPL - 1 of row_in (p.m wide; key 0 past it), keyed, and the thread's min and
// max key over those inside the row. Every load is issued before the first key is computed
// (the raw bits wait in keys[]). Block rows and cluster rows (cluster_rows.cu) alike. 16-byte
// loads where the launch is `aligned`: a ragged row (SKIPS) of any width keeps them but for
// the group its end cuts, whatever the path (staged, in registers, 16-bit, integer).
template <bool NARROWS, bool SKIPS>
__device__ __forceinline__ void load_block_slots(BlockRow<NARROWS, SKIPS>& row, const elem_t* row_in, const Params& p,
                                                 u32 first, bool aligned, u32* smem, u32* lane_min, u32* lane_max) {
#if ELEM_INTEGER
    {
        elem_t ints[BLOCK_EPL];
        load_ints<BLOCK_EPL, SKIPS>(row_in, first, p.m, aligned, ints);
        key_ints(row.keys, ints, first, p.m, p.sign, lane_min, lane_max);
    }
#elif ELEM_PACKED16
    load_block_keys16(row, row_in, p, first, aligned, lane_min, lane_max);
#else
    if (aligned && stages_loads()) {
        load_block_staged(row.keys, row_in, p.m, reinterpret_cast<uint4*>(smem));
    } else if (aligned) {
#pragma unroll
        for (int q = 0; q < BLOCK_EPL / 4; ++q) {
            u32 i = first + 4u * (u32)q;  // all 4 or none, but for the group SKIPS cuts
            if (cut_group<SKIPS, 4>(i, p.m)) {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    row.keys[4 * q + j] = i + (u32)j < p.m ? __float_as_uint(row_in[i + j]) : 0u;
                continue;
            }
            uint4 b = i < p.m ? *reinterpret_cast<const uint4*>(row_in + i) : make_uint4(0, 0, 0, 0);
            row.keys[4 * q] = b.x; row.keys[4 * q + 1] = b.y;
            row.keys[4 * q + 2] = b.z; row.keys[4 * q + 3] = b.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < BLOCK_EPL; ++j)
            row.keys[j] = first + (u32)j < p.m ? __float_as_uint(row_in[first + j]) : 0u;
    }
    {
        float v[BLOCK_EPL];
#pragma unroll
        for (int j = 0; j < BLOCK_EPL; ++j) v[j] = __uint_as_float(row.keys[j]);
        // each thread its own choice: a block row's end cuts or passes the threads of one or
        // two warps, the others' keys stay on the path without per-slot tests
        key_slots(row.keys, v, first, p.m, p.sign, first + (u32)BLOCK_EPL <= p.m, lane_min, lane_max);
    }
#endif
}

// 16-bit rows by histograms (docs/kernel.md, "16-bit rows by histograms"): a 16-bit row has at
// most 65536 keys, so the high byte of its k-th greatest key is the bin of a 256-bin histogram
// of its keys' high bytes where the keys above it reach k, and its low byte that of a second
// histogram over the keys of that high byte. Block rows held in registers (block_histogram_search)
// and cluster rows (cluster_rows.cu: histogram_search), where the row's counts nobody asked for
// (docs/contract.md §3's counts are bisect's), in exact mode without a precision or a recall
// target.
#define HIST16_BINS 256u
__device__ __forceinline__ bool histograms(const Params& p) {
    return ELEM_PACKED16 && p.out_iter == nullptr && p.max_iter < 0 && p.precision == 0.0f &&
           !(p.recall > 0.0f);
}

// The sum of v over lanes lane..31 of the warp: a shuffle-down scan.
__device__ __forceinline__ u32 suffix_sum(u32 v) {
    u32 lane = threadIdx.x & 31u;
#pragma unroll
    for (u32 d = 1u; d < 32u; d <<= 1) {
        u32 up = __shfl_down_sync(FULL_MASK, v, d);
        if (lane + d < 32u) v += up;
    }
    return v;
}

// The bin of the k-th greatest key of a histogram (every warp alike, 1 <= k <= its total):
// lane l sums bins 8 l .. 8 l + 7, a shuffle scan sums the lanes above each, and the lane whose
// bins reach k walks them down. *above: the keys in the bins above it; *in_bin its.
__device__ u32 kth_bin(const u32* h, u32 k, u32* above, u32* in_bin) {
    u32 lane = threadIdx.x & 31u;
    u32 c[8], sum = 0u;
#pragma unroll
    for (int i = 0; i < 8; ++i) { c[i] = h[8u * lane + (u32)i]; sum += c[i]; }
    u32 from = suffix_sum(sum);  // the keys in lanes lane..31
    u32 past = from - sum;      // the keys in lanes above this one
    u32 src = __ffs(__ballot_sync(FULL_MASK, past < k && k <= from)) - 1u;
    u32 bin = 0u, over = past, here = 0u;
    bool found = false;
#pragma unroll
    for (int i = 7; i >= 0; --i) {
        bool at = !found && over + c[i] >= k;
        bin = at ? 8u * lane + (u32)i : bin;
        here = at ? c[i] : here;
        found = found || at;
        over = found ? over : over + c[i];
    }
    *above = __shfl_sync(FULL_MASK, over, src);
    *in_bin = __shfl_sync(FULL_MASK, here, src);
    return __shfl_sync(FULL_MASK, bin, src);
}

// The converged search's bracket at the k-th key `key`, from the histograms: lo_key the key
// with its count (the keys above it and its own), hi_key the next with the keys above.
__device__ __forceinline__ void bracket_of_bins(Search& s, u32 key, u32 above, u32 own) {
    s.lo_key = key;
    s.count_at_lo = above + own;
    s.hi_key = key + 1u;
    s.count_at_hi = above;
    s.has_count_at_hi = 1;
}

// One pass of a histogram search over this block's keys in registers (the first `here` of the
// block's): all of them (FIRST), or those whose high byte is `high`, counted by their high byte
// (FIRST) or low byte into s_hist by shared atomics, then the block's barrier.
template <bool FIRST, class Row>
__device__ __forceinline__ void block_byte_histogram(const Row& row, u32 here, u32 high, u32* s_hist) {
    u32 first = BLOCK_EPL * threadIdx.x;
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) {
        u32 key = row.keys[j];
        bool valid = first + (u32)j < here;
        if (FIRST ? valid : valid && key >> 8 == high)
            atomicAdd(&s_hist[FIRST ? key >> 8 : key & 0xffu], 1u);
    }
    __syncthreads();
}

// The exact search of a 16-bit block row held in registers (histograms): two histograms in
// s_hist's 2 HIST16_BINS words (zeroed here), the bracket the converged search's — lo_key the
// k-th key with its count, hi_key the next with its — so the answer is too.
template <class Row>
__device__ Search block_histogram_search(const Row& row, u32 lo_key, u32 hi_key, u32 k, u32* s_hist) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m,
                -1};
    if (lo_key == hi_key) return s;
    for (u32 i = threadIdx.x; i < 2u * HIST16_BINS; i += blockDim.x) s_hist[i] = 0u;
    __syncthreads();
    u32 above, in_high, above_low, in_low;
    block_byte_histogram<true>(row, row.m, 0u, s_hist);
    u32 high = kth_bin(s_hist, k, &above, &in_high);
    block_byte_histogram<false>(row, row.m, high, s_hist + HIST16_BINS);
    u32 low = kth_bin(s_hist + HIST16_BINS, k - above, &above_low, &in_low);
    bracket_of_bins(s, high << 8 | low, above + above_low, in_low);
    return s;
}

// Whether a row may take the plain unit's searches (value bins, histograms, and on a cluster a
// guessed bracket): every row but, on a ragged twin, the rows of its hints' entry point, which
// start from their hint, and a row that selects all it has (search_of ends it at once).
template <bool RAGGED, bool HINTED>
__device__ __forceinline__ bool plain_search(const Params& p) {
    return !(RAGGED && (HINTED || p.k == p.m));
}

// f32 rows by a histogram of their values (docs/kernel.md, "Value bins"): one pass counts the
// block's keys into VALUE_BINS bins of equal width over the bracket's values, and the bin of the
// k-th greatest key leaves the value phase a bracket VALUE_BINS times narrower, so that the
// bisection ends in about log2 of that bin's keys more tests instead of log2 of the row's.
// Block rows held in registers whose counts nobody asked for (docs/contract.md §3), in exact
// mode without a precision or a recall target, where the bracket's values are plain (search.cuh:
// VALUE_PLAIN) and the launch lets them (p.value_bins: rtopk-plan's Plan::value_bins, launches
// of few blocks). The bins lie in the stage past its first VALUE_BINS_AT words (a split's floor
// is its first).
#define VALUE_BIN_LANE 31u
#define VALUE_BINS (32u * VALUE_BIN_LANE)
#define VALUE_BINS_AT 32u
__device__ __forceinline__ bool value_bins(const Params& p) {
    return ELEM_KIND == ELEM_F32 && p.out_iter == nullptr && p.max_iter < 0 && p.precision == 0.0f &&
           !(p.recall > 0.0f);
}

// The bin of the k-th greatest key of a histogram of 32 P bins whose bin 0 is not counted
// (every warp alike, k >= 1, P < 32; bin 0 where the bins counted hold fewer than k): lane l
// sums group l, bins P l .. P l + P - 1 (P odd: a warp's loads meet no bank twice), a shuffle
// scan sums the groups above each, and the group that reaches k is walked a bin a lane by a
// second scan. Nothing is held per bin: a lane's P counts in registers beside a block row's
// keys would spill. *above: the keys in the bins above it; *in_bin its.
template <u32 P>
__device__ u32 kth_bin_of(const u32* h, u32 k, u32* above, u32* in_bin) {
    static_assert(P < 32u, "a group's bins fit the lanes");
    u32 lane = threadIdx.x & 31u;
    u32 sum = 0u;
#pragma unroll
    for (u32 i = 0; i < P; ++i) sum += h[P * lane + i];
    u32 from = suffix_sum(sum);  // the keys in groups lane..31
    u32 owners = __ballot_sync(FULL_MASK, from - sum < k && k <= from);
    if (owners == 0u) {  // warp-uniform: k lies past the bins counted, in bin 0 (uncounted)
        *above = __shfl_sync(FULL_MASK, from, 0);
        *in_bin = 0u;
        return 0u;
    }
    u32 group = __ffs(owners) - 1u;
    u32 over = __shfl_sync(FULL_MASK, from - sum, group);  // the keys in the groups above it
    u32 c = lane < P ? h[P * group + lane] : 0u;
    u32 f = suffix_sum(c);  // the keys in the group's bins lane..P - 1
    u32 at = __ffs(__ballot_sync(FULL_MASK, over + f - c < k && k <= over + f)) - 1u;
    *above = over + __shfl_sync(FULL_MASK, f - c, at);
    *in_bin = __shfl_sync(FULL_MASK, c, at);
    return P * group + at;
}

// The value bin of ordered value v >= lo (keys below a split's floor, v < lo, fall in bin 0).
__device__ __forceinline__ u32 value_bin(float v, float lo, float scale) {
    return min(__float2uint_rz(__fmul_rn(__fsub_rn(v, lo), scale)), VALUE_BINS - 1u);
}

// The search of an f32 block row held in registers by its value bins (value_bins), s_hist's
// VALUE_BINS words zeroed by the caller before a barrier: the bins' pass — bin 0 uncounted, so
// that a row's minimum repeated (ReLU's zeros) and the keys below a split's floor add no
// atomics on one word — then the value phase from the k-th key's bin, each side widened by a
// margin well past the rounding of the bins and of the edges (an edge lo + b / scale is within
// a few units in the last place of the bracket's greater magnitude A of the values whose bin is
// b): 2^-16 of the width and 2^-21 of A, where A is at least 2^-100 (the margin far above the
// subnormals' spacing), then finish_exact.
template <class Row>
__device__ Search block_value_search(const Row& row, u32 lo_key, u32 hi_key, const Params& p, u32* s_hist) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m,
                -1};
    if (lo_key == hi_key) return s;
    value_of_bracket(s, p);
    float width = __fsub_rn(s.hi, s.lo);
    float scale = __fdiv_rn((float)VALUE_BINS, width);
    float mag = fmaxf(fabsf(s.lo), fabsf(s.hi));
    if (s.value == VALUE_PLAIN && isfinite(scale) && mag >= 0x1p-100f && p.k <= row.m) {  // block-uniform
        u32 first = BLOCK_EPL * threadIdx.x;
#pragma unroll
        for (int j = 0; j < BLOCK_EPL; ++j) {
            u32 bin = value_bin(ordered_value_of_key(row.keys[j]), s.lo, scale);
            if (first + (u32)j < row.m && bin != 0u) atomicAdd(&s_hist[bin], 1u);
        }
        __syncthreads();
        u32 above, in_bin;
        u32 b = kth_bin_of<VALUE_BIN_LANE>(s_hist, p.k, &above, &in_bin);
        float margin = __fadd_rn(__fmul_rn(width, 0x1p-16f), __fmul_rn(mag, 0x1p-21f));
        float lo = s.lo, hi = s.hi;
        if (b > 0u) lo = fmaxf(s.lo, __fsub_rn(__fadd_rn(s.lo, __fdiv_rn((float)b, scale)), margin));
        if (b + 1u < VALUE_BINS)
            hi = fminf(s.hi, __fadd_rn(__fadd_rn(s.lo, __fdiv_rn((float)(b + 1u), scale)), margin));
        u32 lk = max(lo_key, number_key(lo)), hk = min(hi_key, number_key(hi));
        s.lo_key = lk; s.hi_key = hk;
        s.lo = ordered_value_of_key(lk); s.hi = ordered_value_of_key(hk);
        if (b > 0u) s.count_at_lo = above + in_bin;
        if (lk == hk) return s;
    }
    finish_exact(row, s, p.k);
    return s;
}

// RAGGED: a ragged unit's row (rtopk_block_row_ragged), whose blocks skip past its end;
// FLOOR: the floor entry point's (floor.cuh); HINTED: the _hinted entry point's, whose search
// starts at the row's hint.
template <bool NARROWS, bool RAGGED = false, bool FLOOR = false, bool HINTED = false>
__device__ void rtopk_block_row(const Params& p, RowPlace at, bool aligned) {
    extern __shared__ __align__(16) u32 smem[];  // the cached keys; first the load staging
    __shared__ u32 s_partial[128];
    __shared__ u32 s_chunk[2 * 32];
    __shared__ u32 s_stage[BLOCK_STAGE];  // the selection's staged indices, or the candidates
    static_assert(BLOCK_STAGE >= 2u * BLOCK_CAND_CAP, "the candidates and their indices fill the stage");
    u64 row_id = blockIdx.x;
    const elem_t* row_in = at.in;
    float hint = hint_of<HINTED>(p, row_id);
    BlockRow<NARROWS, RAGGED> row;
    row.row = row_in; row.s_keys = smem; row.s_partial = s_partial; row.half = 0u;
    row.m = p.m; row.in_regs = min(p.m, BLOCK_EPL * blockDim.x); row.sign = p.sign;
    row.cached = min(p.cached_keys, p.m - row.in_regs);
    // stage 1: load_row (registers, then shared memory, min/max); thread t's slots hold
    // elements BLOCK_EPL t .. BLOCK_EPL t + BLOCK_EPL - 1
    u32 first = BLOCK_EPL * threadIdx.x;
    u32 lane_min = 0xffffffffu, lane_max = 0u;
    load_block_slots(row, row_in, p, first, aligned, smem, &lane_min, &lane_max);
    if (row.cached > 0u) __syncthreads();  // block-uniform: every warp is past its staging
    for (u32 i = row.in_regs + threadIdx.x; i < p.m; i += blockDim.x) {
        u32 key = own_key(row_in[i], p.sign);
        if (i - row.in_regs < row.cached) smem[i - row.in_regs] = key;
        lane_min = min(lane_min, key);
        lane_max = max(lane_max, key);
    }
    // a split's floor (floor.cuh), read by one thread into the stage (unused until the
    // selection's and the narrowing's block prefixes, whose barriers follow every read of it),
    // seen by all after block_range's barrier
    if (FLOOR && threadIdx.x == 0) s_stage[0] = floor_of(p, row_id);
    // the value bins zeroed before block_range's barrier (block-uniform)
    bool plain = row.in_regs == p.m && plain_search<RAGGED, HINTED>(p);
    bool bins = ELEM_KIND == ELEM_F32 && !NARROWS && !HINTED && p.value_bins != 0u && value_bins(p) && plain;
    if (bins)
        for (u32 i = threadIdx.x; i < VALUE_BINS; i += blockDim.x) s_stage[VALUE_BINS_AT + i] = 0u;
    u32 lo_key, hi_key;
    block_range(row, lane_min, lane_max, &lo_key, &hi_key);
    // at most k keys at or above the floor are the chunk's selection, more start the search
    // from it (the floor entry points alone, FLOOR)
    u32 floor = 0u, at_floor = NO_FLOOR;
    if constexpr (FLOOR) {
        floor = s_stage[0];
        at_floor = count_at_floor(row, floor, lo_key);
        if (at_floor != NO_FLOOR && at_floor > p.k) lo_key = floor;
    }
    bool under = FLOOR && at_floor <= p.k;
    // stage 2: search_threshold
    Search s = {};
    if constexpr (ELEM_PACKED16 && !NARROWS && !HINTED) {
        // the histograms in the stage's second half (a split's floor is its first word)
        if (!under && histograms(p) && plain)
            s = block_histogram_search(row, lo_key, hi_key, p.k, s_stage + BLOCK_STAGE / 2u);
        else if (!under)
            s = search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint);
    } else if constexpr (ELEM_KIND == ELEM_F32 && !NARROWS && !HINTED) {
        if (!under && bins)
            s = block_value_search(row, lo_key, hi_key, p, s_stage + VALUE_BINS_AT);
        else if (!under)
            s = search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint);
    } else {
        if (!under) s = search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint);
    }
    elem_t* out_val = opaque(p.out_val + at.out);
    idx_t* out_idx = opaque(p.out_idx + at.out);
    if constexpr (NARROWS) {
        if (s.exit == EXIT_NARROW) {  // block-uniform
            narrow_row(row, s_stage, s_chunk);
            if (threadIdx.x >= 32u) return;  // the first warp goes on alone: no barrier follows
            auto narrowed = take_candidates<BLOCK_CAND_KEYS>(s_stage, s.count_at_lo, p.m);
            u32 band_lo = finish_candidates(narrowed, s, p, s_stage, row_in, out_val, out_idx, row_id);
            if (FLOOR && threadIdx.x == 0) raise_floor(p, row_id, band_lo);
            return;
        }
    }
    // stage 3: select_topk, first the elements in registers (thread order is index order: one
    // block prefix of the threads' packed strong and band counts, at most 32768 each, places
    // them), then past them one chunk of blockDim consecutive elements at a time
    Cut c = under ? floor_cut(floor, at_floor) : cut_of(row, s, p.k);
    u32 band_left = p.k - c.strong_count;
    u32 strong[1], band[1], before, total;
    u32 own = classify<BLOCK_EPL>(row, first, p.m, c, strong, band);
    block_prefix(own, s_chunk, &before, &total);
    u32 band_taken = min(total >> 16, band_left);
    u32 written = min(p.k, (total & 0xffffu) + band_taken), take[1];
    u32 pos = taken(strong, band, before, band_left, take);
    emit_staged(take, pos, written, first, s_stage, BLOCK_STAGE, threadIdx.x, blockDim.x,
                []() { __syncthreads(); }, row_in, out_val, out_idx);
    band_left -= band_taken;
    u32 warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5, lane = threadIdx.x & 31u;
    for (u32 base = row.in_regs; base < p.m && written < p.k; base += blockDim.x) {
        u32 i = base + threadIdx.x;
        bool valid = i < p.m;
        u32 key = valid ? row.key_at(i) : 0u;
        bool strong = valid && key > c.strong_above;
        bool band = valid && !strong && key >= c.band_lo;
        u32 strong_mask = __ballot_sync(FULL_MASK, strong);
        u32 band_mask = __ballot_sync(FULL_MASK, band);
        __syncthreads();  // the previous chunk's readers of s_chunk are done
        if (lane == 0) { s_chunk[warp] = __popc(strong_mask); s_chunk[32 + warp] = __popc(band_mask); }
        __syncthreads();
        // lane w of every warp reads warp w's counts: prefix and totals in four reductions
        u32 sw = lane < nwarps ? s_chunk[lane] : 0u, bw = lane < nwarps ? s_chunk[32 + lane] : 0u;
        u32 strong_before = __reduce_add_sync(FULL_MASK, lane < warp ? sw : 0u);
        u32 band_before = __reduce_add_sync(FULL_MASK, lane < warp ? bw : 0u);
        u32 strong_total = __reduce_add_sync(FULL_MASK, sw);
        u32 band_total = __reduce_add_sync(FULL_MASK, bw);
        u32 my_budget = band_left > band_before ? band_left - band_before : 0u;
        u32 taken_before = min(band_before, band_left);
        u32 band_taken;
        select_chunk(key, valid, i, c, my_budget, written + strong_before + taken_before, p.k,
                     row_in, out_val, out_idx, p.sign, &band_taken);
        u32 taken_total = min(band_total, band_left);
        written += strong_total + taken_total;
        band_left -= taken_total;
    }
    if constexpr (FLOOR) {
        if (under) pad_below_floor(p, out_val, out_idx, at_floor, threadIdx.x, blockDim.x);
        else if (threadIdx.x == 0) raise_floor(p, row_id, c.band_lo);
    }
    if (threadIdx.x == 0 && p.out_iter) p.out_iter[row_id] = s.iterations;
}

// A plain launch's row: aligned (16-byte loads) where the launch says (p.vec4); FLOOR: the
// floor entry point's (floor.cuh).
template <bool NARROWS, bool FLOOR = false>
__device__ void rtopk_block_row(const Params& p) {
    rtopk_block_row<NARROWS, false, FLOOR>(p, place_row(p, blockIdx.x), p.vec4 != 0);
}

// A ragged row (docs/contract.md §5), one block: its own width and k, read once (row_args;
// block-uniform), its padding written, then the row as any other, its search starting at its
// hint where the entry point takes hints (HINTED: `<name>_hinted`) and the launch gives them.
// Only the ragged units take this path (rtopk_warp_row_ragged says why).
template <bool NARROWS, bool HINTED = false>
__device__ void rtopk_block_row_ragged(const Params& launch) {
    u64 row_id = blockIdx.x;
    RowPlace at;
    const Params p = row_args(launch, row_id, &at);
    // a ragged split's chunk rows pad nothing (split_row_args)
    if (p.k < launch.k && launch.chunks == 1u)
        pad_results(p.out_val, p.out_idx, at.out, p.k, launch.k, threadIdx.x, blockDim.x);
    if (p.k == 0u) {
        if (threadIdx.x == 0 && p.out_iter) p.out_iter[row_id] = 0u;
        return;
    }
    // the launch's 16-byte alignment holds for every row it runs whatever the row's own width
    // (the staged load cuts the last group): a whole row, a ragged split's chunk (its start a
    // multiple of the chunk, which the plan's vec4 makes whole groups) and its second stage's
    // candidates (a stride of whole groups). Without it, the chunk a row's end cuts and every
    // second-stage row would load element by element, the slowest block of their launch.
    bool aligned = launch.vec4 != 0;
    rtopk_block_row<NARROWS, true, false, HINTED>(p, at, aligned);
}
