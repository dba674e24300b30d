//! Any [`ContactSystem`] as a [`Hybrid`](super::Hybrid) system: contact modes, constraint forces, impacts and
//! the completed (post-Zeno) flow.
//!
//! The state is the `N × 2` matrix `[q | q̇]`. Each contact is free, closed and sticking, or closed
//! and slipping in the `+x` or `−x` direction ([`ContactMode`]; a closed frictionless contact is
//! `Slip(0)`).
//!
//! # Flow in a mode
//! The unknown forces are `λ_n` of every closed contact and `λ_t` of every sticking one; in slip
//! `λ_t = −s μ λ_n`. They follow from the constrained equations: `g̈ = w_nᵀq̈ + ẇ_nᵀq̇ = 0` for
//! closed contacts and `ẍ = 0` for sticking ones, with `q̈ = M⁻¹(h + Σ w λ)`, a small dense system
//! in the contact-space (Delassus) matrix `C M⁻¹ W`. Redundant constraints (a body sticking at more
//! points than it has degrees of freedom) make it singular; the motion is then still unique and is
//! computed from the minimum-norm forces, and the existence of admissible forces is decided by a
//! linear program over the whole family.
//!
//! # Guards (three per contact)
//! | mode | guard `3i` | guard `3i + 1` | guard `3i + 2` |
//! |---|---|---|---|
//! | free | gap `gᵢ` (impact) | — | — |
//! | sticking | `λ_n` (lift-off) | `μλ_n − |λ_t|` (onset of slip) | — |
//! | slipping `s` | `λ_n` (lift-off) | `s ẋᵢ` (slip stops: stick or reversal) | `B̂ᵢ` (jam) |
//! | closed, frictionless | `λ_n` (lift-off) | — | — |
//!
//! `B̂ᵢ = Bᵢ / (w_nᵀM⁻¹w_n)` with `Bᵢ = w_nᵀM⁻¹(w_n − sμ w_t)` (P2, eq. 21) is the normal
//! acceleration per unit normal force of the slipping contact, made dimensionless. While it is
//! positive the slip is consistent (`λ_n = A/B`); when it reaches zero with `A ≥ 0` the run ends
//! with a [`FailureKind::Jam`](super::FailureKind::Jam) and the values of `A`, `B` and `λ_n` as evidence: dynamic jamming
//! (P2, Definition 1) when the force grows without bound, a separation when `A` vanishes first,
//! which the caller decides from the approach ([`crate::painleve::slip`]). (With several closed
//! contacts `Bᵢ` is the contact's own diagonal term, exact when it is the only closed one.)
//!
//! [`Hybrid::step_limit`](super::Hybrid::step_limit) ends a step at the next extremum of a free gap predicted from its
//! second-order expansion — 1.5 times the time to an apex while the gap is below half the rise,
//! the time to a valley whose depth may reach zero — so no gap crosses zero twice within a step;
//! and, while a slipping contact's `B̂ᵢ` decreases, at half the time to `B̂ᵢ = 0`, so the steps
//! approach the pole of `λ_n` geometrically and their ends sample the approach.
//!
//! # Choosing the mode
//! After every event the next mode is chosen among all candidates compatible with each contact's
//! state (touching at tangential rest: free, stick, slip ±; touching and slipping in `s`: free,
//! slip `s`; separated: free) by the consistency inequalities: `λ_n ≥ 0`, `|λ_t| ≤ μλ_n`, a free
//! touching contact must not accelerate into its support, and a slip starting from rest must
//! accelerate in its direction. Margins are normalised by the force-free contact accelerations
//! and the matching force scale, so they do not depend on units. Exactly one consistent candidate
//! is taken; none is a Painlevé inconsistency and several an indeterminacy, reported with every
//! candidate's margin. At a lift-off and at the onset of slip the event itself fixes the
//! contact's next mode (its margin is zero at that instant by definition).
//!
//! # Impacts
//! Every contact touching its support takes part. Frictionless contacts follow Newton's law
//! `0 ≤ Λ ⟂ ġ⁺ + e ġ⁻ ≥ 0`, `ġ⁺ = ġ⁻ + A Λ`, with `A = W_nᵀ M⁻¹ W_n`: one contact in closed form,
//! several as an LCP solved by Lemke's method. With friction every contact is passive, sticking
//! (`ẋ⁺ = 0`, `|Λ_t| ≤ μΛ_n`) or slipping (`Λ_t = −sμΛ_n`, `sẋ⁺ ≥ 0`) with `ġ⁺ = −e ġ⁻` when active;
//! among the consistent outcomes the one with the most active contacts, then the most sticking
//! ones, then the largest margin is taken (P1's order of preference). For one contact with `e = 0`
//! this is the sticking impact when the sticking impulse lies in the friction cone and otherwise
//! Chatterjee and Ruina's slipping impact with `e = e_t = 0` (P2, eqs. 11–18). Newton's law with
//! friction and `e > 0` can gain energy (a slip that reverses during the impact, eccentric
//! contacts: Stronge's examples); when its outcome would, the restitution of that impact is
//! lowered to the largest fraction of `e` (by bisection) whose outcome does not, so that no
//! impact gains energy (the plastic outcome never does; the property test
//! `frictional_impacts_with_restitution_never_gain_energy` runs random mechanisms). The system's
//! [`ContactSystem::relabel`] runs after the impact.
//!
//! # Many contacts
//! Testing every combination costs `4^k` mode solves for `k` touching contacts at rest. Above
//! [`ENUMERATION_LIMIT`] candidates (more than four such contacts) the mode comes from the
//! contacts' linear complementarity problem instead, solved by Lemke's method with the LCP
//! core's certified fallbacks ([`crate::lcp::solve`]): at the acceleration level, per touching
//! contact the normal force `λ_n ⊥ g̈ ≥ 0`, and for one at tangential rest with friction the
//! planar Stewart–Trinkle form `λ_t = β⁺ − β⁻`, `ẍ + s ⊥ β⁺`, `−ẍ + s ⊥ β⁻`, `μλ_n − β⁺ − β⁻ ⊥ s`
//! (a slipping contact has `λ_t = −sμλ_n`). The mode read off its solution (free where `λ_n`
//! vanishes and the gap opens, slip where `s > 0`, else stick) is then checked by the same
//! consistency margins as an enumerated one. Impacts with more than four contacts use the
//! velocity-level form of the same LCP with `ġ⁺ + e ġ⁻ ⊥ Λ_n`. An LCP without solution is a
//! Painlevé inconsistency (impact: no outcome); the LCP does not tell whether other modes are
//! consistent too, so above the limit an indeterminacy is not detected (the LCP's solution is
//! taken), and an impact takes the LCP's outcome rather than P1's order of preference.
//!
//! # Zeno completion
//! At a Zeno point (located by the driver) the state is projected onto the contact's constraint
//! (`g = 0`, `ġ = 0`, mass-weighted) and the constrained mode is chosen as above; the contact then
//! stays closed until its normal force crosses zero (P3, Definitions 3–4).
//!
//! # Rest
//! A mode whose closed contacts all stick (or are frictionless) with constraint rows of rank `N`
//! is an equilibrium: the velocity is zero on the constraints and the run ends at rest (only for
//! an [autonomous](ContactSystem::autonomous) system).
//!
//! # Files
//! * `modes.rs`: [`ContactMode`], [`Modes`], the mode solve ([`Lagrangian::solve_mode`]), the
//!   consistency margins and the choice of the mode with its Painlevé evidence;
//! * `constraints.rs`: the dense constrained solve shared by forces and impulses, and the
//!   projection onto constraints;
//! * `impacts.rs`: Newton's and the frictional impact laws;
//! * `hybrid_impl.rs`: the [`Hybrid`](super::Hybrid) implementation (guards, step limits,
//!   transitions, Zeno completion).

