//! One test binary for topk-ref's CPU suites (the CPU reference: the row-wise driver, element
//! types, 16-bit rows, the oracle's properties, ragged rows, recall).
//!
//! Each file of `tests/` is a module here, so the crate and its dependencies are linked once,
//! not once per file. The files stay where they were, so proptest's regression files beside them
//! still apply. A new file must be declared here: the guard at the end fails until it is.
//! One suite alone: `cargo test -p topk-ref --test suite <file>::`.

mod driver;
mod dtypes;
mod elements16;
mod oracle_props;
mod ragged;
mod recall;

test_support::every_test_file_in_the_suite!();
