//! What every single-row algorithm implements, and the scratch space they share.

use crate::order::{Element, Mode};

/// What a single-row selection reports besides the indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowStats {
    /// Threshold tests done by a bisection search (docs/contract.md §3); `None` for other algorithms.
    pub iterations: Option<u32>,
    /// The data movement of this selection (see [`WorkCounters`]).
    pub work: WorkCounters,
}

impl RowStats {
    /// Stats that report only `work` (no iteration count).
    pub fn with_work(work: WorkCounters) -> Self {
        Self { iterations: None, work }
    }
}

/// Width of one ballot of [`crate::select::select_in_index_order`]: the selection pass reads
/// the row in chunks of this many elements and stops after the chunk that completes k.
pub const BALLOT_WIDTH: usize = 32;

/// How much data one selection moves — the cost a GPU form of the algorithm pays in memory
/// traffic, independent of this CPU's speed.
///
/// # What is counted
/// * **Elements**, not bytes: a value, a key, a rank or a (key, index) candidate pair each
///   count as one element.
/// * **Row-sized data only**: the input row and working buffers that can hold one entry per
///   row element or candidate (candidate lists, a sorted copy, partial results of blocks).
///   Small on-chip structures — histograms, a queue or heap of k, a bitonic run while it is
///   being sorted — are registers or shared memory on a GPU and are not counted.
/// * **Keys and ranks are part of reading**: computing the keys or ranks of the row into
///   scratch is what a GPU does in registers as it loads a value, so it counts as reading the
///   M inputs, not as M writes; reading such a cached array again counts as reading the input
///   again.
/// * **Writes** are stores to row-sized buffers plus the k output entries. A branch-free CPU
///   compaction that stores every element but keeps n counts as n writes (a GPU stores n).
/// * **Passes** are sweeps over the row's M elements (the input, or a row-sized copy of it),
///   complete or cut short (a selection pass that stops once it has k). Sweeps over a reduced
///   candidate set add to the element counts, not to the passes.
/// * **Merges** are the sorting-network merges of the partial-sort algorithms (a bitonic run
///   or a full queue merged into the running top-k); 0 for the others.
///
/// Where the row fits on chip (RTop-K keeps rows of M ≤ 8192 in shared memory), only the
/// first read and the output are device-memory traffic; later passes are on-chip traffic.
/// Counts are exact for the algorithm as written; they are added up once per pass or
/// buffer, never per element, so counting costs nothing measurable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WorkCounters {
    /// Elements loaded from the row or from row-sized buffers.
    pub elements_read: u64,
    /// Elements stored to row-sized buffers, including the k outputs.
    pub elements_written: u64,
    /// Sweeps over the row (complete or cut short).
    pub passes: u64,
    /// Sorting-network merges into a running top-k (partial-sort algorithms).
    pub merges: u64,
}

impl WorkCounters {
    /// A sweep over `n` elements of the row: one pass, `n` reads.
    #[inline]
    pub fn sweep(&mut self, n: usize) {
        self.passes += 1;
        self.elements_read += n as u64;
    }

    /// `n` more elements read (from the row or a buffer) without a new pass.
    #[inline]
    pub fn read(&mut self, n: usize) {
        self.elements_read += n as u64;
    }

    /// `n` more elements written.
    #[inline]
    pub fn write(&mut self, n: usize) {
        self.elements_written += n as u64;
    }

    /// Adds the element traffic of a sub-step that works on a buffer other than the row (a
    /// delegate vector, a candidate list): its reads, writes and merges count, its passes do
    /// not (they were passes over that buffer, not over the row).
    #[inline]
    pub fn add_traffic(&mut self, sub: &WorkCounters) {
        self.elements_read += sub.elements_read;
        self.elements_written += sub.elements_written;
        self.merges += sub.merges;
    }
}

impl std::ops::AddAssign for WorkCounters {
    fn add_assign(&mut self, rhs: Self) {
        self.elements_read += rhs.elements_read;
        self.elements_written += rhs.elements_written;
        self.passes += rhs.passes;
        self.merges += rhs.merges;
    }
}

impl std::ops::Add for WorkCounters {
    type Output = Self;
    fn add(mut self, rhs: Self) -> Self {
        self += rhs;
        self
    }
}

