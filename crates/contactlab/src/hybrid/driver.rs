//! The event driver: one loop for every hybrid system.
//!
//! [`EventDriver::run`] integrates a [`Hybrid`] system mode by mode, locates events on the
//! dense output, applies the system's transitions, detects Zeno executions and ends with a
//! [`Termination`] reason. Observers ([`Observer`]) see every accepted step and every event and
//! may stop the run; `()` is the observer that does nothing, and pairs of observers observe
//! together.
//!
//! # Event location
//! After every accepted step the guards of the mode are evaluated at its end. A guard fires when
//! it was positive at the start of the step (it is *armed*) and is `≤ 0` at its end; its zero is
//! then located on the dense output by [`crossing`] to `event_tol · time_scale`, and the
//! earliest zero wins. Guards whose zeros lie within that tolerance of the earliest fire
//! together (simultaneous events; the system resolves them jointly, e.g. two contacts landing
//! at once). A guard that starts a mode at zero (a contact that has just lifted off) is armed
//! once it has been seen positive. Between step ends a guard can only be missed if it dips below
//! zero and returns within one step; systems prevent that with [`Hybrid::step_limit`].
//!
//! When the step size collapses below the integrator's floor (`1e-14` of the time scale), the
//! armed guards' zeros are extrapolated linearly along the flow: the earliest, if within
//! [`STALL_HORIZON`] of the time scale, fires at the current time. This is the approach to a
//! pole of the vector field on a guard — a slip's normal force `A/B` as `B → 0` (dynamic
//! jamming) — where the steps shrink with the time left to the pole and the zero cannot be
//! bracketed. Otherwise the run ends as an integration failure.
//!
//! # Zeno executions
//! With [`ZenoRule::Extrapolate`] the driver keeps the last impacts of every contact. When four
//! consecutive impacts of one contact have intervals and approach speeds that shrink with ratios
//! `r ≤ 0.999` (the speed ratio within 10 % of the interval ratio, as near a grazing contact), and the geometric tails `Δ r/(1 − r)` computed from the last two interval ratios
//! agree to `tolerance · time_scale`, the execution is Zeno: the Zeno time is the last impact
//! time plus that tail, the Zeno state the Aitken limit `x₄ + (x₄ − x₃) r/(1 − r)` of the
//! post-impact states, and [`Hybrid::zeno_limit`] continues from it (on the constraint, in the
//! constrained mode). [`ZenoRule::Truncate`] is P3's alternative: an impact slower than a
//! fraction of the fastest impact of the run is replaced by the completion at once.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use serde::Serialize;

use super::ode::{Dopri5, OdeState, Step, StepFailure, Tolerances};
use super::roots::crossing;
use super::{EventInfo, EventKind, FailureKind, Hybrid, ModeFailure, Transition, MAX_GUARDS};

/// How Zeno executions are handled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZenoRule {
    /// Detect geometric accumulation of impacts and extrapolate to the Zeno point (module docs).
    Extrapolate {
        /// Agreement required between the tail estimates, relative to the time scale.
        tolerance: f64,
    },
    /// P3's truncation: an impact whose approach speed is below `speed` times the fastest
    /// impact of the run is completed at once (as a plastic impact onto the constraint).
    Truncate {
        /// Relative speed threshold (P3: `1e-10`).
        speed: f64,
    },
    /// Neither: impacts are simulated one by one until a limit is reached.
    Off,
}

/// Settings of [`EventDriver::run`].
#[derive(Debug, Clone, Copy)]
pub struct DriverSettings {
    /// Integration tolerances.
    pub tol: Tolerances,
    /// Event times are located to this fraction of the system's time scale.
    pub event_tol: f64,
    /// End time.
    pub t_max: f64,
    /// Largest number of events.
    pub max_events: usize,
    /// Largest number of integration steps.
    pub max_steps: usize,
    /// Zeno handling.
    pub zeno: ZenoRule,
    /// Stop as diverged when a state component exceeds this multiple of its scale.
    pub diverge: Option<f64>,
}

