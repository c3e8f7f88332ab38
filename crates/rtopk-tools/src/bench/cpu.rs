//! The CPU benchmark (`rtopk bench cpu`): CPU algorithms row-wise on generated rows of any
//! input family, or on the caller's own matrix, in `f32`, `f16` or `bf16`; every algorithm is
//! checked against an exact reference first, and a wrong answer is reported instead of a time.
//!
//! Generated 16-bit rows are the family's `f32` rows rounded to the nearest value of the type
//! (ties to even), so the three types time the same rows, as far as each type can hold them.

use std::path::Path;

use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Deserializer, Serialize};
use topk_ref::{ALGORITHM_NAMES, Element, Family, bf16, f16};

use crate::bench::check::Reference;
use crate::bench::measure::{PerElement, measure};
use crate::bench::{Observer, check_memory, check_reps};
use crate::error::Error;
use crate::npy::{MatrixReader, read_matrix_as};
use rtopk::KernelElement;
use rtopk::algorithm::{Algorithm, Device, dtype_not_supported};
use rtopk::dtype::Dtype;
use rtopk::params::Params;
use rtopk::registry;

/// Default shapes: a short, a medium and a long row width.
pub const DEFAULT_SHAPES: [Shape; 3] = [
    Shape { n: 65536, m: 256, k: 32 },
    Shape { n: 65536, m: 768, k: 128 },
    Shape { n: 16384, m: 4096, k: 256 },
];
/// `max_iter` of the early-stopping bisect row.
pub const EARLY_STOP_ITERS: u32 = 8;
/// Fewest timed runs a median is taken over.
pub const MIN_REPS: usize = 5;
/// Widest default shape the warp simulator runs on when not named (it is ~100x slower than the
/// CPU algorithms).
const SIM_DEFAULT_MAX_M: usize = 256;

/// `n` rows of width `m`, `k` selected per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shape {
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
}

/// A matrix of `f32`, `f16` or `bf16`.
#[derive(Clone, Debug, PartialEq)]
pub enum Matrix {
    /// `f32` rows.
    F32(Array2<f32>),
    /// `f16` rows.
    F16(Array2<f16>),
    /// `bf16` rows.
    Bf16(Array2<bf16>),
}

