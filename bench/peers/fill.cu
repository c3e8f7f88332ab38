// The harness's own kernels: the input generator and the spin ahead of a timed call.
//
// Built with the float flags of the workspace's kernels (crates/rtopk-cuda/src/compile.rs:
// --ftz=false --prec-sqrt=true --prec-div=true --fmad=false) so that `fill_normal` writes the very
// values that crates/rtopk-cuda/kernels/utilities.cu writes for the same seed; run.sh passes them.

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

cudaError_t peers_spin_ahead(uint64_t ns, cudaStream_t stream) {
    spin_ahead<<<1, 1, 0, stream>>>((u64)ns);
    return cudaGetLastError();
}