impl Default for DriverSettings {
    fn default() -> Self {
        Self {
            tol: Tolerances::default(),
            event_tol: 1e-12,
            t_max: f64::INFINITY,
            max_events: 100_000,
            max_steps: 10_000_000,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            diverge: None,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "reason")]
pub enum Termination {
    /// `t_max` reached.
    TimeLimit,
    /// `max_events` reached.
    EventLimit,
    /// `max_steps` reached.
    StepLimit,
    /// An observer stopped the run.
    Stopped,
    /// An equilibrium was reached ([`Hybrid::at_rest`]).
    Rest,
    /// A state component grew beyond the divergence bound.
    Diverged,
    /// The system's closed form says no further event occurs (the motion goes on for ever).
    NoFurtherEvent,
    /// No consistent mode, several, or no consistent impact: the evidence.
    Failed(ModeFailure),
    /// The integrator could not continue (step size underflow or a non-finite vector field).
    IntegrationFailure {
        /// What failed.
        detail: String,
    },
}

/// One logged event.
#[derive(Debug, Clone, Serialize)]
pub struct EventRecord<S, M> {
    /// Time.
    pub t: f64,
    /// What happened.
    pub info: EventInfo,
    /// The guard (or section index, for [`EventKind::Section`]) that fired.
    pub guard: Option<usize>,
    /// Mode before.
    #[serde(skip)]
    pub mode_before: M,
    /// Mode after.
    #[serde(skip)]
    pub mode_after: M,
    /// State just before.
    #[serde(skip)]
    pub before: S,
    /// State just after.
    #[serde(skip)]
    pub after: S,
}

/// Sees a run as it happens.
pub trait Observer<S, M> {
    /// Called once at the start, with the initial state and mode.
    fn on_start(&mut self, _t: f64, _x: &S, _mode: &M) {}
    /// Called for every accepted step; the step is valid on `[step.t0, t_end]` (`t_end` is
    /// before the step's end when an event cut it short).
    fn on_step(&mut self, _step: &Step<S>, _t_end: f64, _mode: &M) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// Called for every event (section crossings included).
    fn on_event(&mut self, _event: &EventRecord<S, M>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl<S, M> Observer<S, M> for () {}

impl<S, M, A: Observer<S, M>, B: Observer<S, M>> Observer<S, M> for (A, B) {
    fn on_start(&mut self, t: f64, x: &S, mode: &M) {
        self.0.on_start(t, x, mode);
        self.1.on_start(t, x, mode);
    }
    fn on_step(&mut self, step: &Step<S>, t_end: f64, mode: &M) -> ControlFlow<()> {
        let a = self.0.on_step(step, t_end, mode);
        let b = self.1.on_step(step, t_end, mode);
        if a.is_break() || b.is_break() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
    fn on_event(&mut self, event: &EventRecord<S, M>) -> ControlFlow<()> {
        let a = self.0.on_event(event);
        let b = self.1.on_event(event);
        if a.is_break() || b.is_break() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl<S, M, O: Observer<S, M>> Observer<S, M> for &mut O {
    fn on_start(&mut self, t: f64, x: &S, mode: &M) {
        (**self).on_start(t, x, mode)
    }
    fn on_step(&mut self, step: &Step<S>, t_end: f64, mode: &M) -> ControlFlow<()> {
        (**self).on_step(step, t_end, mode)
    }
    fn on_event(&mut self, event: &EventRecord<S, M>) -> ControlFlow<()> {
        (**self).on_event(event)
    }
}

/// Keeps every event.
#[derive(Debug, Clone)]
pub struct EventLog<S, M> {
    /// The events in time order.
    pub events: Vec<EventRecord<S, M>>,
}

impl<S, M> Default for EventLog<S, M> {
    fn default() -> Self {
        Self { events: Vec::new() }
    }
}

impl<S: Clone, M: Clone> Observer<S, M> for EventLog<S, M> {
    fn on_event(&mut self, event: &EventRecord<S, M>) -> ControlFlow<()> {
        self.events.push(event.clone());
        ControlFlow::Continue(())
    }
}

/// Samples the trajectory: the start, `per_step` points inside every step (from its dense
/// output) and every event (before and after).
#[derive(Debug, Clone)]
pub struct Recorder<S> {
    /// Points inside each step (besides its end).
    pub per_step: usize,
    /// `(t, x)` samples in time order.
    pub samples: Vec<(f64, S)>,
}

impl<S> Recorder<S> {
    /// A recorder with `per_step` interior points per step.
    pub fn new(per_step: usize) -> Self {
        Self { per_step, samples: Vec::new() }
    }
}

impl<S: OdeState, M> Observer<S, M> for Recorder<S> {
    fn on_start(&mut self, t: f64, x: &S, _mode: &M) {
        self.samples.push((t, *x));
    }
    fn on_step(&mut self, step: &Step<S>, t_end: f64, _mode: &M) -> ControlFlow<()> {
        self.samples.extend(step.samples(t_end, self.per_step + 1));
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, event: &EventRecord<S, M>) -> ControlFlow<()> {
        if event.info.kind != EventKind::Section {
            self.samples.push((event.t, event.after));
        }
        ControlFlow::Continue(())
    }
}

/// Direction of a section crossing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From negative to positive.
    Increasing,
    /// From positive to negative.
    Decreasing,
    /// Either.
    Both,
}

/// A section function `σ(t, x)`.
pub type SectionFn<'a, S> = Box<dyn Fn(f64, &S) -> f64 + Send + Sync + 'a>;

/// A Poincaré section: a surface `σ(t, x) = 0` crossed in a direction, or the state right after
/// events of a kind (for example every impact of contact 1).
pub enum Section<'a, S> {
    /// A surface `σ(t, x) = 0`.
    Surface {
        /// The section function.
        sigma: SectionFn<'a, S>,
        /// Which crossings count.
        direction: Direction,
    },
    /// The state right after every event of `kind` (of `contact`, if given).
    AfterEvent {
        /// The event kind.
        kind: EventKind,
        /// The contact, or any.
        contact: Option<usize>,
    },
    /// The state right after every event that closes `contact` for a constrained phase
    /// ([`Hybrid::closed`] false before, true after): a plastic impact that stays closed, or a
    /// Zeno point. The section of P3's simple and Zeno periodic orbits.
    Closing {
        /// The contact.
        contact: usize,
    },
}

impl<S> std::fmt::Debug for Section<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Section::Surface { direction, .. } => write!(f, "Surface({direction:?})"),
            Section::AfterEvent { kind, contact } => write!(f, "AfterEvent({kind:?}, {contact:?})"),
            Section::Closing { contact } => write!(f, "Closing({contact})"),
        }
    }
}

/// The end of a run.
#[derive(Debug, Clone)]
pub struct Run<S, M> {
    /// Final time.
    pub t: f64,
    /// Final state.
    pub state: S,
    /// Final mode (`None` when no initial mode exists: see the termination).
    pub mode: Option<M>,
    /// Why it ended.
    pub termination: Termination,
    /// Accepted integration steps (closed-form segments count as steps).
    pub steps: usize,
    /// Events (section crossings excluded).
    pub events: usize,
    /// Vector-field evaluations by the integrator.
    pub evaluations: usize,
}

#[derive(Debug, Clone, Copy)]
struct ImpactMark<S> {
    t: f64,
    speed: f64,
    after: S,
}

/// Runs hybrid systems (module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct EventDriver {
    /// The settings.
    pub settings: DriverSettings,
}

