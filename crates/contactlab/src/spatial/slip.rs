//! How a slip of a contact of a robot in 3-D ends (P2, Sections 3.3 and 4.2, with a slip
//! direction that turns): it sticks, restarts in another direction (a reversal: the direction
//! it restarts in is given), separates, is cut short by an impact elsewhere, or jams (`B → 0`
//! with `A > 0`, the normal force unbounded).
//!
//! The event driver of [`super::events`] runs the slip while P2's `B(ŝ)` along the current slip
//! direction ([`super::painleve`], the contacts sticking in the mode held) is resolved from zero.
//! Where it falls below [`SWITCH`] of its terms with `A > 0`, and the contact is the only one
//! slipping, the run continues in Génot and Brogliato's desingularised time, as the planar one
//! does ([`crate::painleve::desingular`]): with `dt = (B/B₀) ds`,
//!
//! ```text
//!     dq/ds = (B/B₀) q̇(q, v),    dv/ds = (B a_H + A P (w_n − μ W_t ŝ)) / B₀,    dt/ds = B/B₀,
//! ```
//!
//! `ŝ = u_t/‖u_t‖` turning with the slip, the sticking contacts held. Its end is the first of:
//! the slip speed falling to the stop speed (stick or a restart, as the contact problem decides
//! there), `A` reaching zero (separation), `B` reaching its resolution ([`RESOLVED`] tolerances
//! of its terms: P2's corner `p₁` approached), another contact's gap closing (impact), a held
//! contact's force leaving its cone or its plane (unresolved). At the floor of `B` the force
//! `A/B` decides as in the planar reading: [`FORCE_DOMINANT`] times its scale, the slip speed
//! resolved, is a jam; otherwise the trend `d ln A / d ln B` over the last two decades of `B`
//! (below 1: jam, above: separation, within [`EXPONENT_MARGIN`]: the corner). On the jam's side
//! the approach is finished as the planar reading finishes it, by its last stretch: at fixed
//! `q` a normal impulse with its friction, the slip direction turning with the slip, to `p₁`
//! (`A = 0`: the jam, with its impulse) or to the slip's stop within it (stick or a restart);
//! a stretch that reaches neither leaves the slip `unresolved`, as in the plane.
//!
//! The direction's turning is reported: the slip direction at the start and the end, and the
//! angle it turned through (signed, from `t₁` toward `t₂`, accumulated over the samples).

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector, Vector2};
use serde::Serialize;

use super::events::modes::{Contact3Mode, Modes3};
use super::events::{join, split, EventScene};
use super::painleve::{held3, parts};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::ode::{Dopri5, Step};
use crate::hybrid::{DriverSettings, EventDriver, EventKind, FailureKind, Hybrid, Observer, Termination, Tolerances};
use crate::numeric::{bisect, side_if, Side, Tol};
use crate::painleve::desingular::{
    slope, Approach, Reading, EXPONENT_MARGIN, FORCE_DOMINANT, MAX_STEPS, RESOLVED, SPEED_RESOLVED, SWITCH,
    TREND_WINDOW,
};
use crate::painleve::slip::SlipOutcome;
use crate::painleve::SlipSettings;

type State = DMatrix<f64>;

/// The end of a slip of a contact in 3-D.
#[derive(Debug, Clone, Serialize)]
pub struct Slip3End {
    /// How it ended.
    pub outcome: SlipOutcome,
    /// When (s).
    pub t_end: f64,
    /// The largest normal force at the contact during the slip (N).
    pub fn_max: f64,
    /// The configuration at the end.
    pub q: Vec<f64>,
    /// The velocities at the end.
    pub v: Vec<f64>,
    /// `A` at the end (the other contacts touching there held).
    pub a_end: f64,
    /// `B` along the slip direction at the end.
    pub b_end: f64,
    /// The slip direction at the start (tangent-plane coordinates).
    pub direction_start: [f64; 2],
    /// The slip direction at the end (before a restart).
    pub direction_end: [f64; 2],
    /// The angle the direction turned through (rad, from `t₁` toward `t₂`).
    pub turned: f64,
    /// After a reversal: the direction the slip restarts in.
    pub restart_direction: Option<[f64; 2]>,
    /// The desingularised run's evidence, when the slip approached `B = 0`.
    pub approach: Option<Approach>,
}

