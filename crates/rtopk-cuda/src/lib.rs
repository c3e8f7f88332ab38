//! # rtopk-cuda — the RTop-K kernel on an NVIDIA GPU
//!
//! `kernels/rtopk.cu` is `docs/kernel.md` in CUDA C++: the same three stages (`load_row`,
//! `search_threshold`, `select_topk`), names and arithmetic as topk-ref's `bisect` and
//! warp-sim's kernel, so its values, indices and iteration counts are bit-identical to theirs.
//! The source is compiled at run time by NVRTC for the device's architecture (once per
//! process; the PTX is kept on disk for later processes, see [`PTX_CACHE_ENV`]), through cudarc
//! with dynamic loading: the crate builds and its CPU-side tests run
//! on machines without CUDA, and [`CudaTopK::new`] says so with [`CudaError::NoDriver`]
//! instead of panicking.
//!
//! Launch shapes, chosen by the row width M (and k):
//! * `M <= 256`: four rows per warp (8 lanes each) when `k <= M / 4` and there are at least
//!   1024 rows per SM, else two (16 lanes each); `M <= 1024`: one warp per row, and one
//!   warp per row up to `M <= 3072` when `k <= M / 8` (48 to 96 keys per lane); each lane
//!   keeps ⌈M/lanes⌉ consecutive elements' keys in registers, and the selected indices are
//!   staged in shared memory so that the results are written out coalesced. In exact mode
//!   with `k < 128`, a whole-warp row of `257 <= M <= 1024` is narrowed once a count at the
//!   bracket's lower end finds at most 128 keys: the rest of the search and the selection run
//!   over those candidates alone (docs/kernel.md, "Narrowing").
//! * otherwise: one block of ⌈M/32⌉ threads (64 to 1024) per row, 32 keys per thread in
//!   registers (rows up to 32768 wide entirely); the rest in shared memory as far as the
//!   device's opt-in limit allows (~56k keys on Hopper), re-keyed from the input
//!   (L2-resident while the block works) beyond that. In exact mode with `k < 512`, a block
//!   row of `3073 <= M <= 8192` is narrowed at 512 candidates, which the block's first warp
//!   takes over (`rtopk_block_rows_narrow`).
//! * Sorted output: a second launch sorts each row's k results on the device (a warp per row
//!   in registers for k <= 1024, a block per row beyond).
//!
//! `docs/kernel.md`'s last table says how each stage holds the row; none of it changes a count,
//! a threshold or a selected index.

mod error;
mod ptx_cache;
pub mod verify;

pub use error::CudaError;
pub use ptx_cache::PTX_CACHE_ENV;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, sys,
};
use cudarc::nvrtc::{CompileOptions, Ptx, compile_ptx_with_opts};
use ndarray::{Array1, Array2, ArrayView2};
use topk_ref::{Bisect, Mode, Options, TopK, TopKError, check_shape};

use error::driver;

/// The kernel's CUDA C++ source.
pub const KERNEL_SOURCE: &str = include_str!("../kernels/rtopk.cu");

