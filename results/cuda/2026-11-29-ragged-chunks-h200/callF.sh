#!/usr/bin/env bash
# Call F (1 x H200): the decode benchmark over indexer and sampler shapes, the session's first
# build (h5: 9ee487a) against the ragged units of 52cc9b7 (h7's wheel), in one call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "old $(cat devbin/h5/COMMIT), new $(cat devbin/h7/COMMIT)"; } > $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/old devbin/h5/rtopk-*.whl 2>&1 | tail -2
python3 -m pip install -q --no-deps --target /tmp/new devbin/h7/rtopk-*.whl 2>&1 | tail -2
S="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
for b in new old; do
  PYTHONPATH=/tmp/$b RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 200 python3 bench/decode.py $S --steps 16 --out $o/decode_$b.json > $o/decode_$b.txt 2>&1
  echo "== decode_$b rc=$?" >> $o/steps.txt
done
grep -A17 "shape .*full .*lengths" $o/decode_new.txt $o/decode_old.txt
cp $o/* $OUT/
