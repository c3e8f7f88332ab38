#!/usr/bin/env bash
# call f (one H200, from the repository root): rtopk-cuda's `gpu` test binary again
# (devbin/t2/gpu: the committed tree's, `cargo test -p rtopk-cuda --release --test gpu
# --no-run`), whose step-kind test now splits twice at 2 x 2^24 (call e found 2 x 2^22's
# 262144 candidates taken by one wide cluster row, no second split): that test and the floor's.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/lf; mkdir -p $o; S=$OUT/steps.txt
nvidia-smi -L > $o/device.txt; date -u >> $o/device.txt
chmod +x devbin/t2/gpu
s=$SECONDS; timeout 200 devbin/t2/gpu --ignored --test-threads 1 many_rows_that_take_the_floor every_step_kind > $o/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S
grep -E "^test |test result|panicked|left|right" $o/gpu_tests.txt >> $S
cp $o/device.txt $OUT/
tar czf $OUT/logs.tgz -C $o .
