"""Rows of their own length, a k per row, threshold hints and the threshold output
(docs/contract.md §5) through ``rtopk.topk`` on NumPy arrays and on CUDA tensors, against a
pure-NumPy reference of the contract written from its text (:func:`ragged_reference`), and
their errors.

The CUDA tests (device per-row arrays, the width, clamping, CUDA graphs, torch.compile, the
op's checks) are skipped, visibly, without torch or without a CUDA device; the checks the
native launch makes before it touches a device run everywhere. On the GPU machine:
    python -m pytest crates/rtopk-py/tests/test_ragged.py -v -rs
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np
import numpy.typing as npt
import pytest
import rtopk
from oracle import canonical, hostile_matrix, same_bits
from rtopk import _native, _request

try:
    import torch
except ImportError:  # CI has no torch: the CUDA tests below skip
    torch = None

needs_cuda = pytest.mark.skipif(
    torch is None or not torch.cuda.is_available(),
    reason="no torch with a CUDA device: CUDA ragged tests skipped",
)
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed: skipped")

# The exact CPU algorithms that take per-row inputs (the registry's `ragged` capability; the
# warp simulator among them).
RAGGED_ALGOS = [a.name for a in rtopk.algorithms() if a.ragged and a.exact and a.device == "cpu"]


def ragged_reference(
    x: npt.NDArray[np.float32],
    k: Any,
    lengths: Optional[npt.NDArray[np.int64]] = None,
    largest: bool = True,
    sorted: bool = False,
) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """docs/contract.md §5 row by row: row i is ``x[i, :lengths[i]]``; it selects the
    canonical top-``min(k[i], lengths[i])`` (sort by (value descending in the contract's order,
    index ascending); ascending for smallest), in index order or sorted, then padding up to
    ``K = max k[i]``: index -1, value +0.0. Threshold: the selected value that ranks last
    (largest: the lowest), as float32; NaN for a row that selects nothing."""
    n, m = x.shape
    ks = np.full(n, k, dtype=np.int64) if np.ndim(k) == 0 else np.asarray(k, dtype=np.int64)
    lens = np.full(n, m, dtype=np.int64) if lengths is None else lengths
    width = int(ks.max()) if n else (int(k) if np.ndim(k) == 0 else 0)
    values = np.zeros((n, width), dtype=np.float32)
    indices = np.full((n, width), -1, dtype=np.int64)
    threshold = np.full(n, np.nan, dtype=np.float32)
    for r in range(n):
        length = int(lens[r])
        take = min(int(ks[r]), length)
        if take == 0:
            continue
        row = x[r, :length]
        ranked = canonical(row, take, largest, sorted=True)
        threshold[r] = row[ranked[-1]]
        chosen = ranked if sorted else np.sort(ranked)
        indices[r, :take] = chosen
        values[r, :take] = row[chosen]
    return values, indices, threshold


def check_against_reference(
    x: npt.NDArray[np.float32],
    k: Any,
    lengths: Optional[npt.NDArray[np.int64]],
    largest: bool,
    sorted: bool,
    algo: str = "auto",
    hint: Optional[npt.NDArray[np.float32]] = None,
) -> None:
    got = rtopk.topk(
        x,
        k,
        largest=largest,
        sorted=sorted,
        algo=algo,
        lengths=lengths,
        hint=hint,
        return_threshold=True,
    )
    want_v, want_i, want_t = ragged_reference(x, k, lengths, largest, sorted)
    np.testing.assert_array_equal(got.indices, want_i)
    assert got.indices.dtype == np.int64
    assert same_bits(got.values, want_v), (got.values, want_v)
    assert got.threshold.dtype == np.float32 and got.threshold.shape == (x.shape[0],)
    assert same_bits(got.threshold, want_t), (got.threshold, want_t)


@pytest.mark.parametrize("family", ["hostile", "ties", "nan-heavy", "normal"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [False, True])
def test_lengths_and_per_row_k_match_the_contract(family: str, largest: bool, sorted: bool) -> None:
    rng = np.random.default_rng(7)
    n, m = 24, 77
    x = hostile_matrix(n, m, family, 3)
    # lengths 0 and M, k 0 and k > length, and everything between
    lengths = rng.integers(0, m + 1, n).astype(np.int64)
    lengths[:3] = [0, m, 5]
    k = rng.integers(0, m + 1, n).astype(np.int64)
    k[:4] = [3, 0, 9, m]
    check_against_reference(x, k, lengths, largest, sorted)
    check_against_reference(x, 9, lengths, largest, sorted)  # one k, rows of their own length
    check_against_reference(x, k, None, largest, sorted)  # a k per row, whole rows


def test_the_registry_says_which_algorithms_take_per_row_inputs() -> None:
    assert {"bisect", "heap", "radix", "sim"} <= set(RAGGED_ALGOS)
    assert {a.name for a in rtopk.algorithms() if a.ragged} >= {"bisect", "sim", "cuda"}


@pytest.mark.parametrize("algo", RAGGED_ALGOS)
def test_every_cpu_algorithm_takes_per_row_inputs(algo: str) -> None:
    rng = np.random.default_rng(11)
    x = hostile_matrix(16, 50, "hostile", 5)
    lengths = rng.integers(0, 51, 16).astype(np.int64)
    k = rng.integers(0, 51, 16).astype(np.int64)
    check_against_reference(x, k, lengths, True, True, algo=algo)


def test_nothing_past_a_rows_length_is_selected() -> None:
    # NaNs (which rank above everything) only past the length; ties straddling the k-th value
    # inside the prefix
    x = np.array([[1.0, 2.0, 2.0, 2.0, np.nan, np.nan], [np.nan, 0.0, -0.0, 5.0, 5.0, 5.0]])
    x = x.astype(np.float32)
    lengths = np.array([4, 3])
    got = rtopk.topk(x, 2, lengths=lengths, sorted=False, return_threshold=True)
    np.testing.assert_array_equal(got.indices, [[1, 2], [0, 1]])
    np.testing.assert_array_equal(got.threshold, [2.0, 0.0])
    check_against_reference(x, 2, lengths, True, False)
    check_against_reference(x, 2, lengths, False, True)


def test_padding_is_index_minus_one_and_zero_bits() -> None:
    x = -np.ones((3, 5), dtype=np.float32)
    got = rtopk.topk(x, np.array([0, 2, 5]), lengths=np.array([4, 1, 5]), return_threshold=True)
    assert got.values.shape == (3, 5) and got.indices.shape == (3, 5)
    np.testing.assert_array_equal(got.indices, [[-1] * 5, [0, -1, -1, -1, -1], [0, 1, 2, 3, 4]])
    assert got.values[:, :][got.indices == -1].view(np.uint32).tolist() == [0] * 9
    assert np.isnan(got.threshold[0]) and got.threshold[1] == -1.0
    # int32 indices pad with -1 too
    got32 = rtopk.topk(x, np.array([0, 2, 5]), lengths=np.array([4, 1, 5]), indices_dtype=np.int32)
    assert got32.indices.dtype == np.int32
    np.testing.assert_array_equal(got32.indices, got.indices)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sixteen_bit_rows_pad_with_zero_bits(dtype: str) -> None:
    if dtype == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        np_dtype: Any = ml_dtypes.bfloat16
    else:
        np_dtype = np.float16
    x32 = hostile_matrix(8, 40, "hostile", 9)
    with np.errstate(over="ignore", invalid="ignore"):  # large and NaN values, on purpose
        x = x32.astype(np_dtype)
    k = np.arange(8) * 5
    lengths = np.array([40, 0, 3, 39, 20, 40, 1, 12])
    got = rtopk.topk(x, k, lengths=lengths, return_threshold=True)
    assert got.values.dtype == x.dtype
    _v, want_i, want_t = ragged_reference(x.astype(np.float32), k, lengths, True, True)
    np.testing.assert_array_equal(got.indices, want_i)
    assert np.array_equal(got.values.view(np.uint16)[want_i == -1], np.zeros((want_i == -1).sum()))
    picked = np.take_along_axis(x, np.maximum(want_i, 0), axis=1)
    real = want_i >= 0
    assert np.array_equal(got.values.view(np.uint16)[real], picked.view(np.uint16)[real])
    assert same_bits(got.threshold, want_t)


def test_hints_never_change_the_answer() -> None:
    rng = np.random.default_rng(5)
    n, m = 20, 300
    x = hostile_matrix(n, m, "hostile", 2)
    lengths = rng.integers(0, m + 1, n).astype(np.int64)
    k = rng.integers(0, 40, n).astype(np.int64)
    plain = rtopk.topk(x, k, lengths=lengths, return_iterations=True, return_threshold=True)
    nonsense = [
        np.full(n, np.nan, dtype=np.float32),
        np.full(n, np.inf, dtype=np.float32),
        np.full(n, -np.inf, dtype=np.float32),
        rng.standard_normal(n).astype(np.float32) * 1e30,
        np.zeros(n, dtype=np.float32),
        plain.threshold,
    ]
    for hint in nonsense:
        for largest in (True, False):
            check_against_reference(x, k, lengths, largest, True, algo="bisect", hint=hint)
        hinted = rtopk.topk(x, k, lengths=lengths, hint=hint, return_iterations=True)
        np.testing.assert_array_equal(hinted.indices, plain.indices)
        assert same_bits(hinted.values, plain.values)
    # with each row's own threshold as its hint, no more iterations than without
    own = rtopk.topk(x, k, lengths=lengths, hint=plain.threshold, return_iterations=True)
    assert np.all(own.iterations <= plain.iterations), (own.iterations, plain.iterations)
    # a row that selects nothing: 0 iterations (docs/contract.md §3)
    empty = np.minimum(k, lengths) == 0
    assert np.all(plain.iterations[empty] == 0)


def test_threshold_without_per_row_inputs() -> None:
    x = hostile_matrix(10, 64, "hostile", 4)
    for largest in (True, False):
        got = rtopk.topk(x, 7, largest=largest, return_threshold=True)
        _v, _i, want_t = ragged_reference(x, 7, None, largest, True)
        assert same_bits(got.threshold, want_t)
        assert isinstance(got, rtopk.TopKThreshold)
    both = rtopk.topk(x, 7, return_threshold=True, return_iterations=True)
    assert isinstance(both, rtopk.TopKIterationsThreshold)
    assert both.iterations.shape == (10,) and both.threshold.shape == (10,)
    assert np.isnan(rtopk.topk(x, 0, return_threshold=True).threshold).all()


def test_batched_inputs_take_per_row_inputs_of_the_batch_shape() -> None:
    rng = np.random.default_rng(8)
    x = hostile_matrix(12, 30, "hostile", 6).reshape(3, 4, 30)
    k = rng.integers(0, 31, (3, 4))
    lengths = rng.integers(0, 31, (3, 4))
    got = rtopk.topk(x, k, lengths=lengths, return_threshold=True)
    flat = rtopk.topk(x.reshape(12, 30), k.reshape(12), lengths=lengths.reshape(12))
    np.testing.assert_array_equal(got.indices.reshape(12, -1), flat.indices)
    assert got.threshold.shape == (3, 4)
    # along another axis: rows along dim 0, one entry per (4, 30) position
    y = hostile_matrix(6, 20, "normal", 1)
    along = rtopk.topk(y, np.arange(20) % 4, dim=0, lengths=np.full(20, 5))
    want = rtopk.topk(np.ascontiguousarray(y.T), np.arange(20) % 4, lengths=np.full(20, 5))
    np.testing.assert_array_equal(along.indices, want.indices.T)
    # a list of ks works as an array
    lst = rtopk.topk(x.reshape(12, 30), k.reshape(12).tolist())
    np.testing.assert_array_equal(lst.indices, rtopk.topk(x.reshape(12, 30), k.reshape(12)).indices)


def test_width_pads_a_per_row_k_further() -> None:
    x = hostile_matrix(4, 10, "normal", 2)
    k = np.array([1, 3, 0, 2])
    got = rtopk.topk(x, k, width=6)
    assert got.indices.shape == (4, 6)
    base = rtopk.topk(x, k)
    np.testing.assert_array_equal(got.indices[:, :3], base.indices)
    assert (got.indices[:, 3:] == -1).all() and (got.values[:, 3:] == 0).all()
    with pytest.raises(ValueError, match=r"width = 2 is less than the largest k\[i\] = 3"):
        rtopk.topk(x, k, width=2)
    with pytest.raises(ValueError, match="width is the output width of a per-row k"):
        rtopk.topk(x, 2, width=3)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": 2, "lengths": np.array([3, 11, 0])}, ValueError, r"lengths\[1\] = 11 is more"),
        ({"k": 2, "lengths": np.array([3, 1])}, ValueError, r"lengths has shape \(2,\)"),
        ({"k": np.array([1, 2]), "lengths": None}, ValueError, r"k has shape \(2,\)"),
        ({"k": np.array([1, 2, 11])}, ValueError, r"k(\[2\])? = 11 is larger than the row width"),
        ({"k": np.array([1, -2, 1])}, ValueError, r"k\[1\] = -2 must be >= 0"),
        ({"k": 1, "lengths": np.array([1, -1, 0])}, ValueError, r"lengths\[1\] = -1 must be >= 0"),
        ({"k": np.array([1.0, 2.0, 1.0])}, TypeError, r"k must be an array of integers"),
        ({"k": np.array([True, False, True])}, TypeError, r"k must be an array of integers"),
        ({"k": 1, "lengths": np.array([1.5, 2, 0])}, TypeError, r"lengths must be an array of"),
        ({"k": 1, "hint": np.array([1.0, 2.0])}, ValueError, r"hint has shape \(2,\)"),
        ({"k": 1, "hint": np.array(["a", "b", "c"])}, TypeError, r"hint must be an array of"),
        ({"k": 1, "width": -1}, ValueError, r"width"),
    ],
)
def test_bad_per_row_inputs_are_refused(kwargs: Any, error: type, match: str) -> None:
    x = hostile_matrix(3, 10, "normal", 0)
    k = kwargs.pop("k")
    with pytest.raises(error, match=match):
        rtopk.topk(x, k, **kwargs)


@pytest.mark.parametrize("largest", [True, False])
def test_the_simulator_takes_per_row_inputs_and_hints(largest: bool) -> None:
    rng = np.random.default_rng(12)
    x = hostile_matrix(12, 300, "hostile", 4)
    lengths = rng.integers(0, 301, 12).astype(np.int64)
    k = rng.integers(0, 301, 12).astype(np.int64)
    lengths[:2], k[2] = [0, 300], 0
    check_against_reference(x, k, lengths, largest, True, algo="sim")
    plain = rtopk.topk(x, k, lengths=lengths, algo="bisect", return_threshold=True)
    for hint in (plain.threshold, np.full(12, np.nan, dtype=np.float32)):
        check_against_reference(x, k, lengths, largest, True, algo="sim", hint=hint)
    # the same iteration counts as bisect (docs/contract.md §3)
    sim = rtopk.topk(x, k, lengths=lengths, largest=largest, algo="sim", return_iterations=True)
    cpu = rtopk.topk(x, k, lengths=lengths, largest=largest, algo="bisect", return_iterations=True)
    np.testing.assert_array_equal(sim.iterations, cpu.iterations)


def test_the_native_request_holds_per_row_inputs() -> None:
    from rtopk import _native

    r = _native.Request(k=np.array([1, 4, 2]), lengths=np.array([3, 3, 3]), threshold=True)
    assert r.k == 4 and r.ragged and r.threshold
    assert r.check(5) == 4  # n defaults to the per-row inputs' length
    with pytest.raises(ValueError, match=r"k has 3 entries for 2 rows"):
        r.check(5, 2)
    assert "per row" in repr(r) and "lengths=<given>" in repr(r)
    plain = _native.Request(k=2)
    assert not plain.ragged and plain.check(3) == 2
    with pytest.raises(TypeError, match=r"k must be a 1-D int64 array"):
        _native.Request(k=np.array([1.0]))


def test_the_cuda_launch_checks_its_buffers_before_any_device() -> None:
    # pointers: (x, values, indices, iterations, lengths, k_per_row, hint, threshold); every
    # refusal here comes before a device is opened: no GPU needed
    ptrs = (1, 2, 3, 0, 0, 0, 0, 0)
    r = _native.Request(k=2, device="cuda", threshold=True)
    with pytest.raises(ValueError, match="give its device buffer"):
        _native.cuda_launch(r, 1, 40, ptrs, 0)
    r = _native.Request(k=2, device="cuda")
    with pytest.raises(ValueError, match="asks for no threshold"):
        _native.cuda_launch(r, 1, 40, (1, 2, 3, 0, 0, 0, 0, 8), 0)
    with pytest.raises(ValueError, match="a device array is given but the request has none"):
        _native.cuda_launch(r, 1, 40, (1, 2, 3, 0, 5, 0, 0, 0), 0)
    with pytest.raises(ValueError, match="a device array is given but the request has none"):
        _native.cuda_launch(r, 1, 40, (1, 2, 3, 0, 0, 6, 0, 0), 0)
    with pytest.raises(ValueError, match="the request has no hints"):
        _native.cuda_launch(r, 1, 40, (1, 2, 3, 0, 0, 0, 7, 0), 0)
    # a request with lengths or a per-row k needs their device arrays (the kernel reads them)
    for kw in ({"k": 2, "lengths": np.array([3])}, {"k": np.array([2])}):
        r = _native.Request(device="cuda", **kw)
        with pytest.raises(ValueError, match="without their device arrays"):
            _native.cuda_launch(r, 1, 40, ptrs, 0)
    # the rows are checked as for host rows
    r = _native.Request(k=2, device="cuda", lengths=np.array([41]))
    with pytest.raises(ValueError, match=r"lengths\[0\] = 41 is more"):
        _native.cuda_launch(r, 1, 40, (1, 2, 3, 0, 5, 0, 0, 0), 0)
    # nothing to launch (no rows): only the request's checks
    r = _native.Request(k=2, device="cuda", threshold=True)
    _native.cuda_launch(r, 0, 40, (0, 0, 0, 0, 0, 0, 0, 9), 0)


def test_the_device_request_holds_placeholders_and_is_cached() -> None:
    a = _request.ask(0, True, False, "auto", None, 0.0, False, None, True)
    r = _request.device_request(a._replace(k=7), "float32", "cuda:0", 5, 40, True, True, True)
    assert r is _request.device_request(
        a._replace(k=7), "float32", "cuda:0", 5, 40, True, True, True
    )
    assert r.k == 7 and r.ragged and r.threshold and r.device == "cuda:0"
    assert r.algorithm == "cuda"
    assert r.check(40, 5) == 7
    one = _request.device_request(a._replace(k=3), "float16", "cuda:1", 2, 9, False, True, False)
    assert one.k == 3 and one.ragged and "lengths=<given>" in repr(one)
    # the width is checked against M, the algorithm against the per-row inputs
    with pytest.raises(ValueError, match="larger than the row width"):
        _request.device_request(a._replace(k=41), "float32", "cuda:0", 5, 40, True, False, False)
    with pytest.raises(ValueError, match="larger than the row width"):
        _request.device_request(a._replace(k=41), "float32", "cuda:0", 5, 40, False, True, False)
    heap = a._replace(k=2, algo="heap")
    with pytest.raises(ValueError, match="heap"):
        _request.device_request(heap, "float32", "cuda:0", 5, 40, False, True, False)


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_the_device_request_of_64_bit_rows_holds_every_per_row_input(dtype: str) -> None:
    # the request the CUDA path (and the op's fake) builds for a float64 / int64 CUDA tensor
    # with lengths, a k per row, hints and the threshold output: checked and taken, no device
    # needed (the kernel's wide rows take them all)
    a = _request.ask(0, False, True, "auto", None, 0.0, False, None, True)
    r = _request.device_request(a._replace(k=9), dtype, "cuda:0", 6, 300, True, True, True)
    assert r.ragged and r.threshold and r.dtype == dtype and r.check(300, 6) == 9
    one = _request.device_request(a._replace(k=4), dtype, "cuda:0", 6, 300, False, True, False)
    assert one.check(300, 6) == 4 and "lengths=<given>" in repr(one)


def test_per_row_shapes_are_checked_without_values() -> None:
    _request.check_per_row_shape("k", (3, 4), (3, 4))
    _request.check_per_row_shape("k", (12,), (3, 4))
    with pytest.raises(ValueError, match=r"lengths has shape \(4, 3\); give one entry per row"):
        _request.check_per_row_shape("lengths", (4, 3), (3, 4))
    # a 2-D input's rows: one shape to give, named once
    with pytest.raises(ValueError, match=r"give one entry per row: shape \(3,\)$"):
        _request.check_per_row_shape("hint", (4,), (3,))


# ---------------------------------------------------------------------------------------
# CUDA tensors: the kernel reads the per-row inputs from device arrays


def cuda_case(n: int, m: int, seed: int, family: str = "hostile") -> Any:
    """Rows (NumPy and on the GPU), a k per row and lengths with 0, M, k = 0, k > length."""
    rng = np.random.default_rng(seed)
    x = hostile_matrix(n, m, family, seed)
    k = rng.integers(0, m + 1, n).astype(np.int64)
    lengths = rng.integers(0, m + 1, n).astype(np.int64)
    lengths[:3] = [0, m, min(5, m)]
    k[:4] = [min(3, m), 0, min(9, m), m]
    return x, torch.from_numpy(x).cuda(), k, lengths


def check_cuda_against_reference(
    got: Any, x: Any, k: Any, lengths: Any, largest: bool, sorted: bool, width: Optional[int] = None
) -> None:
    want_v, want_i, want_t = ragged_reference(x, k, lengths, largest, sorted)
    if width is not None and width > want_i.shape[1]:
        pad = width - want_i.shape[1]
        want_v = np.pad(want_v, ((0, 0), (0, pad)))
        want_i = np.pad(want_i, ((0, 0), (0, pad)), constant_values=-1)
    assert got.values.device.type == "cuda" and got.threshold.device.type == "cuda"
    np.testing.assert_array_equal(got.indices.cpu().numpy(), want_i)
    assert same_bits(got.values.cpu().numpy(), want_v)
    assert got.threshold.dtype == torch.float32
    assert same_bits(got.threshold.cpu().numpy(), want_t)


@needs_cuda
@pytest.mark.parametrize("m", [7, 33, 300, 1025, 5001, 40000])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [False, True])
def test_cuda_lengths_and_per_row_k_match_the_contract(m: int, largest: bool, sorted: bool) -> None:
    n = 24
    for family in ("hostile", "ties", "nan-heavy", "normal"):
        x, xc, k, lengths = cuda_case(n, m, m + len(family), family)
        k_dev = torch.from_numpy(k).cuda()
        len_dev = torch.from_numpy(lengths).cuda()
        width = int(k.max())
        calls = [
            # device tensors (int64 and int32), width given and read back, host arrays, lists
            (k_dev, len_dev, width),
            (k_dev.int(), len_dev.int(), width),
            (k_dev, len_dev, None),
            (k, lengths, None),
            (k.tolist(), lengths.tolist(), width + 3),
        ]
        for kk, ll, w in calls:
            got = rtopk.topk(
                xc,
                kk,
                largest=largest,
                sorted=sorted,
                lengths=ll,
                width=w,
                return_threshold=True,
            )
            check_cuda_against_reference(got, x, k, lengths, largest, sorted, w)
        # one k for every row, rows of their own length
        got = rtopk.topk(
            xc, 4, largest=largest, sorted=sorted, lengths=len_dev, return_threshold=True
        )
        check_cuda_against_reference(got, x, 4, lengths, largest, sorted)
        # a k per row, whole rows
        got = rtopk.topk(
            xc, k_dev, largest=largest, sorted=sorted, width=width, return_threshold=True
        )
        check_cuda_against_reference(got, x, k, None, largest, sorted)
        # the threshold of one k without per-row inputs
        got = rtopk.topk(xc, 4, largest=largest, sorted=sorted, return_threshold=True)
        check_cuda_against_reference(got, x, 4, None, largest, sorted)


@needs_cuda
@pytest.mark.parametrize("m", [7, 300, 5001, 40000])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [False, True])
def test_cuda_ragged_eager_calls_skip_the_general_path(
    m: int, largest: bool, sorted: bool, monkeypatch: Any
) -> None:
    """Device tensors of k, lengths and hints with no other option but thresholds — a
    sampler's call with a k per request, a decode step hinted with the last one's thresholds —
    take the ragged eager path (rtopk._eager.topk_cuda_ragged), never the general one, with
    the contract's answer; every call it does not take as it stands (a host k, a width past M,
    a strided k, an int16 length, a float64 hint, iteration counts) still gets it from the
    general path."""
    import rtopk.ops

    n = 24
    x, xc, k, lengths = cuda_case(n, m, m + 7, "ties")
    k_dev, len_dev = torch.from_numpy(k).cuda(), torch.from_numpy(lengths).cuda()
    width = int(k.max())
    rtopk.topk(xc, 1)  # the first tensor call sets the eager paths up
    general = rtopk.ops.cuda_impl
    calls = {"general": 0}

    def counted(*args: Any) -> Any:
        calls["general"] += 1
        return general(*args)

    monkeypatch.setattr(rtopk.ops, "cuda_impl", counted)
    fast_calls: List[Tuple[Any, Any, Optional[int], Any, Any]] = [
        # (k, lengths, width, k the answer has, lengths the answer has)
        (k_dev, len_dev, width, k, lengths),
        (k_dev.int(), len_dev.int(), width, k, lengths),
        (k_dev, len_dev.int(), width, k, lengths),
        (k_dev.int(), None, width, k, None),
        (min(4, m), len_dev, None, min(4, m), lengths),
        (min(4, m), len_dev.int(), None, min(4, m), lengths),
    ]
    for kk, ll, w, want_k, want_len in fast_calls:
        got = rtopk.topk(xc, kk, largest=largest, sorted=sorted, lengths=ll, width=w)
        assert calls["general"] == 0, (type(kk), w)
        want_v, want_i, _t = ragged_reference(x, want_k, want_len, largest, sorted)
        np.testing.assert_array_equal(got.indices.cpu().numpy(), want_i)
        assert same_bits(got.values.cpu().numpy(), want_v)
    # entries out of range, int64 and int32: clamped as the general path clamps them
    wild_k = torch.tensor([-5, 2**40, 3, m + 9] * (n // 4), device="cuda")
    wild_len = torch.tensor([2**33, -1, m, 2] * (n // 4), device="cuda")
    eff_k = np.clip(wild_k.cpu().numpy(), 0, min(3, m))
    eff_len = np.clip(wild_len.cpu().numpy(), 0, m)
    for kk, ll in ((wild_k, wild_len), (wild_k.int(), wild_len.clamp(max=2**31 - 1).int())):
        got = rtopk.topk(xc, kk, largest=largest, sorted=sorted, lengths=ll, width=min(3, m))
        want_v, want_i, _t = ragged_reference(x, eff_k, eff_len, largest, sorted)
        np.testing.assert_array_equal(got.indices.cpu().numpy(), want_i)
        assert same_bits(got.values.cpu().numpy(), want_v)
    assert calls["general"] == 0
    general_calls: List[Tuple[Any, Any, Optional[int], Any, Any]] = [
        (k, lengths, width, k, lengths),
        (k_dev, len_dev, m + 2, k, lengths),
        (torch.from_numpy(np.repeat(k, 2)).cuda()[::2], len_dev, width, k, lengths),
        (k_dev, len_dev.to(torch.int16) if m < 2**15 else len_dev.cpu(), width, k, lengths),
    ]
    for i, (kk, ll, w, want_k, want_len) in enumerate(general_calls, 1):
        got = rtopk.topk(xc, kk, largest=largest, sorted=sorted, lengths=ll, width=w)
        assert calls["general"] == i
        want_v, want_i, _t = ragged_reference(x, want_k, want_len, largest, sorted)
        if w is not None and w > want_i.shape[1]:
            want_v = np.pad(want_v, ((0, 0), (0, w - want_i.shape[1])))
            want_i = np.pad(want_i, ((0, 0), (0, w - want_i.shape[1])), constant_values=-1)
        np.testing.assert_array_equal(got.indices.cpu().numpy(), want_i)
        assert same_bits(got.values.cpu().numpy(), want_v)
    # thresholds asked for, and hints (the previous step's thresholds, any float32 values):
    # the ragged eager path too; the answer does not depend on the hint
    got = rtopk.topk(xc, k_dev, lengths=len_dev, width=width, return_threshold=True)
    assert calls["general"] == len(general_calls)
    check_cuda_against_reference(got, x, k, lengths, True, True)
    noise = torch.randn(n, device="cuda")
    noise[:3] = torch.tensor([math.nan, math.inf, -math.inf])
    for h in (got.threshold, noise):
        hinted = rtopk.topk(
            xc,
            k_dev.int(),
            largest=largest,
            sorted=sorted,
            lengths=len_dev,
            width=width,
            hint=h,
            return_threshold=True,
        )
        check_cuda_against_reference(hinted, x, k, lengths, largest, sorted)
        plain_k = rtopk.topk(xc, min(4, m), largest=largest, sorted=sorted, hint=h)
        want_v, want_i, _t = ragged_reference(x, min(4, m), None, largest, sorted)
        np.testing.assert_array_equal(plain_k.indices.cpu().numpy(), want_i)
        assert same_bits(plain_k.values.cpu().numpy(), want_v)
    assert calls["general"] == len(general_calls)
    # a float64 hint, iteration counts: the general path
    rtopk.topk(xc, k_dev, lengths=len_dev, width=width, hint=noise.double())
    rtopk.topk(xc, k_dev, lengths=len_dev, width=width, return_iterations=True)
    assert calls["general"] == len(general_calls) + 2


@needs_cuda
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_cuda_sixteen_bit_rows_match_the_cpu(dtype: str) -> None:
    x, _xc, k, lengths = cuda_case(16, 700, 3)
    t = torch.from_numpy(x).to(getattr(torch, dtype))
    kw = {"lengths": torch.from_numpy(lengths), "return_threshold": True, "return_iterations": True}
    want = rtopk.topk(t, torch.from_numpy(k), **kw)
    kw["lengths"] = torch.from_numpy(lengths).cuda()
    got = rtopk.topk(t.cuda(), torch.from_numpy(k).cuda(), width=int(k.max()), **kw)
    assert got.values.dtype == t.dtype
    assert torch.equal(got.indices.cpu(), want.indices)
    assert torch.equal(got.values.cpu().view(torch.int16), want.values.view(torch.int16))
    assert same_bits(got.threshold.cpu().numpy(), want.threshold.numpy())
    assert torch.equal(got.iterations.cpu(), want.iterations)


@needs_cuda
def test_cuda_iteration_counts_are_the_cpus() -> None:
    x, xc, k, lengths = cuda_case(32, 3000, 4, "normal")
    kw = {"return_iterations": True, "return_threshold": True}
    want = rtopk.topk(x, k, lengths=lengths, algo="bisect", **kw)
    got = rtopk.topk(xc, torch.from_numpy(k).cuda(), lengths=torch.from_numpy(lengths).cuda(), **kw)
    np.testing.assert_array_equal(got.iterations.cpu().numpy(), want.iterations)
    # a row that selects nothing: 0 iterations (docs/contract.md §3)
    empty = np.minimum(k, lengths) == 0
    assert np.all(got.iterations.cpu().numpy()[empty] == 0)


@needs_cuda
@pytest.mark.parametrize("m", [300, 5001, 40000])
def test_cuda_hints_never_change_the_answer(m: int) -> None:
    x, xc, k, lengths = cuda_case(20, m, 6, "hostile")
    k_dev, len_dev = torch.from_numpy(k).cuda(), torch.from_numpy(lengths).cuda()
    width = int(k.max())
    kw = {"lengths": len_dev, "width": width, "return_threshold": True, "return_iterations": True}
    plain = rtopk.topk(xc, k_dev, **kw)
    n = x.shape[0]
    nonsense = [
        torch.full((n,), math.nan),
        torch.full((n,), math.inf),
        torch.full((n,), -math.inf),
        torch.randn(n) * 1e30,
        torch.zeros(n),
        torch.zeros(n, dtype=torch.float16),  # another float dtype, read as float32
    ]
    for hint in nonsense:
        for on_device in (True, False):
            h = hint.cuda() if on_device else hint
            for largest in (True, False):
                got = rtopk.topk(xc, k_dev, largest=largest, hint=h, **kw)
                check_cuda_against_reference(got, x, k, lengths, largest, True)
    # with each row's own threshold as its hint, no more iterations than without
    own = rtopk.topk(xc, k_dev, hint=plain.threshold, **kw)
    assert torch.equal(own.indices, plain.indices)
    assert bool((own.iterations <= plain.iterations).all()), (own.iterations, plain.iterations)


@needs_cuda
def test_cuda_device_values_are_clamped_not_read() -> None:
    x, xc, _k, _l = cuda_case(6, 50, 8, "normal")
    k_dev = torch.tensor([-3, 0, 2, 7, 100, 4], device="cuda")
    len_dev = torch.tensor([10, -1, 60, 50, 5, 2**40], device="cuda")
    # entries past the width read as the width, negatives as 0; lengths past M as M
    got = rtopk.topk(xc, k_dev, lengths=len_dev, width=5, return_threshold=True)
    k_eff = np.array([0, 0, 2, 5, 5, 4])
    len_eff = np.array([10, 0, 50, 50, 5, 50])
    check_cuda_against_reference(got, x, k_eff, len_eff, True, True, 5)
    # int32 entries go to the kernel unclamped (no launch of their own): the same answer
    k32, len32 = k_dev.to(torch.int32), len_dev.clamp(max=2**31 - 1).to(torch.int32)
    got = rtopk.topk(xc, k32, lengths=len32, width=5, return_threshold=True)
    check_cuda_against_reference(got, x, k_eff, len_eff, True, True, 5)
    # the user's tensors are left as they were
    assert k_dev.tolist() == [-3, 0, 2, 7, 100, 4]
    assert k32.tolist() == [-3, 0, 2, 7, 100, 4] and len32.tolist()[1] == -1
    # host values are checked as on the CPU
    with pytest.raises(ValueError, match=r"width = 5 is less than the largest k\[i\] = 7"):
        rtopk.topk(xc, [1, 0, 2, 7, 1, 4], width=5)
    with pytest.raises(ValueError, match=r"lengths\[1\] = -1 must be >= 0"):
        rtopk.topk(xc, 2, lengths=[10, -1, 60, 50, 5, 2])
    # read back without a width: the largest k must fit the rows
    with pytest.raises(ValueError, match="larger than the row width M = 50"):
        rtopk.topk(xc, torch.tensor([1, 2, 3, 4, 5, 51], device="cuda"))
    # rows long enough to split: the chunks, the second stage and the gather read the
    # int32 words too
    m = 1 << 19
    x_long, xc_long, _k, _l = cuda_case(4, m, 9, "normal")
    k32 = torch.tensor([-5, 64, 3000, 7], dtype=torch.int32, device="cuda")
    len32 = torch.tensor([-1, 400_000, 2**31 - 1, 5], dtype=torch.int32, device="cuda")
    got = rtopk.topk(xc_long, k32, lengths=len32, width=3000, return_threshold=True)
    k_eff, len_eff = np.array([0, 64, 3000, 7]), np.array([0, 400_000, m, 5])
    check_cuda_against_reference(got, x_long, k_eff, len_eff, True, True, 3000)


@needs_cuda
def test_cuda_width_pads_and_empty_cases() -> None:
    x, xc, k, _lengths = cuda_case(8, 40, 9)
    k_dev = torch.from_numpy(k).cuda()
    # a width above M pads the columns past M
    got = rtopk.topk(xc, k_dev, width=55, return_threshold=True)
    assert got.indices.shape == (8, 55) and bool((got.indices[:, 40:] == -1).all())
    check_cuda_against_reference(got, x, k, None, True, True, 55)
    # width 0, no rows: nothing launched; thresholds NaN, iterations 0
    got = rtopk.topk(
        xc,
        torch.zeros(8, dtype=torch.int64, device="cuda"),
        width=0,
        return_threshold=True,
        return_iterations=True,
    )
    assert got.indices.shape == (8, 0) and bool(got.threshold.isnan().all())
    assert bool((got.iterations == 0).all())
    none = torch.empty(0, 40, device="cuda")
    got = rtopk.topk(
        none,
        torch.empty(0, dtype=torch.int64, device="cuda"),
        width=3,
        lengths=torch.empty(0, dtype=torch.int32, device="cuda"),
        return_threshold=True,
    )
    assert got.indices.shape == (0, 3) and got.threshold.shape == (0,)


@needs_cuda
def test_cuda_batched_inputs_and_other_dims() -> None:
    x, _xc, k, lengths = cuda_case(12, 30, 10)
    x3 = torch.from_numpy(x).cuda().reshape(3, 4, 30)
    k2 = torch.from_numpy(k).cuda().reshape(3, 4)
    l2 = torch.from_numpy(lengths).cuda().reshape(3, 4)
    got = rtopk.topk(x3, k2, lengths=l2, width=30, return_threshold=True)
    flat = rtopk.topk(x, k, lengths=lengths, width=30, return_threshold=True)
    assert got.threshold.shape == (3, 4)
    np.testing.assert_array_equal(got.indices.reshape(12, -1).cpu().numpy(), flat.indices)
    # rows along dim 0 (one entry per column)
    y = torch.from_numpy(np.ascontiguousarray(x.T)).cuda()  # (30, 12): rows along dim 0
    along = rtopk.topk(
        y, torch.from_numpy(k).cuda(), dim=0, width=30, lengths=torch.from_numpy(lengths).cuda()
    )
    np.testing.assert_array_equal(along.indices.T.cpu().numpy(), flat.indices)


@needs_cuda
def test_cuda_per_row_inputs_are_refused_clearly() -> None:
    xc = torch.randn(4, 10, device="cuda")
    with pytest.raises(TypeError, match="k must be an array of integers"):
        rtopk.topk(xc, torch.ones(4, device="cuda"), width=2)
    with pytest.raises(TypeError, match="lengths must be an array of integers"):
        rtopk.topk(xc, 2, lengths=torch.ones(4, dtype=torch.bool, device="cuda"))
    with pytest.raises(ValueError, match=r"hint has shape \(3,\)"):
        rtopk.topk(xc, 2, hint=torch.zeros(3, device="cuda"))
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match="is on cuda:1; the input is on cuda:0"):
            rtopk.topk(xc, 2, lengths=torch.full((4,), 3, device="cuda:1"))
    with pytest.raises(ValueError, match="width is the output width of a per-row k"):
        rtopk.topk(xc, 2, width=3)


@needs_cuda
def test_cuda_graph_capture_with_per_row_inputs() -> None:
    n, m, width = 64, 3000, 40
    static_x = torch.empty(n, m, device="cuda")
    static_k = torch.empty(n, dtype=torch.int32, device="cuda")
    static_len = torch.empty(n, dtype=torch.int64, device="cuda")
    static_hint = torch.zeros(n, device="cuda")

    def call() -> Any:
        return rtopk.topk(
            static_x,
            static_k,
            lengths=static_len,
            hint=static_hint,
            width=width,
            return_threshold=True,
        )

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # warm-up: build the kernels, fill the allocator's pool
            static_x.normal_()
            static_k.fill_(5)
            static_len.fill_(m)
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = call()
    rng = np.random.default_rng(1)
    for seed in range(3):
        x = hostile_matrix(n, m, ("hostile", "ties", "normal")[seed], seed)
        k = rng.integers(0, width + 1, n)
        lengths = rng.integers(0, m + 1, n)
        static_x.copy_(torch.from_numpy(x))
        static_k.copy_(torch.from_numpy(k))
        static_len.copy_(torch.from_numpy(lengths))
        static_hint.copy_(torch.from_numpy(rng.standard_normal(n).astype(np.float32)))
        graph.replay()
        torch.cuda.synchronize()
        check_cuda_against_reference(out, x, k, lengths, True, True, width)
    # without the width, the largest k would be read back: refused inside a capture; so are
    # host per-row inputs (the graph would replay their copy from a reused buffer)
    refused: List[Tuple[Any, str]] = [
        ({}, "needs width="),
        ({"lengths": [5] * n, "width": width}, "cannot be captured in a CUDA graph"),
    ]
    for kw, match in refused:
        graph2 = torch.cuda.CUDAGraph()
        with pytest.raises(ValueError, match=match):
            with torch.cuda.graph(graph2):
                rtopk.topk(static_x, static_k, return_threshold=True, **kw)


@needs_cuda
def test_cuda_torch_compile_with_per_row_inputs() -> None:
    x, xc, k, lengths = cuda_case(16, 500, 12, "normal")
    k_dev, len_dev = torch.from_numpy(k).cuda(), torch.from_numpy(lengths).cuda()
    width = int(k.max())

    def f(t: Any, kk: Any, ll: Any, hh: Any) -> Any:
        return rtopk.topk(t, kk, lengths=ll, hint=hh, width=width, return_threshold=True)

    hint = torch.zeros(16, device="cuda")
    for mode in (None, "reduce-overhead"):  # the second: CUDA graphs through inductor
        compiled = torch.compile(f, fullgraph=True, mode=mode)
        for _ in range(3):
            got = compiled(xc, k_dev, len_dev, hint)
        check_cuda_against_reference(got, x, k, lengths, True, True)

    @torch.compile(fullgraph=True)
    def g(t: Any, kk: Any) -> Any:
        return rtopk.topk(t, kk)

    with pytest.raises(Exception, match=r"needs width="):
        g(xc, k_dev)


@needs_cuda
def test_cuda_opcheck_and_autograd_with_per_row_inputs() -> None:
    n, m = 6, 300
    g = torch.Generator().manual_seed(3)
    xs = (torch.randperm(n * m, generator=g).float() / (n * m) - 0.5).reshape(n, m).cuda()
    k = torch.randint(1, 20, (n,), generator=g).cuda()
    lengths = torch.randint(1, m + 1, (n,), generator=g).cuda()
    hint = torch.zeros(n, device="cuda")
    w = int(k.max())
    from rtopk.ops import op_options

    op = torch.ops.rtopk.topk.default
    # no NaN (values, or the thresholds of empty rows): opcheck compares outputs with themselves
    args = (xs, w, -1, op_options(threshold=True), k, lengths, hint)
    result = torch.library.opcheck(op, args)
    assert all(v == "SUCCESS" for v in result.values()), result
    a = xs.clone().requires_grad_()
    out = rtopk.topk(a, k, lengths=lengths, width=w + 2)
    weights = torch.randn(out.values.shape, device="cuda")
    (out.values * weights).sum().backward()
    want = torch.zeros_like(xs)
    idx = out.indices.long()
    want.scatter_add_(1, idx.clamp(min=0), weights.masked_fill(idx < 0, 0))
    assert a.grad is not None and torch.equal(a.grad, want)


@needs_torch
def test_fake_cuda_tensors_take_per_row_inputs() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    # A fake CUDA tensor takes the op's fake implementation (no GPU needed): the outputs'
    # shapes come from the width, and the request is checked as the eager call checks it.
    with FakeTensorMode():
        x = torch.empty(4, 10, device="cuda")
        lengths = torch.full((4,), 5, device="cuda")
        k = torch.full((4,), 2, device="cuda")
        got = rtopk.topk(
            x,
            k,
            lengths=lengths,
            hint=torch.zeros(4, device="cuda"),
            width=3,
            return_threshold=True,
            return_iterations=True,
        )
        assert got.values.shape == (4, 3) and got.indices.shape == (4, 3)
        assert got.threshold.shape == (4,) and got.threshold.dtype == torch.float32
        assert got.iterations.shape == (4,)
        assert rtopk.topk(x, k, width=12).indices.shape == (4, 12)  # past M: padding
        assert rtopk.topk(x, 3, lengths=lengths).indices.shape == (4, 3)
        with pytest.raises(ValueError, match=r"needs width="):
            rtopk.topk(x, k)
        with pytest.raises(ValueError, match=r"lengths has shape \(3,\)"):
            rtopk.topk(x, 3, lengths=torch.full((3,), 5, device="cuda"))
        with pytest.raises(ValueError, match="larger than the row width"):
            rtopk.topk(x, 11, lengths=lengths)


def per_row_entry(words: Any, bound: int) -> Any:
    """The kernel's ``per_row_entry`` on an array of uint32 words: cut to ``bound``; below a
    bound of 2^31 a word with its top bit set (a negative int32) is 0."""
    w = words.astype(np.int64)
    return np.where((w >= 2**31) & (bound < 2**31), 0, np.minimum(w, bound))


class EmulatedLaunch:
    """Stands in for ``_native.cuda_launch`` on CPU tensors, to test the Python side of the
    CUDA path without a GPU: it reads the per-row arrays at the addresses it is given, as the
    kernel reads them (``n`` 32-bit words of lengths and k, each cut to M and to the launch's
    width, a word with its top bit set read as 0 below a bound of 2^31: ``per_row_entry``),
    and writes docs/contract.md §5's answer (:func:`ragged_reference`) at the output
    addresses. float32 rows only."""

    def __init__(self) -> None:
        self.seen: List[Any] = []
        self.words: Optional[EmulatedWords] = None

    def __call__(self, request: Any, n: int, m: int, pointers: Any, stream: int) -> None:
        import ctypes

        x_p, v_p, i_p, it_p, len_p, k_p, h_p, th_p = pointers
        width = request.k

        def read(p: int, ctype: Any, count: int) -> Any:
            return np.ctypeslib.as_array((ctype * count).from_address(p)).copy()

        lengths = read(len_p, ctypes.c_uint32, n) if len_p else None
        ks = read(k_p, ctypes.c_uint32, n) if k_p else None
        hint = read(h_p, ctypes.c_float, n) if h_p else None
        self.seen.append((request, n, m, lengths, ks, hint, it_p != 0, th_p != 0))
        assert (th_p != 0) == request.threshold and (it_p != 0) == request.iterations
        if n == 0 or width == 0:
            return
        x = read(x_p, ctypes.c_float, n * m).reshape(n, m)
        k_i = np.full(n, width) if ks is None else per_row_entry(ks, width)
        m_i = np.full(n, m) if lengths is None else per_row_entry(lengths, m)
        v, i, t = ragged_reference(x, k_i, m_i, request.largest, request.sorted)
        values = np.zeros((n, width), dtype=np.float32)
        indices = np.full((n, width), -1, dtype=np.int64)
        values[:, : v.shape[1]], indices[:, : i.shape[1]] = v, i
        index_type = ctypes.c_int32 if request.index_dtype == "int32" else ctypes.c_int64
        out_v = np.ctypeslib.as_array((ctypes.c_float * (n * width)).from_address(v_p))
        out_i = np.ctypeslib.as_array((index_type * (n * width)).from_address(i_p))
        out_v[:] = values.reshape(-1)
        out_i[:] = indices.reshape(-1)
        if th_p:
            np.ctypeslib.as_array((ctypes.c_float * n).from_address(th_p))[:] = t
        if it_p:
            np.ctypeslib.as_array((ctypes.c_int32 * n).from_address(it_p))[:] = 7


class EmulatedWords:
    """Stands in for ``_native.cuda_per_row_words`` on CPU tensors: reads ``n`` int64 entries
    at the first address and writes them at the second as 32-bit words clamped to
    ``[0, bound]``, as ``per_row_words`` (kernels/utilities.cu) does."""

    def __init__(self) -> None:
        self.calls: List[Tuple[int, int, int]] = []

    def __call__(self, device: int, pointers: Any, n: int, bound: int, stream: int) -> None:
        import ctypes

        entries_p, words_p = pointers
        self.calls.append((device, n, bound))
        entries = np.ctypeslib.as_array((ctypes.c_int64 * n).from_address(entries_p))
        words = np.ctypeslib.as_array((ctypes.c_uint32 * n).from_address(words_p))
        words[:] = np.clip(entries, 0, bound).astype(np.uint32)


@pytest.fixture
def emulated(monkeypatch: Any) -> EmulatedLaunch:
    """The CUDA path on CPU tensors: CPU tensors stand for device tensors, host arrays are
    "uploaded" as CPU tensors, the launch is emulated."""
    import rtopk.ops as ops

    launch = EmulatedLaunch()
    monkeypatch.setattr(ops, "_on_device", lambda v: isinstance(v, torch.Tensor))
    monkeypatch.setattr(
        ops, "_upload", lambda a, x, dtype: torch.from_numpy(np.ascontiguousarray(a, dtype))
    )
    monkeypatch.setattr(ops, "current_stream", lambda index: 0)
    monkeypatch.setattr(ops, "_capturing", lambda: False)
    monkeypatch.setattr(ops._native, "cuda_launch", launch)
    launch.words = EmulatedWords()
    monkeypatch.setattr(ops._native, "cuda_per_row_words", launch.words)
    return launch


def emulated_call(x: Any, k: Any, dim: int = -1, width: Optional[int] = None, **kw: Any) -> Any:
    """``rtopk.topk``'s CUDA path (``rtopk.ops.cuda_impl``) on a CPU tensor."""
    import rtopk.ops as ops

    per_row = _request.is_per_row_k(k)
    kk = (_request.WIDEST if width is None else width) if per_row else k
    a = _request.ask(
        kk,
        kw.get("largest", True),
        kw.get("sorted", True),
        "auto",
        None,
        0.0,
        kw.get("return_iterations", False),
        kw.get("indices_dtype"),
        kw.get("return_threshold", False),
    )
    rows = _request.PerRow(k if per_row else None, kw.get("lengths"), kw.get("hint"))
    return ops.cuda_impl(x, dim, a, rows)


