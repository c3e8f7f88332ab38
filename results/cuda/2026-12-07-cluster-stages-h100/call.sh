#!/usr/bin/env bash
# Where a few-row cluster row's time goes (issue 31's hinted decode steps, issue 32's lost
# one- and two-row cells): timing-only variants of cluster_rows.cu (cuts.py) against each
# other and the binary's own kernels ("full"), through `rtopk bench cuda --kernel-dir`, on six
# f32 shapes of cluster rows (normal values drawn on the device, inputs rotated past L2, median
# of 30), every variant on every shape, twice in turn; each variant its own unit cache. One
# line a case into $OUT/FILE: round, variant, then the bench's line.
#
#     bash call.sh stages.txt full cut0 cut1 cut2 cut3     # call a: the stages
#     bash call.sh stages_b.txt cut2 sync16 count16        # call b: a search's parts
set -uo pipefail
file=$1
shift
source bench/device_call.sh
bins 39
$PY results/cuda/2026-12-07-cluster-stages-h100/cuts.py crates/rtopk-cuda/kernels /tmp/cuts > /dev/null
SHAPES="1:49152:512 1:32768:2048 1:100000:2048 1:163840:512 2:100000:512 8:49152:2048"
for round in 1 2; do
    for v in "$@"; do
        kd=()
        [ "$v" = full ] || kd=(--kernel-dir "/tmp/cuts/$v")
        for s in $SHAPES; do
            IFS=: read -r n m k <<< "$s"
            RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v timeout 120 /tmp/bins39/rtopk bench cuda --n "$n" \
                --m "$m" -k "$k" --reps 30 "${kd[@]}" 2>> "$OUT/err.txt" | grep " n=" \
                | sed "s/^/$round $v /" >> "$OUT/$file"
        done
    done
done
cat "$OUT/$file"; tail -n 3 "$OUT/err.txt"
