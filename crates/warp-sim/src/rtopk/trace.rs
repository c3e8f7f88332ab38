//! The teaching trace: one row's journey through the kernel — in the launch family the plan
//! picks for its shape, which the trace names — kept from the kernel's records ([`Recorder`])
//! and rendered as text (here) and as an SVG picture in the spirit of the paper's Figures 2
//! (the bisection) and 3 (load / search / select) (`RowTrace::to_svg`, [`crate::rtopk::svg`]).

use std::fmt::Write as _;

use topk_ref::order::Mode;
use topk_ref::{Element, bf16, f16};

use crate::engine::lanes::WARP_SIZE;
use crate::rtopk::args::{KernelArgs, SearchExit};
use crate::rtopk::plan::Plan;
use crate::rtopk::record::{Moved, Phase, Recorder, TraceChunk, TraceCut, TraceStep};
use crate::rtopk::select::trace_flags;

/// One row's journey (the row-uniform registers, and the selection by chunks of 32).
#[derive(Clone, Debug, PartialEq)]
pub struct RowTrace {
    /// The row.
    pub row: usize,
    /// The entry point that ran it (`rtopk_half_rows_4`, `rtopk_block_rows`, ...).
    pub kernel: String,
    /// Lanes (threads, for a block row) per row.
    pub lanes_per_row: usize,
    /// Keys per lane in registers.
    pub keys_per_lane: usize,
    /// Row width.
    pub m: usize,
    /// k.
    pub k: usize,
    /// Largest or smallest.
    pub mode: Mode,
    /// `Some(n)` for early stopping.
    pub max_iter: Option<u32>,
    /// Algorithm 1's precision.
    pub precision: f32,
    /// The row's element type: `"f32"`, `"f16"` or `"bf16"`.
    pub elem: &'static str,
    /// The row's values (exact: a 16-bit row's as f32).
    pub values: Vec<f32>,
    /// `s_keys` after the load stage.
    pub keys: Vec<u32>,
    /// `row_min(lane_min)`: the minimum over the row's lanes.
    pub min_key: u32,
    /// `row_max(lane_max)`.
    pub max_key: u32,
    /// The threshold tests.
    pub steps: Vec<TraceStep>,
    /// `(iterations, n)` when the row was narrowed to its `n` candidates after that many
    /// iterations (`narrow_row`).
    pub narrowed: Option<(u32, u32)>,
    /// How the search ended.
    pub exit: Option<SearchExit>,
    /// Iterations reported (docs/contract.md §3).
    pub iterations: u32,
    /// Selection: keys above this are strong.
    pub strong_above: u32,
    /// Selection: the band's lowest key.
    pub band_lo: u32,
    /// Selection: strong elements counted by the search.
    pub strong_count: u32,
    /// The chunks the selection visited.
    pub chunks: Vec<TraceChunk>,
    /// Output indices.
    pub out_idx: Vec<u32>,
    /// Output values (exact: a 16-bit row's as f32).
    pub out_val: Vec<f32>,
    /// Per element: strong, band, taken (families that place a thread's elements by a scan).
    flags: Vec<(bool, bool, bool)>,
}

impl RowTrace {
    /// An empty trace of row `row` holding `values`, run by `plan`'s kernel.
    pub fn new(row: usize, args: &KernelArgs, values: Vec<f32>, plan: &Plan) -> Self {
        Self {
            row,
            kernel: plan.unit.to_string(),
            lanes_per_row: plan.lanes_per_row,
            keys_per_lane: plan.keys_per_lane,
            m: args.m,
            k: args.k,
            mode: args.mode,
            max_iter: args.bisect.max_iter,
            precision: args.bisect.precision,
            elem: "f32",
            values,
            keys: Vec::new(),
            min_key: 0,
            max_key: 0,
            steps: Vec::new(),
            narrowed: None,
            exit: None,
            iterations: 0,
            strong_above: 0,
            band_lo: 0,
            strong_count: 0,
            chunks: Vec::new(),
            out_idx: Vec::new(),
            out_val: Vec::new(),
            flags: Vec::new(),
        }
    }

    /// The ordered value a key of this row stands for: keys are the row's own (f32 keys, or
    /// 16-bit keys for a 16-bit row; docs/kernel.md, "16-bit rows").
    pub fn value_of_key(&self, key: u32) -> f32 {
        key_value(self.elem, key)
    }

