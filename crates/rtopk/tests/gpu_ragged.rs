//! Rows of their own length and k per row (docs/contract.md §5) on the GPU: the `cuda` kernel
//! gives the simulated kernel's answer bit for bit — indices (padding), value bits (padding
//! 0), iteration counts and thresholds — and the oracle's, on every whole-row family (quarter,
//! half and whole-warp rows, narrowing and not, block rows, block rows that narrow, sorted
//! output), in f32, f16, bf16 and the four integer types, on rows built to break it (NaN of both signs and payloads,
//! ±inf, ±0, subnormals, heavy ties; lengths 0 and M, k 0 and above the length, NaN past the
//! lengths). With threshold hints (each row's own threshold, near ones, NaN, ±inf, arbitrary
//! bits) its iteration counts are `bisect`'s with the same hints. Needs a CUDA GPU:
//! `cargo test -p rtopk --release --test gpu_ragged -- --ignored`.

// Grouped selection (docs/contract.md §8) on the GPU, on the same hostile rows.
#[path = "gpu_ragged/grouped.rs"]
mod grouped;
// Pick rows (docs/kernel.md, "Pick rows") on the GPU, on the same hostile rows.
#[path = "gpu_ragged/pick.rs"]
mod pick;
// Rows of their own length on the radix select (docs/kernel.md, "Radix rows") on the GPU.
#[path = "gpu_ragged/radix.rs"]
mod radix;
// 64-bit rows (docs/kernel.md, "64-bit rows") on the GPU, on hostile f64 and i64 rows.
#[path = "gpu_ragged/wide.rs"]
mod wide;

use ndarray::{Array1, Array2, ArrayView2};
use rtopk::{Element, K, KernelElement, Mode, Options, Request, Selection, bf16, f16, select};
use topk_ref::oracle::canonical_ragged;
use topk_ref::{KeyBits, Rows};

/// A deterministic row-major `(n, m)` matrix of hostile values: ties, specials, subnormals.
fn hostile(n: usize, m: usize, seed: u64) -> Vec<f32> {
    let specials = [
        f32::NAN,
        f32::from_bits(0xFFC0_1234),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x8000_0003),
        f32::MAX,
    ];
    draws(n * m, seed)
        .map(|r| match r % 16 {
            0 => specials[(r as usize / 16) % specials.len()],
            1..=5 => ((r / 16) % 7) as f32, // heavy ties
            _ => ((r / 16) as f32 / 65536.0) - 16000.0,
        })
        .collect()
}

/// `count` pseudo-random 31-bit draws from `seed` (a 64-bit LCG's high bits).
fn draws(count: usize, seed: u64) -> impl Iterator<Item = u32> {
    let mut s = seed;
    (0..count).map(move |_| {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (s >> 33) as u32
    })
}

/// As [`hostile`] but finite (zeros of both signs and subnormals its only specials): rows whose
/// search has a value phase, where cluster rows narrow (a NaN or an infinity leaves none).
fn finite(n: usize, m: usize, seed: u64) -> Vec<f32> {
    let specials = [0.0, -0.0, f32::from_bits(1), f32::from_bits(0x8000_0003)];
    let x = hostile(n, m, seed);
    x.iter()
        .enumerate()
        .map(|(i, &v)| if v.is_finite() && v.abs() < f32::MAX { v } else { specials[i % 4] })
        .collect()
}

/// Per-row lengths and k for `n` rows of `m`: 0, M, k above the length, k 0.
fn shape(n: usize, m: usize, kmax: usize, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut s = seed;
    let mut next = |bound: usize| {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        ((s >> 33) as usize) % (bound + 1)
    };
    let lengths: Vec<usize> = (0..n)
        .map(|r| match r % 5 {
            0 => m,
            1 => 0,
            _ => next(m),
        })
        .collect();
    let ks: Vec<usize> = (0..n)
        .map(|r| match r % 4 {
            0 => kmax,
            1 => 0,
            2 => (lengths[r] + 1).min(kmax),
            _ => next(kmax),
        })
        .collect();
    (lengths, ks)
}

fn request(algo: &str, lengths: &[usize], ks: &[usize], opts: Options, counts: bool) -> Request {
    Request::builder(algo)
        .k_of(K::PerRow(ks.to_vec()))
        .lengths(lengths.to_vec())
        .options(opts)
        .threshold(true)
        .iterations(counts)
        .build()
        .unwrap()
}

fn bits<E: Element>(a: &Array2<E>) -> Vec<u64> {
    a.iter().map(|v| v.to_bits().to_u64()).collect()
}

