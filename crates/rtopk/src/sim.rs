//! `sim`: the RTop-K kernel on the warp simulator (crate `warp_sim`), run as the GPU runs it:
//! the launch plan's route for the whole matrix (the CUDA launcher's, for an H100 unless a
//! strategy is forced; split rows where no iteration counts are wanted), rows in blocks, the
//! sort launch for sorted output, the grid's windows of blocks shared out among threads; the
//! simulator's findings in the result. Matrices of every element type run the kernels of their
//! type (`f64` and `i64` the 64-bit wide rows); values come back in it.
//!
//! The simulator's own API, for the faces (`rtopk sim`, `rtopk trace`, `rtopk.sim`), is
//! re-exported here: a face names `rtopk::sim`, never the engine crate.

use ndarray::{Array1, ArrayView2};

use crate::algorithm::{KernelElement, Selection, SimDiagnostics, SimFinding, try_vec};
use crate::caps::{Capabilities, SIM};
use crate::error::Error;
use crate::kernel::{Executor, Job, RowArrays};

pub use warp_sim::mutant::{self, Caught, MutantReport, catalog, render_table};
pub use warp_sim::rtopk::{Moved, Phase, TraceChunk, TraceStep};
pub use warp_sim::{
    Branch, Coverage, KernelArgs, LaunchResult, RowData, SimConfig, launch_parallel,
};
pub use warp_sim::{
    DiagPolicy, DiagSummary, Diagnostic, Mutant, RowTrace, Schedule, SearchExit, SimError,
    Simulator, Strategy,
};

/// The simulator as an executor of the kernel, in the family the plan picks for each shape or
/// a forced one (a row it cannot hold is an error).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Sim {
    /// The launch family.
    pub(crate) strategy: Strategy,
}

/// A launch's findings as plain data.
pub fn findings<E>(r: &LaunchResult<E>) -> SimDiagnostics {
    let kernel = match r.plan.sort {
        _ if r.route.depth() > 0 => {
            let units: Vec<String> = r.route.units().iter().map(ToString::to_string).collect();
            units.join(" + ")
        }
        Some(sort) => format!("{} + {}", r.plan.unit, sort.unit),
        None => r.plan.unit.to_string(),
    };
    let kinds = r
        .summary
        .kinds()
        .iter()
        .map(|c| SimFinding {
            kind: c.kind.name().to_string(),
            count: c.count,
            benign: c.kind.is_benign(),
            op: c.first.op.name().to_string(),
            label: c.first.label.to_string(),
            block: c.first.block,
            warp: c.first.warp,
            lanes: c.first.lanes,
            address: c.first.address,
            message: c.first.to_string(),
        })
        .collect();
    SimDiagnostics { kernel, total: r.summary.total(), kinds, coverage: r.coverage.clone() }
}

impl Sim {
    /// The simulator's arguments and configuration for a job over `(n, m)`.
    fn launch_of(&self, (n, m): (usize, usize), job: Job) -> (KernelArgs, SimConfig) {
        let Job { k, opts, bisect, counts } = job;
        let args = KernelArgs { n, m, k, mode: opts.mode, bisect, mutant: None };
        let config = SimConfig {
            strategy: self.strategy,
            sorted: opts.sorted,
            counts,
            ..SimConfig::default()
        };
        (args, config)
    }
}

impl Executor for Sim {
    const NAME: &'static str = "sim";
    const CAPS: Capabilities = SIM;

    fn run<E: KernelElement>(
        &self,
        x: ArrayView2<'_, E>,
        job: Job,
        rows: RowArrays<'_>,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        let (n, m) = x.dim();
        let (args, config) = self.launch_of((n, m), job);
        let (k, counts) = (job.k, job.counts);
        // The plan first: a shape the simulator cannot run is refused before anything is
        // copied.
        warp_sim::Simulator::new(config).plan(&args)?;
        let copy;
        let data = match x.as_slice() {
            Some(s) => s,
            None => {
                let mut v = try_vec::<E>(n, m, "simulated input")?;
                v.clear();
                v.extend(x.iter().copied());
                copy = v;
                &copy
            }
        };
        let r = if rows == RowArrays::default() {
            launch_parallel(data, &args, config)?
        } else {
            let data_rows = RowData {
                lengths: rows.lengths,
                k_per_row: rows.k_per_row,
                hint: rows.hint,
                threshold: rows.threshold,
            };
            Simulator::new(config).run_ragged(data, &args, data_rows)?
        };
        into_selection(&r, (n, k), counts, out)?;
        if rows.threshold {
            out.threshold = Some(Array1::from(r.threshold.clone()));
        }
        Ok(())
    }
}

/// A launch's outputs of `(n, k)` into `out`, the iteration counts where wanted and the route
/// has them (split rows have none), and its findings.
fn into_selection<E: KernelElement>(
    r: &LaunchResult<E>,
    (n, k): (usize, usize),
    counts: bool,
    out: &mut Selection<E>,
) -> Result<(), Error> {
    {
        let counted = counts && r.route.counts();
        out.prepare(n, k, counted)?;
        let t = &mut out.topk;
        t.values.iter_mut().zip(&r.values).for_each(|(o, v)| *o = *v);
        t.indices.iter_mut().zip(&r.indices).for_each(|(o, i)| *o = *i);
        match t.iterations.as_mut() {
            Some(it) => it.iter_mut().zip(&r.iterations).for_each(|(o, i)| *o = *i),
            None if counted => t.iterations = Some(Array1::from_vec(r.iterations.clone())),
            None => {}
        }
        out.diagnostics = Some(findings(r));
        Ok(())
    }
}
