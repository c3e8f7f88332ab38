#!/usr/bin/env bash
# 16-bit rows planned by registers + the packed-count rework: timing. bench/dtypes16.py with this
# build (full grid) and with the previous build's wheel (3cfa765, N = 2^20 only) in the same
# call; Nsight Compute's instruction counts on N = 2^18 x M = 512 (f16, bf16) and M = 256 (f16).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/rtopk-*.whl 2>&1 | tail -2
python3 -m pip install -q --no-deps --target /tmp/site_old devbin/old/rtopk-*.whl 2>&1 | tail -2
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
TAILN=22 step dtypes16 env PYTHONPATH=/tmp/site timeout 330 python3 bench/dtypes16.py --out $out/dtypes16 --reps 15
TAILN=12 step dtypes16_old env PYTHONPATH=/tmp/site_old timeout 120 python3 bench/dtypes16.py --out $out/dtypes16_old --reps 15 --quick
export PYTHONPATH=/tmp/site
prof() {  # name dtype n m k
  local name=$1; shift
  timeout 60 ncu --clock-control none --kernel-name regex:"rtopk_(warp|half|quarter)_rows" --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --import-source no -f -o /tmp/$name python3 devbin/prof16.py "$@" > $out/$name.log 2>&1
  ncu -i /tmp/$name.ncu-rep --page details > $out/$name.details.txt 2>&1
  ncu -i /tmp/$name.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $out/$name.sass.csv.gz
  echo "== $name $* $(tail -1 $out/$name.log)"
  grep -E "^ +(Duration|DRAM Throughput|Compute \(SM\) Throughput|Registers Per Thread|Executed Instructions  |Achieved Occupancy) " $out/$name.details.txt | sed 's/  */ /g'
}
prof m512_float16 float16 262144 512 64
prof m512_bfloat16 bfloat16 262144 512 64
prof m256_float16 float16 262144 256 32
cd $OUT && tar czf r.tgz r && rm -rf r
