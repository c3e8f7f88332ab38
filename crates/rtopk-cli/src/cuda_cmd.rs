//! `rtopk bench cuda` and `rtopk verify cuda`: the GPU kernel's speed and its equivalence with
//! the CPU references, on the machine's first CUDA device.

use clap::Args;
use rtopk_cuda::verify::{Reference, WIDTHS, check_all};
use rtopk_cuda::{CudaError, CudaTopK, Launch};
use serde::Serialize;
use topk_ref::{Bisect, Mode, RowTopK};

use crate::error::CliError;

/// Arguments of `rtopk bench cuda`.
#[derive(Debug, Args)]
pub(crate) struct BenchCudaArgs {
    /// Rows (with --m and -k: one shape instead of the grids)
    #[arg(long = "n", value_name = "N")]
    n: Option<usize>,
    /// Row width
    #[arg(long = "m", value_name = "M")]
    m: Option<usize>,
    /// Values selected per row
    #[arg(short = 'k', value_name = "K")]
    k: Option<usize>,
    /// With one shape: early stopping after N steps (default: exact)
    #[arg(long, value_name = "N")]
    max_iter: Option<u32>,
    /// With one shape: sorted output (SPEC §1's order, sorted on the device)
    #[arg(long)]
    sorted: bool,
    /// Grids to run: rtopk (the paper's N×M×k, exact and max_iter 0, 2..8), appendix-b
    /// (N = 65536, M = 1024..8192), long (M = 16384..65536), or all; every grid's exact cases
    /// also run with sorted output
    #[arg(long, default_value = "all")]
    grid: String,
    /// Timed launches per case (median reported), after 2 warm-up launches
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Select the smallest values
    #[arg(long)]
    smallest: bool,
    /// Print only a JSON array on stdout
    #[arg(long)]
    json: bool,
    /// Time each launch from an idle GPU, the host's submission latency included (the method
    /// of earlier records); by default a spin kernel queued ahead keeps it out
    #[arg(long)]
    idle_start: bool,
}

/// Arguments of `rtopk verify cuda`.
#[derive(Debug, Args)]
pub(crate) struct VerifyCudaArgs {
    /// Fewer elements per case (a minute instead of several)
    #[arg(long)]
    quick: bool,
}

/// One benchmark case.
#[derive(Clone, Copy, Debug)]
struct Case {
    n: usize,
    m: usize,
    k: usize,
    max_iter: Option<u32>,
    sorted: bool,
}

/// One line of `rtopk bench cuda --json`.
#[derive(Debug, Serialize)]
struct CudaRow {
    device: String,
    n: usize,
    m: usize,
    k: usize,
    max_iter: Option<u32>,
    smallest: bool,
    /// Results in sorted order (the sort launch included in the time).
    sorted: bool,
    median_ms: f64,
    min_ms: f64,
    /// Input bytes read per second (the input is read once).
    gbps: f64,
    /// `gbps` over the device's read bandwidth measured in this run.
    read_bw_fraction: f64,
    /// Input plus output bytes per second.
    total_gbps: f64,
    reps: usize,
    input_buffers: usize,
    /// "queued" (a spin kernel ahead of the start event) or "idle-start" (see `--idle-start`).
    timing: &'static str,
}

fn cuda(e: CudaError) -> CliError {
    CliError::Cuda(e)
}

/// The cases of the requested grids (or the one shape given).
fn cases(args: &BenchCudaArgs) -> Result<Vec<Case>, CliError> {
    if let (Some(n), Some(m), Some(k)) = (args.n, args.m, args.k) {
        topk_ref::check_shape(m, k)?;
        return Ok(vec![Case { n, m, k, max_iter: args.max_iter, sorted: args.sorted }]);
    }
    if args.n.is_some() || args.m.is_some() || args.k.is_some() {
        return Err(CliError::BadArgument("give --n, --m and -k together".into()));
    }
    let grids: Vec<&str> = match args.grid.as_str() {
        "all" => vec!["rtopk", "appendix-b", "long"],
        g @ ("rtopk" | "appendix-b" | "long") => vec![g],
        other => {
            return Err(CliError::BadArgument(format!(
                "--grid {other}: expected rtopk, appendix-b, long or all"
            )));
        }
    };
    let mut out = Vec::new();
    for g in grids {
        for case in grid(g) {
            out.push(case);
            if case.max_iter.is_none() {
                out.push(Case { sorted: true, ..case }); // same inputs, right after
            }
        }
    }
    Ok(out)
}

