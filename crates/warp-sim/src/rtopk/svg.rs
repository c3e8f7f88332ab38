//! The teaching trace as a picture, drawn with plotters in the spirit of the paper's Figures 2
//! and 3: the row on a value axis with the bracket `[lo, hi]`, the threshold and the count of
//! every iteration (the bisection, Figure 2), then the selection's chunks of 32 lanes coloured
//! strong / band taken / band not needed / other (the selecting stage, Figure 3).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::engine::error::SimError;
use crate::engine::lanes::WARP_SIZE;
use crate::rtopk::args::SearchExit;
use crate::rtopk::record::{Moved, Phase, TraceChunk, TraceStep};
use crate::rtopk::trace::{RowTrace, short};

const WIDTH: u32 = 1000;
const MARGIN: i32 = 20;
/// Right edge of the search chart; the steps' labels go to its right.
const CHART_RIGHT: u32 = 660;
/// Left edge of the chunks' lane cells.
const CELLS_LEFT: i32 = 90;
/// Pixels per iteration row of the search chart.
const STEP_H: u32 = 22;
/// Pixels per lane cell of a chunk.
const CELL: i32 = 16;
const HEADER_H: u32 = 64;
const SELECT_HEAD_H: u32 = 62;
const OUTPUT_H: u32 = 56;
const FONT: &str = "sans-serif";
const STRONG: RGBColor = RGBColor(0x1f, 0x5f, 0xa8);
const BAND: RGBColor = RGBColor(0xe0, 0x8a, 0x1e);
const BAND_SKIP: RGBColor = RGBColor(0xf6, 0xd7, 0xa7);
const OTHER: RGBColor = RGBColor(0xe4, 0xe4, 0xe4);
const THRES: RGBColor = RGBColor(0xc6, 0x28, 0x28);
const BRACKET: RGBColor = RGBColor(0x7a, 0x9c, 0xc6);
const ROW_TICK: RGBColor = RGBColor(0x99, 0x99, 0x99);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = Result<(), DrawingAreaErrorKind<std::io::Error>>;

impl RowTrace {
    /// The trace as an SVG picture: the bisection (top) and the selection chunks (bottom).
    pub fn to_svg(&self) -> Result<String, SimError> {
        let mut svg = String::new();
        draw(self, &mut svg).map_err(|e| SimError::Draw(e.to_string()))?;
        Ok(svg)
    }
}

/// Heights of the picture's four bands.
fn bands(t: &RowTrace) -> [u32; 4] {
    let steps = t.steps.len().max(1) as u32;
    let search = 60 + STEP_H * (steps + 2) + 40;
    let select = SELECT_HEAD_H + (CELL as u32 + 6) * t.chunks.len() as u32 + 8;
    [HEADER_H, search, select, OUTPUT_H]
}

