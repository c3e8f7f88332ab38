//! Units compiled ahead of time and shipped with a face, so that no first call compiles: `rtopk
//! prepare --arch sm_80,sm_90 --out DIR` ([`build`]) writes every unit's cubin for each
//! architecture, the Python wheel carries them (`rtopk/_units`, registered with [`add_dir`] when
//! the package is imported), and a process whose unit is there loads it without NVRTC.
//!
//! A shipped unit is the file `<dir>/<arch>/<unit>.cubin`: one line naming the format and the
//! SHA-256 of what the image was built from — the architecture, NVRTC's options and the unit's
//! whole generated source — then the image, deflated (a quarter of its size; inflating one
//! takes well under a millisecond). A process uses it only where that digest is the one
//! of the source it would compile now, so units from another build of the kernels are never
//! loaded for these. Unlike the disk cache's key, the digest leaves NVRTC's version out: the
//! image is SASS that the driver loads as it is, whichever NVRTC made it.
//!
//! A device of compute capability X.Y runs a cubin built for `sm_XZ` with Z ≤ Y (the CUDA C++
//! Programming Guide, "Binary Compatibility"), so a unit is looked for under the device's own
//! architecture first and then under the older ones of its major version: `sm_80` units serve
//! an `sm_86` or `sm_89` device.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::CudaError;
use crate::compile::{self, Target};
use crate::kernels::{KernelFiles, Unit, UnitSource};

/// Environment variable naming one more directory of shipped units (searched after those
/// registered with [`add_dir`]): for the command line and the Rust API, which no package
/// registers a directory for.
pub const UNITS_DIR_ENV: &str = "RTOPK_CUDA_UNITS";

/// The first word of every shipped unit's first line; a new format gets a new word.
const FORMAT: &str = "rtopk-cuda-shipped-unit-v1";

/// The directories registered by [`add_dir`], in order.
fn registered() -> &'static Mutex<Vec<PathBuf>> {
    static DIRS: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    DIRS.get_or_init(Default::default)
}

/// Makes the shipped units in `dir` (its `<arch>/` subdirectories) available to every later
/// unit load of this process. Registering a directory twice searches it once.
pub fn add_dir(dir: impl Into<PathBuf>) {
    let dir = dir.into();
    let mut dirs = registered().lock().unwrap_or_else(|p| p.into_inner());
    if !dirs.contains(&dir) {
        dirs.push(dir);
    }
}

/// Every directory searched, in order: the registered ones, then [`UNITS_DIR_ENV`]'s.
fn dirs() -> Vec<PathBuf> {
    let mut out = registered().lock().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(d) = std::env::var_os(UNITS_DIR_ENV).filter(|d| !d.is_empty()) {
        out.push(PathBuf::from(d));
    }
    out
}

/// Whether any directory of shipped units is named (registered or by [`UNITS_DIR_ENV`]).
pub fn any_dir() -> bool {
    !dirs().is_empty()
}

/// The digest a shipped unit of `source` for `arch` carries (hex SHA-256).
fn digest(arch: &str, source: &str) -> String {
    let target = Target::named(arch, false);
    let mut hash = Sha256::new();
    hash.update(format!("{FORMAT}\ntarget {arch}\noptions {}\n", target.options().join(" ")));
    hash.update(source.as_bytes());
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The architectures whose cubins a device of `major.minor` runs, its own first.
pub(crate) fn archs_for(major: i32, minor: i32) -> Vec<String> {
    (0..=minor.max(0)).rev().map(|m| format!("sm_{major}{m}")).collect()
}

/// The header line of a shipped unit built for `arch` from `source`.
fn header(arch: &str, source: &str) -> String {
    format!("{FORMAT} {}\n", digest(arch, source))
}

/// The image of `unit`, built from `source`, for a device of `capability`, and the
/// architecture it was built for — if a searched directory ships it.
pub(crate) fn find(unit: &str, capability: (i32, i32), source: &str) -> Option<(Vec<u8>, String)> {
    let dirs = dirs();
    if dirs.is_empty() {
        return None;
    }
    for arch in archs_for(capability.0, capability.1) {
        let wanted = header(&arch, source);
        for dir in &dirs {
            if let Some(image) = read(&dir.join(&arch).join(format!("{unit}.cubin")), &wanted) {
                return Some((image, arch.clone()));
            }
        }
    }
    None
}

/// The image in `path` if its header is `wanted` and a whole deflated image follows.
fn read(path: &Path, wanted: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    let bytes = std::fs::read(path).ok()?;
    let deflated = bytes.strip_prefix(wanted.as_bytes())?;
    let mut image = Vec::new();
    flate2::read::DeflateDecoder::new(deflated).read_to_end(&mut image).ok()?;
    (!image.is_empty()).then_some(image)
}

/// A shipped unit's bytes: its header, then `image` deflated.
fn shipped_bytes(header: &str, image: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut out =
        flate2::write::DeflateEncoder::new(header.as_bytes().to_vec(), flate2::Compression::best());
    // writing into a Vec cannot fail
    let _ = out.write_all(image);
    out.finish().unwrap_or_default()
}

/// Whether the file at `path` is a shipped unit (of any build): what [`build`] may replace.
fn is_shipped(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; FORMAT.len() + 1];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut start)).is_ok()
        && start.starts_with(FORMAT.as_bytes())
        && start[FORMAT.len()] == b' '
}

