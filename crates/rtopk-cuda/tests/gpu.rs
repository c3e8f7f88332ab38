//! The CUDA kernel against topk-ref's `bisect` and warp-sim's kernel: bit-identical values,
//! identical indices and iteration counts.
//! GPU tests are `#[ignore]`d in `cargo test`; run them on a GPU machine with
//! `cargo test -p rtopk-cuda --release -- --include-ignored`.

use rtopk_cuda::verify::{Reference, WIDTHS, check_all, matrix};
use rtopk_cuda::{CudaError, CudaTopK, Launch, check_libraries};
use topk_ref::{Bisect, Mode, Options, RowTopK, topk_rows};

fn bisect_reference(b: Bisect) -> Box<dyn RowTopK> {
    Box::new(b)
}

fn sim_reference(b: Bisect) -> Box<dyn RowTopK> {
    Box::new(warp_sim::SimTopK::new(b))
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn kernel_matches_bisect_on_every_shape_family_and_mode() {
    let mut gpu = CudaTopK::new(0).expect("a CUDA device");
    let refs: [Reference<'_>; 2] = [("bisect", &bisect_reference), ("warp-sim", &sim_reference)];
    let report = check_all(&mut gpu, &WIDTHS, 1 << 21, &refs).unwrap();
    assert!(report.mismatches.is_empty(), "{:#?}", report.mismatches);
    assert!(report.rows >= 1_000_000, "only {} rows", report.rows);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn partial_blocks_zero_rows_and_zero_k() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    for n in [0, 1, 7, 9, 17] {
        for m in [50, 1500] {
            let x = matrix(n, m, "nan-inf", n as u64);
            for k in [0, 3, m] {
                let want = topk_rows(&Bisect::exact(), x.view(), k, Options::default()).unwrap();
                let got = gpu.topk_rows(x.view(), k, Options::default(), Bisect::exact()).unwrap();
                assert_eq!(got.indices, want.indices, "n={n} m={m} k={k}");
                assert_eq!(got.iterations, want.iterations, "n={n} m={m} k={k}");
            }
        }
    }
    let x = matrix(4, 10, "normal", 1);
    assert!(matches!(
        gpu.topk_rows(x.view(), 11, Options::default(), Bisect::exact()),
        Err(CudaError::TopK(_))
    ));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn sorted_output_is_sorted_on_the_device_in_both_sort_paths() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    // k around the sort's power-of-two and shared-memory boundaries; rows per block from 128
    // (k = 2..4) to 1, partial last blocks; ties and NaN/±inf/-0 rows in both modes.
    for (n, m, ks) in [
        (33, 40, &[2, 3, 4, 5, 31, 32, 33, 40][..]),
        (3, 9000, &[300, 1000, 1024, 1025, 4096, 4097, 9000]),
    ] {
        for family in ["ties", "nan-inf"] {
            let x = matrix(n, m, family, m as u64);
            for &k in ks {
                for mode in [Mode::Largest, Mode::Smallest] {
                    let opts = Options { mode, sorted: true };
                    let want = topk_rows(&Bisect::exact(), x.view(), k, opts).unwrap();
                    let got = gpu.topk_rows(x.view(), k, opts, Bisect::exact()).unwrap();
                    let case = format!("n={n} m={m} k={k} {family} {mode:?}");
                    assert_eq!(got.indices, want.indices, "{case}");
                    assert_eq!(
                        got.values.mapv(f32::to_bits),
                        want.values.mapv(f32::to_bits),
                        "{case}"
                    );
                }
            }
        }
    }
}

/// `time_ms` queues the timed launch behind a spin kernel, so it reads less than the same
/// launch timed from an idle GPU; a host slower than the longest spin is an error, not a figure.
#[test]
#[ignore = "needs a CUDA GPU"]
fn timing_leaves_the_host_out_or_says_it_cannot() {
    let gpu = CudaTopK::new(0).expect("a CUDA device");
    let (n, m, k) = (64, 256, 8);
    let x = matrix(n, m, "normal", 3);
    let s = gpu.stream();
    let dx = s.clone_htod(x.as_slice().unwrap()).unwrap();
    let mut val = s.alloc_zeros::<f32>(n * k).unwrap();
    let mut idx = s.alloc_zeros::<u32>(n * k).unwrap();
    let mut it = s.alloc_zeros::<u32>(n).unwrap();
    let launch = Launch { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), sorted: false };
    let mut run = || gpu.select_device(&launch, &dx, &mut val, &mut idx, &mut it);
    let median = |mut t: Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    let queued = median((0..21).map(|_| gpu.time_ms(&mut run).unwrap()).collect());
    let idle = median((0..21).map(|_| gpu.time_ms_idle_start(&mut run).unwrap()).collect());
    assert!(queued > 0.0 && queued < idle, "queued {queued} ms, idle start {idle} ms");
    let slow_host = || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        Ok(())
    };
    assert!(matches!(gpu.time_ms(slow_host), Err(CudaError::Timing { .. })));
}

/// On a machine without a CUDA driver (CI), opening a device is an error, not a panic.
#[test]
fn without_a_driver_opening_a_device_is_an_error() {
    match check_libraries() {
        Err(e) => {
            assert!(matches!(e, CudaError::NoDriver | CudaError::NoNvrtc), "{e}");
            let opened = CudaTopK::new(0);
            assert!(matches!(opened, Err(CudaError::NoDriver | CudaError::NoNvrtc)));
            assert!(opened.err().unwrap().to_string().contains("found"));
        }
        Ok(()) => {
            // A GPU machine: the device must open (this is what the ignored tests rely on).
            CudaTopK::new(0).expect("libraries present, so the device must open");
        }
    }
}
