//! The rigid motions a tree's bodies make ([`Space`]): in space, `SE(3)` ([`Se3`], six-vector
//! motions and forces, [`super::algebra`]), or in a plane, `SE(2)` ([`Se2`](super::plane::Se2), Featherstone's planar
//! vectors, three numbers each, [`super::plane`]). The tree's algorithms ([`super::tree`]: the
//! forward kinematics, the composite-rigid-body algorithm, recursive Newton–Euler, the points'
//! Jacobians) are written once over this trait: a planar mechanism runs the same algorithms as a
//! robot in 3-D, in the algebra of its plane, which does a third to a fifth of the arithmetic of
//! the same bodies as laminas in space (issue #60: one tree dynamics, as fast as the planar
//! engine it replaces).
//!
//! Each algebra keeps the conventions of [`super::algebra`]: a motion is `(linear, angular)` at a
//! frame's origin in its axes, a force `(force, moment about the origin)`, a transform the pose of
//! a frame B in a frame A (`x_A = R x_B + p`), an inertia the mass, the centre of mass and the
//! rotational inertia about it.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

use nalgebra::{Matrix3xX, Vector3};

use super::algebra::{real3, Force, Motion, Real, SpatialInertia, Transform};
use super::joint::Joint3;
use crate::Error;

/// A group of rigid motions and its algebra (module docs): the types and operations the tree's
/// algorithms use.
pub trait Space: Copy + Debug + PartialEq + Send + Sync + 'static {
    /// A point or a free vector (m).
    type Vector<T: Real>: Copy + Debug + PartialEq + Send + Sync;
    /// The pose of a frame in another.
    type Transform<T: Real>: Copy + Debug + PartialEq + Send + Sync;
    /// A motion (velocity or acceleration) vector.
    type Motion<T: Real>: Copy
        + Debug
        + PartialEq
        + Send
        + Sync
        + Add<Output = Self::Motion<T>>
        + AddAssign
        + Sub<Output = Self::Motion<T>>
        + Neg<Output = Self::Motion<T>>
        + Mul<T, Output = Self::Motion<T>>;
    /// A force vector.
    type Force<T: Real>: Copy + Debug + PartialEq + Send + Sync + Add<Output = Self::Force<T>> + AddAssign;
    /// A body's inertia.
    type Inertia<T: Real>: Copy + Debug + PartialEq + Send + Sync;
    /// A point's Jacobian: one row per component of [`Space::Vector`], one column per velocity.
    type Jacobian<T: Real>: Clone + Debug + PartialEq;
    /// A joint.
    type Joint: Copy + Debug + PartialEq + Send + Sync;

    /// The constant vector `v` in scalars `T`.
    fn vector_cast<T: Real>(v: &Self::Vector<f64>) -> Self::Vector<T>;
    /// `a · b`.
    fn vector_dot<T: Real>(a: &Self::Vector<T>, b: &Self::Vector<T>) -> T;
    /// Whether every component of `v` is finite.
    fn vector_finite(v: &Self::Vector<f64>) -> bool;

    /// The identity.
    fn identity<T: Real>() -> Self::Transform<T>;
    /// The constant transform `x` in scalars `T`.
    fn transform_cast<T: Real>(x: &Self::Transform<f64>) -> Self::Transform<T>;
    /// The pose of C in A from `ab` (B in A) and `bc` (C in B).
    fn then<T: Real>(ab: &Self::Transform<T>, bc: &Self::Transform<T>) -> Self::Transform<T>;
    /// The pose of A in B from that of B in A.
    fn inverse<T: Real>(ab: &Self::Transform<T>) -> Self::Transform<T>;
    /// A point of B in A's coordinates.
    fn point<T: Real>(ab: &Self::Transform<T>, x: &Self::Vector<T>) -> Self::Vector<T>;
    /// A free vector in B's axes in A's axes (the rotation alone).
    fn rotate<T: Real>(ab: &Self::Transform<T>, x: &Self::Vector<T>) -> Self::Vector<T>;
    /// A motion at B's origin in B's axes as the same motion at A's origin in A's axes.
    fn motion_to_parent<T: Real>(ab: &Self::Transform<T>, m: &Self::Motion<T>) -> Self::Motion<T>;
    /// The inverse of [`Space::motion_to_parent`].
    fn motion_from_parent<T: Real>(ab: &Self::Transform<T>, m: &Self::Motion<T>) -> Self::Motion<T>;
    /// A force at B's origin in B's axes as the same force at A's origin in A's axes.
    fn force_to_parent<T: Real>(ab: &Self::Transform<T>, f: &Self::Force<T>) -> Self::Force<T>;
    /// Whether a placement is finite with a proper rotation.
    fn placement_valid(x: &Self::Transform<f64>) -> bool;

    /// Zero motion.
    fn motion_zero<T: Real>() -> Self::Motion<T>;
    /// The constant motion `m` in scalars `T`.
    fn motion_cast<T: Real>(m: &Self::Motion<f64>) -> Self::Motion<T>;
    /// The motion cross product `a × b`.
    fn cross<T: Real>(a: &Self::Motion<T>, b: &Self::Motion<T>) -> Self::Motion<T>;
    /// The force cross product `a ×* f`.
    fn cross_force<T: Real>(a: &Self::Motion<T>, f: &Self::Force<T>) -> Self::Force<T>;
    /// The power `m · f`.
    fn power<T: Real>(m: &Self::Motion<T>, f: &Self::Force<T>) -> T;
    /// The motion of a frame whose origin accelerates by `-g` and does not turn: gravity as an
    /// acceleration of the world (Featherstone's trick).
    fn lift<T: Real>(g: &Self::Vector<f64>) -> Self::Motion<T>;
    /// The velocity of the point `p` of a frame moving with `m` (the frame's axes).
    fn point_velocity<T: Real>(m: &Self::Motion<T>, p: &Self::Vector<T>) -> Self::Vector<T>;
    /// The classical acceleration of the point `p` of a frame moving with `v` and accelerating
    /// with `a` (spatial acceleration; the frame's axes).
    fn point_acceleration<T: Real>(a: &Self::Motion<T>, v: &Self::Motion<T>, p: &Self::Vector<T>) -> Self::Vector<T>;

    /// The constant inertia `i` in scalars `T`.
    fn inertia_cast<T: Real>(i: &Self::Inertia<f64>) -> Self::Inertia<T>;
    /// The momentum `I m` of the body moving with `m`.
    fn apply<T: Real>(i: &Self::Inertia<T>, m: &Self::Motion<T>) -> Self::Force<T>;
    /// The same body's inertia in the frame A of which `x` is the pose of this frame.
    fn inertia_to_parent<T: Real>(i: &Self::Inertia<T>, x: &Self::Transform<T>) -> Self::Inertia<T>;
    /// Two bodies rigidly joined (both about the same frame).
    fn combined<T: Real>(a: &Self::Inertia<T>, b: &Self::Inertia<T>) -> Self::Inertia<T>;
    /// The mass (kg) and centre of mass of `i`.
    fn mass_and_com(i: &Self::Inertia<f64>) -> (f64, Self::Vector<f64>);
    /// `Ok` for a physical body's inertia; else an [`Error::Model`] on `key`.
    fn check_inertia(key: &str, i: &Self::Inertia<f64>) -> Result<(), Error>;

    /// Number of configuration coordinates of `j`.
    fn nq(j: &Self::Joint) -> usize;
    /// Number of velocity coordinates of `j`.
    fn nv(j: &Self::Joint) -> usize;
    /// `Ok` for a valid joint; else an [`Error::Model`] on `key`.
    fn check_joint(key: &str, j: &Self::Joint) -> Result<(), Error>;
    /// The body frame's pose in the joint's placement frame at `q` (`nq` numbers).
    fn joint_transform<T: Real>(j: &Self::Joint, q: &[T]) -> Self::Transform<T>;
    /// Column `k` of the motion subspace `S` (the body's axes).
    fn column(j: &Self::Joint, k: usize) -> Self::Motion<f64>;
    /// The joint's velocity `S v` (the body's axes).
    fn joint_motion<T: Real>(j: &Self::Joint, v: &[T]) -> Self::Motion<T>;
    /// `Sᵀ f` into `out` (`nv` numbers).
    fn project<T: Real>(j: &Self::Joint, f: &Self::Force<T>, out: &mut [T]);

    /// A zero Jacobian with `n` columns.
    fn jacobian_zeros<T: Real>(n: usize) -> Self::Jacobian<T>;
    /// `jac` made a zero Jacobian with `n` columns (its storage kept when it has them).
    fn jacobian_clear<T: Real>(jac: &mut Self::Jacobian<T>, n: usize);
    /// Sets column `c` of `jac` to `x`.
    fn set_jacobian_column<T: Real>(jac: &mut Self::Jacobian<T>, c: usize, x: &Self::Vector<T>);
}

