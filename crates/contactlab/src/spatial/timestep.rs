//! Moreau–Jean time-stepping of a spatial tree whose collision shapes touch planes, with exact
//! Coulomb cones (as Siconos's `MoreauJeanOSI` with its FC3D one-step problem).
//!
//! One step of length `h` from `(q_k, v_k)` (Moreau's midpoint form):
//!
//! 1. `q_m = q_k ⊕ (h/2) v_k` (the joints' exponential maps: quaternions stay unit);
//! 2. `v_free = v_k + h Ŵ⁻¹ (h(q_m, v_k) + p(t_m, q_m, v_k) − (h/2) K v_k)`, where the joints'
//!    passive force `p = −D v − K (q − r(t)) + D ṙ(t)` (`r` the springs' references,
//!    [`Spring`], read at the step's midpoint `t_m`) acts implicitly through
//!    `Ŵ = M + h D + (h²/2) K` (the spring force at the step's end; `Ŵ = M` without damping or
//!    springs; negative damping explicitly); the contacts are the candidate points
//!    ([`super::contact`]) whose gap at `q_m`, carried to the step's end by `v_free`, closes:
//!    `g + (h/2) J_n v_free ≤ 0` (Moreau's index set with the gap predicted, so that a contact
//!    resting at `g = 0` stays in it);
//! 3. with the contacts' Jacobian `J` (rows `n, t₁, t₂` per contact) the impulses `r` solve the
//!    FC3D problem ([`crate::fc3d`]) with `W = J Ŵ⁻¹ Jᵀ` and `q = J v_free + e (J_n v_k, 0, 0)`: Newton's impact law
//!    `u_n⁺ + e u_n⁻ ≥ 0` with restitution `e`, Coulomb's law on the tangential impulse;
//! 4. `v_{k+1} = v_free + Ŵ⁻¹ Jᵀ r`, `q_{k+1} = q_m ⊕ (h/2) v_{k+1}`;
//! 5. the step's contacts on curved surfaces (cylinder rims, ellipsoids) are projected out of
//!    penetration, velocities untouched (as Siconos's `MoreauJeanDirectProjectionOSI`). The
//!    velocity constraint of step 3 holds the material point that touched at `q_m`, but such a
//!    contact point moves over the surface: the next lowest point lies below the held one by
//!    `O(h²)` each step, and the gap would drift through the plane at `O(h)` per unit time (a
//!    disk rolling at 60 rad/s sank 13 mm/s at `h = 1 ms` without it). Corners, spheres and
//!    capsule ends need no projection: the held point is the lowest one (a sphere's centre moves
//!    with its contact's normal velocity).
//!
//! With constant forces the update is exact (a block sliding down a slope follows
//! `x = ½ g (sin α − μ cos α) t²` to round-off); impacts are plastic for `e = 0`. The scheme
//! never gains energy at a contact (the impulses dissipate); between contacts the midpoint rule
//! drifts by `O(h²)`.

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::algebra::{axis_angle, Mat3, SpatialInertia, Transform, Vec3};
use super::contact::{contact_jacobians_in, contact_points_in, Plane};
use super::geometry::{Collision, Shape};
use super::joint::Joint3;
use super::tree::{Body3, SpatialTree};
use crate::fc3d::{self, Fc3dSettings, Fc3dStatus};
pub use crate::mechanics::reference::JointReference;
use crate::Error;

/// A tree with collision shapes above planes.
#[derive(Debug, Clone)]
pub struct Scene3 {
    /// The mechanism.
    pub tree: SpatialTree,
    /// Its collision shapes (world shapes are ignored: use `planes`).
    pub shapes: Vec<Collision>,
    /// The planes (the ground).
    pub planes: Vec<Plane>,
    /// Friction coefficient of a shape–plane pair unless both give their own (then the larger
    /// of the two, as MuJoCo combines them).
    pub mu: f64,
    /// Each plane's friction coefficient, if it gives one (empty: none do).
    pub plane_friction: Vec<Option<f64>>,
    /// Each plane's collision bits `(contype, conaffinity)` (empty: `(1, 1)`, MuJoCo's default):
    /// a shape touches a plane only if [`crate::spatial::geometry::bits_touch`] says so.
    pub plane_bits: Vec<(u32, u32)>,
    /// Newton's restitution coefficient `e ∈ [0, 1]`.
    pub restitution: f64,
    /// Viscous damping per velocity (empty: none): a force `−d v` (a negative `d` injects
    /// energy, as a PD law's negative damping does; Moreau–Jean takes it explicitly).
    pub damping: Vec<f64>,
    /// Joint springs, each a force `−k (q − r(t)) + d ṙ(t)` on its joint's velocity about a
    /// reference that may move ([`Spring`]).
    pub springs: Vec<Spring>,
    /// A walking rule for the event-driven method (a scene's `[walking]` table): its feet
    /// strike only ahead of the feet on the ground ([`Walking`]).
    pub walking: Option<Walking>,
    /// The joints' limits (MJCF `range`, URDF `<limit>`): hard stops, unilateral constraints
    /// with the scene's restitution and no friction ([`JointLimit`]).
    pub limits: Vec<JointLimit>,
}

