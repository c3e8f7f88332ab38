//! What every simulated entry point receives (the CUDA kernel's `Params`, plus where its
//! buffers live in the machine and which row is traced), and where a launch's row reads and
//! writes (`RowPlace`, `place_row`: `common.cuh`).

use std::cell::RefCell;

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::Lanes;
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::{KernelArgs, RowData};
use crate::rtopk::coverage::{Branch, Tally};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::ElemType;
use crate::rtopk::plan::{Plan, SplitRows};
use crate::rtopk::record::{Recorder, Tracer};

/// One launch's parameters.
#[derive(Clone, Copy)]
pub(crate) struct Params<'x> {
    /// `n_rows`, `m`, `k`, the mode, the search, the seeded bug.
    pub(crate) a: KernelArgs,
    /// `x`.
    pub(crate) x: &'x dyn Source,
    /// `elem_t` (`ELEM_KIND`): the type of `x` and `out_val`.
    pub(crate) elem: ElemType,
    /// `out_val`, `out_idx`, `out_iter` (`None`: a null `out_iter`, no iteration counts).
    pub(crate) out_val: BufId,
    pub(crate) out_idx: BufId,
    pub(crate) out_iter: Option<BufId>,
    /// Where the `x` and `out_val` / `out_idx` pointers point in their buffers: the CUDA
    /// launcher's pointer arithmetic (`bufs.x + 4 * before` for a split row's last chunks),
    /// 0 for every other launch.
    pub(crate) x_at: u64,
    pub(crate) out_at: u64,
    /// `ld`: the input's row stride (`m` for whole rows, the row's width for chunks).
    pub(crate) ld: u32,
    /// `out_ld`: the outputs' row stride (`k` for whole rows).
    pub(crate) out_ld: u32,
    /// `chunks`: 1, each `row_id` a row; more, `row_id` is chunk `row_id / rows` of row
    /// `row_id % rows`, `rows = n_rows / chunks` (a split row's first stage, [`chunk_of`]).
    pub(crate) chunks: u32,
    /// The launch plan (family, keys per lane, lanes per row, cached keys, narrowing).
    pub(crate) plan: Plan,
    /// `vec4`: 16-byte loads (rows 16-byte aligned and of whole 16-byte groups: `M % 4 == 0`
    /// for f32, `M % 8 == 0` for 16-bit elements).
    pub(crate) vec4: bool,
    /// The traced row and its recorder.
    pub(crate) trace: Option<(u64, &'x RefCell<dyn Recorder + 'x>)>,
    /// The run's coverage counters (not the CUDA kernel's: what the simulator reports).
    pub(crate) cover: Option<&'x Tally>,
    /// The rows' own lengths and k (docs/contract.md §5), where the launch is ragged.
    pub(crate) rows: RowData<'x>,
    /// `split_m`, `split_chunk`: the rows of a ragged split's launch (docs/kernel.md, "Split
    /// rows"; `None`: zeros, every other launch).
    pub(crate) split: Option<SplitRows>,
    /// `sorted`: the pick rows and the wide rows write each row's results in sorted order (the
    /// program's `Select::sorted`); the other families ignore it.
    pub(crate) sorted: bool,
    /// `floor`: a split's floors (floor.rs), read and raised by the chunk rows of warps and
    /// blocks; `None` (null) on every other launch.
    pub(crate) floor: Option<BufId>,
}

impl<'x> Params<'x> {
    /// Counts one row of `branch` in the run's coverage.
    pub(crate) fn covered(&self, branch: Branch) {
        if let Some(t) = self.cover {
            t.add(branch, 1);
        }
    }

    /// `row_args`: the parameters row `row_id` runs with once its own width and k are read
    /// (docs/contract.md §5): nothing past its width is loaded, and 16-byte loads (`vec4`)
    /// only where its width is whole 16-byte groups too (a block row's staged load keeps them
    /// up to the group the width cuts: `rtopk_block_row`); and where the row reads and writes
    /// (`at`). The launch's own on a plain launch (whose 16-byte loads the plan decided: rows
    /// without lengths keep them as launched).
    pub(crate) fn row_args(
        &self,
        w: &mut Warp<'_>,
        row_id: u64,
    ) -> Result<(Params<'x>, RowPlace), SimError> {
        if let Some(split) = self.split {
            return self.split_row_args(w, split, row_id);
        }
        let at = place_row(w, self, row_id)?;
        let a = self.a.row_lengths(&self.rows, row_id);
        let per16 = 16 / self.elem.bytes();
        let vec4 = self.vec4 && (self.rows.lengths.is_none() || a.m % per16 == 0);
        Ok((Params { a, vec4, ..*self }, at))
    }

