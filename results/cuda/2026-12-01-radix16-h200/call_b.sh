#!/usr/bin/env bash
# call b (from the repository root on the device): the second build (devbin/wr2: the bins read
# from shared memory, the padding taken off by one store, the rows' bins 8 banks apart)
# against da8fb2d's (devbin/wh): check16.py, bench/dtypes16.py --quick on both, then Nsight
# Compute on 2^18 x 256 f16 at k = 16 and 2^18 x 768 bf16 at k = 64, both builds.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L
R=results/cuda/2026-12-01-radix16-h200
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_new devbin/wr2/rtopk-*.whl > $L/pip.txt 2>&1
$PY -m pip install -q --no-deps --target /tmp/site_old devbin/wh/rtopk-*.whl >> $L/pip.txt 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
s=$SECONDS; PYTHONPATH=/tmp/site_new timeout 200 $PY $R/check16.py --quick > $L/check16.txt 2>&1; echo "== check16 rc=$? $((SECONDS-s)) s" >> $S; tail -5 $L/check16.txt >> $S
for b in new old; do
  s=$SECONDS; PYTHONPATH=/tmp/site_$b:bench timeout 150 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16_$b > $L/d16_$b.log 2>&1; echo "== dtypes16 $b rc=$? $((SECONDS-s)) s" >> $S
  sed -n '/elements\/s on 16-bit/,/## rtopk with counts/p' $L/d16_$b/dtypes16.md >> $S 2>/dev/null
  cp $L/d16_$b/dtypes16.md $L/dtypes16_$b.md; cp $L/d16_$b/dtypes16.json $L/dtypes16_$b.json
done
M=gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__shared_mem_per_block_static,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
for c in "262144 256 16 float16" "262144 768 64 bfloat16"; do
  for b in new old; do
    s=$SECONDS; PYTHONPATH=/tmp/site_$b timeout 100 ncu --csv --print-units base --metrics $M --cache-control all -k regex:rows $PY $R/prof_rows16.py $c > $L/ncu_${b}_${c// /_}.csv 2> $L/ncu_${b}_${c// /_}.err; echo "== ncu $b $c rc=$? $((SECONDS-s)) s" >> $S
    grep -v "^==" $L/ncu_${b}_${c// /_}.csv | tail -n 10 | cut -d, -f5,13- >> $S
  done
done
rm -rf $L/d16_new $L/d16_old
cp -r $L/* $OUT/ 2>/dev/null
echo "== end $SECONDS s" >> $S
