#!/usr/bin/env bash
# Grouped selection on the device: the Python tests on CUDA tensors, bench/grouped.py, and
# ncu's kernel time of rtopk_grouped_rows for 1..65536 tokens.
set -u
W=$(ls devbin/gw/*.whl | head -1)
python3 -m pip install -q --no-deps --target /tmp/site "$W" > $OUT/pip.txt 2>&1
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx
(nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; python3 -c 'import torch; print("torch", torch.__version__)'; date -u) > $OUT/device.txt
(cd devbin/g2 && timeout 240 ./tests/gpu_grouped --ignored --test-threads=1) > $OUT/gpu_grouped.txt 2>&1; echo "rc=$?" >> $OUT/gpu_grouped.txt
tail -3 $OUT/gpu_grouped.txt
timeout 200 compute-sanitizer --tool racecheck devbin/g2/tests/gpu_grouped --ignored grouped_rows_on_the_gpu_equal > $OUT/racecheck.txt 2>&1; tail -2 $OUT/racecheck.txt
timeout 200 python3 -m pytest -q -rs -p no:cacheprovider crates/rtopk-py/tests/test_grouped.py > $OUT/pytest_grouped.txt 2>&1; echo "rc=$?" >> $OUT/pytest_grouped.txt
tail -3 $OUT/pytest_grouped.txt
timeout 300 python3 bench/grouped.py --out $OUT/grouped.jsonl > $OUT/grouped.txt 2>&1; echo "rc=$?" >> $OUT/grouped.txt
cat $OUT/grouped.txt
cat > /tmp/ncu_drive.py <<'PY'
import sys, torch, rtopk
n = int(sys.argv[1]); dt = getattr(torch, sys.argv[2])
x = torch.randn(n, 256, device="cuda").to(dt)
for _ in range(3):
    rtopk.grouped_topk(x, 8, 8, 4)
torch.cuda.synchronize()
PY
for dt in float32 bfloat16; do for n in 1 4 16 64 256 4096 65536; do
  timeout 60 ncu --kernel-name regex:rtopk_grouped_rows --launch-skip 1 --launch-count 2 --metrics gpu__time_duration.sum --cache-control all --csv python3 /tmp/ncu_drive.py $n $dt > $OUT/ncu_${dt}_${n}.csv 2>$OUT/ncu_${dt}_${n}.err
  echo "$dt $n $(grep gpu__time_duration $OUT/ncu_${dt}_${n}.csv | tail -2 | awk -F'","' '{print $NF}' | tr -d '"' | tr '\n' ' ')"
done; done | tee $OUT/ncu_summary.txt
cd $OUT && tar czf ncu.tgz ncu_*.csv ncu_*.err && rm -f ncu_*.csv ncu_*.err
