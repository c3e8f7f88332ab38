//! 64-bit rows (docs/kernel.md, "64-bit rows") through the door's `sim` on the CPU: f64 and i64
//! matrices run the simulated wide rows (`rtopk_wide_rows_<EPL>`, every width and rows past
//! them), with topk-ref `bisect`'s answer bit for bit — indices, value bits and iteration
//! counts (docs/contract.md §3) — exact, with early stopping, a precision or a recall target,
//! both modes, sorted or not, on hostile rows (NaN of both signs and payloads, ±inf, ±0,
//! subnormals, the ends, heavy ties, values an f32 cannot tell apart), and no simulator
//! finding. Ragged requests on them (docs/contract.md §5) run the simulated wide rows' ragged
//! twins (`rtopk_wide_rows_ragged_<EPL>`) and the 64-bit threshold step: rows of their own
//! length (0 and M included, NaN, ±inf, the ends and copies of the row past it), a k per row
//! (0, above the length), hints (NaN of both signs, ±inf, ±0, each row's own threshold, near
//! and far ones, and on i64 rows hints beyond ±2^63 and fractional ones) and the threshold
//! output give `bisect`'s answer bit for bit — indices with their padding, value bits (padding
//! 0), iteration counts (with the same hints) and thresholds — and the ragged oracle's where
//! the search is exact. Device buffers of 64-bit rows take every per-row array (the checks
//! before a device is opened; this machine needs no GPU). The GPU's side of the same checks:
//! `tests/gpu_ragged/wide.rs`.

use ndarray::{Array1, Array2, ArrayView2};
use proptest::prelude::*;
use rtopk::cuda::{RawBuffers, Shape, check_raw};
use rtopk::{
    Dtype, Element, K, KernelElement, Mode, Options, PAD_INDEX, Place, Precision, Recall, Request,
    RequestBuilder, Selection, Value, select,
};
use test_support::{HINT64_KINDS, RaggedShape, hint64, ragged_matrix};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{KPerRow, KeyBits, Rows};

fn bits<E: Element>(a: &Array2<E>) -> Vec<u64> {
    a.iter().map(|v| v.to_bits().to_u64()).collect()
}

/// The search of `which`: exact, early stopping after `steps`, a precision, a recall target.
fn search(b: RequestBuilder, which: u8, steps: u32) -> RequestBuilder {
    match which % 4 {
        0 => b,
        1 => b.max_iter(steps),
        2 => b.precision(Precision::new(1e-3).unwrap()),
        _ => b.recall(Recall::new(0.75).unwrap()),
    }
}

/// `sim` against `bisect` on `x`: indices, value bits, iteration counts; the wide rows ran,
/// without a finding; an exact search is the oracle's (`heap`) answer too.
fn sim_is_bisect<E: Value>(x: ArrayView2<'_, E>, k: usize, opts: Options, which: u8, steps: u32) {
    let what = format!("{} {:?} k={k} {opts:?} search {which} steps {steps}", E::NAME, x.dim());
    let run = |algo: &str| -> Selection<E> {
        let b = Request::builder(algo).k(k).options(opts).iterations(algo != "heap");
        select(x, &search(b, which, steps).build().unwrap())
            .unwrap_or_else(|e| panic!("{algo}: {what}: {e}"))
    };
    let (sim, cpu) = (run("sim"), run("bisect"));
    assert_eq!(sim.topk.indices, cpu.topk.indices, "indices, {what}");
    assert_eq!(bits(&sim.topk.values), bits(&cpu.topk.values), "value bits, {what}");
    assert_eq!(sim.topk.iterations, cpu.topk.iterations, "iterations, {what}");
    assert!(sim.topk.iterations.is_some(), "{what}: counts asked for");
    if x.nrows() > 0 && k > 0 {
        let d = sim.diagnostics.expect("the simulator's findings");
        assert!(d.kernel.starts_with("rtopk_wide_rows"), "{what}: {}", d.kernel);
        assert!(d.is_clean(), "{what}: {d}");
    }
    if which % 4 == 0 {
        let want = run("heap");
        assert_eq!(sim.topk.indices, want.topk.indices, "oracle, {what}");
    }
}

/// f64 values to break the search: NaN of both signs and payloads, ±inf, ±0, subnormals, the
/// ends, ties, values one ulp apart and values equal as f32.
fn f64_edges() -> Vec<f64> {
    vec![
        1.5,
        -2.0,
        f64::NAN,
        f64::from_bits(0xFFF8_0000_0000_1234),
        f64::from_bits(0x7FF0_0000_0000_0001),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::from_bits(0x8000_0000_0000_0003),
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        1.0 + (-40f64).exp2(),
        1.0,
        f64::from_bits(0x3FF0_0000_0000_0001),
    ]
}

