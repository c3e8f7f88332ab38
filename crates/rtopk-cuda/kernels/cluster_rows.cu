// The cluster-row kernels: rtopk_cluster_rows and rtopk_cluster_rows_narrow, one thread-block
// cluster per row (docs/kernel.md, "Cluster rows"). Block r of a row's cluster holds elements
// r SPAN .. (r + 1) SPAN - 1 of the row in registers (SPAN = BLOCK_EPL * blockDim.x), as a block
// row holds its first SPAN; the search is the block row's, but every count, and the row's min
// and max key, meet in each block's shared memory through distributed shared memory (PTX ISA,
// "mapa", "red.shared::cluster", "barrier.cluster"), one cluster barrier per count. The
// selection places each block's results after those of the blocks before it (one more cluster
// round). Compute capability 9.0 and newer; the plan gives these rows to no older device.

#include "block_rows.cu"

// Words of a block's cluster slots (s_cluster): three count slots (cluster_sum: round i adds
// into slot i % 3), the row's min and max key, and the strong and band counts of the blocks
// before this one (cluster_before).
#define CLUSTER_SUM0 0u
#define CLUSTER_MIN 3u
#define CLUSTER_MAX 4u
#define CLUSTER_STRONG 5u
#define CLUSTER_BAND 6u
#define CLUSTER_PAIR 8u  // guess_bracket's two counts (cluster_sum_pair), used once
#define CLUSTER_WORDS 10u

// Blocks of at most this many warps add each warp's count into the cluster's slots directly
// (cluster_sum): on an H200 4-6 % faster with 8 warps, 12-17 % slower with 20, where the
// warps' adds meet in each slot (docs/performance.md, "Cluster rows").
#define CLUSTER_DIRECT_WARPS 8u

// A cluster row of rtopk_cluster_rows_narrow that narrows (EXIT_NARROW; docs/kernel.md,
// "Cluster rows", **Narrowing**) goes on with its candidates on one warp of block 0,
// CLUSTER_CAND_KEYS a lane (CandRow): at most CLUSTER_CAND_CAP of them, which with their
// indices fill 8 KB of block 0's dynamic shared memory (the f32 load staging, which the plan
// makes at least that large for these launches). Both are rtopk-plan's, defined ahead of
// every unit's source (src/kernels.rs).

// An f32 cluster row of rtopk_cluster_rows whose count at the bracket's lower end finds at
// most CLUSTER_LOCAL_CAP keys narrows within its blocks (local_candidates): each block copies
// its keys >= lo_key into its own load staging, and the rest of the search counts those,
// CLUSTER_ROUND_LEVELS steps a cluster round (value_rounds, bucket_round: 2^L - 1 thresholds
// cut 2^L leaves). On a wide cluster (WIDE_CLUSTER blocks) the row runs an instantiation of
// its own (WIDE: rtopk_cluster_row), which narrows from CLUSTER_WIDE_LOCAL_CAP keys and
// searches CLUSTER_WIDE_ROUND_LEVELS steps a round (ballot_round); a portable cluster's code
// is what it was without it. All are rtopk-plan's, defined ahead of every unit's source
// (docs/kernel.md, "Cluster rows", **Rounds**). ROUND_SLOTS: the leaf words of a round's slot,
// for the most leaves of either.
#define ROUND_SLOTS                                                                  \
    (1u << (CLUSTER_WIDE_ROUND_LEVELS > CLUSTER_ROUND_LEVELS ? CLUSTER_WIDE_ROUND_LEVELS \
                                                             : CLUSTER_ROUND_LEVELS))
static_assert(CLUSTER_WIDE_LOCAL_CAP < 65536u, "ballot_round's leaf counts fit 16 bits");

#define CLUSTER_ADD 0
#define CLUSTER_MIN_OP 1
#define CLUSTER_MAX_OP 2

__device__ __forceinline__ u32 cluster_ctarank() {
    u32 r = 0u;
#if __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
    return r;
}

__device__ __forceinline__ u32 cluster_nctarank() {
    u32 n = 1u;
#if __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
#endif
    return n;
}

// Word `word` of the cluster slots of block `rank` of this cluster, reduced with `v`
// (CLUSTER_ADD, CLUSTER_MIN_OP or CLUSTER_MAX_OP): mapa turns the address of the same word in
// this block's shared memory into that block's; red does not wait for the result.
template <int OP>
__device__ __forceinline__ void cluster_red(u32* slots, u32 word, u32 rank, u32 v) {
#if __CUDA_ARCH__ >= 900
    u32 local = (u32)__cvta_generic_to_shared(slots + word), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    if (OP == CLUSTER_ADD)
        asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(v) : "memory");
    else if (OP == CLUSTER_MIN_OP)
        asm volatile("red.shared::cluster.min.u32 [%0], %1;" ::"r"(remote), "r"(v) : "memory");
    else
        asm volatile("red.shared::cluster.max.u32 [%0], %1;" ::"r"(remote), "r"(v) : "memory");
#else
    __trap();  // never planned below compute capability 9.0
#endif
}

// Word `at` of block `rank`'s copy of the shared array `base` of this cluster set to `v`
// (mapa, then st.shared::cluster: the write is seen after the next cluster barrier).
__device__ __forceinline__ void cluster_store(u32* base, u32 at, u32 rank, u32 v) {
#if __CUDA_ARCH__ >= 900
    u32 local = (u32)__cvta_generic_to_shared(base + at), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote), "r"(v) : "memory");
#else
    __trap();  // never planned below compute capability 9.0
#endif
}

