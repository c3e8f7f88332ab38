//! Loading units and launching them: the thin unsafe layer over the driver. Each unit is
//! compiled (`compile.rs`) and loaded on first use, once per [`CudaTopK`] (several threads may
//! ask at once: one builds, the others wait for it); [`CudaTopK::prepare`] builds a list of
//! them in parallel.

use std::collections::BTreeSet;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, DevicePtr, DevicePtrMut, sys};
use cudarc::nvrtc::Ptx;
use topk_ref::{Mode, TopKError};

use crate::compile::{self, CacheUse};
use crate::disk_cache::ImageKind;
use crate::error::driver;
use crate::kernels::{BLOCK_STATIC_SHARED, ElemType, Family, IndexType, Unit};
use crate::plan::{Launch, Plan, Route, SortPlan, Split, Strategy, plan, route};
use crate::{CudaError, CudaTopK};

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
/// `half::bf16` (both held on the device as their 16 bits).
pub trait DeviceFloat:
    topk_ref::Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Unpin
{
    /// The kernels' element type for it.
    const ELEM: ElemType;
}
impl DeviceFloat for f32 {
    const ELEM: ElemType = ElemType::F32;
}
impl DeviceFloat for half::f16 {
    const ELEM: ElemType = ElemType::F16;
}
impl DeviceFloat for half::bf16 {
    const ELEM: ElemType = ElemType::Bf16;
}

