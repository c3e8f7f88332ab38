"""The GPU time of one call, between CUDA events, queued behind a GPU spin so that the host's
dispatch is not in the figure (the method of docs/performance.md): shared by the device-side
benchmark scripts, which import it from their own directory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

# GPU clock cycles of the spin ahead of a start event (about 1 ms, then 10 ms on a retry).
SPIN_CYCLES = (2_000_000, 20_000_000)


def spin_timed_ms(fn: Callable[[], Any]) -> float:
    """Milliseconds of ``fn()`` on the GPU, queued behind a spin; retried behind a longer spin
    when the host was late (the start event had already passed when ``fn`` returned)."""
    for cycles in SPIN_CYCLES:
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles)
        start.record()
        fn()
        queued = not start.query()
        end.record()
        end.synchronize()
        if queued:
            return float(start.elapsed_time(end))
    raise RuntimeError(
        "the call could not be queued behind the spin: timing would include the host"
    )