/// A one-coordinate joint's limit: `lower ≤ q[qpos] ≤ upper` (rad, or m for a slider), a hard
/// stop. In Moreau–Jean each side is a unilateral constraint on the joint's velocity (the
/// normal `±e`, no tangent: a frictionless contact in the step's FC3D problem), active when the
/// joint's distance to the stop, carried to the step's end, closes; Newton's law with the
/// scene's restitution holds at the stop, and a joint found past its stop (at the start, or by
/// the step's `O(h²)` drift) is put back on it, its velocity untouched.
#[derive(Debug, Clone, PartialEq)]
pub struct JointLimit {
    /// The joint's name.
    pub name: String,
    /// Its coordinate's index in `q`.
    pub qpos: usize,
    /// Its velocity's index in `v`.
    pub qvel: usize,
    /// The lower stop.
    pub lower: f64,
    /// The upper stop (`≥ lower`).
    pub upper: f64,
}

impl JointLimit {
    /// How far past its stops `q` puts the joint (0 within them).
    pub fn violation(&self, q: &[f64]) -> f64 {
        let x = q[self.qpos];
        (self.lower - x).max(x - self.upper).max(0.0)
    }

    /// The tolerance on a stop: `1e-10` of the joint's own scale, the larger of its range and
    /// its stops' magnitudes (in the joint's units: a slider given in other units keeps its
    /// verdicts; zero for a range that is the single point 0).
    fn tol(&self) -> f64 {
        LIMIT_TOL * (self.upper - self.lower).max(self.lower.abs()).max(self.upper.abs())
    }
}

/// A joint past its stop by more than this fraction of its scale ([`JointLimit::tol`]) is put back on it.
const LIMIT_TOL: f64 = 1e-10;

/// Puts every joint of `limits` that lies past a stop (beyond its tolerance) on that stop;
/// the names of those moved.
pub fn clamp_to_limits(limits: &[JointLimit], q: &mut [f64]) -> Vec<String> {
    let mut moved = vec![];
    for l in limits {
        let x = q[l.qpos];
        if l.violation(q) > l.tol() {
            q[l.qpos] = x.clamp(l.lower, l.upper);
            moved.push(l.name.clone());
        }
    }
    moved
}

/// The walking rule of passive-walker models (the compass gait's convention, as the planar
/// `armed_if` key states it), followed by the event-driven method
/// ([`crate::spatial::events`]):
/// * a foot's contact strikes only ahead of the other feet's contacts on the ground, by at
///   least `ahead` (its point farther along `forward`): a swing foot passes through the ground
///   until it is that far past the stance foot (scuffing is ignored, as the models assume; with
///   legs of equal length the swing foot grazes the ground where it passes the stance foot, and
///   `ahead` keeps that grazing from being a strike);
/// * a foot's strike is an impact problem over every touching contact: the trailing foot
///   leaves the ground when the problem gives it no impulse (unlike the planar `released_by`,
///   which forces it off).
///
/// Contacts of one shape (a box foot's corners) never disarm each other.
#[derive(Debug, Clone, PartialEq)]
pub struct Walking {
    /// The feet: indices into the scene's shapes.
    pub feet: Vec<usize>,
    /// The direction of travel (world axes, unit).
    pub forward: Vec3,
    /// How far ahead (m) a foot must be to strike.
    pub ahead: f64,
}

/// Settings of [`step`] and [`simulate`].
#[derive(Debug, Clone, Copy)]
pub struct MoreauSettings {
    /// Step length (s).
    pub h: f64,
    /// The one-step problem's solver.
    pub fc3d: Fc3dSettings,
    /// A one-step problem that ends at the solver's iteration limit with a residual at most
    /// this is accepted (as Siconos continues past an unconverged step with a warning; the run
    /// counts them and reports the largest residual); a larger one stops the run.
    pub accept: f64,
}

impl Default for MoreauSettings {
    fn default() -> Self {
        Self { h: 1e-3, fc3d: Fc3dSettings::default(), accept: 1e-6 }
    }
}

/// One step's result.
#[derive(Debug, Clone)]
pub struct MoreauStep {
    /// The configuration after the step.
    pub q: DVector<f64>,
    /// The velocity after the step.
    pub v: DVector<f64>,
    /// Contacts in the step's problem.
    pub contacts: usize,
    /// How the one-step problem ended (`Solved` when there was none).
    pub status: Fc3dStatus,
    /// Its residual.
    pub residual: f64,
}

/// `q ⊕ dt v` by the joints' exponential maps ([`SpatialTree::integrate`]), quaternions
/// renormalised against round-off.
fn advance(tree: &SpatialTree, q: &DVector<f64>, v: &DVector<f64>, dt: f64) -> Result<DVector<f64>, Error> {
    let mut out = tree.integrate(q.as_slice(), v.as_slice(), dt);
    if !tree.normalize(out.as_mut_slice()) || out.iter().any(|x| !x.is_finite()) {
        return Err(Error::Numerical("the configuration is no longer finite".into()));
    }
    Ok(out)
}

impl Scene3 {
    /// `tree` with its collision `shapes` above the ground `z = 0` (normal `+z`), friction
    /// `mu`, plastic impacts, no damping or springs.
    pub fn on_ground(tree: SpatialTree, shapes: Vec<Collision>, mu: f64) -> Self {
        Self {
            tree,
            shapes,
            planes: vec![Plane { point: Vec3::zeros(), normal: Vec3::z() }],
            mu,
            plane_friction: vec![],
            plane_bits: vec![],
            restitution: 0.0,
            damping: vec![],
            springs: vec![],
            walking: None,
            limits: vec![],
        }
    }

