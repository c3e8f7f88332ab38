// RTop-K row-wise top-k on the GPU — docs/kernel.md, stage for stage.
//
// The same three stages, names and arithmetic as topk-ref's `bisect` and warp-sim's kernel:
//   load_row          -> order keys into registers (and shared memory), row min/max key
//   search_threshold  -> Algorithm 1 (value phase, then key phase) or Algorithm 2; in exact
//                        mode a whole-warp row of 257 to 1024 (a block row of 3073 to 8192)
//                        narrows to its candidates once a count at the bracket's lower end
//                        finds at most 128 (512) keys (narrow_row), and the search and the
//                        selection go on over those alone, on one warp
//   select_topk       -> every strong element, then the first band_left band ones, in index
//                        order (each thread holds consecutive elements: one prefix scan
//                        places them; ballots over chunks past the registers)
// Four launch shapes share the order, count and search functions:
//   rtopk_quarter_rows<EPL>: four rows per warp (8 lanes each), M <= 8 * EPL, for short rows
//                         with k <= M / 4 and many rows;
//   rtopk_half_rows<EPL>: two rows per warp (16 lanes each), M <= 16 * EPL, for short rows;
//   rtopk_warp_rows<EPL>: one warp per row, M <= 32 * EPL, keys in registers;
//   rtopk_block_rows:     one block per row for long rows, 32 keys per thread in registers,
//                         the rest in shared memory as far as it fits, then re-keyed from
//                         global memory.
// rtopk_sort_*: the optional sorted output, a second launch over the selected results.
// docs/kernel.md's last table says how each holds the row. Compiled by NVRTC with
// --fmad=false and no fast-math: every float operation below rounds exactly as the CPU's.

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL_MASK 0xffffffffu
#define VALUE_PHASE_LIMIT 32u
#define KEY_ZERO 0x80000000u

#define EXIT_HIT 0
#define EXIT_CONVERGED 1
#define EXIT_PRECISION 2
#define EXIT_MAX_ITER 3
#define EXIT_NARROW 4  // not an exit: the row goes on with its candidates (narrow_row)

struct Params {
    const float* x;      // (n_rows, m), row-major
    float* out_val;      // (n_rows, k)
    u32* out_idx;        // (n_rows, k)
    u32* out_iter;       // (n_rows,)
    u64 n_rows;
    u32 m;
    u32 k;
    int smallest;        // 0: largest mode, 1: smallest mode
    int max_iter;        // < 0: exact (Algorithm 1); >= 0: early stopping (Algorithm 2)
    float precision;     // Algorithm 1's epsilon' (relative to |max|)
    u32 cached_keys;     // rtopk_block_rows: keys held in shared memory (past the registers)
    int vec4;            // rows are 16-byte aligned and M % 4 == 0: 16-byte loads
    float sign;          // +1 largest mode, -1 smallest mode: ordered value = v * sign (an
                         // argument of its own, so that it stays a constant-bank operand)
};

// ---- the order (topk-ref/src/order.rs) --------------------------------------------------

// The order key of a non-NaN value whose -0.0 has already become +0.0.
__device__ __forceinline__ u32 flip_key(float v) {
    u32 bits = __float_as_uint(v);
    return bits ^ (((u32)((int)bits >> 31)) | 0x80000000u);
}

// docs/kernel.md's key_of_ordered for the thresholds, which are never NaN.
__device__ __forceinline__ u32 number_key(float v) {
    return flip_key(__fadd_rn(v, 0.0f));  // -0.0 + 0.0 = +0.0: -0.0 joins +0.0
}

// sign = -1 in smallest mode, +1 in largest: v * sign + 0.0 is exact (one rounding of an exact
// product) and turns -0.0 into +0.0, so the ordered value and its key come from one FFMA.
__device__ __forceinline__ u32 order_key(float v, float sign) {
    u32 key = flip_key(__fmaf_rn(v, sign, 0.0f));
    return isnan(v) ? (sign < 0.0f ? 0u : 0xffffffffu) : key;
}

__device__ __forceinline__ float ordered_value_of_key(u32 key) {
    u32 bits = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
    return __uint_as_float(bits);
}

// The input value of an element from its key, where the key determines its bits: everywhere
// but +-0.0 (one key) and NaN (payloads), which the caller re-reads from the input.
__device__ __forceinline__ bool key_keeps_bits(u32 key) {
    return key != KEY_ZERO && key != 0u && key != 0xffffffffu;
}

__device__ __forceinline__ float value_of_key(u32 key, float sign) {
    return __fmul_rn(ordered_value_of_key(key), sign);
}

// topk-ref bisect::midpoint: (lo + hi) * 0.5, or lo * 0.5 + hi * 0.5 when the sum overflows.
__device__ __forceinline__ float midpoint(float lo, float hi) {
    float m = __fmul_rn(__fadd_rn(lo, hi), 0.5f);
    if (isfinite(m)) return m;
    return __fadd_rn(__fmul_rn(lo, 0.5f), __fmul_rn(hi, 0.5f));
}

