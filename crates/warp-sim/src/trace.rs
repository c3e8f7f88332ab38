//! The teaching trace: one row's journey through the kernel, as text and as an SVG picture in
//! the spirit of the paper's Figures 2 (the bisection) and 3 (load / search / select).

use std::fmt::Write as _;

use topk_ref::order::{Mode, ordered_value_of_key};

use crate::kernel::{KernelArgs, SearchExit};
use crate::lanes::WARP_SIZE;

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
    /// 1-based iteration number (SPEC §3).
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

/// One chunk of 32 in the selection stage (bit `l` = element `base + l`).
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

/// One row's journey (lane 0's view of the warp-uniform registers).
#[derive(Clone, Debug, PartialEq)]
pub struct RowTrace {
    /// The row.
    pub row: usize,
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
    /// The row's values.
    pub values: Vec<f32>,
    /// `s_keys` after the load stage.
    pub keys: Vec<u32>,
    /// `warp_min(lane_min)`.
    pub min_key: u32,
    /// `warp_max(lane_max)`.
    pub max_key: u32,
    /// The threshold tests.
    pub steps: Vec<TraceStep>,
    /// `(iterations, n)` when the row was narrowed to its `n` candidates after that many
    /// iterations (`narrow_row`).
    pub narrowed: Option<(u32, u32)>,
    /// How the search ended.
    pub exit: Option<SearchExit>,
    /// Iterations reported (SPEC §3).
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
    /// Output values.
    pub out_val: Vec<f32>,
}

impl RowTrace {
    /// An empty trace of row `row` holding `values`.
    pub fn new(row: usize, args: &KernelArgs, values: Vec<f32>) -> Self {
        Self {
            row,
            m: args.m,
            k: args.k,
            mode: args.mode,
            max_iter: args.bisect.max_iter,
            precision: args.bisect.precision,
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

    fn mode_name(&self) -> &'static str {
        match self.mode {
            Mode::Largest => "largest",
            Mode::Smallest => "smallest",
        }
    }

    fn algorithm(&self) -> String {
        match self.max_iter {
            Some(n) => format!("early stopping, max_iter = {n} (Algorithm 2)"),
            None if self.precision > 0.0 => {
                format!("Algorithm 1, precision {}", self.precision)
            }
            None => "exact (Algorithm 1)".to_string(),
        }
    }

    fn text_header(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "row {}: M = {}, k = {}, {}, {}; one warp of {WARP_SIZE} lanes",
            self.row,
            self.m,
            self.k,
            self.mode_name(),
            self.algorithm()
        );
        if self.mode == Mode::Smallest {
            let _ = writeln!(s, "(smallest mode: the search runs on ordered values -x)");
        }
    }

    fn text_load(&self, s: &mut String) {
        let chunks = self.m.div_ceil(WARP_SIZE);
        let last = self.m - (chunks - 1) * WARP_SIZE;
        let _ = writeln!(
            s,
            "\nload_row: lane l loads x[l], x[l+32], ...; {chunks} chunk(s), the last holds {last} \
             element(s); __syncwarp()"
        );
        for (c, vals) in self.values.chunks(8).enumerate() {
            let cells: Vec<String> = vals.iter().map(|v| format!("{:>9}", short(*v))).collect();
            let _ = writeln!(s, "  x[{:>4}..] {}", c * 8, cells.join(" "));
        }
        let _ = writeln!(
            s,
            "  warp_min -> lo_key {:#010x} ({}), warp_max -> hi_key {:#010x} ({})",
            self.min_key,
            short(ordered_value_of_key(self.min_key)),
            self.max_key,
            short(ordered_value_of_key(self.max_key))
        );
    }

