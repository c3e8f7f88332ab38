#!/usr/bin/env bash
# The final read's mend (from the repository root on the device: bash
# results/cuda/2026-12-01-final-read-h200/call.sh): 1a5720a's build (devbin/n6: rtopk and the gpu
# test binary), whose sample counts each sampled tile through count_digits — the radix GPU tests
# (the sampled shapes against bisect and, bit for bit, warp-sim); then the vector grids, the new
# kernels (built in) against c8367e6's (devbin/n6/old_kernels, through --kernel-dir: the same
# binary) alternated twice, torch.topk on the same shapes (the radix-sample record's table.py).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lh; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/n6/rtopk devbin/n6/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 200 devbin/n6/gpu --include-ignored --test-threads 1 radix > $L/gpu.txt 2>&1; echo "== gpu radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu.txt >> $S
G=vector,vector-k
for i in 1 2; do
  for b in new old; do
    o=""; [ $b = old ] && o="--kernel-dir devbin/n6/old_kernels"
    s=$SECONDS; timeout 90 devbin/n6/rtopk bench cuda --grid $G --reps 10 $o --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
done
s=$SECONDS; timeout 120 python3 bench/torch_topk.py $L/grid_new_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 results/cuda/2026-12-01-radix-sample-h200/table.py $L > $L/table.md 2>&1; cat $L/table.md >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
