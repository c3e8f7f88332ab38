# Decompress shipped cubins (one header line, raw deflate) and write ELF files.
import sys, zlib, pathlib
src = pathlib.Path(sys.argv[1]); dst = pathlib.Path(sys.argv[2]); dst.mkdir(parents=True, exist_ok=True)
for name in sys.argv[3:]:
    b = (src / name).read_bytes()
    nl = b.index(b"\n")
    (dst / (name + ".elf")).write_bytes(zlib.decompress(b[nl + 1:], -15))
