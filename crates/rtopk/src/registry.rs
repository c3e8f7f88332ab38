//! Every algorithm of SPEC §4 by name: the one registry the command line and the Python package
//! resolve `--algo` / `algo=` through.
//!
//! topk-ref (`topk_ref::ALGORITHM_NAMES`) and the baselines (`baselines::BASELINE_NAMES`) keep
//! their own name lists for their crates' tests and benches; this table adds the simulator and
//! the GPU kernel, says what each algorithm supports, and checks a request's parameters once.

use baselines::{Air, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use serde::Serialize;
use topk_ref::{Bisect, Bitonic, Bucket, Heap, Quickselect, Radix, RowSelect};

use crate::algorithm::{ALL_DTYPES, Algorithm, Capabilities, Device};
use crate::cuda::Cuda;
use crate::error::Error;
use crate::params::{Param, Params};
use crate::rowwise::RowWise;
use crate::sim::Sim;

/// A single-row CPU algorithm without parameters, written once for every element type.
const ROW_CPU: Capabilities = Capabilities {
    exact: true,
    iterations: false,
    bisection_params: false,
    device: Device::Cpu,
    work_counters: true,
    diagnostics: false,
    dtypes: ALL_DTYPES,
};
/// RTop-K's bisection on the CPU (topk-ref's `Bisect`).
const BISECT_CPU: Capabilities =
    Capabilities { iterations: true, bisection_params: true, ..ROW_CPU };
/// The RTop-K kernel on the warp simulator (f32, f16 and bf16 rows).
const SIM: Capabilities =
    Capabilities { work_counters: false, diagnostics: true, dtypes: ALL_DTYPES, ..BISECT_CPU };
/// The RTop-K kernel on the GPU (16-bit rows from compute capability 8.0: docs/kernel.md).
const CUDA: Capabilities =
    Capabilities { device: Device::Gpu, work_counters: false, dtypes: ALL_DTYPES, ..BISECT_CPU };

/// One row of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The SPEC §4 name.
    pub name: &'static str,
    /// The crate that implements it.
    pub source: &'static str,
    /// One line about it.
    pub summary: &'static str,
    /// What it supports.
    pub caps: Capabilities,
}

const fn entry(
    name: &'static str,
    source: &'static str,
    summary: &'static str,
    caps: Capabilities,
) -> Entry {
    Entry { name, source, summary, caps }
}

/// Every SPEC §4 algorithm, in SPEC order.
pub const ALGORITHMS: [Entry; 14] = [
    entry("heap", "topk-ref", "binary min-heap of k", ROW_CPU),
    entry("quickselect", "topk-ref", "Hoare's selection with median-of-three pivots", ROW_CPU),
    entry("radix", "topk-ref", "MSD radix select on the order keys", ROW_CPU),
    entry("bucket", "topk-ref", "bucket select on the key range", ROW_CPU),
    entry("bitonic", "topk-ref", "bitonic partial sort of runs of k", ROW_CPU),
    entry("bisect", "topk-ref", "RTop-K's threshold bisection (Algorithms 1 and 2)", BISECT_CPU),
    entry("sim", "warp-sim", "the RTop-K kernel on the 32-lane warp simulator", SIM),
    entry("cuda", "rtopk-cuda", "the RTop-K CUDA kernel on GPU 0", CUDA),
    entry("air", "baselines", "AIR Top-K: adaptive, iteration-fused radix select", ROW_CPU),
    entry("gridselect", "baselines", "GridSelect: one shared queue, two-step insertion", ROW_CPU),
    entry("warpselect", "baselines", "WarpSelect: per-lane queues and warp merges", ROW_CPU),
    entry("drtopk", "baselines", "Dr. Top-k: delegate-centric top-k", ROW_CPU),
    entry("torch-radix", "baselines", "torch.topk's radix select, 2-bit digits", ROW_CPU),
    entry("sort", "baselines", "sort and choose (LSD radix sort)", ROW_CPU),
];

/// The names, in SPEC order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALGORITHMS.iter().map(|e| e.name)
}

/// The names of the algorithms whose capabilities satisfy `pred`, in SPEC order.
pub fn names_where(pred: impl Fn(&Capabilities) -> bool) -> Vec<&'static str> {
    ALGORITHMS.iter().filter(|e| pred(&e.caps)).map(|e| e.name).collect()
}

/// The registry row of `name`.
pub fn lookup(name: &str) -> Option<&'static Entry> {
    ALGORITHMS.iter().find(|e| e.name == name)
}

/// What `name` supports.
pub fn capabilities(name: &str) -> Option<Capabilities> {
    lookup(name).map(|e| e.caps)
}

/// "a, b and c", for messages.
pub fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The algorithm `name` configured with `params`, after every check: the name is a SPEC name,
/// the parameters are ones it takes, and they describe one configuration (`max_iter` and
/// `precision` exclude each other). Touches no device: a GPU is opened when `cuda` selects.
pub fn resolve(name: &str, params: &Params) -> Result<Box<dyn Algorithm>, Error> {
    let entry = lookup(name).ok_or_else(|| Error::UnknownAlgorithm {
        name: name.to_string(),
        valid: names().collect::<Vec<_>>().join(", "),
    })?;
    if !entry.caps.bisection_params {
        if let Some(&param) = params.given().first() {
            return Err(unsupported(param, entry.name));
        }
    }
    let bisect = params.bisect()?;
    bisect.validate()?;
    Ok(build(entry, bisect))
}

