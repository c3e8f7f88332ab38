//! Pick rows (docs/kernel.md, "Pick rows"): the exact top k of short rows for small k, as
//! `rtopk_pick_rows_<W>` (`kernels/pick_rows.cu`) and warp-sim's `rtopk/pick.rs` run it — k
//! rounds, each taking the row's best remaining element (the greatest key, then the lowest
//! index), on [`crate::units::PICK_LANES`] lanes per row, on
//! [`crate::units::PICK_NARROW_LANES`] for short rows ([`crate::units::pick_narrow_max_row`]),
//! or one lane per row where the row and k are small ([`PICK_LANE_MAX_K`]). A round costs one
//! pass over a lane's slots and (on several lanes) one reduction, whatever the values, so rows
//! of 16-bit elements — which tie often and which the bisection searches two to a register —
//! and the many short rows of MoE routers and samplers (M = 8…512, k = 1…8) take no search at
//! all.
//!
//! The rounds find the answer, not Algorithm 1's steps: a program that wants iteration counts
//! (docs/contract.md §3), or an approximate search, never picks. Rows of their own length or k
//! take the ragged units.

use topk_ref::check_shape;

use crate::error::PlanError;
use crate::plan::{Launch, Plan};
use crate::units::{ElemType, PICK_LANE_WIDTHS, PICK_WARPS, PICK_WIDTHS, Unit};

/// Most results a pick row selects: each is a round over the whole row.
pub const PICK_MAX_K: usize = 8;
/// Most results a row of up to the widest of [`PICK_LANE_WIDTHS`] selects on one lane (32
/// rows a warp) rather than on eight. A lane then writes its row's k values and indices
/// itself, so a warp's stores each touch 32 rows' sectors; on an H100 one lane a row took
/// 0.28-0.43 of eight lanes' time at k <= 2 (M = 8 and 16, 16-bit; f32 0.37-0.78), about the
/// same at k = 4 and 2.0-2.4x at k = 8
/// (results/cuda/2026-12-05-pick-gap-h100/b/table.md, where rows up to 32 took one lane
/// whatever their k; at M = 32 it lost at every k).
pub const PICK_LANE_MAX_K: usize = 2;
/// Most bytes a pick lane loads at once (one 16-byte load a slot group: `load_picks`).
pub const PICK_LOAD_BYTES: usize = 16;

/// The elements of a pick lane's slot group (`pick_group` of `kernels/pick_rows.cu`): the
/// consecutive elements one load of at most [`PICK_LOAD_BYTES`] takes, no more than the lane's
/// `keys_per_lane` slots; 1 where such a load would take less than a 4-byte word (a 16-bit
/// lane of one slot). Lane `sub` holds group `g` from element `V (sub + lanes g)` on, so that a
/// row's lanes load `V lanes` consecutive elements a group.
pub fn pick_group(keys_per_lane: usize, elem_bytes: usize) -> usize {
    let v = keys_per_lane.min(PICK_LOAD_BYTES / elem_bytes.max(1));
    if v * elem_bytes < 4 { 1 } else { v }
}

/// Widest row the default picks (the widest unit's).
pub const PICK_MAX_ROW: usize = PICK_WIDTHS[PICK_WIDTHS.len() - 1];
/// Most `M * k` of an f32 row the default picks. An f32 round costs a pass of three
/// instructions per slot, two reductions and a take-out of two per slot, where a 16-bit round
/// costs one reduction and three per slot; and the bisection runs f32 rows at one key per slot.
/// On an H200 (results/cuda/2026-11-29-pick-rows-h200/rule/; in grid/ the bisection took
/// 1.07x pick's time at 32 x 8, the widest cell picked) pick rows of f32 took 0.31-0.59 of the
/// bisection's time at M * k = 16-256 (M = 8, 16, 128), 1.02 at 384 (64 x 6) and 1.15-2.3 from
/// 512 on; 16-bit rows took 0.20-0.96 of it everywhere measured (M <= 512, k <= 8).
pub const PICK_F32_MAX_WORK: usize = 256;
/// Widest f32 row the default picks when the output is sorted and `k >= 2` (any k up to
/// [`PICK_MAX_K`]): the bisection then needs a sort launch, while the rounds find the results
/// in sorted order. On an H200 the bisection with its sort took 1.03-2.34x pick's time on the
/// rows this adds (M * k > 256 at M <= 256; 1.00x and 0.98x at 256, k = 8 on 131072 and 64
/// rows), and 1.04x and 0.85x at M = 512, k = 2 and 4 (docs/performance.md, "Pick rows").
pub const PICK_F32_SORTED_MAX_ROW: usize = 256;

