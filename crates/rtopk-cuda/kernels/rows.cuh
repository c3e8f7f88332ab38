// Row storage: where each launch shape keeps a row's keys, and how count_ge reaches them
// (docs/kernel.md, the last table's count_ge row).
#pragma once

#include "order.cuh"

// Words of one bit per slot for N slots.
#define MASK_WORDS(N) (((N) + 31) / 32)

// Bit j % 32 of word j / 32: keys[j] >= t.
template <int N>
__device__ __forceinline__ void slots_ge(const u32 (&keys)[N], u32 t, u32 (&ge)[MASK_WORDS(N)]) {
#pragma unroll
    for (int w = 0; w < MASK_WORDS(N); ++w) {
        u32 bits = 0u;
#pragma unroll
        for (int j = 32 * w; j < N && j < 32 * w + 32; ++j)
            bits |= (keys[j] >= t ? 1u : 0u) << (j - 32 * w);
        ge[w] = bits;
    }
}

// Keys >= t among N register slots: the compares of each 32 slots pack into one mask, counted
// by one popc (a third of the instructions of adding the compares one by one).
template <int N>
__device__ __forceinline__ u32 count_slots_ge(const u32 (&keys)[N], u32 t) {
    u32 ge[MASK_WORDS(N)], total = 0u;
    slots_ge(keys, t, ge);
#pragma unroll
    for (int w = 0; w < MASK_WORDS(N); ++w) total += __popc(ge[w]);
    return total;
}

// Sum, min and max over a row's LANES lanes (`lanes`: their mask): one reduction for a whole
// warp; a butterfly of shuffles within the row's lanes for part-warp rows (a reduction over a
// part-warp mask is run once per distinct mask of the warp, one after another).
template <int LANES, class Op>
__device__ __forceinline__ u32 row_butterfly(u32 lanes, u32 v, Op op) {
#pragma unroll
    for (int d = LANES / 2; d >= 1; d /= 2) v = op(v, __shfl_xor_sync(lanes, v, d, LANES));
    return v;
}
// A part-warp row's sum (every count of its search) shuffles under the lanes active with it,
// as a coalesced group's collectives do (CUDA C++ Programming Guide, "Cooperative Groups",
// coalesced_threads), not under the row's own mask: its own lanes are always among them and
// each shuffle stays within the row's LANES, and a mask that differs by lane made the
// compiler test the group (MATCH.ANY, REDUX.OR, VOTEU) before every sum
// (docs/kernel.md, "16-bit rows").
template <int LANES>
__device__ __forceinline__ u32 row_sum(u32 lanes, u32 v) {
    if constexpr (LANES == 32) return __reduce_add_sync(FULL_MASK, v);
    (void)lanes;
    return row_butterfly<LANES>(__activemask(), v, [](u32 a, u32 b) { return a + b; });
}
template <int LANES>
__device__ __forceinline__ u32 row_min(u32 lanes, u32 v) {
    if constexpr (LANES == 32) return __reduce_min_sync(FULL_MASK, v);
    return row_butterfly<LANES>(lanes, v, [](u32 a, u32 b) { return min(a, b); });
}
template <int LANES>
__device__ __forceinline__ u32 row_max(u32 lanes, u32 v) {
    if constexpr (LANES == 32) return __reduce_max_sync(FULL_MASK, v);
    return row_butterfly<LANES>(lanes, v, [](u32 a, u32 b) { return max(a, b); });
}


// Inclusive prefix sum of v over a row's LANES lanes (sub: the lane's place among them).
template <int LANES>
__device__ __forceinline__ u32 row_scan(u32 lanes, u32 sub, u32 v) {
#pragma unroll
    for (u32 d = 1u; d < (u32)LANES; d <<= 1) {
        u32 up = __shfl_up_sync(lanes, v, d, LANES);
        if (sub >= d) v += up;
    }
    return v;
}

