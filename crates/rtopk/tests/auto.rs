//! `auto` on the CPU (rtopk::auto): rows long against k run on the heap, given up for `bisect`
//! where the row's order lets too many elements in, rows at k = 1 below their width bound on
//! `bucket`, every other row on `bisect` — with the oracle's answer in every element type, on
//! long rows and short ones, on hostile rows (test-support's generators: NaN of
//! both signs and payloads, ±inf, ±0, subnormals, heavy ties, integer ends), in both modes,
//! drawn, ascending and descending in the mode; and `bisect` alone wherever a call asks for
//! what only it gives.

use ndarray::Array2;
use proptest::prelude::*;
use rtopk::auto::{
    BUCKET_MAX_WIDTH, HEAP_MIN_WIDTH, HEAP_MIN_WIDTH_WIDE, HEAP_RATIO, RowAlgo, heap_allowance,
    row_algo,
};
use rtopk::{Mode, Options, Request, Value, WorkCounters, bf16, f16, select};
use test_support::Generated;

use crate::dtypes::assert_canonical;
use topk_ref::Element;

/// `base` repeated to `m` values, then left as drawn (`order` 0), or sorted by key in `mode`,
/// ascending (1: every element beats the heap's root) or descending (2).
fn long_row<E: Element>(base: &[E], m: usize, order: u8, mode: Mode) -> Vec<E> {
    let mut row: Vec<E> = base.iter().copied().cycle().take(m).collect();
    match order {
        1 => row.sort_by_key(|v| v.key(mode)),
        2 => row.sort_by_key(|v| std::cmp::Reverse(v.key(mode))),
        _ => {}
    }
    row
}

/// `auto`'s selection of `k` from the rows of `x` is the oracle's, indices and value bits;
/// its work.
fn assert_oracle<E: Value>(x: &Array2<E>, k: usize, opts: Options) -> Option<WorkCounters> {
    let request = Request::builder("auto").k(k).options(opts).build().unwrap();
    let out = select(x.view(), &request).unwrap();
    assert!(out.topk.iterations.is_none(), "nobody asked for counts");
    assert_canonical("auto", x.view(), k, opts, &out);
    out.work
}

/// One generated case in `E`: rows of `m` from `base`, k from `pick` (0: k = 1; 1: the heap's
/// k, at most m / HEAP_RATIO; else up to m).
fn check<E: Value + Generated>(base: &[E], m: usize, pick: (u8, f64), order: u8, opts: Options) {
    let (which, frac) = pick;
    let most = match which {
        0 => 1,
        1 => (m / HEAP_RATIO).max(1),
        _ => m,
    };
    let k = ((most as f64 * frac) as usize).clamp(usize::from(which < 2), most);
    let row = long_row(base, m, order, opts.mode);
    let x = Array2::from_shape_vec((2, m), [row.clone(), row].concat()).unwrap();
    assert_oracle(&x, k, opts);
}

/// A generated case of `T`: rows of `m` values, k, order, mode.
type Case<T> = (Vec<T>, usize, (u8, f64), u8, Options);

