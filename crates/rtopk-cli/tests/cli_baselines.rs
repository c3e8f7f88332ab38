//! End-to-end tests of the baselines and the CPU benchmark through the `rtopk` binary:
//! `select --algo` for every baseline name of docs/contract.md §4 against the oracle, `bench cpu` (named
//! algorithms, every input family, `.npy` input, charts, size and argument errors, a silent
//! progress bar when piped), the comparison mode `bench cpu --compare`, and `bench chart`.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use topk_ref::Mode;
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};

/// Three rows of 37 with NaNs of both signs, infinities, signed zeros, subnormals and ties.
fn matrix() -> (usize, usize, Vec<f32>) {
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0e-45,
        -1.0e-45,
        f32::MAX,
        -f32::MAX,
    ];
    let (n, m) = (3, 37);
    let data = (0..n * m)
        .map(|i| {
            if i % 5 == 0 { specials[(i / 5) % specials.len()] } else { ((i * 7) % 9) as f32 - 4.0 }
        })
        .collect();
    (n, m, data)
}

/// [`matrix`] written to `dir/X.npy`.
fn matrix_file(dir: &Path) -> PathBuf {
    let (n, m, data) = matrix();
    let x = dir.join("X.npy");
    write_f32(&x, n, m, &data);
    x
}

#[test]
fn select_every_baseline_matches_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let x = matrix_file(dir.path());
    let (n, m, data) = matrix();
    let (v, i) = (dir.path().join("V.npy"), dir.path().join("I.npy"));
    for name in BASELINES {
        for k in [1, 5, 36, 37] {
            for (flags, mode, sorted) in [
                (&[][..], Mode::Largest, false),
                (&["--smallest"][..], Mode::Smallest, false),
                (&["--sorted"][..], Mode::Largest, true),
                (&["--smallest", "--sorted"][..], Mode::Smallest, true),
            ] {
                let ks = k.to_string();
                let mut args = vec![
                    "select",
                    "--algo",
                    name,
                    "-k",
                    &ks,
                    "--input",
                    x.to_str().unwrap(),
                    "--values",
                    v.to_str().unwrap(),
                    "--indices",
                    i.to_str().unwrap(),
                ];
                args.extend_from_slice(flags);
                let out = rtopk(&args);
                assert!(out.status.success(), "{name} k={k} {flags:?}: {}", stderr(&out));
                let (_, got) = read_i64(&i);
                let (_, vals) = read_values(&v);
                for r in 0..n {
                    let row = &data[r * m..(r + 1) * m];
                    let want = if sorted {
                        canonical_sorted_indices(row, k, mode)
                    } else {
                        canonical_indices(row, k, mode)
                    };
                    let got_row: Vec<u32> =
                        got[r * k..(r + 1) * k].iter().map(|&x| x as u32).collect();
                    assert_eq!(got_row, want, "{name} row {r} k={k} {flags:?}");
                    for (j, &idx) in want.iter().enumerate() {
                        assert_eq!(vals[r * k + j], row[idx as usize].to_bits());
                    }
                }
            }
        }
    }
}

