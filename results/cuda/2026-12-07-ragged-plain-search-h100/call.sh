#!/usr/bin/env bash
# The ragged twins on the plain units' searches (h24) and, on top, rows of their own length on
# fewer cluster blocks (h25), against HEAD's build (h23), on an H100; then the committed build
# (h26: h25 with rows of their own length on plain rows' 8 blocks too) against h23.
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh a   # GPU tests, round 1
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh b   # round 2, package tests
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh c   # h26: tests, two rounds
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh d   # split tests, decode steps
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh e   # a length sweep
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh f   # 16-bit loads that cut
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh g   # h28: f's patch + plain_search
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh g2  # g's timings again, pytest
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh g3  # g's two unfinished GPU tests
#   bash results/cuda/2026-12-07-ragged-plain-search-h100/call.sh h   # h29: ragged_span
# carry (a, b): devbin/pkh23.tar.xz devbin/pkh24.tar.xz devbin/pkh25.tar.xz devbin/bins40.tar.xz
# carry (c): devbin/pkh23.tar.xz devbin/pkh26.tar.xz devbin/bins41.tar.xz
# carry (d): devbin/pkh26.tar.xz devbin/bins42.tar.xz (gpu_ragged with the new split shapes)
# carry (e): devbin/pkh26.tar.xz
# carry (f): devbin/pkh26.tar.xz devbin/pkh27.tar.xz devbin/bins43.tar.xz
# carry (g): devbin/pkh26.tar.xz devbin/pkh28.tar.xz devbin/bins44.tar.xz (h28: load16_cut.patch
#   and the kernels' plain_search as a function, the simulator's name; bins44: its gpu_ragged,
#   rtopk-cuda's gpu and gpu_raw); g2: the two wheels; g3: bins44. Call f never ran (no device).
# carry (h): devbin/pkh28.tar.xz devbin/pkh29.tar.xz devbin/bins45.tar.xz (h29: 093dffe with a
#   ragged row's own length spread over its cluster's blocks, ragged_span; bins45: its gpu_ragged)
set -u
HERE=results/cuda/2026-12-07-ragged-plain-search-h100
source bench/device_call.sh
case $1 in
    c) builds="h23 h26" ;;
    d | e) builds="h26" ;;
    f) builds="h26 h27" ;;
    g | g2) builds="h26 h28" ;;
    g3) builds="" ;;
    h) builds="h28 h29" ;;
    *) builds="h23 h24 h25" ;;
esac
for b in $builds; do wheel $b; done
timed() {  # timed ROUND BUILD [ARGS]: one run of ragged_search.py, its lines into times.jsonl
    local r=$1 b=$2
    shift 2
    step time_${b}_$r 170 env $(build_env $b) $PY $HERE/ragged_search.py --label $b --reps 10 "$@"
    cat $OUT/time_${b}_$r.txt >> $OUT/times.jsonl
}
# patch_call OLD NEW N (calls f and g): build NEW's gpu_ragged (devbin/binsN.tar.xz), then the
# length sweep and the bf16 table on both builds, then the package's ragged CUDA tests on NEW
patch_call() {
    local old=$1 new=$2 b
    bins $3
    step gpu_ragged 150 /tmp/bins$3/gpu_ragged --ignored --test-threads 8
    for b in $old $new; do
        step sweep_$b 50 env $(build_env $b) $PY $HERE/length_sweep.py --label $b
    done
    for b in $old $new; do
        step time_$b 60 env $(build_env $b) $PY $HERE/ragged_search.py --label $b --reps 10 \
            --dtype bfloat16
    done
    step pytest_$new 90 env $(build_env $new) $PY -m pytest -q -m "not verify" -rs \
        crates/rtopk-py/tests/test_ragged.py -k cuda
}
if [ "$1" = a ]; then
    bins 40
    # the new build's GPU tests of rows of their own length: GPU against the simulator and
    # the oracle
    step gpu_ragged 150 /tmp/bins40/gpu_ragged --ignored --test-threads 4 \
        ragged_rows_on_the_gpu split_ragged narrowed_cluster full_lengths
    for b in h23 h24 h25; do timed 1 $b; done
elif [ "$1" = f ]; then
    patch_call h26 h27 43
elif [ "$1" = g ]; then
    patch_call h26 h28 44
    step gpu 150 /tmp/bins44/gpu --ignored --test-threads 8
    step gpu_raw 30 /tmp/bins44/gpu_raw --ignored
elif [ "$1" = g2 ]; then
    # g's timing files did not come back (too many files): again, newest build first, one
    # line a shape on stdout; then the package's tests with a longer limit
    for b in h28 h26; do
        env $(build_env $b) $PY $HERE/ragged_search.py --label $b --reps 10 --dtype bfloat16 \
            --reverse > $OUT/time2_$b.txt 2>&1
    done
    step pytest2_h28 200 env $(build_env h28) $PY -m pytest -q -m "not verify" -rs \
        crates/rtopk-py/tests/test_ragged.py -k cuda
elif [ "$1" = g3 ]; then
    bins 44
    step gpu2 280 /tmp/bins44/gpu --ignored --test-threads 2 \
        kernel_matches_bisect_and_the_simulator_in_every_family_shape_and_mode \
        radix_rows_match_bisect_and_the_simulator
elif [ "$1" = h ]; then
    bins 45
    step gpu_cluster 120 /tmp/bins45/gpu_ragged --ignored --test-threads 8 cluster \
        ragged_rows_on_the_gpu full_lengths
    for b in h28 h29; do
        step sweep_$b 50 env $(build_env $b) $PY $HERE/length_sweep.py --label $b
    done
elif [ "$1" = e ]; then
    step sweep 120 env $(build_env h26) $PY $HERE/length_sweep.py --label h26
    step sweep2 120 env $(build_env h26) $PY $HERE/length_sweep.py --label h26
elif [ "$1" = d ]; then
    bins 42
    step gpu_split 200 /tmp/bins42/gpu_ragged --ignored --test-threads 4 \
        split_ragged integer_rows
    step decode 200 env $(build_env h26) $PY bench/decode.py --steps 8 --reps 8 \
        --out $OUT/decode.json
elif [ "$1" = c ]; then
    bins 41
    step gpu_ragged 200 /tmp/bins41/gpu_ragged --ignored --test-threads 8
    for b in h23 h26; do timed 3 $b; done
    for b in h26 h23; do timed 4 $b --reverse; done
    step pytest_h26 150 env $(build_env h26) $PY -m pytest -q -m "not verify" -rs \
        crates/rtopk-py/tests/test_ragged.py crates/rtopk-py/tests/test_torch_cuda.py \
        -k "length or ragged or hint or per_row"
else
    for b in h25 h24 h23; do timed 2 $b --reverse; done
    # the package's CUDA tests of lengths, k per row and hints, on each new build
    for b in h24 h25; do
        step pytest_$b 100 env $(build_env $b) $PY -m pytest -q -m "not verify" -rs \
            crates/rtopk-py/tests/test_ragged.py crates/rtopk-py/tests/test_torch_cuda.py \
            -k "length or ragged or hint or per_row"
    done
fi