/// Rigid motions in space (module docs): the six-vectors of [`super::algebra`] and the joints of
/// [`Joint3`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Se3;

impl Space for Se3 {
    type Vector<T: Real> = Vector3<T>;
    type Transform<T: Real> = Transform<T>;
    type Motion<T: Real> = Motion<T>;
    type Force<T: Real> = Force<T>;
    type Inertia<T: Real> = SpatialInertia<T>;
    type Jacobian<T: Real> = Matrix3xX<T>;
    type Joint = Joint3;

    #[inline]
    fn vector_cast<T: Real>(v: &Vector3<f64>) -> Vector3<T> {
        real3(v)
    }
    #[inline]
    fn vector_dot<T: Real>(a: &Vector3<T>, b: &Vector3<T>) -> T {
        a.dot(b)
    }
    fn vector_finite(v: &Vector3<f64>) -> bool {
        v.iter().all(|x| x.is_finite())
    }

    #[inline]
    fn identity<T: Real>() -> Transform<T> {
        Transform::identity()
    }
    #[inline]
    fn transform_cast<T: Real>(x: &Transform) -> Transform<T> {
        x.cast()
    }
    #[inline]
    fn then<T: Real>(ab: &Transform<T>, bc: &Transform<T>) -> Transform<T> {
        ab.then(bc)
    }
    #[inline]
    fn inverse<T: Real>(ab: &Transform<T>) -> Transform<T> {
        ab.inverse()
    }
    #[inline]
    fn point<T: Real>(ab: &Transform<T>, x: &Vector3<T>) -> Vector3<T> {
        ab.point(x)
    }
    #[inline]
    fn rotate<T: Real>(ab: &Transform<T>, x: &Vector3<T>) -> Vector3<T> {
        ab.rot * x
    }
    #[inline]
    fn motion_to_parent<T: Real>(ab: &Transform<T>, m: &Motion<T>) -> Motion<T> {
        ab.motion_to_parent(m)
    }
    #[inline]
    fn motion_from_parent<T: Real>(ab: &Transform<T>, m: &Motion<T>) -> Motion<T> {
        ab.motion_from_parent(m)
    }
    #[inline]
    fn force_to_parent<T: Real>(ab: &Transform<T>, f: &Force<T>) -> Force<T> {
        ab.force_to_parent(f)
    }
    fn placement_valid(t: &Transform) -> bool {
        t.rot.iter().chain(t.pos.iter()).all(|x| x.is_finite())
            && (t.rot.transpose() * t.rot - nalgebra::Matrix3::identity()).abs().max() < 1e-9
            && t.rot.determinant() > 0.0
    }

