#!/usr/bin/env bash
# Issue 21, third pass, call C (commit d4e3d8b): correctness of the new split plan against the
# oracle — verify --quick with every cache empty (its 50 split cases included), the rtopk-cuda
# GPU tests (all but the long f32 simulator sweep), and split shapes under compute-sanitizer's
# four tools (bench/sanitize_split.py, each launch checked against the CPU's bisect).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site24 devbin/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site24
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
TAILN=14 step verify_quick env CUDA_CACHE_DISABLE=1 RTOPK_CUDA_PTX_CACHE=$(mktemp -d) devbin/rtopk verify cuda --quick
for t in devbin/tests/*; do step tests_$(basename $t | cut -d- -f1) $t --include-ignored --test-threads 1 --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode; done
for tool in memcheck racecheck synccheck initcheck; do
  TAILN=9 step sanitizer_${tool}_split compute-sanitizer --tool $tool --error-exitcode 9 python3 bench/sanitize_split.py
done
cd $OUT && tar czf r.tgz r && rm -rf r
