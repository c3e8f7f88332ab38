//! The paper's published numbers (paper 003, RTop-K full version), transcribed as data.
//!
//! These are facts from the paper's text: Table 5 (Appendix B, cumulative exit percentages at
//! ε = 0, averages and E(n)), Table 1 (ε = 1e-4, M = 256) and Table 2 (early stopping, M = 256).
//! The earlier conference version (paper 000) prints the same Tables 1 and 2.

/// One (M, k) column of Table 5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperT5Column {
    /// Row width.
    pub m: usize,
    /// k.
    pub k: usize,
    /// `cumulative[i]`: % of rows that exited at iteration ≤ i + 1 (the table stops at 100).
    pub cumulative: &'static [f64],
    /// The "Avg" row.
    pub avg: f64,
    /// The "E(n)" row (eq. 4).
    pub expected_en: f64,
}

/// Table 5: ε = 0, 10^4 repetitions per (M, k).
pub const TABLE5: &[PaperT5Column] = &[
    PaperT5Column {
        m: 256,
        k: 64,
        cumulative: &[
            0.12, 0.17, 1.98, 3.48, 6.88, 13.96, 27.3, 46.47, 66.34, 81.07, 90.11, 95.17, 97.46,
            98.68, 99.46, 99.73, 99.85, 99.96, 99.99, 99.99, 99.99, 99.99, 99.99, 100.0,
        ],
        avg: 8.72,
        expected_en: 9.08,
    },
    PaperT5Column {
        m: 256,
        k: 128,
        cumulative: &[
            1.5, 1.5, 1.62, 2.9, 6.06, 11.64, 23.03, 40.18, 60.57, 76.76, 87.67, 93.48, 96.8,
            98.35, 99.21, 99.56, 99.72, 99.85, 99.93, 99.98, 99.99, 99.99, 99.99, 99.99, 99.99,
            100.0,
        ],
        avg: 9.0,
        expected_en: 9.41,
    },
    PaperT5Column {
        m: 1024,
        k: 64,
        cumulative: &[
            0.0, 1.25, 1.27, 1.93, 4.05, 8.18, 16.09, 30.63, 50.71, 69.08, 82.99, 90.71, 95.19,
            97.59, 98.79, 99.43, 99.71, 99.9, 99.95, 99.97, 99.98, 99.99, 99.99, 100.0,
        ],
        avg: 9.53,
        expected_en: 9.87,
    },
    PaperT5Column {
        m: 1024,
        k: 128,
        cumulative: &[
            0.0, 0.17, 0.5, 1.31, 2.42, 4.49, 9.42, 18.77, 35.21, 55.43, 72.93, 84.79, 91.9, 95.86,
            97.95, 98.89, 99.51, 99.73, 99.84, 99.9, 99.95, 99.96, 99.99, 100.0,
        ],
        avg: 10.31,
        expected_en: 10.62,
    },
    PaperT5Column {
        m: 1024,
        k: 256,
        cumulative: &[
            0.02, 0.02, 0.62, 0.99, 1.67, 3.24, 6.41, 12.7, 24.91, 43.92, 63.57, 78.45, 88.37,
            93.82, 96.87, 98.46, 99.18, 99.62, 99.84, 99.93, 99.97, 99.99, 99.99, 99.99, 100.0,
        ],
        avg: 10.87,
        expected_en: 11.24,
    },
    PaperT5Column {
        m: 1024,
        k: 512,
        cumulative: &[
            0.53, 0.53, 0.54, 0.7, 1.25, 2.64, 5.16, 10.19, 19.69, 35.98, 55.7, 73.32, 85.06,
            92.47, 96.32, 98.06, 99.03, 99.44, 99.67, 99.85, 99.93, 99.95, 99.96, 99.97, 99.99,
            100.0,
        ],
        avg: 11.24,
        expected_en: 11.57,
    },
    PaperT5Column {
        m: 4096,
        k: 64,
        cumulative: &[
            0.0, 0.41, 0.43, 1.54, 2.83, 5.4, 11.13, 21.56, 39.04, 60.23, 76.59, 87.42, 93.42,
            96.48, 98.24, 99.21, 99.59, 99.77, 99.87, 99.95, 99.97, 99.99, 100.0,
        ],
        avg: 10.07,
        expected_en: 10.36,
    },
    PaperT5Column {
        m: 4096,
        k: 128,
        cumulative: &[
            0.0, 0.41, 0.41, 0.63, 1.34, 2.84, 5.99, 12.05, 24.37, 42.59, 62.55, 78.11, 87.9,
            93.18, 96.3, 98.14, 99.02, 99.45, 99.75, 99.87, 99.94, 99.98, 99.98, 100.0,
        ],
        avg: 10.95,
        expected_en: 11.2,
    },
    PaperT5Column {
        m: 4096,
        k: 256,
        cumulative: &[
            0.0, 0.18, 0.2, 0.36, 0.76, 1.64, 3.37, 6.89, 13.69, 26.65, 46.7, 66.36, 81.06, 89.91,
            94.73, 97.35, 98.51, 99.2, 99.64, 99.84, 99.95, 99.98, 100.0,
        ],
        avg: 11.73,
        expected_en: 12.0,
    },
    PaperT5Column {
        m: 4096,
        k: 512,
        cumulative: &[
            0.0, 0.0, 0.08, 0.33, 0.61, 1.06, 2.15, 4.15, 8.23, 16.71, 31.29, 52.28, 70.87, 83.91,
            91.34, 95.39, 97.65, 98.8, 99.38, 99.76, 99.95, 99.97, 99.98, 99.99, 99.99, 99.99,
            100.0,
        ],
        avg: 12.46,
        expected_en: 12.75,
    },
    PaperT5Column {
        m: 8192,
        k: 64,
        cumulative: &[
            0.0, 0.12, 0.3, 1.11, 2.43, 4.68, 9.18, 19.25, 34.8, 55.41, 73.09, 85.21, 92.16, 96.29,
            98.15, 99.11, 99.48, 99.77, 99.89, 99.98, 99.99, 99.99, 100.0,
        ],
        avg: 10.3,
        expected_en: 10.54,
    },
    PaperT5Column {
        m: 8192,
        k: 128,
        cumulative: &[
            0.0, 0.23, 0.24, 0.7, 1.3, 2.62, 5.28, 10.62, 21.5, 38.13, 58.45, 75.11, 86.37, 92.63,
            96.39, 98.19, 99.18, 99.59, 99.76, 99.89, 99.98, 99.98, 100.0,
        ],
        avg: 11.14,
        expected_en: 11.41,
    },
    PaperT5Column {
        m: 8192,
        k: 256,
        cumulative: &[
            0.0, 0.24, 0.25, 0.32, 0.7, 1.46, 2.98, 5.59, 11.49, 22.42, 39.96, 60.66, 77.12, 87.55,
            93.48, 96.73, 98.35, 99.21, 99.54, 99.8, 99.94, 99.96, 99.99, 100.0,
        ],
        avg: 12.02,
        expected_en: 12.26,
    },
    PaperT5Column {
        m: 8192,
        k: 512,
        cumulative: &[
            0.0, 0.02, 0.02, 0.15, 0.31, 0.75, 1.6, 3.27, 6.72, 13.3, 25.94, 44.97, 64.65, 80.25,
            89.3, 94.46, 97.29, 98.66, 99.33, 99.69, 99.84, 99.9, 99.94, 99.96, 99.98, 99.99,
            99.99, 100.0,
        ],
        avg: 12.8,
        expected_en: 13.06,
    },
];