fn draw(t: &RowTrace, svg: &mut String) -> Drawn {
    let [header_h, search_h, select_h, output_h] = bands(t);
    let height = header_h + search_h + select_h + output_h;
    let root = SVGBackend::with_string(svg, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (header, rest) = root.split_vertically(header_h);
    let (search, rest) = rest.split_vertically(search_h);
    let (select, output) = rest.split_vertically(select_h);
    draw_header(&header, t)?;
    draw_search(&search, t)?;
    draw_select(&select, t)?;
    draw_output(&output, t)?;
    root.present()
}

fn text(area: &Area<'_>, s: &str, at: (i32, i32), size: u32, h: HPos) -> Drawn {
    let style = TextStyle::from((FONT, size).into_font()).pos(Pos::new(h, VPos::Center));
    area.draw(&Text::new(s.to_string(), at, style))
}

fn draw_header(area: &Area<'_>, t: &RowTrace) -> Drawn {
    let title = format!(
        "RTop-K warp kernel, row {}: M = {}, k = {}, {}, {}",
        t.row,
        t.m,
        t.k,
        t.mode_name(),
        t.algorithm()
    );
    text(area, &title, (MARGIN, 26), 20, HPos::Left)?;
    let exit = match t.exit {
        Some(SearchExit::Hit) => "HIT",
        Some(SearchExit::Converged) => "CONVERGED",
        Some(SearchExit::Precision) => "PRECISION",
        Some(SearchExit::Recall) => "RECALL",
        Some(SearchExit::MaxIter) => "MAX_ITER",
        None => "-",
    };
    let sub = format!(
        "{} iterations, exit {exit}; stages: load_row -> search_threshold -> select_topk",
        t.iterations
    );
    text(area, &sub, (MARGIN, 48), 15, HPos::Left)
}

/// Positions on the horizontal axis: ordered values when the row's range is finite, else the
/// rank among the row's keys (so that ±inf and NaN still have a place).
struct Axis {
    sorted_keys: Vec<u32>,
    linear: Option<(f64, f64)>,
    elem: &'static str,
}

impl Axis {
    fn new(t: &RowTrace) -> Self {
        let mut sorted_keys = t.keys.clone();
        sorted_keys.sort_unstable();
        let lo = f64::from(t.value_of_key(t.min_key));
        let hi = f64::from(t.value_of_key(t.max_key));
        let linear = (lo.is_finite() && hi.is_finite() && hi > lo).then_some((lo, hi));
        Self { sorted_keys, linear, elem: t.elem }
    }

    /// The axis' range.
    fn range(&self) -> (f64, f64) {
        let (lo, hi) = self.linear.unwrap_or((0.0, 1.0));
        let pad = (hi - lo) * 0.03;
        (lo - pad, hi + pad)
    }

    /// Where a key goes.
    fn x(&self, key: u32) -> f64 {
        match self.linear {
            Some((lo, hi)) => {
                let v = f64::from(crate::rtopk::trace::key_value(self.elem, key));
                if v.is_finite() { v.clamp(lo, hi) } else { (lo + hi) / 2.0 }
            }
            None => {
                let below = self.sorted_keys.partition_point(|&k| k < key);
                let upto = self.sorted_keys.partition_point(|&k| k <= key);
                let n = self.sorted_keys.len().max(1) as f64;
                (below + upto) as f64 / 2.0 / n
            }
        }
    }
}

/// Figure 2: the row on the axis, then one bracket, threshold and count per iteration.
fn draw_search(area: &Area<'_>, t: &RowTrace) -> Drawn {
    let axis = Axis::new(t);
    let note = if axis.linear.is_some() { "value axis" } else { "rank axis" };
    let heading = format!("search_threshold ({note}; ordered values)");
    text(area, &heading, (MARGIN, 18), 17, HPos::Left)?;
    let (_, body) = area.split_vertically(34);
    let (left, labels) = body.split_horizontally(CHART_RIGHT);
    let steps = t.steps.len() as f64;
    let (x0, x1) = axis.range();
    let x_desc = if axis.linear.is_some() { "ordered value" } else { "rank among the row's keys" };
    let mut chart = ChartBuilder::on(&left)
        .margin_left(10)
        .margin_right(16)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, -(steps.max(1.0) + 0.6)..1.6)?;
    let linear = axis.linear.is_some();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_labels(8)
        .x_label_formatter(&|v| if linear { short(*v as f32) } else { format!("{v:.2}") })
        .x_desc(x_desc)
        .max_light_lines(1)
        .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
        .draw()?;
    // The row: one tick per element, the selected ones taller and blue.
    let mut selected = vec![false; t.keys.len()];
    for &i in &t.out_idx {
        if let Some(s) = selected.get_mut(i as usize) {
            *s = true;
        }
    }
    let ticks = t.keys.iter().zip(&selected).map(|(&key, &sel)| {
        let (h, style) =
            if sel { (0.45, STRONG.stroke_width(2)) } else { (0.28, ROW_TICK.stroke_width(1)) };
        let x = axis.x(key);
        PathElement::new(vec![(x, 1.0 - h), (x, 1.0 + h)], style)
    });
    chart.draw_series(ticks)?;
    // Lane 0's view of each test: the bracket it started from, its threshold.
    let mut rows = vec![("row".to_string(), 1.0)];
    for (n, st) in t.steps.iter().enumerate() {
        let y = -((n + 1) as f64);
        let (lo, hi, th) = (axis.x(st.lo_key), axis.x(st.hi_key), axis.x(st.t));
        chart.draw_series([Rectangle::new([(lo, y - 0.17), (hi, y + 0.17)], BRACKET.filled())])?;
        let threshold =
            PathElement::new(vec![(th, y - 0.38), (th, y + 0.38)], THRES.stroke_width(2));
        chart.draw_series([threshold])?;
        rows.push((format!("it {}", st.iteration), y));
        let (_, py) = chart.backend_coord(&(x0, y));
        text(&labels, &step_label(t, st), (8, py - labels.get_base_pixel().1), 13, HPos::Left)?;
    }
    let base = area.get_base_pixel();
    let at = |p: (i32, i32), dx: i32| (p.0 - base.0 + dx, p.1 - base.1);
    if t.steps.is_empty() {
        let p = chart.backend_coord(&(x0, -1.0));
        text(area, "no threshold test was needed", at(p, 4), 13, HPos::Left)?;
    }
    for (s, y) in rows {
        text(area, &s, at(chart.backend_coord(&(x0, y)), -8), 13, HPos::Right)?;
    }
    // The row's range, as the search's first bracket.
    let min = format!("min {}", short(t.value_of_key(t.min_key)));
    let max = format!("max {}", short(t.value_of_key(t.max_key)));
    text(area, &min, at(chart.backend_coord(&(axis.x(t.min_key), 0.3)), 3), 12, HPos::Left)?;
    text(area, &max, at(chart.backend_coord(&(axis.x(t.max_key), 0.3)), -3), 12, HPos::Right)
}

