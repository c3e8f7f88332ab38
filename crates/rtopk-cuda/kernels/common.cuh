// RTop-K row-wise top-k on the GPU: docs/kernel.md, stage for stage, with the same three
// stages, names and arithmetic as topk-ref's `bisect` and warp-sim's kernel.
//
// The sources, by stage:
//   common.cuh  integer types, the search's exit codes, Params (the arguments of every top-k
//               entry point)
//   order.cuh   the order: keys of values and values of keys, midpoint
//   rows.cuh    row storage: how count_ge and key_at reach a row's keys (WarpRow, CandRow,
//               BlockRow), and the row-wide reductions and scans
//   load.cuh    stage 1, load_row: keys into registers, the lane's min/max key
//   search.cuh  stage 2, search_threshold: Algorithm 1 (value phase, then key phase) or
//               Algorithm 2
//   select.cuh  stage 3, select_topk: every strong element, then the first band_left band
//               ones, in index order
//   narrow.cuh  stage 2's narrowing in exact mode (docs/kernel.md, "Narrowing"): a whole-warp
//               row of 257 to 1024 (a block row of 3073 to 8192) narrows to its candidates
//               once a count at the bracket's lower end finds at most CAND_CAP
//               (BLOCK_CAND_CAP) keys, and the search and the selection go on over those alone,
//               on one warp
//   sort.cuh    the optional sorted output, a second launch over the selected results
// and one file per launch family:
//   warp_rows.cu   rtopk_quarter_rows_<EPL>, rtopk_half_rows_<EPL>, rtopk_warp_rows_<EPL>: four,
//                  two or one rows per warp (8, 16 or 32 lanes), EPL keys per lane in registers
//   block_rows.cu  rtopk_block_rows, rtopk_block_rows_narrow: one block per row for long rows,
//                  32 keys per thread in registers, the rest in shared memory as far as it fits,
//                  then re-keyed from global memory
//   sort_warp_rows.cu  rtopk_sort_warp_rows_<W>: the sorted output, 8-32 lanes per row (k <= 1024)
//   sort_rows.cu   rtopk_sort_rows: the sorted output, one block per row (k > 1024)
//   split_rows.cu  rtopk_split_gather: a split row's last step (docs/kernel.md, "Split rows"),
//                  the positions among the row's chunk results back to the row's indices
//   utilities.cu   read_bandwidth_probe, spin_ahead, fill_normal (benchmarks and timing)
//   cluster_rows.cu  rtopk_cluster_rows, rtopk_cluster_rows_narrow: one thread-block cluster
//                  per row for few long rows (compute capability 9.0), the block rows' stages
//                  with the counts meeting in distributed shared memory; the second narrows
//                  to its candidates in block 0
// rtopk-cuda (src/kernels.rs) compiles one module per entry point (the utilities share one),
// from a source it writes: the constants the launcher and the kernels share (CAND_CAP,
// BLOCK_CAND_KEYS, BLOCK_EPL, WARP_STAGE, BLOCK_STAGE) as #defines, then the family's file with
// its headers, then the entry point, written from its table (docs/compile.md).
// docs/kernel.md's last table says how each family holds the row. Compiled by NVRTC with
// --fmad=false and no fast-math: every float operation rounds exactly as the CPU's.

#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL_MASK 0xffffffffu
#define VALUE_PHASE_LIMIT 32u
#define KEY_ZERO 0x80000000u

#define EXIT_HIT 0
#define EXIT_CONVERGED 1
#define EXIT_PRECISION 2
#define EXIT_MAX_ITER 3
#define EXIT_NARROW 4  // not an exit: the row goes on with its candidates (narrow_row)
#define EXIT_RECALL 5  // the bracket guarantees the recall target (search.cuh, recall_met)

