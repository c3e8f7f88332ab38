"""Top-k across processes through ``torch.distributed`` (NCCL between GPUs, gloo on CPUs).

Two ways a workload outgrows one device, after Dr. Top-k (paper 004: each device selects
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

Both first all-gather a small metadata tensor (k, dtype, the shapes, the flags), so that ranks
that disagree raise the same :class:`ValueError` on every rank instead of waiting forever in a
mismatched collective. With gloo, a monitored barrier with ``timeout`` first names a rank that
never arrives (:class:`RuntimeError`); with NCCL the process group's own timeout applies (set it
with ``init_process_group(timeout=...)``).

What travels: :func:`topk_split_rows` sends ``min(k, shard) · (value + 8-byte index)`` per row
from every rank to every rank — nothing of the rows themselves; :func:`topk_sharded_rows` with
``gather_to`` sends each rank's ``rows · k`` values and indices to one rank.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional

from ._topk import TopK, topk

if TYPE_CHECKING:  # pragma: no cover
    import torch
    from torch.distributed import ProcessGroup

__all__ = ["ShardedRows", "topk_sharded_rows", "topk_split_rows"]

# The dtypes a rank may hold, by their code in the metadata exchange.
_DTYPES = ("float32", "float16", "bfloat16")
# Highest tensor rank the metadata tensor describes.
_MAX_NDIM = 8
# Fields ahead of the shape in the metadata tensor.
_FIELDS = ("k", "dtype", "largest", "sorted", "ndim", "dim")
# A shape entry that may differ between ranks (the sharded dimension).
_ANY = -1
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


def _dist() -> Any:
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError(
            "rtopk.distributed needs an initialised process group "
            "(torch.distributed.init_process_group)"
        )
    return dist


def _comm_device(group: Optional["ProcessGroup"], x: "torch.Tensor") -> "torch.device":
    """Where the group's collectives take their tensors: the input's GPU for NCCL, else CPU."""
    import torch

    return x.device if _dist().get_backend(group) == "nccl" else torch.device("cpu")


def _normalize_dim(x: "torch.Tensor", dim: int) -> int:
    if x.dim() == 0:
        raise ValueError("rtopk.distributed selects along a dimension: the input is a scalar")
    if not -x.dim() <= dim < x.dim():
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-x.dim()}, {x.dim() - 1}], "
            f"but got {dim})"
        )
    return int(dim % x.dim())


def _metadata(
    x: "torch.Tensor", k: int, dim: int, largest: bool, sorted: bool, free_dim: int
) -> List[int]:
    """The fields every rank must agree on; the size along ``free_dim`` may differ."""
    name = str(x.dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise TypeError(
            f"rtopk.distributed takes float32, float16 or bfloat16 tensors, not {x.dtype}"
        )
    if x.dim() > _MAX_NDIM:
        raise ValueError(f"tensors of more than {_MAX_NDIM} dimensions are not supported")
    shape = [_ANY if d == free_dim else int(s) for d, s in enumerate(x.shape)]
    head = [k, _DTYPES.index(name), int(largest), int(sorted), x.dim(), dim]
    return head + shape + [0] * (_MAX_NDIM - len(shape))


def _describe(fields: List[int]) -> str:
    k, code, largest, sorted_, ndim, dim = fields[: len(_FIELDS)]
    shape = ["*" if s == _ANY else str(s) for s in fields[len(_FIELDS) : len(_FIELDS) + ndim]]
    return (
        f"k={k}, dtype={_DTYPES[code]}, largest={bool(largest)}, sorted={bool(sorted_)}, "
        f"dim={dim}, shape=({', '.join(shape)})"
    )


def _all_gather_ints(
    values: List[int], x: "torch.Tensor", group: Optional["ProcessGroup"]
) -> List[List[int]]:
    """Every rank's ``values`` (lists of one length on every rank), in rank order."""
    import torch

    dist = _dist()
    mine = torch.tensor(values, dtype=torch.int64, device=_comm_device(group, x))
    every = [torch.empty_like(mine) for _ in range(dist.get_world_size(group))]
    dist.all_gather(every, mine, group=group)
    return [[int(v) for v in t.tolist()] for t in every]


