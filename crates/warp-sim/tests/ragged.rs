//! Rows of their own length and k per row (docs/contract.md §5) on the simulated kernel: every
//! whole-row family (quarter-, half-, whole-warp rows, rows that narrow, block rows, block rows
//! that narrow, sorted output) gives topk-ref's ragged driver over `Bisect` bit for bit —
//! indices (padding `u32::MAX`), value bits (padding 0), iteration counts (0 where a row selects
//! nothing) — on rows built to break it: NaN of both signs and payloads, ±inf, ±0, subnormals,
//! heavy ties, lengths 0 and M, k 0 and k above the length, ties with the k-th value past the
//! length, NaNs and infinities only past the length; f32, f16 and bf16; and no diagnostic, the
//! executor's check that no element past a row's length is read included. With threshold
//! hints (random, NaN, ±inf, each row's own threshold, the threshold of a slightly changed
//! row) the counts are `bisect`'s with the same hints, and the own threshold never costs more
//! iterations than no hint; each row's threshold output is the driver's, bit for bit. Split
//! rows and the radix select (its ragged twins) give the same answers on rows of their own
//! length and k.

use crate::common;

use common::{bisect, strategies};
use proptest::prelude::*;
use test_support::{
    Float16, HintKind, RaggedShape, SPECIALS_F32, matrix, matrix16, matrix16_in, poison_tails,
    ragged_shape, specials16,
};
use topk_ref::{Bisect, Element, KeyBits, Mode, Options, Rows, Wanted, bf16, f16, topk_ragged};
use warp_sim::rtopk::Strategy as Launch;
use warp_sim::{ElemType, KernelArgs, RowData, SimConfig, Simulator};

/// The elements' bits.
fn bits<E: Element>(v: &[E]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits().to_u32()).collect()
}

/// The hints of `shape.hint` for the `(n, m)` matrix `x` (`None`: no hint): random ones,
/// NaN, ±inf, each row's own threshold, or the threshold of the row with every fifth value
/// moved by 1 % (a decode step's).
fn hints_for<E: Element>(
    (n, m, x): (usize, usize, &[E]),
    shape: &RaggedShape,
    rows: &Rows<'_>,
    opts: Options,
) -> Option<Vec<f32>> {
    let all = Wanted { iterations: true, threshold: true };
    let thresholds = |x: &[E]| {
        let got = topk_ragged(E::as_dyn(&Bisect::exact()), ndarray_view(x, n, m), rows, opts, all);
        got.unwrap().threshold.expect("thresholds asked for").to_vec()
    };
    match shape.hint {
        HintKind::None => None,
        HintKind::Random => {
            Some((0..n).map(|r| shape.random_hints[r % shape.random_hints.len().max(1)]).collect())
        }
        HintKind::Nan => Some(
            (0..n)
                .map(|r| f32::from_bits(if r % 2 == 0 { 0x7fc0_0000 } else { 0xffc0_1234 }))
                .collect(),
        ),
        HintKind::PosInf => Some(vec![f32::INFINITY; n]),
        HintKind::NegInf => Some(vec![f32::NEG_INFINITY; n]),
        HintKind::Exact => Some(thresholds(x)),
        HintKind::Perturbed => {
            let mut y = x.to_vec();
            for (j, v) in y.iter_mut().enumerate().filter(|(j, _)| j % 5 == 2) {
                let f = v.to_f32();
                *v = E::from_f32(if f == 0.0 { 0.125 } else { f * 1.01 + j as f32 * 1e-3 });
            }
            Some(thresholds(&y))
        }
    }
}

/// Runs the ragged request `shape` (its hints included) over the `(n, m)` matrix `x` with
/// `config` and compares it with topk-ref's ragged driver over `b` with the same hints:
/// values, indices, iteration counts and thresholds; with each row's own threshold as hint,
/// no row takes more iterations than without a hint.
fn check<E: Element>(
    config: SimConfig,
    (n, m, x): (usize, usize, &[E]),
    shape: &RaggedShape,
    mode: Mode,
    b: Bisect,
) -> Result<(), TestCaseError> {
    let ks: Vec<usize> = if shape.per_row_k { shape.k.clone() } else { vec![shape.one_k(); n] };
    let width = ks.iter().copied().max().unwrap_or(0);
    let rows = if shape.per_row_k { Rows::per_row_k(&shape.k) } else { Rows::new(shape.one_k()) };
    let rows = rows.with_lengths(&shape.lengths);
    let opts = Options { mode, sorted: config.sorted };
    let all = Wanted { iterations: true, threshold: true };
    let hints = hints_for((n, m, x), shape, &rows, opts);
    let plain = topk_ragged(E::as_dyn(&b), ndarray_view(x, n, m), &rows, opts, all).unwrap();
    let rows = match &hints {
        Some(h) => rows.with_hint(h),
        None => rows,
    };
    let want = topk_ragged(E::as_dyn(&b), ndarray_view(x, n, m), &rows, opts, all).unwrap();
    let lengths: Vec<u32> = shape.lengths.iter().map(|&l| l as u32).collect();
    let k32: Vec<u32> = ks.iter().map(|&k| k as u32).collect();
    let data = RowData {
        lengths: Some(&lengths),
        k_per_row: shape.per_row_k.then_some(k32.as_slice()),
        hint: hints.as_deref(),
        threshold: true,
    };
    let args = KernelArgs { n, m, k: width, mode, bisect: b, mutant: None };
    let got = Simulator::new(config)
        .run_ragged(x, &args, data)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let unit = got.plan.unit;
    prop_assert!(got.diagnostics.is_empty(), "{}: {}", unit, got.summary);
    // a split route (forced, or the default's without counts) has no counts
    let split = config.strategy == Launch::Split || !config.counts;
    if !split {
        prop_assert_eq!(got.route.depth(), 0, "ragged rows run whole");
    } else if config.strategy == Launch::Split {
        prop_assert_eq!(got.route.depth(), 1, "a ragged split is one level deep");
    }
    for r in 0..n {
        let (lo, hi) = (r * width, (r + 1) * width);
        let want_idx = want.indices.row(r).to_vec();
        let want_val: Vec<E> = want.values.row(r).to_vec();
        prop_assert_eq!(&got.indices[lo..hi], want_idx.as_slice(), "{} row {}", unit, r);
        prop_assert_eq!(bits(&got.values[lo..hi]), bits(&want_val), "{} row {}", unit, r);
        let want_t = want.threshold.as_ref().map_or(0, |t| t[r].to_bits());
        prop_assert_eq!(got.threshold[r].to_bits(), want_t, "{} row {} threshold", unit, r);
        if got.route.depth() > 0 || !config.counts {
            prop_assert!(got.iterations.is_empty(), "split rows have no counts");
            continue;
        }
        let want_it = want.iterations.as_ref().map_or(0, |it| it[r]);
        prop_assert_eq!(
            got.iterations[r],
            want_it,
            "{} row {} hint {:?}",
            unit,
            r,
            hints.as_ref().map(|h| h[r])
        );
        if shape.hint == HintKind::Exact && b == Bisect::exact() {
            let without = plain.iterations.as_ref().map_or(0, |it| it[r]);
            prop_assert!(
                got.iterations[r] <= without,
                "{} row {}: own threshold {} > {}",
                unit,
                r,
                got.iterations[r],
                without
            );
        }
    }
    Ok(())
}

/// `x` as an `(n, m)` view.
fn ndarray_view<E>(x: &[E], n: usize, m: usize) -> ndarray::ArrayView2<'_, E> {
    ndarray::ArrayView2::from_shape((n, m), x).unwrap()
}

/// A ragged shape for the matrix, its tails poisoned, on the strategy `pick` chooses.
#[allow(clippy::too_many_arguments)]
fn any_family<E: Element>(
    (n, m, mut x): (usize, usize, Vec<E>),
    shape: RaggedShape,
    specials: [E; 4],
    elem: ElemType,
    (smallest, sorted, b, pick): (bool, bool, Bisect, usize),
) -> Result<(), TestCaseError> {
    poison_tails(&mut x, m, &shape.lengths, shape.tail, specials);
    let choices = strategies(m, elem);
    let strategy = choices[pick % choices.len()];
    let config = SimConfig { strategy, sorted, ..SimConfig::default() };
    check(config, (n, m, &x), &shape, Mode::from_smallest(smallest), b)
}

