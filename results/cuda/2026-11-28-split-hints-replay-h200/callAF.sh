#!/usr/bin/env bash
# Call AF (1 x H200): the decode benchmark with the final split rule (d4e95be's wheel): plain
# rows of at most 32768 on few rows now run whole too, so hinted against plain is whole
# against whole there; the lengths mode (mean M/4 against full length) as well.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "wheel $(cat devbin/new5w/COMMIT)"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/new devbin/new5w/rtopk-*.whl 2>&1 | tail -2
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
S="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 1x1048576:2048"
s=$SECONDS; PYTHONPATH=/tmp/new timeout 200 python3 bench/decode.py $S --steps 16 --out $o/decode.json > $o/decode.txt 2>&1; echo "== decode rc=$? $((SECONDS-s)) s" | tee $o/steps.txt
cat $o/decode.txt
tar czf $OUT/call_af.tgz -C $o .
