//! Animated GIFs of planar scenes: each frame a few filled polygons (bodies), dots (centres of
//! mass) and fixed lines (supports), drawn to equal scale in a fixed view.

use std::path::Path;

use plotters::prelude::*;

use crate::Error;

/// One frame.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// Caption (the time).
    pub title: String,
    /// Bodies: closed polygons (two points: a segment), world coordinates (m).
    pub polygons: Vec<Vec<(f64, f64)>>,
    /// Dots (centres of mass).
    pub dots: Vec<(f64, f64)>,
    /// Highlighted dots (closed contacts).
    pub marks: Vec<(f64, f64)>,
}

/// A line `{p : n·(p − point) = 0}` drawn across the view.
#[derive(Debug, Clone, Copy)]
pub struct Support {
    /// A point of the line.
    pub point: (f64, f64),
    /// Its unit normal.
    pub normal: (f64, f64),
}

/// Writes `scenes` as an animated GIF at `path`, `delay_ms` per frame, `size` pixels, the view
/// the bounding box of every scene (padded, equal scale on both axes).
pub fn save_gif(
    scenes: &[Scene],
    supports: &[Support],
    path: &Path,
    size: (u32, u32),
    delay_ms: u32,
) -> Result<(), Error> {
    super::ensure_font();
    let fail = |e: String| Error::Output(format!("{}: {e}", path.display()));
    if scenes.is_empty() {
        return Err(fail("no frames to animate".into()));
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for s in scenes {
        for &(x, y) in s.polygons.iter().flatten().chain(&s.dots) {
            if x.is_finite() && y.is_finite() {
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        }
    }
    if !(x0.is_finite() && y0.is_finite()) {
        return Err(fail("nothing finite to draw".into()));
    }
    // Pad, then widen the shorter side to the picture's aspect ratio (equal scale).
    let span = (x1 - x0).max(y1 - y0).max(1e-300);
    let pad = 0.1 * span;
    let (mut x0, mut x1, mut y0, mut y1) = (x0 - pad, x1 + pad, y0 - pad, y1 + pad);
    let aspect = f64::from(size.0) / f64::from(size.1 - 40);
    let (w, h) = (x1 - x0, y1 - y0);
    if w / h < aspect {
        let extra = (h * aspect - w) / 2.0;
        (x0, x1) = (x0 - extra, x1 + extra);
    } else {
        let extra = (w / aspect - h) / 2.0;
        (y0, y1) = (y0 - extra, y1 + extra);
    }
    let root = BitMapBackend::gif(path, size, delay_ms).map_err(|e| fail(e.to_string()))?.into_drawing_area();
    let body = RGBColor(0, 114, 178);
    for s in scenes {
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&s.title, ("sans-serif", 18))
            .margin(8)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| fail(e.to_string()))?;
        let err = |e: DrawingAreaErrorKind<_>| fail(e.to_string());
        for l in supports {
            // The line's two ends at the view's border: along the tangent (n_y, −n_x).
            let (t, big) = ((l.normal.1, -l.normal.0), 4.0 * (x1 - x0 + y1 - y0));
            let a = (l.point.0 - big * t.0, l.point.1 - big * t.1);
            let b = (l.point.0 + big * t.0, l.point.1 + big * t.1);
            chart.draw_series(std::iter::once(PathElement::new(vec![a, b], BLACK.stroke_width(2)))).map_err(err)?;
        }
        for p in s.polygons.iter().filter(|p| p.len() >= 2) {
            // Only polygons of some width are filled (plotters' fill of a sliver draws spikes).
            let perimeter: f64 = (0..p.len()).map(|i| dist(p[i], p[(i + 1) % p.len()])).sum();
            let area = 0.5
                * (0..p.len())
                    .map(|i| {
                        let (a, b) = (p[i], p[(i + 1) % p.len()]);
                        a.0 * b.1 - b.0 * a.1
                    })
                    .sum::<f64>()
                    .abs();
            if p.len() >= 3 && area > 0.02 * perimeter * perimeter {
                chart.draw_series(std::iter::once(Polygon::new(p.clone(), body.mix(0.25).filled()))).map_err(err)?;
            }
            // Each edge its own path: a thick polyline's miter joins spike at sharp corners.
            let n = p.len();
            let edges = if n >= 3 { n } else { 1 };
            chart
                .draw_series((0..edges).map(|i| PathElement::new(vec![p[i], p[(i + 1) % n]], body.stroke_width(3))))
                .map_err(err)?;
        }
        chart.draw_series(s.dots.iter().map(|&c| Circle::new(c, 4, BLACK.filled()))).map_err(err)?;
        chart.draw_series(s.marks.iter().map(|&c| Circle::new(c, 5, RGBColor(213, 94, 0).filled()))).map_err(err)?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    Ok(())
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}
