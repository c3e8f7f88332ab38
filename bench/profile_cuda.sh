#!/usr/bin/env bash
# Where the kernel's time goes, from the hardware: the compiler's resource report of every
# kernel unit, the SASS of the main instantiations, and Nsight Compute's full section set on
# representative shapes.
#   bash bench/profile_cuda.sh BIN OUTDIR [KERNELS_DIR]
# KERNELS_DIR: a variant of crates/rtopk-cuda/kernels/ (the same file names) to profile, passed
# to BIN as `rtopk bench cuda --kernel-dir KERNELS_DIR`.
set -uo pipefail
bin=$1; out=$2; variant=${3:-}; mkdir -p "$out/src"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
kdir=()
[ -n "$variant" ] && kdir=(--kernel-dir "$variant")
"$bin" bench cuda --emit-sources "$out/src" "${kdir[@]}" | tee "$out/src.txt"
# each unit's generated source (the shared constants, its family's file, its entry point), as
# the library compiles it, with nvcc for ptxas's report
ls "$out/src"/*.cu | xargs -P "$(nproc)" -I{} sh -c \
  'nvcc -cubin -arch=sm_90 --fmad=false -std=c++17 -Xptxas -v "$1" -o "${1%.cu}.cubin" 2> "${1%.cu}.ptxas.txt"' _ {}
cat "$out/src"/*.ptxas.txt > "$out/ptxas.txt"
grep -E "Compiling|registers|spill" "$out/ptxas.txt" | paste - - - | sed 's/ptxas info    ://g' | head -50
for f in rtopk_half_rows_16 rtopk_warp_rows_24 rtopk_block_rows rtopk_sort_warp_rows_4; do
  cuobjdump -sass -fun "$f" "$out/src/$f.cubin" > "$out/sass_$f.txt"
  echo "$f: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' "$out/sass_$f.txt") SASS instructions"
done
prof() {  # name, bench arguments
  local name=$1; shift
  ncu --clock-control none --kernel-name regex:rtopk_ --launch-skip 3 --launch-count 1 \
      --set full --import-source no -f -o "$out/$name" "$bin" bench cuda "$@" "${kdir[@]}" --reps 3 > "$out/$name.log" 2>&1
  ncu -i "$out/$name.ncu-rep" --page details > "$out/$name.details.txt" 2>&1
  ncu -i "$out/$name.ncu-rep" --page source --print-source sass --csv > "$out/$name.sass.csv" 2>&1
  echo "== $name $*"
  grep -E "^ +(Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Executed Instructions  |No Eligible|Avg. Active Threads Per Warp|Warp Cycles Per Issued Instruction) " "$out/$name.details.txt" | sed 's/  */ /g'
}
prof w256 --n 1048576 --m 256 -k 32
prof w256_it0 --n 1048576 --m 256 -k 32 --max-iter 0
prof w768 --n 262144 --m 768 -k 64
prof b8192 --n 65536 --m 8192 -k 256
prof b65536 --n 16384 --m 65536 -k 512
python3 bench/stage_breakdown.py "$out/w256.sass.csv" 1048576 | tee "$out/stages_w256.txt"
# (on the device tool, write OUTDIR outside $OUT and tar it there: more than 8 files)
