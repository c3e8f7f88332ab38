//! `cuda`: the RTop-K CUDA kernel (crate `rtopk_cuda`) on host rows — copied to the GPU and
//! back — and on device buffers a framework owns ([`select_raw`]: torch's tensors on torch's
//! stream). Both take the route of the same [`Request`]: iteration counts only when asked for,
//! so without them a long row is split (rtopk-plan's `split`), as `rtopk.topk` splits it.
//!
//! The GPU's own API that a face needs (its errors, whether the libraries load) is
//! re-exported here: a face names `rtopk::cuda`, never the engine crate.
//!
//! [`select_raw`] is the crate's one `unsafe fn`: it passes the caller's contract on device
//! addresses through to rtopk-cuda unchanged.

use ndarray::ArrayView2;
use rtopk_cuda::{DataTypes, ElemType, HostRows, IndexType, Launch, Strategy};

use crate::algorithm::{KernelElement, Selection};
use crate::caps::{CUDA, Capabilities};
use crate::dtype::Dtype;
use crate::error::Error;
use crate::kernel::{Executor, Job, RowArrays};
use crate::request::{IndexWidth, Request};

pub use rtopk_cuda::shipped::{ShippedArch, UNITS_DIR_ENV, add_dir as add_units_dir};
pub use rtopk_cuda::{
    CACHE_DIR_ENV, CudaError, CudaTopK, GroupedBuffers, RawBuffers, check_driver, check_libraries,
    shared_device,
};

/// The GPU as an executor of the kernel. Building one touches no device; the first selection
/// opens the GPU, which the process then keeps with its loaded kernels
/// (`rtopk_cuda::shared_device`), so a machine without a GPU gets [`Error::Cuda`] from the
/// selection, not from the request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Gpu {
    ordinal: usize,
}

impl Gpu {
    /// CUDA device `ordinal`.
    pub(crate) fn on(ordinal: usize) -> Self {
        Self { ordinal }
    }
}

impl Executor for Gpu {
    const NAME: &'static str = "cuda";
    const CAPS: Capabilities = CUDA;

    fn run<E: KernelElement>(
        &self,
        x: ArrayView2<'_, E>,
        job: Job,
        rows: RowArrays<'_>,
        out: &mut Selection<E>,
    ) -> Result<(), Error> {
        let gpu = shared_device(self.ordinal)?;
        let Job { k, opts, bisect, counts } = job;
        let host = HostRows {
            lengths: rows.lengths,
            k_per_row: rows.k_per_row,
            hint: rows.hint,
            threshold: rows.threshold,
        };
        let how = (opts, bisect, Strategy::Auto, counts);
        let (topk, threshold) = gpu.topk_rows_threshold(x, k, how, host)?;
        out.topk = topk;
        out.threshold = threshold;
        out.diagnostics = None;
        Ok(())
    }
}

/// The shape and element type of the rows in device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Rows.
    pub n: usize,
    /// Elements per row.
    pub m: usize,
    /// Their type.
    pub dtype: Dtype,
}

/// The launch a request on rows of `shape` is, after every check of the request against them
/// ([`Request::check`]); the GPU it runs on; the data types of its buffers.
pub(crate) fn launch_of(request: &Request, shape: Shape) -> Result<(Launch, DataTypes), Error> {
    if request.algo() != Gpu::NAME {
        return Err(Error::WrongDevice {
            algo: request.algo().to_string(),
            why: "device buffers are read by 'cuda' (or 'auto' on a GPU) only".to_string(),
        });
    }
    let Shape { n, m, dtype } = shape;
    let k = request.check(n, m, dtype)?;
    // the kernel's type of the same name (`check` refused the types the kernel does not take)
    let elem = ElemType::from_name(dtype.name())
        .ok_or_else(|| crate::table::dtype_not_supported(dtype, request.algo()))?;
    let index = match request.index_width() {
        IndexWidth::U32 => IndexType::U32,
        IndexWidth::I64 => IndexType::I64,
    };
    Ok((request.launch((n, m, k), elem), DataTypes { elem, index }))
}

