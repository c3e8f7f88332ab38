#!/usr/bin/env bash
# The review build (one 16-bit pair loader for warp and block rows), one call: correctness against the oracle
# (the 16-bit GPU test on every pattern, the raw-launch test, verify --quick over f32/f16/bf16
# against bisect and warp-sim, memcheck and racecheck on 16-bit launches of the new shapes) and
# timing against torch.topk and float32 (bench/dtypes16.py, whose every case is first checked
# against torch's values).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --upgrade --target /tmp/site21 devbin/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site21
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
TAILN=4 step test16 devbin/tests/gpu-* --include-ignored --exact sixteen_bit_rows_match_bisect_in_every_strategy --test-threads 1
TAILN=4 step tests_raw devbin/tests/gpu_raw-* --include-ignored --test-threads 1
TAILN=30 step verify_quick devbin/rtopk verify cuda --quick
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(7)
for m in (60, 300, 512, 700, 1000, 3001, 5001, 9000):
    n = max(1, 4096 // m) * 3
    x = rng.standard_normal((n, m)).astype(np.float16)
    bits = x.view(np.uint16)
    for v in (0x7e00, 0xfe01, 0x7c00, 0xfc00, 0x8000, 0x0001, 0x7c01):
        bits.flat[rng.integers(0, bits.size, 7)] = v
    np.save(f"/tmp/h{m}.npy", x)
PY
san() { for m in 60 300 512 700 1000 3001 5001 9000; do for k in 1 37; do for flags in "" "--smallest --sorted"; do
  compute-sanitizer --tool $1 --error-exitcode 9 devbin/rtopk select --algo cuda -k $k $flags --input /tmp/h$m.npy --values /tmp/v.npy --indices /tmp/i.npy || echo "FAILED m=$m k=$k $flags"; done; done; done; }
for tool in memcheck racecheck; do TAILN=1 step sanitizer_$tool san $tool; grep -h "FAILED\|ERROR SUMMARY: [1-9]\|[1-9][0-9]* hazards" $out/sanitizer_$tool.txt | head -3; done
TAILN=22 step dtypes16 timeout 300 python3 bench/dtypes16.py --out $out/dtypes16 --reps 15 --quick
cd $OUT && tar czf r.tgz r && rm -rf r
