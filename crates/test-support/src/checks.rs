//! The checks of one algorithm's answer against topk-ref's oracle, for any element type, and
//! the property test that runs one of them on generated rows ([`row_property!`]).

use ndarray::Array2;
use proptest::prelude::*;
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};
use topk_ref::{
    ALGORITHM_NAMES, Element, KPerRow, Options, RaggedTopK, RowTopKOf, Rows, WorkCounters,
    by_name_for, topk_row,
};

use crate::RaggedShape;

/// A failed case with the error's message.
pub fn fail(e: impl ToString) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// The six algorithms of topk-ref (bisect exact) for rows of `E`.
pub fn reference_algorithms<E: Element>() -> Vec<Box<dyn RowTopKOf<E>>> {
    ALGORITHM_NAMES.iter().map(|name| by_name_for::<E>(name).expect("a registered name")).collect()
}

/// The oracle's `k` indices of `row` in the order `opts` asks for.
pub fn oracle_indices<E: Element>(row: &[E], k: usize, opts: Options) -> Vec<u32> {
    if opts.sorted {
        canonical_sorted_indices(row, k, opts.mode)
    } else {
        canonical_indices(row, k, opts.mode)
    }
}

/// The exact-algorithm check: the oracle's indices in the requested order, and values that
/// are the input's bits at those indices. Returns the work of the selection.
pub fn check_exact<E: Element>(
    algo: &dyn RowTopKOf<E>,
    row: &[E],
    k: usize,
    opts: Options,
) -> Result<WorkCounters, TestCaseError> {
    let got = topk_row(algo, row, k, opts).map_err(fail)?;
    let want = oracle_indices(row, k, opts);
    prop_assert_eq!(&got.indices, &want, "{} {} k={} {:?}", algo.name(), E::NAME, k, opts);
    for (v, &i) in got.values.iter().zip(&got.indices) {
        prop_assert_eq!(v.to_bits(), row[i as usize].to_bits());
    }
    Ok(got.stats.work)
}

/// [`check_exact`], and work counters that at least read the row once and write the k
/// results.
pub fn check_exact_and_work<E: Element>(
    algo: &dyn RowTopKOf<E>,
    row: &[E],
    k: usize,
    opts: Options,
) -> Result<(), TestCaseError> {
    let w = check_exact(algo, row, k, opts)?;
    if k > 0 {
        prop_assert!(w.passes >= 1 && w.elements_read >= row.len() as u64, "{:?}", w);
        prop_assert!(w.elements_written >= k as u64, "{:?}", w);
    }
    Ok(())
}

/// The rows of a ragged request of `shape` (its lengths and k), with `hint`.
pub fn ragged_rows<'a>(shape: &'a RaggedShape, hint: Option<&'a [f32]>) -> Rows<'a> {
    let k = if shape.per_row_k { KPerRow::PerRow(&shape.k) } else { KPerRow::One(shape.one_k()) };
    Rows { lengths: Some(&shape.lengths), k, hint }
}

/// The same ragged answer as the oracle's: indices, values and thresholds bit for bit.
pub fn check_same_ragged<E: Element>(
    name: &str,
    got: &RaggedTopK<E>,
    want: &RaggedTopK<E>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(&got.indices, &want.indices, "{} {}", name, E::NAME);
    let bits = |a: &Array2<E>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    prop_assert_eq!(bits(&got.values), bits(&want.values), "{} {} values", name, E::NAME);
    let tbits = |t: &RaggedTopK<E>| t.threshold.as_ref().map(|t| t.mapv(f32::to_bits));
    prop_assert_eq!(tbits(got), tbits(want), "{} {} thresholds", name, E::NAME);
    Ok(())
}

/// Property tests `$name`, `$cases` cases each, of `$check($args.., row, k, opts)`: rows of
/// `$elem` of width up to `$width` ([`crate::Generated::row`]), k by [`crate::pick_k`] (0, 1,
/// M−1, M or random), both modes, sorted and unsorted output. `$check` is one of the checks
/// above with its algorithm as argument (`check_exact(&Heap)`), or the caller's own.
#[macro_export]
macro_rules! row_property {
    (@call $check:ident($($arg:expr),*), $($rest:expr),*) => {
        $check($($arg,)* $($rest),*)
    };
    ($cases:expr, $check:ident $args:tt, $width:expr; [$($name:ident: $elem:ty),+ $(,)?]) => {
        $crate::row_property!($cases, $check $args, $width; $($name: $elem),+);
    };
    ($cases:expr, $check:ident $args:tt, $width:expr; $($name:ident: $elem:ty),+ $(,)?) => {
        ::proptest::proptest! {
            #![proptest_config(::proptest::prelude::ProptestConfig {
                cases: $cases,
                ..::proptest::prelude::ProptestConfig::default()
            })]
            $(
                #[test]
                fn $name(row in <$elem as $crate::Generated>::row($width), which in 0u8..6,
                         frac in 0.0f64..1.0, smallest: bool, sorted: bool) {
                    let k = $crate::pick_k(row.len(), which, frac);
                    let opts = ::topk_ref::Options {
                        mode: ::topk_ref::Mode::from_smallest(smallest),
                        sorted,
                    };
                    $crate::row_property!(@call $check $args, &row, k, opts)?;
                }
            )+
        }
    };
}

/// [`row_property!`] of each algorithm `$algo` on each element type of `$types`
/// (`[name: type, ...]`): a module `$module` per algorithm, a test per type.
#[macro_export]
macro_rules! row_properties {
    ($cases:expr, $check:ident, $width:expr; $types:tt; $($module:ident: $algo:expr),+ $(,)?) => {$(
        mod $module {
            use super::*;
            $crate::row_property!($cases, $check(&$algo), $width; $types);
        }
    )+};
}

/// Property tests `$name`, `$cases` cases each, of `$check(x.view(), &shape, opts)` on ragged
/// requests ([`crate::ragged_matrix`] of `$elem`, width up to `$width`), both modes, sorted
/// and unsorted output.
#[macro_export]
macro_rules! ragged_property {
    ($cases:expr, $check:ident, $width:expr; $($name:ident: $elem:ty),+ $(,)?) => {
        ::proptest::proptest! {
            #![proptest_config(::proptest::prelude::ProptestConfig {
                cases: $cases,
                ..::proptest::prelude::ProptestConfig::default()
            })]
            $(
                #[test]
                fn $name((x, shape) in $crate::ragged_matrix::<$elem>($width), smallest: bool,
                         sorted: bool) {
                    let opts = ::topk_ref::Options {
                        mode: ::topk_ref::Mode::from_smallest(smallest),
                        sorted,
                    };
                    $check(x.view(), &shape, opts)?;
                }
            )+
        }
    };
}