fn grid(name: &str) -> Vec<Case> {
    let mut out = Vec::new();
    match name {
        // RTop-K Figure 4 / Table 3: exact, max_iter 2..8, and 0 (load + select only, to
        // measure where the time goes).
        "rtopk" => {
            for n in [1 << 14, 1 << 16, 1 << 18, 1 << 20] {
                for m in [256, 512, 768] {
                    for k in [16, 32, 64, 96, 128] {
                        for max_iter in [None, Some(0), Some(2), Some(3), Some(4), Some(5)]
                            .into_iter()
                            .chain([Some(6), Some(7), Some(8)])
                        {
                            out.push(Case { n, m, k, max_iter, sorted: false });
                        }
                    }
                }
            }
        }
        // RTop-K Appendix B (Figure 6): N = 65536, M up to 8192.
        "appendix-b" => {
            for m in (1..=8).map(|i| i * 1024) {
                for k in [64, 128, 256, 512] {
                    out.push(Case { n: 65536, m, k, max_iter: None, sorted: false });
                }
            }
        }
        _ => {
            for m in [16384, 32768, 65536] {
                for k in [64, 512] {
                    out.push(Case { n: 16384, m, k, max_iter: None, sorted: false });
                }
            }
        }
    }
    out
}

/// Input buffers of one `(n, m)`, enough of them that cycling through them evicts L2.
struct Inputs {
    n: usize,
    m: usize,
    buffers: Vec<cudarc::driver::CudaSlice<f32>>,
}

impl Inputs {
    fn new(gpu: &CudaTopK, n: usize, m: usize, l2: usize) -> Result<Self, CliError> {
        let bytes = (n * m * 4).max(1);
        let count = (4 * l2).div_ceil(bytes).clamp(1, 32);
        let mut buffers = Vec::with_capacity(count);
        for b in 0..count {
            let mut x = gpu.stream().alloc_zeros::<f32>(n * m).map_err(driver)?;
            gpu.fill_normal(&mut x, (n * 1_000_003 + m * 101 + b) as u64).map_err(cuda)?;
            buffers.push(x);
        }
        Ok(Self { n, m, buffers })
    }
}

fn driver(e: cudarc::driver::DriverError) -> CliError {
    CliError::Cuda(CudaError::Driver { during: "allocating benchmark buffers", source: e })
}

/// Times one case: 2 warm-up launches, then `reps` launches each between CUDA events, the
/// input rotating through the buffers. Returns (median, min) milliseconds.
fn time_case(
    gpu: &CudaTopK,
    inputs: &Inputs,
    case: Case,
    mode: Mode,
    reps: usize,
    idle_start: bool,
) -> Result<(f64, f64), CliError> {
    let Case { n, m, k, max_iter, sorted } = case;
    let bisect = max_iter.map_or(Bisect::exact(), Bisect::early_stopping);
    let launch = Launch { n, m, k, mode, bisect, sorted };
    let s = gpu.stream();
    let mut val = s.alloc_zeros::<f32>((n * k).max(1)).map_err(driver)?;
    let mut idx = s.alloc_zeros::<u32>((n * k).max(1)).map_err(driver)?;
    let mut it = s.alloc_zeros::<u32>(n.max(1)).map_err(driver)?;
    let mut times = Vec::with_capacity(reps);
    for r in 0..reps + 2 {
        let x = &inputs.buffers[r % inputs.buffers.len()];
        let work = || gpu.select_device(&launch, x, &mut val, &mut idx, &mut it);
        let ms = if idle_start { gpu.time_ms_idle_start(work) } else { gpu.time_ms(work) };
        let ms = ms.map_err(cuda)?;
        if r >= 2 {
            times.push(ms);
        }
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], times[0]))
}