    /// Completes the trace after the launch: the selection's chunks of 32 from the recorded
    /// per-element flags (where the family placed elements by a scan), and the output.
    pub(crate) fn finish(&mut self, out_idx: Vec<u32>, out_val: Vec<f32>) {
        if self.chunks.is_empty() && !self.flags.is_empty() {
            let band_left = (self.k as u32).wrapping_sub(self.strong_count);
            let mut chunks = Vec::new();
            {
                let sink = std::cell::RefCell::new(ChunkSink(&mut chunks));
                trace_flags(crate::rtopk::record::Tracer(Some(&sink)), &self.flags, band_left, 0);
            }
            self.chunks = chunks;
        }
        (self.out_idx, self.out_val) = (out_idx, out_val);
    }

    /// Whether the row ran packed (a 16-bit warp row; block rows hold keys).
    fn packed(&self) -> bool {
        matches!(self.elem, "f16" | "bf16") && !self.kernel.starts_with("rtopk_block_rows")
    }

    fn family_line(&self) -> String {
        let per_warp = 32 / self.lanes_per_row.clamp(1, 32);
        match self.kernel.as_str() {
            k if k.starts_with("rtopk_block_rows") => format!(
                "{k}: one block of {} threads, {} keys per thread in registers",
                self.lanes_per_row, self.keys_per_lane
            ),
            k => format!(
                "{k}: {} lanes per row ({} per warp), {}",
                self.lanes_per_row,
                if per_warp == 1 { "one row".to_string() } else { format!("{per_warp} rows") },
                if !self.packed() {
                    format!("{} keys per lane in registers", self.keys_per_lane)
                } else {
                    format!("{} elements per lane, two per register", self.keys_per_lane)
                }
            ),
        }
    }

