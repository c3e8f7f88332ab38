//! Split rows on the simulator (docs/kernel.md, "Split rows"; rtopk-plan's `split`): the CUDA
//! launcher's `run_route`, `run_stage`, `run_plan` and `run_split` (rtopk-cuda's
//! `src/launch.rs`) stage for stage.
//!
//! The first stage is the ordinary kernels launched over the chunks as rows (`Params::chunks`:
//! `n * full` rows of `chunk`, `place_row` puts chunk `c` of row `r` at `r * m + c * chunk` and
//! its `k` results at `r * width + c * k`; `Params::last_chunks`: `n` rows of `last` from
//! `full * chunk` on, their results from `full * k` on) into the candidates, global buffers of
//! the machine (write-once, each launch's share checked written; the tasks own their row of
//! the input and of the candidates, [`crate::engine::Rows::parts_per_row`]). The second stage
//! is the route of `(n, width, k)` over the candidates' values — split again where the plan
//! says — into the caller's outputs, sorted there if asked; a kernel boundary orders every
//! candidate write before it, so it reads them as its input, a read-only copy, and their
//! indices (`Params::in_idx`) as the indices its results name. Every stage writes the row's
//! indices (`IdxOut`): the first the chunk's column plus the position, the next the index a
//! candidate carries; a sort re-reads values from the caller's input.
//!
//! The candidates' values are of the input's type (a 16-bit matrix for a 16-bit input).
//!
//! A split route runs whole, without the windows of a direct launch: every candidate buffer
//! is held at once, so its size is checked first ([`SPLIT_MAX_WORDS`]).

use crate::engine::diag::{DiagKind, DiagPolicy, Diagnostic, Op};
use crate::engine::error::SimError;
use crate::engine::global::{Global, Source, WordSource};
use crate::engine::warp::BufId;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::launch::{LaunchResult, Simulator, first_plan, vec4};
use crate::rtopk::order::ElemType;
use crate::rtopk::params::Params;
use crate::rtopk::plan::{Plan, Route, Split};

/// The most global words a split route may hold at once (its outputs, and for each split its
/// candidates' values and indices and the copy the next stage reads): about 700 MB of
/// simulated memory with its shadow state.
pub const SPLIT_MAX_WORDS: u64 = 1 << 25;

/// A launch's buffers (the CUDA launcher's `RawBuffers`): the input and the outputs, each
/// pointer a buffer and where in it the pointer points.
#[derive(Clone, Copy)]
pub(crate) struct RawBuffers<'x> {
    pub(crate) x: &'x dyn Source,
    /// The type of `x` and `values`.
    pub(crate) elem: ElemType,
    pub(crate) x_at: u64,
    pub(crate) values: BufId,
    pub(crate) indices: BufId,
    pub(crate) out_at: u64,
    /// A null iteration output: split rows have none.
    pub(crate) iterations: Option<BufId>,
}

/// `Origin`: what a stage's results name — the caller's input and its row width (the sort
/// re-reads values there by index), and where the stage reads a split row's candidates, the
/// buffer of their indices (`in_idx`, laid out as the stage's input).
#[derive(Clone, Copy)]
pub(crate) struct Origin<'x> {
    x: &'x dyn Source,
    m: usize,
    in_idx: Option<BufId>,
}

impl<'x> Params<'x> {
    /// The parameters every launch shares: the buffers, the search and the mode.
    fn common(a: &KernelArgs, plan: &Plan, bufs: RawBuffers<'x>) -> Self {
        Self {
            a: *a,
            x: bufs.x,
            elem: bufs.elem,
            out_val: bufs.values,
            out_idx: bufs.indices,
            out_iter: bufs.iterations,
            x_at: bufs.x_at,
            out_at: bufs.out_at,
            ld: a.m as u32, // < 2^32: the plan checked
            out_ld: a.k as u32,
            chunks: 1,
            col: 0,
            in_idx: None,
            plan: *plan,
            vec4: vec4(a, bufs.elem, a.m),
            trace: None,
        }
    }

    /// Whole rows: row r's m values at r m, its k results at r k.
    fn rows(a: &KernelArgs, plan: &Plan, bufs: RawBuffers<'x>) -> Self {
        Self::common(a, plan, bufs)
    }

    /// A split row's full chunks: `n * full` rows of `chunk` values, chunk c of row r at
    /// r m + c chunk, its k results at r width + c k (`place_row`).
    fn chunks(
        a: &KernelArgs,
        plan: &Plan,
        bufs: RawBuffers<'x>,
        split: &Split,
        width: usize,
    ) -> Self {
        let m = a.m;
        Self {
            // the plan's rows: no overflow
            a: KernelArgs { n: a.n * split.full, m: split.chunk, ..*a },
            vec4: vec4(a, bufs.elem, m),
            ld: m as u32,
            out_ld: width as u32, // < 2^32: the plan checked
            chunks: split.full as u32,
            ..Self::common(a, plan, bufs)
        }
    }

