#!/usr/bin/env bash
# call g (from the repository root on the device): devbin/g = the final build (cluster rows
# counting ahead on blocks of at most 8 warps, one threshold a round on wider ones); devbin/h =
# HEAD's build (b6a598b). Correctness, the grids alternated, the peers beside them.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
S=$OUT/steps.txt; L=/tmp/lg; mkdir -p $L
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt; (nvcc --version | tail -2) >> $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/wg devbin/g/whl/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl >> $S 2>&1
export PYTHONPATH=/tmp/wg RTOPK_CUDA_PTX_CACHE=/tmp/ptxg
chmod +x devbin/g/rtopk devbin/g/gpu devbin/g/gpu_ragged devbin/h/rtopk
s=$SECONDS; timeout 120 python3 bench/cluster_rows.py check > $L/check.txt 2>&1; echo "== check rc=$? $((SECONDS-s)) s: $(tail -1 $L/check.txt)" >> $S
s=$SECONDS; timeout 150 devbin/g/gpu --ignored cluster every_step > $L/gpu.txt 2>&1; echo "== gpu cluster, every_step rc=$? $((SECONDS-s)) s: $(grep 'test result' $L/gpu.txt)" >> $S
s=$SECONDS; timeout 150 devbin/g/gpu_ragged --ignored hinted_split > $L/gpu_ragged.txt 2>&1; echo "== gpu_ragged hinted_split rc=$? $((SECONDS-s)) s: $(grep 'test result' $L/gpu_ragged.txt)" >> $S
for c in "--n 2 --m 70000 -k 513" "--n 1 --m 49152 -k 2048 --smallest"; do
  echo "== racecheck $c" >> $L/sanitizer.txt
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 devbin/g/rtopk bench cuda $c --reps 1 >> $L/sanitizer.txt 2>&1
  echo "racecheck [$c] rc=$? $(grep -E 'RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
done
G="--grid indexer,sampler,appendix-b,long --reps 15 --json"
for r in 1 2; do
  for b in h g; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda $G > $L/grid_${b}_$r.json 2> $L/grid_${b}_$r.log; echo "== grid $b $r rc=$? $((SECONDS-s)) s" >> $S
  done
done
tar xJf devbin/g/vendor.tar.xz -C bench/peers
s=$SECONDS; BUILD_ONLY=1 BUILD_DIR=/tmp/peers OUT_DIR=$L/build timeout 200 bash bench/peers/run.sh > $L/build.txt 2>&1; echo "== peers build rc=$? $((SECONDS-s)) s" >> $S
for g in indexer sampler; do
  s=$SECONDS; OUT_DIR=$L/peers_f32_$g BUILD_DIR=/tmp/peers timeout 60 bash bench/peers/run.sh --reps 20 --shapes bench/peers/$g.txt > /dev/null 2> $L/peers_f32_$g.log; echo "== peers f32 $g rc=$? $((SECONDS-s)) s" >> $S
done
s=$SECONDS; timeout 60 devbin/g/rtopk bench cuda --grid indexer,sampler --reps 20 --json > $L/rtopk_g.json 2> $L/rtopk_g.log; echo "== rtopk g rc=$? $((SECONDS-s)) s" >> $S
s=$SECONDS; timeout 150 devbin/g/rtopk verify cuda --quick --dtype float32 > $L/verify_float32.txt 2>&1; echo "== verify float32 rc=$? $((SECONDS-s)) s" >> $S; grep -E "cluster|verify cuda" $L/verify_float32.txt >> $S
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
