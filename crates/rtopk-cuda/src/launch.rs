//! Loading units and launching them: the thin unsafe layer over the driver. Each unit is
//! compiled (`compile.rs`) and loaded on first use, once per [`CudaTopK`] (several threads may
//! ask at once: one builds, the others wait for it); [`CudaTopK::prepare`] builds a list of
//! them in parallel. A top-k is the launch program of rtopk-plan (`program`), which
//! `run_program` executes step by step under the simulator's step names, every kernel through
//! the one launch wrapper with its typed parameter struct; it routes nothing of its own.

use std::collections::BTreeSet;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, DevicePtr, DevicePtrMut, sys};
use cudarc::nvrtc::Ptx;
use topk_ref::{Mode, TopKError};

use crate::compile::{self, CacheUse};
use crate::disk_cache::ImageKind;
use crate::error::driver;
use crate::kernels::{BLOCK_STATIC_SHARED, ElemType, Family, IndexType, Unit};
use crate::plan::{Launch, Plan, Route, Strategy, plan, route};
use crate::{CudaError, CudaTopK};
use rtopk_plan::PORTABLE_CLUSTER;
use rtopk_plan::program::{
    BufferId, Content, Grid, INDICES, INPUT, Kernel, Program, Ragged, Region, RowArgs, Select,
    Step, StepKind, Threshold, VALUES,
};

/// The arguments of every top-k entry point: `struct Params` of `kernels/common.cuh`, field
/// for field. The launcher passes it as the entry point's parameter buffer: the entry points
/// take the fields as arguments in this order (`RTOPK_ARGS`), and kernel arguments lie at
/// their natural alignment, as a C struct's fields do — the layout test checks both against
/// this struct.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params {
    pub(crate) x: sys::CUdeviceptr,
    pub(crate) out_val: sys::CUdeviceptr,
    pub(crate) out_idx: sys::CUdeviceptr,
    pub(crate) out_iter: sys::CUdeviceptr,
    pub(crate) n_rows: u64,
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) smallest: i32,
    pub(crate) max_iter: i32,
    pub(crate) precision: f32,
    pub(crate) cached_keys: u32,
    pub(crate) vec4: i32,
    pub(crate) sign: f32,
    pub(crate) ld: u64,
    pub(crate) out_ld: u32,
    pub(crate) chunks: u32,
    pub(crate) lengths: sys::CUdeviceptr,
    pub(crate) k_per_row: sys::CUdeviceptr,
    pub(crate) hint: sys::CUdeviceptr,
    pub(crate) split_m: u32,
    pub(crate) split_chunk: u32,
    pub(crate) recall: f32,
    pub(crate) sorted: i32,
    pub(crate) value_bins: u32,
    pub(crate) floor: sys::CUdeviceptr,
}

/// A kernel's parameter buffer: a `#[repr(C)]` struct whose fields are the entry point's
/// arguments in order, at their natural alignment (the layout tests check each against the
/// kernel's source); `END` is where its last field ends, the size the driver takes (a padded
/// tail is more than the entry point takes: `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`).
pub(crate) trait KernelParams: Copy {
    /// Where the last field ends.
    const END: usize;
}

impl KernelParams for Params {
    const END: usize = std::mem::offset_of!(Params, floor) + 8;
}

/// The arguments of `rtopk_row_threshold` (kernels/threshold.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct ThresholdParams {
    pub(crate) values: sys::CUdeviceptr,
    pub(crate) threshold: sys::CUdeviceptr,
    pub(crate) n_rows: u64,
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) smallest: i32,
    pub(crate) warps_per_row: u32,
    pub(crate) lanes_per_row: u32,
    pub(crate) lengths: sys::CUdeviceptr,
    pub(crate) k_per_row: sys::CUdeviceptr,
}

impl KernelParams for ThresholdParams {
    const END: usize = std::mem::offset_of!(ThresholdParams, k_per_row) + 8;
}

/// The arguments of the warp sorts, `rtopk_sort_warp_rows_<W>` (`SORT_WARP_ARGS`,
/// kernels/sort_warp_rows.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortWarpParams {
    pub(crate) x: sys::CUdeviceptr,
    pub(crate) out_val: sys::CUdeviceptr,
    pub(crate) out_idx: sys::CUdeviceptr,
    pub(crate) n_rows: u64,
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) smallest: i32,
    pub(crate) lengths: sys::CUdeviceptr,
    pub(crate) k_per_row: sys::CUdeviceptr,
}

impl KernelParams for SortWarpParams {
    const END: usize = std::mem::offset_of!(SortWarpParams, k_per_row) + 8;
}

/// The arguments of the block sort, `rtopk_sort_rows` (kernels/sort_rows.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortRowsParams {
    pub(crate) x: sys::CUdeviceptr,
    pub(crate) out_val: sys::CUdeviceptr,
    pub(crate) out_idx: sys::CUdeviceptr,
    pub(crate) n_rows: u64,
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) smallest: i32,
    pub(crate) pow2: u32,
    pub(crate) row_threads: u32,
    pub(crate) in_shared: i32,
    pub(crate) parts: u32,
    pub(crate) merges: i32,
    pub(crate) lengths: sys::CUdeviceptr,
    pub(crate) k_per_row: sys::CUdeviceptr,
}

impl KernelParams for SortRowsParams {
    const END: usize = std::mem::offset_of!(SortRowsParams, k_per_row) + 8;
}

/// The arguments of `rtopk_split_gather` (kernels/split_rows.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct GatherParams {
    pub(crate) cand_idx: sys::CUdeviceptr,
    pub(crate) out_idx: sys::CUdeviceptr,
    pub(crate) n_rows: u64,
    pub(crate) k: u32,
    pub(crate) width: u32,
    pub(crate) chunk_m: u32,
    pub(crate) k_per_row: sys::CUdeviceptr,
}

impl KernelParams for GatherParams {
    const END: usize = std::mem::offset_of!(GatherParams, k_per_row) + 8;
}

/// The arguments of the radix select's entry points (`RADIX_ARGS`, kernels/radix_rows.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct RadixParams {
    pub(crate) x: sys::CUdeviceptr,
    pub(crate) out_val: sys::CUdeviceptr,
    pub(crate) out_idx: sys::CUdeviceptr,
    pub(crate) radix: sys::CUdeviceptr,
    pub(crate) cand: sys::CUdeviceptr,
    pub(crate) n_rows: u64,
    pub(crate) ld: u64,
    pub(crate) m: u32,
    pub(crate) k: u32,
    pub(crate) slice: u32,
    pub(crate) blocks_per_row: u32,
    pub(crate) shift: u32,
    pub(crate) bits: u32,
    pub(crate) sign: f32,
    pub(crate) radix_ld: u32,
    pub(crate) capacity: u32,
    pub(crate) lengths: sys::CUdeviceptr,
    pub(crate) k_per_row: sys::CUdeviceptr,
}

impl KernelParams for RadixParams {
    const END: usize = std::mem::offset_of!(RadixParams, k_per_row) + 8;
}

/// The argument of `spin_ahead` (kernels/utilities.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpinParams {
    pub(crate) ns: u64,
}

impl KernelParams for SpinParams {
    const END: usize = 8;
}

/// The arguments of `per_row_words` (kernels/utilities.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct PerRowWordsParams {
    pub(crate) entries: sys::CUdeviceptr,
    pub(crate) words: sys::CUdeviceptr,
    pub(crate) n: u64,
    pub(crate) bound: u32,
}

impl KernelParams for PerRowWordsParams {
    const END: usize = std::mem::offset_of!(PerRowWordsParams, bound) + 4;
}

/// The types of a launch's data: the input's and the values' element type, and the type the
/// indices are written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DataTypes {
    /// The element type of the input and the values.
    pub elem: ElemType,
    /// The index type.
    pub index: IndexType,
}

impl DataTypes {
    /// f32 values and 32-bit indices.
    pub const F32: DataTypes = DataTypes { elem: ElemType::F32, index: IndexType::U32 };

    /// `unit` for these types.
    pub fn unit(self, unit: Unit) -> Unit {
        unit.with_elem(self.elem).with_index(self.index)
    }
}

/// Host types whose device buffers the kernels read and write: f32, `half::f16` and
/// `half::bf16` (both held on the device as their 16 bits), the integers `i8`, `u8`, `i16` and
/// `i32`, and the 64-bit types `f64` and `i64` (the wide rows alone, rtopk-plan's `wide`: 8-byte
/// elements, two to a 16-byte load).
pub trait DeviceElement:
    topk_ref::Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Unpin
{
    /// The kernels' element type for it.
    const ELEM: ElemType;
}
impl DeviceElement for f32 {
    const ELEM: ElemType = ElemType::F32;
}
impl DeviceElement for half::f16 {
    const ELEM: ElemType = ElemType::F16;
}
impl DeviceElement for half::bf16 {
    const ELEM: ElemType = ElemType::Bf16;
}
impl DeviceElement for i8 {
    const ELEM: ElemType = ElemType::I8;
}
impl DeviceElement for u8 {
    const ELEM: ElemType = ElemType::U8;
}
impl DeviceElement for i16 {
    const ELEM: ElemType = ElemType::I16;
}
impl DeviceElement for i32 {
    const ELEM: ElemType = ElemType::I32;
}
impl DeviceElement for f64 {
    const ELEM: ElemType = ElemType::F64;
}
impl DeviceElement for i64 {
    const ELEM: ElemType = ElemType::I64;
}

/// Device buffers a caller owns (a framework's tensors), by address: the input (`n * m` of the
/// launch's element type), the values (`n * k` of it), the indices (`n * k` of the launch's
/// [`IndexType`]) and the iteration counts (`n` u32, or 0 when none are wanted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawBuffers {
    /// The input.
    pub x: u64,
    /// The values output.
    pub values: u64,
    /// The indices output.
    pub indices: u64,
    /// The iteration counts output, or 0.
    pub iterations: u64,
    /// Each row's length (`n` u32, docs/contract.md §5), or 0: every row whole.
    pub lengths: u64,
    /// Each row's k (`n` u32, at most the launch's k, the outputs' width), or 0: the
    /// launch's k for every row.
    pub k_per_row: u64,
    /// Each row's threshold hint (`n` f32, docs/contract.md §5), or 0: no hints.
    pub hint: u64,
    /// Each row's threshold, written (`n` f32, docs/contract.md §5), or 0: not wanted.
    pub threshold: u64,
}

/// The outputs of a launch on device buffers: values, indices, and the iteration counts
/// where wanted.
pub type DeviceOutputs<'a, E> =
    (&'a mut CudaSlice<E>, &'a mut CudaSlice<u32>, Option<&'a mut CudaSlice<u32>>);

/// The per-row arrays of a ragged launch on the device (docs/contract.md §5): `n` u32 each,
/// or none.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowSlices<'a> {
    /// Each row's length.
    pub lengths: Option<&'a CudaSlice<u32>>,
    /// Each row's k.
    pub k_per_row: Option<&'a CudaSlice<u32>>,
    /// Each row's threshold hint (docs/contract.md §5).
    pub hint: Option<&'a CudaSlice<f32>>,
}

