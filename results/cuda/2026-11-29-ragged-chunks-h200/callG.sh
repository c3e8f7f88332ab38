#!/usr/bin/env bash
# Call G (1 x H200): the final build (h8) as one: verify f32 quick, GPU tests, GPU against CPU on
# rows that select all they have, the Python ragged suite on CUDA tensors.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "build $(cat devbin/h8/COMMIT)"; } > $o/device.txt
cat $o/device.txt
python3 -m pip install -q --no-deps --target /tmp/new devbin/h8/rtopk-*.whl 2>&1 | tail -2
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; }
step allcheck bash -c "PYTHONPATH=/tmp/new RTOPK_CUDA_PTX_CACHE=/tmp/ptx timeout 150 python3 devbin/rg/allcheck.py > $o/allcheck.txt 2>&1"
tail -2 $o/allcheck.txt
step gpu_ragged bash -c "timeout 120 devbin/h8/gpu_ragged --ignored > $o/gpu_ragged.txt 2>&1"
tail -2 $o/gpu_ragged.txt
step gpu bash -c "timeout 120 devbin/h8/gpu --ignored --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode > $o/gpu.txt 2>&1"
tail -2 $o/gpu.txt
step verify_f32 bash -c "timeout 200 devbin/h8/rtopk verify cuda --quick --dtype float32 > $o/verify_f32.txt 2>&1"
head -2 $o/verify_f32.txt
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
cp $o/* $OUT/
