#!/usr/bin/env bash
# Call AD (1 x H200): the GPU tests of the build with the new split rule (new5), then the
# large-k grids (indexer, sampler) with that build and the one before it (new2) in one call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "old $(cat devbin/new2s/BINARY_COMMIT) new $(cat devbin/new5/BINARY_COMMIT)"; } | tee $o/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step gpu_ragged bash -c "timeout 110 devbin/new5/tests/gpu_ragged --ignored --test-threads 4 > $o/gpu_ragged.txt 2>&1"
tail -3 $o/gpu_ragged.txt
step gpu_raw bash -c "timeout 60 devbin/new5/tests/gpu_raw --ignored > $o/gpu_raw.txt 2>&1"
tail -2 $o/gpu_raw.txt
step gpu_steps bash -c "timeout 60 devbin/new5/tests/gpu --ignored every_step_kind > $o/gpu_steps.txt 2>&1"
tail -2 $o/gpu_steps.txt
for b in new old; do
  B=devbin/new5/rtopk; [ $b = old ] && B=devbin/new2s/rtopk
  step grid_$b bash -c "timeout 100 $B bench cuda --grid indexer,sampler --reps 15 --json > $o/grid_$b.json 2> $o/grid_$b.err"
done
python3 - $o/grid_old.json $o/grid_new.json <<'PY' | tee $o/grid_ab.txt
import json, sys, math
old, new = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda r: (r["n"], r["m"], r["k"], r["sorted"])
o = {key(r): r["median_ms"] for r in old}
rat = []
for r in new:
    if key(r) in o and not r["sorted"]:
        q = r["median_ms"] / o[key(r)]; rat.append(q)
        if abs(q - 1) > 0.03: print(f"N={r['n']:>4} M={r['m']:>8} k={r['k']:>5}  old {o[key(r)]*1e3:7.1f} us  new {r['median_ms']*1e3:7.1f} us  new/old {q:.3f}")
print(f"cells {len(rat)}  new/old geomean {math.exp(sum(map(math.log, rat))/len(rat)):.3f}  min {min(rat):.3f}  max {max(rat):.3f}")
PY
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_ad.tgz -C $o .
