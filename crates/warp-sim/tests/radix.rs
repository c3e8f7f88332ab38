//! The radix select (docs/kernel.md, "Radix rows"; the simulator's radix.rs), forced with
//! `Strategy::Radix`: every row's answer is topk-ref's canonical top k (its oracle: the order
//! of docs/contract.md §1, ties by the lower index, in index order or sorted) and no
//! diagnostic is reported — on rows of NaN of both signs with payloads, ±inf, ±0, subnormals
//! and heavy ties straddling the k-th value, k of 1, M − 1 and M, widths that are not
//! multiples of 32, several rows each spanning several blocks, in f32, f16 and bf16, in order
//! and under shuffled schedules; on rows whose candidates (the keys whose first digit is the
//! k-th key's or above, which the second pass keeps, each block its part's) are few and fit
//! each block's capacity, rows where they are too many to keep, and rows where a block's
//! overflow, the path each row took read off the run's coverage (`radix_candidates`,
//! `radix_overflow`, `radix_not_kept`); and, where they fit, on blocks that write from them
//! and a block that holds too many keys at or above the k-th to (`radix_listed_write`,
//! `radix_write_over_list`).

use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};
use topk_ref::{Element, KeyBits, Mode, bf16, f16};
use warp_sim::rtopk::plan::radix_capacity;
use warp_sim::{
    Branch, DeviceLimits, DiagKind, H100, KernelArgs, LaunchResult, Mutant, Route, Schedule,
    SimConfig, Simulator, SliceSource, Strategy, check_order_dependence, launch_parallel,
};

/// A device of four SMs: a row of a few tiles then spreads over several blocks (rtopk-plan's
/// `radix_tiles_per_block`: short rows take two blocks an SM over all rows, eight here).
const SMALL: DeviceLimits = DeviceLimits { sm_count: 4, ..H100 };

