//! End-to-end tests of `rtopk stats iterations` and `rtopk reproduce`: docs/contract.md §4's JSON, seeded
//! reproducibility, `.npy` rows agreeing with `select --iterations`, and every argument error
//! (exit 2 with a message naming the problem).

use crate::common;

use std::fs::File;

use common::*;
use npyz::NpyFile;
use serde_json::Value;
use tempfile::TempDir;

#[test]
fn stats_json_has_the_spec_keys_and_a_consistent_distribution() {
    let v = stats_json(&["--m", "256", "-k", "64", "--reps", "3000", "--seed", "7"]);
    for key in ["m", "k", "reps", "dist", "mean", "max", "cumulative_percent", "expected_en"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(
        (v["m"].as_u64(), v["k"].as_u64(), v["reps"].as_u64()),
        (Some(256), Some(64), Some(3000))
    );
    assert_eq!(v["dist"], "normal");
    assert!((v["expected_en"].as_f64().unwrap() - 9.0817).abs() < 1e-3);
    let cum: Vec<f64> =
        v["cumulative_percent"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(cum.len() as u64, v["max"].as_u64().unwrap());
    assert!(cum.windows(2).all(|w| w[0] <= w[1]) && *cum.last().unwrap() == 100.0);
    let hist: Vec<u64> =
        v["histogram"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    assert_eq!(hist.iter().sum::<u64>(), 3000);
    let mean = hist.iter().enumerate().map(|(n, &c)| n as f64 * c as f64).sum::<f64>() / 3000.0;
    assert!((mean - v["mean"].as_f64().unwrap()).abs() < 1e-9);
    // Table 5: the paper's mean at (256, 64) is 8.72.
    assert!((mean - 8.72).abs() < 0.2, "{mean}");
}

#[test]
fn stats_are_reproducible_from_the_seed() {
    let a = stats_json(&[
        "--m", "300", "-k", "30", "--reps", "500", "--seed", "3", "--dist", "laplace",
    ]);
    let b = stats_json(&[
        "--m", "300", "-k", "30", "--reps", "500", "--seed", "3", "--dist", "laplace",
    ]);
    let c = stats_json(&[
        "--m", "300", "-k", "30", "--reps", "500", "--seed", "4", "--dist", "laplace",
    ]);
    assert_eq!(a, b);
    assert_ne!(a["histogram"], c["histogram"]);
    assert!(a.get("expected_en").is_none(), "E(n) is for normal rows only");
}

#[test]
fn expected_en_is_null_where_undefined_and_early_stopping_counts_exactly_n() {
    let v = stats_json(&["--m", "50", "-k", "50", "--reps", "100"]);
    assert!(v["expected_en"].is_null());
    let v = stats_json(&["--m", "100", "-k", "10", "--reps", "100", "--max-iter", "6"]);
    let cum: Vec<f64> =
        v["cumulative_percent"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(cum, vec![0.0, 0.0, 0.0, 0.0, 0.0, 100.0]);
    assert_eq!(v["mean"].as_f64(), Some(6.0));
}

#[test]
fn npy_rows_count_like_select_bisect() {
    let dir = TempDir::new().unwrap();
    let (n, m) = (40, 33);
    let specials = [f32::NAN, 0.0, -0.0, 1.0, 1.0, f32::INFINITY, -3.5, 2.0e-40];
    let data: Vec<f32> =
        (0..n * m)
            .map(|i| {
                if i % 5 == 0 {
                    specials[i % specials.len()]
                } else {
                    ((i * 37) % 23) as f32 - 11.0
                }
            })
            .collect();
    let x = dir.path().join("x.npy");
    write_f32(&x, n, m, &data);
    let xs = x.to_str().unwrap();
    let v = stats_json(&["-k", "7", "--input", xs]);
    assert_eq!(
        (v["dist"].as_str(), v["reps"].as_u64(), v["m"].as_u64()),
        (Some("npy"), Some(40), Some(33))
    );
    let (vals, idx, it) =
        (dir.path().join("v.npy"), dir.path().join("i.npy"), dir.path().join("it.npy"));
    let outputs = [vals.to_str().unwrap(), idx.to_str().unwrap(), it.to_str().unwrap()];
    let out = rtopk_line(
        "select --algo bisect -k 7 --input",
        &[xs, "--values", outputs[0], "--indices", outputs[1], "--iterations", outputs[2]],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let npy = NpyFile::new(File::open(&it).unwrap()).unwrap();
    let counts: Vec<i64> = match npy.dtype().descr().as_str() {
        "'<i8'" => npy.into_vec::<i64>().unwrap(),
        _ => NpyFile::new(File::open(&it).unwrap())
            .unwrap()
            .into_vec::<u32>()
            .unwrap()
            .into_iter()
            .map(i64::from)
            .collect(),
    };
    let mut want = vec![0u64; 65];
    counts.iter().for_each(|&c| want[c as usize] += 1);
    let mut got: Vec<u64> =
        v["histogram"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    got.resize(65, 0);
    assert_eq!(got, want);
}

#[test]
fn stats_argument_errors_exit_2() {
    fails_with(
        &["stats", "iterations", "--m", "8", "-k", "9"],
        2,
        "k = 9 is larger than the row width m = 8",
    );
    fails_with(&["stats", "iterations", "--m", "8", "-k", "2", "--reps", "0"], 2, "repetitions");
    fails_with(&["stats", "iterations", "-k", "2"], 2, "--m is required");
    fails_with(&["stats", "iterations", "--m", "0", "-k", "0"], 2, "row width");
    fails_with(&["stats", "iterations", "--m", "-3", "-k", "1"], 2, "--m");
    fails_with(&["stats", "iterations", "--m", "8", "-k", "2", "--dist", "cauchy"], 2, "cauchy");
    fails_with(
        &["stats", "iterations", "--m", "8", "-k", "2", "--precision", "-1"],
        2,
        "precision",
    );
    fails_with(
        &["stats", "iterations", "--m", "8", "-k", "2", "--max-iter", "99999"],
        2,
        "max_iter",
    );
    let dir = TempDir::new().unwrap();
    let x = dir.path().join("x.npy");
    write_f32(&x, 2, 3, &[1.0; 6]);
    let xs = x.to_str().unwrap();
    fails_with(&["stats", "iterations", "-k", "2", "--input", xs, "--m", "4"], 2, "row width 3");
    fails_with(
        &["stats", "iterations", "-k", "2", "--input", xs, "--dist", "normal"],
        2,
        "--dist and --input",
    );
    fails_with(&["stats", "iterations", "-k", "2", "--input", xs, "--reps", "3"], 2, "2 rows");
    fails_with(&["stats", "iterations", "-k", "4", "--input", xs], 2, "larger than the row width");
    write_f32(&x, 0, 3, &[]);
    fails_with(&["stats", "iterations", "-k", "2", "--input", xs], 2, "no rows");
    std::fs::write(&x, b"not numpy").unwrap();
    fails_with(&["stats", "iterations", "-k", "2", "--input", xs], 2, "not an .npy file");
    std::fs::write(&x, raw_npy("<f4", false, "[2, 3]", &[0; 24])).unwrap();
    fails_with(&["stats", "iterations", "-k", "2", "--input", xs], 2, "list [2, 3]");
}

/// Sizes are checked before anything is allocated, options that
/// exclude each other are refused as in `select`, and a bad precision is quoted as typed.
#[test]
fn stats_sizes_and_option_conflicts_exit_2() {
    let base = "stats iterations --m 256 -k 4 --json";
    usage_errors(
        base,
        &[
            ("--reps 1000000000000", "1000000000000 rows of width m = 256"),
            ("--reps 18446744073709551615", "rows of width m = 256"),
            ("--max-iter 4 --precision 0.1", "cannot be combined"),
            ("--precision 1e40", "'1e40'"),
        ],
    );
    let out = rtopk_line(&format!("{base} --precision 1e40"), &[]);
    assert!(!stderr(&out).contains("got inf"), "{}", stderr(&out));
}

/// `--reps` takes the first rows of a file; without it, every row counts.
#[test]
fn stats_on_a_file_count_the_first_reps_rows() {
    let dir = TempDir::new().unwrap();
    let (n, m) = (300, 50);
    let data: Vec<f32> = (0..n * m).map(|i| (((i * 7919) % 1009) as f32).sqrt()).collect();
    let x = dir.path().join("x.npy");
    write_f32(&x, n, m, &data);
    let all = stats_json(&["-k", "5", "--input", x.to_str().unwrap()]);
    let first = stats_json(&["-k", "5", "--input", x.to_str().unwrap(), "--reps", "120"]);
    assert_eq!(all["reps"], 300);
    assert_eq!(first["reps"], 120);
    let sum = |v: &Value| {
        v["histogram"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum::<u64>()
    };
    assert_eq!((sum(&all), sum(&first)), (300, 120));
}

#[test]
fn reproduce_quick_writes_the_report_and_its_files() {
    let dir = TempDir::new().unwrap();
    let out_dir = dir.path().join("repro");
    let out = rtopk(&["reproduce", "--quick", "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "# RTop-K reproduction report",
        "## Table 5",
        "## Table 1",
        "## Table 2",
        "## Beyond the paper",
        "E(n) row (eq. 4) | agree",
    ] {
        assert!(md.contains(needle), "report lacks '{needle}'");
    }
    for f in [
        "report.md",
        "summary.json",
        "en_check.csv",
        "table5_cdf.csv",
        "table5_summary.csv",
        "table5_cdf.svg",
        "table1_cdf.csv",
        "table1_summary.csv",
        "table1_cdf.svg",
        "table2.csv",
        "table2_hit.svg",
        "en_accuracy.csv",
        "en_vs_m.svg",
        "distributions.csv",
        "distributions_cdf.csv",
        "recall_vs_maxiter.csv",
        "recall_vs_maxiter.svg",
    ] {
        assert!(out_dir.join(f).is_file(), "{f} missing");
    }
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["table5"]["en_verdict"]["outside"], 0);
    let svg = std::fs::read_to_string(out_dir.join("table5_cdf.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
}

#[test]
fn reproduce_is_deterministic_and_sections_can_be_chosen() {
    let dir = TempDir::new().unwrap();
    let run = |name: &str| {
        let d = dir.path().join(name);
        let out =
            rtopk_line("reproduce --only table5,table1 --reps 300 --out", &[d.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(d.join("table5_cdf.csv")).unwrap()
    };
    assert_eq!(run("a"), run("b"));
    assert!(!dir.path().join("a").join("table2.csv").exists());
}

#[test]
fn reproduce_argument_errors() {
    let dir = TempDir::new().unwrap();
    let d = dir.path().join("r");
    let ds = d.to_str().unwrap();
    fails_with(&["reproduce", "--reps", "0", "--out", ds], 2, "--reps");
    fails_with(&["reproduce", "--only", "table3", "--out", ds], 2, "table3");
    let file = dir.path().join("a_file");
    std::fs::write(&file, b"x").unwrap();
    fails_with(&["reproduce", "--quick", "--out", file.to_str().unwrap()], 1, "a_file");
}

/// The default output directory is under `target/` (ignored by git), not the committed
/// `results/reproduce/`.
#[test]
fn reproduce_writes_under_target_by_default() {
    let dir = TempDir::new().unwrap();
    let out = rtopk_in(dir.path(), &["reproduce", "--only", "table5", "--reps", "200"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("target/rtopk/reproduce/report.md").is_file());
    assert!(!dir.path().join("results").exists());
    let help = stdout(&rtopk(&["reproduce", "--help"]));
    assert!(
        help.contains("target/rtopk/reproduce") && help.contains("--out results/reproduce"),
        "{help}"
    );
}
