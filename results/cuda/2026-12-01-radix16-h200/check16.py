#!/usr/bin/env python3
"""rtopk.topk on f16/bf16 CUDA tensors against rtopk.topk on the same CPU tensors (topk-ref's
bisect): indices equal and value bits equal, on rows built to break a 16-bit search (NaN of
both signs and several payloads, +-inf, +-0, subnormals, heavy ties), widths that are not
multiples of 32, k in {1, a few, M/4, M-1, M}, both modes, sorted or not, with per-row
lengths and k, with hints, and with iteration counts asked. Prints one line per failing case
and a summary; exits 1 on any failure.

    python3 check16.py [--quick]
"""
import sys

import torch

import rtopk

QUICK = "--quick" in sys.argv
gen = torch.Generator().manual_seed(7)


def special_rows(n, m, dtype, kind):
    x = torch.randn(n, m, generator=gen)
    if kind == "ties":
        x = torch.round(x * 2) / 2
    elif kind == "specials":
        u = torch.rand(n, m, generator=gen)
        x = torch.where(u < 0.03, torch.tensor(float("nan")), x)
        x = torch.where((u >= 0.03) & (u < 0.06), -torch.tensor(float("nan")), x)
        x = torch.where((u >= 0.06) & (u < 0.09), torch.tensor(float("inf")), x)
        x = torch.where((u >= 0.09) & (u < 0.12), torch.tensor(float("-inf")), x)
        x = torch.where((u >= 0.12) & (u < 0.16), torch.tensor(0.0), x)
        x = torch.where((u >= 0.16) & (u < 0.20), torch.tensor(-0.0), x)
        x = torch.where((u >= 0.20) & (u < 0.24), x * 1e-6, x)  # f16 subnormals
        x = torch.where((u >= 0.24) & (u < 0.26), x * 1e-40, x)  # bf16 subnormals
    elif kind == "zeros":
        u = torch.rand(n, m, generator=gen)
        x = torch.where(u < 0.5, torch.tensor(-0.0), torch.tensor(0.0))
        x = torch.where(u > 0.9, torch.randn(n, m, generator=gen), x)
    elif kind == "nan_heavy":
        u = torch.rand(n, m, generator=gen)
        x = torch.where(u < 0.6, torch.tensor(float("nan")), x)
    y = x.to(dtype)
    if kind == "specials":
        # NaN payloads of both signs, bit for bit
        bits = y.view(torch.int16)
        pay = torch.randint(1, 0x3F, (n, m), generator=gen, dtype=torch.int16)
        nanmask = torch.isnan(y)
        bits = torch.where(nanmask, bits | pay, bits)
        y = bits.view(dtype)
    return y


def same(a, b):
    va = a.values.cpu().contiguous().view(torch.int16)
    vb = b.values.cpu().contiguous().view(torch.int16)
    return torch.equal(a.indices.cpu().long(), b.indices.cpu().long()) and torch.equal(va, vb)


fails = 0
cases = 0
shapes = [(300, 64), (300, 100), (200, 256), (200, 300), (100, 512), (80, 700), (60, 768),
          (40, 1000), (20, 2048), (10, 5000)]
big = [(1 << 17, 256), (1 << 17, 512), (1 << 16, 768), (1 << 18, 64)]
if QUICK:
    big = big[:2]
for dtype in (torch.float16, torch.bfloat16):
    for (n, m) in shapes + big:
        kinds = ["normal", "ties", "specials", "zeros", "nan_heavy"] if (n, m) in shapes else ["specials", "normal"]
        for kind in kinds:
          try:
            x = special_rows(n, m, dtype, kind)
            xc = x.cuda()
            for k in sorted({1, 3, max(1, m // 4), m // 2, m - 1, m}):
                for largest in (True, False):
                    for srt in (False, True):
                        if (n, m) in big and (srt or k not in (max(1, m // 4), m - 1, 1)):
                            continue
                        cases += 1
                        want = rtopk.topk(x, k, largest=largest, sorted=srt)
                        got = rtopk.topk(xc, k, largest=largest, sorted=srt)
                        if not same(got, want):
                            fails += 1
                            print(f"FAIL {dtype} n={n} m={m} {kind} k={k} largest={largest} sorted={srt}")
            if (n, m) in shapes:
                # per-row lengths and k (ragged), no hint, then with hints, then counts asked
                lengths = torch.randint(0, m + 1, (n,), generator=gen, dtype=torch.int32)
                ks = torch.randint(0, max(2, m // 3), (n,), generator=gen, dtype=torch.int32)
                for largest in (True, False):
                    cases += 1
                    want = rtopk.topk(x, ks, largest=largest, sorted=False, lengths=lengths)
                    got = rtopk.topk(xc, ks.cuda(), largest=largest, sorted=False, lengths=lengths.cuda())
                    if not same(got, want):
                        fails += 1
                        print(f"FAIL ragged {dtype} n={n} m={m} {kind} largest={largest}")
                    hint = torch.randn(n, generator=gen)
                    cases += 1
                    want = rtopk.topk(x, ks, largest=largest, sorted=False, lengths=lengths, hint=hint)
                    got = rtopk.topk(xc, ks.cuda(), largest=largest, sorted=False, lengths=lengths.cuda(), hint=hint.cuda())
                    if not same(got, want):
                        fails += 1
                        print(f"FAIL hinted {dtype} n={n} m={m} {kind} largest={largest}")
                k = max(1, m // 4)
                cases += 1
                want = rtopk.topk(x, k, sorted=False, return_iterations=True)
                got = rtopk.topk(xc, k, sorted=False, return_iterations=True)
                if not (same(got, want) and torch.equal(got.iterations.cpu().long(), want.iterations.cpu().long())):
                    fails += 1
                    print(f"FAIL counted {dtype} n={n} m={m} {kind}")
          except Exception as e:  # a case that cannot run is a failure, with its message
            fails += 1
            print(f"ERROR {dtype} n={n} m={m} {kind}: {type(e).__name__}: {e}"[:2000])
print(f"check16: {cases} cases, {fails} failed")
sys.exit(1 if fails else 0)
