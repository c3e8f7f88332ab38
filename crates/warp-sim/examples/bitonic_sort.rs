//! A kernel that is not RTop-K, validated on the engine alone: a warp-level bitonic sort of up
//! to 32 keys with `__shfl_xor_sync`, then the same kernel with a realistic bug — lanes that
//! hold no key return early ("nothing to sort") — and the diagnostics that catch it.
//!
//! The CUDA it simulates, one key per lane:
//!
//! ```text
//! u32 v = lane < n ? keys[lane] : 0xffffffff;          // pad: sorts last
//! // BUG variant: if (lane >= n) return;
//! for (int size = 2; size <= 32; size *= 2)
//!     for (int stride = size / 2; stride > 0; stride /= 2) {
//!         u32 other = __shfl_xor_sync(0xffffffff, v, stride);
//!         bool up = (lane & size) == 0, lower = (lane & stride) == 0;
//!         v = lower == up ? min(v, other) : max(v, other);
//!     }
//! if (lane < n) out[lane] = v;
//! ```
//!
//! Run: `cargo run -p warp-sim --example bitonic_sort`.

mod common;

use common::print_kinds;
use warp_sim::engine::{
    BufId, DiagPolicy, Diagnostic, FULL_MASK, Global, Grid, Lanes, Machine, Schedule, SimError,
    Warp,
};

/// The kernel for one warp: sorts the `n` (at most 32) keys of `keys` ascending into `out`.
/// With `exit_idle_lanes`, lanes without a key return before the sort.
async fn bitonic_sort(
    w: &mut Warp<'_>,
    keys: BufId,
    n: u32,
    out: BufId,
    exit_idle_lanes: bool,
) -> Result<(), SimError> {
    let lane = w.lane_id();
    let has_key = lane.map(|l| l < n);
    // Load the keys; lanes past n hold the padding 0xffffffff, which sorts last.
    let saved = w.push_active(&has_key, "if (lane < n)")?;
    let loaded = w.ld_global(keys, &lane.map(u64::from), "keys[lane]").await?;
    w.pop_active(saved);
    let mut v = Lanes::select(&has_key, &loaded, &Lanes::splat(u32::MAX));
    if exit_idle_lanes {
        // BUG: the lanes without a key leave; the shuffles below still name them.
        w.exit_where(&has_key.not(), "if (lane >= n) return")?;
    }
    let mut size = 2;
    while size <= 32 {
        let mut stride = size / 2;
        while stride > 0 {
            let other = w.shfl_xor_sync(FULL_MASK, &v, stride, 32, "__shfl_xor_sync(v, stride)")?;
            let keep_min = lane.map(|l| (l & stride == 0) == (l & size == 0));
            let lo = v.zip(&other, u32::min);
            let hi = v.zip(&other, u32::max);
            v = Lanes::select(&keep_min, &lo, &hi);
            stride /= 2;
        }
        size *= 2;
    }
    let saved = w.push_active(&has_key, "if (lane < n)")?;
    w.st_global(out, &lane.map(u64::from), &v, "out[lane] = v").await?;
    w.pop_active(saved);
    Ok(())
}

/// Sorts `keys` on one simulated warp; returns the output and every diagnostic.
fn run(keys: &[u32], exit_idle_lanes: bool) -> Result<(Vec<u32>, Vec<Diagnostic>), SimError> {
    let mut machine = Machine::new(DiagPolicy::Collect, Schedule::InOrder);
    let input = machine.alloc(Global::from_words("keys", keys.to_vec()));
    let out = machine.alloc(Global::zeroed("out", keys.len() as u64)?);
    let n = keys.len() as u32;
    machine.launch(Grid::new(1, 1, 0), async |mut w| {
        bitonic_sort(&mut w, input, n, out, exit_idle_lanes).await
    })?;
    Ok((machine.global(out).data().to_vec(), machine.take_diagnostics().0))
}

/// Twenty keys: fewer than a warp, so twelve lanes hold padding.
fn keys() -> Vec<u32> {
    (0..20u32).map(|i| (i * 7919 + 13) % 101).collect()
}

fn main() -> Result<(), SimError> {
    let keys = keys();
    println!("keys:           {keys:?}");
    let (sorted, found) = run(&keys, false)?;
    println!("bitonic_sort:   {sorted:?}  ({} diagnostics)", found.len());
    let (wrong, found) = run(&keys, true)?;
    println!("with the bug:   {wrong:?}  ({} diagnostics)", found.len());
    print_kinds(&found);
    Ok(())
}

#[cfg(test)]
mod tests {
    use warp_sim::engine::DiagKind;

    use super::*;

    #[test]
    fn the_kernel_sorts_with_no_diagnostic() {
        let keys = keys();
        let (sorted, found) = run(&keys, false).unwrap();
        let mut want = keys.clone();
        want.sort_unstable();
        assert_eq!(sorted, want);
        assert!(found.is_empty(), "{found:?}");
    }

    /// The early return is caught where it happens: the first shuffle names lanes that left
    /// (its mask), reads from them (a poisoned result), and the poison reaches the output.
    #[test]
    fn lanes_that_return_early_are_caught_at_the_first_shuffle() {
        let keys = keys();
        let (_, found) = run(&keys, true).unwrap();
        let first = &found[0];
        assert_eq!(first.kind, DiagKind::MaskNamesInactiveLanes);
        assert_eq!((first.label, first.lanes), ("__shfl_xor_sync(v, stride)", !0u32 << 20));
        let kinds: Vec<DiagKind> = found.iter().map(|d| d.kind).collect();
        assert!(kinds.contains(&DiagKind::ShuffleSourceInactive), "{kinds:?}");
        let at_store = found.iter().find(|d| d.kind == DiagKind::PoisonUsed).expect("poison");
        assert_eq!(at_store.label, "out[lane] = v");
    }
}
