// RTop-K row-wise top-k on the GPU — docs/kernel.md, stage for stage.
//
// The same three stages, names and arithmetic as topk-ref's `bisect` and warp-sim's kernel:
//   load_row          -> order keys into registers (and shared memory), row min/max key
//   search_threshold  -> Algorithm 1 (value phase, then key phase) or Algorithm 2
//   select_topk       -> every strong element, then the first band_left band ones, in index
//                        order (ballots over chunks of 32, or prefix scans over register groups)
// Two launch shapes share the order, count and search functions:
//   rtopk_warp_rows<EPL>: one warp per row, M <= 32 * EPL, keys in registers;
//   rtopk_block_rows:     one block per row for long rows, 32 keys per thread in registers,
//                         the rest in shared memory as far as it fits, then re-keyed from
//                         global memory.
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
    float sign;          // +1 largest mode, -1 smallest mode: ordered value = v * sign
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

// Keys >= t among N <= 32 register slots: the compares pack into one mask, counted by one popc
// (a third of the instructions of adding the compares one by one).
template <int N>
__device__ __forceinline__ u32 count_slots_ge(const u32 (&keys)[N], u32 t) {
    u32 ge = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) ge |= (keys[j] >= t ? 1u : 0u) << j;
    return __popc(ge);
}

// One warp per row; each lane holds EPL keys in registers. Slots past the row's end hold key
// 0, which only a threshold of 0 would count, and count_ge(0) is the whole row.
template <int EPL>
struct WarpRow {
    u32 keys[EPL];
    u32 m;

    // count_ge for t >= 1 (every threshold of the value phase and of the key phase).
    __device__ __forceinline__ u32 count_ge_positive(u32 t) const {
        return __reduce_add_sync(FULL_MASK, count_slots_ge(keys, t));
    }
    __device__ __forceinline__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);
    }
};

// One block per row. Thread t keeps BLOCK_EPL keys in registers: elements t + blockDim j, or
// after 16-byte loads 4 (t + blockDim q) + e, so the registers hold the row's first
// in_regs = min(M, BLOCK_EPL * blockDim) elements. Shared memory holds the next `cached` keys
// (elements in_regs .. in_regs + cached - 1, up to the opt-in limit); anything beyond both is
// re-keyed from the input (L2-resident while the block works) on each pass.
#define BLOCK_EPL 32
struct BlockRow {
    u32 keys[BLOCK_EPL];
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
        u32 c = count_slots_ge(keys, t);
        u32 i = threadIdx.x;
        for (; i < cached; i += blockDim.x) c += s_keys[i] >= t ? 1u : 0u;
        for (i += in_regs; i < m; i += blockDim.x) c += order_key(row[i], sign) >= t ? 1u : 0u;
        return block_sum(c);
    }
    __device__ u32 count_ge(u32 t) const {
        return t == 0u ? m : count_ge_positive(t);  // padding slots hold key 0
    }
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
};

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

template <class Row>
__device__ Search search_exact(const Row& row, u32 lo_key, u32 hi_key, const Params& p) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u};
    if (lo_key == hi_key) return s;
    // value phase: the paper's bisection on (ordered) values
    float lo = ordered_value_of_key(s.lo_key), hi = ordered_value_of_key(s.hi_key);
    if (isfinite(lo) && isfinite(hi)) {
        float eps = __fmul_rn(p.precision, fabsf(hi));
        while (s.iterations < VALUE_PHASE_LIMIT) {
            if (__fsub_rn(hi, lo) <= eps) { s.exit = EXIT_PRECISION; return s; }
            float thres = midpoint(lo, hi);
            u32 t = number_key(thres);  // key_of_ordered: thres is finite here, never NaN
            if (!(s.lo_key < t && t < s.hi_key)) break;  // adjacent floats: stall
            if (update(s, t, row.count_ge_positive(t), p.k)) { s.exit = EXIT_HIT; return s; }
            if (s.hi_key == t) hi = thres; else lo = thres;
        }
    }
    // key phase: only where the value phase cannot proceed
    while (s.hi_key - s.lo_key > 1u) {
        u32 t = s.lo_key + (s.hi_key - s.lo_key) / 2u;  // > lo_key >= 0
        if (update(s, t, row.count_ge_positive(t), p.k)) { s.exit = EXIT_HIT; return s; }
    }
    s.exit = EXIT_CONVERGED;
    return s;
}

