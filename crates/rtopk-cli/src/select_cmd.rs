//! `rtopk select`: row-wise top-k of a `.npy` matrix into `.npy` values, indices and
//! iteration counts, each output optional but at least one (docs/contract.md §4).
//!
//! Everything the caller controls — the algorithm and its parameters, the input's format and
//! shape, `k` against the row width, the output paths — is checked before any work is done.
//! Then the input is read in blocks of rows and each block's results are appended to the
//! outputs before the next block is read: top-k is row-wise, so the answer is the one the whole
//! matrix would give, and memory is one block of input plus its results, whatever the file's
//! size. The outputs follow `rtopk_tools::npy`'s rules: written all or nothing, a regular file
//! replaced atomically, a device or FIFO written in place, never the input.
//!
//! A `<f2` (float16) input is selected as float16 — each element ordered by its exact value,
//! docs/contract.md §1 — and its values are written back as `<f2`, the input's bits; indices and
//! iteration counts are as for float32. The command line takes `<f4` and `<f2` only
//! (docs/contract.md §4); the library and the Python package take the other element types.
//!
//! Ragged requests (docs/contract.md §5): `--k-per-row`, `--lengths` and `--hint` are 1-D
//! `.npy` files of one entry per row, read and checked with the input's header before any work;
//! each block's request takes their entries for its rows. The outputs are `(N, K)` with `K` the
//! largest k; a row that selects fewer ends in padding, index `-1` and value zero (all bits
//! zero). `--threshold` writes each row's k-th selected value as `<f4` (NaN where nothing is
//! selected) — one more output under the same rules.

use std::iter::repeat_n;
use std::ops::Range;
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args};
use ndarray::{Array2, ArrayView2};
use rtopk::registry;
use rtopk::{
    Dtype, IndexWidth, Mode, Options, PAD_INDEX, Request, RequestBuilder, Selection,
    SimDiagnostics, f16,
};
use rtopk_tools::npy::{
    self, DEFAULT_BLOCK_BYTES, MatrixReader, NpyDtype, NpyFloat, OutputSpec, Outputs,
};

use crate::error::CliError;
use crate::search_args::SearchArgs;

/// Arguments of `rtopk select`.
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("outputs")
        .required(true)
        .multiple(true)
        .args(["values", "indices", "iterations", "threshold"])
))]
#[command(group(ArgGroup::new("how_many").required(true).args(["k", "k_per_row"])))]
pub(crate) struct SelectArgs {
    /// Algorithm: heap, quickselect, radix, bucket, bitonic, bisect (RTop-K Algorithm 1 on the
    /// CPU), sim (the kernel in the warp simulator), cuda (the GPU kernel), a baseline: air,
    /// gridselect, warpselect, drtopk, torch-radix, sort; or auto (bisect, whose options it
    /// takes; rows at least 256 times longer than their k on heap, short rows at k = 1 on
    /// bucket, the same answer)
    #[arg(long, value_name = "ALGO")]
    algo: String,
    /// Number of values to select per row (0 <= K <= M); or --k-per-row
    #[arg(short = 'k', value_name = "K", allow_negative_numbers = true)]
    k: Option<usize>,
    /// A k per row instead of -k: integer (N,) .npy (int8 ... int64, uint8 ... uint64), each
    /// 0 <= k[i] <= M; the outputs are (N, max k[i]), a row that selects fewer padded with
    /// index -1 and value 0 [every algorithm]
    #[arg(long, value_name = "K.npy")]
    k_per_row: Option<PathBuf>,
    /// Row lengths: integer (N,) .npy, 0 <= lengths[i] <= M; row i is its first lengths[i]
    /// values and nothing past them is ever selected; a row shorter than its k selects all its
    /// values, then pads with index -1 and value 0 [every algorithm]
    #[arg(long, value_name = "L.npy")]
    lengths: Option<PathBuf>,
    /// Threshold hints: float32 (<f4) (N,) .npy, a guess of each row's threshold (e.g. the
    /// --threshold of a previous call on similar rows); changes only the work, never the
    /// answer [every algorithm; bisect, sim and cuda start their search from it]
    #[arg(long, value_name = "H.npy")]
    hint: Option<PathBuf>,
    /// Select the K smallest values instead of the K largest (NaN is then chosen last)
    #[arg(long)]
    smallest: bool,
    /// Output in value order (descending; ascending with --smallest), ties by index, instead of
    /// ascending index order
    #[arg(long)]
    sorted: bool,
    #[command(flatten)]
    search: SearchArgs,
    /// Input matrix: 2-D, C-order, little-endian float32 (<f4) or float16 (<f2), for every
    /// algorithm
    #[arg(long, value_name = "X.npy")]
    input: PathBuf,
    /// Output values: (N, K) of the input's dtype (<f4 or <f2), the input's bits at the
    /// selected indices; 0 (all bits zero) for padding
    #[arg(long, value_name = "V.npy")]
    values: Option<PathBuf>,
    /// Output indices: int64 (N, K); -1 for padding (a row that selects fewer than K)
    #[arg(long, value_name = "I.npy")]
    indices: Option<PathBuf>,
    /// Output per-row bisection iteration counts: int64 (N,) [bisect, sim, cuda]; 0 for a row
    /// that selects nothing
    #[arg(long, value_name = "IT.npy")]
    iterations: Option<PathBuf>,
    /// Output per-row thresholds: float32 (<f4) (N,), each row's k-th selected value (largest
    /// mode: the lowest selected; --smallest: the highest), NaN for a row that selects nothing
    #[arg(long, value_name = "T.npy")]
    threshold: Option<PathBuf>,
    /// Exit 1 if the warp simulator reports any finding (a race, a bad shuffle, a contract
    /// violated, ...); its summary goes to stderr either way [sim]
    #[arg(long)]
    fail_on_findings: bool,
    /// Print what the simulated run exercised to stderr: launches per step of the launch
    /// program (`rtopk plan`) and rows per branch inside them (launch families, narrowing, how
    /// the search ended, split rows, sorts, 16-bit paths) [sim]
    #[arg(long)]
    coverage: bool,
}

