//! Exact event-driven simulation of the zero-order dynamics (P1, §III-B).
//!
//! The state is P1's `q = (z₁, z₂, x₂)` with `q̇`; `x₁` follows from rigid kinematics,
//! `x₁ = e·q`. Within a contact mode the accelerations are constant, so gaps are quadratic and
//! slip velocities linear in time: every event is located in closed form.
//!
//! The simulator is a [`Hybrid`] system run by the shared [`EventDriver`]: its closed-form event
//! times are its implementation of [`Hybrid::next_event`], so there is one event loop for the
//! ZOD, the nonlinear model and every other system.
//!
//! * **Events**: a free point reaching its support (impact, [`super::impact`]); a slipping point
//!   coming to rest (stick or slip reversal). After every event the unique consistent mode of the
//!   new state is chosen ([`super::modes::consistent_modes`]); several or none is reported as a
//!   Painlevé state, not guessed.
//! * **Sustained contacts** stay exactly closed: `zᵢ = żᵢ = 0` is imposed at every event, so
//!   round-off cannot turn a sustained contact into a flying one.
//! * **Zeno**: the driver detects the geometric decay of a point's impact intervals and speeds
//!   and extrapolates the Zeno time and state from the series; the state there has the point
//!   (and the other one, when its motion vanishes with the series) in sustained contact, and the
//!   simulation continues from it.
//! * **Divergence**: velocities growing by [`SimSettings::diverge_ratio`] (reverse chatter), or a
//!   mode with no further event that moves away (sliding or flying off).

use std::cell::Cell;
use std::ops::ControlFlow;

use nalgebra::{Matrix3, SMatrix, Vector3};
use serde::Serialize;

use super::impact::{impact_with, ImpactGains};
use super::modes::{consistent_modes, BodyModeSolution, ContactPointState, Mode, PointMode};
use super::zod::{Zod, X1, Z1};
use crate::hybrid::driver::{EventRecord, Observer};
use crate::hybrid::EventKind as CoreKind;
use crate::hybrid::{
    Candidate, DriverSettings, EventDriver, EventInfo, ExactEvent, FailureKind, Hybrid, ModeFailure, Run, Step,
    Termination, Transition,
};
use crate::Error;

/// Simulation limits.
#[derive(Debug, Clone, Copy)]
pub struct SimSettings {
    /// Stop at this time (s).
    pub t_max: f64,
    /// Stop after this many events.
    pub max_events: usize,
    /// Velocity growth (relative to the initial) that counts as divergence.
    pub diverge_ratio: f64,
    /// Keep the phases (time histories); return maps only need the events.
    pub record_phases: bool,
}

impl Default for SimSettings {
    fn default() -> Self {
        Self { t_max: 1e3, max_events: 20_000, diverge_ratio: 1e8, record_phases: true }
    }
}

impl SimSettings {
    /// Checks every setting (an [`Error::Argument`] names the first that is out of range);
    /// `t_max` may be `+∞`.
    pub fn validate(&self) -> Result<(), Error> {
        if self.t_max.is_nan() || self.t_max <= 0.0 {
            return Err(Error::argument("t_max", format!("must be > 0 (got {})", self.t_max)));
        }
        crate::error::at_least_one("max_events", self.max_events)?;
        if self.diverge_ratio.is_nan() || self.diverge_ratio <= 1.0 {
            return Err(Error::argument("diverge_ratio", format!("must be > 1 (got {})", self.diverge_ratio)));
        }
        Ok(())
    }
}

/// A velocity within `VEL_TOL` of the largest speed of the run is zero (rest, grazing).
pub const VEL_TOL: f64 = 1e-12;

/// A landing point whose normal velocity is within `GRAZE_TOL` of the largest speed of the run
/// is sustained (a grazing landing), not an impact.
pub const GRAZE_TOL: f64 = 1e-9;

/// At a Zeno point, the other point joins the limit when its gap and normal velocity are within
/// `ZENO_JOIN` of the series' scales at its last impact (`v²/a` and `v`); the slip velocity is
/// rest when it is within `ZENO_JOIN` of `v`.
pub const ZENO_JOIN: f64 = 1e-6;

/// A state `(q, q̇)` with `q = (z₁, z₂, x₂)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SimState {
    /// `(z₁, z₂, x₂)` (m).
    pub q: [f64; 3],
    /// `(ż₁, ż₂, ẋ₂)` (m/s).
    pub qd: [f64; 3],
}

/// One phase of constant-acceleration motion.
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    /// Start time.
    pub t0: f64,
    /// Duration (may be `+∞` for the final phase).
    pub duration: f64,
    /// Mode during the phase.
    pub mode: Mode,
    /// State at the start.
    pub start: SimState,
    /// Constant `q̈`.
    pub qdd: [f64; 3],
    /// Constant `ẍ₁` and the `ẋ₁`, `x₁` at the start.
    pub x1: [f64; 3],
}

