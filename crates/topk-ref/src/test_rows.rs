//! Fixtures shared by the algorithms' unit tests: shaped rows, a row of every special value,
//! and oracle checks over many k.

use crate::algorithm::RowTopK;
use crate::driver::{Options, topk_row};
use crate::oracle::canonical_indices;
use crate::order::Mode;

/// Both modes.
pub(crate) const MODES: [Mode; 2] = [Mode::Largest, Mode::Smallest];

/// Deterministic pseudo-random values in [-1, 1) with some repeats (a 64-bit LCG).
pub(crate) fn noise(m: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..m)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) % 4096) as f32 / 2048.0 - 1.0
        })
        .collect()
}

/// Rows that break naive partitioning and selection: sorted, reversed, all equal, organ
/// pipe, sawtooth, noise.
pub(crate) fn shaped_rows(m: usize) -> Vec<(&'static str, Vec<f32>)> {
    let half = m as f32 / 2.0;
    vec![
        ("sorted", (0..m).map(|i| i as f32).collect()),
        ("reversed", (0..m).map(|i| (m - i) as f32).collect()),
        ("all-equal", vec![0.25; m]),
        ("organ-pipe", (0..m).map(|i| half - (i as f32 - half).abs()).collect()),
        ("sawtooth", (0..m).map(|i| (i % 37) as f32).collect()),
        ("noise", noise(m, 7)),
    ]
}

/// Every special value of docs/contract.md §1 at least once: NaNs of both signs with payloads, ±inf,
/// ±0.0 (twice), subnormals of both signs, ±FLT_MAX, the smallest normal, ties.
pub(crate) fn special_row() -> Vec<f32> {
    vec![
        f32::NAN,
        1.0,
        f32::INFINITY,
        -0.0,
        f32::NEG_INFINITY,
        f32::from_bits(1),
        0.0,
        -f32::from_bits(1),
        f32::MAX,
        -f32::NAN,
        -f32::MAX,
        f32::from_bits(0x7f80_0001),
        f32::MIN_POSITIVE,
        -1.0,
        f32::from_bits(0x007f_ffff),
        f32::from_bits(0xffc0_1234),
        -0.0,
        1.0,
    ]
}

/// `algo` equals the oracle for `k`, in `mode`.
pub(crate) fn assert_oracle(algo: &dyn RowTopK, row: &[f32], k: usize, mode: Mode, what: &str) {
    let got = topk_row(algo, row, k, Options { mode, sorted: false }).unwrap().indices;
    assert_eq!(got, canonical_indices(row, k, mode), "{} {what} k={k} {mode:?}", algo.name());
}

/// `algo` equals the oracle for every k from 1 to M, both modes.
pub(crate) fn assert_all_k(algo: &dyn RowTopK, row: &[f32]) {
    for mode in MODES {
        for k in 1..=row.len() {
            assert_oracle(algo, row, k, mode, "");
        }
    }
}

/// `algo` equals the oracle on every [`shaped_rows`] of width `m` for each of `ks` (clamped
/// to 1..=m), both modes.
pub(crate) fn assert_shaped_rows(algo: &dyn RowTopK, m: usize, ks: &[usize]) {
    for (name, row) in shaped_rows(m) {
        for &k in ks.iter().filter(|&&k| (1..=m).contains(&k)) {
            for mode in MODES {
                assert_oracle(algo, &row, k, mode, name);
            }
        }
    }
}