// One row per LANES lanes (a warp, or a half- or quarter-warp: two or four rows per warp);
// each lane holds EPL keys in registers. Slots past the row's end hold key 0, which only a
// threshold of 0 would count, and count_ge(0) is the whole row. `lanes`: the row's lanes in
// the warp (the collectives' mask: the rows of a warp count, reduce and scan independently).
template <int EPL, int LANES, bool NARROWS = false>
struct WarpRow {
    // Most keys the row narrows to (narrow_row), where it does: whole-warp rows in exact mode
    // with k < CAND_CAP (rtopk_warp_rows_impl).
    static constexpr u32 NARROW_CAP = NARROWS ? CAND_CAP : 0u;
    u32 keys[EPL];
    u32 m;
    u32 lanes;
    mutable u32 ge_last[MASK_WORDS(EPL)];  // the last count's slot masks (for narrow_row)

    // count_ge for t >= 1 (every threshold of the value phase and of the key phase).
    __device__ __forceinline__ u32 count_ge_positive(u32 t) const {
        u32 c = 0u;
        ::slots_ge(keys, t, ge_last);
#pragma unroll
        for (int w = 0; w < MASK_WORDS(EPL); ++w) c += __popc(ge_last[w]);
        return row_sum<LANES>(lanes, c);
    }
    __device__ __forceinline__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);
    }
    // The hint test's two counts, the keys > t and >= t (t >= 1, t + 1 does not wrap): two
    // counting passes.
    __device__ __forceinline__ void count_above_and_at_least(u32 t, u32* above, u32* at_least) const {
        *at_least = count_ge_positive(t);
        *above = count_ge_positive(t + 1u);
    }
    // The selection's and the narrowing's slot masks, and a slot's key.
    __device__ __forceinline__ void slots_ge(u32 t, u32 (&ge)[MASK_WORDS(EPL)]) const {
        ::slots_ge(keys, t, ge);
    }
    __device__ __forceinline__ u32 slot_key(int j) const { return keys[j]; }
};

// ---- 16-bit rows (docs/kernel.md, "16-bit rows") -------------------------------------------

// Packed compares of two 16-bit values per word: f16x2, or bf16x2 (sm_90; before it, the bf16
// halves are compared as the f32 values they widen to).
#if ELEM_KIND == ELEM_BF16
#define PACKED "bf16x2"
#else
#define PACKED "f16x2"
#endif
#if ELEM_KIND == ELEM_BF16 && __CUDA_ARCH__ < 900
#define PACKED_VIA_F32 1
#else
#define PACKED_VIA_F32 0
#endif