fn tbits(t: &Option<Array1<f32>>) -> Option<Vec<u32>> {
    t.as_ref().map(|t| t.iter().map(|v| v.to_bits()).collect())
}

fn same<E: Element>(got: &Selection<E>, want: &Selection<E>, what: &str) {
    assert_eq!(got.topk.indices, want.topk.indices, "{what}: indices");
    assert_eq!(bits(&got.topk.values), bits(&want.topk.values), "{what}: values");
    assert_eq!(got.topk.iterations, want.topk.iterations, "{what}: iterations");
    assert_eq!(tbits(&got.threshold), tbits(&want.threshold), "{what}: thresholds");
}

/// cuda against sim (counts included) and the oracle, both modes, sorted and not.
fn check<E: KernelElement>(x: ArrayView2<'_, E>, kmax: usize, seed: u64) {
    let (n, m) = x.dim();
    let (lengths, ks) = shape(n, m, kmax, seed);
    for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} N={n} M={m} K={kmax} smallest={smallest} sorted={sorted}", E::NAME);
        let cuda = select(x, &request("cuda", &lengths, &ks, opts, true)).unwrap();
        let sim = select(x, &request("sim", &lengths, &ks, opts, true)).unwrap();
        same(&cuda, &sim, &what);
        let rows = Rows::per_row_k(&ks).with_lengths(&lengths);
        let want = canonical_ragged(x, &rows, opts).unwrap();
        assert_eq!(cuda.topk.indices, want.indices, "{what}: oracle");
        let uncounted = select(x, &request("cuda", &lengths, &ks, opts, false)).unwrap();
        assert_eq!(uncounted.topk.indices, want.indices, "{what}: without counts");
    }
}

/// Shapes of every whole-row family: many short rows (quarter, half rows), whole-warp rows
/// that narrow, block rows (narrowing and past their registers).
const SHAPES: [(usize, usize, usize); 7] = [
    (3000, 100, 20),
    (700, 300, 64),
    (200, 700, 100),
    (64, 2000, 300),
    (20, 5000, 100),
    (9, 20_000, 600),
    (3, 70_000, 2048),
];

/// The default program of the ragged request `(n, m, k)` of `elem` with lengths and k per row
/// on this GPU, with or without iteration counts.
fn ragged_program(
    (n, m, k): (usize, usize, usize),
    elem: rtopk_plan::ElemType,
    counts: bool,
) -> rtopk_plan::Program {
    let (mode, bisect) = (Mode::Largest, topk_ref::Bisect::exact());
    let launch = rtopk_plan::Launch { n, m, k, mode, bisect, sorted: false, elem };
    let gpu = rtopk_cuda::shared_device(0).expect("a CUDA GPU");
    let both = rtopk_plan::Ragged { lengths: true, k_per_row: true, ..Default::default() };
    let strategy = rtopk_plan::Strategy::Auto;
    rtopk_plan::program_ragged(&launch, &gpu.limits(), strategy, counts, both).unwrap()
}

