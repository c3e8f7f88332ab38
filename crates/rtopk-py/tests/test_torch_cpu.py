"""rtopk on torch CPU tensors: the same answers as NumPy, zero-copy, the custom op under
torch.compile and opcheck, autograd equal to torch.topk's. Skipped (visibly) without torch."""

from __future__ import annotations

from typing import Any, List

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (CI): torch tests skipped")

import rtopk  # noqa: E402
import rtopk.ops  # noqa: E402
from oracle import canonical_along, hostile_matrix, same_bits  # noqa: E402
from rows64 import hints_64, ragged_64, wide_matrix  # noqa: E402
from rtopk.ops import op_options  # noqa: E402


def tie_free(*shape: int, seed: int = 0) -> Any:
    """Distinct values (a permutation, scaled): top-k is unique whatever the order, so
    torch.topk's indices must equal ours."""
    n = int(np.prod(shape))
    g = torch.Generator().manual_seed(seed)
    return (torch.randperm(n, generator=g).float() / n - 0.5).reshape(shape)


def test_tensors_in_tensors_out_with_the_canonical_answer() -> None:
    x = torch.from_numpy(hostile_matrix(12, 70, "hostile", 1))
    for dim in (0, 1, -1):
        for largest, sorted_ in ((True, False), (False, True)):
            got = rtopk.topk(x, 9, dim, largest, sorted_, return_iterations=True)
            want_v, want_i = canonical_along(x.numpy(), 9, dim, largest, sorted_)
            assert isinstance(got.values, torch.Tensor) and got.values.dtype == torch.float32
            assert got.indices.dtype == torch.int64 and got.iterations.dtype == torch.int32
            assert got.values.is_contiguous() and got.indices.is_contiguous()
            np.testing.assert_array_equal(got.indices.numpy(), want_i)
            assert same_bits(got.values.numpy(), want_v)
    assert rtopk.topk(x, 3, indices_dtype=torch.int32).indices.dtype == torch.int32


def test_the_input_is_read_in_place_and_the_outputs_are_fresh(monkeypatch: Any) -> None:
    seen: List[Any] = []
    select = rtopk._native.select

    def spy(rows: Any, *args: Any) -> Any:
        seen.append(rows)
        return select(rows, *args)

    monkeypatch.setattr(rtopk._native, "select", spy)
    x = tie_free(64, 300)
    out = rtopk.topk(x, 8, return_iterations=True)
    rows = seen[-1]
    assert rows.__array_interface__["data"][0] == x.data_ptr()  # no copy on the way in
    xt = x.t()  # strided rows: still no copy (Rust reads the strided rows)
    rtopk.topk(xt, 8)
    assert seen[-1].__array_interface__["data"][0] == x.data_ptr()
    for t in out:
        lo, hi = t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()
        assert hi <= x.data_ptr() or lo >= x.data_ptr() + x.numel() * 4
    assert out.values.data_ptr() != out.indices.data_ptr()


def test_eager_calls_skip_the_op_unless_autograd_needs_it(monkeypatch: Any) -> None:
    calls: List[str] = []
    real = rtopk.ops.topk_op

    def counting(*args: Any) -> Any:
        calls.append("op")
        return real(*args)

    monkeypatch.setattr(rtopk.ops, "topk_op", counting)
    x = tie_free(4, 50)
    rtopk.topk(x, 3)
    assert calls == []
    rtopk.topk(x.clone().requires_grad_(), 3)
    assert calls == ["op"]
    with torch.no_grad():
        rtopk.topk(x.clone().requires_grad_(), 3)
    assert calls == ["op"]


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
def test_backward_equals_torch_topks(dim: int, largest: bool, sorted_: bool) -> None:
    x = tie_free(7, 9, 40, seed=dim + 3)
    w = torch.randn(7, 9, 40)
    a = x.clone().requires_grad_()
    b = x.clone().requires_grad_()
    va, ia = rtopk.topk(a, 5, dim, largest, sorted=True)
    vb, ib = torch.topk(b, 5, dim, largest, sorted=True)
    assert torch.equal(ia, ib) and torch.equal(va, vb)
    gw = torch.randn(va.shape)
    (va * gw).sum().backward()
    (vb * gw).sum().backward()
    assert torch.equal(a.grad, b.grad)
    # index order too: the gradient lands at the same elements
    c = x.clone().requires_grad_()
    vc, ic = rtopk.topk(c, 5, dim, largest, sorted=sorted_, indices_dtype=torch.int32)
    (vc * w.narrow(dim % 3, 0, 5)).sum().backward()
    d = torch.zeros_like(x).scatter(dim, ic.long(), w.narrow(dim % 3, 0, 5))
    assert torch.equal(c.grad, d)


