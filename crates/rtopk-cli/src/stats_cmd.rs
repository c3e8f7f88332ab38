//! `rtopk stats iterations`: how many bisection steps Algorithm 1 (or 2) takes, measured on
//! many rows (SPEC §3 counts, §4 output).
//!
//! Rows come from a distribution (seeded; identical for every thread count) or from a
//! `.npy` matrix. The counts are topk-ref's `Bisect` counts, measured by the analysis crate's
//! allocation-free path. `--json` prints SPEC §4's object; otherwise a readable table.

use std::fmt::Write as _;
use std::path::PathBuf;

use analysis::expectation::expected_iterations;
use analysis::{AnalysisError, Convention, Dist, IterationStats, RowSource, SimSpec, simulate};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use topk_ref::{Bisect, EpsilonMode};

use crate::error::CliError;
use crate::npy_io::read_matrix;

/// Rows when `--reps` is not given: Table 5's 10^4.
const DEFAULT_REPS: usize = 10_000;

/// `rtopk stats` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum StatsCommand {
    /// Iteration counts of RTop-K's bisection (Algorithm 1, or 2 with --max-iter) over many rows
    Iterations(IterationsArgs),
}

/// How `--precision` becomes Algorithm 1's stopping width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EpsilonArg {
    /// ε = precision · |row max| (the paper's line 3)
    Relative,
    /// ε = precision
    Absolute,
}

/// Arguments of `rtopk stats iterations`.
#[derive(Debug, Args)]
pub(crate) struct IterationsArgs {
    /// Row width (required unless --input gives the rows)
    #[arg(long = "m", value_name = "M", allow_negative_numbers = true)]
    m: Option<usize>,
    /// Values selected per row
    #[arg(short = 'k', value_name = "K", allow_negative_numbers = true)]
    k: usize,
    /// Rows to measure (default 10000; with --input, the first R rows of the file)
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    reps: Option<usize>,
    /// Row distribution: normal, uniform, laplace or relu (ReLU'd normal: half zeros)
    #[arg(long, value_name = "DIST")]
    dist: Option<String>,
    /// Seed of the row generator (each row has its own stream)
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Algorithm 1's precision ε' (0 = exact)
    #[arg(long, value_name = "EPS", default_value_t = 0.0, allow_negative_numbers = true)]
    precision: f32,
    /// How the precision is applied
    #[arg(long, value_enum, default_value_t = EpsilonArg::Relative)]
    epsilon: EpsilonArg,
    /// Early stopping (Algorithm 2) with this many steps; every row then counts exactly N
    #[arg(long = "max-iter", value_name = "N", allow_negative_numbers = true)]
    max_iter: Option<u32>,
    /// Measure the rows of a 2-D float32 .npy file instead of random rows
    #[arg(long, value_name = "X.npy")]
    input: Option<PathBuf>,
    /// Print one JSON object (SPEC §4) instead of a table
    #[arg(long)]
    json: bool,
}

/// SPEC §4's object, with a few more keys.
#[derive(Debug, Serialize)]
struct IterationsJson {
    m: usize,
    k: usize,
    reps: u64,
    dist: String,
    mean: f64,
    max: u32,
    cumulative_percent: Vec<f64>,
    /// E(n) of eq. (4): a number for normal rows with 0 < k < M, `null` for normal rows where
    /// it is undefined, absent for other rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_en: Option<Option<f64>>,
    min: u32,
    stddev: f64,
    /// `histogram[n]`: rows that made n tests.
    histogram: Vec<u64>,
    /// Rows that stopped because a test counted exactly k, in %.
    exit_by_hit_percent: f64,
    seed: Option<u64>,
    input: Option<String>,
    precision: f32,
    epsilon_mode: &'static str,
    max_iter: Option<u32>,
}

/// Runs `rtopk stats ...`.
pub(crate) fn run(cmd: &StatsCommand) -> Result<(), CliError> {
    match cmd {
        StatsCommand::Iterations(args) => iterations(args),
    }
}

/// An analysis error as a command-line error: the caller's mistake (exit 2) or not (exit 1).
pub(crate) fn cli_error(e: AnalysisError) -> CliError {
    match e {
        AnalysisError::Io { path, source } => CliError::Output { path, source },
        e if e.is_bad_input() => CliError::BadArgument(e.to_string()),
        e => CliError::Output {
            path: PathBuf::from("."),
            source: std::io::Error::other(e.to_string()),
        },
    }
}

fn bisect(args: &IterationsArgs) -> Bisect {
    let epsilon_mode = match args.epsilon {
        EpsilonArg::Relative => EpsilonMode::RelativeToMax,
        EpsilonArg::Absolute => EpsilonMode::Absolute,
    };
    Bisect { precision: args.precision, epsilon_mode, max_iter: args.max_iter }
}

fn iterations(args: &IterationsArgs) -> Result<(), CliError> {
    let b = bisect(args);
    let (stats, dist) = match &args.input {
        Some(path) => from_file(args, path, b)?,
        None => from_dist(args, b)?,
    };
    let out = report(args, &stats, dist);
    if args.json {
        let text = serde_json::to_string(&out).map_err(|e| CliError::BadArgument(e.to_string()))?;
        println!("{text}");
    } else {
        print!("{}", table(&out, &stats));
    }
    Ok(())
}

