//! 64-bit rows (docs/kernel.md, "64-bit rows") on the GPU: f64 and i64 rows take
//! `rtopk_wide_rows` (one warp per row on 64-bit keys, every register width and the rows past
//! them re-keyed from the input), and the `cuda` kernel gives the simulated kernel's answer and
//! topk-ref's `bisect`'s bit for bit — indices, value bits and iteration counts — with and
//! without counts, on rows built to break it (NaN of both signs and payloads, ±inf, ±0,
//! subnormals, the f64 and i64 ends, values an f32 cannot tell apart, heavy ties), both modes,
//! sorted or not, exact (the oracle's answer too), early stopping, a precision and a recall
//! target; shapes of up to and past 256 elements (every unit width), not multiples of 32, row
//! counts not multiples of the block's four warps, k from 1 to M and a large k (1 × 5000,
//! k = 2000). Ragged requests (docs/contract.md §5) take the wide rows' ragged twins and the
//! 64-bit threshold step: rows of their own length (0 and M), a k per row (0, above the
//! length), hints (NaN of both signs, ±inf, ±0, each row's own threshold, near and far ones,
//! on i64 rows past ±2^63 and fractional) and the threshold output equal `sim` and `bisect`
//! bit for bit — on host rows and as raw launches on device buffers (device lengths, k per
//! row, hints and thresholds; 32- and 64-bit indices). Needs a CUDA GPU:
//! `cargo test -p rtopk --release --test gpu_ragged -- --ignored wide`.

// The raw launches take device addresses, as a framework hands them over.
#![allow(unsafe_code)]

use cudarc::driver::{DevicePtr, DevicePtrMut};
use ndarray::{Array2, ArrayView2};
use rtopk::cuda::{CudaError, RawBuffers, Shape, select_raw, shared_device};
use rtopk::{
    Element, IndexWidth, K, KPerRow, KernelElement, Mode, Options, PAD_INDEX, Place, Precision,
    Recall, Request, RequestBuilder, Rows, Selection, select,
};
use test_support::{HINT64_KINDS, hint64};
use topk_ref::KeyBits;
use topk_ref::oracle::canonical_ragged;

use super::{bits, same, tbits};

/// The next value of a deterministic 64-bit generator (splitmix64).
fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A deterministic `(n, m)` f64 matrix of hostile values: NaN of both signs with payloads
/// (quiet and signalling), ±inf, ±0, subnormals of both signs, the ends, heavy ties, values
/// one ulp apart and values equal as f32 but not as f64, spread over many exponents.
fn hostile_f64(n: usize, m: usize, seed: u64) -> Array2<f64> {
    let specials = [
        f64::NAN,
        f64::from_bits(0xFFF8_0000_0000_1234), // -NaN with a payload
        f64::from_bits(0x7FF0_0000_0000_0001), // signalling, with a payload
        f64::from_bits(0xFFF4_0000_0000_0007),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::from_bits(0x8000_0000_0000_0003),
        f64::from_bits(0x000F_FFFF_FFFF_FFFF), // the largest subnormal
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
    ];
    let mut s = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xF64;
    Array2::from_shape_simple_fn((n, m), || {
        let r = next(&mut s);
        match r % 16 {
            0 | 1 => specials[(r >> 8) as usize % specials.len()],
            2..=5 => ((r >> 8) % 7) as f64 - 3.0, // heavy ties
            // equal in f32, apart in f64: 1 + j 2^-40
            6 | 7 => 1.0 + ((r >> 8) % 64) as f64 * (-40f64).exp2(),
            8 => f64::from_bits(0x3FF0_0000_0000_0000 + (r >> 8) % 5), // one ulp apart
            9 => f64::from_bits((r >> 12) | ((r & 1) << 63)),          // subnormals, both signs
            // any finite value: a random sign, exponent and mantissa
            _ => {
                let v = f64::from_bits((r & !(0x7FF << 52)) | (((r >> 20) % 0x7FF) << 52));
                if v.is_finite() { v } else { 0.5 }
            }
        }
    })
}

