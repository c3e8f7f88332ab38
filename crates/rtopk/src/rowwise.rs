//! [`RowWise`]: a single-row CPU algorithm (topk-ref's, a baseline's, or the caller's own)
//! run over whole matrices by topk-ref's rayon driver, for every element type it is written
//! for.

use ndarray::ArrayView2;
use topk_ref::driver::topk_rows_into_counted;
use topk_ref::{Options, RowSelect, RowTopK, RowTopKOf, Rows, TopK, bf16, f16, topk_ragged};

use crate::algorithm::{Algorithm, Float, Selection};
use crate::caps::{ALL_DTYPES, Capabilities, Device, F32_ONLY};
use crate::dtype::Dtype;
use crate::error::Error;
use crate::table::dtype_not_supported;

/// The algorithm for rows of one element type.
type Row<E> = Box<dyn RowTopKOf<E> + Send>;

/// A single-row algorithm behind the matrix-level [`Algorithm`] trait: rows in parallel
/// ([`topk_ref::topk_rows`]), work counters summed over the rows.
///
/// Built from a [`RowSelect`] ([`RowWise::generic`], what the registry does), it takes `f32`,
/// `f16` and `bf16` matrices — one algorithm, monomorphised per type by topk-ref. Built from
/// an `f32`-only [`RowTopK`] ([`RowWise::new`]), it refuses 16-bit matrices with
/// [`Error::DtypeNotSupported`].
pub struct RowWise {
    f32: Box<dyn RowTopK + Send>,
    f16: Option<Row<f16>>,
    bf16: Option<Row<bf16>>,
    caps: Capabilities,
    /// Iteration counts kept in the result (where the algorithm reports them).
    counts: bool,
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
        Self { f32: row, f16: None, bf16: None, caps, counts: true }
    }

    /// Wraps an algorithm written once for every element type ([`RowSelect`]): it takes
    /// `f32`, `f16` and `bf16` matrices.
    pub fn generic<A: RowSelect + Clone + Send + 'static>(algo: A) -> Self {
        let (exact, iterations) =
            (RowSelect::is_exact(&algo), RowSelect::reports_iterations(&algo));
        let caps = declared_caps(exact, iterations, ALL_DTYPES);
        Self::generic_with_caps(algo, caps)
    }

    /// [`RowWise::generic`] with the registry's capability row for its name.
    pub(crate) fn generic_with_caps<A: RowSelect + Clone + Send + 'static>(
        algo: A,
        caps: Capabilities,
    ) -> Self {
        Self {
            f32: Box::new(algo.clone()),
            f16: Some(Box::new(algo.clone())),
            bf16: Some(Box::new(algo)),
            caps,
            counts: true,
        }
    }

    /// The same algorithm keeping its iteration counts (`true`, the default) or dropping
    /// them from the result.
    pub fn counting(self, counts: bool) -> Self {
        Self { counts, ..self }
    }

    /// Rows in parallel with `row` (`None`: the algorithm is not written for `E`).
    fn run<E: Float, A: RowTopKOf<E> + ?Sized>(
        &self,
        row: Option<&A>,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        let row = row.ok_or_else(|| dtype_not_supported(E::DTYPE, self.name()))?;
        topk_ref::check_shape(x.ncols(), k)?;
        out.prepare(x.nrows(), k, row.reports_iterations())?;
        let work = topk_rows_into_counted(row, x, k, opts, &mut out.topk)?;
        if !self.counts {
            out.topk.iterations = None;
        }
        out.threshold = None;
        out.work = Some(work);
        out.diagnostics = None;
        Ok(())
    }
}

impl RowWise {
    /// Ragged rows in parallel with `row` (topk-ref's ragged driver: each row's valid prefix
    /// with its k and hint; docs/contract.md §5).
    fn run_ragged<E: Float, A: RowTopKOf<E> + ?Sized>(
        &self,
        row: Option<&A>,
        x: ArrayView2<'_, E>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        let row = row.ok_or_else(|| dtype_not_supported(E::DTYPE, self.name()))?;
        let wanted = topk_ref::Wanted { iterations: self.counts, threshold };
        let r = topk_ragged(row, x, rows, opts, wanted)?;
        out.topk = TopK { values: r.values, indices: r.indices, iterations: r.iterations };
        out.threshold = r.threshold;
        out.work = Some(r.work);
        out.diagnostics = None;
        Ok(())
    }
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
            .field("name", &RowTopK::name(self.f32.as_ref()))
            .field("dtypes", &self.caps.dtypes)
            .finish()
    }
}

impl Algorithm for RowWise {
    fn name(&self) -> &'static str {
        RowTopK::name(self.f32.as_ref())
    }

    fn caps(&self) -> Capabilities {
        self.caps
    }

    fn is_exact(&self) -> bool {
        RowTopK::is_exact(self.f32.as_ref())
    }

    fn select_into(
        &self,
        x: ArrayView2<'_, f32>,
        k: usize,
        opts: Options,
        out: &mut Selection,
    ) -> Result<(), Error> {
        self.run(Some(self.f32.as_ref()), x, k, opts, out)
    }

    fn select_f16_into(
        &self,
        x: ArrayView2<'_, f16>,
        k: usize,
        opts: Options,
        out: &mut Selection<f16>,
    ) -> Result<(), Error> {
        self.run(self.f16.as_deref(), x, k, opts, out)
    }

    fn select_bf16_into(
        &self,
        x: ArrayView2<'_, bf16>,
        k: usize,
        opts: Options,
        out: &mut Selection<bf16>,
    ) -> Result<(), Error> {
        self.run(self.bf16.as_deref(), x, k, opts, out)
    }

    fn select_ragged_into(
        &self,
        x: ArrayView2<'_, f32>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
        out: &mut Selection,
    ) -> Result<(), Error> {
        self.run_ragged(Some(self.f32.as_ref()), x, rows, opts, threshold, out)
    }

    fn select_ragged_f16_into(
        &self,
        x: ArrayView2<'_, f16>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
        out: &mut Selection<f16>,
    ) -> Result<(), Error> {
        self.run_ragged(self.f16.as_deref(), x, rows, opts, threshold, out)
    }

    fn select_ragged_bf16_into(
        &self,
        x: ArrayView2<'_, bf16>,
        rows: &Rows<'_>,
        opts: Options,
        threshold: bool,
        out: &mut Selection<bf16>,
    ) -> Result<(), Error> {
        self.run_ragged(self.bf16.as_deref(), x, rows, opts, threshold, out)
    }
}
