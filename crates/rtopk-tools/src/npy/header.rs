//! The `.npy` preamble and header (format versions 1.0, 2.0 and 3.0), read from a stream and
//! checked strictly before a single data byte is read.

use std::io::{self, Read};
use std::path::Path;

use super::literal::{Entry, Value, parse_dict};
use crate::Error;

/// The magic string every `.npy` file starts with.
pub(super) const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// The input dtypes accepted, for messages (docs/contract.md §4; [`rtopk::Dtype::from_npy_descr`] is the
/// check).
pub(crate) const INPUT_DTYPES: &str = "<f4 (little-endian float32) or <f2 (little-endian float16)";
/// The input dtypes `rtopk select` accepts ([`super::MatrixReader::open_any`]), for messages.
pub(crate) const ANY_INPUT_DTYPES: &str = "<f4, <f2, <f8, |i1, |u1, <i2, <i4 or <i8 (little-endian float32, float16, float64, int8, \
     uint8, int16, int32, int64)";
/// numpy pads the whole preamble plus header to a multiple of this (for aligned reads).
pub(super) const HEADER_ALIGN: usize = 64;
/// The longest header read (numpy's own reader stops at 10 000 bytes by default; a matrix's
/// header is under 128).
const MAX_HEADER_LEN: u64 = 1 << 20;

/// A parsed header: the three keys of every `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The dtype: the string itself when `descr` is a string, else the literal as written
    /// (a structured dtype).
    pub descr: String,
    /// `True` for column-major data.
    pub fortran_order: bool,
    /// The shape.
    pub shape: Vec<u64>,
    /// Bytes before the data (preamble and header).
    pub data_offset: u64,
}

