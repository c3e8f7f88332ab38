// Radix rows (docs/kernel.md, "Radix rows"; warp-sim's radix.rs, the same steps and names):
// the exact top k of rows whose k runs into the thousands, where a split's chunks would each
// hand on k candidates. AIR Top-K's radix passes (paper 002, §3.1): the row's k-th own key T is
// found digit by digit, RADIX_DIGIT_BITS bits a pass from the top, each pass a histogram of the
// digit over the keys whose higher digits are those found so far; then every key above T and
// the first ties at T, by index, are written in index order — docs/contract.md §1's canonical
// top k, the order and tie rule of every other path (own_key, order.cuh).
//
// A row is cut into blocks_per_row parts of `slice` elements, one block each (the grid is
// n_rows * blocks_per_row blocks). Each row owns radix_ld words of the `radix` buffer (zeroed
// before the first step): its histogram (RADIX_BINS), the prefix found so far, the k left to
// find under it, the blocks done with the pass, the blocks whose candidates did not fit,
// whether the second pass keeps them, then each block's two counts, each warp's, and each
// block's candidates kept. The second pass keeps the row's candidates, as AIR Top-K's passes
// filter theirs (paper 002, §3.2): each block the keys of its part whose first digit is the
// k-th key's or above, with their indices, in its own 2 * capacity words of `cand` (keys, then
// indices) where they fit, if the first pass found them few (choose_digit); while every
// block's fit, the passes after it, the count and the write read those instead of the row, so
// a row is read twice. Where a sample ran first (rows of long parts), the first pass keeps the
// keys of the sample's floor digit or above instead, and where the k-th key's first digit is
// at or above that floor and every block's fit, the row is read once.
//   rtopk_radix_sample   every RADIX_SAMPLE_EVERY-th tile of the row (sample_digits): its
//                        histogram of the first digit added to the row's; the last block
//                        chooses the floor digit (choose_floor)
//   rtopk_radix_digits   one pass: each block's histogram of its part (count_digits; on the
//                        first pass after a sample, or the second without one, keep_digits,
//                        which also keeps the candidates; later, count_listed over the
//                        candidates) added to the row's
//                        (add_histogram); the last block of the row to finish (CUDA
//                        Programming Guide, "Memory Fence Functions": the fence before the
//                        ticket) chooses the digit (choose_digit) and clears the histogram
//   rtopk_radix_count    each warp's keys above T and at T in its range of its block's part
//                        (count_part), and the block's; or the same from the candidates
//                        (count_candidates)
//   rtopk_radix_write    the block's results from its candidates where they are few
//                        (write_listed), else each warp's at the place the counts before it
//                        give (write_part): keys above T, and ties while the row takes them
// Rows of their own length and k (docs/contract.md §5; lengths, k_per_row: null on a plain
// launch) run each entry point's ragged twin (rtopk_radix_*_ragged: the same steps, RAGGED
// true) over their own m_i and k_i (radix_row): each row's length is
// spread over all its blocks (and the parts past it empty), a row of k_i = 0 runs no step
// but the write, and the write pads each row's slots from k_i to the width k (pad_radix_row).

#include "order.cuh"

#define RADIX_BINS (1u << RADIX_DIGIT_BITS)
#define RADIX_WARPS (RADIX_THREADS / 32u)
#define RADIX_TILE (RADIX_THREADS * RADIX_ITEMS)
// The own keys' width: 16 bits for f16 and bf16 (key16_of_ordered), else 32.
#define RADIX_KEY_BITS (ELEM_PACKED16 ? 16u : 32u)
// A row's words past its histogram.
#define RADIX_PREFIX RADIX_BINS
#define RADIX_LEFT (RADIX_BINS + 1u)
#define RADIX_DONE (RADIX_BINS + 2u)
#define RADIX_OVER (RADIX_BINS + 3u)
#define RADIX_KEEPS (RADIX_BINS + 4u)
#define RADIX_FLOOR (RADIX_BINS + 5u)
#define RADIX_COUNTS (RADIX_BINS + 6u)
// RADIX_KEEPS: the second pass keeps the candidates (1), or the first kept them (2).
#define RADIX_KEEP_SECOND 1u
#define RADIX_KEPT_FIRST 2u
// Where the first digit starts in the own key.
#define RADIX_FIRST_SHIFT (RADIX_KEY_BITS - RADIX_DIGIT_BITS)
// Where a row's counts lie: each block's two (above T, at T), then each warp's two.
#define RADIX_BLOCK_COUNTS(b) (RADIX_COUNTS + 2u * (b))
#define RADIX_WARP_COUNTS(blocks, b, w) (RADIX_COUNTS + 2u * (blocks) + 2u * ((b) * RADIX_WARPS + (w)))
// How many candidates block b's part has (kept where no more than capacity).
#define RADIX_KEPT(blocks, b) (RADIX_COUNTS + 2u * (blocks) * (1u + RADIX_WARPS) + (b))

// The arguments of every radix entry point (src/launch.rs's RadixParams): the pass's digit is
// bits [shift, shift + bits) of the own key.
#define RADIX_ARGS                                                                                   \
    const elem_t *x, elem_t *out_val, idx_t *out_idx, u32 *radix, u32 *cand, u64 n_rows, u64 ld, u32 m, \
        u32 k, u32 slice, u32 blocks_per_row, u32 shift, u32 bits, float sign, u32 radix_ld, u32 capacity, \
        const u32 *lengths, const u32 *k_per_row

// RADIX_ARGS's names, passed on.
#define RADIX_PASS                                                                                  \
    x, out_val, out_idx, radix, cand, n_rows, ld, m, k, slice, blocks_per_row, shift, bits, sign, radix_ld, \
        capacity, lengths, k_per_row

