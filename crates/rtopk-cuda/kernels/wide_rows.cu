// The wide-row kernels: rtopk_wide_rows_<EPL> and their ragged twins
// rtopk_wide_rows_ragged_<EPL>, rows of 64-bit elements (f64, i64) on their own 64-bit keys
// (docs/kernel.md, "64-bit rows"), one warp per row, WIDE_WARPS rows per block, EPL keys per
// lane in registers (rtopk-plan's WIDE_WIDTHS). Its stages are topk-ref's bisect and
// select_in_index_order on 64-bit keys, with warp-sim's rtopk/wide.rs under the same names:
// load_wide, search_wide (wide_value_phase, wide_key_phase, wide_early_stopping; with a hint,
// search_wide_hinted: wide_hint_test, wide_window_tests), select_wide (cut_wide,
// select_chunk_wide), sort_wide. The entry points are written from src/kernels.rs's table.

#include "wide.cuh"

// ---- The row ---------------------------------------------------------------------------------

// A wide row: lane l's slot j holds the key of element l + 32 j (j < EPL; 0 past m), the rest
// is re-keyed from the input on each pass.
template <int EPL>
struct WideRow {
    u64 keys[EPL];
    const elem_t* in;
    u32 m;
    float sign;
};

// count_wide: how many of the row's keys are >= t (every lane gets the count). The slots past
// the row's end hold key 0, which no test counts: every t tested is above the bracket's low key
// (t >= 1). t = 0 counts them too: early stopping's fixed point asks only whether the count
// reaches k <= m, and cut_wide at an all-zero row then takes its general cut (the first k keys
// >= 0: the same elements) where a count of exactly k would have taken them all. The slots'
// compares pack into one mask (bit j: slot j) counted by one popc: independent compares, not a
// chain of EPL dependent adds (rows.cuh's count_slots_ge; EPL <= 32).
template <int EPL>
__device__ u32 count_wide(const WideRow<EPL>& row, u64 t, u32 lane) {
    u32 ge = 0u;
#pragma unroll
    for (int j = 0; j < EPL; ++j) ge |= (row.keys[j] >= t ? 1u : 0u) << j;
    u32 c = __popc(ge);
    if (row.m > 32u * EPL) {  // warp-uniform: only the widest unit's rows reach past the slots
        for (u32 i = 32u * EPL + lane; i < row.m; i += 32u) c += wide_key(row.in[i], row.sign) >= t ? 1u : 0u;
    }
    return __reduce_add_sync(FULL_MASK, c);
}

// Stage 1, load_wide: the slots' keys, and the row's least and greatest key. Every slot's load
// is issued before any is keyed: keyed as it was loaded, each guarded load waited out its own
// latency in turn (docs/kernel.md, "64-bit rows").
template <int EPL>
__device__ void load_wide(WideRow<EPL>& row, u32 lane, u64* lo_key, u64* hi_key) {
    elem_t v[EPL];
#pragma unroll
    for (int j = 0; j < EPL; ++j) {
        u32 i = lane + 32u * j;
        v[j] = i < row.m ? row.in[i] : (elem_t)0;
    }
    u64 lo = ~0ull, hi = 0ull;
#pragma unroll
    for (int j = 0; j < EPL; ++j) {
        bool valid = lane + 32u * j < row.m;
        // keyed whether valid or not, then masked: keyed under the test, each slot's keying
        // became a branch that the next slot's load waited behind
        row.keys[j] = wide_key(v[j], row.sign) & (valid ? ~0ull : 0ull);
        if (valid) { lo = min(lo, row.keys[j]); hi = max(hi, row.keys[j]); }
    }
    for (u32 i = 32u * EPL + lane; i < row.m; i += 32u) {
        u64 key = wide_key(row.in[i], row.sign);
        lo = min(lo, key);
        hi = max(hi, key);
    }
    *lo_key = warp_min64(lo);
    *hi_key = warp_max64(hi);
}

// ---- Stage 2, search_wide: topk-ref's bisect on the row's 64-bit keys ------------------------

