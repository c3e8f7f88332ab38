//! # rtopk-cuda — the RTop-K kernel on an NVIDIA GPU
//!
//! `kernels/` is `docs/kernel.md` in CUDA C++: the same three stages (`load_row`,
//! `search_threshold`, `select_topk`), names and arithmetic as topk-ref's `bisect` and
//! warp-sim's kernel, so its values, indices and iteration counts are bit-identical to theirs.
//!
//! The crate's layers, from the top:
//! * [`CudaTopK`] opens a device (cheap: nothing is compiled until a launch needs it) and runs
//!   row-wise top-k on host or device buffers;
//! * [`plan`](plan::plan) chooses the kernel, grid and shared memory of a launch — a pure
//!   function of the shape, the search, the device's [`DeviceLimits`] and a [`Strategy`];
//! * `launch.rs` builds and loads each kernel on first use, one module per unit
//!   ([`kernels::Unit`]: one entry point), and launches it with one parameter struct;
//! * `compile.rs` compiles a unit's generated source ([`kernels`]) with NVRTC straight to
//!   the device's SASS, kept in the process and on disk ([`CACHE_DIR_ENV`]);
//! * [timing](CudaTopK::time_ms) and [`bench`](mod@bench) (what the GPU benchmark harness of
//!   rtopk-tools needs of the driver) build on those; the harness itself and the verification
//!   against the CPU references and the simulator are rtopk-tools'.
//!
//! NVRTC and the driver are loaded at run time (cudarc's dynamic loading): the crate builds
//! and its CPU-side tests run on machines without CUDA, and [`CudaTopK::new`] says so with
//! [`CudaError::NoDriver`] instead of panicking.

// This crate is the workspace's one door to the CUDA driver and NVRTC: FFI calls and device
// pointers need `unsafe`, kept to the thin compile and launch layers (compile.rs, launch.rs;
// and the benchmark harness, bench.rs), each block with its SAFETY line.
#![allow(unsafe_code)]

pub mod bench;
mod compile;
mod disk_cache;
mod error;
mod grouped;
pub mod kernels;
mod launch;
pub mod plan;
mod programs;
pub mod shipped;
mod timing;

pub use compile::{CacheUse, Target, compile_units, nvrtc_version, supported_archs};
/// The driver's buffer, stream and error types, as this crate's API hands them out.
pub use cudarc::driver::{CudaSlice, CudaStream, DriverError};
pub use disk_cache::{CACHE_DIR_ENV, ImageKind};
pub use error::CudaError;
pub use grouped::GroupedBuffers;
pub use kernels::ElemType;
pub use kernels::IndexType;
pub use launch::{DataTypes, DeviceElement, DeviceOutputs, RawBuffers, RowSlices, UnitReport};
pub use plan::{DeviceLimits, Launch, Plan, Program, Ragged, SortPlan, SortShape, Strategy};

/// The per-row arrays of a ragged request on host rows (docs/contract.md §5): `n` u32 each,
/// or none.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostRows<'a> {
    /// Each row's length (`0..=m`).
    pub lengths: Option<&'a [u32]>,
    /// Each row's k (at most the outputs' width).
    pub k_per_row: Option<&'a [u32]>,
    /// Each row's threshold hint (any f32: it changes the iterations, never the answer).
    pub hint: Option<&'a [f32]>,
    /// Whether each row's threshold is written ([`CudaTopK::topk_rows_threshold`]).
    pub threshold: bool,
}

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cudarc::driver::CudaContext;
use ndarray::{Array1, Array2, ArrayView2};
use topk_ref::{Bisect, Options, TopK, check_shape};

use error::driver;
use kernels::{KernelFiles, UNIT_COUNT};
use launch::Slot;
use plan::QueryLimits;

/// A CUDA device ready to run the RTop-K kernels, each built and loaded on first use.
/// Shareable between threads: launches from several threads go to the one stream in turn.
pub struct CudaTopK {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    device_name: String,
    limits: DeviceLimits,
    target: Target,
    /// The device's compute capability (major, minor).
    capability: (i32, i32),
    files: KernelFiles,
    slots: Vec<Slot>,
    opened: Instant,
    /// Set once the device's default memory pool keeps what split rows free (launch.rs).
    pool_kept: std::sync::OnceLock<()>,
    /// The programs planned on this device, by launch.
    programs: programs::Programs,
}

/// Checks that the CUDA driver and NVRTC libraries can be loaded, before cudarc touches them
/// (cudarc panics when they are missing).
pub fn check_libraries() -> Result<(), CudaError> {
    if !launch::driver_present() {
        return Err(CudaError::NoDriver);
    }
    check_nvrtc()
}

/// Checks that the CUDA driver library can be loaded: all a device needs where its units are
/// shipped (`shipped.rs`); compiling the others needs NVRTC too ([`check_libraries`]).
pub fn check_driver() -> Result<(), CudaError> {
    if launch::driver_present() { Ok(()) } else { Err(CudaError::NoDriver) }
}

