//! Single-contact walkers (paper P2, Or): gaits, stick and slip, Painlevé's paradox and dynamic
//! jamming: P2's front door to the general analyses.
//!
//! The walkers ([`crate::mechanics::walkers`]) are [`ContactSystem`]s with a stance contact
//! (contact 0) and a swing contact (contact 1), written by hand in P2's coordinates;
//! [`multibody`] builds the same walkers as multibody [`crate::multibody::Mechanism`]s, and
//! [`MultibodyWalker`] puts P2's chart on them: the commands and the report run the analyses
//! below on it (the hand-written walkers are the tests' oracle). This module holds what is P2's
//! own:
//!
//! * [`gait`] ([`multibody::gait`]): the periodic gait, the general gait search
//!   ([`crate::multibody::gait`], exact derivatives) on the walker's multibody model, in P2's
//!   coordinates with `μ_stick = max |f_t/f_n|` along the step and the impulse ratio `|F_t/F_n|`
//!   at heel strike (eq. 13);
//! * [`ab`]: `A(q, q̇)` and `B(q, μ)` of eqs. (20)–(21) for slip direction `σ`, and the case of
//!   Table 2.1 they select ([`SlipCase`]) (re-exported from [`crate::painleve`]), [`painleve`]'s
//!   `μ_min` and regions `B < 0`, [`slip`] episodes, [`proof`] of the rimless wheel's gait;
//! * [`WalkerChart`]: P2's section and the front ends' units (`τ_c`) of each walker.
//!
//! Signs: `A` and `B` follow P2 (`a_n = −A + B f_n`), with the core's bias `h = −(H + G)`:
//! `A = −w_nᵀM⁻¹h − ẇ_nᵀq̇`, `B = w_nᵀM⁻¹(w_n − σμ w_t)`.

use nalgebra::{dvector, DVector};

use crate::hybrid::driver::EventRecord;
use crate::hybrid::lagrangian::{join, ContactMode, Lagrangian, Modes, State};
use crate::hybrid::{EventDriver, EventKind, Observer, Step};
use crate::mechanics::walkers::{CompassBiped, RimlessWheel};
use crate::mechanics::ContactSystem;

pub mod model;
pub mod multibody;
pub mod painleve;
pub mod plots;
pub mod proof;

pub use multibody::{gait, MultibodyWalker, WalkerGait};

// The Painlevé quantities and slip episodes of any system, on which P2's analyses stand.
pub use crate::painleve::{ab, ab_terms, desingular, slip, slip_case, AbTerms, SlipCase};

/// Coordinates on the post-impact section of a walker: the state right after heel strike and
/// relabelling, with the new stance foot at the origin and at rest.
pub trait WalkerChart: ContactSystem + Sized {
    /// The post-impact state with section coordinates `y`.
    fn lift(&self, y: &DVector<f64>) -> State;
    /// Number of angles that fix the configuration up to the stance foot's position (1 or 2).
    fn angle_count(&self) -> usize;
    /// The configuration with the stance foot at the origin and these angles.
    fn configuration(&self, angles: &[f64]) -> DVector<f64>;

    // What the front ends exchange with a walker of this kind: the one place (with the model
    // file's reader) that a new kind of walker fills in.

    /// The kind's name in messages (`rimless wheel`).
    fn kind_name(&self) -> &'static str;
    /// The unit of time of the states and times the front ends exchange (s): the rimless wheel
    /// works in units of `τ_c` (P2), the compass biped in seconds.
    fn time_unit(&self) -> f64;
    /// Names of the section coordinates as the front ends give them (a gait guess).
    fn section_names(&self) -> &'static [&'static str];
    /// Section coordinates (SI) from values in the front ends' units, one per
    /// [`WalkerChart::section_names`].
    fn section_from_user(&self, values: &[f64]) -> DVector<f64>;
    /// Names of a slip's initial state as the front ends give it.
    fn slip_state_names(&self) -> &'static [&'static str];
    /// The state `(q, q̇)` (SI, stance foot at the origin) from a slip's initial state in the
    /// front ends' units, one value per [`WalkerChart::slip_state_names`].
    fn slip_state_from_user(&self, values: &[f64]) -> (DVector<f64>, DVector<f64>);
    /// The unit vector of `q̇` along which the stance foot slips (its speed `ẋ`).
    fn slip_direction(&self) -> DVector<f64>;
    /// A state `(q, q̇)` of this system in P2's coordinates of the walker
    /// ([`crate::mechanics::walkers`]; the identity for the walkers written in them).
    fn walker_state(&self, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
        (q.to_vec(), v.to_vec())
    }
    /// A state in P2's coordinates as this system's (the inverse of
    /// [`WalkerChart::walker_state`]).
    fn system_state(&self, q: &[f64], v: &[f64]) -> (DVector<f64>, DVector<f64>) {
        (DVector::from_column_slice(q), DVector::from_column_slice(v))
    }
}

