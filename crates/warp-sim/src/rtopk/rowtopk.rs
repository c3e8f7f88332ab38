//! [`SimTopK`]: the simulated kernel behind topk-ref's [`RowSelect`] trait (so its
//! `RowTopK` and `RowTopKOf` of every element type), so the row-wise driver can run it on
//! rows of `f32`, `f16` and `bf16`.

use std::cell::RefCell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use topk_ref::order::Mode;
use topk_ref::{Bisect, Element, RowSelect, RowStats, Scratch};

use crate::engine::summary::DiagSummary;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::launch::{SimConfig, Simulator};

thread_local! {
    /// One simulator per thread, so rows reuse shared memory and shadow allocations.
    static SIMULATOR: RefCell<Option<Simulator>> = const { RefCell::new(None) };
}

/// The RTop-K kernel on the warp simulator, configured like topk-ref's [`Bisect`] (exact,
/// precision, or early stopping), one row per launch (the plan's family for a one-row
/// matrix); findings are counted in [`SimTopK::diagnostics_seen`] and summarised in
/// [`SimTopK::summary`]. Whole matrices, with the plan of the whole shape and rows sharing
/// blocks as on the GPU, go through [`Simulator`] instead.
#[derive(Debug)]
pub struct SimTopK {
    bisect: Bisect,
    config: SimConfig,
    diagnostics: AtomicU64,
    summary: Mutex<DiagSummary>,
}

impl SimTopK {
    /// The kernel with `bisect`'s parameters and the default simulator configuration.
    pub fn new(bisect: Bisect) -> Self {
        Self::with_config(bisect, SimConfig::default())
    }

    /// The kernel with `bisect`'s parameters and `config`.
    pub fn with_config(bisect: Bisect, config: SimConfig) -> Self {
        Self { bisect, config, diagnostics: AtomicU64::new(0), summary: Mutex::default() }
    }

    /// The bisection parameters.
    pub fn bisect(&self) -> Bisect {
        self.bisect
    }

    /// Diagnostics reported by all rows so far (0 for the kernel of docs/kernel.md).
    pub fn diagnostics_seen(&self) -> u64 {
        self.diagnostics.load(Ordering::Relaxed)
    }

    /// All rows' findings so far, by kind.
    pub fn summary(&self) -> DiagSummary {
        self.summary.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl RowSelect for SimTopK {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn is_exact(&self) -> bool {
        self.bisect.max_iter.is_none() && self.bisect.precision == 0.0
    }

    fn reports_iterations(&self) -> bool {
        // a route that splits rows has no counts (crate::rtopk::launch::SimConfig::counts)
        self.config.counts && self.config.strategy.counts()
    }

    fn select<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        _scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let args = KernelArgs { n: 1, m: row.len(), k, mode, bisect: self.bisect, mutant: None };
        SIMULATOR.with(|cell| {
            let mut slot = cell.borrow_mut();
            let sim = match slot.as_mut() {
                Some(s) if s.config() == self.config => s,
                _ => slot.insert(Simulator::new(self.config)),
            };
            match sim.run(row, &args) {
                Ok(r) => {
                    self.diagnostics.fetch_add(r.diagnostics_total, Ordering::Relaxed);
                    if !r.summary.is_empty() {
                        if let Ok(mut s) = self.summary.lock() {
                            s.merge(&r.summary);
                        }
                    }
                    out.copy_from_slice(&r.indices);
                    RowStats { iterations: r.iterations.first().copied(), ..RowStats::default() }
                }
                Err(_) => {
                    // The driver validated the row, so a launch error is the simulator's own
                    // finding: count it and return the first k indices rather than panic.
                    self.diagnostics.fetch_add(1, Ordering::Relaxed);
                    out.iter_mut().zip(0u32..).for_each(|(o, i)| *o = i);
                    RowStats::default()
                }
            }
        })
    }
}