struct WideSearch {
    u64 lo_key, hi_key;
    u32 count_at_hi;
    int has_count_at_hi;
    u32 count_at_lo;  // cnt(lo): the row's length until a test raises lo (the recall rule's)
    u32 iterations;
    int exit;
};

// Algorithm 1's three-way update (topk-ref's update_exact); returns 1 on a hit, -1 where hi was
// lowered, 0 where lo was raised.
__device__ __forceinline__ int wide_update(WideSearch& s, u64 t, u32 cnt, u32 k) {
    s.iterations += 1u;
    if (cnt > k) { s.lo_key = t; s.count_at_lo = cnt; return 0; }
    s.hi_key = t; s.count_at_hi = cnt; s.has_count_at_hi = 1;
    return cnt < k ? -1 : 1;
}

// topk-ref's recall rule: the bracket's selection misses at most min(k - cnt(hi), cnt(lo) - k)
// of the top k (an unknown cnt(hi) counts as 0); slack < 0: no recall target.
__device__ __forceinline__ bool wide_recall_met(const WideSearch& s, u32 k, int slack) {
    if (slack < 0) return false;
    u32 at_hi = s.has_count_at_hi ? s.count_at_hi : 0u;
    u32 above = k > at_hi ? k - at_hi : 0u;
    u32 below = s.count_at_lo > k ? s.count_at_lo - k : 0u;
    return min(above, below) <= (u32)slack;
}

// The recall target's slack, k - ceil(r k) with r k in f32 (topk-ref's Bisect::recall_slack),
// or -1 without a target or where it allows no miss.
__device__ __forceinline__ int wide_recall_slack(const Params& p, u32 k) {
    if (!(p.recall > 0.0f)) return -1;
    u32 need = (u32)ceilf(__fmul_rn(p.recall, (float)k));
    return need >= k ? -1 : (int)(k - need);
}

// The value phase on f64 ordered values (topk-ref's value_phase): 1 when the search is over,
// 0 when the key phase takes over (a bound not finite, a stall, VALUE_PHASE_LIMIT tests).
// RECALL: slack >= 0, a recall target to test before each step (instantiated apart: tested
// where there is none, it cost seven instructions a step).
template <int EPL, bool RECALL>
__device__ int wide_value_phase(const WideRow<EPL>& row, WideSearch& s, const Params& p, u32 lane, int slack) {
#if ELEM_KIND == ELEM_F64
    double lo = ordered_of_key64(s.lo_key), hi = ordered_of_key64(s.hi_key);
    if (!(isfinite(lo) && isfinite(hi))) return 0;
    u64 lo_wide = number_key64(lo), hi_wide = number_key64(hi);
    double eps = __dmul_rn((double)p.precision, fabs(hi));
    while (s.iterations < VALUE_PHASE_LIMIT) {
        if (RECALL && wide_recall_met(s, p.k, slack)) { s.exit = EXIT_RECALL; return 1; }
        if (__dsub_rn(hi, lo) <= eps) { s.exit = EXIT_PRECISION; return 1; }
        double thres = midpoint64(lo, hi);
        u64 t = number_key64(thres);  // finite: its own key, the key test's threshold
        if (!(lo_wide < t && t < hi_wide)) return 0;
        int step = wide_update(s, t, count_wide(row, t, lane), p.k);
        if (step == 1) { s.exit = EXIT_HIT; return 1; }
        if (step < 0) { hi = thres; hi_wide = t; } else { lo = thres; lo_wide = t; }
    }
#endif
    return 0;
}

// The key phase: halving the key bracket until its ends are adjacent.
template <int EPL>
__device__ void wide_key_phase(const WideRow<EPL>& row, WideSearch& s, u32 k, u32 lane, int slack) {
    while (s.hi_key - s.lo_key > 1ull) {
        if (wide_recall_met(s, k, slack)) { s.exit = EXIT_RECALL; return; }
        u64 t = s.lo_key + (s.hi_key - s.lo_key) / 2ull;
        if (wide_update(s, t, count_wide(row, t, lane), k) == 1) { s.exit = EXIT_HIT; return; }
    }
    s.exit = EXIT_CONVERGED;
}

