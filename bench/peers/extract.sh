#!/usr/bin/env bash
# Unpacks from the flashinfer-python wheel only what bench/peers needs, into bench/peers/vendor/
# (ignored by git): FlashInfer's top-k header and the headers it includes, its two top-k bindings
# (read for how FlashInfer calls its kernels and CUB; not compiled), and CCCL's cub/thrust/libcudacxx
# header trees that the wheel bundles (CUB DeviceTopK / DeviceBatchedTopK live there).
#   bash bench/peers/extract.sh [WHEEL]
# WHEEL defaults to /tmp/fi/flashinfer_python-0.7.2.post1-py3-none-any.whl; fetch it with
#   pip download --no-deps flashinfer-python==0.7.2.post1 -d /tmp/fi
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
wheel=${1:-/tmp/fi/flashinfer_python-0.7.2.post1-py3-none-any.whl}
vendor=$here/vendor
[ -f "$wheel" ] || { echo "no wheel at $wheel (pip download --no-deps flashinfer-python==0.7.2.post1 -d /tmp/fi)" >&2; exit 2; }

# FlashInfer headers: topk.cuh and its includes (topk_common.cuh, utils.cuh -> exception.h,
# vec_dtypes.cuh), plus math.cuh: topk.cuh calls math::ptx_rcp but only gets math.cuh through
# sampling.cuh, which the binding includes first.
fi_headers="topk.cuh topk_common.cuh utils.cuh exception.h vec_dtypes.cuh math.cuh"
fi_bindings="topk.cu cub_topk.cu"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
patterns=()
for h in $fi_headers; do patterns+=("flashinfer/data/include/flashinfer/$h"); done
for c in $fi_bindings; do patterns+=("flashinfer/data/csrc/$c"); done
patterns+=("flashinfer/data/cccl/cub/cub/*" "flashinfer/data/cccl/thrust/thrust/*"
           "flashinfer/data/cccl/libcudacxx/include/*"
           "flashinfer_python-0.7.2.post1.dist-info/licenses/LICENSE")
unzip -q -o "$wheel" "${patterns[@]}" -d "$tmp"

rm -rf "$vendor"
mkdir -p "$vendor/flashinfer/include" "$vendor/flashinfer/csrc" "$vendor/cccl/cub" \
         "$vendor/cccl/thrust" "$vendor/cccl/libcudacxx"
mv "$tmp/flashinfer/data/include/flashinfer" "$vendor/flashinfer/include/flashinfer"
for c in $fi_bindings; do mv "$tmp/flashinfer/data/csrc/$c" "$vendor/flashinfer/csrc/"; done
mv "$tmp/flashinfer_python-0.7.2.post1.dist-info/licenses/LICENSE" "$vendor/flashinfer/LICENSE"
mv "$tmp/flashinfer/data/cccl/cub/cub" "$vendor/cccl/cub/cub"
mv "$tmp/flashinfer/data/cccl/thrust/thrust" "$vendor/cccl/thrust/thrust"
mv "$tmp/flashinfer/data/cccl/libcudacxx/include" "$vendor/cccl/libcudacxx/include"

# Every quoted include of the FlashInfer headers kept must itself be kept.
missing=0
for f in "$vendor"/flashinfer/include/flashinfer/*; do
  for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
    [ -f "$vendor/flashinfer/include/flashinfer/$inc" ] || { echo "missing: $inc (from $f)" >&2; missing=1; }
  done
done
for f in cub/cub/device/device_topk.cuh cub/cub/device/device_batched_topk.cuh \
         libcudacxx/include/cuda/std/__cccl/version.h; do
  [ -f "$vendor/cccl/$f" ] || { echo "missing: cccl/$f" >&2; missing=1; }
done
[ "$missing" = 0 ] || exit 1

cccl=$(sed -n 's/^#define CCCL_VERSION \([0-9]*\).*/\1/p' "$vendor/cccl/libcudacxx/include/cuda/std/__cccl/version.h")
{
  echo "wheel: $(basename "$wheel")"
  echo "wheel sha256: $(sha256sum "$wheel" | cut -d' ' -f1)"
  echo "CCCL_VERSION: $cccl"
} > "$vendor/VERSION"
cat "$vendor/VERSION"
du -sh "$vendor"