    /// Checks the scene: finite `μ ≥ 0`, `e ∈ [0, 1]`, shapes on the tree's bodies.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return Err(Error::model("mu", format!("must be finite and >= 0 (got {})", self.mu)));
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(Error::model("restitution", format!("must be in [0, 1] (got {})", self.restitution)));
        }
        if !self.damping.is_empty() && self.damping.len() != self.tree.nv() {
            return Err(Error::model(
                "damping",
                format!("needs {} values (got {})", self.tree.nv(), self.damping.len()),
            ));
        }
        if self.damping.iter().any(|d| !d.is_finite()) {
            return Err(Error::model("damping", "must be finite"));
        }
        if self.springs.iter().any(|s| !s.valid(self.tree.nq(), self.tree.nv())) {
            return Err(Error::model(
                "springs",
                "each needs valid indices, a finite stiffness >= 0, a finite reference and a finite frequency >= 0",
            ));
        }
        let frictions =
            self.shapes.iter().filter_map(|c| c.friction).chain(self.plane_friction.iter().flatten().copied());
        if frictions.into_iter().any(|m| !(m.is_finite() && m >= 0.0)) {
            return Err(Error::model("friction", "must be finite and >= 0"));
        }
        if let Some(c) = self.shapes.iter().find(|c| c.body.is_some_and(|b| b >= self.tree.bodies().len())) {
            return Err(Error::model("shapes", format!("shape '{}' names no body of the tree", c.name)));
        }
        for l in &self.limits {
            if l.qpos >= self.tree.nq() || l.qvel >= self.tree.nv() {
                return Err(Error::model("limits", format!("joint '{}' has no coordinate in the tree", l.name)));
            }
            if !(l.lower.is_finite() && l.upper.is_finite() && l.lower <= l.upper) {
                return Err(Error::model(
                    "limits",
                    format!(
                        "joint '{}': the range must be finite and increasing (got {} {})",
                        l.name, l.lower, l.upper
                    ),
                ));
            }
        }
        if let Some(w) = &self.walking {
            if w.feet.iter().any(|&k| k >= self.shapes.len()) {
                return Err(Error::model("walking.feet", "each must be one of the scene's shapes"));
            }
            if !(w.forward.iter().all(|x| x.is_finite()) && (w.forward.norm() - 1.0).abs() < 1e-9) {
                return Err(Error::model("walking.forward", "must be a finite unit vector"));
            }
            if !(w.ahead.is_finite() && w.ahead >= 0.0) {
                return Err(Error::model("walking.ahead", format!("must be finite and >= 0 (got {})", w.ahead)));
            }
        }
        Ok(())
    }

    /// The passive forces `−d v − k (q − r(t)) + d ṙ(t)` at `(t, q, v)` ([`Spring`]).
    pub fn passive_force(&self, t: f64, q: &[f64], v: &[f64]) -> DVector<f64> {
        passive_force(&self.damping, &self.springs, t, q, v)
    }

    /// Whether the forces do not depend on time: no spring's reference moves ([`Spring`]).
    pub fn autonomous(&self) -> bool {
        !self.springs.iter().any(Spring::periodic)
    }

    /// Whether shape `c` and plane `k` may touch (their collision bits).
    pub fn pair_touches(&self, c: &Collision, k: usize) -> bool {
        crate::spatial::geometry::bits_touch(c.bits, self.plane_bits.get(k).copied().unwrap_or((1, 1)))
    }

    /// The friction coefficient of shape `c` against plane `k`.
    pub(crate) fn pair_mu(&self, c: &Collision, k: usize) -> f64 {
        match (c.friction, self.plane_friction.get(k).copied().flatten()) {
            (Some(a), Some(b)) => a.max(b),
            _ => self.mu,
        }
    }

    /// The total mechanical energy (J) at time `t`: kinetic (the rotors' armature included),
    /// gravitational (zero at the world's origin) and the joint springs' `½ k (q − r(t))²`:
    /// every conservative force of the scene, so that a run without contacts, damping, impacts
    /// or moving references keeps it (a moving reference does work on the joint).
    pub fn energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64 {
        self.tree.kinetic_energy(q, v) + self.tree.potential_energy(q) + self.spring_energy(t, q)
    }

    /// The joint springs' potential energy `Σ ½ k (q − r(t))²` (J) at time `t`.
    pub fn spring_energy(&self, t: f64, q: &[f64]) -> f64 {
        self.springs.iter().map(|s| s.energy(t, q)).sum()
    }

    /// The scene's length scale (m): the largest reach of a body's collision shape from its
    /// body's origin, its size plus its offset (a point foot at the end of a leg has the leg's
    /// length, not zero); 1 without shapes.
    pub fn reach(&self) -> f64 {
        let length = self
            .shapes
            .iter()
            .filter(|c| c.body.is_some())
            .map(|c| extent(&c.shape) + c.pose.pos.norm())
            .fold(0.0, f64::max);
        if length > 0.0 {
            length
        } else {
            1.0
        }
    }
}

