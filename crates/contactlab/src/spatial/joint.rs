//! Joints of a spatial tree: the motion of a body's frame relative to its joint's placement in
//! the parent, with configuration `q` (`nq` numbers) and velocity `v` (`nv` numbers), in
//! Pinocchio's conventions:
//!
//! | joint | `q` | `v` |
//! |---|---|---|
//! | fixed | none | none |
//! | revolute (also URDF's continuous) about a unit axis | the angle (rad) | its rate |
//! | prismatic along a unit axis | the displacement (m) | its rate |
//! | planar (the placement's xy plane) | `x, y, θ` | `v_x, v_y, ω` in the body's axes |
//! | ball | the unit quaternion `x, y, z, w` | `ω` in the body's axes |
//! | free | `x, y, z, q_x, q_y, q_z, q_w` | `v, ω` of the body's origin in its axes |
//! | translation | `x, y, z` along the placement's axes | their rates |
//! | ball, scalar first (MuJoCo's) | the unit quaternion `w, x, y, z` | `ω` in the body's axes |
//!
//! MuJoCo's free joint (`x y z qw qx qy qz`; the linear velocity in the world's axes, the angular
//! in the body's) is a translation followed by a scalar-first ball on a massless body between
//! them ([`super::mjcf`]).
//!
//! Every joint's motion subspace `S` (`v_J = S v`, in the body's axes) is constant in the body
//! frame, so the velocity-product term `c_J = Ṡ v` of Featherstone's algorithms is zero; the
//! velocities that are not rates of `q` (planar, ball, free) map to `q̇` by [`Joint3::qdot`].

use nalgebra::Vector3;

use super::algebra::{axis_angle, quaternion_matrix, real, real3, Force, Mat3, Motion, Real, Transform, Vec3};

/// A joint (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Joint3 {
    /// No motion.
    Fixed,
    /// Rotation about a unit axis (in the placement's axes, which the rotation keeps).
    Revolute {
        /// The unit axis.
        axis: Vec3,
    },
    /// Translation along a unit axis.
    Prismatic {
        /// The unit axis.
        axis: Vec3,
    },
    /// Motion in the placement's xy plane.
    Planar,
    /// Any rotation about the placement's origin.
    Ball,
    /// Any motion (a floating base).
    Free,
    /// Translation along the placement's three axes.
    Translation,
    /// A ball joint whose quaternion is stored scalar first (`w, x, y, z`: MuJoCo's).
    BallWxyz,
}

