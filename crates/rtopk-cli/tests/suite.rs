//! One test binary for rtopk-cli's CPU suites (the command line, run as a user runs it: every
//! subcommand, its files and exit codes).
//!
//! Each file of `tests/` is a module here, so the crate and its dependencies are linked once,
//! not once per file. The files stay where they were, so proptest's regression files beside them
//! still apply. A new file must be declared here: the guard at the end fails until it is.
//! One suite alone: `cargo test -p rtopk-cli --test suite <file>::`.

mod cli;
mod cli_analysis;
mod cli_baselines;
mod cli_bench_cuda;
mod cli_dtype16;
mod cli_dtypes;
mod cli_plan;
mod cli_prepare;
mod cli_ragged;
mod cli_recall;
mod cli_sim;
mod cli_sim16;
mod cli_stats_recall;
mod common;

test_support::every_test_file_in_the_suite!();
