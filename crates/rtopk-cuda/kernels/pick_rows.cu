// Pick rows (docs/kernel.md, "Pick rows"): rtopk_pick_rows_<W>, the exact top k of rows of
// up to W = LANES * EPL float elements for k <= PICK_MAX_K (rtopk-plan's pick.rs), in k rounds
// that each take the row's best remaining element — the greatest key, then the lowest index —
// on LANES lanes per row (rtopk-plan's Unit::pick_lanes: one lane a row, 32 rows per warp,
// for rows up to 16 at k <= 2; else four, eight rows per warp, for 16-bit rows up to 64 and
// f32 rows up to 16; else eight, four rows per warp). The plan runs it only where
// no iteration counts are asked (docs/contract.md §3: they are Algorithm 1's steps). Three
// stages, which warp-sim's rtopk/pick.rs names alike: load_picks, pick_rounds, write_picks.

#include "select.cuh"

// PICK_MAX_K (most picks a row), PICK_WARPS (warps per block) and PICK_LOAD_BYTES (most bytes
// a lane loads at once) are rtopk-plan's (#defines of src/kernels.rs).

// Picks a lane keeps: round r's goes to lane r % LANES of its row, so a one-lane row's lane
// keeps all k, a lane of a row of four lanes at most two and one of eight lanes at most one.
#define PICK_KEPT(LANES) ((PICK_MAX_K + (u32)(LANES) - 1u) / (u32)(LANES))

// A slot's pick key, 0 for a slot past the row's end (and in an f32 row for an element already
// taken), so that every element of the row ranks above it:
// - an f32 row: the element's own key, 1 for a NaN in smallest mode (own key 0: no number's
//   own key is below -inf's, 0x007fffff);
// - a 16-bit row: the own key in the high half and 0xffff - j in the low one, so that one
//   maximum finds the greatest key and, among equal keys, the lowest index j (j < 2^16), and
//   no two slots of a row are equal.
__device__ __forceinline__ u32 pick_slot16(u32 key, u32 j) {
    return key << 16 | (0xffffu - j);
}
__device__ __forceinline__ u32 pick_key(elem_t v, u32 j, float sign) {
#if ELEM_KIND == ELEM_F32
    return max(own_key(v, sign), 1u);
#else
    return pick_slot16(own_key(v, sign), j);
#endif
}

// The elements of a lane's slot group: consecutive elements that one load of at most
// PICK_LOAD_BYTES takes, no more than the lane's EPL slots; 1 where such a load would take
// less than a word (an f16 or bf16 lane of one slot). rtopk-plan's pick_group.
template <int EPL>
__device__ constexpr u32 pick_group() {
    constexpr u32 most = PICK_LOAD_BYTES / (u32)sizeof(elem_t);
    constexpr u32 v = (u32)EPL < most ? (u32)EPL : most;
    return v * (u32)sizeof(elem_t) < 4u ? 1u : v;
}

// The row index of slot i of lane sub: slot group i / V holds elements V (sub + LANES g) on.
template <int EPL, int LANES>
__device__ __forceinline__ u32 slot_j(u32 sub, u32 i) {
    constexpr u32 V = pick_group<EPL>();
    return V * (sub + (u32)LANES * (i / V)) + i % V;
}

#if ELEM_PACKED16
// The own keys of the two 16-bit elements of a word at once, key16_of_ordered's bit for bit
// in each half (the low half the first element's): the mode's sign flip, then in each half
// 0x8000 | bits for a positive value and +-0.0, ~bits for a negative one, and NaN at its
// mode's end. Each half's test is an addition carrying into its own bit 15 (a magnitude of at
// most 0x7fff plus at most 0x7fff carries no further), so no half reaches into the other.
#define NAN16_PAST ((0x7fffu - (NEG_INF16 & 0x7fffu)) * 0x10001u)  // each half: 0x7fff less inf's magnitude
__device__ __forceinline__ u32 own_keys16x2(u32 word, float sign) {
    u32 ordered = word ^ (sign < 0.0f ? 0x80008000u : 0u);
    u32 mag = word & 0x7fff7fffu;
    u32 nonzero = (mag + 0x7fff7fffu) & 0x80008000u;  // bit 15 of a half whose magnitude is not 0
    u32 negative = ordered & nonzero;                  // and whose sign is set: -0.0 is not
    u32 key = (ordered & (nonzero | 0x7fff7fffu)) ^ 0x80008000u ^ (negative - (negative >> 15));
    u32 nan = (mag + NAN16_PAST) & 0x80008000u;  // a magnitude above inf's
    u32 fill = nan | (nan - (nan >> 15));        // 0xffff in a NaN's half
    return sign > 0.0f ? key | fill : key & ~fill;
}
#endif

