"""Kernel-unit variants of the ragged twins, as shipped units (crates/rtopk-cuda/src/shipped.rs)
that a process loads in place of compiling the unit (RTOPK_CUDA_UNITS=DIR): a measurement
device, not a build — each variant's cubin carries the digest of the *unchanged* unit source,
so that the package built from that source loads the variant. Needs the unit sources
(`rtopk bench cuda --emit-sources SRC`) and NVRTC (libnvrtc.so.12 or .13).

    python3 variants.py SRC OUT LIBNVRTC

writes OUT/<variant>/sm_90/<unit>.cubin for the variants:
- ``same``: the unchanged source (the check that a shipped unit replaces the compiled one);
- ``nohint``: no hint search in the ragged twins (search_of never calls search_hinted, the
  cluster twins never search_from_hint): rows passed no hint search as the twin does without
  one, rows passed one ignore it (exact either way);
- ``bounds``: the ragged twins' launch bounds relaxed to the blocks these shapes launch (block
  rows that narrow: 256 threads, 3 blocks an SM; cluster rows: 512 threads), so that their
  registers do not spill (valid for launches of at most that many threads only).
and prints ptxas's report of each.
"""

import ctypes
import hashlib
import sys
import zlib
from pathlib import Path

FORMAT = "rtopk-cuda-shipped-unit-v1"
OPTS = ["--ftz=false", "--prec-sqrt=true", "--prec-div=true", "--fmad=false", "--std=c++17",
        "--gpu-architecture=sm_90"]
UNITS = ["rtopk_block_rows_narrow_ragged_i64", "rtopk_cluster_rows_narrow_ragged_i64",
         "rtopk_cluster_rows_ragged_i64", "rtopk_block_rows_ragged_i64"]


def nohint(src: str) -> str:
    out = src.replace(
        "if (takes_hint<HINTS>(p)) return search_hinted(row, lo_key, hi_key, p, hint);", "")
    out = out.replace("return Row::NARROW_CAP != 0u && takes_hint<true>(p) &&", "return false &&")
    assert out != src
    return out


def bounds(src: str) -> str:
    out = src.replace("__launch_bounds__(256, 4) rtopk_block_rows_narrow_ragged",
                      "__launch_bounds__(256, 3) rtopk_block_rows_narrow_ragged")
    out = out.replace("__launch_bounds__(1024, 1) rtopk_cluster_rows", "__launch_bounds__(512, 1) rtopk_cluster_rows")
    return out


ONE_EXACT_HINTED = """template <class Row>
__device__ Search search_hinted(const Row& row, u32 lo_key, u32 hi_key, const Params& p, float hint) {
    Search s = {lo_key, hi_key, 0u, 0, EXIT_CONVERGED, 0u, 0.0f, 0.0f, 0.0f, VALUE_NONE, row.m,
                recall_slack(p, p.k)};
    int side = hint_test(row, s, hint, p);
    if (side == HINT_SKIPPED) {
        if (lo_key == hi_key) return s;
        if (!keys_only<Row>(p)) value_of_bracket(s, p);
    } else {
        if (side == HINT_ENDED) return s;
        if (window_tests(row, s, side, p.k)) return s;
        s.exit = EXIT_CONVERGED;
        if (s.lo_key == s.hi_key) return s;
        value_of_bracket(s, p);
        s.has_count_at_hi = 0;
    }
    finish_exact(row, s, p.k);
    return s;
}
"""

ONE_EXACT_OF = """        if (p.k == row.m && p.max_iter < 0 && p.out_iter == nullptr) hi_key = lo_key;
        if (p.max_iter < 0)
            return search_hinted(row, lo_key, hi_key, p,
                                 takes_hint<HINTS>(p) ? hint : __int_as_float(0x7fc00000));
"""


def one_exact(src: str) -> str:
    start = src.index("template <class Row>\n__device__ Search search_hinted(")
    end = src.index("// The row's hint where it takes one")
    out = src[:start] + ONE_EXACT_HINTED + "\n" + src[end:]
    old = """        if (p.k == row.m && p.max_iter < 0 && p.out_iter == nullptr)
            return search_exact(row, lo_key, lo_key, p);
        if (takes_hint<HINTS>(p)) return search_hinted(row, lo_key, hi_key, p, hint);
"""
    assert old in out
    return out.replace(old, ONE_EXACT_OF)


def no_window(src: str) -> str:
    at = src.index("__device__ int window_tests(")
    brace = src.index("{", at)
    return src[: brace + 1] + " return 0;\n" + src[brace + 1 :]


def unpaired(src: str) -> str:
    old = "else row.count_above_and_at_least(t, &above, &at_least);"
    assert old in src
    return src.replace(
        old, "else { at_least = row.count_ge_positive(t); above = row.count_ge_positive(t + 1u); }"
    )


def compile_cubin(lib: ctypes.CDLL, src: str, name: str) -> bytes:
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None) == 0
    opts = [o.encode() for o in OPTS + ["--ptxas-options=--verbose"]]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    for line in log.value.decode(errors="replace").splitlines():
        if "registers" in line or "spill" in line or "error" in line:
            print("   ", line.replace("ptxas info    :", "").strip())
    assert rc == 0, f"{name}: NVRTC {rc}"
    lib.nvrtcGetCUBINSize(prog, ctypes.byref(n))
    image = ctypes.create_string_buffer(n.value)
    assert lib.nvrtcGetCUBIN(prog, image) == 0
    return image.raw


def shipped(source: str, image: bytes) -> bytes:
    digest = hashlib.sha256(
        f"{FORMAT}\ntarget sm_90\noptions {' '.join(OPTS)}\n".encode() + source.encode()
    ).hexdigest()
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return f"{FORMAT} {digest}\n".encode() + z.compress(image) + z.flush()


def main() -> None:
    src_dir, out, libpath = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    lib = ctypes.CDLL(libpath)
    for variant, edit in [("same", lambda s: s), ("nohint", nohint), ("bounds", bounds)]:
        for unit in UNITS:
            source = (src_dir / f"{unit}.cu").read_text()
            print(f"{variant} {unit}")
            image = compile_cubin(lib, edit(source), unit)
            d = out / variant / "sm_90"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{unit}.cubin").write_bytes(shipped(source, image))
    for unit in [u.replace("_ragged", "") for u in UNITS]:
        print(f"plain {unit}")
        compile_cubin(lib, (src_dir / f"{unit}.cu").read_text(), unit)
    for variant, edit in [("oneexact", one_exact), ("nowindow", no_window), ("unpaired", unpaired)]:
        for unit in UNITS[:3:2]:  # the narrowing block twin and the cluster twin
            print(f"{variant} {unit} (report only)")
            compile_cubin(lib, edit((src_dir / f"{unit}.cu").read_text()), unit)


if __name__ == "__main__":
    main()
