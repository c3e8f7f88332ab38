#!/usr/bin/env bash
# Call E (1 x H200, the budget's last minutes): the steps build's `rtopk verify cuda --quick`
# on bfloat16 and int8, then float64, as far as the call's time goes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "steps $(cat devbin/steps/COMMIT)"; } | tee $o/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@"; echo "== $name rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt; cp $o/* $OUT/ 2>/dev/null; }
step verify_bf16_i8 bash -c "timeout 170 devbin/steps/rtopk verify cuda --quick --dtype bfloat16 --dtype int8 > $o/verify_bf16_i8.txt 2>&1"
tail -4 $o/verify_bf16_i8.txt
step verify_f64 bash -c "timeout 100 devbin/steps/rtopk verify cuda --quick --dtype float64 > $o/verify_f64.txt 2>&1"
tail -4 $o/verify_f64.txt