/// (offset, size) of each field of [`Params`], in order: the layout the entry points' argument
/// lists must have.
#[cfg(test)]
pub(crate) fn params_layout() -> Vec<(usize, usize)> {
    use std::mem::{offset_of, size_of_val};
    let p = Params {
        x: 0,
        out_val: 0,
        out_idx: 0,
        out_iter: 0,
        n_rows: 0,
        m: 0,
        k: 0,
        smallest: 0,
        max_iter: 0,
        precision: 0.0,
        cached_keys: 0,
        vec4: 0,
        sign: 0.0,
        ld: 0,
        out_ld: 0,
        chunks: 0,
        lengths: 0,
        k_per_row: 0,
        hint: 0,
        split_m: 0,
        split_chunk: 0,
        recall: 0.0,
        sorted: 0,
        value_bins: 0,
        floor: 0,
    };
    vec![
        (offset_of!(Params, x), size_of_val(&p.x)),
        (offset_of!(Params, out_val), size_of_val(&p.out_val)),
        (offset_of!(Params, out_idx), size_of_val(&p.out_idx)),
        (offset_of!(Params, out_iter), size_of_val(&p.out_iter)),
        (offset_of!(Params, n_rows), size_of_val(&p.n_rows)),
        (offset_of!(Params, m), size_of_val(&p.m)),
        (offset_of!(Params, k), size_of_val(&p.k)),
        (offset_of!(Params, smallest), size_of_val(&p.smallest)),
        (offset_of!(Params, max_iter), size_of_val(&p.max_iter)),
        (offset_of!(Params, precision), size_of_val(&p.precision)),
        (offset_of!(Params, cached_keys), size_of_val(&p.cached_keys)),
        (offset_of!(Params, vec4), size_of_val(&p.vec4)),
        (offset_of!(Params, sign), size_of_val(&p.sign)),
        (offset_of!(Params, ld), size_of_val(&p.ld)),
        (offset_of!(Params, out_ld), size_of_val(&p.out_ld)),
        (offset_of!(Params, chunks), size_of_val(&p.chunks)),
        (offset_of!(Params, lengths), size_of_val(&p.lengths)),
        (offset_of!(Params, k_per_row), size_of_val(&p.k_per_row)),
        (offset_of!(Params, hint), size_of_val(&p.hint)),
        (offset_of!(Params, split_m), size_of_val(&p.split_m)),
        (offset_of!(Params, split_chunk), size_of_val(&p.split_chunk)),
        (offset_of!(Params, recall), size_of_val(&p.recall)),
        (offset_of!(Params, sorted), size_of_val(&p.sorted)),
        (offset_of!(Params, value_bins), size_of_val(&p.value_bins)),
        (offset_of!(Params, floor), size_of_val(&p.floor)),
    ]
}

/// (offset, size) of each argument of the entry points of `family`, as its parameter struct
/// lays them out: what the NVRTC test compares with the compiled `.param` lists (`None` for
/// the utilities, several entry points of their own arguments).
#[cfg(test)]
pub(crate) fn family_layout(family: Family) -> Option<Vec<(usize, usize)>> {
    use std::mem::offset_of;
    Some(match family {
        Family::WarpRows
        | Family::HalfRows
        | Family::QuarterRows
        | Family::BlockRows
        | Family::BlockRowsNarrow
        | Family::PickRows
        | Family::WideRows
        | Family::ClusterRows
        | Family::ClusterRowsNarrow => params_layout(),
        Family::SortWarpRows => vec![
            (offset_of!(SortWarpParams, x), 8),
            (offset_of!(SortWarpParams, out_val), 8),
            (offset_of!(SortWarpParams, out_idx), 8),
            (offset_of!(SortWarpParams, n_rows), 8),
            (offset_of!(SortWarpParams, m), 4),
            (offset_of!(SortWarpParams, k), 4),
            (offset_of!(SortWarpParams, smallest), 4),
            (offset_of!(SortWarpParams, lengths), 8),
            (offset_of!(SortWarpParams, k_per_row), 8),
        ],
        Family::SortRows => vec![
            (offset_of!(SortRowsParams, x), 8),
            (offset_of!(SortRowsParams, out_val), 8),
            (offset_of!(SortRowsParams, out_idx), 8),
            (offset_of!(SortRowsParams, n_rows), 8),
            (offset_of!(SortRowsParams, m), 4),
            (offset_of!(SortRowsParams, k), 4),
            (offset_of!(SortRowsParams, smallest), 4),
            (offset_of!(SortRowsParams, pow2), 4),
            (offset_of!(SortRowsParams, row_threads), 4),
            (offset_of!(SortRowsParams, in_shared), 4),
            (offset_of!(SortRowsParams, parts), 4),
            (offset_of!(SortRowsParams, merges), 4),
            (offset_of!(SortRowsParams, lengths), 8),
            (offset_of!(SortRowsParams, k_per_row), 8),
        ],
        Family::SplitGather => vec![
            (offset_of!(GatherParams, cand_idx), 8),
            (offset_of!(GatherParams, out_idx), 8),
            (offset_of!(GatherParams, n_rows), 8),
            (offset_of!(GatherParams, k), 4),
            (offset_of!(GatherParams, width), 4),
            (offset_of!(GatherParams, chunk_m), 4),
            (offset_of!(GatherParams, k_per_row), 8),
        ],
        Family::RowThreshold => vec![
            (offset_of!(ThresholdParams, values), 8),
            (offset_of!(ThresholdParams, threshold), 8),
            (offset_of!(ThresholdParams, n_rows), 8),
            (offset_of!(ThresholdParams, m), 4),
            (offset_of!(ThresholdParams, k), 4),
            (offset_of!(ThresholdParams, smallest), 4),
            (offset_of!(ThresholdParams, warps_per_row), 4),
            (offset_of!(ThresholdParams, lanes_per_row), 4),
            (offset_of!(ThresholdParams, lengths), 8),
            (offset_of!(ThresholdParams, k_per_row), 8),
        ],
        Family::GroupedRows => vec![
            (offset_of!(crate::grouped::GroupedParams, x), 8),
            (offset_of!(crate::grouped::GroupedParams, out_val), 8),
            (offset_of!(crate::grouped::GroupedParams, out_idx), 8),
            (offset_of!(crate::grouped::GroupedParams, n_rows), 8),
            (offset_of!(crate::grouped::GroupedParams, m), 4),
            (offset_of!(crate::grouped::GroupedParams, k), 4),
            (offset_of!(crate::grouped::GroupedParams, groups), 4),
            (offset_of!(crate::grouped::GroupedParams, top_groups), 4),
            (offset_of!(crate::grouped::GroupedParams, sum2), 4),
        ],
        Family::RadixRows => vec![
            (offset_of!(RadixParams, x), 8),
            (offset_of!(RadixParams, out_val), 8),
            (offset_of!(RadixParams, out_idx), 8),
            (offset_of!(RadixParams, radix), 8),
            (offset_of!(RadixParams, cand), 8),
            (offset_of!(RadixParams, n_rows), 8),
            (offset_of!(RadixParams, ld), 8),
            (offset_of!(RadixParams, m), 4),
            (offset_of!(RadixParams, k), 4),
            (offset_of!(RadixParams, slice), 4),
            (offset_of!(RadixParams, blocks_per_row), 4),
            (offset_of!(RadixParams, shift), 4),
            (offset_of!(RadixParams, bits), 4),
            (offset_of!(RadixParams, sign), 4),
            (offset_of!(RadixParams, radix_ld), 4),
            (offset_of!(RadixParams, capacity), 4),
            (offset_of!(RadixParams, lengths), 8),
            (offset_of!(RadixParams, k_per_row), 8),
        ],
        Family::Utilities => return None,
    })
}

/// What a unit's build and load took, for startup reports (`rtopk bench cuda --startup`).
#[derive(Clone, Debug)]
pub struct UnitReport {
    /// The unit.
    pub unit: Unit,
    /// What was loaded: a cubin or PTX.
    pub kind: ImageKind,
    /// The architecture it was compiled for (`sm_90`, or `compute_90` for PTX).
    pub arch: String,
    /// Where the image came from.
    pub cache: CacheUse,
    /// Milliseconds to get the image (NVRTC, or reading the cache).
    pub build_ms: f64,
    /// Milliseconds the driver took to load it (and compile it, for PTX).
    pub load_ms: f64,
    /// The image's size in bytes.
    pub bytes: usize,
    /// When it was loaded, in milliseconds after the device was opened.
    pub at_ms: f64,
}

/// A loaded unit: its module and entry points.
pub(crate) struct Loaded {
    _module: Arc<CudaModule>,
    pub(crate) functions: Vec<CudaFunction>,
    pub(crate) report: UnitReport,
}

/// One unit's place in a [`CudaTopK`]: loaded once, by whichever thread asks first.
#[derive(Default)]
pub(crate) struct Slot {
    loaded: OnceLock<Loaded>,
    building: Mutex<()>,
}

impl CudaTopK {
    /// The unit's module, built and loaded on first use.
    pub(crate) fn unit(&self, unit: Unit) -> Result<&Loaded, CudaError> {
        let slot = &self.slots[unit.index()];
        if let Some(loaded) = slot.loaded.get() {
            return Ok(loaded);
        }
        let _building = slot.building.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(loaded) = slot.loaded.get() {
            return Ok(loaded); // another thread built it while this one waited
        }
        let loaded = self.load(unit)?;
        Ok(slot.loaded.get_or_init(|| loaded))
    }

    /// The first entry point of `unit`.
    pub(crate) fn function(&self, unit: Unit) -> Result<&CudaFunction, CudaError> {
        let loaded = self.unit(unit)?;
        loaded.functions.first().ok_or_else(|| CudaError::Kernel {
            unit: unit.to_string(),
            why: "the module has no entry point".into(),
        })
    }

    /// The floor entry point of `unit` (`Unit::has_floor_entry`, kernels/floor.cuh): its
    /// second.
    pub(crate) fn floor_function(&self, unit: Unit) -> Result<&CudaFunction, CudaError> {
        let loaded = self.unit(unit)?;
        loaded.functions.get(1).filter(|_| unit.has_floor_entry()).ok_or_else(|| {
            CudaError::Kernel {
                unit: unit.to_string(),
                why: "the module has no floor entry".into(),
            }
        })
    }

    /// The hints' entry point of `unit` (`Unit::has_hinted_entry`: a ragged twin's
    /// `<name>_hinted`, whose rows start their search at their hint): its second.
    pub(crate) fn hinted_function(&self, unit: Unit) -> Result<&CudaFunction, CudaError> {
        let loaded = self.unit(unit)?;
        loaded.functions.get(1).filter(|_| unit.has_hinted_entry()).ok_or_else(|| {
            CudaError::Kernel {
                unit: unit.to_string(),
                why: "the module has no hinted entry".into(),
            }
        })
    }