// 0xffff in each half of a whose value is >= b's, else 0; LARGEST counts NaN too (geu:
// unordered or >=), smallest mode does not (ge). (PTX ISA, "Half Precision Comparison
// Instructions: set", the .u32 destination.)
template <bool LARGEST>
__device__ __forceinline__ u32 packed_ge(u32 a, u32 b) {
    u32 d;
#if PACKED_VIA_F32
    float alo = __uint_as_float(a << 16), ahi = __uint_as_float(a & 0xffff0000u);
    float blo = __uint_as_float(b << 16), bhi = __uint_as_float(b & 0xffff0000u);
    bool lo = LARGEST ? !(alo < blo) : alo >= blo, hi = LARGEST ? !(ahi < bhi) : ahi >= bhi;
    d = (lo ? 0xffffu : 0u) | (hi ? 0xffff0000u : 0u);
#else
    if constexpr (LARGEST) asm("set.geu.u32." PACKED " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    else asm("set.ge.u32." PACKED " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
#endif
    return d;
}

// The halves set in s, a 32-bit sum (mod 2^32) of half masks (0xffff or 0 each): c_lo low
// and c_hi high halves sum to s = c_lo 0xffff + c_hi 0xffff0000, so -s = c_lo + (c_hi - c_lo)
// 2^16 and the high half of -s (2^17 + 1) is c_lo + c_hi (mod 2^16: exact below 2^16). The
// masks add three at a time (one integer add of three operands for two words), where packed
// float sums took one add a word.
__device__ __forceinline__ u32 halves_set(u32 s) {
    return (s * 0xfffdffffu) >> 16;  // 0xfffdffff = -(2^17 + 1)
}

// The lane's count of the halves whose value is >= the threshold h (in both halves): one
// compare a word, one add for two.
template <bool LARGEST, int W>
__device__ __forceinline__ u32 count_words_ge(const u32 (&words)[W], u32 h) {
    u32 s = 0u;
#pragma unroll
    for (int q = 0; q < W; q += 2) {
        u32 pair = q + 1 < W ? packed_ge<LARGEST>(words[q + 1], h) : 0u;
        s += packed_ge<LARGEST>(words[q], h) + pair;
    }
    return halves_set(s);
}

// The lane's NaN halves: one unordered self-compare per word (padding, -inf, is never NaN).
template <int W>
__device__ __forceinline__ u32 count_words_nan(const u32 (&words)[W]) {
    u32 s = 0u;
#pragma unroll
    for (int q = 0; q < W; ++q) {
        u32 d;
#if PACKED_VIA_F32
        float lo = __uint_as_float(words[q] << 16), hi = __uint_as_float(words[q] & 0xffff0000u);
        d = (isnan(lo) ? 0xffffu : 0u) | (isnan(hi) ? 0xffff0000u : 0u);
#else
        asm("set.nan.u32." PACKED " %0, %1, %1;" : "=r"(d) : "r"(words[q]));
#endif
        s += d;
    }
    return halves_set(s);
}

// Bits 2q and 2q + 1 of ge[2q / 32] (slots 2q and 2q + 1): the halves of word q whose value is
// >= h's, one compare a word; the mode is chosen once for the row, not per word (a choice per
// word ran both compares and a select). A half's mask has every bit of its half set, so one
// logic op a word keeps the two bits it needs where they already are: for the 8 words of the
// low 16 bits of a mask word, bit 2r of the low half and bit 2r + 17 of the high half (the
// high one shifted down by 16 at the end), for the next 8 bit 2r - 16 of the low half (shifted
// up by 16) and bit 2r + 1 of the high half.
template <bool LARGEST, int W, int EPL>
__device__ __forceinline__ void words_ge(const u32 (&words)[W], u32 h, u32 (&ge)[MASK_WORDS(EPL)]) {
    u32 low[MASK_WORDS(EPL)], high[MASK_WORDS(EPL)];
#pragma unroll
    for (int g = 0; g < MASK_WORDS(EPL); ++g) low[g] = high[g] = 0u;
#pragma unroll
    for (int q = 0; q < W; ++q) {
        u32 d = packed_ge<LARGEST>(words[q], h);
        int r = q % 16;
        if (r < 8) low[q / 16] |= d & ((1u << (2 * r)) | (1u << (2 * r + 17)));
        else high[q / 16] |= d & ((1u << (2 * r - 16)) | (1u << (2 * r + 1)));
    }
#pragma unroll
    for (int g = 0; g < MASK_WORDS(EPL); ++g)
        ge[g] |= (low[g] & 0xffffu) | (low[g] >> 16) | (high[g] << 16) | (high[g] & 0xffff0000u);
}

// A warp row of 16-bit elements: lane `sub` holds its EPL elements two per word, element j in
// half j % 2 of words[j / 2], as ordered bits (the input's, sign bit flipped in smallest mode;
// NaN as it is); slots past M hold ordered -inf (NEG_INF16). `inside`: the lane's slots inside
// the row. Thresholds are own (16-bit) keys; a count compares the packed words with the
// threshold's value, except for the NaN-only and the all-keys thresholds.
template <int EPL, int LANES, bool NARROWS = false>
struct PackedRow {
    static constexpr u32 NARROW_CAP = NARROWS ? CAND_CAP : 0u;
    static constexpr int WORDS = (EPL + 1) / 2;
    u32 words[WORDS];
    u32 m;
    u32 lanes;
    u32 inside;
    int largest;

    __device__ __forceinline__ u32 half(int j) const { return (words[j / 2] >> (16 * (j % 2))) & 0xffffu; }

    u32 nans;  // nan_slots(), counted by load_row (kept, not recounted: see nan_slots)

    // The lane's NaN slots inside the row (padding is -inf, never NaN; an odd EPL's last
    // word holds -inf in its high half). The count is made once, by load_row, and only on a
    // lane whose range reaches NaN's key: counted where it is used, the compiler hoists the
    // packed compares out of the search loop and keeps a register per word.
    __device__ __forceinline__ u32 count_nans() const { return count_words_nan(words); }
    __device__ __forceinline__ u32 nan_slots() const { return nans; }

    // The lane's slots whose own key is >= t (t >= 1): docs/kernel.md's three cases.
    __device__ __forceinline__ u32 lane_count_ge(u32 t) const {
        if (t > KEY16_POS_INF) return largest ? nan_slots() : 0u;               // NaN keys only
        if (t <= KEY16_NEG_INF) return largest ? inside : inside - nan_slots();  // every key
        u32 h = ordered_of_key16(t) * 0x10001u;
        return largest ? count_words_ge<true>(words, h) : count_words_ge<false>(words, h);
    }

    __device__ __forceinline__ u32 count_ge_positive(u32 t) const {
        return row_sum<LANES>(lanes, lane_count_ge(t));
    }
    // A value-phase test at c, the least value of the type >= its threshold, whose own key is
    // t: lane_count_ge's middle case, comparing with c itself (c lies strictly between -inf
    // and +inf, and its value is t's, -0.0 comparing as +0.0), without the key's round trip.
    __device__ __forceinline__ u32 count_ge_value(u32 c) const {
        u32 h = c * 0x10001u;
        return row_sum<LANES>(lanes, largest ? count_words_ge<true>(words, h)
                                             : count_words_ge<false>(words, h));
    }
    __device__ __forceinline__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);
    }
    // The hint test's two counts, the keys > t and >= t (t >= 1, t + 1 does not wrap): two
    // counting passes.
    __device__ __forceinline__ void count_above_and_at_least(u32 t, u32* above, u32* at_least) const {
        *at_least = count_ge_positive(t);
        *above = count_ge_positive(t + 1u);
    }

    // Bit j % 32 of word j / 32: slot j is inside the row and its own key is >= t (t = 0:
    // every slot inside the row, as a cut at the smallest-mode NaN key asks).
    __device__ __forceinline__ void slots_ge(u32 t, u32 (&ge)[MASK_WORDS(EPL)]) const {
#pragma unroll
        for (int w = 0; w < MASK_WORDS(EPL); ++w) ge[w] = 0u;
        if (t > KEY16_POS_INF || t <= KEY16_NEG_INF) {  // rows holding NaN only
            bool top = t > KEY16_POS_INF;
#pragma unroll
            for (int j = 0; j < EPL; ++j) {
                bool nan = is_nan16(half(j));
                bool in = top ? largest && nan : t == 0u || largest || !nan;
                ge[j / 32] |= ((u32)j < inside && in ? 1u : 0u) << (j % 32);
            }
            return;
        }
        // the packed compares (padding, -inf, never counts)
        u32 h = ordered_of_key16(t) * 0x10001u;
        if (largest) words_ge<true, WORDS, EPL>(words, h, ge);
        else words_ge<false, WORDS, EPL>(words, h, ge);
    }
    __device__ __forceinline__ u32 slot_key(int j) const {
        return key16_of_ordered(half(j), largest);
    }
};

