//! `rtopk bench cuda` and `rtopk verify cuda`: the GPU kernel's speed, first call and
//! equivalence with the CPU references, on the machine's first CUDA device (rtopk-cuda's
//! `bench` and `verify` do the work; this file parses and prints).

use std::path::{Path, PathBuf};

use clap::Args;
use rtopk::{Bisect, Mode, RowTopK};
use rtopk::{Dtype, Family};
use rtopk_tools::gpu::{CudaTopK, ElemType, Strategy, UnitReport};
use rtopk_tools::gpu::{KernelFiles, Unit, UnitSource};
use rtopk_tools::gpu_bench::{self as bench, Bench, Case, Grid, Row, Settings};
use rtopk_tools::npy::{self, DEFAULT_BLOCK_BYTES, MatrixReader};
use rtopk_tools::verify::{Reference, WIDTHS, check_all};

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
    /// Values selected per row, one or several (comma-separated), with --n and --m or --input
    #[arg(short = 'k', value_name = "K", value_delimiter = ',')]
    k: Option<Vec<usize>>,
    /// With one shape or --input: early stopping after N steps (default: exact)
    #[arg(long, value_name = "N")]
    max_iter: Option<u32>,
    /// A recall target R in (0, 1] (docs/contract.md §6): with one shape or --input, every case
    /// searches to it; with grids, every exact unsorted case is followed by its twin at R
    #[arg(long, value_name = "R", value_parser = parse_recall, conflicts_with = "max_iter")]
    recall: Option<f32>,
    /// With one shape or --input: sorted output (docs/contract.md §1's order, sorted on the device)
    #[arg(long)]
    sorted: bool,
    /// Grids to run, comma-separated: rtopk (the paper's N×M×k, exact and max_iter 0, 2..8),
    /// appendix-b (N = 65536, M = 1024..8192), long (N = 16384, M = 16384..65536), all (those
    /// three); the split, vector and wide regimes: split (N = 1..1024, M = 32768..2^20, k = 50, 256, 1024),
    /// vector (N = 1, M = 2^24, 2^26, 2^28, k = 64, 1024, 16384), wide (N = 16384,
    /// M = 16384..65536, k = 50, 256, 1024), or regimes (those three); large k and few rows:
    /// indexer (N = 1..256, M = 16384..2^21, k = 512, 1024, 2048), sampler (N = 1, 16, 128,
    /// M = 32000..262144, k = 20, 64, 1024), vector-k (N = 1, M = 2^22, 2^25, 2^28,
    /// k = 256..32768), or large-k (those three); every grid's exact cases also run with
    /// sorted output
    #[arg(long, default_value = "all")]
    grid: String,
    /// Input families, comma-separated, each running every case: normal (drawn on the device,
    /// a distinct draw per rotation buffer, as in the records), uniform, laplace, relu, ties,
    /// radix-adversarial, nan-inf, llm-logits (generated on the host from --seed, the rows
    /// `rtopk bench cpu` makes, uploaded; the rotation buffers are copies of that one input)
    #[arg(long, value_name = "FAMILY,...", value_delimiter = ',', value_parser = parse_family)]
    dist: Option<Vec<Family>>,
    /// Seed of the host generator (the families other than normal)
    #[arg(long, value_name = "S", default_value_t = 42)]
    seed: u64,
    /// Time the rows of a 2-D float32 .npy matrix (uploaded once) instead of generated ones,
    /// with the k given by -k
    #[arg(
        long,
        value_name = "X.npy",
        requires = "k",
        conflicts_with_all = ["n", "m", "dist", "grid", "startup"]
    )]
    input: Option<PathBuf>,
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
    /// block per row), split (split rows), radix (the radix select: f32, f16, bf16, exact)
    #[arg(long, default_value = "auto", value_parser = parse_strategy)]
    strategy: Strategy,
    /// The first call of a fresh process on the one shape given (--n, --m, -k): time to open
    /// the device, the first and the second top-k, and each kernel unit's build and load
    #[arg(long, conflicts_with = "dist")]
    startup: bool,
    /// Compile every kernel unit for this architecture (e.g. sm_90) with NVRTC, to PTX and
    /// to a cubin, one at a time, and print the times and sizes; needs no GPU
    #[arg(long, value_name = "ARCH")]
    compile: Option<String>,
    /// Write every kernel unit's generated source to DIR (<unit>.cu) and exit; needs no GPU
    #[arg(long, value_name = "DIR")]
    emit_sources: Option<PathBuf>,
    /// Compile the kernel files of DIR (the names of crates/rtopk-cuda/kernels/) instead of
    /// those in the binary: a variant timed without rebuilding (bench/profile_cuda.sh)
    #[arg(long, value_name = "DIR")]
    kernel_dir: Option<PathBuf>,
}

