#!/usr/bin/env bash
# call e (from the repository root on the device): devbin/e = the final build (cluster rows
# that count ahead on blocks of at most 8 warps); devbin/h = HEAD's build (b6a598b).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/steps.txt; L=/tmp/le; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; (nvcc --version | tail -2) >> $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/we devbin/e/whl/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl >> $S 2>&1
export PYTHONPATH=/tmp/we RTOPK_CUDA_PTX_CACHE=/tmp/ptxe
chmod +x devbin/e/rtopk devbin/e/gpu devbin/e/gpu_ragged devbin/h/rtopk
s=$SECONDS; timeout 120 python3 bench/cluster_rows.py check > $L/check.txt 2>&1; echo "== check rc=$? $((SECONDS-s)) s: $(tail -1 $L/check.txt)" >> $S
s=$SECONDS; timeout 150 devbin/e/gpu --ignored cluster every_step > $L/gpu.txt 2>&1; echo "== gpu cluster, every_step rc=$? $((SECONDS-s)) s: $(grep 'test result' $L/gpu.txt)" >> $S
s=$SECONDS; timeout 150 devbin/e/gpu_ragged --ignored > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged rc=$? $((SECONDS-s)) s: $(grep 'test result' $L/gpu_ragged.txt)" >> $S
for tool in memcheck racecheck; do
  for c in "--n 2 --m 70000 -k 513" "--n 1 --m 100000 -k 2048 --smallest"; do
    echo "== $tool $c" >> $L/sanitizer.txt
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 devbin/e/rtopk bench cuda $c --reps 1 >> $L/sanitizer.txt 2>&1
    echo "$tool [$c] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
  done
done
G="--grid indexer,sampler,appendix-b,long --reps 15 --json"
for r in 1 2; do
  for b in h e; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda $G > $L/grid_${b}_$r.json 2> $L/grid_${b}_$r.log; echo "== grid $b $r rc=$? $((SECONDS-s)) s" >> $S
  done
done
tar xJf devbin/e/vendor.tar.xz -C bench/peers
s=$SECONDS; BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build timeout 200 bash bench/peers/run.sh > $L/build.txt 2>&1; echo "== peers build rc=$? $((SECONDS-s)) s" >> $S
for g in indexer sampler; do
  s=$SECONDS; OUT_DIR=$L/peers_f32_$g BUILD_DIR=/tmp/peers timeout 60 bash bench/peers/run.sh --reps 20 --shapes bench/peers/$g.txt > /dev/null 2> $L/peers_f32_$g.log; echo "== peers f32 $g rc=$? $((SECONDS-s)) s" >> $S
done
s=$SECONDS; timeout 60 devbin/e/rtopk bench cuda --grid indexer,sampler --reps 20 --json > $L/rtopk_e.json 2> $L/rtopk_e.log; echo "== rtopk e rc=$? $((SECONDS-s)) s" >> $S
for d in float32 bfloat16; do
  s=$SECONDS; timeout 150 devbin/e/rtopk verify cuda --quick --dtype $d > $L/verify_$d.txt 2>&1; echo "== verify $d rc=$? $((SECONDS-s)) s" >> $S; grep -E "cluster|verify cuda" $L/verify_$d.txt >> $S
done
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
