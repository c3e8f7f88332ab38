import re, os
CONST=["#define CAND_CAP 128u","#define BLOCK_CAND_KEYS 16","#define BLOCK_CAND_CAP (32u * BLOCK_CAND_KEYS)","#define BLOCK_EPL 32","#define WARP_STAGE 2048u","#define BLOCK_STAGE 1024u","#define GROUPED_WARPS 8","#define PICK_LANES 8","#define PICK_WARPS 8","#define WIDE_WARPS 4"]
def inline(files, name, seen, out):
    if name in seen: return
    seen.add(name)
    for line in files[name].splitlines():
        m=re.match(r'#include "(.*)"', line)
        if m: inline(files, m.group(1), seen, out)
        elif line.strip()!='#pragma once': out.append(line)
def load(d): return {f: open(os.path.join(d,f)).read() for f in os.listdir(d)}
HOST=open('/tmp/h/host.cu').read()
def emit(name, files):
    for elem,kind,tag in [("double",7,"f64"),("long long",8,"i64")]:
        out=["#include <cstring>"]+CONST+["typedef long long idx_t;",f"typedef {elem} elem_t;\n#define ELEM_KIND {kind}"]
        inline(files,'wide_rows.cu',set(),out)
        for epl in (8,16,24,32):
            out.append(f'__global__ void __launch_bounds__(WIDE_WARPS * 32) k{epl}(RTOPK_ARGS) {{ rtopk_wide_rows_impl<{epl}, false>(RTOPK_PARAMS); }}')
        open(f'/work/main/devbin/h/{name}_{tag}.cu','w').write("\n".join(out)+"\n"+HOST)
new=load('/work/main/crates/rtopk-cuda/kernels'); old=load('/tmp/h/old')
emit('old', old); emit('new', new)
oldw=old['wide.cuh']; w=new['wide.cuh']
M="// The warp's least and greatest 64-bit key"
v=dict(new); v['wide.cuh']=w[:w.index(M)]+oldw[oldw.index('__device__ __forceinline__ u64 warp_min64'):]
emit('new_shfl', v)
v=dict(new); v['wide.cuh']=oldw[:oldw.index('__device__ __forceinline__ u64 warp_min64')]+w[w.index(M):]
emit('new_oldkey', v)
v=dict(new); v['wide_rows.cu']=old['wide_rows.cu']
emit('new_oldrows', v)
