#!/usr/bin/env bash
# call a (from the repository root on the device): the write from candidates (devbin/rxc, the
# CLI of the working tree on c758368) against c758368's kernels (devbin/rxb): check.sh's
# select cases against bisect (gen.py of the radix record, gen_extra.py of the candidates
# record, gen_listed.py here), the seven grids alternated twice, torch.topk on the new one's
# shapes, one long row of 2^25 and 2^28 in four input families, each radix kernel by Nsight
# Compute, compute-sanitizer memcheck and racecheck.
set -uo pipefail
R=results/cuda/2026-12-01-radix-listed-write-h200; P=results/cuda/2026-11-30-radix-rows-h200
C=results/cuda/2026-11-30-radix-candidates-h200
S=$OUT/steps.txt; L=/tmp/la; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/rxc/rtopk devbin/rxb/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 $P/gen.py /tmp/in; python3 $C/gen_extra.py /tmp/in; python3 $R/gen_listed.py /tmp/in
s=$SECONDS; timeout 200 bash $P/check.sh devbin/rxc/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; grep -E "MISMATCH|checked" $L/check.txt | head -20 >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in rxc rxb; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_rxb_$i.json $L/grid_rxc_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
for b in rxc rxb; do for m in 268435456 33554432; do
  timeout 60 devbin/$b/rtopk bench cuda --n 1 --m $m -k 8192,32768 --dist normal,uniform,ties,radix-adversarial --reps 10 --json > $L/fam_${b}_${m}.json 2> $L/fam_${b}_${m}.err; echo "== families $b $m rc=$?" >> $S
  python3 -c "import json;print([(c['input'],c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/fam_${b}_${m}.json'))])" >> $S 2>&1
done; done
s=$SECONDS; timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/rxc/rtopk bench cuda --n 1 --m 268435456 -k 32768 --dist normal --reps 1 > $L/ncu.csv 2> $L/ncu.err; echo "== ncu $((SECONDS-s)) s" >> $S
grep radix $L/ncu.csv | awk -F'","' '{print $5, $NF}' >> $S
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_rxc_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
for tool in memcheck racecheck; do
  for c in "bench cuda --n 2 --m 4194304 -k 8192 --dist normal --reps 1" "bench cuda --n 3 --m 3000001 -k 8192 --dist normal --reps 1" \
           "select --algo cuda --input /tmp/in/spike_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy" \
           "select --algo cuda --input /tmp/in/tiespreadf16_1x33554432.npy -k 4096 --values /tmp/sv.npy --indices /tmp/si.npy"; do
    s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _ | cut -c1-80).log
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 devbin/rxc/rtopk $c > $f 2>&1
    echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
  done
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
