#!/usr/bin/env bash
# Call a (1 x H200, from the repository root): devbin/r = the ragged cluster twin's build
# (rtopk_cluster_rows_ragged), devbin/b/whl = HEAD's kernels and plan (32a6729's wheel; 77e6c2a
# changed tests and comments only), devbin/kh = HEAD's kernel files. Correctness first, then the decode benchmark and the grids.
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/wn devbin/r/rtopk-*.whl >> $S 2>&1
python3 -m pip install -q --no-deps --target /tmp/wo devbin/b/whl/rtopk-*.whl >> $S 2>&1
chmod +x devbin/r/rtopk devbin/r/gpu devbin/r/gpu_ragged
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_new
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed|identical|differ' $L/$name.txt | tail -2 | tr '\n' ' ')" >> $S; }
# the GPU against the simulator and bisect: every ragged test (the ragged cluster twin among them)
t gpu_ragged timeout 240 devbin/r/gpu_ragged --ignored
t gpu_cluster timeout 120 devbin/r/gpu --ignored cluster every_step
# compute-sanitizer on ragged rows over clusters: lengths 0, 30001, 70000; k 5, 2048, 700; hints
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(7)
x = rng.standard_normal((3, 70000)).astype('<f4')
x[1, 30001:] = np.nan; x[2, ::997] = np.inf; x[2, 5::1009] = 0.25
np.save('/tmp/sx.npy', x)
np.save('/tmp/sl.npy', np.array([0, 30001, 70000], dtype=np.int64))
np.save('/tmp/sk.npy', np.array([5, 2048, 700], dtype=np.int64))
np.save('/tmp/sh.npy', np.array([np.nan, 0.5, 2.0], dtype='<f4'))
PY
for tool in memcheck racecheck synccheck; do
  for extra in "" "--hint /tmp/sh.npy" "--smallest --sorted"; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 devbin/r/rtopk select --algo cuda --input /tmp/sx.npy --k-per-row /tmp/sk.npy --lengths /tmp/sl.npy $extra --indices /tmp/si.npy --threshold /tmp/st.npy >> $L/sanitizer.txt 2>&1
    echo "sanitizer $tool [$extra] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
  done
done
PYTHONPATH=/tmp/wn python3 - >> $S 2>&1 <<'PY'
import numpy as np, rtopk
x = np.load('/tmp/sx.npy'); L = np.load('/tmp/sl.npy'); K = np.load('/tmp/sk.npy')
i = np.load('/tmp/si.npy')
want = rtopk.topk(x, K, lengths=L, sorted=True, largest=False)
print("sanitized CLI run (smallest, sorted) equals the CPU package:", bool(np.array_equal(np.asarray(want[1]), i)))
PY
t verify_f32 timeout 200 devbin/r/rtopk verify cuda --quick --dtype float32
t check timeout 100 env PYTHONPATH=/tmp/wn python3 bench/cluster_rows.py check
# the decode benchmark, new and old, the last session's 15 shapes
D="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
for b in new old; do
  w=/tmp/wn; [ $b = old ] && w=/tmp/wo
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 220 python3 bench/decode.py $D --steps 16 --out $OUT/decode_$b.json > $OUT/decode_$b.txt 2>&1
  echo "== decode_$b rc=$? $((SECONDS-s)) s" >> $S
done
# plain rows: the grids, old, new, new, old
G="--grid indexer,sampler,appendix-b,long --reps 15 --json"
# (old: HEAD's kernel files, devbin/kh, through the same binary: the plan of plain rows is the same)
i=0; for b in old new new old; do i=$((i+1)); kd=""; [ $b = old ] && kd="--kernel-dir devbin/kh"
  RTOPK_CUDA_PTX_CACHE=/tmp/ptx_g$b timeout 100 devbin/r/rtopk bench cuda $G $kd > $L/grid_${b}_$i.json 2>> $L/grid_err.txt; echo "== grid $b $i rc=$?" >> $S; done
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
