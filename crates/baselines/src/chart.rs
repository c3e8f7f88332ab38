//! An SVG chart of a comparison: a grid of panels, one line per algorithm, one legend.
//!
//! `rtopk bench cpu --compare --svg FILE` draws its measurements with this; it lives here so
//! that the plotting dependency stays with the crate whose algorithms it compares.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::BaselineError;

/// One algorithm's points in a panel: `(x index, y)`, y > 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Index into the chart's colour palette (the same algorithm keeps its colour everywhere).
    pub color: usize,
    /// Points, x being an index into [`Panel::x_labels`].
    pub points: Vec<(usize, f64)>,
}

/// One panel: a categorical x axis and a logarithmic y axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Caption above the panel.
    pub title: String,
    /// The x categories (shapes).
    pub x_labels: Vec<String>,
    /// The y axis description.
    pub y_desc: String,
    /// The lines.
    pub series: Vec<Series>,
}

/// Size of the whole drawing.
const SIZE: (u32, u32) = (1900, 1500);
/// Width of the legend strip on the right.
const LEGEND_WIDTH: u32 = 230;

/// Draws `panels` in a grid of `columns` under `title`, with a legend of `legend` (label,
/// colour) on the right, into the SVG file `path`.
pub fn render_svg(
    path: &Path,
    title: &str,
    panels: &[Panel],
    columns: usize,
    legend: &[(String, usize)],
) -> Result<(), BaselineError> {
    let fail = |e: &dyn std::fmt::Display| BaselineError::Chart {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let (head, body) = root.split_vertically(50);
    head.draw(&Text::new(title.to_string(), (20, 15), ("sans-serif", 22).into_font()))
        .map_err(|e| fail(&e))?;
    let (grid, strip) = body.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let rows = panels.len().div_ceil(columns.max(1));
    for (panel, area) in panels.iter().zip(grid.split_evenly((rows, columns.max(1))).iter()) {
        draw_panel(area, panel).map_err(|e| fail(&e))?;
    }
    draw_legend(&strip, legend).map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}

type DrawResult =
    Result<(), DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>>;

/// Sixteen well-separated colours (Tableau's palette and its darker companions).
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

/// A tick label with about three significant digits and no trailing zeros.
fn tick(y: &f64) -> String {
    match *y {
        y if y >= 10.0 => format!("{y:.0}"),
        y if y >= 1.0 => format!("{y:.1}"),
        y => format!("{y:.2}"),
    }
}

fn draw_panel(area: &DrawingArea<SVGBackend<'_>, Shift>, panel: &Panel) -> DrawResult {
    let ys = panel.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).filter(|y| *y > 0.0);
    let (lo, hi) = ys.fold((f64::MAX, f64::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let (lo, hi) = if lo <= hi { (lo / 1.5, hi * 1.5) } else { (0.1, 10.0) };
    let n = panel.x_labels.len().max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 15))
        .margin(8)
        .x_label_area_size(55)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), (lo..hi).log_scale())?;
    let labels = panel.x_labels.clone();
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&move |x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_label_style(("sans-serif", 10))
        .y_desc(&panel.y_desc)
        .y_labels(8)
        .y_label_formatter(&tick)
        .max_light_lines(1)
        .draw()?;
    for s in &panel.series {
        let c = color(s.color);
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x as f64, y)).collect();
        chart.draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?;
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
    }
    Ok(())
}

fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    legend: &[(String, usize)],
) -> DrawResult {
    for (i, (label, c)) in legend.iter().enumerate() {
        let y = 60 + 24 * i as i32;
        let c = color(*c);
        area.draw(&PathElement::new(vec![(10, y), (40, y)], c.stroke_width(3)))?;
        area.draw(&Circle::new((25, y), 4, c.filled()))?;
        area.draw(&Text::new(label.clone(), (48, y - 7), ("sans-serif", 14).into_font()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_an_svg_with_every_label() {
        let dir = std::env::temp_dir().join(format!("baselines-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.svg");
        let panel = Panel {
            title: "uniform, row-wise".into(),
            x_labels: vec!["M=256 k=16".into(), "M=768 k=16".into()],
            y_desc: "M elem/s".into(),
            series: vec![Series {
                label: "air".into(),
                color: 0,
                points: vec![(0, 10.0), (1, 20.0)],
            }],
        };
        let legend = vec![("air".to_string(), 0), ("heap".to_string(), 1)];
        render_svg(&path, "a comparison", &[panel.clone(), panel], 2, &legend).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("a comparison") && svg.contains("heap"));
        assert!(svg.contains("M=768 k=16"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
