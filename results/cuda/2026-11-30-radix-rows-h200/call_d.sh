#!/usr/bin/env bash
# call d (from the repository root on the device): the committed build (devbin/rx4/rtopk:
# the tree's CLI; devbin/w9: its wheel) against the tree before (devbin/c2/rtopk, 3137192's
# kernels and plan): the RTop-K, Appendix B, split, indexer, sampler, vector and vector-k
# grids alternated new, old, new, old; torch.topk on the same shapes; check.sh's select
# cases against bisect; compute-sanitizer on radix selects; the package on CUDA tensors
# against torch.topk (radix_py.py). The GPU tests and the package's CUDA tests: call e.
set -uo pipefail
R=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/rx4/* devbin/c2/rtopk
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in rx4 c2; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_c2_$i.json $L/grid_rx4_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1200 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_rx4_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 $R/gen.py /tmp/in
s=$SECONDS; timeout 200 bash $R/check.sh devbin/rx4/rtopk $L > $L/check.txt 2>&1; echo "== check.sh rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/check.txt >> $S
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cases=("--n 3 --m 3000001 -k 8192" "--n 1 --m 4194304 -k 32768 --smallest --dist ties")
for run in "memcheck 0" "memcheck 1" "racecheck 0" "synccheck 1"; do
  set -- $run; tool=$1; c=${cases[$2]}
  s=$SECONDS; f=$L/san_${tool}_$(echo $c | tr -c 'a-z0-9' _).log
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 devbin/rx4/rtopk bench cuda $c --reps 1 > $f 2>&1
  echo "== $tool [$c] rc=$? $((SECONDS-s)) s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" >> $S
done
python3 -m pip install -q --no-deps --target /tmp/site devbin/w9/rtopk-*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 120 python3 $R/radix_py.py $L/radix_py.json > $L/radix_py.txt 2>&1; echo "== radix_py rc=$? $((SECONDS-s)) s" >> $S; tail -2 $L/radix_py.txt >> $S
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