// Programmatic dependent launch (CUDA Programming Guide, "Programmatic Dependent Launch and
// Synchronization"): on compute capability 9.0 and newer the launcher lets each step of a
// program after its first start launching while the step before it still runs
// (docs/kernel.md, "Steps in flight"). Every entry point therefore begins here, before it reads
// or writes any memory: the wait returns once the previous step has ended and its writes are
// visible. A grid launched without the attribute (a program's first step, an older device)
// passes at once. The simulator runs the steps one after the other: the same order.
__device__ __forceinline__ void wait_for_previous_step() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// cluster.sync(): every thread of every block of the cluster arrives (release) and waits
// (acquire), so that the blocks' shared-memory writes and reductions before it are seen after
// it, and their global reads before it come before any write after it; the first also makes
// sure every block of the cluster has started before any reaches into another's shared memory
// (CUDA Programming Guide, "Distributed Shared Memory"). Without clusters, the block's barrier.
__device__ __forceinline__ void cluster_sync() {
#if __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#else
    __syncthreads();
#endif
}

// The element type: elem_t (the unit's: float, the 16 bits of an f16 or bf16 held as an
// unsigned short, or the integer type itself, src/kernels.rs) and ELEM_KIND, one of these
// (docs/kernel.md, "16-bit rows" and "Integer rows").
#define ELEM_F32 0
#define ELEM_F16 1
#define ELEM_BF16 2
#define ELEM_I8 3
#define ELEM_U8 4
#define ELEM_I16 5
#define ELEM_I32 6
#define ELEM_F64 7  // 64-bit keys: the wide rows alone (wide_rows.cu)
#define ELEM_I64 8
// 16-bit floats: warp rows keep the elements packed two per register (PackedRow).
#define ELEM_PACKED16 (ELEM_KIND == ELEM_F16 || ELEM_KIND == ELEM_BF16)
// Integers of up to 32 bits: one 32-bit key per element and no value phase (docs/contract.md §3).
#define ELEM_INTEGER (ELEM_KIND >= ELEM_I8 && ELEM_KIND <= ELEM_I32)

struct Params {
    const elem_t* x;     // (n_rows, m), row-major
    elem_t* out_val;     // (n_rows, k)
    idx_t* out_idx;      // (n_rows, k); idx_t is the unit's index type (src/kernels.rs)
    u32* out_iter;       // (n_rows,), or null: no iteration counts wanted
    u64 n_rows;
    u32 m;
    u32 k;
    int smallest;        // 0: largest mode, 1: smallest mode
    int max_iter;        // < 0: exact (Algorithm 1); >= 0: early stopping (Algorithm 2)
    float precision;     // Algorithm 1's epsilon' (relative to |max|)
    u32 cached_keys;     // rtopk_block_rows: keys held in shared memory (past the registers)
    int vec4;            // rows are 16-byte aligned and hold whole 16-byte groups: 16-byte loads
    float sign;          // +1 largest mode, -1 smallest mode: ordered value = v * sign (an
                         // argument of its own, so that it stays a constant-bank operand)
    u64 ld;              // the input's row stride (m for whole rows, the row's width for chunks;
                         // 64 bits so that the arguments end where the struct does: no padding)
    u32 out_ld;          // the outputs' row stride (k for whole rows)
    u32 chunks;          // 1: each row_id is a row; > 1: row_id is chunk row_id / rows of row
                         // row_id % rows, rows = n_rows / chunks (split rows, place_row)
    const u32* lengths;  // (n_rows,) each row's length (docs/contract.md §5), or null: m
    const u32* k_per_row;  // (n_rows,) each row's k, or null: k (the outputs' width)
    const float* hint;     // (n_rows,) each row's threshold hint (docs/contract.md §5), or null;
                           // read by the ragged units' _hinted entries only (search_hinted)
    u32 split_m;         // a ragged split's launches (split_row_args): the caller's row width,
    u32 split_chunk;     // and the chunk width; 0 and 0 on every other launch
    float recall;        // docs/contract.md §6: the recall target r, 0 < r < 1, or 0: none
    int sorted;          // rtopk_pick_rows: 1 writes each row's results in sorted order (the
                         // program's Select::sorted); the other families ignore it
    u32 value_bins;      // rtopk_block_rows (f32): 1 lets a row search from its value bins
                         // (block_value_search), where the plan's Plan::value_bins says (four
                         // bytes of padding follow it: floor is 8-aligned)
    u32* floor;          // (rows,) a split's floors (floor.cuh), read and raised by the floor
                         // entry points (<unit>_floor); null on every other launch
};

