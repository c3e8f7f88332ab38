//! The per-row inputs of a ragged request (docs/contract.md §5): one value per row of the
//! input matrix, in a 1-D `.npy` file of `N` entries — row lengths and per-row k as integers
//! (any integer dtype numpy writes: `int8` … `int64`, `uint8` … `uint64`, little-endian), hints
//! as `<f4`. The whole file is checked (preamble, header, dtype, shape `(N,)`, size) and read
//! at once: it holds `N` numbers, a small part of the matrix it describes.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::header::{read_header, shape_string};
use crate::Error;

/// The integer descrs accepted, for messages.
pub(crate) const INTEGER_DTYPES: &str =
    "an integer dtype: |i1, <i2, <i4, <i8, |u1, <u2, <u4 or <u8 (little-endian)";
/// The float descr accepted for hints, for messages.
pub(crate) const HINT_DTYPE: &str = "<f4 (little-endian float32)";

/// Reads the integer vector at `path` (named by `option` in messages), which must hold
/// exactly `n` entries, each `>= 0`. Values too large for `usize` become `usize::MAX` (the
/// request's checks then name them as larger than the row width).
pub fn read_counts(path: &Path, option: &str, n: usize) -> Result<Vec<usize>, Error> {
    let (descr, data) = read_vector(path, option, n, |descr| integer_size(descr).is_some())?;
    let (size, signed) = integer_size(&descr).unwrap_or((8, true));
    data.chunks_exact(size)
        .enumerate()
        .map(|(index, b)| {
            let value = integer_le(b, signed);
            if value < 0 {
                return Err(Error::NpyNegative {
                    option: option.to_string(),
                    path: path.to_path_buf(),
                    index,
                    value: value as i64,
                });
            }
            Ok(usize::try_from(value).unwrap_or(usize::MAX))
        })
        .collect()
}

