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

/// [`Generated`] of `$t` by its own row and matrix generators and poison values.
macro_rules! generated {
    ($($t:ty: $row:expr, $matrix:expr, $specials:expr;)*) => {$(
        impl Generated for $t {
            fn row(max_width: usize) -> BoxedStrategy<Vec<Self>> {
                $row(max_width).boxed()
            }
            fn matrix(max_width: usize) -> BoxedStrategy<(usize, usize, Vec<Self>)> {
                $matrix(max_width).boxed()
            }
            fn specials() -> [Self; 4] {
                $specials
            }
        }
    )*};
}

generated! {
    f32: row, matrix, SPECIALS_F32;
    f64: row_f64, matrix_f64, SPECIALS_F64;
    f16: row16::<f16>, matrix16::<f16>, specials16::<f16>();
    bf16: row16::<bf16>, matrix16::<bf16>, specials16::<bf16>();
    i8: row_int::<i8>, matrix_int::<i8>, specials_int::<i8>();
    u8: row_int::<u8>, matrix_int::<u8>, specials_int::<u8>();
    i16: row_int::<i16>, matrix_int::<i16>, specials_int::<i16>();
    i32: row_int::<i32>, matrix_int::<i32>, specials_int::<i32>();
    i64: row_int::<i64>, matrix_int::<i64>, specials_int::<i64>();
}

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
