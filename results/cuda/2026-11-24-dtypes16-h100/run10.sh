#!/usr/bin/env bash
# verify --quick with the simulator on 16-bit rows (f32, f16, bf16 against bisect and warp-sim)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT/r; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
step() { local name=$1; shift; local s=$SECONDS; "$@" > $out/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s"; tail -n ${TAILN:-3} $out/$name.txt; }
TAILN=30 step verify_quick devbin/rtopk verify cuda --quick
cd $OUT && tar czf r.tgz r && rm -rf r