// The launcher (src/launch.rs) passes its #[repr(C)] twin of Params as the entry point's
// parameter buffer: the arguments of RTOPK_ARGS are the fields of Params, in order, and the
// driver lays each argument at its natural alignment, as a struct lays its fields. These lines
// pin those offsets (computed from RTOPK_ARGS's types: NVRTC before 13.5 has no offsetof) and
// the struct's size; the launcher's layout test reads them.
template <class F>
struct ArgLayout;
template <class... A>
struct ArgLayout<void(A...)> {
    // The offset of argument I.
    template <int I>
    __device__ static constexpr u64 offset() {
        const u64 size[] = {sizeof(A)...}, align[] = {alignof(A)...};
        u64 at = 0;
        for (int i = 0; i < I; ++i) at = (at + align[i] - 1) / align[i] * align[i] + size[i];
        return (at + align[I] - 1) / align[I] * align[I];
    }
};

// Every top-k entry point takes the fields of Params, in order, and gathers them into one.
#define RTOPK_ARGS                                                                         \
    const elem_t* x, elem_t* out_val, idx_t* out_idx, u32* out_iter, u64 n_rows, u32 m, u32 k, \
        int smallest, int max_iter, float precision, u32 cached_keys, int vec4, float sign, u64 ld,  \
        u32 out_ld, u32 chunks, const u32* lengths, const u32* k_per_row, const float* hint, \
        u32 split_m, u32 split_chunk, float recall, int sorted, u32 value_bins, u32* floor
#define RTOPK_PARAMS                                                                                \
    Params{x, out_val, out_idx, out_iter, n_rows, m, k, smallest, max_iter, precision, cached_keys, vec4, \
           sign, ld, out_ld, chunks, lengths, k_per_row, hint, split_m, split_chunk, \
           recall, sorted, value_bins, floor}

__device__ void rtopk_args(RTOPK_ARGS);  // never defined: its type lists the entry points' arguments
using RtopkArgs = ArgLayout<decltype(rtopk_args)>;
static_assert(sizeof(Params) == 144, "Params: size");
static_assert(RtopkArgs::offset<0>() == 0, "x");
static_assert(RtopkArgs::offset<1>() == 8, "out_val");
static_assert(RtopkArgs::offset<2>() == 16, "out_idx");
static_assert(RtopkArgs::offset<3>() == 24, "out_iter");
static_assert(RtopkArgs::offset<4>() == 32, "n_rows");
static_assert(RtopkArgs::offset<5>() == 40, "m");
static_assert(RtopkArgs::offset<6>() == 44, "k");
static_assert(RtopkArgs::offset<7>() == 48, "smallest");
static_assert(RtopkArgs::offset<8>() == 52, "max_iter");
static_assert(RtopkArgs::offset<9>() == 56, "precision");
static_assert(RtopkArgs::offset<10>() == 60, "cached_keys");
static_assert(RtopkArgs::offset<11>() == 64, "vec4");
static_assert(RtopkArgs::offset<12>() == 68, "sign");
static_assert(RtopkArgs::offset<13>() == 72, "ld");
static_assert(RtopkArgs::offset<14>() == 80, "out_ld");
static_assert(RtopkArgs::offset<15>() == 84, "chunks");
static_assert(RtopkArgs::offset<16>() == 88, "lengths");
static_assert(RtopkArgs::offset<17>() == 96, "k_per_row");
static_assert(RtopkArgs::offset<18>() == 104, "hint");
static_assert(RtopkArgs::offset<19>() == 112, "split_m");
static_assert(RtopkArgs::offset<20>() == 116, "split_chunk");
static_assert(RtopkArgs::offset<21>() == 120, "recall");
static_assert(RtopkArgs::offset<22>() == 124, "sorted");
static_assert(RtopkArgs::offset<23>() == 128, "value_bins");
static_assert(RtopkArgs::offset<24>() == 136, "floor");

