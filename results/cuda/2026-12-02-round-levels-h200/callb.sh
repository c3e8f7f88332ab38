#!/usr/bin/env bash
# Usage (from the repository root on the device): callb.sh — call b (record.md): where a cluster
# row's cycles go by stall reason. Nsight Compute's full set on one launch of rtopk_cluster_rows
# (devbin/b1/rtopk, its own kernels) at three shapes (details, raw stall metrics, SASS source
# counters), the kernel's time with caches flushed before each launch and not, and the SASS
# size of the cluster unit (nvcc -cubin of the unit's generated source, cuobjdump).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L/src
tar xJf devbin/pk2.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_b1
B=devbin/b1/rtopk; chmod +x $B
$B bench cuda --n 1 --m 100000 -k 2048 --reps 3 --emit-sources $L/src > $L/src.txt 2>&1
for f in $L/src/rtopk_cluster_rows.cu; do
  nvcc -cubin -arch=sm_90 --fmad=false -std=c++17 -Xptxas -v "$f" -o "${f%.cu}.cubin" 2> "${f%.cu}.ptxas.txt"
  cuobjdump -sass "${f%.cu}.cubin" > "${f%.cu}.sass.txt"
  echo "== $(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' ${f%.cu}.sass.txt) SASS instructions; $(grep -E 'registers' ${f%.cu}.ptxas.txt | head -2 | tr '\n' ' ')" >> $S
done
for c in 1x100000:2048 1x262144:2048 1x49152:2048; do sh=${c%:*}; n=${sh%x*}; m=${sh#*x}; k=${c#*:}
  for cc in all none; do
    ncu --cache-control $cc --kernel-name regex:rtopk_cluster --launch-skip 3 --launch-count 15 --metrics gpu__time_duration.sum,smsp__cycles_active.avg,sm__cycles_elapsed.max \
      $B bench cuda --n $n --m $m -k $k --reps 20 > $L/time_${cc}_${sh}_$k.txt 2>&1
    echo "== $c cache $cc: $(grep -E 'gpu__time_duration.sum' $L/time_${cc}_${sh}_$k.txt | awk '{print $NF}' | sort -n | tr '\n' ' ')" >> $S
  done
  ncu --kernel-name regex:rtopk_cluster --launch-skip 3 --launch-count 1 --set full --import-source no -f -o $L/full_${sh}_$k \
    $B bench cuda --n $n --m $m -k $k --reps 5 > $L/full_${sh}_$k.log 2>&1
  ncu -i $L/full_${sh}_$k.ncu-rep --page details > $L/full_${sh}_$k.details.txt 2>&1
  ncu -i $L/full_${sh}_$k.ncu-rep --page raw > $L/full_${sh}_$k.raw.txt 2>&1
  ncu -i $L/full_${sh}_$k.ncu-rep --page source --print-source sass --csv > $L/full_${sh}_$k.sass.csv 2>&1
  echo "== full $c" >> $S
  grep -E "^ +(Duration|Elapsed Cycles|SM Active Cycles|Executed Instructions  |Warp Cycles Per Issued Instruction|Issue Slots Busy) " $L/full_${sh}_$k.details.txt | sed 's/  */ /g' >> $S
  grep -E "smsp__average_warp_latency_issue_stalled_[a-z_]+(\.ratio)? |smsp__pcsamp_warps_issue_stalled_[a-z_]+ |smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active.ratio " $L/full_${sh}_$k.raw.txt | sed 's/  */ /g' | sort -k3 -g -r | head -40 >> $S
  echo "== $SECONDS s" >> $S
  [ $SECONDS -gt 480 ] && break
done
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
