"""Usage: cmp_npy.py A_PREFIX B_PREFIX — whether A_PREFIX_{v,i,t}.npy equal B_PREFIX's bit for bit
(values, indices, thresholds); prints one line, exits 1 on a difference."""
import sys
import numpy as np

a, b = sys.argv[1], sys.argv[2]
bad = []
for s in ("v", "i", "t"):
    x, y = np.load(f"{a}_{s}.npy"), np.load(f"{b}_{s}.npy")
    if x.shape != y.shape or x.tobytes() != y.tobytes():
        bad.append(s)
print(f"{a} vs {b}: {'EQUAL' if not bad else 'DIFFER in ' + ','.join(bad)}")
sys.exit(1 if bad else 0)
