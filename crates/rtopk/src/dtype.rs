//! The element types a selection takes (docs/contract.md §1): `f32`, `f16` (IEEE binary16)
//! and `bf16` (bfloat16), as a run-time tag ([`Dtype`]). The compile-time face is
//! [`crate::Float`].

use std::fmt;

use serde::Serialize;

/// An element type, by the name numpy and torch give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// IEEE binary32 (`f32`).
    Float32,
    /// IEEE binary16 (`half::f16`).
    Float16,
    /// bfloat16 (`half::bf16`): f32's exponent, 7 mantissa bits.
    Bfloat16,
}

impl Dtype {
    /// The three types, widest first.
    pub const ALL: [Dtype; 3] = [Dtype::Float32, Dtype::Float16, Dtype::Bfloat16];

    /// The name numpy and torch give the type: `"float32"`, `"float16"`, `"bfloat16"`.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Float32 => "float32",
            Dtype::Float16 => "float16",
            Dtype::Bfloat16 => "bfloat16",
        }
    }

    /// The type called `name` ([`Dtype::name`]).
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The little-endian `.npy` descr of the type: `<f4`, `<f2`; `None` for bfloat16, which
    /// numpy has no dtype of its own for (ml_dtypes saves it as raw `<V2` bytes).
    pub fn npy_descr(self) -> Option<&'static str> {
        match self {
            Dtype::Float32 => Some("<f4"),
            Dtype::Float16 => Some("<f2"),
            Dtype::Bfloat16 => None,
        }
    }

    /// The type a `.npy` descr stands for (`<f4` or `<f2`; nothing else).
    pub fn from_npy_descr(descr: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.npy_descr() == Some(descr))
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::Float32 => 4,
            Dtype::Float16 | Dtype::Bfloat16 => 2,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_descrs_round_trip() {
        for d in Dtype::ALL {
            assert_eq!(Dtype::from_name(d.name()), Some(d));
            assert_eq!(d.to_string(), d.name());
            if let Some(descr) = d.npy_descr() {
                assert_eq!(Dtype::from_npy_descr(descr), Some(d));
            }
        }
        assert_eq!(Dtype::Bfloat16.npy_descr(), None);
        for other in ["<f8", ">f2", "<V2", "f4", "<i2"] {
            assert_eq!(Dtype::from_npy_descr(other), None, "{other}");
        }
        assert_eq!(Dtype::from_name("float64"), None);
        assert_eq!(Dtype::ALL.map(Dtype::size), [4, 2, 2]);
        assert_eq!(
            serde_json::to_string(&Dtype::ALL).unwrap(),
            r#"["float32","float16","bfloat16"]"#
        );
    }
}
