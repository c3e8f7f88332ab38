#!/usr/bin/env bash
# Call c (1 x H200, from the repository root): devbin/w5 = the final build's wheel. The
# package's CUDA tests of ragged and hinted rows and its torch CUDA-tensor and parity tests
# (but the quick verify of three types, which a cold kernel cache makes too slow for one call).
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/wn devbin/w5/rtopk-*.whl >> $S 2>&1
export PYTHONPATH=/tmp/wn RTOPK_CUDA_PTX_CACHE=/tmp/ptx_c
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(tail -1 $L/$name.txt)" >> $S; }
t pytest_ragged timeout 200 python3 -m pytest crates/rtopk-py/tests/test_ragged.py -k cuda -q -rs -p no:cacheprovider
t pytest_torch_cuda timeout 250 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_torch_topk_parity.py -k "not verify_quick" -q -rs -p no:cacheprovider
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
