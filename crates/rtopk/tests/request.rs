//! The door's contract: one [`Request`], checked once, and one [`select`] whose route depends
//! on the outputs asked for — iteration counts only when wanted, so that without them the
//! kernel splits a long row (as the Python package does) and gives the same answer.

use ndarray::Array2;
use rtopk::{Error, Family, Mode, Options, Request, Selection, select};

/// Equal indices and value bits.
fn assert_same_answer(got: &Selection, want: &Selection, what: &str) {
    assert_eq!(got.topk.indices, want.topk.indices, "{what}: indices");
    let bits = |s: &Selection| s.topk.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(got), bits(want), "{what}: value bits");
}

#[test]
fn the_simulated_kernel_splits_a_long_row_only_without_iteration_counts() {
    // One row wider than the split threshold, and than a cluster's registers hold (16 blocks
    // of 1024 threads: rtopk-plan's WIDE_CLUSTER): without counts the route splits it.
    let x = Family::Normal.matrix(1, 600_000, 5).unwrap();
    for opts in [Options::default(), Options { mode: Mode::Smallest, sorted: true }] {
        let plain = Request::builder("sim").k(37).options(opts).build().unwrap();
        let counted = Request::builder("sim").k(37).options(opts).iterations(true).build();
        let (split, whole) =
            (select(x.view(), &plain).unwrap(), select(x.view(), &counted.unwrap()).unwrap());
        assert!(split.topk.iterations.is_none());
        assert_eq!(whole.topk.iterations.as_ref().map(|i| i.len()), Some(1));
        let kernels = |s: &Selection| s.diagnostics.as_ref().unwrap().kernel.clone();
        assert!(kernels(&split).contains("split"), "{}", kernels(&split));
        assert!(!kernels(&whole).contains("split"), "{}", kernels(&whole));
        assert_same_answer(&split, &whole, "split against whole");
        let cpu = Request::builder("bisect").k(37).options(opts).build().unwrap();
        assert_same_answer(&split, &select(x.view(), &cpu).unwrap(), "split against bisect");
        assert!(split.diagnostics.unwrap().is_clean());
    }
}

#[test]
fn cpu_algorithms_report_counts_only_when_asked() {
    let x = Family::Ties.matrix(6, 90, 2).unwrap();
    let plain = select(x.view(), &Request::new("bisect", 7).unwrap()).unwrap();
    let counted = Request::builder("bisect").k(7).iterations(true).build().unwrap();
    let counted = select(x.view(), &counted).unwrap();
    assert!(plain.topk.iterations.is_none());
    assert_eq!(counted.topk.iterations.as_ref().map(|i| i.len()), Some(6));
    assert_same_answer(&plain, &counted, "bisect");
    // `auto` on host rows is bisect
    let auto = select(x.view(), &Request::new("auto", 7).unwrap()).unwrap();
    assert_same_answer(&auto, &plain, "auto");
}

#[test]
fn per_row_inputs_are_checked_against_the_rows() {
    let x = Array2::<f32>::zeros((3, 4));
    let r = Request::builder("heap").k(2).lengths(vec![4, 4]).build().unwrap();
    let e = select(x.view(), &r).unwrap_err();
    assert!(matches!(e, Error::PerRowLength { .. }) && e.is_user_error(), "{e}");
    let r = Request::builder("heap").k(2).lengths(vec![4, 5, 1]).build().unwrap();
    assert!(matches!(select(x.view(), &r), Err(Error::LengthTooLong { row: 1, .. })));
    // the simulated kernel takes rows of their own length, and hints with counts (bisect's)
    let r = Request::builder("sim").k(2).lengths(vec![4, 3, 1]).build().unwrap();
    assert_eq!(select(x.view(), &r).unwrap().topk.indices.dim(), (3, 2));
    let r = Request::builder("sim").k(2).hint(vec![0.0; 3]).iterations(true).build().unwrap();
    let sim = select(x.view(), &r).unwrap();
    let r = Request::builder("bisect").k(2).hint(vec![0.0; 3]).iterations(true).build().unwrap();
    assert_eq!(sim.topk.iterations, select(x.view(), &r).unwrap().topk.iterations);
    let r = Request::builder("sim").k(2).hint(vec![0.0; 2]).iterations(true).build().unwrap();
    let e = select(x.view(), &r).unwrap_err();
    assert!(matches!(e, Error::PerRowLength { .. }) && e.is_user_error(), "{e}");
    let r = Request::builder("bisect").k(2).hint(vec![0.0; 3]).build().unwrap();
    assert_eq!(select(x.view(), &r).unwrap().topk.indices.dim(), (3, 2));
}

#[test]
fn a_request_is_plain_shareable_data() {
    fn send_sync_clone<T: Send + Sync + Clone>() {}
    send_sync_clone::<Request>();
    let r = Request::builder("sim").k(3).max_iter(2).sorted(true).build().unwrap();
    assert_eq!(r.clone(), r);
    assert!(!r.wanted().iterations && r.options().sorted && r.k().uniform() == Some(3));
}

#[test]
fn a_recall_target_stops_bisect_early_and_keeps_the_answer_valid() {
    use rtopk::Recall;
    use std::collections::HashSet;
    let (n, m, k) = (8, 1000, 64);
    for (family, mode) in [(Family::Normal, Mode::Largest), (Family::Ties, Mode::Smallest)] {
        let x = family.matrix(n, m, 7).unwrap();
        let opts = Options { mode, sorted: false };
        let exact = Request::builder("bisect").k(k).options(opts).iterations(true).build();
        let exact = select(x.view(), &exact.unwrap()).unwrap();
        for r in [0.8, 0.9, 0.95, 0.99] {
            let recall = Recall::new(r).unwrap();
            let q = Request::builder("auto").k(k).options(opts).recall(recall).iterations(true);
            let got = select(x.view(), &q.build().unwrap()).unwrap();
            let (its, exact_its) = (got.topk.iterations.unwrap(), exact.topk.iterations.clone());
            for row in 0..n {
                let chosen: HashSet<u32> = got.topk.indices.row(row).iter().copied().collect();
                assert_eq!(chosen.len(), k, "{family:?} r={r}: distinct indices");
                for (j, &i) in got.topk.indices.row(row).iter().enumerate() {
                    assert!((i as usize) < m);
                    assert_eq!(got.topk.values[[row, j]].to_bits(), x[[row, i as usize]].to_bits());
                }
                let want = exact.topk.indices.row(row);
                let hits = want.iter().filter(|i| chosen.contains(i)).count();
                assert!(hits as f64 >= (r * k as f64).ceil(), "{family:?} r={r} row {row}");
                // the recall search is exact mode stopped earlier
                assert!(its[row] <= exact_its.as_ref().unwrap()[row], "{family:?} r={r}");
            }
        }
        // r = 1 is exact mode: the same answer and counts
        let one = Request::builder("bisect").k(k).options(opts).recall(Recall::EXACT);
        let one = select(x.view(), &one.iterations(true).build().unwrap()).unwrap();
        assert_same_answer(&one, &exact, "recall 1");
        assert_eq!(one.topk.iterations, exact.topk.iterations);
    }
}
