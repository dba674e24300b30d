//! Spatial vectors, rigid transforms and spatial inertias (Featherstone 2008, ch. 2), in
//! Pinocchio's ordering: a motion is `(v, ω)` (the linear velocity of the frame's origin, then the
//! angular velocity), a force `(f, n)` (the force, then the moment about the frame's origin), both
//! expressed in the axes of the frame they are attached to.

use std::ops::{Add, AddAssign, Mul, Neg, Sub};

use nalgebra::{Matrix3, Matrix6, Vector3};

/// A 3-vector.
pub type Vec3 = Vector3<f64>;
/// A 3×3 matrix.
pub type Mat3 = Matrix3<f64>;

/// A spatial motion vector `(v, ω)` at a frame's origin, in its axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Motion {
    /// Linear velocity (or acceleration) of the frame's origin (m/s).
    pub lin: Vec3,
    /// Angular velocity (rad/s).
    pub ang: Vec3,
}

/// A spatial force vector `(f, n)`: force and moment about a frame's origin, in its axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Force {
    /// Force (N).
    pub lin: Vec3,
    /// Moment about the frame's origin (N m).
    pub ang: Vec3,
}

impl Motion {
    /// `(v, ω)`.
    pub fn new(lin: Vec3, ang: Vec3) -> Self {
        Self { lin, ang }
    }
    /// Zero motion.
    pub fn zero() -> Self {
        Self::default()
    }
    /// The motion cross product `self × m` (`crm`): `(ω×v' + v×ω', ω×ω')`.
    pub fn cross(&self, m: &Motion) -> Motion {
        Motion { lin: self.ang.cross(&m.lin) + self.lin.cross(&m.ang), ang: self.ang.cross(&m.ang) }
    }
    /// The force cross product `self ×* f` (`crf`): `(ω×f, ω×n + v×f)`.
    pub fn cross_force(&self, f: &Force) -> Force {
        Force { lin: self.ang.cross(&f.lin), ang: self.ang.cross(&f.ang) + self.lin.cross(&f.lin) }
    }
    /// The power `m · f` of a force on a motion.
    pub fn dot(&self, f: &Force) -> f64 {
        self.lin.dot(&f.lin) + self.ang.dot(&f.ang)
    }
}

impl Force {
    /// `(f, n)`.
    pub fn new(lin: Vec3, ang: Vec3) -> Self {
        Self { lin, ang }
    }
    /// Zero force.
    pub fn zero() -> Self {
        Self::default()
    }
}

macro_rules! linear_ops {
    ($t:ident) => {
        impl Add for $t {
            type Output = $t;
            fn add(self, o: $t) -> $t {
                $t { lin: self.lin + o.lin, ang: self.ang + o.ang }
            }
        }
        impl AddAssign for $t {
            fn add_assign(&mut self, o: $t) {
                self.lin += o.lin;
                self.ang += o.ang;
            }
        }
        impl Sub for $t {
            type Output = $t;
            fn sub(self, o: $t) -> $t {
                $t { lin: self.lin - o.lin, ang: self.ang - o.ang }
            }
        }
        impl Neg for $t {
            type Output = $t;
            fn neg(self) -> $t {
                $t { lin: -self.lin, ang: -self.ang }
            }
        }
        impl Mul<f64> for $t {
            type Output = $t;
            fn mul(self, s: f64) -> $t {
                $t { lin: self.lin * s, ang: self.ang * s }
            }
        }
    };
}
linear_ops!(Motion);
linear_ops!(Force);

/// A rigid transform: the pose of a frame B in a frame A, `rot` having B's axes as columns (in
/// A's) and `pos` B's origin in A. Points map as `x_A = rot x_B + pos`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Rotation from B's axes to A's.
    pub rot: Mat3,
    /// B's origin in A.
    pub pos: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::identity()
    }
}

