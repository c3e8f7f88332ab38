set -x
# timings: the new wheel (p7) and the one before this work (p5, 6e2cce3), alternated
I=$OUT/info.txt; S=$OUT/steps.txt
cat devbin/p7/COMMIT > $I; nvidia-smi --query-gpu=name,driver_version --format=csv >> $I; date -u >> $I
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/site devbin/p7/*.whl
python3 -m pip install -q --no-deps --target /tmp/site_old devbin/p5/*.whl
cd bench
echo "== sort_step.py old" >> $S; PYTHONPATH=/tmp/site_old timeout 150 python3 sort_step.py --grid rtopk,few-rows --out $OUT/sort_old.json --reps 15 > /dev/null 2>> $S; echo "rc=$?" >> $S
echo "== sort_step.py new" >> $S; PYTHONPATH=/tmp/site timeout 150 python3 sort_step.py --grid rtopk,few-rows --out $OUT/sort_new.json --reps 15 > /dev/null 2>> $S; echo "rc=$?" >> $S
cd ..
echo "== jax" >> $S; PYTHONPATH=/tmp/site timeout 200 python3 bench/jax_topk.py --grid rtopk,vocab --out $OUT > $OUT/jax.txt 2>&1; tail -3 $OUT/jax.txt >> $S
date -u >> $I
