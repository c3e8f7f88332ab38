//! `rtopk plan`: the launch program the GPU runs for a shape — one entry per kernel launch, its
//! kernel, grid and buffers — for a named GPU without one at hand, or the live GPU. The CUDA
//! executor and the simulator run exactly this program (docs/kernel.md, "The launch program").

use clap::Args;
use rtopk::cuda::Shape;
use rtopk::plan::{Gpu, Kernel, Program, Ragged, StepKind, preset_names, program_with};
use rtopk::{Dtype, Request};

use crate::dtype_arg::parse_kernel_dtype;
use crate::error::CliError;
use crate::search_args::SearchArgs;

/// Arguments of `rtopk plan`.
#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    /// The GPU to plan for: a100, h100 or h200 (published limits; no GPU needed). Without it,
    /// the live GPU 0's limits
    #[arg(long, value_name = "NAME")]
    gpu: Option<String>,
    /// Rows
    #[arg(long = "n", value_name = "N", allow_negative_numbers = true)]
    n: usize,
    /// Row width
    #[arg(long = "m", value_name = "M", allow_negative_numbers = true)]
    m: usize,
    /// Values selected per row
    #[arg(short = 'k', value_name = "K", allow_negative_numbers = true)]
    k: usize,
    /// Element type: float32, float16, bfloat16, float64, int8, uint8, int16, int32 or int64
    #[arg(long, value_name = "DTYPE", value_parser = parse_kernel_dtype, default_value = "float32")]
    dtype: Dtype,
    /// The k smallest instead of the k largest
    #[arg(long)]
    smallest: bool,
    /// Each row's results in value order (a sort step follows the selection)
    #[arg(long)]
    sorted: bool,
    /// Iteration counts wanted (rows are then never split)
    #[arg(long)]
    iterations: bool,
    #[command(flatten)]
    search: SearchArgs,
    /// Rows of their own length: the program of a call with `--lengths L.npy` (it depends on
    /// which per-row arrays a call passes, never on their values)
    #[arg(long)]
    lengths: bool,
    /// A k per row: the program of a call with `--k-per-row K.npy` (`-k` is the output width)
    #[arg(long)]
    k_per_row: bool,
    /// Threshold hints: the program of a call with `--hint H.npy`
    #[arg(long)]
    hint: bool,
    /// Each row's threshold written: the program of a call with `--threshold T.npy`
    #[arg(long)]
    threshold: bool,
    /// Print the program as one JSON object ({"steps": [...], "buffers": [...], ...})
    #[arg(long)]
    json: bool,
}

/// Runs `rtopk plan`.
pub(crate) fn run(args: &PlanArgs) -> Result<(), CliError> {
    let request = Request::builder("cuda")
        .k(args.k)
        .largest(!args.smallest)
        .sorted(args.sorted)
        .iterations(args.iterations)
        .params(args.search.params())
        .build()?;
    let gpu = match &args.gpu {
        Some(name) => Gpu::Preset(name.clone()),
        None => Gpu::Device(0),
    };
    let shape = Shape { n: args.n, m: args.m, dtype: args.dtype };
    let arrays = Ragged {
        lengths: args.lengths,
        k_per_row: args.k_per_row,
        hint: args.hint,
        threshold: args.threshold,
    };
    let program = program_with(&request, shape, &gpu, arrays).map_err(|e| match (&gpu, e) {
        // no driver or no device is the environment's failure (exit 1), with the way around it
        (Gpu::Device(_), rtopk::Error::Cuda(source)) => CliError::NoDevice {
            source,
            instead: format!(
                "name a GPU to plan for without one: --gpu {}",
                preset_names().join("|")
            ),
        },
        (_, e) => e.into(),
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&program).map_err(rtopk::Error::from)?);
    } else {
        print!("{}", render(&program));
    }
    Ok(())
}

/// The per-row arrays a program reads or writes, as the header names them.
fn arrays_of(r: Ragged) -> String {
    let named = [
        (r.lengths, "lengths"),
        (r.k_per_row, "k per row"),
        (r.hint, "hints"),
        (r.threshold, "threshold out"),
    ];
    let names: Vec<&str> = named.iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect();
    if names.is_empty() { String::new() } else { format!(" ({})", names.join(", ")) }
}

/// The program as a table: one line per launch.
fn render(p: &Program) -> String {
    let l = &p.launch;
    let mut out = format!(
        "{} x {} ({:?}), k = {}{}, {} steps, rows split {} time(s)\n",
        l.n,
        l.m,
        l.elem,
        l.k,
        arrays_of(p.ragged),
        p.steps.len(),
        p.depth
    );
    out.push_str("  # step                level  kernel                              blocks x threads  shared B\n");
    for (i, s) in p.steps.iter().enumerate() {
        out.push_str(&format!(
            "  {i} {:<20} {:>5}  {:<35} {:>8} x {:<7} {:>8}",
            s.name.name(),
            s.level,
            s.unit.to_string(),
            s.grid.blocks,
            s.grid.threads,
            s.grid.shared_bytes
        ));
        if s.grid.cluster > 1 {
            out.push_str(&format!("  clusters of {}", s.grid.cluster));
        }
        if let Kernel::Sort(sort) = s.kernel {
            // docs/kernel.md, "The rank sort" and "The merge sort"
            match sort.shape {
                Some(sh) if sh.merges => {
                    out.push_str(&format!("  merge sort, runs of {}", sh.pow2 / sh.parts));
                }
                Some(sh) if sh.parts > 1 => out.push_str("  rank sort"),
                _ => {}
            }
        }
        if matches!(s.kernel, Kernel::Select(sel) if sel.floor.is_some()) {
            // docs/kernel.md, "Split rows: the floor": the unit's `<name>_floor` entry point
            out.push_str("  with the row's floor");
        }
        if matches!(s.kernel, Kernel::Select(sel) if sel.rows.is_some_and(|r| r.hint.is_some())) {
            // docs/kernel.md, "Threshold hints": the ragged unit's `<name>_hinted` entry point
            out.push_str("  from the row's hint");
        }
        if let Kernel::Radix(r) = s.kernel {
            // docs/kernel.md, "Radix rows": each step's entry point of the unit, and its digit
            let entry = match s.name {
                StepKind::RadixSample => {
                    format!("sample of bits {}..{}", r.shift, r.shift + r.bits)
                }
                StepKind::RadixDigits => {
                    format!("digits: bits {}..{}", r.shift, r.shift + r.bits)
                }
                StepKind::RadixCount => "count".to_string(),
                _ => "write".to_string(),
            };
            out.push_str(&format!("  {entry}, {} blocks a row", r.blocks_per_row));
        }
        out.push('\n');
    }
    out
}
