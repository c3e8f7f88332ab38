set -x
export PYTHONPATH=/tmp/w RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/w devbin/h8/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
cp crates/rtopk-py/python/rtopk/*.py /tmp/w/rtopk/
git rev-parse HEAD > $OUT/commit.txt; git status --short >> $OUT/commit.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
date -u > $OUT/date.txt
python3 bench/eager_overhead.py --json $OUT/eager.json > $OUT/eager.txt 2>&1
(cd crates/rtopk-py && timeout 400 python3 -m pytest -q -rs -x tests/test_torch_cuda.py tests/test_torch_topk_parity.py > $OUT/pytest_cuda.txt 2>&1); tail -5 $OUT/pytest_cuda.txt
which perf py-spy > $OUT/tools.txt 2>&1
cat $OUT/eager.txt | cut -c1-600
