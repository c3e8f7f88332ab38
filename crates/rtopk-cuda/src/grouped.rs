//! Grouped selection on the GPU (docs/contract.md §8): one launch of
//! `rtopk_grouped_rows_<EPL>` (`kernels/grouped_rows.cu`) as rtopk-plan plans it
//! ([`rtopk_plan::grouped_launch`]: the grid and the unit's experts per lane), on host rows
//! (copied there and back) or on buffers a framework owns.

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, sys};
use topk_ref::{GroupScore, Grouped, TopKError};

use crate::error::driver;
use crate::kernels::{ElemType, Unit};
use crate::launch::{DataTypes, DeviceElement, KernelParams};
use crate::{CudaError, CudaTopK};

/// The arguments of `rtopk_grouped_rows_<EPL>` (`GROUPED_ARGS`, kernels/grouped_rows.cu), in order.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupedParams {
    pub(crate) x: sys::CUdeviceptr,
    pub(crate) out_val: sys::CUdeviceptr,
    pub(crate) out_idx: sys::CUdeviceptr,
    pub(crate) n_rows: u64,
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) groups: u32,
    pub(crate) top_groups: u32,
    pub(crate) sum2: i32,
}

impl KernelParams for GroupedParams {
    const END: usize = std::mem::offset_of!(GroupedParams, sum2) + 4;
}

/// Device addresses of a grouped selection: the rows (`n * m` of the element type), the
/// values (`n * k` of it) and the indices (`n * k` of the index type).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupedBuffers {
    /// The rows.
    pub x: u64,
    /// The values written.
    pub values: u64,
    /// The indices written.
    pub indices: u64,
}

/// The unit and grid of a grouped selection of `types` on `n` rows of `m`, after the checks of
/// `g` on them.
fn grouped_unit(
    g: &Grouped,
    (n, m): (usize, usize),
    types: DataTypes,
) -> Result<(Unit, rtopk_plan::Grid), CudaError> {
    let launch = rtopk_plan::grouped_launch(n, m, g)?;
    if !ElemType::FLOATS.contains(&types.elem) {
        return Err(CudaError::TopK(TopKError::InvalidParameter {
            name: "dtype",
            reason: format!(
                "a grouped selection takes float32, float16 or bfloat16 scores, not {}",
                types.elem.name()
            ),
        }));
    }
    Ok((Unit::grouped(types.elem, types.index, launch.epl), launch.grid))
}

impl CudaTopK {
    /// The unit a grouped selection of `types` on rows of `m` launches (to build it ahead
    /// with [`CudaTopK::prepare`], or test [`CudaTopK::is_loaded`]).
    pub fn grouped_unit(&self, g: &Grouped, m: usize, types: DataTypes) -> Result<Unit, CudaError> {
        self.check_elem(types.elem)?;
        Ok(grouped_unit(g, (1, m), types)?.0)
    }

    /// The grouped selection `g` of `n` rows of `m` scores on buffers the caller owns,
    /// queued on `stream`: nothing is copied, allocated or synchronised (it may be captured in
    /// a CUDA graph once its unit is loaded). Builds the unit on first use.
    ///
    /// # Safety
    /// `bufs` must point to device memory of this device holding `n * m` elements of
    /// `types.elem` (`x`) and room for `n * g.k` of them (`values`) and of `types.index`
    /// (`indices`), valid until the work queued on `stream` completes; `stream` must be a
    /// stream of this device's primary context (0: its legacy default stream).
    pub unsafe fn grouped_raw(
        &self,
        g: &Grouped,
        (n, m): (usize, usize),
        types: DataTypes,
        bufs: GroupedBuffers,
        stream: u64,
    ) -> Result<(), CudaError> {
        self.check_elem(types.elem)?;
        let (unit, grid) = grouped_unit(g, (n, m), types)?;
        if n == 0 || g.k == 0 {
            return Ok(());
        }
        if [bufs.x, bufs.values, bufs.indices].contains(&0) {
            return Err(CudaError::TopK(TopKError::InvalidParameter {
                name: "buffer",
                reason: "a grouped selection needs the rows, values and indices buffers".into(),
            }));
        }
        let f = self.function(unit)?;
        let params = GroupedParams {
            x: bufs.x,
            out_val: bufs.values,
            out_idx: bufs.indices,
            n_rows: n as u64,
            m: m as u32,
            k: g.k as u32,
            groups: g.groups as u32,
            top_groups: g.top_groups as u32,
            sum2: i32::from(g.score == GroupScore::TopTwoSum),
        };
        // SAFETY: rtopk_grouped_rows, whose arguments are GroupedParams's fields (the layout
        // test); one warp per row reads its m elements of x and writes its k values and
        // indices, rows < n only: within the sizes the caller vouches for. m <= 1024 and the
        // groups were checked (grouped_unit), so the warp's shared row holds the row.
        unsafe { self.launch(f, grid, stream as sys::CUstream, params, "rtopk_grouped_rows") }
    }

    /// The grouped selection `g` of `n` rows of `m` scores held on the host (`x`, row-major):
    /// each row's `k` values and indices (`n * k` each), in the canonical order.
    pub fn grouped_rows<E: DeviceElement>(
        &self,
        x: &[E],
        (n, m): (usize, usize),
        g: &Grouped,
    ) -> Result<(Vec<E>, Vec<u32>), CudaError> {
        let types = DataTypes { elem: E::ELEM, ..DataTypes::F32 };
        self.grouped_unit(g, m, types)?;
        if n == 0 || g.k == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let cells = n.checked_mul(m).ok_or(CudaError::TooLarge { n, m, why: "n * m" })?;
        if x.len() != cells {
            return Err(CudaError::TopK(TopKError::PerRowLength {
                what: "the rows",
                got: x.len(),
                n: cells,
            }));
        }
        let nk = n * g.k;
        let s = &self.stream;
        let dx: CudaSlice<E> = s.clone_htod(x).map_err(driver("copying the input"))?;
        let mut val = s.alloc_zeros::<E>(nk.max(1)).map_err(driver("allocating"))?;
        let mut idx = s.alloc_zeros::<u32>(nk.max(1)).map_err(driver("allocating"))?;
        {
            let (x_ptr, _x) = dx.device_ptr(s);
            let (val_ptr, _v) = val.device_ptr_mut(s);
            let (idx_ptr, _i) = idx.device_ptr_mut(s);
            let bufs = GroupedBuffers { x: x_ptr, values: val_ptr, indices: idx_ptr };
            // SAFETY: buffers of this device allocated above with the sizes grouped_raw
            // needs (n m, n k, n k), borrowed until the work is queued on this stream.
            unsafe { self.grouped_raw(g, (n, m), types, bufs, s.cu_stream() as u64) }?;
        }
        let mut values = s.clone_dtoh(&val).map_err(driver("copying values back"))?;
        let mut indices = s.clone_dtoh(&idx).map_err(driver("copying indices back"))?;
        values.truncate(nk);
        indices.truncate(nk);
        Ok((values, indices))
    }
}
