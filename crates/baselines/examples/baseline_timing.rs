//! Quick single-thread timing of the six baselines row by row on f32, f16 and bf16 copies of
//! one pseudo-random matrix (16384 × 256, k = 32; best of 7 runs):
//! `cargo run --release -p baselines --example baseline_timing [f32|f16|bf16]`.
use std::time::Instant;
use topk_ref::{Element, Mode, Scratch, bf16, f16};

fn time<E: Element>(name: &str, x: &[E], m: usize, k: usize) {
    let algo = baselines::by_name_for::<E>(name).expect("registered");
    let mut out = vec![0u32; k];
    let mut scratch = Scratch::default();
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t = Instant::now();
        for row in x.chunks(m) {
            algo.select_row(row, k, Mode::Largest, &mut scratch, &mut out);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("{:4} {name:12} {}x{m} k={k}: best {:8.2} ms", E::NAME, x.len() / m, best * 1e3);
}

fn main() {
    let (n, m, k) = (16384, 256, 32);
    let mut s = 7u64;
    let x: Vec<f32> = (0..n * m)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) as f32) * 1e-5 - 80.0
        })
        .collect();
    let h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
    let b: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
    let only = std::env::args().nth(1);
    let wanted = |t: &str| only.as_deref().is_none_or(|o| o == t);
    for name in baselines::BASELINE_NAMES {
        if wanted("f32") {
            time(name, &x, m, k);
        }
        if wanted("f16") {
            time(name, &h, m, k);
        }
        if wanted("bf16") {
            time(name, &b, m, k);
        }
    }
}
