"""rtopk on torch CUDA tensors: the kernel against the CPU oracle on hostile rows, int32/int64
indices, opcheck, autograd, CUDA graph capture and replay, streams, threads, torch.compile,
a second GPU. Skipped (visibly) without torch or without a CUDA device.

Run on the GPU machine (see crates/rtopk-py/README.md):
    python -m pytest crates/rtopk-py/tests/test_torch_cuda.py -v -rs
The three quick verifies (marked ``verify``) take minutes; ``-m "not verify"`` leaves them out
of a short call (the rest took under four minutes on an H100 after ``python -m rtopk.cuda
prepare``).
"""

from __future__ import annotations

import threading
from typing import Any, List, Tuple

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: GPU tests skipped")

import rtopk  # noqa: E402
import rtopk.ops  # noqa: E402
from oracle import FAMILIES, canonical_rows, hostile_matrix, same_bits  # noqa: E402
from rows64 import hints_64, ragged_64, wide_matrix  # noqa: E402
from rtopk.ops import op_options  # noqa: E402

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device: GPU tests skipped"
)

needs_launch = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device: GPU tests skipped"
)

# Every launch shape of the kernel (quarter/half/whole warp, wide warp, block, narrowing block,
# rows beyond registers and shared memory), widths not multiples of 32 among them.
WIDTHS = [1, 7, 31, 32, 33, 100, 256, 257, 768, 1000, 1024, 1025, 3000, 4096, 5001, 8192, 10000]
ORACLE_MAX_M = 1025  # above this width, CPU bisect (itself checked against the oracle) is faster


