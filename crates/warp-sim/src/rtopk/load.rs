//! Stage 1 of the warp-row kernels, `load_row` (the CUDA kernel's `load.cuh`): lane `sub` of a
//! row's lanes loads elements `sub * EPL .. sub * EPL + EPL - 1` (16-byte loads where the row
//! allows), keys them into registers (`key_slots`; slots past M get key 0) and keeps its
//! min and max key. A 16-bit row keeps the elements themselves (`PackedRow::load_row`: ordered
//! bits two per register, `NEG_INF16` past M; docs/kernel.md, "16-bit rows").

use crate::engine::error::SimError;
use crate::engine::global::Source;
use crate::engine::lanes::Lanes;
use crate::engine::warp::Warp;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::{
    ElemType, check_keys, int_key, int_value, key16_of_ordered, neg_inf16, order_key,
    order_key_largest,
};
use crate::rtopk::rows::{PackedRow, Slots, range_full_words};

/// `key_slots`: the keys of a thread's loaded values `v[j]` (elements `first + j`; slots
/// past M get key 0) into `keys`, and each lane's min and max key. Lanes `whole` (the caller's:
/// all their slots inside the row; one choice for a warp row, [`row_whole`]) take a path
/// without per-slot tests (`key_full_slots`), the others key every slot and set those past M
/// to 0 (`key_cut_slots`). Keys in largest mode skip the NaN test (the GPU's arithmetic NaN is
/// the canonical one, whose key is the NaN key).
pub(crate) fn key_slots(
    a: &KernelArgs,
    keys: &mut [Lanes<u32>],
    v: &[Lanes<u32>],
    (first, whole): (&Lanes<u32>, &Lanes<bool>),
    m: u32,
    sign: f32,
) -> (Lanes<u32>, Lanes<u32>) {
    let mut lo = Lanes::splat(u32::MAX);
    let mut hi = Lanes::splat(0u32);
    for (j, (key, val)) in keys.iter_mut().zip(v).enumerate() {
        let j = j as u32;
        let inside = first.zip(whole, |f, whole| whole || f.saturating_add(j) < m);
        *key = Lanes::from_fn(|l| {
            let x = f32::from_bits(val.lane(l));
            let key = if sign > 0.0 { order_key_largest(a, x) } else { order_key(a, x, sign) };
            if inside.lane(l) { key } else { 0 }
        })
        .poisoned(val.poison_mask());
        lo = Lanes::select(&inside, &lo.zip(key, u32::min), &lo);
        hi = hi.zip(key, u32::max); // 0 is neutral
    }
    (lo, hi)
}

/// `row_whole<EPL, LANES>`: whether a warp row's lanes key their slots without per-slot tests
/// (`key_slots`'s `whole`), one choice for the row: all of its lanes' slots inside it. A row
/// narrower than its lanes' slots (almost every ragged row, a row narrower than its unit) has a
/// lane its end cuts or passes; lanes that each chose for themselves made the warp run both
/// paths.
pub(crate) fn row_whole(m: u32, epl: usize, width: u32) -> bool {
    u64::from(m) >= epl as u64 * u64::from(width)
}

/// `load_row`: the row's keys into `keys` (EPL registers) of an f32 row; returns each lane's
/// `(lane_min, lane_max)` key. `row_off` is `row_id * M`; `vec4`: 16-byte loads (EPL % 4 == 0,
/// 16-byte aligned rows and M % 4 == 0 — with `cut`, a ragged row's aligned row of any width,
/// the group its end cuts element by element: [`cut_group`]). `width`: a warp row's lanes (one
/// choice of `key_slots`'s path for the row, [`row_whole`]), or `None` for a block row's
/// threads, each its own.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn load_row(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &dyn Source,
    row_off: &Lanes<u64>,
    keys: &mut [Lanes<u32>],
    (first, width): (&Lanes<u32>, Option<u32>),
    (vec4, cut): (bool, bool),
) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
    let (n, label) = (keys.len(), "load_row: float4 row_in[i]");
    let v = load_elements(w, a, x, (row_off, first), n, (vec4, 4, cut), label).await?;
    key_f32_slots(w, a, keys, &v, (first, width))
}