    /// `p.hint[row_id]`: row `row_id`'s threshold hint, where the launch reads hints (whole
    /// rows of the ragged units only).
    pub(crate) fn row_hint(&self, row_id: u64) -> Option<f32> {
        self.rows.hint.and_then(|h| h.get(row_id as usize).copied())
    }

    /// `split_row_args`: [`Params::row_args`] of a ragged split's launch (docs/kernel.md,
    /// "Split rows"). The caller's row `r` has its length `L` and k `k_r` (`row_lengths` over
    /// the caller's width `split_m`). On the chunk launch (`chunks > 1`) chunk `c` of row `r`
    /// is its first `clamp(L - c split_chunk, 0, split_chunk)` values and selects `k_r` of
    /// them (at most that many) into `c k_r` of the row's candidates: its place (`at`) is the
    /// chunk's values and those candidates, which pads nothing (the candidates past the row's
    /// valid ones are never read). On the second stage row `r` is the first
    /// `split_candidates(L, k_r)` of its candidates, at its own place. The launch's pointers
    /// and strides stay as they are (the CUDA kernel's, rebased, cost its warp rows registers).
    fn split_row_args(
        &self,
        w: &mut Warp<'_>,
        split: SplitRows,
        row_id: u64,
    ) -> Result<(Params<'x>, RowPlace), SimError> {
        let per16 = (16 / self.elem.bytes()) as u64;
        let (row, c) = if self.chunks > 1 { chunk_of(self, row_id) } else { (row_id, 0) };
        let caller = KernelArgs { m: split.row_m as usize, ..self.a };
        let own = caller.row_lengths(&self.rows, row);
        let (len, k) = (own.m as u64, own.k as u64);
        let m = if self.chunks > 1 {
            split.chunk_len(len, c)
        } else {
            split.candidates(len, k).min(self.a.m as u64)
        };
        let a = KernelArgs { m: m as usize, k: k.min(m) as usize, ..self.a };
        let vec4 = self.vec4 && m % per16 == 0;
        let p = Params { a, vec4, ..*self };
        if self.chunks == 1 {
            return Ok((p, place_row(w, self, row_id)?));
        }
        let u = Lanes::splat;
        let row_in =
            w.mul_u64(&u(row), &u(u64::from(self.ld)), "split_row_args: row * launch.ld")?;
        let start =
            w.mul_u64(&u(c), &u(u64::from(split.chunk)), "split_row_args: c * split_chunk")?;
        let input = w.add_u64(&row_in, &start, "split_row_args: row * ld + start")?;
        let row_out =
            w.mul_u64(&u(row), &u(u64::from(self.out_ld)), "split_row_args: row * out_ld")?;
        let chunk_out = w.mul_u64(&u(c), &u(k), "split_row_args: c * k")?;
        let out = w.add_u64(&row_out, &chunk_out, "split_row_args: row * out_ld + c * k")?;
        Ok((p, at(w, self, input, out)?))
    }

    /// The tracer of row `row_id` (off for every other row).
    pub(crate) fn tracer(&self, row_id: u64) -> Tracer<'x> {
        match self.trace {
            Some((r, rec)) if r == row_id => Tracer(Some(rec)),
            _ => Tracer(None),
        }
    }
}

/// `RowPlace`: where a launch's `row_id` reads and writes — its input `row_in` (here the
/// offset of `x + ...` in the input) and the offset of its first result in `out_val` and
/// `out_idx`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowPlace {
    /// `in`: the row's first input element.
    pub(crate) input: Lanes<u64>,
    /// `out`: the row's first result.
    pub(crate) out: Lanes<u64>,
}