// The block's part of its row: row, part b, elements [start, end).
struct RadixPart {
    u64 row;
    u32 b, start, end;
};

// A row's own width and k (row_lengths: the launch's m and k where lengths and k_per_row
// are null; the outputs' width is the launch's k), and its parts' width: a row of its own
// length spreads it over all its blocks, in parts of ceil(m_i / blocks_per_row) elements
// rounded up to whole 16-byte groups, so that its passes take as long as its own parts, not
// the launch's (the budgets of what the passes keep stay the launch's: choose_floor,
// choose_digit).
struct RadixRow {
    u32 m, k, slice;
};

// The plain entry points (RAGGED false) take the launch's own, as before: their code is the
// one they had without per-row arrays (a row's own values in registers cost every plain row,
// 3-7 % on short rows: docs/kernel.md, "Radix rows").
template <bool RAGGED>
__device__ __forceinline__ RadixRow radix_row(u64 row, u32 m, u32 k, u32 slice, u32 blocks_per_row,
                                              const u32* lengths, const u32* k_per_row) {
    RadixRow r = {m, k, slice};
    if constexpr (RAGGED) {
        row_lengths(lengths, k_per_row, row, &r.m, &r.k);
        u64 group = (u64)blocks_per_row * (16u / (u32)sizeof(elem_t));
        if (lengths) r.slice = (u32)min((u64)slice, (r.m + group - 1u) / group * (16u / (u32)sizeof(elem_t)));
    }
    return r;
}

// The part's start is below the launch's m (the plan's blocks_per_row = ceil(m / slice), and a
// row's own parts are no wider); a ragged row's own m may end before it: the part is then
// empty (end = start).
template <bool RAGGED>
__device__ __forceinline__ RadixPart radix_part(u32 m, u32 slice, u32 blocks_per_row) {
    RadixPart p;
    p.row = blockIdx.x / blocks_per_row;
    p.b = blockIdx.x % blocks_per_row;
    p.start = p.b * slice;
    p.end = (u32)min((u64)p.start + slice, (u64)(RAGGED ? max(m, p.start) : m));
    return p;
}

// Whether key's digits from bit hi up are the prefix's (every key on the first pass). A key
// has no digits from RADIX_KEY_BITS up: tested against 32, a 16-bit row's first pass compared
// every key with the prefix and branched around each count, in 2.4 times an f32 pass's
// instructions (docs/performance.md, "The sampled tier in f16 and bf16").
__device__ __forceinline__ bool above_matches(u32 key, u32 prefix, u32 hi) {
    return hi >= RADIX_KEY_BITS || ((key ^ prefix) >> hi) == 0u;
}

// radix_exclusive_sum: the sum of v over the block's threads before this one, and (total) over
// all, from one barrier: sums is RADIX_WARPS words that no thread reads or writes until every
// thread has passed the next barrier (callers alternate two).
__device__ __forceinline__ u32 radix_exclusive_sum(u32 v, u32* sums, u32* total) {
    u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    u32 inclusive = v;
#pragma unroll
    for (u32 d = 1u; d < 32u; d <<= 1) {
        u32 other = __shfl_up_sync(FULL_MASK, inclusive, d);
        if (lane >= d) inclusive += other;
    }
    if (lane == 31u) sums[warp] = inclusive;
    __syncthreads();
    u32 before = 0u, all = 0u;
    for (u32 w = 0u; w < RADIX_WARPS; ++w) {
        u32 s = sums[w];
        before += w < warp ? s : 0u;
        all += s;
    }
    *total = all;
    return before + inclusive - v;
}

// radix_sum: v summed over the block (every thread gets it).
__device__ __forceinline__ u32 radix_sum(u32 v, u32* sums) {
    u32 total;
    radix_exclusive_sum(v, sums, &total);
    __syncthreads();
    return total;
}

// The elements of one 16-byte load: 4 f32, 8 f16 or bf16.
#define RADIX_GROUP (16u / (u32)sizeof(elem_t))

// Where the part's whole tiles end (count_groups's and keep_groups's `whole`).
__device__ __forceinline__ u64 whole_tiles(RadixPart part) {
    return part.start + (u64)(part.end - part.start) / RADIX_TILE * RADIX_TILE;
}

// load_groups: one tile's 16-byte loads from `tile`, each thread RADIX_ITEMS / RADIX_GROUP
// groups of RADIX_GROUP consecutive elements (group j at tile + (j RADIX_THREADS + thread)
// RADIX_GROUP).
__device__ __forceinline__ void load_groups(const elem_t* row, u64 tile, uint4 (&g)[RADIX_ITEMS / RADIX_GROUP]) {
#pragma unroll
    for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j)
        g[j] = *reinterpret_cast<const uint4*>(row + tile + (u64)(j * RADIX_THREADS + threadIdx.x) * RADIX_GROUP);
}

// Whether the part starts 16 bytes aligned (its row's start decides: parts start at whole
// tiles), so that count_groups / keep_groups read its whole tiles.
__device__ __forceinline__ bool starts_aligned(const elem_t* row, RadixPart part) {
    return (reinterpret_cast<unsigned long long>(row + part.start) & 15ull) == 0ull;
}