/// A deterministic `(n, m)` i64 matrix of hostile values: the ends and their neighbours, 0
/// and ±1, heavy ties, values apart in their low bits only, any 64 bits.
fn hostile_i64(n: usize, m: usize, seed: u64) -> Array2<i64> {
    let specials = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX, 1 << 62, -(1 << 40)];
    let mut s = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x164;
    Array2::from_shape_simple_fn((n, m), || {
        let r = next(&mut s);
        match r % 16 {
            0 | 1 => specials[(r >> 8) as usize % specials.len()],
            2..=5 => ((r >> 8) % 7) as i64 - 3, // heavy ties
            6 | 7 => (1i64 << 40) + ((r >> 8) % 64) as i64, // apart in the low bits only
            8 => (r >> (r % 63)) as i64 * if r & 2 == 0 { 1 } else { -1 },
            _ => r as i64,
        }
    })
}

/// A search: its name and what it adds to a request.
type Search = (&'static str, fn(RequestBuilder) -> RequestBuilder);

/// The searches checked: exact, early stopping after 1, 3 and 12 steps, a precision and a
/// recall target.
fn searches() -> Vec<Search> {
    vec![
        ("exact", |b| b),
        ("max_iter 1", |b| b.max_iter(1)),
        ("max_iter 3", |b| b.max_iter(3)),
        ("max_iter 12", |b| b.max_iter(12)),
        ("precision 1e-3", |b| b.precision(Precision::new(1e-3).unwrap())),
        ("recall 0.9", |b| b.recall(Recall::new(0.9).unwrap())),
    ]
}

/// `cuda` with counts against `sim` with counts and `bisect` (indices, value bits, iteration
/// counts), `cuda` without counts against them too (values and indices: the wide rows are
/// never split), and exact searches against the oracle (`heap`); every search of
/// [`searches`] (the first `searches` of them), both modes, sorted or not. How many
/// comparisons ran.
fn agree<E: KernelElement>(x: ArrayView2<'_, E>, k: usize, searches_run: usize) -> usize {
    let mut compared = 0;
    for (name, search) in searches().into_iter().take(searches_run) {
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let opts = Options { mode: Mode::from_smallest(smallest), sorted };
            let what = format!("{} {:?} k={k} {name} {opts:?}", E::NAME, x.dim());
            let run = |algo: &str, counts: bool| -> Selection<E> {
                let b = search(Request::builder(algo).k(k).options(opts).iterations(counts));
                select(x, &b.build().unwrap()).unwrap_or_else(|e| panic!("{algo}, {what}: {e}"))
            };
            let cuda = run("cuda", true);
            assert!(cuda.topk.iterations.is_some(), "{what}: counts asked for");
            same(&cuda, &run("sim", true), &format!("sim, {what}"));
            same(&cuda, &run("bisect", true), &format!("bisect, {what}"));
            let uncounted = run("cuda", false);
            assert_eq!(uncounted.topk.indices, cuda.topk.indices, "without counts, {what}");
            assert_eq!(bits(&uncounted.topk.values), bits(&cuda.topk.values), "{what}");
            if name == "exact" {
                let want = run("heap", false);
                assert_eq!(cuda.topk.indices, want.topk.indices, "oracle, {what}");
                assert_eq!(bits(&cuda.topk.values), bits(&want.topk.values), "oracle, {what}");
            }
            compared += 1;
        }
    }
    compared
}

/// k of 1, M / 3, M - 1 and M (those in range, once each).
fn ks(m: usize) -> Vec<usize> {
    let mut ks: Vec<usize> =
        [1, m / 3, m.saturating_sub(1), m].into_iter().filter(|k| (1..=m).contains(k)).collect();
    ks.dedup();
    ks
}

