// Stage 2, search_threshold (docs/kernel.md, "Stage 2 — search").
#pragma once

#include "rows.cuh"

struct Search {
    u32 lo_key, hi_key;
    u32 count_at_hi;
    int has_count_at_hi;
    int exit;
    u32 iterations;
    float lo, hi, eps;  // the value phase's bracket and precision
    int value;          // VALUE_NONE (no value phase), VALUE_PLAIN or VALUE_GUARDED
    u32 count_at_lo;    // count_ge(lo_key): the row's length until a test raises lo
    int slack;          // recall_met's slack (docs/contract.md §6); -1: no recall target;
                        // SLACK_UNCOUNTED: none, on a 16-bit row whose count nobody asked for
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
        s.lo_key = t; s.count_at_lo = cnt;
    } else {
        s.hi_key = t; s.count_at_hi = cnt; s.has_count_at_hi = 1;
        return 1;
    }
    return 0;
}

// How many of the top k a recall target r lets the search miss: k - ceil(r k), r k in f32
// (topk-ref's Bisect::recall_slack); -1 without a target or where it allows no miss.
__device__ __forceinline__ int recall_slack(const Params& p, u32 k) {
    if (!(p.recall > 0.0f)) return -1;
    u32 need = (u32)ceilf(__fmul_rn(p.recall, (float)k));
    return need >= k ? -1 : (int)(k - need);  // no miss allowed: exact mode itself
}

// No recall target, on a 16-bit row whose count nobody asked for (out_iter null): its value
// phase ends at adjacent keys (value_phase's UNCOUNTED). Kept in the slack, whose other
// negative value means no target as well, rather than in a field of its own, which cost the
// counted bf16 search up to 3 % (docs/kernel.md, "16-bit rows").
#define SLACK_UNCOUNTED -2
__device__ __forceinline__ int uncounted_slack(const Params& p, int slack) {
    return ELEM_PACKED16 && slack < 0 && p.out_iter == nullptr ? SLACK_UNCOUNTED : slack;
}

// The recall rule (topk-ref's bisect, "Recall"): the selection of the bracket as it stands
// takes every key >= hi (all in the top k) and fills from [lo, hi), so it misses at most
// min(k - cnt(hi), cnt(lo) - k) of the top k; an unknown cnt(hi) counts as 0.
__device__ __forceinline__ bool recall_met(const Search& s, u32 k) {
    int above = (int)k - (int)(s.has_count_at_hi ? s.count_at_hi : 0u);
    int below = (int)s.count_at_lo - (int)k;
    return s.slack >= 0 && min(above, below) <= s.slack;
}

