#!/usr/bin/env bash
# One device call: check, then time the kernel and torch.topk on the same GPU.
#   bash bench/run_cuda_bench.sh BIN OUTDIR   (BIN: a release build of rtopk)
set -euo pipefail
bin=$1; out=$2; mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$out/device.txt"
python3 -c "import torch; print('torch', torch.__version__)" | tee -a "$out/device.txt"
"$bin" verify cuda --quick 2>&1 | tee "$out/verify.txt"
"$bin" bench cuda --json > "$out/rtopk_cuda.json" 2> "$out/rtopk_cuda.log"
read_gbps=$(grep -o 'read bandwidth [0-9.]*' "$out/rtopk_cuda.log" | awk '{print $3}')
python3 bench/torch_topk.py "$out/rtopk_cuda.json" > "$out/torch_topk.json" 2> "$out/torch_topk.log"
# the RTop-K grid again from an idle GPU (the earlier method: host launch latency included)
"$bin" bench cuda --grid rtopk --idle-start --json > "$out/rtopk_cuda_idle.json" 2> "$out/rtopk_cuda_idle.log"
python3 bench/torch_topk.py "$out/rtopk_cuda_idle.json" --idle-start > "$out/torch_topk_idle.json" 2> "$out/torch_topk_idle.log"
python3 bench/cuda_report.py "$out/rtopk_cuda.json" "$out/torch_topk.json" --read-gbps "$read_gbps" \
  --date "$(date -u +%Y-%m-%d)" --command "bash bench/run_cuda_bench.sh" \
  --idle "$out/rtopk_cuda_idle.json" "$out/torch_topk_idle.json" > "$out/cuda_bench.md"
tail -n 40 "$out/cuda_bench.md"
