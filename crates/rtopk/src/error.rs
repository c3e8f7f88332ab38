//! The crate's one error type.

use std::io;
use std::path::PathBuf;

use thiserror::Error as ThisError;

use crate::dtype::Dtype;
use crate::npy::INPUT_DTYPES;

/// Why a request failed. [`Error::is_user_error`] tells the caller's input or arguments (a
/// command line exits 2, Python raises `ValueError`/`TypeError`) from the environment (exit 1:
/// disk full, permission denied, no GPU).
#[derive(Debug, ThisError)]
pub enum Error {
    /// The request itself is invalid (k > M, M = 0, a bad parameter, a size too large).
    #[error(transparent)]
    TopK(#[from] topk_ref::TopKError),
    /// The GPU path failed (no driver, compilation, launch) or refused the request.
    #[error(transparent)]
    Cuda(#[from] rtopk_cuda::CudaError),
    /// The warp simulator refused or stopped a launch.
    #[error(transparent)]
    Sim(#[from] warp_sim::SimError),
    /// A baseline could not be configured.
    #[error(transparent)]
    Baseline(#[from] baselines::BaselineError),
    /// An analysis (statistics, report) failed.
    #[error(transparent)]
    Analysis(#[from] analysis::AnalysisError),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// An algorithm name that SPEC §4 does not define.
    #[error("unknown algorithm '{name}'; valid names: {valid}")]
    UnknownAlgorithm {
        /// The name given.
        name: String,
        /// Every valid name, as one list.
        valid: String,
    },
    /// A parameter given to an algorithm that does not take it.
    #[error("{param} is only valid for {valid_for}, not for '{algo}'")]
    ParamNotSupported {
        /// The parameter.
        param: crate::param::Param,
        /// The algorithm it was given to.
        algo: String,
        /// The algorithms that take it.
        valid_for: String,
    },
    /// A matrix of an element type the algorithm does not take (yet): never converted.
    #[error(
        "'{algo}' does not take {dtype} input (it selects from float32 only, for now); convert \
         the input to float32 explicitly, or use an algorithm that takes {dtype}: {valid_for}"
    )]
    DtypeNotSupported {
        /// The input's element type.
        dtype: Dtype,
        /// The algorithm.
        algo: String,
        /// The algorithms that take it.
        valid_for: String,
    },
    /// `max_iter` and `precision` together: early stopping (Algorithm 2) has no precision.
    #[error(
        "--max-iter (max_iter: early stopping, Algorithm 2) and --precision (precision: \
         Algorithm 1) cannot be combined; give at most one of them"
    )]
    ConflictingParams,
    /// A precision that is not a finite number >= 0 in f32, quoted as the caller gave it.
    #[error(
        "precision {given} is out of range: it must be a finite number >= 0 and at most {max:e} \
         (the largest float32)",
        max = f32::MAX
    )]
    BadPrecision {
        /// The value as typed (or as given from Python).
        given: String,
    },
    /// A request that wants no output at all.
    #[error("nothing to compute: ask for at least one of values, indices, iterations, threshold")]
    NothingWanted,
    /// An input or output of the request that the algorithm does not honour yet.
    #[error("'{algo}' does not support {what} yet")]
    NotYetSupported {
        /// What was asked.
        what: &'static str,
        /// The algorithm.
        algo: String,
    },
    /// A per-row input without one entry per row.
    #[error("{what} has {len} entries for {n} rows; give one per row")]
    PerRowLength {
        /// The input (`lengths`, `hint`, `k`).
        what: &'static str,
        /// Its entries.
        len: usize,
        /// The rows.
        n: usize,
    },
    /// A row length longer than the rows.
    #[error("lengths[{row}] = {length} is more than the row width M = {m}")]
    LengthTooLong {
        /// The row.
        row: usize,
        /// Its length.
        length: usize,
        /// The row width.
        m: usize,
    },
    /// 32-bit indices for rows too long for them.
    #[error("int32 indices cannot index rows of M = {m} > 2^31 values; use int64")]
    IndexesTooNarrow {
        /// The row width.
        m: usize,
    },
    /// An index width other than 32 or 64 bits.
    #[error("index_bits must be 32 or 64, got {bits}")]
    BadIndexWidth {
        /// The width given.
        bits: u32,
    },
    /// A device buffer for iteration counts given without asking for them, or the reverse.
    #[error(
        "the iteration-count buffer must be given exactly when iteration counts are asked for \
         (asked: {wanted})"
    )]
    RawIterations {
        /// Whether the request asks for them.
        wanted: bool,
    },
    /// A null device address for the input, the values or the indices.
    #[error("a device buffer (input, values or indices) is a null address")]
    NullBuffer,
    /// An algorithm asked to run where it cannot (e.g. `cuda` in the CPU benchmark).
    #[error("'{algo}' does not run here: {why}")]
    WrongDevice {
        /// The algorithm.
        algo: String,
        /// What runs here instead.
        why: String,
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
    /// An input file whose dtype is neither `<f4` nor `<f2` (SPEC §4).
    #[error("{}: expected dtype {INPUT_DTYPES}, found {found}{hint}", path.display())]
    NpyDtype {
        /// The input file.
        path: PathBuf,
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
            Error::TopK(_) | Error::Baseline(_) => true,
            Error::Cuda(e) => matches!(e, rtopk_cuda::CudaError::TopK(_)),
            Error::Sim(e) => {
                matches!(e, warp_sim::SimError::TopK(_) | warp_sim::SimError::InvalidLaunch(_))
            }
            Error::Analysis(e) => e.is_bad_input(),
            Error::Io { .. } => false,
            Error::UnknownAlgorithm { .. }
            | Error::ParamNotSupported { .. }
            | Error::DtypeNotSupported { .. }
            | Error::ConflictingParams
            | Error::BadPrecision { .. }
            | Error::WrongDevice { .. }
            | Error::NothingWanted
            | Error::NotYetSupported { .. }
            | Error::PerRowLength { .. }
            | Error::LengthTooLong { .. }
            | Error::IndexesTooNarrow { .. }
            | Error::BadIndexWidth { .. }
            | Error::RawIterations { .. }
            | Error::NullBuffer
            | Error::NotEnoughMemory { .. }
            | Error::BadReport(_) => true,
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
            | Error::NpyTrailingBytes { .. } => true,
            Error::NotAFilePath { .. }
            | Error::NotWritable { .. }
            | Error::SameFile { .. }
            | Error::IsInput { .. }
            | Error::SymlinkLoop { .. } => true,
            Error::Write { .. } => false,
        }
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
