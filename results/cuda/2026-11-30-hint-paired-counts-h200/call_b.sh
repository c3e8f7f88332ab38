#!/usr/bin/env bash
# Call b (1 x H200, from the repository root): devbin/w5 = this tree (call a's build with the
# block row's plain count written as before: slots_counted, then the tail's loops, then the
# block sum); devbin/w3 = 8acc1a8's build; devbin/k3 = 8acc1a8's kernel files. Correctness
# (every ragged and hinted GPU test, the quick f32 verify), bench/decode.py new and old
# alternated twice, and the plain grids (indexer, sampler, Appendix B, long) through w5's
# binary with k3's kernel files and its own, old, new, new, old.
set -uo pipefail
S=$OUT/steps.txt
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%Y-%m-%dT%H:%MZ; } > $L/device.txt
python3 -m pip install -q --no-deps --target /tmp/wn devbin/w5/rtopk-*.whl >> $S 2>&1
python3 -m pip install -q --no-deps --target /tmp/wo devbin/w3/rtopk-*.whl >> $S 2>&1
chmod +x devbin/w5/gpu_ragged devbin/w5/rtopk
export RTOPK_CUDA_PTX_CACHE=/tmp/ptx_t
t() { local name=$1; shift; local s=$SECONDS; "$@" > $L/$name.txt 2>&1; echo "== $name rc=$? $((SECONDS-s)) s: $(grep -E 'test result|passed|failed|identical|differ' $L/$name.txt | tail -1)" >> $S; }
D="--shape 1x16384:512 --shape 1x32768:2048 --shape 8x32768:2048 --shape 16x16384:512 --shape 64x16384:2048 --shape 64x32768:2048 --shape 64x32768:512 --shape 128x32768:1024 --shape 16x32000:64 --shape 128x32000:1024 --shape 64x128256:50 --shape 8x131072:2048 --shape 128x131072:2048 --shape 1x1048576:2048 --shape 16x1048576:2048"
i=0
for b in new old new old; do
  i=$((i+1)); w=/tmp/wn; [ $b = old ] && w=/tmp/wo
  extra="--no-lengths"; [ $i = 1 ] && extra=""
  s=$SECONDS; PYTHONPATH=$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$b timeout 80 python3 bench/decode.py $D --steps 16 $extra --out $L/decode_${b}_$i.json > $L/decode_${b}_$i.txt 2>&1
  echo "== decode_${b}_$i rc=$? $((SECONDS-s)) s" >> $S
done
G="--grid indexer,sampler,appendix-b,long --reps 15 --json"
i=0; for b in old new new old; do i=$((i+1)); kd=""; [ $b = old ] && kd="--kernel-dir devbin/k3"
  RTOPK_CUDA_PTX_CACHE=/tmp/ptx_g$b timeout 100 devbin/w5/rtopk bench cuda $G $kd > $L/grid_${b}_$i.json 2>> $L/grid_err.txt; echo "== grid $b $i rc=$?" >> $S; done
t gpu_ragged timeout 120 devbin/w5/gpu_ragged --ignored
t verify_f32 timeout 150 devbin/w5/rtopk verify cuda --quick --dtype float32
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
echo "== end" >> $S
