#!/usr/bin/env bash
# Call g: the commit's rtopk binary (bins19, 13d0167) on `rtopk verify cuda --quick --dtype
# float32`: every launch family against bisect and the simulator running the same plan.
set -uo pipefail
source bench/device_call.sh
bins 19
step verify_f32 400 env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_19 /tmp/bins19/rtopk verify cuda --quick --dtype float32
cat $OUT/steps.txt; tail -25 $OUT/verify_f32.txt
