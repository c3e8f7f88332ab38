//! E(n), the expected iteration count of Algorithm 1 (paper 003, Appendix A, eqs. 1–4), its
//! parts, and the finite-M correction that explains why E(n) runs slightly high.
//!
//! All quantities are for a row of M i.i.d. standard normal values (μ = 0, σ = 1); the iteration
//! count is scale- and shift-invariant at ε = 0, so nothing is lost.
//!
//! * eq. 1: `E(thres) = Φ⁻¹(1 − k/M)`, where k of M elements are expected to lie above;
//! * eq. 2: `δ = 1 / (M · f(E(thres)))`, the expected gap between the k-th and (k+1)-th values;
//! * eq. 3: `D ≈ 2σ·√(2 ln M)`, the initial search interval max − min;
//! * eq. 4: `E(n) ≈ log2(D/δ) = log2(2M·√(ln M / π)) − Φ⁻¹(1 − k/M)² / (2 ln 2)`.
//!
//! [`expected_range`] integrates the exact expected range `E[max − min]` of M samples: for
//! every finite M it is smaller than eq. 3's asymptote, so `log2(D/E[range])` of eq. 4's value
//! is an over-estimate caused by eq. 3 alone ([`EnParts::range_excess`]).

use statrs::distribution::{Continuous, ContinuousCDF, Normal};

use crate::error::AnalysisError;

/// Grid points of the integral in [`expected_range`] (Simpson's rule, even count).
const RANGE_GRID: usize = 8000;
/// Integration limit: beyond ±12 the integrand is below 1e-30 for any M this crate handles.
const RANGE_LIMIT: f64 = 12.0;

/// The parts of eq. 4 for one (M, k).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EnParts {
    /// Row width M.
    pub m: usize,
    /// k.
    pub k: usize,
    /// eq. 1: the expected k-th value, `Φ⁻¹(1 − k/M)`.
    pub e_thres: f64,
    /// The normal density at `e_thres`.
    pub density: f64,
    /// eq. 2: the expected gap between the k-th and (k+1)-th values.
    pub delta: f64,
    /// eq. 3: the asymptotic initial interval `2√(2 ln M)`.
    pub d_asymptotic: f64,
    /// The exact expected range `E[max − min]` of M standard normal samples.
    pub d_exact: f64,
    /// eq. 4: E(n) as the paper computes it.
    pub en: f64,
    /// eq. 4 with `d_exact` in place of eq. 3: `log2(E[max − min] / δ)`.
    pub en_exact_range: f64,
}

impl EnParts {
    /// How much eq. 3 alone inflates E(n): `en − en_exact_range = log2(D / E[max − min])`.
    pub fn range_excess(&self) -> f64 {
        self.en - self.en_exact_range
    }
}

fn check(m: usize, k: usize) -> Result<(), AnalysisError> {
    if m < 2 || k == 0 || k >= m {
        return Err(AnalysisError::ExpectationUndefined { m, k });
    }
    Ok(())
}

/// eq. 1 for a standard normal row: `Φ⁻¹(1 − k/M)`.
pub fn e_thres(m: usize, k: usize) -> Result<f64, AnalysisError> {
    check(m, k)?;
    Ok(Normal::standard().inverse_cdf(1.0 - k as f64 / m as f64))
}

/// eq. 2: `δ = 1 / (M · f(E(thres)))`.
pub fn delta(m: usize, k: usize) -> Result<f64, AnalysisError> {
    let t = e_thres(m, k)?;
    Ok(1.0 / (m as f64 * Normal::standard().pdf(t)))
}

/// eq. 3: `D ≈ 2√(2 ln M)` (σ = 1).
pub fn initial_range_asymptotic(m: usize) -> f64 {
    2.0 * (2.0 * (m as f64).ln()).sqrt()
}

/// eq. 4 in the paper's closed form: `log2(2M√(ln M / π)) − Φ⁻¹(1 − k/M)² / (2 ln 2)`.
pub fn expected_iterations(m: usize, k: usize) -> Result<f64, AnalysisError> {
    let t = e_thres(m, k)?;
    let mf = m as f64;
    Ok((2.0 * mf * (mf.ln() / std::f64::consts::PI).sqrt()).log2()
        - t * t / (2.0 * std::f64::consts::LN_2))
}

/// `E[max − min]` of M i.i.d. standard normal samples, by numerical integration of
/// `E[max] = ∫ x · M φ(x) Φ(x)^(M−1) dx` (the range is twice that, by symmetry).
pub fn expected_range(m: usize) -> f64 {
    if m < 2 {
        return 0.0;
    }
    let n = Normal::standard();
    let h = 2.0 * RANGE_LIMIT / RANGE_GRID as f64;
    let integrand = |x: f64| {
        // ln Φ(x) through the upper tail, so that Φ(x) ≈ 1 keeps its precision.
        let ln_cdf = if x > 0.0 { (-n.cdf(-x)).ln_1p() } else { n.cdf(x).ln() };
        x * m as f64 * n.pdf(x) * ((m as f64 - 1.0) * ln_cdf).exp()
    };
    let mut sum = integrand(-RANGE_LIMIT) + integrand(RANGE_LIMIT);
    for i in 1..RANGE_GRID {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * integrand(-RANGE_LIMIT + i as f64 * h);
    }
    2.0 * sum * h / 3.0
}

/// Every part of eq. 4 for (M, k), plus the exact-range variant.
pub fn en_parts(m: usize, k: usize) -> Result<EnParts, AnalysisError> {
    let e_thres = e_thres(m, k)?;
    let density = Normal::standard().pdf(e_thres);
    let delta = 1.0 / (m as f64 * density);
    let d_exact = expected_range(m);
    Ok(EnParts {
        m,
        k,
        e_thres,
        density,
        delta,
        d_asymptotic: initial_range_asymptotic(m),
        d_exact,
        en: expected_iterations(m, k)?,
        en_exact_range: (d_exact / delta).log2(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::TABLE5;

    #[test]
    fn table5_en_row_to_two_decimals() {
        for col in TABLE5 {
            let en = expected_iterations(col.m, col.k).unwrap();
            let rounded = (en * 100.0).round() / 100.0;
            assert!(
                (rounded - col.expected_en).abs() < 1e-9,
                "M={} k={}: {en:.4} vs paper {}",
                col.m,
                col.k,
                col.expected_en
            );
        }
    }

    #[test]
    fn closed_form_equals_log_of_d_over_delta() {
        for (m, k) in [(256, 64), (1024, 3), (8192, 4000), (100, 99)] {
            let direct = (initial_range_asymptotic(m) / delta(m, k).unwrap()).log2();
            let closed = expected_iterations(m, k).unwrap();
            assert!((direct - closed).abs() < 1e-9, "M={m} k={k}: {direct} vs {closed}");
        }
    }

    #[test]
    fn expected_range_matches_known_values() {
        // E[max] of 2 normals is 1/√π; of 10 normals 1.538753 (order-statistics tables).
        assert!((expected_range(2) - 2.0 / std::f64::consts::PI.sqrt()).abs() < 1e-6);
        assert!((expected_range(10) / 2.0 - 1.538_753).abs() < 1e-5);
        // Finite M: always below the asymptote of eq. 3.
        for m in [16, 256, 8192, 1 << 20] {
            assert!(expected_range(m) < initial_range_asymptotic(m), "M={m}");
        }
    }

    #[test]
    fn undefined_pairs_are_errors() {
        assert!(expected_iterations(256, 0).is_err());
        assert!(expected_iterations(256, 256).is_err());
        assert!(expected_iterations(1, 1).is_err());
        assert!(en_parts(256, 300).is_err());
    }
}