impl Phase {
    /// `(q, q̇, x₁)` at time `t` within the phase.
    pub fn at(&self, t: f64) -> ([f64; 3], [f64; 3], f64) {
        let dt = t - self.t0;
        let mut q = [0.0; 3];
        let mut qd = [0.0; 3];
        for k in 0..3 {
            q[k] = self.start.q[k] + self.start.qd[k] * dt + 0.5 * self.qdd[k] * dt * dt;
            qd[k] = self.start.qd[k] + self.qdd[k] * dt;
        }
        (q, qd, self.x1[0] + self.x1[1] * dt + 0.5 * self.x1[2] * dt * dt)
    }
}

/// What happened at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BodyEventKind {
    /// Point `i` hit its support.
    Impact,
    /// A slipping point came to rest tangentially.
    SlipStop,
    /// The accumulation point of infinitely many impacts (extrapolated).
    Zeno,
}

/// A logged event.
#[derive(Debug, Clone, Serialize)]
pub struct BodyEvent {
    /// Time.
    pub t: f64,
    /// Kind.
    pub kind: BodyEventKind,
    /// The point involved (0 or 1), if any.
    pub point: Option<usize>,
    /// For impacts: the impulse-level mode; otherwise the new mode.
    pub mode: Mode,
    /// Whether this impact is a crossing of P1's Poincaré section (point 2 lands while point 1
    /// is in sustained contact).
    pub section: bool,
    /// State just before the event.
    pub before: SimState,
    /// State just after.
    pub after: SimState,
}

/// How a simulation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BodyOutcome {
    /// Static equilibrium (`SS`) reached.
    Rest,
    /// A mode with no further event carries the body away (sliding or flying off).
    MovesAway,
    /// Velocities grew beyond the divergence threshold.
    Diverged,
    /// No consistent mode, or several (Painlevé).
    Painleve,
    /// No consistent impact outcome.
    ImpactFailure,
    /// Time or event limit.
    Limit,
}

/// A simulated trajectory.
#[derive(Debug, Clone, Serialize)]
pub struct BodyTrajectory {
    /// Phases in time order.
    pub phases: Vec<Phase>,
    /// Events in time order.
    pub events: Vec<BodyEvent>,
    /// How it ended.
    pub outcome: BodyOutcome,
    /// Final time.
    pub t_end: f64,
}

/// One sample of a trajectory: `(t, z₁, z₂, x₁, x₂)`.
pub type BodySample = [f64; 5];

impl BodyTrajectory {
    /// Samples every phase at `per_phase` evenly spaced times (the final, unbounded phase over
    /// `tail` seconds), for time plots.
    pub fn sample(&self, per_phase: usize, tail: f64) -> Vec<BodySample> {
        let mut out = Vec::new();
        for ph in &self.phases {
            let dur = if ph.duration.is_finite() { ph.duration } else { tail };
            for k in 0..=per_phase {
                let t = ph.t0 + dur * k as f64 / per_phase as f64;
                let (q, _, x1) = ph.at(t);
                out.push([t, q[0], q[1], x1, q[2]]);
            }
        }
        out
    }

    /// Times of the Zeno points.
    pub fn zeno_times(&self) -> Vec<f64> {
        self.events.iter().filter(|e| e.kind == BodyEventKind::Zeno).map(|e| e.t).collect()
    }
}

/// The event-driven ZOD simulator of one configuration.
#[derive(Debug, Clone)]
pub struct Simulator {
    /// The zero-order dynamics.
    pub zod: Zod,
    t: Matrix3<f64>,
    tinv: Matrix3<f64>,
    /// Consistent modes of each of the 16 discrete state classes: under the ZOD consistency
    /// depends only on the class, so it is decided once.
    table: Vec<Vec<BodyModeSolution>>,
    /// Impulse-level gain matrices of the 16 modes.
    gains: ImpactGains,
}

/// The four state classes of one point, in [`class_index`] order.
pub(crate) const CLASSES: [ContactPointState; 4] =
    [ContactPointState::Separated, ContactPointState::Rest, ContactPointState::Slip(1), ContactPointState::Slip(-1)];

/// The index of a point's state class in [`CLASSES`].
pub(crate) fn class_index(p: ContactPointState) -> usize {
    match p {
        ContactPointState::Separated => 0,
        ContactPointState::Rest => 1,
        ContactPointState::Slip(d) if d > 0 => 2,
        ContactPointState::Slip(_) => 3,
    }
}

/// Smallest `t > 0` at which `z₀ + w t + ½ a t²` reaches 0 from above.
pub(crate) fn landing_time(z0: f64, w: f64, a: f64) -> Option<f64> {
    if z0 <= 0.0 && w >= 0.0 && a >= 0.0 {
        return None;
    }
    if z0 <= 0.0 {
        // On the support and leaving (w > 0, or w = 0 with a > 0 handled above): the return.
        if w > 0.0 && a < 0.0 {
            return Some(-2.0 * w / a);
        }
        return None;
    }
    if a == 0.0 {
        return (w < 0.0).then(|| -z0 / w);
    }
    let disc = w * w - 2.0 * a * z0;
    if disc < 0.0 {
        return None;
    }
    // Roots of ½a t² + w t + z0 = 0, computed without cancellation.
    let sq = disc.sqrt();
    let qq = -(w + w.signum() * sq) / 2.0;
    let (r1, r2) = if qq != 0.0 { (qq / (0.5 * a), z0 / qq) } else { (-w / a, -w / a) };
    let mut best: Option<f64> = None;
    for r in [r1, r2] {
        // A root where z is decreasing: ż = w + a t < 0 (or touching).
        if r > 0.0 && w + a * r <= 0.0 {
            best = Some(best.map_or(r, |b: f64| b.min(r)));
        }
    }
    best
}