def _agree(
    fields: List[int],
    x: "torch.Tensor",
    group: Optional["ProcessGroup"],
    timeout: Optional[timedelta],
) -> None:
    """Raises the same ValueError on every rank if any rank's ``fields`` differ."""
    dist = _dist()
    if timeout is not None and dist.get_backend(group) == "gloo":
        dist.monitored_barrier(group=group, timeout=timeout)
    seen = _all_gather_ints(fields, x, group)
    if any(s != seen[0] for s in seen):
        ranks = "; ".join(f"rank {r}: {_describe(s)}" for r, s in enumerate(seen))
        raise ValueError(f"ranks disagree on the top-k request: {ranks}")


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
    **options: Any,
) -> ShardedRows:
    """Top-k of this rank's rows. ``x`` is this rank's shard of the rows, split along dimension
    0 (which may differ in size between ranks); the top-k is taken along ``dim`` (not 0) with
    :func:`rtopk.topk` (``options``: ``algo``, ``max_iter``, ``precision``, ``recall``,
    ``indices_dtype``), with no communication. With ``gather_to=r``, rank ``r`` also receives
    every rank's results, concatenated in rank order (one gather of values and indices). ``k``,
    ``dim``, the dtype, the flags and the other dimensions must agree across ranks, or every
    rank raises :class:`ValueError`."""
    import torch

    dist = _dist()
    d = _normalize_dim(x, dim)
    if d == 0:
        raise ValueError("the rows are sharded along dimension 0: select along another dim")
    _agree(_metadata(x, k, d, largest, sorted, free_dim=0), x, group, timeout)
    local = topk(x, k, d, largest, sorted, **options)
    if gather_to is None:
        return ShardedRows(local.values, local.indices, None, None)
    device = _comm_device(group, x)
    counts = [c[0] for c in _all_gather_ints([x.shape[0]], x, group)]
    rows = max(counts)
    values = _padded(local.values, rows).to(device)
    indices = _padded(local.indices, rows).to(device)
    # `gather_to` is a rank of `group`; the collectives take the global rank
    dst = gather_to if group is None else dist.get_global_rank(group, gather_to)
    if dist.get_rank(group) != gather_to:
        dist.gather(values, None, dst=dst, group=group)
        dist.gather(indices, None, dst=dst, group=group)
        return ShardedRows(local.values, local.indices, None, None)
    every_v = [torch.empty_like(values) for _ in counts]
    every_i = [torch.empty_like(indices) for _ in counts]
    dist.gather(values, every_v, dst=dst, group=group)
    dist.gather(indices, every_i, dst=dst, group=group)
    all_values = torch.cat([v[:c] for v, c in zip(every_v, counts)]).to(x.device)
    all_indices = torch.cat([i[:c] for i, c in zip(every_i, counts)]).to(x.device)
    return ShardedRows(local.values, local.indices, all_values, all_indices)


def _padded(t: "torch.Tensor", rows: int) -> "torch.Tensor":
    """``t`` with dimension 0 padded to ``rows`` (a collective's tensors have one shape)."""
    import torch

    if t.shape[0] == rows:
        return t.contiguous()
    pad = t.new_zeros((rows - t.shape[0], *tuple(t.shape[1:])))
    return torch.cat([t, pad])


def topk_split_rows(
    x: "torch.Tensor",
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    group: Optional["ProcessGroup"] = None,
    timeout: Optional[timedelta] = _TIMEOUT,
    **options: Any,
) -> TopK:
    """Top-k of rows split along ``dim`` across ranks: rank ``r`` holds elements
    ``offset_r .. offset_r + x.shape[dim] - 1`` of every row, ``offset_r`` the sum of the lower
    ranks' sizes (shards may be uneven, even empty). Returns ``TopK(values, indices)`` of the
    whole rows — indices global, int64 unless ``indices_dtype`` says otherwise — on every rank,
    identical to :func:`rtopk.topk` on the concatenated rows, sorted and smallest modes
    included. ``options`` (``algo``, ``indices_dtype``) go to the local selections; the search
    is exact (early stopping, a precision or a recall target on a shard is not that of the
    row). The other
    dimensions, ``k``, the dtype and the flags must agree across ranks, or every rank raises
    :class:`ValueError`."""
    import torch

    dist = _dist()
    if (
        options.get("max_iter") is not None
        or options.get("precision", 0.0) != 0.0
        or options.get("recall") is not None
    ):
        raise ValueError(
            "split rows are selected exactly: max_iter, precision and recall apply per row"
        )
    index_dtype = options.pop("indices_dtype", None)
    d = _normalize_dim(x, dim)
    _agree(_metadata(x, k, d, largest, sorted, free_dim=d), x, group, timeout)
    sizes = [s[0] for s in _all_gather_ints([x.shape[d]], x, group)]
    total, rank = sum(sizes), dist.get_rank(group)
    if not 0 <= k <= total:
        raise ValueError(f"k = {k} is out of range for rows of {total} elements in all")
    if index_dtype == torch.int32 and total > torch.iinfo(torch.int32).max:
        raise ValueError(f"rows of {total} elements need int64 indices")
    rows = torch.movedim(x, d, -1)
    lead = tuple(rows.shape[:-1])
    if k == 0:
        empty = rows.new_empty((*lead, 0))
        none = torch.empty((*lead, 0), dtype=index_dtype or torch.int64, device=x.device)
        return TopK(torch.movedim(empty, -1, d), torch.movedim(none, -1, d))
    keep = [min(k, s) for s in sizes]
    device = _comm_device(group, x)
    # every rank sends k candidates, padded: a collective's tensors have one shape
    values = torch.zeros((*lead, k), dtype=x.dtype, device=device)
    indices = torch.zeros((*lead, k), dtype=torch.int64, device=device)
    if keep[rank] > 0:
        local = topk(rows, keep[rank], -1, largest, False, **options)
        values[..., : keep[rank]] = local.values.to(device)
        indices[..., : keep[rank]] = local.indices.to(device, torch.int64) + sum(sizes[:rank])
    every_v = [torch.empty_like(values) for _ in sizes]
    every_i = [torch.empty_like(indices) for _ in sizes]
    dist.all_gather(every_v, values, group=group)
    dist.all_gather(every_i, indices, group=group)
    # rank order is global index order (a shard's top-k comes back in index order)
    cand_v = torch.cat([v[..., :c] for v, c in zip(every_v, keep)], dim=-1).to(x.device)
    cand_i = torch.cat([i[..., :c] for i, c in zip(every_i, keep)], dim=-1).to(x.device)
    best = topk(cand_v, k, -1, largest, sorted, **options)
    found = torch.gather(cand_i, -1, best.indices.to(torch.int64))
    if index_dtype is not None:
        found = found.to(index_dtype)
    return TopK(torch.movedim(best.values, -1, d), torch.movedim(found, -1, d))
