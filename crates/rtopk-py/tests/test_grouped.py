"""rtopk.grouped_topk (docs/contract.md §8, a mixture-of-experts router) against a NumPy
reference written here from the contract, not from the package: a row's M scores in G groups
of M / G consecutive experts; each group scored by its largest value ("max") or the float32
sum of its two largest ("sum2"); the best ``topk_groups`` groups kept; the k best experts among
them, sorted — NaN (either sign, any payload) above +inf, -0 == +0, subnormals as they are,
ties of experts and of groups to the lower index — and their values the input's own bits.

Rows laced with NaNs, infinities, signed zeros, subnormals and ties, in float32, float16 and
bfloat16 (ml_dtypes, skipped visibly without it), through the CPU reference, the simulated
kernel, torch CPU tensors (skipped visibly without torch) and torch CUDA tensors (skipped
visibly without a CUDA device): DeepSeek-V3's shape for every N from 1 to 300, CUDA graphs.

Run the GPU part on the GPU machine:
    python -m pytest crates/rtopk-py/tests/test_grouped.py -v -rs
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Tuple

import numpy as np
import numpy.typing as npt
import pytest
import rtopk
from rtopk import _native

try:
    import ml_dtypes

    BF16: Any = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - depends on the environment
    BF16 = None

try:
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

needs_ml_dtypes = pytest.mark.skipif(
    BF16 is None, reason="ml_dtypes is not installed: bfloat16 NumPy tests skipped"
)
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is not installed: tensor tests skipped"
)
needs_cuda = pytest.mark.skipif(
    torch is None or not torch.cuda.is_available(),
    reason="torch with a CUDA device is needed: GPU tests skipped",
)

Bits = npt.NDArray[Any]  # uint32 (float32) or uint16 (float16, bfloat16) bit patterns

# Per type: the bits' dtype, the sign bit, +inf, the mantissa mask, the largest finite value.
LAYOUT: Dict[str, Tuple[Any, int, int, int, int]] = {
    "float32": (np.uint32, 0x80000000, 0x7F800000, 0x007FFFFF, 0x7F7FFFFF),
    "float16": (np.uint16, 0x8000, 0x7C00, 0x03FF, 0x7BFF),
    "bfloat16": (np.uint16, 0x8000, 0x7F80, 0x007F, 0x7F7F),
}
DTYPES = ["float32", "float16", pytest.param("bfloat16", marks=needs_ml_dtypes)]
FAMILIES = ["normal", "specials", "ties", "subnormal", "any-bits", "group-ties", "inf-pairs"]

# (M, groups): widths that are not multiples of 32 among them, 1 to 32 groups.
SHAPES = [
    (1, 1),
    (2, 1),
    (2, 2),
    (6, 3),
    (12, 4),
    (30, 5),
    (30, 15),
    (48, 16),
    (60, 12),
    (64, 32),
    (96, 32),
    (100, 10),
    (100, 25),
    (256, 8),
    (270, 27),
    (330, 30),
    (992, 31),
    (1000, 20),
    (1023, 31),
    (1024, 1),
    (1024, 32),
]


# ---------------------------------------------------------------------------------------
# The reference (NumPy only)


def to_f32(bits: Bits, name: str) -> npt.NDArray[np.float32]:
    """The exact float32 values of ``bits`` of type ``name``."""
    if name == "float32":
        return bits.view(np.float32)
    if name == "float16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def order_key(v: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    """An integer that orders float32 values as docs/contract.md §1 (largest mode): every NaN
    equal and above +inf, -0 equal to +0."""
    b = v.view(np.int32).astype(np.int64)
    key = np.where(b >= 0, b, -(b & 0x7FFFFFFF))
    return np.where(np.isnan(v), 1 << 32, key)


def descending(key: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
    """The positions along the last axis by key descending, ties to the lower position."""
    return np.argsort(-key, axis=-1, kind="stable")


def reference(
    bits: Bits, name: str, k: int, groups: int, top_groups: int, score: str
) -> Tuple[Bits, npt.NDArray[np.int64]]:
    """The grouped selection of the ``(N, M)`` rows ``bits``: values' bits and indices."""
    v = to_f32(bits, name)
    n, m = v.shape
    size = m // groups
    key = order_key(v)
    by_group = descending(key.reshape(n, groups, size))
    in_groups = v.reshape(n, groups, size)
    first = np.take_along_axis(in_groups, by_group[..., :1], -1)[..., 0]
    if score == "max":
        group_value = first
    else:
        second = np.take_along_axis(in_groups, by_group[..., 1:2], -1)[..., 0]
        with np.errstate(all="ignore"):  # inf + -inf is NaN, large + large is inf: on purpose
            group_value = (first + second).astype(np.float32)
    kept_groups = descending(order_key(group_value))[:, :top_groups]
    kept = np.zeros((n, groups), dtype=bool)
    np.put_along_axis(kept, kept_groups, True, -1)
    candidates = np.where(np.repeat(kept, size, axis=1), key, -(1 << 40))
    idx = descending(candidates)[:, :k]
    return np.take_along_axis(bits, idx, -1), idx.astype(np.int64)


