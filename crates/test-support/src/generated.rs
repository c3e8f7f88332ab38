//! One face for the row generators of every element type, so that a test body is written once
//! for all of them.

use half::{bf16, f16};
use ndarray::Array2;
use proptest::prelude::*;

use crate::{
    RaggedShape, SPECIALS_F32, SPECIALS_F64, matrix, matrix_f64, matrix_int, matrix16,
    poison_tails, ragged_shape, row, row_f64, row_int, row16, specials_int, specials16,
};

/// An element type the generators draw rows of: its matrices and the values
/// [`poison_tails`] writes past a row's length.
pub trait Generated: Copy + std::fmt::Debug + 'static {
    /// A row of width up to `max_width`.
    fn row(max_width: usize) -> BoxedStrategy<Vec<Self>>;
    /// `(n, m, values)`: 1–4 rows of one width up to `max_width`, row-major.
    fn matrix(max_width: usize) -> BoxedStrategy<(usize, usize, Vec<Self>)>;
    /// `[NaN, -NaN with another payload, +inf, -inf]`, or the type's stand-ins.
    fn specials() -> [Self; 4];
}

impl Generated for f32 {
    fn row(max_width: usize) -> BoxedStrategy<Vec<Self>> {
        row(max_width).boxed()
    }
    fn matrix(max_width: usize) -> BoxedStrategy<(usize, usize, Vec<Self>)> {
        matrix(max_width).boxed()
    }
    fn specials() -> [Self; 4] {
        SPECIALS_F32
    }
}

impl Generated for f64 {
    fn row(max_width: usize) -> BoxedStrategy<Vec<Self>> {
        row_f64(max_width).boxed()
    }
    fn matrix(max_width: usize) -> BoxedStrategy<(usize, usize, Vec<Self>)> {
        matrix_f64(max_width).boxed()
    }
    fn specials() -> [Self; 4] {
        SPECIALS_F64
    }
}

/// [`Generated`] of the 16-bit float types and of the integer types, by their own generators.
macro_rules! generated {
    ($row:ident, $matrix:ident, $specials:ident: $($t:ty),*) => {$(
        impl Generated for $t {
            fn row(max_width: usize) -> BoxedStrategy<Vec<Self>> {
                $row::<$t>(max_width).boxed()
            }
            fn matrix(max_width: usize) -> BoxedStrategy<(usize, usize, Vec<Self>)> {
                $matrix::<$t>(max_width).boxed()
            }
            fn specials() -> [Self; 4] {
                $specials::<$t>()
            }
        }
    )*};
}

generated!(row16, matrix16, specials16: f16, bf16);
generated!(row_int, matrix_int, specials_int: i8, u8, i16, i32, i64);

/// A matrix of `T` of width up to `max_width` and a ragged shape that fits it, with the
/// values past each row's length poisoned as the shape says.
pub fn ragged_matrix<T: Generated>(
    max_width: usize,
) -> impl Strategy<Value = (Array2<T>, RaggedShape)> {
    T::matrix(max_width).prop_flat_map(|(n, m, values)| {
        (Just((n, m, values)), ragged_shape(n, m)).prop_map(|((n, m, mut v), shape)| {
            poison_tails(&mut v, m, &shape.lengths, shape.tail, T::specials());
            let x = Array2::from_shape_vec((n, m), v).expect("n * m values");
            (x, shape)
        })
    })
}
