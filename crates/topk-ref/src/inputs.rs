//! The one set of input families every generator in the workspace draws from — CPU benches,
//! the baseline comparison, the GPU equivalence checks and benches, the Monte Carlo statistics —
//! and the one seeding scheme behind them.
//!
//! Every row has its own random stream, derived from `(seed, stream, row)` by a hash
//! ([`row_rng`]), so a row's values depend on nothing else: not on the thread count, not on how
//! rows are split into tasks, not on which other experiments ran. A statistic or a benchmark
//! input is reproducible from its seed on any machine.
//!
//! A user's own `.npy` data is the other input source; it is read where files are read
//! (`rtopk_tools::npy`), not generated here.

use std::fmt;
use std::str::FromStr;

use ndarray::Array2;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, RngExt, SeedableRng};
use rand_distr::{Distribution, Exp1, StandardNormal};
use rayon::prelude::*;

use crate::error::TopKError;

/// The top 20 bits shared by every radix-adversarial value: those of `1.0f32` (AIR Top-K,
/// paper 002, §3.2 and §5.1: "the first M bits of all the input elements are the same", M = 20).
const ADVERSARIAL_PREFIX: u32 = 0x3F80_0000;
/// Bits left free below the shared prefix (32 − 20).
const ADVERSARIAL_FREE_BITS: u32 = 12;
/// One in this many elements of a [`Family::NanInf`] row is a special value.
const SPECIAL_ONE_IN: u32 = 40;
/// One in this many elements of a [`Family::LlmLogits`] row is a confident token.
const CONFIDENT_ONE_IN: u32 = 1000;

/// A distribution of row values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Standard normal N(0, 1) — the RTop-K paper's setting (Tables 1, 2, 5; Appendix A).
    #[default]
    Normal,
    /// Uniform on [−1, 1).
    Uniform,
    /// Laplace (double exponential) with scale 1: heavier tails than the normal.
    Laplace,
    /// `max(0, N(0, 1))`: half the row is exactly zero (a ReLU output, MaxK-GNN's input).
    Relu,
    /// Six distinct values, −2 … 3: every k-th value is tied with many others.
    Ties,
    /// AIR's radix-adversarial family: values in [1.0, 1.00049], the top 20 bits of every
    /// value equal (bit patterns `0x3F800000 ..= 0x3F800FFF`).
    RadixAdversarial,
    /// Normal rows laced with NaN (quiet of both signs, signalling, with payloads), ±inf and
    /// −0.0: one element in 40 is special.
    NanInf,
    /// LLM-logit-like: N(0, 2²) with one element in 1000 shifted up by 8 to 16 (a few
    /// confident tokens above a broad vocabulary).
    LlmLogits,
}

impl Family {
    /// Every family, in report order.
    pub const ALL: [Family; 8] = [
        Family::Normal,
        Family::Uniform,
        Family::Laplace,
        Family::Relu,
        Family::Ties,
        Family::RadixAdversarial,
        Family::NanInf,
        Family::LlmLogits,
    ];

    /// The name used on command lines and in result files.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Normal => "normal",
            Family::Uniform => "uniform",
            Family::Laplace => "laplace",
            Family::Relu => "relu",
            Family::Ties => "ties",
            Family::RadixAdversarial => "radix-adversarial",
            Family::NanInf => "nan-inf",
            Family::LlmLogits => "llm-logits",
        }
    }

    /// `true` when every value is finite (the value-space search never needs its key-space
    /// fallback on such rows, so iteration counts follow the paper's analysis).
    pub const fn is_finite(self) -> bool {
        !matches!(self, Family::NanInf)
    }

    /// Fills `row` with independent samples from `rng`.
    pub fn fill<R: Rng + ?Sized>(self, rng: &mut R, row: &mut [f32]) {
        match self {
            Family::Normal => row.iter_mut().for_each(|v| *v = StandardNormal.sample(rng)),
            Family::Uniform => row.iter_mut().for_each(|v| *v = rng.random::<f32>() * 2.0 - 1.0),
            Family::Laplace => row.iter_mut().for_each(|v| {
                // A Laplace variate is an Exp(1) variate with a fair random sign.
                let e: f32 = Exp1.sample(rng);
                *v = if rng.random::<bool>() { e } else { -e };
            }),
            Family::Relu => row.iter_mut().for_each(|v| {
                let x: f32 = StandardNormal.sample(rng);
                *v = x.max(0.0);
            }),
            Family::Ties => {
                row.iter_mut().for_each(|v| *v = rng.random_range(0..6u32) as f32 - 2.0);
            }
            Family::RadixAdversarial => row.iter_mut().for_each(|v| {
                let low = rng.random::<u32>() >> (u32::BITS - ADVERSARIAL_FREE_BITS);
                *v = f32::from_bits(ADVERSARIAL_PREFIX | low);
            }),
            Family::NanInf => row.iter_mut().for_each(|v| *v = nan_inf_sample(rng)),
            Family::LlmLogits => row.iter_mut().for_each(|v| {
                let x: f32 = StandardNormal.sample(rng);
                let boost = if rng.random_range(0..CONFIDENT_ONE_IN) == 0 {
                    rng.random_range(8.0..16.0f32)
                } else {
                    0.0
                };
                *v = 2.0 * x + boost;
            }),
        }
    }

    /// Row `row` of this family's experiment `stream` under `seed` (see [`row_rng`]).
    pub fn row(self, seed: u64, stream: u64, row: u64, out: &mut [f32]) {
        self.fill(&mut row_rng(seed, stream, row), out);
    }

    /// An `(n, m)` matrix, row `r` drawn from `row_rng(seed, stream_id(name), r)`, rows in
    /// parallel. Fails with [`TopKError::TooLarge`] instead of aborting when `n · m` values
    /// cannot be allocated.
    pub fn matrix(self, n: usize, m: usize, seed: u64) -> Result<Array2<f32>, TopKError> {
        let len = n.checked_mul(m).ok_or(TopKError::TooLarge { what: "input matrix", n, m })?;
        let mut data: Vec<f32> = Vec::new();
        data.try_reserve_exact(len).map_err(|_| TopKError::TooLarge {
            what: "input matrix",
            n,
            m,
        })?;
        data.resize(len, 0.0);
        let stream = stream_id(self.name(), &[]);
        if m > 0 {
            data.par_chunks_mut(m)
                .enumerate()
                .for_each(|(r, out)| self.row(seed, stream, r as u64, out));
        }
        Array2::from_shape_vec((n, m), data).map_err(|_| TopKError::TooLarge {
            what: "input matrix",
            n,
            m,
        })
    }
}

