//! Plots (PNG or SVG by file extension) drawn with plotters and an embedded DejaVu Sans font, so
//! no system font packages are needed.
//!
//! [`XyPlot`] covers line and scatter plots with optional logarithmic axes; gaps in a series
//! (non-finite values, e.g. where a Poincaré map is undefined) break its line instead of being
//! drawn through.

pub mod animation;
pub mod render3d;

use std::path::Path;
use std::sync::Once;

use plotters::coord::ranged1d::ValueFormatter;
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

static SVG_TOO: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Also write an `.svg` beside every `.png` plot saved from now on (the CLI's `--svg`).
pub fn set_svg_too(on: bool) {
    SVG_TOO.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Writes a drawing as PNG or SVG according to the file extension (and the SVG beside a PNG
/// after [`set_svg_too`]).
fn save<P: Draw>(plot: &P, path: &Path, size: (u32, u32)) -> Result<(), Error> {
    save_one(plot, path, size)?;
    let png = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if png && SVG_TOO.load(std::sync::atomic::Ordering::Relaxed) {
        save_one(plot, &path.with_extension("svg"), size)?;
    }
    Ok(())
}

fn save_one<P: Draw>(plot: &P, path: &Path, size: (u32, u32)) -> Result<(), Error> {
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
        // Mantissa without trailing zeros: 1e5, 2.5e-4 (not 1.00e5).
        let s = format!("{v:.2e}");
        match s.split_once('e') {
            Some((m, e)) => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
            None => s,
        }
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
    /// Names for the y values of a categorical axis (`(value, name)`): only those ticks are
    /// labelled.
    pub y_categories: Option<Vec<(f64, String)>>,
}

/// Okabe and Ito's colour-blind-safe palette: blue, vermillion, bluish green, orange, reddish
/// purple, grey, sky blue, black. Index `k` is the same colour in every figure.
/// Label text as drawn: a subscript written `_x` (`f_n`, `WU_R`, `μ_min`) in Unicode subscript
/// letters where the embedded font has them all (`fₙ`, `WUᵣ`, `μₘᵢₙ`), else without the
/// underscore (`τ_c` → `τc`: there is no subscript c); the run is the letters and digits after the
/// underscore. A run of more than three characters is a name and keeps its underscore
/// (`rod_pitch`, `left_knee`).
pub fn pretty(label: &str) -> String {
    fn sub(c: char) -> Option<char> {
        let table = [
            ('0', '₀'),
            ('1', '₁'),
            ('2', '₂'),
            ('3', '₃'),
            ('4', '₄'),
            ('5', '₅'),
            ('6', '₆'),
            ('7', '₇'),
            ('8', '₈'),
            ('9', '₉'),
            ('a', 'ₐ'),
            ('e', 'ₑ'),
            ('h', 'ₕ'),
            ('i', 'ᵢ'),
            ('j', 'ⱼ'),
            ('k', 'ₖ'),
            ('l', 'ₗ'),
            ('m', 'ₘ'),
            ('n', 'ₙ'),
            ('o', 'ₒ'),
            ('p', 'ₚ'),
            ('r', 'ᵣ'),
            ('s', 'ₛ'),
            ('t', 'ₜ'),
            ('u', 'ᵤ'),
            ('v', 'ᵥ'),
            ('x', 'ₓ'),
        ];
        table.iter().find(|(a, _)| *a == c.to_ascii_lowercase()).map(|(_, b)| *b)
    }
    let mut out = String::with_capacity(label.len());
    let mut chars = label.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '_' {
            out.push(c);
            continue;
        }
        let mut run = String::new();
        while let Some(&d) = chars.peek() {
            if !d.is_ascii_alphanumeric() {
                break;
            }
            run.push(d);
            chars.next();
        }
        if run.chars().count() > 3 {
            // A word after the underscore is a name (`rod_pitch`, `left_knee`), kept whole.
            out.push('_');
            out.push_str(&run);
            continue;
        }
        match run.chars().map(sub).collect::<Option<String>>() {
            Some(s) if !run.is_empty() => out.push_str(&s),
            _ => out.push_str(&run),
        }
    }
    out
}

/// Colours of the paths over a category map: dark, so that they read on light and saturated
/// cells alike (black, blue, bluish green).
const PATH_COLOURS: [RGBColor; 3] = [RGBColor(0, 0, 0), RGBColor(0, 60, 160), RGBColor(0, 110, 80)];

const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(230, 159, 0),
    RGBColor(204, 121, 167),
    RGBColor(110, 110, 110),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// The palette colour `k` as RGB (for category maps that must match line plots).
pub fn palette(k: usize) -> (u8, u8, u8) {
    let c = PALETTE[k % PALETTE.len()];
    (c.0, c.1, c.2)
}

/// Where a plot's legend went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegendPlace {
    /// No legend (no labelled series with data).
    None,
    /// Inside the plotting area, in the corner that covers no data.
    UpperRight,
    /// Inside, upper left.
    UpperLeft,
    /// Inside, lower right.
    LowerRight,
    /// Inside, lower left.
    LowerLeft,
    /// To the right of the plotting area (every corner would cover data).
    Outside,
}

/// What a rendered plot's legend shows and where (see [`XyPlot::layout`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LegendLayout {
    /// The labels listed, in order.
    pub entries: Vec<String>,
    /// Where the legend box is.
    pub place: LegendPlace,
    /// Data points (and points along drawn lines, every few pixels) under the legend box.
    pub covered: usize,
}

