#!/usr/bin/env bash
# Call b (from the repository root on the device, $OUT its output folder): fewer, wider
# cluster blocks for 17-66 rows (rtopk-plan's fewer_blocks). bins1/s1: HEAD's build (970befb),
# bins2/s2: the change. The CLI's f32 times of both builds shape by shape in turn; the new
# wheel's answers against its CPU path (f32, bf16; plain, sorted, lengths, hints) and its
# times beside torch.topk; the old wheel's bf16 times; the decode benchmark on both.
set -uo pipefail
source bench/device_call.sh
R=results/cuda/2026-12-06-h100-standing
W=/tmp/cb; mkdir -p $W
wheel s1; wheel s2; bins 1; bins 2
for n in 20 32 48 64; do
  for m in 24576 32768 49152 65536 100000 131072 163840; do
    for b in 1 2; do
      mkdir -p $W/cli
      env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b$b timeout 30 /tmp/bins$b/rtopk bench cuda --n $n --m $m -k 50,512,2048 --reps 20 --json > $W/cli/b${b}_${n}_${m}.json 2> $W/cli/b${b}_${n}_${m}.err
    done
  done
done
echo "cli done $SECONDS" >> $W/steps.txt
OUT=$W step check_s2 300 env $(build_env s2) $PY $R/clusters_check.py $W/check_s2.jsonl 15
OUT=$W step time_s1_bf16 90 env $(build_env s1) $PY $R/clusters_check.py $W/time_s1_bf16.jsonl 15 bf16 --no-check
for b in s2 s1; do
  OUT=$W step decode_$b 90 env $(build_env $b) $PY bench/decode.py --steps 8 --shape 64x32768:2048 --shape 64x32768:512 --shape 48x49152:2048 --no-lengths --out $W/decode_$b.json
done
cp $OUT/device.txt $W/
tar czf $OUT/b.tgz -C $W .
cat $W/steps.txt