// count_groups: count_digits over the part's whole tiles by 16-byte loads, each thread
// RADIX_ITEMS / RADIX_GROUP groups of RADIX_GROUP consecutive elements a tile (the part starts
// 16 bytes aligned: the caller checked); returns where the whole tiles end.
__device__ __forceinline__ u64 count_groups(const elem_t* row, RadixPart part, u32 prefix, u32 shift, u32 bits,
                                            float sign, u32* hist) {
    u32 hi = shift + bits, mask = (1u << bits) - 1u;
    u64 whole = whole_tiles(part);
    for (u64 tile = part.start; tile < whole; tile += RADIX_TILE) {
        uint4 g[RADIX_ITEMS / RADIX_GROUP];
        load_groups(row, tile, g);
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j) {
            const elem_t* e = reinterpret_cast<const elem_t*>(&g[j]);
#pragma unroll
            for (u32 q = 0u; q < RADIX_GROUP; ++q) {
                u32 key = own_key(e[q], sign);
                if (above_matches(key, prefix, hi)) atomicAdd(&hist[(key >> shift) & mask], 1u);
            }
        }
    }
    return whole;
}

// count_digits: the block's histogram (hist, shared) of the pass's digit over its part's keys
// whose higher digits are the prefix; RADIX_ITEMS loads a thread in flight before any count.
// A part that starts 16 bytes aligned (parts start at whole tiles: its row's start decides)
// reads its whole tiles by 16-byte loads (count_groups: a pass over a long f32 row 0.35 → 0.25
// ms, docs/kernel.md, "Radix rows"), the rest one element at a time.
__device__ __forceinline__ void count_digits(const elem_t* row, RadixPart part, u32 prefix, u32 shift,
                                             u32 bits, float sign, u32* hist) {
    u32 hi = shift + bits, mask = (1u << bits) - 1u;
    u64 start = part.start;
    if (starts_aligned(row, part)) start = count_groups(row, part, prefix, shift, bits, sign, hist);
    for (u64 base = start + threadIdx.x; base < part.end; base += RADIX_TILE) {
        elem_t v[RADIX_ITEMS];
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + (u64)j * RADIX_THREADS;
            if (i < part.end) v[j] = row[i];
        }
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + (u64)j * RADIX_THREADS;
            if (i >= part.end) continue;
            u32 key = own_key(v[j], sign);
            if (above_matches(key, prefix, hi)) atomicAdd(&hist[(key >> shift) & mask], 1u);
        }
    }
}

// Which digit pass a step is: the first (over every key), the second (keep_digits) or a later
// one (count_listed while every block's candidates fit).
#define RADIX_FIRST 0u
#define RADIX_KEEP 1u
#define RADIX_LATER 2u
__device__ __forceinline__ u32 radix_pass(u32 shift, u32 bits) {
    u32 hi = shift + bits;
    return hi == RADIX_KEY_BITS ? RADIX_FIRST : hi + RADIX_DIGIT_BITS == RADIX_KEY_BITS ? RADIX_KEEP : RADIX_LATER;
}

// The elements of a warp's range (warp_range): a part cut into RADIX_WARPS ranges.
__device__ __forceinline__ u32 radix_span(u32 slice) { return (slice + RADIX_WARPS - 1u) / RADIX_WARPS; }

// A block's candidates: `count` keys of its part (all kept where no more than capacity), their
// indices at the same place `capacity` words on.
struct RadixList {
    u32 *keys, *idx;
    u32 count;
};

__device__ __forceinline__ RadixList radix_list(u32* cand, RadixPart part, u32 blocks_per_row, u32 capacity,
                                                u32 count) {
    u32* keys = cand + (part.row * blocks_per_row + part.b) * 2u * (u64)capacity;
    return {keys, keys + capacity, count};
}

// keep_key: count_digits's count of one key on a pass that keeps, and whether it keeps it: its
// first digit is `from` or above — on the second pass the prefix's (every key at or above T:
// the write's too), on the first the sample's floor (at or below T's first digit in all but
// contrived rows: where it is not, the second pass keeps them again).
__device__ __forceinline__ bool keep_key(u32 key, u32 prefix, u32 shift, u32 bits, u32 from, u32* hist) {
    if (above_matches(key, prefix, shift + bits)) atomicAdd(&hist[(key >> shift) & ((1u << bits) - 1u)], 1u);
    return key >> RADIX_FIRST_SHIFT >= from;
}

// keep_place: the first of the thread's n places in the block's candidates: its warp's by one
// shared atomic on the block's count (*kept), its own after its warp's lanes before it. The
// whole warp calls it; the list's order is no one's concern (the count and the write order
// candidates by index themselves).
__device__ __forceinline__ u32 keep_place(u32 n, u32* kept) {
    u32 lane = threadIdx.x & 31u, inclusive = n;
#pragma unroll
    for (u32 d = 1u; d < 32u; d <<= 1) {
        u32 other = __shfl_up_sync(FULL_MASK, inclusive, d);
        if (lane >= d) inclusive += other;
    }
    u32 first = 0u;
    if (lane == 31u) first = atomicAdd(kept, inclusive);
    return __shfl_sync(FULL_MASK, first, 31u) + inclusive - n;
}

