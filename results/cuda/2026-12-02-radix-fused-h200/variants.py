#!/usr/bin/env python3
"""Usage (this machine, from the repository root): variants.py OUTDIR — the kernel directories
of call.sh (record.md): copies of crates/rtopk-cuda/kernels whose radix_rows.cu is edited.
base: unchanged; all0: every radix step returns at once (the launches alone; wrong answers);
fused: the first digit pass's launch runs every pass, the count and the write, a grid barrier
between them (a prototype: two module globals as the barrier, co-residency assumed, not
checked: only grids of at most two blocks an SM), and the later launches return at once; fused2: fused, the barrier's words apart and its spin backing off;
fused3: fused2 bound to two blocks an SM;
fusednb: fused2 without the barriers (timing only); fusedtk: fused2 whose digit passes
meet at their own tickets (row_wait); pre: count_groups and keep_groups load a
tile's groups before counting the one before; fusedpre: both."""
import os
import re
import shutil
import sys

SRC = "crates/rtopk-cuda/kernels"
STEPS = "template <bool RAGGED>\n__device__ __forceinline__ void radix_digits_step"

BARRIER = r'''
// A grid barrier (prototype): every block of the launch must be resident.
__device__ unsigned int radix_bar_count;
__device__ volatile unsigned int radix_bar_gen;
// Whether the launch runs fused: at most two blocks an SM (all resident; %nsmid: the SMs).
__device__ __forceinline__ bool radix_fused() {
    unsigned int n;
    asm("mov.u32 %0, %%nsmid;" : "=r"(n));
    return gridDim.x <= 2u * n;
}
__device__ __forceinline__ void grid_barrier() {
    __syncthreads();
    if (threadIdx.x == 0u) {
        unsigned int g = radix_bar_gen;
        __threadfence();
        if (atomicAdd(&radix_bar_count, 1u) == gridDim.x - 1u) {
            radix_bar_count = 0u;
            __threadfence();
            radix_bar_gen = g + 1u;
        } else {
            while (radix_bar_gen == g) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}
'''

ALL = r'''
template <bool RAGGED>
__device__ __forceinline__ void radix_all(RADIX_ARGS) {
    for (u32 hi = RADIX_KEY_BITS; hi > 0u;) {
        u32 b = min(RADIX_DIGIT_BITS, hi);
        radix_digits_step<RAGGED>(x, out_val, out_idx, radix, cand, n_rows, ld, m, k, slice, blocks_per_row,
                                  hi - b, b, sign, radix_ld, capacity, lengths, k_per_row);
        grid_barrier();
        hi -= b;
    }
    radix_count_step<RAGGED>(RADIX_PASS);
    grid_barrier();
    radix_write_step<RAGGED>(RADIX_PASS);
}
'''


def ldcg(text):
    """Reads of `words` in the step functions through L2 (__ldcg): other blocks wrote them in
    the same launch."""
    head, tail = text.split(STEPS, 1)
    pat = re.compile(r"(?<![&\w])words\[((?:[^\[\]()]|\([^()]*(?:\([^()]*\)[^()]*)*\))*)\](?!\s*=[^=])")
    return head + STEPS + pat.sub(r"__ldcg(&words[\1])", tail)


def fused(text):
    text = ldcg(text)
    text = text.replace(STEPS, BARRIER + STEPS, 1)
    entry = "extern \"C\" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_write(RADIX_ARGS)"
    text = text.replace(entry, ALL + entry, 1)
    old = "rtopk_radix_digits(RADIX_ARGS) {\n    wait_for_previous_step();\n    radix_digits_step<false>(RADIX_PASS);"
    new = ("rtopk_radix_digits(RADIX_ARGS) {\n    wait_for_previous_step();\n"
           "    if (!radix_fused()) {\n        radix_digits_step<false>(RADIX_PASS);\n        return;\n    }\n"
           "    if (radix_pass(shift, bits) == RADIX_FIRST) radix_all<false>(RADIX_PASS);")
    assert old in text
    text = text.replace(old, new)
    for e in ("rtopk_radix_count", "rtopk_radix_write"):
        head = f"{e}(RADIX_ARGS) {{\n    wait_for_previous_step();\n"
        assert head in text
        text = text.replace(head, head + "    if (radix_fused()) return;\n", 1)
    # the fused kernel is defined after the write step: move the digits entry below it
    return text


def sleepy(text):
    """fused, the barrier's two words 128 bytes apart and its spin backing off (__nanosleep)."""
    text = text.replace("__device__ unsigned int radix_bar_count;\n__device__ volatile unsigned int radix_bar_gen;",
                        "__device__ unsigned int radix_bar[64];\n#define radix_bar_count radix_bar[0]\n"
                        "#define radix_bar_gen (*(volatile unsigned int*)&radix_bar[32])")
    old = "            while (radix_bar_gen == g) {\n            }"
    assert old in text
    return text.replace(old, "            while (radix_bar_gen == g) __nanosleep(64);")


def bound2(text):
    """the digits entry (which runs the fused select) bound to two blocks an SM."""
    old = "__launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_digits(RADIX_ARGS)"
    assert old in text
    return text.replace(old, "__launch_bounds__(RADIX_THREADS, 2) rtopk_radix_digits(RADIX_ARGS)")


def nobar(text):
    """fused2 with no grid barrier at all (a block barrier in its place): what the barriers
    cost (timing only: wrong answers)."""
    old = "__device__ __forceinline__ void grid_barrier() {\n"
    assert old in text
    return text.replace(old, old + "    __syncthreads();\n    return;\n", 1)


