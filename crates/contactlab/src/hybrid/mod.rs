//! The hybrid dynamics core: systems that flow in discrete modes and jump at events.
//!
//! Everything that simulates contacts in contactlab — P1's zero-order dynamics and its nonlinear
//! model, P2's walkers, P3's completed Lagrangian systems — is a [`Hybrid`] system run by one
//! [`driver::EventDriver`]:
//!
//! * a **mode** (the discrete state: which contacts are closed, sticking or slipping) fixes the
//!   vector field [`Hybrid::flow`] and a set of **guards** [`Hybrid::guards`], functions of the
//!   state that are positive while the mode lasts;
//! * the driver integrates the flow ([`ode::Dopri5`]; on a stretch it finds stiff, where the
//!   settings ask for it, the Rosenbrock method [`stiff::Rodas4`]; or the system's own closed
//!   form through [`Hybrid::next_event`]), locates the first guard zero on the dense output
//!   ([`roots::crossing`]) and asks the system for the [`Transition`]: the state after the event
//!   (an impact, a relabelling) and the next mode — or the evidence that no consistent mode, or
//!   several, exist (Painlevé, indeterminacy), which ends the run;
//! * it detects **Zeno** executions from the geometric decay of impact intervals and
//!   extrapolates the Zeno time and state from that series, then hands the limit to the system's
//!   [`Hybrid::zeno_limit`] (the completed execution of P3, Definitions 3–4);
//! * [`driver::Observer`]s see every step and event and can stop the run; Poincaré sections
//!   ([`section`]) are located like guards and build return maps, their fixed points and Floquet
//!   multipliers.
//!
//! [`lagrangian::Lagrangian`] is the [`Hybrid`] system of any
//! [`crate::mechanics::ContactSystem`]: an n-DOF Lagrangian system with unilateral, frictional
//! contacts, Newton or frictional impacts and Zeno completion.
//!
//! # Conventions
//! Guards are positive inside the mode; an event is a guard reaching zero from above. Event
//! times are located to `1e-12` of the system's time scale. Tolerances are relative to the
//! system's own scales ([`Hybrid::time_scale`], [`Hybrid::state_scale`]).

pub mod driver;
pub mod lagrangian;
pub mod ode;
pub mod roots;
pub mod section;
pub mod stiff;
pub mod variational;

use std::fmt::Debug;

use serde::Serialize;

pub use driver::{DriverSettings, EventDriver, EventLog, Observer, Recorder, Run, Termination, ZenoRule};
pub use ode::{OdeState, Peak, Step, Tolerances};

/// Largest number of guards a mode may have.
pub const MAX_GUARDS: usize = 128;

/// What kind of event a guard or a transition stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A free contact reached its support.
    Impact,
    /// A closed contact's normal force reached zero.
    LiftOff,
    /// A sticking contact's friction force reached the cone (onset of slip).
    SlipOnset,
    /// A slipping contact's slip velocity reached zero (stick or reversal).
    SlipStop,
    /// The accumulation point of infinitely many impacts (extrapolated).
    Zeno,
    /// A Poincaré section was crossed (no change of mode).
    Section,
    /// A system-specific guard (for example a relabelling after a step).
    Reset,
}

/// The discrete outcome of an event, chosen by the system.
#[derive(Debug, Clone)]
pub enum Transition<S, M> {
    /// The state after the event and the mode that follows.
    Jump {
        /// State after the event.
        state: S,
        /// Next mode.
        mode: M,
        /// What happened.
        info: EventInfo,
    },
    /// No consistent continuation exists, or several do.
    Failed(ModeFailure),
}

/// What a transition did, for the event log and for Zeno detection.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EventInfo {
    /// The kind.
    pub kind: EventKind,
    /// The contact involved, if any.
    pub contact: Option<usize>,
    /// For impacts: the approach speed (normal velocity before the impact, as a positive number).
    pub impact_speed: Option<f64>,
    /// For impacts: the kinetic energy lost (`≥ 0` for an admissible impact law).
    pub energy_loss: Option<f64>,
    /// For an impact after which its contact flies off and must come back: the rebound's
    /// prediction of the rest of its impact series ([`Rebound`]).
    pub rebound: Option<Rebound>,
}

/// What a system predicts of the impact series after a rebound (a nearly plastic impact's
/// series is too fast or too small for the driver to simulate; module docs of
/// [`driver`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rebound {
    /// How long the rest of the series would last if it went on geometrically: the rebound's
    /// flight over `1 − ρ` (`ρ` the ratio of rebound to approach speed).
    pub tail: f64,
    /// The hop's apex over the gap's own scale (its change when every coordinate moves by its
    /// scale). The driver cannot see a hop below the round-off of the gap
    /// ([`driver::HOP_FLOOR`]).
    pub apex: f64,
}

impl EventInfo {
    /// An event without impact data.
    pub fn new(kind: EventKind, contact: Option<usize>) -> Self {
        Self { kind, contact, impact_speed: None, energy_loss: None, rebound: None }
    }
}

