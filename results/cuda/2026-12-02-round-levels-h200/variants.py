"""Usage (from the repository root): python3 results/cuda/2026-12-02-round-levels-h200/variants.py
— writes this record's --kernel-dir variants into devbin/, each a copy of a7e7b75's
crates/rtopk-cuda/kernels (read from git) with more_leaves.diff applied (value_rounds and
ballot_round for more than 32 leaves, a lane holding leaves lane + 32 h; the same code at 32
leaves or fewer) and the constants of a cluster row's rounds (docs/kernel.md, "Cluster rows",
**Rounds**) set again after cluster_rows.cu's includes:
  head  the kernels as they are;
  h0    a7e7b75's kernels (before value_rounds and ballot_round took more than 32 leaves);
  lv5, lv6, lv7  portable clusters' rounds of 5, 6, 7 steps (bucket_round; CLUSTER_ROUND_LEVELS);
  lv6c  lv6, and portable rows narrowing from 8192 keys (CLUSTER_LOCAL_CAP);
  w6    wide clusters' rounds of 6 steps (ballot_round; CLUSTER_WIDE_ROUND_LEVELS);
  lw6   lv6 and w6;
  bp6   portable clusters counting their rounds by ballots too (ballot_round), 6 steps a round;
  st_head, st_lv6, st_bp6: head, lv6 and bp6 with clock64 stamps per stage (thread 0 of the
        first and the last block of row 0; ../2026-12-02-cluster-gather-h200/stamps.py reads
        them);
  st2   st_head, each block running its row twice, a cluster barrier between (the second pass
        on warm instruction caches and an L2 that holds the row; twice.py reads the stamps);
  st3   st_head with stamps inside each whole-row count of thread 0 of block 0 (cluster_sum:
        its own count, the block's sum, the cluster's barrier; rounds.py reads them)."""
import os
import shutil
import subprocess
import tempfile

KERNELS = "crates/rtopk-cuda/kernels"
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(tempfile.mkdtemp(), "kernels")
os.makedirs(SRC)
subprocess.run(f"git archive a7e7b75 {KERNELS} | tar -x --strip-components=3 -C {SRC}",
               shell=True, check=True)
subprocess.run(["patch", "-s", "-p1", "-d", SRC, "-i", os.path.join(HERE, "more_leaves.diff")],
               check=True)


def rep(s, a, b):
    assert s.count(a) == 1, a
    return s.replace(a, b)


def consts(**kv):
    def edit(s):
        lines = "".join(f"#undef {k}\n#define {k} {v}\n" for k, v in kv.items())
        return rep(s, '#include "block_rows.cu"\n', '#include "block_rows.cu"\n' + lines)
    return edit


def ballots_on_portable(s):
    return rep(s, "else done = value_rounds<CLUSTER_ROUND_LEVELS, false>(c, s, k);",
               "else done = value_rounds<CLUSTER_ROUND_LEVELS, true>(c, s, k);")


STAMPS = [
    ("    u64 row_id = blockIdx.x / size;\n    RowPlace at",
     "    long long T[10]; T[0] = clock64();\n    u64 row_id = blockIdx.x / size;\n    RowPlace at"),
    ("    cluster_sync();  // every block started, its slots set\n",
     "    T[1] = clock64();\n    cluster_sync();  // every block started, its slots set\n    T[2] = clock64();\n"),
    ("    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);\n",
     "    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);\n    T[3] = clock64();\n"),
    ("    Search s = search_of<HINTS>(row, lo_key, hi_key, p, hint);\n",
     "    Search s = search_of<HINTS>(row, lo_key, hi_key, p, hint);\n"
     "    T[4] = clock64(); u32 it4 = s.iterations, n4 = s.count_at_lo;\n"),
    ("    // stage 3: select_topk", "    T[5] = clock64();\n    // stage 3: select_topk"),
    ("    u32 strong_before, band_before;\n", "    T[6] = clock64();\n    u32 strong_before, band_before;\n"),
    ("    u32 base = strong_before", "    T[7] = clock64();\n    u32 base = strong_before"),
    ("    if (rank == 0u && threadIdx.x == 0u && p.out_iter) p.out_iter[row_id] = s.iterations;\n}",
     "    T[8] = clock64();\n"
     "    if (threadIdx.x == 0u && row_id == 0u && (rank == 0u || rank + 1u == size))\n"
     '        printf("STAGES rank %u size %u thr %u load %lld sync0 %lld range %lld value %lld rest %lld '
     'classify %lld before %lld emit %lld total %lld it4 %u n4 %u it %u exit %d\\n", rank, size, '
     "blockDim.x, T[1]-T[0], T[2]-T[1], T[3]-T[2], T[4]-T[3], T[5]-T[4], T[6]-T[5], T[7]-T[6], "
     "T[8]-T[7], T[8]-T[0], it4, n4, s.iterations, (int)s.exit);\n"
     "    if (rank == 0u && threadIdx.x == 0u && p.out_iter) p.out_iter[row_id] = s.iterations;\n}"),
]


