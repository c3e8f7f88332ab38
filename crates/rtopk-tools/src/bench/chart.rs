//! Grouped-bar SVG charts of the benchmark reports: one panel per input family and regime, one
//! group of bars per shape, one bar (one colour, the same everywhere) per algorithm.
//!
//! Shapes are unrelated categories, so they are groups side by side, never points joined by a
//! line. A gap marked × is a cell that did not run (k beyond a partial sort's limit) or gave a
//! wrong answer.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::bench::compare::{CompareReport, CompareRow, Regime};
use crate::bench::cpu::BenchRow;
use crate::error::Error;
use rtopk::dtype::Dtype;

/// One algorithm's bars in a panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    /// Legend label.
    pub label: String,
    /// Index into the palette (the same algorithm keeps its colour in every panel).
    pub color: usize,
    /// One value per group; `None` where the cell has no value (drawn as ×).
    pub values: Vec<Option<f64>>,
}

/// One panel: groups of bars on a logarithmic y axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Caption above the panel.
    pub title: String,
    /// The groups (shapes), left to right.
    pub groups: Vec<String>,
    /// The y axis description.
    pub y_desc: String,
    /// The bars of each group, in this order.
    pub bars: Vec<Bars>,
}

/// A whole chart: a title, panels in a grid, and a legend.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The title line.
    pub title: String,
    /// A second line under the title (how to read the chart).
    pub note: String,
    /// The panels, row by row.
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub columns: usize,
    /// (label, colour) of every algorithm.
    pub legend: Vec<(String, usize)>,
}

/// Height of the title block.
const HEAD: u32 = 70;
/// Height of one panel.
const PANEL_HEIGHT: u32 = 420;
/// Width of the legend strip on the right.
const LEGEND_WIDTH: u32 = 230;
/// Pixels per bar a panel is sized for.
const BAR_PIXELS: u32 = 8;
/// Panel widths are kept between these.
const PANEL_WIDTH: (u32, u32) = (560, 1400);
/// The share of a group's width its bars fill (the rest separates groups).
const GROUP_FILL: f64 = 0.84;

/// Sixteen well-separated colours (Tableau's palette and its lighter companions).
const COLORS: [(u8, u8, u8); 16] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (0, 0, 0),
    (174, 199, 232),
    (152, 223, 138),
    (255, 152, 150),
    (197, 176, 213),
    (219, 219, 141),
];

fn color(i: usize) -> RGBColor {
    let (r, g, b) = COLORS[i % COLORS.len()];
    RGBColor(r, g, b)
}

type DrawResult<T = ()> =
    Result<T, DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>>;

impl Chart {
    /// The drawing's size: panels wide enough for [`BAR_PIXELS`] per bar.
    fn size(&self) -> (u32, u32) {
        let bars = self.panels.iter().map(|p| p.groups.len() * p.bars.len()).max().unwrap_or(1);
        let wanted = 140 + BAR_PIXELS.saturating_mul(u32::try_from(bars).unwrap_or(u32::MAX));
        let panel_w = wanted.clamp(PANEL_WIDTH.0, PANEL_WIDTH.1);
        let columns = self.columns.max(1);
        let rows = self.panels.len().div_ceil(columns).max(1);
        let width = panel_w * columns as u32 + LEGEND_WIDTH;
        (width, HEAD + PANEL_HEIGHT * rows as u32)
    }

    /// The chart as SVG text.
    pub fn to_svg(&self) -> Result<String, Error> {
        self.render().map_err(|reason| Error::Chart { path: "(in memory)".into(), reason })
    }

    /// Draws the chart into the SVG file `path` (written in place: a symlink is followed, and a
    /// special file such as `/dev/stdout` is written, never replaced).
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let svg =
            self.render().map_err(|reason| Error::Chart { path: path.to_path_buf(), reason })?;
        std::fs::write(path, svg).map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }

    fn render(&self) -> Result<String, String> {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, self.size()).into_drawing_area();
            self.draw(&root).map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    fn draw(&self, root: &DrawingArea<SVGBackend<'_>, Shift>) -> DrawResult {
        root.fill(&WHITE)?;
        let (head, body) = root.split_vertically(HEAD);
        head.draw(&Text::new(self.title.clone(), (20, 12), ("sans-serif", 22).into_font()))?;
        head.draw(&Text::new(self.note.clone(), (20, 44), ("sans-serif", 15).into_font()))?;
        let (grid, strip) = body.split_horizontally(self.size().0 - LEGEND_WIDTH);
        let columns = self.columns.max(1);
        let rows = self.panels.len().div_ceil(columns).max(1);
        for (panel, area) in self.panels.iter().zip(grid.split_evenly((rows, columns))) {
            draw_panel(&area, panel)?;
        }
        draw_legend(&strip, &self.legend)
    }
}