/// The extent of a shape (the radius of a sphere around it).
fn extent(shape: &Shape) -> f64 {
    match *shape {
        Shape::Sphere { radius } => radius,
        Shape::Capsule { radius, length } => radius + 0.5 * length,
        Shape::Box { size } => 0.5 * size.norm(),
        Shape::Cylinder { radius, length } => (radius * radius + 0.25 * length * length).sqrt(),
        Shape::Ellipsoid { radii } => radii.max(),
        Shape::Plane => 0.0,
    }
}

/// A curved contact's penetration deeper than this fraction of the scene's reach is projected
/// out after a step.
const PROJECT_TOL: f64 = 1e-10;

/// Projected Gauss–Seidel sweeps of one projection (its LCP is small: the step's contacts).
const PROJECT_SWEEPS: usize = 200;

/// Projects `q` out of penetration at the step's contacts on curved surfaces (`active`:
/// `(plane, shape, point, the shape's number of points)`), velocities untouched (module docs, step 5): while one penetrates
/// deeper than [`PROJECT_TOL`] of the reach (at most three rounds, the gaps being nonlinear in
/// `q`), `q ← q ⊕ M⁻¹ J_nᵀ λ` with `0 ≤ λ ⊥ g + J_n M⁻¹ J_nᵀ λ ≥ 0`: the least displacement in
/// the kinetic metric that closes the gaps to first order, pushing only where it must.
fn project_gaps(
    scene: &Scene3,
    mut q: DVector<f64>,
    active: &[(usize, usize, usize, usize)],
) -> Result<DVector<f64>, Error> {
    let t = &scene.tree;
    let tol = PROJECT_TOL * scene.reach();
    for _ in 0..3 {
        let mut near = vec![];
        // (The kinematics once per round, for every point and its Jacobian.)
        let frames = t.frames(q.as_slice(), None);
        for &(kp, ks, kf, count) in active {
            let plane = &scene.planes[kp];
            let points = contact_points_in(frames.world(), &scene.shapes[ks], plane);
            // A cylinder turned flat (or off flat) within the step has other candidates: its
            // point `kf` is no longer the one held, and it is left as Moreau's step left it.
            if points.len() == count {
                if let Some(p) = points.into_iter().nth(kf) {
                    near.push((p.gap, p, kp));
                }
            }
        }
        if near.iter().all(|c| c.0 >= -tol) {
            break;
        }
        let j = DMatrix::from_fn(near.len(), t.nv(), |r, k| {
            contact_jacobians_in(t, &frames, &near[r].1, &scene.planes[near[r].2]).0[k]
        });
        let chol = t
            .mass_matrix(q.as_slice())
            .cholesky()
            .ok_or_else(|| Error::Numerical("the mass matrix is not positive definite".into()))?;
        let minv_jt = chol.solve(&j.transpose());
        let w = &j * &minv_jt;
        let mut lambda = DVector::<f64>::zeros(near.len());
        for _ in 0..PROJECT_SWEEPS {
            for r in 0..near.len() {
                if w[(r, r)] > 0.0 {
                    let res = near[r].0 + (w.row(r) * &lambda)[0];
                    lambda[r] = (lambda[r] - res / w[(r, r)]).max(0.0);
                }
            }
        }
        q = advance(t, &q, &(&minv_jt * &lambda), 1.0)?;
    }
    Ok(q)
}

/// One Moreau–Jean step (module docs) from time `t` (s; the springs' moving references are
/// read at the step's midpoint `t + h/2`).
pub fn step(
    scene: &Scene3,
    t: f64,
    q: &DVector<f64>,
    v: &DVector<f64>,
    s: &MoreauSettings,
) -> Result<MoreauStep, Error> {
    step_from(scene, t, q, v, s, &mut Warm::default())
}

/// The last step's impulses by contact `(plane, shape, point)`: the next step's one-step
/// problem starts from them (Siconos's warm start), which NSGS needs where redundant contacts
/// (an edge's two corners) make `W` singular.
#[derive(Debug, Clone, Default)]
pub struct Warm {
    keys: Vec<(usize, usize, usize)>,
    r: Vec<[f64; 3]>,
}

