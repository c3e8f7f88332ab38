//! `rtopk bench cuda` and `rtopk verify cuda`: the GPU kernel's speed, first call and
//! equivalence with the CPU references, on the machine's first CUDA device (rtopk-cuda's
//! `bench` and `verify` do the work; this file parses and prints).

use std::path::PathBuf;

use clap::Args;
use rtopk_cuda::bench::{self, Bench, Case, Grid, Settings};
use rtopk_cuda::kernels::{KernelFiles, Unit, UnitSource};
use rtopk_cuda::verify::{Reference, WIDTHS, check_all};
use rtopk_cuda::{CudaTopK, Strategy, UnitReport};
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
    /// Launch family: auto (the measured defaults), quarter (four rows per warp, M <= 256),
    /// half (two rows per warp, M <= 512), warp (one warp per row, M <= 3072), block (one
    /// block per row)
    #[arg(long, default_value = "auto", value_parser = parse_strategy)]
    strategy: Strategy,
    /// The first call of a fresh process on the one shape given (--n, --m, -k): time to open
    /// the device, the first and the second top-k, and each kernel unit's build and load
    #[arg(long)]
    startup: bool,
    /// Compile every kernel unit for this architecture (e.g. sm_90) with NVRTC, to PTX and
    /// to a cubin, one at a time, and print the times and sizes; needs no GPU
    #[arg(long, value_name = "ARCH")]
    compile: Option<String>,
    /// Write every kernel unit's generated source to DIR (<unit>.cu) and exit; needs no GPU
    #[arg(long, value_name = "DIR")]
    emit_sources: Option<PathBuf>,
}

/// Arguments of `rtopk verify cuda`.
#[derive(Debug, Args)]
pub(crate) struct VerifyCudaArgs {
    /// Fewer elements per case (a minute instead of several)
    #[arg(long)]
    quick: bool,
}