template <class Row>
__device__ Search search_early_stopping(const Row& row, u32 lo_key, u32 hi_key, const Params& p) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_MAX_ITER, (u32)p.max_iter};
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

// Places one lane's G elements of a group in index order: every strong one, and band ones
// while fewer than band_left band elements precede them; emit(e, pos) for each one taken, at
// consecutive positions from `pos`. band_rank: the band elements before the lane's first.
template <int G, class Emit>
__device__ __forceinline__ void place_group(u32 strong, u32 band, u32 pos, u32 band_rank,
                                            u32 band_left, Emit emit) {
#pragma unroll
    for (int e = 0; e < G; ++e) {
        bool is_band = (band >> e) & 1u;
        bool take = ((strong >> e) & 1u) || (is_band && band_rank < band_left);
        if (take) emit(e, pos);
        pos += take ? 1u : 0u;
        band_rank += is_band ? 1u : 0u;
    }
}

// ---- one warp per row --------------------------------------------------------------------

// Stage 1 for one warp: keys into registers, lane min/max. vec4: the row is 16-byte aligned
// and M % 4 == 0, so each lane loads 4 consecutive values with one 16-byte load, slot 4 q + e
// holds element 128 q + 4 lane + e, and the keys also go to shared memory in index order for
// the selection; otherwise slot j holds element 32 j + lane.
template <int EPL>
__device__ __forceinline__ void load_row(WarpRow<EPL>& row, const float* row_in, const Params& p,
                                         u32 lane, u32* s_keys, u32* lane_min, u32* lane_max) {
    // every load is issued before the first key is computed: EPL / 4 (or EPL) in flight
    float v[EPL];
    if constexpr (EPL % 4 == 0) {
        if (p.vec4) {
#pragma unroll
            for (int q = 0; q < EPL / 4; ++q) {
                u32 i = (32u * (u32)q + lane) * 4u;
                float4 v4 = i < p.m ? *reinterpret_cast<const float4*>(row_in + i)
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
                v[4 * q] = v4.x; v[4 * q + 1] = v4.y; v[4 * q + 2] = v4.z; v[4 * q + 3] = v4.w;
            }
#pragma unroll
            for (int q = 0; q < EPL / 4; ++q) {
                u32 i = (32u * (u32)q + lane) * 4u;
                u32 k4[4] = {0u, 0u, 0u, 0u};
                if (i < p.m) {  // M % 4 == 0: all 4 or none
#pragma unroll
                    for (int e = 0; e < 4; ++e) k4[e] = order_key(v[4 * q + e], p.sign);
                    *lane_min = min(*lane_min, min(min(k4[0], k4[1]), min(k4[2], k4[3])));
                    *lane_max = max(*lane_max, max(max(k4[0], k4[1]), max(k4[2], k4[3])));
                    *reinterpret_cast<uint4*>(s_keys + i) = make_uint4(k4[0], k4[1], k4[2], k4[3]);
                }
#pragma unroll
                for (int e = 0; e < 4; ++e) row.keys[4 * q + e] = k4[e];
            }
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < EPL; ++j) {
        u32 i = lane + 32u * (u32)j;
        v[j] = i < p.m ? row_in[i] : 0.f;
    }
#pragma unroll
    for (int j = 0; j < EPL; ++j) {
        u32 key = 0u;
        if (lane + 32u * (u32)j < p.m) {
            key = order_key(v[j], p.sign);
            *lane_min = min(*lane_min, key);
            *lane_max = max(*lane_max, key);
        }
        row.keys[j] = key;
    }
}

// Stage 3 for one warp after scalar loads: slot j of the 32 lanes is docs/kernel.md's chunk j
// (elements 32 j .. 32 j + 31), selected with ballots straight from the registers.
template <int EPL>
__device__ __forceinline__ void select_topk_chunks(const WarpRow<EPL>& row, const Cut& c,
                                                   const Params& p, u32 lane, const float* row_in,
                                                   float* out_val, u32* out_idx) {
    u32 band_left = p.k - c.strong_count, written = 0u;
#pragma unroll
    for (int j = 0; j < EPL; ++j) {
        if (written >= p.k || 32u * (u32)j >= p.m) break;  // warp-uniform
        u32 i = 32u * (u32)j + lane, band_taken;
        written += select_chunk(row.keys[j], i < p.m, i, c, band_left, written, p.k, row_in,
                                out_val, out_idx, p.sign, &band_taken);
        band_left -= band_taken;
    }
}

// Stage 3 for one warp after 16-byte loads, from the keys the load stage also left in shared
// memory in index order (registers would have to hold every key and flag until its group is
// written; a run-time loop over shared memory keeps the register count of the search). Group q
// is the 128 consecutive elements 128 q + 4 lane + e (e < 4). One shfl_up scan of each lane's
// strong and band counts (packed in one word) places the group; its results are staged as
// (index, key) pairs in output order, then written out with consecutive lanes on consecutive
// results. The same elements in the same order as docs/kernel.md's chunks of 32: every strong
// one, then the first band_left band elements by index.
__device__ __forceinline__ void select_topk_groups(const u32* s_keys, const Cut& c,
                                                   const Params& p, u32 lane, const float* row_in,
                                                   float* out_val, u32* out_idx, uint2* stage) {
    u32 band_left = p.k - c.strong_count, written = 0u;
#pragma unroll 1
    for (u32 base = 0u; base < p.m && written < p.k; base += 128u) {
        u32 i0 = base + 4u * lane;
        bool valid = i0 < p.m;  // M % 4 == 0: all 4 or none
        uint4 k4 = valid ? *reinterpret_cast<const uint4*>(s_keys + i0) : make_uint4(0, 0, 0, 0);
        u32 key[4] = {k4.x, k4.y, k4.z, k4.w};
        u32 strong = 0u, band = 0u;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            bool is_strong = key[e] > c.strong_above;
            bool is_band = valid && !is_strong && key[e] >= c.band_lo;
            strong |= (is_strong ? 1u : 0u) << e;
            band |= (is_band ? 1u : 0u) << e;
        }
        u32 own = __popc(strong) | (__popc(band) << 16), incl = own;
#pragma unroll
        for (u32 d = 1u; d < 32u; d <<= 1) {
            u32 up = __shfl_up_sync(FULL_MASK, incl, d);
            if (lane >= d) incl += up;
        }
        u32 total = __shfl_sync(FULL_MASK, incl, 31), before = incl - own;
        u32 band_before = before >> 16, band_total = total >> 16;
        // this lane's elements in index order: its results follow those of the lanes before
        place_group<4>(strong, band, (before & 0xffffu) + min(band_before, band_left), band_before,
                       band_left, [&](int e, u32 r) { stage[r] = make_uint2(i0 + (u32)e, key[e]); });
        u32 band_taken = min(band_total, band_left);
        u32 n = min((total & 0xffffu) + band_taken, p.k - written);
        __syncwarp();
        for (u32 l = lane; l < n; l += 32u) {
            uint2 e = stage[l];
            write_result(written + l, e.x, e.y, row_in, out_val, out_idx, p.sign);
        }
        __syncwarp();  // the next group's staging overwrites these slots
        written += n;
        band_left -= band_taken;
    }
}