/// Repetitions per (M, k) in Table 5.
pub const TABLE5_REPS: u64 = 10_000;

/// One k column of Table 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperT1Column {
    /// k (M = 256).
    pub k: usize,
    /// `cumulative_from_3[i]`: % of rows that exited at iteration ≤ i + 3 (the table starts at 3
    /// and stops at 16).
    pub cumulative_from_3: &'static [f64],
    /// The "Average Exit" row.
    pub avg: f64,
}

/// Row width of Tables 1 and 2.
pub const TABLE1_M: usize = 256;
/// Algorithm 1's precision ε' in Table 1.
pub const TABLE1_PRECISION: f32 = 1e-4;
/// Repetitions per k in Tables 1 and 2.
pub const TABLE1_REPS: u64 = 100_000;
/// The first iteration Table 1 prints.
pub const TABLE1_FIRST_ITERATION: usize = 3;

/// Table 1: ε = 1e-4, M = 256, 10^5 repetitions per k.
pub const TABLE1: &[PaperT1Column] = &[
    PaperT1Column {
        k: 16,
        cumulative_from_3: &[
            4.13, 8.98, 17.90, 33.86, 54.43, 72.38, 84.53, 91.88, 95.81, 97.89, 98.97, 99.52,
            99.76, 100.00,
        ],
        avg: 7.60,
    },
    PaperT1Column {
        k: 32,
        cumulative_from_3: &[
            2.71, 5.32, 10.64, 21.40, 38.84, 59.17, 76.00, 86.81, 93.03, 96.45, 98.21, 99.12,
            99.53, 100.00,
        ],
        avg: 8.29,
    },
    PaperT1Column {
        k: 64,
        cumulative_from_3: &[
            1.96, 3.52, 6.92, 13.87, 27.12, 46.64, 66.21, 80.68, 89.79, 94.70, 97.35, 98.67, 99.34,
            100.00,
        ],
        avg: 8.95,
    },
    PaperT1Column {
        k: 96,
        cumulative_from_3: &[
            1.34, 3.00, 5.84, 11.72, 23.29, 41.35, 61.48, 77.37, 87.64, 93.57, 96.70, 98.34, 99.20,
            100.00,
        ],
        avg: 9.52,
    },
    PaperT1Column {
        k: 128,
        cumulative_from_3: &[
            1.58, 2.81, 5.59, 11.15, 22.11, 39.93, 60.35, 76.62, 87.18, 93.31, 96.60, 98.25, 99.17,
            100.00,
        ],
        avg: 9.60,
    },
];

