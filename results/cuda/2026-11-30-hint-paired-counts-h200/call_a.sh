#!/usr/bin/env bash
# Call a (1 x H200, from the repository root): devbin/w4 = this tree (the hint test's two
# counts summed in one round by block and cluster rows; the ragged skip in one BlockRow helper,
# slots_counted); devbin/w3 = 8acc1a8's build (the window shifts 10, 7, 4). The GPU against the
# simulator and bisect (every ragged and hinted test, the cluster test, the quick f32 verify),
# compute-sanitizer on hinted block and cluster rows, then bench/decode.py new and old
# alternated twice on the 15 shapes (p = 2 %, torch.topk timed beside every step).
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/wn devbin/w4/rtopk-*.whl >> $S 2>&1
python3 -m pip install -q --no-deps --target /tmp/wo devbin/w3/rtopk-*.whl >> $S 2>&1
chmod +x devbin/w4/gpu_ragged devbin/w4/gpu devbin/w4/rtopk
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed|identical|differ' $L/$name.txt | tail -1)" >> $S; }
t gpu_ragged timeout 120 devbin/w4/gpu_ragged --ignored
t gpu_cluster timeout 60 devbin/w4/gpu --ignored cluster
t verify_f32 timeout 150 devbin/w4/rtopk verify cuda --quick --dtype float32
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
np.save('/tmp/c.npy', rng.standard_normal((2, 32768)).astype('<f4'))
np.save('/tmp/b.npy', rng.standard_normal((3, 16384)).astype('<f4'))
np.save('/tmp/ch.npy', np.array([1.5, 1.6], dtype='<f4'))
np.save('/tmp/bh.npy', np.array([1.9, 2.2, np.nan], dtype='<f4'))
PY
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 devbin/w4/rtopk select --algo cuda --input /tmp/c.npy -k 2048 --hint /tmp/ch.npy --indices /tmp/ci.npy --threshold /tmp/ct.npy >> $L/sanitizer.txt 2>&1
  echo "sanitizer $tool cluster rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 devbin/w4/rtopk select --algo cuda --input /tmp/b.npy -k 512 --hint /tmp/bh.npy --indices /tmp/bi.npy --threshold /tmp/bt.npy >> $L/sanitizer.txt 2>&1
  echo "sanitizer $tool block rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
done
devbin/w4/rtopk plan --n 2 --m 32768 -k 2048 >> $L/plans.txt 2>&1; devbin/w4/rtopk plan --n 3 --m 16384 -k 512 >> $L/plans.txt 2>&1
PYTHONPATH=/tmp/wn python3 - >> $S 2>&1 <<'PY'
import numpy as np, rtopk
for x, h, k, i in (('/tmp/c.npy', '/tmp/ch.npy', 2048, '/tmp/ci.npy'), ('/tmp/b.npy', '/tmp/bh.npy', 512, '/tmp/bi.npy')):
    want = rtopk.topk(np.load(x), k, sorted=False)
    print(x, "sanitized hinted CLI run equals the CPU package:", bool(np.array_equal(np.asarray(want[1]), np.load(i))))
PY
D="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
i=0
for b in new old new old; do
  i=$((i+1)); w=/tmp/wn; [ $b = old ] && w=/tmp/wo
  extra="--no-lengths"; [ $i = 1 ] && extra=""
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 80 python3 bench/decode.py $D --steps 16 $extra --out $L/decode_${b}_$i.json > $L/decode_${b}_$i.txt 2>&1
  echo "== decode_${b}_$i rc=$? $((SECONDS-s)) s" >> $S
done
sed -n 1,40p $L/decode_new_1.txt >> $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
