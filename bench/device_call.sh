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
