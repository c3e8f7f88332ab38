# On the CPU VM, from the repository root: host_paths.py on b0 (HEAD before the change, the
# wheel installed into /tmp/site_b0) and b1 (the change: b0's wheel installed into the venv with
# its Python files replaced by links to the working tree's — this change touches Python only),
# alternated, CPU tensors.
R=results/cpu/2026-12-05-op-options
PY=${PY:-/tmp/tvenv/bin/python}
for dtype in float32 bfloat16; do
    for b in b0 b1 b1 b0; do
        if [ $b = b0 ]; then pp=/tmp/site_b0; else pp=; fi
        PYTHONPATH=$pp $PY $R/host_paths.py --device cpu --dtype $dtype >> $R/host_paths.jsonl
    done
done