/// The unit of the ragged f32 request `(n, m, k)` with lengths and k per row on this GPU.
fn ragged_unit(n: usize, m: usize, k: usize) -> String {
    let p = ragged_program((n, m, k), rtopk_plan::ElemType::F32, true);
    p.steps[0].unit.to_string()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_rows_on_the_gpu_equal_the_simulator_f32() {
    // the last two shapes: few rows past 16384, a cluster each on a device that launches them
    // (the ragged twin, rtopk_cluster_rows_ragged), else one block each
    let clusters = rtopk_cuda::shared_device(0).expect("a CUDA GPU").limits().max_cluster > 1;
    for &(n, m, k) in &SHAPES[5..] {
        let want = if clusters { "rtopk_cluster_rows_ragged" } else { "rtopk_block_rows_ragged" };
        assert_eq!(ragged_unit(n, m, k), want, "N={n} M={m} K={k}");
    }
    for (i, &(n, m, k)) in SHAPES.iter().enumerate() {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, i as u64)).unwrap();
        check(x.view(), k, i as u64 + 100);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_rows_on_the_gpu_equal_the_simulator_f16_bf16() {
    for (i, &(n, m, k)) in SHAPES.iter().enumerate() {
        let v = hostile(n, m, i as u64 + 7);
        let h = Array2::from_shape_vec((n, m), v.iter().map(|&f| f16::from_f32(f)).collect());
        check(h.unwrap().view(), k, i as u64 + 200);
        let b = Array2::from_shape_vec((n, m), v.iter().map(|&f| bf16::from_f32(f)).collect());
        check(b.unwrap().view(), k, i as u64 + 300);
    }
}

/// Cluster rows of finite values narrow to their candidates in block 0
/// (`rtopk_cluster_rows_narrow`; docs/kernel.md, "Cluster rows", **Narrowing**): cuda against
/// the simulator, which narrows the same rows, and the oracle — ragged (lengths 0 and M, k 0
/// and above the length), with hints (each row's own threshold, near ones, NaN, ±inf,
/// arbitrary bits) and plain, both modes, sorted or not; blocks of 12 and 13 warps, and wide
/// clusters.
#[test]
#[ignore = "needs a CUDA GPU"]
fn narrowed_cluster_rows_on_the_gpu_equal_the_simulator() {
    for (i, (n, m, k)) in
        [(4, 100_000, 20), (3, 98_304, 128), (2, 200_000, 40)].into_iter().enumerate()
    {
        let unit = ragged_unit(n, m, k);
        assert_eq!(unit, "rtopk_cluster_rows_narrow_ragged", "N={n} M={m} K={k}");
        let x = Array2::from_shape_vec((n, m), finite(n, m, i as u64 + 90)).unwrap();
        check(x.view(), k, i as u64 + 800);
        check_hinted(x.view(), k, i as u64 + 850, true);
        check_hinted(x.view(), k, i as u64 + 870, false);
    }
}

/// `cuda` and `sim` on the request `build` makes with hints about each row's own threshold
/// (`hints`, seeded), against the same request without hints on `bisect`: the simulator's
/// answer bit for bit, and the plain answer's indices, values and thresholds. Returns cuda's.
fn hinted_against_plain(
    x: ArrayView2<'_, f32>,
    build: impl Fn(&str, Option<Vec<f32>>) -> Request,
    seed: u64,
    what: &str,
) -> Selection<f32> {
    let plain = select(x, &build("bisect", None)).unwrap();
    let h = hints(&plain.threshold.clone().unwrap(), seed);
    let cuda = select(x, &build("cuda", Some(h.clone()))).unwrap();
    let sim = select(x, &build("sim", Some(h))).unwrap();
    same(&cuda, &sim, what);
    assert_eq!(cuda.topk.indices, plain.topk.indices, "{what}: the hints change no answer");
    assert_eq!(bits(&cuda.topk.values), bits(&plain.topk.values), "{what}: values");
    assert_eq!(tbits(&cuda.threshold), tbits(&plain.threshold), "{what}: thresholds");
    cuda
}

/// Hinted cluster rows whose counts nobody asks for start from a window about their hint
/// (docs/kernel.md, "Cluster rows", **A window about the hint**): cuda against the simulator,
/// which takes the same window, and against the plain answer and the oracle — rows of normal
/// scores, some on a few tied values, with each row's own threshold, a near one, a drifted one,
/// NaN, ±inf and arbitrary bits as hints (`hints`), ragged and full, both modes, sorted or not.
#[test]
#[ignore = "needs a CUDA GPU"]
fn hinted_cluster_rows_without_counts_on_the_gpu_equal_the_simulator() {
    let (plain, narrow) = ("rtopk_cluster_rows_ragged", "rtopk_cluster_rows_narrow_ragged");
    let shapes = [
        (8, 40_000, 2048, plain),
        (2, 100_000, 2048, plain),
        (16, 32_000, 64, plain),
        (4, 100_000, 64, narrow),
        (2, 131_072, 128, narrow),
    ];
    for (i, (n, m, k, want_unit)) in shapes.into_iter().enumerate() {
        let unit =
            ragged_program((n, m, k), rtopk_plan::ElemType::F32, false).steps[0].unit.to_string();
        assert_eq!(unit, want_unit, "N={n} M={m} K={k}");
        // normal scores (Box–Muller on the draws); every third row on 40 tied values
        let u: Vec<f32> =
            draws(n * m * 2, i as u64 + 960).map(|d| (d as f32 + 1.0) / 4_294_967_296.0).collect();
        let x: Vec<f32> = (0..n * m)
            .map(|j| {
                let z =
                    (-2.0 * u[2 * j].ln()).sqrt() * (std::f32::consts::TAU * u[2 * j + 1]).cos();
                if (j / m) % 3 == 2 { (z * 10.0).round().clamp(-20.0, 19.0) * 0.25 } else { z }
            })
            .collect();
        let x = Array2::from_shape_vec((n, m), x).unwrap();
        for ragged in [false, true] {
            let (lengths, ks) =
                if ragged { shape(n, m, k, i as u64 + 970) } else { (vec![m; n], vec![k; n]) };
            for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
                let opts = Options { mode: Mode::from_smallest(smallest), sorted };
                let what = format!(
                    "N={n} M={m} K={k} ragged={ragged} smallest={smallest} sorted={sorted}"
                );
                let build = |algo: &str, hint: Option<Vec<f32>>| {
                    let b = Request::builder(algo).options(opts).threshold(true);
                    let b = b.k_of(K::PerRow(ks.clone())).lengths(lengths.clone());
                    match hint {
                        Some(h) => b.hint(h),
                        None => b,
                    }
                    .build()
                    .unwrap()
                };
                let cuda = hinted_against_plain(x.view(), build, i as u64 + 980, &what);
                let rows = Rows::per_row_k(&ks).with_lengths(&lengths);
                let want = canonical_ragged(x.view(), &rows, opts).unwrap();
                assert_eq!(cuda.topk.indices, want.indices, "{what}: oracle");
            }
        }
    }
}