// Algorithm 2 as written (topk-ref's search_early_stopping): max_iter steps of
// cnt < k ? hi = thres : lo = thres, on f64 values where both ends are finite, else on keys,
// stopping at a fixed point.
template <int EPL>
__device__ void wide_early_stopping(const WideRow<EPL>& row, WideSearch& s, const Params& p, u32 lane) {
    bool finite = false;
    double lo = 0.0, hi = 0.0;
#if ELEM_KIND == ELEM_F64
    lo = ordered_of_key64(s.lo_key);
    hi = ordered_of_key64(s.hi_key);
    finite = isfinite(lo) && isfinite(hi);
#endif
    for (int iter = 0; iter < p.max_iter; ++iter) {
        double thres = 0.0;  // key steps move the keys alone
        u64 t;
        if (finite) { thres = midpoint64(lo, hi); t = number_key64(thres); }
        else { t = s.lo_key + (s.hi_key - s.lo_key) / 2ull; }
        u64 before_lo = s.lo_key, before_hi = s.hi_key;
        long long before_lo_bits = __double_as_longlong(lo), before_hi_bits = __double_as_longlong(hi);
        if (count_wide(row, t, lane) < p.k) { s.hi_key = t; if (finite) hi = thres; }
        else { s.lo_key = t; if (finite) lo = thres; }
        if (before_lo == s.lo_key && before_hi == s.hi_key && before_lo_bits == __double_as_longlong(lo) &&
            before_hi_bits == __double_as_longlong(hi))
            break;  // a fixed point: every remaining step repeats this one
    }
    s.iterations = (u32)p.max_iter;
    s.exit = EXIT_MAX_ITER;
}

// Stage 2: exact (the value phase, then the key phase) or early stopping.
template <int EPL>
__device__ WideSearch search_wide(const WideRow<EPL>& row, u64 lo_key, u64 hi_key, const Params& p, u32 lane) {
    WideSearch s = {lo_key, hi_key, 0u, 0, row.m, 0u, EXIT_CONVERGED};
    if (p.max_iter >= 0) {
        wide_early_stopping(row, s, p, lane);
        return s;
    }
    if (lo_key == hi_key) return s;
    int slack = wide_recall_slack(p, p.k);
    if (slack >= 0 ? wide_value_phase<EPL, true>(row, s, p, lane, slack)
                   : wide_value_phase<EPL, false>(row, s, p, lane, slack))
        return s;
    wide_key_phase(row, s, p.k, lane, slack);
    return s;
}

// ---- Threshold hints (docs/contract.md §5; topk-ref's bisect, "Hints") -----------------------
// The ragged units' _hinted entry points only: a row with a hint, in exact mode without a
// precision or recall target, starts with wide_hint_test and wide_window_tests, then goes on
// with the value phase and the key phase from the bracket they leave (topk-ref's
// search_keys_hint_key).
#define HINT_SKIPPED 0
#define HINT_ENDED 1
#define HINT_ABOVE 2  // the threshold lies above the hint: the test raised lo
#define HINT_BELOW 3  // below it: the test lowered hi

// The key a hint is tested at (topk-ref's Element::hint_key), or none (*has = false): on an
// f64 row the key of the hint's ordered value (hint * sign, exact), none for NaN; on an i64
// row the key of the least integer >= hint (largest mode) or the greatest <= hint (smallest),
// saturated at the type's far end, none beyond its near end.
__device__ __forceinline__ u64 wide_hint_key(float hint, float sign, bool* has) {
    *has = !isnan(hint);
#if ELEM_KIND == ELEM_F64
    return number_key64((double)__fmul_rn(hint, sign));
#else
    const double two63 = 9223372036854775808.0;  // 2^63: i64 holds [-2^63, 2^63)
    if (sign > 0.0f) {
        double c = ceil((double)hint);
        *has = *has && c < two63;
        return wide_key(c < -two63 ? (elem_t)SIGN64 : (elem_t)(long long)c, sign);
    }
    double f = floor((double)hint);
    *has = *has && f >= -two63;
    return wide_key(f >= two63 ? (elem_t)(SIGN64 - 1ull) : (elem_t)(long long)f, sign);
#endif
}

