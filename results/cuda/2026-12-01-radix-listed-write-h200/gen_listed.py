"""Inputs of check.sh (../2026-11-30-radix-rows-h200/check.sh) for the write from candidates:
rows of 2^25 (512 blocks of 65536 elements, 8192 candidates a block at most) whose candidates
fit, but where one block's part holds more keys at or above the k-th than a block writes from
shared memory (RADIX_WRITE_LIST, 1024) — that block reads its part, the others write from
their candidates — with and without ties cut at the k-th value; and ties at the k-th value
spread over every block (the cut between blocks)."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(31)
m = 1 << 25
x = rng.standard_normal((1, m), dtype=np.float32)
spike = x.copy()
spike[0, 5 * 65536 : 5 * 65536 + 3000] = 10.0 + np.arange(3000, dtype=np.float32) / 1024
np.save(f"{d}/spike_1x{m}.npy", spike)
ties = x.copy()
ties[0, 7 * 65536 + 11 : 7 * 65536 + 11 + 5000] = 5.0  # k = 4096 cuts them, all in block 7
np.save(f"{d}/tieblock_1x{m}.npy", ties)
spread = x.copy()
spread[0, 3::4096] = 5.0  # 8192 ties, 16 a block: k = 4096 cuts them between blocks
np.save(f"{d}/tiespread_1x{m}.npy", spread)
np.save(f"{d}/tiespreadf16_1x{m}.npy", spread.astype(np.float16))
