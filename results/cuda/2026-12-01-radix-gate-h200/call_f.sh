#!/usr/bin/env bash
# call f (from the repository root on the device): the committed tree's build (devbin/h: the
# CLI, rtopk-cuda's gpu and rtopk's gpu_ragged test binaries; devbin/wh: the wheel), final
# review — the GPU tests (the radix select and the nested one, 16-bit and integer rows, every
# strategy, every step kind) and gpu_ragged against bisect; the vector-k, vector and indexer
# grids against fab771a's CLI (devbin/i) alternated twice, torch.topk on the new one's shapes,
# the table; then Nsight Compute on the radix passes of one row in f32, f16 and bf16
# (prof16.py: 2^25 at k = 2048 and 2^23 at k = 1024), time and counters a kernel.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lf; mkdir -p $L
R=results/cuda/2026-12-01-radix-gate-h200
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/h/* devbin/i/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 240 devbin/h/gpu --include-ignored --test-threads 1 radix_rows second_stage_is_a_radix sixteen_bit_rows integer_rows every_strategy every_step_kind > $L/gpu_tests.txt 2>&1; echo "== gpu tests rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_tests.txt >> $S
s=$SECONDS; timeout 60 devbin/h/gpu_ragged --include-ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s" >> $S; grep -E "test result|panicked" $L/gpu_ragged.txt >> $S
G=vector-k,vector,indexer
for i in 1 2; do
  for b in h i; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_i_$i.json $L/grid_h_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_h_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 results/cuda/2026-11-30-radix-candidates-h200/table.py $L h i > $L/table.md 2>&1; cat $L/table.md >> $S
python3 -m pip install -q --no-deps --target /tmp/site devbin/wh/rtopk-*.whl > $L/pip.txt 2>&1
M1=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
M2=$M1,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__inst_executed.sum
for mk in 33554432:2048 8388608:1024; do
  IFS=: read m k <<< "$mk"
  s=$SECONDS
  PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx timeout 150 ncu --csv --print-units base --metrics $M2 --cache-control all -k regex:radix python3 $R/prof16.py $m $k > $L/ncu_${m}_${k}.csv 2> $L/ncu_${m}_${k}.err
  rc=$?
  if [ $rc != 0 ]; then
    PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx timeout 150 ncu --csv --print-units base --metrics $M1 --cache-control all -k regex:radix python3 $R/prof16.py $m $k > $L/ncu_${m}_${k}.csv 2>> $L/ncu_${m}_${k}.err
    rc="$rc then $?"
  fi
  echo "== ncu $m $k rc=$rc $((SECONDS-s)) s" >> $S
done
cp $L/device.txt $L/table.md $L/ncu_*.csv $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