/// The hybrid state `[q | q̇]` (columns) of the ZOD.
pub type ZodState = SMatrix<f64, 3, 2>;

fn to_x(st: &SimState) -> ZodState {
    ZodState::from_columns(&[Vector3::from_row_slice(&st.q), Vector3::from_row_slice(&st.qd)])
}

/// Points exactly on their supports with zero normal velocity: the sustained contacts a state
/// starts with.
fn resting(st: &SimState) -> [bool; 2] {
    [st.q[0] == 0.0 && st.qd[0] == 0.0, st.q[1] == 0.0 && st.qd[1] == 0.0]
}

fn from_x(x: &ZodState) -> SimState {
    SimState { q: [x[(0, 0)], x[(1, 0)], x[(2, 0)]], qd: [x[(0, 1)], x[(1, 1)], x[(2, 1)]] }
}

/// The discrete state of the ZOD: the contact mode with its constant accelerations, and the
/// impulse-level mode of the impact that led to it (if one did).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZodMode {
    /// The contact mode (`F` = not in sustained contact).
    pub mode: Mode,
    /// For the mode right after an impact: the impact's impulse-level mode.
    pub via: Option<Mode>,
    /// Constant `q̈` in the mode.
    pub qdd: [f64; 3],
    /// Constant `ẍ₁`.
    pub x1dd: f64,
}

impl ZodMode {
    fn sustained(&self) -> [bool; 2] {
        [self.mode.0 != PointMode::F, self.mode.1 != PointMode::F]
    }
}

/// One run of the ZOD as a [`Hybrid`] system: the simulator, the velocity scale of the
/// perturbation and the divergence bound.
struct ZodRun<'a> {
    sim: &'a Simulator,
    v0: f64,
    diverge_ratio: f64,
    /// Largest speed of the run so far: `v0` and the speed of every state a transition has seen.
    ///
    /// The velocity tolerances of the transitions (`vtol`, the passive points after an
    /// impact) are relative to it: rest and grazing are decided when the speeds are near zero,
    /// so the tolerance must come from the speeds the motion has had, not from the current one,
    /// and a motion that grows beyond its initial speed `v0` (a diverging run) must raise it.
    /// A `Cell` because [`Hybrid`]'s methods take `&self`.
    ///
    /// It is state of one run, not a cache, so a run's results cannot depend on the order of
    /// calls outside it: a `ZodRun` is made afresh by `Simulator::drive` for each run and is
    /// never shared, only its transitions (`initial_transition`, `initial_mode`, `transition`,
    /// `zeno_limit`) read and raise it, and the driver calls those once per event, in time
    /// order; the flow, guards and closed-form segments ignore it. Tests:
    /// `runs_do_not_depend_on_earlier_runs`, `flow_and_guards_do_not_read_the_running_speed`.
    vmax: Cell<f64>,
}

