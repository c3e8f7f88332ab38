// Declarations shared by the peer harness's translation units (bench/peers/README.md).
//
// Each peer lives in its own .cu so that nvcc builds them in parallel and each is compiled with
// the flags its vendor uses; fill.cu is compiled with the workspace kernels' float flags so that
// the input is bit for bit the one `rtopk bench cuda` times.

#pragma once

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

// fill.cu: standard-normal input, the formula of crates/rtopk-cuda/kernels/utilities.cu
// `fill_normal` (element i of a buffer drawn with `seed` depends only on (seed, i)).
cudaError_t peers_fill_normal(float* x, uint64_t n, uint64_t seed, unsigned grid,
                              cudaStream_t stream);
// fill.cu: a one-thread kernel that keeps the GPU busy for `ns` nanoseconds, queued ahead of a
// start event so that the host's submission of the timed work stays out of the figure.
cudaError_t peers_spin_ahead(uint64_t ns, cudaStream_t stream);

// One top-k problem: `n` rows of `m` float32 in row-major `x`; the `k` largest of each row go to
// `values[r * k ..]` with their row-local positions in `indices[r * k ..]`, in any order.
struct Problem {
    const float* x;
    float* values;
    int32_t* indices;
    uint64_t n;
    uint64_t m;
    uint64_t k;
};

// A peer: what it can run, the scratch it needs (allocated and zeroed by the harness outside the
// timed region), and one top-k enqueued on a stream. `unsupported` returns "" when the peer runs
// the shape, else why not. `per_row_max_n` bounds the per-row loop of `cub_topk_per_row`.
struct Peer {
    const char* name;
    std::string (*unsupported)(uint64_t n, uint64_t m, uint64_t k, uint64_t per_row_max_n);
    cudaError_t (*scratch_bytes)(uint64_t n, uint64_t m, uint64_t k, size_t* bytes);
    cudaError_t (*run)(const Problem& p, void* scratch, size_t scratch_bytes,
                       cudaStream_t stream);
    // The path the peer takes on the shape, for the JSON "note" ("" when there is one path).
    std::string (*path)(uint64_t n, uint64_t m, uint64_t k);
};

// peer_flashinfer.cu: flashinfer::sampling::TopKDispatch (radix multi-CTA or filtered top-k).
extern const Peer kFlashInfer;
// peer_cub.cu: cub::DeviceTopK::MaxPairs on one vector (AIR top-k), and looped over the rows.
extern const Peer kCubTopK;
extern const Peer kCubTopKPerRow;
// peer_cub_batched.cu: cub::DeviceBatchedTopK::MaxPairs, one segment per row.
extern const Peer kCubBatchedTopK;
