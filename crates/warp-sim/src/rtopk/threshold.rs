//! The program's `row_threshold` step (docs/contract.md §5): the kernel `rtopk_row_threshold`
//! (`kernels/threshold.cu`), `lanes_per_row` lanes per row (the plan's
//! `threshold_lanes_per_row`: 32 while the rows fit the device's warps, else the fewest, a
//! power of two, that read a row in one batch of [`THRESHOLD_BATCH`] loads a lane;
//! `32 / lanes_per_row` rows a warp), then `warps_per_row` warps per row (the plan's
//! `threshold_warps_per_row`: one up to 512 values, else a warp for every 256), which read
//! the row's `k_i` selected values from the values output (one pass, [`THRESHOLD_BATCH`]
//! loads a lane in flight, each lane keeping the value of its least key, so that no load
//! follows the reductions) and write, as f32, the one that ranks last in the mode — the least own key,
//! and among equal keys the last position (the highest index in index order, the last entry
//! in sorted order): topk-ref's `ragged::threshold_of` — or NaN where `k_i = 0`.
//! The keys are 64 bits wide on rows of f64 and i64 (`threshold_key`, `threshold_min`), whose
//! values become f32 as topk-ref's `to_f32` makes them (`wide_threshold_value`).

use topk_ref::{bf16, f16};

use crate::engine::error::SimError;
use crate::engine::lanes::Lanes;
use crate::engine::machine::Grid;
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::{KernelArgs, RowData};
use crate::rtopk::launch::Simulator;
use crate::rtopk::order::{ElemType, int_value, own_key};
use crate::rtopk::plan::{self, THRESHOLD_BATCH, Threshold};
use crate::rtopk::wide::{warp_min64, wide_key, wide_threshold_value};

/// The quiet NaN the kernel writes for a row that selects nothing.
const NAN_BITS: u32 = 0x7fc0_0000;

/// `rtopk_row_threshold`'s arguments (`values`, `threshold`, and the step's `n_rows`, `m`,
/// `k`, the mode, the lengths and per-row k where the step reads them), and the caller's rows
/// `first .. end` that this run of the program holds.
struct ThresholdArgs<'x> {
    a: KernelArgs,
    elem: ElemType,
    values: BufId,
    threshold: BufId,
    t: Threshold,
    rows: RowData<'x>,
    window: (u64, u64),
}

impl Simulator {
    /// `rtopk_row_threshold` over the step's rows `window` (the blocks holding them: the
    /// program runs its rows in windows of whole blocks), writing `threshold`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_threshold(
        &mut self,
        args: &KernelArgs,
        elem: ElemType,
        grid: plan::Grid,
        t: &Threshold,
        rows: RowData<'_>,
        window: (u64, u64),
        (values, threshold): (BufId, BufId),
    ) -> Result<(), SimError> {
        let warps = grid.threads / 32;
        let lanes = t.lanes_per_row;
        if t.warps_per_row == 0 || warps == 0 || warps % t.warps_per_row != 0 {
            return Err(SimError::InvalidLaunch(format!(
                "rtopk_row_threshold: {} warps a row in blocks of {warps}",
                t.warps_per_row
            )));
        }
        if !(lanes.is_power_of_two() && lanes <= 32 && (lanes == 32 || t.warps_per_row == 1)) {
            return Err(SimError::InvalidLaunch(format!(
                "rtopk_row_threshold: {lanes} lanes a row over {} warps",
                t.warps_per_row
            )));
        }
        let per_block = u64::from(warps / t.warps_per_row * (32 / lanes));
        let mut engine_grid = Grid::new(grid.blocks, warps, SHARED_WORDS);
        if u64::from(grid.blocks) * per_block >= t.n_rows {
            // each block's rows are its first (the grid covers the rows once): the window's
            let first = (window.0 / per_block).min(u64::from(grid.blocks)) as u32;
            let end = window.1.div_ceil(per_block).min(u64::from(grid.blocks)) as u32;
            engine_grid.simulate = (first, end);
        }
        let ta = ThresholdArgs { a: *args, elem, values, threshold, t: *t, rows, window };
        self.write_once(&[threshold], true);
        // a warp's steps: its rows, each a few dozen a value a lane reads, and the reductions
        let sweeps = t.n_rows.div_ceil(u64::from(grid.blocks).max(1) * per_block).max(1);
        let per_lane = u64::from(t.k.div_ceil(lanes * t.warps_per_row)).max(16);
        self.machine.set_step_limit(sweeps * (16 * per_lane + 256));
        self.machine.launch(engine_grid, async |mut w| rtopk_row_threshold(&mut w, &ta).await)?;
        let (r0, r1) = window;
        self.check_prefixes_written(threshold, (r0..r1, 1), |_| 1, "threshold: every row")
    }
}