// The hint test: one pass at t counting the keys > t and >= t, so that a hint at the row's
// threshold ends the search; skipped without a hint, for a bracket of adjacent keys, or for t
// outside (lo_key, hi_key].
template <int EPL>
__device__ int wide_hint_test(const WideRow<EPL>& row, WideSearch& s, float hint, u32 k, u32 lane) {
    bool has;
    u64 t = wide_hint_key(hint, row.sign, &has);
    if (!has || s.hi_key - s.lo_key <= 1ull || t <= s.lo_key || t > s.hi_key) return HINT_SKIPPED;
    u32 at_least = count_wide(row, t, lane);
    u32 above = t == ~0ull ? 0u : count_wide(row, t + 1ull, lane);
    s.iterations += 1u;
    if (at_least < k) {
        s.hi_key = t; s.count_at_hi = at_least; s.has_count_at_hi = 1;
        return HINT_BELOW;
    }
    if (above > k) { s.lo_key = t + 1ull; return HINT_ABOVE; }  // a key above t: no wrap
    if (above == k) {
        s.hi_key = t + 1ull; s.count_at_hi = above; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
        return HINT_ENDED;
    }
    if (at_least == k) {  // above < k <= at_least: the k-th key is t itself
        s.hi_key = t; s.count_at_hi = at_least; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
        return HINT_ENDED;
    }
    s.lo_key = t;
    if (t < s.hi_key) { s.hi_key = t + 1ull; s.count_at_hi = above; s.has_count_at_hi = 1; }
    s.exit = EXIT_CONVERGED;
    return HINT_ENDED;
}

// The window tests (f64 rows): a test 2^-shift of the bracket away from the hint's side, for
// shift = 10, 7 then 4 (HINT_WINDOW_SHIFT: topk-ref's HINT_WINDOW_SHIFTS), while the
// bracket's ordered values are finite and the test lies strictly between them; they end once
// a test moves the bound on the far side of the hint. Returns 1 on a hit.
template <int EPL>
__device__ int wide_window_tests(const WideRow<EPL>& row, WideSearch& s, int side, u32 k, u32 lane) {
#if ELEM_KIND == ELEM_F64
    // not unrolled: unrolled, it slowed hinted rows whose tests did not change
#pragma unroll 1
    for (int window = 0; window < HINT_WINDOWS; ++window) {
        int shift = HINT_WINDOW_SHIFT(window);
        double lo = ordered_of_key64(s.lo_key), hi = ordered_of_key64(s.hi_key);
        if (!(isfinite(lo) && isfinite(hi))) return 0;
        double scale = __longlong_as_double((long long)(1023 - shift) << 52);  // 2^-shift, exact
        double width = __dsub_rn(__dmul_rn(hi, scale), __dmul_rn(lo, scale));
        double thres = side == HINT_ABOVE ? __dadd_rn(lo, width) : __dsub_rn(hi, width);
        u64 t = number_key64(thres);
        if (!(number_key64(lo) < t && t < number_key64(hi))) return 0;  // thres is not NaN
        int step = wide_update(s, t, count_wide(row, t, lane), k);
        if (step == 1) { s.exit = EXIT_HIT; return 1; }
        if ((step < 0) == (side == HINT_ABOVE)) return 0;  // the far bound moved
    }
#endif
    return 0;
}

// Algorithm 1 with a hint: the hint test and the window tests, then the value phase and the key
// phase from the bracket they leave (their tests count toward VALUE_PHASE_LIMIT). A skipped hint
// test leaves exactly search_wide.
template <int EPL>
__device__ WideSearch search_wide_hinted(const WideRow<EPL>& row, u64 lo_key, u64 hi_key, const Params& p,
                                         float hint, u32 lane) {
    WideSearch s = {lo_key, hi_key, 0u, 0, row.m, 0u, EXIT_CONVERGED};
    int side = wide_hint_test(row, s, hint, p.k, lane);
    if (side == HINT_SKIPPED) return search_wide(row, lo_key, hi_key, p, lane);
    if (side == HINT_ENDED) return s;
    if (wide_window_tests(row, s, side, p.k, lane)) return s;
    s.exit = EXIT_CONVERGED;
    if (s.lo_key == s.hi_key) return s;
    if (wide_value_phase<EPL, false>(row, s, p, lane, -1)) return s;
    wide_key_phase(row, s, p.k, lane, -1);
    return s;
}