/// One row (one max_iter) of Table 2 for one k.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperT2Row {
    /// Algorithm 2's max_iter.
    pub max_iter: u32,
    /// E1 (%): average relative error of the selection's maximum.
    pub e1: f64,
    /// E2 (%): average relative error of the selection's minimum.
    pub e2: f64,
    /// Hit (%): overlap ratio with the optimal selection.
    pub hit: f64,
}

/// One k of Table 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperT2Column {
    /// k (M = 256).
    pub k: usize,
    /// max_iter = 2 ..= 8.
    pub rows: &'static [PaperT2Row],
}

/// Table 2: early stopping, M = 256, 10^5 repetitions per cell.
pub const TABLE2: &[PaperT2Column] = &[
    PaperT2Column {
        k: 16,
        rows: &[
            PaperT2Row { max_iter: 2, e1: 12.6, e2: 20.17, hit: 45.85 },
            PaperT2Row { max_iter: 3, e1: 8.01, e2: 13.13, hit: 54.29 },
            PaperT2Row { max_iter: 4, e1: 4.93, e2: 7.64, hit: 68.35 },
            PaperT2Row { max_iter: 5, e1: 3.52, e2: 5.20, hit: 77.36 },
            PaperT2Row { max_iter: 6, e1: 2.90, e2: 4.33, hit: 81.57 },
            PaperT2Row { max_iter: 7, e1: 2.67, e2: 4.10, hit: 83.17 },
            PaperT2Row { max_iter: 8, e1: 2.61, e2: 4.06, hit: 83.68 },
        ],
    },
    PaperT2Column {
        k: 32,
        rows: &[
            PaperT2Row { max_iter: 2, e1: 13.46, e2: 30.68, hit: 37.81 },
            PaperT2Row { max_iter: 3, e1: 6.22, e2: 13.19, hit: 60.32 },
            PaperT2Row { max_iter: 4, e1: 3.47, e2: 7.05, hit: 74.46 },
            PaperT2Row { max_iter: 5, e1: 2.20, e2: 4.31, hit: 83.19 },
            PaperT2Row { max_iter: 6, e1: 1.62, e2: 3.17, hit: 87.62 },
            PaperT2Row { max_iter: 7, e1: 1.38, e2: 2.79, hit: 89.51 },
            PaperT2Row { max_iter: 8, e1: 1.31, e2: 2.69, hit: 90.19 },
        ],
    },
    PaperT2Column {
        k: 64,
        rows: &[
            PaperT2Row { max_iter: 2, e1: 7.12, e2: 25.03, hit: 51.78 },
            PaperT2Row { max_iter: 3, e1: 4.44, e2: 12.40, hit: 69.04 },
            PaperT2Row { max_iter: 4, e1: 2.47, e2: 6.55, hit: 80.51 },
            PaperT2Row { max_iter: 5, e1: 1.47, e2: 3.70, hit: 87.88 },
            PaperT2Row { max_iter: 6, e1: 0.99, e2: 2.39, hit: 91.83 },
            PaperT2Row { max_iter: 7, e1: 0.79, e2: 1.87, hit: 93.68 },
            PaperT2Row { max_iter: 8, e1: 0.71, e2: 1.72, hit: 94.35 },
        ],
    },
    PaperT2Column {
        k: 96,
        rows: &[
            PaperT2Row { max_iter: 2, e1: 4.42, e2: 17.80, hit: 69.59 },
            PaperT2Row { max_iter: 3, e1: 3.39, e2: 12.94, hit: 74.41 },
            PaperT2Row { max_iter: 4, e1: 1.99, e2: 6.82, hit: 84.33 },
            PaperT2Row { max_iter: 5, e1: 1.18, e2: 3.91, hit: 90.49 },
            PaperT2Row { max_iter: 6, e1: 0.77, e2: 2.57, hit: 93.77 },
            PaperT2Row { max_iter: 7, e1: 0.61, e2: 2.00, hit: 95.33 },
            PaperT2Row { max_iter: 8, e1: 0.55, e2: 1.82, hit: 95.94 },
        ],
    },
    PaperT2Column {
        k: 128,
        rows: &[
            PaperT2Row { max_iter: 2, e1: 4.6, e2: 24.73, hit: 70.93 },
            PaperT2Row { max_iter: 3, e1: 2.78, e2: 13.23, hit: 79.33 },
            PaperT2Row { max_iter: 4, e1: 1.6, e2: 7.24, hit: 87.34 },
            PaperT2Row { max_iter: 5, e1: 0.97, e2: 4.29, hit: 92.34 },
            PaperT2Row { max_iter: 6, e1: 0.62, e2: 2.90, hit: 95.03 },
            PaperT2Row { max_iter: 7, e1: 0.47, e2: 2.30, hit: 96.35 },
            PaperT2Row { max_iter: 8, e1: 0.41, e2: 2.11, hit: 96.86 },
        ],
    },
];

