// Pick rows (docs/kernel.md, "Pick rows"): rtopk_pick_rows_<W>, the exact top k of rows of
// up to W = LANES * EPL float elements for k <= PICK_MAX_K (rtopk-plan's pick.rs), in k rounds
// that each take the row's best remaining element — the greatest key, then the lowest index —
// on LANES lanes per row (rtopk-plan's Unit::pick_lanes: one lane a row, 32 rows per warp,
// for rows up to 16 at k <= 2; else eight, four rows per warp). The plan runs it only where
// no iteration counts are asked (docs/contract.md §3: they are Algorithm 1's steps). Three
// stages, which warp-sim's rtopk/pick.rs names alike: load_picks, pick_rounds, write_picks.

#include "select.cuh"

// PICK_MAX_K (most picks a row) and PICK_WARPS (warps per block) are rtopk-plan's (#defines of
// src/kernels.rs).

// Picks a lane keeps: round r's goes to lane r % LANES of its row, so a one-lane row's lane
// keeps all k and a lane of a row of eight lanes (LANES >= PICK_MAX_K) at most one.
#define PICK_KEPT(LANES) ((PICK_MAX_K + (u32)(LANES) - 1u) / (u32)(LANES))

// A slot's pick key, 0 for a slot past the row's end (and in an f32 row for an element already
// taken), so that every element of the row ranks above it:
// - an f32 row: the element's own key, 1 for a NaN in smallest mode (own key 0: no number's
//   own key is below -inf's, 0x007fffff);
// - a 16-bit row: the own key in the high half and 0xffff - j in the low one, so that one
//   maximum finds the greatest key and, among equal keys, the lowest index j (j < 2^16), and
//   no two slots of a row are equal.
__device__ __forceinline__ u32 pick_key(elem_t v, u32 j, float sign) {
#if ELEM_KIND == ELEM_F32
    return max(own_key(v, sign), 1u);
#else
    return own_key(v, sign) << 16 | (0xffffu - j);
#endif
}

// load_picks: lane sub of the row holds elements j = sub + LANES i (i < EPL) as pick keys,
// one coalesced load per slot across the row's lanes.
template <int EPL, int LANES>
__device__ __forceinline__ void load_picks(const elem_t* row_in, u32 m, u32 sub, float sign, u32 (&slots)[EPL]) {
#pragma unroll
    for (u32 i = 0; i < EPL; ++i) {
        u32 j = sub + LANES * i;
        slots[i] = j < m ? pick_key(row_in[j], j, sign) : 0u;
    }
}

// One round: the row's best remaining slot; returns its index and sets *key to its own key.
// prev: a 16-bit row's last pick slot (0 before the first round), which the round moves on.
template <int EPL, int LANES>
__device__ __forceinline__ u32 pick_round(u32 (&slots)[EPL], u32& prev, u32 lanes, u32 sub, u32* key) {
#if ELEM_KIND == ELEM_F32
    // the lane's best (its first slot holding it: its lowest j), the row's best key, then the
    // lowest j holding it; the lane holding that j takes it out (key 0)
    u32 best = 0u, at = 0u;
#pragma unroll
    for (u32 i = 0; i < EPL; ++i) {
        bool above = slots[i] > best;
        best = above ? slots[i] : best;
        at = above ? i : at;
    }
    u32 top = row_max<LANES>(lanes, best);
    u32 j = sub + LANES * at;
    u32 first = row_min<LANES>(lanes, best == top ? j : 0xffffffffu);
#pragma unroll
    for (u32 i = 0; i < EPL; ++i) slots[i] = j == first && i == at ? 0u : slots[i];
    *key = top == 1u ? 0u : top;  // pick_key's NaN back to its own key
    return first;
#else
    // slots are unique, so the rounds take them in descending order and this round's pick is
    // the row's greatest slot below prev: nothing is taken out. In unsigned arithmetic the gap
    // below = prev - 1 - s is the distance under prev of a slot below it, and wraps past every
    // such distance for a slot at or above it (prev = 0 wraps below to every slot), so the
    // least gap of the row is its pick's: one subtraction and one minimum a slot, where taking
    // the pick out cost a compare and a select a slot more.
    u32 below = prev - 1u;
    u32 gap = 0xffffffffu;
#pragma unroll
    for (u32 i = 0; i < EPL; ++i) gap = min(gap, below - slots[i]);
    u32 top = below - row_min<LANES>(lanes, gap);
    prev = top;
    *key = top >> 16;
    return 0xffffu - (top & 0xffffu);
#endif
}

