//! The simulator's executor of a launch program (rtopk-plan's `program`; docs/kernel.md,
//! "The launch program"): the steps in order, under the names the CUDA launcher's executor
//! uses (`select_rows`, `select_chunks`, `select_last_chunks`, `sort_rows`, `gather_indices`),
//! each launched with the grid and the row geometry the program gives — the executor
//! computes none of its own.
//!
//! The program's buffers are global buffers of the machine: the caller's outputs (held for
//! the rows being run, a window of the grid, [`crate::rtopk::launch`]) and the temporaries
//! (each split level's candidates, held whole: a program that splits rows runs whole, its size
//! checked first, [`SPLIT_MAX_WORDS`]). A step reads an earlier step's values as its input: a
//! kernel boundary orders every write before it, so it reads them as a read-only copy.
//!
//! Besides the kernels' own diagnostics, the executor checks the program's invariants: the
//! launches over a split row's chunks cover each row exactly (by their arguments: every
//! element in one chunk, none in two; and by their reads: every element read), and the gather
//! names the element each result claims (`split.rs`).

use std::cell::RefCell;
use std::ops::Range;

use crate::engine::diag::{DiagKind, DiagPolicy, Diagnostic, Op};
use crate::engine::error::SimError;
use crate::engine::global::{Global, Source, WordSource};
use crate::engine::warp::BufId;
use crate::rtopk::args::{KernelArgs, RowData};
use crate::rtopk::coverage::{Branch, Tally};
use crate::rtopk::mutant::Mutant;
use crate::rtopk::order::ElemType;
use crate::rtopk::params::Params;
use crate::rtopk::plan::{
    BufferId, BufferRole, Content, Family, Gather, INPUT, Kernel, Program, Region, RowArgs, Select,
    Sort, SplitRows, Step, StepKind, tiles_row,
};
use crate::rtopk::record::Recorder;
use crate::rtopk::trace::RowTrace;

/// The most global words a program that splits rows may hold at once (its outputs, and for
/// each split its candidates' values and indices and the copy the next stage reads): about
/// 700 MB of simulated memory with its shadow state.
pub const SPLIT_MAX_WORDS: u64 = 1 << 25;

/// What one run of a program over some of its rows starts from.
#[derive(Clone, Copy)]
pub(crate) struct Run<'x> {
    /// The caller's input and its element type.
    pub(crate) src: &'x dyn Source,
    pub(crate) elem: ElemType,
    /// The caller's arguments: the mode, the search, the seeded bug.
    pub(crate) args: KernelArgs,
    /// The caller's rows run (all of them for a program that splits rows).
    pub(crate) rows: (u64, u64),
    /// The traced row and its recorder.
    pub(crate) trace: Option<(u64, &'x RefCell<RowTrace>)>,
    /// The coverage counters.
    pub(crate) cover: &'x Tally,
    /// The rows' own lengths and k (docs/contract.md §5), the arrays of a ragged program.
    pub(crate) ragged: RowData<'x>,
}

/// The caller's outputs of the rows run (values as the elements' bits, zero-extended).
pub(crate) struct Outputs {
    pub(crate) first: u64,
    pub(crate) values: Vec<u64>,
    pub(crate) indices: Vec<u32>,
    pub(crate) iterations: Vec<u32>,
    pub(crate) threshold: Vec<u32>,
}

/// Global words a program holds at once, if it can be counted: its outputs, and its
/// temporaries with a copy of each temporary's values (read by the next level).
pub(crate) fn program_words(p: &Program) -> Option<u64> {
    p.buffers.iter().try_fold(0u64, |sum, b| {
        let copies = match (b.role, b.content) {
            (BufferRole::Input, _) | (_, Content::Iterations) => 0,
            (BufferRole::Temporary, Content::Values) => 2,
            _ => 1,
        };
        sum.checked_add(b.elements.checked_mul(copies)?)
    })
}

/// How a split level's chunk launches covered its rows.
#[derive(Default)]
struct Level {
    /// Each chunk launch's `(x_at, ld, m, chunks)`, as launched.
    launches: Vec<(u64, u64, u64, u64)>,
    /// The level's input elements read by its chunk launches (a bit per element).
    read: Vec<u64>,
    /// A ragged split's (docs/kernel.md, "Split rows"): its last chunk is cut at the row's
    /// end, and each row's own length and k bound what is read: `(length, k)` per row.
    split: Option<Vec<(u64, u64)>>,
}

