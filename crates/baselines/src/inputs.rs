//! The input families of the AIR Top-K paper (paper 002, §5.1): uniform, normal and
//! radix-adversarial.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

use crate::error::BaselineError;

/// Bit pattern shared by every radix-adversarial value: the top 20 bits of `1.0f32`.
const ADVERSARIAL_PREFIX: u32 = 0x3F80_0000;
/// Bits left free below the shared prefix (32 − 20).
const ADVERSARIAL_FREE_BITS: u32 = 12;

/// One of the paper's input distributions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Uniform on (0, 1].
    Uniform,
    /// Normal with mean 0 and standard deviation 1.
    Normal,
    /// "The first M bits of all the input elements are the same", M = 20: values in
    /// [1.0, 1.00049], bit patterns 0x3F800000 ..= 0x3F800FFF (§3.2 and §5.1).
    RadixAdversarial,
}

impl Family {
    /// The three families, in the paper's order.
    pub const ALL: [Family; 3] = [Family::Uniform, Family::Normal, Family::RadixAdversarial];

    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Uniform => "uniform",
            Family::Normal => "normal",
            Family::RadixAdversarial => "radix-adversarial",
        }
    }

    /// The family called `name`.
    pub fn from_name(name: &str) -> Result<Self, BaselineError> {
        Self::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| BaselineError::UnknownFamily(name.to_string()))
    }

    /// Fills `data` with values of this family from a generator seeded with `seed`.
    pub fn fill(self, data: &mut [f32], seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        match self {
            // 1 − u for u uniform on [0, 1) is uniform on (0, 1].
            Family::Uniform => data.iter_mut().for_each(|v| *v = 1.0 - rng.random::<f32>()),
            Family::Normal => data.iter_mut().for_each(|v| *v = StandardNormal.sample(&mut rng)),
            Family::RadixAdversarial => data.iter_mut().for_each(|v| {
                let low = rng.random::<u32>() >> (u32::BITS - ADVERSARIAL_FREE_BITS);
                *v = f32::from_bits(ADVERSARIAL_PREFIX | low);
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_have_their_shape() {
        let mut v = vec![0f32; 4096];
        Family::Uniform.fill(&mut v, 1);
        assert!(v.iter().all(|&x| x > 0.0 && x <= 1.0));
        Family::RadixAdversarial.fill(&mut v, 1);
        assert!(v.iter().all(|&x| x.to_bits() >> 12 == 0x3F800));
        assert!(v.iter().any(|&x| x != v[0]));
        Family::Normal.fill(&mut v, 1);
        let mean = v.iter().sum::<f32>() / v.len() as f32;
        assert!(mean.abs() < 0.1);
        let mut w = vec![0f32; 4096];
        Family::Normal.fill(&mut w, 1);
        assert_eq!(v, w, "seeded");
        assert_eq!(Family::from_name("radix-adversarial").unwrap(), Family::RadixAdversarial);
        assert!(Family::from_name("cauchy").is_err());
    }
}