def test_torch_compile_fullgraph_traces_the_op() -> None:
    x = tie_free(32, 300, seed=5)

    @torch.compile(fullgraph=True)
    def f(t: Any) -> Any:
        v, i = rtopk.topk(t * 2.0, 7, sorted=True)
        return v + 1.0, i

    v, i = f(x)
    tv, ti = torch.topk(x * 2.0, 7)
    assert torch.equal(v, tv + 1.0) and torch.equal(i, ti)

    # a new shape (dynamic), another dim, iterations
    @torch.compile(fullgraph=True)
    def g(t: Any) -> Any:
        return rtopk.topk(t, 4, dim=0, return_iterations=True)

    out = g(x[:20])
    eager = rtopk.topk(x[:20], 4, dim=0, return_iterations=True)
    for a, b in zip(out, eager):
        assert torch.equal(a, b)


def test_backward_under_torch_compile() -> None:
    x = tie_free(16, 64, seed=9)

    @torch.compile(fullgraph=True)
    def loss(t: Any) -> Any:
        return (rtopk.topk(t, 6).values ** 2).sum()

    a = x.clone().requires_grad_()
    loss(a).backward()
    b = x.clone().requires_grad_()
    (torch.topk(b, 6).values ** 2).sum().backward()
    assert torch.allclose(a.grad, b.grad)


def test_opcheck() -> None:
    x = tie_free(8, 50, seed=2)
    op = torch.ops.rtopk.topk.default
    cases = [
        (x, 5, -1, op_options(sorted=False, iterations=True), None, None, None),
        (
            x.requires_grad_(),
            5,
            0,
            op_options(largest=False, algo="bisect", index_dtype="int32"),
            None,
            None,
            None,
        ),
        (x.detach(), 3, 1, op_options(algo="heap"), None, None, None),
        (
            x.detach(),
            4,
            1,
            op_options(sorted=False, algo="bisect", max_iter=3, iterations=True),
            None,
            None,
            None,
        ),
    ]
    for args in cases:
        result = torch.library.opcheck(op, args)
        assert all(v == "SUCCESS" for v in result.values()), result


def test_meta_and_fake_tensors_take_the_ops_fake_implementation() -> None:
    x = torch.empty(3, 10, 7, device="meta")
    out = rtopk.topk(x, 4, dim=1, return_iterations=True, indices_dtype=torch.int32)
    assert out.values.shape == (3, 4, 7) and out.values.device.type == "meta"
    assert out.indices.dtype == torch.int32 and out.iterations.shape == (3, 7)
    with pytest.raises(ValueError, match="larger than the row width"):
        rtopk.topk(x, 11, dim=1)


def test_errors_on_tensors() -> None:
    x = torch.zeros(2, 4)
    with pytest.raises(ValueError, match="larger than the row width"):
        rtopk.topk(x, 5)
    with pytest.raises(TypeError, match="complex64"):
        rtopk.topk(x.to(torch.complex64), 1)
    # the simulated kernel takes int64 and float64 rows (its 64-bit wide rows), ragged too
    v, i = rtopk.topk(x.long(), 1, algo="sim")
    assert v.dtype == torch.int64 and i.shape == (2, 1)
    got = rtopk.topk(x.long(), 1, algo="sim", lengths=[4, 0])
    assert got.indices.tolist() == [[0], [-1]]
    v, i = rtopk.topk(x.bfloat16(), 1, algo="sim")  # the simulated kernel takes bfloat16
    assert v.dtype == torch.bfloat16 and i.shape == (2, 1)
    v, i = rtopk.topk(x.short(), 1, algo="sim")  # and integers of at most 32 bits
    assert v.dtype == torch.int16 and i.shape == (2, 1)
    with pytest.raises(IndexError, match="out of range"):
        rtopk.topk(x, 1, dim=2)
    with pytest.raises(ValueError, match="unknown algorithm"):
        rtopk.topk(x.requires_grad_(), 1, algo="nope")


def test_tensor_arguments_and_defaults_are_torchs() -> None:
    x = tie_free(3, 40, seed=11)
    for args in ((2, True), (True,), (2.0,)):  # a bool where dim (or k) belongs, a float k
        with pytest.raises(TypeError):
            torch.topk(x, *args)
        with pytest.raises(TypeError):
            rtopk.topk(x, *args)
    got, want = rtopk.topk(x, 7), torch.topk(x, 7)  # value order by default, as torch.topk
    assert torch.equal(got.indices, want.indices) and torch.equal(got.values, want.values)


