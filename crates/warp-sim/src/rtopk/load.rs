//! Stage 1 of the warp-row kernels, `load_row` (the CUDA kernel's `load.cuh`): lane `sub` of a
//! row's lanes loads elements `sub * EPL .. sub * EPL + EPL - 1` (16-byte loads where the row
//! allows), keys them into registers (`key_slots`; slots past M get key 0) and keeps its
//! min and max key.

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::Lanes;
use crate::engine::warp::Warp;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::{check_keys, order_key, order_key_largest};

/// `key_slots`: the keys of a thread's loaded values `v[j]` (elements `first + j`; slots
/// past M get key 0) into `keys`, and each lane's min and max key. Threads whose slots are
/// all inside the row take a path without per-slot tests (in largest mode without the NaN
/// test: the GPU's arithmetic NaN is the canonical one, whose key is the NaN key).
pub(crate) fn key_slots(
    a: &KernelArgs,
    keys: &mut [Lanes<u32>],
    v: &[Lanes<u32>],
    first: &Lanes<u32>,
    m: u32,
    sign: f32,
) -> (Lanes<u32>, Lanes<u32>) {
    let n = keys.len() as u32;
    let mut lo = Lanes::splat(u32::MAX);
    let mut hi = Lanes::splat(0u32);
    for (j, (key, val)) in keys.iter_mut().zip(v).enumerate() {
        let j = j as u32;
        *key = Lanes::from_fn(|l| {
            let first = first.lane(l);
            let x = f32::from_bits(val.lane(l));
            let full = first.saturating_add(n) <= m;
            if full && sign > 0.0 {
                order_key_largest(a, x)
            } else if full || first.saturating_add(j) < m {
                order_key(a, x, sign)
            } else {
                0
            }
        })
        .poisoned(val.poison_mask());
        let valid = first.map(|f| f.saturating_add(j) < m);
        lo = Lanes::select(&valid, &lo.zip(key, u32::min), &lo);
        hi = hi.zip(key, u32::max); // 0 is neutral
    }
    (lo, hi)
}

/// `load_row`: the row's keys into `keys` (EPL registers); returns each lane's
/// `(lane_min, lane_max)` key. `row_off` is `row_id * M`; `vec4`: 16-byte loads (EPL % 4 == 0
/// and M % 4 == 0).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn load_row(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &dyn Source,
    row_off: &Lanes<u64>,
    keys: &mut [Lanes<u32>],
    first: &Lanes<u32>,
    vec4: bool,
) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
    let m = a.m as u32;
    let epl = keys.len();
    // every load is issued before the first key is computed
    let mut v = vec![Lanes::splat(0u32); epl];
    let inside = |w: &mut Warp<'_>, j: u32| -> Result<Lanes<bool>, SimError> {
        let i = w.add_u32(first, &Lanes::splat(j), "load_row: first + j")?;
        // BUG (LoadPastM): no `first + j < M` test.
        Ok(if a.has(Mutant::LoadPastM) { Lanes::splat(true) } else { i.map(|i| i < m) })
    };
    if vec4 && epl % 4 == 0 {
        for q in 0..epl / 4 {
            let valid = inside(w, 4 * q as u32)?; // M % 4 == 0: all 4 or none
            let saved = w.push_active(&valid, "load_row: i < M")?;
            let i = first.map(|f| u64::from(f) + 4 * q as u64);
            let addr = w.add_u64(row_off, &i, "load_row: row_in + i")?;
            let quad = w.ld_input_v4(x, &addr, "load_row: float4 row_in[i]").await?;
            for (e, val) in quad.iter().enumerate() {
                w.assign(&mut v[4 * q + e], val);
            }
            w.pop_active(saved);
        }
    } else {
        for (j, slot) in v.iter_mut().enumerate() {
            let valid = inside(w, j as u32)?;
            let saved = w.push_active(&valid, "load_row: first + j < M")?;
            let i = first.map(|f| u64::from(f) + j as u64);
            let addr = w.add_u64(row_off, &i, "load_row: row_in + first + j")?;
            let val = w.ld_input(x, &addr, "load_row: row_in[first + j]").await?;
            w.assign(slot, &val);
            w.pop_active(saved);
        }
    }
    let range = key_slots(a, keys, &v, first, m, a.sign());
    for (j, (key, val)) in keys.iter().zip(&v).enumerate() {
        let valid = first.map(|f| f.saturating_add(j as u32) < m).mask();
        check_keys(w, a.mode, val, key, valid, "key_slots: order_key is SPEC §1's key")?;
    }
    Ok(range)
}
