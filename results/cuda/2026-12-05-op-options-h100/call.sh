# One device call (from the repository root, $OUT the call's output folder): the custom op's
# options string and the CPU eager path (b5, 3988cb3's package) against b56b9e6 (b0) — host time per call of the torch paths on
# CUDA and CPU tensors, alternated — then b5's kernel cache prepared (every unit), its first
# calls in fresh processes on that cache, its eager host time against torch.topk, and the
# package's CUDA tests. (A wheel shipping its sm_90 units, 28 MB, did not fit the call's 64 MiB
# beside the repository.)
set -u
source bench/device_call.sh
R=results/cpu/2026-12-05-op-options  # host_paths.py
wheel b0
wheel b5
for dtype in float32 bfloat16; do
    for b in b0 b5 b5 b0; do
        env $(build_env $b) $PY $R/host_paths.py --device cuda --dtype $dtype --calls 1000 --rounds 5 >> $OUT/host_paths.jsonl 2>> $OUT/host_paths.err
    done
done
for b in b0 b5 b5 b0; do
    env $(build_env $b) $PY $R/host_paths.py --device cpu --dtype float32 --calls 1000 --rounds 5 >> $OUT/host_paths.jsonl 2>> $OUT/host_paths.err
done
echo "host_paths $(wc -l < $OUT/host_paths.jsonl) runs" >> $OUT/steps.txt
step prepare 150 env $(build_env b5) $PY -m rtopk.cuda prepare
step first_call 120 env $(build_env b5) $PY bench/first_call_py.py --out $OUT --label b5
step eager 120 env $(build_env b5) $PY bench/eager_overhead.py --calls 3000 --json $OUT/eager.json
step pytest_cuda 220 env $(build_env b5) $PY -m pytest crates/rtopk-py/tests -q -p no:cacheprovider -k "cuda and not verify_quick"