    /// The radix select's entry point of `step`: `rtopk_<step name>`, or its ragged twin
    /// `rtopk_<step name>_ragged` for rows of their own length or k (`ragged`), one of
    /// [`crate::kernels::RADIX_ENTRIES`] (the unit's entry points, in that order).
    pub(crate) fn radix_function(
        &self,
        unit: Unit,
        step: StepKind,
        ragged: bool,
    ) -> Result<&CudaFunction, CudaError> {
        let name = format!("rtopk_{}{}", step.name(), if ragged { "_ragged" } else { "" });
        let at = crate::kernels::RADIX_ENTRIES.iter().position(|e| *e == name);
        let loaded = self.unit(unit)?;
        let radix = unit.family() == Family::RadixRows;
        let f = at.filter(|_| radix).and_then(|i| loaded.functions.get(i));
        f.ok_or_else(|| CudaError::Kernel { unit: unit.to_string(), why: format!("no {name}") })
    }

    /// The utility entry point `name` (one of [`crate::kernels::UTILITIES`]).
    pub(crate) fn utility(&self, name: &str) -> Result<&CudaFunction, CudaError> {
        let unit = Unit::single(Family::Utilities);
        let loaded = self.unit(unit)?;
        crate::kernels::UTILITIES
            .iter()
            .position(|u| *u == name)
            .and_then(|i| loaded.functions.get(i))
            .ok_or_else(|| CudaError::Kernel { unit: unit.to_string(), why: format!("no {name}") })
    }

    /// Builds (or reads) `unit`'s image and loads it. An image the driver refuses is built by
    /// NVRTC here and loaded instead, where NVRTC is: a shipped unit (or this process's copy of
    /// one) from an NVRTC newer than the driver; a built one fails the same way again.
    fn load(&self, unit: Unit) -> Result<Loaded, CudaError> {
        let mut image = compile::image(unit, &self.files, &self.target, Some(self.capability))?;
        let mut start = Instant::now();
        let mut module = self.ctx.load_module(Ptx::from_binary(image.bytes.to_vec()));
        if module.is_err() && compile::nvrtc_present() {
            image = compile::image(unit, &self.files, &self.target, None)?;
            start = Instant::now();
            module = self.ctx.load_module(Ptx::from_binary(image.bytes.to_vec()));
        }
        let module = module.map_err(driver("loading a module"))?;
        let functions = unit
            .entry_points()
            .iter()
            .map(|name| module.load_function(name).map_err(driver("loading a kernel")))
            .collect::<Result<Vec<_>, _>>()?;
        let clusters = matches!(unit.family(), Family::ClusterRows | Family::ClusterRowsNarrow);
        // the block sort keeps rows past the default 48 KiB in shared memory too (sort_shared_most)
        if matches!(unit.family(), Family::BlockRows | Family::SortRows) || clusters {
            for f in &functions {
                self.allow_dynamic_shared(unit, f)?;
            }
        }
        // the block sort's rank and merge sorts launch in clusters too (SortShape::parts)
        let clustered = clusters || unit.family() == Family::SortRows;
        if clustered && self.limits.max_cluster > PORTABLE_CLUSTER {
            // the _hinted entry point's clusters are its unit's (Unit::has_hinted_entry)
            for f in &functions {
                allow_wide_clusters(f)?;
            }
        }
        let report = UnitReport {
            unit,
            kind: image.kind,
            arch: image.arch.clone(),
            cache: image.cache,
            build_ms: image.ms,
            load_ms: start.elapsed().as_secs_f64() * 1e3,
            bytes: image.bytes.len(),
            at_ms: self.opened.elapsed().as_secs_f64() * 1e3,
        };
        Ok(Loaded { _module: module, functions, report })
    }

