//! The program's `row_threshold` step (docs/contract.md §5): the kernel `rtopk_row_threshold`
//! (`kernels/threshold.cu`), one warp per row, which reads the row's `k_i` selected values
//! from the values output (one pass, [`THRESHOLD_BATCH`] loads a lane in flight) and writes,
//! as f32, the one that ranks last in the mode — the least own key, and among equal keys the
//! last position (the highest index in index order, the last entry in sorted order):
//! topk-ref's `ragged::threshold_of` — or NaN where `k_i = 0`.
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
use crate::rtopk::plan::{self, Threshold};
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
        let per_block = u64::from((grid.threads / 32).max(1));
        let mut engine_grid = Grid::new(grid.blocks, grid.threads / 32, 0);
        let first = (window.0 / per_block).min(u64::from(grid.blocks)) as u32;
        let end = window.1.div_ceil(per_block).min(u64::from(grid.blocks)) as u32;
        engine_grid.simulate = (first, end);
        let ta = ThresholdArgs { a: *args, elem, values, threshold, t: *t, rows, window };
        self.write_once(&[threshold], true);
        self.machine.set_step_limit(64 * (2 * u64::from(t.k) / 32 + 64));
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

/// Values a lane loads before it compares any ([`threshold_batch`]).
const THRESHOLD_BATCH: u32 = 16;

/// `threshold_batch`: the lane's values at positions `base + 32 j + lane` (`j <
/// THRESHOLD_BATCH`, those below `k`), all loaded before the first is compared, folded into
/// the lane's least key and the last position holding it (position + 1): positions rise, so a
/// key equal to the least moves `last` on.
async fn threshold_batch(
    w: &mut Warp<'_>,
    ta: &ThresholdArgs<'_>,
    (row_base, base, k): (&Lanes<u64>, u32, u32),
    sign: f32,
    (least, last): (&mut Lanes<u64>, &mut Lanes<u32>),
) -> Result<(), SimError> {
    let lane = w.lane_id();
    let mut x = Vec::with_capacity(THRESHOLD_BATCH as usize);
    for j in 0..THRESHOLD_BATCH {
        let pos = lane.map(|l| base + 32 * j + l);
        let saved = w.push_active(&pos.map(|p| p < k), "threshold_batch: i < k")?;
        let at = w.add_u64(row_base, &pos.map(u64::from), "threshold_batch: row * k + i")?;
        x.push(load_value(w, ta, &at, "threshold_batch: x[j] = values[row * k + i]").await?);
        w.pop_active(saved);
    }
    for (j, v) in (0..THRESHOLD_BATCH).zip(&x) {
        let pos = lane.map(|l| base + 32 * j + l);
        let saved = w.push_active(&pos.map(|p| p < k), "threshold_batch: i < k")?;
        let key = v.map(|b| threshold_key(ta, b, sign));
        let lower = Lanes::from_fn(|l| key.lane(l) <= least.lane(l));
        let next_least = Lanes::select(&lower, &key, least);
        let next_last = Lanes::select(&lower, &pos.map(|p| p + 1), last);
        w.assign(least, &next_least);
        w.assign(last, &next_last);
        w.pop_active(saved);
    }
    Ok(())
}

/// `rtopk_row_threshold`: warp `g` of the grid takes rows `g, g + warps, ...` (the grid
/// covers the rows once); each reads its own width and k (`row_lengths`), each lane's least
/// key among its values and the last position holding it (`threshold_batch`, one pass), the
/// warp's least key (`threshold_min`) and the last position of the lanes holding it
/// (`__reduce_max_sync` of position + 1), and lane 0 writes that value as f32.
async fn rtopk_row_threshold(w: &mut Warp<'_>, ta: &ThresholdArgs<'_>) -> Result<(), SimError> {
    let u = |v: u64| Lanes::splat(v);
    let lane = w.lane_id();
    let warps = u64::from(w.grid_dim()) * u64::from(w.warps_per_block());
    let mut row =
        u64::from(w.block_idx()) * u64::from(w.warps_per_block()) + u64::from(w.warp_idx());
    let sign = ta.a.sign();
    let (width, full) = (u64::from(ta.t.k), u32::MAX);
    while row < ta.t.n_rows {
        if row < ta.window.0 || row >= ta.window.1 {
            // a row of another window: that run of the program writes it
            row += warps;
            continue;
        }
        let args = KernelArgs { m: ta.t.m as usize, k: ta.t.k as usize, ..ta.a };
        let k = args.row_lengths(&ta.rows, row).k as u32;
        let base = w.mul_u64(&u(row), &u(width), "rtopk_row_threshold: row * (u64)k")?;
        let (mut least, mut last) = (Lanes::splat(u64::MAX), Lanes::splat(0u32));
        let mut i = 0u32;
        while i < k {
            threshold_batch(w, ta, (&base, i, k), sign, (&mut least, &mut last)).await?;
            i += 32 * THRESHOLD_BATCH;
        }
        let row_least = threshold_min(w, ta, &least)?;
        let held =
            Lanes::from_fn(|l| if least.lane(l) == row_least.lane(l) { last.lane(l) } else { 0 });
        let last = w.reduce_max_sync(full, &held, "rtopk_row_threshold: last position + 1")?;
        let at_last = base.zip(&last, |b, l| b + u64::from(l.max(1) - 1));
        let saved = w.push_active(&lane.map(|l| l == 0), "rtopk_row_threshold: lane 0")?;
        let bits = if k == 0 {
            Lanes::splat(NAN_BITS)
        } else {
            let v = load_value(w, ta, &at_last, "rtopk_row_threshold: values[last]").await?;
            v.map(|b| threshold_value(ta.elem, b))
        };
        w.st_global(ta.threshold, &u(row), &bits, "rtopk_row_threshold: threshold[row]").await?;
        w.pop_active(saved);
        row += warps;
    }
    Ok(())
}