fn fired_set(vals: &[f64], armed: &[bool]) -> bool {
    vals.iter().zip(armed).any(|(v, a)| *a && *v <= 0.0)
}

/// How far ahead (a fraction of the time scale) a guard's zero may lie for a collapse of the
/// step size to be blamed on it. At a pole of the vector field the error control keeps the step
/// near `rtol^(1/5)` of the time left to the pole, so the collapse below `1e-14` of the time
/// scale comes about `1e-12` before it (between `4e-14` and `1.4e-12` at the rimless wheel's
/// jams); `1e-9` leaves three decades for other orders of pole.
pub const STALL_HORIZON: f64 = 1e-9;

/// The armed guards (values `g` at `(t, x)`) whose zeros, extrapolated linearly along the flow
/// (rates from an Euler step of `ttol`), come first and within `horizon`.
#[allow(clippy::too_many_arguments)]
fn imminent_guards<H: Hybrid>(
    sys: &H,
    mode: &H::Mode,
    t: f64,
    x: &H::State,
    ttol: f64,
    horizon: f64,
    g: &[f64],
    armed: &[bool],
    fired: &mut Vec<usize>,
) {
    fired.clear();
    let xp = *x + sys.flow(mode, t, x) * ttol;
    if xp.as_slice().iter().any(|v| !v.is_finite()) {
        return;
    }
    let mut gp = [0.0; MAX_GUARDS];
    sys.guards(mode, t + ttol, &xp, &mut gp[..g.len()]);
    let mut when = [f64::INFINITY; MAX_GUARDS];
    for k in 0..g.len() {
        let rate = (g[k] - gp[k]) / ttol;
        if armed[k] && g[k] > 0.0 && rate > 0.0 {
            when[k] = g[k] / rate;
        }
    }
    let first = when[..g.len()].iter().copied().fold(f64::INFINITY, f64::min);
    if first <= horizon {
        fired.extend((0..g.len()).filter(|&k| when[k] <= first + ttol));
    }
}

