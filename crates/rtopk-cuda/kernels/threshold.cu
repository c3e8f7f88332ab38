// The program's last step where thresholds are wanted (docs/contract.md §5, docs/kernel.md,
// "Thresholds"): rtopk_row_threshold reads each row's k_i selected values off the values
// output and writes, as f32, the one that ranks last in the mode — the least own key, and
// among equal keys the last position (the highest index in index order, the last entry in
// sorted order), as topk-ref's ragged::threshold_of — or NaN where k_i = 0. One warp per row,
// one pass over the values, THRESHOLD_BATCH loads a lane in flight.

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

// Values a lane loads before it compares any (threshold_batch): a row of k = 2048 is four
// rounds of loads in flight, not 64 dependent ones.
#define THRESHOLD_BATCH 16

// threshold_batch: lane `lane`'s values of positions base + 32 j + lane (j < THRESHOLD_BATCH,
// those below k_i), all loaded before the first is compared, folded into the lane's least key
// and the last position holding it (position + 1): positions rise, so a key equal to the
// least moves `last` on.
__device__ __forceinline__ void threshold_batch(const elem_t* v, u32 base, u32 lane, u32 k_i, float sign,
                                                threshold_key_t* least, u32* last) {
    elem_t x[THRESHOLD_BATCH];
#pragma unroll
    for (int j = 0; j < THRESHOLD_BATCH; ++j) {
        u32 i = base + 32u * (u32)j + lane;
        if (i < k_i) x[j] = v[i];
    }
#pragma unroll
    for (int j = 0; j < THRESHOLD_BATCH; ++j) {
        u32 i = base + 32u * (u32)j + lane;
        if (i < k_i) {
            threshold_key_t key = threshold_key(x[j], sign);
            if (key <= *least) { *least = key; *last = i + 1u; }
        }
    }
}

// Warp g of the grid takes rows g, g + warps, ... (the grid covers the rows once): its own
// width and k (row_lengths), each lane's least own key among its values and the last position
// holding it (threshold_batch, one pass), the warp's least key (threshold_min) and the last
// position of the lanes holding it, and lane 0 writes that value.
extern "C" __global__ void __launch_bounds__(256) rtopk_row_threshold(const elem_t* values, float* threshold,
                                                                      u64 n_rows, u32 m, u32 k, int smallest,
                                                                      const u32* lengths,
                                                                      const u32* k_per_row) {
    wait_for_previous_step();
    u32 lane = threadIdx.x & 31u;
    u64 warps = (u64)gridDim.x * (blockDim.x >> 5);
    float sign = smallest ? -1.0f : 1.0f;
    for (u64 row = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < n_rows; row += warps) {
        u32 m_i = m, k_i = k;
        row_lengths(lengths, k_per_row, row, &m_i, &k_i);
        const elem_t* v = values + row * (u64)k;
        threshold_key_t least = ~(threshold_key_t)0;
        u32 last = 0u;
        for (u32 base = 0u; base < k_i; base += 32u * THRESHOLD_BATCH)
            threshold_batch(v, base, lane, k_i, sign, &least, &last);
        threshold_key_t row_least = threshold_min(least);
        last = __reduce_max_sync(FULL_MASK, least == row_least ? last : 0u);
        if (lane == 0u) threshold[row] = k_i == 0u ? __int_as_float(0x7fc00000) : threshold_value(v[last - 1u]);
    }
}