/// `chunk_of`: the row and chunk of a split's chunk launch `row_id` (`chunks > 1`;
/// docs/kernel.md, "Split rows") —
/// chunk-major, `row_id` is chunk `c = row_id / rows` of row `r = row_id % rows` (`rows =
/// n_rows / chunks`), so that the blocks, issued in order, take chunk 0 of every row before
/// any row's chunk 1, and a row's later chunks find its floor raised by its earlier ones
/// (floor.rs).
pub(crate) fn chunk_of(p: &Params<'_>, row_id: u64) -> (u64, u64) {
    if p.a.has(Mutant::ChunkRowMajor) {
        // BUG (ChunkRowMajor): the rows row-major, chunk `row_id % chunks` of `row_id / chunks`.
        let chunks = u64::from(p.chunks.max(1));
        return (row_id / chunks, row_id % chunks);
    }
    // a split's launch has fewer than 2^32 rows (rtopk-plan's MAX_CHUNK_ROWS): 32-bit divisions
    let rows = (p.a.n as u32 / p.chunks.max(1)).max(1);
    let c = row_id as u32 / rows;
    (u64::from(row_id as u32 - c * rows), u64::from(c))
}

/// `place_row`: whole rows (`chunks == 1`) are `row_id`'s own, `row_id * ld` and
/// `row_id * out_ld`; under a split row's first stage `row_id` is chunk `c` of row `r`
/// ([`chunk_of`]), its `m` values at `r * ld + c * m` and its `k` results at
/// `r * out_ld + c * k`, so that a row's chunk results lie side by side as the second
/// stage's row. 64-bit products, as the CUDA kernel's.
pub(crate) fn place_row(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row_id: u64,
) -> Result<RowPlace, SimError> {
    let a = &p.a;
    // BUG (OutputStrideM): the outputs' stride is the input's.
    let out_ld = if a.has(Mutant::OutputStrideM) { p.ld } else { p.out_ld };
    let u = Lanes::splat;
    if p.chunks == 1 {
        let input = row_times(w, a, row_id, p.ld, "place_row: row_id * (u64)p.ld")?;
        let out = w.mul_u64(&u(row_id), &u(u64::from(out_ld)), "place_row: row_id * out_ld")?;
        return at(w, p, input, out);
    }
    w.check_that(p.chunks > 0, "place_row: chunks >= 1")?;
    let (row, c) = chunk_of(p, row_id);
    // BUG (ChunkOffsetUsesLd): the chunk's start steps by the row's stride, not the chunk's.
    let step = if a.has(Mutant::ChunkOffsetUsesLd) { p.ld } else { a.m as u32 };
    let row_in = row_times(w, a, row, p.ld, "place_row: row * (u64)p.ld")?;
    let chunk_in = w.mul_u64(&u(c), &u(u64::from(step)), "place_row: c * (u64)p.m")?;
    let input = w.add_u64(&row_in, &chunk_in, "place_row: row * ld + c * m")?;
    let row_out = w.mul_u64(&u(row), &u(u64::from(out_ld)), "place_row: row * out_ld")?;
    let chunk_out = w.mul_u64(&u(c), &u(a.k as u64), "place_row: c * (u64)p.k")?;
    let out = w.add_u64(&row_out, &chunk_out, "place_row: row * out_ld + c * k")?;
    at(w, p, input, out)
}

/// `row * (u64)ld`: a row's input offset in 64 bits (in 32 under [`Mutant::RowOffset32Bit`]).
fn row_times(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: u64,
    ld: u32,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    if a.has(Mutant::RowOffset32Bit) {
        // BUG: `row_id * ld` in 32 bits.
        let off = w.mul_u32(&Lanes::splat(row as u32), &Lanes::splat(ld), label)?;
        return Ok(off.map(u64::from));
    }
    w.mul_u64(&Lanes::splat(row), &Lanes::splat(u64::from(ld)), label)
}

/// The place's offsets from where the launch's pointers point (`x_at`, `out_at`).
fn at(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    input: Lanes<u64>,
    out: Lanes<u64>,
) -> Result<RowPlace, SimError> {
    let input = w.add_u64(&Lanes::splat(p.x_at), &input, "place_row: p.x + offset")?;
    let out = w.add_u64(&Lanes::splat(p.out_at), &out, "place_row: p.out_val + offset")?;
    Ok(RowPlace { input, out })
}