/// Reads the `<f4` vector at `path` (named by `option` in messages) of exactly `n` entries,
/// bit for bit (NaN and ±inf included).
pub fn read_f32s(path: &Path, option: &str, n: usize) -> Result<Vec<f32>, Error> {
    let (_, data) = read_vector(path, option, n, |descr| descr == "<f4")?;
    Ok(data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

/// `(bytes, signed)` of an integer descr; `None` for anything else.
fn integer_size(descr: &str) -> Option<(usize, bool)> {
    Some(match descr {
        "|i1" | "<i1" => (1, true),
        "|u1" | "<u1" => (1, false),
        "<i2" => (2, true),
        "<u2" => (2, false),
        "<i4" => (4, true),
        "<u4" => (4, false),
        "<i8" => (8, true),
        "<u8" => (8, false),
        _ => return None,
    })
}

/// The little-endian integer of `b` (1 to 8 bytes).
fn integer_le(b: &[u8], signed: bool) -> i128 {
    let mut bytes = [0u8; 8];
    bytes[..b.len()].copy_from_slice(b);
    let raw = u64::from_le_bytes(bytes);
    let bits = 8 * b.len() as u32;
    if signed && bits < 64 && (raw >> (bits - 1)) & 1 == 1 {
        i128::from(raw) - (1i128 << bits)
    } else if signed {
        i128::from(raw as i64)
    } else {
        i128::from(raw)
    }
}

/// The descr and data bytes of the 1-D file at `path` whose descr `takes`, of shape `(n,)`.
fn read_vector(
    path: &Path,
    option: &str,
    n: usize,
    takes: impl Fn(&str) -> bool,
) -> Result<(String, Vec<u8>), Error> {
    let fail = |source| Error::NpyRead { path: path.to_path_buf(), source };
    let file = File::open(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    let file_len = meta.is_file().then_some(meta.len());
    let mut src = BufReader::new(file);
    let header = read_header(path, &mut src)?;
    let integers = option != "--hint";
    if !takes(&header.descr) {
        return Err(Error::NpyVectorDtype {
            option: option.to_string(),
            path: path.to_path_buf(),
            expected: if integers { INTEGER_DTYPES } else { HINT_DTYPE },
            found: header.descr,
        });
    }
    if header.shape != [n as u64] {
        return Err(Error::NpyVectorShape {
            option: option.to_string(),
            path: path.to_path_buf(),
            found: shape_string(&header.shape),
            n,
        });
    }
    let size = integer_size(&header.descr).map_or(4, |(s, _)| s) as u64;
    // n is the input's row count: n · 8 fits in 64 bits.
    let expected = n as u64 * size;
    let found = file_len.map(|len| len.saturating_sub(header.data_offset));
    let mut data = Vec::new();
    // Reads at most one byte past the data: a stream of unknown length allocates what it holds.
    src.take(expected.saturating_add(1)).read_to_end(&mut data).map_err(fail)?;
    let got = found.unwrap_or(data.len() as u64);
    if got != expected || data.len() as u64 != expected {
        let shape = shape_string(&header.shape);
        return Err(if got.max(data.len() as u64) > expected {
            Error::NpyTrailingBytes { path: path.to_path_buf(), shape, expected, found: got }
        } else {
            Error::NpyVectorTruncated { path: path.to_path_buf(), shape, expected, found: got }
        });
    }
    Ok((header.descr, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::testing::npy_bytes;

    fn file(dir: &Path, name: &str, descr: &str, shape: &str, data: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, npy_bytes(descr, false, shape, data)).unwrap();
        path
    }

    #[test]
    fn every_integer_dtype_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let want = vec![0usize, 1, 7, 100];
        let cases: [(&str, usize); 10] = [
            ("|i1", 1),
            ("<i1", 1),
            ("|u1", 1),
            ("<i2", 2),
            ("<u2", 2),
            ("<i4", 4),
            ("<u4", 4),
            ("<i8", 8),
            ("<u8", 8),
            ("<u1", 1),
        ];
        for (descr, size) in cases {
            let data: Vec<u8> =
                want.iter().flat_map(|&v| (v as u64).to_le_bytes()[..size].to_vec()).collect();
            let p = file(dir.path(), "k.npy", descr, "(4,)", &data);
            assert_eq!(read_counts(&p, "--lengths", 4).unwrap(), want, "{descr}");
        }
        // 255 as a u1 is 255; as an i1 it is -1, refused with its place
        let p = file(dir.path(), "u.npy", "|u1", "(1,)", &[255]);
        assert_eq!(read_counts(&p, "--k-per-row", 1).unwrap(), [255]);
        let p = file(dir.path(), "i.npy", "|i1", "(2,)", &[3, 255]);
        let e = read_counts(&p, "--k-per-row", 2).unwrap_err();
        assert!(matches!(e, Error::NpyNegative { index: 1, value: -1, .. }), "{e}");
        assert!(e.is_user_error() && e.to_string().contains("--k-per-row"), "{e}");
        let big = file(dir.path(), "b.npy", "<u8", "(1,)", &u64::MAX.to_le_bytes());
        assert_eq!(read_counts(&big, "--lengths", 1).unwrap(), [usize::MAX]);
        let neg = file(dir.path(), "n.npy", "<i8", "(1,)", &i64::MIN.to_le_bytes());
        assert!(matches!(read_counts(&neg, "--lengths", 1), Err(Error::NpyNegative { .. })));
    }

    #[test]
    fn wrong_dtypes_shapes_and_sizes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let four = [0u8; 16];
        let check = |p: &Path, n: usize, hint: bool, says: &str| {
            let e = if hint {
                read_f32s(p, "--hint", n).unwrap_err()
            } else {
                read_counts(p, "--lengths", n).unwrap_err()
            };
            assert!(e.is_user_error(), "{e}");
            assert!(e.to_string().contains(says), "{e} lacks {says}");
        };
        let f4 = file(dir.path(), "f.npy", "<f4", "(4,)", &four);
        check(&f4, 4, false, "an integer dtype");
        assert_eq!(read_f32s(&f4, "--hint", 4).unwrap(), [0.0; 4]);
        let i4 = file(dir.path(), "i.npy", "<i4", "(4,)", &four);
        check(&i4, 4, true, "<f4");
        check(&i4, 5, false, "(5,)");
        check(&file(dir.path(), "b.npy", ">i4", "(4,)", &four), 4, false, ">i4");
        check(&file(dir.path(), "o.npy", "|b1", "(4,)", &four[..4]), 4, false, "|b1");
        check(&file(dir.path(), "m.npy", "<i4", "(2, 2)", &four), 4, false, "(2, 2)");
        check(&file(dir.path(), "t.npy", "<i4", "(4,)", &four[..15]), 4, false, "truncated");
        check(&file(dir.path(), "x.npy", "<i4", "(3,)", &four), 3, false, "trailing");
        check(&dir.path().join("missing.npy"), 4, false, "missing.npy");
        let not = dir.path().join("not.npy");
        std::fs::write(&not, b"hello").unwrap();
        check(&not, 1, true, "not an .npy file");
        let nan = file(dir.path(), "h.npy", "<f4", "(1,)", &f32::NAN.to_le_bytes());
        assert!(read_f32s(&nan, "--hint", 1).unwrap()[0].is_nan());
        let empty = file(dir.path(), "e.npy", "<i8", "(0,)", &[]);
        assert!(read_counts(&empty, "--lengths", 0).unwrap().is_empty());
    }
}