impl Joint3 {
    /// Number of configuration coordinates.
    #[inline]
    pub fn nq(&self) -> usize {
        match self {
            Joint3::Fixed => 0,
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } => 1,
            Joint3::Planar | Joint3::Translation => 3,
            Joint3::Ball | Joint3::BallWxyz => 4,
            Joint3::Free => 7,
        }
    }

    /// Number of velocity coordinates.
    #[inline]
    pub fn nv(&self) -> usize {
        match self {
            Joint3::Fixed => 0,
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } => 1,
            Joint3::Planar | Joint3::Ball | Joint3::Translation | Joint3::BallWxyz => 3,
            Joint3::Free => 6,
        }
    }

    /// The kind's name in messages and files.
    pub fn kind(&self) -> &'static str {
        match self {
            Joint3::Fixed => "fixed",
            Joint3::Revolute { .. } => "revolute",
            Joint3::Prismatic { .. } => "prismatic",
            Joint3::Planar => "planar",
            Joint3::Ball => "ball",
            Joint3::Free => "free",
            Joint3::Translation => "translation",
            Joint3::BallWxyz => "ball (w x y z)",
        }
    }

    /// The body frame's pose in the joint's placement frame at `q` (`nq` numbers; a quaternion
    /// need not be normalised).
    pub fn transform<T: Real>(&self, q: &[T]) -> Transform<T> {
        match self {
            Joint3::Fixed => Transform::identity(),
            Joint3::Revolute { axis } => Transform::rotation(axis_angle(axis, q[0])),
            Joint3::Prismatic { axis } => Transform::translation(real3::<T>(axis) * q[0]),
            Joint3::Planar => Transform { rot: axis_angle(&Vec3::z(), q[2]), pos: Vector3::new(q[0], q[1], T::zero()) },
            Joint3::Ball => Transform::rotation(quaternion_matrix(q[0], q[1], q[2], q[3])),
            Joint3::Free => {
                Transform { rot: quaternion_matrix(q[3], q[4], q[5], q[6]), pos: Vector3::new(q[0], q[1], q[2]) }
            }
            Joint3::Translation => Transform::translation(Vector3::new(q[0], q[1], q[2])),
            Joint3::BallWxyz => Transform::rotation(quaternion_matrix(q[1], q[2], q[3], q[0])),
        }
    }

    /// Column `k` of the motion subspace `S` (in the body's axes).
    #[inline]
    pub fn column(&self, k: usize) -> Motion {
        let e = |i: usize| Vec3::from_fn(|r, _| if r == i { 1.0 } else { 0.0 });
        match self {
            Joint3::Fixed => Motion::zero(),
            Joint3::Revolute { axis } => Motion::new(Vec3::zeros(), *axis),
            Joint3::Prismatic { axis } => Motion::new(*axis, Vec3::zeros()),
            Joint3::Planar if k < 2 => Motion::new(e(k), Vec3::zeros()),
            Joint3::Planar => Motion::new(Vec3::zeros(), Vec3::z()),
            Joint3::Ball | Joint3::BallWxyz => Motion::new(Vec3::zeros(), e(k)),
            Joint3::Translation => Motion::new(e(k), Vec3::zeros()),
            Joint3::Free if k < 3 => Motion::new(e(k), Vec3::zeros()),
            Joint3::Free => Motion::new(Vec3::zeros(), e(k - 3)),
        }
    }

    /// The joint's velocity `S v` (in the body's axes).
    pub fn motion<T: Real>(&self, v: &[T]) -> Motion<T> {
        let (o, z) = (T::zero(), Vector3::zeros());
        match self {
            Joint3::Fixed => Motion::zero(),
            Joint3::Revolute { axis } => Motion::new(z, real3::<T>(axis) * v[0]),
            Joint3::Prismatic { axis } => Motion::new(real3::<T>(axis) * v[0], z),
            Joint3::Planar => Motion::new(Vector3::new(v[0], v[1], o), Vector3::new(o, o, v[2])),
            Joint3::Ball | Joint3::BallWxyz => Motion::new(z, Vector3::new(v[0], v[1], v[2])),
            Joint3::Translation => Motion::new(Vector3::new(v[0], v[1], v[2]), z),
            Joint3::Free => Motion::new(Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5])),
        }
    }

    /// `Sᵀ f` into `out` (`nv` numbers): the generalised force of a spatial force on the body.
    pub fn project<T: Real>(&self, f: &Force<T>, out: &mut [T]) {
        match self {
            Joint3::Fixed => {}
            Joint3::Revolute { axis } => out[0] = real3::<T>(axis).dot(&f.ang),
            Joint3::Prismatic { axis } => out[0] = real3::<T>(axis).dot(&f.lin),
            Joint3::Planar => {
                out[0] = f.lin.x;
                out[1] = f.lin.y;
                out[2] = f.ang.z;
            }
            Joint3::Ball | Joint3::BallWxyz => out[..3].copy_from_slice(f.ang.as_slice()),
            Joint3::Translation => out[..3].copy_from_slice(f.lin.as_slice()),
            Joint3::Free => {
                out[..3].copy_from_slice(f.lin.as_slice());
                out[3..6].copy_from_slice(f.ang.as_slice());
            }
        }
    }

    /// `q̇` (`nq` numbers) from `q` and `v`.
    pub fn qdot<T: Real>(&self, q: &[T], v: &[T], out: &mut [T]) {
        match self {
            Joint3::Fixed => {}
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } => out[0] = v[0],
            Joint3::Planar => {
                let (s, c) = q[2].sin_cos();
                out[0] = c * v[0] - s * v[1];
                out[1] = s * v[0] + c * v[1];
                out[2] = v[2];
            }
            Joint3::Ball => quaternion_rate(&q[..4], &v[..3], out),
            Joint3::Translation => out[..3].copy_from_slice(&v[..3]),
            Joint3::BallWxyz => {
                let mut r = [T::zero(); 4];
                quaternion_rate(&[q[1], q[2], q[3], q[0]], &v[..3], &mut r);
                out[0] = r[3];
                out[1..4].copy_from_slice(&r[..3]);
            }
            Joint3::Free => {
                let r = quaternion_matrix(q[3], q[4], q[5], q[6]);
                let p = r * Vector3::new(v[0], v[1], v[2]);
                out[..3].copy_from_slice(p.as_slice());
                quaternion_rate(&q[3..7], &v[3..6], &mut out[3..7]);
            }
        }
    }

    /// The neutral configuration (zero, identity rotation) into `out` (`nq` numbers).
    pub fn neutral(&self, out: &mut [f64]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        match self {
            Joint3::Ball => out[3] = 1.0,
            Joint3::BallWxyz => out[0] = 1.0,
            Joint3::Free => out[6] = 1.0,
            _ => {}
        }
    }

    /// Scales the joint's quaternion to unit length (other joints are left alone); `false` if
    /// it is zero or not finite.
    pub fn normalize<T: Real>(&self, q: &mut [T]) -> bool {
        let quat = match self {
            Joint3::Ball | Joint3::BallWxyz => &mut q[..4],
            Joint3::Free => &mut q[3..7],
            _ => return true,
        };
        let n = quat.iter().fold(T::zero(), |a, &x| a + x * x).sqrt();
        if !(n > T::zero() && n.is_finite()) {
            return false;
        }
        quat.iter_mut().for_each(|x| *x /= n);
        true
    }

    /// The names of the joint's configuration and velocity coordinates, for a joint named
    /// `name`: `name` for one number, else `name.x`, `name.qw`, `name.wz`, … .
    pub fn coordinate_names(&self, name: &str) -> (Vec<String>, Vec<String>) {
        let with = |s: &[&str]| s.iter().map(|c| format!("{name}.{c}")).collect::<Vec<_>>();
        match self {
            Joint3::Fixed => (vec![], vec![]),
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } => (vec![name.to_string()], vec![name.to_string()]),
            Joint3::Planar => (with(&["x", "y", "theta"]), with(&["vx", "vy", "wz"])),
            Joint3::Ball => (with(&["qx", "qy", "qz", "qw"]), with(&["wx", "wy", "wz"])),
            Joint3::BallWxyz => (with(&["qw", "qx", "qy", "qz"]), with(&["wx", "wy", "wz"])),
            Joint3::Translation => (with(&["x", "y", "z"]), with(&["vx", "vy", "vz"])),
            Joint3::Free => {
                (with(&["x", "y", "z", "qx", "qy", "qz", "qw"]), with(&["vx", "vy", "vz", "wx", "wy", "wz"]))
            }
        }
    }

    /// `q ⊕ v dt` into `out`: the configuration reached from `q` by moving at the constant
    /// velocity `v` for `dt` (the exponential map: a rotation `exp([ω dt]×)` about the body's
    /// axes, a free joint's screw motion `exp` on SE(3), a planar joint's on SE(2)); quaternions
    /// stay unit to round-off.
    pub fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        match self {
            Joint3::Fixed => {}
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } => out[0] = q[0] + v[0] * dt,
            Joint3::Translation => {
                for k in 0..3 {
                    out[k] = q[k] + v[k] * dt;
                }
            }
            Joint3::Planar => {
                let (th, w) = (v[2] * dt, v[2]);
                let (s, c) = th.sin_cos();
                // ∫₀^dt R(ω t) dt (v_x, v_y) in the body's axes at the start.
                let (a, b) =
                    if th.abs() < 1e-8 { (dt * (1.0 - th * th / 6.0), dt * th / 2.0) } else { (s / w, (1.0 - c) / w) };
                let (lx, ly) = (a * v[0] - b * v[1], b * v[0] + a * v[1]);
                let (s0, c0) = q[2].sin_cos();
                out[0] = q[0] + c0 * lx - s0 * ly;
                out[1] = q[1] + s0 * lx + c0 * ly;
                out[2] = q[2] + th;
            }
            Joint3::Ball => rotate_quaternion(&q[..4], &(Vec3::new(v[0], v[1], v[2]) * dt), &mut out[..4]),
            Joint3::BallWxyz => {
                let mut r = [0.0; 4];
                rotate_quaternion(&[q[1], q[2], q[3], q[0]], &(Vec3::new(v[0], v[1], v[2]) * dt), &mut r);
                out[0] = r[3];
                out[1..4].copy_from_slice(&r[..3]);
            }
            Joint3::Free => {
                let phi = Vec3::new(v[3], v[4], v[5]) * dt;
                let r0 = quaternion_matrix(q[3], q[4], q[5], q[6]);
                let p = Vec3::new(q[0], q[1], q[2]) + r0 * (left_jacobian(&phi) * Vec3::new(v[0], v[1], v[2]) * dt);
                out[..3].copy_from_slice(p.as_slice());
                rotate_quaternion(&q[3..7], &phi, &mut out[3..7]);
            }
        }
    }

    /// The inverse of [`Joint3::integrate`] with `dt = 1`: the constant velocity `v` (into
    /// `out`, `nv` numbers) that takes `q0` to `q1` in unit time (the logarithm: the rotation
    /// vector of `q0⁻¹ q1` in the body's axes, of angle at most π). Newton's corrections on a
    /// configuration manifold are made in these tangent coordinates.
    pub fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        match self {
            Joint3::Fixed => {}
            Joint3::Revolute { .. } | Joint3::Prismatic { .. } => out[0] = q1[0] - q0[0],
            Joint3::Translation => {
                for k in 0..3 {
                    out[k] = q1[k] - q0[k];
                }
            }
            Joint3::Planar => {
                let th = q1[2] - q0[2];
                let (s0, c0) = q0[2].sin_cos();
                let (dx, dy) = (q1[0] - q0[0], q1[1] - q0[1]);
                // In the body's axes at the start, then through the inverse of SE(2)'s V(θ).
                let (lx, ly) = (c0 * dx + s0 * dy, -s0 * dx + c0 * dy);
                let (s, c) = th.sin_cos();
                let (a, b) = if th.abs() < 1e-8 { (1.0 - th * th / 6.0, th / 2.0) } else { (s / th, (1.0 - c) / th) };
                let det = a * a + b * b;
                out[0] = (a * lx + b * ly) / det;
                out[1] = (-b * lx + a * ly) / det;
                out[2] = th;
            }
            Joint3::Ball => out[..3].copy_from_slice(relative_rotation(&q0[..4], &q1[..4]).as_slice()),
            Joint3::BallWxyz => {
                let phi = relative_rotation(&[q0[1], q0[2], q0[3], q0[0]], &[q1[1], q1[2], q1[3], q1[0]]);
                out[..3].copy_from_slice(phi.as_slice());
            }
            Joint3::Free => {
                let phi = relative_rotation(&q0[3..7], &q1[3..7]);
                let r0 = quaternion_matrix(q0[3], q0[4], q0[5], q0[6]);
                let d = r0.transpose() * (Vec3::new(q1[0], q1[1], q1[2]) - Vec3::new(q0[0], q0[1], q0[2]));
                let lin = left_jacobian(&phi).try_inverse().unwrap_or_else(Mat3::identity) * d;
                out[..3].copy_from_slice(lin.as_slice());
                out[3..6].copy_from_slice(phi.as_slice());
            }
        }
    }

    /// The rotation of the body's axes in the placement's at `q`.
    pub fn rotation<T: Real>(&self, q: &[T]) -> nalgebra::Matrix3<T> {
        self.transform(q).rot
    }
}

