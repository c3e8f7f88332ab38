//! Grouped selection (docs/contract.md §8): the kernel `rtopk_grouped_rows_<EPL>`
//! (`kernels/grouped_rows.cu`), one warp per row, in the same four stages under the same
//! names — `load_experts`, `group_scores`, `choose_groups`, `select_experts` — as rtopk-plan
//! plans it ([`rtopk_plan::grouped_launch`]: the grid, and the unit's `EPL` experts per lane).
//! A row's `m` scores fall into `groups` groups of `size =
//! m / groups` consecutive experts; each group is scored by its best value or the f32 sum of
//! its best two; the best `top_groups` groups are kept (ties to the lower group); the row's
//! `k` best experts among them are written in the canonical order — topk-ref's
//! `grouped_topk`, bit for bit.

use rtopk_plan::{GROUPED_WARPS, grouped_launch};
use topk_ref::{Bisect, GroupScore, Grouped, Mode};

use crate::engine::error::SimError;
use crate::engine::global::Global;
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::machine::Grid;
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::KernelArgs;
use crate::rtopk::launch::Simulator;
use crate::rtopk::order::{order_key, ordered_value_of_own_key, own_key};
use crate::rtopk::plan::ElemType;

/// The launch's arguments: the buffers and the selection.
struct GroupedArgs {
    /// The order's helpers take the kernel's arguments (largest mode, no seeded bug).
    a: KernelArgs,
    elem: ElemType,
    x: BufId,
    values: BufId,
    indices: BufId,
    n: u64,
    m: u32,
    k: u32,
    groups: u32,
    top_groups: u32,
    sum2: bool,
    /// The unit's experts per lane (`EPL`).
    epl: u32,
}

/// A row's registers: each lane's input bits and own keys of experts `lane + 32 i`.
struct Experts {
    vals: Vec<Lanes<u32>>,
    keys: Vec<Lanes<u32>>,
}

impl Simulator {
    /// The grouped selection `g` of `n` rows of `m` scores of `elem` (a float type), each
    /// element's bits in one word of `x` (row-major): each row's `k` values' bits and indices
    /// (`n * k` each), as `rtopk_grouped_rows_<EPL>` writes them.
    pub fn grouped_rows(
        &mut self,
        elem: ElemType,
        x: &[u32],
        (n, m): (usize, usize),
        g: &Grouped,
    ) -> Result<(Vec<u32>, Vec<u32>), SimError> {
        let launch = grouped_launch(n, m, g)?;
        let (grid, epl) = (launch.grid, launch.epl as u32);
        if !matches!(elem, ElemType::F32 | ElemType::F16 | ElemType::Bf16) {
            return Err(SimError::InvalidLaunch(format!(
                "a grouped selection takes float rows, not {}",
                elem.name()
            )));
        }
        let cells = n.checked_mul(m).filter(|&c| c == x.len());
        if cells.is_none() {
            return Err(SimError::InvalidLaunch(format!(
                "{} words hold no ({n}, {m}) rows",
                x.len()
            )));
        }
        let nk = (n * g.k) as u64;
        if n == 0 || g.k == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let machine = &mut self.machine;
        let xb = machine.alloc(Global::from_words("x", x.to_vec()).with_rows(m as u64));
        let values = machine.alloc(Global::zeroed("values", nk)?);
        let indices = machine.alloc(Global::zeroed("indices", nk)?);
        for id in [values, indices] {
            machine.global_mut(id).set_write_once(true);
        }
        let ga = GroupedArgs {
            a: KernelArgs {
                n,
                m,
                k: g.k,
                mode: Mode::Largest,
                bisect: Bisect::exact(),
                mutant: None,
            },
            elem,
            x: xb,
            values,
            indices,
            n: n as u64,
            m: m as u32,
            k: g.k as u32,
            groups: g.groups as u32,
            top_groups: g.top_groups as u32,
            sum2: g.score == GroupScore::TopTwoSum,
            epl,
        };
        let shared = (GROUPED_WARPS * epl * 32) as usize;
        let warps = u64::from(grid.blocks) * u64::from(GROUPED_WARPS);
        let per_row = 8 * (m as u64 + u64::from(ga.k) * (2 * u64::from(epl) + 16) + 256);
        machine.set_step_limit(n.div_ceil(warps as usize) as u64 * per_row + 1024);
        let engine_grid = Grid::new(grid.blocks, GROUPED_WARPS, shared);
        machine.launch(engine_grid, async |mut w| rtopk_grouped_rows_impl(&mut w, &ga).await)?;
        for (id, what) in [(values, "values"), (indices, "indices")] {
            if let Some((at, count)) = machine.global(id).unwritten(0, nk) {
                return Err(SimError::InvalidLaunch(format!(
                    "rtopk_grouped_rows left {count} {what} unwritten, the first at {at}"
                )));
            }
        }
        let out = (machine.global(values).data().to_vec(), machine.global(indices).data().to_vec());
        machine.free_globals();
        Ok(out)
    }
}

