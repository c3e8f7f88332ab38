//! `rtopk prepare`: every GPU kernel unit built and loaded once — compiled by NVRTC on every
//! core into the on-disk cache — so that no later call of any shape or type, in any later
//! process, waits for a compiler (docs/kernel.md, "Compiling").

use clap::Args;

use crate::error::CliError;

/// Arguments of `rtopk prepare`.
#[derive(Debug, Args)]
pub(crate) struct PrepareArgs {
    /// The CUDA device
    #[arg(long, default_value_t = 0)]
    device: usize,
}

/// Builds every unit for the device and says what it took.
pub(crate) fn run(args: &PrepareArgs) -> Result<(), CliError> {
    let done = rtopk::cuda::prepare_all(args.device)?;
    println!(
        "{}: {} kernel units ready ({} compiled now, {} from the cache) in {:.1} s",
        done.device,
        done.units,
        done.compiled,
        done.units - done.compiled,
        done.ms / 1e3
    );
    Ok(())
}
