//! `rtopk` — the command line of the RTop-K workspace (SPEC §4).
//!
//! * `rtopk select` — row-wise top-k of a `.npy` matrix with any available algorithm.
//! * `rtopk bench cpu` — times the CPU reference algorithms, each checked against an exact
//!   answer first.
//!
//! Exit codes: 0 on success, 2 on bad arguments or bad input, 1 on other failures. Error
//! messages go to stderr and start with `error: `.

#![forbid(unsafe_code)]

mod algos;
mod bench_cmd;
mod cuda_cmd;
mod error;
mod npy_io;
mod reproduce_cmd;
mod select_cmd;
mod sim_cmd;
mod stats_cmd;
mod trace_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The `rtopk` command line.
#[derive(Debug, Parser)]
#[command(name = "rtopk", version, about = "Row-wise top-k selection (RTop-K): select, bench")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Row-wise top-k of a 2-D float32 .npy matrix
    Select(select_cmd::SelectArgs),
    /// Teaching trace of the simulated warp kernel on one row (text, and SVG with --svg)
    Trace(trace_cmd::TraceArgs),
    /// The warp simulator's tools (the seeded-bug catalog)
    #[command(subcommand)]
    Sim(sim_cmd::SimCommand),
    /// Algorithm comparisons
    #[command(subcommand)]
    Bench(bench_cmd::BenchCommand),
    /// Equivalence checks of an implementation against the CPU references
    #[command(subcommand)]
    Verify(VerifyCommand),
    /// Iteration-count statistics of the bisection (SPEC §3)
    #[command(subcommand)]
    Stats(stats_cmd::StatsCommand),
    /// Re-derive the paper's Tables 5, 1, 2 and Appendix A on the CPU, with verdicts
    Reproduce(reproduce_cmd::ReproduceArgs),
}

/// `rtopk verify` subcommands.
#[derive(Debug, Subcommand)]
enum VerifyCommand {
    /// The CUDA kernel against topk-ref's bisect and warp-sim's kernel: values, indices and
    /// iteration counts
    Cuda(cuda_cmd::VerifyCudaArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Select(args) => select_cmd::run(args),
        Command::Trace(args) => trace_cmd::run(args),
        Command::Sim(cmd) => sim_cmd::run(cmd),
        Command::Bench(cmd) => bench_cmd::run(cmd),
        Command::Verify(VerifyCommand::Cuda(args)) => cuda_cmd::verify(args),
        Command::Stats(cmd) => stats_cmd::run(cmd),
        Command::Reproduce(args) => reproduce_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
