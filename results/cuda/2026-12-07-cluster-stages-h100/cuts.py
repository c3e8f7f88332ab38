#!/usr/bin/env python3
"""Timing-only variants of the kernel files: a cluster row (cluster_rows.cu, cluster_row_of)
that returns after a stage, so that `rtopk bench cuda --kernel-dir` times each prefix of the
row's work (the method of docs/performance.md, "Where a short radix row's time goes"). Every
block of a row's cluster leaves at the same point, after the stage's last cluster barrier, and
a test no row passes keeps the stage's results alive. The answers are wrong: timing only.

    python3 cuts.py KERNELS OUT   # OUT/cut0 .. OUT/cut3, each a copy of KERNELS with its cut

cut0: at the row's start (the launch, the cluster's blocks scheduled, nothing read);
cut1: after load_row and the first cluster barrier; cut2: after cluster_range;
cut3: after the search (narrowing included), before select_topk; then, each after
cut2's stages, what a search is made of: sync16, sixteen cluster barriers (cluster_sync);
count16, sixteen counts over the cluster (count_ge: the block's keys compared and summed, a
cluster round)."""

import pathlib
import shutil
import sys

SRC, OUT = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
KEEP = "if ({v} == 0xdeadbeefu) opaque(p.out_idx)[0] = (idx_t)1; return;"
CUTS = {
    0: ("    u32 rank = cluster_ctarank(), size = cluster_nctarank();\n    u64 row_id = blockIdx.x / size;\n    const elem_t* row_in = at.in;\n",
        "return;"),
    1: ("    cluster_sync();  // every block started, its slots set\n", KEEP.format(v="(lane_min ^ lane_max)")),
    2: ("    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);\n", KEEP.format(v="(lo_key ^ hi_key)")),
    3: ("    // stage 3: select_topk — this block's elements in index order after the blocks before it\n",
        KEEP.format(v="(s.lo_key ^ s.hi_key ^ s.count_at_lo)")),
    "sync16": ("    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);\n",
               "for (int i = 0; i < 16; ++i) cluster_sync(); " + KEEP.format(v="(lo_key ^ hi_key)")),
    "count16": ("    cluster_range(row, lane_min, lane_max, &lo_key, &hi_key);\n",
                "u32 acc = 0u; for (u32 i = 0u; i < 16u; ++i) acc += row.count_ge(lo_key + ((hi_key - lo_key) >> 1) + i); "
                + KEEP.format(v="(acc ^ lo_key)")),
}
for cut, (anchor, code) in CUTS.items():
    dst = OUT / (f"cut{cut}" if isinstance(cut, int) else str(cut))
    shutil.copytree(SRC, dst, dirs_exist_ok=True)
    f = dst / "cluster_rows.cu"
    text = f.read_text()
    head, sep, tail = text.partition("__device__ void cluster_row_of(")
    assert sep and head.count(anchor) == 0 and tail.count(anchor) == 1, (cut, anchor)
    if cut == 3:
        tail = tail.replace(anchor, f"    {{ {code} }}\n" + anchor, 1)
    else:
        tail = tail.replace(anchor, anchor + f"    {{ {code} }}\n", 1)
    f.write_text(head + sep + tail)
    print(dst)
