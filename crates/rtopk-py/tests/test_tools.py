"""The rest of the workspace from Python: trace, the simulator and its seeded bugs, the
iteration statistics, E(n). NumPy only (runs in CI)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
from typing import Any, Optional

import numpy as np
import pytest
import rtopk
from oracle import canonical, canonical_rows, hostile_matrix, same_bits

REPO = pathlib.Path(__file__).resolve().parents[3]


def test_trace_follows_one_row_through_every_stage() -> None:
    row = hostile_matrix(1, 77, "normal", 3)[0]
    t = rtopk.trace(row, 10)
    want = rtopk.topk(row[None, :], 10, algo="bisect", return_iterations=True)
    assert (t.m, t.k, t.largest, t.max_iter) == (77, 10, True, None)
    assert list(t.indices) == list(canonical(row, 10))
    assert same_bits(t.selected, row[t.indices])
    assert t.iterations == want.iterations[0] == len(t.steps)
    assert t.exit == "hit" and t.steps[-1].moved == "hit" and t.steps[-1].count == 10
    assert [s.iteration for s in t.steps] == list(range(1, len(t.steps) + 1))
    for s in t.steps:
        assert s.phase in ("value", "key") and s.moved in ("hi", "lo", "hit")
        assert s.lo <= s.hi
    assert same_bits(t.values, row) and len(t.keys) == 77
    assert len(t.chunks) == 3 and t.chunks[0].base == 0  # ceil(77 / 32) chunks of 32
    assert sum(bin(c.sel_mask).count("1") for c in t.chunks) == 10
    assert t.diagnostics == [] and t.diagnostics_total == 0
    text = t.text()
    assert "search_threshold" in text and "exit: HIT" in text
    svg = t._repr_svg_()
    assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>")


def test_trace_of_the_smallest_and_of_early_stopping() -> None:
    row = hostile_matrix(1, 40, "hostile", 4)[0]
    t = rtopk.trace(row, 5, largest=False)
    assert list(t.indices) == list(canonical(row, 5, largest=False))
    e = rtopk.trace(row, 5, max_iter=2)
    assert e.iterations == 2 and e.exit == "max_iter" and e.max_iter == 2


def test_trace_errors() -> None:
    row = np.ones(8, dtype=np.float32)
    with pytest.raises(ValueError, match="nothing to trace"):
        rtopk.trace(row, 0)
    with pytest.raises(ValueError, match="larger than the row width"):
        rtopk.trace(row, 9)
    with pytest.raises(ValueError, match="1-D"):
        rtopk.trace(np.ones((2, 8), dtype=np.float32), 1)
    with pytest.raises(TypeError, match="float64"):
        rtopk.trace(np.ones(8), 1)


def test_simulator_matches_the_oracle_and_reports_nothing_on_the_clean_kernel() -> None:
    x = hostile_matrix(9, 70, "hostile", 8)
    for largest in (True, False):
        r = rtopk.sim.run(x, 11, largest=largest)  # value order by default, as rtopk.topk
        want_v, want_i = canonical_rows(x, 11, largest, sorted=True)
        np.testing.assert_array_equal(r.indices, want_i)
        assert same_bits(r.values, want_v)
        assert r.clean and r.diagnostics == []
    shuffled = rtopk.sim.run(x, 11, sorted=False, schedule_seed=3)
    np.testing.assert_array_equal(shuffled.indices, canonical_rows(x, 11)[1])
    # the split strategy needs rows of at least 4096 (its own test below)
    for strategy in [s for s in rtopk.sim.strategy_names() if s != "split"]:
        for sorted_ in (False, True):
            r = rtopk.sim.run(x, 11, sorted=sorted_, strategy=strategy)
            want_v, want_i = canonical_rows(x, 11, True, sorted_)
            np.testing.assert_array_equal(r.indices, want_i, err_msg=f"{strategy} {r.kernel}")
            assert same_bits(r.values, want_v) and r.clean, (strategy, r.kinds)
    assert rtopk.sim.run(x, 11, strategy="block").kernel.startswith("rtopk_block")
    with pytest.raises(Exception, match="cannot be split"):
        rtopk.sim.run(x, 11, strategy="split")
    # split rows: chunks of 2048, the last one 1808 wide; no iteration counts
    wide = hostile_matrix(2, 10_000, "hostile", 4)
    r = rtopk.sim.run(wide, 40, sorted=False, strategy="split")
    want_v, want_i = canonical_rows(wide, 40)
    np.testing.assert_array_equal(r.indices, want_i)
    assert same_bits(r.values, want_v) and r.clean, r.kinds
    with pytest.raises(ValueError, match="unknown strategy 'diagonal'; known: auto"):
        rtopk.sim.run(x, 11, strategy="diagonal")
    cube = hostile_matrix(1, 2 * 3 * 40, "normal", 1).reshape(2, 40, 3)
    r = rtopk.sim.run(cube, 4, dim=1)
    np.testing.assert_array_equal(r.indices, rtopk.topk(cube, 4, dim=1).indices)
    assert r.iterations.shape == (2, 3)


def test_the_simulator_catches_seeded_bugs() -> None:
    names = rtopk.sim.mutant_names()
    assert "ballot-partial-mask" in names and "cut-off-by-one" in names
    # Ballots whose mask names only the lanes holding a candidate, while every lane calls
    # them (rows of 300 narrow to their candidates): a diagnostic, the output still right.
    x = hostile_matrix(6, 300, "normal", 2)
    clean = rtopk.sim.run(x, 20, sorted=False)
    r = rtopk.sim.run(x, 20, sorted=False, mutant="ballot-partial-mask")
    assert clean.clean and r.diagnostics_total > 0
    np.testing.assert_array_equal(r.indices, clean.indices)
    d = r.diagnostics[0]
    assert d.op == "__ballot_sync" and d.kind == "caller-not-in-mask" and not d.benign
    assert "ballot" in d.label and d.message.startswith("caller-not-in-mask")
    assert dict(r.kinds)["caller-not-in-mask"] > 0
    assert sum(c for _, c in r.kinds) == r.diagnostics_total
    # An off-by-one in the selection's cut: on rows with ties, a wrong answer.
    ties = np.random.default_rng(0).integers(0, 9, (4, 77)).astype(np.float32)
    cut = rtopk.sim.run(ties, 10, sorted=False, mutant="cut-off-by-one")
    assert not np.array_equal(cut.indices, canonical_rows(ties, 10)[1])
    with pytest.raises(ValueError, match="unknown mutant 'nope'; known: "):
        rtopk.sim.run(x, 5, mutant="nope")


def test_the_mutant_catalog() -> None:
    reports = rtopk.sim.mutants()
    assert reports[0].mutant is None and reports[0].caught == "not caught"
    assert [r.mutant for r in reports[1:]] == list(rtopk.sim.mutant_names())
    for r in reports[1:]:
        if r.equivalent:
            assert r.caught == "not caught", r
        else:
            assert r.caught != "not caught", r


def _cli() -> Optional[pathlib.Path]:
    env = os.environ.get("RTOPK_BIN")
    if env:
        return pathlib.Path(env)
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "rtopk"
        if p.is_file():
            return p
    return None


STATS_ARGS: Any = [
    dict(m=256, k=64, reps=3000, seed=7),
    dict(m=100, k=10, reps=500, dist="uniform", seed=1),
    dict(m=64, k=8, reps=400, max_iter=6),
    dict(m=512, k=32, reps=300, precision=0.01),
]


@pytest.mark.parametrize("kw", STATS_ARGS)
def test_stats_are_the_command_lines_numbers(kw: Any) -> None:
    ours = rtopk.stats.iterations(**kw)
    for key in ("m", "k", "reps", "dist", "mean", "max", "cumulative_percent"):
        assert key in ours
    assert sum(ours["histogram"]) == kw["reps"]
    cli = _cli()
    if cli is None:
        pytest.skip("no rtopk binary (cargo build --bin rtopk, or set RTOPK_BIN) to compare with")
    args = [str(cli), "stats", "iterations", "--json", "--m", str(kw["m"]), "-k", str(kw["k"])]
    args += ["--reps", str(kw["reps"]), "--seed", str(kw.get("seed", 0))]
    args += ["--dist", kw.get("dist", "normal")]
    if "max_iter" in kw:
        args += ["--max-iter", str(kw["max_iter"])]
    if "precision" in kw:
        args += ["--precision", str(kw["precision"])]
    theirs = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert ours == theirs


def test_stats_of_given_rows_count_like_bisect() -> None:
    x = hostile_matrix(300, 96, "normal", 5)
    report = rtopk.stats.iterations(None, 12, rows=x)
    its = rtopk.topk(x, 12, return_iterations=True).iterations
    assert report["dist"] == "matrix" and report["reps"] == 300
    assert report["histogram"] == np.bincount(its, minlength=len(report["histogram"])).tolist()
    assert report["mean"] == pytest.approx(its.mean())
    assert rtopk.stats.iterations(96, 12, reps=10, rows=x)["reps"] == 10


def test_stats_are_reproducible_and_refuse_bad_arguments() -> None:
    a = rtopk.stats.iterations(128, 16, reps=500, seed=3)
    assert a == rtopk.stats.iterations(128, 16, reps=500, seed=3)
    assert a != rtopk.stats.iterations(128, 16, reps=500, seed=4)
    assert a["expected_en"] == pytest.approx(rtopk.expected_iterations(128, 16))
    assert "expected_en" not in rtopk.stats.iterations(128, 16, reps=50, dist="uniform")
    with pytest.raises(ValueError, match="larger than the row width"):
        rtopk.stats.iterations(8, 9)
    with pytest.raises(ValueError, match="unknown family 'cauchy'"):
        rtopk.stats.iterations(8, 2, dist="cauchy")
    with pytest.raises(ValueError, match="repetitions"):
        rtopk.stats.iterations(8, 2, reps=0)
    with pytest.raises(ValueError, match="cannot be combined"):
        rtopk.stats.iterations(8, 2, max_iter=3, precision=0.1)
    with pytest.raises(ValueError, match="give m"):
        rtopk.stats.iterations(None, 2)
    with pytest.raises(ValueError, match="more than the 3 rows"):
        rtopk.stats.iterations(None, 2, reps=4, rows=np.ones((3, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="does not match"):
        rtopk.stats.iterations(6, 2, rows=np.ones((3, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="epsilon"):
        rtopk.stats.iterations(8, 2, epsilon="sideways")


def test_expected_iterations_is_appendix_a() -> None:
    en = rtopk.expected_iterations(256, 32)
    assert 5.0 < en < 15.0
    assert rtopk.expected_iterations(1024, 32) > en  # wider rows need more steps
    with pytest.raises(ValueError, match="0 < k < M"):
        rtopk.expected_iterations(256, 0)
    with pytest.raises(ValueError, match="k must be >= 0"):
        rtopk.expected_iterations(256, -2)
