//! Spatial vectors, rigid transforms and spatial inertias (Featherstone 2008, ch. 2), in
//! Pinocchio's ordering: a motion is `(v, ω)` (the linear velocity of the frame's origin, then the
//! angular velocity), a force `(f, n)` (the force, then the moment about the frame's origin), both
//! expressed in the axes of the frame they are attached to.

use std::ops::{Add, AddAssign, Mul, Neg, Sub};

use nalgebra::{Matrix3, Matrix6, RealField, Vector3};

/// A 3-vector.
pub type Vec3 = Vector3<f64>;
/// A 3×3 matrix.
pub type Mat3 = Matrix3<f64>;

/// The scalars the spatial algorithms run in: `f64`, or a dual number of [`num_dual`] whose
/// dual parts carry exact derivatives ([`crate::spatial::derivatives`]).
pub trait Real: RealField + Copy {}
impl<T: RealField + Copy> Real for T {}

/// The constant `x` as a scalar `T`.
#[inline]
pub fn real<T: Real>(x: f64) -> T {
    nalgebra::convert(x)
}

/// A constant vector as one of scalars `T`.
#[inline]
pub fn real3<T: Real>(x: &Vec3) -> Vector3<T> {
    Vector3::new(real(x.x), real(x.y), real(x.z))
}

/// A constant matrix as one of scalars `T`.
#[inline]
pub fn real33<T: Real>(x: &Mat3) -> Matrix3<T> {
    x.map(real)
}

/// A spatial motion vector `(v, ω)` at a frame's origin, in its axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Motion<T: nalgebra::Scalar = f64> {
    /// Linear velocity (or acceleration) of the frame's origin (m/s).
    pub lin: Vector3<T>,
    /// Angular velocity (rad/s).
    pub ang: Vector3<T>,
}

/// A spatial force vector `(f, n)`: force and moment about a frame's origin, in its axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Force<T: nalgebra::Scalar = f64> {
    /// Force (N).
    pub lin: Vector3<T>,
    /// Moment about the frame's origin (N m).
    pub ang: Vector3<T>,
}

impl<T: Real> Motion<T> {
    /// `(v, ω)`.
    pub fn new(lin: Vector3<T>, ang: Vector3<T>) -> Self {
        Self { lin, ang }
    }
    /// Zero motion.
    pub fn zero() -> Self {
        Self { lin: Vector3::zeros(), ang: Vector3::zeros() }
    }
    /// The motion cross product `self × m` (`crm`): `(ω×v' + v×ω', ω×ω')`.
    pub fn cross(&self, m: &Motion<T>) -> Motion<T> {
        Motion { lin: self.ang.cross(&m.lin) + self.lin.cross(&m.ang), ang: self.ang.cross(&m.ang) }
    }
    /// The force cross product `self ×* f` (`crf`): `(ω×f, ω×n + v×f)`.
    pub fn cross_force(&self, f: &Force<T>) -> Force<T> {
        Force { lin: self.ang.cross(&f.lin), ang: self.ang.cross(&f.ang) + self.lin.cross(&f.lin) }
    }
    /// The power `m · f` of a force on a motion.
    pub fn dot(&self, f: &Force<T>) -> T {
        self.lin.dot(&f.lin) + self.ang.dot(&f.ang)
    }
}

impl Motion {
    /// The motion in scalars `T`.
    #[inline]
    pub fn cast<T: Real>(&self) -> Motion<T> {
        Motion { lin: real3(&self.lin), ang: real3(&self.ang) }
    }
}

impl<T: Real> Force<T> {
    /// `(f, n)`.
    pub fn new(lin: Vector3<T>, ang: Vector3<T>) -> Self {
        Self { lin, ang }
    }
    /// Zero force.
    pub fn zero() -> Self {
        Self { lin: Vector3::zeros(), ang: Vector3::zeros() }
    }
}

macro_rules! linear_ops {
    ($t:ident) => {
        impl<T: Real> Add for $t<T> {
            type Output = $t<T>;
            fn add(self, o: $t<T>) -> $t<T> {
                $t { lin: self.lin + o.lin, ang: self.ang + o.ang }
            }
        }
        impl<T: Real> AddAssign for $t<T> {
            fn add_assign(&mut self, o: $t<T>) {
                self.lin += o.lin;
                self.ang += o.ang;
            }
        }
        impl<T: Real> Sub for $t<T> {
            type Output = $t<T>;
            fn sub(self, o: $t<T>) -> $t<T> {
                $t { lin: self.lin - o.lin, ang: self.ang - o.ang }
            }
        }
        impl<T: Real> Neg for $t<T> {
            type Output = $t<T>;
            fn neg(self) -> $t<T> {
                $t { lin: -self.lin, ang: -self.ang }
            }
        }
        impl<T: Real> Mul<T> for $t<T> {
            type Output = $t<T>;
            fn mul(self, s: T) -> $t<T> {
                $t { lin: self.lin * s, ang: self.ang * s }
            }
        }
    };
}
linear_ops!(Motion);
linear_ops!(Force);
// (The planar vectors of `super::plane` take the same operations.)
pub(super) use linear_ops;

