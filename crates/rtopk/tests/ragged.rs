//! Ragged requests through the door (docs/contract.md §5): every CPU algorithm and baseline of
//! the registry, given rows of their own length, a k per row and hints through one
//! [`Request`], returns the ragged oracle's answer — indices (padding [`PAD_INDEX`]), value bits
//! (padding all bits zero) and thresholds bit for bit — on hostile rows (test-support's
//! generators: NaN payloads of both signs, ±inf, ±0, subnormals, heavy ties, widths not a
//! multiple of 32, lengths 0 and M, k 0 and above the length, NaN and copies of the valid
//! values past the length, or each integer type's extremes) in f32, f16, bf16, i8, u8, i16
//! and i32. Hints never change an answer; the threshold output alone is given by every
//! algorithm (the simulator's included), read off the selection (the simulator's and the GPU's
//! write it with a step of their own); the simulated kernel takes hints with iteration counts,
//! `bisect`'s with the same hints.

use ndarray::{Array1, Array2, ArrayView2};
use proptest::prelude::*;
use rtopk::{
    Device, Element, Error, Family, K, KernelElement, Mode, Options, PAD_INDEX, Request,
    RequestBuilder, Selection, bf16, f16, registry, select,
};
use test_support::{
    Float16, HintKind, IntElement, RaggedShape, SPECIALS_F32, matrix, matrix_int, matrix16,
    poison_tails, ragged_shape, specials_int, specials16,
};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{KPerRow, RaggedTopK, Rows};

fn fail(e: impl ToString) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// The registry's algorithms on the CPU that take ragged requests: every one, the simulator's
/// kernel included (the GPU kernel's are checked on the device: rtopk-cuda's `gpu_ragged`).
fn ragged_algorithms() -> Vec<&'static str> {
    registry::names_where(|c| c.ragged && c.device == Device::Cpu)
}

/// topk-ref's description of the shape (for the oracle).
fn rows_of(shape: &RaggedShape) -> Rows<'_> {
    let k = if shape.per_row_k { KPerRow::PerRow(&shape.k) } else { KPerRow::One(shape.one_k()) };
    Rows { lengths: Some(&shape.lengths), k, hint: None }
}

/// The same shape as a request of `algo`.
fn request_of(algo: &str, shape: &RaggedShape, opts: Options) -> RequestBuilder {
    let k = if shape.per_row_k { K::PerRow(shape.k.clone()) } else { K::One(shape.one_k()) };
    Request::builder(algo).k_of(k).lengths(shape.lengths.clone()).options(opts).threshold(true)
}

/// The hints of the shape's kind (each row's own threshold for `Exact` and `Perturbed`: the
/// door's tests look at answers; topk-ref's at the counts of each kind).
fn hints_of(shape: &RaggedShape, oracle: &RaggedTopK<impl Element>) -> Option<Vec<f32>> {
    let n = shape.lengths.len();
    match shape.hint {
        HintKind::None => None,
        HintKind::Random => Some(shape.random_hints.clone()),
        HintKind::Nan => Some(vec![f32::NAN; n]),
        HintKind::PosInf => Some(vec![f32::INFINITY; n]),
        HintKind::NegInf => Some(vec![f32::NEG_INFINITY; n]),
        HintKind::Exact | HintKind::Perturbed => oracle.threshold.as_ref().map(|t| t.to_vec()),
    }
}

/// Indices, value bits and threshold bits equal the oracle's.
fn check_same<E: KernelElement>(
    name: &str,
    got: &Selection<E>,
    want: &RaggedTopK<E>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(&got.topk.indices, &want.indices, "{} {}", name, E::NAME);
    let bits = |a: &Array2<E>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    prop_assert_eq!(bits(&got.topk.values), bits(&want.values), "{} values", name);
    let tbits = |t: &Option<Array1<f32>>| t.as_ref().map(|t| t.mapv(f32::to_bits));
    prop_assert_eq!(tbits(&got.threshold), tbits(&want.threshold), "{} thresholds", name);
    Ok(())
}