fn step_from(
    scene: &Scene3,
    time: f64,
    q: &DVector<f64>,
    v: &DVector<f64>,
    s: &MoreauSettings,
    warm: &mut Warm,
) -> Result<MoreauStep, Error> {
    let t = &scene.tree;
    let h = s.h;
    let qm = advance(t, q, v, 0.5 * h)?;
    // The joints' damping D and springs K act implicitly (as Siconos's Moreau–Jean scheme treats
    // linear forces): with the spring force taken at the step's end q₁ = q_m + (h/2) v₁,
    //   Ŵ (v₁ − v) = h (bias + p(q_m, v) − (h/2) K v) + Jᵀ r,   Ŵ = M + h D⁺ + (h²/2) K,
    // stable however stiff or light the joints (explicit damping diverges once h d > 2 I).
    // Negative damping (energy injected, a PD law's) acts explicitly, at the step's start:
    // taken implicitly it would make Ŵ indefinite once h |d| reaches the joint's inertia.
    let (mut m, bias) = t.mass_and_bias(qm.as_slice(), v.as_slice());
    let mut force = bias + scene.passive_force(time + 0.5 * h, qm.as_slice(), v.as_slice());
    for (k, d) in scene.damping.iter().enumerate() {
        m[(k, k)] += h * d.max(0.0);
    }
    for sp in &scene.springs {
        m[(sp.qvel, sp.qvel)] += 0.5 * h * h * sp.stiffness;
        force[sp.qvel] -= 0.5 * h * sp.stiffness * v[sp.qvel];
    }
    let chol = m.cholesky().ok_or_else(|| Error::Numerical("the mass matrix is not positive definite".into()))?;
    let v_free = v + chol.solve(&force) * h;
    let mut rows: Vec<DVector<f64>> = vec![];
    let mut mus: Vec<f64> = vec![];
    let mut keys = vec![];
    let mut curved = vec![];
    // (The kinematics once per step, for every candidate point and its Jacobians.)
    let frames = t.frames(qm.as_slice(), None);
    for (kp, plane) in scene.planes.iter().enumerate() {
        for (ks, c) in scene.shapes.iter().enumerate().filter(|(_, c)| c.body.is_some() && scene.pair_touches(c, kp)) {
            let points = contact_points_in(frames.world(), c, plane);
            let count = points.len();
            for (kf, p) in points.into_iter().enumerate() {
                let (jn, jt) = contact_jacobians_in(t, &frames, &p, plane);
                // Active if the gap, carried to the step's end by the free velocity, closes.
                if p.gap + 0.5 * h * (&jn * &v_free)[0] > 0.0 {
                    continue;
                }
                rows.push(jn.transpose());
                rows.push(jt.row(0).transpose());
                rows.push(jt.row(1).transpose());
                mus.push(scene.pair_mu(c, kp));
                keys.push((kp, ks, kf));
                if matches!(c.shape, Shape::Cylinder { .. } | Shape::Ellipsoid { .. }) {
                    curved.push((kp, ks, kf, count));
                }
            }
        }
    }
    // The joints' stops: frictionless contacts whose normal is the joint's velocity (module
    // docs of `JointLimit`), keyed apart from the shapes' contacts.
    for (kl, l) in scene.limits.iter().enumerate() {
        let x = qm[l.qpos];
        for (side, gap, sign) in [(0, x - l.lower, 1.0), (1, l.upper - x, -1.0)] {
            if gap + 0.5 * h * sign * v_free[l.qvel] > 0.0 {
                continue;
            }
            let mut n = DVector::zeros(t.nv());
            n[l.qvel] = sign;
            rows.push(n);
            rows.push(DVector::zeros(t.nv()));
            rows.push(DVector::zeros(t.nv()));
            mus.push(0.0);
            keys.push((usize::MAX, kl, side));
        }
    }
    let k = rows.len() / 3;
    if k == 0 {
        let mut q1 = advance(t, &qm, &v_free, 0.5 * h)?;
        clamp_to_limits(&scene.limits, q1.as_mut_slice());
        return Ok(MoreauStep { q: q1, v: v_free, contacts: 0, status: Fc3dStatus::Solved, residual: 0.0 });
    }
    let j = DMatrix::from_fn(3 * k, t.nv(), |r, c| rows[r][c]);
    let minv_jt = chol.solve(&j.transpose());
    let w = &j * &minv_jt;
    let mut qfc = &j * &v_free;
    let u_before = &j * v;
    for i in 0..k {
        qfc[3 * i] += scene.restitution * u_before[3 * i].min(0.0);
    }
    let start = DVector::from_fn(3 * k, |r, _| {
        warm.keys.iter().position(|x| *x == keys[r / 3]).map_or(0.0, |j| warm.r[j][r % 3])
    });
    let sol = fc3d::solve(&w, &qfc, &mus, &s.fc3d, Some(&start));
    warm.r = (0..k).map(|i| [sol.r[3 * i], sol.r[3 * i + 1], sol.r[3 * i + 2]]).collect();
    warm.keys = keys;
    let v1 = &v_free + &minv_jt * &sol.r;
    let mut q1 = project_gaps(scene, advance(t, &qm, &v1, 0.5 * h)?, &curved)?;
    clamp_to_limits(&scene.limits, q1.as_mut_slice());
    Ok(MoreauStep { q: q1, v: v1, contacts: k, status: sol.status, residual: sol.residual })
}

/// A joint spring on a one-coordinate joint, tracking a reference `r(t)`
/// ([`JointReference`]): the force `−k (q − r(t)) + d ṙ(t)` on its velocity, where `d` is the
/// joint's damping (whose own force `−d v` the scene applies to every velocity), so that with
/// both the joint follows the PD law `τ = −k (q − r) − d (q̇ − ṙ)` of a planar mechanism's
/// `[[spring]]` ([`crate::mechanics::multibody_system::JointSpring`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spring {
    /// The joint's coordinate's index in `q`.
    pub qpos: usize,
    /// Its velocity's index in `v`.
    pub qvel: usize,
    /// Stiffness `k ≥ 0` (N m/rad, or N/m for a slider).
    pub stiffness: f64,
    /// The reference `r(t)` (rad or m).
    pub reference: JointReference,
}