#[test]
fn baselines_refuse_bisection_options() {
    let dir = tempfile::tempdir().unwrap();
    let x = matrix_file(dir.path());
    let x = x.to_str().unwrap();
    let out = rtopk_line(
        "select --algo air -k 3 --max-iter 4",
        &["--input", x, "--values", "v.npy", "--indices", "i.npy"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("--max-iter") && err.contains("only valid for"), "{err}");
}

#[test]
fn bench_cpu_times_named_baselines_with_counters() {
    let out = rtopk_line("bench cpu --n 64 --m 300 -k 20 --algos heap,air,sort --json", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["algo"].as_str().unwrap()).collect();
    assert_eq!(names, ["heap", "air", "sort"]);
    for r in rows {
        assert_eq!(r["verified"], true);
        assert!(r["reads_per_elem"].as_f64().unwrap() >= 1.0, "{r}");
    }
    // Sort-and-choose: 5 sweeps, 4 scatters of M, and the k outputs.
    let sort = &rows[2];
    assert_eq!(sort["passes_per_row"].as_f64(), Some(5.0));
    assert!((sort["writes_per_elem"].as_f64().unwrap() - (4.0 + 20.0 / 300.0)).abs() < 1e-9);
}

#[test]
fn compare_mode_reports_json_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("c.svg");
    let out = rtopk_line(
        "bench cpu --compare --quick --algos heap,warpselect --reps 3 --json --svg",
        &[svg.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["command", "date_utc", "machine", "threads", "rows"] {
        assert!(report.get(key).is_some(), "missing {key}");
    }
    let rows = report["rows"].as_array().unwrap();
    // 3 families x (8 row-wise + 3 single-vector cells) x 2 algorithms.
    assert_eq!(rows.len(), 3 * 11 * 2);
    for family in ["uniform", "normal", "radix-adversarial"] {
        assert!(rows.iter().any(|r| r["family"] == family));
    }
    for r in rows {
        if r["label"] == "warpselect" && r["k"].as_u64().unwrap() > 2048 {
            assert!(r["skipped"].is_string(), "{r}");
        } else {
            assert_eq!(r["verified"], true, "{r}");
            assert!(r["median_ms"].as_f64().is_some());
            assert!(r["reads_per_elem"].as_f64().unwrap() >= 1.0);
        }
    }
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("warpselect") && svg.contains("radix-adversarial")
    );
    // Shapes are the comparison's own.
    let bad = rtopk(&["bench", "cpu", "--compare", "--m", "10"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `bench cpu --json` with `args` after it; the rows.
fn bench_rows(args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["bench", "cpu", "--json"];
    all.extend_from_slice(args);
    let out = rtopk(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    rows.as_array().unwrap().clone()
}

#[test]
fn bench_cpu_runs_every_input_family() {
    let families = [
        "normal",
        "uniform",
        "laplace",
        "relu",
        "ties",
        "radix-adversarial",
        "nan-inf",
        "llm-logits",
    ];
    let list = families.join(",");
    let rows =
        bench_rows(&["--n", "40", "--m", "70", "-k", "9", "--algos", "radix", "--dist", &list]);
    let inputs: Vec<&str> = rows.iter().map(|r| r["input"].as_str().unwrap()).collect();
    assert_eq!(inputs, families);
    assert!(rows.iter().all(|r| r["verified"] == true));
    // The default is normal rows.
    let rows = bench_rows(&["--n", "40", "--m", "70", "-k", "9", "--algos", "heap"]);
    assert_eq!(rows[0]["input"], "normal");
    fails_with(&["bench", "cpu", "--dist", "cauchy"], 2, "unknown family 'cauchy'");
}

#[test]
fn bench_cpu_times_a_npy_matrix() {
    let (n, m, data) = matrix();
    let case = Case::with_matrix(n, m, &data);
    let x = case.p("X.npy");
    let rows = bench_rows(&["--input", &x, "-k", "1,5,37", "--algos", "bisect,air"]);
    let ks: Vec<u64> = rows.iter().map(|r| r["k"].as_u64().unwrap()).collect();
    // bisect, bisect(max_iter=8) and air for each k.
    assert_eq!(ks, [1, 1, 1, 5, 5, 5, 37, 37, 37]);
    assert!(rows.iter().all(|r| r["verified"] == true && r["input"] == x.as_str()));
    assert!(rows.iter().all(|r| r["seed"].is_null()));
    fails_with(&["bench", "cpu", "--input", &x], 2, "--input needs -k");
    fails_with(&["bench", "cpu", "--input", &x, "-k", "38"], 2, "larger than the row width");
    fails_with(&["bench", "cpu", "--input", &case.p("missing.npy"), "-k", "1"], 2, "missing.npy");
}

#[test]
fn bench_cpu_refuses_sizes_and_arguments_with_exit_2() {
    // docs/contract.md §4: a size too large to allocate is exit 2 with a message, never an abort.
    let out = rtopk(&["bench", "cpu", "--n", "1099511627776", "--m", "256", "-k", "8"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("1099511627776, 256") && err.contains("memory"), "{err}");
    fails_with(&["bench", "cpu", "--n", "0", "--m", "8", "-k", "1"], 2, "at least one row");
    fails_with(&["bench", "cpu", "--n", "4", "--m", "8", "-k", "9"], 2, "larger than the row");
    fails_with(&["bench", "cpu", "--n", "4", "--m", "8"], 2, "go together");
    fails_with(&["bench", "cpu", "--reps", "2"], 2, "at least 5");
    fails_with(&["bench", "cpu", "--reps", "1000000000000"], 2, "at most");
    fails_with(&["bench", "cpu", "--algos", "cuda"], 2, "CPU algorithms");
    fails_with(&["bench", "cpu", "--algos", "nope"], 2, "unknown algorithm 'nope'");
    fails_with(&["bench", "cpu", "--quick"], 2, "--quick belongs to --compare");
    fails_with(&["bench", "cpu", "--compare", "--reps", "2"], 2, "at least 3");
}

#[test]
fn bench_cpu_draws_a_chart_and_stays_quiet_when_piped() {
    let case = Case::new();
    let svg = case.p("b.svg");
    let out = rtopk_line(
        "bench cpu --n 64 --m 300 -k 20 --algos heap,sort --dist normal,ties --svg",
        &[&svg],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let text = std::fs::read_to_string(case.path("b.svg")).unwrap();
    assert!(text.starts_with("<svg") && text.contains("ties · throughput"), "chart drawn");
    assert!(text.contains("64×300 k=20") && text.contains("sort"));
    // The table on stdout, one row per algorithm and family.
    let table = stdout(&out);
    assert_eq!(
        table.lines().filter(|l| l.starts_with("heap ") || l.starts_with("sort ")).count(),
        4
    );
    // stderr is a pipe here: no progress bar, no terminal control characters.
    assert!(!err.contains('\r') && !err.contains('\u{1b}'), "{err:?}");
    assert_eq!(err.lines().count(), 1, "only the run's one-line summary: {err}");
}

#[test]
fn bench_chart_redraws_a_recorded_report() {
    let case = Case::new();
    let rows =
        rtopk(&["bench", "cpu", "--n", "30", "--m", "50", "-k", "3", "--algos", "heap", "--json"]);
    assert!(rows.status.success(), "{}", stderr(&rows));
    std::fs::write(case.path("r.json"), &rows.stdout).unwrap();
    let (json, svg) = (case.p("r.json"), case.p("r.svg"));
    let out = rtopk(&["bench", "chart", "--from", &json, "--svg", &svg]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(case.path("r.svg")).unwrap().contains("30×50 k=3"));
    std::fs::write(case.path("bad.json"), "{\"rows\": 3}").unwrap();
    fails_with(&["bench", "chart", "--from", &case.p("bad.json"), "--svg", &svg], 2, "report");
    fails_with(
        &["bench", "chart", "--from", &case.p("none.json"), "--svg", &svg],
        2,
        "cannot read",
    );
}