/// Random rows; `Some(dist)` is returned for the report.
fn from_dist(args: &IterationsArgs, b: Bisect) -> Result<(IterationStats, Option<Dist>), CliError> {
    let m =
        args.m.ok_or_else(|| CliError::BadArgument("--m is required (or give --input)".into()))?;
    let dist: Dist = args.dist.as_deref().unwrap_or("normal").parse().map_err(cli_error)?;
    let reps = args.reps.unwrap_or(DEFAULT_REPS);
    let src = RowSource::Dist {
        dist,
        seed: args.seed,
        stream: analysis::dist::stream_id("stats", &[m as u64]),
    };
    let spec = SimSpec { m, ks: vec![args.k], reps, bisect: b };
    let stats = simulate(&src, &spec, None).map_err(cli_error)?;
    Ok((stats.into_iter().next().unwrap_or_default(), Some(dist)))
}

/// The rows of a `.npy` file.
fn from_file(
    args: &IterationsArgs,
    path: &std::path::Path,
    b: Bisect,
) -> Result<(IterationStats, Option<Dist>), CliError> {
    if args.dist.is_some() {
        return Err(CliError::BadArgument(
            "--dist and --input exclude each other: the rows come from the file".into(),
        ));
    }
    let x = read_matrix(path)?;
    let (n, m) = x.dim();
    if let Some(want) = args.m.filter(|&want| want != m) {
        return Err(CliError::BadArgument(format!(
            "--m {want} does not match the input's row width {m} ({})",
            path.display()
        )));
    }
    if n == 0 {
        return Err(CliError::BadArgument(format!(
            "{}: {}",
            path.display(),
            AnalysisError::NoRows
        )));
    }
    let reps = args.reps.unwrap_or(n);
    if reps > n {
        return Err(CliError::BadArgument(format!(
            "--reps {reps} is more than the {n} rows of {}",
            path.display()
        )));
    }
    let data =
        x.as_slice().ok_or_else(|| CliError::BadArgument("input is not contiguous".into()))?;
    let spec = SimSpec { m, ks: vec![args.k], reps, bisect: b };
    let stats = simulate(&RowSource::Matrix { data, m }, &spec, None).map_err(cli_error)?;
    Ok((stats.into_iter().next().unwrap_or_default(), None))
}

fn report(args: &IterationsArgs, s: &IterationStats, dist: Option<Dist>) -> IterationsJson {
    let c = Convention::Tests;
    let expected_en = match dist {
        Some(Dist::Normal) => Some(expected_iterations(s.m, s.k).ok()),
        _ => None,
    };
    IterationsJson {
        m: s.m,
        k: s.k,
        reps: s.reps,
        dist: dist.map_or("npy".to_string(), |d| d.name().to_string()),
        mean: s.mean(c),
        max: s.max(c),
        cumulative_percent: s.cumulative_percent(c),
        expected_en,
        min: s.min(c),
        stddev: s.stddev(c),
        histogram: s.histogram(c),
        exit_by_hit_percent: 100.0 * s.hit_fraction(),
        seed: dist.map(|_| args.seed),
        input: args.input.as_ref().map(|p| p.display().to_string()),
        precision: args.precision,
        epsilon_mode: match args.epsilon {
            EpsilonArg::Relative => "relative",
            EpsilonArg::Absolute => "absolute",
        },
        max_iter: args.max_iter,
    }
}

fn table(j: &IterationsJson, s: &IterationStats) -> String {
    let mut out = String::new();
    let source = match &j.input {
        Some(p) => format!("rows of {p}"),
        None => format!("{} rows (seed {})", j.dist, j.seed.unwrap_or(0)),
    };
    let algo = match j.max_iter {
        Some(n) => format!("Algorithm 2, max_iter = {n}"),
        None => format!("Algorithm 1, precision {} ({})", j.precision, j.epsilon_mode),
    };
    let _ = writeln!(
        out,
        "Bisection iteration counts: M = {}, k = {}, {} {source}; {algo}",
        j.m, j.k, j.reps
    );
    let _ = write!(
        out,
        "mean {:.3}  stddev {:.3}  min {}  max {}  exit by exact count {:.1}%",
        j.mean, j.stddev, j.min, j.max, j.exit_by_hit_percent
    );
    match j.expected_en {
        Some(Some(en)) => {
            let _ = write!(out, "  E(n) (Appendix A eq. 4) {en:.3}");
        }
        Some(None) => out.push_str("  E(n) undefined (needs 0 < k < M)"),
        None => {}
    }
    let _ =
        writeln!(out, "\n\n{:>9} {:>10} {:>9} {:>13}", "iteration", "rows", "%", "cumulative %");
    for (n, &rows) in j.histogram.iter().enumerate().filter(|&(_, &r)| r > 0) {
        let pct = 100.0 * rows as f64 / s.reps.max(1) as f64;
        let _ = writeln!(
            out,
            "{n:>9} {rows:>10} {pct:>9.3} {:>13.3}",
            s.cumulative_at(Convention::Tests, n)
        );
    }
    out
}