/// A borrowed [`Matrix`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MatrixView<'a> {
    /// `f32` rows.
    F32(ArrayView2<'a, f32>),
    /// `f16` rows.
    F16(ArrayView2<'a, f16>),
    /// `bf16` rows.
    Bf16(ArrayView2<'a, bf16>),
}

impl Matrix {
    /// The `(n, m)` rows of `family` under `seed` ([`Family::matrix`]) in `dtype`: drawn in
    /// `f32`, then rounded to the nearest value of a 16-bit type (ties to even). Allocations
    /// are fallible: a shape too large for memory is an error, not an abort.
    pub fn generate(
        family: Family,
        (n, m): (usize, usize),
        seed: u64,
        dtype: Dtype,
    ) -> Result<Self, Error> {
        let drawn = family.matrix(n, m, seed)?;
        Ok(match dtype {
            Dtype::Float32 => Matrix::F32(drawn),
            Dtype::Float16 => Matrix::F16(rounded(&drawn)?),
            Dtype::Bfloat16 => Matrix::Bf16(rounded(&drawn)?),
            other => return Err(super::generated_only(other)),
        })
    }

    /// The whole `(N, M)` matrix of the `.npy` file at `path`, in the file's type (`<f4`:
    /// `f32`, `<f2`: `f16`); every other file is the reader's typed error.
    pub fn read_npy(path: &Path) -> Result<Self, Error> {
        match MatrixReader::open(path)?.dtype() {
            Dtype::Float16 => Ok(Matrix::F16(read_matrix_as(path)?)),
            // A bfloat16 file does not exist (no .npy dtype): the f32 read refuses anything
            // but `<f4`.
            _ => Ok(Matrix::F32(read_matrix_as(path)?)),
        }
    }

    /// The matrix, borrowed.
    pub fn view(&self) -> MatrixView<'_> {
        match self {
            Matrix::F32(x) => MatrixView::F32(x.view()),
            Matrix::F16(x) => MatrixView::F16(x.view()),
            Matrix::Bf16(x) => MatrixView::Bf16(x.view()),
        }
    }
}

impl<'a> MatrixView<'a> {
    /// The element type.
    pub fn dtype(&self) -> Dtype {
        match self {
            MatrixView::F32(_) => Dtype::Float32,
            MatrixView::F16(_) => Dtype::Float16,
            MatrixView::Bf16(_) => Dtype::Bfloat16,
        }
    }

    /// The same view with a shorter lifetime (array views are invariant in theirs).
    pub fn reborrow<'b>(self) -> MatrixView<'b>
    where
        'a: 'b,
    {
        match self {
            MatrixView::F32(x) => MatrixView::F32(x.reborrow()),
            MatrixView::F16(x) => MatrixView::F16(x.reborrow()),
            MatrixView::Bf16(x) => MatrixView::Bf16(x.reborrow()),
        }
    }

    /// `(N, M)`.
    pub fn dim(&self) -> (usize, usize) {
        match self {
            MatrixView::F32(x) => x.dim(),
            MatrixView::F16(x) => x.dim(),
            MatrixView::Bf16(x) => x.dim(),
        }
    }
}

/// `x` rounded to the nearest value of `E`, allocated fallibly.
fn rounded<E: Element>(x: &Array2<f32>) -> Result<Array2<E>, Error> {
    let (n, m) = x.dim();
    let mut data: Vec<E> = Vec::new();
    data.try_reserve_exact(x.len()).map_err(|_| topk_ref::TopKError::TooLarge {
        what: "input matrix",
        n,
        m,
    })?;
    data.extend(x.iter().map(|&v| E::from_f32(v)));
    Array2::from_shape_vec((n, m), data)
        .map_err(|_| topk_ref::TopKError::TooLarge { what: "input matrix", n, m }.into())
}

/// Where the rows come from.
#[derive(Clone, Debug)]
pub enum Source<'a> {
    /// Generated rows: every shape for every family, from `seed`
    /// ([`Family::matrix`]: each row its own seeded stream), in `dtype` ([`Matrix::generate`]).
    Generated {
        /// The input families.
        families: Vec<Family>,
        /// The shapes.
        shapes: Vec<Shape>,
        /// The generator's seed.
        seed: u64,
        /// The element type of the rows.
        dtype: Dtype,
    },
    /// The caller's matrix (e.g. a user's `.npy`), with every `k` of `ks`.
    Matrix {
        /// What to call it in the report (a file name).
        label: String,
        /// The rows, of any element type.
        x: MatrixView<'a>,
        /// The k to run.
        ks: Vec<usize>,
    },
}

impl Source<'_> {
    /// The element type of the rows.
    pub fn dtype(&self) -> Dtype {
        match self {
            Source::Generated { dtype, .. } => *dtype,
            Source::Matrix { x, .. } => x.dtype(),
        }
    }
}