/// `key_slots` of an f32 row's loaded bits `v` (the thread's elements `first ..`), each key
/// checked against docs/contract.md §1's; returns each lane's `(lane_min, lane_max)` key.
/// `width`: a warp row's lanes (one choice of `key_slots`'s path for the row, [`row_whole`]),
/// or `None` for a block row's threads, each its own.
pub(crate) fn key_f32_slots(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    keys: &mut [Lanes<u32>],
    v: &[Lanes<u32>],
    (first, width): (&Lanes<u32>, Option<u32>),
) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
    let (m, n) = (a.m as u32, keys.len());
    let whole = match width {
        Some(width) => Lanes::splat(row_whole(m, n, width)),
        None => first.map(|f| f.saturating_add(n as u32) <= m),
    };
    let range = key_slots(a, keys, v, (first, &whole), m, a.sign());
    for (j, (key, val)) in keys.iter().zip(v).enumerate() {
        let valid = first.map(|f| f.saturating_add(j as u32) < m).mask();
        let label = "key_slots: order_key is docs/contract.md §1's key";
        check_keys(w, a.mode, ElemType::F32, val, key, valid, label)?;
    }
    Ok(range)
}

/// `cut_group<CUT, GROUP>`: of the 16-byte group of `group` elements at `first + j`, the lanes
/// that load it whole (all of it inside the row; without `cut`, M is whole groups: any of it)
/// and those whose group the row's end cuts (`cut` only: a ragged twin's warp row, whose width
/// need not be whole groups while its row is 16-byte aligned), loaded element by element
/// ([`load_cut`]) so that nothing past M is read.
fn cut_group(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    first: &Lanes<u32>,
    (j, group): (u32, u32),
    cut: bool,
) -> Result<(Lanes<bool>, Lanes<bool>), SimError> {
    let inside = slot_inside(w, a, first, j)?;
    if !cut {
        return Ok((inside, Lanes::splat(false)));
    }
    let end = slot_inside(w, a, first, j + group - 1)?;
    let part = inside.zip(&end, |i, e| i && !e);
    Ok((end, part))
}

/// The elements of a cut group ([`cut_group`]) in the lanes `part`, element by element: the
/// group's slots `v` (elements `first + j ..`), 0 past M.
async fn load_cut(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &dyn Source,
    (row_off, first): (&Lanes<u64>, &Lanes<u32>),
    part: &Lanes<bool>,
    (v, j): (&mut [Lanes<u32>], usize),
) -> Result<(), SimError> {
    if !part.values().iter().any(|&p| p) {
        return Ok(()); // no lane's group is cut: the kernel's branch is not taken
    }
    for (e, slot) in v.iter_mut().enumerate() {
        let inside = slot_inside(w, a, first, (j + e) as u32)?;
        let valid = part.zip(&inside, |p, i| p && i);
        let saved = w.push_active(&valid, "load_row: cut_group: i + j < M")?;
        let i = first.map(|f| u64::from(f) + (j + e) as u64);
        let addr = w.add_u64(row_off, &i, "load_row: row_in + i + j")?;
        let val = w.ld_input(x, &addr, "load_row: row_in[i + j]").await?;
        w.assign(slot, &val);
        w.pop_active(saved);
    }
    Ok(())
}

/// `first + j < M` in every lane (every lane under [`Mutant::LoadPastM`]).
fn slot_inside(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    first: &Lanes<u32>,
    j: u32,
) -> Result<Lanes<bool>, SimError> {
    let i = w.add_u32(first, &Lanes::splat(j), "load_row: first + j")?;
    // BUG (LoadPastM): no `first + j < M` test.
    Ok(if a.has(Mutant::LoadPastM) { Lanes::splat(true) } else { i.map(|i| i < a.m as u32) })
}

/// A thread's `n` 16-bit elements `first ..` (the bits, 0 past M): 16-byte loads of 8 where
/// `vec` (n % 8 == 0, M % 8 == 0, 16-byte aligned rows: all 8 or none inside; with `cut`, any
/// M: [`cut_group`]), else 2-byte loads. Every load is issued before the elements are used.
pub(crate) async fn load_halves(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &dyn Source,
    row_off: &Lanes<u64>,
    first: &Lanes<u32>,
    n: usize,
    (vec, cut): (bool, bool),
) -> Result<Vec<Lanes<u32>>, SimError> {
    load_elements(w, a, x, (row_off, first), n, (vec, 8, cut), UINT4).await
}