/// A matrix and a ragged shape of its size.
fn with_shape<E: std::fmt::Debug + Clone>(
    x: impl Strategy<Value = (usize, usize, Vec<E>)>,
) -> impl Strategy<Value = ((usize, usize, Vec<E>), RaggedShape)> {
    x.prop_flat_map(|(n, m, x)| (Just((n, m, x)), ragged_shape(n, m)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// f32 rows on every strategy that holds them.
    #[test]
    fn ragged_rows_equal_the_oracle_on_f32((x, shape) in with_shape(matrix(700)),
                                           smallest: bool, sorted: bool, b in bisect(),
                                           pick in 0usize..5) {
        any_family(x, shape, SPECIALS_F32, ElemType::F32, (smallest, sorted, b, pick))?;
    }

    /// f16 rows.
    #[test]
    fn ragged_rows_equal_the_oracle_on_f16((x, shape) in with_shape(matrix16::<f16>(700)),
                                           smallest: bool, sorted: bool, b in bisect(),
                                           pick in 0usize..5) {
        any_family(x, shape, specials16::<f16>(), ElemType::F16, (smallest, sorted, b, pick))?;
    }

    /// bf16 rows.
    #[test]
    fn ragged_rows_equal_the_oracle_on_bf16((x, shape) in with_shape(matrix16::<bf16>(700)),
                                            smallest: bool, sorted: bool, b in bisect(),
                                            pick in 0usize..5) {
        any_family(x, shape, specials16::<bf16>(), ElemType::Bf16, (smallest, sorted, b, pick))?;
    }
}

/// Rows wide enough for block rows (past their registers) and the block narrowing, f32 and
/// 16-bit, on the plan's strategy.
fn wide<E: Element + Float16>(
    x: (usize, usize, Vec<E>),
    shape: RaggedShape,
    (smallest, sorted): (bool, bool),
) -> Result<(), TestCaseError> {
    let elem = if E::NAME == "f16" { ElemType::F16 } else { ElemType::Bf16 };
    let b = Bisect::exact();
    any_family(x, shape, specials16::<E>(), elem, (smallest, sorted, b, 0))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Wide f16 rows: block rows, narrowing and not, whole-warp rows that narrow.
    #[test]
    fn wide_ragged_rows_equal_the_oracle_on_f16(
        (x, shape) in with_shape(matrix16_in::<f16>(1..4, 257..=9000)),
        smallest: bool, sorted: bool) {
        wide(x, shape, (smallest, sorted))?;
    }

    /// Wide bf16 rows.
    #[test]
    fn wide_ragged_rows_equal_the_oracle_on_bf16(
        (x, shape) in with_shape(matrix16_in::<bf16>(1..4, 257..=9000)),
        smallest: bool, sorted: bool) {
        wide(x, shape, (smallest, sorted))?;
    }
}

/// Wide f32 rows, built from the 16-bit generator's values (exact in f32).
fn widen(x: (usize, usize, Vec<f16>)) -> (usize, usize, Vec<f32>) {
    (x.0, x.1, x.2.iter().map(|v| v.to_f32()).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Wide f32 rows: block rows, narrowing and not, whole-warp rows that narrow.
    #[test]
    fn wide_ragged_rows_equal_the_oracle_on_f32(
        (x, shape) in with_shape(matrix16_in::<f16>(1..4, 257..=9000).prop_map(widen)),
        smallest: bool, sorted: bool) {
        let b = Bisect::exact();
        any_family(x, shape, SPECIALS_F32, ElemType::F32, (smallest, sorted, b, 0))?;
    }
}

/// A shape of `lengths` and a k per row, NaN past each row's length, no hints.
fn per_row_shape(lengths: Vec<usize>, k: Vec<usize>) -> RaggedShape {
    RaggedShape {
        lengths,
        k,
        per_row_k: true,
        tail: test_support::Tail::Nan,
        hint: test_support::HintKind::None,
        random_hints: Vec::new(),
    }
}

/// Many short rows of their own lengths: the quarter-row family's whole blocks, rows of
/// every length from 0 to M in one launch, k per row from 0 up.
#[test]
fn many_rows_of_every_length_in_one_launch() {
    let (n, m) = (1500usize, 97usize);
    let x: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 211) as f32 - 100.0).collect();
    let lengths: Vec<usize> = (0..n).map(|r| r % (m + 1)).collect();
    let ks: Vec<usize> = (0..n).map(|r| (r * 13) % 40).collect();
    let shape = per_row_shape(lengths, ks);
    for strategy in [Launch::Auto, Launch::Quarter, Launch::Half, Launch::Warp, Launch::Block] {
        for sorted in [false, true] {
            let config = SimConfig { strategy, sorted, ..SimConfig::default() };
            let mut x = x.clone();
            poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
            check(config, (n, m, &x), &shape, Mode::Largest, Bisect::exact()).unwrap();
        }
    }
}

/// Rows of every width modulo the 16-byte group in one launch of 16-byte aligned rows: the
/// warp rows of a ragged twin keep their 16-byte loads up to the group a row's end cuts and
/// load that group element by element (load_row's CUT) — quarter, half and whole-warp rows of
/// 32 keys a lane, f32 and i32 (groups of 4), f16 and bf16 (8), i8 (16): the oracle's answers
/// and counts, and no read past a row's length (the executor's check: a cut group loaded whole
/// reads past it).
#[test]
fn warp_rows_load_the_group_a_rows_end_cuts_element_by_element() {
    fn rows<E: Element>(m: usize, specials: [E; 4]) {
        let n = 48usize;
        let x: Vec<E> =
            (0..n * m).map(|i| E::from_f32(((i * 7919) % 509) as f32 * 0.25 - 60.0)).collect();
        // every residue modulo 8 and 16, the last group's first slot and the row's last
        let lengths: Vec<usize> = (0..n).map(|r| (m - 24 + r) % (m + 1)).collect();
        let ks: Vec<usize> = (0..n).map(|r| [1, 5, 17, 32][r % 4]).collect();
        let shape = per_row_shape(lengths, ks);
        let strategy = match m {
            256 => Launch::Quarter,
            512 => Launch::Half,
            _ => Launch::Warp,
        };
        for smallest in [false, true] {
            let config = SimConfig { strategy, ..SimConfig::default() };
            let mut x = x.clone();
            poison_tails(&mut x, m, &shape.lengths, shape.tail, specials);
            let mode = Mode::from_smallest(smallest);
            check(config, (n, m, &x), &shape, mode, Bisect::exact()).unwrap();
        }
    }
    for m in [256, 512, 1024] {
        rows::<f32>(m, SPECIALS_F32);
        rows::<f16>(m, specials16::<f16>());
        rows::<bf16>(m, specials16::<bf16>());
        rows::<i32>(m, [i32::MIN, i32::MAX, 0, -1]);
        rows::<i8>(m, [i8::MIN, i8::MAX, 0, -1]);
    }
}

/// Block rows of every width modulo the 16-byte group in one launch of 16-byte aligned rows
/// keep their 16-byte loads up to the group a row's end cuts and load that group element by
/// element (`load_block_slots` on the launch's alignment, as the warp rows above): f32 rows
/// that do not stage their loads (a device whose opt-in shared memory holds no staging), i32,
/// i16 and i8 rows (never staged), f16 and bf16 rows — the oracle's answers and counts, and no
/// read past a row's length (a cut group loaded whole reads past it).
#[test]
fn block_rows_load_the_group_a_rows_end_cuts_element_by_element() {
    let (n, m) = (40usize, 2048usize);
    // the block rows' static shared memory and less than one warp's staging
    let optin = rtopk_plan::units::BLOCK_STATIC_SHARED + 1024;
    let limits =
        warp_sim::DeviceLimits { shared_optin_bytes: optin, ..SimConfig::default().limits };
    let config = SimConfig { strategy: Launch::Block, limits, ..SimConfig::default() };
    // every residue modulo 16 at a row's end, the last group's first slot and the row's last
    let lengths: Vec<usize> = (0..n).map(|r| (m - 24 + r) % (m + 1)).collect();
    fn rows<E: Element>(
        config: SimConfig,
        m: usize,
        lengths: &[usize],
        specials: [E; 4],
    ) -> Vec<E> {
        let n = lengths.len();
        let mut x: Vec<E> =
            (0..n * m).map(|i| E::from_f32(((i * 7919) % 509) as f32 * 0.25 - 60.0)).collect();
        let ks: Vec<usize> = (0..n).map(|r| [1, 5, 17, 300][r % 4]).collect();
        let shape = per_row_shape(lengths.to_vec(), ks);
        poison_tails(&mut x, m, &shape.lengths, shape.tail, specials);
        for smallest in [false, true] {
            check(config, (n, m, &x), &shape, Mode::from_smallest(smallest), Bisect::exact())
                .unwrap();
        }
        x
    }
    let x = rows::<f32>(config, m, &lengths, SPECIALS_F32);
    rows::<f16>(config, m, &lengths, specials16::<f16>());
    rows::<bf16>(config, m, &lengths, specials16::<bf16>());
    rows::<i32>(config, m, &lengths, [i32::MIN, i32::MAX, 0, -1]);
    rows::<i16>(config, m, &lengths, [i16::MIN, i16::MAX, 0, -1]);
    rows::<i8>(config, m, &lengths, [i8::MIN, i8::MAX, 0, -1]);
    // the f32 rows took the unstaged 16-byte loads
    let lengths: Vec<u32> = lengths.iter().map(|&l| l as u32).collect();
    let data = RowData { lengths: Some(&lengths), ..RowData::default() };
    let args =
        KernelArgs { n, m, k: 17, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
    assert_eq!(got.plan.unit.to_string(), "rtopk_block_rows_ragged", "{}", got.summary);
    assert!(!got.coverage.reached(warp_sim::rtopk::Branch::StagedLoads), "{:?}", got.coverage);
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
}

/// A plain launch and the same launch given every row's full length and the one k per row
/// are the same run: outputs and counts.
#[test]
fn full_lengths_and_one_k_are_the_plain_launch() {
    let (n, m, k) = (9usize, 3000usize, 40usize);
    let x: Vec<f32> = (0..n * m).map(|i| ((i * 2_654_435_761) % 10_007) as f32).collect();
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let plain = Simulator::new(SimConfig::default()).run(&x, &args).unwrap();
    let lengths = vec![m as u32; n];
    let ks = vec![k as u32; n];
    let data = RowData { lengths: Some(&lengths), k_per_row: Some(&ks), ..RowData::default() };
    let ragged = Simulator::new(SimConfig::default()).run_ragged(&x, &args, data).unwrap();
    assert!(ragged.diagnostics.is_empty(), "{}", ragged.summary);
    assert_eq!((ragged.values, ragged.indices), (plain.values, plain.indices));
    assert_eq!(ragged.iterations, plain.iterations);
    // arrays of the wrong size are an error
    let short = vec![1u32; n - 1];
    let err = Simulator::new(SimConfig::default())
        .run_ragged(&x, &args, RowData { lengths: Some(&short), ..RowData::default() })
        .unwrap_err();
    assert!(err.to_string().contains("lengths has 8 entries for 9 rows"), "{err}");
}

/// The executor's invariant catches a kernel that reads past a row's length: under the seeded
/// bug `LoadPastM` (no `i < M` test on the loads) a row of its own length reads past it.
#[test]
fn a_read_past_a_rows_length_is_reported() {
    let (n, m) = (4usize, 200usize);
    let x: Vec<f32> = (0..n * m).map(|i| (i % 37) as f32).collect();
    let lengths = [150u32, 0, 200, 63];
    let mutant = Some(warp_sim::Mutant::LoadPastM);
    let args = KernelArgs { n, m, k: 5, mode: Mode::Largest, bisect: Bisect::exact(), mutant };
    let config = SimConfig { strategy: Launch::Warp, ..SimConfig::default() };
    let got = Simulator::new(config)
        .run_ragged(&x, &args, RowData { lengths: Some(&lengths), ..RowData::default() })
        .unwrap();
    let found = got.diagnostics.iter().any(|d| d.label.contains("past a row's length"));
    assert!(found, "{}", got.summary);
    // the same launch without the bug reads nothing past the lengths
    let args = KernelArgs { mutant: None, ..args };
    let got = Simulator::new(config)
        .run_ragged(&x, &args, RowData { lengths: Some(&lengths), ..RowData::default() })
        .unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
}

/// Hints alone (whole rows, one k) run the ragged twins with `bisect`'s counts for the same
/// hints; the threshold alone follows any route, split rows included.
#[test]
fn hints_alone_and_thresholds_on_split_rows() {
    let (n, m, k) = (6usize, 40_000usize, 64usize);
    let x: Vec<f32> =
        (0..n * m).map(|i| ((i * 2_654_435_761) % 100_003) as f32 - 50_000.0).collect();
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let all = Wanted { iterations: true, threshold: true };
    let exact = Bisect::exact();
    let view = ndarray_view(&x, n, m);
    let plain = topk_ragged(f32::as_dyn(&exact), view, &Rows::new(k), Options::default(), all);
    let plain = plain.unwrap();
    let own = plain.threshold.clone().unwrap().to_vec();
    let hint: Vec<f32> =
        own.iter().enumerate().map(|(r, &t)| if r % 2 == 0 { t } else { t + 3.0 }).collect();
    let rows = Rows::new(k).with_hint(&hint);
    let want = topk_ragged(f32::as_dyn(&exact), view, &rows, Options::default(), all).unwrap();
    let data = RowData { hint: Some(&hint), threshold: true, ..RowData::default() };
    let got = Simulator::new(SimConfig::default()).run_ragged(&x, &args, data).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    assert!(got.plan.unit.is_ragged() && got.route.depth() == 0, "{}", got.plan.unit);
    assert_eq!(got.indices, want.indices.iter().copied().collect::<Vec<_>>());
    assert_eq!(got.iterations, want.iterations.clone().unwrap().to_vec());
    let tbits = |t: &[f32]| t.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(tbits(&got.threshold), tbits(&own));
    let with = want.iterations.unwrap();
    let without = plain.iterations.unwrap();
    for r in (0..n).step_by(2) {
        assert!(with[r] <= without[r], "row {r}: {} > {}", with[r], without[r]);
    }
    // the threshold alone on split rows (no counts: the plan splits them)
    let config = SimConfig { strategy: Launch::Split, counts: false, ..SimConfig::default() };
    let data = RowData { threshold: true, ..RowData::default() };
    let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    assert!(got.route.depth() > 0);
    assert_eq!(tbits(&got.threshold), tbits(&own));
    // hints on split rows: read by the last select alone (its rows are the candidates, whose
    // threshold is the row's), the answer the plain one; near, far, NaN and infinite hints
    let odd = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0];
    let hint: Vec<f32> = own
        .iter()
        .enumerate()
        .map(|(r, &t)| if r < 2 { t + r as f32 * 0.5 } else { odd[r - 2] })
        .collect();
    let data = RowData { hint: Some(&hint), threshold: true, ..RowData::default() };
    let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    assert!(got.route.depth() > 0);
    assert_eq!(got.indices, plain.indices.iter().copied().collect::<Vec<_>>());
    assert_eq!(tbits(&got.threshold), tbits(&own));
    // a hint array of the wrong size is an error
    let short = vec![0.0f32; n - 1];
    let data = RowData { hint: Some(&short), ..RowData::default() };
    let err = Simulator::new(SimConfig::default()).run_ragged(&x, &args, data).unwrap_err();
    assert!(err.to_string().contains("hint has 5 entries for 6 rows"), "{err}");
}

/// The most k a forced split of the rows below takes (chunks of 2048 hold 4 k).
const SPLIT_K: usize = 300;

/// A ragged shape for a forced split: every k at most [`SPLIT_K`]. Its hints stay: the
/// split's last select reads them (docs/kernel.md, "Split rows").
fn for_split(mut shape: RaggedShape) -> RaggedShape {
    for k in &mut shape.k {
        *k = (*k).min(SPLIT_K);
    }
    shape
}

/// Split rows of their own length (docs/kernel.md, "Split rows"), forced on rows of 4096 to
/// 9000 (two to five chunks of 2048, the last cut at the row's end): the oracle's answer, no
/// diagnostic (nothing past a row's length read, every valid element read, every valid
/// candidate written, each gathered index the element its value is), one level deep.
fn split_rows<E: Element>(
    x: (usize, usize, Vec<E>),
    shape: RaggedShape,
    specials: [E; 4],
    order: (bool, bool),
) -> Result<(), TestCaseError> {
    let config = SimConfig { strategy: Launch::Split, ..SimConfig::default() };
    forced(config, x, for_split(shape), specials, order)
}

/// `check` with `config`'s strategy forced, no counts, the tails past the lengths poisoned as
/// `shape.tail` says; nothing to check where no row selects anything (k = 0: no step).
fn forced<E: Element>(
    config: SimConfig,
    (n, m, mut x): (usize, usize, Vec<E>),
    shape: RaggedShape,
    specials: [E; 4],
    (smallest, sorted): (bool, bool),
) -> Result<(), TestCaseError> {
    poison_tails(&mut x, m, &shape.lengths, shape.tail, specials);
    let config = SimConfig { sorted, counts: false, ..config };
    if shape.k.iter().all(|&k| k == 0) || (!shape.per_row_k && shape.one_k() == 0) {
        return Ok(());
    }
    check(config, (n, m, &x), &shape, Mode::from_smallest(smallest), Bisect::exact())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Split f32 rows (the 16-bit generator's values, exact in f32: heavy ties).
    #[test]
    fn split_ragged_rows_equal_the_oracle_on_f32(
        (x, shape) in with_shape(matrix16_in::<f16>(1..4, 4096..=9000).prop_map(widen)),
        smallest: bool, sorted: bool) {
        split_rows(x, shape, SPECIALS_F32, (smallest, sorted))?;
    }

    /// Split f16 rows.
    #[test]
    fn split_ragged_rows_equal_the_oracle_on_f16(
        (x, shape) in with_shape(matrix16_in::<f16>(1..4, 4096..=9000)),
        smallest: bool, sorted: bool) {
        split_rows(x, shape, specials16::<f16>(), (smallest, sorted))?;
    }

    /// Split bf16 rows.
    #[test]
    fn split_ragged_rows_equal_the_oracle_on_bf16(
        (x, shape) in with_shape(matrix16_in::<bf16>(1..4, 4096..=9000)),
        smallest: bool, sorted: bool) {
        split_rows(x, shape, specials16::<bf16>(), (smallest, sorted))?;
    }
}

/// A device of four SMs, where a radix select's row of a few thousand spreads over several
/// blocks (as in tests/radix.rs).
const FOUR_SMS: warp_sim::DeviceLimits = warp_sim::DeviceLimits { sm_count: 4, ..warp_sim::H100 };

/// The radix select on rows of their own length and k (docs/kernel.md, "Radix rows"), forced
/// on rows of 4096 to 12000 on a device of four SMs (several blocks a row, each row's length
/// spread over them): the oracle's answer and thresholds, no
/// diagnostic (nothing past a row's length read, every slot written, its padding included).
/// Hints change nothing (the radix select reads none).
fn radix_rows<E: Element>(
    x: (usize, usize, Vec<E>),
    shape: RaggedShape,
    specials: [E; 4],
    order: (bool, bool),
) -> Result<(), TestCaseError> {
    let config = SimConfig { strategy: Launch::Radix, limits: FOUR_SMS, ..SimConfig::default() };
    forced(config, x, shape, specials, order)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Radix-selected f32 rows (the 16-bit generator's values, exact in f32: heavy ties).
    #[test]
    fn radix_ragged_rows_equal_the_oracle_on_f32(
        (x, shape) in with_shape(matrix16_in::<f16>(1..4, 4096..=12000).prop_map(widen)),
        smallest: bool, sorted: bool) {
        radix_rows(x, shape, SPECIALS_F32, (smallest, sorted))?;
    }

    /// Radix-selected f16 rows.
    #[test]
    fn radix_ragged_rows_equal_the_oracle_on_f16(
        (x, shape) in with_shape(matrix16_in::<f16>(1..4, 4096..=12000)),
        smallest: bool, sorted: bool) {
        radix_rows(x, shape, specials16::<f16>(), (smallest, sorted))?;
    }

    /// Radix-selected bf16 rows.
    #[test]
    fn radix_ragged_rows_equal_the_oracle_on_bf16(
        (x, shape) in with_shape(matrix16_in::<bf16>(1..4, 4096..=12000)),
        smallest: bool, sorted: bool) {
        radix_rows(x, shape, specials16::<bf16>(), (smallest, sorted))?;
    }
}

/// The rows of `lengths` with a k per row `ks` (`per_row_k`), else `width` for every row, the
/// values past the lengths `tail`, and `hint`.
fn every_length(
    lengths: &[usize],
    ks: &[usize],
    (width, per_row_k): (usize, bool),
    tail: test_support::Tail,
    hint: HintKind,
) -> RaggedShape {
    RaggedShape {
        lengths: lengths.to_vec(),
        k: if per_row_k { ks.to_vec() } else { vec![width; lengths.len()] },
        per_row_k,
        tail,
        hint,
        random_hints: Vec::new(),
    }
}

/// The radix select over rows of every kind of length, three rows of 12000 at a time on a
/// device of four SMs (three blocks a row, parts of 4096 on a full row; a shorter row's parts
/// a third of its length each): lengths 0, 1, 5, 9, below k, 4095–4097, past one part and two, M; k per row 0, 1, above the length,
/// the width; ties straddling each row's k-th value, NaN and infinities past the lengths; both
/// modes, sorted and not, with and without a k per row — the oracle's answers, no diagnostic.
#[test]
fn radix_rows_of_every_length() {
    let m = 12_000usize;
    let config = SimConfig { strategy: Launch::Radix, limits: FOUR_SMS, ..SimConfig::default() };
    let args =
        KernelArgs { n: 3, m, k: 300, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let route = Simulator::new(config).route(&args).unwrap();
    let warp_sim::rtopk::Route::Radix(r) = route else { panic!("not a radix select: {route:?}") };
    assert_eq!((r.blocks_per_row, r.slice), (3, 4096));
    // rows of a few elements too: parts of 4 and 8 (one warp range an element)
    let lengths =
        [[0usize, 1, 57], [9, 5, 33], [4095, 4096, 4097], [6000, 8193, m], [m, 300, 9000]];
    let ks = [[64usize, 64, 200], [9, 3, 20], [0, 1, 300], [300, 17, 300], [150, 299, 64]];
    for (lengths, ks) in lengths.iter().zip(&ks) {
        let n = lengths.len();
        let x: Vec<f32> = (0..n * m).map(|i| ((i * 2_654_435_761) % 4) as f32).collect();
        for (per_row_k, tail) in [(true, test_support::Tail::Nan), (false, test_support::Tail::Inf)]
        {
            let hint = test_support::HintKind::Exact;
            let shape = every_length(lengths, ks, (300, per_row_k), tail, hint);
            for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
                let mut x = x.clone();
                poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
                let config = SimConfig { sorted, counts: false, ..config };
                check(config, (n, m, &x), &shape, Mode::from_smallest(smallest), Bisect::exact())
                    .unwrap();
            }
        }
    }
}

/// Thresholds of outputs wide enough that several warps read a row (the plan's
/// `threshold_warps_per_row`: 4 from 513 values, 8 from 1025; one below), over 11 rows, so
/// that the last block's row slots run past the rows: lengths 0, 1, below k, M; k per row 0, 1,
/// above the length, the width; ties straddling the k-th value (every value one of four),
/// negative zeros, NaN of both signs with payloads selected (ranking last in smallest mode)
/// and past the lengths; both modes, sorted and not; f32 and f16 — the driver's thresholds,
/// bit for bit, with the rest of the answer.
#[test]
fn thresholds_of_wide_outputs_over_several_warps() {
    let m = 3000usize;
    let lengths = [m, 0, 1, 299, 1500, m, 2999, 700, m, 1024, 2047];
    let x: Vec<f32> = (0..lengths.len() * m)
        .map(|i| match i % 97 {
            13 => f32::from_bits(0xffc0_1234),
            41 => -0.0,
            _ => ((i * 2_654_435_761) % 4) as f32 - 1.5,
        })
        .collect();
    for width in [300usize, 700, 2000, m] {
        thresholds_of_every_shape(SimConfig::default(), (m, &x), &lengths, width);
    }
}

/// The rows of `x` (of `m` values) with `lengths`, k per row cycling through the width, none,
/// 1, half and one less than the width (and the width for every row), NaN or infinities past
/// the lengths, both modes, sorted and not, in f32 and (unsorted) f16, under `config`: the
/// driver's answers and thresholds.
fn thresholds_of_every_shape(
    config: SimConfig,
    (m, x): (usize, &[f32]),
    lengths: &[usize],
    width: usize,
) {
    let n = lengths.len();
    let ks: Vec<usize> = (0..n).map(|r| [width, 0, 1, width / 2, width - 1][r % 5]).collect();
    for (per_row_k, tail) in [(true, test_support::Tail::Nan), (false, test_support::Tail::Inf)] {
        let hint = test_support::HintKind::None;
        let shape = every_length(lengths, &ks, (width, per_row_k), tail, hint);
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut x = x.to_vec();
            poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
            let config = SimConfig { sorted, ..config };
            let mode = Mode::from_smallest(smallest);
            check(config, (n, m, &x), &shape, mode, Bisect::exact()).unwrap();
            if !sorted {
                let mut y: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
                poison_tails(&mut y, m, &shape.lengths, shape.tail, specials16::<f16>());
                check(config, (n, m, &y), &shape, mode, Bisect::exact()).unwrap();
            }
        }
    }
}

/// Thresholds of many rows of narrow outputs, several rows a warp (the plan's
/// `threshold_lanes_per_row`: on a device of one SM, 64 warps, more rows than that take the
/// fewest lanes that read a row in one batch — one lane a row up to 16 values, 2 to 32, 4 to
/// 64, 8 to 128, 16 to 256), so that the last warp's row groups run past the rows: lengths 0,
/// 1, below k, M; k per row 0, 1, above the length, the width; ties straddling the k-th value
/// (every value one of four, so that a row's lanes hold its least key at several positions),
/// negative zeros, NaN of both signs with payloads selected and past the lengths; both modes,
/// sorted and not; f32 and f16 — the driver's thresholds, bit for bit, with the rest of the
/// answer.
#[test]
fn thresholds_of_many_narrow_outputs_several_rows_a_warp() {
    let one_sm = rtopk_plan::DeviceLimits { sm_count: 1, ..SimConfig::default().limits };
    let config = SimConfig { limits: one_sm, ..SimConfig::default() };
    for (n, m, widths) in
        [(2100usize, 48usize, &[1usize, 5, 16, 17, 40][..]), (600, 300, &[100, 256])]
    {
        let lengths: Vec<usize> =
            (0..n).map(|r| [m, 0, 1, 7, m / 2, m, m - 1, 40][r % 8]).collect();
        let x: Vec<f32> = (0..n * m)
            .map(|i| match i % 89 {
                13 => f32::from_bits(0xffc0_1234),
                29 => f32::from_bits(0x7fa0_0042),
                41 => -0.0,
                _ => ((i * 2_654_435_761) % 4) as f32 - 1.5,
            })
            .collect();
        for &width in widths {
            thresholds_of_every_shape(config, (m, &x), &lengths, width);
        }
    }
}

/// A split of rows of every kind of length at once: 0, 1, below k, a chunk's edge and one
/// past it, M; k per row 0, 1, above the length, the width; ties straddling each row's k-th
/// value (every value one of four, so that the k-th's ties run on past it), NaN and infinities
/// past the lengths; both modes, sorted and not, with and without a k per row.
#[test]
fn split_rows_of_every_length() {
    let m = 8000usize;
    let lengths = [0usize, 1, 57, 2047, 2048, 2049, 4096, 6000, m, m, 300, 5000];
    let n = lengths.len();
    let ks = [64usize, 64, 200, 0, 1, 300, 300, 17, 300, 150, 299, 64];
    let x: Vec<f32> = (0..n * m).map(|i| ((i * 2_654_435_761) % 4) as f32).collect();
    for (per_row_k, tail) in [(true, test_support::Tail::Nan), (false, test_support::Tail::Inf)] {
        let hint = test_support::HintKind::None;
        let shape = every_length(&lengths, &ks, (300, per_row_k), tail, hint);
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut x = x.clone();
            poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
            let config = SimConfig {
                strategy: Launch::Split,
                sorted,
                counts: false,
                ..SimConfig::default()
            };
            check(config, (n, m, &x), &shape, Mode::from_smallest(smallest), Bisect::exact())
                .unwrap();
        }
    }
}

/// Without counts the default splits ragged rows where it splits plain rows (few long rows,
/// on a device without clusters, where they would take the cluster twin), with the plain
/// split's chunk width; with counts it runs them whole.
#[test]
fn the_default_splits_ragged_rows_as_plain_rows_without_counts() {
    let (n, m, k) = (2usize, 40_000usize, 100usize);
    let x: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 1009) as f32).collect();
    let lengths = [12_345u32, 40_000];
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let data = RowData { lengths: Some(&lengths), ..RowData::default() };
    let limits = warp_sim::DeviceLimits { max_cluster: 1, ..SimConfig::default().limits };
    let config = SimConfig { counts: false, limits, ..SimConfig::default() };
    let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    let plain = Simulator::new(config).route(&args).unwrap();
    let (
        warp_sim::rtopk::Route::Split { split, .. },
        warp_sim::rtopk::Route::Split { split: p, .. },
    ) = (&got.route, &plain)
    else {
        panic!("not split: {:?}", got.route)
    };
    assert_eq!((split.chunk, split.full, got.route.depth()), (p.chunk, m.div_ceil(p.chunk), 1));
    let mut sim = Simulator::new(SimConfig { limits, ..SimConfig::default() });
    let counted = sim.run_ragged(&x, &args, data).unwrap();
    assert_eq!(counted.route.depth(), 0);
    assert_eq!((&got.indices, &got.values), (&counted.indices, &counted.values));
}