/// A source that marks each element read.
pub(crate) struct Marking<'a> {
    inner: &'a dyn Source,
    read: RefCell<Vec<u64>>,
}

impl Source for Marking<'_> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    #[inline]
    fn word(&self, i: u64) -> u32 {
        self.mark(i);
        self.inner.word(i)
    }
    #[inline]
    fn word64(&self, i: u64) -> u64 {
        self.mark(i);
        self.inner.word64(i)
    }
    fn row_len(&self) -> Option<u64> {
        self.inner.row_len()
    }
    fn elem_bytes(&self) -> u32 {
        self.inner.elem_bytes()
    }
}

impl<'a> Marking<'a> {
    /// `inner`, no element of it read yet.
    pub(crate) fn new(inner: &'a dyn Source) -> Self {
        let read = vec![0u64; inner.len().div_ceil(64) as usize];
        Marking { inner, read: RefCell::new(read) }
    }

    /// A bit per element: whether it was read.
    pub(crate) fn into_read(self) -> Vec<u64> {
        self.read.into_inner()
    }

    /// Marks element `i` read.
    #[inline]
    fn mark(&self, i: u64) {
        if let Some(w) = self.read.borrow_mut().get_mut((i / 64) as usize) {
            *w |= 1 << (i % 64);
        }
    }
}

/// One run's buffers and what its checks collect.
pub(crate) struct State {
    bufs: Vec<Option<BufId>>,
    levels: Vec<Level>,
}

impl State {
    pub(crate) fn buf(&self, id: BufferId) -> Result<BufId, SimError> {
        self.bufs.get(id.0).copied().flatten().ok_or_else(|| {
            SimError::InvalidLaunch(format!("the program names buffer {} it does not hold", id.0))
        })
    }
}

