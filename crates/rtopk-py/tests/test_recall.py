"""A recall target (docs/contract.md §6): ``rtopk.topk(..., recall=r)`` returns k distinct
indices inside each row, the input's bits at them, and at least ``ceil(r·k)`` of the row's
canonical top k — on ordinary rows and on rows sorted ascending (the order in which the band's
first elements by index are the lowest); ``recall=1`` is exact; bad targets and conflicts are
refused. NumPy here; torch CPU and CUDA tensors below, skipped (visibly) without them."""

from __future__ import annotations

import importlib
import math
from typing import Any, Tuple

import numpy as np
import numpy.typing as npt
import pytest
import rtopk
from oracle import canonical_rows, hostile_matrix, same_bits
from rtopk import _native

TARGETS = [0.5, 0.8, 0.9, 0.95, 0.99]


def rows(n: int, m: int, seed: int) -> npt.NDArray[np.float32]:
    """Normal rows, then the same rows sorted ascending, then hostile rows (NaNs, ties)."""
    normal = hostile_matrix(n, m, "normal", seed)
    return np.concatenate([normal, np.sort(normal, axis=1), hostile_matrix(n, m, "hostile", seed)])


def assert_recall(
    x: npt.NDArray[Any],
    values: npt.NDArray[Any],
    indices: npt.NDArray[Any],
    k: int,
    r: float,
    largest: bool = True,
) -> None:
    """Every row: k distinct indices in range, the input's bits, recall >= r against the
    canonical top k."""
    _, exact = canonical_rows(x.astype(np.float32), k, largest)
    need = math.ceil(r * k - 1e-6)
    for row in range(x.shape[0]):
        chosen = indices[row]
        assert len(set(chosen.tolist())) == k, row
        assert ((0 <= chosen) & (chosen < x.shape[1])).all(), row
        assert same_bits(values[row], x[row, chosen]), row
        hits = len(set(chosen.tolist()) & set(exact[row].tolist()))
        assert hits >= need, (row, r, hits, need)


@pytest.mark.parametrize("r", TARGETS)
@pytest.mark.parametrize("largest", [True, False])
def test_numpy_rows_keep_the_target(r: float, largest: bool) -> None:
    x = rows(6, 777, 3)
    for k in (1, 8, 100, 776):
        got = rtopk.topk(x, k, largest=largest, sorted=False, recall=r, return_iterations=True)
        assert_recall(x, got.values, got.indices, k, r, largest)
        exact = rtopk.topk(x, k, largest=largest, sorted=False, return_iterations=True)
        # the recall search is exact bisection stopped earlier
        assert (got.iterations <= exact.iterations).all()


def test_the_recall_search_stops_earlier_than_exact() -> None:
    x = hostile_matrix(64, 4096, "normal", 5)
    got = rtopk.topk(x, 64, recall=0.9, return_iterations=True)
    exact = rtopk.topk(x, 64, return_iterations=True)
    assert got.iterations.sum() < exact.iterations.sum()


def test_recall_one_is_exact_and_sorted_output_is_value_order() -> None:
    x = rows(4, 300, 9)
    for sorted_ in (True, False):
        exact = rtopk.topk(x, 37, sorted=sorted_, return_iterations=True)
        one = rtopk.topk(x, 37, sorted=sorted_, recall=1.0, return_iterations=True)
        assert same_bits(one.values, exact.values)
        assert np.array_equal(one.indices, exact.indices)
        assert np.array_equal(one.iterations, exact.iterations)
    got = rtopk.topk(x, 37, recall=0.8)
    with np.errstate(invalid="ignore"):  # signalling NaNs widen with a warning
        v = got.values.astype(np.float64)
    finite = ~np.isnan(v).any(axis=1)
    assert (np.diff(v[finite], axis=1) <= 0).all()


def test_sixteen_bit_rows_keep_the_target() -> None:
    x = rows(3, 500, 1)
    with np.errstate(over="ignore"):  # the largest floats become ±inf in float16
        h = x.astype(np.float16)
    got = rtopk.topk(h, 50, sorted=False, recall=0.9)
    assert got.values.dtype == np.float16
    _, exact = canonical_rows(h.astype(np.float32), 50)
    for row in range(h.shape[0]):
        chosen = set(got.indices[row].tolist())
        assert len(chosen) == 50 and len(chosen & set(exact[row].tolist())) >= 45
        assert np.array_equal(
            got.values[row].view(np.uint16), h[row, got.indices[row]].view(np.uint16)
        )


