//! Output files, written all or nothing under docs/contract.md §4's path rules (stated in [`crate::npy`]).

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::temp::{TempFile, rename_all};
use super::writer::{NpyDtype, NpyFloat, NpyWriter};
use crate::Error;

/// Symbolic links followed before a path is declared a loop (Linux's own limit).
const MAX_LINKS: usize = 40;
/// Write buffer per output file.
const WRITE_BUFFER: usize = 1 << 20;

/// One output of a command.
#[derive(Clone, Debug)]
pub struct OutputSpec<'a> {
    /// The option that named it (`--values`), for messages.
    pub option: &'a str,
    /// The path as given.
    pub path: &'a Path,
    /// Its element type.
    pub dtype: NpyDtype,
    /// Its shape.
    pub shape: Vec<u64>,
}

/// What a path names, for telling two paths to one file apart from two files.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file: its device and inode (so hard links and symlinks compare equal).
    Existing { dev: u64, ino: u64 },
    /// A file to be created: its canonical directory and its name.
    New(PathBuf),
}

/// How an output reaches its path.
#[derive(Debug)]
enum Place {
    /// A temporary file in `target`'s directory, renamed onto `target` (the resolved path: a
    /// symlink's target, not the link); `mode` is the replaced file's, kept.
    Replace { target: PathBuf, mode: Option<Permissions> },
    /// A character device or FIFO: written through the path, no rename; staged in a temporary
    /// file meanwhile.
    InPlace,
}

/// An output whose path was checked, with its temporary file and writer.
#[derive(Debug)]
struct OutputFile {
    path: PathBuf,
    place: Place,
    temp: TempFile,
    writer: NpyWriter<BufWriter<File>>,
}

/// The outputs of one command: written to temporary files, then put in place together by
/// [`Outputs::commit`]; dropped without a commit, they leave nothing behind.
#[derive(Debug)]
pub struct Outputs {
    files: Vec<OutputFile>,
}

