//! The GPU benchmark harness behind `rtopk bench cuda`: the paper's case grids, inputs
//! generated on the device and rotated past L2, each case timed between CUDA events (median
//! of the repetitions after two warm-ups), one JSON row per case against the device's read
//! bandwidth measured in the same run. Also the first call's breakdown ([`startup`]) and
//! NVRTC's time per unit, which needs no GPU ([`compile_table`]).

use std::time::Instant;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg, sys};
use serde::Serialize;
use topk_ref::{Bisect, Mode, Options};

use crate::compile::{self, Target};
use crate::error::driver;
use crate::kernels::{Family, KernelFiles, Unit, UnitSource};
use crate::launch::UnitReport;
use crate::plan::{Launch, Strategy};
use crate::{CudaError, CudaTopK, verify};

/// A case grid of the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// RTop-K Figure 4 / Table 3: N = 2^14..2^20, M = 256, 512, 768, k = 16..128, exact,
    /// max_iter 2..8, and 0 (load and select only, to see where the time goes).
    Rtopk,
    /// RTop-K Appendix B (Figure 6): N = 65536, M = 1024..8192, k = 64..512.
    AppendixB,
    /// Long rows: N = 16384, M = 16384..65536, k = 64 and 512.
    Long,
}

impl Grid {
    /// Every grid.
    pub const ALL: [Grid; 3] = [Grid::Rtopk, Grid::AppendixB, Grid::Long];

    /// The grid's name (`rtopk`, `appendix-b`, `long`).
    pub fn name(self) -> &'static str {
        match self {
            Grid::Rtopk => "rtopk",
            Grid::AppendixB => "appendix-b",
            Grid::Long => "long",
        }
    }

    /// The grids `name` stands for: one grid's name, or `all`.
    pub fn parse(name: &str) -> Option<Vec<Grid>> {
        if name == "all" {
            return Some(Self::ALL.to_vec());
        }
        Self::ALL.into_iter().find(|g| g.name() == name).map(|g| vec![g])
    }

    /// The grid's cases, in index order.
    pub fn cases(self) -> Vec<Case> {
        let mut out = Vec::new();
        let case = |n, m, k, max_iter| Case { n, m, k, max_iter, sorted: false };
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
                for m in (1..=8).map(|i| i * 1024) {
                    for k in [64, 128, 256, 512] {
                        out.push(case(65536, m, k, None));
                    }
                }
            }
            Grid::Long => {
                for m in [16384, 32768, 65536] {
                    for k in [64, 512] {
                        out.push(case(16384, m, k, None));
                    }
                }
            }
        }
        out
    }
}

/// One benchmark case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
}

impl Case {
    /// The case as a launch in `mode`.
    pub fn launch(&self, mode: Mode) -> Launch {
        let bisect = self.max_iter.map_or(Bisect::exact(), Bisect::early_stopping);
        Launch { n: self.n, m: self.m, k: self.k, mode, bisect, sorted: self.sorted }
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

/// One case's result, as `rtopk bench cuda --json` writes it.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The device's name.
    pub device: String,
    /// Rows.
    pub n: usize,
    /// Row width.
    pub m: usize,
    /// Values selected per row.
    pub k: usize,
    /// Early stopping steps; `None`: exact.
    pub max_iter: Option<u32>,
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
    /// "queued" (a spin kernel ahead of the start event) or "idle-start".
    pub timing: &'static str,
}

/// Input buffers of one `(n, m)`, enough of them that cycling through them evicts L2.
struct Inputs {
    n: usize,
    m: usize,
    buffers: Vec<CudaSlice<f32>>,
}

impl Inputs {
    fn new(gpu: &CudaTopK, n: usize, m: usize, l2: usize) -> Result<Self, CudaError> {
        let len = n.checked_mul(m).ok_or(CudaError::TooLarge { n, m, why: "n * m" })?;
        let bytes = len.saturating_mul(4).max(1);
        let count = (4 * l2).div_ceil(bytes).clamp(1, 32);
        let mut buffers = Vec::with_capacity(count);
        for b in 0..count {
            let mut x =
                gpu.stream().alloc_zeros::<f32>(len).map_err(driver("allocating inputs"))?;
            gpu.fill_normal(&mut x, (n * 1_000_003 + m * 101 + b) as u64)?;
            buffers.push(x);
        }
        Ok(Self { n, m, buffers })
    }
}

/// A benchmark run on one device.
pub struct Bench<'a> {
    gpu: &'a CudaTopK,
    settings: Settings,
    l2: usize,
    read_gbps: f64,
    inputs: Option<Inputs>,
}

