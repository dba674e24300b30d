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
//! once it has been seen positive; one that is not and ends a step at or below zero is also
//! looked at inside the step, so that a rise and return within one step (a slip that stops
//! again, a tiny rebound) still fires. Between step ends an armed guard can only be missed if
//! it dips below zero and returns within one step; systems prevent that with
//! [`Hybrid::step_limit`].
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
//! constrained mode). A series so fast that its tail after three impacts is already below that
//! tolerance (a nearly plastic impact) is extrapolated from those three. A rebound that the
//! system predicts ([`crate::hybrid::Rebound`]) to end its series within the event resolution,
//! or to hop less than the round-off of its gap, is completed after that predicted tail; and
//! impacts that come within the event resolution of each other are completed at the last.
//! [`ZenoRule::Truncate`] is P3's alternative: an impact slower than a fraction of the fastest
//! impact of the run is replaced by the completion at once.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use serde::Serialize;

use super::ode::{Dopri5, OdeState, Step, StepFailure, Tolerances};
use super::roots::crossing;
use super::{EventInfo, EventKind, ExactEvent, FailureKind, Hybrid, ModeFailure, Rebound, Transition, MAX_GUARDS};

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

impl DriverSettings {
    /// Checks every setting (an [`crate::Error::Argument`] names the first that is out of range);
    /// `t_max` may be `+∞`.
    pub fn validate(&self) -> Result<(), crate::Error> {
        use crate::error::{at_least_one, fraction};
        fraction("rtol", self.tol.rtol)?;
        if self.tol.atol.is_nan() || self.tol.atol <= 0.0 {
            return Err(crate::Error::argument("atol", format!("must be > 0 (got {})", self.tol.atol)));
        }
        fraction("event_tol", self.event_tol)?;
        if self.t_max.is_nan() || self.t_max <= 0.0 {
            return Err(crate::Error::argument("t_max", format!("must be > 0 (got {})", self.t_max)));
        }
        at_least_one("max_events", self.max_events)?;
        at_least_one("max_steps", self.max_steps)?;
        if let Some(d) = self.diverge {
            if d.is_nan() || d <= 1.0 {
                return Err(crate::Error::argument("diverge", format!("must be > 1 (got {d})")));
            }
        }
        Ok(())
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
    /// The integrator could not continue, or could not start.
    IntegrationFailure {
        /// What failed.
        cause: IntegrationCause,
        /// When (s).
        t: f64,
    },
}

/// Why the integration of a run stopped ([`Termination::IntegrationFailure`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum IntegrationCause {
    /// A [`DriverSettings`] value is out of range (the run did not start).
    InvalidSetting {
        /// The setting.
        name: String,
        /// What is wrong with it, with the allowed range.
        message: String,
    },
    /// The mode has more guards than the driver holds ([`MAX_GUARDS`]).
    TooManyGuards {
        /// The mode's number of guards.
        guards: usize,
    },
    /// The step size fell below its lower bound with no guard's zero just ahead (a singularity
    /// of the vector field, or tolerances below round-off).
    StepTooSmall,
    /// The vector field returned a non-finite value.
    NonFinite,
}

impl From<StepFailure> for IntegrationCause {
    fn from(e: StepFailure) -> Self {
        match e {
            StepFailure::StepTooSmall => IntegrationCause::StepTooSmall,
            StepFailure::NonFinite => IntegrationCause::NonFinite,
        }
    }
}