/// Any generated row of `T` and the draw's shape: 2 rows of `m` values (long: past the 16-bit
/// heap's minimum width; else 1 to 3000, about the wide keys' one), k, order, mode.
fn case<T: Generated>(long: bool) -> impl Strategy<Value = Case<T>> {
    let opts = (any::<bool>(), any::<bool>())
        .prop_map(|(smallest, sorted)| Options { mode: Mode::from_smallest(smallest), sorted });
    let base = T::row(300).prop_filter("a value", |r| !r.is_empty());
    let m = if long { HEAP_MIN_WIDTH..2 * HEAP_MIN_WIDTH + 40 } else { 1..3000 };
    (base, m, (0u8..3, 0.0f64..1.0), 0u8..3, opts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn auto_is_the_oracle_in_f32((base, m, pick, order, opts) in case::<f32>(true)) {
        check::<f32>(&base, m, pick, order, opts);
    }

    #[test]
    fn auto_is_the_oracle_in_f16((base, m, pick, order, opts) in case::<f16>(true)) {
        check::<f16>(&base, m, pick, order, opts);
    }

    #[test]
    fn auto_is_the_oracle_in_bf16((base, m, pick, order, opts) in case::<bf16>(true)) {
        check::<bf16>(&base, m, pick, order, opts);
    }

    #[test]
    fn auto_is_the_oracle_in_f64((base, m, pick, order, opts) in case::<f64>(true)) {
        check::<f64>(&base, m, pick, order, opts);
    }

    #[test]
    fn auto_is_the_oracle_in_the_integers(
        (b8, m, pick, order, opts) in case::<i8>(true),
        b32 in <i32 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
        b64 in <i64 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
    ) {
        check::<i8>(&b8, m, pick, order, opts);
        check::<i32>(&b32, m, pick, order, opts);
        check::<i64>(&b64, m, pick, order, opts);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Short rows: `bucket` at k = 1, the heap from HEAP_MIN_WIDTH_WIDE on 32- and 64-bit
    /// keys, `bisect` else.
    #[test]
    fn auto_is_the_oracle_on_short_rows(
        (b32, m, pick, order, opts) in case::<f32>(false),
        b16 in <f16 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
        bb16 in <bf16 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
        b64 in <f64 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
        i8s in <i8 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
        i32s in <i32 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
        i64s in <i64 as Generated>::row(300).prop_filter("a value", |r| !r.is_empty()),
    ) {
        check::<f32>(&b32, m, pick, order, opts);
        check::<f16>(&b16, m, pick, order, opts);
        check::<bf16>(&bb16, m, pick, order, opts);
        check::<f64>(&b64, m, pick, order, opts);
        check::<i8>(&i8s, m, pick, order, opts);
        check::<i32>(&i32s, m, pick, order, opts);
        check::<i64>(&i64s, m, pick, order, opts);
    }
}

#[test]
fn the_rule_by_key_width() {
    use RowAlgo::{Bisect, Bucket, Heap};
    let wide = HEAP_MIN_WIDTH_WIDE;
    for bits in [32, 64] {
        assert_eq!(row_algo(bits, wide - 1, 1), Bucket);
        assert_eq!(row_algo(bits, wide, 1), Heap);
        assert_eq!(row_algo(bits, wide, wide / HEAP_RATIO), Heap);
        assert_eq!(row_algo(bits, wide, wide / HEAP_RATIO + 1), Bisect);
        assert_eq!(row_algo(bits, wide - 1, 2), Bisect);
    }
    for bits in [8, 16] {
        assert_eq!(row_algo(bits, BUCKET_MAX_WIDTH - 1, 1), Bucket);
        assert_eq!(row_algo(bits, BUCKET_MAX_WIDTH, 1), Heap);
        assert_eq!(row_algo(bits, HEAP_MIN_WIDTH - 1, 2), Bisect);
        assert_eq!(row_algo(bits, HEAP_MIN_WIDTH, HEAP_MIN_WIDTH / HEAP_RATIO), Heap);
        assert_eq!(row_algo(bits, HEAP_MIN_WIDTH, HEAP_MIN_WIDTH / HEAP_RATIO + 1), Bisect);
    }
    for bits in [8, 16, 32, 64] {
        assert_eq!(row_algo(bits, 1 << 20, 0), Bisect);
        assert_eq!(row_algo(bits, 1, 1), Bucket);
    }
}

/// `auto`'s work on `x` at `k` is `algo`'s (the row ran on it).
fn runs_on<E: Value>(x: &Array2<E>, k: usize, algo: &str) {
    let auto = select(x.view(), &Request::new("auto", k).unwrap()).unwrap();
    let named = select(x.view(), &Request::new(algo, k).unwrap()).unwrap();
    assert_eq!(auto.topk.indices, named.topk.indices, "{algo} at k = {k}");
    assert_eq!(auto.work, named.work, "{algo} at k = {k}");
}

#[test]
fn each_short_row_runs_on_what_the_rule_names() {
    let row = |m: usize| Array2::from_shape_vec((3, m), scattered(3 * m)).unwrap();
    let (x, wide) = (row(HEAP_MIN_WIDTH_WIDE), HEAP_MIN_WIDTH_WIDE);
    runs_on(&row(wide - 1), 1, "bucket");
    runs_on(&x, 1, "heap");
    runs_on(&x, wide / HEAP_RATIO, "heap");
    runs_on(&x, wide / HEAP_RATIO + 1, "bisect");
    runs_on(&row(wide - 1), 2, "bisect");
    // 16-bit keys: bucket at k = 1, bisect below HEAP_MIN_WIDTH otherwise
    let x16 = x.mapv(|v| f16::from_f32(v / 16384.0));
    runs_on(&x16, 1, "bucket");
    runs_on(&x16, 2, "bisect");
    runs_on(&x.mapv(f64::from), 2, "heap");
}

/// A row of `m` distinct values in no order (a multiplicative hash of the index).
fn scattered(m: usize) -> Vec<f32> {
    (0..m as u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32).collect()
}

#[test]
fn a_row_long_against_k_takes_one_pass_and_an_ascending_one_goes_to_bisect() {
    let (m, k) = (64 * HEAP_RATIO, 64);
    assert_eq!(row_algo(32, m, k), RowAlgo::Heap);
    assert_eq!(row_algo(32, m, k + 1), RowAlgo::Bisect);
    let opts = Options::default();
    // in no order: the heap's one pass
    let x = Array2::from_shape_vec((1, m), scattered(m)).unwrap();
    let work = assert_oracle(&x, k, opts).unwrap();
    assert_eq!((work.passes, work.elements_read), (1, m as u64));
    // ascending: every element enters the heap, which is given up at the first check past
    // its allowance (after 16k elements at k = 64, far below M), and the row is bisect's, with
    // the heap's part-pass added
    assert!(heap_allowance(k, 8 * k) >= 7 * k && heap_allowance(k, 16 * k) < 15 * k);
    let ascending: Vec<f32> = (0..m).map(|i| i as f32).collect();
    let x = Array2::from_shape_vec((1, m), ascending).unwrap();
    let work = assert_oracle(&x, k, opts).unwrap();
    let bisect = select(x.view(), &Request::new("bisect", k).unwrap()).unwrap().work.unwrap();
    assert_eq!(work.passes, bisect.passes + 1);
    let spent = work.elements_read - bisect.elements_read;
    assert_eq!(spent, 16 * k as u64);
    // k above M / HEAP_RATIO: bisect's passes from the start
    let x = Array2::from_shape_vec((1, m), scattered(m)).unwrap();
    let work = assert_oracle(&x, k + 1, opts).unwrap();
    let bisect = select(x.view(), &Request::new("bisect", k + 1).unwrap()).unwrap().work.unwrap();
    assert_eq!(work, bisect);
}

#[test]
fn what_only_bisect_gives_runs_bisect_on_every_row() {
    let (m, k) = (64 * HEAP_RATIO, 8);
    let x = Array2::from_shape_vec((1, m), scattered(m)).unwrap();
    let counted = |algo: &str| Request::builder(algo).k(k).iterations(true).build().unwrap();
    let bisect = select(x.view(), &counted("bisect")).unwrap();
    let out = select(x.view(), &counted("auto")).unwrap();
    assert!(out.topk.iterations.is_some());
    assert_eq!((out.topk, out.work), (bisect.topk, bisect.work));
    let early = Request::builder("auto").k(k).max_iter(3).build().unwrap();
    let want = Request::builder("bisect").k(k).max_iter(3).build().unwrap();
    let (got, want) = (select(x.view(), &early).unwrap(), select(x.view(), &want).unwrap());
    assert_eq!((got.topk.indices, got.work), (want.topk.indices, want.work));
    // a hint reaches the rows bisect runs (its hinted work, not its plain one); the heap's rows
    // ignore it (one pass); the answer is the plain one either way
    let hinted = |algo: &str, k: usize| Request::builder(algo).k(k).hint(vec![1.0e6]).build();
    let wide = 4 * k * HEAP_RATIO;
    let (got, want) = (hinted("auto", wide).unwrap(), hinted("bisect", wide).unwrap());
    let (got, want) = (select(x.view(), &got).unwrap(), select(x.view(), &want).unwrap());
    let plain = select(x.view(), &Request::new("bisect", wide).unwrap()).unwrap();
    assert_eq!((&got.topk, got.work), (&plain.topk, want.work));
    assert_ne!(want.work, plain.work, "the hint changes bisect's work");
    let heap_row = select(x.view(), &hinted("auto", k).unwrap()).unwrap();
    let plain = select(x.view(), &Request::new("bisect", k).unwrap()).unwrap();
    assert_eq!(heap_row.topk, plain.topk);
    assert_eq!(heap_row.work.map(|w| w.passes), Some(1));
}
