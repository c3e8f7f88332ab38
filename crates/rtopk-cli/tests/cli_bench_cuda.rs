//! End-to-end tests of `rtopk bench cuda`'s arguments, which need no GPU: `--input` against
//! generated cases is clap's usage error, and a bad input file is refused with exit code 2
//! before any device is opened.

use crate::common;

use common::{Case, fails_with, raw_npy};

#[test]
fn input_and_generated_cases_conflict() {
    for other in [&["--dist", "laplace"][..], &["--grid", "split"], &["--n", "4"]] {
        let mut args = vec!["bench", "cuda", "--input", "x.npy", "-k", "5"];
        args.extend_from_slice(other);
        fails_with(&args, 2, "cannot be used with");
    }
    fails_with(&["bench", "cuda", "--input", "x.npy"], 2, "-k");
    fails_with(&["bench", "cuda", "--dist", "cauchy"], 2, "unknown family 'cauchy'");
    fails_with(&["bench", "cuda", "--grid", "split,fig4"], 2, "--grid split,fig4");
}

#[test]
fn a_bad_input_file_exits_2_before_the_device() {
    let dir = Case::with_bytes(b"not a numpy file at all");
    let x = dir.p("X.npy");
    fails_with(&["bench", "cuda", "--input", &x, "-k", "1"], 2, "not an .npy file");
    let dir = Case::with_bytes(&raw_npy("<f4", false, "(2, 3)", &[0; 24]));
    let x = dir.p("X.npy");
    fails_with(&["bench", "cuda", "--input", &x, "-k", "1,4"], 2, "k = 4");
}