/// What `rtopk bench cpu` runs.
#[derive(Clone, Debug)]
pub struct CpuConfig<'a> {
    /// The rows.
    pub source: Source<'a>,
    /// Algorithms by registry name (`None`: topk-ref's six, bisect with early stopping, and `sim`
    /// on the short rows); the baselines and `sim` on every shape when named.
    pub algos: Option<Vec<String>>,
    /// Timed runs per cell (the median is reported).
    pub reps: usize,
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchRow {
    /// The registry name.
    pub algo: String,
    /// The input: a family name, or the caller's label for their matrix (reports from before
    /// `--dist` existed were all normal).
    #[serde(default = "normal")]
    pub input: String,
    /// The element type of the input (reports from before 16-bit inputs were all float32).
    #[serde(default = "float32", deserialize_with = "dtype_by_name")]
    pub dtype: Dtype,
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
    /// `true` when the algorithm as configured is exact.
    pub exact: bool,
    /// Early stopping's `max_iter`, for the approximate bisect row.
    pub max_iter: Option<u32>,
    /// Median time; `None` after a wrong answer (no time is reported for a wrong answer).
    pub median_ms: Option<f64>,
    /// Fastest time.
    pub min_ms: Option<f64>,
    /// Throughput, millions of input elements per second.
    pub melem_per_s: Option<f64>,
    /// Throughput, billions of input elements per second.
    pub gelem_per_s: Option<f64>,
    /// Rayon threads.
    pub threads: usize,
    /// Timed runs.
    pub reps: usize,
    /// The generator's seed (`None` for the caller's matrix).
    pub seed: Option<u64>,
    /// `true` when the output matched the reference (exact) or was a valid selection
    /// (approximate).
    pub verified: bool,
    /// Mean recall against the canonical top-k (1 for a verified exact algorithm).
    pub recall: f64,
    /// What went wrong, when `verified` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Elements read per input element (`topk_ref::WorkCounters`); `None` with a wrong answer
    /// or an algorithm that does not count.
    pub reads_per_elem: Option<f64>,
    /// Elements written per input element.
    pub writes_per_elem: Option<f64>,
    /// Passes over the row, per row.
    pub passes_per_row: Option<f64>,
    /// Sorting-network merges, per row.
    pub merges_per_row: Option<f64>,
}

fn normal() -> String {
    Family::Normal.name().to_string()
}

fn float32() -> Dtype {
    Dtype::Float32
}

/// A [`Dtype`] from its name (`"float16"`).
fn dtype_by_name<'de, D: Deserializer<'de>>(d: D) -> Result<Dtype, D::Error> {
    let name = String::deserialize(d)?;
    // benchmarks draw and read the kernel's three floats only
    Dtype::from_name(&name)
        .filter(|d| d.is_kernel_float())
        .ok_or_else(|| serde::de::Error::custom(format!("unknown dtype '{name}'")))
}

impl BenchRow {
    /// `bisect` or `bisect(max_iter=8)`.
    pub fn label(&self) -> String {
        match self.max_iter {
            Some(it) => format!("{}(max_iter={it})", self.algo),
            None => self.algo.clone(),
        }
    }
}

/// One algorithm configuration to time.
#[derive(Debug)]
pub struct Contender {
    /// The configured algorithm.
    pub algo: Box<dyn Algorithm>,
    /// Early stopping's `max_iter`, if configured.
    pub max_iter: Option<u32>,
    /// Widest row it runs on.
    pub max_m: usize,
}

