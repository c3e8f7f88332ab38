//! The kernels compile — NVRTC alone, no GPU and no driver — so that a kernel change that
//! breaks one instantiation fails CI, not a device call. `.ci/run` installs NVRTC from PyPI
//! and runs these with `--ignored`; by hand (docs/kernel.md, "Checking a change without a
//! GPU"): `LD_LIBRARY_PATH=<nvrtc lib> cargo test --workspace --test nvrtc -- --ignored`.
//!
//! All 1284 units take seven to nine minutes of two cores as cubins; the sample holds every
//! family, element type, index type, ragged twin and one-lane pick unit at both ends of its
//! widths, and every width of the float types' plain units. Only the widest unit of each group,
//! where shared memory and registers are largest, goes on through ptxas to a cubin (an entry
//! point past the shared-memory limit fails there, not in the front end); the rest stop at PTX,
//! which instantiates every template at about half a cubin's cost.

use std::collections::BTreeMap;

use rtopk_cuda::kernels::KernelFiles;
use rtopk_cuda::{ElemType, IndexType, Target, compile_units};
use rtopk_plan::{Family, Unit};

/// What tells apart units that share a kernel but not its widths.
type Group = (Family, ElemType, IndexType, bool, bool);

fn group(unit: Unit) -> Group {
    let one_lane = unit.family() == Family::PickRows && unit.pick_lanes() == 1;
    (unit.family(), unit.elem_type(), unit.index_type(), unit.is_ragged(), one_lane)
}

/// The units of each group, by width.
fn groups() -> BTreeMap<Group, Vec<Unit>> {
    let mut out: BTreeMap<Group, Vec<Unit>> = BTreeMap::new();
    for unit in Unit::all() {
        out.entry(group(unit)).or_default().push(unit);
    }
    for units in out.values_mut() {
        units.sort_by_key(|u| u.width());
    }
    out
}

/// The widest unit of every group.
fn widest() -> Vec<Unit> {
    groups().values().map(|units| units[units.len() - 1]).collect()
}

/// The narrowest unit of every group of more than one width.
fn narrowest() -> Vec<Unit> {
    groups().values().filter(|units| units.len() > 1).map(|units| units[0]).collect()
}

/// Both ends of every group.
fn ends() -> Vec<Unit> {
    widest().into_iter().chain(narrowest()).collect()
}

/// Whether a unit is a plain one (no ragged twin, 32-bit indices) of a float type.
fn plain_float(unit: Unit) -> bool {
    !unit.is_ragged()
        && unit.index_type() == IndexType::U32
        && ElemType::FLOATS.contains(&unit.elem_type())
}

/// The widths between the ends, of the float types' plain units.
fn middles() -> Vec<Unit> {
    let mut out = Vec::new();
    for units in groups().values().filter(|units| plain_float(units[0])) {
        if units.len() > 2 {
            out.extend_from_slice(&units[1..units.len() - 1]);
        }
    }
    out
}

fn compiles(units: &[Unit], target: &Target) {
    let files = KernelFiles::embedded();
    match compile_units(units, &files, target) {
        Ok(bytes) => assert!(bytes > 0, "{} units for {} gave no image", units.len(), target.arch),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn the_sample_holds_every_group_and_every_width_of_the_plain_float_units() {
    let all = Unit::all();
    let (ends, middles) = (ends(), middles());
    let sample: Vec<Unit> = ends.iter().chain(&middles).copied().collect();
    for unit in &all {
        let same_group = sample.iter().any(|u| group(*u) == group(*unit));
        assert!(same_group, "{unit} has no unit of its group in the sample");
        if plain_float(*unit) {
            assert!(sample.contains(unit), "{unit} is a plain float unit outside the sample");
        }
    }
    let distinct: std::collections::BTreeSet<Unit> = sample.iter().copied().collect();
    assert_eq!(distinct.len(), sample.len(), "a unit is in the sample twice");
    assert!(sample.len() * 2 < all.len(), "{} of {} units: not a sample", sample.len(), all.len());
}

#[test]
#[ignore = "needs NVRTC (.ci/run installs it from PyPI)"]
fn the_widest_unit_of_every_group_compiles_to_an_sm_90_cubin() {
    compiles(&widest(), &Target::named("sm_90", false));
}

#[test]
#[ignore = "needs NVRTC (.ci/run installs it from PyPI)"]
fn every_other_unit_of_the_sample_compiles_to_compute_90_ptx() {
    let units: Vec<Unit> = narrowest().into_iter().chain(middles()).collect();
    compiles(&units, &Target::named("compute_90", true));
}

#[test]
#[ignore = "needs NVRTC (.ci/run installs it from PyPI)"]
fn the_plain_float_units_ends_compile_for_sm_80() {
    let units: Vec<Unit> = ends().into_iter().filter(|u| plain_float(*u)).collect();
    compiles(&units, &Target::named("compute_80", true));
}