/// Every ragged algorithm through `select`, with and without the shape's hints, against the
/// oracle; `bisect`'s iteration counts 0 where a row selects nothing (docs/contract.md §5);
/// the simulated kernel counts as `bisect` does, with and without the same hints.
fn check_ragged<E: KernelElement>(
    x: ArrayView2<'_, E>,
    shape: &RaggedShape,
    opts: Options,
) -> Result<(), TestCaseError> {
    let want = canonical_ragged(x, &rows_of(shape), opts).map_err(fail)?;
    let hints = hints_of(shape, &want);
    for algo in ragged_algorithms() {
        let plain = request_of(algo, shape, opts).build().map_err(fail)?;
        check_same(algo, &select(x, &plain).map_err(fail)?, &want)?;
        if let Some(h) = &hints {
            let hinted = request_of(algo, shape, opts).hint(h.clone()).build().map_err(fail)?;
            check_same(algo, &select(x, &hinted).map_err(fail)?, &want)?;
        }
    }
    let hints = hints.unwrap_or_else(|| vec![f32::NAN; x.nrows()]);
    let counted = request_of("bisect", shape, opts).iterations(true).hint(hints.clone());
    let out = select(x, &counted.build().map_err(fail)?).map_err(fail)?;
    let its = out.topk.iterations.as_ref().expect("asked for");
    let rows = rows_of(shape);
    for r in (0..x.nrows()).filter(|&r| rows.selected(r, x.ncols()) == 0) {
        prop_assert_eq!(its[r], 0, "row {} selects nothing", r);
    }
    // the simulated kernel's counts are bisect's, without a hint and with the same hints
    let sim = select(x, &request_of("sim", shape, opts).iterations(true).build().map_err(fail)?);
    let plain = select(x, &request_of("bisect", shape, opts).iterations(true).build().unwrap());
    prop_assert_eq!(&sim.map_err(fail)?.topk.iterations, &plain.map_err(fail)?.topk.iterations);
    let hinted = request_of("sim", shape, opts).iterations(true).hint(hints);
    let sim = select(x, &hinted.build().map_err(fail)?).map_err(fail)?;
    check_same("sim", &sim, &want)?;
    prop_assert_eq!(&sim.topk.iterations, &out.topk.iterations, "sim counts with hints");
    Ok(())
}

/// `(n, m, values, shape)` of f32 with the tails poisoned as the shape says.
fn ragged_f32(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<f32>, RaggedShape)> {
    matrix(max_width).prop_flat_map(|(n, m, values)| {
        (Just(n), Just(m), Just(values), ragged_shape(n, m)).prop_map(|(n, m, mut v, shape)| {
            poison_tails(&mut v, m, &shape.lengths, shape.tail, SPECIALS_F32);
            (n, m, v, shape)
        })
    })
}

/// [`ragged_f32`] of a 16-bit type.
fn ragged16<T: Float16>(
    max_width: usize,
) -> impl Strategy<Value = (usize, usize, Vec<T>, RaggedShape)> {
    matrix16::<T>(max_width).prop_flat_map(|(n, m, values)| {
        (Just(n), Just(m), Just(values), ragged_shape(n, m)).prop_map(|(n, m, mut v, shape)| {
            poison_tails(&mut v, m, &shape.lengths, shape.tail, specials16::<T>());
            (n, m, v, shape)
        })
    })
}

/// [`ragged_f32`] of an integer type (the tails poisoned with its extremes).
fn ragged_int<T: IntElement>(
    max_width: usize,
) -> impl Strategy<Value = (usize, usize, Vec<T>, RaggedShape)> {
    matrix_int::<T>(max_width).prop_flat_map(|(n, m, values)| {
        (Just(n), Just(m), Just(values), ragged_shape(n, m)).prop_map(|(n, m, mut v, shape)| {
            poison_tails(&mut v, m, &shape.lengths, shape.tail, specials_int::<T>());
            (n, m, v, shape)
        })
    })
}

