#!/usr/bin/env python3
"""Random requests through ``rtopk.topk`` on a CUDA tensor, each against the same request on the
CPU and, where the matrix is small, against a NumPy statement of docs/contract.md §1 and §5 that
shares no code with the package.

Where the checks in the test suites run chosen shapes, this draws them: widths at and around
every boundary the program routes by (warp, block, cluster, split, radix rows; 16-bit pick rows;
the grouped and sorted paths), any k from 0 to M, rows of their own length, a k per row (host
values or a device tensor with ``width``), threshold hints (NaN, ±inf, the row's own threshold
and near misses), thresholds and iteration counts asked for, early stopping and recall targets,
f32, f16, bf16 and a few integer and f64 calls, both modes, sorted or not, int32 or int64
indices, strided inputs, on rows holding NaNs of both signs and any payload, ±inf, ±0,
subnormals and heavy ties.

What must hold (docs/contract.md): the GPU's values and thresholds bit for bit the CPU path's,
its indices and iteration counts equal; with a recall target every row holds distinct indices
inside its length, the input's bits at them and at least ceil(r·k) of the canonical top k; the
NumPy oracle's index sets and orders equal to the CPU path's where it runs. The inputs are drawn
as NumPy arrays (bfloat16 from ml_dtypes) and given to the CPU path as they are; the GPU gets
them as CUDA tensors.

    python3 bench/fuzz_cuda.py --seconds 240 --seed 1 --out fuzz.json
    python3 bench/fuzz_cuda.py --device cpu --seconds 60   # no GPU: the CPU path and the oracle
    python3 bench/fuzz_cuda.py --jax ...   # also rtopk.jax.topk (the CUDA target on a GPU)

The exit status is 1 when any case failed (each failure's request is in the JSON record, and
its input in ``--keep`` if given), 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

import ml_dtypes
import numpy as np
import rtopk

# Widths at and around the program's boundaries (docs/kernel.md): quarter, half and whole warp
# rows, block rows, cluster rows and their sizes, splits, radix rows.
WIDTHS = [
    1, 2, 3, 7, 8, 16, 31, 32, 33, 63, 64, 65, 100, 127, 128, 160, 255, 256, 257, 300, 511, 512,
    513, 640, 768, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 3072, 3073, 4096, 5000, 8191, 8192,
    8193, 16383, 16384, 16385, 24577, 32000, 32768, 32769, 40000, 49152, 65536, 81920, 100000,
    100352, 128256, 131072, 151936, 163840, 262144, 300000, 500000, 786432, 1 << 20,
    (1 << 21) + 3, 1 << 22,
]  # fmt: skip
ROWS = [1, 1, 1, 2, 3, 4, 8, 13, 16, 32, 33, 64, 96, 128, 256, 1000, 4096, 16384, 65536, 1 << 20]
FLOATS = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
OTHERS = {"float64": np.float64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
          "uint8": np.uint8, "int64": np.int64}  # fmt: skip
# Bit patterns beyond the draws: NaNs of both signs and other payloads, ±inf, ±0, the least
# subnormals, the greatest finite values.
SPECIAL = {
    "float32": [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7F800000, 0xFF800000, 0x0,
                0x80000000, 0x1, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF],
    "float16": [0x7E00, 0xFE00, 0x7C01, 0xFC33, 0x7C00, 0xFC00, 0x0, 0x8000, 0x1, 0x8001, 0x7BFF,
                0xFBFF],
    "bfloat16": [0x7FC0, 0xFFC0, 0x7F81, 0xFF85, 0x7F80, 0xFF80, 0x0, 0x8000, 0x1, 0x8001,
                 0x7F7F, 0xFF7F],
}  # fmt: skip
BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}
MAX_ELEMENTS = 1 << 24
ORACLE_ELEMENTS = 1 << 16


class Case:
    """One drawn request: its shape, input family and everything passed to ``rtopk.topk``."""

    def __init__(self, rng: np.random.Generator, case_id: int) -> None:
        self.id = case_id
        floats = rng.random() < 0.92
        self.dtype = str(rng.choice(list(FLOATS if floats else OTHERS)))
        self.m = int(rng.choice(WIDTHS)) if rng.random() < 0.8 else int(rng.integers(1, 70000))
        fit = [n for n in ROWS if n * self.m <= MAX_ELEMENTS] or [1]
        self.n = int(rng.choice(fit))
        self.family = str(rng.choice(["normal", "ties", "special", "tiny", "sorted", "equal"]))
        self.largest = bool(rng.random() < 0.75)
        self.sorted = bool(rng.random() < 0.4)
        self.k = draw_k(rng, self.m)
        self.per_row_k = bool(rng.random() < 0.15)
        self.k_on_device = bool(rng.random() < 0.5)
        self.lengths = bool(rng.random() < 0.2)
        self.lengths_on_device = bool(rng.random() < 0.5)
        self.hint = str(rng.choice(["none"] * 6 + ["own", "near", "far", "nan", "inf"]))
        self.threshold = bool(rng.random() < 0.25)
        self.iterations = bool(rng.random() < 0.15)
        self.stop = str(rng.choice(["exact"] * 8 + ["max_iter", "recall"]))
        self.max_iter = int(rng.integers(0, 12))
        self.recall = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 1.0]))
        self.int32 = bool(rng.random() < 0.2)
        self.transposed = bool(rng.random() < 0.08 and self.n * self.m <= 1 << 20)
        if not floats:  # the integer and f64 kernels: plain requests
            self.hint, self.stop, self.lengths, self.per_row_k = "none", "exact", False, False
        if self.stop != "exact":
            self.hint, self.per_row_k, self.lengths = "none", False, False

    def describe(self) -> Dict[str, Any]:
        return dict(vars(self))

    def exact(self) -> "Case":
        """This request without early stopping, counts, thresholds, hints or a transpose."""
        e = Case.__new__(Case)
        e.__dict__.update(self.__dict__)
        e.stop, e.iterations, e.threshold, e.hint, e.transposed = (
            "exact",
            False,
            False,
            "none",
            False,
        )
        return e


def draw_k(rng: np.random.Generator, m: int) -> int:
    choices = [0, 1, 2, m - 1, m, 8, 50, 64, 256, 512, 1024, 2048, 4096, 32768]
    if rng.random() < 0.6:
        k = int(rng.choice(choices))
    else:
        k = int(rng.integers(0, m + 1)) if rng.random() < 0.5 else int(rng.integers(0, 2049))
    return max(0, min(k, m))


def draw_matrix(rng: np.random.Generator, c: Case) -> np.ndarray:
    """The input in c.dtype, drawn from c.family."""
    shape = (c.n, c.m)
    if c.dtype in OTHERS and c.dtype != "float64":
        info = np.iinfo(c.dtype)
        lo, hi = (-3, 4) if c.family == "ties" else (int(info.min), int(info.max))
        lo = max(lo, int(info.min))
        return rng.integers(lo, hi, shape, dtype=np.int64, endpoint=True).astype(OTHERS[c.dtype])
    if c.family == "ties":
        v = rng.integers(-4, 5, shape).astype(np.float64)
    elif c.family == "tiny":
        v = rng.standard_normal(shape) * 1e-40  # subnormal in f32, zero in the 16-bit types
    elif c.family == "sorted":
        v = np.sort(rng.standard_normal(shape), axis=1)
    elif c.family == "equal":
        v = np.full(shape, float(rng.standard_normal()))
    else:
        v = rng.standard_normal(shape) * float(rng.choice([1.0, 1e3, 1e-3]))
    x = v.astype({**FLOATS, **OTHERS}[c.dtype])
    if c.dtype in SPECIAL and (c.family == "special" or rng.random() < 0.1):
        pool = np.array(SPECIAL[c.dtype], dtype=np.uint64)
        mask = rng.random(shape) < float(rng.choice([0.01, 0.1, 0.5]))
        view = x.view(BITS[x.itemsize])
        view[mask] = pool[rng.integers(0, len(pool), int(mask.sum()))].astype(view.dtype)
    return x


def per_row(rng: np.random.Generator, c: Case) -> Tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    """The per-row k and lengths drawn for c (None where c has none)."""
    ks = None
    if c.per_row_k:
        ks = rng.integers(0, max(c.k, 1) + 1, c.n).astype(np.int64)
        ks[int(rng.integers(0, c.n))] = c.k  # the output width is reached
        ks = np.minimum(ks, c.k)
    lens = None
    if c.lengths:
        lens = rng.integers(0, c.m + 1, c.n).astype(np.int64)
        edges = [0, c.m, min(c.m, c.k), max(0, c.k - 1)]
        for i in range(min(c.n, 4)):
            lens[i] = edges[i]
    return ks, lens


def hints_for(rng: np.random.Generator, c: Case, own: np.ndarray) -> Optional[np.ndarray]:
    """The hints c asks for, from the rows' own thresholds (float32)."""
    if c.hint == "none":
        return None
    h = own.astype(np.float32).copy()
    finite = np.isfinite(h)
    noise = rng.standard_normal(h.shape).astype(np.float32)
    if c.hint == "near":
        h = np.where(finite, h * (1 + 0.01 * noise), h)
    elif c.hint == "far":
        h = np.where(finite, h + 10 * noise, 0.0)
    elif c.hint == "nan":
        h = np.where(rng.random(h.shape) < 0.5, np.nan, h)
    elif c.hint == "inf":
        h = np.where(rng.random(h.shape) < 0.5, np.inf, -np.abs(h))
    return h.astype(np.float32)


