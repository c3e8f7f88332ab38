"""The request object that crosses the native boundary, the argument handling and defaults
rtopk.topk takes from torch.topk, and the package's namespace and module structure."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any, Dict, Set

import numpy as np
import pytest
import rtopk
from oracle import canonical_rows, hostile_matrix
from rtopk import _native, _request

PACKAGE = Path(rtopk.__file__).parent


def test_a_request_holds_what_it_was_built_with() -> None:
    r = _native.Request(k=5)
    assert (r.algorithm, r.k, r.largest, r.sorted, r.iterations) == ("bisect", 5, True, True, False)
    assert (r.max_iter, r.precision, r.index_dtype, r.dtype, r.device) == (
        None,
        0.0,
        "int64",
        "float32",
        "cpu",
    )
    r = _native.Request(
        k=3,
        algo="auto",
        largest=False,
        sorted=False,
        iterations=True,
        max_iter=4,
        index_dtype="int32",
        dtype="bfloat16",
        device="cuda",
    )
    assert r.algorithm == "cuda" and r.max_iter == 4 and not r.largest and not r.sorted
    assert r.index_dtype == "int32" and r.dtype == "bfloat16" and r.device == "cuda:0"
    assert _native.Request(k=1, device="cuda:3").device == "cuda:3"
    assert "Request(algorithm='cuda', k=3, largest=False" in repr(r)
    assert _native.Request(k=1, precision=0.25).precision == 0.25
    with pytest.raises(AttributeError):
        r.k = 4  # type: ignore[misc]  # frozen: one request may serve many calls


def test_a_request_takes_keywords_only() -> None:
    with pytest.raises(TypeError):
        _native.Request(5)  # type: ignore[misc]
    with pytest.raises(TypeError):
        _native.Request()  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": -1}, ValueError, r"k must be >= 0, got -1"),
        ({"k": True}, TypeError, r"k must be an integer, not bool"),
        ({"k": 2.0}, TypeError, r"k must be an integer, not float"),
        ({"k": "3"}, TypeError, r"k must be an integer, not str"),
        ({"k": 2**70}, ValueError, r"too large"),
        ({"k": 1, "dtype": "complex64"}, TypeError, r"got dtype complex64"),
        ({"k": 1, "dtype": "uint16"}, TypeError, r"float32, float16, bfloat16, float64, int8"),
        ({"k": 1, "index_dtype": "int16"}, TypeError, r"int32 or int64, got int16"),
        ({"k": 1, "device": "tpu"}, ValueError, r"device 'tpu': expected 'cpu', 'cuda' or"),
        ({"k": 1, "device": "cuda:x"}, ValueError, r"device 'cuda:x'"),
        ({"k": 1, "algo": "foo"}, ValueError, r"unknown algorithm 'foo'; valid names: heap"),
        ({"k": 1, "algo": "heap", "device": "cuda"}, ValueError, r"'heap'"),
        ({"k": 1, "algo": "radix", "iterations": True}, ValueError, r"--iterations"),
        ({"k": 1, "algo": "heap", "max_iter": 2}, ValueError, r"not for 'heap'"),
        ({"k": 1, "max_iter": 2, "precision": 0.1}, ValueError, r"cannot be combined"),
        ({"k": 1, "max_iter": -3}, ValueError, r"max_iter must be None or an integer"),
        ({"k": 1, "max_iter": True}, TypeError, r"max_iter must be None or an integer"),
        ({"k": 1, "precision": -1.0}, ValueError, r"precision -1 is out of range"),
        ({"k": 1, "largest": 1}, TypeError, r"largest"),
    ],
)
def test_a_bad_request_is_refused_when_built(
    kwargs: Dict[str, Any], error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        _native.Request(**kwargs)


def test_the_width_is_checked_against_the_request() -> None:
    r = _native.Request(k=5)
    r.check(5)
    with pytest.raises(ValueError, match=r"k = 5 is larger than the row width M = 4"):
        r.check(4)
    with pytest.raises(ValueError, match=r"width M = 0"):
        _native.Request(k=0).check(0)
    with pytest.raises(ValueError, match=r"int32 indices cannot index rows"):
        _native.Request(k=1, index_dtype="int32").check(2**31 + 1)
    _native.Request(k=1, index_dtype="int32").check(2**31)
    with pytest.raises(ValueError, match=r"m must be >= 0"):
        r.check(-1)


def test_every_native_entry_takes_the_request() -> None:
    x = hostile_matrix(3, 40, "hostile", 1)
    request = _native.Request(k=6, sorted=False, iterations=True)
    _values, indices, its, threshold = _native.select(x, request)
    assert threshold is None  # not asked for
    _want_v, want_i = canonical_rows(x, 6)
    np.testing.assert_array_equal(indices, want_i)
    assert its is not None and its.shape == (3,)
    sim = _native.sim_run(x, _native.Request(k=6, algo="sim", sorted=False))
    np.testing.assert_array_equal(sim["indices"], want_i)
    traced = _native.trace(x[0], _native.Request(k=6, algo="sim"))
    assert traced.data()["k"] == 6
    stats = _native.stats_iterations(_native.Request(k=4, algo="bisect"), m=64, reps=10)
    assert '"k":4' in stats.replace(" ", "")
    # a request for 16-bit rows reads uint16 bits; float32 rows are refused by it
    with pytest.raises(TypeError, match="uint16"):
        _native.select(x, _native.Request(k=2, dtype="float16"))
    # a GPU request is refused on host memory before anything runs
    with pytest.raises(ValueError, match="CUDA tensors"):
        _native.select(x, _native.Request(k=2, device="cuda"))
    with pytest.raises(ValueError, match="device buffers are read by 'cuda'"):
        _native.cuda_launch(_native.Request(k=2), 1, 40, (0,) * 8, 0)
    # the launch checks the width before touching a device
    with pytest.raises(ValueError, match="larger than the row width"):
        _native.cuda_launch(_native.Request(k=50, device="cuda"), 1, 40, (0,) * 8, 0)


def test_equal_calls_share_one_cached_request() -> None:
    a = _request.ask(4, True, True, "auto", None, 0.0, False, None)
    b = _request.ask(np.int64(4), np.bool_(True), True, "auto", None, 0, False, np.int64)
    assert a == b
    assert _request.native(a, "float32", "cpu") is _request.native(b, "float32", "cpu")
    assert _request.native(a, "float16", "cpu").dtype == "float16"


def test_topk_takes_torchs_defaults() -> None:
    params = inspect.signature(rtopk.topk).parameters
    assert [p for p in params][:5] == ["x", "k", "dim", "largest", "sorted"]
    assert (params["dim"].default, params["largest"].default, params["sorted"].default) == (
        -1,
        True,
        True,
    )
    for module_default in (rtopk.sim.run, rtopk.distributed.topk_split_rows):
        assert inspect.signature(module_default).parameters["sorted"].default is True
    x = hostile_matrix(5, 70, "hostile", 2)
    _want_v, want_i = canonical_rows(x, 9, sorted=True)
    got = rtopk.topk(x, 9)  # value order by default, as torch.topk
    np.testing.assert_array_equal(got.indices, want_i)
    np.testing.assert_array_equal(rtopk.topk(x, 9, sorted=False).indices, canonical_rows(x, 9)[1])
    np.testing.assert_array_equal(rtopk.sim.run(x, 9).indices, want_i)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((2, True), {}, r"argument 'dim' must be int, not bool"),
        ((2,), {"dim": 1.0}, r"argument 'dim' must be int, not float"),
        ((True,), {}, r"argument 'k' must be int, not bool"),
        ((2.5,), {}, r"argument 'k' must be int, not float"),
        ((2,), {"largest": 1}, r"argument 'largest' must be bool, not int"),
        ((2,), {"sorted": None}, r"argument 'sorted' must be bool, not NoneType"),
        ((2,), {"algo": 3}, r"argument 'algo' must be str"),
        ((2,), {"indices_dtype": np.int16}, r"indices_dtype"),
    ],
)
def test_arguments_are_typed_as_torch_types_them(
    args: Any, kwargs: Dict[str, Any], match: str
) -> None:
    x = np.ones((2, 4), dtype=np.float32)
    with pytest.raises(TypeError, match=match):
        rtopk.topk(x, *args, **kwargs)


def test_numpy_integers_and_bools_are_taken() -> None:
    x = hostile_matrix(2, 40, "normal", 3)
    a = rtopk.topk(x, np.int32(3), np.int64(1), np.bool_(False), np.bool_(False))
    np.testing.assert_array_equal(a.indices, canonical_rows(x, 3, largest=False)[1])


def test_the_namespace_is_the_public_api() -> None:
    public = {n for n in dir(rtopk) if not n.startswith("_")}
    # rtopk.ops appears once torch is in use (importing it registers the op), rtopk.jax
    # once it is imported
    assert public - {"ops", "jax"} == set(rtopk.__all__) - {"__version__"}, public ^ set(
        rtopk.__all__
    )
    for leaked in ("List", "Tuple", "json", "sys", "dataclass", "annotations"):
        assert leaked not in dir(rtopk)
    for name in rtopk.__all__:
        assert hasattr(rtopk, name), name


def _package_imports() -> Dict[str, Set[str]]:
    """Module -> the package's modules it imports (at any level: module, function, branch)."""
    graph: Dict[str, Set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        name = path.stem
        deps: Set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rtopk."):
                deps.add(node.module.split(".")[1])  # type: ignore[union-attr]
        graph[name] = deps - {"_native"}
    return graph


def test_no_import_circles_in_the_package() -> None:
    graph = _package_imports()
    assert {"_request", "_host", "_topk", "ops"} <= set(graph)
    assert "_topk" not in graph["ops"]  # the tensor path does not reach back

    def reaches(start: str, goal: str, seen: Set[str]) -> bool:
        for dep in graph.get(start, set()):
            if dep == goal or (dep not in seen and reaches(dep, goal, seen | {dep})):
                return True
        return False

    circles = [m for m in graph if m != "__init__" and reaches(m, m, {m})]
    assert circles == [], f"modules that import themselves through others: {circles}"


def test_no_module_rebinds_its_globals() -> None:
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        rebinds = [n for n in ast.walk(tree) if isinstance(n, (ast.Global, ast.Nonlocal))]
        assert rebinds == [], f"{path.name} rebinds module state"