/// Device buffers a caller owns (a framework's tensors), by address: the input (`n * m` of the
/// launch's element type), the values (`n * k` of it), the indices (`n * k` of the launch's
/// [`IndexType`]) and the iteration counts (`n` u32, or 0 when none are wanted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawBuffers {
    /// The input.
    pub x: u64,
    /// The values output.
    pub values: u64,
    /// The indices output.
    pub indices: u64,
    /// The iteration counts output, or 0.
    pub iterations: u64,
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
    ]
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

    /// Builds (or reads) `unit`'s image and loads it.
    fn load(&self, unit: Unit) -> Result<Loaded, CudaError> {
        let image = compile::image(unit, &self.files, &self.target)?;
        let start = Instant::now();
        let module = self
            .ctx
            .load_module(Ptx::from_binary(image.bytes.to_vec()))
            .map_err(driver("loading a module"))?;
        let functions = unit
            .entry_points()
            .iter()
            .map(|name| module.load_function(name).map_err(driver("loading a kernel")))
            .collect::<Result<Vec<_>, _>>()?;
        if unit.family() == Family::BlockRows {
            self.allow_dynamic_shared(unit, &functions[0])?;
        }
        let report = UnitReport {
            unit,
            kind: self.target.kind,
            arch: self.target.arch.clone(),
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
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(todo.len());
        let next = AtomicUsize::new(0);
        let failures = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    while let Some(&unit) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if let Err(e) = self.unit(unit) {
                            failures.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                        }
                    }
                });
            }
        });
        match failures.into_inner().unwrap_or_else(|p| p.into_inner()).into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
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

    /// Row-wise top-k of `x` (device, `n * m` values, row-major) into device buffers: values
    /// and indices `n * k`, iteration counts `n`. Each row's results in ascending index order,
    /// or with `launch.sorted` in sorted order (SPEC §1).
    pub fn select_device<E: DeviceFloat>(
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
    pub fn select_device_with<E: DeviceFloat>(
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
    pub fn select_device_opt<E: DeviceFloat>(
        &self,
        launch: &Launch,
        strategy: Strategy,
        x: &CudaSlice<E>,
        out_val: &mut CudaSlice<E>,
        out_idx: &mut CudaSlice<u32>,
        out_iter: Option<&mut CudaSlice<u32>>,
    ) -> Result<(), CudaError> {
        self.check_types(launch, E::ELEM)?;
        let route = self.route(launch, strategy, out_iter.is_some())?;
        let it_len = out_iter.as_ref().map(|b| b.len());
        check_buffers(launch, x.len(), out_val.len(), out_idx.len(), it_len)?;
        if launch.n == 0 || launch.k == 0 {
            return Ok(());
        }
        let s = &self.stream;
        let (x_ptr, _x) = x.device_ptr(s);
        let (val_ptr, _val) = out_val.device_ptr_mut(s);
        let (idx_ptr, _idx) = out_idx.device_ptr_mut(s);
        let iter = out_iter.map(|b| b.device_ptr_mut(s));
        let bufs = RawBuffers {
            x: x_ptr,
            values: val_ptr,
            indices: idx_ptr,
            iterations: iter.as_ref().map_or(0, |(p, _)| *p),
        };
        let types = DataTypes { elem: E::ELEM, index: IndexType::U32 };
        // SAFETY: the buffers were checked against the launch above and stay borrowed (the
        // guards record the launch's reads and writes on them when dropped) until the work is
        // queued on this device's stream.
        unsafe { self.run_route(&route, launch, types, bufs, s.cu_stream()) }
    }

    /// Whether this device runs the kernels of `elem`: the 16-bit kernels' packed min/max need
    /// compute capability 8.0 (docs/kernel.md, "16-bit rows").
    pub fn check_elem(&self, elem: ElemType) -> Result<(), CudaError> {
        let (major, minor) = self.capability;
        if elem != ElemType::F32 && major < 8 {
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
    /// `types`; `counts`: whether iteration counts are wanted.
    pub fn raw_units(
        &self,
        launch: &Launch,
        types: DataTypes,
        counts: bool,
    ) -> Result<Vec<Unit>, CudaError> {
        self.check_types(launch, types.elem)?;
        let route = self.route(launch, Strategy::Auto, counts)?;
        Ok(route.units().into_iter().map(|u| types.unit(u)).collect())
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
        self.check_types(launch, types.elem)?;
        // A handle a framework gave as an integer: its provenance is the driver's.
        let stream: sys::CUstream = std::ptr::with_exposed_provenance_mut(stream as usize);
        let route = self.route(launch, Strategy::Auto, bufs.iterations != 0)?;
        if launch.n == 0 || launch.k == 0 {
            return Ok(());
        }
        // SAFETY: the caller's buffers, of the sizes this function's contract states.
        unsafe { self.run_route(&route, launch, types, bufs, stream) }
    }

    /// Queues `route` on `stream`.
    ///
    /// # Safety
    /// `bufs` must be valid for `launch` (x: n*m values, outputs: n*k and n elements, or a
    /// null iteration output) until the work on `stream` completes.
    unsafe fn run_route(
        &self,
        route: &Route,
        launch: &Launch,
        types: DataTypes,
        bufs: RawBuffers,
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        self.ctx.bind_to_thread().map_err(driver("binding the context"))?;
        match route {
            // SAFETY: the caller's buffers, for this launch.
            Route::Direct(plan) => unsafe { self.run_plan(plan, launch, types, bufs, stream) },
            // SAFETY: the caller's buffers, for this launch.
            Route::Split { split, rest } => unsafe {
                self.run_split(split, rest, launch, types, bufs, stream)
            },
        }
    }

    /// Queues one plan: the top-k launch and, for sorted output, the sort.
    ///
    /// # Safety
    /// As [`CudaTopK::run_route`].
    unsafe fn run_plan(
        &self,
        plan: &Plan,
        launch: &Launch,
        types: DataTypes,
        bufs: RawBuffers,
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        let func = self.function(types.unit(plan.unit))?;
        let params = Params::rows(launch, plan, bufs, types.elem);
        // SAFETY: the caller's buffers, for this launch.
        unsafe { self.launch_topk_on(func, plan, params, stream) }?;
        match plan.sort {
            // SAFETY: the caller's buffers, for this launch.
            Some(sort) => unsafe { self.launch_sort(&sort, launch, types, bufs, stream) },
            None => Ok(()),
        }
    }

    /// Queues a split row (rtopk-plan's `split`): each chunk's top k into the candidates, the
    /// route of the row's top k among them, and the indices back to the row's.
    ///
    /// # Safety
    /// As [`CudaTopK::run_route`], with no iteration output.
    unsafe fn run_split(
        &self,
        split: &Split,
        rest: &Route,
        launch: &Launch,
        types: DataTypes,
        bufs: RawBuffers,
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        let Launch { n, m, k, .. } = *launch;
        let (index, elem_bytes) = (types.index, types.elem.bytes());
        let width = split.candidates(k);
        let too_large = || CudaError::TooLarge { n, m, why: "the split row's candidates" };
        let count = n.checked_mul(width).ok_or_else(too_large)?;
        let val_bytes = count.checked_mul(elem_bytes).ok_or_else(too_large)?;
        let idx_bytes = count.checked_mul(index.bytes()).ok_or_else(too_large)?;
        self.keep_pool()?;
        // SAFETY: the context is bound (run_route); sizes checked above.
        let (cand_val, cand_idx) =
            unsafe { (StreamTemp::new(val_bytes, stream)?, StreamTemp::new(idx_bytes, stream)?) };
        let cand =
            RawBuffers { x: bufs.x, values: cand_val.ptr, indices: cand_idx.ptr, iterations: 0 };
        let first = Params::chunks(launch, &split.first_plan, cand, split, (width, types.elem));
        let func = self.function(types.unit(split.first_plan.unit))?;
        // SAFETY: the first plan's n * full chunk rows read within the caller's n * m input
        // (chunk c of row r at r m + c chunk) and write within the candidates (n * width).
        unsafe { self.launch_topk_on(func, &split.first_plan, first, stream) }?;
        if let Some(last_plan) = &split.last_plan {
            let before = (split.full * split.chunk) as u64;
            let at = RawBuffers {
                x: bufs.x + (elem_bytes as u64) * before,
                values: cand.values + (elem_bytes * split.full * k) as u64,
                indices: cand.indices + (index.bytes() * split.full * k) as u64,
                iterations: 0,
            };
            let last = Params::last_chunks(launch, last_plan, at, split, (width, types.elem));
            let func = self.function(types.unit(last_plan.unit))?;
            // SAFETY: n rows of the last chunk's width at stride m, past the full chunks, in
            // the input; their k results at stride width, past the full chunks' results.
            unsafe { self.launch_topk_on(func, last_plan, last, stream) }?;
        }
        let second = Launch { m: width, ..*launch };
        let to_out = RawBuffers { x: cand.values, ..bufs };
        // SAFETY: the candidates (n * width values) and the caller's outputs (n * k).
        unsafe { self.run_route(rest, &second, types, to_out, stream) }?;
        // SAFETY: the candidates' indices (n * width) and the caller's indices (n * k), each
        // holding a position < width.
        unsafe {
            self.launch_gather(
                index,
                cand.indices,
                bufs.indices,
                (n, k, width, split.chunk),
                stream,
            )
        }
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

    /// Queues `rtopk_split_gather` over `n` rows of `k` positions among `width` candidates
    /// from chunks of `chunk`.
    ///
    /// # Safety
    /// `cand_idx` must hold n * width indices and `out_idx` n * k positions < width, both of
    /// `index`'s type, valid until the work on `stream` completes.
    unsafe fn launch_gather(
        &self,
        index: IndexType,
        cand_idx: u64,
        out_idx: u64,
        (n, k, width, chunk): (usize, usize, usize, usize),
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        let func = self.function(Unit::single(Family::SplitGather).with_index(index))?;
        let (mut c, mut o, mut n64) = (cand_idx, out_idx, n as u64);
        let (mut k32, mut w32, mut m32) = (k as u32, width as u32, chunk as u32);
        let mut args: [*mut c_void; 6] = [
            (&raw mut c).cast(),
            (&raw mut o).cast(),
            (&raw mut n64).cast(),
            (&raw mut k32).cast(),
            (&raw mut w32).cast(),
            (&raw mut m32).cast(),
        ];
        let threads = 256u32;
        let blocks = (n * k).div_ceil(threads as usize).min(self.limits.sm_count * 64).max(1);
        let grid = (blocks as u32, threads, 0);
        // SAFETY: `func` is rtopk_split_gather (kernels/split_rows.cu), whose arguments `args`
        // points to in order and type; the kernel reads and writes only out_idx[0 .. n k) and
        // reads cand_idx[row width + pos] with pos < width, within the buffers the caller
        // vouches for.
        unsafe { self.launch_args(func, grid, stream, &mut args) }
            .map_err(driver("launching the split rows' gather"))
    }

    /// Queues the sort of each row's k results (as the selection leaves them) into SPEC §1's
    /// sorted order.
    ///
    /// # Safety
    /// As [`CudaTopK::run_route`].
    unsafe fn launch_sort(
        &self,
        sort: &SortPlan,
        launch: &Launch,
        types: DataTypes,
        bufs: RawBuffers,
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        let Launch { n, m, k, mode, .. } = *launch;
        let func = self.function(types.unit(sort.unit))?;
        let (mut x, mut val, mut idx) = (bufs.x, bufs.values, bufs.indices);
        let (mut n64, mut m32, mut k32) = (n as u64, m as u32, k as u32);
        let mut smallest = i32::from(mode == Mode::Smallest);
        let (mut pow2, mut row_threads, mut in_shared) =
            sort.shape.map_or((0, 0, 0), |s| (s.pow2, s.row_threads, i32::from(s.in_shared)));
        let mut args: Vec<*mut c_void> = vec![
            (&raw mut x).cast(),
            (&raw mut val).cast(),
            (&raw mut idx).cast(),
            (&raw mut n64).cast(),
            (&raw mut m32).cast(),
            (&raw mut k32).cast(),
            (&raw mut smallest).cast(),
        ];
        if sort.shape.is_some() {
            args.extend([
                (&raw mut pow2).cast(),
                (&raw mut row_threads).cast(),
                (&raw mut in_shared).cast(),
            ]);
        }
        let grid = (sort.grid, sort.block, sort.dynamic_shared);
        // SAFETY: `func` is the sort the plan chose; `args` points to its arguments in order and
        // type — SORT_WARP_ARGS (kernels/sort_warp_rows.cu), plus pow2, row_threads and
        // in_shared for rtopk_sort_rows (kernels/sort_rows.cu); the buffers are the caller's,
        // of the sizes run_route's contract states: each warp or block touches positions < k of
        // its own rows < n only, and the block sort's shared memory is one row of pow2 ranks,
        // as the plan gives it.
        unsafe { self.launch_args(func, grid, stream, &mut args) }
            .map_err(driver("launching the sort"))
    }

    /// Launches `f` on `stream` with its arguments given one by one (`args`: a pointer to each,
    /// in order); `grid` is (blocks, threads per block, dynamic shared bytes).
    ///
    /// # Safety
    /// `args` must point to `f`'s arguments, in order and of their types, and every pointer
    /// among them must be valid for what `f` does with the grid.
    unsafe fn launch_args(
        &self,
        f: &CudaFunction,
        (blocks, threads, shared): (u32, u32, u32),
        stream: sys::CUstream,
        args: &mut [*mut c_void],
    ) -> Result<(), cudarc::driver::DriverError> {
        // SAFETY: `f` is an entry point of a loaded module of this context (run_route bound
        // it); the caller vouches for the arguments, which live across the call (it copies
        // them).
        unsafe {
            sys::cuLaunchKernel(
                f.cu_function(),
                blocks,
                1,
                1,
                threads,
                1,
                1,
                shared,
                stream,
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
    }

    /// Launches `f` on `stream` with `params` as its parameter buffer; `grid` is (blocks,
    /// threads per block, dynamic shared bytes).
    ///
    /// # Safety
    /// `T` must lay out `f`'s arguments (in order, at their natural alignment), and every
    /// pointer in it must be valid for what `f` does with the grid.
    unsafe fn launch_raw<T>(
        &self,
        f: &CudaFunction,
        grid: (u32, u32, u32),
        stream: sys::CUstream,
        params: T,
    ) -> Result<(), CudaError> {
        self.ctx.bind_to_thread().map_err(driver("binding the context"))?;
        let mut params = params;
        let mut size = std::mem::size_of::<T>();
        let mut extra: [*mut c_void; 5] = [
            std::ptr::without_provenance_mut(sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize),
            (&raw mut params).cast(),
            std::ptr::without_provenance_mut(sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize),
            (&raw mut size).cast(),
            std::ptr::without_provenance_mut(sys::CU_LAUNCH_PARAM_END_AS_INT as usize),
        ];
        let (blocks, threads, shared) = grid;
        // SAFETY: `f` is an entry point of a loaded module of this context (bound above); the
        // caller vouches for the parameter buffer's layout and pointers; `extra` and what it
        // points to outlive the call, which copies them.
        unsafe {
            sys::cuLaunchKernel(
                f.cu_function(),
                blocks,
                1,
                1,
                threads,
                1,
                1,
                shared,
                stream,
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        }
        .result()
        .map_err(driver("launching a kernel"))
    }

    /// Launches a top-k entry point on `stream` with `params` as its parameter buffer.
    ///
    /// # Safety
    /// The pointers in `params` must be valid for `plan`'s launch (x: the rows it reads,
    /// outputs: the results it writes, or a null iteration output) until the work on `stream`
    /// completes.
    unsafe fn launch_topk_on(
        &self,
        f: &CudaFunction,
        plan: &Plan,
        params: Params,
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        // SAFETY: `f` is a top-k entry point, whose arguments are Params's fields in order and
        // lie where Params's fields do (the layout tests); the caller vouches for the pointers;
        // the plan's grid covers n rows (the kernels skip rows >= n) and its dynamic shared
        // memory is within what allow_dynamic_shared allowed.
        unsafe { self.launch_raw(f, (plan.grid, plan.block, plan.dynamic_shared), stream, params) }
    }
}

impl Params {
    /// Whole rows (row r's m values at r m, its k results at r k); the chunk launches start
    /// from these too: the buffers, the search and the mode.
    fn rows(launch: &Launch, plan: &Plan, bufs: RawBuffers, elem: ElemType) -> Self {
        let Launch { n, m, k, mode, bisect, .. } = *launch;
        Self {
            x: bufs.x,
            out_val: bufs.values,
            out_idx: bufs.indices,
            out_iter: bufs.iterations,
            n_rows: n as u64,
            m: m as u32, // < 2^32: the plan checked
            k: k as u32, // <= m
            smallest: i32::from(mode == Mode::Smallest),
            max_iter: bisect.max_iter.map_or(-1, |it| it.min(i32::MAX as u32) as i32),
            precision: bisect.precision,
            cached_keys: plan.cached_keys,
            vec4: vec_loads(elem, &[m], bufs.x),
            sign: if mode == Mode::Smallest { -1.0 } else { 1.0 },
            ld: m as u64,
            out_ld: k as u32,
            chunks: 1,
        }
    }

    /// A split row's full chunks: `n * full` rows of `chunk` values, chunk c of row r at
    /// r m + c chunk, its k results at r width + c k (place_row in kernels/common.cuh).
    fn chunks(
        launch: &Launch,
        plan: &Plan,
        bufs: RawBuffers,
        split: &Split,
        (width, elem): (usize, ElemType),
    ) -> Self {
        let m = launch.m;
        Self {
            n_rows: (launch.n * split.full) as u64, // the plan's rows: no overflow
            m: split.chunk as u32,
            vec4: vec_loads(elem, &[m, split.chunk], bufs.x),
            ld: m as u64,
            out_ld: width as u32, // < 2^32: the plan checked
            chunks: split.full as u32,
            ..Self::rows(launch, plan, bufs, elem)
        }
    }

    /// A split row's last chunks: `n` rows of `last` values at stride m (`bufs.x` at the
    /// first row's), their k results at stride width.
    fn last_chunks(
        launch: &Launch,
        plan: &Plan,
        bufs: RawBuffers,
        split: &Split,
        (width, elem): (usize, ElemType),
    ) -> Self {
        let m = launch.m;
        Self {
            m: split.last as u32,
            vec4: vec_loads(elem, &[m, split.last], bufs.x),
            ld: m as u64,
            out_ld: width as u32,
            ..Self::rows(launch, plan, bufs, elem)
        }
    }
}

/// Whether rows may be read 16 bytes at a time (`vec4`): 16-byte aligned rows of whole 16-byte
/// groups — the input's address, and each of `widths` (the row stride and the rows' width) a
/// multiple of the elements in 16 bytes (4 f32, 8 16-bit).
fn vec_loads(elem: ElemType, widths: &[usize], x: u64) -> i32 {
    let per16 = 16 / elem.bytes();
    i32::from(x % 16 == 0 && widths.iter().all(|w| w % per16 == 0))
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
        assert_eq!(size_of::<Params>(), 88);
        // the parameter buffer is the struct: its last field must end where the struct does
        // (a padded tail is more than the entry point takes: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        let (offset, size) = *params_layout().last().unwrap();
        assert_eq!(offset + size, size_of::<Params>(), "no padding after the last field");
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
}