/// `q ⊗ exp(φ/2)` of a quaternion `(x, y, z, w)`: turned by the rotation vector `φ` about the
/// body's axes.
fn rotate_quaternion(q: &[f64], phi: &Vec3, out: &mut [f64]) {
    let th = phi.norm();
    let (s, c) = (0.5 * th).sin_cos();
    let k = if th < 1e-12 { 0.5 - th * th / 48.0 } else { s / th };
    let (ux, uy, uz, uw) = (phi.x * k, phi.y * k, phi.z * k, c);
    let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
    out[0] = w * ux + x * uw + y * uz - z * uy;
    out[1] = w * uy - x * uz + y * uw + z * ux;
    out[2] = w * uz + x * uy - y * ux + z * uw;
    out[3] = w * uw - x * ux - y * uy - z * uz;
}

/// The rotation vector `φ` (body axes, `|φ| ≤ π`) with `q1 = q0 ⊗ exp(φ/2)`, quaternions
/// `(x, y, z, w)`.
fn relative_rotation(q0: &[f64], q1: &[f64]) -> Vec3 {
    let n0 = q0.iter().map(|x| x * x).sum::<f64>().sqrt();
    let n1 = q1.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (x0, y0, z0, w0) = (-q0[0] / n0, -q0[1] / n0, -q0[2] / n0, q0[3] / n0); // q0⁻¹
    let (x1, y1, z1, w1) = (q1[0] / n1, q1[1] / n1, q1[2] / n1, q1[3] / n1);
    let mut d = [
        w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
        w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1,
        w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1,
        w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
    ];
    if d[3] < 0.0 {
        d.iter_mut().for_each(|x| *x = -*x); // the shorter way round
    }
    let u = Vec3::new(d[0], d[1], d[2]);
    let s = u.norm();
    if s < 1e-12 {
        return u * 2.0;
    }
    u * (2.0 * s.atan2(d[3]) / s)
}