/// The text beside iteration `st`: phase, threshold, count and what moved.
fn step_label(t: &RowTrace, st: &TraceStep) -> String {
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
    let mut label = format!("{phase}  {thres}  cnt={}  {update}", st.cnt);
    if t.narrowed.is_some_and(|(after, _)| after == st.iteration) {
        label.push_str("; narrow_row");
    }
    label
}

/// Figure 3's selecting stage: one row of 32 lane cells per chunk.
fn draw_select(area: &Area<'_>, t: &RowTrace) -> Drawn {
    let heading = match t.narrowed {
        Some((_, n)) => {
            format!("select_topk (ballot + popc, chunks of 32 lanes) over the {n} candidates")
        }
        None => "select_topk (ballot + popc, chunks of 32 lanes)".to_string(),
    };
    text(area, &heading, (MARGIN, 14), 17, HPos::Left)?;
    let legend = [
        (STRONG, "strong (key > strong_above)"),
        (BAND, "band, taken"),
        (BAND_SKIP, "band, not needed"),
        (OTHER, "not selected"),
    ];
    let mut x = CELLS_LEFT;
    for (color, name) in legend {
        area.draw(&Rectangle::new([(x, 30), (x + 12, 42)], color.filled()))?;
        text(area, name, (x + 16, 36), 13, HPos::Left)?;
        x += 40 + (6.5 * name.len() as f64) as i32;
    }
    // A narrowed row's chunks run over its candidates: `j` counts candidates, not elements.
    let index = if t.narrowed.is_some() { "j" } else { "i" };
    for (n, c) in t.chunks.iter().enumerate() {
        draw_chunk(area, c, index, SELECT_HEAD_H as i32 + n as i32 * (CELL + 6))?;
    }
    Ok(())
}

fn draw_chunk(area: &Area<'_>, c: &TraceChunk, index: &str, y: i32) -> Drawn {
    let label = format!("{index} = {}..", c.base);
    text(area, &label, (CELLS_LEFT - 8, y + CELL / 2), 13, HPos::Right)?;
    for l in 0..WARP_SIZE {
        let bit = |m: u32| m >> l & 1 == 1;
        if !bit(c.valid) {
            continue;
        }
        let color = if bit(c.strong_mask) {
            STRONG
        } else if bit(c.band_mask) && bit(c.sel_mask) {
            BAND
        } else if bit(c.band_mask) {
            BAND_SKIP
        } else {
            OTHER
        };
        let x = CELLS_LEFT + l as i32 * CELL;
        area.draw(&Rectangle::new([(x, y), (x + CELL - 2, y + CELL)], color.filled()))?;
    }
    let n = c.sel_mask.count_ones();
    let note =
        format!("popc(sel_mask) = {n}, written {} -> {}", c.written_before, c.written_before + n);
    text(area, &note, (CELLS_LEFT + 32 * CELL + 12, y + CELL / 2), 13, HPos::Left)
}