impl Outputs {
    /// Checks every output path against the rules (none may be the same file as another or as
    /// one of `inputs`, given as `(option, path)`), then creates each output's temporary file
    /// and writes its header. Fails before any output data exists.
    pub fn create(specs: &[OutputSpec<'_>], inputs: &[(&str, &Path)]) -> Result<Self, Error> {
        let mut checked: Vec<(Place, Identity)> = Vec::with_capacity(specs.len());
        for (i, spec) in specs.iter().enumerate() {
            let (place, id) = resolve(spec.option, spec.path)?;
            if let Some(j) = checked.iter().position(|(_, other)| *other == id) {
                return Err(Error::SameFile {
                    first: specs[j].option.to_string(),
                    second: spec.option.to_string(),
                    path: spec.path.to_path_buf(),
                });
            }
            for &(input_option, input) in inputs {
                // An unreadable input is reported by its reader, not here.
                let Ok(meta) = fs::metadata(input) else { continue };
                if id == (Identity::Existing { dev: meta.dev(), ino: meta.ino() }) {
                    return Err(Error::IsInput {
                        option: spec.option.to_string(),
                        input_option: input_option.to_string(),
                        path: specs[i].path.to_path_buf(),
                    });
                }
            }
            checked.push((place, id));
        }
        let mut files = Vec::with_capacity(specs.len());
        for (spec, (place, _)) in specs.iter().zip(checked) {
            files.push(open(spec, place).map_err(|e| write_error(spec.path, e))?);
        }
        Ok(Outputs { files })
    }

    /// Appends float elements to output `i` (in `specs` order): an [`NpyDtype::F4`] output
    /// for `f32`, [`NpyDtype::F2`] for `f16`.
    pub fn write_values<E: NpyFloat>(
        &mut self,
        i: usize,
        values: impl IntoIterator<Item = E>,
    ) -> Result<(), Error> {
        let f = &mut self.files[i];
        f.writer.write_values(values).map_err(|e| write_error(&f.path, e))
    }

    /// Appends int64 elements to output `i` (an [`NpyDtype::I8`] output).
    pub fn write_i64(
        &mut self,
        i: usize,
        values: impl IntoIterator<Item = i64>,
    ) -> Result<(), Error> {
        let f = &mut self.files[i];
        f.writer.write_i64(values).map_err(|e| write_error(&f.path, e))
    }

    /// Puts every output in place: checks each is complete and flushes it to disk, copies the
    /// staged ones into their devices or FIFOs, then renames the others over their targets.
    /// On an error nothing more is written and every temporary file is removed.
    pub fn commit(self) -> Result<(), Error> {
        let mut renames = Vec::new();
        let mut staged = Vec::new();
        for f in self.files {
            let file = finish(f.writer).map_err(|e| write_error(&f.path, e))?;
            match f.place {
                Place::Replace { target, mode } => {
                    if let Some(mode) = mode {
                        fs::set_permissions(f.temp.path(), mode)
                            .map_err(|e| write_error(&f.path, e))?;
                    }
                    // Durable before the rename, so a crash cannot leave a renamed, empty file.
                    file.sync_all().map_err(|e| write_error(&f.path, e))?;
                    renames.push((f.temp, target));
                }
                Place::InPlace => staged.push((f.temp, file, f.path)),
            }
        }
        for (temp, mut file, path) in staged {
            copy_into(&mut file, &path).map_err(|e| write_error(&path, e))?;
            drop(temp);
        }
        rename_all(renames).map_err(|(target, e)| write_error(&target, e))
    }
}

fn write_error(path: &Path, source: io::Error) -> Error {
    Error::Write { path: path.to_path_buf(), source }
}

/// The writer's file, flushed and checked complete.
fn finish(writer: NpyWriter<BufWriter<File>>) -> io::Result<File> {
    writer.finish()?.into_inner().map_err(io::IntoInnerError::into_error)
}

/// Writes the staged file's contents through `path` (a device or FIFO; no create, no rename).
fn copy_into(staged: &mut File, path: &Path) -> io::Result<()> {
    staged.seek(SeekFrom::Start(0))?;
    let mut dest = OpenOptions::new().write(true).open(path)?;
    io::copy(staged, &mut dest)?;
    dest.flush()
}

/// Creates the temporary file of one checked output and writes its header.
fn open(spec: &OutputSpec<'_>, place: Place) -> io::Result<OutputFile> {
    let (dir, stem) = match &place {
        Place::Replace { target, .. } => (parent_dir(target), file_stem(target)),
        Place::InPlace => (std::env::temp_dir(), file_stem(spec.path)),
    };
    let (temp, file) = TempFile::create(&dir, &stem)?;
    let writer =
        NpyWriter::new(BufWriter::with_capacity(WRITE_BUFFER, file), spec.dtype, &spec.shape)?;
    Ok(OutputFile { path: spec.path.to_path_buf(), place, temp, writer })
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn file_stem(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// How `path` is written, and which file it is (see the rules in [`crate::npy`]).
fn resolve(option: &str, path: &Path) -> Result<(Place, Identity), Error> {
    if path.file_name().is_none() {
        let (option, path) = (option.to_string(), path.to_path_buf());
        return Err(Error::NotAFilePath { option, path });
    }
    match fs::metadata(path) {
        Ok(meta) => existing(option, path, &meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => new_file(option, path),
        Err(e) => Err(write_error(path, e)),
    }
}

/// An existing file (symlinks followed): a regular file is replaced at its resolved path; a
/// character device or FIFO is written in place; anything else is refused.
fn existing(option: &str, path: &Path, meta: &fs::Metadata) -> Result<(Place, Identity), Error> {
    let id = Identity::Existing { dev: meta.dev(), ino: meta.ino() };
    let ft = meta.file_type();
    if ft.is_file() {
        let target = fs::canonicalize(path).map_err(|e| write_error(path, e))?;
        return Ok((Place::Replace { target, mode: Some(meta.permissions()) }, id));
    }
    if ft.is_char_device() || ft.is_fifo() {
        return Ok((Place::InPlace, id));
    }
    let kind = if ft.is_dir() {
        "directory"
    } else if ft.is_block_device() {
        "block device"
    } else if ft.is_socket() {
        "socket"
    } else {
        "special file"
    };
    let (option, path) = (option.to_string(), path.to_path_buf());
    Err(Error::NotWritable { option, path, kind })
}

/// A file to be created: at `path`, or where a dangling symlink at `path` points.
fn new_file(option: &str, path: &Path) -> Result<(Place, Identity), Error> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&p).map_err(|e| write_error(path, e))?;
                p = parent_dir(&p).join(link);
            }
            Ok(_) => {
                let e = io::Error::other("the path changed while it was being checked");
                return Err(write_error(path, e));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let Some(name) = p.file_name() else {
                    let (option, path) = (option.to_string(), path.to_path_buf());
                    return Err(Error::NotAFilePath { option, path });
                };
                let dir = fs::canonicalize(parent_dir(&p)).map_err(|e| write_error(path, e))?;
                let target = dir.join(name);
                return Ok((
                    Place::Replace { target: target.clone(), mode: None },
                    Identity::New(target),
                ));
            }
            Err(e) => return Err(write_error(path, e)),
        }
    }
    let (option, path) = (option.to_string(), path.to_path_buf());
    Err(Error::SymlinkLoop { option, path })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn spec<'a>(option: &'a str, path: &'a Path) -> OutputSpec<'a> {
        OutputSpec { option, path, dtype: NpyDtype::I8, shape: vec![2] }
    }

    fn write_one(path: &Path, inputs: &[(&str, &Path)]) -> Result<(), Error> {
        let mut out = Outputs::create(&[spec("--out", path)], inputs)?;
        out.write_i64(0, [7, 8])?;
        out.commit()
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_symlink_is_followed_and_stays_a_link() {
        let d = tempfile::tempdir().unwrap();
        let (real, link) = (d.path().join("real.npy"), d.path().join("link.npy"));
        fs::write(&real, b"old").unwrap();
        fs::set_permissions(&real, Permissions::from_mode(0o640)).unwrap();
        symlink("real.npy", &link).unwrap();
        write_one(&link, &[]).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&real).unwrap().len(), 128 + 16);
        assert_eq!(fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o640);
        // A dangling link: the file is created where it points.
        let dangling = d.path().join("dangling.npy");
        symlink("sub/new.npy", &dangling).unwrap();
        fs::create_dir(d.path().join("sub")).unwrap();
        write_one(&dangling, &[]).unwrap();
        assert!(d.path().join("sub/new.npy").is_file());
        assert_eq!(names(d.path()), ["dangling.npy", "link.npy", "real.npy", "sub"]);
    }

    #[test]
    fn one_file_under_two_names_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let x = d.path().join("x.npy");
        fs::write(&x, b"input").unwrap();
        let hard = d.path().join("hard.npy");
        fs::hard_link(&x, &hard).unwrap();
        let dotted = d.path().join("sub/../x.npy");
        fs::create_dir(d.path().join("sub")).unwrap();
        for out in [&x, &hard, &dotted] {
            let e = write_one(out, &[("--input", &x)]).unwrap_err();
            assert!(matches!(e, Error::IsInput { .. }), "{e}");
            assert!(e.is_user_error());
        }
        let (a, b) = (d.path().join("new.npy"), d.path().join("sub/../new.npy"));
        let e = Outputs::create(&[spec("--values", &a), spec("--indices", &b)], &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("--values and --indices name the same file {}", b.display())
        );
        assert_eq!(fs::read(&x).unwrap(), b"input");
        assert_eq!(names(d.path()), ["hard.npy", "sub", "x.npy"]);
    }

    #[test]
    fn directories_and_sockets_are_refused_and_dev_null_is_written_in_place() {
        let d = tempfile::tempdir().unwrap();
        let e = write_one(d.path(), &[]).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let sock = d.path().join("s");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let e = write_one(&sock, &[]).unwrap_err();
        assert!(e.to_string().contains("is a socket"), "{e}");
        assert!(write_one(Path::new(".."), &[]).is_err());
        write_one(Path::new("/dev/null"), &[]).unwrap();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn a_failed_commit_leaves_the_old_outputs_and_no_temporaries() {
        let d = tempfile::tempdir().unwrap();
        let good = d.path().join("good.npy");
        fs::write(&good, b"before").unwrap();
        let full = Path::new("/dev/full");
        if !full.exists() {
            eprintln!("skipped: no /dev/full on this system");
            return;
        }
        let mut out = Outputs::create(&[spec("--a", &good), spec("--b", full)], &[]).unwrap();
        out.write_i64(0, [1, 2]).unwrap();
        out.write_i64(1, [1, 2]).unwrap();
        let e = out.commit().unwrap_err();
        assert!(!e.is_user_error(), "{e}");
        assert!(e.to_string().starts_with("cannot write /dev/full"), "{e}");
        assert_eq!(fs::read(&good).unwrap(), b"before");
        assert_eq!(names(d.path()), ["good.npy"]);
    }

    #[test]
    fn an_incomplete_output_is_not_committed() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("o.npy");
        let mut out = Outputs::create(&[spec("--out", &p)], &[]).unwrap();
        out.write_i64(0, [1]).unwrap();
        assert!(out.commit().is_err());
        assert!(names(d.path()).is_empty());
        let missing = d.path().join("no/such/dir.npy");
        let e = write_one(&missing, &[]).unwrap_err();
        assert!(!e.is_user_error() && e.to_string().starts_with("cannot write"), "{e}");
    }
}
