set -x
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/site devbin/p6/*.whl
export RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units
I=$OUT/info.txt; S=$OUT/steps.txt
cat devbin/p6/COMMIT > $I; git status --short >> $I
nvidia-smi --query-gpu=name,driver_version --format=csv >> $I; date -u >> $I
chmod +x devbin/p6/rtopk
( time devbin/p6/rtopk verify cuda --quick --dtype float32 ) > $OUT/verify_f32.txt 2>&1; tail -4 $OUT/verify_f32.txt
( time devbin/p6/rtopk verify cuda --quick --dtype bfloat16 ) > $OUT/verify_bf16.txt 2>&1; tail -4 $OUT/verify_bf16.txt
echo "== pytest" >> $S; (cd crates/rtopk-py && timeout 200 python3 -m pytest -q -rs tests/test_torch_cuda.py tests/test_torch_topk_parity.py -k "not verify_quick" >> $S 2>&1); tail -3 $S
cd bench
echo "== sort_step.py" >> $S; timeout 150 python3 sort_step.py --grid rtopk,few-rows --out $OUT/sort_new.json --reps 15 >> $S 2>&1; tail -1 $S
cd ..
echo "== jax" >> $S; timeout 200 python3 bench/jax_topk.py --grid rtopk,vocab --out $OUT > $OUT/jax.txt 2>&1; tail -6 $OUT/jax.txt
date -u >> $I
