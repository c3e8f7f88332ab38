//! Ragged 64-bit rows (docs/contract.md §5): rows of f64 and i64 of their own length and k,
//! with threshold hints and the threshold output, run the wide rows' ragged twins
//! (`rtopk_wide_rows_ragged_<EPL>`) and the 64-bit threshold step, and give topk-ref's ragged
//! driver over `Bisect` with the same hints bit for bit — indices (padding `u32::MAX`), value
//! bits (padding 0), iteration counts (0 where a row selects nothing) and thresholds — with no
//! diagnostic (the executor's check that nothing past a row's length is read included). Rows
//! built to break it: NaN of both signs and payloads, ±inf, ±0, subnormals, i64's extremes,
//! heavy ties; lengths 0, M and between, k 0, above the length and between; hints of every
//! kind (NaN of both signs, ±inf, ±0, the row's own threshold, near and far ones, random bits,
//! and on i64 rows hints beyond ±2^63 and fractional ones), in exact mode (hints apply) and
//! with early stopping, a precision or a recall target (hints ignored); widths not a multiple
//! of 32 and past 1024 (the re-keyed part). A hint that is the row's own threshold (its k-th
//! key exactly) never costs more iterations than no hint.

use proptest::prelude::*;
use test_support::{RaggedShape, SPECIALS_F64, poison_tails, ragged_shape, specials_int};
use topk_ref::{Bisect, Element, KeyBits, Mode, Options, Rows, Wanted, topk_ragged};
use warp_sim::{Family, KernelArgs, LaunchResult, RowData, SimConfig, Simulator};

use super::{any_f64, bisect, bits, epl_of};

/// What a ragged request asks, beside the matrix: each row's length (or none), its k (per row
/// or one for all), each row's hint (or none), whether thresholds are written.
#[derive(Clone, Debug)]
struct Request {
    lengths: Option<Vec<usize>>,
    k: Vec<usize>,
    per_row_k: bool,
    hints: Option<Vec<f32>>,
    threshold: bool,
}

impl Request {
    /// topk-ref's rows of the request.
    fn rows(&self) -> Rows<'_> {
        let rows = if self.per_row_k {
            Rows::per_row_k(&self.k)
        } else {
            Rows::new(self.k.first().copied().unwrap_or(0))
        };
        let rows = match &self.lengths {
            Some(l) => rows.with_lengths(l),
            None => rows,
        };
        match &self.hints {
            Some(h) => rows.with_hint(h),
            None => rows,
        }
    }

    /// The output width K.
    fn width(&self) -> usize {
        self.rows().k.width()
    }

    /// Whether the select reads a per-row array (the ragged twin runs).
    fn ragged(&self) -> bool {
        self.lengths.is_some() || self.per_row_k || self.hints.is_some()
    }
}

/// The simulator's run of `req` over the `(n, m)` matrix `x`.
fn simulate<E: Element>(
    (n, m, x): (usize, usize, &[E]),
    req: &Request,
    (mode, b): (Mode, Bisect),
    (sorted, counts): (bool, bool),
) -> Result<LaunchResult<E>, TestCaseError> {
    let to32 = |v: &[usize]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
    let lengths = req.lengths.as_deref().map(to32);
    let ks = to32(&req.k);
    let data = RowData {
        lengths: lengths.as_deref(),
        k_per_row: req.per_row_k.then_some(ks.as_slice()),
        hint: req.hints.as_deref(),
        threshold: req.threshold,
    };
    let args = KernelArgs { n, m, k: req.width(), mode, bisect: b, mutant: None };
    let config = SimConfig { sorted, counts, ..SimConfig::default() };
    Simulator::new(config)
        .run_ragged(x, &args, data)
        .map_err(|e| TestCaseError::fail(e.to_string()))
}

