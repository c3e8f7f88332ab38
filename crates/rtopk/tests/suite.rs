//! One test binary for rtopk's CPU suites (the one door: requests, the registry against the oracle,
//! element types, ragged rows, wide rows).
//!
//! Each file of `tests/` is a module here, so the crate and its dependencies are linked once,
//! not once per file. The files stay where they were, so proptest's regression files beside them
//! still apply. A new file must be declared here: the guard at the end fails until it is.
//! One suite alone: `cargo test -p rtopk --test suite <file>::`.

mod auto;
mod dtypes;
mod ragged;
mod registry_oracle;
mod request;
mod wide_rows;

test_support::every_test_file_in_the_suite!("gpu_ragged");
