#!/usr/bin/env bash
# Call e (1 x H200, from the repository root): devbin/r3 = b47f0d7 and cluster_sum's
# warp-direct adds in blocks of at most 8 warps (CLUSTER_DIRECT_WARPS); devbin/kr2 = b47f0d7's
# kernel files. Correctness on the GPU (cluster rows against bisect and warp-sim, sanitizers on
# launches of both paths), then the grids with both kernel sets through one binary, alternated.
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/w3 devbin/r3/rtopk-*.whl >> $S 2>&1
chmod +x devbin/r3/rtopk devbin/r3/gpu devbin/r3/gpu_ragged
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_r3
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed|identical|differ' $L/$name.txt | tail -2 | tr '\n' ' ')" >> $S; }
t gpu_cluster timeout 60 devbin/r3/gpu --ignored cluster
t gpu_ragged timeout 80 devbin/r3/gpu_ragged --ignored ragged_rows_on_the_gpu_equal_the_simulator_f32 hinted_rows_on_the_gpu_equal_bisect_f32
t check timeout 60 env PYTHONPATH=/tmp/w3 python3 bench/cluster_rows.py check
for tool in racecheck synccheck; do
  for c in "--n 1 --m 32768 -k 2048" "--n 2 --m 49152 -k 512 --smallest" "--n 1 --m 100000 -k 2048"; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 devbin/r3/rtopk bench cuda $c --reps 1 >> $L/sanitizer.txt 2>&1
    echo "sanitizer $tool [$c] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
  done
done
G="--grid indexer,sampler,appendix-b,long --reps 15 --json"
i=0; for b in old new new old; do i=$((i+1)); kd=""; [ $b = old ] && kd="--kernel-dir devbin/kr2"
  RTOPK_CUDA_PTX_CACHE=/tmp/ptx_g$b timeout 60 devbin/r3/rtopk bench cuda $G $kd > $L/grid_${b}_$i.json 2>> $L/grid_err.txt; echo "== grid $b $i rc=$?" >> $S; done
t verify_f32 timeout 130 devbin/r3/rtopk verify cuda --quick --dtype float32
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