/// The y range of a log axis holding every value, with some room above and below.
fn y_range(panel: &Panel) -> (f64, f64) {
    let ys = panel.bars.iter().flat_map(|b| b.values.iter().flatten()).filter(|y| **y > 0.0);
    let (lo, hi) = ys.fold((f64::MAX, f64::MIN), |(lo, hi), &y| (lo.min(y), hi.max(y)));
    if lo <= hi { (lo / 2.0, hi * 1.5) } else { (0.1, 10.0) }
}

/// A tick label with about three significant digits.
fn tick(y: &f64) -> String {
    match *y {
        y if y >= 10.0 => format!("{y:.0}"),
        y if y >= 1.0 => format!("{y:.1}"),
        y => format!("{y:.2}"),
    }
}

fn draw_panel(area: &DrawingArea<SVGBackend<'_>, Shift>, panel: &Panel) -> DrawResult {
    let (lo, hi) = y_range(panel);
    let groups = panel.groups.len().max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(groups as f64 - 0.5), (lo..hi).log_scale())?;
    let labels = panel.groups.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(groups)
        .x_label_formatter(&move |x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_label_style(("sans-serif", 12))
        .y_desc(&panel.y_desc)
        .y_labels(8)
        .y_label_formatter(&tick)
        .max_light_lines(1)
        .draw()?;
    // Thin separators between groups.
    let separators = (1..groups).map(|g| {
        let x = g as f64 - 0.5;
        PathElement::new(vec![(x, lo), (x, hi)], RGBColor(200, 200, 200).stroke_width(1))
    });
    chart.draw_series(separators)?;
    let slots = panel.bars.len().max(1) as f64;
    let width = GROUP_FILL / slots;
    for (j, bars) in panel.bars.iter().enumerate() {
        let c = color(bars.color);
        for (g, value) in bars.values.iter().enumerate() {
            let x0 = g as f64 - GROUP_FILL / 2.0 + j as f64 * width;
            match value {
                Some(v) if *v > 0.0 => {
                    let bar = Rectangle::new([(x0, lo), (x0 + width * 0.9, *v)], c.filled());
                    chart.draw_series(std::iter::once(bar))?;
                }
                _ => {
                    let at = (x0 + width * 0.45, lo * (hi / lo).powf(0.02));
                    let mark = Text::new("×", at, ("sans-serif", 11).into_font().color(&c));
                    chart.draw_series(std::iter::once(mark))?;
                }
            }
        }
    }
    Ok(())
}

fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    legend: &[(String, usize)],
) -> DrawResult {
    for (i, (label, c)) in legend.iter().enumerate() {
        let y = 40 + 24 * i as i32;
        area.draw(&Rectangle::new([(10, y - 7), (34, y + 7)], color(*c).filled()))?;
        area.draw(&Text::new(label.clone(), (42, y - 7), ("sans-serif", 14).into_font()))?;
    }
    Ok(())
}

/// Labels in order of first appearance.
fn ordered<'a>(labels: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in labels {
        if !out.iter().any(|o| o == l) {
            out.push(l.to_string());
        }
    }
    out
}

/// Panels of `value` per series over `groups`, for rows that share a panel.
fn bars<R>(
    rows: &[&R],
    series: &[String],
    groups: &[String],
    key: impl Fn(&R) -> (String, String),
    value: impl Fn(&R) -> Option<f64>,
) -> Vec<Bars> {
    series
        .iter()
        .enumerate()
        .map(|(color, label)| Bars {
            label: label.clone(),
            color,
            values: groups
                .iter()
                .map(|g| {
                    rows.iter()
                        .find(|r| key(r) == (label.clone(), g.clone()))
                        .and_then(|r| value(r))
                })
                .collect(),
        })
        .collect()
}

/// The shape of a comparison cell, as a group label.
fn compare_group(r: &CompareRow) -> String {
    if r.regime == Regime::SingleVector.name() && r.m.is_power_of_two() {
        format!("M=2^{} k={}", r.m.ilog2(), r.k)
    } else {
        format!("M={} k={}", r.m, r.k)
    }
}