impl crate::rtopk::launch::Simulator {
    /// Runs `program` over the caller's rows `run.rows` (a window of whole blocks of every
    /// step, or all rows), returning those rows' outputs.
    pub(crate) fn execute(
        &mut self,
        program: &Program,
        run: &Run<'_>,
    ) -> Result<Outputs, SimError> {
        let (r0, r1) = run.rows;
        let n = program.launch.n as u64;
        if program.depth > 0 && (r0, r1) != (0, n) {
            return Err(SimError::InvalidLaunch(format!(
                "split rows run whole: rows {r0}..{r1} of {n} are not all of them"
            )));
        }
        self.machine.free_globals();
        let mut st = State { bufs: vec![None; program.buffers.len()], levels: Vec::new() };
        st.levels.resize_with(program.depth + 1, Level::default);
        let bytes = run.elem.bytes() as u32;
        for (i, b) in program.buffers.iter().enumerate() {
            let name = match (b.role, b.content) {
                // the caller's: the input and the per-row arrays (read host-side, `Run::ragged`)
                (BufferRole::Input, _)
                | (_, Content::Lengths | Content::KPerRow | Content::Hint) => continue,
                (BufferRole::Output, Content::Values) => "out_val",
                (BufferRole::Output, Content::Indices) => "out_idx",
                (_, Content::Iterations) => "out_iter",
                (_, Content::Threshold) => "threshold",
                (BufferRole::Temporary, Content::Values) => "cand_val",
                (BufferRole::Temporary, Content::Indices) => "cand_idx",
                (_, Content::Floor) => "floor",
                (_, Content::Radix) => "radix",
                (_, Content::RadixCandidates) => "radix_candidates",
            };
            // a radix select's words and candidates are its rows' own, held for the window's
            // rows alone
            let g = match (b.role, b.content) {
                (_, Content::Radix | Content::RadixCandidates) | (BufferRole::Output, _) => {
                    Global::window(name, b.elements, r0 * b.row_len, (r1 - r0) * b.row_len)?
                }
                _ => Global::zeroed(name, b.elements)?,
            };
            let g = g.with_rows(b.row_len);
            // the candidates are not zeroed (the GPU's hold what a call before left): a read of
            // one the second digit pass did not keep is poisoned
            let g = if b.content == Content::RadixCandidates { g.uninitialized() } else { g };
            let g = if b.content == Content::Values { g.with_elem_bytes(bytes)? } else { g };
            let id = self.machine.alloc(g);
            self.machine.global_mut(id).set_write_once(true);
            st.bufs[i] = Some(id);
        }
        // one step after the other, each ended before the next begins: the order the GPU's
        // steps keep by waiting for the previous one at entry (`wait_for_previous_step`)
        for step in &program.steps {
            match &step.kernel {
                Kernel::Select(sel) => self.select_step(step, sel, run, &mut st)?,
                // the threshold of every element type (64-bit keys on 64-bit rows)
                Kernel::Threshold(t) => {
                    let rows = RowData {
                        lengths: t.rows.and_then(|r| r.lengths).and(run.ragged.lengths),
                        k_per_row: t.rows.and_then(|r| r.k_per_row).and(run.ragged.k_per_row),
                        ..RowData::default()
                    };
                    let bufs = (st.buf(t.values)?, st.buf(t.threshold)?);
                    self.launch_threshold(&run.args, run.elem, step.grid, t, rows, run.rows, bufs)?;
                }
                // the sort and the gather take 32-bit keys (rtopk-plan plans neither for 64-bit
                // rows, whose wide rows sort their own results and are never split)
                _ if run.elem.wide() => {
                    return Err(SimError::InvalidLaunch(format!(
                        "the {} step takes rows of 32-bit keys, not {}",
                        step.name.name(),
                        run.elem.name()
                    )));
                }
                Kernel::Sort(sort) => self.sort_step(step, sort, run, &st)?,
                Kernel::Gather(g) => self.gather_step(step, g, run, &mut st)?,
                Kernel::Radix(r) => self.radix_step(step, r, run, &st)?,
            }
        }
        let out = |this: &mut Self, id: Option<BufferId>| -> Result<Vec<u32>, SimError> {
            match id {
                Some(id) => Ok(this.machine.global(st.buf(id)?).data().to_vec()),
                None => Ok(Vec::new()),
            }
        };
        let find = |role, content| {
            program
                .buffers
                .iter()
                .position(|b| b.role == role && b.content == content)
                .map(BufferId)
        };
        let values = match find(BufferRole::Output, Content::Values) {
            Some(id) => self.machine.global(st.buf(id)?).elements(),
            None => Vec::new(),
        };
        Ok(Outputs {
            first: r0,
            values,
            indices: out(self, find(BufferRole::Output, Content::Indices))?,
            iterations: out(self, program.iterations())?,
            threshold: out(self, program.threshold())?,
        })
    }

    /// The values of `region`'s buffer as a step's input: the caller's, or a copy of an
    /// earlier step's output.
    pub(crate) fn input_words(
        &mut self,
        region: &Region,
        st: &State,
    ) -> Result<Option<Vec<u32>>, SimError> {
        if region.buffer == INPUT {
            return Ok(None);
        }
        Ok(Some(self.machine.global(st.buf(region.buffer)?).data().to_vec()))
    }

