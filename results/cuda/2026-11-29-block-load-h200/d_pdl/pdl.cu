// Synthetic: a chain of S kernels, each 1..B blocks doing `work` dependent steps, then the next
// reading the previous's output. Timed with events, median of 200, with and without PDL.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_trigger() { asm volatile("griddepcontrol.launch_dependents;" :::); }

__global__ void step(const float* in, float* out, int work, int mode) {
  if (mode & 2) pdl_trigger();
  if (mode & 1) pdl_wait();
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = 0; i < work; ++i) v = v * 1.000001f + 0.5f;
  __shared__ float s[1024];
  s[threadIdx.x] = v;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x] + v;
}

__global__ void spin(long long ns) { long long t0 = clock64(); while (clock64() - t0 < ns * 2) {} }

float run(int steps, int blocks, int threads, int work, bool pdl, bool trigger, cudaStream_t st, float* a, float* b) {
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> t;
  for (int rep = 0; rep < 300; ++rep) {
    spin<<<1, 1, 0, st>>>(20000);
    cudaEventRecord(e0, st);
    for (int s = 0; s < steps; ++s) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(blocks); cfg.blockDim = dim3(threads); cfg.stream = st;
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[0].val.programmaticStreamSerializationAllowed = 1;
      cfg.attrs = attr; cfg.numAttrs = (pdl && s > 0) ? 1 : 0;
      int mode = (pdl ? 1 : 0) | (trigger ? 2 : 0);
      float* in = (s % 2) ? b : a; float* out = (s % 2) ? a : b;
      cudaLaunchKernelEx(&cfg, step, (const float*)in, out, work, mode);
    }
    cudaEventRecord(e1, st);
    cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    if (rep >= 50) t.push_back(ms * 1000.f);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  cudaStream_t st; cudaStreamCreate(&st);
  float *a, *b; cudaMalloc(&a, 1 << 26); cudaMalloc(&b, 1 << 26);
  cudaMemset(a, 0, 1 << 26); cudaMemset(b, 0, 1 << 26);
  printf("steps blocks threads work | plain_us pdl_us pdl+trigger_us\n");
  int cfgs[][4] = {{1,1,512,2000},{2,1,512,2000},{3,1,512,2000},{5,1,512,2000},{2,1,512,20},{5,1,512,20},
                   {2,32,1024,2000},{5,32,1024,2000},{3,132,512,2000},{2,1000,256,200},{5,8,256,20}};
  for (auto& c : cfgs) {
    float p = run(c[0], c[1], c[2], c[3], false, false, st, a, b);
    float q = run(c[0], c[1], c[2], c[3], true, false, st, a, b);
    float r = run(c[0], c[1], c[2], c[3], true, true, st, a, b);
    printf("%d %d %d %d | %.2f %.2f %.2f\n", c[0], c[1], c[2], c[3], p, q, r);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(e));
}
