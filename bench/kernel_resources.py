#!/usr/bin/env python3
"""What every kernel unit's entry points hold per thread, read off ptxas: registers, stack frame,
spill stores and loads, for one architecture. Needs no GPU: NVRTC and ptxas only (the CUDA
toolkit, or the pip wheels nvidia-cuda-nvrtc-cu12 and nvidia-cuda-nvcc-cu12).

The units' sources come from `rtopk bench cuda --emit-sources DIR`. Each unit goes to PTX with
NVRTC under the executor's options (crates/rtopk-cuda/src/compile.rs, `OPTIONS`; a test there
keeps the two lists the same), then `ptxas -v` compiles it for the architecture and reports.
The executor asks NVRTC for the cubin directly, so its embedded ptxas does this same step.
Spill bytes are static, counted where the code lies, not executed bytes: ncu's local-memory
traffic says what they cost.

    rtopk bench cuda --emit-sources /tmp/src
    python3 bench/kernel_resources.py /tmp/src --out res.tsv --arch sm_90 \
        --nvrtc /path/to/libnvrtc.so.12 --ptxas /path/to/ptxas [--jobs 2]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import subprocess
import tempfile
from concurrent.futures import ProcessPoolExecutor
from functools import partial

OPTIONS = ["--ftz=false", "--prec-sqrt=true", "--prec-div=true", "--fmad=false", "--std=c++17"]
ENTRY = re.compile(r"Compiling entry function '(\w+)'")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")


def nvrtc_image(lib: str, path: str, arch: str, what: str = "PTX") -> bytes:
    """What NVRTC makes of the unit in `path` for `arch` (`compute_90` for PTX, `sm_90` for a
    cubin too): `what` is "PTX" or "CUBIN". A RuntimeError with NVRTC's log if it fails."""
    nv = ctypes.CDLL(lib)
    prog = ctypes.c_void_p()
    with open(path, "rb") as f:
        src = f.read()
    name = os.path.basename(path).encode()
    if nv.nvrtcCreateProgram(ctypes.byref(prog), src, name, 0, None, None) != 0:
        raise RuntimeError(f"{path}: nvrtcCreateProgram failed")
    options = [*OPTIONS, f"--gpu-architecture={arch}"]
    argv = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    size = ctypes.c_size_t()
    try:
        if nv.nvrtcCompileProgram(prog, len(options), argv) != 0:
            nv.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            nv.nvrtcGetProgramLog(prog, log)
            raise RuntimeError(f"{path}: {log.value.decode(errors='replace')}")
        getattr(nv, f"nvrtcGet{what}Size")(prog, ctypes.byref(size))
        image = ctypes.create_string_buffer(size.value)
        getattr(nv, f"nvrtcGet{what}")(prog, image)
        return image.raw if what == "CUBIN" else image.value
    finally:
        nv.nvrtcDestroyProgram(ctypes.byref(prog))


def ptxas_report(ptxas: str, arch: str, ptx: bytes) -> list[tuple[str, int, int, int, int]]:
    """(entry, registers, stack, spill stores, spill loads) for each entry point of `ptx`."""
    with tempfile.NamedTemporaryFile(suffix=".ptx") as f:
        f.write(ptx)
        f.flush()
        out = subprocess.run(
            [ptxas, f"-arch={arch}", "-v", f.name, "-o", os.devnull],
            capture_output=True,
            text=True,
            check=True,
        )
    rows, entry, frame = [], None, (0, 0, 0)
    for line in (out.stdout + out.stderr).splitlines():
        if m := ENTRY.search(line):
            entry, frame = m.group(1), (0, 0, 0)
        elif (m := FRAME.search(line)) and entry:
            frame = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif (m := USED.search(line)) and entry:
            rows.append((entry, int(m.group(1)), *frame))
            entry = None
    return rows


def one_unit(path: str, lib: str, ptxas: str, arch: str) -> list[tuple]:
    unit = os.path.basename(path)[: -len(".cu")]
    ptx = nvrtc_image(lib, path, arch.replace("sm_", "compute_"))
    return [(unit, *row) for row in ptxas_report(ptxas, arch, ptx)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", help="the directory of `rtopk bench cuda --emit-sources`")
    ap.add_argument("--out", required=True, help="a tab-separated table, one line per entry point")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--nvrtc", default="libnvrtc.so", help="NVRTC's shared library")
    ap.add_argument("--ptxas", default="ptxas")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    files = sorted(
        os.path.join(args.sources, f) for f in os.listdir(args.sources) if f.endswith(".cu")
    )
    work = partial(one_unit, lib=args.nvrtc, ptxas=args.ptxas, arch=args.arch)
    with ProcessPoolExecutor(args.jobs) as pool, open(args.out, "w") as out:
        out.write("unit\tentry\tregisters\tstack\tspill_stores\tspill_loads\n")
        for rows in pool.map(work, files):
            out.writelines("\t".join(map(str, row)) + "\n" for row in rows)


if __name__ == "__main__":
    main()
