//! Pick rows (docs/kernel.md, "Pick rows"): where no iteration counts are asked, exact rows of
//! up to 512 16-bit floats with k <= 8 (f32 rows up to M * k = 256, sorted ones of k >= 2 up to
//! M = 256) run `rtopk_pick_rows` (k rounds of the row's best element), and
//! the simulated kernel writes the canonical top k (docs/contract.md §1) — topk-ref's oracle,
//! indices and value bits — on f32, f16 and bf16 rows laced with NaN of both signs and any
//! payload, ±inf, ±0, subnormals and heavy ties, widths that are not multiples of 8, k from 1
//! to min(8, M), both modes, sorted or not; with no diagnostic and no counts.

use proptest::prelude::*;
use test_support::{Float16, element, matrix16_in, oracle_indices, pool};
use topk_ref::{Element, KeyBits, Mode, Options, bf16, f16};
use warp_sim::{Family, KernelArgs, SimConfig, Simulator};

/// The simulator's answer, without counts, against the oracle's on `n` rows of `m`.
fn check<E: Element>(
    (n, m, x): (usize, usize, &[E]),
    k: usize,
    smallest: bool,
    sorted: bool,
) -> Result<(), TestCaseError> {
    let mode = Mode::from_smallest(smallest);
    let args = KernelArgs { n, m, k, mode, bisect: topk_ref::Bisect::exact(), mutant: None };
    let config = SimConfig { counts: false, sorted, ..SimConfig::default() };
    let got =
        Simulator::new(config).run(x, &args).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let unit = got.plan.unit;
    prop_assert_eq!(unit.family(), Family::PickRows, "{}", unit);
    let want = match E::NAME {
        "f16" => "float16",
        "bf16" => "bfloat16",
        _ => "float32",
    };
    prop_assert_eq!(unit.elem_type().name(), want, "{} runs the {} kernels", unit, E::NAME);
    prop_assert!(got.diagnostics.is_empty(), "{}: {}", unit, got.summary);
    prop_assert!(got.iterations.is_empty(), "{}: pick rows count nothing", unit);
    let opts = Options { mode, sorted };
    let bits = |v: &[E]| v.iter().map(|e| e.to_bits().to_u64()).collect::<Vec<_>>();
    for r in 0..n {
        let row = &x[r * m..(r + 1) * m];
        let want = oracle_indices(row, k, opts);
        let (lo, hi) = (r * k, (r + 1) * k);
        prop_assert_eq!(&got.indices[lo..hi], want.as_slice(), "{} row {}", unit, r);
        let at: Vec<E> = want.iter().map(|&i| row[i as usize]).collect();
        prop_assert_eq!(bits(&got.values[lo..hi]), bits(&at), "{} row {}", unit, r);
    }
    Ok(())
}

/// `(n, m, values)`: 1–5 rows of one width in 1..=256 (f32 rows pick up to M * k = 256), one
/// flavour of test-support's elements.
fn matrix32() -> impl Strategy<Value = (usize, usize, Vec<f32>)> {
    matrix32_in(prop_oneof![3 => 1usize..=32, 2 => 33usize..=256])
}

/// [`matrix32`] of the widths `widths` draws.
fn matrix32_in(
    widths: impl Strategy<Value = usize>,
) -> impl Strategy<Value = (usize, usize, Vec<f32>)> {
    (widths, 1usize..6, pool(), 0u8..4).prop_flat_map(|(m, n, pool, flavour)| {
        (Just(n), Just(m), prop::collection::vec(element(pool, flavour), n * m))
    })
}

/// k in 1..=min(8, m): 1, min(8, m), or between.
fn pick_k(m: usize, frac: f64) -> usize {
    1 + (frac * (m.min(8) - 1) as f64).round() as usize
}

/// [`pick_k`] for an f32 row, whose picks go up to M * k = 256.
fn pick_k32(m: usize, frac: f64) -> usize {
    pick_k(m, frac).min(256 / m).max(1)
}