// keep_groups: keep_digits over the part's whole tiles by 16-byte loads (count_groups's
// layout; the part starts 16 bytes aligned: the caller checked); returns where they end.
__device__ __forceinline__ u64 keep_groups(const elem_t* row, RadixPart part, u32 prefix, u32 shift, u32 bits,
                                           u32 from, float sign, u32* hist, u32* kept, RadixList list,
                                           u32 capacity) {
    u64 whole = whole_tiles(part);
    for (u64 tile = part.start; tile < whole; tile += RADIX_TILE) {
        uint4 g[RADIX_ITEMS / RADIX_GROUP];
        load_groups(row, tile, g);
        u32 mine = 0u;  // bit j * RADIX_GROUP + q: element q of group j kept
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j) {
            const elem_t* e = reinterpret_cast<const elem_t*>(&g[j]);
#pragma unroll
            for (u32 q = 0u; q < RADIX_GROUP; ++q)
                mine |= (u32)keep_key(own_key(e[q], sign), prefix, shift, bits, from, hist) << (j * RADIX_GROUP + q);
        }
        if (!__any_sync(FULL_MASK, mine != 0u)) continue;
        u32 place = keep_place(__popc(mine), kept);
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS / RADIX_GROUP; ++j) {
            const elem_t* e = reinterpret_cast<const elem_t*>(&g[j]);
#pragma unroll
            for (u32 q = 0u; q < RADIX_GROUP; ++q) {
                if (!((mine >> (j * RADIX_GROUP + q)) & 1u)) continue;
                if (place < capacity) {
                    list.keys[place] = own_key(e[q], sign);
                    list.idx[place] = (u32)(tile + (u64)(j * RADIX_THREADS + threadIdx.x) * RADIX_GROUP + q);
                }
                ++place;
            }
        }
    }
    return whole;
}

// keep_digits: count_digits, which also keeps the keys whose first digit is `from` or above
// (keep_key: on the second pass every key that can still be the k-th, and every key above it)
// in the block's candidates where they fit; those past capacity are counted, not kept. A
// window that keeps none (most) costs one vote. Whole tiles by 16-byte loads where the part
// starts aligned (keep_groups), the rest one element at a time; that loop runs whole warps
// (for the votes): `first` is the warp's lane 0's element.
__device__ __forceinline__ void keep_digits(const elem_t* row, RadixPart part, u32 prefix, u32 shift, u32 bits,
                                            u32 from, float sign, u32* hist, u32* kept, RadixList list,
                                            u32 capacity) {
    u64 start = part.start;
    if (starts_aligned(row, part))
        start = keep_groups(row, part, prefix, shift, bits, from, sign, hist, kept, list, capacity);
    for (u64 first = start + (threadIdx.x & ~31u); first < part.end; first += RADIX_TILE) {
        u64 base = first + (threadIdx.x & 31u);
        elem_t v[RADIX_ITEMS];
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + (u64)j * RADIX_THREADS;
            if (i < part.end) v[j] = row[i];
        }
        u32 mine = 0u;  // bit j: element j kept
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + (u64)j * RADIX_THREADS;
            if (i < part.end && keep_key(own_key(v[j], sign), prefix, shift, bits, from, hist)) mine |= 1u << j;
        }
        if (!__any_sync(FULL_MASK, mine != 0u)) continue;
        u32 place = keep_place(__popc(mine), kept);
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            if (!((mine >> j) & 1u)) continue;
            if (place < capacity) {
                list.keys[place] = own_key(v[j], sign);
                list.idx[place] = (u32)(base + (u64)j * RADIX_THREADS);  // < m < 2^32
            }
            ++place;
        }
    }
}

// count_listed: count_digits over the block's candidates.
__device__ __forceinline__ void count_listed(RadixList list, u32 prefix, u32 shift, u32 bits, u32* hist) {
    u32 hi = shift + bits, mask = (1u << bits) - 1u;
    for (u32 i = threadIdx.x; i < list.count; i += RADIX_THREADS) {
        u32 key = list.keys[i];
        if (above_matches(key, prefix, hi)) atomicAdd(&hist[(key >> shift) & mask], 1u);
    }
}

// add_histogram: the block's non-zero bins added to the row's.
__device__ __forceinline__ void add_histogram(u32* words, const u32* hist) {
    for (u32 bin = threadIdx.x; bin < RADIX_BINS; bin += RADIX_THREADS)
        if (hist[bin] != 0u) atomicAdd(&words[bin], hist[bin]);
}

// read_bins: by a row's last block, every block's counts in: thread t's bins of the row's
// histogram from the top down (c[j] is bin RADIX_BINS - 1 - (t * per + j)), and the keys of
// the bins above them (an exclusive sum over the block; *total: the keys of every bin).
// __ldcg: the other blocks' atomics are in L2, not in this SM's L1.
__device__ __forceinline__ u32 read_bins(const u32* words, u32 (&c)[RADIX_BINS / RADIX_THREADS], u32* sums,
                                         u32* total) {
    const u32 per = RADIX_BINS / RADIX_THREADS;
    u32 mine = 0u;
#pragma unroll
    for (u32 j = 0u; j < per; ++j) {
        c[j] = __ldcg(&words[RADIX_BINS - 1u - (threadIdx.x * per + j)]);
        mine += c[j];
    }
    return radix_exclusive_sum(mine, sums, total);
}

