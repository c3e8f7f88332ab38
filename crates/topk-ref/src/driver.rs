//! The row-wise driver: N rows in, `(N, k)` values and indices out, rows in parallel with rayon.

use ndarray::{Array1, Array2, ArrayView2};
use rayon::prelude::*;

use crate::algorithm::{RowStats, Scratch, WorkCounters, grow};
use crate::error::TopKError;
use crate::order::{Element, KeyBits, Mode, RowTopKOf, sort_canonical};

/// The widest row whose indices fit the `u32` output (and leave `u32::MAX` free as a sentinel).
pub const MAX_ROW_WIDTH: usize = (u32::MAX - 1) as usize;

/// Rows handed to one rayon task at a time: enough to amortise scheduling, few enough that
/// two cores stay balanced on 2^14-row inputs.
const ROWS_PER_TASK: usize = 64;

/// How the selection is done and reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Largest (default) or smallest.
    pub mode: Mode,
    /// Output in canonical value order instead of ascending index order.
    pub sorted: bool,
}

/// The result of a row-wise top-k of elements of type `E`.
#[derive(Clone, Debug, PartialEq)]
pub struct TopK<E: Element = f32> {
    /// `(N, k)` selected values: the input's bits at the selected indices, in its type.
    pub values: Array2<E>,
    /// `(N, k)` selected indices.
    pub indices: Array2<u32>,
    /// `(N,)` iteration counts, for algorithms that report them.
    pub iterations: Option<Array1<u32>>,
}

/// The result of a single-row top-k.
#[derive(Clone, Debug, PartialEq)]
pub struct RowTopKResult<E: Element = f32> {
    /// Selected values (the input's bits).
    pub values: Vec<E>,
    /// Selected indices.
    pub indices: Vec<u32>,
    /// What the algorithm reported.
    pub stats: RowStats,
}

/// Checks `k` against the row width `m` (docs/contract.md §1).
pub fn check_shape(m: usize, k: usize) -> Result<(), TopKError> {
    if m == 0 {
        return Err(TopKError::EmptyRows);
    }
    if m > MAX_ROW_WIDTH {
        return Err(TopKError::RowTooWide { m, max: MAX_ROW_WIDTH });
    }
    if k > m {
        return Err(TopKError::KTooLarge { k, m });
    }
    Ok(())
}

/// Checks that `algo` takes rows of `E` ([`RowTopKOf::max_key_bits`]).
pub fn check_element<E: Element, A: RowTopKOf<E> + ?Sized>(algo: &A) -> Result<(), TopKError> {
    let (key_bits, max_key_bits) = (<E::Key as KeyBits>::BITS, algo.max_key_bits());
    if key_bits > max_key_bits {
        return Err(TopKError::UnsupportedElement {
            algorithm: algo.name(),
            element: E::NAME,
            key_bits,
            max_key_bits,
        });
    }
    Ok(())
}

/// Top-k of one row with `algo`.
pub fn topk_row<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    row: &[E],
    k: usize,
    opts: Options,
) -> Result<RowTopKResult<E>, TopKError> {
    check_shape(row.len(), k)?;
    check_element::<E, A>(algo)?;
    let mut indices = vec![0u32; k];
    let mut scratch = Scratch::default();
    let stats = select_one(algo, row, k, opts, &mut scratch, &mut indices);
    let values = indices.iter().map(|&i| row[i as usize]).collect();
    Ok(RowTopKResult { values, indices, stats })
}

/// Row-wise top-k of the `(N, M)` matrix `x` with `algo`, rows in parallel.
///
/// Allocates the outputs once; each rayon task reuses one [`Scratch`], so no row allocates once
/// the buffers have grown. Strided (non-C-order) views are copied row by row into scratch.
pub fn topk_rows<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    x: ArrayView2<'_, E>,
    k: usize,
    opts: Options,
) -> Result<TopK<E>, TopKError> {
    let mut out = TopK::empty();
    topk_rows_into(algo, x, k, opts, &mut out)?;
    Ok(out)
}

/// [`topk_rows`] into the buffers of an earlier result, reallocating only when the shape
/// changed — for callers (and benchmarks) that select repeatedly.
pub fn topk_rows_into<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    x: ArrayView2<'_, E>,
    k: usize,
    opts: Options,
    out: &mut TopK<E>,
) -> Result<(), TopKError> {
    topk_rows_into_counted(algo, x, k, opts, out).map(|_| ())
}

/// [`topk_rows_into`] that also returns the work counters of all rows added up.
///
/// Each row's [`RowStats::work`] is summed by the rayon reduction that runs the rows anyway:
/// one addition per row, nothing per element.
pub fn topk_rows_into_counted<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    x: ArrayView2<'_, E>,
    k: usize,
    opts: Options,
    out: &mut TopK<E>,
) -> Result<WorkCounters, TopKError> {
    let (n, m) = x.dim();
    check_shape(m, k)?;
    check_element::<E, A>(algo)?;
    out.reshape(n, k, algo.reports_iterations());
    let mut no_iterations = Array1::zeros(0);
    let iterations = out.iterations.as_mut().unwrap_or(&mut no_iterations);
    let (Some(indices), Some(values), Some(iterations)) =
        (out.indices.as_slice_mut(), out.values.as_slice_mut(), iterations.as_slice_mut())
    else {
        unreachable!("TopK::reshape leaves standard-layout arrays");
    };
    if k == 0 {
        iterations.fill(0);
        return Ok(WorkCounters::default());
    }
    // Each task's buffers: the algorithm's scratch and a contiguous copy of a strided row.
    let stats_for =
        |(scratch, copy): &mut TaskBuffers<E>, r: usize, idx: &mut [u32], val: &mut [E]| {
            let view = x.row(r);
            match view.as_slice() {
                Some(row) => fill_row(algo, row, k, opts, scratch, idx, val),
                None => {
                    let row = grow(copy, m);
                    row.iter_mut().zip(view.iter()).for_each(|(d, &s)| *d = s);
                    fill_row(algo, row, k, opts, scratch, idx, val)
                }
            }
        };
    Ok(rows_in_parallel(k, indices, values, iterations, &stats_for))
}