/// `req` over the `(n, m)` matrix `x` on the simulator against topk-ref's ragged driver over
/// `b` with the same hints: the unit, no diagnostic, indices, value bits, counts and
/// thresholds; with a hint at a row's own threshold (its k-th key exactly) in exact mode, no
/// more iterations than the same row without a hint.
fn check<E: Element>(
    (n, m, x): (usize, usize, &[E]),
    req: &Request,
    (mode, b): (Mode, Bisect),
    (sorted, counts): (bool, bool),
) -> Result<(), TestCaseError> {
    let got = simulate((n, m, x), req, (mode, b), (sorted, counts))?;
    let unit = got.plan.unit;
    prop_assert!(got.diagnostics.is_empty(), "{}: {}", unit, got.summary);
    prop_assert_eq!(unit.family(), Family::WideRows, "{}", unit);
    // no select step where nothing is selected: the route's plain plan
    let twin = if req.ragged() && req.width() > 0 { "ragged_" } else { "" };
    prop_assert_eq!(unit.to_string(), format!("rtopk_wide_rows_{twin}{}_{}", epl_of(m), E::NAME));
    prop_assert_eq!(got.route.depth(), 0, "64-bit rows are never split");
    let view = ndarray::ArrayView2::from_shape((n, m), x).unwrap();
    let opts = Options { mode, sorted };
    let all = Wanted { iterations: true, threshold: true };
    let want = topk_ragged(E::as_dyn(&b), view, &req.rows(), opts, all).unwrap();
    let plain = Request { hints: None, ..req.clone() };
    let unhinted = topk_ragged(E::as_dyn(&b), view, &plain.rows(), opts, all).unwrap();
    let width = req.width();
    let (want_it, want_t) = (want.iterations.unwrap(), want.threshold.unwrap());
    if !counts {
        prop_assert!(got.iterations.is_empty(), "{}: counts nobody asked for", unit);
    }
    if !req.threshold {
        prop_assert!(got.threshold.is_empty(), "{}: thresholds nobody asked for", unit);
    }
    for r in 0..n {
        let (lo, hi) = (r * width, (r + 1) * width);
        let hint = req.hints.as_ref().map(|h| h[r]);
        let want_idx = want.indices.row(r).to_vec();
        let want_val: Vec<E> = want.values.row(r).to_vec();
        prop_assert_eq!(&got.indices[lo..hi], want_idx.as_slice(), "{} row {}", unit, r);
        prop_assert_eq!(bits(&got.values[lo..hi]), bits(&want_val), "{} row {}", unit, r);
        if req.threshold {
            let (g, w) = (got.threshold[r].to_bits(), want_t[r].to_bits());
            prop_assert_eq!(g, w, "{} row {} threshold {:#x} {:#x}", unit, r, g, w);
        }
        if counts {
            prop_assert_eq!(got.iterations[r], want_it[r], "{} row {} hint {:?}", unit, r, hint);
        }
        // the own threshold: a hint whose key is the row's k-th key
        let k_r = req.rows().selected(r, m);
        let kth = want_val[..k_r].iter().map(|v| v.key(mode).to_u64()).min();
        let own = hint.is_some_and(|h| E::hint_key(h, mode).map(|t| t.to_u64()) == kth);
        if own && b == Bisect::exact() {
            let without = unhinted.iterations.as_ref().map_or(0, |it| it[r]);
            prop_assert!(
                want_it[r] <= without,
                "row {}: own threshold {} > {}",
                r,
                want_it[r],
                without
            );
        }
    }
    Ok(())
}

/// How a row's hint is made (`kind`), from the row's own threshold `t` (exact mode's), a random
/// f32 `random` and random bits `noise`.
fn hint_of(kind: u8, t: f32, random: f32, noise: u32) -> f32 {
    let two63 = 9_223_372_036_854_775_808.0f32;
    let beyond = [
        two63,
        -two63,
        f32::from_bits(two63.to_bits() - 1), // the greatest f32 below 2^63
        f32::from_bits((-two63).to_bits() + 1), // the least above -2^63
        f32::from_bits((-two63).to_bits() - 1), // the greatest below -2^63
        1e19,
        -1e19,
        f32::MAX,
        -f32::MAX,
    ];
    let fractions = [0.5f32, -0.5, 0.25, -0.75, 1.5, -2.5];
    let near = |d: u32| {
        let b = t.to_bits();
        // a few ulps away (up or down), staying a number where t is one
        if t.is_finite() && t != 0.0 { f32::from_bits(b.wrapping_add(d)) } else { t }
    };
    match kind {
        0 => {
            f32::from_bits([0x7fc0_0000, 0xffc0_1234, 0x7f80_0001, 0xff80_0042][noise as usize % 4])
        }
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 | 4 => t,
        5 => near(1 + noise % 3),
        6 => near((noise % 3).wrapping_sub(3)),
        7 => t * 1e6 + if noise % 2 == 0 { 1e30 } else { -1e30 }, // far
        8 => f32::from_bits(noise),                               // garbage
        9 => random,
        10 => beyond[noise as usize % beyond.len()],
        11 => t.floor() + fractions[noise as usize % fractions.len()],
        12 => fractions[noise as usize % fractions.len()],
        _ => [0.0f32, -0.0][noise as usize % 2],
    }
}

