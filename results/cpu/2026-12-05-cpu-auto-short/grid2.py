"""As grid.py: `long` — f32 / f16 / bf16 rows of 2^14 ... 2^20 at k = 1 and 2; `types` — int8,
int16, int32, int64 and float64 rows of 256 ... 8192 at k = 1 ... 32 (k <= M/8), the
integers uniform over their range. bisect, heap and bucket each.

    python3 grid2.py long > grid2_long.jsonl; python3 grid2.py types > grid2_types.jsonl
"""
import sys, time, json, numpy as np, rtopk, ml_dtypes
rng=np.random.default_rng(1)
def t(f, reps=9):
    f(); ts=[]
    for _ in range(reps):
        a=time.perf_counter(); f(); ts.append(time.perf_counter()-a)
    return sorted(ts)[len(ts)//2]*1e3
TOTAL=1<<21
def make(dt,n,m):
    if dt.startswith("int"):
        info=np.iinfo(dt); return rng.integers(info.min, info.max, (n,m), dtype=dt, endpoint=True)
    x=rng.standard_normal((n,m),dtype=np.float32)
    return x.astype(ml_dtypes.bfloat16) if dt=="bfloat16" else x.astype(dt)
which=sys.argv[1]
if which=="types":
    cells=[(dt,m,k) for dt in ("int32","float64","int64","int8","int16") for m in (256,1024,2048,4096,8192) for k in (1,2,4,8,16,32) if k*8<=m]
else:  # long rows at k = 1 and 2
    cells=[(dt,m,k) for dt in ("float32","float16","bfloat16") for m in (1<<14,1<<16,1<<18,1<<20) for k in (1,2)]
for dt,m,k in cells:
    n=max(TOTAL//m,1)
    x=make(dt,n,m)
    r={"dtype":dt,"m":m,"k":k}
    for algo in ("bisect","heap","bucket"):
        r[algo]=t(lambda: rtopk.topk(x,k,algo=algo,sorted=False))
    print(json.dumps(r), flush=True)