/// A shape in Python notation: `()`, `(3,)`, `(2, 3)`.
pub fn shape_string(shape: &[u64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(u64::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// Reads into `buf` until it is full or the stream ends; returns the bytes read.
pub(super) fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads the preamble (magic, version, header length) and the header from the start of `r`,
/// leaving `r` at the first data byte. `path` names the source in errors.
pub(super) fn read_header(path: &Path, r: &mut impl Read) -> Result<Header, Error> {
    let read_error = |source| Error::NpyRead { path: path.to_path_buf(), source };
    let malformed = |reason| Error::NpyHeader { path: path.to_path_buf(), reason };
    let mut pre = [0u8; 12];
    let got = read_up_to(r, &mut pre[..8]).map_err(read_error)?;
    if got < MAGIC.len() || &pre[..MAGIC.len()] != MAGIC {
        return Err(Error::NotNpy { path: path.to_path_buf() });
    }
    if got < 8 {
        return Err(malformed("the file ends inside the version bytes".into()));
    }
    let (major, minor) = (pre[6], pre[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(Error::NpyVersion { path: path.to_path_buf(), major, minor }),
    };
    let got = read_up_to(r, &mut pre[8..8 + len_bytes]).map_err(read_error)?;
    if got < len_bytes {
        return Err(malformed("the file ends inside the header length".into()));
    }
    let header_len =
        pre[8..8 + len_bytes].iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    // Read through `take` so that a huge claimed length costs at most what the file holds and
    // the cap allows.
    let mut text = Vec::new();
    r.by_ref()
        .take(header_len.min(MAX_HEADER_LEN + 1))
        .read_to_end(&mut text)
        .map_err(read_error)?;
    let got = text.len() as u64;
    if got > MAX_HEADER_LEN {
        return Err(malformed(format!(
            "the header length says {header_len} bytes; this reader accepts at most {MAX_HEADER_LEN}"
        )));
    }
    if got < header_len {
        return Err(malformed(format!(
            "the header length says {header_len} bytes but the file holds only {got}"
        )));
    }
    let text = String::from_utf8_lossy(&text);
    let mut header =
        parse_dict(&text).and_then(|entries| header_from(&entries)).map_err(malformed)?;
    header.data_offset = 8 + len_bytes as u64 + header_len;
    Ok(header)
}

/// The three keys, each present once and of the type numpy requires; an error is why the
/// header is malformed.
fn header_from(entries: &[Entry]) -> Result<Header, String> {
    const KEYS: [&str; 3] = ["descr", "fortran_order", "shape"];
    for (i, e) in entries.iter().enumerate() {
        if !KEYS.contains(&e.key.as_str()) {
            return Err(format!(
                "unexpected key '{}' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')",
                e.key
            ));
        }
        if entries[..i].iter().any(|other| other.key == e.key) {
            return Err(format!("the key '{}' appears twice", e.key));
        }
    }
    let get = |key: &str| {
        entries
            .iter()
            .find(|e| e.key == key)
            .ok_or_else(|| format!("the header has no '{key}' key"))
    };
    let descr = get("descr")?;
    let descr = match &descr.value {
        Value::Str(s) => s.clone(),
        _ => descr.text.clone(),
    };
    let fortran = get("fortran_order")?;
    let Value::Bool(fortran_order) = fortran.value else {
        return Err(format!("'fortran_order' must be True or False, found {}", fortran.text));
    };
    let shape = get("shape")?;
    Ok(Header { descr, fortran_order, shape: shape_from(shape)?, data_offset: 0 })
}

/// A shape: a tuple of integers `>= 0`, each within 64 bits (numpy refuses a list); an error
/// is why the header is malformed.
fn shape_from(entry: &Entry) -> Result<Vec<u64>, String> {
    let items = match &entry.value {
        Value::Tuple(items) => items,
        Value::List(_) => {
            return Err(format!(
                "'shape' is the list {}; numpy writes and reads a tuple, e.g. (5, 8)",
                entry.text
            ));
        }
        _ => return Err(format!("'shape' must be a tuple of integers, found {}", entry.text)),
    };
    items
        .iter()
        .map(|v| match v {
            Value::Int(n) => u64::try_from(*n).map_err(|_| {
                format!(
                    "shape {}: a dimension must be between 0 and 2^64 - 1, found {n}",
                    entry.text
                )
            }),
            _ => Err(format!("'shape' must be a tuple of integers, found {}", entry.text)),
        })
        .collect()
}

/// Why a descr that is neither `<f4` nor `<f2` was refused, beyond "it is not one of them".
pub(super) fn dtype_hint(descr: &str) -> &'static str {
    match descr {
        "=f4" | "f4" | "float32" => {
            " (the byte order is not stated; docs/contract.md §4 requires it explicitly: write '<f4', \
             e.g. x.astype('<f4'))"
        }
        "=f2" | "f2" | "float16" => {
            " (the byte order is not stated; docs/contract.md §4 requires it explicitly: write '<f2', \
             e.g. x.astype('<f2'))"
        }
        ">f4" => " (big-endian; convert with x.astype('<f4'))",
        ">f2" => " (big-endian; convert with x.astype('<f2'))",
        "<V2" | "|V2" => {
            " (raw 2-byte values: how numpy saves a bfloat16 array of ml_dtypes, which has no \
             .npy dtype; convert with x.astype('<f4'), or select through the Python package, \
             which takes bfloat16)"
        }
        _ if descr.starts_with('[') => " (a structured dtype)",
        _ => "",
    }
}

/// The header numpy would write for a C-order array of `descr` and `shape`: version 1.0 (2.0
/// when the header needs more than 65535 bytes), padded with spaces to a multiple of 64 bytes
/// and ended by a newline.
pub(super) fn header_bytes(descr: &str, shape: &[u64]) -> Vec<u8> {
    let shape = shape_string(shape);
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let header_len = |len_bytes: usize| {
        let unpadded = MAGIC.len() + 2 + len_bytes + dict.len() + 1;
        dict.len() + 1 + (HEADER_ALIGN - unpadded % HEADER_ALIGN) % HEADER_ALIGN
    };
    let (version, len_bytes) =
        if header_len(2) <= usize::from(u16::MAX) { (1u8, 2usize) } else { (2, 4) };
    let header_len = header_len(len_bytes);
    let mut out = Vec::with_capacity(MAGIC.len() + 2 + len_bytes + header_len);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    out.extend_from_slice(&(header_len as u64).to_le_bytes()[..len_bytes]);
    out.extend_from_slice(dict.as_bytes());
    out.resize(MAGIC.len() + 2 + len_bytes + header_len - 1, b' ');
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Result<Header, Error> {
        read_header(Path::new("x.npy"), &mut &bytes[..])
    }

    fn parse(dict: &str) -> Result<Header, Error> {
        let mut header = dict.as_bytes().to_vec();
        header.push(b'\n');
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        file.extend_from_slice(&(header.len() as u16).to_le_bytes());
        file.extend_from_slice(&header);
        read(&file)
    }

    #[test]
    fn written_headers_read_back_and_are_aligned() {
        for shape in [vec![], vec![7], vec![1_000_000, 32], vec![u64::MAX, 3]] {
            let bytes = header_bytes("<i8", &shape);
            assert_eq!(bytes.len() % HEADER_ALIGN, 0);
            assert_eq!(*bytes.last().unwrap(), b'\n');
            let h = read(&bytes).unwrap();
            assert_eq!((h.descr.as_str(), h.fortran_order, &h.shape), ("<i8", false, &shape));
            assert_eq!(h.data_offset, bytes.len() as u64);
        }
    }

    #[test]
    fn keys_and_their_types_are_checked() {
        let ok = parse("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }").unwrap();
        assert_eq!(ok.shape, vec![2, 3]);
        let msg = |d: &str| parse(d).unwrap_err().to_string();
        assert!(
            msg("{'descr': '<f4', 'fortran_order': False, 'shape': [5, 8]}")
                .contains("list [5, 8]")
        );
        assert!(msg("{'descr': '<f4', 'fortran_order': False, 'shape': (5)}").contains("tuple"));
        assert!(msg("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 2)}").contains("-1"));
        assert!(
            msg("{'descr': '<f4', 'fortran_order': 0, 'shape': (1, 2)}").contains("True or False")
        );
        assert!(msg("{'descr': '<f4', 'shape': (1, 2)}").contains("'fortran_order'"));
        assert!(
            msg("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}").contains("'x'")
        );
        assert!(
            msg("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}")
                .contains("twice")
        );
        let structured = parse("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}");
        assert_eq!(structured.unwrap().descr, "[('a', '<f4')]");
    }

    #[test]
    fn preamble_errors() {
        assert!(matches!(read(b""), Err(Error::NotNpy { .. })));
        assert!(matches!(read(b"\x93NUMP"), Err(Error::NotNpy { .. })));
        assert!(matches!(read(b"\x93NUMPY\x01"), Err(Error::NpyHeader { .. })));
        assert!(matches!(
            read(b"\x93NUMPY\x04\x00\x00\x00"),
            Err(Error::NpyVersion { major: 4, minor: 0, .. })
        ));
        assert!(matches!(read(b"\x93NUMPY\x02\x00\x01"), Err(Error::NpyHeader { .. })));
        let err = read(b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}").unwrap_err().to_string();
        assert_eq!(
            err,
            "x.npy: malformed .npy header: the header length says 4294967295 bytes but the file \
             holds only 2"
        );
    }

    #[test]
    fn shapes_print_like_python() {
        assert_eq!(shape_string(&[]), "()");
        assert_eq!(shape_string(&[3]), "(3,)");
        assert_eq!(shape_string(&[2, 3]), "(2, 3)");
    }
}
