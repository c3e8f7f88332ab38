//! `rtopk trace`: the teaching trace of the simulated RTop-K kernel on one row — the loaded
//! row, each iteration's bracket, threshold and count, the selection masks per chunk of 32,
//! the output — as text on stdout and, with `--svg`, as a picture.

use std::fs;
use std::path::PathBuf;

use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use topk_ref::{Mode, check_shape};
use warp_sim::{KernelArgs, SimConfig, Simulator};

use crate::algos::BisectParams;
use crate::error::CliError;
use crate::npy_io;

/// Arguments of `rtopk trace`.
#[derive(Debug, Args)]
pub(crate) struct TraceArgs {
    /// Row width of the generated row (with --input: optional, must match the file)
    #[arg(long = "m", value_name = "M", allow_negative_numbers = true)]
    m: Option<usize>,
    /// Values to select (1 <= K <= M)
    #[arg(short = 'k', value_name = "K", allow_negative_numbers = true)]
    k: usize,
    /// Seed of the generated standard-normal row [default: 0]
    #[arg(long, value_name = "S", conflicts_with = "input")]
    seed: Option<u64>,
    /// Trace a row of this 2-D float32 .npy matrix instead of a generated one
    #[arg(long, value_name = "X.npy")]
    input: Option<PathBuf>,
    /// The row of --input to trace
    #[arg(long, value_name = "R", default_value_t = 0, requires = "input")]
    row: usize,
    /// Early stopping (Algorithm 2) after N steps
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_iter: Option<u32>,
    /// Algorithm 1's precision EPS >= 0, relative to the row maximum
    #[arg(long, value_name = "EPS", allow_hyphen_values = true)]
    precision: Option<f32>,
    /// Select the K smallest values
    #[arg(long)]
    smallest: bool,
    /// Also draw the trace as an SVG picture into FILE
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// Runs `rtopk trace`.
pub(crate) fn run(args: &TraceArgs) -> Result<(), CliError> {
    let bisect = BisectParams { max_iter: args.max_iter, precision: args.precision }.to_bisect()?;
    let row = load_row(args)?;
    check_shape(row.len(), args.k)?;
    if args.k == 0 {
        return Err(CliError::BadArgument(
            "-k 0 selects nothing: there is nothing to trace".into(),
        ));
    }
    let kernel = KernelArgs {
        n: 1,
        m: row.len(),
        k: args.k,
        mode: Mode::from_smallest(args.smallest),
        bisect,
        mutant: None,
    };
    let mut sim = Simulator::new(SimConfig { warps_per_block: 1, ..SimConfig::default() });
    let (result, mut trace) = sim
        .run_traced(&row, &kernel, 0)
        .map_err(|e| CliError::WrongAnswer(format!("simulation failed: {e}")))?;
    // The launch saw one row; name it by its place in the input.
    trace.row = if args.input.is_some() { args.row } else { 0 };
    let mut text = trace.to_text();
    if let Some(d) = result.diagnostics.first() {
        text.push_str(&format!("\n{} diagnostic(s); first: {d}\n", result.diagnostics_total));
    }
    if let Some(path) = &args.svg {
        fs::write(path, trace.to_svg())
            .map_err(|source| CliError::Output { path: path.clone(), source })?;
        text.push_str(&format!("\nSVG written to {}\n", path.display()));
    }
    print!("{text}");
    Ok(())
}

/// The row to trace: row `--row` of `--input`, or `--m` standard-normal values from `--seed`.
fn load_row(args: &TraceArgs) -> Result<Vec<f32>, CliError> {
    let Some(path) = &args.input else {
        let Some(m) = args.m else {
            return Err(CliError::BadArgument("give --m M (or --input X.npy)".into()));
        };
        let mut rng = StdRng::seed_from_u64(args.seed.unwrap_or(0));
        return Ok((0..m).map(|_| StandardNormal.sample(&mut rng)).collect());
    };
    let x = npy_io::read_matrix(path)?;
    let (n, m) = x.dim();
    if args.row >= n {
        return Err(CliError::BadArgument(format!(
            "--row {} does not exist: {} has {n} row(s)",
            args.row,
            path.display()
        )));
    }
    if args.m.is_some_and(|want| want != m) {
        return Err(CliError::BadArgument(format!(
            "--m {} does not match {}, whose rows have {m} values",
            args.m.unwrap_or_default(),
            path.display()
        )));
    }
    Ok(x.row(args.row).to_vec())
}
