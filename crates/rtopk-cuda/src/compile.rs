//! NVRTC: a unit's generated source to the image the driver loads — SASS (a cubin) for the
//! device's architecture, so that the driver has nothing left to compile — kept per process
//! and on disk (`disk_cache.rs`).
//!
//! This is the thin unsafe layer over NVRTC (cudarc's `nvrtc::result` and `sys` calls); the
//! callers see bytes, times and typed errors.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cudarc::nvrtc::{result, sys};

use crate::CudaError;
use crate::disk_cache::{self, Entry, ImageKind};
use crate::kernels::{KernelFiles, Unit, UnitSource};

/// NVRTC's options besides the architecture. The threshold arithmetic must round exactly as
/// the CPU's: no FMA contraction, no flush-to-zero, IEEE division and square root, no
/// fast-math.
const OPTIONS: [&str; 5] =
    ["--ftz=false", "--prec-sqrt=true", "--prec-div=true", "--fmad=false", "--std=c++17"];

/// What NVRTC is asked for on a device of compute capability `major.minor`: a cubin for
/// `sm_XY` when this NVRTC knows the architecture; otherwise PTX for the newest virtual
/// architecture it knows below the device's (`compute_XY`), which the driver compiles when
/// the module is loaded — the one case left for the driver's JIT: a device newer than the
/// NVRTC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// `sm_90`, or `compute_90` for PTX.
    pub arch: String,
    /// What the arch yields.
    pub kind: ImageKind,
}

impl Target {
    /// The target for a device of `major.minor`, given the architectures NVRTC supports
    /// (`supported`: 75, 80, ...; empty if it could not say).
    pub fn for_device(major: i32, minor: i32, supported: &[i32]) -> Self {
        let cc = major * 10 + minor;
        if supported.is_empty() || supported.contains(&cc) {
            return Self { arch: format!("sm_{cc}"), kind: ImageKind::Cubin };
        }
        let newest_below = supported.iter().copied().filter(|&a| a < cc).max().unwrap_or(cc);
        Self { arch: format!("compute_{newest_below}"), kind: ImageKind::Ptx }
    }

    /// A cubin for `arch` (`sm_90`), or PTX for `compute_90` / with `ptx` set.
    pub fn named(arch: &str, ptx: bool) -> Self {
        let kind =
            if ptx || arch.starts_with("compute_") { ImageKind::Ptx } else { ImageKind::Cubin };
        Self { arch: arch.to_string(), kind }
    }

    /// Whether kernels built for this target wait for the previous step at their entry
    /// (`wait_for_previous_step`, kernels/common.cuh: `griddepcontrol.wait` from compute
    /// capability 9.0 on), so that the launcher may let a step start before the one ahead of
    /// it ends. Read off the architecture the kernels are compiled for, not the device's: PTX
    /// for an older virtual architecture has no wait.
    pub fn waits_for_previous_step(&self) -> bool {
        let digits = self.arch.rsplit('_').next().unwrap_or("");
        let number: String = digits.chars().take_while(char::is_ascii_digit).collect();
        number.parse::<u32>().is_ok_and(|cc| cc >= 90)
    }

    pub(crate) fn options(&self) -> Vec<String> {
        let mut out: Vec<String> = OPTIONS.iter().map(|s| s.to_string()).collect();
        out.push(format!("--gpu-architecture={}", self.arch));
        out
    }
}

/// NVRTC's version ("unknown" if it cannot say, "none" without NVRTC), for the cache's key.
pub fn nvrtc_version() -> String {
    if !nvrtc_present() {
        return "none".into();
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the NVRTC library loads (checked above); nvrtcVersion writes two ints.
    let status = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    if status == sys::nvrtcResult::NVRTC_SUCCESS {
        format!("{major}.{minor}")
    } else {
        "unknown".into()
    }
}

/// The real architectures this NVRTC compiles for (75, 80, ...), empty if it cannot say or
/// there is no NVRTC.
pub fn supported_archs() -> Vec<i32> {
    if !nvrtc_present() {
        return Vec::new();
    }
    let mut count = 0;
    // SAFETY: NVRTC is loaded (checked above); writes one int.
    if unsafe { sys::nvrtcGetNumSupportedArchs(&mut count) } != sys::nvrtcResult::NVRTC_SUCCESS {
        return Vec::new();
    }
    let mut archs = vec![0; count.max(0) as usize];
    // SAFETY: `archs` has room for the `count` ints NVRTC writes.
    let status = unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) };
    if status == sys::nvrtcResult::NVRTC_SUCCESS { archs } else { Vec::new() }
}

