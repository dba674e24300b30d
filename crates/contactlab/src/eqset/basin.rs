//! The region of attraction found by time-stepping ([`crate::timestep::bilateral`]) a grid of
//! initial states, each classified by the set it comes to rest in, against the estimate
//! `{V < c*}` of Theorem 1.

use rayon::prelude::*;
use serde::Serialize;

use super::{v1, SetInterval, SetReport, Theorem1};
use crate::mechanics::sliders::SliderSystem;
use crate::timestep::bilateral;
use crate::Error;

/// A state within `SET_DISTANCE_TOL` of the coordinate scale of an equilibrium set is on it.
pub const SET_DISTANCE_TOL: f64 = 1e-9;

/// Settings of a basin computation.
#[derive(Debug, Clone, Copy)]
pub struct EqsetBasinSettings {
    /// Initial states per axis.
    pub grid: usize,
    /// Coordinate range of the initial states.
    pub q_range: (f64, f64),
    /// Velocity range of the initial states.
    pub v_range: (f64, f64),
    /// Time step.
    pub h: f64,
    /// Largest number of steps per run.
    pub max_steps: usize,
}

/// The basin of attraction found by time-stepping against Theorem 1's estimate.
#[derive(Debug, Clone, Serialize)]
pub struct EqsetBasin {
    /// Initial states `(q, q̇)`.
    pub starts: Vec<(f64, f64)>,
    /// Index of the set each run came to rest in (`None`: still moving at `max_steps`).
    pub ends_in: Vec<Option<usize>>,
    /// Whether each initial state lies in `{V < c*}` of the target set.
    pub in_estimate: Vec<bool>,
    /// Share of the grid that comes to rest in each set.
    pub share_per_set: Vec<f64>,
    /// Share of the grid still moving at the end.
    pub share_moving: f64,
    /// Share of the grid inside the estimate `{V < c*}`.
    pub share_in_estimate: f64,
    /// Share of the states in the estimate that come to rest in the target set.
    pub estimate_converges: f64,
    /// States in the estimate that come to rest in another set: Theorem 1 says none.
    pub estimate_elsewhere: usize,
    /// The estimate's share of the basin found: states in the estimate / states converging.
    pub estimate_of_basin: f64,
}

/// Time-steps a grid of initial states and classifies where each comes to rest, against the
/// estimate `{V < c*}` of Theorem 1 for set `target` (`t1` its analysis).
pub fn basin<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    sets: &[SetReport],
    target: usize,
    t1: &Theorem1,
    b: &EqsetBasinSettings,
) -> Result<EqsetBasin, Error> {
    let period = sys.period(0);
    let n = b.grid.max(2);
    let starts: Vec<(f64, f64)> = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            let q = b.q_range.0 + (b.q_range.1 - b.q_range.0) * (i as f64 + 0.5) / n as f64;
            let v = b.v_range.0 + (b.v_range.1 - b.v_range.0) * (j as f64 + 0.5) / n as f64;
            (q, v)
        })
        .collect();
    let ue = sys.potential_energy(&v1(t1.q_e));
    let in_estimate: Vec<bool> = starts
        .iter()
        .map(|&(q, v)| {
            let q = match period {
                Some(p) => q - p * ((q - t1.q_e) / p).round(),
                None => q,
            };
            q > t1.level_set_span.0 && q < t1.level_set_span.1 && sys.energy(&v1(q), &v1(v)) - ue < t1.c_star
        })
        .collect();
    let tol = SET_DISTANCE_TOL * sys.coordinate_scale();
    let ends_in: Vec<Option<usize>> = starts
        .par_iter()
        .map(|&(q, v)| -> Result<Option<usize>, Error> {
            let end = bilateral::settle(sys, &v1(q), &v1(v), b.h, b.max_steps)?;
            if !end.at_rest {
                return Ok(None);
            }
            let ivs: Vec<SetInterval> = sets.iter().map(|s| SetInterval { lo: s.lo, hi: s.hi, whole: false }).collect();
            Ok(ivs.iter().position(|s| s.contains(end.q[0], period, tol)))
        })
        .collect::<Result<_, _>>()?;
    let total = starts.len() as f64;
    let share_per_set =
        (0..sets.len()).map(|k| ends_in.iter().filter(|e| **e == Some(k)).count() as f64 / total).collect();
    let share_moving = ends_in.iter().filter(|e| e.is_none()).count() as f64 / total;
    let inside = in_estimate.iter().filter(|&&x| x).count();
    let inside_conv = in_estimate.iter().zip(&ends_in).filter(|(i, e)| **i && **e == Some(target)).count();
    let conv = ends_in.iter().filter(|e| **e == Some(target)).count();
    let elsewhere = in_estimate.iter().zip(&ends_in).filter(|(i, e)| **i && e.is_some_and(|k| k != target)).count();
    Ok(EqsetBasin {
        estimate_elsewhere: elsewhere,
        share_in_estimate: inside as f64 / total,
        estimate_converges: if inside > 0 { inside_conv as f64 / inside as f64 } else { f64::NAN },
        estimate_of_basin: if conv > 0 { inside as f64 / conv as f64 } else { f64::NAN },
        starts,
        ends_in,
        in_estimate,
        share_per_set,
        share_moving,
    })
}
