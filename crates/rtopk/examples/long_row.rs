//! The Rust API on one long row, timed: `rtopk::select` with the `cuda` request on host rows
//! (copy in, the launch program, copy out) — the call `rtopk select --algo cuda` makes. Prints
//! one JSON line per request: the median wall time of `--reps` calls after one warm-up call
//! (which opens the GPU and loads the kernels), with and without iteration counts (with them
//! the row is not split).
//!
//! `cargo run --release -p rtopk --example long_row -- [N M K REPS]` (default 1 134217728 100 9)

use std::time::Instant;

use ndarray::Array2;
use rtopk::{Request, select};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let [n, m, k, reps] = match args.as_slice() {
        [] => [1, 1 << 27, 100, 9],
        [n, m, k, reps] => [*n, *m, *k, *reps],
        _ => return Err("usage: long_row [N M K REPS]".into()),
    };
    // A fixed, cheap, well-spread fill: no generator cost in the timed calls.
    let x = Array2::from_shape_fn((n, m), |(r, c)| {
        let h = ((r * m + c) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        (h as f32) * 1e-3 - 8000.0
    });
    for counts in [false, true] {
        let request = Request::builder("cuda").k(k).iterations(counts).build()?;
        let first = Instant::now();
        let reference = select(x.view(), &request)?;
        let first_ms = first.elapsed().as_secs_f64() * 1e3;
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            let out = select(x.view(), &request)?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(out.topk.indices, reference.topk.indices, "answers differ between calls");
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{{\"n\": {n}, \"m\": {m}, \"k\": {k}, \"iterations\": {counts}, \"reps\": {reps}, \
             \"median_ms\": {:.3}, \"min_ms\": {:.3}, \"first_ms\": {first_ms:.1}}}",
            times[reps / 2],
            times[0]
        );
    }
    Ok(())
}
