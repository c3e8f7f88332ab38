//! Rows per second of the simulated kernel on one core, diagnostics on and off, at the
//! paper's shape M = 256, k = 32 (standard-normal rows): the plan's family for the shape (two
//! rows per warp), and the quarter- and whole-warp families forced. Reports the best and the
//! median of several runs: on a shared machine the best run is the least disturbed one.
//! Run: `taskset -c 1 cargo run --release -p warp-sim --example throughput [-- ROWS RUNS]`.

use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use topk_ref::{Bisect, Mode};
use warp_sim::rtopk::Strategy;
use warp_sim::{DiagPolicy, KernelArgs, SimConfig, Simulator};

fn main() {
    let mut argv = std::env::args().skip(1).map(|a| a.parse::<usize>().unwrap_or(0));
    let n = argv.next().filter(|&n| n > 0).unwrap_or(4096);
    let runs = argv.next().filter(|&r| r > 0).unwrap_or(15);
    let (m, k) = (256, 32);
    let mut rng = StdRng::seed_from_u64(7);
    let x: Vec<f32> = (0..n * m).map(|_| StandardNormal.sample(&mut rng)).collect();
    println!("M = {m}, k = {k}, {n} rows per run, {runs} runs, one thread");
    let searches = [("exact", Bisect::exact()), ("max_iter=8", Bisect::early_stopping(8))];
    for strategy in [Strategy::Auto, Strategy::Quarter, Strategy::Warp] {
        for (name, bisect) in searches {
            let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect, mutant: None };
            for policy in [DiagPolicy::Collect, DiagPolicy::Off] {
                let config = SimConfig { policy, strategy, ..SimConfig::default() };
                let mut sim = Simulator::new(config);
                let unit = sim.plan(&args).expect("a plan").unit;
                let mut secs: Vec<f64> = (0..runs)
                    .map(|_| {
                        let t = Instant::now();
                        let r = sim.run(&x, &args).expect("launch");
                        assert_eq!(r.diagnostics_total, 0);
                        t.elapsed().as_secs_f64()
                    })
                    .collect();
                secs.sort_by(f64::total_cmp);
                let diag = if policy == DiagPolicy::Off { "off" } else { "on " };
                println!(
                    "{:<22} {name:<11} diagnostics {diag}: best {:>8.0} rows/s, median {:>8.0} rows/s",
                    unit.to_string(),
                    n as f64 / secs[0],
                    n as f64 / secs[runs / 2]
                );
            }
        }
    }
}
