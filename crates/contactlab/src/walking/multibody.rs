//! P2's walkers as multibody models, and P2's gait on them.
//!
//! [`rimless_wheel`] and [`compass_biped`] build the walkers as [`Mechanism`]s from their
//! parameters ([`MechanismBuilder`]), in the layouts of `examples/multibody/rimless-wheel.toml`
//! and `examples/multibody/compass-biped.toml`; [`to_mechanism`] and [`from_mechanism`] map
//! states between P2's coordinates ([`crate::mechanics::walkers`]) and the mechanisms':
//!
//! * rimless wheel: P2's `(x, y, θ)` (stance tip, stance-spoke angle) ↔ `(x_c, y_c, φ)` (hub,
//!   wheel angle), `φ = −θ`, hub `= tip + l (sin θ, cos θ)`;
//! * compass biped: P2's `(θ₁, θ₂, x, y)` ↔ `(x_h, y_h, φ₁, φ₂)` (hip, stance-leg angle, swing
//!   leg relative to it), `φ₁ = −θ₁`, `φ₂ = θ₁ + θ₂`, hip `= foot + 2l (sin θ₁, cos θ₁)`.
//!
//! [`gait`] is the general gait search ([`crate::multibody::gait`]: Newton's method on the
//! strike-to-strike map with exact derivatives, a search from nothing when the default guess
//! fails) run on these mechanisms, its result in P2's coordinates. The mechanisms' section
//! chart has P2's coordinates plus, for the rimless wheel, the post-strike angle, which every
//! strike resets (its multiplier is zero): P2's multipliers are the chart's largest.

use nalgebra::{DVector, Vector2};
use serde::Serialize;

use super::model::WalkerModel;
use super::{rimless_closed_form, WalkerChart, COMPASS_GAIT_GUESS};
use crate::hybrid::lagrangian::{join, State};
use crate::hybrid::section::NewtonStop;
use crate::mechanics::multibody::Joint;
use crate::mechanics::multibody_system::MultibodySystem;
use crate::mechanics::walkers::{CompassBiped, RimlessWheel};
use crate::mechanics::ContactSystem;
use crate::multibody::builder::{Armed, Inertial, MechanismBuilder};
use crate::multibody::gait::{find_gaits, refine_gait, Gait as MechanismGait, GaitSettings};
use crate::multibody::Mechanism;
use crate::Error;

/// The rimless wheel as a hub-rooted planar body (module docs), at the closed-form gait's
/// post-impact state.
pub fn rimless_wheel(w: &RimlessWheel) -> Result<Mechanism, Error> {
    let (l, step) = (w.length, 2.0 * w.half_angle());
    let (q, v) = post_impact(&WalkerModel::Rimless(*w), &DVector::from_element(1, rimless_closed_form(w).1));
    let (q, v) = to_mechanism(&WalkerModel::Rimless(*w), &q, &v);
    let mut relabel = vec![0.0; 9];
    for k in 0..3 {
        relabel[4 * k] = 1.0;
    }
    MechanismBuilder::new("<rimless wheel>", w.gravity, w.slope)
        .name("p2-rimless-wheel")
        .body(
            "wheel",
            None,
            Joint::Planar,
            Inertial { mass: w.mass, inertia: w.kappa * w.mass * l * l, com: Vector2::zeros() },
        )
        .line("slope", Vector2::zeros(), Vector2::new(0.0, 1.0))
        .contact("stance tip", "wheel", Vector2::new(0.0, -l), 0.0, "slope", w.mu)
        .released_by("next tip")
        .contact("next tip", "wheel", Vector2::new(l * step.sin(), -l * step.cos()), 0.0, "slope", w.mu)
        .armed_if("wheel.theta", Armed::Below, 0.0)
        .relabel("next tip", relabel, vec![0.0, 0.0, step])
        .gait("next tip", &["wheel.x"])
        .initial(&q, &v)
        .build()
}