impl Spring {
    /// A spring about a constant reference `rest`.
    pub fn constant(qpos: usize, qvel: usize, stiffness: f64, rest: f64) -> Self {
        Self { qpos, qvel, stiffness, reference: JointReference::constant(rest) }
    }

    /// Whether the reference moves.
    pub fn periodic(&self) -> bool {
        self.reference.periodic()
    }

    /// The potential energy `½ k (q − r(t))²` (J) at time `t`.
    pub fn energy(&self, t: f64, q: &[f64]) -> f64 {
        0.5 * self.stiffness * (q[self.qpos] - self.reference.at(t).0).powi(2)
    }

    fn valid(&self, nq: usize, nv: usize) -> bool {
        self.qpos < nq
            && self.qvel < nv
            && self.stiffness.is_finite()
            && self.stiffness >= 0.0
            && self.reference.invalid().is_none()
    }
}

/// The passive forces at time `t`: `−d v` of viscous `damping` (one per velocity, or empty)
/// and each spring's `−k (q − r(t)) + d ṙ(t)` ([`Spring`]), with `v.len()` entries.
pub fn passive_force(damping: &[f64], springs: &[Spring], t: f64, q: &[f64], v: &[f64]) -> DVector<f64> {
    let mut f = DVector::zeros(v.len());
    for (k, d) in damping.iter().enumerate() {
        f[k] -= d * v[k];
    }
    for s in springs {
        let (r, rd) = s.reference.at(t);
        f[s.qvel] -= s.stiffness * (q[s.qpos] - r);
        if let Some(d) = damping.get(s.qvel) {
            f[s.qvel] += d * rd;
        }
    }
    f
}

/// A simulated run: samples every `every` steps, and how it ended.
#[derive(Debug, Clone, Serialize)]
pub struct Run3 {
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Configurations.
    pub q: Vec<Vec<f64>>,
    /// Velocities.
    pub v: Vec<Vec<f64>>,
    /// Total energies ([`Scene3::energy`]: kinetic, gravitational and the springs').
    pub energy: Vec<f64>,
    /// Contacts in each sampled step's problem.
    pub contacts: Vec<usize>,
    /// `completed`, or the one-step problem's status that stopped the run.
    pub end: String,
    /// The largest one-step residual seen.
    pub residual_max: f64,
    /// Steps whose one-step problem was accepted unconverged ([`MoreauSettings::accept`]).
    pub unconverged: usize,
    /// The joints whose starting position lay past a stop, put on it ([`JointLimit`]).
    pub start_clamped: Vec<String>,
}

/// Steps from `(q₀, v₀)` to `t_end` (at most `max_steps` steps), sampling every `every` steps;
/// stops at the first step whose one-step problem is not solved.
pub fn simulate(
    scene: &Scene3,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
    every: usize,
    s: &MoreauSettings,
) -> Result<Run3, Error> {
    simulate_with(scene, q0, v0, t_end, every, s, &mut |_| {})
}

/// [`simulate`], calling `progress` with the simulated time after every step.
pub fn simulate_with(
    scene: &Scene3,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
    every: usize,
    s: &MoreauSettings,
    progress: &mut dyn FnMut(f64),
) -> Result<Run3, Error> {
    scene.validate()?;
    if scene.walking.is_some() {
        return Err(Error::argument(
            "walking",
            "the walking rule (feet pass through the ground behind the stance foot) is followed by the event-driven method only",
        ));
    }
    let t = &scene.tree;
    if q0.len() != t.nq() || v0.len() != t.nv() {
        return Err(Error::argument("state", format!("needs {} + {} values", t.nq(), t.nv())));
    }
    if !(s.h > 0.0 && s.h.is_finite() && t_end.is_finite() && t_end >= 0.0) {
        return Err(Error::argument("h", "the step and the end time must be finite, h > 0"));
    }
    let steps = (t_end / s.h).round() as usize;
    const MAX_STEPS: usize = 100_000_000;
    if steps > MAX_STEPS {
        return Err(Error::argument("h", format!("{steps} steps; at most {MAX_STEPS}")));
    }
    let every = every.max(1);
    let mut q = DVector::from_column_slice(q0);
    if !t.normalize(q.as_mut_slice()) {
        return Err(Error::argument("state", "a quaternion is zero or not finite"));
    }
    let start_clamped = clamp_to_limits(&scene.limits, q.as_mut_slice());
    let mut v = DVector::from_column_slice(v0);
    let mut run = Run3 {
        t: vec![0.0],
        q: vec![q.as_slice().to_vec()],
        v: vec![v.as_slice().to_vec()],
        energy: vec![scene.energy(0.0, q.as_slice(), v.as_slice())],
        contacts: vec![0],
        end: "completed".into(),
        residual_max: 0.0,
        unconverged: 0,
        start_clamped,
    };
    let mut warm = Warm::default();
    for n in 1..=steps {
        let st = step_from(scene, (n - 1) as f64 * s.h, &q, &v, s, &mut warm)?;
        progress(n as f64 * s.h);
        run.residual_max = run.residual_max.max(st.residual);
        q = st.q;
        v = st.v;
        let stop = match st.status {
            Fc3dStatus::Solved => false,
            Fc3dStatus::IterationLimit if st.residual <= s.accept => {
                run.unconverged += 1;
                false
            }
            _ => true,
        };
        if n % every == 0 || n == steps || stop {
            run.t.push(n as f64 * s.h);
            run.q.push(q.as_slice().to_vec());
            run.v.push(v.as_slice().to_vec());
            run.energy.push(scene.energy(n as f64 * s.h, q.as_slice(), v.as_slice()));
            run.contacts.push(st.contacts);
        }
        if stop {
            run.end = crate::output::kebab(&st.status);
            break;
        }
    }
    Ok(run)
}

