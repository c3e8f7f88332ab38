//! A `.npy` file written as a stream: the header first (the shape is known up front), then the
//! elements in C order, block after block, so that no whole array is ever held in memory.

use std::io::{self, Write};

use super::header::header_bytes;

/// Element types of the files written (SPEC §4: values `<f4`, indices and counts `<i8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// Little-endian float32.
    F4,
    /// Little-endian int64.
    I8,
}

impl Dtype {
    /// The header's descr.
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::F4 => "<f4",
            Dtype::I8 => "<i8",
        }
    }
}

/// Elements converted per write (a small stack buffer: no allocation per block).
const CHUNK_BYTES: usize = 64 << 10;

/// Writes one `.npy` array of a fixed dtype and shape to `out`.
#[derive(Debug)]
pub struct NpyWriter<W: Write> {
    out: W,
    dtype: Dtype,
    expected: u64,
    written: u64,
}

impl<W: Write> NpyWriter<W> {
    /// Writes the header; the elements follow with [`NpyWriter::write_f32`] or
    /// [`NpyWriter::write_i64`].
    pub fn new(mut out: W, dtype: Dtype, shape: &[u64]) -> io::Result<Self> {
        let expected =
            shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, "the output's element count overflows")
            })?;
        out.write_all(&header_bytes(dtype.descr(), shape))?;
        Ok(NpyWriter { out, dtype, expected, written: 0 })
    }

    /// Appends float32 elements (a `<f4` array).
    pub fn write_f32(&mut self, values: impl IntoIterator<Item = f32>) -> io::Result<()> {
        self.check_dtype(Dtype::F4)?;
        self.write_le(values.into_iter().map(f32::to_le_bytes))
    }

    /// Appends int64 elements (an `<i8` array).
    pub fn write_i64(&mut self, values: impl IntoIterator<Item = i64>) -> io::Result<()> {
        self.check_dtype(Dtype::I8)?;
        self.write_le(values.into_iter().map(i64::to_le_bytes))
    }

    /// Flushes and returns the sink, after checking that exactly the shape's element count was
    /// written.
    pub fn finish(mut self) -> io::Result<W> {
        if self.written != self.expected {
            return Err(io::Error::other(format!(
                "{} of {} elements were written",
                self.written, self.expected
            )));
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn check_dtype(&self, dtype: Dtype) -> io::Result<()> {
        if dtype == self.dtype {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} elements given to a {} file", dtype.descr(), self.dtype.descr()),
        ))
    }

    fn write_le<const N: usize>(&mut self, items: impl Iterator<Item = [u8; N]>) -> io::Result<()> {
        let mut chunk = [0u8; CHUNK_BYTES];
        let mut used = 0;
        for bytes in items {
            if self.written == self.expected {
                return Err(io::Error::other("more elements than the array's shape holds"));
            }
            chunk[used..used + N].copy_from_slice(&bytes);
            used += N;
            self.written += 1;
            if used + N > CHUNK_BYTES {
                self.out.write_all(&chunk[..used])?;
                used = 0;
            }
        }
        self.out.write_all(&chunk[..used])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::MatrixReader;
    use std::path::Path;

    #[test]
    fn a_matrix_written_in_blocks_reads_back_bit_exactly() {
        let vals: Vec<f32> =
            (0..20_000).map(|i| f32::from_bits(0x9e37_79b9u32.wrapping_mul(i))).collect();
        let mut w = NpyWriter::new(Vec::new(), Dtype::F4, &[4000, 5]).unwrap();
        for block in vals.chunks(3333) {
            w.write_f32(block.iter().copied()).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut r =
            MatrixReader::from_reader(Path::new("m"), bytes.as_slice(), Some(bytes.len() as u64))
                .unwrap();
        let mut block = Vec::new();
        assert_eq!(r.read_block(4000, &mut block).unwrap(), 4000);
        let same = block.iter().zip(&vals).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same);
    }

    #[test]
    fn counts_and_dtypes_are_enforced() {
        let mut w = NpyWriter::new(Vec::new(), Dtype::I8, &[2, 2]).unwrap();
        assert!(w.write_f32([1.0]).is_err());
        w.write_i64([1, 2, 3]).unwrap();
        let short = w;
        assert!(short.finish().is_err());
        let mut w = NpyWriter::new(Vec::new(), Dtype::I8, &[2]).unwrap();
        assert!(w.write_i64([1, 2, 3]).is_err());
        let mut w = NpyWriter::new(Vec::new(), Dtype::I8, &[0, 3]).unwrap();
        w.write_i64([]).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len() % 64, 0);
        assert!(NpyWriter::new(Vec::new(), Dtype::I8, &[u64::MAX, 2]).is_err());
    }
}
