#!/usr/bin/env bash
# One call on commit 412ce3e: correctness against the oracle (verify, GPU tests, split check under
# memcheck) and timing against torch.topk (bench/split_rows.py) and the old build (grid A/B).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
python3 -m pip install -q --no-deps --target /tmp/site devbin/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
TAILN=12 step verify_quick env CUDA_CACHE_DISABLE=1 RTOPK_CUDA_PTX_CACHE=$(mktemp -d) devbin/rtopk verify cuda --quick
for t in devbin/tests/*; do step tests_$(basename $t | cut -d- -f1) $t --include-ignored --test-threads 1 --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode; done
step sanitizer_memcheck_split compute-sanitizer --tool memcheck --error-exitcode 9 python3 bench/sanitize_split.py
TAILN=8 step split_rows python3 bench/split_rows.py --out $out/torch --reps 15
devbin/rtopk bench cuda --grid split,vector,wide --reps 15 --json > $out/rtopk_regimes.json 2> $out/rtopk_regimes.log; echo "regimes rc=$?"
devbin/rtopk_old bench cuda --grid rtopk --json > $out/grid_old.json 2> $out/grid_old.log
devbin/rtopk bench cuda --grid rtopk --json > $out/grid_new.json 2> $out/grid_new.log
step grid_ab python3 bench/ab_compare.py $out/grid_old.json $out/grid_new.json --exact-only --record results/cuda/2026-11-21-bench-vs-torch-h100/rtopk_cuda.json
cd $OUT && tar czf r.tgz r && rm -rf r
