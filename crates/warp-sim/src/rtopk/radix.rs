//! The radix select (docs/kernel.md, "Radix rows"; `kernels/radix_rows.cu`, the same steps and
//! names): the exact top k of rows whose k runs into the thousands. The row's k-th own key T is
//! found digit by digit, [`RADIX_DIGIT_BITS`] bits a pass from the top, each pass a histogram of
//! the digit over the keys whose higher digits are those found so far; then every key above T
//! and the first ties at T, by index, are written in index order (docs/contract.md §1).
//!
//! A row is cut into `blocks_per_row` parts of `slice` elements, one block of
//! [`RADIX_THREADS`] threads each. Each row owns `radix_ld` words of the radix buffer (zeroed
//! before the first step): its histogram, the prefix found so far, the k left to find under
//! it, the blocks done with the pass, the blocks whose candidates did not fit, whether the
//! second pass keeps them, then each block's two counts and each warp's (a block's part is cut
//! into one range a warp, [`warp_range`]), and each block's candidates kept. The second pass
//! keeps the row's candidates (AIR Top-K's filtering, paper 002, §3.2): each block the keys of
//! its part whose first digit is the k-th key's or above, with their indices, in its own
//! `2 * capacity` words of the candidates buffer (keys, then indices) where they fit, if the
//! first pass found them few ([`choose_digit`]: at most `m / RADIX_KEEP_SHARE`); while every
//! block's fit, the passes after it, the count and the write read those instead of the row.
//! Where a sample ran first (rows of long parts), the first pass keeps the keys of the sample's
//! floor digit or above instead, and where the k-th key's first digit is at or above that
//! floor and every block's fit, the row is read once.
//! - `rtopk_radix_sample`: every `RADIX_SAMPLE_EVERY`-th tile of the row ([`sample_digits`]):
//!   its histogram of the first digit added to the row's; the last block ([`take_ticket`])
//!   chooses the floor digit ([`choose_floor`]).
//! - `rtopk_radix_digits`: one pass ([`radix_pass`]). Each block's shared histogram of its part
//!   ([`count_digits`], shared atomics; on the first pass after a sample, or the second without
//!   one, [`keep_digits`], which also keeps
//!   the block's candidates ([`keep_key`], each thread's places by [`keep_place`]: a warp scan
//!   and one shared atomic of the warp; whole tiles by 16-byte loads, [`keep_groups`]) and
//!   writes their count ([`keep_counts`]); on a later one [`count_listed`] over the block's
//!   candidates while every block's fit) is added to the row's ([`add_histogram`], global
//!   atomics); the row's last block to finish, by a ticket ([`take_ticket`]: an atomic on the
//!   row's done word after a `__threadfence`), chooses the digit ([`choose_digit`]) and clears
//!   the histogram.
//! - `rtopk_radix_count`: each warp's keys above T and at T in its range ([`count_part`]), and
//!   the block's; or, while every block's candidates fit, the same counts from them
//!   ([`count_candidates`]).
//! - `rtopk_radix_write`: a block whose candidates fit and hold at most [`RADIX_WRITE_LIST`]
//!   keys at or above T writes from them ([`write_listed`]: gathered in shared memory, each
//!   one's place counted over the others); any other, each warp its results at the place the
//!   counts before it give ([`write_part`]: ballots, no barrier).
//!
//! Besides the engine's checks (races of the shared histogram's and the row's atomics with
//! plain accesses, the ticket's ordering, bounds, outputs and candidates written once, outputs
//! all written, candidates read only where the second pass wrote them: the buffer starts
//! poisoned), the simulator checks that the bins hold the keys still to find, that the
//! candidates read lie below their block's count and the capacity, that a candidate's index
//! lies in its block's part, that a block's gathered list stays within [`RADIX_WRITE_LIST`],
//! and that a row's last part ends its k results.
//!
//! Rows of their own length and k (docs/contract.md §5: the step's `rows`) run the same steps
//! over their own `m_i` and `k_i` ([`radix_row`]): each row's length is spread over all its
//! blocks (the parts past it empty), a row of `k_i = 0` runs no step but the write, and the
//! write pads each row's slots from `k_i` to the width `k` ([`pad_radix_row`]); no element
//! past a row's length is read (checked).

use crate::engine::diag::DiagPolicy;
use crate::engine::error::SimError;
use crate::engine::global::{Source, WordSource};
use crate::engine::lanes::{FULL_MASK, Lanes};
use crate::engine::machine::{Grid, Rows};
use crate::engine::warp::{BufId, Warp};
use crate::rtopk::args::{KernelArgs, RowData};
use crate::rtopk::coverage::Branch;
use crate::rtopk::execute::{Marking, Run, State, step_rows};
use crate::rtopk::launch::Simulator;
use crate::rtopk::mutant::Mutant;
use crate::rtopk::narrow::pad_results;
use crate::rtopk::order::{ElemType, own_key};
use crate::rtopk::plan::{
    RADIX_BINS, RADIX_DIGIT_BITS, RADIX_ITEMS, RADIX_KEEP_SHARE, RADIX_SAMPLE_EVERY,
    RADIX_SAMPLE_MARGIN, RADIX_SAMPLE_SLACK, RADIX_THREADS, RADIX_TILE, RADIX_WARPS,
    RADIX_WRITE_LIST, Radix, Step, StepKind, radix_elem,
};

/// A row's words past its histogram: the prefix found so far (T after the last pass), the k
/// left to find under it, the blocks done with the pass, the blocks whose candidates did not
/// fit (the keeping pass's count of them), whether the second pass keeps them or the first
/// kept them (the first pass's choice), the sample's floor digit (one more than it; 0: none),
/// then each block's two counts, each warp's, and each block's candidates kept.
const RADIX_PREFIX: u64 = RADIX_BINS;
const RADIX_LEFT: u64 = RADIX_BINS + 1;
const RADIX_DONE: u64 = RADIX_BINS + 2;
const RADIX_OVER: u64 = RADIX_BINS + 3;
const RADIX_KEEPS: u64 = RADIX_BINS + 4;
const RADIX_FLOOR: u64 = RADIX_BINS + 5;
const RADIX_COUNTS: u64 = RADIX_BINS + 6;
/// `RADIX_KEEPS`: the second pass keeps the candidates, or the first kept them.
const RADIX_KEEP_SECOND: u32 = 1;
const RADIX_KEPT_FIRST: u32 = 2;

/// `RADIX_FIRST_SHIFT`: where the first digit starts in an own key of `key_bits` bits.
fn first_shift(key_bits: u32) -> u32 {
    key_bits - RADIX_DIGIT_BITS
}

/// `m / RADIX_KEEP_SHARE`: the most candidates a row's second pass keeps.
fn m_share(m: u32) -> u32 {
    (u64::from(m) / RADIX_KEEP_SHARE) as u32
}

/// `RADIX_BLOCK_COUNTS(b)`: where block `b`'s two counts lie in its row's words.
fn block_counts(b: u64) -> u64 {
    RADIX_COUNTS + 2 * b
}

/// `RADIX_WARP_COUNTS(blocks, b, w)`: where warp `w` of block `b`'s two counts lie.
fn warp_counts(blocks: u64, b: u64, warp: u64) -> u64 {
    RADIX_COUNTS + 2 * blocks + 2 * (b * u64::from(RADIX_WARPS) + warp)
}

/// `RADIX_KEPT(blocks, b)`: where the count of block `b`'s candidates lies (kept where no more
/// than the capacity).
fn radix_kept(blocks: u64, b: u64) -> u64 {
    RADIX_COUNTS + 2 * blocks * (1 + u64::from(RADIX_WARPS)) + b
}

/// Shared words: `hist` (`rtopk_radix_digits`) from 0, the scans' `sums` after it (two arrays
/// of [`RADIX_WARPS`]: `rtopk_radix_write` alternates them, `count_candidates` takes them for
/// its `counts`), the second pass's `kept` (the block's count of its candidates), the `last`
/// flag, then [`write_listed`]'s `keys` and `idx` ([`RADIX_WRITE_LIST`] each) and `n`. Each
/// entry point's own arrays, laid one after the other (the engine checks each access within
/// the block's words).
const HIST: u32 = 0;
const SUMS: u32 = RADIX_BINS as u32;
const KEPT: u32 = SUMS + 2 * RADIX_WARPS;
const LAST: u32 = KEPT + 1;
const KEYS: u32 = LAST + 1;
const IDX: u32 = KEYS + RADIX_WRITE_LIST;
const N: u32 = IDX + RADIX_WRITE_LIST;
/// Shared words per block of the radix steps.
pub(crate) const RADIX_SHARED_WORDS: usize = N as usize + 1;

/// Which entry point a step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Sample,
    Digits,
    Count,
    Write,
}

/// The arguments of every radix entry point (`RADIX_ARGS`): the step's [`Radix`] (its
/// `capacity` among them), the input (`x`, its rows at `input.offset + row * input.ld`), the
/// buffers (`cand`: the candidates), the mode and seeded bug (`a`), and the own key's width
/// (`RADIX_KEY_BITS`).
struct RadixArgs<'x> {
    a: KernelArgs,
    elem: ElemType,
    x: &'x dyn Source,
    out_val: BufId,
    out_idx: BufId,
    radix: BufId,
    cand: BufId,
    r: Radix,
    key_bits: u32,
    /// The rows' own lengths and k (`lengths`, `k_per_row`: null pointers where absent).
    rows: RowData<'x>,
}

impl Simulator {
    /// A radix select's step (`radix_sample`, `radix_digits`, `radix_count` or `radix_write`):
    /// its entry point
    /// over the blocks of the run's rows, a row's blocks resident together.
    pub(crate) fn radix_step(
        &mut self,
        step: &Step,
        r: &Radix,
        run: &Run<'_>,
        st: &State,
    ) -> Result<(), SimError> {
        let entry = match step.name {
            StepKind::RadixSample => Entry::Sample,
            StepKind::RadixDigits => Entry::Digits,
            StepKind::RadixCount => Entry::Count,
            StepKind::RadixWrite => Entry::Write,
            other => {
                let why = format!("a radix launch in a {} step", other.name());
                return Err(SimError::InvalidLaunch(why));
            }
        };
        check_radix_launch(step, r, run.elem)?;
        let words = self.input_words(&r.input, st)?;
        let copy = words.as_ref().map(|w| WordSource::new(w, r.input.ld, run.elem.bytes() as u32));
        let src: &dyn Source = match &copy {
            Some(c) => c,
            None => run.src,
        };
        // rows of their own length: every element read is marked, none past a row's length
        let rows = step_rows(r.rows, run);
        let checks = self.machine.policy() != DiagPolicy::Off;
        let marking = (rows.lengths.is_some() && checks).then(|| Marking::new(src));
        let x: &dyn Source = match &marking {
            Some(m) => m,
            None => src,
        };
        let ra = RadixArgs {
            a: KernelArgs { n: r.n_rows as usize, m: r.m as usize, k: r.k as usize, ..run.args },
            elem: run.elem,
            x,
            out_val: st.buf(r.output.buffer)?,
            out_idx: st.buf(r.indices)?,
            radix: st.buf(r.words)?,
            cand: st.buf(r.candidates)?,
            r: *r,
            key_bits: if run.elem.packed16() { 16 } else { 32 },
            rows,
        };
        // Write-once counts plain stores over anything the launch wrote, its atomics included.
        // A digit pass stores over its own atomics (choose_digit clears the bins and the ticket
        // the blocks added to): not there. The count step stores each count once: count_part
        // or count_candidates, a row taking one or the other.
        self.write_once(&[ra.radix], entry == Entry::Count);
        // Each candidate slot is written at most once a launch: by the pass that keeps them,
        // each at the place its warp's atomic on its block's count gave.
        self.write_once(&[ra.cand, ra.out_val, ra.out_idx], true);
        let grid = radix_grid(step, r, run.rows);
        self.machine.set_step_limit(radix_budget(r));
        self.machine.launch(grid, async |mut w| match entry {
            Entry::Sample => rtopk_radix_sample(&mut w, &ra).await,
            Entry::Digits => rtopk_radix_digits(&mut w, &ra).await,
            Entry::Count => rtopk_radix_count(&mut w, &ra).await,
            Entry::Write => rtopk_radix_write(&mut w, &ra).await,
        })?;
        match entry {
            Entry::Sample | Entry::Digits => {}
            Entry::Count => self.cover_candidates(&ra, run),
            Entry::Write => self.cover_write(&ra, run),
        }
        let out_idx = ra.out_idx;
        if let Some(marking) = marking {
            let valid = |row| rows.row_len(row, u64::from(r.m));
            let read = marking.into_read();
            self.check_reads_within_lengths((&r.input, r.m), valid, run.rows, &read)?;
        }
        if entry != Entry::Write {
            return Ok(());
        }
        // every slot: the row's own k results, then its padding
        let (k, (r0, r1)) = (u64::from(r.k), run.rows);
        self.check_prefixes_written(out_idx, (r0..r1, k), |_| k, "out_idx: every result")
    }

