//! What the `.npy` tests share: files built byte by byte, so that a test can write what no
//! writer of ours would (a Fortran-order array, a foreign dtype, a short data section).

/// A version-1.0 `.npy` file: the header dict of `descr`, `fortran` and `shape` (Python
/// notation), padded as numpy pads it, then `data`.
pub(super) fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
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