def call(x: Any, c: Case, k: Any, lens: Any, hint: Any, width: Optional[int], int32: Any) -> Any:
    """rtopk.topk on x (an array or a tensor) as c asks; outputs in rows × columns."""
    kw: Dict[str, Any] = {"largest": c.largest, "sorted": c.sorted}
    if c.stop == "max_iter":
        kw["max_iter"] = c.max_iter
    if c.stop == "recall":
        kw["recall"] = c.recall
    if c.iterations:
        kw["return_iterations"] = True
    if c.threshold:
        kw["return_threshold"] = True
    if c.int32:
        kw["indices_dtype"] = int32
    for name, value in (("lengths", lens), ("hint", hint), ("width", width)):
        if value is not None:
            kw[name] = value
    if c.transposed:
        r = rtopk.topk(x.T, k, 0, **kw)
        return type(r)(*(t.T if t.ndim == 2 else t for t in r))
    return rtopk.topk(x, k, **kw)


def host(t: Any) -> np.ndarray:
    """A result on the host as NumPy, floats as their bit patterns."""
    if hasattr(t, "detach"):  # a tensor
        import torch

        t = t.detach().cpu().contiguous()
        floating = t.is_floating_point()
        if floating:
            t = t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])
        a = t.numpy()
        if floating:  # the bits unsigned, as an array's below
            a = a.view(BITS[a.itemsize])
    else:
        a = np.ascontiguousarray(t)
    if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16:
        a = a.view(BITS[a.itemsize])
    return a.astype(np.int64) if a.dtype.kind in "iu" and a.dtype.itemsize < 8 else a