/// Shapes (N, M): rows of one to 256 elements (the narrowest unit), 257 to 1024 (the wider
/// ones), past 1024 (re-keyed from the input on each pass); M not a multiple of 32, N not a
/// multiple of the block's four warps (a partial last block), and many blocks.
const SHAPES: [(usize, usize); 15] = [
    (37, 1),
    (33, 7),
    (70, 32),
    (41, 33),
    (35, 100),
    (9, 256),
    (10, 257),
    (7, 500),
    (6, 700),
    (5, 1000),
    (3, 1025),
    (3, 3001),
    (2, 10_001),
    (1001, 64),
    (1, 5000),
];

fn check_every_shape<E: KernelElement>(matrix: fn(usize, usize, u64) -> Array2<E>) -> usize {
    let mut compared = 0;
    for (si, &(n, m)) in SHAPES.iter().enumerate() {
        let x = matrix(n, m, si as u64 + 1);
        // every search on rows of up to a few thousand elements; exact and early stopping on
        // the longest (the simulator's time)
        let searches_run = if n * m > 20_000 { 2 } else { searches().len() };
        for k in ks(m) {
            compared += agree(x.view(), k, searches_run);
        }
    }
    // a large k of a long row (the selection's and the sort's many rounds)
    let x = matrix(1, 5000, 99);
    compared += agree(x.view(), 2000, searches().len());
    compared
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f64_rows_on_the_gpu_equal_the_simulator_and_bisect() {
    let compared = check_every_shape(hostile_f64);
    assert!(compared >= 900, "only {compared} comparisons ran");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn i64_rows_on_the_gpu_equal_the_simulator_and_bisect() {
    let compared = check_every_shape(hostile_i64);
    assert!(compared >= 900, "only {compared} comparisons ran");
}

/// Rows of one value repeated, of NaN only, of the i64 ends only: the search ends at once or
/// never narrows, and the lowest indices win.
#[test]
#[ignore = "needs a CUDA GPU"]
fn degenerate_64_bit_rows_on_the_gpu_equal_bisect() {
    let mut compared = 0;
    for (n, m) in [(5, 1), (6, 100), (3, 2000)] {
        for v in [0.0, -0.0, f64::NAN, f64::from_bits(0xFFF8_0000_0000_0001), f64::INFINITY] {
            compared += agree(Array2::from_elem((n, m), v).view(), m.div_ceil(2), 3);
        }
        let ends =
            Array2::from_shape_fn(
                (n, m),
                |(r, c)| {
                    if (r + c) % 3 == 0 { i64::MIN } else { i64::MAX }
                },
            );
        compared += agree(ends.view(), m.div_ceil(2), 3);
    }
    assert!(compared >= 200, "only {compared} comparisons ran");
}

/// A ragged request on `n` rows of `m`: per-row lengths (0, M, 1, any) or whole rows, one k or
/// a k per row (0, 1, the length, above it, the width, any), hints of every kind in turn or
/// none; always the threshold output.
#[derive(Clone, Debug)]
struct Case {
    lengths: Option<Vec<usize>>,
    ks: Option<Vec<usize>>,
    width: usize,
    hints: bool,
    seed: u64,
}

impl Case {
    fn new(n: usize, m: usize, width: usize, seed: u64) -> Self {
        let mut s = seed;
        let mut any = |bound: usize| (next(&mut s) % (bound as u64 + 1)) as usize;
        let lengths: Vec<usize> = (0..n)
            .map(|r| match r % 5 {
                0 => m,
                1 => 0,
                2 => 1.min(m),
                _ => any(m),
            })
            .collect();
        let ks = (0..n)
            .map(|r| match r % 6 {
                0 => width,
                1 => 0,
                2 => 1,
                3 => lengths[r].min(width),
                4 => (lengths[r] + 1).min(width),
                _ => any(width),
            })
            .collect();
        Case { lengths: Some(lengths), ks: Some(ks), width, hints: true, seed }
    }

    /// The outputs' width.
    fn k(&self) -> K {
        match &self.ks {
            Some(ks) => K::PerRow(ks.clone()),
            None => K::One(self.width),
        }
    }

    /// topk-ref's description of the rows (the oracle's).
    fn rows(&self) -> Rows<'_> {
        let k = match &self.ks {
            Some(ks) => KPerRow::PerRow(ks),
            None => KPerRow::One(self.width),
        };
        Rows { lengths: self.lengths.as_deref(), k, hint: None }
    }

    /// The request of `algo` with `hint`.
    fn builder(
        &self,
        algo: &str,
        opts: Options,
        counts: bool,
        hint: Option<&[f32]>,
    ) -> RequestBuilder {
        let b = Request::builder(algo).k_of(self.k()).options(opts);
        let b = b.threshold(true).iterations(counts);
        let b = match &self.lengths {
            Some(l) => b.lengths(l.clone()),
            None => b,
        };
        match hint {
            Some(h) => b.hint(h.to_vec()),
            None => b,
        }
    }

    /// This case's hints for rows whose own thresholds are `own` (none without hints).
    fn hints_for(&self, own: &[f32]) -> Option<Vec<f32>> {
        let kind = |r: usize| (r + self.seed as usize) % HINT64_KINDS;
        self.hints.then(|| {
            own.iter()
                .enumerate()
                .map(|(r, &t)| hint64(kind(r), t, self.seed.wrapping_mul(31) ^ r as u64))
                .collect()
        })
    }
}

/// `cuda` on host rows against `sim` and `bisect` on the ragged `case` (every search of the
/// first `searches_run`, both modes, sorted or not): with counts, without and with the case's
/// hints (made from `bisect`'s own thresholds) — indices with their padding, value bits,
/// counts and thresholds bit for bit; without counts the same answer; an exact search the
/// ragged oracle's. How many comparisons ran.
fn ragged_agree<E: KernelElement>(x: ArrayView2<'_, E>, case: &Case, searches_run: usize) -> usize {
    let mut compared = 0;
    for (name, search) in searches().into_iter().take(searches_run) {
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let opts = Options { mode: Mode::from_smallest(smallest), sorted };
            let what = format!("{} {:?} {case:?} {name} {opts:?}", E::NAME, x.dim());
            let run = |algo: &str, counts: bool, hint: Option<&[f32]>| -> Selection<E> {
                let b = search(case.builder(algo, opts, counts, hint));
                select(x, &b.build().unwrap()).unwrap_or_else(|e| panic!("{algo}, {what}: {e}"))
            };
            let cpu = run("bisect", true, None);
            let own = cpu.threshold.clone().expect("thresholds asked for").to_vec();
            let hints = case.hints_for(&own);
            for hint in [None, hints.as_deref()] {
                let what = format!("{what} hints {hint:?}");
                let cuda = run("cuda", true, hint);
                same(&cuda, &run("sim", true, hint), &format!("sim, {what}"));
                same(&cuda, &run("bisect", true, hint), &format!("bisect, {what}"));
                let uncounted = run("cuda", false, hint);
                assert_eq!(uncounted.topk.indices, cuda.topk.indices, "without counts, {what}");
                assert_eq!(bits(&uncounted.topk.values), bits(&cuda.topk.values), "{what}");
                assert_eq!(tbits(&uncounted.threshold), tbits(&cuda.threshold), "{what}");
                if name == "exact" {
                    let want = canonical_ragged(x, &case.rows(), opts).unwrap();
                    assert_eq!(cuda.topk.indices, want.indices, "oracle, {what}");
                    assert_eq!(bits(&cuda.topk.values), bits(&want.values), "oracle, {what}");
                    assert_eq!(tbits(&cuda.threshold), tbits(&want.threshold), "oracle, {what}");
                }
                compared += 1;
                if hint.is_none() && !case.hints {
                    break;
                }
            }
        }
    }
    compared
}

