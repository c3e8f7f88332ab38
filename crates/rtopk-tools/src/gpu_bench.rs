//! The GPU benchmark harness behind `rtopk bench cuda`: the paper's case grids and the split,
//! vector and wide regimes, inputs rotated past L2, each case timed between CUDA events (median of the
//! repetitions after two warm-ups), one JSON row per case against the device's read bandwidth
//! measured in the same run. Also the first call's breakdown ([`startup`]) and NVRTC's time per
//! unit, which needs no GPU ([`compile_table`]).
//!
//! Inputs ([`InputSource`]): normal values drawn on the device, a distinct draw in every
//! rotation buffer (the recorded runs' method); any other family of
//! `topk_ref::inputs::Family` generated on the host, row for row `Family::matrix(n, m, seed)`,
//! and uploaded; or the caller's own matrix ([`Bench::load`]). The rotation buffers of a
//! host-made input are copies of that one input.

use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use rtopk_cuda::{CudaError, CudaSlice, CudaStream, CudaTopK, Launch, Strategy, UnitReport};
use serde::Serialize;
use topk_ref::inputs::{self, Family as InputFamily};
use topk_ref::{Bisect, Mode, Options, TopKError};

use crate::verify;

pub use rtopk_cuda::bench::{CompileRow, compile_table};

/// The error of a failed driver call `during` something.
fn driver(during: &'static str) -> impl FnOnce(rtopk_cuda::DriverError) -> CudaError {
    move |source| CudaError::Driver { during, source }
}

/// Host bytes per block of generated rows: large enough that the upload of a block costs
/// little beside its generation, small enough that host memory is one block, not the input.
const BLOCK_BYTES: usize = 64 << 20;
/// Device memory left free beside a shape's inputs and outputs when the rotation buffers are
/// counted: room for a launch's own scratch (counters, candidate buffers) and the driver.
const HEADROOM_BYTES: u64 = 256 << 20;
/// The most rotation buffers of one shape.
const MAX_BUFFERS: u64 = 32;

/// A case grid: the paper's, or one of the split, vector and wide regimes (rows too few or too long to fill
/// the GPU one row per warp or block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// RTop-K Figure 4 / Table 3: N = 2^14..2^20, M = 256, 512, 768, k = 16..128, exact,
    /// max_iter 2..8, and 0 (load and select only, to see where the time goes).
    Rtopk,
    /// RTop-K Appendix B (Figure 6): N = 65536, M = 1024..8192, k = 64..512.
    AppendixB,
    /// Long rows: N = 16384, M = 16384..65536, k = 64 and 512.
    Long,
    /// Few rows of LLM-vocabulary width: N = 1..1024, M = 32768..1048576, k = 50, 256, 1024.
    Split,
    /// One long vector (Dr. Top-k's and AIR's regime): N = 1, M = 2^24, 2^26, 2^28,
    /// k = 64, 1024, 16384.
    Vector,
    /// Wide layers: N = 16384, M = 16384..65536, k = 50, 256, 1024.
    Wide,
    /// Sparse-attention indexers (DeepSeek's DSA: k = 512..2048 of a query's 4K..1M scores) in
    /// decode and prefill: N = 1..256, M = 16384..2^21, k = 512, 1024, 2048.
    Indexer,
    /// LLM samplers: N = 1, 16, 128 over vocabularies M = 32000, 100352, 262144, k = 20, 64, 1024.
    Sampler,
    /// One vector with k in the thousands: N = 1, M = 2^22, 2^25, 2^28,
    /// k = 256, 2048, 8192, 32768.
    VectorK,
}

impl Grid {
    /// Every grid.
    pub const ALL: [Grid; 9] = [
        Grid::Rtopk,
        Grid::AppendixB,
        Grid::Long,
        Grid::Split,
        Grid::Vector,
        Grid::Wide,
        Grid::Indexer,
        Grid::Sampler,
        Grid::VectorK,
    ];
    /// The paper's grids: what `all` names (the default run, comparable with the records).
    pub const PAPER: [Grid; 3] = [Grid::Rtopk, Grid::AppendixB, Grid::Long];
    /// The split-rows regimes: what `regimes` names.
    pub const REGIMES: [Grid; 3] = [Grid::Split, Grid::Vector, Grid::Wide];
    /// Large k and few rows (indexers, samplers, vectors): what `large-k` names.
    pub const LARGE_K: [Grid; 3] = [Grid::Indexer, Grid::Sampler, Grid::VectorK];