/// One rayon task's buffers: the algorithm's scratch and a contiguous copy of a strided row.
pub(crate) type TaskBuffers<E> = (Scratch, Vec<E>);

/// One row's work in a parallel pass: the task's buffers, the row's number, its output
/// indices and values in; what the pass keeps of the row (`R`) out.
pub(crate) type RowJob<'a, E, R> =
    dyn Fn(&mut TaskBuffers<E>, usize, &mut [u32], &mut [E]) -> R + Sync + 'a;

/// Runs `row` over every output row of width `k` in parallel, writing each row's iteration
/// count where `iterations` is not empty, and adds up the rows' work.
///
/// The row is called through `dyn`, so the rayon plumbing is built once per element type
/// rather than once per (algorithm, element type) pair. The registry instantiates this driver
/// for every algorithm it names, and the plumbing was over half of the code compiled there
/// (`cargo llvm-lines`); the price is one indirect call per row.
fn rows_in_parallel<E: Element>(
    k: usize,
    indices: &mut [u32],
    values: &mut [E],
    iterations: &mut [u32],
    row: &RowJob<'_, E, RowStats>,
) -> WorkCounters {
    let rows = indices.par_chunks_mut(k).zip(values.par_chunks_mut(k)).enumerate();
    if iterations.is_empty() {
        rows.with_min_len(ROWS_PER_TASK)
            .map_init(Default::default, |s, (r, (idx, val))| row(s, r, idx, val).work)
            .sum()
    } else {
        rows.zip(iterations.par_iter_mut())
            .with_min_len(ROWS_PER_TASK)
            .map_init(Default::default, |s, ((r, (idx, val)), it)| {
                let stats = row(s, r, idx, val);
                *it = stats.iterations.unwrap_or(0);
                stats.work
            })
            .sum()
    }
}

impl<E: Element> TopK<E> {
    /// A result with no rows, to be filled by [`topk_rows_into`].
    pub fn empty() -> Self {
        Self {
            values: Array2::from_elem((0, 0), E::default()),
            indices: Array2::zeros((0, 0)),
            iterations: None,
        }
    }

    /// Makes the buffers `(n, k)` (and `(n,)` iterations when wanted), keeping allocations
    /// whose shape already fits.
    fn reshape(&mut self, n: usize, k: usize, with_iterations: bool) {
        if self.values.dim() != (n, k) || !self.values.is_standard_layout() {
            self.values = Array2::from_elem((n, k), E::default());
        }
        if self.indices.dim() != (n, k) || !self.indices.is_standard_layout() {
            self.indices = Array2::zeros((n, k));
        }
        self.iterations = match self.iterations.take() {
            Some(it) if with_iterations && it.len() == n => Some(it),
            _ if with_iterations => Some(Array1::zeros(n)),
            _ => None,
        };
    }
}

fn fill_row<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    row: &[E],
    k: usize,
    opts: Options,
    scratch: &mut Scratch,
    idx: &mut [u32],
    val: &mut [E],
) -> RowStats {
    let stats = select_one(algo, row, k, opts, scratch, idx);
    val.iter_mut().zip(idx.iter()).for_each(|(v, &i)| *v = row[i as usize]);
    stats
}

fn select_one<E: Element, A: RowTopKOf<E> + ?Sized>(
    algo: &A,
    row: &[E],
    k: usize,
    opts: Options,
    scratch: &mut Scratch,
    idx: &mut [u32],
) -> RowStats {
    if k == 0 {
        return RowStats::default();
    }
    let stats = algo.select_row(row, k, opts.mode, scratch, idx);
    if opts.sorted {
        sort_canonical(row, opts.mode, idx);
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Heap;
    use ndarray::Array2;

    #[test]
    fn counted_runs_add_up_the_rows_work() {
        let x = Array2::from_shape_fn((300, 50), |(r, c)| ((r * 31 + c * 17) % 23) as f32);
        let mut out = TopK::empty();
        let work =
            topk_rows_into_counted(&Heap, x.view(), 7, Options::default(), &mut out).unwrap();
        // Heap: one pass over each row, k outputs per row.
        assert_eq!(work.elements_read, 300 * 50);
        assert_eq!(work.elements_written, 300 * 7);
        assert_eq!(work.passes, 300);
        let one = topk_row(&Heap, x.row(0).as_slice().unwrap(), 7, Options::default()).unwrap();
        assert_eq!(one.stats.work.passes, 1);
        let none = topk_rows_into_counted(&Heap, x.view(), 0, Options::default(), &mut out);
        assert_eq!(none.unwrap(), WorkCounters::default());
    }
}
