//! Every element type but `f32` through the library face: 16-bit matrices (`f16`, `bf16`) and
//! `f64` and integer matrices (`i8`, `u8`, `i16`, `i32`, `i64`). Every CPU algorithm of the
//! registry that takes the type against `topk_ref::oracle` on hostile rows (NaN payloads of
//! both signs, ±inf, ±0, subnormals; integer ends, 0, -1; heavy ties; k ∈ {0, 1, M−1, M}, M
//! not a multiple of 32), values the input's own bits, the simulator too (its iteration counts
//! `bisect`'s; 64-bit rows on its wide rows); an algorithm that does not take a type refuses
//! it by name and type. `cuda` is checked on the GPU (rtopk-cuda's GPU tests, `rtopk verify cuda`);
//! radix-style algorithms report fewer digit passes on 16-bit keys.

use ndarray::{Array2, ArrayView2};
use proptest::prelude::*;
use rtopk::{
    Algorithm, Device, Dtype, Error, Mode, Options, Request, RowWise, Selection, Value, bf16, f16,
    registry, select,
};
use topk_ref::Heap;
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};

/// Rows up to this wide.
const MAX_WIDTH: usize = 300;

/// Indices and value bits of every row equal the oracle's.
pub(crate) fn assert_canonical<E: Value>(
    name: &str,
    x: ArrayView2<'_, E>,
    k: usize,
    opts: Options,
    out: &Selection<E>,
) {
    assert_eq!(out.topk.indices.dim(), (x.nrows(), k), "{name}");
    for (r, row) in x.rows().into_iter().enumerate() {
        let row = row.to_vec();
        let want = if opts.sorted {
            canonical_sorted_indices(&row, k, opts.mode)
        } else {
            canonical_indices(&row, k, opts.mode)
        };
        assert_eq!(out.topk.indices.row(r).to_vec(), want, "{name} {} row {r} k={k}", E::NAME);
        for (&i, &v) in want.iter().zip(out.topk.values.row(r)) {
            assert_eq!(v.to_bits(), row[i as usize].to_bits(), "{name} row {r} value bits");
        }
    }
}

/// Every registry algorithm on `x` but the GPU's (not on this machine): canonical, with the
/// capabilities they declare; a type one does not take refused by name and type.
fn every_algorithm<E: Value>(x: ArrayView2<'_, E>, k: usize, opts: Options) {
    for entry in registry::ALGORITHMS.iter().filter(|e| e.caps.device == Device::Cpu) {
        let request = Request::builder(entry.name).k(k).options(opts);
        let result = select(x, &request.iterations(entry.caps.iterations).build().unwrap());
        if !entry.caps.takes(E::DTYPE) {
            let e = result.unwrap_err();
            assert!(matches!(&e, Error::DtypeNotSupported { dtype, .. } if *dtype == E::DTYPE));
            let text = e.to_string();
            let says = format!("'{}' does not take {} input", entry.name, E::DTYPE);
            assert!(text.contains(&says) && text.contains("heap, quickselect"), "{text}");
            assert!(text.contains("bisect") && !text.contains(&format!("{}, ", entry.name)));
            assert!(e.is_user_error(), "{e}");
            continue;
        }
        let out = result.unwrap();
        assert_canonical(entry.name, x, k, opts, &out);
        assert_eq!(out.topk.iterations.is_some(), entry.caps.iterations, "{}", entry.name);
        assert_eq!(out.work.is_some(), entry.caps.work_counters, "{}", entry.name);
    }
}

/// `(n, m, data)`: up to 3 rows of up to [`MAX_WIDTH`] values of `T`, drawn from `edges`
/// (the type's ends, 0, -1, NaNs, ...), a few tied values, and any bit pattern.
fn matrix_of<T: Value + Arbitrary>(edges: Vec<T>) -> impl Strategy<Value = (usize, usize, Vec<T>)> {
    let ties = edges.iter().copied().take(2).collect::<Vec<_>>();
    let element = prop_oneof![
        2 => prop::sample::select(edges),
        2 => prop::sample::select(ties),
        3 => any::<T>(),
    ];
    (0usize..4, 1usize..=MAX_WIDTH).prop_flat_map(move |(n, m)| {
        prop::collection::vec(element.clone(), n * m).prop_map(move |d| (n, m, d))
    })
}

