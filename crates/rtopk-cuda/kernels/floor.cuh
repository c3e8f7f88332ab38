// Split rows: the floor (docs/kernel.md, "Split rows: the floor"; warp-sim's floor.rs). Every
// chunk's k-th key is at or below its row's k-th (a chunk's top k are k keys of the row), so
// the largest k-th key a chunk has found so far, the row's floor, is too. A chunk with at most
// k keys at or above the floor selects those alone and pads the rest of its k results with
// the mode's last value, below every floor: no key under the floor is in the row's top k, and
// the next stage never selects a pad. A chunk with more searches from the floor up and raises
// the floor to its own threshold. The floor only ever rises, so a stale read is still a floor:
// the answer never depends on the order in which chunks run, only the work does.
#pragma once

#include "select.cuh"

// No floor cuts the row (count_at_floor): more than any k.
#define NO_FLOOR 0xffffffffu

// The mode's last value of the unit's element type, below every key a floor can hold: -inf
// in largest mode, NaN in smallest (docs/contract.md §1). Integer rows take no floor
// (rtopk-plan's takes_floor).
__device__ __forceinline__ elem_t last_value(float sign) {
#if ELEM_KIND == ELEM_F32
    return __uint_as_float(sign < 0.0f ? 0x7fc00000u : 0xff800000u);
#elif ELEM_KIND == ELEM_F16
    return (elem_t)(sign < 0.0f ? 0x7e00u : 0xfc00u);
#elif ELEM_KIND == ELEM_BF16
    return (elem_t)(sign < 0.0f ? 0x7fc0u : 0xff80u);
#else
    return (elem_t)0;
#endif
}

// A relaxed atomic load (PTX ISA, "Memory Consistency Model": ld.relaxed.gpu): a word that
// other blocks raise meanwhile, read without a race.
__device__ __forceinline__ u32 load_relaxed(const u32* at) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(at) : "memory");
    return v;
}

// The floor of chunk row_id's row (chunk_of), read by one thread with a relaxed load: other
// chunks raise it meanwhile, and every chunk of a row reads the one word, which an atomic
// read-modify-write would serialize.
__device__ __forceinline__ u32 floor_of(const Params& p, u64 row_id) {
    return load_relaxed(p.floor + chunk_of(p, row_id).row);
}

// Raises the floor of chunk row_id's row to key, a key at or below the chunk's k-th (its cut's
// band_lo: count_ge(band_lo) >= k), from one thread: an atomic max only where the floor, read
// again, lies below it (most chunks of a wave find it raised past theirs already).
__device__ __forceinline__ void raise_floor(const Params& p, u64 row_id, u32 key) {
    u32* at = p.floor + chunk_of(p, row_id).row;
    if (load_relaxed(at) < key) atomicMax(at, key);
}

// The keys at or above a floor that cuts the row (floor > lo_key, the row's least key), else
// NO_FLOOR. At most k: those are the chunk's selection; more: the search starts from the floor.
template <class Row>
__device__ __forceinline__ u32 count_at_floor(const Row& row, u32 floor, u32 lo_key) {
    return floor > lo_key ? row.count_ge_positive(floor) : NO_FLOOR;
}

// The cut that takes every key at or above the floor, n of them (n <= k): all strong, no band.
__device__ __forceinline__ Cut floor_cut(u32 floor, u32 n) {
    return Cut{floor - 1u, floor, n};
}

// Results n .. k of a chunk that selected n < k keys at or above its floor: index PAD and the
// mode's last value (last_value), from threads t striding by stride.
__device__ __forceinline__ void pad_below_floor(const Params& p, elem_t* out_val, idx_t* out_idx, u32 n,
                                                u32 t, u32 stride) {
    elem_t last = last_value(p.sign);
    for (u32 i = n + t; i < p.k; i += stride) {
        out_idx[i] = (idx_t)-1;
        out_val[i] = last;
    }
}
