#!/usr/bin/env python3
"""A MaxK-GNN trained with rtopk.topk and with torch.topk: the same losses, step for step.

MaxK (MaxK-GNN, Peng et al., ASPLOS 2024) replaces ReLU by keeping the k largest entries of
each hidden row and zeroing the rest: ``maxk(h) = zeros.scatter(-1, topk(h).indices,
topk(h).values)``. Its gradient reaches exactly the kept entries — the backward of top-k
(the values' gradient scattered at the indices), which ``rtopk.topk`` provides through its
custom op's autograd. The top-k runs on every hidden row of every layer, forward pass after
forward pass: the row-wise top-k RTop-K was made for.

The model is a 3-layer GCN (``H' = maxk(Â H W)``, Â the symmetrically normalised adjacency
with self-loops, sparse) on a synthetic stochastic-block-model graph whose node features are
noisy class centroids — or, with ``--pyg`` where torch_geometric is installed, the same model
with ``torch_geometric.nn.GCNConv``. Two copies with identical initial weights train side by
side on the same data, one with each top-k; the hidden rows are continuous values, so both
top-k calls select the same entries and the losses must agree (equal values straddling the
k-th place — a float coincidence, a few rows in tens of millions — are counted and reported:
there torch.topk's choice is unspecified, rtopk's the lower index). Reports the top-k time
and the epoch time of each; exits 1 if a loss differs.

With ``--recall R`` a third copy trains with ``rtopk.topk(h, k, recall=R)`` (docs/contract.md
§6: at least ceil(R k) of each row's top k, the search stopping early), from the same initial
weights; its losses and final test accuracy are reported beside the exact run's (MaxK-GNN
trains as well with early stopping: RTop-K, Fig. 5).

    python examples/maxk_gnn.py                 # CPU
    python examples/maxk_gnn.py --device cuda   # the GPU kernel
    python examples/maxk_gnn.py --recall 0.95   # and an approximate copy
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Callable, Dict, List, Tuple

import rtopk
import torch
import torch.nn.functional as F

TopK = Callable[[torch.Tensor, int], Tuple[torch.Tensor, torch.Tensor]]


class Timer:
    """Accumulated time of the top-k calls: CUDA events on a GPU, wall clock on the CPU."""

    def __init__(self, device: torch.device) -> None:
        self.cuda = device.type == "cuda"
        self.pairs: List[Tuple[Any, Any]] = []
        self.cpu_s = 0.0

    def run(self, fn: Callable[[], Any]) -> Any:
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            out = fn()
            end.record()
            self.pairs.append((start, end))
            return out
        t0 = time.perf_counter()
        out = fn()
        self.cpu_s += time.perf_counter() - t0
        return out

    def seconds(self) -> float:
        if self.cuda:
            torch.cuda.synchronize()
            return sum(s.elapsed_time(e) for s, e in self.pairs) / 1e3
        return self.cpu_s


def maxk(h: torch.Tensor, k: int, topk: TopK, timer: Timer, ties: List[int]) -> torch.Tensor:
    """Keeps the k largest entries of each row of h, zeroes the rest."""
    values, indices = timer.run(lambda: topk(h, k))
    with torch.no_grad():  # equal values straddling the k-th place: the two could differ
        kth = values.min(dim=-1, keepdim=True).values
        ties[0] += int(((h >= kth).sum(dim=-1) > k).sum())
    return torch.zeros_like(h).scatter(-1, indices, values)


class MaxKGCN(torch.nn.Module):
    def __init__(self, features: int, hidden: int, classes: int, k: int, pyg: bool) -> None:
        super().__init__()
        self.k = k
        dims = [features, hidden, hidden, classes]
        if pyg:
            from torch_geometric.nn import GCNConv

            self.convs = torch.nn.ModuleList(GCNConv(a, b) for a, b in zip(dims, dims[1:]))
        else:
            self.convs = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(dims, dims[1:]))
        self.pyg = pyg

    def forward(
        self, x: torch.Tensor, graph: Any, topk: TopK, timer: Timer, ties: List[int]
    ) -> torch.Tensor:
        h = x
        for i, conv in enumerate(self.convs):
            h = conv(h, graph) if self.pyg else torch.sparse.mm(graph, conv(h))
            if i + 1 < len(self.convs):
                h = maxk(h, self.k, topk, timer, ties)
        return h


def sbm_graph(nodes: int, classes: int, degree: float, seed: int) -> Tuple[torch.Tensor, ...]:
    """A stochastic block model: edges mostly within a class; returns (edge_index, labels)."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, classes, (nodes,), generator=g)
    src = torch.randint(0, nodes, (nodes * int(degree),), generator=g)
    same = torch.rand(src.shape, generator=g) < 0.8
    # an in-class partner for 80% of the edges, anyone for the rest
    by_class = [torch.nonzero(labels == c).flatten() for c in range(classes)]
    dst = torch.randint(0, nodes, src.shape, generator=g)
    for c in range(classes):
        pick = same & (labels[src] == c)
        members = by_class[c]
        dst[pick] = members[torch.randint(0, len(members), (int(pick.sum()),), generator=g)]
    edges = torch.cat([torch.stack([src, dst]), torch.stack([dst, src])], dim=1)
    return edges, labels


