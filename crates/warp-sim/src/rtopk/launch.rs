//! Launching the RTop-K kernel over a matrix as the GPU would: the launch program
//! ([`rtopk_plan::program()`], the CUDA launcher's for the shape, or for a forced
//! [`Strategy`]) is executed step by step (`execute.rs`) — a program that does not split rows
//! in windows of whole blocks of every step (outputs held for the window's rows only), one
//! that splits rows whole. Sizes are checked before anything is allocated: a request too
//! large to simulate is an error, never an abort. [`Simulator::run_rows`] runs only the blocks
//! of some rows of a grid of any size, over an input made from addresses
//! ([`crate::engine::VirtualSource`]).
//!
//! Inputs are matrices of any of topk-ref's [`Element`] types — `f32`, `f16`, `bf16`, the
//! integers, and the 64-bit `f64` and `i64`, which the wide rows alone hold: the kernels of the
//! input's type run (the units named `_f16`, `_i8`, `_f64`, ...), values come back in it, the
//! input's own bits ([`LaunchResult`]`<E>`).

use std::cell::RefCell;
use std::ops::Range;

use topk_ref::bisect::max_iterations;
use topk_ref::{Element, KeyBits, TopKError, check_shape};

use crate::engine::diag::{DiagKind, DiagPolicy, Diagnostic, Op};
use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::machine::{Grid, Machine, Rows};
use crate::engine::schedule::Schedule;
use crate::engine::summary::DiagSummary;
use crate::engine::warp::BufId;
use crate::rtopk::args::{BLOCK_STAGE, KernelArgs, RowData, WARP_STAGE};
use crate::rtopk::block_rows::rtopk_block_row;
use crate::rtopk::cluster_rows::rtopk_cluster_row;
use crate::rtopk::coverage::{Branch, Coverage, Tally};
use crate::rtopk::execute::{Outputs, Run, SPLIT_MAX_WORDS, program_words};
use crate::rtopk::order::{ElemType, elem_type};
use crate::rtopk::params::Params;
use crate::rtopk::pick::rtopk_pick_rows_impl;
use crate::rtopk::plan::{
    self, DeviceLimits, Family, Kernel, Launch, Plan, PlanError, Program, Ragged, Route, Sort,
    Step, Strategy, program_ragged, ragged_route, route,
};
use crate::rtopk::rows::block_smem;
use crate::rtopk::sort::{SortParams, rtopk_sort_rows, sort_warp_row};
use crate::rtopk::trace::RowTrace;
use crate::rtopk::warp_rows::rtopk_warp_rows_impl;
use crate::rtopk::wide::rtopk_wide_rows_impl;

/// An H100 SXM: 132 SMs, 227 KiB of opt-in shared memory per block, clusters of up to 16
/// blocks and one board's clusters held at once — the device whose plan the simulator follows
/// unless told otherwise (results never depend on it, only the family chosen for a shape).
pub const H100: DeviceLimits = DeviceLimits {
    sm_count: 132,
    shared_optin_bytes: 232_448,
    max_cluster: 16,
    cluster_slots: rtopk_plan::ClusterSlots::H100,
};

/// Rows per window of a launch: whole blocks of every family (32 · 32 rows), or fewer rows
/// of [`WINDOW_ELEMENTS`] where rows are long.
const WINDOW_ROWS: u64 = 1024;
/// Elements per window of a launch of long rows (so that a few long rows still make several
/// windows for [`launch_parallel`]).
const WINDOW_ELEMENTS: u64 = 1 << 17;

/// Rows per window of a program that does not split rows, over rows of `m`: a multiple of
/// every step's rows per block; all of them for a program that splits rows (it runs whole).
fn window_rows(p: &Program, m: usize) -> u64 {
    if p.depth > 0 {
        return (p.launch.n as u64).max(1);
    }
    let align = p.steps.iter().map(step_rows_per_block).max().unwrap_or(1);
    let rows = (WINDOW_ELEMENTS / (m as u64).max(1)).clamp(1, WINDOW_ROWS);
    (rows / align).max(1) * align
}

/// How the simulator runs a launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// What happens to diagnostics.
    pub policy: DiagPolicy,
    /// In order, or a seeded shuffle.
    pub schedule: Schedule,
    /// Which launch family: the plan's default for the shape, or a forced one;
    /// [`Strategy::Split`] splits the rows (docs/kernel.md, "Split rows").
    pub strategy: Strategy,
    /// Whether the iteration counts are wanted (the default): a route that splits rows has
    /// none, so with counts [`Strategy::Auto`] never splits. Without them `Auto` follows the
    /// CUDA launcher's route for the shape, split rows and pick rows included, and the
    /// kernels search as the GPU's do without counts (a 16-bit row's value phase ends at
    /// adjacent keys), reporting none; [`Strategy::Split`] and [`Strategy::Radix`] imply no
    /// counts.
    pub counts: bool,
    /// Each row's results in sorted order (the sort launch, or the kernel itself: pick rows and
    /// wide rows), instead of index order.
    pub sorted: bool,
    /// The device whose launch plan is followed.
    pub limits: DeviceLimits,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            policy: DiagPolicy::Collect,
            schedule: Schedule::InOrder,
            strategy: Strategy::Auto,
            counts: true,
            sorted: false,
            limits: H100,
        }
    }
}

