#!/usr/bin/env python3
"""What one step of "RTop-K across blocks" (a first design of split rows) costs on the GPU: the
blocks of a row each hold a chunk on chip, count it at a threshold, and combine the chunk
counts through global memory before the next step (an atomic add, a per-row arrival counter,
a spin until every block of the row has arrived). This times that loop alone: `blocks` blocks
per row, each counting its chunk (in registers) at `steps` thresholds, with and without the
global combine, so that the difference per step is the price of the per-row barrier.

    python3 bench/cross_block_rounds.py [--reps R] [--out FILE.json]

Not the kernel: a measurement of the design's floor (CUDA events, median of the reps, the
data on chip after the first load, every block of the grid resident at once)."""

import argparse
import functools
import json
from collections.abc import Callable
from typing import Any

import cupy as cp  # type: ignore[import-not-found]

SOURCE = r"""
extern "C" __global__ void rounds(const float* x, unsigned long long chunk, int blocks_per_row,
                                  int steps, int combine, unsigned int* sums,
                                  unsigned int* arrived, float* out) {
    const int PER = 32;  // elements per thread held in registers (chunk = PER * blockDim.x)
    __shared__ unsigned int part[32];
    __shared__ float thres_s;
    const int row = blockIdx.x / blocks_per_row;
    const float* mine = x + (unsigned long long)blockIdx.x * chunk;
    float v[PER];
#pragma unroll
    for (int i = 0; i < PER; ++i) v[i] = mine[i * blockDim.x + threadIdx.x];
    float lo = -4.0f, hi = 4.0f;
    for (int s = 0; s < steps; ++s) {
        float t = 0.5f * (lo + hi);
        unsigned int c = 0;
#pragma unroll
        for (int i = 0; i < PER; ++i) c += v[i] >= t;
        for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
        if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = c;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned int total = 0;
            for (int w = 0; w < (int)(blockDim.x >> 5); ++w) total += part[w];
            if (combine) {
                unsigned int* slot = sums + (row * steps + s);
                atomicAdd(slot, total);
                __threadfence();
                unsigned int want = (unsigned int)blocks_per_row * (s + 1);
                atomicAdd(arrived + row, 1u);
                while (atomicAdd(arrived + row, 0u) < want) {
                }
                total = atomicAdd(slot, 0u);
            }
            // the row's count decides the next half, as the search does
            thres_s = total > 64u * (combine ? blocks_per_row : 1) ? t : -t;
        }
        __syncthreads();
        float next = thres_s;
        if (next == t) lo = t; else hi = t;
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = lo;
}
"""


def launch(
    kern: Any, shape: tuple[int, int], args: tuple[Any, ...], counters: tuple[Any, ...]
) -> None:
    """One run of the kernel, its global counters zeroed first (both timed)."""
    for c in counters:
        c.fill(0)
    kern((shape[0],), (shape[1],), args)


def time_ms(fn: Callable[[], None], reps: int) -> float:
    """The median of `reps` CUDA-event timings of `fn`, after two warm-ups."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for r in range(reps + 2):
        start.record()
        fn()
        end.record()
        end.synchronize()
        if r >= 2:
            times.append(cp.cuda.get_elapsed_time(start, end))
    times.sort()
    return times[len(times) // 2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--out")
    a = ap.parse_args()
    kern = cp.RawKernel(SOURCE, "rounds", options=("--std=c++17",))
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    threads = 256
    chunk = 32 * threads  # 8192 values per block
    rows_out = []
    for rows, blocks_per_row in [(1, 16), (1, 64), (1, 128), (4, 32), (16, 8)]:
        grid = rows * blocks_per_row
        assert grid <= sms, "every block of the grid must be resident (one per SM here)"
        x = cp.random.standard_normal(grid * chunk, dtype=cp.float32)
        out = cp.empty(grid, cp.float32)
        res: dict[str, Any] = {
            "rows": rows,
            "blocks_per_row": blocks_per_row,
            "chunk": chunk,
        }
        for steps in (0, 20, 40):
            for combine in (0, 1):
                sums = cp.zeros(rows * max(steps, 1), cp.uint32)
                arrived = cp.zeros(rows, cp.uint32)
                args: tuple[Any, ...] = (x, cp.uint64(chunk), cp.int32(blocks_per_row))
                args += (cp.int32(steps), cp.int32(combine), sums, arrived, out)
                go = functools.partial(launch, kern, (grid, threads), args, (sums, arrived))
                res[f"steps{steps}_combine{combine}_ms"] = time_ms(go, a.reps)
        # the barrier's price per step: the slope over 20..40 steps, with minus without
        with_c = (res["steps40_combine1_ms"] - res["steps20_combine1_ms"]) / 20
        without = (res["steps40_combine0_ms"] - res["steps20_combine0_ms"]) / 20
        res["us_per_step_combined"] = with_c * 1e3
        res["us_per_step_block_only"] = without * 1e3
        rows_out.append(res)
        print(
            f"rows {rows:3d} x {blocks_per_row:3d} blocks of {chunk}: "
            f"{with_c * 1e3:.2f} us per step with the per-row combine, "
            f"{without * 1e3:.2f} us block-local; "
            f"0 steps {res['steps0_combine1_ms'] * 1e3:.1f} us, "
            f"20 steps {res['steps20_combine1_ms'] * 1e3:.1f} us (combined)"
        )
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows_out, f, indent=1)


if __name__ == "__main__":
    main()