def as_bits(a: np.ndarray) -> np.ndarray:
    return a.view(BITS[a.itemsize]) if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16 else a


def oracle(
    x: np.ndarray, c: Case, ks: Optional[np.ndarray], lens: Optional[np.ndarray]
) -> np.ndarray:
    """docs/contract.md §1 and §5 in NumPy: each row's indices, -1 past its selection."""
    exact_ints = x.dtype == np.int64
    v = x if exact_ints else x.astype(np.float64)
    out = np.full((c.n, c.k), -1, dtype=np.int64)
    for i in range(c.n):
        length = c.m if lens is None else int(lens[i])
        take = min(c.k if ks is None else int(ks[i]), length)
        row, idx = v[i, :length], np.arange(length)
        if exact_ints:  # int64 beyond float64's integers: order by the integers themselves
            key = -row if c.largest else row
            order = np.lexsort((idx, key))
        else:
            nan = np.isnan(row)
            val = np.where(nan, 0.0, row) + 0.0  # -0 == +0
            order = np.lexsort((idx, -val, ~nan)) if c.largest else np.lexsort((idx, val, nan))
        sel = order[:take]
        out[i, :take] = sel if c.sorted else np.sort(sel)
    return out


def recall_problems(x: np.ndarray, c: Case, got: Any, exact: Any) -> List[str]:
    """A recall answer: distinct indices inside each row, the input's bits at them, and at least
    ceil(r·k) of the canonical top k (exact: the CPU path's exact call)."""
    xb, vals, idx = as_bits(x), host(got.values), host(got.indices)
    canon = host(exact.indices)
    for i in range(c.n):
        row = idx[i, : c.k]
        if len(set(row.tolist())) != c.k or (c.k and (row.min() < 0 or row.max() >= c.m)):
            return [f"row {i}: indices not distinct inside the row"]
        if not np.array_equal(vals[i, : c.k], xb[i, row]):
            return [f"row {i}: values are not the input's bits"]
        if len(set(canon[i].tolist()) & set(row.tolist())) < math.ceil(c.recall * c.k - 1e-9):
            return [f"row {i}: recall below {c.recall}"]
    return []