ROW_WAIT = r'''
// After digit pass `pass` (1, 2, ...) of this launch: the row's last block of the pass counted
// it on the row's generation word (a module global, counting on across launches: gen is its
// value when the launch began) once it had chosen the digit; the others wait for that, with no
// atomic of their own.
__device__ __forceinline__ void row_wait(u64 row, u32 gen, u32 pass) {
    __syncthreads();
    if (threadIdx.x == 0u) {
        while (radix_rowgen[row & 1023u] - gen < pass) __nanosleep(32);
        __threadfence();
    }
    __syncthreads();
}
'''


def ticket(text):
    """fused2 with each digit pass's barrier the pass's own ticket: the last block, once it has
    chosen the digit, counts the pass on the row's generation word; the others wait for it
    (row_wait). The count's barrier stays a grid barrier."""
    old = "    choose_digit(words, shift, bits, own.k, m, sums);\n}\n"
    assert old in text
    text = text.replace(old, "    choose_digit(words, shift, bits, own.k, m, sums);\n    __syncthreads();\n"
                        "    if (threadIdx.x == 0u) {\n        __threadfence();\n"
                        "        atomicAdd((u32*)&radix_rowgen[part.row & 1023u], 1u);\n    }\n}\n", 1)
    text = text.replace("template <bool RAGGED>\n__device__ __forceinline__ void radix_digits_step(",
                        "__device__ volatile u32 radix_rowgen[1024];\n"
                        "template <bool RAGGED>\n__device__ __forceinline__ void radix_digits_step(", 1)
    text = text.replace("template <bool RAGGED>\n__device__ __forceinline__ void radix_all(",
                        ROW_WAIT + "template <bool RAGGED>\n__device__ __forceinline__ void radix_all(", 1)
    old = "    for (u32 hi = RADIX_KEY_BITS; hi > 0u;) {"
    text = text.replace(old, "    u64 row = blockIdx.x / blocks_per_row;\n    __shared__ u32 gen;\n"
                        "    if (threadIdx.x == 0u) gen = radix_rowgen[row & 1023u];\n    __syncthreads();\n"
                        "    u32 g = gen;\n" + old, 1)
    old = "        grid_barrier();\n        hi -= b;"
    assert old in text
    new = "        row_wait(row, g, (RADIX_KEY_BITS - hi) / RADIX_DIGIT_BITS + 1u);\n        hi -= b;"
    return text.replace(old, new)


def pre(text):
    old_c = """    u64 whole = whole_tiles(part);
    for (u64 tile = part.start; tile < whole; tile += RADIX_TILE) {
        uint4 g[RADIX_ITEMS / RADIX_GROUP];
        load_groups(row, tile, g);
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j) {
            const elem_t* e = reinterpret_cast<const elem_t*>(&g[j]);
#pragma unroll
            for (u32 q = 0u; q < RADIX_GROUP; ++q) {
                u32 key = own_key(e[q], sign);"""
    new_c = """    u64 whole = whole_tiles(part);
    uint4 next[RADIX_ITEMS / RADIX_GROUP];
    if (part.start < whole) load_groups(row, part.start, next);
    for (u64 tile = part.start; tile < whole; tile += RADIX_TILE) {
        uint4 g[RADIX_ITEMS / RADIX_GROUP];
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j) g[j] = next[j];
        if (tile + RADIX_TILE < whole) load_groups(row, tile + RADIX_TILE, next);
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j) {
            const elem_t* e = reinterpret_cast<const elem_t*>(&g[j]);
#pragma unroll
            for (u32 q = 0u; q < RADIX_GROUP; ++q) {
                u32 key = own_key(e[q], sign);"""
    assert old_c in text
    text = text.replace(old_c, new_c)
    old_k = """    u64 whole = whole_tiles(part);
    for (u64 tile = part.start; tile < whole; tile += RADIX_TILE) {
        uint4 g[RADIX_ITEMS / RADIX_GROUP];
        load_groups(row, tile, g);
        u32 mine = 0u;"""
    new_k = """    u64 whole = whole_tiles(part);
    uint4 next[RADIX_ITEMS / RADIX_GROUP];
    if (part.start < whole) load_groups(row, part.start, next);
    for (u64 tile = part.start; tile < whole; tile += RADIX_TILE) {
        uint4 g[RADIX_ITEMS / RADIX_GROUP];
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j) g[j] = next[j];
        if (tile + RADIX_TILE < whole) load_groups(row, tile + RADIX_TILE, next);
        u32 mine = 0u;"""
    assert old_k in text
    return text.replace(old_k, new_k)


def all0(text):
    for e in ("rtopk_radix_count", "rtopk_radix_write", "rtopk_radix_digits", "rtopk_radix_sample"):
        head = f"{e}(RADIX_ARGS) {{\n    wait_for_previous_step();\n"
        text = text.replace(head, head + "    return;\n", 1)
    return text


def move_digits_entry(text):
    """The digits entry calls radix_all, defined further down: put the entry at the end."""
    start = text.index('extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_digits(')
    end = text.index("\n}\n", start) + 3
    entry = text[start:end]
    return text[:start] + text[end:] + "\n" + entry


VARIANTS = {
    "base": [],
    "all0": [all0],
    "fused": [fused, move_digits_entry],
    "pre": [pre],
    "fusedpre": [pre, fused, move_digits_entry],
    "fused2": [fused, move_digits_entry, sleepy],
    "fused3": [fused, move_digits_entry, sleepy, bound2],
    "fusednb": [fused, move_digits_entry, sleepy, nobar],
    "fusedtk": [fused, move_digits_entry, sleepy, ticket],
}

out = sys.argv[1]
for name, edits in VARIANTS.items():
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(SRC, d)
    path = os.path.join(d, "radix_rows.cu")
    text = open(path).read()
    for edit in edits:
        text = edit(text)
    open(path, "w").write(text)
    print(name, "written")
