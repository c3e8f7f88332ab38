"""rtopk.distributed on the CPU with the gloo backend, 2–4 processes: every result equals
rtopk.topk on the gathered input (value bits and indices), on hostile rows and uneven shards,
in every mode, with the agreement remembered (check="once") or run on every call ("always");
ranks that disagree raise ValueError on every rank; a remembered request runs one collective
and reads nothing on the host. Skipped visibly where torch (or torch.distributed) is absent, as
in CI."""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Tuple

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


def _split_rows_cases(rank: int, world: int, device: str = "cpu", check: str = "once") -> None:
    n, m = 6, 301
    for family in ("hostile", "ties", "nan-heavy", "subnormal"):
        full = torch.from_numpy(hostile_matrix(n, m, family, seed=17)).to(device)
        for trial in range(3):
            lo, hi = _cuts(m, world, seed=trial + 10 * world)[rank]
            for k in (0, 1, 5, 64, m):
                for largest in (True, False):
                    for sorted_ in (False, True):
                        what = f"{family} trial {trial} k={k} largest={largest} sorted={sorted_}"
                        want = rtopk.topk(full, k, -1, largest, sorted_)
                        # the first call agrees; with "once" the second is remembered
                        for call in ("first", "second"):
                            got = rd.topk_split_rows(
                                full[:, lo:hi], k, -1, largest, sorted_, check=check
                            )
                            _same(got.values, want.values, f"{call} values {what}")
                            _same(got.indices, want.indices, f"{call} indices {what}")
        # the row split along dim 0 of the transposed matrix, int32 indices
        lo, hi = _cuts(m, world, seed=99)[rank]
        t = full.t().contiguous()
        want = rtopk.topk(t, 9, 0, indices_dtype=torch.int32)
        for _ in range(2):
            got = rd.topk_split_rows(t[lo:hi], 9, 0, indices_dtype=torch.int32, check=check)
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
            want = rtopk.topk(full, k, -1, largest, sorted_)
            for _ in range(2):
                got = rd.topk_split_rows(full[:, lo:hi], k, -1, largest, sorted_)
                assert got.values.dtype == dt, what
                _same(got.values, want.values, "values " + what)
                _same(got.indices, want.indices, "indices " + what)


def _sharded_rows_cases(rank: int, world: int) -> None:
    n, m = 37, 130
    full = torch.from_numpy(hostile_matrix(n, m, "hostile", seed=5))
    lo, hi = _cuts(n, world, seed=3)[rank]
    cases = ((0, True, False, None), (7, True, True, None), (130, False, False, None))
    cases += ((5, True, False, torch.int32), (1, False, True, None))
    for k, largest, sorted_, index_dtype in cases:
        options = {} if index_dtype is None else {"indices_dtype": index_dtype}
        mine = rtopk.topk(full[lo:hi], k, -1, largest, sorted_, **options)
        every = rtopk.topk(full, k, -1, largest, sorted_, **options)
        for check in ("always", "once", "once"):
            got = rd.topk_sharded_rows(
                full[lo:hi], k, -1, largest, sorted_, gather_to=world - 1, check=check, **options
            )
            _same(got.values, mine.values, f"local values k={k}")
            _same(got.indices, mine.indices, f"local indices k={k}")
            if rank == world - 1:
                _same(got.all_values, every.values, f"gathered values k={k}")
                _same(got.all_indices, every.indices, f"gathered indices k={k}")
            else:
                assert got.all_values is None and got.all_indices is None
    alone = rd.topk_sharded_rows(full[lo:hi], 3)
    assert alone.all_values is None


