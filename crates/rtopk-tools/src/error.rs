//! The tools crate's one error type: the library's errors, and those of files, reports,
//! charts and benchmarks.

use std::io;
use std::path::PathBuf;

use thiserror::Error as ThisError;

use rtopk::Dtype;

/// Why a tool failed. [`Error::is_user_error`] tells the caller's input or arguments (a
/// command line exits 2) from the environment (exit 1: disk full, permission denied, no GPU).
#[derive(Debug, ThisError)]
pub enum Error {
    /// The library refused or failed the request.
    #[error(transparent)]
    Lib(#[from] rtopk::Error),
    /// The request itself is invalid (k > M, M = 0, a bad parameter, a size too large).
    #[error(transparent)]
    TopK(#[from] rtopk::TopKError),
    /// An analysis (statistics, report) failed.
    #[error(transparent)]
    Analysis(#[from] rtopk::stats::AnalysisError),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// A benchmark whose data would not fit this machine's memory, refused before anything is
    /// allocated.
    #[error(
        "{what} needs {} of memory, more than this machine's {}",
        bytes(*needed),
        bytes(*available)
    )]
    NotEnoughMemory {
        /// What was to be allocated.
        what: String,
        /// Bytes needed.
        needed: u128,
        /// Bytes of memory (RAM and swap) this machine has.
        available: u128,
    },
    /// A report could not be encoded or decoded as JSON.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A recorded report given back to the harness (to chart it) is not one.
    #[error("{0}")]
    BadReport(String),
    /// A chart could not be drawn.
    #[error("cannot draw the chart {}: {reason}", path.display())]
    Chart {
        /// The SVG file.
        path: PathBuf,
        /// What the plotting library said.
        reason: String,
    },
    /// An input file could not be read at all.
    #[error("{}: cannot read the file: {source}", path.display())]
    NpyRead {
        /// The input file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// An input file does not start with the `.npy` magic string.
    #[error(
        "{}: not an .npy file (it does not start with the \\x93NUMPY magic string)",
        path.display()
    )]
    NotNpy {
        /// The input file.
        path: PathBuf,
    },
    /// An input file in a `.npy` format version this reader does not know.
    #[error(
        "{}: unsupported .npy format version {major}.{minor} (expected 1.0, 2.0 or 3.0)",
        path.display()
    )]
    NpyVersion {
        /// The input file.
        path: PathBuf,
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// An input file whose header is cut short or is not a valid header dictionary.
    #[error("{}: malformed .npy header: {reason}", path.display())]
    NpyHeader {
        /// The input file.
        path: PathBuf,
        /// What is wrong with the header.
        reason: String,
    },
    /// An input file whose dtype is neither `<f4` nor `<f2` (docs/contract.md §4).
    #[error("{}: expected dtype {expected}, found {found}{hint}", path.display())]
    NpyDtype {
        /// The input file.
        path: PathBuf,
        /// The dtypes the reader takes, for the message.
        expected: &'static str,
        /// The dtype in the header, as written.
        found: String,
        /// A remark on how `found` differs from what is expected (may be empty).
        hint: &'static str,
    },
    /// An input file of a valid dtype that this reader of it does not take (a float16 matrix
    /// given to a command that reads float32 only).
    #[error(
        "{}: the file holds {found} ({}) values; {expected} ({}) expected here",
        path.display(),
        found.npy_descr().unwrap_or("?"),
        expected.npy_descr().unwrap_or("no .npy dtype")
    )]
    NpyElementType {
        /// The input file.
        path: PathBuf,
        /// The file's element type.
        found: Dtype,
        /// The type read.
        expected: Dtype,
    },
    /// An input file that does not hold a matrix.
    #[error("{}: expected a 2-D array, found shape {shape} (rank {rank})", path.display())]
    NpyRank {
        /// The input file.
        path: PathBuf,
        /// The shape in the header, in Python notation.
        shape: String,
        /// Its length.
        rank: usize,
    },
    /// An input file holding a Fortran-order (column-major) array.
    #[error(
        "{}: Fortran-order arrays are not supported (header has fortran_order: True); \
         save a C-order array, e.g. np.save(path, np.ascontiguousarray(x))",
        path.display()
    )]
    NpyFortranOrder {
        /// The input file.
        path: PathBuf,
    },
    /// An input file with fewer data bytes than its shape needs.
    #[error(
        "{}: truncated data: shape {shape} needs {expected} bytes of {dtype} data, the file \
         holds {found}",
        path.display()
    )]
    NpyTruncated {
        /// The input file.
        path: PathBuf,
        /// The shape in the header.
        shape: String,
        /// The element type in the header.
        dtype: Dtype,
        /// Bytes the shape needs.
        expected: u64,
        /// Bytes present after the header.
        found: u64,
    },
    /// An input file whose shape's data size does not fit in 64 bits.
    #[error(
        "{}: truncated data: shape {shape} needs more than 2^64 bytes of {dtype} data, the file \
         holds {found}",
        path.display()
    )]
    NpyOversized {
        /// The input file.
        path: PathBuf,
        /// The shape in the header.
        shape: String,
        /// The element type in the header.
        dtype: Dtype,
        /// Bytes present after the header (`0` when the file's size is not known up front).
        found: u64,
    },
    /// An input file with more data bytes than its shape needs.
    #[error(
        "{}: {found} bytes of data follow the header but shape {shape} needs exactly \
         {expected}; the file has trailing bytes",
        path.display()
    )]
    NpyTrailingBytes {
        /// The input file.
        path: PathBuf,
        /// The shape in the header.
        shape: String,
        /// Bytes the shape needs.
        expected: u64,
        /// Bytes present after the header.
        found: u64,
    },
    /// A per-row input (`--lengths`, `--k-per-row`, `--hint`) of the wrong dtype.
    #[error("{option} {}: expected {expected}, found {found}", path.display())]
    NpyVectorDtype {
        /// The option that named it.
        option: String,
        /// The file.
        path: PathBuf,
        /// The dtypes accepted.
        expected: &'static str,
        /// The dtype in the header, as written.
        found: String,
    },
    /// A per-row input whose shape is not `(N,)` for the input's N rows.
    #[error(
        "{option} {}: expected shape ({n},), one entry per row of the input, found {found}",
        path.display()
    )]
    NpyVectorShape {
        /// The option that named it.
        option: String,
        /// The file.
        path: PathBuf,
        /// The shape in the header, in Python notation.
        found: String,
        /// The input's rows.
        n: usize,
    },
    /// A per-row input with fewer data bytes than its shape needs.
    #[error(
        "{}: truncated data: shape {shape} needs {expected} bytes, the file holds {found}",
        path.display()
    )]
    NpyVectorTruncated {
        /// The file.
        path: PathBuf,
        /// The shape in the header.
        shape: String,
        /// Bytes the shape needs.
        expected: u64,
        /// Bytes present after the header.
        found: u64,
    },
    /// A negative row length or k.
    #[error("{option} {}: entry [{index}] is {value}; every entry must be >= 0", path.display())]
    NpyNegative {
        /// The option that named it.
        option: String,
        /// The file.
        path: PathBuf,
        /// The entry (the row).
        index: usize,
        /// Its value.
        value: i64,
    },
    /// An output path with no file name (`""`, `/`, `..`).
    #[error("{option} {}: not a file path", path.display())]
    NotAFilePath {
        /// The option that named it.
        option: String,
        /// The path as given.
        path: PathBuf,
    },
    /// An output path that is a directory, block device or socket: never replaced, never
    /// written.
    #[error(
        "{option} {}: is a {kind}; an output must be a regular file (replaced atomically), \
         a character device such as /dev/null, or a FIFO",
        path.display()
    )]
    NotWritable {
        /// The option that named it.
        option: String,
        /// The path as given.
        path: PathBuf,
        /// "directory", "block device" or "socket".
        kind: &'static str,
    },
    /// Two outputs that are one file (same path after `.`/`..`/symlinks, or hard links).
    #[error("{first} and {second} name the same file {}", path.display())]
    SameFile {
        /// The option that named it first.
        first: String,
        /// The option that named it again.
        second: String,
        /// The path as given to `second`.
        path: PathBuf,
    },
    /// An output that is the input file.
    #[error(
        "{option} {} is the same file as {input_option}; an output never replaces the input",
        path.display()
    )]
    IsInput {
        /// The output option.
        option: String,
        /// The input option.
        input_option: String,
        /// The path as given to `option`.
        path: PathBuf,
    },
    /// An output path whose symlink chain does not end (or is too long to follow).
    #[error("{option} {}: too many levels of symbolic links", path.display())]
    SymlinkLoop {
        /// The option that named it.
        option: String,
        /// The path as given.
        path: PathBuf,
    },
    /// An output file could not be written (disk full, permission denied, ...).
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The output file, as given.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

