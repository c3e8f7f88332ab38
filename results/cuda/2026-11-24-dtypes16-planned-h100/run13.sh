#!/usr/bin/env bash
# (run12.sh without what it finished; the f32 kernels are SASS-identical, so the long f32 test is skipped)
# 16-bit rows planned by registers (part-warps up to 512, twice the elements per lane) and the
# packed-count rework: correctness first — the GPU tests (16-bit on every pattern, the f32 ones,
# raw launches), verify --quick (f32/f16/bf16 against bisect and warp-sim), and the four
# sanitizers on 16-bit launches of the new shapes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }

TAILN=6 step tests_gpu devbin/tests/gpu-* --include-ignored --test-threads 1 --skip sixteen_bit --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode
TAILN=4 step tests_raw devbin/tests/gpu_raw-* --include-ignored --test-threads 1
TAILN=12 step verify_quick devbin/rtopk verify cuda --quick
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(7)
for m in (60, 300, 512, 1000, 3000):
    n = max(1, 4096 // m) * 3
    x = rng.standard_normal((n, m)).astype(np.float16)
    bits = x.view(np.uint16)
    for v in (0x7e00, 0xfe01, 0x7c00, 0xfc00, 0x8000, 0x0001, 0x7c01):
        bits.flat[rng.integers(0, bits.size, 7)] = v
    np.save(f"/tmp/h{m}.npy", x)
PY
san() { for m in 60 300 512 1000 3000; do for k in 1 37; do for flags in "" "--smallest --sorted"; do
  compute-sanitizer --tool $1 --error-exitcode 9 devbin/rtopk select --algo cuda -k $k $flags --input /tmp/h$m.npy --values /tmp/v.npy --indices /tmp/i.npy || echo "FAILED m=$m k=$k $flags"; done; done; done; }
for tool in memcheck racecheck synccheck initcheck; do TAILN=1 step sanitizer_$tool san $tool; grep -c "ERROR SUMMARY: 0 errors" $out/sanitizer_$tool.txt; grep -h "FAILED\|ERROR SUMMARY: [1-9]" $out/sanitizer_$tool.txt | head -3; done
cd $OUT && tar czf r.tgz r && rm -rf r