// pick_rounds: k rounds; round r's index and key go to lane r % LANES of the row, its
// (r / LANES)-th pick. One lane's rounds are unrolled so that each pick stays a register;
// eight lanes keep one pick each, and their rounds stay a loop (unrolled to PICK_MAX_K they
// were slower: docs/kernel.md, "Pick rows").
template <int EPL, int LANES>
__device__ __forceinline__ void pick_rounds(u32 (&slots)[EPL], u32 k, u32 lanes, u32 sub,
                                            u32 (&mine_j)[PICK_KEPT(LANES)],
                                            u32 (&mine_key)[PICK_KEPT(LANES)]) {
    u32 prev = 0u;
    if constexpr (LANES == 1) {
#pragma unroll
        for (u32 r = 0; r < PICK_MAX_K; ++r) {
            if (r >= k) break;
            mine_j[r] = pick_round<EPL, LANES>(slots, prev, lanes, sub, &mine_key[r]);
        }
    } else {
        for (u32 r = 0; r < k; ++r) {
            u32 key;
            u32 j = pick_round<EPL, LANES>(slots, prev, lanes, sub, &key);
            if (sub == r) {
                mine_j[0] = j;
                mine_key[0] = key;
            }
        }
    }
}

// write_picks: pick r, value and index (write_result), at r where the launch asks for sorted
// output (the rounds' order is docs/contract.md §1's sorted order: the mode's value order, ties
// by index), else at its place in index order (the contract's default: the number of picks of
// a lower index) — counted over the lane's own picks on a one-lane row, over k shuffles on a
// row of several lanes, where lane r < k writes pick r.
template <int LANES>
__device__ __forceinline__ void write_picks(const u32 (&mine_j)[PICK_KEPT(LANES)],
                                            const u32 (&mine_key)[PICK_KEPT(LANES)], u32 k,
                                            int sorted, u32 lanes, u32 sub, const elem_t* row_in,
                                            elem_t* out_val, idx_t* out_idx, float sign) {
    static_assert(LANES == 1 || (u32)LANES >= PICK_MAX_K, "a lane keeps one pick or all of them");
    if constexpr (LANES == 1) {
#pragma unroll
        for (u32 q = 0; q < PICK_MAX_K; ++q) {
            if (q >= k) break;
            u32 pos = q;
            if (!sorted) {
                pos = 0u;
#pragma unroll
                for (u32 s = 0; s < PICK_MAX_K; ++s) pos += s < k && mine_j[s] < mine_j[q] ? 1u : 0u;
            }
            write_result(pos, mine_j[q], mine_key[q], row_in, out_val, out_idx, sign);
        }
    } else {
        u32 pos = sub;
        if (!sorted) {
            pos = 0u;
            for (u32 s = 0; s < k; ++s) pos += __shfl_sync(lanes, mine_j[0], s, LANES) < mine_j[0] ? 1u : 0u;
        }
        if (sub < k) write_result(pos, mine_j[0], mine_key[0], row_in, out_val, out_idx, sign);
    }
}

// PICK_WARPS * 32 / LANES rows per block, one per LANES lanes; rows past n_rows return
// (row-uniform: the partial last block).
template <int EPL, int LANES>
__device__ void rtopk_pick_rows_impl(const Params& p) {
    u32 lane = threadIdx.x & 31u, sub = lane % LANES;
    u64 row_id = ((u64)blockIdx.x * (PICK_WARPS * 32) + threadIdx.x) / LANES;
    if (row_id >= p.n_rows) return;
    u32 lanes = ((1u << LANES) - 1u) << (lane - sub);
    RowPlace at = place_row(p, row_id);
    u32 slots[EPL];
    load_picks<EPL, LANES>(at.in, p.m, sub, p.sign, slots);
    u32 mine_j[PICK_KEPT(LANES)] = {}, mine_key[PICK_KEPT(LANES)] = {};
    pick_rounds<EPL, LANES>(slots, p.k, lanes, sub, mine_j, mine_key);
    write_picks<LANES>(mine_j, mine_key, p.k, p.sorted, lanes, sub, at.in, opaque(p.out_val + at.out),
                       opaque(p.out_idx + at.out), p.sign);
}
