#!/bin/bash
# Call a: where a ragged batch's time goes on the large indexer shapes, HEAD's wheel (devbin/p0).
D=results/cuda/2026-12-01-ragged-radix-h200
PY=/opt/torch/.venv/bin/python3
mkdir -p $OUT/logs
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
$PY -m pip install --no-deps --target /tmp/site_p0 devbin/p0/*.whl > $OUT/logs/pip.txt 2>&1
export PYTHONPATH=/tmp/site_p0:bench
SH="1x1048576:2048 16x1048576:2048 8x1048576:512 32x1048576:2048 128x131072:2048 8x131072:2048 64x32768:2048 8x2097152:2048"
(time $PY results/cuda/2026-11-29-ragged-chunks-h200/ragged_prof.py $OUT/logs/prof.json $SH) > $OUT/logs/prof.txt 2>&1
ARGS=""; for s in $SH 64x128256:50; do ARGS="$ARGS --shape $s"; done
(time $PY bench/decode.py $ARGS --steps 4 --reps 10 --out $OUT/logs/decode.json) > $OUT/logs/decode.txt 2>&1
tail -30 $OUT/logs/decode.txt > $OUT/steps.txt
tar czf $OUT/logs.tgz -C $OUT logs