/// The edge values of an integer type: its ends, 0, -1 (or 1), and a tie value.
macro_rules! int_edges {
    ($t:ty) => {
        vec![3 as $t, <$t>::MIN, <$t>::MAX, 0, (0 as $t).wrapping_sub(1), 1]
    };
}

/// A property test of every CPU algorithm against the oracle on matrices of one type.
macro_rules! oracle_on {
    ($($name:ident: $matrix:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(16))]
            $(
                #[test]
                fn $name(
                    (n, m, data) in $matrix,
                    which in 0u8..6,
                    frac in 0.0f64..1.0,
                    smallest in any::<bool>(),
                    sorted in any::<bool>(),
                ) {
                    let x = Array2::from_shape_vec((n, m), data).unwrap();
                    let k = test_support::pick_k(m, which, frac);
                    let opts = Options { mode: Mode::from_smallest(smallest), sorted };
                    every_algorithm(x.view(), k, opts);
                }
            )*
        }
    };
}

oracle_on! {
    every_cpu_algorithm_is_the_oracle_on_f16: test_support::matrix_f16(MAX_WIDTH);
    every_cpu_algorithm_is_the_oracle_on_bf16: test_support::matrix_bf16(MAX_WIDTH);
    every_cpu_algorithm_is_the_oracle_on_i8: matrix_of::<i8>(int_edges!(i8));
    every_cpu_algorithm_is_the_oracle_on_u8: matrix_of::<u8>(int_edges!(u8));
    every_cpu_algorithm_is_the_oracle_on_i16: matrix_of::<i16>(int_edges!(i16));
    every_cpu_algorithm_is_the_oracle_on_i32: matrix_of::<i32>(int_edges!(i32));
    every_cpu_algorithm_is_the_oracle_on_i64: matrix_of::<i64>(int_edges!(i64));
    every_cpu_algorithm_is_the_oracle_on_f64: matrix_of::<f64>(vec![
        1.5,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::from_bits(1),
        -f64::MIN_POSITIVE / 2.0,
        f64::MAX,
    ]);
}

/// The types the 32-bit-key baselines do not take (f64, i64) are refused by them, and taken
/// by every other algorithm (the table says which): the kernel (`sim`, `cuda`) takes them on
/// its 64-bit wide rows.
#[test]
fn wide_types_are_taken_where_the_table_says() {
    let key32 = ["air", "gridselect", "warpselect", "drtopk", "sort"];
    for dtype in [Dtype::Float64, Dtype::Int64] {
        let takers = registry::names_where(|c| c.takes(dtype));
        assert!(takers.iter().all(|n| !key32.contains(n)), "{takers:?}");
        assert!(takers.contains(&"sim") && takers.contains(&"cuda"), "{takers:?}");
        assert_eq!(takers.len(), registry::ALGORITHMS.len() - key32.len(), "{dtype}");
    }
    // the kernel (simulated and on the GPU) takes every integer type
    for dtype in [Dtype::Int8, Dtype::Uint8, Dtype::Int16, Dtype::Int32] {
        let takers = registry::names_where(|c| c.takes(dtype));
        assert_eq!(takers.len(), registry::ALGORITHMS.len(), "{dtype}");
    }
    let x = Array2::from_shape_fn((2, 40), |(r, c)| (c as i64 - 20) << (r * 40));
    let out = select(x.view(), &Request::builder("sim").k(3).sorted(true).build().unwrap());
    let out = out.unwrap();
    assert_eq!(out.topk.indices, ndarray::array![[39, 38, 37], [39, 38, 37]]);
    assert!(out.diagnostics.unwrap().kernel.starts_with("rtopk_wide_rows"));
    let e = select(x.view(), &Request::new("air", 3).unwrap()).unwrap_err();
    assert!(e.to_string().contains("use an algorithm that takes int64: heap"), "{e}");
    // A generic RowWise of a 32-bit-key baseline says so itself.
    let air = RowWise::generic(baselines::Air::default());
    assert!(!air.caps().takes(Dtype::Int64) && air.caps().takes(Dtype::Int32));
}

