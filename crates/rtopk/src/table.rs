//! The registry's table: every algorithm of docs/contract.md §4 by name, what each supports,
//! and the messages that name the algorithms taking a parameter or a type.

use serde::Serialize;

use crate::caps::{BISECT_CPU, CUDA, Capabilities, ROW_CPU, ROW_CPU_32, SIM};
use crate::dtype::Dtype;
use crate::error::Error;
use crate::param::Param;

/// One row of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The docs/contract.md §4 name.
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

/// Every docs/contract.md §4 algorithm, in the registry's order.
pub const ALGORITHMS: [Entry; 14] = [
    entry("heap", "topk-ref", "binary min-heap of k", ROW_CPU),
    entry("quickselect", "topk-ref", "Hoare's selection with median-of-three pivots", ROW_CPU),
    entry("radix", "topk-ref", "MSD radix select on the order keys", ROW_CPU),
    entry("bucket", "topk-ref", "bucket select on the key range", ROW_CPU),
    entry("bitonic", "topk-ref", "bitonic partial sort of runs of k", ROW_CPU),
    entry("bisect", "topk-ref", "RTop-K's threshold bisection (Algorithms 1 and 2)", BISECT_CPU),
    entry("sim", "warp-sim", "the RTop-K kernel on the 32-lane warp simulator", SIM),
    entry("cuda", "rtopk-cuda", "the RTop-K CUDA kernel on GPU 0", CUDA),
    entry("air", "baselines", "AIR Top-K: adaptive, iteration-fused radix select", ROW_CPU_32),
    entry(
        "gridselect",
        "baselines",
        "GridSelect: one shared queue, two-step insertion",
        ROW_CPU_32,
    ),
    entry("warpselect", "baselines", "WarpSelect: per-lane queues and warp merges", ROW_CPU_32),
    entry("drtopk", "baselines", "Dr. Top-k: delegate-centric top-k", ROW_CPU_32),
    entry("torch-radix", "baselines", "torch.topk's radix select, 2-bit digits", ROW_CPU),
    entry("sort", "baselines", "sort and choose (LSD radix sort)", ROW_CPU_32),
];

/// The names, in the registry's order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALGORITHMS.iter().map(|e| e.name)
}

/// The names of the algorithms whose capabilities satisfy `pred`, in the registry's order.
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

/// The error for `param` given to `algo`, naming the algorithms that take it.
pub fn unsupported(param: Param, algo: &str) -> Error {
    let valid_for = match param {
        Param::Iterations => names_where(|c| c.iterations),
        _ => names_where(|c| c.bisection_params),
    };
    Error::ParamNotSupported { param, algo: algo.to_string(), valid_for: list(&valid_for) }
}

/// The error for a matrix of `dtype` given to `algo`, which does not take it; names the
/// algorithms that do.
pub fn dtype_not_supported(dtype: Dtype, algo: &str) -> Error {
    let takes = names_where(|c| c.takes(dtype));
    Error::DtypeNotSupported { dtype, algo: algo.to_string(), valid_for: list(&takes) }
}

/// The error for a ragged input (`what`, docs/contract.md §5) given to `algo`, which does not
/// honour it yet; names the algorithms that do.
pub fn not_yet(what: &'static str, algo: &str) -> Error {
    let valid_for = list(&names_where(|c| c.ragged));
    Error::NotYetSupported { what, algo: algo.to_string(), valid_for }
}

/// The error for an algorithm name the registry does not hold.
pub(crate) fn unknown(name: &str) -> Error {
    Error::UnknownAlgorithm {
        name: name.to_string(),
        valid: names().collect::<Vec<_>>().join(", "),
    }
}
