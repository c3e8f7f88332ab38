#!/usr/bin/env python3
"""Write the wide-rows harness: one translation unit per 64-bit type holding the wide-row
kernels of two kernel directories (each in a namespace of its own: `head`, `tree`), as
rtopk-cuda's kernels.rs composes a unit's source (the shared #defines, the element type, the
family's file with its headers inlined), then a host that times every entry point on 2^18 rows
with CUDA events (median of 30 launches over two buffers) and hashes each output (values,
indices, iteration counts), or, with `prof NAME M K`, launches one entry point 5 times (ncu).
Usage: mkh.py OUT_DIR NAME=DIR[:DEFINE,DEFINE...] ... (NAME: one letter, the entry points' prefix)"""
import os, sys

PRE = """#define CAND_CAP 128u
#define BLOCK_CAND_KEYS 16
#define BLOCK_CAND_CAP (32u * BLOCK_CAND_KEYS)
#define BLOCK_EPL 32
#define WARP_STAGE 2048u
#define BLOCK_STAGE 1024u
#define BLOCK_LOAD_STAGE_WARP 4096u
#define GROUPED_WARPS 8
#define PICK_LANES 8
#define PICK_WARPS 8
#define WIDE_WARPS 4
#define HINT_WINDOWS 3
#define HINT_WINDOW_SHIFT(w) ((w) == 0 ? 10 : (w) == 1 ? 7 : 4)
"""

def inline(d, name, seen, out):
    if name in seen:
        return
    seen.add(name)
    for line in open(os.path.join(d, name)):
        s = line.rstrip("\n")
        if s.startswith('#include "') and s.endswith('"'):
            inline(d, s[len('#include "'):-1], seen, out)
        elif s.strip() != "#pragma once":
            out.append(s)