/// What a launch produced, for an input of elements of `E` (`f32`, `f16`, `bf16`).
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchResult<E = f32> {
    /// `(rows, k)` values, row-major: the input's elements (their bits).
    pub values: Vec<E>,
    /// `(rows, k)` indices, row-major: ascending within a row, or in sorted order.
    pub indices: Vec<u32>,
    /// `(rows,)` iteration counts; empty where the configuration asks for none
    /// ([`SimConfig::counts`]: the GPU's path without counts, pick rows and 16-bit rows whose
    /// value phase ends at adjacent keys among it) or the route split the rows (a split row's search counts its
    /// chunks, not the row: docs/contract.md §3 has no count for it).
    pub iterations: Vec<u32>,
    /// The findings kept (at most [`crate::engine::DEFAULT_KEPT_DIAGNOSTICS`]).
    pub diagnostics: Vec<Diagnostic>,
    /// How many findings there were in all.
    pub diagnostics_total: u64,
    /// All findings by kind: how many, and the first of each.
    pub summary: DiagSummary,
    /// The plan the launch followed: the route's first (a split row's chunks); its units
    /// are those of the input's type.
    pub plan: Plan,
    /// The route the launch followed.
    pub route: Route,
    /// What the launch exercised: its program's steps and the branches its kernels took.
    pub coverage: Coverage,
    /// `(rows,)` thresholds (docs/contract.md §5: each row's k-th selected value as f32, NaN
    /// where it selects nothing) when asked for ([`RowData::threshold`]), else empty.
    pub threshold: Vec<f32>,
}

impl LaunchResult<u64> {
    /// The result with its values, the elements' bits, as elements of `E`.
    fn into_elements<E: Element>(self) -> LaunchResult<E> {
        let values = self.values.iter().map(|&w| E::from_bits(E::Key::from_u64(w))).collect();
        LaunchResult {
            values,
            indices: self.indices,
            iterations: self.iterations,
            diagnostics: self.diagnostics,
            diagnostics_total: self.diagnostics_total,
            summary: self.summary,
            plan: self.plan,
            route: self.route,
            coverage: self.coverage,
            threshold: self.threshold,
        }
    }
}

/// A matrix of elements of `E` in memory, the kernel's input: each element's bits, 1, 2, 4 or
/// 8 bytes wide.
struct ElemSource<'a, E> {
    data: &'a [E],
    row_len: u64,
}

impl<'a, E: Element> ElemSource<'a, E> {
    fn new(data: &'a [E], row_len: u64) -> Self {
        Self { data, row_len }
    }
}

impl<E: Element> Source for ElemSource<'_, E> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    #[inline]
    fn word(&self, i: u64) -> u32 {
        self.data[i as usize].to_bits().to_u32()
    }
    #[inline]
    fn word64(&self, i: u64) -> u64 {
        self.data[i as usize].to_bits().to_u64()
    }
    fn row_len(&self) -> Option<u64> {
        (self.row_len > 0).then_some(self.row_len)
    }
    fn elem_bytes(&self) -> u32 {
        std::mem::size_of::<E>() as u32
    }
}

/// A reusable simulator for RTop-K launches (keeps its allocations between launches).
#[derive(Debug)]
pub struct Simulator {
    pub(crate) machine: Machine,
    config: SimConfig,
}