    /// Counts the run's rows by the count step's path in the coverage: the candidates kept and
    /// read (`RADIX_KEEPS` set, `RADIX_OVER` 0), kept but a block's overflowed, or not kept
    /// (the first pass found too many); the row read again in the last two. Apart: the rows
    /// whose first pass kept the candidates after a sample, and those whose first pass kept
    /// keys from a floor that the row then read again (the floor above the k-th key's first
    /// digit, or a block's past its capacity). The words are final once the second pass has
    /// ended.
    fn cover_candidates(&mut self, ra: &RadixArgs<'_>, run: &Run<'_>) {
        let (ld, (r0, r1)) = (u64::from(ra.r.words_ld), run.rows);
        let g = self.machine.global(ra.radix);
        let (mut rows, mut first, mut missed) = ([0u64; 3], 0u64, 0u64);
        for row in r0..r1.min(ra.r.n_rows) {
            // RADIX_OVER, RADIX_KEEPS, RADIX_FLOOR
            if let [over, keeps, floor] = g.peek(row * ld + RADIX_OVER, 3)[..] {
                rows[usize::from(keeps != 0) + usize::from(keeps != 0 && over == 0)] += 1;
                let kept = keeps == RADIX_KEPT_FIRST && over == 0;
                first += u64::from(kept);
                missed += u64::from(floor != 0 && !kept);
            }
        }
        run.cover.add(Branch::RadixNotKept, rows[0]);
        run.cover.add(Branch::RadixOverflow, rows[1]);
        run.cover.add(Branch::RadixCandidates, rows[2]);
        run.cover.add(Branch::RadixKeptFirst, first);
        run.cover.add(Branch::RadixFloorMissed, missed);
    }

    /// Counts the blocks of the run's rows whose candidates fit by the write's path: from
    /// their candidates (`write_listed`: their own counts, above T and at T, at most
    /// [`RADIX_WRITE_LIST`]) or from their part (more). The words are the count step's.
    fn cover_write(&mut self, ra: &RadixArgs<'_>, run: &Run<'_>) {
        let (ld, (r0, r1)) = (u64::from(ra.r.words_ld), run.rows);
        let g = self.machine.global(ra.radix);
        let mut blocks = [0u64; 2];
        for row in r0..r1.min(ra.r.n_rows) {
            // RADIX_OVER, RADIX_KEEPS: the candidates read where kept and none overflowed
            if !matches!(g.peek(row * ld + RADIX_OVER, 2)[..], [0, keeps] if keeps != 0) {
                continue;
            }
            for b in 0..u64::from(ra.r.blocks_per_row) {
                let counts = g.peek(row * ld + block_counts(b), 2);
                let mine = counts.iter().fold(0u32, |a, &c| a.wrapping_add(c));
                blocks[usize::from(mine > RADIX_WRITE_LIST)] += 1;
            }
        }
        run.cover.add(Branch::RadixListedWrite, blocks[0]);
        run.cover.add(Branch::RadixWriteOverList, blocks[1]);
    }
}

/// Refuses a radix launch the kernel cannot run as given: rows of a type without a radix
/// select, a grid that is not `blocks_per_row` blocks a row of [`RADIX_THREADS`], outputs whose
/// rows are not k apart (the kernel writes row `r`'s results at `r * k`).
fn check_radix_launch(step: &Step, r: &Radix, elem: ElemType) -> Result<(), SimError> {
    let bad = |why: String| Err(SimError::InvalidLaunch(why));
    if !radix_elem(elem) {
        return bad(format!("the radix select takes f32, f16 and bf16 rows, not {}", elem.name()));
    }
    let blocks = r.n_rows.checked_mul(u64::from(r.blocks_per_row));
    if step.grid.threads != RADIX_THREADS || blocks != Some(u64::from(step.grid.blocks)) {
        return bad(format!(
            "a radix launch of {} blocks of {} threads over {} rows of {} blocks",
            step.grid.blocks, step.grid.threads, r.n_rows, r.blocks_per_row
        ));
    }
    if r.output.ld != u64::from(r.k) || r.blocks_per_row == 0 {
        return bad(format!("radix outputs of stride {} for k = {}", r.output.ld, r.k));
    }
    // a warp range's span is a part's RADIX_WARPS-th (count_candidates divides by it)
    if r.slice == 0 {
        return bad("radix parts of no element".to_string());
    }
    Ok(())
}

/// The engine's grid of a radix step over rows `r0 .. r1`: their blocks, a row's blocks
/// resident together (they meet only through the row's words, so a shuffled schedule may
/// interleave them at will), each block's warps owning the block's row.
fn radix_grid(step: &Step, r: &Radix, (r0, r1): (u64, u64)) -> Grid {
    let bpr = u64::from(r.blocks_per_row);
    let mut grid = Grid::new(step.grid.blocks, RADIX_WARPS, RADIX_SHARED_WORDS);
    let end = (r1 * bpr).min(u64::from(step.grid.blocks));
    grid.simulate = ((r0 * bpr).min(end) as u32, end as u32);
    grid.resident = r.blocks_per_row.clamp(1, 8);
    grid.rows = Some(Rows { parts_per_row: bpr, ..Rows::new(1, RADIX_WARPS) });
    grid
}

/// Simulated operations a warp of a radix step may need, with room to spare: per tile of its
/// part a few hundred (a window's loads, and in one with a key at or above T its rounds' loads,
/// ballots and stores; the second pass's places and stores of the candidates), per round of
/// the block's candidates a few (count_listed, count_candidates, write_listed's gather), per
/// block of the row a few (the write's counts before it), write_listed's compares (two shared
/// loads for each of its list's entries, for each of a thread's), and the histogram's and the
/// choice's.
fn radix_budget(r: &Radix) -> u64 {
    let tiles = u64::from(r.slice).div_ceil(RADIX_TILE);
    let rounds = u64::from(r.capacity).div_ceil(u64::from(RADIX_THREADS));
    let list = u64::from(RADIX_WRITE_LIST);
    let compares = 4 * list * list.div_ceil(u64::from(RADIX_THREADS));
    64 * (tiles * 512 + rounds * 16 + u64::from(r.blocks_per_row) + compares + 4096)
}

/// `RadixRow`: a row's own width and k (`row_lengths`: the launch's `m` and `k` where the step
/// has no per-row arrays; the outputs' width is the launch's k), and its parts' width: a row of
/// its own length spreads it over all its blocks, in parts of `ceil(m_i / blocks_per_row)`
/// elements rounded up to whole 16-byte groups (the budgets of what the passes keep stay the
/// launch's: [`choose_floor`], [`choose_digit`]).
#[derive(Clone, Copy, Debug)]
struct RadixRow {
    m: u32,
    k: u32,
    slice: u32,
}

/// `radix_row`: block `blockIdx.x`'s row's own width, k and parts' width.
fn radix_row(w: &Warp<'_>, ra: &RadixArgs<'_>) -> RadixRow {
    let r = &ra.r;
    let row = u64::from(w.block_idx() / r.blocks_per_row);
    let own = ra.a.row_lengths(&ra.rows, row);
    let (m, k) = (own.m as u32, own.k as u32); // <= the launch's m and k
    let g = radix_group(ra);
    let group = u64::from(r.blocks_per_row) * g;
    let slice = match ra.rows.lengths {
        Some(_) => (u64::from(m).div_ceil(group) * g).min(u64::from(r.slice)) as u32,
        None => r.slice,
    };
    RadixRow { m, k, slice }
}

/// `RadixPart`: the block's part of its row — row `row`, part `b`, elements `[start, end)`.
#[derive(Clone, Copy, Debug)]
struct RadixPart {
    row: u64,
    b: u32,
    start: u32,
    end: u32,
}

/// `radix_part`: block `blockIdx.x` is part `blockIdx.x % blocks_per_row` of row
/// `blockIdx.x / blocks_per_row`, its elements from `b * slice` (below the launch's m: the
/// plan's `blocks_per_row = ceil(m / slice)`) to `min(start + slice, max(own_m, start))`: empty
/// where a ragged row's own width `own_m` ends before it.
fn radix_part(
    w: &mut Warp<'_>,
    (m, own_m): (u32, u32),
    slice: u32,
    blocks_per_row: u32,
) -> Result<RadixPart, SimError> {
    let block = w.block_idx();
    let (row, b) = (u64::from(block / blocks_per_row), block % blocks_per_row);
    let start = w.mul_u32(&Lanes::splat(b), &Lanes::splat(slice), "radix_part: p.b * slice")?;
    let start = w.uniform(&start, "radix_part: p.start")?;
    w.check_that(start < m, "radix_part: p.start < m")?;
    let end = (u64::from(start) + u64::from(slice)).min(u64::from(own_m.max(start))) as u32;
    Ok(RadixPart { row, b, start, end })
}

/// `above_matches`: whether the key's digits from bit `hi` up are the prefix's (every key on
/// the first pass: an own key of `key_bits` bits, `RADIX_KEY_BITS`, has none from there up).
fn above_matches(key: u32, prefix: u32, hi: u32, key_bits: u32) -> bool {
    hi >= key_bits || (key ^ prefix) >> hi == 0
}

/// `radix_exclusive_sum`: `v` summed over the block's threads before each one, and the total
/// over all (uniform over the block), from one barrier: each warp's inclusive scan
/// (`__shfl_up_sync`), its last lane's sum in `sums[warp]`, then every thread reads every
/// warp's. `sums` (a shared word address) is [`RADIX_WARPS`] words that no thread touches
/// again until every thread has passed the next barrier (callers alternate two).
async fn radix_exclusive_sum(
    w: &mut Warp<'_>,
    v: &Lanes<u32>,
    sums: u32,
) -> Result<(Lanes<u32>, u32), SimError> {
    let (lane, warp) = (w.lane_id(), w.warp_idx());
    let mut inclusive = *v;
    let mut d = 1u32;
    while d < 32 {
        let label = "radix_exclusive_sum: __shfl_up_sync(inclusive, d)";
        let other = w.shfl_up_sync(FULL_MASK, &inclusive, d, 32, label)?;
        let sum = inclusive.zip(&other, u32::wrapping_add);
        inclusive = Lanes::select(&lane.map(|l| l >= d), &sum, &inclusive);
        d <<= 1;
    }
    let saved = w.push_active(&lane.map(|l| l == 31), "radix_exclusive_sum: if (lane == 31)")?;
    let label = "radix_exclusive_sum: sums[warp] = inclusive";
    w.st_shared(&Lanes::splat(sums + warp), &inclusive, label).await?;
    w.pop_active(saved);
    w.syncthreads("radix_exclusive_sum: __syncthreads()").await?;
    let (mut before, mut all) = (Lanes::splat(0u32), Lanes::splat(0u32));
    for i in 0..RADIX_WARPS {
        let s = w.ld_shared(&Lanes::splat(sums + i), "radix_exclusive_sum: s = sums[w]").await?;
        if i < warp {
            before = before.zip(&s, u32::wrapping_add);
        }
        all = all.zip(&s, u32::wrapping_add);
    }
    let total = w.uniform(&all, "radix_exclusive_sum: *total = all")?;
    w.block_uniform(u64::from(total), "radix_exclusive_sum: *total = all")?;
    let before = before.zip(&inclusive, u32::wrapping_add).zip(v, u32::wrapping_sub);
    Ok((before, total))
}

