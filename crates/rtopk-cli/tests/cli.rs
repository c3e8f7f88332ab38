//! End-to-end tests of the `rtopk` binary: hand-checked selections for every algorithm, and
//! every input / argument error of SPEC §4 (exit code 2, a message naming the problem, no
//! output file).

use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use npyz::{NpyFile, WriteOptions, WriterBuilder};
use tempfile::TempDir;

const ALGOS: [&str; 6] = ["heap", "quickselect", "radix", "bucket", "bitonic", "bisect"];

fn rtopk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtopk")).args(args).output().expect("run rtopk")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes a C-order `<f4` matrix with npyz.
fn write_f32(path: &Path, n: usize, m: usize, data: &[f32]) {
    assert_eq!(data.len(), n * m);
    let mut w = WriteOptions::<f32>::new()
        .default_dtype()
        .shape(&[n as u64, m as u64])
        .writer(BufWriter::new(File::create(path).unwrap()))
        .begin_nd()
        .unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
}

/// A raw version-1.0 `.npy` file with the given header fields and data bytes.
fn raw_npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let fortran = if fortran { "True" } else { "False" };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
            .into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(data);
    out
}

fn f32_bytes(vals: &[f32]) -> Vec<u8> {
    vals.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The dtype string, shape and raw file of an output.
fn read_header(path: &Path) -> (String, Vec<u64>, NpyFile<File>) {
    let npy = NpyFile::new(File::open(path).unwrap()).unwrap();
    let dtype = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => other.descr(),
    };
    assert_eq!(npy.order(), npyz::Order::C);
    (dtype, npy.shape().to_vec(), npy)
}

fn read_values(path: &Path) -> (Vec<u64>, Vec<u32>) {
    let (dtype, shape, npy) = read_header(path);
    assert_eq!(dtype, "<f4");
    let v: Vec<f32> = npy.into_vec().unwrap();
    (shape, v.iter().map(|x| x.to_bits()).collect())
}

fn read_i64(path: &Path) -> (Vec<u64>, Vec<i64>) {
    let (dtype, shape, npy) = read_header(path);
    assert_eq!(dtype, "<i8");
    (shape, npy.into_vec().unwrap())
}

/// A temp dir holding `X.npy`, with output paths next to it.
struct Case {
    dir: TempDir,
}

impl Case {
    fn new() -> Self {
        Case { dir: tempfile::tempdir().unwrap() }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn p(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }
    fn with_matrix(n: usize, m: usize, data: &[f32]) -> Self {
        let c = Case::new();
        write_f32(&c.path("X.npy"), n, m, data);
        c
    }
    fn with_bytes(bytes: &[u8]) -> Self {
        let c = Case::new();
        fs::write(c.path("X.npy"), bytes).unwrap();
        c
    }
    /// `select` with the standard paths plus `extra` arguments.
    fn select(&self, extra: &[&str]) -> Output {
        let (x, v, i) = (self.p("X.npy"), self.p("V.npy"), self.p("I.npy"));
        let mut args = vec!["select", "--input", &x, "--values", &v, "--indices", &i];
        args.extend_from_slice(extra);
        rtopk(&args)
    }
    /// File names in the directory, sorted.
    fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

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
    let cases: [(&str, usize, &str); 4] =
        [("<f8", 8, "<f8"), ("<i4", 4, "<i4"), (">f4", 4, ">f4"), ("<f2", 2, "<f2")];
    for (descr, size, shown) in cases {
        let c = Case::with_bytes(&raw_npy(descr, false, "(2, 3)", &vec![0u8; 6 * size]));
        let out = c.select(&["--algo", "heap", "-k", "1"]);
        assert_refused(&c, &out, &["X.npy", "expected dtype <f4", shown]);
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
    let out = rtopk(&[
        "select",
        "--algo",
        "heap",
        "-k",
        "1",
        "--input",
        &x,
        "--values",
        &v,
        "--indices",
        &v,
    ]);
    assert_refused(&c, &out, &["same file"]);
}

#[test]
fn unwritable_output_exits_1_and_leaves_nothing() {
    let c = good_case();
    let x = c.p("X.npy");
    let v = c.p("V.npy");
    let i = c.p("missing-dir/I.npy");
    let out = rtopk(&[
        "select",
        "--algo",
        "heap",
        "-k",
        "1",
        "--input",
        &x,
        "--values",
        &v,
        "--indices",
        &i,
    ]);
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
    if rtopk_cuda::check_libraries().is_err() {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "stderr: {err}");
        assert!(err.starts_with("error: no CUDA driver found"), "stderr: {err}");
        assert_eq!(c.files(), vec!["X.npy".to_string()]);
    } else {
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(read_i64(&c.path("I.npy")), (vec![2, 2], vec![1, 2, 1, 2]));
    }
}
