"""Where a fresh process's first ragged `rtopk.topk` on CUDA tensors spends its time, with the
kernel units shipped (no NVRTC): importing rtopk and its torch op, torch's own first use of the
clamp and int32 conversion the ragged path launched before this change ("warm": run ahead of the
call; "cold": not), the first call, the steady call. The per-row inputs are int64 tensors, as
torch.randint makes them. One child per variant, each with an empty kernel cache of its own.
(Copied from results/cuda/2026-11-30-shipped-units-h200/ragged_first.py, unchanged below.)"""

import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, os, sys, time
import torch
warm, sort = sys.argv[1] == "warm", sys.argv[2] == "sorted"
g = torch.Generator(device="cuda").manual_seed(1)
n, m, k = 64, 32768, 2048
x = torch.randn(n, m, device="cuda", generator=g)
lengths = torch.randint(1, m + 1, (n,), device="cuda", generator=g)
kk = torch.randint(1, k + 1, (n,), device="cuda", generator=g)
torch.cuda.synchronize()
t = [time.perf_counter()]
import rtopk, rtopk.ops
t.append(time.perf_counter())
if warm:
    lengths.clamp(0, m).to(torch.int32); kk.clamp(0, k).to(torch.int32)
    torch.cuda.synchronize()
t.append(time.perf_counter())
rtopk.topk(x, kk, lengths=lengths, width=k, sorted=sort)
torch.cuda.synchronize()
t.append(time.perf_counter())
rtopk.topk(x, kk, lengths=lengths, width=k, sorted=sort)
torch.cuda.synchronize()
t.append(time.perf_counter())
d = [round((b - a) * 1e3, 2) for a, b in zip(t, t[1:])]
print(json.dumps({"import_ms": d[0], "torch_warm_ms": d[1], "first_ms": d[2], "steady_ms": d[3],
                  "compiled": len(os.listdir(os.environ["RTOPK_CUDA_PTX_CACHE"]))
                  if os.path.isdir(os.environ["RTOPK_CUDA_PTX_CACHE"]) else 0}))
"""

for rep in range(2):
    for warm in ("cold", "warm"):
        for sort in ("sorted", "unsorted"):
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, RTOPK_CUDA_PTX_CACHE=cache)
                done = subprocess.run([sys.executable, "-c", CHILD, warm, sort], env=env,
                                      capture_output=True, text=True, timeout=120)
            out = done.stdout.strip() or done.stderr[-300:]
            print(f"64 x 32768, k per row <= 2048, lengths, torch {warm}, {sort}: {out}")
