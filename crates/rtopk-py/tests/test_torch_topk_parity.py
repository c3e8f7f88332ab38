"""PyTorch's topk tests (test/test_sort_and_select.py: test_topk, test_topk_integral,
test_topk_arguments, test_topk_noncontiguous, test_topk_4d, test_topk_nonfinite,
test_topk_zero), re-typed from their behaviour with ``torch.topk`` replaced by
``rtopk.topk``, for every dtype they instantiate.

Each check runs twice where it can: on torch tensors against ``torch.topk`` (CPU, and CUDA
where a GPU exists — every dtype, float64 and int64 on the kernel's 64-bit rows; skipped
visibly otherwise), and on NumPy arrays against a NumPy reference
with torch's semantics (values sorted by NaN-above-inf order; indices are checked as torch's
tests check them, by gathering, since torch does not fix the order of equal values).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import numpy as np
import pytest
import rtopk

try:
    import torch
except ImportError:  # the NumPy half still runs
    torch = None

FLOATS = ["float32", "float64", "float16"]
INTEGERS = ["int8", "uint8", "int16", "int32", "int64"]

need_torch = pytest.mark.skipif(torch is None, reason="torch is not installed: torch half skipped")


def devices() -> List[Any]:
    """``cpu``, and ``cuda`` as a visible skip without a GPU."""
    gpu = torch is not None and torch.cuda.is_available()
    skip = pytest.mark.skip(reason="no CUDA GPU: the CUDA half of the parity tests skipped")
    return ["cpu", pytest.param("cuda", marks=[] if gpu else [skip])]


def reference(x: np.ndarray, k: int, dim: int = -1, largest: bool = True) -> np.ndarray:
    """torch.topk's values (sorted), in NumPy: NumPy's sort puts NaN last, so NaN ranks above
    +inf as in torch."""
    ordered = np.sort(x, axis=dim)
    if largest:
        ordered = np.flip(ordered, axis=dim)
    return np.take(ordered, np.arange(k), axis=dim)


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values (NaN equal to NaN, -0.0 equal to +0.0), same dtype and shape."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a, b))


def check_numpy(x: np.ndarray, k: int, dim: int = -1, largest: bool = True) -> None:
    """rtopk.topk on a NumPy array against the reference: the values, and the input's values
    at the returned indices (``sorted=False`` compared after sorting)."""
    want = reference(x, k, dim, largest)
    got = rtopk.topk(x, k, dim, largest, True)
    assert got.indices.dtype == np.int64
    assert same_values(got.values, want), (got.values, want)
    assert same_values(np.take_along_axis(x, got.indices, axis=dim), got.values)
    unsorted = rtopk.topk(x, k, dim, largest, False)
    ordered = np.sort(unsorted.values, axis=dim)
    assert same_values(np.flip(ordered, axis=dim) if largest else ordered, want)


def check_torch(x: Any, k: int, dim: int = -1, largest: bool = True) -> None:
    """rtopk.topk on a tensor against torch.topk, as torch's tests compare: the values, and
    gathering the input at the indices gives them."""
    want = torch.topk(x, k, dim, largest, True)
    got = rtopk.topk(x, k, dim, largest, True)
    assert got.values.dtype == x.dtype and got.indices.dtype == torch.int64
    assert got.values.device == x.device
    torch.testing.assert_close(got.values, want.values, equal_nan=True, rtol=0, atol=0)
    torch.testing.assert_close(x.gather(dim, got.indices), got.values, equal_nan=True)
    unsorted = rtopk.topk(x, k, dim, largest, False)
    values = unsorted.values.sort(dim, descending=largest).values
    torch.testing.assert_close(values, want.values, equal_nan=True, rtol=0, atol=0)


def random_numpy(shape: Tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    """Values of ``dtype``: uniform floats, integers over the type's whole range."""
    g = np.random.default_rng(seed)
    if dtype in INTEGERS:
        info = np.iinfo(dtype)
        return g.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return g.standard_normal(shape).astype(dtype)


def on_device(x: np.ndarray, device: str) -> Any:
    # np.array keeps a 0-d array 0-d (np.ascontiguousarray would make it 1-d)
    return torch.from_numpy(np.array(x, order="C", copy=True)).to(device)


