"""Each row's threshold output on the GPU against torch.topk, over row counts and output
widths that put one to 32 lanes on a row (the plan's threshold_lanes_per_row: a warp a row
while the rows fit the device's warps, else several rows a warp, one lane a row up to 16
values, 2 to 32, ...) and several warps on a row (from 513): f32, bf16 and f16 rows of
N(0, 1) values rounded to a few levels (ties at the k-th value), both modes, rows of their own
length (some 0, some shorter than k) and full rows.

    python3 thresholds.py

A row's threshold is the value of its k_i-th selected entry (k_i = min(k, length)), NaN where
k_i = 0 (docs/contract.md §5); torch.topk of the row's valid prefix gives that value.
"""

import torch

import rtopk


def want(x: torch.Tensor, k: int, lens: torch.Tensor, largest: bool) -> torch.Tensor:
    """The k_i-th value of each row's first lens[r] values, as f32; NaN where k_i = 0."""
    n, m = x.shape
    pad = float("-inf") if largest else float("inf")
    cols = torch.arange(m, device=x.device)
    masked = x.float().masked_fill(cols[None, :] >= lens[:, None], pad)
    top = torch.topk(masked, k, largest=largest).values
    take = torch.clamp(lens, max=k).long()
    got = top.gather(1, (take - 1).clamp(min=0)[:, None])[:, 0]
    return got.masked_fill(take == 0, float("nan"))


def main() -> None:
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(2026_12_04)
    cases = 0
    # few rows (a warp a row), then more rows than an H200's 8448 warps: 20000 rows two to
    # four a warp, 300000 rows 32 a warp where the width allows (one lane a row up to 16)
    for n, m in [(1000, 700), (77, 3000), (4099, 256), (20000, 256), (300000, 32)]:
        x32 = (torch.randn(n, m, device=dev, generator=gen) * 8).round() / 8
        for k in [1, 5, 16, 17, 33, 64, 100, 256, 257, 512, 513, 700, 2048]:
            if k > m:
                continue
            for dtype in [torch.float32, torch.bfloat16, torch.float16]:
                x = x32.to(dtype)
                for ragged in [False, True]:
                    lens = torch.full((n,), m, device=dev, dtype=torch.int32)
                    kw = {}
                    if ragged:
                        lens = torch.randint(0, m + 1, (n,), device=dev, generator=gen,
                                             dtype=torch.int32)
                        lens[::7] = 0
                        kw["lengths"] = lens
                    for largest in [True, False]:
                        out = rtopk.topk(x, k, largest=largest, sorted=False,
                                         return_threshold=True, **kw)
                        w = want(x, k, lens, largest)
                        t = out.threshold
                        same = (t == w) | (t.isnan() & w.isnan())
                        assert bool(same.all()), (n, m, k, dtype, ragged, largest,
                                                  int((~same).sum()))
                        cases += 1
    print(f"ok: {cases} cases, every row's threshold equal to torch.topk's k_i-th value")


if __name__ == "__main__":
    main()