/// Which of the outputs were asked for, by their index in [`Outputs`].
#[derive(Clone, Copy, Debug, Default)]
struct Slots {
    values: Option<usize>,
    indices: Option<usize>,
    iterations: Option<usize>,
    threshold: Option<usize>,
}

/// The per-row inputs of a ragged request, one entry per row of the input.
#[derive(Clone, Debug, Default)]
struct PerRow {
    k: Option<Vec<usize>>,
    lengths: Option<Vec<usize>>,
    hint: Option<Vec<f32>>,
}

impl PerRow {
    /// Reads the files the arguments name, each of `n` entries.
    fn read(args: &SelectArgs, n: usize) -> Result<Self, CliError> {
        let counts = |path: &Option<PathBuf>, option| {
            path.as_deref().map(|p| npy::read_counts(p, option, n)).transpose()
        };
        Ok(PerRow {
            k: counts(&args.k_per_row, "--k-per-row")?,
            lengths: counts(&args.lengths, "--lengths")?,
            hint: args.hint.as_deref().map(|p| npy::read_f32s(p, "--hint", n)).transpose()?,
        })
    }

    /// `true` when no per-row input was given (the plain path).
    fn is_empty(&self) -> bool {
        self.k.is_none() && self.lengths.is_none() && self.hint.is_none()
    }

    /// `builder` with the entries of `rows`.
    fn apply(&self, mut builder: RequestBuilder, rows: Range<usize>) -> RequestBuilder {
        if let Some(k) = &self.k {
            builder = builder.k_per_row(k[rows.clone()].to_vec());
        }
        if let Some(lengths) = &self.lengths {
            builder = builder.lengths(lengths[rows.clone()].to_vec());
        }
        if let Some(hint) = &self.hint {
            builder = builder.hint(hint[rows].to_vec());
        }
        builder
    }
}

/// The request the arguments describe, but for the per-row inputs: a k per row stands as
/// `k = 0` until its file is read.
fn builder_of(args: &SelectArgs) -> RequestBuilder {
    Request::builder(&args.algo)
        .k(args.k.unwrap_or(0))
        .options(Options { mode: Mode::from_smallest(args.smallest), sorted: args.sorted })
        .params(args.search.params())
        .values(args.values.is_some())
        .indices(args.indices.is_some())
        .iterations(args.iterations.is_some())
        .threshold(args.threshold.is_some())
        .index_width(IndexWidth::I64)
}