impl From<PlanError> for SimError {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::TopK(e) => SimError::TopK(e),
            other => SimError::InvalidLaunch(other.to_string()),
        }
    }
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

    /// The launch route of `args` under this configuration: one plan, or split rows (the
    /// units of f32 rows; [`LaunchResult::route`] names those of the input's type).
    pub fn route(&self, args: &KernelArgs) -> Result<Route, SimError> {
        self.route_for(args, ElemType::F32)
    }

    /// [`Simulator::route`] for rows of `elem`.
    fn route_for(&self, args: &KernelArgs, elem: ElemType) -> Result<Route, SimError> {
        check_shape(args.m, args.k)?;
        let launch = self.launch_of(args, elem);
        let strategy = self.config.strategy;
        let counts = self.config.counts && strategy.counts();
        Ok(route(&launch, &self.config.limits, strategy, counts)?)
    }

    /// [`Simulator::route_for`] of a ragged launch (rtopk-plan's `ragged_route`).
    fn ragged_route_for(&self, args: &KernelArgs, elem: ElemType) -> Result<Route, SimError> {
        check_shape(args.m, args.k)?;
        let launch = self.launch_of(args, elem);
        let strategy = self.config.strategy;
        let counts = self.config.counts && strategy.counts();
        Ok(ragged_route(&launch, &self.config.limits, strategy, counts)?)
    }

    /// The launch program of `args` under this configuration, for rows of `elem`: the steps
    /// the simulator runs, as the CUDA launcher would (rtopk-plan's `program`): with the
    /// iteration counts where the configuration asks for them (`counts`) and the route has
    /// them (not for split rows).
    pub fn program(&self, args: &KernelArgs, elem: ElemType) -> Result<Program, SimError> {
        self.program_ragged(args, elem, Ragged::default())
    }

    /// [`Simulator::program`] of a ragged launch (docs/contract.md §5): `args.k` is the output
    /// width, and the steps read the per-row arrays `ragged` names (rtopk-plan's
    /// `program_ragged`: split as plain rows are where no counts are wanted, one level deep).
    pub fn program_ragged(
        &self,
        args: &KernelArgs,
        elem: ElemType,
        ragged: Ragged,
    ) -> Result<Program, SimError> {
        check_shape(args.m, args.k)?;
        let launch = self.launch_of(args, elem);
        let strategy = self.config.strategy;
        let counts = self.config.counts && strategy.counts();
        let limits = &self.config.limits;
        // the program as asked: without counts a 16-bit row's value phase ends at adjacent
        // keys and short rows may pick (rtopk-plan's pick), as on the GPU
        Ok(program_ragged(&launch, limits, strategy, counts, ragged)?)
    }

    /// The launch of `args` under this configuration, for rows of `elem`.
    fn launch_of(&self, args: &KernelArgs, elem: ElemType) -> Launch {
        Launch {
            n: args.n,
            m: args.m,
            k: args.k,
            mode: args.mode,
            bisect: args.bisect,
            sorted: self.config.sorted,
            elem,
        }
    }

    /// The launch plan of `args` under this configuration: the route's first (for split rows,
    /// the launch over their chunks).
    pub fn plan(&self, args: &KernelArgs) -> Result<Plan, SimError> {
        Ok(first_plan(&self.route(args)?, args.n))
    }

    /// Checks that a launch of `args` fits before its input is made: shapes, parameters, the
    /// route, and the simulated shared memory of a block, reserved now.
    pub fn prepare(&mut self, args: &KernelArgs) -> Result<(), SimError> {
        let program = self.program(args, ElemType::F32)?;
        let words = program.steps.iter().map(step_shared_words).max().unwrap_or(0);
        self.machine.reserve_shared(words)
    }

    /// Runs the kernel over the `(N, M)` row-major matrix `x` of any element type (64-bit rows:
    /// the wide rows).
    pub fn run<E: Element>(
        &mut self,
        x: &[E],
        args: &KernelArgs,
    ) -> Result<LaunchResult<E>, SimError> {
        check_len(x.len(), args)?;
        let src = ElemSource::new(x, args.m as u64);
        let r =
            self.launch(&src, elem_type::<E>()?, args, 0..args.n as u64, None, RowData::default())?;
        Ok(r.into_elements())
    }

    /// [`Simulator::run`] of a ragged request (docs/contract.md §5): row `i` of the `(N, M)`
    /// matrix `x` is its first `lengths[i]` values and selects `min(k_per_row[i], lengths[i])`
    /// of them (an absent array: `M`, `args.k`); `args.k` is the output width `K`, each output
    /// row padded past its selection with index `u32::MAX` and value 0. Nothing past a row's
    /// length is read (the executor checks it). A hint per row (`rows.hint`) starts each row's
    /// exact search with a test there (`search_hinted`): the answer is the same, the iteration
    /// counts are `bisect`'s with that hint. `rows.threshold` writes each row's threshold
    /// ([`LaunchResult::threshold`]). An array of other than N entries is an error.
    pub fn run_ragged<E: Element>(
        &mut self,
        x: &[E],
        args: &KernelArgs,
        rows: RowData<'_>,
    ) -> Result<LaunchResult<E>, SimError> {
        check_len(x.len(), args)?;
        let hint = rows.hint.map(<[f32]>::len);
        let per_row = [
            ("lengths", rows.lengths.map(<[u32]>::len)),
            ("k_per_row", rows.k_per_row.map(<[u32]>::len)),
            ("hint", hint),
        ];
        for (what, len) in per_row {
            if let Some(len) = len.filter(|&len| len != args.n) {
                return Err(SimError::InvalidLaunch(format!(
                    "{what} has {len} entries for {} rows",
                    args.n
                )));
            }
        }
        let src = ElemSource::new(x, args.m as u64);
        let r = self.launch(&src, elem_type::<E>()?, args, 0..args.n as u64, None, rows)?;
        Ok(r.into_elements())
    }

    /// Runs only the blocks holding rows `rows` of the `(N, M)` f32 input `src` (any N: the
    /// grid is the plan's, most of it not simulated); the result holds those rows. A route
    /// that splits rows runs whole: `rows` must then be all of them.
    pub fn run_rows(
        &mut self,
        src: &dyn Source,
        args: &KernelArgs,
        rows: Range<u64>,
    ) -> Result<LaunchResult, SimError> {
        if src.elem_bytes() != 4 {
            return Err(SimError::InvalidLaunch(format!(
                "run_rows reads f32 inputs; this one has {}-byte elements (run takes 16-bit \
                 matrices)",
                src.elem_bytes()
            )));
        }
        Ok(self.run_rows_of(src, ElemType::F32, args, rows)?.into_elements())
    }

    /// [`Simulator::run_rows`] of an input of `elem`, its values as bits.
    fn run_rows_of(
        &mut self,
        src: &dyn Source,
        elem: ElemType,
        args: &KernelArgs,
        rows: Range<u64>,
    ) -> Result<LaunchResult<u64>, SimError> {
        let len = (args.n as u64).checked_mul(args.m as u64);
        if len != Some(src.len()) || rows.start > rows.end || rows.end > args.n as u64 {
            return Err(SimError::InvalidLaunch(format!(
                "rows {rows:?} of an input of {} values in {} rows of {}",
                src.len(),
                args.n,
                args.m
            )));
        }
        self.launch(src, elem, args, rows, None, RowData::default())
    }

    /// [`Simulator::run`], recording the journey of row `row`.
    pub fn run_traced<E: Element>(
        &mut self,
        x: &[E],
        args: &KernelArgs,
        row: usize,
    ) -> Result<(LaunchResult<E>, RowTrace), SimError> {
        if row >= args.n {
            return Err(SimError::InvalidLaunch(format!(
                "row {row} does not exist: the matrix has {} rows",
                args.n
            )));
        }
        check_len(x.len(), args)?;
        self.prepare(args)?;
        let elem = elem_type::<E>()?;
        if elem.wide() {
            return Err(SimError::InvalidLaunch(format!(
                "{} rows run the wide rows, whose journey is not recorded (no trace)",
                E::NAME
            )));
        }
        let Route::Direct(p) = self.route_for(args, elem)? else {
            return Err(SimError::InvalidLaunch(
                "split rows have no one journey to trace: each chunk is a row of its own"
                    .to_string(),
            ));
        };
        let values = copy_row(x, row, args.m)?;
        let mut trace = RowTrace::new(row, args, values, &p);
        trace.elem = E::NAME;
        let trace = RefCell::new(trace);
        let src = ElemSource::new(x, args.m as u64);
        let result = self.launch(
            &src,
            elem,
            args,
            0..args.n as u64,
            Some((row as u64, &trace)),
            RowData::default(),
        )?;
        let result = result.into_elements::<E>();
        let mut trace = trace.into_inner();
        let start = row * args.k;
        let (idx, val) = (&result.indices, &result.values);
        let val = val[start..start + args.k].iter().map(|v| v.to_f32()).collect();
        trace.finish(idx[start..start + args.k].to_vec(), val);
        Ok((result, trace))
    }

    /// A launch over rows `rows`, with the rows' own lengths and k (`ragged`; none: a plain
    /// launch).
    fn launch(
        &mut self,
        src: &dyn Source,
        elem: ElemType,
        args: &KernelArgs,
        rows: Range<u64>,
        trace: Option<(u64, &RefCell<RowTrace>)>,
        ragged: RowData<'_>,
    ) -> Result<LaunchResult<u64>, SimError> {
        args.bisect.validate()?;
        let which = Ragged {
            lengths: ragged.lengths.is_some(),
            k_per_row: ragged.k_per_row.is_some(),
            hint: ragged.hint.is_some(),
            threshold: ragged.threshold,
        };
        let program = self.program_ragged(args, elem, which)?;
        let route = match program.first_plan() {
            Some(plan) if which.any() && program.depth == 0 => Route::Direct(plan),
            _ if which.any() => self.ragged_route_for(args, elem)?,
            _ => self.route_for(args, elem)?,
        };
        let n = args.n as u64;
        if program.depth > 0 {
            if rows != (0..n) {
                return Err(SimError::InvalidLaunch(format!(
                    "split rows run whole: rows {rows:?} of {} are not all of them",
                    args.n
                )));
            }
            if program_words(&program).is_none_or(|w| w > SPLIT_MAX_WORDS) {
                return Err(SimError::InvalidLaunch(format!(
                    "split rows of {n} x {} (k = {}) hold more than {SPLIT_MAX_WORDS} global \
                     words: too large to simulate",
                    args.m, args.k
                )));
            }
        }
        let k = args.k as u64;
        let count = rows.end - rows.start;
        let nk = count.checked_mul(k).and_then(|v| usize::try_from(v).ok());
        let too_large = || TopKError::TooLarge { what: "output", n: count as usize, m: args.k };
        let nk = nk.ok_or_else(too_large)?;
        let counted = if program.counts { count as usize } else { 0 };
        let mut result = LaunchResult {
            values: try_vec(nk).ok_or_else(too_large)?,
            indices: try_vec(nk).ok_or_else(too_large)?,
            iterations: try_vec(counted).ok_or_else(too_large)?,
            diagnostics: Vec::new(),
            diagnostics_total: 0,
            summary: DiagSummary::new(),
            plan: first_plan(&route, args.n),
            route,
            coverage: Coverage::of_program(&program),
            threshold: if ragged.threshold {
                try_vec(count as usize).ok_or_else(too_large)?
            } else {
                Vec::new()
            },
        };
        let tally = Tally::default();
        self.machine.take_cluster_barriers(); // this run's alone
        if (args.k > 0 || ragged.threshold) && count > 0 {
            let step = window_rows(&program, args.m);
            let mut r0 = rows.start / step * step;
            while r0 < rows.end {
                let r1 = (r0 + step).min(n);
                let run =
                    Run { src, elem, args: *args, rows: (r0, r1), trace, cover: &tally, ragged };
                let window = self.execute(&program, &run)?;
                copy_into(&window, &mut result, &rows, k);
                r0 = r1;
            }
        }
        tally.add(Branch::ClusterBarriers, self.machine.take_cluster_barriers());
        tally.into_coverage(&mut result.coverage);
        let (diagnostics, summary) = self.machine.take_diagnostics();
        result.diagnostics_total = summary.total();
        result.diagnostics = diagnostics;
        result.summary = summary;
        Ok(result)
    }

    /// The top-k launch of `p.plan` over the blocks of rows `rows` of its grid.
    pub(crate) fn launch_topk(&mut self, p: &Params<'_>, rows: Range<u64>) -> Result<(), SimError> {
        let plan = &p.plan;
        check_family_elem(plan, p.elem)?;
        let rpb = rows_per_block(plan);
        let mut grid = Grid::new(plan.grid, plan.block / 32, topk_shared_words(plan));
        // a cluster row's blocks: `cluster` consecutive blocks per row, resident together
        let per_row = u64::from(plan.cluster.max(1));
        grid.cluster = per_row as u32;
        grid.resident = grid.cluster;
        grid.simulate =
            ((rows.start / rpb * per_row) as u32, (rows.end.div_ceil(rpb) * per_row) as u32);
        grid.group_lanes = match plan.family() {
            Family::QuarterRows | Family::HalfRows | Family::WarpRows | Family::PickRows => {
                plan.lanes_per_row as u32
            }
            _ => 32,
        };
        let groups_per_row = if block_family(plan) { plan.block / 32 } else { 1 };
        // a split's chunks, chunk-major (`chunk_of`)
        let interleave = if p.chunks > 1 { p.a.n as u64 / u64::from(p.chunks) } else { 0 };
        let rows = Rows { parts_per_row: per_row, interleave, ..Rows::new(rpb, groups_per_row) };
        grid.rows = Some(rows);
        self.machine.set_step_limit(step_budget(&p.a));
        let family = plan.family();
        self.machine.launch(grid, async |mut w| match family {
            Family::BlockRows | Family::BlockRowsNarrow => rtopk_block_row(&mut w, p).await,
            Family::ClusterRows | Family::ClusterRowsNarrow => rtopk_cluster_row(&mut w, p).await,
            Family::PickRows => rtopk_pick_rows_impl(&mut w, p).await,
            Family::WideRows => rtopk_wide_rows_impl(&mut w, p).await,
            _ => rtopk_warp_rows_impl(&mut w, p).await,
        })
    }

    /// The sort step's launch (`grid`, `sort`) over rows `rows`.
    pub(crate) fn sort(
        &mut self,
        (src, elem): (&dyn Source, ElemType),
        args: &KernelArgs,
        (grid, sort): (plan::Grid, &Sort),
        (rows, ragged): (Range<u64>, RowData<'_>),
        out_val: BufId,
        out_idx: BufId,
    ) -> Result<(), SimError> {
        let sp = SortParams { a: *args, x: src, out_val, out_idx, elem, rows: ragged };
        let rpb = sort_rows_per_block(grid, sort);
        let mut g = Grid::new(grid.blocks, grid.threads / 32, sort_shared_words(grid, sort));
        // the rank sort's blocks: `parts` consecutive blocks per row, resident together
        let parts = sort.shape.map_or(1, |s| s.parts);
        g.cluster = parts;
        if parts > 1 {
            g.resident = parts;
        }
        let per_row = u64::from(parts);
        g.simulate =
            ((rows.start / rpb * per_row) as u32, (rows.end.div_ceil(rpb) * per_row) as u32);
        let groups_per_row = if sort.shape.is_some() { grid.threads / 32 } else { 1 };
        if sort.shape.is_none() {
            g.group_lanes = sort.lanes_per_row as u32;
        }
        g.rows = Some(Rows { parts_per_row: per_row, ..Rows::new(rpb, groups_per_row) });
        self.machine.set_step_limit(sort_budget(sort.shape));
        let (shape, warp_sort) = (sort.shape, (sort.lanes_per_row as u32, sort.results_per_lane));
        self.machine.launch(g, async |mut w| match shape {
            Some(shape) => rtopk_sort_rows(&mut w, &sp, shape).await,
            None => sort_warp_row(&mut w, &sp, warp_sort).await,
        })
    }
}

