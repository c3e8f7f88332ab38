//! The seeded-bug catalog: the kernel of docs/kernel.md is clean, every real mutant — in every
//! launch family — is caught by a diagnostic (not only by disagreeing with topk-ref), the
//! equivalent mutant is *not* reported (no false positive), and every kind of finding the
//! catalog is meant to show shows up.

use topk_ref::{Bisect, Mode};
use warp_sim::mutant::{Caught, MutantReport, catalog, evaluate, found, render_table};
use warp_sim::{DiagKind, KernelArgs, Mutant, SimConfig, check_order_dependence};

fn report(reports: &[MutantReport], m: Mutant) -> &MutantReport {
    reports.iter().find(|r| r.mutant == Some(m)).expect("in the catalog")
}

#[test]
fn every_mutant_is_caught_by_a_diagnostic_and_the_clean_kernel_is_not() {
    let reports = catalog();
    assert_eq!(reports.len(), Mutant::ALL.len() + 1);
    let clean = &reports[0];
    assert_eq!((clean.mutant, clean.caught, clean.diagnostics_total), (None, Caught::NotCaught, 0));
    for r in &reports[1..] {
        let m = r.mutant.expect("a mutant");
        if m.is_equivalent() {
            assert_eq!(r.caught, Caught::NotCaught, "{}: a false positive", m.name());
            assert_eq!(r.diagnostics_total, 0, "{}: {}", m.name(), r.summary);
        } else {
            assert!(
                matches!(r.caught, Caught::Diagnostic | Caught::Both),
                "{} is not caught by a diagnostic: {:?} {:?}",
                m.name(),
                r.caught,
                r.first_mismatch
            );
        }
    }
    // Each kind of bug is seen by the diagnostic made for it.
    let expect = [
        (Mutant::WrongShuffleOffset, DiagKind::NonUniformValue),
        (Mutant::CountWithoutRowSum, DiagKind::NonUniformValue),
        (Mutant::RowOffset32Bit, DiagKind::IntegerOverflow),
        (Mutant::RowOffset32Bit, DiagKind::ForeignAddress),
        (Mutant::OutputStrideM, DiagKind::ForeignAddress),
        (Mutant::Vec4UnalignedRows, DiagKind::MisalignedAccess),
        (Mutant::NegativeZeroKey, DiagKind::AssertFailed),
        (Mutant::CountGreaterThan, DiagKind::AssertFailed),
        (Mutant::BroadcastFromWrongLane, DiagKind::OutputUnwritten),
        (Mutant::PartRowScanWidth32, DiagKind::ShuffleSourceInactive),
        (Mutant::PartRowFullMaskReduce, DiagKind::MaskNamesInactiveLanes),
        (Mutant::SegmentMaskUnshifted, DiagKind::CallerNotInMask),
        (Mutant::EmitFullWarpSync, DiagKind::MaskNamesInactiveLanes),
        (Mutant::RowsShareStage, DiagKind::SharedRace),
        (Mutant::WarpsShareCandidates, DiagKind::SharedRace),
        (Mutant::WarpsShareCandidates, DiagKind::OrderDependence),
        (Mutant::BlockSumMissingBarrier, DiagKind::UninitializedSharedRead),
        (Mutant::ClusterSumMissingBarrier, DiagKind::ClusterRace),
        (Mutant::ClusterBeforeMissingBarrier, DiagKind::ClusterRace),
        (Mutant::ClusterStartMissingBarrier, DiagKind::ClusterUnsynced),
        (Mutant::BlockTailMissingBarrier, DiagKind::SharedRace),
        (Mutant::StagedLoadsMissingBarrier, DiagKind::SharedRace),
        (Mutant::StagedLoadsMissingSyncwarp, DiagKind::SharedRace),
        (Mutant::BlockNarrowMissingBarrier, DiagKind::SharedRace),
        (Mutant::BitonicMissingBarrier, DiagKind::SharedRace),
        (Mutant::RankSortNoClusterSync, DiagKind::GlobalRace),
        (Mutant::MergeSortNoClusterSync, DiagKind::GlobalRace),
        (Mutant::SortWarpReadsPastK, DiagKind::ForeignAddress),
        (Mutant::SortStoresUnaligned, DiagKind::MisalignedAccess),
        (Mutant::PrefixMaskShift32, DiagKind::ShiftOverflow),
        (Mutant::ChunkOffsetUsesLd, DiagKind::ForeignAddress),
        (Mutant::ChunkRowMajor, DiagKind::ForeignAddress),
        (Mutant::FloorRowMajor, DiagKind::ForeignAddress),
        (Mutant::LastChunkDropsOne, DiagKind::AssertFailed),
        (Mutant::SplitGatherNoChunkStart, DiagKind::AssertFailed),
        (Mutant::Ceil16Nearest, DiagKind::AssertFailed),
        (Mutant::Nan16CountedSmallest, DiagKind::AssertFailed),
        (Mutant::WideSortTiesHighIndex, DiagKind::AssertFailed),
        (Mutant::WideSortMissingSyncwarp, DiagKind::GlobalRace),
        (Mutant::RadixChooseFromBottom, DiagKind::ForeignAddress),
        (Mutant::RadixEveryBlockChooses, DiagKind::GlobalRace),
        (Mutant::RadixEveryBlockChooses, DiagKind::AssertFailed),
        (Mutant::RadixCandidatesWithoutTies, DiagKind::AssertFailed),
        (Mutant::RadixCandidatesWithoutTies, DiagKind::OutputUnwritten),
        (Mutant::RadixWriteInListOrder, DiagKind::OrderDependence),
    ];
    for (m, kind) in expect {
        let r = report(&reports, m);
        assert!(found(r, kind), "{}: no {} in {}", m.name(), kind.name(), r.summary);
    }
    let table = render_table(&reports);
    assert!(table.contains("prefix-mask-shift-32") && table.contains("shift-overflow"));
    assert_eq!(table.matches("not caught").count(), 1, "only the equivalent mutant:\n{table}");
}

/// Some bugs are invisible in the output and only a diagnostic shows them.
#[test]
fn diagnostics_catch_what_the_oracle_cannot() {
    for (m, kind) in [
        (Mutant::BallotPartialMask, DiagKind::CallerNotInMask),
        (Mutant::EarlyExitBeforeBallot, DiagKind::MaskNamesInactiveLanes),
        (Mutant::PartRowScanWidth32, DiagKind::ShuffleSourceInactive),
        (Mutant::EmitFullWarpSync, DiagKind::MaskNamesInactiveLanes),
    ] {
        let r = evaluate(Some(m));
        assert_eq!(r.caught, Caught::Diagnostic, "{}", m.name());
        let d = r.first_diagnostic.expect("a diagnostic");
        assert_eq!(d.kind, kind, "{}: {d}", m.name());
    }
}

/// A racy shared counter gives different answers under different schedules (the warps
/// interleave at every memory operation); the kernel of docs/kernel.md does not.
#[test]
fn racy_counter_is_order_dependent_and_the_kernel_is_not() {
    let x: Vec<f32> = (0..3 * 300).map(|i| ((i * 37) % 101) as f32).collect();
    let args = |mutant| KernelArgs {
        n: 3,
        m: 300,
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