/// `rtopk_grouped_rows_impl`: warp `g` of the grid takes rows `g, g + warps, ...` (the grid
/// covers the rows once), each through the four stages.
async fn rtopk_grouped_rows_impl(w: &mut Warp<'_>, ga: &GroupedArgs) -> Result<(), SimError> {
    let lane = w.lane_id();
    let warp = w.warp_idx();
    let warps = u64::from(w.grid_dim()) * u64::from(GROUPED_WARPS);
    let size = ga.m / ga.groups;
    let shared_row = warp * ga.epl * 32;
    let mut row = u64::from(w.block_idx()) * u64::from(GROUPED_WARPS) + u64::from(warp);
    while row < ga.n {
        w.syncwarp(FULL_MASK, "rtopk_grouped_rows: the previous row's group_scores have read")
            .await?;
        let mut e = load_experts(w, ga, row, shared_row, &lane).await?;
        let score = group_scores(w, ga, size, shared_row, &lane).await?;
        let kept = choose_groups(w, ga, &score, &lane)?;
        select_experts(w, ga, &mut e, (kept, size), row, &lane).await?;
        row += warps;
    }
    Ok(())
}

/// `load_experts`: lane `l` holds experts `j = l + 32 i` (`i < EPL`): their input bits and
/// own keys in largest mode, key 0 past `m` (a key no float has in largest mode), and writes
/// the keys to its warp's shared row.
async fn load_experts(
    w: &mut Warp<'_>,
    ga: &GroupedArgs,
    row: u64,
    shared_row: u32,
    lane: &Lanes<u32>,
) -> Result<Experts, SimError> {
    let slots = ga.epl as usize;
    let mut e = Experts { vals: vec![Lanes::splat(0); slots], keys: vec![Lanes::splat(0); slots] };
    for i in 0..ga.epl {
        let j = lane.map(|l| l + 32 * i);
        let saved = w.push_active(&j.map(|j| j < ga.m), "load_experts: j < m")?;
        let at = j.map(|j| row * u64::from(ga.m) + u64::from(j));
        let v = w.ld_global(ga.x, &at, "load_experts: row[j]").await?;
        let key = v.map(|b| own_key(&ga.a, ga.elem, b, 1.0));
        w.assign(&mut e.vals[i as usize], &v);
        w.assign(&mut e.keys[i as usize], &key);
        let to = j.map(|j| shared_row + j);
        w.st_shared(&to, &key, "load_experts: shared_row[j] = keys[i]").await?;
        w.pop_active(saved);
    }
    w.syncwarp(FULL_MASK, "load_experts: the shared row written").await?;
    Ok(e)
}

/// `group_scores`: lane `q < groups` scans group `q`'s keys for its best two (equal keys count
/// twice) and returns the key of the group's score (topk-ref's `group_score_key`); other
/// lanes 0.
async fn group_scores(
    w: &mut Warp<'_>,
    ga: &GroupedArgs,
    size: u32,
    shared_row: u32,
    lane: &Lanes<u32>,
) -> Result<Lanes<u32>, SimError> {
    let mut out = Lanes::splat(0u32);
    let saved = w.push_active(&lane.map(|l| l < ga.groups), "group_scores: lane < groups")?;
    let (mut first, mut second) = (Lanes::splat(0u32), Lanes::splat(0u32));
    for t in 0..size {
        let at = lane.map(|l| shared_row + l * size + t);
        let key = w.ld_shared(&at, "group_scores: shared_row[j]").await?;
        let next_second = Lanes::from_fn(|l| {
            let (f, s, k) = (first.lane(l), second.lane(l), key.lane(l));
            if k > f { f } else { s.max(k) }
        });
        let next_first = first.zip(&key, u32::max);
        w.assign(&mut second, &next_second);
        w.assign(&mut first, &next_first);
    }
    let score = Lanes::from_fn(|l| {
        let mut s = ordered_value_of_own_key(ga.elem, first.lane(l));
        if ga.sum2 {
            s += ordered_value_of_own_key(ga.elem, second.lane(l));
        }
        order_key(&ga.a, s, 1.0)
    });
    w.assign(&mut out, &score);
    w.pop_active(saved);
    Ok(out)
}