    /// The trace as text: the loaded row, each iteration, the selection masks, the output.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.text_header(&mut s);
        self.text_load(&mut s);
        self.text_search(&mut s);
        self.text_select(&mut s);
        self.text_output(&mut s);
        s
    }

    pub(crate) fn mode_name(&self) -> &'static str {
        match self.mode {
            Mode::Largest => "largest",
            Mode::Smallest => "smallest",
        }
    }

    pub(crate) fn algorithm(&self) -> String {
        match self.max_iter {
            Some(n) => format!("early stopping, max_iter = {n} (Algorithm 2)"),
            None if self.precision > 0.0 => {
                format!("Algorithm 1, precision {}", self.precision)
            }
            None => "exact (Algorithm 1)".to_string(),
        }
    }

    fn text_header(&self, s: &mut String) {
        let elem = if self.elem == "f32" { String::new() } else { format!("{}, ", self.elem) };
        let _ = writeln!(
            s,
            "row {}: M = {}, k = {}, {elem}{}, {}\n{}",
            self.row,
            self.m,
            self.k,
            self.mode_name(),
            self.algorithm(),
            self.family_line()
        );
        if matches!(self.elem, "f16" | "bf16") {
            let _ = writeln!(
                s,
                "({} row: thresholds in f32 on the exact values; keys are the row's own 16-bit \
                 keys)",
                self.elem
            );
        } else if self.elem != "f32" {
            let _ = writeln!(
                s,
                "({} row: no value phase; the search halves keys, each the value with its sign \
                 bit flipped)",
                self.elem
            );
        }
        if self.mode == Mode::Smallest {
            let _ = writeln!(s, "(smallest mode: the search runs on ordered values -x)");
        }
    }

    fn text_load(&self, s: &mut String) {
        let (lanes, epl) = (self.lanes_per_row, self.keys_per_lane);
        let used = self.m.div_ceil(epl.max(1));
        let last = epl.saturating_sub(1);
        let _ = if self.packed() {
            writeln!(
                s,
                "\nload_row: lane l holds x[l*{epl}] .. x[l*{epl} + {last}] as ordered bits, two \
                 per register; {used} of {lanes} lanes hold elements (slots past M: -inf)"
            )
        } else {
            writeln!(
                s,
                "\nload_row: lane l holds the keys of x[l*{epl}] .. x[l*{epl} + {last}] in \
                 registers; {used} of {lanes} lanes hold elements (slots past M: key 0)"
            )
        };
        for (c, vals) in self.values.chunks(8).enumerate() {
            let cells: Vec<String> = vals.iter().map(|v| format!("{:>9}", short(*v))).collect();
            let _ = writeln!(s, "  x[{:>4}..] {}", c * 8, cells.join(" "));
        }
        let _ = writeln!(
            s,
            "  row_min -> lo_key {:#010x} ({}), row_max -> hi_key {:#010x} ({})",
            self.min_key,
            short(self.value_of_key(self.min_key)),
            self.max_key,
            short(self.value_of_key(self.max_key))
        );
    }

    fn text_search(&self, s: &mut String) {
        let reduce = match self.lanes_per_row {
            32 => "one __reduce_add_sync".to_string(),
            l if l < 32 => format!("{} shfl_xor steps over the row's lanes", l.trailing_zeros()),
            _ if self.kernel.contains("cluster") => "the cluster's sum (a block sum, \
                red.shared::cluster.add into every block's slot, barrier.cluster)"
                .to_string(),
            _ => "a block sum (__reduce_add_sync per warp, __syncthreads)".to_string(),
        };
        let _ = writeln!(
            s,
            "\nsearch_threshold: each test = count_ge(t): slots_ge + popc per lane, then {reduce}"
        );
        let _ = writeln!(
            s,
            "  {:>3}  {:<5}  {:>10}  {:>10}  {:>10}  {:>10}  {:>5}  update",
            "it", "phase", "lo", "hi", "thres", "t", "cnt"
        );
        for st in &self.steps {
            let phase = match st.phase {
                Phase::Value => "value",
                Phase::Key => "key",
            };
            let thres = st.thres.map_or_else(|| "-".to_string(), short);
            let update = match st.moved {
                Moved::Hi => "cnt < k  -> hi = thres",
                Moved::Lo if self.max_iter.is_some() => "cnt >= k -> lo = thres",
                Moved::Lo => "cnt > k  -> lo = thres",
                Moved::Hit => "cnt == k -> HIT",
            };
            // Key-phase brackets can be a few ulps wide: print them exactly.
            let show = if st.phase == Phase::Key { precise } else { short };
            let _ = writeln!(
                s,
                "  {:>3}  {:<5}  {:>10}  {:>10}  {:>10}  {:#010x}  {:>5}  {update}",
                st.iteration,
                phase,
                show(self.value_of_key(st.lo_key)),
                show(self.value_of_key(st.hi_key)),
                thres,
                st.t,
                st.cnt
            );
        }
        let exit = match self.exit {
            Some(SearchExit::Hit) => "HIT (a test counted exactly k)",
            Some(SearchExit::Converged) => "CONVERGED (the bracket cannot shrink)",
            Some(SearchExit::Precision) => "PRECISION (hi - lo <= eps)",
            Some(SearchExit::Recall) => "RECALL (the bracket guarantees the recall target)",
            Some(SearchExit::MaxIter) => "MAX_ITER (early stopping)",
            None => "-",
        };
        if let Some((after, n)) = self.narrowed {
            let _ = writeln!(
                s,
                "  narrow_row after iteration {after}: the {n} keys >= lo_key and their indices to \
                 the stage (one scan of the lanes' counts, index order), then back into \
                 registers (CandRow); later counts and the selection read only them"
            );
        }
        let _ = writeln!(s, "  exit: {exit}; iterations = {}", self.iterations);
    }

    fn text_select(&self, s: &mut String) {
        // strong_above = hi_key - 1 means "key >= hi_key"; u32::MAX means no strong element.
        let strong = match self.strong_above.checked_add(1) {
            None => "none".to_string(),
            Some(from) => {
                format!("key >= {from:#010x} ({})", precise(self.value_of_key(from)))
            }
        };
        let band = if self.exit == Some(SearchExit::Hit) {
            "empty (HIT: exactly k keys are strong)".to_string()
        } else {
            format!(
                "the first {} by index with key >= {:#010x} ({})",
                (self.k as u32).wrapping_sub(self.strong_count),
                self.band_lo,
                precise(self.value_of_key(self.band_lo))
            )
        };
        let _ = writeln!(
            s,
            "\nselect_topk: strong_count = {}; strong: {strong}; band: {band}",
            self.strong_count
        );
        let _ = writeln!(
            s,
            "  32 consecutive elements per line: S strong, B band taken, b band not taken, \
             . other, blank past M"
        );
        if let Some((_, n)) = self.narrowed {
            let _ = writeln!(
                s,
                "  select_candidates: chunks of 32 over the {n} candidates with ballots, [j] = \
                 candidate j, not element j"
            );
        } else if self.kernel.starts_with("rtopk_block_rows") {
            let _ = writeln!(
                s,
                "  the registers' elements placed by one block_prefix, staged and written by \
                 consecutive threads (emit_staged); past them chunks of blockDim with ballots"
            );
        } else {
            let _ = writeln!(
                s,
                "  select_topk_lanes: classify, one row_scan of the lanes' strong and band counts \
                 places every lane's elements, emit_staged writes them"
            );
        }
        for c in &self.chunks {
            let _ = writeln!(
                s,
                "  [{:>4}] {}  sel_mask {:#010x}  band_left {} -> written {} + {}",
                c.base,
                lane_string(c),
                c.sel_mask,
                c.band_left_before,
                c.written_before,
                c.sel_mask.count_ones()
            );
        }
    }

    fn text_output(&self, s: &mut String) {
        let idx: Vec<String> = self.out_idx.iter().map(u32::to_string).collect();
        let val: Vec<String> = self.out_val.iter().map(|v| short(*v)).collect();
        let _ = writeln!(s, "\noutput (ascending index):");
        let _ = writeln!(s, "  indices {}", idx.join(" "));
        let _ = writeln!(s, "  values  {}", val.join(" "));
    }
}

