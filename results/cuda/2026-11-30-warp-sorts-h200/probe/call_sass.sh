set -x
chmod +x devbin/c2/rtopk
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
nvdisasm results/tmp/elf/s128.elf > /tmp/dis128.txt 2>&1
echo "== new 128"; grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z@!][A-Z0-9.@!P ]*" /tmp/dis128.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -22
grep -n "SHFL" -B6 -A6 /tmp/dis128.txt | head -60 > $OUT/shfl_context.txt
sed -n 400,520p /tmp/dis128.txt > $OUT/dis128_part.txt
cd results/tmp/sortbench && nvcc -O3 -arch=sm_90 -std=c++17 -o sb sortbench.cu && cuobjdump -sass -fun '_Z5sortUILi16ELi8ELb1EEvPfPjyj' sb > /tmp/mb.txt 2>&1; echo "== microbench 8x16v"; grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z@!][A-Z0-9.@!P ]*" /tmp/mb.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -22; cd ../../..
for k in 16 64 128; do
 for v in new old; do
  if [ $v = new ]; then KD=""; else KD="--kernel-dir results/tmp/variant_old"; fi
  devbin/c2/rtopk bench cuda --n 1048576 --m 256 -k $k --sorted --reps 15 $KD --json > /tmp/b.json 2>/dev/null
  echo "$v k=$k $(python3 -c "import json;d=json.load(open('/tmp/b.json'));print([round(r['median_ms'],4) for r in d])")"
 done
 devbin/c2/rtopk bench cuda --n 1048576 --m 256 -k $k --reps 15 --json > /tmp/b.json 2>/dev/null
 echo "unsorted k=$k $(python3 -c "import json;d=json.load(open('/tmp/b.json'));print([round(r['median_ms'],4) for r in d])")"
done