/// `radix_sum`: `v` summed over the block (every thread gets it); `sums` free again after.
async fn radix_sum(w: &mut Warp<'_>, v: &Lanes<u32>, sums: u32) -> Result<u32, SimError> {
    let (_, total) = radix_exclusive_sum(w, v, sums).await?;
    w.syncthreads("radix_sum: __syncthreads()").await?;
    Ok(total)
}

/// `x + part.row * ld + i`: element `i` of the part's row of the input.
fn element_at(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    i: &Lanes<u64>,
) -> Result<Lanes<u64>, SimError> {
    let u = Lanes::splat;
    let row = w.mul_u64(&u(part.row), &u(ra.r.input.ld), "x + part.row * ld")?;
    let row = w.add_u64(&u(ra.r.input.offset), &row, "x + part.row * ld")?;
    w.add_u64(&row, i, "row[i]")
}

/// `radix + part.row * radix_ld`: the part's row of the radix buffer (its first word).
fn row_words(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
) -> Result<Lanes<u64>, SimError> {
    let (row, ld) = (Lanes::splat(part.row), Lanes::splat(u64::from(ra.r.words_ld)));
    w.mul_u64(&row, &ld, "radix + part.row * radix_ld")
}

/// The tile loads of the part from `base` (per thread): element `base + j * RADIX_THREADS` for
/// each `j < RADIX_ITEMS` below `part.end`, all loaded before any is counted, and the lanes
/// that loaded each.
async fn load_items(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    base: &Lanes<u64>,
    label: &'static str,
) -> Result<Vec<(Lanes<u32>, Lanes<bool>)>, SimError> {
    let mut v = Vec::with_capacity(RADIX_ITEMS as usize);
    for j in 0..u64::from(RADIX_ITEMS) {
        let i = base.map(|b| b + j * u64::from(RADIX_THREADS));
        let valid = i.map(|i| i < u64::from(part.end));
        let saved = w.push_active(&valid, "if (i < part.end)")?;
        let at = element_at(w, ra, part, &i)?;
        let x = w.ld_input(ra.x, &at, label).await?;
        w.pop_active(saved);
        v.push((x, valid));
    }
    Ok(v)
}

/// The element bits' own keys (`own_key`) in the mode.
fn own_keys(ra: &RadixArgs<'_>, v: &Lanes<u32>) -> Lanes<u32> {
    let sign = ra.a.sign();
    v.map(|b| own_key(&ra.a, ra.elem, b, sign))
}

/// The two lines of [`count_digits`] and [`count_groups`] that count a key: its digit's bin
/// gains one where its higher digits are the prefix (`labels`: the two lines as each writes
/// them).
async fn count_key(
    w: &mut Warp<'_>,
    (key, key_bits): (&Lanes<u32>, u32),
    prefix: u32,
    (shift, bits): (u32, u32),
    (test, add): (&'static str, &'static str),
) -> Result<(), SimError> {
    let (hi, mask) = (shift + bits, (1u32 << bits) - 1);
    let matched = w.push_active(&key.map(|k| above_matches(k, prefix, hi, key_bits)), test)?;
    let bin = key.map(|k| HIST + ((k >> shift) & mask));
    w.atomic_add_shared(&bin, &Lanes::splat(1), add).await?;
    w.pop_active(matched);
    Ok(())
}

/// `RADIX_GROUP`: the elements of one 16-byte load (4 f32, 8 f16 or bf16).
fn radix_group(ra: &RadixArgs<'_>) -> u64 {
    16 / ra.elem.bytes() as u64
}

/// Where the part's whole tiles end (`whole` of `count_groups` and `keep_groups`).
fn whole_tiles(part: RadixPart) -> u64 {
    let (start, end) = (u64::from(part.start), u64::from(part.end));
    start + (end - start) / RADIX_TILE * RADIX_TILE
}

/// One tile's 16-byte loads from `tile` (`g[j] = uint4 row[..]` of `count_groups` and
/// `keep_groups`): each thread `RADIX_ITEMS / RADIX_GROUP` groups of `RADIX_GROUP`
/// consecutive elements, every element's raw bits with its index, in order `j`, `q`.
async fn load_groups(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    tile: u64,
    label: &'static str,
) -> Result<Vec<(Lanes<u32>, Lanes<u64>)>, SimError> {
    let group = radix_group(ra);
    let tid = w.thread_idx();
    let mut out = Vec::with_capacity(RADIX_ITEMS as usize);
    for j in 0..u64::from(RADIX_ITEMS) / group {
        let i = tid.map(|t| tile + (j * u64::from(RADIX_THREADS) + u64::from(t)) * group);
        let at = element_at(w, ra, part, &i)?;
        let g = match group {
            4 => w.ld_input_v4(ra.x, &at, label).await?.to_vec(),
            _ => w.ld_input_v8(ra.x, &at, label).await?.to_vec(),
        };
        for (q, v) in (0u64..).zip(g) {
            out.push((v, i.map(|i| i + q)));
        }
    }
    Ok(out)
}

/// Whether the part starts 16 bytes aligned (its row's start decides: parts start at whole
/// tiles), so that `count_groups` / `keep_groups` read its whole tiles.
fn starts_aligned(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    label: &'static str,
) -> Result<bool, SimError> {
    let first = element_at(w, ra, part, &Lanes::splat(u64::from(part.start)))?;
    Ok(w.uniform(&first, label)? % radix_group(ra) == 0)
}

/// `count_groups`: [`count_digits`] over the part's whole tiles by 16-byte loads, each thread
/// `RADIX_ITEMS / RADIX_GROUP` groups of `RADIX_GROUP` consecutive elements a tile (the part
/// starts 16 bytes aligned: the caller checked); returns where the whole tiles end.
async fn count_groups(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    prefix: u32,
    (shift, bits): (u32, u32),
) -> Result<u64, SimError> {
    let whole = whole_tiles(part);
    let mut tile = u64::from(part.start);
    while tile < whole {
        let label = "count_groups: g[j] = uint4 row[tile + ..]";
        for (v, _) in &load_groups(w, ra, part, tile, label).await? {
            let labels = (
                "count_groups: if (above_matches(key, prefix, hi))",
                "count_groups: atomicAdd(&hist[(key >> shift) & mask], 1)",
            );
            count_key(w, (&own_keys(ra, v), ra.key_bits), prefix, (shift, bits), labels).await?;
        }
        tile += RADIX_TILE;
    }
    Ok(whole)
}

/// `count_digits`: the block's histogram (`hist`, shared) of the pass's digit (bits `[shift,
/// shift + bits)`) over its part's keys whose higher digits are the prefix; [`RADIX_ITEMS`]
/// loads a thread in flight before any count. A part that starts 16 bytes aligned (its row's
/// start decides: parts start at whole tiles; the input buffer's own start is) reads its
/// whole tiles by 16-byte loads ([`count_groups`]), the rest one element at a time.
async fn count_digits(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    prefix: u32,
    (shift, bits): (u32, u32),
) -> Result<(), SimError> {
    let start = if starts_aligned(w, ra, part, "count_digits: row + part.start")? {
        count_groups(w, ra, part, prefix, (shift, bits)).await?
    } else {
        u64::from(part.start)
    };
    let mut base = w.thread_idx().map(|t| start + u64::from(t));
    loop {
        let inside = base.map(|b| b < u64::from(part.end));
        let saved = w.push_active(&inside, "count_digits: base < part.end")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            return Ok(());
        }
        let items = load_items(w, ra, part, &base, "count_digits: v[j] = row[i]").await?;
        for (v, valid) in &items {
            let inner = w.push_active(valid, "count_digits: if (i >= part.end) continue")?;
            let labels = (
                "count_digits: if (above_matches(key, prefix, hi))",
                "count_digits: atomicAdd(&hist[(key >> shift) & mask], 1)",
            );
            count_key(w, (&own_keys(ra, v), ra.key_bits), prefix, (shift, bits), labels).await?;
            w.pop_active(inner);
        }
        let next = base.map(|b| b + RADIX_TILE);
        w.assign(&mut base, &next);
        w.pop_active(saved);
    }
}

/// Which digit pass a step is (`RADIX_FIRST`, `RADIX_KEEP`, `RADIX_LATER`): the first (over
/// every key), the second ([`keep_digits`]) or a later one ([`count_listed`] while every
/// block's candidates fit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    First,
    Keep,
    Later,
}

/// `radix_pass`: the pass of digit `[shift, shift + bits)` of own keys of `key_bits` bits
/// (`RADIX_KEY_BITS`).
fn radix_pass(shift: u32, bits: u32, key_bits: u32) -> Pass {
    let hi = shift + bits;
    if hi == key_bits {
        Pass::First
    } else if hi + RADIX_DIGIT_BITS == key_bits {
        Pass::Keep
    } else {
        Pass::Later
    }
}

/// `radix_span`: the elements of a warp's range ([`warp_range`]): a part cut into
/// [`RADIX_WARPS`] ranges.
fn radix_span(slice: u32) -> u32 {
    slice.div_ceil(RADIX_WARPS)
}

/// `RadixList`: a block's candidates in the candidates buffer: `count` keys of its part (all
/// kept where no more than the capacity) from word `keys`, their indices from word `idx`
/// (`capacity` words on), at the same place.
#[derive(Clone, Copy, Debug)]
struct RadixList {
    keys: u64,
    idx: u64,
    count: u32,
}

/// `radix_list`: the part's block's candidates, `2 * capacity` words from `(row *
/// blocks_per_row + b) * 2 * capacity` (keys, then indices), `count` of them.
fn radix_list(
    w: &mut Warp<'_>,
    (part, blocks_per_row): (RadixPart, u32),
    capacity: u32,
    count: u32,
) -> Result<RadixList, SimError> {
    let u = Lanes::splat;
    let label = "radix_list: part.row * blocks_per_row + part.b";
    let block = w.mul_u64(&u(part.row), &u(u64::from(blocks_per_row)), label)?;
    let block = w.add_u64(&block, &u(u64::from(part.b)), label)?;
    let label = "radix_list: cand + (..) * 2u * (u64)capacity";
    let keys = w.mul_u64(&block, &u(2 * u64::from(capacity)), label)?;
    let keys = w.uniform(&keys, "radix_list: keys")?;
    Ok(RadixList { keys, idx: keys + u64::from(capacity), count })
}

/// The simulator's check: a read of the candidates reads one the second pass kept, below the
/// block's count of them and below the capacity (a slot past either holds nothing of this
/// call's; the buffer starts poisoned besides, so a read of a slot never written is reported
/// where its value is used).
fn check_listed(
    w: &mut Warp<'_>,
    list: RadixList,
    capacity: u32,
    i: &Lanes<u32>,
    label: &'static str,
) -> Result<(), SimError> {
    w.check(&i.map(|i| i < list.count && i < capacity), label)
}

/// What [`keep_digits`] takes besides its part: the digit, the prefix found so far, the first
/// digit it keeps from and the block's list (the block's count of its candidates is the shared
/// word [`KEPT`]).
#[derive(Clone, Copy, Debug)]
struct Keep {
    digit: (u32, u32),
    prefix: u32,
    from: u32,
    list: RadixList,
}

/// `keep_key`: [`count_digits`]'s count of one key on a pass that keeps, and whether it keeps
/// it: its first digit is `keep.from` or above — on the second pass the prefix's (every key at
/// or above T: the write's too), on the first the sample's floor. Only the active lanes'
/// answers mean anything.
async fn keep_key(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    key: &Lanes<u32>,
    keep: Keep,
) -> Result<Lanes<bool>, SimError> {
    let (shift, bits) = keep.digit;
    let (hi, mask) = (shift + bits, (1u32 << bits) - 1);
    let counted = key.map(|k| above_matches(k, keep.prefix, hi, ra.key_bits));
    let label = "keep_key: if (above_matches(key, prefix, shift + bits))";
    let matched = w.push_active(&counted, label)?;
    let bin = key.map(|k| HIST + ((k >> shift) & mask));
    let add = "keep_key: atomicAdd(&hist[(key >> shift) & ((1u << bits) - 1u)], 1u)";
    w.atomic_add_shared(&bin, &Lanes::splat(1), add).await?;
    w.pop_active(matched);
    let first = first_shift(ra.key_bits);
    Ok(key.map(|k| k >> first >= keep.from))
}

