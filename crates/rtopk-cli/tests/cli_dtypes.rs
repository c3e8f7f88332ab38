//! `rtopk select` on `.npy` matrices of float64 and the integer types (docs/contract.md §1,
//! §4): each dtype read in its own type, the values written back in it (the input's bytes at
//! the canonical indices), `--algo auto` taking it, and the algorithms that do not take a type
//! refusing it with exit 2 and the names of those that do.

mod common;

use std::fs;
use std::path::Path;

use common::*;
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};
use topk_ref::{Element, Mode};

/// A number type of a `.npy` file: its descr and little-endian bytes.
trait Npy: Element {
    const DESCR: &'static str;
    const SIZE: usize;
    fn le_bytes(self) -> Vec<u8>;
    /// Edge values of the type (its ends, 0, -1 where it has it) and a spread of others.
    fn pick(i: usize, r: u64) -> Self;
}

macro_rules! npy_int {
    ($($t:ty => $descr:literal;)*) => {$(
        impl Npy for $t {
            const DESCR: &'static str = $descr;
            const SIZE: usize = size_of::<$t>();
            fn le_bytes(self) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
            fn pick(i: usize, r: u64) -> Self {
                // ends, 0, -1 (or 1), heavy ties at 3, then any bit pattern
                let edges = [<$t>::MIN, <$t>::MAX, 0, (0 as $t).wrapping_sub(1), 3, 3];
                if r % 3 == 0 { edges[i % edges.len()] } else { r as $t }
            }
        }
    )*};
}

npy_int! {
    i8 => "|i1";
    u8 => "|u1";
    i16 => "<i2";
    i32 => "<i4";
    i64 => "<i8";
}

impl Npy for f64 {
    const DESCR: &'static str = "<f8";
    const SIZE: usize = 8;
    fn le_bytes(self) -> Vec<u8> {
        self.to_le_bytes().to_vec()
    }
    fn pick(i: usize, r: u64) -> Self {
        let edges = [
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MIN_POSITIVE / 4.0,
            f64::MAX,
            1.5,
            1.5,
        ];
        if r % 3 == 0 { edges[i % edges.len()] } else { f64::from_bits(r) }
    }
}

/// `n · m` elements of `T`: edge values, heavy ties and pseudo-random bit patterns.
fn matrix<T: Npy>(n: usize, m: usize, seed: u64) -> Vec<T> {
    let mut state = seed;
    (0..n * m)
        .map(|i| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            T::pick(i, state >> 7)
        })
        .collect()
}

/// The descr and data bytes of a `.npy` file written by `rtopk` (format 1.0).
fn descr_and_data(path: &Path) -> (String, Vec<u8>) {
    let bytes = fs::read(path).unwrap();
    let len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let header = String::from_utf8_lossy(&bytes[10..10 + len]).into_owned();
    let start = header.find("'descr': '").unwrap() + 10;
    let descr = header[start..].split('\'').next().unwrap().to_string();
    (descr, bytes[10 + len..].to_vec())
}

