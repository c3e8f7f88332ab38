//! The input matrix, read in blocks of rows into a reused buffer: memory is one block, not the
//! file. Every check of docs/contract.md §4 (format, dtype, rank, order, size against the file's length)
//! happens when the file is opened, before a single value is read; for a stream of unknown
//! length (a pipe) the size checks happen as the data arrives.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use ndarray::Array2;
use topk_ref::TopKError;

use super::header::{
    ANY_INPUT_DTYPES, INPUT_DTYPES, dtype_hint, read_header, read_up_to, shape_string,
};
use super::writer::NpyFloat;
use crate::Error;
use rtopk::dtype::Dtype;

/// Input bytes per block of rows when the caller has no reason to choose: large enough that
/// per-block costs (a parallel launch, a GPU transfer) vanish, small enough that a block is a
/// modest part of a machine's memory.
pub const DEFAULT_BLOCK_BYTES: usize = 64 << 20;
/// Bytes converted per read: the file is read in pieces of this size into the block.
const READ_CHUNK: usize = 1 << 20;

/// An `(N, M)` little-endian float32 or float16 `.npy` matrix, read block by block (see the
/// module docs).
#[derive(Debug)]
pub struct MatrixReader<R = BufReader<File>> {
    path: PathBuf,
    src: R,
    dtype: Dtype,
    rows: usize,
    cols: usize,
    rows_read: usize,
    data_bytes: u64,
    ended: bool,
    scratch: Vec<u8>,
}

impl MatrixReader {
    /// Opens `path` and checks its preamble, header and (for a regular file) size.
    pub fn open(path: &Path) -> Result<Self, Error> {
        Self::open_as(path, false)
    }

    /// [`MatrixReader::open`] of a matrix of any element type with a `.npy` dtype (`<f8` and
    /// the integers too: `rtopk select`, docs/contract.md §1).
    pub fn open_any(path: &Path) -> Result<Self, Error> {
        Self::open_as(path, true)
    }

    fn open_as(path: &Path, any: bool) -> Result<Self, Error> {
        let fail = |source| Error::NpyRead { path: path.to_path_buf(), source };
        let file = File::open(path).map_err(fail)?;
        let meta = file.metadata().map_err(fail)?;
        let file_len = meta.is_file().then_some(meta.len());
        Self::read_header_of(path, BufReader::with_capacity(READ_CHUNK, file), file_len, any)
    }
}

impl<R: Read> MatrixReader<R> {
    /// Reads the header from `src`; `file_len` (the whole file's length, when known) lets the
    /// size checks happen now rather than at the end of the data. `path` names the source in
    /// messages.
    pub fn from_reader(path: &Path, src: R, file_len: Option<u64>) -> Result<Self, Error> {
        Self::read_header_of(path, src, file_len, false)
    }

