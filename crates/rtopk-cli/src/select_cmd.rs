//! `rtopk select`: row-wise top-k of a `.npy` matrix into `.npy` values, indices and
//! (optionally) iteration counts (SPEC §4).
//!
//! Everything the caller controls — the algorithm and its parameters, the output paths, the
//! input file, `k` against the row width — is checked before any work is done, and the outputs
//! are written all-or-nothing, so a refused command leaves no file behind.

use std::path::{Path, PathBuf};

use clap::Args;
use ndarray::ArrayView2;
use topk_ref::{Bisect, Mode, Options, RowTopK, TopK, check_shape, topk_rows};

use crate::algos::{self, BisectParams};
use crate::error::CliError;
use crate::npy_io::{self, NpyArray};

/// Arguments of `rtopk select`.
#[derive(Debug, Args)]
pub(crate) struct SelectArgs {
    /// Algorithm: heap, quickselect, radix, bucket, bitonic, bisect, cuda (GPU), and the SPEC
    /// names of the simulator and baselines
    #[arg(long, value_name = "ALGO")]
    algo: String,
    /// Number of values to select per row (0 <= K <= M)
    #[arg(short = 'k', value_name = "K", allow_negative_numbers = true)]
    k: usize,
    /// Select the K smallest values instead of the K largest (NaN is then chosen last)
    #[arg(long)]
    smallest: bool,
    /// Output in value order (descending; ascending with --smallest), ties by index, instead of
    /// ascending index order
    #[arg(long)]
    sorted: bool,
    /// Early stopping (RTop-K Algorithm 2) after N bisection steps [bisect, sim, cuda]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_iter: Option<u32>,
    /// Algorithm 1's precision EPS >= 0, relative to the row maximum [bisect, sim, cuda]
    #[arg(long, value_name = "EPS", allow_hyphen_values = true)]
    precision: Option<f32>,
    /// Input matrix: 2-D, C-order, little-endian float32 (<f4)
    #[arg(long, value_name = "X.npy")]
    input: PathBuf,
    /// Output values: float32 (N, K), the input's bits at the selected indices
    #[arg(long, value_name = "V.npy")]
    values: PathBuf,
    /// Output indices: int64 (N, K)
    #[arg(long, value_name = "I.npy")]
    indices: PathBuf,
    /// Output per-row bisection iteration counts: int64 (N,) [bisect, sim, cuda]
    #[arg(long, value_name = "IT.npy")]
    iterations: Option<PathBuf>,
}

/// What runs the selection: a CPU algorithm row by row, or the GPU kernel on the whole matrix.
enum Engine {
    Cpu(Box<dyn RowTopK>),
    Cuda(Bisect),
}

impl Engine {
    fn resolve(name: &str, params: BisectParams) -> Result<Self, CliError> {
        if name == "cuda" {
            return Ok(Engine::Cuda(params.to_bisect()?));
        }
        Ok(Engine::Cpu(algos::resolve(name, params)?))
    }

    fn reports_iterations(&self) -> bool {
        match self {
            Engine::Cpu(algo) => algo.reports_iterations(),
            Engine::Cuda(_) => true,
        }
    }

    fn run(&self, x: ArrayView2<'_, f32>, k: usize, opts: Options) -> Result<TopK, CliError> {
        match self {
            Engine::Cpu(algo) => Ok(topk_rows(algo.as_ref(), x, k, opts)?),
            Engine::Cuda(bisect) => {
                Ok(rtopk_cuda::CudaTopK::new(0)?.topk_rows(x, k, opts, *bisect)?)
            }
        }
    }
}

/// Runs `rtopk select`.
pub(crate) fn run(args: &SelectArgs) -> Result<(), CliError> {
    // 1. Arguments.
    let params = BisectParams { max_iter: args.max_iter, precision: args.precision };
    let engine = Engine::resolve(&args.algo, params)?;
    if args.iterations.is_some() && !engine.reports_iterations() {
        return Err(CliError::OptionNotSupported {
            option: "--iterations",
            algo: args.algo.clone(),
            valid_for: format!(
                "algorithms that report iteration counts ({})",
                algos::list(&algos::BISECTION_FAMILY)
            ),
        });
    }
    let mut outputs: Vec<(&str, &Path)> =
        vec![("--values", &args.values), ("--indices", &args.indices)];
    if let Some(it) = &args.iterations {
        outputs.push(("--iterations", it));
    }
    npy_io::check_output_paths(&outputs)?;

    // 2. Input, and k against its shape.
    let x = npy_io::read_matrix(&args.input)?;
    let (n, m) = x.dim();
    check_shape(m, args.k).map_err(|source| CliError::Shape {
        path: args.input.clone(),
        shape: npy_io::shape_string(&[n as u64, m as u64]),
        source,
    })?;
    let paths: Vec<&Path> = outputs.iter().map(|(_, p)| *p).collect();
    npy_io::probe_writable(&paths)?;

    // 3. The selection.
    let opts = Options { mode: Mode::from_smallest(args.smallest), sorted: args.sorted };
    let out = engine.run(x.view(), args.k, opts)?;

    // 4. Outputs, all or nothing.
    let shape = vec![n as u64, args.k as u64];
    let mut files = vec![
        (
            args.values.as_path(),
            NpyArray::F32 { shape: shape.clone(), data: out.values.iter().copied().collect() },
        ),
        (
            args.indices.as_path(),
            NpyArray::I64 { shape, data: out.indices.iter().map(|&i| i64::from(i)).collect() },
        ),
    ];
    if let Some(path) = &args.iterations {
        let Some(iterations) = &out.iterations else {
            return Err(CliError::WrongAnswer(format!(
                "algorithm '{}' reported no iteration counts",
                args.algo
            )));
        };
        files.push((
            path.as_path(),
            NpyArray::I64 {
                shape: vec![n as u64],
                data: iterations.iter().map(|&c| i64::from(c)).collect(),
            },
        ));
    }
    npy_io::write_all_or_nothing(&files)
}