    /// A top-k step (`select_rows`, `select_chunks`, `select_last_chunks`).
    fn select_step(
        &mut self,
        step: &Step,
        sel: &Select,
        run: &Run<'_>,
        st: &mut State,
    ) -> Result<(), SimError> {
        let words = self.input_words(&sel.input, st)?;
        let bytes = run.elem.bytes() as u32;
        let copy = words.as_ref().map(|w| WordSource::new(w, sel.input.ld, bytes));
        let src: &dyn Source = match &copy {
            Some(c) => c,
            None => run.src,
        };
        let chunked = step.name != StepKind::SelectRows;
        let checks = self.machine.policy() != DiagPolicy::Off;
        let level = st.levels.get_mut(step.level).ok_or_else(|| {
            SimError::InvalidLaunch(format!(
                "a step of level {} in a shallower program",
                step.level
            ))
        })?;
        let bounded = step_rows(sel.rows, run).lengths.is_some() || sel.split_rows().is_some();
        let marking = ((chunked || bounded) && checks).then(|| {
            let mut read = if chunked { std::mem::take(&mut level.read) } else { Vec::new() };
            read.resize(src.len().div_ceil(64) as usize, 0);
            Marking { inner: src, read: RefCell::new(read) }
        });
        let x: &dyn Source = match &marking {
            Some(m) => m,
            None => src,
        };
        let mut m = sel.m as usize;
        // BUG (LastChunkDropsOne): the last chunks' launch one element short of the chunk.
        if step.name == StepKind::SelectLastChunks && run.args.has(Mutant::LastChunkDropsOne) {
            m = m.saturating_sub(1);
        }
        let a = KernelArgs { n: sel.n_rows as usize, m, k: sel.k as usize, ..run.args };
        let vec4 = if run.args.has(Mutant::Vec4UnalignedRows) {
            // BUG (Vec4UnalignedRows): half the elements of a 16-byte load.
            let half = (8 / run.elem.bytes()) as u64;
            sel.input.ld % half == 0 && m as u64 % half == 0
        } else {
            sel.vec4
        };
        let trace = match run.trace {
            Some((row, t)) if step.name == StepKind::SelectRows && step.level == 0 => {
                Some((row, t as &RefCell<dyn Recorder>))
            }
            _ => None,
        };
        let params = Params {
            a,
            x,
            elem: run.elem,
            out_val: st.buf(sel.output.buffer)?,
            out_idx: st.buf(sel.indices)?,
            out_iter: sel.iterations.map(|id| st.buf(id)).transpose()?,
            x_at: sel.input.offset,
            out_at: sel.output.offset,
            ld: sel.input.ld as u32, // < 2^32: the plan checked
            out_ld: sel.output.ld as u32,
            chunks: sel.chunks,
            plan: sel.plan,
            vec4,
            trace,
            cover: Some(run.cover),
            rows: step_rows(sel.rows, run),
            split: sel.split_rows(),
            sorted: sel.sorted,
            floor: sel.floor.map(|id| st.buf(id)).transpose()?,
        };
        let chunks = u64::from(sel.chunks);
        let (r0, r1) = run.rows;
        // the wide rows sort their results in place: a sorted launch writes them more than once
        let sorts_in_place = sel.sorted && sel.plan.family() == Family::WideRows;
        self.write_once(&[params.out_val, params.out_idx], !sorts_in_place);
        self.launch_topk(&params, r0 * chunks..r1 * chunks)?;
        let (out_idx, out_iter) = (params.out_idx, params.out_iter);
        let launched = (params.x_at, u64::from(params.ld), a.m as u64, chunks);
        cover_select(run, step.name, sel, vec4, (r1 - r0) * chunks);
        let label = match step.name {
            StepKind::SelectChunks => "cand_idx: every chunk's results",
            StepKind::SelectLastChunks => "cand_idx: every last chunk's results",
            _ => "out_idx: every result",
        };
        match sel.split_rows() {
            // a ragged split's chunks write each row's valid candidates, a prefix
            Some(split) if chunked => {
                let valid = |r| split_rows_lengths(sel, run, split, r).1;
                self.check_prefixes_written(out_idx, (r0..r1, sel.output.ld), valid, label)?;
            }
            _ => {
                let cols = sel.output.offset..sel.output.offset + chunks * u64::from(sel.k);
                self.check_rows_written(out_idx, (r0..r1, sel.output.ld), cols, label)?;
            }
        }
        if let Some(it) = out_iter {
            self.check_rows_written(it, (r0..r1, 1), 0..1, "out_iter: every row")?;
        }
        if chunked {
            let level = &mut st.levels[step.level];
            level.launches.push(launched);
            if let Some(marking) = marking {
                level.read = marking.read.into_inner();
            }
            if let Some(split) = sel.split_rows() {
                let caller = KernelArgs { m: split.row_m as usize, k: sel.k as usize, ..run.args };
                let rows = step_rows(sel.rows, run);
                let own = |r| caller.row_lengths(&rows, r);
                level.split =
                    Some((0..run.rows.1).map(|r| (own(r).m as u64, own(r).k as u64)).collect());
            }
        } else if let Some(marking) = marking {
            let valid = |r| match sel.split_rows() {
                Some(split) => split_rows_lengths(sel, run, split, r).1,
                None => step_rows(sel.rows, run).row_len(r, u64::from(sel.m)),
            };
            let read = marking.read.into_inner();
            self.check_reads_within_lengths((&sel.input, sel.m), valid, run.rows, &read)?;
        }
        Ok(())
    }

