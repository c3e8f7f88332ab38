//! A `.npy` file written as a stream: the header first (the shape is known up front), then the
//! elements in C order, block after block, so that no whole array is ever held in memory.

use std::io::{self, Write};

use topk_ref::f16;

use super::header::header_bytes;
use rtopk::Value;
use rtopk::dtype::Dtype;

/// Element types of the files read and written (docs/contract.md §4: values in the input's
/// dtype; indices and counts `<i8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NpyDtype {
    /// Little-endian float32.
    F4,
    /// Little-endian float16.
    F2,
    /// Little-endian int64.
    I8,
    /// Little-endian float64.
    F8,
    /// int8.
    I1,
    /// uint8.
    U1,
    /// Little-endian int16.
    I2,
    /// Little-endian int32.
    I4,
}

impl NpyDtype {
    /// The header's descr.
    pub fn descr(self) -> &'static str {
        match self {
            NpyDtype::F4 => "<f4",
            NpyDtype::F2 => "<f2",
            NpyDtype::I8 => "<i8",
            NpyDtype::F8 => "<f8",
            NpyDtype::I1 => "|i1",
            NpyDtype::U1 => "|u1",
            NpyDtype::I2 => "<i2",
            NpyDtype::I4 => "<i4",
        }
    }

    /// The file type of values of `dtype`: `None` for bfloat16, which has no `.npy` dtype.
    pub fn of(dtype: Dtype) -> Option<NpyDtype> {
        Some(match dtype {
            Dtype::Float32 => NpyDtype::F4,
            Dtype::Float16 => NpyDtype::F2,
            Dtype::Bfloat16 => return None,
            Dtype::Float64 => NpyDtype::F8,
            Dtype::Int8 => NpyDtype::I1,
            Dtype::Uint8 => NpyDtype::U1,
            Dtype::Int16 => NpyDtype::I2,
            Dtype::Int32 => NpyDtype::I4,
            Dtype::Int64 => NpyDtype::I8,
        })
    }
}

/// An element type with a `.npy` form: every [`Value`] but `bf16` (numpy has no bfloat16
/// dtype of its own), little-endian, bit for bit.
pub trait NpyFloat: Value {
    /// The file's dtype.
    const NPY: NpyDtype;

    /// The element whose little-endian bytes are `b` (`Self::DTYPE.size()` of them).
    fn from_le(b: &[u8]) -> Self;

    /// The element's little-endian bytes into `out` (`Self::DTYPE.size()` of them).
    fn put_le(self, out: &mut [u8]);
}

