#!/usr/bin/env bash
# call c (from the repository root on the device): the same two builds as call b (devbin/g,
# devbin/wg against devbin/i, devbin/we) where call b did not look — the split whose second
# stage the moved gate gives the radix select (its GPU test against bisect, then f32 shapes of
# more than 2^25 elements on up to 8 rows at k = 512-1500, default route, median of 20,
# alternated twice) and 16-bit rows of 2^24-2^28 elements in all through both wheels
# (gate16b.py --shapes), alternated twice.
set -uo pipefail
S=$OUT/steps.txt; L=/tmp/lc; mkdir -p $L
R=results/cuda/2026-12-01-radix-gate-h200
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt
chmod +x devbin/g/* devbin/i/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
s=$SECONDS; timeout 200 devbin/g/gpu --include-ignored --test-threads 1 second_stage_is_a_radix > $L/gpu_tests.txt 2>&1; echo "== gpu nested radix test rc=$? $((SECONDS-s)) s" >> $S; grep -E "^test |test result|panicked" $L/gpu_tests.txt >> $S
for rep in 1 2; do for b in g i; do
  s=$SECONDS
  for nm in 1:67108864 1:134217728 1:268435456 2:33554432 2:67108864 4:16777216 4:33554432 8:16777216 8:33554432 8:8388608; do
    IFS=: read n m <<< "$nm"
    f=$L/t_${b}_${n}_${m}_$rep.json
    timeout 60 devbin/$b/rtopk bench cuda --n $n --m $m -k 512,1024,1500 --reps 20 --json > $f 2>> $L/t.err
    python3 -c "import json,sys;print('$b', ' '.join(f\"{c['n']}x{c['m']}:{c['k']}={c['median_ms']*1000:.2f}\" for c in json.load(open('$f'))))" >> $S 2>&1
  done
  echo "== cells $rep $b $((SECONDS-s)) s" >> $S
done; done
for w in g e; do python3 -m pip install -q --no-deps --target /tmp/site_$w devbin/w$w/rtopk-*.whl > $L/pip_$w.txt 2>&1; done
SH=1:16777216:512,1:16777216:1024,2:8388608:512,2:8388608:1024,4:4194304:512,4:4194304:1024,8:2097152:512,8:2097152:1024,1:33554432:1024,4:8388608:1024,1:67108864:512,2:33554432:1024,4:16777216:512,1:268435456:1024
for rep in 1 2; do for w in g e; do
  s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 150 python3 $R/gate16b.py $L/gate16_${w}_$rep.json --shapes $SH > $L/gate16_${w}_$rep.txt 2>&1; echo "== gate16 $w $rep rc=$? $((SECONDS-s)) s" >> $S
  cut -c1-200 $L/gate16_${w}_$rep.txt >> $S
done; done
cp $L/device.txt $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