/// The ragged cases of an `(n, m)` shape: lengths and a k per row with hints; one k on whole
/// rows with hints alone; lengths with one k, no hints; a k per row alone.
fn cases(n: usize, m: usize, seed: u64) -> Vec<Case> {
    let width = (m / 3).max(1);
    let full = Case::new(n, m, m, seed);
    let narrow = Case::new(n, m, width, seed + 1);
    vec![
        full.clone(),
        narrow.clone(),
        Case { lengths: None, ks: None, ..narrow.clone() },
        Case { ks: None, hints: false, ..full },
        Case { lengths: None, hints: false, ..narrow },
    ]
}

/// Shapes (N, M) of the ragged checks: every unit width (rows of up to 256, 512, 768, 1024)
/// and rows past them, M not a multiple of 32, N not a multiple of four warps.
const RAGGED_SHAPES: [(usize, usize); 8] =
    [(37, 7), (41, 33), (26, 256), (13, 257), (11, 700), (9, 1000), (5, 1025), (3, 5000)];

fn check_ragged_shapes<E: KernelElement>(matrix: fn(usize, usize, u64) -> Array2<E>) -> usize {
    let mut compared = 0;
    for (si, &(n, m)) in RAGGED_SHAPES.iter().enumerate() {
        let x = matrix(n, m, si as u64 + 300);
        let searches_run = if n * m > 10_000 { 2 } else { searches().len() };
        for case in cases(n, m, si as u64 * 7 + 1) {
            compared += ragged_agree(x.view(), &case, searches_run);
        }
    }
    compared
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_f64_rows_on_the_gpu_equal_the_simulator_and_bisect() {
    let compared = check_ragged_shapes(hostile_f64);
    // 7 shapes x 6 searches + 1 x 2, 4 orders, 3 hinted cases twice and 2 unhinted
    assert!(compared >= 1400, "only {compared} comparisons ran");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_i64_rows_on_the_gpu_equal_the_simulator_and_bisect() {
    let compared = check_ragged_shapes(hostile_i64);
    assert!(compared >= 1400, "only {compared} comparisons ran");
}

/// The bits of a value no output holds here: the device outputs start as it, so that an
/// output the kernel does not write is seen.
fn poison<E: Element>() -> E {
    E::from_bits(E::Key::from_u64(0x5A5A_5A5A_5A5A_5A5A))
}

/// The first `n * width` of `v` as an `(n, width)` matrix (a buffer of no rows holds one).
fn matrix_of<T: Clone>(v: Vec<T>, (n, width): (usize, usize)) -> Array2<T> {
    Array2::from_shape_vec((n, width), v[..n * width].to_vec()).unwrap()
}

/// One raw launch (`rtopk::cuda::select_raw`) of `case` on device buffers of a stream of our
/// own — the input, the values, the indices at `index`'s width, the counts where `counts`, and
/// the device's own lengths, k per row, hints and thresholds — read back as a [`Selection`]
/// (64-bit indices as u32: -1 is [`PAD_INDEX`]), the outputs poisoned first.
fn raw_launch<E: KernelElement>(
    x: ArrayView2<'_, E>,
    request: &Request,
    case: &Case,
    hint: Option<&[f32]>,
    index: IndexWidth,
) -> Selection<E> {
    let gpu = shared_device(0).expect("a CUDA device");
    let stream = gpu.context().new_stream().expect("a stream of the device's context");
    let (n, m) = x.dim();
    let width = request.k().width();
    let counts = request.wanted().iterations;
    let u32s = |v: &[usize]| v.iter().map(|&l| l as u32).collect::<Vec<_>>();
    let host: Vec<E> = x.iter().copied().collect();
    let dx = stream.clone_htod(&host).unwrap();
    let mut values = stream.clone_htod(&vec![poison::<E>(); (n * width).max(1)]).unwrap();
    let mut idx32 = stream.clone_htod(&vec![0x5A5A_5A5Au32; (n * width).max(1)]).unwrap();
    let mut idx64 = stream.clone_htod(&vec![0x5A5A_5A5A_5A5Ai64; (n * width).max(1)]).unwrap();
    let mut iterations = stream.clone_htod(&vec![0x5A5A_5A5Au32; n.max(1)]).unwrap();
    let mut threshold = stream.clone_htod(&vec![f32::from_bits(0x7FBA_DBAD); n.max(1)]).unwrap();
    let lengths = case.lengths.as_ref().map(|l| stream.clone_htod(&u32s(l)).unwrap());
    let ks = case.ks.as_ref().map(|k| stream.clone_htod(&u32s(k)).unwrap());
    let hints = hint.map(|h| stream.clone_htod(h).unwrap());
    {
        let (x_ptr, _x) = dx.device_ptr(&stream);
        let (values_ptr, _v) = values.device_ptr_mut(&stream);
        let (i32_ptr, _i) = idx32.device_ptr_mut(&stream);
        let (i64_ptr, _j) = idx64.device_ptr_mut(&stream);
        let (it_ptr, _t) = iterations.device_ptr_mut(&stream);
        let (thr_ptr, _h) = threshold.device_ptr_mut(&stream);
        let lengths = lengths.as_ref().map(|b| b.device_ptr(&stream));
        let ks = ks.as_ref().map(|b| b.device_ptr(&stream));
        let hints = hints.as_ref().map(|b| b.device_ptr(&stream));
        let bufs = RawBuffers {
            x: x_ptr,
            values: values_ptr,
            indices: if index == IndexWidth::U32 { i32_ptr } else { i64_ptr },
            iterations: if counts { it_ptr } else { 0 },
            lengths: lengths.as_ref().map_or(0, |(p, _)| *p),
            k_per_row: ks.as_ref().map_or(0, |(p, _)| *p),
            hint: hints.as_ref().map_or(0, |(p, _)| *p),
            threshold: thr_ptr,
        };
        let shape = Shape { n, m, dtype: E::DTYPE };
        // SAFETY: the buffers above belong to device 0, hold n*m, n*width (of E and of the
        // index width) and n elements each, and live until the stream is synchronised below;
        // the stream is one of the device's context.
        unsafe { select_raw(request, shape, bufs, stream.cu_stream() as u64) }
            .unwrap_or_else(|e| panic!("{case:?} {index:?}: {e}"));
    }
    stream.synchronize().unwrap();
    let indices: Vec<u32> = match index {
        IndexWidth::U32 => stream.clone_dtoh(&idx32).unwrap(),
        _ => stream
            .clone_dtoh(&idx64)
            .unwrap()
            .into_iter()
            .map(|i| if i == -1 { PAD_INDEX } else { u32::try_from(i).expect("an index") })
            .collect(),
    };
    let mut out = Selection::<E>::default();
    out.topk.indices = matrix_of(indices, (n, width));
    out.topk.values = matrix_of(stream.clone_dtoh(&values).unwrap(), (n, width));
    out.topk.iterations =
        counts.then(|| stream.clone_dtoh(&iterations).unwrap()[..n].to_vec().into());
    out.threshold = Some(stream.clone_dtoh(&threshold).unwrap()[..n].to_vec().into());
    out
}

/// Raw launches of the ragged cases on device buffers: device lengths, k per row, hints and
/// thresholds, with and without counts, 32- and 64-bit indices, both modes, sorted or not —
/// `sim`'s and `bisect`'s answer on host rows bit for bit (indices with their padding, value
/// bits, counts, thresholds). How many launches were compared.
fn raw_agree<E: KernelElement>(x: ArrayView2<'_, E>, case: &Case) -> usize {
    let mut compared = 0;
    for (smallest, sorted) in [(false, false), (true, true), (true, false)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} {:?} {case:?} {opts:?}", E::NAME, x.dim());
        let cpu = select(x, &case.builder("bisect", opts, true, None).build().unwrap()).unwrap();
        let own = cpu.threshold.clone().unwrap().to_vec();
        let hints = case.hints_for(&own);
        let hint = hints.as_deref();
        let want = select(x, &case.builder("sim", opts, true, hint).build().unwrap()).unwrap();
        same(
            &want,
            &select(x, &case.builder("bisect", opts, true, hint).build().unwrap()).unwrap(),
            &what,
        );
        for index in [IndexWidth::U32, IndexWidth::I64] {
            for counts in [true, false] {
                let request = case
                    .builder("cuda", opts, counts, hint)
                    .index_width(index)
                    .place(Place::Cuda(0))
                    .build()
                    .unwrap();
                let got = raw_launch(x, &request, case, hint, index);
                let what = format!("raw {index:?} counts={counts}, {what}");
                assert_eq!(got.topk.indices, want.topk.indices, "indices, {what}");
                assert_eq!(bits(&got.topk.values), bits(&want.topk.values), "values, {what}");
                assert_eq!(tbits(&got.threshold), tbits(&want.threshold), "thresholds, {what}");
                if counts {
                    assert_eq!(got.topk.iterations, want.topk.iterations, "counts, {what}");
                }
                compared += 1;
            }
        }
    }
    compared
}

/// Device buffers of f64 and i64 rows: every ragged case of every unit width as raw launches,
/// against the simulator and `bisect` on host rows.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_64_bit_rows_on_device_buffers_equal_the_simulator_and_bisect() {
    let mut compared = 0;
    for (si, &(n, m)) in RAGGED_SHAPES.iter().enumerate() {
        let seed = si as u64 * 11 + 5;
        let (xf, xi) = (hostile_f64(n, m, seed), hostile_i64(n, m, seed + 1));
        for case in cases(n, m, seed) {
            compared += raw_agree(xf.view(), &case);
            compared += raw_agree(xi.view(), &case);
        }
    }
    // 8 shapes x 5 cases x 2 types x 3 orders x 2 index widths x 2 counts
    assert!(compared >= 960, "only {compared} raw launches compared");
}