/// The kernel files `rtopk bench cuda` compiles: `--kernel-dir`'s, else the binary's.
fn kernel_files(args: &BenchCudaArgs) -> Result<KernelFiles, CliError> {
    Ok(match &args.kernel_dir {
        Some(dir) => KernelFiles::from_dir(dir)?,
        None => KernelFiles::embedded(),
    })
}

/// Arguments of `rtopk verify cuda`.
#[derive(Debug, Args)]
pub(crate) struct VerifyCudaArgs {
    /// Fewer elements per case (a minute instead of several)
    #[arg(long)]
    quick: bool,
    /// Check this element type only (repeatable: float32, float16, bfloat16, int8, uint8,
    /// int16, int32, float64, int64); default: every type the kernel takes
    #[arg(long = "dtype", value_name = "NAME", value_parser = parse_kernel_elem)]
    dtypes: Vec<ElemType>,
    /// Compile the kernel files of DIR (the names of crates/rtopk-cuda/kernels/) instead of
    /// those in the binary: a variant checked without rebuilding, as `bench cuda --kernel-dir`
    #[arg(long, value_name = "DIR")]
    kernel_dir: Option<PathBuf>,
}

/// Every element type the kernel takes: the 32-bit-key types, then the 64-bit ones (the wide
/// rows).
fn kernel_elems() -> Vec<ElemType> {
    ElemType::ALL.into_iter().chain(ElemType::WIDE).collect()
}

/// The kernel's element type called `name` (numpy's and torch's name).
fn parse_kernel_elem(name: &str) -> Result<ElemType, String> {
    ElemType::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = kernel_elems().iter().map(|e| e.name()).collect();
        format!("'{name}' is not a type the kernel takes; expected one of {}", names.join(", "))
    })
}