/// Where a unit's image came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// Compiled by NVRTC now.
    Compiled,
    /// Read from the disk cache.
    Disk,
    /// Read from the units shipped with the library (`shipped.rs`).
    Shipped,
    /// Compiled or read earlier in this process.
    Process,
}

impl CacheUse {
    /// "compiled", "disk", "shipped" or "process".
    pub fn name(self) -> &'static str {
        match self {
            CacheUse::Compiled => "compiled",
            CacheUse::Disk => "disk",
            CacheUse::Shipped => "shipped",
            CacheUse::Process => "process",
        }
    }
}

/// A unit's image and where it came from.
#[derive(Clone, Debug)]
pub(crate) struct Image {
    pub(crate) bytes: Arc<Vec<u8>>,
    pub(crate) cache: CacheUse,
    /// What the image is built for: the target's architecture, or a shipped unit's (an older
    /// one of the device's major version: `shipped.rs`).
    pub(crate) arch: String,
    pub(crate) kind: ImageKind,
    /// Milliseconds spent getting it (NVRTC, or reading the cache).
    pub(crate) ms: f64,
}

/// An image kept in the process: its bytes, architecture and kind.
type Kept = (Arc<Vec<u8>>, String, ImageKind);

/// The images compiled or read in this process, by where they came from (shipped or built),
/// target and source: within a process NVRTC and its options do not change.
fn process_cache() -> &'static Mutex<HashMap<String, Kept>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Kept>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// `unit`'s image for `target`: from this process's earlier loads, the shipped units for a
/// device of `shipped_for` (none: never a shipped one), the disk cache, or NVRTC (then stored on
/// disk; a cache that cannot be written is only slower). Without NVRTC, only what the process or
/// the shipped units hold can be had.
pub(crate) fn image(
    unit: Unit,
    files: &KernelFiles,
    target: &Target,
    shipped_for: Option<(i32, i32)>,
) -> Result<Image, CudaError> {
    let start = Instant::now();
    let source = unit.source(files)?;
    let ms = |start: Instant| start.elapsed().as_secs_f64() * 1e3;
    let kept = |from: &str| format!("{from}\n{}\n{source}", target.arch);
    let in_process =
        |key: &String| process_cache().lock().unwrap_or_else(|p| p.into_inner()).get(key).cloned();
    let remembered = match shipped_for {
        Some(_) => in_process(&kept("shipped")).or_else(|| in_process(&kept("built"))),
        None => in_process(&kept("built")),
    };
    if let Some((bytes, arch, kind)) = remembered {
        return Ok(Image { bytes, cache: CacheUse::Process, arch, kind, ms: ms(start) });
    }
    let name = unit.to_string();
    let shipped = shipped_for.and_then(|cc| crate::shipped::find(&name, cc, &source));
    let (bytes, arch, kind, cache, from) = match shipped {
        Some((bytes, arch)) => (bytes, arch, ImageKind::Cubin, CacheUse::Shipped, "shipped"),
        None => {
            if !nvrtc_present() {
                return Err(CudaError::NotShipped { unit: name, arch: target.arch.clone() });
            }
            let (bytes, cache) = built(&name, &source, target)?;
            (bytes, target.arch.clone(), target.kind, cache, "built")
        }
    };
    let bytes = Arc::new(bytes);
    process_cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(kept(from), (bytes.clone(), arch.clone(), kind));
    Ok(Image { bytes, cache, arch, kind, ms: ms(start) })
}

