//! `rtopk trace`: the teaching trace of the simulated RTop-K kernel on one row — the loaded
//! row, each iteration's bracket, threshold and count, the selection masks per chunk of 32,
//! the output — as text on stdout and, with `--svg`, as a picture.

use std::fs;
use std::io;
use std::path::PathBuf;

use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use topk_ref::{Mode, TopKError, check_shape};
use warp_sim::{KernelArgs, SimConfig, Simulator};

use crate::error::CliError;
use crate::search_args::SearchArgs;

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
    #[command(flatten)]
    search: SearchArgs,
    /// Select the K smallest values
    #[arg(long)]
    smallest: bool,
    /// Also draw the trace as an SVG picture into FILE
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// Runs `rtopk trace`.
pub(crate) fn run(args: &TraceArgs) -> Result<(), CliError> {
    let bisect = args.search.params().bisect()?;
    let input = read_input_row(args)?;
    let m = match (&input, args.m) {
        (Some(row), _) => row.len(),
        (None, Some(m)) => m,
        (None, None) => return Err(CliError::BadArgument("give --m M (or --input X.npy)".into())),
    };
    check_shape(m, args.k)?;
    if args.k == 0 {
        return Err(CliError::BadArgument(
            "-k 0 selects nothing: there is nothing to trace".into(),
        ));
    }
    let kernel = KernelArgs {
        n: 1,
        m,
        k: args.k,
        mode: Mode::from_smallest(args.smallest),
        bisect,
        mutant: None,
    };
    let mut sim = Simulator::new(SimConfig::default());
    // Sizes first: a row too wide to simulate is refused before it is generated.
    sim.prepare(&kernel).map_err(rtopk::Error::from)?;
    let row = match input {
        Some(row) => row,
        None => generated_row(m, args.seed.unwrap_or(0))?,
    };
    let (result, mut trace) = sim.run_traced(&row, &kernel, 0).map_err(rtopk::Error::from)?;
    // The launch saw one row; name it by its place in the input.
    trace.row = if args.input.is_some() { args.row } else { 0 };
    let mut text = trace.to_text();
    if let Some(d) = result.diagnostics.first() {
        text.push_str(&format!("\n{} diagnostic(s); first: {d}\n", result.diagnostics_total));
    }
    if let Some(path) = &args.svg {
        let output = |source| CliError::Output { path: path.clone(), source };
        let svg = trace.to_svg().map_err(|e| output(io::Error::other(e.to_string())))?;
        fs::write(path, svg).map_err(output)?;
        text.push_str(&format!("\nSVG written to {}\n", path.display()));
    }
    print!("{text}");
    Ok(())
}

/// `m` standard-normal values from `seed`, or a typed error when they cannot be allocated.
fn generated_row(m: usize, seed: u64) -> Result<Vec<f32>, CliError> {
    let mut row = Vec::new();
    row.try_reserve_exact(m).map_err(|_| TopKError::TooLarge { what: "generated row", n: 1, m })?;
    let mut rng = StdRng::seed_from_u64(seed);
    row.extend((0..m).map(|_| -> f32 { StandardNormal.sample(&mut rng) }));
    Ok(row)
}

/// Row `--row` of `--input`, when given (checked against `--m`).
fn read_input_row(args: &TraceArgs) -> Result<Option<Vec<f32>>, CliError> {
    let Some(path) = &args.input else { return Ok(None) };
    let x = rtopk::npy::read_matrix(path)?;
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
    Ok(Some(x.row(args.row).to_vec()))
}