/// i64 values to break the search: the ends and their neighbours, 0, ±1, ties, values apart
/// in their low bits only.
fn i64_edges() -> Vec<i64> {
    vec![3, -3, i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, 0, -1, 1, 1 << 40, (1 << 40) + 1]
}

/// `(n, m, data)`: up to 5 rows (a partial block of four warps) of up to `max_m` values, drawn
/// from `edges`, two tied values and any bit pattern.
fn matrix_of<T: Value + Arbitrary>(
    edges: Vec<T>,
    max_m: usize,
) -> impl Strategy<Value = (usize, usize, Vec<T>)> {
    let ties = edges.iter().copied().take(2).collect::<Vec<_>>();
    let element = prop_oneof![
        2 => prop::sample::select(edges),
        2 => prop::sample::select(ties),
        3 => any::<T>(),
    ];
    (0usize..6, 1usize..=max_m).prop_flat_map(move |(n, m)| {
        prop::collection::vec(element.clone(), n * m).prop_map(move |d| (n, m, d))
    })
}

/// One drawn case of the property tests: `(n, m)` rows of `data`, k picked by `which_k` and
/// `frac` (at least 1), both modes, sorted or not, each search.
fn drawn_case<E: Value>(
    (n, m, data): (usize, usize, Vec<E>),
    (which_k, frac): (u8, f64),
    (smallest, sorted): (bool, bool),
    (which, steps): (u8, u32),
) {
    let x = Array2::from_shape_vec((n, m), data).unwrap();
    let k = test_support::pick_k(m, which_k, frac).max(1);
    let opts = Options { mode: Mode::from_smallest(smallest), sorted };
    sim_is_bisect(x.view(), k, opts, which, steps);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn sim_on_f64_rows_is_bisect(
        rows in matrix_of::<f64>(f64_edges(), 300),
        k in (1u8..6, 0.0f64..1.0),
        order in any::<(bool, bool)>(),
        search in (any::<u8>(), 1u32..70),
    ) {
        drawn_case(rows, k, order, search);
    }

    #[test]
    fn sim_on_i64_rows_is_bisect(
        rows in matrix_of::<i64>(i64_edges(), 300),
        k in (1u8..6, 0.0f64..1.0),
        order in any::<(bool, bool)>(),
        search in (any::<u8>(), 1u32..70),
    ) {
        drawn_case(rows, k, order, search);
    }
}

/// A deterministic value of the hostile set, or any bits (`r`: a hash of the place).
fn hostile<T: Copy>(edges: &[T], r: u64, any: impl Fn(u64) -> T) -> T {
    if r % 3 == 0 { edges[(r >> 8) as usize % edges.len()] } else { any(r) }
}

fn mix(i: usize, seed: u64) -> u64 {
    let mut z = (i as u64 ^ seed.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 27)
}

/// Every unit width of the wide rows (8, 16, 24 and 32 keys per lane: rows of up to 256, 512,
/// 768 and 1024) and rows past them, k of 1, M − 1, M and a large one, every search, both
/// modes and orders: `sim` is `bisect`.
#[test]
fn sim_is_bisect_on_every_width_of_the_wide_rows() {
    let (f, i) = (f64_edges(), i64_edges());
    let mut ran = 0;
    for (si, &(n, m)) in
        [(5, 33), (3, 256), (2, 257), (2, 600), (1, 800), (1, 1025), (1, 3001)].iter().enumerate()
    {
        let seed = si as u64;
        let xf = Array2::from_shape_fn((n, m), |(r, c)| {
            hostile(&f, mix(r * m + c, seed), |h| f64::from_bits(h.rotate_left(17)))
        });
        let xi = Array2::from_shape_fn((n, m), |(r, c)| {
            hostile(&i, mix(r * m + c, seed + 50), |h| (h >> (h % 64)) as i64)
        });
        for k in [1, m / 3, m - 1, m].into_iter().filter(|&k| k >= 1) {
            for (which, steps) in [(0, 0), (1, 2), (1, 40), (2, 0), (3, 0)] {
                for (smallest, sorted) in [(false, false), (true, true)] {
                    let opts = Options { mode: Mode::from_smallest(smallest), sorted };
                    sim_is_bisect(xf.view(), k, opts, which, steps);
                    sim_is_bisect(xi.view(), k, opts, which, steps);
                    ran += 2;
                }
            }
        }
    }
    assert!(ran >= 250, "{ran} cases");
}

