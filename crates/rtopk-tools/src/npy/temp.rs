//! Temporary files of pending outputs, and a process-wide list of them so that a signal
//! handler can remove them (docs/contract.md §4: an interrupted run leaves no temporary file behind).
//!
//! A temporary file is registered under the list's lock in the same step that creates it, and
//! renamed into place under the same lock; [`remove_pending_temporaries`] takes the lock, closes
//! the list to new files and removes every listed one. So whatever the moment of the signal,
//! each temporary file is either renamed into place or removed, never left behind.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The temporary files that exist now, and whether new ones may be created.
struct Pending {
    paths: Vec<PathBuf>,
    closed: bool,
}

static PENDING: Mutex<Pending> = Mutex::new(Pending { paths: Vec::new(), closed: false });

/// The list, even if a thread panicked while holding it (the list itself stays consistent).
fn pending() -> MutexGuard<'static, Pending> {
    PENDING.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes every temporary file of every pending output and refuses new ones from then on;
/// returns how many were removed. For a signal handler, just before the process exits: a
/// process killed by SIGKILL cannot run it, so that case may leave a temporary file behind.
pub fn remove_pending_temporaries() -> usize {
    let mut list = pending();
    list.closed = true;
    list.paths.drain(..).filter(|p| fs::remove_file(p).is_ok()).count()
}

/// A temporary file, removed when dropped unless it was renamed into place.
#[derive(Debug)]
pub(super) struct TempFile {
    path: PathBuf,
    done: bool,
}

impl TempFile {
    /// Creates `dir/.{stem}.rtopk-{pid}-{n}.tmp` with the first free `n`; the name starts with
    /// a dot so that directory listings and globs pass over it.
    pub(super) fn create(dir: &Path, stem: &str) -> io::Result<(TempFile, File)> {
        let mut list = pending();
        if list.closed {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted by a signal"));
        }
        let pid = std::process::id();
        for n in 0u32.. {
            let path = dir.join(format!(".{stem}.rtopk-{pid}-{n}.tmp"));
            match OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
                Ok(file) => {
                    list.paths.push(path.clone());
                    return Ok((TempFile { path, done: false }, file));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => {}
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns by n = 1000")
    }

    /// Where it is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut list = pending();
        if let Some(i) = list.paths.iter().position(|p| *p == self.path) {
            list.paths.swap_remove(i);
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Renames each temporary file onto its target, all under one hold of the list's lock (so a
/// signal cannot land between two renames). On the first failure the remaining temporary files
/// are removed (by their `Drop`) and the failing target is returned with its error; targets
/// renamed before it keep their new contents.
pub(super) fn rename_all(items: Vec<(TempFile, PathBuf)>) -> Result<(), (PathBuf, io::Error)> {
    let mut list = pending();
    if list.closed {
        let target = items.first().map(|(_, t)| t.clone()).unwrap_or_default();
        drop(list);
        return Err((
            target,
            io::Error::new(io::ErrorKind::Interrupted, "interrupted by a signal"),
        ));
    }
    let mut items = items.into_iter();
    while let Some((mut temp, target)) = items.next() {
        if let Err(e) = fs::rename(&temp.path, &target) {
            drop(list);
            drop(temp);
            drop(items);
            return Err((target, e));
        }
        temp.done = true;
        if let Some(i) = list.paths.iter().position(|p| *p == temp.path) {
            list.paths.swap_remove(i);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_temporaries_are_removed_and_renamed_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let (a, _) = TempFile::create(dir.path(), "a.npy").unwrap();
        let (b, _) = TempFile::create(dir.path(), "a.npy").unwrap();
        assert_ne!(a.path(), b.path());
        let name = a.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".a.npy.rtopk-") && name.ends_with(".tmp"), "{name}");
        let b_path = b.path().to_path_buf();
        drop(b);
        assert!(!b_path.exists());
        let target = dir.path().join("a.npy");
        rename_all(vec![(a, target.clone())]).unwrap();
        assert!(target.exists());
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }
}
