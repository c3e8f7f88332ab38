// The program's last step where thresholds are wanted (docs/contract.md §5, docs/kernel.md,
// "Thresholds"): rtopk_row_threshold reads each row's k_i selected values off the values
// output and writes, as f32, the one that ranks last in the mode — the least own key, and
// among equal keys the last position (the highest index in index order, the last entry in
// sorted order), as topk-ref's ragged::threshold_of — or NaN where k_i = 0. lanes_per_row
// lanes per row (the plan's threshold_lanes_per_row: 32 while the rows fit the device's warps,
// else the fewest, a power of two, that read a row in one batch of THRESHOLD_BATCH loads a
// lane; 32 / lanes_per_row rows a warp), then warps_per_row warps per row
// (threshold_warps_per_row: one up to 512 values, else a warp for every 256), one pass over
// the values, THRESHOLD_BATCH loads a lane in flight, each lane keeping the value of its least
// key, so that no load follows the reductions.

#include "order.cuh"
#include "wide.cuh"

// An element's bits as f32, as topk-ref's Element::to_f32 (the half crate's conversions):
// exact for every float number; a 16-bit NaN keeps its sign and payload and comes back quiet;
// an integer rounds to the nearest f32 (a 64-bit element: wide_threshold_value).
__device__ __forceinline__ float threshold_value(elem_t v) {
#if ELEM_KIND >= ELEM_F64
    return wide_threshold_value(v);
#elif ELEM_KIND == ELEM_F32
    return v;
#elif ELEM_INTEGER
    return __int2float_rn((int)v);  // the nearest f32, ties to even (exact up to 2^24)
#elif ELEM_KIND == ELEM_BF16
    u32 b = (u32)v;
    return __uint_as_float(((b & 0x7fffu) > 0x7f80u ? (b | 0x40u) : b) << 16);
#else
    u32 b = (u32)v;
    if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0u)
        return __uint_as_float(((b & 0x8000u) << 16) | 0x7fc00000u | ((b & 0x3ffu) << 13));
    return float_of16(b);
#endif
}

// The key the threshold ranks values by: the element's own key, 64 bits wide for f64 and i64
// (wide.cuh), and the warp's least of them.
#if ELEM_KIND >= ELEM_F64
typedef u64 threshold_key_t;
__device__ __forceinline__ u64 threshold_key(elem_t v, float sign) { return wide_key(v, sign); }
__device__ __forceinline__ u64 threshold_min(u64 v) { return warp_min64(v); }
#else
typedef u32 threshold_key_t;
__device__ __forceinline__ u32 threshold_key(elem_t v, float sign) { return own_key(v, sign); }
__device__ __forceinline__ u32 threshold_min(u32 v) { return __reduce_min_sync(FULL_MASK, v); }
#endif

// Values a lane loads before it compares any (threshold_batch): a lane's values are a round
// of loads in flight each 16 (one round up to 512 values a warp), not one dependent load each;
// 32 or 64 a round measured no faster.
#define THRESHOLD_BATCH 16

// threshold_batch: the values of the lane's positions base + stride j + lane (`lane`: its
// place among its row's lanes; j < rounds: the batch's strides that reach below k_i; those
// below k_i), all loaded before the first is compared, folded into the lane's least key, the
// last position holding it (position + 1) and its value: positions rise, so a key equal to the
// least moves `last` and `value` on. The strides past k_i are skipped (rounds is the same for
// a row's lanes: base, stride and k_i are), not predicated off: a row of k_i <= 32 issued the
// other fifteen loads and folds anyway, and the launch after 2^20 such rows was bound by them
// (docs/performance.md).
__device__ __forceinline__ void threshold_batch(const elem_t* v, u32 base, u32 stride, u32 lane,
                                                u32 k_i, float sign, threshold_key_t* least,
                                                u32* last, elem_t* value) {
    u32 rounds = min((k_i - base + stride - 1u) / stride, (u32)THRESHOLD_BATCH);  // base < k_i
    elem_t x[THRESHOLD_BATCH];
#pragma unroll
    for (int j = 0; j < THRESHOLD_BATCH; ++j) {
        if ((u32)j >= rounds) break;
        u32 i = base + stride * (u32)j + lane;
        if (i < k_i) x[j] = v[i];
    }
#pragma unroll
    for (int j = 0; j < THRESHOLD_BATCH; ++j) {
        if ((u32)j >= rounds) break;
        u32 i = base + stride * (u32)j + lane;
        if (i < k_i) {
            threshold_key_t key = threshold_key(x[j], sign);
            if (key <= *least) { *least = key; *last = i + 1u; *value = x[j]; }
        }
    }
}

// A part of a row (one warp's positions, or a row's parts as lanes): its least key, the last
// position holding it (position + 1; 0: the part holds nothing) and that position's value.
struct ThresholdPart {
    threshold_key_t least;
    u32 last;
    elem_t value;
};