/// Refuses a top-k launch of a family on rows of a type it does not hold: the wide rows hold
/// the 64-bit types, and they alone (rtopk-plan plans them so); a program that says otherwise
/// is an error, never a row read with keys of the wrong width.
fn check_family_elem(plan: &Plan, elem: ElemType) -> Result<(), SimError> {
    if (plan.family() == Family::WideRows) == elem.wide() {
        return Ok(());
    }
    Err(SimError::InvalidLaunch(format!("{} does not take {} rows", plan.unit, elem.name())))
}

/// Copies the rows of a window's outputs that lie in `rows` into `out` (which holds `rows`).
fn copy_into(w: &Outputs, out: &mut LaunchResult<u64>, rows: &Range<u64>, k: u64) {
    let kk = k as usize;
    let count = match kk {
        0 => w.threshold.len().max(w.iterations.len()), // nothing selected: no output rows
        _ => w.indices.len() / kk,
    } as u64;
    let lo = rows.start.max(w.first);
    let hi = rows.end.min(w.first + count);
    if lo >= hi {
        return;
    }
    let (src, dst, n) = ((lo - w.first) as usize, (lo - rows.start) as usize, (hi - lo) as usize);
    out.values[dst * kk..(dst + n) * kk].copy_from_slice(&w.values[src * kk..(src + n) * kk]);
    out.indices[dst * kk..(dst + n) * kk].copy_from_slice(&w.indices[src * kk..(src + n) * kk]);
    if !out.iterations.is_empty() {
        out.iterations[dst..dst + n].copy_from_slice(&w.iterations[src..src + n]);
    }
    if !out.threshold.is_empty() {
        let from = w.threshold[src..src + n].iter().map(|&b| f32::from_bits(b));
        out.threshold[dst..dst + n].iter_mut().zip(from).for_each(|(o, t)| *o = t);
    }
}

