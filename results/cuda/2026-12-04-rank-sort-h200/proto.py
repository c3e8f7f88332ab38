"""Prototype: the sorted output of a few rows by rank counting over a thread-block cluster,
against rtopk's sort step (rtopk_sort_rows), on the rows rtopk.topk selects."""
import sys
import cupy as cp
import torch
import rtopk

SRC = r"""
typedef unsigned long long u64; typedef unsigned int u32;
__device__ __forceinline__ u32 own_key(float v) {
    u32 u = __float_as_uint(v); return (u & 0x80000000u) ? ~u : (u | 0x80000000u); }
__device__ __forceinline__ u64 rank_of(float v, long long i) {
    return ((u64)(~own_key(v)) << 32) | (u32)i; }
template <int CL>
__device__ __forceinline__ void body(float* val, long long* idx, u32 k, u32 per, u32 tpr) {
    extern __shared__ u64 s[];
    u32 part = blockIdx.x % CL; u64 row = blockIdx.x / CL;
    float* v = val + row * k; long long* ix = idx + row * k;
    for (u32 i = threadIdx.x; i < k; i += blockDim.x) s[i] = rank_of(v[i], ix[i]);
    if (threadIdx.x == 0) s[k] = ~0ull;
    u32 slot = threadIdx.x / tpr, sub = threadIdx.x % tpr, r = part * per + slot;
    bool have = slot < per && r < k;
    float myv = 0.f; long long myi = 0;
    if (have) { myv = v[r]; myi = ix[r]; }
    __syncthreads();
    u64 mine = have ? s[r] : 0ull;
    u32 c0 = 0, c1 = 0;
    #pragma unroll 4
    for (u32 j = 2u * sub; j < k; j += 2u * tpr) {
        ulonglong2 p = *reinterpret_cast<const ulonglong2*>(&s[j]);
        c0 += p.x < mine; c1 += p.y < mine;
    }
    u32 cnt = c0 + c1;
    for (u32 d = tpr >> 1; d > 0u; d >>= 1) cnt += __shfl_xor_sync(0xffffffffu, cnt, d);
    if (CL > 1) asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    else __syncthreads();
    if (have && sub == 0u) { v[cnt] = myv; ix[cnt] = myi; }
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(1024)
rank_sort8(float* val, long long* idx, u32 k, u32 per, u32 tpr) { body<8>(val, idx, k, per, tpr); }
extern "C" __global__ void __launch_bounds__(1024)
rank_sort1(float* val, long long* idx, u32 k, u32 per, u32 tpr) { body<1>(val, idx, k, per, tpr); }
"""
mod = cp.RawModule(code=SRC, options=("-std=c++17", "-arch=sm_90"))
K8, K1 = mod.get_function("rank_sort8"), mod.get_function("rank_sort1")


def launch(fn, cl, v, i, rows, k):
    per = -(-k // cl)
    tpr = 32
    while per * tpr > 1024:
        tpr //= 2
    threads = -(-per * tpr // 32) * 32
    fn((rows * cl,), (threads,), (cp.asarray(v), cp.asarray(i), cp.uint32(k), cp.uint32(per), cp.uint32(tpr)),
       shared_mem=(k + 2) * 8)


def main():
    bad = 0
    cases = [(1, 262144, k) for k in (300, 512, 1024, 2048, 4096)] + [(8, 32768, 1024), (16, 32768, 2048)]
    if len(sys.argv) > 1:
        cases = [cases[int(sys.argv[1])]]
    for rows, m, k in cases:
        torch.manual_seed(k + rows)
        x = torch.randn(rows, m, device="cuda")
        ref = rtopk.topk(x, k, sorted=True)
        un = rtopk.topk(x, k, sorted=False)
        for name, fn, cl in (("rank8", K8, 8), ("rank1", K1, 1)):
            v, i = un.values.clone(), un.indices.clone()
            launch(fn, cl, v, i, rows, k)
            torch.cuda.synchronize()
            ok = torch.equal(v, ref.values) and torch.equal(i, ref.indices)
            bad += not ok
            print(f"check {rows}x{m} k={k} {name}: {'ok' if ok else 'DIFFERENT'}", flush=True)
        torch.cuda.profiler.start()
        for _ in range(5):
            rtopk.topk(x, k, sorted=True)
            for fn, cl in ((K8, 8), (K1, 1)):
                v, i = un.values.clone(), un.indices.clone()
                launch(fn, cl, v, i, rows, k)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
    print("bad", bad)


main()
