set -x
D=results/tmp/prof
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > $OUT/device.txt
pip install --no-deps --target /tmp/site devbin/p7/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site
U=/tmp/site/rtopk/_units/sm_90
mkdir -p /tmp/elf
python $D/sass.py $U /tmp/elf rtopk_sort_warp_rows_64_i64.cubin rtopk_sort_warp_rows_128_i64.cubin rtopk_sort_warp_rows_128.cubin
for f in /tmp/elf/*.elf; do echo "== $f"; cuobjdump -res-usage $f 2>&1 | grep -i "REG\|STACK\|LOCAL" ; nvdisasm -c $f > $f.sass 2>&1; wc -l $f.sass; grep -c "SHFL" $f.sass; grep -c "LDL\|STL" $f.sass; done > /tmp/elf/summary.txt 2>&1
python $D/p.py
timeout 300 ncu --target-processes all -k regex:sort_warp --launch-count 2 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis python $D/p.py > /tmp/elf/ncu.txt 2>&1
timeout 200 ncu --target-processes all -k regex:sort_warp --launch-count 1 --launch-skip 1 --set full --import-source yes -o /tmp/elf/sort128 python $D/p.py > /dev/null 2>&1
ncu --import /tmp/elf/sort128.ncu-rep --page source --csv --print-source sass > /tmp/elf/src128.csv 2>&1
cd /tmp/elf && tar czf $OUT/prof.tgz *.txt *.sass src128.csv
cp /tmp/elf/summary.txt /tmp/elf/ncu.txt $OUT/