/// A uniform box of `mass` and edges `size` on a plane through the origin tilted by `slope`
/// about the world's `y` axis (gravity `−9.81 z`), its bottom face parallel to the plane and
/// `lift` above it, at rest: the scene and its configuration (the tests' and benchmarks' box).
pub fn resting_box(
    mass: f64,
    size: Vec3,
    slope: f64,
    mu: f64,
    restitution: f64,
    lift: f64,
) -> Result<(Scene3, Vec<f64>), Error> {
    let a = size;
    let i = Mat3::from_diagonal(&Vec3::new(a.y * a.y + a.z * a.z, a.x * a.x + a.z * a.z, a.x * a.x + a.y * a.y))
        * (mass / 12.0);
    let b = Body3 {
        name: "box".into(),
        parent: None,
        placement: Transform::identity(),
        joint: Joint3::Free,
        inertia: SpatialInertia { mass, com: Vec3::zeros(), inertia: i },
    };
    let tree = SpatialTree::new(vec![b], Vec3::new(0.0, 0.0, -9.81))?;
    let r = axis_angle(&Vec3::y(), -slope);
    let n = r * Vec3::z();
    let plane = Plane::new(Vec3::zeros(), n).ok_or_else(|| Error::argument("slope", "must be finite"))?;
    let shape = Collision {
        name: "box".into(),
        body: Some(0),
        pose: Transform::identity(),
        shape: Shape::Box { size: a },
        friction: None,
        bits: (1, 1),
    };
    let c = n * (0.5 * a.z + lift);
    let uq = nalgebra::UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(r));
    let scene = Scene3 {
        tree,
        shapes: vec![shape],
        planes: vec![plane],
        mu,
        plane_friction: vec![],
        plane_bits: vec![],
        restitution,
        damping: vec![],
        springs: vec![],
        walking: None,
        limits: vec![],
    };
    scene.validate()?;
    Ok((scene, vec![c.x, c.y, c.z, uq.i, uq.j, uq.k, uq.w]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn box_on_slope(alpha: f64, mu: f64, restitution: f64, lift: f64) -> (Scene3, Vec<f64>) {
        resting_box(2.0, Vec3::new(0.4, 0.3, 0.2), alpha, mu, restitution, lift).unwrap()
    }

    #[test]
    fn a_hinge_bounces_off_its_stop_by_newtons_law_and_never_passes_it() {
        // A rod on a hinge, no gravity, turning at 2 rad/s towards its upper stop 0.3 rad:
        // the stop reverses it to −e · 2 (Newton's law, exact without other forces), and the
        // angle never exceeds the stop.
        let rod = Body3 {
            name: "rod".into(),
            parent: None,
            placement: Transform::identity(),
            joint: Joint3::Revolute { axis: Vec3::y() },
            inertia: SpatialInertia {
                mass: 1.0,
                com: Vec3::new(0.5, 0.0, 0.0),
                inertia: Mat3::from_diagonal(&Vec3::new(1e-3, 0.08, 0.08)),
            },
        };
        let tree = SpatialTree::new(vec![rod], Vec3::zeros()).unwrap();
        for e in [0.0, 0.5, 1.0] {
            let limit = JointLimit { name: "hinge".into(), qpos: 0, qvel: 0, lower: -1.0, upper: 0.3 };
            let scene =
                Scene3 { restitution: e, limits: vec![limit.clone()], ..Scene3::on_ground(tree.clone(), vec![], 0.5) };
            let s = MoreauSettings { h: 1e-3, ..Default::default() };
            let run = simulate(&scene, &[0.0], &[2.0], 0.3, 1, &s).unwrap();
            assert_eq!(run.end, "completed");
            assert!(run.q.iter().all(|q| q[0] <= 0.3 + 1e-12), "e = {e}: passed the stop");
            let v = run.v.last().unwrap()[0];
            assert!((v + e * 2.0).abs() < 1e-12, "e = {e}: leaves the stop at {v} rad/s");
        }
        // A start past the stop is put on it.
        let mut q = [0.5];
        let limit = JointLimit { name: "hinge".into(), qpos: 0, qvel: 0, lower: -1.0, upper: 0.3 };
        assert_eq!(clamp_to_limits(std::slice::from_ref(&limit), &mut q), ["hinge"]);
        assert_eq!(q, [0.3]);
        // The stop's tolerance is the joint's own scale: a finger's [0, 0.04] m in any unit
        // decides alike (1e-9 of the range past the stop is put back, 1e-12 is within).
        for unit in [1e-8, 1.0, 1e8] {
            let finger = JointLimit { name: "finger".into(), qpos: 0, qvel: 0, lower: 0.0, upper: 0.04 * unit };
            let moved = |x: f64| clamp_to_limits(std::slice::from_ref(&finger), &mut [x]).len();
            assert_eq!(moved(0.04 * unit * (1.0 + 1e-9)), 1, "unit {unit}");
            assert_eq!(moved(0.04 * unit * (1.0 + 1e-12)), 0, "unit {unit}");
            assert_eq!(moved(-0.04 * unit * 1e-9), 1, "unit {unit}");
        }
        let bad = JointLimit { lower: 1.0, ..limit };
        let scene = Scene3 { limits: vec![bad], ..Scene3::on_ground(tree, vec![], 0.5) };
        assert!(scene.validate().unwrap_err().to_string().contains("increasing"));
    }

    #[test]
    fn damping_acts_implicitly_so_a_light_heavily_damped_body_decays_without_diverging() {
        // A 2 kg box flying off the ground (no gravity) with damping d on its velocities and
        // h d / m = 50: an explicit step would multiply the speed by 1 − 50 each step. The
        // implicit step divides it by 1 + h d / m exactly (the bias is zero without rotation).
        let (mut scene, mut q0) = box_on_slope(0.0, 0.5, 0.0, 1.0);
        scene.tree.gravity = Vec3::zeros();
        let (h, d) = (1e-3, 1e5);
        scene.damping = vec![d; 6];
        q0[2] += 1.0;
        let mut v = DVector::from_column_slice(&[1.0, -2.0, 0.5, 0.0, 0.0, 0.0]);
        let mut q = DVector::from_column_slice(&q0);
        let s = MoreauSettings { h, ..Default::default() };
        for _ in 0..5 {
            let r = step(&scene, 0.0, &q, &v, &s).unwrap();
            assert_eq!(r.contacts, 0);
            let expect = &v / (1.0 + h * d / 2.0);
            assert!((&r.v - &expect).amax() < 1e-15, "{} vs {expect}", r.v);
            (q, v) = (r.q, r.v);
        }
    }

    #[test]
    fn a_box_slides_down_a_slope_as_coulomb_says_and_sticks_above_the_friction_angle() {
        let alpha = 0.3f64;
        let s = MoreauSettings::default();
        // μ < tan α: it slides with a = g (sin α − μ cos α) along the slope.
        let (scene, q0) = box_on_slope(alpha, 0.2, 0.0, 0.0);
        let run = simulate(&scene, &q0, &[0.0; 6], 1.0, 100, &s).unwrap();
        assert_eq!(run.end, "completed");
        let (p0, p1) = (Vec3::new(q0[0], q0[1], q0[2]), {
            let q = run.q.last().unwrap();
            Vec3::new(q[0], q[1], q[2])
        });
        let a = 9.81 * (alpha.sin() - 0.2 * alpha.cos());
        let d = p1 - p0;
        let down = -(axis_angle(&Vec3::y(), -alpha) * Vec3::x());
        assert!((d.dot(&down) - 0.5 * a).abs() < 1e-6 * a, "slid {} vs {}", d.dot(&down), 0.5 * a);
        assert!((d - down * d.dot(&down)).norm() < 1e-6, "it left the slope's line: {d}");
        // Energy only lost: kinetic gained = potential lost − friction's work.
        assert!(run.energy.windows(2).all(|e| e[1] <= e[0] + 1e-9 * e[0].abs().max(1.0)));
        // μ > tan α: it stays.
        let (scene, q0) = box_on_slope(alpha, 0.5, 0.0, 0.0);
        let run = simulate(&scene, &q0, &[0.0; 6], 1.0, 100, &s).unwrap();
        let q = run.q.last().unwrap();
        assert!((Vec3::new(q[0], q[1], q[2]) - Vec3::new(q0[0], q0[1], q0[2])).norm() < 1e-9, "{q:?}");
        assert!(run.v.last().unwrap().iter().all(|x| x.abs() < 1e-9));
    }

    #[test]
    fn a_dropped_box_lands_flat_and_rests_with_four_corners_never_gaining_energy() {
        let s = MoreauSettings::default();
        let (scene, q0) = box_on_slope(0.0, 0.6, 0.0, 0.05);
        let run = simulate(&scene, &q0, &[0.0; 6], 0.5, 10, &s).unwrap();
        assert_eq!(run.end, "completed");
        assert!(run.energy.windows(2).all(|e| e[1] <= e[0] + 1e-9 * e[0].abs().max(1.0)), "{:?}", run.energy);
        let v = run.v.last().unwrap();
        assert!(v.iter().all(|x| x.abs() < 1e-9), "{v:?}");
        assert_eq!(*run.contacts.last().unwrap(), 4);
        // With restitution it bounces: the first rebound rises to about e² of the drop.
        let (scene, q0) = box_on_slope(0.0, 0.6, 0.5, 0.05);
        let run = simulate(&scene, &q0, &[0.0; 6], 0.2, 1, &s).unwrap();
        // The impact: the first step where the vertical velocity turns upward.
        let k = run.v.windows(2).position(|w| w[0][2] < 0.0 && w[1][2] > 0.0).expect("a bounce") + 1;
        let top = run.q[k..].iter().map(|q| q[2]).fold(f64::NEG_INFINITY, f64::max);
        let rise = top - run.q[k][2];
        assert!((rise - 0.25 * 0.05).abs() < 0.1 * 0.25 * 0.05, "rebound {rise}");
    }
}