impl EventDriver {
    /// A driver with `settings`.
    pub fn new(settings: DriverSettings) -> Self {
        Self { settings }
    }

    /// Runs `sys` from `(t0, x0)` until a termination reason, reporting to `obs` and locating the
    /// crossings of `sections` (reported as [`EventKind::Section`] events, guard = index).
    pub fn run<H: Hybrid, O: Observer<H::State, H::Mode>>(
        &self,
        sys: &H,
        t0: f64,
        x0: H::State,
        sections: &[Section<'_, H::State>],
        obs: &mut O,
    ) -> Run<H::State, H::Mode> {
        let st = &self.settings;
        let mut x = x0;
        let mut t = t0;
        let mut initial_event = None;
        let mode0 = match sys.initial_transition(t, &x) {
            Some(Transition::Jump { state, mode, info }) => {
                initial_event = Some(EventRecord {
                    t,
                    info,
                    guard: None,
                    mode_before: mode,
                    mode_after: mode,
                    before: x,
                    after: state,
                });
                x = state;
                Ok(mode)
            }
            Some(Transition::Failed(f)) => Err(f),
            None => sys.initial_mode(t, &mut x),
        };
        let mode0 = match mode0 {
            Ok(m) => m,
            Err(f) => {
                return Run {
                    t,
                    state: x,
                    mode: None,
                    termination: Termination::Failed(f),
                    steps: 0,
                    events: 0,
                    evaluations: 0,
                }
            }
        };
        let mut mode = mode0;
        obs.on_start(t, &initial_event.as_ref().map_or(x, |e| e.before), &mode);
        let mut events = 0usize;
        if let Some(ev) = &initial_event {
            events += 1;
            if obs.on_event(ev).is_break() {
                return Run {
                    t,
                    state: x,
                    mode: Some(mode),
                    termination: Termination::Stopped,
                    steps: 0,
                    events,
                    evaluations: 0,
                };
            }
        }
        let ts = sys.time_scale();
        let ttol = st.event_tol * ts;
        let scale = sys.state_scale();
        let mut ode = Dopri5::new(st.tol, scale, ts);
        let mut restart = true;
        let mut steps = 0usize;
        let mut gbuf = [0.0; MAX_GUARDS];
        let mut g1 = [0.0; MAX_GUARDS];
        let mut gprev = [0.0; MAX_GUARDS];
        let mut armed = [false; MAX_GUARDS];
        let mut sec_prev: Vec<f64> = vec![0.0; sections.len()];
        let mut history: Vec<VecDeque<ImpactMark<H::State>>> = Vec::new();
        let mut fastest_impact = 0.0f64;
        let mut fired: Vec<usize> = Vec::with_capacity(4);

        macro_rules! finish {
            ($term:expr) => {
                return Run {
                    t,
                    state: x,
                    mode: Some(mode),
                    termination: $term,
                    steps,
                    events,
                    evaluations: ode.evaluations,
                }
            };
        }

        loop {
            if sys.at_rest(&mode, &x) {
                finish!(Termination::Rest);
            }
            if t >= st.t_max {
                finish!(Termination::TimeLimit);
            }
            if events >= st.max_events {
                finish!(Termination::EventLimit);
            }
            if steps >= st.max_steps {
                finish!(Termination::StepLimit);
            }
            if sys.diverged(t, &x) {
                finish!(Termination::Diverged);
            }
            if let Some(d) = st.diverge {
                let xs = x.as_slice();
                let ss = scale.as_slice();
                if xs.iter().zip(ss).any(|(v, s)| v.is_nan() || v.abs() > d * s) {
                    finish!(Termination::Diverged);
                }
            }
            let ng = sys.guard_count(&mode);
            if ng > MAX_GUARDS {
                finish!(Termination::IntegrationFailure { detail: format!("{ng} guards (at most {MAX_GUARDS})") });
            }
            // One segment: closed form or one integration step.
            let (te, xe);
            fired.clear();
            if let Some(ev) = sys.next_event(&mode, t, &x) {
                steps += 1;
                if !ev.dt.is_finite() {
                    finish!(Termination::NoFurtherEvent);
                }
                if t + ev.dt > st.t_max {
                    finish!(Termination::TimeLimit);
                }
                te = t + ev.dt;
                xe = ev.state;
                if let Some(seg) = &ev.segment {
                    if self.report_sections(sys, sections, seg, te, &mut sec_prev, &mode, true, obs).is_break() {
                        finish!(Termination::Stopped);
                    }
                    if obs.on_step(seg, te, &mode).is_break() {
                        t = te;
                        x = xe;
                        finish!(Termination::Stopped);
                    }
                }
                fired.push(ev.guard);
            } else {
                let mut f = |tt: f64, y: &H::State| sys.flow(&mode, tt, y);
                if restart {
                    if let Err(e) = ode.restart(&mut f, t, &x) {
                        finish!(Termination::IntegrationFailure { detail: format!("{e} at t = {t}") });
                    }
                    restart = false;
                    sys.guards(&mode, t, &x, &mut gbuf[..ng]);
                    for k in 0..ng {
                        armed[k] = gbuf[k] > 0.0;
                        gprev[k] = gbuf[k];
                    }
                    for (k, s) in sections.iter().enumerate() {
                        if let Section::Surface { sigma, .. } = s {
                            sec_prev[k] = sigma(t, &x);
                        }
                    }
                }
                // A step limit below round-off of t would stall the run: floor it.
                let floor = 64.0 * f64::EPSILON * t.abs().max(ts);
                let hmax = (st.t_max - t).min(sys.step_limit(&mode, t, &x).max(floor)).max(0.0);
                let step = match ode.step(&mut f, t, &x, hmax) {
                    Ok(s) => Some(s),
                    Err(StepFailure::StepTooSmall) => {
                        // The step size collapsed. If a guard's zero lies just ahead along the
                        // flow, the collapse is that event's approach (a pole of the vector field
                        // on the guard, as at dynamic jamming): it fires here, as the driver
                        // cannot place it any better.
                        imminent_guards(
                            sys,
                            &mode,
                            t,
                            &x,
                            ttol,
                            STALL_HORIZON * ts,
                            &gprev[..ng],
                            &armed[..ng],
                            &mut fired,
                        );
                        if fired.is_empty() {
                            finish!(Termination::IntegrationFailure {
                                detail: format!("step size underflow at t = {t}")
                            })
                        }
                        None
                    }
                    Err(e) => finish!(Termination::IntegrationFailure { detail: format!("{e} at t = {t}") }),
                };
                if let Some(step) = step {
                    steps += 1;
                    sys.guards(&mode, step.t1(), &step.y1, &mut g1[..ng]);
                    if !fired_set(&g1[..ng], &armed[..ng]) {
                        if self
                            .report_sections(sys, sections, &step, step.t1(), &mut sec_prev, &mode, false, obs)
                            .is_break()
                        {
                            finish!(Termination::Stopped);
                        }
                        let flow = obs.on_step(&step, step.t1(), &mode);
                        t = step.t1();
                        x = step.y1;
                        for k in 0..ng {
                            armed[k] |= g1[k] > 0.0;
                        }
                        gprev[..ng].copy_from_slice(&g1[..ng]);
                        if flow.is_break() {
                            finish!(Termination::Stopped);
                        }
                        continue;
                    }
                    // Locate the earliest zero among the armed guards that crossed.
                    let mut roots: [(f64, usize); MAX_GUARDS] = [(f64::INFINITY, 0); MAX_GUARDS];
                    let mut nr = 0;
                    let mut gk = [0.0; MAX_GUARDS];
                    for k in 0..ng {
                        if armed[k] && g1[k] <= 0.0 {
                            let g0 = gprev[k];
                            let r = if g0 > 0.0 {
                                crossing(
                                    |tt| {
                                        let y = step.eval(tt);
                                        sys.guards(&mode, tt, &y, &mut gk[..ng]);
                                        gk[k]
                                    },
                                    step.t0,
                                    g0,
                                    step.t1(),
                                    g1[k],
                                    ttol,
                                )
                            } else {
                                step.t0
                            };
                            roots[nr] = (r, k);
                            nr += 1;
                        }
                    }
                    let tmin = roots[..nr].iter().fold(f64::INFINITY, |a, r| a.min(r.0));
                    for &(r, k) in &roots[..nr] {
                        if r <= tmin + ttol {
                            fired.push(k);
                        }
                    }
                    te = tmin;
                    xe = step.eval(te);
                    if self.report_sections(sys, sections, &step, te, &mut sec_prev, &mode, false, obs).is_break() {
                        finish!(Termination::Stopped);
                    }
                    if obs.on_step(&step, te, &mode).is_break() {
                        t = te;
                        x = xe;
                        finish!(Termination::Stopped);
                    }
                } else {
                    te = t;
                    xe = x;
                }
            }
            // The event.
            let tr = sys.transition(&mode, &fired, te, &xe);
            let (mut xn, mut mn, mut info) = match tr {
                Transition::Jump { state, mode, info } => (state, mode, info),
                Transition::Failed(f) => {
                    t = te;
                    x = xe;
                    finish!(Termination::Failed(f));
                }
            };
            let mut zeno_after: Option<(f64, H::State, H::Mode, EventInfo)> = None;
            if info.kind == EventKind::Impact {
                let c = info.contact.unwrap_or(0);
                let speed = info.impact_speed.unwrap_or(0.0);
                fastest_impact = fastest_impact.max(speed);
                match st.zeno {
                    ZenoRule::Truncate { speed: rel } if speed < rel * fastest_impact => {
                        if let Some(Transition::Jump { state, mode: m2, info: i2 }) =
                            sys.zeno_limit(&mode, c, te, &xe, &xe)
                        {
                            xn = state;
                            mn = m2;
                            info = EventInfo { kind: EventKind::Zeno, ..i2 };
                            info.impact_speed = Some(speed);
                        }
                    }
                    ZenoRule::Extrapolate { tolerance } => {
                        if history.len() <= c {
                            history.resize_with(c + 1, VecDeque::new);
                        }
                        let h = &mut history[c];
                        h.push_back(ImpactMark { t: te, speed, after: xn });
                        if h.len() > 4 {
                            h.pop_front();
                        }
                        if let Some((tz, xz)) = zeno_point(h, tolerance * ts) {
                            h.clear();
                            match sys.zeno_limit(&mn, c, tz, &xz, &xn) {
                                Some(Transition::Jump { state, mode: m2, info: i2 }) => {
                                    zeno_after = Some((tz, state, m2, EventInfo { kind: EventKind::Zeno, ..i2 }))
                                }
                                Some(Transition::Failed(f)) => {
                                    t = tz;
                                    x = xz;
                                    finish!(Termination::Failed(f));
                                }
                                None => {}
                            }
                        }
                    }
                    _ => {}
                }
            } else if let Some(c) = info.contact {
                if let Some(h) = history.get_mut(c) {
                    h.clear();
                }
            }
            events += 1;
            let rec = EventRecord {
                t: te,
                info,
                guard: fired.first().copied(),
                mode_before: mode,
                mode_after: mn,
                before: xe,
                after: xn,
            };
            let mut stop = obs.on_event(&rec).is_break();
            stop |= self.after_event_sections(sys, sections, &rec, obs);
            t = te;
            x = xn;
            let mode_prev = mode;
            mode = mn;
            if let Some((tz, xz, mz, iz)) = zeno_after {
                events += 1;
                let rec = EventRecord {
                    t: tz,
                    info: iz,
                    guard: None,
                    mode_before: mode_prev,
                    mode_after: mz,
                    before: x,
                    after: xz,
                };
                stop |= obs.on_event(&rec).is_break();
                stop |= self.after_event_sections(sys, sections, &rec, obs);
                t = tz;
                x = xz;
                mode = mz;
            }
            restart = true;
            if stop {
                finish!(Termination::Stopped);
            }
            if !x.as_slice().iter().all(|v| v.is_finite()) {
                finish!(Termination::Failed(ModeFailure { kind: FailureKind::Singular, candidates: vec![] }));
            }
        }
    }

    /// [`EventDriver::run`] keeping the event log: every event with its time, kind, contact and the
    /// state and mode before and after it.
    #[allow(clippy::type_complexity)]
    pub fn run_logged<H: Hybrid>(
        &self,
        sys: &H,
        t0: f64,
        x0: H::State,
        sections: &[Section<'_, H::State>],
    ) -> (Run<H::State, H::Mode>, Vec<EventRecord<H::State, H::Mode>>) {
        let mut log = EventLog::default();
        let run = self.run(sys, t0, x0, sections, &mut log);
        (run, log.events)
    }

    /// Reports surface-section crossings inside `step` up to `t_end`, in time order.
    #[allow(clippy::too_many_arguments)]
    fn report_sections<H: Hybrid, O: Observer<H::State, H::Mode>>(
        &self,
        _sys: &H,
        sections: &[Section<'_, H::State>],
        step: &Step<H::State>,
        t_end: f64,
        prev: &mut [f64],
        mode: &H::Mode,
        fresh: bool,
        obs: &mut O,
    ) -> ControlFlow<()> {
        if sections.is_empty() {
            return ControlFlow::Continue(());
        }
        let ttol = self.settings.event_tol * _sys.time_scale();
        let mut hits: Vec<(f64, usize)> = Vec::new();
        for (k, s) in sections.iter().enumerate() {
            let Section::Surface { sigma, direction } = s else { continue };
            let s0 = if fresh { sigma(step.t0, &step.y0) } else { prev[k] };
            let y_end = step.eval(t_end);
            let s1 = sigma(t_end, &y_end);
            prev[k] = s1;
            let up = s0 < 0.0 && s1 >= 0.0;
            let down = s0 > 0.0 && s1 <= 0.0;
            let want = match direction {
                Direction::Increasing => up,
                Direction::Decreasing => down,
                Direction::Both => up || down,
            };
            if !want {
                continue;
            }
            let sign = if up { -1.0 } else { 1.0 };
            let r = crossing(|tt| sign * sigma(tt, &step.eval(tt)), step.t0, sign * s0, t_end, sign * s1, ttol);
            hits.push((r, k));
        }
        hits.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (r, k) in hits {
            let y = step.eval(r);
            let rec = EventRecord {
                t: r,
                info: EventInfo::new(EventKind::Section, None),
                guard: Some(k),
                mode_before: *mode,
                mode_after: *mode,
                before: y,
                after: y,
            };
            if obs.on_event(&rec).is_break() {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    fn after_event_sections<H: Hybrid, O: Observer<H::State, H::Mode>>(
        &self,
        sys: &H,
        sections: &[Section<'_, H::State>],
        rec: &EventRecord<H::State, H::Mode>,
        obs: &mut O,
    ) -> bool {
        let mut stop = false;
        for (k, s) in sections.iter().enumerate() {
            let (hit, contact) = match s {
                Section::AfterEvent { kind, contact } => {
                    (rec.info.kind == *kind && (contact.is_none() || *contact == rec.info.contact), rec.info.contact)
                }
                Section::Closing { contact } => {
                    let c = *contact;
                    (!sys.closed(&rec.mode_before, c) && sys.closed(&rec.mode_after, c), Some(c))
                }
                Section::Surface { .. } => (false, None),
            };
            if hit {
                let r = EventRecord {
                    t: rec.t,
                    info: EventInfo::new(EventKind::Section, contact),
                    guard: Some(k),
                    mode_before: rec.mode_after,
                    mode_after: rec.mode_after,
                    before: rec.after,
                    after: rec.after,
                };
                stop |= obs.on_event(&r).is_break();
            }
        }
        stop
    }
}

/// Largest interval and speed ratio accepted as a Zeno decay.
const MAX_RATIO: f64 = 0.999;

/// The Zeno point of the last four impacts of one contact, when their intervals decay
/// geometrically (module docs).
fn zeno_point<S: OdeState>(h: &VecDeque<ImpactMark<S>>, tol: f64) -> Option<(f64, S)> {
    if h.len() < 4 {
        return None;
    }
    let d1 = h[1].t - h[0].t;
    let d2 = h[2].t - h[1].t;
    let d3 = h[3].t - h[2].t;
    if !(d1 > 0.0 && d2 > 0.0 && d3 > 0.0) {
        return None;
    }
    let (r1, r2) = (d2 / d1, d3 / d2);
    let (p1, p2) = (h[2].speed / h[1].speed, h[3].speed / h[2].speed);
    // A clear geometric decay (ratios at most 0.999: slower decays are simulated impact by
    // impact), with approach speeds shrinking like the intervals (Δ ∝ speed near a grazing
    // contact).
    if !(r1 <= MAX_RATIO && r2 <= MAX_RATIO && p1 <= MAX_RATIO && p2 <= MAX_RATIO && p1 > 0.0 && p2 > 0.0) {
        return None;
    }
    if (p2 / r2 - 1.0).abs() > 0.1 {
        return None;
    }
    let tail1 = d3 * r1 / (1.0 - r1);
    let tail2 = d3 * r2 / (1.0 - r2);
    if (tail2 - tail1).abs() > tol {
        return None;
    }
    let g = r2 / (1.0 - r2);
    let x = h[3].after + (h[3].after - h[2].after) * g;
    Some((h[3].t + tail2, x))
}
