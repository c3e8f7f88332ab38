#!/usr/bin/env bash
# Where 16-bit rows spend their instructions (ncu source counters, f32/f16/bf16) and the RTop-K
# grid A/B of the f32 kernel (old build 5a81af9 vs 3cfa765) left over from the 16-bit change.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
prof() {  # name dtype n m k
  local name=$1; shift
  ncu --clock-control none --kernel-name regex:"rtopk_(warp|half|quarter)_rows" --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats \
    --import-source no -f -o /tmp/$name python3 devbin/prof16.py "$@" > $out/$name.log 2>&1
  ncu -i /tmp/$name.ncu-rep --page details > $out/$name.details.txt 2>&1
  ncu -i /tmp/$name.ncu-rep --page source --print-source sass --csv > /tmp/$name.sass.csv 2>&1
  gzip -c /tmp/$name.sass.csv > $out/$name.sass.csv.gz
  echo "== $name $* $(tail -1 $out/$name.log)"
  grep -E "^ +(Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|Executed Instructions  |Warp Cycles Per Issued Instruction) " $out/$name.details.txt | sed 's/  */ /g'
  python3 bench/stage_breakdown.py /tmp/$name.sass.csv $2 | tee $out/$name.stages.txt
}
for dt in float32 float16 bfloat16; do prof m512_$dt $dt 262144 512 64; done
for dt in float32 float16; do prof m256_$dt $dt 262144 256 32; done
devbin/rtopk_old bench cuda --grid rtopk --json > $out/grid_old.json 2> $out/grid_old.log
devbin/rtopk bench cuda --grid rtopk --json > $out/grid_new.json 2> $out/grid_new.log
python3 bench/ab_compare.py $out/grid_old.json $out/grid_new.json --exact-only --record results/cuda/2026-11-21-bench-vs-torch-h100/rtopk_cuda.json > $out/grid_ab.txt 2>&1; tail -8 $out/grid_ab.txt
cd $OUT && tar czf r.tgz r && rm -rf r
