"""bisect, heap and (k = 1) bucket through rtopk.topk on the CPU, f32 / f16 / bf16 rows of
M = 64 ... 16384, k = 1 ... 64 (k <= M/2), 2^21 N(0, 1) values a call, median of 9 calls after
a warm-up (ms). One JSON line a cell.

    python3 grid.py > grid_N.jsonl
"""
import sys, time, json, numpy as np, rtopk, ml_dtypes
rng=np.random.default_rng(0)
def t(f, reps=9):
    f(); ts=[]
    for _ in range(reps):
        a=time.perf_counter(); f(); ts.append(time.perf_counter()-a)
    return sorted(ts)[len(ts)//2]*1e3
TOTAL=1<<21
out=[]
for dt in ("float32","float16","bfloat16"):
    for m in (64,128,256,512,1024,2048,4096,8192,16384):
        n=TOTAL//m
        x=rng.standard_normal((n,m),dtype=np.float32)
        x = x.astype(np.float16) if dt=="float16" else x.astype(ml_dtypes.bfloat16) if dt=="bfloat16" else x
        for k in (1,2,4,8,16,32,64):
            if k>m//2: continue
            r={"dtype":dt,"m":m,"k":k}
            for algo in ("bisect","heap","bucket"):
                if algo=="bucket" and k>1: continue
                r[algo]=t(lambda: rtopk.topk(x,k,algo=algo,sorted=False))
            out.append(r)
            print(json.dumps(r), flush=True)
