//! `rtopk reproduce`: the paper's Tables 5, 1, 2 and Appendix A re-derived on the CPU, with a
//! verdict per table (the analysis crate does the work; this is the front door).

use std::fs;
use std::path::PathBuf;

use clap::Args;
use rtopk::stats::report::{ReproduceOptions, SectionId, reproduce, write};

use crate::error::CliError;

/// Where the report goes by default: under `target/`, which git ignores, so that running the
/// README's first command does not rewrite the committed `results/reproduce/`.
const DEFAULT_OUT: &str = "target/rtopk/reproduce";

/// Arguments of `rtopk reproduce`.
#[derive(Debug, Args)]
pub(crate) struct ReproduceArgs {
    /// Directory for report.md, the CSV/JSON tables and the SVG figures. The default is outside
    /// version control; the committed copy is regenerated with --out results/reproduce
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Rows per experiment for Tables 5, 1 and 2 (default: the paper's, 10^4 and 10^5)
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    reps: Option<usize>,
    /// A small, fast run (a few seconds) for CI and the notebooks
    #[arg(long)]
    quick: bool,
    /// Seed of every experiment
    #[arg(long, value_name = "S", default_value_t = 2024)]
    seed: u64,
    /// Run only these sections (comma-separated): table5, table1, table2, beyond
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    only: Option<Vec<String>>,
}

/// Runs `rtopk reproduce`: prints the Markdown report and writes it with its files into DIR.
pub(crate) fn run(args: &ReproduceArgs) -> Result<(), CliError> {
    let sections = match &args.only {
        Some(names) => {
            names.iter().map(|n| n.parse::<SectionId>()).collect::<Result<Vec<_>, _>>()?
        }
        None => SectionId::ALL.to_vec(),
    };
    if args.reps == Some(0) {
        return Err(CliError::BadArgument("--reps must be at least 1".into()));
    }
    // Fail before minutes of work if the results cannot be written.
    fs::create_dir_all(&args.out)
        .map_err(|source| CliError::Output { path: args.out.clone(), source })?;
    let opts = ReproduceOptions {
        reps: args.reps,
        quick: args.quick,
        seed: args.seed,
        sections,
        progress: true,
    };
    let r = reproduce(&opts)?;
    let written = write(&r, &args.out)?;
    print!("{}", r.markdown);
    eprintln!("wrote {} files to {}", written.len(), args.out.display());
    Ok(())
}