impl ZodRun<'_> {
    /// The velocity tolerance at `st`, [`VEL_TOL`] of the largest speed of the run (after raising
    /// it to the speed at `st`).
    fn vtol(&self, st: &SimState) -> f64 {
        let speed = st.qd.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        self.vmax.set(self.vmax.get().max(speed));
        VEL_TOL * self.vmax.get()
    }

    /// The mode that follows at `st` with the given sustained contacts: grazing landings become
    /// sustained candidates, tangential rest is made exact, and the mode table decides (one
    /// consistent mode, or a Painlevé failure).
    fn settle(&self, st: &mut SimState, mut sustained: [bool; 2], via: Option<Mode>) -> Result<ZodMode, ModeFailure> {
        let sim = self.sim;
        let vtol = self.vtol(st);
        for i in 0..2 {
            if sustained[i] {
                st.q[i] = 0.0;
                st.qd[i] = 0.0;
            } else if st.q[i] <= 0.0 && st.qd[i].abs() <= vtol {
                // A free point on its support with (numerically) zero normal velocity is a
                // sustained contact candidate: the mode table decides whether it lifts off.
                st.q[i] = 0.0;
                st.qd[i] = 0.0;
                sustained[i] = true;
            }
        }
        let ps = [sim.point_state(st, sustained, 0, vtol), sim.point_state(st, sustained, 1, vtol)];
        // A point at rest tangentially is put exactly at rest, so that round-off of either sign
        // cannot start a zero-length slip phase.
        if ps[1] == ContactPointState::Rest {
            st.qd[2] = 0.0;
        }
        if ps[0] == ContactPointState::Rest && sim.zod.e[2] != 0.0 && ps[1] != ContactPointState::Rest {
            st.qd[2] = -(sim.zod.e[0] * st.qd[0] + sim.zod.e[1] * st.qd[1]) / sim.zod.e[2];
        }
        let sols = &sim.table[4 * class_index(ps[0]) + class_index(ps[1])];
        if sols.len() != 1 {
            return Err(ModeFailure::among(
                if sols.is_empty() { FailureKind::Painleve } else { FailureKind::Indeterminate },
                sols.iter().map(|s| Candidate { mode: s.mode.to_string(), margin: s.margin }).collect(),
            ));
        }
        let sol = &sols[0];
        let mode = sol.mode;
        if mode == Mode(PointMode::S, PointMode::S) {
            return Ok(ZodMode { mode, via, qdd: [0.0; 3], x1dd: 0.0 });
        }
        let f = nalgebra::Vector4::from_row_slice(&sol.forces);
        let sdd = sim.zod.body_accel(&f, &sim.zod.applied);
        let mut qdd: [f64; 3] = (sim.t * sdd).into();
        for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
            if pm != PointMode::F {
                qdd[i] = 0.0;
            }
        }
        Ok(ZodMode { mode, via, qdd, x1dd: sim.x1(&qdd) })
    }

    /// Impacts of every point on its support moving into it, then the mode that follows.
    /// `None` when no point is impacting.
    fn impacts(&self, st: &mut SimState, mut sustained: [bool; 2]) -> Option<Transition<ZodState, ZodMode>> {
        let sim = self.sim;
        let vtol = self.vtol(st);
        let mut info: Option<EventInfo> = None;
        let mut via = None;
        for i in 0..2 {
            if sustained[i] || st.q[i] > 0.0 || st.qd[i] >= -vtol {
                continue;
            }
            let touching = [sustained[0] || st.q[0] <= 0.0, sustained[1] || st.q[1] <= 0.0];
            let speed = -st.qd[i];
            let imp = match impact_with(&sim.zod, &sim.gains, &sim.body_velocity(&st.qd), touching) {
                Ok(x) => x,
                Err(_) => return Some(Transition::Failed(ModeFailure::bare(FailureKind::Impact))),
            };
            st.qd = (sim.t * Vector3::from_row_slice(&imp.v_plus)).into();
            for (k, pm) in [imp.mode.0, imp.mode.1].into_iter().enumerate() {
                if touching[k] {
                    st.q[k] = 0.0;
                    // The impact law accepts passive points with ż⁺ down to −1e-9 of the velocity
                    // scale: treat those as closed, not as a new approach.
                    sustained[k] = pm != PointMode::F || st.qd[k] <= GRAZE_TOL * self.vmax.get();
                    if sustained[k] {
                        st.qd[k] = 0.0;
                    }
                }
            }
            via = Some(imp.mode);
            info.get_or_insert(EventInfo {
                kind: CoreKind::Impact,
                contact: Some(i),
                impact_speed: Some(speed),
                energy_loss: Some(imp.energy_loss),
                rebound: None,
            });
        }
        let info = info?;
        Some(match self.settle(st, sustained, via) {
            Ok(mode) => Transition::Jump { state: to_x(st), mode, info },
            Err(f) => Transition::Failed(f),
        })
    }
}

