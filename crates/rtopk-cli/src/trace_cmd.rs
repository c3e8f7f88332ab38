//! `rtopk trace`: the teaching trace of the simulated RTop-K kernel on one row — the loaded
//! row, each iteration's bracket, threshold and count, the selection masks per chunk of 32,
//! the output — as text on stdout and, with `--svg`, as a picture. A row of a float16 (`<f2`)
//! input runs the f16 kernels.

use std::fs;
use std::io;
use std::path::PathBuf;

use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use rtopk::Dtype;
use rtopk::sim::{KernelArgs, RowTrace, SimConfig, Simulator};
use rtopk::{Element, Mode, TopKError, check_shape, f16};
use rtopk_tools::npy::{MatrixReader, NpyFloat};

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
    /// Trace a row of this 2-D float32 or float16 .npy matrix instead of a generated one
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
    let (trace, findings) = match input {
        Some(InputRow::F32(row)) => traced(&mut sim, &row, &kernel)?,
        Some(InputRow::F16(row)) => traced(&mut sim, &row, &kernel)?,
        None => traced(&mut sim, &generated_row(m, args.seed.unwrap_or(0))?, &kernel)?,
    };
    let mut trace = trace;
    // The launch saw one row; name it by its place in the input.
    trace.row = if args.input.is_some() { args.row } else { 0 };
    let mut text = trace.to_text();
    if let Some(first) = findings {
        text.push_str(&first);
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

/// The row of `--input`, in the file's element type.
enum InputRow {
    F32(Vec<f32>),
    F16(Vec<f16>),
}

impl InputRow {
    fn len(&self) -> usize {
        match self {
            InputRow::F32(row) => row.len(),
            InputRow::F16(row) => row.len(),
        }
    }
}

/// Runs the one-row launch of `row` with its trace; the findings' line, if there were any.
fn traced<E: Element>(
    sim: &mut Simulator,
    row: &[E],
    kernel: &KernelArgs,
) -> Result<(RowTrace, Option<String>), CliError> {
    let (result, trace) = sim.run_traced(row, kernel, 0).map_err(rtopk::Error::from)?;
    let first = result
        .diagnostics
        .first()
        .map(|d| format!("\n{} diagnostic(s); first: {d}\n", result.diagnostics_total));
    Ok((trace, first))
}

/// `m` standard-normal values from `seed`, or a typed error when they cannot be allocated.
fn generated_row(m: usize, seed: u64) -> Result<Vec<f32>, CliError> {
    let mut row = Vec::new();
    row.try_reserve_exact(m).map_err(|_| TopKError::TooLarge { what: "generated row", n: 1, m })?;
    let mut rng = StdRng::seed_from_u64(seed);
    row.extend((0..m).map(|_| -> f32 { StandardNormal.sample(&mut rng) }));
    Ok(row)
}

/// Row `--row` of `--input`, when given (checked against `--m`), in the file's type.
fn read_input_row(args: &TraceArgs) -> Result<Option<InputRow>, CliError> {
    let Some(path) = &args.input else { return Ok(None) };
    let dtype = MatrixReader::open(path)?.dtype();
    Ok(Some(match dtype {
        Dtype::Float16 => InputRow::F16(read_row::<f16>(args, path)?),
        _ => InputRow::F32(read_row::<f32>(args, path)?),
    }))
}

/// Row `--row` of the matrix at `path`, of elements of `E`.
fn read_row<E: NpyFloat>(args: &TraceArgs, path: &std::path::Path) -> Result<Vec<E>, CliError> {
    let x = rtopk_tools::npy::read_matrix_as::<E>(path)?;
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