// The row's output pointer, computed once: hidden from the optimizer so that each store adds a
// 32-bit position to it (one IMAD.WIDE) instead of redoing the 64-bit row offset arithmetic.
template <class T>
__device__ __forceinline__ T* opaque(T* ptr) {
    asm("mov.b64 %0, %0;" : "+l"(ptr));
    return ptr;
}

// The lowest n set bits of mask: a selection chunk's band elements within its budget
// (select.cuh, wide_rows.cu).
__device__ __forceinline__ u32 lowest_bits(u32 mask, u32 n) {
    for (u32 extra = __popc(mask) > n ? __popc(mask) - n : 0u; extra > 0u; --extra)
        mask &= ~(0x80000000u >> __clz(mask));  // drop the highest
    return mask;
}

// The row and chunk of a split's chunk launch row_id (chunks > 1; docs/kernel.md, "Split
// rows"): chunk-major, row_id is chunk c = row_id / rows of row r = row_id % rows (rows =
// n_rows / chunks), so that the blocks, issued in order, take chunk 0 of every row before any
// row's chunk 1, and a row's later chunks find its floor raised by its earlier ones (floor.cuh).
struct ChunkOf {
    u64 row, c;
};
// A split's launch has fewer than 2^32 rows (rtopk-plan's MAX_CHUNK_ROWS), so 32-bit
// divisions do: no 64-bit division routine in the entry points.
__device__ __forceinline__ ChunkOf chunk_of(const Params& p, u64 row_id) {
    u32 rows = (u32)p.n_rows / p.chunks, c = (u32)row_id / rows;
    return {(u64)((u32)row_id - c * rows), (u64)c};
}

// Where a launch's row_id reads and writes: its input and the offset of its first result.
// Whole rows (chunks == 1) are row_id's own; under a split row's first stage row_id is chunk c
// of row r (chunk_of), the m values at r * ld + c * m, with its k results at r * out_ld + c * k,
// so that a row's chunk results lie side by side as the second stage's row.
struct RowPlace {
    const elem_t* in;
    u64 out;
};
__device__ __forceinline__ RowPlace place_row(const Params& p, u64 row_id) {
    if (p.chunks == 1u) return {p.x + row_id * p.ld, row_id * (u64)p.out_ld};
    ChunkOf at = chunk_of(p, row_id);
    return {p.x + at.row * p.ld + at.c * (u64)p.m, at.row * (u64)p.out_ld + at.c * (u64)p.k};
}

// per_row_entry: a word of a per-row array (lengths, k; docs/contract.md §5) cut to bound. A
// caller may hand over int32 words as they are (torch's int32 tensors, unread and unclamped):
// where bound < 2^31 a word with its top bit set is a negative int32 and counts as 0; where
// bound >= 2^31 (rows of 2^31 elements or more) every word is a u32.
__device__ __forceinline__ u32 per_row_entry(u32 word, u32 bound) {
    if (bound < 0x80000000u && (word & 0x80000000u)) return 0u;
    return min(word, bound);
}

// row_lengths: a row's own width and k (docs/contract.md §5), lengths[row] and k_per_row[row]
// where given (null pointers: the launch's m and k; per_row_entry), k cut to the width. Shared
// by the top-k rows, the sorts and the thresholds.
__device__ __forceinline__ void row_lengths(const u32* lengths, const u32* k_per_row, u64 row, u32* m,
                                            u32* k) {
    if (lengths) *m = per_row_entry(lengths[row], *m);
    if (k_per_row) *k = per_row_entry(k_per_row[row], *k);
    *k = min(*k, *m);
}

// split_candidates: the valid candidates of a ragged split's row of length len and k (docs/kernel.md,
// "Split rows"): k from each whole chunk, at most k from the one the length cuts.
__device__ __forceinline__ u32 split_candidates(u32 len, u32 k, u32 chunk) {
    return len / chunk * k + min(k, len % chunk);
}

