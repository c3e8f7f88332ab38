# The setup every device call's script repeats, sourced from the repository root on the device
# machine with $OUT set (the call's output folder):
#
#     source bench/device_call.sh          # $PY, CUDA's libraries, $OUT/device.txt
#     wheel p9                             # devbin/pkp9.tar.xz's wheel into /tmp/site_p9
#     bins 9                               # devbin/bins9.tar.xz into /tmp/bins9
#     step verify 150 /tmp/bins9/rtopk verify cuda --quick
#     step grid_p9 90 env $(build_env p9) $PY bench/router_rows.py --grid --out $OUT/grid_p9
#
# `devbin/` is git-ignored: the builds made on the development machine (a wheel from
# `maturin build` in a folder named after the build, tarred as devbin/pkNAME.tar.xz; the rtopk
# binary and test binaries tarred as devbin/binsN.tar.xz) travel with the call's `carry`.
# A record keeps its call scripts; they source this file instead of restating it.

PY=${PY:-/opt/torch/.venv/bin/python3}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader \
        || echo "no nvidia-smi"
    date -u +%Y-%m-%dT%H:%MZ
} > "$OUT/device.txt" 2>&1

# wheel NAME: the wheel of devbin/pkNAME.tar.xz (a folder NAME holding one .whl) installed
# without its dependencies into /tmp/site_NAME, beside the device's torch.
wheel() {
    mkdir -p /tmp/wh
    tar xJf "devbin/pk$1.tar.xz" -C /tmp/wh
    "$PY" -m pip install -q --no-deps --target "/tmp/site_$1" /tmp/wh/"$1"/*.whl
}

# bins N: devbin/binsN.tar.xz (the rtopk binary, test binaries) unpacked into /tmp/binsN.
bins() {
    mkdir -p "/tmp/bins$1"
    tar xJf "devbin/bins$1.tar.xz" -C "/tmp/bins$1"
}

# build_env NAME: the variables that run a command on build NAME (`env $(build_env NAME) CMD`):
# its package first on the path, bench/ after it, and a unit cache of its own, so that two
# builds timed in one call never load each other's kernels.
build_env() {
    echo "RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$1 PYTHONPATH=/tmp/site_$1:bench${PYTHONPATH:+:$PYTHONPATH}"
}

# step NAME SECONDS CMD...: CMD under a timeout, its output in $OUT/NAME.txt, and a line in
# $OUT/steps.txt: the name, the exit status, the seconds taken and the log's last line. A
# failing step is recorded and the script goes on; the status is returned.
step() {
    local name=$1 limit=$2 start=$SECONDS rc=0
    shift 2
    timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1 || rc=$?
    echo "$name rc=$rc $((SECONDS - start)) s | $(tail -n 1 "$OUT/$name.txt")" >> "$OUT/steps.txt"
    return "$rc"
}

# peers_run LOGS: bench/peers (FlashInfer, CUB) built in /tmp/peers from devbin/vendor.tar.xz
# and run on issue 32's three grids in f32 and bf16 (each grid and type a step, its log folder
# under LOGS); every run's lines gathered into $OUT/peers.jsonl.
peers_run() {
    local logs=$1 d g
    tar xJf devbin/vendor.tar.xz -C bench/peers
    BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$logs/build step peers_build 240 bash bench/peers/run.sh
    for d in f32 bf16; do
        for g in indexer sampler vector_k; do
            OUT_DIR=$logs/peers_${d}_$g BUILD_DIR=/tmp/peers step peers_${d}_$g 60 \
                bash bench/peers/run.sh --reps 20 --dtype $d --shapes bench/peers/$g.txt
        done
    done
    cat "$logs"/peers_*/*.jsonl > "$OUT/peers.jsonl" 2>/dev/null
}

# bench_row FILE SORTED ROUND LABEL BIN N M KS [ARGS...]: `BIN bench cuda` on one shape (f32,
# median of 30, a unit cache per LABEL), one line into $OUT/FILE — round, label, n, m, then
# k:µs of the cases whose `sorted` is SORTED (True or False; the sweeps' format:
# results/cuda/2026-12-06-hist32-h100/sweep_compare.py).
bench_row() {
    local file=$1 want=$2 r=$3 label=$4 bin=$5 n=$6 m=$7 ks=$8
    shift 8
    env RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$label "$bin" bench cuda --n "$n" --m "$m" -k "$ks" \
        --reps 30 --json "$@" 2>/dev/null | "$PY" -c "import json, sys
s = sys.stdin.read()
d = json.loads(s[s.index('['):])
cells = ' '.join(f\"{r['k']}:{r['median_ms'] * 1000:.2f}\" for r in d if r['sorted'] == $want)
print($r, '$label', $n, $m, cells)" >> "$OUT/$file"
}

# sweep_row ROUND LABEL BIN N M KS [ARGS...]: the unsorted cases into $OUT/sweep.txt.
sweep_row() { bench_row sweep.txt False "$@"; }

# sorted_row ROUND LABEL BIN N M KS [ARGS...]: `--sorted`, the sorted cases into $OUT/sorted.txt.
sorted_row() { bench_row sorted.txt True "$@" --sorted; }

# sorted_rounds "B1 B2 ..." SHAPE...: two rounds of sorted_row over every shape ("N M KS") for
# each build /tmp/binsB in turn, while the call has run under 280 s.
sorted_rounds() {
    local builds=$1 r b s shape
    shift
    for r in 1 2; do
        for b in $builds; do
            for s in "$@"; do
                [ $SECONDS -lt 280 ] || return 0
                read -ra shape <<< "$s"
                sorted_row "$r" "b$b" "/tmp/bins$b/rtopk" "${shape[@]}"
            done
        done
    done
}

# grids_beside_peers LOGS LABEL BIN WHEEL: issue 32's grids beside FlashInfer and CUB
# (peers_run into LOGS), f32 through BIN (`rtopk bench cuda --grid large-k`, unit cache
# /tmp/ptx_LABEL), bf16 through the wheel WHEEL with torch.topk in the same run
# (bench/split_rows.py, every answer checked), $OUT/table.md by bench/large_k_table.py; then
# the f32 indexer grid through WHEEL beside torch.topk (its JSON under LOGS).
grids_beside_peers() {
    local logs=$1 label=$2 bin=$3 wheel=$4
    peers_run "$logs"
    step "grid_$label" 120 env RTOPK_CUDA_PTX_CACHE="/tmp/ptx_$label" "$bin" bench cuda \
        --grid large-k --reps 20 --json
    grep -v '^\s*$' "$OUT/grid_$label.txt" | sed -n '/^\[/,$p' > "$OUT/rtopk_large_k.json"
    step split_bf16 150 env $(build_env "$wheel") "$PY" bench/split_rows.py \
        --out "$OUT/split_bf16" --grid indexer,sampler,vector-k --dtype bf16 --reps 15
    "$PY" bench/large_k_table.py --rtopk "$OUT/rtopk_large_k.json" \
        --split "$OUT"/split_bf16/*.json --peers "$OUT/peers.jsonl" > "$OUT/table.md" 2>&1
    step split_f32 120 env $(build_env "$wheel") "$PY" bench/split_rows.py \
        --out "$logs/split_f32" --grid indexer --dtype f32 --reps 15
}
