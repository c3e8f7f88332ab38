#!/usr/bin/env bash
# call g (from the repository root on the device): the final tree's build (devbin/s4: e7ac4a1's
# rtopk, its gpu test binary with the radix test comparing every shape with the simulator, and
# its wheel), in one call — the kernel against bisect and warp-sim bit for bit: the radix GPU
# tests (the sampled shapes 9 x 2^20 and 1 x 2^24 now against the simulator too), the 16-bit
# GPU tests, `rtopk verify cuda --quick` on float16 and bfloat16 (the f16 value-phase test of
# 4437bfc on the final code); then torch.topk beside it: bench/dtypes16.py --quick (every
# case checked equal to torch.topk first) and the vector-k grid with bench/torch_topk.py.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/s4/rtopk devbin/s4/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 200 devbin/s4/gpu --include-ignored --test-threads 1 radix sixteen_bit_rows > $L/gpu.txt 2>&1; echo "== gpu radix, sixteen_bit_rows rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu.txt >> $S
for t in float16 bfloat16; do
  s=$SECONDS; timeout 110 devbin/s4/rtopk verify cuda --quick --dtype $t > $L/verify_$t.txt 2>&1; echo "== verify $t rc=$? $((SECONDS-s)) s" >> $S; grep -E "identical|differ|mismatch|FAIL" $L/verify_$t.txt | head -8 >> $S
done
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
$PY -m pip install -q --no-deps --target /tmp/site_s4 devbin/s4/rtopk-*.whl > $L/pip.txt 2>&1
s=$SECONDS; PYTHONPATH=/tmp/site_s4:bench RTOPK_CUDA_PTX_CACHE=/tmp/ptx timeout 70 $PY bench/dtypes16.py --quick --reps 15 --out $L/d16 > $L/d16.log 2>&1; echo "== dtypes16 rc=$? $((SECONDS-s)) s" >> $S
cp $L/d16/dtypes16.md $L/dtypes16.md 2>/dev/null; tail -6 $L/dtypes16.md >> $S
s=$SECONDS; timeout 60 devbin/s4/rtopk bench cuda --grid vector-k --reps 10 --json > $L/vk.json 2> $L/vk.err; echo "== vector-k rc=$? $((SECONDS-s)) s" >> $S
timeout 60 $PY bench/torch_topk.py $L/vk.json > $L/vk_torch.json 2> $L/vk_torch.err; echo "== torch rc=$?" >> $S
$PY - $L >> $S 2>&1 <<'PY'
import json, sys
d = sys.argv[1]
t = {(r["n"], r["m"], r["k"], r.get("sorted", False)): r["median_ms"] for r in json.load(open(f"{d}/vk_torch.json"))}
for r in json.load(open(f"{d}/vk.json")):
    key = (r["n"], r["m"], r["k"], r["sorted"])
    if r["max_iter"] is None and key in t:
        print(f"1 x 2^{r['m'].bit_length() - 1} k={r['k']} sorted={r['sorted']}: rtopk {r['median_ms']:.4f} ms ({r['read_bw_fraction']:.0%} of read bandwidth), torch.topk {t[key]:.4f} ms, {t[key] / r['median_ms']:.2f}x")
PY
cp $L/device.txt $L/dtypes16.md $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz -C $L --exclude d16 .
echo "== end $SECONDS s" >> $S
