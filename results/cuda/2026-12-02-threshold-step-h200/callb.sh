#!/usr/bin/env bash
# Usage (from the repository root on the device): callb.sh — call b (record.md): the one-round
# threshold step (devbin/t2: rtopk and gpu_ragged; devbin/w2: its wheel) against HEAD's wheel
# (devbin/w1): gpu_ragged on the GPU, sanitizers on a threshold call, probe.py alternated.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-threshold-step-h200
tar xJf devbin/pkt.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/t2; chmod +x $B/*
for w in w1 w2; do $PY -m pip install --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
for i in 1 2; do for w in w1 w2; do
  [ $i = 2 ] && [ $w = w1 ] && continue
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w
  s=$SECONDS; PYTHONPATH=/tmp/site_$w:bench timeout 120 $PY $R/probe.py $L/probe_${w}_$i.json > $L/probe_${w}_$i.txt 2>&1; echo "== probe $w $i rc=$? $((SECONDS-s)) s" >> $S; cat $L/probe_${w}_$i.txt >> $S
done; done
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w1
s=$SECONDS; PYTHONPATH=/tmp/site_w1:bench timeout 120 $PY $R/probe.py $L/probe_w1_2.json > $L/probe_w1_2.txt 2>&1; echo "== probe w1 2 rc=$? $((SECONDS-s)) s" >> $S; cat $L/probe_w1_2.txt >> $S
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t2
$PY -c "
import numpy as np
r = np.random.default_rng(1)
np.save('/tmp/san.npy', r.standard_normal((3, 5000)).astype(np.float32))
np.save('/tmp/len.npy', np.array([5000, 17, 0], dtype=np.int64))
np.save('/tmp/kpr.npy', np.array([2048, 40, 3], dtype=np.int64))"
for tool in memcheck racecheck initcheck; do
  s=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda --input /tmp/san.npy --k-per-row /tmp/kpr.npy --lengths /tmp/len.npy --values /tmp/sv_$tool.npy --indices /tmp/si_$tool.npy --threshold /tmp/st_$tool.npy > $L/san_$tool.txt 2>&1
  echo "== sanitizer $tool rc=$? $((SECONDS-s)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$tool.txt | head -1)" >> $S
done
$B/rtopk select --algo bisect --input /tmp/san.npy --k-per-row /tmp/kpr.npy --lengths /tmp/len.npy --values /tmp/bv.npy --indices /tmp/bi.npy --threshold /tmp/bt.npy >> $L/bisect.txt 2>&1
$PY -c "
import numpy as np
g, w = np.load("/tmp/st_memcheck.npy"), np.load('/tmp/bt.npy')
print('thresholds', g, 'bisect', w, 'bits equal', g.view(np.uint32).tolist() == w.view(np.uint32).tolist())" >> $S 2>&1
s=$SECONDS; timeout 280 $B/gpu_ragged --ignored --test-threads 1 > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged.txt | cut -c1-400 >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