# ---------------------------------------------------------------------------------------
# Inputs


def specials(name: str) -> List[int]:
    """NaNs of both signs with several payloads, ±inf, ±0, subnormals, ±largest finite."""
    _, sign, inf, mant, big = LAYOUT[name]
    quiet = (mant + 1) >> 1
    values = [inf | quiet, inf | 1, inf | mant, inf | (quiet | 5), inf, 0, 1, mant, big]
    return values + [v | sign for v in values]


def from_f32(v: npt.NDArray[np.float32], name: str) -> Bits:
    """Bits of type ``name`` near the float32 values ``v`` (bfloat16: truncated)."""
    if name == "float32":
        return v.astype(np.float32).view(np.uint32)
    if name == "float16":
        with np.errstate(all="ignore"):
            return v.astype(np.float16).view(np.uint16)
    return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def rows(n: int, m: int, groups: int, name: str, family: str, seed: int) -> Bits:
    """``(n, m)`` bits of type ``name`` of ``family``."""
    rng = np.random.default_rng(seed)
    bits_dtype, sign, inf, mant, _ = LAYOUT[name]
    special = np.array(specials(name), dtype=bits_dtype)
    normal = rng.standard_normal((n, m)).astype(np.float32)
    if family == "normal":
        out = from_f32(normal, name)
        lace = 0.02
    elif family == "specials":
        out = from_f32(normal, name)
        lace = 0.3
    elif family == "ties":
        pool = np.array([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0], dtype=np.float32)
        out = from_f32(rng.choice(pool, (n, m)), name)
        lace = 0.05
    elif family == "subnormal":
        out = rng.integers(0, mant + 1, (n, m)).astype(bits_dtype)
        out |= (rng.integers(0, 2, (n, m)) * sign).astype(bits_dtype)
        lace = 0.05
    elif family == "any-bits":
        out = rng.integers(0, int(np.iinfo(bits_dtype).max) + 1, (n, m), dtype=np.uint64)
        out = out.astype(bits_dtype)
        lace = 0.0
    elif family == "group-ties":  # every group a shuffle of one pattern: every score ties
        size = m // groups
        pattern = from_f32(rng.choice(np.float32([-1.0, 0.0, 2.0, 2.0]), size), name)
        out = np.stack(
            [np.concatenate([rng.permutation(pattern) for _ in range(groups)]) for _ in range(n)]
        )
        lace = 0.0
    else:  # "inf-pairs": groups led by +inf and -inf (sum2: NaN), -inf groups, finite groups
        size = m // groups
        out = np.full((n, m), inf | sign, dtype=bits_dtype)
        which = rng.integers(0, 3, (n, groups))
        for r in range(n):
            for q in range(groups):
                if which[r, q] == 1:
                    out[r, q * size] = inf
                elif which[r, q] == 2:
                    out[r, q * size : (q + 1) * size] = from_f32(normal[r, :size], name)
        lace = 0.02
    if lace:
        mask = rng.random((n, m)) < lace
        out = np.where(mask, rng.choice(special, (n, m)), out).astype(bits_dtype)
    return np.ascontiguousarray(out)