/// `threshold_value`: an element's bits as f32, as topk-ref's `Element::to_f32` (the `half`
/// crate's conversions): exact for every float number; a 16-bit NaN keeps its sign and payload
/// and comes back quiet; an integer of up to 32 bits rounds to the nearest f32 (ties to even:
/// `__int2float_rn`); a 64-bit element, [`wide_threshold_value`].
pub(crate) fn threshold_value(elem: ElemType, bits: u64) -> u32 {
    match elem {
        ElemType::F32 => bits as u32,
        ElemType::F16 => f16::from_bits(bits as u16).to_f32().to_bits(),
        ElemType::Bf16 => bf16::from_bits(bits as u16).to_f32().to_bits(),
        ElemType::I8 | ElemType::U8 | ElemType::I16 | ElemType::I32 => {
            (int_value(elem, bits as u32) as f32).to_bits()
        }
        ElemType::F64 | ElemType::I64 => wide_threshold_value(elem, bits),
    }
}

/// `threshold_key`: the key the threshold ranks values by — the element's own key, 64 bits
/// wide for f64 and i64 (`wide_key`), else its 32-bit own key (`own_key`), widened.
fn threshold_key(ta: &ThresholdArgs<'_>, bits: u64, sign: f32) -> u64 {
    if ta.elem.wide() {
        return wide_key(ta.elem, bits, sign);
    }
    u64::from(own_key(&ta.a, ta.elem, bits as u32, sign))
}

/// `threshold_min`: the warp's least key — `warp_min64` of 64-bit keys, `__reduce_min_sync`
/// of 32-bit ones.
fn threshold_min(
    w: &mut Warp<'_>,
    ta: &ThresholdArgs<'_>,
    v: &Lanes<u64>,
) -> Result<Lanes<u64>, SimError> {
    if ta.elem.wide() {
        return warp_min64(w, v);
    }
    let narrow = v.map(|k| k as u32);
    let least = w.reduce_min_sync(u32::MAX, &narrow, "rtopk_row_threshold: least own key")?;
    Ok(least.map(u64::from))
}

/// `values[at]`: an element's bits, 8 bytes of them on a 64-bit row.
async fn load_value(
    w: &mut Warp<'_>,
    ta: &ThresholdArgs<'_>,
    at: &Lanes<u64>,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    if ta.elem.wide() {
        return w.ld_global64(ta.values, at, label).await;
    }
    Ok(w.ld_global(ta.values, at, label).await?.map(u64::from))
}

/// The shared words: a warp's part (`s_least`, two words a warp; `s_last`; `s_value`, two
/// words a warp) for the block's 8 warps.
const SHARED_WORDS: usize = 40;
const S_LEAST: u32 = 0;
const S_LAST: u32 = 16;
const S_VALUE: u32 = 24;

