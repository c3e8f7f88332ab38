//! `rtopk select --recall R` (docs/contract.md §6): an answer of k distinct valid indices whose
//! recall against the exact top k is at least R on every row, R = 1 byte for byte the exact
//! output, and every bad target or conflict refused with exit 2.

use crate::common;

use std::collections::HashSet;
use std::fs;

use common::*;

const N: usize = 6;
const M: usize = 700;
const K: usize = 50;

/// `N` rows of `M` values: pseudo-random rows, one sorted ascending (bisection's worst order
/// for index-order filling), one with heavy ties.
fn matrix() -> Vec<f32> {
    let mut state = 0x2545_f491_u64;
    let mut next = || {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
    };
    let mut data: Vec<f32> = (0..N * M).map(|_| next() + next() + next()).collect();
    data[M..2 * M].sort_by(f32::total_cmp);
    for v in &mut data[2 * M..3 * M] {
        *v = (*v * 4.0).round();
    }
    data
}

/// Runs `select` with `extra` into `tag`-named outputs; returns (values bits, indices,
/// iterations).
fn run(c: &Case, tag: &str, extra: &[&str]) -> (Vec<u32>, Vec<i64>, Vec<i64>) {
    let (x, v, i, it) = (
        c.p("X.npy"),
        c.p(&format!("V{tag}.npy")),
        c.p(&format!("I{tag}.npy")),
        c.p(&format!("IT{tag}.npy")),
    );
    let mut args =
        vec!["select", "--input", &x, "--values", &v, "--indices", &i, "--iterations", &it];
    args.extend_from_slice(extra);
    let out = rtopk(&args);
    assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
    let (shape, values) = read_values(&c.path(&format!("V{tag}.npy")));
    assert_eq!(shape, [N as u64, K as u64]);
    (
        values,
        read_i64(&c.path(&format!("I{tag}.npy"))).1,
        read_i64(&c.path(&format!("IT{tag}.npy"))).1,
    )
}

#[test]
fn a_recall_target_gives_a_valid_answer_of_at_least_that_recall() {
    let data = matrix();
    let c = Case::with_matrix(N, M, &data);
    let k = K.to_string();
    for smallest in [false, true] {
        let mode: &[&str] = if smallest { &["--smallest"] } else { &[] };
        let exact = run(&c, "e", &[&["--algo", "bisect", "-k", &k], mode].concat());
        for r in ["0.8", "0.9", "0.95", "0.99"] {
            let need = (r.parse::<f64>().unwrap() * K as f64).ceil() as usize;
            for algo in ["bisect", "auto"] {
                let got =
                    run(&c, "r", &[&["--algo", algo, "-k", &k, "--recall", r], mode].concat());
                for row in 0..N {
                    let span = row * K..(row + 1) * K;
                    let chosen: HashSet<i64> = got.1[span.clone()].iter().copied().collect();
                    assert_eq!(chosen.len(), K, "r={r} row {row}: distinct");
                    for j in span.clone() {
                        let i = got.1[j];
                        assert!((0..M as i64).contains(&i), "r={r} row {row}: {i}");
                        assert_eq!(got.0[j], data[row * M + i as usize].to_bits(), "input bits");
                    }
                    let hits = exact.1[span].iter().filter(|i| chosen.contains(i)).count();
                    assert!(hits >= need, "r={r} row {row} smallest={smallest}: {hits} < {need}");
                    assert!(got.2[row] <= exact.2[row], "r={r} row {row}: iterations");
                }
            }
        }
    }
}

#[test]
fn recall_one_is_the_exact_output_byte_for_byte() {
    let c = Case::with_matrix(N, M, &matrix());
    let k = K.to_string();
    run(&c, "e", &["--algo", "bisect", "-k", &k, "--sorted"]);
    run(&c, "1", &["--algo", "bisect", "-k", &k, "--sorted", "--recall", "1"]);
    for name in ["V", "I", "IT"] {
        let (a, b) =
            (fs::read(c.path(&format!("{name}e.npy"))), fs::read(c.path(&format!("{name}1.npy"))));
        assert_eq!(a.unwrap(), b.unwrap(), "{name}");
    }
}

#[test]
fn bad_targets_and_conflicts_exit_2() {
    let c = Case::with_matrix(N, M, &matrix());
    let cases: [(&[&str], &[&str]); 8] = [
        (&["--recall", "0"], &["recall 0 ", "0 < r <= 1"]),
        (&["--recall", "1.5"], &["recall 1.5 "]),
        (&["--recall", "nan"], &["recall nan "]),
        (&["--recall", "-0.5"], &["recall -0.5 "]),
        (&["--recall", "x"], &["recall x "]),
        (
            &["--recall", "0.9", "--max-iter", "3"],
            &["--recall", "--max-iter", "cannot be combined"],
        ),
        (
            &["--recall", "0.9", "--precision", "0.1"],
            &["--recall", "--precision", "cannot be combined"],
        ),
        (&["--recall", "0.9", "--algo", "heap"], &["--recall", "heap", "bisect, sim and cuda"]),
    ];
    for (extra, needles) in cases {
        let mut args = vec!["-k", "5"];
        if !extra.contains(&"--algo") {
            args.extend(["--algo", "bisect"]);
        }
        args.extend_from_slice(extra);
        let out = c.select(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{extra:?}: {needle:?} not in {err}");
        }
        assert!(!c.path("I.npy").exists() && !c.path("V.npy").exists(), "{extra:?}: no output");
    }
}
