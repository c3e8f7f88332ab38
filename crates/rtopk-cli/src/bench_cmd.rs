//! `rtopk bench`: algorithm comparisons. `bench cpu` times topk-ref's algorithms row-wise on
//! standard-normal data; every timed algorithm is first checked against an exact reference,
//! and a wrong answer is reported instead of a time. Each row also reports the algorithm's
//! work counters (elements read and written per element, passes and merges per row).
//!
//! `bench cpu --compare` ([`compare`]) times topk-ref's algorithms *and* the seed papers'
//! baselines (crate `baselines`) on the AIR paper's input families, in the row-wise and the
//! single-vector regime, as a table, JSON and an SVG chart.

mod compare;

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};
use ndarray::{Array2, ArrayView2};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde::Serialize;
use topk_ref::algorithm::WorkCounters;
use topk_ref::driver::topk_rows_into_counted;
use topk_ref::oracle::{canonical_indices, recall};
use topk_ref::{
    ALGORITHM_NAMES, Bisect, Heap, Mode, Options, RowTopK, TopK, by_name, check_shape, topk_rows,
    topk_rows_into,
};

use crate::algos;
use crate::error::CliError;

/// Default shapes `(N, M, k)`: a short, a medium and a long row width.
const DEFAULT_SHAPES: [(usize, usize, usize); 3] =
    [(65536, 256, 32), (65536, 768, 128), (16384, 4096, 256)];
/// `max_iter` of the early-stopping bisect row.
const EARLY_STOP_ITERS: u32 = 8;
/// Fewest timed runs a median is taken over.
const MIN_REPS: usize = 5;
/// Rows of the reference that are re-checked against the sort-based oracle.
const ORACLE_SAMPLE_ROWS: usize = 16;
/// Rows generated from one seeded stream (so the data does not depend on the thread count).
const GEN_BLOCK_ROWS: usize = 256;

/// `rtopk bench` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Time topk-ref's CPU algorithms row-wise (rayon) on standard-normal data
    Cpu(CpuArgs),
    /// Time the CUDA kernel on the paper's grids (or one shape), inputs rotated past L2
    Cuda(crate::cuda_cmd::BenchCudaArgs),
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
    /// Values selected per row
    #[arg(short = 'k', value_name = "K", allow_negative_numbers = true)]
    k: Option<usize>,
    /// Comma-separated algorithms to time (default: topk-ref's six; `bisect` includes its
    /// early-stopping row; the baselines `air`, `gridselect`, `warpselect`, `drtopk`,
    /// `torch-radix`, `sort` may be named too; with --compare, the labels of its table)
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    algos: Option<Vec<String>>,
    /// Timed runs per algorithm and shape (the median is reported; at least 5; with --compare
    /// at least 3, and cells slower than a second run 3 times)
    #[arg(long, value_name = "R", default_value_t = MIN_REPS, allow_negative_numbers = true)]
    reps: usize,
    /// Seed of the data generator
    #[arg(long, value_name = "S", default_value_t = 42)]
    seed: u64,
    /// Print only a JSON array on stdout (with --compare: one JSON object)
    #[arg(long)]
    json: bool,
    /// Compare topk-ref's algorithms and the baselines on the uniform, normal and
    /// radix-adversarial families, row-wise (M = 256, 768, 4096; k = 16, 128, 512) and
    /// single-vector (M = 2^20, 2^24; k = 32, 2^10, 2^14), with work counters
    #[arg(long, conflicts_with_all = ["n", "m", "k"])]
    compare: bool,
    /// With --compare: 4x fewer rows, and only M = 2^20 in the single-vector regime
    #[arg(long, requires = "compare")]
    quick: bool,
    /// With --compare: also draw the results as an SVG chart into FILE
    #[arg(long, value_name = "FILE", requires = "compare")]
    svg: Option<PathBuf>,
}

/// Runs `rtopk bench ...`.
pub(crate) fn run(cmd: &BenchCommand) -> Result<(), CliError> {
    match cmd {
        BenchCommand::Cpu(args) => run_cpu(args),
        BenchCommand::Cuda(args) => crate::cuda_cmd::bench(args),
    }
}

