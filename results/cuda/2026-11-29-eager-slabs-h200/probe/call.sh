set -x
export PYTHONPATH=/tmp/w RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/w devbin/h8/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 -c "import torch; print(torch.__version__)"
python3 devbin/e1/eager_probe.py $OUT/probe.json > $OUT/probe.txt 2>&1; tail -5 $OUT/probe.txt
