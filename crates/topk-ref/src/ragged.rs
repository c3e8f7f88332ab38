//! The ragged row-wise driver: rows of their own length, k per row, the threshold output and
//! threshold hints (docs/contract.md §5), for every algorithm of the workspace.
//!
//! Row `i` of an `(N, M)` input is its first `lengths[i]` values; it selects
//! `min(k[i], lengths[i])` of them — the canonical top-k of that prefix (docs/contract.md §1),
//! in index order or sorted — and the rest of its output row, up to the output width
//! `K = max k[i]`, is padding: index [`PAD_INDEX`] and value zero (all bits zero) in the
//! input's type. Nothing past a row's length is read. Each algorithm sees row `i` as the plain
//! slice `&row[..lengths[i]]` with its own k, so every [`RowTopKOf`] implementor takes the
//! ragged form without knowing it.

use ndarray::{Array1, Array2, ArrayView2};
use rayon::prelude::*;

use crate::algorithm::{RowStats, WorkCounters, grow};
use crate::driver::{MAX_ROW_WIDTH, Options, RowJob, TaskBuffers};
use crate::error::TopKError;
use crate::order::{Element, KeyBits, Mode, RowTopKOf, sort_canonical};

/// The index of a padding entry in topk-ref's `u32` indices (kept free by
/// [`MAX_ROW_WIDTH`]). The faces that report `int64` indices (command line, Python) write it
/// as `-1` (docs/contract.md §5).
pub const PAD_INDEX: u32 = u32::MAX;

/// Rows handed to one rayon task at a time (as in [`crate::driver`]).
const ROWS_PER_TASK: usize = 64;

/// How many values each row selects: one k for every row, or one per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KPerRow<'a> {
    /// The same k for every row.
    One(usize),
    /// `k[i]` for row `i` (N entries).
    PerRow(&'a [usize]),
}

impl KPerRow<'_> {
    /// The k asked of row `r` (before it is cut to the row's length).
    #[inline]
    pub fn of(&self, r: usize) -> usize {
        match self {
            KPerRow::One(k) => *k,
            KPerRow::PerRow(ks) => ks[r],
        }
    }

    /// The output width K: the scalar k, or the largest `k[i]` (0 for no rows).
    pub fn width(&self) -> usize {
        match self {
            KPerRow::One(k) => *k,
            KPerRow::PerRow(ks) => ks.iter().copied().max().unwrap_or(0),
        }
    }
}

/// The ragged description of a request (docs/contract.md §5): what each row is and selects.
///
/// `Rows::new(k)` is the plain request (every row whole, one k, no hint); the builder methods
/// add per-row lengths, per-row k and hints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rows<'a> {
    /// `Some(lengths)`: row `i` is its first `lengths[i]` values (`0 <= lengths[i] <= M`).
    /// `None`: every row is whole.
    pub lengths: Option<&'a [usize]>,
    /// The k of each row (`0 <= k <= M`; a k above the row's length selects the whole row).
    pub k: KPerRow<'a>,
    /// `Some(hint)`: a guess of each row's threshold (N `f32`s, any value, for rows of every
    /// element type). It changes only the work of algorithms that use it ([`crate::Bisect`]),
    /// never the answer. An integer or `f64` row tests it at the key of the type's value
    /// nearest to it on the selected side ([`crate::Element::hint_key`]), so a threshold that
    /// was rounded to `f32` is still a near hint.
    pub hint: Option<&'a [f32]>,
}

impl<'a> Rows<'a> {
    /// Whole rows, one `k`, no hint.
    pub fn new(k: usize) -> Self {
        Self { lengths: None, k: KPerRow::One(k), hint: None }
    }

    /// Whole rows, `k[i]` for row `i`, no hint.
    pub fn per_row_k(k: &'a [usize]) -> Self {
        Self { lengths: None, k: KPerRow::PerRow(k), hint: None }
    }

    /// The same request with row `i` cut to its first `lengths[i]` values.
    pub fn with_lengths(self, lengths: &'a [usize]) -> Self {
        Self { lengths: Some(lengths), ..self }
    }

    /// The same request with a threshold hint per row.
    pub fn with_hint(self, hint: &'a [f32]) -> Self {
        Self { hint: Some(hint), ..self }
    }

