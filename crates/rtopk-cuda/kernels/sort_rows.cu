// The block sort of the sorted output: rtopk_sort_rows, one block per row (k > 1024).

#include "sort.cuh"

// Puts each row's k results (index order, from the selection) in sorted order (docs/contract.md §1:
// value order of the mode, ties by ascending index). pow2 = k rounded up to a power of two;
// row_threads threads per row, blockDim.x / row_threads rows per block. in_shared: the block's
// rows sit in dynamic shared memory as ranks (pow2 words of 8 bytes per row) and values are
// rebuilt as in write_result; otherwise each row is sorted in place in global memory.
extern "C" __global__ void rtopk_sort_rows(const elem_t* x, elem_t* out_val, idx_t* out_idx,
                                           u64 n_rows, u32 m, u32 k, int smallest, u32 pow2,
                                           u32 row_threads, int in_shared, const u32* lengths,
                                           const u32* k_per_row) {
    extern __shared__ u64 smem_ranks[];
    wait_for_previous_step();
    float sign = smallest ? -1.0f : 1.0f;
    u32 slot = threadIdx.x / row_threads, t = threadIdx.x % row_threads;
    u64 row_id = (u64)blockIdx.x * (blockDim.x / row_threads) + slot;
    // rows past the end still reach every barrier; a row sorts its own k (row_lengths)
    u32 row_m = m, n = k;
    if (row_id < n_rows) row_lengths(lengths, k_per_row, row_id, &row_m, &n);
    else n = 0u;
    elem_t* val = out_val + (row_id < n_rows ? row_id : 0u) * (u64)k;
    idx_t* idx = out_idx + (row_id < n_rows ? row_id : 0u) * (u64)k;
    if (!in_shared) {
        bitonic_sort(GlobalResults{val, idx, sign}, n, pow2, t, row_threads);
        return;
    }
    SharedRanks s{smem_ranks + (u64)slot * pow2};
    for (u32 i = t; i < n; i += row_threads) s.r[i] = sort_rank(own_key(val[i], sign), (u32)idx[i]);
    __syncthreads();
    bitonic_sort(s, n, pow2, t, row_threads);
    const elem_t* row_in = x + (row_id < n_rows ? row_id : 0u) * (u64)m;
    for (u32 i = t; i < n; i += row_threads) {
        u64 r = s.r[i];
        write_result(i, (u32)r, ~(u32)(r >> 32), row_in, val, idx, sign);
    }
}