impl<'a> Bench<'a> {
    /// Starts a run: reads the L2 size and measures the read bandwidth (2 GiB read once per
    /// launch, median of 20).
    pub fn new(gpu: &'a CudaTopK, settings: Settings) -> Result<Self, CudaError> {
        if settings.reps == 0 {
            return Err(CudaError::TopK(topk_ref::TopKError::InvalidParameter {
                name: "reps",
                reason: "at least one timed launch per case".into(),
            }));
        }
        let l2 = gpu.l2_bytes()?;
        let probe = Inputs::new(gpu, 1 << 16, 1 << 13, 0)?;
        let read_gbps = gpu.read_bandwidth_gbps(&probe.buffers[0], 20)?;
        Ok(Self { gpu, settings, l2, read_gbps, inputs: None })
    }

    /// The device's read bandwidth in GB/s, measured at the start of the run.
    pub fn read_gbps(&self) -> f64 {
        self.read_gbps
    }

    /// The device's L2 size in bytes.
    pub fn l2_bytes(&self) -> usize {
        self.l2
    }

    /// Builds, in parallel, every unit the cases launch (their plans say which), so that no
    /// compilation falls inside a timed case.
    pub fn prepare(&self, cases: &[Case]) -> Result<(), CudaError> {
        let mut units = Vec::new();
        for case in cases {
            units.extend(
                self.gpu.plan(&case.launch(self.settings.mode), self.settings.strategy)?.units(),
            );
        }
        self.gpu.prepare(&units)
    }

    /// Times one case: 2 warm-up launches, then `reps` launches each between CUDA events, the
    /// input rotating through the buffers.
    pub fn run(&mut self, case: Case) -> Result<Row, CudaError> {
        if self.inputs.as_ref().is_none_or(|i| (i.n, i.m) != (case.n, case.m)) {
            drop(self.inputs.take()); // free the previous shape's buffers first
            self.inputs = Some(Inputs::new(self.gpu, case.n, case.m, self.l2)?);
        }
        let inputs = self.inputs.as_ref().ok_or(CudaError::TooLarge {
            n: case.n,
            m: case.m,
            why: "no inputs",
        })?;
        let (median_ms, min_ms) = self.time_case(inputs, case)?;
        let in_bytes = (case.n * case.m * 4) as f64;
        let out_bytes = (case.n * case.k * 8 + case.n * 4) as f64;
        let gbps = in_bytes / (median_ms * 1e-3) / 1e9;
        Ok(Row {
            device: self.gpu.device_name().to_string(),
            n: case.n,
            m: case.m,
            k: case.k,
            max_iter: case.max_iter,
            smallest: self.settings.mode == Mode::Smallest,
            sorted: case.sorted,
            median_ms,
            min_ms,
            gbps,
            read_bw_fraction: gbps / self.read_gbps,
            total_gbps: (in_bytes + out_bytes) / (median_ms * 1e-3) / 1e9,
            reps: self.settings.reps,
            input_buffers: inputs.buffers.len(),
            timing: if self.settings.idle_start { "idle-start" } else { "queued" },
        })
    }

    /// (median, min) milliseconds of one case.
    fn time_case(&self, inputs: &Inputs, case: Case) -> Result<(f64, f64), CudaError> {
        let Settings { reps, mode, idle_start, strategy } = self.settings;
        let launch = case.launch(mode);
        let gpu = self.gpu;
        let s = gpu.stream();
        let alloc = driver("allocating outputs");
        let mut val = s.alloc_zeros::<f32>((case.n * case.k).max(1)).map_err(alloc)?;
        let alloc = driver("allocating outputs");
        let mut idx = s.alloc_zeros::<u32>((case.n * case.k).max(1)).map_err(alloc)?;
        let mut it = s.alloc_zeros::<u32>(case.n.max(1)).map_err(driver("allocating outputs"))?;
        let mut times = Vec::with_capacity(reps);
        for r in 0..reps + 2 {
            let x = &inputs.buffers[r % inputs.buffers.len()];
            let work = || gpu.select_device_with(&launch, strategy, x, &mut val, &mut idx, &mut it);
            let ms = if idle_start { gpu.time_ms_idle_start(work)? } else { gpu.time_ms(work)? };
            if r >= 2 {
                times.push(ms);
            }
        }
        times.sort_by(f64::total_cmp);
        Ok((times[times.len() / 2], times[0]))
    }
}