impl Transform {
    /// The identity.
    pub fn identity() -> Self {
        Self { rot: Mat3::identity(), pos: Vec3::zeros() }
    }
    /// A pure translation.
    pub fn translation(pos: Vec3) -> Self {
        Self { rot: Mat3::identity(), pos }
    }
    /// A pure rotation.
    pub fn rotation(rot: Mat3) -> Self {
        Self { rot, pos: Vec3::zeros() }
    }
    /// The pose of C in A from `self` (B in A) and `bc` (C in B).
    pub fn then(&self, bc: &Transform) -> Transform {
        Transform { rot: self.rot * bc.rot, pos: self.pos + self.rot * bc.pos }
    }
    /// The pose of A in B.
    pub fn inverse(&self) -> Transform {
        let rt = self.rot.transpose();
        Transform { rot: rt, pos: -(rt * self.pos) }
    }
    /// A point of B in A's coordinates.
    pub fn point(&self, x: &Vec3) -> Vec3 {
        self.rot * x + self.pos
    }
    /// A motion at B's origin in B's axes, as the same motion at A's origin in A's axes.
    pub fn motion_to_parent(&self, m: &Motion) -> Motion {
        let ang = self.rot * m.ang;
        Motion { lin: self.rot * m.lin + self.pos.cross(&ang), ang }
    }
    /// The inverse of [`Transform::motion_to_parent`]: from A to B.
    pub fn motion_from_parent(&self, m: &Motion) -> Motion {
        let rt = self.rot.transpose();
        Motion { lin: rt * (m.lin - self.pos.cross(&m.ang)), ang: rt * m.ang }
    }
    /// A force at B's origin in B's axes, as the same force at A's origin in A's axes.
    pub fn force_to_parent(&self, f: &Force) -> Force {
        let lin = self.rot * f.lin;
        Force { lin, ang: self.rot * f.ang + self.pos.cross(&lin) }
    }
    /// The inverse of [`Transform::force_to_parent`]: from A to B.
    pub fn force_from_parent(&self, f: &Force) -> Force {
        let rt = self.rot.transpose();
        Force { lin: rt * f.lin, ang: rt * (f.ang - self.pos.cross(&f.lin)) }
    }
}

/// The spatial inertia of a rigid body about a frame's origin, in its axes: the mass, the centre
/// of mass and the rotational inertia about the centre of mass (in the frame's axes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialInertia {
    /// Mass (kg).
    pub mass: f64,
    /// Centre of mass (m).
    pub com: Vec3,
    /// Rotational inertia about the centre of mass (kg m²), symmetric.
    pub inertia: Mat3,
}

impl SpatialInertia {
    /// No mass.
    pub fn zero() -> Self {
        Self { mass: 0.0, com: Vec3::zeros(), inertia: Mat3::zeros() }
    }
    /// The momentum `I m` of the body moving with `m`: `(m v_c, I_c ω + c × m v_c)` with
    /// `v_c = v + ω × c` the velocity of the centre of mass.
    pub fn apply(&self, m: &Motion) -> Force {
        let h = (m.lin - self.com.cross(&m.ang)) * self.mass;
        Force { lin: h, ang: self.inertia * m.ang + self.com.cross(&h) }
    }
    /// The 6×6 matrix (Pinocchio's ordering): `[[m 1, −m [c]×], [m [c]×, I_c − m [c]×²]]`.
    pub fn matrix(&self) -> Matrix6<f64> {
        let c = self.com.cross_matrix();
        let m = self.mass;
        let mut out = Matrix6::zeros();
        out.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Mat3::identity() * m));
        out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-c * m));
        out.fixed_view_mut::<3, 3>(3, 0).copy_from(&(c * m));
        out.fixed_view_mut::<3, 3>(3, 3).copy_from(&(self.inertia - c * c * m));
        out
    }
    /// The same body's inertia in the frame A of which `x` is the pose of this frame.
    pub fn to_parent(&self, x: &Transform) -> SpatialInertia {
        SpatialInertia { mass: self.mass, com: x.point(&self.com), inertia: x.rot * self.inertia * x.rot.transpose() }
    }
    /// Two bodies rigidly joined (both about the same frame): masses add, centres of mass
    /// average, and the inertias about the common centre of mass add by the parallel-axis theorem.
    pub fn combined(&self, o: &SpatialInertia) -> SpatialInertia {
        let mass = self.mass + o.mass;
        if mass == 0.0 {
            return SpatialInertia { mass, com: Vec3::zeros(), inertia: self.inertia + o.inertia };
        }
        let com = (self.com * self.mass + o.com * o.mass) / mass;
        let shift = |m: f64, d: Vec3| (Mat3::identity() * d.norm_squared() - d * d.transpose()) * m;
        let inertia = self.inertia + shift(self.mass, self.com - com) + o.inertia + shift(o.mass, o.com - com);
        SpatialInertia { mass, com, inertia }
    }
}

/// The rotation by `angle` about the unit vector `axis` (Rodrigues).
pub fn axis_angle(axis: &Vec3, angle: f64) -> Mat3 {
    let (s, c) = angle.sin_cos();
    let k = axis.cross_matrix();
    Mat3::identity() + k * s + k * k * (1.0 - c)
}

/// The rotation of the unit quaternion `(x, y, z, w)` (normalised first).
pub fn quaternion_matrix(x: f64, y: f64, z: f64, w: f64) -> Mat3 {
    let n = (x * x + y * y + z * z + w * w).sqrt();
    let (x, y, z, w) = (x / n, y / n, z / n, w / n);
    Mat3::new(
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - z * w),
        2.0 * (x * z + y * w),
        2.0 * (x * y + z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z - x * w),
        2.0 * (x * z - y * w),
        2.0 * (y * z + x * w),
        1.0 - 2.0 * (x * x + y * y),
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
