//! What an algorithm supports: where it runs, which element types, outputs and parameters
//! it takes. The registry's capability table is made of these rows.

use serde::Serialize;

use crate::dtype::Dtype;

/// Where an algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// On this machine's CPU cores (the warp simulator included).
    Cpu,
    /// On an NVIDIA GPU.
    Gpu,
}

/// What an algorithm supports: the registry's capability table, one row per name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Capabilities {
    /// Returns the canonical top-k (docs/contract.md §1) with its default parameters.
    pub exact: bool,
    /// Reports per-row iteration counts (docs/contract.md §3).
    pub iterations: bool,
    /// Takes the bisection parameters `max_iter`, `precision` (docs/contract.md §2, §4) and
    /// `recall` (docs/contract.md §6).
    pub bisection_params: bool,
    /// Where it runs.
    pub device: Device,
    /// Reports data-movement counters ([`crate::WorkCounters`]).
    pub work_counters: bool,
    /// Reports the warp simulator's findings ([`crate::SimDiagnostics`]).
    pub diagnostics: bool,
    /// Takes ragged requests (docs/contract.md §5): rows of their own length, a k per row,
    /// threshold hints. (The threshold output alone is computed for every algorithm.)
    pub ragged: bool,
    /// The element types it takes (docs/contract.md §1), widest first.
    pub dtypes: &'static [Dtype],
}

/// Every element type: the CPU algorithms, written once over `topk_ref::Element`.
pub const ALL_DTYPES: &[Dtype] = &Dtype::ALL;
/// `f32` only.
pub const F32_ONLY: &[Dtype] = &[Dtype::Float32];
/// The kernel's types (the simulator and the GPU): every type — `f32`, `f16`, `bf16` and the
/// integers `i8`, `u8`, `i16`, `i32` on 32-bit keys (docs/kernel.md, "Integer rows"), `f64`
/// and `i64` on 64-bit keys (the wide rows, docs/kernel.md "64-bit rows"), every request on
/// each: rows of their own length, a k per row, hints and thresholds too.
pub const KERNEL_DTYPES: &[Dtype] = ALL_DTYPES;
/// Every type with a key of at most 32 bits (all but `f64` and `i64`): the baselines whose
/// design is defined for 32-bit keys (`topk_ref::RowSelect::max_key_bits`).
pub const KEY32_DTYPES: &[Dtype] = &[
    Dtype::Float32,
    Dtype::Float16,
    Dtype::Bfloat16,
    Dtype::Int8,
    Dtype::Uint8,
    Dtype::Int16,
    Dtype::Int32,
];

impl Capabilities {
    /// `true` when the algorithm takes matrices of `dtype`.
    pub fn takes(&self, dtype: Dtype) -> bool {
        self.dtypes.contains(&dtype)
    }
}

/// A single-row CPU algorithm without parameters, written once for every element type.
pub(crate) const ROW_CPU: Capabilities = Capabilities {
    exact: true,
    iterations: false,
    bisection_params: false,
    device: Device::Cpu,
    work_counters: true,
    diagnostics: false,
    ragged: true,
    dtypes: ALL_DTYPES,
};
/// A baseline defined for keys of at most 32 bits.
pub(crate) const ROW_CPU_32: Capabilities = Capabilities { dtypes: KEY32_DTYPES, ..ROW_CPU };
/// RTop-K's bisection on the CPU (topk-ref's `Bisect`).
pub(crate) const BISECT_CPU: Capabilities =
    Capabilities { iterations: true, bisection_params: true, ..ROW_CPU };
/// The RTop-K kernel on the warp simulator (every element type: 64-bit rows on the wide
/// rows); rows of their own length and k per row, threshold hints (with `bisect`'s counts)
/// and the threshold output, of every element type.
pub(crate) const SIM: Capabilities = Capabilities {
    work_counters: false,
    diagnostics: true,
    ragged: true,
    dtypes: KERNEL_DTYPES,
    ..BISECT_CPU
};
/// The RTop-K kernel on the GPU (every element type; 16-bit rows from compute capability 8.0:
/// docs/kernel.md); rows of their own length and k per row, threshold hints (with `bisect`'s
/// counts) and the threshold output, on whole-row routes (64-bit rows too: the wide rows'
/// ragged twins and the 64-bit threshold units).
pub(crate) const CUDA: Capabilities = Capabilities {
    device: Device::Gpu,
    work_counters: false,
    ragged: true,
    dtypes: KERNEL_DTYPES,
    ..BISECT_CPU
};
