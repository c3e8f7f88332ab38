#!/usr/bin/env bash
# call a (from the repository root on the device: bash results/cuda/2026-12-01-paired-steps-h200/a/call.sh): the paired steps' build (devbin/n1: the rtopk
# binary and the gpu test binary of this tree) — the cluster GPU tests and the program's step
# kinds against bisect and warp-sim bit for bit; then the indexer and sampler grids through
# `rtopk bench cuda`, the new kernels (built in) against the kernel files before them
# (devbin/n1/old_kernels, d634b16's, through --kernel-dir: the same binary and host code),
# alternated twice; table.py.
set -uo pipefail
R=results/cuda/2026-12-01-paired-steps-h200
S=$OUT/steps.txt; L=/tmp/la; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/n1/rtopk devbin/n1/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 220 devbin/n1/gpu --include-ignored --test-threads 1 cluster every_step_kind > $L/gpu.txt 2>&1; echo "== gpu cluster, every_step_kind rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu.txt >> $S
G=indexer,sampler
for i in 1 2; do
  for b in new old; do
    o=""; [ $b = old ] && o="--kernel-dir devbin/n1/old_kernels"
    s=$SECONDS; timeout 150 devbin/n1/rtopk bench cuda --grid $G --reps 15 $o --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
done
python3 $R/table.py $L $R/clusters.txt > $L/table.md 2>&1; cat $L/table.md >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