def as_array(bits: Bits, name: str) -> npt.NDArray[Any]:
    """The NumPy array of type ``name`` whose bits are ``bits``."""
    if name == "float32":
        return bits.view(np.float32)
    if name == "float16":
        return bits.view(np.float16)
    return bits.view(BF16)


def bits_of(a: npt.NDArray[Any]) -> Bits:
    """The bit patterns of a float32 or 16-bit array."""
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)


def selections(m: int, groups: int, score: str) -> Iterator[Tuple[int, int]]:
    """(top_groups, k) pairs for rows of ``m`` in ``groups`` groups: one group to all of
    them, k from 1 to every kept expert."""
    size = m // groups
    if score == "sum2" and size < 2:
        return
    for top in sorted({1, (groups + 1) // 2, groups}):
        kept = top * size
        for k in sorted({1, max(1, kept // 3), kept}):
            yield top, k


def check(got: Any, want: Tuple[Bits, npt.NDArray[np.int64]], case: str) -> None:
    values, indices = got
    assert indices.dtype == np.int64, case
    np.testing.assert_array_equal(indices, want[1], err_msg=case)
    np.testing.assert_array_equal(bits_of(values), want[0], err_msg=case)


# ---------------------------------------------------------------------------------------
# The reference itself, on rows worked by hand


def test_the_reference_on_rows_worked_by_hand() -> None:
    # 4 groups of 2, sum2 scores 9, 10, 7, 8: keep groups 1 and 0; 8.0 is left out
    x = np.float32([[9.0, 0.0, 5.0, 5.0, 6.0, 1.0, 8.0, 0.0]])
    _, i = reference(bits_of(x), "float32", 2, 4, 2, "sum2")
    np.testing.assert_array_equal(i, [[0, 2]])
    # NaN tops its group and the row; groups 1 and 2 tie at 2.0 (lower group kept)
    x = np.float32([[1.0, 1.0, np.nan, -1.0, 2.0, 0.0, 0.0, 2.0]])
    _, i = reference(bits_of(x), "float32", 3, 4, 2, "sum2")
    np.testing.assert_array_equal(i, [[2, 0, 1]])
    # +inf and -inf sum to NaN, which outranks a finite sum; "max" keeps +inf's group too
    x = np.float32([[np.inf, -np.inf, 3.0, 3.0]])
    _, i = reference(bits_of(x), "float32", 1, 2, 1, "sum2")
    np.testing.assert_array_equal(i, [[0]])
    # -0 == +0: the lower index first
    x = np.float32([[0.0, -0.0, 0.0, -0.0]])
    v, i = reference(bits_of(x), "float32", 4, 2, 2, "max")
    np.testing.assert_array_equal(i, [[0, 1, 2, 3]])
    np.testing.assert_array_equal(v, bits_of(x))


# ---------------------------------------------------------------------------------------
# NumPy arrays


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("algo", ["reference", "sim"])
@pytest.mark.parametrize("score", ["sum2", "max"])
def test_numpy_matches_the_reference(name: str, algo: str, score: str) -> None:
    case_no = 0
    for m, groups in SHAPES:
        for top, k in selections(m, groups, score):
            family = FAMILIES[case_no % len(FAMILIES)]
            bits = rows(5, m, groups, name, family, seed=case_no)
            case_no += 1
            case = f"{name} {algo} {score} m={m} groups={groups} top={top} k={k} {family}"
            got = rtopk.grouped_topk(
                as_array(bits, name), k, groups, top, group_score=score, algo=algo
            )
            assert got.values.dtype == as_array(bits, name).dtype, case
            assert got.values.shape == (5, k), case
            check(got, reference(bits, name, k, groups, top, score), case)


@pytest.mark.parametrize("name", DTYPES)
def test_every_family_on_deepseek_v3s_shape(name: str) -> None:
    for seed, family in enumerate(FAMILIES):
        bits = rows(40, 256, 8, name, family, seed=100 + seed)
        want = reference(bits, name, 8, 8, 4, "sum2")
        for algo in ("auto", "reference", "sim"):
            got = rtopk.grouped_topk(as_array(bits, name), 8, 8, 4, algo=algo)
            check(got, want, f"{name} {family} {algo}")


def test_any_strides_one_row_no_rows_and_k_zero() -> None:
    bits = rows(9, 96, 8, "float32", "specials", seed=7)
    x = as_array(bits, "float32")
    want = reference(bits, "float32", 5, 8, 3, "sum2")
    check(rtopk.grouped_topk(np.asfortranarray(x), 5, 8, 3), want, "fortran")
    wide = np.zeros((9, 192), dtype=np.float32)
    wide[:, ::2] = x
    check(rtopk.grouped_topk(wide[:, ::2], 5, 8, 3), want, "strided")
    check(rtopk.grouped_topk(x[::-1], 5, 8, 3), tuple(a[::-1] for a in want), "reversed")
    with pytest.raises(TypeError, match="float64"):  # a list is float64: never converted
        rtopk.grouped_topk(x.tolist(), 5, 8, 3)
    v, i = rtopk.grouped_topk(x[0], 5, 8, 3)
    assert v.shape == (5,) and i.shape == (5,)
    check((v, i), (want[0][0], want[1][0]), "one row")
    v, i = rtopk.grouped_topk(x[:0], 5, 8, 3)
    assert v.shape == (0, 5) and i.shape == (0, 5) and i.dtype == np.int64
    v, i = rtopk.grouped_topk(x, 0, 8, 3)
    assert v.shape == (9, 0) and i.shape == (9, 0)
    # NumPy integers are integers, as in rtopk.topk
    check(rtopk.grouped_topk(x, np.int64(5), np.int32(8), np.uint8(3)), want, "numpy ints")


def test_float16_bits_and_nan_payloads_come_back_as_they_were() -> None:
    bits = np.array([[0x7E01, 0xFC00, 0x8000, 0x0000, 0xFE05, 0x0001]], dtype=np.uint16)
    # groups (NaN, -inf), (-0, +0), (NaN, smallest subnormal): every group kept; the NaNs
    # first, then the subnormal, -0 and +0 (equal: by index), -inf last
    v, i = rtopk.grouped_topk(bits.view(np.float16), 6, 3, 3, group_score="max")
    np.testing.assert_array_equal(i, [[0, 4, 5, 2, 3, 1]])
    want = [[0x7E01, 0xFE05, 0x0001, 0x8000, 0x0000, 0xFC00]]
    np.testing.assert_array_equal(bits_of(v), want)
    # the two NaN groups are kept, the zeros' group is not
    v, i = rtopk.grouped_topk(bits.view(np.float16), 4, 3, 2, group_score="max")
    np.testing.assert_array_equal(i, [[0, 4, 5, 1]])


# ---------------------------------------------------------------------------------------
# Refusals


def f32_rows(n: int, m: int) -> npt.NDArray[np.float32]:
    return np.random.default_rng(0).standard_normal((n, m)).astype(np.float32)


@pytest.mark.parametrize(
    ("m", "k", "groups", "top", "score", "words"),
    [
        (10, 2, 3, 1, "max", "divide"),  # groups not dividing M
        (64, 2, 0, 1, "max", "groups"),
        (66, 2, 33, 1, "max", "groups"),  # more than 32 groups
        (64, 2, 8, 0, "sum2", "kept"),
        (64, 2, 8, 9, "sum2", "kept"),
        (64, 17, 8, 2, "sum2", "k = 17"),  # 2 kept groups of 8: 16 experts
        (1056, 2, 32, 4, "sum2", "1056"),  # M > 1024
        (8, 2, 8, 2, "sum2", "sum2"),  # sum2 on groups of one
        (0, 0, 1, 1, "max", "M = 0"),
        (64, 2, 8, 2, "mean", "group_score"),
    ],
)
def test_selections_that_do_not_fit_the_rows_are_value_errors(
    m: int, k: int, groups: int, top: int, score: str, words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        rtopk.grouped_topk(f32_rows(3, m), k, groups, top, group_score=score)


def test_groups_of_one_are_fine_for_max() -> None:
    x = f32_rows(4, 8)
    check(
        rtopk.grouped_topk(x, 3, 8, 5, group_score="max"),
        reference(bits_of(x), "float32", 3, 8, 5, "max"),
        "groups of one",
    )


def test_wrong_types_are_type_errors_and_bad_values_value_errors() -> None:
    x = f32_rows(3, 64)
    for dtype in (np.int32, np.float64, np.int8, np.bool_, np.complex64):
        with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
            rtopk.grouped_topk(x.astype(dtype), 2, 8, 2)
    for args in ((True, 8, 2), (2, True, 2), (2, 8, False), (np.bool_(True), 8, 2)):
        with pytest.raises(TypeError, match="bool"):
            rtopk.grouped_topk(x, *args)
    with pytest.raises(TypeError, match="float"):
        rtopk.grouped_topk(x, 2.0, 8, 2)
    with pytest.raises(ValueError, match=">= 0"):
        rtopk.grouped_topk(x, -1, 8, 2)
    with pytest.raises(TypeError, match="group_score"):
        rtopk.grouped_topk(x, 2, 8, 2, group_score=2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bisect"):
        rtopk.grouped_topk(x, 2, 8, 2, algo="bisect")
    for bad in (x[None], np.float32(1.0)):
        with pytest.raises(ValueError, match="2-D"):
            rtopk.grouped_topk(bad, 1, 1, 1)


def test_the_native_entries_check_their_arguments() -> None:
    x = f32_rows(3, 64)
    with pytest.raises(TypeError, match="bool"):
        _native.grouped_select(x, "float32", True, 8, 2, "sum2", "auto")
    with pytest.raises(TypeError, match="uint16"):
        _native.grouped_select(x, "float16", 2, 8, 2, "sum2", "auto")
    with pytest.raises(TypeError, match="float32 array"):
        _native.grouped_select(x.astype(np.float64), "float32", 2, 8, 2, "sum2", "auto")
    with pytest.raises(TypeError, match="int32"):
        _native.grouped_select(x.astype(np.int32), "int32", 2, 8, 2, "sum2", "auto")
    with pytest.raises(ValueError, match="2-D"):
        _native.grouped_select(x[0], "float32", 2, 8, 2, "sum2", "auto")
    # the launch checks everything before it opens a device (no GPU needed to be refused);
    # no rows is a check only, and launches nothing
    launch = _native.grouped_launch
    assert launch("bfloat16", 0, 256, 8, 8, 4, "sum2", 64, (0, 0, 0), 0, 0) is None
    with pytest.raises(ValueError, match="divide"):
        launch("float32", 4, 250, 8, 8, 4, "sum2", 64, (1, 2, 3), 0, 0)
    with pytest.raises(ValueError, match="index_bits"):
        launch("float32", 4, 256, 8, 8, 4, "sum2", 16, (1, 2, 3), 0, 0)
    with pytest.raises(TypeError, match="int32"):
        launch("int32", 4, 256, 8, 8, 4, "sum2", 64, (1, 2, 3), 0, 0)
    with pytest.raises(TypeError, match="bool"):
        launch("float32", 4, 256, 8, 8, 4, "sum2", 64, (1, 2, 3), True, 0)
    with pytest.raises(ValueError, match=">= 0"):
        launch("float32", -1, 256, 8, 8, 4, "sum2", 64, (1, 2, 3), 0, 0)


# ---------------------------------------------------------------------------------------
# torch CPU tensors


def tensor_of(bits: Bits, name: str, device: str = "cpu") -> Any:
    """The torch tensor of type ``name`` whose bits are ``bits``."""
    dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
    signed = bits.view(np.int32 if bits.dtype == np.uint32 else np.int16)
    return torch.from_numpy(signed.copy()).view(dtype[name]).to(device)


def tensor_bits(t: Any) -> Bits:
    """The bit patterns of a float32 or 16-bit tensor (on any device)."""
    t = t.cpu()
    if t.dtype == torch.float32:
        return t.view(torch.int32).numpy().view(np.uint32)
    return t.view(torch.int16).numpy().view(np.uint16)


def check_tensors(got: Any, want: Tuple[Bits, npt.NDArray[np.int64]], like: Any, case: str) -> None:
    values, indices = got
    assert isinstance(values, torch.Tensor) and isinstance(indices, torch.Tensor), case
    assert values.dtype == like.dtype and values.device == like.device, case
    assert indices.dtype == torch.int64 and indices.device == like.device, case
    np.testing.assert_array_equal(indices.cpu().numpy(), want[1], err_msg=case)
    np.testing.assert_array_equal(tensor_bits(values), want[0], err_msg=case)


@needs_torch
@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("algo", ["auto", "sim"])
def test_cpu_tensors_match_the_reference(name: str, algo: str) -> None:
    for seed, (m, groups) in enumerate(SHAPES):
        for score in ("sum2", "max"):
            for top, k in selections(m, groups, score):
                family = FAMILIES[seed % len(FAMILIES)]
                bits = rows(3, m, groups, name, family, seed=1000 + seed)
                t = tensor_of(bits, name)
                case = f"{name} {algo} {score} m={m} groups={groups} top={top} k={k} {family}"
                got = rtopk.grouped_topk(t, k, groups, top, group_score=score, algo=algo)
                check_tensors(got, reference(bits, name, k, groups, top, score), t, case)


@needs_torch
def test_cpu_tensors_any_layout_grad_and_refusals() -> None:
    bits = rows(6, 256, 8, "float32", "specials", seed=3)
    want = reference(bits, "float32", 8, 8, 4, "sum2")
    t = tensor_of(bits, "float32")
    check_tensors(rtopk.grouped_topk(t.t().contiguous().t(), 8, 8, 4), want, t, "transposed")
    leaf = t.clone().requires_grad_(True)
    v, i = rtopk.grouped_topk(leaf, 8, 8, 4)
    assert not v.requires_grad  # not differentiable: gather the weights with the indices
    v, i = rtopk.grouped_topk(t[0], 8, 8, 4)
    assert v.shape == (8,) and i.shape == (8,)
    with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
        rtopk.grouped_topk(t.double(), 8, 8, 4)
    with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
        rtopk.grouped_topk(t.int(), 8, 8, 4)
    with pytest.raises(TypeError, match="bool"):
        rtopk.grouped_topk(t, True, 8, 4)
    with pytest.raises(ValueError, match="divide"):
        rtopk.grouped_topk(t, 8, 7, 4)


# ---------------------------------------------------------------------------------------
# torch CUDA tensors

TORCH_DTYPES = ["float32", "float16", "bfloat16"]


@needs_cuda
@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_cuda_deepseek_v3_every_n_from_1_to_300(name: str) -> None:
    for family_no, family in enumerate(("normal", "specials", "ties", "group-ties")):
        bits = rows(300, 256, 8, name, family, seed=200 + family_no)
        want = reference(bits, name, 8, 8, 4, "sum2")
        x = tensor_of(bits, name, "cuda")
        for n in range(1, 301):
            got = rtopk.grouped_topk(x[:n], 8, 8, 4)
            check_tensors(got, (want[0][:n], want[1][:n]), x, f"{name} {family} n={n}")


@needs_cuda
@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_cuda_every_shape_matches_the_reference(name: str) -> None:
    for seed, (m, groups) in enumerate(SHAPES):
        for score in ("sum2", "max"):
            for top, k in selections(m, groups, score):
                family = FAMILIES[(seed + k) % len(FAMILIES)]
                bits = rows(37, m, groups, name, family, seed=2000 + seed)
                x = tensor_of(bits, name, "cuda")
                case = f"{name} {score} m={m} groups={groups} top={top} k={k} {family}"
                want = reference(bits, name, k, groups, top, score)
                check_tensors(
                    rtopk.grouped_topk(x, k, groups, top, group_score=score), want, x, case
                )


@needs_cuda
@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_host_arrays_with_algo_cuda(name: str) -> None:
    if name == "bfloat16" and BF16 is None:
        pytest.skip("ml_dtypes is not installed: bfloat16 NumPy arrays skipped")
    bits = rows(64, 256, 8, name, "specials", seed=5)
    want = reference(bits, name, 8, 8, 4, "sum2")
    check(rtopk.grouped_topk(as_array(bits, name), 8, 8, 4, algo="cuda"), want, name)


@needs_cuda
def test_cuda_layouts_streams_and_refusals() -> None:
    bits = rows(50, 256, 8, "bfloat16", "specials", seed=9)
    want = reference(bits, "bfloat16", 8, 8, 4, "sum2")
    x = tensor_of(bits, "bfloat16", "cuda")
    check_tensors(rtopk.grouped_topk(x.t().contiguous().t(), 8, 8, 4), want, x, "transposed")
    v, i = rtopk.grouped_topk(x[3], 8, 8, 4)
    assert v.shape == (8,) and torch.equal(i.cpu(), torch.from_numpy(want[1][3]))
    v, i = rtopk.grouped_topk(x[:0], 8, 8, 4)
    assert v.shape == (0, 8) and i.shape == (0, 8)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = rtopk.grouped_topk(x, 8, 8, 4, algo="cuda")
    side.synchronize()
    check_tensors(got, want, x, "a side stream")
    with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
        rtopk.grouped_topk(x.int(), 8, 8, 4)
    with pytest.raises(ValueError, match="algo 'sim'"):
        rtopk.grouped_topk(x, 8, 8, 4, algo="sim")
    with pytest.raises(ValueError, match="k = 300"):
        rtopk.grouped_topk(x, 300, 8, 4)  # refused before the outputs are allocated
    with pytest.raises(ValueError, match="k = 200"):
        rtopk.grouped_topk(x, 200, 8, 4)  # refused by the launch's check
    with pytest.raises(ValueError, match="divide"):
        rtopk.grouped_topk(x, 8, 7, 4)


@needs_cuda
@pytest.mark.parametrize("name", ["float32", "bfloat16"])
def test_cuda_graph_capture_and_replay(name: str) -> None:
    dtype = torch.float32 if name == "float32" else torch.bfloat16
    static_x = torch.empty(300, 256, device="cuda", dtype=dtype)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # warm-up: build the kernel, fill the allocator's pool
            static_x.normal_()
            rtopk.grouped_topk(static_x, 8, 8, 4)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = rtopk.grouped_topk(static_x, 8, 8, 4)
    for seed, family in enumerate(("normal", "specials", "group-ties")):
        bits = rows(300, 256, 8, name, family, seed=300 + seed)
        static_x.copy_(tensor_of(bits, name, "cuda"))
        graph.replay()
        torch.cuda.synchronize()
        eager = rtopk.grouped_topk(static_x, 8, 8, 4)
        want = reference(bits, name, 8, 8, 4, "sum2")
        check_tensors(out, want, static_x, f"replay {family}")
        check_tensors(eager, want, static_x, f"eager {family}")
