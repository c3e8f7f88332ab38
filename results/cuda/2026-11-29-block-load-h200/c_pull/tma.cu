// One block pulls a row of `bytes` from DRAM: how many SM cycles until every thread holds its
// 32 contiguous f32 (A: per-thread uint4 loads as block_rows does; B: coalesced uint4 loads;
// C: TMA bulk copies into shared memory, then shared -> registers; D: cp.async 16 B into
// shared memory, then registers).
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
typedef unsigned u32;
__device__ __forceinline__ u32 saddr(const void* p) { return (u32)__cvta_generic_to_shared(p); }

template <int MODE>
__global__ void pull(const float* base, size_t stride_elems, int rep, long long* cycles, float* sink) {
  long long tm = 0;
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) unsigned long long bar;
  const float* row = base + (size_t)rep * stride_elems;
  u32 t = threadIdx.x, T = blockDim.x, m = T * 32;
  float v[32];
  __syncthreads();
  long long t0 = clock64();
  if (MODE == 0) {
    #pragma unroll
    for (int q = 0; q < 8; ++q) { float4 b = *reinterpret_cast<const float4*>(row + 32 * t + 4 * q); v[4*q]=b.x; v[4*q+1]=b.y; v[4*q+2]=b.z; v[4*q+3]=b.w; }
  } else if (MODE == 1) {
    #pragma unroll
    for (int q = 0; q < 8; ++q) { float4 b = *reinterpret_cast<const float4*>(row + 4 * (t + T * q)); v[4*q]=b.x; v[4*q+1]=b.y; v[4*q+2]=b.z; v[4*q+3]=b.w; }
  } else if (MODE == 2) {
    u32 b = saddr(&bar);
    if (t == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
      u32 bytes = m * 4;
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(bytes) : "memory");
      u32 chunk = 16384;
      for (u32 off = 0; off < bytes; off += chunk)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(saddr(smem) + off), "l"((const char*)row + off), "r"(min(chunk, bytes - off)), "r"(b) : "memory");
    }
    asm volatile("{ .reg .pred p; W%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W%=; }" :: "r"(b) : "memory");
    tm = clock64();
    const float4* s4 = reinterpret_cast<const float4*>(smem);
    #pragma unroll
    for (int q = 0; q < 8; ++q) { float4 x = s4[8 * t + q]; v[4*q]=x.x; v[4*q+1]=x.y; v[4*q+2]=x.z; v[4*q+3]=x.w; }
  } else {
    #pragma unroll
    for (int q = 0; q < 8; ++q) {
      u32 i = 4 * (t + T * q);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(saddr(smem) + 4 * i), "l"(row + i) : "memory");
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    tm = clock64();
    const float4* s4 = reinterpret_cast<const float4*>(smem);
    #pragma unroll
    for (int q = 0; q < 8; ++q) { float4 x = s4[8 * t + q]; v[4*q]=x.x; v[4*q+1]=x.y; v[4*q+2]=x.z; v[4*q+3]=x.w; }
  }
  float acc = 0; 
  #pragma unroll
  for (int j = 0; j < 32; ++j) acc += v[j];
  __syncthreads();
  long long t1 = clock64();
  if (t == 0) { cycles[rep] = t1 - t0; cycles[500 + rep] = tm ? tm - t0 : 0; }
  if (acc == 12345.f) sink[t] = acc;
}

template <int MODE> void run(const char* name, float* buf, size_t stride, int threads, long long* d_cyc, float* sink) {
  int smem = MODE >= 2 ? threads * 128 : 0;
  cudaFuncSetAttribute(pull<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
  const int R = 200;
  for (int r = 0; r < R; ++r) pull<MODE><<<1, threads, smem>>>(buf, stride, r, d_cyc, sink);
  std::vector<long long> c(R), mid(R);
  cudaMemcpy(c.data(), d_cyc, R * 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(mid.data(), d_cyc + 500, R * 8, cudaMemcpyDeviceToHost);
  std::sort(c.begin(), c.end()); std::sort(mid.begin(), mid.end());
  cudaError_t e = cudaGetLastError();
  printf("%-26s threads %4d (%6d B): median %6lld cycles (in smem at %6lld), min %6lld  %s\n", name, threads, threads * 128, c[R / 2], mid[R / 2], c[0], cudaGetErrorString(e));
}

int main() {
  size_t stride = 1 << 20;  // 4 MB apart: 200 rows = 800 MB, past L2
  float* buf; cudaMalloc(&buf, stride * 4 * 201); cudaMemset(buf, 0, stride * 4 * 201);
  long long* d_cyc; cudaMalloc(&d_cyc, 8 * 1000); float* sink; cudaMalloc(&sink, 4096 * 4);
  for (int threads : {128, 256, 512, 1024}) {
    run<0>("A per-thread uint4", buf, stride, threads, d_cyc, sink);
    run<1>("B coalesced uint4", buf, stride, threads, d_cyc, sink);
    run<2>("C TMA bulk 16K chunks", buf, stride, threads, d_cyc, sink);
    run<3>("D cp.async 16B", buf, stride, threads, d_cyc, sink);
  }
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