// load_group: slots s0 ... s0 + V - 1 from the V elements at row_in[j0] (a whole group inside
// the row, row_in + j0 aligned to the group's bytes), one load: an f32 element's pick key each,
// or a word of two 16-bit elements keyed at once (own_keys16x2).
template <int EPL, u32 V>
__device__ __forceinline__ void load_group(const elem_t* at, u32 j0, float sign, u32 (&slots)[EPL], u32 s0) {
    constexpr u32 WORDS = V * (u32)sizeof(elem_t) / 4u;
    u32 w[WORDS];
    if constexpr (WORDS == 4u) {
        uint4 v = *reinterpret_cast<const uint4*>(at);
        w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
    } else if constexpr (WORDS == 2u) {
        uint2 v = *reinterpret_cast<const uint2*>(at);
        w[0] = v.x; w[1] = v.y;
    } else {
        w[0] = *reinterpret_cast<const u32*>(at);
    }
#pragma unroll
    for (u32 q = 0; q < WORDS; ++q) {
#if ELEM_KIND == ELEM_F32
        slots[s0 + q] = pick_key(__uint_as_float(w[q]), j0 + q, sign);
#else
        u32 keys = own_keys16x2(w[q], sign);
        u32 j = j0 + 2u * q;
        slots[s0 + 2u * q] = pick_slot16(keys & 0xffffu, j);
        slots[s0 + 2u * q + 1u] = pick_slot16(keys >> 16, j + 1u);
#endif
    }
}

// load_picks: lane sub of the row holds its slots in groups of V = pick_group consecutive
// elements, group g (slots g V ... g V + V - 1) from j = V (sub + LANES g) on, so that the
// row's lanes load V LANES consecutive elements a group, each lane with one load where its
// group lies inside the row and the row's start is aligned to the group's bytes (every row
// whose pitch is, from an aligned tensor); elsewhere element by element.
template <int EPL, int LANES>
__device__ __forceinline__ void load_picks(const elem_t* row_in, u32 m, u32 sub, float sign, u32 (&slots)[EPL]) {
    constexpr u32 V = pick_group<EPL>();
    bool aligned = V > 1u && ((u64)row_in & (V * (u64)sizeof(elem_t) - 1u)) == 0u;
#pragma unroll
    for (u32 g = 0; g < (u32)EPL / V; ++g) {
        u32 j0 = V * (sub + (u32)LANES * g);
        if constexpr (V > 1u) {
            if (aligned && j0 + V <= m) {
                load_group<EPL, V>(row_in + j0, j0, sign, slots, g * V);
                continue;
            }
            if (j0 >= m) {  // a group past the row's end (a row narrower than its unit)
#pragma unroll
                for (u32 h = 0; h < V; ++h) slots[g * V + h] = 0u;
                continue;
            }
        }
#pragma unroll
        for (u32 h = 0; h < V; ++h) {
            u32 j = j0 + h;
            slots[g * V + h] = j < m ? pick_key(row_in[j], j, sign) : 0u;
        }
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
    u32 j = slot_j<EPL, LANES>(sub, at);
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
// several lanes keep PICK_KEPT picks each, and their rounds stay a loop (unrolled to
// PICK_MAX_K they were slower: docs/kernel.md, "Pick rows").
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
#pragma unroll
            for (u32 q = 0; q < PICK_KEPT(LANES); ++q) {
                if (sub + (u32)LANES * q == r) {
                    mine_j[q] = j;
                    mine_key[q] = key;
                }
            }
        }
    }
}

// write_picks: pick r, value and index (write_result), at r where the launch asks for sorted
// output (the rounds' order is docs/contract.md §1's sorted order: the mode's value order, ties
// by index), else at its place in index order (the contract's default: the number of picks of
// a lower index) — counted over the lane's own picks on a one-lane row, over k shuffles on a
// row of several lanes, whose lane r % LANES writes pick r (its (r / LANES)-th).
template <int LANES>
__device__ __forceinline__ void write_picks(const u32 (&mine_j)[PICK_KEPT(LANES)],
                                            const u32 (&mine_key)[PICK_KEPT(LANES)], u32 k,
                                            int sorted, u32 lanes, u32 sub, const elem_t* row_in,
                                            elem_t* out_val, idx_t* out_idx, float sign) {
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
        constexpr u32 KEPT = PICK_KEPT(LANES);
        u32 pos[KEPT];
#pragma unroll
        for (u32 q = 0; q < KEPT; ++q) pos[q] = sub + (u32)LANES * q;
        if (!sorted) {
#pragma unroll
            for (u32 q = 0; q < KEPT; ++q) pos[q] = 0u;
            // pick s = LANES t + from: lane from's t-th. With one pick a lane the shuffles are
            // a loop over k; with two, a loop for each of them whose trip count LANES bounds
            // (unrolled: as the other form there, they took up to 1.18x the time, and the same
            // form with one pick a lane up to 1.6x; docs/kernel.md, "Pick rows")
            if constexpr (KEPT == 1u) {
                for (u32 s = 0; s < k; ++s) pos[0] += __shfl_sync(lanes, mine_j[0], s, LANES) < mine_j[0] ? 1u : 0u;
            } else {
#pragma unroll
                for (u32 t = 0; t < KEPT; ++t) {
                    for (u32 from = 0; from < (u32)LANES && (u32)LANES * t + from < k; ++from) {
                        u32 theirs = __shfl_sync(lanes, mine_j[t], from, LANES);
#pragma unroll
                        for (u32 q = 0; q < KEPT; ++q) pos[q] += theirs < mine_j[q] ? 1u : 0u;
                    }
                }
            }
        }
#pragma unroll
        for (u32 q = 0; q < KEPT; ++q) {
            if (sub + (u32)LANES * q < k) write_result(pos[q], mine_j[q], mine_key[q], row_in, out_val, out_idx, sign);
        }
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
