// The warp sorts of the sorted output: rtopk_sort_warp_rows_<W>, one row of k <= W results per
// LANES = 8, 16 or 32 lanes, sorted in registers (W / LANES per lane; rtopk-plan's
// sort_warp_shape). The entry points are written from src/kernels.rs's table.

#include "sort.cuh"

#define SORT_WARP_ARGS \
    const elem_t* x, elem_t* out_val, idx_t* out_idx, u64 n_rows, u32 m, u32 k, int smallest, \
        const u32* lengths, const u32* k_per_row