/// Hinted rows without lengths or a k per row (a decode step's call: the previous step's
/// thresholds as hints) of 24577 to 32768 take 8 cluster blocks, as plain rows do
/// (rtopk-plan's `SHORT_CLUSTER_MIN_ROW`): cuda against the simulator and the plain answer,
/// with each row's own threshold, near, drifted, NaN, ±inf and arbitrary bits as hints
/// (`hints`), both modes, sorted or not.
#[test]
#[ignore = "needs a CUDA GPU"]
fn hinted_rows_of_four_spans_on_eight_cluster_blocks_equal_the_simulator() {
    let gpu = rtopk_cuda::shared_device(0).expect("a CUDA GPU");
    for (i, (n, m, k)) in
        [(2, 32_000, 1024), (3, 30_000, 64), (1, 32_768, 2048)].into_iter().enumerate()
    {
        let (mode, bisect) = (Mode::Largest, topk_ref::Bisect::exact());
        let elem = rtopk_plan::ElemType::F32;
        let launch = rtopk_plan::Launch { n, m, k, mode, bisect, sorted: false, elem };
        let hinted = rtopk_plan::Ragged { hint: true, threshold: true, ..Default::default() };
        let strategy = rtopk_plan::Strategy::Auto;
        let p = rtopk_plan::program_ragged(&launch, &gpu.limits(), strategy, false, hinted);
        let step = &p.unwrap().steps[0];
        assert_eq!(step.unit.to_string(), "rtopk_cluster_rows_ragged", "N={n} M={m} K={k}");
        if gpu.limits().max_cluster >= 8 {
            assert_eq!(step.grid.cluster, 8, "N={n} M={m} K={k}");
        }
        let x = Array2::from_shape_vec((n, m), finite(n, m, i as u64 + 1100)).unwrap();
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let opts = Options { mode: Mode::from_smallest(smallest), sorted };
            let what = format!("N={n} M={m} K={k} smallest={smallest} sorted={sorted}");
            let build = |algo: &str, hint: Option<Vec<f32>>| {
                let b = Request::builder(algo).options(opts).threshold(true).k(k);
                match hint {
                    Some(h) => b.hint(h),
                    None => b,
                }
                .build()
                .unwrap()
            };
            hinted_against_plain(x.view(), build, i as u64 + 1200, &what);
        }
    }
}

/// As [`finite`] but with the ties inside the range of the other values: rows whose k-th value,
/// at either end, lies among distinct values, so that a cluster row's search narrows within its
/// blocks there ([`finite`]'s ties are its largest values: its rows of the first two wide
/// shapes below never reach the rounds).
fn spread(n: usize, m: usize, seed: u64) -> Vec<f32> {
    let specials = [0.0, -0.0, f32::from_bits(1), f32::from_bits(0x8000_0003)];
    draws(n * m, seed)
        .map(|r| match r % 32 {
            0 => specials[(r as usize / 32) % specials.len()],
            1 => ((r / 32) % 5) as f32 - 30_000.0, // ties among the other values
            _ => (r / 32) as f32 / 1024.0 - 32_768.0,
        })
        .collect()
}

