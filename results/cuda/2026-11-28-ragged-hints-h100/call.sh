#!/usr/bin/env bash
# Call G: the merged ragged2 build (devbin/new: rtopk, GPU test binaries, wheel, python tests,
# bench scripts) — GPU tests, verify, the plain A/B against devbin/old, the Python tests of the
# CUDA path, the decode benchmark and the eager host time.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT; mkdir -p $out
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } | tee $out/device.txt
N=devbin/new
python3 -m pip install -q --no-deps --target /tmp/site $N/rtopk-*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site RTOPK_CUDA_PTX_CACHE=/tmp/ptx-new
s=$SECONDS; python3 -c "import rtopk.cuda as c; print(c.prepare())" > /tmp/prepare.txt 2>&1; echo "== prepare $((SECONDS-s)) s: $(tail -1 /tmp/prepare.txt)" | tee -a $out/device.txt
{
for t in gpu_ragged gpu_raw gpu; do
  s=$SECONDS; timeout 150 $N/tests/$t --ignored --test-threads 1 2>&1 | grep -E "^test |test result|panicked|assert" ; echo "== $t rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
done
s=$SECONDS; timeout 60 $N/rtopk verify cuda --quick 2>&1 | tail -3; echo "== verify $((SECONDS-s)) s"
} > $out/gpu_tests.txt 2>&1; grep -E "^==|test result" $out/gpu_tests.txt
for b in old new; do
  exe=$([ $b = old ] && echo devbin/old/rtopk || echo $N/rtopk)
  RTOPK_CUDA_PTX_CACHE=/tmp/ptx-$b timeout 100 $exe bench cuda --grid rtopk --json > /tmp/rtopk_$b.json 2>/dev/null; echo "== grid $b rc=$?"
done
python3 bench/ab_compare.py /tmp/rtopk_old.json /tmp/rtopk_new.json --exact-only > $out/rtopk_ab.md 2>&1; tail -n 2 $out/rtopk_ab.md
s=$SECONDS; timeout 200 python3 $N/bench/decode.py --shape 1x1048576:2048 --shape 8x131072:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 64x128256:50 --steps 16 --out $out/decode.json > $out/decode.txt 2>&1; echo "== decode rc=$? $((SECONDS-s)) s"; tail -n 25 $out/decode.txt
s=$SECONDS; timeout 60 python3 $N/bench/eager_overhead.py --calls 3000 --json $out/eager.json > /tmp/eager.txt 2>&1; echo "== eager rc=$? $((SECONDS-s)) s"; cut -c1-140 /tmp/eager.txt
cd $N && s=$SECONDS; timeout 150 python3 -m pytest tests/test_ragged.py tests/test_torch_cuda.py -q -x -rs -p no:cacheprovider > $out/pytest.txt 2>&1; echo "== pytest rc=$? $((SECONDS-s)) s"; tail -n 4 $out/pytest.txt
