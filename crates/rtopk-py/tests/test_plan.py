"""``rtopk.plan``: the launch program for a named GPU, without one; the same object as
``rtopk plan --json`` prints (where the binary is at hand)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import rtopk


def names(program: dict) -> list:
    return [s["name"] for s in program["steps"]]


def test_a_long_row_is_split_unless_iterations_are_asked_for() -> None:
    # k = 50: below the sampled radix select's smallest k (64), which takes k = 100
    split = rtopk.plan(1, 1 << 27, 50, sorted=False, gpu="h100")
    assert names(split)[0] == "select_chunks" and names(split)[-1] == "gather_indices"
    assert split["depth"] >= 1 and split["counts"] is False
    radix = rtopk.plan(1, 1 << 27, 100, sorted=False, gpu="h100")
    assert names(radix)[:2] == ["radix_sample", "radix_digits"]
    whole = rtopk.plan(1, 1 << 27, 100, sorted=False, iterations=True, gpu="h100")
    assert names(whole) == ["select_rows"]


def test_sorted_output_adds_the_sort_and_every_step_names_its_buffers() -> None:
    p = rtopk.plan(4096, 768, 32, gpu="a100", dtype="bfloat16")
    assert names(p) == ["select_rows", "sort_rows"]
    assert p["launch"]["elem"] == "bf16" and p["limits"]["sm_count"] == 108
    for step in p["steps"]:
        assert step["unit"].startswith("rtopk_")
        assert all(0 <= b < len(p["buffers"]) for b in step["reads"] + step["writes"])


def test_bad_requests_raise() -> None:
    with pytest.raises(ValueError, match="v100"):
        rtopk.plan(4, 256, 8, gpu="v100")
    with pytest.raises(ValueError):
        rtopk.plan(4, 256, 300, gpu="h100")


def test_the_command_line_prints_the_same_program() -> None:
    binary = os.environ.get("RTOPK_BIN")
    if not binary or not os.path.exists(binary):
        pytest.skip("no rtopk binary (set RTOPK_BIN) to compare with")
    args = ["plan", "--gpu", "h100", "--n", "3", "--m", "100000", "-k", "64", "--json"]
    cli = json.loads(subprocess.run([binary, *args], check=True, capture_output=True).stdout)
    assert cli == rtopk.plan(3, 100000, 64, sorted=False, gpu="h100")


def test_sim_coverage_names_the_steps_and_branches_the_run_reached() -> None:
    import numpy as np

    x = (np.arange(3 * 20000, dtype=np.int64) * 7919 % 10007 - 5000).astype(np.float32)
    split = rtopk.sim.run(x.reshape(3, 20000), 16, sorted=False, strategy="split", coverage=True)
    assert split.coverage is not None
    assert split.coverage["steps"].get("gather_indices", 0) >= 1
    assert split.coverage["branches"].get("split_rows", 0) > 0
    assert rtopk.sim.run(x[:512].reshape(2, 256), 8).coverage is None
    small = rtopk.sim.run(x[:512].reshape(2, 256), 8, coverage=True)
    assert small.coverage is not None
    assert small.coverage["steps"] == {"select_rows": 1, "sort_rows": 1}
