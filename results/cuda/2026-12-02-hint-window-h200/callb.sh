#!/usr/bin/env bash
# Usage (from the repository root on the device): callb.sh — call b (record.md): hinted cluster
# rows from a window about their hint (devbin/t7: rtopk and gpu_ragged; devbin/w7: its wheel)
# against the build before (devbin/w6, b2b35fc's wheel): sanitizers and bisect on hinted CLI
# calls over clusters, gpu_ragged's cluster tests, bench/decode.py alternated (w6 w7 w7 w6),
# the package's GPU ragged tests.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-hint-window-h200
tar xJf devbin/pkh.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
B=devbin/t7; chmod +x $B/*
for w in w6 w7; do $PY -m pip install --no-deps --target /tmp/site_$w devbin/$w/*.whl > $L/pip_$w.txt 2>&1; done
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t7
$PY $R/hinted_rows.py /tmp/h > $L/hinted_rows.txt 2>&1; cat $L/hinted_rows.txt >> $S
for c in h1 h2; do
  for tool in memcheck racecheck synccheck; do
    s=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/rtopk select --algo cuda --input /tmp/h/$c.npy -k 2048 --hint /tmp/h/${c}_hint.npy $(cat /tmp/h/${c}_mode.txt) --values /tmp/h/sv_${c}_$tool.npy --indices /tmp/h/si_${c}_$tool.npy --threshold /tmp/h/st_${c}_$tool.npy > $L/san_${c}_$tool.txt 2>&1
    echo "== sanitizer $c $tool rc=$? $((SECONDS-s)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${c}_$tool.txt | head -1)" >> $S
  done
  $B/rtopk select --algo bisect --input /tmp/h/$c.npy -k 2048 --hint /tmp/h/${c}_hint.npy $(cat /tmp/h/${c}_mode.txt) --values /tmp/h/bv_$c.npy --indices /tmp/h/bi_$c.npy --threshold /tmp/h/bt_$c.npy >> $L/bisect.txt 2>&1
  $PY $R/hinted_rows.py /tmp/h $c >> $S 2>&1
done
s=$SECONDS; timeout 150 $B/gpu_ragged --ignored --test-threads 1 cluster > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged cluster rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_ragged.txt | cut -c1-400 >> $S
SH="--shape 1x32768:2048 --shape 8x32768:2048 --shape 64x32768:2048 --shape 128x32768:2048 --shape 1x32768:1024 --shape 16x32000:64 --shape 8x131072:2048 --shape 1x16384:512"
i=0
for w in w6 w7 w7 w6; do i=$((i+1))
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w
  s=$SECONDS; PYTHONPATH=/tmp/site_$w timeout 150 $PY bench/decode.py $SH --steps 8 --out $L/decode_${w}_$i.json > $L/decode_${w}_$i.txt 2>&1; echo "== decode $w ($i) rc=$? $((SECONDS-s)) s" >> $S
done
$PY $R/decode_table.py $L >> $S 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w7
s=$SECONDS; PYTHONPATH=/tmp/site_w7 timeout 100 $PY -m pytest -q -x crates/rtopk-py/tests/test_ragged.py > $L/pytest_ragged.txt 2>&1; echo "== pytest test_ragged (GPU) rc=$? $((SECONDS-s)) s: $(tail -1 $L/pytest_ragged.txt)" >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