/// SO(3)'s left Jacobian `V(φ) = I + (1 − cos θ)/θ² [φ]× + (θ − sin θ)/θ³ [φ]×²`: the
/// displacement of a screw motion is `R₀ V(ω dt) v dt`.
fn left_jacobian(phi: &Vec3) -> Mat3 {
    let th = phi.norm();
    let k = phi.cross_matrix();
    let (a, b) = if th < 1e-6 {
        (0.5 - th * th / 24.0, 1.0 / 6.0 - th * th / 120.0)
    } else {
        ((1.0 - th.cos()) / (th * th), (th - th.sin()) / (th * th * th))
    };
    Mat3::identity() + k * a + k * k * b
}

/// `q̇ = ½ q ⊗ (ω, 0)` of a unit quaternion `(x, y, z, w)` turning at `ω` in the body's axes.
fn quaternion_rate<T: Real>(q: &[T], w: &[T], out: &mut [T]) {
    let u = Vector3::new(q[0], q[1], q[2]);
    let om = Vector3::new(w[0], w[1], w[2]);
    let half = real::<T>(0.5);
    let du = (om * q[3] + u.cross(&om)) * half;
    out[..3].copy_from_slice(du.as_slice());
    out[3] = -(half * u.dot(&om));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The joint's velocity is the derivative of its transform along `q̇` (by central differences),
    /// as a motion in the body's axes: `v_lin = Rᵀ ṗ`, `[ω]× = Rᵀ Ṙ`.
    #[test]
    fn each_joint_velocity_is_the_rate_of_its_transform() {
        let joints = [
            (Joint3::Revolute { axis: Vec3::new(1.0, 2.0, 2.0) / 3.0 }, vec![0.4], vec![1.3]),
            (Joint3::Prismatic { axis: Vec3::new(0.0, 0.6, 0.8) }, vec![0.2], vec![-0.7]),
            (Joint3::Planar, vec![0.3, -0.2, 0.9], vec![0.5, -1.1, 0.8]),
            (Joint3::Ball, vec![0.1, -0.3, 0.2, 0.92], vec![0.4, -0.6, 1.1]),
            (Joint3::Free, vec![0.3, 0.1, -0.2, 0.2, 0.1, -0.4, 0.88], vec![0.7, -0.2, 0.4, -0.5, 0.9, 0.3]),
            (Joint3::Translation, vec![0.3, -0.1, 0.2], vec![0.4, 0.5, -0.6]),
            (Joint3::BallWxyz, vec![0.92, 0.1, -0.3, 0.2], vec![0.4, -0.6, 1.1]),
        ];
        for (j, mut q, v) in joints {
            assert!(j.normalize(&mut q));
            let mut qd = vec![0.0; j.nq()];
            j.qdot(&q, &v, &mut qd);
            let h = 1e-6;
            let at = |s: f64| j.transform(&q.iter().zip(&qd).map(|(a, b)| a + s * b).collect::<Vec<_>>());
            let (a, b, x) = (at(h), at(-h), j.transform(&q));
            let rdot = (a.rot - b.rot) / (2.0 * h);
            let pdot = (a.pos - b.pos) / (2.0 * h);
            let w = x.rot.transpose() * rdot;
            let m = j.motion(&v);
            assert!((x.rot.transpose() * pdot - m.lin).norm() < 1e-8, "{j:?}");
            assert!((Vec3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)]) - m.ang).norm() < 1e-8, "{j:?}");
            // Integrating at constant v: small steps of q̇ converge to the exponential map.
            let mut exact = vec![0.0; j.nq()];
            j.integrate(&q, &v, 0.5, &mut exact);
            let mut y = q.clone();
            let n = 20000;
            for _ in 0..n {
                // RK4 on q̇ = qdot(q, v).
                let rate = |y: &[f64]| {
                    let mut d = vec![0.0; j.nq()];
                    j.qdot(y, &v, &mut d);
                    d
                };
                let dt = 0.5 / n as f64;
                let k1 = rate(&y);
                let y2: Vec<f64> = y.iter().zip(&k1).map(|(a, b)| a + 0.5 * dt * b).collect();
                let k2 = rate(&y2);
                let y3: Vec<f64> = y.iter().zip(&k2).map(|(a, b)| a + 0.5 * dt * b).collect();
                let k3 = rate(&y3);
                let y4: Vec<f64> = y.iter().zip(&k3).map(|(a, b)| a + dt * b).collect();
                let k4 = rate(&y4);
                for i in 0..y.len() {
                    y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
                }
            }
            assert!(y.iter().zip(&exact).all(|(a, b)| (a - b).abs() < 1e-10), "{j:?}: {exact:?} vs {y:?}");
            // The logarithm inverts the exponential map.
            let mut back = vec![0.0; j.nv()];
            j.difference(&q, &exact, &mut back);
            assert!(back.iter().zip(&v).all(|(a, b)| (a - b * 0.5).abs() < 1e-12), "{j:?}: {back:?} vs v/2 {v:?}");
            // S v from the columns, and Sᵀ the adjoint of S.
            let sv = (0..j.nv()).fold(Motion::zero(), |acc, k| acc + j.column(k) * v[k]);
            assert!((sv.lin - m.lin).norm() < 1e-14 && (sv.ang - m.ang).norm() < 1e-14);
            let f = Force::new(Vec3::new(0.3, -0.1, 0.7), Vec3::new(-0.2, 0.5, 0.4));
            let mut p = vec![0.0; j.nv()];
            j.project(&f, &mut p);
            let power: f64 = p.iter().zip(&v).map(|(a, b)| a * b).sum();
            assert!((power - m.dot(&f)).abs() < 1e-14);
        }
    }
}
