//! Helpers shared by the command line's end-to-end tests: running the binary, writing and
//! reading `.npy` files, temporary directories.

use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use npyz::{NpyFile, WriteOptions, WriterBuilder};
use tempfile::TempDir;

/// The reference algorithms of docs/contract.md §4.
pub(crate) const ALGOS: [&str; 6] = ["heap", "quickselect", "radix", "bucket", "bitonic", "bisect"];

/// The baselines of docs/contract.md §4.
pub(crate) const BASELINES: [&str; 6] =
    ["air", "gridselect", "warpselect", "drtopk", "torch-radix", "sort"];

/// The `rtopk` binary under test, ready for arguments.
pub(crate) fn rtopk_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rtopk"))
}

/// Runs `rtopk` with `args` to completion.
pub(crate) fn rtopk(args: &[&str]) -> Output {
    rtopk_command().args(args).output().expect("run rtopk")
}

/// Runs `rtopk` with the words of `line` (options and values without white space) followed
/// by `tail` (paths, taken whole).
pub(crate) fn rtopk_line(line: &str, tail: &[&str]) -> Output {
    let mut args: Vec<&str> = line.split_whitespace().collect();
    args.extend_from_slice(tail);
    rtopk(&args)
}

/// `rtopk select --algo heap -k K` from `input` into `values` and `indices`.
pub(crate) fn heap_select(k: &str, input: &str, values: &str, indices: &str) -> Output {
    let paths = ["--input", input, "--values", values, "--indices", indices];
    rtopk_line(&format!("select --algo heap -k {k}"), &paths)
}

/// Runs `rtopk` with `args` in the directory `dir` (for relative paths).
pub(crate) fn rtopk_in(dir: &Path, args: &[&str]) -> Output {
    rtopk_command().current_dir(dir).args(args).output().expect("run rtopk")
}

/// The captured stderr as text.
pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The captured stdout as text.
pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts that `rtopk args` exits with `code` and says `needle` on stderr.
pub(crate) fn fails_with(args: &[&str], code: i32, needle: &str) {
    let out = rtopk(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: '{err}' does not mention '{needle}'");
}

/// Asserts that `rtopk BASE EXTRA` exits 2 and says `needle`, for each `(EXTRA, needle)` of
/// `cases` (the command lines as words).
pub(crate) fn usage_errors(base: &str, cases: &[(&str, &str)]) {
    for (extra, needle) in cases {
        let line = format!("{base} {extra}");
        fails_with(&line.split_whitespace().collect::<Vec<_>>(), 2, needle);
    }
}

/// Writes a C-order `<f4` matrix with npyz.
pub(crate) fn write_f32(path: &Path, n: usize, m: usize, data: &[f32]) {
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
pub(crate) fn raw_npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
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

/// Writes a C-order `<f2` matrix of the f16 bit patterns `bits` (a raw file: npyz has no f16
/// here).
pub(crate) fn write_f16(path: &Path, n: usize, m: usize, bits: &[u16]) {
    assert_eq!(bits.len(), n * m);
    let data: Vec<u8> = bits.iter().flat_map(|b| b.to_le_bytes()).collect();
    fs::write(path, raw_npy("<f2", false, &format!("({n}, {m})"), &data)).unwrap();
}

/// A `<f2` output's shape and value bits (the data is the file's last `2 · N · k` bytes).
pub(crate) fn read_values16(path: &Path) -> (Vec<u64>, Vec<u16>) {
    let (dtype, shape, _) = read_header(path);
    assert_eq!(dtype, "<f2");
    let bytes = fs::read(path).unwrap();
    let count = shape.iter().product::<u64>() as usize;
    let data = &bytes[bytes.len() - 2 * count..];
    (shape, data.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect())
}

/// Little-endian bytes of float32 values.
pub(crate) fn f32_bytes(vals: &[f32]) -> Vec<u8> {
    vals.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The dtype string, shape and reader of an output.
pub(crate) fn read_header(path: &Path) -> (String, Vec<u64>, NpyFile<File>) {
    let npy = NpyFile::new(File::open(path).unwrap()).unwrap();
    let dtype = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => other.descr(),
    };
    assert_eq!(npy.order(), npyz::Order::C);
    (dtype, npy.shape().to_vec(), npy)
}

/// A `<f4` output's shape and value bits.
pub(crate) fn read_values(path: &Path) -> (Vec<u64>, Vec<u32>) {
    let (dtype, shape, npy) = read_header(path);
    assert_eq!(dtype, "<f4");
    let v: Vec<f32> = npy.into_vec().unwrap();
    (shape, v.iter().map(|x| x.to_bits()).collect())
}

/// An `<i8` output's shape and values.
pub(crate) fn read_i64(path: &Path) -> (Vec<u64>, Vec<i64>) {
    let (dtype, shape, npy) = read_header(path);
    assert_eq!(dtype, "<i8");
    (shape, npy.into_vec().unwrap())
}

/// A temp dir holding `X.npy`, with output paths next to it.
pub(crate) struct Case {
    pub(crate) dir: TempDir,
}

impl Case {
    /// An empty temp dir.
    pub(crate) fn new() -> Self {
        Case { dir: tempfile::tempdir().unwrap() }
    }

    /// `name` inside the dir.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `name` inside the dir, as a string argument.
    pub(crate) fn p(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }

    /// A dir with `X.npy` holding the `(n, m)` matrix `data`.
    pub(crate) fn with_matrix(n: usize, m: usize, data: &[f32]) -> Self {
        let c = Case::new();
        write_f32(&c.path("X.npy"), n, m, data);
        c
    }

    /// A dir with `X.npy` holding `bytes`.
    pub(crate) fn with_bytes(bytes: &[u8]) -> Self {
        let c = Case::new();
        fs::write(c.path("X.npy"), bytes).unwrap();
        c
    }

    /// `select` with the standard paths (`X.npy` in, `V.npy` and `I.npy` out) plus `extra`.
    pub(crate) fn select(&self, extra: &[&str]) -> Output {
        let (x, v, i) = (self.p("X.npy"), self.p("V.npy"), self.p("I.npy"));
        let mut args = vec!["select", "--input", &x, "--values", &v, "--indices", &i];
        args.extend_from_slice(extra);
        rtopk(&args)
    }

    /// `select` run inside the dir with exactly `args` after `select`.
    pub(crate) fn select_here(&self, args: &[&str]) -> Output {
        let mut all = vec!["select"];
        all.extend_from_slice(args);
        rtopk_in(self.dir.path(), &all)
    }

    /// `select` run inside the dir with `args` then `outputs`, which must exit 2: its stderr.
    pub(crate) fn refused_here(&self, args: &[&str], outputs: &[&str]) -> String {
        let out = self.select_here(&[args, outputs].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{outputs:?}: {err}");
        err
    }

    /// File names in the dir (hidden ones included), sorted.
    pub(crate) fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// Runs an external tool (`mknod`, `mkfifo`, ...); `Err` with its message when it fails, so
/// that a test can skip, visibly, where the system does not permit it.
pub(crate) fn tool(program: &str, args: &[&str]) -> Result<(), String> {
    match Command::new(program).args(args).output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!("{program} {args:?}: {}", stderr(&out).trim())),
        Err(e) => Err(format!("{program}: {e}")),
    }
}

/// Prints why a test did not run its check, so a skip is never silent: straight to the
/// process's stderr, which the test harness does not capture (`eprintln!` it would).
pub(crate) fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// `rtopk stats iterations --json` with `args`: its one JSON object (the run must succeed).
pub(crate) fn stats_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["stats", "iterations", "--json"];
    all.extend_from_slice(args);
    let out = rtopk(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}