// choose_digit: by the row's last block of the pass, every block's counts in. The digit of the
// row's k-th key is the greatest d whose bins d and above hold at least `left` keys (k on the
// first pass); the prefix gains d and `left` loses the keys of the bins above d (read_bins).
// The histogram (its non-zero bins: the rest are zero) and the ticket are cleared for the next
// pass. On the first pass the digit's bin and the bins above it are the row's candidates.
// Where the first pass kept
// the keys of the sample's floor digit or above (RADIX_FLOOR: one more than it), the digit is
// at or above the floor and no block overflowed (RADIX_OVER), those are kept already
// (RADIX_KEPT_FIRST); else the second pass keeps them (RADIX_KEEP_SECOND) only where they are
// at most m / RADIX_KEEP_SHARE (AIR Top-K's adaptive buffer, paper 002, §3.2: keeping many
// costs more than reading the row again; m the launch's width, so that a ragged row keeps as
// many as a full one would), and counts its own overflows from zero.
__device__ __forceinline__ void choose_digit(u32* words, u32 shift, u32 bits, u32 k, u32 m, u32* sums) {
    const u32 per = RADIX_BINS / RADIX_THREADS;
    bool first = shift + bits == RADIX_KEY_BITS;
    u32 left = first ? k : __ldcg(&words[RADIX_LEFT]);
    u32 prefix = first ? 0u : __ldcg(&words[RADIX_PREFIX]);
    // read before the barrier of read_bins's sum, which orders them before the write of the
    // one thread that finds the digit
    u32 floor = first ? __ldcg(&words[RADIX_FLOOR]) : 0u;
    u32 over = first ? __ldcg(&words[RADIX_OVER]) : 0u;
    u32 c[RADIX_BINS / RADIX_THREADS], total;
    u32 above = read_bins(words, c, sums, &total);
#pragma unroll
    for (u32 j = 0u; j < per; ++j) {
        u32 bin = RADIX_BINS - 1u - (threadIdx.x * per + j);
        if (above < left && above + c[j] >= left) {
            words[RADIX_PREFIX] = prefix | (bin << shift);
            words[RADIX_LEFT] = left - above;
            bool kept = floor != 0u && bin + 1u >= floor && over == 0u;
            if (first && kept) words[RADIX_KEEPS] = RADIX_KEPT_FIRST;
            if (first && !kept) {
                words[RADIX_KEEPS] = above + c[j] <= m / RADIX_KEEP_SHARE ? RADIX_KEEP_SECOND : 0u;
                words[RADIX_OVER] = 0u;
            }
        }
        above += c[j];
        if (c[j] != 0u) words[bin] = 0u;
    }
    if (threadIdx.x == 0u) words[RADIX_DONE] = 0u;
}

// keep_counts: the candidates a keeping pass found in the block's part (kept where no more
// than capacity), and whether they overflowed (the row's count of blocks that did).
__device__ __forceinline__ void keep_counts(u32* words, u32 kept, RadixPart part, u32 blocks_per_row,
                                            u32 capacity) {
    if (threadIdx.x == 0u) {
        words[RADIX_KEPT(blocks_per_row, part.b)] = kept;
        if (kept > capacity) atomicAdd(&words[RADIX_OVER], 1u);
    }
}

// take_ticket: whether the block is its row's last to end the pass. The barrier, then one
// thread's fence before the ticket: the block's additions are all ordered before it, as
// cooperative groups' grid sync orders a block's writes (one fence a block, not one a thread;
// measured the same: docs/kernel.md, "Radix rows").
__device__ __forceinline__ bool take_ticket(u32* words, u32 blocks_per_row, bool* last) {
    __syncthreads();
    if (threadIdx.x == 0u) {
        __threadfence();
        *last = atomicAdd(&words[RADIX_DONE], 1u) == blocks_per_row - 1u;
    }
    __syncthreads();
    return *last;
}

// sample_digits: the block's histogram (hist, shared) of the first digit over the row's tiles
// of its part whose number is a multiple of RADIX_SAMPLE_EVERY: count_digits over each (every
// key's first digit: the prefix is empty), 16-byte loads where the row starts aligned.
__device__ __forceinline__ void sample_digits(const elem_t* row, RadixPart part, u32 shift, u32 bits, float sign,
                                              u32* hist) {
    u64 every = RADIX_SAMPLE_EVERY * (u64)RADIX_TILE;
    for (u64 tile = ((u64)part.start + every - 1u) / every * every; tile < part.end; tile += every) {
        RadixPart one = part;
        one.start = (u32)tile;  // < part.end < 2^32
        one.end = (u32)min(tile + RADIX_TILE, (u64)part.end);
        count_digits(row, one, 0u, shift, bits, sign, hist);
    }
}

// choose_floor: by the row's last block of the sample (the row's own m >= k > 0; budget_m the
// launch's). The floor digit is the greatest d whose
// bins d and above hold at least RADIX_SAMPLE_MARGIN times the sample's share of k, plus
// RADIX_SAMPLE_SLACK, sampled keys — where they stand for at most budget_m / RADIX_KEEP_SHARE
// keys of the row (as many as the second pass would keep); RADIX_FLOOR is one more than it (0: no
// floor, where the sample holds too few or too many). The histogram and the ticket are
// cleared for the first pass.
__device__ __forceinline__ void choose_floor(u32* words, u32 k, u32 m, u32 budget_m, u32* sums) {
    const u32 per = RADIX_BINS / RADIX_THREADS;
    u32 c[RADIX_BINS / RADIX_THREADS], total;
    u32 above = read_bins(words, c, sums, &total);
    u64 need = RADIX_SAMPLE_MARGIN * (((u64)k * total + m - 1u) / m) + RADIX_SAMPLE_SLACK;
    // the sampled keys that stand for budget_m / RADIX_KEEP_SHARE of the row's (total on a
    // plain row, where budget_m = m; total < m / 32: no overflow)
    u64 budget = budget_m == m ? total : (u64)total * budget_m / m;
#pragma unroll
    for (u32 j = 0u; j < per; ++j) {
        u32 bin = RADIX_BINS - 1u - (threadIdx.x * per + j);
        u64 held = (u64)above + c[j];
        if (above < need && held >= need && held * RADIX_KEEP_SHARE <= budget) words[RADIX_FLOOR] = bin + 1u;
        above += c[j];
        if (c[j] != 0u) words[bin] = 0u;
    }
    if (threadIdx.x == 0u) words[RADIX_DONE] = 0u;
}