/// Widest row handled by one warp (32 lanes × up to 96 keys in registers) when k <= M / 8;
/// wider rows, and rows past 1024 with more results, go to the block kernel: one warp
/// serialises the selection of many results, and at M = 4096 one warp with 128 keys per lane
/// was no faster than the block kernel (`results/cuda/ab_session.txt`).
pub const MAX_WARP_ROW: usize = 3072;
/// Rows up to this width take a warp kernel whatever [`WARP_ROW_ENV`] says (the block kernel
/// is made and verified for wider rows).
const MAX_BLOCK_FREE_ROW: usize = 1024;
/// Block rows of these widths (blocks of 4 to 8 warps) run `rtopk_block_rows_narrow` in exact
/// mode where k < [`BLOCK_CAND_CAP`]: once a count finds at most that many keys at the
/// bracket's lower end, one warp finishes the search and the selection over them
/// (`results/cuda/ab_session6.txt`; warp-sim's `BLOCK_NARROW_MIN_M` / `BLOCK_NARROW_MAX_M`).
const BLOCK_NARROW_ROWS: std::ops::RangeInclusive<usize> = 3073..=8192;
/// Most candidates a block row narrows to (the kernel's BLOCK_CAND_CAP).
const BLOCK_CAND_CAP: usize = 512;
/// Environment variable overriding [`MAX_WARP_ROW`] (rows wider go to the block kernel), for
/// tuning runs.
pub const WARP_ROW_ENV: &str = "RTOPK_CUDA_MAX_WARP_ROW";
/// Keys per lane of the warp-per-row kernels (`rtopk_warp_rows_<EPL>`, one instantiation
/// each) and warps per block: 8 up to 32 keys, fewer where the wide rows' register counts
/// would leave one block per SM.
const WARP_EPL: [(usize, u32); 13] = [
    (1, 8),
    (2, 8),
    (4, 8),
    (8, 8),
    (12, 8),
    (16, 8),
    (20, 8),
    (24, 8),
    (28, 8),
    (32, 8),
    (48, 4),
    (64, 4),
    (96, 2),
];
/// The half- and quarter-warp kernels (`rtopk_half_rows_<EPL>`, `rtopk_quarter_rows_<EPL>`)
/// exist for the first ten (up to 32 keys).
const HALF_EPL_COUNT: usize = 10;
/// Widest row handled by a half-warp (two rows per warp, 16 lanes): the two rows' searches
/// share the warp's issue slots for the bracket arithmetic.
pub const MAX_HALF_WARP_ROW: usize = 256;
/// Widest row handled by a quarter-warp (four rows per warp, 8 lanes), where k <= M / 4 and
/// there are at least 1024 rows per SM: the bracket arithmetic is shared
/// by four rows, but each lane holds twice the keys of a half-warp's and the four rows'
/// selections serialise, so larger k, and inputs too small to fill the SMs many times over,
/// are faster with two rows per warp (`results/cuda/ab_quarter.txt`).
pub const MAX_QUARTER_WARP_ROW: usize = 256;
/// Rows per SM from which quarter-warp rows pay (see [`MAX_QUARTER_WARP_ROW`]).
const QUARTER_ROWS_PER_SM: usize = 1024;
/// Environment variable overriding [`MAX_QUARTER_WARP_ROW`] (0: never), for tuning runs.
pub const QUARTER_WARP_ENV: &str = "RTOPK_CUDA_QUARTER_WARP_MAX";
/// Environment variable overriding the fewest rows for quarter-warp rows
/// (1024 per SM), for tuning and sanitizer runs.
pub const QUARTER_ROWS_ENV: &str = "RTOPK_CUDA_QUARTER_MIN_ROWS";
/// Environment variable overriding [`MAX_HALF_WARP_ROW`] (0: never), for tuning runs.
pub const HALF_WARP_ENV: &str = "RTOPK_CUDA_HALF_WARP_MAX";
/// How long [`CudaTopK::time_ms`] keeps the GPU busy ahead of the timed work: the first try,
/// then a longer one if the host was still submitting when the first ended.
const SPIN_AHEAD_NS: [u64; 2] = [200_000, 5_000_000];

/// Warps per block of the half- and quarter-warp kernels and of the warp-per-row sorts.
const WARPS_PER_BLOCK: u32 = 8;
/// Most threads per block of the block-per-row kernel.
const BLOCK_THREADS: u32 = 1024;
/// Keys per thread the block kernel keeps in registers (BLOCK_EPL in the kernel): shorter rows
/// get fewer threads per block, so more rows are in flight per SM; rows up to 32768 wide are
/// held in registers entirely.
const BLOCK_KEYS_PER_THREAD: usize = 32;
/// Results per lane of the warp-per-row sorts (`rtopk_sort_warp_rows_E`): rows of k <= 1024
/// results are sorted by one warp in registers.
const SORT_WARP_E: [usize; 6] = [1, 2, 4, 8, 16, 32];
/// Longest (power-of-two padded) row the block sort keeps in shared memory: 32 KiB of 8-byte ranks;
/// longer rows are sorted in place in global memory (L2).
const SORT_SHARED_MAX: usize = 4096;

/// Parameters of one launch (everything but the buffers).
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
    /// Largest or smallest.
    pub mode: Mode,
    /// Exact, with a precision, or early stopping (topk-ref's [`Bisect`]).
    pub bisect: Bisect,
    /// Each row's results in sorted order (SPEC §1: the mode's value order, ties by index)
    /// instead of index order: a second launch sorts them on the device.
    pub sorted: bool,
}

/// How the block sort (rows of k > 1024 results, one block each) covers a row: `pow2` = k
/// rounded up to a power of two, `row_threads` threads, `smem` bytes of dynamic shared memory,
/// `in_shared` false for rows sorted in place in global memory. (`rtopk_sort_rows` can also
/// pack several short rows into a block; the warp sorts take those.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SortShape {
    pow2: u32,
    row_threads: u32,
    smem: u32,
    in_shared: bool,
}

impl SortShape {
    fn for_k(k: usize) -> Self {
        let pow2 = k.next_power_of_two();
        let in_shared = pow2 <= SORT_SHARED_MAX;
        // one thread per compare-exchange of a step, up to 512 (shared) or 1024 (global)
        let row_threads = (pow2 / 2).clamp(1, if in_shared { 512 } else { 1024 });
        let smem = if in_shared { pow2 * 8 } else { 0 };
        let u = |v: usize| v as u32; // all <= 2^32 for k < 2^32 (checked by the caller)
        Self { pow2: u(pow2), row_threads: u(row_threads), smem: u(smem), in_shared }
    }
}