@needs_torch
def test_the_cuda_path_hands_the_kernel_clamped_int32_arrays(emulated: EmulatedLaunch) -> None:
    x = hostile_matrix(6, 50, "normal", 8)
    k = torch.tensor([-3, 0, 2, 7, 100, 4])
    lengths = torch.tensor([10, -1, 60, 50, 5, 2**40])
    v, i, it, th = emulated_call(
        torch.from_numpy(x), k, width=5, lengths=lengths, return_threshold=True
    )
    request, n, m, seen_len, seen_k, hint, counts, thresholds = emulated.seen[-1]
    assert (request.k, n, m, counts, thresholds, hint) == (5, 6, 50, False, True, None)
    assert seen_k.tolist() == [0, 0, 2, 5, 5, 4] and seen_len.tolist() == [10, 0, 50, 50, 5, 50]
    assert request.device == "cuda:15" and request.ragged  # a CPU tensor's get_device() is -1
    # int64 entries (torch's default) go through the package's own conversion, one launch
    # each, clamped to the launch's width and to M
    assert emulated.words is not None and emulated.words.calls == [(-1, 6, 50), (-1, 6, 5)]
    want_v, want_i, want_t = ragged_reference(
        x, np.array([0, 0, 2, 5, 5, 4]), np.array([10, 0, 50, 50, 5, 50]), True, True
    )
    np.testing.assert_array_equal(i.numpy(), want_i)
    assert same_bits(v.numpy(), want_v) and same_bits(th.numpy(), want_t) and it is None
    # the caller's tensors are left as they were
    assert k.tolist() == [-3, 0, 2, 7, 100, 4] and lengths.tolist()[1] == -1
    # int32, int16 and strided entries, a float64 hint: converted, contiguous
    k32 = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], dtype=torch.int32)[::2]
    l16 = torch.tensor([50, 3, 0, 49, 8, 1], dtype=torch.int16)
    hint = torch.tensor([0.5, -1.0, 2.0, 0.0, math.nan, math.inf], dtype=torch.float64)
    emulated_call(
        torch.from_numpy(x), k32, width=11, lengths=l16, hint=hint, indices_dtype=torch.int32
    )
    request, _n, _m, seen_len, seen_k, seen_hint, _c, _t = emulated.seen[-1]
    assert seen_k.tolist() == [1, 3, 5, 7, 9, 11] and seen_len.tolist() == [50, 3, 0, 49, 8, 1]
    assert same_bits(seen_hint, hint.numpy().astype(np.float32))
    assert request.index_dtype == "int32" and request.k == 11
    # int32 entries reach the kernel as they are, negatives and entries past the bound
    # included (no clamping launch): the kernel reads them as clamped
    k32 = torch.tensor([-3, 0, 2, 7, 100, 4], dtype=torch.int32)
    l32 = torch.tensor([10, -1, 60, 50, 5, 2**31 - 1], dtype=torch.int32)
    v, i, _it, th = emulated_call(
        torch.from_numpy(x), k32, width=5, lengths=l32, return_threshold=True
    )
    _r, _n, _m, seen_len, seen_k, _h, _c, _t = emulated.seen[-1]
    assert seen_k.astype(np.int64).tolist() == [2**32 - 3, 0, 2, 7, 100, 4]
    assert seen_len.astype(np.int64).tolist() == [10, 2**32 - 1, 60, 50, 5, 2**31 - 1]
    np.testing.assert_array_equal(i.numpy(), want_i)
    assert same_bits(v.numpy(), want_v) and same_bits(th.numpy(), want_t)