/// A rigid transform: the pose of a frame B in a frame A, `rot` having B's axes as columns (in
/// A's) and `pos` B's origin in A. Points map as `x_A = rot x_B + pos`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform<T: nalgebra::Scalar = f64> {
    /// Rotation from B's axes to A's.
    pub rot: Matrix3<T>,
    /// B's origin in A.
    pub pos: Vector3<T>,
}

impl<T: Real> Default for Transform<T> {
    fn default() -> Self {
        Self::identity()
    }
}

impl Transform {
    /// The transform in scalars `T`.
    #[inline]
    pub fn cast<T: Real>(&self) -> Transform<T> {
        Transform { rot: real33(&self.rot), pos: real3(&self.pos) }
    }
}

impl<T: Real> Transform<T> {
    /// The identity.
    pub fn identity() -> Self {
        Self { rot: Matrix3::identity(), pos: Vector3::zeros() }
    }
    /// A pure translation.
    pub fn translation(pos: Vector3<T>) -> Self {
        Self { rot: Matrix3::identity(), pos }
    }
    /// A pure rotation.
    pub fn rotation(rot: Matrix3<T>) -> Self {
        Self { rot, pos: Vector3::zeros() }
    }
    /// The pose of C in A from `self` (B in A) and `bc` (C in B).
    pub fn then(&self, bc: &Transform<T>) -> Transform<T> {
        Transform { rot: mm(&self.rot, &bc.rot), pos: self.pos + mv(&self.rot, &bc.pos) }
    }
    /// The pose of A in B.
    pub fn inverse(&self) -> Transform<T> {
        Transform { rot: self.rot.transpose(), pos: -mtv(&self.rot, &self.pos) }
    }
    /// A point of B in A's coordinates.
    pub fn point(&self, x: &Vector3<T>) -> Vector3<T> {
        mv(&self.rot, x) + self.pos
    }
    /// A motion at B's origin in B's axes, as the same motion at A's origin in A's axes.
    pub fn motion_to_parent(&self, m: &Motion<T>) -> Motion<T> {
        let ang = mv(&self.rot, &m.ang);
        Motion { lin: mv(&self.rot, &m.lin) + self.pos.cross(&ang), ang }
    }
    /// The inverse of [`Transform::motion_to_parent`]: from A to B.
    pub fn motion_from_parent(&self, m: &Motion<T>) -> Motion<T> {
        Motion { lin: mtv(&self.rot, &(m.lin - self.pos.cross(&m.ang))), ang: mtv(&self.rot, &m.ang) }
    }
    /// A force at B's origin in B's axes, as the same force at A's origin in A's axes.
    pub fn force_to_parent(&self, f: &Force<T>) -> Force<T> {
        let lin = mv(&self.rot, &f.lin);
        Force { lin, ang: mv(&self.rot, &f.ang) + self.pos.cross(&lin) }
    }
    /// The inverse of [`Transform::force_to_parent`]: from A to B.
    pub fn force_from_parent(&self, f: &Force<T>) -> Force<T> {
        Force { lin: mtv(&self.rot, &f.lin), ang: mtv(&self.rot, &(f.ang - self.pos.cross(&f.lin))) }
    }
}

/// The spatial inertia of a rigid body about a frame's origin, in its axes: the mass, the centre
/// of mass and the rotational inertia about the centre of mass (in the frame's axes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialInertia<T: nalgebra::Scalar = f64> {
    /// Mass (kg).
    pub mass: T,
    /// Centre of mass (m).
    pub com: Vector3<T>,
    /// Rotational inertia about the centre of mass (kg m²), symmetric.
    pub inertia: Matrix3<T>,
}

impl SpatialInertia {
    /// The inertia in scalars `T`.
    #[inline]
    pub fn cast<T: Real>(&self) -> SpatialInertia<T> {
        SpatialInertia { mass: real(self.mass), com: real3(&self.com), inertia: real33(&self.inertia) }
    }
}

