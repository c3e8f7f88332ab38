//! The launch plan: which kernel runs a launch, in what grid, with what shared memory, and how
//! its results are sorted — a pure function of the shape, the search, the device's limits and
//! the caller's [`Strategy`], so that every regime is tested on the CPU. It lives in the
//! `rtopk-plan` crate, which the warp simulator follows too (`--algo sim` and `--algo cuda`
//! take the same plan for a shape); here it is re-exported, its errors become [`CudaError`]s,
//! and the limits are read from the device ([`QueryLimits`]).
//!
//! The default ([`Strategy::Auto`]), by row width M (and k):
//! * `M <= 256`: four rows per warp (8 lanes each) when `k <= M / 4` and there are at least
//!   1024 rows per SM, else two (16 lanes each). Four rows share the bracket arithmetic, but
//!   each lane holds twice the keys of a half-warp's and the four rows' selections serialise,
//!   so larger k, and inputs too small to fill the SMs many times over, are faster with two
//!   rows per warp.
//! * `M <= 1024`, and `M <= 3072` when `k <= M / 8`: one warp per row (up to 96 keys per
//!   lane). Wider rows, and rows past 1024 with more results, go to the block kernel: one warp
//!   serialises the selection of many results, and at M = 4096 one warp with 128 keys per lane
//!   was no faster than the block kernel.
//! * otherwise one block of ⌈M/32⌉ threads (64 to 1024) per row, 32 keys per thread in
//!   registers, the rest in shared memory as far as the device's opt-in limit allows (re-keyed
//!   from the input beyond that). In exact mode with `k < 512` a block row of
//!   `3073 <= M <= 8192` (4 to 8 warps) narrows to its candidates (`rtopk_block_rows_narrow`).
//!
//! A warp-row kernel picks the narrowest instantiation that holds the row: ⌈M / lanes⌉ keys per
//! lane. Whole-warp rows of 12 to 32 keys per lane narrow in exact mode when `k < 128`
//! (docs/kernel.md, "Narrowing"). Sorted output is a second launch: one warp per row in
//! registers for `k <= 1024`, one block per row beyond.

pub use rtopk_plan::plan::BLOCK_NARROW_ROWS;
pub use rtopk_plan::plan::{
    DeviceLimits, Launch, MAX_BLOCK_FREE_ROW, MAX_HALF_WARP_ROW, MAX_QUARTER_WARP_ROW,
    MAX_WARP_ROW, Plan, QUARTER_ROWS_PER_SM, SORT_SHARED_MAX, SortPlan, SortShape, Strategy,
};
pub use rtopk_plan::program::{Program, Ragged, Step, StepKind};
pub use rtopk_plan::split::{Route, Split};

use std::sync::Arc;

use cudarc::driver::CudaContext;
use cudarc::driver::sys::{self, CUdevice_attribute as A};
use cudarc::nvrtc::Ptx;
use rtopk_plan::ClusterSlots;

use crate::CudaError;

/// The launch plan of `launch` on a device of `limits` with `strategy` (rtopk-plan's
/// [`rtopk_plan::plan()`]).
///
/// Errors: a shape topk-ref refuses (k > M, M = 0, a bad search), a forced strategy that
/// cannot hold the row ([`CudaError::Strategy`]), and shapes past the kernels' index types or
/// the grid's limits ([`CudaError::TooLarge`]). `n = 0` or `k = 0` plan a launch that the
/// launcher skips (nothing to compute).
pub fn plan(launch: &Launch, limits: &DeviceLimits, strategy: Strategy) -> Result<Plan, CudaError> {
    Ok(rtopk_plan::plan(launch, limits, strategy)?)
}

/// The route of `launch` (rtopk-plan's [`rtopk_plan::route()`]): its plan, or split rows;
/// `counts`: whether iteration counts are wanted.
pub fn route(
    launch: &Launch,
    limits: &DeviceLimits,
    strategy: Strategy,
    counts: bool,
) -> Result<Route, CudaError> {
    Ok(rtopk_plan::route(launch, limits, strategy, counts)?)
}

/// Reading a device's [`DeviceLimits`].
pub trait QueryLimits: Sized {
    /// The limits of the device of `ctx`.
    fn query(ctx: &Arc<CudaContext>) -> Result<Self, CudaError>;
}