/// The 16-byte load of the 16-bit and integer rows (`load_pairs16`, `load_ints`).
const UINT4: &str = "load_row: uint4 row_in[i]";

/// A thread's `n` elements `first ..` (the bits, 0 past M): 16-byte loads of `group` (the
/// elements in 16 bytes: 4, 8 or 16; `label` names the load) where `vec` (n % group == 0,
/// M % group == 0, 16-byte aligned rows: all of a group or none inside; with `cut`, any M:
/// [`cut_group`]), else one element each (`load_row`, `load_pairs16`, `load_ints`). Every load
/// is issued before the elements are used.
async fn load_elements(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    x: &dyn Source,
    (row_off, first): (&Lanes<u64>, &Lanes<u32>),
    n: usize,
    (vec, group, cut): (bool, usize, bool),
    label: &'static str,
) -> Result<Vec<Lanes<u32>>, SimError> {
    let mut v = vec![Lanes::splat(0u32); n];
    if vec && n % group == 0 {
        for q in 0..n / group {
            // all of the group or none, but for the group `cut` cuts
            let (whole, part) = cut_group(w, a, first, ((group * q) as u32, group as u32), cut)?;
            let saved = w.push_active(&whole, "load_row: i < M")?;
            let i = first.map(|f| u64::from(f) + (group * q) as u64);
            let addr = w.add_u64(row_off, &i, "load_row: row_in + i")?;
            let got: Vec<Lanes<u32>> = match group {
                4 => w.ld_input_v4(x, &addr, label).await?.to_vec(),
                8 => w.ld_input_v8(x, &addr, label).await?.to_vec(),
                _ => w.ld_input_v16(x, &addr, label).await?.to_vec(),
            };
            for (e, val) in got.iter().enumerate() {
                w.assign(&mut v[group * q + e], val);
            }
            w.pop_active(saved);
            let slots = &mut v[group * q..group * (q + 1)];
            load_cut(w, a, x, (row_off, first), &part, (slots, group * q)).await?;
        }
        return Ok(v);
    }
    for (j, slot) in v.iter_mut().enumerate() {
        let valid = slot_inside(w, a, first, j as u32)?;
        let saved = w.push_active(&valid, "load_row: first + j < M")?;
        let i = first.map(|f| u64::from(f) + j as u64);
        let addr = w.add_u64(row_off, &i, "load_row: row_in + first + j")?;
        let val = w.ld_input(x, &addr, "load_row: row_in[first + j]").await?;
        w.assign(slot, &val);
        w.pop_active(saved);
    }
    Ok(v)
}

/// `load_ints`: a thread's `n` integers `first ..` (their bits, 0 past M): 16-byte loads of
/// `16 / bytes` where `vec` and the slots fill whole 16-byte groups (with `cut`, the group M
/// cuts element by element: [`cut_group`]), else one element each.
pub(crate) async fn load_ints(
    w: &mut Warp<'_>,
    (a, elem): (&KernelArgs, ElemType),
    x: &dyn Source,
    (row_off, first): (&Lanes<u64>, &Lanes<u32>),
    n: usize,
    (vec, cut): (bool, bool),
) -> Result<Vec<Lanes<u32>>, SimError> {
    load_elements(w, a, x, (row_off, first), n, (vec, 16 / elem.bytes(), cut), UINT4).await
}