impl Hybrid for ZodRun<'_> {
    type State = ZodState;
    type Mode = ZodMode;

    fn time_scale(&self) -> f64 {
        self.v0 / self.sim.zod.a0.amax().max(crate::numeric::SCALE_FLOOR)
    }

    fn state_scale(&self) -> ZodState {
        let a = self.sim.zod.a0.amax().max(crate::numeric::SCALE_FLOOR);
        let (l, v) = (self.v0 * self.v0 / a, self.v0);
        ZodState::from_columns(&[Vector3::repeat(l), Vector3::repeat(v)])
    }

    fn initial_transition(&self, _t: f64, x: &ZodState) -> Option<Transition<ZodState, ZodMode>> {
        let mut st = from_x(x);
        let sustained = resting(&st);
        self.impacts(&mut st, sustained)
    }

    fn initial_mode(&self, _t: f64, x: &mut ZodState) -> Result<ZodMode, ModeFailure> {
        let mut st = from_x(x);
        let sustained = resting(&st);
        let m = self.settle(&mut st, sustained, None)?;
        *x = to_x(&st);
        Ok(m)
    }

    fn flow(&self, mode: &ZodMode, _t: f64, x: &ZodState) -> ZodState {
        ZodState::from_columns(&[x.column(1).into_owned(), Vector3::from_row_slice(&mode.qdd)])
    }

    fn guard_count(&self, _mode: &ZodMode) -> usize {
        4
    }

    fn guards(&self, mode: &ZodMode, _t: f64, x: &ZodState, out: &mut [f64]) {
        let st = from_x(x);
        for (i, pm) in [mode.mode.0, mode.mode.1].into_iter().enumerate() {
            let xd = if i == 0 { self.sim.x1(&st.qd) } else { st.qd[2] };
            out[2 * i] = if pm == PointMode::F { st.q[i] } else { f64::INFINITY };
            out[2 * i + 1] = match pm {
                PointMode::P => xd,
                PointMode::N => -xd,
                _ => f64::INFINITY,
            };
        }
    }

    fn next_event(&self, mode: &ZodMode, t: f64, x: &ZodState) -> Option<ExactEvent<ZodState>> {
        let st = from_x(x);
        let (qdd, x1dd) = (mode.qdd, mode.x1dd);
        let mut dt = f64::INFINITY;
        let mut guard = 0;
        for (i, pm) in [mode.mode.0, mode.mode.1].into_iter().enumerate() {
            match pm {
                PointMode::F => {
                    if let Some(tau) = landing_time(st.q[i], st.qd[i], qdd[i]) {
                        if tau < dt {
                            dt = tau;
                            guard = 2 * i;
                        }
                    }
                }
                PointMode::P | PointMode::N => {
                    let (xd, xdd) = if i == 0 { (self.sim.x1(&st.qd), x1dd) } else { (st.qd[2], qdd[2]) };
                    if xd * xdd < 0.0 {
                        let tau = -xd / xdd;
                        if tau < dt {
                            dt = tau;
                            guard = 2 * i + 1;
                        }
                    }
                }
                PointMode::S => {}
            }
        }
        if !dt.is_finite() {
            return Some(ExactEvent { dt, guard, state: *x, segment: None });
        }
        let phase = Phase {
            t0: t,
            duration: dt,
            mode: mode.mode,
            start: st,
            qdd,
            x1: [self.sim.x1(&st.q), self.sim.x1(&st.qd), x1dd],
        };
        let (q, qd, _) = phase.at(t + dt);
        let end = to_x(&SimState { q, qd });
        let f0 = self.flow(mode, t, x);
        let f1 = self.flow(mode, t + dt, &end);
        Some(ExactEvent { dt, guard, state: end, segment: Some(Step::hermite(t, dt, *x, f0, end, f1)) })
    }

    fn transition(&self, mode: &ZodMode, fired: &[usize], _t: f64, x: &ZodState) -> Transition<ZodState, ZodMode> {
        let mut st = from_x(x);
        let sustained = mode.sustained();
        for k in 0..2 {
            if sustained[k] {
                st.q[k] = 0.0;
                st.qd[k] = 0.0;
            }
        }
        let g = fired.first().copied().unwrap_or(0);
        let i = g / 2;
        if g % 2 == 0 {
            // Landing: exactly on the support; the impact follows (or a grazing landing).
            st.q[i] = 0.0;
            if let Some(tr) = self.impacts(&mut st, sustained) {
                return tr;
            }
            return match self.settle(&mut st, sustained, None) {
                Ok(m) => Transition::Jump { state: to_x(&st), mode: m, info: EventInfo::new(CoreKind::Reset, Some(i)) },
                Err(f) => Transition::Failed(f),
            };
        }
        // Slip stop: the slip velocity is exactly zero.
        if i == 1 {
            st.qd[2] = 0.0;
        } else if self.sim.zod.e[2] != 0.0 {
            // ẋ₁ = e·q̇ = 0 exactly, adjusting ẋ₂.
            st.qd[2] = -(self.sim.zod.e[0] * st.qd[0] + self.sim.zod.e[1] * st.qd[1]) / self.sim.zod.e[2];
        }
        match self.settle(&mut st, sustained, None) {
            Ok(m) => Transition::Jump { state: to_x(&st), mode: m, info: EventInfo::new(CoreKind::SlipStop, Some(i)) },
            Err(f) => Transition::Failed(f),
        }
    }

    fn at_rest(&self, mode: &ZodMode, _x: &ZodState) -> bool {
        mode.mode == Mode(PointMode::S, PointMode::S)
    }

    fn diverged(&self, _t: f64, x: &ZodState) -> bool {
        let speed = (0..3).fold(0.0f64, |a, k| a.max(x[(k, 1)].abs()));
        speed > self.diverge_ratio * self.v0
    }

    fn zeno_limit(
        &self,
        mode: &ZodMode,
        contact: usize,
        _t: f64,
        x: &ZodState,
        last: &ZodState,
    ) -> Option<Transition<ZodState, ZodMode>> {
        let mut st = from_x(x);
        let last = from_x(last);
        // Scales of the series at its last impact: the other point joins the limit when its gap
        // and normal velocity vanish with the series.
        let vref = last.qd.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let a = self.sim.zod.a0.amax().max(crate::numeric::SCALE_FLOOR);
        let mut sustained = mode.sustained();
        sustained[contact.min(1)] = true;
        for k in 0..2 {
            if st.q[k].abs() <= ZENO_JOIN * vref * vref / a && st.qd[k].abs() <= ZENO_JOIN * vref {
                sustained[k] = true;
            }
        }
        // The slip velocity converges to a limit; when it vanishes with the series the limit is
        // rest (convergence to an interior fixed point).
        if st.qd[2].abs() <= ZENO_JOIN * vref {
            st.qd[2] = 0.0;
        }
        Some(match self.settle(&mut st, sustained, None) {
            Ok(m) => {
                Transition::Jump { state: to_x(&st), mode: m, info: EventInfo::new(CoreKind::Zeno, Some(contact)) }
            }
            Err(f) => Transition::Failed(f),
        })
    }
}

