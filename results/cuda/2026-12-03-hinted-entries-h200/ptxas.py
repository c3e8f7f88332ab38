"""ptxas's register and spill report of each entry point of the ragged twins and their plain
units, as NVRTC builds them for sm_90 with the options the library uses
(crates/rtopk-cuda/src/compile.rs). Needs the unit sources (`rtopk bench cuda --emit-sources
SRC`) and NVRTC (libnvrtc.so.12 or .13); no GPU.

    python3 ptxas.py SRC LIBNVRTC [--nosplit] [UNIT ...]

prints, per unit, each entry point's registers, stack frame and spill stores and loads.
``--nosplit`` reports a variant, not a build: row_args without the ragged split's branch
(split_row_args, which rebases the row's pointers and strides), to show what that branch costs
the registers of rows that never split.
"""

import ctypes
import re
import sys
from pathlib import Path

OPTS = ["--ftz=false", "--prec-sqrt=true", "--prec-div=true", "--fmad=false", "--std=c++17",
        "--gpu-architecture=sm_90", "--ptxas-options=--verbose"]
UNITS = [
    "rtopk_block_rows_i64", "rtopk_block_rows_ragged_i64",
    "rtopk_block_rows_narrow_i64", "rtopk_block_rows_narrow_ragged_i64",
    "rtopk_cluster_rows_i64", "rtopk_cluster_rows_ragged_i64",
    "rtopk_cluster_rows_narrow_i64", "rtopk_cluster_rows_narrow_ragged_i64",
    "rtopk_warp_rows_32_i64", "rtopk_warp_rows_ragged_32_i64",
    "rtopk_warp_rows_64_i64", "rtopk_warp_rows_ragged_64_i64",
    "rtopk_wide_rows_16_f64_i64", "rtopk_wide_rows_ragged_16_f64_i64",
]


def report(lib: ctypes.CDLL, src: str, name: str) -> list[str]:
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None) == 0
    opts = [o.encode() for o in OPTS]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    assert rc == 0, f"{name}: NVRTC {rc}\n{log.value.decode(errors='replace')}"
    out, entry = [], None
    for line in log.value.decode(errors="replace").splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            entry = m.group(1)
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and entry:
            frame, stores, loads = m.groups()
        m = re.search(r"Used (\d+) registers", line)
        if m and entry:
            out.append(f"  {entry}: {m.group(1)} registers, {frame} B stack frame, "
                       f"{stores} B spill stores, {loads} B spill loads")
            entry = None
    return out


SPLIT = "    if (launch.split_chunk != 0u) return split_row_args(launch, row_id);\n"


def main() -> None:
    src_dir, lib = Path(sys.argv[1]), ctypes.CDLL(sys.argv[2])
    nosplit = "--nosplit" in sys.argv[3:]
    for unit in [u for u in sys.argv[3:] if u != "--nosplit"] or UNITS:
        source = (src_dir / f"{unit}.cu").read_text()
        if nosplit:
            assert SPLIT in source, unit
            source = source.replace(SPLIT, "")
        print(unit + (" (nosplit)" if nosplit else ""))
        for line in report(lib, source, unit):
            print(line)


if __name__ == "__main__":
    main()