/// Integer rows (docs/contract.md §3): the search runs on the values, at most as many steps as
/// the type has bits, exact, with no fallback; early stopping still gives k distinct indices.
#[test]
fn integer_iteration_counts_are_at_most_the_width() {
    fn counts<T: Value>(x: Array2<T>, bits: u32) {
        for (k, smallest) in [(1, false), (17, true), (63, false)] {
            let opts = Options { mode: Mode::from_smallest(smallest), sorted: false };
            let r = Request::builder("bisect").k(k).iterations(true).options(opts);
            let out = select(x.view(), &r.build().unwrap()).unwrap();
            let its = out.topk.iterations.clone().unwrap();
            assert!(its.iter().all(|&c| c <= bits), "{} {its}", T::NAME);
            assert_canonical("bisect", x.view(), k, opts, &out);
        }
    }
    let spread = |r: usize, c: usize| (r * 7919 + c * 104_729) as u64;
    counts(Array2::from_shape_fn((5, 70), |(r, c)| spread(r, c) as i8), 8);
    counts(Array2::from_shape_fn((5, 70), |(r, c)| spread(r, c) as u8), 8);
    counts(Array2::from_shape_fn((5, 70), |(r, c)| (spread(r, c) * 40_503) as i16), 16);
    counts(Array2::from_shape_fn((5, 70), |(r, c)| (spread(r, c) * 2_654_435_761) as i32), 32);
    let wide = |(r, c)| spread(r, c).wrapping_mul(0x9e37_79b9_7f4a_7c15) as i64;
    counts(Array2::from_shape_fn((5, 70), wide), 64);
    // extremes only: one step splits them
    let ends =
        Array2::from_shape_fn((1, 65), |(_, c)| if c % 2 == 0 { i64::MIN } else { i64::MAX });
    counts(ends, 64);
}

#[test]
fn every_f16_and_bf16_bit_pattern_in_one_shuffled_row() {
    let f = Array2::from_shape_vec((1, 1 << 16), test_support::every_f16(7)).unwrap();
    let b = Array2::from_shape_vec((1, 1 << 16), test_support::every_bf16(8)).unwrap();
    let names: Vec<&str> =
        registry::names_where(|c| c.takes(Dtype::Float16) && c.device == Device::Cpu);
    for (k, mode, sorted) in [(1, Mode::Largest, true), (4097, Mode::Smallest, false)] {
        let opts = Options { mode, sorted };
        for name in &names {
            let request = Request::builder(*name).k(k).options(opts).build().unwrap();
            assert_canonical(name, f.view(), k, opts, &select(f.view(), &request).unwrap());
            assert_canonical(name, b.view(), k, opts, &select(b.view(), &request).unwrap());
        }
    }
}

#[test]
fn sixteen_bit_rows_give_the_answer_of_their_exact_f32_values() {
    // docs/contract.md §1: each element is ordered by its exact f32 value, so the widened matrix has the
    // same canonical indices (its values are the same numbers, as f32).
    let x = topk_ref::Family::Ties.matrix(16, 77, 3).unwrap().mapv(f16::from_f32);
    let wide = x.mapv(f16::to_f32);
    let r = Request::new("bisect", 9).unwrap();
    let (h, w) = (select(x.view(), &r).unwrap(), select(wide.view(), &r).unwrap());
    assert_eq!(h.topk.indices, w.topk.indices);
    let same = h.topk.values.iter().zip(&w.topk.values).all(|(a, b)| a.to_f32() == *b);
    assert!(same);
}

