//! `rtopk stats iterations`: how many bisection steps Algorithm 1 (or 2) takes, measured on
//! many rows (docs/contract.md §3 counts, §4 output). The library measures (`rtopk::stats`); this prints
//! its report: `--json` docs/contract.md §4's object, otherwise a readable table.
//! `rtopk stats recall`: the recall rule's achieved recall and iterations (docs/contract.md §6),
//! measured by `rtopk_tools::recall`; `--json` one object, otherwise a Markdown table.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use rtopk::Dtype;
use rtopk::{EpsilonMode, Family};
use rtopk_tools::recall::{
    DEFAULT_KS, DEFAULT_MS, DEFAULT_TARGETS, RecallFamily, RecallSource, RecallSpec,
    recall as measure_recall,
};
use rtopk_tools::stats::{IterationsSpec, Rows, iterations as measure};

use crate::dtype_arg::parse_dtype;
use crate::error::CliError;
use crate::search_args::SearchArgs;

/// `rtopk stats` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum StatsCommand {
    /// Iteration counts of RTop-K's bisection (Algorithm 1, or 2 with --max-iter) over many rows
    Iterations(IterationsArgs),
    /// Achieved recall and iterations of the bisection's recall rule (docs/contract.md §6) per
    /// target, input family, M and k, beside exact mode's iterations on the same rows
    Recall(RecallArgs),
}

/// Arguments of `rtopk stats recall`.
#[derive(Debug, Args)]
pub(crate) struct RecallArgs {
    /// Recall targets, each in (0, 1] (1: exact) [default: 0.8,0.9,0.95,0.99]
    #[arg(long, value_name = "R,...", value_delimiter = ',', allow_negative_numbers = true)]
    targets: Vec<f32>,
    /// Row families: normal, uniform, laplace, relu, ties, radix-adversarial, nan-inf,
    /// llm-logits, or bf16-ties (normal rows rounded to bfloat16, run as bfloat16 rows)
    /// [default: normal,uniform,relu,llm-logits,bf16-ties]
    #[arg(long, value_name = "DIST,...", value_delimiter = ',', conflicts_with = "input")]
    dist: Vec<String>,
    /// Row widths [default: 256,4096,65536; with --input, the file's]
    #[arg(long = "m", value_name = "M,...", value_delimiter = ',', allow_negative_numbers = true)]
    m: Vec<usize>,
    /// Values selected per row, each at most every M [default: 8,32,128]
    #[arg(short = 'k', value_name = "K,...", value_delimiter = ',', allow_negative_numbers = true)]
    k: Vec<usize>,
    /// Rows per cell (default 100; with --input, the first R rows of the file, at most 100 by
    /// default)
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    reps: Option<usize>,
    /// Seed of the row generator (each row has its own stream)
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Measure the rows of a 2-D float32 (<f4) or float16 (<f2) .npy file instead of drawn
    /// rows, in the file's type
    #[arg(long, value_name = "X.npy")]
    input: Option<PathBuf>,
    /// Print one JSON object instead of a Markdown table
    #[arg(long)]
    json: bool,
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
    /// Row family: normal, uniform, laplace, relu (ReLU'd normal: half zeros), ties,
    /// radix-adversarial, nan-inf or llm-logits
    #[arg(long, value_name = "DIST")]
    dist: Option<String>,
    /// Seed of the row generator (each row has its own stream)
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Element type of the generated rows: float32, float16 or bfloat16 (16-bit rows are the
    /// float32 rows rounded to nearest; ties are far more frequent) [default: float32]
    #[arg(long, value_name = "DTYPE", value_parser = parse_dtype, conflicts_with = "input")]
    dtype: Option<Dtype>,
    #[command(flatten)]
    search: SearchArgs,
    /// How the precision is applied
    #[arg(long, value_enum, default_value_t = EpsilonArg::Relative)]
    epsilon: EpsilonArg,
    /// Measure the rows of a 2-D float32 (<f4) or float16 (<f2) .npy file instead of random
    /// rows, in the file's type
    #[arg(long, value_name = "X.npy")]
    input: Option<PathBuf>,
    /// Print one JSON object (docs/contract.md §4) instead of a table
    #[arg(long)]
    json: bool,
}

/// Runs `rtopk stats ...`.
pub(crate) fn run(cmd: &StatsCommand) -> Result<(), CliError> {
    match cmd {
        StatsCommand::Iterations(args) => iterations(args),
        StatsCommand::Recall(args) => recall(args),
    }
}

/// A list option's values, or its default when none were given.
fn or_default<T: Clone>(given: &[T], default: &[T]) -> Vec<T> {
    if given.is_empty() { default.to_vec() } else { given.to_vec() }
}

fn recall(args: &RecallArgs) -> Result<(), CliError> {
    let source = match &args.input {
        Some(path) => RecallSource::Npy(path.clone()),
        None => {
            let families = args.dist.iter().map(|d| d.parse()).collect::<Result<Vec<_>, _>>()?;
            RecallSource::Families(or_default(&families, &RecallFamily::DEFAULT))
        }
    };
    let ms = if args.input.is_some() { args.m.clone() } else { or_default(&args.m, &DEFAULT_MS) };
    let spec = RecallSpec {
        source,
        ms,
        ks: or_default(&args.k, &DEFAULT_KS),
        targets: or_default(&args.targets, &DEFAULT_TARGETS),
        reps: args.reps,
        seed: args.seed,
    };
    let report = measure_recall(&spec)?;
    if args.json {
        println!("{}", report.to_json()?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}

fn iterations(args: &IterationsArgs) -> Result<(), CliError> {
    let epsilon = match args.epsilon {
        EpsilonArg::Relative => EpsilonMode::RelativeToMax,
        EpsilonArg::Absolute => EpsilonMode::Absolute,
    };
    let rows = match (&args.input, args.m) {
        (Some(_), _) if args.dist.is_some() => {
            return Err(CliError::BadArgument(
                "--dist and --input exclude each other: the rows come from the file".into(),
            ));
        }
        (Some(path), m) => Rows::Npy { path, m },
        (None, Some(m)) => {
            let family: Family = args.dist.as_deref().unwrap_or("normal").parse()?;
            let dtype = args.dtype.unwrap_or(Dtype::Float32);
            Rows::Family { family, seed: args.seed, m, dtype }
        }
        (None, None) => {
            return Err(CliError::BadArgument("--m is required (or give --input)".into()));
        }
    };
    let spec = IterationsSpec {
        rows,
        k: args.k,
        reps: args.reps,
        params: rtopk::Params { epsilon, ..args.search.params() },
    };
    let report = measure(&spec)?;
    if args.json {
        println!("{}", report.to_json()?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
