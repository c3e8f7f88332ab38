"""rtopk on NumPy arrays against the oracle of docs/contract.md §1 (tests/oracle.py): every
algorithm, hostile rows, every rank/dim/layout, both modes, both output orders, iteration
counts, errors.

Needs only NumPy (CI runs it in a fresh venv after ``pip install ./crates/rtopk-py``).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Any, List

import numpy as np
import pytest
import rtopk
from oracle import (
    FAMILIES,
    canonical,
    canonical_along,
    canonical_rows,
    hostile_matrix,
    ks_for,
    same_bits,
)
from rows64 import hints_64, ragged_64, wide_matrix

SPEC_NAMES = [
    "heap",
    "quickselect",
    "radix",
    "bucket",
    "bitonic",
    "bisect",
    "sim",
    "cuda",
    "air",
    "gridselect",
    "warpselect",
    "drtopk",
    "torch-radix",
    "sort",
]
CPU_NAMES = [a.name for a in rtopk.algorithms() if a.device == "cpu"]
WIDTHS = [1, 2, 7, 31, 33, 64, 100, 257]


def test_oracle_follows_the_spec_on_hand_made_rows() -> None:
    nan = np.float32("nan")
    row = np.array([0.5, 3.0, nan, 3.0, -np.inf, np.inf], dtype=np.float32)
    assert list(canonical(row, 3)) == [1, 2, 5]  # NaN above +inf; ties to the lower index
    assert list(canonical(row, 3, sorted=True)) == [2, 5, 1]
    assert list(canonical(row, 2, largest=False, sorted=True)) == [4, 0]
    zeros = np.array([0.0, -0.0, 0.0, -1.0], dtype=np.float32)
    assert list(canonical(zeros, 2)) == [0, 1]  # -0 == +0
    neg_nan = np.array([1.0, np.float32(-nan)], dtype=np.float32)
    assert list(canonical(neg_nan, 1)) == [1]  # a NaN of either sign ranks above everything
    assert list(canonical(neg_nan, 1, largest=False)) == [0]


def test_algorithms_are_the_registry_in_spec_order() -> None:
    algos = rtopk.algorithms()
    assert [a.name for a in algos] == SPEC_NAMES
    assert all(a.exact for a in algos)
    assert [a.name for a in algos if a.bisection_params] == ["bisect", "sim", "cuda"]
    assert [a.name for a in algos if a.iterations] == ["bisect", "sim", "cuda"]
    assert [a.name for a in algos if a.device == "gpu"] == ["cuda"]
    assert rtopk.auto_algorithm() == "bisect" and rtopk.auto_algorithm("cuda") == "cuda"
    assert "sim" in CPU_NAMES and len(CPU_NAMES) == 13


@pytest.mark.parametrize("algo", ["auto", *CPU_NAMES])
def test_every_algorithm_returns_the_canonical_top_k_on_hostile_rows(algo: str) -> None:
    rows = 3 if algo == "sim" else 6
    for fi, family in enumerate(FAMILIES):
        for wi, m in enumerate(WIDTHS):
            x = hostile_matrix(rows, m, family, seed=100 * fi + wi)
            for k in ks_for(m):
                for largest in (True, False):
                    for sorted_ in (False, True):
                        want_v, want_i = canonical_rows(x, k, largest, sorted_)
                        got = rtopk.topk(x, k, largest=largest, sorted=sorted_, algo=algo)
                        case = f"{algo} {family} m={m} k={k} largest={largest} sorted={sorted_}"
                        assert got.indices.dtype == np.int64, case
                        np.testing.assert_array_equal(got.indices, want_i, err_msg=case)
                        assert same_bits(got.values, want_v), case


def test_values_are_the_inputs_own_bits() -> None:
    bits = np.array([0x7FC0_1234, 0xFFC0_0001, 0x8000_0000, 0x0000_0001, 0x7F80_0001], np.uint32)
    x = bits.view(np.float32).reshape(1, -1)
    out = rtopk.topk(x, 5, sorted=True)
    assert list(out.indices[0]) == [0, 1, 4, 3, 2]  # NaNs by index, then subnormal, then -0
    assert out.values.view(np.uint32)[0].tolist() == bits[[0, 1, 4, 3, 2]].tolist()


def _layouts(shape: Any, seed: int) -> List[Any]:
    """One array of ``shape`` in several layouts: C, Fortran, strided, negative strides."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    base = hostile_matrix(1, size, "hostile", seed).reshape(shape)
    out = [base, np.asfortranarray(base)]
    doubled = tuple(2 * s for s in shape)
    big = hostile_matrix(1, int(np.prod(doubled)), "hostile", seed + 1).reshape(doubled)
    out.append(big[tuple(slice(None, None, 2) for _ in shape)])
    neg = tuple(slice(None, None, -1) for _ in shape)
    out.append(base[neg])
    perm = rng.permutation(len(shape))
    out.append(np.transpose(np.ascontiguousarray(np.transpose(base, perm)), np.argsort(perm)))
    return out


