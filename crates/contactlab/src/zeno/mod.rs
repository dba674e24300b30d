//! Paper P3 (Or & Ames): completed Lagrangian hybrid systems and their Zeno periodic orbits, as
//! the paper states them. The analysis itself (simulation with Zeno completion, the return map
//! on the constraint surface, simple and Zeno periodic orbits, the family for continuation) is
//! general and lives in [`crate::zeno_orbit`], re-exported here; this layer adds P3's models
//! ([`model`]: the double pendulum with a knee stop, the bouncing ball), Theorem 1 ([`bound`],
//! conditions (10)–(15)), the figures ([`plots`]) and P3's continuation of the Zeno periodic orbit
//! as `e` grows until its constrained phase vanishes ([`continuation_in_e`]).

pub mod bound;
pub mod model;
pub mod plots;

use nalgebra::DVector;
use serde::Serialize;

use crate::hybrid::lagrangian::Lagrangian;
use crate::hybrid::section::NewtonStop;
use crate::mechanics::ContactSystem;
pub use crate::zeno_orbit::*;

/// One point of the branch of periodic orbits in `e`.
#[derive(Debug, Clone, Serialize)]
pub struct BranchPoint {
    /// Coefficient of restitution.
    pub e: f64,
    /// The orbit.
    pub orbit: Orbit,
}

/// The branch of Zeno periodic orbits as `e` grows ([`continuation_in_e`]).
#[derive(Debug, Clone, Serialize)]
pub struct Continuation {
    /// Converged orbits with a constrained phase, in increasing `e`.
    pub points: Vec<BranchPoint>,
    /// The largest `e` with a Zeno periodic orbit found (the last point of the branch).
    pub e_critical: Option<f64>,
    /// The smallest `e` tried beyond it where no such orbit was found (the bracket's other end).
    pub e_failed: Option<f64>,
    /// What happened at `e_failed`.
    pub reason: Option<NewtonStop>,
}

/// Follows the periodic orbit from `e_start` (with `guess`) upward, each Newton solve starting
/// from the previous orbit: steps of `e_step`, halved after every failure (and grown back after
/// successes), until no orbit with a constrained phase is found within `e_tol` of the last one,
/// or `e_max` is reached. `family(e)` is the system at restitution `e`; `progress(e)` is called
/// after each point.
#[allow(clippy::too_many_arguments)]
pub fn continuation_in_e<S: ContactSystem<N>, const N: usize>(
    family: impl Fn(f64) -> S,
    e_start: f64,
    e_step: f64,
    e_max: f64,
    e_tol: f64,
    guess: &DVector<f64>,
    settings: &ZenoSettings,
    progress: &dyn Fn(f64),
) -> Continuation {
    let settings = &ZenoSettings { check_rate: false, ..*settings };
    let solve = |e: f64, y: &DVector<f64>| -> Result<Orbit, NewtonStop> {
        let lag = Lagrangian::new(family(e));
        let o = orbit(&lag, y, settings);
        if !o.converged {
            return Err(o.reason.unwrap_or(NewtonStop::NotConverged));
        }
        if o.constrained_duration.is_nan() || o.constrained_duration <= 0.0 {
            return Err(NewtonStop::NoConstrainedPhase);
        }
        if e > 0.0 && !o.zeno {
            return Err(NewtonStop::NotZeno);
        }
        Ok(o)
    };
    let mut points: Vec<BranchPoint> = Vec::new();
    let mut failed: Option<(f64, NewtonStop)> = None;
    match solve(e_start, guess) {
        Ok(o) => {
            points.push(BranchPoint { e: e_start, orbit: o });
            progress(e_start);
        }
        Err(r) => failed = Some((e_start, r)),
    }
    let mut step = e_step;
    while let Some(last) = points.last() {
        if last.e >= e_max {
            break;
        }
        let e = (last.e + step).min(e_max);
        let y = DVector::from_vec(last.orbit.section_point.clone());
        match solve(e, &y) {
            Ok(o) => {
                points.push(BranchPoint { e, orbit: o });
                progress(e);
                step = (step * 1.5).min(e_step);
            }
            Err(r) => {
                failed = Some((e, r));
                step *= 0.5;
                if step < e_tol {
                    break;
                }
            }
        }
    }
    Continuation {
        e_critical: points.last().map(|p| p.e),
        e_failed: failed.as_ref().map(|f| f.0),
        reason: failed.map(|f| f.1),
        points,
    }
}
