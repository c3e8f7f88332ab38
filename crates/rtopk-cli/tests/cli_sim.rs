//! End-to-end tests of the simulator's command line: `select --algo sim` gives bisect's exact
//! answer (values, indices, iteration counts) in every mode, `trace` prints and draws one
//! row's journey, `sim mutants` prints the catalog, and bad arguments (sizes too large to
//! simulate included) exit with code 2.

use crate::common;

use std::fs;
use std::path::Path;

use common::{fails_with, rtopk, stdout, write_f32};
use tempfile::TempDir;

/// An output file's bytes (header and data): equal files mean equal answers.
fn bytes(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap()
}

/// A 7 × 45 matrix with NaN, ±inf, ±0, subnormals and ties.
fn matrix() -> Vec<f32> {
    let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1e-40, 3.0];
    (0..7 * 45)
        .map(|i: usize| {
            if i % 11 == 0 {
                specials[(i / 11) % specials.len()]
            } else if i % 5 == 0 {
                2.5
            } else {
                ((i * 37 % 101) as f32 - 50.0) * 0.25
            }
        })
        .collect()
}

#[test]
fn select_sim_equals_bisect_in_every_mode() {
    let dir = TempDir::new().unwrap();
    let x = dir.path().join("x.npy");
    write_f32(&x, 7, 45, &matrix());
    let modes: [&[&str]; 5] =
        [&[], &["--smallest"], &["--sorted"], &["--max-iter", "5"], &["--precision", "0.01"]];
    for (mi, extra) in modes.iter().enumerate() {
        for k in ["1", "9", "45"] {
            let mut files = Vec::new();
            for algo in ["bisect", "sim"] {
                let p = |s: &str| dir.path().join(format!("{algo}-{mi}-{k}-{s}.npy"));
                let (v, i, it) = (p("v"), p("i"), p("it"));
                let mut args = vec!["select", "--algo", algo, "-k", k, "--input"];
                let paths = [x.to_str().unwrap(), v.to_str().unwrap(), i.to_str().unwrap()];
                args.push(paths[0]);
                args.extend(["--values", paths[1], "--indices", paths[2]]);
                args.extend(["--iterations", it.to_str().unwrap()]);
                args.extend(extra.iter());
                let out = rtopk(&args);
                assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
                files.push([bytes(&v), bytes(&i), bytes(&it)]);
            }
            assert_eq!(files[0], files[1], "sim differs from bisect with {extra:?} k={k}");
        }
    }
}