def run_case(dtype: str, device: Optional[str], fn: Callable[[Callable[..., Any]], None]) -> None:
    """``fn(check)`` with the NumPy check (``device`` None) or the torch one on ``device`` (the
    GPU kernel takes every dtype here, float64 and int64 included, each in its own type)."""
    if device is None:
        fn(lambda x, *a: check_numpy(x, *a))
        return
    fn(lambda x, *a: check_torch(on_device(x, device), *a))


def backends() -> List[Any]:
    """NumPy (None), torch on the CPU, torch on CUDA (each skipped visibly where missing)."""
    out: List[Any] = [pytest.param(None, id="numpy")]
    for d in devices():
        marks = [need_torch] + (list(d.marks) if not isinstance(d, str) else [])
        name = d if isinstance(d, str) else d.values[0]
        out.append(pytest.param(name, id=f"torch-{name}", marks=marks))
    return out


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("dtype", FLOATS)
def test_topk(backend: Optional[str], dtype: str) -> None:
    """test_topk: sizes, every dim, both directions, k from 1 to the row."""

    def cases(check: Callable[..., None]) -> None:
        x = random_numpy((7, 9, 11), dtype, 1)
        for dim in (0, 1, 2, -1, -2):
            m = x.shape[dim]
            for k in (1, 3, m):
                for largest in (True, False):
                    check(x, k, dim, largest)
        check(random_numpy((1000,), dtype, 2), 100, 0, True)  # 1-D, a long row

    run_case(dtype, backend, cases)


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("dtype", INTEGERS)
def test_topk_integral(backend: Optional[str], dtype: str) -> None:
    """test_topk_integral: values over the dtype's whole range, both directions."""

    def cases(check: Callable[..., None]) -> None:
        x = random_numpy((10, 1000), dtype, 3)
        for largest in (True, False):
            check(x, 5, -1, largest)
            check(x, 37, 1, largest)
        info = np.iinfo(dtype)
        edges = np.array([[info.min, info.max, 0, 1, info.max, info.min, 3, 3]], dtype=dtype)
        check(edges, 4, -1, True)
        check(edges, 4, -1, False)

    run_case(dtype, backend, cases)


def test_topk_arguments() -> None:
    """test_topk_arguments: a bool where dim belongs is a TypeError (torch's, and ours)."""
    q = np.random.default_rng(0).standard_normal((10, 2, 10)).astype(np.float32)
    with pytest.raises(TypeError):
        rtopk.topk(q, 4, True)
    with pytest.raises(TypeError):
        rtopk.topk(q, True)
    if torch is not None:
        with pytest.raises(TypeError):
            torch.from_numpy(q).topk(4, True)
        with pytest.raises(TypeError):
            rtopk.topk(torch.from_numpy(q), 4, True)


