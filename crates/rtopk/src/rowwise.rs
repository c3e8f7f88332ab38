//! [`RowWise`]: a single-row CPU algorithm (topk-ref's, a baseline's, or the caller's own)
//! run over whole matrices by topk-ref's rayon driver, for every element type it is written
//! for.

use ndarray::ArrayView2;
use topk_ref::driver::topk_rows_into_counted;
use topk_ref::{Options, RowSelect, RowTopK, RowTopKOf, Rows, TopK, bf16, f16, topk_ragged};

use crate::algorithm::{Algorithm, Selection};
use crate::algorithm::{Typed, Value, per_type_methods, with_typed};
use crate::caps::{ALL_DTYPES, Capabilities, Device, F32_ONLY, KEY32_DTYPES};
use crate::dtype::Dtype;
use crate::error::Error;
use crate::table::dtype_not_supported;

/// A single-row algorithm behind the matrix-level [`Algorithm`] trait: rows in parallel
/// ([`topk_ref::topk_rows`]), work counters summed over the rows.
///
/// Built from a [`RowSelect`] ([`RowWise::generic`], what the registry does), it takes every
/// element type its keys fit ([`RowSelect::max_key_bits`]) — one algorithm, monomorphised per
/// type by topk-ref. Built from an `f32`-only [`RowTopK`] ([`RowWise::new`]), it refuses other
/// matrices with [`Error::DtypeNotSupported`].
pub struct RowWise {
    row: Row,
    name: &'static str,
    exact: bool,
    caps: Capabilities,
    /// Iteration counts kept in the result (where the algorithm reports them).
    counts: bool,
}

/// The single-row algorithm: `f32` rows only, or rows of every type.
enum Row {
    F32(Box<dyn RowTopK + Send>),
    Generic(Box<dyn Generic>),
}

/// What is asked of the rows: a plain selection of `k`, or a ragged one (docs/contract.md
/// §5) with or without the threshold output.
#[derive(Clone, Copy)]
enum Op<'r, 'a> {
    Plain(usize),
    Ragged(&'r Rows<'a>, bool),
}

/// A [`RowSelect`] of every element type, behind one object-safe method.
trait Generic: Send + Sync {
    fn run(
        &self,
        job: Typed<'_, '_>,
        op: Op<'_, '_>,
        opts: Options,
        counts: bool,
    ) -> Result<(), Error>;
}

impl<A: RowSelect + Send> Generic for A {
    fn run(
        &self,
        job: Typed<'_, '_>,
        op: Op<'_, '_>,
        opts: Options,
        counts: bool,
    ) -> Result<(), Error> {
        with_typed!(job, |x, out| run_rows(self, x, op, opts, counts, out))
    }
}

impl RowWise {
    /// Wraps an `f32` algorithm, with the capabilities it declares ([`RowTopK::is_exact`],
    /// [`RowTopK::reports_iterations`]). Any [`RowTopK`] fits, so a caller can run and
    /// benchmark an algorithm of their own next to the registry's.
    pub fn new(row: impl RowTopK + Send + 'static) -> Self {
        Self::boxed(Box::new(row))
    }

    /// Wraps a boxed `f32` algorithm (as `topk_ref::by_name` and `baselines::by_name` return
    /// them).
    pub fn boxed(row: Box<dyn RowTopK + Send>) -> Self {
        let caps = declared_caps(row.is_exact(), row.reports_iterations(), F32_ONLY);
        let (name, exact) = (row.name(), row.is_exact());
        Self { row: Row::F32(row), name, exact, caps, counts: true }
    }

