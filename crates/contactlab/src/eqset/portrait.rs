//! The data of P5 Fig. 3: a window of the phase plane, time-stepping trajectories across it and
//! the basin behind it (drawn by [`super::plots::portrait`] and [`super::plots::basin_map`]).

use rayon::prelude::*;

use super::basin::{basin, EqsetBasin, EqsetBasinSettings};
use super::{v1, Analysis, EqsetSettings};
use crate::mechanics::sliders::SliderSystem;
use crate::timestep::{bilateral, Trajectory};
use crate::Error;

/// Settings of [`portrait`].
#[derive(Debug, Clone, Copy)]
pub struct PortraitSettings {
    /// Initial states per axis of the basin grid (`grid²` runs).
    pub grid: usize,
    /// Trajectories drawn in the portrait.
    pub trajectories: usize,
    /// Time step (s).
    pub h: f64,
    /// Steps per run.
    pub steps: usize,
}

impl PortraitSettings {
    /// A 20 × 20 basin grid, 24 drawn trajectories, `10⁴` steps of `1/400` of the time scale.
    pub fn for_system<S: SliderSystem<1, M>, const M: usize>(sys: &S) -> Self {
        Self { grid: 20, trajectories: 24, h: sys.time_scale() / 400.0, steps: 10_000 }
    }
}

/// A phase portrait (P5 Fig. 3) and the basin behind it.
#[derive(Debug, Clone)]
pub struct Portrait {
    /// Coordinate range shown.
    pub window_q: (f64, f64),
    /// Velocity range shown.
    pub window_v: (f64, f64),
    /// The drawn trajectories.
    pub trajectories: Vec<Trajectory>,
    /// The set Theorem 1 was applied to, and the basin against its estimate.
    pub basin: Option<(usize, EqsetBasin)>,
}

/// The window, trajectories and basin of a portrait: the coordinate over one period (or the
/// sets with margins), the velocity up to 1.25 times the largest speed on `V = c*`; trajectories
/// from rest across the window and from its velocity edges.
pub fn portrait<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    analysis: &Analysis,
    settings: &EqsetSettings,
    ps: &PortraitSettings,
) -> Result<Portrait, Error> {
    let period = sys.period(0);
    let window_q = match period {
        Some(p) => (settings.q_min, settings.q_min + p),
        None => {
            let reach = analysis.sets.iter().map(|s| s.lo.abs().max(s.hi.abs())).fold(0.0, f64::max);
            let half = if reach > 0.0 { 4.0 * reach } else { sys.coordinate_scale() };
            (-half, half)
        }
    };
    let target = analysis.sets.iter().position(|s| s.theorem1.is_some());
    let vmax = match target.and_then(|k| analysis.sets[k].theorem1.as_ref()) {
        Some(t1) if t1.c_star.is_finite() => {
            let m = sys.inertia(&v1(t1.q_e))[(0, 0)];
            1.25 * (2.0 * t1.c_star / m).sqrt()
        }
        _ => 0.5 * (window_q.1 - window_q.0) / sys.time_scale(),
    };
    let window_v = (-vmax, vmax);
    let n = ps.trajectories.max(2);
    let every = (ps.steps / 2000).max(1);
    let pairs = (n / 2).max(1);
    let starts: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let j = k / 2;
            let q = window_q.0 + (window_q.1 - window_q.0) * (j as f64 + 0.5) / pairs as f64;
            match (k % 2, j % 2) {
                (0, _) => (q, 0.0),
                (_, 0) => (q, vmax),
                _ => (q, -vmax),
            }
        })
        .collect();
    let trajectories: Vec<Trajectory> = starts
        .par_iter()
        .map(|&(q, v)| bilateral::run(sys, &v1(q), &v1(v), ps.h, ps.steps, every))
        .collect::<Result<_, _>>()?;
    let basin = match target {
        Some(k) => {
            let t1 = analysis.sets[k].theorem1.as_ref().expect("target has Theorem 1");
            let b = EqsetBasinSettings {
                grid: ps.grid,
                q_range: window_q,
                v_range: window_v,
                h: ps.h,
                max_steps: ps.steps,
            };
            Some((k, basin(sys, &analysis.sets, k, t1, &b)?))
        }
        None => None,
    };
    Ok(Portrait { window_q, window_v, trajectories, basin })
}
