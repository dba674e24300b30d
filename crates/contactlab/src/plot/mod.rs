//! Plots (PNG or SVG by file extension) drawn with plotters and an embedded DejaVu Sans font, so
//! no system font packages are needed.
//!
//! [`XyPlot`] covers line and scatter plots with optional logarithmic axes; gaps in a series
//! (non-finite values, e.g. where a Poincaré map is undefined) break its line instead of being
//! drawn through.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::Error;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn ensure_font() {
    REGISTER.call_once(|| {
        // The font is embedded at compile time; registering it cannot fail for a valid file.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Something that draws itself on any plotters backend.
trait Draw {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), Error>
    where
        DB::ErrorType: 'static;
}

/// Writes a drawing as PNG or SVG according to the file extension.
fn save<P: Draw>(plot: &P, path: &Path, size: (u32, u32)) -> Result<(), Error> {
    ensure_font();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let present = |r: Result<(), String>| r.map_err(|e| Error::Output(format!("{}: {e}", path.display())));
    match ext.as_str() {
        "png" => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            plot.draw(&root)?;
            present(root.present().map_err(|e| e.to_string()))
        }
        "svg" => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            plot.draw(&root)?;
            present(root.present().map_err(|e| e.to_string()))
        }
        _ => Err(Error::Output(format!("{}: plots are written as .png or .svg", path.display()))),
    }
}

/// Compact tick labels: fixed notation for moderate magnitudes, scientific for very small or
/// large ones (plotters' default prints sub-millimetre ticks as `0.0`).
fn tick(v: &f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.2e}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// [`tick`] on an axis spanning `span`: a tick that is zero up to round-off of the axis (such as
/// `−2.78e-17` from summing steps of `0.05`) prints as `0`.
fn tick_on(v: f64, span: f64) -> String {
    if v.abs() <= 1e-9 * span {
        "0".into()
    } else {
        tick(&v)
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Connected line (broken at non-finite points).
    Line,
    /// Dots.
    Points,
    /// Line with dots.
    LinePoints,
    /// Dashed line (broken at non-finite points).
    Dashed,
    /// Filled squares.
    Squares,
    /// Thick line (segments such as equilibrium sets).
    Thick,
    /// Thin line (many trajectories).
    Thin,
}

/// One data series.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// `(x, y)` points; non-finite entries are gaps.
    pub points: Vec<(f64, f64)>,
    /// Drawing style.
    pub mark: Mark,
    /// Palette index of the colour (`None`: the series' position).
    pub color: Option<usize>,
}

/// A 2-D line/scatter plot.
#[derive(Debug, Clone)]
pub struct XyPlot {
    /// Title above the plot.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// Series in drawing order.
    pub series: Vec<Series>,
    /// Logarithmic y axis (non-positive values become gaps).
    pub log_y: bool,
    /// Pixel size.
    pub size: (u32, u32),
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(90, 90, 90),
];

impl Draw for XyPlot {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), Error>
    where
        DB::ErrorType: 'static,
    {
        self.draw_chart(root)
    }
}

impl XyPlot {
    /// An empty plot of the default size.
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Self {
        XyPlot {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: vec![],
            log_y: false,
            size: (900, 600),
        }
    }

    /// Adds a series.
    pub fn add(mut self, label: impl Into<String>, points: Vec<(f64, f64)>, mark: Mark) -> Self {
        self.series.push(Series { label: label.into(), points, mark, color: None });
        self
    }

    /// Adds a series drawn in palette colour `color` (several series can share a colour, e.g. the
    /// solid and dashed parts of one curve).
    pub fn add_colored(mut self, label: impl Into<String>, points: Vec<(f64, f64)>, mark: Mark, color: usize) -> Self {
        self.series.push(Series { label: label.into(), points, mark, color: Some(color) });
        self
    }

    fn usable(&self, p: &(f64, f64)) -> bool {
        p.0.is_finite() && p.1.is_finite() && (!self.log_y || p.1 > 0.0)
    }