/// What [`build`] wrote for one architecture.
#[derive(Clone, Debug)]
pub struct ShippedArch {
    /// The architecture (`sm_90`).
    pub arch: String,
    /// Units shipped for the architecture (written now or kept).
    pub units: usize,
    /// Of them, kept: the file there already held the unit, built from the same source.
    pub kept: usize,
    /// Bytes of the units' files.
    pub bytes: usize,
    /// Shipped units of other builds removed (units that no longer exist).
    pub removed: usize,
}

/// Checks that `arch` names a real architecture, `sm_` and a compute capability of two or
/// three digits.
pub fn check_arch(arch: &str) -> Result<(), CudaError> {
    let digits = arch.strip_prefix("sm_").unwrap_or("");
    if (2..=3).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(CudaError::Arch { arch: arch.to_string() })
    }
}

/// Compiles every unit of `files` for each of `archs` with NVRTC (no GPU needed), one
/// compilation per core, into `dir/<arch>/<unit>.cubin`. Files there that are not shipped units
/// are never touched: a directory holding one of them where a unit goes is refused. A unit
/// already shipped there from the same source is kept (after a change to one kernel, only the
/// units it touched compile again); shipped units of units that no longer exist are removed.
pub fn build(
    dir: &Path,
    archs: &[String],
    files: &KernelFiles,
) -> Result<Vec<ShippedArch>, CudaError> {
    build_units(dir, archs, files, &Unit::all(), true)
}

/// [`build`] of `units` alone; `prune`: remove the shipped units of other units (only right
/// where `units` is every unit).
pub fn build_units(
    dir: &Path,
    archs: &[String],
    files: &KernelFiles,
    units: &[Unit],
    prune: bool,
) -> Result<Vec<ShippedArch>, CudaError> {
    for arch in archs {
        check_arch(arch)?;
    }
    crate::check_nvrtc()?;
    let sources =
        units.iter().map(|u| u.source(files)).collect::<Result<Vec<String>, CudaError>>()?;
    archs.iter().map(|arch| build_arch(&dir.join(arch), arch, units, &sources, prune)).collect()
}

/// [`build_units`] for one architecture into `dir`.
fn build_arch(
    dir: &Path,
    arch: &str,
    units: &[Unit],
    sources: &[String],
    prune: bool,
) -> Result<ShippedArch, CudaError> {
    let refuse = |why: String| CudaError::Units { path: dir.to_path_buf(), why };
    std::fs::create_dir_all(dir).map_err(|e| refuse(format!("cannot create it: {e}")))?;
    let names: Vec<String> = units.iter().map(|u| format!("{u}.cubin")).collect();
    for name in &names {
        let path = dir.join(name);
        if path.exists() && !is_shipped(&path) {
            return Err(refuse(format!(
                "{name} is there and is not a shipped unit; not replacing it"
            )));
        }
    }
    let target = Target::named(arch, false);
    let (bytes, kept) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let each: Vec<usize> = (0..units.len()).collect();
    compile::on_every_core(&each, |&i| {
        let (n, was_there) = write_unit(dir, &names[i], units[i], &sources[i], &target)?;
        bytes.fetch_add(n, Ordering::Relaxed);
        kept.fetch_add(usize::from(was_there), Ordering::Relaxed);
        Ok(())
    })?;
    let removed = if prune { remove_stale(dir, &names) } else { 0 };
    Ok(ShippedArch {
        arch: arch.to_string(),
        units: units.len(),
        kept: kept.into_inner(),
        bytes: bytes.into_inner(),
        removed,
    })
}