// One row over a cluster: this block's BLOCK_EPL keys a thread, and the count that the whole
// cluster sees. The search (search.cuh) and cut_of read it as any row. SKIPS (the ragged
// twin): a thread whose slots all lie past the row skips the compares, as a ragged block
// row's does (BlockRow), so that the blocks past a short row's end only meet the barriers.
// NARROWS (rtopk_cluster_rows_narrow, f32 rows only): the row narrows to at most
// CLUSTER_CAND_CAP candidates; a launch of its own, so that rows that would not gain keep
// code without it (docs/performance.md, "Cluster rows that narrow"). WIDE: a wide cluster's
// row (WIDE_CLUSTER blocks), which narrows within its blocks from CLUSTER_WIDE_LOCAL_CAP keys.
template <bool SKIPS, bool NARROWS, bool WIDE = false>
struct ClusterRow : BlockRow<false, SKIPS> {
    u32* s_cluster;  // CLUSTER_WORDS words
    u32* s_hist;     // value_rounds' words (ClusterCands)
    u32* s_clh;
    u32 rank, size;
    mutable u32 round;  // counts so far: round i adds into slot i % 3
    static constexpr u32 NARROW_CAP =
        NARROWS ? CLUSTER_CAND_CAP
                : (ELEM_KIND != ELEM_F32 ? 0u : WIDE ? CLUSTER_WIDE_LOCAL_CAP : CLUSTER_LOCAL_CAP);
    static_assert(!NARROWS || ELEM_KIND == ELEM_F32, "only f32 launches stage their loads");
    static constexpr bool SKIPS_ROW = SKIPS, WIDE_ROW = WIDE;

    // block_part: this thread's count made the part one add carries (the warp's where blocks
    // have at most CLUSTER_DIRECT_WARPS warps, block-uniform, sparing the block's barrier; else
    // the block's), and the block that add goes to (lane j or thread j: block j; none past the
    // cluster's size).
    __device__ __forceinline__ u32 block_part(u32* c) const {
        if (blockDim.x <= 32u * CLUSTER_DIRECT_WARPS) {
            *c = __reduce_add_sync(FULL_MASK, *c);
            return threadIdx.x & 31u;
        }
        *c = this->block_sum(*c);
        return threadIdx.x;
    }
    // cluster_sum: the block's count (block_sum), added by thread j into the current slot of
    // block j of the cluster, one cluster barrier, and each thread reads its own block's slot
    // (a block's count first, so that each slot takes one add a block, not one a warp); in
    // blocks of at most CLUSTER_DIRECT_WARPS warps each warp adds its own count instead, one
    // add a warp, sparing the block's barrier. The
    // slot the next round adds into was read two rounds ago, before every thread of this
    // block passed the barrier that ended the last round; thread 0 clears it now, before this
    // round's barrier, after which the other blocks add into it.
    __device__ u32 cluster_sum(u32 c) const {
        u32 slot = CLUSTER_SUM0 + round % 3u, next = CLUSTER_SUM0 + (round + 1u) % 3u;
        round += 1u;
        u32 j = block_part(&c);
        if (j < size) cluster_red<CLUSTER_ADD>(s_cluster, slot, j, c);
        if (threadIdx.x == 0u) s_cluster[next] = 0u;
        cluster_sync();
        return s_cluster[slot];
    }
    __device__ u32 count_ge_positive(u32 t) const { return cluster_sum(this->slots_counted(t)); }
    __device__ u32 count_ge(u32 t) const {
        return t == 0u ? this->m : count_ge_positive(t);  // padding slots hold key 0
    }
    // Two counts in one cluster round (guess_bracket): the keys >= t and >= u, each block's
    // pair packed in one word for its sum (a block's count is at most BLOCK_EPL * 1024 <
    // 2^16), then added into two slots of every block, used once a launch. ge_last ends as
    // u's mask.
    __device__ void cluster_sum_pair(u32 t, u32 u, u32* at_t, u32* at_u) const {
        u32 c = this->slots_counted(t) << 16;
        c |= this->slots_counted(u);
        u32 j = block_part(&c);
        if (j < size) {
            cluster_red<CLUSTER_ADD>(s_cluster, CLUSTER_PAIR, j, c >> 16);
            cluster_red<CLUSTER_ADD>(s_cluster, CLUSTER_PAIR + 1u, j, c & 0xffffu);
        }
        cluster_sync();
        *at_t = s_cluster[CLUSTER_PAIR];
        *at_u = s_cluster[CLUSTER_PAIR + 1u];
    }
    // The hint test's two counts in one cluster round where each fits in 16 bits (BlockRow's
    // packing; no keys past the registers here), else two rounds.
    __device__ void count_above_and_at_least(u32 t, u32* above, u32* at_least) const {
        if (this->m >= PAIRED_COUNT_LIMIT) {  // cluster-uniform
            *at_least = count_ge_positive(t);
            *above = count_ge_positive(t + 1u);
            return;
        }
        u32 ge = this->slots_counted(t);
        u32 both = cluster_sum(ge << 16 | this->slots_counted(t + 1u));
        *at_least = both >> 16;
        *above = both & 0xffffu;
    }
};

// cluster_range: the row's min and max key — the block's (block_range), reduced by thread j
// into block j's min and max slot, one cluster barrier (the slots' initial values were set
// before the first).
template <class Row>
__device__ void cluster_range(Row& row, u32 lane_min, u32 lane_max, u32* lo, u32* hi) {
    block_range(row, lane_min, lane_max, lo, hi);
    if (threadIdx.x < row.size) {
        cluster_red<CLUSTER_MIN_OP>(row.s_cluster, CLUSTER_MIN, threadIdx.x, *lo);
        cluster_red<CLUSTER_MAX_OP>(row.s_cluster, CLUSTER_MAX, threadIdx.x, *hi);
    }
    cluster_sync();
    *lo = row.s_cluster[CLUSTER_MIN];
    *hi = row.s_cluster[CLUSTER_MAX];
}

// cluster_before: the strong and band counts of the blocks before this one in the row (index
// order is block order), from this block's totals: thread j adds them into block j's slots for
// every j past this block, one cluster barrier. No block reaches into another's shared memory
// after it, so every block may leave once it has read its own.
template <class Row>
__device__ void cluster_before(const Row& row, u32 strong, u32 band, u32* strong_before,
                               u32* band_before) {
    if (threadIdx.x > row.rank && threadIdx.x < row.size) {
        cluster_red<CLUSTER_ADD>(row.s_cluster, CLUSTER_STRONG, threadIdx.x, strong);
        cluster_red<CLUSTER_ADD>(row.s_cluster, CLUSTER_BAND, threadIdx.x, band);
    }
    cluster_sync();
    *strong_before = row.s_cluster[CLUSTER_STRONG];
    *band_before = row.s_cluster[CLUSTER_BAND];
}