// ---- Stage 3, select_wide: topk-ref's select_from and select_in_index_order -----------------

// The cut: keys > strong_above are all taken, then the first band_left of those >= band_lo, in
// index order; takes_all: every key >= band_lo is taken (none above strong_above, and no more
// than band_left of them: a hit's cut), which one ballot per chunk selects.
struct WideCut {
    u64 strong_above, band_lo;
    u32 band_left;
    bool takes_all;
};

// cut_wide: topk-ref's select_from. Early stopping takes the first k of {key >= lo}; else a
// cnt(hi) >= k (hi never lowered, ties at the maximum) the first k of {key >= hi}; else every
// key >= hi and the first k - cnt(hi) of [lo, hi).
template <int EPL>
__device__ WideCut cut_wide(const WideRow<EPL>& row, const WideSearch& s, u32 k, u32 lane) {
    if (s.exit == EXIT_MAX_ITER) return {~0ull, s.lo_key, k, false};
    u32 at_hi = s.has_count_at_hi ? s.count_at_hi : count_wide(row, s.hi_key, lane);
    if (at_hi >= k) return {~0ull, s.hi_key, k, at_hi == k};
    return {s.hi_key - 1ull, s.lo_key, k - at_hi, false};  // hi_key > lo_key >= 0: no wrap
}

// One chunk of 32 consecutive elements (lane's is i): its strong ones and the first band_left
// band ones, written at their places in index order: the input's bits from the key where it
// keeps them, else re-read (a load per chunk that the store waits for).
__device__ __forceinline__ void select_chunk_wide(u64 key, bool valid, u32 i, WideCut& c, u32* written, u32 k,
                                                  const elem_t* in, float sign, elem_t* out_val, idx_t* out_idx,
                                                  u32 lane) {
    u32 selected;
    if (c.takes_all) {
        selected = __ballot_sync(FULL_MASK, valid && key >= c.band_lo);
    } else {
        bool strong = valid && key > c.strong_above;
        bool band = valid && !strong && key >= c.band_lo;
        u32 strong_mask = __ballot_sync(FULL_MASK, strong);
        u32 band_mask = lowest_bits(__ballot_sync(FULL_MASK, band), c.band_left);
        c.band_left -= __popc(band_mask);
        selected = strong_mask | band_mask;
    }
    u32 at = *written + __popc(selected & ((1u << lane) - 1u));
    if (((selected >> lane) & 1u) && at < k) {
        out_val[at] = wide_key_keeps_bits(key) ? wide_value_of_key(key, sign) : in[i];
        out_idx[at] = (idx_t)i;
    }
    *written += __popc(selected);
}

// Stage 3: the chunks in index order — the register slots' first, then the rest re-keyed —
// until k are written.
template <int EPL>
__device__ void select_wide(const WideRow<EPL>& row, const WideSearch& s, u32 k, u32 lane, elem_t* out_val,
                            idx_t* out_idx) {
    WideCut c = cut_wide(row, s, k, lane);
    u32 written = 0u;
#pragma unroll
    for (int j = 0; j < EPL; ++j) {
        if (written >= k || 32u * j >= row.m) return;  // warp-uniform; neither comes back
        u32 i = lane + 32u * j;
        select_chunk_wide(row.keys[j], i < row.m, i, c, &written, k, row.in, row.sign, out_val, out_idx, lane);
    }
    for (u32 base = 32u * EPL; base < row.m && written < k; base += 32u) {
        u32 i = base + lane;
        bool valid = i < row.m;
        u64 key = valid ? wide_key(row.in[i], row.sign) : 0ull;
        select_chunk_wide(key, valid, i, c, &written, k, row.in, row.sign, out_val, out_idx, lane);
    }
}