/// Rows past the portable clusters over a wide cluster (16 blocks a row,
/// `rtopk_cluster_rows_ragged`), whose search narrows within its blocks and counts its rounds
/// by warp ballots (docs/kernel.md, "Cluster rows", **Rounds**): cuda against the simulator
/// and the oracle — ragged (a row ending inside a block's part, lengths 0 and M, k 0 and above
/// the length), with hints and plain, both modes, sorted or not.
#[test]
#[ignore = "needs a CUDA GPU"]
fn wide_cluster_rows_on_the_gpu_equal_the_simulator() {
    let gpu = rtopk_cuda::shared_device(0).expect("a CUDA GPU");
    let wide = rtopk_plan::WIDE_CLUSTER;
    assert!(
        gpu.limits().max_cluster >= wide,
        "this test needs a device that launches wide clusters"
    );
    for (i, (n, m, k)) in
        [(2, 200_000, 2048), (1, 262_144, 3000), (4, 140_000, 1024)].into_iter().enumerate()
    {
        let step = &ragged_program((n, m, k), rtopk_plan::ElemType::F32, true).steps[0];
        assert_eq!(step.unit.to_string(), "rtopk_cluster_rows_ragged", "N={n} M={m} K={k}");
        assert_eq!(step.grid.cluster as usize, wide, "N={n} M={m} K={k}");
        let x = Array2::from_shape_vec((n, m), spread(n, m, i as u64 + 60)).unwrap();
        assert!(reaches_ballot_rounds(x.as_slice().unwrap(), (n, m, k)), "N={n} M={m} K={k}");
        check(x.view(), k, i as u64 + 900);
        check_hinted(x.view(), k, i as u64 + 950, true);
        check_hinted(x.view(), k, i as u64 + 970, false);
    }
}

/// Whether the simulator's launch of `x`'s `n` rows of `m` at k (full lengths, k per row, on
/// the default device: an H100's limits) counts its rounds by warp ballots — that the rows
/// reach the path [`wide_cluster_rows_on_the_gpu_equal_the_simulator`] is about.
fn reaches_ballot_rounds(x: &[f32], (n, m, k): (usize, usize, usize)) -> bool {
    let (mode, bisect) = (Mode::Largest, topk_ref::Bisect::exact());
    let args = warp_sim::KernelArgs { n, m, k, mode, bisect, mutant: None };
    let (lengths, ks) = (vec![m as u32; n], vec![k as u32; n]);
    let data =
        warp_sim::RowData { lengths: Some(&lengths), k_per_row: Some(&ks), ..Default::default() };
    let mut sim = warp_sim::Simulator::new(warp_sim::SimConfig::default());
    let got = sim.run_ragged(x, &args, data).unwrap();
    got.coverage.reached(warp_sim::Branch::ClusterBallotRounds)
}

/// Full lengths and one k per row: the plain launch's answer and counts, bit for bit.
#[test]
#[ignore = "needs a CUDA GPU"]
fn full_lengths_on_the_gpu_are_the_plain_launch() {
    let (n, m, k) = (64, 3000, 50);
    let x = Array2::from_shape_vec((n, m), hostile(n, m, 9)).unwrap();
    let plain = Request::builder("cuda").k(k).iterations(true).build().unwrap();
    let plain = select(x.view(), &plain).unwrap();
    let ragged = request("cuda", &vec![m; n], &vec![k; n], Options::default(), true);
    let ragged = select(x.view(), &ragged).unwrap();
    assert_eq!(ragged.topk.indices, plain.topk.indices);
    assert_eq!(bits(&ragged.topk.values), bits(&plain.topk.values));
    assert_eq!(ragged.topk.iterations, plain.topk.iterations);
}

/// Per-row hints for `x`: each row's own threshold (from `want`), a near one (a few ulps
/// off), NaN of both signs, ±inf, and arbitrary bits.
fn hints(own: &Array1<f32>, seed: u64) -> Vec<f32> {
    let mut s = seed;
    own.iter()
        .enumerate()
        .map(|(r, &t)| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            match r % 8 {
                0 | 1 => t,
                2 if t.is_finite() => f32::from_bits(t.to_bits().wrapping_add(3)),
                3 if t.is_finite() => t * 1.01 + 0.25,
                4 => f32::from_bits(if r % 16 == 4 { 0x7FC0_0000 } else { 0xFFC0_4321 }),
                5 => f32::INFINITY,
                6 => f32::NEG_INFINITY,
                _ => f32::from_bits((s >> 32) as u32),
            }
        })
        .collect()
}

