set -x
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/site devbin/p7/*.whl
export RTOPK_CUDA_UNITS=/tmp/site/rtopk/_units
I=$OUT/info.txt; S=$OUT/steps.txt
cat devbin/p7/COMMIT > $I; git status --short >> $I
nvidia-smi --query-gpu=name,driver_version --format=csv >> $I; date -u >> $I
chmod +x devbin/p7/rtopk devbin/p7/gpu
( time devbin/p7/rtopk verify cuda --quick --dtype float32 ) > /tmp/verify_f32.txt 2>&1; grep -v "^$" /tmp/verify_f32.txt | tail -16 >> $S
echo "== gpu tests" >> $S; ( timeout 240 devbin/p7/gpu --ignored --test-threads 4 ) > /tmp/gpu.txt 2>&1; tail -15 /tmp/gpu.txt >> $S
echo "== sanitizer" >> $S
for a in "--n 1000 --m 300 -k 100" "--n 333 --m 2000 -k 1024" "--n 700 --m 500 -k 50" "--n 2000 --m 200 -k 13 --smallest"; do
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 devbin/p7/rtopk bench cuda $a --sorted --reps 1 > /tmp/san.txt 2>&1; echo "memcheck $a rc=$? $(grep -c 'ERROR SUMMARY: 0 errors' /tmp/san.txt)" >> $S
done
echo "== pytest" >> $S; (cd crates/rtopk-py && timeout 200 python3 -m pytest -q -rs tests/test_torch_cuda.py tests/test_torch_topk_parity.py -k "not verify_quick" > /tmp/pytest.txt 2>&1); tail -3 /tmp/pytest.txt >> $S
cp /tmp/verify_f32.txt /tmp/gpu.txt /tmp/pytest.txt /tmp/san.txt $OUT/; (cd $OUT && tar czf logs.tgz verify_f32.txt gpu.txt pytest.txt san.txt && rm verify_f32.txt gpu.txt pytest.txt san.txt)
date -u >> $I