    /// Wraps an algorithm written once for every element type ([`RowSelect`]): it takes
    /// every type whose key it takes (all nine, or those of at most 32 bits).
    pub fn generic<A: RowSelect + Send + 'static>(algo: A) -> Self {
        let dtypes = if algo.max_key_bits() >= 64 { ALL_DTYPES } else { KEY32_DTYPES };
        let caps = declared_caps(algo.is_exact(), algo.reports_iterations(), dtypes);
        Self::generic_with_caps(algo, caps)
    }

    /// [`RowWise::generic`] with the registry's capability row for its name.
    pub(crate) fn generic_with_caps<A: RowSelect + Send + 'static>(
        algo: A,
        caps: Capabilities,
    ) -> Self {
        let (name, exact) = (RowSelect::name(&algo), RowSelect::is_exact(&algo));
        Self { row: Row::Generic(Box::new(algo)), name, exact, caps, counts: true }
    }

    /// The same algorithm keeping its iteration counts (`true`, the default) or dropping
    /// them from the result.
    pub fn counting(self, counts: bool) -> Self {
        Self { counts, ..self }
    }

    /// `op` on the rows of `job` with the algorithm of their type, if it is written for it.
    fn run(&self, job: Typed<'_, '_>, op: Op<'_, '_>, opts: Options) -> Result<(), Error> {
        match (&self.row, job) {
            (Row::Generic(algo), job) => algo.run(job, op, opts, self.counts),
            (Row::F32(row), Typed::F32(x, out)) => {
                run_rows(row.as_ref(), x, op, opts, self.counts, out)
            }
            (Row::F32(_), other) => Err(dtype_not_supported(other.dtype(), self.name)),
        }
    }
}

/// `op` on the rows of `x` with `row`, in parallel, into `out`; `counts`: keep the iteration
/// counts (where `row` reports them).
fn run_rows<E: Value, R: RowTopKOf<E> + ?Sized>(
    row: &R,
    x: ArrayView2<'_, E>,
    op: Op<'_, '_>,
    opts: Options,
    counts: bool,
    out: &mut Selection<E>,
) -> Result<(), Error> {
    match op {
        Op::Plain(k) => {
            topk_ref::check_shape(x.ncols(), k)?;
            out.prepare(x.nrows(), k, row.reports_iterations())?;
            out.work = Some(topk_rows_into_counted(row, x, k, opts, &mut out.topk)?);
            if !counts {
                out.topk.iterations = None;
            }
            out.threshold = None;
        }
        Op::Ragged(rows, threshold) => {
            // topk-ref's ragged driver: each row's valid prefix with its k and hint
            let wanted = topk_ref::Wanted { iterations: counts, threshold };
            let r = topk_ragged(row, x, rows, opts, wanted)?;
            out.topk = TopK { values: r.values, indices: r.indices, iterations: r.iterations };
            out.threshold = r.threshold;
            out.work = Some(r.work);
        }
    }
    out.diagnostics = None;
    Ok(())
}

/// The capabilities an algorithm declares of itself.
fn declared_caps(exact: bool, iterations: bool, dtypes: &'static [Dtype]) -> Capabilities {
    Capabilities {
        exact,
        iterations,
        bisection_params: false,
        device: Device::Cpu,
        work_counters: true,
        diagnostics: false,
        ragged: true,
        dtypes,
    }
}

impl std::fmt::Debug for RowWise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowWise")
            .field("name", &self.name)
            .field("dtypes", &self.caps.dtypes)
            .finish()
    }
}

/// A plain selection of `job` by `algo` (the per-type methods of [`Algorithm`]).
fn plain(algo: &RowWise, job: Typed<'_, '_>, k: usize, opts: Options) -> Result<(), Error> {
    algo.run(job, Op::Plain(k), opts)
}

impl Algorithm for RowWise {
    fn name(&self) -> &'static str {
        self.name
    }

    fn caps(&self) -> Capabilities {
        self.caps
    }

    fn is_exact(&self) -> bool {
        self.exact
    }

    per_type_methods! { plain;
        select_into f32 => F32;
        select_f16_into f16 => F16;
        select_bf16_into bf16 => Bf16;
    }

    fn select_typed_into(&self, job: Typed<'_, '_>, k: usize, opts: Options) -> Result<(), Error> {
        self.run(job, Op::Plain(k), opts)
    }

    fn select_ragged_typed_into(
        &self,
        job: Typed<'_, '_>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
    ) -> Result<(), Error> {
        self.run(job, Op::Ragged(rows, threshold), opts)
    }
}
