#!/usr/bin/env python3
"""Time rtopk.jax.topk against jax.lax.top_k on the GPU, inside jax.jit, on the same arrays.

Method (the same for both): standard-normal float32 rows drawn on the device (bfloat16 with
--dtype), as many distinct input arrays as it takes for cycling through them to evict L2 (4x
its size, at least 4 for rows that small), one jitted function that selects from each of them
in turn (distinct operands, so XLA merges nothing) and keeps one value of each result;
`--reps` calls of it queued back to back, then one wait: time per selection = wall time / (reps
x arrays), the GPU's throughput with the host's dispatch hidden behind queued work. The median
of `--trials` such runs is reported. rtopk is asked for sorted=True (jax.lax.top_k always sorts)
and its values are compared with jax.lax.top_k's, bit for bit.

    python3 bench/jax_topk.py --grid rtopk,vocab --out DIR
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import rtopk.jax as rjax

L2_BYTES = 50 * 2**20  # H100's L2; the rotation is sized against 4x this

GRIDS: dict[str, list[tuple[int, int, int]]] = {
    # the RTop-K paper's grid (the one `rtopk bench cuda --grid rtopk` times)
    "tiny": [(64, 512, 16), (2, 128256, 50)],
    "rtopk": [
        (n, m, k)
        for n in (16384, 65536, 262144, 1048576)
        for m in (256, 512, 768)
        for k in (16, 32, 64, 96, 128)
    ],
    # LLM vocabularies (Llama 3: 128256, Qwen 2: 151936) at sampler k and a wide k
    "vocab": [(n, m, k) for n in (1, 16, 64, 256) for m in (128256, 151936) for k in (50, 1024)],
}


def batched(select: Callable[[Any], tuple[Any, Any]]) -> Any:
    """One jitted call selecting from every array of a tuple, keeping one value of each."""

    def run(xs: tuple[Any, ...]) -> Any:
        return jnp.stack([select(x)[0][..., 0].sum() for x in xs])

    return jax.jit(run)


def throughput_ms(fn: Any, xs: tuple[Any, ...], reps: int, trials: int) -> float:
    """Median over trials of milliseconds per selection, reps calls queued per trial."""
    for _ in range(3):
        fn(xs).block_until_ready()
    per_call = []
    for _ in range(trials):
        start = time.perf_counter()
        out = None
        for _ in range(reps):
            out = fn(xs)
        assert out is not None
        out.block_until_ready()
        per_call.append((time.perf_counter() - start) * 1e3 / (reps * len(xs)))
    return statistics.median(per_call)


def inputs(n: int, m: int, dtype: str, seed: int) -> tuple[Any, ...]:
    nbytes = n * m * jnp.dtype(dtype).itemsize
    count = min(max(math.ceil(4 * L2_BYTES / nbytes), 4 if nbytes < 2**26 else 1), 64)
    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    return tuple(jax.random.normal(key, (n, m), dtype=jnp.float32).astype(dtype) for key in keys)


def cell(n: int, m: int, k: int, dtype: str, reps: int, trials: int) -> dict[str, Any]:
    xs = inputs(n, m, dtype, seed=n * 1_000_003 + m)
    ours = batched(lambda x: rjax.topk(x, k, sorted=True))
    lax = batched(lambda x: jax.lax.top_k(x, k))
    v, _ = jax.jit(lambda x: rjax.topk(x, k, sorted=True))(xs[0])
    lv, _ = jax.jit(lambda x: jax.lax.top_k(x, k))(xs[0])
    same = bool(
        np.array_equal(np.asarray(v.astype(jnp.float32)), np.asarray(lv.astype(jnp.float32)))
    )
    t_ours = throughput_ms(ours, xs, reps, trials)
    t_lax = throughput_ms(lax, xs, reps, trials)
    del xs
    return {
        "n": n,
        "m": m,
        "k": k,
        "dtype": dtype,
        "rtopk_ms": t_ours,
        "lax_top_k_ms": t_lax,
        "speedup": t_lax / t_ours,
        "values_identical": same,
    }


def report(rows: list[dict[str, Any]], grid: str) -> str:
    lines = [
        f"## {grid}: jax.lax.top_k time / rtopk.jax.topk time (both jitted, sorted)",
        "",
        "| N | M | k | dtype | rtopk ms | lax.top_k ms | speedup | values identical |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['m']} | {r['k']} | {r['dtype']} | {r['rtopk_ms']:.4f} | "
            f"{r['lax_top_k_ms']:.4f} | {r['speedup']:.2f}x | {r['values_identical']} |"
        )
    speedups = [r["speedup"] for r in rows]
    geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
    lines += [
        "",
        (
            f"geometric mean {geo:.2f}x, worst {min(speedups):.2f}x, "
            f"values identical in {sum(r['values_identical'] for r in rows)} of {len(rows)} cells"
        ),
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", default="rtopk,vocab")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    device = jax.devices()[0]
    header = f"device: {device.device_kind}; jax {jax.__version__}"
    texts = [header]
    for grid in args.grid.split(","):
        rows = []
        for n, m, k in GRIDS[grid]:
            rows.append(cell(n, m, k, args.dtype, args.reps, args.trials))
            print(json.dumps(rows[-1]), flush=True)
        (args.out / f"jax_{grid}_{args.dtype}.json").write_text(json.dumps(rows, indent=1))
        texts.append(report(rows, grid))
    text = "\n\n".join(texts) + "\n"
    (args.out / f"jax_{args.dtype}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