    /// Checks the request against an `(n, m)` input and returns the output width K.
    ///
    /// Refused: `m == 0` or wider than [`MAX_ROW_WIDTH`] (as for plain requests), a scalar
    /// `k > m`, a per-row argument without exactly `n` entries, `lengths[i] > m`, `k[i] > m`.
    pub fn check(&self, n: usize, m: usize) -> Result<usize, TopKError> {
        if m == 0 {
            return Err(TopKError::EmptyRows);
        }
        if m > MAX_ROW_WIDTH {
            return Err(TopKError::RowTooWide { m, max: MAX_ROW_WIDTH });
        }
        match self.k {
            KPerRow::One(k) if k > m => return Err(TopKError::KTooLarge { k, m }),
            KPerRow::One(_) => {}
            KPerRow::PerRow(ks) => {
                per_row_length("k", ks.len(), n)?;
                if let Some((row, &k)) = ks.iter().enumerate().find(|&(_, &k)| k > m) {
                    return Err(TopKError::RowKTooLarge { row, k, m });
                }
            }
        }
        if let Some(lengths) = self.lengths {
            per_row_length("lengths", lengths.len(), n)?;
            if let Some((row, &length)) = lengths.iter().enumerate().find(|&(_, &l)| l > m) {
                return Err(TopKError::LengthTooLarge { row, length, m });
            }
        }
        if let Some(hint) = self.hint {
            per_row_length("hint", hint.len(), n)?;
        }
        Ok(self.k.width())
    }

    /// The length of row `r` of an input of width `m`.
    #[inline]
    pub fn length(&self, r: usize, m: usize) -> usize {
        self.lengths.map_or(m, |l| l[r])
    }

    /// How many values row `r` selects: `min(k[r], lengths[r])`.
    #[inline]
    pub fn selected(&self, r: usize, m: usize) -> usize {
        self.k.of(r).min(self.length(r, m))
    }

    /// The hint of row `r`, if any.
    #[inline]
    pub fn hint_of(&self, r: usize) -> Option<f32> {
        self.hint.map(|h| h[r])
    }
}

fn per_row_length(what: &'static str, got: usize, n: usize) -> Result<(), TopKError> {
    if got == n { Ok(()) } else { Err(TopKError::PerRowLength { what, got, n }) }
}

/// Which optional outputs a ragged call fills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    /// Per-row iteration counts (docs/contract.md §3), for algorithms that report them.
    pub iterations: bool,
    /// Per-row thresholds (docs/contract.md §5).
    pub threshold: bool,
}

/// The result of a ragged row-wise top-k of elements of type `E`.
#[derive(Clone, Debug, PartialEq)]
pub struct RaggedTopK<E: Element = f32> {
    /// `(N, K)` values: the input's bits at the selected indices, then zeros (all bits zero).
    pub values: Array2<E>,
    /// `(N, K)` indices: the selection, then [`PAD_INDEX`].
    pub indices: Array2<u32>,
    /// `(N,)` iteration counts (0 for a row that selects nothing), when asked for and the
    /// algorithm reports them.
    pub iterations: Option<Array1<u32>>,
    /// `(N,)` thresholds when asked for: the k-th selected value of each row as `f32`
    /// (largest mode: the lowest selected; smallest mode: the highest), NaN for a row that
    /// selects nothing. Exact on rows of `f32`, `f16`, `bf16`, `i8`, `u8` and `i16`; on `i32`,
    /// `i64` and `f64` rows the value rounded to the nearest `f32` (ties to even; a finite
    /// `f64` beyond the `f32` range becomes `±inf`) — [`crate::Element::to_f32`]. The exact
    /// k-th value is among the returned values.
    pub threshold: Option<Array1<f32>>,
    /// The work counters of all rows added up (rows that select nothing do none).
    pub work: WorkCounters,
}

