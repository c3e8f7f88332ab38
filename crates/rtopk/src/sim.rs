//! `sim`: the RTop-K kernel on the warp simulator (crate `warp_sim`), run as the GPU runs it:
//! the launch plan's family for the whole matrix (the CUDA launcher's, for an H100 unless a
//! strategy is forced), rows in blocks, the sort launch for sorted output, the grid's windows
//! of blocks shared out among threads; the simulator's findings in the result. Matrices of
//! `f32`, `f16` and `bf16` run the kernels of their type; values come back in it.

use ndarray::{Array1, ArrayView2};
use topk_ref::{Bisect, Element, Options, RowTopK, bf16, f16};
use warp_sim::{KernelArgs, LaunchResult, SimConfig, Strategy, launch_parallel};

use crate::algorithm::{Algorithm, Capabilities, Selection, SimDiagnostics, SimFinding, try_vec};
use crate::error::Error;
use crate::registry;

/// The simulated kernel, configured like the bisection (exact, precision, early stopping),
/// with the launch plan's choice of family or a forced one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sim {
    bisect: Bisect,
    strategy: Strategy,
}

impl Sim {
    /// The kernel with `bisect`'s parameters, in the family the plan picks for each shape.
    pub fn new(bisect: Bisect) -> Self {
        Self { bisect, strategy: Strategy::Auto }
    }

    /// The same kernel in the family `strategy` forces (a row it cannot hold is an error).
    pub fn with_strategy(self, strategy: Strategy) -> Self {
        Self { strategy, ..self }
    }
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
    SimDiagnostics { kernel, total: r.summary.total(), kinds }
}

impl Algorithm for Sim {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn caps(&self) -> Capabilities {
        registry::sim_caps()
    }

    fn is_exact(&self) -> bool {
        RowTopK::is_exact(&self.bisect)
    }

    fn select_into(
        &self,
        x: ArrayView2<'_, f32>,
        k: usize,
        opts: Options,
        out: &mut Selection,
    ) -> Result<(), Error> {
        self.select_elements(x, k, opts, out)
    }

    fn select_f16_into(
        &self,
        x: ArrayView2<'_, f16>,
        k: usize,
        opts: Options,
        out: &mut Selection<f16>,
    ) -> Result<(), Error> {
        self.select_elements(x, k, opts, out)
    }

    fn select_bf16_into(
        &self,
        x: ArrayView2<'_, bf16>,
        k: usize,
        opts: Options,
        out: &mut Selection<bf16>,
    ) -> Result<(), Error> {
        self.select_elements(x, k, opts, out)
    }
}

impl Sim {
    /// The selection of a matrix of any element type: the kernels of that type.
    fn select_elements<E: Element>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        let (n, m) = x.dim();
        topk_ref::check_shape(m, k)?;
        let args = KernelArgs { n, m, k, mode: opts.mode, bisect: self.bisect, mutant: None };
        let config =
            SimConfig { strategy: self.strategy, sorted: opts.sorted, ..SimConfig::default() };
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
        let r = launch_parallel(data, &args, config)?;
        // split rows (a forced `Strategy::Split`) have no iteration counts
        let counted = r.route.depth() == 0;
        out.prepare(n, k, counted)?;
        let t = &mut out.topk;
        t.values.iter_mut().zip(&r.values).for_each(|(o, v)| *o = *v);
        t.indices.iter_mut().zip(&r.indices).for_each(|(o, i)| *o = *i);
        match t.iterations.as_mut() {
            Some(it) => it.iter_mut().zip(&r.iterations).for_each(|(o, i)| *o = *i),
            None if counted => t.iterations = Some(Array1::from_vec(r.iterations.clone())),
            None => {}
        }
        // The simulated rows count no work (the simulator measures lanes, not traffic).
        out.work = None;
        out.diagnostics = Some(findings(&r));
        Ok(())
    }
}