    /// A split row's last chunks: `n` rows of `last` values at stride m (`bufs.x_at` at the
    /// first row's), their k results at stride width.
    fn last_chunks(
        a: &KernelArgs,
        plan: &Plan,
        bufs: RawBuffers<'x>,
        split: &Split,
        width: usize,
    ) -> Self {
        let m = a.m;
        Self {
            a: KernelArgs { m: split.last, ..*a },
            vec4: vec4(a, bufs.elem, m) && vec4(a, bufs.elem, split.last),
            ld: m as u32,
            out_ld: width as u32,
            ..Self::common(a, plan, bufs)
        }
    }
}

/// Global words a split route of `n` rows and `k` results holds at once, if it can be
/// counted.
pub(crate) fn route_words(route: &Route, n: u64, k: u64) -> Option<u64> {
    let mut words = n.checked_mul(k)?.checked_mul(2)?;
    let mut at = route;
    while let Route::Split { split, rest } = at {
        let width = split.candidates(k as usize) as u64; // < 2^32: the plan checked
        words = words.checked_add(n.checked_mul(width)?.checked_mul(3)?)?;
        at = rest;
    }
    Some(words)
}

impl Simulator {
    /// Runs the split route `route` of `args` over the `(N, M)` input `src`, whole: values and
    /// indices, no iteration counts.
    pub(crate) fn run_split_route(
        &mut self,
        src: &dyn Source,
        elem: ElemType,
        args: &KernelArgs,
        route: &Route,
    ) -> Result<LaunchResult<u32>, SimError> {
        let (n, k) = (args.n as u64, args.k as u64);
        let words = route_words(route, n, k).filter(|&w| w <= SPLIT_MAX_WORDS);
        if words.is_none() {
            return Err(SimError::InvalidLaunch(format!(
                "split rows of {n} x {} (k = {k}) hold more than {SPLIT_MAX_WORDS} global \
                 words: too large to simulate",
                args.m
            )));
        }
        self.machine.free_globals();
        let bytes = elem.bytes() as u32;
        let out_val = Global::zeroed("out_val", n * k)?.with_rows(k).with_elem_bytes(bytes);
        let values = self.machine.alloc(out_val);
        let indices = self.machine.alloc(Global::zeroed("out_idx", n * k)?.with_rows(k));
        if n > 0 && k > 0 {
            let bufs =
                RawBuffers { x: src, elem, x_at: 0, values, indices, out_at: 0, iterations: None };
            let origin = Origin { x: src, m: args.m, in_idx: None };
            self.run_stage(route, args, bufs, origin)?;
        }
        let (diagnostics, summary) = self.machine.take_diagnostics();
        Ok(LaunchResult {
            values: self.machine.global(values).data().to_vec(),
            indices: self.machine.global(indices).data().to_vec(),
            iterations: Vec::new(),
            diagnostics,
            diagnostics_total: summary.total(),
            summary,
            plan: first_plan(route),
            route: route.clone(),
        })
    }

    /// `run_stage`: one plan, or split rows; the results name elements as `origin` says.
    fn run_stage(
        &mut self,
        route: &Route,
        args: &KernelArgs,
        bufs: RawBuffers<'_>,
        origin: Origin<'_>,
    ) -> Result<(), SimError> {
        match route {
            Route::Direct(plan) => self.run_plan(plan, args, bufs, origin),
            Route::Split { split, rest } => self.run_split(split, rest, args, bufs, origin),
        }
    }

    /// `run_plan`: the top-k launch over whole rows and, for sorted output, the sort (here
    /// always the route's last stage, into the caller's outputs: `bufs.out_at` is 0), which
    /// re-reads values from the caller's input.
    fn run_plan(
        &mut self,
        plan: &Plan,
        args: &KernelArgs,
        bufs: RawBuffers<'_>,
        origin: Origin<'_>,
    ) -> Result<(), SimError> {
        let (n, k) = (args.n as u64, args.k as u64);
        self.write_once(&[bufs.values, bufs.indices], true);
        let in_idx = origin.in_idx.map(|b| (b, 0));
        let params = Params { in_idx, ..Params::rows(args, plan, bufs) };
        self.launch_topk(&params, 0..n)?;
        let end = bufs.out_at + n * k;
        self.check_written(bufs.indices, bufs.out_at, end, "out_idx: every result")?;
        let Some(sort) = plan.sort else { return Ok(()) };
        self.write_once(&[bufs.values, bufs.indices], false);
        let caller = KernelArgs { m: origin.m, ..*args };
        self.sort((origin.x, bufs.elem), &caller, &sort, 0..n, bufs.values, bufs.indices)
    }

