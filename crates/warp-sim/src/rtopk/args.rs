//! The kernel's interface: its arguments ([`KernelArgs`], the CUDA kernel's `Params`), how a
//! search ends ([`SearchExit`]), and the constants the launcher, the CUDA kernel and the
//! simulator share (docs/kernel.md, "Narrowing"; the launch plan holds them).

use topk_ref::{Bisect, Mode};

use crate::rtopk::mutant::Mutant;
pub use crate::rtopk::plan::{
    BLOCK_CAND_CAP, BLOCK_CAND_KEYS, BLOCK_EPL, BLOCK_LOAD_STAGE_WARP, BLOCK_STAGE, CAND_CAP,
    WARP_STAGE,
};

/// Narrowest whole-warp row that narrows (12 keys per lane).
pub const NARROW_MIN_M: usize = 257;
/// Widest whole-warp row that narrows (32 keys per lane).
pub const NARROW_MAX_M: usize = 1024;
/// Narrowest block row that narrows (blocks of 4 warps).
pub const BLOCK_NARROW_MIN_M: usize = 3073;
/// Widest block row that narrows (blocks of 8 warps).
pub const BLOCK_NARROW_MAX_M: usize = 8192;

/// The kernel's parameters (`__global__` arguments; the CUDA kernel's `Params`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelArgs {
    /// Rows.
    pub n: usize,
    /// Row width (`M >= 1`).
    pub m: usize,
    /// Values selected per row (`0 <= k <= M`).
    pub k: usize,
    /// Largest or smallest.
    pub mode: Mode,
    /// Exact (precision ε'), or early stopping when `max_iter` is set.
    pub bisect: Bisect,
    /// A seeded bug, or `None` for the kernel of docs/kernel.md.
    pub mutant: Option<Mutant>,
}

impl KernelArgs {
    /// Whether the seeded bug `m` is switched on.
    #[inline]
    pub(crate) fn has(&self, m: Mutant) -> bool {
        self.mutant == Some(m)
    }

    /// The most candidates an f32 row may be narrowed to, where it may under the default plan:
    /// in exact mode, [`CAND_CAP`] for `NARROW_MIN_M <= M <= NARROW_MAX_M` and `k < CAND_CAP`,
    /// and [`BLOCK_CAND_CAP`] for `BLOCK_NARROW_MIN_M <= M <= BLOCK_NARROW_MAX_M` and
    /// `k < BLOCK_CAND_CAP`.
    pub fn cand_cap(&self) -> Option<usize> {
        if self.bisect.max_iter.is_some() {
            return None;
        }
        let warp_row = (NARROW_MIN_M..=NARROW_MAX_M).contains(&self.m) && self.k < CAND_CAP;
        let block_row =
            (BLOCK_NARROW_MIN_M..=BLOCK_NARROW_MAX_M).contains(&self.m) && self.k < BLOCK_CAND_CAP;
        if warp_row {
            Some(CAND_CAP)
        } else if block_row {
            Some(BLOCK_CAND_CAP)
        } else {
            None
        }
    }

    /// Whether a row may be narrowed to its candidates ([`KernelArgs::cand_cap`]).
    pub fn narrows(&self) -> bool {
        self.cand_cap().is_some()
    }

    /// `+1` in largest mode, `-1` in smallest (`Params::sign`).
    pub(crate) fn sign(&self) -> f32 {
        match self.mode {
            Mode::Largest => 1.0,
            Mode::Smallest => -1.0,
        }
    }
}

/// The per-row arrays of a ragged launch (docs/contract.md §5; the CUDA kernel's
/// `Params::lengths` and `Params::k_per_row`, a null pointer where absent): each row reads
/// its own entry once, at its start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RowData<'x> {
    /// Row `i` is its first `lengths[i]` values.
    pub lengths: Option<&'x [u32]>,
    /// Row `i` selects `k_per_row[i]` values (at most its length).
    pub k_per_row: Option<&'x [u32]>,
    /// Row `i`'s threshold hint (docs/contract.md §5; `Params::hint`): its search starts with
    /// a test there (exact mode), which changes the iterations, never the answer.
    pub hint: Option<&'x [f32]>,
    /// Whether each row's threshold is written (the program's `row_threshold` step;
    /// [`crate::LaunchResult::threshold`]).
    pub threshold: bool,
}