def differences(c: Case, a: Any, b: Any) -> List[str]:
    """Where two results of the same request differ."""
    problems = []
    for name, asked in (("values", True), ("indices", True), ("iterations", c.iterations)):
        if asked and not np.array_equal(host(getattr(a, name)), host(getattr(b, name))):
            problems.append(f"{name} differ")
    if c.threshold:  # f32 bit for bit, but any NaN for a NaN (contract §5: "NaN")
        ta, tb = host(a.threshold).astype(np.uint32), host(b.threshold).astype(np.uint32)
        nan_a, nan_b = (ta & 0x7FFFFFFF) > 0x7F800000, (tb & 0x7FFFFFFF) > 0x7F800000
        if not np.array_equal(nan_a, nan_b) or not np.array_equal(ta[~nan_a], tb[~nan_b]):
            problems.append("thresholds differ")
    return problems


def jax_problems(x: np.ndarray, c: Case, cpu: Any) -> List[str]:
    """``rtopk.jax.topk`` on JAX's default backend (the CUDA target on a GPU), half the time
    under ``jax.jit``, against the CPU path's answer: sorted, the same values and indices;
    unsorted (its order unspecified), the same index set and the input's bits at it."""
    import jax
    import jax.numpy as jnp
    import rtopk.jax as rjax

    def select(a: Any) -> Any:
        return rjax.topk(a, c.k, c.largest, c.sorted)

    run = jax.jit(select) if c.id % 2 else select
    values, indices = (np.asarray(t) for t in run(jnp.asarray(x)))
    got_idx, want_idx = indices.astype(np.int64), host(cpu.indices)
    if not c.sorted:
        order = np.argsort(got_idx, axis=1, kind="stable")
        got_idx = np.take_along_axis(got_idx, order, axis=1)
        values = np.take_along_axis(values, order, axis=1)
    problems = []
    if not np.array_equal(got_idx, want_idx):
        problems.append("JAX: indices differ")
    elif not np.array_equal(host(values), host(cpu.values)):
        problems.append("JAX: values differ")
    return problems


