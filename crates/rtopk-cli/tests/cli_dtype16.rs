//! End-to-end tests of 16-bit rows in `rtopk stats iterations` and `rtopk bench cpu` (issue
//! 22): `<f2` files read in their own type, generated rows in `--dtype float16|bfloat16`, the
//! type named in every report, and the refusals (`--dtype float64`, a `<f8` file, an f32-only
//! algorithm) as exit 2 with a message.

use crate::common;

use common::*;
use serde_json::Value;

/// `n · m` f16 bit patterns: NaNs of both signs with payloads, ±inf, ±0, subnormals, heavy
/// ties at 1.0 and at the smallest subnormal, and ordinary finite values from an LCG.
fn hostile_f16(n: usize, m: usize, seed: u64) -> Vec<u16> {
    let specials = [0x7e00, 0xfe01, 0x7c01, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x8001, 0x03ff];
    let mut state = seed;
    (0..n * m)
        .map(|i| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = (state >> 33) as u16;
            match r % 10 {
                0 => specials[i % specials.len()],
                1 | 2 => 0x3c00,
                3 => 0x0001,
                // Any finite pattern (exponent not all ones).
                _ => r & 0xfbff,
            }
        })
        .collect()
}

fn histogram(v: &Value) -> Vec<u64> {
    v["histogram"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect()
}

/// The counts of a `<f2` file are `select --algo bisect --iterations` on the same file, row
/// for row (docs/contract.md §3), whatever the row holds; the report says float16.
#[test]
fn stats_on_an_f2_file_count_like_select_bisect() {
    let c = Case::new();
    let (n, m) = (120, 67);
    write_f16(&c.path("X.npy"), n, m, &hostile_f16(n, m, 7));
    for (k, extra) in [("1", None), ("9", None), ("66", None), ("9", Some("--max-iter=5"))] {
        let mut select = vec!["select", "--algo", "bisect", "-k", k, "--input"];
        let (x, v, i, it) = (c.p("X.npy"), c.p("V.npy"), c.p("I.npy"), c.p("IT.npy"));
        select.extend([x.as_str(), "--values", &v, "--indices", &i, "--iterations", &it]);
        select.extend(extra);
        let out = rtopk(&select);
        assert!(out.status.success(), "{}", stderr(&out));
        let (_, counts) = read_i64(&c.path("IT.npy"));
        let mut args = vec!["-k", k, "--input", &x];
        args.extend(extra);
        let stats = stats_json(&args);
        let mut want = vec![0u64; histogram(&stats).len()];
        counts.iter().for_each(|&it| want[usize::try_from(it).unwrap()] += 1);
        assert_eq!(histogram(&stats), want, "k = {k} {extra:?}");
        assert_eq!(
            (stats["dtype"].as_str(), stats["dist"].as_str()),
            (Some("float16"), Some("npy"))
        );
    }
    let out = rtopk(&["stats", "iterations", "-k", "3", "--input", &c.p("X.npy")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("120 float16 rows of"), "{}", stdout(&out));
}

/// Generated 16-bit rows: seeded, of their own type in the report, and (on rows where rounding
/// makes ties) counted differently from the float32 rows they were rounded from.
#[test]
fn stats_dtype_draws_16_bit_rows() {
    let base = ["--m", "300", "-k", "30", "--reps", "400", "--seed", "3", "--dist", "normal"];
    let run = |dtype: &str| stats_json(&[&base[..], &["--dtype", dtype]].concat());
    let f32_rows = stats_json(&base);
    assert_eq!(f32_rows["dtype"], "float32", "float32 without --dtype");
    assert_eq!(run("float32"), f32_rows);
    for dtype in ["float16", "bfloat16"] {
        let v = run(dtype);
        assert_eq!(v, run(dtype), "{dtype}: the same seed, the same counts");
        assert_eq!((v["dtype"].as_str(), v["reps"].as_u64()), (Some(dtype), Some(400)));
        assert_eq!(histogram(&v).iter().sum::<u64>(), 400);
        assert!(v.get("expected_en").is_some(), "normal rows keep E(n)");
    }
    // bfloat16 keeps 8 significant bits: 300 normal values tie often, and ties cost tests.
    let mean = |v: &Value| v["mean"].as_f64().unwrap();
    assert!(mean(&run("bfloat16")) > mean(&f32_rows), "{} {}", run("bfloat16"), f32_rows);
    let out = rtopk(&[&["stats", "iterations"][..], &base, &["--dtype", "bfloat16"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("400 normal bfloat16 rows (seed 3)"), "{}", stdout(&out));
}

#[test]
fn stats_dtype_errors_exit_2() {
    usage_errors(
        "stats iterations --m 64 -k 4 --json",
        &[
            ("--dtype float64", "'float64' is not an element type"),
            ("--dtype int8", "float32, float16 or bfloat16"),
        ],
    );
    let c = Case::with_bytes(&raw_npy("<f8", false, "(2, 3)", &[0u8; 48]));
    let x = c.p("X.npy");
    fails_with(&["stats", "iterations", "-k", "1", "--input", &x], 2, "found <f8");
    write_f16(&c.path("H.npy"), 2, 3, &[0x3c00; 6]);
    let h = c.p("H.npy");
    fails_with(
        &["stats", "iterations", "-k", "1", "--input", &h, "--dtype", "float16"],
        2,
        "--dtype",
    );
    fails_with(&["stats", "iterations", "-k", "4", "--input", &h], 2, "larger than the row width");
}

fn bench_rows(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["bench", "cpu", "--json", "--reps", "5"];
    all.extend_from_slice(args);
    let out = rtopk(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let rows: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    rows.as_array().expect("a JSON array").clone()
}

/// Whether the registry's `algo` takes rows of `dtype`.
fn takes(algo: &str, dtype: &str) -> bool {
    let dtype = rtopk::Dtype::from_name(dtype).unwrap();
    rtopk::registry::capabilities(algo).is_some_and(|c| c.takes(dtype))
}

/// `--dtype` times topk-ref's six and early stopping (and the simulator, where it takes the
/// type) on 16-bit rows, each answer checked.
#[test]
fn bench_cpu_dtype_times_16_bit_rows() {
    for dtype in ["float16", "bfloat16"] {
        let rows = bench_rows(&[
            "--n",
            "100",
            "--m",
            "70",
            "-k",
            "9",
            "--dist",
            "ties,nan-inf",
            "--dtype",
            dtype,
        ]);
        let sim = usize::from(takes("sim", dtype));
        assert_eq!(rows.len(), 2 * (7 + sim), "{dtype}: six algorithms and early stopping");
        for r in &rows {
            assert_eq!(r["dtype"], dtype, "{r}");
            assert_eq!(r["verified"], true, "{r}");
        }
    }
    let rows = bench_rows(&["--n", "50", "--m", "40", "-k", "3", "--algos", "heap"]);
    assert_eq!(rows[0]["dtype"], "float32");
    let out = rtopk(&[
        "bench", "cpu", "--n", "64", "--m", "32", "-k", "4", "--algos", "bisect", "--dtype",
        "float16",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(table.lines().next().unwrap().contains("dtype"), "{table}");
    assert_eq!(table.matches("float16").count(), 2, "{table}");
    assert!(stderr(&out).contains("float16 rows"), "{}", stderr(&out));
}

/// A `<f2` file is timed in its own type; the chart of the report names the type.
#[test]
fn bench_cpu_times_an_f2_file_and_charts_it() {
    let c = Case::new();
    write_f16(&c.path("X.npy"), 40, 45, &hostile_f16(40, 45, 3));
    let x = c.p("X.npy");
    let rows = bench_rows(&["--input", &x, "-k", "0,7,45", "--algos", "bisect,radix,air"]);
    assert_eq!(rows.len(), 12, "bisect, early stopping, radix, air for each k");
    assert!(
        rows.iter()
            .all(|r| r["dtype"] == "float16" && r["verified"] == true && r["input"] == x.as_str())
    );
    let report = c.path("report.json");
    std::fs::write(&report, serde_json::to_string(&rows).unwrap()).unwrap();
    let svg = c.p("chart.svg");
    let out = rtopk(&["bench", "chart", "--from", report.to_str().unwrap(), "--svg", &svg]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("float16"));
}

#[test]
fn bench_cpu_dtype_errors_exit_2() {
    let shape = ["bench", "cpu", "--n", "8", "--m", "8", "-k", "2"];
    let with = |extra: &[&'static str]| [&shape[..], extra].concat();
    fails_with(&with(&["--dtype", "float64"]), 2, "'float64' is not an element type");
    // An algorithm that does not take the type is refused before anything runs.
    let f32_only = rtopk::registry::ALGORITHMS
        .iter()
        .find(|e| e.caps.device == rtopk::Device::Cpu && !takes(e.name, "float16"));
    if let Some(e) = f32_only {
        let says = format!("'{}' does not take float16", e.name);
        fails_with(&with(&["--dtype", "float16", "--algos", e.name]), 2, &says);
    }
    fails_with(&["bench", "cpu", "--compare", "--dtype", "float16"], 2, "--dtype");
    let c = Case::with_bytes(&raw_npy("<f8", false, "(2, 3)", &[0u8; 48]));
    let x = c.p("X.npy");
    fails_with(&["bench", "cpu", "--input", &x, "-k", "1"], 2, "found <f8");
    write_f16(&c.path("H.npy"), 2, 3, &[0x3c00; 6]);
    let h = c.p("H.npy");
    fails_with(&["bench", "cpu", "--input", &h, "-k", "1", "--dtype", "bfloat16"], 2, "--dtype");
}