/// `keep_place`: the first of each thread's `n` places in the block's candidates: its warp's
/// by one shared atomic on the block's count ([`KEPT`]) from lane 31 (whose inclusive scan is
/// the warp's), its own after its warp's lanes before it (`__shfl_up_sync` scan). The whole
/// warp calls it; the list's order is no one's concern (the count and the write order the
/// candidates by index themselves).
async fn keep_place(w: &mut Warp<'_>, n: &Lanes<u32>) -> Result<Lanes<u32>, SimError> {
    let lane = w.lane_id();
    let mut inclusive = *n;
    let mut d = 1u32;
    while d < 32 {
        let label = "keep_place: __shfl_up_sync(FULL_MASK, inclusive, d)";
        let other = w.shfl_up_sync(FULL_MASK, &inclusive, d, 32, label)?;
        let sum = inclusive.zip(&other, u32::wrapping_add);
        inclusive = Lanes::select(&lane.map(|l| l >= d), &sum, &inclusive);
        d <<= 1;
    }
    let mut first = Lanes::splat(0u32);
    let saved = w.push_active(&lane.map(|l| l == 31), "keep_place: if (lane == 31u)")?;
    let label = "keep_place: first = atomicAdd(kept, inclusive)";
    let old = w.atomic_add_shared(&Lanes::splat(KEPT), &inclusive, label).await?;
    w.assign(&mut first, &old);
    w.pop_active(saved);
    let label = "keep_place: __shfl_sync(FULL_MASK, first, 31u)";
    let first = w.shfl_sync(FULL_MASK, &first, 31, 32, label)?;
    let label = "keep_place: first + inclusive - n";
    let end = w.add_u32(&first, &inclusive, label)?;
    w.sub_u32(&end, n, label)
}

/// A thread's key that the second pass looked at: its own key and its index in the row.
type Item = (Lanes<u32>, Lanes<u64>);

/// The stores of [`keep_groups`] and [`keep_digits`] (`labels`: the two stores as each writes
/// them): each thread's kept keys (bit `b` of `mine`: `items[b]`), from `place` on in order,
/// with their indices, where the place lies below the capacity; those past it are counted
/// (`++place`), not kept.
async fn store_kept(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    list: RadixList,
    (items, mine, place): (&[Item], &Lanes<u32>, Lanes<u32>),
    labels: (&'static str, &'static str),
) -> Result<(), SimError> {
    let mut place = place;
    for (b, (key, i)) in (0u32..).zip(items) {
        let take = mine.map(|m| (m >> b) & 1 == 1);
        let stored = take.zip(&place, |t, p| t && p < ra.r.capacity);
        let saved = w.push_active(&stored, "if (place < capacity)")?;
        let keys = place.map(|p| list.keys + u64::from(p));
        w.st_global(ra.cand, &keys, key, labels.0).await?;
        let index = i.map(|i| i as u32); // i < m < 2^32
        w.st_global(ra.cand, &place.map(|p| list.idx + u64::from(p)), &index, labels.1).await?;
        w.pop_active(saved);
        place = place.zip(&take, |p, t| p.wrapping_add(u32::from(t)));
    }
    Ok(())
}

/// `keep_groups`: [`keep_digits`] over the part's whole tiles by 16-byte loads
/// ([`count_groups`]'s layout; the part starts 16 bytes aligned: the caller checked); returns
/// where they end. Bit `j * RADIX_GROUP + q` of a thread's `mine`: element `q` of its group
/// `j` kept.
async fn keep_groups(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    keep: Keep,
) -> Result<u64, SimError> {
    let whole = whole_tiles(part);
    let mut tile = u64::from(part.start);
    while tile < whole {
        let label = "keep_groups: g[j] = uint4 row[tile + ..]";
        let loaded = load_groups(w, ra, part, tile, label).await?;
        let items: Vec<Item> = loaded.iter().map(|(v, i)| (own_keys(ra, v), *i)).collect();
        let mut mine = Lanes::splat(0u32);
        for (b, (key, _)) in (0u32..).zip(&items) {
            let kept = keep_key(w, ra, key, keep).await?;
            mine = mine.zip(&kept, |m, k| m | u32::from(k) << b);
        }
        let label = "keep_groups: __any_sync(FULL_MASK, mine != 0u)";
        let any = w.any_sync(FULL_MASK, &mine.map(|m| m != 0), label)?;
        if w.uniform(&any, label)? {
            let place = keep_place(w, &mine.map(u32::count_ones)).await?;
            let labels = (
                "keep_groups: list.keys[place] = own_key(e[q], sign)",
                "keep_groups: list.idx[place] = (u32)(tile + ..)",
            );
            store_kept(w, ra, keep.list, (&items, &mine, place), labels).await?;
        }
        tile += RADIX_TILE;
    }
    Ok(whole)
}

/// `keep_digits`: [`count_digits`], which also keeps the keys whose first digit is `keep.from`
/// or above ([`keep_key`]: on the second pass every key that can still be the k-th, and every
/// key above it) in the block's candidates where they fit; those past the capacity are
/// counted, not kept. A window that keeps none (most) costs one vote. Whole tiles by 16-byte
/// loads where the part starts aligned ([`keep_groups`]), the rest one element at a time; that
/// loop runs whole warps (for the votes): `first` is the warp's lane 0's element.
async fn keep_digits(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    keep: Keep,
) -> Result<(), SimError> {
    let start = if starts_aligned(w, ra, part, "keep_digits: row + part.start")? {
        keep_groups(w, ra, part, keep).await?
    } else {
        u64::from(part.start)
    };
    let lane = w.lane_id();
    let mut first = start + u64::from(w.warp_idx() * 32);
    while first < u64::from(part.end) {
        let base = lane.map(|l| first + u64::from(l));
        let loaded = load_items(w, ra, part, &base, "keep_digits: v[j] = row[i]").await?;
        let (mut items, mut mine) = (Vec::with_capacity(loaded.len()), Lanes::splat(0u32));
        for (j, (v, valid)) in (0u32..).zip(&loaded) {
            let inner = w.push_active(valid, "keep_digits: if (i < part.end && keep_key(..))")?;
            let key = own_keys(ra, v);
            let kept = keep_key(w, ra, &key, keep).await?;
            w.pop_active(inner);
            // the lanes past the part keep nothing (their keys are poisoned: never loaded)
            let kept = Lanes::select(valid, &kept, &Lanes::splat(false));
            mine = mine.zip(&kept, |m, k| m | u32::from(k) << j);
            items.push((key, base.map(|b| b + u64::from(j * RADIX_THREADS))));
        }
        let label = "keep_digits: __any_sync(FULL_MASK, mine != 0u)";
        let any = w.any_sync(FULL_MASK, &mine.map(|m| m != 0), label)?;
        if w.uniform(&any, label)? {
            let place = keep_place(w, &mine.map(u32::count_ones)).await?;
            let labels = (
                "keep_digits: list.keys[place] = own_key(v[j], sign)",
                "keep_digits: list.idx[place] = (u32)(base + j * RADIX_THREADS)",
            );
            store_kept(w, ra, keep.list, (&items, &mine, place), labels).await?;
        }
        first += RADIX_TILE;
    }
    Ok(())
}

/// `count_listed`: [`count_digits`] over the block's candidates.
async fn count_listed(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    list: RadixList,
    prefix: u32,
    (shift, bits): (u32, u32),
) -> Result<(), SimError> {
    let (hi, mask) = (shift + bits, (1u32 << bits) - 1);
    let mut i = w.thread_idx();
    loop {
        let inside = i.map(|i| i < list.count);
        let saved = w.push_active(&inside, "count_listed: i < list.count")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            return Ok(());
        }
        check_listed(w, list, ra.r.capacity, &i, "count_listed: i < count && i < capacity")?;
        let at = i.map(|i| list.keys + u64::from(i));
        let key = w.ld_global(ra.cand, &at, "count_listed: key = list.keys[i]").await?;
        let counted = key.map(|k| above_matches(k, prefix, hi, ra.key_bits));
        let label = "count_listed: if (above_matches(key, prefix, hi))";
        let matched = w.push_active(&counted, label)?;
        let bin = key.map(|k| HIST + ((k >> shift) & mask));
        let label = "count_listed: atomicAdd(&hist[(key >> shift) & mask], 1u)";
        w.atomic_add_shared(&bin, &Lanes::splat(1), label).await?;
        w.pop_active(matched);
        let next = i.map(|i| i + RADIX_THREADS);
        w.assign(&mut i, &next);
        w.pop_active(saved);
    }
}

/// `add_histogram`: the block's non-zero bins added to the row's.
async fn add_histogram(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
) -> Result<(), SimError> {
    let tid = w.thread_idx();
    let words = row_words(w, ra, part)?;
    for j in 0..(RADIX_BINS as u32).div_ceil(RADIX_THREADS) {
        let bin = tid.map(|t| t + j * RADIX_THREADS);
        let h = w.ld_shared(&bin.map(|b| HIST + b), "add_histogram: hist[bin]").await?;
        let saved = w.push_active(&h.map(|c| c != 0), "add_histogram: hist[bin] != 0")?;
        let at = words.zip(&bin, |a, b| a + u64::from(b));
        let label = "add_histogram: atomicAdd(&words[bin], hist[bin])";
        w.atomic_add_global(ra.radix, &at, &h, label).await?;
        w.pop_active(saved);
    }
    Ok(())
}

/// The bin thread `t`'s `j`-th count holds in [`choose_digit`]: bins from the top down.
fn held_bin(a: &KernelArgs, t: u32, j: u32) -> u32 {
    let per = RADIX_BINS as u32 / RADIX_THREADS;
    if a.has(Mutant::RadixChooseFromBottom) {
        // BUG (RadixChooseFromBottom): the bins from the bottom up.
        return t * per + j;
    }
    RADIX_BINS as u32 - 1 - (t * per + j)
}

/// `read_bins`: by a row's last block, every block's counts in: each thread's bins of the
/// row's histogram from the top down (`c[j]`: [`held_bin`]), the keys of the bins above them
/// (an exclusive sum over the block) and the keys of every bin.
async fn read_bins(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
) -> Result<(Vec<Lanes<u32>>, Lanes<u32>, u32), SimError> {
    let per = RADIX_BINS as u32 / RADIX_THREADS;
    let tid = w.thread_idx();
    let (mut c, mut mine) = (Vec::with_capacity(per as usize), Lanes::splat(0u32));
    for j in 0..per {
        let bin = tid.map(|t| held_bin(&ra.a, t, j));
        let addr = words.zip(&bin, |a, b| a + u64::from(b));
        let cj = w.ld_global(ra.radix, &addr, "read_bins: c[j] = __ldcg(&words[bin])").await?;
        mine = mine.zip(&cj, u32::wrapping_add);
        c.push(cj);
    }
    let (above, total) = radix_exclusive_sum(w, &mine, SUMS).await?;
    Ok((c, above, total))
}

