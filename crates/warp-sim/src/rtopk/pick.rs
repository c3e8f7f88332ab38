//! Pick rows (docs/kernel.md, "Pick rows"): the kernels `rtopk_pick_rows_<W>` and
//! `rtopk_pick_lane_rows_<W>` (`kernels/pick_rows.cu`), the exact top k of rows of up to
//! `W = LANES * EPL` float elements for `k <= PICK_MAX_K` (rtopk-plan's `pick`; `LANES` the
//! plan's `lanes_per_row`: one for rows up to 16 at k <= 2, four for 16-bit rows up to 64 and
//! f32 rows up to 16, else eight), in the same three stages under the same names —
//! `load_picks`, `pick_rounds` (`pick_round` each), `write_picks`. Each of k rounds takes the
//! row's best remaining element: the greatest key, then the lowest index. The plan runs it only
//! where no iteration counts are asked (docs/contract.md §3).

use rtopk_plan::{PICK_MAX_K, pick_group};

use crate::engine::error::SimError;
use crate::engine::lanes::Lanes;
use crate::engine::warp::Warp;
use crate::rtopk::args::KernelArgs;
use crate::rtopk::order::{neg_inf16, own_key};
use crate::rtopk::params::{Params, place_row};
use crate::rtopk::plan::ElemType;
use crate::rtopk::rows::{RowLanes, row_max, row_min};
use crate::rtopk::select::{RowOut, write_result};

/// A row's registers and lanes: each lane's pick keys (`slots`), the row's lanes (their count
/// `lanes.width`, the kernel's `LANES`), each lane's place among them (`sub`), the element
/// type, and the elements of a lane's slot group (`group`, the kernel's `pick_group`).
struct PickRow {
    slots: Vec<Lanes<u32>>,
    lanes: RowLanes,
    sub: Lanes<u32>,
    elem: ElemType,
    group: u32,
}

/// `slot_j`: the row index of slot `i` of lane `sub`, slot group `i / V` holding elements
/// `V (sub + LANES g)` on.
fn slot_j(sub: u32, i: u32, lanes: u32, group: u32) -> u32 {
    group * (sub + lanes * (i / group)) + i % group
}

/// Each lane's picks, indices and own keys, `PICK_KEPT(LANES)` of each.
type Picks = (Vec<Lanes<u32>>, Vec<Lanes<u32>>);

/// `PICK_KEPT(LANES)`: picks a lane keeps, round r's going to lane `r % LANES` of its row.
fn pick_kept(lanes: u32) -> usize {
    PICK_MAX_K.div_ceil(lanes as usize)
}

/// `pick_key`: a slot's pick key, 0 past the row's end (and in an f32 row once taken) — an f32
/// row's own key (1 for a NaN in smallest mode, whose own key is 0), or a 16-bit row's own key
/// over `0xffff - j`, so that one maximum finds the greatest key and then the lowest index.
fn pick_key(a: &KernelArgs, elem: ElemType, word: u32, j: u32) -> u32 {
    let key = own_key(a, elem, word, a.sign());
    match elem {
        ElemType::F32 => key.max(1),
        _ => pick_slot16(key, j),
    }
}

/// `pick_slot16`: a 16-bit row's pick slot, its own key over `0xffff - j`.
fn pick_slot16(key: u32, j: u32) -> u32 {
    key << 16 | (0xffff - j)
}