fn options(smallest: bool, sorted: bool) -> Options {
    Options { mode: Mode::from_smallest(smallest), sorted }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn f32_ragged_requests_match_the_oracle(
        (n, m, values, shape) in ragged_f32(300), smallest: bool, sorted: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        check_ragged(x.view(), &shape, options(smallest, sorted))?;
    }

    #[test]
    fn f16_ragged_requests_match_the_oracle(
        (n, m, values, shape) in ragged16::<f16>(200), smallest: bool, sorted: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        check_ragged(x.view(), &shape, options(smallest, sorted))?;
    }

    #[test]
    fn bf16_ragged_requests_match_the_oracle(
        (n, m, values, shape) in ragged16::<bf16>(200), smallest: bool, sorted: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        check_ragged(x.view(), &shape, options(smallest, sorted))?;
    }

    /// Integer rows (the kernel's four integer types): every CPU algorithm and the simulated
    /// kernel, its counts `bisect`'s with and without hints (an integer row's hint test is at
    /// the least integer at or above the hint, docs/contract.md §3).
    #[test]
    fn integer_ragged_requests_match_the_oracle(
        a in ragged_int::<i8>(200), b in ragged_int::<u8>(200), c in ragged_int::<i16>(200),
        d in ragged_int::<i32>(300), smallest: bool, sorted: bool,
    ) {
        let opts = options(smallest, sorted);
        let x = Array2::from_shape_vec((a.0, a.1), a.2).unwrap();
        check_ragged(x.view(), &a.3, opts)?;
        let x = Array2::from_shape_vec((b.0, b.1), b.2).unwrap();
        check_ragged(x.view(), &b.3, opts)?;
        let x = Array2::from_shape_vec((c.0, c.1), c.2).unwrap();
        check_ragged(x.view(), &c.3, opts)?;
        let x = Array2::from_shape_vec((d.0, d.1), d.2).unwrap();
        check_ragged(x.view(), &d.3, opts)?;
    }

    /// The threshold output alone (one k, whole rows): every algorithm, the simulator's
    /// kernel included, gives the oracle's thresholds beside its plain answer.
    #[test]
    fn every_algorithm_gives_the_threshold_of_a_plain_request(
        (n, m, values) in matrix(200), which in 0u8..6, frac in 0.0f64..1.0,
        smallest: bool, sorted: bool,
    ) {
        let x = Array2::from_shape_vec((n, m), values).unwrap();
        let k = test_support::pick_k(m, which, frac);
        let opts = options(smallest, sorted);
        let want = canonical_ragged(x.view(), &Rows::new(k), opts).unwrap();
        for e in registry::ALGORITHMS.iter().filter(|e| e.caps.device == Device::Cpu) {
            let r = Request::builder(e.name).k(k).options(opts).threshold(true).build().unwrap();
            let got = select(x.view(), &r).map_err(fail)?;
            check_same(e.name, &got, &want)?;
            let without = Request::builder(e.name).k(k).options(opts).build().unwrap();
            let without = select(x.view(), &without).map_err(fail)?;
            prop_assert!(without.threshold.is_none());
            prop_assert_eq!(&without.topk.indices, &got.topk.indices);
        }
    }
}

#[test]
fn full_lengths_and_one_k_give_the_plain_answer() {
    let x = Family::Ties.matrix(9, 77, 3).unwrap();
    let cpu = registry::names_where(|c| c.device == Device::Cpu);
    assert_eq!(ragged_algorithms().len(), cpu.len(), "every CPU algorithm, sim included");
    for algo in ragged_algorithms() {
        for opts in [Options::default(), options(true, true)] {
            let plain = Request::builder(algo).k(13).options(opts).build().unwrap();
            let plain = select(x.view(), &plain).unwrap();
            let ragged = Request::builder(algo).k(13).options(opts).lengths(vec![77; 9]);
            let ragged = select(x.view(), &ragged.build().unwrap()).unwrap();
            assert_eq!(ragged.topk.indices, plain.topk.indices, "{algo}");
            assert_eq!(ragged.topk.values, plain.topk.values, "{algo}");
            let per_row = Request::builder(algo).k_per_row(vec![13; 9]).options(opts);
            let per_row = select(x.view(), &per_row.build().unwrap()).unwrap();
            assert_eq!(per_row.topk.indices, plain.topk.indices, "{algo}");
        }
    }
}

