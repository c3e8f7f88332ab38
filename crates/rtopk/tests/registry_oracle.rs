//! Every algorithm of the registry, through [`rtopk::select`], against `topk_ref::oracle` on
//! hostile rows (test-support's strategies: NaN of both signs and payloads, ±inf, ±0,
//! subnormals, heavy ties, widths not a multiple of 32, k ∈ {0, 1, M−1, M}): exact algorithms
//! exactly, in both modes and both output orders; `sim` with the same iteration counts and the
//! same approximate answers as `bisect`.

use ndarray::{Array2, ArrayView2};
use proptest::prelude::*;
use rtopk::{
    Device, Error, Mode, Options, Params, Precision, Request, Selection, TopK, registry, select,
};
use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};

/// Rows up to this wide (several warps' worth, and the simulator stays quick).
const MAX_WIDTH: usize = 300;

/// The request for `algo`, with its iteration counts where it reports them.
fn request(algo: &str, k: usize, options: Options, params: Params) -> Request {
    let counts = registry::capabilities(algo).is_some_and(|c| c.iterations);
    let b = Request::builder(algo).k(k).options(options).params(params).iterations(counts);
    b.build().unwrap()
}

/// Indices and value bits of every row equal the oracle's.
fn assert_canonical(name: &str, x: ArrayView2<'_, f32>, k: usize, opts: Options, out: &Selection) {
    assert_eq!(out.topk.indices.dim(), (x.nrows(), k), "{name}");
    for (r, row) in x.rows().into_iter().enumerate() {
        let row = row.to_vec();
        let want = if opts.sorted {
            canonical_sorted_indices(&row, k, opts.mode)
        } else {
            canonical_indices(&row, k, opts.mode)
        };
        assert_eq!(out.topk.indices.row(r).to_vec(), want, "{name} row {r} k={k} {opts:?}");
        for (&i, &v) in want.iter().zip(out.topk.values.row(r)) {
            assert_eq!(v.to_bits(), row[i as usize].to_bits(), "{name} row {r} value bits");
        }
    }
}

/// Equal indices, iteration counts and value bits (NaN values compare by their bits).
fn assert_same(name: &str, got: &TopK, want: &TopK) {
    assert_eq!(got.indices, want.indices, "{name}: indices");
    assert_eq!(got.iterations, want.iterations, "{name}: iteration counts");
    let bits = |t: &TopK| t.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(got), bits(want), "{name}: value bits");
}

/// `cuda` where a GPU is present; elsewhere, an environment error (never a user error).
fn gpu_or_absent(result: Result<Selection, Error>) -> Option<Selection> {
    match result {
        Ok(out) => Some(out),
        Err(e @ Error::Cuda(_)) => {
            assert!(!e.is_user_error(), "{e}");
            None
        }
        Err(e) => panic!("cuda: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_exact_algorithm_is_the_oracle(
        (n, m, data) in test_support::matrix(MAX_WIDTH),
        which in 0u8..6,
        frac in 0.0f64..1.0,
        smallest in any::<bool>(),
        sorted in any::<bool>(),
    ) {
        let x = Array2::from_shape_vec((n, m), data).unwrap();
        let k = test_support::pick_k(m, which, frac);
        let opts = Options { mode: Mode::from_smallest(smallest), sorted };
        for entry in &registry::ALGORITHMS {
            let result = select(x.view(), &request(entry.name, k, opts, Params::default()));
            let out = if entry.caps.device == Device::Gpu {
                match gpu_or_absent(result) { Some(out) => out, None => continue }
            } else {
                result.unwrap()
            };
            assert_canonical(entry.name, x.view(), k, opts, &out);
            prop_assert_eq!(out.topk.iterations.is_some(), entry.caps.iterations, "{}", entry.name);
            prop_assert_eq!(out.work.is_some(), entry.caps.work_counters, "{}", entry.name);
            prop_assert_eq!(out.diagnostics.is_some(), entry.caps.diagnostics, "{}", entry.name);
            if let Some(d) = out.diagnostics {
                prop_assert_eq!(d.total, 0, "the simulated kernel reports no findings");
            }
        }
    }

    #[test]
    fn sim_and_cuda_count_and_stop_like_bisect(
        (n, m, data) in test_support::matrix(MAX_WIDTH),
        which in 0u8..6,
        frac in 0.0f64..1.0,
        smallest in any::<bool>(),
        config in 0u8..3,
        max_iter in 0u32..12,
        precision in 0.0f64..0.5,
    ) {
        let x = Array2::from_shape_vec((n, m), data).unwrap();
        let k = test_support::pick_k(m, which, frac);
        let opts = Options { mode: Mode::from_smallest(smallest), sorted: false };
        let params = match config {
            0 => Params::default(),
            1 => Params::early_stopping(max_iter),
            _ => Params::with_precision(Precision::new(precision).unwrap()),
        };
        let bisect = select(x.view(), &request("bisect", k, opts, params)).unwrap();
        let sim = select(x.view(), &request("sim", k, opts, params)).unwrap();
        assert_same("sim", &sim.topk, &bisect.topk);
        prop_assert_eq!(sim.topk.iterations.as_ref().map(|i| i.len()), Some(n));
        if let Some(gpu) = gpu_or_absent(select(x.view(), &request("cuda", k, opts, params))) {
            assert_same("cuda", &gpu.topk, &bisect.topk);
        }
    }
}

#[test]
fn algorithms_are_send_sync_and_errors_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Box<dyn rtopk::Algorithm>>();
    send_sync::<Error>();
    send_sync::<Selection>();
    // One resolved algorithm serves several threads.
    let algo = registry::resolve("sim", &Params::default()).unwrap();
    let x = topk_ref::Family::Ties.matrix(8, 70, 1).unwrap();
    let outs: Vec<Selection> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| s.spawn(|| algo.select(x.view(), 9, Options::default()).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(outs.windows(2).all(|w| w[0].topk.indices == w[1].topk.indices));
}

#[test]
fn requests_are_checked_before_any_work() {
    let x = Array2::<f32>::zeros((2, 5));
    let e = select(x.view(), &Request::new("heap", 6).unwrap()).unwrap_err();
    assert!(matches!(e, Error::TopK(topk_ref::TopKError::KTooLarge { .. })), "{e}");
    let empty = Array2::<f32>::zeros((2, 0));
    assert!(select(empty.view(), &Request::new("air", 0).unwrap()).unwrap_err().is_user_error());
    let e = Request::new("foo", 2).unwrap_err();
    assert!(e.to_string().contains("valid names: heap, quickselect"), "{e}");
    // cuda's arguments are checked before a device is looked for.
    let e = select(x.view(), &Request::new("cuda", 6).unwrap()).unwrap_err();
    assert!(matches!(e, Error::TopK(_)), "{e}");
    let no_rows = Array2::<f32>::zeros((0, 5));
    for entry in registry::ALGORITHMS.iter().filter(|e| e.caps.device == Device::Cpu) {
        let out = select(no_rows.view(), &Request::new(entry.name, 3).unwrap()).unwrap();
        assert_eq!(out.topk.indices.dim(), (0, 3), "{}", entry.name);
    }
}
