// The warp-row kernels: rtopk_quarter_rows_<EPL>, rtopk_half_rows_<EPL> and
// rtopk_warp_rows_<EPL>, one row per LANES = 8, 16 or 32 lanes, EPL keys per lane in registers
// (docs/kernel.md, the last table). The entry points and their launch bounds are written from
// src/kernels.rs's table.

#include "load.cuh"
#include "search.cuh"
#include "select.cuh"
#include "narrow.cuh"
#include "floor.cuh"

// The row storage of the unit's element type: keys (f32, integers), or the 16-bit elements
// packed.
template <bool PACKED_ROW, int EPL, int LANES, bool NARROWS>
struct RowOf { using type = WarpRow<EPL, LANES, NARROWS>; };
template <int EPL, int LANES, bool NARROWS>
struct RowOf<true, EPL, LANES, NARROWS> { using type = PackedRow<EPL, LANES, NARROWS>; };

// RAGGED: a ragged unit's row (rtopk_warp_row_ragged), whose 16-byte loads stop at the group
// its end cuts (load_row's CUT); FLOOR: the floor entry point's (floor.cuh); HINTED: the
// _hinted entry point's, whose search starts at the row's hint. `aligned`: the launch's rows are
// 16-byte aligned and, but for a ragged row, whole 16-byte groups (vec4).
template <int EPL, int LANES, bool NARROWS, bool RAGGED = false, bool FLOOR = false, bool HINTED = false>
__device__ void rtopk_warp_row(const Params& p, u64 row_id, RowPlace at, bool aligned, u32* stage, u32 cap) {
    u32 lane = threadIdx.x & 31u, sub = lane % (u32)LANES, first = sub * (u32)EPL;
    const elem_t* row_in = at.in;
    // stage 1: load_row
    typename RowOf<ELEM_PACKED16, EPL, LANES, NARROWS>::type row;
    row.m = p.m;
    row.lanes = LANES == 32 ? FULL_MASK : ((1u << LANES) - 1u) << (lane - sub);
    u32 lane_min = 0xffffffffu, lane_max = 0u;
    load_row<RAGGED>(row, row_in, p, first, aligned, &lane_min, &lane_max);
    u32 lo_key = row_min<LANES>(row.lanes, lane_min);
    u32 hi_key = row_max<LANES>(row.lanes, lane_max);
    // a split's floor (floor.cuh; the floor entry points alone, FLOOR): at most k keys at or
    // above it are the chunk's selection, more start the search from it
    u32 floor = 0u, at_floor = NO_FLOOR;
    if constexpr (FLOOR) {
        if (sub == 0) floor = floor_of(p, row_id);
        floor = __shfl_sync(row.lanes, floor, 0, LANES);
        at_floor = count_at_floor(row, floor, lo_key);
        if (at_floor != NO_FLOOR && at_floor > p.k) lo_key = floor;
    }
    bool under = FLOOR && at_floor <= p.k;
    // stage 2: search_threshold (the hint read here, not first as a block row reads it: held
    // across the load it makes these units spill more, and a warp row's load waits among many)
    Search s = {};
    if (!under) s = search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint_of<HINTED>(p, row_id));
    if constexpr (NARROWS) {
        if (s.exit == EXIT_NARROW) {  // warp-uniform; cap >= 2 CAND_CAP: at most 8 warps per block
            CandRow<4> narrowed = narrow_row(row, s, stage);
            elem_t* out_val = opaque(p.out_val + at.out);
            idx_t* out_idx = opaque(p.out_idx + at.out);
            u32 band_lo = finish_candidates(narrowed, s, p, stage, row_in, out_val, out_idx, row_id);
            if (FLOOR && sub == 0) raise_floor(p, row_id, band_lo);
            return;
        }
    }
    // stage 3: select_topk
    Cut c = under ? floor_cut(floor, at_floor) : cut_of(row, s, p.k);
    elem_t* out_val = opaque(p.out_val + at.out);
    idx_t* out_idx = opaque(p.out_idx + at.out);
    select_topk_lanes<EPL, LANES>(row, c, p, sub, first, row_in, out_val, out_idx, stage, cap);
    if constexpr (FLOOR) {
        if (under) pad_below_floor(p, out_val, out_idx, at_floor, sub, (u32)LANES);
        else if (sub == 0) raise_floor(p, row_id, c.band_lo);
    }
    if (sub == 0 && p.out_iter) p.out_iter[row_id] = s.iterations;
}