    /// The grid's name (`rtopk`, `appendix-b`, `long`, `split`, `vector`, `wide`, `indexer`,
    /// `sampler`, `vector-k`).
    pub fn name(self) -> &'static str {
        match self {
            Grid::Rtopk => "rtopk",
            Grid::AppendixB => "appendix-b",
            Grid::Long => "long",
            Grid::Split => "split",
            Grid::Vector => "vector",
            Grid::Wide => "wide",
            Grid::Indexer => "indexer",
            Grid::Sampler => "sampler",
            Grid::VectorK => "vector-k",
        }
    }

    /// The grids `names` stands for: comma-separated grid names, `all` (the paper's grids),
    /// `regimes` (split, vector, wide) or `large-k` (indexer, sampler, vector-k), in the order
    /// given, each grid once; `None` if a name is unknown.
    pub fn parse(names: &str) -> Option<Vec<Grid>> {
        let mut out = Vec::new();
        for name in names.split(',').map(str::trim) {
            let grids = match name {
                "all" => Self::PAPER.to_vec(),
                "regimes" => Self::REGIMES.to_vec(),
                "large-k" => Self::LARGE_K.to_vec(),
                _ => vec![Self::ALL.into_iter().find(|g| g.name() == name)?],
            };
            for g in grids {
                if !out.contains(&g) {
                    out.push(g);
                }
            }
        }
        Some(out)
    }

    /// The grid's cases, in index order (the k of one shape together, so that each shape's
    /// input is made once).
    pub fn cases(self) -> Vec<Case> {
        let mut out = Vec::new();
        let case = |n, m, k, max_iter| Case { n, m, k, max_iter, sorted: false, recall: None };
        let exact = |ns: &[usize], ms: &[usize], ks: &[usize], out: &mut Vec<Case>| {
            for &n in ns {
                for &m in ms {
                    out.extend(ks.iter().map(|&k| case(n, m, k, None)));
                }
            }
        };
        match self {
            Grid::Rtopk => {
                for n in [1 << 14, 1 << 16, 1 << 18, 1 << 20] {
                    for m in [256, 512, 768] {
                        for k in [16, 32, 64, 96, 128] {
                            let searches = [None, Some(0), Some(2), Some(3), Some(4), Some(5)];
                            for max_iter in searches.into_iter().chain([Some(6), Some(7), Some(8)])
                            {
                                out.push(case(n, m, k, max_iter));
                            }
                        }
                    }
                }
            }
            Grid::AppendixB => {
                let ms: Vec<usize> = (1..=8).map(|i| i * 1024).collect();
                exact(&[65536], &ms, &[64, 128, 256, 512], &mut out);
            }
            Grid::Long => exact(&[16384], &[16384, 32768, 65536], &[64, 512], &mut out),
            Grid::Split => exact(
                &[1, 4, 16, 64, 256, 1024],
                &[32768, 131072, 262144, 1 << 20],
                &[50, 256, 1024],
                &mut out,
            ),
            Grid::Vector => exact(&[1], &[1 << 24, 1 << 26, 1 << 28], &[64, 1024, 16384], &mut out),
            Grid::Wide => exact(&[16384], &[16384, 32768, 65536], &[50, 256, 1024], &mut out),
            Grid::Indexer => exact(
                &[1, 2, 8, 32, 96, 256],
                &[16384, 49152, 100000, 163840, 500000, 1 << 21],
                &[512, 1024, 2048],
                &mut out,
            ),
            Grid::Sampler => {
                exact(&[1, 16, 128], &[32000, 100352, 262144], &[20, 64, 1024], &mut out)
            }
            Grid::VectorK => {
                exact(&[1], &[1 << 22, 1 << 25, 1 << 28], &[256, 2048, 8192, 32768], &mut out)
            }
        }
        out
    }
}

/// One benchmark case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Case {
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
    /// Early stopping after this many steps; `None`: exact.
    pub max_iter: Option<u32>,
    /// Sorted output (the sort launch included in the time).
    pub sorted: bool,
    /// A recall target (docs/contract.md §6) instead of the exact search; `None`: exact.
    pub recall: Option<f32>,
}

impl Case {
    /// The case as a launch in `mode`.
    pub fn launch(&self, mode: Mode) -> Launch {
        let bisect = match (self.max_iter, self.recall) {
            (Some(n), _) => Bisect::early_stopping(n),
            (None, Some(r)) => Bisect { recall: (r < 1.0).then_some(r), ..Bisect::exact() },
            (None, None) => Bisect::exact(),
        };
        Launch {
            n: self.n,
            m: self.m,
            k: self.k,
            mode,
            bisect,
            sorted: self.sorted,
            elem: rtopk_cuda::ElemType::F32,
        }
    }

    /// Bytes of the case's outputs on the device (values, indices, iteration counts).
    fn output_bytes(&self) -> u64 {
        let (n, k) = (self.n as u64, self.k as u64);
        n.saturating_mul(k).saturating_mul(8).saturating_add(n.saturating_mul(4))
    }
}

/// The cases of `grids`, each exact case followed by its sorted twin (same inputs, right
/// after).
pub fn grid_cases(grids: &[Grid]) -> Vec<Case> {
    let mut out = Vec::new();
    for case in grids.iter().flat_map(|g| g.cases()) {
        out.push(case);
        if case.max_iter.is_none() {
            out.push(Case { sorted: true, ..case });
        }
    }
    out
}

/// `cases` with each exact unsorted case followed by its twin at recall target `recall`
/// (same inputs, right after), so that the two times sit side by side.
pub fn with_recall_twins(cases: &[Case], recall: f32) -> Vec<Case> {
    let mut out = Vec::with_capacity(cases.len() * 2);
    for &case in cases {
        out.push(case);
        if case.max_iter.is_none() && case.recall.is_none() && !case.sorted {
            out.push(Case { recall: Some(recall), ..case });
        }
    }
    out
}

/// How the cases are run.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Timed launches per case (median reported), after 2 warm-up launches.
    pub reps: usize,
    /// Largest or smallest.
    pub mode: Mode,
    /// Time each launch from an idle GPU (host submission included) instead of queued behind
    /// a spin kernel.
    pub idle_start: bool,
    /// The launch strategy.
    pub strategy: Strategy,
}

/// Where a run's input values come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSource {
    /// Standard normal values drawn on the device (`fill_normal`), a distinct draw in every
    /// rotation buffer: the recorded runs' inputs, kept so that they stay comparable.
    DeviceNormal,
    /// Row `r` of the shape is row `r` of `family.matrix(n, m, seed)`
    /// (`topk_ref::inputs::Family`), generated on the host (rows in parallel, one block of
    /// rows in memory at a time) and uploaded once; the rotation buffers are copies of it.
    Host {
        /// The family.
        family: InputFamily,
        /// The generator's seed.
        seed: u64,
    },
    /// The caller's matrix, uploaded once by [`Bench::load`]; the rotation buffers are copies
    /// of it.
    Given {
        /// What the rows are called in the results (a file's path).
        label: String,
    },
}

impl InputSource {
    /// The source of generated `family` rows: normal ones on the device (`seed` unused, as in
    /// the records), any other family on the host from `seed`.
    pub fn generated(family: InputFamily, seed: u64) -> Self {
        match family {
            InputFamily::Normal => InputSource::DeviceNormal,
            family => InputSource::Host { family, seed },
        }
    }

