set -x
export PYTHONPATH=/tmp/w RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/w devbin/h8/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
cp crates/rtopk-py/python/rtopk/*.py /tmp/w/rtopk/
git rev-parse HEAD > $OUT/commit.txt; git status --short >> $OUT/commit.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
date -u > $OUT/date.txt
python3 -c "import torch, jax; print(torch.__version__, jax.__version__, jax.devices())" > $OUT/versions.txt 2>&1
( time python3 -m rtopk.cuda prepare ) > $OUT/prepare.txt 2>&1; tail -3 $OUT/prepare.txt
python3 bench/first_call_py.py --out $OUT --label prepared > $OUT/first_call.txt 2>&1; tail -12 $OUT/first_call.txt
(cd crates/rtopk-py && timeout 240 python3 -m pytest -q -rs tests/test_torch_cuda.py -k "slab or graph or compile or backward or opcheck or stream or concurrent or errors" > $OUT/pytest_cuda.txt 2>&1); tail -3 $OUT/pytest_cuda.txt
(cd crates/rtopk-py && timeout 150 python3 -m pytest -q -rs tests/test_torch_topk_parity.py > $OUT/pytest_parity.txt 2>&1); tail -3 $OUT/pytest_parity.txt
timeout 200 python3 bench/jax_topk.py --grid rtopk,vocab --out $OUT > $OUT/jax.txt 2>&1; tail -8 $OUT/jax.txt
date -u >> $OUT/date.txt
