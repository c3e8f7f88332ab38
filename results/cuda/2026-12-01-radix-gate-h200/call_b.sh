#!/usr/bin/env bash
# call b (from the repository root on the device): the moved gate's build (devbin/g: the CLI
# and rtopk-cuda's gpu test binary; devbin/wg: the wheel) against the committed one (devbin/i,
# devbin/we) — the radix GPU test (new cases taken by the default), the moved cells one shape
# at a time (default route, median of 20, alternated twice), the seven grids alternated twice,
# torch.topk on the new build's shapes, the table, and the 16-bit shapes through both wheels
# (gate16b.py) alternated twice.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L
R=results/cuda/2026-12-01-radix-gate-h200
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/g/* devbin/i/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 200 devbin/g/gpu --include-ignored --test-threads 1 radix_rows > $L/gpu_tests.txt 2>&1; echo "== gpu radix test rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_tests.txt >> $S
for rep in 1 2; do for b in g i; do
  s=$SECONDS
  for nm in 1:1048576 2:1048576 4:1048576 8:1048576 1:2097152 2:2097152 4:2097152 8:2097152 1:4194304 2:4194304 4:4194304 8:4194304 1:8388608 2:8388608 4:8388608 1:16777216 2:16777216 1:33554432 12:2097152 16:1048576 16:4194304 16:8388608 1:67108864 32:2097152; do
    IFS=: read n m <<< "$nm"
    f=$L/t_${b}_${n}_${m}_$rep.json
    timeout 60 devbin/$b/rtopk bench cuda --n $n --m $m -k 256,512,1024,2048 --reps 20 --json > $f 2>> $L/t.err
    python3 -c "import json,sys;print('$b', ' '.join(f\"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}\" for c in json.load(open('$f'))))" >> $S 2>&1
  done
  echo "== cells $rep $b $((SECONDS-s)) s" >> $S
done; done
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in g i; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_i_$i.json $L/grid_g_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-2000 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_g_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 results/cuda/2026-11-30-radix-candidates-h200/table.py $L g i > $L/table.md 2>&1; cat $L/table.md >> $S
for w in g e; do python3 -m pip install -q --no-deps --target /tmp/site_$w devbin/w$w/rtopk-*.whl > $L/pip_$w.txt 2>&1; done
for rep in 1 2; do for w in g e; do
  s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 120 python3 $R/gate16b.py $L/gate16_${w}_$rep.json > $L/gate16_${w}_$rep.txt 2>&1; echo "== gate16 $w $rep rc=$? $((SECONDS-s)) s" >> $S
  cut -c1-200 $L/gate16_${w}_$rep.txt >> $S
done; done
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
