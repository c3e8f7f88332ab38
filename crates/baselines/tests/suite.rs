//! One test binary for baselines's CPU suites (the baselines against the oracle: every element
//! type, 16-bit rows, properties, ragged rows).
//!
//! Each file of `tests/` is a module here, so the crate and its dependencies are linked once,
//! not once per file. The files stay where they were, so proptest's regression files beside them
//! still apply. A new file must be declared here: the guard at the end fails until it is.
//! One suite alone: `cargo test -p baselines --test suite <file>::`.

mod dtypes;
mod elements16;
mod oracle_props;
mod ragged;

test_support::every_test_file_in_the_suite!();
