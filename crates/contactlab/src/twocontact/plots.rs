//! Time plots of a two-contact motion (P1, Fig. 4): the ZOD trajectory, optionally the full
//! nonlinear model beside it, impacts and Zeno points marked.

use super::nonlinear::NonlinearRun;
use super::sim::{EventKind, Trajectory};
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
    tr: &Trajectory,
    nl: Option<&NonlinearRun>,
    which: Displacement,
    tail: f64,
) -> XyPlot {
    let smp = tr.sample(24, tail);
    let t_end = smp.last().map_or(0.0, |s| s[0]);
    let (cols, names, unit) = match which {
        Displacement::Normal => ([1, 2], ["z1", "z2"], "z [m]"),
        Displacement::Tangential => ([3, 4], ["x1", "x2"], "x [m]"),
    };
    let mut plot = XyPlot::new(title, "t [s]", unit);
    for (c, n) in cols.iter().zip(names) {
        plot = plot.add(format!("{n} (ZOD)"), smp.iter().map(|s| (s[0], s[*c])).collect(), Mark::Line);
    }
    if let Some(nl) = nl {
        for (c, n) in cols.iter().zip(names) {
            let pts = nl.samples.iter().filter(|s| s[0] <= t_end).map(|s| (s[0], s[*c])).collect();
            plot = plot.add(format!("{n} (nonlinear)"), pts, Mark::Line);
        }
    }
    if which == Displacement::Normal {
        for i in 0..2 {
            let pts = tr
                .events
                .iter()
                .filter(|e| e.kind == EventKind::Impact && e.point == Some(i))
                .map(|e| (e.t, 0.0))
                .collect();
            plot = plot.add(format!("impacts at p{}", i + 1), pts, Mark::Points);
        }
        plot = plot.add("Zeno point", tr.zeno_times().iter().map(|&t| (t, 0.0)).collect(), Mark::Points);
    }
    plot
}
