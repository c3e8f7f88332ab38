"""Top-k across processes through ``torch.distributed`` (NCCL between GPUs, gloo on CPUs).

Two ways a workload outgrows one device, after Dr. Top-k (paper 004, §5.4: each device selects
locally, only the local winners travel):

* :func:`topk_sharded_rows` — the *rows* are split across ranks (a MaxK-GNN layer over a graph
  sharded by nodes): each rank selects its own rows with :func:`rtopk.topk`, with no
  communication unless ``gather_to`` asks for every rank's results on one rank.
* :func:`topk_split_rows` — every row is split along ``dim`` across ranks (one long vector, or a
  batch of long rows): each rank takes the top-k of its shard, the ranks all-gather their
  candidates (values and *global* indices), and the top-k of the candidates is the answer, on
  every rank. It is the canonical top-k (docs/contract.md §1) of the whole row: an element of
  the row's top-k is in its shard's top-k (the order — value, then index — is total, and a
  shard's indices keep the row's order), shards sit in rank order, so the candidates
  concatenated in rank order are in global index order and a tie between them goes to the
  lower global index, exactly as on one device. Sorted and smallest modes follow.

**Agreement.** Before ranks exchange data they agree on the request — the kind of call, ``k``,
the dtype, the flags, ``dim``, the shapes (all but the sharded dimension), ``gather_to`` — and
learn each other's shard sizes, in one small all-gather read on the host. Ranks that disagree
raise the same :class:`ValueError` on every rank instead of waiting forever in a mismatched
collective; a rank whose own input is invalid raises its own error (``TypeError``,
``IndexError`` or ``ValueError``, as :func:`rtopk.topk` would) and every other rank a
``ValueError`` that names it. With gloo, a monitored barrier with ``timeout`` first names a
rank that never arrives (:class:`RuntimeError`); with NCCL the process group's own timeout
applies (set it with ``init_process_group(timeout=...)``).

``check`` says when the agreement runs:

* ``"once"`` (default): on the first call of each *request* of this rank — its group, the
  local shape, ``dim``, ``k``, the dtype, the device, the flags, ``gather_to`` and the options
  (for :func:`topk_sharded_rows` the local row count only with ``gather_to``) — and its outcome
  (the shard sizes) is remembered (at most :data:`CACHE_SIZE` requests, the oldest forgotten
  first). Later calls of the same request skip it: :func:`topk_split_rows` then runs exactly
  one collective and no host synchronisation, :func:`topk_sharded_rows` one collective with
  ``gather_to`` and none without. **Every rank must then change its request together**, as a
  training or serving loop does (the same sequence of requests on every rank, each rank with
  its own shard sizes). A rank that alone changes its request (a new shape, ``k``, dtype,
  flag, option or shard size) runs the agreement's all-gather while the others, whose requests
  are remembered, run the data collective: the collectives do not match, nothing can name the
  culprit, and the group fails as NCCL and gloo fail on mismatched collectives — an error from
  gloo on mismatched sizes, or a wait until the process group's timeout, or wrong data where
  the sizes happen to match. Options that are not plain values (tensors, lists) are never
  remembered: such calls agree every time.
* ``"always"``: every call agrees first (one extra collective and a host synchronisation per
  call): any rank may change its request at any time, and a rank that disagrees makes every
  rank raise.

Call :func:`clear_cache` on every rank together after re-creating a process group, or to make
the next call of every request agree again.

What travels: :func:`topk_split_rows` sends ``k · (value + 8-byte index)`` per row from every
rank to every rank, in one all-gather of one packed buffer per rank — nothing of the rows
themselves; :func:`topk_sharded_rows` with ``gather_to`` sends each rank's ``rows · k`` values
and indices to one rank, in one gather. The collectives run on torch's current stream; the hot
path reads no device value on the host, so it can be captured in a CUDA graph where NCCL
allows it.

**The replayed merge.** With ``check="once"`` on NCCL, the first call of a request (it
synchronises at the agreement anyway) also captures the merge — the ranks' offsets added to
the received indices, the top-k of the candidates, the gather of their global indices — in a
CUDA graph of its own, for the stream it ran on. Later calls of the request on that stream
take the hot path: one dictionary lookup finds the request, the shard's selection is launched
straight into a static send buffer (where the rows are the shard's contiguous last dimension;
else :func:`rtopk.topk` and two copies), the all-gather fills the graph's receive buffer (a
graph holding an NCCL collective would keep the communicator from being destroyed), the graph
is replayed and its packed answer cloned once — values and indices are two views of that one
clone: five operations on the host instead of about thirty. Where that cannot hold — a rank
with fewer than ``k`` elements, another stream or current device, a capture of the caller's in
progress, ``check="always"``, a local ``algo`` other than the GPU kernel — the call runs
eagerly, with the same answer. The graph's buffers (``world · k`` candidates per row and the
merge's; no graph past 64 MiB of candidates) live as long as the request is remembered
(:func:`clear_cache`).

**When splitting pays.** A split row costs each rank a local selection of its shard plus a
fixed price: the all-gather and the merge of ``world · k`` candidates per row take about 20
microseconds on the GPU, a hot call's Python and launches 0.1–0.4 ms on the host, and the
slowest rank's host sets the pace. In a loop of calls the host queues the next call while the
GPUs run this one, so large shards hide the host's part; captured in a CUDA graph it goes.
:func:`split_pays` says whether a shard is large enough (:data:`SPLIT_PAYS_BYTES` for eager
calls, :data:`SPLIT_PAYS_BYTES_GRAPHED` inside a graph); below it, keep the rows on one device
and call :func:`rtopk.topk` (docs/distributed.md has the measurements). :func:`topk_split_rows`
computes the same answer either way and never decides for the caller.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, Hashable, List, NamedTuple, Optional, Tuple

from ._topk import TopK, _is_tensor, topk

if TYPE_CHECKING:  # pragma: no cover
    import torch
    from torch.distributed import ProcessGroup

__all__ = [
    "CACHE_SIZE",
    "SPLIT_PAYS_BYTES",
    "SPLIT_PAYS_BYTES_GRAPHED",
    "ShardedRows",
    "clear_cache",
    "split_pays",
    "topk_sharded_rows",
    "topk_split_rows",
]

# Bytes of input per rank from which an eager topk_split_rows on 2 or 4 GPUs was faster than one
# GPU holding every shard in every measured case (docs/distributed.md, H200s, the replayed
# merge): below it the fixed price of a call (mostly the host's) was not always earned back.
SPLIT_PAYS_BYTES = 256 << 20
# The same for a call replayed from a CUDA graph: the smallest shard measured (32 MiB) already
# paid in every case; nothing smaller was measured.
SPLIT_PAYS_BYTES_GRAPHED = 32 << 20
# Requests whose agreement is remembered with check="once"; the oldest is forgotten first.
CACHE_SIZE = 64
# The most candidate bytes (all ranks') a remembered request keeps for its replayed merge: past
# it the call stays eager (the GPU's work outweighs the host's there, and the buffers stay
# allocated while the request is remembered).
_REPLAY_MAX_BYTES = 64 << 20

# The dtypes a rank may hold, by their code in the metadata exchange.
_DTYPES = ("float32", "float16", "bfloat16")
# Highest tensor rank the metadata tensor describes.
_MAX_NDIM = 8
# The metadata every rank sends: a status (0, or the kind of error this rank found in its own
# request), the call, the fields that must agree, the shape (the sharded dimension as _ANY,
# zeros past ndim), and the size along the sharded dimension, which may differ.
_FIELDS = ("status", "call", "k", "dtype", "largest", "sorted", "ndim", "dim", "gather_to")
_WIDTH = len(_FIELDS) + _MAX_NDIM + 1
# A shape entry that may differ between ranks (the sharded dimension).
_ANY = -1
# The calls, by their code in the metadata exchange.
_CALLS = ("topk_split_rows", "topk_sharded_rows")
# Errors a rank may find in its own request, by their status code (0 is none).
_ERRORS = (TypeError, IndexError, ValueError)
_CHECKS = ("once", "always")
# Default wait for every rank at the metadata exchange (gloo's monitored barrier).
_TIMEOUT = timedelta(seconds=60)


class ShardedRows(NamedTuple):
    """:func:`topk_sharded_rows`'s result: this rank's ``values`` / ``indices`` (its own rows),
    and on the ``gather_to`` rank every rank's rows concatenated in rank order
    (``all_values`` / ``all_indices``; ``None`` on other ranks and without ``gather_to``)."""

    values: Any
    indices: Any
    all_values: Any
    all_indices: Any


def split_pays(row_bytes_per_rank: int, *, graphed: bool = False) -> bool:
    """Whether splitting rows across ranks is worth it for a shard of ``row_bytes_per_rank``
    bytes — the input one rank holds, ``x.numel() * x.element_size()`` of its shard: true from
    :data:`SPLIT_PAYS_BYTES` (256 MiB) on for eager calls, from :data:`SPLIT_PAYS_BYTES_GRAPHED`
    (32 MiB) on for calls replayed from a CUDA graph (``graphed=True``) — the sizes from which
    :func:`topk_split_rows` on 2 and 4 GPUs beat one GPU holding every shard in every measured
    case (docs/distributed.md). Below it, keep the rows on one device. Advice only:
    :func:`topk_split_rows` answers the same either way.

    Raises:
        TypeError: ``row_bytes_per_rank`` is not an integer (a bool included), or ``graphed``
            is not a bool.
        ValueError: it is negative.
    """
    if type(graphed) is not bool:
        raise TypeError(f"graphed must be a bool, got {type(graphed).__name__}")
    if isinstance(row_bytes_per_rank, bool) or not isinstance(row_bytes_per_rank, int):
        raise TypeError(
            f"row_bytes_per_rank must be an integer, got {type(row_bytes_per_rank).__name__}"
        )
    if row_bytes_per_rank < 0:
        raise ValueError(f"row_bytes_per_rank must be >= 0, got {row_bytes_per_rank}")
    return row_bytes_per_rank >= (SPLIT_PAYS_BYTES_GRAPHED if graphed else SPLIT_PAYS_BYTES)


class _Split(NamedTuple):
    """What the ranks agreed on for one :func:`topk_split_rows` request."""

    dim: int
    rank: int
    world: int
    offsets: Tuple[int, ...]  # each rank's first global index along dim
    keep: Tuple[int, ...]  # candidates each rank sends: min(k, its shard)
    cols: Any  # the candidate columns that hold candidates; None when every rank sends k
    comm: Any  # the device the collectives take their tensors on
    # the merge captured in a CUDA graph, per CUDA stream (_Replay)
    replays: Dict[int, "_Replay"]


class _Call(NamedTuple):
    """One :func:`topk_split_rows` call's own arguments, as its local selection and merge take
    them (``options`` without ``indices_dtype``)."""

    k: int
    largest: bool
    sorted: bool
    group: Any
    index_dtype: Any
    options: Dict[str, Any]


class _Replay(NamedTuple):
    """:func:`topk_split_rows`'s merge of one request, captured once per stream: a call fills
    ``send`` (through its views ``send_values`` / ``send_indices``, at ``send_pointers``: local
    indices), all-gathers it into ``every``, and the graph merges from there (adding each
    rank's ``offsets``) into ``out``, one packed buffer laid out as ``packed`` says."""

    graph: Any
    send: Any
    send_values: Any
    send_indices: Any
    send_pointers: Tuple[int, int]
    every: Any
    offsets: Any
    out: Any
    packed: "_Packed"
    # the native request of the local selection, launched straight into ``send`` where the
    # rows are this rank's contiguous last dimension (None: rtopk.topk and two copies)
    launch: Any


class _Hot(NamedTuple):
    """A captured request as the hot path finds it, by one dictionary lookup."""

    plan: "_Split"
    replay: _Replay
    call: "_Call"


class _Sharded(NamedTuple):
    """What the ranks agreed on for one :func:`topk_sharded_rows` request."""

    dim: int
    rank: int
    counts: Tuple[int, ...]  # every rank's row count (only with gather_to)
    dst: int  # the global rank of gather_to, or -1
    comm: Any


# check="once": the agreed outcome of each request key, oldest first.
_AGREED: "OrderedDict[Hashable, Any]" = OrderedDict()
# The captured requests of topk_split_rows by the key of their plainest call (_hot_key): the
# hot path's one lookup. Emptied whenever _AGREED forgets anything, refilled by the next calls.
_HOT: Dict[Hashable, _Hot] = {}


def clear_cache() -> None:
    """Forgets every remembered agreement (``check="once"``): the next call of each request
    agrees again. Call it on every rank together (after re-creating a process group, say)."""
    _AGREED.clear()
    _HOT.clear()


def _dist() -> Any:
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError(
            "rtopk.distributed needs an initialised process group "
            "(torch.distributed.init_process_group)"
        )
    return dist


def _comm_device(dist: Any, group: Optional["ProcessGroup"], x: "torch.Tensor") -> Any:
    """Where the group's collectives take their tensors: for NCCL the input's GPU (the current
    one for a CPU input), else the CPU."""
    import torch

    if dist.get_backend(group) != "nccl":
        return torch.device("cpu")
    if isinstance(x, torch.Tensor) and x.is_cuda:
        return x.device
    return torch.device("cuda", torch.cuda.current_device())


def _key(*parts: Any) -> Optional[Hashable]:
    """A cache key of ``parts``, or None where one is not hashable (such calls agree always)."""
    try:
        hash(parts)
    except TypeError:
        return None
    return parts


def _group_key(dist: Any, group: Optional["ProcessGroup"]) -> Any:
    """The group object itself (the default group resolved): a group re-created after
    ``destroy_process_group`` is another object, so its requests are new."""
    return dist.group.WORLD if group is None else group


def _freeze(options: Dict[str, Any]) -> Optional[Tuple[Tuple[str, Any], ...]]:
    """``options`` as part of a cache key, or None if a value is not a plain value."""
    import torch

    plain = (type(None), bool, int, float, str, torch.dtype)
    if any(type(v) not in plain for v in options.values()):
        return None
    return tuple(sorted(options.items()))


def _normalize_dim(x: "torch.Tensor", dim: int) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"dim must be an integer, got {type(dim).__name__}")
    if x.dim() == 0:
        raise ValueError("rtopk.distributed selects along a dimension: the input is a scalar")
    if not -x.dim() <= dim < x.dim():
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-x.dim()}, {x.dim() - 1}], "
            f"but got {dim})"
        )
    return int(dim % x.dim())