@needs_torch
def test_the_cuda_path_width_padding_and_empty_launches(emulated: EmulatedLaunch) -> None:
    x = hostile_matrix(4, 10, "hostile", 3)
    xt = torch.from_numpy(x)
    k = np.array([1, 10, 0, 4])
    # without a width: the largest k (read back); host arrays: checked, then uploaded
    for kk in (torch.from_numpy(k), k, k.tolist()):
        v, i, _it, th = emulated_call(xt, kk, return_threshold=True)
        assert emulated.seen[-1][0].k == 10 and i.shape == (4, 10)
        want_v, want_i, want_t = ragged_reference(x, k, None, True, True)
        np.testing.assert_array_equal(i.numpy(), want_i)
        assert same_bits(v.numpy(), want_v) and same_bits(th.numpy(), want_t)
    # a width past M: the launch is M wide, the rest is padding
    v, i, _it, _th = emulated_call(xt, torch.from_numpy(k), width=13)
    assert emulated.seen[-1][0].k == 10 and i.shape == (4, 13) and v.shape == (4, 13)
    assert bool((i[:, 10:] == -1).all()) and bool((v[:, 10:] == 0).all())
    np.testing.assert_array_equal(i[:, :10].numpy(), ragged_reference(x, k, None, True, True)[1])
    # a width of 0: nothing launched; thresholds NaN, iterations 0
    v, i, it, th = emulated_call(
        xt,
        torch.zeros(4, dtype=torch.int64),
        width=0,
        return_threshold=True,
        return_iterations=True,
    )
    assert i.shape == (4, 0) and bool(th.isnan().all()) and bool((it == 0).all())
    # host values are checked with the CPU's messages
    with pytest.raises(ValueError, match=r"width = 3 is less than the largest k\[i\] = 10"):
        emulated_call(xt, k, width=3)
    with pytest.raises(ValueError, match=r"k\[1\] = 11 is larger"):
        emulated_call(xt, [1, 11, 0, 4], width=11)
    with pytest.raises(ValueError, match="the largest k\\[i\\] = 11 is larger than the row"):
        emulated_call(xt, torch.tensor([1, 11, 0, 4]))