/// Bounds on the mean that a cumulative table column implies, whatever the rows it does not
/// print: `mean = Σ_{i ≥ 0} P(n > i)`, and each unprinted `P(n > i)` below the first printed
/// iteration lies between `1 − F(first)` and 1.
///
/// `cumulative_from[j]` is the % at iteration `first + j`. The last printed value must be 100.
pub fn implied_mean_bounds(first: usize, cumulative_from: &[f64]) -> (f64, f64) {
    let tail: f64 = cumulative_from.iter().map(|c| 1.0 - c / 100.0).sum();
    let above_first = 1.0 - cumulative_from.first().copied().unwrap_or(100.0) / 100.0;
    // P(n > 0) = 1 is certain only when no row exits at 0; it is among the unprinted terms.
    let unprinted = first as f64;
    (tail + unprinted * above_first, tail + unprinted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_complete_and_monotone() {
        assert_eq!(TABLE5.len(), 14);
        for c in TABLE5 {
            assert!(c.cumulative.windows(2).all(|w| w[0] <= w[1]), "M={} k={}", c.m, c.k);
            assert_eq!(c.cumulative.last(), Some(&100.0));
        }
        assert_eq!(TABLE1.len(), 5);
        for c in TABLE1 {
            assert_eq!(c.cumulative_from_3.len(), 14);
            assert!(c.cumulative_from_3.windows(2).all(|w| w[0] <= w[1]));
        }
        assert_eq!(TABLE2.len(), 5);
        for c in TABLE2 {
            let iters: Vec<u32> = c.rows.iter().map(|r| r.max_iter).collect();
            assert_eq!(iters, (2..=8).collect::<Vec<_>>());
        }
    }

    #[test]
    fn table5_averages_are_the_means_of_their_columns() {
        // Table 5 prints every iteration from 1, so its Avg must be Σ P(n > i) up to rounding.
        for c in TABLE5 {
            let (lo, hi) = implied_mean_bounds(1, c.cumulative);
            assert!(lo <= c.avg + 0.01 && c.avg - 0.01 <= hi, "M={} k={}: {lo}..{hi}", c.m, c.k);
        }
    }
}