impl Error {
    /// `true` when the error is the caller's input or arguments, `false` when the environment
    /// failed.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::Lib(e) => e.is_user_error(),
            Error::TopK(_) => true,
            Error::Analysis(e) => e.is_bad_input(),
            Error::Io { .. } => false,
            Error::NotEnoughMemory { .. } | Error::BadReport(_) => true,
            Error::Json(_) | Error::Chart { .. } => false,
            // The file exists but the system would not read it (permission, I/O error): the
            // environment.
            Error::NpyRead { source, .. } => matches!(
                source.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::IsADirectory | io::ErrorKind::InvalidInput
            ),
            Error::NotNpy { .. }
            | Error::NpyVersion { .. }
            | Error::NpyHeader { .. }
            | Error::NpyDtype { .. }
            | Error::NpyElementType { .. }
            | Error::NpyRank { .. }
            | Error::NpyFortranOrder { .. }
            | Error::NpyTruncated { .. }
            | Error::NpyOversized { .. }
            | Error::NpyTrailingBytes { .. }
            | Error::NpyVectorDtype { .. }
            | Error::NpyVectorShape { .. }
            | Error::NpyVectorTruncated { .. }
            | Error::NpyNegative { .. } => true,
            Error::NotAFilePath { .. }
            | Error::NotWritable { .. }
            | Error::SameFile { .. }
            | Error::IsInput { .. }
            | Error::SymlinkLoop { .. } => true,
            Error::Write { .. } => false,
        }
    }
}

impl From<rtopk::cuda::CudaError> for Error {
    fn from(e: rtopk::cuda::CudaError) -> Self {
        Error::Lib(e.into())
    }
}

/// A byte count in binary units (`1.0 PiB`), for messages.
fn bytes(n: u128) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{n} bytes") } else { format!("{value:.1} {}", UNITS[unit]) }
}