/// `choose_groups`: the kept groups as a bit mask: group `q` is kept when fewer than
/// `top_groups` groups rank above it (a greater score, or an equal one and a lower group).
fn choose_groups(
    w: &mut Warp<'_>,
    ga: &GroupedArgs,
    score: &Lanes<u32>,
    lane: &Lanes<u32>,
) -> Result<u32, SimError> {
    let mut above = Lanes::splat(0u32);
    for q in 0..ga.groups {
        let other = w.shfl_sync(FULL_MASK, score, q, 32, "choose_groups: group q's score")?;
        above = Lanes::from_fn(|l| {
            let (o, s) = (other.lane(l), score.lane(l));
            above.lane(l) + u32::from(o > s || (o == s && q < lane.lane(l)))
        });
    }
    let kept = lane.map(|l| l < ga.groups).zip(&above, |g, a| g && a < ga.top_groups);
    let mask = w.ballot_sync(FULL_MASK, &kept, "choose_groups: the kept groups")?;
    Ok(mask.lane(0))
}

/// `select_experts`: the experts of the groups left out get key 0; then `k` rounds, each
/// taking the warp's best remaining expert — the greatest key, then the lowest index — whose
/// lane writes it as result `r` and takes it out (key 0).
async fn select_experts(
    w: &mut Warp<'_>,
    ga: &GroupedArgs,
    e: &mut Experts,
    (kept, size): (u32, u32),
    row: u64,
    lane: &Lanes<u32>,
) -> Result<(), SimError> {
    for i in 0..ga.epl {
        let keys = &e.keys[i as usize];
        e.keys[i as usize] = Lanes::from_fn(|l| {
            let j = lane.lane(l) + 32 * i;
            if j < ga.m && (kept >> (j / size)) & 1 == 0 { 0 } else { keys.lane(l) }
        });
    }
    for r in 0..ga.k {
        let (mut best, mut at) = (Lanes::splat(0u32), Lanes::splat(0u32));
        for i in 0..ga.epl {
            let keys = &e.keys[i as usize];
            at = Lanes::from_fn(|l| if keys.lane(l) > best.lane(l) { i } else { at.lane(l) });
            best = best.zip(keys, u32::max);
        }
        let top = w.reduce_max_sync(FULL_MASK, &best, "select_experts: the best key")?;
        let j = lane.zip(&at, |l, a| l + 32 * a);
        let lowest = Lanes::from_fn(|l| if best.lane(l) == top.lane(l) { !j.lane(l) } else { 0 });
        let first = w.reduce_max_sync(FULL_MASK, &lowest, "select_experts: its lowest index")?;
        let mine = Lanes::from_fn(|l| best.lane(l) == top.lane(l) && j.lane(l) == !first.lane(l));
        let saved = w.push_active(&mine, "select_experts: the lane holding it")?;
        let out = Lanes::splat(row * u64::from(ga.k) + u64::from(r));
        let v = Lanes::from_fn(|l| e.vals[at.lane(l) as usize].lane(l));
        w.st_global(ga.values, &out, &v, "select_experts: out_val[r] = vals[at]").await?;
        w.st_global(ga.indices, &out, &j, "select_experts: out_idx[r] = j").await?;
        for i in 0..ga.epl {
            let taken = e.keys[i as usize].zip(&at, |k, a| if a == i { 0 } else { k });
            w.assign(&mut e.keys[i as usize], &taken);
        }
        w.pop_active(saved);
    }
    Ok(())
}
