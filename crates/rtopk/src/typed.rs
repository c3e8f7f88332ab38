//! Every element type through one door: [`Value`] (the nine types of docs/contract.md §1 at
//! compile time) and [`Typed`] (a matrix of one of them with the selection it fills, at run
//! time), so that [`Algorithm`] takes each type through one object-safe method instead of a
//! method per type.

use ndarray::ArrayView2;
use topk_ref::{Element, Options, Rows, bf16, f16};

use crate::algorithm::{Algorithm, Selection};
use crate::dtype::Dtype;
use crate::error::Error;

mod sealed {
    /// Only the types of docs/contract.md §1 are [`super::Value`]s.
    pub trait Sealed {}
}

/// An element type of the library face (docs/contract.md §1): `f32`, `f16`, `bf16`, `f64`,
/// `i8`, `u8`, `i16`, `i32`, `i64` — topk-ref's [`Element`] with its run-time [`Dtype`].
///
/// Code generic over `E: Value` selects through [`Value::select_into`] (or the sugar
/// [`crate::select`]), which wraps the matrix as a [`Typed`] and calls
/// [`Algorithm::select_typed_into`].
pub trait Value: Element + sealed::Sealed {
    /// The run-time tag of the type.
    const DTYPE: Dtype;

    /// `x` and `out` as the [`Typed`] of this type.
    fn typed<'x, 'o>(x: ArrayView2<'x, Self>, out: &'o mut Selection<Self>) -> Typed<'x, 'o>;

    /// `algo`'s row-wise top-k of `x` into `out` (see [`Algorithm::select_into`]).
    fn select_into(
        algo: &dyn Algorithm,
        x: ArrayView2<'_, Self>,
        k: usize,
        opts: Options,
        out: &mut Selection<Self>,
    ) -> Result<(), Error> {
        algo.select_typed_into(Self::typed(x, out), k, opts)
    }

    /// `algo`'s ragged row-wise top-k of `x` into `out` (see
    /// [`Algorithm::select_ragged_typed_into`]).
    fn select_ragged_into(
        algo: &dyn Algorithm,
        x: ArrayView2<'_, Self>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
        out: &mut Selection<Self>,
    ) -> Result<(), Error> {
        algo.select_ragged_typed_into(Self::typed(x, out), rows, opts, threshold)
    }
}

/// Declares [`Typed`], [`Typed::dtype`] and the [`Value`] of each type, from one list.
macro_rules! typed {
    ($($v:ident $t:ty => $dtype:ident;)*) => {
        /// A matrix of one element type and the selection of that type it fills.
        #[derive(Debug)]
        pub enum Typed<'x, 'o> {
            $(
                #[doc = concat!("`", stringify!($t), "` rows.")]
                $v(ArrayView2<'x, $t>, &'o mut Selection<$t>),
            )*
        }

        impl Typed<'_, '_> {
            /// The element type.
            pub fn dtype(&self) -> Dtype {
                match self {
                    $(Typed::$v(..) => Dtype::$dtype,)*
                }
            }
        }

        $(
            impl sealed::Sealed for $t {}

            impl Value for $t {
                const DTYPE: Dtype = Dtype::$dtype;

                fn typed<'x, 'o>(
                    x: ArrayView2<'x, Self>,
                    out: &'o mut Selection<Self>,
                ) -> Typed<'x, 'o> {
                    Typed::$v(x, out)
                }
            }
        )*
    };
}

typed! {
    F32 f32 => Float32;
    F16 f16 => Float16;
    Bf16 bf16 => Bfloat16;
    F64 f64 => Float64;
    I8 i8 => Int8;
    U8 u8 => Uint8;
    I16 i16 => Int16;
    I32 i32 => Int32;
    I64 i64 => Int64;
}

/// `$body` run with `$x` and `$out` bound to the matrix and selection of `$job`, whatever
/// its type: one generic body, monomorphised per type.
macro_rules! with_typed {
    ($job:expr, |$x:ident, $out:ident| $body:expr) => {{
        use $crate::typed::Typed;
        match $job {
            Typed::F32($x, $out) => $body,
            Typed::F16($x, $out) => $body,
            Typed::Bf16($x, $out) => $body,
            Typed::F64($x, $out) => $body,
            Typed::I8($x, $out) => $body,
            Typed::U8($x, $out) => $body,
            Typed::I16($x, $out) => $body,
            Typed::I32($x, $out) => $body,
            Typed::I64($x, $out) => $body,
        }
    }};
}

pub(crate) use with_typed;

/// Per-type methods of [`Algorithm`] (`select_f16_into`, ...), each `$f(self, Typed::$v(x,
/// out), k, opts)`: one signature for every type and implementor.
macro_rules! per_type_methods {
    ($f:path; $($(#[$doc:meta])* $method:ident $t:ty => $v:ident;)*) => {$(
        $(#[$doc])*
        fn $method(
            &self,
            x: ndarray::ArrayView2<'_, $t>,
            k: usize,
            opts: topk_ref::Options,
            out: &mut $crate::algorithm::Selection<$t>,
        ) -> Result<(), $crate::error::Error> {
            $f(self, $crate::typed::Typed::$v(x, out), k, opts)
        }
    )*};
}

pub(crate) use per_type_methods;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_has_its_tag() {
        let tags = [
            f32::DTYPE,
            f16::DTYPE,
            bf16::DTYPE,
            f64::DTYPE,
            i8::DTYPE,
            u8::DTYPE,
            i16::DTYPE,
            i32::DTYPE,
            i64::DTYPE,
        ];
        assert_eq!(tags, Dtype::ALL);
        let x = ndarray::Array2::<i16>::zeros((1, 2));
        let mut out = Selection::default();
        assert_eq!(i16::typed(x.view(), &mut out).dtype(), Dtype::Int16);
    }
}