def to_device(a: np.ndarray) -> Any:
    import torch

    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).cuda()
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def run_case(
    rng: np.random.Generator, c: Case, gpu: bool, jax_too: bool
) -> Tuple[List[str], Dict[str, Any]]:
    """The case's problems, and its inputs (kept where it fails)."""
    x = draw_matrix(rng, c)
    ks, lens = per_row(rng, c)
    k = c.k if ks is None else ks
    hint = None
    if c.hint != "none":
        own = rtopk.topk(x, k, largest=c.largest, lengths=lens, return_threshold=True)
        hint = hints_for(rng, c, np.asarray(own.threshold))
    inputs = {"x": x, "k": ks, "lengths": lens, "hint": hint}
    cpu = call(x, c, k, lens, hint, None, np.int32)
    problems: List[str] = []
    if c.stop == "recall":
        exact = call(x, c.exact(), k, lens, None, None, np.int32)
        problems += recall_problems(x, c, cpu, exact)
    elif c.stop == "exact" and c.n * c.m <= ORACLE_ELEMENTS:
        if not np.array_equal(host(cpu.indices), oracle(x, c, ks, lens)):
            problems.append("the CPU path's indices are not the oracle's")
    if jax_too and c.dtype in FLOATS and c.stop == "exact" and not (c.lengths or c.per_row_k):
        problems += jax_problems(x, c, cpu)
    if gpu:
        import torch

        k_d: Any = k
        width = None
        if ks is not None and c.k_on_device:
            k_d, width = torch.tensor(ks, dtype=torch.int32, device="cuda"), c.k
        lens_d: Any = lens
        if lens is not None and c.lengths_on_device:
            lens_d = torch.tensor(lens, dtype=torch.int32, device="cuda")
        hint_d = to_device(hint) if hint is not None else None
        got = call(to_device(x), c, k_d, lens_d, hint_d, width, torch.int32)
        torch.cuda.synchronize()
        problems += [f"GPU: {p}" for p in differences(c, got, cpu)]
    return problems, inputs


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument(
        "--jax", action="store_true", help="also rtopk.jax.topk on JAX's default backend"
    )
    ap.add_argument("--out", help="the JSON record")
    ap.add_argument("--keep", help="an .npz of the first failing cases' inputs")
    args = ap.parse_args()
    gpu = args.device == "cuda"
    rng = np.random.default_rng(args.seed)
    start, cases = time.time(), 0
    failures: List[Dict[str, Any]] = []
    kept: Dict[str, np.ndarray] = {}
    seen: Counter[str] = Counter()
    while time.time() - start < args.seconds:
        c = Case(rng, cases)
        try:
            # NaN payloads cast and hints scaled past f32's range warn; their values are meant
            with np.errstate(all="ignore"):
                problems, inputs = run_case(rng, c, gpu, args.jax)
        except Exception as e:  # a valid request refused, or a crash: a failure too
            problems, inputs = [f"{type(e).__name__}: {e}"], {}
        cases += 1
        seen[f"{c.dtype} {c.stop} {'sorted' if c.sorted else 'unsorted'}"] += 1
        if problems:
            failures.append({"case": c.describe(), "problems": problems})
            print(f"FAIL {problems} {c.describe()}", flush=True)
            if len(failures) <= 4:
                for name, value in inputs.items():
                    if value is not None:
                        kept[f"case{c.id}_{name}"] = as_bits(value)
    elapsed = time.time() - start
    print(f"{cases} cases in {elapsed:.0f} s on {args.device}, {len(failures)} failed")
    for key, count in sorted(seen.items()):
        print(f"  {count:6d}  {key}")
    if args.out:
        with open(args.out, "w") as f:
            record = {"cases": cases, "seconds": elapsed, "seed": args.seed, "seen": dict(seen)}
            json.dump({**record, "device": args.device, "failures": failures}, f, indent=1)
    if args.keep and kept:
        np.savez_compressed(args.keep, **kept)  # type: ignore[arg-type]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
