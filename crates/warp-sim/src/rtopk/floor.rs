//! Split rows: the floor (the CUDA kernel's `floor.cuh`; docs/kernel.md, "Split rows: the
//! floor"). Every chunk's k-th key is at or below its row's k-th (a chunk's top k are k keys of
//! the row), so the largest k-th key a chunk has found so far, the row's floor, is too. A chunk
//! with at most k keys at or above the floor selects those alone and pads the rest of its k
//! results with the mode's last value, below every floor; a chunk with more searches from the
//! floor up and raises the floor to its own threshold. The floor only rises: the answer never
//! depends on the order the chunks run in, only the work does.

use crate::engine::error::SimError;
use crate::engine::lanes::Lanes;
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::KernelArgs;
use crate::rtopk::coverage::Branch;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::ElemType;
use crate::rtopk::params::{Params, chunk_of};
use crate::rtopk::rows::Row;
use crate::rtopk::select::Cut;

/// `NO_FLOOR`: no floor cuts the row ([`count_at_floor`]), more than any k.
pub(crate) const NO_FLOOR: u32 = u32::MAX;

/// `last_value`: the bits of the mode's last value of `elem`, below every key a floor can
/// hold — -inf in largest mode, NaN in smallest (docs/contract.md §1). Integer rows take no
/// floor (rtopk-plan's `takes_floor`).
pub(crate) fn last_value(elem: ElemType, sign: f32) -> u32 {
    let smallest = sign < 0.0;
    match (elem, smallest) {
        (ElemType::F32, false) => 0xff80_0000,
        (ElemType::F32, true) => 0x7fc0_0000,
        (ElemType::F16, false) => 0xfc00,
        (ElemType::F16, true) => 0x7e00,
        (ElemType::Bf16, false) => 0xff80,
        (ElemType::Bf16, true) => 0x7fc0,
        _ => 0,
    }
}

/// The row of chunk `row_id` whose floor it reads and raises: `chunk_of(p, row_id).row`, which
/// the kernel writes inline (a function here only to hold the seeded bug
/// [`Mutant::FloorRowMajor`]).
fn floor_row(p: &Params<'_>, row_id: u64) -> u64 {
    if p.a.has(Mutant::FloorRowMajor) {
        // BUG (FloorRowMajor): the row row-major, `row_id / chunks`.
        return row_id / u64::from(p.chunks.max(1));
    }
    chunk_of(p, row_id).0
}

/// `floor_of`: the floor of chunk `row_id`'s row ([`chunk_of`]), read by the lanes
/// `reader` with a relaxed atomic load (other chunks raise it meanwhile; every chunk of a row
/// reads the one word, which an atomic read-modify-write would serialize); 0 in the other
/// lanes, and everywhere on a launch without floors.
pub(crate) async fn floor_of(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row_id: u64,
    reader: &Lanes<bool>,
) -> Result<Lanes<u32>, SimError> {
    let Some(buf) = p.floor else { return Ok(Lanes::splat(0)) };
    let at = Lanes::splat(floor_row(p, row_id));
    let saved = w.push_active(reader, "floor_of: the reading thread")?;
    let label = "floor_of: load_relaxed(floor + chunk_of(p, row_id).row)";
    let f = w.atomic_load_global(buf, &at, &Lanes::splat(0), label).await?;
    w.pop_active(saved);
    Ok(Lanes::select(reader, &f, &Lanes::splat(0)))
}

/// `raise_floor`: the lanes `writer` raise the floor of chunk `row_id`'s row to `key`, a key at
/// or below the chunk's k-th (its cut's `band_lo`: `count_ge(band_lo) >= k`), with an atomic
/// max only where the floor, read again, lies below it (most chunks of a wave find it raised
/// past theirs already).
pub(crate) async fn raise_floor(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row_id: u64,
    key: u32,
    writer: &Lanes<bool>,
) -> Result<(), SimError> {
    let Some(buf) = p.floor else { return Ok(()) };
    let at = Lanes::splat(floor_row(p, row_id));
    let saved = w.push_active(writer, "raise_floor: the writing thread")?;
    let label = "raise_floor: load_relaxed(floor + chunk_of(p, row_id).row)";
    let now = w.atomic_load_global(buf, &at, &Lanes::splat(0), label).await?;
    let now = Lanes::select(writer, &now, &Lanes::splat(u32::MAX));
    let below = now.map(|f| f < key);
    w.pop_active(saved);
    let saved = w.push_active(&below, "raise_floor: if (floor < key)")?;
    let label = "raise_floor: atomicMax(floor + chunk_of(p, row_id).row, key)";
    w.atomic_max_global(buf, &at, &Lanes::splat(key), label).await?;
    w.pop_active(saved);
    Ok(())
}

/// [`raise_floor`] where the launch has floors, counted in the run's coverage (the simulator's
/// report, no kernel state).
pub(crate) async fn raised(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row_id: u64,
    band_lo: u32,
    writer: &Lanes<bool>,
) -> Result<(), SimError> {
    if p.floor.is_some() {
        p.covered(Branch::FloorRaised);
    }
    raise_floor(w, p, row_id, band_lo, writer).await
}

/// `count_at_floor`: the keys at or above a floor that cuts the row (`floor > lo_key`, the
/// row's least key), else [`NO_FLOOR`]. At most k: those are the chunk's selection; more: the
/// search starts from the floor.
pub(crate) async fn count_at_floor<R: Row>(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut R,
    floor: u32,
    lo_key: u32,
) -> Result<u32, SimError> {
    if floor > lo_key { row.count_ge_positive(w, a, floor).await } else { Ok(NO_FLOOR) }
}

/// `floor_cut`: the cut that takes every key at or above the floor, `n <= k` of them: all
/// strong, no band.
pub(crate) fn floor_cut(floor: u32, n: u32) -> Cut {
    Cut { strong_above: floor - 1, band_lo: floor, strong_count: n }
}

/// `pad_below_floor`: results `n .. k` of a chunk that selected `n < k` keys at or above its
/// floor get index PAD (`0xffffffff`) and the mode's last value ([`last_value`]), from
/// threads `t` striding by `stride`.
pub(crate) async fn pad_below_floor(
    w: &mut Warp<'_>,
    (out_val, out_idx, out_off): (BufId, BufId, &Lanes<u64>),
    (elem, sign): (ElemType, f32),
    (n, k): (u32, u32),
    t: &Lanes<u32>,
    stride: u32,
) -> Result<(), SimError> {
    let last = Lanes::splat(last_value(elem, sign));
    let mut base = n;
    while base < k {
        let pos = t.map(|t| base.saturating_add(t));
        let saved = w.push_active(&pos.map(|p| p < k), "pad_below_floor: i < k")?;
        let at = w.add_u64(out_off, &pos.map(u64::from), "pad_below_floor: out + i")?;
        w.st_global(out_idx, &at, &Lanes::splat(u32::MAX), "pad_below_floor: out_idx[i] = PAD")
            .await?;
        w.st_global(out_val, &at, &last, "pad_below_floor: out_val[i] = last").await?;
        w.pop_active(saved);
        base = base.saturating_add(stride);
    }
    Ok(())
}
