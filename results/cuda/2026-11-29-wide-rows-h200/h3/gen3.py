import re, os
exec(open('/tmp/h/gen.py').read().split("HOST=")[0])
HOST=open('/tmp/h/host3.cu').read()
files=load('/work/main/crates/rtopk-cuda/kernels')
for elem,kind,tag in [("double",7,"f64"),("long long",8,"i64")]:
    out=["#include <cstring>"]+CONST+["typedef long long idx_t;",f"typedef {elem} elem_t;\n#define ELEM_KIND {kind}"]
    inline(files,'wide_rows.cu',set(),out)
    for name,epl,mb in [("c8",8,0),("b8_10",8,10),("b8_12",8,12),("c16",16,0),("b16_8",16,8),("c24",24,0),("b24_6",24,6),("b24_8",24,8)]:
        lb = f"WIDE_WARPS * 32, {mb}" if mb else "WIDE_WARPS * 32"
        out.append(f'__global__ void __launch_bounds__({lb}) {name}(RTOPK_ARGS) {{ rtopk_wide_rows_impl<{epl}, false>(RTOPK_PARAMS); }}')
    open(f'/work/main/devbin/h3/lb_{tag}.cu','w').write("\n".join(out)+"\n"+HOST)
