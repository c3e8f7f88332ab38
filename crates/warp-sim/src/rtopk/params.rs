//! What every simulated entry point receives (the CUDA kernel's `Params`, plus where its
//! buffers live in the machine and which row is traced).

use std::cell::RefCell;

use crate::engine::global::Source;
use crate::engine::warp::BufId;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::plan::Plan;
use crate::rtopk::record::{Recorder, Tracer};

/// One launch's parameters.
#[derive(Clone, Copy)]
pub(crate) struct Params<'x> {
    /// `n_rows`, `m`, `k`, the mode, the search, the seeded bug.
    pub(crate) a: KernelArgs,
    /// `x`.
    pub(crate) x: &'x dyn Source,
    /// `out_val`, `out_idx`, `out_iter`.
    pub(crate) out_val: BufId,
    pub(crate) out_idx: BufId,
    pub(crate) out_iter: BufId,
    /// The launch plan (family, keys per lane, lanes per row, cached keys, narrowing).
    pub(crate) plan: Plan,
    /// `vec4`: 16-byte loads (rows 16-byte aligned, `M % 4 == 0`).
    pub(crate) vec4: bool,
    /// The traced row and its recorder.
    pub(crate) trace: Option<(u64, &'x RefCell<dyn Recorder + 'x>)>,
}

impl<'x> Params<'x> {
    /// The tracer of row `row_id` (off for every other row).
    pub(crate) fn tracer(&self, row_id: u64) -> Tracer<'x> {
        match self.trace {
            Some((r, rec)) if r == row_id => Tracer(Some(rec)),
            _ => Tracer(None),
        }
    }
}
