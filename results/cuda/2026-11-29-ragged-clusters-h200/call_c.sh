#!/usr/bin/env bash
# Call c (1 x H200, from the repository root): devbin/r2 (call b's build). Where a decode
# step's GPU time goes (decode_parts.py under ncu, every kernel timed), and the GPU tests call b
# ran out of time for: rtopk-cuda's gpu tests but the whole-family sweep (as earlier calls ran
# them), the package's CUDA and parity tests, and test_ragged.py's CUDA tests.
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/w2 devbin/r2/rtopk-*.whl >> $S 2>&1
chmod +x devbin/r2/gpu
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_r2 PYTHONPATH=/tmp/w2
D=results/cuda/2026-11-29-ragged-clusters-h200
python3 $D/decode_parts.py > /dev/null 2>&1  # builds the kernels outside the profile
s=$SECONDS; timeout 120 ncu --metrics gpu__time_duration.sum --cache-control all --nvtx --print-units base python3 $D/decode_parts.py > $L/decode_parts_ncu.txt 2>&1
echo "== ncu rc=$? $((SECONDS-s)) s" >> $S
grep -E "^  [a-z_0-9]+.*\(|gpu__time_duration|NVTX|nvtx" $L/decode_parts_ncu.txt | head -80 >> $S
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed' $L/$name.txt | tail -1)" >> $S; }
t gpu timeout 120 devbin/r2/gpu --ignored --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode
t pytest_cuda timeout 150 python3 -m pytest crates/rtopk-py/tests/test_torch_cuda.py crates/rtopk-py/tests/test_torch_topk_parity.py -q -rs -p no:cacheprovider --durations 5
t pytest_ragged_cuda timeout 120 python3 -m pytest crates/rtopk-py/tests/test_ragged.py -q -rs -p no:cacheprovider -k cuda --durations 5
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