template <int EPL>
__device__ void rtopk_warp_row(const Params& p, u64 row_id, u32* s_keys, uint2* stage) {
    u32 lane = threadIdx.x & 31u;
    const float* row_in = p.x + row_id * (u64)p.m;
    // stage 1: load_row
    WarpRow<EPL> row;
    row.m = p.m;
    u32 lane_min = 0xffffffffu, lane_max = 0u;
    load_row(row, row_in, p, lane, s_keys, &lane_min, &lane_max);
    u32 lo_key = __reduce_min_sync(FULL_MASK, lane_min);
    u32 hi_key = __reduce_max_sync(FULL_MASK, lane_max);
    // stage 2: search_threshold
    Search s = search_threshold(row, lo_key, hi_key, p);
    // stage 3: select_topk
    Cut c = cut_of(row, s, p.k);
    float* out_val = opaque(p.out_val + row_id * (u64)p.k);
    u32* out_idx = opaque(p.out_idx + row_id * (u64)p.k);
    bool grouped = false;
    if constexpr (EPL % 4 == 0) {
        grouped = p.vec4 != 0;
        if (grouped) select_topk_groups(s_keys, c, p, lane, row_in, out_val, out_idx, stage);
    }
    if (!grouped) select_topk_chunks(row, c, p, lane, row_in, out_val, out_idx);
    if (lane == 0) p.out_iter[row_id] = s.iterations;
}