// A value-phase test of a 16-bit row at c, the least value of the type >= its threshold, whose
// own key is t: count_ge_positive(t), but a packed row compares its words with c itself.
template <class Row>
__device__ __forceinline__ u32 count_at_value(const Row& row, u32 c, u32 t) {
    (void)c;
    return row.count_ge_positive(t);
}
template <int EPL, int LANES, bool NARROWS>
__device__ __forceinline__ u32 count_at_value(const PackedRow<EPL, LANES, NARROWS>& row, u32 c, u32 t) {
    (void)t;
    return row.count_ge_value(c);
}

// A row narrowed to its candidates on one warp, the n <= CAP keys >= lo_key at the step that
// narrowed it (narrow_row), in index order: candidate r is slot r / 32 of lane r % 32; slots
// past n hold key 0. Every later threshold is above that lo_key, so every key it counts is a
// candidate and the counts are the row's own; every element the cut selects is one too.
// C = 4 for a whole-warp row, BLOCK_CAND_KEYS (16) for a block row.
template <int C>
struct CandRow {
    static constexpr u32 NARROW_CAP = 0u;
    static constexpr u32 CAP = 32u * (u32)C;  // in `cand`, the indices start at CAP
    u32 keys[C];
    u32 m, n;

    // Groups of 4 slots (128 candidates); groups past n hold only padding and are skipped.
    __device__ __forceinline__ u32 count_ge_positive(u32 t) const {
        u32 c = 0u;
#pragma unroll
        for (int g = 0; g < C; g += 4) {
            if (g > 0 && 32u * (u32)g >= n) break;  // warp-uniform
            u32 bits = 0u;
#pragma unroll
            for (int j = 0; j < 4; ++j) bits |= (keys[g + j] >= t ? 1u : 0u) << j;
            c += __popc(bits);
        }
        return __reduce_add_sync(FULL_MASK, c);
    }
    __device__ __forceinline__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);
    }
    // The hint test's two counts, the keys > t and >= t (t >= 1, t + 1 does not wrap): two
    // counting passes.
    __device__ __forceinline__ void count_above_and_at_least(u32 t, u32* above, u32* at_least) const {
        *at_least = count_ge_positive(t);
        *above = count_ge_positive(t + 1u);
    }
};