/// Where the launch shape changes, by row width and row count: the measured defaults, or the
/// tuning environment variables ([`QUARTER_WARP_ENV`], [`QUARTER_ROWS_ENV`],
/// [`HALF_WARP_ENV`], [`WARP_ROW_ENV`]); [`CudaTopK::set_tuning`] changes them (the
/// equivalence checks force every shape with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Widest row on a quarter-warp (four rows per warp), where k <= M / 4.
    pub quarter_warp_max: usize,
    /// Fewest rows for quarter-warp rows.
    pub quarter_min_rows: usize,
    /// Widest row on a half-warp (two rows per warp).
    pub half_warp_max: usize,
    /// Widest row on one warp when k <= M / 8 (rows up to 1024 always are).
    pub max_warp_row: usize,
}

impl Tuning {
    /// The defaults for a device of `sms` SMs, overridden by the environment variables.
    fn from_env(sms: usize) -> Self {
        let var = |name: &str, default: usize| {
            std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
        };
        Self {
            quarter_warp_max: var(QUARTER_WARP_ENV, MAX_QUARTER_WARP_ROW),
            quarter_min_rows: var(QUARTER_ROWS_ENV, QUARTER_ROWS_PER_SM * sms),
            half_warp_max: var(HALF_WARP_ENV, MAX_HALF_WARP_ROW),
            max_warp_row: var(WARP_ROW_ENV, MAX_WARP_ROW),
        }
    }

    /// Within the kernels' instantiations.
    fn clamped(self) -> Self {
        let part_epl = WARP_EPL[HALF_EPL_COUNT - 1].0;
        Self {
            quarter_warp_max: self.quarter_warp_max.min(8 * part_epl),
            half_warp_max: self.half_warp_max.min(16 * part_epl),
            max_warp_row: self.max_warp_row.min(32 * WARP_EPL[WARP_EPL.len() - 1].0),
            ..self
        }
    }
}

/// A CUDA device with the RTop-K kernels loaded.
pub struct CudaTopK {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    warp_rows: Vec<CudaFunction>,
    half_rows: Vec<CudaFunction>,
    quarter_rows: Vec<CudaFunction>,
    tuning: Tuning,
    block_rows: CudaFunction,
    block_rows_narrow: CudaFunction,
    sort_rows: CudaFunction,
    sort_warp_rows: Vec<CudaFunction>,
    probe: CudaFunction,
    spin: CudaFunction,
    fill: CudaFunction,
    device_name: String,
    cached_keys_cap: usize,
}

/// Checks that the CUDA driver and NVRTC libraries can be loaded, before cudarc touches them
/// (cudarc panics when they are missing).
pub fn check_libraries() -> Result<(), CudaError> {
    // SAFETY: only tries to dlopen the driver library by its candidate names and drops it.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(CudaError::NoDriver);
    }
    // SAFETY: as above, for the NVRTC library.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(CudaError::NoNvrtc);
    }
    Ok(())
}

/// Environment variable naming a replacement kernel source file (same entry points and
/// arguments as `kernels/rtopk.cu`), for trying kernel variants without rebuilding the binary.
pub const KERNEL_SOURCE_ENV: &str = "RTOPK_CUDA_KERNEL";

/// The source to compile: `kernels/rtopk.cu`, or the file named by [`KERNEL_SOURCE_ENV`].
fn kernel_source() -> Result<String, CudaError> {
    match std::env::var_os(KERNEL_SOURCE_ENV) {
        None => Ok(KERNEL_SOURCE.to_string()),
        Some(path) => std::fs::read_to_string(&path).map_err(|e| CudaError::Compile {
            arch: "any".into(),
            log: format!("cannot read {KERNEL_SOURCE_ENV}={}: {e}", path.to_string_lossy()),
        }),
    }
}

/// NVRTC's version, for the PTX cache's key ("unknown" if it cannot say).
fn nvrtc_version() -> String {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: check_libraries found the NVRTC library; nvrtcVersion writes two ints.
    let status = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    if status == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        format!("{major}.{minor}")
    } else {
        "unknown".into()
    }
}