impl std::fmt::Display for IntegrationCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntegrationCause::InvalidSetting { name, message } => write!(f, "invalid setting {name}: {message}"),
            IntegrationCause::TooManyGuards { guards } => write!(f, "{guards} guards (at most {MAX_GUARDS})"),
            IntegrationCause::StepTooSmall => f.write_str("step size underflow"),
            IntegrationCause::NonFinite => f.write_str("non-finite vector field"),
        }
    }
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
    ///
    /// The run starts in the system's initial mode, after its initial event if it has one; then
    /// every pass of the loop checks the termination reasons, advances by one segment (a closed
    /// form or one integration step) and, when a guard fires in it, applies the event.
    pub fn run<H: Hybrid, O: Observer<H::State, H::Mode>>(
        &self,
        sys: &H,
        t0: f64,
        x0: H::State,
        sections: &[Section<'_, H::State>],
        obs: &mut O,
    ) -> Run<H::State, H::Mode> {
        // A bad setting ends the run before it starts, with the setting named.
        if let Err(e) = self.settings.validate() {
            return Run {
                t: t0,
                state: x0,
                mode: None,
                termination: Termination::IntegrationFailure { cause: invalid_setting(e), t: t0 },
                steps: 0,
                events: 0,
                evaluations: 0,
            };
        }
        let (x, mode, initial_event) = match start(sys, t0, x0) {
            Ok(start) => start,
            Err((x, f)) => {
                return Run {
                    t: t0,
                    state: x,
                    mode: None,
                    termination: Termination::Failed(f),
                    steps: 0,
                    events: 0,
                    evaluations: 0,
                }
            }
        };
        let mut runner = Runner::new(&self.settings, sys, sections, t0, x, mode);
        obs.on_start(t0, &initial_event.as_ref().map_or(x, |e| e.before), &mode);
        if let Some(ev) = &initial_event {
            runner.events += 1;
            if obs.on_event(ev).is_break() {
                return runner.finish(Termination::Stopped);
            }
        }
        loop {
            if let Err(end) = runner.pass(obs) {
                return runner.finish(end);
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
}

/// The cause for a [`DriverSettings::validate`] error: the setting it names and the message.
fn invalid_setting(e: crate::Error) -> IntegrationCause {
    let (name, message) = e.into_setting();
    IntegrationCause::InvalidSetting { name, message }
}

/// The start of a run: the state and mode after the system's initial event (with its record),
/// or its initial mode; `Err` with the state reached and the evidence when neither exists.
type Start<S, M> = Result<(S, M, Option<EventRecord<S, M>>), (S, ModeFailure)>;

/// The start of a run from `(t, x0)` ([`Hybrid::initial_transition`], else
/// [`Hybrid::initial_mode`]).
fn start<H: Hybrid>(sys: &H, t: f64, x0: H::State) -> Start<H::State, H::Mode> {
    match sys.initial_transition(t, &x0) {
        Some(Transition::Jump { state, mode, info }) => {
            let event =
                EventRecord { t, info, guard: None, mode_before: mode, mode_after: mode, before: x0, after: state };
            Ok((state, mode, Some(event)))
        }
        Some(Transition::Failed(f)) => Err((x0, f)),
        None => {
            let mut x = x0;
            match sys.initial_mode(t, &mut x) {
                Ok(mode) => Ok((x, mode, None)),
                Err(f) => Err((x, f)),
            }
        }
    }
}

/// The outcome of a phase of the loop: `Err` ends the run for that reason, at the runner's
/// current time, state and mode.
type Phase<T> = Result<T, Termination>;

/// Where an event leads: the time, the state and mode after it, and what happened.
struct Next<S, M> {
    t: f64,
    state: S,
    mode: M,
    info: EventInfo,
}

/// One run in progress: where it is, the integrator, what the guards and sections last showed,
/// the Zeno watch and the counters.
struct Runner<'r, 's, H: Hybrid> {
    settings: &'r DriverSettings,
    sys: &'r H,
    sections: &'r [Section<'s, H::State>],
    t: f64,
    x: H::State,
    mode: H::Mode,
    /// The system's time scale and the event tolerance `event_tol · time_scale`.
    ts: f64,
    ttol: f64,
    /// The system's state scale (for the divergence bound).
    scale: H::State,
    ode: Dopri5<H::State>,
    /// Whether the integrator must restart before its next step (at the start, after an event).
    restart: bool,
    /// Accepted steps (closed-form segments included) and events.
    steps: usize,
    events: usize,
    /// Number of guards of the mode.
    ng: usize,
    /// Guard values at `(t, x)` and at the end of the current step.
    gprev: [f64; MAX_GUARDS],
    g1: [f64; MAX_GUARDS],
    /// Guards seen positive in the mode: only these can fire.
    armed: [bool; MAX_GUARDS],
    /// For a guard seen positive only inside the current step ([`Runner::catch_hops`]): the
    /// bracket of its zero, `(t, g)` at both ends.
    hop: [Option<(Sample, Sample)>; MAX_GUARDS],
    /// Steps accepted since the integrator's last restart (hops are looked for in the first
    /// [`HOP_STEPS`] only).
    since_restart: usize,
    /// Surface sections' values at `(t, x)`.
    sec_prev: Vec<f64>,
    /// The guards that fire at the event being handled.
    fired: Vec<usize>,
    /// The last impacts of every contact ([`ZenoRule::Extrapolate`]).
    history: Vec<VecDeque<ImpactMark<H::State>>>,
    /// The fastest impact of the run ([`ZenoRule::Truncate`]).
    fastest_impact: f64,
}

impl<'r, 's, H: Hybrid> Runner<'r, 's, H> {
    #[inline(always)]
    fn new(
        settings: &'r DriverSettings,
        sys: &'r H,
        sections: &'r [Section<'s, H::State>],
        t: f64,
        x: H::State,
        mode: H::Mode,
    ) -> Self {
        let ts = sys.time_scale();
        let scale = sys.state_scale();
        Self {
            settings,
            sys,
            sections,
            t,
            x,
            mode,
            ts,
            ttol: settings.event_tol * ts,
            scale,
            ode: Dopri5::new(settings.tol, scale, ts),
            restart: true,
            steps: 0,
            events: 0,
            ng: 0,
            gprev: [0.0; MAX_GUARDS],
            g1: [0.0; MAX_GUARDS],
            armed: [false; MAX_GUARDS],
            hop: [None; MAX_GUARDS],
            since_restart: 0,
            sec_prev: vec![0.0; sections.len()],
            fired: Vec::with_capacity(4),
            history: Vec::new(),
            fastest_impact: 0.0,
        }
    }

    /// The end of the run, where it is now.
    fn finish(self, termination: Termination) -> Run<H::State, H::Mode> {
        Run {
            t: self.t,
            state: self.x,
            mode: Some(self.mode),
            termination,
            steps: self.steps,
            events: self.events,
            evaluations: self.ode.evaluations,
        }
    }

    /// One pass of the loop: the termination checks, one segment of flow, and the event that ends
    /// it if a guard fired.
    fn pass<O: Observer<H::State, H::Mode>>(&mut self, obs: &mut O) -> Phase<()> {
        self.check_limits()?;
        self.count_guards()?;
        self.fired.clear();
        let event = match self.sys.next_event(&self.mode, self.t, &self.x) {
            Some(ev) => Some(self.exact_segment(ev, obs)?),
            None => self.integrate(obs)?,
        };
        match event {
            Some((te, xe)) => self.jump(te, xe, obs),
            None => Ok(()),
        }
    }

    /// Rest, the time, event and step limits, and divergence (the system's test and the bound of
    /// [`DriverSettings::diverge`]).
    #[inline(always)]
    fn check_limits(&self) -> Phase<()> {
        let (sys, st) = (self.sys, self.settings);
        if sys.at_rest(&self.mode, &self.x) {
            return Err(Termination::Rest);
        }
        if self.t >= st.t_max {
            return Err(Termination::TimeLimit);
        }
        if self.events >= st.max_events {
            return Err(Termination::EventLimit);
        }
        if self.steps >= st.max_steps {
            return Err(Termination::StepLimit);
        }
        if sys.diverged(self.t, &self.x) {
            return Err(Termination::Diverged);
        }
        if let Some(d) = st.diverge {
            let xs = self.x.as_slice();
            let ss = self.scale.as_slice();
            if xs.iter().zip(ss).any(|(v, s)| v.is_nan() || v.abs() > d * s) {
                return Err(Termination::Diverged);
            }
        }
        Ok(())
    }

    /// The mode's number of guards (at most [`MAX_GUARDS`]).
    #[inline(always)]
    fn count_guards(&mut self) -> Phase<()> {
        let ng = self.sys.guard_count(&self.mode);
        if ng > MAX_GUARDS {
            return Err(Termination::IntegrationFailure {
                cause: IntegrationCause::TooManyGuards { guards: ng },
                t: self.t,
            });
        }
        self.ng = ng;
        Ok(())
    }

    /// A segment in closed form ([`Hybrid::next_event`]) up to its event: the event's time and
    /// state (its guard in `fired`).
    fn exact_segment<O: Observer<H::State, H::Mode>>(
        &mut self,
        ev: ExactEvent<H::State>,
        obs: &mut O,
    ) -> Phase<(f64, H::State)> {
        self.steps += 1;
        if !ev.dt.is_finite() {
            return Err(Termination::NoFurtherEvent);
        }
        if self.t + ev.dt > self.settings.t_max {
            return Err(Termination::TimeLimit);
        }
        let (te, xe) = (self.t + ev.dt, ev.state);
        if let Some(seg) = &ev.segment {
            self.report_sections(seg, te, true, obs)?;
            self.step_to_event(seg, te, xe, obs)?;
        }
        self.fired.push(ev.guard);
        Ok((te, xe))
    }

    /// One integration step: `Some` with the event's time and state when an armed guard crossed
    /// zero within it (located on its dense output; the guards in `fired`) or the step size
    /// collapsed onto a guard's zero; `None` when the step was accepted whole.
    fn integrate<O: Observer<H::State, H::Mode>>(&mut self, obs: &mut O) -> Phase<Option<(f64, H::State)>> {
        let (sys, mode, ng) = (self.sys, self.mode, self.ng);
        let mut f = |tt: f64, y: &H::State| sys.flow(&mode, tt, y);
        if self.restart {
            self.restart_integrator(&mut f)?;
        }
        let Some(step) = self.step(&mut f)? else {
            // The step size collapsed onto an imminent guard: it fires here.
            return Ok(Some((self.t, self.x)));
        };
        self.steps += 1;
        sys.guards(&mode, step.t1(), &step.y1, &mut self.g1[..ng]);
        self.catch_hops(&step);
        if !fired_set(&self.g1[..ng], &self.armed[..ng]) {
            self.accept(&step, obs)?;
            return Ok(None);
        }
        let te = self.locate(&step);
        let xe = step.eval(te);
        self.report_sections(&step, te, false, obs)?;
        self.step_to_event(&step, te, xe, obs)?;
        Ok(Some((te, xe)))
    }

    /// A guard not yet armed that is `≤ 0` at the step's end may have risen above zero and come
    /// back inside the step (a hop shorter than the step: a slip that starts from rest and stops
    /// again, a tiny rebound). Such guards are sampled at [`HOP_SAMPLES`] points of the dense
    /// output; one seen positive is armed, with its zero bracketed after that sample, so that it
    /// fires as if its rise had been seen. (Without this a slip shorter than a step runs on past
    /// its stop, its friction now driving it.) A hop starts from a guard at zero where a mode
    /// starts (the slip from rest, the rebound), so only the first [`HOP_STEPS`] steps after a
    /// restart are looked at: a guard that stays below zero for long (a swing foot below its
    /// line while its rule disarms it) then costs nothing.
    fn catch_hops(&mut self, step: &Step<H::State>) {
        let ng = self.ng;
        self.hop[..ng].fill(None);
        self.since_restart += 1;
        if self.since_restart > HOP_STEPS || !(0..ng).any(|k| !self.armed[k] && self.g1[k] <= 0.0) {
            return;
        }
        let (t0, t1) = (step.t0, step.t1());
        let mut up: [Option<Sample>; MAX_GUARDS] = [None; MAX_GUARDS];
        let mut gk = [0.0; MAX_GUARDS];
        // In time order: halvings towards the step's start (a hop from a guard that started at
        // zero there is short), then evenly spaced points.
        let near_start = (HOP_SAMPLES.trailing_zeros()..HOP_HALVINGS).rev().map(|k| 0.5f64.powi(k as i32));
        let even = (1..HOP_SAMPLES).map(|j| j as f64 / HOP_SAMPLES as f64);
        for f in near_start.chain(even) {
            let t = t0 + (t1 - t0) * f;
            self.sys.guards(&self.mode, t, &step.eval(t), &mut gk[..ng]);
            for k in 0..ng {
                if self.armed[k] || self.g1[k] > 0.0 || self.hop[k].is_some() {
                    continue;
                }
                match up[k] {
                    None if gk[k] > 0.0 => up[k] = Some((t, gk[k])),
                    Some(a) if gk[k] <= 0.0 => self.hop[k] = Some((a, (t, gk[k]))),
                    _ => {}
                }
            }
        }
        for k in 0..ng {
            if let (None, Some(a)) = (self.hop[k], up[k]) {
                self.hop[k] = Some((a, (t1, self.g1[k])));
            }
            if self.hop[k].is_some() {
                self.armed[k] = true;
            }
        }
    }

    /// Restarts the integrator at `(t, x)` and takes the guards' and surface sections' values
    /// there; the guards positive there are armed.
    fn restart_integrator(&mut self, f: &mut impl FnMut(f64, &H::State) -> H::State) -> Phase<()> {
        let (t, ng) = (self.t, self.ng);
        if let Err(e) = self.ode.restart(f, t, &self.x) {
            return Err(Termination::IntegrationFailure { cause: e.into(), t });
        }
        self.restart = false;
        self.since_restart = 0;
        self.sys.guards(&self.mode, t, &self.x, &mut self.gprev[..ng]);
        for k in 0..ng {
            self.armed[k] = self.gprev[k] > 0.0;
        }
        for (k, s) in self.sections.iter().enumerate() {
            if let Section::Surface { sigma, .. } = s {
                self.sec_prev[k] = sigma(t, &self.x);
            }
        }
        Ok(())
    }

    /// One accepted step from `(t, x)`, within the system's step limit and `t_max`; `None` when
    /// the step size collapsed with an armed guard's zero just ahead (that guard in `fired`).
    fn step(&mut self, f: &mut impl FnMut(f64, &H::State) -> H::State) -> Phase<Option<Step<H::State>>> {
        let (sys, t, ng) = (self.sys, self.t, self.ng);
        // A step limit below round-off of t would stall the run: floor it.
        let floor = step_floor(t, self.ts);
        let hmax = (self.settings.t_max - t).min(sys.step_limit(&self.mode, t, &self.x).max(floor)).max(0.0);
        match self.ode.step(f, t, &self.x, hmax) {
            Ok(s) => Ok(Some(s)),
            Err(StepFailure::StepTooSmall) => {
                // The step size collapsed. If a guard's zero lies just ahead along the flow, the
                // collapse is that event's approach (a pole of the vector field on the guard, as
                // at dynamic jamming): it fires here, as the driver cannot place it any better.
                imminent_guards(
                    sys,
                    &self.mode,
                    t,
                    &self.x,
                    self.ttol,
                    STALL_HORIZON * self.ts,
                    &self.gprev[..ng],
                    &self.armed[..ng],
                    &mut self.fired,
                );
                if self.fired.is_empty() {
                    return Err(Termination::IntegrationFailure { cause: IntegrationCause::StepTooSmall, t });
                }
                Ok(None)
            }
            Err(e) => Err(Termination::IntegrationFailure { cause: e.into(), t }),
        }
    }

    /// Accepts a step in which no guard fired: the sections crossed in it, the observer, then the
    /// step's end as the new `(t, x)` with its guard values (those positive become armed).
    fn accept<O: Observer<H::State, H::Mode>>(&mut self, step: &Step<H::State>, obs: &mut O) -> Phase<()> {
        self.report_sections(step, step.t1(), false, obs)?;
        let flow = obs.on_step(step, step.t1(), &self.mode);
        self.t = step.t1();
        self.x = step.y1;
        let ng = self.ng;
        for k in 0..ng {
            self.armed[k] |= self.g1[k] > 0.0;
        }
        self.gprev[..ng].copy_from_slice(&self.g1[..ng]);
        if flow.is_break() {
            return Err(Termination::Stopped);
        }
        Ok(())
    }

    /// The earliest zero among the armed guards that crossed zero within `step` (module docs);
    /// every guard whose zero lies within the event tolerance of it goes into `fired`.
    fn locate(&mut self, step: &Step<H::State>) -> f64 {
        let (sys, mode, ng, ttol) = (self.sys, self.mode, self.ng, self.ttol);
        let mut roots: [(f64, usize); MAX_GUARDS] = [(f64::INFINITY, 0); MAX_GUARDS];
        let mut nr = 0;
        let mut gk = [0.0; MAX_GUARDS];
        for k in 0..ng {
            if self.armed[k] && self.g1[k] <= 0.0 {
                let g0 = self.gprev[k];
                // The bracket: the step, or the part of it where a hop was caught.
                let ((ta, ga), (tb, gb)) = self.hop[k].unwrap_or(((step.t0, g0), (step.t1(), self.g1[k])));
                let r = if ga > 0.0 {
                    crossing(
                        |tt| {
                            let y = step.eval(tt);
                            sys.guards(&mode, tt, &y, &mut gk[..ng]);
                            gk[k]
                        },
                        ta,
                        ga,
                        tb,
                        gb,
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
                self.fired.push(k);
            }
        }
        tmin
    }

    /// Shows the observer a step up to the event at `(te, xe)`; if it stops, the run ends there.
    fn step_to_event<O: Observer<H::State, H::Mode>>(
        &mut self,
        step: &Step<H::State>,
        te: f64,
        xe: H::State,
        obs: &mut O,
    ) -> Phase<()> {
        if obs.on_step(step, te, &self.mode).is_break() {
            self.t = te;
            self.x = xe;
            return Err(Termination::Stopped);
        }
        Ok(())
    }

    /// The event at `(te, xe)`: the system's transition for the guards in `fired`, the Zeno watch,
    /// the records for the observer, and the state and mode that follow.
    fn jump<O: Observer<H::State, H::Mode>>(&mut self, te: f64, xe: H::State, obs: &mut O) -> Phase<()> {
        let mut next = match self.sys.transition(&self.mode, &self.fired, te, &xe) {
            Transition::Jump { state, mode, info } => Next { t: te, state, mode, info },
            Transition::Failed(f) => {
                self.t = te;
                self.x = xe;
                return Err(Termination::Failed(f));
            }
        };
        let completion = self.watch_zeno(te, &xe, &mut next)?;
        self.events += 1;
        let rec = EventRecord {
            t: next.t,
            info: next.info,
            guard: self.fired.first().copied(),
            mode_before: self.mode,
            mode_after: next.mode,
            before: xe,
            after: next.state,
        };
        let mut stop = self.report_event(&rec, obs);
        let mode_before = self.mode;
        self.t = next.t;
        self.x = next.state;
        self.mode = next.mode;
        if let Some(z) = completion {
            self.events += 1;
            let rec = EventRecord {
                t: z.t,
                info: z.info,
                guard: None,
                mode_before,
                mode_after: z.mode,
                before: self.x,
                after: z.state,
            };
            stop |= self.report_event(&rec, obs);
            self.t = z.t;
            self.x = z.state;
            self.mode = z.mode;
        }
        self.restart = true;
        if stop {
            return Err(Termination::Stopped);
        }
        if !self.x.as_slice().iter().all(|v| v.is_finite()) {
            return Err(Termination::Failed(ModeFailure::bare(FailureKind::Singular)));
        }
        Ok(())
    }

    /// Zeno handling after the event at `(te, xe)` that leads to `next` (module docs). An impact
    /// slower than [`ZenoRule::Truncate`]'s threshold is replaced in `next` by the completion; under
    /// [`ZenoRule::Extrapolate`] an impact joins its contact's history and, when the history
    /// decays geometrically, the completion from the Zeno point is returned as a second event.
    /// Any other event of a contact clears its history.
    #[inline(always)]
    fn watch_zeno(
        &mut self,
        te: f64,
        xe: &H::State,
        next: &mut Next<H::State, H::Mode>,
    ) -> Phase<Option<Next<H::State, H::Mode>>> {
        if next.info.kind != EventKind::Impact {
            if let Some(h) = next.info.contact.and_then(|c| self.history.get_mut(c)) {
                h.clear();
            }
            return Ok(None);
        }
        let c = next.info.contact.unwrap_or(0);
        let speed = next.info.impact_speed.unwrap_or(0.0);
        self.fastest_impact = self.fastest_impact.max(speed);
        match self.settings.zeno {
            ZenoRule::Truncate { speed: rel } if speed < rel * self.fastest_impact => {
                if let Some(Transition::Jump { state, mode, info }) = self.sys.zeno_limit(&self.mode, c, te, xe, xe) {
                    next.state = state;
                    next.mode = mode;
                    next.info = EventInfo { kind: EventKind::Zeno, ..info };
                    next.info.impact_speed = Some(speed);
                }
                Ok(None)
            }
            ZenoRule::Extrapolate { tolerance } => {
                if self.history.len() <= c {
                    self.history.resize_with(c + 1, VecDeque::new);
                }
                let h = &mut self.history[c];
                h.push_back(ImpactMark { t: te, speed, after: next.state });
                if h.len() > 4 {
                    h.pop_front();
                }
                // The resolution: the event tolerance, or the step floor where it is coarser.
                let res = self.ttol.max(step_floor(te, self.ts));
                let found = zeno_point(h, tolerance * self.ts).or_else(|| {
                    let (t, x) = unresolved(h, next.info.rebound, res)?;
                    // The completion comes after the predicted tail, along the flow.
                    Some((t, x + self.sys.flow(&next.mode, te, &x) * (t - te)))
                });
                let Some((tz, xz)) = found else { return Ok(None) };
                h.clear();
                match self.sys.zeno_limit(&next.mode, c, tz, &xz, &next.state) {
                    Some(Transition::Jump { state, mode, info }) => {
                        Ok(Some(Next { t: tz, state, mode, info: EventInfo { kind: EventKind::Zeno, ..info } }))
                    }
                    Some(Transition::Failed(f)) => {
                        self.t = tz;
                        self.x = xz;
                        Err(Termination::Failed(f))
                    }
                    None => Ok(None),
                }
            }
            _ => Ok(None),
        }
    }

    /// Reports an event to the observer and the after-event sections it hits; whether either
    /// asked to stop.
    #[inline(always)]
    fn report_event<O: Observer<H::State, H::Mode>>(&self, rec: &EventRecord<H::State, H::Mode>, obs: &mut O) -> bool {
        let stop = obs.on_event(rec).is_break();
        stop | self.after_event_sections(rec, obs)
    }

    /// Reports surface-section crossings inside `step` up to `t_end`, in time order; `fresh`
    /// takes the sections' values at the step's start from the step instead of `sec_prev`.
    fn report_sections<O: Observer<H::State, H::Mode>>(
        &mut self,
        step: &Step<H::State>,
        t_end: f64,
        fresh: bool,
        obs: &mut O,
    ) -> Phase<()> {
        if self.sections.is_empty() {
            return Ok(());
        }
        let mut hits: Vec<(f64, usize)> = Vec::new();
        for (k, s) in self.sections.iter().enumerate() {
            let Section::Surface { sigma, direction } = s else { continue };
            let s0 = if fresh { sigma(step.t0, &step.y0) } else { self.sec_prev[k] };
            let y_end = step.eval(t_end);
            let s1 = sigma(t_end, &y_end);
            self.sec_prev[k] = s1;
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
            let r = crossing(|tt| sign * sigma(tt, &step.eval(tt)), step.t0, sign * s0, t_end, sign * s1, self.ttol);
            hits.push((r, k));
        }
        hits.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (r, k) in hits {
            let y = step.eval(r);
            let rec = EventRecord {
                t: r,
                info: EventInfo::new(EventKind::Section, None),
                guard: Some(k),
                mode_before: self.mode,
                mode_after: self.mode,
                before: y,
                after: y,
            };
            if obs.on_event(&rec).is_break() {
                return Err(Termination::Stopped);
            }
        }
        Ok(())
    }

    /// Reports the after-event sections ([`Section::AfterEvent`], [`Section::Closing`]) that the
    /// event `rec` hits; whether the observer asked to stop.
    fn after_event_sections<O: Observer<H::State, H::Mode>>(
        &self,
        rec: &EventRecord<H::State, H::Mode>,
        obs: &mut O,
    ) -> bool {
        let mut stop = false;
        for (k, s) in self.sections.iter().enumerate() {
            let (hit, contact) = match s {
                Section::AfterEvent { kind, contact } => {
                    (rec.info.kind == *kind && (contact.is_none() || *contact == rec.info.contact), rec.info.contact)
                }
                Section::Closing { contact } => {
                    let c = *contact;
                    (!self.sys.closed(&rec.mode_before, c) && self.sys.closed(&rec.mode_after, c), Some(c))
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

/// A rebound hop whose apex is below this fraction of its gap's scale is below the round-off of
/// a gap just put on its support: it could never be seen ([`Rebound::apex`]).
pub const HOP_FLOOR: f64 = 64.0 * f64::EPSILON;

/// The smallest step at time `t` (time scale `ts`): below it the step is lost in the
/// round-off of `t`.
fn step_floor(t: f64, ts: f64) -> f64 {
    64.0 * f64::EPSILON * t.abs().max(ts)
}

/// A guard's value at a time, `(t, g)`.
type Sample = (f64, f64);

/// Steps after a restart in which guards not yet armed are looked at inside the step
/// ([`Runner::catch_hops`]): the integrator's first steps grow from a small trial step, so a hop
/// from the mode's start lies within them or is seen positive at a step's end.
pub const HOP_STEPS: usize = 4;

/// Points inside a step where guards not yet armed are looked at ([`Runner::catch_hops`]):
/// `HOP_SAMPLES − 1` evenly spaced, and fractions `2⁻ᵏ` of the step down to `2^−HOP_HALVINGS`.
const HOP_SAMPLES: usize = 8;
const HOP_HALVINGS: u32 = 24;

/// Largest interval and speed ratio accepted as a Zeno decay.
const MAX_RATIO: f64 = 0.999;

/// The Zeno point of the last four impacts of one contact, when their intervals decay
/// geometrically (module docs).
///
/// A series that decays so fast that its fourth impact would come within the time resolution
/// (a nearly plastic impact, `e ≤ 1e-4`: intervals `d, e d, e² d`) is extrapolated from its last
/// three impacts as soon as the tail `d₃ r/(1 − r)` that they predict is itself below `tol`:
/// then no fourth impact is needed to confirm it, and the Aitken formula is the same.
fn zeno_point<S: OdeState>(h: &VecDeque<ImpactMark<S>>, tol: f64) -> Option<(f64, S)> {
    let n = h.len();
    if n < 3 {
        return None;
    }
    let (a, b, c) = (&h[n - 3], &h[n - 2], &h[n - 1]);
    let d2 = b.t - a.t;
    let d3 = c.t - b.t;
    if !(d2 > 0.0 && d3 > 0.0) {
        return None;
    }
    let r2 = d3 / d2;
    let p2 = c.speed / b.speed;
    // A clear geometric decay (ratios at most 0.999: slower decays are simulated impact by
    // impact), with approach speeds shrinking like the intervals (Δ ∝ speed near a grazing
    // contact).
    if !(r2 <= MAX_RATIO && p2 <= MAX_RATIO && p2 > 0.0) || (p2 / r2 - 1.0).abs() > 0.1 {
        return None;
    }
    let tail2 = d3 * r2 / (1.0 - r2);
    if tail2 > tol {
        // Confirmed by a fourth impact: the tails of the last two ratios agree.
        if n < 4 {
            return None;
        }
        let d1 = h[1].t - h[0].t;
        let r1 = d2 / d1;
        let p1 = b.speed / h[0].speed;
        if !(d1 > 0.0 && r1 <= MAX_RATIO && p1 <= MAX_RATIO && p1 > 0.0) {
            return None;
        }
        let tail1 = d3 * r1 / (1.0 - r1);
        if (tail2 - tail1).abs() > tol {
            return None;
        }
    }
    let g = r2 / (1.0 - r2);
    let x = c.after + (c.after - b.after) * g;
    Some((c.t + tail2, x))
}

/// A series the driver cannot go on simulating, with time resolution `res`, and when it
/// ends: the system predicts ([`Rebound`]) that the rest of it lasts less than `res`, or that
/// its hop rises less than [`HOP_FLOOR`] of the gap's scale (below the round-off of a gap just
/// put on its support: a nearly plastic impact); then it ends after the predicted tail (the
/// caller moves the state along the flow; the rest of the series takes the normal velocity to
/// zero as the completion's projection does). Or the last impact of the contact came within
/// `res` of the one before, no faster; then it ends there. Without this a rebound shorter than
/// the smallest step, or lower than the gap's round-off, is never seen and the contact sinks,
/// or an impact at zero approach speed repeats at the same time until the event limit. (Hops
/// above the round-off are simulated, so that a slower series still reaches the Aitken
/// extrapolation, whose derivative the variational equations carry.)
fn unresolved<S: OdeState>(h: &VecDeque<ImpactMark<S>>, rebound: Option<Rebound>, res: f64) -> Option<(f64, S)> {
    let c = h.back()?;
    if let Some(r) = rebound.filter(|r| r.apex <= HOP_FLOOR || r.tail <= res) {
        return Some((c.t + r.tail, c.after));
    }
    let stuck = h.len() >= 2 && {
        let b = &h[h.len() - 2];
        c.t - b.t <= res && c.speed <= b.speed
    };
    stuck.then_some((c.t, c.after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector1;

    /// A clock `x' = 1` whose one guard `g = x (τ − x)` starts at zero, is positive for
    /// `0 < x < τ` and fires at `x = τ` (a hop of length `τ` from a guard that starts at zero,
    /// as a slip from rest that stops again); after it, mode 1 has no guard.
    struct Hop {
        tau: f64,
    }

    impl Hybrid for Hop {
        type State = Vector1<f64>;
        type Mode = u8;
        fn time_scale(&self) -> f64 {
            1.0
        }
        fn state_scale(&self) -> Vector1<f64> {
            Vector1::new(1.0)
        }
        fn initial_mode(&self, _t: f64, _x: &mut Vector1<f64>) -> Result<u8, ModeFailure> {
            Ok(0)
        }
        fn flow(&self, _mode: &u8, _t: f64, _x: &Vector1<f64>) -> Vector1<f64> {
            Vector1::new(1.0)
        }
        fn guard_count(&self, mode: &u8) -> usize {
            usize::from(*mode == 0)
        }
        fn guards(&self, _mode: &u8, _t: f64, x: &Vector1<f64>, out: &mut [f64]) {
            if let Some(g) = out.first_mut() {
                *g = x[0] * (self.tau - x[0]);
            }
        }
        fn transition(&self, _mode: &u8, _fired: &[usize], _t: f64, x: &Vector1<f64>) -> Transition<Vector1<f64>, u8> {
            Transition::Jump { state: *x, mode: 1, info: EventInfo::new(EventKind::SlipStop, Some(0)) }
        }
    }

    #[test]
    fn a_hop_within_one_step_fires_where_it_ends() {
        // τ from well above a step to far below one: the first step's end is already past the
        // hop, so its guard was never seen positive at a step's end.
        for tau in [0.3, 1e-3, 1e-6] {
            let s = DriverSettings { t_max: 1.0, ..Default::default() };
            let (run, log) = EventDriver::new(s).run_logged(&Hop { tau }, 0.0, Vector1::new(0.0), &[]);
            assert_eq!(run.termination, Termination::TimeLimit, "τ = {tau}");
            assert_eq!(log.len(), 1, "τ = {tau}: {} events", log.len());
            assert!((log[0].t - tau).abs() <= 1e-12, "τ = {tau}: fired at {}", log[0].t);
        }
    }
}
