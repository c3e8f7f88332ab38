"""16-bit floats through rtopk.topk: NumPy float16, ml_dtypes.bfloat16 and torch float16 /
bfloat16 CPU tensors against docs/contract.md §1 (every element ordered by its exact value:
NaN of either sign above +inf, -0 == +0, ties to the lower index), on hostile 16-bit rows;
values are the input's own bits in its dtype; every algorithm of the registry takes them.

ml_dtypes and torch are optional: their tests skip visibly without them.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Dict, List, Tuple

import numpy as np
import numpy.typing as npt
import pytest
import rtopk
from oracle import canonical, ks_for

try:
    import ml_dtypes

    BF16: Any = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - depends on the environment
    BF16 = None

needs_ml_dtypes = pytest.mark.skipif(
    BF16 is None, reason="ml_dtypes is not installed: bfloat16 NumPy tests skipped"
)

# Bit layouts: (+inf, the mantissa mask, the largest finite value).
LAYOUT: Dict[str, Tuple[int, int, int]] = {
    "float16": (0x7C00, 0x03FF, 0x7BFF),
    "bfloat16": (0x7F80, 0x007F, 0x7F7F),
}
CPU16_NAMES = [a.name for a in rtopk.algorithms() if a.device == "cpu" and "float16" in a.dtypes]
WIDTHS = [1, 2, 31, 33, 100]
FAMILIES = ["hostile", "ties", "nan-heavy", "subnormal", "any-bits"]


def special_bits(name: str) -> npt.NDArray[np.uint16]:
    """NaNs of both signs with several payloads (quiet and signalling), ±inf, ±0, subnormals
    of both signs, ±largest finite."""
    inf, mant, big = LAYOUT[name]
    quiet = (mant + 1) >> 1
    nans = [inf | quiet, inf | 1, inf | mant, inf | (quiet | 5)]
    values = [*nans, inf, 0x0000, 0x0001, mant, big]
    return np.array(values + [v | 0x8000 for v in values], dtype=np.uint16)


def hostile16(n: int, m: int, name: str, family: str, seed: int) -> npt.NDArray[np.uint16]:
    """``(n, m)`` bit patterns of the 16-bit type ``name``, of ``family``."""
    rng = np.random.default_rng(seed)
    inf, mant, _ = LAYOUT[name]
    special = special_bits(name)
    finite = rng.integers(0, inf, (n, m)).astype(np.uint16) | (
        rng.integers(0, 2, (n, m)).astype(np.uint16) << 15
    )
    pool = rng.choice(special, 3)
    pick = rng.random((n, m))
    if family == "hostile":
        out = np.where(
            pick < 0.3,
            special[rng.integers(0, len(special), (n, m))],
            np.where(pick < 0.6, pool[rng.integers(0, 3, (n, m))], finite),
        )
    elif family == "ties":
        out = np.array([0x3C00 if name == "float16" else 0x3F80, 0x0000, 0x8000], np.uint16)[
            rng.integers(0, 3, (n, m))
        ]
    elif family == "nan-heavy":
        nan = special[np.array([0, 1, 2, 3, 9, 10, 11, 12])[rng.integers(0, 8, (n, m))]]
        out = np.where(pick < 0.6, nan, finite)
    elif family == "subnormal":
        sub = rng.integers(0, mant + 1, (n, m)).astype(np.uint16)
        out = sub | (rng.integers(0, 2, (n, m)).astype(np.uint16) << 15)
    else:
        out = rng.integers(0, 1 << 16, (n, m)).astype(np.uint16)
    return np.ascontiguousarray(out, dtype=np.uint16)


def as_dtype(bits: npt.NDArray[np.uint16], dtype: Any) -> npt.NDArray[Any]:
    """The bit patterns as an array of ``dtype`` (a view: the bits are kept)."""
    return bits.view(dtype)


def reference(
    x: npt.NDArray[Any], k: int, largest: bool, sorted_: bool
) -> Tuple[npt.NDArray[np.uint16], npt.NDArray[np.int64]]:
    """docs/contract.md §1 on each row's exact float32 values (16-bit floats convert exactly): the
    values' bit patterns and the indices."""
    wide = x.astype(np.float32)
    n = x.shape[0]
    indices = np.zeros((n, k), dtype=np.int64)
    for r in range(n):
        indices[r] = canonical(wide[r], k, largest, sorted_)
    bits = np.take_along_axis(x.view(np.uint16), indices, axis=1)
    return bits, indices


def dtypes() -> List[Any]:
    out: List[Any] = [pytest.param(np.dtype(np.float16), id="float16")]
    out.append(pytest.param(BF16, id="bfloat16", marks=needs_ml_dtypes))
    return out


def name_of(dtype: Any) -> str:
    return "float16" if dtype == np.float16 else "bfloat16"


