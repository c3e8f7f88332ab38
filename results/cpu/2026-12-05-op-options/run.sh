# On the CPU VM, from the repository root: host_paths.py on b0 (HEAD before the change, the
# wheel installed into /tmp/site_b0) and a new build NEW, alternated b0, NEW, NEW, b0, CPU
# tensors, f32 then bf16, each run a line of OUT:
#
#     bash results/cpu/2026-12-05-op-options/run.sh b1 host_paths.jsonl
#     bash results/cpu/2026-12-05-op-options/run.sh b3 host_paths_b3.jsonl
#
# NEW is b0's wheel installed into the venv with its Python files replaced by links to the
# working tree's (b1: 7092972's; b3: the commit after 5aa7075) — these changes touch Python
# only; the name only labels the runs.
NEW=$1
OUT=results/cpu/2026-12-05-op-options/$2
PY=${PY:-/tmp/tvenv/bin/python}
for dtype in float32 bfloat16; do
    for b in b0 "$NEW" "$NEW" b0; do
        if [ "$b" = b0 ]; then pp=/tmp/site_b0; else pp=; fi
        PYTHONPATH=$pp $PY results/cpu/2026-12-05-op-options/host_paths.py --device cpu --dtype $dtype >> "$OUT"
    done
done
