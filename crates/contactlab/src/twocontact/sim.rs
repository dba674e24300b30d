//! Exact event-driven simulation of the zero-order dynamics (P1, §III-B).
//!
//! The state is P1's `q = (z₁, z₂, x₂)` with `q̇`; `x₁` follows from rigid kinematics,
//! `x₁ = e·q`. Within a contact mode the accelerations are constant, so gaps are quadratic and
//! slip velocities linear in time: every event is located in closed form.
//!
//! * **Events**: a free point reaching its support (impact, [`super::impact`]); a slipping point
//!   coming to rest (stick or slip reversal). After every event the unique consistent mode of the
//!   new state is chosen ([`super::modes::consistent_modes`]); several or none is reported as a
//!   Painlevé state, not guessed.
//! * **Sustained contacts** stay exactly closed: `zᵢ = żᵢ = 0` is imposed at every event, so
//!   round-off cannot turn a sustained contact into a flying one.
//! * **Zeno**: when the velocity has fallen by [`SimSettings::zeno_ratio`] through impacts, the
//!   remaining geometric series of impact intervals is summed to the Zeno point, the state there
//!   is the limit with both contacts sustained, and the simulation continues from it.
//! * **Divergence**: velocities growing by [`SimSettings::diverge_ratio`] (reverse chatter), or a
//!   mode with no further event that moves away (sliding or flying off).

use nalgebra::{Matrix3, Vector3};
use serde::Serialize;

use super::impact::{impact_with, ImpactGains};
use super::modes::{consistent_modes, Mode, ModeSolution, PointMode, PointState};
use super::zod::{Zod, X1, Z1};
use crate::Error;

/// Simulation limits.
#[derive(Debug, Clone, Copy)]
pub struct SimSettings {
    /// Stop at this time (s).
    pub t_max: f64,
    /// Stop after this many events.
    pub max_events: usize,
    /// Reduction of the normal motion (relative to its largest value so far) that triggers Zeno
    /// extrapolation.
    pub zeno_ratio: f64,
    /// Velocity growth (relative to the initial) that counts as divergence.
    pub diverge_ratio: f64,
    /// Keep the phases (time histories); return maps only need the events.
    pub record_phases: bool,
}

impl Default for SimSettings {
    fn default() -> Self {
        Self { t_max: 1e3, max_events: 20_000, zeno_ratio: 1e-9, diverge_ratio: 1e8, record_phases: true }
    }
}

/// A state `(q, q̇)` with `q = (z₁, z₂, x₂)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct State {
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
    pub start: State,
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
pub enum EventKind {
    /// Point `i` hit its support.
    Impact,
    /// A slipping point came to rest tangentially.
    SlipStop,
    /// The accumulation point of infinitely many impacts (extrapolated).
    Zeno,
}

/// A logged event.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// Time.
    pub t: f64,
    /// Kind.
    pub kind: EventKind,
    /// The point involved (0 or 1), if any.
    pub point: Option<usize>,
    /// For impacts: the impulse-level mode; otherwise the new mode.
    pub mode: Mode,
    /// Whether this impact is a crossing of P1's Poincaré section (point 2 lands while point 1
    /// is in sustained contact).
    pub section: bool,
    /// State just before the event.
    pub before: State,
    /// State just after.
    pub after: State,
}

/// How a simulation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
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
pub struct Trajectory {
    /// Phases in time order.
    pub phases: Vec<Phase>,
    /// Events in time order.
    pub events: Vec<Event>,
    /// How it ended.
    pub outcome: Outcome,
    /// Final time.
    pub t_end: f64,
}

/// One sample of a trajectory: `(t, z₁, z₂, x₁, x₂)`.
pub type Sample = [f64; 5];