/// `threshold_batch`: the lane's values at positions `base + stride j + sub` (`sub`: its place
/// among its row's lanes; `j < rounds`, the batch's strides that reach below its row's `k`, of
/// at most [`THRESHOLD_BATCH`]; those below `k`), all loaded before the first is compared,
/// folded into the lane's least key, the last position holding it (position + 1) and its
/// value: positions rise, so a key equal to the least moves `last` and `value` on. The strides
/// past `k` are skipped, not predicated off (the kernel's `rounds` is the same for a row's
/// lanes). The active lanes are those whose rows reach past `base`.
async fn threshold_batch(
    w: &mut Warp<'_>,
    ta: &ThresholdArgs<'_>,
    (row_base, base, stride, k, sub): (&Lanes<u64>, u32, u32, &Lanes<u32>, &Lanes<u32>),
    sign: f32,
    part: &mut ThresholdPart,
) -> Result<(), SimError> {
    // the strides that reach below k (base < k in every active lane); the rest are skipped
    let rounds = k.map(|k| k.saturating_sub(base).div_ceil(stride).min(THRESHOLD_BATCH));
    let most = (0..32).filter(|&l| w.active_mask() >> l & 1 == 1).map(|l| rounds.lane(l)).max();
    let mut x = Vec::new();
    for j in 0..most.unwrap_or(0) {
        let saved = w.push_active(&rounds.map(|r| j < r), "threshold_batch: j < rounds")?;
        let pos = sub.map(|s| base + stride * j + s);
        let below = Lanes::from_fn(|l| pos.lane(l) < k.lane(l));
        let inner = w.push_active(&below, "threshold_batch: i < k_i")?;
        let at = w.add_u64(row_base, &pos.map(u64::from), "threshold_batch: row * k + i")?;
        x.push(load_value(w, ta, &at, "threshold_batch: x[j] = values[row * k + i]").await?);
        w.pop_active(inner);
        w.pop_active(saved);
    }
    for (j, v) in (0..).zip(&x) {
        let saved = w.push_active(&rounds.map(|r| j < r), "threshold_batch: j < rounds")?;
        let pos = sub.map(|s| base + stride * j + s);
        let below = Lanes::from_fn(|l| pos.lane(l) < k.lane(l));
        let inner = w.push_active(&below, "threshold_batch: i < k_i")?;
        let key = v.map(|b| threshold_key(ta, b, sign));
        let lower = Lanes::from_fn(|l| key.lane(l) <= part.least.lane(l));
        let next = ThresholdPart {
            least: Lanes::select(&lower, &key, &part.least),
            last: Lanes::select(&lower, &pos.map(|p| p + 1), &part.last),
            value: Lanes::select(&lower, v, &part.value),
        };
        w.assign(&mut part.least, &next.least);
        w.assign(&mut part.last, &next.last);
        w.assign(&mut part.value, &next.value);
        w.pop_active(inner);
        w.pop_active(saved);
    }
    Ok(())
}

/// `ThresholdPart`, a lane's: the least key of its positions, the last position holding it
/// (position + 1; 0: none) and that position's value bits.
struct ThresholdPart {
    least: Lanes<u64>,
    last: Lanes<u32>,
    value: Lanes<u64>,
}

impl ThresholdPart {
    /// A lane holding nothing.
    fn none() -> Self {
        ThresholdPart {
            least: Lanes::splat(u64::MAX),
            last: Lanes::splat(0),
            value: Lanes::splat(0),
        }
    }
}

/// `threshold_part_of`: the warp's part from each lane's — the least key (`threshold_min`),
/// the last position of the lanes holding it, and the value of the lane holding that position
/// (positions are distinct: one lane; every lane gets it by a shuffle from the first lane the
/// ballot names).
fn threshold_part_of(
    w: &mut Warp<'_>,
    ta: &ThresholdArgs<'_>,
    p: &ThresholdPart,
) -> Result<ThresholdPart, SimError> {
    let full = u32::MAX;
    let least = threshold_min(w, ta, &p.least)?;
    let held =
        Lanes::from_fn(|l| if p.least.lane(l) == least.lane(l) { p.last.lane(l) } else { 0 });
    let last = w.reduce_max_sync(full, &held, "threshold_part_of: last position + 1")?;
    let is_last = Lanes::from_fn(|l| p.last.lane(l) == last.lane(l));
    let bits = w.ballot_sync(full, &is_last, "threshold_part_of: ballot(last == part_last)")?;
    let holder = Lanes::splat(bits.lane(0).trailing_zeros());
    let value = w.shfl_idx_sync(full, &p.value, &holder, 32, "threshold_part_of: value")?;
    Ok(ThresholdPart { least, last, value })
}

