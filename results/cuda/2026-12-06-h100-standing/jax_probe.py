#!/usr/bin/env python3
"""Where a one-row rtopk.jax.topk call's time goes under jax.jit: the host's dispatch time
per selection against the queued throughput, the way bench/jax_topk.py measures it (one
jitted function selecting from a tuple of distinct arrays, `reps` calls queued, one wait).

    python3 jax_probe.py N M K rtopk|lax [ARRAYS] [REPS]

Prints one JSON line: dispatch_us (wall time until the last call returned, per selection)
and throughput_us (until its results were ready, per selection).
"""

from __future__ import annotations

import json
import sys
import time

import jax
import jax.numpy as jnp
import rtopk.jax as rjax


def main() -> None:
    n, m, k = (int(a) for a in sys.argv[1:4])
    which = sys.argv[4]
    arrays = int(sys.argv[5]) if len(sys.argv) > 5 else 64
    reps = int(sys.argv[6]) if len(sys.argv) > 6 else 20
    keys = jax.random.split(jax.random.PRNGKey(0), arrays)
    xs = tuple(jax.random.normal(key, (n, m), dtype=jnp.float32) for key in keys)

    def select(x):  # type: ignore[no-untyped-def]
        if which == "rtopk":
            return rjax.topk(x, k, True, True)
        return jax.lax.top_k(x, k)

    fn = jax.jit(lambda xs: jnp.stack([select(x)[0][..., 0].sum() for x in xs]))
    for _ in range(3):
        fn(xs).block_until_ready()
    dispatch, total = [], []
    for _ in range(5):
        start = time.perf_counter()
        out = None
        for _ in range(reps):
            out = fn(xs)
        returned = time.perf_counter()
        assert out is not None
        out.block_until_ready()
        done = time.perf_counter()
        dispatch.append((returned - start) * 1e6 / (reps * arrays))
        total.append((done - start) * 1e6 / (reps * arrays))
    dispatch.sort()
    total.sort()
    row = {"n": n, "m": m, "k": k, "which": which, "arrays": arrays, "reps": reps,
           "dispatch_us": dispatch[2], "throughput_us": total[2]}
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