def test_the_bisection_family_and_auto_take_it() -> None:
    x = hostile_matrix(3, 200, "normal", 2)
    for algo in ("auto", "bisect", "sim"):
        got = rtopk.topk(x, 20, algo=algo, sorted=False, recall=0.9)
        assert_recall(x, got.values, got.indices, 20, 0.9)
    # a hint is taken and ignored, as with a precision
    hinted = rtopk.topk(x, 20, recall=0.9, hint=np.zeros(3, np.float32))
    assert np.array_equal(hinted.indices, rtopk.topk(x, 20, recall=0.9).indices)
    assert _native.Request(k=1, recall=0.5).recall == 0.5
    assert _native.Request(k=1).recall is None
    assert "recall=0.5" in repr(_native.Request(k=1, recall=0.5))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"recall": 0.0}, ValueError, r"recall 0 is out of range"),
        ({"recall": 1.5}, ValueError, r"recall 1.5 is out of range"),
        ({"recall": float("nan")}, ValueError, r"recall NaN is out of range"),
        ({"recall": -0.5}, ValueError, r"recall -0.5 is out of range"),
        ({"recall": True}, TypeError, r"recall"),
        ({"recall": "0.9"}, TypeError, r"recall"),
        ({"recall": 0.9, "max_iter": 3}, ValueError, r"--recall .*--max-iter.*cannot be combined"),
        ({"recall": 0.9, "precision": 0.1}, ValueError, r"--precision.*cannot be combined"),
        ({"recall": 0.9, "algo": "heap"}, ValueError, r"only valid for bisect, sim and cuda"),
    ],
)
def test_bad_targets_and_conflicts_are_refused(kwargs: Any, error: type, match: str) -> None:
    x = hostile_matrix(2, 50, "normal", 0)
    with pytest.raises(error, match=match):
        rtopk.topk(x, 5, **kwargs)


def _torch() -> Any:
    return pytest.importorskip("torch", reason="torch is not installed: torch tests skipped")


def _tensor_topk(x: Any, k: int, r: float) -> Tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    got = rtopk.topk(x, k, sorted=False, recall=r)
    return got.values.cpu().numpy(), got.indices.cpu().numpy()


def test_torch_cpu_tensors_keep_the_target() -> None:
    torch = _torch()
    importlib.import_module("rtopk.ops")  # registers torch.ops.rtopk.topk
    x = rows(4, 640, 7)
    for r in TARGETS:
        values, indices = _tensor_topk(torch.from_numpy(x), 64, r)
        assert_recall(x, values, indices, 64, r)
    one = rtopk.topk(torch.from_numpy(x), 64, recall=1.0)
    exact = rtopk.topk(torch.from_numpy(x), 64)
    assert torch.equal(one.indices, exact.indices)
    with pytest.raises(ValueError, match=r"cannot be combined"):
        rtopk.topk(torch.from_numpy(x), 5, recall=0.9, max_iter=2)
    # the custom op carries the target (its fake too, under opcheck), and autograd runs it
    from rtopk.ops import op_options

    op = torch.ops.rtopk.topk.default
    t = torch.from_numpy(x[:3, :200].copy())
    args = (t, 20, -1, op_options(sorted=False, iterations=True, recall=0.9), None, None, None)
    torch.library.opcheck(op, args)
    v, i, _, _ = op(*args)
    assert_recall(x[:3, :200], v.numpy(), i.numpy(), 20, 0.9)
    grad = t.clone().requires_grad_()
    rtopk.topk(grad, 20, recall=0.9).values.sum().backward()
    assert int(grad.grad.sum()) == 3 * 20


def test_torch_cuda_tensors_keep_the_target() -> None:
    torch = _torch()
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: GPU tests skipped")
    x = rows(4, 5000, 11)
    for r in TARGETS:
        values, indices = _tensor_topk(torch.from_numpy(x).cuda(), 100, r)
        assert_recall(x, values, indices, 100, r)
    cuda = rtopk.topk(torch.from_numpy(x).cuda(), 100, recall=0.9, return_iterations=True)
    cpu = rtopk.topk(x, 100, recall=0.9, return_iterations=True)
    # the same rule on the CPU and the GPU: the same answer (docs/contract.md §6)
    assert np.array_equal(cuda.indices.cpu().numpy(), cpu.indices)
    assert np.array_equal(cuda.iterations.cpu().numpy(), cpu.iterations)
    one = rtopk.topk(torch.from_numpy(x).cuda(), 100, recall=1.0)
    assert torch.equal(one.indices, rtopk.topk(torch.from_numpy(x).cuda(), 100).indices)