/// The executor's checks hold a ragged split to its rows' lengths: under the seeded bug
/// `LoadPastM` (no `i < M` test on the loads) a chunk reads past its row's length, and the
/// check reports it.
#[test]
fn a_split_chunk_reading_past_a_rows_length_is_reported() {
    let (n, m) = (3usize, 4500usize);
    let x: Vec<f32> = (0..n * m).map(|i| (i % 37) as f32).collect();
    let lengths = [3000u32, 0, 4500];
    let mutant = Some(warp_sim::Mutant::LoadPastM);
    let args = KernelArgs { n, m, k: 5, mode: Mode::Largest, bisect: Bisect::exact(), mutant };
    let config = SimConfig { strategy: Launch::Split, counts: false, ..SimConfig::default() };
    let data = RowData { lengths: Some(&lengths), ..RowData::default() };
    let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
    let found = got.diagnostics.iter().any(|d| d.label.contains("past a row's length"));
    assert!(found, "{}", got.summary);
    let args = KernelArgs { mutant: None, ..args };
    let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    assert_eq!(got.route.depth(), 1);
}

/// Block rows of 16 warps and more stage their 16-byte loads through shared memory; a row
/// whose length cuts a 16-byte group reads that group element by element and nothing past
/// its length (the executor's invariant), with the oracle's answers, counts and thresholds;
/// under the seeded bug `LoadPastM` (every group read whole) the read past a length is
/// reported.
#[test]
fn staged_block_rows_of_their_own_length() {
    let (n, m) = (6usize, 16_400usize);
    let x: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 4099) as f32 - 2000.0).collect();
    let shape = RaggedShape {
        lengths: vec![16_400, 16_399, 16_397, 15_362, 3, 0],
        k: vec![300, 1, 64, 2048, 3, 5],
        per_row_k: true,
        tail: test_support::Tail::Nan,
        hint: HintKind::None,
        random_hints: Vec::new(),
    };
    let mut x = x;
    poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
    for sorted in [false, true] {
        let config = SimConfig { strategy: Launch::Block, sorted, ..SimConfig::default() };
        check(config, (n, m, &x), &shape, Mode::Largest, Bisect::exact()).unwrap();
    }
    let lengths: Vec<u32> = shape.lengths.iter().map(|&l| l as u32).collect();
    let ks: Vec<u32> = shape.k.iter().map(|&k| k as u32).collect();
    let data = RowData { lengths: Some(&lengths), k_per_row: Some(&ks), ..RowData::default() };
    let config = SimConfig { strategy: Launch::Block, ..SimConfig::default() };
    for mutant in [None, Some(warp_sim::Mutant::LoadPastM)] {
        let args =
            KernelArgs { n, m, k: 2048, mode: Mode::Largest, bisect: Bisect::exact(), mutant };
        let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
        assert!(got.coverage.reached(warp_sim::rtopk::Branch::StagedLoads), "{:?}", got.coverage);
        let past = got.diagnostics.iter().any(|d| d.label.contains("past a row's length"));
        assert_eq!(past, mutant.is_some(), "{}", got.summary);
    }
}

