//! The CPU benchmark harness behind `rtopk bench cpu`: timing loops, checks against the oracle,
//! the comparison grids of the seed papers, JSON reports and SVG charts.
//!
//! * [`cpu`]: CPU algorithms on generated rows of any [`topk_ref::Family`] or on the caller's
//!   own matrix, default shapes or the caller's.
//! * [`compare`]: topk-ref's algorithms and the seed papers' baselines on the AIR paper's input
//!   families, row-wise and single-vector, with work counters (`--compare`).
//! * [`chart`]: grouped-bar SVG charts of both reports.
//!
//! Every cell is run once and checked against an exact reference ([`Reference`]: heap, itself
//! checked against `topk_ref::oracle`); a wrong answer is reported, never timed. Sizes are
//! checked before anything is allocated. The harness prints nothing: an [`Observer`] hears
//! about each cell ([`TerminalProgress`] draws a bar on a terminal).

pub mod chart;
pub mod check;
pub mod compare;
pub mod cpu;
pub mod machine;
mod measure;
pub mod progress;

pub use check::{Reference, verify};
pub use measure::PerElement;
pub use progress::{Observer, TerminalProgress};

use crate::error::Error;
use rtopk::dtype::Dtype;

/// Most timed runs of one cell: more would only take time (and memory for the times).
pub const MAX_REPS: usize = 100_000;

/// Refuses fewer than `min` timed runs (no median) or more than [`MAX_REPS`].
pub(crate) fn check_reps(reps: usize, min: usize) -> Result<(), Error> {
    let reason = if reps < min {
        format!("got {reps}; at least {min} timed runs are needed for a median")
    } else if reps > MAX_REPS {
        format!("got {reps}; at most {MAX_REPS} timed runs")
    } else {
        return Ok(());
    };
    Err(topk_ref::TopKError::InvalidParameter { name: "reps", reason }.into())
}

/// Refuses a cell whose data cannot fit this machine's memory (RAM and swap): when
/// `generated`, the `(n, m)` input as drawn (float32) plus its `dtype` copy (for a 16-bit
/// type); the `(n, k)` reference and output (values of `dtype` and indices) and the `(n,)`
/// iteration counts. Arithmetic is in `u128`, saturating, so no shape overflows.
pub(crate) fn check_memory(
    label: &str,
    (n, m, k): (usize, usize, usize),
    dtype: Dtype,
    generated: bool,
) -> Result<(), Error> {
    let (n, m, k) = (n as u128, m as u128, k as u128);
    let size = dtype.size() as u128;
    let drawn = if dtype == Dtype::Float32 { size } else { 4 + size };
    let input = if generated { n.saturating_mul(m).saturating_mul(drawn) } else { 0 };
    let outputs =
        n.saturating_mul(k).saturating_mul(2 * (4 + size)).saturating_add(n.saturating_mul(4));
    let needed = input.saturating_add(outputs);
    match machine::memory_bytes() {
        Some(available) if needed > available => Err(Error::NotEnoughMemory {
            what: format!(
                "the benchmark on {label} rows of shape ({n}, {m}) with k = {k} ({dtype} input, \
                 reference and outputs)"
            ),
            needed,
            available,
        }),
        _ => Ok(()),
    }
}

/// The error for generated rows of `dtype`, which the generators do not draw (they draw
/// `f32`, `f16` and `bf16` rows).
pub(crate) fn generated_only(dtype: rtopk::Dtype) -> Error {
    Error::Lib(rtopk::Error::NotYetSupported {
        what: "generated rows of this element type",
        algo: dtype.name().to_string(),
        valid_for: "float32, float16 and bfloat16".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reps_and_memory_limits() {
        assert!(check_reps(5, 5).is_ok() && check_reps(MAX_REPS, 3).is_ok());
        assert!(check_reps(4, 5).unwrap_err().to_string().contains("at least 5"));
        assert!(check_reps(MAX_REPS + 1, 3).unwrap_err().to_string().contains("at most"));
        for dtype in Dtype::ALL {
            assert!(check_memory("normal", (1000, 1000, 10), dtype, true).is_ok());
        }
        if let Some(available) = machine::memory_bytes() {
            let e = check_memory("normal", (1 << 40, 256, 8), Dtype::Float32, true).unwrap_err();
            let text = e.to_string();
            assert!(text.contains("1099511627776, 256") && text.contains("PiB"), "{text}");
            assert!(text.contains("float32 input"), "{text}");
            assert!(e.is_user_error());
            let huge = (usize::MAX, usize::MAX, usize::MAX);
            assert!(check_memory("x", huge, Dtype::Float16, false).is_err());
            // A generated 16-bit input is drawn in float32 first: 6 bytes per element at the
            // peak, where a float32 input needs 4.
            let n = usize::try_from(available / 5 / 1024).unwrap_or(usize::MAX);
            assert!(check_memory("x", (n, 1024, 0), Dtype::Float32, true).is_ok());
            let e = check_memory("x", (n, 1024, 0), Dtype::Bfloat16, true).unwrap_err();
            assert!(e.to_string().contains("bfloat16 input"), "{e}");
        }
    }
}