    /// `run_split`: each chunk's top k into the candidates, naming the row's elements (the
    /// chunk's column plus the position, or the index a candidate carries), then the route of
    /// the row's top k among them into the outputs.
    fn run_split(
        &mut self,
        split: &Split,
        rest: &Route,
        args: &KernelArgs,
        bufs: RawBuffers<'_>,
        origin: Origin<'_>,
    ) -> Result<(), SimError> {
        let (n, k) = (args.n as u64, args.k as u64);
        let width = split.candidates(args.k);
        let w64 = width as u64;
        // route_words counted them
        let cand = |name| Global::zeroed(name, n * w64).map(|g| g.with_rows(w64));
        let bytes = bufs.elem.bytes() as u32;
        let cand_val = self.machine.alloc(cand("cand_val")?.with_elem_bytes(bytes));
        let cand_idx = self.machine.alloc(cand("cand_idx")?);
        self.write_once(&[cand_val, cand_idx], true);
        let cand = RawBuffers { values: cand_val, indices: cand_idx, out_at: 0, ..bufs };
        let in_idx = origin.in_idx.map(|b| (b, 0));
        let first =
            Params { in_idx, ..Params::chunks(args, &split.first_plan, cand, split, width) };
        self.launch_topk(&first, 0..first.a.n as u64)?;
        let full_k = split.full as u64 * k;
        self.check_rows_written(cand_idx, (n, w64), 0..full_k, "cand_idx: every chunk's results")?;
        if let Some(last_plan) = &split.last_plan {
            let before = (split.full * split.chunk) as u64;
            let at = RawBuffers { x_at: bufs.x_at + before, out_at: full_k, ..cand };
            let in_idx = origin.in_idx.map(|b| (b, before));
            let last = Params {
                col: before,
                in_idx,
                ..Params::last_chunks(args, last_plan, at, split, width)
            };
            self.launch_topk(&last, 0..n)?;
            let label = "cand_idx: every last chunk's results";
            self.check_rows_written(cand_idx, (n, w64), full_k..full_k + k, label)?;
        }
        let second = KernelArgs { m: width, ..*args };
        let values = self.machine.global(cand_val).data().to_vec();
        let src = WordSource::new(&values, w64, bytes);
        let to_out = RawBuffers { x: &src, x_at: 0, ..bufs };
        let names = Origin { in_idx: Some(cand_idx), ..origin };
        self.run_stage(rest, &second, to_out, names)
    }

    /// Switches the write-once check of `bufs`.
    fn write_once(&mut self, bufs: &[BufId], once: bool) {
        for &id in bufs {
            self.machine.global_mut(id).set_write_once(once);
        }
    }

    /// Reports the first element of `cols` of each of `rows` rows of `stride` of `buf` that
    /// the launch left unwritten (one finding for all of them).
    fn check_rows_written(
        &mut self,
        buf: BufId,
        (rows, stride): (u64, u64),
        cols: std::ops::Range<u64>,
        label: &'static str,
    ) -> Result<(), SimError> {
        if self.machine.policy() == DiagPolicy::Off {
            return Ok(());
        }
        let g = self.machine.global(buf);
        let (mut first, mut count) = (None, 0u64);
        for r in 0..rows {
            if let Some((at, c)) = g.unwritten(r * stride + cols.start, r * stride + cols.end) {
                first.get_or_insert(at);
                count += c;
            }
        }
        let Some(first) = first else { return Ok(()) };
        self.machine.report_launch(Diagnostic {
            kind: DiagKind::OutputUnwritten,
            op: Op::Launch,
            label,
            block: 0,
            warp: 0,
            lanes: count.min(u64::from(u32::MAX)) as u32,
            address: Some(first),
        })
    }
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::rtopk::launch::SimConfig;
    use crate::rtopk::plan::Strategy;

    #[test]
    fn a_route_too_large_to_hold_is_an_error_not_an_abort() {
        let args = KernelArgs {
            n: 1 << 20,
            m: 1 << 20,
            k: 64,
            mode: Mode::Largest,
            bisect: Bisect::exact(),
            mutant: None,
        };
        let config = SimConfig { strategy: Strategy::Split, ..SimConfig::default() };
        let mut sim = Simulator::new(config);
        let route = sim.route(&args).unwrap();
        assert!(route_words(&route, 1 << 20, 64).unwrap() > SPLIT_MAX_WORDS);
        let src = crate::engine::VirtualSource::new(1 << 40, 1 << 20, |i| i as f32);
        let err = sim.run_rows(&src, &args, 0..1 << 20).unwrap_err();
        assert!(matches!(err, SimError::InvalidLaunch(_)) && err.to_string().contains("split"));
        assert_eq!(route_words(&route, u64::MAX, 2), None);
    }
}