/// Shared words `at` and `at + 1` of each lane's address: a 64-bit word.
async fn ld_shared64(
    w: &mut Warp<'_>,
    at: &Lanes<u32>,
    label: &'static str,
) -> Result<Lanes<u64>, SimError> {
    let lo = w.ld_shared(at, label).await?;
    let hi = w.ld_shared(&at.map(|a| a + 1), label).await?;
    Ok(Lanes::from_fn(|l| u64::from(hi.lane(l)) << 32 | u64::from(lo.lane(l))))
}

/// Stores `v` to shared words `at` and `at + 1` of each lane's address.
async fn st_shared64(
    w: &mut Warp<'_>,
    at: &Lanes<u32>,
    v: &Lanes<u64>,
    label: &'static str,
) -> Result<(), SimError> {
    w.st_shared(at, &v.map(|x| x as u32), label).await?;
    w.st_shared(&at.map(|a| a + 1), &v.map(|x| (x >> 32) as u32), label).await
}

/// `threshold_group_of`: the part of a row that `lanes_per_row < 32` lanes read (an aligned
/// group of the warp's lanes), from each lane's: butterfly shuffles within the group
/// (`__shfl_xor_sync`), each lane taking its partner's part where that holds a lesser key, or
/// the same key at a later position — so that every lane of the group holds the group's part.
fn threshold_group_of(
    w: &mut Warp<'_>,
    p: &ThresholdPart,
    lanes_per_row: u32,
) -> Result<ThresholdPart, SimError> {
    let full = u32::MAX;
    let mut own = ThresholdPart { least: p.least, last: p.last, value: p.value };
    let mut d = lanes_per_row >> 1;
    while d > 0 {
        let least = w.shfl_xor_sync(full, &own.least, d, 32, "threshold_group_of: other least")?;
        let last = w.shfl_xor_sync(full, &own.last, d, 32, "threshold_group_of: other last")?;
        let value = w.shfl_xor_sync(full, &own.value, d, 32, "threshold_group_of: other value")?;
        let takes = Lanes::from_fn(|l| {
            let (theirs, ours) = (least.lane(l), own.least.lane(l));
            theirs < ours || (theirs == ours && last.lane(l) > own.last.lane(l))
        });
        own = ThresholdPart {
            least: Lanes::select(&takes, &least, &own.least),
            last: Lanes::select(&takes, &last, &own.last),
            value: Lanes::select(&takes, &value, &own.value),
        };
        d >>= 1;
    }
    Ok(own)
}

