//! End-to-end tests of the baselines through the `rtopk` binary: `select --algo` for every
//! baseline name of SPEC §4 against the oracle, the baselines in `bench cpu`, and the
//! comparison mode `bench cpu --compare`.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::process::{Command, Output};

use npyz::{NpyFile, WriteOptions, WriterBuilder};
use topk_ref::Mode;
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};

const BASELINES: [&str; 6] = ["air", "gridselect", "warpselect", "drtopk", "torch-radix", "sort"];

fn rtopk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtopk")).args(args).output().expect("run rtopk")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write_f32(path: &Path, n: usize, m: usize, data: &[f32]) {
    let mut w = WriteOptions::<f32>::new()
        .default_dtype()
        .shape(&[n as u64, m as u64])
        .writer(BufWriter::new(File::create(path).unwrap()))
        .begin_nd()
        .unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
}

fn read_indices(path: &Path) -> Vec<i64> {
    NpyFile::new(File::open(path).unwrap()).unwrap().into_vec().unwrap()
}

fn read_values(path: &Path) -> Vec<u32> {
    let v: Vec<f32> = NpyFile::new(File::open(path).unwrap()).unwrap().into_vec().unwrap();
    v.iter().map(|x| x.to_bits()).collect()
}

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

#[test]
fn select_every_baseline_matches_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let (n, m, data) = matrix();
    let x = dir.path().join("X.npy");
    write_f32(&x, n, m, &data);
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
                let got = read_indices(&i);
                let vals = read_values(&v);
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
    let (n, m, data) = matrix();
    let x = dir.path().join("X.npy");
    write_f32(&x, n, m, &data);
    let out = rtopk(&[
        "select",
        "--algo",
        "air",
        "-k",
        "3",
        "--max-iter",
        "4",
        "--input",
        x.to_str().unwrap(),
        "--values",
        "v.npy",
        "--indices",
        "i.npy",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--max-iter is only valid for"), "{}", stderr(&out));
}

#[test]
fn bench_cpu_times_named_baselines_with_counters() {
    let out = rtopk(&[
        "bench",
        "cpu",
        "--n",
        "64",
        "--m",
        "300",
        "-k",
        "20",
        "--algos",
        "heap,air,sort",
        "--json",
    ]);
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
    let out = rtopk(&[
        "bench",
        "cpu",
        "--compare",
        "--quick",
        "--algos",
        "heap,warpselect",
        "--reps",
        "3",
        "--json",
        "--svg",
        svg.to_str().unwrap(),
    ]);
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
