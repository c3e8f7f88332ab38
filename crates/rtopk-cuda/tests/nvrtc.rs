//! The kernels compile — NVRTC alone, no GPU and no driver — so that a kernel change that
//! breaks one instantiation fails CI, not a device call. `.ci/run` installs NVRTC from PyPI
//! and runs these with `--ignored`; by hand (docs/kernel.md, "Checking a change without a
//! GPU"): `LD_LIBRARY_PATH=<nvrtc lib> cargo test --workspace --test nvrtc -- --ignored`.
//!
//! All 1284 units take seven to nine minutes of two cores as cubins, and the widest unit of
//! each of the 256 groups (a kernel's element type, index type and ragged twin) five minutes
//! as PTX: the cluster rows' unit alone costs 12 s of a core. So the sample pairs each kernel's
//! element types with its (index type, ragged) variants in turn: every kernel meets every
//! element type it takes, and every variant, at both ends of its widths — a type's own code
//! (loads, keys, packing) and a variant's (64-bit indices, lengths read from a device array)
//! sit in headers all the kernels share, so a combination the sample leaves out combines
//! code that combinations it holds have compiled. Every width of the float types' plain units is
//! there too. One unit of each kernel goes on through ptxas to an `sm_90` cubin: its widest,
//! with 64-bit indices and lengths where it has them, where its registers and static shared
//! memory are largest (an entry point past a limit fails in ptxas, not in the front end); the
//! rest stop at PTX, which instantiates every template at about half a cubin's cost.

use std::collections::{BTreeMap, BTreeSet};

use rtopk_cuda::kernels::KernelFiles;
use rtopk_cuda::{ElemType, IndexType, Target, compile_units};
use rtopk_plan::{Family, Unit};

/// One kernel: a family, and for the pick rows whether one lane holds a row.
type Kernel = (Family, bool);

/// A kernel's variant: its index type and whether it is the ragged twin.
type Variant = (IndexType, bool);

/// What tells apart units that share a kernel but not its widths.
type Group = (Kernel, ElemType, Variant);

/// The variants in the order the sample gives them to a kernel's element types: the plain
/// unit first, then the one that differs from it in both.
const VARIANTS: [Variant; 4] = [
    (IndexType::U32, false),
    (IndexType::I64, true),
    (IndexType::U32, true),
    (IndexType::I64, false),
];

fn kernel(unit: Unit) -> Kernel {
    (unit.family(), unit.family() == Family::PickRows && unit.pick_lanes() == 1)
}

fn group(unit: Unit) -> Group {
    (kernel(unit), unit.elem_type(), (unit.index_type(), unit.is_ragged()))
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

/// Each kernel's element types and variants, in the order [`Unit::all`] and [`VARIANTS`]
/// give them.
fn kernels() -> BTreeMap<Kernel, (Vec<ElemType>, Vec<Variant>)> {
    let mut out: BTreeMap<Kernel, (Vec<ElemType>, Vec<Variant>)> = BTreeMap::new();
    for unit in Unit::all() {
        let (elems, _) = out.entry(kernel(unit)).or_default();
        if !elems.contains(&unit.elem_type()) {
            elems.push(unit.elem_type());
        }
    }
    let all = groups();
    for (kernel, (elems, variants)) in out.iter_mut() {
        variants.extend(VARIANTS.iter().filter(|v| all.contains_key(&(*kernel, elems[0], **v))));
    }
    out
}

/// The sampled groups: a kernel's i-th element type with its i-th variant (both taken
/// round), as many as it has element types or variants, whichever is more.
fn sampled_groups() -> Vec<Group> {
    let mut out = Vec::new();
    for (kernel, (elems, variants)) in kernels() {
        for i in 0..elems.len().max(variants.len()) {
            out.push((kernel, elems[i % elems.len()], variants[i % variants.len()]));
        }
    }
    out
}

/// Each kernel's widest unit of its first element type and last variant (64-bit indices
/// and lengths, where it has them): the one compiled to a cubin.
fn cubin_units() -> Vec<Unit> {
    let all = groups();
    kernels()
        .into_iter()
        .map(|(kernel, (elems, variants))| {
            let largest =
                variants.iter().max_by_key(|(index, ragged)| (*index == IndexType::I64, *ragged));
            let units = &all[&(kernel, elems[0], *largest.expect("a kernel has a variant"))];
            units[units.len() - 1]
        })
        .collect()
}

/// Whether a unit is a plain one (no ragged twin, 32-bit indices) of a float type.
fn plain_float(unit: Unit) -> bool {
    !unit.is_ragged()
        && unit.index_type() == IndexType::U32
        && ElemType::FLOATS.contains(&unit.elem_type())
}

/// The narrowest and the widest unit of each group of `groups` (one unit where it has one).
fn ends_of<'a>(groups: impl IntoIterator<Item = &'a Vec<Unit>>) -> Vec<Unit> {
    let mut out = BTreeSet::new();
    for units in groups {
        out.insert(units[0]);
        out.insert(units[units.len() - 1]);
    }
    out.into_iter().collect()
}