/// `choose_digit`: by the row's last block of the pass, every block's counts in. The digit of
/// the row's k-th key is the greatest d whose bins d and above hold at least `left` keys (k on
/// the first pass); the prefix gains d and `left` loses the keys of the bins above d
/// ([`read_bins`]). The histogram (its non-zero bins: the rest are zero) and the ticket are
/// cleared for the next pass. On the first pass the digit's bin and the bins above it are the
/// row's candidates. Where the first pass kept the keys of the sample's floor digit or above
/// (`RADIX_FLOOR`: one more than it), the digit is at or above the floor and no block
/// overflowed (`RADIX_OVER`), those are kept already (`RADIX_KEPT_FIRST`); else the second
/// pass keeps them (`RADIX_KEEP_SECOND`) only where they are at most `m / RADIX_KEEP_SHARE`
/// (`m` the launch's width; AIR Top-K's adaptive buffer, paper 002, §3.2: keeping many costs
/// more than reading the row again), and counts its own overflows from zero.
async fn choose_digit(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, own): (RadixPart, RadixRow),
    (shift, bits): (u32, u32),
) -> Result<(), SimError> {
    let per = RADIX_BINS as u32 / RADIX_THREADS;
    let first = shift + bits == ra.key_bits;
    let u = Lanes::splat;
    let words = row_words(w, ra, part)?;
    let at = |word: u64| words.map(|a| a + word);
    let (left, prefix) = if first {
        (u(own.k), u(0))
    } else {
        let label = "choose_digit: __ldcg(&words[RADIX_LEFT])";
        let left = w.ld_global(ra.radix, &at(RADIX_LEFT), label).await?;
        let label = "choose_digit: __ldcg(&words[RADIX_PREFIX])";
        (left, w.ld_global(ra.radix, &at(RADIX_PREFIX), label).await?)
    };
    // read before the barrier of read_bins's sum, which orders them before the write of the
    // one thread that finds the digit
    let (floor, over) = if first {
        let label = "choose_digit: floor = __ldcg(&words[RADIX_FLOOR])";
        let floor = w.ld_global(ra.radix, &at(RADIX_FLOOR), label).await?;
        let label = "choose_digit: over = __ldcg(&words[RADIX_OVER])";
        (floor, w.ld_global(ra.radix, &at(RADIX_OVER), label).await?)
    } else {
        (u(0), u(0))
    };
    let tid = w.thread_idx();
    let (c, mut above, total) = read_bins(w, ra, &words).await?;
    // the simulator's check: the keys under the prefix hold the `left` still to find
    let need = w.uniform(&left, "choose_digit: left")?;
    w.check_that(total >= need, "choose_digit: the bins hold at least `left` keys")?;
    for (j, cj) in (0..per).zip(&c) {
        let bin = tid.map(|t| held_bin(&ra.a, t, j));
        let hit = Lanes::from_fn(|l| {
            let (a, n) = (above.lane(l), left.lane(l));
            a < n && a.wrapping_add(cj.lane(l)) >= n
        });
        let saved = w.push_active(&hit, "choose_digit: above < left && above + c[j] >= left")?;
        let digit = w.shl(&bin, &u(shift), "choose_digit: bin << shift")?;
        let label = "choose_digit: words[RADIX_PREFIX] = prefix | (bin << shift)";
        w.st_global(ra.radix, &at(RADIX_PREFIX), &prefix.zip(&digit, |p, d| p | d), label).await?;
        let rest = w.sub_u32(&left, &above, "choose_digit: left - above")?;
        let label = "choose_digit: words[RADIX_LEFT] = left - above";
        w.st_global(ra.radix, &at(RADIX_LEFT), &rest, label).await?;
        if first {
            let kept = Lanes::from_fn(|l| {
                let f = floor.lane(l);
                f != 0 && bin.lane(l) + 1 >= f && over.lane(l) == 0
            });
            let few = m_share(ra.r.m); // the launch's width: a ragged row keeps as a full one
            let second =
                above.zip(cj, |a, c| if a.wrapping_add(c) <= few { RADIX_KEEP_SECOND } else { 0 });
            let keeps = Lanes::select(&kept, &u(RADIX_KEPT_FIRST), &second);
            let label = "choose_digit: words[RADIX_KEEPS] = kept ? RADIX_KEPT_FIRST : above + \
                         c[j] <= m / RADIX_KEEP_SHARE ? RADIX_KEEP_SECOND : 0u";
            w.st_global(ra.radix, &at(RADIX_KEEPS), &keeps, label).await?;
            let inner = w.push_active(&kept.map(|k| !k), "choose_digit: if (first && !kept)")?;
            let label = "choose_digit: words[RADIX_OVER] = 0u";
            w.st_global(ra.radix, &at(RADIX_OVER), &u(0), label).await?;
            w.pop_active(inner);
        }
        w.pop_active(saved);
        above = above.zip(cj, u32::wrapping_add);
        let addr = words.zip(&bin, |a, b| a + u64::from(b));
        let label = "choose_digit: if (c[j] != 0u) words[bin] = 0u";
        let saved = w.push_active(&cj.map(|c| c != 0), label)?;
        w.st_global(ra.radix, &addr, &u(0), label).await?;
        w.pop_active(saved);
    }
    let saved = w.push_active(&tid.map(|t| t == 0), "choose_digit: if (threadIdx.x == 0)")?;
    w.st_global(ra.radix, &at(RADIX_DONE), &u(0), "choose_digit: words[RADIX_DONE] = 0").await?;
    w.pop_active(saved);
    Ok(())
}

/// `keep_counts`: the candidates a keeping pass found in the block's part (`kept`: kept where
/// no more than the capacity), and whether they overflowed (the row's count of blocks that
/// did).
async fn keep_counts(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (words, kept): (&Lanes<u64>, u32),
    part: RadixPart,
) -> Result<(), SimError> {
    let (tid, u) = (w.thread_idx(), Lanes::splat);
    let (blocks, b) = (u64::from(ra.r.blocks_per_row), u64::from(part.b));
    let saved = w.push_active(&tid.map(|t| t == 0), "keep_counts: if (threadIdx.x == 0u)")?;
    let label = "keep_counts: words[RADIX_KEPT(blocks_per_row, part.b)] = kept";
    w.st_global(ra.radix, &words.map(|a| a + radix_kept(blocks, b)), &u(kept), label).await?;
    if kept > ra.r.capacity {
        let label = "keep_counts: if (kept > capacity) atomicAdd(&words[RADIX_OVER], 1u)";
        w.atomic_add_global(ra.radix, &words.map(|a| a + RADIX_OVER), &u(1), label).await?;
    }
    w.pop_active(saved);
    Ok(())
}

/// `take_ticket`: whether the block is its row's last to end the pass (thread 0's ticket,
/// after the block's barrier and its `__threadfence`: every block's additions are in before
/// the last one's ticket; the kernel's comment says why one fence a block).
async fn take_ticket(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
) -> Result<bool, SimError> {
    let tid = w.thread_idx();
    w.syncthreads("take_ticket: __syncthreads() before the ticket").await?;
    let saved = w.push_active(&tid.map(|t| t == 0), "take_ticket: if (threadIdx.x == 0u)")?;
    w.threadfence().await?;
    let at = words.map(|a| a + RADIX_DONE);
    let label = "take_ticket: atomicAdd(&words[RADIX_DONE], 1u)";
    let ticket = w.atomic_add_global(ra.radix, &at, &Lanes::splat(1), label).await?;
    let last = ticket.map(|t| u32::from(t == ra.r.blocks_per_row - 1));
    w.st_shared(&Lanes::splat(LAST), &last, "take_ticket: *last = ticket == bpr - 1").await?;
    w.pop_active(saved);
    w.syncthreads("take_ticket: __syncthreads() after the ticket").await?;
    let last = w.ld_shared(&Lanes::splat(LAST), "take_ticket: return *last").await?;
    w.branch(&last.map(|l| l != 0), "take_ticket: return *last")
}

/// `hist[bin] = 0u` of both entry points: the block's shared histogram zeroed before its
/// pass.
async fn clear_histogram(w: &mut Warp<'_>, label: &'static str) -> Result<(), SimError> {
    let tid = w.thread_idx();
    for j in 0..(RADIX_BINS as u32).div_ceil(RADIX_THREADS) {
        let bin = tid.map(|t| HIST + t + j * RADIX_THREADS);
        w.st_shared(&bin, &Lanes::splat(0), label).await?;
    }
    Ok(())
}

/// `sample_digits`: the block's histogram (`hist`, shared) of the first digit over the row's
/// tiles of its part whose number is a multiple of [`RADIX_SAMPLE_EVERY`]: [`count_digits`]
/// over each (every key's first digit: the prefix is empty).
async fn sample_digits(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    part: RadixPart,
    digit: (u32, u32),
) -> Result<(), SimError> {
    let every = RADIX_SAMPLE_EVERY * RADIX_TILE;
    let mut tile = u64::from(part.start).div_ceil(every) * every;
    while tile < u64::from(part.end) {
        // tile < part.end < 2^32
        let end = (tile + RADIX_TILE).min(u64::from(part.end));
        let one = RadixPart { start: tile as u32, end: end as u32, ..part };
        count_digits(w, ra, one, 0, digit).await?;
        tile += every;
    }
    Ok(())
}

/// `choose_floor`: by the row's last block of the sample. The floor digit is the greatest d
/// whose bins d and above hold at least [`RADIX_SAMPLE_MARGIN`] times the sample's share of k,
/// plus [`RADIX_SAMPLE_SLACK`], sampled keys — where they stand for at most
/// `m / RADIX_KEEP_SHARE` keys of the row (`m` the launch's; the row's own m and k otherwise);
/// `RADIX_FLOOR` is one more than it (0: no floor).
/// The histogram and the ticket are cleared for the first pass.
async fn choose_floor(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, own): (RadixPart, RadixRow),
) -> Result<(), SimError> {
    let per = RADIX_BINS as u32 / RADIX_THREADS;
    let u = Lanes::splat;
    let words = row_words(w, ra, part)?;
    let at = |word: u64| words.map(|a| a + word);
    let tid = w.thread_idx();
    let (c, mut above, total) = read_bins(w, ra, &words).await?;
    let (k, m) = (u64::from(own.k), u64::from(own.m)); // m >= k > 0
    let need = RADIX_SAMPLE_MARGIN * (k * u64::from(total)).div_ceil(m) + RADIX_SAMPLE_SLACK;
    // the sampled keys that stand for the launch's m / RADIX_KEEP_SHARE of the row's (total on
    // a plain row; total < m / 32: no overflow)
    let budget = u64::from(total) * u64::from(ra.r.m) / m;
    for (j, cj) in (0..per).zip(&c) {
        let bin = tid.map(|t| held_bin(&ra.a, t, j));
        let hit = Lanes::from_fn(|l| {
            let held = u64::from(above.lane(l)) + u64::from(cj.lane(l));
            u64::from(above.lane(l)) < need && held >= need && held * RADIX_KEEP_SHARE <= budget
        });
        let label =
            "choose_floor: above < need && held >= need && held * RADIX_KEEP_SHARE <= budget";
        let saved = w.push_active(&hit, label)?;
        let label = "choose_floor: words[RADIX_FLOOR] = bin + 1u";
        w.st_global(ra.radix, &at(RADIX_FLOOR), &bin.map(|b| b + 1), label).await?;
        w.pop_active(saved);
        above = above.zip(cj, u32::wrapping_add);
        let addr = words.zip(&bin, |a, b| a + u64::from(b));
        let label = "choose_floor: if (c[j] != 0u) words[bin] = 0u";
        let saved = w.push_active(&cj.map(|c| c != 0), label)?;
        w.st_global(ra.radix, &addr, &u(0), label).await?;
        w.pop_active(saved);
    }
    let saved = w.push_active(&tid.map(|t| t == 0), "choose_floor: if (threadIdx.x == 0u)")?;
    w.st_global(ra.radix, &at(RADIX_DONE), &u(0), "choose_floor: words[RADIX_DONE] = 0u").await?;
    w.pop_active(saved);
    Ok(())
}

/// `rtopk_radix_sample`: the sample of the row's tiles ([`sample_digits`]) over the block's
/// part, its histogram added to the row's; the row's last block ([`take_ticket`]) chooses the
/// floor digit.
async fn rtopk_radix_sample(w: &mut Warp<'_>, ra: &RadixArgs<'_>) -> Result<(), SimError> {
    let r = &ra.r;
    let own = radix_row(w, ra);
    if own.k == 0 {
        return Ok(()); // nothing selected: the write only pads
    }
    let part = radix_part(w, (r.m, own.m), own.slice, r.blocks_per_row)?;
    let words = row_words(w, ra, part)?;
    clear_histogram(w, "rtopk_radix_sample: hist[bin] = 0u").await?;
    w.syncthreads("rtopk_radix_sample: __syncthreads() after clearing hist").await?;
    sample_digits(w, ra, part, (r.shift, r.bits)).await?;
    w.syncthreads("rtopk_radix_sample: __syncthreads() after sample_digits").await?;
    add_histogram(w, ra, part).await?;
    if !take_ticket(w, ra, &words).await? {
        return Ok(());
    }
    w.threadfence().await?;
    choose_floor(w, ra, (part, own)).await
}

