//! Pick rows (docs/kernel.md, "Pick rows") on the GPU: where no iteration counts are asked,
//! exact rows of up to 512 16-bit floats with k <= 8 (f32 rows up to M * k = 256) take
//! `rtopk_pick_rows` (one lane a row up to 16 at k <= 2, four lanes for 16-bit rows up to 64
//! and f32 rows up to 16, eight past them), and the `cuda` kernel gives the simulated kernel's
//! answer and the oracle's bit for bit — indices and value bits — in f32, f16 and bf16, both
//! modes, sorted or not, on rows built to break it (NaN of both signs and payloads, ±inf, ±0,
//! subnormals, heavy ties), every unit's width (not multiples of 8 among them) and more rows
//! than one block holds. The same request with counts is the
//! bisection's, and agrees too. Needs a CUDA GPU:
//! `cargo test -p rtopk --release --test gpu_ragged -- --ignored pick`.

use ndarray::{Array2, ArrayView2};
use rtopk::{KernelElement, Mode, Options, Request, Selection, bf16, f16, select};

use super::{bits, hostile, same};

fn request(algo: &str, k: usize, opts: Options, counts: bool) -> Request {
    Request::builder(algo).k(k).options(opts).iterations(counts).build().unwrap()
}

/// `cuda` without counts (pick rows) against `sim` without counts (pick rows too), `cuda` with
/// counts (the bisection) and the oracle (`heap`).
fn agree<E: KernelElement>(x: ArrayView2<'_, E>, k: usize) {
    for mode in [Mode::Largest, Mode::Smallest] {
        for sorted in [false, true] {
            let opts = Options { mode, sorted };
            let got: Selection<E> = select(x, &request("cuda", k, opts, false)).unwrap();
            let what = format!("{:?} k={k} {opts:?}", x.dim());
            let sim = select(x, &request("sim", k, opts, false)).unwrap();
            same(&got, &sim, &format!("sim, {what}"));
            let counted = select(x, &request("cuda", k, opts, true)).unwrap();
            assert_eq!(got.topk.indices, counted.topk.indices, "bisection, {what}");
            assert_eq!(bits(&got.topk.values), bits(&counted.topk.values), "bisection, {what}");
            let want = select(x, &request("heap", k, opts, false)).unwrap();
            assert_eq!(got.topk.indices, want.topk.indices, "oracle, {what}");
            assert_eq!(bits(&got.topk.values), bits(&want.topk.values), "oracle, {what}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn pick_rows_on_the_gpu_equal_the_simulator_the_bisection_and_the_oracle() {
    let mut cases = 0;
    for (si, &(n, m)) in
        [(37, 1), (37, 7), (70, 8), (33, 9), (40, 60), (41, 64), (35, 100), (36, 257), (34, 512)]
            .iter()
            .enumerate()
    {
        for k in [1, 2, 5, 8].into_iter().filter(|&k| k <= m) {
            let x =
                Array2::from_shape_vec((n, m), hostile(n, m, si as u64 * 17 + k as u64)).unwrap();
            agree(x.view(), k);
            agree(x.mapv(f16::from_f32).view(), k);
            agree(x.mapv(bf16::from_f32).view(), k);
            cases += 3;
        }
    }
    assert!(cases >= 90, "{cases} cases");
}

/// Every f16 and every bf16 bit pattern once (NaN of both signs and every payload, ±0,
/// subnormals, ±inf), spread over the rows by a fixed permutation: in rows of 64 (four lanes,
/// each loading its group of eight at once and keying two elements a word) and of 8 and 16 (one
/// lane at k <= 2, four past it), the simulator's, the bisection's and the oracle's answer.
#[test]
#[ignore = "needs a CUDA GPU"]
fn every_16_bit_pattern_in_pick_rows_equals_the_simulator_the_bisection_and_the_oracle() {
    // i -> i * 40503 mod 2^16 is a permutation (40503 is odd)
    let patterns: Vec<u16> = (0..=u16::MAX).map(|i| i.wrapping_mul(40503)).collect();
    for (m, ks) in [(64, &[1, 3, 8][..]), (8, &[2, 5]), (16, &[1, 6])] {
        let shape = (patterns.len() / m, m);
        let h = Array2::from_shape_fn(shape, |(r, c)| f16::from_bits(patterns[r * m + c]));
        let b = Array2::from_shape_fn(shape, |(r, c)| bf16::from_bits(patterns[r * m + c]));
        for &k in ks {
            agree(h.view(), k);
            agree(b.view(), k);
        }
    }
}

/// Many rows (many blocks, a partial last one), the MoE routers' shapes.
#[test]
#[ignore = "needs a CUDA GPU"]
fn pick_rows_of_routers_on_the_gpu_equal_the_bisection() {
    // one lane a row (32 rows a warp: partial warps and blocks) up to 16 at k <= 2; four lanes
    // (two picks a lane at k > 4) for 16-bit rows up to 64 and f32 rows up to 16; eight past
    let shapes = [(100_003, 8, 2), (65_537, 16, 1), (50_001, 13, 5), (20_001, 32, 8)];
    let wide = [(100_003, 64, 6), (65_537, 128, 2), (20_000, 256, 8), (3, 512, 8)];
    for (n, m, k) in shapes.into_iter().chain(wide) {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, 11)).unwrap();
        let b = x.mapv(bf16::from_f32);
        for opts in [Options::default(), Options { mode: Mode::Largest, sorted: true }] {
            let got = select(b.view(), &request("cuda", k, opts, false)).unwrap();
            let counted = select(b.view(), &request("cuda", k, opts, true)).unwrap();
            assert_eq!(got.topk.indices, counted.topk.indices, "({n}, {m}) k={k}");
            assert_eq!(bits(&got.topk.values), bits(&counted.topk.values));
            let f = select(x.view(), &request("cuda", k, opts, false)).unwrap();
            let fc = select(x.view(), &request("cuda", k, opts, true)).unwrap();
            assert_eq!(f.topk.indices, fc.topk.indices, "f32 ({n}, {m}) k={k}");
        }
    }
}

/// bf16 rows without counts (their value phase ending at adjacent keys, docs/kernel.md
/// "16-bit rows") on half-warp, whole-warp and block rows and split rows: the bisection's answer
/// and the simulator's (which ends there too).
#[test]
#[ignore = "needs a CUDA GPU"]
fn bf16_rows_without_counts_on_the_gpu_equal_the_simulator_the_bisection_and_the_oracle() {
    for (si, &(n, m, k)) in
        [(40, 300, 20), (9, 1000, 200), (3, 5000, 600), (2, 40_000, 100), (1, 70_000, 9)]
            .iter()
            .enumerate()
    {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, 90 + si as u64)).unwrap();
        agree(x.mapv(bf16::from_f32).view(), k);
    }
}
