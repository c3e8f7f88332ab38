//! `rtopk bench`: argument parsing and printing over the library's harness ([`rtopk_tools::bench`]).
//!
//! * `bench cpu` times CPU algorithms row-wise on rows of any input family (`--dist`) in
//!   float32, float16 or bfloat16 (`--dtype`), or on a `<f4` or `<f2` `.npy` matrix
//!   (`--input`); every answer is checked against an exact reference first.
//! * `bench cpu --compare` ([`compare`]) runs the comparison grid of topk-ref's algorithms and
//!   the seed papers' baselines.
//! * `bench chart` redraws the SVG chart of a recorded `--json` report.
//!
//! Tables go to stdout, a progress bar to stderr when it is a terminal.

mod compare;

use std::path::PathBuf;

use clap::{Args, Subcommand};
use rtopk::{Dtype, Family};
use rtopk_tools::bench::cpu::{self, BenchRow, CpuConfig, Matrix, Shape, Source};
use rtopk_tools::bench::{Observer, TerminalProgress, chart};

use crate::dtype_arg::parse_dtype;
use crate::error::CliError;

/// `rtopk bench` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Time the CPU algorithms row-wise (rayon), each checked against an exact reference
    Cpu(CpuArgs),
    /// Time the CUDA kernel on the paper's grids, the split, vector and wide regimes, one shape or a .npy
    /// matrix, on any input family, inputs rotated past L2
    Cuda(crate::cuda_cmd::BenchCudaArgs),
    /// Draw the SVG chart of a recorded `bench cpu --json` or `bench cpu --compare --json`
    /// report
    Chart(ChartArgs),
}

/// Arguments of `rtopk bench cpu`.
#[derive(Debug, Args)]
pub(crate) struct CpuArgs {
    /// Rows (give --n, --m and -k together to run one shape instead of the defaults)
    #[arg(long = "n", value_name = "N", allow_negative_numbers = true)]
    n: Option<usize>,
    /// Row width
    #[arg(long = "m", value_name = "M", allow_negative_numbers = true)]
    m: Option<usize>,
    /// Values selected per row (with --input: the k to run, comma-separated)
    #[arg(short = 'k', value_name = "K", allow_negative_numbers = true, value_delimiter = ',')]
    k: Option<Vec<usize>>,
    /// Input families, comma-separated: normal, uniform, laplace, relu, ties,
    /// radix-adversarial, nan-inf, llm-logits [default: normal; with --compare: uniform,
    /// normal, radix-adversarial]
    #[arg(long, value_name = "FAMILY,...", value_delimiter = ',', value_parser = parse_family)]
    dist: Option<Vec<Family>>,
    /// Element type of the generated rows: float32, float16 or bfloat16 (16-bit rows are the
    /// float32 rows rounded to nearest) [default: float32]
    #[arg(long, value_name = "DTYPE", value_parser = parse_dtype, conflicts_with = "compare")]
    dtype: Option<Dtype>,
    /// Time the rows of a 2-D float32 (<f4) or float16 (<f2) .npy matrix instead of generated
    /// rows (with -k)
    #[arg(long, value_name = "X.npy", conflicts_with_all = ["n", "m", "dist", "compare", "dtype"])]
    input: Option<PathBuf>,
    /// Comma-separated algorithms to time (default: topk-ref's six; `bisect` includes its
    /// early-stopping row; the baselines `air`, `gridselect`, `warpselect`, `drtopk`,
    /// `torch-radix`, `sort` and the simulator `sim` may be named too; with --compare, the
    /// labels of its table)
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    algos: Option<Vec<String>>,
    /// Timed runs per algorithm and shape (the median is reported; at least 5; with --compare
    /// at least 3, and cells slower than a second run 3 times)
    #[arg(long, value_name = "R", default_value_t = cpu::MIN_REPS, allow_negative_numbers = true)]
    reps: usize,
    /// Seed of the data generator
    #[arg(long, value_name = "S", default_value_t = 42)]
    seed: u64,
    /// Print only JSON on stdout (an array of rows; with --compare: one object)
    #[arg(long)]
    json: bool,
    /// Compare topk-ref's algorithms and the baselines on the uniform, normal and
    /// radix-adversarial families, row-wise (M = 256, 768, 4096; k = 16, 128, 512) and
    /// single-vector (M = 2^20, 2^24; k = 32, 2^10, 2^14), with work counters
    #[arg(long, conflicts_with_all = ["n", "m", "k"])]
    compare: bool,
    /// With --compare: 4x fewer rows, and only M = 2^20 in the single-vector regime
    #[arg(long)]
    quick: bool,
    /// Also draw the results as an SVG chart into FILE (grouped bars per shape)
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// Arguments of `rtopk bench chart`.
#[derive(Debug, Args)]
pub(crate) struct ChartArgs {
    /// The recorded report (JSON printed by `bench cpu --json` or `bench cpu --compare --json`)
    #[arg(long = "from", value_name = "REPORT.json")]
    from: PathBuf,
    /// The SVG file to draw
    #[arg(long, value_name = "FILE")]
    svg: PathBuf,
}

fn parse_family(s: &str) -> Result<Family, String> {
    s.parse::<Family>().map_err(|e| e.to_string())
}

/// Runs `rtopk bench ...`.
pub(crate) fn run(cmd: &BenchCommand) -> Result<(), CliError> {
    match cmd {
        BenchCommand::Cpu(args) if args.compare => compare::run(args),
        BenchCommand::Cpu(args) => run_cpu(args),
        BenchCommand::Cuda(args) => crate::cuda_cmd::bench(args),
        BenchCommand::Chart(args) => run_chart(args),
    }
}

/// Prints each row as it comes (unless JSON was asked for), around a progress bar.
struct Printer<F> {
    progress: TerminalProgress,
    json: bool,
    print: F,
}

impl<R, F: Fn(&R)> Observer<R> for Printer<F> {
    fn begin(&mut self, cells: u64) {
        Observer::<R>::begin(&mut self.progress, cells);
    }