/// With hints: cuda against sim and `bisect` with the same hints — indices, values, counts
/// (docs/contract.md §3) and thresholds — and the oracle; with each row's own threshold as
/// hint, never more iterations than without.
fn check_hinted<E: KernelElement>(x: ArrayView2<'_, E>, kmax: usize, seed: u64, ragged: bool) {
    let (n, m) = x.dim();
    let (lengths, ks) =
        if ragged { shape(n, m, kmax, seed) } else { (vec![m; n], vec![kmax.min(m); n]) };
    for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} N={n} M={m} K={kmax} smallest={smallest} sorted={sorted}", E::NAME);
        let build = |algo: &str, hint: Option<Vec<f32>>| {
            let b = Request::builder(algo).options(opts).threshold(true).iterations(true);
            let b = if ragged {
                b.k_of(K::PerRow(ks.clone())).lengths(lengths.clone())
            } else {
                b.k(kmax)
            };
            let b = match hint {
                Some(h) => b.hint(h),
                None => b,
            };
            b.build().unwrap()
        };
        let plain = select(x, &build("bisect", None)).unwrap();
        let own = plain.threshold.clone().unwrap();
        let h = hints(&own, seed);
        let cuda = select(x, &build("cuda", Some(h.clone()))).unwrap();
        let sim = select(x, &build("sim", Some(h.clone()))).unwrap();
        let cpu = select(x, &build("bisect", Some(h.clone()))).unwrap();
        same(&cuda, &sim, &what);
        same(&cuda, &cpu, &what);
        assert_eq!(cuda.topk.indices, plain.topk.indices, "{what}: the hints change no answer");
        assert_eq!(tbits(&cuda.threshold), tbits(&plain.threshold), "{what}: thresholds");
        let (with, without) = (cuda.topk.iterations.unwrap(), plain.topk.iterations.unwrap());
        for r in (0..n).filter(|r| r % 8 < 2) {
            assert!(
                with[r] <= without[r],
                "{what}: row {r}: own threshold {} > {}",
                with[r],
                without[r]
            );
        }
        let rows = Rows::per_row_k(&ks).with_lengths(&lengths);
        let want = canonical_ragged(x, &rows, opts).unwrap();
        assert_eq!(cuda.topk.indices, want.indices, "{what}: oracle");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn hinted_rows_on_the_gpu_equal_bisect_f32() {
    for (i, &(n, m, k)) in SHAPES.iter().enumerate() {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, i as u64 + 40)).unwrap();
        check_hinted(x.view(), k, i as u64 + 400, true);
        check_hinted(x.view(), k, i as u64 + 500, false);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn hinted_rows_on_the_gpu_equal_bisect_f16_bf16() {
    for (i, &(n, m, k)) in SHAPES.iter().enumerate() {
        let v = hostile(n, m, i as u64 + 70);
        let h = Array2::from_shape_vec((n, m), v.iter().map(|&f| f16::from_f32(f)).collect());
        let h = h.unwrap();
        check_hinted(h.view(), k, i as u64 + 600, true);
        check_hinted(h.view(), k, i as u64 + 650, false);
        let b = Array2::from_shape_vec((n, m), v.iter().map(|&f| bf16::from_f32(f)).collect());
        let b = b.unwrap();
        check_hinted(b.view(), k, i as u64 + 700, true);
        check_hinted(b.view(), k, i as u64 + 750, false);
    }
}

/// Rows whose scores drift a little between steps (a decode loop): the previous step's
/// thresholds as hints cut the GPU's iterations, exactly as they cut `bisect`'s.
#[test]
#[ignore = "needs a CUDA GPU"]
fn previous_thresholds_cut_the_gpus_iterations() {
    let (n, m, k) = (64, 32_768, 2048);
    let mut v = hostile(n, m, 11)
        .into_iter()
        .map(|f| if f.is_finite() { f } else { 1.5 })
        .collect::<Vec<_>>();
    let req = |hint: Option<Vec<f32>>| {
        let b = Request::builder("cuda").k(k).threshold(true).iterations(true);
        match hint {
            Some(h) => b.hint(h),
            None => b,
        }
        .build()
        .unwrap()
    };
    let x = Array2::from_shape_vec((n, m), v.clone()).unwrap();
    let prev = select(x.view(), &req(None)).unwrap().threshold.unwrap().to_vec();
    for (j, f) in v.iter_mut().enumerate().filter(|(j, _)| j % 50 == 7) {
        *f += (j % 13) as f32 * 1e-3;
    }
    let x = Array2::from_shape_vec((n, m), v).unwrap();
    let cold = select(x.view(), &req(None)).unwrap();
    let warm = select(x.view(), &req(Some(prev.clone()))).unwrap();
    let cpu = Request::builder("bisect").k(k).threshold(true).iterations(true).hint(prev).build();
    let cpu = select(x.view(), &cpu.unwrap()).unwrap();
    same(&warm, &cpu, "decode step");
    assert_eq!(warm.topk.indices, cold.topk.indices);
    let sum = |s: &Selection<f32>| {
        s.topk.iterations.as_ref().unwrap().iter().map(|&i| u64::from(i)).sum::<u64>()
    };
    assert!(sum(&warm) < sum(&cold), "warm {} cold {}", sum(&warm), sum(&cold));
}

