"""Rows of their own length, a k per row, threshold hints and the threshold output
(docs/contract.md §5) through ``rtopk.topk`` on NumPy arrays, against a pure-NumPy reference
of the contract written from its text (:func:`ragged_reference`), and their errors."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt
import pytest
import rtopk
from oracle import canonical, hostile_matrix, same_bits

# The exact algorithms that take per-row inputs (the registry's `ragged` capability).
RAGGED_ALGOS = [a.name for a in rtopk.algorithms() if a.ragged and a.exact]


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
    assert {"bisect", "heap", "radix"} <= set(RAGGED_ALGOS)
    assert "sim" not in RAGGED_ALGOS and "cuda" not in RAGGED_ALGOS


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


@pytest.mark.parametrize("algo", ["sim"])
def test_the_simulator_refuses_per_row_inputs_with_the_librarys_message(algo: str) -> None:
    x = hostile_matrix(3, 40, "normal", 0)
    with pytest.raises(ValueError, match=r"'sim' does not support .* yet"):
        rtopk.topk(x, 2, algo=algo, lengths=np.array([3, 40, 0]))
    with pytest.raises(ValueError, match=r"'sim' does not support .* yet"):
        rtopk.topk(x, np.array([1, 2, 3]), algo=algo)
    with pytest.raises(ValueError, match=r"'sim' does not support .* yet"):
        rtopk.topk(x, 2, algo=algo, hint=np.zeros(3))


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


def test_the_cuda_launch_refuses_what_it_cannot_write() -> None:
    from rtopk import _native

    # refused before any device is touched: no GPU needed
    r = _native.Request(k=2, device="cuda", threshold=True)
    with pytest.raises(ValueError, match="threshold output"):
        _native.cuda_launch(r, 1, 40, (0, 0, 0, 0), 0)
    r = _native.Request(k=2, device="cuda", lengths=np.array([3]))
    with pytest.raises(ValueError, match=r"'cuda' does not support rows of their own length"):
        _native.cuda_launch(r, 1, 40, (0, 0, 0, 0), 0)
    r = _native.Request(k=np.array([2]), device="cuda")
    with pytest.raises(ValueError, match=r"'cuda' does not support a k per row"):
        _native.cuda_launch(r, 1, 40, (0, 0, 0, 0), 0)