#[test]
fn hand_checked_ragged_request() {
    // Row 0: NaN past its length; row 1 asks more than its length; row 2 has length 0; row 3
    // asks k = 0.
    let x = ndarray::array![
        [5.0f32, 1.0, 9.0, f32::NAN],
        [2.0, -0.0, 3.0, 7.0],
        [1.0, 2.0, 3.0, 4.0],
        [8.0, 8.0, 8.0, 8.0],
    ];
    let request = Request::builder("radix")
        .k_per_row(vec![2, 3, 1, 0])
        .lengths(vec![3, 2, 0, 4])
        .threshold(true)
        .build()
        .unwrap();
    let out = select(x.view(), &request).unwrap();
    let p = PAD_INDEX;
    assert_eq!(out.topk.indices, ndarray::array![[0, 2, p], [0, 1, p], [p, p, p], [p, p, p]]);
    let bits: Vec<u32> = out.topk.values.iter().map(|v| v.to_bits()).collect();
    let want = [5.0f32, 9.0, 0.0, 2.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    assert_eq!(bits, want.map(f32::to_bits), "-0.0 selected keeps its sign, padding is +0");
    let t = out.threshold.unwrap();
    assert_eq!((t[0], t[1].to_bits()), (5.0, (-0.0f32).to_bits()));
    assert!(t[2].is_nan() && t[3].is_nan());
    assert!(out.work.unwrap().elements_read >= 5);
}

#[test]
fn a_selection_reused_for_a_plain_request_drops_the_threshold() {
    let x = Family::Normal.matrix(4, 40, 1).unwrap();
    let mut out = Selection::default();
    let with = Request::builder("heap").k(3).threshold(true).build().unwrap();
    rtopk::select_into(x.view(), &with, &mut out).unwrap();
    assert_eq!(out.threshold.as_ref().map(|t| t.len()), Some(4));
    rtopk::select_into(x.view(), &Request::new("heap", 3).unwrap(), &mut out).unwrap();
    assert!(out.threshold.is_none());
    let ragged = Request::builder("heap").k(3).lengths(vec![1, 2, 3, 40]).build().unwrap();
    rtopk::select_into(x.view(), &ragged, &mut out).unwrap();
    assert!(out.threshold.is_none());
    assert_eq!(out.topk.indices[[0, 1]], PAD_INDEX);
}

#[test]
fn device_buffers_take_thresholds_and_hints_in_their_own_arrays() {
    use rtopk::cuda::{RawBuffers, Shape, check_raw};
    use rtopk::{Dtype, Place};
    let r = Request::builder("cuda")
        .k(2)
        .threshold(true)
        .hint(vec![0.5])
        .iterations(true)
        .place(Place::Cuda(0))
        .build()
        .unwrap();
    let shape = Shape { n: 1, m: 8, dtype: Dtype::Float32 };
    let bufs = RawBuffers { x: 1, values: 2, indices: 3, iterations: 4, ..RawBuffers::default() };
    let all = RawBuffers { hint: 5, threshold: 6, ..bufs };
    assert!(check_raw(&r, shape, all).is_ok());
    for (missing, name) in [
        (RawBuffers { hint: 5, ..bufs }, "threshold"),
        (RawBuffers { threshold: 6, ..bufs }, "hint"),
    ] {
        let e = check_raw(&r, shape, missing).unwrap_err();
        assert!(matches!(e, Error::TopK(_)) && e.is_user_error(), "{e}");
        assert!(e.to_string().contains(name) && e.to_string().contains("missing"), "{e}");
    }
}
