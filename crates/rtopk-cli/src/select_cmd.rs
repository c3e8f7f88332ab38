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
//! iteration counts are as for float32. An algorithm that takes float32 only (`sim`, `cuda`)
//! refuses it before anything is written.

use std::path::PathBuf;

use clap::{ArgGroup, Args};
use ndarray::ArrayView2;
use rtopk::registry;
use rtopk::{Dtype, IndexWidth, Mode, Options, Request, Selection, SimDiagnostics, f16};
use rtopk_tools::npy::{
    self, DEFAULT_BLOCK_BYTES, MatrixReader, NpyDtype, NpyFloat, OutputSpec, Outputs,
};

use crate::error::CliError;
use crate::search_args::SearchArgs;

/// Arguments of `rtopk select`.
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("outputs").required(true).multiple(true).args(["values", "indices", "iterations"])
))]
pub(crate) struct SelectArgs {
    /// Algorithm: heap, quickselect, radix, bucket, bitonic, bisect (RTop-K Algorithm 1 on the
    /// CPU), sim (the kernel in the warp simulator), cuda (the GPU kernel), or a baseline: air,
    /// gridselect, warpselect, drtopk, torch-radix, sort
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
    #[command(flatten)]
    search: SearchArgs,
    /// Input matrix: 2-D, C-order, little-endian float32 (<f4) or float16 (<f2), for every
    /// algorithm
    #[arg(long, value_name = "X.npy")]
    input: PathBuf,
    /// Output values: (N, K) of the input's dtype (<f4 or <f2), the input's bits at the
    /// selected indices
    #[arg(long, value_name = "V.npy")]
    values: Option<PathBuf>,
    /// Output indices: int64 (N, K)
    #[arg(long, value_name = "I.npy")]
    indices: Option<PathBuf>,
    /// Output per-row bisection iteration counts: int64 (N,) [bisect, sim, cuda]
    #[arg(long, value_name = "IT.npy")]
    iterations: Option<PathBuf>,
    /// Exit 1 if the warp simulator reports any finding (a race, a bad shuffle, a contract
    /// violated, ...); its summary goes to stderr either way [sim]
    #[arg(long)]
    fail_on_findings: bool,
}

/// Which of the outputs were asked for, by their index in [`Outputs`].
#[derive(Clone, Copy, Debug, Default)]
struct Slots {
    values: Option<usize>,
    indices: Option<usize>,
    iterations: Option<usize>,
}

/// Runs `rtopk select`.
pub(crate) fn run(args: &SelectArgs) -> Result<(), CliError> {
    // 1. Arguments: one request, checked once by the library.
    let request = Request::builder(&args.algo)
        .k(args.k)
        .options(Options { mode: Mode::from_smallest(args.smallest), sorted: args.sorted })
        .params(args.search.params())
        .values(args.values.is_some())
        .indices(args.indices.is_some())
        .iterations(args.iterations.is_some())
        .index_width(IndexWidth::I64)
        .build()?;
    if args.fail_on_findings && !request.caps().diagnostics {
        let valid = registry::list(&registry::names_where(|c| c.diagnostics));
        return Err(CliError::BadArgument(format!(
            "--fail-on-findings is only valid for {valid}, not for '{}'",
            args.algo
        )));
    }

    // 2. The input's header: its dtype against the algorithm's, k against its shape.
    let mut reader = MatrixReader::open(&args.input)?;
    let dtype = reader.dtype();
    let (n, m) = reader.shape();
    request.check(n, m, dtype).map_err(|e| match e {
        rtopk::Error::TopK(source) => CliError::Shape {
            path: args.input.clone(),
            shape: npy::shape_string(&[n as u64, m as u64]),
            source,
        },
        other => other.into(),
    })?;

    // 3. The outputs' paths, checked and opened (temporary files with their headers).
    let Some(values_dtype) = NpyDtype::of(dtype) else {
        return Err(CliError::BadArgument(format!("{dtype} has no .npy dtype")));
    };
    let (mut outputs, slots) = open_outputs(args, n, values_dtype)?;

    // 4. Block by block: read, select, append (in the input's element type).
    let rows_per_block = reader.rows_per_block(DEFAULT_BLOCK_BYTES);
    let findings = match dtype {
        Dtype::Float16 => {
            select_blocks::<f16>(&mut reader, &request, &mut outputs, slots, rows_per_block)?
        }
        _ => select_blocks::<f32>(&mut reader, &request, &mut outputs, slots, rows_per_block)?,
    };

    // 5. The simulator's findings, then all outputs in place, or none.
    if let Some(found) = &findings {
        eprintln!("{found}");
        if args.fail_on_findings && !found.is_clean() {
            return Err(CliError::WrongAnswer(format!(
                "the simulator reported {} finding(s); no output was written",
                found.total
            )));
        }
    }
    Ok(outputs.commit()?)
}

