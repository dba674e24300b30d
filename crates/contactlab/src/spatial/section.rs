//! Coordinates on a Poincaré section of a 3-D run, on the configuration manifold: the chart
//! that the return-map machinery ([`crate::hybrid::section`]: Newton's method for periodic
//! orbits, Floquet multipliers, exact derivatives) works in for a [`EventScene`].
//!
//! # Tangent coordinates
//! A configuration near the section's reference `q*` is written `q = ρ(q*, δ)` with `δ` in the
//! velocity space (`nv` numbers, one per degree of freedom), never as raw quaternion components:
//!
//! | joint | `ρ(q*, δ)` |
//! |---|---|
//! | revolute, prismatic, translation | `q* + δ` |
//! | planar | `(x*, y*) + R(θ*) (δ₁, δ₂)`, `θ* + δ₃` (the displacement in the body's axes) |
//! | ball | `N(q* ⊗ (δ/2, 1))`: turned by `δ` about the body's axes (to first order) |
//! | free | `p* + (δ₁, δ₂, δ₃)` (world axes), the quaternion as a ball's by `(δ₄, δ₅, δ₆)` |
//!
//! (`N` normalises.) Its derivative at `δ = 0` is the map `v ↦ q̇` of each joint but the free
//! joint's translation (in world axes, so that a translation symmetry is a set of coordinates),
//! it is rational (so dual numbers differentiate it exactly, with no square root at zero), and
//! its inverse is explicit: the rotation vector part of `q*⁻¹ ⊗ q = (u, w)` is `2u/w`. Newton's
//! corrections on the section are made in `δ`, so quaternions stay unit and their norm is not a
//! coordinate.
//!
//! # The chart
//! At a reference state on the section the contacts whose gaps vanish (the stance foot, the
//! foot that just struck) and the velocity constraints that hold (normal, and for a sticking
//! contact tangential, velocities zero) are taken as the section's constraints, as the planar
//! [`crate::multibody::gait::StrikeChart`] does; the coordinates are the `δ` and `v` components
//! they leave free (chosen by Gaussian elimination with column pivoting, each column in its own
//! unit, a translation's length or a turn's radian, so that the choice does not depend on the
//! unit of length), less the `δ`
//! components of the translation symmetry. `lift(y)` solves the gaps for the dependent `δ`
//! (Newton) and the velocity constraints for the dependent velocities (linear); `chart(x)` reads
//! `δ = ρ⁻¹(q*, q)` and `v`. Both Jacobians are exact: dual numbers through `ρ`, the contact
//! kinematics and the constraint solves (one Newton step in dual numbers at the converged
//! point is the implicit function theorem).
//!
//! # Symmetry
//! A rimless wheel's post-strike states repeat up to the spoke that struck: the model is
//! invariant under turning its body's frame by a rotation `S` (a tenth of a turn about the
//! axle). A [`BodySymmetry`] names the body (its joint a ball or free joint) and `S`; the chart
//! relabels a state by `S^k` (the quaternion `q ⊗ s^k`, the body-axes velocities by `S^{−k}`),
//! with the `k` that brings it closest to the reference, before reading its coordinates.
//! [`BodySymmetry::new`] checks that `S` maps the body's inertia onto itself and each of its
//! collision shapes' centres onto the centre of a shape of the same kind and size.

use nalgebra::{DMatrix, DVector, Matrix3, Rotation3, UnitQuaternion, Vector3};
use num_dual::Dual64;

use super::algebra::{real, Real, Vec3};
use super::derivatives::seeded;
use super::events::EventScene;
use super::joint::Joint3;
use super::tree::SpatialTree;
use crate::hybrid::section::SectionChart;
use crate::multibody::gait::pivots;
use crate::Error;

type State = DMatrix<f64>;

/// A constraint holds at the reference when its gap (velocity) is within this of the length
/// (velocity) scale.
pub const SECTION_TOL: f64 = 1e-8;

/// `(x, y, z, w)` quaternion product `a ⊗ b`.
fn qmul<T: Real>(a: [T; 4], b: [T; 4]) -> [T; 4] {
    let ([x, y, z, w], [u, v, s, t]) = (a, b);
    [
        w * u + x * t + y * s - z * v,
        w * v - x * s + y * t + z * u,
        w * s + x * v - y * u + z * t,
        w * t - x * u - y * v - z * s,
    ]
}

/// The quaternion block of a joint: its offset in the joint's `q` and whether it is stored
/// scalar first; and the offset of the rotation in the joint's `δ`.
fn quaternion_block(j: &Joint3) -> Option<(usize, bool, usize)> {
    match j {
        Joint3::Ball => Some((0, false, 0)),
        Joint3::BallWxyz => Some((0, true, 0)),
        Joint3::Free => Some((3, false, 3)),
        _ => None,
    }
}

fn read_quat<T: Copy>(q: &[T], at: usize, wxyz: bool) -> [T; 4] {
    if wxyz {
        [q[at + 1], q[at + 2], q[at + 3], q[at]]
    } else {
        [q[at], q[at + 1], q[at + 2], q[at + 3]]
    }
}

fn write_quat<T: Copy>(q: &mut [T], at: usize, wxyz: bool, v: [T; 4]) {
    if wxyz {
        q[at] = v[3];
        q[at + 1..at + 4].copy_from_slice(&v[..3]);
    } else {
        q[at..at + 4].copy_from_slice(&v);
    }
}

