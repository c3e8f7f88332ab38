//! What every single-row algorithm implements, and the scratch space they share.

use crate::order::Mode;

/// What a single-row selection reports besides the indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowStats {
    /// Threshold tests done by a bisection search (SPEC §3); `None` for other algorithms.
    pub iterations: Option<u32>,
}

/// One top-k algorithm for one row.
///
/// Implementations select the **canonical** top-k of SPEC §1 (exact algorithms) or a valid
/// approximation (`is_exact() == false`, e.g. early stopping): `k` distinct indices of `row`.
/// The driver checks the arguments; implementations may assume
/// `1 <= k <= row.len() <= MAX_ROW_WIDTH` and `out.len() == k`.
pub trait RowTopK: Sync {
    /// The name used on the command line (`--algo NAME`).
    fn name(&self) -> &'static str;

    /// `true` when the result is always the canonical top-k.
    fn is_exact(&self) -> bool {
        true
    }

    /// `true` when [`RowStats::iterations`] is reported.
    fn reports_iterations(&self) -> bool {
        false
    }

    /// Writes the selected indices into `out` in **ascending index order**.
    fn select_row(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats;
}

/// Reusable per-thread buffers, so that the row-wise driver allocates nothing per row once the
/// buffers have grown to the row width. Algorithms take the fields they need with [`grow`].
#[derive(Debug, Default)]
pub struct Scratch {
    /// Per-element keys ([`crate::order::key`]).
    pub keys: Vec<u32>,
    /// Per-element ranks ([`crate::order::rank`]) or other 64-bit work space.
    pub ranks: Vec<u64>,
    /// Index / candidate buffer.
    pub idx: Vec<u32>,
    /// Second index / candidate buffer (double buffering).
    pub idx2: Vec<u32>,
    /// Histogram / bucket counters.
    pub counts: Vec<u32>,
    /// A contiguous copy of a strided row.
    pub row: Vec<f32>,
}

/// The first `len` elements of `buf`, growing it (never shrinking) when it is shorter.
/// Contents are whatever the previous user left: callers overwrite before reading.
#[inline]
pub fn grow<T: Copy + Default>(buf: &mut Vec<T>, len: usize) -> &mut [T] {
    if buf.len() < len {
        buf.resize(len, T::default());
    }
    &mut buf[..len]
}