/// `rtopk bench cuda`.
pub(crate) fn bench(args: &BenchCudaArgs) -> Result<(), CliError> {
    if args.reps == 0 {
        return Err(CliError::BadArgument("--reps must be at least 1".into()));
    }
    let cases = cases(args)?;
    let gpu = CudaTopK::new(0).map_err(cuda)?;
    let l2 = gpu.l2_bytes().map_err(cuda)?;
    let probe = Inputs::new(&gpu, 1 << 16, 1 << 13, 0)?;
    let read_bw = gpu.read_bandwidth_gbps(&probe.buffers[0], 20).map_err(cuda)?;
    drop(probe);
    let mode = Mode::from_smallest(args.smallest);
    let regs: Vec<String> = gpu
        .kernel_registers()
        .map_err(cuda)?
        .into_iter()
        .map(|(name, r)| format!("{name}={r}"))
        .collect();
    eprintln!("registers per thread: {}", regs.join(" "));
    eprintln!(
        "rtopk bench cuda: {} (L2 {} MiB), read bandwidth {read_bw:.0} GB/s (2 GiB, median of 20)",
        gpu.device_name(),
        l2 >> 20
    );
    let mut rows = Vec::new();
    let mut inputs: Option<Inputs> = None;
    for case in cases {
        if inputs.as_ref().is_none_or(|i| (i.n, i.m) != (case.n, case.m)) {
            drop(inputs.take()); // free the previous shape's buffers first
            inputs = Some(Inputs::new(&gpu, case.n, case.m, l2)?);
        }
        let inp = inputs.as_ref().expect("just set");
        let (median_ms, min_ms) = time_case(&gpu, inp, case, mode, args.reps, args.idle_start)?;
        let in_bytes = (case.n * case.m * 4) as f64;
        let out_bytes = (case.n * case.k * 8 + case.n * 4) as f64;
        let gbps = in_bytes / (median_ms * 1e-3) / 1e9;
        let row = CudaRow {
            device: gpu.device_name().to_string(),
            n: case.n,
            m: case.m,
            k: case.k,
            max_iter: case.max_iter,
            smallest: args.smallest,
            sorted: case.sorted,
            median_ms,
            min_ms,
            gbps,
            read_bw_fraction: gbps / read_bw,
            total_gbps: (in_bytes + out_bytes) / (median_ms * 1e-3) / 1e9,
            reps: args.reps,
            input_buffers: inp.buffers.len(),
            timing: if args.idle_start { "idle-start" } else { "queued" },
        };
        if !args.json {
            println!(
                "n={:>8} m={:>6} k={:>4} max_iter={:>5}{} {:>9.4} ms {:>7.0} GB/s {:>5.1}% of read bw",
                row.n,
                row.m,
                row.k,
                row.max_iter.map_or("exact".to_string(), |i| i.to_string()),
                if row.sorted { " sorted" } else { "" },
                row.median_ms,
                row.gbps,
                100.0 * row.read_bw_fraction
            );
        }
        rows.push(row);
    }
    if args.json {
        let text = serde_json::to_string_pretty(&rows)
            .map_err(|e| CliError::BadArgument(format!("JSON: {e}")))?;
        println!("{text}");
    }
    Ok(())
}

/// `rtopk verify cuda`.
pub(crate) fn verify(args: &VerifyCudaArgs) -> Result<(), CliError> {
    let mut gpu = CudaTopK::new(0).map_err(cuda)?;
    let per_case = if args.quick { 1 << 16 } else { 1 << 21 };
    let bisect = |b: Bisect| -> Box<dyn RowTopK> { Box::new(b) };
    let sim = |b: Bisect| -> Box<dyn RowTopK> { Box::new(warp_sim::SimTopK::new(b)) };
    let references: [Reference<'_>; 2] = [("bisect", &bisect), ("warp-sim", &sim)];
    let report = check_all(&mut gpu, &WIDTHS, per_case, &references).map_err(cuda)?;
    println!(
        "verify cuda on {}: {} cases, {} rows, {} widths from {} to {}, against bisect and \
         warp-sim (values, indices, iteration counts): {}",
        gpu.device_name(),
        report.cases,
        report.rows,
        WIDTHS.len(),
        WIDTHS[0],
        WIDTHS[WIDTHS.len() - 1],
        if report.mismatches.is_empty() { "all identical" } else { "MISMATCHES" }
    );
    for m in &report.mismatches {
        println!("  {m}");
    }
    if report.mismatches.is_empty() {
        Ok(())
    } else {
        Err(CliError::WrongAnswer(format!("{} cases differ", report.mismatches.len())))
    }
}
