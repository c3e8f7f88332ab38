set -x
export PYTHONPATH=/tmp/w RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/w devbin/f1x/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
I=$OUT/info.txt
cat devbin/f1x/COMMIT > $I; git rev-parse HEAD >> $I; nvidia-smi --query-gpu=name,driver_version --format=csv >> $I; date -u >> $I
timeout 200 python3 bench/jax_topk.py --grid vocab --out $OUT > $OUT/jax.txt 2>&1; tail -6 $OUT/jax.txt
date -u >> $I
