"""rtopk.jax: the XLA FFI custom call on JAX's CPU backend (and on a GPU where JAX has one),
against the canonical top-k of docs/contract.md §1 and jax.lax.top_k."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from oracle import canonical_rows, hostile_matrix

jax = pytest.importorskip("jax", reason="JAX is not installed (pip install jax)")
jnp = pytest.importorskip("jax.numpy")

import rtopk  # noqa: E402
import rtopk.jax as rjax  # noqa: E402

DTYPES = ["float32", "float16", "bfloat16"]


def as_numpy(a: Any) -> np.ndarray:
    return np.asarray(jax.device_get(a))


def to_f32(x: np.ndarray) -> np.ndarray:
    """The float32 values of a float32/float16/bfloat16 array (exact)."""
    return np.asarray(jnp.asarray(x).astype(jnp.float32))


def check_canonical(x: Any, k: int, largest: bool, values: Any, indices: Any) -> None:
    """Sorted results equal the canonical rows of x's float32 image (exact in every type)."""
    rows = to_f32(x).reshape(-1, x.shape[-1])
    want_v, want_i = canonical_rows(rows, k, largest=largest, sorted=True)
    got_i = as_numpy(indices).reshape(len(rows), k)
    np.testing.assert_array_equal(got_i, want_i)
    got_v = to_f32(as_numpy(values)).reshape(len(rows), k)
    np.testing.assert_array_equal(got_v.view(np.uint32), want_v.view(np.uint32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("largest", [True, False])
def test_hostile_rows_give_the_canonical_top_k(dtype: str, largest: bool) -> None:
    for family, m in (
        ("hostile", 100),
        ("nan-heavy", 45),
        ("subnormal", 70),
        ("ties", 33),
        ("normal", 257),
    ):
        x = jnp.asarray(hostile_matrix(7, m, family, 5)).astype(dtype)
        for k in sorted({0, 1, m - 1, m, 10}):
            v, i = rjax.topk(x, k, largest=largest, sorted=True)
            assert v.shape == (7, k) and i.shape == (7, k)
            assert v.dtype == x.dtype and i.dtype == jnp.int32
            check_canonical(x, k, largest, v, i)


def test_unsorted_results_are_the_same_set() -> None:
    x = jnp.asarray(hostile_matrix(5, 300, "normal", 1))
    v, i = rjax.topk(x, 17)
    _, is_ = rjax.topk(x, 17, sorted=True)
    np.testing.assert_array_equal(np.sort(as_numpy(i), axis=1), np.sort(as_numpy(is_), axis=1))
    assert np.all(np.take_along_axis(as_numpy(x), as_numpy(i), 1) == as_numpy(v))


def test_values_match_jax_lax_top_k_on_finite_rows() -> None:
    x = jnp.asarray(np.random.default_rng(3).standard_normal((16, 1000), dtype=np.float32))
    v, i = rjax.topk(x, 50, sorted=True)
    lv, li = jax.lax.top_k(x, 50)
    np.testing.assert_array_equal(as_numpy(v), as_numpy(lv))
    np.testing.assert_array_equal(as_numpy(i), as_numpy(li))


def test_leading_axes_are_rows_and_jit_and_vmap_agree() -> None:
    x = jnp.asarray(hostile_matrix(24, 65, "hostile", 9)).reshape(2, 3, 4, 65)
    eager = rjax.topk(x, 5, sorted=True)
    jitted = jax.jit(lambda a: rjax.topk(a, 5, sorted=True))(x)
    mapped = jax.vmap(lambda a: rjax.topk(a, 5, sorted=True))(x)
    check_canonical(x, 5, True, *eager)
    for other in (jitted, mapped):
        for a, b in zip(eager, other):
            np.testing.assert_array_equal(as_numpy(a), as_numpy(b))


def test_a_single_row_and_an_empty_batch() -> None:
    v, i = rjax.topk(jnp.array([0.5, 3.0, 1.0]), 2, sorted=True)
    assert as_numpy(i).tolist() == [1, 2]
    v, i = rjax.topk(jnp.zeros((0, 8), jnp.float32), 3)
    assert v.shape == (0, 3) and i.shape == (0, 3)


def test_bad_calls_raise_before_tracing() -> None:
    with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
        rjax.topk(jnp.arange(10), 2)
    with pytest.raises(ValueError, match="outside"):
        rjax.topk(jnp.zeros((2, 4)), 5)
    with pytest.raises(ValueError, match="at least one axis"):
        rjax.topk(jnp.float32(1.0), 1)
    with pytest.raises(TypeError, match="integer"):
        rjax.topk(jnp.zeros((2, 4)), 2.0)  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_recall_target_holds_on_every_row_under_jit_and_vmap(dtype: str) -> None:
    rng = np.random.default_rng(11)
    x = jnp.asarray(rng.standard_normal((2, 24, 3000), dtype=np.float32)).astype(dtype)
    rows = as_numpy(x).reshape(48, 3000)
    exact = canonical_rows(to_f32(rows), 200, largest=True, sorted=False)[1]
    for r in (0.8, 0.95, 1.0):
        jitted = jax.jit(lambda a, r=r: rjax.topk(a, 200, recall=r))(x)
        mapped = jax.vmap(lambda a, r=r: rjax.topk(a, 200, recall=r))(x)
        for a, b in zip(jitted, mapped):
            np.testing.assert_array_equal(as_numpy(a), as_numpy(b))
        v, i = (as_numpy(t).reshape(48, 200) for t in jitted)
        # the NumPy path's rule: the same rows, the same answer
        nv, ni = rtopk.topk(rows, 200, sorted=False, recall=r)
        np.testing.assert_array_equal(i, ni)
        np.testing.assert_array_equal(to_f32(v).view(np.uint32), to_f32(nv).view(np.uint32))
        for row in range(48):
            assert len(set(i[row].tolist())) == 200 and 0 <= i[row].min() and i[row].max() < 3000
            held = len(set(i[row].tolist()) & set(exact[row].tolist()))
            assert held >= int(np.ceil(r * 200)), (r, row, held)
        np.testing.assert_array_equal(
            to_f32(v), to_f32(np.take_along_axis(rows, i.astype(np.int64), 1))
        )
    # hostile rows: still k distinct indices in the row and the input's own bits
    h = jnp.asarray(hostile_matrix(9, 130, "hostile", 4)).astype(dtype)
    v, i = rjax.topk(h, 40, recall=0.9)
    hi = as_numpy(i)
    assert all(len(set(row.tolist())) == 40 for row in hi) and hi.min() >= 0 and hi.max() < 130
    got = to_f32(as_numpy(v)).view(np.uint32)
    want = to_f32(np.take_along_axis(as_numpy(h), hi.astype(np.int64), 1)).view(np.uint32)
    np.testing.assert_array_equal(got, want)


def test_a_bad_recall_target_is_refused_before_tracing() -> None:
    x = jnp.zeros((2, 8))
    for bad in (0.0, 1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match=r"recall .* is out of range"):
            rjax.topk(x, 3, recall=bad)
    with pytest.raises(TypeError, match="recall"):
        rjax.topk(x, 3, recall=True)  # type: ignore[arg-type]


def test_importing_rtopk_does_not_import_jax() -> None:
    import subprocess
    import sys

    code = "import sys, rtopk; assert 'jax' not in sys.modules, 'rtopk imported jax'"
    subprocess.run([sys.executable, "-c", code], check=True)
    assert "jax" not in rtopk.__all__


@pytest.mark.gpu
def test_the_cuda_handler_matches_the_cpu_one() -> None:
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        pytest.skip("JAX has no GPU here")
    rng = np.random.default_rng(7)
    for dtype in DTYPES:
        for n, m, k in ((1, 1 << 20, 100), (64, 4096, 64), (3, 100_000, 2048), (5, 77, 77)):
            host = rng.standard_normal((n, m), dtype=np.float32)
            x = jax.device_put(jnp.asarray(host).astype(dtype), gpus[0])
            v, i = jax.jit(lambda a, k=k: rjax.topk(a, k, sorted=True))(x)
            assert next(iter(v.devices())).platform == "gpu"
            check_canonical(x, k, True, v, i)


@pytest.mark.gpu
def test_the_cuda_handler_keeps_a_recall_target_as_the_cpu_one() -> None:
    """The same stopping rule on both platforms (docs/contract.md §6): the same rows, the same
    answer, bit for bit, sorted."""
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        pytest.skip("JAX has no GPU here")
    cpu = jax.devices("cpu")[0]
    rng = np.random.default_rng(8)
    for dtype in DTYPES:
        for n, m, k in ((64, 4096, 64), (3, 100_000, 2048), (256, 768, 96)):
            host = jnp.asarray(rng.standard_normal((n, m), dtype=np.float32)).astype(dtype)
            for r in (0.8, 0.95):
                on_gpu = jax.jit(lambda a, k=k, r=r: rjax.topk(a, k, sorted=True, recall=r))(
                    jax.device_put(host, gpus[0])
                )
                on_cpu = jax.jit(lambda a, k=k, r=r: rjax.topk(a, k, sorted=True, recall=r))(
                    jax.device_put(host, cpu)
                )
                assert next(iter(on_gpu[0].devices())).platform == "gpu"
                for a, b in zip(on_gpu, on_cpu):
                    np.testing.assert_array_equal(
                        to_f32(as_numpy(a)).view(np.uint32)
                        if a.dtype != jnp.int32
                        else as_numpy(a),
                        to_f32(as_numpy(b)).view(np.uint32)
                        if b.dtype != jnp.int32
                        else as_numpy(b),
                    )