/// PTX of the kernel for `arch` (e.g. `sm_90`), compiled once per process, and kept on disk
/// for the next process where a cache directory is available ([`PTX_CACHE_ENV`]).
fn ptx_for(arch: &str) -> Result<Ptx, CudaError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Ptx>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(ptx) = cache.get(arch) {
        return Ok(ptx.clone());
    }
    let opts = CompileOptions {
        // The threshold arithmetic must round exactly as the CPU's: no FMA contraction, no
        // flush-to-zero, IEEE division and square root, no fast-math.
        fmad: Some(false),
        ftz: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(true),
        options: vec![format!("--gpu-architecture={arch}"), "--std=c++17".into()],
        name: Some("rtopk.cu".into()),
        ..Default::default()
    };
    let source = kernel_source()?;
    let disk = ptx_cache::dir();
    let key = ptx_cache::key(&nvrtc_version(), arch, &[format!("{opts:?}")], &source);
    if let Some(text) = disk.as_deref().and_then(|d| ptx_cache::load(d, &key)) {
        let ptx = Ptx::from_src(text);
        cache.insert(arch.to_string(), ptx.clone());
        return Ok(ptx);
    }
    let ptx = compile_ptx_with_opts(source, opts).map_err(|e| CudaError::Compile {
        arch: arch.to_string(),
        log: match e {
            cudarc::nvrtc::CompileError::CompileError { log, .. } => {
                log.to_string_lossy().into_owned()
            }
            other => other.to_string(),
        },
    })?;
    if let (Some(d), Some(bytes)) = (disk, ptx.as_bytes()) {
        // the image ends with its NUL; a cache that cannot be written is only slower
        let text = String::from_utf8_lossy(bytes);
        let _ = ptx_cache::store(&d, &key, text.trim_end_matches('\0'));
    }
    cache.insert(arch.to_string(), ptx.clone());
    Ok(ptx)
}