def _disagreement_cases(rank: int, world: int, check: str) -> None:
    x = torch.randn(4, 50)
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_split_rows(x, 3 + rank, -1, check=check)  # k differs
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_sharded_rows(torch.randn(4, 50 + rank), 3, check=check)  # row widths differ
    with pytest.raises(ValueError, match="ranks disagree"):
        # dtypes differ
        rd.topk_split_rows(x.to(torch.float16) if rank == 0 else x, 3, check=check)
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_sharded_rows(x, 3, gather_to=rank, check=check)  # gather_to differs
    with pytest.raises(ValueError, match="ranks disagree"):
        # one rank calls the other function
        if rank == 0:
            rd.topk_split_rows(x, 3, check=check)
        else:
            rd.topk_sharded_rows(x, 3, check=check)
    # a rank that refuses its own request raises its own error, the others name it
    mine = (TypeError, "int32") if rank == 0 else (ValueError, "rank 0: refused")
    with pytest.raises(mine[0], match=mine[1]):
        rd.topk_split_rows(x.to(torch.int32) if rank == 0 else x, 3, check=check)
    mine = (IndexError, "out of range") if rank == 1 else (ValueError, "rank 1: refused")
    with pytest.raises(mine[0], match=mine[1]):
        rd.topk_split_rows(x, 3, 5 if rank == 1 else -1, check=check)
    with pytest.raises(ValueError, match="out of range for rows of"):
        rd.topk_split_rows(x, 101, check=check)  # k above both shards together
    # after the refusals the group still works
    got = rd.topk_split_rows(x, 2, check=check)
    assert got.values.shape == (4, 2)


def _always_cases(rank: int, world: int) -> None:
    # check="always": an agreed request, then one rank alone changes k: every rank raises
    x = torch.randn(3, 40)
    for _ in range(2):
        rd.topk_split_rows(x, 4, check="always")
        rd.topk_sharded_rows(x, 4, gather_to=0, check="always")
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_split_rows(x, 4 + rank, check="always")
    with pytest.raises(ValueError, match="ranks disagree"):
        rd.topk_sharded_rows(x, 5 if rank == world - 1 else 4, gather_to=0, check="always")
    with pytest.raises(ValueError, match="check must be"):
        rd.topk_split_rows(x, 4, check="never")


# torch.distributed's collectives, counted in the spawned ranks
_COLLECTIVES = (
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "gather",
    "gather_object",
    "monitored_barrier",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
)
# Tensor methods that read a tensor's values on the host (a synchronisation on a GPU)
_HOST_READS = ("tolist", "item", "cpu", "__bool__", "__int__", "__float__", "__index__")


