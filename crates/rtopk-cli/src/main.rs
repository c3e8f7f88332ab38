//! `rtopk` — the command line of the RTop-K workspace (docs/contract.md §4), a thin face over the `rtopk`
//! library: `select`, `plan`, `trace`, `sim`, `bench`, `verify`, `stats`, `reproduce` and
//! `prepare`.
//!
//! Exit codes: 0 on success; 2 when the input or the arguments are wrong (sizes too large to
//! allocate included); 1 when the environment fails (disk full, permission denied, no GPU
//! driver, a wrong answer found by a self-check); 128 + the signal's number after SIGINT (130),
//! SIGTERM (143) or SIGHUP (129), once pending temporary files are removed. Error messages go
//! to stderr and start with `error: `.

#![forbid(unsafe_code)]

mod bench_cmd;
mod cuda_cmd;
mod dtype_arg;
mod error;
mod plan_cmd;
mod prepare_cmd;
mod reproduce_cmd;
mod search_args;
mod select_cmd;
mod sim_cmd;
mod stats_cmd;
mod trace_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The `rtopk` command line.
#[derive(Debug, Parser)]
#[command(
    name = "rtopk",
    version,
    about = "Row-wise top-k selection (RTop-K): select, plan, trace, sim, bench, verify, stats, reproduce, prepare",
    after_help = "Exit codes: 0 success; 2 bad input or arguments; 1 the environment failed \
                  (disk full, permission denied, no GPU driver, a failed self-check); \
                  130/143 interrupted by SIGINT/SIGTERM (temporary files removed)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Row-wise top-k of a 2-D float32 or float16 .npy matrix
    Select(select_cmd::SelectArgs),
    /// The launch program the GPU runs for a shape (kernels, grids, buffers), without a GPU
    Plan(plan_cmd::PlanArgs),
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
    /// Iteration-count statistics of the bisection (docs/contract.md §3)
    #[command(subcommand)]
    Stats(stats_cmd::StatsCommand),
    /// Re-derive the paper's Tables 5, 1, 2 and Appendix A on the CPU, with verdicts
    Reproduce(reproduce_cmd::ReproduceArgs),
    /// Build every GPU kernel once (NVRTC, into the disk cache): no later call compiles
    Prepare(prepare_cmd::PrepareArgs),
}

/// `rtopk verify` subcommands.
#[derive(Debug, Subcommand)]
enum VerifyCommand {
    /// The CUDA kernel against topk-ref's bisect and warp-sim's kernel: values, indices and
    /// iteration counts
    Cuda(cuda_cmd::VerifyCudaArgs),
}

fn main() -> ExitCode {
    remove_temporaries_on_signals();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Select(args) => select_cmd::run(args),
        Command::Plan(args) => plan_cmd::run(args),
        Command::Trace(args) => trace_cmd::run(args),
        Command::Sim(cmd) => sim_cmd::run(cmd),
        Command::Bench(cmd) => bench_cmd::run(cmd),
        Command::Verify(VerifyCommand::Cuda(args)) => cuda_cmd::verify(args),
        Command::Stats(cmd) => stats_cmd::run(cmd),
        Command::Reproduce(args) => reproduce_cmd::run(args),
        Command::Prepare(args) => prepare_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// On SIGINT, SIGTERM or SIGHUP: remove the temporary files of pending outputs, then exit with
/// 128 + the signal's number, as a shell reports a process the signal killed. (SIGKILL cannot
/// be caught; it may leave a temporary file behind.)
fn remove_temporaries_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!(
                "warning: cannot install signal handlers ({e}); an interrupted run may leave temporary files"
            );
            return;
        }
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            rtopk_tools::npy::remove_pending_temporaries();
            std::process::exit(128 + signal);
        }
    });
}
