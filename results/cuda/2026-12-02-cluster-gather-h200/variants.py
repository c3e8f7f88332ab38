"""Usage (from the repository root): python3 results/cuda/2026-12-02-cluster-gather-h200/variants.py
— writes this record's --kernel-dir variants into devbin/, each a copy of 0e9436b's
crates/rtopk-cuda/kernels (read from git) with its cluster_rows.cu edited:
  kg   a cluster row that narrows (EXIT_NARROW, f32 rows of rtopk_cluster_rows) gathers the
       cluster's candidates into every block's load staging (one block prefix, one cluster round
       for the blocks' offsets, one st.shared::cluster a candidate and block, one cluster
       barrier), and each block finishes the search alone over all of them: one block sum a
       step, no cluster barrier (instead of local_candidates and cluster rounds);
  kgr  kg, the steps counted four a round by the block's warp ballots (one barrier a round);
  kgs, stamps: kg and 0e9436b's own kernel with clock64 stamps per stage (thread 0 of the
       first and the last block of row 0).
Call b (FAST: the gather as each block's local compaction, then coalesced copies of it into
every block, the gathered list at the staging's end, where 2 n keys fit the staging):
  kgo  the fast gather, then 0e9436b's cluster rounds over the local compaction (the gather's
       cost);
  kb   the fast gather, then kg's block-sum steps (no pointer to the row);
  kw   the fast gather, then warp 0 of each block searches alone, counting the list in place,
       and hands the search to the block through shared memory;
  kws  kw, each count splitting the list into the keys >= t and < t (the next count reads only
       the side the bracket kept);
  kws_s, kw_s: their stamps.
Call c:
  kr   the row's range without a cluster round of its own: each block's range (block_range)
       in its own slots before the first cluster barrier, then every warp reads the blocks'
       slots (ld.shared::cluster, lane j block j's) and reduces them."""
import os
import shutil
import subprocess
import tempfile

BASE = "0e9436b"
SRC = os.path.join(tempfile.mkdtemp(), "kernels")
os.makedirs(SRC)
subprocess.run(
    f"git archive {BASE} crates/rtopk-cuda/kernels | tar -x --strip-components=3 -C {SRC}",
    shell=True, check=True)


def rep(s, a, b):
    assert s.count(a) == 1, a
    return s.replace(a, b)


GATHER = r"""
// kg: the cluster's candidates, every one of them in each block's load staging
template <bool SKIPS, bool WIDE>
struct GatheredCands {
    const ClusterRow<SKIPS, false, WIDE>* row;
    const u32* cand;
    u32 n, m;
    u32* s_hist;
    mutable u32 rounds;
    static constexpr u32 NARROW_CAP = 0u;
    __device__ u32 count_ge_positive(u32 t) const {
        u32 c = 0u;
        for (u32 i = threadIdx.x; i < n; i += blockDim.x) c += cand[i] >= t ? 1u : 0u;
        return row->block_sum(c);
    }
    __device__ u32 count_ge(u32 t) const { return t == 0u ? m : count_ge_positive(t); }
};

__device__ __forceinline__ u32 staging_keys() {
    u32 bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes / 4u;
}

template <bool SKIPS, bool WIDE>
__device__ GatheredCands<SKIPS, WIDE> gather_all(const ClusterRow<SKIPS, false, WIDE>& row,
                                                 u32* cand, u32* slots, u32 n) {
    u32 own = __popc(row.ge_last[0]), before, total;
    block_prefix(own, slots, &before, &total);
    if (threadIdx.x > row.rank && threadIdx.x < row.size)
        cluster_red<CLUSTER_ADD>(row.s_cluster, CLUSTER_GATHER, threadIdx.x, total);
    cluster_sync();
    u32 at = row.s_cluster[CLUSTER_GATHER] + before;
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) {
        if ((row.ge_last[0] >> j) & 1u) {
            for (u32 r = 0u; r < row.size; ++r) cluster_store(cand, at, r, row.keys[j]);
            ++at;
        }
    }
    cluster_sync();
    return GatheredCands<SKIPS, WIDE>{&row, cand, n, row.m, row.s_hist, 0u};
}
"""

