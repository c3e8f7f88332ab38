set -x
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > $OUT/device.txt
pip install --no-deps --target /tmp/site devbin/p7/*.whl > /dev/null 2>&1
export RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units
chmod +x devbin/p7/rtopk devbin/c16/rtopk
L=/tmp/logs; mkdir -p $L
shapes="1:49152 1:100000 1:131072 1:163840 1:262144 2:100000 8:100000 8:49152"
for run in 1 2; do
 for b in p7 c16; do
  for s in $shapes; do n=${s%%:*}; m=${s##*:};
   devbin/$b/rtopk bench cuda --n $n --m $m -k 64,512,1024,2048 --reps 30 --json > $L/${b}_${run}_${n}x${m}.json 2> $L/${b}_${run}_${n}x${m}.err
  done
 done
done
# correctness of the 16-block clusters: verify f32 quick with the c16 build
timeout 200 devbin/c16/rtopk verify cuda --quick --dtype float32 > $L/verify_c16.txt 2>&1; echo "verify rc=$?" >> $L/verify_c16.txt
tail -5 $L/verify_c16.txt
cd $L && tar czf $OUT/logs.tgz * && cd -
