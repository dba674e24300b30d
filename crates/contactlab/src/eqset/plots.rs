//! Figures of P5: the phase portrait with the equilibrium sets and the level set `V = c*`
//! (Fig. 3), and the basin found by time-stepping.

use super::{EqsetBasin, SetReport, Theorem1};
use crate::mechanics::sliders::SliderSystem;
use crate::plot::{Mark, XyPlot};
use crate::timestep::Trajectory;

/// Wraps `q` into `[lo, lo + P)`.
fn wrap(q: f64, lo: f64, period: Option<f64>) -> f64 {
    match period {
        Some(p) => lo + (q - lo).rem_euclid(p),
        None => q,
    }
}

/// A trajectory's `(q, q̇)` points wrapped into the window, broken where it wraps.
fn phase_points(t: &Trajectory, lo: f64, period: Option<f64>) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(t.q.len());
    let mut prev: Option<f64> = None;
    for (q, v) in t.q.iter().zip(&t.v) {
        let x = wrap(q[0], lo, period);
        if let (Some(p), Some(per)) = (prev, period) {
            if (x - p).abs() > 0.5 * per {
                out.push((f64::NAN, f64::NAN));
            }
        }
        out.push((x, v[0]));
        prev = Some(x);
    }
    out
}

/// The curve `V = c*` (`θ̇ = ±√(2(c* − U + U(q_e))/M)` over the level set's span), closed.
fn level_curve<S: SliderSystem<1, M>, const M: usize>(sys: &S, t1: &Theorem1) -> Vec<(f64, f64)> {
    let ue = sys.potential_energy(&nalgebra::Vector1::new(t1.q_e));
    let (a, b) = t1.level_set_span;
    let n = 400;
    let speed = |q: f64| {
        let qv = nalgebra::Vector1::new(q);
        let m = sys.inertia(&qv)[(0, 0)];
        (2.0 * (t1.c_star - sys.potential_energy(&qv) + ue).max(0.0) / m).sqrt()
    };
    let mut pts: Vec<(f64, f64)> = (0..=n).map(|k| a + (b - a) * k as f64 / n as f64).map(|q| (q, speed(q))).collect();
    pts.extend((0..=n).rev().map(|k| a + (b - a) * k as f64 / n as f64).map(|q| (q, -speed(q))));
    pts
}

/// The sets as segments on `q̇ = 0`, with their periodic images inside `[lo, hi]`.
fn set_segments(sets: &[SetReport], attractive: bool, lo: f64, hi: f64, period: Option<f64>) -> Vec<(f64, f64)> {
    let mut pts = Vec::new();
    let shifts: Vec<f64> = match period {
        Some(p) => vec![-p, 0.0, p],
        None => vec![0.0],
    };
    for s in sets.iter().filter(|s| (s.attractive == Some(true)) == attractive) {
        for sh in &shifts {
            let (a, b) = ((s.lo + sh).max(lo), (s.hi + sh).min(hi));
            if a <= b {
                pts.extend([(a, 0.0), (b, 0.0), (f64::NAN, f64::NAN)]);
            }
        }
    }
    pts
}

/// Fig. 3: time-stepping trajectories, the sets (thick; blue attractive, red otherwise) and the
/// level set `V = c*` (dashed).
#[allow(clippy::too_many_arguments)]
pub fn portrait<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    sets: &[SetReport],
    t1: Option<&Theorem1>,
    trajectories: &[Trajectory],
    window: (f64, f64),
    coordinate: (&str, &str),
    title: &str,
) -> XyPlot {
    let period = sys.period(0);
    let mut p = XyPlot::new(
        title,
        format!("{} ({})", coordinate.0, coordinate.1),
        format!("{}' ({}/s)", coordinate.0, coordinate.1),
    );
    p.size = (900, 700);
    for (k, t) in trajectories.iter().enumerate() {
        let label = if k == 0 { "time-stepping trajectories" } else { "" };
        p = p.add_colored(label, phase_points(t, window.0, period), Mark::Thin, 5);
    }
    if let Some(t1) = t1 {
        p = p.add_colored("V = c*", level_curve(sys, t1), Mark::Dashed, 2);
    }
    p = p.add_colored("attractive set", set_segments(sets, true, window.0, window.1, period), Mark::Thick, 0);
    p.add_colored("unstable / undecided set", set_segments(sets, false, window.0, window.1, period), Mark::Thick, 1)
}

/// The basin: each initial state coloured by the set it comes to rest in, with `V = c*`.
pub fn basin_map<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    basin: &EqsetBasin,
    t1: &Theorem1,
    coordinate: (&str, &str),
    title: &str,
) -> XyPlot {
    let mut p = XyPlot::new(
        title,
        format!("{} ({})", coordinate.0, coordinate.1),
        format!("{}' ({}/s)", coordinate.0, coordinate.1),
    );
    p.size = (900, 700);
    let n_sets = basin.share_per_set.len();
    for k in 0..=n_sets {
        let target = if k < n_sets { Some(k) } else { None };
        let pts: Vec<(f64, f64)> =
            basin.starts.iter().zip(&basin.ends_in).filter(|(_, e)| **e == target).map(|(s, _)| *s).collect();
        if pts.is_empty() {
            continue;
        }
        let label = match target {
            Some(k) => format!("comes to rest in set {}", k + 1),
            None => "still moving".to_string(),
        };
        p = p.add_colored(label, pts, Mark::Points, if k < n_sets { k } else { 5 });
    }
    p.add_colored("V = c*", level_curve(sys, t1), Mark::Dashed, 2)
}