/// Compiles one unit and writes it (to a temporary file, renamed into place), unless the file
/// there already holds it — built from this very source for this architecture — which is kept
/// as it is: a change to one kernel rebuilds only the units whose source it changed. The
/// file's size, and whether it was kept.
fn write_unit(
    dir: &Path,
    name: &str,
    unit: Unit,
    source: &str,
    target: &Target,
) -> Result<(usize, bool), CudaError> {
    let path = dir.join(name);
    let wanted = header(&target.arch, source);
    if read(&path, &wanted).is_some() {
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        return Ok((usize::try_from(size).unwrap_or(usize::MAX), true));
    }
    let image = compile::compile(&unit.to_string(), source, target)?;
    let bytes = shipped_bytes(&wanted, &image);
    crate::disk_cache::write_whole(&path, &bytes)
        .map_err(|e| CudaError::Units { path, why: format!("cannot write it: {e}") })?;
    Ok((bytes.len(), false))
}

/// Removes the shipped units in `dir` not named in `keep`; how many.
fn remove_stale(dir: &Path, keep: &[String]) -> usize {
    let Ok(listing) = std::fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for item in listing.flatten() {
        let name = item.file_name().to_string_lossy().into_owned();
        let stale = name.ends_with(".cubin") && !keep.contains(&name) && is_shipped(&item.path());
        if stale && std::fs::remove_file(item.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "extern \"C\" __global__ void k() {}\n";

    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new().prefix("rtopk-shipped-").tempdir().unwrap()
    }

    /// Writes a shipped unit as `build` does, with `image` for its cubin.
    fn ship(dir: &Path, arch: &str, unit: &str, source: &str, image: &[u8]) {
        std::fs::create_dir_all(dir.join(arch)).unwrap();
        let bytes = shipped_bytes(&header(arch, source), image);
        std::fs::write(dir.join(arch).join(format!("{unit}.cubin")), bytes).unwrap();
    }

    #[test]
    fn a_device_runs_its_own_and_older_minor_versions_of_its_major() {
        assert_eq!(archs_for(9, 0), ["sm_90"]);
        assert_eq!(
            archs_for(8, 6),
            ["sm_86", "sm_85", "sm_84", "sm_83", "sm_82", "sm_81", "sm_80"]
        );
        assert_eq!(archs_for(12, 1), ["sm_121", "sm_120"]);
    }

    #[test]
    fn the_digest_covers_the_architecture_the_options_and_every_byte_of_the_source() {
        let d = digest("sm_90", SOURCE);
        assert_eq!(d.len(), 64);
        assert_eq!(d, digest("sm_90", SOURCE), "a digest is a function of its inputs");
        assert_ne!(d, digest("sm_80", SOURCE));
        assert_ne!(d, digest("sm_90", &SOURCE.replace("k()", "j()")));
        assert_ne!(d, digest("sm_90", &format!("{SOURCE} ")));
    }

    #[test]
    fn a_shipped_unit_is_found_only_for_the_source_it_was_built_from() {
        let dir = scratch();
        ship(dir.path(), "sm_90", "unit_a", SOURCE, b"SASS-90");
        ship(dir.path(), "sm_80", "unit_a", SOURCE, b"SASS-80");
        let found = |cap: (i32, i32), source: &str| {
            let wanted = |arch: &String| header(arch, source);
            archs_for(cap.0, cap.1).iter().find_map(|arch| {
                read(&dir.path().join(arch).join("unit_a.cubin"), &wanted(arch))
                    .map(|image| (image, arch.clone()))
            })
        };
        assert_eq!(found((9, 0), SOURCE), Some((b"SASS-90".to_vec(), "sm_90".into())));
        // an sm_89 device takes the sm_80 unit; an sm_75 device nothing
        assert_eq!(found((8, 9), SOURCE), Some((b"SASS-80".to_vec(), "sm_80".into())));
        assert_eq!(found((7, 5), SOURCE), None);
        // a changed kernel: the shipped unit is another build's
        assert_eq!(found((9, 0), "changed"), None);
    }

    #[test]
    fn registered_directories_are_searched_through_find() {
        let dir = scratch();
        let source = format!("{SOURCE}// registered_directories_are_searched_through_find\n");
        ship(dir.path(), "sm_86", "unit_b", &source, b"SASS");
        assert!(find("unit_b", (8, 6), &source).is_none(), "not registered yet");
        add_dir(dir.path());
        add_dir(dir.path());
        assert!(any_dir());
        assert_eq!(find("unit_b", (8, 9), &source), Some((b"SASS".to_vec(), "sm_86".into())));
        assert_eq!(find("unit_b", (8, 0), &source), None, "sm_86 SASS does not run on sm_80");
        assert_eq!(find("unit_c", (8, 6), &source), None);
    }

    #[test]
    fn a_torn_or_foreign_file_is_no_unit() {
        let dir = scratch();
        let wanted = header("sm_90", SOURCE);
        let path = dir.path().join("u.cubin");
        let whole = shipped_bytes(&wanted, b"an image of some length, deflated");
        std::fs::write(&path, &whole).unwrap();
        assert_eq!(
            read(&path, &wanted).as_deref(),
            Some(&b"an image of some length, deflated"[..])
        );
        std::fs::write(&path, &whole[..whole.len() - 3]).unwrap();
        assert_eq!(read(&path, &wanted), None, "a torn image");
        std::fs::write(&path, wanted.as_bytes()).unwrap();
        assert_eq!(read(&path, &wanted), None, "a header without an image");
        assert!(is_shipped(&path));
        std::fs::write(&path, &wanted.as_bytes()[..20]).unwrap();
        assert_eq!(read(&path, &wanted), None, "a torn header");
        std::fs::write(&path, b"\x7fELF a cubin of someone else's").unwrap();
        assert_eq!(read(&path, &wanted), None);
        assert!(!is_shipped(&path));
    }

    #[test]
    fn architecture_names_are_checked() {
        for good in ["sm_80", "sm_90", "sm_120"] {
            assert!(check_arch(good).is_ok(), "{good}");
        }
        for bad in ["sm_9", "compute_90", "sm_90a", "90", "sm_1234", ""] {
            assert!(matches!(check_arch(bad), Err(CudaError::Arch { .. })), "{bad}");
        }
    }

    #[test]
    fn stale_shipped_units_go_and_other_files_stay() {
        let dir = scratch();
        ship(dir.path(), "sm_90", "gone", SOURCE, b"old");
        ship(dir.path(), "sm_90", "kept", SOURCE, b"new");
        let own = dir.path().join("sm_90").join("notes.cubin");
        std::fs::write(&own, b"a user's file").unwrap();
        assert_eq!(remove_stale(&dir.path().join("sm_90"), &["kept.cubin".into()]), 1);
        assert!(!dir.path().join("sm_90/gone.cubin").exists());
        assert!(dir.path().join("sm_90/kept.cubin").exists());
        assert!(own.exists());
    }

    /// NVRTC builds a unit into a directory of shipped units, which then serves it for its
    /// architecture and the newer minor versions, for its own source only.
    #[test]
    #[cfg_attr(not(rtopk_nvrtc), ignore = "needs NVRTC")]
    fn built_units_are_found_for_their_source() {
        use crate::kernels::Family;
        let dir = scratch();
        let files = KernelFiles::embedded();
        let unit = Unit::single(Family::Utilities);
        let built = build_units(dir.path(), &["sm_80".into()], &files, &[unit], false).unwrap();
        assert_eq!((built[0].arch.as_str(), built[0].units), ("sm_80", 1));
        let path = dir.path().join("sm_80").join(format!("{unit}.cubin"));
        assert!(is_shipped(&path));
        let source = unit.source(&files).unwrap();
        let image = read(&path, &header("sm_80", &source)).expect("the unit it wrote");
        assert!(image.starts_with(b"\x7fELF"), "a cubin is an ELF image");
        assert_eq!(read(&path, &header("sm_80", &format!("{source} "))), None);
        assert_eq!(read(&path, &header("sm_86", &source)), None);
        assert_eq!(built[0].kept, 0, "nothing was there");
        // built again from the same source: kept, not compiled or written
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        let again = build_units(dir.path(), &["sm_80".into()], &files, &[unit], false).unwrap();
        assert_eq!((again[0].units, again[0].kept, again[0].bytes), (1, 1, built[0].bytes));
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), written);
        // a file of another source there (an earlier build of the kernels) is replaced
        let other = shipped_bytes(&header("sm_80", SOURCE), b"\x7fELF of another build");
        std::fs::write(&path, other).unwrap();
        let replaced = build_units(dir.path(), &["sm_80".into()], &files, &[unit], false).unwrap();
        assert_eq!(replaced[0].kept, 0);
        assert!(read(&path, &header("sm_80", &source)).unwrap().starts_with(b"\x7fELF"));
    }

    #[test]
    fn build_refuses_bad_architectures_and_foreign_files_before_compiling() {
        let dir = scratch();
        let files = KernelFiles::embedded();
        let bad = build(dir.path(), &["compute_90".into()], &files);
        assert!(matches!(bad, Err(CudaError::Arch { .. })), "{bad:?}");
        let unit = Unit::all()[0];
        std::fs::create_dir_all(dir.path().join("sm_90")).unwrap();
        let foreign = dir.path().join("sm_90").join(format!("{unit}.cubin"));
        std::fs::write(&foreign, b"not ours").unwrap();
        let refused =
            build_arch(&dir.path().join("sm_90"), "sm_90", &[unit], &[SOURCE.into()], false);
        assert!(matches!(refused, Err(CudaError::Units { .. })), "{refused:?}");
        assert_eq!(std::fs::read(&foreign).unwrap(), b"not ours", "the file is untouched");
    }
}
