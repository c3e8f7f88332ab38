#!/usr/bin/env python3
"""Whether a kernel change changes the machine code, unit by unit, without a GPU: NVRTC makes
each unit's cubin under the executor's options for an architecture, cuobjdump disassembles it,
and the two builds' SASS is compared per function (addresses and encodings left out). Needs
NVRTC and cuobjdump with nvdisasm on the PATH (the CUDA toolkit, or the pip wheels
nvidia-cuda-nvrtc, nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm).

The two builds' unit sources come from `rtopk bench cuda --emit-sources DIR` (with
`--kernel-dir KDIR` for a variant's kernels). Units whose sources are byte for byte the same
are not compiled. For each other unit: "same SASS", or each function's instruction counts.

    rtopk bench cuda --emit-sources /tmp/old --kernel-dir OLD_KERNELS
    rtopk bench cuda --emit-sources /tmp/new
    python3 bench/sass_diff.py /tmp/old /tmp/new --nvrtc /path/to/libnvrtc.so.13 \\
        [--arch sm_90] [--units 'pick_rows'] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from kernel_resources import nvrtc_image

FUNCTION = re.compile(r"^\s+Function : (\S+)")
INSTRUCTION = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")


def sass(cuobjdump: str, cubin: bytes) -> dict[str, list[str]]:
    """Each function's instructions (without addresses or encodings), in order."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        text = subprocess.run(
            [cuobjdump, "-sass", f.name], capture_output=True, text=True, check=True
        ).stdout
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if m := FUNCTION.match(line):
            current = out.setdefault(m.group(1), [])
        elif m := INSTRUCTION.match(line):
            current.append(m.group(1))
    return out


def compare(name: str, old: str, new: str, lib: str, cuobjdump: str, arch: str) -> str:
    """One unit's verdict: the same source, the same SASS, or the functions that differ."""
    with open(os.path.join(old, name), "rb") as a, open(os.path.join(new, name), "rb") as b:
        if a.read() == b.read():
            return f"{name}: same source"
    before = sass(cuobjdump, nvrtc_image(lib, os.path.join(old, name), arch, "CUBIN"))
    after = sass(cuobjdump, nvrtc_image(lib, os.path.join(new, name), arch, "CUBIN"))
    if before == after:
        return f"{name}: same SASS ({sum(map(len, after.values()))} instructions)"
    lines = [f"{name}: SASS differs"]
    for function in sorted(before.keys() | after.keys()):
        was, now = before.get(function), after.get(function)
        if was != now:
            counts = f"{len(was) if was else '-'} -> {len(now) if now else '-'}"
            lines.append(f"    {function}: {counts} instructions")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="the old build's `--emit-sources` directory")
    ap.add_argument("new", help="the new build's `--emit-sources` directory")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--nvrtc", default="libnvrtc.so", help="NVRTC's shared library")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--units", default="", help="a regular expression the unit names must match")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    names = sorted(set(os.listdir(args.old)) & set(os.listdir(args.new)))
    names = [n for n in names if n.endswith(".cu") and re.search(args.units, n)]
    alone = sorted(set(os.listdir(args.old)) ^ set(os.listdir(args.new)))
    work = partial(
        compare,
        old=args.old,
        new=args.new,
        lib=args.nvrtc,
        cuobjdump=args.cuobjdump,
        arch=args.arch,
    )
    differ = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for verdict in pool.map(work, names):
            print(verdict, flush=True)
            differ += "differs" in verdict
    for name in alone:
        print(f"{name}: in one build only")
    print(f"{len(names)} units compared for {args.arch}: {differ} with different SASS")
    return 1 if differ or alone else 0


if __name__ == "__main__":
    sys.exit(main())