/// The compass biped as a hip-rooted multibody model (module docs), at rest with both feet on
/// the slope, the legs 0.15 rad either side of the normal (where the gait search starts from:
/// P2's gait itself is no start for other parameters, Drake's for one).
pub fn compass_biped(c: &CompassBiped) -> Result<Mechanism, Error> {
    let walker = WalkerModel::Compass(*c);
    let (q, _) = post_impact(&walker, &DVector::from_column_slice(&[-0.15, 0.0, 0.0]));
    let (q, v) = to_mechanism(&walker, &q, &[0.0; 4]);
    let leg = Inertial { mass: c.mass, inertia: c.inertia, com: Vector2::new(0.0, -c.l) };
    let foot = Vector2::new(0.0, -2.0 * c.l);
    #[rustfmt::skip]
    let relabel = vec![
        1.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 0.0,
        0.0, 0.0, 1.0, 1.0,
        0.0, 0.0, 0.0, -1.0,
    ];
    MechanismBuilder::new("<compass biped>", c.gravity, c.slope)
        .name("p2-compass-biped")
        .body("stance", None, Joint::Planar, leg)
        .body("hip", Some("stance"), Joint::Fixed, Inertial { mass: c.hip_mass, inertia: 0.0, com: Vector2::zeros() })
        .body("swing", Some("stance"), Joint::Revolute { axis: 1.0 }, leg)
        .line("slope", Vector2::zeros(), Vector2::new(0.0, 1.0))
        .contact("stance foot", "stance", foot, 0.0, "slope", c.mu)
        .released_by("swing foot")
        .contact("swing foot", "swing", foot, 0.0, "slope", c.mu)
        .armed_if("stance.theta", Armed::Below, 0.0)
        .relabel("swing foot", relabel, vec![0.0; 4])
        .gait("swing foot", &["stance.x"])
        .initial(&q, &v)
        .build()
}

/// A walker's multibody model in the role of P2's walker: the [`ContactSystem`] is the
/// mechanism's (its coordinates, the stance contact first and the swing contact second, as the
/// hand-written walkers of [`crate::mechanics::walkers`] have them), and the [`WalkerChart`]
/// maps P2's section, angles, slip states and units into those coordinates
/// ([`WalkerChart::walker_state`] maps a state back). P2's analyses (Painlevé's paradox, slips,
/// jams, the step's trajectory) run on it.
#[derive(Debug, Clone)]
pub struct MultibodyWalker {
    walker: WalkerModel,
    sys: MultibodySystem,
}

impl MultibodyWalker {
    /// The walker's mechanism ([`mechanism`]) as a system.
    pub fn new(walker: &WalkerModel) -> Result<Self, Error> {
        Ok(Self { walker: *walker, sys: mechanism(walker)?.system()? })
    }

    /// The walker's parameters.
    pub fn walker(&self) -> &WalkerModel {
        &self.walker
    }
}

impl ContactSystem for MultibodyWalker {
    crate::forward_contact_system!(self => self.sys);
}

/// `$body` with `$w` bound to the walker's parameters, whatever its kind (both implement P2's
/// [`WalkerChart`] in P2's own coordinates).
macro_rules! with_params {
    ($m:expr, $w:ident => $body:expr) => {
        match $m {
            WalkerModel::Rimless($w) => $body,
            WalkerModel::Compass($w) => $body,
        }
    };
}