/// `ρ(q*, δ)` (module docs).
pub fn retract<T: Real>(tree: &SpatialTree, q0: &[f64], d: &[T]) -> Vec<T> {
    let mut q: Vec<T> = q0.iter().map(|&x| real(x)).collect();
    for (i, b) in tree.bodies().iter().enumerate() {
        let (iq, iv) = tree.joint_start(i);
        let (qs, ds) = (&mut q[iq..iq + b.joint.nq()], &d[iv..iv + b.joint.nv()]);
        match b.joint {
            Joint3::Fixed => {}
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } | Joint3::Translation => {
                qs.iter_mut().zip(ds).for_each(|(a, &b)| *a += b);
            }
            Joint3::Planar => {
                let (s, c) = q0[iq + 2].sin_cos();
                qs[0] += ds[0] * real(c) - ds[1] * real(s);
                qs[1] += ds[0] * real(s) + ds[1] * real(c);
                qs[2] += ds[2];
            }
            Joint3::Free => {
                qs[..3].iter_mut().zip(&ds[..3]).for_each(|(a, &b)| *a += b);
            }
            _ => {}
        }
        if let Some((at, wxyz, dv)) = quaternion_block(&b.joint) {
            let half = real::<T>(0.5);
            let r = qmul(read_quat(qs, at, wxyz), [ds[dv] * half, ds[dv + 1] * half, ds[dv + 2] * half, T::one()]);
            let n = r.iter().fold(T::zero(), |a, &x| a + x * x).sqrt();
            write_quat(qs, at, wxyz, r.map(|x| x / n));
        }
    }
    q
}

/// `ρ⁻¹(q*, q)`: the tangent coordinates of `q` (module docs).
pub fn local<T: Real>(tree: &SpatialTree, q0: &[f64], q: &[T]) -> Vec<T> {
    let mut d = vec![T::zero(); tree.nv()];
    for (i, b) in tree.bodies().iter().enumerate() {
        let (iq, iv) = tree.joint_start(i);
        let (qs, ds) = (&q[iq..iq + b.joint.nq()], &mut d[iv..iv + b.joint.nv()]);
        let q0s = &q0[iq..iq + b.joint.nq()];
        match b.joint {
            Joint3::Fixed => {}
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } | Joint3::Translation => {
                ds.iter_mut().zip(qs.iter().zip(q0s)).for_each(|(a, (&x, &x0))| *a = x - real(x0));
            }
            Joint3::Planar => {
                let (s, c) = q0s[2].sin_cos();
                let (dx, dy) = (qs[0] - real(q0s[0]), qs[1] - real(q0s[1]));
                ds[0] = dx * real(c) + dy * real(s);
                ds[1] = dy * real(c) - dx * real(s);
                ds[2] = qs[2] - real(q0s[2]);
            }
            Joint3::Free => {
                for k in 0..3 {
                    ds[k] = qs[k] - real(q0s[k]);
                }
            }
            _ => {}
        }
        if let Some((at, wxyz, dv)) = quaternion_block(&b.joint) {
            let r0 = read_quat(q0s, at, wxyz);
            let inv = [real(-r0[0]), real(-r0[1]), real(-r0[2]), real(r0[3])];
            let p = qmul(inv, read_quat(qs, at, wxyz));
            let two = real::<T>(2.0);
            for k in 0..3 {
                ds[dv + k] = two * p[k] / p[3];
            }
        }
    }
    d
}

/// A body-fixed rotation `S` under which a body's inertia and collision shapes are invariant
/// (module docs).
#[derive(Debug, Clone)]
pub struct BodySymmetry {
    /// The body (its joint a ball or a free joint).
    pub body: usize,
    /// `S`, in the body's axes.
    pub rotation: Matrix3<f64>,
    /// The order `n` of `S` (`Sⁿ = I`).
    pub order: usize,
}

impl BodySymmetry {
    /// The rotation by `2π/order` about the body-fixed unit `axis` through the body's origin;
    /// an [`Error::Argument`] if the body's joint has no quaternion, or its inertia or its
    /// shapes (in `sys`) are not invariant.
    pub fn new(sys: &EventScene, body: usize, axis: Vec3, order: usize) -> Result<Self, Error> {
        let tree = &sys.scene().tree;
        let b = tree.bodies().get(body).ok_or_else(|| Error::argument("symmetry.body", "no such body"))?;
        if quaternion_block(&b.joint).is_none() {
            return Err(Error::argument("symmetry.body", format!("body '{}' has no ball or free joint", b.name)));
        }
        if order < 2 || axis.norm() == 0.0 || !axis.iter().all(|x| x.is_finite()) {
            return Err(Error::argument("symmetry", "needs a nonzero finite axis and an order >= 2"));
        }
        let s = super::algebra::axis_angle(&axis.normalize(), 2.0 * std::f64::consts::PI / order as f64);
        let i = &b.inertia;
        let scale = i.inertia.abs().max() + i.mass * i.com.norm_squared() + f64::MIN_POSITIVE;
        let shapes: Vec<_> = sys.scene().shapes.iter().filter(|c| c.body == Some(body)).collect();
        // The body's reach: its shapes' farthest centre plus the largest shape (files give
        // positions to ten digits).
        let lscale = shapes.iter().map(|c| c.pose.pos.norm()).fold(0.0, f64::max) + sys.length();
        if (s * i.inertia * s.transpose() - i.inertia).abs().max() > 1e-9 * scale
            || (s * i.com - i.com).norm() > 1e-9 * lscale
        {
            return Err(Error::argument("symmetry", format!("body '{}''s inertia is not invariant under it", b.name)));
        }
        // Each collision shape of the body, its centre turned by S, is another of the same kind.
        for c in &shapes {
            let image = s * c.pose.pos;
            if !shapes.iter().any(|o| o.shape == c.shape && (o.pose.pos - image).norm() <= 1e-9 * lscale) {
                return Err(Error::argument(
                    "symmetry",
                    format!("body '{}''s collision shapes are not invariant under it", b.name),
                ));
            }
        }
        Ok(Self { body, rotation: s, order })
    }