// Stage 2, narrowing a cluster row (EXIT_NARROW: the last count, at lo_key, found
// k < n <= CLUSTER_CAND_CAP keys >= lo_key): every thread copies its candidates (the last
// count's mask) and their indices into block 0's `cand` (keys, then indices from
// CLUSTER_CAND_CAP on) in index order — one block prefix of the threads' counts and one
// cluster round of the blocks' (cluster_before) place them — and one cluster barrier makes
// them block 0's.
template <bool SKIPS>
__device__ void gather_candidates(const ClusterRow<SKIPS, true>& row, u32 first, u32* cand,
                                  u32* slots) {
    u32 own = __popc(row.ge_last[0]), before, total, block_before, none;
    block_prefix(own, slots, &before, &total);
    cluster_before(row, total, 0u, &block_before, &none);
    u32 at = block_before + before;
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) {
        if ((row.ge_last[0] >> j) & 1u) {
            cluster_store(cand, at, 0u, row.keys[j]);
            cluster_store(cand, CLUSTER_CAND_CAP + at, 0u, first + (u32)j);
            ++at;
        }
    }
    cluster_sync();
}

// A cluster row narrowed within its blocks: this block's keys >= lo_key in its load staging,
// and each count the cluster's sum of the blocks' counts over their own (cluster_sum).
template <bool SKIPS, bool WIDE>
struct ClusterCands {
    const ClusterRow<SKIPS, false, WIDE>* row;
    const u32* cand;
    u32 n, m;  // this block's candidates; the row's width
    u32* s_hist;  // 3 x ROUND_SLOTS: the block's leaf counts of a round
    u32* s_clh;   // 3 x ROUND_SLOTS: the cluster's, summed into every block's
    u32* s_t;     // a round's thresholds, heap order from 1 (bucket_round)
    mutable u32 rounds;
    static constexpr u32 NARROW_CAP = 0u;
    __device__ u32 count_ge_positive(u32 t) const {
        u32 c = 0u;
        for (u32 i = threadIdx.x; i < n; i += blockDim.x) c += cand[i] >= t ? 1u : 0u;
        return row->cluster_sum(c);
    }
    __device__ u32 count_ge(u32 t) const { return t == 0u ? m : count_ge_positive(t); }
};

// Stage 2, narrowing a cluster row within its blocks (EXIT_NARROW: the last count, at lo_key,
// found k < n <= CLUSTER_LOCAL_CAP keys >= lo_key): every thread copies its keys the last
// count marked into the block's `cand` (one block prefix places them; their order does not
// matter to a count), one barrier.
template <bool SKIPS, bool WIDE>
__device__ ClusterCands<SKIPS, WIDE> local_candidates(const ClusterRow<SKIPS, false, WIDE>& row,
                                                      u32* cand, u32* slots) {
    u32 own = __popc(row.ge_last[0]), before, total;
    block_prefix(own, slots, &before, &total);
    u32 at = before;
#pragma unroll
    for (int j = 0; j < BLOCK_EPL; ++j) {
        if ((row.ge_last[0] >> j) & 1u) cand[at++] = row.keys[j];
    }
    __syncthreads();
    return ClusterCands<SKIPS, WIDE>{&row, cand, total, row.m, row.s_hist, row.s_clh,
                                     row.s_hist + 6u * ROUND_SLOTS, 0u};
}

// One round of a portable cluster's row narrowed within its blocks (value_rounds): the
// thresholds of the next CLUSTER_ROUND_LEVELS steps for every outcome — the midpoints tree of
// [lo, hi], node n (heap order, 1..ROUND_NODES) computed by thread n into s_t[n] — and the
// cluster's count of its candidates in each of the ROUND_LEAVES leaves: a key descends the tree
// (right where it is >= the node's threshold), so the keys >= node n's threshold are those in
// the leaves from the first of n's right subtree on. The block's counts by shared atomics;
// thread j adds leaf j % ROUND_LEAVES into block j / ROUND_LEAVES's; one cluster barrier. Slots
// rotate over three rounds as cluster_sum's do: the next round's are cleared before this
// round's barrier. Returns the slot of this round's counts.
template <class Cands>
__device__ u32 bucket_round(const Cands& c, float lo, float hi) {
    constexpr u32 ROUND_LEAVES = 1u << CLUSTER_ROUND_LEVELS, ROUND_NODES = ROUND_LEAVES - 1u;
    u32 cur = ROUND_LEAVES * (c.rounds % 3u), next = ROUND_LEAVES * ((c.rounds + 1u) % 3u);
    c.rounds += 1u;
    u32 n = threadIdx.x;
    if (n >= 1u && n <= (u32)ROUND_NODES) {
        float a = lo, b = hi;
        for (int bit = 31 - __clz(n) - 1; bit >= 0; --bit) {
            float mid = __fmul_rn(__fadd_rn(a, b), 0.5f);
            if ((n >> bit) & 1u) a = mid; else b = mid;
        }
        c.s_t[n] = number_key(__fmul_rn(__fadd_rn(a, b), 0.5f));
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < c.n; i += blockDim.x) {
        u32 x = c.cand[i], node = 1u;
#pragma unroll
        for (int d = 0; d < CLUSTER_ROUND_LEVELS; ++d)
            node = 2u * node + (x >= c.s_t[node] ? 1u : 0u);
        atomicAdd(&c.s_hist[cur + node - ROUND_LEAVES], 1u);
    }
    __syncthreads();
    u32 size = c.row->size;
    for (u32 j = threadIdx.x; j < ROUND_LEAVES * size; j += blockDim.x) {
        u32 v = c.s_hist[cur + j % ROUND_LEAVES];
        if (v) cluster_red<CLUSTER_ADD>(c.s_clh, cur + j % ROUND_LEAVES, j / ROUND_LEAVES, v);
    }
    if (threadIdx.x < ROUND_LEAVES) {
        c.s_clh[next + threadIdx.x] = 0u;
        c.s_hist[next + threadIdx.x] = 0u;
    }
    cluster_sync();
    return cur;
}

