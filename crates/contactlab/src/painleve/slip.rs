//! How a slip episode of contact 0 (a walker's stance foot) ends (P2, Sections 3.3 and 4.2): it
//! sticks, reverses, separates, is cut short by the next heel strike, or jams (Definition 1:
//! `B → 0` with `A > 0`, the normal force unbounded); and the smallest initial slip speed that
//! jams.
//!
//! The event-driven core runs the slip while `B` is resolved from zero. Where `B` falls below
//! [`desingular::SWITCH`] of its terms the desingularised run takes over ([`desingular`], after
//! Génot and Brogliato): time rescaled by `B`, the pole of `f_n = A/B` becomes a regular point,
//! P2's corner `p₁` (`A = B = 0`) a set of equilibria, and the end is an event of that run: the
//! slip speed reaching zero (stick or reversal), `A` reaching zero (separation), or convergence
//! to `p₁` while still slipping (jam). [`SlipEnd::approach`] holds its evidence.

use std::ops::ControlFlow;

use nalgebra::DVector;
use serde::Serialize;

use super::desingular::{self, held_in, slip_parts, SWITCH};
use super::{SlipSettings, State};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::lagrangian::{join, split, ContactMode, Lagrangian, Modes};
use crate::hybrid::{EventKind, FailureKind, Observer, Step, Termination};
use crate::mechanics::ContactSystem;
use crate::numeric::{bisect, side_if, Tol};

/// How a slip episode ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlipOutcome {
    /// The slip velocity reached zero and the foot sticks.
    Stick,
    /// The slip velocity reached zero and the slip reverses.
    Reversal,
    /// The normal force reached zero: the foot leaves the ground.
    Separation,
    /// Dynamic jamming: `B → 0` with the normal force growing without bound.
    Jam,
    /// The slip reached P2's corner `p₁` (`A = B = 0`) with its speed not resolved from zero:
    /// [`SlipEnd::approach`] holds the evidence.
    Corner,
    /// The swing foot struck the ground while the stance foot still slipped.
    Impact,
    /// The initial state is in case 4 of Table 2.1 (no finite-force continuation).
    Inconsistent,
    /// The initial state is in case 3 of Table 2.1 (slip or separation).
    Indeterminate,
    /// The stance foot does not slip at the initial state.
    NotSlipping,
    /// None of the above within the time or event bounds.
    Unresolved,
}

/// The end of a slip episode.
#[derive(Debug, Clone, Serialize)]
pub struct SlipEnd {
    /// How it ended.
    pub outcome: SlipOutcome,
    /// When.
    pub t_end: f64,
    /// The largest normal force at the stance foot during the slip.
    pub fn_max: f64,
    /// The state `(q, q̇)` at the end.
    pub state: Vec<f64>,
    /// `A` and `B` (eq. 21) at the end, with no constraint held (the approach's own, with the
    /// held constraints, are in [`SlipEnd::approach`] relative to their terms).
    pub a_end: f64,
    /// See `a_end`.
    pub b_end: f64,
    /// The desingularised run's evidence, when the slip approached `B = 0` (module docs).
    pub approach: Option<Approach>,
    /// Samples `(t, q, q̇, f_n)` along the slip (for plots; empty from [`slip_outcome`]).
    #[serde(skip)]
    pub trace: Vec<TracePoint>,
}

/// One sample of a slip: `(t, q, q̇, f_n)`.
pub type TracePoint = (f64, Vec<f64>, Vec<f64>, f64);

pub use super::desingular::{Approach, Reading};

struct SlipWatch<'a, S> {
    lag: &'a Lagrangian<S>,
    /// `(t, f_n)` of every sample.
    forces: Vec<(f64, f64)>,
    /// The samples with their states, when the caller keeps them (see [`slip`]).
    trace: Option<Vec<TracePoint>>,
    fn_max: f64,
    end: Option<(SlipOutcome, f64, State)>,
    started: bool,
    sigma: f64,
    /// The last accepted step end while slipping, with its mode.
    last_node: Option<(f64, State, Modes)>,
    /// Where `B` fell below [`SWITCH`] of its terms: the desingularised run starts there.
    switch: Option<(f64, State, Modes)>,
}

impl<S: ContactSystem> SlipWatch<'_, S> {
    fn sample(&mut self, t: f64, x: &State, mode: &Modes) {
        if let ContactMode::Slip(s) = mode.get(0) {
            if s != 0 {
                let (q, v) = split(x);
                if let Some(sol) = self.lag.solve_mode(mode, t, &q, &v) {
                    self.fn_max = self.fn_max.max(sol.lambda_n[0]);
                    self.forces.push((t, sol.lambda_n[0]));
                    if let Some(trace) = &mut self.trace {
                        trace.push((t, q.iter().copied().collect(), v.iter().copied().collect(), sol.lambda_n[0]));
                    }
                }
            }
        }
    }
}