/// Whether the default runs `launch` as pick rows: an exact search of a float row of at most
/// [`PICK_MAX_ROW`] with `1 <= k <=` [`PICK_MAX_K`] (and for f32 `M * k <=`
/// [`PICK_F32_MAX_WORK`], or `M <=` [`PICK_F32_SORTED_MAX_ROW`] where a sort would follow),
/// no counts wanted, no per-row arrays.
pub fn picks(launch: &Launch, counts: bool, ragged: bool) -> bool {
    let b = launch.bisect;
    let exact = b.max_iter.is_none() && b.precision == 0.0 && b.recall.is_none();
    let float = ElemType::FLOATS.contains(&launch.elem);
    let sorts = launch.sorted && launch.k >= 2;
    let work = launch.elem != ElemType::F32
        || launch.m.saturating_mul(launch.k) <= PICK_F32_MAX_WORK
        || (sorts && launch.m <= PICK_F32_SORTED_MAX_ROW);
    exact
        && float
        && work
        && !counts
        && !ragged
        && (1..=PICK_MAX_K).contains(&launch.k)
        && launch.m <= PICK_MAX_ROW
}

/// The pick-rows plan of `launch` (where [`picks`] holds): the narrowest unit that holds the
/// row — of one lane per row (32 rows per warp) where it holds the row and `k <=`
/// [`PICK_LANE_MAX_K`], else of [`crate::units::PICK_NARROW_LANES`] lanes up to
/// [`crate::units::pick_narrow_max_row`] and [`crate::units::PICK_LANES`] past it — and
/// no sort launch: sorted output is the rounds' order, written by the kernel itself (the
/// program's `Select::sorted`).
pub fn pick_plan(launch: &Launch) -> Result<Plan, PlanError> {
    let Launch { n, m, k, elem, .. } = *launch;
    check_shape(m, k)?;
    let one_lane = PICK_LANE_WIDTHS.into_iter().find(|&w| w >= m).filter(|_| k <= PICK_LANE_MAX_K);
    let unit = match one_lane {
        Some(width) => Unit::pick_one_lane(width),
        None => PICK_WIDTHS
            .into_iter()
            .find(|&w| w >= m)
            .map(Unit::pick)
            .ok_or(PlanError::TooLarge { n, m, why: "a pick row is at most 512 wide" })?,
    }
    .with_elem(elem);
    let lanes = unit.pick_lanes();
    let rows_per_block = PICK_WARPS as usize * 32 / lanes;
    let grid = u32::try_from(n.div_ceil(rows_per_block)).map_err(|_| PlanError::TooLarge {
        n,
        m,
        why: "more than 2^32 blocks",
    })?;
    Ok(Plan {
        unit,
        keys_per_lane: unit.width() / lanes,
        lanes_per_row: lanes,
        grid,
        block: PICK_WARPS * 32,
        dynamic_shared: 0,
        cached_keys: 0,
        narrows: false,
        value_bins: false,
        sort: None, // the rounds find the results in sorted order (the program's Select::sorted)
        cluster: 1,
    })
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::units::Family;

    fn launch(m: usize, k: usize, elem: ElemType) -> Launch {
        Launch { n: 1000, m, k, mode: Mode::Largest, bisect: Bisect::exact(), sorted: false, elem }
    }

    #[test]
    fn exact_short_float_rows_of_small_k_pick_without_counts_only() {
        let l = launch(256, 8, ElemType::Bf16);
        assert!(picks(&l, false, false));
        assert!(!picks(&l, true, false), "counts are Algorithm 1's");
        assert!(!picks(&l, false, true), "per-row arrays take the ragged units");
        assert!(!picks(&launch(256, 9, ElemType::F32), false, false));
        assert!(!picks(&launch(256, 0, ElemType::F32), false, false));
        assert!(!picks(&launch(513, 8, ElemType::F16), false, false));
        assert!(picks(&launch(512, 1, ElemType::F16), false, false));
        assert!(!picks(&launch(64, 4, ElemType::I32), false, false), "float rows only");
        // f32 rows up to M * k = 256; 16-bit rows to 512 x 8
        assert!(picks(&launch(128, 2, ElemType::F32), false, false));
        assert!(picks(&launch(32, 8, ElemType::F32), false, false));
        assert!(!picks(&launch(64, 6, ElemType::F32), false, false));
        assert!(!picks(&launch(512, 1, ElemType::F32), false, false));
        assert!(picks(&launch(512, 8, ElemType::Bf16), false, false));
        // sorted f32 rows to M = 256, where the bisection would need a sort launch
        let sorted = |m, k| Launch { sorted: true, ..launch(m, k, ElemType::F32) };
        assert!(picks(&sorted(64, 6), false, false));
        assert!(picks(&sorted(256, 8), false, false));
        assert!(picks(&sorted(256, 1), false, false));
        assert!(!picks(&sorted(257, 2), false, false));
        assert!(!picks(&sorted(512, 4), false, false));
        assert!(!picks(&sorted(512, 1), false, false), "k = 1 needs no sort");
        for bisect in [Bisect::early_stopping(3), Bisect::with_recall(0.9).unwrap()] {
            assert!(!picks(&Launch { bisect, ..launch(64, 4, ElemType::F32) }, false, false));
        }
    }

    #[test]
    fn the_narrowest_unit_holds_the_row_and_no_sort_follows() {
        for (m, k, width, lanes) in [
            (1, 1, 8, 1),
            (8, 2, 8, 1),
            (8, 3, 8, 4),
            (9, 1, 16, 1),
            (16, 2, 16, 1),
            (16, 8, 16, 4),
            (17, 1, 32, 8),
            (33, 1, 64, 8),
            (65, 2, 128, 8),
            (300, 1, 512, 8),
        ] {
            let p = pick_plan(&launch(m, k, ElemType::F32)).unwrap();
            assert_eq!(p.family(), Family::PickRows);
            let what = format!("M={m} k={k}");
            assert_eq!(
                (p.unit.width(), p.keys_per_lane, p.lanes_per_row),
                (width, width / lanes, lanes),
                "{what}"
            );
            assert_eq!(p.row_lanes(), Some(lanes));
            assert_eq!((p.grid, p.block), (1000u32.div_ceil(256 / lanes as u32), 256));
            assert!(p.sort.is_none());
        }
        // 16-bit rows take four lanes up to 64, eight past it
        for (m, k, lanes) in [(8, 3, 4), (40, 1, 4), (64, 8, 4), (65, 8, 8), (512, 1, 8)] {
            let p = pick_plan(&launch(m, k, ElemType::Bf16)).unwrap();
            assert_eq!((p.lanes_per_row, p.keys_per_lane), (lanes, p.unit.width() / lanes));
        }
        let sorted = Launch { sorted: true, ..launch(100, 8, ElemType::F16) };
        let p = pick_plan(&sorted).unwrap();
        assert_eq!(p.unit.to_string(), "rtopk_pick_rows_128_f16");
        assert!(p.sort.is_none(), "the kernel writes sorted output itself");
        let p = pick_plan(&launch(12, 2, ElemType::Bf16)).unwrap();
        assert_eq!(p.unit.to_string(), "rtopk_pick_lane_rows_16_bf16");
        assert!(pick_plan(&launch(513, 1, ElemType::F32)).is_err());
    }

    #[test]
    fn a_slot_group_is_one_load_of_at_most_16_bytes_within_the_lanes_slots() {
        // (keys per lane, element bytes) -> elements a group
        for (epl, bytes, v) in [
            (1, 2, 1), // an f16 lane of one slot: two bytes, no word
            (2, 2, 2),
            (4, 2, 4),
            (8, 2, 8),
            (64, 2, 8),
            (1, 4, 1),
            (2, 4, 2),
            (4, 4, 4),
            (16, 4, 4),
        ] {
            assert_eq!(pick_group(epl, bytes), v, "{epl} slots of {bytes} bytes");
        }
        // every pick unit's lanes load whole groups
        for width in PICK_WIDTHS.into_iter().chain(PICK_LANE_WIDTHS) {
            for lanes in [1, crate::units::PICK_NARROW_LANES, crate::units::PICK_LANES] {
                let epl = width / lanes;
                for bytes in [2, 4] {
                    let v = pick_group(epl, bytes);
                    assert!(v * bytes <= PICK_LOAD_BYTES && epl % v == 0, "{width}/{lanes}");
                }
            }
        }
    }
}