// split_row_args: row_args of a ragged split's launch (docs/kernel.md, "Split rows"). The caller's
// row r has its length L and k k_r (row_lengths over the caller's width split_m). On the chunk
// launch (chunks > 1) chunk c of row r is its first clamp(L - c split_chunk, 0, split_chunk) values
// and selects k_r of them (at most that many) into c k_r of the row's candidates, so that the
// row's valid candidates are one prefix: its place (at) is the chunk's values and those
// candidates, which pads nothing (the candidates past the valid ones are never read). On the
// second stage row r is the first split_candidates(L, k_r) of its candidates, at its own place.
// The launch's pointers and strides stay as they are: rebased here, they were registers for
// the whole row and the warp rows spilled (docs/performance.md, "The ragged rows' place").
__device__ __forceinline__ Params split_row_args(const Params& launch, u64 row_id, RowPlace* at) {
    Params p = launch;
    ChunkOf of = p.chunks > 1u ? chunk_of(p, row_id) : ChunkOf{row_id, 0u};
    u64 row = of.row;
    u32 len = p.split_m, k = p.k;
    row_lengths(p.lengths, p.k_per_row, row, &len, &k);
    if (p.chunks > 1u) {
        u64 c = of.c, start = c * p.split_chunk;
        p.m = (u64)len > start ? min(len - (u32)start, p.split_chunk) : 0u;
        *at = {launch.x + row * launch.ld + start, row * launch.out_ld + c * k};
    } else {
        p.m = min(split_candidates(len, k, p.split_chunk), launch.m);
        *at = place_row(launch, row_id);
    }
    p.k = min(k, p.m);
    if (p.vec4 && p.m % (16u / (u32)sizeof(elem_t)) != 0u) p.vec4 = 0;
    return p;
}

// Whether a row searches from its hint: with HINTED (the ragged units' `<name>_hinted` entry
// points, which a step with hints launches), where the launch gives hints and the search is
// exact (Algorithm 2, a precision and a recall target ignore them, as bisect does). Shared by
// the 32-bit rows (search.cuh) and the wide rows (wide_rows.cu).
template <bool HINTED>
__device__ __forceinline__ bool takes_hint(const Params& p) {
    return HINTED && p.hint && p.max_iter < 0 && p.precision == 0.0f && !(p.recall > 0.0f);
}

// row_args: the arguments row row_id runs with once its own width m_i and k_i are read
// (row_lengths): nothing past m_i is loaded, k_i results are written, and 16-byte loads (vec4)
// only where m_i is whole 16-byte groups too (a block row's staged load keeps them up to the
// group m_i cuts: rtopk_block_row_ragged); and where the row reads and writes (at). The
// launch's own on a plain launch (both pointers null, uniform over the launch); a ragged
// split's, split_row_args.
__device__ __forceinline__ Params row_args(const Params& launch, u64 row_id, RowPlace* at) {
    if (launch.split_chunk != 0u) return split_row_args(launch, row_id, at);
    *at = place_row(launch, row_id);
    Params p = launch;
    row_lengths(p.lengths, p.k_per_row, row_id, &p.m, &p.k);
    if (p.lengths && p.vec4 && p.m % (16u / (u32)sizeof(elem_t)) != 0u) p.vec4 = 0;
    return p;
}

// pad_results: a ragged row's output slots k .. width (its own k, the outputs' width; the row's
// first slot at out) get docs/contract.md §5's padding, index PAD (all ones: -1 as i64) and
// value 0, from threads t striding by stride. Disjoint from the slots the selection writes, so
// it runs first.
__device__ __forceinline__ void pad_results(elem_t* out_val, idx_t* out_idx, u64 out, u32 k,
                                            u32 width, u32 t, u32 stride) {
    for (u32 i = k + t; i < width; i += stride) {
        out_idx[out + i] = (idx_t)-1;
        out_val[out + i] = (elem_t)0;
    }
}