/// The comparison's chart: per family and regime, throughput and elements read per element.
pub fn compare_chart(report: &CompareReport) -> Chart {
    let series = ordered(report.rows.iter().map(|r| r.label.as_str()));
    let families = ordered(report.rows.iter().map(|r| r.family.as_str()));
    let mut panels = Vec::new();
    for family in &families {
        for regime in Regime::ALL {
            let rows: Vec<&CompareRow> = report
                .rows
                .iter()
                .filter(|r| &r.family == family && r.regime == regime.name())
                .collect();
            if rows.is_empty() {
                continue;
            }
            let groups = ordered_groups(&rows);
            let key = |r: &CompareRow| (r.label.clone(), compare_group(r));
            let title = |what: &str| format!("{family} · {} · {what}", regime.name());
            panels.push(Panel {
                title: title("throughput"),
                groups: groups.clone(),
                y_desc: "M elements/s (log)".into(),
                bars: bars(&rows, &series, &groups, key, |r| r.melem_per_s),
            });
            panels.push(Panel {
                title: title("elements read per element"),
                groups: groups.clone(),
                y_desc: "reads / element (log)".into(),
                bars: bars(&rows, &series, &groups, key, |r| {
                    r.reads_per_elem.filter(|_| r.verified)
                }),
            });
        }
    }
    Chart {
        title: format!(
            "rtopk bench cpu --compare — {} ({} threads), {} UTC",
            report.machine.cpu, report.threads, report.date_utc
        ),
        note: "One group per shape (row width M, k), one bar per algorithm; × = not run \
               (partial sorts stop at k = 2048) or a wrong answer."
            .into(),
        legend: series.iter().cloned().zip(0..).collect(),
        panels,
        columns: 2,
    }
}

fn ordered_groups(rows: &[&CompareRow]) -> Vec<String> {
    let groups: Vec<String> = rows.iter().map(|r| compare_group(r)).collect();
    ordered(groups.iter().map(String::as_str))
}

/// The CPU benchmark's chart: per input and element type, throughput and elements read per
/// element.
pub fn cpu_chart(rows: &[BenchRow]) -> Chart {
    let labels: Vec<String> = rows.iter().map(BenchRow::label).collect();
    let series = ordered(labels.iter().map(String::as_str));
    // float32 panels keep the input's name alone, as before 16-bit inputs existed.
    let input_of = |r: &BenchRow| match r.dtype {
        Dtype::Float32 => r.input.clone(),
        dtype => format!("{}, {dtype}", r.input),
    };
    let names: Vec<String> = rows.iter().map(input_of).collect();
    let inputs = ordered(names.iter().map(String::as_str));
    let group = |r: &BenchRow| format!("{}×{} k={}", r.n, r.m, r.k);
    let mut panels = Vec::new();
    for input in &inputs {
        let in_panel: Vec<&BenchRow> = rows.iter().filter(|r| &input_of(r) == input).collect();
        let names: Vec<String> = in_panel.iter().map(|r| group(r)).collect();
        let groups = ordered(names.iter().map(String::as_str));
        let key = |r: &BenchRow| (r.label(), group(r));
        panels.push(Panel {
            title: format!("{input} · throughput"),
            groups: groups.clone(),
            y_desc: "M elements/s (log)".into(),
            bars: bars(&in_panel, &series, &groups, key, |r| r.melem_per_s),
        });
        panels.push(Panel {
            title: format!("{input} · elements read per element"),
            groups: groups.clone(),
            y_desc: "reads / element (log)".into(),
            bars: bars(&in_panel, &series, &groups, key, |r| r.reads_per_elem),
        });
    }
    let threads = rows.first().map_or(0, |r| r.threads);
    Chart {
        title: format!("rtopk bench cpu — {threads} rayon threads"),
        note: "One group per shape (N×M, k), one bar per algorithm; × = no value (a wrong \
               answer, or an algorithm that counts no work)."
            .into(),
        legend: series.iter().cloned().zip(0..).collect(),
        panels,
        columns: 2,
    }
}

