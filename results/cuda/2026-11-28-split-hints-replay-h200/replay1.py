"""One NCCL rank on one GPU: the replay test's first part (tests/test_distributed.py,
_nccl_replay_cases) and its assertion that each request holds its merge's graph."""
import os, sys, tempfile
import torch, torch.distributed as dist
sys.path.insert(0, "crates/rtopk-py/tests")
import test_distributed as t

torch.cuda.set_device(0)
d = tempfile.mkdtemp()
dist.init_process_group("nccl", init_method=f"file://{d}/store", rank=0, world_size=1)
try:
    t._nccl_replay_cases(0, 1)
    print("replay cases: passed")
except ValueError as e:  # the last part needs two ranks (a shard shorter than k)
    print("replay cases: passed up to the two-rank part:", e)
plans = [p for p in t.rd._AGREED.values() if hasattr(p, "replays")]
print("plans", len(plans), "with replays", sum(bool(p.replays) for p in plans))
dist.destroy_process_group()
print("destroyed")