/// The image NVRTC makes of `source` for `target`, from the disk cache where an earlier process
/// made it.
fn built(name: &str, source: &str, target: &Target) -> Result<(Vec<u8>, CacheUse), CudaError> {
    let key = disk_cache::key(&nvrtc_version(), &target.arch, &target.options(), source);
    let entry = Entry { unit: name, target: &target.arch, kind: target.kind };
    let disk = disk_cache::dir();
    if let Some(bytes) = disk.as_deref().and_then(|d| disk_cache::load(d, entry, &key)) {
        return Ok((bytes, CacheUse::Disk));
    }
    let bytes = compile(name, source, target)?;
    if let Some(d) = disk.as_deref() {
        let _ = disk_cache::store(d, entry, &key, &bytes);
    }
    Ok((bytes, CacheUse::Compiled))
}

/// Compiles every unit of `units` for `target` with NVRTC, one per core, and keeps nothing:
/// whether the kernels' sources compile, checked where there is no GPU (CI, a change to a
/// kernel before the device runs it). The images' total size, or the first unit that failed
/// with NVRTC's log.
pub fn compile_units(
    units: &[Unit],
    files: &KernelFiles,
    target: &Target,
) -> Result<usize, CudaError> {
    crate::check_nvrtc()?;
    let bytes = AtomicUsize::new(0);
    on_every_core(units, |unit| {
        let image = compile(&unit.to_string(), &unit.source(files)?, target)?;
        bytes.fetch_add(image.len(), Ordering::Relaxed);
        Ok(())
    })?;
    Ok(bytes.into_inner())
}