impl<T: Real> SpatialInertia<T> {
    /// No mass.
    pub fn zero() -> Self {
        Self { mass: T::zero(), com: Vector3::zeros(), inertia: Matrix3::zeros() }
    }
    /// The momentum `I m` of the body moving with `m`: `(m v_c, I_c ω + c × m v_c)` with
    /// `v_c = v + ω × c` the velocity of the centre of mass.
    pub fn apply(&self, m: &Motion<T>) -> Force<T> {
        let h = (m.lin - self.com.cross(&m.ang)) * self.mass;
        Force { lin: h, ang: mv(&self.inertia, &m.ang) + self.com.cross(&h) }
    }
    /// The 6×6 matrix (Pinocchio's ordering): `[[m 1, −m [c]×], [m [c]×, I_c − m [c]×²]]`.
    pub fn matrix(&self) -> Matrix6<T> {
        let c = self.com.cross_matrix();
        let m = self.mass;
        let mut out = Matrix6::zeros();
        out.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Matrix3::identity() * m));
        out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-c * m));
        out.fixed_view_mut::<3, 3>(3, 0).copy_from(&(c * m));
        out.fixed_view_mut::<3, 3>(3, 3).copy_from(&(self.inertia - c * c * m));
        out
    }
    /// The same body's inertia in the frame A of which `x` is the pose of this frame.
    pub fn to_parent(&self, x: &Transform<T>) -> SpatialInertia<T> {
        let inertia = mm(&mm(&x.rot, &self.inertia), &x.rot.transpose());
        SpatialInertia { mass: self.mass, com: x.point(&self.com), inertia }
    }
    /// Two bodies rigidly joined (both about the same frame): masses add, centres of mass
    /// average, and the inertias about the common centre of mass add by the parallel-axis theorem.
    pub fn combined(&self, o: &SpatialInertia<T>) -> SpatialInertia<T> {
        let mass = self.mass + o.mass;
        if mass == T::zero() {
            return SpatialInertia { mass, com: Vector3::zeros(), inertia: self.inertia + o.inertia };
        }
        let com = (self.com * self.mass + o.com * o.mass) / mass;
        let shift = |m: T, d: Vector3<T>| (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * m;
        let inertia = self.inertia + shift(self.mass, self.com - com) + o.inertia + shift(o.mass, o.com - com);
        SpatialInertia { mass, com, inertia }
    }
}

/// `r v`, written out: nalgebra's products of matrices of a generic scalar (the dual numbers of
/// exact derivatives) go through its general kernels; these are what the tree's transforms
/// use, in the same order of operations.
#[inline]
pub fn mv<T: Real>(r: &Matrix3<T>, v: &Vector3<T>) -> Vector3<T> {
    Vector3::new(
        r.m11 * v.x + r.m12 * v.y + r.m13 * v.z,
        r.m21 * v.x + r.m22 * v.y + r.m23 * v.z,
        r.m31 * v.x + r.m32 * v.y + r.m33 * v.z,
    )
}

/// `rᵀ v`, written out ([`mv`]).
#[inline]
pub fn mtv<T: Real>(r: &Matrix3<T>, v: &Vector3<T>) -> Vector3<T> {
    Vector3::new(
        r.m11 * v.x + r.m21 * v.y + r.m31 * v.z,
        r.m12 * v.x + r.m22 * v.y + r.m32 * v.z,
        r.m13 * v.x + r.m23 * v.y + r.m33 * v.z,
    )
}

/// `a b`, written out ([`mv`]).
#[inline]
pub fn mm<T: Real>(a: &Matrix3<T>, b: &Matrix3<T>) -> Matrix3<T> {
    let (c0, c1, c2) = (
        mv(a, &Vector3::new(b.m11, b.m21, b.m31)),
        mv(a, &Vector3::new(b.m12, b.m22, b.m32)),
        mv(a, &Vector3::new(b.m13, b.m23, b.m33)),
    );
    Matrix3::new(c0.x, c1.x, c2.x, c0.y, c1.y, c2.y, c0.z, c1.z, c2.z)
}

/// The rotation by `angle` about the unit vector `axis` (Rodrigues).
pub fn axis_angle<T: Real>(axis: &Vec3, angle: T) -> Matrix3<T> {
    let (s, c) = angle.sin_cos();
    let k = real3::<T>(axis).cross_matrix();
    Matrix3::identity() + k * s + k * k * (T::one() - c)
}

