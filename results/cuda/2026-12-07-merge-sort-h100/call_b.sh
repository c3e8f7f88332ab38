#!/usr/bin/env bash
# Call b (from the repository root, OUT=$OUT/b): the searches-in-step variant (bins37, the
# tree of a3126de with search_in_step.diff applied): its merge-sort GPU tests, then the sorted
# times of bins36 (the merge sort as committed) and bins37 in turn, twice, on call a's shapes.
source bench/device_call.sh
bins 36
bins 37
step gpu_sorted 150 /tmp/bins37/gpu --include-ignored sorted_output_is_sorted_on_the_device
shapes=("1 4194304 4097,8192,16384,32768,65536,131072" "8 524288 4500,8192,16384"
        "1 33554432 8192,16384" "3 100003 5000" "32 131072 16384" "64 65536 8192")
sorted_rounds "36 37" "${shapes[@]}"