impl CudaTopK {
    /// Opens device `ordinal`, compiles (or reuses) the kernel for its architecture and loads it.
    pub fn new(ordinal: usize) -> Result<Self, CudaError> {
        check_libraries()?;
        let ctx = CudaContext::new(ordinal).map_err(driver("opening the device"))?;
        let (major, minor) = ctx.compute_capability().map_err(driver("reading the device"))?;
        let device_name = ctx.name().map_err(driver("reading the device name"))?;
        let module = ctx
            .load_module(ptx_for(&format!("sm_{major}{minor}"))?)
            .map_err(driver("loading the module"))?;
        let load = |name: &str| module.load_function(name).map_err(driver("loading a kernel"));
        // one warp-kernel family: `{name}_<EPL>` for the first `count` entries of WARP_EPL
        let family = |name: &str, count: usize| {
            WARP_EPL[..count]
                .iter()
                .map(|(epl, _)| load(&format!("{name}_{epl}")))
                .collect::<Result<Vec<_>, _>>()
        };
        let warp_rows = family("rtopk_warp_rows", WARP_EPL.len())?;
        let half_rows = family("rtopk_half_rows", HALF_EPL_COUNT)?;
        let quarter_rows = family("rtopk_quarter_rows", HALF_EPL_COUNT)?;
        let block_rows = load("rtopk_block_rows")?;
        let block_rows_narrow = load("rtopk_block_rows_narrow")?;
        let sort_rows = load("rtopk_sort_rows")?;
        let sort_warp_rows = SORT_WARP_E
            .iter()
            .map(|e| load(&format!("rtopk_sort_warp_rows_{e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let probe = load("read_bandwidth_probe")?;
        let spin = load("spin_ahead")?;
        let fill = load("fill_normal")?;
        let optin = ctx
            .attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
            .map_err(driver("reading the shared-memory limit"))? as usize;
        // SAFETY: a valid function handle of a loaded module and a valid attribute.
        let static_smem = unsafe {
            cudarc::driver::result::function::get_function_attribute(
                block_rows.cu_function(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            )
        }
        .map_err(driver("reading the block kernel's static shared memory"))?;
        // the block kernel's static shared memory (reduction slots, the selection's chunk counts and index stage) comes first
        let dynamic = optin.saturating_sub(static_smem.max(0) as usize);
        // SAFETY: a valid function handle of a loaded module, a valid attribute, and a size
        // within the device's opt-in limit.
        unsafe {
            cudarc::driver::result::function::set_function_attribute(
                block_rows.cu_function(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            )
        }
        .map_err(driver("raising the block kernel's shared-memory limit"))?;
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver("reading the SM count"))?
            .max(1) as usize;
        let stream = ctx.default_stream();
        Ok(Self {
            ctx,
            stream,
            _module: module,
            warp_rows,
            half_rows,
            quarter_rows,
            tuning: Tuning::from_env(sms).clamped(),
            block_rows,
            block_rows_narrow,
            sort_rows,
            sort_warp_rows,
            probe,
            spin,
            fill,
            device_name,
            cached_keys_cap: dynamic / 4,
        })
    }

    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// The stream every launch goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context of the device.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Row-wise top-k of `x` (device, `n * m` values, row-major) into device buffers: values
    /// and indices `n * k`, iteration counts `n`. Each row's results in ascending index order,
    /// or with `launch.sorted` in sorted order (SPEC §1).
    pub fn select_device(
        &self,
        launch: &Launch,
        x: &CudaSlice<f32>,
        out_val: &mut CudaSlice<f32>,
        out_idx: &mut CudaSlice<u32>,
        out_iter: &mut CudaSlice<u32>,
    ) -> Result<(), CudaError> {
        let Launch { n, m, k, mode, bisect, sorted } = *launch;
        check_shape(m, k)?;
        bisect.validate()?;
        check_buffers(launch, x.len(), out_val.len(), out_idx.len(), out_iter.len())?;
        if n == 0 || k == 0 {
            return Ok(());
        }
        let (func, cfg, cached) = self.shape_for(n, m, k, bisect.max_iter.is_none())?;
        let (n64, m32, k32) = (n as u64, m as u32, k as u32);
        let smallest = i32::from(mode == Mode::Smallest);
        let max_iter = bisect.max_iter.map_or(-1, |it| it.min(i32::MAX as u32) as i32);
        let precision = bisect.precision;
        // 16-byte loads need every row 16-byte aligned: cudarc allocations are 256-byte
        // aligned, so M % 4 == 0 is enough.
        let vec4 = i32::from(m % 4 == 0);
        let mut b = self.stream.launch_builder(func);
        b.arg(x).arg(&mut *out_val).arg(&mut *out_idx).arg(out_iter);
        b.arg(&n64).arg(&m32).arg(&k32).arg(&smallest).arg(&max_iter).arg(&precision).arg(&cached);
        let sign = if mode == Mode::Smallest { -1.0f32 } else { 1.0 };
        b.arg(&vec4).arg(&sign);
        // SAFETY: the arguments match RTOPK_ARGS in kernels/rtopk.cu in order and type, and
        // check_buffers proved x holds n*m values, the outputs n*k and n elements; the grid
        // covers exactly n rows (the kernels skip rows >= n).
        unsafe { b.launch(cfg) }.map_err(driver("launching the kernel"))?;
        drop(b);
        if sorted && k > 1 {
            self.sort_device(n, m, k, mode, x, out_val, out_idx)?;
        }
        Ok(())
    }

    /// Sorts each row's k results (as the selection leaves them) into SPEC §1's sorted order:
    /// one warp per row in registers for k <= 1024, one block per row (shared memory, or in
    /// place in global memory beyond 4096) for longer rows.
    #[allow(clippy::too_many_arguments)]
    fn sort_device(
        &self,
        n: usize,
        m: usize,
        k: usize,
        mode: Mode,
        x: &CudaSlice<f32>,
        out_val: &mut CudaSlice<f32>,
        out_idx: &mut CudaSlice<u32>,
    ) -> Result<(), CudaError> {
        let (n64, m32, k32) = (n as u64, m as u32, k as u32);
        let smallest = i32::from(mode == Mode::Smallest);
        if k <= 32 * SORT_WARP_E[SORT_WARP_E.len() - 1] {
            // one warp per row, E = k/32 rounded up to a power of two results per lane
            let e = k.div_ceil(32).next_power_of_two();
            let which = SORT_WARP_E.iter().position(|&w| w == e).unwrap_or(0);
            let blocks = u32::try_from(n.div_ceil(WARPS_PER_BLOCK as usize))
                .ok()
                .filter(|&b| b < i32::MAX as u32)
                .ok_or(CudaError::TooLarge { n, m, why: "more than 2^31 - 1 blocks to sort" })?;
            let cfg = LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (WARPS_PER_BLOCK * 32, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut b = self.stream.launch_builder(&self.sort_warp_rows[which]);
            b.arg(x).arg(out_val).arg(out_idx).arg(&n64).arg(&m32).arg(&k32).arg(&smallest);
            // SAFETY: the arguments match SORT_WARP_ARGS in kernels/rtopk.cu in order and
            // type; select_device checked the buffers (x: n*m, outputs: n*k); each warp touches
            // positions < k of its own row < n only.
            unsafe { b.launch(cfg) }.map_err(driver("launching the sort"))?;
            return Ok(());
        }
        let shape = SortShape::for_k(k);
        let blocks = u32::try_from(n)
            .ok()
            .filter(|&b| b < i32::MAX as u32)
            .ok_or(CudaError::TooLarge { n, m, why: "more than 2^31 - 1 blocks to sort" })?;
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (shape.row_threads, 1, 1),
            shared_mem_bytes: shape.smem,
        };
        let in_shared = i32::from(shape.in_shared);
        let mut b = self.stream.launch_builder(&self.sort_rows);
        b.arg(x).arg(out_val).arg(out_idx).arg(&n64).arg(&m32).arg(&k32).arg(&smallest);
        b.arg(&shape.pow2).arg(&shape.row_threads).arg(&in_shared);
        // SAFETY: the arguments match rtopk_sort_rows in kernels/rtopk.cu in order and type;
        // select_device checked the buffers (x: n*m, outputs: n*k); the kernel touches only
        // rows < n and positions < k of each, and (blockDim = row_threads: one row per block)
        // shared memory within one row of pow2 ranks, which is what `smem` holds.
        unsafe { b.launch(cfg) }.map_err(driver("launching the sort"))?;
        Ok(())
    }

    /// Lanes per row of the warp kernels for an `(n, m)` input and k: 8 (four rows per warp),
    /// 16 (two) or 32.
    fn lanes_per_row(&self, n: usize, m: usize, k: usize) -> usize {
        let t = &self.tuning;
        let quarter =
            m <= t.quarter_warp_max && k.saturating_mul(4) <= m && n >= t.quarter_min_rows;
        if quarter {
            8
        } else if m <= t.half_warp_max {
            16
        } else {
            32
        }
    }

    /// The kernel, launch configuration and cached-key count for an `(n, m)` input and k, in
    /// exact mode or not.
    fn shape_for(
        &self,
        n: usize,
        m: usize,
        k: usize,
        exact: bool,
    ) -> Result<(&CudaFunction, LaunchConfig, u32), CudaError> {
        if m <= MAX_BLOCK_FREE_ROW || (m <= self.tuning.max_warp_row && k.saturating_mul(8) <= m) {
            // Rows of 8, 16 or 32 lanes, and the narrowest instantiation that holds the row:
            // ceil(M / lanes) keys per lane.
            let lanes = self.lanes_per_row(n, m, k);
            let need = m.div_ceil(lanes);
            let which = WARP_EPL.iter().position(|&(e, _)| e >= need).unwrap_or(WARP_EPL.len() - 1);
            let warps = if lanes < 32 { WARPS_PER_BLOCK } else { WARP_EPL[which].1 };
            let rows_per_block = warps as usize * 32 / lanes;
            let blocks = n.div_ceil(rows_per_block);
            let blocks = u32::try_from(blocks).map_err(|_| CudaError::TooLarge {
                n,
                m,
                why: "more than 2^32 blocks",
            })?;
            let cfg = LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (warps * 32, 1, 1),
                shared_mem_bytes: 0, // the row lives in registers only
            };
            let funcs = match lanes {
                8 => &self.quarter_rows,
                16 => &self.half_rows,
                _ => &self.warp_rows,
            };
            return Ok((&funcs[which], cfg, 0));
        }
        let blocks = u32::try_from(n)
            .ok()
            .filter(|&b| b < i32::MAX as u32)
            .ok_or(CudaError::TooLarge { n, m, why: "more than 2^31 - 1 rows" })?;
        let m32 = u32::try_from(m).map_err(|_| CudaError::TooLarge { n, m, why: "M >= 2^32" })?;
        let threads = m
            .div_ceil(BLOCK_KEYS_PER_THREAD)
            .next_multiple_of(32)
            .clamp(64, BLOCK_THREADS as usize);
        // Registers hold the first BLOCK_KEYS_PER_THREAD * threads elements, shared memory as
        // many of the rest as fit.
        let in_regs = m.min(BLOCK_KEYS_PER_THREAD * threads);
        let cached = (m - in_regs).min(self.cached_keys_cap) as u32;
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (threads as u32, 1, 1),
            shared_mem_bytes: cached * 4,
        };
        debug_assert!(cached <= m32);
        if exact && k < BLOCK_CAND_CAP && BLOCK_NARROW_ROWS.contains(&m) {
            // all in registers, in blocks of at most 256 threads (its launch bound)
            debug_assert!(cached == 0 && threads <= 256);
            return Ok((&self.block_rows_narrow, cfg, cached));
        }
        Ok((&self.block_rows, cfg, cached))
    }

    /// Row-wise top-k of a host matrix: copies in, runs, copies out. With `opts.sorted` the k
    /// results of each row are sorted on the device.
    pub fn topk_rows(
        &self,
        x: ArrayView2<'_, f32>,
        k: usize,
        opts: Options,
        bisect: Bisect,
    ) -> Result<TopK, CudaError> {
        let (n, m) = x.dim();
        check_shape(m, k)?;
        let host: Vec<f32> = x.iter().copied().collect();
        let launch = Launch { n, m, k, mode: opts.mode, bisect, sorted: opts.sorted };
        let s = &self.stream;
        let dx = s.clone_htod(&host).map_err(driver("copying the input"))?;
        let mut val = s.alloc_zeros::<f32>((n * k).max(1)).map_err(driver("allocating"))?;
        let mut idx = s.alloc_zeros::<u32>((n * k).max(1)).map_err(driver("allocating"))?;
        let mut it = s.alloc_zeros::<u32>(n.max(1)).map_err(driver("allocating"))?;
        self.select_device(&launch, &dx, &mut val, &mut idx, &mut it)?;
        let mut values = s.clone_dtoh(&val).map_err(driver("copying values back"))?;
        let mut indices = s.clone_dtoh(&idx).map_err(driver("copying indices back"))?;
        let mut iterations = s.clone_dtoh(&it).map_err(driver("copying iterations back"))?;
        values.truncate(n * k);
        indices.truncate(n * k);
        iterations.truncate(n);
        let shape = (n, k);
        let err = |_| CudaError::TooLarge { n, m, why: "output shape" };
        Ok(TopK {
            values: Array2::from_shape_vec(shape, values).map_err(err)?,
            indices: Array2::from_shape_vec(shape, indices).map_err(err)?,
            iterations: Some(Array1::from(iterations)),
        })
    }

    /// Reads `x` (at least 4 values) once per launch, `reps` times after a warm-up, and
    /// returns the median read bandwidth in GB/s — the ceiling the top-k kernel is held to.
    pub fn read_bandwidth_gbps(&self, x: &CudaSlice<f32>, reps: usize) -> Result<f64, CudaError> {
        let n4 = (x.len() / 4) as u64;
        let mut sink = self.stream.alloc_zeros::<f32>(1).map_err(driver("allocating"))?;
        let cfg = LaunchConfig {
            grid_dim: (132 * 16, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut times = Vec::with_capacity(reps);
        for rep in 0..=reps {
            let ms = self.time_ms(|| {
                let mut b = self.stream.launch_builder(&self.probe);
                b.arg(x).arg(&n4).arg(&mut sink);
                // SAFETY: read_bandwidth_probe(const float4*, u64, float*): x holds 4 * n4
                // floats (float4-aligned: cudarc allocations are 256-byte aligned); sink 1.
                unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver("launching the probe"))
            })?;
            if rep > 0 {
                times.push(ms);
            }
        }
        times.sort_by(f64::total_cmp);
        let ms = times[times.len() / 2];
        Ok((n4 * 16) as f64 / (ms * 1e-3) / 1e9)
    }

    /// Fills `x` with standard-normal values generated on the device from `seed`.
    pub fn fill_normal(&self, x: &mut CudaSlice<f32>, seed: u64) -> Result<(), CudaError> {
        let n = x.len() as u64;
        let cfg = LaunchConfig {
            grid_dim: (132 * 32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(&self.fill);
        b.arg(x).arg(&n).arg(&seed);
        // SAFETY: fill_normal(float*, u64, u64) writes exactly the n elements of x.
        unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver("launching the generator"))
    }

    /// Registers per thread of each kernel (from the driver), for benchmark logs.
    pub fn kernel_registers(&self) -> Result<Vec<(String, i32)>, CudaError> {
        let regs = |f: &CudaFunction| {
            // SAFETY: a valid function handle of a loaded module and a valid attribute.
            unsafe {
                cudarc::driver::result::function::get_function_attribute(
                    f.cu_function(),
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
                )
            }
            .map_err(driver("reading a kernel attribute"))
        };
        let mut out = Vec::new();
        let families = [
            ("warp_rows", &self.warp_rows),
            ("half_rows", &self.half_rows),
            ("quarter_rows", &self.quarter_rows),
        ];
        for (name, funcs) in families {
            for ((epl, _), f) in WARP_EPL.iter().zip(funcs) {
                out.push((format!("{name}_{epl}"), regs(f)?));
            }
        }
        out.push(("block_rows".to_string(), regs(&self.block_rows)?));
        out.push(("block_rows_narrow".to_string(), regs(&self.block_rows_narrow)?));
        Ok(out)
    }

    /// Where the launch shapes change (see [`Tuning`]).
    pub fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// Changes where the launch shapes change (clamped to the kernels' instantiations).
    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.tuning = tuning.clamped();
    }

    /// The device's L2 cache size in bytes (benchmarks rotate inputs past it).
    pub fn l2_bytes(&self) -> Result<usize, CudaError> {
        let l2 = self
            .ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
            .map_err(driver("reading the L2 size"))?;
        Ok(l2.max(0) as usize)
    }

    /// Runs `work` between two CUDA events on the stream and returns the elapsed milliseconds
    /// of the GPU's work alone: a spin kernel ahead of the start event keeps the GPU busy
    /// while the host submits `work`, so the host's launch latency (2–3 µs on an H100, over a
    /// tenth of the smallest benchmark shapes' time) stays out of the figure. Fails if the host took
    /// longer than the spin even after a longer retry.
    pub fn time_ms(
        &self,
        mut work: impl FnMut() -> Result<(), CudaError>,
    ) -> Result<f64, CudaError> {
        for spin_ns in SPIN_AHEAD_NS {
            self.spin_ahead(spin_ns)?;
            let (ms, queued) = self.time_events(&mut work)?;
            if queued {
                return Ok(ms);
            }
        }
        Err(CudaError::Timing { spin_ms: SPIN_AHEAD_NS[SPIN_AHEAD_NS.len() - 1] as f64 * 1e-6 })
    }

    /// [`CudaTopK::time_ms`] from an idle GPU: the figure includes the host's time to submit
    /// `work` (this crate's benchmarks before 2026-11-21 were timed this way).
    pub fn time_ms_idle_start(
        &self,
        mut work: impl FnMut() -> Result<(), CudaError>,
    ) -> Result<f64, CudaError> {
        self.stream.synchronize().map_err(driver("waiting for the GPU"))?;
        Ok(self.time_events(&mut work)?.0)
    }

    /// Elapsed milliseconds between events around `work`, and whether the start event was still
    /// pending once `work` had been submitted (the GPU never waited for the host).
    fn time_events(
        &self,
        work: &mut impl FnMut() -> Result<(), CudaError>,
    ) -> Result<(f64, bool), CudaError> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags).map_err(driver("recording an event"))?;
        work()?;
        let queued = !start.try_is_complete().map_err(driver("querying an event"))?;
        let end = self.stream.record_event(flags).map_err(driver("recording an event"))?;
        end.synchronize().map_err(driver("waiting for the GPU"))?;
        Ok((f64::from(start.elapsed_ms(&end).map_err(driver("reading an event"))?), queued))
    }

    /// Queues a one-thread kernel that runs for `ns` nanoseconds.
    fn spin_ahead(&self, ns: u64) -> Result<(), CudaError> {
        let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
        let mut b = self.stream.launch_builder(&self.spin);
        b.arg(&ns);
        // SAFETY: spin_ahead(u64) takes one integer and touches no memory.
        unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver("launching the spin kernel"))
    }
}