/// Each row's threshold under exact mode (NaN for a row that selects nothing).
fn own_thresholds<E: Element>(
    (n, m, x): (usize, usize, &[E]),
    req: &Request,
    mode: Mode,
) -> Vec<f32> {
    let view = ndarray::ArrayView2::from_shape((n, m), x).unwrap();
    let plain = Request { hints: None, ..req.clone() };
    let want = Wanted { iterations: false, threshold: true };
    let exact = Bisect::exact();
    let got =
        topk_ragged(E::as_dyn(&exact), view, &plain.rows(), Options { mode, sorted: false }, want);
    got.unwrap().threshold.unwrap().to_vec()
}

/// What a drawn case asks beside the matrix: the shape (lengths, k, tails, random hints),
/// whether the lengths, the hints and the thresholds are passed, each row's hint kind and
/// noise.
#[derive(Clone, Debug)]
struct Drawn {
    shape: RaggedShape,
    with_lengths: bool,
    with_hints: bool,
    threshold: bool,
    kinds: Vec<(u8, u32)>,
}

/// A [`Drawn`] for an `(n, m)` matrix.
fn drawn(n: usize, m: usize) -> impl Strategy<Value = Drawn> {
    (
        ragged_shape(n, m),
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.8),
        prop::collection::vec((0u8..14, any::<u32>()), n),
    )
        .prop_map(|(shape, with_lengths, with_hints, threshold, kinds)| Drawn {
            shape,
            with_lengths,
            with_hints,
            threshold,
            kinds,
        })
}

/// The request of `d` over the `(n, m)` matrix `x` (its tails poisoned with `specials` where
/// it has lengths), and the matrix.
fn request<E: Element>(
    (n, m, mut x): (usize, usize, Vec<E>),
    d: &Drawn,
    specials: [E; 4],
    mode: Mode,
) -> (Vec<E>, Request) {
    let lengths = d.with_lengths.then(|| d.shape.lengths.clone());
    if let Some(l) = &lengths {
        poison_tails(&mut x, m, l, d.shape.tail, specials);
    }
    let mut req = Request {
        lengths,
        k: d.shape.k.clone(),
        per_row_k: d.shape.per_row_k,
        hints: None,
        threshold: d.threshold,
    };
    if d.with_hints {
        let own = own_thresholds((n, m, &x), &req, mode);
        let random = &d.shape.random_hints;
        let hints = (0..n).map(|r| {
            let (kind, noise) = d.kinds[r];
            hint_of(kind, own[r], random[r % random.len().max(1)], noise)
        });
        req.hints = Some(hints.collect());
    }
    (x, req)
}

/// Widths of ragged 64-bit matrices: mostly short, some held in registers up to 1024, a few
/// re-keyed past them; 1 to 6 rows.
fn ragged_dims() -> impl Strategy<Value = (usize, usize)> {
    let m = prop_oneof![
        5 => 1usize..=70,
        3 => 71usize..=300,
        1 => 301usize..=1024,
        1 => 1025usize..=1200
    ];
    (1usize..=6, m)
}

/// f64 matrices, one flavour: mixed; a pool of 1–4 values (heavy ties); values exact in f32
/// (so that a row's threshold, an f32, is its k-th value: the own-threshold hint ends the
/// search); specials only.
fn ragged_f64() -> impl Strategy<Value = (usize, usize, Vec<f64>)> {
    let pool = prop::collection::vec(any_f64(), 1..5);
    (ragged_dims(), pool, 0u8..4).prop_flat_map(|((n, m), pool, flavour)| {
        let element = match flavour {
            0 => any_f64(),
            1 => prop::sample::select(pool).boxed(),
            2 => (-300i32..300).prop_map(|v| f64::from(v) * 0.125).boxed(),
            _ => test_support::special_f64().boxed(),
        };
        (Just(n), Just(m), prop::collection::vec(element, n * m))
    })
}

