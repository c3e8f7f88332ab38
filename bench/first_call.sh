#!/usr/bin/env bash
# A fresh process's first top-k on the GPU (docs/kernel.md, "Compiling"): wall times of
# `rtopk select --algo cuda` with every cache empty (the kernel units' cache in a fresh
# directory, the driver's JIT cache off), then again with the units' cache warm, on a short, a
# long and a large first shape (and the short one sorted); `rtopk verify cuda --quick` cold and
# warm; and the library's own breakdown of each first call (`rtopk bench cuda --startup`: opening
# the device, the first and the second top-k, each unit's build and load).
#   bash bench/first_call.sh BIN OUTDIR [OLD_BIN] [--no-verify]
# OLD_BIN: another build (e.g. the previous release) whose select and verify are timed the
# same way, in the same run, for comparison. --no-verify: leave out the verify runs (a record
# that times `rtopk verify cuda --quick` elsewhere in the same call).
set -uo pipefail
verify=1
args=()
for a in "$@"; do [ "$a" = --no-verify ] && verify=0 || args+=("$a"); done
set -- "${args[@]}"
bin=$1; out=$2; old=${3:-}; mkdir -p "$out"
data=$(mktemp -d)   # inputs and outputs, kept out of OUTDIR (the large input is 1 GiB)
trap 'rm -rf "$data"' EXIT
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export CUDA_CACHE_DISABLE=1   # the driver's JIT cache (~/.nv) off: PTX would be compiled anew
report="$out/first_call.txt"
: > "$report"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ;
  echo "bin: $bin${old:+, old: $old}"; } | tee -a "$report"

# normal float32 inputs (numpy if present, else the standard library; the large one tiled)
python3 - "$data" <<'EOF'
import random, struct, sys
shapes = [(8, 300), (4, 5000), (65536, 4096)]
try:
    import numpy as np
    for n, m in shapes:
        x = np.random.default_rng(n * 7919 + m).standard_normal((n, m), dtype=np.float32)
        np.save(f"{sys.argv[1]}/x_{n}x{m}.npy", x)
except ImportError:
    for n, m in shapes:
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (n, m)
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        rng = random.Random(n * 7919 + m)
        rows = [struct.pack("<%df" % m, *(rng.gauss(0, 1) for _ in range(m))) for _ in range(min(n, 64))]
        with open(f"{sys.argv[1]}/x_{n}x{m}.npy", "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            for i in range(n):
                f.write(rows[i % len(rows)])
EOF

TIMEFORMAT=%R
# wall LABEL CMD...: the command's wall seconds (its output in OUTDIR/LABEL.log)
wall() {
  local label=$1; shift
  local log="$out/${label//[^A-Za-z0-9.-]/_}.log" secs rc
  secs=$( { time "$@" > "$log" 2>&1; } 2>&1 ); rc=$?
  printf '%-52s %8s s%s\n' "$label" "$secs" "$([ $rc -eq 0 ] || echo "  FAILED rc=$rc, see $log")" | tee -a "$report"
}

# select BIN NAME N M K [--sorted]: cold (empty unit cache), then warm (the same cache)
select_cold_warm() {
  local b=$1 name=$2 n=$3 m=$4 k=$5; shift 5
  local cache; cache=$(mktemp -d)
  for state in cold warm; do
    wall "$name select ${n}x${m} k=$k${*:+ $*} $state" env RTOPK_CUDA_PTX_CACHE="$cache" \
      "$b" select --algo cuda -k "$k" "$@" --input "$data/x_${n}x${m}.npy" \
      --values "$data/v.npy" --indices "$data/i.npy"
  done
  rm -rf "$cache"
}

echo "== wall times (CUDA_CACHE_DISABLE=1; cold: empty unit cache; warm: the same cache again)" | tee -a "$report"
for b in "$bin" $old; do
  name=$([ "$b" = "$bin" ] && echo new || echo old)
  select_cold_warm "$b" "$name" 8 300 5
  select_cold_warm "$b" "$name" 8 300 5 --sorted
  select_cold_warm "$b" "$name" 4 5000 64
  select_cold_warm "$b" "$name" 65536 4096 64
  [ "$verify" = 1 ] || continue
  cache=$(mktemp -d)
  wall "$name verify cuda --quick cold" env RTOPK_CUDA_PTX_CACHE="$cache" "$b" verify cuda --quick
  wall "$name verify cuda --quick warm" env RTOPK_CUDA_PTX_CACHE="$cache" "$b" verify cuda --quick
  rm -rf "$cache"
done
[ "$verify" = 0 ] || grep -h "^units:" "$out"/new_verify_cuda_--quick_*.log | sed 's/^/new verify /' | tee -a "$report"

echo "== the library's breakdown (rtopk bench cuda --startup)" | tee -a "$report"
for shape in "8 300 5" "8 300 5 --sorted" "4 5000 64" "65536 4096 64"; do
  set -- $shape
  cache=$(mktemp -d)
  for state in cold warm; do
    echo "-- $state" | tee -a "$report"
    RTOPK_CUDA_PTX_CACHE="$cache" "$bin" bench cuda --startup --n "$1" --m "$2" -k "$3" "${@:4}" 2>&1 | tee -a "$report"
  done
  rm -rf "$cache"
done