// ---- Stage 4, sort_wide: the sorted output (docs/contract.md §1) -----------------------------

#define WIDE_SORT_REGS 8  // results per lane of the register sort: k <= 256

// Whether result a goes before result b: the greater key, then the lower index.
__device__ __forceinline__ bool wide_before(u64 key_a, idx_t idx_a, u64 key_b, idx_t idx_b) {
    return key_a > key_b || (key_a == key_b && idx_a < idx_b);
}

// sort_wide_global: the row's k results sorted in place in global memory: a bitonic network in
// its one-direction form (each merge of width `size` starts with the comparators
// i <-> i ^ (size - 1), then i <-> i ^ stride), over the next power of two; a comparator whose
// upper place is past k is skipped (the places past k stand for results after every real one).
__device__ void sort_wide_global(elem_t* val, idx_t* idx, u32 k, float sign, u32 lane) {
    u32 n = 1u;
    while (n < k) n <<= 1;
    for (u32 size = 2u; size <= n; size <<= 1) {
        for (u32 stride = size / 2u; stride > 0u; stride >>= 1) {
            for (u32 i = lane; i < n; i += 32u) {
                u32 j = stride == size / 2u ? i ^ (size - 1u) : i ^ stride;
                if (j <= i || j >= k) continue;
                elem_t vi = val[i], vj = val[j];
                idx_t xi = idx[i], xj = idx[j];
                if (wide_before(wide_key(vj, sign), xj, wide_key(vi, sign), xi)) {
                    val[i] = vj; val[j] = vi;
                    idx[i] = xj; idx[j] = xi;
                }
            }
            __syncwarp();
        }
    }
}

// One place of a comparator: it keeps the result that goes first where it is the lower place,
// the other where it is the upper one.
__device__ __forceinline__ void wide_exchange(u64& key, u32& ix, u64 other_key, u32 other_ix, bool lower) {
    bool take = wide_before(other_key, other_ix, key, ix) == lower;
    key = take ? other_key : key;
    ix = take ? other_ix : ix;
}

// sort_wide_regs<E>: the same network over 32 E places held in registers, for k <= 32 E: place
// e * 32 + lane is the lane's register e, keyed once on the way in (the places past k: key 0
// and index ~0, after every real result). A comparator of mask below 32 pairs a register with
// the same register of lane ^ mask (a shuffle); of a multiple of 32, two registers of the lane;
// of both (mask 32 s - 1: the first of a merge wider than 32), register e with register
// e ^ (s - 1) of lane ^ 31 — both shuffled before either changes. The values go back from their
// keys where the keys keep them, else re-read from the input (in: the row's first element).
// Not inlined: inlined, the network's registers raised the whole kernel's count (80 against
// 62 at EPL 8 on f64, ptxas), and with it cut the unsorted rows' occupancy.
template <int E>
__device__ __noinline__ void sort_wide_regs(elem_t* val, idx_t* idx, u32 k, float sign, u32 lane, const elem_t* in) {
    u64 key[E];
    u32 ix[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        u32 i = 32u * e + lane;
        key[e] = i < k ? wide_key(val[i], sign) : 0ull;
        ix[e] = i < k ? (u32)idx[i] : ~0u;
    }
#pragma unroll
    for (int size = 2; size <= 32 * E; size <<= 1) {
#pragma unroll
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            const int mask = stride == size / 2 ? size - 1 : stride, lanes = mask & 31, regs = mask >> 5;
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const int pe = e ^ regs;
                if (regs == 0) {  // the same register of lane ^ mask
                    u64 ok = __shfl_xor_sync(FULL_MASK, key[e], lanes);
                    u32 ox = __shfl_xor_sync(FULL_MASK, ix[e], lanes);
                    wide_exchange(key[e], ix[e], ok, ox, lane < (lane ^ (u32)lanes));
                } else if (e < pe && lanes == 0) {  // two registers of the lane: e the lower place
                    u64 ke = key[e];
                    u32 xe = ix[e];
                    wide_exchange(key[e], ix[e], key[pe], ix[pe], true);
                    wide_exchange(key[pe], ix[pe], ke, xe, false);
                } else if (e < pe) {  // register pe of lane ^ 31 for e, and e of lane ^ 31 for pe
                    u64 ok_e = __shfl_xor_sync(FULL_MASK, key[pe], lanes), ok_pe = __shfl_xor_sync(FULL_MASK, key[e], lanes);
                    u32 ox_e = __shfl_xor_sync(FULL_MASK, ix[pe], lanes), ox_pe = __shfl_xor_sync(FULL_MASK, ix[e], lanes);
                    wide_exchange(key[e], ix[e], ok_e, ox_e, true);
                    wide_exchange(key[pe], ix[pe], ok_pe, ox_pe, false);
                }
            }
        }
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
        u32 i = 32u * e + lane;
        if (i < k) {
            val[i] = wide_key_keeps_bits(key[e]) ? wide_value_of_key(key[e], sign) : in[ix[e]];
            idx[i] = (idx_t)ix[e];
        }
    }
}

