//! A [`Multibody`] tree with unilateral constraints and joint forces as a [`ContactSystem`], so
//! that every dynamic analysis (the hybrid core, impacts, Zeno completion, return maps,
//! time-stepping) runs on it.
//!
//! Constraints (each with its [`ContactLaw`]):
//! * a **point on a line**: point `x` of a body, the centre of a disk of radius `ρ ≥ 0` (`0`: a
//!   point), against the fixed line through `p₀` with unit normal `n` pointing to the free side;
//!   gap `g = n·(r − p₀) − ρ`, tangential coordinate `t·(r − p₀) + ρ φ` with `t = (n_y, −n_x)`
//!   (the normal turned clockwise, as for P1's supports: the floor `n = (0, 1)` has
//!   `t = (1, 0)`) and `φ` the body's angle, so that `ẋ` is the slip velocity of the disk's
//!   lowest point (`ṫ·ṙ + ρ φ̇`: a rolling disk does not slip);
//! * a **joint limit**: coordinate `q_k ≥ b` (`g = q_k − b`) or `q_k ≤ b` (`g = b − q_k`),
//!   frictionless (its μ is ignored).
//!
//! Joint forces: a spring and damper on a coordinate, `τ_k = −k (q_k − r(t)) − c (q̇_k − ṙ(t))`
//! with the reference `r(t) = q_k⁰ + a sin(ω t + ψ)`: a PD law with a constant (`a = 0`) or a
//! time-periodic reference (`c < 0` injects energy, as P3's hip torque does).
//!
//! Walking rules ([`ContactSystem::armed`], [`ContactSystem::released_by`],
//! [`ContactSystem::relabel`]):
//! * a contact that **ignores scuffing** (a swing foot) is armed, able to strike, only while a
//!   coordinate lies above (or below) a threshold ([`Arm`]): the compass biped's swing foot once
//!   the stance leg has passed the slope's normal, `θ_stance > 0` (P2's rule after McGeer).
//!   Unarmed, it is treated as separated whatever its gap;
//! * a contact is **released** when any contact of a given list strikes (the stance foot at heel
//!   strike, P2 §2.2);
//! * a **relabelling** after the strike of a given contact, affine in the coordinates:
//!   `q⁺ = P q + c`, `q̇⁺ = P q̇` (the leg swap; [`Relabel`]).
//!
//! The dimension is a type parameter `N` (the hand-written models' fast path); [`MultibodySystem::new`]
//! checks that the tree has exactly `N` coordinates.

use nalgebra::{DMatrix, DVector, Matrix2xX, Vector2};

use super::linearization::{ContactLinearization, Linearization};
use super::multibody::{Joint, Multibody};
pub use super::reference::JointReference;
use super::{ContactLaw, ContactSystem};
use crate::spatial::planar::PlanarTree;
use crate::spatial::plane::Se2;
use crate::spatial::space::Space;
use crate::Error;

/// Largest number of degrees of freedom of a mechanism (the exact derivatives' dual numbers
/// carry at most this many components on the stack).
pub const MAX_DOF: usize = 24;

/// What a unilateral constraint of a [`MultibodySystem`] holds (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Constraint {
    /// Point `point` (body frame) of body `body` against the line through `line_point` with unit
    /// normal `normal` (world; toward the free side).
    PointOnLine {
        /// Body index.
        body: usize,
        /// The point in the body frame (m).
        point: Vector2<f64>,
        /// A point of the line (m).
        line_point: Vector2<f64>,
        /// The line's unit normal, toward the free side.
        normal: Vector2<f64>,
        /// Radius `ρ ≥ 0` of the disk centred at `point` (m; `0`: a point).
        radius: f64,
    },
    /// Coordinate `coordinate` bounded below (`lower`) or above by `bound`.
    JointLimit {
        /// The coordinate.
        coordinate: usize,
        /// `true`: `q ≥ bound`; `false`: `q ≤ bound`.
        lower: bool,
        /// The bound (rad or m).
        bound: f64,
    },
}

/// When a contact that ignores scuffing is armed: while `q[coordinate] > threshold` (`above`)
/// or `q[coordinate] < threshold`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arm {
    /// The coordinate.
    pub coordinate: usize,
    /// Armed above (`true`) or below the threshold.
    pub above: bool,
    /// The threshold (rad or m).
    pub threshold: f64,
}

impl Arm {
    /// Whether the rule holds at `q`.
    pub fn holds(&self, q: &[f64]) -> bool {
        let x = q[self.coordinate];
        if self.above {
            x > self.threshold
        } else {
            x < self.threshold
        }
    }
}

/// A unilateral constraint, its law and its walking rules (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// The constraint.
    pub constraint: Constraint,
    /// Friction and restitution.
    pub law: ContactLaw,
    /// `Some`: the contact ignores scuffing and is armed only while the rule holds.
    pub arm: Option<Arm>,
    /// The contacts whose strike releases this one.
    pub released_by: Vec<usize>,
}