    #[inline]
    fn motion_zero<T: Real>() -> Motion<T> {
        Motion::zero()
    }
    #[inline]
    fn motion_cast<T: Real>(m: &Motion) -> Motion<T> {
        m.cast()
    }
    #[inline]
    fn cross<T: Real>(a: &Motion<T>, b: &Motion<T>) -> Motion<T> {
        a.cross(b)
    }
    #[inline]
    fn cross_force<T: Real>(a: &Motion<T>, f: &Force<T>) -> Force<T> {
        a.cross_force(f)
    }
    #[inline]
    fn power<T: Real>(m: &Motion<T>, f: &Force<T>) -> T {
        m.dot(f)
    }
    #[inline]
    fn lift<T: Real>(g: &Vector3<f64>) -> Motion<T> {
        Motion::new(-real3::<T>(g), Vector3::zeros())
    }
    #[inline]
    fn point_velocity<T: Real>(m: &Motion<T>, p: &Vector3<T>) -> Vector3<T> {
        m.lin + m.ang.cross(p)
    }
    #[inline]
    fn point_acceleration<T: Real>(a: &Motion<T>, v: &Motion<T>, p: &Vector3<T>) -> Vector3<T> {
        let vp = v.lin + v.ang.cross(p);
        a.lin + a.ang.cross(p) + v.ang.cross(&vp)
    }