    /// [`MatrixReader::from_reader`]; `any`: every dtype with a `.npy` form, else `<f4` and
    /// `<f2` only.
    fn read_header_of(
        path: &Path,
        mut src: R,
        file_len: Option<u64>,
        any: bool,
    ) -> Result<Self, Error> {
        let path_buf = || path.to_path_buf();
        let header = read_header(path, &mut src)?;
        let taken = Dtype::from_npy_descr(&header.descr).filter(|d| any || d.is_kernel_float());
        let Some(dtype) = taken else {
            let hint = dtype_hint(&header.descr);
            let expected = if any { ANY_INPUT_DTYPES } else { INPUT_DTYPES };
            return Err(Error::NpyDtype { path: path_buf(), expected, found: header.descr, hint });
        };
        let shape = header.shape.clone();
        let [n, m] = shape[..] else {
            let (shape, rank) = (shape_string(&shape), shape.len());
            return Err(Error::NpyRank { path: path_buf(), shape, rank });
        };
        if header.fortran_order {
            return Err(Error::NpyFortranOrder { path: path_buf() });
        }
        let found = file_len.map(|len| len.saturating_sub(header.data_offset));
        let shape = shape_string(&shape);
        let size = dtype.size() as u64;
        let Some(data_bytes) = n.checked_mul(m).and_then(|e| e.checked_mul(size)) else {
            let found = found.unwrap_or(0);
            return Err(Error::NpyOversized { path: path_buf(), shape, dtype, found });
        };
        match found {
            Some(found) if found < data_bytes => {
                let expected = data_bytes;
                return Err(Error::NpyTruncated {
                    path: path_buf(),
                    shape,
                    dtype,
                    expected,
                    found,
                });
            }
            Some(found) if found > data_bytes => {
                let expected = data_bytes;
                return Err(Error::NpyTrailingBytes { path: path_buf(), shape, expected, found });
            }
            _ => {}
        }
        // n · m · size fits in 64 bits, so each dimension fits in a 64-bit usize.
        let too_large = || {
            Error::TopK(TopKError::TooLarge { what: "input matrix", n: usize::MAX, m: usize::MAX })
        };
        let rows = usize::try_from(n).map_err(|_| too_large())?;
        let cols = usize::try_from(m).map_err(|_| too_large())?;
        Ok(MatrixReader {
            path: path.to_path_buf(),
            src,
            dtype,
            rows,
            cols,
            rows_read: 0,
            data_bytes,
            ended: false,
            scratch: Vec::new(),
        })
    }

    /// `(N, M)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The file as named when it was opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The element type of the file (`<f4`: float32, `<f2`: float16).
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// Rows per block for blocks of about `block_bytes` bytes (at least one row).
    pub fn rows_per_block(&self, block_bytes: usize) -> usize {
        let row_bytes = self.cols.saturating_mul(self.dtype.size());
        block_bytes.checked_div(row_bytes).unwrap_or(usize::MAX).max(1)
    }

    /// Reads the next (up to) `max_rows` rows into `block` (cleared first, its capacity kept),
    /// row-major, every value's bits as in the file. Returns the rows read: 0 once every row
    /// was read, after checking that nothing follows the data. `E` must be the file's type
    /// ([`MatrixReader::dtype`]); another is [`Error::NpyElementType`], nothing is converted.
    pub fn read_block<E: NpyFloat>(
        &mut self,
        max_rows: usize,
        block: &mut Vec<E>,
    ) -> Result<usize, Error> {
        block.clear();
        if E::DTYPE != self.dtype {
            let (path, found, expected) = (self.path.clone(), self.dtype, E::DTYPE);
            return Err(Error::NpyElementType { path, found, expected });
        }
        let rows = max_rows.min(self.rows - self.rows_read);
        if rows == 0 {
            self.check_end()?;
            return Ok(0);
        }
        // rows · cols · size ≤ the data size, which fits in 64 bits.
        let size = self.dtype.size();
        let len = rows * self.cols;
        block.try_reserve_exact(len).map_err(|_| {
            Error::TopK(TopKError::TooLarge { what: "block of input rows", n: rows, m: self.cols })
        })?;
        if self.scratch.len() < READ_CHUNK.min(len * size) {
            self.scratch.resize(READ_CHUNK.min(len * size), 0);
        }
        while block.len() < len {
            let want = ((len - block.len()) * size).min(self.scratch.len());
            let got = read_up_to(&mut self.src, &mut self.scratch[..want])
                .map_err(|e| self.read_error(e))?;
            block.extend(self.scratch[..got - got % size].chunks_exact(size).map(E::from_le));
            if got < want {
                let before = (self.rows_read * self.cols * size) as u64;
                let found = before + (block.len() * size + got % size) as u64;
                return Err(self.truncated(found));
            }
        }
        self.rows_read += rows;
        Ok(rows)
    }

    /// After the last row: anything more in the stream is trailing bytes.
    fn check_end(&mut self) -> Result<(), Error> {
        if self.ended {
            return Ok(());
        }
        let extra = io::copy(&mut self.src, &mut io::sink()).map_err(|e| self.read_error(e))?;
        self.ended = true;
        if extra > 0 {
            return Err(Error::NpyTrailingBytes {
                path: self.path.clone(),
                shape: self.shape_text(),
                expected: self.data_bytes,
                found: self.data_bytes.saturating_add(extra),
            });
        }
        Ok(())
    }