/// The route's first plan (a split row's: the launch over its full chunks; a radix
/// select's: its steps' grid over `n` rows, which has no plan of its own).
pub(crate) fn first_plan(route: &Route, n: usize) -> Plan {
    match route {
        Route::Direct(p) => *p,
        Route::Split { split, .. } => split.first_plan,
        Route::Radix(r) => radix_plan_of(r, n),
    }
}

/// A radix select as a plan: its unit, its blocks of `RADIX_THREADS` threads and its sort.
fn radix_plan_of(r: &plan::RadixPlan, n: usize) -> Plan {
    let blocks = (n as u64).saturating_mul(u64::from(r.blocks_per_row));
    Plan {
        unit: plan::Unit::radix(r.elem),
        keys_per_lane: plan::RADIX_ITEMS as usize,
        lanes_per_row: plan::RADIX_THREADS as usize, // a part's threads
        grid: u32::try_from(blocks).unwrap_or(u32::MAX),
        block: plan::RADIX_THREADS,
        dynamic_shared: 0,
        cached_keys: 0,
        narrows: false,
        value_bins: false,
        sort: r.sort,
        cluster: 1,
    }
}

/// Whether the plan runs one block per row.
fn block_family(p: &Plan) -> bool {
    matches!(
        p.family(),
        Family::BlockRows
            | Family::BlockRowsNarrow
            | Family::ClusterRows
            | Family::ClusterRowsNarrow
    )
}

