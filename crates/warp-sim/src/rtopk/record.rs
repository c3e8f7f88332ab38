//! What the kernel tells a [`Recorder`] as it runs one row: plain records of the row-uniform
//! registers (the bracket, the counts) and of the selection's masks, by chunks of 32
//! consecutive elements (or candidates). The kernel emits them through a `Tracer`;
//! [`crate::rtopk::trace::RowTrace`] keeps and renders them.

use std::cell::RefCell;

use crate::rtopk::args::SearchExit;

/// Which loop a search step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// A threshold on ordered values (`thres = midpoint(lo, hi)`).
    Value,
    /// A threshold on keys (`t = lo_key + (hi_key - lo_key) / 2`).
    Key,
}

/// What a test did to the bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moved {
    /// `cnt < k`: `hi = thres`.
    Hi,
    /// `cnt > k` (or `>= k` in early stopping): `lo = thres`.
    Lo,
    /// `cnt == k`: the search ends.
    Hit,
}

/// One threshold test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceStep {
    /// 1-based iteration number (docs/contract.md §3).
    pub iteration: u32,
    /// Value or key phase.
    pub phase: Phase,
    /// `lo_key` before the test.
    pub lo_key: u32,
    /// `hi_key` before the test.
    pub hi_key: u32,
    /// The float threshold (value phase only).
    pub thres: Option<f32>,
    /// The threshold key `t`.
    pub t: u32,
    /// `count_ge(t)`.
    pub cnt: u32,
    /// The bracket update.
    pub moved: Moved,
}

/// How the search ended and what the selection takes (`cut_of`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceCut {
    /// How the search ended.
    pub exit: SearchExit,
    /// Iterations reported (docs/contract.md §3).
    pub iterations: u32,
    /// Keys above this are strong.
    pub strong_above: u32,
    /// The band's lowest key.
    pub band_lo: u32,
    /// Strong elements counted by the search.
    pub strong_count: u32,
}

/// One chunk of 32 in the selection stage (bit `l` = element `base + l`, or candidate
/// `base + l` of a narrowed row). Families that place a lane's consecutive elements with one
/// scan (`select_topk_lanes`) report their selection cut into such chunks: the same elements
/// the chunks of docs/kernel.md select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceChunk {
    /// First index of the chunk.
    pub base: usize,
    /// Lanes holding an element of the row.
    pub valid: u32,
    /// `ballot(strong)`.
    pub strong_mask: u32,
    /// `ballot(band)`.
    pub band_mask: u32,
    /// `ballot(selected)`.
    pub sel_mask: u32,
    /// `band_left` when the chunk started.
    pub band_left_before: u32,
    /// `written` when the chunk started.
    pub written_before: u32,
}

/// Receives one row's journey through the kernel, stage by stage.
pub trait Recorder {
    /// The row's keys after the load stage, in index order.
    fn loaded(&mut self, keys: Vec<u32>);
    /// Keys of elements `start ..` (a part of the row, loaded by one thread or warp).
    fn loaded_slots(&mut self, start: usize, keys: &[u32]);
    /// `row_min(lane_min)` and `row_max(lane_max)`: the search's first bracket.
    fn range(&mut self, min_key: u32, max_key: u32);
    /// One threshold test.
    fn step(&mut self, step: TraceStep);
    /// `narrow_row` kept the row's `candidates` keys `>= lo_key` after `iterations` tests.
    fn narrowed(&mut self, iterations: u32, candidates: u32);
    /// The search's end and the selection's cut.
    fn cut(&mut self, cut: TraceCut);
    /// One chunk of the selection.
    fn chunk(&mut self, chunk: TraceChunk);
    /// Whether elements `start ..` are strong, in the band, taken (one thread's elements, from
    /// a family that places them by a scan; the trace cuts them into chunks at the end).
    fn selected_slots(&mut self, start: usize, flags: &[(bool, bool, bool)]);
}

/// Where the kernel sends one row's records: nowhere, or a [`Recorder`] (the traced row).
#[derive(Clone, Copy)]
pub(crate) struct Tracer<'a>(pub(crate) Option<&'a RefCell<dyn Recorder + 'a>>);

impl<'a> Tracer<'a> {
    /// Whether a recorder listens.
    pub(crate) fn on(&self) -> bool {
        self.0.is_some()
    }

    /// Runs `f` on the recorder, if any.
    pub(crate) fn with(&self, f: impl FnOnce(&mut dyn Recorder)) {
        if let Some(r) = self.0 {
            f(&mut *r.borrow_mut());
        }
    }

    /// One threshold test.
    pub(crate) fn step(&self, step: TraceStep) {
        self.with(|r| r.step(step));
    }
}