// The leaf of candidate key x in the tree of midpoints of [lo, hi] (LEVELS levels): the walk
// from the root, right where x >= the node's threshold — each thread computing its own path's
// thresholds as bucket_round's threads 1.. compute the nodes.
template <int LEVELS>
__device__ __forceinline__ u32 leaf_of(u32 x, float lo, float hi) {
    float a = lo, b = hi;
    u32 node = 1u;
#pragma unroll
    for (int d = 0; d < LEVELS; ++d) {
        float mid = __fmul_rn(__fadd_rn(a, b), 0.5f);
        bool right = x >= number_key(mid);
        node = 2u * node + (right ? 1u : 0u);
        a = right ? mid : a;
        b = right ? b : mid;
    }
    return node - (1u << LEVELS);
}

// One round of a wide cluster's row narrowed within its blocks (value_rounds): bucket_round's
// leaf counts for LEVELS steps, counted without a tree in shared memory and without contended
// atomics — each thread walks its own candidate's path (leaf_of), the warp counts each leaf by
// LEVELS ballots of the leaves' bits (lane q: the lanes whose leaf is q), lane q adds the
// warp's count into the block's leaf q — and sent to the other blocks two leaves to a word
// (16 bits each: a leaf holds at most CLUSTER_WIDE_LOCAL_CAP keys), half bucket_round's
// reductions. Returns the slot of this round's counts (packed: word cur / 2 + q / 2).
template <int LEVELS, class Cands>
__device__ u32 ballot_round(const Cands& c, float lo, float hi) {
    constexpr u32 LEAVES = 1u << LEVELS, WORDS = LEAVES / 2u;
    u32 cur = LEAVES * (c.rounds % 3u), next = LEAVES * ((c.rounds + 1u) % 3u);
    c.rounds += 1u;
    u32 lane = threadIdx.x & 31u;
    for (u32 base = threadIdx.x & ~31u; base < c.n; base += blockDim.x) {  // warp-uniform
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
    __syncthreads();
    u32 size = c.row->size;
    for (u32 j = threadIdx.x; j < WORDS * size; j += blockDim.x) {
        u32 w = j % WORDS;
        u32 v = c.s_hist[cur + 2u * w] | c.s_hist[cur + 2u * w + 1u] << 16;
        if (v) cluster_red<CLUSTER_ADD>(c.s_clh, cur / 2u + w, j / WORDS, v);
    }
    if (threadIdx.x < LEAVES) {
        if (threadIdx.x < WORDS) c.s_clh[next / 2u + threadIdx.x] = 0u;
        c.s_hist[next + threadIdx.x] = 0u;
    }
    cluster_sync();
    return cur;
}

// The value phase of a cluster row narrowed within its blocks, PLAIN and without a recall
// target (value_phase's steps: the same thresholds, counts and updates): each round counts the
// thresholds of the next LEVELS steps for every outcome in one round (BALLOTS: ballot_round,
// else bucket_round), then replays those steps from the leaves' counts (lane q of every warp
// holds leaf q's; a step's count is one warp sum). Returns as value_phase does.
template <int LEVELS, bool BALLOTS, class Cands>
__device__ int value_rounds(const Cands& c, Search& s, u32 k) {
    constexpr u32 LEAVES = 1u << LEVELS;
    float lo = s.lo, hi = s.hi;
    u32 lane = threadIdx.x & 31u;
    while (s.iterations < VALUE_PHASE_LIMIT) {
        u32 cur = BALLOTS ? ballot_round<LEVELS>(c, lo, hi) : bucket_round(c, lo, hi);
        u32 leaf = lane >= LEAVES ? 0u
                   : BALLOTS ? c.s_clh[cur / 2u + lane / 2u] >> (16u * (lane & 1u)) & 0xffffu
                             : c.s_clh[cur + lane];
        u32 node = 1u;
        for (int d = 0; d < LEVELS; ++d) {
            if (s.iterations >= VALUE_PHASE_LIMIT) return 0;
            float thres = __fmul_rn(__fadd_rn(lo, hi), 0.5f);
            u32 t = number_key(thres);
            if (!(s.lo_key < t && t < s.hi_key)) return 0;  // adjacent floats: stall
            // the first leaf of the node's right subtree
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

// The rest of a narrowed cluster row's search: value_rounds where the value phase is PLAIN
// without a recall target (ballot_round's on a wide cluster, bucket_round's on a portable
// one), then the key phase; else finish_exact over the candidates.
template <bool SKIPS, bool WIDE>
__device__ void finish_local(const ClusterCands<SKIPS, WIDE>& c, Search& s, u32 k) {
    if (s.value == VALUE_PLAIN && s.slack < 0) {
        int done;
        if constexpr (WIDE) done = value_rounds<CLUSTER_WIDE_ROUND_LEVELS, true>(c, s, k);
        else done = value_rounds<CLUSTER_ROUND_LEVELS, false>(c, s, k);
        if (done) return;
        s.value = VALUE_NONE;
    }
    finish_exact(c, s, k);
}

// Where a cluster row's search starts from a guessed bracket (search_guessed): an f32 row of
// rtopk_cluster_rows or of its ragged twin's first entry point (on a wide cluster the plain
// unit's alone, in an instantiation of its own, GUESSES: with the
// guess in the one wide instantiation, wide rows that did not guess took 1.02-1.04 of their
// time) that narrows within its blocks (its load staging holds the sample), exact, plain,
// without a hint, whose counts nobody asked for (docs/contract.md §3's counts are bisect's,
// whose steps these are not), with k at least m / CLUSTER_GUESS_K_PER (rtopk-plan's rule:
// below it the value phase's second count already narrows).
template <class Row>
__device__ __forceinline__ bool guesses(const Params& p) {
    return Row::NARROW_CAP != 0u && p.out_iter == nullptr && p.max_iter < 0 &&
           p.precision == 0.0f && !(p.recall > 0.0f) &&
           (u64)p.k * CLUSTER_GUESS_K_PER >= (u64)p.m && stages_loads();
}

// The lower end of leaf q (CLUSTER_GUESS_LEVELS levels) of the tree of midpoints of [lo, hi]:
// the walk down q's bits, as leaf_of's (a leaf holds the keys from its lower end's key up to
// the next's).
__device__ __forceinline__ float leaf_floor(u32 q, float lo, float hi) {
    float a = lo, b = hi;
#pragma unroll
    for (int d = CLUSTER_GUESS_LEVELS - 1; d >= 0; --d) {
        float mid = __fmul_rn(__fadd_rn(a, b), 0.5f);
        if ((q >> d) & 1u) a = mid; else b = mid;
    }
    return a;
}

// guess_bracket: two cluster rounds in place of the value phase's first steps. A sample — each
// thread's first slot inside the row, a BLOCK_EPL-th of it — counted into the
// 2^CLUSTER_GUESS_LEVELS leaves of the tree of midpoints of [s.lo, s.hi] (ballot_round); the
// leaves' sums from the top, scaled to the row, estimate the count at each leaf's lower end;
// the highest end whose estimate is at least 5/4 k and the lowest whose estimate is below 3/4 k
// are counted over the whole row in one round (cluster_sum_pair), and the bracket takes what
// the counts prove: a hit, a new hi (fewer than k), a new lo (at least k), narrowed at once
// where lo's count is at most the cap. A bad guess costs the two rounds, never the answer (the
// value phase goes on from a bracket that holds the k-th key). The round words are cleared
// (the simulator's clear_round_words) before the counts' cluster barrier, after which
// value_rounds' first round adds into them.
template <class Row>
__device__ void guess_bracket(const Row& row, Search& s, u32 k, u32 here, u32* smem) {
    constexpr u32 LEAVES = 1u << CLUSTER_GUESS_LEVELS;
    static_assert(LEAVES == 32u && CLUSTER_GUESS_LEVELS <= CLUSTER_WIDE_ROUND_LEVELS,
                  "a lane holds one leaf; the round's slots hold the leaves");
    u32 n = (here + BLOCK_EPL - 1u) / BLOCK_EPL;  // threads whose first slot lies in the row
    if (threadIdx.x < n) smem[threadIdx.x] = row.keys[0];
    __syncthreads();
    ClusterCands<Row::SKIPS_ROW, Row::WIDE_ROW> c{&row, smem, n, row.m, row.s_hist, row.s_clh,
                                                 row.s_hist + 6u * ROUND_SLOTS, 0u};
    u32 cur = ballot_round<CLUSTER_GUESS_LEVELS>(c, s.lo, s.hi);
    u32 lane = threadIdx.x & 31u;
    u32 leaf = c.s_clh[cur / 2u + lane / 2u] >> (16u * (lane & 1u)) & 0xffffu;
    u32 above = leaf;  // the sample's keys in leaves lane.. 31
#pragma unroll
    for (u32 d = 1u; d < 32u; d <<= 1) {
        u32 up = __shfl_down_sync(FULL_MASK, above, d);
        if (lane + d < 32u) above += up;
    }
    u32 total = __shfl_sync(FULL_MASK, above, 0);
    __syncthreads();  // every warp has read the round's words: clear them for value_rounds
    for (u32 i = threadIdx.x; i < 6u * ROUND_SLOTS; i += blockDim.x) row.s_hist[i] = 0u;
    // estimated count at leaf lane's lower end: above * m / total, against k's margins
    unsigned long long est = (unsigned long long)above * row.m * 4ull;
    unsigned long long kk = (unsigned long long)k * total;
    u32 enough = __ballot_sync(FULL_MASK, lane > 0u && est >= 5ull * kk);
    u32 few = __ballot_sync(FULL_MASK, lane > 0u && est < 3ull * kk);
    if (total == 0u || enough == 0u) return;  // cluster-uniform: no guess
    u32 q_lo = 31u - __clz(enough), q_hi = few ? __ffs(few) - 1u : 0u;
    float f_lo = leaf_floor(q_lo, s.lo, s.hi), f_hi = few ? leaf_floor(q_hi, s.lo, s.hi) : s.hi;
    u32 t_lo = number_key(f_lo), t_hi = few ? number_key(f_hi) : s.hi_key;
    if (!(s.lo_key < t_lo && t_lo < t_hi && t_hi <= s.hi_key)) return;
    u32 at_hi, at_lo;
    row.cluster_sum_pair(t_hi, t_lo, &at_hi, &at_lo);  // ge_last: t_lo's mask
    // as value_phase's steps: a hit keeps its count (cut_of's), a moved hi does not (the value
    // phase moves hi without its count, so cut_of counts at hi where the search ends without a
    // hit)
    if (few) {
        if (at_hi == k) {
            s.hi_key = t_hi; s.count_at_hi = at_hi; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
            return;
        }
        if (at_hi > k) { s.lo_key = t_hi; s.lo = f_hi; s.count_at_lo = at_hi; return; }
        s.hi_key = t_hi; s.hi = f_hi;
    }
    if (at_lo == k) {
        s.hi_key = t_lo; s.count_at_hi = at_lo; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
        return;
    }
    if (at_lo < k) { s.hi_key = t_lo; s.hi = f_lo; return; }
    s.lo_key = t_lo; s.lo = f_lo; s.count_at_lo = at_lo;
    if (at_lo <= Row::NARROW_CAP) s.exit = EXIT_NARROW;
}

// search_exact from a guessed bracket (guesses, guess_bracket): the value phase and the key
// phase go on from it unless it narrowed or hit.
template <class Row>
__device__ Search search_guessed(const Row& row, u32 lo_key, u32 hi_key, const Params& p,
                                 u32 here, u32* smem) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m,
                recall_slack(p, p.k)};
    if (lo_key == hi_key) return s;
    value_of_bracket(s, p);
    if (s.value == VALUE_PLAIN) guess_bracket(row, s, p.k, here, smem);
    if (s.exit == EXIT_CONVERGED) finish_exact(row, s, p.k);
    return s;
}

// A 16-bit cluster row's exact search by two histograms of its keys' bytes (block_rows.cu's
// histograms; docs/kernel.md, "16-bit rows", **16-bit rows by histograms**): each pass one
// cluster round in place of the value phase's ten to sixteen. HIST16_BINS words each in
// s_stage: the first pass's block and cluster histograms, then the second's (HIST16_WORDS,
// zeroed before the first cluster barrier).
#define HIST16_WORDS (4u * HIST16_BINS)
static_assert(HIST16_WORDS <= BLOCK_STAGE, "the histograms fit the selection's stage");

// One pass of histogram_search: the block's histogram of its part (block_byte_histogram), then
// thread j adds bin j % HIST16_BINS into block j / HIST16_BINS's s_clh; one cluster barrier.
template <bool FIRST, class Row>
__device__ void byte_histogram(const Row& row, u32 here, u32 high, u32* s_hist, u32* s_clh) {
    block_byte_histogram<FIRST>(row, here, high, s_hist);
    for (u32 j = threadIdx.x; j < HIST16_BINS * row.size; j += blockDim.x) {
        u32 v = s_hist[j % HIST16_BINS];
        if (v) cluster_red<CLUSTER_ADD>(s_clh, j % HIST16_BINS, j / HIST16_BINS, v);
    }
    cluster_sync();
}

// histogram_search: the exact search of a 16-bit cluster row (histograms) from its range.
template <class Row>
__device__ Search histogram_search(const Row& row, u32 lo_key, u32 hi_key, u32 k, u32 here,
                                   u32* s_stage) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m,
                -1};
    if (lo_key == hi_key) return s;
    u32 above, in_high, above_low, in_low;
    byte_histogram<true>(row, here, 0u, s_stage, s_stage + HIST16_BINS);
    u32 high = kth_bin(s_stage + HIST16_BINS, k, &above, &in_high);
    byte_histogram<false>(row, here, high, s_stage + 2u * HIST16_BINS, s_stage + 3u * HIST16_BINS);
    u32 low = kth_bin(s_stage + 3u * HIST16_BINS, k - above, &above_low, &in_low);
    bracket_of_bins(s, high << 8 | low, above + above_low, in_low);
    return s;
}