// The sample: RADIX_BLOCKS_PER_SM blocks an SM, as the passes.
template <bool RAGGED>
__device__ __forceinline__ void radix_sample_step(RADIX_ARGS) {
    __shared__ u32 hist[RADIX_BINS];
    __shared__ u32 sums[RADIX_WARPS];
    __shared__ bool last;
    RadixRow own = radix_row<RAGGED>(blockIdx.x / blocks_per_row, m, k, slice, blocks_per_row, lengths, k_per_row);
    if (RAGGED && own.k == 0u) return;  // nothing selected: the write only pads
    RadixPart part = radix_part<RAGGED>(own.m, own.slice, blocks_per_row);
    u32* words = radix + part.row * radix_ld;
    for (u32 bin = threadIdx.x; bin < RADIX_BINS; bin += RADIX_THREADS) hist[bin] = 0u;
    __syncthreads();
    sample_digits(x + part.row * ld, part, shift, bits, sign, hist);
    __syncthreads();
    add_histogram(words, hist);
    if (!take_ticket(words, blocks_per_row, &last)) return;
    __threadfence();
    choose_floor(words, own.k, own.m, m, sums);
}

extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_sample(RADIX_ARGS) {
    wait_for_previous_step();
    radix_sample_step<false>(RADIX_PASS);
}
extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_sample_ragged(RADIX_ARGS) {
    wait_for_previous_step();
    radix_sample_step<true>(RADIX_PASS);
}

// RADIX_BLOCKS_PER_SM blocks an SM, as the plan spreads them: the second pass's 40 registers
// a thread would leave room for three.
template <bool RAGGED>
__device__ __forceinline__ void radix_digits_step(RADIX_ARGS) {
    __shared__ u32 hist[RADIX_BINS];
    __shared__ u32 sums[RADIX_WARPS];
    __shared__ u32 kept;
    __shared__ bool last;
    RadixRow own = radix_row<RAGGED>(blockIdx.x / blocks_per_row, m, k, slice, blocks_per_row, lengths, k_per_row);
    if (RAGGED && own.k == 0u) return;  // nothing selected: the write only pads
    RadixPart part = radix_part<RAGGED>(own.m, own.slice, blocks_per_row);
    u32* words = radix + part.row * radix_ld;
    u32 pass = radix_pass(shift, bits);
    // the previous passes' (and the sample's), ended before this one
    u32 prefix = pass == RADIX_FIRST ? 0u : words[RADIX_PREFIX];
    u32 floor = pass == RADIX_FIRST ? words[RADIX_FLOOR] : 0u;
    u32 keeps = pass == RADIX_FIRST ? 0u : words[RADIX_KEEPS];
    // the first pass keeps the candidates where the sample found a floor, the second where
    // the first chose to; the passes after the one that kept them read them where every
    // block's fit
    bool keep = floor != 0u || (pass == RADIX_KEEP && keeps == RADIX_KEEP_SECOND);
    bool listed = !keep && keeps != 0u && words[RADIX_OVER] == 0u;
    u32 count = listed ? words[RADIX_KEPT(blocks_per_row, part.b)] : 0u;
    RadixList list = radix_list(cand, part, blocks_per_row, capacity, count);
    for (u32 bin = threadIdx.x; bin < RADIX_BINS; bin += RADIX_THREADS) hist[bin] = 0u;
    if (threadIdx.x == 0u) kept = 0u;
    __syncthreads();
    const elem_t* row = x + part.row * ld;
    if (keep) {
        u32 from = floor != 0u ? floor - 1u : prefix >> RADIX_FIRST_SHIFT;
        keep_digits(row, part, prefix, shift, bits, from, sign, hist, &kept, list, capacity);
    } else if (listed) {
        count_listed(list, prefix, shift, bits, hist);
    } else {
        count_digits(row, part, prefix, shift, bits, sign, hist);
    }
    __syncthreads();
    if (keep) keep_counts(words, kept, part, blocks_per_row, capacity);
    add_histogram(words, hist);
    if (!take_ticket(words, blocks_per_row, &last)) return;
    __threadfence();
    choose_digit(words, shift, bits, own.k, m, sums);
}

extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_digits(RADIX_ARGS) {
    wait_for_previous_step();
    radix_digits_step<false>(RADIX_PASS);
}
extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_digits_ragged(RADIX_ARGS) {
    wait_for_previous_step();
    radix_digits_step<true>(RADIX_PASS);
}

// The warp's range of its block's part: the part cut into RADIX_WARPS ranges of
// ceil(slice / RADIX_WARPS) elements, in order (the last ones short or empty).
struct WarpRange {
    u32 start, end;
};

__device__ __forceinline__ WarpRange warp_range(RadixPart part, u32 slice) {
    u32 span = radix_span(slice), warp = threadIdx.x >> 5;
    u64 start = (u64)part.start + (u64)warp * span;
    return {(u32)min(start, (u64)part.end), (u32)min(start + span, (u64)part.end)};
}

// count_part: the warp's keys above T (gt) and at T (eq) in its range, summed over the warp.
__device__ __forceinline__ void count_part(const elem_t* row, WarpRange range, u32 T, float sign, u32* gt,
                                           u32* eq) {
    u32 lane = threadIdx.x & 31u, above = 0u, at = 0u;
    for (u64 base = range.start + lane; base < range.end; base += 32u * RADIX_ITEMS) {
        elem_t v[RADIX_ITEMS];
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + 32u * j;
            if (i < range.end) v[j] = row[i];
        }
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + 32u * j;
            if (i >= range.end) continue;
            u32 key = own_key(v[j], sign);
            above += key > T ? 1u : 0u;
            at += key == T ? 1u : 0u;
        }
    }
    *gt = __reduce_add_sync(FULL_MASK, above);
    *eq = __reduce_add_sync(FULL_MASK, at);
}

