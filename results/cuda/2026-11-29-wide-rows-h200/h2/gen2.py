import re, os
exec(open('/tmp/h/gen.py').read().split("HOST=")[0])
HOST=open('/tmp/h/host2.cu').read()
files=load('/work/main/crates/rtopk-cuda/kernels'); head=load('/tmp/h/head')
for elem,kind,tag in [("double",7,"f64"),("long long",8,"i64")]:
    out=["#include <cstring>"]+CONST+["typedef long long idx_t;",f"typedef {elem} elem_t;\n#define ELEM_KIND {kind}"]
    out.append("namespace head {")
    inline(head,'wide_rows.cu',set(),out)
    for name,epl in [("c8",8),("c16",16),("c24",24)]:
        out.append(f'__global__ void __launch_bounds__(WIDE_WARPS * 32) {name}(RTOPK_ARGS) {{ rtopk_wide_rows_impl<{epl}, false>(RTOPK_PARAMS); }}')
    out.append("}\nnamespace lanes {")
    inline(files,'wide_rows.cu',set(),out)
    for name,epl,lanes in [("k8",8,32),("k16",16,32),("k24",24,32),("h16",16,16),("h32",32,16),("q32",32,8)]:
        out.append(f'__global__ void __launch_bounds__(WIDE_WARPS * 32) {name}(RTOPK_ARGS) {{ rtopk_wide_rows_impl<{epl}, {lanes}, false>(RTOPK_PARAMS); }}')
    out.append("}\nusing namespace lanes; using head::c8; using head::c16; using head::c24;")
    open(f'/work/main/devbin/h2/lanes_{tag}.cu','w').write("\n".join(out)+"\n"+HOST)
