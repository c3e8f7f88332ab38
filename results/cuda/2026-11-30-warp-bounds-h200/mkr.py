#!/usr/bin/env python3
"""Write the warp-rows harness (16-bit and f32 rows of the RTop-K grid): one translation unit per 64-bit type holding the wide-row
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
#include <cstdlib>
typedef void (*kfn)(RTOPK_ARGS);
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
struct Cfg { const char* name; kfn f; u32 m, k, rows_per_block; };
static elem_t of_float(float f) {
#if ELEM_KIND == ELEM_F32
    return f;
#else
    uint32_t b; memcpy(&b, &f, 4);
#if ELEM_KIND == ELEM_BF16
    return (elem_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
#else
    return (elem_t)0;  // f16: filled below
#endif
#endif
}
int main(int argc, char** argv) {
    const u64 N = 1ull << 18;
    const Cfg cfgs[] = {CFGS};
    bool prof = argc > 1 && strcmp(argv[1], "prof") == 0;
    size_t maxe = N * 768;
    std::vector<elem_t> h(maxe);
    uint64_t s = 12345;
    for (size_t i = 0; i < maxe; ++i) {
        auto u = [&]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return ((s >> 11) + 0.5) * (1.0 / 9007199254740992.0); };
        double a = u(), b = u();
        float f = (float)(sqrt(-2 * log(a)) * cos(6.283185307179586 * b));
#if ELEM_KIND == ELEM_F16
        __half hh = __float2half_rn(f); memcpy(&h[i], &hh, 2);
#else
        h[i] = of_float(f);
#endif
    }
    elem_t* x[2]; elem_t* ov; idx_t* oi; u32* it;
    for (int b = 0; b < 2; ++b) { CK(cudaMalloc(&x[b], maxe * sizeof(elem_t))); CK(cudaMemcpy(x[b], h.data(), maxe * sizeof(elem_t), cudaMemcpyHostToDevice)); }
    CK(cudaMalloc(&ov, N * 128 * sizeof(elem_t))); CK(cudaMalloc(&oi, N * 128 * sizeof(idx_t))); CK(cudaMalloc(&it, N * 4));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (const Cfg& c : cfgs) {
        u32 m = c.m, k = c.k;
        if (prof && (strcmp(argv[2], c.name) != 0 || (u32)atoi(argv[3]) != m || (u32)atoi(argv[4]) != k)) continue;
        unsigned grid = (unsigned)(N / c.rows_per_block);
        auto launch = [&](int b, u32* iters) { c.f<<<grid, 256>>>(x[b], ov, oi, iters, N, m, k, 0, -1, 0.0f, 0u, 1, 1.0f, (u64)m, k, 1u, nullptr, nullptr, nullptr, 0u, 0u, 0.0f, 0); };
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
        launch(0, nullptr); CK(cudaDeviceSynchronize());
        std::vector<elem_t> hv(N * k); std::vector<idx_t> hi(N * k);
        CK(cudaMemcpy(hv.data(), ov, N * k * sizeof(elem_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hi.data(), oi, N * k * sizeof(idx_t), cudaMemcpyDeviceToHost));
        uint64_t sum = 0, hx = 0;
        for (size_t i = 0; i < N * k; ++i) { hx = hx * 31 + (uint64_t)hv[i]; sum = sum * 1000003 + (uint64_t)hi[i]; }
        std::sort(t.begin(), t.end());
        printf("%s %s M=%u k=%u sorted=0 ms=%.4f check=%016llx%016llx\n", ELEM_KIND == ELEM_F32 ? "f32" : ELEM_KIND == ELEM_F16 ? "f16" : "bf16", c.name, m, k, t[15], (unsigned long long)hx, (unsigned long long)sum);
    }
    return 0;
}
"""

# (label, elems per lane, lanes, warps, min blocks, M of the grid it serves, k values)
UNITS16 = [("q32", 32, 8, 8, 6, 256, (16, 32, 64)), ("h16", 16, 16, 8, 8, 256, (128,)),
           ("q64", 64, 8, 8, 4, 512, (16, 64, 128)), ("h48", 48, 16, 8, 4, 768, (16, 64, 128))]
UNITS32 = [("q32", 32, 8, 8, 4, 256, (16, 32, 64)), ("h16", 16, 16, 8, 6, 256, (128,)),
           ("w16", 16, 32, 8, 6, 512, (16, 64, 128)), ("w24", 24, 32, 8, 5, 768, (16, 64, 128))]

def main():
    outdir = sys.argv[1]
    variants = []
    bounds = {}
    for a in sys.argv[2:]:
        name, rest = a.split("=", 1)
        rest, _, bnd = rest.partition("@")
        d, _, defs = rest.partition(":")
        variants.append((name, d, [x for x in defs.split(",") if x]))
        # @label=min_blocks,...: that unit's launch bounds' minimum blocks in this variant
        bounds[name] = {x.split("=")[0]: int(x.split("=")[1]) for x in bnd.split(",") if x}
    os.makedirs(outdir, exist_ok=True)
    for ty, elem, kind, units in (("f16", "unsigned short", 1, UNITS16), ("bf16", "unsigned short", 2, UNITS16), ("f32", "float", 0, UNITS32)):
        out = [PRE.rstrip("\n"), "#include <cuda_fp16.h>", "typedef unsigned int idx_t;", f"typedef {elem} elem_t;", f"#define ELEM_KIND {kind}"]
        cfgs = []
        for n, d, defs in variants:
            out += [f"#define {x}" for x in defs]
            out.append(f"namespace ns_{n} {{")
            body = []
            inline(d, "warp_rows.cu", set(), body)
            # `::slots_ge` names the free function from inside the row structs: in a namespace
            # of its own, the harness qualifies it with that namespace
            out += [l.replace("::slots_ge(", f"ns_{n}::slots_ge(") for l in body]
            for lab, epl, lanes, warps, minb, m, ks in units:
                minb = bounds[n].get(f"{ty}.{lab}", minb)
                out.append(f"__global__ void __launch_bounds__({warps * 32}, {minb}) {n}{lab}(RTOPK_ARGS) "
                           f"{{ wait_for_previous_step(); rtopk_warp_rows_impl<{epl}, {lanes}, {warps}, false>(RTOPK_PARAMS); }}")
            out.append("}")
            out += [f"#undef {x}" for x in defs]
        for lab, epl, lanes, warps, minb, m, ks in units:
            for k in ks:
                for n, _, _ in variants:
                    cfgs.append(f'{{"{n}{lab}", ns_{n}::{n}{lab}, {m}, {k}, {warps * 32 // lanes}}}')
        first = variants[0][0]
        out.append(f"using ns_{first}::u32; using ns_{first}::u64;")
        out.append(HOST.replace("CFGS", ", ".join(cfgs)))
        open(os.path.join(outdir, f"warp_{ty}.cu"), "w").write("\n".join(out) + "\n")

main()
