#!/usr/bin/env bash
# One call (from the repository root on the device, $OUT its output folder): issue 32's
# large-k grids on the H100 beside FlashInfer and CUB (bench/peers, built here), torch.topk
# and rtopk in f32 and bf16, HEAD's build (devbin/pks1.tar.xz: the wheel, devbin/bins1.tar.xz:
# the rtopk binary); first, where one-row rtopk.jax.topk calls spend their time (jax_probe.py).
set -uo pipefail
source bench/device_call.sh
R=results/cuda/2026-12-06-h100-standing
wheel s1
bins 1
tar xJf devbin/vendor.tar.xz -C bench/peers
export $(build_env s1)
L=/tmp/logs; mkdir -p $L
# 1. one-row JAX calls: host dispatch against queued throughput, command buffers on and off
for shape in "1 128256 50" "1 128256 1024" "1 151936 50"; do
  for which in rtopk lax; do
    step "probe_${which}_${shape// /_}" 30 $PY $R/jax_probe.py $shape $which
    cat "$OUT/probe_${which}_${shape// /_}.txt" | grep '^{' >> $OUT/probe.jsonl
  done
  XLA_FLAGS=--xla_gpu_enable_command_buffer= step "probe_nocb_${shape// /_}" 30 $PY $R/jax_probe.py $shape rtopk
  grep '^{' "$OUT/probe_nocb_${shape// /_}.txt" | sed 's/}$/, "command_buffer": false}/' >> $OUT/probe.jsonl
done
step ncu_jax 90 ncu --metrics gpu__time_duration.sum --cache-control all --csv --launch-count 300 \
  $PY $R/jax_probe.py 1 128256 50 rtopk 4 2
# 2. the peers, built here, on the three grids in both types
BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build step peers_build 240 bash bench/peers/run.sh
for d in f32 bf16; do
  for g in indexer sampler vector_k; do
    OUT_DIR=$L/peers_${d}_$g BUILD_DIR=/tmp/peers step peers_${d}_$g 60 bash bench/peers/run.sh --reps 20 --dtype $d --shapes bench/peers/$g.txt
  done
done
cat $L/peers_*/*.jsonl > $OUT/peers.jsonl 2>/dev/null
# 3. rtopk (f32, the CLI) and torch.topk with rtopk.topk (f32 and bf16, the package)
step rtopk_large_k 200 /tmp/bins1/rtopk bench cuda --grid large-k --reps 20 --json
grep -v '^\s*$' $OUT/rtopk_large_k.txt | sed -n '/^\[/,$p' > $OUT/rtopk_large_k.json
for d in bf16 f32; do
  step split_$d 120 $PY bench/split_rows.py --out $OUT/split_$d --grid indexer,sampler,vector-k --dtype $d --reps 15
done
$PY bench/large_k_table.py --rtopk $OUT/rtopk_large_k.json --split $OUT/split_*/*.json --peers $OUT/peers.jsonl > $OUT/table.md 2>&1
tar czf $OUT/logs.tgz -C $L . 2>/dev/null
echo "end" >> $OUT/steps.txt
