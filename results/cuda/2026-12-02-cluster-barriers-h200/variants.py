"""Usage (from the repository root): python3 results/cuda/2026-12-02-cluster-barriers-h200/variants.py
— writes the --kernel-dir variants of calls a, b and c into devbin/, each a copy of d8c95b6's
crates/rtopk-cuda/kernels (read from git, so that later trees do not change them) with its
cluster_rows.cu edited. Call a: stamps (clock64 stamps per stage, thread 0 of the first and
the last block of row 0, the block's start by %globaltimer), kal (every cluster barrier
.aligned), kae (kal, the first cluster barrier split: arrive once the slots are set, wait after
the load), kall (kae with CLUSTER_LOCAL_CAP 8192 and CLUSTER_ROUND_LEVELS 5). Call b: kb1
(bucket_round: each thread computes its own path's thresholds, the warp counts its leaves by
ballots, the leaf counts reach the other blocks two to a word), kb2 (kb1, four to a 64-bit
reduction), stamps1 / stampsb1 (d8c95b6's kernel and kb1 with clock64 stamps per stage, every
block of row 0 printing its SM). Call c: kb1 with other constants."""
import os
import shutil
import subprocess
import tempfile

BASE = "d8c95b6"
SRC = os.path.join(tempfile.mkdtemp(), "kernels")
os.makedirs(SRC)
subprocess.run(
    f"git archive {BASE} crates/rtopk-cuda/kernels | tar -x --strip-components=3 -C {SRC}",
    shell=True, check=True)


def rep(s, a, b):
    assert s.count(a) == 1, a
    return s.replace(a, b)


def stage_stamps(s, start, at4, report):
    """clock64 stamps T[0..8] at the stages of rtopk_cluster_row: `start` is the first stamp's
    line, `at4` the one after the search, `report` the printf block after the last."""
    s = rep(s, """    u32 rank = cluster_ctarank(), size = cluster_nctarank();
    u64 row_id = blockIdx.x / size;
    RowPlace at""", """    u32 rank = cluster_ctarank(), size = cluster_nctarank();
""" + start + """
    u64 row_id = blockIdx.x / size;
    RowPlace at""")
    s = rep(s, """                     &lane_max);
    cluster_sync();  // every block started, its slots set""", """                     &lane_max);
    T[1] = clock64();
    cluster_sync();  // every block started, its slots set
    T[2] = clock64();""")
    s = rep(s, """    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);
""", """    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);
    T[3] = clock64();
""")
    s = rep(s, """    Search s = search_of<HINTS>(row, lo_key, hi_key, p, hint);
""", """    Search s = search_of<HINTS>(row, lo_key, hi_key, p, hint);
""" + at4 + "\n")
    s = rep(s, """    // stage 3: select_topk — this block's elements in index order after the blocks before it
    Cut c = cut_of(row, s, p.k);""", """    T[5] = clock64();
    // stage 3: select_topk — this block's elements in index order after the blocks before it
    Cut c = cut_of(row, s, p.k);""")
    s = rep(s, """    block_prefix(own, s_chunk, &before, &total);
    u32 strong_before, band_before;
    cluster_before(row, total & 0xffffu, total >> 16, &strong_before, &band_before);
""", """    block_prefix(own, s_chunk, &before, &total);
    T[6] = clock64();
    u32 strong_before, band_before;
    cluster_before(row, total & 0xffffu, total >> 16, &strong_before, &band_before);
    T[7] = clock64();
""")
    return rep(s, """                []() { __syncthreads(); }, row_in, out_val, out_idx);
    if (rank == 0u && threadIdx.x == 0u && p.out_iter) p.out_iter[row_id] = s.iterations;""", """                []() { __syncthreads(); }, row_in, out_val, out_idx);
    T[8] = clock64();
""" + report + """
    if (rank == 0u && threadIdx.x == 0u && p.out_iter) p.out_iter[row_id] = s.iterations;""")


def stamps(s):
    """Call b's stamps: every block of row 0 reports its SM."""
    return stage_stamps(s, "    long long T[10]; T[0] = clock64();",
                        "    T[4] = clock64(); u32 it4 = s.iterations;", """    if (threadIdx.x == 0u && row_id == 0u) {
        u32 smid; asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        printf("STAGES rank %u size %u thr %u sm %u load %lld sync0 %lld range %lld value %lld rest %lld classify %lld before %lld emit %lld total %lld it4 %u it %u exit %d\\n",
               rank, size, blockDim.x, smid, T[1]-T[0], T[2]-T[1], T[3]-T[2], T[4]-T[3], T[5]-T[4], T[6]-T[5], T[7]-T[6], T[8]-T[7], T[8]-T[0], it4, s.iterations, (int)s.exit);
    }""")