/// Builds the [`BodyTrajectory`] of a run and forwards to an inner observer.
struct TrajectoryBuilder<'a> {
    sim: &'a Simulator,
    record_phases: bool,
    p1_sustained: bool,
    phases: Vec<Phase>,
    events: Vec<BodyEvent>,
}

impl TrajectoryBuilder<'_> {
    /// The P1 event of a core event (`None` for grazing landings and sections).
    fn event(&self, ev: &EventRecord<ZodState, ZodMode>) -> Option<BodyEvent> {
        let kind = match ev.info.kind {
            CoreKind::Impact => BodyEventKind::Impact,
            CoreKind::SlipStop => BodyEventKind::SlipStop,
            CoreKind::Zeno => BodyEventKind::Zeno,
            _ => return None,
        };
        // P1's section: point 2 lands while point 1 is in sustained contact (the initial impact
        // has no previous mode: point 1 counts as sustained if it started so).
        let p1_sustained = if ev.guard.is_none() { self.p1_sustained } else { ev.mode_before.mode.0 != PointMode::F };
        let (mode, section) = match kind {
            BodyEventKind::Impact => {
                (ev.mode_after.via.unwrap_or(ev.mode_after.mode), ev.info.contact == Some(1) && p1_sustained)
            }
            BodyEventKind::SlipStop => (ev.mode_before.mode, false),
            BodyEventKind::Zeno => (Mode(PointMode::S, PointMode::S), false),
        };
        Some(BodyEvent {
            t: ev.t,
            kind,
            point: ev.info.contact.filter(|_| kind != BodyEventKind::Zeno),
            mode,
            section,
            before: from_x(&ev.before),
            after: from_x(&ev.after),
        })
    }
}

impl Observer<ZodState, ZodMode> for TrajectoryBuilder<'_> {
    fn on_step(&mut self, step: &Step<ZodState>, t_end: f64, mode: &ZodMode) -> ControlFlow<()> {
        if self.record_phases {
            let st = from_x(&step.y0);
            self.phases.push(Phase {
                t0: step.t0,
                duration: t_end - step.t0,
                mode: mode.mode,
                start: st,
                qdd: mode.qdd,
                x1: [self.sim.x1(&st.q), self.sim.x1(&st.qd), mode.x1dd],
            });
        }
        ControlFlow::Continue(())
    }

    fn on_event(&mut self, ev: &EventRecord<ZodState, ZodMode>) -> ControlFlow<()> {
        if let Some(e) = self.event(ev) {
            self.events.push(e);
        }
        ControlFlow::Continue(())
    }
}

/// Stops a run at the `n`-th crossing of P1's section and records what a return map needs.
struct SectionStop<'a> {
    builder: TrajectoryBuilder<'a>,
    crossings: usize,
    wanted: usize,
    last_crossing: Option<SimState>,
    double_slip: u8,
}

