//! End-to-end tests of `rtopk select` and the front door: hand-checked selections for every
//! algorithm, every input / argument error of docs/contract.md §4 (exit code 2, a message naming the
//! problem, no output file), the output-path rules (devices, FIFOs, symlinks, one file under
//! two names), signals, and exit codes for the environment's failures (1).

use crate::common;

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::*;

const NAN_A: u32 = 0x7fc0_1234; // quiet NaN with a payload
const NAN_B: u32 = 0xffc0_0001; // negative NaN with a payload

/// Two hand-checked rows of width 8 (see the expected tables in `hand_checked_select`).
fn rows() -> Vec<f32> {
    let nan_a = f32::from_bits(NAN_A);
    let nan_b = f32::from_bits(NAN_B);
    vec![
        // A: 0     1      2    3    4     5              6    7
        0.5,
        nan_a,
        3.0,
        3.0,
        -0.0,
        f32::INFINITY,
        0.0,
        -2.0,
        // B: 0     1      2    3    4     5              6    7
        1.0,
        0.0,
        -0.0,
        5.0,
        -0.0,
        2.0,
        nan_b,
        -1.0,
    ]
}

/// Runs `select` and checks indices and value bits against hand-derived expectations.
fn check_select(algo: &str, k: usize, flags: &[&str], expected: [&[i64]; 2]) {
    let data = rows();
    let c = Case::with_matrix(2, 8, &data);
    let ks = k.to_string();
    let mut args = vec!["--algo", algo, "-k", &ks];
    args.extend_from_slice(flags);
    let out = c.select(&args);
    assert!(out.status.success(), "{algo} {flags:?} k={k}: {}", stderr(&out));
    let (ishape, idx) = read_i64(&c.path("I.npy"));
    let (vshape, vals) = read_values(&c.path("V.npy"));
    assert_eq!(ishape, vec![2, k as u64]);
    assert_eq!(vshape, vec![2, k as u64]);
    let want: Vec<i64> = expected.concat();
    assert_eq!(idx, want, "{algo} {flags:?} k={k}: indices");
    let data = &data;
    let want_bits: Vec<u32> = expected
        .iter()
        .enumerate()
        .flat_map(|(r, e)| e.iter().map(move |&i| data[r * 8 + i as usize].to_bits()))
        .collect();
    assert_eq!(vals, want_bits, "{algo} {flags:?} k={k}: value bits");
}

#[test]
fn hand_checked_select_for_every_algorithm() {
    for algo in ALGOS {
        // Largest: NaN above +inf; 3.0 at 2 and 3 tie (lower index first).
        check_select(algo, 3, &[], [&[1, 2, 5], &[3, 5, 6]]);
        check_select(algo, 3, &["--sorted"], [&[1, 5, 2], &[6, 3, 5]]);
        check_select(algo, 5, &[], [&[0, 1, 2, 3, 5], &[0, 1, 3, 5, 6]]);
        // The zeros tie: -0.0 at 4 beats 0.0 at 6 (A); 0.0 at 1, then -0.0 at 2 (B).
        check_select(algo, 6, &[], [&[0, 1, 2, 3, 4, 5], &[0, 1, 2, 3, 5, 6]]);
        check_select(
            algo,
            8,
            &["--sorted"],
            [&[1, 5, 2, 3, 0, 4, 6, 7], &[6, 3, 5, 0, 1, 2, 4, 7]],
        );
        // Smallest: NaN is chosen last; -0.0 keeps its sign bit in the values.
        check_select(algo, 3, &["--smallest"], [&[4, 6, 7], &[1, 2, 7]]);
        check_select(algo, 3, &["--smallest", "--sorted"], [&[7, 4, 6], &[7, 1, 2]]);
        check_select(algo, 2, &["--smallest"], [&[4, 7], &[1, 7]]);
        check_select(
            algo,
            8,
            &["--smallest", "--sorted"],
            [&[7, 4, 6, 0, 2, 3, 5, 1], &[7, 1, 2, 4, 0, 5, 3, 6]],
        );
        check_select(algo, 0, &[], [&[], &[]]);
    }
}

#[test]
fn nans_tie_with_each_other() {
    let nan = f32::from_bits(NAN_A);
    let data = [nan, 1.0, f32::from_bits(NAN_B), f32::NEG_INFINITY];
    for algo in ALGOS {
        let c = Case::with_matrix(1, 4, &data);
        assert!(c.select(&["--algo", algo, "-k", "2"]).status.success());
        assert_eq!(read_i64(&c.path("I.npy")).1, vec![0, 2], "{algo}");
        assert_eq!(read_values(&c.path("V.npy")).1, vec![NAN_A, NAN_B], "{algo}");
        assert!(c.select(&["--algo", algo, "-k", "3", "--smallest"]).status.success());
        assert_eq!(read_i64(&c.path("I.npy")).1, vec![0, 1, 3], "{algo}");
    }
}