/// The algorithms `filter` names, in report order: topk-ref's (bisect followed by its
/// early-stopping row), the simulator, the baselines. Without a filter: topk-ref's six, the
/// early-stopping row, and the simulator on rows of at most 256 — those of them that take
/// `dtype` (the simulator takes `f32` only). A named algorithm that does not take `dtype` is
/// [`rtopk::Error::DtypeNotSupported`].
pub fn contenders(filter: Option<&[String]>, dtype: Dtype) -> Result<Vec<Contender>, Error> {
    let cpu = registry::names_where(|c| c.device == Device::Cpu);
    if let Some(names) = filter {
        for name in names {
            match registry::lookup(name) {
                Some(e) if e.caps.device == Device::Cpu && !e.caps.takes(dtype) => {
                    return Err(dtype_not_supported(dtype, name).into());
                }
                Some(e) if e.caps.device == Device::Cpu => {}
                Some(_) => {
                    return Err(rtopk::Error::WrongDevice {
                        algo: name.clone(),
                        why: format!(
                            "the CPU benchmark times CPU algorithms ({}); the GPU kernel is \
                             timed by `rtopk bench cuda`",
                            registry::list(&cpu)
                        ),
                    }
                    .into());
                }
                None => {
                    return Err(rtopk::Error::UnknownAlgorithm {
                        name: name.clone(),
                        valid: cpu.join(", "),
                    }
                    .into());
                }
            }
        }
    }
    let named = |name: &str| filter.is_some_and(|f| f.iter().any(|w| w == name));
    let wanted = |name: &str| filter.is_none() || named(name);
    let plain = |name: &str| -> Result<Contender, Error> {
        let algo = registry::resolve(name, &Params::default())?;
        Ok(Contender { algo, max_iter: None, max_m: usize::MAX })
    };
    let mut out = Vec::new();
    for name in ALGORITHM_NAMES.into_iter().filter(|n| wanted(n)) {
        out.push(plain(name)?);
        if name == "bisect" {
            let algo = registry::resolve(name, &Params::early_stopping(EARLY_STOP_ITERS))?;
            out.push(Contender { algo, max_iter: Some(EARLY_STOP_ITERS), max_m: usize::MAX });
        }
    }
    if wanted("sim") && registry::lookup("sim").is_some_and(|e| e.caps.takes(dtype)) {
        let max_m = if named("sim") { usize::MAX } else { SIM_DEFAULT_MAX_M };
        out.push(Contender { max_m, ..plain("sim")? });
    }
    for name in baselines::BASELINE_NAMES.into_iter().filter(|n| named(n)) {
        out.push(plain(name)?);
    }
    Ok(out)
}

/// One input and the k to run on it.
struct Case<'a> {
    label: String,
    seed: Option<u64>,
    rows: Rows<'a>,
    ks: Vec<usize>,
}

/// The rows of a case: generated when its turn comes (one input in memory at a time), or
/// borrowed.
enum Rows<'a> {
    Generate { family: Family, n: usize, m: usize, seed: u64, dtype: Dtype },
    Given(MatrixView<'a>),
}

impl Case<'_> {
    fn dim(&self) -> (usize, usize) {
        match &self.rows {
            Rows::Generate { n, m, .. } => (*n, *m),
            Rows::Given(x) => x.dim(),
        }
    }
}

fn cases<'a>(source: &Source<'a>) -> Vec<Case<'a>> {
    match source {
        Source::Generated { families, shapes, seed, dtype } => families
            .iter()
            .flat_map(|&family| {
                shapes.iter().map(move |s| Case {
                    label: family.name().to_string(),
                    seed: Some(*seed),
                    rows: Rows::Generate { family, n: s.n, m: s.m, seed: *seed, dtype: *dtype },
                    ks: vec![s.k],
                })
            })
            .collect(),
        Source::Matrix { label, x, ks } => {
            vec![Case { label: label.clone(), seed: None, rows: Rows::Given(*x), ks: ks.clone() }]
        }
    }
}

/// Checks the whole run before anything is allocated: timed runs, the algorithms against the
/// element type, shapes, k against the row width, and that every input with its reference and
/// outputs fits this machine's memory.
pub fn plan<'a>(config: &CpuConfig<'a>) -> Result<Vec<Contender>, Error> {
    check_reps(config.reps, MIN_REPS)?;
    let dtype = config.source.dtype();
    let contenders = contenders(config.algos.as_deref(), dtype)?;
    for case in cases(&config.source) {
        let (n, m) = case.dim();
        if n == 0 {
            return Err(topk_ref::TopKError::InvalidParameter {
                name: "n",
                reason: "a benchmark needs at least one row".into(),
            }
            .into());
        }
        for &k in &case.ks {
            topk_ref::check_shape(m, k)?;
            let generated = matches!(case.rows, Rows::Generate { .. });
            check_memory(&case.label, (n, m, k), dtype, generated)?;
        }
    }
    Ok(contenders)
}

