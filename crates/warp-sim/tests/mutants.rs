//! The seeded-bug catalog: the kernel of docs/kernel.md is clean, every real mutant is caught
//! (by a diagnostic or by disagreeing with topk-ref), and the one equivalent mutant is *not*
//! reported (no false positive).

use topk_ref::{Bisect, Mode};
use warp_sim::mutant::{Caught, catalog, evaluate, render_table};
use warp_sim::{DiagKind, KernelArgs, Mutant, SimConfig, check_order_dependence};

#[test]
fn every_mutant_is_caught_and_the_clean_kernel_is_not() {
    let reports = catalog();
    assert_eq!(reports.len(), Mutant::ALL.len() + 1);
    let clean = &reports[0];
    assert_eq!((clean.mutant, clean.caught, clean.diagnostics_total), (None, Caught::NotCaught, 0));
    let mut caught = 0;
    for r in &reports[1..] {
        let m = r.mutant.expect("a mutant");
        if m.is_equivalent() {
            assert_eq!(r.caught, Caught::NotCaught, "{}: a false positive", m.name());
        } else {
            assert_ne!(r.caught, Caught::NotCaught, "{} escaped", m.name());
            caught += 1;
        }
    }
    assert!(caught >= 10, "only {caught} mutants caught");
    let table = render_table(&reports);
    assert!(table.contains("prefix-mask-shift-32") && table.contains("shift-overflow"));
}

/// Some bugs are invisible in the output and only a diagnostic shows them.
#[test]
fn diagnostics_catch_what_the_oracle_cannot() {
    for m in [Mutant::BallotPartialMask, Mutant::EarlyExitBeforeBallot] {
        let r = evaluate(Some(m));
        assert_eq!(r.caught, Caught::Diagnostic, "{}", m.name());
        let d = r.first_diagnostic.expect("a diagnostic");
        let want = if m == Mutant::BallotPartialMask {
            DiagKind::CallerNotInMask
        } else {
            DiagKind::MaskNamesInactiveLanes
        };
        assert_eq!(d.kind, want);
        assert!(d.label.starts_with("select: ballot"), "{d}");
    }
    let r = evaluate(Some(Mutant::PrefixMaskShift32));
    let d = r.first_diagnostic.expect("shift overflow");
    assert_eq!((d.kind, d.lanes), (DiagKind::ShiftOverflow, 1 << 31));
}

/// A racy shared counter gives different answers under different schedules.
#[test]
fn racy_counter_is_order_dependent_and_the_kernel_is_not() {
    let x: Vec<f32> = (0..3 * 70).map(|i| ((i * 37) % 101) as f32).collect();
    let args = |mutant| KernelArgs {
        n: 3,
        m: 70,
        k: 9,
        mode: Mode::Largest,
        bisect: Bisect::exact(),
        mutant,
    };
    let seeds = [1, 2, 3, 4];
    let cfg = SimConfig::default();
    let racy = check_order_dependence(&x, &args(Some(Mutant::SharedCounterNoBarrier)), cfg, &seeds)
        .unwrap();
    assert!(!racy.is_empty());
    assert!(racy.iter().all(|d| d.kind == DiagKind::OrderDependence));
    assert!(check_order_dependence(&x, &args(None), cfg, &seeds).unwrap().is_empty());
}
