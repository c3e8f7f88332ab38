# A CPU model of the value bins (docs/kernel.md, "Value bins"): value-phase tests per row from
# the row's min and max against from the k-th key's bin (992 bins, the kernel's margin), on
# normal rows and on the top of rows 8 times wider (a split's candidates); 200 rows each.
#     python3 bins_model.py > bins_model.txt
import numpy as np
f32=np.float32
def rounds(v, k, lo, hi):
    # value-phase bisection from [lo, hi] (values), counts v >= t; returns tests until count == k or stall
    n=0
    while True:
        t=f32((f32(lo)+f32(hi))*f32(0.5))
        if not (lo < t < hi): return n, False
        c=int((v>=t).sum()); n+=1
        if c==k: return n, True
        if c<k: hi=t
        else: lo=t
        if n>64: return n, False
def with_bins(v,k):
    lo,hi=f32(v.min()),f32(v.max()); B=992
    w=f32(hi-lo); scale=f32(f32(B)/w)
    b=np.minimum(((v-lo)*scale).astype(np.float32).astype(np.int64),B-1)
    h=np.bincount(b,minlength=B)
    cs=np.cumsum(h[::-1])[::-1]  # keys in bins >= i
    kb=max(i for i in range(B) if cs[i]>=k)
    mag=max(abs(lo),abs(hi)); margin=f32(w*f32(2**-16)+mag*f32(2**-21))
    nlo = lo if kb==0 else max(lo, f32(f32(lo+f32(f32(kb)/scale))-margin))
    nhi = hi if kb+1==B else min(hi, f32(f32(lo+f32(f32(kb+1)/scale))+margin))
    return rounds(v,k,nlo,nhi), h[kb]
rng=np.random.default_rng(0)
for m,k,kind in [(8192,1024,'normal'),(8192,512,'normal'),(8192,2048,'normal'),(6144,1024,'tail'),(12288,2048,'tail'),(16384,1024,'normal'),(4096,512,'normal')]:
    a=[];b=[];ib=[]
    for r in range(200):
        if kind=='normal': v=rng.standard_normal(m).astype(f32)
        else:
            x=rng.standard_normal(m*8).astype(f32); v=np.sort(x)[-m:]; rng.shuffle(v)  # a split's candidates: the top of a wider row
        a.append(rounds(v,k,f32(v.min()),f32(v.max()))[0]); (n,_),inb=with_bins(v,k); b.append(n); ib.append(inb)
    print(f"{kind} M={m} k={k}: plain {np.mean(a):.1f} (max {max(a)}), from bins {np.mean(b):.1f} (max {max(b)}), keys in the k-th bin {np.mean(ib):.1f}")
