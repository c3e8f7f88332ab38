#!/usr/bin/env bash
# call g (one H200, from the repository root): the rtopk crate's `gpu_ragged` test binary
# (devbin/t3/gpu_ragged: the committed tree's, `cargo test -p rtopk --release --test gpu_ragged
# --no-run`), every test: ragged, hinted, split (chunk-major now, ragged splits included),
# wide, pick, grouped and integer rows, the GPU against warp-sim and `bisect`.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/lg; mkdir -p $o; S=$OUT/steps.txt
nvidia-smi -L > $o/device.txt; date -u >> $o/device.txt
chmod +x devbin/t3/gpu_ragged
s=$SECONDS; RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t timeout 280 devbin/t3/gpu_ragged --ignored > $o/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S
grep -E "^test |test result|panicked" $o/gpu_ragged.txt >> $S
cp $o/device.txt $OUT/
tar czf $OUT/logs.tgz -C $o .