/// `rtopk_pick_rows_impl<EPL, LANES>`: `PICK_WARPS * 32 / LANES` rows per block, one per
/// `LANES` lanes; rows past the end return.
pub(crate) async fn rtopk_pick_rows_impl(w: &mut Warp<'_>, p: &Params<'_>) -> Result<(), SimError> {
    let width = p.plan.lanes_per_row as u32;
    let tid = w.thread_idx();
    let block = u64::from(w.block_idx());
    let row = tid.map(|t| (block * u64::from(w.block_dim()) + u64::from(t)) / u64::from(width));
    let row_id = w.uniform(&row, "rtopk_pick_rows: row_id")?;
    if row_id >= p.a.n as u64 {
        w.exit(); // row-uniform: the partial last block
        return Ok(());
    }
    let lane = w.lane_id();
    let sub = lane.map(|l| l % width);
    let seg = lane.map(|l| ((1u32 << width) - 1) << (l - l % width));
    let lanes = RowLanes { mask: w.uniform(&seg, "rtopk_pick_rows: lanes")?, width };
    let at = place_row(w, p, row_id)?;
    let epl = p.plan.keys_per_lane as u32;
    let group = pick_group(p.plan.keys_per_lane, p.elem.bytes()) as u32;
    let slots = load_picks(w, p, &at.input, &sub, (epl, width, group)).await?;
    let mut row = PickRow { slots, lanes, sub, elem: p.elem, group };
    let (j, key) = pick_rounds(w, &p.a, &mut row)?;
    let out = RowOut {
        x: p.x,
        row_off: at.input,
        out_val: p.out_val,
        out_idx: p.out_idx,
        out_off: at.out,
        sign: p.a.sign(),
        elem: p.elem,
    };
    write_picks(w, (&j, &key), (p.a.k as u32, p.sorted), lanes, &sub, &out).await
}

/// `load_picks`: lane `sub` holds its slots in groups of `V = pick_group` consecutive
/// elements, slot `i` element `slot_j(sub, i)`, as pick keys. A 16-bit group inside the row,
/// where the row's start is aligned to the group's bytes, is the kernel's one load
/// (`load_group`): its words each keyed at once by [`own_keys16x2`]; every other group (and
/// every f32 group, whose one load keys element by element as well) element by element, those
/// past the row's end 0.
async fn load_picks(
    w: &mut Warp<'_>,
    p: &Params<'_>,
    row_in: &Lanes<u64>,
    sub: &Lanes<u32>,
    (epl, width, group): (u32, u32, u32),
) -> Result<Vec<Lanes<u32>>, SimError> {
    let m = p.a.m as u32;
    let mut slots = vec![Lanes::splat(0u32); epl as usize];
    let words = p.elem != ElemType::F32 && group > 1;
    for g in 0..epl / group {
        let j0 = sub.map(|s| group * (s + width * g));
        let whole = Lanes::from_fn(|l| {
            words && row_in.lane(l) % u64::from(group) == 0 && j0.lane(l) + group <= m
        });
        let saved = w.push_active(&whole, "load_picks: aligned && j0 + V <= m")?;
        for q in 0..group / 2 {
            let (lo, hi) = (j0.map(|j| j + 2 * q), j0.map(|j| j + 2 * q + 1));
            let at = |j: &Lanes<u32>| row_in.zip(j, |r, j| r + u64::from(j));
            let a = w.ld_input(p.x, &at(&lo), "load_group: row_in[j0 + 2 q]").await?;
            let b = w.ld_input(p.x, &at(&hi), "load_group: row_in[j0 + 2 q + 1]").await?;
            let keys = a.zip(&b, |a, b| own_keys16x2(p.elem, a | b << 16, p.a.sign()));
            let i = (g * group + 2 * q) as usize;
            w.assign(&mut slots[i], &keys.zip(&lo, |k, j| pick_slot16(k & 0xffff, j)));
            w.assign(&mut slots[i + 1], &keys.zip(&hi, |k, j| pick_slot16(k >> 16, j)));
        }
        w.pop_active(saved);
        let saved = w.push_active(&whole.map(|b| !b), "load_picks: element by element")?;
        for h in 0..group {
            let j = j0.map(|j| j + h);
            let inside = w.push_active(&j.map(|j| j < m), "load_picks: j < m")?;
            let addr = row_in.zip(&j, |r, j| r + u64::from(j));
            let v = w.ld_input(p.x, &addr, "load_picks: row_in[j]").await?;
            let key = v.zip(&j, |v, j| pick_key(&p.a, p.elem, v, j));
            w.assign(&mut slots[(g * group + h) as usize], &key);
            w.pop_active(inside);
        }
        w.pop_active(saved);
    }
    Ok(slots)
}