impl CudaTopK {
    /// Reads `x` (at least 4 values) once per launch, `reps` times after a warm-up, and
    /// returns the median read bandwidth in GB/s — the ceiling the top-k kernel is held to.
    pub fn read_bandwidth_gbps(&self, x: &CudaSlice<f32>, reps: usize) -> Result<f64, CudaError> {
        let n4 = (x.len() / 4) as u64;
        let mut sink = self.stream.alloc_zeros::<f32>(1).map_err(driver("allocating"))?;
        let probe = self.utility("read_bandwidth_probe")?;
        let cfg = LaunchConfig {
            grid_dim: (self.grid_per_sm(16), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut times = Vec::with_capacity(reps);
        for rep in 0..=reps {
            let ms = self.time_ms(|| {
                let mut b = self.stream.launch_builder(probe);
                b.arg(x).arg(&n4).arg(&mut sink);
                // SAFETY: read_bandwidth_probe(const float4*, u64, float*): x holds 4 * n4
                // floats (float4-aligned: cudarc allocations are 256-byte aligned); sink 1.
                unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver("launching the probe"))
            })?;
            if rep > 0 {
                times.push(ms);
            }
        }
        times.sort_by(f64::total_cmp);
        let ms = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
        Ok((n4 * 16) as f64 / (ms * 1e-3) / 1e9)
    }

    /// Fills `x` with standard-normal values generated on the device from `seed`.
    pub fn fill_normal(&self, x: &mut CudaSlice<f32>, seed: u64) -> Result<(), CudaError> {
        let n = x.len() as u64;
        let fill = self.utility("fill_normal")?;
        let cfg = LaunchConfig {
            grid_dim: (self.grid_per_sm(32), 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(fill);
        b.arg(x).arg(&n).arg(&seed);
        // SAFETY: fill_normal(float*, u64, u64) writes exactly the n elements of x.
        unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver("launching the generator"))
    }

    /// `per_sm` blocks for each of the device's SMs (the grid-stride utilities' grids).
    fn grid_per_sm(&self, per_sm: usize) -> u32 {
        u32::try_from(self.limits.sm_count.saturating_mul(per_sm)).unwrap_or(u32::MAX)
    }

    /// The device's L2 cache size in bytes (benchmarks rotate inputs past it).
    pub fn l2_bytes(&self) -> Result<usize, CudaError> {
        let l2 = self
            .ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
            .map_err(driver("reading the L2 size"))?;
        Ok(l2.max(0) as usize)
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

/// NVRTC's work on one unit, without a GPU.
#[derive(Clone, Debug)]
pub struct CompileRow {
    /// The unit.
    pub unit: Unit,
    /// Bytes of generated source.
    pub source_bytes: usize,
    /// Milliseconds to PTX only (the virtual architecture: front end and NVVM).
    pub ptx_ms: f64,
    /// Bytes of PTX.
    pub ptx_bytes: usize,
    /// Milliseconds straight to SASS (the real architecture: PTX and ptxas).
    pub cubin_ms: f64,
    /// Bytes of cubin.
    pub cubin_bytes: usize,
}

/// Compiles every unit (or those of `families`, if any) for `sm_<cc>` twice, one unit at a
/// time: to PTX for `compute_<cc>` and to a cubin for `sm_<cc>`, timing each. Needs NVRTC,
/// not a GPU; bypasses every cache.
pub fn compile_table(cc: u32, families: &[Family]) -> Result<Vec<CompileRow>, CudaError> {
    crate::check_nvrtc()?;
    let files = KernelFiles::for_process()?;
    let (ptx, cubin) =
        (Target::named(&format!("compute_{cc}"), true), Target::named(&format!("sm_{cc}"), false));
    let mut out = Vec::new();
    for unit in Unit::all() {
        if !families.is_empty() && !families.contains(&unit.family()) {
            continue;
        }
        let source = unit.source(&files)?;
        let name = unit.to_string();
        let t = Instant::now();
        let p = compile::compile(&name, &source, &ptx)?;
        let ptx_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let c = compile::compile(&name, &source, &cubin)?;
        let cubin_ms = t.elapsed().as_secs_f64() * 1e3;
        out.push(CompileRow {
            unit,
            source_bytes: source.len(),
            ptx_ms,
            ptx_bytes: p.len(),
            cubin_ms,
            cubin_bytes: c.len(),
        });
    }
    Ok(out)
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
        assert_eq!(Grid::parse("all"), Some(Grid::ALL.to_vec()));
        assert_eq!(Grid::parse("appendix-b"), Some(vec![Grid::AppendixB]));
        assert_eq!(Grid::parse("fig4"), None);
    }

    #[test]
    fn a_case_becomes_its_launch() {
        let c = Case { n: 3, m: 100, k: 7, max_iter: Some(2), sorted: true };
        let l = c.launch(Mode::Smallest);
        assert_eq!((l.n, l.m, l.k, l.sorted, l.mode), (3, 100, 7, true, Mode::Smallest));
        assert_eq!(l.bisect, Bisect::early_stopping(2));
        let exact = Case { max_iter: None, ..c }.launch(Mode::Largest);
        assert_eq!(exact.bisect, Bisect::exact());
    }
}
