#!/usr/bin/env bash
# Call AE (1 x H200): the every-step-kind GPU test with its nested split case updated.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
o=/tmp/o; mkdir -p $o
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "test binary $(cat devbin/new6/COMMIT)"; } | tee $o/device.txt
s=$SECONDS; timeout 120 devbin/new6/tests/gpu --ignored every_step_kind > $o/gpu_steps.txt 2>&1; echo "== gpu_steps rc=$? $((SECONDS-s)) s" | tee $o/steps.txt
tail -3 $o/gpu_steps.txt
tar czf $OUT/call_ae.tgz -C $o .