// count_candidates: the count from the block's candidates (every key of its part at or above T
// among them): each one above T or at T counted in its warp range's (counts, shared: [0] above
// T, [1] at T), then the warps' counts and the block's written.
__device__ __forceinline__ void count_candidates(u32* words, RadixList list, RadixPart part, u32 T, u32 slice,
                                                 u32 blocks_per_row, u32 (*counts)[RADIX_WARPS]) {
    u32 span = radix_span(slice);
    if (threadIdx.x < 2u * RADIX_WARPS) counts[threadIdx.x / RADIX_WARPS][threadIdx.x % RADIX_WARPS] = 0u;
    __syncthreads();
    for (u32 i = threadIdx.x; i < list.count; i += RADIX_THREADS) {
        u32 key = list.keys[i];
        if (key < T) continue;
        atomicAdd(&counts[key == T ? 1u : 0u][(list.idx[i] - part.start) / span], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 2u * RADIX_WARPS) {
        u32 tie = threadIdx.x / RADIX_WARPS, w = threadIdx.x % RADIX_WARPS;
        words[RADIX_WARP_COUNTS(blocks_per_row, part.b, w) + tie] = counts[tie][w];
    }
    if (threadIdx.x < 2u) {
        u32 total = 0u;
        for (u32 w = 0u; w < RADIX_WARPS; ++w) total += counts[threadIdx.x][w];
        words[RADIX_BLOCK_COUNTS(part.b) + threadIdx.x] = total;
    }
}

template <bool RAGGED>
__device__ __forceinline__ void radix_count_step(RADIX_ARGS) {
    __shared__ u32 sums[2][RADIX_WARPS];
    RadixRow own = radix_row<RAGGED>(blockIdx.x / blocks_per_row, m, k, slice, blocks_per_row, lengths, k_per_row);
    if (RAGGED && own.k == 0u) return;  // nothing selected: the write only pads
    RadixPart part = radix_part<RAGGED>(own.m, own.slice, blocks_per_row);
    u32* words = radix + part.row * radix_ld;
    u32 T = words[RADIX_PREFIX], gt, eq, lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (words[RADIX_KEEPS] != 0u && words[RADIX_OVER] == 0u) {
        RadixList list = radix_list(cand, part, blocks_per_row, capacity, words[RADIX_KEPT(blocks_per_row, part.b)]);
        count_candidates(words, list, part, T, own.slice, blocks_per_row, sums);
        return;
    }
    count_part(x + part.row * ld, warp_range(part, own.slice), T, sign, &gt, &eq);
    if (lane == 0u) {
        u32 at = RADIX_WARP_COUNTS(blocks_per_row, part.b, warp);
        words[at] = gt;
        words[at + 1u] = eq;
        sums[0][warp] = gt;
        sums[1][warp] = eq;
    }
    __syncthreads();
    if (threadIdx.x < 2u) {
        u32 total = 0u;
        for (u32 w = 0u; w < RADIX_WARPS; ++w) total += sums[threadIdx.x][w];
        words[RADIX_BLOCK_COUNTS(part.b) + threadIdx.x] = total;
    }
}

extern "C" __global__ void __launch_bounds__(RADIX_THREADS) rtopk_radix_count(RADIX_ARGS) {
    wait_for_previous_step();
    radix_count_step<false>(RADIX_PASS);
}
extern "C" __global__ void __launch_bounds__(RADIX_THREADS) rtopk_radix_count_ragged(RADIX_ARGS) {
    wait_for_previous_step();
    radix_count_step<true>(RADIX_PASS);
}

// write_part: the warp's results, from out on, the ties counted from eq_seen (the row's ties
// before its range), a window of RADIX_ITEMS rounds of 32 elements at a time. A window with
// no key at or above T (most of them) costs its loads and one vote; in one with any, each
// round reads its element again (just loaded: a hit in L1), and its places come from two
// ballots (above T, at T): a tie is taken while the row's ties before it are fewer than `left`.
// No key is held across the vote, so the write runs in the count's registers.
__device__ __forceinline__ void write_part(const elem_t* row, WarpRange range, u32 T, u32 left, float sign,
                                           u32 out, u32 eq_seen, elem_t* out_val, idx_t* out_idx) {
    u32 lane = threadIdx.x & 31u, below = (1u << lane) - 1u;
    for (u64 base = range.start; base < range.end; base += 32u * RADIX_ITEMS) {
        bool any = false;
        elem_t v[RADIX_ITEMS];
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + 32u * j + lane;
            if (i < range.end) v[j] = row[i];
        }
#pragma unroll
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + 32u * j + lane;
            any |= i < range.end && own_key(v[j], sign) >= T;
        }
        if (!__any_sync(FULL_MASK, any)) continue;
#pragma unroll 1
        for (u32 j = 0u; j < RADIX_ITEMS; ++j) {
            u64 i = base + 32u * j + lane;
            bool valid = i < range.end;
            elem_t x = valid ? row[i] : (elem_t)0;
            u32 key = valid ? own_key(x, sign) : 0u;
            u32 g = __ballot_sync(FULL_MASK, valid && key > T);
            u32 e = __ballot_sync(FULL_MASK, valid && key == T);
            u32 take = left > eq_seen ? left - eq_seen : 0u;
            u32 ties_before = __popc(e & below);
            bool mine_g = (g >> lane) & 1u, mine_e = (e >> lane) & 1u;
            if (mine_g || (mine_e && ties_before < take)) {
                u32 at = out + __popc(g & below) + min(ties_before, take);
                out_val[at] = x;
                out_idx[at] = (idx_t)i;
            }
            out += __popc(g) + min((u32)__popc(e), take);
            eq_seen += __popc(e);
        }
    }
}