/// Runs `rtopk select`.
pub(crate) fn run(args: &SelectArgs) -> Result<(), CliError> {
    // 1. Arguments: one request, checked once by the library.
    let request = builder_of(args).build()?;
    for (flag, on) in [("--fail-on-findings", args.fail_on_findings), ("--coverage", args.coverage)]
    {
        if on && !request.caps().diagnostics {
            let valid = registry::list(&registry::names_where(|c| c.diagnostics));
            return Err(CliError::BadArgument(format!(
                "{flag} is only valid for {valid}, not for '{}'",
                args.algo
            )));
        }
    }

    // 2. The input's header and the per-row files: the dtype against the algorithm's, k (each
    //    k[i]) and the lengths against the shape, one entry per row.
    // docs/contract.md §4: the command line reads `<f4` and `<f2` only (other dtypes are a
    // clear error); the library and the Python package take the other element types
    let mut reader = MatrixReader::open(&args.input)?;
    let dtype = reader.dtype();
    let (n, m) = reader.shape();
    let per_row = PerRow::read(args, n)?;
    let request = per_row.apply(builder_of(args), 0..n).build()?;
    let width = request.check(n, m, dtype).map_err(|e| check_error(args, (n, m), e))?;

    // 3. The outputs' paths, checked and opened (temporary files with their headers).
    let Some(values_dtype) = NpyDtype::of(dtype) else {
        return Err(CliError::BadArgument(format!("{dtype} has no .npy dtype")));
    };
    let (mut outputs, slots) = open_outputs(args, n, width, values_dtype)?;

    // 4. Block by block: read, select, append (in the input's element type).
    let rows_per_block = reader.rows_per_block(DEFAULT_BLOCK_BYTES);
    let base = builder_of(args);
    let job = Job { request: &request, per_row: &per_row, base, width, slots, rows_per_block };
    let (r, o) = (&mut reader, &mut outputs);
    let findings = match dtype {
        Dtype::Float16 => select_blocks::<f16>(r, &job, o)?,
        // `<f4`: the reader takes no other dtype
        _ => select_blocks::<f32>(r, &job, o)?,
    };

    // 5. The simulator's findings, then all outputs in place, or none.
    if let Some(found) = &findings {
        eprintln!("{found}");
        if args.coverage {
            eprintln!("{}", coverage_lines(&found.coverage));
        }
        if args.fail_on_findings && !found.is_clean() {
            return Err(CliError::WrongAnswer(format!(
                "the simulator reported {} finding(s); no output was written",
                found.total
            )));
        }
    }
    Ok(outputs.commit()?)
}

/// The request's refusal of the input's shape, naming the file at fault: the per-row file
/// whose entry is above the row width (`--lengths`, `--k-per-row`), else the input.
fn check_error(args: &SelectArgs, (n, m): (usize, usize), e: rtopk::Error) -> CliError {
    let per_row_file = match &e {
        rtopk::Error::LengthTooLong { .. } => args.lengths.as_ref(),
        rtopk::Error::TopK(rtopk::TopKError::RowKTooLarge { .. }) => args.k_per_row.as_ref(),
        _ => None,
    };
    match (per_row_file, e) {
        (Some(path), e) => CliError::BadArgument(format!("{}: {e}", path.display())),
        (None, rtopk::Error::TopK(source)) => CliError::Shape {
            path: args.input.clone(),
            shape: npy::shape_string(&[n as u64, m as u64]),
            source,
        },
        (None, other) => other.into(),
    }
}

/// The simulated run's coverage as two lines: `steps: NAME xN, ...` and `branches: NAME N, ...`
/// (branches not reached are not listed).
fn coverage_lines(c: &rtopk::sim::Coverage) -> String {
    let steps: Vec<String> = c.steps.iter().map(|(s, n)| format!("{s} x{n}")).collect();
    let branches: Vec<String> =
        c.branches.iter().filter(|(_, n)| **n > 0).map(|(b, n)| format!("{b} {n}")).collect();
    format!("coverage: steps: {}\ncoverage: branches: {}", steps.join(", "), branches.join(", "))
}

/// What every block is asked: the whole request, the per-row inputs (each block takes its
/// rows' entries), the output width and slots, the block size.
struct Job<'a> {
    request: &'a Request,
    per_row: &'a PerRow,
    /// The request but for the per-row inputs.
    base: RequestBuilder,
    width: usize,
    slots: Slots,
    rows_per_block: usize,
}

