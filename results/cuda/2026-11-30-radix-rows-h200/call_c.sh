#!/usr/bin/env bash
# call c (from the repository root on the device): the write step by warps without a keys
# array (devbin/rx3: the working tree's CLI and rtopk-cuda `gpu` test binary) against call
# b's (devbin/rx2) and against itself with the write's launch bounds at 4 blocks an SM
# (devbin/kv4, the kernels read with --kernel-dir): each radix entry point timed by Nsight
# Compute (--cache-control all), the vector-k and vector grids forced onto the radix select;
# check.sh's select cases against bisect; the GPU test of the radix select (against bisect
# and warp-sim).
set -uo pipefail
R=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rx3/rtopk devbin/rx3/gpu devbin/rx2/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for v in "rx3" "rx3 --kernel-dir devbin/kv4"; do
  set -- $v; b=$1; shift
  for c in "--m 4194304 -k 256" "--m 4194304 -k 32768" "--m 268435456 -k 256" "--m 268435456 -k 32768"; do
    echo "== ncu $b $* $c" >> $S
    timeout 100 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:rtopk_radix devbin/$b/rtopk bench cuda --n 1 $c --reps 1 --strategy radix "$@" 2>/dev/null | grep rtopk_radix | awk -F'","' '{print $5, $NF}' | tail -5 | tr '\n' ' ' >> $S; echo >> $S
  done
done
G=vector-k,vector
s=$SECONDS; timeout 120 devbin/rx2/rtopk bench cuda --grid $G --reps 10 --json --strategy radix > $L/radix_rx2.json 2>&1; echo "== grid rx2 rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 120 devbin/rx3/rtopk bench cuda --grid $G --reps 10 --json --strategy radix > $L/radix_rx3.json 2>&1; echo "== grid rx3 rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 120 devbin/rx3/rtopk bench cuda --grid $G --reps 10 --json --strategy radix --kernel-dir devbin/kv4 > $L/radix_kv4.json 2>&1; echo "== grid kv4 rc=$? $((SECONDS-s)) s" >> $S
python3 bench/ab_compare.py $L/radix_rx2.json $L/radix_rx3.json > $L/ab_rx3.txt 2>&1; tail -1 $L/ab_rx3.txt | cut -c1-900 >> $S
python3 bench/ab_compare.py $L/radix_rx3.json $L/radix_kv4.json > $L/ab_kv4.txt 2>&1; tail -1 $L/ab_kv4.txt | cut -c1-900 >> $S
python3 $R/gen.py /tmp/in
s=$SECONDS; timeout 200 bash $R/check.sh devbin/rx3/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
t=radix_rows_match_bisect_and_the_simulator
s=$SECONDS; timeout 150 devbin/rx3/gpu --include-ignored --exact $t > $L/test_$t.txt 2>&1; echo "== test $t rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked" -A2 $L/test_$t.txt | head -6 >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