    /// The invariant of a ragged step (docs/contract.md §5): no element past a row's length
    /// was read, on the GPU as in the answer (`read`: a bit per element of the step's input).
    pub(crate) fn check_reads_within_lengths(
        &mut self,
        (input, m): (&Region, u32),
        valid: impl Fn(u64) -> u64,
        (r0, r1): (u64, u64),
        read: &[u64],
    ) -> Result<(), SimError> {
        let past = (r0..r1).flat_map(|r| {
            let len = valid(r).min(u64::from(m));
            let start = input.offset + r * input.ld;
            (start + len..start + u64::from(m)).filter(|&i| is_marked(read, i))
        });
        self.report_elements(
            "ragged rows: no element past a row's length is read (docs/contract.md §5)",
            past,
        )
    }

    /// The sort step (`sort_rows`).
    fn sort_step(
        &mut self,
        step: &Step,
        sort: &Sort,
        run: &Run<'_>,
        st: &State,
    ) -> Result<(), SimError> {
        let words = self.input_words(&sort.input, st)?;
        let bytes = run.elem.bytes() as u32;
        let copy = words.as_ref().map(|w| WordSource::new(w, sort.input.ld, bytes));
        let src: &dyn Source = match &copy {
            Some(c) => c,
            None => run.src,
        };
        let a = KernelArgs {
            n: sort.n_rows as usize,
            m: sort.m as usize,
            k: sort.k as usize,
            ..run.args
        };
        let (values, indices) = (st.buf(sort.values)?, st.buf(sort.indices)?);
        self.write_once(&[values, indices], false);
        let (r0, r1) = run.rows;
        run.cover.add(
            match sort.shape {
                None => Branch::SortWarp,
                Some(s) if s.merges => Branch::SortMerge,
                Some(s) if s.parts > 1 => Branch::SortRank,
                Some(s) if s.in_shared => Branch::SortShared,
                Some(_) => Branch::SortGlobal,
            },
            r1 - r0,
        );
        let rows = (r0..r1, step_rows(sort.rows, run));
        self.sort((src, run.elem), &a, (step.grid, sort), rows, values, indices)
    }

    /// The gather step (`gather_indices`), after the checks of its level's chunk launches.
    fn gather_step(
        &mut self,
        step: &Step,
        g: &Gather,
        run: &Run<'_>,
        st: &mut State,
    ) -> Result<(), SimError> {
        let level = std::mem::take(&mut st.levels[step.level]);
        self.check_chunks_cover(g, &level)?;
        let words = self.input_words(&g.input, st)?;
        let bytes = run.elem.bytes() as u32;
        let copy = words.as_ref().map(|w| WordSource::new(w, g.input.ld, bytes));
        let src: &dyn Source = match &copy {
            Some(c) => c,
            None => run.src,
        };
        let bufs = (st.buf(g.candidates)?, st.buf(g.indices)?, st.buf(g.values)?);
        let k_per_row = g.k_per_row.and(run.ragged.k_per_row);
        self.launch_gather(&run.args, step.grid, g, src, bufs, k_per_row)
    }