/// One algorithm configuration to time.
struct Contender {
    algo: Box<dyn RowTopK>,
    max_iter: Option<u32>,
    /// Widest row this contender runs on unless named with `--algos` (the simulator is
    /// ~100x slower than the CPU algorithms, so by default it only runs the M = 256 shape).
    max_m: usize,
}

/// Widest default shape the warp simulator runs on when not named with `--algos`.
const SIM_DEFAULT_MAX_M: usize = 256;

/// One line of the report.
#[derive(Debug, Serialize)]
struct BenchRow {
    algo: String,
    n: usize,
    m: usize,
    k: usize,
    exact: bool,
    max_iter: Option<u32>,
    /// `None` when the answer was wrong (no time is reported for a wrong answer).
    median_ms: Option<f64>,
    min_ms: Option<f64>,
    melem_per_s: Option<f64>,
    gelem_per_s: Option<f64>,
    threads: usize,
    reps: usize,
    seed: u64,
    /// `true` when the output matched the reference (exact) or was a valid selection
    /// (approximate).
    verified: bool,
    /// Mean recall against the canonical top-k (1 for a verified exact algorithm).
    recall: f64,
    /// What went wrong, when `verified` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// Elements read per input element ([`WorkCounters`]); `None` with a wrong answer.
    reads_per_elem: Option<f64>,
    /// Elements written per input element.
    writes_per_elem: Option<f64>,
    /// Passes over the row, per row.
    passes_per_row: Option<f64>,
    /// Sorting-network merges, per row.
    merges_per_row: Option<f64>,
}

/// Work counters of a whole run, normalised: (reads / element, writes / element, passes / row,
/// merges / row).
fn per_element(work: &WorkCounters, n: usize, m: usize) -> (f64, f64, f64, f64) {
    let elems = (n * m).max(1) as f64;
    let rows = n.max(1) as f64;
    (
        work.elements_read as f64 / elems,
        work.elements_written as f64 / elems,
        work.passes as f64 / rows,
        work.merges as f64 / rows,
    )
}