/// P2's compass-biped gait `(θ₁, θ̇₁, θ̇₂)` after heel strike: the default initial guess.
pub const COMPASS_GAIT_GUESS: [f64; 3] = [-0.148, 0.733, -0.501];

impl WalkerChart for RimlessWheel {
    fn lift(&self, y: &DVector<f64>) -> State {
        join(&dvector![0.0, 0.0, -self.half_angle()], &dvector![0.0, 0.0, y[0]])
    }
    fn angle_count(&self) -> usize {
        1
    }
    fn configuration(&self, angles: &[f64]) -> DVector<f64> {
        dvector![0.0, 0.0, angles[0]]
    }
    fn kind_name(&self) -> &'static str {
        "rimless wheel"
    }
    fn time_unit(&self) -> f64 {
        self.tau_c()
    }
    fn section_names(&self) -> &'static [&'static str] {
        &["theta_dot"]
    }
    fn section_from_user(&self, values: &[f64]) -> DVector<f64> {
        DVector::from_element(1, values[0] / self.tau_c())
    }
    fn slip_state_names(&self) -> &'static [&'static str] {
        &["theta", "theta_dot", "x_dot"]
    }
    fn slip_state_from_user(&self, values: &[f64]) -> (DVector<f64>, DVector<f64>) {
        let tc = self.tau_c();
        (dvector![0.0, 0.0, values[0]], dvector![values[2] / tc, 0.0, values[1] / tc])
    }
    fn slip_direction(&self) -> DVector<f64> {
        dvector![1.0, 0.0, 0.0]
    }
}

impl WalkerChart for CompassBiped {
    fn lift(&self, y: &DVector<f64>) -> State {
        join(&dvector![y[0], y[0], 0.0, 0.0], &dvector![y[1], y[2], 0.0, 0.0])
    }
    fn angle_count(&self) -> usize {
        2
    }
    fn configuration(&self, angles: &[f64]) -> DVector<f64> {
        dvector![angles[0], angles[1], 0.0, 0.0]
    }
    fn kind_name(&self) -> &'static str {
        "compass biped"
    }
    fn time_unit(&self) -> f64 {
        1.0
    }
    fn section_names(&self) -> &'static [&'static str] {
        &["theta1", "theta1_dot", "theta2_dot"]
    }
    fn section_from_user(&self, values: &[f64]) -> DVector<f64> {
        DVector::from_column_slice(values)
    }
    fn slip_state_names(&self) -> &'static [&'static str] {
        &["theta1", "theta2", "theta1_dot", "theta2_dot", "x_dot"]
    }
    fn slip_state_from_user(&self, values: &[f64]) -> (DVector<f64>, DVector<f64>) {
        (dvector![values[0], values[1], 0.0, 0.0], dvector![values[2], values[3], values[4], 0.0])
    }
    fn slip_direction(&self) -> DVector<f64> {
        dvector![0.0, 0.0, 1.0, 0.0]
    }
}

/// Settings of the walker analyses.
#[derive(Debug, Clone, Copy)]
pub struct WalkerSettings {
    /// Relative integration tolerance.
    pub rtol: f64,
    /// Longest step, in units of the system's time scale.
    pub max_step_time: f64,
}

impl Default for WalkerSettings {
    fn default() -> Self {
        Self { rtol: 1e-10, max_step_time: 100.0 }
    }
}

impl WalkerSettings {
    /// Checks every setting (an [`crate::Error::Argument`] names the first that is out of range).
    pub fn validate(&self) -> Result<(), crate::Error> {
        crate::error::fraction("rtol", self.rtol)?;
        crate::error::positive("max_step_time", self.max_step_time)?;
        Ok(())
    }
}

impl WalkerSettings {
    fn driver(&self, t_max: f64) -> EventDriver {
        crate::painleve::SlipSettings::from(self).driver(t_max)
    }
}

impl From<&WalkerSettings> for crate::painleve::SlipSettings {
    fn from(s: &WalkerSettings) -> Self {
        Self { rtol: s.rtol, max_step_time: s.max_step_time }
    }
}