/// `rtopk_row_threshold`: the block takes rows `first .. first + per_block - 1` at a time
/// (`per_block` = warps a block / `warps_per_row` warp slots of `32 / lanes_per_row` rows each;
/// `first` = block · `per_block`, then grid · `per_block` further: the grid covers the rows
/// once). Row `first + slot` is read by the lanes of group `lane / lanes_per_row` of warps
/// `part` = 0 to `warps_per_row - 1` (one of the two is 1: fewer lanes than 32 only in one
/// warp) at positions `lanes_per_row part + sub + lanes_per_row warps_per_row j`: each row its
/// own width and k (`row_lengths`), each warp its part (`threshold_batch`, then
/// `threshold_group_of` or, on a whole warp, `threshold_part_of`). Where several warps read a
/// row, each puts its part in shared memory and every warp of the row takes the row's parts as
/// lanes (`threshold_part_of` again). The row's first lane writes the value as f32, or NaN
/// where `k_i = 0`. Rows outside this run's `window` are read as rows past the end: another run
/// of the program writes them.
async fn rtopk_row_threshold(w: &mut Warp<'_>, ta: &ThresholdArgs<'_>) -> Result<(), SimError> {
    let u = |v: u64| Lanes::splat(v);
    let lane = w.lane_id();
    let (warps, warp) = (w.warps_per_block(), w.warp_idx());
    let (per_row, lanes) = (ta.t.warps_per_row, ta.t.lanes_per_row);
    let shift = lanes.trailing_zeros(); // lanes is a power of two (checked at launch)
    let rows_per_warp = 32 >> shift;
    let (group, sub) = (lane.map(|l| l >> shift), lane.map(|l| l & (lanes - 1)));
    let per_block = u64::from(warps / per_row * rows_per_warp);
    let slot = group.map(|g| warp / per_row * rows_per_warp + g);
    let part = warp % per_row;
    let stride = lanes * per_row;
    let step = u64::from(w.grid_dim()) * per_block;
    let sign = ta.a.sign();
    let width = u64::from(ta.t.k);
    let mut first = u64::from(w.block_idx()) * per_block;
    while first < ta.t.n_rows {
        let row = slot.map(|s| first + u64::from(s));
        let ours = row.map(|r| r < ta.t.n_rows && r >= ta.window.0 && r < ta.window.1);
        let args = KernelArgs { m: ta.t.m as usize, k: ta.t.k as usize, ..ta.a };
        let k = Lanes::from_fn(|l| {
            if ours.lane(l) { args.row_lengths(&ta.rows, row.lane(l)).k as u32 } else { 0 }
        });
        let mut own = ThresholdPart::none();
        let saved = w.push_active(&ours, "rtopk_row_threshold: row < n_rows")?;
        let base = w.mul_u64(&row, &u(width), "rtopk_row_threshold: row * (u64)k")?;
        let mut i = lanes * part;
        while (0..32).any(|l| w.active_mask() >> l & 1 == 1 && i < k.lane(l)) {
            let reach = w.push_active(&k.map(|k| i < k), "rtopk_row_threshold: base < k_i")?;
            threshold_batch(w, ta, (&base, i, stride, &k, &sub), sign, &mut own).await?;
            w.pop_active(reach);
            i += stride * THRESHOLD_BATCH;
        }
        w.pop_active(saved);
        let mut own = if lanes < 32 {
            threshold_group_of(w, &own, lanes)?
        } else {
            threshold_part_of(w, ta, &own)?
        };
        if per_row > 1 {
            // launch-uniform: every warp meets both barriers
            let saved = w.push_active(&lane.map(|l| l == 0), "rtopk_row_threshold: lane 0")?;
            let to = |base: u32, words: u32| Lanes::splat(base + words * warp);
            st_shared64(w, &to(S_LEAST, 2), &own.least, "rtopk_row_threshold: s_least[warp]")
                .await?;
            w.st_shared(&to(S_LAST, 1), &own.last, "rtopk_row_threshold: s_last[warp]").await?;
            st_shared64(w, &to(S_VALUE, 2), &own.value, "rtopk_row_threshold: s_value[warp]")
                .await?;
            w.pop_active(saved);
            w.syncthreads("rtopk_row_threshold: the parts written").await?;
            let held = lane.map(|l| l < per_row);
            let at = lane.map(|l| (warp / per_row) * per_row + l);
            let saved = w.push_active(&held, "rtopk_row_threshold: lane < warps_per_row")?;
            let mut parts = ThresholdPart::none();
            let least =
                ld_shared64(w, &at.map(|a| S_LEAST + 2 * a), "rtopk_row_threshold: s_least[at]")
                    .await?;
            let last =
                w.ld_shared(&at.map(|a| S_LAST + a), "rtopk_row_threshold: s_last[at]").await?;
            let value =
                ld_shared64(w, &at.map(|a| S_VALUE + 2 * a), "rtopk_row_threshold: s_value[at]")
                    .await?;
            w.assign(&mut parts.least, &least);
            w.assign(&mut parts.last, &last);
            w.assign(&mut parts.value, &value);
            w.pop_active(saved);
            own = threshold_part_of(w, ta, &parts)?;
            w.syncthreads("rtopk_row_threshold: the parts read").await?;
        }
        if part == 0 {
            let first_lane = Lanes::from_fn(|l| ours.lane(l) && sub.lane(l) == 0);
            let saved = w.push_active(&first_lane, "rtopk_row_threshold: the row's first lane")?;
            let bits = Lanes::from_fn(|l| {
                if k.lane(l) == 0 { NAN_BITS } else { threshold_value(ta.elem, own.value.lane(l)) }
            });
            w.st_global(ta.threshold, &row, &bits, "rtopk_row_threshold: threshold[row]").await?;
            w.pop_active(saved);
        }
        first += step;
    }
    Ok(())
}