@contextmanager
def _counted() -> Iterator[Dict[str, int]]:
    """Counts the collectives and host reads of tensors made inside the block."""
    counts: Dict[str, int] = {}
    saved: List[Tuple[Any, str, Any]] = []

    def wrap(owner: Any, name: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def counting(*args: Any, **kwargs: Any) -> Any:
            counts[name] = counts.get(name, 0) + 1
            return original(*args, **kwargs)

        saved.append((owner, name, original))
        setattr(owner, name, counting)

    for name in _COLLECTIVES:
        if hasattr(dist, name):
            wrap(dist, name)
    for name in _HOST_READS:
        wrap(torch.Tensor, name)
    try:
        yield counts
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def _collectives(counts: Dict[str, int]) -> int:
    return sum(n for name, n in counts.items() if name in _COLLECTIVES)


def _host_reads(counts: Dict[str, int]) -> int:
    return sum(n for name, n in counts.items() if name in _HOST_READS)


def _cached_path_cases(rank: int, world: int) -> None:
    full = torch.from_numpy(hostile_matrix(3, 97, "hostile", seed=29))
    # with 3 ranks rank 0 holds nothing; the next holds fewer than k, the last the rest
    bounds = [0, 4, 97] if world == 2 else [0, 0, 4, 97]
    shard = full[:, bounds[rank] : bounds[rank + 1]]
    want = rtopk.topk(full, 9, -1, True, True)
    with _counted() as first:
        got = rd.topk_split_rows(shard, 9)
    with _counted() as second:
        again = rd.topk_split_rows(shard, 9)
    for g in (got, again):
        _same(g.values, want.values, "values")
        _same(g.indices, want.indices, "indices")
    assert _collectives(first) >= 2, first  # the agreement (barrier, metadata) and the data
    assert _collectives(second) == 1, second
    assert second.get("all_gather_into_tensor") == 1, second
    assert _host_reads(second) == 0, second
    # an uncacheable option: the call agrees again, answer unchanged
    with _counted() as fresh:
        got = rd.topk_split_rows(shard, 9, check="always")
    _same(got.indices, want.indices, "always")
    assert _collectives(fresh) >= 2 and _host_reads(fresh) > 0, fresh
    # k = 0: agreed once, then nothing travels
    rd.topk_split_rows(shard, 0)
    with _counted() as none:
        got = rd.topk_split_rows(shard, 0)
    assert got.values.shape == (3, 0) and got.indices.dtype == torch.int64
    assert _collectives(none) == 0, none
    # clear_cache: the next call agrees again
    rd.clear_cache()
    with _counted() as cleared:
        rd.topk_split_rows(shard, 9)
    assert _collectives(cleared) >= 2, cleared
    # sharded rows: no communication without gather_to once agreed, even as the row count
    # changes; one gather with it
    rows = torch.from_numpy(hostile_matrix(8 + rank, 33, "ties", seed=rank))
    rd.topk_sharded_rows(rows, 4)
    with _counted() as alone:
        for n in (8, 3, 0):
            local = rd.topk_sharded_rows(rows[:n], 4)
            _same(local.indices, rtopk.topk(rows[:n], 4).indices, "sharded local")
    assert _collectives(alone) == 0, alone
    rd.topk_sharded_rows(rows, 4, gather_to=0)
    with _counted() as gathered:
        got2 = rd.topk_sharded_rows(rows, 4, gather_to=0)
    assert _collectives(gathered) == 1 and gathered.get("gather") == 1, gathered
    assert _host_reads(gathered) == 0, gathered
    if rank == 0:
        assert got2.all_values.shape == (sum(8 + r for r in range(world)), 4)


def _split_pays_case() -> None:
    # the measured thresholds (docs/distributed.md): 256 MiB eager, 32 MiB in a CUDA graph
    assert (rd.SPLIT_PAYS_BYTES, rd.SPLIT_PAYS_BYTES_GRAPHED) == (256 << 20, 32 << 20)
    assert not rd.split_pays(0)
    assert not rd.split_pays((256 << 20) - 1)
    assert rd.split_pays(256 << 20)
    assert rd.split_pays(1 << 40)
    assert not rd.split_pays((32 << 20) - 1, graphed=True)
    assert rd.split_pays(32 << 20, graphed=True)
    assert not rd.split_pays(32 << 20, graphed=False)
    with pytest.raises(TypeError, match="graphed must be a bool"):
        rd.split_pays(1 << 30, graphed=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        rd.split_pays(-1)
    with pytest.raises(TypeError):
        rd.split_pays(True)
    with pytest.raises(TypeError):
        rd.split_pays(1.5)  # type: ignore[arg-type]


def _gpu_split_rows_cases(rank: int, world: int) -> None:
    _split_rows_cases(rank, world, "cuda:0")


def _nccl_split_rows(rank: int, world: int) -> List[Tuple[Any, Any, Any]]:
    """(shard, whole row, dtype) per dtype: hostile rows of an odd length, split unevenly."""
    full = torch.from_numpy(hostile_matrix(4, 4099, "hostile", seed=31)).cuda()
    lo, hi = _cuts(4099, world, seed=5)[rank]
    return [(full[:, lo:hi].to(dt), full.to(dt), dt) for dt in (torch.float32, torch.bfloat16)]


def _nccl_no_sync_cases(rank: int, world: int) -> None:
    # NCCL, one GPU per rank: identical answers, and a remembered request synchronises nothing
    for shard, whole, dt in _nccl_split_rows(rank, world):
        for k, largest, sorted_ in ((50, True, True), (7, False, False)):
            want = rtopk.topk(whole, k, -1, largest, sorted_)
            rd.topk_split_rows(shard, k, -1, largest, sorted_)  # agrees
            torch.cuda.synchronize()
            torch.cuda.set_sync_debug_mode("error")
            try:
                got = rd.topk_split_rows(shard, k, -1, largest, sorted_)
            finally:
                torch.cuda.set_sync_debug_mode("default")
            _same(got.values, want.values, f"{dt} values")
            _same(got.indices, want.indices, f"{dt} indices")


def _nccl_graph_cases(rank: int, world: int) -> None:
    # a remembered request captured in a CUDA graph and replayed
    shard, whole, _ = _nccl_split_rows(rank, world)[0]
    want = rtopk.topk(whole, 50)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        rd.topk_split_rows(shard, 50)  # agrees, outside the capture
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        got = rd.topk_split_rows(shard, 50)
    graph.replay()
    torch.cuda.synchronize()
    _same(got.values, want.values, "graph values")
    _same(got.indices, want.indices, "graph indices")


def _nccl_replay_cases(rank: int, world: int) -> None:
    # a remembered request replays its captured merge (rtopk.distributed's
    # _capture): new values on every call, the answers of one GPU holding the whole rows
    m = 5000
    # uneven shards, every one above k
    bounds = [m * r // world + (300 if 0 < r < world else 0) for r in range(world + 1)]
    lo, hi = bounds[rank], bounds[rank + 1]
    cases = (
        (torch.float32, 64, True, False, {}),
        (torch.bfloat16, 300, False, True, {"indices_dtype": torch.int32}),
    )
    kept = []
    for dt, k, largest, sorted_, opts in cases:
        for step in range(4):
            gen = torch.Generator(device="cuda").manual_seed(1000 + step)
            whole = torch.randn(3, m, device="cuda", generator=gen).to(dt)
            if step == 2:
                whole[:, ::7] = whole[:, 3:4]  # ties across the shards
            want = rtopk.topk(whole, k, -1, largest, sorted_, **opts)
            shard = whole[:, lo:hi].contiguous()
            got = rd.topk_split_rows(shard, k, -1, largest, sorted_, **opts)
            _same(got.values, want.values, f"{dt} step {step} values")
            _same(got.indices, want.indices, f"{dt} step {step} indices")
            kept.append((got, want, f"{dt} step {step}"))
            # the same shape with other strides: the hot path's own launch needs contiguous
            # rows, so this one selects through rtopk.topk first; the same answer
            strided = whole.t().contiguous().t()[:, lo:hi]
            assert not strided.is_contiguous()
            got = rd.topk_split_rows(strided, k, -1, largest, sorted_, **opts)
            _same(got.values, want.values, f"{dt} step {step} strided values")
            _same(got.indices, want.indices, f"{dt} step {step} strided indices")
            # along dim 0 (a transposed shard): the same request kind, its own replay
            got = rd.topk_split_rows(shard.t(), k, 0, largest, sorted_, **opts)
            _same(got.values, want.values.t(), f"{dt} step {step} dim 0 values")
            _same(got.indices, want.indices.t(), f"{dt} step {step} dim 0 indices")
            # another stream has no replay of its own: it runs eagerly, the same answer
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                other = rd.topk_split_rows(shard, k, -1, largest, sorted_, **opts)
            torch.cuda.current_stream().wait_stream(side)
            _same(other.values, want.values, f"{dt} step {step} other stream")
            _same(other.indices, want.indices, f"{dt} step {step} other stream")
    # each of the four requests (two dtypes, two dims) holds its merge's graph for this stream
    stream = torch.cuda.current_stream().cuda_stream
    plans = [p for p in rd._AGREED.values() if hasattr(p, "replays")]
    assert sum(stream in p.replays for p in plans) == 4, [list(p.replays) for p in plans]
    # and the hot path found each by one lookup; those along the last dimension select
    # straight into the send buffer
    assert len(rd._HOT) == 4, list(rd._HOT)
    assert sum(h.replay.launch is not None for h in rd._HOT.values()) == 2
    # an answer is the caller's own: later calls (whose merges reuse the graph's buffers)
    # leave it as it was
    for got, want, what in kept:
        _same(got.values, want.values, f"{what} values, kept")
        _same(got.indices, want.indices, f"{what} indices, kept")
    # the GPU kernel named: replayed too; the same answer
    gen = torch.Generator(device="cuda").manual_seed(3000)
    whole = torch.randn(3, m, device="cuda", generator=gen)
    want = rtopk.topk(whole, 64)
    for _ in range(3):
        got = rd.topk_split_rows(whole[:, lo:hi].contiguous(), 64, algo="cuda")
        _same(got.values, want.values, "algo=cuda values")
        _same(got.indices, want.indices, "algo=cuda indices")
    # k past a shard: the candidates skip columns, the eager path, the same answer
    bounds = [0, 40] + [40 + (m - 40) * r // (world - 1) for r in range(1, world)]
    lo, hi = bounds[rank], bounds[rank + 1]
    for step in range(3):
        gen = torch.Generator(device="cuda").manual_seed(2000 + step)
        whole = torch.randn(2, m, device="cuda", generator=gen)
        want = rtopk.topk(whole, 64)
        got = rd.topk_split_rows(whole[:, lo:hi].contiguous(), 64)
        _same(got.values, want.values, f"k past a shard, step {step}")
        _same(got.indices, want.indices, f"k past a shard, step {step}")


def _worker(
    rank: int, world: int, store: str, case: Callable[[int, int], None], backend: str = "gloo"
) -> None:
    if backend == "nccl":
        torch.cuda.set_device(rank)
    else:
        torch.set_num_threads(1)
    dist.init_process_group(backend, init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        case(rank, world)
        # every rank out of its last collective before any leaves
        dist.barrier()
    except BaseException:
        dist.destroy_process_group()
        raise
    # a passing rank leaves without tearing the group down: gloo's teardown races with a
    # peer's (an intermittent "terminate called without an active exception", SIGABRT) and
    # a test has nothing to clean up past its process
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _run(world: int, case: Callable[[int, int], None], backend: str = "gloo") -> None:
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        mp.spawn(_worker, args=(world, store, case, backend), nprocs=world, join=True)


_TWO_GPUS = pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.device_count() < 2 or not dist.is_nccl_available(),
    reason="fewer than two CUDA devices (or no NCCL): NCCL tests skipped",
)


@_TWO_GPUS
def test_nccl_split_rows_identical_without_a_host_synchronisation() -> None:
    _run(2, _nccl_no_sync_cases, "nccl")


@_TWO_GPUS
def test_nccl_split_rows_in_a_cuda_graph() -> None:
    _run(2, _nccl_graph_cases, "nccl")


@_TWO_GPUS
def test_nccl_split_rows_replay_their_merge() -> None:
    _run(2, _nccl_replay_cases, "nccl")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: GPU test skipped")
def test_split_rows_on_one_gpu_one_process_per_rank() -> None:
    # gloo carries the candidates through the host; each rank selects on the GPU
    _run(2, _gpu_split_rows_cases)


@pytest.mark.parametrize("world", [2, 3, 4])
def test_split_rows_equal_one_device(world: int) -> None:
    _run(world, _split_rows_cases)


def test_split_rows_agreeing_on_every_call_equal_one_device() -> None:
    _run(3, functools.partial(_split_rows_cases, device="cpu", check="always"))


def test_split_rows_of_16_bit_floats() -> None:
    _run(2, _split_rows16_cases)


@pytest.mark.parametrize("world", [2, 3])
def test_sharded_rows_select_locally_and_gather(world: int) -> None:
    _run(world, _sharded_rows_cases)


@pytest.mark.parametrize("check", ["once", "always"])
def test_ranks_that_disagree_all_raise(check: str) -> None:
    _run(2, functools.partial(_disagreement_cases, check=check))


def test_check_always_catches_a_rank_that_changes_alone() -> None:
    _run(2, _always_cases)


@pytest.mark.parametrize("world", [2, 3])
def test_a_remembered_request_runs_one_collective_and_no_host_read(world: int) -> None:
    _run(world, _cached_path_cases)


def test_split_pays_from_the_measured_shard_sizes() -> None:
    _split_pays_case()


def test_without_a_process_group_it_says_so() -> None:
    with pytest.raises(RuntimeError, match="init_process_group"):
        rd.topk_split_rows(torch.randn(2, 5), 1)