/// The angle of a tangent-plane direction.
fn angle(u: Vector2<f64>) -> f64 {
    u[1].atan2(u[0])
}

/// `a − b` wrapped into `(−π, π]`.
fn wrap(d: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let r = d.rem_euclid(tau);
    if r > std::f64::consts::PI {
        r - tau
    } else {
        r
    }
}

struct Watch<'a, 'b> {
    sys: &'a EventScene<'b>,
    i: usize,
    fn_max: f64,
    started: bool,
    direction: Option<Vector2<f64>>,
    first: Option<Vector2<f64>>,
    turned: f64,
    end: Option<(SlipOutcome, f64, State, Option<[f64; 2]>)>,
    switch: Option<(f64, State, Modes3)>,
}

impl Watch<'_, '_> {
    fn sample(&mut self, x: &State, mode: &Modes3) {
        let Contact3Mode::Slip(_) = mode.get(self.i) else { return };
        let nq = self.sys.scene().tree.nq();
        let (q, v) = split(x, nq);
        if let Some(sol) = self.sys.solve_mode(mode, 0.0, q.as_slice(), v.as_slice()) {
            self.fn_max = self.fn_max.max(sol.force[self.i][0]);
        }
        if let Some(k) = self.sys.kinematics(q.as_slice(), &[self.i]) {
            let u = &k[0].rows * &v;
            let ut = Vector2::new(u[1], u[2]);
            if ut.norm() > self.sys.stop_speed() {
                let d = ut.normalize();
                if let Some(prev) = self.direction {
                    self.turned += wrap(angle(d) - angle(prev));
                }
                self.first.get_or_insert(d);
                self.direction = Some(d);
            }
        }
    }

    fn held(mode: &Modes3) -> Vec<usize> {
        (0..mode.len()).filter(|&j| mode.get(j) == Contact3Mode::Stick).collect()
    }

    fn only_slip(&self, mode: &Modes3) -> bool {
        (0..mode.len()).all(|j| j == self.i || !matches!(mode.get(j), Contact3Mode::Slip(_)))
    }
}

impl Observer<State, Modes3> for Watch<'_, '_> {
    fn on_start(&mut self, _t: f64, x: &State, mode: &Modes3) {
        self.started = matches!(mode.get(self.i), Contact3Mode::Slip(_));
        if let Contact3Mode::Slip(d) = mode.get(self.i) {
            self.first = Some(Vector2::new(d[0], d[1]));
        }
        self.sample(x, mode);
    }