// sort_wide: the row's k results in sorted order (docs/contract.md §1): in registers for k up to
// 32 WIDE_SORT_REGS (the fewest registers that hold k), in global memory past it.
__device__ void sort_wide(elem_t* val, idx_t* idx, u32 k, float sign, u32 lane, const elem_t* in) {
    if (k <= 32u) sort_wide_regs<1>(val, idx, k, sign, lane, in);
    else if (k <= 64u) sort_wide_regs<2>(val, idx, k, sign, lane, in);
    else if (k <= 128u) sort_wide_regs<4>(val, idx, k, sign, lane, in);
    else if (k <= 32u * WIDE_SORT_REGS) sort_wide_regs<WIDE_SORT_REGS>(val, idx, k, sign, lane, in);
    else sort_wide_global(val, idx, k, sign, lane);
}

// ---- The entry point's body ------------------------------------------------------------------

// rtopk_wide_rows_impl: warp w of block b takes row b * WIDE_WARPS + w (rows past the end
// return: warp-uniform). A ragged unit (RAGGED) reads the row's own width and k (row_args), pads
// its outputs past its k, and, in its _hinted entry point (HINTED), starts its search at its
// hint where the launch gives hints and the search is exact (Algorithm 2, a precision and a
// recall target ignore them, as bisect does).
// Lane 0 writes the row's iteration count where the launch asks for counts.
template <int EPL, bool RAGGED, bool HINTED = false>
__device__ void rtopk_wide_rows_impl(const Params& launch) {
    u32 lane = threadIdx.x & 31u;
    u64 row_id = (u64)blockIdx.x * WIDE_WARPS + (threadIdx.x >> 5);
    if (row_id >= launch.n_rows) return;
    RowPlace at = place_row(launch, row_id);  // a wide row never splits: row_args's place too
    const Params p = RAGGED ? row_args(launch, row_id, &at) : launch;
    if (RAGGED && p.k < launch.k) pad_results(p.out_val, p.out_idx, at.out, p.k, launch.k, lane, 32u);
    if (p.k == 0u) {
        if (lane == 0u && p.out_iter) p.out_iter[row_id] = 0u;
        return;
    }
    WideRow<EPL> row;
    row.in = at.in;
    row.m = p.m;
    row.sign = p.sign;
    u64 lo_key, hi_key;
    load_wide(row, lane, &lo_key, &hi_key);
    bool hinted = takes_hint<HINTED>(p);
    WideSearch s = hinted ? search_wide_hinted(row, lo_key, hi_key, p, p.hint[row_id], lane)
                          : search_wide(row, lo_key, hi_key, p, lane);
    elem_t* out_val = opaque(p.out_val + at.out);
    idx_t* out_idx = opaque(p.out_idx + at.out);
    select_wide(row, s, p.k, lane, out_val, out_idx);
    if (p.sorted && p.k > 1u) {
        __syncwarp();  // the selection's writes, seen by every lane
        sort_wide(out_val, out_idx, p.k, p.sign, lane, row.in);
    }
    if (lane == 0u && p.out_iter) p.out_iter[row_id] = s.iterations;
}