/// The per-row arrays are 32-bit words that a caller may fill with int32 as they are (the
/// Python package's int32 device tensors): below a bound of 2^31 a word with its top bit set
/// is a negative int32 and reads as 0, a word past the bound as the bound (`per_row_entry`).
/// Rows whole and split (with a k per row: the chunks, the second stage and the gather read
/// the words) give exactly what the clamped words give, with no diagnostic.
#[test]
fn negative_int32_words_read_as_zero_and_words_past_the_bound_as_the_bound() {
    let neg = |v: i32| v as u32;
    for (strategy, m) in [(Launch::Auto, 300usize), (Launch::Split, 8000)] {
        let lengths = [neg(-1), neg(i32::MIN), 250, m as u32 + 7, neg(-200), 40, i32::MAX as u32];
        let ks = [5u32, 64, neg(-3), 9, 9, neg(i32::MIN), 70];
        let clamp = |w: u32, bound: usize| if w >= 1 << 31 { 0 } else { (w as usize).min(bound) };
        let n = lengths.len();
        let width = 64usize;
        let x: Vec<f32> = (0..n * m).map(|i| ((i * 2_654_435_761) % 97) as f32 - 40.0).collect();
        let clamped_len: Vec<u32> = lengths.iter().map(|&w| clamp(w, m) as u32).collect();
        let clamped_k: Vec<u32> = ks.iter().map(|&w| clamp(w, width) as u32).collect();
        let run = |lengths: &[u32], ks: &[u32]| {
            let data = RowData {
                lengths: Some(lengths),
                k_per_row: Some(ks),
                hint: None,
                threshold: true,
            };
            let args = KernelArgs {
                n,
                m,
                k: width,
                mode: Mode::Largest,
                bisect: Bisect::exact(),
                mutant: None,
            };
            let config = SimConfig { strategy, counts: false, ..SimConfig::default() };
            Simulator::new(config).run_ragged(&x, &args, data).unwrap()
        };
        let raw = run(&lengths, &ks);
        let want = run(&clamped_len, &clamped_k);
        assert!(raw.diagnostics.is_empty(), "{strategy:?}: {}", raw.summary);
        assert_eq!(raw.route.depth(), want.route.depth());
        assert_eq!(raw.route.depth(), usize::from(strategy == Launch::Split));
        assert_eq!(raw.indices, want.indices, "{strategy:?}");
        assert_eq!(bits(&raw.values), bits(&want.values), "{strategy:?}");
        assert_eq!(bits(&raw.threshold), bits(&want.threshold), "{strategy:?}");
        // the clamped words' answer is the oracle's (rows 0, 1 and 4 select nothing)
        assert!(raw.indices[..width].iter().all(|&i| i == u32::MAX));
        assert!(raw.threshold[0].is_nan() && raw.threshold[1].is_nan());
        assert!(raw.indices[3 * width..3 * width + 9].iter().all(|&i| (i as usize) < m));
    }
}

