//! Fixtures shared by the algorithms' unit tests: shaped rows, a row of every special value,
//! and oracle checks over many k.

use crate::algorithm::Scratch;
use crate::driver::{Options, topk_row};
use crate::oracle::canonical_indices;
use crate::order::{Mode, RowTopK};

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

/// `algo`'s selection of `k` in `row`, in index order.
pub(crate) fn unsorted(algo: &dyn RowTopK, row: &[f32], k: usize, mode: Mode) -> Vec<u32> {
    topk_row(algo, row, k, Options { mode, sorted: false }).unwrap().indices
}

/// `algo` equals the oracle for `k`, in `mode`.
pub(crate) fn assert_oracle(algo: &dyn RowTopK, row: &[f32], k: usize, mode: Mode, what: &str) {
    let got = unsorted(algo, row, k, mode);
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

/// `algo` equals the oracle for a few k (1, M and some between), both modes.
pub(crate) fn assert_some_k(algo: &dyn RowTopK, row: &[f32]) {
    let m = row.len();
    for mode in MODES {
        for k in [1, 2, m / 7, m / 3, m / 2, m - 1, m] {
            if (1..=m).contains(&k) {
                assert_oracle(algo, row, k, mode, &format!("m={m}"));
            }
        }
    }
}

/// `algo` equals the oracle on each `(row, k, mode)` in turn, all through one scratch space
/// that the earlier rows left dirty.
pub(crate) fn assert_one_scratch(algo: &dyn RowTopK, cases: &[(Vec<f32>, usize, Mode)]) {
    let mut scratch = Scratch::default();
    for (row, k, mode) in cases {
        let mut out = vec![0; *k];
        algo.select_row(row, *k, *mode, &mut scratch, &mut out);
        let m = row.len();
        assert_eq!(out, canonical_indices(row, *k, *mode), "m={m} k={k} {mode:?}");
    }
}

/// Deterministic pseudo-random bits (a 64-bit LCG), no dependency needed.
pub(crate) fn lcg(seed: &mut u64) -> u32 {
    *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 32) as u32
}

/// Rows of random bits (every class: NaNs, infinities, subnormals, zeros) of the widths
/// 300, 20, 1, 4096 and 64, each with k = ⌈M/3⌉ in both modes: the cases of
/// [`assert_one_scratch`] for algorithms whose buffers depend on the width.
pub(crate) fn widths_for_one_scratch() -> Vec<(Vec<f32>, usize, Mode)> {
    let mut seed = 5;
    let mut cases = Vec::new();
    for m in [300usize, 20, 1, 4096, 64] {
        let row: Vec<f32> = (0..m).map(|_| f32::from_bits(lcg(&mut seed))).collect();
        cases.extend(MODES.map(|mode| (row.clone(), m.div_ceil(3), mode)));
    }
    cases
}

/// Rows of small integers (ties) of widths that are not multiples of 32 (1 to 257).
pub(crate) fn odd_width_rows() -> Vec<Vec<f32>> {
    let mut seed = 3;
    [1, 2, 3, 5, 31, 33, 63, 100, 257]
        .map(|m| (0..m).map(|_| (lcg(&mut seed) % 50) as f32 - 25.0).collect())
        .to_vec()
}

/// Random rows of widths 256 to 4096, four of each width and kind: random bits (every class:
/// NaNs, infinities, subnormals, zeros), smooth data, heavy ties and, with `outlier`, one huge
/// value that squeezes the others together.
pub(crate) fn random_rows(outlier: bool) -> Vec<Vec<f32>> {
    let mut seed = 11;
    let mut rows = Vec::new();
    for m in [256, 768, 1000, 4096] {
        for _ in 0..4 {
            rows.push((0..m).map(|_| f32::from_bits(lcg(&mut seed))).collect());
            let smooth = |s: &mut u64| (lcg(s) as f32 / u32::MAX as f32 - 0.5) * 6.0;
            rows.push((0..m).map(|_| smooth(&mut seed)).collect());
            rows.push((0..m).map(|_| (lcg(&mut seed) % 4) as f32).collect());
            if outlier {
                let mut row: Vec<f32> = (0..m).map(|_| (lcg(&mut seed) % 1000) as f32).collect();
                row[m / 2] = 1.0e30;
                rows.push(row);
            }
        }
    }
    rows
}

/// Hand-checked selections on a row with a tie that straddles k.
pub(crate) fn assert_hand_checked(algo: &dyn RowTopK) {
    let row = [0.5, 4.0, -1.0, 4.0, 3.0, 9.0, 0.0];
    let run = |k, mode| unsorted(algo, &row, k, mode);
    assert_eq!(run(3, Mode::Largest), vec![1, 3, 5]);
    assert_eq!(run(2, Mode::Smallest), vec![2, 6]);
    // The tie at 4.0 straddles k = 2: the lower index wins.
    assert_eq!(run(2, Mode::Largest), vec![1, 5]);
}

/// A short row of special values (NaN of both signs, one with a payload, ±inf, ±0 twice, the
/// smallest subnormals) against the oracle for every k, both modes, and by hand; the row.
pub(crate) fn assert_special_values(algo: &dyn RowTopK) -> Vec<f32> {
    let row = vec![
        -0.0,
        f32::NAN,
        1.0,
        f32::NEG_INFINITY,
        0.0,
        f32::INFINITY,
        f32::from_bits(0xffc0_1234), // a negative NaN with a payload
        -1.0e-45,
        1.0e-45,
        -0.0,
        f32::INFINITY,
    ];
    for k in 1..=row.len() {
        for mode in MODES {
            assert_oracle(algo, &row, k, mode, "");
        }
    }
    let run = |k, mode| unsorted(algo, &row, k, mode);
    assert_eq!(run(3, Mode::Largest), vec![1, 5, 6]);
    assert_eq!(run(2, Mode::Smallest), vec![3, 7]);
    row
}

/// [`noise`] rows of each width in `widths`: every k up to 40 in both modes, and k = M.
pub(crate) fn assert_small_widths(algo: &dyn RowTopK, widths: &[usize]) {
    for &m in widths {
        let row = noise(m, m as u64);
        for k in 1..=m.min(40) {
            assert_oracle(algo, &row, k, Mode::Largest, "");
            assert_oracle(algo, &row, k, Mode::Smallest, "");
        }
        assert_oracle(algo, &row, m, Mode::Largest, "");
    }
}

/// [`noise`] rows of several shapes (k = M among them) in largest mode: cases of
/// [`assert_one_scratch`].
pub(crate) fn noise_shapes() -> Vec<(Vec<f32>, usize, Mode)> {
    [(300, 40), (50, 3), (1000, 1000), (64, 32)]
        .map(|(m, k)| (noise(m, 99 + m as u64), k, Mode::Largest))
        .to_vec()
}