    /// Lets the block kernel use the device's opt-in shared memory past its static shared
    /// memory, which must be what the plan assumes ([`BLOCK_STATIC_SHARED`]).
    fn allow_dynamic_shared(&self, unit: Unit, f: &CudaFunction) -> Result<(), CudaError> {
        // SAFETY: a valid function handle of a loaded module and a valid attribute.
        let static_smem = unsafe {
            cudarc::driver::result::function::get_function_attribute(
                f.cu_function(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            )
        }
        .map_err(driver("reading the block kernel's static shared memory"))?;
        let static_smem = static_smem.max(0) as usize;
        if static_smem > BLOCK_STATIC_SHARED {
            return Err(CudaError::Kernel {
                unit: unit.to_string(),
                why: format!(
                    "{static_smem} bytes of static shared memory; the launch plan assumes at most \
                     {BLOCK_STATIC_SHARED}"
                ),
            });
        }
        let dynamic = self.limits.shared_optin_bytes.saturating_sub(static_smem);
        // SAFETY: a valid function handle of a loaded module, a valid attribute, and a size
        // within the device's opt-in limit.
        unsafe {
            cudarc::driver::result::function::set_function_attribute(
                f.cu_function(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            )
        }
        .map_err(driver("raising the block kernel's shared-memory limit"))
    }

    /// Builds and loads `units` (those not loaded yet), several at once: NVRTC runs one
    /// compilation per thread, on up to as many threads as the machine has cores.
    pub fn prepare(&self, units: &[Unit]) -> Result<(), CudaError> {
        let todo: Vec<Unit> = units
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|u| self.slots[u.index()].loaded.get().is_none())
            .collect();
        compile::on_every_core(&todo, |&unit| self.unit(unit).map(|_| ()))
    }

    /// The units loaded so far, in the order they were loaded, with what each took.
    pub fn unit_reports(&self) -> Vec<UnitReport> {
        let mut out: Vec<UnitReport> =
            self.slots.iter().filter_map(|s| s.loaded.get()).map(|l| l.report.clone()).collect();
        out.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
        out
    }

    /// Registers per thread of each loaded top-k kernel (from the driver), for benchmark logs.
    pub fn kernel_registers(&self) -> Result<Vec<(String, i32)>, CudaError> {
        let mut out = Vec::new();
        for loaded in self.slots.iter().filter_map(|s| s.loaded.get()) {
            for (name, f) in loaded.report.unit.entry_points().into_iter().zip(&loaded.functions) {
                // SAFETY: a valid function handle of a loaded module and a valid attribute.
                let regs = unsafe {
                    cudarc::driver::result::function::get_function_attribute(
                        f.cu_function(),
                        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
                    )
                }
                .map_err(driver("reading a kernel attribute"))?;
                out.push((name, regs));
            }
        }
        Ok(out)
    }

    /// The launch plan of `launch` on this device with `strategy`, for its rows as they are.
    pub fn plan(&self, launch: &Launch, strategy: Strategy) -> Result<Plan, CudaError> {
        plan(launch, &self.limits, strategy)
    }

    /// The route of `launch` on this device with `strategy`: its plan, or split rows where
    /// the strategy splits them (rtopk-plan's `split`); `counts`: whether the iteration counts
    /// are wanted (a split row has none, so such a launch is never split).
    pub fn route(
        &self,
        launch: &Launch,
        strategy: Strategy,
        counts: bool,
    ) -> Result<Route, CudaError> {
        route(launch, &self.limits, strategy, counts)
    }

    /// The launch program of `launch` on this device with `strategy` (rtopk-plan's
    /// `program`): the kernel launches, in order, that [`CudaTopK::select_raw`] and the
    /// `select_device*` functions queue; `counts`: whether iteration counts are wanted.
    pub fn program(
        &self,
        launch: &Launch,
        strategy: Strategy,
        counts: bool,
    ) -> Result<Program, CudaError> {
        self.program_ragged(launch, strategy, counts, Ragged::default())
    }

    /// [`CudaTopK::program`] of a ragged launch (docs/contract.md §5): the steps read the
    /// per-row arrays `ragged` names (rtopk-plan's `program_ragged`: split as plain rows are,
    /// where no counts are wanted, one level deep).
    pub fn program_ragged(
        &self,
        launch: &Launch,
        strategy: Strategy,
        counts: bool,
        ragged: Ragged,
    ) -> Result<Program, CudaError> {
        Ok(rtopk_plan::program_ragged(launch, &self.limits, strategy, counts, ragged)?)
    }

    /// Row-wise top-k of `x` (device, `n * m` values, row-major) into device buffers: values
    /// and indices `n * k`, iteration counts `n`. Each row's results in ascending index order,
    /// or with `launch.sorted` in sorted order (docs/contract.md §1).
    pub fn select_device<E: DeviceElement>(
        &self,
        launch: &Launch,
        x: &CudaSlice<E>,
        out_val: &mut CudaSlice<E>,
        out_idx: &mut CudaSlice<u32>,
        out_iter: &mut CudaSlice<u32>,
    ) -> Result<(), CudaError> {
        self.select_device_opt(launch, Strategy::Auto, x, out_val, out_idx, Some(out_iter))
    }

    /// [`CudaTopK::select_device`] with a launch strategy.
    pub fn select_device_with<E: DeviceElement>(
        &self,
        launch: &Launch,
        strategy: Strategy,
        x: &CudaSlice<E>,
        out_val: &mut CudaSlice<E>,
        out_idx: &mut CudaSlice<u32>,
        out_iter: &mut CudaSlice<u32>,
    ) -> Result<(), CudaError> {
        self.select_device_opt(launch, strategy, x, out_val, out_idx, Some(out_iter))
    }

    /// [`CudaTopK::select_device_with`], the iteration counts optional: without them the
    /// route may split rows (rtopk-plan's `split`), with the same values and indices.
    pub fn select_device_opt<E: DeviceElement>(
        &self,
        launch: &Launch,
        strategy: Strategy,
        x: &CudaSlice<E>,
        out_val: &mut CudaSlice<E>,
        out_idx: &mut CudaSlice<u32>,
        out_iter: Option<&mut CudaSlice<u32>>,
    ) -> Result<(), CudaError> {
        let rows = RowSlices::default();
        self.select_device_ragged(launch, strategy, x, (out_val, out_idx, out_iter), rows)
    }

    /// [`CudaTopK::select_device_opt`] of a ragged launch (docs/contract.md §5): `launch.k` is
    /// the outputs' width, and row `i` reads its own length and k from `rows` (`n` u32 each,
    /// where given) and starts its search at `rows.hint[i]` (`n` f32, where given).
    pub fn select_device_ragged<E: DeviceElement>(
        &self,
        launch: &Launch,
        strategy: Strategy,
        x: &CudaSlice<E>,
        outs: DeviceOutputs<'_, E>,
        rows: RowSlices<'_>,
    ) -> Result<(), CudaError> {
        self.select_device_threshold(launch, strategy, x, outs, rows, None)
    }

    /// [`CudaTopK::select_device_ragged`] that also writes each row's threshold
    /// (docs/contract.md §5) to `threshold` (`n` f32), where given.
    pub fn select_device_threshold<E: DeviceElement>(
        &self,
        launch: &Launch,
        strategy: Strategy,
        x: &CudaSlice<E>,
        (out_val, out_idx, out_iter): DeviceOutputs<'_, E>,
        rows: RowSlices<'_>,
        threshold: Option<&mut CudaSlice<f32>>,
    ) -> Result<(), CudaError> {
        self.check_types(launch, E::ELEM)?;
        let ragged = Ragged {
            lengths: rows.lengths.is_some(),
            k_per_row: rows.k_per_row.is_some(),
            hint: rows.hint.is_some(),
            threshold: threshold.is_some(),
        };
        let program = self.program_ragged(launch, strategy, out_iter.is_some(), ragged)?;
        let it_len = out_iter.as_ref().map(|b| b.len());
        check_buffers(launch, x.len(), out_val.len(), out_idx.len(), it_len)?;
        let per_rows = [
            ("the lengths", rows.lengths.map(|b| b.len())),
            ("the k per row", rows.k_per_row.map(|b| b.len())),
            ("the hints", rows.hint.map(|b| b.len())),
            ("the thresholds", threshold.as_ref().map(|b| b.len())),
        ];
        for (what, per_row) in per_rows {
            if let Some(have) = per_row.filter(|&have| have < launch.n) {
                return Err(CudaError::TopK(TopKError::InvalidParameter {
                    name: "buffer",
                    reason: format!("{what} hold {have} entries, the launch has {} rows", launch.n),
                }));
            }
        }
        if launch.n == 0 || (launch.k == 0 && threshold.is_none()) {
            return Ok(());
        }
        let s = &self.stream;
        let (x_ptr, _x) = x.device_ptr(s);
        let (val_ptr, _val) = out_val.device_ptr_mut(s);
        let (idx_ptr, _idx) = out_idx.device_ptr_mut(s);
        let iter = out_iter.map(|b| b.device_ptr_mut(s));
        let lengths = rows.lengths.map(|b| b.device_ptr(s));
        let k_per_row = rows.k_per_row.map(|b| b.device_ptr(s));
        let hint = rows.hint.map(|b| b.device_ptr(s));
        let thr = threshold.map(|b| b.device_ptr_mut(s));
        let bufs = RawBuffers {
            x: x_ptr,
            values: val_ptr,
            indices: idx_ptr,
            iterations: iter.as_ref().map_or(0, |(p, _)| *p),
            lengths: lengths.as_ref().map_or(0, |(p, _)| *p),
            k_per_row: k_per_row.as_ref().map_or(0, |(p, _)| *p),
            hint: hint.as_ref().map_or(0, |(p, _)| *p),
            threshold: thr.as_ref().map_or(0, |(p, _)| *p),
        };
        let types = DataTypes { elem: E::ELEM, index: IndexType::U32 };
        // SAFETY: the buffers were checked against the launch above and stay borrowed (the
        // guards record the launch's reads and writes on them when dropped) until the work is
        // queued on this device's stream.
        unsafe { self.run_program(&program, types, bufs, s.cu_stream()) }
    }

    /// Whether this device runs the kernels of `elem`: the 16-bit kernels' packed min/max need
    /// compute capability 8.0 (docs/kernel.md, "16-bit rows").
    pub fn check_elem(&self, elem: ElemType) -> Result<(), CudaError> {
        let (major, minor) = self.capability;
        if elem.packed16() && major < 8 {
            return Err(CudaError::Unsupported {
                what: format!(
                    "{elem:?} rows need compute capability 8.0 or newer; {} has {major}.{minor}",
                    self.device_name
                ),
            });
        }
        Ok(())
    }

    /// Whether this device runs `launch` on buffers of `elem`: the launch's element type
    /// (which its plan depends on) must be theirs, and the device must run its kernels.
    pub fn check_types(&self, launch: &Launch, elem: ElemType) -> Result<(), CudaError> {
        if launch.elem != elem {
            return Err(CudaError::TopK(TopKError::InvalidParameter {
                name: "elem",
                reason: format!(
                    "the launch is planned for {:?} rows, the buffers hold {elem:?}",
                    launch.elem
                ),
            }));
        }
        self.check_elem(elem)
    }

    /// The units a launch on a caller's buffers ([`CudaTopK::select_raw`]) runs, for data of
    /// `types`; `counts`: whether iteration counts are wanted; `ragged`: the per-row arrays
    /// (the ragged twins where the selects read them, the threshold unit where thresholds are
    /// written) — the units of the very program the launch runs.
    pub fn raw_units(
        &self,
        launch: &Launch,
        types: DataTypes,
        counts: bool,
        ragged: Ragged,
    ) -> Result<Vec<Unit>, CudaError> {
        self.check_types(launch, types.elem)?;
        let program = self.programs.get(&self.limits, launch, Strategy::Auto, counts, ragged)?;
        let mut units: Vec<Unit> = program.steps.iter().map(|s| types.unit(s.unit)).collect();
        units.sort();
        units.dedup();
        Ok(units)
    }

    /// `true` when every one of `units` is loaded: a launch of them builds nothing.
    pub fn is_loaded(&self, units: &[Unit]) -> bool {
        units.iter().all(|u| self.slots[u.index()].loaded.get().is_some())
    }

    /// Row-wise top-k on buffers the caller owns, queued on the caller's `stream` (e.g. a
    /// framework's current stream) for data of `types`: nothing is copied or
    /// synchronised, so the launch can be captured in a CUDA graph; split rows take their
    /// candidates' room from the stream-ordered allocator (`cuMemAllocAsync` and
    /// `cuMemFreeAsync` on `stream`). Builds and loads the kernels on first use (warm up
    /// before capturing). Without iteration counts (`bufs.iterations == 0`) the route may split
    /// rows.
    ///
    /// # Safety
    /// `bufs` must point to device memory of this device, of the sizes [`RawBuffers`] states
    /// for `launch`, valid until the work queued on `stream` completes; `stream` must be the
    /// handle (`CUstream` / `cudaStream_t`, as an integer) of a stream of this device's primary
    /// context, or 0 for its legacy default stream.
    pub unsafe fn select_raw(
        &self,
        launch: &Launch,
        types: DataTypes,
        bufs: RawBuffers,
        stream: u64,
    ) -> Result<(), CudaError> {
        let program = self.raw_program(launch, types, bufs)?;
        // SAFETY: the caller's buffers and stream, of the sizes this function's contract states.
        unsafe { self.run_program(&program, types, bufs, raw_stream(stream)) }
    }

    /// [`CudaTopK::select_raw`] where every kernel unit of the launch's program is loaded:
    /// queues it and returns `true`; otherwise queues nothing and returns `false` (then
    /// [`CudaTopK::prepare`] the [`CudaTopK::raw_units`], or call `select_raw`, which builds
    /// them). One lookup of the program serves both the check and the launch: an eager loop
    /// pays for it once per call.
    ///
    /// # Safety
    /// As [`CudaTopK::select_raw`].
    pub unsafe fn select_raw_loaded(
        &self,
        launch: &Launch,
        types: DataTypes,
        bufs: RawBuffers,
        stream: u64,
    ) -> Result<bool, CudaError> {
        let program = self.raw_program(launch, types, bufs)?;
        let loaded = |s: &Step| self.slots[types.unit(s.unit).index()].loaded.get().is_some();
        if !program.steps.iter().all(loaded) {
            return Ok(false);
        }
        // SAFETY: the caller's buffers and stream, under this function's contract.
        unsafe { self.run_program(&program, types, bufs, raw_stream(stream)) }?;
        Ok(true)
    }

    /// Queues `per_row_words` on the caller's `stream`: the `n` int64 entries at `entries` (a
    /// per-row array of lengths or k, docs/contract.md §5) written at `words` as the `n`
    /// 32-bit words the top-k kernels read, each clamped to `[0, bound]`. Nothing is queued for
    /// `n == 0`; otherwise returns `false`, queueing nothing, where the utilities' unit is not
    /// loaded yet ([`CudaTopK::load_utilities`] first).
    ///
    /// # Safety
    /// `entries` must point to `n` int64 values and `words` to room for `n` u32 in this
    /// device's memory, valid until the work queued on `stream` completes; `stream` as in
    /// [`CudaTopK::select_raw`].
    pub unsafe fn per_row_words_raw(
        &self,
        entries: u64,
        words: u64,
        n: u64,
        bound: u32,
        stream: u64,
    ) -> Result<bool, CudaError> {
        if n == 0 {
            return Ok(true);
        }
        let slot = &self.slots[Unit::single(Family::Utilities).index()];
        if slot.loaded.get().is_none() {
            return Ok(false);
        }
        let f = self.utility("per_row_words")?;
        let threads = 256u32;
        let blocks = u32::try_from(n.div_ceil(u64::from(threads)).min(1024)).unwrap_or(1024);
        let grid = Grid { blocks, threads, shared_bytes: 0, cluster: 1 };
        let params = PerRowWordsParams { entries, words, n, bound };
        // SAFETY: per_row_words(const long long*, u32*, u64, u32) (PerRowWordsParams) reads
        // the n entries and writes the n words, grid-stride: the caller's buffers and stream,
        // under this function's contract.
        unsafe { self.launch(f, grid, raw_stream(stream), params, "per_row_words") }?;
        Ok(true)
    }

    /// Builds (or reads) and loads the utilities' unit, which [`CudaTopK::per_row_words_raw`]
    /// launches.
    pub fn load_utilities(&self) -> Result<(), CudaError> {
        self.unit(Unit::single(Family::Utilities)).map(|_| ())
    }

    /// The program a raw launch on `bufs` runs: counts and per-row arrays where given.
    fn raw_program(
        &self,
        launch: &Launch,
        types: DataTypes,
        bufs: RawBuffers,
    ) -> Result<Arc<Program>, CudaError> {
        self.check_types(launch, types.elem)?;
        let ragged = Ragged {
            lengths: bufs.lengths != 0,
            k_per_row: bufs.k_per_row != 0,
            hint: bufs.hint != 0,
            threshold: bufs.threshold != 0,
        };
        let counts = bufs.iterations != 0;
        self.programs.get(&self.limits, launch, Strategy::Auto, counts, ragged)
    }

    /// Queues `program` on `stream`: each step in order, through [`CudaTopK::launch`], with
    /// the grid and the arguments the program gives; the temporaries come from the
    /// stream-ordered allocator and are freed on `stream` after the steps.
    ///
    /// # Safety
    /// `bufs` must be valid for the program's launch (x: n*m values, outputs: n*k and n
    /// elements, or a null iteration output where the program writes none) until the work on
    /// `stream` completes.
    unsafe fn run_program(
        &self,
        program: &Program,
        types: DataTypes,
        bufs: RawBuffers,
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        self.ctx.bind_to_thread().map_err(driver("binding the context"))?;
        let Launch { n, m, .. } = program.launch;
        let bytes = |c: Content| content_bytes(types, c);
        let mut addr = caller_addresses(program, bufs);

        let mut temps = Vec::new();
        for (id, b) in program.temporaries() {
            let too_large = || CudaError::TooLarge { n, m, why: "the split rows' candidates" };
            let size = b.elements.checked_mul(bytes(b.content)).ok_or_else(too_large)?;
            let size = usize::try_from(size).map_err(|_| too_large())?;
            self.keep_pool()?;
            // SAFETY: the context is bound (above); `stream` is the caller's, of this device.
            let t = unsafe { StreamTemp::new(size, stream) }?;
            if matches!(b.content, Content::Floor | Content::Radix) {
                // the floors start below every key (kernels/floor.cuh); a radix select's
                // histograms and tickets at zero (kernels/radix_rows.cu)
                // SAFETY: `size` bytes just allocated on `stream`, zeroed before the steps
                // queued after this on the same stream.
                unsafe { cudarc::driver::result::memset_d8_async(t.ptr, 0, size, stream) }
                    .map_err(driver("zeroing a temporary"))?;
            }
            addr[id.0] = t.ptr;
            temps.push(t);
        }
        let at = |r: &Region| addr[r.buffer.0] + r.offset * bytes(program.buffer(r.buffer).content);
        // a step's per-row arrays (docs/contract.md §5): null where it reads none
        let rows = |r: Option<RowArgs>| {
            let ptr = |id: Option<BufferId>| id.map_or(0, |id| addr[id.0]);
            r.map_or((0, 0), |r| (ptr(r.lengths), ptr(r.k_per_row)))
        };
        let smallest = i32::from(program.launch.mode == Mode::Smallest);
        for (i, step) in program.steps.iter().enumerate() {
            let f = self.function(types.unit(step.unit))?;
            let what = step.name.name();
            let follows = i > 0;
            match &step.kernel {
                Kernel::Select(sel) => {
                    // the step's entry point: its unit's floor entry for a split's floor, its
                    // _hinted entry where it passes hints (the plan gives a step one or
                    // neither: a ragged unit has no floor entry)
                    let hinted = sel.rows.is_some_and(|r| r.hint.is_some());
                    let f = match (sel.floor, hinted) {
                        (Some(_), _) => self.floor_function(types.unit(step.unit))?,
                        (None, true) => self.hinted_function(types.unit(step.unit))?,
                        (None, false) => f,
                    };
                    let params = select_params(program, types, &addr, sel);
                    // SAFETY: a top-k entry point, whose arguments are Params's fields (the
                    // layout tests); the step's kernel rows read within its input region and
                    // write within its output regions, which the program sizes within the
                    // caller's buffers (this function's contract) and the temporaries above.
                    unsafe { self.launch_step(f, step.grid, stream, params, what, follows) }?;
                }
                Kernel::Sort(sort) => {
                    let (x, out_val, out_idx) =
                        (at(&sort.input), addr[sort.values.0], addr[sort.indices.0]);
                    let (n_rows, m, k) = (sort.n_rows, sort.m, sort.k);
                    let (lengths, k_per_row) = rows(sort.rows);
                    match sort.shape {
                        // SAFETY: rtopk_sort_rows, whose arguments are SortRowsParams's fields
                        // (the layout test); one block per row (a cluster of `parts` for the
                        // rank and merge sorts) touches positions < k of its own row < n_rows of
                        // the values and indices, reads its row of x, and uses the shared memory
                        // the step's grid gives (one row of pow2 ranks, k + 1 for the rank sort,
                        // one run of pow2 / parts for the merge sort).
                        Some(shape) => unsafe {
                            let params = SortRowsParams {
                                x,
                                out_val,
                                out_idx,
                                n_rows,
                                m,
                                k,
                                smallest,
                                pow2: shape.pow2,
                                row_threads: shape.row_threads,
                                in_shared: i32::from(shape.in_shared),
                                parts: shape.parts,
                                merges: i32::from(shape.merges),
                                lengths,
                                k_per_row,
                            };
                            self.launch_step(f, step.grid, stream, params, what, follows)
                        }?,
                        // SAFETY: rtopk_sort_warp_rows_<W>, whose arguments are SortWarpParams's
                        // fields (the layout test); each row's lanes touch positions < k of their own
                        // row < n_rows and reads its row of x.
                        None => unsafe {
                            let params = SortWarpParams {
                                x,
                                out_val,
                                out_idx,
                                n_rows,
                                m,
                                k,
                                smallest,
                                lengths,
                                k_per_row,
                            };
                            self.launch_step(f, step.grid, stream, params, what, follows)
                        }?,
                    }
                }
                Kernel::Gather(g) => {
                    let params = GatherParams {
                        cand_idx: addr[g.candidates.0],
                        out_idx: addr[g.indices.0],
                        n_rows: g.n_rows,
                        k: g.k,
                        width: g.width,
                        chunk_m: g.chunk,
                        k_per_row: g.k_per_row.map_or(0, |id| addr[id.0]),
                    };
                    // SAFETY: rtopk_split_gather, whose arguments are GatherParams's fields (the
                    // layout test); it reads and writes out_idx[0 .. n k), reads
                    // cand_idx[row width + pos] with pos < width (a position the second stage
                    // wrote; padding is skipped) and, for a ragged split, k_per_row[0 .. n),
                    // within the buffers the program sizes and the caller's per-row array.
                    unsafe { self.launch_step(f, step.grid, stream, params, what, follows) }?;
                }
                Kernel::Radix(r) => {
                    let f =
                        self.radix_function(types.unit(step.unit), step.name, r.rows.is_some())?;
                    let sign = if program.launch.mode == Mode::Smallest { -1.0 } else { 1.0 };
                    let params = RadixParams {
                        x: at(&r.input),
                        out_val: at(&r.output),
                        out_idx: addr[r.indices.0] + r.output.offset * bytes(Content::Indices),
                        radix: addr[r.words.0],
                        cand: addr[r.candidates.0],
                        n_rows: r.n_rows,
                        ld: r.input.ld,
                        m: r.m,
                        k: r.k,
                        slice: r.slice,
                        blocks_per_row: r.blocks_per_row,
                        shift: r.shift,
                        bits: r.bits,
                        sign,
                        radix_ld: r.words_ld,
                        capacity: r.capacity,
                        lengths: r.rows.and_then(|a| a.lengths).map_or(0, |id| addr[id.0]),
                        k_per_row: r.rows.and_then(|a| a.k_per_row).map_or(0, |id| addr[id.0]),
                    };
                    // SAFETY: a radix entry point, whose arguments are RadixParams's fields (the
                    // layout test); block b of row r reads elements [b slice, (b + 1) slice) of
                    // its row of m within the input region, its row's words_ld words of the
                    // radix temporary (n_rows of them, sized above) and its row's 2 capacity
                    // words of the candidates (below the row's count of them), and writes k results of
                    // its row at the outputs' offset (rows of k), within the buffers the
                    // program sizes; a ragged row reads lengths[r] and k_per_row[r] (n_rows
                    // each, the caller's) and nothing of its row past its own length.
                    unsafe { self.launch_step(f, step.grid, stream, params, what, follows) }?;
                }
                Kernel::Threshold(t) => {
                    let params = threshold_params(program, &addr, t);
                    // SAFETY: rtopk_row_threshold, whose arguments are ThresholdParams's fields
                    // (the layout test); one warp per row reads positions < k of its row of the
                    // values (n k, the caller's) and the per-row arrays (n each), and writes
                    // threshold[row] (n f32, the caller's), within the buffers the program sizes.
                    unsafe { self.launch_step(f, step.grid, stream, params, what, follows) }?;
                }
            }
        }
        drop(temps); // freed on the stream, after the steps
        Ok(())
    }

    /// Lets the device's default memory pool keep the memory split rows free (its release
    /// threshold at the maximum), once: with the default threshold of 0 the pool returns it to
    /// the driver at every synchronisation, and the next split row maps it again, which takes
    /// the host milliseconds (CUDA Programming Guide, "Stream Ordered Memory Allocator",
    /// physical page caching behaviour). The pool is the device's: other users of
    /// `cudaMallocAsync` on it keep their freed memory too.
    fn keep_pool(&self) -> Result<(), CudaError> {
        if self.pool_kept.get().is_some() {
            return Ok(());
        }
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: an out-pointer to a pool handle and this context's device.
        unsafe { sys::cuDeviceGetDefaultMemPool(&raw mut pool, self.ctx.cu_device()) }
            .result()
            .map_err(driver("reading the device's memory pool"))?;
        let mut keep = u64::MAX;
        // SAFETY: a pool handle of this device, an attribute that takes a u64, and a pointer to
        // one.
        unsafe {
            sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&raw mut keep).cast(),
            )
        }
        .result()
        .map_err(driver("keeping the memory pool's memory"))?;
        let _ = self.pool_kept.set(());
        Ok(())
    }

    /// Launches `f` on `stream` with `params` as its parameter buffer (the driver takes
    /// [`KernelParams::END`] bytes of it) and `grid`'s blocks, threads and dynamic shared
    /// memory; `what` names the launch in errors. Every launch of the crate goes through
    /// [`CudaTopK::launch_step`]; this one waits for all that the stream queued before it.
    ///
    /// # Safety
    /// `P` must lay out `f`'s arguments (in order, at their natural alignment), and every
    /// pointer in it must be valid for what `f` does with the grid until the work on `stream`
    /// completes; `stream` must be a stream of this device's context.
    pub(crate) unsafe fn launch<P: KernelParams>(
        &self,
        f: &CudaFunction,
        grid: Grid,
        stream: sys::CUstream,
        params: P,
        what: &'static str,
    ) -> Result<(), CudaError> {
        // SAFETY: the caller's contract is this function's.
        unsafe { self.launch_step(f, grid, stream, params, what, false) }
    }

    /// [`CudaTopK::launch`] of a program's step; `follows` where the step comes after another
    /// step of the same program, queued just before it on `stream`. Such a step launches with
    /// programmatic stream serialisation where its kernels wait for it (compute capability 9.0
    /// and newer, `Target::waits_for_previous_step`): its blocks may be scheduled as the
    /// previous step's blocks finish, and its entry point's first statement,
    /// `griddepcontrol.wait` (`wait_for_previous_step`, kernels/common.cuh), holds them until
    /// that step has ended and its writes are visible (CUDA Programming Guide, "Programmatic
    /// Dependent Launch and Synchronization"). That saves part of the gap between dependent
    /// steps (docs/kernel.md and docs/performance.md, "Steps in flight").
    ///
    /// # Safety
    /// As [`CudaTopK::launch`]; with `follows`, `f` must be one of the crate's step entry
    /// points, compiled from this build's sources (every one waits first: kernels.rs's test).
    pub(crate) unsafe fn launch_step<P: KernelParams>(
        &self,
        f: &CudaFunction,
        grid: Grid,
        stream: sys::CUstream,
        params: P,
        what: &'static str,
        follows: bool,
    ) -> Result<(), CudaError> {
        self.ctx.bind_to_thread().map_err(driver("binding the context"))?;
        let mut params = params;
        let mut size = P::END;
        let mut extra: [*mut c_void; 5] = [
            std::ptr::without_provenance_mut(sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize),
            (&raw mut params).cast(),
            std::ptr::without_provenance_mut(sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize),
            (&raw mut size).cast(),
            std::ptr::without_provenance_mut(sys::CU_LAUNCH_PARAM_END_AS_INT as usize),
        ];
        let programmatic = follows && self.target.waits_for_previous_step();
        if programmatic || grid.cluster > 1 {
            // SAFETY: as below; the programmatic attribute only lets the step's blocks start
            // before the previous step ends, and each waits for it first (this function's
            // contract); a cluster step's grid is whole clusters (the plan's).
            return unsafe { launch_ex(f, grid, stream, &mut extra, programmatic) }
                .map_err(driver(what));
        }
        // SAFETY: `f` is an entry point of a loaded module of this context (bound above); the
        // caller vouches for the parameter buffer's layout and pointers, and END is within it;
        // `extra` and what it points to outlive the call, which copies them.
        unsafe {
            sys::cuLaunchKernel(
                f.cu_function(),
                grid.blocks,
                1,
                1,
                grid.threads,
                1,
                1,
                grid.shared_bytes,
                stream,
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        }
        .result()
        .map_err(driver(what))
    }

    /// Queues `spin_ahead(ns)` (a one-thread kernel that runs for `ns` nanoseconds).
    pub(crate) fn launch_spin(&self, ns: u64) -> Result<(), CudaError> {
        let f = self.utility("spin_ahead")?;
        let grid = Grid { blocks: 1, threads: 1, shared_bytes: 0, cluster: 1 };
        // SAFETY: spin_ahead(u64) takes one integer (SpinParams) and touches no memory; the
        // stream is this device's.
        unsafe { self.launch(f, grid, self.stream.cu_stream(), SpinParams { ns }, "spin_ahead") }
    }
}