@pytest.mark.parametrize("dtype", dtypes())
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [False, True])
def test_auto_is_canonical_on_hostile_16_bit_rows(dtype: Any, largest: bool, sorted_: bool) -> None:
    for fi, family in enumerate(FAMILIES):
        for wi, m in enumerate(WIDTHS):
            x = as_dtype(hostile16(5, m, name_of(dtype), family, 10 * fi + wi), dtype)
            for k in ks_for(m):
                want_bits, want_i = reference(x, k, largest, sorted_)
                got = rtopk.topk(x, k, largest=largest, sorted=sorted_, return_iterations=True)
                ctx = f"{family} m={m} k={k} largest={largest} sorted={sorted_}"
                assert got.values.dtype == dtype, ctx
                np.testing.assert_array_equal(got.indices, want_i, err_msg=ctx)
                np.testing.assert_array_equal(got.values.view(np.uint16), want_bits, err_msg=ctx)
                assert got.iterations.dtype == np.int32 and got.iterations.shape == (5,)


@pytest.mark.parametrize("dtype", dtypes())
@pytest.mark.parametrize("algo", CPU16_NAMES)
def test_every_cpu_algorithm_takes_16_bit_rows(dtype: Any, algo: str) -> None:
    name = name_of(dtype)
    for seed, family in enumerate(["hostile", "ties", "any-bits"]):
        x = as_dtype(hostile16(3, 45, name, family, seed), dtype)
        for k in (0, 1, 7, 44, 45):
            for largest, sorted_ in ((True, False), (False, True)):
                want_bits, want_i = reference(x, k, largest, sorted_)
                got = rtopk.topk(x, k, largest=largest, sorted=sorted_, algo=algo)
                np.testing.assert_array_equal(got.indices, want_i, err_msg=f"{algo} k={k}")
                assert np.array_equal(got.values.view(np.uint16), want_bits), f"{algo} k={k}"


@pytest.mark.parametrize("dtype", dtypes())
def test_a_row_of_every_bit_pattern_shuffled(dtype: Any) -> None:
    bits = np.random.default_rng(22).permutation(np.arange(1 << 16, dtype=np.uint16))
    x = as_dtype(bits.reshape(1, -1), dtype)
    for k, largest, sorted_ in ((3000, True, True), (40_000, False, False)):
        want_bits, want_i = reference(x, k, largest, sorted_)
        for algo in ("auto", "radix", "sort"):
            got = rtopk.topk(x, k, largest=largest, sorted=sorted_, algo=algo)
            np.testing.assert_array_equal(got.indices, want_i, err_msg=algo)
            assert np.array_equal(got.values.view(np.uint16), want_bits), algo


@pytest.mark.parametrize("dtype", dtypes())
def test_strided_ranks_dims_and_byte_orders(dtype: Any) -> None:
    name = name_of(dtype)
    x = as_dtype(hostile16(6, 40, name, "hostile", 3), dtype).reshape(2, 3, 40)
    for dim in (0, 1, 2, -1):
        got = rtopk.topk(x, 2, dim=dim, sorted=True, indices_dtype=np.int32)
        moved = np.moveaxis(x, dim, -1)
        rows = np.ascontiguousarray(moved).reshape(-1, moved.shape[-1])
        want_bits, want_i = reference(rows, 2, True, True)
        shape = (*moved.shape[:-1], 2)
        want_i = np.moveaxis(want_i.reshape(shape), -1, dim)
        want_bits = np.moveaxis(want_bits.reshape(shape), -1, dim)
        assert got.indices.dtype == np.int32 and got.values.dtype == dtype
        np.testing.assert_array_equal(got.indices, want_i)
        np.testing.assert_array_equal(got.values.view(np.uint16), want_bits)
    flat = x.reshape(6, 40)
    strided = flat[::-2, ::3]  # negative row stride, column stride 3
    got = rtopk.topk(strided, 5, sorted=False)
    want_bits, want_i = reference(np.ascontiguousarray(strided), 5, True, False)
    np.testing.assert_array_equal(got.indices, want_i)
    np.testing.assert_array_equal(got.values.view(np.uint16), want_bits)
    if dtype == np.float16:  # numpy has a big-endian float16; bfloat16 has none
        big = flat.astype(">f2")
        got = rtopk.topk(big, 4)
        np.testing.assert_array_equal(got.indices, reference(flat, 4, True, False)[1])


@pytest.mark.parametrize("dtype", dtypes())
def test_every_algorithm_takes_16_bit_input(dtype: Any) -> None:
    x = as_dtype(hostile16(3, 77, name_of(dtype), "hostile", 5), dtype)
    assert all(a.dtypes[:3] == ("float32", "float16", "bfloat16") for a in rtopk.algorithms())
    # the simulated kernel on 16-bit rows: bisect's values, indices and iteration counts
    sim = rtopk.topk(x, 9, algo="sim", return_iterations=True)
    ref = rtopk.topk(x, 9, algo="bisect", return_iterations=True)
    np.testing.assert_array_equal(sim.indices, ref.indices)
    np.testing.assert_array_equal(sim.values.view(np.uint16), ref.values.view(np.uint16))
    np.testing.assert_array_equal(sim.iterations, ref.iterations)
    # rtopk.sim.run and rtopk.trace (the simulator's own Python views) take float32 rows
    with pytest.raises(TypeError, match="warp simulator takes float32 rows only"):
        rtopk.sim.run(x, 2)
    with pytest.raises(TypeError, match="warp simulator takes float32 rows only"):
        rtopk.trace(x[0], 2)
    with pytest.raises(ValueError, match="larger than the row width"):
        rtopk.topk(x, 78)