impl WalkerChart for MultibodyWalker {
    fn lift(&self, y: &DVector<f64>) -> State {
        let (q, v) = post_impact(&self.walker, y);
        let (q, v) = self.system_state(&q, &v);
        join(&q, &v)
    }
    fn angle_count(&self) -> usize {
        with_params!(&self.walker, w => w.angle_count())
    }
    fn configuration(&self, angles: &[f64]) -> DVector<f64> {
        let q = with_params!(&self.walker, w => w.configuration(angles));
        self.system_state(q.as_slice(), &vec![0.0; q.len()]).0
    }
    fn kind_name(&self) -> &'static str {
        with_params!(&self.walker, w => w.kind_name())
    }
    fn time_unit(&self) -> f64 {
        with_params!(&self.walker, w => w.time_unit())
    }
    fn section_names(&self) -> &'static [&'static str] {
        with_params!(&self.walker, w => w.section_names())
    }
    fn section_from_user(&self, values: &[f64]) -> DVector<f64> {
        with_params!(&self.walker, w => w.section_from_user(values))
    }
    fn slip_state_names(&self) -> &'static [&'static str] {
        with_params!(&self.walker, w => w.slip_state_names())
    }
    fn slip_state_from_user(&self, values: &[f64]) -> (DVector<f64>, DVector<f64>) {
        let (q, v) = with_params!(&self.walker, w => w.slip_state_from_user(values));
        self.system_state(q.as_slice(), v.as_slice())
    }
    fn slip_direction(&self) -> DVector<f64> {
        // Sliding the whole walker along the slope: a velocity linear in P2's, at any angle.
        let (q, e) =
            with_params!(&self.walker, w => (w.configuration(&[0.0; 2][..w.angle_count()]), w.slip_direction()));
        self.system_state(q.as_slice(), e.as_slice()).1
    }
    fn walker_state(&self, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
        from_mechanism(&self.walker, q, v)
    }
    fn system_state(&self, q: &[f64], v: &[f64]) -> (DVector<f64>, DVector<f64>) {
        let (q, v) = to_mechanism(&self.walker, q, v);
        (DVector::from_vec(q), DVector::from_vec(v))
    }
}

/// The walker as a mechanism.
pub fn mechanism(walker: &WalkerModel) -> Result<Mechanism, Error> {
    match walker {
        WalkerModel::Rimless(w) => rimless_wheel(w),
        WalkerModel::Compass(c) => compass_biped(c),
    }
}

/// A state `(q, q̇)` in P2's coordinates as the mechanism's (module docs).
pub fn to_mechanism(walker: &WalkerModel, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    match walker {
        WalkerModel::Rimless(w) => {
            let (l, (x, y, th), (xd, yd, thd)) = (w.length, (q[0], q[1], q[2]), (v[0], v[1], v[2]));
            let (s, c) = th.sin_cos();
            (vec![x + l * s, y + l * c, -th], vec![xd + l * c * thd, yd - l * s * thd, -thd])
        }
        WalkerModel::Compass(b) => {
            let (l2, (t1, t2, x, y), (t1d, t2d, xd, yd)) =
                (2.0 * b.l, (q[0], q[1], q[2], q[3]), (v[0], v[1], v[2], v[3]));
            let (s, c) = t1.sin_cos();
            (vec![x + l2 * s, y + l2 * c, -t1, t1 + t2], vec![xd + l2 * c * t1d, yd - l2 * s * t1d, -t1d, t1d + t2d])
        }
    }
}

/// A mechanism's state `(q, q̇)` in P2's coordinates (the inverse of [`to_mechanism`]).
pub fn from_mechanism(walker: &WalkerModel, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    match walker {
        WalkerModel::Rimless(w) => {
            let (l, th, thd) = (w.length, -q[2], -v[2]);
            let (s, c) = th.sin_cos();
            (vec![q[0] - l * s, q[1] - l * c, th], vec![v[0] - l * c * thd, v[1] + l * s * thd, thd])
        }
        WalkerModel::Compass(b) => {
            let (l2, t1, t1d) = (2.0 * b.l, -q[2], -v[2]);
            let (s, c) = t1.sin_cos();
            (
                vec![t1, q[3] - t1, q[0] - l2 * s, q[1] - l2 * c],
                vec![t1d, v[3] - t1d, v[0] - l2 * c * t1d, v[1] + l2 * s * t1d],
            )
        }
    }
}

/// Number of P2's section coordinates: 1 (rimless wheel, `θ̇`) or 3 (compass biped,
/// `θ₁, θ̇₁, θ̇₂`).
pub fn section_dim(walker: &WalkerModel) -> usize {
    match walker {
        WalkerModel::Rimless(_) => 1,
        WalkerModel::Compass(_) => 3,
    }
}

/// P2's post-impact state `(q, q̇)` with section coordinates `y` (SI), the stance foot at the
/// origin and at rest.
pub fn post_impact(walker: &WalkerModel, y: &DVector<f64>) -> (Vec<f64>, Vec<f64>) {
    match walker {
        WalkerModel::Rimless(w) => (vec![0.0, 0.0, -w.half_angle()], vec![0.0, 0.0, y[0]]),
        WalkerModel::Compass(_) => (vec![y[0], y[0], 0.0, 0.0], vec![y[1], y[2], 0.0, 0.0]),
    }
}