/// The kinds of [`hint64`], as the per-row kind vectors hold them.
const HINT_KINDS: u8 = HINT64_KINDS as u8;

/// A ragged request on 64-bit rows: lengths (or whole rows), one k or a k per row, hint kinds
/// per row (or none), the threshold output and iteration counts always.
#[derive(Clone, Debug)]
struct Ragged64 {
    lengths: Option<Vec<usize>>,
    k: K,
    hints: Option<Vec<u8>>,
}

impl Ragged64 {
    fn of(shape: &RaggedShape, with_lengths: bool, hints: Option<Vec<u8>>) -> Self {
        let k = if shape.per_row_k { K::PerRow(shape.k.clone()) } else { K::One(shape.one_k()) };
        Self { lengths: with_lengths.then(|| shape.lengths.clone()), k, hints }
    }

    /// topk-ref's description (for the oracle and the padding).
    fn rows(&self) -> Rows<'_> {
        let k = match &self.k {
            K::PerRow(ks) => KPerRow::PerRow(ks),
            K::One(k) => KPerRow::One(*k),
            other => unreachable!("{other:?}"),
        };
        Rows { lengths: self.lengths.as_deref(), k, hint: None }
    }

    /// The request of `algo`, with `hint`, the search of `which` (as [`search`]).
    fn request(
        &self,
        algo: &str,
        opts: Options,
        hint: Option<&[f32]>,
        which: u8,
        steps: u32,
    ) -> Request {
        let b = Request::builder(algo).k_of(self.k.clone()).options(opts);
        let b = b.threshold(true).iterations(algo != "heap");
        let b = match &self.lengths {
            Some(l) => b.lengths(l.clone()),
            None => b,
        };
        let b = match hint {
            Some(h) => b.hint(h.to_vec()),
            None => b,
        };
        search(b, which, steps).build().unwrap()
    }
}

fn tbits(t: &Option<Array1<f32>>) -> Option<Vec<u32>> {
    t.as_ref().map(|t| t.iter().map(|v| v.to_bits()).collect())
}

/// `got` is `want` bit for bit: indices, value bits, iteration counts, threshold bits.
fn same<E: Element>(got: &Selection<E>, want: &Selection<E>, what: &str) {
    assert_eq!(got.topk.indices, want.topk.indices, "indices, {what}");
    assert_eq!(bits(&got.topk.values), bits(&want.topk.values), "value bits, {what}");
    assert_eq!(got.topk.iterations, want.topk.iterations, "iterations, {what}");
    assert_eq!(tbits(&got.threshold), tbits(&want.threshold), "thresholds, {what}");
}

