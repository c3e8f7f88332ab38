//! `cuda`: the RTop-K CUDA kernel (crate `rtopk_cuda`) on GPU 0, whole matrices per launch.

use ndarray::ArrayView2;
use topk_ref::{Bisect, Options, RowTopK, bf16, f16};

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
        self.select_typed(x, k, opts, out)
    }

    fn select_f16_into(
        &self,
        x: ArrayView2<'_, f16>,
        k: usize,
        opts: Options,
        out: &mut Selection<f16>,
    ) -> Result<(), Error> {
        self.select_typed(x, k, opts, out)
    }

    fn select_bf16_into(
        &self,
        x: ArrayView2<'_, bf16>,
        k: usize,
        opts: Options,
        out: &mut Selection<bf16>,
    ) -> Result<(), Error> {
        self.select_typed(x, k, opts, out)
    }
}

impl Cuda {
    /// Every element type's selection: the rows copied to GPU 0, the kernels of their type.
    fn select_typed<E: rtopk_cuda::DeviceFloat>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        topk_ref::check_shape(x.ncols(), k)?;
        let gpu = rtopk_cuda::shared_device(0)?;
        out.topk = gpu.topk_rows(x, k, opts, self.bisect)?;
        out.work = None;
        out.diagnostics = None;
        Ok(())
    }
}