/// The error for `param` given to `algo`, naming the algorithms that take it.
pub fn unsupported(param: Param, algo: &str) -> Error {
    let valid_for = match param {
        Param::Iterations => names_where(|c| c.iterations),
        _ => names_where(|c| c.bisection_params),
    };
    Error::ParamNotSupported { param, algo: algo.to_string(), valid_for: list(&valid_for) }
}

fn build(entry: &Entry, bisect: Bisect) -> Box<dyn Algorithm> {
    /// A CPU algorithm of every element type, with its registry row.
    fn row<A: RowSelect + Clone + Send + 'static>(
        algo: A,
        caps: Capabilities,
    ) -> Box<dyn Algorithm> {
        Box::new(RowWise::generic_with_caps(algo, caps))
    }
    let caps = entry.caps;
    match entry.name {
        "sim" => Box::new(Sim::new(bisect)),
        "cuda" => Box::new(Cuda::new(bisect)),
        "bisect" => row(bisect, caps),
        "heap" => row(Heap, caps),
        "quickselect" => row(Quickselect, caps),
        "radix" => row(Radix, caps),
        "bucket" => row(Bucket, caps),
        "bitonic" => row(Bitonic, caps),
        "air" => row(Air::default(), caps),
        "gridselect" => row(GridSelect::default(), caps),
        "warpselect" => row(WarpSelect, caps),
        "drtopk" => row(DrTopK::default(), caps),
        "torch-radix" => row(TorchRadix, caps),
        "sort" => row(SortChoose, caps),
        other => unreachable!("registry entry '{other}' has no constructor"),
    }
}

/// The capabilities of the simulator (for [`Sim`]).
pub(crate) const fn sim_caps() -> Capabilities {
    SIM
}

/// The capabilities of the GPU kernel (for [`Cuda`]).
pub(crate) const fn cuda_caps() -> Capabilities {
    CUDA
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Dtype;
    use crate::params::Precision;

    /// SPEC §4's list, as written there.
    const SPEC: [&str; 14] = [
        "heap",
        "quickselect",
        "radix",
        "bucket",
        "bitonic",
        "bisect",
        "sim",
        "cuda",
        "air",
        "gridselect",
        "warpselect",
        "drtopk",
        "torch-radix",
        "sort",
    ];

    #[test]
    fn every_spec_name_resolves_to_an_algorithm_of_that_name() {
        assert_eq!(names().collect::<Vec<_>>(), SPEC);
        for name in SPEC {
            let algo = resolve(name, &Params::default()).unwrap();
            assert_eq!(algo.name(), name);
            assert!(algo.is_exact(), "{name}");
            assert_eq!(Some(algo.caps()), capabilities(name), "{name}");
        }
        // The crates' own lists are this registry's CPU rows.
        let cpu: Vec<&str> = topk_ref::ALGORITHM_NAMES
            .into_iter()
            .chain(["sim"])
            .chain(baselines::BASELINE_NAMES)
            .collect();
        assert_eq!(names_where(|c| c.device == Device::Cpu), cpu);
    }

    #[test]
    fn capability_table() {
        let bisection = names_where(|c| c.bisection_params);
        assert_eq!(bisection, ["bisect", "sim", "cuda"]);
        assert_eq!(names_where(|c| c.iterations), bisection);
        assert_eq!(names_where(|c| c.device == Device::Gpu), ["cuda"]);
        assert_eq!(names_where(|c| c.diagnostics), ["sim"]);
        assert_eq!(names_where(|c| !c.work_counters), ["sim", "cuda"]);
        assert!(ALGORITHMS.iter().all(|e| e.caps.exact));
        // Every algorithm is written once over topk-ref's Element (the simulator and the GPU
        // kernel over the same order): all three types.
        let sixteen = names_where(|c| c.takes(Dtype::Float16));
        assert_eq!(sixteen, names_where(|c| c.takes(Dtype::Bfloat16)));
        assert_eq!(sixteen.len(), ALGORITHMS.len());
        assert!(ALGORITHMS.iter().all(|e| e.caps.takes(Dtype::Float32)));
        assert_eq!(sim_caps(), SIM);
        assert_eq!(cuda_caps(), CUDA);
    }

    #[test]
    fn unknown_names_list_every_valid_name() {
        let e = resolve("foo", &Params::default()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("'foo'") && text.contains("heap") && text.contains("cuda"), "{e}");
        assert!(!text.contains("not yet"), "{e}");
        assert!(e.is_user_error());
    }

    #[test]
    fn parameters_are_checked() {
        let es = Params::early_stopping(4);
        for name in ["bisect", "sim", "cuda"] {
            assert!(!resolve(name, &es).unwrap().is_exact(), "{name}");
        }
        let e = resolve("heap", &es).unwrap_err();
        assert!(matches!(&e, Error::ParamNotSupported { param: Param::MaxIter, .. }), "{e}");
        assert!(e.to_string().contains("only valid for bisect, sim and cuda"), "{e}");
        let p = Params::with_precision(Precision::new(0.01).unwrap());
        assert!(matches!(resolve("air", &p), Err(Error::ParamNotSupported { .. })));
        assert!(!resolve("bisect", &p).unwrap().is_exact());
        let both = Params { max_iter: Some(2), ..p };
        for name in ["bisect", "sim", "cuda"] {
            assert!(matches!(resolve(name, &both), Err(Error::ConflictingParams)), "{name}");
        }
        let eps = Params { epsilon: topk_ref::EpsilonMode::Absolute, ..Params::default() };
        assert!(matches!(resolve("sort", &eps), Err(Error::ParamNotSupported { .. })));
        let it = unsupported(Param::Iterations, "heap");
        assert!(it.to_string().contains("--iterations"), "{it}");
        assert_eq!(list(&["a", "b", "c"]), "a, b and c");
    }
}