impl Draw for XyPlot {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), Error>
    where
        DB::ErrorType: 'static,
    {
        self.draw_chart(root).map(|_| ())
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
            y_categories: None,
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
            // Out to the powers of ten around the data, so that a labelled tick lies at or beyond
            // each end of the data (data down to 0.03 get a 0.01 tick, not only 0.1).
            // (a little beyond them: a tick exactly on the edge is not labelled)
            let (lo, hi) = (0.9 * 10f64.powf(y0.log10().floor()), 1.1 * 10f64.powf(y1.log10().ceil()));
            Some(((x0 - px, x1 + px), ((y0 / 2.0).min(lo), (y1 * 2.0).max(hi))))
        } else {
            Some(((x0 - px, x1 + px), (y0 - py, y1 + py)))
        }
    }

    /// Writes the plot; the format follows the extension (`.png` or `.svg`).
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        save(self, path, self.size)
    }

    /// The labelled series that have data, one entry per label (the first series' style).
    fn legend_entries(&self) -> Vec<(String, Mark, RGBColor)> {
        let mut out: Vec<(String, Mark, RGBColor)> = Vec::new();
        for (k, s) in self.series.iter().enumerate() {
            if s.label.is_empty() || !s.points.iter().any(|p| self.usable(p)) || out.iter().any(|e| e.0 == s.label) {
                continue;
            }
            out.push((pretty(&s.label), s.mark, PALETTE[s.color.unwrap_or(k) % PALETTE.len()]));
        }
        out
    }

    /// Renders the plot in memory and reports its legend: what it lists, where it went and how
    /// many data points it covers (zero unless the plot is full everywhere; then it is outside).
    pub fn layout(&self) -> Result<LegendLayout, Error> {
        ensure_font();
        let mut buf = vec![0u8; (self.size.0 * self.size.1 * 3) as usize];
        let root = BitMapBackend::with_buffer(&mut buf, self.size).into_drawing_area();
        self.draw_chart(&root)
    }

    fn draw_chart<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<LegendLayout, Error>
    where
        DB::ErrorType: 'static,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| Error::Output(e.to_string());
        root.fill(&WHITE).map_err(err)?;
        let entries = self.legend_entries();
        let Some(bounds) = self.bounds() else {
            root.draw(&Text::new("no data", (20, 20), ("sans-serif", 20).into_font())).map_err(err)?;
            return Ok(LegendLayout { entries: vec![], place: LegendPlace::None, covered: 0 });
        };
        let font = TextStyle::from(("sans-serif", 15).into_font());
        let text_w = entries
            .iter()
            .map(|e| root.estimate_text_size(&e.0, &font).map_or(8 * e.0.chars().count() as u32, |s| s.0))
            .max()
            .unwrap_or(0) as i32;
        let box_size = (text_w + 46, 22 * entries.len() as i32 + 10);
        let (w, _) = root.dim_in_pixel();
        // First on the whole area: the corner with the fewest points under the legend.
        let (place, covered) = if entries.is_empty() {
            (LegendPlace::None, 0)
        } else {
            // (On a scratch bitmap of the same size: building a chart draws its caption.)
            let (w0, h0) = root.dim_in_pixel();
            let mut scratch = vec![0u8; (w0 * h0 * 3) as usize];
            let probe = BitMapBackend::with_buffer(&mut scratch, (w0, h0)).into_drawing_area();
            let counts = self.chart_on(&probe, bounds, Some(box_size), false)?.0;
            let best = counts.iter().enumerate().min_by_key(|c| c.1).map(|(k, c)| (k, *c)).unwrap_or((0, 0));
            if best.1 == 0 || box_size.0 + 40 > w as i32 / 3 {
                let corners =
                    [LegendPlace::UpperRight, LegendPlace::UpperLeft, LegendPlace::LowerRight, LegendPlace::LowerLeft];
                (corners[best.0], best.1)
            } else {
                (LegendPlace::Outside, 0)
            }
        };
        let (area, legend_at) = if place == LegendPlace::Outside {
            let (left, _) = root.split_horizontally(w as i32 - box_size.0 - 20);
            (left, None)
        } else {
            (root.clone(), Some(place))
        };
        let (plot_x, plot_y) = self.chart_on(&area, bounds, None, true)?.1;
        if !entries.is_empty() {
            let (x0, y0) = match legend_at {
                None => (w as i32 - box_size.0 - 10, 60),
                Some(p) => corner_origin(p, plot_x, plot_y, box_size),
            };
            draw_legend(root, &entries, (x0, y0), box_size).map_err(err)?;
        }
        Ok(LegendLayout { entries: entries.into_iter().map(|e| e.0).collect(), place, covered })
    }

    fn builder<'a, 'b, DB: DrawingBackend>(&'b self, area: &'a DrawingArea<DB, Shift>) -> ChartBuilder<'a, 'b, DB> {
        let mut builder = ChartBuilder::on(area);
        builder.caption(pretty(&self.title), ("sans-serif", 22)).margin(12).x_label_area_size(45).y_label_area_size(70);
        builder
    }

    /// Builds the chart on `area`; with `draw` it draws the mesh and the series. Returns, for a
    /// legend box of `box_size` in each corner (upper right, upper left, lower right, lower
    /// left), the number of data points under it.
    fn chart_on<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        bounds: ((f64, f64), (f64, f64)),
        box_size: Option<(i32, i32)>,
        draw: bool,
    ) -> Result<Probe, Error>
    where
        DB::ErrorType: 'static,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| Error::Output(e.to_string());
        let ((x0, x1), (y0, y1)) = bounds;
        if self.log_y {
            let mut chart = self.builder(area).build_cartesian_2d(x0..x1, (y0..y1).log_scale()).map_err(err)?;
            self.finish(&mut chart, (x1 - x0, y1 - y0), box_size, draw)
        } else {
            let mut chart = self.builder(area).build_cartesian_2d(x0..x1, y0..y1).map_err(err)?;
            self.finish(&mut chart, (x1 - x0, y1 - y0), box_size, draw)
        }
    }

    fn finish<'a, DB, X, Y>(
        &self,
        chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
        spans: (f64, f64),
        box_size: Option<(i32, i32)>,
        draw: bool,
    ) -> Result<Probe, Error>
    where
        DB: DrawingBackend + 'a,
        DB::ErrorType: 'static,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| Error::Output(e.to_string());
        if draw {
            let log_y = self.log_y;
            chart
                .configure_mesh()
                .x_desc(pretty(&self.x_label))
                .y_desc(pretty(&self.y_label))
                .x_label_formatter(&|v: &f64| tick_on(*v, spans.0))
                .y_label_formatter(&|v: &f64| match &self.y_categories {
                    Some(c) => {
                        c.iter().find(|(y, _)| (y - v).abs() <= 1e-9 * spans.1).map_or(String::new(), |c| pretty(&c.1))
                    }
                    None if log_y => tick(v),
                    None => tick_on(*v, spans.1),
                })
                .label_style(("sans-serif", 15))
                .draw()
                .map_err(err)?;
            self.draw_series(chart)?;
        }
        let mut counts = [0usize; 4];
        if let Some(bs) = box_size {
            let (xr, yr) = chart.plotting_area().get_pixel_range();
            let rects: Vec<(i32, i32, i32, i32)> =
                [LegendPlace::UpperRight, LegendPlace::UpperLeft, LegendPlace::LowerRight, LegendPlace::LowerLeft]
                    .iter()
                    .map(|&p| {
                        let (x, y) = corner_origin(p, (xr.start, xr.end), (yr.start, yr.end), bs);
                        (x - 4, y - 4, x + bs.0 + 4, y + bs.1 + 4)
                    })
                    .collect();
            for s in &self.series {
                let line = matches!(s.mark, Mark::Line | Mark::LinePoints | Mark::Dashed | Mark::Thick | Mark::Thin);
                let mut prev: Option<(i32, i32)> = None;
                for p in &s.points {
                    if !self.usable(p) {
                        prev = None;
                        continue;
                    }
                    let q = chart.backend_coord(p);
                    // Points along a drawn line every few pixels.
                    let mut pts = vec![q];
                    if let (true, Some(a)) = (line, prev) {
                        let n = ((q.0 - a.0).abs().max((q.1 - a.1).abs()) / 4).min(400);
                        for k in 1..n {
                            let t = k as f64 / n as f64;
                            pts.push((a.0 + ((q.0 - a.0) as f64 * t) as i32, a.1 + ((q.1 - a.1) as f64 * t) as i32));
                        }
                    }
                    for (c, r) in rects.iter().enumerate() {
                        counts[c] +=
                            pts.iter().filter(|v| v.0 >= r.0 && v.0 <= r.2 && v.1 >= r.1 && v.1 <= r.3).count();
                    }
                    prev = Some(q);
                }
            }
        }
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        Ok((counts, ((xr.start, xr.end), (yr.start, yr.end))))
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
            let style = ShapeStyle::from(&color).stroke_width(stroke(s.mark));
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
                    if s.mark == Mark::Dashed {
                        chart.draw_series(DashedLineSeries::new(run, 6, 4, style)).map_err(err)?;
                    } else {
                        chart.draw_series(LineSeries::new(run, style)).map_err(err)?;
                    }
                }
            }
            if s.mark == Mark::Squares {
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| self.usable(p)).collect();
                chart
                    .draw_series(pts.into_iter().map(|p| {
                        EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], ShapeStyle::from(&BLACK).filled())
                    }))
                    .map_err(err)?;
            }
            if matches!(s.mark, Mark::Points | Mark::LinePoints) {
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| self.usable(p)).collect();
                chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled()))).map_err(err)?;
            }
        }
        Ok(())
    }
}