    /// The state `x` relabelled by `S^k` (module docs).
    fn relabel<T: Real>(&self, tree: &SpatialTree, x: &[T], k: usize) -> Vec<T> {
        let mut out = x.to_vec();
        let joint = &tree.bodies()[self.body].joint;
        let Some((at, wxyz, dv)) = quaternion_block(joint) else { return out };
        let (iq, iv) = tree.joint_start(self.body);
        let sk = self.rotation.pow(k as u32);
        // (Shepperd's method: exact for a half turn, where the iterative `from_matrix` is not.)
        let uq = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(sk));
        let s = [real::<T>(uq.i), real(uq.j), real(uq.k), real(uq.w)];
        let qn = qmul(read_quat(&x[iq..], at, wxyz), s);
        write_quat(&mut out[iq..], at, wxyz, qn);
        let nq = tree.nq();
        let st = sk.transpose().map(real::<T>);
        let turn = |o: &mut [T], from: usize| {
            let w = st * Vector3::new(x[from], x[from + 1], x[from + 2]);
            o[from..from + 3].copy_from_slice(w.as_slice());
        };
        turn(&mut out, nq + iv + dv);
        if let Joint3::Free = joint {
            // The free joint's linear velocity is in the body's axes too.
            turn(&mut out, nq + iv);
        }
        out
    }
}

/// A reflection of the scene in a plane through the world's origin that maps the mechanism
/// onto itself with pairs of bodies swapped (a biped's legs): the model is invariant under it,
/// and a walker's step from one foot is its mirror image's step from the other (module docs).
///
/// Each body `b` has a partner `c` (itself unless paired) and a reflection `S_b` of its axes:
/// the point at `r` in `b`'s axes mirrors to the point at `S_b r` in `c`'s, where
/// `S_b = R(P_c)ᵀ S_p R(P_b)` from the joints' placements `P` and the parent's `S_p` (the
/// world's `S = I − 2nnᵀ` for a root). A state maps joint by joint:
///
/// | joint | mirrored coordinates (of the partner) | velocities |
/// |---|---|---|
/// | revolute, prismatic | `±θ` (the sign by whether `a_c = ∓S_b a_b`) | `±θ̇` |
/// | translation | `S_b p` | `S_b ṗ` |
/// | ball | `R ↦ S_b R S_bᵀ`: the quaternion turned by `−S_b` (a rotation) | `ω ↦ −S_b ω` (body axes) |
/// | free | `S_b p`, the quaternion as a ball's | `v ↦ S_b v`, `ω ↦ −S_b ω` (body axes) |
///
/// [`MirrorSymmetry::new`] checks that every pair's parents are partners, its placements
/// mirror (`t_c = S_p t_b`), its axes agree, its masses, centres and inertias map by `S_b`, and
/// each collision shape's centre maps onto a shape of the same kind and size.
#[derive(Debug, Clone)]
pub struct MirrorSymmetry {
    /// The plane's unit normal (world axes).
    pub normal: Vec3,
    /// Per body: its partner.
    pub partner: Vec<usize>,
    /// Per body: `S_b`.
    frames: Vec<Matrix3<f64>>,
    /// Per body: the sign of a one-coordinate joint's mirrored coordinate.
    signs: Vec<f64>,
}

