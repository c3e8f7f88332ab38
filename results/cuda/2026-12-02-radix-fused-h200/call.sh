#!/usr/bin/env bash
# Usage (from the repository root on the device): call.sh — record.md's call: the radix
# select's kernel variants (variants.py, made on this machine into devbin/vf and packed with
# HEAD's `rtopk` binary: `tar cJf devbin/pkvf.tar.xz -C devbin vf t1`), each through
# `rtopk bench cuda --kernel-dir`, alternated twice; then `rtopk verify cuda --quick` on f32
# for the fused variants (their answers against bisect and the simulator).
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/ld; rm -rf $L; mkdir -p $L
tar xJf devbin/pkvf.tar.xz -C devbin
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=devbin/t1/rtopk; chmod +x $B
VS="${VS:-base all0 fused pre fusedpre}"
SHAPES="1x2097152:2048 1x4194304:2048 1x1048576:1024 2x2097152:1024 8x2097152:2048 16x1048576:2048 1x8388608:2048"
for i in 1 2; do for v in $VS; do
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
  for c in $SHAPES; do sh=${c%:*}
    timeout 60 $B bench cuda --n ${sh%x*} --m ${sh#*x} -k ${c#*:} --reps 30 --json --kernel-dir devbin/vf/$v > $L/${v}_${i}_${sh}_${c#*:}.json 2>> $L/err_$v.txt
    echo "$v $i $c rc=$?" >> $L/rc.txt
  done
done; done
python3 - $L "$VS" >> $S <<'PY'
import glob, json, sys, collections
t = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + "/*.json"):
    v, i, sh, k = f.split("/")[-1][:-5].split("_")
    try:
        for c in json.load(open(f)):
            t[(sh, k, v)].append(c["median_ms"] * 1000)
    except Exception as e:
        print(f, e)
vs = sys.argv[2].split()
print("| shape | k | " + " | ".join(vs) + " |")
print("|---|---|" + "---|" * len(vs))
for sh, k in sorted({(a, b) for a, b, _ in t}):
    print(f"| {sh} | {k} | " + " | ".join("/".join(f"{x:.1f}" for x in t[(sh, k, v)]) for v in vs) + " |")
PY
grep -v "rc=0" $L/rc.txt >> $S
for v in $VS; do echo "$v: $(grep -o -m1 'rtopk_radix_digits=[0-9]*' $L/err_$v.txt)" >> $S; done
for v in ${VERIFY:-fused fusedpre}; do
  export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$v
  timeout 240 $B verify cuda --quick --dtype float32 --kernel-dir devbin/vf/$v > $L/verify_$v.txt 2>&1
  echo "verify $v rc=$?" >> $S; tail -5 $L/verify_$v.txt >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end $SECONDS s" >> $S
