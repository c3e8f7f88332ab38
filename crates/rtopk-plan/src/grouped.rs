//! The launch of a grouped selection (docs/contract.md §8): one launch of
//! `rtopk_grouped_rows` (`kernels/grouped_rows.cu`), one warp per row, that the GPU and the
//! simulator both run with this grid.

use topk_ref::Grouped;

use crate::error::PlanError;
use crate::program::Grid;

/// Warps per block of `rtopk_grouped_rows`; each holds its row's keys in shared memory.
pub const GROUPED_WARPS: u32 = 4;
/// Experts per lane at most: rows of up to [`topk_ref::grouped::GROUPED_MAX_EXPERTS`].
pub const GROUPED_EPL: u32 = 32;
/// Most blocks of a grouped launch: the warps stride over the rows past them.
pub const GROUPED_MAX_BLOCKS: u32 = 1 << 16;

/// The grid of a grouped selection of `g` over `n` rows of `m` scores, after its checks:
/// a warp per row, as many blocks as the rows need up to [`GROUPED_MAX_BLOCKS`].
pub fn grouped_grid(n: usize, m: usize, g: &Grouped) -> Result<Grid, PlanError> {
    g.check(m)?;
    let blocks = n.div_ceil(GROUPED_WARPS as usize).clamp(1, GROUPED_MAX_BLOCKS as usize);
    Ok(Grid { blocks: blocks as u32, threads: GROUPED_WARPS * 32, shared_bytes: 0 })
}

#[cfg(test)]
mod tests {
    use topk_ref::GroupScore;

    use super::*;

    #[test]
    fn a_warp_per_row_up_to_the_block_cap() {
        let g = Grouped { k: 8, groups: 8, top_groups: 4, score: GroupScore::TopTwoSum };
        let blocks = |n| grouped_grid(n, 256, &g).unwrap().blocks;
        assert_eq!((blocks(0), blocks(1), blocks(4), blocks(5)), (1, 1, 1, 2));
        assert_eq!(blocks(1 << 20), GROUPED_MAX_BLOCKS);
        assert!(grouped_grid(4, 250, &g).is_err());
    }
}
