#!/bin/bash
# ptxas's report and local-memory instruction counts of the unit sources in $1
export PATH=/usr/local/cuda/bin:$PATH
cd $1
ls *.cu | xargs -P 16 -I{} sh -c 'nvcc -cubin -arch=sm_90 --fmad=false -std=c++17 -Xptxas -v "$1" -o "${1%.cu}.cubin" 2> "${1%.cu}.ptxas.txt"' _ {}
for f in *.cu; do
  b=${f%.cu}
  echo "== $b"
  grep -E "Compiling|registers|spill|stack" $b.ptxas.txt | sed 's/ptxas info    ://g'
  cuobjdump -sass $b.cubin > $b.sass
  echo "   SASS: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $b.sass) instr, LDL $(grep -c 'LDL' $b.sass), STL $(grep -c 'STL' $b.sass)"
done
