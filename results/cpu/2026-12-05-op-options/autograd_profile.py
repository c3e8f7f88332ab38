"""cProfile of 2000 calls of rtopk.topk on a 1 x 256 CPU tensor that requires grad, each
with .sum().backward() (after 300 warm-up calls): where the autograd path's host time goes."""

import cProfile
import pstats

import rtopk
import torch

x = torch.randn(1, 256).requires_grad_()


def f() -> None:
    rtopk.topk(x, 16, sorted=False).values.sum().backward()


for _ in range(300):
    f()
pr = cProfile.Profile()
pr.enable()
for _ in range(2000):
    f()
pr.disable()
pstats.Stats(pr).sort_stats("tottime").print_stats(25)
