#!/usr/bin/env bash
# Usage (from the repository root on the device): callg.sh — call g (record.md): the committed
# build (devbin/t6: rtopk; devbin/w6: its wheel; one warp a row up to 512 values) against HEAD's
# wheel (devbin/w1): racecheck and bisect on CLI threshold calls of 400 and 700
# values, probe.py --unsorted on w1 then w6, k = 50-2048.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-threshold-step-h200
tar xJf devbin/pkg.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/t6; chmod +x $B/*
for w in w1 w6; do $PY -m pip install --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t6
$PY -c "
import numpy as np
r = np.random.default_rng(2)
y = np.round(r.standard_normal((21, 3000)), 1).astype(np.float32); y[:, ::11] = np.nan
np.save('/tmp/c3.npy', y)
np.save('/tmp/c3_len.npy', (np.arange(21) * 997 % 3001).astype(np.int64))
np.save('/tmp/c3_k.npy', np.array([700, 400, 0, 1, 699] * 4 + [700], dtype=np.int64))"
for tool in racecheck; do
  s=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda --input /tmp/c3.npy --k-per-row /tmp/c3_k.npy --lengths /tmp/c3_len.npy --values /tmp/sv_$tool.npy --indices /tmp/si_$tool.npy --threshold /tmp/st_$tool.npy > $L/san_$tool.txt 2>&1
  echo "== sanitizer c3 $tool rc=$? $((SECONDS-s)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$tool.txt | head -1)" >> $S
done
$B/rtopk select --algo bisect --input /tmp/c3.npy --k-per-row /tmp/c3_k.npy --lengths /tmp/c3_len.npy --values /tmp/bv.npy --indices /tmp/bi.npy --threshold /tmp/bt.npy >> $L/bisect.txt 2>&1
$PY -c "
import numpy as np
g, w = np.load('/tmp/st_racecheck.npy'), np.load('/tmp/bt.npy')
print('c3 thresholds equal to bisect, bit for bit:', g.view(np.uint32).tolist() == w.view(np.uint32).tolist(), g[:5])" >> $S 2>&1
SH="1x16384:512 16x16384:512 64x32768:512 1x32768:1024 64x32768:1024 1x32768:2048 64x128256:50"
i=0
for w in w1 w6; do i=$((i+1))
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w
  s=$SECONDS; PYTHONPATH=/tmp/site_$w:bench timeout 100 $PY $R/probe.py $L/probe_${w}_$i.json --unsorted $SH > $L/probe_${w}_$i.txt 2>&1; echo "== probe --unsorted $w ($i) rc=$? $((SECONDS-s)) s" >> $S; cat $L/probe_${w}_$i.txt >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