impl Contact {
    /// A contact that is always armed and never released.
    pub fn new(constraint: Constraint, law: ContactLaw) -> Self {
        Self { constraint, law, arm: None, released_by: vec![] }
    }
}

/// An affine relabelling `q⁺ = P q + c`, `q̇⁺ = P q̇` after the strike of `contact`.
#[derive(Debug, Clone, PartialEq)]
pub struct Relabel {
    /// The striking contact.
    pub contact: usize,
    /// `P`, `n × n`, row-major.
    pub matrix: Vec<f64>,
    /// `c`.
    pub offset: Vec<f64>,
}

/// A spring and damper on one coordinate tracking a reference `r(t)`
/// ([`JointReference`]): `τ = −k (q − r) − c (q̇ − ṙ)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointSpring {
    /// The coordinate.
    pub coordinate: usize,
    /// Stiffness `k` (N·m/rad or N/m).
    pub stiffness: f64,
    /// Damping `c` (negative: energy is injected).
    pub damping: f64,
    /// The reference `r(t)`.
    pub reference: JointReference,
}

impl JointSpring {
    /// A spring and damper with a constant reference.
    pub fn constant(coordinate: usize, stiffness: f64, rest: f64, damping: f64) -> Self {
        Self { coordinate, stiffness, damping, reference: JointReference::constant(rest) }
    }

    /// Whether the reference moves.
    pub fn periodic(&self) -> bool {
        self.reference.periodic()
    }

    /// The torque (or force) at time `t`.
    pub fn force(&self, t: f64, q: f64, v: f64) -> f64 {
        let (r, rd) = self.reference.at(t);
        -self.stiffness * (q - r) - self.damping * (v - rd)
    }
}

/// Which tree evaluates a [`MultibodySystem`]'s dynamics and contact kinematics (issue #60,
/// step 3: the planar models on the one tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kernel {
    /// The planar engine's own kernel ([`Multibody`]: Kane's equations in the plane).
    Planar,
    /// The spatial tree ([`crate::spatial::planar::PlanarTree`]: each body a lamina in the
    /// `xy` plane, a planar joint the tree's own with its velocities turned), with the same
    /// coordinates and velocities.
    #[default]
    Spatial,
}

/// The spatial tree a system runs on ([`Kernel::Spatial`]); built from the system's own tree,
/// so comparisons of systems compare that tree and ignore this.
#[derive(Debug, Clone)]
struct OnSpatialTree(std::sync::Arc<PlanarTree>);