    fn bounds(&self) -> Option<((f64, f64), (f64, f64))> {
        let pts: Vec<&(f64, f64)> =
            self.series.iter().flat_map(|s| s.points.iter()).filter(|p| self.usable(p)).collect();
        if pts.is_empty() {
            return None;
        }
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in pts {
            x0 = x0.min(p.0);
            x1 = x1.max(p.0);
            y0 = y0.min(p.1);
            y1 = y1.max(p.1);
        }
        let pad = |a: f64, b: f64| if b > a { (b - a) * 0.04 } else { a.abs().max(1.0) * 0.5 };
        let (px, py) = (pad(x0, x1), pad(y0, y1));
        if self.log_y {
            Some(((x0 - px, x1 + px), (y0 / 2.0, y1 * 2.0)))
        } else {
            Some(((x0 - px, x1 + px), (y0 - py, y1 + py)))
        }
    }

    /// Writes the plot; the format follows the extension (`.png` or `.svg`).
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        save(self, path, self.size)
    }

    fn draw_chart<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), Error>
    where
        DB::ErrorType: 'static,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| Error::Output(e.to_string());
        root.fill(&WHITE).map_err(err)?;
        let Some(((x0, x1), (y0, y1))) = self.bounds() else {
            root.draw(&Text::new("no data", (20, 20), ("sans-serif", 20).into_font())).map_err(err)?;
            return Ok(());
        };
        let mut builder = ChartBuilder::on(root);
        builder.caption(&self.title, ("sans-serif", 22)).margin(12).x_label_area_size(45).y_label_area_size(70);
        if self.log_y {
            let mut chart = builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale()).map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .label_style(("sans-serif", 15))
                .draw()
                .map_err(err)?;
            self.draw_series(&mut chart)?;
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 15))
                .draw()
                .map_err(err)?;
        } else {
            let mut chart = builder.build_cartesian_2d(x0..x1, y0..y1).map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .x_label_formatter(&|v: &f64| tick_on(*v, x1 - x0))
                .y_label_formatter(&|v: &f64| tick_on(*v, y1 - y0))
                .label_style(("sans-serif", 15))
                .draw()
                .map_err(err)?;
            self.draw_series(&mut chart)?;
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 15))
                .draw()
                .map_err(err)?;
        }
        Ok(())
    }

    fn draw_series<'a, DB, X, Y>(&self, chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>) -> Result<(), Error>
    where
        DB: DrawingBackend + 'a,
        DB::ErrorType: 'static,
        X: Ranged<ValueType = f64>,
        Y: Ranged<ValueType = f64>,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| Error::Output(e.to_string());
        for (k, s) in self.series.iter().enumerate() {
            let color = PALETTE[s.color.unwrap_or(k) % PALETTE.len()];
            let width = match s.mark {
                Mark::Thick => 6,
                Mark::Thin => 1,
                _ => 2,
            };
            let style = ShapeStyle::from(&color).stroke_width(width);
            let mut labelled = false;
            if matches!(s.mark, Mark::Line | Mark::LinePoints | Mark::Dashed | Mark::Thick | Mark::Thin) {
                // Split into runs of usable points.
                let mut runs: Vec<Vec<(f64, f64)>> = vec![vec![]];
                for p in &s.points {
                    if self.usable(p) {
                        runs.last_mut().expect("nonempty").push(*p);
                    } else if !runs.last().expect("nonempty").is_empty() {
                        runs.push(vec![]);
                    }
                }
                for run in runs.into_iter().filter(|r| !r.is_empty()) {
                    let a = if s.mark == Mark::Dashed {
                        chart.draw_series(DashedLineSeries::new(run, 6, 4, style)).map_err(err)?
                    } else {
                        chart.draw_series(LineSeries::new(run, style)).map_err(err)?
                    };
                    if !labelled && !s.label.is_empty() {
                        if s.mark == Mark::Dashed {
                            a.label(s.label.clone()).legend(move |(x, y)| {
                                EmptyElement::at((x, y))
                                    + PathElement::new(vec![(0, 0), (6, 0)], style)
                                    + PathElement::new(vec![(11, 0), (17, 0)], style)
                            });
                        } else {
                            a.label(s.label.clone())
                                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
                        }
                        labelled = true;
                    }
                }
            }
            if s.mark == Mark::Squares {
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| self.usable(p)).collect();
                let a = chart
                    .draw_series(pts.into_iter().map(|p| {
                        EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], ShapeStyle::from(&BLACK).filled())
                    }))
                    .map_err(err)?;
                if !s.label.is_empty() {
                    a.label(s.label.clone())
                        .legend(move |(x, y)| Rectangle::new([(x + 5, y - 4), (x + 13, y + 4)], BLACK.filled()));
                }
            }
            if matches!(s.mark, Mark::Points | Mark::LinePoints) {
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| self.usable(p)).collect();
                let a = chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled()))).map_err(err)?;
                if !labelled && !s.label.is_empty() {
                    a.label(s.label.clone()).legend(move |(x, y)| Circle::new((x + 9, y), 3, color.filled()));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_that_are_zero_up_to_round_off_print_as_zero() {
        assert_eq!(tick_on(-2.78e-17, 0.3), "0");
        assert_eq!(tick_on(0.05, 0.3), "0.05");
        // A genuinely small axis keeps its small ticks.
        assert_eq!(tick_on(2e-12, 1e-11), "2.00e-12");
    }

    #[test]
    fn writes_png_and_svg_with_gaps() {
        let dir = std::env::temp_dir().join(format!("contactlab-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pts: Vec<(f64, f64)> =
            (0..50).map(|i| (i as f64, if i == 20 { f64::NAN } else { (i as f64 * 0.2).sin() + 2.0 })).collect();
        let p = XyPlot::new("test", "x", "y").add("sin", pts, Mark::LinePoints);
        p.save(&dir.join("a.png")).unwrap();
        let mut q = p.clone();
        q.log_y = true;
        q.save(&dir.join("b.svg")).unwrap();
        assert!(std::fs::metadata(dir.join("a.png")).unwrap().len() > 1000);
        assert!(std::fs::read_to_string(dir.join("b.svg")).unwrap().contains("<svg"));
        assert!(p.save(&dir.join("c.gif")).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A categorical colour map on a rectangular grid (e.g. a stability atlas).
#[derive(Debug, Clone)]
pub struct CategoryMap {
    /// Title.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// Cell centres along x (increasing).
    pub xs: Vec<f64>,
    /// Cell centres along y (increasing).
    pub ys: Vec<f64>,
    /// Category of cell `(ix, iy)` at index `iy * xs.len() + ix`.
    pub cells: Vec<usize>,
    /// Name and colour of each category.
    pub legend: Vec<(String, (u8, u8, u8))>,
    /// Extra points drawn on top, with labels (e.g. the paper's configurations).
    pub marks: Vec<(String, f64, f64)>,
}

impl Draw for CategoryMap {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), Error>
    where
        DB::ErrorType: 'static,
    {
        self.draw_map(root)
    }
}

impl CategoryMap {
    /// Writes the map as PNG or SVG.
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        save(self, path, (900, 700))
    }

    fn draw_map<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), Error>
    where
        DB::ErrorType: 'static,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| Error::Output(e.to_string());
        root.fill(&WHITE).map_err(err)?;
        let (nx, ny) = (self.xs.len(), self.ys.len());
        if nx == 0 || ny == 0 || self.cells.len() != nx * ny {
            return Err(Error::Output("category map: grid and cells do not match".into()));
        }
        let half = |v: &[f64], k: usize| -> (f64, f64) {
            let d = if v.len() > 1 { (v[v.len() - 1] - v[0]) / (v.len() - 1) as f64 } else { 1.0 };
            (v[k] - 0.5 * d, v[k] + 0.5 * d)
        };
        let (x0, _) = half(&self.xs, 0);
        let (_, x1) = half(&self.xs, nx - 1);
        let (y0, _) = half(&self.ys, 0);
        let (_, y1) = half(&self.ys, ny - 1);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(err)?;
        let rects = (0..ny).flat_map(|iy| (0..nx).map(move |ix| (ix, iy))).map(|(ix, iy)| {
            let (xa, xb) = half(&self.xs, ix);
            let (ya, yb) = half(&self.ys, iy);
            let (r, g, b) = self.legend.get(self.cells[iy * nx + ix]).map_or((255, 255, 255), |l| l.1);
            Rectangle::new([(xa, ya), (xb, yb)], RGBColor(r, g, b).filled())
        });
        chart.draw_series(rects).map_err(err)?;
        for (name, (r, g, b)) in &self.legend {
            let c = RGBColor(*r, *g, *b);
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(err)?
                .label(name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
        }
        for (label, x, y) in &self.marks {
            chart.draw_series(std::iter::once(Circle::new((*x, *y), 5, BLACK.filled()))).map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(label.clone(), (*x, *y), ("sans-serif", 16).into_font())))
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(err)?;
        Ok(())
    }
}