/// Ragged row-wise top-k of the `(N, M)` input `x` with `algo` (docs/contract.md §5), rows in
/// parallel with rayon, each task reusing one [`Scratch`](crate::Scratch) (no allocation per
/// row once the buffers have grown).
///
/// Row `i` is `x[i, ..lengths[i]]` and selects `min(k[i], lengths[i])` values, passed to the
/// algorithm as a plain row with that k (and the row's hint, which only
/// [`RowTopKOf::select_row_hinted`] implementations that use one look at). Its output row
/// holds the selection in index order (or canonical order with `opts.sorted`) and then
/// padding up to the width K: [`PAD_INDEX`] and `E::default()` (all bits zero). The threshold
/// is read off the selection — the selected element that ranks last — with no second search.
pub fn topk_ragged<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    x: ArrayView2<'_, E>,
    rows: &Rows<'_>,
    opts: Options,
    wanted: Wanted,
) -> Result<RaggedTopK<E>, TopKError> {
    let (n, m) = x.dim();
    let width = rows.check(n, m)?;
    crate::driver::check_element::<E, A>(algo)?;
    let mut values = Array2::from_elem((n, width), E::default());
    let mut indices = Array2::from_elem((n, width), PAD_INDEX);
    let mut iterations = Array1::zeros(n);
    let mut threshold = Array1::from_elem(n, f32::NAN);
    let mut work = WorkCounters::default();
    if width > 0 {
        let (Some(idx), Some(val), Some(its), Some(thr)) = (
            indices.as_slice_mut(),
            values.as_slice_mut(),
            iterations.as_slice_mut(),
            threshold.as_slice_mut(),
        ) else {
            unreachable!("freshly allocated arrays are in standard layout");
        };
        let run = |bufs: &mut TaskBuffers<E>, r: usize, idx: &mut [u32], val: &mut [E]| {
            ragged_row(algo, x, rows, r, opts, wanted.threshold, bufs, idx, val)
        };
        work = ragged_rows_in_parallel(width, idx, val, its, thr, &run);
    }
    Ok(RaggedTopK {
        values,
        indices,
        iterations: (wanted.iterations && algo.reports_iterations()).then_some(iterations),
        threshold: wanted.threshold.then_some(threshold),
        work,
    })
}

/// Runs `row` over every output row of width `width` in parallel, writing each row's
/// iteration count and threshold, and adds up the rows' work. Called through `dyn` for the
/// reason [`crate::driver`]'s parallel pass is: one copy of the rayon plumbing per element
/// type, not per (algorithm, element type) pair.
fn ragged_rows_in_parallel<E: Element>(
    width: usize,
    idx: &mut [u32],
    val: &mut [E],
    its: &mut [u32],
    thr: &mut [f32],
    row: &RowJob<'_, E, (RowStats, f32)>,
) -> WorkCounters {
    idx.par_chunks_mut(width)
        .zip(val.par_chunks_mut(width))
        .zip(its.par_iter_mut().zip(thr.par_iter_mut()))
        .enumerate()
        .with_min_len(ROWS_PER_TASK)
        .map_init(Default::default, |bufs, (r, ((idx, val), (it, thr)))| {
            let (stats, t) = row(bufs, r, idx, val);
            *it = stats.iterations.unwrap_or(0);
            *thr = t;
            stats.work
        })
        .sum()
}

/// One output row: the selection of row `r`'s valid prefix, its values, the padding, and the
/// threshold (NaN when not wanted or nothing is selected).
#[allow(clippy::too_many_arguments)]
fn ragged_row<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    x: ArrayView2<'_, E>,
    rows: &Rows<'_>,
    r: usize,
    opts: Options,
    want_threshold: bool,
    (scratch, copy): &mut TaskBuffers<E>,
    idx: &mut [u32],
    val: &mut [E],
) -> (RowStats, f32) {
    let len = rows.length(r, x.ncols());
    let k = rows.selected(r, x.ncols());
    if k == 0 {
        return (RowStats::default(), f32::NAN);
    }
    let view = x.row(r);
    let row: &[E] = match view.as_slice() {
        Some(whole) => &whole[..len],
        None => {
            // A strided view: copy the valid prefix (only) into the task's buffer.
            let row = grow(copy, len);
            row.iter_mut().zip(view.iter()).for_each(|(d, &s)| *d = s);
            row
        }
    };
    let chosen = &mut idx[..k];
    let stats = algo.select_row_hinted(row, k, opts.mode, rows.hint_of(r), scratch, chosen);
    if opts.sorted {
        sort_canonical(row, opts.mode, chosen);
    }
    val.iter_mut().zip(chosen.iter()).for_each(|(v, &i)| *v = row[i as usize]);
    let t =
        if want_threshold { threshold_of(row, chosen, opts.mode, opts.sorted) } else { f32::NAN };
    (stats, t)
}

