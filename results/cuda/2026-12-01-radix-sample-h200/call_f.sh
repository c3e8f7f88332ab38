#!/usr/bin/env bash
# call f (from the repository root on the device): the final build (devbin/s3: choose_digit and
# choose_floor reading the row's bins through one read_bins) — check.sh against bisect, the
# radix GPU tests against bisect and the simulator, memcheck and racecheck on a row of 2^23
# whose sample's floor misleads, and the vector grids against 4437bfc's build (devbin/v)
# alternated twice with torch.topk on the new one's shapes (table.py).
set -uo pipefail
R=results/cuda/2026-12-01-radix-sample-h200
S=$OUT/steps.txt; L=/tmp/lf; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/s3/* devbin/v/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; python3 $R/gen.py /tmp/in > $L/gen.txt 2>&1; echo "== gen rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 200 bash $R/check.sh devbin/s3/rtopk $L > $L/check.txt 2>&1; echo "== check rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
s=$SECONDS; timeout 150 devbin/s3/gpu --include-ignored --test-threads 1 radix > $L/gpu_radix.txt 2>&1; echo "== gpu radix rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|FAILED|panicked" $L/gpu_radix.txt >> $S
python3 -c "
import numpy as np
m = 1 << 23
s = np.random.default_rng(24).standard_normal((1, m), dtype=np.float32)
for t in range(0, m, 4096 * 32):
    s[:, t : t + 4096] += 50.0
np.save('/tmp/striped23.npy', s)"
devbin/s3/rtopk select --algo bisect --input /tmp/striped23.npy -k 2048 --values $L/bv.npy --indices $L/bi.npy 2>> $L/err.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 devbin/s3/rtopk select --algo cuda --input /tmp/striped23.npy -k 2048 --values $L/cv_$tool.npy --indices $L/ci_$tool.npy > $L/$tool.txt 2>&1; rc=$?
  same=no; cmp -s $L/cv_$tool.npy $L/bv.npy && cmp -s $L/ci_$tool.npy $L/bi.npy && same=yes
  echo "== $tool striped 2^23 rc=$rc, equal to bisect: $same; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/$tool.txt | tr '\n' ' ')" >> $S
done
G=vector,vector-k
for i in 1 2; do
  for b in new old; do
    B=devbin/s3/rtopk; [ $b = old ] && B=devbin/v/rtopk
    s=$SECONDS; timeout 60 $B bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_new_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 $R/table.py $L > $L/table.md 2>&1; cat $L/table.md >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' .
echo "== end" >> $S