// Algorithm 1's value phase over the finite bracket [s.lo, s.hi]: returns 1 when the search is
// over (a hit, the recall target or the precision reached) or the row is to be narrowed
// (EXIT_NARROW), 0 when the key phase takes over (the bracket's ends are adjacent floats, or
// VALUE_PHASE_LIMIT steps). PLAIN, where eps == 0 and |lo|, |hi| <= FLT_MAX / 2 (almost every
// row), leaves out two tests that cannot fire there: the precision test (hi > lo throughout,
// so hi - lo > 0 = eps) and midpoint's overflow guard (lo + hi is finite). The bracket moves
// without the three-way update's counts (cut_of counts at hi at the end if a row ends without
// a hit; no row of continuous data does), but for RECALL (a recall target), which keeps both
// for the recall rule and tests it before each threshold.
//
// UNCOUNTED (a 16-bit row whose count nobody asked for): the phase ends once the bracket's own
// keys are adjacent. A 16-bit threshold's test is at the least value of the type at or above
// it, so from there on every test lands on one of the two keys: it moves neither, or hits at a
// bound no test has set, where the cut takes the same elements as the converged one. The f32
// bracket meanwhile halves down to adjacent floats, counting each time (a tie at the k-th
// value, where no test can hit); the key phase instead ends at once, with the same keys and so
// the same answer (docs/kernel.md, "16-bit rows"). docs/contract.md §3 counts those steps, so a
// row whose count is asked makes them.
template <bool PLAIN, bool RECALL, bool UNCOUNTED, class Row>
__device__ __forceinline__ int value_phase(const Row& row, Search& s, u32 k) {
    float lo = s.lo, hi = s.hi;
    while (s.iterations < VALUE_PHASE_LIMIT) {
        if (RECALL && recall_met(s, k)) { s.exit = EXIT_RECALL; return 1; }
        if (!PLAIN && __fsub_rn(hi, lo) <= s.eps) { s.exit = EXIT_PRECISION; return 1; }
        float thres = PLAIN ? __fmul_rn(__fadd_rn(lo, hi), 0.5f) : midpoint(lo, hi);
#if ELEM_KIND == ELEM_F32
        u32 t = number_key(thres);  // key_of_ordered: thres is finite here, never NaN
        if (!(s.lo_key < t && t < s.hi_key)) return 0;  // adjacent floats: stall
        u32 cnt = row.count_ge_positive(t);
#elif ELEM_PACKED16
        // the stall test on the bounds' f32 keys (as float compares: lo, thres and hi are
        // never NaN, and -0.0 == +0.0 as their keys are), then the least value of the type at
        // or above thres (finite: lo and hi are values of the type) and its own key, the key
        // the test counts from (own_key_at_least); a packed row compares with the value itself
        // (count_at_value), one packed compare per two elements
        if (!(lo < thres && thres < hi)) return 0;
        if (UNCOUNTED && s.hi_key - s.lo_key <= 1u) return 0;  // adjacent keys: converged
        u32 c = ceil16(thres);
        u32 t = key16_of_number(c);
        u32 cnt = count_at_value(row, c, t);
#else
        // the stall test on the bounds' f32 keys (as float compares: lo, thres and hi are
        // never NaN, and -0.0 == +0.0 as their keys are), then the own key the test counts from
        if (!(lo < thres && thres < hi)) return 0;
        if (UNCOUNTED && s.hi_key - s.lo_key <= 1u) return 0;  // adjacent keys: converged
        u32 t = own_key_at_least(thres);
        u32 cnt = row.count_ge_positive(t);
#endif
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
        if (RECALL) {  // the counts the recall rule reads
            if (below) { s.count_at_hi = cnt; s.has_count_at_hi = 1; } else { s.count_at_lo = cnt; }
        }
        if (Row::NARROW_CAP != 0u && !below && cnt <= Row::NARROW_CAP) {
            s.lo = lo; s.hi = hi; s.count_at_lo = cnt; s.exit = EXIT_NARROW;
            return 1;
        }
    }
    return 0;
}

// The value phase of the row's kind: plain or guarded, with or without a recall target, and
// for a 16-bit row whose count nobody asked for (SLACK_UNCOUNTED), one that ends at adjacent
// keys.
template <class Row>
__device__ __forceinline__ int value_phase_of(const Row& row, Search& s, u32 k) {
    if (s.slack >= 0)
        return s.value == VALUE_PLAIN ? value_phase<true, true, false>(row, s, k)
                                      : value_phase<false, true, false>(row, s, k);
    if (ELEM_PACKED16 && s.slack == SLACK_UNCOUNTED)
        return s.value == VALUE_PLAIN ? value_phase<true, false, true>(row, s, k)
                                      : value_phase<false, false, true>(row, s, k);
    return s.value == VALUE_PLAIN ? value_phase<true, false, false>(row, s, k)
                                  : value_phase<false, false, false>(row, s, k);
}

// The value phase (where it applies), then the key phase. A row that leaves the value phase
// to be narrowed (EXIT_NARROW) comes back here as its CandRow and goes on where it left off.
template <class Row>
__device__ void finish_exact(const Row& row, Search& s, u32 k) {
    if (!ELEM_INTEGER && s.value != VALUE_NONE && value_phase_of(row, s, k)) return;
    // key phase: only where the value phase cannot proceed
    while (s.hi_key - s.lo_key > 1u) {
        if (recall_met(s, k)) { s.exit = EXIT_RECALL; return; }
        u32 t = s.lo_key + (s.hi_key - s.lo_key) / 2u;  // > lo_key >= 0
        if (update(s, t, row.count_ge_positive(t), k)) { s.exit = EXIT_HIT; return; }
    }
    s.exit = EXIT_CONVERGED;
}

// search_exact's value phase set-up for the bracket [s.lo_key, s.hi_key]: where both ends
// are finite values of a float row; an integer row has none (docs/contract.md §3).
__device__ __forceinline__ void value_of_bracket(Search& s, const Params& p) {
    s.value = VALUE_NONE;
#if !ELEM_INTEGER
    s.lo = ordered_value_of_own_key(s.lo_key);
    s.hi = ordered_value_of_own_key(s.hi_key);
    if (isfinite(s.lo) && isfinite(s.hi)) {
        s.eps = __fmul_rn(p.precision, fabsf(s.hi));
        bool plain = s.eps == 0.0f && fmaxf(fabsf(s.lo), fabsf(s.hi)) <= 0x1.fffffep126f;
        s.value = plain ? VALUE_PLAIN : VALUE_GUARDED;
    }
#endif
}