// threshold_part_of: the warp's part from each lane's (least, last, value): the least key
// (threshold_min), the last position of the lanes holding it, and the value of the lane
// holding that position (positions are distinct: one lane; every lane gets it by a shuffle).
__device__ __forceinline__ ThresholdPart threshold_part_of(threshold_key_t least, u32 last,
                                                           elem_t value) {
    threshold_key_t part_least = threshold_min(least);
    u32 part_last = __reduce_max_sync(FULL_MASK, least == part_least ? last : 0u);
    u32 holder = __ffs(__ballot_sync(FULL_MASK, last == part_last)) - 1u;
    return {part_least, part_last, (elem_t)__shfl_sync(FULL_MASK, value, holder)};
}

// threshold_group_of: the part of a row that lanes_per_row < 32 lanes read (an aligned group
// of the warp's lanes), from each lane's (least, last, value): butterfly shuffles within the
// group, each lane taking its partner's part where that holds a lesser key, or the same key
// at a later position — so that every lane of the group holds the group's part.
__device__ __forceinline__ ThresholdPart threshold_group_of(threshold_key_t least, u32 last,
                                                            elem_t value, u32 lanes_per_row) {
    for (u32 d = lanes_per_row >> 1; d > 0u; d >>= 1) {
        threshold_key_t other_least = __shfl_xor_sync(FULL_MASK, least, d);
        u32 other_last = __shfl_xor_sync(FULL_MASK, last, d);
        elem_t other_value = (elem_t)__shfl_xor_sync(FULL_MASK, value, d);
        if (other_least < least || (other_least == least && other_last > last)) {
            least = other_least;
            last = other_last;
            value = other_value;
        }
    }
    return {least, last, value};
}

// The block takes rows first .. first + per_block - 1 at a time (per_block = 8 / warps_per_row
// warp slots of 32 / lanes_per_row rows each; first = blockIdx.x per_block, then gridDim.x
// per_block further: the grid covers the rows once). Row first + slot is read by lanes
// `group` lanes_per_row .. + lanes_per_row - 1 of warps part = 0 .. warps_per_row - 1 (one of
// the two is 1: fewer lanes than 32 only in one warp) at positions lanes_per_row part + sub +
// lanes_per_row warps_per_row j: each row its own width and k (row_lengths), each warp its
// part (threshold_batch, then threshold_group_of or, on a whole warp, threshold_part_of).
// Where several warps read a row, each puts its part in shared memory and every warp of the
// row takes the row's parts as lanes (threshold_part_of again). The row's first lane writes
// the value, or NaN where k_i = 0.
extern "C" __global__ void __launch_bounds__(256) rtopk_row_threshold(const elem_t* values, float* threshold,
                                                                      u64 n_rows, u32 m, u32 k, int smallest,
                                                                      u32 warps_per_row, u32 lanes_per_row,
                                                                      const u32* lengths, const u32* k_per_row) {
    wait_for_previous_step();
    __shared__ threshold_key_t s_least[8];  // a warp's part: its least key, last position, value
    __shared__ u32 s_last[8];
    __shared__ elem_t s_value[8];
    u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    u32 shift = __ffs(lanes_per_row) - 1u;  // lanes_per_row is a power of two (the plan's)
    u32 rows_per_warp = 32u >> shift;
    u32 group = lane >> shift, sub = lane & (lanes_per_row - 1u);  // the lane's row, its place
    u32 per_block = (blockDim.x >> 5) / warps_per_row * rows_per_warp;  // rows at a time
    u32 slot = warp / warps_per_row * rows_per_warp + group, part = warp % warps_per_row;
    u32 stride = lanes_per_row * warps_per_row;  // positions between a lane's values
    float sign = smallest ? -1.0f : 1.0f;
    u64 step = (u64)gridDim.x * per_block;
    for (u64 first = (u64)blockIdx.x * per_block; first < n_rows; first += step) {
        u64 row = first + slot;
        u32 k_i = 0u;
        threshold_key_t least = ~(threshold_key_t)0;
        u32 last = 0u;
        elem_t value{};  // the lane's least key's value once it holds one
        if (row < n_rows) {
            u32 m_i = m;
            k_i = k;
            row_lengths(lengths, k_per_row, row, &m_i, &k_i);
            const elem_t* v = values + row * (u64)k;
            for (u32 base = lanes_per_row * part; base < k_i; base += stride * THRESHOLD_BATCH)
                threshold_batch(v, base, stride, sub, k_i, sign, &least, &last, &value);
        }
        ThresholdPart own = lanes_per_row < 32u  // launch-uniform
                                ? threshold_group_of(least, last, value, lanes_per_row)
                                : threshold_part_of(least, last, value);
        if (warps_per_row > 1u) {  // launch-uniform: every warp meets both barriers
            if (lane == 0u) {
                s_least[warp] = own.least;
                s_last[warp] = own.last;
                s_value[warp] = own.value;
            }
            __syncthreads();
            u32 at = slot * warps_per_row + lane;
            bool held = lane < warps_per_row;
            threshold_key_t part_least = held ? s_least[at] : ~(threshold_key_t)0;
            u32 part_last = held ? s_last[at] : 0u;
            own = threshold_part_of(part_least, part_last, held ? s_value[at] : elem_t{});
            __syncthreads();  // the slots are read before the block's next rows fill them
        }
        if (row < n_rows && part == 0u && sub == 0u)
            threshold[row] = k_i == 0u ? __int_as_float(0x7fc00000) : threshold_value(own.value);
    }
}