// Block-wide exclusive prefix and total of each thread's `own` count: a warp scan, one
// barrier, two reductions over the warps' totals.
__device__ __forceinline__ void block_prefix(u32 own, u32* slots, u32* before, u32* total) {
    u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    u32 incl = own;
#pragma unroll
    for (u32 d = 1u; d < 32u; d <<= 1) {
        u32 up = __shfl_up_sync(FULL_MASK, incl, d);
        if (lane >= d) incl += up;
    }
    if (lane == 31u) slots[warp] = incl;
    __syncthreads();
    u32 w = lane < nwarps ? slots[lane] : 0u;
    *before = __reduce_add_sync(FULL_MASK, lane < warp ? w : 0u) + incl - own;
    *total = __reduce_add_sync(FULL_MASK, w);
}

// One block per row. Thread t keeps BLOCK_EPL keys in registers, elements BLOCK_EPL t ..
// BLOCK_EPL t + BLOCK_EPL - 1, so the registers hold the row's first
// in_regs = min(M, BLOCK_EPL * blockDim) elements. Shared memory holds the next `cached` keys
// (elements in_regs .. in_regs + cached - 1, up to the opt-in limit); anything beyond both is
// re-keyed from the input (L2-resident while the block works) on each pass.

// Rows shorter than this sum the hint test's two counts in one round (BlockRow,
// ClusterRow::count_above_and_at_least): each count then fits in 16 bits of one word.
#define PAIRED_COUNT_LIMIT 0x10000u

template <bool NARROWS, bool SKIPS = false>
struct BlockRow {
    u32 keys[BLOCK_EPL];
    mutable u32 ge_last[1];  // the last count's slot mask (for narrow_row)
    const elem_t* row;
    const u32* s_keys;
    u32* s_partial;     // two slots per warp, for block sums
    u32 m, in_regs, cached;
    mutable u32 half;   // which half of s_partial the next block sum uses
    float sign;