/// P2's section coordinates of a post-impact state in P2's coordinates.
pub fn section_point(walker: &WalkerModel, q: &[f64], v: &[f64]) -> Vec<f64> {
    match walker {
        WalkerModel::Rimless(_) => vec![v[2]],
        WalkerModel::Compass(_) => vec![q[0], v[0], v[1]],
    }
}

/// P2's default gait guess (section coordinates, SI): the closed form (27), or P2's
/// compass-biped gait.
pub fn default_guess(walker: &WalkerModel) -> DVector<f64> {
    match walker {
        WalkerModel::Rimless(w) => DVector::from_element(1, rimless_closed_form(w).1),
        WalkerModel::Compass(_) => DVector::from_column_slice(&COMPASS_GAIT_GUESS),
    }
}

/// The periodic gait of a walker (P2, Sections 3.1 and 4.1), in P2's coordinates (SI).
#[derive(Debug, Clone, Serialize)]
pub struct WalkerGait {
    /// Whether Newton's method converged.
    pub converged: bool,
    /// Step period.
    pub period: f64,
    /// The post-impact state `(q, q̇)` of the gait, the stance foot at the origin.
    pub post_impact_state: Vec<f64>,
    /// The state `(q, q̇)` just before heel strike (before the impact and the relabelling).
    pub pre_impact_state: Vec<f64>,
    /// Its section coordinates.
    pub section_point: Vec<f64>,
    /// Floquet multipliers `(re, im)`, largest modulus first: the section's (P2's chart).
    pub multipliers: Vec<[f64; 2]>,
    /// Whether every multiplier lies inside the unit circle.
    pub stable: bool,
    /// Whether the stance foot sticks along the whole step (needs `μ ≥ μ_stick`).
    pub sticking: bool,
    /// `μ_stick = max |f_t/f_n|` along the step (eq. 29).
    pub mu_stick: f64,
    /// `|F_t/F_n|` of the impulse at heel strike: the sticking impulse of eq. (13) when it lies
    /// in the friction cone (else P2's slipping impact, at `μ`).
    pub impact_impulse_ratio: f64,
    /// `‖P(y) − y‖` in the chart's scales.
    pub residual: f64,
    /// Why Newton stopped, when it did not converge.
    pub reason: Option<NewtonStop>,
}

impl WalkerGait {
    fn failed(y: &DVector<f64>, reason: NewtonStop) -> Self {
        WalkerGait {
            converged: false,
            period: f64::NAN,
            post_impact_state: vec![],
            pre_impact_state: vec![],
            section_point: y.iter().copied().collect(),
            multipliers: vec![],
            stable: false,
            sticking: false,
            mu_stick: f64::NAN,
            impact_impulse_ratio: f64::NAN,
            residual: f64::NAN,
            reason: Some(reason),
        }
    }

    /// A mechanism's gait in P2's coordinates.
    fn of(walker: &WalkerModel, g: &MechanismGait) -> Self {
        let (mut q, v) = from_mechanism(walker, &g.q, &g.v);
        // (A converged gait has its strike; without one the pre-impact state stays empty.)
        let (mut qb, vb) = if g.pre_strike_q.len() == g.q.len() && g.pre_strike_v.len() == g.v.len() {
            from_mechanism(walker, &g.pre_strike_q, &g.pre_strike_v)
        } else {
            (vec![], vec![])
        };
        // The stance foot's position: the first two (rimless wheel) or last two coordinates.
        let foot = match walker {
            WalkerModel::Rimless(_) => 0,
            WalkerModel::Compass(_) => 2,
        };
        let origin = [q[foot], q[foot + 1]];
        for x in [&mut q, &mut qb] {
            if x.len() > foot + 1 {
                x[foot] -= origin[0];
                x[foot + 1] -= origin[1];
            }
        }
        let section_point = section_point(walker, &q, &v);
        // P2's chart: the mechanism's chart less the post-strike angle of the rimless wheel, which
        // every strike resets (a zero multiplier). (A gait whose new stance foot slips has a larger
        // chart; P2's chart, and these multipliers, assume it sticks.)
        let d = section_dim(walker).min(g.multipliers.len());
        let multipliers: Vec<[f64; 2]> = g.multipliers[..d].to_vec();
        WalkerGait {
            converged: true,
            period: g.period,
            stable: multipliers.iter().all(|z| z[0].hypot(z[1]) < 1.0),
            post_impact_state: q.into_iter().chain(v).collect(),
            pre_impact_state: qb.into_iter().chain(vb).collect(),
            section_point,
            multipliers,
            sticking: g.sticking && g.events_per_step == 1,
            mu_stick: g.mu_stick.unwrap_or(f64::NAN),
            impact_impulse_ratio: g.impulse_ratio.unwrap_or(f64::NAN),
            residual: g.residual,
            reason: None,
        }
    }
}