/// `rtopk_radix_digits`: one digit pass (`[shift, shift + bits)` of the own key) over the
/// block's part ([`radix_pass`]: the first after a sample, or the second without one, keeps
/// the candidates; a pass after the one that kept them reads them while every block's fit):
/// its histogram added to the row's; the row's last block to take a ticket ([`take_ticket`])
/// chooses the digit.
async fn rtopk_radix_digits(w: &mut Warp<'_>, ra: &RadixArgs<'_>) -> Result<(), SimError> {
    let r = &ra.r;
    let own = radix_row(w, ra);
    if own.k == 0 {
        return Ok(()); // nothing selected: the write only pads
    }
    let part = radix_part(w, (r.m, own.m), own.slice, r.blocks_per_row)?;
    let words = row_words(w, ra, part)?;
    let pass = radix_pass(r.shift, r.bits, ra.key_bits);
    // the previous passes' (and the sample's), ended before this one
    let (prefix, floor, keeps) = if pass == Pass::First {
        let label = "rtopk_radix_digits: words[RADIX_FLOOR]";
        let f = w.ld_global(ra.radix, &words.map(|a| a + RADIX_FLOOR), label).await?;
        (0, w.uniform(&f, label)?, 0)
    } else {
        let at = words.map(|a| a + RADIX_PREFIX);
        let p = w.ld_global(ra.radix, &at, "rtopk_radix_digits: words[RADIX_PREFIX]").await?;
        let p = w.uniform(&p, "rtopk_radix_digits: prefix")?;
        (p, 0, keeps_of(w, ra, &words).await?)
    };
    // the first pass keeps the candidates where the sample found a floor, the second where the
    // first chose to; the passes after the one that kept them read them where every block's fit
    let keep = floor != 0 || (pass == Pass::Keep && keeps == RADIX_KEEP_SECOND);
    let listed = !keep && keeps != 0 && row_fits(w, ra, &words).await?;
    let count = if listed { kept_of(w, ra, &words, part).await? } else { 0 };
    let list = radix_list(w, (part, r.blocks_per_row), r.capacity, count)?;
    let tid = w.thread_idx();
    clear_histogram(w, "rtopk_radix_digits: hist[bin] = 0").await?;
    let saved =
        w.push_active(&tid.map(|t| t == 0), "rtopk_radix_digits: if (threadIdx.x == 0u)")?;
    w.st_shared(&Lanes::splat(KEPT), &Lanes::splat(0), "rtopk_radix_digits: kept = 0u").await?;
    w.pop_active(saved);
    w.syncthreads("rtopk_radix_digits: __syncthreads() after clearing hist").await?;
    let digit = (r.shift, r.bits);
    if keep {
        let from = if floor != 0 { floor - 1 } else { prefix >> first_shift(ra.key_bits) };
        keep_digits(w, ra, part, Keep { digit, prefix, from, list }).await?;
    } else if listed {
        count_listed(w, ra, list, prefix, digit).await?;
    } else {
        count_digits(w, ra, part, prefix, digit).await?;
    }
    w.syncthreads("rtopk_radix_digits: __syncthreads() after count_digits").await?;
    if keep {
        let label = "rtopk_radix_digits: keep_counts(.., kept, ..)";
        let kept = w.ld_shared(&Lanes::splat(KEPT), label).await?;
        let kept = w.uniform(&kept, label)?;
        keep_counts(w, ra, (&words, kept), part).await?;
    }
    add_histogram(w, ra, part).await?;
    let last = take_ticket(w, ra, &words).await?;
    // BUG (RadixEveryBlockChooses): no `if (!last) return;`.
    if !last && !ra.a.has(Mutant::RadixEveryBlockChooses) {
        return Ok(());
    }
    w.threadfence().await?;
    choose_digit(w, ra, (part, own), (r.shift, r.bits)).await
}

/// `WarpRange`: the warp's range of its block's part, elements `[start, end)`.
#[derive(Clone, Copy, Debug)]
struct WarpRange {
    start: u32,
    end: u32,
}

/// `warp_range`: the part cut into [`RADIX_WARPS`] ranges of `ceil(slice / RADIX_WARPS)`
/// elements, in order (the last ones short or empty); warp `warp_idx`'s.
fn warp_range(w: &Warp<'_>, part: RadixPart, slice: u32) -> WarpRange {
    let span = u64::from(radix_span(slice));
    let start = u64::from(part.start) + u64::from(w.warp_idx()) * span;
    let end = u64::from(part.end);
    WarpRange { start: start.min(end) as u32, end: (start + span).min(end) as u32 }
}

/// A window of the warp's range from `base` (warp-uniform): element `base + 32 j + lane` for
/// each `j < RADIX_ITEMS` below `range.end`, all loaded before any is looked at, and the
/// lanes that loaded each.
async fn load_window(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, range): (RadixPart, WarpRange),
    base: &Lanes<u64>,
    label: &'static str,
) -> Result<Vec<(Lanes<u32>, Lanes<bool>)>, SimError> {
    let mut v = Vec::with_capacity(RADIX_ITEMS as usize);
    for j in 0..u64::from(RADIX_ITEMS) {
        let i = base.map(|b| b + 32 * j);
        let valid = i.map(|i| i < u64::from(range.end));
        let saved = w.push_active(&valid, "if (i < range.end)")?;
        let at = element_at(w, ra, part, &i)?;
        let x = w.ld_input(ra.x, &at, label).await?;
        w.pop_active(saved);
        v.push((x, valid));
    }
    Ok(v)
}

/// `count_part`: the warp's keys above T (`gt`) and at T (`eq`) in its range, summed over the
/// warp (`__reduce_add_sync`).
async fn count_part(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, range): (RadixPart, WarpRange),
    t: u32,
) -> Result<(u32, u32), SimError> {
    let (mut gt, mut eq) = (Lanes::splat(0u32), Lanes::splat(0u32));
    let mut base = w.lane_id().map(|l| u64::from(range.start) + u64::from(l));
    loop {
        let inside = base.map(|b| b < u64::from(range.end));
        let saved = w.push_active(&inside, "count_part: base < range.end")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            break;
        }
        let items = load_window(w, ra, (part, range), &base, "count_part: v[j] = row[i]").await?;
        for (v, valid) in &items {
            let inner = w.push_active(valid, "count_part: if (i >= range.end) continue")?;
            let key = own_keys(ra, v);
            let more_gt = gt.zip(&key, |c, k| c.wrapping_add(u32::from(k > t)));
            let more_eq = eq.zip(&key, |c, k| c.wrapping_add(u32::from(k == t)));
            w.assign(&mut gt, &more_gt);
            w.assign(&mut eq, &more_eq);
            w.pop_active(inner);
        }
        let next = base.map(|b| b + 32 * u64::from(RADIX_ITEMS));
        w.assign(&mut base, &next);
        w.pop_active(saved);
    }
    let gt = w.reduce_add_sync(FULL_MASK, &gt, "count_part: __reduce_add_sync(above)")?;
    let eq = w.reduce_add_sync(FULL_MASK, &eq, "count_part: __reduce_add_sync(at)")?;
    Ok((w.uniform(&gt, "count_part: *gt")?, w.uniform(&eq, "count_part: *eq")?))
}

/// `words[RADIX_KEEPS]`: whether the second pass keeps the row's candidates
/// ([`RADIX_KEEP_SECOND`]), the first kept them ([`RADIX_KEPT_FIRST`]) or neither (0): the
/// first pass's choice.
async fn keeps_of(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
) -> Result<u32, SimError> {
    let label = "words[RADIX_KEEPS]";
    let keeps = w.ld_global(ra.radix, &words.map(|a| a + RADIX_KEEPS), label).await?;
    w.uniform(&keeps, label)
}

/// `words[RADIX_KEEPS] != 0u`: whether the row's candidates were kept by some pass.
async fn row_keeps(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
) -> Result<bool, SimError> {
    Ok(keeps_of(w, ra, words).await? != 0)
}

/// `words[RADIX_OVER] == 0u`: whether every block of the row kept all its candidates (the
/// second pass's count of blocks that did not, ended before this step).
async fn row_fits(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
) -> Result<bool, SimError> {
    let label = "words[RADIX_OVER] == 0u";
    let over = w.ld_global(ra.radix, &words.map(|a| a + RADIX_OVER), label).await?;
    Ok(w.uniform(&over, label)? == 0)
}

/// `words[RADIX_KEPT(blocks_per_row, part.b)]`: the part's block's candidates.
async fn kept_of(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
    part: RadixPart,
) -> Result<u32, SimError> {
    let at = words.map(|a| a + radix_kept(u64::from(ra.r.blocks_per_row), u64::from(part.b)));
    let label = "words[RADIX_KEPT(blocks_per_row, part.b)]";
    let count = w.ld_global(ra.radix, &at, label).await?;
    w.uniform(&count, label)
}

/// `count_candidates`: the count from the block's candidates (every key of its part at or
/// above T among them): each one above T or at T counted in its warp range's (`counts`, the
/// shared `sums`: `[0]` above T, `[1]` at T), then the warps' counts and the block's written
/// ([`write_candidate_counts`]).
async fn count_candidates(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (words, part, slice): (&Lanes<u64>, RadixPart, u32),
    list: RadixList,
    t: u32,
) -> Result<(), SimError> {
    let (tid, u) = (w.thread_idx(), Lanes::splat);
    let counts = |tie: u32, warp: u32| SUMS + tie * RADIX_WARPS + warp;
    let label = "count_candidates: if (threadIdx.x < 2u * RADIX_WARPS)";
    let saved = w.push_active(&tid.map(|t| t < 2 * RADIX_WARPS), label)?;
    let label = "count_candidates: counts[..][..] = 0u";
    w.st_shared(&tid.map(|t| counts(0, t)), &u(0), label).await?;
    w.pop_active(saved);
    w.syncthreads("count_candidates: __syncthreads() after clearing counts").await?;
    let span = radix_span(slice);
    let mut i = tid;
    loop {
        let inside = i.map(|i| i < list.count);
        let saved = w.push_active(&inside, "count_candidates: i < list.count")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            break;
        }
        check_listed(w, list, ra.r.capacity, &i, "count_candidates: i < count && i < capacity")?;
        let at = i.map(|i| list.keys + u64::from(i));
        let key = w.ld_global(ra.cand, &at, "count_candidates: key = list.keys[i]").await?;
        // BUG (RadixCandidatesWithoutTies): `if (key <= T) continue`, the ties left out.
        let without_ties = ra.a.has(Mutant::RadixCandidatesWithoutTies);
        let counted = key.map(|k| if without_ties { k > t } else { k >= t });
        let at_least = w.push_active(&counted, "count_candidates: if (key < T) continue")?;
        let label = "count_candidates: list.idx[i]";
        let j = w.ld_global(ra.cand, &i.map(|i| list.idx + u64::from(i)), label).await?;
        // the simulator's check: the second pass kept an index of the block's part
        let label = "count_candidates: a candidate's index lies in its block's part";
        w.check(&j.map(|j| (part.start..part.end).contains(&j)), label)?;
        // (wrapping: the lanes masked off compute it from whatever their `j` holds, unused)
        let slot = key.zip(&j, |k, j| {
            counts(u32::from(k == t), 0).wrapping_add(j.wrapping_sub(part.start) / span)
        });
        let label =
            "count_candidates: atomicAdd(&counts[key == T][(list.idx[i] - part.start) / span], 1u)";
        w.atomic_add_shared(&slot, &u(1), label).await?;
        w.pop_active(at_least);
        let next = i.map(|i| i + RADIX_THREADS);
        w.assign(&mut i, &next);
        w.pop_active(saved);
    }
    w.syncthreads("count_candidates: __syncthreads() after the counts").await?;
    write_candidate_counts(w, ra, words, part).await
}