/// `sim` against `bisect` on the ragged request `req` over `x`, without hints and with the
/// hints of `req.hints` (made from `bisect`'s own thresholds): indices, value bits, counts
/// and thresholds bit for bit, each row padded past what it selects (index [`PAD_INDEX`],
/// value 0, no count where it selects nothing), the wide rows ran without a finding; an exact
/// search is the ragged oracle's answer too. How many selections were compared.
fn ragged_sim_is_bisect<E: KernelElement>(
    x: ArrayView2<'_, E>,
    req: &Ragged64,
    opts: Options,
    which: u8,
    steps: u32,
) -> usize {
    let (n, m) = x.dim();
    let what = format!("{} ({n}, {m}) {req:?} {opts:?} search {which} steps {steps}", E::NAME);
    let run = |algo: &str, hint: Option<&[f32]>| -> Selection<E> {
        select(x, &req.request(algo, opts, hint, which, steps))
            .unwrap_or_else(|e| panic!("{algo}: {what}: {e}"))
    };
    let cpu = run("bisect", None);
    let sim = run("sim", None);
    same(&sim, &cpu, &format!("sim, {what}"));
    let mut compared = 1;
    let own = cpu.threshold.clone().expect("thresholds asked for");
    let hints: Option<Vec<f32>> = req.hints.as_ref().map(|kinds| {
        (0..n).map(|r| hint64(usize::from(kinds[r]), own[r], mix(r, u64::from(kinds[r])))).collect()
    });
    let hinted = hints.as_deref().map(|h| {
        let (sim, cpu) = (run("sim", Some(h)), run("bisect", Some(h)));
        same(&sim, &cpu, &format!("sim with hints {h:?}, {what}"));
        compared += 1;
        sim
    });
    let rows = req.rows();
    for out in std::iter::once(&sim).chain(hinted.as_ref()) {
        let width = out.topk.indices.ncols();
        for r in 0..n {
            let selected = rows.selected(r, m);
            for j in selected..width {
                assert_eq!(out.topk.indices[[r, j]], PAD_INDEX, "row {r} padding, {what}");
                assert_eq!(out.topk.values[[r, j]].to_bits().to_u64(), 0, "row {r}, {what}");
            }
            if selected == 0 {
                assert!(out.threshold.as_ref().unwrap()[r].is_nan(), "row {r}, {what}");
                assert_eq!(out.topk.iterations.as_ref().unwrap()[r], 0, "row {r}, {what}");
            }
        }
        if n > 0 && width > 0 {
            let d = out.diagnostics.as_ref().expect("the simulator's findings");
            assert!(d.kernel.starts_with("rtopk_wide_rows"), "{what}: {}", d.kernel);
            assert!(d.is_clean(), "{what}: {d}");
        }
        if which % 4 == 0 {
            let want = canonical_ragged(x, &rows, opts).unwrap();
            assert_eq!(out.topk.indices, want.indices, "oracle, {what}");
            assert_eq!(bits(&out.topk.values), bits(&want.values), "oracle values, {what}");
            assert_eq!(tbits(&out.threshold), tbits(&want.threshold), "oracle thresholds, {what}");
        }
    }
    // the hints change no exact answer
    if let (Some(h), 0) = (&hinted, which % 4) {
        assert_eq!(h.topk.indices, sim.topk.indices, "{what}: hinted");
        assert_eq!(tbits(&h.threshold), tbits(&sim.threshold), "{what}: hinted");
    }
    compared
}