// ---- row storage: how count_ge and key_at reach the row's keys ---------------------------

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
template <int LANES>
__device__ __forceinline__ u32 row_sum(u32 lanes, u32 v) {
    if constexpr (LANES == 32) return __reduce_add_sync(FULL_MASK, v);
    return row_butterfly<LANES>(lanes, v, [](u32 a, u32 b) { return a + b; });
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

// Most candidates a whole-warp row narrows to (narrow_row): 4 per lane; with their indices
// they fill the row's share of the selection stage (256 words with 8 warps per block).
#define CAND_CAP 128u
// Most candidates a block row narrows to: BLOCK_CAND_KEYS per lane of the one warp that goes
// on with them; with their indices they fill the block's selection stage.
#define BLOCK_CAND_KEYS 16
#define BLOCK_CAND_CAP (32u * BLOCK_CAND_KEYS)

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
        slots_ge(keys, t, ge_last);
#pragma unroll
        for (int w = 0; w < MASK_WORDS(EPL); ++w) c += __popc(ge_last[w]);
        return row_sum<LANES>(lanes, c);
    }
    __device__ __forceinline__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);
    }
};

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
#define BLOCK_EPL 32
template <bool NARROWS>
struct BlockRow {
    u32 keys[BLOCK_EPL];
    mutable u32 ge_last[1];  // the last count's slot mask (for narrow_row)
    const float* row;
    const u32* s_keys;
    u32* s_partial;     // two slots per warp, for block sums
    u32 m, in_regs, cached;
    mutable u32 half;   // which half of s_partial the next block sum uses
    float sign;

    // Element i's key for the selection: shared memory where it is there, else re-keyed.
    __device__ __forceinline__ u32 key_at(u32 i) const {
        u32 s = i - in_regs;  // wraps for i < in_regs
        return s < cached ? s_keys[s] : order_key(row[i], sign);
    }
    __device__ u32 count_ge_positive(u32 t) const {
        slots_ge(keys, t, ge_last);
        u32 c = __popc(ge_last[0]);
        if (in_regs < m) {  // block-uniform: rows wider than the registers
            u32 i = threadIdx.x;
            for (; i < cached; i += blockDim.x) c += s_keys[i] >= t ? 1u : 0u;
            for (i += in_regs; i < m; i += blockDim.x) c += order_key(row[i], sign) >= t ? 1u : 0u;
        }
        return block_sum(c);
    }
    __device__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);  // padding slots hold key 0
    }
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

// ---- stage 2: search_threshold (docs/kernel.md) ------------------------------------------

struct Search {
    u32 lo_key, hi_key;
    u32 count_at_hi;
    int has_count_at_hi;
    int exit;
    u32 iterations;
    float lo, hi, eps;  // the value phase's bracket and precision
    int value;          // VALUE_NONE (no value phase), VALUE_PLAIN or VALUE_GUARDED
    u32 count_at_lo;    // with EXIT_NARROW: count_ge(lo_key)
};
#define VALUE_NONE 0
#define VALUE_PLAIN 1
#define VALUE_GUARDED 2

// Algorithm 1's three-way update; returns 1 on a hit.
__device__ __forceinline__ int update(Search& s, u32 t, u32 cnt, u32 k) {
    s.iterations += 1;
    if (cnt < k) {
        s.hi_key = t; s.count_at_hi = cnt; s.has_count_at_hi = 1;
    } else if (cnt > k) {
        s.lo_key = t;
    } else {
        s.hi_key = t; s.count_at_hi = cnt; s.has_count_at_hi = 1;
        return 1;
    }
    return 0;
}

// Algorithm 1's value phase over the finite bracket [s.lo, s.hi]: returns 1 when the search is
// over (a hit, or the precision reached) or the row is to be narrowed (EXIT_NARROW), 0 when
// the key phase takes over (the bracket's ends are adjacent floats, or VALUE_PHASE_LIMIT
// steps). PLAIN, where eps == 0 and |lo|, |hi| <= FLT_MAX / 2 (almost every row), leaves out
// two tests that cannot fire there: the precision test (hi > lo throughout, so
// hi - lo > 0 = eps) and midpoint's overflow guard (lo + hi is finite). The bracket moves
// without the three-way update's count_at_hi, which cut_of counts at the end if a row ends
// without a hit (no row of continuous data does).
template <bool PLAIN, class Row>
__device__ __forceinline__ int value_phase(const Row& row, Search& s, u32 k) {
    float lo = s.lo, hi = s.hi;
    while (s.iterations < VALUE_PHASE_LIMIT) {
        if (!PLAIN && __fsub_rn(hi, lo) <= s.eps) { s.exit = EXIT_PRECISION; return 1; }
        float thres = PLAIN ? __fmul_rn(__fadd_rn(lo, hi), 0.5f) : midpoint(lo, hi);
        u32 t = number_key(thres);  // key_of_ordered: thres is finite here, never NaN
        if (!(s.lo_key < t && t < s.hi_key)) return 0;  // adjacent floats: stall
        u32 cnt = row.count_ge_positive(t);
        s.iterations += 1;
        if (cnt == k) {
            s.hi_key = t; s.count_at_hi = cnt; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
            return 1;
        }
        bool below = cnt < k;  // the three-way update without branches
        s.hi_key = below ? t : s.hi_key;
        s.lo_key = below ? s.lo_key : t;
        hi = below ? thres : hi;
        lo = below ? lo : thres;
        if (Row::NARROW_CAP != 0u && !below && cnt <= Row::NARROW_CAP) {
            s.lo = lo; s.hi = hi; s.count_at_lo = cnt; s.exit = EXIT_NARROW;
            return 1;
        }
    }
    return 0;
}

