set -x
export PYTHONPATH=/tmp/w RTOPK_CUDA_PTX_CACHE=/tmp/ptx
python3 -m pip install -q --no-deps --target /tmp/w devbin/p1/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl
I=$OUT/info.txt; S=$OUT/steps.txt
cat devbin/p1/COMMIT > $I; git rev-parse HEAD >> $I; git status --short >> $I
nvidia-smi --query-gpu=name,driver_version --format=csv >> $I; date -u >> $I
python3 -c "import torch; print(torch.__version__)" >> $I
chmod +x devbin/p1/*
( time devbin/p1/rtopk verify cuda --quick --dtype float32 ) > $OUT/verify_f32.txt 2>&1; tail -4 $OUT/verify_f32.txt
echo "== gpu_ragged --ignored pick" >> $S; ( time devbin/p1/gpu_ragged --ignored pick ) >> $S 2>&1; tail -4 $S
mkdir -p /tmp/r /tmp/g
echo "== router_rows.py --reps 20" >> $S; timeout 150 python3 bench/router_rows.py --out /tmp/r --reps 20 >> $S 2>&1; cp /tmp/r/router_rows.md $OUT/; tail -3 $S
echo "== router_rows.py --grid --reps 15" >> $S; timeout 200 python3 bench/router_rows.py --grid --out /tmp/g --reps 15 >> $S 2>&1; cp /tmp/g/pick_grid.md $OUT/; tail -3 $S
echo "== eager_overhead.py" >> $S; python3 bench/eager_overhead.py --json $OUT/eager.json >> $S 2>&1; tail -4 $S | cut -c1-400
date -u >> $I