/// The sticking impulse `F = −(W̃ M⁻¹ W̃ᵀ)⁻¹ W̃ q̇⁻` of eq. (13) at the swing contact:
/// `(F_t, F_n)`.
pub fn sticking_impulse<S: ContactSystem>(sys: &S, q: &DVector<f64>, v: &DVector<f64>) -> (f64, f64) {
    let m = sys.mass_matrix(q);
    let Some(chol) = m.cholesky() else { return (f64::NAN, f64::NAN) };
    let (wt, wn) = (sys.tangent_jacobian(1, q), sys.normal_jacobian(1, q));
    let (bt, bn) = (chol.solve(&wt), chol.solve(&wn));
    let d = nalgebra::Matrix2::new(wt.dot(&bt), wt.dot(&bn), wn.dot(&bt), wn.dot(&bn));
    let u = nalgebra::Vector2::new(wt.dot(v), wn.dot(v));
    match d.try_inverse() {
        Some(di) => {
            let f = -(di * u);
            (f[0], f[1])
        }
        None => (f64::NAN, f64::NAN),
    }
}

/// One step of the walker from the post-impact state with section coordinates `y`, sampled
/// (`(t, q, q̇)` in P2's coordinates, [`WalkerChart::walker_state`]; 8 points per integration
/// step) up to the heel strike (pre-impact state last).
pub fn step_trajectory<W: WalkerChart>(
    walker: &W,
    y: &DVector<f64>,
    settings: &WalkerSettings,
) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    struct Rec<'a, W>(Vec<(f64, Vec<f64>, Vec<f64>)>, &'a W);
    impl<W: WalkerChart> Rec<'_, W> {
        fn push(&mut self, t: f64, x: &State) {
            let (q, v) = self.1.walker_state(x.column(0).as_slice(), x.column(1).as_slice());
            self.0.push((t, q, v));
        }
    }
    impl<W: WalkerChart> Observer<State, Modes> for Rec<'_, W> {
        fn on_start(&mut self, t: f64, x: &State, _m: &Modes) {
            self.push(t, x);
        }
        fn on_step(&mut self, step: &Step<State>, t_end: f64, _m: &Modes) -> std::ops::ControlFlow<()> {
            for (t, x) in step.samples(t_end, 8) {
                self.push(t, &x);
            }
            std::ops::ControlFlow::Continue(())
        }
        fn on_event(&mut self, ev: &EventRecord<State, Modes>) -> std::ops::ControlFlow<()> {
            if ev.info.kind == EventKind::Impact && ev.info.contact == Some(1) {
                self.push(ev.t, &ev.before);
                return std::ops::ControlFlow::Break(());
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let lag = Lagrangian::new(walker);
    let mut rec = Rec(Vec::new(), walker);
    settings.driver(settings.max_step_time * walker.time_scale()).run(&lag, 0.0, walker.lift(y), &[], &mut rec);
    rec.0
}

/// The sticking force ratio `R = f_t/f_n` (eq. 5) along sampled states `(t, q, q̇)` (in P2's
/// coordinates, as [`step_trajectory`] gives them) of a walker whose stance foot sticks (P2
/// Fig. 4.1d).
pub fn stick_force_ratio<W: WalkerChart>(walker: &W, samples: &[(f64, Vec<f64>, Vec<f64>)]) -> Vec<(f64, f64)> {
    let lag = Lagrangian::new(walker);
    let mut mode = Modes::free(walker.contact_count());
    mode.set(0, ContactMode::Stick);
    samples
        .iter()
        .filter_map(|(t, q, v)| {
            let (q, v) = walker.system_state(q, v);
            lag.solve_mode(&mode, *t, &q, &v).map(|s| (*t, s.lambda_t[0] / s.lambda_n[0]))
        })
        .collect()
}

/// A slip's end ([`slip::slip`] on the walker's system) with its state and samples in P2's
/// coordinates ([`WalkerChart::walker_state`]).
pub fn slip_in_walker_coordinates<W: WalkerChart>(walker: &W, mut e: slip::SlipEnd) -> slip::SlipEnd {
    let n = walker.dof();
    let (q, v) = walker.walker_state(&e.state[..n], &e.state[n..]);
    e.state = [q, v].concat();
    for p in &mut e.trace {
        (p.1, p.2) = walker.walker_state(&p.1, &p.2);
    }
    e
}

/// The rimless wheel's closed forms under sticking contact (P2 eqs. 26–27): `β` and the
/// post-impact rate `θ̇*` of the gait.
pub fn rimless_closed_form(w: &RimlessWheel) -> (f64, f64) {
    let n = w.spokes as f64;
    let beta = ((2.0 * std::f64::consts::PI / n).cos() + w.kappa) / (1.0 + w.kappa);
    let rate = 2.0 * beta * (w.slope.sin() * w.half_angle().sin() / (1.0 - beta * beta)).sqrt();
    (beta, rate / w.tau_c())
}