fn parse_strategy(name: &str) -> Result<Strategy, String> {
    Strategy::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// A strategy that cannot hold the shape asked for is a bad argument (exit 2).
fn refused(e: rtopk_cuda::CudaError) -> CliError {
    match e {
        rtopk_cuda::CudaError::Strategy { .. } => CliError::BadArgument(e.to_string()),
        other => other.into(),
    }
}

/// The one shape given, if any.
fn one_case(args: &BenchCudaArgs) -> Result<Option<Case>, CliError> {
    match (args.n, args.m, args.k) {
        (Some(n), Some(m), Some(k)) => {
            topk_ref::check_shape(m, k)?;
            Ok(Some(Case { n, m, k, max_iter: args.max_iter, sorted: args.sorted }))
        }
        (None, None, None) => Ok(None),
        _ => Err(CliError::BadArgument("give --n, --m and -k together".into())),
    }
}

/// The cases of the requested grids (or the one shape given).
fn cases(args: &BenchCudaArgs) -> Result<Vec<Case>, CliError> {
    if let Some(case) = one_case(args)? {
        return Ok(vec![case]);
    }
    let grids = Grid::parse(&args.grid).ok_or_else(|| {
        CliError::BadArgument(format!(
            "--grid {}: expected rtopk, appendix-b, long or all",
            args.grid
        ))
    })?;
    Ok(bench::grid_cases(&grids))
}

/// `rtopk bench cuda`.
pub(crate) fn bench(args: &BenchCudaArgs) -> Result<(), CliError> {
    if let Some(dir) = &args.emit_sources {
        return emit_sources(dir);
    }
    if let Some(arch) = &args.compile {
        return compile(arch);
    }
    if args.reps == 0 {
        return Err(CliError::BadArgument("--reps must be at least 1".into()));
    }
    let mode = Mode::from_smallest(args.smallest);
    if args.startup {
        let case = one_case(args)?
            .ok_or_else(|| CliError::BadArgument("--startup needs --n, --m and -k".into()))?;
        return startup(case, mode, args.strategy);
    }
    let cases = cases(args)?;
    let gpu = CudaTopK::new(0)?;
    let settings =
        Settings { reps: args.reps, mode, idle_start: args.idle_start, strategy: args.strategy };
    let mut run = Bench::new(&gpu, settings)?;
    run.prepare(&cases).map_err(refused)?;
    let regs: Vec<String> =
        gpu.kernel_registers()?.into_iter().map(|(name, r)| format!("{name}={r}")).collect();
    eprintln!("registers per thread: {}", regs.join(" "));
    eprintln!(
        "rtopk bench cuda: {} (L2 {} MiB), read bandwidth {:.0} GB/s (2 GiB, median of 20), \
         strategy {}",
        gpu.device_name(),
        run.l2_bytes() >> 20,
        run.read_gbps(),
        args.strategy
    );
    let mut rows = Vec::with_capacity(cases.len());
    for case in cases {
        let row = run.run(case)?;
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
        println!("{}", serde_json::to_string_pretty(&rows)?);
    }
    Ok(())
}

/// `rtopk bench cuda --startup`.
fn startup(case: Case, mode: Mode, strategy: Strategy) -> Result<(), CliError> {
    let s = bench::startup(0, case, mode, strategy).map_err(refused)?;
    println!(
        "startup {}x{} k={}{} on {}: open {:.1} ms, first top-k {:.1} ms, second {:.1} ms",
        case.n,
        case.m,
        case.k,
        if case.sorted { " sorted" } else { "" },
        s.device,
        s.open_ms,
        s.first_ms,
        s.second_ms
    );
    print_units(&s.units);
    Ok(())
}

/// One line per unit: what was loaded, from where, and what it took.
fn print_units(units: &[UnitReport]) {
    println!(
        "  {:<26} {:>5} {:>11} {:>8} {:>10} {:>9} {:>9}",
        "unit", "image", "arch", "from", "build ms", "load ms", "bytes"
    );
    for u in units {
        println!(
            "  {:<26} {:>5} {:>11} {:>8} {:>10.1} {:>9.1} {:>9}",
            u.unit.to_string(),
            u.kind.extension(),
            u.arch,
            u.cache.name(),
            u.build_ms,
            u.load_ms,
            u.bytes
        );
    }
}

/// `rtopk bench cuda --compile ARCH`.
fn compile(arch: &str) -> Result<(), CliError> {
    let cc: u32 = arch.trim_start_matches("sm_").parse().map_err(|_| {
        CliError::BadArgument(format!("--compile {arch}: expected an architecture like sm_90"))
    })?;
    println!("NVRTC {} for sm_{cc}, one unit at a time", rtopk_cuda::nvrtc_version());
    println!(
        "{:<26} {:>10} {:>8} {:>9} {:>9} {:>10}",
        "unit", "source KiB", "PTX ms", "PTX KiB", "cubin ms", "cubin KiB"
    );
    let rows = bench::compile_table(cc, &[])?;
    let kib = |b: usize| b as f64 / 1024.0;
    for r in &rows {
        println!(
            "{:<26} {:>10.1} {:>8.0} {:>9.1} {:>9.0} {:>10.1}",
            r.unit.to_string(),
            kib(r.source_bytes),
            r.ptx_ms,
            kib(r.ptx_bytes),
            r.cubin_ms,
            kib(r.cubin_bytes)
        );
    }
    let sum = |f: fn(&bench::CompileRow) -> f64| rows.iter().map(f).sum::<f64>();
    println!(
        "{:<26} {:>10} {:>8.0} {:>9.1} {:>9.0} {:>10.1}",
        format!("total ({} units)", rows.len()),
        "",
        sum(|r| r.ptx_ms),
        sum(|r| r.ptx_bytes as f64 / 1024.0),
        sum(|r| r.cubin_ms),
        sum(|r| r.cubin_bytes as f64 / 1024.0)
    );
    Ok(())
}

/// `rtopk bench cuda --emit-sources DIR`.
fn emit_sources(dir: &std::path::Path) -> Result<(), CliError> {
    let files = KernelFiles::for_process()?;
    let output = |source| CliError::Output { path: dir.to_path_buf(), source };
    std::fs::create_dir_all(dir).map_err(output)?;
    for unit in Unit::all() {
        let path = dir.join(format!("{unit}.cu"));
        std::fs::write(&path, unit.source(&files)?)
            .map_err(|source| CliError::Output { path: path.clone(), source })?;
    }
    println!(
        "{} unit sources in {}, kernel files from {}",
        Unit::all().len(),
        dir.display(),
        files.origin()
    );
    Ok(())
}

/// `rtopk verify cuda`.
pub(crate) fn verify(args: &VerifyCudaArgs) -> Result<(), CliError> {
    let mut gpu = CudaTopK::new(0)?;
    let per_case = if args.quick { 1 << 16 } else { 1 << 21 };
    // check_all runs the warp simulator on every case itself, with the GPU's plan and limits
    // (the same launch family, per family); bisect is the CPU reference beside it.
    let bisect = |b: Bisect| -> Box<dyn RowTopK> { Box::new(b) };
    let references: [Reference<'_>; 1] = [("bisect", &bisect)];
    let report = check_all(&mut gpu, &WIDTHS, per_case, &references)?;
    println!(
        "verify cuda on {}: {} cases, {} rows, {} widths from {} to {}, against bisect and \
         the warp simulator in the same launch family (values, indices, iteration counts): {}",
        gpu.device_name(),
        report.cases,
        report.rows,
        WIDTHS.len(),
        WIDTHS[0],
        WIDTHS[WIDTHS.len() - 1],
        if report.mismatches.is_empty() { "all identical" } else { "MISMATCHES" }
    );
    print!("{report}");
    print_unit_summary(&gpu.unit_reports());
    for m in &report.mismatches {
        println!("  {m}");
    }
    if report.mismatches.is_empty() {
        Ok(())
    } else {
        Err(CliError::WrongAnswer(format!("{} cases differ", report.mismatches.len())))
    }
}

/// One line: how many units were loaded, from where, and what building and loading took.
fn print_unit_summary(units: &[UnitReport]) {
    let from = |c: rtopk_cuda::CacheUse| units.iter().filter(|u| u.cache == c).count();
    let sum = |f: fn(&UnitReport) -> f64| units.iter().map(f).sum::<f64>() / 1e3;
    let last = units.iter().map(|u| u.at_ms).fold(0.0, f64::max) / 1e3;
    println!(
        "units: {} loaded ({} compiled, {} from the disk cache, {} from this process) as {}; \
         build {:.1} s and load {:.2} s summed over the units, all loaded {:.1} s after the \
         device opened",
        units.len(),
        from(rtopk_cuda::CacheUse::Compiled),
        from(rtopk_cuda::CacheUse::Disk),
        from(rtopk_cuda::CacheUse::Process),
        units.first().map_or("-", |u| u.kind.extension()),
        sum(|u| u.build_ms),
        sum(|u| u.load_ms),
        last
    );
}