/// Both ends of every sampled group.
fn ends() -> Vec<Unit> {
    let all = groups();
    ends_of(sampled_groups().iter().map(|g| &all[g]))
}

/// The sample but its cubins: both ends of every sampled group, and every width of the float
/// types' plain units.
fn ptx_units() -> Vec<Unit> {
    let cubins = cubin_units();
    let mut out: BTreeSet<Unit> = ends().into_iter().collect();
    out.extend(Unit::all().into_iter().filter(|u| plain_float(*u)));
    out.into_iter().filter(|u| !cubins.contains(u)).collect()
}

fn compiles(units: &[Unit], target: &Target) {
    let files = KernelFiles::embedded();
    match compile_units(units, &files, target) {
        Ok(bytes) => assert!(bytes > 0, "{} units for {} gave no image", units.len(), target.arch),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn the_sample_meets_every_element_type_and_variant_of_every_kernel() {
    let all = Unit::all();
    let sample: BTreeSet<Unit> = ptx_units().into_iter().chain(cubin_units()).collect();
    for unit in &all {
        let (kernel, elem, variant) = group(*unit);
        let held = |f: &dyn Fn(Group) -> bool| sample.iter().any(|u| f(group(*u)));
        assert!(held(&|g| g.0 == kernel && g.1 == elem), "{unit}: its kernel never meets {elem:?}");
        assert!(
            held(&|g| g.0 == kernel && g.2 == variant),
            "{unit}: its kernel never meets {variant:?}"
        );
        if plain_float(*unit) {
            assert!(sample.contains(unit), "{unit} is a plain float unit outside the sample");
        }
    }
    for units in groups().values().filter(|units| sample.contains(&units[0])) {
        let widest = units[units.len() - 1];
        assert!(sample.contains(&widest), "{}: the narrowest without the widest", units[0]);
    }
    let kernels = kernels().len();
    assert_eq!(cubin_units().len(), kernels, "one cubin a kernel");
    assert!(sample.len() * 4 < all.len(), "{} of {} units: not a sample", sample.len(), all.len());
}

#[test]
#[ignore = "needs NVRTC (.ci/run installs it from PyPI)"]
fn one_unit_of_every_kernel_compiles_to_an_sm_90_cubin() {
    compiles(&cubin_units(), &Target::named("sm_90", false));
}

#[test]
#[ignore = "needs NVRTC (.ci/run installs it from PyPI)"]
fn the_rest_of_the_sample_compiles_to_compute_90_ptx() {
    compiles(&ptx_units(), &Target::named("compute_90", true));
}

#[test]
#[ignore = "needs NVRTC (.ci/run installs it from PyPI)"]
fn the_plain_float_units_ends_compile_for_sm_80() {
    let all = groups();
    let units = ends_of(all.values().filter(|units| plain_float(units[0])));
    compiles(&units, &Target::named("compute_80", true));
}
