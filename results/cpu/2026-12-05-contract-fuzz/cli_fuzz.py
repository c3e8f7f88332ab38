"""Differential fuzz of `rtopk select` against ref.py (docs/contract.md §1, §2, §5)."""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen import matrix  # noqa: E402
from ref import bits, canonical_order, reference  # noqa: E402

BIN = os.environ.get("RTOPK", "/work/main/target/release/rtopk")
EXACT = ["heap", "quickselect", "radix", "bucket", "bitonic", "bisect", "sim", "air",
         "gridselect", "warpselect", "drtopk", "torch-radix", "sort"]
# LONG=1: few rows of 3000 to 500000 values, k up to 8192 (sim, bisect, radix)
LONG = os.environ.get("LONG") == "1"


def run(args):
    p = subprocess.run([BIN, "select", *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check_case(rng, d, case):
    dtype = rng.choice(["f4", "f2"])
    if LONG:  # few long rows: the split, cluster and radix paths of the launch program
        n = int(rng.choice([1, 2, 3, 8]))
        m = int(rng.choice([3000, 16384, 20000, 49152, 70001, 163840, 262144, 500000]))
    else:
        n = int(rng.choice([0, 1, 2, 5, 13, 40]))
        m = int(rng.choice([1, 2, 3, 31, 33, 64, 100, 257, 777, 1500, 4100]))
    x = matrix(rng, n, m, dtype)
    xp = os.path.join(d, "x.npy")
    np.save(xp, x)
    algo = str(rng.choice(["sim", "sim", "bisect", "radix"] if LONG else EXACT))
    smallest = rng.random() < 0.3
    sorted_ = rng.random() < 0.4
    args = ["--algo", algo, "--input", xp]
    ragged = rng.random() < 0.4
    lengths = None
    if ragged:
        kk = rng.integers(0, m + 1, size=n)
        if rng.random() < 0.5:
            np.save(os.path.join(d, "k.npy"), kk.astype(rng.choice(["<i8", "<i4", "<u2", "<u8"]) if m < 60000 else "<i8"))
            args += ["--k-per-row", os.path.join(d, "k.npy")]
            k = kk
        else:
            k = int(rng.integers(0, m + 1))
            args += ["-k", str(k)]
        if rng.random() < 0.7:
            lengths = rng.integers(0, m + 1, size=n)
            if rng.random() < 0.3:
                lengths[:] = m
            np.save(os.path.join(d, "l.npy"), lengths.astype("<i8"))
            args += ["--lengths", os.path.join(d, "l.npy")]
        if rng.random() < 0.5:
            h = rng.choice([np.nan, np.inf, -np.inf, 0.0, 1.0, -1e30, 1e-40], size=n).astype(np.float32)
            if rng.random() < 0.5 and n:
                _, _, t = reference(x, k, smallest, False, lengths)
                h = t
            np.save(os.path.join(d, "h.npy"), h.astype("<f4"))
            args += ["--hint", os.path.join(d, "h.npy")]
    else:
        ks = [0, 1, m - 1 if m > 1 else 1, m, int(rng.integers(0, m + 1))]
        if LONG:
            ks += [v for v in (512, 1024, 2048, 8192) if v <= m]
        k = int(rng.choice(ks))
        args += ["-k", str(k)]
    if smallest:
        args.append("--smallest")
    if sorted_:
        args.append("--sorted")
    approx = None
    if algo in ("bisect", "sim") and rng.random() < 0.25:
        if rng.random() < 0.5:
            approx = ("max-iter", int(rng.integers(0, 6)))
            args += ["--max-iter", str(approx[1])]
        else:
            approx = ("recall", float(rng.choice([0.5, 0.8, 0.95, 1.0])))
            args += ["--recall", str(approx[1])]
    outs = {"values": "v.npy", "indices": "i.npy", "threshold": "t.npy"}
    if algo in ("bisect", "sim"):
        outs["iterations"] = "it.npy"
    for name, f in outs.items():
        args += [f"--{name}", os.path.join(d, f)]
    rc, msg = run(args)
    desc = f"case {case}: {algo} {dtype} n={n} m={m} k={'per-row' if not np.isscalar(k) else k} smallest={smallest} sorted={sorted_} lengths={lengths is not None} approx={approx} args={' '.join(args)}"
    if rc != 0:
        return f"{desc}\n  rc={rc}: {msg.strip()[:400]}"
    v = np.load(os.path.join(d, "v.npy"))
    i = np.load(os.path.join(d, "i.npy"))
    t = np.load(os.path.join(d, "t.npy"))
    rv, ri, rt = reference(x, k, smallest, sorted_, lengths)
    if v.dtype != x.dtype or v.shape != rv.shape or i.shape != ri.shape or t.shape != (n,):
        return f"{desc}\n  shapes/dtypes {v.dtype} {v.shape} {i.shape} {t.shape} vs {rv.shape}"
    if approx is None or (approx[0] == "recall" and approx[1] == 1.0):
        if not np.array_equal(i, ri):
            bad = np.nonzero((i != ri).any(axis=1))[0][:3]
            return f"{desc}\n  indices differ rows {bad}: got {i[bad[0]][:10]} want {ri[bad[0]][:10]}"
        if not np.array_equal(bits(v), bits(rv)):
            return f"{desc}\n  values' bits differ"
        same = (np.isnan(t) & np.isnan(rt)) | (bits(t) == bits(rt))
        if not same.all():
            bad = np.nonzero(~same)[0][:3]
            return f"{desc}\n  threshold differs rows {bad}: got {t[bad]} {bits(t)[bad]} want {rt[bad]} {bits(rt)[bad]}"
    else:
        # validity: distinct, inside the valid prefix, input's bits, padding where the row is short
        ks = np.full(n, k) if np.isscalar(k) else k
        for r in range(n):
            L = m if lengths is None else lengths[r]
            take = min(ks[r], L)
            row_i = i[r, :take]
            if len(set(row_i.tolist())) != take or (row_i < 0).any() or (row_i >= L).any():
                return f"{desc}\n  approx row {r} invalid indices {row_i[:10]}"
            if not np.array_equal(bits(v[r, :take]), bits(x[r, row_i])):
                return f"{desc}\n  approx row {r} values not input bits"
            if (i[r, take:] != -1).any() or (bits(v[r, take:]) != 0).any():
                return f"{desc}\n  approx row {r} bad padding"
            if take and not sorted_ and (np.diff(row_i) <= 0).any():
                return f"{desc}\n  approx row {r} not in index order"
            if approx[0] == "recall" and take:
                can = set(canonical_order(x[r, :L], smallest)[:take].tolist())
                rec = len(can & set(row_i.tolist())) / take
                need = np.ceil(np.float32(approx[1]) * np.float32(take)) / take
                if rec + 1e-9 < need:
                    return f"{desc}\n  recall row {r} {rec} < {need}"
    if "iterations" in outs:
        it = np.load(os.path.join(d, "it.npy"))
        if it.shape != (n,):
            return f"{desc}\n  iterations shape {it.shape}"
        ks = np.full(n, k) if np.isscalar(k) else k
        for r in range(n):
            L = m if lengths is None else lengths[r]
            if min(ks[r], L) == 0 and it[r] != 0:
                return f"{desc}\n  iterations row {r} {it[r]} != 0 for an empty selection"
        # the other of bisect/sim must give the same counts
        other = "sim" if algo == "bisect" else "bisect"
        args2 = [a if a != algo else other for a in args]
        outs2 = list(args2)
        for j, a in enumerate(outs2):
            if a.endswith("it.npy"):
                outs2[j] = os.path.join(d, "it2.npy")
            elif a.endswith(("v.npy", "i.npy", "t.npy")) and outs2[j - 1].startswith("--"):
                outs2[j] = a.replace(".npy", "2.npy")
        rc2, msg2 = run(outs2)
        if rc2 != 0:
            return f"{desc}\n  {other} rc={rc2}: {msg2.strip()[:300]}"
        it2 = np.load(os.path.join(d, "it2.npy"))
        i2 = np.load(os.path.join(d, "i2.npy"))
        if not np.array_equal(it, it2):
            bad = np.nonzero(it != it2)[0][:3]
            return f"{desc}\n  iterations differ {algo} vs {other} rows {bad}: {it[bad]} vs {it2[bad]}"
        if not np.array_equal(i, i2):
            return f"{desc}\n  indices differ {algo} vs {other}"
    return None


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rng = np.random.default_rng(seed)
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        for c in range(cases):
            err = check_case(rng, d, c)
            if err:
                fails += 1
                print("FAIL", err, flush=True)
                if fails > 15:
                    break
    print(f"seed {seed}: {cases} cases, {fails} failures")


if __name__ == "__main__":
    main()