    /// The input's name in the results: the family's, or the caller's label.
    pub fn label(&self) -> String {
        match self {
            InputSource::DeviceNormal => InputFamily::Normal.name().to_string(),
            InputSource::Host { family, .. } => family.name().to_string(),
            InputSource::Given { label } => label.clone(),
        }
    }

    /// The host generator's seed, if the rows come from it.
    pub fn seed(&self) -> Option<u64> {
        match self {
            InputSource::Host { seed, .. } => Some(*seed),
            _ => None,
        }
    }

    /// What the rotation buffers of a shape hold.
    pub fn rotation(&self) -> &'static str {
        match self {
            InputSource::DeviceNormal => "distinct draws",
            _ => "copies of one input",
        }
    }

    /// One line on how the input is made and rotated.
    pub fn describe(&self) -> String {
        match self {
            InputSource::DeviceNormal => "normal values drawn on the device, a distinct draw in \
                                          each rotation buffer"
                .to_string(),
            InputSource::Host { family, seed } => format!(
                "{family} rows generated on the host (Family::matrix, seed {seed}) and uploaded; \
                 the rotation buffers are copies of that one input"
            ),
            InputSource::Given { label } => format!(
                "the rows of {label}, uploaded once; the rotation buffers are copies of that one \
                 input"
            ),
        }
    }
}

/// One case's result, as `rtopk bench cuda --json` writes it.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The device's name.
    pub device: String,
    /// The input: a family's name, or the caller's label for their matrix (a file's path).
    pub input: String,
    /// The host generator's seed (`None`: normal values drawn on the device, or the caller's
    /// matrix).
    pub seed: Option<u64>,
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
    /// Early stopping steps; `None`: exact.
    pub max_iter: Option<u32>,
    /// The recall target (docs/contract.md §6); `None`: none.
    pub recall: Option<f32>,
    /// Smallest mode.
    pub smallest: bool,
    /// Results in sorted order (the sort launch included in the time).
    pub sorted: bool,
    /// Median milliseconds.
    pub median_ms: f64,
    /// Fastest milliseconds.
    pub min_ms: f64,
    /// Input bytes read per second (the input is read once).
    pub gbps: f64,
    /// `gbps` over the device's read bandwidth measured in this run.
    pub read_bw_fraction: f64,
    /// Input plus output bytes per second.
    pub total_gbps: f64,
    /// Timed launches.
    pub reps: usize,
    /// Input buffers the launches rotate through.
    pub input_buffers: usize,
    /// What the buffers hold: "distinct draws" or "copies of one input".
    pub rotation: &'static str,
    /// "queued" (a spin kernel ahead of the start event) or "idle-start".
    pub timing: &'static str,
}

/// The number of elements of an `(n, m)` float32 input, if its bytes fit 64 bits.
fn input_len(n: usize, m: usize) -> Result<usize, CudaError> {
    n.checked_mul(m)
        .filter(|len| len.checked_mul(4).is_some())
        .ok_or(CudaError::TopK(TopKError::TooLarge { what: "benchmark input", n, m }))
}

/// How many buffers one shape's input rotates through: enough that a pass over all of them
/// moves 4 times the L2 size through L2 (no launch finds its input there; one buffer once the
/// input alone is 4 times the L2), at most 32, and no more than `spare` bytes of
/// device memory hold beside the first.
pub fn rotation_buffers(input_bytes: u64, l2_bytes: u64, spare: u64) -> usize {
    let bytes = input_bytes.max(1);
    let wanted = l2_bytes.saturating_mul(4).div_ceil(bytes).clamp(1, MAX_BUFFERS);
    let fit = (spare / bytes).saturating_add(1);
    wanted.min(fit) as usize
}

/// Rows `first .. first + rows` of `family.matrix(_, m, seed)` into `out` (cleared; its
/// capacity kept, grown with `try_reserve`), rows in parallel: each row depends only on
/// `(seed, family, its index)`, not on the blocks or the threads.
pub fn generate_rows(
    family: InputFamily,
    seed: u64,
    m: usize,
    first: usize,
    rows: usize,
    out: &mut Vec<f32>,
) -> Result<(), CudaError> {
    let too_large = || CudaError::TopK(TopKError::TooLarge { what: "block of rows", n: rows, m });
    let len = rows.checked_mul(m).ok_or_else(too_large)?;
    first.checked_add(rows).ok_or_else(too_large)?;
    out.clear();
    out.try_reserve_exact(len).map_err(|_| too_large())?;
    out.resize(len, 0.0);
    // the stream `Family::matrix` draws its rows from
    let stream = inputs::stream_id(family.name(), &[]);
    if m > 0 {
        out.par_chunks_mut(m)
            .enumerate()
            .for_each(|(r, row)| family.row(seed, stream, (first + r) as u64, row));
    }
    Ok(())
}

/// Rows per block of [`BLOCK_BYTES`] (at least one).
fn block_rows(m: usize) -> usize {
    BLOCK_BYTES.checked_div(m.saturating_mul(4)).unwrap_or(1).max(1)
}

/// The seed of rotation buffer `b` of an `(n, m)` device-normal input (the records' seeds).
fn normal_seed(n: usize, m: usize, b: usize) -> u64 {
    (n as u64)
        .wrapping_mul(1_000_003)
        .wrapping_add((m as u64).wrapping_mul(101))
        .wrapping_add(b as u64)
}

/// The caller's rows going into a shape's first input buffer, block by block, in row order
/// ([`Bench::load`]).
pub struct Upload<'a> {
    stream: &'a Arc<CudaStream>,
    x: &'a mut CudaSlice<f32>,
    filled: usize,
    expected: usize,
}