impl std::iter::Sum for WorkCounters {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |a, b| a + b)
    }
}

/// Elements a selection pass in index order reads (chunks of [`BALLOT_WIDTH`]) before it has
/// its k results, given the last (largest) index it wrote and the row width `m`.
#[inline]
pub fn selection_reads(last_index: u32, m: usize) -> usize {
    ((last_index as usize / BALLOT_WIDTH + 1) * BALLOT_WIDTH).min(m)
}

/// One top-k algorithm for one row, written **once for every element type** ([`Element`]:
/// `f32`, `half::f16`, `half::bf16`, `f64`, `i8`, `u8`, `i16`, `i32`, `i64`) and
/// monomorphised per type. This is what the algorithms
/// implement; callers use the object-safe faces [`RowTopK`] (`f32` rows, as before 16-bit
/// support) and [`RowTopKOf`] (rows of any element type), which every `RowSelect` gets.
///
/// Implementations select the **canonical** top-k of docs/contract.md §1 (exact algorithms) or a valid
/// approximation (`is_exact() == false`, e.g. early stopping): `k` distinct indices of `row`.
/// The driver checks the arguments; implementations may assume
/// `1 <= k <= row.len() <= MAX_ROW_WIDTH` and `out.len() == k`.
pub trait RowSelect: Sync {
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

    /// The widest element key this algorithm takes ([`crate::KeyBits::BITS`]): 64, every
    /// element type, unless its design is defined for narrower keys only (some baselines: 32).
    /// The drivers refuse rows of a wider key with [`crate::TopKError::UnsupportedElement`].
    fn max_key_bits(&self) -> u32 {
        64
    }

    /// Writes the selected indices into `out` in **ascending index order**.
    fn select<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats;

    /// [`RowSelect::select`] with a guess of the row's threshold (docs/contract.md §5): the
    /// value of the k-th selected element, as an `f32` in the input's orientation (not
    /// negated in smallest mode). A hint may change the work and the iteration count, never
    /// the selection; any `f32` is allowed (NaN, ±inf, nonsense). The default ignores it —
    /// only algorithms whose search can start from a bracket ([`crate::Bisect`]) use it.
    fn select_hinted<E: Element>(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let _ = hint;
        self.select(row, k, mode, scratch, out)
    }
}

/// One top-k algorithm for one `f32` row, as a trait object (`Box<dyn RowTopK>`). Every
/// [`RowSelect`] implements it; a type may also implement it directly (an `f32`-only
/// algorithm, such as the warp simulator's kernel). The contract is [`RowSelect`]'s.
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

    /// [`RowTopK::select_row`] with a threshold hint ([`RowSelect::select_hinted`]); the
    /// default ignores the hint.
    fn select_row_hinted(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let _ = hint;
        self.select_row(row, k, mode, scratch, out)
    }
}

/// One top-k algorithm for one row of `E`, as a trait object (`Box<dyn RowTopKOf<f16>>`): what
/// the row-wise driver runs. Implemented for every [`RowSelect`] and every `E`, and for every
/// [`RowTopK`] with `E = f32`. The contract is [`RowSelect`]'s.
pub trait RowTopKOf<E: Element>: Sync {
    /// The name used on the command line (`--algo NAME`).
    fn name(&self) -> &'static str;

    /// `true` when the result is always the canonical top-k.
    fn is_exact(&self) -> bool;

    /// `true` when [`RowStats::iterations`] is reported.
    fn reports_iterations(&self) -> bool;

    /// Writes the selected indices into `out` in **ascending index order**.
    fn select_row(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats;

    /// [`RowTopKOf::select_row`] with a threshold hint ([`RowSelect::select_hinted`]); the
    /// default ignores the hint.
    fn select_row_hinted(
        &self,
        row: &[E],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        let _ = hint;
        self.select_row(row, k, mode, scratch, out)
    }

    /// [`RowSelect::max_key_bits`] of the algorithm.
    fn max_key_bits(&self) -> u32 {
        64
    }
}

impl<T: RowSelect> RowTopK for T {
    fn name(&self) -> &'static str {
        RowSelect::name(self)
    }

    fn is_exact(&self) -> bool {
        RowSelect::is_exact(self)
    }

    fn reports_iterations(&self) -> bool {
        RowSelect::reports_iterations(self)
    }

