"""Every answer of `rtopk select --algo cuda` equal to `--algo bisect`'s (the CPU reference) on
the split shapes whose first stage the wave rule moves, in three input families: normal rows,
heavy ties (values rounded to quarters), and rows with NaN of both signs, +-inf and -0 sprinkled
in. Usage: python3 waves_check.py RTOPK_BIN WORKDIR"""

import subprocess
import sys
from pathlib import Path

import numpy as np

SHAPES = [
    (96, 49152, 512),
    (96, 49152, 2048),
    (256, 49152, 1024),
    (32, 163840, 2048),
    (96, 100000, 2048),
    (256, 32768, 1024),
    (16, 1048576, 1024),
]


def family(name: str, n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal((n, m), dtype=np.float32)
    if name == "ties":
        x = np.round(x * 4) / 4
    elif name == "specials":
        pos = rng.integers(0, n * m, size=n * m // 200)
        specials = np.array(
            [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=np.float32
        )
        x.flat[pos] = specials[rng.integers(0, len(specials), size=len(pos))]
        bits = x.view(np.uint32)
        bits.flat[pos[::7]] = 0x7FC00123  # a NaN payload
    return x


def main() -> int:
    rtopk, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261206)
    bad = 0
    for n, m, k in SHAPES:
        for name in ("normal", "ties", "specials"):
            x = family(name, n, m, rng)
            np.save(work / "x.npy", x)
            out = {}
            for algo in ("cuda", "bisect"):
                subprocess.run(
                    [
                        rtopk,
                        "select",
                        "--algo",
                        algo,
                        "--input",
                        str(work / "x.npy"),
                        "-k",
                        str(k),
                        "--values",
                        str(work / f"v_{algo}.npy"),
                        "--indices",
                        str(work / f"i_{algo}.npy"),
                    ],
                    check=True,
                )
                out[algo] = (
                    np.load(work / f"v_{algo}.npy"),
                    np.load(work / f"i_{algo}.npy"),
                )
            same = np.array_equal(out["cuda"][1], out["bisect"][1]) and np.array_equal(
                out["cuda"][0].view(np.uint32), out["bisect"][0].view(np.uint32)
            )
            bad += not same
            print(n, m, k, name, "equal" if same else "DIFFERENT", flush=True)
    print(f"{bad} of {3 * len(SHAPES)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