impl Trajectory {
    /// Samples every phase at `per_phase` evenly spaced times (the final, unbounded phase over
    /// `tail` seconds), for time plots.
    pub fn sample(&self, per_phase: usize, tail: f64) -> Vec<Sample> {
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
        self.events.iter().filter(|e| e.kind == EventKind::Zeno).map(|e| e.t).collect()
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
    table: Vec<Vec<ModeSolution>>,
    /// Impulse-level gain matrices of the 16 modes.
    gains: ImpactGains,
}

const CLASSES: [PointState; 4] = [PointState::Separated, PointState::Rest, PointState::Slip(1), PointState::Slip(-1)];

fn class_index(p: PointState) -> usize {
    match p {
        PointState::Separated => 0,
        PointState::Rest => 1,
        PointState::Slip(d) if d > 0 => 2,
        PointState::Slip(_) => 3,
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

impl Simulator {
    /// A simulator for `zod`.
    pub fn new(zod: Zod) -> Result<Self, Error> {
        let t = Matrix3::from_rows(&[zod.j.row(Z1), zod.j.row(Z1 + 1), zod.j.row(X1 + 1)]);
        let tinv = t.try_inverse().ok_or_else(|| Error::Unsupported("singular geometry".into()))?;
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

    fn point_state(&self, st: &State, sustained: [bool; 2], i: usize, vtol: f64) -> PointState {
        if !sustained[i] {
            return PointState::Separated;
        }
        let xd = if i == 0 { self.x1(&st.qd) } else { st.qd[2] };
        if xd.abs() <= vtol {
            PointState::Rest
        } else {
            PointState::Slip(if xd > 0.0 { 1 } else { -1 })
        }
    }

    /// Simulates from `start` with the given points in sustained contact (their `z`, `ż` must
    /// be 0). A point with `z = 0` and `ż < 0` that is not sustained impacts at once.
    pub fn run(&self, start: State, sustained: [bool; 2], settings: &SimSettings) -> Result<Trajectory, Error> {
        self.run_until(start, sustained, settings, |_| false)
    }

    /// As [`Simulator::run`], stopping right after the first event for which `stop` is true.
    pub fn run_until(
        &self,
        start: State,
        mut sustained: [bool; 2],
        settings: &SimSettings,
        mut stop: impl FnMut(&Event) -> bool,
    ) -> Result<Trajectory, Error> {
        let mut st = start;
        for i in 0..2 {
            if sustained[i] {
                st.q[i] = 0.0;
                st.qd[i] = 0.0;
            }
        }
        let mut t = 0.0;
        let mut phases = Vec::new();
        let mut events: Vec<Event> = Vec::with_capacity(8);
        // Velocity scale of the perturbation: the initial speed, or the speed a gap of the
        // initial size produces under the force-free accelerations.
        let gap = st.q[0].max(st.q[1]).max(0.0);
        let v0 =
            st.qd.iter().fold(0.0f64, |a, v| a.max(v.abs())).max((2.0 * self.zod.a0.amax() * gap).sqrt()).max(1e-300);
        let mut vmax = v0;
        let mut vnmax = 0.0f64;
        let mut impacts: Vec<(f64, usize)> = Vec::with_capacity(8);
        let finish = |phases, events, outcome, t| Ok(Trajectory { phases, events, outcome, t_end: t });
        loop {
            if events.len() >= settings.max_events || t >= settings.t_max {
                return finish(phases, events, Outcome::Limit, t);
            }
            let speed = st.qd.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            vmax = vmax.max(speed);
            if speed > settings.diverge_ratio * v0 {
                return finish(phases, events, Outcome::Diverged, t);
            }
            let vtol = 1e-12 * vmax;
            // A free point on its support with (numerically) zero normal velocity is a sustained
            // contact candidate: the mode table decides whether it lifts off (grazing landing).
            for i in 0..2 {
                if !sustained[i] && st.q[i] <= 0.0 && st.qd[i].abs() <= vtol {
                    st.q[i] = 0.0;
                    st.qd[i] = 0.0;
                    sustained[i] = true;
                }
            }
            // Immediate impacts: a point on its support moving into it.
            for i in 0..2 {
                if !sustained[i] && st.q[i] <= 0.0 && st.qd[i] < -vtol {
                    let before = st;
                    let was_sustained = sustained;
                    let touching = [sustained[0] || st.q[0] <= 0.0, sustained[1] || st.q[1] <= 0.0];
                    let imp = match impact_with(&self.zod, &self.gains, &self.body_velocity(&st.qd), touching) {
                        Ok(x) => x,
                        Err(_) => return finish(phases, events, Outcome::ImpactFailure, t),
                    };
                    let vplus = Vector3::from_row_slice(&imp.v_plus);
                    let qd = self.t * vplus;
                    st.qd = qd.into();
                    for (k, pm) in [imp.mode.0, imp.mode.1].into_iter().enumerate() {
                        if touching[k] {
                            st.q[k] = 0.0;
                            // The impact law accepts passive points with ż⁺ down to −1e-9 of the
                            // velocity scale: treat those as closed, not as a new approach.
                            if pm != PointMode::F || st.qd[k] <= 1e-9 * vmax {
                                st.qd[k] = 0.0;
                                sustained[k] = true;
                            } else {
                                sustained[k] = false;
                            }
                        }
                    }
                    let ev = Event {
                        t,
                        kind: EventKind::Impact,
                        point: Some(i),
                        mode: imp.mode,
                        section: i == 1 && was_sustained[0],
                        before,
                        after: st,
                    };
                    let halt = stop(&ev);
                    events.push(ev);
                    impacts.push((t, i));
                    if halt {
                        return finish(phases, events, Outcome::Limit, t);
                    }
                }
            }
            // Zeno: the normal motion (velocities and the speeds the gaps correspond to) has
            // decayed through impacts while a contact is still open; the tangential slip may stay
            // finite. Sum the geometric tail of impact intervals.
            let a_n = self.zod.a0.amax();
            let vn = (0..2).fold(0.0f64, |m, k| m.max(st.qd[k].abs()).max((2.0 * a_n * st.q[k].max(0.0)).sqrt()));
            vnmax = vnmax.max(vn);
            if impacts.len() >= 4 && !(sustained[0] && sustained[1]) && vn <= settings.zeno_ratio * vnmax {
                // Cycle ratio from impacts of the same point (consecutive impacts alternate between
                // the points, so their gaps are not one geometric sequence); the tail is summed
                // from the last impact.
                let last_point = impacts.last().map_or(1, |x| x.1);
                let same: Vec<f64> = impacts.iter().filter(|x| x.1 == last_point).map(|x| x.0).collect();
                let t_last = impacts.last().map_or(t, |x| x.0);
                let tz = if same.len() >= 3 {
                    let n = same.len();
                    let (d1, d2) = (same[n - 2] - same[n - 3], same[n - 1] - same[n - 2]);
                    let r = if d1 > 0.0 { (d2 / d1).clamp(0.0, 0.999) } else { 0.0 };
                    (t_last + d2 * r / (1.0 - r)).max(t)
                } else {
                    t
                };
                let before = st;
                st.q[0] = 0.0;
                st.q[1] = 0.0;
                // The slip velocity converges to a limit; when it is of the order of the vanished
                // normal motion the limit is rest (convergence to an interior fixed point).
                let xd = if st.qd[2].abs() <= 1e3 * vn.max(1e-300) { 0.0 } else { st.qd[2] };
                st.qd = [0.0, 0.0, xd];
                sustained = [true, true];
                t = tz;
                events.push(Event {
                    t,
                    kind: EventKind::Zeno,
                    point: None,
                    mode: Mode(PointMode::S, PointMode::S),
                    section: false,
                    before,
                    after: st,
                });
                impacts.clear();
                vnmax = 0.0;
            }
            // The mode that follows.
            let ps = [self.point_state(&st, sustained, 0, vtol), self.point_state(&st, sustained, 1, vtol)];
            // A point at rest tangentially is put exactly at rest, so that round-off of either
            // sign cannot start a zero-length slip phase.
            if ps[1] == PointState::Rest {
                st.qd[2] = 0.0;
            }
            if ps[0] == PointState::Rest && self.zod.e[2] != 0.0 && ps[1] != PointState::Rest {
                st.qd[2] = -(self.zod.e[0] * st.qd[0] + self.zod.e[1] * st.qd[1]) / self.zod.e[2];
            }
            let sols = &self.table[4 * class_index(ps[0]) + class_index(ps[1])];
            if sols.len() != 1 {
                return finish(phases, events, Outcome::Painleve, t);
            }
            let sol = &sols[0];
            let mode = sol.mode;
            if mode == Mode(PointMode::S, PointMode::S) {
                phases.push(Phase {
                    t0: t,
                    duration: f64::INFINITY,
                    mode,
                    start: st,
                    qdd: [0.0; 3],
                    x1: [self.x1(&st.q), 0.0, 0.0],
                });
                return finish(phases, events, Outcome::Rest, t);
            }
            let f = nalgebra::Vector4::from_row_slice(&sol.forces);
            let sdd = self.zod.body_accel(&f, &self.zod.applied);
            let mut qdd: [f64; 3] = (self.t * sdd).into();
            for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
                sustained[i] = pm != PointMode::F;
                if sustained[i] {
                    qdd[i] = 0.0;
                }
            }
            let x1dd = self.x1(&qdd);
            // Next event.
            let mut dt = f64::INFINITY;
            let mut what: Option<(EventKind, usize)> = None;
            for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
                match pm {
                    PointMode::F => {
                        if let Some(tau) = landing_time(st.q[i], st.qd[i], qdd[i]) {
                            if tau < dt {
                                dt = tau;
                                what = Some((EventKind::Impact, i));
                            }
                        }
                    }
                    PointMode::P | PointMode::N => {
                        let (xd, xdd) = if i == 0 { (self.x1(&st.qd), x1dd) } else { (st.qd[2], qdd[2]) };
                        if xd * xdd < 0.0 {
                            let tau = -xd / xdd;
                            if tau < dt {
                                dt = tau;
                                what = Some((EventKind::SlipStop, i));
                            }
                        }
                    }
                    PointMode::S => {}
                }
            }
            let phase =
                Phase { t0: t, duration: dt, mode, start: st, qdd, x1: [self.x1(&st.q), self.x1(&st.qd), x1dd] };
            let Some((kind, i)) = what else {
                phases.push(phase);
                return finish(phases, events, Outcome::MovesAway, t);
            };
            let (q, qd, _) = phase.at(t + dt);
            if settings.record_phases {
                phases.push(phase);
            }
            t += dt;
            let before = State { q, qd };
            st = before;
            for k in 0..2 {
                if sustained[k] {
                    st.q[k] = 0.0;
                    st.qd[k] = 0.0;
                }
            }
            match kind {
                EventKind::Impact => {
                    st.q[i] = 0.0; // lands exactly; the impact is applied at the top of the loop
                }
                EventKind::SlipStop => {
                    if i == 1 {
                        st.qd[2] = 0.0;
                    } else if self.zod.e[2] != 0.0 {
                        // ẋ₁ = e·q̇ = 0 exactly, adjusting ẋ₂.
                        st.qd[2] = -(self.zod.e[0] * st.qd[0] + self.zod.e[1] * st.qd[1]) / self.zod.e[2];
                    }
                    let ev = Event { t, kind, point: Some(i), mode, section: false, before, after: st };
                    let halt = stop(&ev);
                    events.push(ev);
                    if halt {
                        return finish(phases, events, Outcome::Limit, t);
                    }
                }
                EventKind::Zeno => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::p1::config;

    fn sim(name: &str) -> Simulator {
        Simulator::new(Zod::new(&config(name).unwrap()).unwrap()).unwrap()
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
        let tr = s.run(State { q: [0.0; 3], qd: [0.0; 3] }, [true, true], &SimSettings::default()).unwrap();
        assert_eq!(tr.outcome, Outcome::Rest);
        assert!(tr.events.is_empty());
    }

    #[test]
    fn small_lift_of_point_2_settles_for_stable_config_b() {
        // Lift point 2 slightly and release: configuration B is stable (P1, Theorem 5).
        let s = sim("B");
        let tr = s.run(State { q: [0.0, 1e-4, 0.0], qd: [0.0; 3] }, [true, false], &SimSettings::default()).unwrap();
        assert!(matches!(tr.outcome, Outcome::Rest), "{:?} after {} events", tr.outcome, tr.events.len());
        assert!(tr.events.iter().any(|e| e.kind == EventKind::Impact));
    }

    #[test]
    fn small_lift_diverges_for_unstable_config_d() {
        let s = sim("D");
        let tr = s
            .run(
                State { q: [0.0, 1e-4, 0.0], qd: [0.0; 3] },
                [true, false],
                &SimSettings { diverge_ratio: 1e2, ..Default::default() },
            )
            .unwrap();
        assert_eq!(tr.outcome, Outcome::Diverged, "{:?} after {} events", tr.outcome, tr.events.len());
    }
}
