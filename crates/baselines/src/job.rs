//! One row's selection, bundled: what every baseline's `trace_row` / `work_row` takes, and
//! the one place a [`Mode`] becomes an order-key function.

use topk_ref::algorithm::Scratch;
use topk_ref::order::{Element, KeyBits, Mode};

/// One row to select from and where the result goes. The driver's checks hold:
/// `1 <= k <= row.len()` and `out.len() == k`.
#[derive(Debug)]
pub struct Job<'a, E> {
    /// The row.
    pub row: &'a [E],
    /// How many elements to select.
    pub k: usize,
    /// Largest or smallest first.
    pub mode: Mode,
    /// Reusable buffers.
    pub scratch: &'a mut Scratch,
    /// Receives the selected indices, in ascending index order.
    pub out: &'a mut [u32],
}

/// A [`Job`] whose mode has become an order-key function: larger keys rank first.
pub(crate) struct Keyed<'a, E, K> {
    pub row: &'a [E],
    pub k: usize,
    pub key_of: K,
    pub scratch: &'a mut Scratch,
    pub out: &'a mut [u32],
}

/// A baseline whose row run ranks elements by their order keys widened to 32 bits.
pub(crate) trait KeyedRun {
    /// What the run reports.
    type Trace;

    /// Runs one row with the order key `key_of`.
    fn run<E: Element, K: Fn(E) -> u32 + Copy>(&self, job: Keyed<'_, E, K>) -> Self::Trace;
}

impl<'a, E: Element> Job<'a, E> {
    /// This job with the order key `key_of` in place of its mode.
    pub(crate) fn keyed<K>(self, key_of: K) -> Keyed<'a, E, K> {
        let Job { row, k, mode: _, scratch, out } = self;
        Keyed { row, k, key_of, scratch, out }
    }

    /// Runs `algo` with the mode's order key (docs/contract.md §1) widened to 32 bits.
    pub(crate) fn run_u32<A: KeyedRun>(self, algo: &A) -> A::Trace {
        match self.mode {
            Mode::Largest => algo.run(self.keyed(|v: E| v.key_largest().to_u32())),
            Mode::Smallest => algo.run(self.keyed(|v: E| v.key_smallest().to_u32())),
        }
    }
}

/// Runs `run` on a job over `row` with fresh buffers; returns the selected indices and what
/// `run` reported.
#[cfg(test)]
pub(crate) fn run_job<E, T>(
    row: &[E],
    k: usize,
    mode: Mode,
    run: impl FnOnce(Job<'_, E>) -> T,
) -> (Vec<u32>, T) {
    let mut out = vec![0; k];
    let reported = run(Job { row, k, mode, scratch: &mut Scratch::default(), out: &mut out });
    (out, reported)
}