// Shared memory of the warp kernels, per warp: the row's keys (32 EPL words) and one group's
// staged results (128 (index, key) pairs).
#define STAGE_PAIRS 128

template <int EPL>
__device__ void rtopk_warp_rows_impl(const Params& p) {
    extern __shared__ uint4 smem_warp_rows[];  // 16-byte aligned
    u32 warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    u64 row_id = (u64)blockIdx.x * warps + warp;
    if (row_id >= p.n_rows) return;  // warp-uniform: the partial last block
    u32* mine = reinterpret_cast<u32*>(smem_warp_rows) + warp * (32u * EPL + 2u * STAGE_PAIRS);
    rtopk_warp_row<EPL>(p, row_id, mine, reinterpret_cast<uint2*>(mine + 32u * EPL));
}

// Every entry point takes the same arguments, gathered into Params. The warp kernels' second
// launch bound caps registers so that that many blocks of 8 warps fit an SM (65536 registers):
// 8 blocks (full occupancy) up to 8 keys per lane, fewer for wider rows; none of them spills.
#define RTOPK_ARGS                                                                         \
    const float* x, float* out_val, u32* out_idx, u32* out_iter, u64 n_rows, u32 m, u32 k, \
        int smallest, int max_iter, float precision, u32 cached_keys, int vec4
#define RTOPK_PARAMS \
    Params{x, out_val, out_idx, out_iter, n_rows, m, k, smallest, max_iter, precision, cached_keys, vec4, \
           smallest ? -1.0f : 1.0f}

extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_1(RTOPK_ARGS) { rtopk_warp_rows_impl<1>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_2(RTOPK_ARGS) { rtopk_warp_rows_impl<2>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_4(RTOPK_ARGS) { rtopk_warp_rows_impl<4>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 8) rtopk_warp_rows_8(RTOPK_ARGS) { rtopk_warp_rows_impl<8>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_warp_rows_12(RTOPK_ARGS) { rtopk_warp_rows_impl<12>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 6) rtopk_warp_rows_16(RTOPK_ARGS) { rtopk_warp_rows_impl<16>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 5) rtopk_warp_rows_20(RTOPK_ARGS) { rtopk_warp_rows_impl<20>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_warp_rows_24(RTOPK_ARGS) { rtopk_warp_rows_impl<24>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_warp_rows_28(RTOPK_ARGS) { rtopk_warp_rows_impl<28>(RTOPK_PARAMS); }
extern "C" __global__ void __launch_bounds__(256, 4) rtopk_warp_rows_32(RTOPK_ARGS) { rtopk_warp_rows_impl<32>(RTOPK_PARAMS); }

// ---- one block per row (long rows) -------------------------------------------------------

// Block-wide min and max key, through the per-warp slots.
__device__ void block_range(const BlockRow& row, u32 lane_min, u32 lane_max, u32* lo, u32* hi) {
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

// Block-wide exclusive prefix and total of each thread's packed (strong | band << 16) count
// (block totals <= 4 * 1024 < 2^16): a warp scan, one barrier, two reductions over the warps'
// totals. `slots` (32 words) must not be in use by another prefix until every warp is past
// this one's barrier: callers alternate two sets.
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

// Stage 3 over the elements in registers: group q is the G * blockDim consecutive elements
// whose keys sit in slots G q .. G q + G - 1 of the block's threads (G = 4 after 16-byte
// loads, thread t holding 4 t .. 4 t + 3 of the group; else G = 1). A block prefix of the
// threads' strong and band counts places each thread's results; the same elements in the same
// order as docs/kernel.md's chunks: every strong one, then the first band_left band ones.
template <int G>
__device__ __forceinline__ void select_block_groups(const BlockRow& row, const Cut& c,
                                                    const Params& p, float* out_val,
                                                    u32* out_idx, u32* s_chunk, u32* band_left,
                                                    u32* written) {
#pragma unroll
    for (int q = 0; q < BLOCK_EPL / G; ++q) {
        u32 first = (u32)G * blockDim.x * (u32)q;
        if (*written >= p.k || first >= row.in_regs) break;  // block-uniform
        u32 i0 = first + (u32)G * threadIdx.x;
        u32 strong = 0u, band = 0u;
#pragma unroll
        for (int e = 0; e < G; ++e) {
            u32 key = row.keys[G * q + e];
            bool is_strong = key > c.strong_above;  // padding keys (0) never are
            bool is_band = i0 + (u32)e < p.m && !is_strong && key >= c.band_lo;
            strong |= (is_strong ? 1u : 0u) << e;
            band |= (is_band ? 1u : 0u) << e;
        }
        u32 before, total;
        block_prefix(__popc(strong) | (__popc(band) << 16), s_chunk + 32 * (q & 1), &before,
                     &total);
        u32 band_before = before >> 16;
        place_group<G>(strong, band, *written + (before & 0xffffu) + min(band_before, *band_left),
                       band_before, *band_left, [&](int e, u32 pos) {
                           if (pos < p.k)
                               write_result(pos, i0 + (u32)e, row.keys[G * q + e], row.row,
                                            out_val, out_idx, p.sign);
                       });
        u32 band_taken = min(total >> 16, *band_left);
        *written += (total & 0xffffu) + band_taken;
        *band_left -= band_taken;
    }
}

__device__ void rtopk_block_row(const Params& p) {
    extern __shared__ u32 smem[];
    __shared__ u32 s_partial[128];
    __shared__ u32 s_chunk[2 * 32];
    u64 row_id = blockIdx.x;
    const float* row_in = p.x + row_id * (u64)p.m;
    BlockRow row;
    row.row = row_in; row.s_keys = smem; row.s_partial = s_partial; row.half = 0u;
    row.m = p.m; row.in_regs = min(p.m, BLOCK_EPL * blockDim.x); row.sign = p.sign;
    row.cached = min(p.cached_keys, p.m - row.in_regs);
    // stage 1: load_row (registers, then shared memory, min/max)
    u32 lane_min = 0xffffffffu, lane_max = 0u;
    // every load is issued before the first key is computed (the raw bits wait in keys[])
    if (p.vec4) {
#pragma unroll
        for (int q = 0; q < BLOCK_EPL / 4; ++q) {
            u32 i = 4u * (threadIdx.x + blockDim.x * (u32)q);
            uint4 b = i < p.m ? *reinterpret_cast<const uint4*>(row_in + i) : make_uint4(0, 0, 0, 0);
            row.keys[4 * q] = b.x; row.keys[4 * q + 1] = b.y;
            row.keys[4 * q + 2] = b.z; row.keys[4 * q + 3] = b.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < BLOCK_EPL; ++j) {
            u32 i = threadIdx.x + blockDim.x * (u32)j;
            row.keys[j] = i < p.m ? __float_as_uint(row_in[i]) : 0u;
        }
    }
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) {
        u32 i = p.vec4 ? 4u * (threadIdx.x + blockDim.x * (u32)(j / 4)) + (u32)(j % 4)
                       : threadIdx.x + blockDim.x * (u32)j;
        bool valid = i < p.m;
        u32 key = valid ? order_key(__uint_as_float(row.keys[j]), p.sign) : 0u;
        if (valid) {
            lane_min = min(lane_min, key);
            lane_max = max(lane_max, key);
        }
        row.keys[j] = key;
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
    // stage 3: select_topk, first from the registers, a group of elements at a time, then
    // past them one chunk of blockDim consecutive elements at a time
    Cut c = cut_of(row, s, p.k);
    u32 band_left = p.k - c.strong_count, written = 0u;
    float* out_val = opaque(p.out_val + row_id * (u64)p.k);
    u32* out_idx = opaque(p.out_idx + row_id * (u64)p.k);
    if (p.vec4) select_block_groups<4>(row, c, p, out_val, out_idx, s_chunk, &band_left, &written);
    else select_block_groups<1>(row, c, p, out_val, out_idx, s_chunk, &band_left, &written);
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

extern "C" __global__ void __launch_bounds__(1024, 1) rtopk_block_rows(RTOPK_ARGS) { rtopk_block_row(RTOPK_PARAMS); }

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
