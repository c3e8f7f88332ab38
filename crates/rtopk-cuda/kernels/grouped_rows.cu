// Grouped selection (docs/contract.md §8, docs/kernel.md "Grouped selection"): a row's m scores
// in `groups` groups of size = m / groups consecutive experts; each group scored by its best
// value or the f32 sum of its best two; the best top_groups groups kept (ties to the lower
// group); the row's k best experts among the kept groups written in the canonical order
// (value descending, ties to the lower index) — topk-ref's grouped_topk, bit for bit. One warp
// per row of up to 32 EPL experts (EPL: the unit's width, rtopk-plan's GROUPED_WIDTHS), in
// four stages that warp-sim's grouped.rs names alike: load_experts, group_scores,
// choose_groups, select_experts. Float rows only (f32, f16, bf16).

#include "order.cuh"

// GROUPED_WARPS, warps per block, is rtopk-plan's (a #define of src/kernels.rs).

// The entry points' arguments (rtopk_grouped_rows_<EPL>, written by src/kernels.rs).
#define GROUPED_ARGS                                                                              \
    const elem_t* x, elem_t* out_val, idx_t* out_idx, u64 n_rows, u32 m, u32 k, u32 groups, u32 top_groups, \
        int sum2

// load_experts: lane l holds experts j = l + 32 i (i < EPL): their input bits and own keys in
// largest mode, key 0 past m (a key no float has in largest mode: the least is -inf's), and
// writes the keys to its warp's shared row, where group_scores reads them group by group.
template <int EPL>
__device__ __forceinline__ void load_experts(const elem_t* row, u32 m, u32 lane, elem_t* vals, u32* keys,
                                             u32* shared_row) {
#pragma unroll
    for (u32 i = 0; i < EPL; ++i) {
        u32 j = lane + 32u * i;
        vals[i] = (elem_t)0;
        keys[i] = 0u;
        if (j < m) {
            vals[i] = row[j];
            keys[i] = own_key(vals[i], 1.0f);
            shared_row[j] = keys[i];
        }
    }
    __syncwarp();
}

// group_scores: lane q < groups scans group q's keys for its best two (equal keys count twice)
// and returns the key of the group's score (topk-ref's group_score_key): the f32 value of the
// best, plus that of the second for sum2, keyed in largest mode (NaN at the top). Other lanes: 0.
__device__ __forceinline__ u32 group_scores(const u32* shared_row, u32 size, u32 groups, int sum2, u32 lane) {
    if (lane >= groups) return 0u;
    u32 first = 0u, second = 0u;
#pragma unroll 4
    for (u32 j = lane * size; j < (lane + 1u) * size; ++j) {
        u32 key = shared_row[j];
        second = key > first ? first : max(second, key);
        first = max(first, key);
    }
    float score = ordered_value_of_own_key(first);
    if (sum2) score = __fadd_rn(score, ordered_value_of_own_key(second));
    return order_key(score, 1.0f);
}

// choose_groups: the kept groups as a bit mask: group q is kept when fewer than top_groups
// groups rank above it (a greater score, or an equal one and a lower group).
__device__ __forceinline__ u32 choose_groups(u32 score, u32 groups, u32 top_groups, u32 lane) {
    u32 above = 0u;
    for (u32 q = 0; q < groups; ++q) {
        u32 other = __shfl_sync(FULL_MASK, score, q);
        above += (other > score || (other == score && q < lane)) ? 1u : 0u;
    }
    return __ballot_sync(FULL_MASK, lane < groups && above < top_groups);
}

// select_experts: the experts of the groups left out get key 0; then k rounds, each taking the
// warp's best remaining expert — the greatest key, then the lowest index (the greatest ~j among
// the lanes holding that key; a lane's first slot holding its greatest key is its lowest j) —
// whose lane writes it as result r and takes it out (key 0).
template <int EPL>
__device__ __forceinline__ void select_experts(u32* keys, const elem_t* vals, u32 kept, u32 size, u32 m, u32 k,
                                               u32 lane, elem_t* out_val, idx_t* out_idx) {
#pragma unroll
    for (u32 i = 0; i < EPL; ++i) {
        u32 j = lane + 32u * i;
        if (j < m && ((kept >> (j / size)) & 1u) == 0u) keys[i] = 0u;
    }
    for (u32 r = 0; r < k; ++r) {
        u32 best = 0u, at = 0u;
#pragma unroll
        for (u32 i = 0; i < EPL; ++i) {
            if (keys[i] > best) {
                best = keys[i];
                at = i;
            }
        }
        u32 top = __reduce_max_sync(FULL_MASK, best);
        u32 j = lane + 32u * at;
        u32 first = ~__reduce_max_sync(FULL_MASK, best == top ? ~j : 0u);
        if (best == top && j == first) {
#pragma unroll
            for (u32 i = 0; i < EPL; ++i) {
                if (i == at) {
                    out_val[r] = vals[i];
                    keys[i] = 0u;
                }
            }
            out_idx[r] = (idx_t)j;
        }
    }
}

// rtopk_grouped_rows_impl: warp g of the grid takes rows g, g + warps, ... (the grid covers the
// rows once), each through the four stages.
template <int EPL>
__device__ __forceinline__ void rtopk_grouped_rows_impl(GROUPED_ARGS) {
    __shared__ u32 shared_keys[GROUPED_WARPS][EPL * 32];
    u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    u64 warps = (u64)gridDim.x * GROUPED_WARPS;
    u32 size = m / groups;
    for (u64 row = (u64)blockIdx.x * GROUPED_WARPS + warp; row < n_rows; row += warps) {
        elem_t vals[EPL];
        u32 keys[EPL];
        __syncwarp();  // the previous row's group_scores have read the shared row
        load_experts<EPL>(x + row * m, m, lane, vals, keys, shared_keys[warp]);
        u32 score = group_scores(shared_keys[warp], size, groups, sum2, lane);
        u32 kept = choose_groups(score, groups, top_groups, lane);
        select_experts<EPL>(keys, vals, kept, size, m, k, lane, out_val + row * k, out_idx + row * k);
    }
}