def test_bfloat16_is_recognised_without_importing_ml_dtypes() -> None:
    code = (
        "import sys, numpy as np, rtopk\n"
        "x = np.array([[1.0, -0.0, 0.0, 2.0]], dtype=np.float16)\n"
        "out = rtopk.topk(x, 2, largest=False)\n"
        "assert out.values.dtype == np.float16 and out.indices.tolist() == [[1, 2]]\n"
        "assert out.values.view(np.uint16).tolist() == [[0x8000, 0]]\n"
        "assert 'ml_dtypes' not in sys.modules, 'rtopk imported ml_dtypes'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


torch_param = pytest.mark.parametrize("tdtype", ["float16", "bfloat16"])


def tie_free16(torch: Any, tdtype: Any, *shape: int, seed: int = 0) -> Any:
    """Distinct values exact in both 16-bit types (small integers, permuted): top-k is unique,
    so torch.topk's indices must equal ours."""
    n = int(np.prod(shape))
    assert n <= 256  # integers up to 256 are exact in bfloat16
    g = torch.Generator().manual_seed(seed)
    return (torch.randperm(n, generator=g).float() - n / 2).reshape(shape).to(tdtype)


@torch_param
def test_torch_cpu_tensors_in_their_own_dtype(tdtype: str) -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed: torch tests skipped")
    dt = getattr(torch, tdtype)
    bits = hostile16(4, 70, tdtype, "hostile", 7)
    x = torch.from_numpy(bits.view(np.int16)).view(dt)
    wide = x.float().numpy()  # exact
    for dim, k, largest, sorted_ in (
        (1, 9, True, False),
        (0, 3, False, True),
        (-1, 70, False, True),
    ):
        got = rtopk.topk(x, k, dim, largest, sorted_, return_iterations=True)
        assert got.values.dtype == dt and got.indices.dtype == torch.int64
        rows = np.moveaxis(wide, dim, -1)
        want_i = np.stack([canonical(r, k, largest, sorted_) for r in rows])
        want_i = np.moveaxis(want_i, -1, dim)
        np.testing.assert_array_equal(got.indices.numpy(), want_i)
        want_bits = np.take_along_axis(bits.view(np.int16), want_i, axis=dim)
        np.testing.assert_array_equal(got.values.view(torch.int16).numpy(), want_bits)
    t = tie_free16(torch, dt, 6, 40)
    for largest in (True, False):
        v, i = rtopk.topk(t, 5, largest=largest, sorted=True, algo="radix")
        tv, ti = torch.topk(t, 5, largest=largest, sorted=True)
        assert torch.equal(i, ti) and torch.equal(v, tv) and v.dtype == dt


@torch_param
def test_autograd_gradients_are_in_the_inputs_dtype(tdtype: str) -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed: torch tests skipped")
    dt = getattr(torch, tdtype)
    x = tie_free16(torch, dt, 5, 40, seed=4)
    a = x.clone().requires_grad_()
    b = x.clone().requires_grad_()
    va, ia = rtopk.topk(a, 6, dim=1, sorted=True)
    vb, ib = torch.topk(b, 6, dim=1, sorted=True)
    assert torch.equal(ia, ib) and torch.equal(va, vb) and va.dtype == dt
    w = torch.randn(va.shape).to(dt)
    (va * w).sum().backward()
    (vb * w).sum().backward()
    assert a.grad is not None and a.grad.dtype == dt
    assert torch.equal(a.grad, b.grad)
    from rtopk.ops import op_options

    op = torch.ops.rtopk.topk.default
    args = (
        x.clone().requires_grad_(),
        4,
        -1,
        op_options(largest=False, iterations=True),
        None,
        None,
        None,
    )
    result = torch.library.opcheck(op, args)
    assert all(v == "SUCCESS" for v in result.values()), result


@torch_param
def test_cuda_16_bit_tensors_trace_in_their_own_dtype(tdtype: str) -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed: torch tests skipped")
    from torch._subclasses.fake_tensor import FakeTensorMode

    # A fake CUDA tensor takes the op's fake implementation (no GPU needed): the values keep
    # the input's 16-bit dtype, never upcast; a bad request is refused while tracing.
    with FakeTensorMode():
        x = torch.empty(4, 10, device="cuda", dtype=getattr(torch, tdtype))
        v, i = rtopk.topk(x, 3)
        assert v.shape == (4, 3) and v.dtype == x.dtype and i.dtype == torch.int64
        with pytest.raises(ValueError, match="larger than the row width"):
            rtopk.topk(x, 11)