/// A ragged row that selects all it has — k = M, or a row shorter than its k — searches
/// nothing in exact mode when its count is not asked (`search_of`: a bracket of the least key,
/// which the selection turns into every element), and gives the converged search's answer; with
/// counts asked it searches, and its count is `bisect`'s. The rows hold +inf, so a search goes
/// straight to the key phase (the coverage's witness).
#[test]
fn a_row_that_selects_all_it_has_searches_only_when_its_count_is_asked() {
    // k: the outputs' width, which caps every row's k
    let (n, m, k) = (6usize, 4000usize, 4000usize);
    let mut x: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 10_007) as f32 - 5000.0).collect();
    for r in 0..n {
        x[r * m + 11 * r] = f32::INFINITY;
    }
    // rows 0 and 1 hold k = M (their full length); the others are shorter than k
    let lengths: Vec<u32> = [4000, 4000, 2999, 1200, 3000, 77].to_vec();
    let ks: Vec<u32> = [4000, 4000, 3000, 3000, 3000, 3000].to_vec();
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let data = RowData { lengths: Some(&lengths), k_per_row: Some(&ks), ..RowData::default() };
    let opts = Options { mode: Mode::Largest, sorted: false };
    for strategy in [Launch::Auto, Launch::Block] {
        let run = |counts: bool| {
            let config = SimConfig { strategy, counts, ..SimConfig::default() };
            let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
            assert!(got.diagnostics.is_empty(), "{}", got.summary);
            got
        };
        let (quiet, counted) = (run(false), run(true));
        assert_eq!((&quiet.values, &quiet.indices), (&counted.values, &counted.indices));
        assert!(!quiet.coverage.reached(warp_sim::rtopk::Branch::KeyPhase), "{:?}", quiet.coverage);
        assert!(counted.coverage.reached(warp_sim::rtopk::Branch::KeyPhase));
        // every row selected its whole length, in index order
        for (r, &len) in lengths.iter().enumerate() {
            let len = len as usize;
            let row: Vec<u32> = quiet.indices[r * 4000..r * 4000 + len].to_vec();
            assert_eq!(row, (0..len as u32).collect::<Vec<_>>(), "row {r}");
        }
        // the counts asked for are bisect's
        let (ls, kk): (Vec<usize>, Vec<usize>) = (
            lengths.iter().map(|&l| l as usize).collect(),
            ks.iter().map(|&v| v as usize).collect(),
        );
        let rows = Rows::per_row_k(&kk).with_lengths(&ls);
        let all = Wanted { iterations: true, threshold: false };
        let want =
            topk_ragged(f32::as_dyn(&Bisect::exact()), ndarray_view(&x, n, m), &rows, opts, all)
                .unwrap();
        let want_iters = want.iterations.expect("asked for").to_vec();
        assert_eq!(counted.iterations, want_iters);
        assert!(want_iters.iter().all(|&i| i > 0), "{want_iters:?}");
    }
}

