//! Wide rows (docs/kernel.md, "64-bit rows"): rows of f64 or i64, whose keys are 64 bits wide,
//! as `rtopk_wide_rows_<EPL>` (`kernels/wide_rows.cu`) and warp-sim's `rtopk/wide.rs` run them
//! — one warp per row, EPL keys per lane in registers ([`WIDE_WIDTHS`]) and the rest re-keyed
//! from the input on each pass; topk-ref's bisection on the row's own 64-bit keys (a value phase in f64 on an
//! f64 row, none on an i64 row), so that iteration counts are topk-ref's; the selection in
//! index order, and sorted output written by the kernel itself.
//!
//! Every 64-bit request takes this one kernel: the other families hold 32-bit keys. Rows of
//! their own length, k or hint (docs/contract.md §5) take its ragged twins
//! (`rtopk_wide_rows_ragged_<EPL>`), the threshold output the 64-bit threshold units.

use topk_ref::check_shape;

use crate::error::PlanError;
use crate::plan::{Launch, Plan};
use crate::strategy::Strategy;
use crate::units::{IndexType, Unit, WIDE_WIDTHS};

/// Warps per block of `rtopk_wide_rows_<EPL>`, one row each.
pub const WIDE_WARPS: u32 = 4;

/// The wide-rows plan of `launch` (a 64-bit element type): one warp per row, [`WIDE_WARPS`]
/// rows per block, the narrowest width of [`WIDE_WIDTHS`] that holds the row in registers (the
/// widest past `32 * 32`), no sort launch (the kernel sorts its own results: the program's
/// `Select::sorted`). Only [`Strategy::Auto`] holds 64-bit rows. (The program makes the unit
/// its ragged twin where the rows read per-row arrays.)
pub fn wide_plan(launch: &Launch, strategy: Strategy) -> Result<Plan, PlanError> {
    let Launch { n, m, k, elem, .. } = *launch;
    check_shape(m, k)?;
    if strategy != Strategy::Auto {
        return Err(PlanError::Wide { elem: elem.name(), why: "only strategy auto holds them" });
    }
    // the kernel steps through a row by 32 in u32 (count_wide, load_wide, select_wide)
    if m > (u32::MAX - 32) as usize {
        return Err(PlanError::TooLarge { n, m, why: "a row of more than 2^32 - 33 elements" });
    }
    let grid = u32::try_from(n.div_ceil(WIDE_WARPS as usize)).map_err(|_| PlanError::TooLarge {
        n,
        m,
        why: "more than 2^32 blocks",
    })?;
    let epl = WIDE_WIDTHS.iter().copied().find(|&w| 32 * w >= m).unwrap_or(WIDE_WIDTHS[3]);
    Ok(Plan {
        unit: Unit::wide(elem, IndexType::U32, epl),
        keys_per_lane: epl,
        lanes_per_row: 32,
        grid,
        block: WIDE_WARPS * 32,
        dynamic_shared: 0,
        cached_keys: 0,
        narrows: false,
        value_bins: false,
        sort: None, // the kernel writes sorted output itself (the program's Select::sorted)
        cluster: 1,
    })
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::units::{ElemType, Family};

    fn launch(n: usize, m: usize, k: usize, elem: ElemType) -> Launch {
        Launch { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), sorted: false, elem }
    }

    #[test]
    fn every_64_bit_shape_is_one_warp_per_row_without_a_sort_launch() {
        for elem in ElemType::WIDE {
            for (n, m, k) in [(1, 1, 1), (5, 256, 16), (1000, 8192, 2048), (3, 1 << 24, 7)] {
                let sorted = Launch { sorted: true, ..launch(n, m, k, elem) };
                let p = wide_plan(&sorted, Strategy::Auto).unwrap();
                assert_eq!(p.family(), Family::WideRows);
                assert_eq!(p.unit.elem_type(), elem);
                assert_eq!((p.grid as usize, p.block), (n.div_ceil(4), 128));
                assert_eq!(p.keys_per_lane, p.unit.width());
                assert!(p.sort.is_none(), "the kernel sorts its own results");
            }
        }
        // the narrowest width that holds the row, the widest past 1024
        for (m, epl) in [(1, 8), (256, 8), (257, 16), (512, 16), (768, 24), (1024, 32), (5000, 32)]
        {
            let p = wide_plan(&launch(3, m, 1, ElemType::F64), Strategy::Auto).unwrap();
            let name = format!("rtopk_wide_rows_{epl}_f64");
            assert_eq!((p.keys_per_lane, p.unit.to_string()), (epl, name));
        }
    }

    #[test]
    fn forced_strategies_and_bad_shapes_are_errors() {
        let l = launch(4, 300, 3, ElemType::I64);
        for s in Strategy::ALL.into_iter().filter(|&s| s != Strategy::Auto) {
            let e = wide_plan(&l, s).unwrap_err().to_string();
            assert!(e.contains("int64") && e.contains("strategy auto"), "{e}");
        }
        assert!(wide_plan(&launch(4, 3, 4, ElemType::F64), Strategy::Auto).is_err());
        assert!(wide_plan(&launch(4, 0, 0, ElemType::F64), Strategy::Auto).is_err());
        let huge = launch(usize::MAX / 2, 8, 1, ElemType::F64);
        assert!(matches!(wide_plan(&huge, Strategy::Auto), Err(PlanError::TooLarge { .. })));
    }
}