/// The rotation of the unit quaternion `(x, y, z, w)` (normalised first).
pub fn quaternion_matrix<T: Real>(x: T, y: T, z: T, w: T) -> Matrix3<T> {
    let n = (x * x + y * y + z * z + w * w).sqrt();
    let (x, y, z, w) = (x / n, y / n, z / n, w / n);
    let (one, two) = (T::one(), real::<T>(2.0));
    Matrix3::new(
        one - two * (y * y + z * z),
        two * (x * y - z * w),
        two * (x * z + y * w),
        two * (x * y + z * w),
        one - two * (x * x + z * z),
        two * (y * z - x * w),
        two * (x * z - y * w),
        two * (y * z + x * w),
        one - two * (x * x + y * y),
    )
}

/// URDF's roll-pitch-yaw: `R = R_z(yaw) R_y(pitch) R_x(roll)`.
pub fn rpy(roll: f64, pitch: f64, yaw: f64) -> Mat3 {
    axis_angle(&Vec3::z(), yaw) * axis_angle(&Vec3::y(), pitch) * axis_angle(&Vec3::x(), roll)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &Mat3, b: &Mat3) -> bool {
        (a - b).abs().max() < 1e-12
    }

    #[test]
    fn transforms_act_on_motions_and_forces_as_their_matrices_and_keep_power() {
        let x = Transform { rot: rpy(0.3, -0.7, 1.1), pos: Vec3::new(0.2, -0.4, 0.9) };
        let m = Motion::new(Vec3::new(1.0, -2.0, 0.5), Vec3::new(0.3, 0.1, -0.8));
        let f = Force::new(Vec3::new(-0.4, 0.6, 2.0), Vec3::new(1.5, -0.2, 0.3));
        // Power is frame-independent, and each map inverts its partner.
        let (mp, fp) = (x.motion_to_parent(&m), x.force_to_parent(&f));
        assert!((mp.dot(&fp) - m.dot(&f)).abs() < 1e-12);
        assert!((x.motion_from_parent(&mp).lin - m.lin).norm() < 1e-12);
        assert!((x.force_from_parent(&fp).ang - f.ang).norm() < 1e-12);
        // Composition and inverse.
        let y = Transform { rot: rpy(-0.2, 0.4, 0.1), pos: Vec3::new(1.0, 0.0, -0.3) };
        let p = Vec3::new(0.3, 0.2, 0.1);
        assert!((x.then(&y).point(&p) - x.point(&y.point(&p))).norm() < 1e-12);
        assert!((x.inverse().point(&x.point(&p)) - p).norm() < 1e-12);
        // The inertia's momentum is its matrix times the motion, in any frame.
        let i = SpatialInertia {
            mass: 2.5,
            com: Vec3::new(0.1, -0.2, 0.3),
            inertia: Mat3::new(0.4, 0.01, 0.02, 0.01, 0.5, -0.03, 0.02, -0.03, 0.6),
        };
        let h = i.apply(&m);
        let v6 = nalgebra::Vector6::new(m.lin.x, m.lin.y, m.lin.z, m.ang.x, m.ang.y, m.ang.z);
        let h6 = i.matrix() * v6;
        assert!((h6.fixed_rows::<3>(0) - h.lin).norm() < 1e-12 && (h6.fixed_rows::<3>(3) - h.ang).norm() < 1e-12);
        let hp = i.to_parent(&x).apply(&mp);
        let hx = x.force_to_parent(&h);
        assert!((hp.lin - hx.lin).norm() < 1e-12 && (hp.ang - hx.ang).norm() < 1e-12);
    }

    #[test]
    fn rotations_from_axis_angle_quaternion_and_rpy_agree() {
        let axis = Vec3::new(1.0, 2.0, -2.0) / 3.0;
        let a: f64 = 0.7;
        let (s, c) = (a / 2.0).sin_cos();
        let q = quaternion_matrix(axis.x * s, axis.y * s, axis.z * s, c);
        assert!(close(&axis_angle(&axis, a), &q));
        let r = nalgebra::Rotation3::from_euler_angles(0.3, -0.5, 1.2);
        assert!(close(&rpy(0.3, -0.5, 1.2), r.matrix()));
    }

    #[test]
    fn combined_inertia_is_the_sum_of_the_matrices() {
        let a = SpatialInertia {
            mass: 1.5,
            com: Vec3::new(0.1, 0.0, -0.2),
            inertia: Mat3::from_diagonal(&Vec3::new(0.1, 0.2, 0.3)),
        };
        let b = SpatialInertia {
            mass: 0.5,
            com: Vec3::new(-0.3, 0.4, 0.2),
            inertia: Mat3::from_diagonal(&Vec3::new(0.05, 0.02, 0.04)),
        };
        assert!((a.combined(&b).matrix() - (a.matrix() + b.matrix())).abs().max() < 1e-12);
    }
}