/// Few ragged rows past 16384 take the cluster twin (`rtopk_cluster_rows_ragged`, docs/kernel.md
/// "Cluster rows"), each row's own length spread over the cluster's blocks (`ragged_span`):
/// rows of lengths 0, 1, shorter than one block's registers, ending on and just past a full
/// block's registers, and full; k per row from 0 up, some above the length; NaN and
/// infinite tails and ties with the k-th value past the length; every kind of hint — the
/// oracle's answers, counts and thresholds, with no diagnostic (nothing past a row's length
/// read), in f32, f16 and bf16, largest and smallest, sorted or not.
#[test]
fn ragged_cluster_rows_equal_the_oracle() {
    let (n, m) = (7usize, 20_000usize);
    // the plan's cluster for 7 x 20000: 3 blocks of 224 threads, 7168 keys in each one's
    // registers; a row's parts of its own length: 5000 in 1696, 1696 and 1608, 7169 in 2400,
    // 2400 and 2369, 14337 in 4800, 4800 and 4737
    let lengths = vec![0, 1, 5000, 7168, 7169, 14_337, 20_000];
    let k = vec![3, 1, 2048, 0, 7169, 300, 2048];
    let tails = [
        test_support::Tail::Nan,
        test_support::Tail::Inf,
        test_support::Tail::CopyPrefix,
        test_support::Tail::Keep,
    ];
    let hints = [
        HintKind::None,
        HintKind::Exact,
        HintKind::Perturbed,
        HintKind::Nan,
        HintKind::PosInf,
        HintKind::NegInf,
        HintKind::Random,
    ];
    let x32 =
        f32_cluster_cases((n, m), (&lengths, &k), &hints, &tails, "rtopk_cluster_rows_ragged");
    for (case, hint) in [HintKind::Exact, HintKind::None].into_iter().enumerate() {
        let shape = RaggedShape {
            lengths: lengths.clone(),
            k: k.clone(),
            per_row_k: true,
            tail: test_support::Tail::Nan,
            hint,
            random_hints: Vec::new(),
        };
        let mode = Mode::from_smallest(case == 1);
        let mut x: Vec<f16> = x32.iter().map(|&v| f16::from_f32(v)).collect();
        poison_tails(&mut x, m, &shape.lengths, shape.tail, specials16::<f16>());
        check(SimConfig::default(), (n, m, &x), &shape, mode, Bisect::exact()).unwrap();
        let mut x: Vec<bf16> = x32.iter().map(|&v| bf16::from_f32(v)).collect();
        poison_tails(&mut x, m, &shape.lengths, shape.tail, specials16::<bf16>());
        check(SimConfig::default(), (n, m, &x), &shape, mode, Bisect::exact()).unwrap();
        let got = cluster_unit(SimConfig::default(), (n, m, &x), &shape);
        assert_eq!(got, ("rtopk_cluster_rows_ragged_bf16".to_string(), false), "{hint:?}");
    }
}

/// Hinted f32 rows over portable clusters whose counts nobody asks for start from a window
/// about their hint (`search_from_hint`: one cluster round counts the window's two ends, and
/// the bracket takes what they prove): normal rows with their own thresholds, perturbed ones,
/// hints below, near, above and outside the row's range, NaN; a row of forty values whose ties
/// straddle the window's ends, one shorter than the width with NaN past it, one of k = m;
/// largest and smallest, sorted or not — the oracle's answers and thresholds with no
/// diagnostic. The window runs where a row's hint lies inside its range, and never where the
/// counts are asked (then the hint test and window tests give `bisect`'s counts: `check`).
#[test]
fn hinted_cluster_rows_start_from_a_window_about_their_hint() {
    let cases = [[1.64, 1.6, 2.5, 9.4], [f32::NAN, 0.0, 1.5, 1e30]];
    let rows = (vec![40_000, 31_337, 1500, 40_000], vec![2048, 1500, 1500, 2048]);
    windowed_hint_cases(40_000, rows, cases, "rtopk_cluster_rows_ragged");
}

/// Hinted f32 rows without lengths or a k per row (a decode step's call) of 24577 to 32768 take
/// 8 cluster blocks, as plain rows do (rtopk-plan's `SHORT_CLUSTER_MIN_ROW`), and start from
/// the window about their hint: two normal rows and one of forty values in heavy ties, with
/// their own thresholds, the thresholds of the rows moved by 1 %, NaN, ±inf and hints outside
/// the range; largest and smallest, sorted or not — the oracle's answers and thresholds, with
/// no diagnostic, the window taken where a hint lies inside its row's range.
#[test]
fn hinted_rows_of_four_spans_take_eight_cluster_blocks() {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, StandardNormal};
    let (n, m, k) = (3usize, 32_000usize, 1024usize);
    let mut rng = StdRng::seed_from_u64(47);
    let mut x: Vec<f32> = (0..n * m).map(|_| StandardNormal.sample(&mut rng)).collect();
    for v in &mut x[2 * m..] {
        *v = f32::from(rng.random_range(0u8..40)) * 0.25;
    }
    let kinds = [
        (HintKind::Exact, Vec::new()),
        (HintKind::Perturbed, Vec::new()),
        (HintKind::Nan, Vec::new()),
        (HintKind::PosInf, Vec::new()),
        (HintKind::Random, vec![1e30, -1e30, 5.0]),
    ];
    for (case, (hint, random_hints)) in kinds.into_iter().enumerate() {
        let mode = Mode::from_smallest(case % 2 == 1);
        let opts = Options { mode, sorted: case % 3 == 2 };
        let shape = RaggedShape {
            lengths: vec![m; n],
            k: vec![k; n],
            per_row_k: false,
            tail: test_support::Tail::Keep,
            hint,
            random_hints,
        };
        let rows = Rows::new(k);
        let hints = hints_for((n, m, &x), &shape, &rows, opts).expect("hints");
        let all = Wanted { iterations: false, threshold: true };
        let view = ndarray_view(&x, n, m);
        let want = topk_ragged(&Bisect::exact(), view, &rows, opts, all).unwrap();
        let data = RowData { lengths: None, k_per_row: None, hint: Some(&hints), threshold: true };
        let args = KernelArgs { n, m, k, mode, bisect: Bisect::exact(), mutant: None };
        let config = SimConfig { counts: false, sorted: opts.sorted, ..SimConfig::default() };
        let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
        let what = format!("case {case}: {hint:?} {mode:?} sorted={}", opts.sorted);
        assert!(got.diagnostics.is_empty(), "{what}: {}", got.summary);
        assert_eq!(got.plan.unit.to_string(), "rtopk_cluster_rows_ragged", "{what}");
        assert_eq!(got.plan.cluster, 8, "{what}");
        assert_eq!(got.indices, want.indices.iter().copied().collect::<Vec<_>>(), "{what}");
        assert_eq!(bits(&got.values), bits(want.values.as_slice().unwrap()), "{what}");
        let thresholds = want.threshold.expect("thresholds asked for");
        assert_eq!(bits(&got.threshold), bits(thresholds.as_slice().unwrap()), "{what}");
        let inside = case < 2; // own or drifted thresholds lie inside every row's range
        let windowed = got.coverage.reached(warp_sim::Branch::ClusterHintGuess);
        assert!(!inside || windowed, "{what}: the window about the hint");
    }
}

/// The same on rows of the narrowing twin (`rtopk_cluster_rows_narrow_ragged`: f32 rows of at
/// least 98304, k at most 128), whose window, where it brackets at most 1024 keys, sends the
/// row's candidates to block 0 (`finish_cluster_candidates`) as the hint test's would.
#[test]
fn hinted_narrowing_cluster_rows_start_from_a_window_about_their_hint() {
    let cases = [[2.6, 2.7, 2.0, 9.4], [f32::NAN, 0.0, 2.5, -1e30]];
    let rows = (vec![100_000, 77_777, 1500, 100_000], vec![50, 128, 100, 64]);
    windowed_hint_cases(100_000, rows, cases, "rtopk_cluster_rows_narrow_ragged");
}

/// Four f32 rows of width `m` (three normal, the last of forty values in heavy ties), of
/// `lengths` and `k` per row, with their own thresholds, perturbed ones and the two sets of
/// `random` hints: the oracle's answers and thresholds with no diagnostic (`check`), run by
/// `unit`, which starts from its windows exactly where the counts are not asked.
fn windowed_hint_cases(
    m: usize,
    (lengths, k): (Vec<usize>, Vec<usize>),
    random: [[f32; 4]; 2],
    unit: &str,
) {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, StandardNormal};
    let n = 4usize;
    let mut rng = StdRng::seed_from_u64(43);
    let mut x: Vec<f32> = (0..n * m).map(|_| StandardNormal.sample(&mut rng)).collect();
    for v in &mut x[3 * m..] {
        *v = f32::from(rng.random_range(0u8..40)) * 0.25;
    }
    let width = k.iter().copied().max().unwrap_or(0);
    for (case, (hint, random_hints)) in [
        (HintKind::Exact, Vec::new()),
        (HintKind::Perturbed, Vec::new()),
        (HintKind::Random, random[0].to_vec()),
        (HintKind::Random, random[1].to_vec()),
        (HintKind::Exact, Vec::new()),
    ]
    .into_iter()
    .enumerate()
    {
        let shape = RaggedShape {
            lengths: lengths.clone(),
            k: k.clone(),
            per_row_k: true,
            tail: test_support::Tail::Nan,
            hint,
            random_hints,
        };
        let mut x = x.clone();
        poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
        let mode = Mode::from_smallest(case == 1 || case == 4);
        let config = SimConfig { counts: false, sorted: case % 2 == 1, ..SimConfig::default() };
        check(config, (n, m, &x), &shape, mode, Bisect::exact()).unwrap();
        // the unit and whether a row started from its window, counts asked or not
        let opts = Options { mode, sorted: config.sorted };
        let rows = Rows::per_row_k(&shape.k).with_lengths(&shape.lengths);
        let hints = hints_for((n, m, &x), &shape, &rows, opts).expect("hints");
        let len32: Vec<u32> = lengths.iter().map(|&l| l as u32).collect();
        let k32: Vec<u32> = k.iter().map(|&k| k as u32).collect();
        let data = RowData {
            lengths: Some(&len32),
            k_per_row: Some(&k32),
            hint: Some(&hints),
            threshold: true,
        };
        let args = KernelArgs { n, m, k: width, mode, bisect: Bisect::exact(), mutant: None };
        for counts in [false, true] {
            let config = SimConfig { counts, ..config };
            let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
            assert!(got.diagnostics.is_empty(), "{}", got.summary);
            assert_eq!(got.plan.unit.to_string(), unit, "{hint:?}");
            let windowed = got.coverage.reached(warp_sim::Branch::ClusterHintGuess);
            assert_eq!(windowed, !counts, "case {case}, counts {counts}: {:?}", got.coverage);
        }
    }
}

