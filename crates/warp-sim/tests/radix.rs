//! The radix select (docs/kernel.md, "Radix rows"; the simulator's radix.rs), forced with
//! `Strategy::Radix`: every row's answer is topk-ref's canonical top k (its oracle: the order
//! of docs/contract.md §1, ties by the lower index, in index order or sorted) and no
//! diagnostic is reported — on rows of NaN of both signs with payloads, ±inf, ±0, subnormals
//! and heavy ties straddling the k-th value, k of 1, M − 1 and M, widths that are not
//! multiples of 32, several rows each spanning several blocks, in f32, f16 and bf16, in order
//! and under shuffled schedules.

use topk_ref::oracle::{canonical_indices, canonical_sorted_indices};
use topk_ref::{Element, KeyBits, Mode, bf16, f16};
use warp_sim::{
    DeviceLimits, H100, KernelArgs, LaunchResult, Route, Schedule, SimConfig, Simulator,
    SliceSource, Strategy, launch_parallel,
};

/// A device of two SMs: a row of a few tiles then spreads over several blocks
/// (rtopk-plan's `radix_plan`: four blocks an SM over all rows).
const SMALL: DeviceLimits = DeviceLimits { sm_count: 2, ..H100 };

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