fn run_cpu(args: &CpuArgs) -> Result<(), CliError> {
    if args.compare {
        return compare::run(args);
    }
    let shapes = shapes(args)?;
    let contenders = contenders(args.algos.as_deref())?;
    if args.reps < MIN_REPS {
        return Err(CliError::BadArgument(format!(
            "--reps {}: at least {MIN_REPS} timed runs are needed for a median",
            args.reps
        )));
    }
    let threads = rayon::current_num_threads();
    eprintln!(
        "rtopk bench cpu: {threads} rayon threads, {} shape(s), {} algorithm(s), median of {} \
         runs after 1 warm-up, seed {}",
        shapes.len(),
        contenders.len(),
        args.reps,
        args.seed
    );

    let mut rows = Vec::new();
    if !args.json {
        print_table_header();
    }
    for &(n, m, k) in &shapes {
        let x = normal_matrix(n, m, args.seed);
        let reference = reference(x.view(), k)?;
        for c in contenders.iter().filter(|c| m <= c.max_m) {
            let row = bench_one(c, x.view(), k, &reference, args, threads)?;
            if !args.json {
                print_table_row(&row);
            }
            rows.push(row);
        }
    }
    if args.json {
        let text = serde_json::to_string_pretty(&rows)
            .map_err(|e| CliError::WrongAnswer(format!("cannot encode JSON: {e}")))?;
        println!("{text}");
    }
    let wrong: Vec<&str> = rows.iter().filter(|r| !r.verified).map(|r| r.algo.as_str()).collect();
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
fn shapes(args: &CpuArgs) -> Result<Vec<(usize, usize, usize)>, CliError> {
    match (args.n, args.m, args.k) {
        (None, None, None) => Ok(DEFAULT_SHAPES.to_vec()),
        (Some(n), Some(m), Some(k)) => {
            if n == 0 {
                return Err(CliError::BadArgument("--n must be at least 1".into()));
            }
            check_shape(m, k)?;
            Ok(vec![(n, m, k)])
        }
        _ => Err(CliError::BadArgument(
            "--n, --m and -k go together: give all three (one shape) or none (the default shapes)"
                .into(),
        )),
    }
}

/// The algorithms to time: topk-ref's six, bisect with early stopping and the simulated
/// kernel, filtered by `--algos` (which can also name the baselines).
fn contenders(filter: Option<&[String]>) -> Result<Vec<Contender>, CliError> {
    if let Some(names) = filter {
        for name in names {
            if ALGORITHM_NAMES.contains(&name.as_str())
                || baselines::BASELINE_NAMES.contains(&name.as_str())
                || name == "sim"
            {
                continue;
            }
            if algos::SPEC_ALGORITHMS.contains(&name.as_str()) {
                return Err(CliError::BadArgument(format!(
                    "bench cpu times CPU algorithms ({} and {}); '{name}' is not one of them",
                    ALGORITHM_NAMES.join(", "),
                    algos::list(&baselines::BASELINE_NAMES)
                )));
            }
            return Err(CliError::UnknownAlgorithm {
                name: name.clone(),
                valid: ALGORITHM_NAMES.join(", "),
            });
        }
    }
    let wanted = |name: &str| filter.is_none_or(|f| f.iter().any(|w| w == name));
    let mut out = Vec::new();
    for name in ALGORITHM_NAMES {
        if !wanted(name) {
            continue;
        }
        let algo = by_name(name).ok_or_else(|| CliError::NotAvailable(name.to_string()))?;
        out.push(Contender { algo, max_iter: None, max_m: usize::MAX });
        if name == "bisect" {
            out.push(Contender {
                algo: Box::new(Bisect::early_stopping(EARLY_STOP_ITERS)),
                max_iter: Some(EARLY_STOP_ITERS),
                max_m: usize::MAX,
            });
        }
    }
    // The RTop-K kernel on the warp simulator (diagnostics on), issue 3's speed target.
    if wanted("sim") {
        let named = filter.is_some();
        out.push(Contender {
            algo: Box::new(warp_sim::SimTopK::new(Bisect::exact())),
            max_iter: None,
            max_m: if named { usize::MAX } else { SIM_DEFAULT_MAX_M },
        });
    }
    // Baselines only when named.
    for name in baselines::BASELINE_NAMES {
        if filter.is_some_and(|f| f.iter().any(|w| w == name)) {
            let algo =
                baselines::by_name(name).ok_or_else(|| CliError::NotAvailable(name.to_string()))?;
            out.push(Contender { algo, max_iter: None, max_m: usize::MAX });
        }
    }
    Ok(out)
}

/// `(n, m)` standard-normal values; each block of rows has its own seeded stream, so the data
/// depend on the seed only, not on the thread count.
fn normal_matrix(n: usize, m: usize, seed: u64) -> Array2<f32> {
    let mut data = vec![0f32; n * m];
    if m > 0 {
        data.par_chunks_mut(GEN_BLOCK_ROWS * m).enumerate().for_each(|(block, chunk)| {
            let stream = seed ^ (block as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut rng = StdRng::seed_from_u64(stream);
            for v in chunk {
                *v = StandardNormal.sample(&mut rng);
            }
        });
    }
    Array2::from_shape_vec((n, m), data).unwrap_or_else(|_| Array2::zeros((n, 0)))
}

/// The exact answer every contender is checked against.
struct Reference {
    /// The canonical top-k of every row, in ascending index order.
    topk: TopK,
    /// `true` when `topk` is heap's output (which passed the oracle sample check); heap's own
    /// row then reuses this run as its warm-up and check.
    from_heap: bool,
}

/// The reference: heap's answer, after checking a sample of its rows against the sort-based
/// oracle. If heap fails that check the whole reference is the oracle's (slow, but right), and
/// heap is then checked against it like every other algorithm.
fn reference(x: ArrayView2<'_, f32>, k: usize) -> Result<Reference, CliError> {
    let heap = topk_rows(&Heap, x, k, Options::default())?;
    let n = x.nrows();
    let step = (n / ORACLE_SAMPLE_ROWS).max(1);
    let heap_ok = (0..n).step_by(step).all(|r| {
        let row = x.row(r).to_vec();
        heap.indices.row(r).to_vec() == canonical_indices(&row, k, Mode::Largest)
    });
    if heap_ok {
        return Ok(Reference { topk: heap, from_heap: true });
    }
    eprintln!("error: heap disagrees with the sort-based oracle; using the oracle as reference");
    let mut indices = Array2::<u32>::zeros((n, k));
    let mut values = Array2::<f32>::zeros((n, k));
    for r in 0..n {
        let row = x.row(r).to_vec();
        for (j, i) in canonical_indices(&row, k, Mode::Largest).into_iter().enumerate() {
            indices[[r, j]] = i;
            values[[r, j]] = row[i as usize];
        }
    }
    Ok(Reference { topk: TopK { values, indices, iterations: None }, from_heap: false })
}

/// Checks `out` against the reference: identical indices and value bits for an exact
/// algorithm; for an approximate one, k distinct ascending in-range indices carrying the
/// input's value bits. Returns the mean recall, or what is wrong.
fn verify(
    algo: &dyn RowTopK,
    x: ArrayView2<'_, f32>,
    out: &TopK,
    reference: &TopK,
) -> Result<f64, String> {
    let (n, m) = x.dim();
    let k = reference.indices.ncols();
    if out.indices.dim() != (n, k) || out.values.dim() != (n, k) {
        return Err(format!(
            "output shape {:?} / {:?}, expected ({n}, {k})",
            out.indices.dim(),
            out.values.dim()
        ));
    }
    let mut recall_sum = 0.0;
    for r in 0..n {
        let got = out.indices.row(r);
        let want = reference.indices.row(r);
        if algo.is_exact() {
            if got != want {
                return Err(format!(
                    "row {r}: indices {:?} differ from the reference {:?}",
                    preview(got.iter()),
                    preview(want.iter())
                ));
            }
        } else if let Some(w) = got.windows(2).into_iter().find(|w| w[0] >= w[1]) {
            return Err(format!(
                "row {r}: indices not strictly ascending ({} then {})",
                w[0], w[1]
            ));
        }
        for (&i, &v) in got.iter().zip(out.values.row(r)) {
            let Some(&xv) = x.row(r).get(i as usize) else {
                return Err(format!("row {r}: index {i} is out of range (M = {m})"));
            };
            if xv.to_bits() != v.to_bits() {
                return Err(format!("row {r}: value at index {i} is {v}, the input holds {xv}"));
            }
        }
        if !algo.is_exact() {
            let got: Vec<u32> = got.to_vec();
            let want: Vec<u32> = want.to_vec();
            recall_sum += recall(&got, &want);
        }
    }
    Ok(if algo.is_exact() || n == 0 { 1.0 } else { recall_sum / n as f64 })
}

/// The first few elements of a row, for messages.
fn preview<'a>(it: impl Iterator<Item = &'a u32>) -> Vec<u32> {
    it.take(12).copied().collect()
}

/// One warm-up run (also checked against the reference), then `reps` timed runs.
fn bench_one(
    c: &Contender,
    x: ArrayView2<'_, f32>,
    k: usize,
    reference: &Reference,
    args: &CpuArgs,
    threads: usize,
) -> Result<BenchRow, CliError> {
    let (n, m) = x.dim();
    let algo = c.algo.as_ref();
    let mut row = BenchRow {
        algo: algo.name().to_string(),
        n,
        m,
        k,
        exact: algo.is_exact(),
        max_iter: c.max_iter,
        median_ms: None,
        min_ms: None,
        melem_per_s: None,
        gelem_per_s: None,
        threads,
        reps: args.reps,
        seed: args.seed,
        verified: false,
        recall: 0.0,
        error: None,
        reads_per_elem: None,
        writes_per_elem: None,
        passes_per_row: None,
        merges_per_row: None,
    };
    // The warm-up run also allocates the output buffers that every timed run reuses: the
    // timing is of the selection, not of page-faulting fresh outputs (a GPU kernel, too,
    // writes into preallocated buffers). It is the run whose work is counted.
    let mut out = TopK::empty();
    let work = topk_rows_into_counted(algo, x, k, Options::default(), &mut out)?;
    // Heap's reference run already passed the oracle check.
    let checked = if reference.from_heap && algo.name() == "heap" && algo.is_exact() {
        Ok(1.0)
    } else {
        verify(algo, x, &out, &reference.topk)
    };
    match checked {
        Ok(r) => {
            row.verified = true;
            row.recall = r;
            let (rd, wr, passes, merges) = per_element(&work, n, m);
            row.reads_per_elem = Some(rd);
            row.writes_per_elem = Some(wr);
            row.passes_per_row = Some(passes);
            row.merges_per_row = Some(merges);
        }
        Err(why) => {
            eprintln!(
                "error: WRONG ANSWER from {} on shape ({n}, {m}), k = {k}: {why}",
                label(&row)
            );
            row.error = Some(why);
            return Ok(row);
        }
    }

    let mut times_ms = Vec::with_capacity(args.reps);
    for _ in 0..args.reps {
        let t0 = Instant::now();
        topk_rows_into(algo, x, k, Options::default(), &mut out)?;
        times_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times_ms.sort_by(f64::total_cmp);
    let median = median(&times_ms);
    row.median_ms = Some(median);
    row.min_ms = times_ms.first().copied();
    let elems_per_s = (n * m) as f64 / (median / 1e3);
    row.melem_per_s = Some(elems_per_s / 1e6);
    row.gelem_per_s = Some(elems_per_s / 1e9);
    Ok(row)
}

/// Median of sorted, non-empty `v`.
fn median(v: &[f64]) -> f64 {
    let mid = v.len() / 2;
    if v.len() % 2 == 1 { v[mid] } else { 0.5 * (v[mid - 1] + v[mid]) }
}

/// `bisect` or `bisect(max_iter=8)`.
fn label(row: &BenchRow) -> String {
    match row.max_iter {
        Some(it) => format!("{}(max_iter={it})", row.algo),
        None => row.algo.clone(),
    }
}

fn print_table_header() {
    println!(
        "{:<22} {:>6} {:>8} {:>6} {:>6} {:>6} {:>11} {:>11} {:>9} {:>8} {:>6} {:>6} {:>6}  check",
        "algo",
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

fn print_table_row(r: &BenchRow) {
    let num = |v: Option<f64>, prec: usize| match v {
        Some(v) => format!("{v:.prec$}"),
        None => "-".to_string(),
    };
    let check = match (&r.error, r.exact) {
        (Some(_), _) => "WRONG ANSWER".to_string(),
        (None, true) => "ok".to_string(),
        (None, false) => format!("valid, recall {:.4}", r.recall),
    };
    println!(
        "{:<22} {:>6} {:>8} {:>6} {:>6} {:>6} {:>11} {:>11} {:>9} {:>8} {:>6} {:>6} {:>6}  {check}",
        r.algo,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_do_not_depend_on_threads() {
        let a = normal_matrix(600, 7, 3);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = pool.install(|| normal_matrix(600, 7, 3));
        assert_eq!(a, b);
        assert_ne!(a, normal_matrix(600, 7, 4));
    }

    #[test]
    fn wrong_answers_are_caught() {
        let x = normal_matrix(40, 33, 7);
        let reference = reference(x.view(), 5).unwrap();
        assert!(reference.from_heap);
        let heap = by_name("heap").unwrap();
        let mut bad = reference.topk.clone();
        assert_eq!(verify(heap.as_ref(), x.view(), &bad, &reference.topk), Ok(1.0));
        // A different (still valid-looking) index set.
        let i = bad.indices[[3, 0]];
        bad.indices[[3, 0]] = if i == 0 { 32 } else { 0 };
        bad.indices.row_mut(3).as_slice_mut().unwrap().sort_unstable();
        assert!(verify(heap.as_ref(), x.view(), &bad, &reference.topk).is_err());
        // Right indices, wrong value bits.
        let mut bad = reference.topk.clone();
        bad.values[[0, 0]] = -bad.values[[0, 0]];
        assert!(verify(heap.as_ref(), x.view(), &bad, &reference.topk).is_err());
        // An approximate algorithm must still return k distinct ascending indices.
        let es = Bisect::early_stopping(2);
        let mut bad = topk_rows(&es, x.view(), 5, Options::default()).unwrap();
        assert!(verify(&es, x.view(), &bad, &reference.topk).is_ok());
        bad.indices[[1, 1]] = bad.indices[[1, 0]];
        assert!(verify(&es, x.view(), &bad, &reference.topk).is_err());
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
    }
}