/// `select` on an `(n, m)` file of `T` with every CPU algorithm that takes it (and `auto`),
/// each k and order: the canonical indices, the input's bytes as values, in its dtype.
fn round_trips<T: Npy>(algos: &[&str]) {
    let (n, m) = (7, 37);
    let x: Vec<T> = matrix(n, m, 11);
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.le_bytes()).collect();
    let c = Case::with_bytes(&raw_npy(T::DESCR, false, &format!("({n}, {m})"), &bytes));
    for &algo in algos {
        for k in [0, 1, m - 1, m] {
            for extra in [&[][..], &["--smallest"][..], &["--sorted"][..]] {
                let ks = k.to_string();
                let mut args = vec!["--algo", algo, "-k", &ks];
                args.extend_from_slice(extra);
                let out = c.select(&args);
                assert!(out.status.success(), "{algo} {}: {}", T::DESCR, stderr(&out));
                let (descr, values) = descr_and_data(&c.path("V.npy"));
                assert_eq!(descr, T::DESCR, "{algo}");
                let (shape, indices) = read_i64(&c.path("I.npy"));
                assert_eq!(shape, [n as u64, k as u64]);
                let mode =
                    if extra.contains(&"--smallest") { Mode::Smallest } else { Mode::Largest };
                for r in 0..n {
                    let row = &x[r * m..(r + 1) * m];
                    let want = if extra.contains(&"--sorted") {
                        canonical_sorted_indices(row, k, mode)
                    } else {
                        canonical_indices(row, k, mode)
                    };
                    let got: Vec<u32> =
                        indices[r * k..(r + 1) * k].iter().map(|&i| i as u32).collect();
                    assert_eq!(got, want, "{algo} {} row {r} k={k} {extra:?}", T::DESCR);
                    for (j, &i) in want.iter().enumerate() {
                        let at = (r * k + j) * T::SIZE;
                        assert_eq!(values[at..at + T::SIZE], row[i as usize].le_bytes(), "{algo}");
                    }
                }
            }
        }
    }
}

const EVERY_KEY: [&str; 4] = ["auto", "bisect", "heap", "torch-radix"];
const KEY32: [&str; 6] = ["auto", "bisect", "radix", "air", "warpselect", "sort"];
const OTHERS: [&str; 6] = ["bisect", "quickselect", "bucket", "bitonic", "gridselect", "drtopk"];

#[test]
fn every_dtype_round_trips() {
    round_trips::<i8>(&KEY32);
    round_trips::<u8>(&KEY32);
    round_trips::<i16>(&KEY32);
    round_trips::<i32>(&OTHERS);
    round_trips::<i64>(&EVERY_KEY);
    round_trips::<f64>(&EVERY_KEY);
}

/// Iteration counts of integer rows (docs/contract.md §3): at most the type's bits.
#[test]
fn integer_iteration_counts_are_bounded_by_the_width() {
    let (n, m) = (9, 70);
    let x: Vec<i16> = matrix(n, m, 5);
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.le_bytes()).collect();
    let c = Case::with_bytes(&raw_npy("<i2", false, &format!("({n}, {m})"), &bytes));
    let it = c.p("IT.npy");
    let out = c.select(&["--algo", "bisect", "-k", "10", "--iterations", &it]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (shape, counts) = read_i64(&c.path("IT.npy"));
    assert_eq!(shape, [n as u64]);
    assert!(counts.iter().all(|&c| (0..=16).contains(&c)), "{counts:?}");
}

/// The kernel and the 32-bit-key baselines refuse what they do not take: exit 2, the type,
/// the algorithms that take it, and no output left behind.
#[test]
fn algorithms_that_do_not_take_a_type_refuse_it() {
    for (descr, size, algo, takers) in [
        ("<i4", 4, "sim", "heap, quickselect"),
        ("|u1", 1, "cuda", "heap, quickselect"),
        ("<f8", 8, "air", "bisect, torch-radix"),
        ("<i8", 8, "sort", "bisect, torch-radix"),
    ] {
        let c = Case::with_bytes(&raw_npy(descr, false, "(2, 3)", &vec![0u8; 6 * size]));
        let out = c.select(&["--algo", algo, "-k", "1"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{algo} {descr}: {err}");
        assert!(err.contains(&format!("'{algo}' does not take")), "{err}");
        let listed = takers.split(", ").all(|t| err.contains(t));
        assert!(listed, "{algo} {descr}: {err}");
        assert_eq!(c.files(), ["X.npy"]);
    }
}

/// A truncated integer file is refused as such (exit 2), before any output.
#[test]
fn truncated_integer_files_are_refused() {
    let c = Case::with_bytes(&raw_npy("<i8", false, "(2, 3)", &[0u8; 40]));
    let out = c.select(&["--algo", "bisect", "-k", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(c.files(), ["X.npy"]);
}
