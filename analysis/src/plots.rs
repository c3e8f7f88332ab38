//! SVG figures with plotters: small multiples of line charts, measured as lines and the
//! paper's numbers as markers (or dashed lines), one colour per series.

use plotters::prelude::*;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A solid line (measured data).
    Line,
    /// A dashed line (a model or a variant).
    Dashed,
    /// Circles only (the paper's published points).
    Points,
    /// A solid line with circles.
    LinePoints,
}

/// One named series of points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// `(x, y)` points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Index into the palette (series that belong together share a colour).
    pub color: usize,
    /// How it is drawn.
    pub mark: Mark,
}

/// One chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Caption.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The series.
    pub series: Vec<Series>,
    /// Where the legend goes.
    pub legend: Legend,
}

/// Legend corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legend {
    /// Upper left.
    UpperLeft,
    /// Upper right.
    UpperRight,
    /// Lower left.
    LowerLeft,
    /// Lower right.
    LowerRight,
}

impl Legend {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
            Legend::UpperRight => SeriesLabelPosition::UpperRight,
            Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
        }
    }
}

/// Colour-blind-friendly palette (Okabe–Ito).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(120, 120, 120),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Renders `panels` in a grid of `cols` columns into an SVG document of `size` pixels.
pub fn render(panels: &[Panel], cols: usize, size: (u32, u32)) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let cols = cols.max(1);
        let rows = panels.len().div_ceil(cols).max(1);
        let areas = root.split_evenly((rows, cols));
        for (panel, area) in panels.iter().zip(areas.iter()) {
            draw_panel(panel, area)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The data range of a panel, padded by 3% so that points do not sit on the frame.
fn bounds(panel: &Panel) -> ((f64, f64), (f64, f64)) {
    let pts = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return ((0.0, 1.0), (0.0, 1.0));
    }
    let pad = |a: f64, b: f64| {
        let d = if b > a { (b - a) * 0.03 } else { 0.5 };
        (a - d, b + d)
    };
    (pad(x0, x1), pad(y0, y1))
}

/// plotters errors carry the backend's lifetime; the text is all a caller needs.
fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Axis ticks: whole numbers without a decimal point, others with two decimals.
fn tick(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 { format!("{v:.0}") } else { format!("{v:.2}") }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw_panel(panel: &Panel, area: &Area<'_>) -> Result<(), String> {
    let ((x0, x1), (y0, y1)) = bounds(panel);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(text)?;
    chart
        .configure_mesh()
        .x_desc(panel.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .light_line_style(WHITE.mix(0.0))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()
        .map_err(text)?;
    for s in &panel.series {
        let c = color(s.color);
        let pts: Vec<(f64, f64)> =
            s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        match s.mark {
            Mark::Line | Mark::LinePoints => {
                chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2))).map_err(text)?;
            }
            Mark::Dashed => {
                chart
                    .draw_series(DashedLineSeries::new(pts.clone(), 6, 4, c.stroke_width(2)))
                    .map_err(text)?;
            }
            Mark::Points => {}
        }
        let with_points = matches!(s.mark, Mark::Points | Mark::LinePoints);
        let circles = pts.iter().filter(|_| with_points).map(|&p| Circle::new(p, 3, c.filled()));
        let anno = chart.draw_series(circles).map_err(text)?.label(s.label.as_str());
        // The legend shows what the series looks like: a dot for published points, a line else.
        if s.mark == Mark::Points {
            anno.legend(move |(x, y)| Circle::new((x + 8, y), 3, c.filled()));
        } else {
            anno.legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
            });
        }
    }
    chart
        .configure_series_labels()
        .position(panel.legend.position())
        .label_font(("sans-serif", 11))
        .border_style(BLACK.mix(0.4))
        .background_style(WHITE.mix(0.85))
        .draw()
        .map_err(text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_an_svg_document() {
        let panel = Panel {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![
                Series {
                    label: "a".into(),
                    points: vec![(0.0, 1.0), (1.0, 2.0)],
                    color: 0,
                    mark: Mark::Line,
                },
                Series {
                    label: "b".into(),
                    points: vec![(0.5, 1.5)],
                    color: 1,
                    mark: Mark::Points,
                },
            ],
            legend: Legend::LowerRight,
        };
        let svg = render(&[panel.clone(), panel], 2, (600, 300)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"));
    }
}
