//! `.npy` input and output for `select` (SPEC §4).
//!
//! Input: exactly one kind of file is accepted — a 2-D, C-order, little-endian float32
//! (`<f4`) array whose data is exactly `N · M · 4` bytes. The file is read into memory whole,
//! the fixed-size preamble is checked here, the header dictionary is parsed with `npyz`, and
//! every other property is checked before a single value is decoded.
//!
//! Output: every file of one command is first written to a temporary name in its target
//! directory and renamed into place only when all of them were written, so a failure leaves
//! no partial output behind.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use ndarray::Array2;
use npyz::{DType, NpyFile, Order, TypeStr, WriteOptions, WriterBuilder};
use thiserror::Error;

use crate::error::CliError;

/// The magic string every `.npy` file starts with.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// Deepest bracket nesting accepted in a header (real headers nest two deep).
const MAX_HEADER_NESTING: usize = 8;
/// The only input dtype accepted.
const INPUT_DTYPE: &str = "<f4";

/// What is wrong with an input file.
#[derive(Debug, Error)]
pub(crate) enum InputError {
    /// The file could not be read at all.
    #[error("cannot read the file: {0}")]
    Read(#[source] io::Error),
    /// The file does not start with the `.npy` magic string.
    #[error("not an .npy file (it does not start with the \\x93NUMPY magic string)")]
    NotNpy,
    /// A format version this reader does not know.
    #[error("unsupported .npy format version {major}.{minor} (expected 1.0, 2.0 or 3.0)")]
    Version {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The header is cut short or is not a valid header dictionary.
    #[error("malformed .npy header: {0}")]
    Header(String),
    /// Not `<f4`.
    #[error("expected dtype {INPUT_DTYPE} (little-endian float32), found {found}")]
    DType {
        /// The dtype in the header.
        found: String,
    },
    /// Not a matrix.
    #[error("expected a 2-D array, found shape {shape} (rank {rank})")]
    Rank {
        /// The shape in the header, in Python notation.
        shape: String,
        /// Its length.
        rank: usize,
    },
    /// A Fortran-order (column-major) array.
    #[error(
        "Fortran-order arrays are not supported (header has fortran_order: True); \
         save a C-order array, e.g. np.save(path, np.ascontiguousarray(x))"
    )]
    FortranOrder,
    /// Fewer data bytes than the shape needs.
    #[error(
        "truncated data: shape {shape} needs {expected} bytes of float32 data, the file holds {found}"
    )]
    Truncated {
        /// The shape in the header.
        shape: String,
        /// Bytes the shape needs.
        expected: u64,
        /// Bytes present after the header.
        found: usize,
    },
    /// A shape whose data size does not fit in 64 bits.
    #[error(
        "truncated data: shape {shape} needs more than 2^64 bytes of float32 data, the file \
         holds {found}"
    )]
    Oversized {
        /// The shape in the header.
        shape: String,
        /// Bytes present after the header.
        found: usize,
    },
    /// More data bytes than the shape needs.
    #[error(
        "{found} bytes of data follow the header but shape {shape} needs exactly {expected}; the file has trailing bytes"
    )]
    TrailingBytes {
        /// The shape in the header.
        shape: String,
        /// Bytes the shape needs.
        expected: u64,
        /// Bytes present after the header.
        found: usize,
    },
}