/// Bytes per element of a program buffer of `content`, for data of `types`: the launch's
/// element type (1 to 8 bytes: an f64 or i64 value is 8), its index type, or 4 for the
/// iteration counts and the per-row arrays.
fn content_bytes(types: DataTypes, content: Content) -> u64 {
    match content {
        Content::Values => types.elem.bytes() as u64,
        Content::Indices => types.index.bytes() as u64,
        Content::Iterations
        | Content::Lengths
        | Content::KPerRow
        | Content::Hint
        | Content::Threshold
        | Content::Floor
        | Content::Radix
        | Content::RadixCandidates => 4,
    }
}

/// The address of each buffer of `program` that the caller gives (`bufs`: the input, the
/// outputs, the iteration counts, the per-row arrays — lengths, k per row and hints read, the
/// thresholds written, whatever the element type), 0 for the rest (the temporaries, which
/// [`CudaTopK::run_program`] allocates, and the arrays the program has none of).
fn caller_addresses(program: &Program, bufs: RawBuffers) -> Vec<u64> {
    let mut addr = vec![0u64; program.buffers.len()];
    addr[INPUT.0] = bufs.x;
    addr[VALUES.0] = bufs.values;
    addr[INDICES.0] = bufs.indices;
    if let Some(it) = program.iterations() {
        addr[it.0] = bufs.iterations;
    }
    for (i, b) in program.buffers.iter().enumerate() {
        match b.content {
            Content::Lengths => addr[i] = bufs.lengths,
            Content::KPerRow => addr[i] = bufs.k_per_row,
            Content::Hint => addr[i] = bufs.hint,
            Content::Threshold => addr[i] = bufs.threshold,
            _ => {}
        }
    }
    addr
}