    #[inline]
    fn select_row(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        self.select(row, k, mode, scratch, out)
    }

    #[inline]
    fn select_row_hinted(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        self.select_hinted(row, k, mode, hint, scratch, out)
    }
}

impl<T: RowTopK + ?Sized> RowTopKOf<f32> for T {
    fn name(&self) -> &'static str {
        RowTopK::name(self)
    }

    fn is_exact(&self) -> bool {
        RowTopK::is_exact(self)
    }

    fn reports_iterations(&self) -> bool {
        RowTopK::reports_iterations(self)
    }

    #[inline]
    fn select_row(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        RowTopK::select_row(self, row, k, mode, scratch, out)
    }

    #[inline]
    fn select_row_hinted(
        &self,
        row: &[f32],
        k: usize,
        mode: Mode,
        hint: Option<f32>,
        scratch: &mut Scratch,
        out: &mut [u32],
    ) -> RowStats {
        RowTopK::select_row_hinted(self, row, k, mode, hint, scratch, out)
    }
}

/// [`RowTopKOf`] of an element type other than `f32` (`f16`, `bf16`, `f64` and the integers)
/// for every [`RowSelect`].
macro_rules! row_topk_of_16 {
    ($t:ty) => {
        impl<T: RowSelect> RowTopKOf<$t> for T {
            fn name(&self) -> &'static str {
                RowSelect::name(self)
            }

            fn max_key_bits(&self) -> u32 {
                RowSelect::max_key_bits(self)
            }

            fn is_exact(&self) -> bool {
                RowSelect::is_exact(self)
            }

            fn reports_iterations(&self) -> bool {
                RowSelect::reports_iterations(self)
            }

            #[inline]
            fn select_row(
                &self,
                row: &[$t],
                k: usize,
                mode: Mode,
                scratch: &mut Scratch,
                out: &mut [u32],
            ) -> RowStats {
                self.select(row, k, mode, scratch, out)
            }

            #[inline]
            fn select_row_hinted(
                &self,
                row: &[$t],
                k: usize,
                mode: Mode,
                hint: Option<f32>,
                scratch: &mut Scratch,
                out: &mut [u32],
            ) -> RowStats {
                self.select_hinted(row, k, mode, hint, scratch, out)
            }
        }
    };
}

row_topk_of_16!(half::f16);
row_topk_of_16!(half::bf16);
row_topk_of_16!(f64);
row_topk_of_16!(i8);
row_topk_of_16!(u8);
row_topk_of_16!(i16);
row_topk_of_16!(i32);
row_topk_of_16!(i64);

/// Key buffers of one key width (see [`crate::order::KeyBits::buffers`]).
#[derive(Debug, Default)]
pub struct KeyBuffers<K> {
    /// Per-element keys ([`Element::key`]).
    pub keys: Vec<K>,
    /// Candidate keys (radix and bucket select).
    pub cands: Vec<K>,
}

/// Reusable per-thread buffers, so that the row-wise driver allocates nothing per row once the
/// buffers have grown to the row width. Algorithms take the fields they need with [`grow`];
/// key buffers come in each key width, picked by the element type
/// (`<E::Key as KeyBits>::buffers`).
#[derive(Debug, Default)]
pub struct Scratch {
    /// Keys of `f32` and `i32` rows.
    pub keys32: KeyBuffers<u32>,
    /// Keys of `f16`, `bf16` and `i16` rows.
    pub keys16: KeyBuffers<u16>,
    /// Keys of `i8` and `u8` rows.
    pub keys8: KeyBuffers<u8>,
    /// Keys of `f64` and `i64` rows.
    pub keys64: KeyBuffers<u64>,
    /// Per-element ranks ([`crate::order::rank`]) or other 64-bit work space.
    pub ranks: Vec<u64>,
    /// Second 64-bit buffer (double buffering of ranks or (key, index) pairs).
    pub ranks2: Vec<u64>,
    /// Ranks of rows with 64-bit keys (`f64`, `i64`): `u128`.
    pub wide_ranks: Vec<u128>,
    /// Second `u128` rank buffer.
    pub wide_ranks2: Vec<u128>,
    /// Index / bucket-id buffer.
    pub idx: Vec<u32>,
    /// Second index buffer.
    pub idx2: Vec<u32>,
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
