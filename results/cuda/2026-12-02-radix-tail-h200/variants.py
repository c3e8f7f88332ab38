#!/usr/bin/env python3
"""Usage (this machine, from the repository root): variants.py OUTDIR — the kernel directories
of calla.sh (record.md): copies of crates/rtopk-cuda/kernels (b2b35fc's, as devbin/t6 embeds)
whose radix_rows.cu makes steps return at once, right after wait_for_previous_step() (timing
only: their answers are wrong). base: unchanged; c0: the count; cw0: the count and the write;
lcw0: also the digit passes after the keeping one (RADIX_LATER); p1only: every step but the
first digit pass; all0: every radix step."""
import os
import shutil
import sys

SRC = "crates/rtopk-cuda/kernels"
LATER = "    u32 pass = radix_pass(shift, bits);\n"


def returns(entry):
    head = f"{entry}(RADIX_ARGS) {{\n    wait_for_previous_step();\n"
    return head, head + "    return;\n"


VARIANTS = {
    "base": [],
    "c0": [returns("rtopk_radix_count")],
    "cw0": [returns("rtopk_radix_count"), returns("rtopk_radix_write")],
    "lcw0": [
        (LATER, LATER + "    if (pass == RADIX_LATER) return;\n"),
        returns("rtopk_radix_count"),
        returns("rtopk_radix_write"),
    ],
    "p1only": [
        (LATER, LATER + "    if (pass != RADIX_FIRST) return;\n"),
        returns("rtopk_radix_count"),
        returns("rtopk_radix_write"),
    ],
    "all0": [returns(e) for e in ("rtopk_radix_count", "rtopk_radix_write", "rtopk_radix_digits",
                                  "rtopk_radix_sample")],
}

out = sys.argv[1]
for name, edits in VARIANTS.items():
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(SRC, d)
    path = os.path.join(d, "radix_rows.cu")
    text = open(path).read()
    for old, new in edits:
        if old not in text:
            sys.exit(f"{name}: {old!r} not found")
        text = text.replace(old, new)
    open(path, "w").write(text)
    print(name, "written")