    fn cell(&mut self, label: &str) {
        Observer::<R>::cell(&mut self.progress, label);
    }

    fn row(&mut self, row: &R) {
        if !self.json {
            self.progress.suspend(|| (self.print)(row));
        }
        self.progress.row(row);
    }

    fn wrong_answer(&mut self, message: &str) {
        Observer::<R>::wrong_answer(&mut self.progress, message);
    }

    fn end(&mut self) {
        Observer::<R>::end(&mut self.progress);
    }
}

fn run_cpu(args: &CpuArgs) -> Result<(), CliError> {
    if args.quick {
        return Err(CliError::BadArgument("--quick belongs to --compare".into()));
    }
    let matrix = match &args.input {
        Some(path) => Some(Matrix::read_npy(path)?),
        None => None,
    };
    let source = match (&matrix, &args.input) {
        (Some(x), Some(path)) => Source::Matrix {
            label: path.display().to_string(),
            x: x.view(),
            ks: args.k.clone().ok_or_else(|| {
                CliError::BadArgument("--input needs -k (one k or several, comma-separated)".into())
            })?,
        },
        _ => Source::Generated {
            families: args.dist.clone().unwrap_or_else(|| vec![Family::Normal]),
            shapes: shapes(args)?,
            seed: args.seed,
            dtype: args.dtype.unwrap_or(Dtype::Float32),
        },
    };
    let dtype = source.dtype();
    let config = CpuConfig { source, algos: args.algos.clone(), reps: args.reps };
    let contenders = cpu::plan(&config)?;
    eprintln!(
        "rtopk bench cpu: {dtype} rows, {} rayon threads, {} algorithm(s), median of {} runs \
         after 1 checked run, seed {}",
        rayon::current_num_threads(),
        contenders.len(),
        args.reps,
        args.seed
    );
    if !args.json {
        print_header();
    }
    let mut printer =
        Printer { progress: TerminalProgress::new(), json: args.json, print: print_row };
    let rows = cpu::run(&config, &mut printer)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    }
    if let Some(path) = &args.svg {
        chart::cpu_chart(&rows).write(path)?;
    }
    let wrong = cpu::wrong_answers(&rows);
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(CliError::WrongAnswer(format!(
            "wrong answers from: {} (see above; no times are reported for them)",
            wrong.join(", ")
        )))
    }
}

/// The shapes to run: the defaults, or the one given by `--n --m -k`.
fn shapes(args: &CpuArgs) -> Result<Vec<Shape>, CliError> {
    match (args.n, args.m, args.k.as_deref()) {
        (None, None, None) => Ok(cpu::DEFAULT_SHAPES.to_vec()),
        (Some(n), Some(m), Some(&[k])) => Ok(vec![Shape { n, m, k }]),
        (Some(_), Some(_), Some(_)) => {
            Err(CliError::BadArgument("-k takes one value with --n and --m".into()))
        }
        _ => Err(CliError::BadArgument(
            "--n, --m and -k go together: give all three (one shape) or none (the default shapes)"
                .into(),
        )),
    }
}

fn run_chart(args: &ChartArgs) -> Result<(), CliError> {
    let text = std::fs::read_to_string(&args.from)
        .map_err(|e| CliError::BadArgument(format!("cannot read {}: {e}", args.from.display())))?;
    chart::from_json(&text)?.write(&args.svg)?;
    Ok(())
}

fn print_header() {
    println!(
        "{:<22} {:<17} {:<8} {:>6} {:>8} {:>7} {:>6} {:>6} {:>11} {:>11} {:>9} {:>8} {:>6} \
         {:>6} {:>6}  check",
        "algo",
        "input",
        "dtype",
        "exact",
        "max_iter",
        "n",
        "m",
        "k",
        "median ms",
        "M elem/s",
        "G elem/s",
        "threads",
        "rd/el",
        "wr/el",
        "passes"
    );
}

fn print_row(r: &BenchRow) {
    let num = |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |v| format!("{v:.prec$}"));
    let check = match (&r.error, r.exact) {
        (Some(_), _) => "WRONG ANSWER".to_string(),
        (None, true) => "ok".to_string(),
        (None, false) => format!("valid, recall {:.4}", r.recall),
    };
    println!(
        "{:<22} {:<17} {:<8} {:>6} {:>8} {:>7} {:>6} {:>6} {:>11} {:>11} {:>9} {:>8} {:>6} \
         {:>6} {:>6}  {check}",
        r.algo,
        r.input,
        r.dtype.name(),
        if r.exact { "yes" } else { "no" },
        r.max_iter.map_or("-".to_string(), |i| i.to_string()),
        r.n,
        r.m,
        r.k,
        num(r.median_ms, 3),
        num(r.melem_per_s, 1),
        num(r.gelem_per_s, 3),
        r.threads,
        num(r.reads_per_elem, 2),
        num(r.writes_per_elem, 2),
        num(r.passes_per_row, 1),
    );
}