/// Why no mode could be chosen: the evidence a Painlevé or indeterminacy verdict rests on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeFailure {
    /// `painleve` (no consistent mode), `indeterminate` (several), `impact` (no consistent
    /// impact outcome), `singular`, `jam` or `unsettled` (no answer from the solver).
    pub kind: FailureKind,
    /// Every candidate that was tested, with its normalised consistency margin (`> 0`:
    /// consistent); empty when the failure is not a choice among modes.
    pub candidates: Vec<Candidate>,
    /// What was measured where the failure is not a choice among modes (a start inside a
    /// support, a jam, an impact LCP without solution).
    pub evidence: Option<FailureEvidence>,
}

impl ModeFailure {
    /// A failure of `kind` without candidates or evidence (e.g. a singular mass matrix).
    pub fn bare(kind: FailureKind) -> Self {
        Self { kind, candidates: Vec::new(), evidence: None }
    }

    /// A failure to choose among `candidates`.
    pub fn among(kind: FailureKind, candidates: Vec<Candidate>) -> Self {
        Self { kind, candidates, evidence: None }
    }

    /// A failure backed by a measurement.
    pub fn measured(kind: FailureKind, evidence: FailureEvidence) -> Self {
        Self { kind, candidates: Vec::new(), evidence: Some(evidence) }
    }
}

/// One candidate mode (or impact outcome) of a [`ModeFailure`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// The mode as the system prints it (`FS`, `[Stick, Slip(1)]`, ...: the mode type is the
    /// system's own).
    pub mode: String,
    /// Normalised consistency margin (`> 0`: consistent; `−∞`: the outcome does not exist).
    pub margin: f64,
}

/// The measurement behind a [`ModeFailure`] that is not a choice among modes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "what")]
pub enum FailureEvidence {
    /// The initial state lies inside a support: contact `contact` has the gap `gap < 0` (m).
    Penetration {
        /// The contact.
        contact: usize,
        /// Its gap (m, negative).
        gap: f64,
    },
    /// A slipping contact reached `B = 0` ([`FailureKind::Jam`]): `A`, `B` (P2, eq. 21), `B`
    /// made dimensionless by `w_nᵀM⁻¹w_n`, and the normal force `A/B` of the last evaluation.
    Jam {
        /// The contact.
        contact: usize,
        /// `A` (m/s²).
        a: f64,
        /// `B` (1/kg).
        b: f64,
        /// `B / (w_nᵀM⁻¹w_n)` (dimensionless).
        b_hat: f64,
        /// The normal force (N).
        normal_force: f64,
    },
    /// The acceleration-level contact problem over the touching contacts (3-D, FC3D by
    /// Gauss–Seidel) ended unsolved: its status, residual and sweeps, and, for Painlevé's
    /// signature, the sliding contact that needed a push with its normal response to its own
    /// force `(Wᵢᵢ (1, −μ d))_n` not positive, that response divided by `Wᵢᵢ,nn`
    /// (dimensionless; `B̂` of P2's eq. 21 for a lone contact).
    ContactProblem {
        /// Gauss–Seidel's status.
        status: crate::fc3d::Fc3dStatus,
        /// Its residual (relative).
        residual: f64,
        /// Sweeps done.
        sweeps: usize,
        /// Painlevé's signature: the sliding contact.
        #[serde(skip_serializing_if = "Option::is_none")]
        contact: Option<usize>,
        /// Painlevé's signature: its normal response over `Wᵢᵢ,nn`.
        #[serde(skip_serializing_if = "Option::is_none")]
        b_hat: Option<f64>,
    },
    /// Newton's impact law as an LCP ended without a solution.
    ImpactLcp {
        /// The solver's status.
        status: crate::lcp::LcpStatus,
    },
}

/// The kind of a [`ModeFailure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// No consistent mode (Painlevé inconsistency).
    Painleve,
    /// Several consistent modes (Painlevé indeterminacy).
    Indeterminate,
    /// The contact problem's solver stopped without an answer and without Painlevé's
    /// signature (3-D: Gauss–Seidel did not settle): no verdict, a numerical failure.
    Unsettled,
    /// No consistent impact outcome.
    Impact,
    /// The state left the system's domain (a singular mass matrix or Jacobian, a non-finite
    /// value).
    Singular,
    /// A consistent slip reached `B = 0` (P2, eq. 21) with `A ≥ 0`: no finite-force continuation
    /// is certain. It is dynamic jamming (Definition 1) when the normal force `A/B` grows as `B`
    /// vanishes; when `A` vanishes with `B` the force may instead fall to zero (P2's case
    /// `μ < μ_c`). A caller that has the trajectory tells them apart from the approach
    /// ([`crate::painleve::slip::slip`]).
    Jam,
}

/// A next event known in closed form ([`Hybrid::next_event`]).
#[derive(Debug, Clone)]
pub struct ExactEvent<S> {
    /// Time to the event from the current state (`+∞`: none).
    pub dt: f64,
    /// The guard that fires.
    pub guard: usize,
    /// The state at the event.
    pub state: S,
    /// The dense output of the segment up to the event (for observers).
    pub segment: Option<Step<S>>,
}