ROUNDS = r"""
// kgr: LEVELS steps a round over the gathered candidates, counted by the warps' ballots into
// the block's leaf counts; one barrier a round
template <int LEVELS, class Cands>
__device__ u32 gathered_round(const Cands& c, float lo, float hi) {
    constexpr u32 LEAVES = 1u << LEVELS;
    u32 cur = LEAVES * (c.rounds % 3u), next = LEAVES * ((c.rounds + 1u) % 3u);
    c.rounds += 1u;
    u32 lane = threadIdx.x & 31u;
    for (u32 base = threadIdx.x & ~31u; base < c.n; base += blockDim.x) {
        bool valid = base + lane < c.n;
        u32 leaf = leaf_of<LEVELS>(valid ? c.cand[base + lane] : 0u, lo, hi);
        u32 match = __ballot_sync(FULL_MASK, valid);
#pragma unroll
        for (int d = 0; d < LEVELS; ++d) {
            u32 bits = __ballot_sync(FULL_MASK, (leaf >> d) & 1u);
            match &= ((lane >> d) & 1u) ? bits : ~bits;
        }
        u32 cnt = __popc(match);
        if (lane < LEAVES && cnt) atomicAdd(&c.s_hist[cur + lane], cnt);
    }
    if (threadIdx.x < LEAVES) c.s_hist[next + threadIdx.x] = 0u;
    __syncthreads();
    return cur;
}

template <int LEVELS, class Cands>
__device__ int gathered_rounds(const Cands& c, Search& s, u32 k) {
    constexpr u32 LEAVES = 1u << LEVELS;
    float lo = s.lo, hi = s.hi;
    u32 lane = threadIdx.x & 31u;
    while (s.iterations < VALUE_PHASE_LIMIT) {
        u32 cur = gathered_round<LEVELS>(c, lo, hi);
        u32 leaf = lane >= LEAVES ? 0u : c.s_hist[cur + lane];
        u32 node = 1u;
        for (int d = 0; d < LEVELS; ++d) {
            if (s.iterations >= VALUE_PHASE_LIMIT) return 0;
            float thres = __fmul_rn(__fadd_rn(lo, hi), 0.5f);
            u32 t = number_key(thres);
            if (!(s.lo_key < t && t < s.hi_key)) return 0;
            u32 from = ((2u * node + 1u) << (LEVELS - 1 - d)) - LEAVES;
            u32 cnt = __reduce_add_sync(FULL_MASK, lane >= from ? leaf : 0u);
            s.iterations += 1;
            if (cnt == k) {
                s.hi_key = t; s.count_at_hi = cnt; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
                return 1;
            }
            bool below = cnt < k;
            s.hi_key = below ? t : s.hi_key;
            s.lo_key = below ? s.lo_key : t;
            hi = below ? thres : hi;
            lo = below ? lo : thres;
            node = 2u * node + (below ? 0u : 1u);
        }
    }
    return 0;
}

template <bool SKIPS, bool WIDE>
__device__ void finish_gathered(const GatheredCands<SKIPS, WIDE>& c, Search& s, u32 k) {
    if (s.value == VALUE_PLAIN && s.slack < 0) {
        if (gathered_rounds<4>(c, s, k)) return;
        s.value = VALUE_NONE;
    }
    finish_exact(c, s, k);
}
"""


def gather(s, rounds):
    s = rep(s, "#define CLUSTER_WORDS 8u", "#define CLUSTER_GATHER 7u\n#define CLUSTER_WORDS 8u")
    anchor = "// The value phase of a cluster row narrowed within its blocks, PLAIN"
    s = rep(s, anchor, GATHER + (ROUNDS if rounds else "") + "\n" + anchor)
    fin = "finish_gathered" if rounds else "finish_exact"
    return rep(s, """            if (stages_loads()) finish_local(local_candidates(row, smem, s_chunk), s, p.k);""",
               f"""            if (stages_loads() && s.count_at_lo <= staging_keys())
                {fin}(gather_all(row, smem, s_chunk, s.count_at_lo), s, p.k);
            else if (stages_loads()) finish_local(local_candidates(row, smem, s_chunk), s, p.k);""")


def stamps(s):
    s = rep(s, """    u32 rank = cluster_ctarank(), size = cluster_nctarank();
    u64 row_id = blockIdx.x / size;
    RowPlace at""", """    u32 rank = cluster_ctarank(), size = cluster_nctarank();
    long long T[10]; T[0] = clock64();
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
    T[4] = clock64(); u32 it4 = s.iterations, n4 = s.count_at_lo;
""")
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
    if (threadIdx.x == 0u && row_id == 0u && (rank == 0u || rank + 1u == size)) {
        printf("STAGES rank %u size %u thr %u load %lld sync0 %lld range %lld value %lld rest %lld classify %lld before %lld emit %lld total %lld it4 %u n4 %u it %u exit %d\\n",
               rank, size, blockDim.x, T[1]-T[0], T[2]-T[1], T[3]-T[2], T[4]-T[3], T[5]-T[4], T[6]-T[5], T[7]-T[6], T[8]-T[7], T[8]-T[0], it4, n4, s.iterations, (int)s.exit);
    }
    if (rank == 0u && threadIdx.x == 0u && p.out_iter) p.out_iter[row_id] = s.iterations;""")


def write(name, edit):
    d = os.path.join("devbin", name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(SRC, d)
    f = os.path.join(d, "cluster_rows.cu")
    s = open(f).read()
    open(f, "w").write(edit(s))


FAST = r"""
// call b: the cluster's candidates gathered into every block's staging at [S - n, S)
__device__ __forceinline__ u32 staging_keys() {
    u32 bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes / 4u;
}