/// A seeded generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Hostile f32 bits: NaN of both signs with payloads, ±inf, ±0, subnormals, ±FLT_MAX, a small
/// pool of ties (most of the row, so that the k-th value lies inside a run of them) and
/// numbers.
fn hostile32(rng: &mut Rng) -> u32 {
    let r = rng.next();
    let payload = (r >> 40) as u32 & 0x3f_ffff;
    match r % 32 {
        0 => 0x7fc0_0000 | payload,
        1 => 0xffc0_0000 | payload,
        2 => 0x7f80_0000 | payload | 1,
        3 => 0xff80_0000 | payload | 1,
        4 => 0x7f80_0000,
        5 => 0xff80_0000,
        6 | 7 => 0,
        8 | 9 => 0x8000_0000,
        10 => payload | 1,
        11 => 0x8000_0000 | payload | 1,
        12 => f32::MAX.to_bits(),
        13 => (-f32::MAX).to_bits(),
        14..=25 => [1.5f32, -2.25, 7.0][(r >> 50) as usize % 3].to_bits(),
        _ => (((r >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0).to_bits(),
    }
}

/// Hostile 16-bit bits of a type whose +inf is `inf`, as [`hostile32`].
fn hostile16(rng: &mut Rng, inf: u16) -> u16 {
    let r = rng.next();
    let sign = if r >> 63 == 1 { 0x8000 } else { 0 };
    let mantissa = !inf & 0x7fff;
    match r % 32 {
        0..=3 => sign | inf | ((r >> 20) as u16 & mantissa).max(1),
        4 | 5 => sign | inf,
        6..=9 => sign,
        10 | 11 => sign | ((r >> 20) as u16 & mantissa).max(1),
        12 | 13 => sign | (inf - 1),
        14..=25 => [0x3c00u16, 0xc000, 0x4700][(r >> 50) as usize % 3],
        _ => (r >> 24) as u16 & 0xbfff,
    }
}

/// `n * m` hostile elements of `E`.
fn matrix<E: Element>(n: usize, m: usize, seed: u64) -> Vec<E> {
    let mut rng = Rng(seed);
    let bits = |rng: &mut Rng| match E::NAME {
        "f16" => u32::from(hostile16(rng, 0x7c00)),
        "bf16" => u32::from(hostile16(rng, 0x7f80)),
        _ => hostile32(rng),
    };
    (0..n * m).map(|_| E::from_bits(E::Key::from_u32(bits(&mut rng)))).collect()
}

fn args(n: usize, m: usize, k: usize, mode: Mode) -> KernelArgs {
    KernelArgs { n, m, k, mode, bisect: topk_ref::Bisect::exact(), mutant: None }
}

/// Runs `x` (`n` rows of `m`) through the radix select and checks each row against the
/// canonical top k; returns the result.
fn check<E: Element>(
    config: SimConfig,
    (n, m, x): (usize, usize, &[E]),
    k: usize,
    mode: Mode,
) -> LaunchResult<E> {
    let got = Simulator::new(config).run(x, &args(n, m, k, mode)).expect("the radix select runs");
    assert_canonical(config, (0, m, x), k, mode, &got);
    got
}

/// Asserts that `got`, the result of rows `first ..` of `x` (rows of `m`), is the canonical top
/// k of each, with no diagnostic, from a radix select.
fn assert_canonical<E: Element>(
    config: SimConfig,
    (first, m, x): (usize, usize, &[E]),
    k: usize,
    mode: Mode,
    got: &LaunchResult<E>,
) {
    let what = format!("{} M={m} k={k} {mode:?} sorted={}", E::NAME, config.sorted);
    assert!(matches!(got.route, Route::Radix(_)), "{what}: not a radix select");
    assert!(got.diagnostics.is_empty(), "{what}: {}", got.summary);
    assert_eq!(got.indices.len() % k, 0, "{what}");
    for r in 0..got.indices.len() / k {
        let row = &x[(first + r) * m..(first + r + 1) * m];
        let want = match config.sorted {
            true => canonical_sorted_indices(row, k, mode),
            false => canonical_indices(row, k, mode),
        };
        assert_eq!(&got.indices[r * k..(r + 1) * k], want.as_slice(), "{what}: row {r}");
        let bits = |v: &[E]| v.iter().map(|e| e.to_bits().to_u64()).collect::<Vec<_>>();
        let want_values: Vec<E> = want.iter().map(|&i| row[i as usize]).collect();
        assert_eq!(bits(&got.values[r * k..(r + 1) * k]), bits(&want_values), "{what}: row {r}");
    }
}

fn config(limits: DeviceLimits, sorted: bool) -> SimConfig {
    SimConfig { strategy: Strategy::Radix, sorted, limits, ..SimConfig::default() }
}

/// The blocks per row of a result's radix select.
fn blocks_per_row<E>(r: &LaunchResult<E>) -> u32 {
    match r.route {
        Route::Radix(p) => p.blocks_per_row,
        _ => 0,
    }
}

#[test]
fn f32_rows_of_several_blocks_are_the_canonical_top_k() {
    let (n, m) = (2, 9000); // three blocks a row, the last part 808 wide
    let x = matrix::<f32>(n, m, 1);
    for (k, mode) in [(1, Mode::Largest), (m - 1, Mode::Smallest), (m, Mode::Largest)] {
        let got = check(config(SMALL, false), (n, m, &x), k, mode);
        assert_eq!(blocks_per_row(&got), 3);
    }
    // ties straddle the k-th value: most of the row is three values
    check(config(SMALL, false), (n, m, &x), 3000, Mode::Largest);
    check(config(SMALL, true), (n, m, &x), 777, Mode::Smallest);
}

#[test]
fn parts_of_two_tiles_over_three_rows_are_the_canonical_top_k() {
    // three rows on two SMs: three blocks a row, each of two tiles, the last one shorter
    let (n, m) = (3, 17_003);
    let x = matrix::<f32>(n, m, 2);
    let got = check(config(SMALL, false), (n, m, &x), 5000, Mode::Largest);
    assert_eq!(blocks_per_row(&got), 3);
}

#[test]
fn sixteen_bit_rows_are_the_canonical_top_k() {
    let (n, m) = (2, 9001);
    let h = matrix::<f16>(n, m, 3);
    check(config(SMALL, false), (n, m, &h), 4500, Mode::Smallest);
    check(config(SMALL, false), (n, m, &h), m - 1, Mode::Largest);
    let b = matrix::<bf16>(n, m, 4);
    check(config(SMALL, true), (n, m, &b), 1, Mode::Smallest);
    check(config(SMALL, false), (n, m, &b), 2048, Mode::Largest);
}

#[test]
fn shuffled_schedules_find_the_same_answer_and_nothing_to_report() {
    let (n, m) = (1, 9000);
    let x = matrix::<bf16>(n, m, 5);
    for seed in [1, 2] {
        let shuffled = SimConfig { schedule: Schedule::Shuffled { seed }, ..config(SMALL, false) };
        check(shuffled, (n, m, &x), 1234, Mode::Largest);
    }
}

#[test]
fn windows_of_rows_and_parallel_windows_are_the_canonical_top_k() {
    // 20 rows of 9000: two windows of rows (a window is 2^17 elements), each with its own
    // rows of the radix words
    let (n, m, k) = (20, 9000, 4321);
    let x = matrix::<f32>(n, m, 6);
    let config = config(H100, false);
    let got = launch_parallel(&x, &args(n, m, k, Mode::Largest), config).unwrap();
    assert_canonical(config, (0, m, &x), k, Mode::Largest, &got);
    assert_eq!(blocks_per_row(&got), 3);
    // some rows of the grid alone
    let src = SliceSource::new(&x, m as u64);
    let mut sim = Simulator::new(config);
    let got = sim.run_rows(&src, &args(n, m, k, Mode::Smallest), 15..17).unwrap();
    assert_canonical(config, (15, m, &x), k, Mode::Smallest, &got);
}

#[test]
fn every_row_selects_everything_at_k_equal_to_m() {
    let (n, m) = (3, 8193); // three blocks a row, the last of one element
    let h = matrix::<f16>(n, m, 7);
    let got = check(config(SMALL, true), (n, m, &h), m, Mode::Smallest);
    assert_eq!(blocks_per_row(&got), 3);
    check(config(SMALL, false), (n, m, &h), m, Mode::Largest);
}

/// The blocks of a result's rows whose candidates were read, by the write's path: from their
/// candidates, or from their part (more than `RADIX_WRITE_LIST` keys at or above the k-th).
fn writes<E>(r: &LaunchResult<E>) -> (u64, u64) {
    let blocks = |b: Branch| r.coverage.branches.get(b.name()).copied().unwrap_or(0);
    (blocks(Branch::RadixListedWrite), blocks(Branch::RadixWriteOverList))
}

/// The rows of a result by the path each took: its candidates kept and read by the steps after
/// the second pass; kept, but a block's past its capacity (the row read again); or not kept,
/// the first pass finding more than `m / RADIX_KEEP_SHARE` (the row read again).
fn paths<E>(r: &LaunchResult<E>) -> (u64, u64, u64) {
    let rows = |b: Branch| r.coverage.branches.get(b.name()).copied().unwrap_or(0);
    (rows(Branch::RadixCandidates), rows(Branch::RadixOverflow), rows(Branch::RadixNotKept))
}

/// A block's capacity in a result's radix select: an eighth of its slice.
fn capacity<E>(r: &LaunchResult<E>) -> u64 {
    match r.route {
        Route::Radix(p) => radix_capacity(u64::from(p.slice)),
        _ => 0,
    }
}

/// A row of `m`: `parts` (`count` copies each of an f32's bits) and the rest `fill(t)` for `t`
/// evenly over `[0, 1)`, at seeded places: rows of one composition but their seeds hold the
/// same values.
fn composed(m: usize, seed: u64, parts: &[(u32, usize)], fill: impl Fn(f64) -> f32) -> Vec<f32> {
    let mut row: Vec<f32> =
        parts.iter().flat_map(|&(bits, n)| std::iter::repeat_n(f32::from_bits(bits), n)).collect();
    let rest = m - row.len();
    row.extend((0..rest).map(|i| fill(i as f64 / rest as f64)));
    let mut rng = Rng(seed);
    for i in (1..m).rev() {
        row.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    row
}

/// Numbers evenly over `[lo, hi)`.
fn uniform(lo: f32, hi: f32) -> impl Fn(f64) -> f32 {
    move |t| lo + (hi - lo) * t as f32
}

/// Numbers of both signs, their magnitudes evenly over the binades `2^lo .. 2^hi`: a first
/// digit (the sign, the exponent, the mantissa's top bits) holds few of them.
fn log_uniform(lo: f64, hi: f64) -> impl Fn(f64) -> f32 {
    move |t| {
        let magnitude = (lo + (hi - lo) * (2.0 * t).fract()).exp2() as f32;
        if t < 0.5 { magnitude } else { -magnitude }
    }
}

/// `n` rows of `row(r)`, as `E`.
fn rows_of<E: Element>(n: usize, row: impl Fn(usize) -> Vec<f32>) -> Vec<E> {
    (0..n).flat_map(row).map(E::from_f32).collect()
}

/// The k whose k-th value in `mode` is `v`'s, half its ties in the top k and half not.
fn k_amid<E: Element>(row: &[E], v: f32, mode: Mode) -> usize {
    let key = |x: f32| topk_ref::order::key(x, mode);
    let t = key(v);
    let above = row.iter().filter(|x| key(x.to_f32()) > t).count();
    let at = row.iter().filter(|x| key(x.to_f32()) == t).count();
    assert!(at >= 2, "{v} {mode:?}: {at} ties");
    above + at / 2
}

/// Rows of numbers over many binades: the k-th key's first digit (11 bits: the sign, the
/// exponent, two bits of the mantissa) and the digits above it hold few of them, under
/// `m / RADIX_KEEP_SHARE` (140) and under a part's capacity (512), so the second pass keeps
/// them, the third and the count read them, and every block writes from them.
#[test]
fn rows_whose_candidates_fit_read_them_after_the_second_pass() {
    let (n, m) = (2, 9000);
    let x: Vec<f32> = rows_of(n, |r| composed(m, 10 + r as u64, &[], log_uniform(-30.0, 30.0)));
    for (k, mode, sorted) in [
        (1, Mode::Largest, false),
        (64, Mode::Largest, false),
        (100, Mode::Smallest, true),
        (90, Mode::Largest, false),
    ] {
        let got = check(config(SMALL, sorted), (n, m, &x), k, mode);
        assert_eq!((blocks_per_row(&got), capacity(&got)), (3, 512)); // parts of 4096, 4096, 808
        assert_eq!(paths(&got), (n as u64, 0, 0), "k = {k} {mode:?}");
        assert_eq!(writes(&got), (3 * n as u64, 0), "k = {k} {mode:?}");
    }
}

/// Rows whose k-th key's first digit holds more than `m / RADIX_KEEP_SHARE` keys: the second
/// pass keeps none, and every step reads the row.
#[test]
fn rows_of_many_candidates_read_the_row() {
    let (n, m) = (2, 9000);
    // evenly over [-4, 4): a digit of [2, 4) holds a 16th of the row
    let even: Vec<f32> = rows_of(n, |r| composed(m, 20 + r as u64, &[], uniform(-4.0, 4.0)));
    let equal: Vec<f32> = vec![1.0; n * m];
    // 30% of the row at 2.0, the k-th value among them
    let parts = [(2.0f32.to_bits(), 2700)];
    let ties: Vec<f32> = rows_of(n, |r| composed(m, 30 + r as u64, &parts, uniform(-4.0, 4.0)));
    let k_ties = k_amid(&ties[..m], 2.0, Mode::Largest);
    for (x, k, mode) in [
        (&even, 1000, Mode::Largest),
        (&even, 2000, Mode::Smallest),
        (&equal, 100, Mode::Largest),
        (&equal, m, Mode::Smallest),
        (&ties, k_ties, Mode::Largest),
    ] {
        let got = check(config(SMALL, false), (n, m, x), k, mode);
        assert_eq!(paths(&got), (0, 0, n as u64), "k = {k} {mode:?}");
    }
    check(config(SMALL, true), (n, m, &ties), k_ties, Mode::Largest);
}

/// Rows of 25 blocks, each taking its own path in one launch: one whose candidates fit; one
/// of a single value (not kept); one whose 1000 keys at the k-th value, above every other
/// (under m / 64 = 1562), lie together in one part, past its capacity of 512 (kept,
/// overflowed: the third pass, the count and the write read the row).
#[test]
fn each_row_of_a_launch_takes_its_own_path() {
    let (n, m) = (3, 100_000);
    let x: Vec<f32> = rows_of(n, |r| match r {
        0 => composed(m, 40, &[], log_uniform(-30.0, 30.0)),
        1 => vec![-3.5; m],
        _ => {
            let mut row = composed(m, 42, &[], log_uniform(-30.0, 30.0));
            row[50_000..51_000].fill(5.0e9);
            row
        }
    });
    let k = k_amid(&x[2 * m..], 5.0e9, Mode::Largest);
    let got = check(config(H100, false), (n, m, &x), k, Mode::Largest);
    assert_eq!((blocks_per_row(&got), capacity(&got)), (25, 512));
    assert_eq!(paths(&got), (1, 1, 1));
    assert_eq!(writes(&got), (25, 0));
    let got = check(config(H100, true), (1, m, &x[2 * m..]), k, Mode::Largest);
    assert_eq!(paths(&got), (0, 1, 0));
}

/// A row whose 1200 copies of 5e9, above every other value, lie in one part of 16384 (parts
/// of four tiles: a capacity of 2048), the k-th value among them or just below them: every
/// block's candidates fit (under m / 64 = 1562 in all), the one block holds more keys at or
/// above the k-th than `RADIX_WRITE_LIST` (1024) and reads its part for its results, the
/// others write from their candidates. Both ways agree with the oracle, ties taken by index.
#[test]
fn a_block_of_more_keys_than_its_list_reads_its_part() {
    let (n, m) = (1, 100_000);
    let mut row = composed(m, 44, &[], log_uniform(-30.0, 30.0));
    row[40_000..41_200].fill(5.0e9);
    let x: Vec<f32> = rows_of(n, |_| row.clone());
    for k in [k_amid(&x, 5.0e9, Mode::Largest), 1300] {
        let got = check(config(SMALL, false), (n, m, &x), k, Mode::Largest);
        assert_eq!((blocks_per_row(&got), capacity(&got)), (7, 2048));
        assert_eq!(paths(&got), (1, 0, 0), "k = {k}");
        assert_eq!(writes(&got), (6, 1), "k = {k}");
    }
}

/// 16-bit rows: two digit passes, the second (which keeps the candidates) the last, so the
/// count and the write alone read them.
#[test]
fn sixteen_bit_rows_keep_their_candidates_on_the_last_pass() {
    let (n, m) = (2, 9001);
    let numbers = |r: usize| composed(m, 50 + r as u64, &[], log_uniform(-10.0, 10.0));
    // 100 at 2^31, above every other, and the k-th value among them: its digit holds them alone
    let parts = [(2.0f32.powi(31).to_bits(), 100)];
    let ties = |r: usize| composed(m, 60 + r as u64, &parts, log_uniform(-30.0, 30.0));
    let h: Vec<f16> = rows_of(n, numbers);
    let b: Vec<bf16> = rows_of(n, ties);
    for (k, mode) in [(1, Mode::Smallest), (100, Mode::Largest), (120, Mode::Smallest)] {
        let got = check(config(SMALL, false), (n, m, &h), k, mode);
        assert_eq!(paths(&got), (n as u64, 0, 0), "f16 k = {k} {mode:?}");
        assert_eq!(writes(&got), (3 * n as u64, 0), "f16 k = {k} {mode:?}");
    }
    let k = k_amid(&b[..m], 2.0f32.powi(31), Mode::Largest);
    assert_eq!(k, k_amid(&b[m..], 2.0f32.powi(31), Mode::Largest), "the rows hold the same values");
    for sorted in [false, true] {
        let got = check(config(SMALL, sorted), (n, m, &b), k, Mode::Largest);
        assert_eq!(paths(&got), (n as u64, 0, 0));
    }
    // one value, or evenly over [0.5, 1) (a 32nd of f16's binade a digit: 281): not kept
    let equal: Vec<bf16> = vec![bf16::from_f32(-0.75); n * m];
    let got = check(config(SMALL, false), (n, m, &equal), 300, Mode::Largest);
    assert_eq!(paths(&got), (0, 0, n as u64));
    let half: Vec<f16> = rows_of(n, |r| composed(m, 70 + r as u64, &[], uniform(0.5, 1.0)));
    let got = check(config(SMALL, false), (n, m, &half), 4000, Mode::Smallest);
    assert_eq!(paths(&got), (0, 0, n as u64));
}

/// Rows of NaN of both signs with payloads, ±inf and ±0 over numbers below 1, few enough that
/// the second pass keeps the candidates at each of them, and k-th values among each of them,
/// ties straddling T inside the candidates.
#[test]
fn ties_straddling_the_kth_value_inside_the_candidates_are_the_canonical_top_k() {
    let (n, m) = (2, 9000);
    let parts = [
        (0x7fc0_0001, 10), // NaN, payloads, both signs: 40
        (0x7f80_0123, 10),
        (0xffc0_4000, 10),
        (0xff80_0007, 10),
        (0x7f80_0000, 20), // +inf
        (0xff80_0000, 20), // -inf
        (0x0000_0000, 10), // +0
        (0x8000_0000, 10), // -0
        (0x4000_0000, 30), // 2.0
    ];
    let x: Vec<f32> = rows_of(n, |r| composed(m, 80 + r as u64, &parts, uniform(-1000.0, 1.0)));
    let (l, s) = (Mode::Largest, Mode::Smallest);
    let nan = f32::from_bits(0xffc0_4000);
    for (v, mode) in [(nan, l), (f32::INFINITY, l), (2.0, l), (-0.0, l), (f32::NEG_INFINITY, s)] {
        let k = k_amid(&x[..m], v, mode);
        assert_eq!(k, k_amid(&x[m..], v, mode), "the rows hold the same values");
        for sorted in [false, true] {
            let got = check(config(SMALL, sorted), (n, m, &x), k, mode);
            assert_eq!(paths(&got), (n as u64, 0, 0), "{v} {mode:?}");
            assert_eq!(writes(&got), (3 * n as u64, 0), "{v} {mode:?}");
        }
    }
    let shuffled = SimConfig { schedule: Schedule::Shuffled { seed: 3 }, ..config(SMALL, false) };
    check(shuffled, (n, m, &x), k_amid(&x[..m], 2.0, l), l);
}

/// The seeded bug `radix-candidates-without-ties` drops the ties at T from the candidates'
/// counts: caught where the count reads the candidates (the row's results fall short of k),
/// never where it reads the row.
#[test]
fn a_count_of_the_candidates_without_their_ties_is_caught() {
    let m = 9000;
    let mutant = |n, k| KernelArgs {
        mutant: Some(Mutant::RadixCandidatesWithoutTies),
        ..args(n, m, k, Mode::Largest)
    };
    let fit: Vec<f32> = composed(m, 90, &[], log_uniform(-30.0, 30.0));
    let got = Simulator::new(config(SMALL, false)).run(&fit, &mutant(1, 100)).unwrap();
    assert_eq!(paths(&got), (1, 0, 0));
    assert!(got.summary.count(DiagKind::AssertFailed) > 0, "{}", got.summary);
    let many: Vec<f32> = vec![1.0; m];
    let got = Simulator::new(config(SMALL, false)).run(&many, &mutant(1, 3000)).unwrap();
    assert_eq!(paths(&got), (0, 0, 1));
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
}

/// The seeded bug `radix-write-in-list-order` places a block's results by their order
/// in its gathered list, not by index: the list's order is the atomics', so shuffled schedules
/// write other results (an order dependence), and the in-order one is not the canonical top k.
/// A block that reads its part (a row whose candidates are not kept) is untouched.
#[test]
fn a_listed_write_in_the_lists_order_is_caught() {
    let m = 9000;
    let mutant = |k| KernelArgs {
        mutant: Some(Mutant::RadixWriteInListOrder),
        ..args(1, m, k, Mode::Largest)
    };
    let fit: Vec<f32> = composed(m, 92, &[(0x7f80_0000, 40)], log_uniform(-30.0, 30.0));
    let k = k_amid(&fit, f32::INFINITY, Mode::Largest);
    let config = config(SMALL, false);
    let got = Simulator::new(config).run(&fit, &mutant(k)).unwrap();
    assert_eq!((paths(&got), writes(&got)), ((1, 0, 0), (3, 0)));
    assert_ne!(got.indices, canonical_indices(&fit, k, Mode::Largest));
    let found = check_order_dependence(&fit, &mutant(k), config, &[1, 2]).unwrap();
    assert!(found.iter().any(|d| d.kind == DiagKind::OrderDependence), "{found:?}");
    let many: Vec<f32> = vec![1.0; m];
    let got = Simulator::new(config).run(&many, &mutant(3000)).unwrap();
    assert_eq!(paths(&got), (0, 0, 1));
    assert!(got.diagnostics.is_empty(), "{}", got.summary);
}

/// A device of one SM: one row of 16 tiles takes two blocks of eight, parts long enough for
/// the sample (rtopk-plan's `RADIX_SAMPLE_MIN_TILES`), which reads tile 0 of the row.
const ONE: DeviceLimits = DeviceLimits { sm_count: 1, ..H100 };

/// The rows of a result whose candidates the first pass kept, after the sample; and those
/// whose first pass kept keys from the sample's floor that the row then read again.
fn kept_first<E>(r: &LaunchResult<E>) -> (u64, u64) {
    let rows = |b: Branch| r.coverage.branches.get(b.name()).copied().unwrap_or(0);
    (rows(Branch::RadixKeptFirst), rows(Branch::RadixFloorMissed))
}

/// Whether a result's radix select ran a sample first.
fn sampled<E>(r: &LaunchResult<E>) -> bool {
    matches!(r.route, Route::Radix(p) if p.sample)
}

/// Rows of numbers over many binades, of parts of eight tiles: the sample's floor lies below
/// the k-th key's first digit, so the first pass keeps the candidates, every later step reads
/// them and the row is read once — in f32, f16 and bf16, both modes, sorted or not. At k = 700
/// the sample's share of k stands for more than `m / RADIX_KEEP_SHARE` keys: no floor, and the
/// second pass keeps them as before.
#[test]
fn rows_sampled_before_the_first_pass_keep_their_candidates_on_it() {
    let (n, m) = (2, 16 * 4096);
    let x: Vec<f32> = rows_of(n, |r| composed(m, 100 + r as u64, &[], log_uniform(-30.0, 30.0)));
    for (k, mode, sorted) in
        [(1, Mode::Largest, false), (100, Mode::Smallest, true), (64, Mode::Largest, false)]
    {
        let got = check(config(ONE, sorted), (n, m, &x), k, mode);
        assert!(sampled(&got) && blocks_per_row(&got) == 2, "k = {k}");
        assert_eq!((paths(&got), kept_first(&got)), ((n as u64, 0, 0), (n as u64, 0)), "k = {k}");
    }
    let got = check(config(ONE, false), (n, m, &x), 700, Mode::Largest);
    assert_eq!((paths(&got), kept_first(&got)), ((n as u64, 0, 0), (0, 0)));
    // f16's binades from 2^-10 to 2^10 (32 first digits a binade), bf16's from 2^-30 to 2^30
    // (four, as f32's)
    let numbers = |r: usize| composed(m, 110 + r as u64, &[], log_uniform(-10.0, 10.0));
    let h: Vec<f16> = rows_of(n, numbers);
    let b: Vec<bf16> = rows_of(n, |r| composed(m, 110 + r as u64, &[], log_uniform(-30.0, 30.0)));
    for (k, mode) in [(1, Mode::Smallest), (100, Mode::Largest)] {
        let got = check(config(ONE, false), (n, m, &h), k, mode);
        assert_eq!(
            (paths(&got), kept_first(&got)),
            ((n as u64, 0, 0), (n as u64, 0)),
            "f16 k = {k}"
        );
        let got = check(config(ONE, k == 1), (n, m, &b), k, mode);
        assert_eq!(
            (paths(&got), kept_first(&got)),
            ((n as u64, 0, 0), (n as u64, 0)),
            "bf16 k = {k}"
        );
    }
}

/// A row whose sampled tile (the first) holds its 4096 largest values, about eight to a first
/// digit: the sample's floor (about 50 of them at or above it) lies above the 100th value's
/// first digit, so the first pass's candidates miss some of the top 100 and the second pass
/// keeps them again from the row; and a row whose second part is 32768 copies of its largest
/// value, all above the sample's floor: that part's block keeps more than its capacity (4096),
/// and the row is read again. Both answers are the canonical top k.
#[test]
fn a_sample_that_misleads_costs_a_pass_not_the_answer() {
    let (m, tile) = (16 * 4096, 4096);
    let binades = |lo: f64, hi: f64, t: f64| (lo + (hi - lo) * t).exp2() as f32;
    let high: Vec<f32> = (0..m)
        .map(|i| match i < tile {
            true => binades(0.0, 126.0, i as f64 / tile as f64),
            false => binades(-100.0, -1.0, (i - tile) as f64 / (m - tile) as f64),
        })
        .collect();
    let got = check(config(ONE, false), (1, m, &high), 100, Mode::Largest);
    assert!(sampled(&got));
    assert_eq!((paths(&got), kept_first(&got)), ((1, 0, 0), (0, 1)));
    let mut crowded = composed(m, 120, &[], log_uniform(-30.0, 30.0));
    crowded[m / 2..].fill(1.0e30);
    let got = check(config(ONE, true), (1, m, &crowded), 100, Mode::Largest);
    assert!(sampled(&got));
    assert_eq!((paths(&got), kept_first(&got)), ((0, 0, 1), (0, 1)));
}
