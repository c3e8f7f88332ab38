#!/usr/bin/env bash
# Call D (1 x H200): ragged block rows keep the launch's 16-byte alignment on split chunks and
# second stages: gpu_ragged, per-kernel times and the decode benchmark, before (h5) and after (h6).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "old $(cat devbin/h5/COMMIT), new $(cat devbin/h6/COMMIT)"; } > $o/device.txt
cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/old devbin/h5/rtopk-*.whl 2>&1 | tail -2
python3 -m pip install -q --no-deps --target /tmp/new devbin/h6/rtopk-*.whl 2>&1 | tail -2
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step gpu_ragged bash -c "timeout 150 devbin/h6/gpu_ragged --ignored > $o/gpu_ragged.txt 2>&1"
tail -3 $o/gpu_ragged.txt
for b in new old; do
  step prof_$b bash -c "PYTHONPATH=/tmp/$b RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 120 python3 devbin/rg/ragged_prof.py $o/ragged_prof_$b.json > $o/ragged_prof_$b.txt 2>&1"
done
for b in new old; do
  step decode_$b bash -c "PYTHONPATH=/tmp/$b RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 150 python3 bench/decode.py --out $o/decode_$b.json > $o/decode_$b.txt 2>&1"
done
grep -v Warn $o/ragged_prof_new.txt | grep -v "^ *_warn" | head -40
grep -A16 "shape .*full .*lengths" $o/decode_new.txt $o/decode_old.txt | head -40
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_d.tgz -C $o .
