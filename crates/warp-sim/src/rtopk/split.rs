//! Split rows on the simulator (docs/kernel.md, "Split rows"; rtopk-plan's `split`): the CUDA
//! launcher's `run_route`, `run_plan`, `run_split` and `launch_gather` (rtopk-cuda's
//! `src/launch.rs`) stage for stage, and the last step's kernel `rtopk_split_gather`
//! (`kernels/split_rows.cu`).
//!
//! The first stage is the ordinary kernels launched over the chunks as rows (`Params::chunks`:
//! `n * full` rows of `chunk`, `place_row` puts chunk `c` of row `r` at `r * m + c * chunk` and
//! its `k` results at `r * width + c * k`; `Params::last_chunks`: `n` rows of `last` from
//! `full * chunk` on, their results from `full * k` on) into the candidates, global buffers of
//! the machine (write-once, each launch's share checked written; the tasks own their row of
//! the input and of the candidates, [`crate::engine::Rows::parts_per_row`]). The second stage
//! is the route of `(n, width, k)` over the candidates' values — split again where the plan
//! says — into the caller's outputs, sorted there if asked; a kernel boundary orders every
//! candidate write before it, so it reads them as its input, a read-only copy. Then
//! `rtopk_split_gather` turns the positions among the candidates back into the row's indices.
//!
//! The candidates' values are of the input's type (a 16-bit matrix for a 16-bit input).
//!
//! A split route runs whole, without the windows of a direct launch: every candidate buffer
//! is held at once, so its size is checked first ([`SPLIT_MAX_WORDS`]).

use crate::engine::diag::{DiagKind, DiagPolicy, Diagnostic, Op};
use crate::engine::error::SimError;
use crate::engine::global::{Global, Source, WordSource};
use crate::engine::lanes::Lanes;
use crate::engine::machine::Grid;
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::KernelArgs;
use crate::rtopk::launch::{LaunchResult, Simulator, first_plan, vec4};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::ElemType;
use crate::rtopk::params::Params;
use crate::rtopk::plan::{Plan, Route, Split};
use crate::rtopk::select::check_input_bits;

/// The most global words a split route may hold at once (its outputs, and for each split its
/// candidates' values and indices and the copy the next stage reads): about 700 MB of
/// simulated memory with its shadow state.
pub const SPLIT_MAX_WORDS: u64 = 1 << 25;

/// Threads per block of `rtopk_split_gather` (the CUDA launcher's).
const GATHER_THREADS: u32 = 256;
/// Blocks per SM of `rtopk_split_gather` at most (the CUDA launcher's): the grid strides.
const GATHER_BLOCKS_PER_SM: u64 = 64;

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
            self.run_route(route, args, bufs)?;
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

    /// `run_route`: one plan, or split rows.
    fn run_route(
        &mut self,
        route: &Route,
        args: &KernelArgs,
        bufs: RawBuffers<'_>,
    ) -> Result<(), SimError> {
        match route {
            Route::Direct(plan) => self.run_plan(plan, args, bufs),
            Route::Split { split, rest } => self.run_split(split, rest, args, bufs),
        }
    }

    /// `run_plan`: the top-k launch over whole rows and, for sorted output, the sort (here
    /// always the route's last stage, into the caller's outputs: `bufs.out_at` is 0).
    fn run_plan(
        &mut self,
        plan: &Plan,
        args: &KernelArgs,
        bufs: RawBuffers<'_>,
    ) -> Result<(), SimError> {
        let (n, k) = (args.n as u64, args.k as u64);
        self.write_once(&[bufs.values, bufs.indices], true);
        let params = Params::rows(args, plan, bufs);
        self.launch_topk(&params, 0..n)?;
        let end = bufs.out_at + n * k;
        self.check_written(bufs.indices, bufs.out_at, end, "out_idx: every result")?;
        let Some(sort) = plan.sort else { return Ok(()) };
        self.write_once(&[bufs.values, bufs.indices], false);
        self.sort((bufs.x, bufs.elem), args, &sort, 0..n, bufs.values, bufs.indices)
    }

    /// `run_split`: each chunk's top k into the candidates, the route of the row's top k among
    /// them into the outputs, and the indices back to the row's.
    fn run_split(
        &mut self,
        split: &Split,
        rest: &Route,
        args: &KernelArgs,
        bufs: RawBuffers<'_>,
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
        let first = Params::chunks(args, &split.first_plan, cand, split, width);
        self.launch_topk(&first, 0..first.a.n as u64)?;
        let full_k = split.full as u64 * k;
        self.check_rows_written(cand_idx, (n, w64), 0..full_k, "cand_idx: every chunk's results")?;
        if let Some(last_plan) = &split.last_plan {
            let before = (split.full * split.chunk) as u64;
            let at = RawBuffers { x_at: bufs.x_at + before, out_at: full_k, ..cand };
            let last = Params::last_chunks(args, last_plan, at, split, width);
            self.launch_topk(&last, 0..n)?;
            let label = "cand_idx: every last chunk's results";
            self.check_rows_written(cand_idx, (n, w64), full_k..full_k + k, label)?;
        }
        let second = KernelArgs { m: width, ..*args };
        let values = self.machine.global(cand_val).data().to_vec();
        let src = WordSource::new(&values, w64, bytes);
        let to_out = RawBuffers { x: &src, x_at: 0, ..bufs };
        self.run_route(rest, &second, to_out)?;
        self.launch_gather(args, cand_idx, bufs, (n, k, w64, split.chunk as u64))
    }

    /// `launch_gather`: `rtopk_split_gather` over `n` rows of `k` positions among `width`
    /// candidates from chunks of `chunk`, rewriting `bufs.indices` (`bufs.out_at` is 0).
    fn launch_gather(
        &mut self,
        args: &KernelArgs,
        cand_idx: BufId,
        bufs: RawBuffers<'_>,
        (n, k, width, chunk): (u64, u64, u64, u64),
    ) -> Result<(), SimError> {
        let total = n * k;
        let per_sm = self.config().limits.sm_count as u64 * GATHER_BLOCKS_PER_SM;
        let blocks = total.div_ceil(u64::from(GATHER_THREADS)).min(per_sm).max(1);
        let grid = Grid::new(blocks as u32, GATHER_THREADS / 32, 0);
        let g = Gather {
            a: *args,
            cand_idx,
            out_idx: bufs.indices,
            n_rows: n,
            k: k as u32,
            width: width as u32,
            chunk_m: chunk as u32,
            x: bufs.x,
            x_at: bufs.x_at,
            out_val: bufs.values,
        };
        self.write_once(&[bufs.indices], true);
        let passes = total.div_ceil(blocks * u64::from(GATHER_THREADS));
        self.machine.set_step_limit(64 * (16 * passes + 64));
        self.machine.launch(grid, async |mut w| rtopk_split_gather(&mut w, &g).await)?;
        self.check_written(bufs.indices, 0, total, "out_idx: every result gathered")
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

/// `rtopk_split_gather`'s arguments (`cand_idx`, `out_idx`, `n_rows`, `k`, `width`,
/// `chunk_m`), and what the simulator's contract check reads host-side: the stage's input and
/// its values.
struct Gather<'x> {
    a: KernelArgs,
    cand_idx: BufId,
    out_idx: BufId,
    n_rows: u64,
    k: u32,
    width: u32,
    chunk_m: u32,
    x: &'x dyn Source,
    x_at: u64,
    out_val: BufId,
}