def stamps(edit):
    def both(s):
        s = edit(s)
        for a, b in STAMPS:
            s = rep(s, a, b)
        return s
    return both


def write(name, edit):
    d = os.path.join("devbin", name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(SRC, d)
    f = os.path.join(d, "cluster_rows.cu")
    with open(f) as fh:
        s = fh.read()
    with open(f, "w") as fh:
        fh.write(edit(s))


VARIANTS = {
    "head": lambda s: s,
    "lv5": consts(CLUSTER_ROUND_LEVELS=5),
    "lv6": consts(CLUSTER_ROUND_LEVELS=6),
    "lv7": consts(CLUSTER_ROUND_LEVELS=7),
    "lv6c": consts(CLUSTER_ROUND_LEVELS=6, CLUSTER_LOCAL_CAP="8192u"),
    "w6": consts(CLUSTER_WIDE_ROUND_LEVELS=6),
    "bp6": lambda s: ballots_on_portable(consts(CLUSTER_ROUND_LEVELS=6)(s)),
}
for name, edit in VARIANTS.items():
    write(name, edit)
VARIANTS["lw6"] = consts(CLUSTER_ROUND_LEVELS=6, CLUSTER_WIDE_ROUND_LEVELS=6)
write("lw6", VARIANTS["lw6"])
for name in ["head", "lv6", "bp6"]:
    write("st_" + name, stamps(VARIANTS[name]))


def twice(s):
    for wide in ("true", "false"):
        call = f"cluster_row_of<HINTS, NARROWS, {wide}>(p, aligned, sh);"
        s = rep(s, call, call + "\n    cluster_sync();\n    " + call)
    return s


write("st2", lambda s: twice(stamps(VARIANTS["head"])(s)))


ROUND_STAMPS = [
    ('#include "block_rows.cu"\n',
     '#include "block_rows.cu"\n__device__ long long g_st[3 * 64];\n__device__ u32 g_sn;\n'),
    ("    __device__ u32 cluster_sum(u32 c) const {\n",
     "    __device__ u32 cluster_sum(u32 c) const {\n"
     "        bool st = blockIdx.x == 0u && threadIdx.x == 0u && g_sn < 64u;\n"),
    ("        if (threadIdx.x == 0u) s_cluster[next] = 0u;\n        cluster_sync();\n        return s_cluster[slot];",
     "        if (st) g_st[3u * g_sn + 1u] = clock64();\n"
     "        if (threadIdx.x == 0u) s_cluster[next] = 0u;\n        cluster_sync();\n"
     "        u32 r = s_cluster[slot];\n"
     "        if (st) { g_st[3u * g_sn + 2u] = clock64() + (long long)(r & 0u); g_sn += 1u; }\n"
     "        return r;"),
    ("    __device__ u32 count_ge_positive(u32 t) const { return cluster_sum(this->slots_counted(t)); }",
     "    __device__ u32 count_ge_positive(u32 t) const {\n"
     "        long long a = clock64(); u32 c = this->slots_counted(t);\n"
     "        if (blockIdx.x == 0u && threadIdx.x == 0u && g_sn < 64u) g_st[3u * g_sn] = a;\n"
     "        return cluster_sum(c);\n    }"),
    ("    T[8] = clock64();\n",
     "    T[8] = clock64();\n"
     "    if (blockIdx.x == 0u && threadIdx.x == 0u) {\n"
     "        for (u32 i = 0; i < g_sn; ++i) printf(\"ROUND %u own+sum %lld cluster %lld\\n\", i,"
     " g_st[3u * i + 1u] - g_st[3u * i], g_st[3u * i + 2u] - g_st[3u * i + 1u]);\n"
     "        g_sn = 0u;\n    }\n"),
]


def round_stamps(s):
    s = stamps(VARIANTS["head"])(s)
    for a, b in ROUND_STAMPS:
        s = rep(s, a, b)
    return s


write("st3", round_stamps)
H0 = os.path.join(tempfile.mkdtemp(), "kernels")
os.makedirs(H0)
subprocess.run(f"git archive a7e7b75 {KERNELS} | tar -x --strip-components=3 -C {H0}",
               shell=True, check=True)
shutil.rmtree("devbin/h0", ignore_errors=True)
shutil.copytree(H0, "devbin/h0")