    fn shape_text(&self) -> String {
        shape_string(&[self.rows as u64, self.cols as u64])
    }

    fn truncated(&self, found: u64) -> Error {
        Error::NpyTruncated {
            path: self.path.clone(),
            shape: self.shape_text(),
            dtype: self.dtype,
            expected: self.data_bytes,
            found,
        }
    }

    fn read_error(&self, source: io::Error) -> Error {
        Error::NpyRead { path: self.path.clone(), source }
    }
}

/// Reads the whole `(N, M)` float32 matrix at `path` (for callers that need every row at once;
/// the allocation is checked, so a file too large for memory is an error, not an abort). A
/// float16 file is [`Error::NpyElementType`]; [`read_matrix_as`] reads either type.
pub fn read_matrix(path: &Path) -> Result<Array2<f32>, Error> {
    read_matrix_as(path)
}

/// [`read_matrix`] for elements of `E` (`f32` for a `<f4` file, `f16` for `<f2`).
pub fn read_matrix_as<E: NpyFloat>(path: &Path) -> Result<Array2<E>, Error> {
    let mut reader = MatrixReader::open(path)?;
    let (n, m) = reader.shape();
    let mut data = Vec::new();
    reader.read_block(n, &mut data)?;
    reader.read_block(n, &mut Vec::<E>::new())?;
    Array2::from_shape_vec((n, m), data)
        .map_err(|_| Error::TopK(TopKError::TooLarge { what: "input matrix", n, m }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::testing::npy_bytes;
    use topk_ref::f16;

    /// Opens `bytes` as a file of known length (`known`) or as a stream.
    fn open(bytes: &[u8], known: bool) -> Result<MatrixReader<&[u8]>, Error> {
        let len = known.then_some(bytes.len() as u64);
        MatrixReader::from_reader(Path::new("x.npy"), bytes, len)
    }

    /// Every element's bits, read `block_rows` rows at a time as `E`.
    fn read_bits<E: NpyFloat, B>(
        bytes: &[u8],
        known: bool,
        block_rows: usize,
        bits: fn(E) -> B,
    ) -> Result<Vec<B>, Error> {
        let mut r = open(bytes, known)?;
        let (mut all, mut block) = (Vec::new(), Vec::<E>::new());
        while r.read_block(block_rows, &mut block)? > 0 {
            all.extend(block.iter().map(|&v| bits(v)));
        }
        Ok(all)
    }

    fn read_all(bytes: &[u8], known: bool, block_rows: usize) -> Result<Vec<u32>, Error> {
        read_bits(bytes, known, block_rows, f32::to_bits)
    }

    /// [`read_all`] of a `<f2` file.
    fn read_all16(bytes: &[u8], known: bool, block_rows: usize) -> Result<Vec<u16>, Error> {
        read_bits(bytes, known, block_rows, f16::to_bits)
    }

    #[test]
    fn blocks_are_bit_exact_whatever_their_size() {
        let vals: Vec<f32> = (0..7 * 5)
            .map(|i| match i % 7 {
                0 => f32::from_bits(0x7fc0_1234),
                1 => -0.0,
                2 => f32::from_bits(1),
                3 => f32::NEG_INFINITY,
                _ => i as f32 * -1.25,
            })
            .collect();
        let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let file = npy_bytes("<f4", false, "(7, 5)", &data);
        let want: Vec<u32> = vals.iter().map(|v| v.to_bits()).collect();
        for known in [true, false] {
            for rows in [1, 2, 3, 7, 100] {
                assert_eq!(read_all(&file, known, rows).unwrap(), want, "{rows} rows, {known}");
            }
        }
        let r = open(&file, true).unwrap();
        assert_eq!((r.shape(), r.rows_per_block(40), r.rows_per_block(3)), ((7, 5), 2, 1));
    }

    #[test]
    fn f16_files_read_bit_exactly_in_their_own_type() {
        // NaNs of both signs with payloads, ±inf, ±0, subnormals, ordinary values.
        let bits: Vec<u16> = [0x7e01, 0xfc01, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x83ff]
            .into_iter()
            .chain((0..27).map(|i| 0x3c00 + 37 * i))
            .collect();
        let data: Vec<u8> = bits.iter().flat_map(|b| b.to_le_bytes()).collect();
        let file = npy_bytes("<f2", false, "(7, 5)", &data);
        for known in [true, false] {
            for rows in [1, 3, 7, 100] {
                assert_eq!(read_all16(&file, known, rows).unwrap(), bits, "{rows} rows, {known}");
            }
        }
        let r = open(&file, true).unwrap();
        assert_eq!((r.dtype(), r.shape(), r.rows_per_block(20)), (Dtype::Float16, (7, 5), 2));
        // Read as float32, a float16 file is refused, never converted (and the reverse).
        let e = read_all(&file, true, 7).unwrap_err();
        assert!(
            matches!(
                e,
                Error::NpyElementType { found: Dtype::Float16, expected: Dtype::Float32, .. }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("holds float16 (<f2) values; float32 (<f4) expected"));
        assert!(e.is_user_error());
        let f4 = npy_bytes("<f4", false, "(1, 2)", &[0u8; 8]);
        assert!(matches!(read_all16(&f4, true, 1), Err(Error::NpyElementType { .. })));
        // Sizes are the file's: 2 bytes per element.
        let short = npy_bytes("<f2", false, "(7, 5)", &data[..69]);
        let e = open(&short, true).unwrap_err();
        assert!(matches!(e, Error::NpyTruncated { expected: 70, found: 69, .. }), "{e}");
        assert!(e.to_string().contains("bytes of float16 data"), "{e}");
        let e = read_all16(&short, false, 2).unwrap_err();
        assert!(matches!(e, Error::NpyTruncated { expected: 70, found: 69, .. }), "{e}");
        let long = npy_bytes("<f2", false, "(7, 5)", &[data.as_slice(), &[0, 0]].concat());
        assert!(matches!(open(&long, true), Err(Error::NpyTrailingBytes { .. })));
    }

    #[test]
    fn rejects_what_spec_rejects() {
        let d = [0u8; 24];
        let err = |b: Vec<u8>| open(&b, true).unwrap_err();
        assert!(matches!(err(npy_bytes("<f8", false, "(2, 3)", &d)), Error::NpyDtype { .. }));
        assert!(matches!(err(npy_bytes(">f4", false, "(2, 3)", &d)), Error::NpyDtype { .. }));
        let native = err(npy_bytes("=f4", false, "(2, 3)", &d)).to_string();
        assert!(native.contains("found =f4") && native.contains("byte order"), "{native}");
        let bare = err(npy_bytes("f4", false, "(2, 3)", &d)).to_string();
        assert!(bare.contains("expected dtype <f4") && bare.contains("found f4"), "{bare}");
        // 16-bit dtypes other than little-endian float16: what was found, what is expected.
        let expected = "expected dtype <f4 (little-endian float32) or <f2 (little-endian float16)";
        for (descr, says) in [
            (">f2", "big-endian; convert with x.astype('<f2')"),
            ("=f2", "byte order is not stated"),
            ("<V2", "bfloat16"),
            ("<i2", ""),
            ("<u2", ""),
            ("<f8", ""),
            ("<i8", ""),
        ] {
            let e = err(npy_bytes(descr, false, "(3, 4)", &d));
            let text = e.to_string();
            assert!(matches!(e, Error::NpyDtype { .. }), "{descr}: {e}");
            assert!(text.contains(expected) && text.contains(&format!("found {descr}")), "{text}");
            assert!(text.contains(says), "{text}");
        }
        assert!(matches!(err(npy_bytes("<f4", false, "(6,)", &d)), Error::NpyRank { rank: 1, .. }));
        assert!(matches!(err(npy_bytes("<f4", false, "[2, 3]", &d)), Error::NpyHeader { .. }));
        assert!(matches!(err(npy_bytes("<f4", true, "(2, 3)", &d)), Error::NpyFortranOrder { .. }));
        assert!(matches!(err(npy_bytes("<f4", false, "(2, 4)", &d)), Error::NpyTruncated { .. }));
        assert!(matches!(
            err(npy_bytes("<f4", false, "(2, 2)", &d)),
            Error::NpyTrailingBytes { .. }
        ));
        assert!(matches!(err(b"hello world".to_vec()), Error::NotNpy { .. }));
        let huge = npy_bytes("<f4", false, "(18446744073709551615, 18446744073709551615)", &d);
        assert!(matches!(err(huge), Error::NpyOversized { .. }));
        let big = npy_bytes("<f4", false, "(4294967296, 2147483648)", &d);
        assert!(matches!(err(big), Error::NpyOversized { .. }));
        let big = npy_bytes("<f4", false, "(4294967296, 536870912)", &d);
        assert!(matches!(err(big), Error::NpyTruncated { .. }));
        let mut cut = npy_bytes("<f4", false, "(2, 3)", &d);
        cut.truncate(30);
        assert!(matches!(err(cut), Error::NpyHeader { .. }));
    }

    #[test]
    fn every_input_error_names_the_file_and_is_the_callers() {
        let d = [0u8; 24];
        let cases = [
            (b"hello world".to_vec(), "x.npy: not an .npy file"),
            (npy_bytes("<f8", false, "(2, 3)", &d), "x.npy: expected dtype <f4"),
            (npy_bytes("<f4", false, "(6,)", &d), "x.npy: expected a 2-D array"),
            (npy_bytes("<f4", false, "[2, 3]", &d), "x.npy: malformed .npy header"),
            (npy_bytes("<f4", true, "(2, 3)", &d), "x.npy: Fortran-order arrays"),
            (npy_bytes("<f4", false, "(2, 4)", &d), "x.npy: truncated data: shape (2, 4) needs 32"),
            (npy_bytes("<f4", false, "(2, 2)", &d), "x.npy: 24 bytes of data follow the header"),
        ];
        for (bytes, start) in cases {
            let e = open(&bytes, true).unwrap_err();
            assert!(e.to_string().starts_with(start), "{e}");
            assert!(e.is_user_error(), "{e}");
        }
    }

    #[test]
    fn a_stream_of_unknown_length_is_checked_as_it_is_read() {
        let short = npy_bytes("<f4", false, "(2, 3)", &[0u8; 21]);
        let e = read_all(&short, false, 1).unwrap_err();
        assert!(matches!(e, Error::NpyTruncated { expected: 24, found: 21, .. }), "{e}");
        let long = npy_bytes("<f4", false, "(2, 3)", &[0u8; 30]);
        let e = read_all(&long, false, 5).unwrap_err();
        assert!(matches!(e, Error::NpyTrailingBytes { expected: 24, found: 30, .. }), "{e}");
    }

    #[test]
    fn a_missing_file_is_a_read_error() {
        let e = MatrixReader::open(Path::new("/nonexistent/x.npy")).unwrap_err();
        assert!(e.to_string().contains("cannot read the file"), "{e}");
        assert!(e.is_user_error());
    }

    /// A source that refuses every read, as a file the system will not read does.
    #[derive(Debug)]
    struct Refusing;

    impl Read for Refusing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::PermissionDenied))
        }
    }

    #[test]
    fn a_refused_read_is_the_environments() {
        let e = MatrixReader::from_reader(Path::new("x.npy"), Refusing, None).unwrap_err();
        assert!(matches!(e, Error::NpyRead { .. }), "{e}");
        assert!(e.to_string().starts_with("x.npy: cannot read the file: "), "{e}");
        assert!(!e.is_user_error(), "{e}");
    }
}