template <class Row>
__device__ Search search_exact(const Row& row, u32 lo_key, u32 hi_key, const Params& p) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m,
                uncounted_slack(p, recall_slack(p, p.k))};
    if (lo_key == hi_key) return s;
    // value phase: the paper's bisection on (ordered) values (none on an integer row)
    value_of_bracket(s, p);
    finish_exact(row, s, p.k);
    return s;
}

template <class Row>
__device__ Search search_early_stopping(const Row& row, u32 lo_key, u32 hi_key, const Params& p) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_MAX_ITER, (u32)p.max_iter, 0.0f, 0.0f, 0.0f,
                VALUE_NONE, row.m, -1};
    // the f32 rows' value steps where both ends are finite values; else (an integer row
    // always) key steps
    float lo = 0.0f, hi = 0.0f;
    int finite = 0;
#if !ELEM_INTEGER
    lo = ordered_value_of_own_key(lo_key);
    hi = ordered_value_of_own_key(hi_key);
    finite = isfinite(lo) && isfinite(hi);
#endif
    for (int iter = 0; iter < p.max_iter; ++iter) {
        float thres = __int_as_float(0x7fc00000);  // NaN: unused in the key branch
        u32 t;
        if (finite) { thres = midpoint(lo, hi); t = own_key_at_least(thres); }  // finite: not NaN
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

// ---- Threshold hints (docs/contract.md §5; topk-ref's bisect, "Hints") -----------------------
// Only the ragged units' _hinted entry points compile these (search_of<true, true>): their
// search code held beside the plain one made the ragged twins spill registers and run up to a
// third slower than the plain units on rows without hints, so a step launches its unit's
// _hinted entry only where it passes hints (docs/kernel.md, "Threshold hints"). A row with a
// hint, in exact mode, starts with hint_test and window_tests, then goes on with finish_exact
// from the bracket they leave, so that its answer is the plain search's and its count
// bisect's with the same hint.
#define HINT_SKIPPED 0
#define HINT_ENDED 1
#define HINT_ABOVE 2  // the threshold lies above the hint: the test raised lo
#define HINT_BELOW 3  // below it: the test lowered hi

// The hint test: one test at t = hint_key (the own key of the least value of the row's type >=
// the hint's ordered value; on an integer row, int_hint_key), counting the keys > t and >= t
// (count_above_and_at_least: two counting passes, summed in one round by block and cluster
// rows; one iteration), so that a hint at the row's threshold ends the search.
// Skipped for a NaN hint, a bracket of adjacent keys, or t outside (lo_key, hi_key].
template <class Row>
__device__ int hint_test(const Row& row, Search& s, float hint, const Params& p) {
    if (isnan(hint) || s.hi_key - s.lo_key <= 1u) return HINT_SKIPPED;
    u32 t = hint_key(hint, p.sign);
    if (t <= s.lo_key || t > s.hi_key) return HINT_SKIPPED;
    // t > lo_key >= 0; nothing lies above the last key, where t + 1 would wrap (on a float
    // row t is a number's key, never that NaN key; on an integer row it is the type's end)
    u32 at_least, above = 0u;
    if (t == 0xffffffffu) at_least = row.count_ge_positive(t);
    else row.count_above_and_at_least(t, &above, &at_least);  // one round where the row can
    s.iterations += 1;
    if (at_least < p.k) {
        s.hi_key = t; s.count_at_hi = at_least; s.has_count_at_hi = 1;
        return HINT_BELOW;
    }
    if (above > p.k) { s.lo_key = t + 1u; return HINT_ABOVE; }
    if (above == p.k) {
        s.hi_key = t + 1u; s.count_at_hi = above; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
        return HINT_ENDED;
    }
    if (at_least == p.k) {  // above < k <= at_least: the k-th key is t itself
        s.hi_key = t; s.count_at_hi = at_least; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
        return HINT_ENDED;
    }
    s.lo_key = t;
    if (t < s.hi_key) { s.hi_key = t + 1u; s.count_at_hi = above; s.has_count_at_hi = 1; }
    s.exit = EXIT_CONVERGED;
    return HINT_ENDED;
}

// The window tests: a test 2^-s of the bracket away from the hint's side (lo + w above it,
// hi - w below, w = hi 2^-s - lo 2^-s), for s = 10, 7 then 4 (HINT_WINDOW_SHIFT: topk-ref's
// HINT_WINDOW_SHIFTS), while the bracket's ordered values are finite and the threshold lies
// strictly between them; they end once a test moves the bound on the far side of the hint.
// Returns 1 on a hit.
template <class Row>
__device__ int window_tests(const Row& row, Search& s, int side, u32 k) {
#if ELEM_INTEGER
    return 0;  // value-space steps: an integer row has none
#else
    // not unrolled: unrolled, it slowed hinted rows whose tests did not change
#pragma unroll 1
    for (int window = 0; window < HINT_WINDOWS; ++window) {
        int shift = HINT_WINDOW_SHIFT(window);
        float lo = ordered_value_of_own_key(s.lo_key), hi = ordered_value_of_own_key(s.hi_key);
        if (!(isfinite(lo) && isfinite(hi))) return 0;
        float scale = __int_as_float((127 - shift) << 23);  // 2^-shift, exact
        float width = __fsub_rn(__fmul_rn(hi, scale), __fmul_rn(lo, scale));
        float thres = side == HINT_ABOVE ? __fadd_rn(lo, width) : __fsub_rn(hi, width);
        if (!(lo < thres && thres < hi)) return 0;  // as the bounds' f32 keys: never NaN
        u32 t = own_key_at_least(thres);
        u32 cnt = row.count_ge_positive(t);  // t > lo_key >= 0
        if (update(s, t, cnt, k)) { s.exit = EXIT_HIT; return 1; }
        if ((cnt < k) == (side == HINT_ABOVE)) return 0;  // the far bound moved
    }
    return 0;
#endif
}

// Algorithm 1 with a hint: the hint test and the window tests, then the value phase and the
// key phase from the bracket they leave (their tests count toward VALUE_PHASE_LIMIT). A skipped
// hint test leaves exactly search_exact.
template <class Row>
__device__ Search search_hinted(const Row& row, u32 lo_key, u32 hi_key, const Params& p, float hint) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m,
                uncounted_slack(p, -1)};
    int side = hint_test(row, s, hint, p);
    if (side == HINT_SKIPPED) return search_exact(row, lo_key, hi_key, p);
    if (side == HINT_ENDED) return s;
    if (window_tests(row, s, side, p.k)) return s;
    s.exit = EXIT_CONVERGED;
    if (s.lo_key == s.hi_key) return s;
    value_of_bracket(s, p);
    // the value phase moves hi without its count (cut_of counts it where the search ends
    // without a hit): an earlier test's count at hi is dropped, as on the plain path
    s.has_count_at_hi = 0;
    finish_exact(row, s, p.k);
    return s;
}