#[test]
fn bisect_reports_iterations() {
    // Row [0, 1, 2, 3]: k = 2 hits at the first threshold 1.5 (1 iteration); k = 1 goes
    // 1.5 (count 2 > 1) then 2.25 (count 1, hit): 2 iterations.
    let c = Case::with_matrix(2, 4, &[0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0]);
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "bisect", "-k", "2", "--iterations", &it]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read_i64(&c.path("IT.npy")), (vec![2], vec![1, 1]));
    assert_eq!(read_i64(&c.path("I.npy")).1, vec![2, 3, 2, 3]);
    let out = c.select(&["--algo", "bisect", "-k", "1", "--iterations", &it]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read_i64(&c.path("IT.npy")), (vec![2], vec![2, 2]));
}

#[test]
fn bisect_early_stopping_and_precision() {
    let data: Vec<f32> = (0..64).map(|i| ((i * 37) % 64) as f32 * 0.25 - 3.0).collect();
    let c = Case::with_matrix(2, 32, &data);
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "bisect", "-k", "5", "--max-iter", "3", "--iterations", &it]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, idx) = read_i64(&c.path("I.npy"));
    for row in idx.chunks(5) {
        assert!(row.windows(2).all(|w| w[0] < w[1]) && row.iter().all(|&i| (0..32).contains(&i)));
    }
    let (shape, iters) = read_i64(&c.path("IT.npy"));
    assert_eq!(shape, vec![2]);
    assert!(iters.iter().all(|&n| n <= 3), "{iters:?}");
    let out = c.select(&["--algo", "bisect", "-k", "5", "--precision", "0.01"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn zero_rows_give_empty_outputs() {
    let c = Case::with_matrix(0, 5, &[]);
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "bisect", "-k", "3", "--iterations", &it]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read_values(&c.path("V.npy")), (vec![0, 3], vec![]));
    assert_eq!(read_i64(&c.path("I.npy")), (vec![0, 3], vec![]));
    assert_eq!(read_i64(&c.path("IT.npy")), (vec![0], vec![]));
}

/// Asserts exit code 2, an `error: ` message containing every one of `needles`, and that
/// only the input file (if any) is in the directory afterwards.
fn assert_refused(c: &Case, out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.starts_with("error: "), "stderr: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr {err:?} should mention {n:?}");
    }
    let files = c.files();
    assert!(files.iter().all(|f| f == "X.npy"), "left behind: {files:?}");
}

fn good_case() -> Case {
    Case::with_matrix(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
}

#[test]
fn k_larger_than_m() {
    let c = good_case();
    let out = c.select(&["--algo", "heap", "-k", "5"]);
    assert_refused(&c, &out, &["k = 5 is larger than the row width M = 3"]);
}

#[test]
fn wrong_dtypes() {
    let cases: [(&str, usize, &str); 6] = [
        ("<f8", 8, "found <f8"),
        ("<i4", 4, "found <i4"),
        ("<i2", 2, "found <i2"),
        (">f4", 4, "big-endian"),
        (">f2", 2, "x.astype('<f2')"),
        ("<V2", 2, "bfloat16"),
    ];
    for (descr, size, says) in cases {
        let c = Case::with_bytes(&raw_npy(descr, false, "(2, 3)", &vec![0u8; 6 * size]));
        let out = c.select(&["--algo", "heap", "-k", "1"]);
        let expected = "expected dtype <f4 (little-endian float32) or <f2 (little-endian float16)";
        assert_refused(&c, &out, &["X.npy", expected, &format!("found {descr}"), says]);
    }
}

#[test]
fn wrong_rank() {
    let c = Case::with_bytes(&raw_npy("<f4", false, "(6,)", &f32_bytes(&[0.0; 6])));
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["2-D", "(6,)", "rank 1"]);
    let c = Case::with_bytes(&raw_npy("<f4", false, "(1, 2, 3)", &f32_bytes(&[0.0; 6])));
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["2-D", "(1, 2, 3)", "rank 3"]);
    let c = Case::with_bytes(&raw_npy("<f4", false, "()", &f32_bytes(&[0.0])));
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["2-D", "rank 0"]);
}

#[test]
fn fortran_order() {
    let c = Case::with_bytes(&raw_npy("<f4", true, "(2, 3)", &f32_bytes(&[0.0; 6])));
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["Fortran"]);
}

