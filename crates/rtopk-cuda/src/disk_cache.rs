//! Compiled units kept on disk between processes: NVRTC takes a second or more per unit,
//! which every process's first launch would otherwise pay.
//!
//! An entry is a file `<unit>-<target>-<hash>.<cubin|ptx>` holding the length of its key, the
//! key — everything the image depends on: NVRTC's version, the target architecture, the
//! options and the unit's whole generated source — and the image the driver loads. A read
//! compares the stored key with the wanted one in full, so an entry is used only for exactly
//! the inputs that produced it; the hash only names the file. Entries are written to a
//! temporary file and renamed into place, so a reader never sees half of one. Storing an entry
//! removes the ones no build can use any more: the same unit and target under another key (an
//! older source, NVRTC or option set), and files of the earlier cache format. Any failure
//! (no cache directory, an unreadable or foreign file) means "compile", never an error.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Environment variable naming the cache directory; set but empty, nothing is cached on disk.
/// Unset: `$XDG_CACHE_HOME/rtopk-cuda`, else `$HOME/.cache/rtopk-cuda`.
pub const CACHE_DIR_ENV: &str = "RTOPK_CUDA_PTX_CACHE";

/// The first line of every key: a new format gets a new line, so no entry of another format
/// can match.
const FORMAT: &str = "rtopk-cuda unit cache v2";

/// The cache directory, if there is one (see [`CACHE_DIR_ENV`]).
pub(crate) fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(CACHE_DIR_ENV) {
        return (!d.is_empty()).then(|| PathBuf::from(d));
    }
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").filter(|d| !d.is_empty())?).join(".cache"),
    };
    Some(base.join("rtopk-cuda"))
}

/// What an entry holds: a cubin (the device's SASS) or PTX (for the driver to compile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageKind {
    /// SASS for the device's architecture.
    Cubin,
    /// PTX, compiled to SASS by the driver when loaded.
    Ptx,
}

impl ImageKind {
    /// The entry files' extension.
    pub fn extension(self) -> &'static str {
        match self {
            ImageKind::Cubin => "cubin",
            ImageKind::Ptx => "ptx",
        }
    }
}

/// Names one entry: the unit, the target (`sm_90`, `compute_90`) and the kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<'a> {
    pub(crate) unit: &'a str,
    pub(crate) target: &'a str,
    pub(crate) kind: ImageKind,
}

impl Entry<'_> {
    /// The files of this unit and target, whatever their key.
    fn prefix(&self) -> String {
        format!("{}-{}-", self.unit, self.target)
    }

    fn path(&self, dir: &Path, key: &str) -> PathBuf {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        dir.join(format!("{}{:016x}.{}", self.prefix(), h.finish(), self.kind.extension()))
    }
}

/// The key of a compilation: every input the image depends on, as text.
pub(crate) fn key(nvrtc_version: &str, target: &str, options: &[String], source: &str) -> String {
    format!(
        "{FORMAT}\nnvrtc {nvrtc_version}\ntarget {target}\noptions {}\n{source}",
        options.join(" ")
    )
}

/// The image stored under exactly `key`, if any.
pub(crate) fn load(dir: &Path, entry: Entry<'_>, key: &str) -> Option<Vec<u8>> {
    let bytes = std::fs::read(entry.path(dir, key)).ok()?;
    let newline = bytes.iter().position(|&b| b == b'\n')?;
    let len: usize = std::str::from_utf8(&bytes[..newline]).ok()?.parse().ok()?;
    let rest = &bytes[newline + 1..];
    let (stored, image) = (rest.get(..len)?, rest.get(len..)?);
    (stored == key.as_bytes() && !image.is_empty()).then(|| image.to_vec())
}

/// Stores `image` under `key` (creating `dir`), then removes what no build can use: the same
/// unit and target under other keys, and files of the earlier format.
pub(crate) fn store(dir: &Path, entry: Entry<'_>, key: &str, image: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = entry.path(dir, key);
    let mut bytes = format!("{}\n{key}", key.len()).into_bytes();
    bytes.extend_from_slice(image);
    write_whole(&path, &bytes)?;
    prune(dir, entry, &path);
    Ok(())
}