/// Reads every row in blocks of `rows_per_block` as elements of `E` (the file's type), selects
/// each block and appends its results; returns the simulator's findings over every block
/// (`sim` only).
fn select_blocks<E: NpyFloat>(
    reader: &mut MatrixReader,
    request: &Request,
    outputs: &mut Outputs,
    slots: Slots,
    rows_per_block: usize,
) -> Result<Option<SimDiagnostics>, CliError> {
    let m = reader.shape().1;
    let mut block = Vec::<E>::new();
    // One result buffer for every block: a block allocates nothing once it has grown.
    let mut out = Selection::<E>::default();
    let mut findings: Option<SimDiagnostics> = None;
    loop {
        let rows = reader.read_block(rows_per_block, &mut block)?;
        if rows == 0 {
            return Ok(findings);
        }
        let x = ArrayView2::from_shape((rows, m), &block[..])
            .map_err(|e| CliError::BadArgument(format!("block of {rows} rows: {e}")))?;
        rtopk::select_into(x, request, &mut out)?;
        if let Some(d) = &out.diagnostics {
            findings.get_or_insert_with(SimDiagnostics::default).merge(d);
        }
        append(outputs, slots, &out, request.algo())?;
    }
}

/// The requested outputs, in the order values (of the input's type `values`), indices,
/// iterations.
fn open_outputs(
    args: &SelectArgs,
    n: usize,
    values: NpyDtype,
) -> Result<(Outputs, Slots), CliError> {
    let matrix = vec![n as u64, args.k as u64];
    let wanted = [
        ("--values", &args.values, values, &matrix),
        ("--indices", &args.indices, NpyDtype::I8, &matrix),
        ("--iterations", &args.iterations, NpyDtype::I8, &vec![n as u64]),
    ];
    let mut specs = Vec::new();
    let mut slot = [None; 3];
    for (j, (option, path, dtype, shape)) in wanted.into_iter().enumerate() {
        if let Some(path) = path {
            slot[j] = Some(specs.len());
            specs.push(OutputSpec { option, path, dtype, shape: shape.clone() });
        }
    }
    let outputs = Outputs::create(&specs, &[("--input", &args.input)])?;
    Ok((outputs, Slots { values: slot[0], indices: slot[1], iterations: slot[2] }))
}

/// Appends one block's results to the requested outputs.
fn append<E: NpyFloat>(
    outputs: &mut Outputs,
    slots: Slots,
    out: &Selection<E>,
    algo: &str,
) -> Result<(), CliError> {
    let out = &out.topk;
    if let Some(i) = slots.values {
        outputs.write_values(i, out.values.iter().copied())?;
    }
    if let Some(i) = slots.indices {
        outputs.write_i64(i, out.indices.iter().map(|&j| i64::from(j)))?;
    }
    if let Some(i) = slots.iterations {
        let Some(counts) = &out.iterations else {
            return Err(CliError::WrongAnswer(format!(
                "algorithm '{algo}' reported no iteration counts"
            )));
        };
        outputs.write_i64(i, counts.iter().map(|&c| i64::from(c)))?;
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
        let slots = Slots { values: Some(0), indices: Some(1), iterations: Some(2) };
        let request = Request::builder("bisect").k(3).sorted(true).iterations(true).build();
        let request = request.unwrap();
        select_blocks::<E>(&mut reader, &request, &mut outputs, slots, rows_per_block).unwrap();
        outputs.commit().unwrap();
        names.iter().map(|p| std::fs::read(p).unwrap()).collect()
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
