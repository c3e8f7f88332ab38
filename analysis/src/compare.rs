//! Paper vs measured, cell by cell, with a stated tolerance.
//!
//! A measured number "agrees" with the paper's when their difference, less the paper's
//! rounding (half a unit in the last printed digit), is within [`Z_TOLERANCE`] combined standard
//! errors — the Monte Carlo noise of the paper's experiment *and* of ours. With a few hundred
//! cells per table, 4σ keeps the chance of a false "disagree" below ~2% per table while a real
//! systematic difference of a few σ per cell still shows up across many cells.

/// The tolerance, in combined standard errors.
pub const Z_TOLERANCE: f64 = 4.0;
/// Half a unit in the second decimal: the paper prints two decimals.
pub const PAPER_ROUNDING: f64 = 0.005;

/// One compared number.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Cell {
    /// What it is (e.g. `"M=256 k=64 iter 8"`).
    pub label: String,
    /// The paper's value.
    pub paper: f64,
    /// Ours.
    pub measured: f64,
    /// `measured − paper`.
    pub diff: f64,
    /// Combined standard error of the difference.
    pub se: f64,
    /// `max(|diff| − rounding, 0) / se` (0 when both are exact and equal).
    pub z: f64,
    /// `z <= Z_TOLERANCE`.
    pub agree: bool,
}

impl Cell {
    /// A cell from a difference and its standard error.
    pub fn new(label: impl Into<String>, paper: f64, measured: f64, se: f64) -> Self {
        let diff = measured - paper;
        let excess = (diff.abs() - PAPER_ROUNDING).max(0.0);
        let z = if excess == 0.0 {
            0.0
        } else if se > 0.0 {
            excess / se
        } else {
            f64::INFINITY
        };
        Self { label: label.into(), paper, measured, diff, se, z, agree: z <= Z_TOLERANCE }
    }

    /// A percentage of rows (cumulative exit %, ...) measured on `n_measured` rows, against the
    /// paper's on `n_paper` rows: binomial standard errors of both.
    pub fn percentage(
        label: impl Into<String>,
        paper: f64,
        measured: f64,
        n_paper: u64,
        n_measured: u64,
    ) -> Self {
        let total = (n_paper + n_measured) as f64;
        // Pooled proportion, floored at one row so that 100% vs 99.99% is not infinitely far.
        let p = ((paper / 100.0 * n_paper as f64 + measured / 100.0 * n_measured as f64) / total)
            .clamp(1.0 / total, 1.0 - 1.0 / total);
        let se = 100.0 * (p * (1.0 - p) * (1.0 / n_paper as f64 + 1.0 / n_measured as f64)).sqrt();
        Self::new(label, paper, measured, se)
    }

    /// A mean measured with standard error `se_measured` on `n_measured` rows, against the
    /// paper's on `n_paper` rows (assumed to have the same spread).
    pub fn mean(
        label: impl Into<String>,
        paper: f64,
        measured: f64,
        se_measured: f64,
        n_paper: u64,
        n_measured: u64,
    ) -> Self {
        let se = se_measured * (1.0 + n_measured as f64 / n_paper as f64).sqrt();
        Self::new(label, paper, measured, se)
    }
}

/// The summary of many cells.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// Cells compared.
    pub cells: usize,
    /// Cells outside the tolerance.
    pub outside: usize,
    /// Largest |diff|.
    pub max_abs_diff: f64,
    /// Root mean square of the diffs.
    pub rms_diff: f64,
    /// Largest z.
    pub max_z: f64,
}

impl Verdict {
    /// Summarises `cells`.
    pub fn of<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Self {
        let mut v = Verdict::default();
        let mut ss = 0.0;
        for c in cells {
            v.cells += 1;
            v.outside += usize::from(!c.agree);
            v.max_abs_diff = v.max_abs_diff.max(c.diff.abs());
            v.max_z = v.max_z.max(c.z);
            ss += c.diff * c.diff;
        }
        if v.cells > 0 {
            v.rms_diff = (ss / v.cells as f64).sqrt();
        }
        v
    }

    /// `true` when every cell is within the tolerance.
    pub fn agrees(&self) -> bool {
        self.outside == 0
    }

    /// "agree" or "DISAGREE", for tables.
    pub fn word(&self) -> &'static str {
        if self.agrees() { "agree" } else { "DISAGREE" }
    }

    /// One line: the word and the numbers behind it.
    pub fn line(&self) -> String {
        format!(
            "{} — {}/{} cells within {Z_TOLERANCE}σ; max |diff| {:.3}, RMS diff {:.3}, max z {:.1}",
            self.word(),
            self.cells - self.outside,
            self.cells,
            self.max_abs_diff,
            self.rms_diff,
            self.max_z
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_and_noise_are_tolerated() {
        assert!(Cell::new("a", 8.72, 8.724, 0.0).agree);
        assert!(!Cell::new("a", 8.72, 8.74, 0.0).agree);
        let c = Cell::percentage("p", 46.47, 46.0, 10_000, 10_000);
        assert!(c.agree && c.se > 0.6 && c.se < 0.8, "{c:?}");
        assert!(!Cell::percentage("p", 46.47, 40.0, 10_000, 10_000).agree);
        // 100% vs 99.99% on 10^4 rows each: one row's worth, within noise.
        assert!(Cell::percentage("p", 100.0, 99.99, 10_000, 10_000).agree);
    }

    #[test]
    fn verdict_counts_outsiders() {
        let cells = [Cell::new("a", 1.0, 1.0, 0.1), Cell::new("b", 1.0, 2.0, 0.1)];
        let v = Verdict::of(&cells);
        assert_eq!((v.cells, v.outside), (2, 1));
        assert!(!v.agrees());
        assert!((v.rms_diff - (0.5f64).sqrt()).abs() < 1e-12);
    }
}