@pytest.mark.parametrize("backend", backends())
def test_topk_noncontiguous(backend: Optional[str]) -> None:
    """test_topk_noncontiguous: a strided view (every other column, a transpose) selects as
    its contiguous copy."""

    def cases(check: Callable[..., None]) -> None:
        x = random_numpy((4, 2 * 1000), "float32", 4)
        check(x[:, ::2], 10, -1, True)
        check(x.T, 3, 0, False)

    if backend is None:
        cases(lambda x, *a: check_numpy(x, *a))
        x = random_numpy((4, 2000), "float32", 4)
        strided = rtopk.topk(x[:, ::2], 10)
        copied = rtopk.topk(np.ascontiguousarray(x[:, ::2]), 10)
        np.testing.assert_array_equal(strided.indices, copied.indices)
        return
    t = on_device(random_numpy((4, 2000), "float32", 4), backend)
    for view, k, dim in ((t[:, ::2], 10, -1), (t.t(), 3, 0)):
        assert not view.is_contiguous()
        check_torch(view, k, dim)


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("dtype", FLOATS)
def test_topk_4d(backend: Optional[str], dtype: str) -> None:
    """test_topk_4d: a 4-D input along dim 1."""

    def cases(check: Callable[..., None]) -> None:
        x = np.ones((2, 3072, 2, 2), dtype=dtype)
        x[:, 1, :, :] *= 2.0
        x[:, 10, :, :] *= 1.5
        check(x, 2, 1, True)
        check(random_numpy((2, 40, 3, 5), dtype, 5), 7, 1, False)

    run_case(dtype, backend, cases)


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("dtype", FLOATS)
def test_topk_nonfinite(backend: Optional[str], dtype: str) -> None:
    """test_topk_nonfinite: NaN above +inf, -inf below everything."""

    def cases(check: Callable[..., None]) -> None:
        x = np.array([np.nan, np.inf, 1e4, 0, -1e4, -np.inf], dtype=dtype)
        check(x, 4, 0, True)
        check(x, 4, 0, False)

    run_case(dtype, backend, cases)
    if backend is None:
        x = np.array([np.nan, np.inf, 1e4, 0, -1e4, -np.inf], dtype=dtype)
        got = rtopk.topk(x, 4)
        assert np.isnan(got.values[0]) and list(got.values[1:]) == [np.inf, 1e4, 0]
        assert list(got.indices) == [0, 1, 2, 3]
        low = rtopk.topk(x, 4, largest=False)
        assert list(low.values) == [-np.inf, -1e4, 0, 1e4] and list(low.indices) == [5, 4, 3, 2]


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("dtype", FLOATS + INTEGERS)
def test_topk_zero(backend: Optional[str], dtype: str) -> None:
    """test_topk_zero: k = 0 gives empty values and int64 indices of the right shape, on
    any dim; a 0-d input takes k = 0 and 1."""

    def arrays(x: np.ndarray) -> Any:
        return x if backend is None else on_device(x, backend)

    x = arrays(random_numpy((2, 2), dtype, 6))
    for dim in (0, 1, -1):
        got = rtopk.topk(x, 0, dim)
        want_shape = (0, 2) if dim == 0 else (2, 0)
        assert tuple(got.values.shape) == want_shape and tuple(got.indices.shape) == want_shape
        assert str(got.values.dtype).endswith(dtype)
        assert str(got.indices.dtype).endswith("int64")
    scalar = arrays(np.array(5, dtype=dtype))
    one = rtopk.topk(scalar, 1)
    assert tuple(one.values.shape) == () and int(one.indices) == 0 and float(one.values) == 5
    assert tuple(rtopk.topk(scalar, 0).values.shape) == (0,) or (
        tuple(rtopk.topk(scalar, 0).values.shape) == ()
    )


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_topk_out(backend: Optional[str], dtype: str) -> None:
    """``out=(values, indices)`` as torch.topk: written in place and returned; an empty
    tensor is resized; a wrong dtype, shape or kind is refused before anything is written."""
    raw = random_numpy((3, 50), dtype, 7)
    x = raw if backend is None else on_device(raw, backend)
    want = rtopk.topk(x, 5)
    if backend is None:
        v, i = np.empty((3, 5), dtype=dtype), np.empty((3, 5), dtype=np.int64)
    else:
        v = torch.empty(0, dtype=x.dtype, device=backend)
        i = torch.empty(0, dtype=torch.int64, device=backend)
    got = rtopk.topk(x, 5, out=(v, i))
    assert got.values is v and got.indices is i
    if backend is None:
        assert same_values(v, want.values) and same_values(i, want.indices)
        bad_dtype = (np.empty((3, 5), dtype=np.float16 if dtype != "float16" else np.float32), i)
        with pytest.raises(TypeError, match="dtype"):
            rtopk.topk(x, 5, out=bad_dtype)
        keep = i.copy()
        with pytest.raises(ValueError, match="shape"):
            rtopk.topk(x, 5, out=(np.empty((3, 4), dtype=dtype), i))
        assert np.array_equal(i, keep)  # nothing written
    else:
        assert torch.equal(v, want.values) and torch.equal(i, want.indices)
        with pytest.raises(ValueError, match="shape"):
            rtopk.topk(x, 5, out=(torch.ones(2, 2, dtype=x.dtype, device=backend), i))
        with pytest.raises(TypeError, match="dtype"):
            rtopk.topk(x, 5, out=(v, i.to(torch.int32)))
        with pytest.raises(TypeError):
            rtopk.topk(x, 5, out=(v.cpu().numpy(), i))
    with pytest.raises(TypeError, match="tuple"):
        rtopk.topk(x, 5, out=v)
