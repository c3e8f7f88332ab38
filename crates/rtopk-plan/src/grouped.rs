//! The launch of a grouped selection (docs/contract.md §8): one launch of
//! `rtopk_grouped_rows_<EPL>` (`kernels/grouped_rows.cu`), one warp per row holding `EPL`
//! experts per lane, that the GPU and the simulator both run as planned here.

use topk_ref::Grouped;

use crate::error::PlanError;
use crate::program::Grid;
use crate::units::GROUPED_WIDTHS;

/// Warps per block of `rtopk_grouped_rows_<EPL>`; each holds its row's keys in shared memory.
pub const GROUPED_WARPS: u32 = 4;
/// Most blocks of a grouped launch: the warps stride over the rows past them.
pub const GROUPED_MAX_BLOCKS: u32 = 1 << 16;

/// A grouped selection's launch: its grid and the experts each lane holds (the unit's width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupedLaunch {
    /// Blocks of [`GROUPED_WARPS`] warps.
    pub grid: Grid,
    /// Experts per lane: the least of [`GROUPED_WIDTHS`] that holds the row (`32 * epl >= m`),
    /// so that a row of 256 runs 8 slots per lane rather than the widest unit's 32.
    pub epl: usize,
}

/// The launch of a grouped selection of `g` over `n` rows of `m` scores, after its checks: a
/// warp per row, as many blocks as the rows need up to [`GROUPED_MAX_BLOCKS`].
pub fn grouped_launch(n: usize, m: usize, g: &Grouped) -> Result<GroupedLaunch, PlanError> {
    g.check(m)?;
    let epl = GROUPED_WIDTHS.iter().copied().find(|&w| 32 * w >= m).unwrap_or(32);
    let blocks = n.div_ceil(GROUPED_WARPS as usize).clamp(1, GROUPED_MAX_BLOCKS as usize);
    let grid =
        Grid { blocks: blocks as u32, threads: GROUPED_WARPS * 32, shared_bytes: 0, cluster: 1 };
    Ok(GroupedLaunch { grid, epl })
}

#[cfg(test)]
mod tests {
    use topk_ref::GroupScore;

    use super::*;

    #[test]
    fn a_warp_per_row_up_to_the_block_cap_and_the_narrowest_unit() {
        let g = Grouped { k: 8, groups: 8, top_groups: 4, score: GroupScore::TopTwoSum };
        let blocks = |n| grouped_launch(n, 256, &g).unwrap().grid.blocks;
        assert_eq!((blocks(0), blocks(1), blocks(4), blocks(5)), (1, 1, 1, 2));
        assert_eq!(blocks(1 << 20), GROUPED_MAX_BLOCKS);
        assert!(grouped_launch(4, 250, &g).is_err());
        let epl = |m| grouped_launch(1, m, &Grouped { groups: 1, k: 1, top_groups: 1, ..g });
        let epls: Vec<usize> = [2, 64, 65, 128, 256, 257, 512, 1000, 1024]
            .iter()
            .map(|&m| epl(m).unwrap().epl)
            .collect();
        assert_eq!(epls, [2, 2, 4, 4, 8, 16, 16, 32, 32]);
    }
}