// Where a hinted row's search starts from a window about its hint (search_from_hint): an f32
// row of a ragged twin's _hinted entry point on a portable cluster (cluster_row_of compiles it
// there only) that narrows — within its blocks, or into block 0 on
// rtopk_cluster_rows_narrow_ragged_hinted — with a hint it takes (takes_hint: exact), whose
// counts nobody asked for (docs/contract.md §3's counts are bisect's, from its hint test and
// window tests) and that selects fewer keys than it holds (search_of ends a row of k_i = m_i
// at once).
template <class Row>
__device__ __forceinline__ bool guesses_from_hint(const Params& p, u32 m) {
    return Row::NARROW_CAP != 0u && takes_hint<true>(p) && p.out_iter == nullptr && p.k < m &&
           stages_loads();
}

// window_about: the window about the hint's ordered value h, [h - w, h + w] with w the window
// tests' first width (2^-HINT_WINDOW_SHIFT(0) of the bracket), where it lies strictly inside
// the bracket; a NaN, infinite or far hint has none.
__device__ __forceinline__ bool window_about(const Search& s, float h, float* f_lo, float* f_hi) {
    float scale = __int_as_float((127 - HINT_WINDOW_SHIFT(0)) << 23);  // exact
    float width = __fsub_rn(__fmul_rn(s.hi, scale), __fmul_rn(s.lo, scale));
    *f_lo = __fsub_rn(h, width);
    *f_hi = __fadd_rn(h, width);
    return s.lo < *f_lo && *f_lo < *f_hi && *f_hi < s.hi;
}