def normalized_adjacency(edges: torch.Tensor, nodes: int) -> torch.Tensor:
    """Â = D^-1/2 (A + I) D^-1/2, sparse (coalesced COO)."""
    loops = torch.arange(nodes)
    index = torch.cat([edges, torch.stack([loops, loops])], dim=1)
    a = torch.sparse_coo_tensor(index, torch.ones(index.shape[1]), (nodes, nodes)).coalesce()
    a = torch.sparse_coo_tensor(a.indices(), torch.ones_like(a.values()), a.shape).coalesce()
    deg = torch.sparse.sum(a, dim=1).to_dense()
    d = deg.pow(-0.5)
    i = a.indices()
    return torch.sparse_coo_tensor(i, d[i[0]] * d[i[1]], a.shape).coalesce()


def rtopk_topk(h: torch.Tensor, k: int) -> Tuple[torch.Tensor, torch.Tensor]:
    out = rtopk.topk(h, k, sorted=False)  # as torch_topk below: index order, no sort pass
    return out.values, out.indices


def recall_topk(recall: float) -> TopK:
    """rtopk.topk at a recall target (docs/contract.md §6)."""

    def topk(h: torch.Tensor, k: int) -> Tuple[torch.Tensor, torch.Tensor]:
        out = rtopk.topk(h, k, sorted=False, recall=recall)
        return out.values, out.indices

    return topk


