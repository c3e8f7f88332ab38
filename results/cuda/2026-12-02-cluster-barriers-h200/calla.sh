#!/usr/bin/env bash
# Usage (from the repository root on the device): calla.sh — call a (record.md): where a cluster row's time goes
# and three kernel-file variants of d8c95b6's build (devbin/u1/rtopk), through --kernel-dir
# (variants.py writes them):
#   stamps: the committed cluster_rows.cu with clock64 stamps per stage and one printf by
#           thread 0 of the first and the last block of row 0's cluster;
#   kal:    every cluster barrier `.aligned` (all threads of a warp execute it together);
#   kae:    kal, and the first cluster barrier split: arrive once the slots are set, wait after
#           the load;
#   kall:   kae with CLUSTER_LOCAL_CAP 8192 and CLUSTER_ROUND_LEVELS 5.
# Each variant against the build's own kernels on single shapes (20 launches, alternated
# twice; ../2026-12-02-step-trigger-h200/one_table.py), Nsight Compute's kernel time of two.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/u1/rtopk; chmod +x $B
T=results/cuda/2026-12-02-step-trigger-h200
SHAPES="1x100000:2048 1x262144:2048 1x163840:2048 1x65536:512 1x500000:2048 1x40000:2048 16x131072:1024"
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_stamps
for c in $SHAPES; do sh=${c%:*}
  timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --kernel-dir devbin/stamps > $L/stamps_${sh}_${c#*:}.txt 2>&1
  echo "== stamps $c rc=$?" >> $S
done
$PY - $L >> $S <<'PY'
import glob, re, statistics, sys
for f in sorted(glob.glob(sys.argv[1] + "/stamps_*.txt")):
    rows = {}
    for line in open(f):
        if not line.startswith("STAGES"):
            continue
        t = line.split()
        rank = t[2]
        d = {t[i]: t[i + 1] for i in range(3, len(t) - 1, 2)}
        rows.setdefault(rank, []).append(d)
    print("##", f.split("/")[-1])
    for rank, ds in rows.items():
        keys = ["load", "sync0", "range", "value", "rest", "classify", "before", "emit", "total", "gns"]
        med = {k: statistics.median(int(d[k]) for d in ds) for k in keys}
        print(rank, "thr", ds[0]["thr"], "it4", ds[0]["it4"], "r4", ds[0]["r4"], "it", ds[0]["it"], "exit", ds[0]["exit"],
              " ".join(f"{k} {med[k]:.0f}" for k in keys), "n", len(ds))
    g0 = {}
    for rank, ds in rows.items():
        g0[rank] = [int(d["g0"]) for d in ds]
    if len(g0) == 2:
        a, b = g0.values()
        print("start skew ns (last - first block), median:", statistics.median(y - x for x, y in zip(a, b)))
PY
for v in kal kae kall; do mkdir -p $L/$v; done
for v in kal kae kall; do
  for i in 1 2; do for b in new old; do
    K=""; [ $b = new ] && K="--kernel-dir devbin/$v"
    export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b$v
    for c in $SHAPES; do sh=${c%:*}
      timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 20 --json $K > $L/$v/one_${b}_${i}_${sh}_${c#*:}.json 2>> $L/one.err
    done
  done; done
  echo "## $v" >> $S; $PY $T/one_table.py $L/$v >> $S 2>&1
done
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_old
for c in 1x262144:2048 1x100000:2048; do sh=${c%:*}
  timeout 90 ncu --metrics gpu__time_duration.sum --cache-control all -k regex:rtopk --launch-skip 3 --launch-count 5 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 5 > $L/ncu_${sh}.txt 2>&1
  echo "== ncu $c rc=$?" >> $S; grep -E "rtopk_|gpu__time" $L/ncu_${sh}.txt | head -12 >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
