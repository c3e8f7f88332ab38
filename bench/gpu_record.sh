#!/usr/bin/env bash
# The GPU record of a change, in two device calls (each well inside the 10-minute limit):
#
#   bash bench/gpu_record.sh rust   BIN OUT OLD_BIN TESTS_DIR
#       device; `rtopk verify cuda --quick` with every cache empty (CUDA_CACHE_DISABLE=1, a fresh
#       unit cache), timed; the GPU test binaries in TESTS_DIR (`cargo test -p rtopk-cuda
#       --release --no-run` builds them; the full equivalence check is left to `verify`);
#       compute-sanitizer memcheck on the raw-launch test (64-bit indices, no iteration output);
#       the RTop-K grid with OLD_BIN and BIN in the same call (`rtopk bench cuda --grid rtopk
#       --json`), compared by bench/ab_compare.py (exact cells, ±2 %, and against the recorded
#       2026-11-21 run); the first-call times of BIN (bench/first_call.sh --no-verify).
#   bash bench/gpu_record.sh python WHEEL OUT PYTEST_SITE
#       the wheel installed with pip --target; the package's tests (torch CPU and CUDA, the
#       distributed tests with gloo); the MaxK example on CUDA; bench/torch_op.py.
#
# Everything goes to OUT (logs, JSON, the tables); a failing step is reported and the next
# one runs, and the exit status says whether every step passed.
set -uo pipefail
part=$1; shift
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
status=0
step() {  # step NAME CMD...: runs CMD, its output to OUT/NAME.txt and the console's tail
  local name=$1; shift
  echo "== $name: $*"
  local start=$SECONDS
  if "$@" > "$out/$name.txt" 2>&1; then
    echo "   ok ($((SECONDS - start)) s)"
  else
    echo "   FAILED rc=$? ($((SECONDS - start)) s); the end of its log:"; status=1
  fi
  tail -n 12 "$out/$name.txt" | sed 's/^/   | /'
}

if [ "$part" = rust ]; then
  bin=$1; out=$2; old=$3; tests=$4; mkdir -p "$out"
  { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    date -u +%Y-%m-%dT%H:%MZ; nproc; } > "$out/device.txt"
  cat "$out/device.txt"
  cache=$(mktemp -d)
  step verify_quick_cold env CUDA_CACHE_DISABLE=1 RTOPK_CUDA_PTX_CACHE="$cache" \
    "$bin" verify cuda --quick
  for t in "$tests"/*; do
    step "gpu_tests_$(basename "$t" | sed 's/-[0-9a-f]*$//')" "$t" --include-ignored --test-threads 1 \
      --skip every_family_  # the quick verify above ran them
  done
  raw=$(ls "$tests"/gpu_raw* 2>/dev/null | head -1)
  [ -n "$raw" ] && step sanitizer_memcheck_raw_launch compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$raw" --include-ignored --test-threads 1
  for b in old new; do  # the JSON on stdout, the run's log on stderr
    exe=$([ $b = old ] && echo "$old" || echo "$bin")
    echo "== grid_$b: $exe bench cuda --grid rtopk --json"
    start=$SECONDS
    "$exe" bench cuda --grid rtopk --json > "$out/grid_$b.json" 2> "$out/grid_$b.log" \
      || { echo "   FAILED"; status=1; }
    echo "   $((SECONDS - start)) s"; tail -n 3 "$out/grid_$b.log" | sed 's/^/   | /'
  done
  step grid_ab python3 bench/ab_compare.py "$out/grid_old.json" "$out/grid_new.json" --exact-only \
    --record results/cuda/2026-11-21-bench-vs-torch-h100/rtopk_cuda.json
  step first_call bash bench/first_call.sh "$bin" "$out/first_call" --no-verify
elif [ "$part" = python ]; then
  wheel=$1; out=$2; site=$3; mkdir -p "$out"
  target=$(mktemp -d)
  python3 -m pip install -q --no-deps --target "$target" "$wheel" || exit 1
  export PYTHONPATH="$target:$site${PYTHONPATH:+:$PYTHONPATH}"
  python3 -c "import rtopk, torch; print('rtopk', rtopk.__version__, 'torch', torch.__version__, torch.cuda.get_device_name(0))" | tee "$out/device.txt"
  step pytest python3 -m pytest crates/rtopk-py/tests -q -rs -p no:cacheprovider
  step maxk_gnn_cuda python3 crates/rtopk-py/examples/maxk_gnn.py --device cuda --json "$out/maxk_gnn_cuda.json"
  step torch_op python3 bench/torch_op.py --out "$out"
else
  echo "usage: bench/gpu_record.sh rust BIN OUT OLD_BIN TESTS_DIR | python WHEEL OUT PYTEST_SITE" >&2
  exit 2
fi
exit $status