// The value phase (where it applies), then the key phase. A row that leaves the value phase
// to be narrowed (EXIT_NARROW) comes back here as its CandRow and goes on where it left off.
template <class Row>
__device__ void finish_exact(const Row& row, Search& s, u32 k) {
    if (s.value != VALUE_NONE &&
        (s.value == VALUE_PLAIN ? value_phase<true>(row, s, k) : value_phase<false>(row, s, k)))
        return;
    // key phase: only where the value phase cannot proceed
    while (s.hi_key - s.lo_key > 1u) {
        u32 t = s.lo_key + (s.hi_key - s.lo_key) / 2u;  // > lo_key >= 0
        if (update(s, t, row.count_ge_positive(t), k)) { s.exit = EXIT_HIT; return; }
    }
    s.exit = EXIT_CONVERGED;
}

template <class Row>
__device__ Search search_exact(const Row& row, u32 lo_key, u32 hi_key, const Params& p) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, 0u};
    if (lo_key == hi_key) return s;
    // value phase: the paper's bisection on (ordered) values
    s.lo = ordered_value_of_key(s.lo_key);
    s.hi = ordered_value_of_key(s.hi_key);
    if (isfinite(s.lo) && isfinite(s.hi)) {
        s.eps = __fmul_rn(p.precision, fabsf(s.hi));
        bool plain = s.eps == 0.0f && fmaxf(fabsf(s.lo), fabsf(s.hi)) <= 0x1.fffffep126f;
        s.value = plain ? VALUE_PLAIN : VALUE_GUARDED;
    }
    finish_exact(row, s, p.k);
    return s;
}

template <class Row>
__device__ Search search_early_stopping(const Row& row, u32 lo_key, u32 hi_key, const Params& p) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_MAX_ITER, (u32)p.max_iter, 0.0f, 0.0f, 0.0f, VALUE_NONE, 0u};
    float lo = ordered_value_of_key(lo_key), hi = ordered_value_of_key(hi_key);
    int finite = isfinite(lo) && isfinite(hi);
    for (int iter = 0; iter < p.max_iter; ++iter) {
        float thres = __int_as_float(0x7fc00000);  // NaN: unused in the key branch
        u32 t;
        if (finite) { thres = midpoint(lo, hi); t = number_key(thres); }  // finite: not NaN
        else { t = s.lo_key + (s.hi_key - s.lo_key) / 2u; }
        u32 before_lo = s.lo_key, before_hi = s.hi_key;
        u32 before_lo_bits = __float_as_uint(lo), before_hi_bits = __float_as_uint(hi);
        if (row.count_ge(t) < p.k) { s.hi_key = t; hi = thres; }
        else { s.lo_key = t; lo = thres; }
        if (before_lo == s.lo_key && before_hi == s.hi_key &&
            before_lo_bits == __float_as_uint(lo) && before_hi_bits == __float_as_uint(hi))
            break;  // a fixed point: every remaining step repeats this one
    }
    return s;
}

template <class Row>
__device__ Search search_threshold(const Row& row, u32 lo_key, u32 hi_key, const Params& p) {
    return p.max_iter < 0 ? search_exact(row, lo_key, hi_key, p)
                          : search_early_stopping(row, lo_key, hi_key, p);
}

// ---- stage 3: select_topk ----------------------------------------------------------------

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

// The row's output pointer, computed once: hidden from the optimizer so that each store adds a
// 32-bit position to it (one IMAD.WIDE) instead of redoing the 64-bit row offset arithmetic.
template <class T>
__device__ __forceinline__ T* opaque(T* ptr) {
    asm("mov.b64 %0, %0;" : "+l"(ptr));
    return ptr;
}

// Writes result `pos` of the row: element i and the input's bits, from its key where the key
// determines them, re-read from the input where it cannot (+-0.0, NaN payloads).
__device__ __forceinline__ void write_result(u32 pos, u32 i, u32 key, const float* row_in,
                                             float* out_val, u32* out_idx, float sign) {
    out_idx[pos] = i;
    out_val[pos] = key_keeps_bits(key) ? value_of_key(key, sign) : row_in[i];
}