impl Job<'_> {
    /// The request of the block of rows `rows`: the whole request where no per-row input was
    /// given (the plain path, built once), else one with the block's entries.
    fn block_request(&self, rows: Range<usize>) -> Result<Option<Request>, CliError> {
        if self.per_row.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.per_row.apply(self.base.clone(), rows).build()?))
    }
}

/// Reads every row in blocks of `job.rows_per_block` as elements of `E` (the file's type),
/// selects each block and appends its results; returns the simulator's findings over every
/// block (`sim` only).
fn select_blocks<E: NpyFloat>(
    reader: &mut MatrixReader,
    job: &Job<'_>,
    outputs: &mut Outputs,
) -> Result<Option<SimDiagnostics>, CliError> {
    let m = reader.shape().1;
    let mut block = Vec::<E>::new();
    // One result buffer for every block: a block allocates nothing once it has grown.
    let mut out = Selection::<E>::default();
    let mut findings: Option<SimDiagnostics> = None;
    let mut first = 0;
    loop {
        let rows = reader.read_block(job.rows_per_block, &mut block)?;
        if rows == 0 {
            return Ok(findings);
        }
        let x = ArrayView2::from_shape((rows, m), &block[..])
            .map_err(|e| CliError::BadArgument(format!("block of {rows} rows: {e}")))?;
        let block_request = job.block_request(first..first + rows)?;
        rtopk::select_into(x, block_request.as_ref().unwrap_or(job.request), &mut out)?;
        if let Some(d) = &out.diagnostics {
            findings.get_or_insert_with(SimDiagnostics::default).merge(d);
        }
        append(outputs, job.slots, &out, job.width, job.request.algo())?;
        first += rows;
    }
}

/// The requested outputs, in the order values (of the input's type `values`), indices,
/// iterations, threshold; the matrices are `(n, width)`.
fn open_outputs(
    args: &SelectArgs,
    n: usize,
    width: usize,
    values: NpyDtype,
) -> Result<(Outputs, Slots), CliError> {
    let matrix = vec![n as u64, width as u64];
    let vector = vec![n as u64];
    let wanted = [
        ("--values", &args.values, values, &matrix),
        ("--indices", &args.indices, NpyDtype::I8, &matrix),
        ("--iterations", &args.iterations, NpyDtype::I8, &vector),
        ("--threshold", &args.threshold, NpyDtype::F4, &vector),
    ];
    let mut specs = Vec::new();
    let mut slot = [None; 4];
    for (j, (option, path, dtype, shape)) in wanted.into_iter().enumerate() {
        if let Some(path) = path {
            slot[j] = Some(specs.len());
            specs.push(OutputSpec { option, path, dtype, shape: shape.clone() });
        }
    }
    // Every input file, per-row ones included, is one an output never replaces.
    let inputs: Vec<(&str, &Path)> = [
        ("--input", Some(&args.input)),
        ("--k-per-row", args.k_per_row.as_ref()),
        ("--lengths", args.lengths.as_ref()),
        ("--hint", args.hint.as_ref()),
    ]
    .into_iter()
    .filter_map(|(option, path)| path.map(|p| (option, p.as_path())))
    .collect();
    let outputs = Outputs::create(&specs, &inputs)?;
    let slots =
        Slots { values: slot[0], indices: slot[1], iterations: slot[2], threshold: slot[3] };
    Ok((outputs, slots))
}

/// The index as written: int64, padding as -1 (docs/contract.md §5).
fn index_i64(j: u32) -> i64 {
    if j == PAD_INDEX { -1 } else { i64::from(j) }
}

/// Appends one block's results to the requested outputs, each row padded to `width` (a
/// block's own width is its largest k, which may be less than the whole input's).
fn append<E: NpyFloat>(
    outputs: &mut Outputs,
    slots: Slots,
    out: &Selection<E>,
    width: usize,
    algo: &str,
) -> Result<(), CliError> {
    let topk = &out.topk;
    // a block's rows are its largest k wide, at most the whole input's
    let pad = width.saturating_sub(topk.indices.ncols());
    if let Some(i) = slots.values {
        write_values(outputs, i, &topk.values, pad)?;
    }
    if let Some(i) = slots.indices {
        write_indices(outputs, i, &topk.indices, pad)?;
    }
    if let Some(i) = slots.iterations {
        let Some(counts) = &topk.iterations else {
            return Err(CliError::WrongAnswer(format!(
                "algorithm '{algo}' reported no iteration counts"
            )));
        };
        outputs.write_i64(i, counts.iter().map(|&c| i64::from(c)))?;
    }
    if let Some(i) = slots.threshold {
        let Some(threshold) = &out.threshold else {
            return Err(CliError::WrongAnswer(format!("algorithm '{algo}' reported no threshold")));
        };
        outputs.write_values(i, threshold.iter().copied())?;
    }
    Ok(())
}