def test_the_op_options_string_round_trips_and_refuses_what_it_cannot_read() -> None:
    x = tie_free(3, 40, seed=21)
    op = torch.ops.rtopk.topk.default
    # "" is the defaults: largest, sorted, 64-bit indices, as torch.topk
    v, i, it, th = op(x, 6)
    want = torch.topk(x, 6)
    assert torch.equal(v, want.values) and torch.equal(i, want.indices)
    assert it.numel() == 0 and th.numel() == 0 and i.dtype == torch.int64
    assert op_options() == "" and op_options(sorted=False) == "sorted=False"
    text = op_options(
        largest=False,
        sorted=False,
        algo="bisect",
        max_iter=4,
        iterations=True,
        index_dtype="int32",
        threshold=True,
    )
    a = rtopk.ops._ask_of(6, text)
    assert a == rtopk._request.Ask(6, False, False, "bisect", 4, 0.0, True, "int32", True, None)
    v, i, it, th = op(x, 6, -1, text)
    eager = rtopk.topk(
        x,
        6,
        largest=False,
        sorted=False,
        algo="bisect",
        max_iter=4,
        return_iterations=True,
        return_threshold=True,
        indices_dtype=torch.int32,
    )
    assert torch.equal(v, eager.values) and torch.equal(i, eager.indices)
    assert torch.equal(it, eager.iterations) and torch.equal(th, eager.threshold)
    for bad, message in (
        ("sorted=no", r"option sorted='no' is not a valid value"),
        ("max_iter=2.5", r"option max_iter='2.5' is not a valid value"),
        ("precision=x", r"option precision='x' is not a valid value"),
        ("colour=red", r"'colour=red' is not name=value with a name among largest, sorted"),
        ("sorted", r"'sorted' is not name=value"),
    ):
        with pytest.raises(ValueError, match=message):
            op(x, 6, -1, bad)


def test_the_eager_call_the_op_and_autograd_refuse_alike() -> None:
    x = tie_free(2, 8, seed=12)
    op = torch.ops.rtopk.topk.default
    for call in (
        lambda: rtopk.topk(x, -1),
        lambda: rtopk.topk(x.clone().requires_grad_(), -1),
        lambda: op(x, -1),
    ):
        with pytest.raises(ValueError, match=r"k must be >= 0, got -1"):
            call()
    for call in (
        lambda: rtopk.topk(x, 1, algo="radix", return_iterations=True),
        lambda: op(x, 1, -1, op_options(algo="radix", iterations=True)),
    ):
        with pytest.raises(
            ValueError, match=r"--iterations \(return_iterations\) is only valid for"
        ):
            call()
    with pytest.raises(TypeError, match=r"int32 or int64, got int16"):
        op(x, 1, -1, op_options(index_dtype="int16"))
    # a name the options string cannot carry is refused as an unknown algorithm on every path
    for call in (
        lambda: rtopk.topk(x, 1, algo="x,y"),
        lambda: rtopk.topk(x.clone().requires_grad_(), 1, algo="x,y"),
        lambda: op_options(algo="x,y"),
    ):
        with pytest.raises(ValueError, match=r"unknown algorithm 'x,y'"):
            call()

    @torch.compile(fullgraph=True)
    def f(t: Any) -> Any:
        return rtopk.topk(t, 9)

    with pytest.raises(Exception, match=r"k = 9 is larger than the row width M = 8"):
        f(x)


def ragged_inputs(n: int, m: int, seed: int, hostile: bool = True) -> Any:
    """Rows (hostile, or distinct values without NaN: comparable with ``torch.equal``), a k
    per row and lengths (0 and M among them), as CPU tensors."""
    g = torch.Generator().manual_seed(seed)
    if hostile:
        x = torch.from_numpy(hostile_matrix(n, m, "hostile", seed))
    else:
        x = tie_free(n, m, seed=seed)
    k = torch.randint(0, m + 1, (n,), generator=g)
    lengths = torch.randint(0, m + 1, (n,), generator=g)
    lengths[0], lengths[1], k[2] = 0, m, 0
    return x, k, lengths