/// The [`ThresholdParams`] of the threshold step `t` of `program` whose buffers lie at `addr`:
/// the values output it reads (of the launch's element type, the 64-bit ones too: the unit is
/// the element type's, `Unit::threshold(elem)`), the thresholds it writes (f32), the rows' own
/// lengths and k where the request has them.
fn threshold_params(program: &Program, addr: &[u64], t: &Threshold) -> ThresholdParams {
    let ptr = |id: Option<BufferId>| id.map_or(0, |id| addr[id.0]);
    let (lengths, k_per_row) = t.rows.map_or((0, 0), |r| (ptr(r.lengths), ptr(r.k_per_row)));
    ThresholdParams {
        values: addr[t.values.0],
        threshold: addr[t.threshold.0],
        n_rows: t.n_rows,
        m: t.m,
        k: t.k,
        smallest: i32::from(program.launch.mode == Mode::Smallest),
        warps_per_row: t.warps_per_row,
        lanes_per_row: t.lanes_per_row,
        lengths,
        k_per_row,
    }
}

/// The [`Params`] of one select step of `program` whose buffers lie at `addr` (one address per
/// program buffer, 0 where the launch has none) for data of `types`: every family's select
/// takes the same struct. The regions' element offsets become byte addresses at the size of
/// their buffers' elements; 16-byte loads only where the step allows them and its input starts
/// 16-byte aligned; `sorted` where the step's kernel writes sorted output itself (pick rows and
/// the 64-bit wide rows: no sort step follows them).
fn select_params(program: &Program, types: DataTypes, addr: &[u64], sel: &Select) -> Params {
    let bytes = |c: Content| content_bytes(types, c);
    let at = |r: &Region| addr[r.buffer.0] + r.offset * bytes(program.buffer(r.buffer).content);
    let ptr = |id: Option<BufferId>| id.map_or(0, |id| addr[id.0]);
    // the step's per-row arrays (docs/contract.md §5): null where it reads none
    let (lengths, k_per_row) = sel.rows.map_or((0, 0), |r| (ptr(r.lengths), ptr(r.k_per_row)));
    let Launch { mode, bisect, .. } = program.launch;
    let smallest = i32::from(mode == Mode::Smallest);
    let x = at(&sel.input);
    Params {
        x,
        out_val: at(&sel.output),
        out_idx: addr[sel.indices.0] + sel.output.offset * bytes(Content::Indices),
        out_iter: ptr(sel.iterations),
        n_rows: sel.n_rows,
        m: sel.m,
        k: sel.k,
        smallest,
        max_iter: bisect.max_iter.map_or(-1, |it| it.min(i32::MAX as u32) as i32),
        precision: bisect.precision,
        cached_keys: sel.plan.cached_keys,
        vec4: i32::from(sel.vec4 && x % 16 == 0),
        sign: if smallest == 1 { -1.0 } else { 1.0 },
        ld: sel.input.ld,
        out_ld: sel.output.ld as u32, // < 2^32: the plan checked
        chunks: sel.chunks,
        lengths,
        k_per_row,
        hint: ptr(sel.rows.and_then(|r| r.hint)),
        split_m: sel.split_rows().map_or(0, |s| s.row_m),
        split_chunk: sel.split_rows().map_or(0, |s| s.chunk),
        recall: bisect.recall.unwrap_or(0.0),
        sorted: i32::from(sel.sorted),
        value_bins: u32::from(sel.plan.value_bins),
        floor: ptr(sel.floor),
    }
}

