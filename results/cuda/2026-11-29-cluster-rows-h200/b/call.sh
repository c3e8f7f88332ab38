#!/usr/bin/env bash
# call b (from the repository root on the device): devbin/b = the cluster-row build with the
# measured rule; devbin/h = HEAD's build (b6a598b); devbin/kv1 = a kernel-file variant
S=$OUT/steps.txt
nvidia-smi -L > $OUT/device.txt; date -u >> $OUT/device.txt
python3 -m pip install -q --no-deps --target /tmp/wb devbin/b/whl/rtopk-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl >> $S 2>&1
export PYTHONPATH=/tmp/wb RTOPK_CUDA_PTX_CACHE=/tmp/ptxb
chmod +x devbin/b/rtopk devbin/b/gpu devbin/b/gpu_ragged devbin/h/rtopk
L=$OUT/logs; mkdir -p $L
echo "== check" >> $S
( time timeout 120 python3 bench/cluster_rows.py check ) > $L/check.txt 2>&1; tail -4 $L/check.txt >> $S
echo "== gpu cluster test" >> $S
( time timeout 200 devbin/b/gpu --ignored cluster ) > $L/gpu_cluster.txt 2>&1; tail -5 $L/gpu_cluster.txt >> $S
echo "== sanitizer" >> $S
for tool in memcheck racecheck synccheck; do
  for c in "--n 2 --m 70000 -k 513" "--n 2 --m 131071 -k 99" "--n 2 --m 70000 -k 5000 --sorted" "--n 1 --m 16400 -k 7 --smallest"; do
    echo "== $tool $c" >> $L/sanitizer.txt
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 devbin/b/rtopk bench cuda $c --reps 1 >> $L/sanitizer.txt 2>&1
    echo "$tool [$c] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer.txt | tail -1)" >> $S
  done
done
echo "== grids (head, new, kv1, new, head)" >> $S
G="--grid indexer,sampler,appendix-b,long --reps 15 --json"
( time timeout 100 devbin/h/rtopk bench cuda $G > $L/grid_head_1.json ) >> $S 2>&1
( time timeout 100 devbin/b/rtopk bench cuda $G > $L/grid_new_1.json ) >> $S 2>&1
( time timeout 100 devbin/b/rtopk bench cuda $G --kernel-dir devbin/kv1 > $L/grid_kv1_1.json ) >> $S 2>&1
( time timeout 100 devbin/b/rtopk bench cuda $G > $L/grid_new_2.json ) >> $S 2>&1
( time timeout 100 devbin/h/rtopk bench cuda $G > $L/grid_head_2.json ) >> $S 2>&1
echo "== verify --quick f32" >> $S
( time timeout 200 devbin/b/rtopk verify cuda --quick --dtype float32 ) > $L/verify_f32.txt 2>&1; tail -6 $L/verify_f32.txt >> $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