/// `per_row_entry`: a word of a per-row array (lengths, k; docs/contract.md §5) cut to `bound`.
/// A caller may hand over int32 words as they are (torch's int32 tensors, unread and
/// unclamped): where `bound < 2^31` a word with its top bit set is a negative int32 and counts
/// as 0; where `bound >= 2^31` every word is a u32.
pub(crate) fn per_row_entry(word: u32, bound: u64) -> u64 {
    if bound < 1 << 31 && word & 0x8000_0000 != 0 {
        return 0;
    }
    u64::from(word).min(bound)
}

impl RowData<'_> {
    /// Row `row`'s own length in a launch of rows of `m` (`m` without lengths).
    pub(crate) fn row_len(&self, row: u64, m: u64) -> u64 {
        self.lengths.and_then(|v| v.get(row as usize)).map_or(m, |&l| per_row_entry(l, m))
    }
}

impl KernelArgs {
    /// `row_lengths`: the arguments row `row` runs with — its own width
    /// `m_i = per_row_entry(lengths[row], m)` and `k_i = min(per_row_entry(k_per_row[row], k),
    /// m_i)`; the launch's own where `rows` has no array.
    pub(crate) fn row_lengths(&self, rows: &RowData<'_>, row: u64) -> KernelArgs {
        let at = |v: Option<&[u32]>, or: usize| {
            v.and_then(|v| v.get(row as usize))
                .map_or(or, |&x| per_row_entry(x, or as u64) as usize)
        };
        let m = at(rows.lengths, self.m);
        let k = at(rows.k_per_row, self.k).min(m);
        KernelArgs { m, k, ..*self }
    }
}

/// Why the search stopped (docs/kernel.md's exits; the CUDA kernel's `EXIT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchExit {
    /// A test counted exactly k.
    Hit,
    /// The bracket cannot shrink.
    Converged,
    /// `hi - lo <= eps` (precision > 0).
    Precision,
    /// The bracket guarantees the recall target (`recall_met`).
    Recall,
    /// Early stopping ran its steps.
    MaxIter,
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::{KernelArgs, per_row_entry};
    use crate::rtopk::launch::H100;
    use crate::rtopk::plan::{ElemType, Launch, Strategy, plan};

    /// `KernelArgs::cand_cap` and the launch plan agree on which rows narrow (the plan decides
    /// what the simulator runs; `cand_cap` is what callers ask of a shape).
    #[test]
    fn narrowing_is_the_same_in_the_args_and_the_plan() {
        for m in
            [1, 100, 256, 257, 300, 700, 1024, 1025, 2048, 3072, 3073, 5001, 8192, 8193, 70_000]
        {
            for k in [1, 10, 127, 128, 129, 300, 511, 512, 513, m / 8, m / 2, m] {
                if k == 0 || k > m {
                    continue;
                }
                for bisect in [Bisect::exact(), Bisect::early_stopping(3)] {
                    let args =
                        KernelArgs { n: 16, m, k, mode: Mode::Largest, bisect, mutant: None };
                    let (mode, elem) = (Mode::Largest, ElemType::F32);
                    let launch = Launch { n: 16, m, k, mode, bisect, sorted: false, elem };
                    let p = plan(&launch, &H100, Strategy::Auto).unwrap();
                    assert_eq!(p.narrows, args.narrows(), "M={m} k={k} {bisect:?}");
                }
            }
        }
    }

    #[test]
    fn a_per_row_word_with_its_top_bit_set_is_a_negative_int32_below_2_to_the_31() {
        assert_eq!(per_row_entry(7, 50), 7);
        assert_eq!(per_row_entry(70, 50), 50);
        assert_eq!(per_row_entry((-1i32) as u32, 50), 0);
        assert_eq!(per_row_entry(i32::MIN as u32, (1 << 31) - 1), 0);
        assert_eq!(per_row_entry(i32::MAX as u32, (1 << 31) - 1), (1 << 31) - 1);
        // rows of 2^31 elements or more: every word is a u32
        assert_eq!(per_row_entry(1 << 31, 1 << 31), 1 << 31);
        assert_eq!(per_row_entry(u32::MAX, u64::from(u32::MAX)), u64::from(u32::MAX));
        assert_eq!(per_row_entry(u32::MAX, 3 << 30), 3 << 30);
    }
}