impl QueryLimits for DeviceLimits {
    fn query(ctx: &Arc<CudaContext>) -> Result<Self, CudaError> {
        let read = |a: A, what: &'static str| {
            ctx.attribute(a).map(|v| v.max(0) as usize).map_err(crate::error::driver(what))
        };
        let max_cluster = rtopk_plan::cluster::max_cluster_of(
            read(A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "reading cluster support")? != 0,
            read(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "reading the capability")?,
        );
        let per_sm = read(
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            "reading an SM's shared memory",
        )?;
        Ok(Self {
            sm_count: read(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "reading the SM count")?
                .max(1),
            shared_optin_bytes: read(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                "reading the shared-memory limit",
            )?,
            max_cluster,
            cluster_slots: cluster_slots(ctx, max_cluster, per_sm),
        })
    }
}

/// A kernel that does nothing, loaded only to ask the driver how many clusters the device
/// holds ([`cluster_slots`]).
const SLOTS_PROBE: &str = ".version 7.8\n.target sm_90\n.address_size 64\n\
                           .visible .entry rtopk_slots_probe() { ret; }\n";

/// How many clusters of each size up to `max_cluster` the device holds at once where 1 to
/// [`ClusterSlots::PER_SM`] blocks share an SM (rtopk-plan's [`rtopk_plan::ClusterSlots`]): the
/// driver's `cuOccupancyMaxActiveClusters` for a kernel of 256 threads a block asking a little
/// more than `1 / (p + 1)` of an SM's `per_sm` bytes of shared memory, so that exactly `p`
/// blocks fit an SM. Unknown where the device launches no clusters or the driver cannot say
/// (the plan then takes as many as the SMs hold, one block an SM).
fn cluster_slots(ctx: &Arc<CudaContext>, max_cluster: usize, per_sm: usize) -> ClusterSlots {
    let mut slots = ClusterSlots::UNKNOWN;
    if max_cluster <= 1 {
        return slots;
    }
    let probe = ctx.load_module(Ptx::from_src(SLOTS_PROBE));
    let Ok(f) = probe.and_then(|m| m.load_function("rtopk_slots_probe")) else {
        return slots;
    };
    let attr = |a: sys::CUfunction_attribute, v: i32| {
        // SAFETY: a valid function handle of a loaded module and a valid attribute and value.
        unsafe { cudarc::driver::result::function::set_function_attribute(f.cu_function(), a, v) }
    };
    use sys::CUfunction_attribute as F;
    let most_shared = (per_sm / 2 + 1) as i32;
    let wide =
        max_cluster <= 8 || attr(F::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1).is_ok();
    if attr(F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, most_shared).is_err() {
        return slots;
    }
    let sizes = if wide { max_cluster } else { 8 }.min(slots.0[0].len() - 1);
    for per in 1..=ClusterSlots::PER_SM {
        let shared = (per_sm / (per + 1) + 1) as u32;
        for size in 1..=sizes {
            if let Some(held) = max_active_clusters(&f, size as u32, shared) {
                slots.0[per - 1][size] = held;
            }
        }
    }
    slots
}

/// `cuOccupancyMaxActiveClusters` of `f` in clusters of `size` blocks of 256 threads and
/// `shared` bytes of dynamic shared memory.
fn max_active_clusters(f: &cudarc::driver::CudaFunction, size: u32, shared: u32) -> Option<u16> {
    // SAFETY: an all-zero launch attribute value is a valid union (plain integers and pads).
    let mut value: sys::CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
    value.clusterDim.x = size;
    value.clusterDim.y = 1;
    value.clusterDim.z = 1;
    let id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    let mut attrs = [sys::CUlaunchAttribute { id, pad: [0; 4], value }];
    let config = sys::CUlaunchConfig {
        gridDimX: size,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: 256,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: shared,
        hStream: std::ptr::null_mut(),
        attrs: attrs.as_mut_ptr(),
        numAttrs: 1,
    };
    let mut held = 0i32;
    // SAFETY: `config` and its attribute outlive the call, which only reads them; `held` is a
    // valid place for the count; the context is current (loading the module bound it).
    let rc = unsafe {
        sys::cuOccupancyMaxActiveClusters(&raw mut held, f.cu_function(), &raw const config)
    };
    rc.result().ok().map(|()| held.clamp(0, i32::from(u16::MAX)) as u16)
}