/// The end of [`count_candidates`]: each warp range's two counts written to its words (thread
/// `tie * RADIX_WARPS + w`), and the block's sums to the block's two (threads 0 and 1).
async fn write_candidate_counts(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
    part: RadixPart,
) -> Result<(), SimError> {
    let (tid, u) = (w.thread_idx(), Lanes::splat);
    let (blocks, b) = (u64::from(ra.r.blocks_per_row), u64::from(part.b));
    let label = "count_candidates: if (threadIdx.x < 2u * RADIX_WARPS)";
    let saved = w.push_active(&tid.map(|t| t < 2 * RADIX_WARPS), label)?;
    let c = w.ld_shared(&tid.map(|t| SUMS + t), "count_candidates: counts[tie][w]").await?;
    let at = words.zip(&tid, |a, t| {
        let (tie, warp) = (t / RADIX_WARPS, t % RADIX_WARPS);
        a + warp_counts(blocks, b, u64::from(warp)) + u64::from(tie)
    });
    let label = "count_candidates: words[RADIX_WARP_COUNTS(..) + tie] = counts[tie][w]";
    w.st_global(ra.radix, &at, &c, label).await?;
    w.pop_active(saved);
    let saved = w.push_active(&tid.map(|t| t < 2), "count_candidates: if (threadIdx.x < 2u)")?;
    let mut total = u(0u32);
    for i in 0..RADIX_WARPS {
        let at = tid.map(|t| SUMS + t * RADIX_WARPS + i);
        let s = w.ld_shared(&at, "count_candidates: total += counts[threadIdx.x][w]").await?;
        total = total.zip(&s, u32::wrapping_add);
    }
    let at = words.zip(&tid, |a, t| a + block_counts(b) + u64::from(t));
    let label = "count_candidates: words[RADIX_BLOCK_COUNTS(part.b) + threadIdx.x] = total";
    w.st_global(ra.radix, &at, &total, label).await?;
    w.pop_active(saved);
    Ok(())
}

/// `rtopk_radix_count`: where every block's candidates fit, the counts from them
/// ([`count_candidates`]); else each warp's keys above T and at T in its range, in its
/// two counts of the row's words, and the block's sums in the block's two.
async fn rtopk_radix_count(w: &mut Warp<'_>, ra: &RadixArgs<'_>) -> Result<(), SimError> {
    let r = &ra.r;
    let own = radix_row(w, ra);
    if own.k == 0 {
        return Ok(()); // nothing selected: the write only pads
    }
    let part = radix_part(w, (r.m, own.m), own.slice, r.blocks_per_row)?;
    let words = row_words(w, ra, part)?;
    let t = w.ld_global(ra.radix, &words.map(|a| a + RADIX_PREFIX), "rtopk_radix_count: T").await?;
    let t = w.uniform(&t, "rtopk_radix_count: T")?;
    if row_keeps(w, ra, &words).await? && row_fits(w, ra, &words).await? {
        let count = kept_of(w, ra, &words, part).await?;
        let list = radix_list(w, (part, r.blocks_per_row), r.capacity, count)?;
        return count_candidates(w, ra, (&words, part, own.slice), list, t).await;
    }
    let range = warp_range(w, part, own.slice);
    let (gt, eq) = count_part(w, ra, (part, range), t).await?;
    let (lane, warp, u) = (w.lane_id(), w.warp_idx(), Lanes::splat);
    let saved = w.push_active(&lane.map(|l| l == 0), "rtopk_radix_count: if (lane == 0)")?;
    let blocks = u64::from(r.blocks_per_row);
    let at = words.map(|a| a + warp_counts(blocks, u64::from(part.b), u64::from(warp)));
    let label = "rtopk_radix_count: words[RADIX_WARP_COUNTS(..)] = gt";
    w.st_global(ra.radix, &at, &u(gt), label).await?;
    let label = "rtopk_radix_count: words[RADIX_WARP_COUNTS(..) + 1] = eq";
    w.st_global(ra.radix, &at.map(|a| a + 1), &u(eq), label).await?;
    w.st_shared(&u(SUMS + warp), &u(gt), "rtopk_radix_count: sums[0][warp] = gt").await?;
    let label = "rtopk_radix_count: sums[1][warp] = eq";
    w.st_shared(&u(SUMS + RADIX_WARPS + warp), &u(eq), label).await?;
    w.pop_active(saved);
    w.syncthreads("rtopk_radix_count: __syncthreads()").await?;
    let tid = w.thread_idx();
    let saved = w.push_active(&tid.map(|t| t < 2), "rtopk_radix_count: if (threadIdx.x < 2)")?;
    let mut total = u(0u32);
    for i in 0..RADIX_WARPS {
        let at = tid.map(|t| SUMS + t * RADIX_WARPS + i);
        let s = w.ld_shared(&at, "rtopk_radix_count: total += sums[threadIdx.x][w]").await?;
        total = total.zip(&s, u32::wrapping_add);
    }
    let at = words.zip(&tid, |a, t| a + block_counts(u64::from(part.b)) + u64::from(t));
    let label = "rtopk_radix_count: words[RADIX_BLOCK_COUNTS(part.b) + threadIdx.x] = total";
    w.st_global(ra.radix, &at, &total, label).await?;
    w.pop_active(saved);
    Ok(())
}

/// Where [`write_part`] writes: the row's results (`out_val + part.row * k`, the indices at
/// the same offset) and how far they are written.
struct Written {
    row_at: u64,
    out: u32,
    eq_seen: u32,
}

/// `write_part`: the warp's results, from `out` on, the ties counted from `eq_seen` (the
/// row's ties before its range), a window of [`RADIX_ITEMS`] rounds of 32 elements at a time.
/// A window with no key at or above T costs its loads and one vote (`__any_sync`); in one
/// with any, each round reads its element again and places it by two ballots (above T, at
/// T); a tie is taken while the row's ties before it are fewer than `left`.
async fn write_part(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, range): (RadixPart, WarpRange),
    (t, left): (u32, u32),
    place: &mut Written,
) -> Result<(), SimError> {
    let lane = w.lane_id();
    let mut base = u64::from(range.start);
    while base < u64::from(range.end) {
        let first = lane.map(|l| base + u64::from(l));
        let label = "write_part: v[j] = row[i]";
        let items = load_window(w, ra, (part, range), &first, label).await?;
        let any = Lanes::from_fn(|l| {
            items.iter().any(|(v, ok)| ok.lane(l) && own_keys(ra, v).lane(l) >= t)
        });
        let any = w.any_sync(FULL_MASK, &any, "write_part: __any_sync(any)")?;
        if any.lane(0) {
            for j in 0..u64::from(RADIX_ITEMS) {
                let i = first.map(|f| f + 32 * j);
                write_round(w, ra, (part, range), &i, (t, left), place).await?;
            }
        }
        base += 32 * u64::from(RADIX_ITEMS);
    }
    Ok(())
}

/// One round of [`write_part`]: element `i` of each lane read again where it lies in the
/// range, placed by two ballots (above T, at T).
async fn write_round(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, range): (RadixPart, WarpRange),
    i: &Lanes<u64>,
    (t, left): (u32, u32),
    place: &mut Written,
) -> Result<(), SimError> {
    let valid = i.map(|i| i < u64::from(range.end));
    let saved = w.push_active(&valid, "write_part: x = valid ? row[i] : 0")?;
    let at = element_at(w, ra, part, i)?;
    let x = w.ld_input(ra.x, &at, "write_part: x = row[i]").await?;
    w.pop_active(saved);
    let key = Lanes::select(&valid, &own_keys(ra, &x), &Lanes::splat(0));
    let g = key.zip(&valid, |k, ok| ok && k > t);
    let e = key.zip(&valid, |k, ok| ok && k == t);
    let g = w.ballot_sync(FULL_MASK, &g, "write_part: g = __ballot_sync(key > T)")?;
    let e = w.ballot_sync(FULL_MASK, &e, "write_part: e = __ballot_sync(key == T)")?;
    let (g, e) = (g.lane(0), e.lane(0));
    let take = left.saturating_sub(place.eq_seen);
    let below = w.lanemask_lt();
    let ties_before = below.map(|b| (e & b).count_ones());
    let chosen = Lanes::from_fn(|l| {
        let mine = |mask: u32| (mask >> l) & 1 == 1;
        mine(g) || (mine(e) && ties_before.lane(l) < take)
    });
    let saved = w.push_active(&chosen, "write_part: if (mine_g || (mine_e && ..))")?;
    let within = below.zip(&ties_before, |b, tb| (g & b).count_ones() + tb.min(take));
    let at = w.add_u32(&Lanes::splat(place.out), &within, "write_part: at = out + ..")?;
    let addr = at.map(|a| place.row_at + u64::from(a));
    w.st_global(ra.out_val, &addr, &x, "write_part: out_val[at] = x").await?;
    let index = i.map(|i| i as u32); // i < m < 2^32
    w.st_global(ra.out_idx, &addr, &index, "write_part: out_idx[at] = (idx_t)i").await?;
    w.pop_active(saved);
    place.out = place.out.wrapping_add(g.count_ones() + e.count_ones().min(take));
    place.eq_seen = place.eq_seen.wrapping_add(e.count_ones());
    Ok(())
}

/// `write_listed`'s gather: each of the block's candidates at or above T (every key of its part
/// at or above T among them) in the shared `keys` and `idx`, at the place an atomic on the
/// shared `n` gives. A place past [`RADIX_WRITE_LIST`] is not stored (the check on `*n`
/// reports it: the kernel would write past its arrays).
async fn gather_listed(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, list): (RadixPart, RadixList),
    t: u32,
) -> Result<(), SimError> {
    let u = Lanes::splat;
    let mut i = w.thread_idx();
    loop {
        let saved = w.push_active(&i.map(|i| i < list.count), "write_listed: i < list.count")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            return Ok(());
        }
        check_listed(w, list, ra.r.capacity, &i, "write_listed: i < count && i < capacity")?;
        let at = i.map(|i| list.keys + u64::from(i));
        let key = w.ld_global(ra.cand, &at, "write_listed: key = list.keys[i]").await?;
        let at_least =
            w.push_active(&key.map(|k| k >= t), "write_listed: if (key < T) continue")?;
        let at = w.atomic_add_shared(&u(N), &u(1), "write_listed: at = atomicAdd(n, 1u)").await?;
        let fits = at.map(|a| a < RADIX_WRITE_LIST);
        let stored = w.push_active(&fits, "write_listed: at < RADIX_WRITE_LIST")?;
        w.st_shared(&at.map(|a| KEYS + a), &key, "write_listed: keys[at] = key").await?;
        let label = "write_listed: idx[at] = list.idx[i]";
        let j = w.ld_global(ra.cand, &i.map(|i| list.idx + u64::from(i)), label).await?;
        // the simulator's check: the second pass kept an index of the block's part
        let label = "write_listed: a candidate's index lies in its block's part";
        w.check(&j.map(|j| (part.start..part.end).contains(&j)), label)?;
        w.st_shared(&at.map(|a| IDX + a), &j, "write_listed: idx[at] = list.idx[i]").await?;
        w.pop_active(stored);
        w.pop_active(at_least);
        let next = i.map(|i| i + RADIX_THREADS);
        w.assign(&mut i, &next);
        w.pop_active(saved);
    }
}