fn check16<T: Float16 + Element>(
    (n, m, x): (usize, usize, Vec<T>),
    frac: f64,
    smallest: bool,
    sorted: bool,
) -> Result<(), TestCaseError> {
    check((n, m, &x), pick_k(m, frac), smallest, sorted)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn pick_rows_are_canonical_on_f32(x in matrix32(), frac in 0.0f64..=1.0, smallest: bool,
                                      sorted: bool) {
        check((x.0, x.1, &x.2), pick_k32(x.1, frac), smallest, sorted)?;
    }

    #[test]
    fn sorted_f32_pick_rows_are_canonical_to_m_256(x in matrix32_in(2usize..=256),
                                                   frac in 0.0f64..=1.0, smallest: bool) {
        // sorted output of k >= 2: the bisection would need a sort launch, so f32 rows pick up
        // to M = 256 whatever their k (rtopk-plan's PICK_F32_SORTED_MAX_ROW)
        let k = pick_k(x.1, frac).max(2);
        check((x.0, x.1, &x.2), k, smallest, true)?;
    }

    #[test]
    fn pick_rows_are_canonical_on_f16(x in matrix16_in::<f16>(1..6, 1..=512),
                                      frac in 0.0f64..=1.0, smallest: bool, sorted: bool) {
        check16(x, frac, smallest, sorted)?;
    }

    #[test]
    fn pick_rows_are_canonical_on_bf16(x in matrix16_in::<bf16>(1..6, 1..=512),
                                       frac in 0.0f64..=1.0, smallest: bool, sorted: bool) {
        check16(x, frac, smallest, sorted)?;
    }
}

/// Rows of one value of NaN, of ties, and of every width of a unit: every row picks the lowest
/// indices of its k best, whatever their bits; with counts asked the same shape is bisected.
#[test]
fn ties_take_the_lowest_indices_and_counts_take_the_bisection() {
    let shapes = [(1, 1), (8, 8), (9, 3), (32, 8), (65, 2), (128, 2), (256, 1)];
    for (m, k) in shapes {
        let rows: Vec<Vec<f32>> = vec![
            vec![f32::NAN; m],
            (0..m).map(|i| if i % 3 == 0 { -0.0 } else { 0.0 }).collect(),
            (0..m).map(|i| if i % 2 == 0 { f32::from_bits(0xffc0_0001) } else { 1.0 }).collect(),
            (0..m).map(|i| (i % 4) as f32).collect(),
        ];
        for row in rows {
            for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
                check((1, m, &row), k, smallest, sorted).unwrap();
            }
        }
    }
    let bisect = topk_ref::Bisect::exact();
    let args = KernelArgs { n: 4, m: 300, k: 5, mode: Mode::Largest, bisect, mutant: None };
    let with_counts = Simulator::new(SimConfig::default()).plan(&args).unwrap();
    assert_eq!(with_counts.family(), Family::WarpRows);
}

/// One-lane pick rows (rows up to 16 at k <= 2, 32 rows a warp: rtopk-plan's
/// `PICK_LANE_MAX_K`) past one block's 256 rows and into a partial last warp, and four- and
/// eight-lane ones beside them (two picks a lane on four lanes at k > 4), each row its own
/// values with ties, NaN and zeros of both signs: every row the oracle's, in f32 and bf16, both
/// modes, sorted or not.
#[test]
fn one_lane_rows_past_a_block_are_canonical() {
    let pool = [1.5f32, -2.0, 0.0, -0.0, f32::NAN, f32::INFINITY, 3.25, -0.5];
    for (n, m, k) in [(300, 8, 2), (270, 16, 1), (261, 13, 2), (257, 7, 7), (40, 32, 5)] {
        let x: Vec<f32> =
            (0..n * m).map(|i| pool[(i * 7 + i / m * 3 + i * i % 5) % pool.len()]).collect();
        let b: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v * 1.25)).collect();
        let bisect = topk_ref::Bisect::exact();
        let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect, mutant: None };
        let config = SimConfig { counts: false, ..SimConfig::default() };
        let plan = Simulator::new(config).plan(&args).unwrap();
        let lanes = match (m, k) {
            (..=16, ..=2) => 1,
            (..=16, _) => 4, // f32 rows up to 16 (16-bit ones up to 64) on four lanes
            _ => 8,
        };
        assert_eq!(plan.lanes_per_row, lanes, "{}", plan.unit);
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            check((n, m, &x), k.min(256 / m), smallest, sorted).unwrap();
            check((n, m, &b), k, smallest, sorted).unwrap();
        }
    }
}
