import re, os
exec(open('/tmp/h/gen.py').read().split("HOST=")[0])
HOST=open('/tmp/h/host4.cu').read()
files=load('/work/main/crates/rtopk-cuda/kernels'); head=load('/tmp/h/head')
for elem,kind,tag in [("double",7,"f64"),("long long",8,"i64")]:
    out=["#include <cstring>"]+CONST+["typedef long long idx_t;",f"typedef {elem} elem_t;\n#define ELEM_KIND {kind}"]
    out.append("namespace head {")
    inline(head,'wide_rows.cu',set(),out)
    for name,epl in [("c8",8),("c16",16),("c24",24)]:
        out.append(f'__global__ void __launch_bounds__(WIDE_WARPS * 32) {name}(RTOPK_ARGS) {{ rtopk_wide_rows_impl<{epl}, false>(RTOPK_PARAMS); }}')
    out.append("}\nnamespace tree {")
    inline(files,'wide_rows.cu',set(),out)
    for name,epl in [("n8",8),("n16",16),("n24",24)]:
        out.append(f'__global__ void __launch_bounds__(WIDE_WARPS * 32) {name}(RTOPK_ARGS) {{ rtopk_wide_rows_impl<{epl}, false>(RTOPK_PARAMS); }}')
    out.append("}\nusing namespace tree; using head::c8; using head::c16; using head::c24;")
    open(f'/work/main/devbin/h4/sort_{tag}.cu','w').write("\n".join(out)+"\n"+HOST)
