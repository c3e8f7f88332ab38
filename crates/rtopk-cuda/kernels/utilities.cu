// Kernels of the benchmarks and the timing (the device's read bandwidth, a spin ahead of timed
// work, standard-normal input generated on the device), and the conversion of a caller's int64
// per-row arrays to the words the top-k kernels read.

#include "common.cuh"

// Reads every element once and sums it: the device's read bandwidth, measured in the same run
// as the top-k benchmark (`rtopk bench cuda` and bench/torch_topk.py report against it).
extern "C" __global__ void read_bandwidth_probe(const float4* x, u64 n4, float* sink) {
    float acc = 0.f;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) {
        float4 v = x[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1.2345f) sink[0] = acc;  // keeps the loads alive; practically never stores
}

// Keeps the GPU busy for `ns` nanoseconds (one thread): timed work queued behind it starts as
// soon as it ends, so the host's time to submit that work stays out of the measurement.
extern "C" __global__ void spin_ahead(u64 ns) {
    u64 start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// Standard-normal benchmark data generated on the device (Box-Muller on a counter-based
// hash), so multi-GiB inputs cost no host time; never zeros.
__device__ __forceinline__ u32 mix32(u64 z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (u32)((z ^ (z >> 31)) >> 32);
}

extern "C" __global__ void fill_normal(float* x, u64 n, u64 seed) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u64 c = seed * 0x100000000ull + i;
        float u1 = ((float)(mix32(2 * c) >> 8) + 1.0f) * (1.0f / 16777217.0f);
        float u2 = (float)(mix32(2 * c + 1) >> 8) * (1.0f / 16777216.0f);
        x[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
}

// The f32 values of x rounded to nearest (ties to even) as 16-bit values of kind
// `elem_kind` (ELEM_F16 or ELEM_BF16): the benchmarks' 16-bit inputs, the same draws as f32.
extern "C" __global__ void round_to16(const float* x, unsigned short* y, u64 n, int elem_kind) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u32 b = __float_as_uint(x[i]);
        unsigned short h;
        if (elem_kind == ELEM_BF16) {
            h = isnan(x[i]) ? (unsigned short)((b >> 16) | 0x40u)
                            : (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
        } else {
            asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x[i]));
        }
        y[i] = h;
    }
}

// A caller's per-row array (lengths or k, docs/contract.md §5) of int64 entries, as torch holds
// integers by default, as the 32-bit words the top-k kernels read (per_row_entry): each entry
// clamped to [0, bound] first, so that no value wraps. It stands in for a framework's clamp and
// conversion (two kernels of its own, each loaded the first time a process uses it) with one
// launch of a unit the package ships.
extern "C" __global__ void per_row_words(const long long* entries, u32* words, u64 n, u32 bound) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        long long v = entries[i];
        words[i] = v <= 0 ? 0u : (u32)min((unsigned long long)v, (unsigned long long)bound);
    }
}