@needs_torch
def test_the_cuda_path_along_another_dim(emulated: EmulatedLaunch) -> None:
    x = hostile_matrix(12, 30, "normal", 10)
    rng = np.random.default_rng(10)
    k = rng.integers(0, 31, 12)
    lengths = rng.integers(0, 31, 12)
    y = torch.from_numpy(np.ascontiguousarray(x.T))  # (30, 12): rows along dim 0
    _v, i, _it, th = emulated_call(
        y,
        torch.from_numpy(k),
        dim=0,
        width=30,
        lengths=torch.from_numpy(lengths),
        return_threshold=True,
    )
    _want_v, want_i, want_t = ragged_reference(x, k, lengths, True, True)
    want_i = np.pad(want_i, ((0, 0), (0, 30 - want_i.shape[1])), constant_values=-1)
    assert i.shape == (30, 12) and th.shape == (12,)
    np.testing.assert_array_equal(i.numpy().T, want_i)
    assert same_bits(th.numpy(), want_t)
    # a batch: per-row inputs of the batch shape
    x3 = torch.from_numpy(x).reshape(3, 4, 30)
    _v, i, _it, th = emulated_call(
        x3,
        torch.from_numpy(k).reshape(3, 4),
        width=30,
        lengths=torch.from_numpy(lengths).reshape(3, 4),
        return_threshold=True,
    )
    assert i.shape == (3, 4, 30) and th.shape == (3, 4)
    np.testing.assert_array_equal(i.reshape(12, 30).numpy(), want_i)