// guess_from_hint: one cluster round in place of the hint test and the first window test: the
// keys >= the window's two ends (window_about) counted together (cluster_sum_pair), and the
// bracket takes what the counts prove, as guess_bracket's do: a hit, the window itself
// (narrowed at once where lo's count is at most the cap), or the side of it that holds the
// k-th key — returned (HINT_ABOVE, HINT_BELOW; else HINT_ENDED) for the wider window tests.
template <class Row>
__device__ int guess_from_hint(const Row& row, Search& s, u32 k, float f_lo, float f_hi) {
    u32 t_lo = number_key(f_lo), t_hi = number_key(f_hi);
    if (!(s.lo_key < t_lo && t_lo < t_hi && t_hi <= s.hi_key)) return HINT_ENDED;
    u32 at_hi, at_lo;
    row.cluster_sum_pair(t_hi, t_lo, &at_hi, &at_lo);  // ge_last: t_lo's mask
    if (at_hi == k) {
        s.hi_key = t_hi; s.count_at_hi = at_hi; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
        return HINT_ENDED;
    }
    // ge_last is t_lo's mask: a lo moved to t_hi narrows on a later count
    if (at_hi > k) { s.lo_key = t_hi; s.lo = f_hi; s.count_at_lo = at_hi; return HINT_ABOVE; }
    if (at_lo == k) {
        s.hi_key = t_lo; s.count_at_hi = at_lo; s.has_count_at_hi = 1; s.exit = EXIT_HIT;
        return HINT_ENDED;
    }
    if (at_lo < k) { s.hi_key = t_lo; s.hi = f_lo; return HINT_BELOW; }
    s.hi_key = t_hi; s.hi = f_hi;
    s.lo_key = t_lo; s.lo = f_lo; s.count_at_lo = at_lo;
    if (at_lo <= Row::NARROW_CAP) s.exit = EXIT_NARROW;
    return HINT_ENDED;
}

