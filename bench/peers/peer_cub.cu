// Peers "cub_topk" and "cub_topk_per_row": CUB's cub::DeviceTopK::MaxPairs (CCCL 3.6.0 as the
// FlashInfer wheel bundles it), NVIDIA's AIR top-k (paper 002), on one vector: keys are the row,
// values the positions 0..m-1 (a counting iterator), so the values out are the row-local indices.
// DeviceTopK takes one sequence; "cub_topk_per_row" loops it over the rows of an N > 1 input.
// Keys are the row's own type: float, __half or __nv_bfloat16 (CUB's radix traits cover all three).
//
// DeviceTopK only implements the unordered, non-deterministic request, which must be spelled out
// (device_topk.cuh: static_assert in detail::dispatch_topk).

#include <cub/device/device_topk.cuh>
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/output_ordering.h>
#include <cuda/__execution/require.h>
#include <cuda/iterator>
#include <cuda/std/__execution/env.h>
#include <cuda/stream_ref>

#include "peers.cuh"

// The vendored CCCL must win over the toolkit's own copy (run.sh puts it first with -I).
static_assert(CCCL_VERSION == 3006000, "expected CCCL 3.6.0 from bench/peers/vendor/cccl");

int peers_cccl_version() { return CCCL_VERSION; }

namespace {

// num_items and k as 32-bit unsigned: choose_offset_t then picks 32-bit offsets (a 64-bit
// NumItemsT would make the kernels use 64-bit offsets).
using Count = uint32_t;

auto make_env(cudaStream_t stream) {
    auto requirements = cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                 cuda::execution::output_ordering::unsorted);
    return cuda::std::execution::env{cuda::stream_ref{stream}, requirements};
}

// One row: the k largest of x[0 .. m) with their positions. `scratch == nullptr` queries the
// temporary storage size into `bytes` (it depends on the key type: a 16-bit key takes fewer
// radix passes and a smaller candidate buffer).
template <typename T>
cudaError_t one_row(void* scratch, size_t& bytes, const T* x, T* values, int32_t* indices,
                    uint64_t m, uint64_t k, cudaStream_t stream) {
    return cub::DeviceTopK::MaxPairs(scratch, bytes, x, values,
                                     cuda::make_counting_iterator(int32_t{0}), indices,
                                     static_cast<Count>(m), static_cast<Count>(k),
                                     make_env(stream));
}

std::string row_limits(uint64_t m) {
    if (m > UINT32_MAX) return "m above 2^32-1 (harness passes 32-bit num_items)";
    if (m > uint64_t{INT32_MAX}) return "m above 2^31-1 (int32 indices)";
    return "";
}

std::string unsupported_single(DType, uint64_t n, uint64_t m, uint64_t, uint64_t) {
    if (n != 1) return "one sequence per call (DeviceTopK has no segments; see cub_topk_per_row)";
    return row_limits(m);
}

std::string unsupported_per_row(DType, uint64_t n, uint64_t m, uint64_t, uint64_t per_row_max_n) {
    if (n == 1) return "n = 1 is cub_topk";
    if (n > per_row_max_n)
        return "per-row loop limited to n <= " + std::to_string(per_row_max_n) + " (--per-row-max-n)";
    return row_limits(m);
}

cudaError_t scratch_bytes(DType t, uint64_t, uint64_t m, uint64_t k, size_t* bytes) {
    *bytes = 0;
    return with_elem(t, [&](auto e) {
        using T = typename decltype(e)::type;
        return one_row<T>(nullptr, *bytes, nullptr, nullptr, nullptr, m, k, nullptr);
    });
}

// Rows 0 .. rows-1 one after another on the stream, all sharing the one scratch buffer (stream
// order keeps each call's use of it apart); rows = 1 is the single-sequence peer.
template <typename T>
cudaError_t rows_as(const Problem& p, uint64_t rows, void* scratch, size_t scratch_bytes,
                    cudaStream_t stream) {
    for (uint64_t r = 0; r < rows; ++r) {
        size_t bytes = scratch_bytes;
        cudaError_t err = one_row<T>(scratch, bytes, p.x_as<T>() + r * p.m,
                                     p.values_as<T>() + r * p.k, p.indices + r * p.k, p.m, p.k,
                                     stream);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

cudaError_t run_single(const Problem& p, void* scratch, size_t scratch_bytes,
                       cudaStream_t stream) {
    return with_elem(p.dtype, [&](auto e) {
        return rows_as<typename decltype(e)::type>(p, 1, scratch, scratch_bytes, stream);
    });
}

cudaError_t run_per_row(const Problem& p, void* scratch, size_t scratch_bytes,
                        cudaStream_t stream) {
    return with_elem(p.dtype, [&](auto e) {
        return rows_as<typename decltype(e)::type>(p, p.n, scratch, scratch_bytes, stream);
    });
}

std::string no_path(DType, uint64_t, uint64_t, uint64_t) { return ""; }

}  // namespace

const Peer kCubTopK{"cub_topk", unsupported_single, scratch_bytes, run_single, no_path};
const Peer kCubTopKPerRow{"cub_topk_per_row", unsupported_per_row, scratch_bytes, run_per_row,
                          no_path};
