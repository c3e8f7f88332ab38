//! Criterion benches: every topk-ref algorithm row-wise, grouped by shape (N, M, k), on
//! standard-normal data, then every algorithm on the same rows as f32, f16 and bf16.
//! `rtopk bench cpu` is the quick table; these give criterion's statistics and history.
//! Run: `cargo bench -p topk-ref --bench algorithms`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndarray::Array2;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use std::hint::black_box;
use std::time::Duration;
use topk_ref::registry::{ALGORITHM_NAMES, by_name, by_name_for};
use topk_ref::{Bisect, Element, Options, RowTopK, bf16, f16, topk_rows};

/// Shapes of the paper's row-wise regime, with N scaled down so a run takes minutes.
const SHAPES: [(usize, usize, usize); 3] = [(8192, 256, 32), (8192, 768, 128), (1024, 4096, 256)];

fn normal_matrix(n: usize, m: usize, seed: u64) -> Array2<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    Array2::from_shape_simple_fn((n, m), || StandardNormal.sample(&mut rng))
}

fn algorithms() -> Vec<(String, Box<dyn RowTopK>)> {
    let mut all: Vec<(String, Box<dyn RowTopK>)> =
        ALGORITHM_NAMES.iter().map(|&n| (n.to_string(), by_name(n).expect("registered"))).collect();
    all.push(("bisect-maxiter8".into(), Box::new(Bisect::early_stopping(8))));
    all
}

fn bench_shapes(c: &mut Criterion) {
    for (n, m, k) in SHAPES {
        let x = normal_matrix(n, m, 7);
        let mut group = c.benchmark_group(format!("rows_{n}x{m}_k{k}"));
        group.throughput(Throughput::Elements((n * m) as u64));
        group.sample_size(10).measurement_time(Duration::from_secs(2));
        group.warm_up_time(Duration::from_millis(500));
        for (name, algo) in algorithms() {
            group.bench_function(BenchmarkId::from_parameter(&name), |b| {
                b.iter(|| topk_rows(algo.as_ref(), black_box(x.view()), k, Options::default()))
            });
        }
        group.finish();
    }
}

/// One element type's group: every algorithm on `x`.
fn bench_element<E: Element>(c: &mut Criterion, x: &Array2<E>, k: usize) {
    let (n, m) = x.dim();
    let mut group = c.benchmark_group(format!("{}_{n}x{m}_k{k}", E::NAME));
    group.throughput(Throughput::Elements((n * m) as u64));
    group.sample_size(10).measurement_time(Duration::from_secs(2));
    group.warm_up_time(Duration::from_millis(500));
    for name in ALGORITHM_NAMES {
        let algo = by_name_for::<E>(name).expect("registered");
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| topk_rows(algo.as_ref(), black_box(x.view()), k, Options::default()))
        });
    }
    group.finish();
}

/// The same normal rows as f32, f16 and bf16 (16-bit keys: fewer radix digits, half the
/// bytes per counting pass of bisect).
fn bench_elements(c: &mut Criterion) {
    let (n, m, k) = SHAPES[0];
    let x = normal_matrix(n, m, 7);
    bench_element(c, &x, k);
    bench_element(c, &x.mapv(f16::from_f32), k);
    bench_element(c, &x.mapv(bf16::from_f32), k);
}

criterion_group!(benches, bench_shapes, bench_elements);
criterion_main!(benches);