def torch_topk(h: torch.Tensor, k: int) -> Tuple[torch.Tensor, torch.Tensor]:
    out = torch.topk(h, k, sorted=False)
    return out.values, out.indices


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--nodes", type=int, default=8192)
    ap.add_argument("--features", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("-k", type=int, default=32)
    ap.add_argument("--classes", type=int, default=8)
    ap.add_argument("--degree", type=float, default=8)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pyg", action="store_true", help="torch_geometric's GCNConv (if installed)")
    ap.add_argument("--json", help="write the record here")
    ap.add_argument("--recall", type=float, help="also train a copy at this recall target")
    args = ap.parse_args()
    device = torch.device(args.device)
    if args.pyg:
        try:
            import torch_geometric  # noqa: F401
        except ImportError:
            print("--pyg: torch_geometric is not installed; using plain torch", file=sys.stderr)
            args.pyg = False

    edges, labels = sbm_graph(args.nodes, args.classes, args.degree, args.seed)
    g = torch.Generator().manual_seed(args.seed + 1)
    centroids = torch.randn(args.classes, args.features, generator=g)
    x = centroids[labels] + 6.0 * torch.randn(args.nodes, args.features, generator=g)
    train = torch.rand(args.nodes, generator=g) < 0.5
    with torch.sparse.check_sparse_tensor_invariants(True):
        graph = edges if args.pyg else normalized_adjacency(edges, args.nodes)
    x, labels, train, graph = x.to(device), labels.to(device), train.to(device), graph.to(device)

    torch.manual_seed(args.seed + 2)
    models: Dict[str, MaxKGCN] = {
        "rtopk": MaxKGCN(args.features, args.hidden, args.classes, args.k, args.pyg).to(device)
    }
    models["torch"] = MaxKGCN(args.features, args.hidden, args.classes, args.k, args.pyg).to(device)
    models["torch"].load_state_dict(models["rtopk"].state_dict())
    topks: Dict[str, TopK] = {"rtopk": rtopk_topk, "torch": torch_topk}
    if args.recall is not None:
        name = f"rtopk@{args.recall:g}"
        models[name] = MaxKGCN(args.features, args.hidden, args.classes, args.k, args.pyg)
        models[name] = models[name].to(device)
        models[name].load_state_dict(models["rtopk"].state_dict())
        topks[name] = recall_topk(args.recall)
    opts = {name: torch.optim.Adam(m.parameters(), lr=0.01) for name, m in models.items()}
    record: Dict[str, Any] = {name: dict(losses=[], epoch_s=[], topk_s=[]) for name in models}
    ties = [0]
    for epoch in range(args.epochs):
        for name, model in models.items():
            timer = Timer(device)
            if device.type == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            opts[name].zero_grad()
            out = model(x, graph, topks[name], timer, ties)
            loss = F.cross_entropy(out[train], labels[train])
            loss.backward()
            opts[name].step()
            if device.type == "cuda":
                torch.cuda.synchronize()
            r = record[name]
            r["epoch_s"].append(time.perf_counter() - t0)
            r["topk_s"].append(timer.seconds())
            r["losses"].append(float(loss.detach()))
        a, b = record["rtopk"]["losses"][-1], record["torch"]["losses"][-1]
        print(
            f"epoch {epoch:3d}  loss rtopk {a:.7f}  torch {b:.7f}  "
            f"{'same' if a == b else f'differ by {abs(a - b):.2e}'}"
        )
    with torch.no_grad():
        acc = {
            n: float(
                (m(x, graph, topks[n], Timer(device), [0]).argmax(1) == labels)[~train]
                .float()
                .mean()
            )
            for n, m in models.items()
        }
    diffs = [abs(a - b) for a, b in zip(record["rtopk"]["losses"], record["torch"]["losses"])]
    # Same selections make the same arithmetic; only a non-deterministic kernel elsewhere (on
    # a GPU, e.g. atomics in torch_geometric's scatter) could move the last bits.
    tolerance = 0.0 if device.type == "cpu" and not args.pyg else 1e-5
    worst = max(d / max(abs(b), 1e-12) for d, b in zip(diffs, record["torch"]["losses"]))
    print(
        f"\nMaxK-GCN, {args.nodes} nodes, hidden {args.hidden}, k = {args.k}, "
        f"{args.epochs} epochs on {device} ({'torch_geometric' if args.pyg else 'plain torch'})"
    )
    print(
        f"{'top-k':<11} {'top-k ms/epoch':>15} {'epoch ms':>9} {'final loss':>11} {'test acc':>8}"
    )
    for name, r in record.items():
        skip = 1 if args.epochs > 1 else 0  # the first epoch includes warm-up (NVRTC, caches)
        tk = sum(r["topk_s"][skip:]) / max(len(r["topk_s"]) - skip, 1) * 1e3
        ep = sum(r["epoch_s"][skip:]) / max(len(r["epoch_s"]) - skip, 1) * 1e3
        r.update(topk_ms_per_epoch=tk, epoch_ms=ep, test_accuracy=acc[name])
        print(f"{name:<11} {tk:>15.3f} {ep:>9.2f} {r['losses'][-1]:>11.6f} {acc[name]:>8.3f}")
    if args.recall is not None:
        gap = acc["rtopk"] - acc[f"rtopk@{args.recall:g}"]
        print(f"test accuracy, exact minus recall {args.recall:g}: {100 * gap:+.2f} points")
    same = sum(d == 0.0 for d in diffs)
    print(
        f"losses identical at {same} of {len(diffs)} steps; largest relative difference "
        f"{worst:.2e} (tolerance {tolerance:g}); rows with a tie at the k-th value: {ties[0]}"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                dict(
                    args=vars(args),
                    device=str(device),
                    torch=torch.__version__,
                    rtopk=rtopk.__version__,
                    ties=ties[0],
                    max_rel_diff=worst,
                    record=record,
                ),
                f,
                indent=1,
            )
    if worst > tolerance:
        why = (
            f" ({ties[0]} rows had equal values straddling the k-th place, where "
            "torch.topk's choice is unspecified)"
            if ties[0]
            else ""
        )
        print(f"FAIL: the losses differ{why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