    fn text_search(&self, s: &mut String) {
        let _ = writeln!(s, "\nsearch_threshold: each test = count_ge(t) + 5 shfl_xor steps");
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
                show(ordered_value_of_key(st.lo_key)),
                show(ordered_value_of_key(st.hi_key)),
                thres,
                st.t,
                st.cnt
            );
        }
        let exit = match self.exit {
            Some(SearchExit::Hit) => "HIT (a test counted exactly k)",
            Some(SearchExit::Converged) => "CONVERGED (the bracket cannot shrink)",
            Some(SearchExit::Precision) => "PRECISION (hi - lo <= eps)",
            Some(SearchExit::MaxIter) => "MAX_ITER (early stopping)",
            None => "-",
        };
        if let Some((after, n)) = self.narrowed {
            let _ = writeln!(
                s,
                "  narrow_row after iteration {after}: the {n} keys >= lo_key to s_cand (ballot + \
                 popc, index order); later counts and the selection read only them"
            );
        }
        let _ = writeln!(s, "  exit: {exit}; iterations = {}", self.iterations);
    }

    fn text_select(&self, s: &mut String) {
        // strong_above = hi_key - 1 means "key >= hi_key"; u32::MAX means no strong element.
        let strong = match self.strong_above.checked_add(1) {
            None => "none".to_string(),
            Some(from) => {
                format!("key >= {from:#010x} ({})", precise(ordered_value_of_key(from)))
            }
        };
        let band = if self.exit == Some(SearchExit::Hit) {
            "empty (HIT: exactly k keys are strong)".to_string()
        } else {
            format!(
                "the first {} by index with key >= {:#010x} ({})",
                (self.k as u32).wrapping_sub(self.strong_count),
                self.band_lo,
                precise(ordered_value_of_key(self.band_lo))
            )
        };
        let _ = writeln!(
            s,
            "\nselect_topk: strong_count = {}; strong: {strong}; band: {band}",
            self.strong_count
        );
        let _ = writeln!(
            s,
            "  lanes 0..31 left to right: S strong, B band taken, b band not taken, . other, \
             blank past M"
        );
        if let Some((_, n)) = self.narrowed {
            let _ =
                writeln!(s, "  (chunks over the {n} candidates, [j] = candidate j, not element j)");
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

    /// The trace as an SVG picture: the bisection (top) and the selection chunks (bottom).
    pub fn to_svg(&self) -> String {
        let mut svg = Svg::new(self);
        svg.header(self);
        svg.search(self);
        svg.select(self);
        svg.finish()
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
fn precise(v: f32) -> String {
    if !v.is_finite() || v == 0.0 {
        short(v)
    } else if (1e-3..1e5).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A compact rendering of a float (4 significant digits, specials by name).
fn short(v: f32) -> String {
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

// ----- SVG ----------------------------------------------------------------------------------

const WIDTH: f64 = 980.0;
const MARGIN: f64 = 20.0;
const AXIS_LEFT: f64 = 90.0;
const AXIS_RIGHT: f64 = 640.0;
const STEP_H: f64 = 22.0;
const CELL: f64 = 16.0;
const COLOR_STRONG: &str = "#1f5fa8";
const COLOR_BAND: &str = "#e08a1e";
const COLOR_BAND_SKIP: &str = "#f6d7a7";
const COLOR_OTHER: &str = "#e4e4e4";
const COLOR_THRES: &str = "#c62828";

/// Positions on the horizontal axis: linear in ordered value when the row is finite, by rank
/// otherwise (so ±inf and NaN still have a place).
struct Axis {
    sorted_keys: Vec<u32>,
    linear: Option<(f64, f64)>,
}

impl Axis {
    fn new(t: &RowTrace) -> Self {
        let mut sorted_keys = t.keys.clone();
        sorted_keys.sort_unstable();
        let lo = f64::from(ordered_value_of_key(t.min_key));
        let hi = f64::from(ordered_value_of_key(t.max_key));
        let linear = (lo.is_finite() && hi.is_finite() && hi > lo).then_some((lo, hi));
        Self { sorted_keys, linear }
    }

    /// x coordinate of a key.
    fn x(&self, key: u32) -> f64 {
        let frac = match self.linear {
            Some((lo, hi)) => {
                let v = f64::from(ordered_value_of_key(key));
                if v.is_finite() { (v - lo) / (hi - lo) } else { 0.5 }
            }
            None => {
                let below = self.sorted_keys.partition_point(|&k| k < key);
                let upto = self.sorted_keys.partition_point(|&k| k <= key);
                let n = self.sorted_keys.len().max(1) as f64;
                (below + upto) as f64 / 2.0 / n
            }
        };
        AXIS_LEFT + frac.clamp(0.0, 1.0) * (AXIS_RIGHT - AXIS_LEFT)
    }
}

struct Svg {
    body: String,
    y: f64,
    axis: Axis,
}

impl Svg {
    fn new(t: &RowTrace) -> Self {
        Self { body: String::new(), y: MARGIN, axis: Axis::new(t) }
    }

    fn text(&mut self, x: f64, y: f64, size: u32, anchor: &str, s: &str) {
        let s = s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}">{s}</text>"#
        );
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r##"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}" stroke="#888" stroke-width="0.5"/>"##
        );
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, color: &str, width: f64) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{color}" stroke-width="{width}"/>"#
        );
    }

    fn header(&mut self, t: &RowTrace) {
        self.y += 14.0;
        let title = format!(
            "RTop-K warp kernel, row {}: M = {}, k = {}, {}, {}",
            t.row,
            t.m,
            t.k,
            t.mode_name(),
            t.algorithm()
        );
        self.text(MARGIN, self.y, 16, "start", &title);
        self.y += 20.0;
        let exit = match t.exit {
            Some(SearchExit::Hit) => "HIT",
            Some(SearchExit::Converged) => "CONVERGED",
            Some(SearchExit::Precision) => "PRECISION",
            Some(SearchExit::MaxIter) => "MAX_ITER",
            None => "-",
        };
        let sub = format!(
            "{} iterations, exit {exit}; stages: load_row -> search_threshold -> select_topk",
            t.iterations
        );
        self.text(MARGIN, self.y, 12, "start", &sub);
        self.y += 16.0;
    }

    /// Figure 2: the row on a value axis, then one bracket per iteration.
    fn search(&mut self, t: &RowTrace) {
        self.y += 18.0;
        let axis_note = if self.axis.linear.is_some() { "value axis" } else { "rank axis" };
        let heading = format!("search_threshold ({axis_note}; ordered values)");
        self.text(MARGIN, self.y, 14, "start", &heading);
        self.y += 22.0;
        let selected: Vec<bool> = {
            let mut sel = vec![false; t.keys.len()];
            for &i in &t.out_idx {
                if let Some(s) = sel.get_mut(i as usize) {
                    *s = true;
                }
            }
            sel
        };
        self.text(AXIS_LEFT - 8.0, self.y + 4.0, 11, "end", "row");
        self.line(AXIS_LEFT, self.y, AXIS_RIGHT, self.y, "#444", 1.0);
        for (i, &key) in t.keys.iter().enumerate() {
            let x = self.axis.x(key);
            let (color, h) = if selected[i] { (COLOR_STRONG, 9.0) } else { ("#999", 6.0) };
            self.line(x, self.y - h, x, self.y + h, color, 1.5);
        }
        let lo_label = short(ordered_value_of_key(t.min_key));
        let hi_label = short(ordered_value_of_key(t.max_key));
        self.text(AXIS_LEFT, self.y + 22.0, 10, "middle", &format!("min {lo_label}"));
        self.text(AXIS_RIGHT, self.y + 22.0, 10, "middle", &format!("max {hi_label}"));
        self.y += 36.0;
        for st in &t.steps {
            self.search_step(t, st);
        }
        if t.steps.is_empty() {
            self.text(AXIS_LEFT, self.y, 11, "start", "no threshold test was needed");
            self.y += STEP_H;
        }
    }

    fn search_step(&mut self, t: &RowTrace, st: &TraceStep) {
        let (x_lo, x_hi, x_t) = (self.axis.x(st.lo_key), self.axis.x(st.hi_key), self.axis.x(st.t));
        let y = self.y;
        self.text(AXIS_LEFT - 8.0, y + 4.0, 11, "end", &format!("it {}", st.iteration));
        self.line(x_lo, y, x_hi, y, "#7a9cc6", 6.0);
        self.line(x_t, y - 8.0, x_t, y + 8.0, COLOR_THRES, 2.0);
        let thres =
            st.thres.map_or_else(|| format!("t={:#x}", st.t), |v| format!("thres={}", short(v)));
        let update = match st.moved {
            Moved::Hi => "cnt<k: hi=thres",
            Moved::Lo if t.max_iter.is_some() => "cnt>=k: lo=thres",
            Moved::Lo => "cnt>k: lo=thres",
            Moved::Hit => "cnt==k: HIT",
        };
        let phase = match st.phase {
            Phase::Value => "value",
            Phase::Key => "key",
        };
        let label = format!("{phase}  {thres}  cnt={}  {update}", st.cnt);
        self.text(AXIS_RIGHT + 16.0, y + 4.0, 11, "start", &label);
        self.y += STEP_H;
    }

    /// Figure 3's selecting stage: one row of 32 lanes per chunk.
    fn select(&mut self, t: &RowTrace) {
        self.y += 20.0;
        self.text(MARGIN, self.y, 14, "start", "select_topk (ballot + popc, chunks of 32 lanes)");
        self.y += 14.0;
        let legend = [
            (COLOR_STRONG, "strong (key > strong_above)"),
            (COLOR_BAND, "band, taken"),
            (COLOR_BAND_SKIP, "band, not needed"),
            (COLOR_OTHER, "not selected"),
        ];
        let mut x = AXIS_LEFT;
        for (color, name) in legend {
            self.rect(x, self.y, 12.0, 12.0, color);
            self.text(x + 16.0, self.y + 10.0, 11, "start", name);
            x += 40.0 + 6.5 * name.len() as f64;
        }
        self.y += 24.0;
        for c in &t.chunks {
            self.chunk(c);
        }
        self.y += 8.0;
        let idx: Vec<String> = t.out_idx.iter().map(u32::to_string).collect();
        self.text(
            MARGIN,
            self.y + 10.0,
            12,
            "start",
            &format!("output indices: {}", idx.join(" ")),
        );
        self.y += 18.0;
        let val: Vec<String> = t.out_val.iter().map(|v| short(*v)).collect();
        self.text(
            MARGIN,
            self.y + 10.0,
            12,
            "start",
            &format!("output values:  {}", val.join(" ")),
        );
        self.y += 24.0;
    }

    fn chunk(&mut self, c: &TraceChunk) {
        let y = self.y;
        self.text(AXIS_LEFT - 8.0, y + 12.0, 11, "end", &format!("i = {}..", c.base));
        for l in 0..WARP_SIZE {
            let bit = |m: u32| m >> l & 1 == 1;
            if !bit(c.valid) {
                continue;
            }
            let color = if bit(c.strong_mask) {
                COLOR_STRONG
            } else if bit(c.band_mask) && bit(c.sel_mask) {
                COLOR_BAND
            } else if bit(c.band_mask) {
                COLOR_BAND_SKIP
            } else {
                COLOR_OTHER
            };
            self.rect(AXIS_LEFT + l as f64 * CELL, y, CELL - 2.0, CELL, color);
        }
        let note = format!(
            "popc(sel_mask) = {}, written {} -> {}",
            c.sel_mask.count_ones(),
            c.written_before,
            c.written_before + c.sel_mask.count_ones()
        );
        self.text(AXIS_LEFT + 32.0 * CELL + 12.0, y + 12.0, 11, "start", &note);
        self.y += CELL + 6.0;
    }

    fn finish(self) -> String {
        let height = self.y + MARGIN;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {WIDTH} {height:.0}\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
            self.body
        )
    }
}