impl MirrorSymmetry {
    /// The reflection in the plane through the origin with `normal` (world axes) that swaps the
    /// bodies of each pair (by index); an [`Error::Argument`] naming what is not symmetric.
    pub fn new(sys: &EventScene, normal: Vec3, pairs: &[(usize, usize)]) -> Result<Self, Error> {
        let tree = &sys.scene().tree;
        let bodies = tree.bodies();
        let nb = bodies.len();
        let bad = |what: String| Err(Error::argument("mirror", what));
        if !(normal.iter().all(|x| x.is_finite()) && normal.norm() > 0.0) {
            return bad("needs a nonzero finite normal".into());
        }
        let n = normal.normalize();
        let mut partner: Vec<usize> = (0..nb).collect();
        for &(a, b) in pairs {
            if a >= nb || b >= nb || a == b || partner[a] != a || partner[b] != b {
                return bad("each pair names two different bodies, each in one pair".into());
            }
            partner[a] = b;
            partner[b] = a;
        }
        // A pair's parents pair too (a body with several joints is a chain of bodies).
        loop {
            let mut changed = false;
            for b in 0..nb {
                let c = partner[b];
                if let (Some(pb), Some(pc)) = (bodies[b].parent, bodies[c].parent) {
                    if pb != pc && partner[pb] == pb && partner[pc] == pc {
                        partner[pb] = pc;
                        partner[pc] = pb;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let world = Matrix3::identity() - 2.0 * n * n.transpose();
        let lscale = sys.length()
            + sys.scene().shapes.iter().map(|c| c.pose.pos.norm()).fold(0.0, f64::max)
            + bodies.iter().map(|b| b.placement.pos.norm()).fold(0.0, f64::max);
        let mut frames = vec![Matrix3::identity(); nb];
        let mut signs = vec![1.0; nb];
        for b in 0..nb {
            let c = partner[b];
            let (bb, bc) = (&bodies[b], &bodies[c]);
            let name = |k: usize| bodies[k].name.as_str();
            let sp = match (bb.parent, bc.parent) {
                (None, None) => world,
                (Some(pb), Some(pc)) if partner[pb] == pc => frames[pb],
                _ => return bad(format!("bodies '{}' and '{}' pair, but their parents do not", name(b), name(c))),
            };
            if std::mem::discriminant(&bb.joint) != std::mem::discriminant(&bc.joint) {
                return bad(format!("bodies '{}' and '{}' pair, but their joints differ", name(b), name(c)));
            }
            if (bc.placement.pos - sp * bb.placement.pos).norm() > 1e-9 * lscale {
                return bad(format!("body '{}''s joint is not placed as the mirror image of '{}''s", name(c), name(b)));
            }
            let sb = bc.placement.rot.transpose() * sp * bb.placement.rot;
            frames[b] = sb;
            match (bb.joint, bc.joint) {
                (Joint3::Revolute { axis: ab }, Joint3::Revolute { axis: ac })
                | (Joint3::Prismatic { axis: ab }, Joint3::Prismatic { axis: ac }) => {
                    let image = sb * ab;
                    let flip = if matches!(bb.joint, Joint3::Revolute { .. }) { -1.0 } else { 1.0 };
                    signs[b] = if (ac - flip * image).norm() < 1e-9 {
                        1.0
                    } else if (ac + flip * image).norm() < 1e-9 {
                        -1.0
                    } else {
                        return bad(format!("the axes of '{}' and '{}' are not mirror images", name(b), name(c)));
                    };
                }
                (Joint3::Planar, _) => {
                    return bad(format!("body '{}' has a planar joint (not supported by mirror symmetry)", name(b)))
                }
                _ => {}
            }
            let (ib, ic) = (&bb.inertia, &bc.inertia);
            let scale = ib.inertia.abs().max() + ib.mass * ib.com.norm_squared() + f64::MIN_POSITIVE;
            if (ib.mass - ic.mass).abs() > 1e-9 * (ib.mass + ic.mass)
                || (sb * ib.com - ic.com).norm() > 1e-9 * lscale
                || (sb * ib.inertia * sb.transpose() - ic.inertia).abs().max() > 1e-9 * scale
            {
                return bad(format!("the inertias of '{}' and '{}' are not mirror images", name(b), name(c)));
            }
            let shapes = |k: usize| sys.scene().shapes.iter().filter(move |s| s.body == Some(k));
            for s in shapes(b) {
                let image = sb * s.pose.pos;
                if !shapes(c).any(|o| o.shape == s.shape && (o.pose.pos - image).norm() <= 1e-9 * lscale) {
                    return bad(format!(
                        "the collision shapes of '{}' and '{}' are not mirror images",
                        name(b),
                        name(c)
                    ));
                }
            }
        }
        Ok(Self { normal: n, partner, frames, signs })
    }

    /// The mirror image of the state `x` (the table above).
    fn relabel<T: Real>(&self, tree: &SpatialTree, x: &[T]) -> Vec<T> {
        let mut out = x.to_vec();
        let nq = tree.nq();
        for (b, body) in tree.bodies().iter().enumerate() {
            let c = self.partner[b];
            let ((qb, vb), (qc, vc)) = (tree.joint_start(b), tree.joint_start(c));
            let sb = self.frames[b].map(real::<T>);
            let vec3 = |at: usize| Vector3::new(x[at], x[at + 1], x[at + 2]);
            let mut put = |at: usize, w: Vector3<T>| out[at..at + 3].copy_from_slice(w.as_slice());
            match body.joint {
                Joint3::Revolute { .. } | Joint3::Prismatic { .. } => {
                    let s = real::<T>(self.signs[b]);
                    out[qc] = x[qb] * s;
                    out[nq + vc] = x[nq + vb] * s;
                }
                Joint3::Translation => {
                    put(qc, sb * vec3(qb));
                    put(nq + vc, sb * vec3(nq + vb));
                }
                Joint3::Free => {
                    put(qc, sb * vec3(qb));
                    put(nq + vc, sb * vec3(nq + vb));
                }
                _ => {}
            }
            if let Some((at, wxyz, dv)) = quaternion_block(&body.joint) {
                // R ↦ S_b R S_bᵀ = A R Aᵀ with A = −S_b a rotation: the quaternion a ⊗ r ⊗ a*.
                let a = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(-self.frames[b]));
                let (ar, ac) = (
                    [real::<T>(a.i), real(a.j), real(a.k), real(a.w)],
                    [real::<T>(-a.i), real(-a.j), real(-a.k), real(a.w)],
                );
                let r = qmul(qmul(ar, read_quat(&x[qb..], at, wxyz)), ac);
                write_quat(&mut out[qc..], at, wxyz, r);
                let w = -(sb * vec3(nq + vb + dv));
                out[nq + vc + dv..nq + vc + dv + 3].copy_from_slice(w.as_slice());
            }
        }
        out
    }
}

/// A symmetry of a gait's model that the chart relabels states by (module docs).
#[derive(Debug, Clone)]
pub enum Symmetry {
    /// A body-fixed rotation of order `n` (a rimless wheel's spokes).
    Turn(BodySymmetry),
    /// A mirror image with bodies swapped (a biped's legs): order 2.
    Mirror(MirrorSymmetry),
}

impl From<BodySymmetry> for Symmetry {
    fn from(s: BodySymmetry) -> Self {
        Symmetry::Turn(s)
    }
}

impl From<MirrorSymmetry> for Symmetry {
    fn from(s: MirrorSymmetry) -> Self {
        Symmetry::Mirror(s)
    }
}

impl Symmetry {
    /// How many relabellings there are (`k = 0 … order − 1`).
    pub fn order(&self) -> usize {
        match self {
            Symmetry::Turn(s) => s.order,
            Symmetry::Mirror(_) => 2,
        }
    }

    /// The state relabelled `k` times.
    fn relabel<T: Real>(&self, tree: &SpatialTree, x: &[T], k: usize) -> Vec<T> {
        match self {
            Symmetry::Turn(s) => s.relabel(tree, x, k),
            Symmetry::Mirror(m) if k % 2 == 1 => m.relabel(tree, x),
            Symmetry::Mirror(_) => x.to_vec(),
        }
    }
}

/// Coordinates on the section through a reference state (module docs).
pub struct SpatialChart<'a> {
    sys: &'a EventScene<'a>,
    reference: State,
    /// Contacts whose gaps vanish on the section.
    gaps: Vec<usize>,
    /// Velocity constraints: `(contact, row)` with row 0 the normal, 1 and 2 the tangents.
    rests: Vec<(usize, usize)>,
    d_free: Vec<usize>,
    d_dep: Vec<usize>,
    v_free: Vec<usize>,
    v_dep: Vec<usize>,
    /// The tangent coordinates that are not translations of the symmetry.
    labelled: Vec<usize>,
    symmetry: Option<Symmetry>,
}

impl<'a> SpatialChart<'a> {
    /// The chart at the section state `x` (module docs): the tangent coordinates
    /// `translation` (indices into `δ`, e.g. a floating base's horizontal position) are not
    /// coordinates; `symmetry` relabels states before they are read.
    pub fn new(sys: &'a EventScene<'a>, x: &State, translation: &[usize], symmetry: Option<Symmetry>) -> Self {
        let tree = &sys.scene().tree;
        let (nq, nv) = (tree.nq(), tree.nv());
        let mut xn = x.clone();
        tree.normalize(&mut xn.as_mut_slice()[..nq]);
        let q = xn.as_slice()[..nq].to_vec();
        let v = DVector::from_column_slice(&xn.as_slice()[nq..]);
        let (ls, vs) = (sys.length(), sys.length() / sys.time());
        let mut gaps = vec![];
        let mut rests = vec![];
        for i in 0..sys.nc() {
            let Some(k) = sys.contact_rows(&q, i) else { continue };
            if k.0.abs() > SECTION_TOL * ls {
                continue;
            }
            gaps.push(i);
            let u = &k.1 * &v;
            if u[0].abs() <= SECTION_TOL * vs {
                rests.push((i, 0));
                if sys.contacts()[i].mu > 0.0 && u[1].hypot(u[2]) <= SECTION_TOL * vs {
                    rests.extend([(i, 1), (i, 2)]);
                }
            }
        }
        // ∂g/∂δ at δ = 0 (dual numbers through ρ), and the velocity rows.
        let mut gd = DMatrix::zeros(gaps.len(), nv);
        for c in 0..nv {
            let qd = retract(tree, &q, &seeded(&vec![0.0; nv], c));
            for (r, &i) in gaps.iter().enumerate() {
                gd[(r, c)] = sys.contact_rows(&qd, i).map_or(f64::NAN, |k| k.0.eps);
            }
        }
        // Columns in their own units (a translation's length, a turn's radian), so that the
        // choice of coordinates does not depend on the unit of length.
        let unit = tangent_units(sys);
        let gd = DMatrix::from_fn(gd.nrows(), nv, |r, c| gd[(r, c)] * unit[c]);
        let cand: Vec<usize> = (0..nv).filter(|k| !translation.contains(k)).collect();
        let (kept, d_dep) = pivots(&gd, &cand);
        let gaps: Vec<usize> = kept.iter().map(|&r| gaps[r]).collect();
        let rows = DMatrix::from_fn(rests.len(), nv, |r, c| {
            sys.contact_rows(&q, rests[r].0).map_or(f64::NAN, |k| k.1[(rests[r].1, c)]) * unit[c]
        });
        let all: Vec<usize> = (0..nv).collect();
        let (kept, v_dep) = pivots(&rows, &all);
        let rests: Vec<(usize, usize)> = kept.iter().map(|&r| rests[r]).collect();
        let d_free = cand.iter().copied().filter(|k| !d_dep.contains(k)).collect();
        let v_free = all.iter().copied().filter(|k| !v_dep.contains(k)).collect();
        SpatialChart { sys, reference: xn, gaps, rests, d_free, d_dep, v_free, v_dep, labelled: cand, symmetry }
    }

    /// The same chart (reference state, section constraints, coordinates) on another system
    /// of the same tree shape (a continuation's model at another parameter value), with its
    /// symmetry built there: the branch stays one curve in one chart.
    pub fn rebind<'b>(&self, sys: &'b EventScene<'b>, symmetry: Option<Symmetry>) -> SpatialChart<'b> {
        SpatialChart {
            sys,
            reference: self.reference.clone(),
            gaps: self.gaps.clone(),
            rests: self.rests.clone(),
            d_free: self.d_free.clone(),
            d_dep: self.d_dep.clone(),
            v_free: self.v_free.clone(),
            v_dep: self.v_dep.clone(),
            labelled: self.labelled.clone(),
            symmetry,
        }
    }

    /// Names of the coordinates, from the velocity names (`δ` components are named after the
    /// velocity they move along, with a `d.` prefix).
    pub fn names(&self, velocities: &[String]) -> Vec<String> {
        self.d_free
            .iter()
            .map(|&k| format!("d.{}", velocities[k]))
            .chain(self.v_free.iter().map(|&k| velocities[k].clone()))
            .collect()
    }

    /// The system the chart is on.
    pub fn system(&self) -> &EventScene<'a> {
        self.sys
    }

    /// The reference state.
    pub fn reference_state(&self) -> State {
        self.reference.clone()
    }

    fn q_ref(&self) -> &[f64] {
        &self.reference.as_slice()[..self.sys.scene().tree.nq()]
    }

    /// The gaps of the section's contacts at `ρ(q*, d)`.
    fn gaps_at<T: Real>(&self, d: &[T]) -> Option<Vec<T>> {
        let q = retract(&self.sys.scene().tree, self.q_ref(), d);
        self.gaps.iter().map(|&i| self.sys.contact_rows(&q, i).map(|r| r.0)).collect()
    }

    /// `∂g/∂δ_dep` at `d` (dual numbers).
    fn gap_jacobian(&self, d: &[f64]) -> Option<DMatrix<f64>> {
        let k = self.gaps.len();
        let mut a = DMatrix::zeros(k, k);
        for (c, &j) in self.d_dep.iter().enumerate() {
            let g = self.gaps_at(&seeded(d, j))?;
            for r in 0..k {
                a[(r, c)] = g[r].eps;
            }
        }
        Some(a)
    }

    /// The tangent coordinates of the lifted state: `y`'s free ones, the dependent ones solving
    /// the gaps (Newton, from the reference).
    fn solve_d(&self, y: &DVector<f64>) -> Option<Vec<f64>> {
        let nv = self.sys.scene().tree.nv();
        let mut d = vec![0.0; nv];
        for (j, &k) in self.d_free.iter().enumerate() {
            d[k] = y[j];
        }
        if self.gaps.is_empty() {
            return Some(d);
        }
        let ls = self.sys.length();
        for _ in 0..30 {
            let g = DVector::from_vec(self.gaps_at(&d)?);
            if g.amax() <= 1e-15 * ls {
                return Some(d);
            }
            let step = self.gap_jacobian(&d)?.lu().solve(&g)?;
            for (c, &j) in self.d_dep.iter().enumerate() {
                d[j] -= step[c];
            }
        }
        let g = DVector::from_vec(self.gaps_at(&d)?);
        (g.amax() <= 1e-12 * ls).then_some(d)
    }

    /// The state at tangent coordinates `d` with the free velocities `vf`: the dependent
    /// velocities from the velocity constraints.
    fn state_at<T: Real>(&self, d: &[T], vf: &[T]) -> Option<Vec<T>> {
        let tree = &self.sys.scene().tree;
        let nq = tree.nq();
        let q = retract(tree, self.q_ref(), d);
        let mut v: Vec<T> = self.reference.as_slice()[nq..].iter().map(|&x| real(x)).collect();
        for (j, &k) in self.v_free.iter().enumerate() {
            v[k] = vf[j];
        }
        let r = self.rests.len();
        if r > 0 {
            for &j in &self.v_dep {
                v[j] = T::zero();
            }
            let rows: Vec<DMatrix<T>> =
                self.rests.iter().map(|&(i, _)| self.sys.contact_rows(&q, i).map(|k| k.1)).collect::<Option<_>>()?;
            let a = DMatrix::from_fn(r, r, |a, c| rows[a][(self.rests[a].1, self.v_dep[c])]);
            let vv = DVector::from_column_slice(&v);
            let b = DVector::from_fn(r, |a, _| -(rows[a].row(self.rests[a].1) * &vv)[0]);
            let sol = a.lu().solve(&b)?;
            for (c, &j) in self.v_dep.iter().enumerate() {
                v[j] = sol[c];
            }
        }
        Some(q.into_iter().chain(v).collect())
    }

    /// Whether `x` can follow an impact: every contact that may strike (walking rule) and
    /// touches its plane is held at rest by the section or moves away from it. (Elsewhere the
    /// run would strike at once, and that "return" would be a spurious fixed point, a grazing
    /// strike that changes nothing: Newton's method is kept off them.)
    fn after_impact(&self, x: &[f64]) -> bool {
        let nq = self.sys.scene().tree.nq();
        let (q, v) = (&x[..nq], DVector::from_column_slice(&x[nq..]));
        let (ls, vs) = (self.sys.length(), self.sys.length() / self.sys.time());
        let gaps = self.sys.gaps(q);
        let touching = |j: usize| gaps[j].abs() <= SECTION_TOL * ls;
        let unarmed = self.sys.unarmed(q, touching);
        (0..self.sys.nc()).all(|i| {
            !touching(i)
                || unarmed[i]
                || self.rests.contains(&(i, 0))
                || self.sys.contact_rows(q, i).is_none_or(|k| (k.1.row(0) * &v)[0] > SECTION_TOL * vs)
        })
    }

    /// The `k` of the relabelling `S^k` that brings `x` closest to the reference, in its tangent
    /// coordinates (less the translations) in their own units (0 without a symmetry).
    fn label(&self, x: &[f64]) -> usize {
        let Some(s) = &self.symmetry else { return 0 };
        let tree = &self.sys.scene().tree;
        let nq = tree.nq();
        let unit = tangent_units(self.sys);
        (0..s.order())
            .map(|k| {
                let xr = s.relabel(tree, x, k);
                let d = local(tree, self.q_ref(), &xr[..nq]);
                let dist: f64 = self.labelled.iter().map(|&c| (d[c] / unit[c]).powi(2)).sum();
                (k, if dist.is_finite() { dist } else { f64::INFINITY })
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(0, |a| a.0)
    }

    /// The chart's coordinates of `x` in `T`, relabelled by `S^k`.
    fn chart_t<T: Real>(&self, x: &[T], k: usize) -> Vec<T> {
        let tree = &self.sys.scene().tree;
        let nq = tree.nq();
        let xr = match &self.symmetry {
            Some(s) => s.relabel(tree, x, k),
            None => x.to_vec(),
        };
        let d = local(tree, self.q_ref(), &xr[..nq]);
        self.d_free.iter().map(|&j| d[j]).chain(self.v_free.iter().map(|&j| xr[nq + j])).collect()
    }
}

/// The size of each tangent coordinate: the length scale for a translation, 1 (a radian) for a
/// turn.
fn tangent_units(sys: &EventScene) -> Vec<f64> {
    let tree = &sys.scene().tree;
    let mut dv = vec![1.0; tree.nv()];
    for (i, b) in tree.bodies().iter().enumerate() {
        let (_, iv) = tree.joint_start(i);
        let lin: &[usize] = match b.joint {
            Joint3::Prismatic { .. } => &[0],
            Joint3::Planar => &[0, 1],
            Joint3::Free | Joint3::Translation => &[0, 1, 2],
            _ => &[],
        };
        lin.iter().for_each(|&k| dv[iv + k] = sys.length());
    }
    dv
}

impl SectionChart<State> for SpatialChart<'_> {
    fn dim(&self) -> usize {
        self.d_free.len() + self.v_free.len()
    }

    fn lift(&self, y: &DVector<f64>) -> State {
        let n = self.reference.nrows();
        let off = self.d_free.len();
        let lifted =
            self.solve_d(y).and_then(|d| self.state_at(&d, &y.as_slice()[off..])).filter(|x| self.after_impact(x));
        match lifted {
            Some(x) => State::from_vec(n, 1, x),
            None => State::repeat(n, 1, f64::NAN),
        }
    }

    fn chart(&self, x: &State) -> DVector<f64> {
        let k = self.label(x.as_slice());
        DVector::from_vec(self.chart_t(x.as_slice(), k))
    }

    fn scale(&self) -> DVector<f64> {
        let ts = self.sys.time();
        // Lengths for translations, radians for turns (δ); their rates for velocities.
        let dv = tangent_units(self.sys);
        DVector::from_iterator(
            self.dim(),
            self.d_free.iter().map(|&k| dv[k]).chain(self.v_free.iter().map(|&k| dv[k] / ts)),
        )
    }

    /// Exact: dual numbers through the lift, the dependent coordinates by one Newton step in
    /// dual numbers at the solution (the implicit function theorem).
    fn lift_jacobian(&self, y: &DVector<f64>) -> Option<DMatrix<f64>> {
        let d = self.solve_d(y)?;
        let a = if self.gaps.is_empty() { None } else { Some(self.gap_jacobian(&d)?) };
        let (m, off) = (self.dim(), self.d_free.len());
        let n = self.reference.nrows();
        let mut out = DMatrix::zeros(n, m);
        for j in 0..m {
            let mut dd: Vec<Dual64> = d.iter().map(|&x| Dual64::from(x)).collect();
            if j < off {
                dd[self.d_free[j]].eps = 1.0;
            }
            if let Some(a) = &a {
                let g = DVector::from_vec(self.gaps_at(&dd)?);
                let step = a.map(Dual64::from).lu().solve(&g)?;
                for (c, &k) in self.d_dep.iter().enumerate() {
                    dd[k] -= step[c];
                }
            }
            let vf: Vec<Dual64> = (off..m).map(|c| Dual64::new(y[c], if c == j { 1.0 } else { 0.0 })).collect();
            let x = self.state_at(&dd, &vf)?;
            for (r, v) in x.iter().enumerate() {
                out[(r, j)] = v.eps;
            }
        }
        out.iter().all(|v| v.is_finite()).then_some(out)
    }

    fn chart_jacobian(&self, x: &State) -> Option<DMatrix<f64>> {
        let k = self.label(x.as_slice());
        let (m, n) = (self.dim(), x.nrows());
        let mut out = DMatrix::zeros(m, n);
        for c in 0..n {
            let y = self.chart_t(&seeded(x.as_slice(), c), k);
            for (r, v) in y.iter().enumerate() {
                out[(r, c)] = v.eps;
            }
        }
        out.iter().all(|v| v.is_finite()).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::SpatialModel;

    fn walker(width_right: f64) -> SpatialModel {
        let text = include_str!("../../../../examples/spatial/compass-walker.xml");
        let mut m = SpatialModel::from_mjcf("w.xml".into(), &crate::spatial::mjcf::parse("w.xml", text).unwrap());
        let mut bodies = m.tree.bodies().to_vec();
        bodies.iter_mut().filter(|b| b.name == "right_leg").for_each(|b| b.placement.pos.y = -width_right);
        m.tree = SpatialTree::new(bodies, m.tree.gravity).unwrap();
        m
    }

    #[test]
    fn a_mirror_image_swaps_the_legs_keeps_the_energy_and_undone_is_the_identity() {
        let m = walker(0.05);
        let scene = m.scene(None, 0.0);
        let q0 = m.q0.clone();
        let sys = EventScene::new(&scene, &q0).unwrap();
        let (l, r) = (m.tree.body_index("left_leg").unwrap(), m.tree.body_index("right_leg").unwrap());
        let s = MirrorSymmetry::new(&sys, Vec3::y(), &[(l, r)]).unwrap();
        // pelvis_x, y, z, roll, pitch, left, right; then their rates.
        let x: [f64; 14] = [0.1, 0.2, -0.03, 0.07, -0.2, 0.3, -0.25, 1.0, 0.3, -0.2, 0.4, -2.0, 1.5, 2.5];
        let y = s.relabel(&m.tree, &x);
        // y -> -y, roll -> -roll, the pitch kept, the hinges swapped.
        let want: [f64; 14] = [0.1, -0.2, -0.03, -0.07, -0.2, -0.25, 0.3, 1.0, -0.3, -0.2, -0.4, -2.0, 2.5, 1.5];
        assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-15), "{y:?}");
        assert_eq!(s.relabel(&m.tree, &y), x.to_vec());
        let e = |x: &[f64]| scene.energy(0.0, &x[..7], &x[7..]);
        assert!((e(&x) - e(&y)).abs() < 1e-12 * e(&x).abs(), "{} {}", e(&x), e(&y));
        // The feet's gaps swap.
        let (gx, gy) = (sys.gaps(&x[..7]), sys.gaps(&y[..7]));
        assert!((gx[0] - gy[1]).abs() < 1e-12 && (gx[1] - gy[0]).abs() < 1e-12, "{gx:?} {gy:?}");
    }

    #[test]
    fn a_free_pelvis_mirrors_its_quaternion_and_body_rates_keeping_the_energy() {
        // The walker with a free joint (MuJoCo's: world-axes translation, then a ball): the
        // mirror of a general state keeps the energy, swaps the feet's gaps, and undone is the
        // identity (quaternions up to sign).
        let text = r#"<mujoco><option gravity="0.5 0 -9.8"/><worldbody><geom type="plane" size="9 9 1"/>
          <body name="pelvis" pos="0 0 1"><freejoint name="p"/>
          <inertial pos="0 0 0.1" mass="10" diaginertia="0.3 0.1 0.2"/>
          <body name="left_leg" pos="0.02 0.1 0"><joint name="l" type="hinge" axis="0 -1 0"/>
            <inertial pos="0.05 0.01 -0.5" mass="5" fullinertia="0.05 0.05 0.01 0.001 0.002 0.003"/>
            <geom name="lf" type="sphere" size="0.01" pos="0 0 -1"/></body>
          <body name="right_leg" pos="0.02 -0.1 0"><joint name="r" type="hinge" axis="0 1 0"/>
            <inertial pos="0.05 -0.01 -0.5" mass="5" fullinertia="0.05 0.05 0.01 -0.001 0.002 -0.003"/>
            <geom name="rf" type="sphere" size="0.01" pos="0 0 -1"/></body>
          </body></worldbody></mujoco>"#;
        let m = SpatialModel::from_mjcf("f.xml".into(), &crate::spatial::mjcf::parse("f.xml", text).unwrap());
        let scene = m.scene(None, 0.0);
        let sys = EventScene::new(&scene, &m.q0).unwrap();
        let (l, r) = (m.tree.body_index("left_leg").unwrap(), m.tree.body_index("right_leg").unwrap());
        let s = MirrorSymmetry::new(&sys, Vec3::y(), &[(l, r)]).unwrap();
        let n = (0.9f64 * 0.9 + 0.1 * 0.1 + 0.2 * 0.2 + 0.3 * 0.3).sqrt();
        let mut x = vec![0.1, 0.2, 1.1, 0.9 / n, 0.1 / n, -0.2 / n, 0.3 / n, 0.3, 0.25];
        x.extend([1.0, 0.3, -0.2, 0.4, -2.0, 0.7, 1.5, -2.5]);
        let y = s.relabel(&m.tree, &x);
        let e = |x: &[f64]| scene.energy(0.0, &x[..9], &x[9..]);
        let (gx, gy) = (sys.gaps(&x[..9]), sys.gaps(&y[..9]));
        assert!((e(&x) - e(&y)).abs() < 1e-12 * e(&x).abs(), "{} {}", e(&x), e(&y));
        assert!((gx[0] - gy[1]).abs() < 1e-12 && (gx[1] - gy[0]).abs() < 1e-12, "{gx:?} {gy:?}");
        let z = s.relabel(&m.tree, &y);
        assert!(z.iter().zip(&x).all(|(a, b)| (a - b).abs() < 1e-15), "{z:?}");
        // The right hinge's axis is the left's mirror image (y -> -y): the angle changes sign.
        assert_eq!((y[7], y[8]), (-0.25, -0.3));
    }

    #[test]
    fn a_model_that_is_not_its_mirror_image_is_refused_by_name() {
        let m = walker(0.06);
        let scene = m.scene(None, 0.0);
        let sys = EventScene::new(&scene, &m.q0).unwrap();
        let (l, r) = (m.tree.body_index("left_leg").unwrap(), m.tree.body_index("right_leg").unwrap());
        let e = MirrorSymmetry::new(&sys, Vec3::y(), &[(l, r)]).unwrap_err().to_string();
        assert!(e.contains("right_leg") && e.contains("mirror image"), "{e}");
        let e = MirrorSymmetry::new(&sys, Vec3::x(), &[(l, r)]).unwrap_err().to_string();
        assert!(e.contains("mirror"), "{e}");
        let e = MirrorSymmetry::new(&sys, Vec3::y(), &[(l, l)]).unwrap_err().to_string();
        assert!(e.contains("two different bodies"), "{e}");
    }
}
