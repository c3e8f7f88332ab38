//! End-to-end tests of ragged selections (docs/contract.md §5) on the command line:
//! `--k-per-row`, `--lengths`, `--hint` and `--threshold` against the ragged oracle (indices
//! with -1 for padding, value bits with all-bits-zero padding, thresholds bit for bit), rows
//! of length 0, k above the length, NaN past the length never selected; bad per-row files and
//! conflicting arguments exit 2 with nothing written; the threshold output under the
//! never-clobber rules.

use crate::common;

use std::fs;

use common::*;
use ndarray::Array2;
use topk_ref::oracle::canonical_ragged;
use topk_ref::{KPerRow, Mode, Options, PAD_INDEX, RaggedTopK, Rows};

const N: usize = 7;
const M: usize = 37;

/// Rows with NaN payloads of both signs, ±inf, ±0, subnormals and ties; NaN and +inf past
/// each row's length (so that reading past it would change the answer).
fn matrix(lengths: &[usize]) -> Vec<f32> {
    let specials =
        [f32::from_bits(0x7fc0_1234), -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-40, 2.0];
    let mut x: Vec<f32> = (0..N * M)
        .map(|i| if i % 5 == 0 { specials[i % 7] } else { ((i * 31) % 13) as f32 - 6.0 })
        .collect();
    for (r, &len) in lengths.iter().enumerate() {
        for c in len..M {
            x[r * M + c] = if c % 2 == 0 { f32::from_bits(0xffc0_0001) } else { f32::INFINITY };
        }
    }
    x
}

const LENGTHS: [usize; N] = [37, 0, 10, 3, 36, 20, 1];
const KS: [usize; N] = [5, 4, 10, 7, 0, 37, 2];

/// A 1-D integer `.npy` of `descr` (`<i4`, `|u1`, ...) holding `values`.
fn write_ints(path: &std::path::Path, descr: &str, size: usize, values: &[i64]) {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()[..size].to_vec()).collect();
    fs::write(path, raw_npy(descr, false, &format!("({},)", values.len()), &data)).unwrap();
}

/// A 1-D `<f4` `.npy` holding `values`.
fn write_f32s(path: &std::path::Path, values: &[f32]) {
    let shape = format!("({},)", values.len());
    fs::write(path, raw_npy("<f4", false, &shape, &f32_bytes(values))).unwrap();
}

fn oracle(x: &[f32], k: KPerRow<'_>, opts: Options) -> RaggedTopK {
    let x = Array2::from_shape_vec((N, M), x.to_vec()).unwrap();
    let rows = Rows { lengths: Some(&LENGTHS), k, hint: None };
    canonical_ragged(x.view(), &rows, opts).unwrap()
}

/// The outputs in `c` equal the oracle's answer: I.npy (int64, -1 padding), V.npy (value
/// bits, zero padding), T.npy (threshold bits).
fn assert_oracle(c: &Case, want: &RaggedTopK, what: &str) {
    let width = want.indices.ncols() as u64;
    let (ishape, idx) = read_i64(&c.path("I.npy"));
    assert_eq!(ishape, [N as u64, width], "{what}");
    let want_idx: Vec<i64> =
        want.indices.iter().map(|&j| if j == PAD_INDEX { -1 } else { i64::from(j) }).collect();
    assert_eq!(idx, want_idx, "{what}: indices");
    let (vshape, vals) = read_values(&c.path("V.npy"));
    assert_eq!(vshape, [N as u64, width], "{what}");
    assert_eq!(vals, want.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "{what}");
    let (tshape, t) = read_values(&c.path("T.npy"));
    assert_eq!(tshape, [N as u64], "{what}");
    let want_t: Vec<u32> = want.threshold.as_ref().unwrap().iter().map(|t| t.to_bits()).collect();
    assert_eq!(t, want_t, "{what}: thresholds");
}

