// Declarations shared by the peer harness's translation units (bench/peers/README.md).
//
// Each peer lives in its own .cu so that nvcc builds them in parallel and each is compiled with
// the flags its vendor uses; fill.cu is compiled with the workspace kernels' float flags so that
// the input is bit for bit the one `rtopk bench cuda` times.

#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

// Any CUDA error outside a peer's own call: print where and what, exit non-zero.
#define PEERS_CHECK(call)                                                                    \
    do {                                                                                     \
        cudaError_t peers_err_ = (call);                                                     \
        if (peers_err_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,   \
                         cudaGetErrorString(peers_err_), cudaGetErrorName(peers_err_));      \
            std::exit(1);                                                                    \
        }                                                                                    \
    } while (0)

// The element type of the rows (--dtype). The 16-bit inputs are the float32 draws rounded, so
// every dtype times the same values as far as the type can hold them.
enum class DType { f32, f16, bf16 };

inline const char* dtype_name(DType t) {
    switch (t) {
        case DType::f16: return "f16";
        case DType::bf16: return "bf16";
        case DType::f32: break;
    }
    return "f32";
}

inline size_t dtype_bytes(DType t) { return t == DType::f32 ? 4 : 2; }

// A type carried as a value, so that a generic lambda can be instantiated per element type.
template <typename T>
struct Elem {
    using type = T;
};

// f(Elem<T>{}) with T the C++ type of `t` (float, __half, __nv_bfloat16): the one place where a
// run-time dtype becomes a template argument.
template <typename F>
auto with_elem(DType t, F&& f) {
    switch (t) {
        case DType::f16: return f(Elem<__half>{});
        case DType::bf16: return f(Elem<__nv_bfloat16>{});
        case DType::f32: break;
    }
    return f(Elem<float>{});
}

// fill.cu: standard-normal input, the formula of crates/rtopk-cuda/kernels/utilities.cu
// `fill_normal` (element i of a buffer drawn with `seed` depends only on (seed, i)).
cudaError_t peers_fill_normal(float* x, uint64_t n, uint64_t seed, unsigned grid,
                              cudaStream_t stream);
// fill.cu: `n` floats rounded to nearest (ties to even) into the 16-bit type `t` (f16 or bf16),
// as the workspace's `round_to16` makes its 16-bit inputs from the same draws.
cudaError_t peers_round_to(DType t, const float* x, void* y, uint64_t n, unsigned grid,
                           cudaStream_t stream);
// fill.cu: a one-thread kernel that keeps the GPU busy for `ns` nanoseconds, queued ahead of a
// start event so that the host's submission of the timed work stays out of the figure.
cudaError_t peers_spin_ahead(uint64_t ns, cudaStream_t stream);

// One top-k problem: `n` rows of `m` elements of type `dtype` in row-major `x`; the `k` largest of
// each row go to `values[r * k ..]` (same type) with their row-local positions in
// `indices[r * k ..]`, in any order.
struct Problem {
    const void* x;
    void* values;
    int32_t* indices;
    uint64_t n;
    uint64_t m;
    uint64_t k;
    DType dtype;

    // The buffers as the peer's element type T (the caller has matched T to `dtype`).
    template <typename T>
    const T* x_as() const { return static_cast<const T*>(x); }
    template <typename T>
    T* values_as() const { return static_cast<T*>(values); }
};

// A peer: what it can run, the scratch it needs (allocated and zeroed by the harness outside the
// timed region), and one top-k enqueued on a stream. `unsupported` returns "" when the peer runs
// the shape, else why not. `per_row_max_n` bounds the per-row loop of `cub_topk_per_row`. The
// element type is an argument throughout: FlashInfer's path and CUB's scratch depend on it.
struct Peer {
    const char* name;
    std::string (*unsupported)(DType t, uint64_t n, uint64_t m, uint64_t k,
                               uint64_t per_row_max_n);
    cudaError_t (*scratch_bytes)(DType t, uint64_t n, uint64_t m, uint64_t k, size_t* bytes);
    cudaError_t (*run)(const Problem& p, void* scratch, size_t scratch_bytes,
                       cudaStream_t stream);
    // The path the peer takes on the shape, for the JSON "note" ("" when there is one path).
    std::string (*path)(DType t, uint64_t n, uint64_t m, uint64_t k);
};

// peer_flashinfer.cu: flashinfer::sampling::TopKDispatch (radix multi-CTA or filtered top-k).
extern const Peer kFlashInfer;
// peer_cub.cu: cub::DeviceTopK::MaxPairs on one vector (AIR top-k), and looped over the rows.
extern const Peer kCubTopK;
extern const Peer kCubTopKPerRow;
// peer_cub_batched.cu: cub::DeviceBatchedTopK::MaxPairs, one segment per row.
extern const Peer kCubBatchedTopK;
