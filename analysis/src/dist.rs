//! Row distributions and the seeding scheme of every Monte Carlo experiment.
//!
//! Every row has its own random stream, derived from `(seed, stream, row index)` by a hash, so a
//! row's values depend on nothing else: not on the thread count, not on how rows are split into
//! tasks, not on which other experiments ran. That makes every statistic reproducible from its
//! seed on any machine.

use std::fmt;
use std::str::FromStr;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};
use rand_distr::{Distribution, Exp1, StandardNormal};

use crate::error::AnalysisError;

/// The distribution a simulated row is drawn from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dist {
    /// Standard normal N(0, 1) — the paper's setting (Tables 1, 2, 5; Appendix A).
    #[default]
    Normal,
    /// Uniform on [−1, 1).
    Uniform,
    /// Laplace (double exponential) with scale 1: heavier tails than the normal.
    Laplace,
    /// `max(0, N(0, 1))`: half the row is exactly zero, so ties are heavy (a ReLU output).
    Relu,
}

impl Dist {
    /// Every distribution, in report order.
    pub const ALL: [Dist; 4] = [Dist::Normal, Dist::Uniform, Dist::Laplace, Dist::Relu];

    /// The name used on the command line and in result files.
    pub fn name(self) -> &'static str {
        match self {
            Dist::Normal => "normal",
            Dist::Uniform => "uniform",
            Dist::Laplace => "laplace",
            Dist::Relu => "relu",
        }
    }

    /// Fills `row` with independent samples.
    pub fn fill<R: Rng>(self, rng: &mut R, row: &mut [f32]) {
        match self {
            Dist::Normal => row.iter_mut().for_each(|v| *v = StandardNormal.sample(rng)),
            Dist::Uniform => row.iter_mut().for_each(|v| *v = rng.random::<f32>() * 2.0 - 1.0),
            Dist::Laplace => row.iter_mut().for_each(|v| {
                // A Laplace variate is an Exp(1) variate with a fair random sign.
                let e: f32 = Exp1.sample(rng);
                *v = if rng.random::<bool>() { e } else { -e };
            }),
            Dist::Relu => row.iter_mut().for_each(|v| {
                let x: f32 = StandardNormal.sample(rng);
                *v = x.max(0.0);
            }),
        }
    }
}

impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dist {
    type Err = AnalysisError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dist::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| AnalysisError::UnknownDist(s.to_string()))
    }
}

/// SplitMix64's finaliser: a bijective mix with full avalanche.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random stream of row `row` of experiment `stream` under `seed`.
///
/// Xoshiro256++ is named explicitly (not `SmallRng`, whose algorithm may change between
/// releases) so that a seed keeps meaning the same rows.
pub fn row_rng(seed: u64, stream: u64, row: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(mix(seed ^ mix(stream ^ mix(row))))
}

/// A stable stream id for a named experiment and its parameters, so that two experiments never
/// share rows by accident.
pub fn stream_id(name: &str, params: &[u64]) -> u64 {
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    for b in name.bytes() {
        h = mix(h ^ u64::from(b));
    }
    params.iter().fold(h, |h, &p| mix(h ^ p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Dist::ALL {
            assert_eq!(d.name().parse::<Dist>().unwrap(), d);
        }
        assert!("cauchy".parse::<Dist>().is_err());
    }

    #[test]
    fn rows_depend_only_on_seed_stream_and_index() {
        let mut a = vec![0.0f32; 8];
        let mut b = vec![0.0f32; 8];
        Dist::Normal.fill(&mut row_rng(1, 2, 3), &mut a);
        Dist::Normal.fill(&mut row_rng(1, 2, 3), &mut b);
        assert_eq!(a, b);
        Dist::Normal.fill(&mut row_rng(1, 2, 4), &mut b);
        assert_ne!(a, b);
    }

    #[test]
    fn samples_have_the_expected_shape() {
        let mut row = vec![0.0f32; 20_000];
        Dist::Relu.fill(&mut row_rng(7, 0, 0), &mut row);
        let zeros = row.iter().filter(|&&v| v == 0.0).count() as f64 / row.len() as f64;
        assert!((zeros - 0.5).abs() < 0.02, "{zeros}");
        Dist::Uniform.fill(&mut row_rng(7, 0, 1), &mut row);
        assert!(row.iter().all(|&v| (-1.0..1.0).contains(&v)));
        Dist::Laplace.fill(&mut row_rng(7, 0, 2), &mut row);
        let mean_abs = row.iter().map(|v| f64::from(v.abs())).sum::<f64>() / row.len() as f64;
        assert!((mean_abs - 1.0).abs() < 0.05, "{mean_abs}");
    }
}
