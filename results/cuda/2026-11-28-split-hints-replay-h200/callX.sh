#!/usr/bin/env bash
# Call X (1 x H200): the per-iteration cost of one block per row on few long rows (the split
# rows' stages) — exact against early stopping after 0, 4, 8 steps; ncu's full set on the chunk
# stage of 1 x 163840, k = 2048.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
o=/tmp/o; mkdir -p $o
B=devbin/new/rtopk
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; echo "binary $(cat devbin/new/BINARY_COMMIT)"; } | tee $o/device.txt
for s in "5 32768 2048" "1 10240 2048" "4 4096 512" "20 8192 2048" "1 40960 2048"; do
  set -- $s
  for it in exact 0 4 8 12; do
    a=(); [ $it != exact ] && a=(--max-iter $it)
    ms=$(timeout 60 $B bench cuda --n $1 --m $2 -k $3 --strategy block --reps 30 --json "${a[@]}" 2>>$o/err.txt | grep -o '"median_ms": [0-9.]*' | head -1)
    echo "$1x$2 k=$3 block iter=$it $ms"
  done
done 2>&1 | tee $o/summary.txt
prof() {
  local name=$1; shift
  timeout 150 ncu --clock-control none --kernel-name regex:rtopk_block --launch-skip 4 --launch-count 1 \
      --set full --import-source no -f -o "$o/$name" $B bench cuda "$@" --reps 3 > "$o/$name.log" 2>&1
  ncu -i "$o/$name.ncu-rep" --page details > "$o/$name.details.txt" 2>&1
  echo "== $name $*"
  grep -E "^ +(Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|Executed Instructions  |No Eligible|Warp Cycles Per Issued Instruction|Block Size|Grid Size) " "$o/$name.details.txt" | sed 's/  */ /g'
  grep -iE "stall|barrier|Long Scoreboard" "$o/$name.details.txt" | head -12
}
prof chunk5 --n 5 --m 32768 -k 2048 --strategy block 2>&1 | tee -a $o/summary.txt
rm -f $o/*.ncu-rep
tar czf $OUT/call_x.tgz -C $o .
