#!/usr/bin/env bash
# Call I: the measurements of call H again, every file kept in one archive (the device returns
# at most 8 files): the RTop-K grid exact and at recall 0.95 with torch.topk; large k, few rows:
# rtopk (f32, one invocation per shape, no sorted twins), the peers (f32; bf16 indexer), and
# torch + rtopk through bench/split_rows.py (f32 and bf16 indexer).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=/tmp/o; mkdir -p $o
T0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $o/device.txt
N=devbin/new
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 100 $N/rtopk bench cuda --grid rtopk --recall 0.95 --json > $o/rtopk_recall.json 2> $o/rtopk_recall.log; echo "== grid recall rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS; timeout 60 python3 bench/torch_topk.py $o/rtopk_recall.json > $o/torch_rtopk.json 2> $o/torch_rtopk.log; echo "== torch grid rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
s=$SECONDS
mkdir -p $o/large_k
for nm in 1:16384 1:49152 1:100000 1:163840 1:500000 1:2097152 2:100000 2:500000 8:100000 8:500000 8:2097152 32:100000 32:500000 32:2097152 96:163840 256:163840 256:500000 \
          1:32000 1:100352 1:262144 16:32000 16:100352 16:262144 128:32000 128:100352 128:262144 1:4194304 1:33554432 1:268435456; do
  n=${nm%%:*}; m=${nm##*:}
  case $m in 32000|100352|262144) ks=20,64,1024 ;; 4194304|33554432|268435456) ks=256,2048,8192,32768 ;; *) ks=512,1024,2048 ;; esac
  [ $m = 262144 ] && [ $n = 1 ] && ks=20,64,1024,2048
  timeout 25 $N/rtopk bench cuda --n $n --m $m -k $ks --reps 15 --json > $o/large_k/${n}x${m}.json 2>> $o/large_k/log.txt || echo "rc=$? ${n}x${m}" >> $o/large_k/log.txt
done
echo "== large-k rtopk $((SECONDS-s)) s" | tee -a $o/steps.txt
touch devbin/peers/peers  # built on the CPU machine (bench/peers/README.md): newer than its sources
for g in indexer sampler vector_k; do
  s=$SECONDS; OUT_DIR=$o/peers_f32_$g BUILD_DIR=devbin/peers timeout 45 bash bench/peers/run.sh --reps 20 --shapes bench/peers/$g.txt > /dev/null 2> $o/peers_f32_$g.log; echo "== peers f32 $g rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
done
s=$SECONDS; OUT_DIR=$o/peers_bf16_indexer BUILD_DIR=devbin/peers timeout 50 bash bench/peers/run.sh --reps 20 --dtype bf16 --shapes bench/peers/indexer.txt > /dev/null 2> $o/peers_bf16.log; echo "== peers bf16 indexer rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
for d in bf16 f32; do
  s=$SECONDS; timeout 70 python3 bench/split_rows.py --out $o/split_$d --grid indexer --dtype $d --reps 15 > $o/split_rows_$d.txt 2>&1; echo "== split_rows $d rc=$? $((SECONDS-s)) s" | tee -a $o/steps.txt
done
echo "total $((SECONDS - T0)) s" | tee -a $o/steps.txt
tar czf $OUT/call_i.tgz -C $o .
