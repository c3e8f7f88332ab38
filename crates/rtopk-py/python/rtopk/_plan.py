"""``rtopk.plan``: the launch program the GPU runs for rows of a shape (``rtopk plan --json``)."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from . import _native


def plan(
    n: int,
    m: int,
    k: int,
    *,
    largest: bool = True,
    sorted: bool = True,
    iterations: bool = False,
    dtype: str = "float32",
    max_iter: Optional[int] = None,
    precision: float = 0.0,
    gpu: Optional[str] = None,
) -> Dict[str, Any]:
    """The launch program of a top-k of ``n`` rows of width ``m``: one entry of ``steps`` per
    kernel launch (its name, kernel, grid, and the ``buffers`` it reads and writes), as the
    CUDA executor and the simulator run it and as ``rtopk plan --json`` prints it.

    ``gpu`` names the GPU whose published limits plan it (``"a100"``, ``"h100"``, ``"h200"``;
    no GPU needed); without it, GPU 0 of this machine (``CudaUnavailableError`` where there is
    none). Without ``iterations`` long or few rows may be split, as ``rtopk.topk`` splits them.
    """
    request = _native.Request(
        k=k,
        algo="cuda",
        largest=largest,
        sorted=sorted,
        iterations=iterations,
        max_iter=max_iter,
        precision=precision,
        dtype=dtype,
    )
    program: Dict[str, Any] = json.loads(_native.plan_json(request, n, m, gpu))
    return program