def _request(
    call: int,
    x: "torch.Tensor",
    k: int,
    dim: int,
    largest: bool,
    sorted: bool,
    free_dim: int,
    gather_to: int,
) -> List[int]:
    """This rank's metadata row (status 0); the size along ``free_dim`` may differ."""
    import torch

    if not isinstance(x, torch.Tensor):
        raise TypeError(f"rtopk.distributed takes torch tensors, not {type(x).__name__}")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if type(largest) is not bool or type(sorted) is not bool:
        raise TypeError("largest and sorted must be bools")
    name = str(x.dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise TypeError(
            f"rtopk.distributed takes float32, float16 or bfloat16 tensors, not {x.dtype}"
        )
    if x.dim() > _MAX_NDIM:
        raise ValueError(f"tensors of more than {_MAX_NDIM} dimensions are not supported")
    shape = [_ANY if d == free_dim else int(s) for d, s in enumerate(x.shape)]
    head = [0, call, k, _DTYPES.index(name), int(largest), int(sorted), x.dim(), dim, gather_to]
    return [*head, *shape, *[0] * (_MAX_NDIM - len(shape)), int(x.shape[free_dim])]


def _refused(error: Exception) -> List[int]:
    """The metadata row of a rank that found an error in its own request."""
    code = next(i for i, kind in enumerate(_ERRORS) if isinstance(error, kind))
    return [code + 1] + [0] * (_WIDTH - 1)


def _describe(row: List[int]) -> str:
    if row[0] != 0:
        return f"refused its own request ({_ERRORS[row[0] - 1].__name__})"
    _, call, k, code, largest, sorted_, ndim, dim, gather_to = row[: len(_FIELDS)]
    shape = ["*" if s == _ANY else str(s) for s in row[len(_FIELDS) : len(_FIELDS) + ndim]]
    to = "" if gather_to < 0 else f", gather_to={gather_to}"
    return (
        f"{_CALLS[call]}(k={k}, dtype={_DTYPES[code]}, largest={bool(largest)}, "
        f"sorted={bool(sorted_)}, dim={dim}, shape=({', '.join(shape)}){to})"
    )


def _exchange(
    dist: Any, row: List[int], comm: Any, group: Optional["ProcessGroup"]
) -> List[List[int]]:
    """Every rank's metadata row, in rank order (one all-gather, read on the host)."""
    import torch

    world = dist.get_world_size(group)
    mine = torch.tensor(row, dtype=torch.int64, device=comm)
    every = torch.empty(world * len(row), dtype=torch.int64, device=comm)
    dist.all_gather_into_tensor(every, mine, group=group)
    return [[int(v) for v in r] for r in every.view(world, len(row)).tolist()]


def _agree(
    dist: Any,
    row: List[int],
    error: Optional[Exception],
    comm: Any,
    group: Optional["ProcessGroup"],
    timeout: Optional[timedelta],
) -> List[int]:
    """Every rank's size along its sharded dimension, once every rank's ``row`` agrees (the
    last field aside); else the same ValueError on every rank (a rank's own error on it)."""
    if timeout is not None and dist.get_backend(group) == "gloo":
        dist.monitored_barrier(group=group, timeout=timeout)
    seen = _exchange(dist, row, comm, group)
    if error is not None:
        raise error
    if any(s[:-1] != seen[0][:-1] for s in seen):
        ranks = "; ".join(f"rank {r}: {_describe(s)}" for r, s in enumerate(seen))
        raise ValueError(f"ranks disagree on the top-k request: {ranks}")
    return [s[-1] for s in seen]


def _check_mode(check: str) -> None:
    if check not in _CHECKS:
        raise ValueError(f'check must be "once" or "always", got {check!r}')


def _remembered(key: Optional[Hashable], check: str) -> Any:
    return _AGREED.get(key) if check == "once" and key is not None else None


def _remember(key: Optional[Hashable], check: str, plan: Any) -> None:
    if check == "once" and key is not None:
        _AGREED[key] = plan
        while len(_AGREED) > CACHE_SIZE:
            _AGREED.popitem(last=False)
            _HOT.clear()  # it may hold the forgotten request's graph


def _layout(items: int, index_bytes: int, value_bytes: int) -> Tuple[int, int, int]:
    """Bytes of the packed buffer of ``items`` candidates: indices first (8-byte aligned), then
    values; returns (index bytes, value bytes, the buffer's bytes, a multiple of 8)."""
    ni = items * index_bytes
    nv = items * value_bytes
    return ni, nv, ni + -(-nv // 8) * 8


def topk_sharded_rows(
    x: "torch.Tensor",
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    gather_to: Optional[int] = None,
    group: Optional["ProcessGroup"] = None,
    timeout: Optional[timedelta] = _TIMEOUT,
    check: str = "once",
    **options: Any,
) -> ShardedRows:
    """Top-k of this rank's rows. ``x`` is this rank's shard of the rows, split along dimension
    0 (which may differ in size between ranks); the top-k is taken along ``dim`` (not 0) with
    :func:`rtopk.topk` (``options``: ``algo``, ``max_iter``, ``precision``, ``recall``,
    ``indices_dtype``). With ``gather_to=r``, rank ``r`` also receives every rank's results,
    concatenated in rank order (one gather of one packed buffer per rank).

    ``k``, ``dim``, the dtype, the flags, ``gather_to`` and the other dimensions must agree
    across ranks, or every rank raises :class:`ValueError`. With ``check="once"`` (default) the
    ranks agree on the first call of each request only (the module docstring says what a
    request is); later calls communicate only with ``gather_to`` (one gather, no host
    synchronisation) — without it, none at all, and a rank's row count may then change from
    call to call freely. With ``gather_to`` the row counts are part of the request: **every
    rank must change its request together**, or the collectives mismatch (the module docstring
    says what then happens). ``check="always"`` agrees on every call. ``timeout`` bounds the
    wait at the agreement (gloo's monitored barrier; ``None``: no barrier)."""
    dist = _dist()
    error: Optional[Exception] = None
    to = -1 if gather_to is None else gather_to
    frozen = _freeze(options)
    key = None
    if frozen is not None and _is_tensor(x):
        rows = int(x.shape[0]) if gather_to is not None and x.dim() > 0 else None
        request = (tuple(x.shape[1:]), rows, x.dtype, x.device, k, dim, largest, sorted)
        key = _key("sharded", _group_key(dist, group), *request, gather_to, frozen)
    plan: Optional[_Sharded] = _remembered(key, check)
    if plan is None:
        comm = _comm_device(dist, group, x)
        world, rank = dist.get_world_size(group), dist.get_rank(group)
        d = 0
        try:
            _check_mode(check)
            d = _normalize_dim(x, dim)
            if d == 0:
                raise ValueError("the rows are sharded along dimension 0: select along another dim")
            if isinstance(to, bool) or not isinstance(to, int) or not -1 <= to < world:
                raise ValueError(f"gather_to must be a rank of the group (0..{world - 1})")
            row = _request(1, x, k, d, largest, sorted, free_dim=0, gather_to=to)
        except _ERRORS as e:
            error, row = e, _refused(e)
        counts = _agree(dist, row, error, comm, group, timeout)
        dst = to
        if gather_to is not None and group is not None:
            # `gather_to` is a rank of `group`; the collectives take the global rank
            dst = dist.get_global_rank(group, gather_to)
        plan = _Sharded(d, rank, tuple(counts), dst, comm)
        _remember(key, check, plan)
    local = topk(x, k, plan.dim, largest, sorted, **options)
    if gather_to is None:
        return ShardedRows(local.values, local.indices, None, None)
    all_values, all_indices = _gather_rows(dist, local, plan, gather_to, group)
    return ShardedRows(local.values, local.indices, all_values, all_indices)


def _gather_rows(
    dist: Any, local: TopK, plan: _Sharded, gather_to: int, group: Optional["ProcessGroup"]
) -> Tuple[Any, Any]:
    """Every rank's rows of ``local`` on rank ``gather_to`` (None elsewhere): one gather of a
    packed buffer (indices, then values), padded to the most rows a rank holds."""
    import torch

    values, indices = local.values, local.indices
    tail = tuple(values.shape[1:])
    width = math.prod(tail)
    most = max(plan.counts)
    ni, nv, size = _layout(most * width, indices.element_size(), values.element_size())
    mine = plan.counts[plan.rank] * width
    if size == 0:
        # nothing to send (k = 0 or no rows anywhere): every rank knows it, none communicates
        if plan.rank != gather_to:
            return None, None
        return values.new_empty((sum(plan.counts), *tail)), indices.new_empty(
            (sum(plan.counts), *tail)
        )
    send = torch.empty(size, dtype=torch.uint8, device=plan.comm)
    send[:ni].view(indices.dtype)[:mine].copy_(indices.reshape(-1))
    send[ni : ni + nv].view(values.dtype)[:mine].copy_(values.reshape(-1))
    if plan.rank != gather_to:
        dist.gather(send, None, dst=plan.dst, group=group)
        return None, None
    world = len(plan.counts)
    every = torch.empty(world * size, dtype=torch.uint8, device=plan.comm)
    dist.gather(send, list(every.view(world, size).unbind(0)), dst=plan.dst, group=group)
    table = every.view(world, size)
    every_i = table[:, :ni].view(indices.dtype)
    every_v = table[:, ni : ni + nv].view(values.dtype)
    all_i = torch.cat([every_i[r, : c * width] for r, c in enumerate(plan.counts)])
    all_v = torch.cat([every_v[r, : c * width] for r, c in enumerate(plan.counts)])
    shape = (sum(plan.counts), *tail)
    return all_v.view(shape).to(values.device), all_i.view(shape).to(indices.device)


def topk_split_rows(
    x: "torch.Tensor",
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    group: Optional["ProcessGroup"] = None,
    timeout: Optional[timedelta] = _TIMEOUT,
    check: str = "once",
    **options: Any,
) -> TopK:
    """Top-k of rows split along ``dim`` across ranks: rank ``r`` holds elements
    ``offset_r .. offset_r + x.shape[dim] - 1`` of every row, ``offset_r`` the sum of the lower
    ranks' sizes (shards may be uneven, even empty). Returns ``TopK(values, indices)`` of the
    whole rows — indices global, int64 unless ``indices_dtype`` says otherwise — on every rank,
    identical to :func:`rtopk.topk` on the concatenated rows, sorted and smallest modes
    included. ``options`` (``algo``, ``indices_dtype``) go to the local selections; the search
    is exact (early stopping, a precision or a recall target on a shard is not that of the
    row).

    The other dimensions, ``k``, the dtype and the flags must agree across ranks, or every rank
    raises :class:`ValueError`. With ``check="once"`` (default) the ranks agree, and learn each
    other's shard sizes, on the first call of each request only (the module docstring says
    what a request is: this rank's shard size is part of it); later calls run one all-gather of
    the candidates and no host synchronisation. **Every rank must change its request
    together**, or the collectives mismatch (the module docstring says what then happens).
    ``check="always"`` agrees on every call. ``timeout`` bounds the wait at the agreement
    (gloo's monitored barrier; ``None``: no barrier). Whether splitting is worth it at all:
    :func:`split_pays`."""
    hot_key = _hot_key(x, k, dim, largest, sorted, group, check, options)
    if hot_key is not None:
        hot = _HOT.get(hot_key)
        if hot is not None:
            return _run_replay(x, hot, hot_key[-2])
    dist = _dist()
    frozen = _freeze(options)
    key = None
    if frozen is not None and _is_tensor(x):
        request = (tuple(x.shape), x.dtype, x.device, k, dim, largest, sorted)
        key = _key("split", _group_key(dist, group), *request, frozen)
    plan: Optional[_Split] = _remembered(key, check)
    index_dtype = options.get("indices_dtype")
    local = {n: v for n, v in options.items() if n != "indices_dtype"}
    call = _Call(k, largest, sorted, group, index_dtype, local)
    if plan is not None and _replayable(plan, x, local):
        replay = plan.replays.get(_stream_id(x))
        if replay is not None:
            return _run_replay(x, _keep_hot(hot_key, plan, replay, call), _stream_id(x))
    if plan is None:
        plan = _agree_split(dist, x, k, dim, largest, sorted, group, timeout, check, options)
        _remember(key, check, plan)
        got = _select_split(dist, x, plan, call)
        # the first call synchronised at the agreement anyway: capture the merge now, its
        # kernels built by the call above
        if key is not None and check == "once" and _replayable(plan, x, local):
            replay = _capture(x, plan, call)
            if replay is not None:
                plan.replays[_stream_id(x)] = replay
                _keep_hot(hot_key, plan, replay, call)
        return got
    return _select_split(dist, x, plan, call)


def _hot_key(
    x: Any,
    k: Any,
    dim: Any,
    largest: Any,
    sorted: Any,
    group: Any,
    check: str,
    options: Dict[str, Any],
) -> Optional[Tuple[Any, ...]]:
    """The key of a call the hot path may take — a CUDA tensor, check="once", plain
    arguments, no capture in progress — or None: the process group (the default one resolved:
    None once destroyed), the request, the current device and stream. The types are part of
    the test: ``True == 1`` must not find a call of ``k = 1``."""
    if check != "once" or type(k) is not int or type(dim) is not int:
        return None
    if type(largest) is not bool or type(sorted) is not bool:
        return None
    t = _fast()
    if type(x) is not t.tensor or not x.is_cuda or t.capturing():
        return None
    frozen = _freeze(options) if options else ()
    if frozen is None:
        return None
    world = t.world()
    if world is None:
        return None  # no process group: the general path says so
    index = x.get_device()
    pg = group if group is not None else world
    return (
        pg,
        x.shape,
        x.dtype,
        index,
        k,
        dim,
        largest,
        sorted,
        frozen,
        t.stream(index),
        t.device(),
    )


def _keep_hot(key: Optional[Hashable], plan: _Split, replay: _Replay, call: _Call) -> _Hot:
    """``(plan, replay, call)`` as a hot entry, kept under ``key`` where there is one."""
    hot = _Hot(plan, replay, call)
    if key is not None:
        _HOT[key] = hot
    return hot


class _Fast(NamedTuple):
    """torch's functions the hot path calls, looked up once (the module imports torch lazily)."""

    tensor: Any
    capturing: Any
    stream: Any
    device: Any
    world: Any
    all_gather: Any


_FAST: List[_Fast] = []


def _fast() -> _Fast:
    if not _FAST:
        import torch
        import torch.distributed as dist

        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _FAST.append(
            _Fast(
                torch.Tensor,
                torch.cuda.is_current_stream_capturing,
                raw
                if raw is not None
                else (lambda i: int(torch.cuda.current_stream(i).cuda_stream)),
                torch.cuda.current_device,
                lambda: dist.group.WORLD if dist.is_available() and dist.is_initialized() else None,
                dist.all_gather_into_tensor,
            )
        )
    return _FAST[0]


def _agree_split(
    dist: Any,
    x: "torch.Tensor",
    k: int,
    dim: int,
    largest: bool,
    sorted: bool,
    group: Optional["ProcessGroup"],
    timeout: Optional[timedelta],
    check: str,
    options: Dict[str, Any],
) -> _Split:
    """The agreement of a :func:`topk_split_rows` request: every rank's shard size, checked."""
    import torch

    comm = _comm_device(dist, group, x)
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    error: Optional[Exception] = None
    d = 0
    try:
        _check_mode(check)
        if (
            options.get("max_iter") is not None
            or options.get("precision", 0.0) != 0.0
            or options.get("recall") is not None
        ):
            raise ValueError(
                "split rows are selected exactly: max_iter, precision and recall apply per row"
            )
        d = _normalize_dim(x, dim)
        row = _request(0, x, k, d, largest, sorted, free_dim=d, gather_to=-1)
    except _ERRORS as e:
        error, row = e, _refused(e)
    sizes = _agree(dist, row, error, comm, group, timeout)
    # every rank has the same sizes from here on: the errors below are raised on every rank
    total = sum(sizes)
    if k > total:
        raise ValueError(f"k = {k} is out of range for rows of {total} elements in all")
    if options.get("indices_dtype") == torch.int32 and total > torch.iinfo(torch.int32).max:
        raise ValueError(f"rows of {total} elements need int64 indices")
    keep = tuple(min(k, s) for s in sizes)
    cols = None
    if any(c < k for c in keep):
        where = [r * k + j for r, c in enumerate(keep) for j in range(c)]
        cols = torch.tensor(where, dtype=torch.int64, device=comm)
    offsets = tuple(sum(sizes[:r]) for r in range(world))
    return _Split(d, rank, world, offsets, keep, cols, comm, {})


def _replayable(plan: _Split, x: "torch.Tensor", options: Dict[str, Any]) -> bool:
    """Whether a call may run the captured merge: NCCL on the input's GPU, the current one;
    every rank sending k candidates per row; the GPU kernel (another ``algo`` may read the
    device on the host, which a capture forbids); and no capture of the caller's in progress
    (the call is then itself captured, eagerly)."""
    import torch

    return (
        plan.cols is None
        and plan.keep[plan.rank] > 0
        and plan.comm.type == "cuda"
        and x.device == plan.comm
        and options.keys() <= {"algo"}
        and options.get("algo", "auto") in ("auto", "cuda")
        and x.device.index == torch.cuda.current_device()
        and not torch.cuda.is_current_stream_capturing()
    )


def _stream_id(x: "torch.Tensor") -> int:
    import torch

    return int(torch.cuda.current_stream(x.device).cuda_stream)


class _Packed(NamedTuple):
    """Where an answer lies in a packed buffer of 8-byte words: the indices first, the values
    from word ``at``; both ``shape`` (``(*lead, k)``, contiguous)."""

    index_dtype: Any
    value_dtype: Any
    at: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    value_size: int


def _pack_layout(lead: Tuple[int, ...], k: int, index_dtype: Any, x: "torch.Tensor") -> _Packed:
    """The packed answer's layout for ``(*lead, k)`` results of ``x``'s dtype."""
    import torch

    items = math.prod(lead) * k
    index_bytes = items * torch.empty(0, dtype=index_dtype).element_size()
    shape = (*lead, k)
    strides = tuple(math.prod(shape[d + 1 :]) for d in range(len(shape)))
    return _Packed(index_dtype, x.dtype, -(-index_bytes // 8), shape, strides, x.element_size())


def _pack_words(p: _Packed) -> int:
    """The packed buffer's length in 8-byte words."""
    return p.at + -(-math.prod(p.shape) * p.value_size // 8)


def _unpack(buf: "torch.Tensor", p: _Packed) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """``(values, indices)``: views of a packed int64 buffer ``buf`` (two operations each at
    most: a reinterpretation and one strided view)."""
    import torch

    index = buf if p.index_dtype == torch.int64 else buf.view(p.index_dtype)
    indices = index.as_strided(p.shape, p.strides, 0)
    values = buf.view(p.value_dtype).as_strided(p.shape, p.strides, p.at * (8 // p.value_size))
    return values, indices


def _capture(x: "torch.Tensor", plan: _Split, call: _Call) -> Optional[_Replay]:
    """The merge of ``plan``'s request, captured in a CUDA graph on ``x``'s device (nothing
    runs): static send and receive buffers, and over the received candidates every rank's
    offset added to its local indices, the merge and the gather of the global indices, written
    into one packed output buffer. The all-gather stays out of the graph: a graph holding an
    NCCL collective keeps the communicator from being destroyed while it lives. The buffers
    live as long as the plan is remembered; None (the call stays eager) where they would pass
    :data:`_REPLAY_MAX_BYTES` or the capture fails."""
    import torch

    from . import _eager

    k = call.k
    lead = tuple(torch.movedim(x, plan.dim, -1).shape[:-1])
    layout = _layout(math.prod(lead) * k, 8, x.element_size())
    ni, nv, size = layout
    if plan.world * size > _REPLAY_MAX_BYTES:
        return None
    send = torch.zeros(size, dtype=torch.uint8, device=plan.comm)
    every = torch.zeros(plan.world * size, dtype=torch.uint8, device=plan.comm)
    offsets = torch.tensor(plan.offsets, dtype=torch.int64, device=plan.comm)
    packed = _pack_layout(lead, k, call.index_dtype or torch.int64, x)
    out = torch.zeros(_pack_words(packed), dtype=torch.int64, device=plan.comm)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            _merge_into(_unpack(out, packed), every, layout, x, plan, call, offsets)
    except RuntimeError:
        return None
    launch = None
    if plan.dim == x.dim() - 1:
        launch = _eager._request(k, call.largest, False, x, x.get_device())
    send_values = send[ni : ni + nv].view(x.dtype).view(*lead, k)
    send_indices = send[:ni].view(torch.int64).view(*lead, k)
    return _Replay(
        graph,
        send,
        send_values,
        send_indices,
        (send_values.data_ptr(), send_indices.data_ptr()),
        every,
        offsets,
        out,
        packed,
        launch,
    )


def _run_replay(x: "torch.Tensor", hot: _Hot, stream: int) -> TopK:
    """The hot path of a captured request: the local selection into the send buffer, the
    all-gather into the graph's receive buffer, the replay (the merge), the answer cloned out
    of the graph's buffer in one copy (the next replay overwrites it). Nothing is read on the
    host; ``stream`` is torch's current stream of ``x``'s device."""
    from . import _native

    plan, replay, call = hot
    if replay.launch is not None and x.is_contiguous() and not x.is_neg():
        m = x.shape[-1]
        values_at, indices_at = replay.send_pointers
        pointers = (x.data_ptr(), values_at, indices_at, 0, 0, 0, 0, 0)
        _native.cuda_launch(replay.launch, x.numel() // m, m, pointers, stream)
    else:
        import torch

        rows = torch.movedim(x, plan.dim, -1)
        local = topk(rows, call.k, -1, call.largest, False, **call.options)
        replay.send_values.copy_(local.values)
        replay.send_indices.copy_(local.indices)
    _fast().all_gather(replay.every, replay.send, group=call.group)
    replay.graph.replay()
    values, indices = _unpack(replay.out.clone(), replay.packed)
    if plan.dim != x.dim() - 1:
        import torch

        values, indices = torch.movedim(values, -1, plan.dim), torch.movedim(indices, -1, plan.dim)
    return TopK(values, indices)


def _candidates(
    every: "torch.Tensor",
    layout: Tuple[int, int, int],
    count: int,
    x: "torch.Tensor",
    plan: _Split,
    k: int,
    offsets: Optional["torch.Tensor"] = None,
) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """Every row's candidates from every rank's packed buffer in ``every`` (all-gathered):
    ``(count, world · k)`` global indices and values, on ``x``'s device. ``offsets`` (one per
    rank) are added to the received indices where the ranks sent local ones."""
    import torch

    ni, nv, size = layout
    table = every.view(plan.world, size)
    # (world, rows, k) -> (rows, world · k): rank order is global index order (a shard's
    # candidates come in index order, sorted=False)
    cand_i = table[:, :ni].view(torch.int64).view(plan.world, count, k)
    cand_v = table[:, ni : ni + nv].view(x.dtype).view(plan.world, count, k)
    if offsets is not None:
        cand_i = cand_i + offsets.view(plan.world, 1, 1)
    cand_i = cand_i.permute(1, 0, 2).reshape(count, plan.world * k)
    cand_v = cand_v.permute(1, 0, 2).reshape(count, plan.world * k)
    if plan.cols is not None:
        cand_i = cand_i.index_select(1, plan.cols)
        cand_v = cand_v.index_select(1, plan.cols)
    if plan.comm != x.device:
        cand_i, cand_v = cand_i.to(x.device), cand_v.to(x.device)
    return cand_i, cand_v


def _merge(
    every: "torch.Tensor",
    layout: Tuple[int, int, int],
    lead: Tuple[int, ...],
    x: "torch.Tensor",
    plan: _Split,
    call: _Call,
) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """The eager merge of every rank's packed candidates in ``every`` (all-gathered, global
    indices): the answer's values and global indices, ``(*lead, k)``, in fresh tensors on
    ``x``'s device (``x``: the rank's input, its dtype and device)."""
    import torch

    shape = (*lead, call.k)
    values = torch.empty(shape, dtype=x.dtype, device=x.device)
    indices = torch.empty(shape, dtype=call.index_dtype or torch.int64, device=x.device)
    _merge_into((values, indices), every, layout, x, plan, call)
    return values, indices


def _merge_into(
    out: Tuple["torch.Tensor", "torch.Tensor"],
    every: "torch.Tensor",
    layout: Tuple[int, int, int],
    x: "torch.Tensor",
    plan: _Split,
    call: _Call,
    offsets: Optional["torch.Tensor"] = None,
) -> None:
    """The merge of every rank's candidates in ``every`` (``offsets``, one per rank, added to
    the received indices where the ranks sent local ones, as the captured graph's do) straight
    into ``out``, ``(values, indices)`` of shape ``(*lead, k)`` on ``x``'s device — the
    candidates' top-k launched with its values written there on a GPU, the gather of their
    global indices written there too (int64 indices; another index type through one
    conversion)."""
    import torch

    from . import _eager, _native

    k = call.k
    count = math.prod(out[0].shape[:-1])
    cand_i, cand_v = _candidates(every, layout, count, x, plan, k, offsets)
    values, indices = out[0].view(count, k), out[1].view(count, k)
    index = cand_v.get_device()
    request = None
    if cand_v.is_cuda and cand_v.is_contiguous() and not call.options:
        request = _eager._request(k, call.largest, call.sorted, cand_v, index)
    if request is not None:
        best = torch.empty((count, k), dtype=torch.int64, device=cand_v.device)
        pointers = (cand_v.data_ptr(), values.data_ptr(), best.data_ptr(), 0, 0, 0, 0, 0)
        _native.cuda_launch(request, count, cand_v.shape[1], pointers, _fast().stream(index))
    else:
        got = topk(cand_v, k, -1, call.largest, call.sorted, **call.options)
        values.copy_(got.values)
        best = got.indices
    if indices.dtype == torch.int64:
        torch.gather(cand_i, 1, best, out=indices)
    else:
        indices.copy_(torch.gather(cand_i, 1, best))


def _select_split(dist: Any, x: "torch.Tensor", plan: _Split, call: _Call) -> TopK:
    """The hot path: local selection, one all-gather of a packed buffer, the merge; no value
    of the device is read on the host."""
    import torch

    k = call.k
    rows = torch.movedim(x, plan.dim, -1)
    lead = tuple(rows.shape[:-1])
    if k == 0:
        empty = rows.new_empty((*lead, 0))
        none = torch.empty((*lead, 0), dtype=call.index_dtype or torch.int64, device=x.device)
        return TopK(torch.movedim(empty, -1, plan.dim), torch.movedim(none, -1, plan.dim))
    count = math.prod(lead)
    ni, nv, size = _layout(count * k, 8, x.element_size())
    # every rank sends k candidates per row (a collective's tensors have one shape); a rank
    # with fewer leaves the rest unwritten, and plan.cols skips it
    send = torch.empty(size, dtype=torch.uint8, device=plan.comm)
    mine = plan.keep[plan.rank]
    if mine > 0:
        local = topk(rows, mine, -1, call.largest, False, **call.options)
        got_i, got_v = local.indices, local.values
        if got_i.device != plan.comm:
            got_i, got_v = got_i.to(plan.comm), got_v.to(plan.comm)
        out_i = send[:ni].view(torch.int64).view(*lead, k)[..., :mine]
        torch.add(got_i, plan.offsets[plan.rank], out=out_i)
        send[ni : ni + nv].view(x.dtype).view(*lead, k)[..., :mine].copy_(got_v)
    every = torch.empty(plan.world * size, dtype=torch.uint8, device=plan.comm)
    dist.all_gather_into_tensor(every, send, group=call.group)
    values, found = _merge(every, (ni, nv, size), lead, x, plan, call)
    return TopK(torch.movedim(values, -1, plan.dim), torch.movedim(found, -1, plan.dim))