/// The entries of `write_listed`'s list before each thread's (entry `a`, index `mine`) by
/// index, `(gt, eq)`: those above T and those at T; and the whole list's, `(gt, eq)` as the
/// lowest active lane reads it (every lane reads every entry: the simulator's totals).
async fn count_before(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (a, mine): (&Lanes<u32>, &Lanes<u32>),
    (t, count): (u32, u32),
) -> Result<(Lanes<u32>, Lanes<u32>, (u32, u32)), SimError> {
    let (mut gt, mut eq, mut all) = (Lanes::splat(0u32), Lanes::splat(0u32), (0u32, 0u32));
    let lowest = w.active_mask().trailing_zeros() as usize;
    // BUG (RadixWriteInListOrder): `bool before = b < a;`, the list's order for the
    // index's.
    let list_order = ra.a.has(Mutant::RadixWriteInListOrder);
    for b in 0..count {
        let other = w.ld_shared(&Lanes::splat(IDX + b), "write_listed: idx[b]").await?;
        let key = w.ld_shared(&Lanes::splat(KEYS + b), "write_listed: keys[b]").await?;
        let before = match list_order {
            true => a.map(|a| b < a),
            false => other.zip(mine, |o, m| o < m),
        };
        gt = gt.zip(&before.zip(&key, |bf, k| bf && k > t), |c, x| c + u32::from(x));
        eq = eq.zip(&before.zip(&key, |bf, k| bf && k == t), |c, x| c + u32::from(x));
        let k = key.lane(lowest);
        all = (all.0 + u32::from(k > t), all.1 + u32::from(k == t));
    }
    Ok((gt, eq, all))
}

/// `write_listed`: the block's results from its candidates (every key of its part at or above T
/// among them), where those at or above T are at most [`RADIX_WRITE_LIST`]: gathered in shared
/// memory ([`gather_listed`]), each one's place counted from the ones before it by index
/// ([`count_before`]), as [`write_part`] counts them: keys above T, and ties while the row's
/// ties before it (`eq_seen` before the block's) are fewer than `left`. The value is read from
/// the row: the input's own bits. Returns where the block's results end, from the whole list
/// (the simulator's check: the row's last block ends its k results).
async fn write_listed(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, list): (RadixPart, RadixList),
    (t, left): (u32, u32),
    place: &Written,
) -> Result<u32, SimError> {
    let (tid, u) = (w.thread_idx(), Lanes::splat);
    let saved = w.push_active(&tid.map(|t| t == 0), "write_listed: if (threadIdx.x == 0u)")?;
    w.st_shared(&u(N), &u(0), "write_listed: *n = 0u").await?;
    w.pop_active(saved);
    w.syncthreads("write_listed: __syncthreads() after clearing n").await?;
    gather_listed(w, ra, (part, list), t).await?;
    w.syncthreads("write_listed: __syncthreads() after the gather").await?;
    let count = w.ld_shared(&u(N), "write_listed: count = *n").await?;
    let count = w.uniform(&count, "write_listed: count = *n")?;
    // the simulator's check: the caller's counts (the block's, at most RADIX_WRITE_LIST) are
    // the list's; past them the kernel would read past its arrays
    let label = "write_listed: the list holds at most RADIX_WRITE_LIST keys";
    w.check_that(count <= RADIX_WRITE_LIST, label)?;
    let count = count.min(RADIX_WRITE_LIST);
    let take = left.saturating_sub(place.eq_seen);
    let mut end = place.out;
    let mut a = tid;
    loop {
        let saved = w.push_active(&a.map(|a| a < count), "write_listed: a < count")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            return Ok(end);
        }
        let mine = w.ld_shared(&a.map(|a| IDX + a), "write_listed: mine = idx[a]").await?;
        let (gt, eq, all) = count_before(w, ra, (&a, &mine), (t, count)).await?;
        end = place.out.wrapping_add(all.0 + all.1.min(take));
        let key = w.ld_shared(&a.map(|a| KEYS + a), "write_listed: keys[a]").await?;
        let written = key.zip(&eq, |k, e| k > t || e < take);
        let chosen = w.push_active(&written, "write_listed: if (keys[a] > T || eq < take)")?;
        let within = gt.zip(&eq, |g, e| g.wrapping_add(e.min(take)));
        let at =
            w.add_u32(&u(place.out), &within, "write_listed: at = out + gt + min(eq, take)")?;
        let addr = at.map(|a| place.row_at + u64::from(a));
        let from = element_at(w, ra, part, &mine.map(u64::from))?;
        let x = w.ld_input(ra.x, &from, "write_listed: row[mine]").await?;
        w.st_global(ra.out_val, &addr, &x, "write_listed: out_val[at] = row[mine]").await?;
        w.st_global(ra.out_idx, &addr, &mine, "write_listed: out_idx[at] = (idx_t)mine").await?;
        w.pop_active(chosen);
        let next = a.map(|a| a + RADIX_THREADS);
        w.assign(&mut a, &next);
        w.pop_active(saved);
    }
}

/// `rtopk_radix_write`: the row's keys above T and ties at T in the blocks before this one
/// (their counts summed over the block); then a block whose candidates fit and hold at most
/// [`RADIX_WRITE_LIST`] keys at or above T (its own two counts) writes from them
/// ([`write_listed`]); any other, each warp its results at the place the warps before it in
/// its block add (`__reduce_add_sync`, [`write_part`]).
async fn rtopk_radix_write(w: &mut Warp<'_>, ra: &RadixArgs<'_>) -> Result<(), SimError> {
    let r = &ra.r;
    let own = radix_row(w, ra);
    let part = radix_part(w, (r.m, own.m), own.slice, r.blocks_per_row)?;
    let row_at =
        w.mul_u64(&Lanes::splat(part.row), &Lanes::splat(u64::from(r.k)), "part.row * (u64)k")?;
    let row_at = w.uniform(&row_at, "rtopk_radix_write: row_out")? + r.output.offset;
    if own.k < r.k {
        pad_radix_row(w, ra, (part, row_at), own.k).await?;
    }
    if own.k == 0 {
        return Ok(());
    }
    let words = row_words(w, ra, part)?;
    let at = |word: u64| words.map(|a| a + word);
    let t = w.ld_global(ra.radix, &at(RADIX_PREFIX), "rtopk_radix_write: T").await?;
    let t = w.uniform(&t, "rtopk_radix_write: T")?;
    let left = w.ld_global(ra.radix, &at(RADIX_LEFT), "rtopk_radix_write: left").await?;
    let left = w.uniform(&left, "rtopk_radix_write: left")?;
    let (gt, eq) = counts_before_block(w, ra, &words, part).await?;
    let last = part.b + 1 == r.blocks_per_row;
    if listed_write(w, ra, &words, part).await? {
        let count = kept_of(w, ra, &words, part).await?;
        let list = radix_list(w, (part, r.blocks_per_row), r.capacity, count)?;
        let place = Written { row_at, out: gt + eq.min(left), eq_seen: eq };
        let end = write_listed(w, ra, (part, list), (t, left), &place).await?;
        if last && w.warp_idx() == 0 {
            // the simulator's check: the row's last block ends its k results
            w.check_that(end == own.k, "rtopk_radix_write: the row's results fill its k")?;
        }
        return Ok(());
    }
    // then in the warps before this one in the block
    let (lane, warp) = (w.lane_id(), w.warp_idx());
    let blocks = u64::from(r.blocks_per_row);
    let before = lane.map(|l| l < warp);
    let saved = w.push_active(&before, "rtopk_radix_write: lane < warp")?;
    let counts = words.zip(&lane, |a, l| {
        a + warp_counts(blocks, u64::from(part.b), u64::from(l.min(RADIX_WARPS - 1)))
    });
    let label = "rtopk_radix_write: words[RADIX_WARP_COUNTS(..)]";
    let g = w.ld_global(ra.radix, &counts, label).await?;
    let label = "rtopk_radix_write: words[RADIX_WARP_COUNTS(..) + 1]";
    let e = w.ld_global(ra.radix, &counts.map(|c| c + 1), label).await?;
    w.pop_active(saved);
    let g = Lanes::select(&before, &g, &Lanes::splat(0));
    let e = Lanes::select(&before, &e, &Lanes::splat(0));
    let g = w.reduce_add_sync(FULL_MASK, &g, "rtopk_radix_write: __reduce_add_sync(gt)")?;
    let e = w.reduce_add_sync(FULL_MASK, &e, "rtopk_radix_write: __reduce_add_sync(eq)")?;
    let (gt, eq) = (gt.wrapping_add(g.lane(0)), eq.wrapping_add(e.lane(0)));
    let mut place = Written { row_at, out: gt + eq.min(left), eq_seen: eq };
    let range = warp_range(w, part, own.slice);
    write_part(w, ra, (part, range), (t, left), &mut place).await?;
    if last && warp + 1 == RADIX_WARPS {
        // the simulator's check: the row's last range ends its k results
        w.check_that(place.out == own.k, "rtopk_radix_write: the row's results fill its k")?;
    }
    Ok(())
}

/// `pad_radix_row`: a ragged row's output slots from its own k to the width (the launch's k)
/// get docs/contract.md §5's padding, index PAD and value 0, by its block 0 (`row_at`: the
/// row's first slot). Disjoint from the slots the write fills.
async fn pad_radix_row(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    (part, row_at): (RadixPart, u64),
    own_k: u32,
) -> Result<(), SimError> {
    if part.b != 0 {
        return Ok(());
    }
    let at = Lanes::splat(row_at);
    let tid = w.thread_idx();
    let bufs = (ra.out_val, ra.out_idx, &at);
    pad_results(w, bufs, ra.elem, (own_k, ra.r.k), &tid, RADIX_THREADS).await
}

/// The row's keys above T and ties at T in the blocks before the part's
/// (`words[RADIX_BLOCK_COUNTS(b)]`, each thread some blocks, summed over the block by
/// [`radix_sum`] in each of the two `sums` in turn).
async fn counts_before_block(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
    part: RadixPart,
) -> Result<(u32, u32), SimError> {
    let (mut gt, mut eq) = (Lanes::splat(0u32), Lanes::splat(0u32));
    let mut b = w.thread_idx();
    loop {
        let saved = w.push_active(&b.map(|b| b < part.b), "rtopk_radix_write: b < part.b")?;
        if w.active_mask() == 0 {
            w.pop_active(saved);
            break;
        }
        let count = words.zip(&b, |a, b| a + block_counts(u64::from(b)));
        let label = "rtopk_radix_write: words[RADIX_BLOCK_COUNTS(b)]";
        let g = w.ld_global(ra.radix, &count, label).await?;
        let label = "rtopk_radix_write: words[RADIX_BLOCK_COUNTS(b) + 1]";
        let e = w.ld_global(ra.radix, &count.map(|c| c + 1), label).await?;
        let (more_gt, more_eq) = (gt.zip(&g, u32::wrapping_add), eq.zip(&e, u32::wrapping_add));
        w.assign(&mut gt, &more_gt);
        w.assign(&mut eq, &more_eq);
        let next = b.map(|b| b + RADIX_THREADS);
        w.assign(&mut b, &next);
        w.pop_active(saved);
    }
    let gt = radix_sum(w, &gt, SUMS).await?;
    let eq = radix_sum(w, &eq, SUMS + RADIX_WARPS).await?;
    Ok((gt, eq))
}

/// Whether the part's block writes from its candidates: `mine` (its own counts, above T and
/// at T) at most [`RADIX_WRITE_LIST`], where its row's candidates are kept and every block's
/// fit (`words[RADIX_KEEPS] != 0u && words[RADIX_OVER] == 0u && mine <= RADIX_WRITE_LIST`).
async fn listed_write(
    w: &mut Warp<'_>,
    ra: &RadixArgs<'_>,
    words: &Lanes<u64>,
    part: RadixPart,
) -> Result<bool, SimError> {
    let at = words.map(|a| a + block_counts(u64::from(part.b)));
    let label = "rtopk_radix_write: words[RADIX_BLOCK_COUNTS(part.b)]";
    let g = w.ld_global(ra.radix, &at, label).await?;
    let label = "rtopk_radix_write: words[RADIX_BLOCK_COUNTS(part.b) + 1u]";
    let e = w.ld_global(ra.radix, &at.map(|a| a + 1), label).await?;
    let mine = w.add_u32(&g, &e, "rtopk_radix_write: mine = ..")?;
    let mine = w.uniform(&mine, "rtopk_radix_write: mine")?;
    Ok(row_keeps(w, ra, words).await? && row_fits(w, ra, words).await? && mine <= RADIX_WRITE_LIST)
}

/// The digit passes' widths: a digit of at most [`RADIX_DIGIT_BITS`] bits fits the histogram.
const _: () =
    assert!(RADIX_BINS == 1 << RADIX_DIGIT_BITS && RADIX_BINS % RADIX_THREADS as u64 == 0);