#[test]
fn radix_style_algorithms_take_fewer_digit_passes_on_16_bit_keys() {
    // The same values as f32, f16 and bf16 rows (every value is exact in all three). The
    // exact counts below are f16's; bf16 never moves more than f32.
    let (n, m, k) = (8, 1000, 500);
    let x32 = Array2::from_shape_fn((n, m), |(r, c)| {
        if c % 3 == 0 { 1.5 } else { ((r * 7 + c * 13) % 101) as f32 * 0.25 }
    });
    let (x16, xb) = (x32.mapv(f16::from_f32), x32.mapv(bf16::from_f32));
    let work = |name: &str| {
        let r = Request::new(name, k).unwrap();
        let w32 = select(x32.view(), &r).unwrap().work.unwrap();
        let w16 = select(x16.view(), &r).unwrap().work.unwrap();
        let wb = select(xb.view(), &r).unwrap().work.unwrap();
        // bf16 keys are 16 bits too, but how many candidates survive a digit (AIR reads
        // them from a buffer rather than the row when few do) depends on the bits.
        assert!(wb.passes <= w32.passes && wb.elements_read <= w32.elements_read, "{name}");
        (w32, w16)
    };
    // Passes over the row, per row: AIR's 11 + 11 + 10-bit digits against 11 + 5 (3 against
    // 2), torch's 2-bit digits (16 against 8, plus its two other sweeps), the LSD sort's
    // 8-bit scatters (4 against 2, plus the key sweep).
    for (name, per_row_32, per_row_16) in [("air", 3, 2), ("torch-radix", 18, 10), ("sort", 5, 3)] {
        let (w32, w16) = work(name);
        let per_row = (w32.passes / n as u64, w16.passes / n as u64);
        assert_eq!(per_row, (per_row_32, per_row_16), "{name}");
        assert!(w16.elements_read < w32.elements_read, "{name}: {w32:?} {w16:?}");
    }
    // radix: one sweep either way; its later digits read the surviving candidates, and a
    // 16-bit key has two digits, not four.
    let (w32, w16) = work("radix");
    assert_eq!(w16.passes, w32.passes);
    assert!(w16.elements_read < w32.elements_read, "radix: {w32:?} {w16:?}");
    // Algorithms without digits move the same data whatever the key width.
    for name in ["heap", "quickselect", "bucket", "bitonic", "gridselect", "warpselect"] {
        let (w32, w16) = work(name);
        assert_eq!(w16, w32, "{name}");
    }
}

#[test]
fn f32_only_algorithms_refuse_16_bit_matrices_before_any_work() {
    let x = Array2::from_elem((2, 5), f16::ONE);
    for name in registry::names_where(|c| !c.takes(Dtype::Float16)) {
        // Even a request the shape would refuse: the type is checked first, and no GPU is
        // looked for.
        for k in [2, 9] {
            let e = select(x.view(), &Request::new(name, k).unwrap()).unwrap_err();
            assert!(matches!(e, Error::DtypeNotSupported { .. }), "{name}: {e}");
        }
        let b = x.mapv(|v| bf16::from_f32(v.to_f32()));
        let e = select(b.view(), &Request::new(name, 2).unwrap()).unwrap_err();
        assert!(e.to_string().contains("does not take bfloat16 input"), "{e}");
    }
    // A caller's own f32 algorithm (RowWise::new) takes f32 only; RowWise::generic takes all.
    let own = RowWise::new(Heap);
    assert_eq!(own.caps().dtypes, [Dtype::Float32]);
    let e = (&own as &dyn Algorithm).select_as(x.view(), 2, Options::default()).unwrap_err();
    assert!(e.to_string().contains("'heap' does not take float16"), "{e}");
    let generic = RowWise::generic(Heap);
    assert_eq!(generic.caps().dtypes, Dtype::ALL);
    let out = (&generic as &dyn Algorithm).select_as(x.view(), 2, Options::default()).unwrap();
    assert_eq!(out.topk.indices, ndarray::array![[0, 1], [0, 1]]);
    // No rows: an empty result of the input's type.
    let none = Array2::from_elem((0, 4), bf16::ZERO);
    for entry in registry::ALGORITHMS.iter().filter(|e| e.caps.device == Device::Cpu) {
        let out = select(none.view(), &Request::new(entry.name, 3).unwrap());
        match out {
            Ok(out) => assert_eq!(out.topk.values.dim(), (0, 3), "{}", entry.name),
            Err(e) => assert!(!entry.caps.takes(Dtype::Bfloat16), "{}: {e}", entry.name),
        }
    }
}
