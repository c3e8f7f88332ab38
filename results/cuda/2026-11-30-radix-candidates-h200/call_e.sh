#!/usr/bin/env bash
# call e (from the repository root on the device): the committed build (devbin/rxa: the CLI,
# the gpu and gpu_ragged test binaries; devbin/wa: the wheel) — the GPU tests (the radix
# select against bisect and warp-sim, 16-bit and integer rows in every strategy, every
# strategy and every step kind of the program), gpu_ragged; the seven grids against
# da4e31a's build (devbin/rx4) alternated, torch.topk on the new one's shapes, the table
# (table.py); the package on CUDA tensors against torch.topk (radix_py.py of the radix record)
# and its CUDA tests.
set -uo pipefail
R=results/cuda/2026-11-30-radix-candidates-h200; P=results/cuda/2026-11-30-radix-rows-h200
S=$OUT/steps.txt; L=/tmp/le; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/rxa/* devbin/rx4/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 200 devbin/rxa/gpu --include-ignored --test-threads 1 radix_rows sixteen_bit_rows integer_rows every_strategy every_step_kind > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result" $L/gpu_tests.txt >> $S
s=$SECONDS; timeout 100 devbin/rxa/gpu_ragged --include-ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result" $L/gpu_ragged.txt >> $S
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in rxa rx4; do
    s=$SECONDS; timeout 120 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_rx4_$i.json $L/grid_rxa_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_rxa_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 $R/table.py $L rxa rx4 > $L/table.md 2>&1; cat $L/table.md >> $S
python3 -m pip install -q --no-deps --target /tmp/site devbin/wa/rtopk-*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; timeout 120 python3 $P/radix_py.py $L/radix_py.json > $L/radix_py.txt 2>&1; echo "== radix_py rc=$? $((SECONDS-s)) s" >> $S; tail -2 $L/radix_py.txt >> $S
s=$SECONDS; (cd crates/rtopk-py && timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $L/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s" >> $S; tail -3 $L/pytest_cuda.txt >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