/// Writes `bytes` to a temporary file beside `path` and renames it into place, so that a reader
/// never sees half of it (the shipped units are written the same way).
pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Removes the entries of `entry`'s unit and target other than `keep`, and the earlier
/// format's files (`ptx-<hash>.txt`: the whole module's PTX). Files being written (`.tmp*`)
/// and files of other names are left alone.
fn prune(dir: &Path, entry: Entry<'_>, keep: &Path) {
    let Ok(listing) = std::fs::read_dir(dir) else { return };
    let prefix = entry.prefix();
    for item in listing.flatten() {
        let name = item.file_name();
        let Some(name) = name.to_str() else { continue };
        let stale_entry = name.starts_with(&prefix)
            && (name.ends_with(".cubin") || name.ends_with(".ptx"))
            && item.path() != keep;
        let old_format = name.starts_with("ptx-") && name.ends_with(".txt");
        if stale_entry || old_format {
            let _ = std::fs::remove_file(item.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUBIN: Entry<'static> =
        Entry { unit: "rtopk_warp_rows_1", target: "sm_90", kind: ImageKind::Cubin };

    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("rtopk-cache-{name}-")).tempdir().unwrap()
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_entry_is_found_only_under_its_own_key() {
        let d = scratch("key");
        let k = key("13.0", "sm_90", &["--fmad=false".into()], "__global__ void f() {}");
        assert_eq!(load(d.path(), CUBIN, &k), None, "empty cache");
        store(d.path(), CUBIN, &k, b"\x7fELF\0binary\n").unwrap();
        assert_eq!(load(d.path(), CUBIN, &k).as_deref(), Some(&b"\x7fELF\0binary\n"[..]));
        for other in [
            key("13.1", "sm_90", &["--fmad=false".into()], "__global__ void f() {}"),
            key("13.0", "sm_80", &["--fmad=false".into()], "__global__ void f() {}"),
            key("13.0", "sm_90", &["--fmad=true".into()], "__global__ void f() {}"),
            key("13.0", "sm_90", &["--fmad=false".into()], "__global__ void g() {}"),
        ] {
            assert_eq!(load(d.path(), CUBIN, &other), None, "{other}");
        }
        let ptx = Entry { kind: ImageKind::Ptx, ..CUBIN };
        assert_eq!(load(d.path(), ptx, &k), None, "another kind");
        let other_unit = Entry { unit: "rtopk_warp_rows_12", ..CUBIN };
        assert_eq!(load(d.path(), other_unit, &k), None, "another unit");
    }

    #[test]
    fn a_foreign_or_damaged_file_is_a_miss_not_an_error() {
        let d = scratch("damaged");
        let k = key("13.0", "sm_90", &[], "source");
        store(d.path(), CUBIN, &k, b"image").unwrap();
        let path = CUBIN.path(d.path(), &k);
        // the same file name holding another key (a hash collision, or a file of ours edited)
        let other = key("13.0", "sm_90", &[], "sourcf");
        std::fs::write(&path, format!("{}\n{other}image", other.len())).unwrap();
        assert_eq!(load(d.path(), CUBIN, &k), None, "another key");
        for text in [
            Vec::new(),
            b"12".to_vec(),
            format!("{}\n{}", k.len(), &k[..5]).into_bytes(),
            format!("{}\n{k}", k.len()).into_bytes(),
            b"x\ny".to_vec(),
            vec![0xff, 0xfe, b'\n', 1, 2, 3],
        ] {
            std::fs::write(&path, &text).unwrap();
            assert_eq!(load(d.path(), CUBIN, &k), None, "{text:?}");
        }
    }

    #[test]
    fn storing_where_no_directory_can_be_made_fails_quietly() {
        let d = scratch("blocked");
        let file = d.path().join("a-file");
        std::fs::write(&file, "not a directory").unwrap();
        let k = key("13.0", "sm_90", &[], "source");
        assert!(store(&file.join("cache"), CUBIN, &k, b"image").is_err());
        assert_eq!(load(&file.join("cache"), CUBIN, &k), None);
    }

    /// Storing a unit removes its entries under other keys and the earlier format's files,
    /// and nothing else: other units, other targets, files being written, foreign files.
    #[test]
    fn storing_prunes_what_no_build_can_use() {
        let d = scratch("prune");
        let (old, new) =
            (key("13.0", "sm_90", &[], "old source"), key("13.0", "sm_90", &[], "new"));
        store(d.path(), CUBIN, &old, b"old").unwrap();
        let twelve = Entry { unit: "rtopk_warp_rows_12", ..CUBIN };
        store(d.path(), twelve, &old, b"twelve").unwrap();
        let sm80 = Entry { target: "sm_80", ..CUBIN };
        store(d.path(), sm80, &old, b"sm80").unwrap();
        let keep = [
            "rtopk_warp_rows_1-sm_90-00000000000000aa.tmp123", // another process writing
            "notes.txt",
            "ptx-cache-readme.md",
        ];
        for name in keep {
            std::fs::write(d.path().join(name), "x").unwrap();
        }
        std::fs::write(d.path().join("ptx-0123456789abcdef.txt"), "v1 entry").unwrap();
        std::fs::write(d.path().join("rtopk_warp_rows_1-sm_90-00000000000000bb.ptx"), "x").unwrap();
        assert_eq!(files(d.path()).len(), 8);

        store(d.path(), CUBIN, &new, b"new").unwrap();
        assert_eq!(load(d.path(), CUBIN, &new).as_deref(), Some(&b"new"[..]));
        assert_eq!(load(d.path(), CUBIN, &old), None, "the old key's entry is gone");
        assert_eq!(load(d.path(), twelve, &old).as_deref(), Some(&b"twelve"[..]));
        assert_eq!(load(d.path(), sm80, &old).as_deref(), Some(&b"sm80"[..]));
        let left = files(d.path());
        for name in keep {
            assert!(left.iter().any(|f| f == name), "{name} kept: {left:?}");
        }
        assert!(!left.iter().any(|f| f.starts_with("ptx-0123")), "v1 entry removed: {left:?}");
        assert!(!left.iter().any(|f| f.ends_with("bb.ptx")), "other kind's stale entry: {left:?}");
        assert_eq!(left.len(), 6, "{left:?}");
    }

    /// Storing the same key again keeps one file.
    #[test]
    fn restoring_an_entry_keeps_one_file() {
        let d = scratch("again");
        let k = key("13.0", "sm_90", &[], "source");
        store(d.path(), CUBIN, &k, b"one").unwrap();
        store(d.path(), CUBIN, &k, b"two").unwrap();
        assert_eq!(files(d.path()).len(), 1);
        assert_eq!(load(d.path(), CUBIN, &k).as_deref(), Some(&b"two"[..]));
    }
}
