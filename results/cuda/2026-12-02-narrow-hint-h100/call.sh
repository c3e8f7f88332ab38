#!/usr/bin/env bash
# Usage (from the repository root on the device): call.sh — record.md's call: hinted rows of
# the narrowing cluster twin from a window about their hint. Carried as devbin/pkn.tar.xz
# (`tar cJf devbin/pkn.tar.xz -C devbin w1 w2 gr`): w1, the wheel of HEAD before the change;
# w2, the wheel with it; gr, rtopk's gpu_ragged test binary with it (stripped). The GPU tests of
# hinted and narrowed cluster rows (against warp-sim, bisect and the oracle), then
# bench/decode.py alternated w1, w2, w2, w1 on a shape of the narrowing twin and two controls.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pkn.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
for w in w1 w2; do $PY -m pip install -q --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
chmod +x devbin/gr/*
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_gr
for t in ${TESTS:-narrowed_cluster_rows hinted_cluster_rows_without_counts}; do
  s=$SECONDS; timeout 80 devbin/gr/gpu_ragged --ignored --test-threads 1 $t > $L/gr_$t.txt 2>&1
  echo "== gpu_ragged $t rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gr_$t.txt | cut -c1-400 >> $S
done
SH="--shape 64x128256:50 --shape 16x100352:64 --shape 8x131072:2048"
i=0; for w in w1 w2 w2 w1; do i=$((i+1))
  s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 60 $PY bench/decode.py $SH --steps 6 --out $L/decode_${w}_$i.json > $L/decode_${w}_$i.txt 2>&1
  echo "== decode $w ($i) rc=$? $((SECONDS-s)) s" >> $S
done
for f in $L/decode_*.txt; do echo "-- $(basename $f)" >> $S; cut -c1-120 $f >> $S; done
cp $L/decode_*.json $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