impl PartialEq for OnSpatialTree {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A multibody tree with contacts and joint forces, `N` coordinates (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct MultibodySystem {
    mb: Multibody,
    contacts: Vec<Contact>,
    springs: Vec<JointSpring>,
    relabel: Option<Relabel>,
    length: f64,
    spatial: Option<OnSpatialTree>,
    /// Identifies this system's data in the per-thread cache of the last evaluation.
    id: CacheId,
}

/// A process-unique number given to each system when it is built (clones share it: the same
/// data); ignored by comparisons.
#[derive(Debug, Clone, Copy)]
struct CacheId(u64);

impl PartialEq for CacheId {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl CacheId {
    fn fresh() -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        CacheId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The last evaluation on this thread: the frames, `M` and the tree's `h` at `(q, q̇)`, keyed by
/// the system and the exact bits of `q` and `q̇`.
///
/// The hybrid core asks one state for `M`, `h`, every contact's gap, Jacobians and `J̇q̇`; each
/// needs the same forward pass, which this keeps. Every answer is a pure function of the key
/// (positions and Jacobians do not depend on `q̇`), so the cache cannot change a result: the
/// test `answers_do_not_depend_on_the_cache` checks that bit for bit.
#[derive(Default)]
struct Evaluation {
    /// The system, `0` when nothing is valid.
    id: u64,
    q: Vec<u64>,
    v: Vec<u64>,
    /// Whether the velocity-level part is computed (for `v`).
    v_ok: bool,
    frames: super::multibody::Frames,
    /// The spatial tree's frames ([`Kernel::Spatial`]; with the velocities once `v_ok`), and the
    /// storage its algorithms reuse: their work, `M` and the bias over the tree's velocities,
    /// and the state in its coordinates and velocities.
    frames3: crate::spatial::tree::Frames<f64, Se2>,
    work3: crate::spatial::tree::TreeWork<f64, Se2>,
    mass3: nalgebra::DMatrix<f64>,
    bias3: nalgebra::DVector<f64>,
    q3: Vec<f64>,
    v3: Vec<f64>,
    /// The planar joints' `(cos θ, sin θ)` at `q` ([`PlanarTree::turns`]).
    turns3: Vec<(f64, f64)>,
    /// Each contact's point Jacobian on the tree, in the planar model's velocities and in the
    /// tree's, once asked for at `q` (a Jacobian depends on `q` alone): valid when the flag is
    /// set (the storage is kept from state to state).
    jac3: Vec<(bool, Matrix2xX<f64>, Matrix2xX<f64>)>,
    mass: nalgebra::DMatrix<f64>,
    bias: nalgebra::DVector<f64>,
    scratch: super::multibody::Scratch,
}

thread_local! {
    static LAST: std::cell::RefCell<Evaluation> = std::cell::RefCell::new(Evaluation::default());
}

fn bits(x: &[f64]) -> impl Iterator<Item = u64> + '_ {
    x.iter().map(|v| v.to_bits())
}

impl MultibodySystem {
    /// Checks the pieces against each other: `N` coordinates, bodies and coordinates that
    /// exist, unit normals, finite numbers, laws with `μ ≥ 0` and `e ∈ [0, 1]`.
    pub fn new(mb: Multibody, contacts: Vec<Contact>, springs: Vec<JointSpring>) -> Result<Self, Error> {
        let n = mb.dof();
        let nb = mb.bodies().len();
        for (i, c) in contacts.iter().enumerate() {
            let key = format!("contact[{i}]");
            let law_ok = c.law.mu >= 0.0 && c.law.mu.is_finite() && (0.0..=1.0).contains(&c.law.restitution);
            if !law_ok {
                return Err(Error::model(key, "needs mu >= 0 (finite) and restitution in [0, 1]"));
            }
            match c.constraint {
                Constraint::PointOnLine { body, point, line_point, normal, radius } => {
                    if body >= nb {
                        return Err(Error::model(key, format!("body {body} does not exist ({nb} bodies)")));
                    }
                    if !point.iter().chain(line_point.iter()).all(|v| v.is_finite()) {
                        return Err(Error::model(key, "points must be finite"));
                    }
                    if !(radius >= 0.0 && radius.is_finite()) {
                        return Err(Error::model(key, format!("the radius must be finite and >= 0, got {radius}")));
                    }
                    if normal.norm().is_nan() || (normal.norm() - 1.0).abs() > super::multibody::UNIT_AXIS_TOL {
                        return Err(Error::model(key, format!("the normal must be a unit vector, got {normal:?}")));
                    }
                }
                Constraint::JointLimit { coordinate, bound, .. } => {
                    if coordinate >= n || !bound.is_finite() {
                        return Err(Error::model(key, format!("needs a coordinate below {n} and a finite bound")));
                    }
                }
            }
            if let Some(a) = c.arm {
                if a.coordinate >= n || !a.threshold.is_finite() {
                    return Err(Error::model(
                        key,
                        format!("arming needs a coordinate below {n} and a finite threshold"),
                    ));
                }
            }
            if let Some(&j) = c.released_by.iter().find(|&&j| j >= contacts.len() || j == i) {
                return Err(Error::model(
                    key,
                    format!("released by contact {j}: not another contact ({} contacts)", contacts.len()),
                ));
            }
        }
        for (i, s) in springs.iter().enumerate() {
            if s.coordinate >= n
                || ![s.stiffness, s.damping].iter().all(|v| v.is_finite())
                || s.reference.invalid().is_some()
            {
                return Err(Error::model(
                    format!("spring[{i}]"),
                    format!("needs a coordinate below {n} and finite numbers (frequency >= 0)"),
                ));
            }
        }
        // The length scale: the largest offset in the tree (joint origins, centres of mass, radii
        // of gyration, contact points) and of the contacts' lines from the world origin, where
        // the tree is rooted (a point mass on a slider has no other length: its walls').
        let gyration = |b: &super::multibody::Body| if b.mass > 0.0 { (b.inertia / b.mass).sqrt() } else { 0.0 };
        let points = contacts.iter().map(|c| match c.constraint {
            Constraint::PointOnLine { point, radius, line_point, normal, .. } => {
                (point.norm() + radius).max(normal.dot(&line_point).abs())
            }
            Constraint::JointLimit { .. } => 0.0,
        });
        let length = mb
            .bodies()
            .iter()
            .flat_map(|b| [b.origin.norm(), b.com.norm(), gyration(b)])
            .chain(points)
            .fold(0.0f64, f64::max)
            .max(crate::numeric::SCALE_FLOOR);
        let spatial = Some(OnSpatialTree(std::sync::Arc::new(PlanarTree::new(&mb)?)));
        Ok(MultibodySystem { mb, contacts, springs, relabel: None, length, spatial, id: CacheId::fresh() })
    }

    /// This system evaluated by `kernel` ([`Kernel`]): the same coordinates, velocities,
    /// contacts and forces.
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Self, Error> {
        self.spatial = match kernel {
            Kernel::Planar => None,
            Kernel::Spatial => Some(OnSpatialTree(std::sync::Arc::new(PlanarTree::new(&self.mb)?))),
        };
        self.id = CacheId::fresh();
        Ok(self)
    }

    /// The kernel that evaluates this system.
    pub fn kernel(&self) -> Kernel {
        if self.spatial.is_some() {
            Kernel::Spatial
        } else {
            Kernel::Planar
        }
    }

    /// Adds the relabelling `q⁺ = P q + c`, `q̇⁺ = P q̇` after the strike of its contact
    /// (module docs); `P` must be `N × N` and finite, `c` finite, the contact one of this system's.
    pub fn with_relabel(mut self, r: Relabel) -> Result<Self, Error> {
        if r.contact >= self.contacts.len() {
            return Err(Error::model("relabel.contact", format!("contact {} does not exist", r.contact)));
        }
        let n = self.mb.dof();
        if r.matrix.len() != n * n || r.offset.len() != n {
            return Err(Error::model("relabel", format!("needs a {n}x{n} matrix and {n} offsets")));
        }
        if !r.matrix.iter().chain(&r.offset).all(|v| v.is_finite()) {
            return Err(Error::model("relabel", "must be finite numbers"));
        }
        self.relabel = Some(r);
        Ok(self)
    }

    /// The contacts.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The joint springs and dampers.
    pub fn springs(&self) -> &[JointSpring] {
        &self.springs
    }

    /// The tree.
    pub fn multibody(&self) -> &Multibody {
        &self.mb
    }

    /// Runs `f` on the evaluation at `(q, q̇)`, computing what this thread's last evaluation
    /// lacks ([`Evaluation`]): the position level when `q` differs, the velocity level when `q̇`
    /// differs. With `v = None` only the position level (origins, angles, Jacobians, `M`) is
    /// valid in what `f` sees.
    fn evaluated<R>(&self, q: &[f64], v: Option<&[f64]>, f: impl FnOnce(&mut Evaluation) -> R) -> R {
        LAST.with(|cell| {
            let mut guard = cell.borrow_mut();
            let e = &mut *guard;
            if !(e.id == self.id.0 && e.q.iter().copied().eq(bits(q))) {
                // Marked invalid until filled (a panic below must not leave a stale key).
                e.id = 0;
                e.v_ok = false;
                match &self.spatial {
                    None => {
                        self.mb.positions_into(q, &mut e.frames);
                        self.mb.mass_keeping_into(&e.frames, &mut e.mass, &mut e.scratch);
                    }
                    Some(OnSpatialTree(pt)) => {
                        pt.to_spatial_into(q, &mut e.q3);
                        e.jac3.resize(self.contacts.len(), (false, Matrix2xX::zeros(0), Matrix2xX::zeros(0)));
                        e.jac3.iter_mut().for_each(|c| c.0 = false);
                        pt.tree.frames_into(&e.q3, &mut e.frames3);
                        pt.tree.mass_matrix_into(&e.frames3, &mut e.work3, &mut e.mass3);
                        pt.turns_into(&e.q3, &mut e.turns3);
                        pt.mass_to_planar(&e.turns3, &e.mass3, &mut e.mass);
                    }
                }
                e.q.clear();
                e.q.extend(bits(q));
                e.id = self.id.0;
            }
            if let Some(v) = v {
                if !(e.v_ok && e.v.iter().copied().eq(bits(v))) {
                    e.v_ok = false;
                    match &self.spatial {
                        None => {
                            self.mb.velocities_into(v, &mut e.frames);
                            self.mb.bias_after_mass_into(&e.frames, &mut e.bias, &e.scratch);
                        }
                        Some(OnSpatialTree(pt)) => {
                            pt.velocities_into(&e.turns3, v, &mut e.v3);
                            pt.tree.add_velocities(&mut e.frames3, &e.v3);
                            pt.tree.bias_into(&e.frames3, &e.v3, &mut e.work3, &mut e.bias3);
                            pt.bias_to_planar(&e.turns3, &e.v3, &e.mass3, e.bias3.as_slice(), &mut e.bias);
                        }
                    }
                    e.v.clear();
                    e.v.extend(bits(v));
                    e.v_ok = true;
                }
            }
            f(e)
        })
    }

    /// The point-on-line kinematics of contact `i` at `q` (and `q̇`, for `J̇q̇`): gap, tangential
    /// coordinate, normal and tangent Jacobians, and `(ẇ_nᵀq̇, ẇ_tᵀq̇)` (zero without `q̇`). The
    /// spatial kernel leaves the Jacobians zero unless `rows`.
    fn kinematics(&self, i: usize, q: &DVector<f64>, v: Option<&DVector<f64>>, rows: bool) -> ContactKinematics {
        match self.contacts[i].constraint {
            Constraint::PointOnLine { body, point, line_point, normal, radius } if self.spatial.is_some() => {
                let pt = &self.spatial.as_ref().expect("the spatial kernel").0;
                let t = Vector2::new(normal.y, -normal.x);
                self.evaluated(q.as_slice(), v.map(|v| v.as_slice()), |e| {
                    let (b, x) = (pt.body[body], point);
                    let d = Se2::point(&e.frames3.world()[b], &x) - line_point;
                    let (mut wn, mut wt) = (DVector::<f64>::zeros(q.len()), DVector::<f64>::zeros(q.len()));
                    // (The tree's Jacobian: for the rows, and for the velocity product's `J Ṫ q̇`
                    // where a planar joint turns its velocities; computed once per `q`.)
                    let need = rows || (v.is_some() && !pt.planar.is_empty());
                    if need && !e.jac3[i].0 {
                        let (valid, planar, tree) = &mut e.jac3[i];
                        pt.tree.point_jacobian_into(&e.frames3, b, &x, tree);
                        pt.jacobian_to_planar_into(&e.turns3, tree, planar);
                        *valid = true;
                    }
                    let f = &e.frames3;
                    // (Over the planar model's velocities for the rows, over the tree's for `J Ṫ q̇`.)
                    let (_, planar, tree) = &e.jac3[i];
                    let j = need.then_some(tree);
                    if rows {
                        let j = planar;
                        for &(k, s) in &pt.angle[body].1 {
                            wt[k] += radius * s;
                        }
                        for c in 0..q.len() {
                            wn[c] = normal.x * j[(0, c)] + normal.y * j[(1, c)];
                            wt[c] += t.x * j[(0, c)] + t.y * j[(1, c)];
                        }
                    }
                    let dot = if v.is_some() {
                        // (A lamina turning in its plane has no angular velocity product.)
                        let a = pt.tree.point_velocity_product_in(f, b, &x);
                        let acc = match j {
                            Some(j) => pt.velocity_product_to_planar(&e.v3, j, a),
                            None => a,
                        };
                        (normal.dot(&acc), t.dot(&acc))
                    } else {
                        (0.0, 0.0)
                    };
                    ContactKinematics {
                        gap: normal.dot(&d) - radius,
                        tangential: t.dot(&d) + radius * pt.body_angle(body, q.as_slice()),
                        wn,
                        wt,
                        dot,
                    }
                })
            }
            Constraint::PointOnLine { body, point, line_point, normal, radius } => {
                let t = Vector2::new(normal.y, -normal.x);
                self.evaluated(q.as_slice(), v.map(|v| v.as_slice()), |e| {
                    let f = &e.frames;
                    let rho = f.offset(body, &point);
                    let rp = Vector2::new(-rho.y, rho.x);
                    let d = f.position[body] + rho - line_point;
                    let (jx, jy, jphi) = (f.jacobian_row(body, 0), f.jacobian_row(body, 1), f.jacobian_row(body, 2));
                    let (np, tp) = (normal.dot(&rp), t.dot(&rp) + radius);
                    let wn =
                        DVector::<f64>::from_fn(q.len(), |c, _| normal.x * jx[c] + normal.y * jy[c] + np * jphi[c]);
                    let wt = DVector::<f64>::from_fn(q.len(), |c, _| t.x * jx[c] + t.y * jy[c] + tp * jphi[c]);
                    let dot = if v.is_some() {
                        let w = f.omega[body];
                        let acc = f.accel_bias[body] + rp * f.alpha_bias[body] - rho * (w * w);
                        (normal.dot(&acc), t.dot(&acc) + radius * f.alpha_bias[body])
                    } else {
                        (0.0, 0.0)
                    };
                    ContactKinematics {
                        gap: normal.dot(&d) - radius,
                        tangential: t.dot(&d) + radius * f.angle[body],
                        wn,
                        wt,
                        dot,
                    }
                })
            }
            Constraint::JointLimit { coordinate, lower, bound } => {
                let s = if lower { 1.0 } else { -1.0 };
                let mut wn = DVector::<f64>::zeros(q.len());
                wn[coordinate] = s;
                ContactKinematics {
                    gap: s * (q[coordinate] - bound),
                    tangential: 0.0,
                    wn,
                    wt: DVector::zeros(q.len()),
                    dot: (0.0, 0.0),
                }
            }
        }
    }

    /// One forward-mode pass of [`super::multibody_ad::evaluate`] seeded along the coordinates:
    /// the gradients of every entry of `M`, `h` and the contact kinematics with respect to `q`.
    /// The dual numbers carry a fixed number `K ≥ n` of derivative components (the smallest of a
    /// few sizes; the components past `n` stay zero), so that they live on the stack.
    fn dual_pass(&self, q: &DVector<f64>, v: &DVector<f64>) -> DualPass {
        match q.len() {
            0..=2 => self.dual_pass_k::<2>(q, v),
            3..=4 => self.dual_pass_k::<4>(q, v),
            5..=6 => self.dual_pass_k::<6>(q, v),
            7..=8 => self.dual_pass_k::<8>(q, v),
            9..=12 => self.dual_pass_k::<12>(q, v),
            13..=16 => self.dual_pass_k::<16>(q, v),
            _ => self.dual_pass_k::<MAX_DOF>(q, v),
        }
    }

    fn dual_pass_k<const K: usize>(&self, q: &DVector<f64>, v: &DVector<f64>) -> DualPass {
        use num_dual::DualSVec64;
        let n = q.len();
        let qd: Vec<DualSVec64<K>> = (0..n).map(|k| DualSVec64::from_re(q[k]).derivative(k)).collect();
        let vd: Vec<DualSVec64<K>> = (0..n).map(|k| DualSVec64::from_re(v[k])).collect();
        // (Into the caller's storage: a pass reads n² + 5n gradients.)
        let grad = |x: &DualSVec64<K>, out: &mut [f64]| {
            let g = x.eps.unwrap_generic(nalgebra::Const::<K>, nalgebra::U1);
            out.copy_from_slice(&g.as_slice()[..n]);
        };
        if let Some(OnSpatialTree(pt)) = &self.spatial {
            return self.spatial_dual_pass(pt, &qd, &vd, v, &grad);
        }
        let ev = super::multibody_ad::evaluate(&self.mb, &qd, &vd, true);
        let (dm, dh) = tree_gradients(n, |r, c| ev.m(r, c), |r| ev.bias[r], &grad);
        let contacts = self
            .contacts
            .iter()
            .map(|c| match c.constraint {
                Constraint::PointOnLine { body, point, normal, radius, .. } => {
                    let t = (normal.y, -normal.x);
                    let p = ev.point(body, (point.x, point.y));
                    let b = &ev.bodies[body];
                    let mut cl = ContactLinearization::constant(n);
                    for k in 0..n {
                        let wn = p.jac[0][k] * normal.x + p.jac[1][k] * normal.y;
                        let wt = p.jac[0][k] * t.0 + p.jac[1][k] * t.1 + b.jac[2][k] * radius;
                        grad_rows(&grad, &mut cl, k, &wn, &wt);
                    }
                    let dn = p.accel_bias.dot_f64((normal.x, normal.y));
                    let dt = p.accel_bias.dot_f64(t) + b.alpha_bias * radius;
                    grad(&dn, cl.dn_dq.as_mut_slice());
                    grad(&dt, cl.dt_dq.as_mut_slice());
                    // The velocity products are quadratic forms: ẇᵀq̇ = q̇ᵀ (∂w/∂q) q̇, so their
                    // gradient in q̇ is (∂w/∂q + ∂w/∂qᵀ) q̇.
                    cl.dn_dv = (&cl.dwn_dq + cl.dwn_dq.transpose()) * v;
                    cl.dt_dv = (&cl.dwt_dq + cl.dwt_dq.transpose()) * v;
                    cl
                }
                Constraint::JointLimit { .. } => ContactLinearization::constant(n),
            })
            .collect();
        DualPass { dm, dh, contacts }
    }

    /// [`Self::dual_pass_k`] on the spatial tree ([`Kernel::Spatial`]): the tree is generic over
    /// its scalar, so the same pass in dual numbers gives the gradients.
    fn spatial_dual_pass<T: crate::spatial::algebra::Real>(
        &self,
        pt: &PlanarTree,
        qd: &[T],
        vd: &[T],
        v: &DVector<f64>,
        grad: &dyn Fn(&T, &mut [f64]),
    ) -> DualPass {
        use crate::spatial::algebra::real;
        let n = qd.len();
        let qs = pt.to_spatial(qd);
        let turns = pt.turns(&qs);
        let vs = pt.velocities(&turns, vd);
        let f = pt.tree.frames(&qs, Some(&vs));
        let m3 = pt.tree.mass_matrix_in(&f);
        let (mut m, mut h) = (DMatrix::zeros(n, n), DVector::zeros(n));
        pt.mass_to_planar(&turns, &m3, &mut m);
        pt.bias_to_planar(&turns, &vs, &m3, pt.tree.bias_in(&f, &vs).as_slice(), &mut h);
        let (dm, dh) = tree_gradients(n, |r, c| m[(r, c)], |r| h[r], grad);
        let contacts = self
            .contacts
            .iter()
            .map(|c| match c.constraint {
                Constraint::PointOnLine { body, point, normal, .. } => {
                    let (nx, ny): (T, T) = (real(normal.x), real(normal.y));
                    let b = pt.body[body];
                    let x = Vector2::new(real(point.x), real(point.y));
                    let j3 = pt.tree.point_jacobian_in(&f, b, &x);
                    let j = pt.jacobian_to_planar(&turns, &j3);
                    let mut cl = ContactLinearization::constant(n);
                    // (The tangent row's `ρ φ` part is constant: the angle is affine in `q`.)
                    for k in 0..n {
                        let wn = j[(0, k)] * nx + j[(1, k)] * ny;
                        let wt = j[(0, k)] * ny - j[(1, k)] * nx;
                        grad_rows(grad, &mut cl, k, &wn, &wt);
                    }
                    let acc = pt.velocity_product_to_planar(&vs, &j3, pt.tree.point_velocity_product_in(&f, b, &x));
                    grad(&(acc.x * nx + acc.y * ny), cl.dn_dq.as_mut_slice());
                    grad(&(acc.x * ny - acc.y * nx), cl.dt_dq.as_mut_slice());
                    cl.dn_dv = (&cl.dwn_dq + cl.dwn_dq.transpose()) * v;
                    cl.dt_dv = (&cl.dwt_dq + cl.dwt_dq.transpose()) * v;
                    cl
                }
                Constraint::JointLimit { .. } => ContactLinearization::constant(n),
            })
            .collect();
        DualPass { dm, dh, contacts }
    }

    /// `∂h/∂q̇` of the tree (springs and dampers aside) from `∂M/∂q`: `h` holds gravity and
    /// the velocity products `−c(q, q̇)` of Lagrange's equations, `c = Ṁq̇ − ½ ∂(q̇ᵀMq̇)/∂q`, so
    /// `∂c_i/∂q̇_m = Σ_k (∂_k M_im + ∂_m M_ik − ∂_i M_mk) q̇_k` (twice the Christoffel symbols
    /// contracted with `q̇`): no second pass seeded along the velocities is needed.
    fn velocity_products_gradient(dm: &[DMatrix<f64>], v: &DVector<f64>) -> DMatrix<f64> {
        let n = v.len();
        let mdot = dm.iter().zip(v.iter()).fold(DMatrix::<f64>::zeros(n, n), |a, (m, &vk)| a + m * vk);
        let dmv: Vec<DVector<f64>> = dm.iter().map(|m| m * v).collect();
        DMatrix::from_fn(n, n, |i, m| -(mdot[(i, m)] + dmv[m][i] - dmv[i][m]))
    }

    fn spring_force(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> DVector<f64> {
        let mut f = DVector::<f64>::zeros(q.len());
        for s in &self.springs {
            f[s.coordinate] += s.force(t, q[s.coordinate], v[s.coordinate]);
        }
        f
    }
}

/// `∂M/∂q_k` (one matrix per `k`) and `∂h/∂q` from a pass in dual numbers seeded along the
/// coordinates: `m(r, c)` and `h(r)` the pass's entries, `grad` their derivative parts.
fn tree_gradients<T>(
    n: usize,
    m: impl Fn(usize, usize) -> T,
    h: impl Fn(usize) -> T,
    grad: &dyn Fn(&T, &mut [f64]),
) -> (Vec<DMatrix<f64>>, DMatrix<f64>) {
    let mut dm = vec![DMatrix::<f64>::zeros(n, n); n];
    let mut dh = DMatrix::<f64>::zeros(n, n);
    let mut g = vec![0.0; n];
    for r in 0..n {
        grad(&h(r), &mut g);
        for (k, &x) in g.iter().enumerate() {
            dh[(r, k)] = x;
        }
        // (M is symmetric: each entry once.)
        for c in 0..=r {
            grad(&m(r, c), &mut g);
            for (d, &x) in dm.iter_mut().zip(&g) {
                d[(r, c)] = x;
                d[(c, r)] = x;
            }
        }
    }
    (dm, dh)
}

/// Row `k` of a contact's `∂w_n/∂q` and `∂w_t/∂q` from the dual numbers `wn` and `wt` (entry
/// `k` of each row).
fn grad_rows<T>(grad: &dyn Fn(&T, &mut [f64]), cl: &mut ContactLinearization, k: usize, wn: &T, wt: &T) {
    let mut g = [0.0; MAX_DOF];
    let n = cl.dn_dq.len();
    grad(wn, &mut g[..n]);
    for (c, &x) in g[..n].iter().enumerate() {
        cl.dwn_dq[(k, c)] = x;
    }
    grad(wt, &mut g[..n]);
    for (c, &x) in g[..n].iter().enumerate() {
        cl.dwt_dq[(k, c)] = x;
    }
}

/// The gradients in `q` that one [`MultibodySystem::dual_pass`] gives, with the contacts'
/// velocity-product gradients in `q̇` from their quadratic form.
struct DualPass {
    dm: Vec<DMatrix<f64>>,
    dh: DMatrix<f64>,
    contacts: Vec<ContactLinearization>,
}

struct ContactKinematics {
    gap: f64,
    tangential: f64,
    wn: DVector<f64>,
    wt: DVector<f64>,
    dot: (f64, f64),
}

impl ContactSystem for MultibodySystem {
    fn dof(&self) -> usize {
        self.mb.dof()
    }

    fn contact_count(&self) -> usize {
        self.contacts.len()
    }

    fn law(&self, i: usize) -> ContactLaw {
        match self.contacts[i].constraint {
            Constraint::JointLimit { .. } => ContactLaw { mu: 0.0, ..self.contacts[i].law },
            Constraint::PointOnLine { .. } => self.contacts[i].law,
        }
    }

    fn mass_matrix(&self, q: &DVector<f64>) -> DMatrix<f64> {
        self.evaluated(q.as_slice(), None, |e| e.mass.clone())
    }

    fn bias(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> DVector<f64> {
        let h = self.evaluated(q.as_slice(), Some(v.as_slice()), |e| e.bias.clone());
        h + self.spring_force(t, q, v)
    }

    fn gap(&self, i: usize, q: &DVector<f64>) -> f64 {
        self.kinematics(i, q, None, false).gap
    }

    fn tangential(&self, i: usize, q: &DVector<f64>) -> f64 {
        self.kinematics(i, q, None, false).tangential
    }

    fn normal_jacobian(&self, i: usize, q: &DVector<f64>) -> DVector<f64> {
        self.kinematics(i, q, None, true).wn
    }

    fn tangent_jacobian(&self, i: usize, q: &DVector<f64>) -> DVector<f64> {
        self.kinematics(i, q, None, true).wt
    }

    fn jacobian_dot_v(&self, i: usize, q: &DVector<f64>, v: &DVector<f64>) -> (f64, f64) {
        self.kinematics(i, q, Some(v), false).dot
    }

    fn contact_rows(&self, i: usize, q: &DVector<f64>, v: &DVector<f64>) -> (DVector<f64>, DVector<f64>, (f64, f64)) {
        let k = self.kinematics(i, q, Some(v), true);
        (k.wn, k.wt, k.dot)
    }

    fn potential(&self, q: &DVector<f64>) -> Option<f64> {
        if self.springs.iter().any(|s| s.damping != 0.0 || s.periodic()) {
            return None;
        }
        let f = self.mb.frames(q.as_slice(), &vec![0.0; q.len()]);
        let springs: f64 =
            self.springs.iter().map(|s| 0.5 * s.stiffness * (q[s.coordinate] - s.reference.rest).powi(2)).sum();
        Some(self.mb.potential_energy(&f) + springs)
    }

    fn coordinate_scale(&self) -> DVector<f64> {
        // Angles in radians; displacements (prismatic, a floating body's x and y) in lengths.
        let mut s = DVector::<f64>::repeat(self.mb.dof(), 1.0);
        for (b, body) in self.mb.bodies().iter().enumerate() {
            let k = self.mb.first_coordinate(b);
            match body.joint {
                Joint::Prismatic { .. } => s[k] = self.length,
                Joint::Planar | Joint::PlanarAxes { .. } => {
                    s[k] = self.length;
                    s[k + 1] = self.length;
                }
                Joint::Revolute { .. } | Joint::Fixed => {}
            }
        }
        s
    }

    fn length_scale(&self) -> f64 {
        self.length
    }

    fn autonomous(&self) -> bool {
        !self.springs.iter().any(JointSpring::periodic)
    }

    fn armed(&self, i: usize, q: &DVector<f64>) -> bool {
        self.contacts[i].arm.is_none_or(|a| a.holds(q.as_slice()))
    }

    fn released_by(&self, i: usize, colliding: &[usize]) -> bool {
        self.contacts[i].released_by.iter().any(|j| colliding.contains(j))
    }

    fn relabel(&self, contact: usize, q: &DVector<f64>, v: &DVector<f64>) -> Option<(DVector<f64>, DVector<f64>)> {
        let r = self.relabel.as_ref().filter(|r| r.contact == contact)?;
        let n = q.len();
        let p = DMatrix::<f64>::from_row_slice(n, n, &r.matrix);
        Some((&p * q + DVector::<f64>::from_column_slice(&r.offset), p * v))
    }

    /// By forward-mode automatic differentiation of the tree ([`super::multibody_ad`]): one pass
    /// seeded along `q`; the derivatives in `q̇` follow from it (the velocity products are
    /// quadratic in `q̇`: `velocity_products_gradient` and the contacts'
    /// quadratic forms); the joint springs and dampers add `−k` and `−c`.
    fn linearization(&self, _t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Option<Linearization> {
        let pq = self.dual_pass(q, v);
        let mut dh_dq = pq.dh;
        let mut dh_dv = Self::velocity_products_gradient(&pq.dm, v);
        for s in &self.springs {
            dh_dq[(s.coordinate, s.coordinate)] -= s.stiffness;
            dh_dv[(s.coordinate, s.coordinate)] -= s.damping;
        }
        let lin = Linearization { dm_dq: pq.dm, dh_dq, dh_dv, contacts: pq.contacts };
        let finite = lin
            .dh_dq
            .iter()
            .chain(lin.dh_dv.iter())
            .chain(lin.dm_dq.iter().flat_map(|m| m.iter()))
            .all(|x| x.is_finite());
        finite.then_some(lin)
    }

    fn relabel_matrix(&self, contact: usize) -> Option<DMatrix<f64>> {
        let r = self.relabel.as_ref().filter(|r| r.contact == contact)?;
        let n = self.mb.dof();
        Some(DMatrix::<f64>::from_row_slice(n, n, &r.matrix))
    }

    /// `√(L/g)`; without gravity the fastest of the joint springs' `√(M_jj/k)` (at `q = 0`),
    /// else of the dampers' `M_jj/|c|`, else of the references' `1/ω`; 1 s for a mechanism
    /// with no force at all (nothing then sets a time).
    fn time_scale(&self) -> f64 {
        let g = self.mb.gravity_vector().norm();
        if g > 0.0 {
            return (self.length / g).sqrt();
        }
        let m = self.mass_matrix(&DVector::zeros(self.mb.dof()));
        let fastest = |f: &dyn Fn(&JointSpring, f64) -> f64| {
            self.springs
                .iter()
                .map(|s| f(s, m[(s.coordinate, s.coordinate)]))
                .filter(|t| *t > 0.0 && t.is_finite())
                .reduce(f64::min)
        };
        fastest(&|s, mjj| (mjj / s.stiffness).sqrt())
            .or_else(|| fastest(&|s, mjj| mjj / s.damping.abs()))
            .or_else(|| fastest(&|s, _| 1.0 / s.reference.frequency))
            .unwrap_or(1.0)
    }
}

#[cfg(test)]
mod tests;
