//! Grouped selection (docs/contract.md §8) on the GPU: the `cuda` kernel gives the simulated
//! kernel's answer and the reference's bit for bit — indices and value bits — on f32, f16 and
//! bf16 rows built to break it (NaN of both signs and payloads, ±inf, ±0, subnormals, heavy
//! ties), for widths from 8 to 1024 (multiples of 32 and not), 1 to 32 groups, both group
//! scores, k from 1 to every expert of the kept groups, and more rows than the grid's warps.
//! Needs a CUDA GPU: `cargo test -p rtopk --release --test gpu_ragged -- --ignored grouped`.

use ndarray::{Array2, ArrayView2};
use rtopk::grouped::{GroupScore, Grouped, GroupedElement, select_grouped};
use rtopk::{bf16, f16};
use topk_ref::KeyBits;

use super::hostile;

/// The three algorithms on `x` agree bit for bit; `sim`: whether the simulator runs too.
fn agree<E: GroupedElement>(x: ArrayView2<'_, E>, g: &Grouped, sim: bool) {
    let want = select_grouped(x, g, "reference").unwrap();
    let got = select_grouped(x, g, "cuda").unwrap();
    let bits = |a: &Array2<E>| a.iter().map(|&v| v.to_bits().to_u32()).collect::<Vec<_>>();
    let (n, m) = x.dim();
    assert_eq!(got.indices, want.indices, "indices, {g:?} on ({n}, {m})");
    assert_eq!(bits(&got.values), bits(&want.values), "value bits, {g:?} on ({n}, {m})");
    if sim {
        let s = select_grouped(x, g, "sim").unwrap();
        assert_eq!(s.indices, got.indices, "sim, {g:?} on ({n}, {m})");
        assert_eq!(bits(&s.values), bits(&got.values));
    }
}

/// Every selection of a few shapes, in each type.
#[test]
#[ignore = "needs a CUDA GPU"]
fn grouped_rows_on_the_gpu_equal_the_simulator_and_the_reference() {
    let shapes = [(8, 4), (33, 3), (64, 8), (96, 32), (160, 5), (256, 8), (384, 12), (1000, 20)];
    let mut cases = 0;
    for (si, &(m, groups)) in shapes.iter().enumerate() {
        let size = m / groups;
        for top_groups in [1, groups / 2 + 1, groups] {
            let kept = top_groups * size;
            for k in [1, 2, kept / 3 + 1, kept.min(32), kept] {
                for score in [GroupScore::Max, GroupScore::TopTwoSum] {
                    if score == GroupScore::TopTwoSum && size < 2 {
                        continue;
                    }
                    let g = Grouped { k, groups, top_groups, score };
                    let n = 37;
                    let x =
                        Array2::from_shape_vec((n, m), hostile(n, m, si as u64 * 31 + k as u64))
                            .unwrap();
                    agree(x.view(), &g, true);
                    agree(x.mapv(f16::from_f32).view(), &g, true);
                    agree(x.mapv(bf16::from_f32).view(), &g, true);
                    cases += 3;
                }
            }
        }
    }
    assert!(cases > 300, "{cases} cases");
}

/// DeepSeek-V3's router and the widest rows, on more rows than the grid's warps (the warps
/// take several rows each) and on one row.
#[test]
#[ignore = "needs a CUDA GPU"]
fn grouped_rows_past_the_grid_and_at_the_limits() {
    let v3 = Grouped { k: 8, groups: 8, top_groups: 4, score: GroupScore::TopTwoSum };
    for (n, m, g) in [
        (300_000, 256, v3),
        (1, 256, v3),
        (5, 1024, Grouped { k: 1024, groups: 32, top_groups: 32, score: GroupScore::Max }),
        (3, 1024, Grouped { k: 64, groups: 1, top_groups: 1, score: GroupScore::TopTwoSum }),
    ] {
        let x = Array2::from_shape_vec((n, m), hostile(n, m, 7)).unwrap();
        agree(x.view(), &g, n < 1000);
        agree(x.mapv(bf16::from_f32).view(), &g, false);
    }
}
