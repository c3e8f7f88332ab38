#!/usr/bin/env python3
"""Write the grouped-selection harness: one translation unit per element type (f32, bf16)
holding rtopk_grouped_rows_impl<8> of several kernel directories (each in a namespace of its
own, compiled with the #defines given for it), composed as rtopk-cuda's src/kernels.rs composes
a unit, then a host: `./grouped_T check` runs every variant on rows of 256 standard-normal
scores (8 groups, the 4 best by the sum of their best two, k = 8; N = 1 ... 65536) and prints a
hash of each output; `./grouped_T prof NAME N` launches one variant 12 times (for ncu).
Usage: mkg.py OUT_DIR NAME=DIR[:DEFINE,...] ..."""
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
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <cstdlib>
typedef void (*gfn)(const elem_t*, elem_t*, idx_t*, u64, u32, u32, u32, u32, int);
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
struct Cfg { const char* name; gfn f; };
static elem_t of_float(float f) {
#if ELEM_KIND == ELEM_F32
    return f;
#else
    uint32_t b; memcpy(&b, &f, 4); return (elem_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);  // bf16, nearest even
#endif
}
int main(int argc, char** argv) {
    const Cfg cfgs[] = {CFGS};
    const u32 m = 256, k = 8, groups = 8, top = 4; const u64 NMAX = 65536;
    std::vector<elem_t> h(NMAX * m);
    uint64_t s = 777;
    for (size_t i = 0; i < h.size(); ++i) {
        auto u = [&]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return ((s >> 11) + 0.5) * (1.0 / 9007199254740992.0); };
        double a = u(), b = u();
        h[i] = of_float((float)(sqrt(-2 * log(a)) * cos(6.283185307179586 * b)));
    }
    elem_t* x; elem_t* ov; idx_t* oi;
    CK(cudaMalloc(&x, h.size() * sizeof(elem_t))); CK(cudaMemcpy(x, h.data(), h.size() * sizeof(elem_t), cudaMemcpyHostToDevice));
    CK(cudaMalloc(&ov, NMAX * k * sizeof(elem_t))); CK(cudaMalloc(&oi, NMAX * k * sizeof(idx_t)));
    bool prof = argc > 1 && strcmp(argv[1], "prof") == 0;
    const u64 Ns[] = {1, 4, 16, 64, 256, 4096, 65536};
    for (u64 n : Ns) for (const Cfg& c : cfgs) {
        if (prof && (strcmp(argv[2], c.name) != 0 || (u64)atoll(argv[3]) != n)) continue;
        u64 blocks = (n + GROUPED_WARPS - 1) / GROUPED_WARPS; if (blocks > 65536) blocks = 65536;
        int reps = prof ? 12 : 1;
        for (int r = 0; r < reps; ++r) c.f<<<(unsigned)blocks, GROUPED_WARPS * 32>>>(x, ov, oi, n, m, k, groups, top, 1);
        CK(cudaDeviceSynchronize());
        if (prof) continue;
        std::vector<elem_t> hv(n * k); std::vector<idx_t> hi(n * k);
        CK(cudaMemcpy(hv.data(), ov, n * k * sizeof(elem_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hi.data(), oi, n * k * sizeof(idx_t), cudaMemcpyDeviceToHost));
        uint64_t hx = 0;
        for (u64 i = 0; i < n * k; ++i) hx = hx * 1000003 + (uint64_t)hv[i] * 131 + (uint64_t)hi[i];
        printf("%s %s n=%llu check=%016llx\n", ELEM_KIND == ELEM_F32 ? "f32" : "bf16", c.name, (unsigned long long)n, (unsigned long long)hx);
        CK(cudaMemset(ov, 0, NMAX * k * sizeof(elem_t))); CK(cudaMemset(oi, 0, NMAX * k * sizeof(idx_t)));
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
    cfgs = ", ".join(f'{{"{n}", ns_{n}::g_{n}}}' for n, _, _ in variants)
    for ty, elem, kind in (("f32", "float", 0), ("bf16", "unsigned short", 2)):
        out = [PRE.rstrip("\n"), "typedef long long idx_t;", f"typedef {elem} elem_t;", f"#define ELEM_KIND {kind}"]
        for n, d, defs in variants:
            out += [f"#define {x}" for x in defs]
            out.append(f"namespace ns_{n} {{")
            inline(d, "grouped_rows.cu", set(), out)
            out.append(f"__global__ void __launch_bounds__(GROUPED_WARPS * 32) g_{n}(GROUPED_ARGS) "
                       f"{{ wait_for_previous_step(); rtopk_grouped_rows_impl<8>(x, out_val, out_idx, n_rows, m, k, groups, top_groups, sum2); }}")
            out.append("}")
            out += [f"#undef {x}" for x in defs]
        first = variants[0][0]
        out.append(f"using ns_{first}::u32; using ns_{first}::u64;")
        out.append(HOST.replace("CFGS", cfgs))
        open(os.path.join(outdir, f"grouped_{ty}.cu"), "w").write("\n".join(out) + "\n")

main()