/// Ragged f32 rows of at least 98304 of k at most 128 take the narrowing twin
/// (`rtopk_cluster_rows_narrow_ragged`), whose rows gather their candidates into block 0
/// (`finish_cluster_candidates`): rows of lengths 0, just past one block's part, within and
/// at the width; k per row (0 up to 128, one above its length) or 128 for all; NaN and
/// infinite tails; hints of every kind — the oracle's answers, counts and thresholds, with no
/// diagnostic, largest and smallest, sorted or not.
#[test]
fn ragged_cluster_rows_that_narrow_equal_the_oracle() {
    let (n, m) = (5usize, 100_000usize);
    // the plan's cluster for 5 x 100000: 8 blocks of 416 threads, parts of 13312
    let lengths = vec![0, 13_313, 40_000, 100_000, 30];
    let k = vec![3, 128, 0, 50, 31];
    let tails = [test_support::Tail::Nan, test_support::Tail::Inf, test_support::Tail::Keep];
    let hints =
        [HintKind::None, HintKind::Exact, HintKind::Perturbed, HintKind::Nan, HintKind::Random];
    let unit = "rtopk_cluster_rows_narrow_ragged";
    f32_cluster_cases((n, m), (&lengths, &k), &hints, &tails, unit);
}

/// Ragged f32 rows over wide clusters (16 blocks a row, past `CLUSTER_MAX_ROW`) whose search
/// narrows within the blocks from up to 8192 keys and counts five steps a round by warp ballots
/// (`ballot_round`): a full row and a row ending inside a block's part, k per row (one the
/// shorter row's halving passes below), no hint, the row's own threshold and a perturbed one,
/// largest and smallest, sorted or not — the oracle's answers, counts and thresholds.
#[test]
fn ragged_wide_cluster_rows_that_count_by_ballots_equal_the_oracle() {
    let (n, m) = (2usize, 262_144usize);
    let (lengths, k) = (vec![262_144, 150_001], vec![2048, 5000]);
    // distinct values, uniform on [0, 1000): each count halves the keys above the bracket
    let x: Vec<f32> =
        (0..n * m).map(|i| ((i as u64 * 2_654_435_761) % 1_000_003) as f32 * 1e-3).collect();
    let hints = [HintKind::None, HintKind::Exact, HintKind::Perturbed];
    for (case, hint) in hints.into_iter().enumerate() {
        let shape = RaggedShape {
            lengths: lengths.clone(),
            k: k.clone(),
            per_row_k: true,
            tail: test_support::Tail::Nan,
            hint,
            random_hints: Vec::new(),
        };
        let mut x = x.clone();
        poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
        let config = SimConfig { sorted: case == 2, ..SimConfig::default() };
        check(config, (n, m, &x), &shape, Mode::from_smallest(case == 1), Bisect::exact()).unwrap();
    }
    let len32: Vec<u32> = lengths.iter().map(|&l| l as u32).collect();
    let k32: Vec<u32> = k.iter().map(|&k| k as u32).collect();
    let args =
        KernelArgs { n, m, k: 5000, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let data = RowData { lengths: Some(&len32), k_per_row: Some(&k32), ..RowData::default() };
    let got = Simulator::new(SimConfig::default()).run_ragged(&x, &args, data).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    assert_eq!(
        (got.plan.unit.to_string(), got.plan.cluster),
        ("rtopk_cluster_rows_ragged".into(), 16)
    );
    assert!(got.coverage.reached(warp_sim::Branch::ClusterBallotRounds), "{:?}", got.coverage);
}

/// The f32 rows of the ragged cluster tests, `n` rows of `m` with `lengths` and `k` per row, a
/// case a hint kind: tails, k per row or the largest for all, largest or smallest, sorted or
/// not, cycling with the case — the oracle's answers with no diagnostic, run by `unit`, which
/// narrows where it is `rtopk_cluster_rows_narrow_ragged`. Returns the rows before the tails.
fn f32_cluster_cases(
    (n, m): (usize, usize),
    (lengths, k): (&[usize], &[usize]),
    hints: &[HintKind],
    tails: &[test_support::Tail],
    unit: &str,
) -> Vec<f32> {
    let x32: Vec<f32> = (0..n * m).map(|i| ((i * 7919) % 4099) as f32 * 0.5 - 1000.0).collect();
    for (case, &hint) in hints.iter().enumerate() {
        let shape = RaggedShape {
            lengths: lengths.to_vec(),
            k: k.to_vec(),
            per_row_k: case % 2 == 0,
            tail: tails[case % tails.len()],
            hint,
            random_hints: vec![-3.5, 0.0, 250.25, 1e30, -1e-40],
        };
        let mode = Mode::from_smallest(case % 3 == 1);
        let config = SimConfig { sorted: case % 3 == 2, ..SimConfig::default() };
        let mut x = x32.clone();
        poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
        check(config, (n, m, &x), &shape, mode, Bisect::exact()).unwrap();
        let narrows = unit == "rtopk_cluster_rows_narrow_ragged";
        let got = cluster_unit(config, (n, m, &x), &shape);
        assert_eq!(got, (unit.to_string(), narrows), "{hint:?}");
    }
    x32
}

/// The unit that ran the ragged request `shape` with its k per row (no hints needed: the
/// route is the lengths'), and whether a row of it narrowed to its candidates in block 0
/// (`finish_cluster_candidates`).
fn cluster_unit<E: Element>(
    config: SimConfig,
    (n, m, x): (usize, usize, &[E]),
    shape: &RaggedShape,
) -> (String, bool) {
    let lengths: Vec<u32> = shape.lengths.iter().map(|&l| l as u32).collect();
    let per_row: Vec<u32> = shape.k.iter().map(|&k| k as u32).collect();
    let k = shape.k.iter().copied().max().unwrap_or(0);
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let data = RowData { lengths: Some(&lengths), k_per_row: Some(&per_row), ..RowData::default() };
    let got = Simulator::new(config).run_ragged(x, &args, data).unwrap();
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
    (got.plan.unit.to_string(), got.coverage.reached(warp_sim::Branch::ClusterNarrowed))
}

/// A ragged split whose second stage is the cluster twin (one row of 300000 at k = 1024, no
/// counts: 147 chunks' candidates, of the row's own length) on a device of portable clusters,
/// the same rows over wide clusters (16 blocks a row), and hinted rows over clusters: the
/// oracle's answer; the seeded bug `LoadPastM` reads past a row's length and is reported.
#[test]
fn ragged_splits_and_hints_over_clusters() {
    let (n, m, k) = (2usize, 300_000usize, 1024usize);
    let mut x: Vec<f32> = (0..n * m).map(|i| ((i * 2_654_435_761) % 100_003) as f32).collect();
    let shape = RaggedShape {
        lengths: vec![123_457, 300_000],
        k: vec![k, 1000],
        per_row_k: true,
        tail: test_support::Tail::Nan,
        hint: HintKind::Perturbed,
        random_hints: Vec::new(),
    };
    poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
    let portable = warp_sim::DeviceLimits { max_cluster: 8, ..SimConfig::default().limits };
    let config = SimConfig { counts: false, limits: portable, ..SimConfig::default() };
    let lengths: Vec<u32> = shape.lengths.iter().map(|&l| l as u32).collect();
    let args = KernelArgs { n, m, k, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let data = RowData { lengths: Some(&lengths), ..RowData::default() };
    let got = Simulator::new(config).run_ragged(&x, &args, data).unwrap();
    // the route's last plan (the program runs its ragged twin)
    let last = *got.route.plans().last().unwrap();
    assert_eq!((got.route.depth(), last.unit.to_string()), (1, "rtopk_cluster_rows".into()));
    check(config, (n, m, &x), &shape, Mode::Largest, Bisect::exact()).unwrap();
    let wide = SimConfig { counts: false, ..SimConfig::default() };
    let got = Simulator::new(wide).run_ragged(&x, &args, data).unwrap();
    let plan = (got.route.depth(), got.plan.unit.to_string(), got.plan.cluster);
    assert_eq!(plan, (0, "rtopk_cluster_rows_ragged".into(), 16));
    check(wide, (n, m, &x), &shape, Mode::Largest, Bisect::exact()).unwrap();
    // a row of 40000 read past its length under LoadPastM, over a cluster
    let (n, m) = (2usize, 40_000usize);
    let x: Vec<f32> = (0..n * m).map(|i| (i % 37) as f32).collect();
    let lengths = [30_001u32, 17];
    for mutant in [None, Some(warp_sim::Mutant::LoadPastM)] {
        let args = KernelArgs { n, m, k: 50, mode: Mode::Largest, bisect: Bisect::exact(), mutant };
        let data = RowData { lengths: Some(&lengths), ..RowData::default() };
        let got = Simulator::new(SimConfig::default()).run_ragged(&x, &args, data).unwrap();
        assert_eq!(got.plan.unit.to_string(), "rtopk_cluster_rows_ragged");
        let past = got.diagnostics.iter().any(|d| d.label.contains("past a row's length"));
        assert_eq!(past, mutant.is_some(), "{}", got.summary);
    }
}

/// The hint test's two counts at the paired-count limit (2^16, docs/kernel.md "Threshold hints
/// and thresholds"): block and cluster rows shorter than it sum them in one round, packed;
/// rows of 2^16 and longer count twice. Rows of their own lengths 70000, 65536 and 65535 with
/// perturbed and exact hints, over a cluster and, on a device without clusters, over one
/// block each: the oracle's answers, counts and thresholds.
#[test]
fn hinted_rows_at_the_paired_count_limit() {
    let (n, m) = (3usize, 70_000usize);
    let x0: Vec<f32> = (0..n * m).map(|i| ((i * 2_654_435_761) % 100_003) as f32).collect();
    let one_block = warp_sim::DeviceLimits { max_cluster: 1, ..SimConfig::default().limits };
    let devices = [
        (SimConfig::default(), "rtopk_cluster_rows_ragged"),
        (SimConfig { limits: one_block, ..SimConfig::default() }, "rtopk_block_rows_ragged"),
    ];
    for (config, unit) in devices {
        for hint in [HintKind::Perturbed, HintKind::Exact] {
            let shape = RaggedShape {
                lengths: vec![70_000, 65_536, 65_535],
                k: vec![2048, 700, 64],
                per_row_k: true,
                tail: test_support::Tail::Nan,
                hint,
                random_hints: Vec::new(),
            };
            let mut x = x0.clone();
            poison_tails(&mut x, m, &shape.lengths, shape.tail, SPECIALS_F32);
            check(config, (n, m, &x), &shape, Mode::Largest, Bisect::exact()).unwrap();
            assert_eq!(cluster_unit(config, (n, m, &x), &shape).0, unit, "{hint:?}");
        }
    }
}

/// The rank sort (few rows of k <= 2048, a cluster of 16 blocks a row) over rows of their own
/// length and k: six rows, so that their clusters fit an H100's SMs — lengths 0, 1, below k, M;
/// k per row 0, 1, above the length, the width (257 and 700: a row's results fill some of its
/// blocks and leave others none); ties straddling the k-th value, -0.0, NaN of both signs with
/// payloads selected and past the lengths; both modes; f32, f16 and bf16 — the driver's sorted
/// answers and thresholds, no diagnostic.
#[test]
fn the_rank_sort_of_rows_of_their_own_length_and_k() {
    for width in [257usize, 700] {
        clustered_sorts_of_rows_of_their_own_length(1500, width, (16, false));
    }
}

/// The merge sort (few rows of k > 4096, a cluster of blocks a row, a run of 2048 each) over
/// rows of their own length and k, as the rank sort's test: widths 4100 and 6000 on four
/// blocks (rows of k 2050 or less leave the later runs empty, 3000 fills one and part of one).
#[test]
fn the_merge_sort_of_rows_of_their_own_length_and_k() {
    clustered_sorts_of_rows_of_their_own_length(6500, 4100, (4, true));
    clustered_sorts_of_rows_of_their_own_length(6500, 6000, (4, true));
}

/// Six rows of `m` (lengths 0, 1, 299, 1100 and `m` twice) sorting `width` results in a cluster
/// of `parts` blocks a row (`merges`: the merge sort, else the rank sort), k per row `width`, 0,
/// 1, `width / 2`, `width - 1`: the driver's sorted answers and thresholds in f32, f16 and bf16,
/// both modes, NaN or infinities past the lengths, no diagnostic.
fn clustered_sorts_of_rows_of_their_own_length(
    m: usize,
    width: usize,
    (parts, merges): (u32, bool),
) {
    let lengths = [m, 0, 1, 299, 1100, m];
    let n = lengths.len();
    let x: Vec<f32> = (0..n * m)
        .map(|i| match i % 89 {
            13 => f32::from_bits(0xffc0_1234),
            29 => f32::from_bits(0x7fc0_0042),
            41 => -0.0,
            _ => ((i * 2_654_435_761) % 7) as f32 - 2.5,
        })
        .collect();
    let ks: Vec<usize> = (0..n).map(|r| [width, 0, 1, width / 2, width - 1][r % 5]).collect();
    let args =
        KernelArgs { n, m, k: width, mode: Mode::Largest, bisect: Bisect::exact(), mutant: None };
    let config = SimConfig { sorted: true, ..SimConfig::default() };
    let sort = Simulator::new(config).run(&x, &args).unwrap().plan.sort.expect("a sort");
    let got = sort.shape.map(|s| (s.parts, s.merges));
    assert_eq!(got, Some((parts, merges)), "width {width}: the clustered sort");
    for (per_row_k, tail) in [(true, test_support::Tail::Nan), (false, test_support::Tail::Inf)] {
        let hint = test_support::HintKind::None;
        let shape = every_length(&lengths, &ks, (width, per_row_k), tail, hint);
        for smallest in [false, true] {
            let mode = Mode::from_smallest(smallest);
            let mut y = x.clone();
            poison_tails(&mut y, m, &shape.lengths, shape.tail, SPECIALS_F32);
            check(config, (n, m, &y), &shape, mode, Bisect::exact()).unwrap();
            let mut h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
            poison_tails(&mut h, m, &shape.lengths, shape.tail, specials16::<f16>());
            check(config, (n, m, &h), &shape, mode, Bisect::exact()).unwrap();
            let mut b: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
            poison_tails(&mut b, m, &shape.lengths, shape.tail, specials16::<bf16>());
            check(config, (n, m, &b), &shape, mode, Bisect::exact()).unwrap();
        }
    }
}

/// Ragged rows whose launch reads no hints, and whose counts nobody asks for, take the plain
/// units' searches (the kernel's `plain_search`, docs/kernel.md "Rows of their own length"):
/// f32 cluster rows start from a guessed bracket, f32 block rows from their value bins, 16-bit
/// cluster and block rows search by histograms — the oracle's answers and thresholds, on rows
/// of length 0, shorter than their k, of a part's length and full, with NaN, infinities or
/// copies of the row past the lengths, largest and smallest, sorted or not. With hints the
/// rows start from them instead, and with counts asked they bisect.
#[test]
fn ragged_rows_without_hints_take_the_plain_searches() {
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};
    use warp_sim::Branch;
    let cluster = (vec![100_000, 61_003, 1500, 0, 12_288], vec![2048, 2048, 2048, 5, 2048]);
    let block = (vec![4001, 3000, 700, 0, 2048], vec![1000, 999, 900, 3, 512]);
    let searches = [
        (100_000, cluster, Branch::ClusterGuess, Branch::ClusterHistograms),
        (4001, block, Branch::BlockValueBins, Branch::BlockHistograms),
    ];
    let tails = [test_support::Tail::Nan, test_support::Tail::Inf, test_support::Tail::CopyPrefix];
    for (case, (m, (lengths, k), of_f32, of_16)) in searches.into_iter().enumerate() {
        let n = lengths.len();
        let mut rng = rand::rngs::StdRng::seed_from_u64(53 + case as u64);
        let normal: Vec<f32> = (0..n * m).map(|_| StandardNormal.sample(&mut rng)).collect();
        for (i, tail) in tails.into_iter().enumerate() {
            let shape = |hint| RaggedShape {
                lengths: lengths.clone(),
                k: k.clone(),
                per_row_k: true,
                tail,
                hint,
                random_hints: Vec::new(),
            };
            let mode = Mode::from_smallest(i == 1);
            let sorted = i == 2;
            let mut x = normal.clone();
            poison_tails(&mut x, m, &lengths, tail, SPECIALS_F32);
            let what = format!("f32 {n} x {m} {tail:?}");
            searched(&x, (n, m), &shape, (mode, sorted), of_f32, &what);
            let mut h: Vec<f16> = normal.iter().map(|&v| f16::from_f32(v)).collect();
            poison_tails(&mut h, m, &lengths, tail, specials16::<f16>());
            searched(&h, (n, m), &shape, (mode, sorted), of_16, &format!("f16 {what}"));
            let mut b: Vec<bf16> = normal.iter().map(|&v| bf16::from_f32(v)).collect();
            poison_tails(&mut b, m, &lengths, tail, specials16::<bf16>());
            searched(&b, (n, m), &shape, (mode, sorted), of_16, &format!("bf16 {what}"));
        }
    }
}

/// [`ragged_rows_without_hints_take_the_plain_searches`]' case: the oracle's answers without a
/// hint, counts not asked, and `branch` reached; with each row's own threshold as hint, or with
/// counts asked, the same answers and `branch` not reached.
fn searched<E: Element>(
    x: &[E],
    (n, m): (usize, usize),
    shape: &dyn Fn(HintKind) -> RaggedShape,
    (mode, sorted): (Mode, bool),
    branch: warp_sim::Branch,
    what: &str,
) {
    let lengths: Vec<u32> = shape(HintKind::None).lengths.iter().map(|&l| l as u32).collect();
    let ks: Vec<u32> = shape(HintKind::None).k.iter().map(|&k| k as u32).collect();
    let width = ks.iter().copied().max().unwrap_or(0) as usize;
    for (hint, counts, reached) in [
        (HintKind::None, false, true),
        (HintKind::Exact, false, false),
        (HintKind::None, true, false),
    ] {
        let config = SimConfig { sorted, counts, ..SimConfig::default() };
        let s = shape(hint);
        check(config, (n, m, x), &s, mode, Bisect::exact()).unwrap();
        let opts = Options { mode, sorted };
        let rows = Rows::per_row_k(&s.k).with_lengths(&s.lengths);
        let hints = hints_for((n, m, x), &s, &rows, opts);
        let data = RowData {
            lengths: Some(&lengths),
            k_per_row: Some(&ks),
            hint: hints.as_deref(),
            threshold: false,
        };
        let args = KernelArgs { n, m, k: width, mode, bisect: Bisect::exact(), mutant: None };
        let got = Simulator::new(config).run_ragged(x, &args, data).unwrap();
        let case = format!("{what} {mode:?} sorted={sorted} {hint:?} counts={counts}");
        assert!(got.plan.unit.is_ragged(), "{case}: {}", got.plan.unit);
        assert_eq!(got.coverage.reached(branch), reached, "{case}: {:?}", got.coverage);
    }
}