// The row's hint where it takes one (else 0, unread). A block row reads it as its first load:
// the search needs it only after the row's loads and its min and max, and read there it adds
// a memory round trip to the one block of a hinted row (docs/kernel.md, "Threshold hints").
template <bool HINTED>
__device__ __forceinline__ float hint_of(const Params& p, u64 row_id) {
    return takes_hint<HINTED>(p) ? p.hint[row_id] : 0.0f;
}

// The search of a row: search_hinted from `hint` (hint_of) where the row takes it (HINTED, the
// _hinted entry points), otherwise search_threshold, the plain units' own code. RAGGED: a
// ragged unit's row (its own m and k: row_args).
template <bool RAGGED, bool HINTED, class Row>
__device__ __forceinline__ Search search_of(const Row& row, u32 lo_key, u32 hi_key, const Params& p,
                                            float hint) {
    static_assert(RAGGED || !HINTED, "only the ragged units take hints");
    if constexpr (RAGGED) {
        // a ragged row that selects all it has (k_i = m_i: a row or a ragged split's chunk
        // shorter than its k) in exact mode, its count not asked (docs/contract.md §3's counts
        // are the search's): nothing to search. A bracket of one key, the least, ends the
        // search at once and makes the selection take every key >= it in index order
        // (cut_of), the converged search's answer. The ragged units only: in the plain ones the
        // test alone cost Appendix B 2 % (docs/kernel.md, "Stage 2 — search").
        if (p.k == row.m && p.max_iter < 0 && p.out_iter == nullptr)
            return search_exact(row, lo_key, lo_key, p);
        if (takes_hint<HINTED>(p)) return search_hinted(row, lo_key, hi_key, p, hint);
    }
    return search_threshold(row, lo_key, hi_key, p);
}