template <bool SKIPS, bool WIDE>
__device__ u32 gather_fast(const ClusterRow<SKIPS, false, WIDE>& row, u32* staging, u32* slots,
                           u32 n, u32* total_out) {
    u32 own = __popc(row.ge_last[0]), before, total;
    block_prefix(own, slots, &before, &total);
    u32 at = before;
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) {
        if ((row.ge_last[0] >> j) & 1u) staging[at++] = row.keys[j];
    }
    if (threadIdx.x > row.rank && threadIdx.x < row.size)
        cluster_red<CLUSTER_ADD>(row.s_cluster, CLUSTER_GATHER, threadIdx.x, total);
    cluster_sync();
    u32 to = staging_keys() - n + row.s_cluster[CLUSTER_GATHER];
    for (u32 r = 0u; r < row.size; ++r)
        for (u32 i = threadIdx.x; i < total; i += blockDim.x)
            cluster_store(staging, to + i, r, staging[i]);
    cluster_sync();
    *total_out = total;
    return staging_keys() - n;
}

struct BlockGathered {
    const u32* cand;
    u32* s_partial;
    u32 n, m;
    mutable u32 half;
    static constexpr u32 NARROW_CAP = 0u;
    __device__ u32 count_ge_positive(u32 t) const {
        u32 c = 0u;
        for (u32 i = threadIdx.x; i < n; i += blockDim.x) c += cand[i] >= t ? 1u : 0u;
        u32 warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5, lane = threadIdx.x & 31u;
        u32* slots = s_partial + 32u * half;
        half ^= 1u;
        c = __reduce_add_sync(FULL_MASK, c);
        if (lane == 0) slots[warp] = c;
        __syncthreads();
        return __reduce_add_sync(FULL_MASK, lane < nwarps ? slots[lane] : 0u);
    }
    __device__ u32 count_ge(u32 t) const { return t == 0u ? m : count_ge_positive(t); }
};

struct WarpGathered {
    const u32* cand;
    u32 n, m;
    static constexpr u32 NARROW_CAP = 0u;
    __device__ u32 count_ge_positive(u32 t) const {
        u32 lane = threadIdx.x & 31u, c0 = 0u, c1 = 0u, c2 = 0u, c3 = 0u, i = lane;
        for (; i + 96u < n; i += 128u) {
            u32 a = cand[i], b = cand[i + 32u], d = cand[i + 64u], e = cand[i + 96u];
            c0 += a >= t ? 1u : 0u; c1 += b >= t ? 1u : 0u;
            c2 += d >= t ? 1u : 0u; c3 += e >= t ? 1u : 0u;
        }
        for (; i < n; i += 32u) c0 += cand[i] >= t ? 1u : 0u;
        return __reduce_add_sync(FULL_MASK, c0 + c1 + c2 + c3);
    }
    __device__ u32 count_ge(u32 t) const { return t == 0u ? m : count_ge_positive(t); }
};

// the list [start, start + len) of buffer cur; each count splits it into the other buffer:
// keys >= t from its front, keys < t from its back; the next count's threshold says which
// side the bracket kept
struct SplitGathered {
    u32* buf[2];
    u32 cap, m;
    mutable u32 cur, start, len, above, t_prev, n_ge, n_lt;
    mutable bool pending;
    static constexpr u32 NARROW_CAP = 0u;
    __device__ u32 count_ge_positive(u32 t) const {
        if (pending) {
            if (t > t_prev) { start = 0u; len = n_ge; }
            else { start = cap - n_lt; len = n_lt; above += n_ge; }
        }
        u32 lane = threadIdx.x & 31u, below_me = (1u << lane) - 1u;
        const u32* src = buf[cur] + start;
        u32* dst = buf[cur ^ 1u];
        u32 na = 0u, nb = 0u;
        for (u32 base = 0u; base < len; base += 32u) {
            u32 i = base + lane;
            bool valid = i < len;
            u32 x = valid ? src[i] : 0u;
            bool ge = valid && x >= t;
            u32 mge = __ballot_sync(FULL_MASK, ge), mlt = __ballot_sync(FULL_MASK, valid && !ge);
            if (ge) dst[na + __popc(mge & below_me)] = x;
            else if (valid) dst[cap - 1u - nb - __popc(mlt & below_me)] = x;
            na += __popc(mge);
            nb += __popc(mlt);
        }
        __syncwarp();
        t_prev = t; n_ge = na; n_lt = nb; cur ^= 1u; pending = true;
        return above + na;
    }
    __device__ u32 count_ge(u32 t) const { return t == 0u ? m : count_ge_positive(t); }
};