    #[inline]
    fn inertia_cast<T: Real>(i: &SpatialInertia) -> SpatialInertia<T> {
        i.cast()
    }
    #[inline]
    fn apply<T: Real>(i: &SpatialInertia<T>, m: &Motion<T>) -> Force<T> {
        i.apply(m)
    }
    #[inline]
    fn inertia_to_parent<T: Real>(i: &SpatialInertia<T>, x: &Transform<T>) -> SpatialInertia<T> {
        i.to_parent(x)
    }
    #[inline]
    fn combined<T: Real>(a: &SpatialInertia<T>, b: &SpatialInertia<T>) -> SpatialInertia<T> {
        a.combined(b)
    }
    fn mass_and_com(i: &SpatialInertia) -> (f64, Vector3<f64>) {
        (i.mass, i.com)
    }
    // A non-negative finite mass, a finite centre of mass, and a symmetric positive
    // semi-definite rotational inertia whose principal moments obey the triangle inequality.
    fn check_inertia(key: &str, i: &SpatialInertia) -> Result<(), Error> {
        if !(i.mass.is_finite() && i.mass >= 0.0) {
            return Err(Error::model(key, format!("its mass must be finite and >= 0 (got {})", i.mass)));
        }
        if !(i.com.iter().chain(i.inertia.iter()).all(|x| x.is_finite())) {
            return Err(Error::model(key, "its centre of mass and inertia must be finite"));
        }
        let scale = i.inertia.abs().max();
        if (i.inertia - i.inertia.transpose()).abs().max() > 1e-9 * scale {
            return Err(Error::model(key, "its inertia must be symmetric"));
        }
        let e = i.inertia.symmetric_eigenvalues();
        let tol = 1e-9 * scale;
        if e.iter().any(|&x| x < -tol)
            || e[0] + e[1] < e[2] - tol
            || e[1] + e[2] < e[0] - tol
            || e[0] + e[2] < e[1] - tol
        {
            return Err(Error::model(
                key,
                format!("its inertia must be positive semi-definite with principal moments obeying the triangle inequality (got {e:?})"),
            ));
        }
        Ok(())
    }

    #[inline]
    fn nq(j: &Joint3) -> usize {
        j.nq()
    }
    #[inline]
    fn nv(j: &Joint3) -> usize {
        j.nv()
    }
    fn check_joint(key: &str, j: &Joint3) -> Result<(), Error> {
        if let Joint3::Revolute { axis } | Joint3::Prismatic { axis } = j {
            if !(axis.iter().all(|x| x.is_finite()) && (axis.norm() - 1.0).abs() < 1e-9) {
                return Err(Error::model(key, format!("its {} joint's axis must be a unit vector", j.kind())));
            }
        }
        Ok(())
    }
    #[inline]
    fn joint_transform<T: Real>(j: &Joint3, q: &[T]) -> Transform<T> {
        j.transform(q)
    }
    #[inline]
    fn column(j: &Joint3, k: usize) -> Motion {
        j.column(k)
    }
    #[inline]
    fn joint_motion<T: Real>(j: &Joint3, v: &[T]) -> Motion<T> {
        j.motion(v)
    }
    #[inline]
    fn project<T: Real>(j: &Joint3, f: &Force<T>, out: &mut [T]) {
        j.project(f, out)
    }

    fn jacobian_zeros<T: Real>(n: usize) -> Matrix3xX<T> {
        Matrix3xX::zeros(n)
    }
    fn jacobian_clear<T: Real>(jac: &mut Matrix3xX<T>, n: usize) {
        if jac.ncols() == n {
            jac.fill(T::zero());
        } else {
            *jac = Matrix3xX::zeros(n);
        }
    }
    #[inline]
    fn set_jacobian_column<T: Real>(jac: &mut Matrix3xX<T>, c: usize, x: &Vector3<T>) {
        jac.set_column(c, x);
    }
}