// search_exact from the hint's window (guesses_from_hint, guess_from_hint): where the k-th key
// lies outside the window, the window tests from its side, as search_hinted's after its hint
// test (a hint further off than the window costs one round more than there, never the
// answer); then the value phase and the key phase from the bracket left, unless it narrowed or
// hit. A row whose window does not lie inside its range takes search_hinted.
template <class Row>
__device__ Search search_from_hint(const Row& row, u32 lo_key, u32 hi_key, const Params& p,
                                   float hint) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m, -1};
    float f_lo, f_hi;
    if (lo_key != hi_key) value_of_bracket(s, p);
    if (s.value != VALUE_PLAIN || !window_about(s, __fmul_rn(hint, p.sign), &f_lo, &f_hi))
        return search_hinted(row, lo_key, hi_key, p, hint);
    int side = guess_from_hint(row, s, p.k, f_lo, f_hi);
    if (side != HINT_ENDED) {
        if (window_tests(row, s, side, p.k)) return s;
        if (s.lo_key == s.hi_key) return s;
        value_of_bracket(s, p);
        s.has_count_at_hi = 0;  // the value phase moves hi without its count
    }
    if (s.exit == EXIT_CONVERGED) finish_exact(row, s, p.k);
    return s;
}

// A narrowed cluster row: its candidates gathered into block 0, whose first warp goes on alone
// as a narrowed block row's does (take_candidates, finish_candidates: a count is at most 32
// slots of one warp, with neither a block nor a cluster barrier); the other warps and blocks
// are done.
template <bool SKIPS>
__device__ void finish_cluster_candidates(const ClusterRow<SKIPS, true>& row, Search& s,
                                          const Params& p, u32 first, u32* cand, u32* s_chunk,
                                          const elem_t* row_in, elem_t* out_val, idx_t* out_idx,
                                          u64 row_id) {
    gather_candidates(row, first, cand, s_chunk);
    if (row.rank != 0u || threadIdx.x >= 32u) return;
    auto narrowed = take_candidates<CLUSTER_CAND_KEYS>(cand, s.count_at_lo, p.m);
    finish_candidates(narrowed, s, p, cand, row_in, out_val, out_idx, row_id);
}

// A cluster row's shared memory (rtopk_cluster_row declares it once, for both of its
// instantiations): the f32 load staging, where given (smem, dynamic), block_sum's partials,
// block_prefix's chunk (its second half the cluster slots), the selection's staged indices.
struct ClusterShared {
    u32 *smem, *s_partial, *s_chunk, *s_stage;
};

// The elements each block of a ragged row's cluster holds: the row's own width spread evenly
// over the blocks in whole threads' slots (BLOCK_EPL, a multiple of every 16-byte group, so each
// part starts aligned), where a plain row fills each block in turn: a row much shorter than its
// cluster would leave all its candidates and results to its first block.
__device__ __forceinline__ u32 ragged_span(u32 m, u32 size) {
    u32 per = (m + size - 1u) / size;
    return min(BLOCK_EPL * blockDim.x, (per + BLOCK_EPL - 1u) / BLOCK_EPL * BLOCK_EPL);
}

// A row over a cluster of blockDim.x-thread blocks (the plan's cluster, the row in their
// registers, M <= size * SPAN): RAGGED, a ragged row (its own arguments p, row_args); HINTED,
// the _hinted entry point's, its search starting at its hint where the launch gives hints;
// aligned, 16-byte loads; NARROWS, rtopk_cluster_rows_narrow's; WIDE, a wide cluster's
// (ClusterRow); GUESSES, a wide cluster's row that starts from a guessed bracket (guesses).
template <bool RAGGED, bool NARROWS, bool WIDE, bool HINTED, bool GUESSES = false>
__device__ void cluster_row_of(const Params& p, RowPlace at, bool aligned, const ClusterShared& sh) {
    u32 *smem = sh.smem, *s_partial = sh.s_partial, *s_chunk = sh.s_chunk, *s_stage = sh.s_stage;
    u32* s_cluster = s_chunk + 32;
    static_assert(CLUSTER_WORDS <= 32u, "the cluster slots fit s_chunk's second half");
    u32 rank = cluster_ctarank(), size = cluster_nctarank();
    u64 row_id = blockIdx.x / size;
    const elem_t* row_in = at.in;
    float hint = hint_of<HINTED>(p, row_id);
    u32 span = RAGGED ? ragged_span(p.m, size) : BLOCK_EPL * blockDim.x, start = rank * span;
    u32 here = p.m > start ? min(p.m - start, span) : 0u;  // this block's elements
    // RAGGED: the ragged twin, whose blocks skip past its end
    ClusterRow<RAGGED, NARROWS, WIDE> row;
    row.row = row_in; row.s_keys = smem; row.s_partial = s_partial; row.half = 0u;
    row.m = p.m; row.in_regs = here; row.cached = 0u; row.sign = p.sign;
    row.s_cluster = s_cluster; row.rank = rank; row.size = size; row.round = 0u;
    // value_rounds' words: the start of the selection's stage, unused until the search ends;
    // the leaf counts zeroed before the first cluster barrier
    row.s_hist = s_stage; row.s_clh = s_stage + 3u * ROUND_SLOTS;
    // (histogram_search's words on a 16-bit row)
    constexpr u32 ZEROED = ELEM_PACKED16 ? HIST16_WORDS : 6u * ROUND_SLOTS;
    for (u32 i = threadIdx.x; i < ZEROED; i += blockDim.x) s_stage[i] = 0u;
    // the slots' initial values, seen by every block after the first cluster barrier
    if (threadIdx.x < CLUSTER_WORDS) {
        u32 w = threadIdx.x;
        s_cluster[w] = w == CLUSTER_MIN ? 0xffffffffu : 0u;
    }
    // stage 1: load_row — this block's elements, as a block row of `here` loads its own
    Params part = p;
    part.m = here;
    u32 lane_min = 0xffffffffu, lane_max = 0u;
    load_block_slots(row, row_in + start, part, BLOCK_EPL * threadIdx.x, aligned, smem, &lane_min,
                     &lane_max);
    cluster_sync();  // every block started, its slots set
    u32 lo_key, hi_key;
    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);
    // stage 2: search_threshold, the cluster's counts; the plain searches (histograms, a
    // guessed bracket) take a ragged row too (plain_search)
    Search s;
    bool plain = plain_search<RAGGED, HINTED>(p);
    if constexpr (ELEM_PACKED16 && !HINTED) {
        s = plain && histograms(p)
                ? histogram_search(row, lo_key, hi_key, p.k, here, s_stage)
                : search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint);
    } else if constexpr (!NARROWS && !HINTED && (!WIDE || GUESSES)) {
        s = plain && guesses<ClusterRow<RAGGED, NARROWS, WIDE>>(p)
                ? search_guessed(row, lo_key, hi_key, p, here, smem)
                : search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint);
    } else if constexpr (HINTED && !WIDE) {
        s = guesses_from_hint<ClusterRow<RAGGED, NARROWS, WIDE>>(p, row.m)
                ? search_from_hint(row, lo_key, hi_key, p, hint)
                : search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint);
    } else {
        s = search_of<RAGGED, HINTED>(row, lo_key, hi_key, p, hint);
    }
    u32 first = start + BLOCK_EPL * threadIdx.x;
    elem_t* row_val = opaque(p.out_val + at.out);
    idx_t* row_idx = opaque(p.out_idx + at.out);
    if constexpr (NARROWS) {
        if (s.exit == EXIT_NARROW) {  // cluster-uniform
            finish_cluster_candidates(row, s, p, first, smem, s_chunk, row_in, row_val, row_idx,
                                      row_id);
            return;
        }
    } else if constexpr (ClusterRow<RAGGED, NARROWS, WIDE>::NARROW_CAP != 0u) {
        // cluster-uniform; the staging holds the block's whole part (stages_loads), else the
        // search goes on over the registers
        while (s.exit == EXIT_NARROW) {
            if (stages_loads()) finish_local(local_candidates(row, smem, s_chunk), s, p.k);
            else finish_exact(row, s, p.k);
        }
    }
    // stage 3: select_topk — this block's elements in index order after the blocks before it
    Cut c = cut_of(row, s, p.k);
    u32 band_left = p.k - c.strong_count;
    u32 strong[1], band[1], before, total;
    u32 own = classify<BLOCK_EPL>(row, first, p.m, c, strong, band);
    block_prefix(own, s_chunk, &before, &total);
    u32 strong_before, band_before;
    cluster_before(row, total & 0xffffu, total >> 16, &strong_before, &band_before);
    u32 base = strong_before + min(band_before, band_left);
    u32 band_here = band_left > band_before ? band_left - band_before : 0u;
    u32 written = (total & 0xffffu) + min(total >> 16, band_here);
    written = min(written, p.k > base ? p.k - base : 0u);
    u32 take[1];
    u32 pos = taken(strong, band, before, band_here, take);
    elem_t* out_val = row_val + base;
    idx_t* out_idx = row_idx + base;
    emit_staged(take, pos, written, first, s_stage, BLOCK_STAGE, threadIdx.x, blockDim.x,
                []() { __syncthreads(); }, row_in, out_val, out_idx);
    if (rank == 0u && threadIdx.x == 0u && p.out_iter) p.out_iter[row_id] = s.iterations;
}

