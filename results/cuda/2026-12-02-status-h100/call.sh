#!/usr/bin/env bash
# Usage (from the repository root on the device): call.sh — record.md's call: HEAD's wheel
# (devbin/w1, built on this machine by `maturin build --release --strip -o devbin/w1` in
# crates/rtopk-py, carried as devbin/pkw1.tar.xz) on the GPU: the package's CUDA tests, then
# issue 33's figures again — eager host time against torch.topk (bench/eager_overhead.py) and
# rtopk.jax.topk against jax.lax.top_k on the RTop-K grid and the vocabulary rows
# (bench/jax_topk.py).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pkw1.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PY=/opt/torch/.venv/bin/python3
$PY -m pip install -q --no-deps --target /tmp/site_w1 devbin/w1/*.whl > $L/pip.txt 2>&1
export PYTHONPATH=/tmp/site_w1 RTOPK_CUDA_PTX_CACHE=/tmp/ptx_w1
$PY -c "import torch, jax; print('torch', torch.__version__, 'jax', jax.__version__)" >> $OUT/device.txt 2>&1
s=$SECONDS; (cd crates/rtopk-py && timeout 200 $PY -m pytest -q -rs -p no:cacheprovider tests -k "cuda and not verify_quick" > $L/pytest_cuda.txt 2>&1); echo "== pytest cuda rc=$? $((SECONDS-s)) s: $(tail -1 $L/pytest_cuda.txt)" >> $S
s=$SECONDS; timeout 120 $PY bench/eager_overhead.py --calls 3000 --json $L/eager.json > $L/eager.txt 2>&1; echo "== eager rc=$? $((SECONDS-s)) s" >> $S; cut -c1-160 $L/eager.txt | head -30 >> $S
s=$SECONDS; timeout 240 $PY bench/jax_topk.py --grid vocab,rtopk --out $L/jax > $L/jax.txt 2>&1; echo "== jax rc=$? $((SECONDS-s)) s" >> $S; tail -4 $L/jax.txt >> $S
cp $L/jax/*.md $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
