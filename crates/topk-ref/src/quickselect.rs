//! PLACEHOLDER — being written; selects through the oracle until then.

use crate::algorithm::{RowStats, RowTopK, Scratch};
use crate::order::Mode;

/// Placeholder.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quickselect;

impl RowTopK for Quickselect {
    fn name(&self) -> &'static str {
        "quickselect"
    }
    fn select_row(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        _s: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        out.copy_from_slice(&crate::oracle::canonical_indices(row, k, mode));
        RowStats::default()
    }
}