impl Upload<'_> {
    /// Copies `values` (whole rows, row-major) after the rows already given. Returns once the
    /// copy is done, so the caller may reuse the block at once.
    pub fn rows(&mut self, values: &[f32]) -> Result<(), CudaError> {
        let end = self.filled.checked_add(values.len()).filter(|&end| end <= self.expected);
        let Some(end) = end else {
            return Err(CudaError::TopK(TopKError::InvalidParameter {
                name: "input",
                reason: format!(
                    "{} values given after {} for an input of {}",
                    values.len(),
                    self.filled,
                    self.expected
                ),
            }));
        };
        if values.is_empty() {
            return Ok(());
        }
        let mut dst = self.x.try_slice_mut(self.filled..end).ok_or(CudaError::TooLarge {
            n: self.expected,
            m: 1,
            why: "the input buffer is shorter than the input",
        })?;
        self.stream.memcpy_htod(values, &mut dst).map_err(driver("copying the input"))?;
        self.stream.synchronize().map_err(driver("copying the input"))?;
        self.filled = end;
        Ok(())
    }

    /// Fails unless every value of the input was given.
    fn finish(&self) -> Result<(), CudaError> {
        if self.filled == self.expected {
            return Ok(());
        }
        Err(CudaError::TopK(TopKError::InvalidParameter {
            name: "input",
            reason: format!("{} of its {} values were given", self.filled, self.expected),
        }))
    }
}

/// A shape's first input buffer, before it is filled.
struct First {
    buffer: CudaSlice<f32>,
    /// Its elements (the buffer holds at least one).
    len: usize,
    /// The rotation buffers the device's memory holds, this one included.
    count: usize,
}

/// Input buffers of one `(n, m)`, enough of them that cycling through them evicts L2.
struct Inputs {
    n: usize,
    m: usize,
    source: InputSource,
    buffers: Vec<CudaSlice<f32>>,
}

/// A benchmark run on one device.
pub struct Bench<'a> {
    gpu: &'a CudaTopK,
    settings: Settings,
    l2: usize,
    read_gbps: f64,
    source: InputSource,
    inputs: Option<Inputs>,
    /// The largest outputs of the prepared cases: device memory the rotation leaves free.
    output_reserve: u64,
}

impl<'a> Bench<'a> {
    /// Starts a run on normal values drawn on the device: reads the L2 size and measures the
    /// read bandwidth (2 GiB read once per launch, median of 20).
    pub fn new(gpu: &'a CudaTopK, settings: Settings) -> Result<Self, CudaError> {
        if settings.reps == 0 {
            return Err(CudaError::TopK(TopKError::InvalidParameter {
                name: "reps",
                reason: "at least one timed launch per case".into(),
            }));
        }
        let l2 = gpu.l2_bytes()?;
        let (n, m) = (1 << 16, 1 << 13);
        let mut probe = gpu.stream().alloc_zeros::<f32>(n * m).map_err(driver("allocating"))?;
        gpu.fill_normal(&mut probe, normal_seed(n, m, 0))?;
        let read_gbps = gpu.read_bandwidth_gbps(&probe, 20)?;
        Ok(Self {
            gpu,
            settings,
            l2,
            read_gbps,
            source: InputSource::DeviceNormal,
            inputs: None,
            output_reserve: 0,
        })
    }

    /// The device's read bandwidth in GB/s, measured at the start of the run.
    pub fn read_gbps(&self) -> f64 {
        self.read_gbps
    }

    /// The device's L2 size in bytes.
    pub fn l2_bytes(&self) -> usize {
        self.l2
    }

    /// Where the inputs of the next cases come from.
    pub fn source(&self) -> &InputSource {
        &self.source
    }

    /// Generates the next cases' inputs from `family` (see [`InputSource::generated`]).
    pub fn generate(&mut self, family: InputFamily, seed: u64) {
        self.source = InputSource::generated(family, seed);
    }

    /// Builds, in parallel, every unit the cases launch (their plans say which), so that no
    /// compilation falls inside a timed case; and notes the largest outputs, which the input
    /// rotation leaves room for.
    pub fn prepare(&mut self, cases: &[Case]) -> Result<(), CudaError> {
        let mut units = Vec::new();
        for case in cases {
            let launch = case.launch(self.settings.mode);
            units.extend(self.gpu.route(&launch, self.settings.strategy, false)?.units());
            self.output_reserve = self.output_reserve.max(case.output_bytes());
        }
        self.gpu.prepare(&units)
    }

