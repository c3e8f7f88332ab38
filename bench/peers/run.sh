#!/usr/bin/env bash
# Builds the peer harness with nvcc and times FlashInfer's and CUB's top-k on the GPU
# (bench/peers/README.md). Run from the repository root, with bench/peers/vendor/ present
# (bash bench/peers/extract.sh on a machine that has the wheel; carry the folder to the GPU).
#
#   bash bench/peers/run.sh [harness options] [N,M,k ...]
#
# No shape given: the shapes of bench/peers/shapes.txt (the split-rows grid); other grids beside it
# (indexer.txt, sampler.txt, vector_k.txt) with --shapes FILE. Harness options, passed as given:
# --reps R, --warmup W, --seed S, --check-rows C, --peers a,b, --per-row-max-n N, --l2-multiple F,
# --idle-start, --device D, --dtype f32|f16|bf16 (peers.cu), e.g.
#   bash bench/peers/run.sh --dtype bf16 --shapes bench/peers/indexer.txt
# Environment: NVCC (nvcc on PATH, else /usr/local/cuda/bin/nvcc), ARCH (90a), BUILD_DIR
# (target/peers; kept between runs, rebuilt when a source is newer), OUT_DIR ($OUT if set, else
# results/tmp/peers), BUILD_ONLY=1 (build, do not run), FORCE_BUILD=1 (rebuild).
# Writes OUT_DIR/build.log, OUT_DIR/device.txt, OUT_DIR/peers.jsonl (one JSON line per shape and
# peer) and OUT_DIR/peers.log (the harness's progress on stderr).
set -euo pipefail

src=bench/peers
vendor=$src/vendor
[ -f "$src/peers.cu" ] || { echo "run from the repository root" >&2; exit 2; }
[ -f "$vendor/VERSION" ] || {
  echo "no $vendor: run bash $src/extract.sh where the wheel is, and carry $vendor" >&2; exit 2; }

nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
arch=${ARCH:-90a}
build=${BUILD_DIR:-target/peers}
out=${OUT_DIR:-${OUT:-results/tmp/peers}}
mkdir -p "$build" "$out"

gencode="-gencode=arch=compute_$arch,code=sm_$arch"
# The flags FlashInfer's JIT builds its top-k module with (flashinfer/jit/cpp_ext.py, core.py:
# -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -use_fast_math -static-global-template-stub=false,
# its dtype macros, -lineinfo for topk), the vendored CCCL with -I so that it wins over the
# toolkit's copy (which nvcc adds with -isystem).
vendor_inc="-I$vendor/flashinfer/include -I$vendor/cccl/cub -I$vendor/cccl/libcudacxx/include -I$vendor/cccl/thrust"
peer_flags="-std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -use_fast_math
  -static-global-template-stub=false -lineinfo $gencode $vendor_inc
  -DFLASHINFER_ENABLE_F16 -DFLASHINFER_ENABLE_BF16 -DFLASHINFER_ENABLE_FP8_E4M3
  -DFLASHINFER_ENABLE_FP8_E5M2 -DFLASHINFER_ENABLE_FP8_E8M0 -DFLASHINFER_ENABLE_FP4_E2M1"
# The workspace kernels' float flags (crates/rtopk-cuda/src/compile.rs), so that fill_normal's
# values are those of `rtopk bench cuda`.
fill_flags="-std=c++17 -O3 -ftz=false -prec-div=true -prec-sqrt=true -fmad=false $gencode"
main_flags="-std=c++17 -O3 $gencode"

units="fill peers peer_flashinfer peer_cub peer_cub_batched"
flags_of() {
  case $1 in
    fill) echo "$fill_flags" ;;
    peers) echo "$main_flags" ;;
    *) echo "$peer_flags" ;;
  esac
}

stale=${FORCE_BUILD:-0}
[ -x "$build/peers" ] || stale=1
if [ "$stale" = 0 ] && [ -n "$(find "$src" -maxdepth 1 \( -name '*.cu' -o -name '*.cuh' -o -name run.sh \) -newer "$build/peers")" ]; then
  stale=1
fi
if [ "$stale" = 0 ] && [ "$vendor/VERSION" -nt "$build/peers" ]; then stale=1; fi

if [ "$stale" = 1 ]; then
  "$nvcc" --version > "$out/build.log"
  echo "building $build/peers for sm_$arch (the translation units in parallel)" | tee -a "$out/build.log"
  start=$(date +%s)
  pids=()
  for u in $units; do
    flags=$(flags_of "$u")
    # shellcheck disable=SC2086
    ( set -x; "$nvcc" $flags -c "$src/$u.cu" -o "$build/$u.o" ) > "$build/$u.log" 2>&1 &
    pids+=($!)
  done
  failed=0
  i=0
  for u in $units; do
    if ! wait "${pids[$i]}"; then failed=1; echo "FAILED: $u" | tee -a "$out/build.log"; fi
    cat "$build/$u.log" >> "$out/build.log"
    i=$((i + 1))
  done
  if [ "$failed" = 0 ]; then
    objs=""
    for u in $units; do objs="$objs $build/$u.o"; done
    # a pip-installed nvcc keeps cudart in ../lib, where its nvcc.profile does not look
    libdirs=""
    for d in "$(dirname "$nvcc")/../lib" "$(dirname "$nvcc")/../lib64"; do
      [ -d "$d" ] && libdirs="$libdirs -L$d"
    done
    # shellcheck disable=SC2086
    ( set -x; "$nvcc" $gencode $objs $libdirs -o "$build/peers" ) >> "$out/build.log" 2>&1 || failed=1
  fi
  echo "build: $(( $(date +%s) - start )) s, status $failed" | tee -a "$out/build.log"
  if [ "$failed" != 0 ]; then
    grep -m 40 -E "error|FAILED" "$out/build.log" >&2 || tail -n 40 "$out/build.log" >&2
    exit 1
  fi
fi
[ "${BUILD_ONLY:-0}" = 1 ] && { echo "built $build/peers"; exit 0; }

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv || true
  "$nvcc" --version | tail -n 2
  cat "$vendor/VERSION"
} > "$out/device.txt"

# default shapes unless a shape or --shapes is given
args=("$@")
has_shapes=0
for a in "$@"; do
  if [[ $a == --shapes || $a =~ ^[0-9]+[,\ ][0-9]+[,\ ][0-9]+$ ]]; then has_shapes=1; fi
done
[ "$has_shapes" = 1 ] || args+=(--shapes "$src/shapes.txt")

# JSON lines to peers.jsonl; the progress on stderr both to peers.log and to the terminal
{ "$build/peers" "${args[@]}" 2>&1 1>&3 3>&- | tee "$out/peers.log" >&2; } 3> "$out/peers.jsonl"
echo "wrote $out/peers.jsonl ($(wc -l < "$out/peers.jsonl") lines)"