use std::cell::RefCell;

use nalgebra::{DMatrix, DVector};

use crate::mechanics::ContactSystem;

mod constraints;
mod hybrid_impl;
mod impacts;
mod modes;
mod variational;

pub use modes::{ContactMode, ModeSolution, Modes};

/// Largest number of contacts of a [`Lagrangian`] system.
pub const MAX_CONTACTS: usize = 16;

/// Relative tolerance of contact detection: a gap within `CONTACT_TOL` of the length scale is
/// touching, a contact velocity within `CONTACT_TOL` of the velocity scale is at rest (at the
/// start, after an impact, at a Zeno point). Far above the integrator's round-off on the
/// states it produces, far below any physical gap or speed of the motion.
pub const CONTACT_TOL: f64 = 1e-9;

/// Default [`Lagrangian::margin_tol`]: a consistency margin (normalised, dimensionless) within
/// this of zero is marginal.
pub const MARGIN_TOL: f64 = 1e-9;

/// Relative size below which a singular value of a constraint matrix counts as zero (of its
/// largest entry): redundant constraints and the minimum-norm multipliers.
pub const RANK_TOL: f64 = 1e-12;

/// Relative size below which a singular value counts as zero in the rest test (of the largest
/// entry of the constraint rows): looser than [`RANK_TOL`], so that a nearly redundant set of
/// constraints does not pass for a rigid one.
pub const REST_RANK_TOL: f64 = 1e-10;

