#!/usr/bin/env bash
# Usage (from the repository root on the device): calle.sh — call e (record.md): the threshold
# step's resources and counters on HEAD's wheel (devbin/w1): cuobjdump -res-usage and the SASS
# of the cached rtopk_row_threshold cubin, Nsight Compute on one_thr.py's calls.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
R=results/cuda/2026-12-02-threshold-step-h200
tar xJf devbin/pkt2.tar.xz -C devbin w1
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
PY=/opt/torch/.venv/bin/python3
$PY -m pip install --no-deps --target /tmp/site_w1 devbin/w1/*.whl > $L/pip_w1.txt 2>&1
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_e
PYTHONPATH=/tmp/site_w1 $PY $R/one_thr.py 1x32768:2048 64x32768:50 > $L/warm.txt 2>&1
ls -la /tmp/ptx_e > $L/cache_ls.txt
for f in $(grep -l "rtopk_row_threshold" /tmp/ptx_e/* 2>/dev/null); do
  echo "== $f" >> $L/res.txt; cuobjdump -res-usage $f >> $L/res.txt 2>&1; cuobjdump -sass $f > $L/sass_$(basename $f).txt 2>&1
done
grep -A2 "row_threshold" $L/res.txt | head -20 >> $S
for f in $L/sass_*; do echo "$f: $(grep -c '/\*[0-9a-f]*\*/' $f) SASS lines, $(grep -c 'LDL\|STL' $f) local" >> $S; done
s=$SECONDS; PYTHONPATH=/tmp/site_w1 timeout 200 ncu --kernel-name rtopk_row_threshold --section WarpStateStats --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,sm__cycles_elapsed.max $PY $R/one_thr.py 1x32768:2048 1x32768:512 1x32768:64 64x32768:2048 > $L/ncu.txt 2>&1; echo "== ncu rc=$? $((SECONDS-s)) s" >> $S
grep -E "rtopk_row_threshold|duration|inst_executed|registers|local_op|cycles_elapsed|Stall|Warp Cycles|ERR|rror" $L/ncu.txt | head -80 >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
