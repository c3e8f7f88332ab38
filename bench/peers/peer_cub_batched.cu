// Peer "cub_batched_topk": CUB's cub::DeviceBatchedTopK::MaxPairs (CCCL 3.6.0 as the FlashInfer
// wheel bundles it), one segment per row, called as FlashInfer's own CUB backend calls it for
// flashinfer.top_k (vendor/flashinfer/csrc/cub_topk.cu, CUBBatchedTopK with tie_break = 0):
// per-segment iterators built from strided counting iterators, the positions 0..m-1 as values,
// the segment size and k as host immediates carrying a compile-time bound, the request
// (not_guaranteed, unspecified, unsorted).
//
// The compile-time bound picks the backend (device_batched_topk.cuh): segments up to 8192 may use
// the one-block baseline, larger ones the SM 9.0+ cluster backend; no segment may exceed 2^21.
// Like FlashInfer, two bound tiers are built: 8192 and 2^21, each for float, __half and
// __nv_bfloat16 keys (the types FlashInfer's binding dispatches to it).

#include <cub/device/device_batched_topk.cuh>
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/output_ordering.h>
#include <cuda/__execution/require.h>
#include <cuda/__execution/tie_break.h>
#include <cuda/argument>
#include <cuda/iterator>
#include <cuda/std/__execution/env.h>
#include <cuda/stream_ref>

#include "peers.cuh"

namespace {

constexpr int64_t kSmallBound = 8192;
constexpr int64_t kLargeBound = int64_t{1} << 21;  // DeviceBatchedTopK's largest segment

// One call (or, with scratch == nullptr, the temporary storage query) under bound `Bound`, on
// keys of type T.
template <int64_t Bound, typename T>
cudaError_t batched(void* scratch, size_t& bytes, const Problem& p, cudaStream_t stream) {
    const int64_t m = static_cast<int64_t>(p.m);
    const int64_t k = static_cast<int64_t>(p.k);
    const int64_t n = static_cast<int64_t>(p.n);
    // d_keys_in[r] = x + r * m, d_keys_out[r] = values + r * k, d_values_out[r] = indices + r * k.
    auto keys_in = cuda::make_strided_iterator(cuda::make_counting_iterator(p.x_as<T>()), m);
    auto keys_out = cuda::make_strided_iterator(cuda::make_counting_iterator(p.values_as<T>()), k);
    // Every segment's values are its positions 0, 1, ...
    auto values_in = cuda::make_constant_iterator(cuda::make_counting_iterator(int32_t{0}));
    auto values_out = cuda::make_strided_iterator(cuda::make_counting_iterator(p.indices), k);
    auto segment_size = cuda::args::immediate{m, cuda::args::bounds<int64_t{1}, Bound>()};
    auto k_arg = cuda::args::immediate{k, cuda::args::bounds<int64_t{1}, Bound>()};
    auto segments = cuda::args::immediate{n};
    auto requirements = cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                 cuda::execution::tie_break::unspecified,
                                                 cuda::execution::output_ordering::unsorted);
    auto env = cuda::std::execution::env{requirements, cuda::stream_ref{stream}};
    return cub::DeviceBatchedTopK::MaxPairs(scratch, bytes, keys_in, keys_out, values_in,
                                            values_out, segment_size, k_arg, segments, env);
}

cudaError_t dispatch(void* scratch, size_t& bytes, const Problem& p, cudaStream_t stream) {
    return with_elem(p.dtype, [&](auto e) {
        using T = typename decltype(e)::type;
        if (static_cast<int64_t>(p.m) <= kSmallBound)
            return batched<kSmallBound, T>(scratch, bytes, p, stream);
        return batched<kLargeBound, T>(scratch, bytes, p, stream);
    });
}

std::string unsupported(DType, uint64_t n, uint64_t m, uint64_t k, uint64_t) {
    if (m > uint64_t(kLargeBound)) return "segment above 2^21 items (DeviceBatchedTopK limit)";
    if (k > m) return "k above the segment size";  // k's bound is the segment bound
    if (n > uint64_t{INT32_MAX}) return "more than 2^31-1 segments (DeviceBatchedTopK limit)";
    return "";
}

cudaError_t scratch_bytes(DType t, uint64_t n, uint64_t m, uint64_t k, size_t* bytes) {
    Problem shape{nullptr, nullptr, nullptr, n, m, k, t};
    *bytes = 0;
    return dispatch(nullptr, *bytes, shape, nullptr);
}

cudaError_t run(const Problem& p, void* scratch, size_t scratch_bytes, cudaStream_t stream) {
    size_t bytes = scratch_bytes;
    return dispatch(scratch, bytes, p, stream);
}

std::string path(DType, uint64_t, uint64_t m, uint64_t) {
    return m <= uint64_t(kSmallBound) ? "bound=8192" : "bound=2^21";
}

}  // namespace

const Peer kCubBatchedTopK{"cub_batched_topk", unsupported, scratch_bytes, run, path};