/// A shape in Python notation: `()`, `(3,)`, `(2, 3)`.
pub(crate) fn shape_string(shape: &[u64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(u64::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// Reads `path` as an `(N, M)` float32 matrix, keeping every value's bits.
pub(crate) fn read_matrix(path: &Path) -> Result<Array2<f32>, CliError> {
    let bytes = fs::read(path).map_err(|e| input_error(path, InputError::Read(e)))?;
    parse_matrix(&bytes).map_err(|e| input_error(path, e))
}

fn input_error(path: &Path, source: InputError) -> CliError {
    CliError::Input { path: path.to_path_buf(), source }
}

/// Parses the bytes of a whole `.npy` file (see [`read_matrix`]).
fn parse_matrix(bytes: &[u8]) -> Result<Array2<f32>, InputError> {
    check_preamble(bytes)?;
    let npy = parse_header(bytes)?;
    let header = npy.header();

    let dtype = header.dtype();
    let is_f4 = matches!(&dtype, DType::Plain(ts) if ts.to_string() == INPUT_DTYPE);
    if !is_f4 {
        let found = match &dtype {
            DType::Plain(ts) => ts.to_string(),
            other => other.descr(),
        };
        return Err(InputError::DType { found });
    }
    let shape = header.shape().to_vec();
    let [n, m] = shape[..] else {
        return Err(InputError::Rank { shape: shape_string(&shape), rank: shape.len() });
    };
    if header.order() == Order::Fortran {
        return Err(InputError::FortranOrder);
    }

    let data = npy.into_inner();
    let found = data.len();
    let Some(expected) = n.checked_mul(m).and_then(|e| e.checked_mul(4)) else {
        return Err(InputError::Oversized { shape: shape_string(&shape), found });
    };
    if (found as u64) < expected {
        return Err(InputError::Truncated { shape: shape_string(&shape), expected, found });
    }
    if (found as u64) > expected {
        return Err(InputError::TrailingBytes { shape: shape_string(&shape), expected, found });
    }
    // The data fits in memory, so both dimensions fit in usize.
    let (n, m) = (n as usize, m as usize);
    let values: Vec<f32> = data
        .chunks_exact(4)
        .map(|b| f32::from_bits(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        .collect();
    Array2::from_shape_vec((n, m), values)
        .map_err(|e| InputError::Header(format!("shape {}: {e}", shape_string(&shape))))
}

/// Checks the fixed-size preamble — magic, version, header length — and the header text's
/// bracket nesting, before `npyz` sees the file.
fn check_preamble(bytes: &[u8]) -> Result<(), InputError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(InputError::NotNpy);
    }
    let (Some(&major), Some(&minor)) = (bytes.get(6), bytes.get(7)) else {
        return Err(InputError::Header("the file ends inside the version bytes".into()));
    };
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(InputError::Version { major, minor }),
    };
    let Some(len_field) = bytes.get(8..8 + len_bytes) else {
        return Err(InputError::Header("the file ends inside the header length".into()));
    };
    let header_len = len_field.iter().rev().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let start = 8 + len_bytes;
    let Some(text) = bytes.get(start..start + header_len) else {
        return Err(InputError::Header(format!(
            "the header length says {header_len} bytes but the file holds only {}",
            bytes.len() - start
        )));
    };
    let mut depth = 0usize;
    for &c in text {
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_HEADER_NESTING {
                    return Err(InputError::Header("brackets nested too deeply".into()));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Parses the header dictionary with `npyz`. A panic inside the parser (e.g. an arithmetic
/// overflow on an absurd shape in a debug build) is reported as a malformed header.
fn parse_header(bytes: &[u8]) -> Result<NpyFile<&[u8]>, InputError> {
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let parsed = std::panic::catch_unwind(|| NpyFile::new(bytes));
    std::panic::set_hook(previous_hook);
    match parsed {
        Ok(Ok(npy)) => Ok(npy),
        Ok(Err(e)) => Err(InputError::Header(one_line(&e.to_string()))),
        Err(_) => Err(InputError::Header("the header describes an impossible array".into())),
    }
}

/// The first line of a (possibly multi-line, pretty-printed) parser message.
fn one_line(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or_default();
    first.trim_end().trim_end_matches(|c: char| c == ':' || c.is_whitespace()).to_string()
}

/// Data for one output file, already in the element type it is stored as.
#[derive(Debug)]
pub(crate) enum NpyArray {
    /// `<f4` values.
    F32 {
        /// Shape (C order).
        shape: Vec<u64>,
        /// Elements in C order.
        data: Vec<f32>,
    },
    /// `<i8` values.
    I64 {
        /// Shape (C order).
        shape: Vec<u64>,
        /// Elements in C order.
        data: Vec<i64>,
    },
}

/// Writes one array to a new file at `path` (which must not exist yet).
fn write_npy(path: &Path, array: &NpyArray) -> io::Result<()> {
    let file = OpenOptions::new().write(true).create_new(true).open(path)?;
    let out = BufWriter::new(file);
    match array {
        NpyArray::F32 { shape, data } => {
            let mut w = WriteOptions::<f32>::new()
                .dtype(plain_dtype("<f4")?)
                .shape(shape)
                .writer(out)
                .begin_nd()?;
            w.extend(data.iter().copied())?;
            w.finish()
        }
        NpyArray::I64 { shape, data } => {
            let mut w = WriteOptions::<i64>::new()
                .dtype(plain_dtype("<i8")?)
                .shape(shape)
                .writer(out)
                .begin_nd()?;
            w.extend(data.iter().copied())?;
            w.finish()
        }
    }
}

fn plain_dtype(descr: &str) -> io::Result<DType> {
    descr
        .parse::<TypeStr>()
        .map(DType::Plain)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))
}

/// A temporary name next to `target`, not taken yet by any file.
fn temp_path_for(target: &Path, attempt: u32) -> PathBuf {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = format!(".{name}.rtopk-{}-{attempt}.tmp", std::process::id());
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

/// Checks that output paths name files: each has a file name, none is an existing directory,
/// and no two are the same path.
pub(crate) fn check_output_paths(paths: &[(&str, &Path)]) -> Result<(), CliError> {
    for (i, (option, path)) in paths.iter().enumerate() {
        if path.file_name().is_none() || path.is_dir() {
            return Err(CliError::BadArgument(format!(
                "{option} {}: not a file path",
                path.display()
            )));
        }
        if let Some((other, _)) = paths[..i].iter().find(|(_, p)| p == path) {
            return Err(CliError::BadArgument(format!(
                "{other} and {option} name the same file {}",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Writes every `(path, array)` pair, or none of them: all arrays go to temporary files first
/// and are renamed into place only when every one was written.
pub(crate) fn write_all_or_nothing(outputs: &[(&Path, NpyArray)]) -> Result<(), CliError> {
    let mut temps: Vec<PathBuf> = Vec::with_capacity(outputs.len());
    for (target, array) in outputs {
        match write_temp(target, array) {
            Ok(tmp) => temps.push(tmp),
            Err(source) => {
                remove_all(&temps);
                return Err(CliError::Output { path: target.to_path_buf(), source });
            }
        }
    }
    for (i, ((target, _), tmp)) in outputs.iter().zip(&temps).enumerate() {
        if let Err(source) = fs::rename(tmp, target) {
            remove_all(&temps[i..]);
            let placed: Vec<PathBuf> = outputs[..i].iter().map(|(p, _)| p.to_path_buf()).collect();
            remove_all(&placed);
            return Err(CliError::Output { path: target.to_path_buf(), source });
        }
    }
    Ok(())
}

/// Writes `array` to a fresh temporary file next to `target`; removes it again on failure.
fn write_temp(target: &Path, array: &NpyArray) -> io::Result<PathBuf> {
    let mut attempt = 0;
    loop {
        let tmp = temp_path_for(target, attempt);
        match write_npy(&tmp, array) {
            Ok(()) => return Ok(tmp),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => {
                if e.kind() != io::ErrorKind::AlreadyExists {
                    let _ = fs::remove_file(&tmp);
                }
                return Err(e);
            }
        }
    }
}

fn remove_all(paths: &[PathBuf]) {
    for p in paths {
        let _ = fs::remove_file(p);
    }
}

/// Checks that a file can be created in the directory of each output before any work is done,
/// so that an unwritable destination fails fast. Creates and removes one probe file per path.
pub(crate) fn probe_writable(paths: &[&Path]) -> Result<(), CliError> {
    for path in paths {
        let tmp = temp_path_for(path, u32::MAX);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => {
                drop::<File>(file);
                let _ = fs::remove_file(&tmp);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(source) => return Err(CliError::Output { path: path.to_path_buf(), source }),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let dict = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        let mut header = dict.into_bytes();
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(b' ');
        }
        header.push(b'\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn reads_a_matrix_bit_exactly() {
        let vals = [1.5f32, -0.0, f32::from_bits(0x7fc0_1234), f32::INFINITY, 2.0, -3.0];
        let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let x = parse_matrix(&npy_bytes("<f4", false, "(2, 3)", &data)).unwrap();
        assert_eq!(x.dim(), (2, 3));
        let bits: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits, vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn rejects_what_spec_rejects() {
        let d = [0u8; 24];
        let err = |b: Vec<u8>| parse_matrix(&b).unwrap_err();
        assert!(matches!(err(npy_bytes("<f8", false, "(2, 3)", &d)), InputError::DType { .. }));
        assert!(matches!(err(npy_bytes(">f4", false, "(2, 3)", &d)), InputError::DType { .. }));
        assert!(matches!(
            err(npy_bytes("<f4", false, "(6,)", &d)),
            InputError::Rank { rank: 1, .. }
        ));
        assert!(matches!(err(npy_bytes("<f4", true, "(2, 3)", &d)), InputError::FortranOrder));
        assert!(matches!(err(npy_bytes("<f4", false, "(2, 4)", &d)), InputError::Truncated { .. }));
        assert!(matches!(
            err(npy_bytes("<f4", false, "(2, 2)", &d)),
            InputError::TrailingBytes { .. }
        ));
        assert!(matches!(err(b"hello world".to_vec()), InputError::NotNpy));
        let huge = npy_bytes("<f4", false, "(18446744073709551615, 18446744073709551615)", &d);
        assert!(matches!(err(huge), InputError::Header(_) | InputError::Oversized { .. }));
        let big = npy_bytes("<f4", false, "(4294967296, 4294967296)", &d);
        assert!(matches!(err(big), InputError::Header(_) | InputError::Oversized { .. }));
        let big = npy_bytes("<f4", false, "(4294967296, 2147483648)", &d);
        assert!(matches!(err(big), InputError::Oversized { .. }));
        let big = npy_bytes("<f4", false, "(4294967296, 536870912)", &d);
        assert!(matches!(err(big), InputError::Truncated { .. }));
        let mut cut = npy_bytes("<f4", false, "(2, 3)", &d);
        cut.truncate(30);
        assert!(matches!(err(cut), InputError::Header(_)));
    }

    #[test]
    fn shapes_print_like_python() {
        assert_eq!(shape_string(&[]), "()");
        assert_eq!(shape_string(&[3]), "(3,)");
        assert_eq!(shape_string(&[2, 3]), "(2, 3)");
    }
}
