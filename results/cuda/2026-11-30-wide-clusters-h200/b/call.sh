set -x
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > $OUT/device.txt
pip install --no-deps --target /tmp/site devbin/p7/*.whl > /dev/null 2>&1
export RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units
chmod +x devbin/p7/rtopk devbin/c16b/rtopk
L=/tmp/logs; mkdir -p $L
for run in 1 2; do
 for b in p7 c16b; do
  for m in 163840 200000 262144 393216 500000; do for n in 1 4 8; do
   devbin/$b/rtopk bench cuda --n $n --m $m -k 64,256,1024,2048 --reps 30 --json > $L/${b}_${run}_${n}x${m}.json 2> $L/${b}_${run}_${n}x${m}.err
  done; done
  devbin/$b/rtopk bench cuda --n 1 --m 262144 -k 2048 --sorted --reps 30 --json > $L/${b}_${run}_sorted.json 2> $L/${b}_${run}_sorted.err
 done
done
python3 results/cuda/2026-11-30-wide-clusters-h200/gen.py /tmp/in
bash results/cuda/2026-11-30-wide-clusters-h200/check.sh devbin/c16b/rtopk $L > $L/check.txt 2>&1
tail -3 $L/check.txt
cd $L && tar czf $OUT/logs.tgz * && cd -