/// A hybrid system: modes, flows, guards and transitions.
pub trait Hybrid {
    /// The continuous state.
    type State: OdeState;
    /// The discrete state.
    type Mode: Copy + PartialEq + Debug + Send + Sync;

    /// Characteristic time (event times are located to `1e-12` of it).
    fn time_scale(&self) -> f64;
    /// Characteristic magnitude of each state component (absolute tolerances are relative to it).
    fn state_scale(&self) -> Self::State;
    /// The mode at the start of a run from `x` (which the system may project onto its
    /// constraints).
    fn initial_mode(&self, t: f64, x: &mut Self::State) -> Result<Self::Mode, ModeFailure>;
    /// An event that must happen at once at the start (for example an impact of a contact that
    /// starts on its support moving into it); the driver logs it like any other event.
    fn initial_transition(&self, _t: f64, _x: &Self::State) -> Option<Transition<Self::State, Self::Mode>> {
        None
    }
    /// The vector field of `mode`.
    fn flow(&self, mode: &Self::Mode, t: f64, x: &Self::State) -> Self::State;
    /// Number of guards of `mode` (at most [`MAX_GUARDS`]).
    fn guard_count(&self, mode: &Self::Mode) -> usize;
    /// Guard values (positive inside the mode; `+∞` for a guard that cannot fire).
    fn guards(&self, mode: &Self::Mode, t: f64, x: &Self::State, out: &mut [f64]);
    /// The transition when the guards `fired` reach zero together at `(t, x)`.
    fn transition(
        &self,
        mode: &Self::Mode,
        fired: &[usize],
        t: f64,
        x: &Self::State,
    ) -> Transition<Self::State, Self::Mode>;
    /// Largest step the integrator may take from `(t, x)` (for example the time to the next
    /// extremum of a gap, so that no guard can cross twice within a step).
    fn step_limit(&self, _mode: &Self::Mode, _t: f64, _x: &Self::State) -> f64 {
        f64::INFINITY
    }
    /// The next event in closed form, for systems that can compute it (P1's zero-order dynamics);
    /// `None` makes the driver integrate numerically.
    fn next_event(&self, _mode: &Self::Mode, _t: f64, _x: &Self::State) -> Option<ExactEvent<Self::State>> {
        None
    }
    /// Whether the state has left the region of interest (the run then ends as diverged), e.g.
    /// velocities grown far beyond the perturbation's.
    fn diverged(&self, _t: f64, _x: &Self::State) -> bool {
        false
    }
    /// Whether `(mode, x)` is an equilibrium (the run then ends at rest).
    fn at_rest(&self, _mode: &Self::Mode, _x: &Self::State) -> bool {
        false
    }
    /// The completed execution after a Zeno point of `contact`: `x` is the extrapolated limit of
    /// the impact states and `last` the state after the last simulated impact (its magnitudes
    /// tell which other quantities vanish with the series); the system projects the limit onto
    /// the constraint and chooses the mode.
    fn zeno_limit(
        &self,
        _mode: &Self::Mode,
        _contact: usize,
        _t: f64,
        _x: &Self::State,
        _last: &Self::State,
    ) -> Option<Transition<Self::State, Self::Mode>> {
        None
    }
    /// Whether `contact` is closed (held on its constraint) in `mode`; used by
    /// [`driver::PoincareSection::Closing`]. Systems without contacts keep the default.
    fn closed(&self, _mode: &Self::Mode, _contact: usize) -> bool {
        false
    }
    /// Total energy, when the system has one (for energy checks and logs).
    fn energy(&self, _t: f64, _x: &Self::State) -> Option<f64> {
        None
    }
    /// The exact Jacobian `Df` of the flow of `mode` at `(t, x)`, `n × n` over the state's
    /// components in storage order, for the variational equations ([`variational`]); `None`
    /// (the default) when the system does not provide it.
    fn flow_jacobian(&self, _mode: &Self::Mode, _t: f64, _x: &Self::State) -> Option<nalgebra::DMatrix<f64>> {
        None
    }
    /// The gradient of guard `guard` of `mode` at `(t, x)` (for an autonomous guard); `None`
    /// when not provided.
    fn guard_gradient(
        &self,
        _mode: &Self::Mode,
        _guard: usize,
        _t: f64,
        _x: &Self::State,
    ) -> Option<nalgebra::DVector<f64>> {
        None
    }
    /// The Jacobian `DΠ` of the completion at a Zeno point (`event` of kind `Zeno`, whose
    /// `before` is the extrapolated Zeno state): the map onto the constrained state
    /// ([`variational`]); `None` when not provided.
    fn zeno_jacobian(&self, _event: &driver::EventRecord<Self::State, Self::Mode>) -> Option<nalgebra::DMatrix<f64>> {
        None
    }
    /// The jump matrix `DΔ = ∂x⁺/∂x⁻` of the transition `event` made (its reset with the
    /// pattern of the outcome fixed); `None` when not provided.
    fn jump_jacobian(&self, _event: &driver::EventRecord<Self::State, Self::Mode>) -> Option<nalgebra::DMatrix<f64>> {
        None
    }
}
