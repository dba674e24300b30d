//! Time plots of a two-contact motion (P1, Fig. 4): the ZOD trajectory, optionally the full
//! nonlinear model beside it, impacts and Zeno points marked.

use super::nonlinear::NonlinearRun;
use super::sim::{BodyEventKind, BodyTrajectory};
use crate::plot::{Mark, XyPlot};

/// Which displacements to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Displacement {
    /// `z₁(t)`, `z₂(t)`, with impacts and Zeno points on the axis.
    Normal,
    /// `x₁(t)`, `x₂(t)`.
    Tangential,
}

/// The time plot of `tr` (sampled `per_phase` times per phase, the final phase over `tail`
/// seconds) and of `nl` up to the same end time.
pub fn displacement_plot(
    title: &str,
    tr: &BodyTrajectory,
    nl: Option<&NonlinearRun>,
    which: Displacement,
    tail: f64,
) -> XyPlot {
    let smp = tr.sample(24, tail);
    let t_end = smp.last().map_or(0.0, |s| s[0]);
    let (cols, names, what) = match which {
        Displacement::Normal => ([1, 2], ["z₁", "z₂"], "z"),
        Displacement::Tangential => ([3, 4], ["x₁", "x₂"], "x"),
    };
    // Lengths in a unit that keeps the tick labels short.
    let mut largest = 0.0f64;
    for s in &smp {
        largest = largest.max(s[cols[0]].abs()).max(s[cols[1]].abs());
    }
    for s in nl.iter().flat_map(|n| n.samples.iter()) {
        largest = largest.max(s[cols[0]].abs()).max(s[cols[1]].abs());
    }
    let (scale, unit) = if largest < 1e-3 {
        (1e6, "µm")
    } else if largest < 1.0 {
        (1e3, "mm")
    } else {
        (1.0, "m")
    };
    let mut plot = XyPlot::new(title, "t [s]", format!("{what} [{unit}]"));
    // The nonlinear model as thick solid lines, the zero-order dynamics dashed on top.
    if let Some(nl) = nl {
        for (k, (c, n)) in cols.iter().zip(names).enumerate() {
            let pts = nl.samples.iter().filter(|s| s[0] <= t_end).map(|s| (s[0], scale * s[*c])).collect();
            plot = plot.add_colored(format!("{n}, nonlinear model"), pts, Mark::Thick, k);
        }
    }
    for (k, (c, n)) in cols.iter().zip(names).enumerate() {
        let pts = smp.iter().map(|s| (s[0], scale * s[*c])).collect();
        let (label, colour) = if nl.is_some() { ("zero-order dynamics".to_string(), 7) } else { (n.to_string(), k) };
        plot = plot.add_colored(label, pts, Mark::Dashed, colour);
    }
    if which == Displacement::Normal {
        for i in 0..2 {
            let pts = tr
                .events
                .iter()
                .filter(|e| e.kind == BodyEventKind::Impact && e.point == Some(i))
                .map(|e| (e.t, 0.0))
                .collect();
            plot = plot.add_colored(format!("impacts at point {}", i + 1), pts, Mark::Points, i);
        }
        plot = plot.add("Zeno point", tr.zeno_times().iter().map(|&t| (t, 0.0)).collect(), Mark::Squares);
    }
    plot
}

/// P1's maps as two plots, `R.png` (with the identity) and `G.png` (with `G = 1`), the fixed
/// points marked, into `dir`; `title` prefixes each plot's title.
pub fn maps_plots(m: &super::poincare::P1Maps, title: &str, dir: &std::path::Path) -> Result<(), crate::Error> {
    use std::f64::consts::FRAC_PI_2;
    let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
    let (pts, fps) = (&m.maps, &m.fixed_points);
    XyPlot::new(format!("{title}: R(φ)"), "φ [rad]", "R(φ) [rad]")
        .add("R(φ)", pts.iter().map(|q| (q.phi, nan(q.r))).collect(), Mark::Line)
        .add("identity", vec![(-FRAC_PI_2, -FRAC_PI_2), (FRAC_PI_2, FRAC_PI_2)], Mark::Line)
        .add("fixed points", fps.iter().map(|f| (f.phi, f.phi)).collect(), Mark::Points)
        .save(&dir.join("R.png"))?;
    XyPlot::new(format!("{title}: G(φ)"), "φ [rad]", "G(φ) [–]")
        .add("G(φ)", pts.iter().map(|q| (q.phi, nan(q.g))).collect(), Mark::Line)
        .add("G = 1", vec![(-FRAC_PI_2, 1.0), (FRAC_PI_2, 1.0)], Mark::Line)
        .add("fixed points", fps.iter().map(|f| (f.phi, f.g)).collect(), Mark::Points)
        .save(&dir.join("G.png"))
}