impl<S: ContactSystem> Observer<State, Modes> for SlipWatch<'_, S> {
    fn on_start(&mut self, t: f64, x: &State, mode: &Modes) {
        self.started = matches!(mode.get(0), ContactMode::Slip(s) if s != 0);
        if let ContactMode::Slip(s) = mode.get(0) {
            self.sigma = s as f64;
            if s != 0 {
                // A start already near B = 0 has a node to hand over from.
                self.last_node = Some((t, x.clone(), *mode));
            }
        }
        self.sample(t, x, mode);
    }
    fn on_step(&mut self, step: &Step<State>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
        for (t, x) in step.samples(t_end, 4) {
            self.sample(t, &x, mode);
        }
        let sigma = match mode.get(0) {
            ContactMode::Slip(s) if s != 0 => s as f64,
            _ => return ControlFlow::Continue(()),
        };
        if t_end == step.t1() {
            self.last_node = Some((t_end, step.y1.clone(), *mode));
            let (q, v) = split(&step.y1);
            let parts = slip_parts(self.lag.system(), t_end, &q, &v, sigma, &held_in(mode));
            // P2's Definition 1: B → 0 from above (a slip in B < 0 has A < 0 too, Table 2.1's
            // case 3, and the core runs it as before).
            if parts.is_some_and(|p| p.b > 0.0 && p.b < SWITCH * p.b_scale) {
                self.switch = self.last_node.clone();
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<State, Modes>) -> ControlFlow<()> {
        let outcome = match (ev.info.kind, ev.info.contact) {
            (EventKind::Impact, Some(1)) => Some(SlipOutcome::Impact),
            (EventKind::LiftOff, Some(0)) => Some(SlipOutcome::Separation),
            (EventKind::SlipStop, Some(0)) => Some(match ev.mode_after.get(0) {
                ContactMode::Stick => SlipOutcome::Stick,
                ContactMode::Slip(_) => SlipOutcome::Reversal,
                ContactMode::Free => SlipOutcome::Separation,
            }),
            _ => None,
        };
        match outcome {
            Some(o) => {
                self.end = Some((o, ev.t, ev.before.clone()));
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    }
}

/// Runs the walker from `(q, q̇)` (the stance foot slipping) until the slip episode ends.
pub fn slip<S: ContactSystem>(
    sys: &S,
    q: &DVector<f64>,
    v: &DVector<f64>,
    settings: impl Into<SlipSettings>,
) -> SlipEnd {
    run_slip(sys, q, v, &settings.into(), true)
}

/// [`slip`] without the sampled states ([`SlipEnd::trace`] empty): for the searches that need
/// only the outcome (thresholds, grids), which would otherwise allocate two vectors per sample.
pub fn slip_outcome<S: ContactSystem>(
    sys: &S,
    q: &DVector<f64>,
    v: &DVector<f64>,
    settings: impl Into<SlipSettings>,
) -> SlipEnd {
    run_slip(sys, q, v, &settings.into(), false)
}

fn run_slip<S: ContactSystem>(
    sys: &S,
    q: &DVector<f64>,
    v: &DVector<f64>,
    settings: &SlipSettings,
    keep_trace: bool,
) -> SlipEnd {
    let lag = Lagrangian::new(sys);
    let mut watch = SlipWatch {
        lag: &lag,
        forces: Vec::new(),
        trace: keep_trace.then(Vec::new),
        fn_max: 0.0,
        end: None,
        started: false,
        sigma: 1.0,
        last_node: None,
        switch: None,
    };
    let driver = settings.driver(settings.max_step_time * sys.time_scale());
    let run = driver.run(&lag, 0.0, join(q, v), &[], &mut watch);
    let mut trace = watch.trace.unwrap_or_default();
    let mut fn_max = watch.fn_max;
    let mut approach = None;
    // Where the slip approached B = 0: the hand-over point, or (should the core have stopped at
    // the pole before a step end fell below the switch) the last step end while slipping.
    let from = match (&watch.switch, &watch.end, &run.termination) {
        (Some(sw), _, _) => Some(sw.clone()),
        (None, None, Termination::Failed(f)) if f.kind == FailureKind::Jam => {
            trace.retain(|p| p.0 < run.t);
            fn_max = watch.forces.iter().filter(|p| p.0 < run.t).map(|p| p.1).fold(0.0, f64::max);
            watch.last_node
        }
        _ => None,
    };
    let (outcome, t, x) = match (from, &watch.end, &run.termination) {
        (Some((t0, x0, mode)), _, _) => {
            trace.retain(|p| p.0 <= t0);
            let tr = keep_trace.then_some(&mut trace);
            let sigma = match mode.get(0) {
                ContactMode::Slip(s) if s != 0 => s as f64,
                _ => watch.sigma,
            };
            let e = desingular::run(&lag, t0, &x0, &mode, sigma, settings, tr);
            fn_max = fn_max.max(e.approach.fn_max);
            approach = Some(e.approach);
            (e.outcome, e.t, e.x)
        }
        (None, Some((o, t, x)), _) => (*o, *t, x.clone()),
        (None, None, Termination::Failed(f)) => {
            let o = match f.kind {
                FailureKind::Painleve => SlipOutcome::Inconsistent,
                FailureKind::Indeterminate => SlipOutcome::Indeterminate,
                _ => SlipOutcome::Unresolved,
            };
            (o, run.t, run.state)
        }
        (None, None, _) if !watch.started => (SlipOutcome::NotSlipping, run.t, run.state),
        (None, None, _) => (SlipOutcome::Unresolved, run.t, run.state),
    };
    let (qe, ve) = split(&x);
    let sigma = sys.tangent_jacobian(0, &qe).dot(&ve).signum();
    let (a, b) = super::ab(sys, &qe, &ve, if sigma == 0.0 { 1.0 } else { sigma });
    SlipEnd {
        outcome,
        t_end: t,
        fn_max,
        state: x.column(0).iter().chain(x.column(1).iter()).copied().collect(),
        a_end: a,
        b_end: b,
        approach,
        trace,
    }
}

/// The smallest initial slip speed that jams from `(q, q̇)`, the slip speed being set along the
/// stance foot's tangential direction `e_x` (a unit vector in the velocities): bisection on
/// `(0, v_max]` to relative tolerance `tol`. `None` if `v_max` does not jam.
pub fn jam_threshold<S: ContactSystem>(
    sys: &S,
    q: &DVector<f64>,
    v: &DVector<f64>,
    e_x: &DVector<f64>,
    v_max: f64,
    tol: f64,
    settings: impl Into<SlipSettings>,
) -> Option<f64> {
    jam_threshold_from(sys, |s| (q.clone(), v + e_x * s), v_max, tol, settings)
}

/// The smallest initial slip speed `s` in `(0, v_max]` whose start `start(s)` jams: bisection
/// to relative tolerance `tol` ([`jam_threshold`] with the starts given: a walker sets its
/// stance foot's slip speed in its own coordinates, its other velocities kept). `None` if
/// `v_max` does not jam.
pub fn jam_threshold_from<S: ContactSystem>(
    sys: &S,
    start: impl Fn(f64) -> (DVector<f64>, DVector<f64>),
    v_max: f64,
    tol: f64,
    settings: impl Into<SlipSettings>,
) -> Option<f64> {
    let settings: SlipSettings = settings.into();
    let jams = |s: f64| {
        let (q, v) = start(s);
        slip_outcome(sys, &q, &v, settings).outcome == SlipOutcome::Jam
    };
    if !jams(v_max) {
        return None;
    }
    // Relative to the threshold; a floor far below it bounds the work should every speed jam.
    Some(bisect(0.0, v_max, Tol { abs: 1e-3 * tol * v_max, rel: tol }, |m| side_if(jams(m))).hi)
}

/// How many slips jam from a grid of `n × n` starts on the approach side of the region `B < 0`
/// of a one-angle walker (the rimless wheel): `θ₀` in `(θ₁ − width, θ₁)`, `θ̇₀` in
/// `(0, rate_max)`, the slip speed `ẋ₀` along `e_x`. P2 (after Génot and Brogliato, and \[38\])
/// states that jamming needs `μ ≥ μ_c = (2/√3) μ_min`: below it the slip reaches `A = 0` first.
#[allow(clippy::too_many_arguments)]
pub fn jams_on_grid<S: ContactSystem>(
    sys: &S,
    start: impl Fn(f64, f64) -> (DVector<f64>, DVector<f64>),
    theta1: f64,
    width: f64,
    rate_max: f64,
    n: usize,
    settings: impl Into<SlipSettings>,
) -> usize {
    let settings: SlipSettings = settings.into();
    let mut count = 0;
    for i in 0..n {
        for j in 0..n {
            let th0 = theta1 - width * (i as f64 + 0.5) / n as f64;
            let rate = rate_max * (j as f64 + 0.5) / n as f64;
            let (q, v) = start(th0, rate);
            if slip_outcome(sys, &q, &v, settings).outcome == SlipOutcome::Jam {
                count += 1;
            }
        }
    }
    count
}