/// `rtopk_split_gather`: one thread per result, the grid striding over them; result `i` of
/// row `i / k` holds position `pos` among the row's candidates, whose chunk `pos / k` starts
/// at `pos / k * chunk_m` and named the element by its index within the chunk.
async fn rtopk_split_gather(w: &mut Warp<'_>, g: &Gather<'_>) -> Result<(), SimError> {
    let u = Lanes::splat;
    let k = u64::from(g.k);
    let total = w.mul_u64(&u(g.n_rows), &u(k), "rtopk_split_gather: n_rows * (u64)k")?;
    let bd = u64::from(w.block_dim());
    let first = w.mul_u64(&u(u64::from(w.block_idx())), &u(bd), "blockIdx.x * blockDim.x")?;
    let tid = w.thread_idx().map(u64::from);
    let mut i = w.add_u64(&first, &tid, "rtopk_split_gather: i = blockIdx.x * blockDim.x + tid")?;
    let stride = u64::from(w.grid_dim()) * bd;
    loop {
        let inside = i.zip(&total, |i, t| i < t);
        let saved = w.push_active(&inside, "rtopk_split_gather: i < total")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            return Ok(());
        }
        let row = i.map(|i| i / k);
        let pos = w.ld_global(g.out_idx, &i, "rtopk_split_gather: pos = out_idx[i]").await?;
        let pos = pos.map(u64::from);
        let row_at = w.mul_u64(&row, &u(u64::from(g.width)), "rtopk_split_gather: row * width")?;
        let at = w.add_u64(&row_at, &pos, "rtopk_split_gather: row * width + pos")?;
        let label = "rtopk_split_gather: cand_idx[row * width + pos]";
        let cand = w.ld_global(g.cand_idx, &at, label).await?.map(u64::from);
        let chunk = pos.map(|p| p / k);
        let label = "rtopk_split_gather: pos / k * (u64)chunk_m";
        let start = w.mul_u64(&chunk, &u(u64::from(g.chunk_m)), label)?;
        // BUG (SplitGatherNoChunkStart): the index within the chunk, taken for the row's.
        let start = if g.a.has(Mutant::SplitGatherNoChunkStart) { u(0u64) } else { start };
        let index = w.add_u64(&cand, &start, "rtopk_split_gather: cand_idx[..] + chunk start")?;
        w.check(&index.map(|v| v <= u64::from(u32::MAX)), "rtopk_split_gather: (idx_t) index")?;
        check_gathered(w, g, &i, &index)?;
        let index = index.map(|v| v as u32);
        w.st_global(g.out_idx, &i, &index, "rtopk_split_gather: out_idx[i] = index").await?;
        let next = i.map(|i| i.wrapping_add(stride));
        w.assign(&mut i, &next);
        w.pop_active(saved);
    }
}

/// The simulator's contract check on a gathered index (SPEC §1): the value the row's result
/// holds is the bits of the element the index names, `x[row * m + index]`. Not a simulated
/// access: it reads the input and the values host-side.
fn check_gathered(
    w: &mut Warp<'_>,
    g: &Gather<'_>,
    i: &Lanes<u64>,
    index: &Lanes<u64>,
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let (k, m) = (u64::from(g.k), g.a.m as u64);
    let src = i.zip(index, |i, idx| {
        let row_in = (i / k).saturating_mul(m).saturating_add(g.x_at);
        if idx < m { row_in.saturating_add(idx) } else { u64::MAX }
    });
    let active = w.active_mask();
    let val = Lanes::from_fn(|l| match active >> l & 1 {
        1 => w.peek_global(g.out_val, i.lane(l), 1).first().copied().unwrap_or(0),
        _ => 0,
    });
    check_input_bits(
        w,
        g.x,
        &src,
        &val,
        "rtopk_split_gather: out_val[i] is x[row, index] (SPEC §1)",
    )
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