OLD_ROUND = s_old = None


def bucket(s, wide):
    a = s.index("template <bool SKIPS>\n__device__ u32 bucket_round(")
    b = s.index("// The value phase of a cluster row narrowed within its blocks")
    per = "4u" if wide else "2u"
    red = (
        """        u64 v = 0ull;
        for (u32 q = 0u; q < 4u; ++q) v |= (u64)c.s_hist[cur + 4u * w + q] << (16u * q);
        if (v) cluster_red64(c.s_clh, cur / 4u + w, j / WORDS, v);"""
        if wide
        else """        u32 v = c.s_hist[cur + 2u * w] | c.s_hist[cur + 2u * w + 1u] << 16;
        if (v) cluster_red<CLUSTER_ADD>(c.s_clh, cur / 2u + w, j / WORDS, v);"""
    )
    new = """template <bool SKIPS>
__device__ u32 bucket_round(const ClusterCands<SKIPS>& c, float lo, float hi) {
    u32 cur = ROUND_LEAVES * (c.rounds % 3u), next = ROUND_LEAVES * ((c.rounds + 1u) % 3u);
    c.rounds += 1u;
    u32 lane = threadIdx.x & 31u;
    for (u32 base = threadIdx.x & ~31u; base < c.n; base += blockDim.x) {
        bool valid = base + lane < c.n;
        u32 x = valid ? c.cand[base + lane] : 0u, node = 1u;
        float a = lo, b = hi;
#pragma unroll
        for (int d = 0; d < CLUSTER_ROUND_LEVELS; ++d) {
            float mid = __fmul_rn(__fadd_rn(a, b), 0.5f);
            bool right = x >= number_key(mid);
            node = 2u * node + (right ? 1u : 0u);
            a = right ? mid : a;
            b = right ? b : mid;
        }
        u32 leaf = node - ROUND_LEAVES, match = __ballot_sync(FULL_MASK, valid);
#pragma unroll
        for (int d = 0; d < CLUSTER_ROUND_LEVELS; ++d) {
            u32 bits = __ballot_sync(FULL_MASK, (leaf >> d) & 1u);
            match &= ((lane >> d) & 1u) ? bits : ~bits;
        }
        u32 cnt = __popc(match);
        if (lane < ROUND_LEAVES && cnt) atomicAdd(&c.s_hist[cur + lane], cnt);
    }
    __syncthreads();
    u32 size = c.row->size;
    const u32 WORDS = ROUND_LEAVES / PER;
    for (u32 j = threadIdx.x; j < WORDS * size; j += blockDim.x) {
        u32 w = j % WORDS;
RED
    }
    if (threadIdx.x < ROUND_LEAVES) {
        if (threadIdx.x < WORDS) c.s_clh[next / PER + threadIdx.x] = 0u;
        c.s_hist[next + threadIdx.x] = 0u;
    }
    cluster_sync();
    return cur;
}

""".replace("PER", per).replace("RED", red)
    if wide:
        new = new.replace("if (threadIdx.x < WORDS) c.s_clh[next / 4u + threadIdx.x] = 0u;",
                          "if (threadIdx.x < WORDS) ((u64*)c.s_clh)[next / 4u + threadIdx.x] = 0ull;")
        new = """__device__ __forceinline__ void cluster_red64(u32* base, u32 word64, u32 rank, u64 v) {
#if __CUDA_ARCH__ >= 900
    u32 local = (u32)__cvta_generic_to_shared((u64*)base + word64), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("red.shared::cluster.add.u64 [%0], %1;" ::"r"(remote), "l"(v) : "memory");
#else
    __trap();
#endif
}

""" + new
    s = s[:a] + new + s[b:]
    if wide:
        s = rep(s, "u32 leaf = lane < (u32)ROUND_LEAVES ? c.s_clh[cur + lane] : 0u;",
                "u32 leaf = lane < (u32)ROUND_LEAVES ? (u32)(((const u64*)c.s_clh)[cur / 4u + lane / 4u] >> (16u * (lane & 3u))) & 0xffffu : 0u;")
        s = rep(s, "__shared__ u32 s_stage[BLOCK_STAGE];  // the selection's staged indices",
                "__shared__ __align__(16) u32 s_stage[BLOCK_STAGE];  // the selection's staged indices")
    else:
        s = rep(s, "u32 leaf = lane < (u32)ROUND_LEAVES ? c.s_clh[cur + lane] : 0u;",
                "u32 leaf = lane < (u32)ROUND_LEAVES ? (c.s_clh[cur / 2u + lane / 2u] >> (16u * (lane & 1u))) & 0xffffu : 0u;")
    return s


