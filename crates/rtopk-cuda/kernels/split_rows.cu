// The last step of a split row (docs/kernel.md, "Split rows"): the first stage selected each
// chunk's top k (chunk c of a row at c * chunk_m, its k results at c * k of the row's
// candidates, indices within the chunk), the second stage the row's top k of its candidates
// (indices = positions among the candidates). rtopk_split_gather turns each position back
// into the row's index: the chunk's own index plus the chunk's start. A ragged split's chunk
// results lie k_i = per_row_entry(k_per_row[row], k) apart (k_per_row null: k), and a row's
// padding (index PAD, docs/contract.md §5) stays padding.

#include "common.cuh"

// Threads per block (rtopk-plan's GATHER_THREADS), the entry point's launch bound.
#define GATHER_THREADS 256u

extern "C" __global__ void __launch_bounds__(GATHER_THREADS)
    rtopk_split_gather(const idx_t* cand_idx, idx_t* out_idx, u64 n_rows, u32 k, u32 width,
                       u32 chunk_m, const u32* k_per_row) {
    wait_for_previous_step();
    u64 total = n_rows * (u64)k;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (u64)gridDim.x * blockDim.x) {
        idx_t at = out_idx[i];
        if (at == (idx_t)-1) continue;
        u64 row = i / k, pos = (u64)at, per_chunk = k_per_row ? per_row_entry(k_per_row[row], k) : k;
        out_idx[i] = (idx_t)((u64)cand_idx[row * width + pos] + pos / per_chunk * (u64)chunk_m);
    }
}