/// `key_ints`: the keys of a thread's loaded integers `v[j]` (elements `first + j`; `int_key`,
/// 0 past M) into `keys`, and each lane's min and max key over its slots inside the row; each
/// key checked against topk-ref's (docs/kernel.md, "Integer rows").
pub(crate) fn key_ints(
    w: &mut Warp<'_>,
    (a, elem): (&KernelArgs, ElemType),
    keys: &mut [Lanes<u32>],
    v: &[Lanes<u32>],
    first: &Lanes<u32>,
) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
    let (m, sign) = (a.m as u32, a.sign());
    let mut lo = Lanes::splat(u32::MAX);
    let mut hi = Lanes::splat(0u32);
    for (j, (key, val)) in keys.iter_mut().zip(v).enumerate() {
        let valid = first.map(|f| f.saturating_add(j as u32) < m);
        *key = Lanes::from_fn(|l| {
            if valid.lane(l) { int_key(int_value(elem, val.lane(l)), sign) } else { 0 }
        })
        .poisoned(val.poison_mask());
        lo = Lanes::select(&valid, &lo.zip(key, u32::min), &lo);
        hi = hi.zip(key, u32::max); // 0 is neutral
        let label = "key_ints: int_key is docs/contract.md §1's order";
        check_keys(w, a.mode, elem, val, key, valid.mask(), label)?;
    }
    Ok((lo, hi))
}

impl PackedRow {
    /// `load_row` of a 16-bit row: the lane's EPL elements as ordered bits, two per word (the
    /// sign bits flipped in smallest mode), `NEG_INF16` in the slots past M (and in the spare
    /// half of an odd EPL); returns each lane's `(lane_min, lane_max)` own key over its slots
    /// inside the row — packed min / max where they all are (`range_full_words`), slot by
    /// slot elsewhere. `vec`: 16-byte loads and the cut group, as [`load_halves`]'s.
    pub(crate) async fn load_row(
        &mut self,
        w: &mut Warp<'_>,
        a: &KernelArgs,
        x: &dyn Source,
        row_off: &Lanes<u64>,
        first: &Lanes<u32>,
        vec: (bool, bool),
    ) -> Result<(Lanes<u32>, Lanes<u32>), SimError> {
        let epl = self.epl;
        let v = load_halves(w, a, x, row_off, first, epl, vec).await?;
        let flip = if self.largest { 0 } else { 0x8000_8000u32 };
        for (q, word) in self.words.iter_mut().enumerate() {
            let hi = v.get(2 * q + 1).copied().unwrap_or(Lanes::splat(0));
            *word = v[2 * q].zip(&hi, |lo, hi| (lo | hi << 16) ^ flip);
        }
        self.inside = first.map(|f| self.m.saturating_sub(f).min(epl as u32));
        let (elem, largest, pad) = (self.elem, self.largest, neg_inf16(self.elem));
        let mut cols: Vec<[u32; 32]> = self.words.iter().map(|w| *w.values()).collect();
        let (mut lo, mut hi) = ([u32::MAX; 32], [0u32; 32]);
        let mut words = Vec::with_capacity(cols.len());
        for l in 0..32 {
            let inside = self.inside.lane(l) as usize;
            words.clear();
            words.extend(cols.iter().map(|c| c[l]));
            if inside == epl && epl % 2 == 0 {
                (lo[l], hi[l]) = range_full_words(elem, &words, largest);
                continue;
            }
            // the row's last lane (and odd EPL): padding, and the range over the slots inside
            for j in 0..epl + epl % 2 {
                let shift = 16 * (j % 2) as u32;
                if j < inside {
                    let key = key16_of_ordered(elem, words[j / 2] >> shift & 0xffff, largest);
                    (lo[l], hi[l]) = (lo[l].min(key), hi[l].max(key));
                } else {
                    words[j / 2] = (words[j / 2] & !(0xffff << shift)) | pad << shift;
                }
            }
            for (c, &bits) in cols.iter_mut().zip(&words) {
                c[l] = bits;
            }
        }
        let poison = self.words.iter().fold(0, |p, w| p | w.poison_mask());
        for (word, c) in self.words.iter_mut().zip(cols) {
            *word = Lanes::from_parts(c, word.poison_mask());
        }
        let (lo, hi) = (Lanes::from_parts(lo, poison), Lanes::from_parts(hi, poison));
        for (j, val) in v.iter().enumerate() {
            let valid = first.map(|f| f.saturating_add(j as u32) < self.m).mask();
            let key = self.slot_key(j);
            let label = "load_row: a slot's key is its element's own key (docs/contract.md §1)";
            check_keys(w, a.mode, elem, val, &key, valid, label)?;
        }
        Ok((lo, hi))
    }
}