/// `own_keys16x2`: the own keys of a word's two 16-bit elements at once (the low half the
/// first element's), the kernel's form: the mode's sign flip, then in each half `0x8000 | bits`
/// for a positive value or +-0.0, `!bits` for a negative one, NaN at its mode's end; each test
/// an addition that carries into the half's own bit 15 and no further. [`own_key`] of each
/// half, bit for bit (tested below on every value of each half).
fn own_keys16x2(elem: ElemType, word: u32, sign: f32) -> u32 {
    let nan_past = (0x7fff - (neg_inf16(elem) & 0x7fff)) * 0x1_0001; // each half: 0x7fff less inf's
    let ordered = word ^ if sign < 0.0 { 0x8000_8000 } else { 0 };
    let mag = word & 0x7fff_7fff;
    let nonzero = (mag + 0x7fff_7fff) & 0x8000_8000; // bit 15 of a half whose magnitude is not 0
    let negative = ordered & nonzero; // and whose sign is set: -0.0 is not
    let key = (ordered & (nonzero | 0x7fff_7fff)) ^ 0x8000_8000 ^ (negative - (negative >> 15));
    let nan = (mag + nan_past) & 0x8000_8000; // a magnitude above inf's
    let fill = nan | (nan - (nan >> 15)); // 0xffff in a NaN's half
    if sign > 0.0 { key | fill } else { key & !fill }
}

/// `pick_round`: the row's best remaining slot: its index and own key. `prev`: a 16-bit row's
/// last pick slot (0 before the first round), which the round moves on.
fn pick_round(
    w: &mut Warp<'_>,
    a: &KernelArgs,
    row: &mut PickRow,
    prev: &mut u32,
) -> Result<(u32, u32), SimError> {
    let PickRow { slots, lanes, sub, elem, group } = row;
    let lanes = *lanes;
    if *elem != ElemType::F32 {
        // slots are unique, so the rounds take them in descending order and this round's pick
        // is the row's greatest slot below prev, nothing taken out: the least gap
        // `prev - 1 - s` (wrapping past every slot below prev for one at or above it)
        let below = prev.wrapping_sub(1);
        let gap = slots
            .iter()
            .fold(Lanes::splat(u32::MAX), |g, s| g.zip(s, |g, s| g.min(below.wrapping_sub(s))));
        let least = row_min(w, a, lanes, gap, "pick_round: row_min(gap)")?;
        let top = below.wrapping_sub(w.uniform(&least, "pick_round: least gap")?);
        *prev = top;
        return Ok((0xffff - (top & 0xffff), top >> 16));
    }
    // the lane's best (its first slot holding it), the row's best key, the lowest j holding it
    let (mut best, mut at) = (Lanes::splat(0u32), Lanes::splat(0u32));
    for (i, s) in slots.iter().enumerate() {
        let above = s.zip(&best, |s, b| s > b);
        best = Lanes::from_fn(|l| if above.lane(l) { s.lane(l) } else { best.lane(l) });
        at = Lanes::from_fn(|l| if above.lane(l) { i as u32 } else { at.lane(l) });
    }
    let top = row_max(w, a, lanes, best, "pick_round: row_max(best)")?;
    let top = w.uniform(&top, "pick_round: top")?;
    let j = sub.zip(&at, |s, i| slot_j(s, i, lanes.width, *group));
    let holds = Lanes::from_fn(|l| if best.lane(l) == top { j.lane(l) } else { u32::MAX });
    let first = row_min(w, a, lanes, holds, "pick_round: row_min(j holding top)")?;
    let first = w.uniform(&first, "pick_round: first")?;
    for (i, s) in slots.iter_mut().enumerate() {
        *s = Lanes::from_fn(|l| {
            if j.lane(l) == first && at.lane(l) == i as u32 { 0 } else { s.lane(l) }
        });
    }
    Ok((first, if top == 1 { 0 } else { top }))
}

/// `pick_rounds`: k rounds; round `r`'s index and key go to lane `r % LANES` of the row, its
/// `r / LANES`-th pick.
fn pick_rounds(w: &mut Warp<'_>, a: &KernelArgs, row: &mut PickRow) -> Result<Picks, SimError> {
    let kept = pick_kept(row.lanes.width);
    let (mut mine_j, mut mine_key) =
        (vec![Lanes::splat(0u32); kept], vec![Lanes::splat(0u32); kept]);
    let mut prev = 0u32;
    let width = row.lanes.width;
    for r in 0..a.k as u32 {
        let (j, key) = pick_round(w, a, row, &mut prev)?;
        let q = (r / width) as usize;
        let saved =
            w.push_active(&row.sub.map(|s| s == r % width), "pick_rounds: sub == r % LANES")?;
        w.assign(&mut mine_j[q], &Lanes::splat(j));
        w.assign(&mut mine_key[q], &Lanes::splat(key));
        w.pop_active(saved);
    }
    Ok((mine_j, mine_key))
}