@pytest.mark.parametrize("shape", [(37,), (5, 37), (3, 4, 33), (2, 3, 4, 9)])
def test_every_rank_dim_and_layout(shape: Any) -> None:
    for li, x in enumerate(_layouts(shape, seed=len(shape))):
        assert x.shape == shape
        for dim in range(-x.ndim, x.ndim):
            m = x.shape[dim]
            for k in (0, 1, m // 2, m):
                for largest, sorted_ in ((True, False), (False, True)):
                    want_v, want_i = canonical_along(x, k, dim, largest, sorted_)
                    got = rtopk.topk(x, k, dim, largest, sorted_)
                    case = f"layout {li} shape {shape} dim {dim} k {k}"
                    np.testing.assert_array_equal(got.indices, want_i, err_msg=case)
                    assert same_bits(got.values, want_v), case


def test_rows_are_copied_only_when_the_layout_needs_it() -> None:
    c = np.zeros((6, 40), dtype=np.float32)
    f = np.asfortranarray(c)
    strided = np.zeros((12, 80), dtype=np.float32)[::2, ::2]
    negative = c[::-1, ::-1]
    broadcast = np.broadcast_to(np.arange(40, dtype=np.float32), (6, 40))
    for a in (c, f, strided, negative, broadcast):
        rows, batch, d = rtopk._host.as_rows(a, -1)
        assert np.shares_memory(rows, a), a.strides
        assert batch == (6,) and d == 1
    rows, _, _ = rtopk._host.as_rows(c, 0)  # the transpose is a view of C-order rows
    assert np.shares_memory(rows, c)
    cube = np.zeros((3, 4, 5), dtype=np.float32)
    assert np.shares_memory(rtopk._host.as_rows(cube, 2)[0], cube)
    assert np.shares_memory(rtopk._host.as_rows(cube[:, ::2], -1)[0], cube)  # rows merge
    # dim in the middle of a C-order cube: no (rows, M) view exists, so a copy.
    assert not np.shares_memory(rtopk._host.as_rows(cube, 1)[0], cube)


def test_outputs_share_nothing_with_the_input() -> None:
    x = hostile_matrix(8, 50, "normal", 1)
    before = x.copy()
    out = rtopk.topk(x, 7, return_iterations=True)
    for a in out:
        assert not np.shares_memory(a, x)
    assert not np.shares_memory(out.values, out.indices)
    assert same_bits(x, before)  # the input is read, never written
    out.values[:] = 0
    assert same_bits(x, before)


def test_zero_rows_and_empty_batches() -> None:
    x = np.zeros((0, 5), dtype=np.float32)
    out = rtopk.topk(x, 3, return_iterations=True)
    assert out.values.shape == (0, 3) and out.indices.shape == (0, 3)
    assert out.iterations.shape == (0,)
    cube = np.zeros((2, 0, 7), dtype=np.float32)
    assert rtopk.topk(cube, 2).indices.shape == (2, 0, 2)


def test_int32_indices_on_request() -> None:
    x = hostile_matrix(4, 70, "hostile", 3)
    for spelling in (np.int32, "int32", np.dtype("int32")):
        out = rtopk.topk(x, 9, sorted=False, indices_dtype=spelling)
        assert out.indices.dtype == np.int32
        np.testing.assert_array_equal(out.indices, canonical_rows(x, 9)[1])
    assert rtopk.topk(x, 9, indices_dtype=np.int64).indices.dtype == np.int64
    with pytest.raises(TypeError, match="indices_dtype"):
        rtopk.topk(x, 9, indices_dtype=np.int16)


def test_iterations_are_bisects_and_the_simulators() -> None:
    for family in FAMILIES:
        x = hostile_matrix(8, 77, family, 7)
        for k in (1, 10, 76):
            for largest in (True, False):
                for max_iter in (None, 0, 3):
                    kw: Any = dict(largest=largest, max_iter=max_iter, return_iterations=True)
                    b = rtopk.topk(x, k, algo="bisect", **kw)
                    s = rtopk.topk(x, k, algo="sim", **kw)
                    a = rtopk.topk(x, k, **kw)
                    case = f"{family} k={k} largest={largest} max_iter={max_iter}"
                    assert b.iterations.dtype == np.int32
                    np.testing.assert_array_equal(b.iterations, s.iterations, err_msg=case)
                    np.testing.assert_array_equal(a.iterations, b.iterations, err_msg=case)
                    np.testing.assert_array_equal(b.indices, s.indices, err_msg=case)
                    assert same_bits(b.values, s.values), case
                    if max_iter is not None:
                        assert (b.iterations == max_iter).all(), case
                    sim = rtopk.sim.run(x, k, largest=largest, max_iter=max_iter)
                    np.testing.assert_array_equal(sim.iterations, b.iterations, err_msg=case)
                    assert sim.clean, sim.diagnostics


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_the_simulated_kernel_takes_64_bit_rows_as_bisect(dtype: Any) -> None:
    # the simulator's wide rows (every unit width, and rows past them): bisect's values (the
    # input's bits), indices and iteration counts, exact and approximate, both modes and
    # orders (ragged requests on them: the test below)
    for n, m in ((5, 33), (3, 256), (2, 600), (1, 1500)):
        x = wide_matrix(n, m, dtype, seed=m)
        for k in sorted({1, m // 3, m - 1, m}):
            for largest, sorted_ in ((True, False), (False, True)):
                for extra in ({}, {"max_iter": 3}, {"recall": 0.8}):
                    kw: Any = dict(largest=largest, sorted=sorted_, return_iterations=True)
                    kw.update(extra)
                    s = rtopk.topk(x, k, algo="sim", **kw)
                    b = rtopk.topk(x, k, algo="bisect", **kw)
                    case = f"{np.dtype(dtype)} ({n}, {m}) k={k} {kw}"
                    assert s.values.dtype == dtype and s.indices.dtype == np.int64, case
                    np.testing.assert_array_equal(s.indices, b.indices, err_msg=case)
                    np.testing.assert_array_equal(
                        s.values.view(np.int64), b.values.view(np.int64), err_msg=case
                    )
                    np.testing.assert_array_equal(s.iterations, b.iterations, err_msg=case)
    plain = rtopk.topk(x, 3, algo="sim", return_threshold=True)  # read off the selection
    assert plain.threshold.shape == (x.shape[0],)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_the_simulated_kernel_takes_ragged_64_bit_rows_as_bisect(dtype: Any) -> None:
    # the simulator's wide rows' ragged twins and 64-bit threshold step: rows of their own
    # length, a k per row, hints of every kind (beyond +-2^63 and fractional on int64 rows)
    # and the threshold output give bisect's indices (padding -1), value bits (padding 0),
    # iteration counts (with the same hints) and thresholds, bit for bit
    compared = 0
    for n, m in ((13, 33), (12, 256), (7, 600), (5, 1500)):
        x = wide_matrix(n, m, dtype, seed=m + 7)
        for width in (m, max(1, m // 3)):
            lengths, ks = ragged_64(n, m, width, seed=m + width)
            for largest, sorted_ in ((True, False), (False, True)):
                for extra in ({}, {"max_iter": 3}, {"recall": 0.8}):
                    kw: Any = dict(
                        largest=largest,
                        sorted=sorted_,
                        return_iterations=True,
                        return_threshold=True,
                    )
                    kw.update(extra)
                    for per_row in (dict(lengths=lengths), dict(lengths=lengths, k=ks)):
                        k = per_row.get("k", width)
                        base = dict(kw, lengths=per_row["lengths"])
                        own = rtopk.topk(x, k, algo="bisect", **base).threshold
                        for hint in (None, hints_64(own, seed=m + width)):
                            args = base if hint is None else dict(base, hint=hint)
                            s = rtopk.topk(x, k, algo="sim", **args)
                            b = rtopk.topk(x, k, algo="bisect", **args)
                            case = f"{np.dtype(dtype)} ({n}, {m}) k={k} {kw} hint={hint}"
                            assert s.values.dtype == dtype, case
                            np.testing.assert_array_equal(s.indices, b.indices, err_msg=case)
                            np.testing.assert_array_equal(
                                s.values.view(np.int64), b.values.view(np.int64), err_msg=case
                            )
                            np.testing.assert_array_equal(s.iterations, b.iterations, case)
                            np.testing.assert_array_equal(
                                s.threshold.view(np.int32), b.threshold.view(np.int32), case
                            )
                            selected = np.minimum(np.broadcast_to(k, (n,)), lengths)
                            for r in range(n):
                                assert (s.indices[r, selected[r] :] == -1).all(), case
                                assert (s.values[r, selected[r] :].view(np.int64) == 0).all()
                                if selected[r] == 0:  # NaN; a NaN value may be one too
                                    assert np.isnan(s.threshold[r]), case
                            compared += 1
    assert compared >= 192, compared  # 4 shapes, 2 widths, 2 orders, 3 searches, 2 x 2
    # hints alone on whole rows, one k
    x = wide_matrix(9, 300, dtype, seed=3)
    own = rtopk.topk(x, 17, algo="bisect", return_threshold=True).threshold
    h = hints_64(own, seed=4)
    s = rtopk.topk(x, 17, algo="sim", hint=h, return_iterations=True, return_threshold=True)
    b = rtopk.topk(x, 17, algo="bisect", hint=h, return_iterations=True, return_threshold=True)
    np.testing.assert_array_equal(s.indices, b.indices)
    np.testing.assert_array_equal(s.iterations, b.iterations)
    np.testing.assert_array_equal(s.threshold.view(np.int32), own.view(np.int32))


def test_approximate_mode_returns_k_distinct_valid_indices() -> None:
    x = hostile_matrix(20, 200, "hostile", 11)
    for max_iter in (0, 1, 2, 4, 8):
        out = rtopk.topk(x, 16, max_iter=max_iter)
        for r in range(x.shape[0]):
            idx = out.indices[r]
            assert len(set(idx.tolist())) == 16 and idx.min() >= 0 and idx.max() < 200
            assert same_bits(out.values[r], x[r, idx])
    exact = rtopk.topk(x, 16)
    loose = rtopk.topk(x, 16, precision=0.5)
    assert loose.indices.shape == exact.indices.shape


def test_the_gil_is_released_while_rust_selects() -> None:
    x = np.random.default_rng(0).standard_normal((1 << 15, 512)).astype(np.float32)
    span: List[float] = []

    def work() -> None:
        span.append(time.perf_counter())
        rtopk.topk(x, 64, algo="sort")
        span.append(time.perf_counter())

    ticks: List[float] = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.0005)
    t.join()
    start, end = span
    assert end - start > 0.02, "the selection was too quick to tell"
    during = [s for s in ticks if start + 0.005 < s < end - 0.005]
    assert len(during) >= 3, f"the main thread made no progress during {end - start:.3f} s"


def test_errors_are_typed_with_the_librarys_message() -> None:
    x = np.zeros((2, 4), dtype=np.float32)
    with pytest.raises(ValueError, match=r"k = 5 is larger than the row width M = 4"):
        rtopk.topk(x, 5)
    with pytest.raises(ValueError, match=r"k must be >= 0, got -1"):
        rtopk.topk(x, -1)
    with pytest.raises(ValueError, match=r"width M = 0"):
        rtopk.topk(np.zeros((2, 0), dtype=np.float32), 0)
    with pytest.raises(ValueError, match=r"unknown algorithm 'foo'; valid names: heap"):
        rtopk.topk(x, 1, algo="foo")
    with pytest.raises(ValueError, match=r"only valid for bisect, sim and cuda, not for 'heap'"):
        rtopk.topk(x, 1, algo="heap", max_iter=2)
    with pytest.raises(ValueError, match=r"--iterations \(return_iterations\) is only valid for"):
        rtopk.topk(x, 1, algo="radix", return_iterations=True)
    with pytest.raises(ValueError, match=r"cannot be combined"):
        rtopk.topk(x, 1, max_iter=2, precision=0.1)
    with pytest.raises(ValueError, match=r"precision -1 is out of range"):
        rtopk.topk(x, 1, precision=-1.0)
    with pytest.raises(ValueError, match=r"precision inf is out of range"):
        rtopk.topk(x, 1, precision=float("inf"))
    with pytest.raises(ValueError, match=r"max_iter must be None or an integer"):
        rtopk.topk(x, 1, max_iter=-3)
    for dtype in (np.uint16, np.uint32, np.uint64, np.complex64, np.bool_):
        with pytest.raises(TypeError, match=r"float32, float16, bfloat16, float64, int8"):
            rtopk.topk(x.astype(dtype), 1)
    with pytest.raises(TypeError, match=r"got dtype complex128"):
        rtopk.topk([[1j, 2.0]], 1)  # a list of Python complex numbers is complex128
    for dim in (2, -3):
        with pytest.raises(IndexError, match=r"out of range for an input of 2 dimension"):
            rtopk.topk(x, 1, dim=dim)
    # a 0-d input is one row of one value, as in torch: dim 0 or -1 only
    assert rtopk.topk(np.float32(1.0), 1).values.shape == ()
    with pytest.raises(IndexError, match="0-d"):
        rtopk.topk(np.float32(1.0), 1, dim=1)
    with pytest.raises(ValueError, match="larger than the row width"):
        rtopk.topk(np.float32(1.0), 2)


def test_non_native_byte_order_and_misaligned_input_are_read_correctly() -> None:
    x = hostile_matrix(3, 40, "hostile", 5)
    big_endian = x.astype(">f4")
    out = rtopk.topk(big_endian, 6, sorted=False)
    np.testing.assert_array_equal(out.indices, canonical_rows(x, 6)[1])
    assert same_bits(out.values, canonical_rows(x, 6)[0])
    raw = np.zeros(x.size * 4 + 1, dtype=np.uint8)
    misaligned = raw[1:].view(np.float32).reshape(x.shape)
    misaligned[:] = x
    assert not misaligned.flags.aligned
    got = rtopk.topk(misaligned, 6, sorted=False)
    np.testing.assert_array_equal(got.indices, canonical_rows(x, 6)[1])


def test_cuda_without_a_driver_is_a_clear_error() -> None:
    if rtopk.cuda.is_available():
        pytest.skip("a CUDA driver is present here: the GPU tests cover this machine")
    x = np.zeros((2, 4), dtype=np.float32)
    with pytest.raises(rtopk.CudaUnavailableError, match="no CUDA driver"):
        rtopk.topk(x, 1, algo="cuda")
    with pytest.raises(RuntimeError):
        rtopk.cuda.verify(quick=True)
    assert issubclass(rtopk.CudaUnavailableError, rtopk.CudaError)
    assert issubclass(rtopk.CudaError, RuntimeError)


def test_shipped_archs_lists_the_architectures_that_hold_units(
    tmp_path: Any, monkeypatch: Any
) -> None:
    (tmp_path / "sm_90").mkdir()
    (tmp_path / "sm_90" / "rtopk_warp_rows_1.cubin").write_bytes(b"not a real unit")
    (tmp_path / "sm_80").mkdir()  # no unit in it
    (tmp_path / "notes").mkdir()
    monkeypatch.setattr(rtopk.cuda, "_UNITS", str(tmp_path))
    assert rtopk.cuda.shipped_archs() == ["sm_90"]
    monkeypatch.setattr(rtopk.cuda, "_UNITS", str(tmp_path / "absent"))
    assert rtopk.cuda.shipped_archs() == []
    # registering a directory reads nothing yet (a unit is read, and its digest checked, when a
    # GPU launch needs it: rtopk-cuda's tests); the package goes on working
    rtopk._native.cuda_add_units_dir(str(tmp_path))
    x = np.array([[3.0, 1.0, 2.0]], dtype=np.float32)
    assert rtopk.topk(x, 2).indices.tolist() == [[0, 2]]


def test_a_rust_panic_becomes_internal_error_and_the_interpreter_lives_on() -> None:
    for detach in (False, True):
        with pytest.raises(rtopk.InternalError, match="deliberate panic"):
            rtopk._native._panic_for_tests(detach)
    assert issubclass(rtopk.InternalError, RuntimeError)
    assert rtopk.topk(np.ones((1, 3), dtype=np.float32), 1).indices.tolist() == [[0]]


def test_array_likes_are_accepted() -> None:
    x = np.array([[3.0, 1.0, 2.0]], dtype=np.float32)

    class Wrapped:
        def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
            return x

    assert rtopk.topk(Wrapped(), 2).indices.tolist() == [[0, 2]]


def test_prepare_without_a_driver_is_a_clear_error() -> None:
    if rtopk.cuda.is_available():
        pytest.skip("a CUDA driver is present here: the GPU tests cover this machine")
    with pytest.raises(rtopk.CudaUnavailableError, match="no CUDA driver"):
        rtopk.cuda.prepare()


def _python_m_rtopk_cuda(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rtopk.cuda", *args], capture_output=True, text=True, timeout=120
    )


def test_python_m_rtopk_cuda_runs_without_warnings_and_refuses_bad_arguments() -> None:
    # `import rtopk` imports rtopk.cuda; `-m` runs its __main__ module, not the package again
    # (runpy's RuntimeWarning when a module it runs was already imported)
    ok = _python_m_rtopk_cuda("prepare", "--help")
    assert ok.returncode == 0 and "--device" in ok.stdout
    assert "Warning" not in ok.stderr, ok.stderr
    bad = _python_m_rtopk_cuda("prepare", "--device", "one")
    assert bad.returncode == 2 and "invalid int value" in bad.stderr
    assert _python_m_rtopk_cuda().returncode == 2


def test_python_m_rtopk_cuda_prepare_without_a_driver_exits_1_with_its_reason() -> None:
    if rtopk.cuda.is_available():
        pytest.skip("a CUDA driver is present here: `prepare` would build every unit")
    run = _python_m_rtopk_cuda("prepare")
    assert run.returncode == 1, run
    assert run.stderr.startswith("error: no CUDA driver"), run.stderr
    assert "Traceback" not in run.stderr and "Warning" not in run.stderr, run.stderr
    assert run.stdout == ""
