//! Grouped selection (docs/contract.md §8), the router of mixture-of-experts models that
//! choose experts in two stages (DeepSeek-V3: 256 experts in 8 groups, the 4 best groups by
//! the sum of their two best scores, the 8 best experts among those): one call whatever runs
//! it — topk-ref's reference on the CPU, the simulated kernel, or the CUDA kernel — on f32,
//! f16 and bf16 rows, every answer the same bit for bit.
//!
//! ```
//! use ndarray::array;
//! use rtopk::grouped::{GroupScore, Grouped, select_grouped};
//!
//! // 4 groups of 2: scores 9, 10, 7, 8 (sum of the two best); keep 2 groups, select 2
//! let x = array![[9.0f32, 0.0, 5.0, 5.0, 6.0, 1.0, 8.0, 0.0]];
//! let g = Grouped { k: 2, groups: 4, top_groups: 2, score: GroupScore::TopTwoSum };
//! let out = select_grouped(x.view(), &g, "auto").unwrap();
//! assert_eq!(out.indices, array![[0, 2]]); // 8.0 is in a group left out
//! let sim = select_grouped(x.view(), &g, "sim").unwrap();
//! assert_eq!(sim.indices, out.indices);
//! ```

use ndarray::{Array2, ArrayView2};
use rtopk_cuda::{DataTypes, GroupedBuffers, IndexType};
pub use topk_ref::grouped::{GROUPED_MAX_EXPERTS, GROUPED_MAX_GROUPS};
pub use topk_ref::{GroupScore, Grouped};

use topk_ref::KeyBits;

use crate::algorithm::KernelElement;
use crate::cuda::{Shape, shared_device};
use crate::error::Error;
use crate::request::IndexWidth;

/// The algorithms that run a grouped selection: `auto` and `reference` (topk-ref's
/// `grouped_topk` on the CPU), `sim` (the simulated kernel) and `cuda` (the kernel, the rows
/// copied to GPU 0 and back).
pub const GROUPED_ALGORITHMS: [&str; 4] = ["auto", "reference", "sim", "cuda"];

/// The types a grouped selection takes: `f32`, `f16` and `bf16`.
pub trait GroupedElement: KernelElement {}

impl GroupedElement for f32 {}
impl GroupedElement for topk_ref::f16 {}
impl GroupedElement for topk_ref::bf16 {}

/// A grouped selection's answer: `(N, k)` values (the input's bits) and indices, each row in
/// the canonical order.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedSelection<E> {
    /// The selected values.
    pub values: Array2<E>,
    /// Their indices in the row.
    pub indices: Array2<u32>,
}

/// The grouped selection `g` of the `(N, M)` rows `x` by `algo` (one of
/// [`GROUPED_ALGORITHMS`]). Every failure is a typed [`Error`]: the selection checked against
/// `M` ([`Grouped::check`]), an unknown algorithm, or the GPU's.
pub fn select_grouped<E: GroupedElement>(
    x: ArrayView2<'_, E>,
    g: &Grouped,
    algo: &str,
) -> Result<GroupedSelection<E>, Error> {
    let (n, m) = x.dim();
    g.check(m)?;
    let rows: Vec<E> = x.iter().copied().collect();
    let (values, indices) = match algo {
        "auto" | "reference" => {
            let (mut v, mut i) = (vec![E::default(); n * g.k], vec![0u32; n * g.k]);
            topk_ref::grouped_topk(&rows, n, m, g, &mut v, &mut i)?;
            (v, i)
        }
        "sim" => {
            // the simulator's memory holds an element's bits per word
            let words: Vec<u32> = rows.iter().map(|v| v.to_bits().to_u32()).collect();
            let mut sim = warp_sim::Simulator::new(warp_sim::SimConfig::default());
            let (v, i) = sim.grouped_rows(E::ELEM, &words, (n, m), g)?;
            (v.into_iter().map(|w| E::from_bits(KeyBits::from_u32(w))).collect(), i)
        }
        "cuda" => shared_device(0)?.grouped_rows(&rows, (n, m), g)?,
        _ => {
            return Err(Error::UnknownAlgorithm {
                name: algo.to_string(),
                valid: GROUPED_ALGORITHMS.join(", "),
            });
        }
    };
    let shape_error = |_| topk_ref::TopKError::TooLarge { what: "the outputs", n, m: g.k };
    Ok(GroupedSelection {
        values: Array2::from_shape_vec((n, g.k), values).map_err(shape_error)?,
        indices: Array2::from_shape_vec((n, g.k), indices).map_err(shape_error)?,
    })
}

