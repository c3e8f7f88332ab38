//! [`RowWise`]: a single-row CPU algorithm (topk-ref's, a baseline's, or the caller's own)
//! run over whole matrices by topk-ref's rayon driver.

use ndarray::ArrayView2;
use topk_ref::driver::topk_rows_into_counted;
use topk_ref::{Options, RowTopK};

use crate::algorithm::{Algorithm, Capabilities, Device, Selection};
use crate::error::Error;

/// A [`RowTopK`] behind the matrix-level [`Algorithm`] trait: rows in parallel
/// ([`topk_ref::topk_rows`]), work counters summed over the rows.
pub struct RowWise {
    row: Box<dyn RowTopK + Send>,
    caps: Capabilities,
}

impl RowWise {
    /// Wraps `row`, with the capabilities it declares ([`RowTopK::is_exact`],
    /// [`RowTopK::reports_iterations`]). Any [`RowTopK`] fits, so a caller can run and
    /// benchmark an algorithm of their own next to the registry's.
    pub fn new(row: impl RowTopK + Send + 'static) -> Self {
        Self::boxed(Box::new(row))
    }

    /// Wraps a boxed `row` (as `topk_ref::by_name` and `baselines::by_name` return them).
    pub fn boxed(row: Box<dyn RowTopK + Send>) -> Self {
        let iterations = row.reports_iterations();
        let caps = Capabilities {
            exact: row.is_exact(),
            iterations,
            bisection_params: false,
            device: Device::Cpu,
            work_counters: true,
            diagnostics: false,
        };
        Self { row, caps }
    }

    /// Wraps `row` with the registry's capability row for its name.
    pub(crate) fn with_caps(row: Box<dyn RowTopK + Send>, caps: Capabilities) -> Self {
        Self { row, caps }
    }
}

impl std::fmt::Debug for RowWise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowWise").field("name", &self.row.name()).finish()
    }
}

impl Algorithm for RowWise {
    fn name(&self) -> &'static str {
        self.row.name()
    }

    fn caps(&self) -> Capabilities {
        self.caps
    }

    fn is_exact(&self) -> bool {
        self.row.is_exact()
    }

    fn select_into(
        &self,
        x: ArrayView2<'_, f32>,
        k: usize,
        opts: Options,
        out: &mut Selection,
    ) -> Result<(), Error> {
        topk_ref::check_shape(x.ncols(), k)?;
        out.prepare(x.nrows(), k, self.row.reports_iterations())?;
        let work = topk_rows_into_counted(self.row.as_ref(), x, k, opts, &mut out.topk)?;
        out.work = Some(work);
        out.diagnostics = None;
        Ok(())
    }
}
