//! Every algorithm of docs/contract.md §4 by name, built: the one registry the command line
//! and the Python package resolve `--algo` / `algo=` through ([`crate::Request`] does).
//!
//! topk-ref (`topk_ref::ALGORITHM_NAMES`) and the baselines (`baselines::BASELINE_NAMES`) keep
//! their own name lists for their crates' tests and benches; the table ([`ALGORITHMS`]) adds
//! the simulator and the GPU kernel and says what each algorithm supports.

use baselines::{Air, DrTopK, GridSelect, SortChoose, TorchRadix, WarpSelect};
use topk_ref::{Bisect, Bitonic, Bucket, Heap, Quickselect, Radix, RowSelect};

use crate::algorithm::Algorithm;
use crate::auto::CpuAuto;
use crate::caps::Capabilities;
use crate::cuda::Gpu;
use crate::error::Error;
use crate::kernel::Kernel;
use crate::params::Params;
use crate::request::Request;
use crate::rowwise::RowWise;
use crate::sim::Sim;
pub use crate::table::{
    ALGORITHMS, Entry, capabilities, dtype_not_supported, list, lookup, names, names_where,
    not_yet, unsupported,
};

/// The algorithm `name` configured with `params`, after every check: the name is a registry
/// name, the parameters are ones it takes, and they describe one configuration (`max_iter`
/// and `precision` exclude each other). It reports iteration counts where it can (a kernel's
/// route then never splits a row); [`crate::select`] asks for them only when the
/// [`Request`] does. Touches no device: a GPU is opened when `cuda` selects.
pub fn resolve(name: &str, params: &Params) -> Result<Box<dyn Algorithm>, Error> {
    let request = Request::builder(name).params(*params).build()?;
    Ok(build(&request, request.caps().iterations))
}

/// The algorithm of a checked request; `counts`: whether it computes iteration counts.
pub(crate) fn build(request: &Request, counts: bool) -> Box<dyn Algorithm> {
    /// A CPU algorithm of every element type, with its registry row.
    fn row<A: RowSelect + Clone + Send + 'static>(
        algo: A,
        caps: Capabilities,
        counts: bool,
    ) -> Box<dyn Algorithm> {
        Box::new(RowWise::generic_with_caps(algo, caps).counting(counts))
    }
    let bisect: Bisect = request.bisect();
    let caps = request.caps();
    match request.algo() {
        "sim" => Box::new(Kernel::new(Sim::default(), bisect, counts)),
        "cuda" => Box::new(Kernel::new(Gpu::on(request.place().ordinal()), bisect, counts)),
        "bisect" if cpu_auto(request, counts) => row(CpuAuto::new(bisect), caps, counts),
        "bisect" => row(bisect, caps, counts),
        "heap" => row(Heap, caps, counts),
        "quickselect" => row(Quickselect, caps, counts),
        "radix" => row(Radix, caps, counts),
        "bucket" => row(Bucket, caps, counts),
        "bitonic" => row(Bitonic, caps, counts),
        "air" => row(Air::default(), caps, counts),
        "gridselect" => row(GridSelect::default(), caps, counts),
        "warpselect" => row(WarpSelect, caps, counts),
        "drtopk" => row(DrTopK::default(), caps, counts),
        "torch-radix" => row(TorchRadix, caps, counts),
        // every name of the table has its row above (a test resolves each)
        _ => row(SortChoose, caps, counts),
    }
}

/// Whether `auto` on the CPU may run each row on the faster of `bisect` and `heap`
/// ([`crate::auto`]): an exact search whose iteration counts nobody asked for.
fn cpu_auto(request: &Request, counts: bool) -> bool {
    request.is_auto() && RowSelect::is_exact(&request.bisect()) && !counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::Device;
    use crate::dtype::Dtype;
    use crate::param::Param;
    use crate::params::Precision;

    /// docs/contract.md §4's list, as written there.
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
