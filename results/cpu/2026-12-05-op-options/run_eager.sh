# On the CPU VM, from the repository root, after run.sh: the plain eager call on CPU tensors
# through rtopk._eager (b3, the commit after 5aa7075; installed as b1 was) against b0,
# alternated; the same host_paths.py, into host_paths_b3.jsonl.
R=results/cpu/2026-12-05-op-options
PY=${PY:-/tmp/tvenv/bin/python}
for dtype in float32 bfloat16; do
    for b in b0 b3 b3 b0; do
        if [ $b = b0 ]; then pp=/tmp/site_b0; else pp=; fi
        PYTHONPATH=$pp $PY $R/host_paths.py --device cpu --dtype $dtype >> $R/host_paths_b3.jsonl
    done
done