// write_listed: the block's results from its candidates (every key of its part at or above T
// among them), where those at or above T are at most RADIX_WRITE_LIST: gathered in shared
// memory (keys, idx; *n their count), each one's place counted from the ones before it by
// index, as write_part counts them: keys above T, and ties while the row's ties before it
// (eq_seen before the block's) are fewer than `left`. The value is read from the row: the
// input's own bits.
__device__ __forceinline__ void write_listed(const elem_t* row, RadixList list, u32 T, u32 left, u32 out,
                                             u32 eq_seen, u32* keys, u32* idx, u32* n, elem_t* out_val,
                                             idx_t* out_idx) {
    if (threadIdx.x == 0u) *n = 0u;
    __syncthreads();
    for (u32 i = threadIdx.x; i < list.count; i += RADIX_THREADS) {
        u32 key = list.keys[i];
        if (key < T) continue;
        u32 at = atomicAdd(n, 1u);  // < RADIX_WRITE_LIST: the caller checked the block's counts
        keys[at] = key;
        idx[at] = list.idx[i];
    }
    __syncthreads();
    u32 count = *n, take = left > eq_seen ? left - eq_seen : 0u;
    for (u32 a = threadIdx.x; a < count; a += RADIX_THREADS) {
        u32 mine = idx[a], gt = 0u, eq = 0u;
        for (u32 b = 0u; b < count; ++b) {
            bool before = idx[b] < mine;
            gt += before && keys[b] > T ? 1u : 0u;
            eq += before && keys[b] == T ? 1u : 0u;
        }
        if (keys[a] > T || eq < take) {
            u32 at = out + gt + min(eq, take);
            out_val[at] = row[mine];
            out_idx[at] = (idx_t)mine;
        }
    }
}

// pad_radix_row: a ragged row's output slots from its own k to the width (the launch's k; the
// row's first slot at row_out) get docs/contract.md §5's padding (pad_results), by its block 0.
// Disjoint from the slots the write fills.
__device__ __forceinline__ void pad_radix_row(RadixPart part, u32 own_k, u32 width, elem_t* out_val,
                                              idx_t* out_idx, u64 row_out) {
    if (part.b != 0u) return;
    pad_results(out_val, out_idx, row_out, own_k, width, threadIdx.x, RADIX_THREADS);
}

// Four blocks an SM, as the other two steps run: the write's 40 registers a thread left it
// three, slower on long rows than four with a few registers spilled (docs/kernel.md, "Radix
// rows"). A block whose candidates fit and hold few keys at or above T writes from them
// (write_listed); any other reads its part (write_part).
template <bool RAGGED>
__device__ __forceinline__ void radix_write_step(RADIX_ARGS) {
    __shared__ u32 sums[2][RADIX_WARPS];
    __shared__ u32 keys[RADIX_WRITE_LIST], idx[RADIX_WRITE_LIST], n;
    RadixRow own = radix_row<RAGGED>(blockIdx.x / blocks_per_row, m, k, slice, blocks_per_row, lengths, k_per_row);
    RadixPart part = radix_part<RAGGED>(own.m, own.slice, blocks_per_row);
    u64 row_out = part.row * (u64)k;
    if (RAGGED && own.k < k) pad_radix_row(part, own.k, k, out_val, out_idx, row_out);
    if (RAGGED && own.k == 0u) return;
    const u32* words = radix + part.row * radix_ld;
    u32 T = words[RADIX_PREFIX], left = words[RADIX_LEFT], lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    // the row's keys above T and ties at T before this block, then before this warp's range
    // (the warps before it in this block)
    u32 gt = 0u, eq = 0u;
    for (u32 b = threadIdx.x; b < part.b; b += RADIX_THREADS) {
        gt += words[RADIX_BLOCK_COUNTS(b)];
        eq += words[RADIX_BLOCK_COUNTS(b) + 1u];
    }
    gt = radix_sum(gt, sums[0]);
    eq = radix_sum(eq, sums[1]);
    const elem_t* row = x + part.row * ld;
    u32 mine = words[RADIX_BLOCK_COUNTS(part.b)] + words[RADIX_BLOCK_COUNTS(part.b) + 1u];
    if (words[RADIX_KEEPS] != 0u && words[RADIX_OVER] == 0u && mine <= RADIX_WRITE_LIST) {
        RadixList list = radix_list(cand, part, blocks_per_row, capacity, words[RADIX_KEPT(blocks_per_row, part.b)]);
        write_listed(row, list, T, left, gt + min(eq, left), eq, keys, idx, &n, out_val + row_out,
                     out_idx + row_out);
        return;
    }
    u32 at = RADIX_WARP_COUNTS(blocks_per_row, part.b, lane);
    gt += __reduce_add_sync(FULL_MASK, lane < warp ? words[at] : 0u);
    eq += __reduce_add_sync(FULL_MASK, lane < warp ? words[at + 1u] : 0u);
    write_part(row, warp_range(part, own.slice), T, left, sign, gt + min(eq, left), eq, out_val + row_out,
               out_idx + row_out);
}

extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_write(RADIX_ARGS) {
    wait_for_previous_step();
    radix_write_step<false>(RADIX_PASS);
}
extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM) rtopk_radix_write_ragged(RADIX_ARGS) {
    wait_for_previous_step();
    radix_write_step<true>(RADIX_PASS);
}