/// Data points under a legend box in each corner, and the plotting area's pixel ranges.
type Probe = ([usize; 4], ((i32, i32), (i32, i32)));

/// Line width of a mark.
fn stroke(mark: Mark) -> u32 {
    match mark {
        Mark::Thick => 6,
        Mark::Thin => 1,
        _ => 2,
    }
}

/// The top-left pixel of a legend box of `size` in corner `p` of the plotting area.
fn corner_origin(p: LegendPlace, xr: (i32, i32), yr: (i32, i32), size: (i32, i32)) -> (i32, i32) {
    let pad = 10;
    let left = xr.0 + pad;
    let right = xr.1 - pad - size.0;
    let top = yr.0 + pad;
    let bottom = yr.1 - pad - size.1;
    match p {
        LegendPlace::UpperLeft => (left, top),
        LegendPlace::LowerRight => (right, bottom),
        LegendPlace::LowerLeft => (left, bottom),
        _ => (right, top),
    }
}

/// Draws a legend box at `origin` (pixels of `root`).
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[(String, Mark, RGBColor)],
    origin: (i32, i32),
    size: (i32, i32),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x0, y0) = origin;
    root.draw(&Rectangle::new([(x0, y0), (x0 + size.0, y0 + size.1)], WHITE.mix(0.9).filled()))?;
    root.draw(&Rectangle::new([(x0, y0), (x0 + size.0, y0 + size.1)], BLACK.stroke_width(1)))?;
    for (k, (label, mark, color)) in entries.iter().enumerate() {
        let y = y0 + 16 + 22 * k as i32;
        let (a, b) = (x0 + 8, x0 + 32);
        let style = ShapeStyle::from(color).stroke_width(stroke(*mark));
        match mark {
            Mark::Dashed => {
                root.draw(&PathElement::new(vec![(a, y), (a + 9, y)], style))?;
                root.draw(&PathElement::new(vec![(a + 14, y), (b, y)], style))?;
            }
            Mark::Points => root.draw(&Circle::new((a + 12, y), 4, color.filled()))?,
            Mark::Squares => root.draw(&Rectangle::new([(a + 8, y - 4), (a + 16, y + 4)], BLACK.filled()))?,
            Mark::LinePoints => {
                root.draw(&PathElement::new(vec![(a, y), (b, y)], style))?;
                root.draw(&Circle::new((a + 12, y), 3, color.filled()))?;
            }
            _ => root.draw(&PathElement::new(vec![(a, y), (b, y)], style))?,
        }
        root.draw(&Text::new(label.clone(), (x0 + 40, y - 8), ("sans-serif", 15).into_font()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_that_are_zero_up_to_round_off_print_as_zero() {
        assert_eq!(tick_on(-2.78e-17, 0.3), "0");
        assert_eq!(tick_on(0.05, 0.3), "0.05");
        // A genuinely small axis keeps its small ticks.
        assert_eq!(tick_on(2e-12, 1e-11), "2e-12");
    }

    #[test]
    fn the_legend_covers_no_data_and_lists_only_series_with_data() {
        // A rising line leaves the upper-left corner free.
        let line: Vec<(f64, f64)> = (0..100).map(|i| (i as f64, i as f64)).collect();
        let p = XyPlot::new("t", "x [m]", "y [m]")
            .add("rising", line.clone(), Mark::Line)
            .add("empty", vec![(f64::NAN, 1.0)], Mark::Points)
            .add("", vec![(3.0, 4.0)], Mark::Points);
        let l = p.layout().unwrap();
        assert_eq!(l.entries, vec!["rising".to_string()]);
        assert_eq!(l.covered, 0);
        assert!(matches!(l.place, LegendPlace::UpperLeft | LegendPlace::LowerRight), "{l:?}");
        // Data in every corner: the legend goes outside.
        let mut grid = Vec::new();
        for i in 0..40 {
            for j in 0..40 {
                grid.push((i as f64, j as f64));
            }
        }
        let q = XyPlot::new("t", "x [m]", "y [m]").add("grid", grid, Mark::Points);
        let l = q.layout().unwrap();
        assert_eq!((l.place, l.covered), (LegendPlace::Outside, 0));
        // Log axes get the same tick labels: no "10.0".
        assert_eq!(tick(&10000.0), "10000");
        assert_eq!(tick(&2.0), "2");
        assert_eq!(tick(&1e5), "1e5");
        assert_eq!(tick(&2.5e-4), "2.5e-4");
    }

    #[test]
    fn labels_print_subscripts_not_underscores() {
        assert_eq!(pretty("f_n (m l/τ_c²)"), "fₙ (m l/τc²)");
        assert_eq!(pretty("WU_R(μ)"), "WUᵣ(μ)");
        assert_eq!(pretty("μ_min [–]"), "μₘᵢₙ [–]");
        assert_eq!(pretty("plain"), "plain");
        assert_eq!(pretty("trailing_"), "trailing");
        assert_eq!(pretty("rod_pitch"), "rod_pitch");
        assert_eq!(pretty("left_knee"), "left_knee");
    }

    #[test]
    fn category_maps_list_only_the_categories_present() {
        let m = CategoryMap {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            xs: vec![0.0, 1.0],
            ys: vec![0.0],
            cells: vec![0, 2],
            legend: vec![("a".into(), (1, 2, 3)), ("b".into(), (4, 5, 6)), ("c".into(), (7, 8, 9))],
            ..Default::default()
        };
        let names: Vec<String> = m.present().into_iter().map(|l| l.0).collect();
        assert_eq!(names, vec!["a".to_string(), "c".to_string()]);
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
#[derive(Debug, Clone, Default)]
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
    /// Extra points drawn on top, each with its label in a box beside it (e.g. the paper's
    /// configurations); an empty label draws the point alone.
    pub marks: Vec<(String, f64, f64)>,
    /// Curves drawn on top (trajectories): a line from an open circle at the start to a filled
    /// square at the end, named in the legend (no label on the map, which could cover the data).
    pub paths: Vec<MapPath>,
}

/// A curve over a [`CategoryMap`].
#[derive(Debug, Clone, Default)]
pub struct MapPath {
    /// Legend entry.
    pub label: String,
    /// The points in order.
    pub points: Vec<(f64, f64)>,
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
        save(self, path, (1100, 700))
    }

    /// The categories that occur in the cells, with their colours, in legend order.
    pub fn present(&self) -> Vec<(String, (u8, u8, u8))> {
        self.legend.iter().enumerate().filter(|(k, _)| self.cells.contains(k)).map(|(_, l)| l.clone()).collect()
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
        // The legend goes to the right of the map (every cell is data): only the categories that
        // occur.
        let present: Vec<(String, (u8, u8, u8))> =
            self.present().into_iter().map(|(name, c)| (pretty(&name), c)).collect();
        let font = TextStyle::from(("sans-serif", 15).into_font());
        let path_names: Vec<String> =
            self.paths.iter().map(|p| format!("{} (○ start, ■ end)", pretty(&p.label))).collect();
        let text_w = present
            .iter()
            .map(|e| &e.0)
            .chain(path_names.iter())
            .map(|t| root.estimate_text_size(t, &font).map_or(8 * t.chars().count() as u32, |s| s.0))
            .max()
            .unwrap_or(0) as i32;
        let box_size = (text_w + 46, 22 * (present.len() + path_names.len()) as i32 + 10);
        let (w, _) = root.dim_in_pixel();
        let (area, _) = root.split_horizontally(w as i32 - box_size.0 - 20);
        let half = |v: &[f64], k: usize| -> (f64, f64) {
            let d = if v.len() > 1 { (v[v.len() - 1] - v[0]) / (v.len() - 1) as f64 } else { 1.0 };
            (v[k] - 0.5 * d, v[k] + 0.5 * d)
        };
        let (x0, _) = half(&self.xs, 0);
        let (_, x1) = half(&self.xs, nx - 1);
        let (y0, _) = half(&self.ys, 0);
        let (_, y1) = half(&self.ys, ny - 1);
        let mut chart = ChartBuilder::on(&area)
            .caption(pretty(&self.title), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(pretty(&self.x_label))
            .y_desc(pretty(&self.y_label))
            .x_label_formatter(&|v: &f64| tick_on(*v, x1 - x0))
            .y_label_formatter(&|v: &f64| tick_on(*v, y1 - y0))
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
        // Paths: a line, an open circle at the start, a filled square at the end.
        for (k, p) in self.paths.iter().enumerate() {
            let colour = PATH_COLOURS[k % PATH_COLOURS.len()];
            chart.draw_series(LineSeries::new(p.points.iter().copied(), colour.stroke_width(2))).map_err(err)?;
            if let (Some(&a), Some(&b)) = (p.points.first(), p.points.last()) {
                let (ax, ay) = chart.backend_coord(&a);
                root.draw(&Circle::new((ax, ay), 6, WHITE.filled())).map_err(err)?;
                root.draw(&Circle::new((ax, ay), 6, colour.stroke_width(2))).map_err(err)?;
                let (bx, by) = chart.backend_coord(&b);
                root.draw(&Rectangle::new([(bx - 5, by - 5), (bx + 5, by + 5)], colour.filled())).map_err(err)?;
            }
        }
        // Marks: a black-rimmed white dot and, if labelled, the label on a white box beside it.
        let label_font = TextStyle::from(("sans-serif", 17).into_font());
        for (label, x, y) in &self.marks {
            let label = &pretty(label);
            let (px, py) = chart.backend_coord(&(*x, *y));
            root.draw(&Circle::new((px, py), 6, WHITE.filled())).map_err(err)?;
            root.draw(&Circle::new((px, py), 6, BLACK.stroke_width(2))).map_err(err)?;
            if label.is_empty() {
                continue;
            }
            let (tw, th) = root.estimate_text_size(label, &label_font).unwrap_or((12, 16));
            let (bx, by) = (px + 9, py - th as i32 - 6);
            root.draw(&Rectangle::new([(bx - 2, by - 2), (bx + tw as i32 + 3, by + th as i32 + 3)], WHITE.filled()))
                .map_err(err)?;
            root.draw(&Rectangle::new(
                [(bx - 2, by - 2), (bx + tw as i32 + 3, by + th as i32 + 3)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
            root.draw(&Text::new(label.clone(), (bx, by), label_font.clone())).map_err(err)?;
        }
        let (x_leg, y_leg) = (w as i32 - box_size.0 - 10, 60);
        root.draw(&Rectangle::new([(x_leg, y_leg), (x_leg + box_size.0, y_leg + box_size.1)], BLACK.stroke_width(1)))
            .map_err(err)?;
        for (k, (name, (r, g, b))) in present.iter().enumerate() {
            let y = y_leg + 16 + 22 * k as i32;
            root.draw(&Rectangle::new([(x_leg + 8, y - 6), (x_leg + 30, y + 6)], RGBColor(*r, *g, *b).filled()))
                .map_err(err)?;
            root.draw(&Rectangle::new([(x_leg + 8, y - 6), (x_leg + 30, y + 6)], BLACK.stroke_width(1)))
                .map_err(err)?;
            root.draw(&Text::new(name.clone(), (x_leg + 40, y - 8), font.clone())).map_err(err)?;
        }
        for (k, name) in path_names.iter().enumerate() {
            let y = y_leg + 16 + 22 * (present.len() + k) as i32;
            let colour = PATH_COLOURS[k % PATH_COLOURS.len()];
            root.draw(&PathElement::new(vec![(x_leg + 8, y), (x_leg + 30, y)], colour.stroke_width(2))).map_err(err)?;
            root.draw(&Text::new(name.clone(), (x_leg + 40, y - 8), font.clone())).map_err(err)?;
        }
        Ok(())
    }
}