/// Rows per block of the top-k launch.
fn rows_per_block(p: &Plan) -> u64 {
    match p.family() {
        Family::QuarterRows
        | Family::HalfRows
        | Family::WarpRows
        | Family::PickRows
        | Family::WideRows => u64::from(p.block) / p.lanes_per_row as u64,
        _ => 1,
    }
}

/// Rows per block of the sort launch.
fn sort_rows_per_block(grid: plan::Grid, s: &Sort) -> u64 {
    match s.shape {
        // the rank sort: a row's blocks are consecutive, one row per cluster
        Some(shape) if shape.parts > 1 => 1,
        Some(shape) => u64::from(grid.threads / shape.row_threads),
        None => u64::from(grid.threads) / s.lanes_per_row.max(1) as u64,
    }
}

/// Simulated operations one warp of a sort launch may need, with room to spare: a watchdog
/// against a sort that does not terminate, not a cost model. A sort's work follows its own
/// shape, not the selection's before it (a radix select's budget stopped block sorts of a
/// million results): the bitonic network's steps over the warp's share of the row's
/// positions, the rank sort's reads of every rank, the merge sort's searches of the other
/// runs. The warp sorts hold at most 1024 positions a row.
fn sort_budget(shape: Option<plan::SortShape>) -> u64 {
    // a warp sort: one warp's network of at most 1024 positions
    let (pow2, parts, warps, merges) = match shape {
        Some(s) => (
            u64::from(s.pow2).max(2),
            u64::from(s.parts.max(1)),
            u64::from(s.row_threads.div_ceil(32).max(1)),
            s.merges,
        ),
        None => (1024, 1, 1, false),
    };
    let levels = u64::from(pow2.ilog2());
    let steps = levels * (levels + 1) / 2;
    // a lane's positions: its warp's share of its block's part of the row, over 32 lanes
    let per_lane = (pow2 / parts).div_ceil(warps * 32);
    let counts = match (parts > 1, merges) {
        (true, false) => pow2 * rtopk_plan::plan::SORT_RANK_HELD as u64,
        (true, true) => (per_lane + 1) * parts * levels * 4,
        (false, _) => 0,
    };
    64 * (steps * (per_lane + 64) + counts + 20_000)
}

/// Shared words per block of a sort launch: the block sort's row of `pow2` ranks, the rank
/// sort's `k + 1` (its dynamic shared memory), none in place in global memory.
fn sort_shared_words(grid: plan::Grid, s: &Sort) -> usize {
    match s.shape {
        Some(shape) if shape.parts > 1 => grid.shared_bytes as usize / 4,
        Some(shape) if shape.in_shared => 2 * shape.pow2 as usize,
        _ => 0,
    }
}

