#!/bin/bash
# The one-file wide-rows harnesses of h/, h2/, h3/ and h4/ (record.md), as they ran: each
# DIR/harness.tgz holds the translation units — the kernels of each variant (wide_rows.cu and
# the headers it includes, inlined; each revision in a namespace of its own where one file
# holds two) followed by the host that times every entry point on 2^18 rows with CUDA events
# (median of 30 launches over two buffers) and hashes each output. Compiled with nvcc and the
# options the runtime gives NVRTC. Usage, on the device from the repository root:
#   bash results/cuda/2026-11-29-wide-rows-h200/harness.sh h4
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
work=$(mktemp -d)
tar xzf "$here/$dir/harness.tgz" -C "$work"
cd "$work"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; nvcc --version | tail -2; } > "$OUT/device.txt"
for f in *.cu; do
  ( nvcc -O3 -arch=sm_90 --fmad=false --ftz=false --prec-sqrt=true --prec-div=true -std=c++17 -Xptxas -v \
      -o "${f%.cu}" "$f" > "$OUT/build_${f%.cu}.txt" 2>&1 ) &
done
wait
for f in *.cu; do
  b=${f%.cu}
  if [ -x "$b" ]; then timeout 200 "./$b" "$b" >> "$OUT/times.txt" 2>&1; else echo "$b failed" >> "$OUT/times.txt"; fi
done
