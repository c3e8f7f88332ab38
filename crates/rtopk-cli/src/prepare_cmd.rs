//! `rtopk prepare`: every GPU kernel unit built and loaded once — compiled by NVRTC on every
//! core into the on-disk cache — so that no later call of any shape or type, in any later
//! process, waits for a compiler (docs/kernel.md, "Compiling"). With `--arch` and `--out`, the
//! same units compiled ahead of time without a GPU, to ship with a face (docs/kernel.md,
//! "Shipped units").

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;

/// Arguments of `rtopk prepare`.
#[derive(Debug, Args)]
pub(crate) struct PrepareArgs {
    /// The CUDA device
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Build for these architectures instead of a device, without a GPU (with --out):
    /// comma-separated, e.g. sm_80,sm_90
    #[arg(long, value_delimiter = ',', requires = "out")]
    arch: Vec<String>,
    /// The directory the units for --arch go to (one subdirectory per architecture)
    #[arg(long, requires = "arch")]
    out: Option<PathBuf>,
}

/// Builds every unit for the device, or for `--arch` into `--out`, and says what it took.
pub(crate) fn run(args: &PrepareArgs) -> Result<(), CliError> {
    if let Some(dir) = &args.out {
        return ship(dir, &args.arch);
    }
    let done = rtopk::cuda::prepare_all(args.device)?;
    println!(
        "{}: {} kernel units ready ({} compiled now, {} shipped, {} from the cache) in {:.1} s",
        done.device,
        done.units,
        done.compiled,
        done.shipped,
        done.units - done.compiled - done.shipped,
        done.ms / 1e3
    );
    Ok(())
}

/// `rtopk prepare --arch A,B --out DIR`.
fn ship(dir: &std::path::Path, archs: &[String]) -> Result<(), CliError> {
    let start = std::time::Instant::now();
    let shipped = rtopk::cuda::ship_units(dir, archs)?;
    for s in &shipped {
        println!(
            "{}: {} kernel units in {} ({:.1} MiB; {} compiled now, {} kept from an earlier \
             build of the same source, {} of an earlier build removed)",
            s.arch,
            s.units,
            dir.join(&s.arch).display(),
            s.bytes as f64 / 1_048_576.0,
            s.units - s.kept,
            s.kept,
            s.removed
        );
    }
    println!("built in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
