#!/usr/bin/env bash
# call h (one H200, from the repository root): bf16 splits under the new floor gates —
# `bench/split_rows.py --grid indexer --dtype bf16` (rtopk.topk against torch.topk on the same
# tensors, every answer checked) with the committed wheel (devbin/w8) and 828f3b7's (devbin/w7),
# new then old; compare16.py's new/old per cell.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
R=results/cuda/2026-11-30-chunk-major-h200
o=/tmp/lh; mkdir -p $o; S=$OUT/steps.txt
nvidia-smi -L > $o/device.txt; date -u >> $o/device.txt
for w in w8 w7; do
  python3 -m pip install -q --no-deps --target /tmp/site_$w devbin/$w/rtopk-*.whl > $o/pip_$w.txt 2>&1
  mkdir -p $o/$w
  s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 110 python3 bench/split_rows.py --out $o/$w --grid indexer --dtype bf16 --reps 10 > $o/$w/table.md 2> $o/$w/err.txt
  echo "== split_rows bf16 $w rc=$? $((SECONDS-s)) s" >> $S
done
python3 $R/compare16.py $o/w7/split_rows_bf16.json $o/w8/split_rows_bf16.json > $o/compare16.txt 2>&1; cat $o/compare16.txt >> $S
cp $o/device.txt $OUT/
tar czf $OUT/logs.tgz -C $o .
