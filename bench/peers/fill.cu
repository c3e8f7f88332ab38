// The harness's own kernels: the input generator, its rounding to 16 bits, and the spin ahead of a
// timed call.
//
// Built with the float flags of the workspace's kernels (crates/rtopk-cuda/src/compile.rs:
// --ftz=false --prec-sqrt=true --prec-div=true --fmad=false) so that `fill_normal` writes the very
// values that crates/rtopk-cuda/kernels/utilities.cu writes for the same seed; run.sh passes them.

#include <type_traits>

#include "peers.cuh"

typedef unsigned int u32;
typedef unsigned long long u64;

// Same arithmetic as utilities.cu `mix32` / `fill_normal` (Box-Muller on a counter-based hash;
// u1 in (0, 1] so the logarithm is finite).
__device__ __forceinline__ u32 mix32(u64 z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (u32)((z ^ (z >> 31)) >> 32);
}

__global__ void fill_normal(float* x, u64 n, u64 seed) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u64 c = seed * 0x100000000ull + i;
        float u1 = ((float)(mix32(2 * c) >> 8) + 1.0f) * (1.0f / 16777217.0f);
        float u2 = (float)(mix32(2 * c + 1) >> 8) * (1.0f / 16777216.0f);
        x[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
}

// The draws of fill_normal rounded to nearest, ties to even (what utilities.cu `round_to16` does
// for the workspace's 16-bit benchmarks), so that a 16-bit run times the float32 run's values as
// the narrower type holds them. No draw is a NaN, so no NaN rule is needed.
template <typename T>
__global__ void round_to(const float* x, T* y, u64 n) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        if constexpr (std::is_same_v<T, __half>) y[i] = __float2half_rn(x[i]);
        else y[i] = __float2bfloat16_rn(x[i]);
    }
}

// Same as utilities.cu `spin_ahead`: one thread reads the global timer until `ns` have passed.
__global__ void spin_ahead(u64 ns) {
    u64 start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

cudaError_t peers_fill_normal(float* x, uint64_t n, uint64_t seed, unsigned grid,
                              cudaStream_t stream) {
    fill_normal<<<grid, 256, 0, stream>>>(x, (u64)n, (u64)seed);
    return cudaGetLastError();
}

cudaError_t peers_round_to(DType t, const float* x, void* y, uint64_t n, unsigned grid,
                           cudaStream_t stream) {
    switch (t) {
        case DType::f16:
            round_to<<<grid, 256, 0, stream>>>(x, static_cast<__half*>(y), (u64)n);
            break;
        case DType::bf16:
            round_to<<<grid, 256, 0, stream>>>(x, static_cast<__nv_bfloat16*>(y), (u64)n);
            break;
        case DType::f32:
            return cudaErrorInvalidValue;  // float32 input is fill_normal's own output
    }
    return cudaGetLastError();
}

cudaError_t peers_spin_ahead(uint64_t ns, cudaStream_t stream) {
    spin_ahead<<<1, 1, 0, stream>>>((u64)ns);
    return cudaGetLastError();
}