/// Whether the CUDA driver library can be loaded (before cudarc touches it: cudarc panics when
/// it is missing).
pub(crate) fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the driver library by its candidate names and drops it.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Device memory from the stream-ordered allocator, freed on `stream` when dropped (after the
/// work queued before the drop).
struct StreamTemp {
    ptr: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl StreamTemp {
    /// `bytes` on `stream`.
    ///
    /// # Safety
    /// The device's context must be bound to this thread and `stream` be one of its streams.
    unsafe fn new(bytes: usize, stream: sys::CUstream) -> Result<Self, CudaError> {
        // SAFETY: the caller's context and stream.
        let ptr = unsafe { cudarc::driver::result::malloc_async(stream, bytes.max(1)) }
            .map_err(driver("allocating the split rows' candidates"))?;
        Ok(Self { ptr, stream })
    }
}

impl Drop for StreamTemp {
    fn drop(&mut self) {
        // SAFETY: memory of malloc_async on this stream, freed once, after the work queued
        // on the stream before this point; an error (a lost context) leaves nothing to free.
        let _ = unsafe { cudarc::driver::result::free_async(self.ptr, self.stream) };
    }
}

/// Checks the device buffers' lengths against the launch.
fn check_buffers(
    l: &Launch,
    x: usize,
    val: usize,
    idx: usize,
    it: Option<usize>,
) -> Result<(), CudaError> {
    let need = |what: &str, have: usize, want: usize| {
        if have < want {
            Err(CudaError::TopK(TopKError::InvalidParameter {
                name: "buffer",
                reason: format!("{what} holds {have} elements, the launch needs {want}"),
            }))
        } else {
            Ok(())
        }
    };
    let too_large = |why| CudaError::TooLarge { n: l.n, m: l.m, why };
    let nm = l.n.checked_mul(l.m).ok_or_else(|| too_large("n * m"))?;
    let nk = l.n.checked_mul(l.k).ok_or_else(|| too_large("n * k"))?;
    need("the input", x, nm)?;
    need("the values output", val, nk)?;
    need("the indices output", idx, nk)?;
    match it {
        Some(it) => need("the iterations output", it, l.n),
        None => Ok(()),
    }
}

/// Lets the cluster kernel `f` launch in clusters past the portable size (the plan's
/// `WIDE_CLUSTER` blocks, on devices whose `max_cluster` says they launch them; CUDA Driver API,
/// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`).
fn allow_wide_clusters(f: &CudaFunction) -> Result<(), CudaError> {
    // SAFETY: a valid function handle of a loaded module and a valid attribute and value.
    unsafe {
        cudarc::driver::result::function::set_function_attribute(
            f.cu_function(),
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1,
        )
    }
    .map_err(driver("allowing the cluster kernel clusters of more than 8 blocks"))
}

/// A stream handle a framework gave as an integer: its provenance is the driver's.
fn raw_stream(stream: u64) -> sys::CUstream {
    std::ptr::with_exposed_provenance_mut(stream as usize)
}

/// `cuLaunchKernelEx` of `f` with `extra` as its parameters, in clusters of `grid.cluster`
/// blocks where that is more than 1, and with programmatic stream serialisation allowed where
/// `programmatic` ([`CudaTopK::launch_step`]).
///
/// # Safety
/// As `cuLaunchKernel` of the same arguments (the context bound, `extra` valid for the call);
/// with `programmatic`, `f` waits for the previous step before its first memory access.
unsafe fn launch_ex(
    f: &CudaFunction,
    grid: Grid,
    stream: sys::CUstream,
    extra: &mut [*mut c_void; 5],
    programmatic: bool,
) -> Result<(), cudarc::driver::DriverError> {
    // SAFETY: an all-zero launch attribute value is a valid union (plain integers and pads).
    let zero = || -> sys::CUlaunchAttributeValue { unsafe { std::mem::zeroed() } };
    let mut attrs = Vec::with_capacity(2);
    if programmatic {
        let mut value = zero();
        value.programmaticStreamSerializationAllowed = 1;
        let id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attrs.push(sys::CUlaunchAttribute { id, pad: [0; 4], value });
    }
    if grid.cluster > 1 {
        let mut value = zero();
        value.clusterDim.x = grid.cluster;
        value.clusterDim.y = 1;
        value.clusterDim.z = 1;
        let id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs.push(sys::CUlaunchAttribute { id, pad: [0; 4], value });
    }
    let config = sys::CUlaunchConfig {
        gridDimX: grid.blocks,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: grid.threads,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: grid.shared_bytes,
        hStream: stream,
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    };
    // SAFETY: `config` and the attributes it points to outlive the call, which copies them;
    // the rest is the caller's contract.
    unsafe {
        sys::cuLaunchKernelEx(
            &raw const config,
            f.cu_function(),
            std::ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    }
    .result()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// `(name, offset)` of each field of the Rust Params, in order.
    fn rust_layout() -> Vec<(&'static str, usize)> {
        vec![
            ("x", offset_of!(Params, x)),
            ("out_val", offset_of!(Params, out_val)),
            ("out_idx", offset_of!(Params, out_idx)),
            ("out_iter", offset_of!(Params, out_iter)),
            ("n_rows", offset_of!(Params, n_rows)),
            ("m", offset_of!(Params, m)),
            ("k", offset_of!(Params, k)),
            ("smallest", offset_of!(Params, smallest)),
            ("max_iter", offset_of!(Params, max_iter)),
            ("precision", offset_of!(Params, precision)),
            ("cached_keys", offset_of!(Params, cached_keys)),
            ("vec4", offset_of!(Params, vec4)),
            ("sign", offset_of!(Params, sign)),
            ("ld", offset_of!(Params, ld)),
            ("out_ld", offset_of!(Params, out_ld)),
            ("chunks", offset_of!(Params, chunks)),
            ("lengths", offset_of!(Params, lengths)),
            ("k_per_row", offset_of!(Params, k_per_row)),
            ("hint", offset_of!(Params, hint)),
            ("split_m", offset_of!(Params, split_m)),
            ("split_chunk", offset_of!(Params, split_chunk)),
            ("recall", offset_of!(Params, recall)),
            ("sorted", offset_of!(Params, sorted)),
            ("value_bins", offset_of!(Params, value_bins)),
            ("floor", offset_of!(Params, floor)),
        ]
    }

    /// The kernel's `struct Params` fields and RTOPK_ARGS / RTOPK_PARAMS, as written in
    /// kernels/common.cuh.
    fn kernel_text() -> String {
        crate::kernels::KernelFiles::embedded()
            .iter()
            .find(|(n, _)| *n == "common.cuh")
            .map(|(_, t)| t.to_string())
            .unwrap()
    }

    /// The static_assert lines of kernels/common.cuh pin the entry points' arguments at the
    /// Rust struct's offsets, and the kernel's Params at its size.
    #[test]
    fn params_layout_matches_the_kernels_static_asserts() {
        let text = kernel_text();
        let size = format!("static_assert(sizeof(Params) == {}, ", size_of::<Params>());
        assert!(text.contains(&size), "kernels/common.cuh lacks {size:?}");
        let asserted = text.matches("static_assert(RtopkArgs::offset<").count();
        assert_eq!(asserted, rust_layout().len(), "one offset line per field");
        for (i, (field, offset)) in rust_layout().into_iter().enumerate() {
            let line = format!("static_assert(RtopkArgs::offset<{i}>() == {offset}, \"{field}\");");
            assert!(text.contains(&line), "kernels/common.cuh lacks {line:?}");
        }
    }

    /// The entry points' arguments (RTOPK_ARGS) are Params's fields in order, with their
    /// types, and RTOPK_PARAMS gathers them in that order: so the arguments lie where the
    /// fields do.
    #[test]
    fn entry_arguments_are_the_params_fields_in_order() {
        let text = kernel_text();
        let body = |start: &str, end: &str| {
            let from = text.find(start).unwrap() + start.len();
            let to = from + text[from..].find(end).unwrap();
            text[from..to].replace('\\', " ")
        };
        let fields: Vec<String> = body("struct Params {", "};")
            .lines()
            .filter_map(|l| l.split("//").next())
            .filter(|l| l.contains(';'))
            .map(|l| {
                l.trim().trim_end_matches(';').split_whitespace().collect::<Vec<_>>().join(" ")
            })
            .collect();
        let args: Vec<String> = body("#define RTOPK_ARGS", "\n#define")
            .split(',')
            .map(|a| a.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(fields, args);
        let names: Vec<&str> = rust_layout().iter().map(|(n, _)| *n).collect();
        let arg_names: Vec<String> = args
            .iter()
            .map(|a| a.rsplit(' ').next().unwrap().trim_start_matches('*').into())
            .collect();
        assert_eq!(arg_names, names);
        let gathered = body("Params{", "}");
        let gathered: Vec<&str> = gathered.split(',').map(str::trim).collect();
        assert_eq!(gathered, names);
        assert_eq!(size_of::<Params>(), 144);
        // the launcher passes the struct up to its last field (a padded tail is more than the
        // entry point takes: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        let (offset, size) = *params_layout().last().unwrap();
        assert_eq!(offset + size, Params::END, "END is where the last field ends");
    }

    /// The text of kernel file `name`.
    fn file_text(name: &str) -> String {
        crate::kernels::KernelFiles::embedded()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.to_string())
            .unwrap_or_else(|| panic!("no kernels/{name}"))
    }

    /// The `(type, name)` of each argument in `file` from `start` to the closing `)` (or the
    /// end of a `#define`'s line).
    fn c_arguments(file: &str, start: &str) -> Vec<(String, String)> {
        let text = file_text(file);
        let from = text.find(start).unwrap_or_else(|| panic!("{start} in {file}")) + start.len();
        let rest = &text[from..];
        let to = if start.starts_with("#define") {
            // the macro's logical line: up to a newline not continued by a backslash
            let b = rest.as_bytes();
            (0..b.len())
                .find(|&i| b[i] == b'\n' && i > 0 && b[i - 1] != b'\\' && i > 2)
                .unwrap_or(b.len())
        } else {
            rest.find(')').expect("the argument list's end")
        };
        rest[..to]
            .replace('\\', " ")
            .split(',')
            .map(|a| {
                let words: Vec<&str> = a.split_whitespace().collect();
                let (name, ty) = words.split_last().expect("an argument");
                let stars = name.matches('*').count();
                let ty = format!("{}{}", ty.join(" "), "*".repeat(stars));
                (ty, name.trim_start_matches('*').to_string())
            })
            .collect()
    }

    /// `(name, offset)` of each argument at its natural alignment, and where the last ends.
    fn natural_layout(args: &[(String, String)]) -> (Vec<(String, usize)>, usize) {
        let mut at = 0usize;
        let mut out = Vec::new();
        for (ty, name) in args {
            let size = if ty.ends_with('*') || ty == "u64" {
                8
            } else {
                assert!(["u32", "int", "float"].contains(&ty.as_str()), "type {ty}");
                4
            };
            at = at.next_multiple_of(size);
            out.push((name.clone(), at));
            at += size;
        }
        (out, at)
    }

    /// Each parameter struct but Params (whose twin is common.cuh's, checked above) lays out
    /// its entry point's arguments as the kernel's source lists them: names, order, offsets,
    /// and the end the driver takes.
    #[test]
    fn every_parameter_struct_matches_its_entry_points_arguments() {
        macro_rules! fields {
            ($t:ty: $($f:ident),*) => {
                vec![$((stringify!($f).to_string(), offset_of!($t, $f))),*]
            };
        }
        let cases = [
            (
                c_arguments("sort_warp_rows.cu", "#define SORT_WARP_ARGS"),
                fields!(
                    SortWarpParams: x, out_val, out_idx, n_rows, m, k, smallest, lengths,
                    k_per_row
                ),
                SortWarpParams::END,
            ),
            (
                c_arguments("sort_rows.cu", "rtopk_sort_rows("),
                fields!(
                    SortRowsParams: x, out_val, out_idx, n_rows, m, k, smallest, pow2,
                    row_threads, in_shared, parts, merges, lengths, k_per_row
                ),
                SortRowsParams::END,
            ),
            (
                c_arguments("split_rows.cu", "rtopk_split_gather("),
                fields!(GatherParams: cand_idx, out_idx, n_rows, k, width, chunk_m, k_per_row),
                GatherParams::END,
            ),
            (
                c_arguments("threshold.cu", "rtopk_row_threshold("),
                fields!(
                    ThresholdParams: values, threshold, n_rows, m, k, smallest, warps_per_row,
                    lanes_per_row, lengths, k_per_row
                ),
                ThresholdParams::END,
            ),
            (
                c_arguments("grouped_rows.cu", "#define GROUPED_ARGS"),
                fields!(
                    crate::grouped::GroupedParams: x, out_val, out_idx, n_rows, m, k, groups,
                    top_groups, sum2
                ),
                crate::grouped::GroupedParams::END,
            ),
            (
                c_arguments("radix_rows.cu", "#define RADIX_ARGS"),
                fields!(
                    RadixParams: x, out_val, out_idx, radix, cand, n_rows, ld, m, k, slice,
                    blocks_per_row, shift, bits, sign, radix_ld, capacity, lengths, k_per_row
                ),
                RadixParams::END,
            ),
            (c_arguments("utilities.cu", "spin_ahead("), fields!(SpinParams: ns), SpinParams::END),
            (
                c_arguments("utilities.cu", "per_row_words("),
                fields!(PerRowWordsParams: entries, words, n, bound),
                PerRowWordsParams::END,
            ),
        ];
        for (args, rust, end) in cases {
            let (layout, last) = natural_layout(&args);
            assert_eq!(layout, rust, "{args:?}");
            assert_eq!(last, end, "{args:?}");
        }
        assert_eq!(Params::END, size_of::<Params>(), "the last field ends the struct: no tail");
    }

    /// A 64-bit launch is one select step of the wide rows, whatever its shape, counts or
    /// order, and runs as pick rows' programs do: that step's [`Params`] carry the launch's
    /// order (`sorted`: the kernel sorts its own results, no sort step follows), 8-byte values
    /// (the outputs' row `r` at `8 k r` bytes past the values' address), the indices at their
    /// own width, and 16-byte loads only for rows of whole 16-byte groups (two elements) from
    /// a 16-byte aligned input.
    #[test]
    fn a_64_bit_program_is_one_wide_select_whose_params_carry_the_order() {
        let limits = rtopk_plan::DeviceLimits::preset("h100").unwrap();
        for elem in ElemType::WIDE {
            for (n, m, k) in [(5, 300, 7), (3, 1 << 20, 2000), (9, 33, 33), (1, 1, 1)] {
                for (sorted, counts, smallest) in [(true, false, false), (false, true, true)] {
                    let mode = if smallest { Mode::Smallest } else { Mode::Largest };
                    let bisect = topk_ref::Bisect::exact();
                    let launch = Launch { n, m, k, mode, bisect, sorted, elem };
                    let p = rtopk_plan::program(&launch, &limits, Strategy::Auto, counts).unwrap();
                    let what = format!("{elem:?} ({n}, {m}) k={k} sorted={sorted}");
                    assert_eq!(p.steps.len(), 1, "{what}: one step");
                    assert_eq!(p.steps[0].unit.family(), Family::WideRows, "{what}");
                    let Kernel::Select(sel) = &p.steps[0].kernel else { panic!("{what}") };
                    for index in [IndexType::U32, IndexType::I64] {
                        let types = DataTypes { elem, index };
                        let (x, values, indices) = (0x1000_0000, 0x2000_0000, 0x3000_0000);
                        let mut addr = vec![0u64; p.buffers.len()];
                        addr[INPUT.0] = x;
                        addr[VALUES.0] = values;
                        addr[INDICES.0] = indices;
                        let params = select_params(&p, types, &addr, sel);
                        assert_eq!(params.sorted, i32::from(sorted), "{what}");
                        assert_eq!(
                            (params.x, params.out_val, params.out_idx),
                            (x, values, indices)
                        );
                        assert_eq!(
                            (params.n_rows, params.m, params.k),
                            (n as u64, m as u32, k as u32)
                        );
                        assert_eq!((params.ld, u64::from(params.out_ld)), (m as u64, k as u64));
                        assert_eq!(params.vec4, i32::from(m % 2 == 0), "{what}: 16-byte loads");
                        assert_eq!(
                            (params.smallest, params.sign),
                            (i32::from(smallest), if smallest { -1.0 } else { 1.0 })
                        );
                        assert_eq!((params.lengths, params.k_per_row, params.hint), (0, 0, 0));
                        assert_eq!((params.split_m, params.split_chunk, params.chunks), (0, 0, 1));
                        let misaligned = addr.iter().map(|&a| if a == x { x + 8 } else { a });
                        let params = select_params(&p, types, &misaligned.collect::<Vec<_>>(), sel);
                        assert_eq!(params.vec4, 0, "{what}: an input 8 bytes off 16");
                        assert_eq!(content_bytes(types, Content::Values), 8);
                        assert_eq!(content_bytes(types, Content::Indices), index.bytes() as u64);
                    }
                }
            }
        }
    }

    /// A ragged 64-bit launch runs as a 32-bit one does: the wide rows' ragged twin reads the
    /// caller's lengths, k per row and hints (the select's [`Params`] point at them, null where
    /// the request has none), and where thresholds are wanted the 64-bit threshold unit
    /// (`Unit::threshold(elem)`, a unit of the catalog) reads the values output (8-byte
    /// elements) with the same lengths and k and writes the caller's thresholds. Hints and
    /// thresholds are f32 whatever the element type; no temporaries (the rows are never split).
    #[test]
    fn a_ragged_64_bit_program_passes_every_per_row_array() {
        let limits = rtopk_plan::DeviceLimits::preset("h100").unwrap();
        let catalog = Unit::all();
        let none = Ragged::default();
        let all = Ragged { lengths: true, k_per_row: true, hint: true, threshold: true };
        let raggeds = [
            all,
            Ragged { lengths: true, ..none },
            Ragged { k_per_row: true, ..none },
            Ragged { hint: true, ..none },
            Ragged { threshold: true, ..none },
            Ragged { lengths: true, threshold: true, ..none },
        ];
        let mut checked = 0;
        for elem in ElemType::WIDE {
            for (n, m, k) in [(5, 300, 7), (3, 5000, 40), (1, 1, 1), (9, 33, 33)] {
                for (ragged, counts) in raggeds.iter().flat_map(|&r| [(r, false), (r, true)]) {
                    let mode = if counts { Mode::Smallest } else { Mode::Largest };
                    let bisect = topk_ref::Bisect::exact();
                    let launch = Launch { n, m, k, mode, bisect, sorted: counts, elem };
                    let what = format!("{elem:?} ({n}, {m}) k={k} {ragged:?} counts={counts}");
                    let p = rtopk_plan::program_ragged(
                        &launch,
                        &limits,
                        Strategy::Auto,
                        counts,
                        ragged,
                    )
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(p.temporaries().count(), 0, "{what}");
                    assert_eq!(p.steps.len(), 1 + usize::from(ragged.threshold), "{what}");
                    let on = |on: bool, at: u64| if on { at } else { 0 };
                    let bufs = RawBuffers {
                        x: 0x1000_0000,
                        values: 0x2000_0000,
                        indices: 0x3000_0000,
                        iterations: on(counts, 0x4000_0000),
                        lengths: on(ragged.lengths, 0x5000_0000),
                        k_per_row: on(ragged.k_per_row, 0x6000_0000),
                        hint: on(ragged.hint, 0x7000_0000),
                        threshold: on(ragged.threshold, 0x8000_0000),
                    };
                    let addr = caller_addresses(&p, bufs);
                    for index in [IndexType::U32, IndexType::I64] {
                        let types = DataTypes { elem, index };
                        for step in &p.steps {
                            let unit = types.unit(step.unit);
                            assert!(catalog.contains(&unit), "{what}: {unit} is a unit");
                            assert_eq!(unit.elem_type(), elem, "{what}");
                        }
                        let select = types.unit(p.steps[0].unit);
                        assert_eq!(select.family(), Family::WideRows, "{what}");
                        assert_eq!(select.is_ragged(), ragged.any(), "{what}");
                        let Kernel::Select(sel) = &p.steps[0].kernel else { panic!("{what}") };
                        let params = select_params(&p, types, &addr, sel);
                        assert_eq!(
                            (params.x, params.out_val, params.out_idx, params.out_iter),
                            (bufs.x, bufs.values, bufs.indices, bufs.iterations),
                            "{what}"
                        );
                        assert_eq!(
                            (params.lengths, params.k_per_row, params.hint),
                            (bufs.lengths, bufs.k_per_row, bufs.hint),
                            "{what}"
                        );
                        assert_eq!(
                            (params.n_rows, params.m, params.k),
                            (n as u64, m as u32, k as u32)
                        );
                        assert_eq!(params.sorted, i32::from(counts), "{what}");
                        assert_eq!(params.smallest, i32::from(counts), "{what}");
                        assert_eq!(content_bytes(types, Content::Values), 8);
                        assert_eq!(content_bytes(types, Content::Hint), 4, "f32 hints");
                        assert_eq!(content_bytes(types, Content::Threshold), 4, "f32 thresholds");
                        if !ragged.threshold {
                            continue;
                        }
                        let last = p.steps.last().unwrap();
                        assert_eq!(types.unit(last.unit), Unit::threshold(elem), "{what}");
                        let Kernel::Threshold(t) = &last.kernel else { panic!("{what}") };
                        let params = threshold_params(&p, &addr, t);
                        assert_eq!(
                            (params.values, params.threshold),
                            (bufs.values, bufs.threshold),
                            "{what}"
                        );
                        assert_eq!(
                            (params.lengths, params.k_per_row),
                            (bufs.lengths, bufs.k_per_row),
                            "{what}"
                        );
                        assert_eq!(
                            (params.n_rows, params.m, params.k),
                            (n as u64, m as u32, k as u32)
                        );
                        assert_eq!(params.smallest, i32::from(counts), "{what}");
                        checked += 1;
                    }
                }
            }
        }
        // 2 types x 4 shapes x 3 arrays with thresholds x 2 counts x 2 index types
        assert_eq!(checked, 96);
    }

    #[test]
    fn buffers_too_short_or_shapes_too_large_are_errors() {
        let l = Launch {
            n: 4,
            m: 10,
            k: 3,
            mode: Mode::Largest,
            bisect: topk_ref::Bisect::exact(),
            sorted: false,
            elem: ElemType::F32,
        };
        assert!(check_buffers(&l, 40, 12, 12, Some(4)).is_ok());
        assert!(check_buffers(&l, 40, 12, 12, None).is_ok());
        for (x, v, i, it) in [(39, 12, 12, 4), (40, 11, 12, 4), (40, 12, 11, 4), (40, 12, 12, 3)] {
            assert!(matches!(check_buffers(&l, x, v, i, Some(it)), Err(CudaError::TopK(_))));
        }
        let huge = Launch { n: usize::MAX / 2, ..l };
        assert!(matches!(check_buffers(&huge, 0, 0, 0, None), Err(CudaError::TooLarge { .. })));
    }

    /// The `.param` declarations of `entry` in `ptx`, as (offset, size) at their natural
    /// alignment: where the driver puts the arguments in the parameter buffer.
    fn param_layout(ptx: &str, entry: &str) -> Vec<(usize, usize)> {
        let start = ptx.find(&format!(".entry {entry}(")).expect("entry in the PTX");
        let end = start + ptx[start..].find(')').expect("end of the parameters");
        let mut offset = 0usize;
        ptx[start..end]
            .lines()
            .filter(|l| l.contains(".param"))
            .map(|l| {
                let size = if l.contains(".u64") || l.contains(".b64") { 8 } else { 4 };
                offset = offset.next_multiple_of(size);
                let at = offset;
                offset += size;
                (at, size)
            })
            .collect()
    }

    /// Bytes of static shared memory `ptx` declares (arrays of `.shared`, not `.extern`).
    fn static_shared(ptx: &str) -> usize {
        ptx.lines()
            .filter(|l| l.trim_start().starts_with(".shared"))
            .map(|l| {
                let size = l.rsplit('[').next().and_then(|r| r.split(']').next());
                size.and_then(|s| s.parse::<usize>().ok()).expect("a sized .shared array")
            })
            .sum()
    }

    /// Every unit's generated source compiles with NVRTC (to PTX, no GPU needed); each entry
    /// point but the utilities takes its arguments where its parameter struct puts them; the block
    /// kernels' static shared memory is what the launch plan assumes.
    #[test]
    #[cfg_attr(not(rtopk_nvrtc), ignore = "needs NVRTC")]
    fn every_unit_compiles_with_nvrtc() {
        use crate::compile::{Target, compile};
        use crate::kernels::{BLOCK_STATIC_SHARED, Family, KernelFiles, Unit, UnitSource};
        crate::check_nvrtc().expect("NVRTC was found at build time: it must load");
        let files = KernelFiles::embedded();
        let target = Target::named("compute_90", true);
        let units = Unit::all();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let ptx = Mutex::new(vec![String::new(); units.len()]);
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(unit) = units.get(i) else { break };
                        let source = unit.source(&files).unwrap();
                        let image = compile(&unit.to_string(), &source, &target)
                            .unwrap_or_else(|e| panic!("{unit}: {e}"));
                        let text = String::from_utf8_lossy(&image).trim_end_matches('\0').into();
                        ptx.lock().unwrap()[i] = text;
                    }
                });
            }
        });
        let ptx = ptx.into_inner().unwrap();
        for (unit, ptx) in units.iter().zip(&ptx) {
            assert!(ptx.contains(".target sm_90"), "{unit}");
            for entry in unit.entry_points() {
                assert!(ptx.contains(&format!(".entry {entry}(")), "{unit}: no {entry}");
            }
            // each entry point takes its arguments where its parameter struct puts them
            if let Some(layout) = family_layout(unit.family()) {
                for entry in unit.entry_points() {
                    assert_eq!(param_layout(ptx, &entry), layout, "{unit}");
                }
            }
            if matches!(
                unit.family(),
                Family::BlockRows
                    | Family::BlockRowsNarrow
                    | Family::ClusterRows
                    | Family::ClusterRowsNarrow
            ) {
                // each entry point (the floor's and the hints' too) declares its own
                let entries = unit.entry_points().len();
                assert_eq!(static_shared(ptx), BLOCK_STATIC_SHARED * entries, "{unit}");
            }
        }
    }
}
