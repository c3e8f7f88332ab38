"""Usage (on the device, numpy needed): guess_check.py RTOPK OUTDIR [SECONDS] — every answer of a cluster
row whose search starts from a guessed bracket (docs/kernel.md, "Cluster rows", **A guessed
bracket**) against bisect's: `RTOPK select --algo cuda` and `--algo bisect` on the same rows
(eight shapes of one to four rows of 40000 to 500000, eleven families, several k, largest and
smallest, unsorted and sorted), values and indices compared byte for byte, for at most SECONDS
(110) of cases. Prints one line a mismatch and a summary."""
import os
import subprocess
import sys
import time

import numpy as np

BIN, OUT = sys.argv[1], sys.argv[2]
LIMIT = float(sys.argv[3]) if len(sys.argv) > 3 else 110.0
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(7)


def family(name, n, m):
    if name == "normal":
        return rng.standard_normal((n, m))
    if name == "uniform":
        return rng.random((n, m))
    if name == "exponential":
        return rng.exponential(size=(n, m))
    if name == "ties":
        return rng.integers(0, 40, (n, m)).astype(np.float64)
    if name == "equal":
        return np.full((n, m), 1.5)
    if name == "ascending":
        return np.tile(np.linspace(-3, 3, m), (n, 1))
    if name == "descending":
        return np.tile(np.linspace(3, -3, m), (n, 1))
    if name == "blocks":  # each quarter of a row on its own scale: a sample of one part misleads
        x = rng.standard_normal((n, m))
        for q in range(4):
            x[:, q * m // 4:(q + 1) * m // 4] *= 10.0 ** q
        return x
    if name == "spike":  # a tenth of the row on one value near the top
        x = rng.standard_normal((n, m))
        x[:, rng.random(m) < 0.1] = 1.75
        return x
    if name == "nan-inf":
        x = rng.standard_normal((n, m))
        x[:, rng.random(m) < 0.01] = np.nan
        x[:, rng.random(m) < 0.005] = np.inf
        x[:, rng.random(m) < 0.005] = -np.inf
        return x
    if name == "subnormal":
        return rng.standard_normal((n, m)) * 1e-39
    raise ValueError(name)


SHAPES = [(1, 100000), (2, 65536), (1, 262144), (3, 49152), (1, 500000), (4, 131072), (1, 40000),
          (1, 163840)]
FAMILIES = ["normal", "uniform", "exponential", "ties", "equal", "ascending", "descending", "blocks",
            "spike", "nan-inf", "subnormal"]
KS = [2048, 4000, 1024]
cases = bad = 0
start = time.time()
for si, (n, m) in enumerate(SHAPES):
    for fi, fam in enumerate(FAMILIES):
        x = family(fam, n, m).astype(np.float32)
        xf = os.path.join(OUT, "x.npy")
        np.save(xf, x)
        for ki, k in enumerate(KS):
            flags = []
            if (si + fi + ki) % 3 == 1:
                flags.append("--smallest")
            if (si + fi + ki) % 4 == 2:
                flags.append("--sorted")
            outs = {}
            for algo in ("cuda", "bisect"):
                v, i = os.path.join(OUT, f"v_{algo}.npy"), os.path.join(OUT, f"i_{algo}.npy")
                r = subprocess.run([BIN, "select", "--algo", algo, "--input", xf, "-k", str(k),
                                    "--values", v, "--indices", i] + flags,
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAIL {algo} {n}x{m} {fam} k={k} {flags}: {r.stderr.strip()[:300]}")
                    bad += 1
                    break
                outs[algo] = (open(v, "rb").read(), open(i, "rb").read())
            cases += 1
            if len(outs) == 2 and outs["cuda"] != outs["bisect"]:
                bad += 1
                print(f"MISMATCH {n}x{m} {fam} k={k} {flags}")
        if time.time() - start > LIMIT:
            break
    if time.time() - start > LIMIT:
        print("stopped at the time limit")
        break
print(f"guess_check: {cases} cases, {bad} differing or failed, {time.time() - start:.0f} s")
