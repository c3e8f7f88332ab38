#!/usr/bin/env bash
# call e (from the repository root on the device): the committed tree's build with the narrow
# rows' tiers (devbin/h: the CLI and rtopk-cuda's gpu test binary; devbin/wh: the wheel)
# against fab771a's (devbin/i, devbin/we) — the radix GPU test (the narrow tiers' default
# cases against bisect); the narrow cells (rows of 2^17-2^19, 8-256 of them, k = 4096-16384)
# one shape at a time, default route, median of 20, alternated twice, and torch.topk on them;
# the seven grids alternated twice, torch.topk on the new build's shapes, the table; 16-bit
# shapes the moved gate touches through both wheels (gate16b.py --shapes), alternated twice.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/le; mkdir -p $L
R=results/cuda/2026-12-01-radix-gate-h200
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/h/* devbin/i/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 200 devbin/h/gpu --include-ignored --test-threads 1 radix_rows > $L/gpu_tests.txt 2>&1; echo "== gpu radix test rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_tests.txt >> $S
for rep in 1 2; do for b in h i; do
  s=$SECONDS
  for nm in 8:524288 16:524288 32:524288 64:524288 32:131072 64:131072 256:131072 16:262144 32:262144 128:262144 256:262144 1024:262144; do
    IFS=: read n m <<< "$nm"
    f=$L/t_${b}_${n}_${m}_$rep.json
    timeout 60 devbin/$b/rtopk bench cuda --n $n --m $m -k 4096,8192,16384 --reps 20 --json > $f 2>> $L/t.err
    python3 -c "import json,sys;print('$b', ' '.join(f\"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}\" for c in json.load(open('$f'))))" >> $S 2>&1
  done
  echo "== cells $rep $b $((SECONDS-s)) s" >> $S
done; done
python3 -c "import json,glob;print(json.dumps([c for f in sorted(glob.glob('$L/t_h_*_1.json')) for c in json.load(open(f))]))" > $L/narrow_h.json
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/narrow_h.json > $L/torch_narrow.json 2> $L/torch_narrow.err; echo "== torch narrow rc=$? $((SECONDS-s)) s" >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in h i; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_i_$i.json $L/grid_h_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-2000 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_h_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 results/cuda/2026-11-30-radix-candidates-h200/table.py $L h i > $L/table.md 2>&1; cat $L/table.md >> $S
for w in h e; do python3 -m pip install -q --no-deps --target /tmp/site_$w devbin/w$w/rtopk-*.whl > $L/pip_$w.txt 2>&1; done
SH=8:524288:4096,32:524288:4096,16:524288:8192,32:131072:16384,64:262144:16384,1:8388608:512,2:4194304:512,4:2097152:512,1:16777216:1024,1:67108864:1024,2:2097152:1024
for rep in 1 2; do for w in h e; do
  s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 150 python3 $R/gate16b.py $L/gate16_${w}_$rep.json --shapes $SH > $L/gate16_${w}_$rep.txt 2>&1; echo "== gate16 $w $rep rc=$? $((SECONDS-s)) s" >> $S
  cut -c1-200 $L/gate16_${w}_$rep.txt >> $S
done; done
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
