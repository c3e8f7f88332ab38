//! `rtopk` — the command line of the RTop-K workspace (SPEC §4).
//!
//! * `rtopk select` — row-wise top-k of a `.npy` matrix with any available algorithm.
//! * `rtopk bench cpu` — times the CPU reference algorithms, each checked against an exact
//!   answer first.
//!
//! Exit codes: 0 on success, 2 on bad arguments or bad input, 1 on other failures. Error
//! messages go to stderr and start with `error: `.

mod algos;
mod bench_cmd;
mod error;
mod npy_io;
mod select_cmd;

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
    /// Algorithm comparisons
    #[command(subcommand)]
    Bench(bench_cmd::BenchCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Select(args) => select_cmd::run(args),
        Command::Bench(cmd) => bench_cmd::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