    // Element i's key for the selection: shared memory where it is there, else re-keyed.
    __device__ __forceinline__ u32 key_at(u32 i) const {
        u32 s = i - in_regs;  // wraps for i < in_regs
        return s < cached ? s_keys[s] : own_key(row[i], sign);
    }
    // The thread's register slots >= t (t >= 1), marked in ge_last, and how many. SKIPS (the
    // ragged units): a thread whose slots all lie past the row (a row shorter than its block)
    // holds keys 0 < t and skips the compares, so that a row of a quarter of its block's width
    // pays a quarter of their issue slots (whole warps skip together); the plain units keep
    // the one straight pass, which the branch slowed by up to 8 % on full rows
    // (docs/performance.md, "Few rows").
    __device__ __forceinline__ u32 slots_counted(u32 t) const {
        if constexpr (SKIPS) {
            ge_last[0] = 0u;
            if (BLOCK_EPL * threadIdx.x < in_regs) ::slots_ge(keys, t, ge_last);
        } else {
            ::slots_ge(keys, t, ge_last);
        }
        return __popc(ge_last[0]);
    }
    // The thread's keys >= t past the registers (rows wider than them): shared memory's, then
    // the rest re-keyed from the input.
    __device__ __forceinline__ u32 tail_counted(u32 t) const {
        u32 c = 0u;
        if (in_regs < m) {  // block-uniform
            u32 i = threadIdx.x;
            for (; i < cached; i += blockDim.x) c += s_keys[i] >= t ? 1u : 0u;
            for (i += in_regs; i < m; i += blockDim.x) c += own_key(row[i], sign) >= t ? 1u : 0u;
        }
        return c;
    }
    // The tail is written out here, not through tail_counted: as one expression of the two
    // helpers the plain block units ran 1.2-1.35x slower (docs/performance.md, "Threshold
    // hints: the hint test in one round").
    __device__ u32 count_ge_positive(u32 t) const {
        u32 c = slots_counted(t);
        if (in_regs < m) {  // block-uniform: rows wider than the registers
            u32 i = threadIdx.x;
            for (; i < cached; i += blockDim.x) c += s_keys[i] >= t ? 1u : 0u;
            for (i += in_regs; i < m; i += blockDim.x) c += own_key(row[i], sign) >= t ? 1u : 0u;
        }
        return block_sum(c);
    }
    __device__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);  // padding slots hold key 0
    }
    // The hint test's two counts, the keys > t and >= t (t >= 1, t + 1 does not wrap), in one
    // block sum where each fits in 16 bits (m < 2^16: packed as at_least << 16 | above, so the
    // sum of the low halves never carries into the high one); else two sums. ge_last ends as
    // the masks of t + 1, as after two counts.
    __device__ void count_above_and_at_least(u32 t, u32* above, u32* at_least) const {
        if (m >= PAIRED_COUNT_LIMIT) {  // block-uniform
            *at_least = count_ge_positive(t);
            *above = count_ge_positive(t + 1u);
            return;
        }
        u32 ge = slots_counted(t) + tail_counted(t);
        u32 gt = slots_counted(t + 1u) + tail_counted(t + 1u);
        u32 both = block_sum(ge << 16 | gt);
        *at_least = both >> 16;
        *above = both & 0xffffu;
    }
    __device__ __forceinline__ void slots_ge(u32 t, u32 (&ge)[1]) const { ::slots_ge(keys, t, ge); }
    __device__ __forceinline__ u32 slot_key(int j) const { return keys[j]; }
    // Most keys the row narrows to (narrow_row), where it does: rtopk_block_rows_narrow (exact
    // mode, k < BLOCK_CAND_CAP, rows of 3073 to 8192, all in registers).
    static constexpr u32 NARROW_CAP = NARROWS ? BLOCK_CAND_CAP : 0u;
    // One barrier per sum: consecutive sums use alternate halves of s_partial[0..63], and
    // every warp has read a half before any warp passes the next sum's barrier and reuses it.
    __device__ u32 block_sum(u32 c) const {
        u32 warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5, lane = threadIdx.x & 31u;
        u32* slots = s_partial + 32u * half;
        half ^= 1u;
        c = __reduce_add_sync(FULL_MASK, c);
        if (lane == 0) slots[warp] = c;
        __syncthreads();
        // every warp sums the slots itself: one load per lane and one reduction
        return __reduce_add_sync(FULL_MASK, lane < nwarps ? slots[lane] : 0u);
    }
};