/// Rows per block of a step (the gather's grid strides: any).
fn step_rows_per_block(step: &Step) -> u64 {
    match &step.kernel {
        Kernel::Select(sel) => rows_per_block(&sel.plan),
        Kernel::Sort(sort) => sort_rows_per_block(step.grid, sort),
        Kernel::Gather(_) => 1,
        Kernel::Threshold(t) => u64::from(
            step.grid.threads / 32 / t.warps_per_row.max(1) * (32 / t.lanes_per_row.max(1)),
        ),
        // a row's blocks are consecutive: any whole row is whole blocks
        Kernel::Radix(_) => 1,
    }
}

/// Shared words per block of a top-k launch.
fn topk_shared_words(p: &Plan) -> usize {
    debug_assert!(BLOCK_STAGE < block_smem::KEYS as usize);
    match p.family() {
        Family::BlockRows
        | Family::BlockRowsNarrow
        | Family::ClusterRows
        | Family::ClusterRowsNarrow => {
            // the dynamic shared memory: the load's staging, then the cached keys
            block_smem::KEYS as usize + p.dynamic_shared as usize / 4
        }
        _ => WARP_STAGE,
    }
}

/// Shared words per block of a step.
fn step_shared_words(step: &Step) -> usize {
    match &step.kernel {
        Kernel::Select(sel) => topk_shared_words(&sel.plan),
        Kernel::Sort(sort) => sort_shared_words(step.grid, sort),
        Kernel::Gather(_) | Kernel::Threshold(_) => 0,
        Kernel::Radix(_) => crate::rtopk::radix::RADIX_SHARED_WORDS,
    }
}

fn check_len(len: usize, args: &KernelArgs) -> Result<(), SimError> {
    check_shape(args.m, args.k)?;
    if args.n.checked_mul(args.m) != Some(len) {
        return Err(SimError::InvalidLaunch(format!(
            "{len} values do not form {} rows of {}",
            args.n, args.m
        )));
    }
    Ok(())
}

fn try_vec<T: Clone + Default>(len: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.resize(len, T::default());
    Some(v)
}

/// Row `row` of the `(N, m)` matrix `x`, copied for a trace as exact f32 values.
fn copy_row<E: Element>(x: &[E], row: usize, m: usize) -> Result<Vec<f32>, SimError> {
    let src = row.checked_mul(m).and_then(|s| x.get(s..s.checked_add(m)?)).unwrap_or_default();
    let mut values = Vec::new();
    values.try_reserve_exact(src.len()).map_err(|_| TopKError::TooLarge {
        what: "traced row",
        n: 1,
        m,
    })?;
    values.extend(src.iter().map(|v| v.to_f32()));
    Ok(values)
}

/// Simulated operations one task may need, with room to spare: only a kernel that does not
/// terminate reaches it. The most tests of any row are an f64 row's (96), plus the hint test's
/// second pass.
fn step_budget(args: &KernelArgs) -> u64 {
    let most = u64::from(max_iterations::<f64>()) + 1;
    let passes = most + u64::from(args.bisect.max_iter.unwrap_or(0)) + 8;
    let m = args.m as u64;
    64 * (passes * (m / 32 + 64) + 4 * m + 20_000)
}

/// Runs the kernel over the `(N, M)` matrix `x` as [`Simulator::run`] does, the grid's
/// windows of whole blocks shared out among rayon's threads (each window on a simulator of
/// its own, as blocks run on different SMs): the same plan, results and findings as one
/// simulator going through the windows in order. Kept findings are those of the first
/// windows. A route that splits rows runs on one simulator (its stages depend on each other).
pub fn launch_parallel<E: Element>(
    x: &[E],
    args: &KernelArgs,
    config: SimConfig,
) -> Result<LaunchResult<E>, SimError> {
    use rayon::prelude::*;
    check_len(x.len(), args)?;
    args.bisect.validate()?;
    let elem = elem_type::<E>()?;
    let sim = Simulator::new(config);
    let program = sim.program(args, elem)?;
    let route = sim.route_for(args, elem)?;
    // rows that are not split run in windows of their own, in parallel
    let p = match (&route, program.depth) {
        (Route::Direct(_) | Route::Radix(_), 0) => first_plan(&route, args.n),
        _ => return Simulator::new(config).run(x, args),
    };
    let n = args.n as u64;
    let step = window_rows(&program, args.m);
    let windows: Vec<Range<u64>> =
        (0..n.div_ceil(step)).map(|w| w * step..((w + 1) * step).min(n)).collect();
    if windows.len() <= 1 {
        return Simulator::new(config).run(x, args);
    }
    let src = ElemSource::new(x, args.m as u64);
    let parts: Vec<Result<LaunchResult<u64>, SimError>> = windows
        .par_iter()
        .map(|rows| Simulator::new(config).run_rows_of(&src, elem, args, rows.clone()))
        .collect();
    let k = args.k;
    let too_large = || TopKError::TooLarge { what: "output", n: args.n, m: k };
    let nk = args.n.checked_mul(k).ok_or_else(too_large)?;
    let mut out = LaunchResult::<u64> {
        values: try_vec(nk).ok_or_else(too_large)?,
        indices: try_vec(nk).ok_or_else(too_large)?,
        iterations: try_vec(if program.counts { args.n } else { 0 }).ok_or_else(too_large)?,
        diagnostics: Vec::new(),
        diagnostics_total: 0,
        summary: DiagSummary::new(),
        plan: p,
        route,
        coverage: Coverage::of_program(&program),
        threshold: Vec::new(),
    };
    for (rows, part) in windows.iter().zip(parts) {
        let part = part?;
        let (r0, r1) = (rows.start as usize, rows.end as usize);
        out.values[r0 * k..r1 * k].copy_from_slice(&part.values);
        out.indices[r0 * k..r1 * k].copy_from_slice(&part.indices);
        if program.counts {
            out.iterations[r0..r1].copy_from_slice(&part.iterations);
        }
        let room = crate::engine::DEFAULT_KEPT_DIAGNOSTICS.saturating_sub(out.diagnostics.len());
        out.diagnostics.extend(part.diagnostics.into_iter().take(room));
        out.summary.merge(&part.summary);
        out.coverage.merge_branches(&part.coverage);
    }
    out.diagnostics_total = out.summary.total();
    Ok(out.into_elements())
}

