#!/usr/bin/env bash
# Issue 21, third pass, call D (commit d4e3d8b; bench/split_rows.py as of the next commit, which defines elem_t for its CuPy build of fill_normal): issue 21's regimes timed in one call — rtopk
# (`rtopk bench cuda`, the split route: no iteration counts), torch.topk and rtopk.topk
# (bench/split_rows.py, each case checked against torch.topk), FlashInfer and CUB
# (bench/peers, built here with nvcc from the wheel's sources while rtopk runs) — all on the same
# fill_normal data; then the side-by-side table.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site25 devbin/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site25
( OUT_DIR=$out/peers BUILD_ONLY=1 bash bench/peers/run.sh > $out/peers_build.txt 2>&1; echo "peer build rc=$?" ) &
bpid=$!
s=$SECONDS
devbin/rtopk bench cuda --grid split,vector,wide --reps 15 --json > $out/rtopk_regimes.json 2> $out/rtopk_regimes.log; echo "regimes rc=$? $((SECONDS-s)) s"
wait $bpid; tail -2 $out/peers_build.txt
s=$SECONDS
timeout 200 python3 bench/split_rows.py --out $out/torch --reps 15 > $out/split_rows.txt 2>&1; echo "torch rc=$? $((SECONDS-s)) s"; tail -4 $out/split_rows.txt
s=$SECONDS
OUT_DIR=$out/peers timeout 250 bash bench/peers/run.sh --reps 20 > $out/peers_run.txt 2>&1; echo "peers rc=$? $((SECONDS-s)) s"
tail -3 $out/peers_run.txt; wc -l $out/peers/peers.jsonl
ls $out/torch
python3 bench/regimes_table.py $out/rtopk_regimes.json $out/torch/split_rows.json $out/peers/peers.jsonl > $out/table.md 2>&1; head -14 $out/table.md
cd $OUT && tar czf r.tgz r && rm -rf r
