//! [`Kernel`]: the RTop-K kernel behind the [`Algorithm`] trait, one generic path for every
//! executor of it — the GPU (`cuda`) and the warp simulator (`sim`). An executor says how it
//! runs one matrix of any element type; the shape checks, the search and the iteration-count
//! policy are here, once.

use std::fmt;

use ndarray::ArrayView2;
use topk_ref::{Bisect, Options, RowTopK, Rows, bf16, f16};

use crate::algorithm::Typed;
use crate::algorithm::{Algorithm, KernelElement, Selection};
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
    /// iteration counts exactly when `job.counts` (and the route has them). A ragged request
    /// (docs/contract.md §5) gives `rows`: `job.k` is then the outputs' width, row `i` reads
    /// its first `lengths[i]` values and selects `min(k_per_row[i], lengths[i])` (absent: M,
    /// `job.k`), the rest of its output row padded, its search starts at `hint[i]` where given
    /// (its count then `bisect`'s with that hint), and with `rows.threshold` the kernel writes
    /// each row's threshold into [`Selection::threshold`]; a plain one gives none.
    fn run<E: KernelElement>(
        &self,
        x: ArrayView2<'_, E>,
        job: Job,
        rows: RowArrays<'_>,
        out: &mut Selection<E>,
    ) -> Result<(), Error>;
}

/// The per-row arrays of a ragged request as the kernel reads them: one `u32` (or, for the
/// hints, one `f32`) per row, and whether it writes each row's threshold.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RowArrays<'a> {
    /// Row `i` is its first `lengths[i]` values.
    pub(crate) lengths: Option<&'a [u32]>,
    /// Row `i` selects `k_per_row[i]` values.
    pub(crate) k_per_row: Option<&'a [u32]>,
    /// Row `i`'s threshold hint.
    pub(crate) hint: Option<&'a [f32]>,
    /// Each row's threshold is written.
    pub(crate) threshold: bool,
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
    fn run<E: KernelElement>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        topk_ref::check_shape(x.ncols(), k)?;
        let job = Job { k, opts, bisect: self.bisect, counts: self.counts };
        self.exec.run(x, job, RowArrays::default(), out)?;
        // the kernels count no data movement (the simulator measures lanes, not traffic)
        out.work = None;
        out.threshold = None;
        Ok(())
    }

    /// Every element type's ragged selection (docs/contract.md §5): the kernel reads the
    /// lengths, the k per row and the hints (its search starts with `bisect`'s hint test and
    /// window tests, so its counts are `bisect`'s with the same hints, docs/contract.md §3),
    /// and writes each row's threshold (the program's `row_threshold` step).
    fn run_ragged<E: KernelElement>(
        &self,
        x: ArrayView2<'_, E>,
        (rows, opts, threshold): (&Rows<'_>, Options, bool),
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        let (n, m) = x.dim();
        let width = rows.check(n, m)?;
        // m <= topk-ref's MAX_ROW_WIDTH < 2^32: lengths and k fit
        let lengths: Option<Vec<u32>> = rows.lengths.map(|l| l.iter().map(|&v| v as u32).collect());
        let k_per_row: Option<Vec<u32>> = match rows.k {
            topk_ref::KPerRow::One(_) => None,
            topk_ref::KPerRow::PerRow(ks) => Some(ks.iter().map(|&v| v as u32).collect()),
        };
        let arrays = RowArrays {
            lengths: lengths.as_deref(),
            k_per_row: k_per_row.as_deref(),
            hint: rows.hint,
            threshold,
        };
        let job = Job { k: width, opts, bisect: self.bisect, counts: self.counts };
        out.threshold = None;
        self.exec.run(x, job, arrays, out)?;
        out.work = None;
        Ok(())
    }
}

/// The plain selections of each element type, one generic path each.
macro_rules! kernel_methods {
    ($($t:ty: $plain:ident;)*) => {$(
        fn $plain(
            &self,
            x: ArrayView2<'_, $t>,
            k: usize,
            opts: Options,
            out: &mut Selection<$t>,
        ) -> Result<(), Error> {
            self.run(x, k, opts, out)
        }
    )*};
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

    kernel_methods! {
        f32: select_into;
        f16: select_f16_into;
        bf16: select_bf16_into;
    }

    fn select_ragged_typed_into(
        &self,
        job: Typed<'_, '_>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
    ) -> Result<(), Error> {
        // every element type: the 64-bit ones on the wide rows' ragged twins
        let ragged = (rows, opts, threshold);
        crate::algorithm::with_typed!(job, |x, out| self.run_ragged(x, ragged, out))
    }

    /// Every element type ([`KernelElement`]: the floats and the integers of at most 32 bits
    /// on 32-bit keys, `f64` and `i64` on the wide rows' 64-bit keys) through one generic path.
    fn select_typed_into(&self, job: Typed<'_, '_>, k: usize, opts: Options) -> Result<(), Error> {
        crate::algorithm::with_typed!(job, |x, out| self.run(x, k, opts, out))
    }
}
