//! One cell of a benchmark: a checked (and counted) run, then timed runs.

use std::time::Instant;

use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};
use topk_ref::{Options, TopK, WorkCounters};

use crate::bench::check::verify;
use crate::error::Error;
use rtopk::KernelElement;
use rtopk::algorithm::{Algorithm, Selection};

/// What one cell measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Measurement {
    /// What was wrong with the checked run; no times are taken then.
    pub(crate) error: Option<String>,
    /// Mean recall against the reference (1 for a verified exact algorithm).
    pub(crate) recall: f64,
    /// The checked run's work counters, for algorithms that count.
    pub(crate) work: Option<WorkCounters>,
    /// Timed runs, in milliseconds, sorted ascending (empty after a wrong answer).
    pub(crate) times_ms: Vec<f64>,
}

impl Measurement {
    /// Median of the timed runs.
    pub(crate) fn median_ms(&self) -> Option<f64> {
        median(&self.times_ms)
    }

    /// Fastest timed run.
    pub(crate) fn min_ms(&self) -> Option<f64> {
        self.times_ms.first().copied()
    }
}

/// Runs `algo` once on `x` (of `f32`, `f16` or `bf16`) and checks the answer against `reference`; if it is right, runs it
/// `reps(checked run's ms)` more times and records those times. The output buffers of the
/// checked run are reused, so the timing is of the selection, not of page-faulting fresh
/// outputs (a GPU kernel, too, writes into preallocated buffers).
pub(crate) fn measure<E: KernelElement>(
    algo: &dyn Algorithm,
    x: ArrayView2<'_, E>,
    k: usize,
    reference: &TopK<E>,
    reps: impl FnOnce(f64) -> usize,
) -> Result<Measurement, Error> {
    let mut out = Selection::default();
    let t0 = Instant::now();
    algo.select_as_into(x, k, Options::default(), &mut out)?;
    let checked_ms = t0.elapsed().as_secs_f64() * 1e3;
    let recall = match verify(algo.is_exact(), x, &out, reference) {
        Ok(recall) => recall,
        Err(why) => return Ok(Measurement { error: Some(why), ..Measurement::default() }),
    };
    let reps = reps(checked_ms);
    let mut times_ms = Vec::new();
    times_ms.try_reserve_exact(reps).map_err(|_| topk_ref::TopKError::InvalidParameter {
        name: "reps",
        reason: format!("{reps} timed runs are more than can be recorded"),
    })?;
    for _ in 0..reps {
        let t0 = Instant::now();
        algo.select_as_into(x, k, Options::default(), &mut out)?;
        times_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times_ms.sort_by(f64::total_cmp);
    Ok(Measurement { error: None, recall, work: out.work, times_ms })
}

/// Median of sorted `v`; `None` when empty.
pub(crate) fn median(v: &[f64]) -> Option<f64> {
    let mid = v.len() / 2;
    match v.len() {
        0 => None,
        len if len % 2 == 1 => Some(v[mid]),
        _ => Some(0.5 * (v[mid - 1] + v[mid])),
    }
}

/// Work counters of a whole run, normalised per input element and per row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PerElement {
    /// Elements read per input element.
    pub reads_per_elem: f64,
    /// Elements written per input element.
    pub writes_per_elem: f64,
    /// Passes over the row, per row.
    pub passes_per_row: f64,
    /// Sorting-network merges, per row.
    pub merges_per_row: f64,
}

impl PerElement {
    /// `work` of an `(n, m)` input, normalised.
    pub fn of(work: &WorkCounters, n: usize, m: usize) -> Self {
        let elems = (n as f64 * m as f64).max(1.0);
        let rows = n.max(1) as f64;
        Self {
            reads_per_elem: work.elements_read as f64 / elems,
            writes_per_elem: work.elements_written as f64 / elems,
            passes_per_row: work.passes as f64 / rows,
            merges_per_row: work.merges as f64 / rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::check::Reference;
    use rtopk::rowwise::RowWise;
    use topk_ref::{Family, Heap, RowStats, RowTopK, Scratch};

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), Some(3.0));
        assert_eq!(median(&[]), None);
    }

    /// Heap with the lowest index of every row replaced: a plausible but wrong answer.
    struct OffByOne;

    impl RowTopK for OffByOne {
        fn name(&self) -> &'static str {
            "off-by-one"
        }

        fn select_row(
            &self,
            row: &[f32],
            k: usize,
            mode: topk_ref::Mode,
            scratch: &mut Scratch,
            out: &mut [u32],
        ) -> RowStats {
            let stats = Heap.select_row(row, k, mode, scratch, out);
            out[0] = (0..row.len() as u32).find(|i| !out.contains(i)).unwrap_or(out[0]);
            out.sort_unstable();
            stats
        }
    }

    #[test]
    fn a_wrong_answer_is_reported_not_timed() {
        let x = Family::Ties.matrix(50, 40, 1).unwrap();
        let reference = Reference::new(x.view(), 6).unwrap();
        let mut asked = false;
        let m = measure(&RowWise::new(OffByOne), x.view(), 6, &reference.topk, |_| {
            asked = true;
            5
        })
        .unwrap();
        assert!(m.error.is_some() && m.times_ms.is_empty() && m.median_ms().is_none());
        assert!(!asked, "no timed runs after a wrong answer");
        let ok = measure(&RowWise::new(Heap), x.view(), 6, &reference.topk, |_| 5).unwrap();
        assert_eq!((ok.error, ok.times_ms.len(), ok.recall), (None, 5, 1.0));
        assert!(ok.times_ms.windows(2).all(|w| w[0] <= w[1]));
        let per = PerElement::of(&ok.work.unwrap(), 50, 40);
        assert_eq!((per.reads_per_elem, per.passes_per_row), (1.0, 1.0));
    }
}
