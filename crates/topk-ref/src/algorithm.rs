//! What every single-row algorithm reports (its stats and work counters) and the scratch
//! space they share. The traits the algorithms implement ([`crate::RowSelect`] and its
//! object-safe faces) live with the element types in [`crate::order`], which they name.

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

    /// A selection pass in index order over a row of `m` that stops at the chunk holding its
    /// last result (`out`, ascending), then the `out.len()` results written.
    #[inline]
    pub fn select_pass(&mut self, out: &[u32], m: usize) {
        self.sweep(out.last().map_or(0, |&i| selection_reads(i, m)));
        self.write(out.len());
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

/// Key buffers of one key width (see [`crate::order::KeyBits::buffers`]).
#[derive(Debug, Default)]
pub struct KeyBuffers<K> {
    /// Per-element keys ([`crate::Element::key`]).
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