def write(name, text):
    d = f"devbin/{name}"
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(SRC, d)
    open(f"{d}/cluster_rows.cu", "w").write(text)


base = open(f"{SRC}/cluster_rows.cu").read()
write("kb1", bucket(base, False))
write("kb2", bucket(base, True))
write("stamps1", stamps(base))
write("stampsb1", stamps(bucket(base, False)))


# call c: kb1 with other constants (defined ahead of the file, as ../2026-12-02-cluster-local-
# narrow-h200/tune.sh did): kb1c8 / kb1c16 (CLUSTER_LOCAL_CAP 8192 / 16384), kb1c8l5 /
# kb1c16l5 (and CLUSTER_ROUND_LEVELS 5: 31 thresholds, 32 leaves).
def consts(s, cap, levels):
    head = f"#undef CLUSTER_LOCAL_CAP\n#define CLUSTER_LOCAL_CAP {cap}u\n"
    if levels:
        head += f"#undef CLUSTER_ROUND_LEVELS\n#define CLUSTER_ROUND_LEVELS {levels}\n"
    return head + s


kb1 = bucket(base, False)
for name, cap, levels in (("kb1c8", 8192, 0), ("kb1c16", 16384, 0), ("kb1c8l5", 8192, 5),
                          ("kb1c16l5", 16384, 5)):
    write(name, consts(kb1, cap, levels))


# call a: aligned barriers, the first one split around the load, other constants, and the
# stage stamps with each block's start by %globaltimer
ARRIVE_WAIT = """__device__ __forceinline__ void cluster_arrive() {
#if __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_wait() {
#if __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    __syncthreads();
#endif
}
"""


def aligned(s):
    return rep(s, 'asm volatile("barrier.cluster.arrive.release;\\n\\tbarrier.cluster.wait.acquire;" ::: "memory");',
               'asm volatile("barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");')


def split_first(s):
    s = rep(s, "__device__ __forceinline__ void cluster_sync() {",
            ARRIVE_WAIT + "__device__ __forceinline__ void cluster_sync() {")
    init = """        s_cluster[w] = w == CLUSTER_MIN ? 0xffffffffu : 0u;
    }
"""
    s = rep(s, init, init + "    cluster_arrive();  // every block started, its slots set: waited for after the load\n")
    return rep(s, "    cluster_sync();  // every block started, its slots set\n", "    cluster_wait();\n")


def stamps_a(s):
    """Call a's stamps: the first and the last block of row 0, each block's start by
    %globaltimer."""
    return stage_stamps(
        s, '    long long T[10]; u64 G0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(G0)); T[0] = clock64();',
        "    T[4] = clock64(); u32 it4 = s.iterations, r4 = row.round;", """    if (threadIdx.x == 0u && row_id == 0u && (rank == 0u || rank + 1u == size)) {
        u64 G1; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(G1));
        printf("STAGES rank %u/%u thr %u g0 %llu load %lld sync0 %lld range %lld value %lld rest %lld classify %lld before %lld emit %lld total %lld it4 %u r4 %u it %u exit %d gns %llu\\n",
               rank, size, blockDim.x, (unsigned long long)G0, T[1]-T[0], T[2]-T[1], T[3]-T[2], T[4]-T[3], T[5]-T[4], T[6]-T[5], T[7]-T[6], T[8]-T[7], T[8]-T[0], it4, r4, s.iterations, (int)s.exit, (unsigned long long)(G1-G0));
    }""")


write("stamps", stamps_a(base))
write("kal", aligned(base))
write("kae", split_first(aligned(base)))
write("kall", consts(split_first(aligned(base)), 8192, 5))