/// P2's gait of `walker` from `guess` (section coordinates, SI; `None`: [`default_guess`]):
/// [`refine_gait`] on the walker's mechanism. Without a guess, when the default does not
/// converge, the gait search from nothing ([`find_gaits`]: its stable gait, else its first).
pub fn gait(walker: &WalkerModel, guess: Option<&DVector<f64>>, settings: &GaitSettings) -> Result<WalkerGait, Error> {
    let m = mechanism(walker)?;
    let y = guess.cloned().unwrap_or_else(|| default_guess(walker));
    let (q, v) = post_impact(walker, &y);
    let (q, v) = to_mechanism(walker, &q, &v);
    match refine_gait(&m, &q, &v, settings)? {
        Ok(g) => Ok(WalkerGait::of(walker, &g)),
        Err(stop) if guess.is_some() => Ok(WalkerGait::failed(&y, stop)),
        Err(stop) => {
            let search = find_gaits(&m, settings)?;
            Ok(match search.gaits.iter().find(|g| g.stable).or(search.gaits.first()) {
                Some(g) => WalkerGait::of(walker, g),
                None => WalkerGait::failed(&y, stop),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_maps_are_inverse() {
        for w in [WalkerModel::Rimless(RimlessWheel::paper(0.35)), WalkerModel::Compass(CompassBiped::paper(0.7))] {
            let n = match w {
                WalkerModel::Rimless(_) => 3,
                WalkerModel::Compass(_) => 4,
            };
            let q: Vec<f64> = (0..n).map(|k| 0.3 - 0.17 * k as f64).collect();
            let v: Vec<f64> = (0..n).map(|k| -0.5 + 0.23 * k as f64).collect();
            let (qm, vm) = to_mechanism(&w, &q, &v);
            let (q2, v2) = from_mechanism(&w, &qm, &vm);
            for (a, b) in q.iter().chain(&v).zip(q2.iter().chain(&v2)) {
                assert!((a - b).abs() < 1e-14, "{q:?} {v:?} -> {q2:?} {v2:?}");
            }
        }
    }

    #[test]
    fn the_mechanisms_feet_are_where_p2_puts_them() {
        // Right after heel strike the stance foot is on the slope; the compass biped's swing
        // foot (the old stance foot) too, the wheel's next spoke ahead at l (cos π/n − cos 3π/n).
        let w = RimlessWheel::paper(0.35);
        let m = rimless_wheel(&w).unwrap();
        let s = m.system().unwrap();
        let q = nalgebra::DVector::<f64>::from_column_slice(&m.q0);
        let gaps: Vec<f64> = (0..2).map(|i| crate::mechanics::ContactSystem::gap(&s, i, &q)).collect();
        let n = w.half_angle();
        let ahead = w.length * (n.cos() - (3.0 * n).cos());
        assert!(gaps[0].abs() < 1e-12 && (gaps[1] - ahead).abs() < 1e-12, "{gaps:?} vs {ahead}");
        let m = compass_biped(&CompassBiped::paper(0.7)).unwrap();
        let s = m.system().unwrap();
        let q = nalgebra::DVector::<f64>::from_column_slice(&m.q0);
        let gaps: Vec<f64> = (0..2).map(|i| crate::mechanics::ContactSystem::gap(&s, i, &q)).collect();
        assert!(gaps.iter().all(|g| g.abs() < 1e-12), "{gaps:?}");
    }
}