/// The projection onto constraints stops when every gap is within `PROJECTION_TOL` of the
/// length scale (round-off).
pub const PROJECTION_TOL: f64 = 1e-15;

/// The difference step of the jam step limit, relative to the time scale.
pub const JAM_RATE_STEP: f64 = 1e-7;

/// At a Zeno point, a contact joins the limit when its normal velocity is within
/// `ZENO_JOIN_VEL` of the velocity scale, or within [`ZENO_JOIN_SERIES`] of the series' own
/// speeds and gaps at its last impact (a cascade over several contacts).
pub const ZENO_JOIN_VEL: f64 = 1e-7;

/// See [`ZENO_JOIN_VEL`].
pub const ZENO_JOIN_SERIES: f64 = 1e-6;

/// Default of [`Lagrangian::enumeration_limit`]: `4⁴` candidates.
pub const ENUMERATION_LIMIT: usize = 256;

/// A [`ContactSystem`] run as a hybrid system (module docs).
#[derive(Debug, Clone)]
pub struct Lagrangian<S> {
    /// The mechanical system: read through [`Lagrangian::system`]; it is fixed once wrapped, so
    /// that the remembered mode solution below cannot go stale.
    system: S,
    /// Normalised margin below which a consistency inequality counts as marginal.
    pub margin_tol: f64,
    /// Length and time scales of the motion, overriding the system's (see [`Lagrangian::with_scales`]).
    pub scales: Option<(f64, f64)>,
    /// Above this many candidate modes (or impact outcomes) the choice is made from the
    /// contacts' LCP instead of by testing every combination ("Many contacts" in the module
    /// docs); [`ENUMERATION_LIMIT`] by default.
    pub enumeration_limit: usize,
    /// The last constrained mode solution, keyed by the exact bits of its mode, time and state.
    ///
    /// The integrator's last stage, the guards and the step limit all evaluate the same point at
    /// the end of a step; remembering it saves about a sixth of a walker step (measured on the
    /// compass biped's return map). [`Lagrangian::solve_mode`] is a pure function of its key and
    /// of the (immutable) system, so the cache cannot change a result: the test
    /// `mode_solutions_do_not_depend_on_call_order` checks that bit for bit.
    last: RefCell<Option<Solved>>,
}

/// The state `[q | q̇]` (`n × 2`).
pub type State = DMatrix<f64>;

/// A remembered mode solution: the mode, time and state it was computed at, and the result.
type Solved = (Modes, f64, State, Option<ModeSolution>);

/// `[q | q̇]` from `q` and `q̇`.
pub fn join(q: &DVector<f64>, v: &DVector<f64>) -> State {
    let mut x = DMatrix::zeros(q.len(), 2);
    x.set_column(0, q);
    x.set_column(1, v);
    x
}

/// `(q, q̇)` of a state.
pub fn split(x: &State) -> (DVector<f64>, DVector<f64>) {
    (x.column(0).into_owned(), x.column(1).into_owned())
}

impl<S: ContactSystem> Lagrangian<S> {
    /// Wraps `system` (at most [`MAX_CONTACTS`] contacts).
    pub fn new(system: S) -> Self {
        Self {
            system,
            margin_tol: MARGIN_TOL,
            scales: None,
            enumeration_limit: ENUMERATION_LIMIT,
            last: RefCell::new(None),
        }
    }

    /// The wrapped mechanical system.
    pub fn system(&self) -> &S {
        &self.system
    }

    /// Uses `length` and `time` as the scales of the motion instead of the system's own: for a
    /// small perturbation of an equilibrium, whose gaps and durations are far below the body's
    /// size and natural time (P1's perturbations move by `δ²/a` in a time `δ/a`). Tolerances on
    /// gaps, velocities and integration errors follow these scales.
    pub fn with_scales(mut self, length: f64, time: f64) -> Self {
        self.scales = Some((length, time));
        self
    }

    fn length(&self) -> f64 {
        self.scales.map_or_else(|| self.system.length_scale(), |s| s.0)
    }

    fn time(&self) -> f64 {
        self.scales.map_or_else(|| self.system.time_scale(), |s| s.1)
    }

    fn nc(&self) -> usize {
        self.system.contact_count().min(MAX_CONTACTS)
    }

    fn vel_scale(&self) -> f64 {
        self.length() / self.time()
    }

    /// Each coordinate's scale, in the length unit [`Lagrangian::with_scales`] may set.
    fn coordinate_scales(&self) -> DVector<f64> {
        self.system.coordinate_scale() * (self.length() / self.system.length_scale())
    }
}