HOST = r"""
#include <vector>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <cstring>
typedef void (*kfn)(RTOPK_ARGS);
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
struct Cfg { const char* name; kfn f; u32 m_max; };
int main(int argc, char** argv) {
    const u64 N = 1ull << 18;
    const Cfg cfgs[] = {CFGS};
    bool prof = argc > 1 && strcmp(argv[1], "prof") == 0;
    const int Ms[3] = {256, 512, 768}, Ks[5] = {16, 32, 64, 128, 256};
    size_t maxe = N * 768;
    std::vector<elem_t> h(maxe);
    uint64_t s = 12345;
    for (size_t i = 0; i < maxe; i += 2) {
        auto u = [&]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return ((s >> 11) + 0.5) * (1.0 / 9007199254740992.0); };
        double a = u(), b = u(), r = sqrt(-2 * log(a));
        double z0 = r * cos(6.283185307179586 * b), z1 = r * sin(6.283185307179586 * b);
#if ELEM_KIND == ELEM_F64
        h[i] = z0; h[i + 1] = z1;
#else
        h[i] = (long long)llround(z0 * 1125899906842624.0); h[i + 1] = (long long)llround(z1 * 1125899906842624.0);
#endif
    }
    elem_t* x[2]; elem_t* ov; idx_t* oi; u32* it;
    for (int b = 0; b < 2; ++b) { CK(cudaMalloc(&x[b], maxe * sizeof(elem_t))); CK(cudaMemcpy(x[b], h.data(), maxe * sizeof(elem_t), cudaMemcpyHostToDevice)); }
    CK(cudaMalloc(&ov, N * 300 * sizeof(elem_t))); CK(cudaMalloc(&oi, N * 300 * sizeof(idx_t))); CK(cudaMalloc(&it, N * 4));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int mi = 0; mi < 3; ++mi) for (int ki = 0; ki < 5; ++ki) for (int sorted = 0; sorted < 2; ++sorted) for (const Cfg& c : cfgs) {
        u32 m = Ms[mi], k = Ks[ki];
        if (k > m) continue;
        if (c.m_max != (m <= 256 ? 256u : m <= 512 ? 512u : 768u)) continue;
        if (prof && (strcmp(argv[2], c.name) != 0 || (u32)atoi(argv[3]) != m || (u32)atoi(argv[4]) != k || sorted)) continue;
        unsigned grid = (unsigned)(N / 4);
        auto launch = [&](int b, u32* iters) { c.f<<<grid, 128>>>(x[b], ov, oi, iters, N, m, k, 0, -1, 0.0f, 0u, 0, 1.0f, (u64)m, k, 1u, nullptr, nullptr, nullptr, 0u, 0u, 0.0f, sorted); };
        if (prof) { for (int r = 0; r < 5; ++r) launch(r & 1, nullptr); CK(cudaDeviceSynchronize()); printf("prof %s done\n", c.name); continue; }
        for (int w = 0; w < 3; ++w) launch(w & 1, nullptr);
        CK(cudaDeviceSynchronize());
        std::vector<float> t;
        for (int r = 0; r < 30; ++r) {
            cudaEventRecord(e0); launch(r & 1, nullptr); cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms);
        }
        CK(cudaGetLastError());
        CK(cudaMemset(ov, 0xab, N * k * sizeof(elem_t))); CK(cudaMemset(oi, 0xab, N * k * sizeof(idx_t)));
        launch(0, it); CK(cudaDeviceSynchronize());
        std::vector<elem_t> hv(N * k); std::vector<idx_t> hi(N * k); std::vector<u32> hit(N);
        CK(cudaMemcpy(hv.data(), ov, N * k * sizeof(elem_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hi.data(), oi, N * k * sizeof(idx_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hit.data(), it, N * 4, cudaMemcpyDeviceToHost));
        uint64_t sum = 0, hx = 0, its = 0;
        for (size_t i = 0; i < N * k; ++i) { uint64_t bits; memcpy(&bits, &hv[i], 8); hx = hx * 31 + bits; sum = sum * 1000003 + (uint64_t)hi[i]; }
        for (size_t i = 0; i < N; ++i) its = its * 131 + hit[i];
        std::sort(t.begin(), t.end());
        printf("%s %s M=%u k=%u sorted=%d ms=%.4f check=%016llx%016llx%016llx\n", ELEM_KIND == ELEM_F64 ? "f64" : "i64", c.name, m, k, sorted, t[15], (unsigned long long)hx, (unsigned long long)sum, (unsigned long long)its);
    }
    return 0;
}
"""

def main():
    outdir = sys.argv[1]
    variants = []
    for a in sys.argv[2:]:
        name, rest = a.split("=", 1)
        d, _, defs = rest.partition(":")
        variants.append((name, d, [x for x in defs.split(",") if x]))
    os.makedirs(outdir, exist_ok=True)
    cfgs = ", ".join(f'{{"{n}{e}", ns_{n}::{n}{e}, {32 * e}}}' for e in (8, 16, 24) for n, _, _ in variants)
    for ty, elem, kind in (("f64", "double", 7), ("i64", "long long", 8)):
        out = [PRE.rstrip("\n"), "typedef long long idx_t;", f"typedef {elem} elem_t;", f"#define ELEM_KIND {kind}"]
        for n, d, defs in variants:
            out += [f"#define {x}" for x in defs]
            out.append(f"namespace ns_{n} {{")
            inline(d, "wide_rows.cu", set(), out)
            for epl in (8, 16, 24):
                out.append(f"__global__ void __launch_bounds__(WIDE_WARPS * 32) {n}{epl}(RTOPK_ARGS) "
                           f"{{ wait_for_previous_step(); rtopk_wide_rows_impl<{epl}, false>(RTOPK_PARAMS); }}")
            out.append("}")
            out += [f"#undef {x}" for x in defs]
        first = variants[0][0]
        out.append(f"using ns_{first}::u32; using ns_{first}::u64;")
        out.append(HOST.replace("CFGS", cfgs))
        open(os.path.join(outdir, f"wide_{ty}.cu"), "w").write("\n".join(out) + "\n")

main()
