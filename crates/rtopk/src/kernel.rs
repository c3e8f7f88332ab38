//! [`Kernel`]: the RTop-K kernel behind the [`Algorithm`] trait, one generic path for every
//! executor of it — the GPU (`cuda`) and the warp simulator (`sim`). An executor says how it
//! runs one matrix of any element type; the shape checks, the search and the iteration-count
//! policy are here, once.

use std::fmt;

use ndarray::ArrayView2;
use topk_ref::{Bisect, Options, RowTopK, bf16, f16};

use crate::algorithm::{Algorithm, Float, Selection};
use crate::caps::Capabilities;
use crate::error::Error;

/// What one kernel launch is asked: `k`, the options, the search, and whether iteration counts
/// are wanted (without them the route may split rows; with them it never does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Job {
    /// Values per row.
    pub(crate) k: usize,
    /// Largest or smallest, index or value order.
    pub(crate) opts: Options,
    /// Exact, with a precision, or early stopping.
    pub(crate) bisect: Bisect,
    /// Iteration counts wanted.
    pub(crate) counts: bool,
}

/// One executor of the kernel: the GPU or the simulator.
pub(crate) trait Executor: Send + Sync + fmt::Debug {
    /// The registry name.
    const NAME: &'static str;
    /// The registry row.
    const CAPS: Capabilities;

    /// Row-wise top-k of `x` (shape already checked) into `out`: values, indices, and the
    /// iteration counts exactly when `job.counts` (and the route has them).
    fn run<E: Float>(
        &self,
        x: ArrayView2<'_, E>,
        job: Job,
        out: &mut Selection<E>,
    ) -> Result<(), Error>;
}

/// The kernel on executor `X`, configured like the bisection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Kernel<X> {
    exec: X,
    bisect: Bisect,
    counts: bool,
}

impl<X: Executor> Kernel<X> {
    /// The kernel on `exec` with `bisect`'s search; `counts`: iteration counts wanted.
    pub(crate) fn new(exec: X, bisect: Bisect, counts: bool) -> Self {
        Self { exec, bisect, counts }
    }

    /// Every element type's selection.
    fn run<E: Float>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        topk_ref::check_shape(x.ncols(), k)?;
        let job = Job { k, opts, bisect: self.bisect, counts: self.counts };
        self.exec.run(x, job, out)?;
        // the kernels count no data movement (the simulator measures lanes, not traffic)
        out.work = None;
        out.threshold = None;
        Ok(())
    }
}

impl<X: Executor> Algorithm for Kernel<X> {
    fn name(&self) -> &'static str {
        X::NAME
    }

    fn caps(&self) -> Capabilities {
        X::CAPS
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
        self.run(x, k, opts, out)
    }

    fn select_f16_into(
        &self,
        x: ArrayView2<'_, f16>,
        k: usize,
        opts: Options,
        out: &mut Selection<f16>,
    ) -> Result<(), Error> {
        self.run(x, k, opts, out)
    }

    fn select_bf16_into(
        &self,
        x: ArrayView2<'_, bf16>,
        k: usize,
        opts: Options,
        out: &mut Selection<bf16>,
    ) -> Result<(), Error> {
        self.run(x, k, opts, out)
    }
}
