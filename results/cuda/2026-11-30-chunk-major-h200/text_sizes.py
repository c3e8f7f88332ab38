"""The size of each entry point's code in two trees' kernel units (the record's 64-bit against
32-bit `chunk_of`): each unit's generated source (`rtopk bench cuda --emit-sources DIR`)
compiled by NVRTC to an sm_90 cubin, and the size of every `.text.<entry point>` section.

    python3 text_sizes.py NVRTC_LIB OLD_DIR NEW_DIR [UNIT ...]

NVRTC_LIB: libnvrtc.so of CUDA 12 or 13 (its builtins library on LD_LIBRARY_PATH); the units
default to the split's chunk kernels and the cluster row."""
import ctypes
import struct
import sys

lib_path, old_dir, new_dir, *units = sys.argv[1:]
units = units or ["rtopk_block_rows", "rtopk_block_rows_narrow", "rtopk_warp_rows_64", "rtopk_cluster_rows"]
nvrtc = ctypes.CDLL(lib_path)


def cubin(path):
    with open(path, "rb") as f:
        src = f.read()
    prog = ctypes.c_void_p()
    nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, b"unit.cu", 0, None, None)
    opts = [b"--gpu-architecture=sm_90", b"--fmad=false", b"-std=c++17"]
    if nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) != 0:
        sys.exit(f"NVRTC failed on {path}")
    n = ctypes.c_size_t()
    nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(n))
    out = ctypes.create_string_buffer(n.value)
    nvrtc.nvrtcGetCUBIN(prog, out)
    return out.raw


def text_sizes(elf):
    """`.text.<name>` section sizes of an ELF64 image."""
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    entsize, count, names_at = struct.unpack_from("<HHH", elf, 0x3A)
    heads = [struct.unpack_from("<IIQQQQ", elf, shoff + i * entsize) for i in range(count)]
    strtab = heads[names_at][4]

    def name(off):
        end = elf.index(b"\0", strtab + off)
        return elf[strtab + off:end].decode()

    return {name(h[0])[6:]: h[5] for h in heads if name(h[0]).startswith(".text.")}


for unit in units:
    old, new = (text_sizes(cubin(f"{d}/{unit}.cu")) for d in (old_dir, new_dir))
    for entry in sorted(old):
        print(f"{entry}: {old[entry]} -> {new.get(entry)} bytes")