/// i64 matrices, one flavour: mixed; a pool (heavy ties); small values (exact in f32);
/// extremes only.
fn ragged_i64() -> impl Strategy<Value = (usize, usize, Vec<i64>)> {
    let pool = prop::collection::vec(test_support::int_value::<i64>(), 1..5);
    (ragged_dims(), pool, 0u8..4).prop_flat_map(|((n, m), pool, flavour)| {
        let element = match flavour {
            0 => test_support::int_value::<i64>(),
            1 => prop::sample::select(pool).boxed(),
            2 => (-5000i64..5000).boxed(),
            _ => prop::sample::select(test_support::int_extremes::<i64>()).boxed(),
        };
        (Just(n), Just(m), prop::collection::vec(element, n * m))
    })
}

/// A matrix and a drawn request of its size.
fn with_drawn<E: std::fmt::Debug + Clone>(
    x: impl Strategy<Value = (usize, usize, Vec<E>)>,
) -> impl Strategy<Value = ((usize, usize, Vec<E>), Drawn)> {
    x.prop_flat_map(|(n, m, x)| (Just((n, m, x)), drawn(n, m)))
}

/// Exact mode more often than the others: hints apply there alone.
fn ragged_bisect() -> impl Strategy<Value = Bisect> {
    prop_oneof![3 => Just(Bisect::exact()), 2 => bisect()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Ragged f64 rows.
    #[test]
    fn ragged_f64_rows_equal_the_ragged_driver((x, d) in with_drawn(ragged_f64()),
                                               smallest: bool, sorted: bool,
                                               counts in prop::bool::weighted(0.85),
                                               b in ragged_bisect()) {
        let mode = Mode::from_smallest(smallest);
        let (n, m) = (x.0, x.1);
        let (x, req) = request(x, &d, SPECIALS_F64, mode);
        check((n, m, &x), &req, (mode, b), (sorted, counts))?;
    }

    /// Ragged i64 rows.
    #[test]
    fn ragged_i64_rows_equal_the_ragged_driver((x, d) in with_drawn(ragged_i64()),
                                               smallest: bool, sorted: bool,
                                               counts in prop::bool::weighted(0.85),
                                               b in ragged_bisect()) {
        let mode = Mode::from_smallest(smallest);
        let (n, m) = (x.0, x.1);
        let (x, req) = request(x, &d, specials_int::<i64>(), mode);
        check((n, m, &x), &req, (mode, b), (sorted, counts))?;
    }
}

/// Hostile rows, each cut at several lengths with k per row 0, 1, the length, above it and the
/// width, under every kind of hint, both modes, sorted or not, exact, early stopping, a
/// precision and a recall target.
#[test]
fn hostile_ragged_rows_under_every_hint() {
    let nan = f64::from_bits;
    let floats: Vec<Vec<f64>> = vec![
        vec![f64::NAN, nan(0xfff8_0000_0000_0001), nan(0x7ff0_0000_dead_beef), 1.0, -0.0, 0.0],
        vec![f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, f64::INFINITY, 2.0, -5e-324, 5e-324],
        vec![f64::MAX, -f64::MAX, 1e300, 1e-300, -1e-300, 3.0, f64::MIN_POSITIVE, 1e39, -1e39],
        (0..45).map(|i| [1.5, 1.5, -0.25, nan(0xfff0_0000_0000_0042)][i % 4]).collect(),
        (0..70).map(|i| if i % 3 == 0 { -0.0 } else { 0.0 }).collect(),
        (0..37).map(|i| f64::from(i % 7) * 0.5 - 1.0).collect(),
    ];
    let ints: Vec<Vec<i64>> = vec![
        vec![i64::MIN, i64::MAX, 0, -1, 1, i64::MIN + 1, i64::MAX - 1],
        (0..40).map(|i| [i64::MAX, i64::MIN, 7, 7][i % 4]).collect(),
        (0..65).map(|i| i64::MAX - (i % 4)).collect(),
        (0..33).map(|i| (i % 5) - 2).collect(),
        (0..50).map(|i| (i * 16_777_259) << 20).collect(), // beyond f32's exact integers
    ];
    let configs = [
        Bisect::exact(),
        Bisect::early_stopping(5),
        Bisect::with_precision(0.01).unwrap(),
        Bisect::with_recall(0.6).unwrap(),
    ];
    for b in configs {
        for (smallest, sorted) in [(false, false), (true, false), (false, true), (true, true)] {
            let mode = Mode::from_smallest(smallest);
            for row in &floats {
                hostile(row, (mode, b), sorted);
            }
            for row in &ints {
                hostile(row, (mode, b), sorted);
            }
        }
    }
}

/// One hostile row as the 14 rows of a matrix, each cut at its own length with its own k, each
/// under one kind of hint.
fn hostile<E: Element>(row: &[E], (mode, b): (Mode, Bisect), sorted: bool) {
    let m = row.len();
    let n = 14;
    let x: Vec<E> = (0..n).flat_map(|_| row.iter().copied()).collect();
    let lengths: Vec<usize> = (0..n).map(|r| [m, 0, 1, m / 2, m - 1, m, 3.min(m)][r % 7]).collect();
    let k: Vec<usize> = (0..n).map(|r| [1, 0, m, m / 3, m - 1, 2, m, 5.min(m)][r % 8]).collect();
    let mut req =
        Request { lengths: Some(lengths), k, per_row_k: true, hints: None, threshold: true };
    let own = own_thresholds((n, m, &x), &req, mode);
    let hints = (0..n).map(|r| hint_of(r as u8, own[r], 1.25, 7 * r as u32 + 1)).collect();
    req.hints = Some(hints);
    for counts in [true, false] {
        if let Err(e) = check((n, m, &x), &req, (mode, b), (sorted, counts)) {
            panic!("{} M={m} {mode:?} {b:?} sorted={sorted} counts={counts}: {e}", E::NAME);
        }
    }
}

/// Widths not a multiple of 32, at the units' edges and past 1024 (re-keyed): lengths around
/// 32, 256 and 1024, k per row up to the length and past it, hints at the row's threshold and
/// near it.
#[test]
fn every_width_with_lengths_at_the_edges() {
    for m in [33, 255, 257, 700, 1023, 1025, 1100] {
        let f: Vec<f64> = (0..8 * m).map(|i| ((i * 7919) % 613) as f64 * -0.5 + 3.0).collect();
        let i: Vec<i64> = (0..8 * m).map(|i| ((i as i64 * 15_485_863) % 977 - 488) << 30).collect();
        let lengths: Vec<usize> =
            [0, 1, 31, 32, 33, m / 2, m - 1, m].iter().map(|&l: &usize| l.min(m)).collect();
        let k: Vec<usize> =
            [3, 1, 40, 32, 1, m / 5, m, m - 1].iter().map(|&k: &usize| k.min(m)).collect();
        for (smallest, sorted) in [(false, true), (true, false)] {
            let mode = Mode::from_smallest(smallest);
            let mut req = Request {
                lengths: Some(lengths.clone()),
                k: k.clone(),
                per_row_k: true,
                hints: None,
                threshold: true,
            };
            check((8, m, &f), &req, (mode, Bisect::exact()), (sorted, true)).unwrap();
            check((8, m, &i), &req, (mode, Bisect::exact()), (sorted, true)).unwrap();
            for (x_f, x_i) in [(true, false), (false, true)] {
                let (own, nudge) = if x_f {
                    (own_thresholds((8, m, &f), &req, mode), 1)
                } else {
                    (own_thresholds((8, m, &i), &req, mode), 2)
                };
                req.hints = Some(
                    own.iter()
                        .enumerate()
                        .map(|(r, &t)| hint_of([3, 5, 6][r % 3], t, 0.0, nudge))
                        .collect(),
                );
                if x_f {
                    check((8, m, &f), &req, (mode, Bisect::exact()), (sorted, true)).unwrap();
                }
                if x_i {
                    check((8, m, &i), &req, (mode, Bisect::exact()), (sorted, true)).unwrap();
                }
            }
        }
    }
}

/// The threshold step alone (whole rows, one k: the plain unit, then `row_threshold` on 64-bit
/// keys), with NaN payloads of both signs, ±inf, values beyond f32's range (±inf as f32) and
/// i64's extremes (rounded to f32); hints alone run the ragged twin.
#[test]
fn thresholds_alone_and_hints_alone() {
    let (n, m) = (9, 70);
    let specials = [
        f64::NAN,
        f64::from_bits(0xfff0_0000_dead_beef),
        f64::from_bits(0x7ff4_5678_9abc_def0),
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
        -1e300,
        3.4028235677973366e38, // rounds to f32::MAX's neighbourhood: ties to even
        1.0 + f64::EPSILON,
    ];
    let f: Vec<f64> = (0..n * m)
        .map(|i| {
            if i % 5 == 0 {
                specials[(i / 5) % specials.len()]
            } else {
                ((i * 31) % 97) as f64 - 40.0
            }
        })
        .collect();
    let i: Vec<i64> = (0..n * m)
        .map(|i| {
            [i64::MIN, i64::MAX, (1 << 53) + 1, -(1 << 40) - 3, 16_777_217][i % 5]
                .saturating_sub(i as i64 % 3)
        })
        .collect();
    for k in [0, 1, 13, m] {
        for (smallest, sorted) in [(false, false), (true, true), (false, true), (true, false)] {
            let mode = Mode::from_smallest(smallest);
            let req = Request {
                lengths: None,
                k: vec![k],
                per_row_k: false,
                hints: None,
                threshold: true,
            };
            for b in [Bisect::exact(), Bisect::early_stopping(3)] {
                check((n, m, &f), &req, (mode, b), (sorted, true)).unwrap();
                check((n, m, &i), &req, (mode, b), (sorted, false)).unwrap();
            }
            let own = own_thresholds((n, m, &f), &req, mode);
            let hinted = Request { hints: Some(own), threshold: false, ..req.clone() };
            check((n, m, &f), &hinted, (mode, Bisect::exact()), (sorted, true)).unwrap();
            let own = own_thresholds((n, m, &i), &req, mode);
            let hinted = Request { hints: Some(own), ..req.clone() };
            check((n, m, &i), &hinted, (mode, Bisect::exact()), (sorted, true)).unwrap();
        }
    }
}

/// A hint at a row's own threshold ends its search at the hint test: one iteration on rows
/// whose threshold is exact in f32, where the search without a hint takes several.
#[test]
fn the_own_threshold_ends_the_search_at_once() {
    let (n, m, k) = (4, 500, 37);
    let f: Vec<f64> = (0..n * m).map(|i| ((i * 7919) % 1009) as f64 * 0.25 - 100.0).collect();
    let i: Vec<i64> = (0..n * m).map(|i| (i as i64 * 104_729) % 20_011 - 10_000).collect();
    for smallest in [false, true] {
        let mode = Mode::from_smallest(smallest);
        let req =
            Request { lengths: None, k: vec![k], per_row_k: false, hints: None, threshold: true };
        let without_f = simulate((n, m, &f), &req, (mode, Bisect::exact()), (false, true)).unwrap();
        let without_i = simulate((n, m, &i), &req, (mode, Bisect::exact()), (false, true)).unwrap();
        let hinted = Request { hints: Some(without_f.threshold.clone()), ..req.clone() };
        let with_f = simulate((n, m, &f), &hinted, (mode, Bisect::exact()), (false, true)).unwrap();
        let hinted = Request { hints: Some(without_i.threshold.clone()), ..req.clone() };
        let with_i = simulate((n, m, &i), &hinted, (mode, Bisect::exact()), (false, true)).unwrap();
        assert_eq!(with_f.iterations, vec![1; n]);
        assert_eq!(with_i.iterations, vec![1; n]);
        assert!(without_f.iterations.iter().all(|&it| it > 1), "{:?}", without_f.iterations);
        assert!(without_i.iterations.iter().all(|&it| it > 1), "{:?}", without_i.iterations);
        assert_eq!((with_f.indices, with_f.values), (without_f.indices, without_f.values));
        assert_eq!((with_i.indices, with_i.values), (without_i.indices, without_i.values));
        assert!(with_f.diagnostics.is_empty() && with_i.diagnostics.is_empty());
    }
}

/// The program of a ragged 64-bit request: the ragged twin, then the 64-bit threshold step.
#[test]
fn the_program_is_the_ragged_twin_and_the_threshold_step() {
    let args = KernelArgs {
        n: 5,
        m: 300,
        k: 7,
        mode: Mode::Largest,
        bisect: Bisect::exact(),
        mutant: None,
    };
    let all = warp_sim::rtopk::plan::Ragged {
        lengths: true,
        k_per_row: true,
        hint: true,
        threshold: true,
    };
    for elem in [warp_sim::ElemType::F64, warp_sim::ElemType::I64] {
        let p = Simulator::new(SimConfig::default()).program_ragged(&args, elem, all).unwrap();
        let names: Vec<&str> = p.steps.iter().map(|s| s.name.name()).collect();
        assert_eq!(names, ["select_rows", "row_threshold"]);
        assert!(p.steps[0].unit.is_ragged(), "{}", p.steps[0].unit);
        assert_eq!(
            p.steps[0].unit.to_string(),
            format!("rtopk_wide_rows_ragged_16{}", elem.suffix())
        );
        assert_eq!(p.steps[1].unit, warp_sim::rtopk::plan::Unit::threshold(elem));
    }
}