/// `true` when the kernels a [`select_raw`] of `request` on `shape` launches are built and
/// loaded on its GPU: launching then builds nothing (and may be captured in a CUDA graph).
/// Opens the GPU on first use.
pub fn is_ready(request: &Request, shape: Shape) -> Result<bool, Error> {
    let (launch, types) = launch_of(request, shape)?;
    let gpu = shared_device(request.place().ordinal())?;
    let units = gpu.raw_units(&launch, types, request.wanted().iterations, ragged_of(request))?;
    Ok(gpu.is_loaded(&units))
}

/// Builds and loads the kernels a [`select_raw`] of `request` on `shape` launches (NVRTC,
/// about a second the first time on a device; a face releases its interpreter meanwhile).
pub fn prepare(request: &Request, shape: Shape) -> Result<(), Error> {
    let (launch, types) = launch_of(request, shape)?;
    let gpu = shared_device(request.place().ordinal())?;
    let units = gpu.raw_units(&launch, types, request.wanted().iterations, ragged_of(request))?;
    Ok(gpu.prepare(&units)?)
}

/// The per-row arrays a request's launch on device buffers reads and writes.
fn ragged_of(request: &Request) -> rtopk_cuda::Ragged {
    request.ragged_arrays(true)
}

/// What [`prepare_all`] did on one GPU.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The device's name.
    pub device: String,
    /// Kernel units loaded (every one the plan can launch, in every element and index type).
    pub units: usize,
    /// Of them, compiled by NVRTC now.
    pub compiled: usize,
    /// Of them, read from the shipped units (the rest came from the disk cache or this
    /// process).
    pub shipped: usize,
    /// Wall milliseconds of the whole preparation.
    pub ms: f64,
}