/// Checks that the NVRTC library can be loaded (all that compiling needs; no driver, no GPU).
pub fn check_nvrtc() -> Result<(), CudaError> {
    if !compile::nvrtc_present() {
        return Err(CudaError::NoNvrtc);
    }
    Ok(())
}

/// The process's one [`CudaTopK`] for device `ordinal`, opened on first use and kept: every
/// caller in the process (threads, Python calls) then shares its loaded kernels, each built
/// once.
pub fn shared_device(ordinal: usize) -> Result<Arc<CudaTopK>, CudaError> {
    static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<CudaTopK>>>> = OnceLock::new();
    let mut devices =
        DEVICES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if let Some(device) = devices.get(&ordinal) {
        return Ok(Arc::clone(device));
    }
    let device = Arc::new(CudaTopK::new(ordinal)?);
    devices.insert(ordinal, Arc::clone(&device));
    Ok(device)
}

impl CudaTopK {
    /// Opens device `ordinal` and reads what the launch plan needs of it. Nothing is compiled
    /// or loaded here: each kernel is, on its first launch (or by [`CudaTopK::prepare`]).
    pub fn new(ordinal: usize) -> Result<Self, CudaError> {
        Self::with_files(ordinal, KernelFiles::embedded())
    }

    /// [`CudaTopK::new`], compiling `files` instead of the kernels in the binary (a variant
    /// to try without rebuilding: [`KernelFiles::from_dir`]).
    pub fn with_files(ordinal: usize, files: KernelFiles) -> Result<Self, CudaError> {
        // NVRTC is needed only for units that are not shipped (`shipped.rs`): each load says
        // so where it is missing.
        check_driver()?;
        let opened = Instant::now();
        let ctx = CudaContext::new(ordinal).map_err(driver("opening the device"))?;
        let (major, minor) = ctx.compute_capability().map_err(driver("reading the device"))?;
        let device_name = ctx.name().map_err(driver("reading the device name"))?;
        let limits = DeviceLimits::query(&ctx)?;
        let stream = ctx.default_stream();
        Ok(Self {
            ctx,
            stream,
            device_name,
            limits,
            target: Target::for_device(major, minor, &supported_archs()),
            capability: (major, minor),
            files,
            slots: (0..UNIT_COUNT).map(|_| Slot::default()).collect(),
            opened,
            pool_kept: std::sync::OnceLock::new(),
            programs: programs::Programs::default(),
        })
    }

    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// What the launch plan reads of the device.
    pub fn limits(&self) -> DeviceLimits {
        self.limits
    }