fn draw_output(area: &Area<'_>, t: &RowTrace) -> Drawn {
    let idx: Vec<String> = t.out_idx.iter().map(u32::to_string).collect();
    let val: Vec<String> = t.out_val.iter().map(|v| short(*v)).collect();
    text(area, &format!("output indices: {}", idx.join(" ")), (MARGIN, 14), 15, HPos::Left)?;
    text(area, &format!("output values:  {}", val.join(" ")), (MARGIN, 36), 15, HPos::Left)
}

#[cfg(test)]
mod tests {
    use topk_ref::{Bisect, Mode};

    use crate::rtopk::args::KernelArgs;
    use crate::rtopk::launch::{SimConfig, Simulator};
    use crate::rtopk::trace::RowTrace;

    fn trace(row: &[f32], k: usize, bisect: Bisect) -> RowTrace {
        let args = KernelArgs { n: 1, m: row.len(), k, mode: Mode::Largest, bisect, mutant: None };
        let mut sim = Simulator::new(SimConfig::default());
        sim.run_traced(row, &args, 0).expect("a launch").1
    }

    /// Filled rectangles of `color`.
    fn fills(svg: &str, color: &str) -> usize {
        svg.matches(&format!("fill=\"{color}\" stroke=\"none\"/>")).count()
    }

    /// Figure 2: one bracket and one threshold per iteration; Figure 3: one cell per element
    /// of each chunk, coloured by what the selection did with it.
    #[test]
    fn the_picture_has_a_bracket_per_iteration_and_a_cell_per_element() {
        let row: Vec<f32> = (0..40).map(|i| ((i * 37) % 41) as f32 * 0.25 - 3.0).collect();
        let t = trace(&row, 5, Bisect::exact());
        let svg = t.to_svg().expect("an SVG");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("search_threshold (value axis") && svg.contains("select_topk"));
        assert!(!t.steps.is_empty());
        assert_eq!(fills(&svg, "#7A9CC6"), t.steps.len(), "one bracket per iteration");
        for st in &t.steps {
            assert!(
                svg.contains(&format!(">\nit {}\n</text>", st.iteration)),
                "it {}",
                st.iteration
            );
            assert!(svg.contains(&format!("cnt={}", st.cnt)));
        }
        // Every element has a cell (plus one legend square per colour); k of them are taken.
        let cells: usize =
            ["#1F5FA8", "#E08A1E", "#F6D7A7", "#E4E4E4"].iter().map(|c| fills(&svg, c) - 1).sum();
        assert_eq!(cells, 40);
        let taken = fills(&svg, "#1F5FA8") + fills(&svg, "#E08A1E") - 2;
        assert_eq!(taken, 5);
    }

    /// Rows with ±inf or NaN bounds have no finite value axis: their keys go on a rank axis,
    /// and the key phase's thresholds are shown as keys.
    #[test]
    fn rows_without_a_finite_range_are_drawn_on_a_rank_axis() {
        let row = [f32::INFINITY, 1.0, f32::NAN, -2.0, 0.5, f32::NEG_INFINITY, 3.0];
        let t = trace(&row, 3, Bisect::exact());
        let svg = t.to_svg().expect("an SVG");
        assert!(svg.contains("rank axis") && svg.contains("rank among the row&apos;s keys"));
        assert!(svg.contains("key") && svg.contains("t=0x"));
        let es = trace(&row, 3, Bisect::early_stopping(2)).to_svg().expect("an SVG");
        assert!(es.contains("MAX_ITER"));
    }
}
