#!/usr/bin/env bash
# Call AA (1 x H200): hinted decode steps with rows a block holds routed whole (new3, 9e0…)
# against split with the hint in the last stage (new2, 77dd8e6) — bench/decode.py, every step
# checked against the plain call and torch.topk; the Python CUDA ragged tests on new3.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "old $(cat devbin/new2/COMMIT) new $(cat devbin/new3/COMMIT)"; } | tee $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/old devbin/new2/rtopk-*.whl 2>&1 | tail -2
python3 -m pip install -q --no-deps --target /tmp/new devbin/new3/rtopk-*.whl 2>&1 | tail -2
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
S="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50"
for w in new old; do
  s=$SECONDS; PYTHONPATH=/tmp/$w timeout 200 python3 bench/decode.py $S --steps 16 --no-lengths --out $o/decode_$w.json > $o/decode_$w.txt 2>&1; echo "== decode $w rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
  head -16 $o/decode_$w.txt
done
s=$SECONDS; (cd crates/rtopk-py && PYTHONPATH=/tmp/new timeout 150 python3 -m pytest tests/test_ragged.py -q -rs -p no:cacheprovider > $o/pytest_ragged.txt 2>&1); echo "== pytest_ragged rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
tail -3 $o/pytest_ragged.txt
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_aa.tgz -C $o .