def ks_for(m: int) -> List[int]:
    return sorted({k for k in (1, m // 32, m // 8, m // 2, m - 1, m) if 1 <= k <= m})


def tie_free(*shape: int, seed: int = 0, device: str = "cuda") -> Any:
    n = int(np.prod(shape))
    g = torch.Generator().manual_seed(seed)
    return (torch.randperm(n, generator=g).float() / n - 0.5).reshape(shape).to(device)


def cpu_reference(
    x: Any, k: int, largest: bool, sorted_: bool, max_iter: Any = None
) -> Tuple[Any, Any, Any]:
    """The CPU answer: the oracle of docs/contract.md §1 where it is quick, and bisect's
    iteration counts."""
    ref = rtopk.topk(
        x,
        k,
        largest=largest,
        sorted=sorted_,
        algo="bisect",
        max_iter=max_iter,
        return_iterations=True,
    )
    if max_iter is None and x.shape[1] <= ORACLE_MAX_M:
        v, i = canonical_rows(x, k, largest, sorted_)
        np.testing.assert_array_equal(ref.indices, i)  # bisect is the oracle
        return v, i, ref.iterations
    return ref.values, ref.indices, ref.iterations


@needs_launch
@pytest.mark.parametrize("m", WIDTHS)
def test_kernel_matches_the_cpu_oracle_on_hostile_rows(m: int) -> None:
    n = max(8, min(64, (1 << 16) // m))
    for fi, family in enumerate(FAMILIES):
        x = hostile_matrix(n, m, family, seed=31 * m + fi)
        xc = torch.from_numpy(x).cuda()
        for k in ks_for(m):
            for largest, sorted_ in ((True, False), (False, True), (True, True)):
                got = rtopk.topk(xc, k, largest=largest, sorted=sorted_, return_iterations=True)
                v, i, it = cpu_reference(x, k, largest, sorted_)
                case = f"m={m} {family} k={k} largest={largest} sorted={sorted_}"
                assert got.values.device == xc.device and got.indices.dtype == torch.int64
                np.testing.assert_array_equal(got.indices.cpu().numpy(), i, err_msg=case)
                assert same_bits(got.values.cpu().numpy(), v), case
                np.testing.assert_array_equal(got.iterations.cpu().numpy(), it, err_msg=case)


@needs_launch
def test_early_stopping_is_bisects_exactly() -> None:
    for m in (100, 256, 768, 3000, 8192):
        x = hostile_matrix(32, m, "hostile", m)
        xc = torch.from_numpy(x).cuda()
        for max_iter in (0, 1, 2, 4, 8):
            for largest in (True, False):
                got = rtopk.topk(
                    xc,
                    m // 8,
                    largest=largest,
                    sorted=False,
                    max_iter=max_iter,
                    return_iterations=True,
                )
                v, i, it = cpu_reference(x, m // 8, largest, False, max_iter)
                case = f"m={m} max_iter={max_iter} largest={largest}"
                np.testing.assert_array_equal(got.indices.cpu().numpy(), i, err_msg=case)
                assert same_bits(got.values.cpu().numpy(), v), case
                np.testing.assert_array_equal(got.iterations.cpu().numpy(), it, err_msg=case)


@needs_launch
def test_int32_and_int64_indices() -> None:
    x = hostile_matrix(300, 700, "hostile", 3)
    xc = torch.from_numpy(x).cuda()
    want = canonical_rows(x, 40)[1]
    for dtype in (torch.int32, torch.int64):
        got = rtopk.topk(xc, 40, sorted=False, indices_dtype=dtype)
        assert got.indices.dtype == dtype
        np.testing.assert_array_equal(got.indices.cpu().numpy(), want)


@needs_launch
def test_any_dim_and_non_contiguous_inputs() -> None:
    base = torch.from_numpy(hostile_matrix(1, 6 * 300 * 5, "hostile", 4)).reshape(6, 300, 5)
    for x in (base, base.transpose(0, 2), base[:, ::2, :]):
        xc = x.cuda()
        for dim in range(-3, 3):
            k = max(1, x.shape[dim] // 3)
            got = rtopk.topk(xc, k, dim, sorted=True)
            want = rtopk.topk(x, k, dim, sorted=True)
            assert got.values.shape == want.values.shape and got.values.is_contiguous()
            assert torch.equal(got.indices.cpu(), want.indices)
            assert same_bits(got.values.cpu().numpy(), want.values.numpy())


@needs_launch
def test_a_negated_view_is_selected_from_by_its_values() -> None:
    # torch._neg_view keeps the memory and sets a bit; the kernel reads memory, so the call
    # must resolve it (the plain eager call, the general one and the ragged one)
    x = tie_free(16, 300, seed=9)
    negated = torch._neg_view(x)
    assert negated.is_neg()
    want = torch.topk(-x, 9)
    for got in (
        rtopk.topk(negated, 9),
        rtopk.topk(negated, 9, indices_dtype=torch.int32),
        rtopk.topk(negated, torch.full((16,), 9, device="cuda", dtype=torch.int32), width=9),
    ):
        assert torch.equal(got.values, want.values)
        assert torch.equal(got.indices.long(), want.indices)
    scores = tie_free(5, 256, seed=10)
    got_g = rtopk.grouped_topk(torch._neg_view(scores), 8, 8, 4)
    want_g = rtopk.grouped_topk(-scores, 8, 8, 4)
    assert torch.equal(got_g[0], want_g[0]) and torch.equal(got_g[1], want_g[1])


@needs_launch
def test_empty_inputs_and_k_zero() -> None:
    x = torch.zeros(0, 50, device="cuda")
    assert rtopk.topk(x, 3).values.shape == (0, 3)
    out = rtopk.topk(torch.randn(4, 50, device="cuda"), 0, return_iterations=True)
    assert out.indices.shape == (4, 0) and out.iterations.tolist() == [0, 0, 0, 0]


@needs_launch
def test_opcheck_on_cuda_tensors() -> None:
    x = tie_free(64, 300, seed=2)
    op = torch.ops.rtopk.topk.default
    for args in [
        (x, 5, -1, op_options(sorted=False, iterations=True), None, None, None),
        (
            x.clone().requires_grad_(),
            7,
            0,
            op_options(largest=False, algo="cuda", index_dtype="int32"),
            None,
            None,
            None,
        ),
        (
            x,
            4,
            1,
            op_options(sorted=False, algo="cuda", max_iter=3, iterations=True),
            None,
            None,
            None,
        ),
    ]:
        result = torch.library.opcheck(op, args)
        assert all(v == "SUCCESS" for v in result.values()), result


@needs_launch
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("largest", [True, False])
def test_backward_equals_torch_topks(dim: int, largest: bool) -> None:
    x = tie_free(64, 512, seed=dim + 10)
    a = x.clone().requires_grad_()
    b = x.clone().requires_grad_()
    va, ia = rtopk.topk(a, 32, dim, largest, sorted=True)
    vb, ib = torch.topk(b, 32, dim, largest, sorted=True)
    assert torch.equal(ia, ib) and torch.equal(va, vb)
    g = torch.randn_like(va)
    (va * g).sum().backward()
    (vb * g).sum().backward()
    assert torch.equal(a.grad, b.grad)


@needs_launch
def test_cuda_graph_capture_and_replay() -> None:
    static_x = torch.empty(2048, 256, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # warm-up: compile the kernel, fill the allocator's pool
            static_x.normal_()
            rtopk.topk(static_x, 32, sorted=True, return_iterations=True)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = rtopk.topk(static_x, 32, sorted=True, return_iterations=True)
    for seed in range(3):
        data = hostile_matrix(2048, 256, FAMILIES[seed], seed)
        static_x.copy_(torch.from_numpy(data))
        graph.replay()
        torch.cuda.synchronize()
        v, i, it = cpu_reference(data, 32, True, True)
        np.testing.assert_array_equal(out.indices.cpu().numpy(), i)
        assert same_bits(out.values.cpu().numpy(), v)
        np.testing.assert_array_equal(out.iterations.cpu().numpy(), it)


@needs_launch
def test_out_under_cuda_graph_capture_and_replay() -> None:
    # torch.topk's out=: the caller's buffers are filled on every replay, never reallocated
    # (their storage stays where it was captured), for a float and an integer tensor
    for dtype in (torch.float32, torch.int32):
        static_x = torch.zeros(512, 300, device="cuda", dtype=dtype)
        values = torch.empty(512, 20, device="cuda", dtype=dtype)
        indices = torch.empty(512, 20, device="cuda", dtype=torch.int64)
        where = (values.data_ptr(), indices.data_ptr())
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                rtopk.topk(static_x, 20, out=(values, indices))
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            rtopk.topk(static_x, 20, out=(values, indices))
        for seed in range(3):
            gen = torch.Generator(device="cuda").manual_seed(seed)
            draw = torch.randn(512, 300, device="cuda", generator=gen) * 1000
            static_x.copy_(draw.to(dtype))
            graph.replay()
            torch.cuda.synchronize()
            want = torch.topk(static_x, 20)
            assert torch.equal(values, want.values)
            assert torch.equal(static_x.gather(1, indices), values)
            assert (values.data_ptr(), indices.data_ptr()) == where


@needs_launch
def test_small_eager_outputs_are_separate_tensors_cut_from_slabs() -> None:
    import rtopk._eager as eager
    import rtopk.cuda

    rtopk.cuda.release_slabs()
    x = tie_free(3, 256, seed=4)
    want = torch.topk(x, 8, sorted=True)
    outs = [rtopk.topk(x, 8, sorted=bool(c % 2)) for c in range(300)]  # past several slabs
    torch.cuda.synchronize()
    assert eager._FREE, "small eager outputs are cut from slabs"
    where = set()
    for c, out in enumerate(outs):
        if c % 2:
            assert torch.equal(out.values, want.values) and torch.equal(out.indices, want.indices)
        else:
            assert torch.equal(out.values.sort(-1, descending=True).values, want.values)
        for t in out:
            assert t._base is None and t.is_contiguous() and t.shape == (3, 8)
            where.add(t.data_ptr())
    assert len(where) == 600  # no two live outputs share memory
    # separate version counters: a sibling changed in place does not spoil a saved tensor
    a, b = outs[0].values, outs[2].values
    w = torch.ones(3, 8, device="cuda", requires_grad=True)
    loss = (a * w).sum()
    b.add_(1.0)
    assert a._version == 0 and b._version == 1
    loss.backward()
    assert w.grad is not None and torch.equal(w.grad, a)
    # another stream takes another slab; large outputs take none
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        c = rtopk.topk(x, 8)
    torch.cuda.synchronize()
    assert c.values.untyped_storage().data_ptr() != a.untyped_storage().data_ptr()
    big = rtopk.topk(tie_free(64, 1024, seed=5), 16)
    assert big.indices.untyped_storage().nbytes() == 64 * 16 * 8
    rtopk.cuda.release_slabs()
    assert not eager._FREE


@needs_launch
def test_outputs_captured_in_a_graph_live_in_the_graphs_pool() -> None:
    import rtopk._eager as eager

    static_x = tie_free(2, 300, seed=6)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # the same stream's slab exists before the capture
            rtopk.topk(static_x, 10)
    torch.cuda.current_stream().wait_stream(side)
    spare = {k: len(v) for k, v in eager._FREE.items()}
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        out = rtopk.topk(static_x, 10)
    assert {k: len(v) for k, v in eager._FREE.items()} == spare
    assert out.indices.untyped_storage().nbytes() == 2 * 10 * 8  # its own, not a slab's
    for seed in range(3):
        static_x.copy_(tie_free(2, 300, seed=seed))
        graph.replay()
        torch.cuda.synchronize()
        want = torch.topk(static_x, 10)
        assert torch.equal(out.values, want.values) and torch.equal(out.indices, want.indices)


@needs_launch
def test_the_launch_is_on_the_current_stream() -> None:
    x = tie_free(4096, 512, seed=1)
    want = torch.topk(x, 16, sorted=True)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    outs = []
    for s in (s1, s2):
        with torch.cuda.stream(s):
            torch.cuda._sleep(20_000_000)  # keep this stream busy; its next work waits
            y = x * 1.0  # written on s after the sleep
            outs.append(rtopk.topk(y, 16, sorted=True))  # reads y: only right on s
    torch.cuda.synchronize()
    for o in outs:
        assert torch.equal(o.indices, want.indices) and torch.equal(o.values, want.values)


@needs_launch
def test_concurrent_calls_from_threads_and_streams() -> None:
    inputs = [tie_free(2048, 300 + 100 * t, seed=t) for t in range(4)]
    wants = [torch.topk(x, 24, sorted=True).indices for x in inputs]
    errors: List[str] = []

    def work(t: int) -> None:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            for r in range(25):
                got = rtopk.topk(inputs[t], 24, sorted=True).indices
                if r % 5 == 0:
                    stream.synchronize()
                    if not torch.equal(got, wants[t]):
                        errors.append(f"thread {t} call {r}")
        stream.synchronize()

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


@needs_launch
def test_torch_compile_fullgraph_on_cuda() -> None:
    x = tie_free(1024, 768, seed=6)

    @torch.compile(fullgraph=True)
    def f(t: Any) -> Any:
        v, i = rtopk.topk(torch.relu(t) + t, 64, sorted=True)
        return v * 2.0, i

    v, i = f(x)
    tv, ti = torch.topk(torch.relu(x) + x, 64)
    assert torch.equal(i, ti) and torch.equal(v, tv * 2.0)

    @torch.compile(fullgraph=True, mode="reduce-overhead")  # CUDA graphs through inductor
    def g(t: Any) -> Any:
        return rtopk.topk(t, 16, sorted=False).indices

    for _ in range(3):
        assert torch.equal(g(x), torch.topk(x, 16, sorted=False).indices.sort(-1).values)


@needs_launch
def test_a_tensor_on_cuda_1_runs_on_device_1() -> None:
    if torch.cuda.device_count() < 2:
        pytest.skip("fewer than two GPUs: the cuda:1 test needs a second device")
    x = tie_free(512, 256, seed=8, device="cuda:1")
    with torch.cuda.device(0):
        out = rtopk.topk(x, 8, sorted=True, return_iterations=True)
    assert out.values.device == x.device and out.indices.device == x.device
    torch.cuda.synchronize(1)
    assert torch.equal(out.indices, torch.topk(x, 8).indices)


@needs_launch
def test_errors_on_cuda_tensors() -> None:
    x = torch.zeros(2, 4, device="cuda")
    with pytest.raises(ValueError, match="larger than the row width"):
        rtopk.topk(x, 5)
    with pytest.raises(ValueError, match="does not run here"):
        rtopk.topk(x, 1, algo="heap")
    # float64 and int64 rows are taken (test_64_bit_cuda_tensors_...), ragged ones too
    assert rtopk.topk(x.double(), 1).values.dtype == torch.float64
    got = rtopk.topk(x.double(), 1, lengths=[4, 0], return_threshold=True)
    assert got.indices.tolist() == [[0], [-1]] and got.threshold.isnan().tolist() == [False, True]
    with pytest.raises(TypeError, match="complex64"):
        rtopk.topk(x.to(torch.complex64), 1)
    with pytest.raises(ValueError, match="cannot be combined"):
        rtopk.topk(x, 1, max_iter=2, precision=0.5)
    # flags of the wrong type, hashable or not, get the general path's TypeError
    for flag in (1, [True], None):
        with pytest.raises(TypeError, match="must be bool"):
            rtopk.topk(x, 1, largest=flag)
        with pytest.raises(TypeError, match="must be bool"):
            rtopk.topk(x, 1, sorted=flag)
    for dt in (torch.float16, torch.bfloat16):
        h = x.to(dt)
        with pytest.raises(ValueError, match="larger than the row width"):
            rtopk.topk(h, 5)
        with pytest.raises(ValueError, match="does not run here"):
            rtopk.topk(h, 1, algo="heap")


@needs_launch
def test_16_bit_cuda_tensors_are_selected_in_their_own_dtype() -> None:
    # the CUDA kernel on float16 / bfloat16 rows (eager, and through the op for autograd): the
    # CPU bisection's values (the input's bits), indices and iteration counts
    gen = torch.Generator().manual_seed(22)
    base = torch.randn(300, 777, generator=gen)
    base[::7, ::5] = float("nan")
    base[1::7, ::3] = float("-inf")
    base[2::7, 1::4] = -0.0
    for dt in (torch.float16, torch.bfloat16):
        h = base.to(dt)
        for largest, sorted_ in ((True, False), (False, True)):
            got = rtopk.topk(h.cuda(), 33, largest=largest, sorted=sorted_, return_iterations=True)
            want = rtopk.topk(
                h, 33, algo="bisect", largest=largest, sorted=sorted_, return_iterations=True
            )
            assert got.values.dtype == dt
            assert torch.equal(got.indices.cpu(), want.indices)
            assert torch.equal(got.values.cpu().view(torch.int16), want.values.view(torch.int16))
            assert torch.equal(got.iterations.cpu(), want.iterations)
        g = h.cuda().requires_grad_()
        v, _ = rtopk.topk(g, 5)
        v.float().sum().backward()
        assert g.grad is not None and g.grad.dtype == dt
        assert int((g.grad != 0).sum()) == 5 * 300


@needs_launch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_sorted_rows_at_large_k_equal_the_cpu_bisection(dtype: str) -> None:
    # the sorts whose blocks take up to 1024 threads, with the int64 indices a tensor call
    # writes: the rank sort near k = 2048 on few rows, the block sort of 8192 positions on rows
    # too many for the merge sort, the merge sort, rows sorted in place (before the sort's
    # launch bound, docs/kernel.md "The block sort", these 16-bit launches failed)
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(35)
    for n, m, k in ((1, 40281, 1835), (3, 9000, 2048), (140, 8200, 8192), (2, 40000, 16385)):
        h = torch.randn(n, m, generator=gen).to(dt)
        h[:, ::97] = float("nan")
        for largest in (True, False):
            got = rtopk.topk(h.cuda(), k, largest=largest, sorted=True)
            want = rtopk.topk(h, k, algo="bisect", largest=largest, sorted=True)
            assert torch.equal(got.indices.cpu(), want.indices), (n, m, k, largest)
            assert torch.equal(got.values.cpu().view(torch.int16), want.values.view(torch.int16))


@needs_launch
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_pick_rows_at_every_row_alignment_equal_the_cpu_bisection(dtype: str) -> None:
    # Router rows (docs/kernel.md, "Pick rows"): a lane loads a group of its slots at once only
    # where the row's start is aligned to the group's bytes. Rows of a tensor that starts one to
    # three elements into its storage, and widths that leave every other row unaligned, load
    # element by element; every alignment gives the CPU bisection's answer.
    dt = getattr(torch, dtype)
    ints = torch.int16 if dt.itemsize == 2 else torch.int32
    shapes = [(300, 8), (299, 16), (200, 32), (150, 64), (90, 128), (40, 512), (77, 61), (65, 13)]
    for si, (n, m) in enumerate(shapes):
        for offset in (0, 1, 2, 3):
            family = FAMILIES[(si + offset) % len(FAMILIES)]
            flat = torch.from_numpy(hostile_matrix(1, n * m + offset, family, 8 * si + offset))
            x = flat.reshape(-1).to(dt).cuda()[offset:].view(n, m)
            assert x.is_contiguous() and x.storage_offset() == offset
            for k in (k for k in (1, 2, 6, 8) if k <= m):
                for largest, sorted_ in ((True, False), (False, True)):
                    got = rtopk.topk(x, k, largest=largest, sorted=sorted_)
                    want = rtopk.topk(x.cpu(), k, largest=largest, sorted=sorted_, algo="bisect")
                    case = f"{dtype} ({n}, {m}) offset={offset} k={k} largest={largest}"
                    assert torch.equal(got.indices.cpu(), want.indices), case
                    assert torch.equal(got.values.cpu().view(ints), want.values.view(ints)), case


def hostile64(n: int, m: int, dtype: Any, seed: int) -> Any:
    """``(n, m)`` CPU rows of float64 or int64 built to break a 64-bit kernel (rows64's
    :func:`wide_matrix`), as a torch tensor."""
    return torch.from_numpy(wide_matrix(n, m, dtype, seed))


def without_nans(x: Any) -> Any:
    """``x`` with each NaN made 0 (infinities kept): rows whose order torch agrees on."""
    if not x.is_floating_point():
        return x
    return torch.nan_to_num(x, nan=0.0, posinf=float("inf"), neginf=float("-inf"))


@needs_launch
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_64_bit_cuda_tensors_are_selected_in_their_own_dtype(dtype: str) -> None:
    # the CUDA kernel's wide rows on float64 / int64 rows (every unit width: rows of up to 256,
    # 512, 768 and 1024 elements and past them; a partial last block): the CPU bisection's
    # values (the input's bits), indices and iteration counts, torch.topk's values, indices
    # gathering them, through the eager path, the op (autograd) and out=
    dt = getattr(torch, dtype)
    for n, m in ((37, 1), (301, 33), (9, 256), (10, 500), (6, 700), (5, 1000), (3, 3001)):
        x = hostile64(n, m, dt, seed=n * m)
        xc = x.cuda()
        for k in sorted({1, m // 3, m - 1, m} - {0}):
            for largest, sorted_ in ((True, False), (False, True), (True, True)):
                case = f"{dtype} ({n}, {m}) k={k} largest={largest} sorted={sorted_}"
                got = rtopk.topk(xc, k, largest=largest, sorted=sorted_, return_iterations=True)
                want = rtopk.topk(
                    x, k, algo="bisect", largest=largest, sorted=sorted_, return_iterations=True
                )
                assert got.values.dtype == dt and got.indices.dtype == torch.int64, case
                assert got.values.device == xc.device, case
                assert torch.equal(got.indices.cpu(), want.indices), case
                assert torch.equal(
                    got.values.cpu().view(torch.int64), want.values.view(torch.int64)
                ), case
                assert torch.equal(got.iterations.cpu(), want.iterations), case
                # torch.topk's semantics: its values (sorted), the input's at the indices
                plain = rtopk.topk(xc, k, largest=largest, sorted=sorted_)
                assert torch.equal(plain.indices, got.indices), case
                torch.testing.assert_close(
                    xc.gather(1, plain.indices), plain.values, equal_nan=True, rtol=0, atol=0
                )
                if sorted_:
                    # torch.topk's values (sorted) on the rows without their NaNs: with k = M
                    # torch's CUDA path sorts, which ranks a NaN of either sign elsewhere
                    # than docs/contract.md §1 (and torch.topk itself) does
                    clean = without_nans(xc)
                    mine = rtopk.topk(clean, k, largest=largest, sorted=True).values
                    tv = torch.topk(clean, k, largest=largest, sorted=True).values
                    torch.testing.assert_close(mine, tv, rtol=0, atol=0)
        # early stopping: bisect's answer and counts
        for max_iter in (1, 5):
            got = rtopk.topk(xc, max(1, m // 4), max_iter=max_iter, return_iterations=True)
            want = rtopk.topk(
                x, max(1, m // 4), algo="bisect", max_iter=max_iter, return_iterations=True
            )
            assert torch.equal(got.indices.cpu(), want.indices), (m, max_iter)
            assert torch.equal(got.iterations.cpu(), want.iterations), (m, max_iter)
    x = hostile64(64, 300, dt, seed=5).cuda()
    want = rtopk.topk(x.cpu(), 20, algo="bisect")
    # int32 indices, written at that width by the kernel
    got = rtopk.topk(x, 20, indices_dtype=torch.int32)
    assert got.indices.dtype == torch.int32
    assert torch.equal(got.indices.cpu().long(), want.indices)
    # out=: the caller's buffers, filled in place
    values = torch.empty(0, dtype=dt, device="cuda")
    indices = torch.empty(0, dtype=torch.int64, device="cuda")
    out = rtopk.topk(x, 20, out=(values, indices))
    assert out.values is values and out.indices is indices
    assert torch.equal(indices.cpu(), want.indices)
    assert torch.equal(values.cpu().view(torch.int64), want.values.view(torch.int64))
    # the op: a float64 tensor that requires grad goes through it, with torch.topk's gradient
    if dt == torch.float64:
        finite = torch.nan_to_num(x, nan=0.0, posinf=1e300, neginf=-1e300)
        a = finite.clone().requires_grad_()
        b = finite.clone().requires_grad_()
        va, ia = rtopk.topk(a, 16, sorted=True)
        vb, ib = torch.topk(b, 16, sorted=True)
        assert torch.equal(va, vb)
        assert torch.equal(finite.gather(1, ia), finite.gather(1, ib))
        g = torch.randn_like(va)
        (va * g).sum().backward()
        assert a.grad is not None and a.grad.dtype == dt
        assert int((a.grad != 0).sum()) == 16 * 64


@needs_launch
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_64_bit_cuda_tensors_in_the_op_and_under_torch_compile(dtype: str) -> None:
    dt = getattr(torch, dtype)
    # opcheck compares outputs without equal_nan: rows without NaNs (±inf, ±0, subnormals kept)
    x = without_nans(hostile64(64, 300, dt, seed=11).cuda())
    op = torch.ops.rtopk.topk.default
    args = (x, 5, -1, op_options(iterations=True), None, None, None)
    result = torch.library.opcheck(op, args)
    assert all(v == "SUCCESS" for v in result.values()), (dt, result)

    @torch.compile(fullgraph=True)
    def f(t: Any) -> Any:
        return rtopk.topk(t, 8, sorted=True)

    v, i = f(x)
    want = rtopk.topk(x.cpu(), 8, algo="bisect")
    assert v.dtype == dt and torch.equal(i.cpu(), want.indices), dt


def same_answer(got: Any, want: Any, case: str) -> None:
    """``got`` (CUDA) is ``want`` (CPU) bit for bit: indices (padding -1), value bits (padding
    0), iteration counts where both have them, thresholds."""
    assert torch.equal(got.indices.cpu(), want.indices), case
    assert torch.equal(got.values.cpu().view(torch.int64), want.values.view(torch.int64)), case
    # a result without counts is a TopKThreshold, which has no iterations field
    got_it, want_it = getattr(got, "iterations", None), getattr(want, "iterations", None)
    if got_it is not None and want_it is not None:
        assert torch.equal(got_it.cpu(), want_it), case
    assert torch.equal(got.threshold.cpu().view(torch.int32), want.threshold.view(torch.int32))


@needs_launch
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_ragged_64_bit_cuda_tensors_equal_the_cpu_bisection(dtype: str) -> None:
    # the wide rows' ragged twins and the 64-bit threshold step on float64 / int64 CUDA tensors
    # (every unit width and rows past them): lengths=, a per-row k, hint= of every kind (beyond
    # +-2^63 and fractional on int64 rows) and return_threshold=, as host values and as device
    # tensors, give the CPU bisection's indices (padding -1), value bits (padding 0), iteration
    # counts (with the same hints) and thresholds, bit for bit
    dt = getattr(torch, dtype)
    compared = 0
    shapes = ((37, 7), (41, 33), (26, 256), (13, 257), (11, 700), (9, 1000), (5, 1025), (3, 3001))
    for n, m in shapes:
        x = hostile64(n, m, dt, seed=n + m)
        xc = x.cuda()
        for width in (m, max(1, m // 3)):
            lengths, ks = ragged_64(n, m, width, seed=m + width)
            for largest, sorted_ in ((True, False), (False, True), (True, True)):
                for k, ll in ((ks, lengths), (width, lengths), (ks, None)):
                    kw: Any = dict(
                        largest=largest,
                        sorted=sorted_,
                        return_iterations=True,
                        return_threshold=True,
                    )
                    if ll is not None:
                        kw["lengths"] = ll
                    own = rtopk.topk(x, k, algo="bisect", **kw).threshold
                    for hint in (None, hints_64(own.numpy(), seed=n * m)):
                        args = kw if hint is None else dict(kw, hint=hint)
                        want = rtopk.topk(x, k, algo="bisect", **args)
                        case = f"{dtype} ({n}, {m}) k={k} {args}"
                        # host per-row values (checked, then copied to the GPU)
                        got = rtopk.topk(xc, k, **args)
                        assert got.values.dtype == dt and got.threshold.device == xc.device
                        same_answer(got, want, case)
                        # device tensors, a per-row k with its width
                        dev = {
                            key: torch.from_numpy(v).cuda() if isinstance(v, np.ndarray) else v
                            for key, v in args.items()
                        }
                        if isinstance(k, np.ndarray):
                            kd = torch.from_numpy(k).cuda()
                            got = rtopk.topk(xc, kd, width=int(k.max()), **dev)
                        else:
                            got = rtopk.topk(xc, k, **dev)
                        same_answer(got, want, f"device, {case}")
                        # without counts the same answer (the wide rows are never split)
                        quiet = dict(dev, return_iterations=False)
                        got = rtopk.topk(xc, kd if isinstance(k, np.ndarray) else k, **quiet)
                        same_answer(got, want, f"no counts, {case}")
                        compared += 3
    # 8 shapes, 2 widths, 3 orders, 3 per-row sets, with and without hints, 3 calls
    assert compared >= 8 * 2 * 3 * 3 * 2 * 3, compared


@needs_launch
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_ragged_64_bit_cuda_tensors_under_a_cuda_graph_the_op_and_torch_compile(
    dtype: str,
) -> None:
    dt = getattr(torch, dtype)
    n, m, width = 64, 700, 40
    lengths, ks = ragged_64(n, m, width, seed=2)
    static_x = hostile64(n, m, dt, seed=1).cuda()
    static_k = torch.from_numpy(ks).int().cuda()
    static_len = torch.from_numpy(lengths).cuda()
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
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = call()
    for seed in range(3):
        x = hostile64(n, m, dt, seed=10 + seed)
        lengths, ks = ragged_64(n, m, width, seed=20 + seed)
        own = rtopk.topk(x, ks, lengths=lengths, algo="bisect", return_threshold=True).threshold
        hint = hints_64(own.numpy(), seed=seed)
        static_x.copy_(x)
        static_k.copy_(torch.from_numpy(ks))
        static_len.copy_(torch.from_numpy(lengths))
        static_hint.copy_(torch.from_numpy(hint))
        graph.replay()
        torch.cuda.synchronize()
        want = rtopk.topk(
            x, ks, lengths=lengths, hint=hint, width=width, algo="bisect", return_threshold=True
        )
        same_answer(out, want, f"{dtype} replay {seed}")
    # the op: opcheck on rows without NaNs (its outputs are compared without equal_nan; every
    # row selects something, so no threshold is NaN)
    x = hostile64(6, 300, dt, seed=3).cuda()
    if x.is_floating_point():
        x = torch.nan_to_num(x, nan=0.0)
    k = torch.tensor([1, 5, 19, 3, 7, 2], device="cuda")
    ll = torch.tensor([300, 17, 250, 3, 299, 9], device="cuda")
    hint = torch.tensor([0.5, float("nan"), 1e19, -2.5, float("inf"), 0.0], device="cuda")
    op = torch.ops.rtopk.topk.default
    args = (x, 19, -1, op_options(iterations=True, threshold=True), k, ll, hint)
    result = torch.library.opcheck(op, args)
    assert all(v == "SUCCESS" for v in result.values()), (dtype, result)
    want = rtopk.topk(
        x.cpu(),
        k.cpu(),
        lengths=ll.cpu(),
        hint=hint.cpu(),
        width=19,
        algo="bisect",
        return_threshold=True,
    )

    def f(t: Any, kk: Any, lengths: Any, h: Any) -> Any:
        return rtopk.topk(t, kk, lengths=lengths, hint=h, width=19, return_threshold=True)

    for mode in (None, "reduce-overhead"):  # the second: CUDA graphs through inductor
        compiled = torch.compile(f, fullgraph=True, mode=mode)
        for _ in range(3):
            got = compiled(x, k, ll, hint)
        same_answer(got, want, f"{dtype} torch.compile mode={mode}")


def test_numpy_input_with_algo_cuda_goes_through_the_gpu() -> None:
    x = hostile_matrix(100, 300, "hostile", 12)
    got = rtopk.topk(x, 20, sorted=False, algo="cuda", return_iterations=True)
    v, i, it = cpu_reference(x, 20, True, False)
    np.testing.assert_array_equal(got.indices, i)
    assert same_bits(got.values, v)
    np.testing.assert_array_equal(got.iterations, it)


@pytest.mark.verify
def test_verify_quick() -> None:
    # one type of each storage: f32 keys, packed 16-bit floats, integer keys (every type is
    # verified by `rtopk verify cuda --quick` and the GPU tests)
    report = rtopk.cuda.verify(quick=True, dtypes=["float32", "bfloat16", "int8"])
    assert report.cases > 0 and report.ok, report.mismatches[:5]
    with pytest.raises(TypeError, match="'float128'"):
        rtopk.cuda.verify(quick=True, dtypes=["float128"])


@needs_launch
@pytest.mark.verify
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_verify_quick_64_bit(dtype: str) -> None:
    # the 64-bit types: the wide rows on their own keys, against bisect and the simulator
    # (slower than the other types' quick check: over 2 minutes for both on an H200)
    report = rtopk.cuda.verify(quick=True, dtypes=[dtype])
    assert report.cases > 0 and report.ok, report.mismatches[:5]
