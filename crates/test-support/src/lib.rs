//! Property-test strategies shared by every crate's oracle and equivalence tests, so that all
//! algorithms are checked against the same hostile inputs: NaN of both signs and odd payloads,
//! ±inf, ±0.0, subnormals, ±FLT_MAX, adjacent floats, heavy ties, widths that are not
//! multiples of 32, and k ∈ {0, 1, M−1, M} or anything in between.

#![forbid(unsafe_code)]

use proptest::prelude::*;

/// Values that sit on the edges of the order.
pub fn special() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(-f32::NAN),
        (1u32..0x40_0000).prop_map(|p| f32::from_bits(0x7f80_0000 | p)),
        (1u32..0x40_0000).prop_map(|p| f32::from_bits(0xff80_0000 | p)),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0f32),
        Just(-0.0f32),
        (1u32..0x80_0000, any::<bool>()).prop_map(|(b, neg)| subnormal(b, neg)),
        Just(f32::MAX),
        Just(-f32::MAX),
        Just(f32::MIN_POSITIVE),
        Just(-f32::MIN_POSITIVE),
    ]
}

fn subnormal(bits: u32, negative: bool) -> f32 {
    let v = f32::from_bits(bits);
    if negative { -v } else { v }
}

/// Ordinary numbers, plus neighbours in ulps so that adjacent floats are common.
pub fn ordinary() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -1.0e3f32..1.0e3f32,
        1 => (0u32..8).prop_map(|d| f32::from_bits(1.0f32.to_bits() + d)),
        1 => any::<f32>().prop_filter("a number", |v| v.is_finite()),
    ]
}

/// One element of a row of `flavour` (0..4): ordinary; ordinary laced with specials; only
/// values of `pool` (heavy ties); pool, ordinary and specials mixed.
pub fn element(pool: Vec<f32>, flavour: u8) -> BoxedStrategy<f32> {
    let from_pool = prop::sample::select(pool);
    match flavour {
        0 => ordinary().boxed(),
        1 => prop_oneof![8 => ordinary(), 2 => special()].boxed(),
        2 => from_pool.boxed(),
        _ => prop_oneof![4 => from_pool, 4 => ordinary(), 2 => special()].boxed(),
    }
}

/// A pool of 1–4 values for the tie-heavy flavours.
pub fn pool() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(prop_oneof![ordinary(), special()], 1..5)
}

/// Row widths: mostly short, some long, never more than `max`.
pub fn width(max: usize) -> impl Strategy<Value = usize> {
    prop_oneof![3 => 1usize..40.min(max), 2 => 1usize..300.min(max), 1 => 1usize..max]
}

/// A row of width up to `max_width` of one of the four flavours of [`element`].
pub fn row(max_width: usize) -> impl Strategy<Value = Vec<f32>> {
    (width(max_width), pool(), 0u8..4)
        .prop_flat_map(|(len, pool, flavour)| prop::collection::vec(element(pool, flavour), len))
}

/// `(n, m, values)`: 1–4 rows of one width up to `max_width`, row-major, one flavour.
pub fn matrix(max_width: usize) -> impl Strategy<Value = (usize, usize, Vec<f32>)> {
    (width(max_width), 1usize..5, pool(), 0u8..4).prop_flat_map(|(m, n, pool, flavour)| {
        (Just(n), Just(m), prop::collection::vec(element(pool, flavour), n * m))
    })
}

/// k for width `m`: `which` 0 → 0, 1 → 1, 2 → M−1, 3 → M, else `frac` of M.
pub fn pick_k(m: usize, which: u8, frac: f64) -> usize {
    match which {
        0 => 0,
        1 => 1.min(m),
        2 => m.saturating_sub(1),
        3 => m,
        _ => ((m as f64) * frac) as usize,
    }
}