    /// The program's invariant over a split level: its chunk launches, as launched, cover each
    /// row exactly (checked on the first and the last row, where a wrong row stride shows), and
    /// every element of the level's input was read.
    fn check_chunks_cover(&mut self, g: &Gather, level: &Level) -> Result<(), SimError> {
        if self.machine.policy() == DiagPolicy::Off || g.n_rows == 0 {
            return Ok(());
        }
        let (base, len) = (g.input.offset, g.row_len);
        // a ragged split's last chunk ends at the row's end
        let end = if level.split.is_some() { len } else { u64::MAX };
        for row in [0, g.n_rows - 1] {
            let start = base + row * len;
            let pieces: Vec<(u64, u64)> = level
                .launches
                .iter()
                .flat_map(|&(x_at, ld, m, chunks)| {
                    (0..chunks).map(move |c| {
                        let at = x_at.saturating_add(row.saturating_mul(ld)).saturating_add(c * m);
                        let at = at.wrapping_sub(start).min(u64::MAX / 2);
                        (at, m.min(end.saturating_sub(at)))
                    })
                })
                .collect();
            if let Err(e) = tiles_row(len, &pieces) {
                self.report_invariant(
                    "split rows: the chunk launches cover each row exactly (every element in one \
                     chunk)",
                    1,
                    start + e.at(),
                )?;
                break;
            }
        }
        // each row's own length and k, where it has them
        let own = |r: u64| match &level.split {
            Some(rows) => rows.get(r as usize).map_or((0, 0), |&(l, k)| (l.min(len), k)),
            None => (len, 1),
        };
        // a row that selects nothing reads nothing
        let unread = (0..g.n_rows).flat_map(|r| {
            let (start, (l, k)) = (base + r * len, own(r));
            let end = if k == 0 { start } else { start + l };
            (start..end).filter(|&i| !is_marked(&level.read, i))
        });
        self.report_elements(
            "split rows: every element of each row read by its chunk launches",
            unread,
        )?;
        let past = (0..g.n_rows).flat_map(|r| {
            let start = base + r * len;
            (start + own(r).0..start + len).filter(|&i| is_marked(&level.read, i))
        });
        self.report_elements(
            "ragged rows: no element past a row's length is read (docs/contract.md §5)",
            past,
        )
    }

    /// Reports a program invariant that did not hold, at element `at` of the level's input.
    fn report_invariant(
        &mut self,
        label: &'static str,
        count: u64,
        at: u64,
    ) -> Result<(), SimError> {
        self.machine.report_launch(Diagnostic {
            kind: DiagKind::AssertFailed,
            op: Op::Launch,
            label,
            block: 0,
            warp: 0,
            lanes: count.min(u64::from(u32::MAX)) as u32,
            address: Some(at),
        })
    }

    /// Switches the write-once check of `bufs`.
    pub(crate) fn write_once(&mut self, bufs: &[BufId], once: bool) {
        for &id in bufs {
            self.machine.global_mut(id).set_write_once(once);
        }
    }

    /// Reports the first element of the first `valid(r)` of each row `r` of `rows`, rows of
    /// `stride` of `buf`, that the launch left unwritten (one finding for all of them).
    pub(crate) fn check_prefixes_written(
        &mut self,
        buf: BufId,
        (rows, stride): (Range<u64>, u64),
        valid: impl Fn(u64) -> u64,
        label: &'static str,
    ) -> Result<(), SimError> {
        if self.machine.policy() == DiagPolicy::Off {
            return Ok(());
        }
        let g = self.machine.global(buf);
        let (mut first, mut count) = (None, 0u64);
        for r in rows {
            if let Some((at, c)) = g.unwritten(r * stride, r * stride + valid(r).min(stride)) {
                first.get_or_insert(at);
                count += c;
            }
        }
        let Some(first) = first else { return Ok(()) };
        self.machine.report_launch(Diagnostic {
            kind: DiagKind::OutputUnwritten,
            op: Op::Launch,
            label,
            block: 0,
            warp: 0,
            lanes: count.min(u64::from(u32::MAX)) as u32,
            address: Some(first),
        })
    }

    /// Reports the first element of `cols` of each of `rows` rows of `stride` of `buf` that
    /// the launch left unwritten (one finding for all of them).
    fn check_rows_written(
        &mut self,
        buf: BufId,
        (rows, stride): (Range<u64>, u64),
        cols: Range<u64>,
        label: &'static str,
    ) -> Result<(), SimError> {
        if self.machine.policy() == DiagPolicy::Off {
            return Ok(());
        }
        let g = self.machine.global(buf);
        let (mut first, mut count) = (None, 0u64);
        if stride == cols.end - cols.start && cols.start == 0 {
            // whole rows: one range
            if let Some((at, c)) = g.unwritten(rows.start * stride, rows.end * stride) {
                (first, count) = (Some(at), c);
            }
        } else {
            for r in rows {
                if let Some((at, c)) = g.unwritten(r * stride + cols.start, r * stride + cols.end) {
                    first.get_or_insert(at);
                    count += c;
                }
            }
        }
        let Some(first) = first else { return Ok(()) };
        self.machine.report_launch(Diagnostic {
            kind: DiagKind::OutputUnwritten,
            op: Op::Launch,
            label,
            block: 0,
            warp: 0,
            lanes: count.min(u64::from(u32::MAX)) as u32,
            address: Some(first),
        })
    }
}

