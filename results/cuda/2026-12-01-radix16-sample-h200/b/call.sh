#!/usr/bin/env bash
# call b (from the repository root on the device: bash
# results/cuda/2026-12-01-radix16-sample-h200/b/call.sh): where a 16-bit radix pass's time goes —
# Nsight Compute on the radix select's kernels of one row of 2^26 normal values at k = 256, f16
# against f32 (devbin/n2's rtopk: its gate gives both the sampled radix select), every kernel
# with cold caches; the answers compared with bisect's.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lb; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/n2/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -c "
import numpy as np
x = np.random.default_rng(26).standard_normal((1, 1 << 26), dtype=np.float32)
np.save('/tmp/x32.npy', x); np.save('/tmp/x16.npy', x.astype(np.float16))"
for t in 32 16; do
  devbin/n2/rtopk plan --n 1 --m 67108864 -k 256 --dtype $([ $t = 32 ] && echo float32 || echo float16) > $L/plan$t.txt 2>&1
  devbin/n2/rtopk select --algo bisect --input /tmp/x$t.npy -k 256 --values $L/bv$t.npy --indices $L/bi$t.npy 2>> $L/err.txt
  devbin/n2/rtopk select --algo cuda --input /tmp/x$t.npy -k 256 --values $L/cv$t.npy --indices $L/ci$t.npy 2>> $L/err.txt
  same=no; cmp -s $L/cv$t.npy $L/bv$t.npy && cmp -s $L/ci$t.npy $L/bi$t.npy && same=yes
  echo "== f$t cuda equal to bisect: $same" >> $S
  s=$SECONDS; timeout 200 ncu --cache-control all --clock-control base --kernel-name regex:radix \
    --section SpeedOfLight --section InstructionStats --section WarpStateStats --section Occupancy \
    --metrics gpu__time_duration.sum,sm__sass_inst_executed.sum,smsp__sass_inst_executed_op_shared_atom.sum,sm__sass_inst_executed_op_global_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum \
    devbin/n2/rtopk select --algo cuda --input /tmp/x$t.npy -k 256 --values $L/nv$t.npy > $L/ncu$t.txt 2>&1
  echo "== ncu f$t rc=$? $((SECONDS-s)) s" >> $S
  grep -E "rtopk_radix|gpu__time_duration|sm__sass_inst_executed.sum|shared_atom|global_ld.sum|bank_conflicts|Issue Slots Busy|Achieved Occupancy|Registers Per|Compute \(SM\) Throughput|Memory Throughput|Stall|Warp Cycles Per Issued" $L/ncu$t.txt >> $S
done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L --exclude '*.npy' .
echo "== end $SECONDS s" >> $S