/// Runs `f` on every item, one item at a time per thread on up to as many threads as the
/// machine has cores (NVRTC compiles one program per thread: `CudaTopK::prepare`, the shipped
/// units' build). Returns the first error; after it no thread takes another item.
pub(crate) fn on_every_core<T: Sync>(
    items: &[T],
    f: impl Fn(&T) -> Result<(), CudaError> + Sync,
) -> Result<(), CudaError> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len());
    let next = AtomicUsize::new(0);
    let failure = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = f(item) {
                        failure.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                        next.store(items.len(), Ordering::Relaxed);
                    }
                }
            });
        }
    });
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Compiles `source` (named `name` in NVRTC's messages) for `target`: the cubin, or the PTX
/// with its terminating NUL (as the driver reads it).
pub(crate) fn compile(name: &str, source: &str, target: &Target) -> Result<Vec<u8>, CudaError> {
    let fail =
        |log: String| CudaError::Compile { unit: name.to_string(), arch: target.arch.clone(), log };
    let src = CString::new(source).map_err(|_| fail("the source holds a NUL byte".into()))?;
    let cname = CString::new(name).map_err(|_| fail("the name holds a NUL byte".into()))?;
    let prog = result::create_program(&src, Some(&cname)).map_err(|e| fail(e.to_string()))?;
    let program = Program(prog);
    let options = target.options();
    // SAFETY: `prog` was created above and is destroyed only by `program`'s drop, after this.
    if let Err(e) = unsafe { result::compile_program(program.0, &options) } {
        // SAFETY: as above.
        let log = unsafe { result::get_program_log(program.0) }
            .ok()
            .map(|raw| {
                // SAFETY: NVRTC's log is NUL-terminated within the buffer it sized.
                unsafe { CStr::from_ptr(raw.as_ptr()) }.to_string_lossy().into_owned()
            })
            .unwrap_or_default();
        return Err(fail(format!("{e}\n{log}")));
    }
    match target.kind {
        ImageKind::Cubin => program.cubin().map_err(|e| fail(format!("reading the cubin: {e}"))),
        ImageKind::Ptx => {
            // SAFETY: `prog` is compiled and alive.
            let ptx = unsafe { result::get_ptx(program.0) }
                .map_err(|e| fail(format!("reading the PTX: {e}")))?;
            Ok(ptx.into_iter().map(|c| c as u8).collect())
        }
    }
}

/// An NVRTC program, destroyed on drop.
struct Program(sys::nvrtcProgram);

impl Program {
    /// The compiled program's cubin.
    fn cubin(&self) -> Result<Vec<u8>, result::NvrtcError> {
        let mut size = 0usize;
        // SAFETY: `self.0` is a compiled program; NVRTC writes one size.
        unsafe { sys::nvrtcGetCUBINSize(self.0, &mut size) }.result()?;
        let mut out = vec![0u8; size];
        // SAFETY: `out` holds the `size` bytes NVRTC writes.
        unsafe { sys::nvrtcGetCUBIN(self.0, out.as_mut_ptr().cast()) }.result()?;
        Ok(out)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `self.0` was created by create_program and is destroyed only here.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

/// Whether the NVRTC library can be loaded (before cudarc touches it: cudarc panics when it is
/// missing).
pub(crate) fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the NVRTC library by its candidate names and drops it.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_runs_once_and_the_first_error_stops_the_rest() {
        let items: Vec<usize> = (0..100).collect();
        let seen = Mutex::new(Vec::new());
        on_every_core(&items, |&i| {
            seen.lock().unwrap().push(i);
            Ok(())
        })
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, items);
        // item 0 fails at once; each other item takes a millisecond, so without the stop all
        // 2000 would run
        let items: Vec<usize> = (0..2000).collect();
        let taken = AtomicUsize::new(0);
        let out = on_every_core(&items, |&i| {
            taken.fetch_add(1, Ordering::Relaxed);
            if i == 0 {
                return Err(CudaError::Arch { arch: "first".into() });
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            Ok(())
        });
        assert!(matches!(out, Err(CudaError::Arch { ref arch }) if arch == "first"), "{out:?}");
        assert!(taken.into_inner() < 2000, "the workers went on after the failure");
    }

    /// bench/kernel_resources.py compiles the units offline with NVRTC's options written out
    /// again in Python; its report is the executor's only while the two lists are the same.
    #[test]
    fn the_offline_resource_report_compiles_with_these_options() {
        let script = include_str!("../../../bench/kernel_resources.py");
        let list = script.split("OPTIONS = [").nth(1).and_then(|rest| rest.split(']').next());
        let python: Vec<&str> = list
            .expect("bench/kernel_resources.py defines OPTIONS = [...]")
            .split(',')
            .map(|item| item.trim().trim_matches('"'))
            .filter(|item| !item.is_empty())
            .collect();
        assert_eq!(python, OPTIONS);
    }

    #[test]
    fn the_target_is_the_devices_sass_where_nvrtc_knows_it() {
        let known = [75, 80, 86, 87, 89, 90, 100, 120];
        assert_eq!(Target::for_device(9, 0, &known), Target::named("sm_90", false));
        assert_eq!(Target::for_device(8, 6, &known).kind, ImageKind::Cubin);
        // a device newer than the NVRTC: PTX of the newest architecture below it
        let newer = Target::for_device(12, 1, &known);
        assert_eq!((newer.arch.as_str(), newer.kind), ("compute_120", ImageKind::Ptx));
        let between = Target::for_device(9, 5, &known);
        assert_eq!((between.arch.as_str(), between.kind), ("compute_90", ImageKind::Ptx));
        // NVRTC could not say: ask for the device's SASS (NVRTC's error says why if it fails)
        assert_eq!(Target::for_device(9, 0, &[]).kind, ImageKind::Cubin);
        assert_eq!(Target::named("compute_90", false).kind, ImageKind::Ptx);
        assert!(Target::named("sm_90", false).options().contains(&"--fmad=false".to_string()));
    }

    /// Steps start early only where the kernels were built with the wait: sm_90 and newer,
    /// whether SASS or PTX, never an older virtual architecture on a newer device.
    #[test]
    fn steps_start_early_only_for_kernels_that_wait() {
        let known = [75, 80, 86, 90, 100];
        assert!(Target::for_device(9, 0, &known).waits_for_previous_step());
        assert!(Target::for_device(10, 0, &known).waits_for_previous_step());
        assert!(Target::named("sm_90a", false).waits_for_previous_step());
        assert!(Target::for_device(9, 5, &known).waits_for_previous_step()); // compute_90
        assert!(!Target::for_device(8, 6, &known).waits_for_previous_step());
        assert!(!Target::for_device(8, 9, &[75, 80, 86]).waits_for_previous_step()); // compute_86
        assert!(!Target::named("compute_80", true).waits_for_previous_step());
        assert!(!Target::named("nonsense", false).waits_for_previous_step());
    }
}
