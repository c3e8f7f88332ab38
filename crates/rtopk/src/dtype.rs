//! The element types a selection takes (docs/contract.md §1): the floats `f32`, `f16` (IEEE
//! binary16), `bf16` (bfloat16) and `f64`, and the integers `i8`, `u8`, `i16`, `i32`, `i64`, as
//! a run-time tag ([`Dtype`]). The compile-time faces are [`crate::Value`] and
//! [`crate::KernelElement`] (every type: the kernel takes all nine).

use std::fmt;

use serde::Serialize;

/// Declares [`Dtype`] and its table: variant, name (numpy's and torch's), `.npy` descr, bytes.
macro_rules! dtypes {
    ($($(#[$doc:meta])* $v:ident $name:literal $descr:expr, $size:literal;)*) => {
        /// An element type, by the name numpy and torch give it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Dtype {
            $($(#[$doc])* $v,)*
        }

        impl Dtype {
            /// Every type: the three floats of the kernel first (widest first), then `f64` and
            /// the integers.
            pub const ALL: [Dtype; 9] = [$(Dtype::$v),*];

            /// The name numpy and torch give the type: `"float32"`, `"int8"`, ...
            pub fn name(self) -> &'static str {
                match self {
                    $(Dtype::$v => $name,)*
                }
            }

            /// The `.npy` descr of the type (`<f4`, `<f2`, `<f8`, `|i1`, `|u1`, `<i2`, `<i4`,
            /// `<i8`); `None` for bfloat16, which numpy has no dtype of its own for
            /// (ml_dtypes saves it as raw `<V2` bytes).
            pub fn npy_descr(self) -> Option<&'static str> {
                match self {
                    $(Dtype::$v => $descr,)*
                }
            }

            /// Bytes per element.
            pub fn size(self) -> usize {
                match self {
                    $(Dtype::$v => $size,)*
                }
            }
        }
    };
}

dtypes! {
    /// IEEE binary32 (`f32`).
    Float32 "float32" Some("<f4"), 4;
    /// IEEE binary16 (`half::f16`).
    Float16 "float16" Some("<f2"), 2;
    /// bfloat16 (`half::bf16`): f32's exponent, 7 mantissa bits.
    Bfloat16 "bfloat16" None, 2;
    /// IEEE binary64 (`f64`).
    Float64 "float64" Some("<f8"), 8;
    /// `i8`.
    Int8 "int8" Some("|i1"), 1;
    /// `u8`.
    Uint8 "uint8" Some("|u1"), 1;
    /// `i16`.
    Int16 "int16" Some("<i2"), 2;
    /// `i32`.
    Int32 "int32" Some("<i4"), 4;
    /// `i64`.
    Int64 "int64" Some("<i8"), 8;
}

impl Dtype {
    /// The kernel's three floats of 32-bit keys: `f32`, `f16` and `bf16` (it takes the
    /// integers and the 64-bit types too: [`crate::caps::KERNEL_DTYPES`]).
    pub const FLOATS: [Dtype; 3] = [Dtype::Float32, Dtype::Float16, Dtype::Bfloat16];

    /// The type called `name` ([`Dtype::name`]).
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The type a `.npy` descr stands for ([`Dtype::npy_descr`]; `<i1` and `<u1`, which
    /// numpy reads as `|i1` and `|u1`, too).
    pub fn from_npy_descr(descr: &str) -> Option<Dtype> {
        let descr = match descr {
            "<i1" => "|i1",
            "<u1" => "|u1",
            other => other,
        };
        Dtype::ALL.into_iter().find(|d| d.npy_descr() == Some(descr))
    }

    /// `true` for the integer types.
    pub fn is_integer(self) -> bool {
        !matches!(self, Dtype::Float32 | Dtype::Float16 | Dtype::Bfloat16 | Dtype::Float64)
    }

    /// `true` for `f32`, `f16` and `bf16` ([`Dtype::FLOATS`]).
    pub fn is_kernel_float(self) -> bool {
        Dtype::FLOATS.contains(&self)
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
        for other in [">f2", "<V2", "f4", "<u2", ">i4", "<f16"] {
            assert_eq!(Dtype::from_npy_descr(other), None, "{other}");
        }
        assert_eq!(Dtype::from_npy_descr("<i1"), Some(Dtype::Int8));
        assert_eq!(Dtype::from_npy_descr("<u1"), Some(Dtype::Uint8));
        assert_eq!(Dtype::from_name("float64"), Some(Dtype::Float64));
        assert_eq!(Dtype::from_name("uint16"), None);
        assert_eq!(Dtype::ALL.map(Dtype::size), [4, 2, 2, 8, 1, 1, 2, 4, 8]);
        assert_eq!(
            serde_json::to_string(&Dtype::FLOATS).unwrap(),
            r#"["float32","float16","bfloat16"]"#
        );
        assert_eq!(serde_json::to_string(&Dtype::Uint8).unwrap(), r#""uint8""#);
        let ints: Vec<Dtype> = Dtype::ALL.into_iter().filter(|d| d.is_integer()).collect();
        assert_eq!(ints, [Dtype::Int8, Dtype::Uint8, Dtype::Int16, Dtype::Int32, Dtype::Int64]);
        assert!(Dtype::FLOATS.iter().all(|d| d.is_kernel_float()));
        assert!(!Dtype::Float64.is_kernel_float());
    }
}