/// The ordered value a key of a row of `elem` (`"f32"`, `"f16"`, `"bf16"`) stands for.
pub(crate) fn key_value(elem: &str, key: u32) -> f32 {
    match elem {
        "f16" => f16::ordered_value_of_key(key as u16),
        "bf16" => bf16::ordered_value_of_key(key as u16),
        _ => topk_ref::order::ordered_value_of_key(key),
    }
}

/// Collects chunks into a vector (for [`RowTrace::finish`]).
struct ChunkSink<'a>(&'a mut Vec<TraceChunk>);

impl Recorder for ChunkSink<'_> {
    fn loaded(&mut self, _: Vec<u32>) {}
    fn loaded_slots(&mut self, _: usize, _: &[u32]) {}
    fn range(&mut self, _: u32, _: u32) {}
    fn step(&mut self, _: TraceStep) {}
    fn narrowed(&mut self, _: u32, _: u32) {}
    fn cut(&mut self, _: TraceCut) {}
    fn chunk(&mut self, chunk: TraceChunk) {
        self.0.push(chunk);
    }
    fn selected_slots(&mut self, _: usize, _: &[(bool, bool, bool)]) {}
}

impl Recorder for RowTrace {
    fn loaded(&mut self, keys: Vec<u32>) {
        self.keys = keys;
    }

    fn loaded_slots(&mut self, start: usize, keys: &[u32]) {
        if self.keys.len() < self.m {
            self.keys.resize(self.m, 0);
        }
        for (slot, &k) in self.keys.iter_mut().skip(start).zip(keys) {
            *slot = k;
        }
    }

    fn selected_slots(&mut self, start: usize, flags: &[(bool, bool, bool)]) {
        if self.flags.len() < self.m {
            self.flags.resize(self.m, (false, false, false));
        }
        for (slot, &f) in self.flags.iter_mut().skip(start).zip(flags) {
            *slot = f;
        }
    }

    fn range(&mut self, min_key: u32, max_key: u32) {
        (self.min_key, self.max_key) = (min_key, max_key);
    }

    fn step(&mut self, step: TraceStep) {
        // every warp of a block row, and every block of a cluster row, runs the row's search
        // and reports its steps: the first report of each iteration is kept
        if self.steps.last().is_none_or(|last| last.iteration < step.iteration) {
            self.steps.push(step);
        }
    }

    fn narrowed(&mut self, iterations: u32, candidates: u32) {
        self.narrowed = Some((iterations, candidates));
    }

    fn cut(&mut self, cut: TraceCut) {
        self.exit = Some(cut.exit);
        self.iterations = cut.iterations;
        self.strong_above = cut.strong_above;
        self.band_lo = cut.band_lo;
        self.strong_count = cut.strong_count;
    }

    fn chunk(&mut self, chunk: TraceChunk) {
        self.chunks.push(chunk);
    }
}

/// One character per lane of a selection chunk.
fn lane_string(c: &TraceChunk) -> String {
    (0..WARP_SIZE)
        .map(|l| {
            let bit = |m: u32| m >> l & 1 == 1;
            if !bit(c.valid) {
                ' '
            } else if bit(c.strong_mask) {
                'S'
            } else if bit(c.band_mask) && bit(c.sel_mask) {
                'B'
            } else if bit(c.band_mask) {
                'b'
            } else {
                '.'
            }
        })
        .collect()
}

/// The shortest rendering that identifies the float exactly.
pub(crate) fn precise(v: f32) -> String {
    if !v.is_finite() || v == 0.0 {
        short(v)
    } else if (1e-3..1e5).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A compact rendering of a float (4 significant digits, specials by name).
pub(crate) fn short(v: f32) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else if v == 0.0 {
        if v.is_sign_negative() { "-0".into() } else { "0".into() }
    } else if (1e-3..1e5).contains(&v.abs()) {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.3e}")
    }
}