/// Checks the device buffers' lengths against the launch.
fn check_buffers(l: &Launch, x: usize, val: usize, idx: usize, it: usize) -> Result<(), CudaError> {
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
    let nm = l.n.checked_mul(l.m).ok_or(CudaError::TooLarge { n: l.n, m: l.m, why: "n * m" })?;
    need("the input", x, nm)?;
    need("the values output", val, l.n * l.k)?;
    need("the indices output", idx, l.n * l.k)?;
    need("the iterations output", it, l.n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sort_shape_covers_every_pair_and_fits_shared_memory() {
        for k in (1025..=70_000).step_by(97).chain([1025, 2047, 2048, 4096, 4097, 65536]) {
            let s = SortShape::for_k(k);
            assert!(s.pow2 as usize >= k && (s.pow2 as usize) < 2 * k, "k={k}");
            assert!(s.row_threads <= s.pow2 / 2 && s.row_threads <= 1024, "k={k} {s:?}");
            assert_eq!(s.in_shared, k <= SORT_SHARED_MAX, "k={k}");
            if s.in_shared {
                assert_eq!(s.smem as usize, s.pow2 as usize * 8, "k={k}");
                assert!(s.smem <= 48 * 1024, "k={k} {s:?}: over the default shared memory");
            } else {
                assert_eq!(s.smem, 0);
            }
        }
    }
    /// The launcher, the kernel source and the simulator agree on which block rows narrow and
    /// to how many candidates (three copies of two numbers: a drift would make the CUDA and
    /// the simulated kernels part ways without changing a result).
    #[test]
    fn block_narrowing_is_the_same_in_the_launcher_the_kernel_and_the_simulator() {
        use warp_sim::kernel as sim;
        assert_eq!(BLOCK_CAND_CAP, sim::BLOCK_CAND_CAP);
        assert_eq!(BLOCK_NARROW_ROWS, sim::BLOCK_NARROW_MIN_M..=sim::BLOCK_NARROW_MAX_M);
        let keys = format!("#define BLOCK_CAND_KEYS {}\n", BLOCK_CAND_CAP / 32);
        assert!(KERNEL_SOURCE.contains(&keys), "kernel source lacks {keys:?}");
        // every narrowing row is a block row of the default shapes, all in registers, <= 256 threads
        assert!(*BLOCK_NARROW_ROWS.start() > MAX_WARP_ROW && *BLOCK_NARROW_ROWS.end() <= 256 * 32);
    }
}