// A ragged row (docs/contract.md §5): its own width and k, read once (row_args), its padding
// written, then the row as any other, its search starting at its hint where the entry point
// takes hints (HINTED: `<name>_hinted`) and the launch gives them. Only the ragged units
// (RAGGED) take this path: a plain
// launch keeps the launch's own arguments in the constant bank (a per-row copy of them costs
// registers every row pays for: docs/kernel.md, "Per-row lengths and k on the device").
template <int EPL, int LANES, bool NARROWS, bool HINTED>
__device__ void rtopk_warp_row_ragged(const Params& launch, u64 row_id, u32* stage, u32 cap) {
    u32 sub = (threadIdx.x & 31u) % (u32)LANES;
    RowPlace at;
    const Params p = row_args(launch, row_id, &at);
    // a ragged split's chunk rows pad nothing (split_row_args)
    if (p.k < launch.k && launch.chunks == 1u)
        pad_results(p.out_val, p.out_idx, at.out, p.k, launch.k, sub, (u32)LANES);
    if (p.k == 0u) {
        if (sub == 0 && p.out_iter) p.out_iter[row_id] = 0u;
        return;
    }
    // the launch's 16-byte alignment holds for every row it runs whatever the row's own width
    // (the load cuts the last group), as a ragged block row's (rtopk_block_row_ragged)
    rtopk_warp_row<EPL, LANES, NARROWS, true, false, HINTED>(p, row_id, at, launch.vec4 != 0, stage, cap);
}

template <int EPL, int LANES, bool NARROWS, bool RAGGED, bool FLOOR, bool HINTED>
__device__ __forceinline__ void warp_row_of(const Params& p, u64 row_id, u32* stage, u32 cap) {
    if constexpr (RAGGED) rtopk_warp_row_ragged<EPL, LANES, NARROWS, HINTED>(p, row_id, stage, cap);
    else rtopk_warp_row<EPL, LANES, NARROWS, false, FLOOR>(p, row_id, place_row(p, row_id), p.vec4 != 0, stage, cap);
}

// 32 / LANES rows per warp, blockDim / LANES rows per block. The rows of a warp search side
// by side: their bracket arithmetic shares the warp's issue slots while their paths agree,
// and each goes its own way (collectives over its own lanes) where they part.
template <int EPL, int LANES, int WARPS, bool RAGGED, bool FLOOR = false, bool HINTED = false>
__device__ void rtopk_warp_rows_impl(const Params& p) {
    __shared__ u32 s_stage[WARP_STAGE];
    constexpr u32 cap = WARP_STAGE / (WARPS * 32 / LANES);  // each row's share of the stage
    u64 row_id = ((u64)blockIdx.x * (WARPS * 32) + threadIdx.x) / (u32)LANES;
    if (row_id >= p.n_rows) return;  // row-uniform: the partial last block
    u32* stage = s_stage + threadIdx.x / (u32)LANES * cap;
    // Whole-warp rows of 12 to 32 elements per lane (M = 257 ... 1024; 16-bit rows from 769,
    // below which they take part-warps) narrow (narrow_row) in
    // exact mode where k < CAND_CAP (a count of more than k keys can fit it); a second
    // instantiation without the narrowing serves the rest, so that rows which cannot narrow
    // run the code they ran before (a kernel that could narrow everywhere was 6-8% slower at
    // k = 128, where no row does; docs/kernel.md, "Narrowing"). The wider kernels keep
    // one instantiation: a second one of theirs made their NVRTC compile about a third longer.
    if constexpr (LANES == 32 && EPL >= 12 && EPL <= 32) {
        static_assert(cap >= 2u * CAND_CAP, "the candidates and their indices fill the row's share");
        if (p.max_iter < 0 && p.k < CAND_CAP) {
            warp_row_of<EPL, LANES, true, RAGGED, FLOOR, HINTED>(p, row_id, stage, cap);
            return;
        }
    }
    warp_row_of<EPL, LANES, false, RAGGED, FLOOR, HINTED>(p, row_id, stage, cap);
}
