#!/usr/bin/env bash
# Usage (from the repository root on the device): callf.sh — call f (record.md): the threshold
# step spread over warps (devbin/t5: rtopk and gpu_ragged; devbin/w5: its wheel) against
# HEAD's wheel (devbin/w1): sanitizers and bisect on CLI threshold calls, probe.py --unsorted
# alternated (w1 w5 w5 w1), thr_prof.py, the package's GPU ragged tests, gpu_ragged.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-threshold-step-h200
tar xJf devbin/pkf.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/t5; chmod +x $B/*
for w in w1 w5; do $PY -m pip install --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t5
$PY -c "
import numpy as np
r = np.random.default_rng(1)
x = r.standard_normal((3, 5000)).astype(np.float32); x[0, ::7] = 0.5; x[1, 3] = np.nan
np.save('/tmp/c1.npy', x)
np.save('/tmp/c1_len.npy', np.array([5000, 17, 4000], dtype=np.int64))
np.save('/tmp/c1_k.npy', np.array([2048, 40, 0], dtype=np.int64))
y = np.round(r.standard_normal((37, 1000)), 1).astype(np.float32)
np.save('/tmp/c2.npy', y)
np.save('/tmp/c2_len.npy', (np.arange(37) * 37 % 1001).astype(np.int64))
np.save('/tmp/c2_k.npy', (np.arange(37) * 53 % 301).astype(np.int64))"
for c in c1 c2; do
  for tool in memcheck racecheck synccheck; do
    s=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda --input /tmp/$c.npy --k-per-row /tmp/${c}_k.npy --lengths /tmp/${c}_len.npy --values /tmp/sv_${c}_$tool.npy --indices /tmp/si_${c}_$tool.npy --threshold /tmp/st_${c}_$tool.npy > $L/san_${c}_$tool.txt 2>&1
    echo "== sanitizer $c $tool rc=$? $((SECONDS-s)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${c}_$tool.txt | head -1)" >> $S
  done
  $B/rtopk select --algo bisect --input /tmp/$c.npy --k-per-row /tmp/${c}_k.npy --lengths /tmp/${c}_len.npy --values /tmp/bv_$c.npy --indices /tmp/bi_$c.npy --threshold /tmp/bt_$c.npy >> $L/bisect.txt 2>&1
  $PY -c "
import numpy as np
g, w = np.load('/tmp/st_${c}_memcheck.npy'), np.load('/tmp/bt_$c.npy')
print('$c thresholds equal to bisect, bit for bit:', g.view(np.uint32).tolist() == w.view(np.uint32).tolist(), g[:4])" >> $S 2>&1
done
i=0
for w in w1 w5 w5 w1; do i=$((i+1))
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w
  s=$SECONDS; PYTHONPATH=/tmp/site_$w:bench timeout 120 $PY $R/probe.py $L/probe_${w}_$i.json --unsorted > $L/probe_${w}_$i.txt 2>&1; echo "== probe --unsorted $w ($i) rc=$? $((SECONDS-s)) s" >> $S; cat $L/probe_${w}_$i.txt >> $S
done
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w5
s=$SECONDS; PYTHONPATH=/tmp/site_w5 timeout 100 $PY $R/thr_prof.py $L/thr_prof.json 1x16384:512 1x32768:2048 64x32768:2048 64x32768:512 64x128256:50 1x1048576:2048 > $L/thr_prof.txt 2>&1; echo "== thr_prof w5 rc=$? $((SECONDS-s)) s" >> $S; grep -v Warn $L/thr_prof.txt | grep -v _warn >> $S
s=$SECONDS; PYTHONPATH=/tmp/site_w5 timeout 120 $PY -m pytest -q -x crates/rtopk-py/tests/test_ragged.py > $L/pytest_ragged.txt 2>&1; echo "== pytest test_ragged (GPU) rc=$? $((SECONDS-s)) s: $(tail -1 $L/pytest_ragged.txt)" >> $S
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t5
s=$SECONDS; timeout 330 $B/gpu_ragged --ignored --test-threads 1 > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged.txt | cut -c1-400 >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