/// Checks a grouped selection on device buffers before any device is opened: the selection
/// against `shape` and the element type (float32, float16 or bfloat16).
pub fn check_grouped_raw(g: &Grouped, shape: Shape) -> Result<(), Error> {
    g.check(shape.m)?;
    if !crate::dtype::Dtype::FLOATS.contains(&shape.dtype) {
        return Err(not_a_float(shape.dtype));
    }
    Ok(())
}

/// The error for scores of a type a grouped selection does not take.
fn not_a_float(dtype: crate::dtype::Dtype) -> Error {
    Error::TopK(topk_ref::TopKError::InvalidParameter {
        name: "dtype",
        reason: format!(
            "a grouped selection takes float32, float16 or bfloat16 scores, not {}",
            dtype.name()
        ),
    })
}

/// `true` when the kernel unit a [`grouped_raw`] of `g` on `shape` with `index` launches is
/// built and loaded on CUDA device `ordinal` (which this opens on first use): the launch then
/// builds nothing, so a face may queue it without releasing its interpreter.
pub fn grouped_ready(
    g: &Grouped,
    shape: Shape,
    index: IndexWidth,
    ordinal: usize,
) -> Result<bool, Error> {
    let types = grouped_types(g, shape, index)?;
    let gpu = shared_device(ordinal)?;
    let unit = gpu.grouped_unit(g, shape.m, types)?;
    Ok(gpu.is_loaded(&[unit]))
}

/// The kernel's data types of a grouped selection on device buffers, after its checks.
fn grouped_types(g: &Grouped, shape: Shape, index: IndexWidth) -> Result<DataTypes, Error> {
    check_grouped_raw(g, shape)?;
    let elem = rtopk_cuda::ElemType::from_name(shape.dtype.name())
        .ok_or_else(|| not_a_float(shape.dtype))?;
    let index = match index {
        IndexWidth::U32 => IndexType::U32,
        IndexWidth::I64 => IndexType::I64,
    };
    Ok(DataTypes { elem, index })
}

/// The grouped selection `g` of `shape`'s rows on buffers a framework owns, on CUDA device
/// `ordinal`, queued on `stream`: nothing allocated, copied or synchronised (it may be captured
/// in a CUDA graph once its kernel is built: the first call on a device builds it, ~0.1 s).
///
/// # Safety
/// `bufs` must be device addresses of that device: `shape.n * shape.m` elements of
/// `shape.dtype` (`x`), room for `shape.n * g.k` of them (`values`) and of `index`'s type
/// (`indices`), valid until the work queued on `stream` completes; `stream` must be a stream of
/// the device's primary context (0: its legacy default stream).
#[allow(unsafe_code)]
pub unsafe fn grouped_raw(
    g: &Grouped,
    shape: Shape,
    index: IndexWidth,
    bufs: GroupedBuffers,
    (ordinal, stream): (usize, u64),
) -> Result<(), Error> {
    let types = grouped_types(g, shape, index)?;
    let gpu = shared_device(ordinal)?;
    // SAFETY: the caller's buffers and stream, under this function's contract, which is
    // `CudaTopK::grouped_raw`'s; the selection was checked against the shape above.
    unsafe { gpu.grouped_raw(g, (shape.n, shape.m), types, bufs, stream) }?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;

    #[test]
    fn every_cpu_path_agrees_and_bad_calls_are_errors() {
        let x = array![[1.0f32, 1.0, f32::NAN, -1.0, 2.0, 0.0, 0.0, 2.0]];
        let g = Grouped { k: 3, groups: 4, top_groups: 2, score: GroupScore::TopTwoSum };
        let a = select_grouped(x.view(), &g, "reference").unwrap();
        assert_eq!(a.indices, array![[2, 0, 1]]);
        assert_eq!(select_grouped(x.view(), &g, "sim").unwrap().indices, a.indices);
        let h = x.mapv(topk_ref::bf16::from_f32);
        assert_eq!(select_grouped(h.view(), &g, "sim").unwrap().indices, a.indices);
        assert!(matches!(
            select_grouped(x.view(), &g, "bisect"),
            Err(Error::UnknownAlgorithm { .. })
        ));
        let too_many = Grouped { k: 5, ..g };
        assert!(matches!(select_grouped(x.view(), &too_many, "sim"), Err(Error::TopK(_))));
        let shape = Shape { n: 1, m: 8, dtype: crate::dtype::Dtype::Int32 };
        assert!(check_grouped_raw(&g, shape).unwrap_err().to_string().contains("not int32"));
    }
}