#[test]
fn ragged_selections_match_the_oracle() {
    let x = matrix(&LENGTHS);
    let c = Case::with_matrix(N, M, &x);
    let ks: Vec<i64> = KS.iter().map(|&k| k as i64).collect();
    write_ints(&c.path("K.npy"), "<i4", 4, &ks);
    let lengths: Vec<i64> = LENGTHS.iter().map(|&l| l as i64).collect();
    write_ints(&c.path("L.npy"), "<u2", 2, &lengths);
    let hints = [f32::NAN, 1.0, f32::INFINITY, -3.0, 0.0, f32::NEG_INFINITY, 1e30];
    write_f32s(&c.path("H.npy"), &hints);
    let (k, l, h, t, it) = (c.p("K.npy"), c.p("L.npy"), c.p("H.npy"), c.p("T.npy"), c.p("IT.npy"));
    let algos = ["bisect", "heap", "quickselect", "radix", "bucket", "bitonic", "air", "sort"];
    for flags in [&[][..], &["--smallest", "--sorted"], &["--sorted"]] {
        let opts = Options {
            mode: Mode::from_smallest(flags.contains(&"--smallest")),
            sorted: flags.contains(&"--sorted"),
        };
        let per_row = oracle(&x, KPerRow::PerRow(&KS), opts);
        let one = oracle(&x, KPerRow::One(4), opts);
        for algo in algos {
            for with_hint in [false, true] {
                let mut args = vec!["--algo", algo, "--k-per-row", &k, "--lengths", &l];
                args.extend(["--threshold", &t]);
                args.extend_from_slice(flags);
                if with_hint {
                    args.extend(["--hint", &h]);
                }
                let out = c.select(&args);
                assert!(out.status.success(), "{algo} {flags:?}: {}", stderr(&out));
                assert_oracle(&c, &per_row, &format!("{algo} {flags:?} hint {with_hint}"));
            }
            let args = ["--algo", algo, "-k", "4", "--lengths", &l, "--threshold", &t];
            let out = c.select(&[&args[..], flags].concat());
            assert!(out.status.success(), "{algo} {flags:?}: {}", stderr(&out));
            assert_oracle(&c, &one, &format!("{algo} {flags:?} -k 4"));
        }
        // bisect's iteration counts: 0 for the rows that select nothing (length 0, k 0)
        let args = ["--algo", "bisect", "--k-per-row", &k, "--lengths", &l, "--iterations", &it];
        let out = c.select(&[&args[..], &["--threshold", &t, "--hint", &h], flags].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let (shape, counts) = read_i64(&c.path("IT.npy"));
        assert_eq!(shape, [N as u64]);
        assert_eq!((counts[1], counts[4]), (0, 0));
        assert!(counts[0] > 0, "row 0 searches");
    }
}

#[test]
fn hand_checked_padding_and_lengths() {
    // Row 0: length 3 of [5, 1, 9, NaN], k 2; row 1: length 0, k 1; row 2: length 2, k 4.
    let x = [5.0, 1.0, 9.0, f32::NAN, 7.0, 7.0, 7.0, 7.0, -0.0, 3.0, f32::NAN, f32::NAN];
    let c = Case::with_matrix(3, 4, &x);
    write_ints(&c.path("K.npy"), "<i8", 8, &[2, 1, 4]);
    write_ints(&c.path("L.npy"), "|u1", 1, &[3, 0, 2]);
    let (k, l, t) = (c.p("K.npy"), c.p("L.npy"), c.p("T.npy"));
    let out = c.select(&["--algo", "heap", "--k-per-row", &k, "--lengths", &l, "--threshold", &t]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (shape, idx) = read_i64(&c.path("I.npy"));
    assert_eq!(shape, [3, 4]);
    assert_eq!(idx, [0, 2, -1, -1, -1, -1, -1, -1, 0, 1, -1, -1]);
    let (_, vals) = read_values(&c.path("V.npy"));
    let want = [5.0f32, 9.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, 3.0, 0.0, 0.0];
    assert_eq!(vals, want.map(f32::to_bits), "padding is +0.0, a selected -0.0 stays -0.0");
    let (_, t) = read_values(&c.path("T.npy"));
    assert_eq!(t[0], 5.0f32.to_bits());
    assert!(f32::from_bits(t[1]).is_nan());
    assert_eq!(t[2], (-0.0f32).to_bits());
}

#[test]
fn float16_ragged_values_pad_with_zero_bits() {
    let c = Case::new();
    // f16: [1.0, 2.0, NaN] with length 2 and k 3
    write_f16(&c.path("X.npy"), 1, 3, &[0x3c00, 0x4000, 0x7e00]);
    write_ints(&c.path("L.npy"), "<i8", 8, &[2]);
    let (l, t) = (c.p("L.npy"), c.p("T.npy"));
    let out = c.select(&["--algo", "radix", "-k", "3", "--lengths", &l, "--threshold", &t]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read_values16(&c.path("V.npy")), (vec![1, 3], vec![0x3c00, 0x4000, 0]));
    assert_eq!(read_i64(&c.path("I.npy")).1, [0, 1, -1]);
    assert_eq!(read_values(&c.path("T.npy")).1, [1.0f32.to_bits()]);
}

#[test]
fn the_threshold_alone_comes_from_every_algorithm() {
    let x = matrix(&[M; N]);
    let c = Case::with_matrix(N, M, &x);
    let t = c.p("T.npy");
    let xs = Array2::from_shape_vec((N, M), x).unwrap();
    let want = canonical_ragged(xs.view(), &Rows::new(6), Options::default()).unwrap();
    let want: Vec<u32> = want.threshold.unwrap().iter().map(|t| t.to_bits()).collect();
    for algo in ["sim", "bisect", "warpselect", "torch-radix"] {
        let out = c.select(&["--algo", algo, "-k", "6", "--threshold", &t]);
        assert!(out.status.success(), "{algo}: {}", stderr(&out));
        assert_eq!(read_values(&c.path("T.npy")).1, want, "{algo}");
    }
    // the threshold alone is an output: nothing else is needed
    let x = c.p("X.npy");
    let out = rtopk(&["select", "--algo", "heap", "-k", "0", "--input", &x, "--threshold", &t]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (shape, t) = read_values(&c.path("T.npy"));
    assert_eq!(shape, [N as u64]);
    assert!(t.iter().all(|&b| f32::from_bits(b).is_nan()), "k = 0 selects nothing");
}

/// Refused with exit 2, a message containing every needle, and no new file in the dir.
fn refused(c: &Case, args: &[&str], needles: &[&str]) {
    let before = c.files();
    let out = c.select(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: '{err}' does not mention '{needle}'");
    }
    assert_eq!(c.files(), before, "{args:?} left files");
}

#[test]
fn bad_per_row_files_and_arguments_exit_2() {
    let c = Case::with_matrix(N, M, &matrix(&[M; N]));
    let p = |name: &str| c.p(name);
    write_ints(&c.path("short.npy"), "<i8", 8, &[1; N - 1]);
    write_ints(&c.path("neg.npy"), "<i4", 4, &[1, 2, 3, -1, 0, 0, 0]);
    write_ints(&c.path("big.npy"), "<i8", 8, &[1, 2, 3, 38, 0, 0, 0]);
    write_ints(&c.path("ok.npy"), "<i8", 8, &[1; N]);
    write_ints(&c.path("be.npy"), ">i8", 8, &[1; N]);
    write_f32s(&c.path("f.npy"), &[1.0; N]);
    fs::write(c.path("m.npy"), raw_npy("<i8", false, &format!("({N}, 1)"), &[0; 8 * N])).unwrap();
    fs::write(c.path("cut.npy"), raw_npy("<i8", false, &format!("({N},)"), &[0; 8 * N - 3]))
        .unwrap();
    fs::write(c.path("junk.npy"), b"not numpy").unwrap();
    let (short, neg, big, ok, be, f, m, cut, junk) = (
        p("short.npy"),
        p("neg.npy"),
        p("big.npy"),
        p("ok.npy"),
        p("be.npy"),
        p("f.npy"),
        p("m.npy"),
        p("cut.npy"),
        p("junk.npy"),
    );
    let heap = ["--algo", "heap"];
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["--k-per-row", &short], vec!["--k-per-row", "(7,)", "(6,)"]),
        (vec!["--k-per-row", &neg], vec!["--k-per-row", "[3]", "-1"]),
        (vec!["--k-per-row", &big], vec!["big.npy: k[3] = 38", "M = 37"]),
        (vec!["--k-per-row", &f], vec!["--k-per-row", "integer dtype", "<f4"]),
        (vec!["--k-per-row", &be], vec![">i8"]),
        (vec!["--k-per-row", &m], vec!["(7, 1)"]),
        (vec!["--k-per-row", &cut], vec!["truncated"]),
        (vec!["--k-per-row", &junk], vec!["not an .npy file"]),
        (vec!["--k-per-row", "missing.npy"], vec!["missing.npy"]),
        (vec!["-k", "1", "--lengths", &big], vec!["big.npy: lengths[3] = 38"]),
        (vec!["-k", "1", "--lengths", &neg], vec!["--lengths", "-1"]),
        (vec!["-k", "1", "--lengths", &short], vec!["--lengths", "(6,)"]),
        (vec!["-k", "1", "--hint", &ok], vec!["--hint", "<f4", "<i8"]),
        (vec!["-k", "1", "--hint", &m], vec!["--hint"]),
        (vec!["-k", "1", "--k-per-row", &ok], vec!["--k-per-row", "-k"]),
        (vec!["--lengths", &ok], vec!["-k", "--k-per-row"]),
    ];
    for (extra, needles) in cases {
        refused(&c, &[&heap[..], &extra].concat(), &needles);
    }
    // the simulated kernel reads lengths and a k per row too (docs/contract.md §5)
    for args in [
        ["--algo", "sim", "-k", "1", "--lengths", &ok],
        ["--algo", "sim", "--k-per-row", &ok, "--lengths", &ok],
    ] {
        let out = c.select(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn the_threshold_output_obeys_the_never_clobber_rules() {
    let c = Case::with_matrix(N, M, &matrix(&[M; N]));
    write_ints(&c.path("L.npy"), "<i8", 8, &[3; N]);
    let input = fs::read(c.path("X.npy")).unwrap();
    let lengths = fs::read(c.path("L.npy")).unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--threshold", "X.npy"], "is the same file as --input"),
        (&["--threshold", "./X.npy", "--indices", "I.npy"], "is the same file as --input"),
        (&["--lengths", "L.npy", "--threshold", "L.npy"], "is the same file as --lengths"),
        (&["--values", "V.npy", "--threshold", "sub/../V.npy"], "name the same file"),
        (&["--iterations", "T.npy", "--threshold", "T.npy"], "name the same file"),
    ];
    fs::create_dir(c.path("sub")).unwrap();
    for (outputs, needle) in cases {
        let err = c.refused_here(&["--algo", "bisect", "-k", "2", "--input", "X.npy"], outputs);
        assert!(err.contains(needle), "{outputs:?}: {err}");
    }
    assert_eq!(fs::read(c.path("X.npy")).unwrap(), input);
    assert_eq!(fs::read(c.path("L.npy")).unwrap(), lengths);
    assert_eq!(c.files(), ["L.npy", "X.npy", "sub"]);
    // all or nothing: a failing run (a length past M) leaves an earlier threshold as it was
    fs::write(c.path("T.npy"), b"earlier").unwrap();
    write_ints(&c.path("L.npy"), "<i8", 8, &[M as i64 + 1; N]);
    let args = ["--algo", "sim", "-k", "1", "--input", "X.npy", "--lengths", "L.npy"];
    let out = c.select_here(&[&args[..], &["--threshold", "T.npy", "--values", "V.npy"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read(c.path("T.npy")).unwrap(), b"earlier");
    assert_eq!(c.files(), ["L.npy", "T.npy", "X.npy", "sub"]);
}

#[test]
fn the_help_documents_the_ragged_flags() {
    let out = rtopk(&["select", "--help"]);
    let help = stdout(&out);
    for flag in
        ["--k-per-row <K.npy>", "--lengths <L.npy>", "--hint <H.npy>", "--threshold <T.npy>"]
    {
        assert!(help.contains(flag), "{flag} missing from: {help}");
    }
    assert!(help.contains("-1"), "padding documented: {help}");
}
