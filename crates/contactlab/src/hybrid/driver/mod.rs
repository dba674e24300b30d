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

use super::ode::{Dopri5, OdeState, Step, StepFailure, Tolerances, EXPLICIT_HRHO, STIFF_STEPS};
use super::roots::crossing;
use super::stiff::Rodas4;
use super::{EventInfo, EventKind, ExactEvent, FailureKind, Hybrid, ModeFailure, Rebound, Transition, MAX_GUARDS};

mod runner;

pub use runner::*;

/// Rosenbrock steps after which the driver judges whether the method pays on a stiff stretch
/// ([`DriverSettings::stiff`]).
pub const STIFF_TRIAL: usize = 8;

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
    /// Integrate a flow that DOPRI5 finds stiff ([`Dopri5::stiff_steps`]) with the Rosenbrock method
    /// [`Rodas4`] until the next event (the system's [`Hybrid::flow_jacobian`], or
    /// differences). Off by default: the papers' runs are reproduced with DOPRI5 alone.
    pub stiff: bool,
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
            stiff: false,
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
        self.samples.push((t, x.clone()));
    }
    fn on_step(&mut self, step: &Step<S>, t_end: f64, _mode: &M) -> ControlFlow<()> {
        self.samples.extend(step.samples(t_end, self.per_step + 1));
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, event: &EventRecord<S, M>) -> ControlFlow<()> {
        if event.info.kind != EventKind::Section {
            self.samples.push((event.t, event.after.clone()));
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
pub enum PoincareSection<'a, S> {
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
    /// The state right after every event of `kind` of one of `contacts` (a 3-D gait's
    /// strike: an impact of any foot, not of a joint's stop).
    AfterEventOf {
        /// The event kind.
        kind: EventKind,
        /// The contacts.
        contacts: &'a [usize],
    },
    /// The state right after every event that closes `contact` for a constrained phase
    /// ([`Hybrid::closed`] false before, true after): a plastic impact that stays closed, or a
    /// Zeno point. The section of P3's simple and Zeno periodic orbits.
    Closing {
        /// The contact.
        contact: usize,
    },
}

impl<S> std::fmt::Debug for PoincareSection<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PoincareSection::Surface { direction, .. } => write!(f, "Surface({direction:?})"),
            PoincareSection::AfterEvent { kind, contact } => write!(f, "AfterEvent({kind:?}, {contact:?})"),
            PoincareSection::AfterEventOf { kind, contacts } => write!(f, "AfterEventOf({kind:?}, {contacts:?})"),
            PoincareSection::Closing { contact } => write!(f, "Closing({contact})"),
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
    let xp = x.clone() + sys.flow(mode, t, x) * ttol;
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
        sections: &[PoincareSection<'_, H::State>],
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
        let mut runner = Runner::new(&self.settings, sys, sections, t0, x.clone(), mode);
        obs.on_start(t0, &initial_event.as_ref().map_or(x, |e| e.before.clone()), &mode);
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
        sections: &[PoincareSection<'_, H::State>],
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
            let event = EventRecord {
                t,
                info,
                guard: None,
                mode_before: mode,
                mode_after: mode,
                before: x0,
                after: state.clone(),
            };
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

    /// `y' = A (y − g) + g'` with `g = (cos t, sin t)` and `A = k [[−1, 1], [−1, −1]]` (a
    /// damped rotation at the rate `k`) from `g(0)`: `y = g` exactly, and an explicit method is
    /// held to `h ≈ 3/k`. One guard, `y₁ − ½`, fires at `t = π/6` and relabels the mode (the
    /// flow goes on).
    /// In units: time in `tau`, the state in `a` (`Stiff::new` gives 1 and 1).
    struct Stiff {
        k: f64,
        tau: f64,
        a: f64,
    }

    impl Stiff {
        fn new(k: f64) -> Self {
            Stiff { k, tau: 1.0, a: 1.0 }
        }
    }

    impl Hybrid for Stiff {
        type State = nalgebra::Vector2<f64>;
        type Mode = u8;
        fn time_scale(&self) -> f64 {
            self.tau
        }
        fn state_scale(&self) -> Self::State {
            nalgebra::Vector2::new(self.a, self.a)
        }
        fn initial_mode(&self, _t: f64, _x: &mut Self::State) -> Result<u8, ModeFailure> {
            Ok(0)
        }
        fn flow(&self, _mode: &u8, t: f64, x: &Self::State) -> Self::State {
            let (t, x) = (t / self.tau, x / self.a);
            let (e0, e1) = (x[0] - t.cos(), x[1] - t.sin());
            nalgebra::Vector2::new(self.k * (-e0 + e1) - t.sin(), self.k * (-e0 - e1) + t.cos()) * (self.a / self.tau)
        }
        fn guard_count(&self, mode: &u8) -> usize {
            usize::from(*mode == 0)
        }
        fn guards(&self, _mode: &u8, _t: f64, x: &Self::State, out: &mut [f64]) {
            if let Some(g) = out.first_mut() {
                *g = 0.5 * self.a - x[1];
            }
        }
        fn transition(&self, _mode: &u8, _fired: &[usize], _t: f64, x: &Self::State) -> Transition<Self::State, u8> {
            Transition::Jump { state: *x, mode: 1, info: EventInfo::new(EventKind::Reset, None) }
        }
    }

    #[test]
    fn a_stiff_flow_handed_to_the_rosenbrock_method_gives_the_same_events_and_states_for_less_work() {
        // The same run with DOPRI5 alone and with the stiff hand-over (difference Jacobians:
        // the system gives none; a time-dependent field: the f_t term): both locate the event
        // at π/6 and end at (cos 0.6, sin 0.6) to the tolerance; the hand-over needs a fraction of
        // the evaluations. Without it the explicit method's step is held near 1.75/(√2 k).
        let sys = Stiff::new(1e6);
        let tol = Tolerances { rtol: 1e-10, atol: 1e-10 };
        let mut ends = vec![];
        for stiff in [false, true] {
            let s = DriverSettings { t_max: 0.6, tol, stiff, ..Default::default() };
            let (run, log) = EventDriver::new(s).run_logged(&sys, 0.0, nalgebra::Vector2::new(1.0, 0.0), &[]);
            assert_eq!(run.termination, Termination::TimeLimit, "stiff = {stiff}");
            assert_eq!(log.len(), 1, "stiff = {stiff}");
            let t_event = std::f64::consts::FRAC_PI_6;
            assert!((log[0].t - t_event).abs() < 1e-9, "stiff = {stiff}: event at {}", log[0].t);
            let exact = nalgebra::Vector2::new(0.6f64.cos(), 0.6f64.sin());
            assert!((run.state - exact).amax() < 1e-8, "stiff = {stiff}: {:?}", run.state - exact);
            ends.push((run.state, run.evaluations));
        }
        assert!(ends[0].1 > 1_000_000, "DOPRI5 alone: {} evaluations", ends[0].1);
        assert!(10 * ends[1].1 < ends[0].1, "{} evaluations with the hand-over against {}", ends[1].1, ends[0].1);
    }

    #[test]
    fn units_change_neither_the_hand_over_nor_its_answer() {
        // The stiff run with time in 1e±8 and the state in 1e∓8 (and both the same way): the
        // hand-over's rules are dimensionless (h times the spectral radius, evaluations), so
        // the event, the end state and the work are those of the run in unit units.
        let tol = Tolerances { rtol: 1e-10, atol: 1e-10 };
        let run = |tau: f64, a: f64| {
            let sys = Stiff { k: 1e6, tau, a };
            let s = DriverSettings { t_max: 0.6 * tau, tol, stiff: true, ..Default::default() };
            EventDriver::new(s).run_logged(&sys, 0.0, nalgebra::Vector2::new(a, 0.0), &[])
        };
        let (unit, _) = run(1.0, 1.0);
        for (tau, a) in [(1e8, 1e-8), (1e-8, 1e8), (1e8, 1e8), (1e-8, 1e-8)] {
            let (r, log) = run(tau, a);
            assert_eq!(r.termination, Termination::TimeLimit, "tau {tau:e}, a {a:e}");
            assert_eq!(log.len(), 1, "tau {tau:e}, a {a:e}");
            assert!((log[0].t / tau - std::f64::consts::FRAC_PI_6).abs() < 1e-9, "tau {tau:e}: event at {}", log[0].t);
            let exact = nalgebra::Vector2::new(0.6f64.cos(), 0.6f64.sin());
            assert!((r.state / a - exact).amax() < 1e-8, "tau {tau:e}, a {a:e}: {:?}", r.state / a - exact);
            let (n, n1) = (r.evaluations as f64, unit.evaluations as f64);
            assert!((n - n1).abs() <= 0.05 * n1, "tau {tau:e}, a {a:e}: {n} evaluations against {n1}");
        }
    }
}