/// [`NpyFloat`] of primitive number types: their own little-endian bytes.
macro_rules! npy_primitive {
    ($($t:ty => $npy:ident;)*) => {$(
        impl NpyFloat for $t {
            const NPY: NpyDtype = NpyDtype::$npy;

            #[inline]
            fn from_le(b: &[u8]) -> Self {
                let mut bytes = [0u8; size_of::<$t>()];
                bytes.copy_from_slice(&b[..size_of::<$t>()]);
                <$t>::from_le_bytes(bytes)
            }

            #[inline]
            fn put_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

npy_primitive! {
    f32 => F4;
    f64 => F8;
    i8 => I1;
    u8 => U1;
    i16 => I2;
    i32 => I4;
    i64 => I8;
}

impl NpyFloat for f16 {
    const NPY: NpyDtype = NpyDtype::F2;

    #[inline]
    fn from_le(b: &[u8]) -> Self {
        f16::from_bits(u16::from_le_bytes([b[0], b[1]]))
    }

    #[inline]
    fn put_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_bits().to_le_bytes());
    }
}

/// Elements converted per write (a small stack buffer: no allocation per block).
const CHUNK_BYTES: usize = 64 << 10;

/// Writes one `.npy` array of a fixed dtype and shape to `out`.
#[derive(Debug)]
pub struct NpyWriter<W: Write> {
    out: W,
    dtype: NpyDtype,
    expected: u64,
    written: u64,
}

impl<W: Write> NpyWriter<W> {
    /// Writes the header; the elements follow with [`NpyWriter::write_values`] or
    /// [`NpyWriter::write_i64`].
    pub fn new(mut out: W, dtype: NpyDtype, shape: &[u64]) -> io::Result<Self> {
        let expected =
            shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, "the output's element count overflows")
            })?;
        out.write_all(&header_bytes(dtype.descr(), shape))?;
        Ok(NpyWriter { out, dtype, expected, written: 0 })
    }

    /// Appends float elements (a `<f4` array for `f32`, `<f2` for `f16`), bit for bit.
    pub fn write_values<E: NpyFloat>(
        &mut self,
        values: impl IntoIterator<Item = E>,
    ) -> io::Result<()> {
        self.check_dtype(E::NPY)?;
        self.write_le(values.into_iter(), E::DTYPE.size(), E::put_le)
    }

    /// Appends int64 elements (an `<i8` array).
    pub fn write_i64(&mut self, values: impl IntoIterator<Item = i64>) -> io::Result<()> {
        self.check_dtype(NpyDtype::I8)?;
        self.write_le(values.into_iter(), 8, |v, out| out.copy_from_slice(&v.to_le_bytes()))
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

    fn check_dtype(&self, dtype: NpyDtype) -> io::Result<()> {
        if dtype == self.dtype {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} elements given to a {} file", dtype.descr(), self.dtype.descr()),
        ))
    }

    /// Appends `items` of `size` bytes each, `put` writing one's little-endian bytes.
    fn write_le<T>(
        &mut self,
        items: impl Iterator<Item = T>,
        size: usize,
        put: impl Fn(T, &mut [u8]),
    ) -> io::Result<()> {
        let mut chunk = [0u8; CHUNK_BYTES];
        let mut used = 0;
        for item in items {
            if self.written == self.expected {
                return Err(io::Error::other("more elements than the array's shape holds"));
            }
            put(item, &mut chunk[used..used + size]);
            used += size;
            self.written += 1;
            if used + size > CHUNK_BYTES {
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
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::F4, &[4000, 5]).unwrap();
        for block in vals.chunks(3333) {
            w.write_values(block.iter().copied()).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut r =
            MatrixReader::from_reader(Path::new("m"), bytes.as_slice(), Some(bytes.len() as u64))
                .unwrap();
        let mut block = Vec::<f32>::new();
        assert_eq!(r.read_block(4000, &mut block).unwrap(), 4000);
        let same = block.iter().zip(&vals).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same);
    }

    #[test]
    fn every_f16_bit_pattern_writes_as_f2_and_reads_back() {
        let vals: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::F2, &[256, 256]).unwrap();
        assert!(w.write_values([1.0f32]).is_err(), "f32 values into a <f2 file");
        for block in vals.chunks(10_000) {
            w.write_values(block.iter().copied()).unwrap();
        }
        let bytes = w.finish().unwrap();
        assert!(String::from_utf8_lossy(&bytes[..64]).contains("'descr': '<f2'"));
        // Little-endian pairs: bit pattern 0x0102 is stored as 02 01.
        assert_eq!(&bytes[bytes.len() - 2..], &[0xff, 0xff]);
        assert_eq!(&bytes[128 + 2 * 0x0102..128 + 2 * 0x0102 + 2], &[0x02, 0x01]);
        let mut r = MatrixReader::from_reader(Path::new("h"), bytes.as_slice(), None).unwrap();
        assert_eq!(r.dtype(), Dtype::Float16);
        let mut block = Vec::<f16>::new();
        let mut all = Vec::new();
        while r.read_block(100, &mut block).unwrap() > 0 {
            all.extend(block.iter().map(|v| v.to_bits()));
        }
        assert_eq!(all, (0..=u16::MAX).collect::<Vec<u16>>());
    }

    #[test]
    fn counts_and_dtypes_are_enforced() {
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::I8, &[2, 2]).unwrap();
        assert!(w.write_values([1.0f32]).is_err());
        assert!(w.write_values([f16::ONE]).is_err());
        w.write_i64([1, 2, 3]).unwrap();
        let short = w;
        assert!(short.finish().is_err());
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::I8, &[2]).unwrap();
        assert!(w.write_i64([1, 2, 3]).is_err());
        let mut w = NpyWriter::new(Vec::new(), NpyDtype::I8, &[0, 3]).unwrap();
        w.write_i64([]).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len() % 64, 0);
        assert!(NpyWriter::new(Vec::new(), NpyDtype::I8, &[u64::MAX, 2]).is_err());
    }
}