    /// What NVRTC compiles for on this device: its SASS, or PTX where NVRTC does not know it.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The stream every launch goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context of the device.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Row-wise top-k of a host matrix: copies in, runs, copies out. With `opts.sorted` the k
    /// results of each row are sorted on the device.
    pub fn topk_rows<E: DeviceElement>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        bisect: Bisect,
    ) -> Result<TopK<E>, CudaError> {
        self.topk_rows_with(x, k, opts, bisect, Strategy::Auto)
    }

    /// [`CudaTopK::topk_rows`] with a launch strategy. [`Strategy::Split`] splits the rows
    /// (rtopk-plan's `split`) and [`Strategy::Radix`] runs the radix select (rtopk-plan's
    /// `radix`): they return no iteration counts ([`Strategy::counts`]); every other strategy
    /// returns them.
    pub fn topk_rows_with<E: DeviceElement>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        bisect: Bisect,
        strategy: Strategy,
    ) -> Result<TopK<E>, CudaError> {
        // the split and radix strategies take the path without iteration counts
        self.topk_rows_counted(x, k, opts, bisect, strategy, strategy.counts())
    }

    /// [`CudaTopK::topk_rows_with`], the iteration counts computed only where `counts` asks
    /// for them: without them the route may split rows (rtopk-plan's `split`), with the same
    /// values and indices.
    pub fn topk_rows_counted<E: DeviceElement>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        opts: Options,
        bisect: Bisect,
        strategy: Strategy,
        counts: bool,
    ) -> Result<TopK<E>, CudaError> {
        self.topk_rows_ragged(x, k, (opts, bisect, strategy, counts), HostRows::default())
    }

    /// [`CudaTopK::topk_rows_counted`] of a ragged request (docs/contract.md §5): `k` is the
    /// outputs' width; row `i` is its first `rows.lengths[i]` values and selects
    /// `min(rows.k_per_row[i], lengths[i])` (absent: M and `k`), its output row padded past
    /// them (index `u32::MAX`, value 0). The arrays go to the device as they are: the kernel
    /// reads them, nothing on the host is sized by them. Without counts, rows of their own
    /// length are split where plain rows are (rtopk-plan's `ragged_route`).
    pub fn topk_rows_ragged<E: DeviceElement>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        how: (Options, Bisect, Strategy, bool),
        rows: HostRows<'_>,
    ) -> Result<TopK<E>, CudaError> {
        Ok(self.topk_rows_threshold(x, k, how, rows)?.0)
    }

    /// [`CudaTopK::topk_rows_ragged`] with hints (`rows.hint`: each row's search starts with a
    /// test there; the counts are `bisect`'s with that hint) and, where `rows.threshold`, each
    /// row's threshold (docs/contract.md §5: its k-th selected value as f32, NaN where it
    /// selects nothing), written by the program's `row_threshold` step.
    pub fn topk_rows_threshold<E: DeviceElement>(
        &self,
        x: ArrayView2<'_, E>,
        k: usize,
        (opts, bisect, strategy, counts): (Options, Bisect, Strategy, bool),
        rows: HostRows<'_>,
    ) -> Result<(TopK<E>, Option<Array1<f32>>), CudaError> {
        let (n, m) = x.dim();
        check_shape(m, k)?;
        let per_row = [
            ("lengths", rows.lengths.map(<[u32]>::len)),
            ("k_per_row", rows.k_per_row.map(<[u32]>::len)),
            ("hint", rows.hint.map(<[f32]>::len)),
        ];
        for (what, len) in per_row {
            if let Some(len) = len.filter(|&len| len != n) {
                return Err(CudaError::TopK(topk_ref::TopKError::InvalidParameter {
                    name: what,
                    reason: format!("{len} entries for {n} rows"),
                }));
            }
        }
        let ragged = plan::Ragged {
            lengths: rows.lengths.is_some(),
            k_per_row: rows.k_per_row.is_some(),
            hint: rows.hint.is_some(),
            threshold: rows.threshold,
        };
        let launch =
            Launch { n, m, k, mode: opts.mode, bisect, sorted: opts.sorted, elem: E::ELEM };
        let counts = counts && strategy.counts();
        // every unit the launch needs, built at once (in parallel where there are several)
        self.check_elem(E::ELEM)?;
        if n > 0 && (k > 0 || rows.threshold) {
            let types = DataTypes { elem: E::ELEM, ..DataTypes::F32 };
            let units: Vec<_> = self.program_ragged(&launch, strategy, counts, ragged)?.units();
            self.prepare(&units.into_iter().map(|u| types.unit(u)).collect::<Vec<_>>())?;
        }
        let nk = n.checked_mul(k).ok_or(CudaError::TooLarge { n, m, why: "n * k" })?;
        // a row-major view is copied as it lies; any other layout is gathered first
        let gathered: Vec<E>;
        let host: &[E] = match x.as_slice() {
            Some(rows) => rows,
            None => {
                gathered = x.iter().copied().collect();
                &gathered
            }
        };
        let s = &self.stream;
        let dx = s.clone_htod(host).map_err(driver("copying the input"))?;
        let mut val = s.alloc_zeros::<E>(nk.max(1)).map_err(driver("allocating"))?;
        let mut idx = s.alloc_zeros::<u32>(nk.max(1)).map_err(driver("allocating"))?;
        let mut it = s.alloc_zeros::<u32>(n.max(1)).map_err(driver("allocating"))?;
        let iter_out = if counts { Some(&mut it) } else { None };
        let upload = |v: Option<&[u32]>| {
            v.map(|v| s.clone_htod(v).map_err(driver("copying the per-row arrays"))).transpose()
        };
        let (lengths, k_per_row) = (upload(rows.lengths)?, upload(rows.k_per_row)?);
        let hint =
            rows.hint.map(|h| s.clone_htod(h).map_err(driver("copying the hints"))).transpose()?;
        let mut thr = s.alloc_zeros::<f32>(n.max(1)).map_err(driver("allocating"))?;
        let slices = RowSlices {
            lengths: lengths.as_ref(),
            k_per_row: k_per_row.as_ref(),
            hint: hint.as_ref(),
        };
        let outs = (&mut val, &mut idx, iter_out);
        let thr_out = if rows.threshold { Some(&mut thr) } else { None };
        self.select_device_threshold(&launch, strategy, &dx, outs, slices, thr_out)?;
        let mut values = s.clone_dtoh(&val).map_err(driver("copying values back"))?;
        let mut indices = s.clone_dtoh(&idx).map_err(driver("copying indices back"))?;
        let mut iterations = s.clone_dtoh(&it).map_err(driver("copying iterations back"))?;
        let mut threshold = s.clone_dtoh(&thr).map_err(driver("copying thresholds back"))?;
        threshold.truncate(n);
        values.truncate(nk);
        indices.truncate(nk);
        iterations.truncate(n);
        let shape = (n, k);
        let err = |_| CudaError::TooLarge { n, m, why: "output shape" };
        let topk = TopK {
            values: Array2::from_shape_vec(shape, values).map_err(err)?,
            indices: Array2::from_shape_vec(shape, indices).map_err(err)?,
            iterations: counts.then(|| Array1::from(iterations)),
        };
        Ok((topk, rows.threshold.then(|| Array1::from(threshold))))
    }
}