/// Few long rows of their own length (docs/kernel.md, "Split rows"): warp-row and block-row
/// chunks, k from 64 to 2048, lengths 0, M and random (a length below k included); more rows,
/// or longer ones, than the clusters of an H100 hold at once (rows of their own length take
/// the plain rows' cluster shapes, fewer blocks up to rtopk-plan's `FEWER_BLOCKS_MAX_ROW`
/// included). (Fewer rows of the middle two take a cluster each on a device that launches
/// clusters: `ragged_rows_on_the_gpu_equal_the_simulator_f32` has those.)
const SPLIT_SHAPES: [(usize, usize, usize); 4] =
    [(5, 300_000, 2048), (20, 160_000, 2048), (100, 40_000, 300), (2, 600_000, 64)];

/// Without counts the rows split (as plain rows of the shape do): cuda against sim (both
/// split) and the oracle, both modes, sorted and not.
fn check_split<E: KernelElement>(x: ArrayView2<'_, E>, kmax: usize, seed: u64) {
    let (n, m) = x.dim();
    let (lengths, ks) = shape(n, m, kmax, seed);
    let launch = rtopk_plan::Launch {
        n,
        m,
        k: kmax,
        mode: Mode::Largest,
        bisect: topk_ref::Bisect::exact(),
        sorted: false,
        elem: rtopk_plan::ElemType::F32,
    };
    let h100 = rtopk_plan::DeviceLimits::preset("h100").unwrap();
    let both = rtopk_plan::Ragged { lengths: true, k_per_row: true, ..Default::default() };
    let split = rtopk_plan::program_ragged(&launch, &h100, rtopk_plan::Strategy::Auto, false, both);
    assert_eq!(split.unwrap().depth, 1, "N={n} M={m} K={kmax} splits");
    for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} N={n} M={m} K={kmax} smallest={smallest} sorted={sorted}", E::NAME);
        let cuda = select(x, &request("cuda", &lengths, &ks, opts, false)).unwrap();
        let sim = select(x, &request("sim", &lengths, &ks, opts, false)).unwrap();
        same(&cuda, &sim, &what);
        let rows = Rows::per_row_k(&ks).with_lengths(&lengths);
        let want = canonical_ragged(x, &rows, opts).unwrap();
        assert_eq!(cuda.topk.indices, want.indices, "{what}: oracle");
        assert_eq!(bits(&cuda.topk.values), bits(&want.values), "{what}: oracle values");
        // with hints (the split's last select reads them): the same answer on both
        let h = hints(cuda.threshold.as_ref().unwrap(), seed);
        let hinted = |algo: &str| {
            let b = Request::builder(algo).k_of(K::PerRow(ks.clone())).lengths(lengths.clone());
            let r = b.options(opts).threshold(true).hint(h.clone()).build().unwrap();
            select(x, &r).unwrap()
        };
        let (cuda_h, sim_h) = (hinted("cuda"), hinted("sim"));
        same(&cuda_h, &sim_h, &format!("{what} hinted"));
        same(&cuda_h, &cuda, &format!("{what}: the hints change no answer"));
    }
}