/// The threshold of a selection (docs/contract.md §5): the value, as `f32`, of the selected
/// element that ranks last in `mode` (its k-th value; NaN when `chosen` is empty). In sorted
/// order it is the last entry; in index order one pass over the k chosen indices finds it.
pub fn threshold_of<E: Element>(row: &[E], chosen: &[u32], mode: Mode, sorted: bool) -> f32 {
    let last = if sorted {
        chosen.last().copied()
    } else {
        chosen.iter().copied().min_by_key(|&i| row[i as usize].key(mode).rank(i))
    };
    last.map_or(f32::NAN, |i| row[i as usize].to_f32())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bisect, Heap};
    use ndarray::array;

    #[test]
    fn hand_checked_ragged_rows() {
        let x = array![[5.0f32, 1.0, 9.0, f32::NAN], [2.0, 2.0, 3.0, 0.0], [7.0, 8.0, 1.0, 4.0]];
        let ks = [2, 3, 0];
        let rows = Rows::per_row_k(&ks).with_lengths(&[3, 2, 4]);
        let want = Wanted { iterations: true, threshold: true };
        let out = topk_ragged(&Bisect::exact(), x.view(), &rows, Options::default(), want).unwrap();
        // Row 0: NaN lies past the length; row 1 selects its 2 values and pads; row 2 k = 0.
        assert_eq!(out.indices, array![[0, 2, PAD_INDEX], [0, 1, PAD_INDEX], [PAD_INDEX; 3]]);
        assert_eq!(out.values, array![[5.0, 9.0, 0.0], [2.0, 2.0, 0.0], [0.0; 3]]);
        let t = out.threshold.unwrap();
        assert_eq!((t[0], t[1]), (5.0, 2.0));
        assert!(t[2].is_nan());
        assert_eq!(out.iterations.unwrap()[2], 0);
        let out = topk_ragged(&Heap, x.view(), &rows, Options::default(), Wanted::default());
        let out = out.unwrap();
        assert_eq!((out.iterations, out.threshold), (None, None));
    }

    #[test]
    fn work_counts_only_the_valid_values() {
        let x = Array2::from_shape_fn((100, 50), |(r, c)| ((r * 31 + c * 17) % 23) as f32);
        let lengths: Vec<usize> = (0..100).map(|r| r % 51).collect();
        let rows = Rows::new(7).with_lengths(&lengths);
        let out = topk_ragged(&Heap, x.view(), &rows, Options::default(), Wanted::default());
        let work = out.unwrap().work;
        // Heap reads each row once; rows of length 0 do nothing; k is cut to the length.
        assert_eq!(work.elements_read, lengths.iter().sum::<usize>() as u64);
        let selected: usize = lengths.iter().map(|&l| l.min(7)).sum();
        assert_eq!(work.elements_written, selected as u64);
        assert_eq!(work.passes, lengths.iter().filter(|&&l| l > 0).count() as u64);
    }

    #[test]
    fn bad_requests_are_typed_errors() {
        let x = Array2::<f32>::zeros((2, 3));
        let run = |rows: Rows<'_>| {
            topk_ragged(&Heap, x.view(), &rows, Options::default(), Wanted::default()).err()
        };
        assert_eq!(run(Rows::new(4)), Some(TopKError::KTooLarge { k: 4, m: 3 }));
        assert_eq!(
            run(Rows::per_row_k(&[1])),
            Some(TopKError::PerRowLength { what: "k", got: 1, n: 2 })
        );
        assert_eq!(
            run(Rows::per_row_k(&[1, 4])),
            Some(TopKError::RowKTooLarge { row: 1, k: 4, m: 3 })
        );
        assert_eq!(
            run(Rows::new(1).with_lengths(&[3, 4])),
            Some(TopKError::LengthTooLarge { row: 1, length: 4, m: 3 })
        );
        assert!(matches!(
            run(Rows::new(1).with_lengths(&[3])),
            Some(TopKError::PerRowLength { what: "lengths", .. })
        ));
        assert!(matches!(
            run(Rows::new(1).with_hint(&[0.0; 3])),
            Some(TopKError::PerRowLength { what: "hint", .. })
        ));
        let empty = Array2::<f32>::zeros((2, 0));
        let r =
            topk_ragged(&Heap, empty.view(), &Rows::new(0), Options::default(), Wanted::default());
        assert_eq!(r.err(), Some(TopKError::EmptyRows));
        assert_eq!(run(Rows::new(3).with_lengths(&[0, 3])), None, "k > length is not an error");
    }

    #[test]
    fn strided_rows_read_only_their_prefix() {
        let x = array![[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]];
        let t = x.t(); // (2, 3), rows not contiguous
        let rows = Rows::new(2).with_lengths(&[2, 3]);
        let out = topk_ragged(&Heap, t, &rows, Options { sorted: true, ..Options::default() }, {
            Wanted { iterations: false, threshold: true }
        })
        .unwrap();
        assert_eq!(out.indices, array![[1, 0], [2, 1]]);
        assert_eq!(out.threshold.unwrap(), array![1.0, 4.0]);
    }
}
