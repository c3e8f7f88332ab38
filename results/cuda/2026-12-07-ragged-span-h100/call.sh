#!/usr/bin/env bash
# Rows of their own length, on an H100: h31 (951ab50 with
# ../2026-12-07-ragged-plain-search-h100/ragged_span.patch: a ragged row's own length spread
# over its cluster's blocks) and h32 (h31, and block rows of their own length keeping 16-byte
# loads on every path: load_block_slots on the launch's alignment) against h30 (951ab50), in
# the same call, torch.topk timed beside.
# Then h33: h32 with ragged_span only where a row would leave a block empty (a row that fills
# every block held as a plain row), against h30.
#   bash results/cuda/2026-12-07-ragged-span-h100/call.sh a
#   bash results/cuda/2026-12-07-ragged-span-h100/call.sh c
# carry (a): devbin/pkh30.tar.xz devbin/pkh31.tar.xz devbin/pkh32.tar.xz devbin/bins47.tar.xz
#   (bins47: h32's gpu_ragged and rtopk-cuda's gpu)
# carry (c): devbin/pkh30.tar.xz devbin/pkh33.tar.xz devbin/bins48.tar.xz (h33's gpu_ragged)
# Call b ran on the same warm machine after a: the gpu_ragged tests a left out (bins47), then
# length_sweep.py (h31, h30) and ragged_search.py --dtype float32 --reverse (h30, h32) again.
set -u
HERE=results/cuda/2026-12-07-ragged-span-h100
PREV=results/cuda/2026-12-07-ragged-plain-search-h100
source bench/device_call.sh
if [ "$1" = c ]; then
    for b in h30 h33; do wheel $b; done
    bins 48
    step gpu_ragged 60 /tmp/bins48/gpu_ragged --ignored --test-threads 8 cluster full_lengths
    for b in h33 h30; do
        step time_$b 35 env $(build_env $b) $PY $PREV/ragged_search.py --label $b --reps 10 \
            --dtype float32
    done
    exit 0
fi
for b in h30 h31 h32; do wheel $b; done
bins 47
if [ "$1" = a ]; then
    # the GPU tests of rows of their own length (GPU against the simulator and the oracle):
    # whole rows of every family, integer rows, full lengths, the cluster rows
    step gpu_ragged 100 /tmp/bins47/gpu_ragged --ignored --test-threads 8 \
        ragged_rows_on_the_gpu integer_rows full_lengths cluster
    for b in h30 h31; do
        step sweep_$b 45 env $(build_env $b) $PY $PREV/length_sweep.py --label $b
    done
    for b in h32 h30; do
        step time_$b 40 env $(build_env $b) $PY $PREV/ragged_search.py --label $b --reps 10 \
            --dtype float32
    done
    for b in h30 h32; do
        step loads_$b 45 env $(build_env $b) $PY $HERE/block_loads.py --label $b
    done
    step gpu 60 /tmp/bins47/gpu --ignored --test-threads 8 \
        --skip kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode \
        --skip radix_rows_match_bisect_and_the_simulator
fi
