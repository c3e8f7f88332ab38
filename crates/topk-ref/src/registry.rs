//! Algorithms by their command-line names.

use crate::order::{Element, RowTopK, RowTopKOf};
use crate::{Bisect, Bitonic, Bucket, Heap, Quickselect, Radix};

/// The names of topk-ref's algorithms, in the order the CLI and benches list them.
pub const ALGORITHM_NAMES: [&str; 6] =
    ["heap", "quickselect", "radix", "bucket", "bitonic", "bisect"];

/// The algorithm called `name` for `f32` rows, with default parameters (`bisect` is exact
/// Algorithm 1, ε = 0).
pub fn by_name(name: &str) -> Option<Box<dyn RowTopK>> {
    Some(match name {
        "heap" => Box::new(Heap),
        "quickselect" => Box::new(Quickselect),
        "radix" => Box::new(Radix),
        "bucket" => Box::new(Bucket),
        "bitonic" => Box::new(Bitonic),
        "bisect" => Box::new(Bisect::exact()),
        _ => return None,
    })
}

/// The algorithm called `name` for rows of `E` (any [`Element`]), with
/// the defaults of [`by_name`].
pub fn by_name_for<E: Element>(name: &str) -> Option<Box<dyn RowTopKOf<E>>> {
    Some(match name {
        "heap" => E::boxed(Heap),
        "quickselect" => E::boxed(Quickselect),
        "radix" => E::boxed(Radix),
        "bucket" => E::boxed(Bucket),
        "bitonic" => E::boxed(Bitonic),
        "bisect" => E::boxed(Bisect::exact()),
        _ => return None,
    })
}
