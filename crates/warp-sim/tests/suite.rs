//! One test binary for warp-sim's CPU suites (the simulator: the engine's clusters, the kernel
//! against bisect on every path, integers, mutants, the launch program, radix, ragged, 16-bit and
//! wide rows).
//!
//! Each file of `tests/` is a module here, so the crate and its dependencies are linked once,
//! not once per file. The files stay where they were, so proptest's regression files beside them
//! still apply. A new file must be declared here: the guard at the end fails until it is.
//! One suite alone: `cargo test -p warp-sim --test suite <file>::`.

mod cluster;
mod common;
mod equivalence;
mod integers;
mod mutants;
mod program;
mod radix;
mod ragged;
mod simulator;
mod sixteen_bit;
mod wide;

test_support::every_test_file_in_the_suite!();