/// Runs the benchmark, reporting each cell to `observer`, and returns every row (wrong answers
/// included: see [`BenchRow::verified`]).
pub fn run(
    config: &CpuConfig<'_>,
    observer: &mut dyn Observer<BenchRow>,
) -> Result<Vec<BenchRow>, Error> {
    let contenders = plan(config)?;
    let cases = cases(&config.source);
    let cells = cases
        .iter()
        .map(|c| c.ks.len() * contenders.iter().filter(|t| c.dim().1 <= t.max_m).count())
        .sum::<usize>();
    observer.begin(cells as u64);
    let mut rows = Vec::new();
    for case in &cases {
        let owned: Matrix;
        let x = match case.rows {
            Rows::Generate { family, n, m, seed, dtype } => {
                owned = Matrix::generate(family, (n, m), seed, dtype)?;
                owned.view()
            }
            Rows::Given(x) => x.reborrow(),
        };
        let cell = CaseRun { case, contenders: &contenders, reps: config.reps };
        match x {
            MatrixView::F32(x) => cell.run(x, observer, &mut rows)?,
            MatrixView::F16(x) => cell.run(x, observer, &mut rows)?,
            MatrixView::Bf16(x) => cell.run(x, observer, &mut rows)?,
        }
    }
    observer.end();
    Ok(rows)
}

/// One input's cells: every k, every contender that takes its width.
struct CaseRun<'c, 'a> {
    case: &'c Case<'a>,
    contenders: &'c [Contender],
    reps: usize,
}

impl CaseRun<'_, '_> {
    fn run<E: KernelElement>(
        &self,
        x: ArrayView2<'_, E>,
        observer: &mut dyn Observer<BenchRow>,
        rows: &mut Vec<BenchRow>,
    ) -> Result<(), Error> {
        for &k in &self.case.ks {
            let reference = Reference::new(x, k)?;
            for c in self.contenders.iter().filter(|c| x.ncols() <= c.max_m) {
                let row = bench_one(c, x, k, self.case, &reference, self.reps, observer)?;
                observer.row(&row);
                rows.push(row);
            }
        }
        Ok(())
    }
}

fn bench_one<E: KernelElement>(
    c: &Contender,
    x: ArrayView2<'_, E>,
    k: usize,
    case: &Case<'_>,
    reference: &Reference<E>,
    reps: usize,
    observer: &mut dyn Observer<BenchRow>,
) -> Result<BenchRow, Error> {
    let (n, m) = x.dim();
    let mut row = BenchRow {
        algo: c.algo.name().to_string(),
        input: case.label.clone(),
        dtype: E::DTYPE,
        n,
        m,
        k,
        exact: c.algo.is_exact(),
        max_iter: c.max_iter,
        median_ms: None,
        min_ms: None,
        melem_per_s: None,
        gelem_per_s: None,
        threads: rayon::current_num_threads(),
        reps,
        seed: case.seed,
        verified: false,
        recall: 0.0,
        error: None,
        reads_per_elem: None,
        writes_per_elem: None,
        passes_per_row: None,
        merges_per_row: None,
    };
    observer.cell(&format!("{} {} {n}×{m} k={k} {}", row.input, row.dtype, row.label()));
    let measured = measure(c.algo.as_ref(), x, k, &reference.topk, |_| reps)?;
    if let Some(why) = measured.error {
        observer.wrong_answer(&format!(
            "from {} on {} {} ({n}, {m}), k = {k}: {why}",
            row.label(),
            row.input,
            row.dtype
        ));
        row.error = Some(why);
        return Ok(row);
    }
    row.verified = true;
    row.recall = measured.recall;
    if let Some(work) = &measured.work {
        let per = PerElement::of(work, n, m);
        row.reads_per_elem = Some(per.reads_per_elem);
        row.writes_per_elem = Some(per.writes_per_elem);
        row.passes_per_row = Some(per.passes_per_row);
        row.merges_per_row = Some(per.merges_per_row);
    }
    row.median_ms = measured.median_ms();
    row.min_ms = measured.min_ms();
    if let Some(median) = row.median_ms {
        let elems_per_s = n as f64 * m as f64 / (median / 1e3);
        row.melem_per_s = Some(elems_per_s / 1e6);
        row.gelem_per_s = Some(elems_per_s / 1e9);
    }
    Ok(row)
}

