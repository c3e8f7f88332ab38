set -x
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/w0 devbin/s1x/old/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
python3 -m pip install -q --no-deps --target /tmp/w1 devbin/s1x/new/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
I=$OUT/info.txt; S=$OUT/steps.txt
cat devbin/s1x/COMMIT > $I; git rev-parse HEAD >> $I; git status --short >> $I
nvidia-smi --query-gpu=name,driver_version --format=csv >> $I; date -u >> $I
chmod +x devbin/s1x/rtopk
( time devbin/s1x/rtopk verify cuda --quick --dtype float32 ) > $OUT/verify_f32.txt 2>&1; tail -4 $OUT/verify_f32.txt
cd bench
for r in 1 2; do
  echo "== old run $r" >> $S; PYTHONPATH=/tmp/w0 timeout 150 python3 sort_step.py --out $OUT/sort_old_$r.json --reps 15 >> $S 2>&1; tail -1 $S
  echo "== new run $r" >> $S; PYTHONPATH=/tmp/w1 timeout 150 python3 sort_step.py --out $OUT/sort_new_$r.json --reps 15 >> $S 2>&1; tail -1 $S
done
date -u >> $I