// A row over a cluster (cluster_row_of): an f32 row of rtopk_cluster_rows on a wide cluster as
// WIDE (cluster-uniform), in an instantiation of its own where it guesses (GUESSES); every
// other as a portable cluster's.
template <bool RAGGED, bool NARROWS, bool HINTED = false>
__device__ void rtopk_cluster_row(const Params& p, RowPlace at, bool aligned) {
    extern __shared__ __align__(16) u32 smem[];  // the f32 load staging, where given
    __shared__ u32 s_partial[128];
    __shared__ u32 s_chunk[2 * 32];  // block_prefix's first half; the cluster slots the second
    __shared__ u32 s_stage[BLOCK_STAGE];  // the selection's staged indices
    // the block row's static shared memory, no more (BLOCK_STATIC_SHARED, the plan's bound)
    const ClusterShared sh{smem, s_partial, s_chunk, s_stage};
    if constexpr (!NARROWS && ELEM_KIND == ELEM_F32) {
        if (cluster_nctarank() >= WIDE_CLUSTER) {
            if constexpr (!RAGGED) {
                if (guesses<ClusterRow<false, false, true>>(p)) {
                    cluster_row_of<false, false, true, HINTED, true>(p, at, aligned, sh);
                    return;
                }
            }
            cluster_row_of<RAGGED, NARROWS, true, HINTED>(p, at, aligned, sh);
            return;
        }
    }
    cluster_row_of<RAGGED, NARROWS, false, HINTED>(p, at, aligned, sh);
}

// A plain launch's row: aligned where the launch says (p.vec4).
template <bool NARROWS>
__device__ void rtopk_cluster_row(const Params& p) {
    rtopk_cluster_row<false, NARROWS>(p, place_row(p, blockIdx.x / cluster_nctarank()), p.vec4 != 0);
}

// A ragged row (docs/contract.md §5) over a cluster, as rtopk_block_row_ragged over a block:
// its own width and k, read once by every block of the cluster (row_args; cluster-uniform),
// its padding written by the cluster's threads together, then the row as any other (a block
// whose part lies past the row's end holds nothing; ragged_span). The launch's 16-byte
// alignment holds for every block's part whatever the row's width: each part starts at a
// multiple of BLOCK_EPL, and the staged load cuts the last group.
template <bool NARROWS, bool HINTED = false>
__device__ void rtopk_cluster_row_ragged(const Params& launch) {
    u32 rank = cluster_ctarank(), size = cluster_nctarank();
    u64 row_id = blockIdx.x / size;
    RowPlace at;
    const Params p = row_args(launch, row_id, &at);
    // a ragged split's second stage pads like a whole row (its chunks never take a cluster)
    if (p.k < launch.k && launch.chunks == 1u)
        pad_results(p.out_val, p.out_idx, at.out, p.k, launch.k, rank * blockDim.x + threadIdx.x,
                    size * blockDim.x);
    if (p.k == 0u) {  // cluster-uniform: no block reaches a cluster barrier
        if (rank == 0u && threadIdx.x == 0u && p.out_iter) p.out_iter[row_id] = 0u;
        return;
    }
    rtopk_cluster_row<true, NARROWS, HINTED>(p, at, launch.vec4 != 0);
}
