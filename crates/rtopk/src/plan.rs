//! The launch program of a request ([`program`]): the kernel launches the GPU runs for rows of
//! a shape — each step's kernel, grid and the buffers it reads and writes — for a named GPU
//! ([`Gpu::Preset`]: its published limits, no GPU needed) or the live one ([`Gpu::Device`]).
//! The CUDA executor and the simulator run exactly this program (rtopk-plan's `program`), so
//! it shows why a shape is fast or slow: how many launches, which families, whether a row is
//! split.

use rtopk_plan::{DeviceLimits, Strategy};

pub use rtopk_plan::{Kernel, Program, Ragged, Step, StepKind};

use crate::cuda::{Shape, launch_of, shared_device};
use crate::error::Error;
use crate::request::Request;

/// Whose limits the program is planned for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gpu {
    /// A GPU by name (`a100`, `h100`, `h200`; [`preset_names`]): NVIDIA's published limits.
    Preset(String),
    /// CUDA device `ordinal` of this machine, its limits read from the driver.
    Device(usize),
}

/// The GPU names [`Gpu::Preset`] takes.
pub fn preset_names() -> Vec<&'static str> {
    DeviceLimits::preset_names()
}

/// The program `request` runs on rows of `shape` on `gpu`: checked as a selection of those
/// rows would be (the request's algorithm must be `cuda` or `auto`), planned with the automatic
/// strategy. Iteration counts in the request's outputs keep rows whole; without them long or
/// few rows are split, as a selection takes them.
///
/// A request with per-row arrays (docs/contract.md §5: lengths, a k per row, hints, the
/// threshold output) gets the program a selection on device buffers runs for them.
pub fn program(request: &Request, shape: Shape, gpu: &Gpu) -> Result<Program, Error> {
    program_with(request, shape, gpu, Ragged::default())
}

/// [`program`] of `request` as if it also came with the per-row arrays `arrays` names: the
/// program depends on which arrays a call passes, never on their contents, so a caller can
/// see a ragged or hinted call's launches without building the arrays (`rtopk plan
/// --lengths --hint`). The arrays' output width is the request's k.
pub fn program_with(
    request: &Request,
    shape: Shape,
    gpu: &Gpu,
    arrays: Ragged,
) -> Result<Program, Error> {
    let (launch, _types) = launch_of(request, shape)?;
    let limits = limits_of(gpu)?;
    let own = request.ragged_arrays(true);
    let ragged = Ragged {
        lengths: own.lengths || arrays.lengths,
        k_per_row: own.k_per_row || arrays.k_per_row,
        hint: own.hint || arrays.hint,
        threshold: own.threshold || arrays.threshold,
    };
    Ok(rtopk_plan::program_ragged(
        &launch,
        &limits,
        Strategy::Auto,
        request.wanted().iterations,
        ragged,
    )?)
}

fn limits_of(gpu: &Gpu) -> Result<DeviceLimits, Error> {
    match gpu {
        Gpu::Preset(name) => DeviceLimits::preset(name).ok_or_else(|| Error::UnknownGpu {
            name: name.clone(),
            known: preset_names().join(", "),
        }),
        Gpu::Device(ordinal) => Ok(shared_device(*ordinal)?.limits()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;

    fn shape(n: usize, m: usize) -> Shape {
        Shape { n, m, dtype: Dtype::Float32 }
    }

    fn h100() -> Gpu {
        Gpu::Preset("h100".to_string())
    }

    #[test]
    fn a_long_row_is_split_unless_counts_are_asked_for() {
        // k = 50: below the sampled radix select's RADIX_SAMPLED_MIN_K, which takes k = 100
        let req = Request::new("cuda", 50).unwrap();
        let split = program(&req, shape(1, 1 << 27), &h100()).unwrap();
        let names: Vec<&str> = split.steps.iter().map(|s| s.name.name()).collect();
        assert!(names.contains(&"select_chunks") && names.contains(&"gather_indices"), "{names:?}");
        let radix = program(&Request::new("cuda", 100).unwrap(), shape(1, 1 << 27), &h100());
        assert_eq!(radix.unwrap().steps[0].name.name(), "radix_sample");
        let counted = Request::builder("cuda").k(100).iterations(true).build().unwrap();
        let whole = program(&counted, shape(1, 1 << 27), &h100()).unwrap();
        let names: Vec<&str> = whole.steps.iter().map(|s| s.name.name()).collect();
        assert_eq!(names, ["select_rows"]);
    }

    #[test]
    fn sorted_output_adds_the_sort_step() {
        let req = Request::builder("cuda").k(32).sorted(true).build().unwrap();
        let p = program(&req, shape(4096, 768), &h100()).unwrap();
        let names: Vec<&str> = p.steps.iter().map(|s| s.name.name()).collect();
        assert_eq!(names, ["select_rows", "sort_rows"]);
    }

    #[test]
    fn unknown_gpus_cpu_algorithms_and_bad_k_are_typed_errors() {
        let req = Request::new("cuda", 8).unwrap();
        let e = program(&req, shape(4, 256), &Gpu::Preset("v100".into())).unwrap_err();
        assert!(e.to_string().contains("v100") && e.to_string().contains("h100"), "{e}");
        let cpu = Request::new("bisect", 8).unwrap();
        assert!(program(&cpu, shape(4, 256), &h100()).is_err());
        let too_many = Request::new("cuda", 300).unwrap();
        assert!(program(&too_many, shape(4, 256), &h100()).is_err());
    }

    #[test]
    fn a_request_with_per_row_arrays_gets_their_program() {
        let plain = Request::new("cuda", 64).unwrap();
        let want = program(&plain, shape(16, 100352), &h100()).unwrap();
        assert!(!want.ragged.any(), "{:?}", want.ragged);
        let hinted = Request::builder("cuda").k(64).hint(vec![0.5; 16]).build().unwrap();
        let own = program(&hinted, shape(16, 100352), &h100()).unwrap();
        let named = Ragged { hint: true, ..Ragged::default() };
        let asked = program_with(&plain, shape(16, 100352), &h100(), named).unwrap();
        assert!(own.ragged.hint && asked.ragged.hint);
        assert_eq!(serde_json::to_value(&own).unwrap(), serde_json::to_value(&asked).unwrap());
        assert_eq!(own.steps[0].unit.to_string(), format!("{}_ragged", want.steps[0].unit));
        // the request's arrays are checked against the shape as a selection checks them
        let short = Request::builder("cuda").k(8).lengths(vec![4; 3]).build().unwrap();
        assert!(program(&short, shape(4, 256), &h100()).is_err());
    }

    #[test]
    fn the_program_serializes_with_one_entry_per_launch() {
        let req = Request::new("cuda", 1024).unwrap();
        let p = program(&req, shape(16, 1 << 20), &h100()).unwrap();
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["steps"].as_array().unwrap().len(), p.steps.len());
        assert!(p.steps.len() >= 3, "{:?}", p.steps.len());
    }
}
