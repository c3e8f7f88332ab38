"""rtopk.distributed on the CPU with the gloo backend, 2–4 processes: every result equals
rtopk.topk on the gathered input (value bits and indices), on hostile rows and uneven shards,
in every mode; ranks that disagree raise ValueError on every rank. Skipped visibly where torch
(or torch.distributed) is absent, as in CI."""

from __future__ import annotations

import os
import tempfile
from typing import Any, Callable, List, Tuple

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="rtopk.distributed needs torch: tests skipped")
dist = pytest.importorskip("torch.distributed", reason="no torch.distributed: tests skipped")
if not dist.is_available():  # pragma: no cover
    pytest.skip("this torch has no torch.distributed: tests skipped", allow_module_level=True)
mp = pytest.importorskip("torch.multiprocessing")

import rtopk  # noqa: E402
import rtopk.distributed as rd  # noqa: E402
from oracle import hostile_matrix  # noqa: E402


def _bits(t: Any) -> Any:
    if t.dtype == torch.float32:
        return t.contiguous().view(torch.int32)
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.contiguous().view(torch.int16)
    return t


def _same(got: Any, want: Any, what: str) -> None:
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert torch.equal(_bits(got), _bits(want)), f"{what}: differ"


def _cuts(total: int, world: int, seed: int) -> List[Tuple[int, int]]:
    """Uneven contiguous shards of ``total``, some empty or shorter than k."""
    rng = np.random.default_rng(seed)
    points = sorted(int(p) for p in rng.integers(0, total + 1, size=world - 1))
    bounds = [0, *points, total]
    return [(bounds[r], bounds[r + 1]) for r in range(world)]


def _split_rows_cases(rank: int, world: int, device: str = "cpu") -> None:
    n, m = 6, 301
    for family in ("hostile", "ties", "nan-heavy", "subnormal"):
        full = torch.from_numpy(hostile_matrix(n, m, family, seed=17)).to(device)
        for trial in range(3):
            lo, hi = _cuts(m, world, seed=trial + 10 * world)[rank]
            for k in (0, 1, 5, 64, m):
                for largest in (True, False):
                    for sorted_ in (False, True):
                        what = f"{family} trial {trial} k={k} largest={largest} sorted={sorted_}"
                        got = rd.topk_split_rows(full[:, lo:hi], k, -1, largest, sorted_)
                        want = rtopk.topk(full, k, -1, largest, sorted_)
                        _same(got.values, want.values, "values " + what)
                        _same(got.indices, want.indices, "indices " + what)
        # the row split along dim 0 of the transposed matrix, int32 indices
        lo, hi = _cuts(m, world, seed=99)[rank]
        t = full.t().contiguous()
        got = rd.topk_split_rows(t[lo:hi], 9, 0, indices_dtype=torch.int32)
        want = rtopk.topk(t, 9, 0, indices_dtype=torch.int32)
        _same(got.values, want.values, "dim 0 values")
        _same(got.indices, want.indices, "dim 0 indices")


def _split_rows16_cases(rank: int, world: int) -> None:
    # 16-bit rows: hostile float32 rows rounded (NaNs stay NaN, small subnormals become ±0,
    # many values tie); candidates travel in the input's dtype
    full32 = torch.from_numpy(hostile_matrix(5, 203, "hostile", seed=23))
    for dt in (torch.float16, torch.bfloat16):
        full = full32.to(dt)
        lo, hi = _cuts(203, world, seed=7)[rank]
        for k, largest, sorted_ in ((1, True, False), (40, False, True), (203, True, True)):
            what = f"{dt} k={k} largest={largest} sorted={sorted_}"
            got = rd.topk_split_rows(full[:, lo:hi], k, -1, largest, sorted_)
            want = rtopk.topk(full, k, -1, largest, sorted_)
            assert got.values.dtype == dt, what
            _same(got.values, want.values, "values " + what)
            _same(got.indices, want.indices, "indices " + what)


def _sharded_rows_cases(rank: int, world: int) -> None:
    n, m = 37, 130
    full = torch.from_numpy(hostile_matrix(n, m, "hostile", seed=5))
    lo, hi = _cuts(n, world, seed=3)[rank]
    for k, largest, sorted_ in ((0, True, False), (7, True, True), (130, False, False)):
        got = rd.topk_sharded_rows(full[lo:hi], k, -1, largest, sorted_, gather_to=world - 1)
        mine = rtopk.topk(full[lo:hi], k, -1, largest, sorted_)
        _same(got.values, mine.values, f"local values k={k}")
        _same(got.indices, mine.indices, f"local indices k={k}")
        if rank == world - 1:
            every = rtopk.topk(full, k, -1, largest, sorted_)
            _same(got.all_values, every.values, f"gathered values k={k}")
            _same(got.all_indices, every.indices, f"gathered indices k={k}")
        else:
            assert got.all_values is None and got.all_indices is None
    alone = rd.topk_sharded_rows(full[lo:hi], 3)
    assert alone.all_values is None


def _disagreement_cases(rank: int, world: int) -> None:
    x = torch.randn(4, 50)
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_split_rows(x, 3 + rank, -1)  # k differs
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_sharded_rows(torch.randn(4, 50 + rank), 3)  # row widths differ
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_split_rows(x.to(torch.float16) if rank == 0 else x, 3)  # dtypes differ
    # after the refusals the group still works
    got = rd.topk_split_rows(x, 2)
    assert got.values.shape == (4, 2)


def _gpu_split_rows_cases(rank: int, world: int) -> None:
    _split_rows_cases(rank, world, "cuda:0")


def _worker(rank: int, world: int, store: str, case: Callable[[int, int], None]) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        case(rank, world)
    finally:
        dist.destroy_process_group()


def _run(world: int, case: Callable[[int, int], None]) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        mp.spawn(_worker, args=(world, store, case), nprocs=world, join=True)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: GPU test skipped")
def test_split_rows_on_one_gpu_one_process_per_rank() -> None:
    # gloo carries the candidates through the host; each rank selects on the GPU
    _run(2, _gpu_split_rows_cases)


@pytest.mark.parametrize("world", [2, 3, 4])
def test_split_rows_equal_one_device(world: int) -> None:
    _run(world, _split_rows_cases)


def test_split_rows_of_16_bit_floats() -> None:
    _run(2, _split_rows16_cases)


@pytest.mark.parametrize("world", [2, 3])
def test_sharded_rows_select_locally_and_gather(world: int) -> None:
    _run(world, _sharded_rows_cases)


def test_ranks_that_disagree_all_raise() -> None:
    _run(2, _disagreement_cases)


def test_without_a_process_group_it_says_so() -> None:
    with pytest.raises(RuntimeError, match="init_process_group"):
        rd.topk_split_rows(torch.randn(2, 5), 1)