impl crate::rtopk::launch::Simulator {
    /// Reports an invariant that did not hold at `elements` (one finding: the first and how
    /// many), if there are any.
    fn report_elements(
        &mut self,
        label: &'static str,
        elements: impl Iterator<Item = u64>,
    ) -> Result<(), SimError> {
        let (count, first) =
            elements.fold((0, None), |(count, first), i| (count + 1, first.or(Some(i))));
        match first {
            Some(at) => self.report_invariant(label, count, at),
            None => Ok(()),
        }
    }
}

/// Whether element `i` is marked read (a bit per element).
fn is_marked(read: &[u64], i: u64) -> bool {
    read.get((i / 64) as usize).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// The per-row arrays a step reads: those of the run that its [`RowArgs`] name.
pub(crate) fn step_rows<'x>(rows: Option<RowArgs>, run: &Run<'x>) -> RowData<'x> {
    let Some(r) = rows else { return RowData::default() };
    RowData {
        lengths: r.lengths.and(run.ragged.lengths),
        k_per_row: r.k_per_row.and(run.ragged.k_per_row),
        hint: r.hint.and(run.ragged.hint),
        threshold: false,
    }
}

/// The caller's row `row` under a ragged split's step (`split_row_args`, host-side for the
/// checks): its length, and its valid candidates.
fn split_rows_lengths(sel: &Select, run: &Run<'_>, split: SplitRows, row: u64) -> (u64, u64) {
    let caller = KernelArgs { m: split.row_m as usize, k: sel.k as usize, ..run.args };
    let own = caller.row_lengths(&step_rows(sel.rows, run), row);
    let (len, k) = (own.m as u64, own.k as u64);
    (len, split.candidates(len, k))
}

/// Counts a top-k step's rows (`rows` kernel rows) in the run's coverage: its family, 16-bit
/// or integer elements, 16-byte loads, split rows and their last chunk.
fn cover_select(run: &Run<'_>, name: StepKind, sel: &Select, vec4: bool, rows: u64) {
    let family = match sel.plan.family() {
        Family::QuarterRows => Branch::QuarterRows,
        Family::HalfRows => Branch::HalfRows,
        Family::WarpRows => Branch::WarpRows,
        Family::BlockRowsNarrow => Branch::BlockRowsNarrow,
        Family::PickRows => Branch::PickRows,
        Family::WideRows => Branch::WideRows,
        _ => Branch::BlockRows,
    };
    run.cover.add(family, rows);
    if run.elem.packed16() {
        run.cover.add(Branch::Elem16, rows);
    } else if run.elem.integer() {
        run.cover.add(Branch::ElemInt, rows);
    }
    // the wide rows load one 8-byte element at a time, whatever the program's vec4
    if vec4 && sel.plan.family() != Family::WideRows {
        run.cover.add(Branch::Vec4Loads, rows);
    }
    match name {
        StepKind::SelectChunks => run.cover.add(Branch::SplitRows, 1),
        StepKind::SelectLastChunks => run.cover.add(Branch::LastChunk, 1),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use super::*;
    use crate::rtopk::launch::{SimConfig, Simulator};
    use crate::rtopk::plan::Strategy;

    #[test]
    fn a_program_too_large_to_hold_is_an_error_not_an_abort() {
        let args = KernelArgs {
            n: 1 << 20,
            m: 1 << 20,
            k: 64,
            mode: Mode::Largest,
            bisect: Bisect::exact(),
            mutant: None,
        };
        let config = SimConfig { strategy: Strategy::Split, ..SimConfig::default() };
        let mut sim = Simulator::new(config);
        let program = sim.program(&args, ElemType::F32).unwrap();
        assert!(program_words(&program).unwrap() > SPLIT_MAX_WORDS);
        let src = crate::engine::VirtualSource::new(1 << 40, 1 << 20, |i| i as f32);
        let err = sim.run_rows(&src, &args, 0..1 << 20).unwrap_err();
        assert!(matches!(err, SimError::InvalidLaunch(_)) && err.to_string().contains("split"));
    }
}