// warp 0 searches, the block reads its Search from shared memory
template <class Cands>
__device__ void finish_by_warp(const Cands& c, Search& s, u32 k, u32* s_share) {
    if (threadIdx.x < 32u) {
        finish_exact(c, s, k);
        if (threadIdx.x == 0u) *reinterpret_cast<Search*>(s_share) = s;
    }
    __syncthreads();
    s = *reinterpret_cast<const Search*>(s_share);
}
"""


def fast(s, how):
    s = rep(s, "#define CLUSTER_WORDS 8u", "#define CLUSTER_GATHER 7u\n#define CLUSTER_WORDS 8u")
    anchor = "// The value phase of a cluster row narrowed within its blocks, PLAIN"
    s = rep(s, anchor, FAST + "\n" + anchor)
    body = {
        "kgo": """{ u32 total; gather_fast(row, smem, s_chunk, s.count_at_lo, &total);
                  ClusterCands<HINTS, WIDE> c{&row, smem, total, row.m, row.s_hist, row.s_clh,
                                              row.s_hist + 6u * ROUND_SLOTS, 0u};
                  finish_local(c, s, p.k); }""",
        "kb": """{ u32 total; u32 g = gather_fast(row, smem, s_chunk, s.count_at_lo, &total);
                  BlockGathered c{smem + g, s_partial, s.count_at_lo, row.m, row.half};
                  finish_exact(c, s, p.k); row.half = c.half; }""",
        "kw": """{ u32 total; u32 g = gather_fast(row, smem, s_chunk, s.count_at_lo, &total);
                  WarpGathered c{smem + g, s.count_at_lo, row.m};
                  finish_by_warp(c, s, p.k, s_partial + 64); }""",
        "kws": """{ u32 total; u32 g = gather_fast(row, smem, s_chunk, s.count_at_lo, &total);
                  SplitGathered c{{smem + g, smem}, s.count_at_lo, row.m, 0u, 0u,
                                  s.count_at_lo, 0u, 0u, 0u, 0u, false};
                  finish_by_warp(c, s, p.k, s_partial + 64); }""",
    }[how]
    return rep(s, """            if (stages_loads()) finish_local(local_candidates(row, smem, s_chunk), s, p.k);""",
               f"""            if (stages_loads() && 2u * s.count_at_lo <= staging_keys())
                {body}
            else if (stages_loads()) finish_local(local_candidates(row, smem, s_chunk), s, p.k);""")


write("kg", lambda s: gather(s, False))
write("kgr", lambda s: gather(s, True))
write("kgs", lambda s: stamps(gather(s, False)))
write("stamps", stamps)
for v in ("kgo", "kb", "kw", "kws"):
    write(v, lambda s, v=v: fast(s, v))
write("kw_s", lambda s: stamps(fast(s, "kw")))
write("kws_s", lambda s: stamps(fast(s, "kws")))


RANGE = r"""
// kr: word `at` of block `rank`'s copy of the shared array `base` (mapa, then ld.shared::cluster)
__device__ __forceinline__ u32 cluster_load(const u32* base, u32 at, u32 rank) {
    u32 local = (u32)__cvta_generic_to_shared(base + at), remote, v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
    return v;
}

"""


def range_read(s):
    anchor = "// One row over a cluster: this block's BLOCK_EPL keys a thread"
    s = rep(s, anchor, RANGE + anchor)
    return rep(s, """    cluster_sync();  // every block started, its slots set
    u32 lo_key, hi_key;
    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);""", """    u32 lo_key, hi_key;
    block_range(row, lane_min, lane_max, &lo_key, &hi_key);
    if (threadIdx.x == 0u) { s_cluster[CLUSTER_MIN] = lo_key; s_cluster[CLUSTER_MAX] = hi_key; }
    cluster_sync();  // every block started, its slots set, its range in them
    {
        u32 lane = threadIdx.x & 31u, lo = 0xffffffffu, hi = 0u;
        if (lane < size) {
            lo = cluster_load(s_cluster, CLUSTER_MIN, lane);
            hi = cluster_load(s_cluster, CLUSTER_MAX, lane);
        }
        lo_key = __reduce_min_sync(FULL_MASK, lo);
        hi_key = __reduce_max_sync(FULL_MASK, hi);
    }""")


write("kr", range_read)