fn parse_strategy(name: &str) -> Result<Strategy, String> {
    Strategy::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// A strategy that cannot hold the shape asked for, a forced split that cannot split it, a
/// strategy forced on 64-bit rows (the wide rows hold them alone), or a shape too large for the
/// kernel's index types is a bad argument (exit 2).
fn refused(e: rtopk::cuda::CudaError) -> CliError {
    match e {
        rtopk::cuda::CudaError::Strategy { .. }
        | rtopk::cuda::CudaError::Split { .. }
        | rtopk::cuda::CudaError::Wide { .. }
        | rtopk::cuda::CudaError::TooLarge { .. } => CliError::BadArgument(e.to_string()),
        other => other.into(),
    }
}

/// [`refused`], for errors already converted.
fn refused_cli(e: CliError) -> CliError {
    match e {
        CliError::Cuda(e) => refused(e),
        other => other,
    }
}

/// The door's check of a recall target (`rtopk::Recall`), as clap's value parser.
fn parse_recall(s: &str) -> Result<f32, String> {
    s.parse::<rtopk::Recall>().map(rtopk::Recall::get).map_err(|e| e.to_string())
}

fn parse_family(s: &str) -> Result<Family, String> {
    s.parse::<Family>().map_err(|e| e.to_string())
}

/// The cases of one shape: each k given, with the search and output order asked for.
fn shape_cases(args: &BenchCudaArgs, n: usize, m: usize, ks: &[usize]) -> Vec<Case> {
    let (max_iter, sorted, recall) = (args.max_iter, args.sorted, args.recall);
    ks.iter().map(|&k| Case { n, m, k, max_iter, sorted, recall }).collect()
}

/// The one shape given (--n, --m, -k), if any.
fn one_shape(args: &BenchCudaArgs) -> Result<Option<Vec<Case>>, CliError> {
    match (args.n, args.m, args.k.as_deref()) {
        (Some(n), Some(m), Some(ks)) => {
            for &k in ks {
                rtopk::check_shape(m, k)?;
            }
            Ok(Some(shape_cases(args, n, m, ks)))
        }
        (None, None, None) => Ok(None),
        _ => Err(CliError::BadArgument("give --n, --m and -k together".into())),
    }
}

/// The cases of the requested grids (or of the one shape given).
fn cases(args: &BenchCudaArgs) -> Result<Vec<Case>, CliError> {
    if let Some(cases) = one_shape(args)? {
        return Ok(cases);
    }
    let grids = Grid::parse(&args.grid).ok_or_else(|| {
        let names: Vec<&str> = Grid::ALL.iter().map(|g| g.name()).collect();
        CliError::BadArgument(format!(
            "--grid {}: expected grid names, comma-separated: {}, all, regimes or large-k",
            args.grid,
            names.join(", ")
        ))
    })?;
    let cases = bench::grid_cases(&grids);
    Ok(match args.recall {
        Some(r) => bench::with_recall_twins(&cases, r),
        None => cases,
    })
}

/// `rtopk bench cuda`.
pub(crate) fn bench(args: &BenchCudaArgs) -> Result<(), CliError> {
    if let Some(dir) = &args.emit_sources {
        return emit_sources(dir, &kernel_files(args)?);
    }
    if let Some(arch) = &args.compile {
        return compile(arch, &kernel_files(args)?);
    }
    if args.reps == 0 {
        return Err(CliError::BadArgument("--reps must be at least 1".into()));
    }
    let mode = Mode::from_smallest(args.smallest);
    if args.startup {
        let case = match one_shape(args)?.as_deref() {
            Some(&[case]) => case,
            _ => return Err(CliError::BadArgument("--startup needs --n, --m and one -k".into())),
        };
        return startup(case, mode, args.strategy);
    }
    let settings =
        Settings { reps: args.reps, mode, idle_start: args.idle_start, strategy: args.strategy };
    if let Some(path) = &args.input {
        return bench_input(args, path, settings);
    }
    let cases = cases(args)?;
    let gpu = CudaTopK::with_files(0, kernel_files(args)?)?;
    let mut run = Bench::new(&gpu, settings)?;
    run.prepare(&cases).map_err(refused)?;
    print_header(&gpu, &run, args.strategy)?;
    let families = args.dist.clone().unwrap_or_else(|| vec![Family::Normal]);
    let mut rows = Vec::with_capacity(cases.len().saturating_mul(families.len()));
    for family in families {
        run.generate(family, args.seed);
        eprintln!("inputs: {}", run.source().describe());
        for &case in &cases {
            rows.push(run_case(&mut run, case, args.json)?);
        }
    }
    finish(&rows, args.json)
}

/// `rtopk bench cuda --input X.npy -k K,...`: the file's header and every k are checked
/// before the device is opened; its rows are then uploaded once, block by block.
fn bench_input(args: &BenchCudaArgs, path: &Path, settings: Settings) -> Result<(), CliError> {
    let mut reader = MatrixReader::open(path)?;
    if reader.dtype() != Dtype::Float32 {
        let (path, found, expected) = (path.to_path_buf(), reader.dtype(), Dtype::Float32);
        return Err(rtopk_tools::Error::NpyElementType { path, found, expected }.into());
    }
    let (n, m) = reader.shape();
    let shape = || npy::shape_string(&[n as u64, m as u64]);
    if n == 0 {
        return Err(CliError::BadArgument(format!(
            "{}: shape {}: a benchmark needs at least one row",
            path.display(),
            shape()
        )));
    }
    let ks = args.k.as_deref().unwrap_or_default();
    for &k in ks {
        rtopk::check_shape(m, k).map_err(|source| CliError::Shape {
            path: path.to_path_buf(),
            shape: shape(),
            source,
        })?;
    }
    let cases = shape_cases(args, n, m, ks);
    let gpu = CudaTopK::with_files(0, kernel_files(args)?)?;
    let mut run = Bench::new(&gpu, settings)?;
    run.prepare(&cases).map_err(refused)?;
    print_header(&gpu, &run, args.strategy)?;
    let rows_per_block = reader.rows_per_block(DEFAULT_BLOCK_BYTES);
    run.load(n, m, path.display().to_string(), |upload| {
        let mut block = Vec::new();
        while reader.read_block(rows_per_block, &mut block)? > 0 {
            upload.rows(&block)?;
        }
        Ok::<(), CliError>(())
    })
    .map_err(refused_cli)?;
    eprintln!("inputs: {}", run.source().describe());
    let mut rows = Vec::with_capacity(cases.len());
    for case in cases {
        rows.push(run_case(&mut run, case, args.json)?);
    }
    finish(&rows, args.json)
}

/// The run's first lines on stderr: registers per kernel, the device and its bandwidth.
fn print_header(gpu: &CudaTopK, run: &Bench<'_>, strategy: Strategy) -> Result<(), CliError> {
    let regs: Vec<String> =
        gpu.kernel_registers()?.into_iter().map(|(name, r)| format!("{name}={r}")).collect();
    eprintln!("registers per thread: {}", regs.join(" "));
    eprintln!(
        "rtopk bench cuda: {} (L2 {} MiB), read bandwidth {:.0} GB/s (2 GiB, median of 20), \
         strategy {strategy}",
        gpu.device_name(),
        run.l2_bytes() >> 20,
        run.read_gbps(),
    );
    Ok(())
}

/// Times one case and, unless JSON was asked for, prints its line.
fn run_case(run: &mut Bench<'_>, case: Case, json: bool) -> Result<Row, CliError> {
    let row = run.run(case).map_err(refused)?;
    if !json {
        println!("{}", table_line(&row));
    }
    Ok(row)
}

/// One result as a line of the table: the input first, then the case and its time.
fn table_line(row: &Row) -> String {
    format!(
        "{:<17} n={:>8} m={:>9} k={:>5} {:>14}{} {:>9.4} ms {:>7.0} GB/s {:>5.1}% of read bw",
        row.input,
        row.n,
        row.m,
        row.k,
        match (row.max_iter, row.recall) {
            (Some(i), _) => format!("max_iter={i}"),
            (None, Some(r)) => format!("recall={r}"),
            (None, None) => "exact".to_string(),
        },
        if row.sorted { " sorted" } else { "" },
        row.median_ms,
        row.gbps,
        100.0 * row.read_bw_fraction
    )
}

/// Prints the JSON array, if asked for.
fn finish(rows: &[Row], json: bool) -> Result<(), CliError> {
    if json {
        println!("{}", serde_json::to_string_pretty(rows)?);
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
fn compile(arch: &str, files: &KernelFiles) -> Result<(), CliError> {
    let cc: u32 = arch.trim_start_matches("sm_").parse().map_err(|_| {
        CliError::BadArgument(format!("--compile {arch}: expected an architecture like sm_90"))
    })?;
    println!("NVRTC {} for sm_{cc}, one unit at a time", rtopk_tools::gpu::nvrtc_version());
    println!(
        "{:<26} {:>10} {:>8} {:>9} {:>9} {:>10}",
        "unit", "source KiB", "PTX ms", "PTX KiB", "cubin ms", "cubin KiB"
    );
    let rows = bench::compile_table(cc, &[], files)?;
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
fn emit_sources(dir: &std::path::Path, files: &KernelFiles) -> Result<(), CliError> {
    let output = |source| CliError::Output { path: dir.to_path_buf(), source };
    std::fs::create_dir_all(dir).map_err(output)?;
    for unit in Unit::all() {
        let path = dir.join(format!("{unit}.cu"));
        std::fs::write(&path, unit.source(files)?)
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
    let mut gpu = match &args.kernel_dir {
        Some(dir) => CudaTopK::with_files(0, KernelFiles::from_dir(dir)?)?,
        None => CudaTopK::new(0)?,
    };
    let per_case = if args.quick { 1 << 16 } else { 1 << 21 };
    // check_all runs the warp simulator on every case itself, with the GPU's plan and limits
    // (the same launch family, per family); bisect is the CPU reference beside it.
    let bisect = |b: Bisect| -> Box<dyn RowTopK> { Box::new(b) };
    let references: [Reference<'_>; 1] = [("bisect", &bisect)];
    let elems = if args.dtypes.is_empty() { kernel_elems() } else { args.dtypes.clone() };
    let report = check_all(&mut gpu, &WIDTHS, per_case, &references, &elems)?;
    let names: Vec<&str> = elems.iter().map(|e| e.name()).collect();
    println!(
        "verify cuda on {}: {} cases ({}), {} rows, {} widths from {} to {}, against bisect and \
         the warp simulator in the same launch family (values, indices, iteration counts): {}",
        gpu.device_name(),
        report.cases,
        names.join(", "),
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
    let from = |c: rtopk_tools::gpu::CacheUse| units.iter().filter(|u| u.cache == c).count();
    let sum = |f: fn(&UnitReport) -> f64| units.iter().map(f).sum::<f64>() / 1e3;
    let last = units.iter().map(|u| u.at_ms).fold(0.0, f64::max) / 1e3;
    println!(
        "units: {} loaded ({} compiled, {} shipped, {} from the disk cache, {} from this \
         process) as {}; build {:.1} s and load {:.2} s summed over the units, all loaded {:.1} s \
         after the device opened",
        units.len(),
        from(rtopk_tools::gpu::CacheUse::Compiled),
        from(rtopk_tools::gpu::CacheUse::Shipped),
        from(rtopk_tools::gpu::CacheUse::Disk),
        from(rtopk_tools::gpu::CacheUse::Process),
        units.first().map_or("-", |u| u.kind.extension()),
        sum(|u| u.build_ms),
        sum(|u| u.load_ms),
        last
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::EXIT_BAD_INPUT;
    use clap::Parser;
    use clap::error::ErrorKind;

    #[test]
    fn verify_takes_each_kernel_type_by_name_and_refuses_the_others() {
        for e in ElemType::ALL.into_iter().chain(ElemType::WIDE) {
            assert_eq!(parse_kernel_elem(e.name()), Ok(e));
        }
        assert_eq!(kernel_elems().len(), 9, "every type, 64-bit ones last");
        for bad in ["float128", "uint64", "i8", ""] {
            let e = parse_kernel_elem(bad).unwrap_err();
            assert!(e.contains(&format!("'{bad}'")) && e.contains("int32"), "{e}");
            assert!(e.contains("float64") && e.contains("int64"), "{e}");
        }
    }

    /// `rtopk bench cuda`'s arguments alone.
    #[derive(Debug, Parser)]
    struct BenchCuda {
        #[command(flatten)]
        args: BenchCudaArgs,
    }

    fn parse(args: &[&str]) -> Result<BenchCudaArgs, clap::Error> {
        let argv = std::iter::once("bench-cuda").chain(args.iter().copied());
        BenchCuda::try_parse_from(argv).map(|b| b.args)
    }

    fn refused_by_clap(args: &[&str]) -> ErrorKind {
        parse(args).expect_err("clap accepts it").kind()
    }

    /// `--kernel-dir` compiles a variant's files: a copy of the kernels gives the binary's
    /// sources, an edited copy its own, a missing file a typed error.
    #[test]
    fn a_kernel_dir_replaces_the_binarys_kernel_files() {
        let variant = tempfile::tempdir().unwrap();
        for (name, text) in KernelFiles::embedded().iter() {
            let text =
                if name == "utilities.cu" { format!("{text}\n// variant\n") } else { text.into() };
            std::fs::write(variant.path().join(name), text).unwrap();
        }
        let (ours, theirs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let dir = |d: &tempfile::TempDir| d.path().to_str().unwrap().to_string();
        bench(&parse(&["--emit-sources", &dir(&ours)]).unwrap()).unwrap();
        let with = ["--emit-sources", &dir(&theirs), "--kernel-dir", &dir(&variant)];
        bench(&parse(&with).unwrap()).unwrap();
        let read =
            |d: &tempfile::TempDir, f: &str| std::fs::read_to_string(d.path().join(f)).unwrap();
        assert_eq!(read(&ours, "rtopk_warp_rows_8.cu"), read(&theirs, "rtopk_warp_rows_8.cu"));
        assert!(!read(&ours, "utilities.cu").contains("// variant"));
        assert!(read(&theirs, "utilities.cu").contains("// variant"));
        std::fs::remove_file(variant.path().join("order.cuh")).unwrap();
        let broken = ["--emit-sources", &dir(&theirs), "--kernel-dir", &dir(&variant)];
        let e = bench(&parse(&broken).unwrap()).unwrap_err();
        assert!(e.to_string().contains("order.cuh"), "{e}");
    }

    #[test]
    fn verify_reads_a_kernel_dir_before_it_opens_the_device() {
        let missing = tempfile::tempdir().unwrap();
        let args = VerifyCudaArgs {
            quick: true,
            dtypes: vec![],
            kernel_dir: Some(missing.path().join("no-such-dir")),
        };
        let e = verify(&args).unwrap_err().to_string();
        assert!(e.contains("no-such-dir") && e.contains("common.cuh"), "{e}");
    }

    #[test]
    fn families_and_seeds_parse() {
        let a = parse(&["--dist", "laplace,ties", "--seed", "7"]).unwrap();
        assert_eq!(a.dist, Some(vec![Family::Laplace, Family::Ties]));
        assert_eq!(a.seed, 7);
        let every: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
        let a = parse(&["--dist", &every.join(",")]).unwrap();
        assert_eq!(a.dist, Some(Family::ALL.to_vec()));
        let a = parse(&[]).unwrap();
        assert_eq!((a.dist, a.seed, a.grid.as_str()), (None, 42, "all"));
        assert_eq!(refused_by_clap(&["--dist", "cauchy"]), ErrorKind::ValueValidation);
    }

    #[test]
    fn input_conflicts_with_generated_cases() {
        let a =
            parse(&["--input", "x.npy", "-k", "50,256", "--sorted", "--max-iter", "3"]).unwrap();
        assert_eq!(a.input, Some(PathBuf::from("x.npy")));
        assert_eq!(a.k, Some(vec![50, 256]));
        for other in [
            &["--dist", "laplace"][..],
            &["--grid", "split"],
            &["--grid", "all"],
            &["--n", "4"],
            &["--m", "4"],
            &["--startup"],
        ] {
            let mut args = vec!["--input", "x.npy", "-k", "5"];
            args.extend_from_slice(other);
            assert_eq!(refused_by_clap(&args), ErrorKind::ArgumentConflict, "{other:?}");
        }
        assert_eq!(refused_by_clap(&["--input", "x.npy"]), ErrorKind::MissingRequiredArgument);
        assert_eq!(
            refused_by_clap(&["--startup", "--dist", "ties", "--n", "1", "--m", "8", "-k", "1"]),
            ErrorKind::ArgumentConflict
        );
    }

    #[test]
    fn one_shape_runs_each_k_given() {
        let a =
            parse(&["--n", "4", "--m", "1000", "-k", "50,256", "-k", "1000", "--sorted"]).unwrap();
        let got = cases(&a).unwrap();
        assert_eq!(got.iter().map(|c| c.k).collect::<Vec<_>>(), [50, 256, 1000]);
        assert!(got.iter().all(|c| (c.n, c.m, c.sorted, c.max_iter) == (4, 1000, true, None)));
        let a = parse(&["--n", "4", "--m", "100", "-k", "50,101"]).unwrap();
        assert_eq!(cases(&a).unwrap_err().exit_code(), EXIT_BAD_INPUT);
        let a = parse(&["--n", "4", "-k", "5"]).unwrap();
        assert!(matches!(cases(&a), Err(CliError::BadArgument(_))));
    }

    #[test]
    fn a_recall_target_is_checked_and_twins_the_exact_cases() {
        let a = parse(&["--n", "4", "--m", "1000", "-k", "50", "--recall", "0.95"]).unwrap();
        assert!(cases(&a).unwrap().iter().all(|c| c.recall == Some(0.95)));
        for bad in ["0", "1.5", "nan", "x"] {
            let args = ["--n", "4", "--m", "1000", "-k", "50", "--recall", bad];
            assert_eq!(refused_by_clap(&args), ErrorKind::ValueValidation, "{bad}");
        }
        let both = ["--n", "4", "--m", "1000", "-k", "5", "--recall", "0.9", "--max-iter", "3"];
        assert_eq!(refused_by_clap(&both), ErrorKind::ArgumentConflict);
        let grid = parse(&["--grid", "long", "--recall", "0.9"]).unwrap();
        let plain = bench::grid_cases(&[Grid::Long]);
        assert_eq!(cases(&grid).unwrap(), bench::with_recall_twins(&plain, 0.9));
    }

    #[test]
    fn named_grids_become_cases() {
        let regimes = parse(&["--grid", "regimes"]).unwrap();
        assert_eq!(cases(&regimes).unwrap(), bench::grid_cases(&Grid::REGIMES));
        let two = parse(&["--grid", "split,wide"]).unwrap();
        assert_eq!(cases(&two).unwrap(), bench::grid_cases(&[Grid::Split, Grid::Wide]));
        let default = parse(&[]).unwrap();
        assert_eq!(cases(&default).unwrap(), bench::grid_cases(&Grid::PAPER));
        let bad = parse(&["--grid", "split,fig4"]).unwrap();
        let e = cases(&bad).unwrap_err();
        assert!(e.to_string().contains("split, vector, wide"), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT);
    }

    /// `bench` on `args` with `--input` a file holding `bytes`; the checks fail before any
    /// device is opened, so this needs no GPU.
    fn bench_file(bytes: &[u8], args: &[&str]) -> CliError {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.npy");
        std::fs::write(&path, bytes).unwrap();
        let mut argv = vec!["--input", path.to_str().unwrap()];
        argv.extend_from_slice(args);
        bench(&parse(&argv).unwrap()).expect_err("a bad input is refused")
    }

    /// A version 1.0 .npy file: `descr`, `shape` (Python notation), then `data`.
    fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        let mut header = dict.into_bytes();
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(b' ');
        }
        header.push(b'\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(data);
        out
    }

    /// A `<f4` .npy file of `shape` with `data`.
    fn npy(shape: &str, data: &[f32]) -> Vec<u8> {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        npy_bytes("<f4", shape, &bytes)
    }

    #[test]
    fn a_bad_input_file_is_a_typed_error_before_the_device() {
        let e = bench_file(b"not a numpy file", &["-k", "1"]);
        assert!(matches!(e, CliError::Tools(rtopk_tools::Error::NotNpy { .. })), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT);
        let mut truncated = npy("(2, 3)", &[1.0; 6]);
        truncated.truncate(truncated.len() - 4);
        let e = bench_file(&truncated, &["-k", "1"]);
        assert!(matches!(e, CliError::Tools(rtopk_tools::Error::NpyTruncated { .. })), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT);
        let e = bench_file(&npy("(6,)", &[1.0; 6]), &["-k", "1"]);
        assert!(matches!(e, CliError::Tools(rtopk_tools::Error::NpyRank { .. })), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT, "{e}");
        let e = bench_file(&npy_bytes("<f8", "(2, 3)", &[0; 48]), &["-k", "1"]);
        assert!(matches!(e, CliError::Tools(rtopk_tools::Error::NpyDtype { .. })), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT, "{e}");
        // float16 is an input type of `select`, not of the float32 kernel timed here
        let e = bench_file(&npy_bytes("<f2", "(2, 3)", &[0; 12]), &["-k", "1"]);
        assert!(matches!(e, CliError::Tools(rtopk_tools::Error::NpyElementType { .. })), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT, "{e}");
        let e = bench_file(&npy("(2, 3)", &[1.0; 6]), &["-k", "2,4"]);
        assert!(matches!(e, CliError::Shape { .. }), "{e}");
        assert!(e.to_string().contains("(2, 3)"), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT);
        let e = bench_file(&npy("(0, 3)", &[]), &["-k", "1"]);
        assert!(e.to_string().contains("at least one row"), "{e}");
        assert_eq!(e.exit_code(), EXIT_BAD_INPUT);
    }

    #[test]
    fn startup_takes_one_shape_and_one_k() {
        let a = parse(&["--startup", "--n", "8", "--m", "300", "-k", "4,5"]).unwrap();
        let e = bench(&a).unwrap_err();
        assert!(matches!(e, CliError::BadArgument(_)), "{e}");
    }

    #[test]
    fn a_result_line_names_its_input() {
        let row = Row {
            device: "GPU".into(),
            input: "radix-adversarial".into(),
            seed: Some(42),
            n: 1,
            m: 1 << 28,
            k: 16384,
            max_iter: None,
            recall: None,
            smallest: false,
            sorted: true,
            median_ms: 1.5,
            min_ms: 1.4,
            gbps: 700.0,
            read_bw_fraction: 0.25,
            total_gbps: 700.1,
            reps: 20,
            input_buffers: 1,
            rotation: "copies of one input",
            timing: "queued",
        };
        let line = table_line(&row);
        assert!(line.starts_with("radix-adversarial n="), "{line}");
        assert!(line.contains("m=268435456") && line.contains("sorted"), "{line}");
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(json["input"], "radix-adversarial");
        assert_eq!(json["seed"], 42);
        assert_eq!(json["rotation"], "copies of one input");
    }
}
