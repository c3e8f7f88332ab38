//! Criterion bench: the simulated RTop-K kernel at the paper's shape M = 256, k = 32 on
//! standard-normal rows, one core, diagnostics on (the default) and off — the difference is
//! what the shadow-memory, mask and poison checks cost.
//! Run: `cargo bench -p warp-sim --bench sim`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use topk_ref::{Bisect, Mode};
use warp_sim::{DiagPolicy, KernelArgs, SimConfig, Simulator};

const N: usize = 2048;
const M: usize = 256;
const K: usize = 32;

fn bench_kernel(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7);
    let x: Vec<f32> = (0..N * M).map(|_| StandardNormal.sample(&mut rng)).collect();
    let mut group = c.benchmark_group(format!("sim_{N}x{M}_k{K}"));
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(10).measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_millis(500));
    for (name, bisect) in [("exact", Bisect::exact()), ("maxiter8", Bisect::early_stopping(8))] {
        let args = KernelArgs { n: N, m: M, k: K, mode: Mode::Largest, bisect, mutant: None };
        for policy in [DiagPolicy::Collect, DiagPolicy::Off] {
            let mut sim = Simulator::new(SimConfig { policy, ..SimConfig::default() });
            let id = format!(
                "{name}/diagnostics-{}",
                if policy == DiagPolicy::Off { "off" } else { "on" }
            );
            group.bench_function(BenchmarkId::from_parameter(id), |b| {
                b.iter(|| sim.run(black_box(&x), &args).expect("launch"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_kernel);
criterion_main!(benches);