/// The labels of the rows with wrong answers.
pub fn wrong_answers(rows: &[BenchRow]) -> Vec<String> {
    rows.iter()
        .filter(|r| !r.verified)
        .map(|r| format!("{} ({} {})", r.label(), r.input, r.dtype))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(filter: Option<&[&str]>) -> Result<Vec<String>, Error> {
        names_for(filter, Dtype::Float32)
    }

    fn names_for(filter: Option<&[&str]>, dtype: Dtype) -> Result<Vec<String>, Error> {
        let owned: Option<Vec<String>> = filter.map(|f| f.iter().map(|s| s.to_string()).collect());
        Ok(contenders(owned.as_deref(), dtype)?
            .iter()
            .map(|c| match c.max_iter {
                Some(it) => format!("{}({it})", c.algo.name()),
                None => c.algo.name().to_string(),
            })
            .collect())
    }

    #[test]
    fn default_and_named_contenders() {
        let all = names(None).unwrap();
        assert_eq!(
            all,
            ["heap", "quickselect", "radix", "bucket", "bitonic", "bisect", "bisect(8)", "sim"]
        );
        assert_eq!(names(Some(&["sort", "heap", "air"])).unwrap(), ["heap", "air", "sort"]);
        let e = names(Some(&["cuda"])).unwrap_err();
        assert!(
            matches!(e, Error::Lib(rtopk::Error::WrongDevice { .. }))
                && e.to_string().contains("CPU"),
            "{e}"
        );
        let e = names(Some(&["nope"])).unwrap_err();
        assert!(
            matches!(e, Error::Lib(rtopk::Error::UnknownAlgorithm { .. }))
                && !e.to_string().contains("cuda")
        );
        let sim = contenders(Some(&["sim".to_string()]), Dtype::Float32).unwrap();
        assert_eq!(sim[0].max_m, usize::MAX);
        let default_sim = contenders(None, Dtype::Float32).unwrap().pop().unwrap();
        assert_eq!(default_sim.max_m, SIM_DEFAULT_MAX_M);
        // 16-bit rows: the defaults that take the type; a named algorithm that does not is
        // refused (whatever the registry's table says today).
        for dtype in [Dtype::Float16, Dtype::Bfloat16] {
            let takes = |name: &str| registry::lookup(name).is_some_and(|e| e.caps.takes(dtype));
            let want: Vec<&String> =
                all.iter().filter(|n| takes(n.split('(').next().unwrap())).collect();
            assert_eq!(names_for(None, dtype).unwrap().iter().collect::<Vec<_>>(), want);
            assert!(want.len() >= 7, "topk-ref's six and early stopping take {dtype}");
            assert_eq!(names_for(Some(&["air", "sort"]), dtype).unwrap(), ["air", "sort"]);
            for e in registry::ALGORITHMS.iter().filter(|e| e.caps.device == Device::Cpu) {
                match names_for(Some(&["bisect", e.name]), dtype) {
                    Ok(_) => assert!(e.caps.takes(dtype), "{}", e.name),
                    Err(err) => {
                        assert!(!e.caps.takes(dtype), "{}: {err}", e.name);
                        assert!(
                            matches!(err, Error::Lib(rtopk::Error::DtypeNotSupported { .. })),
                            "{err}"
                        );
                        assert!(err.is_user_error() && err.to_string().contains(dtype.name()));
                    }
                }
            }
        }
    }

    fn config(shapes: Vec<Shape>, families: Vec<Family>, algos: &[&str]) -> CpuConfig<'static> {
        CpuConfig {
            source: Source::Generated { families, shapes, seed: 3, dtype: Dtype::Float32 },
            algos: Some(algos.iter().map(|s| s.to_string()).collect()),
            reps: MIN_REPS,
        }
    }

    #[test]
    fn runs_every_family_and_reports_json_rows() {
        let shapes = vec![Shape { n: 37, m: 45, k: 7 }];
        let cfg = config(shapes, vec![Family::NanInf, Family::Ties], &["heap", "bisect", "sim"]);
        let rows = run(&cfg, &mut ()).unwrap();
        // heap, bisect, bisect(max_iter=8), sim on each family.
        assert_eq!(rows.len(), 8);
        assert!(wrong_answers(&rows).is_empty());
        assert_eq!(rows[0].input, "nan-inf");
        assert_eq!(rows[7].input, "ties");
        for r in &rows {
            assert!(r.median_ms.unwrap() >= r.min_ms.unwrap());
            assert_eq!(r.exact, r.max_iter.is_none());
            assert!(r.exact || (0.0..=1.0).contains(&r.recall));
            // sim counts no work; the CPU algorithms read every element at least once.
            assert_eq!(r.reads_per_elem.is_some(), r.algo != "sim", "{r:?}");
        }
        let json: serde_json::Value = serde_json::to_value(&rows).unwrap();
        for key in ["algo", "input", "n", "m", "k", "median_ms", "verified", "reads_per_elem"] {
            assert!(json[0].get(key).is_some(), "{key}");
        }
        assert_eq!(json[0]["dtype"], "float32");
        assert!(json[0].get("error").is_none());
        let back: Vec<BenchRow> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, rows);
        // Reports from before 16-bit inputs have no dtype: float32.
        let mut old = json[0].clone();
        old.as_object_mut().unwrap().remove("dtype");
        assert_eq!(serde_json::from_value::<BenchRow>(old).unwrap(), rows[0]);
        let mut bad = json[0].clone();
        bad["dtype"] = "float64".into();
        let e = serde_json::from_value::<BenchRow>(bad).unwrap_err();
        assert!(e.to_string().contains("unknown dtype 'float64'"), "{e}");
    }

    #[test]
    fn sixteen_bit_rows_are_the_f32_rows_rounded() {
        let shape = Shape { n: 33, m: 70, k: 9 };
        let drawn = Family::Normal.matrix(33, 70, 3).unwrap();
        for dtype in [Dtype::Float16, Dtype::Bfloat16] {
            let source = Source::Generated {
                families: vec![Family::Normal, Family::NanInf],
                shapes: vec![shape],
                seed: 3,
                dtype,
            };
            let cfg = CpuConfig { source, algos: None, reps: MIN_REPS };
            let rows = run(&cfg, &mut ()).unwrap();
            // The default contenders that take the type, on each family.
            assert_eq!(rows.len(), 2 * contenders(None, dtype).unwrap().len());
            assert!(rows.len() >= 14, "topk-ref's six and early stopping");
            assert!(wrong_answers(&rows).is_empty(), "{:?}", wrong_answers(&rows));
            assert!(rows.iter().all(|r| r.dtype == dtype));
            let json = serde_json::to_value(&rows).unwrap();
            assert_eq!(json[0]["dtype"], dtype.name());
            assert_eq!(serde_json::from_value::<Vec<BenchRow>>(json).unwrap(), rows);
            let m = Matrix::generate(Family::Normal, (33, 70), 3, dtype).unwrap();
            assert_eq!(m.view().dtype(), dtype);
            assert_eq!(m.view().dim(), (33, 70));
            let want = match dtype {
                Dtype::Float16 => Matrix::F16(drawn.mapv(f16::from_f32)),
                _ => Matrix::Bf16(drawn.mapv(bf16::from_f32)),
            };
            assert_eq!(m, want);
        }
    }

    #[test]
    fn npy_files_are_read_in_their_own_type() {
        use crate::npy::{NpyDtype, NpyWriter};
        let dir = tempfile::tempdir().unwrap();
        let drawn = Family::Uniform.matrix(6, 10, 1).unwrap();
        let write = |name: &str, npy, put: &dyn Fn(&mut NpyWriter<Vec<u8>>)| {
            let mut w = NpyWriter::new(Vec::new(), npy, &[6, 10]).unwrap();
            put(&mut w);
            let path = dir.path().join(name);
            std::fs::write(&path, w.finish().unwrap()).unwrap();
            path
        };
        let halves = drawn.mapv(f16::from_f32);
        let h = write("h.npy", NpyDtype::F2, &|w| w.write_values(halves.iter().copied()).unwrap());
        assert_eq!(Matrix::read_npy(&h).unwrap(), Matrix::F16(halves.clone()));
        let x = write("x.npy", NpyDtype::F4, &|w| w.write_values(drawn.iter().copied()).unwrap());
        assert_eq!(Matrix::read_npy(&x).unwrap(), Matrix::F32(drawn.clone()));
        let i = write("i.npy", NpyDtype::I8, &|w| w.write_i64(0..60).unwrap());
        let e = Matrix::read_npy(&i).unwrap_err();
        assert!(matches!(e, Error::NpyDtype { .. }) && e.is_user_error(), "{e}");
        let matrix = Matrix::F16(halves);
        let source = Source::Matrix { label: "h.npy".into(), x: matrix.view(), ks: vec![3] };
        assert_eq!(source.dtype(), Dtype::Float16);
        let cfg = CpuConfig { source, algos: Some(vec!["bisect".into()]), reps: MIN_REPS };
        let rows = run(&cfg, &mut ()).unwrap();
        assert!(rows.iter().all(|r| r.verified && r.dtype == Dtype::Float16 && r.input == "h.npy"));
    }

    #[test]
    fn the_callers_matrix_is_an_input() {
        let x = Family::Uniform.matrix(20, 64, 9).unwrap();
        let x = MatrixView::F32(x.view());
        let cfg = CpuConfig {
            source: Source::Matrix { label: "x.npy".into(), x, ks: vec![0, 1, 64] },
            algos: Some(vec!["radix".into()]),
            reps: MIN_REPS,
        };
        let rows = run(&cfg, &mut ()).unwrap();
        assert_eq!(rows.iter().map(|r| r.k).collect::<Vec<_>>(), [0, 1, 64]);
        assert!(rows.iter().all(|r| r.verified && r.input == "x.npy" && r.seed.is_none()));
        let source = Source::Matrix { label: "x.npy".into(), x, ks: vec![65] };
        let bad = CpuConfig { source, ..cfg };
        assert!(matches!(plan(&bad), Err(Error::TopK(topk_ref::TopKError::KTooLarge { .. }))));
    }

    #[test]
    fn sizes_and_arguments_are_checked_before_allocating() {
        let huge = config(vec![Shape { n: 1 << 40, m: 256, k: 8 }], vec![Family::Normal], &[]);
        let e = plan(&huge).unwrap_err();
        assert!(e.is_user_error(), "{e}");
        assert!(e.to_string().contains("memory") || e.to_string().contains("too large"), "{e}");
        let overflow =
            config(vec![Shape { n: usize::MAX, m: usize::MAX, k: 1 }], vec![Family::Normal], &[]);
        assert!(plan(&overflow).unwrap_err().is_user_error());
        let no_rows = config(vec![Shape { n: 0, m: 8, k: 1 }], vec![Family::Normal], &[]);
        assert!(plan(&no_rows).unwrap_err().to_string().contains("at least one row"));
        let few = CpuConfig { reps: 2, ..config(vec![], vec![], &[]) };
        assert!(plan(&few).unwrap_err().to_string().contains("at least 5"));
        let many = CpuConfig { reps: usize::MAX, ..config(vec![], vec![], &[]) };
        assert!(plan(&many).unwrap_err().is_user_error());
    }
}