    fn on_step(&mut self, step: &Step<State>, t_end: f64, mode: &Modes3) -> ControlFlow<()> {
        if !self.started {
            // Not slipping at the start: nothing to follow.
            return ControlFlow::Break(());
        }
        for (_, x) in step.samples(t_end, 4) {
            self.sample(&x, mode);
        }
        if t_end == step.t1() && matches!(mode.get(self.i), Contact3Mode::Slip(_)) && self.only_slip(mode) {
            let nq = self.sys.scene().tree.nq();
            let (q, v) = split(&step.y1, nq);
            if let Some(p) = parts(self.sys, q.as_slice(), v.as_slice(), self.i, &Self::held(mode)) {
                if p.slip.norm() > 0.0 {
                    let b = p.b(p.slip.normalize());
                    if p.a > 0.0 && b > 0.0 && b < SWITCH * p.b_scale() {
                        self.switch = Some((t_end, step.y1.clone(), *mode));
                        return ControlFlow::Break(());
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn on_event(&mut self, ev: &EventRecord<State, Modes3>) -> ControlFlow<()> {
        let i = self.i;
        let was_slipping = matches!(ev.mode_before.get(i), Contact3Mode::Slip(_));
        // The contact's own mode after the event decides, whichever contact fired: a group of
        // contacts can lift off or stop together (a symmetric edge's two corners).
        let outcome = match (ev.info.kind, ev.info.contact, ev.mode_after.get(i)) {
            (EventKind::Impact, Some(j), _) if j != i => Some((SlipOutcome::Impact, None)),
            _ if !was_slipping => None,
            (_, _, Contact3Mode::Stick) => Some((SlipOutcome::Stick, None)),
            (_, _, Contact3Mode::Free) => Some((SlipOutcome::Separation, None)),
            (EventKind::SlipStop, Some(j), Contact3Mode::Slip(d)) if j == i => Some((SlipOutcome::Reversal, Some(d))),
            // Another contact changing mode changes the held set; the slip goes on.
            _ => None,
        };
        match outcome {
            Some((o, d)) => {
                self.end = Some((o, ev.t, ev.before.clone(), d));
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    }
}

/// Runs the scene from `(q, v)` until the slip of contact `i` ends (module docs).
pub fn slip3(sys: &EventScene<'_>, q: &[f64], v: &[f64], i: usize, settings: &SlipSettings) -> Slip3End {
    let nq = sys.scene().tree.nq();
    let t_max = settings.max_step_time * sys.time();
    let driver = EventDriver::new(DriverSettings {
        tol: Tolerances { rtol: settings.rtol, atol: settings.rtol },
        t_max,
        max_events: 200,
        ..Default::default()
    });
    let mut watch = Watch {
        sys,
        i,
        fn_max: 0.0,
        started: false,
        direction: None,
        first: None,
        turned: 0.0,
        end: None,
        switch: None,
    };
    let x0 = join(&DVector::from_column_slice(q), &DVector::from_column_slice(v));
    let run = driver.run(sys, 0.0, x0, &[], &mut watch);
    let mut approach = None;
    let (outcome, t, x, restart) = match (watch.switch.take(), watch.end.take(), &run.termination) {
        (Some((t0, x0, mode)), _, _) => {
            let (o, t, x, a, fmax, restart) = desingular3(&mut watch, t0, &x0, &mode, settings, t_max);
            watch.fn_max = watch.fn_max.max(fmax);
            approach = Some(a);
            (o, t, x, restart)
        }
        (None, Some((o, t, x, d)), _) => (o, t, x, d),
        (None, None, Termination::Failed(f)) => {
            let o = match f.kind {
                FailureKind::Painleve => SlipOutcome::Inconsistent,
                FailureKind::Indeterminate => SlipOutcome::Indeterminate,
                _ => SlipOutcome::Unresolved,
            };
            (o, run.t, run.state.clone(), None)
        }
        (None, None, _) if !watch.started => (SlipOutcome::NotSlipping, run.t, run.state.clone(), None),
        (None, None, _) => (SlipOutcome::Unresolved, run.t, run.state.clone(), None),
    };
    let (qe, ve) = split(&x, nq);
    let held: Vec<usize> = {
        let gaps = sys.gaps(qe.as_slice());
        (0..sys.nc()).filter(|&j| j != i && gaps[j].abs() <= 1e-9 * sys.length()).collect()
    };
    let end_parts = parts(sys, qe.as_slice(), ve.as_slice(), i, &held);
    let dir_end = watch.direction.unwrap_or_else(|| watch.first.unwrap_or(Vector2::new(1.0, 0.0)));
    let first = watch.first.unwrap_or(dir_end);
    Slip3End {
        outcome,
        t_end: t,
        fn_max: watch.fn_max,
        q: qe.iter().copied().collect(),
        v: ve.iter().copied().collect(),
        a_end: end_parts.map_or(f64::NAN, |p| p.a),
        b_end: end_parts.map_or(f64::NAN, |p| p.b(dir_end)),
        direction_start: [first[0], first[1]],
        direction_end: [dir_end[0], dir_end[1]],
        turned: watch.turned,
        restart_direction: restart,
        approach,
    }
}

/// `y = [q; v; t]`.
fn stack(x: &State, t: f64) -> State {
    DMatrix::from_iterator(x.nrows() + 1, 1, x.iter().copied().chain(std::iter::once(t)))
}

/// The desingularised run's signs at `y`: slip speed over the stop speed, `A`, `B` relative to
/// their terms, the free contacts' gaps relative to the length, the held contacts' cone
/// margins; and `(A, B, a_scale, b_scale, slip direction)`.
struct Signs {
    slip: f64,
    a_rel: f64,
    b_rel: f64,
    gap: f64,
    held: f64,
    a: f64,
    b: f64,
    dir: Vector2<f64>,
    speed: f64,
}

struct Run3<'a, 'b> {
    sys: &'a EventScene<'b>,
    i: usize,
    held: Vec<usize>,
    free: Vec<usize>,
    b0: f64,
    nq: usize,
}

impl Run3<'_, '_> {
    /// `(q, v)` of `y` with the quaternions normalised.
    fn qv(&self, y: &State) -> (Vec<f64>, Vec<f64>) {
        let s = y.as_slice();
        let mut q = s[..self.nq].to_vec();
        self.sys.scene().tree.normalize(&mut q);
        (q, s[self.nq..s.len() - 1].to_vec())
    }

    /// The rescaled field (module docs); NaN where it cannot be computed.
    fn field(&self, y: &State) -> State {
        let (q, v) = self.qv(y);
        let bad = || State::repeat(y.nrows(), 1, f64::NAN);
        let (Some(h), Some(kin)) = (held3(self.sys, &q, &v, &self.held), self.sys.kinematics(&q, &[self.i])) else {
            return bad();
        };
        let rows = &kin[0].rows;
        let wn = rows.row(0).transpose();
        let vv = DVector::from_column_slice(&v);
        let u = rows * &vv;
        let ut = Vector2::new(u[1], u[2]);
        if ut.norm() == 0.0 {
            return bad();
        }
        let s = ut.normalize();
        let mu = self.sys.contacts()[self.i].mu;
        let force = &wn - (rows.row(1).transpose() * s[0] + rows.row(2).transpose() * s[1]) * mu;
        let g = &h.p * &force;
        let drift = self.sys.drift(&q, &v, self.i, &kin[0]);
        let a = -wn.dot(&h.a) - drift[0];
        let b = wn.dot(&g);
        let qdot = self.sys.scene().tree.qdot(&q, &v);
        let dv = (&h.a * b + &g * a) / self.b0;
        let r = b / self.b0;
        DMatrix::from_iterator(
            y.nrows(),
            1,
            qdot.iter().map(|x| x * r).chain(dv.iter().copied()).chain(std::iter::once(r)),
        )
    }

    fn signs(&self, y: &State) -> Option<Signs> {
        let (q, v) = self.qv(y);
        let p = parts(self.sys, &q, &v, self.i, &self.held)?;
        if p.slip.norm() == 0.0 {
            return None;
        }
        let dir = p.slip.normalize();
        let b = p.b(dir);
        let gaps = self.sys.gaps(&q);
        let gap = self.free.iter().map(|&j| gaps[j] / self.sys.length()).fold(f64::INFINITY, f64::min);
        // The held contacts' forces λ₀ − K F f_n, times B > 0 (a cone is a cone).
        let h = held3(self.sys, &q, &v, &self.held)?;
        let kin = self.sys.kinematics(&q, &[self.i])?;
        let rows = &kin[0].rows;
        let force =
            rows.row(0).transpose() - (rows.row(1).transpose() * dir[0] + rows.row(2).transpose() * dir[1]) * p.mu;
        let lam = &h.lambda0 * b + (&h.k * &force) * (-p.a);
        let mut held = f64::INFINITY;
        for (k, &j) in self.held.iter().enumerate() {
            let (n, t1, t2) = (lam[3 * k], lam[3 * k + 1], lam[3 * k + 2]);
            let scale = lam.amax().max(f64::MIN_POSITIVE);
            held = held.min(n / scale).min((self.sys.contacts()[j].mu * n - Vector2::new(t1, t2).norm()) / scale);
        }
        Some(Signs {
            slip: p.slip.norm() / self.sys.stop_speed() - 1.0,
            a_rel: p.a / p.a_scale,
            b_rel: b / p.b_scale(),
            gap,
            held,
            a: p.a,
            b,
            dir,
            speed: p.slip.norm(),
        })
    }
}

/// Which end the signs show, if any (the order of the module docs).
fn ended(s: &Signs, floor: f64) -> Option<Reading> {
    if s.slip <= 0.0 {
        Some(Reading::SlipStopped)
    } else if s.a_rel <= floor {
        Some(Reading::AReachedZero)
    } else if s.b_rel <= floor {
        Some(Reading::ReachedP1)
    } else if s.gap <= -floor {
        Some(Reading::OtherContact)
    } else if s.held < 0.0 {
        Some(Reading::HeldReleased)
    } else {
        None
    }
}

/// The desingularised run from `(t0, x0)` in `mode` (module docs): the outcome, time, state,
/// evidence, largest normal force and (after a stop) the restart direction.
fn desingular3(
    watch: &mut Watch<'_, '_>,
    t0: f64,
    x0: &State,
    mode: &Modes3,
    settings: &SlipSettings,
    t_max: f64,
) -> (SlipOutcome, f64, State, Approach, f64, Option<[f64; 2]>) {
    let sys = watch.sys;
    let nq = sys.scene().tree.nq();
    let held = Watch::held(mode);
    // The free contacts that may strike (a walking rule's passing foot may be below the ground).
    let unarmed = sys.unarmed(&x0.as_slice()[..nq], |j| mode.get(j).closed());
    let free: Vec<usize> = (0..mode.len()).filter(|&j| mode.get(j) == Contact3Mode::Free && !unarmed[j]).collect();
    let mut run = Run3 { sys, i: watch.i, held, free, b0: 1.0, nq };
    let floor = RESOLVED * settings.rtol;
    let mut approach = Approach::starting(t0);
    let y0 = stack(x0, t0);
    let Some(s0) = run.signs(&y0) else {
        return (SlipOutcome::Unresolved, t0, x0.clone(), approach, 0.0, None);
    };
    approach.b_rel_switch = s0.b_rel;
    run.b0 = s0.b;
    let (qs, vs) = sys.scales();
    let mut scale = DMatrix::from_iterator(nq + vs.len() + 1, 1, qs.iter().chain(vs).copied().chain([sys.time()]));
    scale.iter_mut().for_each(|x| *x = x.max(f64::MIN_POSITIVE));
    let tol = Tolerances { rtol: settings.rtol, atol: settings.rtol };
    let mut ode = Dopri5::new(tol, scale, sys.time());
    let field = |y: &State| run.field(y);
    let (mut s, mut y) = (0.0, y0);
    let mut tail: Vec<(f64, f64)> = vec![];
    let mut end: Option<(Reading, f64, State)> = None;
    if ode.restart(&mut |_s, y: &State| field(y), s, &y).is_err() {
        end = Some((Reading::Budget, s, y.clone()));
    }
    let time = |y: &State| y[y.nrows() - 1];
    while end.is_none() {
        if approach.steps >= MAX_STEPS || time(&y) > t_max {
            end = Some((Reading::Budget, s, y.clone()));
            break;
        }
        let step = match ode.step(&mut |_s, y: &State| field(y), s, &y, f64::INFINITY) {
            Ok(st) => st,
            Err(_) => {
                end = Some((Reading::Budget, s, y.clone()));
                break;
            }
        };
        approach.steps += 1;
        let Some(sg) = run.signs(&step.y1) else {
            end = Some((Reading::HeldReleased, step.t1(), step.y1.clone()));
            break;
        };
        if ended(&sg, floor).is_some() {
            // The first end within the step, bisected on its dense output.
            let stops = |m: f64| run.signs(&step.eval(m)).is_none_or(|g| ended(&g, floor).is_some());
            let hi = bisect(step.t0, step.t1(), Tol::ROUNDOFF, |m| side_if(stops(m))).hi;
            let ye = step.eval(hi);
            let reading = run.signs(&ye).and_then(|g| ended(&g, floor)).unwrap_or(Reading::HeldReleased);
            end = Some((reading, hi, ye));
            break;
        }
        (s, y) = (step.t1(), step.y1.clone());
        approach.fn_max = approach.fn_max.max(sg.a / sg.b);
        if sg.b_rel <= TREND_WINDOW * floor && sg.a_rel > floor {
            tail.push((sg.b_rel.ln(), sg.a_rel.ln()));
        }
        watch.turned += wrap(angle(sg.dir) - angle(watch.direction.unwrap_or(sg.dir)));
        watch.direction = Some(sg.dir);
    }
    let (mut reading, s_end, y_end) = end.expect("the loop ends with an end");
    approach.s_end = s_end;
    let sg = run.signs(&y_end);
    if let Some(g) = &sg {
        approach.a_rel = g.a_rel;
        approach.b_rel = g.b_rel;
        approach.slip_speed = g.speed;
        approach.slip_speed_rel = g.speed / (sys.length() / sys.time());
        approach.force_rel = g.a_rel / g.b_rel;
        watch.turned += wrap(angle(g.dir) - angle(watch.direction.unwrap_or(g.dir)));
        watch.direction = Some(g.dir);
    }
    let mut y_end = y_end;
    if reading == Reading::ReachedP1 {
        approach.exponent = slope(&tail);
        let f_rel = approach.force_rel;
        reading = match approach.exponent {
            _ if f_rel >= FORCE_DOMINANT => Reading::ReachedP1,
            None => Reading::NoTrend,
            Some((e, se)) if e < 1.0 - EXPONENT_MARGIN.max(3.0 * se) => Reading::ReachedP1,
            Some((e, se)) if e > 1.0 + EXPONENT_MARGIN.max(3.0 * se) => Reading::AVanishesFirst,
            _ => Reading::Balanced,
        };
        // The jam side: the last stretch in the impulse, to p₁ or to the slip's stop.
        if reading == Reading::ReachedP1 {
            match last_stretch3(&run, &y_end, settings.rtol) {
                Some(st) => {
                    (reading, y_end) = (st.reading, st.state);
                    approach.impulse = Some(st.impulse);
                    watch.turned += st.turned;
                    if let Some(g) = run.signs(&y_end) {
                        approach.a_rel = g.a_rel;
                        approach.b_rel = g.b_rel;
                        approach.slip_speed = g.speed;
                        approach.slip_speed_rel = g.speed / (sys.length() / sys.time());
                        if g.speed > sys.stop_speed() {
                            watch.direction = Some(g.dir);
                        }
                    } else {
                        // The slip stopped: its speed is below the stop speed.
                        approach.slip_speed = 0.0;
                        approach.slip_speed_rel = 0.0;
                    }
                }
                None => reading = Reading::HeldReleased,
            }
        }
    }
    approach.reading = reading;
    let t_end = time(&y_end);
    let x_end = DMatrix::from_column_slice(y_end.nrows() - 1, 1, &y_end.as_slice()[..y_end.nrows() - 1]);
    let mut restart = None;
    let outcome = match reading {
        Reading::SlipStopped => {
            // The contact problem there decides: stick, or a slip in a new direction.
            let mut xs = x_end.clone();
            match sys.initial_mode(t_end, &mut xs) {
                Ok(m) => match m.get(watch.i) {
                    Contact3Mode::Stick => SlipOutcome::Stick,
                    Contact3Mode::Slip(d) => {
                        restart = Some(d);
                        SlipOutcome::Reversal
                    }
                    Contact3Mode::Free => SlipOutcome::Separation,
                },
                Err(_) => SlipOutcome::Unresolved,
            }
        }
        Reading::AReachedZero | Reading::AVanishesFirst => SlipOutcome::Separation,
        Reading::Balanced => SlipOutcome::Corner,
        Reading::ReachedP1 if approach.slip_speed_rel > SPEED_RESOLVED => SlipOutcome::Jam,
        Reading::ReachedP1 => SlipOutcome::Corner,
        Reading::OtherContact => SlipOutcome::Impact,
        _ => SlipOutcome::Unresolved,
    };
    let fmax = approach.fn_max;
    (outcome, t_end, x_end, approach, fmax, restart)
}

/// Largest impulse of the last stretch, in units that change the velocities by their scales.
const STRETCH_REACH: f64 = 1e6;

/// Accepted steps of the last stretch's integration in the impulse.
const STRETCH_STEPS: usize = 10_000;

/// The last stretch of an approach at `B = 0` from `y` (the planar reading's, module docs of
/// [`crate::painleve::desingular`]), in 3-D: at fixed `q` and `t` the contact's normal impulse
/// `P` with its friction against the slip, the held contacts held, and the slip direction
/// turning with the slip (a tangential impact with a turning slip):
///
/// ```text
///     dv/dP = P_H (w_n − μ W_t ŝ(v)),    ŝ = u_t/‖u_t‖,
/// ```
///
/// integrated (DOPRI5, in units of the impulse that changes the velocities by their scales) to
/// the first zero of `A(q, v)` (`p₁`: the jam, with its impulse) or of the slip speed (the slip
/// stops within the impulse; the contact problem there decides stick or a restart). The
/// reading, `P` (N s), the state `[q; v; t]` there and the slip's turn within the stretch;
/// `None` when the parts cannot be computed or neither end comes within [`STRETCH_REACH`] (the
/// slip is then unresolved, as in the planar reading).
/// The end of a last stretch ([`last_stretch3`]).
struct Stretch {
    /// `ReachedP1` (A reached zero) or `SlipStopped`.
    reading: Reading,
    /// The normal impulse `P` (N s).
    impulse: f64,
    /// `[q; v; t]` there.
    state: State,
    /// The angle the slip direction turned through within the stretch (rad).
    turned: f64,
}

fn last_stretch3(run: &Run3<'_, '_>, y: &State, rtol: f64) -> Option<Stretch> {
    let sys = run.sys;
    let (q, v0) = run.qv(y);
    let t = y[y.nrows() - 1];
    let nv = v0.len();
    let h0 = held3(sys, &q, &v0, &run.held)?;
    let kin = sys.kinematics(&q, &[run.i])?;
    let rows = &kin[0].rows;
    let wn = rows.row(0).transpose();
    let mu = sys.contacts()[run.i].mu;
    let slip = |v: &DVector<f64>| {
        let u = rows * v;
        Vector2::new(u[1], u[2])
    };
    // The velocity change per unit normal impulse along the current slip.
    let per_unit = |v: &DVector<f64>| -> Option<DVector<f64>> {
        let s = slip(v);
        (s.norm() > 0.0).then(|| {
            let s = s.normalize();
            &h0.p * (&wn - (rows.row(1).transpose() * s[0] + rows.row(2).transpose() * s[1]) * mu)
        })
    };
    let a_of = |v: &DVector<f64>| -> Option<f64> {
        let h = held3(sys, &q, v.as_slice(), &run.held)?;
        let a = -wn.dot(&h.a) - sys.drift(&q, v.as_slice(), run.i, &kin[0])[0];
        a.is_finite().then_some(a)
    };
    let (_, vs) = sys.scales();
    let v0 = DVector::from_column_slice(&v0);
    let g0 = per_unit(&v0)?;
    let reach = (0..nv).map(|k| g0[k].abs() / vs[k]).fold(0.0, f64::max);
    if !(reach > 0.0 && reach.is_finite()) {
        return None;
    }
    let stop = sys.stop_speed();
    // Whether the stretch has ended at `v`: the slip stopped or A reached zero; `None` where A
    // cannot be computed (the stretch then gives up, as the planar one does).
    let ends = |v: &State| -> Option<bool> {
        let v = DVector::from_column_slice(v.as_slice());
        if slip(&v).norm() <= stop {
            return Some(true);
        }
        a_of(&v).map(|a| a <= 0.0)
    };
    let mut field = |_p: f64, v: &State| -> State {
        let v = DVector::from_column_slice(v.as_slice());
        match per_unit(&v) {
            Some(g) => State::from_iterator(nv, 1, g.iter().map(|x| x / reach)),
            None => State::repeat(nv, 1, f64::NAN),
        }
    };
    let direction = |v: &State| slip(&DVector::from_column_slice(v.as_slice()));
    let scale = State::from_iterator(nv, 1, vs.iter().map(|x| x.max(f64::MIN_POSITIVE)));
    let mut ode = Dopri5::new(Tolerances { rtol, atol: rtol }, scale, 1.0);
    let (mut p, mut v) = (0.0, State::from_column_slice(nv, 1, v0.as_slice()));
    let mut turned = 0.0;
    ode.restart(&mut field, p, &v).ok()?;
    for _ in 0..STRETCH_STEPS {
        let step = ode.step(&mut field, p, &v, STRETCH_REACH - p).ok()?;
        if ends(&step.y1)? {
            let b = bisect(step.t0, step.t1(), Tol::ROUNDOFF, |m| ends(&step.eval(m)).map_or(Side::Stop, side_if));
            if b.stopped {
                return None;
            }
            let vh = DVector::from_column_slice(step.eval(b.hi).as_slice());
            // A slip that stops ends at the stop; at p₁ the state is the last one with A > 0.
            let (reading, at) =
                if slip(&vh).norm() <= stop { (Reading::SlipStopped, b.hi) } else { (Reading::ReachedP1, b.lo) };
            let ve = step.eval(at);
            let (d0, d1) = (direction(&v), direction(&ve));
            if d0.norm() > stop && d1.norm() > stop {
                turned += wrap(angle(d1) - angle(d0));
            }
            let ye = State::from_iterator(y.nrows(), 1, q.iter().chain(ve.iter()).copied().chain(std::iter::once(t)));
            return Some(Stretch { reading, impulse: at / reach, state: ye, turned });
        }
        let (d0, d1) = (direction(&v), direction(&step.y1));
        turned += wrap(angle(d1) - angle(d0));
        (p, v) = (step.t1(), step.y1.clone());
        if p >= STRETCH_REACH {
            return None;
        }
    }
    None
}

/// The smallest initial slip speed (m/s, up to `v_max`) of contact `i` from `(q, v)` whose slip
/// jams, along the state's own slip direction: the starts are `v₀ + e s`, where `v₀` is `v` with
/// the contact's tangential velocity removed and `e` the least kinetic-energy velocity that
/// slides the contact at unit speed along that direction, both leaving its normal velocity as
/// it is (`e = M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹(0, ŝ)`, `J` the contact's normal and tangent rows). Bisection to
/// `tol` (relative) of the threshold, as the planar [`crate::painleve::slip::jam_threshold`].
/// `Ok(None)` when even `v_max` does not jam; an error when the contact does not slip at the
/// state (its direction sets the family) or its rows are dependent.
pub fn jam_threshold3(
    sys: &EventScene<'_>,
    q: &[f64],
    v: &[f64],
    i: usize,
    v_max: f64,
    tol: f64,
    settings: &SlipSettings,
) -> Result<Option<f64>, crate::Error> {
    use nalgebra::{DVector, Vector3};
    let tree = &sys.scene().tree;
    let (_, j) = sys
        .contact_rows(q, i)
        .ok_or_else(|| crate::Error::argument("contact", "it has no contact point with its plane at the state"))?;
    let vv = DVector::from_column_slice(v);
    let u = &j * &vv;
    let slip = u[1].hypot(u[2]);
    if slip.is_nan() || slip <= SPEED_RESOLVED * sys.length() / sys.time() {
        return Err(crate::Error::argument(
            "state",
            "the contact does not slip at the state: its slip direction sets the starts tried (give a state where it slides)",
        ));
    }
    let minv = tree
        .mass_matrix(q)
        .cholesky()
        .ok_or_else(|| crate::Error::Numerical("the mass matrix is not positive definite".into()))?
        .inverse();
    let jt = j.transpose();
    let a = (&j * &minv * &jt).try_inverse().ok_or_else(|| {
        crate::Error::argument("contact", "its normal and tangent rows are dependent: it cannot slide")
    })?;
    let g = &minv * &jt * a;
    let e = &g * Vector3::new(0.0, u[1] / slip, u[2] / slip);
    let rest = &vv - &g * Vector3::new(0.0, u[1], u[2]);
    let jams = |s: f64| {
        let start = &rest + &e * s;
        slip3(sys, q, start.as_slice(), i, settings).outcome == SlipOutcome::Jam
    };
    if !jams(v_max) {
        return Ok(None);
    }
    Ok(Some(bisect(0.0, v_max, Tol { abs: 1e-3 * tol * v_max, rel: tol }, |m| side_if(jams(m))).hi))
}
