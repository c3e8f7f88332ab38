#!/usr/bin/env bash
# Call H: recall mode on the GPU (tests + the RTop-K grid at r = 0.95 beside exact and torch),
# the ragged/hint post-fix checks, and the large-k baselines against torch, FlashInfer and CUB.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT; mkdir -p $out
T0=$SECONDS
left() { echo $((570 - (SECONDS - T0))); }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; git log --oneline -1 2>/dev/null; } | tee $out/device.txt
N=devbin/new
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
# 1. GPU tests: recall in every strategy (f32, f16, bf16), the ragged and raw paths
{
s=$SECONDS; timeout 170 $N/tests/gpu --ignored --test-threads 1 every_strategy sixteen_bit_rows partial_blocks 2>&1 | grep -E "^test |test result|panicked|assert" ; echo "== gpu rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
s=$SECONDS; timeout 60 $N/tests/gpu_ragged --ignored --test-threads 1 2>&1 | grep -E "^test |test result|panicked" ; echo "== gpu_ragged rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
s=$SECONDS; timeout 20 $N/tests/gpu_raw --ignored --test-threads 1 2>&1 | grep -E "test result|panicked" ; echo "== gpu_raw rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
} > $out/gpu_tests.txt 2>&1; grep -E "^==|test result" $out/gpu_tests.txt
# 2. the RTop-K grid, exact and at recall 0.95, and torch.topk on the same shapes
s=$SECONDS; timeout 130 $N/rtopk bench cuda --grid rtopk --recall 0.95 --json > $out/rtopk_recall.json 2> $out/rtopk_recall.log; echo "== grid recall rc=$? $((SECONDS-s)) s"
s=$SECONDS; timeout 60 python3 bench/torch_topk.py $out/rtopk_recall.json > $out/torch_rtopk.json 2> $out/torch_rtopk.log; echo "== torch grid rc=$? $((SECONDS-s)) s"
# 3. large k, few rows: rtopk (f32) and the peers (f32, bf16 indexer), torch + rtopk bf16
touch devbin/peers/peers  # built on the CPU machine (bench/peers/README.md): newer than its sources
echo "left $(left) s"
s=$SECONDS; timeout 110 $N/rtopk bench cuda --grid large-k --reps 20 --json > $out/large_k.json 2> $out/large_k.log; echo "== large-k rc=$? $((SECONDS-s)) s"
for g in indexer sampler vector_k; do
  s=$SECONDS; OUT_DIR=$out/peers_f32_$g BUILD_DIR=devbin/peers timeout 45 bash bench/peers/run.sh --reps 20 --shapes bench/peers/$g.txt > /dev/null 2> $out/peers_f32_$g.log; echo "== peers f32 $g rc=$? $((SECONDS-s)) s"
done
echo "left $(left) s"
s=$SECONDS; OUT_DIR=$out/peers_bf16_indexer BUILD_DIR=devbin/peers timeout 50 bash bench/peers/run.sh --reps 20 --dtype bf16 --shapes bench/peers/indexer.txt > /dev/null 2> $out/peers_bf16.log; echo "== peers bf16 indexer rc=$? $((SECONDS-s)) s"
s=$SECONDS; timeout $(( $(left) > 10 ? $(left) : 10 )) python3 bench/split_rows.py --out $out/split_bf16 --grid indexer --dtype bf16 --reps 15 > $out/split_rows_bf16.txt 2>&1; echo "== split_rows bf16 rc=$? $((SECONDS-s)) s"
echo "total $((SECONDS - T0)) s"