def test_per_row_inputs_on_cpu_tensors_match_numpy() -> None:
    x, k, lengths = ragged_inputs(10, 45, 3)
    for largest in (True, False):
        got = rtopk.topk(
            x, k, largest=largest, lengths=lengths, return_threshold=True, return_iterations=True
        )
        want = rtopk.topk(
            x.numpy(),
            k.numpy(),
            largest=largest,
            lengths=lengths.numpy(),
            return_threshold=True,
            return_iterations=True,
        )
        assert isinstance(got.values, torch.Tensor) and isinstance(got.threshold, torch.Tensor)
        assert got.values.shape == (10, int(k.max()))
        np.testing.assert_array_equal(got.indices.numpy(), want.indices)
        assert same_bits(got.values.numpy(), want.values)
        assert same_bits(got.threshold.numpy(), want.threshold)
        np.testing.assert_array_equal(got.iterations.numpy(), want.iterations)
        hinted = rtopk.topk(x, k, largest=largest, lengths=lengths, hint=got.threshold)
        assert torch.equal(hinted.indices, got.indices)


def test_per_row_inputs_through_the_op_and_autograd() -> None:
    x, k, lengths = ragged_inputs(6, 30, 5)
    width = int(k.max())
    a = x.clone().requires_grad_()
    out = rtopk.topk(a, k, lengths=lengths, return_threshold=True)  # autograd: the op
    eager = rtopk.topk(x, k, lengths=lengths, return_threshold=True)
    assert torch.equal(out.indices, eager.indices)
    assert torch.equal(out.threshold.isnan(), eager.threshold.isnan())
    w = torch.randn(out.values.shape)
    (out.values * w).sum().backward()
    # the gradient lands at the selected indices; padding (-1) takes none
    want = torch.zeros_like(x)
    for r in range(6):
        for c in range(width):
            i = int(out.indices[r, c])
            if i >= 0:
                want[r, i] += w[r, c]
    assert a.grad is not None and torch.equal(a.grad, want)
    op = torch.ops.rtopk.topk.default
    hint = torch.zeros(6)
    # no NaN anywhere here (values, or the thresholds of empty rows): opcheck compares
    # outputs with themselves
    xs = tie_free(6, 30, seed=5)
    k1, lengths1 = k.clamp(min=1), lengths.clamp(min=1)
    w1 = int(k1.max())
    args = (xs, w1, -1, op_options(iterations=True, threshold=True), k1, lengths1, hint)
    result = torch.library.opcheck(op, args)
    assert all(v == "SUCCESS" for v in result.values()), result
    # a width above the largest k pads further
    wide = (x, width + 2, -1, op_options(threshold=True), k, None, None)
    _v, i, _it, th = op(*wide)
    assert i.shape == (6, width + 2) and bool((i[:, width:] == -1).all()) and th.shape == (6,)