/// Appends `values` to output `i`, each row followed by `pad` zeros (all bits zero).
fn write_values<E: NpyFloat>(
    outputs: &mut Outputs,
    i: usize,
    values: &Array2<E>,
    pad: usize,
) -> Result<(), CliError> {
    if pad == 0 {
        outputs.write_values(i, values.iter().copied())?;
    } else {
        let rows = values.outer_iter();
        let padded = rows.flat_map(|r| r.into_iter().copied().chain(repeat_n(E::default(), pad)));
        outputs.write_values(i, padded)?;
    }
    Ok(())
}

/// Appends `indices` to output `i` as int64, padding ([`PAD_INDEX`], and `pad` more entries
/// after each row) as -1.
fn write_indices(
    outputs: &mut Outputs,
    i: usize,
    indices: &Array2<u32>,
    pad: usize,
) -> Result<(), CliError> {
    if pad == 0 {
        outputs.write_i64(i, indices.iter().map(|&j| index_i64(j)))?;
    } else {
        let rows = indices.outer_iter();
        let padded =
            rows.flat_map(|r| r.into_iter().map(|&j| index_i64(j)).chain(repeat_n(-1, pad)));
        outputs.write_i64(i, padded)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Command;
    use std::path::Path;

    /// `select` of `x` (elements of `E`) with blocks of `rows_per_block` rows: the three output
    /// files' bytes.
    fn select_in_blocks<E: NpyFloat>(dir: &Path, x: &Path, rows_per_block: usize) -> Vec<Vec<u8>> {
        let names = ["v.npy", "i.npy", "it.npy"].map(|n| dir.join(format!("{rows_per_block}{n}")));
        let mut reader = MatrixReader::open(x).unwrap();
        let n = reader.shape().0 as u64;
        let spec = |option, path, dtype, shape| OutputSpec { option, path, dtype, shape };
        let specs = [
            spec("--values", &names[0], E::NPY, vec![n, 3]),
            spec("--indices", &names[1], NpyDtype::I8, vec![n, 3]),
            spec("--iterations", &names[2], NpyDtype::I8, vec![n]),
        ];
        let mut outputs = Outputs::create(&specs, &[]).unwrap();
        let slots =
            Slots { values: Some(0), indices: Some(1), iterations: Some(2), threshold: None };
        let base = Request::builder("bisect").k(3).sorted(true).iterations(true);
        let request = base.clone().build().unwrap();
        let per_row = PerRow::default();
        let job =
            Job { request: &request, per_row: &per_row, base, width: 3, slots, rows_per_block };
        select_blocks::<E>(&mut reader, &job, &mut outputs).unwrap();
        outputs.commit().unwrap();
        names.iter().map(|p| std::fs::read(p).unwrap()).collect()
    }

    /// A ragged `select` (bisect, k per row, lengths, hints, every output) of the `<f4` file
    /// `x` with blocks of `rows_per_block` rows: the four output files' bytes.
    fn ragged_in_blocks(
        dir: &Path,
        x: &Path,
        rows_per_block: usize,
        per_row: &PerRow,
    ) -> Vec<Vec<u8>> {
        let names = ["v.npy", "i.npy", "it.npy", "t.npy"]
            .map(|n| dir.join(format!("r{rows_per_block}{n}")));
        let mut reader = MatrixReader::open(x).unwrap();
        let n = reader.shape().0;
        let base = Request::builder("bisect").iterations(true).threshold(true);
        let request = per_row.apply(base.clone(), 0..n).build().unwrap();
        let width = request.k().width();
        let (n, w) = (n as u64, width as u64);
        let spec = |option, path, dtype, shape| OutputSpec { option, path, dtype, shape };
        let specs = [
            spec("--values", &names[0], NpyDtype::F4, vec![n, w]),
            spec("--indices", &names[1], NpyDtype::I8, vec![n, w]),
            spec("--iterations", &names[2], NpyDtype::I8, vec![n]),
            spec("--threshold", &names[3], NpyDtype::F4, vec![n]),
        ];
        let mut outputs = Outputs::create(&specs, &[]).unwrap();
        let slots =
            Slots { values: Some(0), indices: Some(1), iterations: Some(2), threshold: Some(3) };
        let job = Job { request: &request, per_row, base, width, slots, rows_per_block };
        select_blocks::<f32>(&mut reader, &job, &mut outputs).unwrap();
        outputs.commit().unwrap();
        names.iter().map(|p| std::fs::read(p).unwrap()).collect()
    }

    #[test]
    fn ragged_blocks_are_padded_to_the_whole_width() {
        let dir = tempfile::tempdir().unwrap();
        let (n, m) = (9usize, 13usize);
        let data: Vec<f32> = (0..n * m).map(|i| ((i * 7) % 11) as f32).collect();
        let path = dir.path().join("x.npy");
        let mut w = npy::NpyWriter::new(Vec::new(), NpyDtype::F4, &[n as u64, m as u64]).unwrap();
        w.write_values(data.iter().copied()).unwrap();
        std::fs::write(&path, w.finish().unwrap()).unwrap();
        // the widest row comes last: every earlier block is narrower than the output
        let per_row = PerRow {
            k: Some((0..n).collect()),
            lengths: Some((0..n).map(|r| (r * 3) % (m + 1)).collect()),
            hint: Some((0..n).map(|r| r as f32 - 2.0).collect()),
        };
        let whole = ragged_in_blocks(dir.path(), &path, n, &per_row);
        for rows in [1, 2, 4] {
            assert_eq!(ragged_in_blocks(dir.path(), &path, rows, &per_row), whole, "{rows} rows");
        }
        // row 1 (length 3, k 1) selects one value, then 7 entries of padding: -1
        let indices = &whole[1];
        let at = |r: usize, c: usize| {
            let start = indices.len() - 8 * n * 8 + 8 * (r * 8 + c);
            i64::from_le_bytes(indices[start..start + 8].try_into().unwrap())
        };
        assert_eq!((at(1, 0), at(1, 1), at(1, 7)), (1, -1, -1));
        assert_eq!(at(0, 0), -1, "row 0 asks k = 0");
    }

    #[test]
    fn blocks_of_any_size_give_the_whole_matrix_answer() {
        let dir = tempfile::tempdir().unwrap();
        let (n, m) = (11usize, 37usize);
        let specials = [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-40, 2.0];
        let data: Vec<f32> = (0..n * m)
            .map(|i| if i % 6 == 0 { specials[i % 7] } else { ((i * 31) % 17) as f32 - 8.0 })
            .collect();
        let write = |name: &str, npy: NpyDtype, put: &dyn Fn(&mut npy::NpyWriter<Vec<u8>>)| {
            let path = dir.path().join(name);
            let mut w = npy::NpyWriter::new(Vec::new(), npy, &[n as u64, m as u64]).unwrap();
            put(&mut w);
            std::fs::write(&path, w.finish().unwrap()).unwrap();
            path
        };
        let x = write("x.npy", NpyDtype::F4, &|w| w.write_values(data.iter().copied()).unwrap());
        let whole = select_in_blocks::<f32>(dir.path(), &x, n);
        for rows in [1, 2, 4, 10] {
            let blocks = select_in_blocks::<f32>(dir.path(), &x, rows);
            assert_eq!(blocks, whole, "{rows} rows per block");
        }
        // The same rows in float16: `<f2` values, any block size.
        let halves = data.iter().map(|&v| f16::from_f32(v));
        let h = write("h.npy", NpyDtype::F2, &|w| w.write_values(halves.clone()).unwrap());
        let whole16 = select_in_blocks::<f16>(dir.path(), &h, n);
        assert!(String::from_utf8_lossy(&whole16[0][..128]).contains("'descr': '<f2'"));
        for rows in [1, 3] {
            assert_eq!(select_in_blocks::<f16>(dir.path(), &h, rows), whole16, "{rows} rows");
        }
    }

    #[test]
    fn the_help_lists_every_algorithm() {
        let cmd = SelectArgs::augment_args(Command::new("select"));
        let algo = cmd.get_arguments().find(|a| a.get_id() == "algo").unwrap();
        let help = algo.get_help().unwrap().to_string();
        for name in registry::names() {
            assert!(help.contains(name), "{name} missing from --algo's help: {help}");
        }
    }
}