/// A forced strategy on 64-bit rows is still the plan's typed refusal ([`CudaError::Wide`]),
/// ragged or not — the GPU's own plan on its host path — and the device still works after it.
#[test]
#[ignore = "needs a CUDA GPU"]
fn forced_strategies_on_64_bit_rows_are_the_plans_typed_error() {
    let x = hostile_f64(6, 300, 5);
    let l = hostile_i64(6, 300, 6);
    let gpu = shared_device(0).expect("a CUDA device");
    let lengths = vec![300u32, 0, 17, 300, 1, 299];
    let ragged = rtopk_cuda::HostRows { lengths: Some(&lengths), ..Default::default() };
    let mut refused = 0;
    for strategy in
        rtopk_cuda::Strategy::ALL.into_iter().filter(|&s| s != rtopk_cuda::Strategy::Auto)
    {
        for rows in [rtopk_cuda::HostRows::default(), ragged] {
            let how = (Options::default(), topk_ref::Bisect::exact(), strategy, true);
            let e = gpu.topk_rows_ragged(x.view(), 4, how, rows).unwrap_err();
            assert!(matches!(e, CudaError::Wide { elem: "float64", .. }), "{strategy:?}: {e}");
            let e = gpu.topk_rows_ragged(l.view(), 4, how, rows).unwrap_err();
            assert!(matches!(e, CudaError::Wide { elem: "int64", .. }), "{strategy:?}: {e}");
            refused += 2;
        }
    }
    assert!(refused >= 4, "{refused}");
    let how = (Options::default(), topk_ref::Bisect::exact(), rtopk_cuda::Strategy::Auto, true);
    let got = gpu.topk_rows_ragged(x.view(), 4, how, ragged).unwrap();
    let sizes: Vec<usize> = lengths.iter().map(|&l| l as usize).collect();
    let want = canonical_ragged(x.view(), &Rows::new(4).with_lengths(&sizes), Options::default());
    assert_eq!(got.indices, want.unwrap().indices);
}