#[test]
fn truncated_and_overlong_data() {
    let c = Case::with_bytes(&raw_npy("<f4", false, "(2, 3)", &f32_bytes(&[0.0; 5])));
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["truncated", "24", "20"]);
    let mut odd = raw_npy("<f4", false, "(2, 3)", &f32_bytes(&[0.0; 6]));
    odd.pop();
    let c = Case::with_bytes(&odd);
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["truncated"]);
    let c = Case::with_bytes(&raw_npy("<f4", false, "(2, 3)", &f32_bytes(&[0.0; 7])));
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["trailing"]);
    // A shape whose size overflows any integer type.
    let huge = raw_npy("<f4", false, "(18446744073709551615, 18446744073709551615)", &[0; 8]);
    let c = Case::with_bytes(&huge);
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["X.npy"]);
    // The file ends inside the header.
    let mut cut = raw_npy("<f4", false, "(2, 3)", &[]);
    cut.truncate(40);
    let c = Case::with_bytes(&cut);
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["header"]);
}

#[test]
fn garbage_malformed_and_missing_files() {
    let c = Case::with_bytes(b"this is not a numpy file at all, just text\n");
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["X.npy", "not an .npy file"]);
    let c = Case::with_bytes(&[]);
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["not an .npy file"]);
    let mut bad = raw_npy("<f4", false, "(2, 3)", &f32_bytes(&[0.0; 6]));
    bad[20] = b'@'; // breaks the dictionary literal
    let c = Case::with_bytes(&bad);
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["malformed .npy header"]);
    let mut version = raw_npy("<f4", false, "(2, 3)", &f32_bytes(&[0.0; 6]));
    version[6] = 9;
    let c = Case::with_bytes(&version);
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["version 9.0"]);
    let c = Case::new();
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "1"]), &["X.npy", "cannot read"]);
}

#[test]
fn width_zero() {
    let c = Case::with_bytes(&raw_npy("<f4", false, "(4, 0)", &[]));
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "0"]), &["M = 0"]);
}

#[test]
fn options_for_the_wrong_algorithm() {
    let c = good_case();
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "heap", "-k", "1", "--iterations", &it]);
    assert_refused(&c, &out, &["--iterations", "heap"]);
    let out = c.select(&["--algo", "heap", "-k", "1", "--max-iter", "4"]);
    assert_refused(&c, &out, &["--max-iter", "heap", "bisect"]);
    let out = c.select(&["--algo", "radix", "-k", "1", "--precision", "0.1"]);
    assert_refused(&c, &out, &["--precision", "radix"]);
    let out = c.select(&["--algo", "bisect", "-k", "1", "--max-iter", "4", "--precision", "0.1"]);
    assert_refused(&c, &out, &["--max-iter", "--precision"]);
}

#[test]
fn bad_precision() {
    let c = good_case();
    for eps in ["-0.5", "NaN", "inf", "abc"] {
        let out = c.select(&["--algo", "bisect", "-k", "1", "--precision", eps]);
        assert_refused(&c, &out, &["precision"]);
    }
}

#[test]
fn unknown_algorithms_are_refused_with_the_valid_names() {
    let c = good_case();
    let out = c.select(&["--algo", "fastest", "-k", "1"]);
    assert_refused(&c, &out, &["unknown algorithm 'fastest'", "heap", "bisect", "sim", "air"]);
}

#[test]
fn usage_errors_exit_2() {
    let c = good_case();
    assert_refused(&c, &c.select(&["--algo", "heap", "-k", "-1"]), &["invalid value '-1'", "-k"]);
    assert_refused(&c, &c.select(&["--algo", "heap"]), &["-k"]);
    assert_refused(
        &c,
        &c.select(&["--algo", "bisect", "-k", "1", "--max-iter", "-2"]),
        &["invalid value '-2'", "--max-iter"],
    );
    let v = c.p("V.npy");
    let x = c.p("X.npy");
    let out = heap_select("1", &x, &v, &v);
    assert_refused(&c, &out, &["same file"]);
}

#[test]
fn unwritable_output_exits_1_and_leaves_nothing() {
    let c = good_case();
    let x = c.p("X.npy");
    let v = c.p("V.npy");
    let i = c.p("missing-dir/I.npy");
    let out = heap_select("1", &x, &v, &i);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("error: cannot write"));
    assert_eq!(c.files(), vec!["X.npy".to_string()]);
}