/// `write_picks`: pick `r`, value and index (`write_result`), at `r` where the launch asks for
/// sorted output (the rounds' order is the contract's sorted order), else at its place in index
/// order (the number of picks of a lower index) — counted over the lane's own picks on a
/// one-lane row, over k shuffles on a row of several lanes, whose lane `r % LANES` writes pick
/// `r` (its `r / LANES`-th).
async fn write_picks(
    w: &mut Warp<'_>,
    (mine_j, mine_key): (&[Lanes<u32>], &[Lanes<u32>]),
    (k, sorted): (u32, bool),
    lanes: RowLanes,
    sub: &Lanes<u32>,
    out: &RowOut<'_>,
) -> Result<(), SimError> {
    if lanes.width == 1 {
        for q in 0..k as usize {
            let mut pos = Lanes::splat(q as u32);
            if !sorted {
                pos = Lanes::from_fn(|l| {
                    let mine = mine_j[q].lane(l);
                    mine_j[..k as usize].iter().filter(|s| s.lane(l) < mine).count() as u32
                });
            }
            write_result(w, out, &pos, &mine_j[q], &mine_key[q]).await?;
        }
        return Ok(());
    }
    let (width, kept) = (lanes.width, mine_j.len());
    // this lane's q-th pick is round `sub + LANES q`'s
    let mut pos: Vec<Lanes<u32>> = (0..kept).map(|q| sub.map(|s| s + width * q as u32)).collect();
    if !sorted {
        pos = vec![Lanes::splat(0u32); kept];
        for s in 0..k {
            // pick s: lane `s % LANES`'s `s / LANES`-th
            let theirs = w.shfl_sync(
                lanes.mask,
                &mine_j[(s / width) as usize],
                s % width,
                width,
                "write_picks: shfl(mine_j[s / LANES], s % LANES)",
            )?;
            for (p, mine) in pos.iter_mut().zip(mine_j) {
                *p = Lanes::from_fn(|l| p.lane(l) + u32::from(theirs.lane(l) < mine.lane(l)));
            }
        }
    }
    for q in 0..kept {
        let r = sub.map(|s| s + width * q as u32);
        let saved = w.push_active(&r.map(|r| r < k), "write_picks: sub + LANES q < k")?;
        write_result(w, out, &pos[q], &mine_j[q], &mine_key[q]).await?;
        w.pop_active(saved);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;

    /// Every 16-bit pattern in each half, beside patterns of every kind in the other (zeros,
    /// subnormals, infinities, NaN of both signs and payloads): both halves' own keys, for f16
    /// and bf16, in both modes.
    #[test]
    fn two_keys_a_word_are_each_halfs_own_key() {
        let a = KernelArgs {
            n: 1,
            m: 2,
            k: 1,
            mode: Mode::Largest,
            bisect: Bisect::exact(),
            mutant: None,
        };
        let others = [0x0000, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x7bff, 0x7c00, 0xfc00];
        let nans = [0x7c01, 0x7e00, 0x7fff, 0xfc01, 0xffff, 0x7f81, 0x7fc0, 0xff81, 0xffc0];
        for elem in [ElemType::F16, ElemType::Bf16] {
            for sign in [1.0f32, -1.0] {
                for v in 0..=0xffffu32 {
                    for &o in others.iter().chain(&nans) {
                        let want = |bits| own_key(&a, elem, bits, sign);
                        let lo = own_keys16x2(elem, v | o << 16, sign);
                        assert_eq!((lo & 0xffff, lo >> 16), (want(v), want(o)), "{elem:?} {v:#x}");
                        let hi = own_keys16x2(elem, o | v << 16, sign);
                        assert_eq!((hi & 0xffff, hi >> 16), (want(o), want(v)), "{elem:?} {v:#x}");
                    }
                }
            }
        }
    }
}
