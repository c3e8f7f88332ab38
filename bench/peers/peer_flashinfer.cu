// Peer "flashinfer": FlashInfer 0.7.2.post1's native top-k, called the way its binding
// (vendor/flashinfer/csrc/topk.cu, `radix_topk`) calls it for flashinfer.top_k(x, k) with
// sorted=False, deterministic=False, tie_break=0: sampling::TopKDispatch<T, int32_t> with T the
// row's type (float, half, nv_bfloat16, as the binding's DISPATCH_DLPACK_DTYPE_TO_CTYPE_FP32_FP16
// picks it), which chooses FilteredTopK or the multi-CTA radix top-k by its own heuristic
// (ShouldUseFilteredTopK<T>: 16-bit rows take FilteredTopK only up to 16384 items, float32 ones
// to 32768 or with enough rows).
//
// Note: on an H100, flashinfer.top_k itself sends calls with fewer than 128 rows (or d <= 8192)
// to CUB's DeviceBatchedTopK instead (topk.py, is_cub_topk_beneficial); that backend is timed as
// the "cub_batched_topk" peer, this one times FlashInfer's own kernels on every shape.

#include <algorithm>
#include <cstring>  // std::strcmp in topk.cuh (the binding gets it through sampling.cuh)
#include <numeric>

#include <cub/cub.cuh>
// topk.cuh calls math::ptx_rcp but does not include math.cuh (sampling.cuh does, before it).
#include <flashinfer/math.cuh>
#include <flashinfer/topk.cuh>

#include "peers.cuh"

namespace {

namespace fis = flashinfer::sampling;

// flashinfer.top_k allocates its row-state buffer as 1 MiB, zeroed once and reused by every call
// (topk.py: _get_cache_buf("radix_topk_row_states_...", 1024 * 1024, zero_init=True)).
constexpr size_t kRowStateBytes = size_t{1} << 20;

template <typename T>
bool filtered_path(uint64_t n, uint64_t m, uint64_t k) {
    return fis::ShouldUseFilteredTopK<T>(
        static_cast<uint32_t>(n), static_cast<uint32_t>(k), static_cast<uint32_t>(m),
        /*deterministic=*/false, fis::TopKTieBreak::None, /*dsa_graph_safe=*/false);
}

struct Device {
    int sms = 0;
    int smem_optin = 0;
};

Device current_device() {
    Device d;
    int dev = 0;
    PEERS_CHECK(cudaGetDevice(&dev));
    PEERS_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
    PEERS_CHECK(cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return d;
}

// The CTAs RadixTopKMultiCTA<T> (topk.cuh) gives one row: each holds a chunk of the row in
// shared memory, as large as the opt-in shared memory allows. Same arithmetic as that function
// with deterministic = false; 0 where it would refuse the launch. A chunk is counted in the
// radix keys FlashInfer stores (RadixTopKTraits<T>::OrderedType: 32 bits for float, 16 for the
// 16-bit types), so a 16-bit row needs half the CTAs of a float32 one.
template <typename T>
uint32_t radix_ctas_per_row(uint64_t m, const Device& d) {
    using Ordered = typename fis::RadixTopKTraits<T>::OrderedType;
    constexpr uint32_t kThreads = 1024;
    const uint32_t vec = std::gcd(16u / uint32_t(sizeof(T)), static_cast<uint32_t>(m));
    constexpr size_t kFixed = sizeof(uint32_t) * (256 + 256 + 5);
    constexpr size_t kFixedAligned = (kFixed + 15) / 16 * 16;
    const size_t avail = fis::GetRadixTopKAvailableOrderedSmemBytes<kThreads>(
        size_t(d.smem_optin), kFixedAligned, /*reserve_launch_headroom=*/false);
    if (avail == 0) return 0;
    uint32_t max_chunk = uint32_t(avail / sizeof(Ordered)) / vec * vec;
    max_chunk = std::max(max_chunk, vec * kThreads);
    return uint32_t((m + max_chunk - 1) / max_chunk);
}

template <typename T>
std::string unsupported_as(uint64_t n, uint64_t m, uint64_t k) {
    // TopKDispatch takes 32-bit sizes; its kernels index outputs as row * k in 32 bits.
    if (n > UINT32_MAX || m > UINT32_MAX) return "n or m above 2^32-1 (32-bit sizes)";
    if (n * k > UINT32_MAX) return "n*k above 2^32-1 (32-bit output offsets)";
    if (filtered_path<T>(n, m, k)) return "";
    // The radix path's CTAs of one row meet at a software barrier (AdvanceRadixGroupBarrier),
    // so all of them must be resident at once; each takes nearly all of an SM's shared memory.
    // With more CTAs per row than SMs the launch would spin forever: not run.
    const Device d = current_device();
    const uint32_t ctas = radix_ctas_per_row<T>(m, d);
    if (ctas == 0) return "radix path: no room for a chunk in shared memory (cudaErrorInvalidValue)";
    if (ctas > 1 && ctas > uint32_t(d.sms))
        return "radix path would give one row " + std::to_string(ctas) + " CTAs, more than the " +
               std::to_string(d.sms) + " SMs that can hold them at once: its inter-CTA barrier would never complete";
    return "";
}

std::string unsupported(DType t, uint64_t n, uint64_t m, uint64_t k, uint64_t) {
    return with_elem(t, [&](auto e) { return unsupported_as<typename decltype(e)::type>(n, m, k); });
}

cudaError_t scratch_bytes(DType, uint64_t, uint64_t, uint64_t, size_t* bytes) {
    *bytes = kRowStateBytes;
    return cudaSuccess;
}

template <typename T>
cudaError_t run_as(const Problem& p, void* scratch, cudaStream_t stream) {
    // TopKDispatch's input is DType* (not const); it only reads it.
    return fis::TopKDispatch<T, int32_t>(
        const_cast<T*>(p.x_as<T>()), p.indices, p.values_as<T>(), static_cast<uint32_t>(p.n),
        static_cast<uint32_t>(p.k), static_cast<uint32_t>(p.m),
        static_cast<fis::RadixRowState*>(scratch), /*sorted_output=*/false,
        /*deterministic=*/false, fis::TopKTieBreak::None, stream, /*dsa_graph_safe=*/false);
}

cudaError_t run(const Problem& p, void* scratch, size_t, cudaStream_t stream) {
    return with_elem(p.dtype, [&](auto e) {
        return run_as<typename decltype(e)::type>(p, scratch, stream);
    });
}

template <typename T>
std::string path_as(uint64_t n, uint64_t m, uint64_t k) {
    if (filtered_path<T>(n, m, k)) return "path=filtered";
    return "path=radix_multi_cta, " + std::to_string(radix_ctas_per_row<T>(m, current_device())) +
           " CTAs per row";
}

std::string path(DType t, uint64_t n, uint64_t m, uint64_t k) {
    return with_elem(t, [&](auto e) { return path_as<typename decltype(e)::type>(n, m, k); });
}

}  // namespace

const Peer kFlashInfer{"flashinfer", unsupported, scratch_bytes, run, path};
