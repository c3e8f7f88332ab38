#!/usr/bin/env bash
# Call a (from the repository root, OUT=$OUT/a): the merge sort's GPU tests on bins36, then
# the sorted times of the build before (bins35) and bins36 in turn, twice, their unsorted
# times, and torch.topk's sorted times on the same shapes.
source bench/device_call.sh
bins 35
bins 36
step gpu_sorted 150 /tmp/bins36/gpu --include-ignored sorted_output_is_sorted_on_the_device
shapes=("1 4194304 2049,4097,8192,16384,32768,65536,131072" "8 524288 4500,8192,16384"
        "1 33554432 8192,16384" "1 128256 4096" "3 100003 5000" "32 131072 16384"
        "64 65536 8192")
sorted_rounds "35 36" "${shapes[@]}"
for s in "${shapes[@]}"; do
    set -- $s
    sweep_row 1 b36 /tmp/bins36/rtopk "$1" "$2" "$3"
done
torch_args=()
for s in "${shapes[@]}"; do set -- $s; torch_args+=("$1,$2,$3"); done
step torch_sorted 60 "$PY" results/cuda/2026-12-07-merge-sort-h100/torch_sorted.py "${torch_args[@]}"
step gpu_radix 100 /tmp/bins36/gpu --include-ignored radix_rows_match_bisect_and_the_simulator