def test_per_row_inputs_under_torch_compile_need_the_width() -> None:
    x, k, lengths = ragged_inputs(8, 40, 7, hostile=False)
    width = int(k.max())

    @torch.compile(fullgraph=True)
    def f(t: Any, kk: Any, ll: Any) -> Any:
        return rtopk.topk(t, kk, lengths=ll, width=width, return_threshold=True)

    got = f(x, k, lengths)
    eager = rtopk.topk(x, k, lengths=lengths, return_threshold=True)
    assert torch.equal(got.indices, eager.indices) and torch.equal(got.values, eager.values)

    @torch.compile(fullgraph=True)
    def g(t: Any, kk: Any) -> Any:
        return rtopk.topk(t, kk)

    with pytest.raises(Exception, match=r"needs width="):
        g(x, k)


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_ragged_64_bit_tensors_on_the_simulator_are_bisect(dtype: str) -> None:
    # float64 / int64 CPU tensors with lengths=, a per-row k (a tensor), hint= of every kind
    # (beyond +-2^63 and fractional on int64 rows) and return_threshold= on the simulated
    # kernel's wide rows: the CPU bisection's indices (padding -1), value bits (padding 0),
    # iteration counts and thresholds, bit for bit
    dt = getattr(torch, dtype)
    compared = 0
    for n, m in ((13, 33), (9, 300), (4, 1100)):
        x = torch.from_numpy(wide_matrix(n, m, getattr(np, dtype), seed=n * m))
        for width in (m, max(1, m // 4)):
            lengths, ks = ragged_64(n, m, width, seed=m - width)
            for largest, sorted_ in ((True, False), (False, True)):
                kw: Any = dict(
                    largest=largest,
                    sorted=sorted_,
                    lengths=torch.from_numpy(lengths),
                    return_iterations=True,
                    return_threshold=True,
                )
                for k in (torch.from_numpy(ks), width):
                    own = rtopk.topk(x, k, algo="bisect", **kw).threshold
                    for hint in (None, torch.from_numpy(hints_64(own.numpy(), seed=n + m))):
                        args = kw if hint is None else dict(kw, hint=hint)
                        s = rtopk.topk(x, k, algo="sim", **args)
                        b = rtopk.topk(x, k, algo="bisect", **args)
                        case = f"{dtype} ({n}, {m}) k={k} {largest} {sorted_} hint={hint}"
                        assert s.values.dtype == dt, case
                        assert torch.equal(s.indices, b.indices), case
                        assert torch.equal(s.values.view(torch.int64), b.values.view(torch.int64))
                        assert torch.equal(s.iterations, b.iterations), case
                        assert torch.equal(
                            s.threshold.view(torch.int32), b.threshold.view(torch.int32)
                        )
                        compared += 1
    assert compared >= 48, compared  # 3 shapes, 2 widths, 2 orders, 2 k, with and without hints


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_fake_64_bit_cuda_tensors_take_per_row_inputs_and_thresholds(dtype: str) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    # a fake float64 / int64 CUDA tensor takes the op's fake implementation with every per-row
    # input and the threshold output (no GPU needed): values in the input's dtype
    dt = getattr(torch, dtype)
    with FakeTensorMode():
        x = torch.empty(4, 10, dtype=dt, device="cuda")
        got = rtopk.topk(
            x,
            torch.full((4,), 2, device="cuda"),
            lengths=torch.full((4,), 5, device="cuda"),
            hint=torch.zeros(4, device="cuda"),
            width=3,
            return_threshold=True,
            return_iterations=True,
        )
        assert got.values.shape == (4, 3) and got.values.dtype == dt
        assert got.indices.shape == (4, 3) and got.indices.dtype == torch.int64
        assert got.threshold.shape == (4,) and got.threshold.dtype == torch.float32
        assert got.iterations.shape == (4,)


def _bits(t: Any) -> Any:
    """A tensor's elements as integers of their width (NaN payloads and -0.0 compared too)."""
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    return t.view(ints[t.element_size()])


def test_the_plain_eager_call_on_cpu_tensors_is_the_general_path_bit_for_bit() -> None:
    # a plain call (k an int, the last axis, nothing but largest and sorted) on a contiguous
    # CPU tensor takes rtopk._eager's path; indices_dtype=torch.int64 sends the same call
    # down the general one
    rng = np.random.default_rng(31)
    dtypes = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
    dtypes += [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
    for dtype in dtypes:
        for shape in ((257,), (5, 33), (2, 3, 100), (7, 1)):
            m = shape[-1]
            base = torch.from_numpy(rng.standard_normal(shape).astype(np.float32) * 50)
            base.view(-1)[::7] = 3.0
            if dtype.is_floating_point:
                x = base.to(dtype)
                x.view(-1)[::11] = float("nan")
                x.view(-1)[::13] = float("-inf")
                x.view(-1)[::17] = -0.0
            else:
                x = base.clamp(-100, 100).to(dtype)
            for k in sorted({0, 1, m // 2, m - 1, m}):
                for largest in (True, False):
                    for srt in (True, False):
                        fast = rtopk.topk(x, k, largest=largest, sorted=srt)
                        slow = rtopk.topk(
                            x, k, largest=largest, sorted=srt, indices_dtype=torch.int64
                        )
                        assert fast.values.shape == (*shape[:-1], k) == slow.values.shape
                        assert fast.values.dtype == dtype and fast.indices.dtype == torch.int64
                        assert torch.equal(_bits(fast.values), _bits(slow.values))
                        assert torch.equal(fast.indices, slow.indices)
    # what the path leaves to the general one still answers: a transposed input, a negated
    # view (no NumPy view of it), grad
    x = tie_free(40, 6, seed=3)
    assert torch.equal(rtopk.topk(x.t(), 4).indices, torch.topk(x.t(), 4).indices)
    negated = torch._neg_view(x)
    assert negated.is_neg()
    assert torch.equal(rtopk.topk(negated, 4).values, torch.topk(-x, 4).values)
    scores = tie_free(3, 64, seed=4)
    got_g = rtopk.grouped_topk(torch._neg_view(scores), 8, 8, 4)
    want_g = rtopk.grouped_topk(-scores, 8, 8, 4)
    assert torch.equal(got_g[0], want_g[0]) and torch.equal(got_g[1], want_g[1])
    g = x.clone().requires_grad_()
    rtopk.topk(g, 2).values.sum().backward()
    assert g.grad is not None and int(g.grad.sum()) == 40 * 2