#[test]
fn bench_cpu_json() {
    let out =
        rtopk(&["bench", "cpu", "--n", "256", "--m", "64", "-k", "8", "--reps", "5", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("threads"));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let rows = rows.as_array().expect("a JSON array");
    assert_eq!(rows.len(), 8, "six algorithms, early-stopping bisect and the simulator");
    for r in rows {
        for key in
            ["algo", "n", "m", "k", "exact", "max_iter", "median_ms", "melem_per_s", "threads"]
        {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
        assert_eq!(
            (r["n"].as_u64(), r["m"].as_u64(), r["k"].as_u64()),
            (Some(256), Some(64), Some(8))
        );
        assert!(r["median_ms"].as_f64().unwrap() >= 0.0);
        assert_eq!(r["verified"], serde_json::Value::Bool(true));
    }
    let names: Vec<&str> = rows.iter().map(|r| r["algo"].as_str().unwrap()).collect();
    for a in ALGOS.iter().chain(&["sim"]) {
        assert!(names.contains(a), "{a} missing from {names:?}");
    }
    let es: Vec<_> = rows.iter().filter(|r| r["max_iter"].as_u64() == Some(8)).collect();
    assert_eq!(es.len(), 1);
    assert_eq!(es[0]["algo"], "bisect");
    assert_eq!(es[0]["exact"], false);
}

#[test]
fn bench_cpu_argument_errors() {
    let out = rtopk(&["bench", "cpu", "--n", "256"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("go together"));
    let out = rtopk(&["bench", "cpu", "--n", "8", "--m", "4", "-k", "8", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("k = 8 is larger than the row width M = 4"));
    let out = rtopk(&["bench", "cpu", "--n", "8", "--m", "8", "-k", "2", "--algos", "heap,nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown algorithm 'nope'"));
    let out = rtopk(&["bench", "cpu", "--n", "8", "--m", "8", "-k", "2", "--reps", "2"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bench_cpu_table_with_filter() {
    let out =
        rtopk(&["bench", "cpu", "--n", "64", "--m", "32", "-k", "4", "--algos", "heap,bisect"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    assert_eq!(table.lines().count(), 4, "{table}"); // header, heap, bisect, bisect(max_iter)
    assert!(table.contains("median ms") && table.contains("G elem/s"));
}

/// Without a CUDA driver (CI), `--algo cuda` says so and exits 1 (not a panic, not a bad
/// input), writing nothing; with one, it must agree with `bisect`.
#[test]
fn cuda_without_a_driver_is_an_error_not_a_panic() {
    let c = good_case();
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "cuda", "-k", "2", "--iterations", &it]);
    if rtopk::cuda::check_libraries().is_err() {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "stderr: {err}");
        assert!(err.starts_with("error: no CUDA driver found"), "stderr: {err}");
        assert_eq!(c.files(), vec!["X.npy".to_string()]);
    } else {
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(read_i64(&c.path("I.npy")), (vec![2, 2], vec![1, 2, 1, 2]));
    }
}

#[test]
fn descrs_without_a_byte_order_and_list_shapes_are_refused() {
    for descr in ["=f4", "f4"] {
        let c = Case::with_bytes(&raw_npy(descr, false, "(2, 3)", &f32_bytes(&[0.0; 6])));
        let found = format!("found {descr} ");
        let out = c.select(&["--algo", "heap", "-k", "1"]);
        assert_refused(&c, &out, &["expected dtype <f4", &found, "byte order", "'<f4'"]);
    }
    let c = Case::with_bytes(&raw_npy("<f4", false, "[2, 3]", &f32_bytes(&[0.0; 6])));
    let out = c.select(&["--algo", "heap", "-k", "1"]);
    assert_refused(&c, &out, &["malformed .npy header", "list [2, 3]", "tuple"]);
}

#[test]
fn precision_errors_quote_the_argument() {
    let c = good_case();
    let out = c.select(&["--algo", "bisect", "-k", "1", "--precision", "1e40"]);
    assert_refused(&c, &out, &["'1e40'", "largest float32"]);
    assert!(!stderr(&out).contains("got inf"), "{}", stderr(&out));
}

#[test]
fn each_output_is_optional_but_one_is_required() {
    let c = good_case();
    let (x, i, it) = (c.p("X.npy"), c.p("I.npy"), c.p("IT.npy"));
    let out = rtopk(&["select", "--algo", "heap", "-k", "2", "--input", &x, "--indices", &i]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(c.files(), ["I.npy", "X.npy"]);
    assert_eq!(read_i64(&c.path("I.npy")), (vec![2, 2], vec![1, 2, 1, 2]));
    fs::remove_file(c.path("I.npy")).unwrap();
    let out = rtopk(&["select", "--algo", "bisect", "-k", "2", "--input", &x, "--iterations", &it]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(c.files(), ["IT.npy", "X.npy"]);
    fs::remove_file(c.path("IT.npy")).unwrap();
    let out = rtopk(&["select", "--algo", "heap", "-k", "2", "--input", &x]);
    assert_refused(&c, &out, &["--values", "--indices", "--iterations"]);
}

/// Outputs are compared as files, not as strings.
#[test]
fn one_file_under_two_names_is_refused() {
    let c = good_case();
    fs::create_dir(c.path("sub")).unwrap();
    fs::hard_link(c.path("X.npy"), c.path("hard.npy")).unwrap();
    symlink("X.npy", c.path("link.npy")).unwrap();
    fs::write(c.path("w.npy"), b"another file").unwrap();
    fs::hard_link(c.path("w.npy"), c.path("w-hard.npy")).unwrap();
    symlink("w.npy", c.path("w-link.npy")).unwrap();
    let input = fs::read(c.path("X.npy")).unwrap();
    let same = "--values and --indices name the same file";
    let is_input = "is the same file as --input";
    let cases: [(&[&str], &str); 8] = [
        (&["--values", "v.npy", "--indices", "./v.npy"], same),
        (&["--values", "v.npy", "--indices", "sub/../v.npy"], same),
        (&["--values", "X.npy", "--indices", "i.npy"], is_input),
        (&["--values", "v.npy", "--indices", "./X.npy"], is_input),
        (&["--values", "sub/../X.npy"], is_input),
        (&["--indices", "link.npy"], is_input),
        (&["--indices", "hard.npy"], is_input),
        (&["--values", "w-link.npy", "--indices", "w-hard.npy"], same),
    ];
    for existing in [false, true] {
        if existing {
            fs::write(c.path("v.npy"), b"earlier").unwrap();
        }
        for (outputs, needle) in cases {
            let err = c.refused_here(&["--algo", "heap", "-k", "1", "--input", "X.npy"], outputs);
            assert!(err.starts_with("error: ") && err.contains(needle), "{outputs:?}: {err}");
            assert_eq!(fs::read(c.path("X.npy")).unwrap(), input, "{outputs:?}");
        }
    }
    assert_eq!(
        c.files(),
        ["X.npy", "hard.npy", "link.npy", "sub", "v.npy", "w-hard.npy", "w-link.npy", "w.npy"]
    );
    assert_eq!(fs::read(c.path("w.npy")).unwrap(), b"another file");
    assert_eq!(fs::read(c.path("v.npy")).unwrap(), b"earlier");
}

/// A symlink is written through, not replaced.
#[test]
fn a_symlinked_output_is_written_through_and_stays_a_link() {
    let c = good_case();
    fs::write(c.path("real.npy"), b"old").unwrap();
    symlink("real.npy", c.path("I.npy")).unwrap();
    let out = c.select(&["--algo", "heap", "-k", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::symlink_metadata(c.path("I.npy")).unwrap().file_type().is_symlink());
    assert_eq!(read_i64(&c.path("real.npy")), (vec![2, 2], vec![1, 2, 1, 2]));
    assert_eq!(c.files(), ["I.npy", "V.npy", "X.npy", "real.npy"]);
}

fn is_char_device(path: &Path) -> bool {
    fs::metadata(path).unwrap().file_type().is_char_device()
}

/// A device node is written in place (character devices) or refused (block
/// devices, directories), never replaced by a regular file.
#[test]
fn device_nodes_are_written_in_place_or_refused_never_replaced() {
    let c = good_case();
    let (x, i) = (c.p("X.npy"), c.p("I.npy"));
    let select_into = |values: &str| heap_select("2", &x, values, &i);
    let out = select_into("/dev/null");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(is_char_device(Path::new("/dev/null")));
    assert_eq!(c.files(), ["I.npy", "X.npy"]);

    let out = select_into(c.dir.path().to_str().unwrap());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));

    // A character device of our own (the numbers of /dev/null), where mknod is permitted.
    match tool("mknod", &[&c.p("n"), "c", "1", "3"]) {
        Ok(()) => {
            let out = select_into(&c.p("n"));
            let err = stderr(&out);
            assert!(is_char_device(&c.path("n")), "the device node was replaced: {err}");
            if err.contains("Permission denied") {
                skip("char device in a temp dir", &format!("nodev mount: {err}"));
            } else {
                assert!(out.status.success(), "{err}");
            }
        }
        Err(why) => skip("char device in a temp dir", &why),
    }
    match tool("mknod", &[&c.p("b"), "b", "7", "0"]) {
        Ok(()) => {
            let out = select_into(&c.p("b"));
            assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
            assert!(stderr(&out).contains("is a block device"), "{}", stderr(&out));
            let ft = fs::metadata(c.path("b")).unwrap().file_type();
            assert!(ft.is_block_device());
        }
        Err(why) => skip("block device in a temp dir", &why),
    }
    let left: Vec<String> = c.files().into_iter().filter(|f| f.contains(".rtopk-")).collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A FIFO (and `/dev/stdout` in a pipeline) is written in place after the other outputs are
/// complete; its reader gets a whole `.npy` file.
#[test]
fn fifos_and_dev_stdout_are_written_in_place() {
    let c = good_case();
    let x = c.p("X.npy");
    let out =
        rtopk(&["select", "--algo", "heap", "-k", "2", "--input", &x, "--indices", "/dev/stdout"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let npy = npyz::NpyFile::new(&out.stdout[..]).unwrap();
    assert_eq!(npy.shape(), &[2, 2]);
    assert_eq!(npy.into_vec::<i64>().unwrap(), vec![1, 2, 1, 2]);

    if let Err(why) = tool("mkfifo", &[&c.p("pipe")]) {
        skip("FIFO output", &why);
        return;
    }
    let mut reader = std::process::Command::new("cat")
        .arg(c.path("pipe"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (v, pipe) = (c.p("V.npy"), c.p("pipe"));
    let out = heap_select("2", &x, &v, &pipe);
    if !out.status.success() {
        reader.kill().unwrap();
        panic!("{}", stderr(&out));
    }
    let got = reader.wait_with_output().unwrap().stdout;
    let npy = npyz::NpyFile::new(&got[..]).unwrap();
    assert_eq!(npy.into_vec::<i64>().unwrap(), vec![1, 2, 1, 2]);
    assert!(fs::metadata(c.path("pipe")).unwrap().file_type().is_fifo());
    assert_eq!(c.files(), ["V.npy", "X.npy", "pipe"]);
}

/// The input may be a pipe: its size is checked as the data arrives.
#[test]
fn an_input_from_a_pipe_is_read_and_checked() {
    let select_stdin = |bytes: Vec<u8>, dir: &Path| {
        let i = dir.join("I.npy");
        let mut child = rtopk_command()
            .args(["select", "--algo", "heap", "-k", "1", "--input", "/dev/stdin", "--indices"])
            .arg(&i)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The writer may see a broken pipe when rtopk stops reading early: that is the test.
        let _ = stdin.write_all(&bytes);
        drop(stdin);
        child.wait_with_output().unwrap()
    };
    let c = Case::new();
    let data = f32_bytes(&[1.0, 2.0, 3.0, 6.0, 5.0, 4.0]);
    let out = select_stdin(raw_npy("<f4", false, "(2, 3)", &data), c.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read_i64(&c.path("I.npy")), (vec![2, 1], vec![2, 0]));
    let out = select_stdin(raw_npy("<f4", false, "(3, 3)", &data), c.dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("truncated data: shape (3, 3) needs 36 bytes"),
        "{}",
        stderr(&out)
    );
    let out = select_stdin(raw_npy("<f4", false, "(1, 3)", &data), c.dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("trailing bytes"), "{}", stderr(&out));
    // The failed runs left the first run's output as it was.
    assert_eq!(read_i64(&c.path("I.npy")), (vec![2, 1], vec![2, 0]));
    assert_eq!(c.files(), ["I.npy"]);
}

/// The environment's failures exit 1, and a failed run changes nothing.
#[test]
fn the_environment_failing_exits_1_and_changes_nothing() {
    let c = good_case();
    fs::write(c.path("V.npy"), b"earlier").unwrap();
    let (x, v) = (c.p("X.npy"), c.p("V.npy"));
    let out = heap_select("2", &x, &v, "/dev/full");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("error: cannot write /dev/full"), "{}", stderr(&out));
    assert_eq!(fs::read(c.path("V.npy")).unwrap(), b"earlier");
    assert_eq!(c.files(), ["V.npy", "X.npy"]);

    use std::os::unix::fs::PermissionsExt;
    let ro = c.path("ro");
    fs::create_dir(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    if fs::write(ro.join("probe"), b"").is_ok() {
        skip("unwritable directory", "this user (root?) may write into a 0555 directory");
        return;
    }
    let i = c.p("ro/I.npy");
    let out = rtopk(&["select", "--algo", "heap", "-k", "2", "--input", &x, "--indices", &i]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("Permission denied"), "{}", stderr(&out));
}

/// Starts `rtopk select` with `args` in `c`'s dir (temporary files staged there too), waits for
/// its temporary files, sends `signal` and checks the exit code, that no temporary file is
/// left and that `V.npy` still holds what it held.
fn interrupt(c: &Case, args: &[&str], signal: &str, code: i32) {
    let mut child = rtopk_command()
        .current_dir(c.dir.path())
        .env("TMPDIR", c.dir.path())
        .arg("select")
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !c.files().iter().any(|f| f.contains(".rtopk-") && f.ends_with(".tmp")) {
        assert!(child.try_wait().unwrap().is_none(), "rtopk ended before it was signalled");
        assert!(Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(2));
    }
    tool("kill", &["-s", signal, &child.id().to_string()]).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(code), "SIG{signal} {args:?}: {err}");
    let left: Vec<String> = c.files().into_iter().filter(|f| f.contains(".rtopk-")).collect();
    assert!(left.is_empty(), "SIG{signal} {args:?} left {left:?}");
    assert_eq!(fs::read(c.path("V.npy")).unwrap(), b"earlier", "SIG{signal} {args:?}");
    assert!(!c.path("I.npy").exists());
}

/// SIGTERM and SIGINT remove the temporary files; earlier outputs stay.
#[test]
fn a_signal_removes_temporary_files_and_keeps_earlier_outputs() {
    // While selecting: the simulator takes most of a second on these rows.
    let (n, m) = (16384, 1024);
    let data: Vec<f32> =
        (0..n * m).map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 8) as f32).collect();
    let c = Case::with_matrix(n, m, &data);
    fs::write(c.path("V.npy"), b"earlier").unwrap();
    let selecting = ["--algo", "sim", "-k", "32", "--input", "X.npy", "--values", "V.npy"];
    let selecting = [&selecting[..], &["--indices", "I.npy"]].concat();
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        interrupt(&c, &selecting, signal, code);
    }
    // While putting the outputs in place: a FIFO without a reader blocks the run for good
    // after every output is complete, so the signal's moment does not depend on speed.
    fs::remove_file(c.path("X.npy")).unwrap();
    write_f32(&c.path("X.npy"), 2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    if let Err(why) = tool("mkfifo", &[&c.p("pipe")]) {
        skip("signal while writing a FIFO", &why);
        return;
    }
    let blocked = ["--algo", "bisect", "-k", "2", "--input", "X.npy", "--values", "V.npy"];
    let blocked = [&blocked[..], &["--indices", "I.npy", "--iterations", "pipe"]].concat();
    interrupt(&c, &blocked, "TERM", 143);
}

#[test]
fn help_names_every_command_and_algorithm() {
    let out = rtopk(&["--help"]);
    let help = stdout(&out);
    for cmd in ["select", "plan", "trace", "sim", "bench", "verify", "stats", "reproduce"] {
        assert!(help.contains(&format!("  {cmd} ")), "{cmd} missing from --help:\n{help}");
    }
    assert!(help.contains("select, plan, trace, sim, bench, verify, stats, reproduce"), "{help}");
    let help = stdout(&rtopk(&["select", "--help"]));
    for algo in ["heap", "bisect", "sim", "cuda", "air", "torch-radix", "sort"] {
        assert!(help.contains(algo), "{algo} missing from select --help:\n{help}");
    }
}

/// The CPU algorithms of docs/contract.md §4 (all but `sim` and `cuda`): each takes float16 input.
fn cpu_algos() -> impl Iterator<Item = &'static str> {
    ALGOS.into_iter().chain(BASELINES)
}

/// f16 bit patterns on the edges of the order: NaNs of both signs with payloads (quiet and
/// signalling), ±inf, ±0, subnormals of both signs, ±largest finite.
const F16_SPECIALS: [u16; 14] = [
    0x7e00, 0xfe00, 0x7e01, 0xfd55, 0x7c01, 0xfc01, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x83ff,
    0x7bff, 0xfbff,
];

/// `select` of the f16 matrix `bits` with `algo`: indices and value bits equal the oracle's
/// (topk-ref's, on the same f16 values), values written as `<f2`, indices as `<i8`.
fn check_select16(
    c: &Case,
    n: usize,
    m: usize,
    bits: &[u16],
    algo: &str,
    k: usize,
    smallest: bool,
) {
    let ks = k.to_string();
    let mut args = vec!["--algo", algo, "-k", &ks];
    if smallest {
        args.extend(["--smallest", "--sorted"]);
    }
    let out = c.select(&args);
    assert!(out.status.success(), "{algo} k={k}: {}", stderr(&out));
    let (ishape, idx) = read_i64(&c.path("I.npy"));
    let (vshape, vals) = read_values16(&c.path("V.npy"));
    assert_eq!((ishape, vshape), (vec![n as u64, k as u64], vec![n as u64, k as u64]));
    let mode = if smallest { topk_ref::Mode::Smallest } else { topk_ref::Mode::Largest };
    for r in 0..n {
        let row: Vec<topk_ref::f16> =
            bits[r * m..(r + 1) * m].iter().map(|&b| topk_ref::f16::from_bits(b)).collect();
        let want = if smallest {
            topk_ref::oracle::canonical_sorted_indices(&row, k, mode)
        } else {
            topk_ref::oracle::canonical_indices(&row, k, mode)
        };
        let got: Vec<u32> = idx[r * k..(r + 1) * k].iter().map(|&i| i as u32).collect();
        assert_eq!(got, want, "{algo} row {r} k={k} smallest={smallest}");
        let want_bits: Vec<u16> = want.iter().map(|&i| row[i as usize].to_bits()).collect();
        assert_eq!(&vals[r * k..(r + 1) * k], &want_bits[..], "{algo} row {r}: value bits");
    }
}

#[test]
fn f16_input_through_every_cpu_algorithm() {
    // Three rows of 45: specials, heavy ties (f16 rows tie far more often) and ordinary values.
    let (n, m) = (3, 45);
    let bits: Vec<u16> = (0..n * m)
        .map(|i| match i % 4 {
            0 => F16_SPECIALS[(i / 4) % F16_SPECIALS.len()],
            1 => 0x3c00, // 1.0, many times
            _ => 0x3000 + ((i * 7919) % 2048) as u16,
        })
        .collect();
    let c = Case::new();
    write_f16(&c.path("X.npy"), n, m, &bits);
    for algo in cpu_algos() {
        for (k, smallest) in [(0, false), (1, true), (m - 1, false), (m, true), (7, true)] {
            check_select16(&c, n, m, &bits, algo, k, smallest);
        }
    }
}

/// All 65,536 f16 bit patterns, in an order shuffled by a 64-bit LCG (Fisher–Yates).
fn every_f16_shuffled(seed: u64) -> Vec<u16> {
    let mut bits: Vec<u16> = (0..=u16::MAX).collect();
    let mut state = seed;
    for i in (1..bits.len()).rev() {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        bits.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
    }
    bits
}

#[test]
fn a_row_of_every_f16_bit_pattern_shuffled() {
    let bits = every_f16_shuffled(22);
    let m = bits.len();
    let c = Case::new();
    write_f16(&c.path("X.npy"), 1, m, &bits);
    // 2046 NaN patterns rank above +inf: k = 2100 takes them all, +inf and the largest finite
    // values; smallest mode takes -inf and the lowest values first.
    for algo in cpu_algos() {
        check_select16(&c, 1, m, &bits, algo, 2100, false);
        check_select16(&c, 1, m, &bits, algo, 40_000, true);
    }
    // bisect's iteration counts on a <f2 input: an <i8 (N,) output, as for <f4.
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "bisect", "-k", "2100", "--iterations", &it]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (shape, counts) = read_i64(&c.path("IT.npy"));
    let row: Vec<topk_ref::f16> = bits.iter().map(|&b| topk_ref::f16::from_bits(b)).collect();
    let x = ndarray::ArrayView2::from_shape((1, m), &row).unwrap();
    let want = topk_ref::topk_rows(&topk_ref::Bisect::exact(), x, 2100, Default::default())
        .unwrap()
        .iterations
        .unwrap();
    assert_eq!((shape, counts), (vec![1], vec![i64::from(want[0])]));
    assert!(want[0] >= 1);
}

#[test]
fn f16_input_to_the_gpu_without_a_driver_exits_with_its_error_and_writes_nothing() {
    let c = Case::new();
    write_f16(&c.path("X.npy"), 2, 3, &[0x3c00, 0x4000, 0x7e00, 0, 0x8000, 0xfc00]);
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "cuda", "-k", "2", "--iterations", &it]);
    if out.status.success() {
        // a GPU here: the counts are written, one per row
        assert!(c.path("IT.npy").exists(), "{}", stderr(&out));
    } else {
        // no GPU here: the driver's absence, never a refusal of the type
        assert!(!stderr(&out).contains("does not take float16"), "{}", stderr(&out));
        assert!(!c.path("IT.npy").exists(), "nothing written");
    }
    // `stats iterations` reads the same file in its own type (tests/cli_dtype16.rs).
    let x = c.p("X.npy");
    let out = rtopk(&["stats", "iterations", "--input", &x, "-k", "1", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(r#""dtype":"float16""#), "{}", stdout(&out));
}
