//! Quick timing of topk-ref's algorithms row-wise on f32, f16 and bf16 copies of one
//! standard-normal matrix of 2^24 elements (best of 15 runs):
//!
//! ```sh
//! RAYON_NUM_THREADS=1 cargo run --release -p topk-ref --example element_timing [ALGO [M [K]]]
//! ```
//!
//! `M` defaults to 256 (65,536 rows), `K` to 32. The f16 / f32 ratio of `bisect` is the CPU
//! 16-bit target (f16 within 1.2x of f32's time per element).

use ndarray::Array2;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use std::time::Instant;
use topk_ref::registry::{ALGORITHM_NAMES, by_name_for};
use topk_ref::{Element, Options, TopK, bf16, f16, topk_rows_into};

/// Best time of `name` on `x`, in seconds.
fn time<E: Element>(name: &str, x: &Array2<E>, k: usize) -> f64 {
    let algo = by_name_for::<E>(name).expect("registered");
    let mut out = TopK::empty();
    let mut best = f64::INFINITY;
    for _ in 0..15 {
        let t = Instant::now();
        topk_rows_into(algo.as_ref(), x.view(), k, Options::default(), &mut out)
            .expect("valid shape");
        best = best.min(t.elapsed().as_secs_f64());
    }
    let (n, m) = x.dim();
    let per = best * 1e9 / (n * m) as f64;
    println!("{:4} {name:12} {n}x{m} k={k}: {:8.2} ms, {per:.3} ns/element", E::NAME, best * 1e3);
    best
}

fn main() {
    let mut args = std::env::args().skip(1);
    let only = args.next().filter(|a| a != "all");
    let m: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(256);
    let k: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(32);
    let n = (1 << 24) / m;
    let mut rng = StdRng::seed_from_u64(7);
    let x: Array2<f32> = Array2::from_shape_simple_fn((n, m), || StandardNormal.sample(&mut rng));
    let h = x.mapv(f16::from_f32);
    let b = x.mapv(bf16::from_f32);
    for name in ALGORITHM_NAMES.into_iter().filter(|n| only.as_deref().is_none_or(|o| o == *n)) {
        let t32 = time(name, &x, k);
        let t16 = time(name, &h, k);
        let tb16 = time(name, &b, k);
        println!("     {name:12} f16/f32 {:.2}x, bf16/f32 {:.2}x", t16 / t32, tb16 / t32);
    }
}