/// The chart of a recorded report: a `--compare --json` object or a `bench cpu --json` array.
pub fn from_json(text: &str) -> Result<Chart, Error> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| Error::BadReport(format!("not JSON: {e}")))?;
    if value.is_array() {
        let rows: Vec<BenchRow> = serde_json::from_value(value)
            .map_err(|e| Error::BadReport(format!("not a `bench cpu --json` report: {e}")))?;
        return Ok(cpu_chart(&rows));
    }
    let report: CompareReport = serde_json::from_value(value)
        .map_err(|e| Error::BadReport(format!("not a `bench cpu --compare --json` report: {e}")))?;
    Ok(compare_chart(&report))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(family: &str, regime: Regime, m: usize, k: usize, label: &str, v: f64) -> CompareRow {
        CompareRow {
            regime: regime.name().into(),
            family: family.into(),
            n: 1,
            m,
            k,
            algo: label.into(),
            label: label.into(),
            origin: "topk-ref".into(),
            exact: true,
            median_ms: Some(1.0),
            min_ms: Some(1.0),
            melem_per_s: Some(v),
            reps: 3,
            threads: 2,
            verified: true,
            reads_per_elem: Some(1.5),
            writes_per_elem: Some(0.1),
            passes_per_row: Some(1.0),
            merges_per_row: Some(0.0),
            skipped: None,
            error: None,
        }
    }

    #[test]
    fn compare_chart_groups_bars_by_shape() {
        let mut rows = vec![
            row("uniform", Regime::RowWise, 256, 16, "heap", 500.0),
            row("uniform", Regime::RowWise, 256, 16, "air", 700.0),
            row("uniform", Regime::RowWise, 768, 16, "heap", 400.0),
            row("uniform", Regime::SingleVector, 1 << 20, 32, "heap", 90.0),
        ];
        let mut skipped = row("uniform", Regime::RowWise, 768, 16, "air", 0.0);
        skipped.melem_per_s = None;
        skipped.skipped = Some("k too large".into());
        rows.push(skipped);
        let report = CompareReport {
            command: "c".into(),
            date_utc: "2026-01-01T00:00:00Z".into(),
            machine: crate::bench::machine::Machine::this(),
            threads: 2,
            seed: 1,
            quick: true,
            load_before: None,
            load_after: None,
            wall_s: 1.0,
            rows,
        };
        let chart = compare_chart(&report);
        let text = serde_json::to_string(&report).unwrap();
        assert_eq!(from_json(&text).unwrap(), chart);
        assert_eq!(chart.panels.len(), 4, "throughput and reads, two regimes");
        let p = &chart.panels[0];
        assert_eq!(p.groups, ["M=256 k=16", "M=768 k=16"]);
        assert_eq!(p.bars[0].values, [Some(500.0), Some(400.0)]);
        assert_eq!(p.bars[1].values, [Some(700.0), None]);
        assert_eq!(chart.panels[2].groups, ["M=2^20 k=32"]);
        assert_eq!(chart.legend, [("heap".to_string(), 0), ("air".to_string(), 1)]);
        let svg = chart.to_svg().unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("M=768 k=16") && svg.contains("air"));
        assert!(svg.contains("single-vector") && svg.contains('×'));
        assert!(svg.matches("<rect").count() >= 4 + 2);
    }

    #[test]
    fn cpu_rows_chart_and_bad_reports() {
        let rows = r#"[{"algo":"heap","n":10,"m":40,"k":2,"exact":true,"max_iter":null,
            "median_ms":0.1,"min_ms":0.1,"melem_per_s":4.0,"gelem_per_s":0.004,"threads":2,
            "reps":5,"seed":42,"verified":true,"recall":1.0,"reads_per_elem":1.0,
            "writes_per_elem":0.05,"passes_per_row":1.0,"merges_per_row":0.0}]"#;
        let chart = from_json(rows).unwrap();
        assert_eq!(chart.panels[0].title, "normal · throughput", "old reports were normal");
        let mut half = serde_json::from_str::<Vec<BenchRow>>(rows).unwrap();
        half.push(BenchRow { dtype: Dtype::Bfloat16, ..half[0].clone() });
        let titles: Vec<String> = cpu_chart(&half).panels.into_iter().map(|p| p.title).collect();
        assert_eq!(titles[2], "normal, bfloat16 · throughput", "{titles:?}");
        assert_eq!(titles.len(), 4, "{titles:?}");
        assert_eq!(chart.panels[0].groups, ["10×40 k=2"]);
        assert!(chart.to_svg().unwrap().contains("heap"));
        for bad in ["", "{}", "[1]", "nope"] {
            let e = from_json(bad).unwrap_err();
            assert!(matches!(e, Error::BadReport(_)) && e.is_user_error(), "{bad}: {e}");
        }
    }

    #[test]
    fn writes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.svg");
        let chart = Chart {
            title: "t".into(),
            note: "n".into(),
            panels: vec![],
            columns: 2,
            legend: vec![],
        };
        chart.write(&path).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().starts_with("<svg"));
        let e = chart.write(&dir.path().join("missing/c.svg")).unwrap_err();
        assert!(matches!(e, Error::Io { .. }) && !e.is_user_error());
    }
}
