#!/usr/bin/env bash
# call g (from the repository root on the device): the committed build with 16-byte loads in
# count_digits (devbin/rxb: the CLI and the gpu test binary) against call e's (devbin/rxa):
# check.sh's select cases against bisect (gen.py of the radix record, gen_extra.py here), the
# radix GPU test (against bisect and warp-sim) and the 16-bit one, one long row of 2^25 and
# 2^28 in two input families alternated twice, each radix kernel by Nsight Compute.
set -uo pipefail
R=results/cuda/2026-11-30-radix-candidates-h200; P=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/rxb/* devbin/rxa/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 $P/gen.py /tmp/in; python3 $R/gen_extra.py /tmp/in
s=$SECONDS; timeout 150 bash $P/check.sh devbin/rxb/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -2 $L/check.txt >> $S
s=$SECONDS; timeout 100 devbin/rxb/gpu --include-ignored --test-threads 1 radix_rows sixteen_bit_rows > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result" $L/gpu_tests.txt >> $S
for i in 1 2; do for b in rxb rxa; do for m in 268435456 33554432; do
  timeout 60 devbin/$b/rtopk bench cuda --n 1 --m $m -k 8192,32768 --dist normal,uniform --reps 10 --json > $L/t_${b}_${m}_$i.json 2> $L/t_${b}_${m}_$i.err; echo "== time $b $m $i rc=$?" >> $S
  python3 -c "import json;print([(c['m'],c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/t_${b}_${m}_$i.json'))])" >> $S
done; done; done
s=$SECONDS; timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/rxb/rtopk bench cuda --n 1 --m 268435456 -k 32768 --dist normal,uniform --reps 1 > $L/ncu.csv 2> $L/ncu.err; echo "== ncu $((SECONDS-s)) s" >> $S
grep radix $L/ncu.csv | awk -F'","' '{print $5, $NF}' >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
