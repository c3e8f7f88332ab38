#!/usr/bin/env bash
# call a (run from the repository root on the device): devbin/c2 = the first cluster-row build
# (every row the cluster holds, past 8192), devbin/f1x = HEAD's build (b6a598b's kernels and plan)
S=$OUT/steps.txt
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/w2 devbin/c2/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl >> $S 2>&1
export PYTHONPATH=/tmp/w2 RTOPK_CUDA_PTX_CACHE=/tmp/ptx2
chmod +x devbin/c2/rtopk devbin/f1x/rtopk
echo "== one shape, new" >> $S
( time timeout 120 devbin/c2/rtopk bench cuda --n 1 --m 163840 -k 512,2048 --reps 15 ) >> $S 2>&1
echo "== one shape, head" >> $S
( time timeout 120 devbin/f1x/rtopk bench cuda --n 1 --m 163840 -k 512,2048 --reps 15 ) >> $S 2>&1
echo "== check" >> $S
( time timeout 200 python3 bench/cluster_rows.py check ) >> $S 2>&1
echo "== grids" >> $S
( time timeout 150 devbin/c2/rtopk bench cuda --grid indexer,sampler --reps 15 --json > $OUT/grid_new.json ) >> $S 2>&1
( time timeout 150 devbin/f1x/rtopk bench cuda --grid indexer,sampler --reps 15 --json > $OUT/grid_head.json ) >> $S 2>&1
echo "== end" >> $S