impl Observer<ZodState, ZodMode> for SectionStop<'_> {
    fn on_event(&mut self, ev: &EventRecord<ZodState, ZodMode>) -> ControlFlow<()> {
        let Some(e) = self.builder.event(ev) else { return ControlFlow::Continue(()) };
        if e.kind == BodyEventKind::Impact {
            let slipping = |pm: PointMode| matches!(pm, PointMode::P | PointMode::N);
            if slipping(e.mode.0) && slipping(e.mode.1) {
                self.double_slip |= if e.mode.1 == PointMode::P { 1 } else { 2 };
            }
        }
        if e.section {
            self.crossings += 1;
            if self.crossings == self.wanted {
                self.last_crossing = Some(e.before);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

/// The end of a return to P1's section ([`Simulator::return_to_section`]).
#[derive(Debug, Clone, Copy)]
pub struct SectionReturn {
    /// The state just before the `n`-th crossing, if it happened.
    pub crossing: Option<SimState>,
    /// How the run ended otherwise.
    pub outcome: BodyOutcome,
    /// Slipping double impacts met: bit 0 with `ẋ₂ > 0`, bit 1 with `ẋ₂ < 0`.
    pub double_slip: u8,
}

fn outcome(term: &Termination) -> BodyOutcome {
    match term {
        Termination::Rest => BodyOutcome::Rest,
        Termination::NoFurtherEvent => BodyOutcome::MovesAway,
        Termination::Diverged => BodyOutcome::Diverged,
        Termination::Failed(f) if f.kind == FailureKind::Impact => BodyOutcome::ImpactFailure,
        Termination::Failed(_) => BodyOutcome::Painleve,
        _ => BodyOutcome::Limit,
    }
}

impl Simulator {
    /// A simulator for `zod`.
    pub fn new(zod: Zod) -> Result<Self, Error> {
        let t = Matrix3::from_rows(&[zod.j.row(Z1), zod.j.row(Z1 + 1), zod.j.row(X1 + 1)]);
        let tinv = t.try_inverse().ok_or_else(|| {
            Error::model("geometry", "singular: the contact normals and tangents are not independent")
        })?;
        let table = CLASSES
            .iter()
            .flat_map(|&a| CLASSES.iter().map(move |&b| [a, b]))
            .map(|st| consistent_modes(&zod, st).0)
            .collect();
        let gains = ImpactGains::new(&zod);
        Ok(Self { zod, t, tinv, table, gains })
    }

    /// `ẋ₁` (or `x₁`, `ẍ₁`) from the corresponding `q` quantity.
    pub fn x1(&self, q: &[f64; 3]) -> f64 {
        self.zod.e.dot(&Vector3::from_row_slice(q))
    }

    /// Body velocity from `q̇`.
    pub fn body_velocity(&self, qd: &[f64; 3]) -> Vector3<f64> {
        self.tinv * Vector3::from_row_slice(qd)
    }

    fn point_state(&self, st: &SimState, sustained: [bool; 2], i: usize, vtol: f64) -> ContactPointState {
        if !sustained[i] {
            return ContactPointState::Separated;
        }
        let xd = if i == 0 { self.x1(&st.qd) } else { st.qd[2] };
        if xd.abs() <= vtol {
            ContactPointState::Rest
        } else {
            ContactPointState::Slip(if xd > 0.0 { 1 } else { -1 })
        }
    }

    /// The run of `start` on the hybrid core, with `sustained` points put exactly on their
    /// supports, reporting to `obs`.
    fn drive<O: Observer<ZodState, ZodMode>>(
        &self,
        mut start: SimState,
        sustained: [bool; 2],
        settings: &SimSettings,
        obs: &mut O,
    ) -> Run<ZodState, ZodMode> {
        for i in 0..2 {
            if sustained[i] {
                start.q[i] = 0.0;
                start.qd[i] = 0.0;
            }
        }
        // Velocity scale of the perturbation: the initial speed, or the speed a gap of the
        // initial size produces under the force-free accelerations.
        let gap = start.q[0].max(start.q[1]).max(0.0);
        let v0 = start
            .qd
            .iter()
            .fold(0.0f64, |a, v| a.max(v.abs()))
            .max((2.0 * self.zod.a0.amax() * gap).sqrt())
            .max(crate::numeric::SCALE_FLOOR);
        let sys = ZodRun { sim: self, v0, diverge_ratio: settings.diverge_ratio, vmax: Cell::new(v0) };
        let driver = EventDriver::new(DriverSettings {
            t_max: settings.t_max,
            max_events: settings.max_events,
            ..Default::default()
        });
        driver.run(&sys, 0.0, to_x(&start), &[], obs)
    }

    /// Simulates from `start` with the given points in sustained contact (their `z`, `ż` are
    /// set to 0). A point with `z = 0` and `ż < 0` that is not sustained impacts at once.
    pub fn run(&self, start: SimState, sustained: [bool; 2], settings: &SimSettings) -> Result<BodyTrajectory, Error> {
        settings.validate()?;
        let mut b = TrajectoryBuilder {
            sim: self,
            record_phases: settings.record_phases,
            p1_sustained: sustained[0],
            phases: Vec::new(),
            events: Vec::with_capacity(8),
        };
        let run = self.drive(start, sustained, settings, &mut b);
        let out = outcome(&run.termination);
        let st = from_x(&run.state);
        // The last phase: for ever at rest or moving away, or up to t_max when the time limit
        // ended the run between events (the phases are closed forms, so the run ends at t_max).
        let mut t_end = run.t;
        let last = match (&run.termination, out) {
            (_, BodyOutcome::Rest) | (_, BodyOutcome::MovesAway) => Some(f64::INFINITY),
            (Termination::TimeLimit, _) if settings.t_max.is_finite() && settings.t_max > run.t => {
                t_end = settings.t_max;
                Some(settings.t_max - run.t)
            }
            _ => None,
        };
        if let (Some(duration), Some(m)) = (last, run.mode) {
            b.phases.push(Phase {
                t0: run.t,
                duration,
                mode: m.mode,
                start: st,
                qdd: m.qdd,
                x1: [self.x1(&st.q), self.x1(&st.qd), m.x1dd],
            });
        }
        Ok(BodyTrajectory { phases: b.phases, events: b.events, outcome: out, t_end })
    }

    /// Runs from `start` until the `n`-th crossing of P1's section (point 2 lands while point 1
    /// is in sustained contact; an impact at the start counts), for return maps.
    pub fn return_to_section(
        &self,
        start: SimState,
        sustained: [bool; 2],
        n: usize,
        settings: &SimSettings,
    ) -> SectionReturn {
        let builder = TrajectoryBuilder {
            sim: self,
            record_phases: false,
            p1_sustained: sustained[0],
            phases: vec![],
            events: vec![],
        };
        let mut obs = SectionStop { builder, crossings: 0, wanted: n, last_crossing: None, double_slip: 0 };
        let run = self.drive(start, sustained, settings, &mut obs);
        SectionReturn { crossing: obs.last_crossing, outcome: outcome(&run.termination), double_slip: obs.double_slip }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper_configs::p1::config;

    fn sim(name: &str) -> Simulator {
        Simulator::new(Zod::new(&config(name).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn settings_are_validated() {
        assert!(SimSettings::default().validate().is_ok());
        assert!(SimSettings { t_max: f64::INFINITY, ..Default::default() }.validate().is_ok());
        for (bad, name) in [
            (SimSettings { t_max: 0.0, ..Default::default() }, "t_max"),
            (SimSettings { max_events: 0, ..Default::default() }, "max_events"),
            (SimSettings { diverge_ratio: 0.5, ..Default::default() }, "diverge_ratio"),
        ] {
            let e = bad.validate().unwrap_err();
            assert!(matches!(&e, Error::Argument { name: n, .. } if n == name), "{e}");
            let start = SimState { q: [0.0, 1e-4, 0.0], qd: [0.0; 3] };
            assert!(sim("A").run(start, [true, false], &bad).is_err());
        }
        let nl = crate::twocontact::nonlinear::NonlinearSettings { tol: 0.0, ..Default::default() };
        assert!(matches!(nl.validate(), Err(Error::Argument { .. })));
    }

    #[test]
    fn landing_time_cases() {
        assert_eq!(landing_time(0.0, 0.0, 1.0), None); // lifting off
        assert!((landing_time(0.0, 1.0, -2.0).unwrap() - 1.0).abs() < 1e-15); // up and back
        assert!((landing_time(1.0, 0.0, -2.0).unwrap() - 1.0).abs() < 1e-15); // drop
        assert_eq!(landing_time(1.0, 1.0, 0.0), None); // flying away
        assert!((landing_time(2.0, -1.0, 0.0).unwrap() - 2.0).abs() < 1e-15);
        // Tiny z0 with large speed: no cancellation.
        let t = landing_time(1e-12, -1.0, -1.0).unwrap();
        assert!((t - 1e-12).abs() < 1e-24);
    }

    #[test]
    fn at_rest_stays_at_rest() {
        let s = sim("A");
        let tr = s.run(SimState { q: [0.0; 3], qd: [0.0; 3] }, [true, true], &SimSettings::default()).unwrap();
        assert_eq!(tr.outcome, BodyOutcome::Rest);
        assert!(tr.events.is_empty());
    }

    #[test]
    fn small_lift_of_point_2_settles_for_stable_config_b() {
        // Lift point 2 slightly and release: configuration B is stable (P1, Theorem 5).
        let s = sim("B");
        let tr = s.run(SimState { q: [0.0, 1e-4, 0.0], qd: [0.0; 3] }, [true, false], &SimSettings::default()).unwrap();
        assert!(matches!(tr.outcome, BodyOutcome::Rest), "{:?} after {} events", tr.outcome, tr.events.len());
        assert!(tr.events.iter().any(|e| e.kind == BodyEventKind::Impact));
    }

    #[test]
    fn runs_do_not_depend_on_earlier_runs() {
        // ZodRun's running speed (`vmax`) belongs to one run: the same run gives bit-identical
        // trajectories fresh, after another run (one whose speeds grow far beyond its start:
        // D diverges) and after itself, in any order.
        let settings = SimSettings { diverge_ratio: 1e2, ..Default::default() };
        let lift = SimState { q: [0.0, 1e-4, 0.0], qd: [0.0; 3] };
        let (b, d) = (sim("B"), sim("D"));
        let run_b = || format!("{:?}", b.run(lift, [true, false], &settings).unwrap());
        let run_d = || format!("{:?}", d.run(lift, [true, false], &settings).unwrap());
        let (b1, d1) = (run_b(), run_d());
        let (d2, b2) = (run_d(), run_b());
        assert_eq!(b1, b2);
        assert_eq!(d1, d2);
        assert_eq!(b1, run_b());
        assert!(d1.contains("Diverged"), "{d1}");
    }

    #[test]
    fn flow_and_guards_do_not_read_the_running_speed() {
        // Only the transitions use `vmax`: the flow, the guards and the closed-form segment of a
        // mode are the same whatever speeds the run has seen.
        let s = sim("B");
        let v0 = 1e-2;
        let run = |vmax: f64| ZodRun { sim: &s, v0, diverge_ratio: 1e6, vmax: Cell::new(vmax) };
        let (fresh, fast) = (run(v0), run(1e3 * v0));
        let mut x = to_x(&SimState { q: [0.0, 1e-4, 0.0], qd: [0.0, 0.0, 0.0] });
        let mode = fresh.initial_mode(0.0, &mut x).unwrap();
        let show = |sys: &ZodRun| {
            let mut g = [0.0; 4];
            sys.guards(&mode, 0.5, &x, &mut g);
            format!("{:?} {:?} {:?}", sys.flow(&mode, 0.5, &x), g, sys.next_event(&mode, 0.5, &x))
        };
        assert_eq!(show(&fresh), show(&fast));
    }

    #[test]
    fn small_lift_diverges_for_unstable_config_d() {
        let s = sim("D");
        let tr = s
            .run(
                SimState { q: [0.0, 1e-4, 0.0], qd: [0.0; 3] },
                [true, false],
                &SimSettings { diverge_ratio: 1e2, ..Default::default() },
            )
            .unwrap();
        assert_eq!(tr.outcome, BodyOutcome::Diverged, "{:?} after {} events", tr.outcome, tr.events.len());
    }
}
