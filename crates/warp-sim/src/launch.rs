//! Launching the RTop-K kernel over a matrix: a grid of blocks of `W` warps, one row per warp.

use topk_ref::bisect::MAX_ITERATIONS;
use topk_ref::check_shape;

use crate::diag::{DiagKind, DiagPolicy, Diagnostic, Op};
use crate::error::SimError;
use crate::kernel::{KernelArgs, KernelOut, rtopk_kernel};
use crate::lanes::WARP_SIZE;
use crate::trace::RowTrace;
use crate::warp::{Grid, Machine, Schedule};

/// How the simulator runs a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// Warps per block (`blockDim.x / 32`), 1 to 32.
    pub warps_per_block: u32,
    /// What happens to diagnostics.
    pub policy: DiagPolicy,
    /// In order, or a seeded shuffle.
    pub schedule: Schedule,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self { warps_per_block: 4, policy: DiagPolicy::Collect, schedule: Schedule::InOrder }
    }
}

/// What a launch produced.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchResult {
    /// `(N, k)` values, row-major.
    pub values: Vec<f32>,
    /// `(N, k)` indices, row-major, ascending within a row.
    pub indices: Vec<u32>,
    /// `(N,)` iteration counts.
    pub iterations: Vec<u32>,
    /// The findings kept (at most [`crate::DEFAULT_KEPT_DIAGNOSTICS`]).
    pub diagnostics: Vec<Diagnostic>,
    /// How many findings there were in all.
    pub diagnostics_total: u64,
}

/// A reusable simulator for RTop-K launches (keeps its allocations between launches).
#[derive(Debug)]
pub struct Simulator {
    machine: Machine,
    config: SimConfig,
}

impl Simulator {
    /// A simulator with `config`.
    pub fn new(config: SimConfig) -> Self {
        Self { machine: Machine::new(config.policy, config.schedule), config }
    }

    /// The configuration.
    pub fn config(&self) -> SimConfig {
        self.config
    }

    /// Runs the kernel over the `(N, M)` row-major matrix `x`.
    pub fn run(&mut self, x: &[f32], args: &KernelArgs) -> Result<LaunchResult, SimError> {
        self.launch(x, args, None)
    }

    /// [`Simulator::run`], recording the journey of row `row`.
    pub fn run_traced(
        &mut self,
        x: &[f32],
        args: &KernelArgs,
        row: usize,
    ) -> Result<(LaunchResult, RowTrace), SimError> {
        if row >= args.n {
            return Err(SimError::InvalidLaunch(format!(
                "row {row} does not exist: the matrix has {} rows",
                args.n
            )));
        }
        let values = x.get(row * args.m..(row + 1) * args.m).unwrap_or_default().to_vec();
        let mut trace = RowTrace::new(row, args, values);
        let result = self.launch(x, args, Some(&mut trace))?;
        let start = row * args.k;
        trace.out_idx = result.indices[start..start + args.k].to_vec();
        trace.out_val = result.values[start..start + args.k].to_vec();
        Ok((result, trace))
    }

    fn launch(
        &mut self,
        x: &[f32],
        args: &KernelArgs,
        mut trace: Option<&mut RowTrace>,
    ) -> Result<LaunchResult, SimError> {
        validate(x, args, self.config.warps_per_block)?;
        let mut out = KernelOut::new(args.n, args.k);
        if args.k > 0 && args.n > 0 {
            let w = self.config.warps_per_block;
            let grid = Grid {
                blocks: args.n.div_ceil(w as usize) as u32,
                warps_per_block: w,
                shared_words: args.shared_words(w),
            };
            self.machine.set_step_limit(step_budget(args));
            let traced_row = trace.as_ref().map(|t| t.row);
            self.machine.launch(grid, |warp| {
                let row = (warp.block_idx() * w + warp.warp_idx()) as usize;
                let tr = if traced_row == Some(row) { trace.as_deref_mut() } else { None };
                rtopk_kernel(warp, args, x, &mut out, tr)
            })?;
        }
        let (diagnostics, diagnostics_total) = self.machine.take_diagnostics();
        Ok(LaunchResult {
            values: out.out_val.into_data(),
            indices: out.out_idx.into_data(),
            iterations: out.iterations.into_data(),
            diagnostics,
            diagnostics_total,
        })
    }
}

/// Checks a launch before it runs: shapes (SPEC §1), data length, parameters.
fn validate(x: &[f32], args: &KernelArgs, warps_per_block: u32) -> Result<(), SimError> {
    check_shape(args.m, args.k)?;
    args.bisect.validate()?;
    if !(1..=32).contains(&warps_per_block) {
        return Err(SimError::InvalidLaunch(format!(
            "warps per block must be 1 to 32, got {warps_per_block}"
        )));
    }
    if args.n.checked_mul(args.m) != Some(x.len()) {
        return Err(SimError::InvalidLaunch(format!(
            "{} values do not form {} rows of {}",
            x.len(),
            args.n,
            args.m
        )));
    }
    Ok(())
}

/// Simulated operations one warp may need: (loads + counting passes + selection) with room to
/// spare; only a kernel that does not terminate reaches it.
fn step_budget(args: &KernelArgs) -> u64 {
    let chunks = args.m.div_ceil(WARP_SIZE) as u64;
    let passes = u64::from(MAX_ITERATIONS) + u64::from(args.bisect.max_iter.unwrap_or(0)) + 4;
    4 * (passes * (3 * chunks + 16) + 16 * chunks + 64)
}

/// Runs the kernel once with `config` (a fresh [`Simulator`]).
pub fn launch_rtopk(
    x: &[f32],
    args: &KernelArgs,
    config: SimConfig,
) -> Result<LaunchResult, SimError> {
    Simulator::new(config).run(x, args)
}

/// Runs the kernel in order and once per seed in [`Schedule::Shuffled`] mode, and reports
/// every output that differs from the in-order run as a [`DiagKind::OrderDependence`] (the
/// first differing element of each buffer per seed).
pub fn check_order_dependence(
    x: &[f32],
    args: &KernelArgs,
    config: SimConfig,
    seeds: &[u64],
) -> Result<Vec<Diagnostic>, SimError> {
    let in_order = SimConfig { schedule: Schedule::InOrder, ..config };
    let base = launch_rtopk(x, args, in_order)?;
    let mut found = Vec::new();
    for &seed in seeds {
        let shuffled = SimConfig { schedule: Schedule::Shuffled { seed }, ..config };
        let other = launch_rtopk(x, args, shuffled)?;
        let w = config.warps_per_block as usize;
        let per_row = args.k.max(1);
        let diffs = [
            ("out_idx", first_diff(&base.indices, &other.indices, |v| *v), per_row),
            ("out_val", first_diff(&base.values, &other.values, |v| v.to_bits()), per_row),
            ("iterations", first_diff(&base.iterations, &other.iterations, |v| *v), 1),
        ];
        for (label, diff, per) in diffs {
            if let Some(at) = diff {
                let row = at / per;
                found.push(Diagnostic {
                    kind: DiagKind::OrderDependence,
                    op: Op::Launch,
                    label,
                    block: (row / w) as u32,
                    warp: (row % w) as u32,
                    lanes: 0,
                    address: Some(at),
                });
            }
        }
    }
    Ok(found)
}

fn first_diff<T, K: PartialEq>(a: &[T], b: &[T], key: impl Fn(&T) -> K) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| key(x) != key(y))
}