/// Builds and loads every kernel unit for GPU `ordinal` — NVRTC on every core, or the disk
/// cache where an earlier process built them — so that no later call of any shape, element
/// type or option compiles anything: in this process, and through the cache in every later
/// one (`rtopk prepare`, `python -m rtopk.cuda prepare`, once after installing).
pub fn prepare_all(ordinal: usize) -> Result<Prepared, Error> {
    let start = std::time::Instant::now();
    let gpu = shared_device(ordinal)?;
    let units = rtopk_cuda::kernels::Unit::all();
    gpu.prepare(&units)?;
    let reports = gpu.unit_reports();
    let from = |c| reports.iter().filter(|r| r.cache == c).count();
    Ok(Prepared {
        device: gpu.device_name().to_string(),
        units: units.len(),
        compiled: from(rtopk_cuda::CacheUse::Compiled),
        shipped: from(rtopk_cuda::CacheUse::Shipped),
        ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// `true` when this process can run the kernels on a GPU of this machine, if it has one: the
/// driver loads, and NVRTC does or shipped units are named ([`add_units_dir`]; whether they
/// hold the device's architecture shows only when it is opened).
pub fn can_run() -> bool {
    check_driver().is_ok() && (check_libraries().is_ok() || rtopk_cuda::shipped::any_dir())
}

/// Compiles every kernel unit for each architecture of `archs` (`sm_80`, `sm_90`, ...) with
/// NVRTC — no GPU needed — into `dir/<arch>/`, the units a face ships so that no first call
/// compiles (`rtopk prepare --arch ... --out DIR`; the Python wheel's `rtopk/_units`). A
/// process reads them once the directory is registered ([`add_units_dir`]) or named by
/// [`UNITS_DIR_ENV`].
pub fn ship_units(dir: &std::path::Path, archs: &[String]) -> Result<Vec<ShippedArch>, Error> {
    let files = rtopk_cuda::kernels::KernelFiles::embedded();
    Ok(rtopk_cuda::shipped::build(dir, archs, &files)?)
}

/// Row-wise top-k of `request` on device buffers the caller owns, queued on the caller's
/// `stream` of the request's GPU (`Place::Cuda(ordinal)`): nothing allocated by the caller's
/// allocator, copied or synchronised. `bufs.iterations` must be 0 exactly when the request
/// wants no iteration counts (the route may then split rows). Builds the kernels on first use
/// ([`prepare`] first to keep that out of a capture).
///
/// # Safety
/// As `rtopk_cuda::CudaTopK::select_raw`: `bufs` point to memory of the request's GPU, of the
/// sizes [`RawBuffers`] states (`n * m` and `n * k` of `shape.dtype`, `n * k` indices of the
/// request's width, `n` u32), valid until the work queued on `stream` completes; `stream` is
/// the handle of a stream of that device's primary context, or 0.
#[allow(unsafe_code)]
pub unsafe fn select_raw(
    request: &Request,
    shape: Shape,
    bufs: RawBuffers,
    stream: u64,
) -> Result<(), Error> {
    let (launch, types) = checked_launch(request, shape, bufs)?;
    let gpu = shared_device(request.place().ordinal())?;
    // SAFETY: the caller's buffers and stream, under this function's contract, which is
    // `CudaTopK::select_raw`'s; the launch was checked against the request above.
    unsafe { gpu.select_raw(&launch, types, bufs, stream) }?;
    Ok(())
}

/// [`select_raw`] where the kernels it launches are built and loaded: queues the work and
/// returns `true`; otherwise queues nothing and returns `false` ([`prepare`], then call again).
/// Every check is [`select_raw`]'s, made once: an eager face's loop pays for one lookup of the
/// launch's program per call instead of one for [`is_ready`] and one for the launch.
///
/// # Safety
/// As [`select_raw`].
#[allow(unsafe_code)]
pub unsafe fn select_raw_if_ready(
    request: &Request,
    shape: Shape,
    bufs: RawBuffers,
    stream: u64,
) -> Result<bool, Error> {
    let (launch, types) = checked_launch(request, shape, bufs)?;
    let gpu = shared_device(request.place().ordinal())?;
    // SAFETY: the caller's buffers and stream, under this function's contract, which is
    // `CudaTopK::select_raw`'s; the launch was checked against the request above.
    Ok(unsafe { gpu.select_raw_loaded(&launch, types, bufs, stream) }?)
}

/// The per-row array of `n` int64 entries at `entries` (lengths or k, docs/contract.md §5; a
/// framework's default integer type) written at `words` as the `n` 32-bit words a
/// [`select_raw`] reads, each clamped to `[0, bound]` (the row width for lengths, the output
/// width for k), queued on the caller's `stream` of GPU `ordinal`: one launch of a shipped
/// unit, nothing synchronised. Loads that unit on first use ([`prepare_per_row_words`]).
///
/// # Safety
/// `entries` must point to `n` int64 values and `words` to room for `n` u32 in GPU
/// `ordinal`'s memory, valid until the work queued on `stream` completes; `stream` as in
/// [`select_raw`].
#[allow(unsafe_code)]
pub unsafe fn per_row_words_raw(
    ordinal: usize,
    entries: u64,
    words: u64,
    n: u64,
    bound: u32,
    stream: u64,
) -> Result<(), Error> {
    // SAFETY: the caller's buffers and stream, under this function's contract.
    if !unsafe { per_row_words_raw_if_ready(ordinal, entries, words, n, bound, stream) }? {
        prepare_per_row_words(ordinal)?;
        // SAFETY: as above; the unit is loaded now, so this queues the launch.
        unsafe { per_row_words_raw_if_ready(ordinal, entries, words, n, bound, stream) }?;
    }
    Ok(())
}

/// [`per_row_words_raw`] where its unit is loaded (`true`, queued); `false`, queueing
/// nothing, where it is not: a face then loads it with its interpreter released
/// ([`prepare_per_row_words`]) and calls again.
///
/// # Safety
/// As [`per_row_words_raw`].
#[allow(unsafe_code)]
pub unsafe fn per_row_words_raw_if_ready(
    ordinal: usize,
    entries: u64,
    words: u64,
    n: u64,
    bound: u32,
    stream: u64,
) -> Result<bool, Error> {
    if n > 0 && (entries == 0 || words == 0) {
        return Err(Error::NullPerRowBuffer);
    }
    let gpu = shared_device(ordinal)?;
    // SAFETY: the caller's buffers and stream, under this function's contract.
    Ok(unsafe { gpu.per_row_words_raw(entries, words, n, bound, stream) }?)
}

/// Loads the unit of [`per_row_words_raw`] on GPU `ordinal` (a shipped one, or NVRTC).
pub fn prepare_per_row_words(ordinal: usize) -> Result<(), Error> {
    Ok(shared_device(ordinal)?.load_utilities()?)
}

/// Every check [`select_raw`] makes of `request`, `shape` and `bufs` before it touches a
/// device (the request against the rows, the outputs and per-row arrays it needs, no null
/// buffer where something is written): a face calls it first so that a bad call is refused
/// as such on a machine without a GPU too.
pub fn check_raw(request: &Request, shape: Shape, bufs: RawBuffers) -> Result<(), Error> {
    checked_launch(request, shape, bufs).map(|_| ())
}

/// [`check_raw`], returning the launch and its buffers' types.
fn checked_launch(
    request: &Request,
    shape: Shape,
    bufs: RawBuffers,
) -> Result<(Launch, DataTypes), Error> {
    let (launch, types) = launch_of(request, shape)?;
    if (bufs.iterations != 0) != request.wanted().iterations {
        return Err(Error::RawIterations { wanted: request.wanted().iterations });
    }
    check_raw_rows(request, bufs)?;
    if launch.n > 0 && launch.k > 0 && (bufs.x == 0 || bufs.values == 0 || bufs.indices == 0) {
        return Err(Error::NullBuffer);
    }
    Ok((launch, types))
}

/// The per-row device arrays of a request on device buffers (docs/contract.md §5): given
/// exactly where the request has lengths, a k per row or hints (the kernel reads the device
/// arrays; the request's own give the outputs' width), and the thresholds' array exactly where
/// the request wants thresholds (the kernel writes it).
fn check_raw_rows(request: &Request, bufs: RawBuffers) -> Result<(), Error> {
    let rows = request.rows();
    let per_row_k = matches!(rows.k, topk_ref::KPerRow::PerRow(_));
    let asked = [
        ("lengths", bufs.lengths, rows.lengths.is_some()),
        ("k_per_row", bufs.k_per_row, per_row_k),
    ];
    for (what, given, asked) in asked {
        if given != 0 && !asked {
            return Err(Error::TopK(topk_ref::TopKError::InvalidParameter {
                name: what,
                reason: "a device array is given but the request has none".to_string(),
            }));
        }
        if given == 0 && asked {
            // the face passes no device array yet: the kernel would read the launch's own
            return Err(crate::table::not_yet(
                "rows of their own length or k on device buffers without their device arrays",
                Gpu::NAME,
            ));
        }
    }
    let hint_wanted = rows.hint.is_some();
    if bufs.hint != 0 && !hint_wanted {
        return Err(Error::TopK(topk_ref::TopKError::InvalidParameter {
            name: "hint",
            reason: "a device array is given but the request has no hints".to_string(),
        }));
    }
    if bufs.hint == 0 && hint_wanted {
        return Err(Error::TopK(topk_ref::TopKError::InvalidParameter {
            name: "hint",
            reason: "the request has hints but their device array is missing".to_string(),
        }));
    }
    let threshold_wanted = request.wanted().threshold;
    if bufs.threshold != 0 && !threshold_wanted {
        return Err(Error::TopK(topk_ref::TopKError::InvalidParameter {
            name: "threshold",
            reason: "a device array is given but the request wants no thresholds".to_string(),
        }));
    }
    if bufs.threshold == 0 && threshold_wanted {
        return Err(Error::TopK(topk_ref::TopKError::InvalidParameter {
            name: "threshold",
            reason: "the request wants thresholds but their device array is missing".to_string(),
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Place;

    #[test]
    fn raw_per_row_arrays_must_match_the_request() {
        let plain = Request::builder("cuda").k(2).place(Place::Cuda(0)).build().unwrap();
        let ragged = Request::builder("cuda")
            .k_per_row(vec![1, 2])
            .lengths(vec![3, 8])
            .place(Place::Cuda(0))
            .build()
            .unwrap();
        let none = RawBuffers::default();
        let both = RawBuffers { lengths: 5, k_per_row: 6, ..none };
        assert!(check_raw_rows(&plain, none).is_ok());
        assert!(check_raw_rows(&ragged, both).is_ok());
        let e = check_raw_rows(&plain, both).unwrap_err();
        assert!(matches!(e, Error::TopK(_)) && e.is_user_error(), "{e}");
        let e = check_raw_rows(&ragged, RawBuffers { lengths: 5, ..none }).unwrap_err();
        assert!(matches!(e, Error::NotYetSupported { .. }), "{e}");
        // hints (with counts) and thresholds: their device arrays exactly where asked for
        let hinted = Request::builder("cuda")
            .k(2)
            .hint(vec![0.5; 2])
            .iterations(true)
            .threshold(true)
            .place(Place::Cuda(0))
            .build()
            .unwrap();
        let arrays = RawBuffers { hint: 7, threshold: 8, ..none };
        assert!(check_raw_rows(&hinted, arrays).is_ok());
        for (bufs, name) in [
            (RawBuffers { threshold: 8, ..none }, "hint"),
            (RawBuffers { hint: 7, ..none }, "threshold"),
        ] {
            let e = check_raw_rows(&hinted, bufs).unwrap_err();
            assert!(e.is_user_error(), "{e}");
            assert!(e.to_string().contains(name) && e.to_string().contains("missing"), "{e}");
        }
        for bufs in [RawBuffers { hint: 7, ..none }, RawBuffers { threshold: 8, ..none }] {
            let e = check_raw_rows(&plain, bufs).unwrap_err();
            assert!(matches!(e, Error::TopK(_)) && e.to_string().contains("is given"), "{e}");
        }
    }

    #[test]
    #[allow(unsafe_code)]
    fn raw_launches_are_checked_before_any_device() {
        let shape = Shape { n: 2, m: 8, dtype: Dtype::Float16 };
        let heap = Request::new("heap", 2).unwrap();
        assert!(matches!(launch_of(&heap, shape), Err(Error::WrongDevice { .. })));
        let r = Request::builder("auto").k(9).place(Place::Cuda(0)).build().unwrap();
        assert!(matches!(launch_of(&r, shape), Err(Error::TopK(_))));
        let r = Request::builder("auto")
            .k(3)
            .place(Place::Cuda(0))
            .sorted(true)
            .index_width(IndexWidth::I64)
            .build()
            .unwrap();
        let (launch, types) = launch_of(&r, shape).unwrap();
        assert_eq!((launch.n, launch.m, launch.k, launch.sorted), (2, 8, 3, true));
        assert_eq!((types.elem, types.index), (ElemType::F16, IndexType::I64));
        let bufs =
            RawBuffers { x: 1, values: 2, indices: 3, iterations: 4, ..RawBuffers::default() };
        // SAFETY: refused before any address is read (no counts were asked for).
        let e = unsafe { select_raw(&r, shape, bufs, 0) }.unwrap_err();
        assert!(matches!(e, Error::RawIterations { wanted: false }), "{e}");
        let bufs =
            RawBuffers { x: 0, values: 2, indices: 3, iterations: 0, ..RawBuffers::default() };
        // SAFETY: refused before any address is read (a null input).
        let e = unsafe { select_raw(&r, shape, bufs, 0) }.unwrap_err();
        assert!(matches!(e, Error::NullBuffer), "{e}");
    }

    /// A per-row conversion with a null buffer is refused before any device is opened (so on
    /// a machine without a GPU too).
    #[test]
    #[allow(unsafe_code)]
    fn a_per_row_conversion_refuses_null_buffers_first() {
        for (entries, words) in [(0, 8), (8, 0), (0, 0)] {
            // SAFETY: refused before any address is read or any device opened.
            let e = unsafe { per_row_words_raw(0, entries, words, 3, 10, 0) }.unwrap_err();
            assert!(matches!(e, Error::NullPerRowBuffer), "{e}");
            // SAFETY: as above.
            let e = unsafe { per_row_words_raw_if_ready(0, entries, words, 3, 10, 0) }.unwrap_err();
            assert!(matches!(e, Error::NullPerRowBuffer), "{e}");
            assert!(e.is_user_error());
        }
    }

    #[test]
    fn without_a_gpu_the_device_calls_fail_as_the_environment() {
        if check_libraries().is_ok() {
            return; // a CUDA machine: the GPU tests cover these
        }
        let r = Request::builder("cuda").k(2).place(Place::Cuda(0)).build().unwrap();
        let shape = Shape { n: 1, m: 8, dtype: Dtype::Float32 };
        for e in [is_ready(&r, shape).unwrap_err(), prepare(&r, shape).unwrap_err()] {
            assert!(matches!(e, Error::Cuda(_)) && !e.is_user_error(), "{e}");
        }
        let x = ndarray::Array2::<f32>::zeros((1, 8));
        let e = crate::select(x.view(), &r).unwrap_err();
        assert!(matches!(e, Error::Cuda(_)) && !e.is_user_error(), "{e}");
    }
}