/// A ragged request drawn for `shape`: lengths or whole rows, hints of any kinds or none.
fn ragged_request(shape: RaggedShape) -> impl Strategy<Value = (Ragged64, Options, u8, u32)> {
    let n = shape.lengths.len();
    let hints = prop_oneof![
        1 => Just(None),
        3 => prop::collection::vec(0..HINT_KINDS, n).prop_map(Some),
    ];
    (any::<bool>(), hints, any::<bool>(), any::<bool>(), any::<u8>(), 1u32..70).prop_map(
        move |(with_lengths, hints, smallest, sorted, which, steps)| {
            let opts = Options { mode: Mode::from_smallest(smallest), sorted };
            // hints on exact searches mostly: the others ignore them
            let which = if hints.is_some() && which % 3 != 0 { 0 } else { which };
            (Ragged64::of(&shape, with_lengths, hints), opts, which, steps)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn sim_on_ragged_f64_rows_is_bisect(
        ((x, _), (req, opts, which, steps)) in ragged_matrix::<f64>(300)
            .prop_flat_map(|(x, shape)| (Just((x, shape.clone())), ragged_request(shape)))
    ) {
        ragged_sim_is_bisect(x.view(), &req, opts, which, steps);
    }

    #[test]
    fn sim_on_ragged_i64_rows_is_bisect(
        ((x, _), (req, opts, which, steps)) in ragged_matrix::<i64>(300)
            .prop_flat_map(|(x, shape)| (Just((x, shape.clone())), ragged_request(shape)))
    ) {
        ragged_sim_is_bisect(x.view(), &req, opts, which, steps);
    }
}

/// Per-row lengths, k and hint kinds for `n` rows of `m`: lengths 0, M, 1 and any; k 0, 1, the
/// length, above it, the width and any; every hint kind in turn (offset by `seed`).
fn table_request(n: usize, m: usize, width: usize, seed: u64, hints: bool) -> Ragged64 {
    let h = |r: usize, salt: u64| mix(r, seed * 31 + salt) as usize;
    let lengths: Vec<usize> = (0..n)
        .map(|r| match r % 5 {
            0 => m,
            1 => 0,
            2 => 1.min(m),
            _ => h(r, 1) % (m + 1),
        })
        .collect();
    let ks: Vec<usize> = (0..n)
        .map(|r| match r % 6 {
            0 => width,
            1 => 0,
            2 => 1,
            3 => lengths[r].min(width),
            4 => (lengths[r] + 1).min(width),
            _ => h(r, 2) % (width + 1),
        })
        .collect();
    let kinds = (0..n).map(|r| ((r as u64 + seed) % u64::from(HINT_KINDS)) as u8).collect();
    Ragged64 { lengths: Some(lengths), k: K::PerRow(ks), hints: hints.then_some(kinds) }
}

/// Every unit width of the wide rows (rows of up to 256, 512, 768 and 1024) and rows past
/// them, with rows of their own length and k (0, above the length), every hint kind on every
/// width, the threshold output; one k with hints alone; both modes and orders, every search:
/// `sim` is `bisect` (and the oracle where exact), f64 and i64 rows built to break it.
#[test]
fn ragged_sim_is_bisect_on_every_width_of_the_wide_rows() {
    let (f, i) = (f64_edges(), i64_edges());
    let mut compared = 0;
    for (si, &(n, m)) in
        [(13, 33), (13, 256), (7, 257), (6, 600), (5, 800), (5, 1025), (2, 3001)].iter().enumerate()
    {
        let seed = si as u64 + 100;
        let xf = Array2::from_shape_fn((n, m), |(r, c)| {
            hostile(&f, mix(r * m + c, seed), |h| f64::from_bits(h.rotate_left(17)))
        });
        let xi = Array2::from_shape_fn((n, m), |(r, c)| {
            hostile(&i, mix(r * m + c, seed + 50), |h| (h >> (h % 64)) as i64)
        });
        for width in [m, m / 3 + 1] {
            let ragged = table_request(n, m, width, seed + width as u64, true);
            // one k of every row, whole rows, hints only
            let hinted = Ragged64 { lengths: None, k: K::One(width.min(m)), ..ragged.clone() };
            for (which, steps) in [(0, 0), (1, 3), (2, 0), (3, 0)] {
                for (smallest, sorted) in [(false, false), (true, true), (false, true)] {
                    let opts = Options { mode: Mode::from_smallest(smallest), sorted };
                    for req in [&ragged, &hinted] {
                        compared += ragged_sim_is_bisect(xf.view(), req, opts, which, steps);
                        compared += ragged_sim_is_bisect(xi.view(), req, opts, which, steps);
                    }
                }
            }
        }
    }
    assert!(compared >= 600, "only {compared} comparisons ran");
}

/// Hand-checked: three i64 rows of their own length and k, with hints past every i64 and a
/// fractional one, and their thresholds (each row's k-th value as f32, NaN where a row selects
/// nothing); the same on f64 rows.
#[test]
fn hand_checked_ragged_64_bit_rows_on_sim() {
    let big = 1i64 << 60;
    let x = ndarray::array![
        [5, -3, big, 7, i64::MIN, 7, 2],
        [i64::MAX, 1, 2, 3, 4, 5, 6],
        [-1, -2, -3, -4, -5, -6, -7]
    ];
    let r = Request::builder("sim")
        .k_of(K::PerRow(vec![3, 2, 0]))
        .lengths(vec![7, 1, 5])
        .hint(vec![1e19, 3.5, -9.223_372e18])
        .threshold(true)
        .iterations(true)
        .sorted(true)
        .build()
        .unwrap();
    let out = select(x.view(), &r).unwrap();
    assert_eq!(
        out.topk.indices,
        ndarray::array![[2, 3, 5], [0, PAD_INDEX, PAD_INDEX], [PAD_INDEX, PAD_INDEX, PAD_INDEX]]
    );
    assert_eq!(out.topk.values, ndarray::array![[big, 7, 7], [i64::MAX, 0, 0], [0, 0, 0]]);
    let t = out.threshold.unwrap();
    assert_eq!((t[0], t[1]), (7.0, i64::MAX as f32));
    assert!(t[2].is_nan());
    let want = select(
        x.view(),
        &Request::builder("bisect")
            .k_of(K::PerRow(vec![3, 2, 0]))
            .lengths(vec![7, 1, 5])
            .hint(vec![1e19, 3.5, -9.223_372e18])
            .threshold(true)
            .iterations(true)
            .sorted(true)
            .build()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(out.topk.iterations, want.topk.iterations);
    let xf = x.mapv(|v| v as f64 * 0.5);
    let rf = Request::builder("sim")
        .k_of(K::PerRow(vec![1, 1, 2]))
        .lengths(vec![3, 0, 7])
        .hint(vec![f32::NAN, 0.0, -1.25])
        .threshold(true)
        .mode(Mode::Smallest)
        .build()
        .unwrap();
    let out = select(xf.view(), &rf).unwrap();
    assert_eq!(out.topk.indices, ndarray::array![[1, PAD_INDEX], [PAD_INDEX, PAD_INDEX], [5, 6]]);
    assert_eq!(
        bits(&out.topk.values),
        [(-1.5f64).to_bits(), 0, 0, 0, (-3.0f64).to_bits(), (-3.5f64).to_bits()]
    );
    let t = out.threshold.unwrap();
    assert_eq!((t[0], t[2]), (-1.5, -3.0));
    assert!(t[1].is_nan());
}

/// Device buffers of f64 and i64 rows take every per-row array — lengths, a k per row, hints
/// and the thresholds — as the 32-bit-key types do, checked before any device is opened
/// (`check_raw`, the faces' first call); the arrays must match the request as for any type.
#[test]
fn device_buffers_of_64_bit_rows_take_every_per_row_array() {
    let shape = |dtype| Shape { n: 4, m: 50, dtype };
    let bufs = RawBuffers { x: 16, values: 32, indices: 48, ..RawBuffers::default() };
    let on_gpu = || Request::builder("cuda").k(3).place(Place::Cuda(0));
    let all = RawBuffers { lengths: 64, k_per_row: 80, hint: 96, threshold: 112, ..bufs };
    for dtype in [Dtype::Float64, Dtype::Int64, Dtype::Int32] {
        assert!(check_raw(&on_gpu().build().unwrap(), shape(dtype), bufs).is_ok(), "{dtype}");
        let thr = on_gpu().threshold(true).build().unwrap();
        let t = RawBuffers { threshold: 64, ..bufs };
        check_raw(&thr, shape(dtype), t).unwrap_or_else(|e| panic!("{dtype}: {e}"));
        let lengths = on_gpu().lengths(vec![50, 1, 2, 3]).build().unwrap();
        let l = RawBuffers { lengths: 64, ..bufs };
        check_raw(&lengths, shape(dtype), l).unwrap_or_else(|e| panic!("{dtype}: {e}"));
        let every = Request::builder("cuda")
            .k_of(K::PerRow(vec![3, 0, 50, 1]))
            .lengths(vec![50, 0, 7, 49])
            .hint(vec![0.5, f32::NAN, 1e19, -2.5])
            .threshold(true)
            .iterations(true)
            .place(Place::Cuda(0))
            .build()
            .unwrap();
        let counted = RawBuffers { iterations: 128, ..all };
        check_raw(&every, shape(dtype), counted).unwrap_or_else(|e| panic!("{dtype}: {e}"));
        // the arrays must match the request, as for any type
        for missing in [
            RawBuffers { lengths: 0, ..counted },
            RawBuffers { hint: 0, ..counted },
            RawBuffers { threshold: 0, ..counted },
        ] {
            let e = check_raw(&every, shape(dtype), missing).unwrap_err();
            assert!(e.is_user_error() || matches!(e, rtopk::Error::NotYetSupported { .. }));
        }
        let e = check_raw(&lengths, shape(dtype), all).unwrap_err();
        assert!(e.is_user_error(), "{dtype}: {e}");
    }
}

/// Each per-row input alone or in pairs — a k per row, lengths with one k, hints on whole rows,
/// lengths with hints — on f64 and i64 rows, every hint kind: `sim` is `bisect`.
#[test]
fn each_per_row_input_alone_on_64_bit_rows() {
    let (f, i) = (f64_edges(), i64_edges());
    let (n, m) = (26, 70);
    let xf = Array2::from_shape_fn((n, m), |(r, c)| {
        hostile(&f, mix(r * m + c, 7), |h| f64::from_bits(h.rotate_left(11)))
    });
    let xi = Array2::from_shape_fn((n, m), |(r, c)| {
        hostile(&i, mix(r * m + c, 8), |h| (h >> (h % 64)) as i64)
    });
    let full = table_request(n, m, 20, 3, true);
    let Some(lengths) = full.lengths.clone() else { unreachable!() };
    let requests = [
        Ragged64 { lengths: None, hints: None, ..full.clone() },
        Ragged64 { k: K::One(20), hints: None, ..full.clone() },
        Ragged64 { lengths: None, k: K::One(20), ..full.clone() },
        Ragged64 { lengths: Some(lengths), k: K::One(m), ..full.clone() },
    ];
    let mut compared = 0;
    for req in &requests {
        for (smallest, sorted) in [(false, false), (true, true)] {
            let opts = Options { mode: Mode::from_smallest(smallest), sorted };
            compared += ragged_sim_is_bisect(xf.view(), req, opts, 0, 0);
            compared += ragged_sim_is_bisect(xi.view(), req, opts, 0, 0);
        }
    }
    assert!(compared >= 24, "only {compared} comparisons ran");
}
