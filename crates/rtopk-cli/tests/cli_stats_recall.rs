//! End-to-end tests of `rtopk stats recall`: the JSON object (settings and one cell per
//! family, M, k and target), every row at or above its target (the recall rule's guarantee,
//! docs/contract.md §6), `.npy` rows, the Markdown table, and argument errors (exit 2).

use crate::common;

use common::*;
use serde_json::Value;
use tempfile::TempDir;

/// `rtopk stats recall --json ARGS`, parsed.
fn recall_json(args: &[&str]) -> Value {
    let mut all = vec!["stats", "recall", "--json"];
    all.extend_from_slice(args);
    let out = rtopk(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

/// Three targets (1 among them), three families, two widths and two k, 40 rows each.
const GRID: &[&str] = &[
    "--targets",
    "0.8,0.95,1",
    "--dist",
    "normal,relu,bf16-ties",
    "--m",
    "64,300",
    "-k",
    "4,33",
    "--reps",
    "40",
    "--seed",
    "5",
];

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} missing or not a number: {v}"))
}

#[test]
fn recall_json_has_every_cell_and_meets_each_target() {
    let v = recall_json(GRID);
    for key in ["targets", "families", "ms", "ks", "reps", "seed", "cells"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["families"], serde_json::json!(["normal", "relu", "bf16-ties"]));
    assert_eq!((v["reps"].as_u64(), v["seed"].as_u64()), (Some(40), Some(5)));
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 3 * 2 * 2 * 3);
    for c in cells {
        for key in ["family", "m", "k", "target", "rows"] {
            assert!(c.get(key).is_some(), "missing {key}: {c}");
        }
        assert_eq!(c["rows"].as_u64(), Some(40), "{c}");
        let target = num(c, "target");
        let (mean, min) = (num(c, "mean_recall"), num(c, "min_recall"));
        assert!(min >= target - 1e-6 && mean >= min && mean <= 1.0, "{c}");
        let (it, exact) = (num(c, "mean_iterations"), num(c, "exact_mean_iterations"));
        assert!(it <= exact, "{c}");
        if target == 1.0 {
            assert_eq!((min, it), (1.0, exact), "{c}");
        }
    }
    let bf16 = cells.iter().find(|c| c["family"] == "bf16-ties").unwrap();
    assert_eq!(bf16["dtype"], "bfloat16");
    // The same seed, the same report.
    let again = recall_json(GRID);
    assert_eq!(again, v);
}

#[test]
fn npy_rows_and_the_markdown_table() {
    let dir = TempDir::new().unwrap();
    let (n, m) = (30, 50);
    let data: Vec<f32> = (0..n * m).map(|i| ((i * 37) % 29) as f32 - 14.0).collect();
    let x = dir.path().join("x.npy");
    write_f32(&x, n, m, &data);
    let xs = x.to_str().unwrap();
    let v = recall_json(&["--input", xs, "-k", "10", "--targets", "0.9"]);
    assert_eq!((v["reps"].as_u64(), v["input"].as_str()), (Some(30), Some(xs)));
    assert!(v["seed"].is_null());
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1);
    assert_eq!((&cells[0]["family"], cells[0]["m"].as_u64()), (&"npy".into(), Some(50)));
    assert!(num(&cells[0], "min_recall") >= 0.9);
    let out =
        rtopk(&["stats", "recall", "--m", "128", "-k", "16", "--reps", "10", "--dist", "uniform"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(table.contains("| family | dtype | M | k | target |"), "{table}");
    assert_eq!(
        table.lines().filter(|l| l.starts_with("| uniform | float32 | 128 | 16 |")).count(),
        4
    );
}

#[test]
fn recall_argument_errors_exit_2() {
    let base = ["stats", "recall", "--m", "64", "-k", "8", "--reps", "5"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    fails_with(&with(&["--targets", "1.5"]), 2, "(0, 1]");
    fails_with(&with(&["--targets", "0"]), 2, "(0, 1]");
    fails_with(&with(&["--targets", "-0.5"]), 2, "(0, 1]");
    fails_with(&with(&["--dist", "cauchy"]), 2, "cauchy");
    fails_with(&["stats", "recall", "--m", "64,16", "-k", "32"], 2, "larger than the row width");
    fails_with(&["stats", "recall", "--m", "64", "-k", "0"], 2, "k >= 1");
    fails_with(&["stats", "recall", "--m", "0", "-k", "1"], 2, "row width");
    fails_with(&with(&["--reps", "0"]), 2, "reps");
    fails_with(&["stats", "recall", "--input", "/nonexistent/x.npy"], 2, "x.npy");
}
