//! End-to-end tests of the simulator on 16-bit input: `select --algo sim` on a
//! `<f2` file is `select --algo bisect` on it, byte for byte (`<f2` values, indices, iteration
//! counts), in every mode and family; `trace` reads a row of a `<f2` file and runs the f16
//! kernels.

use crate::common;

use std::fs;

use common::{Case, rtopk, stderr, stdout, write_f16};

/// `n · m` f16 bit patterns: NaNs of both signs with payloads, ±inf, ±0, subnormals of both
/// signs, ±largest, heavy ties at 1.0, and ordinary values from an LCG.
fn hostile_f16(n: usize, m: usize, seed: u64) -> Vec<u16> {
    let specials =
        [0x7e00, 0xfe01, 0x7c01, 0xfd55, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff];
    let mut state = seed;
    (0..n * m)
        .map(|i| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = (state >> 33) as u16;
            match r % 8 {
                0 => specials[i % specials.len()],
                1 | 2 => 0x3c00,
                _ => r & 0xfbff, // any finite pattern
            }
        })
        .collect()
}

/// `select` with `algo` and `extra` on the case's `X.npy`: the bytes of its values, indices
/// and iteration counts.
fn select_files(c: &Case, algo: &str, k: &str, extra: &[&str]) -> [Vec<u8>; 3] {
    let (x, v, i, it) = (c.p("X.npy"), c.p("V.npy"), c.p("I.npy"), c.p("IT.npy"));
    let mut args = vec!["select", "--algo", algo, "-k", k, "--input", &x];
    args.extend(["--values", &v, "--indices", &i, "--iterations", &it]);
    args.extend(extra);
    let out = rtopk(&args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    [v, i, it].map(|p| fs::read(p).unwrap())
}

#[test]
fn select_sim_on_f2_input_equals_bisect_byte_for_byte() {
    // M = 45: quarter- and half-warp rows; 300: whole-warp rows that narrow; 2500: block rows.
    for (n, m, ks) in
        [(9, 45, ["1", "7", "45"]), (3, 300, ["1", "20", "299"]), (2, 2500, ["1", "300", "2500"])]
    {
        let c = Case::new();
        write_f16(&c.path("X.npy"), n, m, &hostile_f16(n, m, m as u64));
        let modes: [&[&str]; 4] = [&[], &["--smallest"], &["--sorted"], &["--max-iter", "5"]];
        for extra in modes {
            for k in ks {
                let bisect = select_files(&c, "bisect", k, extra);
                let sim = select_files(&c, "sim", k, extra);
                assert_eq!(sim, bisect, "M = {m}, k = {k}, {extra:?}");
                assert!(String::from_utf8_lossy(&sim[0]).contains("'descr': '<f2'"));
            }
        }
    }
}

#[test]
fn trace_reads_a_row_of_an_f2_file() {
    let c = Case::new();
    write_f16(&c.path("X.npy"), 3, 300, &hostile_f16(3, 300, 5));
    let (x, svg) = (c.p("X.npy"), c.p("t.svg"));
    let out = rtopk(&["trace", "--input", &x, "--row", "2", "-k", "20", "--svg", &svg]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("row 2: M = 300, k = 20, f16"), "{text}");
    for part in ["rtopk_half_rows_24_f16", "two per register", "search_threshold", "output"] {
        assert!(text.contains(part), "missing {part}:\n{text}");
    }
    assert!(!text.contains("diagnostic"), "{text}");
    assert!(fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // A row past the file's is refused (exit 2), as for a <f4 file.
    let out = rtopk(&["trace", "--input", &x, "--row", "3", "-k", "2"]);
    assert_eq!(out.status.code(), Some(2), "row 3 of 3 rows");
    assert!(stderr(&out).contains("--row 3 does not exist"), "{}", stderr(&out));
}
