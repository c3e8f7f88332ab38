set -uo pipefail
R=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rx2/rtopk devbin/rx1/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for c in "--m 4194304 -k 256" "--m 4194304 -k 32768" "--m 268435456 -k 256" "--m 268435456 -k 32768"; do
  echo "== ncu rx2 $c" >> $S
  timeout 100 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:rtopk_radix devbin/rx2/rtopk bench cuda --n 1 $c --reps 1 --strategy radix 2>/dev/null | grep rtopk_radix | awk -F'","' '{print $5, $NF}' | tail -5 >> $S
done
G=vector-k,vector,indexer,sampler
for b in rx2 rx1; do
  s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json --strategy radix > $L/radix_$b.json 2> $L/radix_$b.err; echo "== grid radix $b rc=$? $((SECONDS-s)) s" >> $S
done
python3 bench/ab_compare.py $L/radix_rx1.json $L/radix_rx2.json > $L/ab_radix.txt 2>&1; tail -1 $L/ab_radix.txt | cut -c1-1500 >> $S
python3 $R/gen.py /tmp/in
s=$SECONDS; timeout 200 bash $R/check.sh devbin/rx2/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
s=$SECONDS; timeout 80 compute-sanitizer --tool racecheck --error-exitcode 9 devbin/rx2/rtopk bench cuda --n 3 --m 3000001 -k 8192 --reps 1 > $L/race.log 2>&1; echo "== racecheck rc=$? $(tail -1 $L/race.log)" >> $S
s=$SECONDS; timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 devbin/rx2/rtopk bench cuda --n 1 --m 4194304 -k 32768 --smallest --dist ties --reps 1 > $L/mem.log 2>&1; echo "== memcheck rc=$? $(tail -1 $L/mem.log)" >> $S
tar czf $OUT/logs.tgz -C $L .
