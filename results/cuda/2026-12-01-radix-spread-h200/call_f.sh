#!/usr/bin/env bash
# call f (from the repository root on the device): the committed build (devbin/e, devbin/we)
# against 9e848fa's (devbin/a: the CLI before this work) — the seven grids alternated twice,
# torch.topk on the new one's shapes, the table (table.py of the candidates record); the
# short radix rows one by one; the package's CUDA tests on the new wheel.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lf; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/e/rtopk devbin/a/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in e a; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_a_$i.json $L/grid_e_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-2000 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_e_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 results/cuda/2026-11-30-radix-candidates-h200/table.py $L e a > $L/table.md 2>&1; cat $L/table.md >> $S
for rep in 1 2; do for b in e a; do
  out=""
  for nmk in 1:2097152:2048 1:4194304:2048 1:4194304:8192 1:4194304:32768 2:2097152:2048 1:33554432:2048 1:268435456:8192; do
    IFS=: read n m k <<< "$nmk"
    timeout 60 devbin/$b/rtopk bench cuda --n $n --m $m -k $k --reps 20 --json > $L/t_${b}_${n}_${m}_${k}_$rep.json 2>> $L/t.err
    out="$out $(python3 -c "import json;c=json.load(open('$L/t_${b}_${n}_${m}_${k}_$rep.json'))[0];print(f\"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}\")" 2>&1)"
  done
  echo "== rows $rep $b:$out" >> $S
done; done
python3 -m pip install -q --no-deps --target /tmp/site devbin/we/rtopk-*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; (cd crates/rtopk-py && timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $L/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/pytest_cuda.txt >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
