pip install -q --no-deps --target /tmp/wn devbin/w1/*.whl 2>/dev/null
export PYTHONPATH=/tmp/wn
python3 results/cuda/2026-11-30-block-sort-h200/p.py
ncu --target-processes all --metrics gpu__time_duration.sum,launch__block_size,launch__grid_size,sm__cycles_elapsed.avg --cache-control all python3 results/cuda/2026-11-30-block-sort-h200/p.py > $OUT/ncu.txt 2>&1
grep -E "rtopk_|gpu__time|block_size|grid_size" $OUT/ncu.txt | head -150
