//! # baselines — the seed papers' top-k algorithms on CPU, with work counters
//!
//! RTop-K is measured against the state of the art of GPU top-k. This crate makes each of those
//! designs runnable, exact and comparable on one CPU, so that their *structure* — how many
//! passes, how much buffering, how many sorting-network merges — can be studied next to
//! RTop-K's own (`topk_ref::Bisect`):
//!
//! | name | algorithm | source |
//! |---|---|---|
//! | `air` | [`Air`]: AIR Top-K, iteration-fused 11-bit radix select with adaptive buffering | paper 002, §3 |
//! | `gridselect` | [`GridSelect`]: one shared queue of 32, two-step insertion, several blocks | paper 002, §4 |
//! | `warpselect` | [`WarpSelect`]: per-lane thread queues, warp-wide merges (Faiss) | paper 002, §2.2 and §4 |
//! | `drtopk` | [`DrTopK`]: Dr. Top-k, delegate-centric top-k with β delegates and Rule 4 | paper 004, §4–5 |
//! | `torch-radix` | [`TorchRadix`]: `torch.topk`'s radix select, 2-bit digits | PyTorch's CUDA `topk` |
//! | `sort` | [`SortChoose`]: sort-and-choose with an LSD radix sort | paper 004, §2.2 |
//!
//! Every one of them implements [`topk_ref::RowSelect`] — once, generically over the element
//! type ([`topk_ref::Element`]) — and so [`topk_ref::RowTopK`] and [`topk_ref::RowTopKOf`], so
//! `topk_ref::topk_rows` runs it row-wise on rows of `f32`, `f16`, `bf16`, `i8`, `u8`, `i16` and
//! `i32` (keys of at most 32 bits). On `f64` and `i64` rows (64-bit keys) only `torch-radix`
//! runs — PyTorch's radix select is defined for `int64` and `double`; the others pack a key and
//! an index into one 64-bit word, declare `max_key_bits() == 32`
//! ([`topk_ref::RowSelect::max_key_bits`]), and the drivers refuse them with
//! `topk_ref::TopKError::UnsupportedElement`. Every one is **exact and canonical** (docs/contract.md §1):
//! the index set of
//! `topk_ref::oracle::canonical_indices`, in both modes, with the input's bits as values. They
//! rank elements through `topk_ref::order` (keys and ranks) only — no second order exists.
//!
//! Each reports [`WorkCounters`] in its [`topk_ref::RowStats`]: elements read, elements written,
//! passes over the row and sorting-network merges, counted as the algorithm's GPU form moves
//! data (see [`WorkCounters`] for the rules). The counters are what the GPU papers optimise;
//! the comparison mode of `rtopk bench cpu --compare` (the `rtopk` crate's `bench` module)
//! reports them next to CPU times, on rows of `topk_ref::inputs::Family`.

#![forbid(unsafe_code)]

pub mod air;
pub mod drtopk;
pub mod error;
pub mod gridselect;
pub mod job;
mod queue;
pub mod sort;
pub mod torch_radix;
pub mod warpselect;

pub use air::Air;
pub use drtopk::{Base, DrTopK};
pub use error::BaselineError;
pub use gridselect::GridSelect;
pub use job::Job;
pub use sort::SortChoose;
pub use topk_ref::algorithm::WorkCounters;
pub use torch_radix::TorchRadix;
pub use warpselect::WarpSelect;

use topk_ref::{Element, RowTopK, RowTopKOf};

/// The baselines' command-line names (docs/contract.md §4), in the order the CLI and benches list them.
pub const BASELINE_NAMES: [&str; 6] =
    ["air", "gridselect", "warpselect", "drtopk", "torch-radix", "sort"];

/// The baseline called `name` for `f32` rows, with its papers' default parameters; `None` for
/// other names.
pub fn by_name(name: &str) -> Option<Box<dyn RowTopK>> {
    Some(match name {
        "air" => Box::<Air>::default(),
        "gridselect" => Box::<GridSelect>::default(),
        "warpselect" => Box::new(WarpSelect),
        "drtopk" => Box::<DrTopK>::default(),
        "torch-radix" => Box::new(TorchRadix),
        "sort" => Box::new(SortChoose),
        _ => return None,
    })
}

/// The baseline called `name` for rows of `E` (any [`Element`]; the drivers refuse the ones
/// whose `max_key_bits` is below `E`'s key width), with its papers' default parameters; `None`
/// for other names.
pub fn by_name_for<E: Element>(name: &str) -> Option<Box<dyn RowTopKOf<E>>> {
    Some(match name {
        "air" => E::boxed(Air::default()),
        "gridselect" => E::boxed(GridSelect::default()),
        "warpselect" => E::boxed(WarpSelect),
        "drtopk" => E::boxed(DrTopK::default()),
        "torch-radix" => E::boxed(TorchRadix),
        "sort" => E::boxed(SortChoose),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_the_algorithm_of_that_name() {
        for name in BASELINE_NAMES {
            let algo = by_name(name).unwrap();
            assert_eq!(algo.name(), name);
            assert!(algo.is_exact());
        }
        assert!(by_name("radix").is_none());
    }
}
