//! The last step of a split row (docs/kernel.md, "Split rows"; the program's
//! `gather_indices`): the kernel `rtopk_split_gather` (`kernels/split_rows.cu`), which turns
//! each result's position among its row's candidates back into the row's index, and the
//! simulator's check that the index names the element the result claims.

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::Lanes;
use crate::engine::machine::Grid;
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::{KernelArgs, per_row_entry};
use crate::rtopk::launch::Simulator;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::plan::{self, Gather};
use crate::rtopk::select::check_input_bits;

impl Simulator {
    /// `rtopk_split_gather` over the gather step's rows, in its grid, rewriting the positions
    /// in `out_idx`; `x` is the level's input (for the check), `out_val` the results' values.
    pub(crate) fn launch_gather(
        &mut self,
        args: &KernelArgs,
        grid: plan::Grid,
        g: &Gather,
        x: &dyn Source,
        (cand_idx, out_idx, out_val): (BufId, BufId, BufId),
        k_per_row: Option<&[u32]>,
    ) -> Result<(), SimError> {
        let total = g.n_rows * u64::from(g.k);
        let blocks = u64::from(grid.blocks.max(1));
        let engine_grid = Grid::new(grid.blocks, grid.threads / 32, 0);
        let ga = GatherArgs { a: *args, cand_idx, out_idx, g: *g, x, out_val, k_per_row };
        self.write_once(&[out_idx], true);
        // each row's results before its padding (docs/contract.md §5), which stays as it is
        let k = u64::from(g.k);
        let results: Vec<u64> = self
            .machine
            .global(out_idx)
            .data()
            .chunks(k.max(1) as usize)
            .map(|row| row.iter().take_while(|&&i| i != u32::MAX).count() as u64)
            .collect();
        let passes = total.div_ceil(blocks * u64::from(grid.threads.max(1)));
        self.machine.set_step_limit(64 * (16 * passes + 64));
        self.machine.launch(engine_grid, async |mut w| rtopk_split_gather(&mut w, &ga).await)?;
        let label = "out_idx: every result gathered";
        let results = |r: u64| results.get(r as usize).copied().unwrap_or(0);
        self.check_prefixes_written(out_idx, (0..g.n_rows, k), results, label)
    }
}

/// `rtopk_split_gather`'s arguments (`cand_idx`, `out_idx`, the step's `n_rows`, `k`,
/// `width`, `chunk` as `chunk_m`, and a ragged split's `k_per_row`, read host-side as the
/// top-k launches read theirs), and what the simulator's contract check reads host-side:
/// the level's input, its chunks and the results' values.
struct GatherArgs<'x> {
    a: KernelArgs,
    cand_idx: BufId,
    out_idx: BufId,
    g: Gather,
    x: &'x dyn Source,
    out_val: BufId,
    k_per_row: Option<&'x [u32]>,
}

/// `rtopk_split_gather`: one thread per result, the grid striding over them; result `i` of
/// row `i / k` holds position `pos` among the row's candidates, whose chunk `pos / k` starts
/// at `pos / k * chunk_m` and named the element by its index within the chunk. A ragged
/// split's chunk results lie `k_i = per_row_entry(k_per_row[row], k)` apart (chunk `pos / k_i`), and a
/// row's padding (index PAD) stays padding.
async fn rtopk_split_gather(w: &mut Warp<'_>, g: &GatherArgs<'_>) -> Result<(), SimError> {
    let u = Lanes::splat;
    let k = u64::from(g.g.k);
    let total = w.mul_u64(&u(g.g.n_rows), &u(k), "rtopk_split_gather: n_rows * (u64)k")?;
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
        let real = pos.map(|p| p != u32::MAX);
        let padded = w.push_active(&real, "rtopk_split_gather: pos != PAD")?;
        let pos = pos.map(u64::from);
        let per_chunk = row.map(|r| match g.k_per_row {
            Some(ks) => ks.get(r as usize).map_or(k, |&kr| per_row_entry(kr, k)),
            None => k,
        });
        let row_at =
            w.mul_u64(&row, &u(u64::from(g.g.width)), "rtopk_split_gather: row * width")?;
        let at = w.add_u64(&row_at, &pos, "rtopk_split_gather: row * width + pos")?;
        let label = "rtopk_split_gather: cand_idx[row * width + pos]";
        let cand = w.ld_global(g.cand_idx, &at, label).await?.map(u64::from);
        let chunk = pos.zip(&per_chunk, |p, kr| p / kr.max(1));
        let label = "rtopk_split_gather: pos / k * (u64)chunk_m";
        let start = w.mul_u64(&chunk, &u(u64::from(g.g.chunk)), label)?;
        // BUG (SplitGatherNoChunkStart): the index within the chunk, taken for the row's.
        let start = if g.a.has(Mutant::SplitGatherNoChunkStart) { u(0u64) } else { start };
        let index = w.add_u64(&cand, &start, "rtopk_split_gather: cand_idx[..] + chunk start")?;
        w.check(&index.map(|v| v <= u64::from(u32::MAX)), "rtopk_split_gather: (idx_t) index")?;
        check_gathered(w, g, &i, (&chunk, &index))?;
        let index = index.map(|v| v as u32);
        w.st_global(g.out_idx, &i, &index, "rtopk_split_gather: out_idx[i] = index").await?;
        w.pop_active(padded);
        let next = i.map(|i| i.wrapping_add(stride));
        w.assign(&mut i, &next);
        w.pop_active(saved);
    }
}

/// The simulator's contract checks on a gathered index (docs/contract.md §1): the index
/// names the element the result came from — it lies in the chunk the candidate came from
/// (chunk `pos / k`), and the value the result holds is that element's bits,
/// `x[row * m + index]`. Not simulated accesses: they read the input and the values host-side.
fn check_gathered(
    w: &mut Warp<'_>,
    g: &GatherArgs<'_>,
    i: &Lanes<u64>,
    (chunk, index): (&Lanes<u64>, &Lanes<u64>),
) -> Result<(), SimError> {
    if !w.checks() {
        return Ok(());
    }
    let (k, m) = (u64::from(g.g.k), g.g.row_len);
    let in_chunk = chunk.zip(index, |c, idx| {
        let (start, end) = g.g.chunk_span(c);
        (start..end).contains(&idx)
    });
    w.check(&in_chunk, "rtopk_split_gather: the index lies in the candidate's chunk")?;
    let (base, ld) = (g.g.input.offset, g.g.input.ld);
    let src = i.zip(index, |i, idx| {
        let row_in = (i / k.max(1)).saturating_mul(ld).saturating_add(base);
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
        "rtopk_split_gather: out_val[i] is x[row, index] (docs/contract.md §1)",
    )
}
