#!/usr/bin/env bash
# call d (from the repository root on the device): devbin/d = cluster rows that count ahead
# (two steps a round); devbin/bb = call b's cluster rows (one step a round); devbin/h = HEAD's
# build (b6a598b). Correctness of d, then the grids alternated, then the peers beside them.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/steps.txt; L=/tmp/ld; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; (nvcc --version | tail -2) >> $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/wd devbin/d/whl/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl >> $S 2>&1
export PYTHONPATH=/tmp/wd RTOPK_CUDA_PTX_CACHE=/tmp/ptxd
chmod +x devbin/d/rtopk devbin/d/gpu devbin/d/gpu_ragged devbin/bb/rtopk devbin/h/rtopk
s=$SECONDS; timeout 120 python3 bench/cluster_rows.py check > $L/check.txt 2>&1; echo "== check rc=$? $((SECONDS-s)) s: $(tail -1 $L/check.txt)" >> $S
s=$SECONDS; timeout 120 devbin/d/gpu --ignored cluster > $L/gpu_cluster.txt 2>&1; echo "== gpu cluster rc=$? $((SECONDS-s)) s: $(grep 'test result' $L/gpu_cluster.txt)" >> $S
for tool in memcheck racecheck synccheck; do
  for c in "--n 2 --m 70000 -k 513" "--n 1 --m 16400 -k 7 --smallest" "--n 1 --m 200003 -k 4096 --sorted"; do
    echo "== $tool $c" >> $L/sanitizer.txt
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 devbin/d/rtopk bench cuda $c --reps 1 >> $L/sanitizer.txt 2>&1
    echo "$tool [$c] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
  done
done
G="--grid indexer,sampler,appendix-b,long --reps 15 --json"
for r in 1 2; do
  for b in h bb d; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda $G > $L/grid_${b}_$r.json 2> $L/grid_${b}_$r.log; echo "== grid $b $r rc=$? $((SECONDS-s)) s" >> $S
  done
done
tar xJf devbin/d/vendor.tar.xz -C bench/peers
s=$SECONDS; BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build timeout 200 bash bench/peers/run.sh > $L/build.txt 2>&1; echo "== peers build rc=$? $((SECONDS-s)) s" >> $S
for g in indexer sampler; do
  s=$SECONDS; OUT_DIR=$L/peers_f32_$g BUILD_DIR=/tmp/peers timeout 60 bash bench/peers/run.sh --reps 20 --shapes bench/peers/$g.txt > /dev/null 2> $L/peers_f32_$g.log; echo "== peers f32 $g rc=$? $((SECONDS-s)) s" >> $S
done
s=$SECONDS; timeout 60 devbin/d/rtopk bench cuda --grid indexer,sampler --reps 20 --json > $L/rtopk_d.json 2> $L/rtopk_d.log; echo "== rtopk d rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 200 devbin/d/rtopk verify cuda --quick --dtype float32 > $L/verify_f32.txt 2>&1; echo "== verify f32 rc=$? $((SECONDS-s)) s" >> $S; grep -E "cluster|verify cuda" $L/verify_f32.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
