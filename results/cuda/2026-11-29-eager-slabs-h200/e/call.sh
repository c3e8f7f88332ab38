set -x
export PYTHONPATH=/tmp/w RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/w devbin/f1x/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
I=$OUT/info.txt; S=$OUT/steps.txt
cat devbin/f1x/COMMIT > $I; git rev-parse HEAD >> $I; git status --short >> $I
nvidia-smi --query-gpu=name,driver_version --format=csv >> $I; date -u >> $I
chmod +x devbin/f1x/rtopk devbin/f1x/gpu_ragged
( time devbin/f1x/rtopk verify cuda --quick --dtype bfloat16 ) > $OUT/verify_bf16.txt 2>&1; tail -4 $OUT/verify_bf16.txt
echo "== gpu_ragged --ignored pick" >> $S; ( time devbin/f1x/gpu_ragged --ignored pick ) >> $S 2>&1; tail -3 $S
echo "== pytest" >> $S; (cd crates/rtopk-py && timeout 200 python3 -m pytest -q -rs tests/test_torch_cuda.py tests/test_torch_topk_parity.py -k "slab or graph or compile or backward or opcheck or stream or concurrent or errors or 16_bit or parity" >> $S 2>&1); tail -3 $S
cd bench
echo "== sort_step.py" >> $S; timeout 120 python3 sort_step.py --out $OUT/sort_final.json --reps 15 >> $S 2>&1; tail -1 $S
echo "== eager_overhead.py" >> $S; timeout 120 python3 eager_overhead.py --json $OUT/eager.json >> $S 2>&1; tail -4 $S | cut -c1-300
date -u >> $I
