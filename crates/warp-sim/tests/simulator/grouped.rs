//! Grouped selection (docs/contract.md §8): the simulated `rtopk_grouped_rows` writes
//! topk-ref's `grouped_topk` bit for bit — values' bits and indices — on f32, f16 and bf16
//! rows laced with NaN of both signs and any payload, ±inf, ±0, subnormals and heavy ties, for
//! 1 to 32 groups, both group scores, widths that are not multiples of 32, and k from 0 to
//! every expert of the kept groups; with no diagnostic.

use proptest::prelude::*;
use test_support::{Float16, element, matrix16_in, pool};
use topk_ref::{Element, GroupScore, Grouped, bf16, f16, grouped_topk};
use warp_sim::{ElemType, SimConfig, Simulator};

/// A selection: groups, group size, kept groups, score, and which k (0, 1, all kept, or a
/// fraction of them).
fn selection() -> impl Strategy<Value = (usize, Grouped)> {
    let sizes = prop_oneof![4 => 1usize..12, 1 => 12usize..=64];
    (1usize..=32, sizes, any::<bool>(), 0u8..5, 0.0f64..1.0).prop_flat_map(
        |(groups, size, max, which, frac)| {
            let size = size.min(1024 / groups);
            let score = if max || size < 2 { GroupScore::Max } else { GroupScore::TopTwoSum };
            (1..=groups).prop_map(move |top_groups| {
                let kept = top_groups * size;
                let k = match which {
                    0 => 0,
                    1 => 1,
                    2 => kept,
                    _ => ((kept as f64 * frac) as usize).max(1),
                };
                (groups * size, Grouped { k, groups, top_groups, score })
            })
        },
    )
}

/// The simulator's answer against the reference's on `n` rows of `m` of `T`.
fn check<T: Element>(
    elem: ElemType,
    x: &[T],
    (n, m): (usize, usize),
    g: &Grouped,
    bits: impl Fn(T) -> u32,
) -> Result<(), TestCaseError> {
    let (mut values, mut indices) = (vec![T::default(); n * g.k], vec![0u32; n * g.k]);
    grouped_topk(x, n, m, g, &mut values, &mut indices)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let words: Vec<u32> = x.iter().map(|&v| bits(v)).collect();
    let mut sim = Simulator::new(SimConfig::default());
    let (v, i) = sim
        .grouped_rows(elem, &words, (n, m), g)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&i, &indices, "indices, {:?} on ({}, {})", g, n, m);
    let want: Vec<u32> = values.iter().map(|&v| bits(v)).collect();
    prop_assert_eq!(v, want, "values' bits");
    Ok(())
}

fn rows_f32(m: usize) -> impl Strategy<Value = (usize, Vec<f32>)> {
    (1usize..5, pool(), 0u8..4).prop_flat_map(move |(n, pool, flavour)| {
        (Just(n), prop::collection::vec(element(pool, flavour), n * m))
    })
}

fn check16<T: Float16 + Element>(
    elem: ElemType,
    (n, m, x): (usize, usize, Vec<T>),
    g: Grouped,
) -> Result<(), TestCaseError> {
    check(elem, &x, (n, m), &g, |v: T| u32::from(v.to_bits16()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn f32_rows_match_the_reference(
        ((n, x), (m, g)) in selection().prop_flat_map(|(m, g)| (rows_f32(m), Just((m, g))))
    ) {
        check(ElemType::F32, &x, (n, m), &g, f32::to_bits)?;
    }

    #[test]
    fn f16_rows_match_the_reference(
        (rows, g) in selection().prop_flat_map(|(m, g)| (matrix16_in::<f16>(1..5, m..=m), Just(g)))
    ) {
        check16(ElemType::F16, rows, g)?;
    }

    #[test]
    fn bf16_rows_match_the_reference(
        (rows, g) in selection().prop_flat_map(|(m, g)| (matrix16_in::<bf16>(1..5, m..=m), Just(g)))
    ) {
        check16(ElemType::Bf16, rows, g)?;
    }
}

/// DeepSeek-V3's router (256 experts in 8 groups, 4 kept, 8 selected) on 130 rows: more rows
/// than one block's warps, so warps take several rows.
#[test]
fn deepseek_v3_routing_on_many_rows() {
    let (n, m) = (130, 256);
    let x: Vec<f32> = (0..n * m).map(|i| ((i * 7919 % 1013) as f32 * 0.37).sin()).collect();
    let g = Grouped { k: 8, groups: 8, top_groups: 4, score: GroupScore::TopTwoSum };
    let (mut values, mut indices) = (vec![0.0f32; n * 8], vec![0u32; n * 8]);
    grouped_topk(&x, n, m, &g, &mut values, &mut indices).unwrap();
    let words: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
    let (v, i) = Simulator::new(SimConfig::default())
        .grouped_rows(ElemType::F32, &words, (n, m), &g)
        .unwrap();
    assert_eq!(i, indices);
    assert_eq!(v, values.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    // every row's experts lie in at most 4 groups, best first
    for r in 0..n {
        let groups: std::collections::BTreeSet<u32> =
            i[r * 8..r * 8 + 8].iter().map(|j| j / 32).collect();
        assert!(groups.len() <= 4, "row {r}: groups {groups:?}");
        assert!(values[r * 8..r * 8 + 8].windows(2).all(|w| w[0] >= w[1]));
    }
}

#[test]
fn bad_selections_are_errors_not_panics() {
    let mut sim = Simulator::new(SimConfig::default());
    let g = Grouped { k: 2, groups: 3, top_groups: 1, score: GroupScore::Max };
    assert!(sim.grouped_rows(ElemType::F32, &[0; 8], (1, 8), &g).is_err());
    let g = Grouped { groups: 2, ..g };
    assert!(sim.grouped_rows(ElemType::I32, &[0; 8], (1, 8), &g).is_err());
    assert!(sim.grouped_rows(ElemType::F32, &[0; 7], (1, 8), &g).is_err());
    assert_eq!(sim.grouped_rows(ElemType::F32, &[], (0, 8), &g).unwrap(), (vec![], vec![]));
}