    /// Uploads the caller's `(n, m)` matrix, labelled `label`: `fill` hands its rows, in
    /// order, to the [`Upload`]; then the rotation buffers are copied from it. The following
    /// cases must have this shape.
    pub fn load<E: From<CudaError>>(
        &mut self,
        n: usize,
        m: usize,
        label: String,
        fill: impl FnOnce(&mut Upload<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        drop(self.inputs.take()); // free the previous input first
        let source = InputSource::Given { label };
        let First { buffer: mut first, len, count } =
            self.first_buffer(n, m, self.output_reserve)?;
        let mut upload =
            Upload { stream: self.gpu.stream(), x: &mut first, filled: 0, expected: len };
        fill(&mut upload)?;
        upload.finish()?;
        self.inputs = Some(self.with_copies(n, m, source.clone(), first, count)?);
        self.source = source;
        Ok(())
    }

    /// Times one case: 2 warm-up launches, then `reps` launches each between CUDA events, the
    /// input rotating through the buffers.
    pub fn run(&mut self, case: Case) -> Result<Row, CudaError> {
        let fresh = |i: &Inputs| (i.n, i.m) == (case.n, case.m) && i.source == self.source;
        if !self.inputs.as_ref().is_some_and(fresh) {
            if let InputSource::Given { label } = &self.source {
                return Err(CudaError::TopK(TopKError::InvalidParameter {
                    name: "case",
                    reason: format!("({}, {}) is not the shape of {label}", case.n, case.m),
                }));
            }
            drop(self.inputs.take()); // free the previous shape's buffers first
            let reserve = self.output_reserve.max(case.output_bytes());
            self.inputs = Some(self.generated(case.n, case.m, reserve)?);
        }
        let inputs = self.inputs.as_ref().ok_or(CudaError::TooLarge {
            n: case.n,
            m: case.m,
            why: "no inputs",
        })?;
        let (median_ms, min_ms) = self.time_case(inputs, case)?;
        let in_bytes = case.n as f64 * case.m as f64 * 4.0;
        let out_bytes = case.output_bytes() as f64;
        let gbps = in_bytes / (median_ms * 1e-3) / 1e9;
        Ok(Row {
            device: self.gpu.device_name().to_string(),
            input: inputs.source.label(),
            seed: inputs.source.seed(),
            n: case.n,
            m: case.m,
            k: case.k,
            max_iter: case.max_iter,
            recall: case.recall,
            smallest: self.settings.mode == Mode::Smallest,
            sorted: case.sorted,
            median_ms,
            min_ms,
            gbps,
            read_bw_fraction: gbps / self.read_gbps,
            total_gbps: (in_bytes + out_bytes) / (median_ms * 1e-3) / 1e9,
            reps: self.settings.reps,
            input_buffers: inputs.buffers.len(),
            rotation: inputs.source.rotation(),
            timing: if self.settings.idle_start { "idle-start" } else { "queued" },
        })
    }

    /// The first input buffer of an `(n, m)` input (zeroed), and how many buffers the
    /// rotation will hold: checked against the device's free memory, `reserve` bytes of
    /// outputs and [`HEADROOM_BYTES`] left beside them.
    fn first_buffer(&self, n: usize, m: usize, reserve: u64) -> Result<First, CudaError> {
        let len = input_len(n, m)?;
        let bytes = len as u64 * 4;
        // buffers dropped before are freed on the stream: wait, so that free memory counts them
        self.gpu.stream().synchronize().map_err(driver("waiting for the GPU"))?;
        let (free, _) = self.gpu.context().mem_get_info().map_err(driver("reading free memory"))?;
        let spare = (free as u64).checked_sub(bytes.saturating_add(reserve)).ok_or(
            CudaError::TopK(TopKError::TooLarge { what: "input and outputs on the device", n, m }),
        )?;
        let count = rotation_buffers(bytes, self.l2 as u64, spare.saturating_sub(HEADROOM_BYTES));
        let alloc = driver("allocating inputs");
        let buffer = self.gpu.stream().alloc_zeros::<f32>(len.max(1)).map_err(alloc)?;
        Ok(First { buffer, len, count })
    }

    /// A generated `(n, m)` input in its rotation buffers.
    fn generated(&self, n: usize, m: usize, reserve: u64) -> Result<Inputs, CudaError> {
        let First { buffer: mut first, len, count } = self.first_buffer(n, m, reserve)?;
        let source = self.source.clone();
        match source {
            InputSource::DeviceNormal => {
                self.gpu.fill_normal(&mut first, normal_seed(n, m, 0))?;
                let mut buffers = vec![first];
                for b in 1..count {
                    let alloc = driver("allocating inputs");
                    let mut x = self.gpu.stream().alloc_zeros::<f32>(len.max(1)).map_err(alloc)?;
                    self.gpu.fill_normal(&mut x, normal_seed(n, m, b))?;
                    buffers.push(x);
                }
                Ok(Inputs { n, m, source, buffers })
            }
            InputSource::Host { family, seed } => {
                let mut upload =
                    Upload { stream: self.gpu.stream(), x: &mut first, filled: 0, expected: len };
                let (per_block, mut block) = (block_rows(m), Vec::new());
                for start in (0..n).step_by(per_block) {
                    generate_rows(family, seed, m, start, per_block.min(n - start), &mut block)?;
                    upload.rows(&block)?;
                }
                upload.finish()?;
                self.with_copies(n, m, source, first, count)
            }
            InputSource::Given { label } => Err(CudaError::TopK(TopKError::InvalidParameter {
                name: "input",
                reason: format!("{label} is given, not generated"),
            })),
        }
    }

    /// `first` and `count - 1` device copies of it.
    fn with_copies(
        &self,
        n: usize,
        m: usize,
        source: InputSource,
        first: CudaSlice<f32>,
        count: usize,
    ) -> Result<Inputs, CudaError> {
        let s = self.gpu.stream();
        let mut buffers = Vec::with_capacity(count);
        for _ in 1..count {
            buffers.push(s.clone_dtod(&first).map_err(driver("copying inputs"))?);
        }
        buffers.insert(0, first);
        Ok(Inputs { n, m, source, buffers })
    }

    /// (median, min) milliseconds of one case.
    fn time_case(&self, inputs: &Inputs, case: Case) -> Result<(f64, f64), CudaError> {
        let Settings { reps, mode, idle_start, strategy } = self.settings;
        let launch = case.launch(mode);
        let gpu = self.gpu;
        let s = gpu.stream();
        let nk = case.n.checked_mul(case.k).filter(|nk| nk.checked_mul(8).is_some()).ok_or(
            CudaError::TopK(TopKError::TooLarge { what: "outputs", n: case.n, m: case.k }),
        )?;
        let alloc = driver("allocating outputs");
        let mut val = s.alloc_zeros::<f32>(nk.max(1)).map_err(alloc)?;
        let alloc = driver("allocating outputs");
        let mut idx = s.alloc_zeros::<u32>(nk.max(1)).map_err(alloc)?;
        let mut times = Vec::with_capacity(reps);
        for r in 0..reps + 2 {
            let x = &inputs.buffers[r % inputs.buffers.len()];
            // no iteration counts, as torch.topk and the peers compute none: the route may split
            // rows (rtopk-plan's `split`)
            let work = || gpu.select_device_opt(&launch, strategy, x, &mut val, &mut idx, None);
            let ms = if idle_start { gpu.time_ms_idle_start(work)? } else { gpu.time_ms(work)? };
            if r >= 2 {
                times.push(ms);
            }
        }
        times.sort_by(f64::total_cmp);
        Ok((times[times.len() / 2], times[0]))
    }
}

/// What a process's first top-k took, from opening the device to the results on the host.
#[derive(Clone, Debug)]
pub struct Startup {
    /// The device's name.
    pub device: String,
    /// Milliseconds to open the device ([`CudaTopK::new`]: driver, context, limits).
    pub open_ms: f64,
    /// Milliseconds of the first `topk_rows` (builds and loads its units, copies, runs).
    pub first_ms: f64,
    /// Milliseconds of the same call again (everything loaded).
    pub second_ms: f64,
    /// The units the first call built and loaded.
    pub units: Vec<UnitReport>,
}

/// Opens device `ordinal` and runs `case` twice with [`CudaTopK::topk_rows_with`] on normal
/// data (generated on the host before the device is opened), timing each step.
pub fn startup(
    ordinal: usize,
    case: Case,
    mode: Mode,
    strategy: Strategy,
) -> Result<Startup, CudaError> {
    let x = verify::matrix(case.n, case.m, "normal", 1);
    let launch = case.launch(mode);
    let opts = Options { mode, sorted: case.sorted };
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let gpu = CudaTopK::new(ordinal)?;
    let open_ms = ms(t);
    let t = Instant::now();
    gpu.topk_rows_with(x.view(), case.k, opts, launch.bisect, strategy)?;
    let first_ms = ms(t);
    let t = Instant::now();
    gpu.topk_rows_with(x.view(), case.k, opts, launch.bisect, strategy)?;
    let second_ms = ms(t);
    Ok(Startup {
        device: gpu.device_name().to_string(),
        open_ms,
        first_ms,
        second_ms,
        units: gpu.unit_reports(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grids_are_the_papers() {
        assert_eq!(Grid::Rtopk.cases().len(), 4 * 3 * 5 * 9);
        assert_eq!(Grid::AppendixB.cases().len(), 32);
        assert_eq!(Grid::Long.cases().len(), 6);
        let all = grid_cases(&Grid::ALL);
        let exact = all.iter().filter(|c| c.max_iter.is_none() && !c.sorted).count();
        assert_eq!(all.iter().filter(|c| c.sorted).count(), exact);
        // each sorted case right after its exact twin
        for w in all.windows(2) {
            if w[1].sorted {
                assert_eq!(w[0], Case { sorted: false, ..w[1] });
            }
        }
        assert_eq!(Grid::parse("all"), Some(Grid::PAPER.to_vec()));
        assert_eq!(Grid::parse("appendix-b"), Some(vec![Grid::AppendixB]));
        assert_eq!(Grid::parse("fig4"), None);
    }

    /// The (n, m, k) of a grid's cases, as a sorted list.
    fn shapes(grid: Grid) -> Vec<(usize, usize, usize)> {
        let mut out: Vec<_> = grid.cases().iter().map(|c| (c.n, c.m, c.k)).collect();
        out.sort_unstable();
        out
    }

    /// Every (n, m, k) of the cross product, sorted.
    fn product(ns: &[usize], ms: &[usize], ks: &[usize]) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for &n in ns {
            for &m in ms {
                out.extend(ks.iter().map(|&k| (n, m, k)));
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn the_regimes_are_split_vector_and_wide() {
        let split = product(
            &[1, 4, 16, 64, 256, 1024],
            &[32768, 131072, 262144, 1048576],
            &[50, 256, 1024],
        );
        assert_eq!(shapes(Grid::Split), split);
        let vector = product(&[1], &[1 << 24, 1 << 26, 1 << 28], &[64, 1024, 16384]);
        assert_eq!(shapes(Grid::Vector), vector);
        let wide = product(&[16384], &[16384, 32768, 65536], &[50, 256, 1024]);
        assert_eq!(shapes(Grid::Wide), wide);
        for grid in Grid::REGIMES {
            let cases = grid.cases();
            assert!(cases.iter().all(|c| c.max_iter.is_none() && !c.sorted), "{grid:?}");
            // inputs up to 2^30 values, 4 GiB: 64-bit sizes
            let largest = cases.iter().map(|c| input_len(c.n, c.m).unwrap()).max().unwrap();
            let want = if grid == Grid::Vector { 1 << 28 } else { 1 << 30 };
            assert_eq!(largest, want, "{grid:?}");
            // the k of one shape come together, so that each shape's input is made once
            let mut seen: Vec<(usize, usize)> = Vec::new();
            for c in &cases {
                if seen.last() != Some(&(c.n, c.m)) {
                    assert!(!seen.contains(&(c.n, c.m)), "{grid:?}: ({}, {}) again", c.n, c.m);
                    seen.push((c.n, c.m));
                }
            }
        }
        assert_eq!(grid_cases(&Grid::REGIMES).len(), 2 * (72 + 9 + 9));
    }

    #[test]
    fn the_large_k_grids_are_indexer_sampler_and_vector_k() {
        let indexer = product(
            &[1, 2, 8, 32, 96, 256],
            &[16384, 49152, 100000, 163840, 500000, 1 << 21],
            &[512, 1024, 2048],
        );
        assert_eq!(shapes(Grid::Indexer), indexer);
        let sampler = product(&[1, 16, 128], &[32000, 100352, 262144], &[20, 64, 1024]);
        assert_eq!(shapes(Grid::Sampler), sampler);
        let vector = product(&[1], &[1 << 22, 1 << 25, 1 << 28], &[256, 2048, 8192, 32768]);
        assert_eq!(shapes(Grid::VectorK), vector);
        assert_eq!(Grid::parse("large-k"), Some(Grid::LARGE_K.to_vec()));
        assert_eq!(grid_cases(&Grid::LARGE_K).len(), 2 * (108 + 27 + 12));
    }

    #[test]
    fn grid_names_parse_as_lists() {
        assert_eq!(Grid::parse("regimes"), Some(Grid::REGIMES.to_vec()));
        assert_eq!(Grid::parse("split"), Some(vec![Grid::Split]));
        assert_eq!(Grid::parse("wide,vector"), Some(vec![Grid::Wide, Grid::Vector]));
        assert_eq!(Grid::parse("split, split,wide"), Some(vec![Grid::Split, Grid::Wide]));
        let mut everything = Grid::PAPER.to_vec();
        everything.extend(Grid::REGIMES);
        everything.extend(Grid::LARGE_K);
        assert_eq!(Grid::parse("all,regimes,large-k"), Some(everything.clone()));
        assert_eq!(everything, Grid::ALL.to_vec());
        for bad in ["", "split,", "split,fig4", "Split"] {
            assert_eq!(Grid::parse(bad), None, "{bad:?}");
        }
        for g in Grid::ALL {
            assert_eq!(Grid::parse(g.name()), Some(vec![g]));
        }
    }

    #[test]
    fn a_case_becomes_its_launch() {
        let c = Case { n: 3, m: 100, k: 7, max_iter: Some(2), sorted: true, recall: None };
        let l = c.launch(Mode::Smallest);
        assert_eq!((l.n, l.m, l.k, l.sorted, l.mode), (3, 100, 7, true, Mode::Smallest));
        assert_eq!(l.bisect, Bisect::early_stopping(2));
        let exact = Case { max_iter: None, ..c }.launch(Mode::Largest);
        assert_eq!(exact.bisect, Bisect::exact());
        let recall = Case { max_iter: None, recall: Some(0.95), ..c }.launch(Mode::Largest);
        assert_eq!(recall.bisect, Bisect::with_recall(0.95).unwrap());
        let full = Case { max_iter: None, recall: Some(1.0), ..c }.launch(Mode::Largest);
        assert_eq!(full.bisect, Bisect::exact());
        let twins = with_recall_twins(&grid_cases(&[Grid::Long]), 0.9);
        assert_eq!(twins.len(), 3 * Grid::Long.cases().len());
        assert!(twins.windows(2).all(|w| w[1].recall.is_none() || w[0].recall.is_none()));
        assert_eq!(c.output_bytes(), 3 * 7 * 8 + 3 * 4);
        let huge = Case { n: usize::MAX, k: usize::MAX, ..c };
        assert_eq!(huge.output_bytes(), u64::MAX);
    }

    #[test]
    fn the_rotation_evicts_l2_within_free_memory() {
        let l2 = 50 << 20;
        let plenty = u64::MAX;
        // enough buffers to move 4 × L2 through it, at most 32
        assert_eq!(rotation_buffers(1 << 20, l2, plenty), 32);
        assert_eq!(rotation_buffers(16 << 20, l2, plenty), 13);
        assert_eq!(rotation_buffers(128 << 20, l2, plenty), 2);
        // one buffer once the input alone is 4 × L2 (the 4 GiB inputs of the regimes)
        assert_eq!(rotation_buffers(200 << 20, l2, plenty), 1);
        assert_eq!(rotation_buffers(4 << 30, l2, plenty), 1);
        // no more copies than the spare memory holds
        assert_eq!(rotation_buffers(16 << 20, l2, 0), 1);
        assert_eq!(rotation_buffers(16 << 20, l2, (16 << 20) - 1), 1);
        assert_eq!(rotation_buffers(16 << 20, l2, 3 << 24), 4);
        // degenerate sizes
        assert_eq!(rotation_buffers(0, l2, plenty), 32);
        assert_eq!(rotation_buffers(1, 0, plenty), 1);
    }

    #[test]
    fn input_sizes_are_checked() {
        assert_eq!(input_len(1024, 1 << 20).unwrap(), 1 << 30);
        assert_eq!(input_len(1, 1 << 28).unwrap(), 1 << 28);
        let too_large =
            |n, m| matches!(input_len(n, m), Err(CudaError::TopK(TopKError::TooLarge { .. })));
        assert!(too_large(usize::MAX, 2));
        assert!(too_large(1 << 32, 1 << 31)); // n · m fits 64 bits, its bytes do not
        assert_eq!(block_rows(0), 1);
        assert_eq!(block_rows(1 << 28), 1);
        assert_eq!(block_rows(usize::MAX), 1);
        assert_eq!(block_rows(32768), 512);
    }

    #[test]
    fn generated_blocks_are_the_familys_matrix() {
        let (n, m, seed) = (37, 53, 9);
        for family in InputFamily::ALL {
            let whole = family.matrix(n, m, seed).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            for per_block in [1, 5, n] {
                let mut all = Vec::new();
                let mut block = vec![1.0; 3]; // cleared first
                for start in (0..n).step_by(per_block) {
                    generate_rows(family, seed, m, start, per_block.min(n - start), &mut block)
                        .unwrap();
                    all.extend_from_slice(&block);
                }
                assert_eq!(bits(&all), bits(whole.as_slice().unwrap()), "{family} {per_block}");
            }
            let mut other = Vec::new();
            generate_rows(family, seed + 1, m, 0, n, &mut other).unwrap();
            assert_ne!(bits(&other), bits(whole.as_slice().unwrap()), "{family}: seed unused");
        }
    }

    #[test]
    fn generated_rows_do_not_depend_on_threads() {
        let mut a = Vec::new();
        generate_rows(InputFamily::LlmLogits, 3, 1000, 10, 40, &mut a).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let mut b = Vec::new();
        pool.install(|| generate_rows(InputFamily::LlmLogits, 3, 1000, 10, 40, &mut b)).unwrap();
        assert_eq!(
            a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn oversized_blocks_are_errors_not_aborts() {
        let mut out = vec![0.5; 4];
        let too_large = |r: Result<(), CudaError>| {
            matches!(r, Err(CudaError::TopK(TopKError::TooLarge { what: "block of rows", .. })))
        };
        // rows · m overflows
        assert!(too_large(generate_rows(InputFamily::Uniform, 1, usize::MAX, 0, 2, &mut out)));
        // 2^60 values cannot be reserved
        assert!(too_large(generate_rows(InputFamily::Uniform, 1, 1 << 20, 0, 1 << 40, &mut out)));
        // first + rows overflows
        assert!(too_large(generate_rows(InputFamily::Uniform, 1, 1, usize::MAX, 2, &mut out)));
        // zero rows: nothing, the buffer cleared
        generate_rows(InputFamily::Uniform, 1, 8, 0, 0, &mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn sources_name_their_input_and_rotation() {
        assert_eq!(InputSource::generated(InputFamily::Normal, 5), InputSource::DeviceNormal);
        let ties = InputSource::generated(InputFamily::Ties, 5);
        assert_eq!(ties, InputSource::Host { family: InputFamily::Ties, seed: 5 });
        assert_eq!(
            (ties.label(), ties.seed(), ties.rotation()),
            ("ties".into(), Some(5), "copies of one input")
        );
        let normal = InputSource::DeviceNormal;
        assert_eq!(
            (normal.label(), normal.seed(), normal.rotation()),
            ("normal".into(), None, "distinct draws")
        );
        let given = InputSource::Given { label: "x.npy".into() };
        assert_eq!(
            (given.label(), given.seed(), given.rotation()),
            ("x.npy".into(), None, "copies of one input")
        );
        assert!(ties.describe().contains("seed 5") && ties.describe().contains("copies"));
        assert!(given.describe().contains("x.npy"));
        // the records' seeds for the device generator
        assert_eq!(normal_seed(65536, 8192, 0), 65536 * 1_000_003 + 8192 * 101);
        assert_eq!(normal_seed(16384, 256, 3), 16384 * 1_000_003 + 256 * 101 + 3);
    }

    /// Every input buffer of the run's current shape, downloaded.
    fn buffers(run: &Bench<'_>) -> Vec<Vec<f32>> {
        let inputs = run.inputs.as_ref().expect("inputs of the last case");
        let s = run.gpu.stream();
        inputs.buffers.iter().map(|b| s.clone_dtoh(b).unwrap()).collect()
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn settings() -> Settings {
        Settings { reps: 2, mode: Mode::Largest, idle_start: false, strategy: Strategy::Auto }
    }

    /// `check` of a bench of [`settings`] on GPU 0, its buffers prepared for `case`.
    fn with_prepared(case: Case, check: impl FnOnce(&mut Bench<'_>)) {
        let gpu = CudaTopK::new(0).unwrap();
        let mut run = Bench::new(&gpu, settings()).unwrap();
        run.prepare(&[case]).unwrap();
        check(&mut run);
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn host_families_are_uploaded_and_copied_for_the_rotation() {
        let case = Case { n: 64, m: 1000, k: 10, max_iter: None, sorted: false, recall: None };
        with_prepared(case, |run| {
            for family in [InputFamily::Laplace, InputFamily::NanInf, InputFamily::Ties] {
                run.generate(family, 7);
                let row = run.run(case).unwrap();
                assert_eq!(
                    (row.input.as_str(), row.seed, row.rotation),
                    (family.name(), Some(7), "copies of one input")
                );
                let want = family.matrix(64, 1000, 7).unwrap();
                let got = buffers(run);
                assert_eq!(got.len(), row.input_buffers);
                assert!(got.len() > 1, "a 256 KB input rotates through several buffers");
                for b in &got {
                    assert_eq!(bits(b), bits(want.as_slice().unwrap()), "{family}");
                }
                assert!(row.median_ms > 0.0 && row.gbps > 0.0);
            }
        });
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn normal_inputs_are_distinct_device_draws() {
        let case = Case { n: 128, m: 512, k: 16, max_iter: None, sorted: true, recall: None };
        with_prepared(case, |run| {
            let row = run.run(case).unwrap();
            assert_eq!(
                (row.input.as_str(), row.seed, row.rotation),
                ("normal", None, "distinct draws")
            );
            let got = buffers(run);
            assert!(got.len() > 1);
            assert_ne!(bits(&got[0]), bits(&got[1]));
            // then a host family at the same shape replaces them
            run.generate(InputFamily::Uniform, 1);
            assert_eq!(run.run(case).unwrap().input, "uniform");
            assert!(buffers(run)[0].iter().all(|v| (-1.0..1.0).contains(v)));
        });
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn a_given_matrix_is_uploaded_once_in_blocks() {
        let gpu = CudaTopK::new(0).unwrap();
        let mut run = Bench::new(&gpu, settings()).unwrap();
        let (n, m) = (10, 300);
        let x = InputFamily::RadixAdversarial.matrix(n, m, 3).unwrap();
        let data = x.as_slice().unwrap();
        let case = Case { n, m, k: 5, max_iter: Some(4), sorted: false, recall: None };
        run.prepare(&[case]).unwrap();
        run.load(n, m, "x.npy".into(), |up| {
            for rows in data.chunks(3 * m) {
                up.rows(rows)?;
            }
            Ok::<(), CudaError>(())
        })
        .unwrap();
        let row = run.run(case).unwrap();
        assert_eq!(
            (row.input.as_str(), row.seed, row.rotation),
            ("x.npy", None, "copies of one input")
        );
        for b in buffers(&run) {
            assert_eq!(bits(&b), bits(data));
        }
        // another shape is not this input's
        let other = Case { n: 11, ..case };
        assert!(matches!(run.run(other), Err(CudaError::TopK(TopKError::InvalidParameter { .. }))));
        // too few values, too many: errors, and no input left behind
        let short = run.load(n, m, "short".into(), |up| up.rows(&data[..m]));
        assert!(matches!(short, Err(CudaError::TopK(TopKError::InvalidParameter { .. }))));
        let long = run.load(n, m, "long".into(), |up| {
            up.rows(data)?;
            up.rows(&data[..1])
        });
        assert!(matches!(long, Err(CudaError::TopK(TopKError::InvalidParameter { .. }))));
        assert!(run.inputs.is_none());
    }
}