/// `select --algo sim` reports the simulator's findings on stderr (none for the kernel of
/// docs/kernel.md); `--fail-on-findings` is the simulator's flag alone.
#[test]
fn select_sim_reports_its_findings() {
    let dir = TempDir::new().unwrap();
    let x = dir.path().join("x.npy");
    write_f32(&x, 7, 45, &matrix());
    let (x, i) = (x.to_str().unwrap(), dir.path().join("i.npy"));
    let i = i.to_str().unwrap();
    let args = ["select", "--algo", "sim", "-k", "9", "--input", x, "--indices", i];
    let out = rtopk(&[&args[..], &["--fail-on-findings"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("no findings") && err.contains("rtopk_"), "{err}");
    fails_with(
        &[
            "select",
            "--algo",
            "heap",
            "-k",
            "9",
            "--input",
            x,
            "--indices",
            i,
            "--fail-on-findings",
        ],
        2,
        "--fail-on-findings is only valid for sim",
    );
}

#[test]
fn trace_prints_the_journey_and_draws_it() {
    let dir = TempDir::new().unwrap();
    let svg = dir.path().join("t.svg");
    let out =
        rtopk(&["trace", "--m", "40", "-k", "5", "--seed", "1", "--svg", svg.to_str().unwrap()]);
    assert!(out.status.success());
    let text = stdout(&out);
    for part in ["load_row", "search_threshold", "select_topk", "exit: HIT", "output", "sel_mask"] {
        assert!(text.contains(part), "missing {part}:\n{text}");
    }
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains("select_topk"));
    assert_eq!(picture.matches("it 5").count(), 1, "one label per iteration");
    // Same seed, same trace; early stopping reports its steps.
    let again = stdout(&rtopk(&["trace", "--m", "40", "-k", "5", "--seed", "1"]));
    assert_eq!(again, text.replace(&format!("\nSVG written to {}\n", svg.display()), ""));
    let es = stdout(&rtopk(&["trace", "--m", "70", "-k", "9", "--max-iter", "4", "--smallest"]));
    assert!(es.contains("MAX_ITER") && es.contains("iterations = 4"), "{es}");
}

#[test]
fn trace_reads_a_row_of_an_input_file() {
    let dir = TempDir::new().unwrap();
    let x = dir.path().join("x.npy");
    write_f32(&x, 7, 45, &matrix());
    let xs = x.to_str().unwrap();
    let out = rtopk(&["trace", "--input", xs, "--row", "3", "-k", "6"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).starts_with("row 3: M = 45, k = 6"));
    for bad in [
        vec!["trace", "--input", xs, "--row", "7", "-k", "2"],
        vec!["trace", "--input", xs, "--m", "44", "-k", "2"],
        vec!["trace", "--input", xs, "--seed", "1", "-k", "2"],
        vec!["trace", "-k", "2"],
        vec!["trace", "--m", "5", "-k", "6"],
        vec!["trace", "--m", "5", "-k", "0"],
        vec!["trace", "--m", "5", "-k", "2", "--max-iter", "3", "--precision", "0.1"],
    ] {
        let out = rtopk(&bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(!out.stderr.is_empty());
    }
}

/// Sizes are checked before anything is allocated: a row too wide for the kernel (docs/contract.md §1) is
/// a clear message and exit 2, never an allocation abort. (Rows within the contract's width but too
/// wide for the simulator's memory are refused by its checked reservations, tested in
/// warp-sim; how large that is depends on the machine.)
#[test]
fn trace_refuses_sizes_it_cannot_simulate() {
    fails_with(&["trace", "-k", "3", "--m", "1099511627776"], 2, "larger than the supported");
    fails_with(
        &["trace", "-k", "3", "--m", "18446744073709551615"],
        2,
        "larger than the supported",
    );
}

#[test]
fn sim_mutants_prints_the_catalog() {
    let out = rtopk(&["sim", "mutants"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.contains("clean"));
    for name in ["ballot-partial-mask", "prefix-mask-shift-32", "shared-counter-no-barrier"] {
        assert!(text.contains(name), "{name}");
    }
    assert_eq!(text.matches("not caught").count(), 1, "only the equivalent mutant:\n{text}");
}

/// The command line takes the route `rtopk.topk` takes for the same request: without
/// `--iterations` a long row is split (the simulator names the split kernels), with it the
/// row is selected whole; the values and indices are the same bytes either way, and bisect's.
#[test]
fn select_splits_a_long_row_only_without_iteration_counts() {
    let dir = TempDir::new().unwrap();
    let x = dir.path().join("x.npy");
    // past the rows a cluster's registers hold (16 blocks of 1024 threads: rtopk-plan's
    // WIDE_CLUSTER)
    let (n, m) = (1, 600_000);
    let data: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 10007) as f32 * 0.5 - 9.0).collect();
    write_f32(&x, n, m, &data);
    let out = |name: &str| dir.path().join(name);
    let run = |algo: &str, tag: &str, iterations: bool| {
        let (v, i, it) = (out(&format!("{tag}v.npy")), out(&format!("{tag}i.npy")), out("it.npy"));
        let mut args = vec!["select", "--algo", algo, "-k", "40", "--sorted", "--input"];
        args.push(x.to_str().unwrap());
        args.extend(["--values", v.to_str().unwrap(), "--indices", i.to_str().unwrap()]);
        if iterations {
            args.extend(["--iterations", it.to_str().unwrap()]);
        }
        let o = rtopk(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (String::from_utf8_lossy(&o.stderr).to_string(), bytes(&v), bytes(&i))
    };
    let (split_log, split_v, split_i) = run("sim", "s", false);
    let (whole_log, whole_v, whole_i) = run("sim", "w", true);
    assert!(split_log.contains("rtopk_split_gather"), "{split_log}");
    assert!(!whole_log.contains("split"), "{whole_log}");
    assert_eq!((&split_v, &split_i), (&whole_v, &whole_i));
    let (_, cpu_v, cpu_i) = run("bisect", "b", false);
    assert_eq!((split_v, split_i), (cpu_v, cpu_i));
}
