//! The compiled kernel kept on disk between processes: NVRTC takes several seconds over the
//! kernel source, which every `rtopk ... --algo cuda` run would otherwise pay at start.
//!
//! An entry is a file `ptx-<hash>.txt` holding the length of its key, the key — everything the
//! PTX depends on: NVRTC's version, the architecture, the options and the whole source — and
//! the PTX. A read compares the stored key with the wanted one in full, so an entry is used
//! only for exactly the inputs that produced it; the hash only names the file. Entries are
//! written to a temporary file and renamed into place, so a reader never sees half of one.
//! Any failure (no cache directory, unreadable or foreign file) means "compile", never an error.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Environment variable naming the cache directory; set but empty, nothing is cached on disk.
/// Unset: `$XDG_CACHE_HOME/rtopk-cuda`, else `$HOME/.cache/rtopk-cuda`.
pub const PTX_CACHE_ENV: &str = "RTOPK_CUDA_PTX_CACHE";

/// The cache directory, if there is one (see [`PTX_CACHE_ENV`]).
pub(crate) fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(PTX_CACHE_ENV) {
        return (!d.is_empty()).then(|| PathBuf::from(d));
    }
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").filter(|d| !d.is_empty())?).join(".cache"),
    };
    Some(base.join("rtopk-cuda"))
}

/// The key of a compilation: every input the PTX depends on, as text.
pub(crate) fn key(nvrtc_version: &str, arch: &str, options: &[String], source: &str) -> String {
    format!(
        "rtopk-cuda ptx cache v1\nnvrtc {nvrtc_version}\narch {arch}\noptions {}\n{source}",
        options.join(" ")
    )
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    dir.join(format!("ptx-{:016x}.txt", h.finish()))
}

/// The PTX stored under exactly `key`, if any.
pub(crate) fn load(dir: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(entry_path(dir, key)).ok()?;
    let (len, rest) = text.split_once('\n')?;
    let len: usize = len.parse().ok()?;
    let (stored, ptx) = (rest.get(..len)?, rest.get(len..)?);
    (stored == key && !ptx.is_empty()).then(|| ptx.to_string())
}

/// Stores `ptx` under `key` (creating `dir`).
pub(crate) fn store(dir: &Path, key: &str, ptx: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = entry_path(dir, key);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, format!("{}\n{key}{ptx}", key.len()))?;
    std::fs::rename(&tmp, &path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rtopk-ptx-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn an_entry_is_found_only_under_its_own_key() {
        let d = scratch("key");
        let k = key("13.0", "sm_90", &["--fmad=false".into()], "__global__ void f() {}");
        assert_eq!(load(&d, &k), None, "empty cache");
        store(&d, &k, ".version 9.0\n// ptx").unwrap();
        assert_eq!(load(&d, &k).as_deref(), Some(".version 9.0\n// ptx"));
        for other in [
            key("13.1", "sm_90", &["--fmad=false".into()], "__global__ void f() {}"),
            key("13.0", "sm_80", &["--fmad=false".into()], "__global__ void f() {}"),
            key("13.0", "sm_90", &["--fmad=true".into()], "__global__ void f() {}"),
            key("13.0", "sm_90", &["--fmad=false".into()], "__global__ void g() {}"),
        ] {
            assert_eq!(load(&d, &other), None, "{other}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_foreign_or_damaged_file_is_a_miss_not_an_error() {
        let d = scratch("damaged");
        let k = key("13.0", "sm_90", &[], "source");
        store(&d, &k, "ptx").unwrap();
        let path = entry_path(&d, &k);
        // the same file name holding another key (a hash collision, or a file of ours edited)
        let other = key("13.0", "sm_90", &[], "sourcf");
        std::fs::write(&path, format!("{}\n{other}ptx", other.len())).unwrap();
        assert_eq!(load(&d, &k), None, "another key");
        for text in [
            String::new(),
            "12".into(),
            format!("{}\n{}", k.len(), &k[..5]),
            format!("{}\n{k}", k.len()),
            "x\ny".into(),
        ] {
            std::fs::write(&path, text.as_bytes()).unwrap();
            assert_eq!(load(&d, &k), None, "{text:?}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn storing_where_no_directory_can_be_made_fails_quietly() {
        let d = scratch("blocked");
        std::fs::create_dir_all(&d).unwrap();
        let file = d.join("a-file");
        std::fs::write(&file, "not a directory").unwrap();
        let k = key("13.0", "sm_90", &[], "source");
        assert!(store(&file.join("cache"), &k, "ptx").is_err());
        assert_eq!(load(&file.join("cache"), &k), None);
        let _ = std::fs::remove_dir_all(&d);
    }
}