/// Runs the kernel once with `config` (a fresh [`Simulator`]) over the `(N, M)` matrix `x` of
/// any element type.
pub fn launch_rtopk<E: Element>(
    x: &[E],
    args: &KernelArgs,
    config: SimConfig,
) -> Result<LaunchResult<E>, SimError> {
    Simulator::new(config).run(x, args)
}

/// Runs the kernel in order and once per seed in [`Schedule::Shuffled`] mode (warps switch at
/// every memory operation and barrier by a seeded coin), and reports every output that
/// differs from the in-order run as a [`DiagKind::OrderDependence`] (the first differing
/// element of each buffer per seed).
pub fn check_order_dependence<E: Element>(
    x: &[E],
    args: &KernelArgs,
    config: SimConfig,
    seeds: &[u64],
) -> Result<Vec<Diagnostic>, SimError> {
    let base = launch_rtopk(x, args, SimConfig { schedule: Schedule::InOrder, ..config })?;
    let mut found = Vec::new();
    for &seed in seeds {
        let other =
            launch_rtopk(x, args, SimConfig { schedule: Schedule::Shuffled { seed }, ..config })?;
        found.extend(order_diffs(&base, &other, args.k.max(1)));
    }
    Ok(found)
}

/// The first difference of each output buffer between two runs, as order-dependence findings.
pub(crate) fn order_diffs<E: Element>(
    base: &LaunchResult<E>,
    other: &LaunchResult<E>,
    per_row: usize,
) -> Vec<Diagnostic> {
    let diffs = [
        ("out_idx", first_diff(&base.indices, &other.indices, |v| *v), per_row),
        ("out_val", first_diff(&base.values, &other.values, |v| v.to_bits().to_u64()), per_row),
        ("iterations", first_diff(&base.iterations, &other.iterations, |v| *v), 1),
    ];
    let rpb = rows_per_block(&base.plan) as usize;
    diffs
        .into_iter()
        .filter_map(|(label, diff, per)| {
            let at = diff?;
            let row = at / per;
            Some(Diagnostic {
                kind: DiagKind::OrderDependence,
                op: Op::Launch,
                label,
                block: (row / rpb) as u32,
                warp: 0,
                lanes: 0,
                address: Some(at as u64),
            })
        })
        .collect()
}

fn first_diff<T, K: PartialEq>(a: &[T], b: &[T], key: impl Fn(&T) -> K) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| key(x) != key(y))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sort's budget (the watchdog of its launch) follows its own shape, whatever launch came
    /// before it: for every sort the plan gives 1 to 64 rows of k = 1025 to 2^22 results on an
    /// H100 (block, rank, merge and in-place sorts), it covers 64 simulated operations a
    /// step for each of a lane's positions — the in-place sort of 2^21 results after a radix
    /// select had outrun the select's budget — and stays below 2^27, so that a sort that does
    /// not terminate is still stopped.
    #[test]
    fn a_sorts_budget_covers_its_network_and_stays_bounded() {
        let limits = plan::PRESETS.iter().find(|p| p.0 == "h100").unwrap().1;
        let mut checked = 0;
        for n in [1, 8, 64] {
            for k in [1025, 4096, 8193, 65_536, 600_000, 1 << 21, 1 << 22] {
                let m = k + 3;
                let bisect = topk_ref::Bisect::exact();
                let mode = topk_ref::Mode::Largest;
                let elem = ElemType::F32;
                let launch = Launch { n, m, k, mode, bisect, sorted: true, elem };
                let Some(sort) = plan::plan(&launch, &limits, Strategy::Auto).unwrap().sort else {
                    continue;
                };
                let budget = sort_budget(sort.shape);
                let Some(shape) = sort.shape else { continue };
                let pow2 = u64::from(shape.pow2);
                let levels = u64::from(pow2.ilog2());
                let warps = u64::from(shape.row_threads.div_ceil(32));
                let per_lane = (pow2 / u64::from(shape.parts)).div_ceil(warps * 32);
                let network = levels * (levels + 1) / 2 * per_lane;
                assert!(budget >= 64 * network, "n={n} k={k} {shape:?}: {budget}");
                assert!(budget < 1 << 27, "n={n} k={k} {shape:?}: {budget}");
                checked += 1;
            }
        }
        assert!(checked >= 15, "{checked} sorts");
    }
}