/// One element of a [`Family::NanInf`] row.
fn nan_inf_sample<R: Rng + ?Sized>(rng: &mut R) -> f32 {
    match rng.random_range(0..SPECIAL_ONE_IN) {
        0 => f32::NAN,
        1 => f32::from_bits(0xffc0_1234), // negative quiet NaN with a payload
        2 => f32::INFINITY,
        3 => f32::NEG_INFINITY,
        4 => -0.0,
        5 => f32::from_bits(0x7f80_0001), // signalling NaN with a payload
        _ => StandardNormal.sample(rng),
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = TopKError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Family::ALL.into_iter().find(|d| d.name().eq_ignore_ascii_case(s)).ok_or_else(|| {
            TopKError::InvalidParameter {
                name: "input family",
                reason: format!(
                    "unknown family '{s}'; known: {}",
                    Family::ALL.map(Family::name).join(", ")
                ),
            }
        })
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
        for d in Family::ALL {
            assert_eq!(d.name().parse::<Family>().unwrap(), d);
        }
        assert!("cauchy".parse::<Family>().is_err());
    }

    #[test]
    fn rows_depend_only_on_seed_stream_and_index() {
        let mut a = vec![0.0f32; 8];
        let mut b = vec![0.0f32; 8];
        Family::Normal.row(1, 2, 3, &mut a);
        Family::Normal.row(1, 2, 3, &mut b);
        assert_eq!(a, b);
        Family::Normal.row(1, 2, 4, &mut b);
        assert_ne!(a, b);
    }

    #[test]
    fn matrices_do_not_depend_on_threads() {
        let a = Family::Laplace.matrix(300, 7, 3).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = pool.install(|| Family::Laplace.matrix(300, 7, 3).unwrap());
        assert_eq!(a, b);
        assert_ne!(a, Family::Laplace.matrix(300, 7, 4).unwrap());
        let huge = Family::Normal.matrix(1 << 40, 1 << 30, 0);
        assert!(matches!(huge, Err(TopKError::TooLarge { .. })));
    }

    #[test]
    fn samples_have_the_expected_shape() {
        let mut row = vec![0.0f32; 20_000];
        Family::Relu.row(7, 0, 0, &mut row);
        let zeros = row.iter().filter(|&&v| v == 0.0).count() as f64 / row.len() as f64;
        assert!((zeros - 0.5).abs() < 0.02, "{zeros}");
        Family::Uniform.row(7, 0, 1, &mut row);
        assert!(row.iter().all(|&v| (-1.0..1.0).contains(&v)));
        Family::Laplace.row(7, 0, 2, &mut row);
        let mean_abs = row.iter().map(|v| f64::from(v.abs())).sum::<f64>() / row.len() as f64;
        assert!((mean_abs - 1.0).abs() < 0.05, "{mean_abs}");
        Family::Ties.row(7, 0, 3, &mut row);
        assert!(row.iter().all(|&v| v.fract() == 0.0 && (-2.0..=3.0).contains(&v)));
        Family::RadixAdversarial.row(7, 0, 4, &mut row);
        assert!(row.iter().all(|&x| x.to_bits() >> 12 == 0x3F800));
        Family::NanInf.row(7, 0, 5, &mut row);
        assert!(row.iter().any(|v| v.is_nan()) && row.iter().any(|v| v.is_infinite()));
        assert!(row.iter().any(|v| v.to_bits() == 0x8000_0000), "-0.0 present");
        Family::LlmLogits.row(7, 0, 6, &mut row);
        assert!(row.iter().any(|&v| v > 10.0) && row.iter().all(|v| v.is_finite()));
    }
}