// Selects one chunk of 32 consecutive elements with one warp; returns how many it selected.
__device__ __forceinline__ u32 select_chunk(u32 key, bool valid, u32 i, const Cut& c,
                                            u32 band_left, u32 written, u32 k,
                                            const float* row_in, float* out_val, u32* out_idx,
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
template <int N>
__device__ __forceinline__ u32 classify(const u32 (&keys)[N], u32 first, u32 m, const Cut& c,
                                        u32 (&strong)[MASK_WORDS(N)], u32 (&band)[MASK_WORDS(N)]) {
    bool any_strong = c.strong_above != 0xffffffffu, any_band = c.band_lo <= c.strong_above;
    if (any_strong) slots_ge(keys, c.strong_above + 1u, strong);
    if (any_band) slots_ge(keys, c.band_lo, band);
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

// The lowest n set bits of mask.
__device__ __forceinline__ u32 lowest_bits(u32 mask, u32 n) {
    for (u32 extra = __popc(mask) > n ? __popc(mask) - n : 0u; extra > 0u; --extra)
        mask &= ~(0x80000000u >> __clz(mask));  // drop the highest
    return mask;
}

// Results staged per chunk before they are written: WARP_STAGE indices per block of the warp
// kernels (split between its rows), BLOCK_STAGE per row of the block kernel (where a row
// narrows, the stage holds its candidates and their indices instead).
#define WARP_STAGE 2048u
#define BLOCK_STAGE 1024u

// One thread's selected elements (bit j % 32 of take[j / 32]: element first + j), at output positions
// from `pos` on in index order, staged chunk by chunk and written out with consecutive
// threads on consecutive results (scattered 4-byte stores would leave partly written
// sectors), each value re-read from the input at its index (independent loads of a row just
// read). total: the row's results; sync(): a barrier over the row's threads, `t` of
// `threads` the thread's place among them.
template <int W, class Sync>
__device__ __forceinline__ void emit_staged(const u32 (&taken)[W], u32 pos, u32 total, u32 first,
                                            u32* stage, u32 cap, u32 t, u32 threads, Sync sync,
                                            const float* row_in, float* out_val, u32* out_idx) {
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

// ---- one warp per row --------------------------------------------------------------------

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

// Keys of a thread's N loaded values (elements first .. first + N - 1; slots past M get key
// 0) and their min/max. Threads whose slots are all inside the row (all but the row's last)
// take a path without per-slot tests.
template <int N>
__device__ __forceinline__ void key_slots(u32 (&keys)[N], const float (&v)[N], u32 first, u32 m,
                                          float sign, u32* lane_min, u32* lane_max) {
    u32 lo = *lane_min, hi = *lane_max;
    if (first + (u32)N <= m && sign > 0.0f) {
        // Largest mode needs no NaN test: GPU float arithmetic returns the one canonical NaN,
        // 0x7fffffff, for any NaN operand, and its key is 0xffffffff, the NaN key of this mode.
        auto largest = [](float x) { return flip_key(__fmaf_rn(x, 1.0f, 0.0f)); };
        key_full_slots(keys, v, largest, &lo, &hi);
    } else if (first + (u32)N <= m) {
        key_full_slots(keys, v, [sign](float x) { return order_key(x, sign); }, &lo, &hi);
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) {
            bool valid = first + (u32)j < m;
            keys[j] = valid ? order_key(v[j], sign) : 0u;
            if (valid) lo = min(lo, keys[j]);
            hi = max(hi, keys[j]);  // 0 is neutral
        }
    }
    *lane_min = lo;
    *lane_max = hi;
}

// Stage 1 for one row's lanes: lane l of the row holds elements l EPL .. l EPL + EPL - 1
// (with 16-byte loads when the row allows: EPL % 4 == 0, 16-byte aligned rows, M % 4 == 0),
// and the lane's min/max key.
template <int EPL, int LANES, bool NARROWS>
__device__ __forceinline__ void load_row(WarpRow<EPL, LANES, NARROWS>& row, const float* row_in, const Params& p,
                                         u32 first, u32* lane_min, u32* lane_max) {
    // every load is issued before the first key is computed
    float v[EPL];
    bool vec4 = false;
    if constexpr (EPL % 4 == 0) vec4 = p.vec4 != 0;
    if (vec4) {
#pragma unroll
        for (int q = 0; q < EPL / 4; ++q) {
            u32 i = first + 4u * (u32)q;  // M % 4 == 0: all 4 or none
            float4 v4 = i < p.m ? *reinterpret_cast<const float4*>(row_in + i)
                                : make_float4(0.f, 0.f, 0.f, 0.f);
            v[4 * q] = v4.x; v[4 * q + 1] = v4.y; v[4 * q + 2] = v4.z; v[4 * q + 3] = v4.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < EPL; ++j) v[j] = first + (u32)j < p.m ? row_in[first + j] : 0.f;
    }
    key_slots(row.keys, v, first, p.m, p.sign, lane_min, lane_max);
}

// Stage 3 for one row's lanes: one shuffle scan of the lanes' strong and band counts (packed
// in one word: at most 1024 each) places every lane's elements; lane order is index order.
// The same elements in the same order as docs/kernel.md's chunks of 32: every strong one,
// then the first band_left band elements by index. sub: the lane's place among the row's.
template <int EPL, int LANES, bool NARROWS>
__device__ __forceinline__ void select_topk_lanes(const WarpRow<EPL, LANES, NARROWS>& row, const Cut& c,
                                                  const Params& p, u32 sub, u32 first,
                                                  const float* row_in, float* out_val,
                                                  u32* out_idx, u32* stage, u32 cap) {
    u32 strong[MASK_WORDS(EPL)], band[MASK_WORDS(EPL)];
    u32 own = classify(row.keys, first, p.m, c, strong, band);
    u32 incl = row_scan<LANES>(row.lanes, sub, own);
    u32 all = __shfl_sync(row.lanes, incl, LANES - 1, LANES), band_left = p.k - c.strong_count;
    u32 total = min(p.k, (all & 0xffffu) + min(all >> 16, band_left));
    u32 take[MASK_WORDS(EPL)];
    u32 pos = taken(strong, band, incl - own, band_left, take);
    u32 lanes = row.lanes;
    emit_staged(take, pos, total, first, stage, cap, sub, (u32)LANES,
                [lanes]() { __syncwarp(lanes); }, row_in, out_val, out_idx);
}

// A thread's candidates (the slots `ge` marks, elements first + j) and their indices to
// cand[at ..] and cand[cap + at ..], in index order.
template <int N>
__device__ __forceinline__ void copy_candidates(const u32 (&keys)[N], const u32 (&ge)[MASK_WORDS(N)],
                                                u32 first, u32* at, u32 cap) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if ((ge[j / 32] >> (j % 32)) & 1u) {
            at[0] = keys[j];
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

// Stage 2, narrowing a whole-warp row (EXIT_NARROW: the last count, at lo_key, found
// k < n <= CAND_CAP keys >= lo_key): its lanes copy those keys and their indices to the row's
// share of the stage in index order (one scan of the lanes' counts places them; the last
// count's masks say which slots), and take the keys back four per lane. From here on the
// search counts 4 slots per lane instead of EPL, and the selection looks at n elements.
template <int EPL>
__device__ __forceinline__ CandRow<4> narrow_row(const WarpRow<EPL, 32, true>& row, u32 n, u32* cand) {
    u32 lane = threadIdx.x & 31u, own = 0u;
#pragma unroll
    for (int w = 0; w < MASK_WORDS(EPL); ++w) own += __popc(row.ge_last[w]);
    u32 before = row_scan<32>(FULL_MASK, lane, own) - own;
    copy_candidates(row.keys, row.ge_last, lane * (u32)EPL, cand + before, CAND_CAP);
    __syncwarp();
    return take_candidates<4>(cand, n, row.m);
}

// Stage 3 over a narrowed row's candidates: the chunks of 32 of docs/kernel.md, over the
// candidates (index order) instead of the row; every element the cut takes is a candidate.
template <int C>
__device__ __forceinline__ void select_candidates(const CandRow<C>& row, const Cut& c, const Params& p,
                                                  const u32* cand, const float* row_in,
                                                  float* out_val, u32* out_idx) {
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

// A narrowed row (one warp) after narrow_row: the rest of the exact search over its
// candidates, then stage 3 over them, and the row's iteration count.
template <int C>
__device__ __forceinline__ void finish_candidates(const CandRow<C>& narrowed, Search& s, const Params& p,
                                                  const u32* cand, const float* row_in,
                                                  float* out_val, u32* out_idx, u64 row_id) {
    finish_exact(narrowed, s, p.k);
    // stage 3: select_topk
    select_candidates(narrowed, cut_of(narrowed, s, p.k), p, cand, row_in, out_val, out_idx);
    if ((threadIdx.x & 31u) == 0) p.out_iter[row_id] = s.iterations;
}

template <int EPL, int LANES, bool NARROWS>
__device__ void rtopk_warp_row(const Params& p, u64 row_id, u32* stage, u32 cap) {
    u32 lane = threadIdx.x & 31u, sub = lane % (u32)LANES, first = sub * (u32)EPL;
    const float* row_in = p.x + row_id * (u64)p.m;
    // stage 1: load_row
    WarpRow<EPL, LANES, NARROWS> row;
    row.m = p.m;
    row.lanes = LANES == 32 ? FULL_MASK : ((1u << LANES) - 1u) << (lane - sub);
    u32 lane_min = 0xffffffffu, lane_max = 0u;
    load_row(row, row_in, p, first, &lane_min, &lane_max);
    u32 lo_key = row_min<LANES>(row.lanes, lane_min);
    u32 hi_key = row_max<LANES>(row.lanes, lane_max);
    // stage 2: search_threshold
    Search s = search_threshold(row, lo_key, hi_key, p);
    if constexpr (NARROWS) {
        if (s.exit == EXIT_NARROW) {  // warp-uniform; cap >= 2 CAND_CAP: at most 8 warps per block
            CandRow<4> narrowed = narrow_row(row, s.count_at_lo, stage);
            float* out_val = opaque(p.out_val + row_id * (u64)p.k);
            u32* out_idx = opaque(p.out_idx + row_id * (u64)p.k);
            finish_candidates(narrowed, s, p, stage, row_in, out_val, out_idx, row_id);
            return;
        }
    }
    // stage 3: select_topk
    Cut c = cut_of(row, s, p.k);
    float* out_val = opaque(p.out_val + row_id * (u64)p.k);
    u32* out_idx = opaque(p.out_idx + row_id * (u64)p.k);
    select_topk_lanes(row, c, p, sub, first, row_in, out_val, out_idx, stage, cap);
    if (sub == 0) p.out_iter[row_id] = s.iterations;
}

// 32 / LANES rows per warp, blockDim / LANES rows per block. The rows of a warp search side
// by side: their bracket arithmetic shares the warp's issue slots while their paths agree,
// and each goes its own way (collectives over its own lanes) where they part.
template <int EPL, int LANES, int WARPS>
__device__ void rtopk_warp_rows_impl(const Params& p) {
    __shared__ u32 s_stage[WARP_STAGE];
    constexpr u32 cap = WARP_STAGE / (WARPS * 32 / LANES);  // each row's share of the stage
    u64 row_id = ((u64)blockIdx.x * (WARPS * 32) + threadIdx.x) / (u32)LANES;
    if (row_id >= p.n_rows) return;  // row-uniform: the partial last block
    u32* stage = s_stage + threadIdx.x / (u32)LANES * cap;
    // Whole-warp rows of 12 to 32 keys per lane (M = 257 ... 1024) narrow (narrow_row) in
    // exact mode where k < CAND_CAP (a count of more than k keys can fit it); a second
    // instantiation without the narrowing serves the rest, so that rows which cannot narrow
    // run the code they ran before (a kernel that could narrow everywhere was 6-8% slower at
    // k = 128, where no row does: results/cuda/ab_session5.txt). The 48- to 96-key kernels
    // keep one instantiation: a second one of theirs made every process's NVRTC
    // compile about a third longer (8.4 -> 11.3 s, NVRTC 13.0 on a 2-core VM).
    if constexpr (LANES == 32 && EPL >= 12 && EPL <= 32) {
        static_assert(cap >= 2u * CAND_CAP, "the candidates and their indices fill the row's share");
        if (p.max_iter < 0 && p.k < CAND_CAP) {
            rtopk_warp_row<EPL, LANES, true>(p, row_id, stage, cap);
            return;
        }
    }
    rtopk_warp_row<EPL, LANES, false>(p, row_id, stage, cap);
}

// Every entry point takes the same arguments, gathered into Params. The warp kernels' second
// launch bound caps registers so that that many blocks of 8 warps fit an SM (65536 registers):
// 8 blocks (full occupancy) up to 8 keys per lane, fewer for wider rows (5 at 24 keys, where
// 47 registers suffice: 2% faster at M = 768 than 4). A few words spill in some of them (ptxas
// -v: the part-warp kernels up to 16 keys, the 64- and 96-key warp kernels).
#define RTOPK_ARGS                                                                         \
    const float* x, float* out_val, u32* out_idx, u32* out_iter, u64 n_rows, u32 m, u32 k, \
        int smallest, int max_iter, float precision, u32 cached_keys, int vec4, float sign
#define RTOPK_PARAMS \
    Params{x, out_val, out_idx, out_iter, n_rows, m, k, smallest, max_iter, precision, cached_keys, vec4, sign}

extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_1(RTOPK_ARGS) { rtopk_warp_rows_impl<1, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_2(RTOPK_ARGS) { rtopk_warp_rows_impl<2, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_4(RTOPK_ARGS) { rtopk_warp_rows_impl<4, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_8(RTOPK_ARGS) { rtopk_warp_rows_impl<8, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_warp_rows_12(RTOPK_ARGS) { rtopk_warp_rows_impl<12, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_warp_rows_16(RTOPK_ARGS) { rtopk_warp_rows_impl<16, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 5) rtopk_warp_rows_20(RTOPK_ARGS) { rtopk_warp_rows_impl<20, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 5) rtopk_warp_rows_24(RTOPK_ARGS) { rtopk_warp_rows_impl<24, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_warp_rows_28(RTOPK_ARGS) { rtopk_warp_rows_impl<28, 32, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_warp_rows_32(RTOPK_ARGS) { rtopk_warp_rows_impl<32, 32, 8>(RTOPK_PARAMS); }
// Rows of 1025 to 3072 with one warp (the host takes them when k <= M / 8): 48 to 96 keys per
// lane, in blocks of 4 or 2 warps so that several blocks still fit an SM at the register
// counts these need.
extern "C" __global__ void __launch_bounds__(128, 6) rtopk_warp_rows_48(RTOPK_ARGS) { rtopk_warp_rows_impl<48, 32, 4>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(128, 5) rtopk_warp_rows_64(RTOPK_ARGS) { rtopk_warp_rows_impl<64, 32, 4>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(64, 7) rtopk_warp_rows_96(RTOPK_ARGS) { rtopk_warp_rows_impl<96, 32, 2>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_half_rows_1(RTOPK_ARGS) { rtopk_warp_rows_impl<1, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_half_rows_2(RTOPK_ARGS) { rtopk_warp_rows_impl<2, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_half_rows_4(RTOPK_ARGS) { rtopk_warp_rows_impl<4, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_half_rows_8(RTOPK_ARGS) { rtopk_warp_rows_impl<8, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_half_rows_12(RTOPK_ARGS) { rtopk_warp_rows_impl<12, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_half_rows_16(RTOPK_ARGS) { rtopk_warp_rows_impl<16, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 5) rtopk_half_rows_20(RTOPK_ARGS) { rtopk_warp_rows_impl<20, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_half_rows_24(RTOPK_ARGS) { rtopk_warp_rows_impl<24, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_half_rows_28(RTOPK_ARGS) { rtopk_warp_rows_impl<28, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_half_rows_32(RTOPK_ARGS) { rtopk_warp_rows_impl<32, 16, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_quarter_rows_1(RTOPK_ARGS) { rtopk_warp_rows_impl<1, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_quarter_rows_2(RTOPK_ARGS) { rtopk_warp_rows_impl<2, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_quarter_rows_4(RTOPK_ARGS) { rtopk_warp_rows_impl<4, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_quarter_rows_8(RTOPK_ARGS) { rtopk_warp_rows_impl<8, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_quarter_rows_12(RTOPK_ARGS) { rtopk_warp_rows_impl<12, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_quarter_rows_16(RTOPK_ARGS) { rtopk_warp_rows_impl<16, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 5) rtopk_quarter_rows_20(RTOPK_ARGS) { rtopk_warp_rows_impl<20, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_quarter_rows_24(RTOPK_ARGS) { rtopk_warp_rows_impl<24, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_quarter_rows_28(RTOPK_ARGS) { rtopk_warp_rows_impl<28, 8, 8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_quarter_rows_32(RTOPK_ARGS) { rtopk_warp_rows_impl<32, 8, 8>(RTOPK_PARAMS); }

// ---- one block per row (long rows) -------------------------------------------------------

// Block-wide min and max key, through the per-warp slots.
template <bool NARROWS>
__device__ void block_range(const BlockRow<NARROWS>& row, u32 lane_min, u32 lane_max, u32* lo, u32* hi) {
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

// Stage 2, narrowing a block row (EXIT_NARROW: the last count, at lo_key, found
// k < n <= BLOCK_CAND_CAP keys >= lo_key, all of them in registers): every thread copies its
// candidates and their indices to `cand` in index order (one block prefix of the threads'
// counts places them; the last count's mask says which slots). After the barrier the block's
// first warp takes them back, BLOCK_CAND_KEYS per lane, and goes on alone: from there on a
// count is at most 16 slots of one warp (4 per 128 candidates), without a barrier, instead of
// 32 slots of every thread and a block sum.
__device__ __forceinline__ void narrow_row(const BlockRow<true>& row, u32* cand, u32* slots) {
    u32 own = __popc(row.ge_last[0]), before, total;
    block_prefix(own, slots, &before, &total);
    copy_candidates(row.keys, row.ge_last, BLOCK_EPL * threadIdx.x, cand + before, BLOCK_CAND_CAP);
    __syncthreads();
}

template <bool NARROWS>
__device__ void rtopk_block_row(const Params& p) {
    extern __shared__ u32 smem[];
    __shared__ u32 s_partial[128];
    __shared__ u32 s_chunk[2 * 32];
    __shared__ u32 s_stage[BLOCK_STAGE];  // the selection's staged indices, or the candidates
    static_assert(BLOCK_STAGE >= 2u * BLOCK_CAND_CAP, "the candidates and their indices fill the stage");
    u64 row_id = blockIdx.x;
    const float* row_in = p.x + row_id * (u64)p.m;
    BlockRow<NARROWS> row;
    row.row = row_in; row.s_keys = smem; row.s_partial = s_partial; row.half = 0u;
    row.m = p.m; row.in_regs = min(p.m, BLOCK_EPL * blockDim.x); row.sign = p.sign;
    row.cached = min(p.cached_keys, p.m - row.in_regs);
    // stage 1: load_row (registers, then shared memory, min/max); thread t's slots hold
    // elements BLOCK_EPL t .. BLOCK_EPL t + BLOCK_EPL - 1
    u32 first = BLOCK_EPL * threadIdx.x;
    u32 lane_min = 0xffffffffu, lane_max = 0u;
    // every load is issued before the first key is computed (the raw bits wait in keys[])
    if (p.vec4) {
#pragma unroll
        for (int q = 0; q < BLOCK_EPL / 4; ++q) {
            u32 i = first + 4u * (u32)q;  // M % 4 == 0: all 4 or none
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
        key_slots(row.keys, v, first, p.m, p.sign, &lane_min, &lane_max);
    }
    for (u32 i = row.in_regs + threadIdx.x; i < p.m; i += blockDim.x) {
        u32 key = order_key(row_in[i], p.sign);
        if (i - row.in_regs < row.cached) smem[i - row.in_regs] = key;
        lane_min = min(lane_min, key);
        lane_max = max(lane_max, key);
    }
    u32 lo_key, hi_key;
    block_range(row, lane_min, lane_max, &lo_key, &hi_key);
    // stage 2: search_threshold
    Search s = search_threshold(row, lo_key, hi_key, p);
    float* out_val = opaque(p.out_val + row_id * (u64)p.k);
    u32* out_idx = opaque(p.out_idx + row_id * (u64)p.k);
    if constexpr (NARROWS) {
        if (s.exit == EXIT_NARROW) {  // block-uniform
            narrow_row(row, s_stage, s_chunk);
            if (threadIdx.x >= 32u) return;  // the first warp goes on alone: no barrier follows
            auto narrowed = take_candidates<BLOCK_CAND_KEYS>(s_stage, s.count_at_lo, p.m);
            finish_candidates(narrowed, s, p, s_stage, row_in, out_val, out_idx, row_id);
            return;
        }
    }
    // stage 3: select_topk, first the elements in registers (thread order is index order: one
    // block prefix of the threads' packed strong and band counts, at most 32768 each, places
    // them), then past them one chunk of blockDim consecutive elements at a time
    Cut c = cut_of(row, s, p.k);
    u32 band_left = p.k - c.strong_count;
    u32 strong[1], band[1], before, total;
    u32 own = classify(row.keys, first, p.m, c, strong, band);
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
    if (threadIdx.x == 0) p.out_iter[row_id] = s.iterations;
}

// Block rows of 4 to 8 warps (M = 3073 ... 8192) narrow (narrow_row) in exact mode where
// k < BLOCK_CAND_CAP: the launcher picks rtopk_block_rows_narrow for them, and only them (it
// needs the whole row in registers, cached_keys = 0: narrow_row copies the registers' keys).
// A kernel of its own, so that the rows that cannot narrow run the code they ran before (one
// kernel holding both paths spilled in its load stage; a kernel that could narrow everywhere
// was 5-9% slower where no row does), and rows outside that range do not narrow: on a block of
// 2 or 3 warps one warp saves little of the search and selects more slowly, and on a wider one
// (at most two blocks per SM) the SM idles while one warp finishes
// (results/cuda/ab_session6.txt).
extern "C" __global__ void __launch_bounds__(1024, 1) rtopk_block_rows(RTOPK_ARGS) { rtopk_block_row<false>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_block_rows_narrow(RTOPK_ARGS) { rtopk_block_row<true>(RTOPK_PARAMS); }

// ---- sorted output (a second launch over the selected results) --------------------------

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
    float* val;
    u32* idx;
    float sign;
    __device__ __forceinline__ void order(u32 i, u32 j) const {
        float vi = __ldcg(val + i), vj = __ldcg(val + j);
        u32 ii = __ldcg(idx + i), ij = __ldcg(idx + j);
        if (sort_rank(order_key(vj, sign), ij) < sort_rank(order_key(vi, sign), ii)) {
            __stcg(val + i, vj); __stcg(val + j, vi);
            __stcg(idx + i, ij); __stcg(idx + j, ii);
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
__device__ void sort_warp_row(const float* x, float* out_val, u32* out_idx, u64 n_rows, u32 m,
                              u32 k, float sign) {
    u32 lane = threadIdx.x & 31u;
    u64 row_id = (u64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row_id >= n_rows) return;  // warp-uniform
    float* val = out_val + row_id * (u64)k;
    u32* idx = out_idx + row_id * (u64)k;
    u32 key[E], ix[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        u32 p = lane * (u32)E + (u32)e;
        key[e] = p < k ? order_key(val[p], sign) : 0u;
        ix[e] = p < k ? idx[p] : 0xffffffffu;
    }
    for (u32 size = 2u; size <= 32u * (u32)E; size <<= 1)
        for (u32 stride = size >> 1; stride > 0u; stride >>= 1) bitonic_step(key, ix, lane, size, stride);
    const float* row_in = x + row_id * (u64)m;
#pragma unroll
    for (int e = 0; e < E; ++e) {
        u32 p = lane * (u32)E + (u32)e;
        if (p < k) write_result(p, ix[e], key[e], row_in, val, idx, sign);
    }
}

#define SORT_WARP_ARGS \
    const float* x, float* out_val, u32* out_idx, u64 n_rows, u32 m, u32 k, int smallest
#define SORT_WARP(E)                                                                       \
    extern "C" __global__ void __launch_bounds__(256) rtopk_sort_warp_rows_##E(SORT_WARP_ARGS) { \
        sort_warp_row<E>(x, out_val, out_idx, n_rows, m, k, smallest ? -1.0f : 1.0f);      \
    }
SORT_WARP(1)
SORT_WARP(2)
SORT_WARP(4)
SORT_WARP(8)
SORT_WARP(16)
SORT_WARP(32)

// Puts each row's k results (index order, from the selection) in sorted order (SPEC §1:
// value order of the mode, ties by ascending index). pow2 = k rounded up to a power of two;
// row_threads threads per row, blockDim.x / row_threads rows per block. in_shared: the block's
// rows sit in dynamic shared memory as ranks (pow2 words of 8 bytes per row) and values are
// rebuilt as in write_result; otherwise each row is sorted in place in global memory.
extern "C" __global__ void rtopk_sort_rows(const float* x, float* out_val, u32* out_idx,
                                           u64 n_rows, u32 m, u32 k, int smallest, u32 pow2,
                                           u32 row_threads, int in_shared) {
    extern __shared__ u64 smem_ranks[];
    float sign = smallest ? -1.0f : 1.0f;
    u32 slot = threadIdx.x / row_threads, t = threadIdx.x % row_threads;
    u64 row_id = (u64)blockIdx.x * (blockDim.x / row_threads) + slot;
    u32 n = row_id < n_rows ? k : 0u;  // rows past the end still reach every barrier
    float* val = out_val + (row_id < n_rows ? row_id : 0u) * (u64)k;
    u32* idx = out_idx + (row_id < n_rows ? row_id : 0u) * (u64)k;
    if (!in_shared) {
        bitonic_sort(GlobalResults{val, idx, sign}, n, pow2, t, row_threads);
        return;
    }
    SharedRanks s{smem_ranks + (u64)slot * pow2};
    for (u32 i = t; i < n; i += row_threads) s.r[i] = sort_rank(order_key(val[i], sign), idx[i]);
    __syncthreads();
    bitonic_sort(s, n, pow2, t, row_threads);
    const float* row_in = x + (row_id < n_rows ? row_id : 0u) * (u64)m;
    for (u32 i = t; i < n; i += row_threads) {
        u64 r = s.r[i];
        write_result(i, (u32)r, ~(u32)(r >> 32), row_in, val, idx, sign);
    }
}

// Reads every element once and sums it: the device's read bandwidth, measured in the same run
// as the top-k benchmark (bench/torch_compare.py and `rtopk bench cuda` report against it).
extern "C" __global__ void read_bandwidth_probe(const float4* x, u64 n4, float* sink) {
    float acc = 0.f;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) {
        float4 v = x[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1.2345f) sink[0] = acc;  // keeps the loads alive; practically never stores
}

// Keeps the GPU busy for `ns` nanoseconds (one thread): timed work queued behind it starts as
// soon as it ends, so the host's time to submit that work stays out of the measurement.
extern "C" __global__ void spin_ahead(u64 ns) {
    u64 start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// Standard-normal benchmark data generated on the device (Box-Muller on a counter-based
// hash), so multi-GiB inputs cost no host time; never zeros.
__device__ __forceinline__ u32 mix32(u64 z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (u32)((z ^ (z >> 31)) >> 32);
}

extern "C" __global__ void fill_normal(float* x, u64 n, u64 seed) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u64 c = seed * 0x100000000ull + i;
        float u1 = ((float)(mix32(2 * c) >> 8) + 1.0f) * (1.0f / 16777217.0f);
        float u2 = (float)(mix32(2 * c + 1) >> 8) * (1.0f / 16777216.0f);
        x[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
}
