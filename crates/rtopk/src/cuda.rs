//! `cuda`: the RTop-K CUDA kernel (crate `rtopk_cuda`) on GPU 0, whole matrices per launch.

use ndarray::ArrayView2;
use topk_ref::{Bisect, Options, RowTopK};

use crate::algorithm::{Algorithm, Capabilities, Selection};
use crate::error::Error;
use crate::registry;

/// The GPU kernel, configured like the bisection. Building one touches no device; the first
/// selection opens GPU 0, which the process then keeps with its loaded kernels
/// (`rtopk_cuda::shared_device`), so a machine without a GPU gets [`Error::Cuda`] from
/// [`Algorithm::select`], not from the registry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuda {
    bisect: Bisect,
}

impl Cuda {
    /// The kernel with `bisect`'s parameters.
    pub fn new(bisect: Bisect) -> Self {
        Self { bisect }
    }
}

impl Algorithm for Cuda {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn caps(&self) -> Capabilities {
        registry::cuda_caps()
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
        topk_ref::check_shape(x.ncols(), k)?;
        let gpu = rtopk_cuda::shared_device(0)?;
        out.topk = gpu.topk_rows(x, k, opts, self.bisect)?;
        out.work = None;
        out.diagnostics = None;
        Ok(())
    }
}
