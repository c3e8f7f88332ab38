#!/usr/bin/env bash
# call i (from the repository root on the device): the final tree's build (devbin/i: the CLI and
# rtopk-cuda's gpu test binary; the .cu's 16-byte tile loads, whole tiles and alignment check in
# one helper each, as warp-sim's load_groups, whole_tiles and starts_aligned), correctness and
# timing in one call: the radix GPU test (against bisect and warp-sim), check.sh's 243 select
# cases against bisect, then the vector-k, vector and indexer grids against 9e848fa's CLI
# (devbin/a) alternated twice, torch.topk on the new one's shapes, the table.
set -uo pipefail
P=results/cuda/2026-11-30-radix-rows-h200; C=results/cuda/2026-11-30-radix-candidates-h200
W=results/cuda/2026-12-01-radix-listed-write-h200
S=$OUT/steps.txt; L=/tmp/li; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/i/* devbin/a/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 120 devbin/i/gpu --include-ignored --test-threads 1 radix_rows > $L/gpu_tests.txt 2>&1; echo "== gpu radix test rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result" $L/gpu_tests.txt >> $S
python3 $P/gen.py /tmp/in; python3 $C/gen_extra.py /tmp/in; python3 $W/gen_listed.py /tmp/in
s=$SECONDS; timeout 170 bash $P/check.sh devbin/i/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; grep -E "MISMATCH|checked" $L/check.txt | head -20 >> $S
G=vector-k,vector,indexer
for i in 1 2; do
  for b in i a; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_a_$i.json $L/grid_i_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_i_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 results/cuda/2026-11-30-radix-candidates-h200/table.py $L i a > $L/table.md 2>&1; cat $L/table.md >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
