//! `rtopk select` takes `<f4` and `<f2` matrices only (docs/contract.md §4): a `.npy` of float64
//! or an integer type — element types the library and the Python package do take — is refused
//! with exit 2, the dtype found and the two taken, and no output left behind, whatever the
//! algorithm.

use crate::common;

use common::*;

#[test]
fn other_element_types_are_refused_by_the_command_line() {
    let expected = "expected dtype <f4 (little-endian float32) or <f2 (little-endian float16)";
    for (descr, size) in [("<f8", 8), ("|i1", 1), ("|u1", 1), ("<i2", 2), ("<i4", 4), ("<i8", 8)] {
        let c = Case::with_bytes(&raw_npy(descr, false, "(2, 3)", &vec![0u8; 6 * size]));
        for algo in ["auto", "bisect", "heap", "torch-radix"] {
            let out = c.select(&["--algo", algo, "-k", "1"]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{algo} {descr}: {err}");
            assert!(err.contains(expected) && err.contains(&format!("found {descr}")), "{err}");
            assert_eq!(c.files(), ["X.npy"], "{algo} {descr}");
        }
    }
}
