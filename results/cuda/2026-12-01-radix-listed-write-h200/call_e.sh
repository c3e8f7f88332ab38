#!/usr/bin/env bash
# call e (from the repository root on the device): the committed build (devbin/rxd, devbin/wd)
# against c758368's (devbin/rxb, devbin/wb): the seven grids alternated twice, torch.topk on
# the new one's shapes, the table (table.py); one long row of 2^25 and 2^28 in four input
# families; each radix kernel by Nsight Compute; the radix gate at k = 2048 on few rows in
# f32, f16 and bf16 through each wheel (gate16.py, torch.topk in the same run); which peers'
# sources this device has (flashinfer, CCCL with DeviceTopK).
set -uo pipefail
R=results/cuda/2026-12-01-radix-listed-write-h200
S=$OUT/steps.txt; L=/tmp/le; mkdir -p $L
nvidia-smi -L > $L/device.txt; date -u >> $L/device.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $L/device.txt
chmod +x devbin/rxd/* devbin/rxb/rtopk
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
G=rtopk,appendix-b,split,indexer,sampler,vector,vector-k
for i in 1 2; do
  for b in rxd rxb; do
    s=$SECONDS; timeout 60 devbin/$b/rtopk bench cuda --grid $G --reps 10 --json > $L/grid_${b}_$i.json 2> $L/grid_${b}_$i.err; echo "== grid $b $i rc=$? $((SECONDS-s)) s" >> $S
  done
  python3 bench/ab_compare.py $L/grid_rxb_$i.json $L/grid_rxd_$i.json > $L/ab_$i.txt 2>&1; tail -1 $L/ab_$i.txt | cut -c1-1500 >> $S
done
s=$SECONDS; timeout 100 python3 bench/torch_topk.py $L/grid_rxd_1.json > $L/torch.json 2> $L/torch.err; echo "== torch rc=$? $((SECONDS-s)) s" >> $S
python3 results/cuda/2026-11-30-radix-candidates-h200/table.py $L rxd rxb > $L/table.md 2>&1; cat $L/table.md >> $S
for b in rxd rxb; do for m in 268435456 33554432; do
  timeout 60 devbin/$b/rtopk bench cuda --n 1 --m $m -k 8192,32768 --dist normal,uniform,ties,radix-adversarial --reps 10 --json > $L/fam_${b}_${m}.json 2> $L/fam_${b}_${m}.err; echo "== families $b $m rc=$?" >> $S
  python3 -c "import json;print([(c['input'],c['k'],round(c['median_ms'],4)) for c in json.load(open('$L/fam_${b}_${m}.json'))])" >> $S 2>&1
done; done
s=$SECONDS; timeout 60 ncu --csv --print-units base --metrics gpu__time_duration.sum --cache-control all -k regex:radix devbin/rxd/rtopk bench cuda --n 1 --m 268435456 -k 32768 --dist normal --reps 1 > $L/ncu.csv 2> $L/ncu.err; echo "== ncu $((SECONDS-s)) s" >> $S
grep radix $L/ncu.csv | awk -F'","' '{print $5, $NF}' >> $S
for w in wd wb; do
  python3 -m pip install -q --no-deps --target /tmp/site_$w devbin/$w/rtopk-*.whl > $L/pip_$w.txt 2>&1
  s=$SECONDS; PYTHONPATH=/tmp/site_$w RTOPK_CUDA_PTX_CACHE=/tmp/ptx_$w timeout 120 python3 $R/gate16.py $L/gate16_$w.json > $L/gate16_$w.txt 2>&1; echo "== gate16 $w rc=$? $((SECONDS-s)) s" >> $S; cat $L/gate16_$w.txt | cut -c1-200 >> $S
done
(python3 -m pip list 2>/dev/null | grep -i -E "flashinfer|cupy|cuda-python|nvidia-cuda" ; timeout 30 find /usr /opt /root -name "device_topk.cuh" 2>/dev/null | head -5; nvcc --version | tail -2) > $L/peers_probe.txt 2>&1; echo "== peers probe" >> $S; cat $L/peers_probe.txt >> $S
cp $L/device.txt $L/table.md $OUT/
tar czf $OUT/logs.tgz -C $L .
echo "== end" >> $S