/// Hints alone on rows the plan splits (one k, full length): the last select reads them; the
/// answer and thresholds are the unhinted ones, on the GPU and in the simulator.
fn check_split_hinted<E: KernelElement>(x: ArrayView2<'_, E>, k: usize, seed: u64) {
    let (n, m) = x.dim();
    for (smallest, sorted) in [(false, false), (true, true)] {
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        let what = format!("{} N={n} M={m} K={k} smallest={smallest} sorted={sorted}", E::NAME);
        let run = |algo: &str, hint: Option<Vec<f32>>| {
            let b = Request::builder(algo).k(k).options(opts).threshold(true);
            let b = match hint {
                Some(h) => b.hint(h),
                None => b,
            };
            select(x, &b.build().unwrap()).unwrap()
        };
        let plain = run("cuda", None);
        let h = hints(plain.threshold.as_ref().unwrap(), seed);
        let (cuda, sim) = (run("cuda", Some(h.clone())), run("sim", Some(h)));
        same(&cuda, &sim, &what);
        same(&cuda, &plain, &format!("{what}: the hints change no answer"));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn hinted_split_rows_on_the_gpu_equal_the_simulator() {
    // the shapes a plain request splits on a device without clusters (on one that launches
    // clusters, the first two take a cluster second stage and a cluster each)
    let h100 = rtopk_plan::DeviceLimits::preset("h100").unwrap();
    let h100 = rtopk_plan::DeviceLimits { max_cluster: 1, ..h100 };
    for (i, &(n, m, k)) in
        [(1, 300_000, 2048), (8, 131_072, 2048), (4, 65_536, 64)].iter().enumerate()
    {
        let launch = rtopk_plan::Launch {
            n,
            m,
            k,
            mode: Mode::Largest,
            bisect: topk_ref::Bisect::exact(),
            sorted: false,
            elem: rtopk_plan::ElemType::F32,
        };
        let p = rtopk_plan::program(&launch, &h100, rtopk_plan::Strategy::Auto, false).unwrap();
        assert!(p.depth > 0, "N={n} M={m} K={k} splits");
        let v = hostile(n, m, 90 + i as u64);
        let x = Array2::from_shape_vec((n, m), v.clone()).unwrap();
        check_split_hinted(x.view(), k, 900 + i as u64);
        let b = Array2::from_shape_vec((n, m), v.iter().map(|&f| bf16::from_f32(f)).collect());
        check_split_hinted(b.unwrap().view(), k, 950 + i as u64);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn split_ragged_rows_on_the_gpu_equal_the_simulator_f32() {
    for (i, &(n, m, k)) in SPLIT_SHAPES.iter().enumerate() {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, 40 + i as u64)).unwrap();
        check_split(x.view(), k, 500 + i as u64);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn split_ragged_rows_on_the_gpu_equal_the_simulator_f16_bf16() {
    for (i, &(n, m, k)) in SPLIT_SHAPES.iter().enumerate().skip(1) {
        let v = hostile(n, m, 60 + i as u64);
        let h = Array2::from_shape_vec((n, m), v.iter().map(|&f| f16::from_f32(f)).collect());
        check_split(h.unwrap().view(), k, 600 + i as u64);
        let b = Array2::from_shape_vec((n, m), v.iter().map(|&f| bf16::from_f32(f)).collect());
        check_split(b.unwrap().view(), k, 700 + i as u64);
    }
}

/// `x`'s hostile values as integers of `E`: scaled by `scale`, rounded, saturated at the
/// type's ends (NaN as 0, ±inf as the ends: topk-ref's `Element::from_f32`).
fn integers<E: Element>(n: usize, m: usize, seed: u64, scale: f32) -> Array2<E> {
    let v = hostile(n, m, seed).iter().map(|&f| E::from_f32((f * scale).round())).collect();
    Array2::from_shape_vec((n, m), v).unwrap()
}

/// Integer rows (docs/kernel.md, "Integer rows"): ragged, hinted (an integer row's hint test
/// is at the least integer at or above the hint) and split rows on the GPU equal the
/// simulator and `bisect`, in each of the four integer types.
#[test]
#[ignore = "needs a CUDA GPU"]
fn integer_rows_on_the_gpu_equal_the_simulator_and_bisect() {
    for (i, &(n, m, k)) in SHAPES.iter().enumerate() {
        let s = 800 + 10 * i as u64;
        check(integers::<i8>(n, m, s, 16.0).view(), k, s);
        check(integers::<u8>(n, m, s + 1, 32.0).view(), k, s + 1);
        check_hinted(integers::<i16>(n, m, s + 2, 4096.0).view(), k, s + 2, true);
        check_hinted(integers::<i32>(n, m, s + 3, 6.7e7).view(), k, s + 3, false);
        check_hinted(integers::<u8>(n, m, s + 4, 32.0).view(), k, s + 4, true);
    }
    for (i, &(n, m, k)) in SPLIT_SHAPES.iter().enumerate().skip(1) {
        let s = 900 + 10 * i as u64;
        check_split(integers::<i32>(n, m, s, 6.7e7).view(), k, s);
        check_split(integers::<i8>(n, m, s + 1, 16.0).view(), k, s + 1);
    }
}
