//! Rigid motions in a plane, `SE(2)` ([`Se2`]): Featherstone's planar vectors (2008, §2.16), the
//! algebra a planar mechanism's tree runs in ([`super::space`]). The plane is the `xy` plane,
//! turns are about `+z`, and every quantity is its spatial counterpart with the out-of-plane
//! components (which stay zero for bodies that move in the plane) left out:
//!
//! | planar | spatial counterpart |
//! |---|---|
//! | [`Transform2`] `(cos θ, sin θ, p)` | a turn by `θ` about `z`, a translation `(p, 0)` |
//! | [`Motion2`] `(v, ω)` | `((v, 0), (0, 0, ω))` |
//! | [`Force2`] `(f, τ)` | `((f, 0), (0, 0, τ))` |
//! | [`Inertia2`] `(m, c, I)` | a lamina: mass `m`, centre `(c, 0)`, `I` about `z` through it |
//!
//! so that a planar tree has, bit for bit in exact arithmetic, the `M`, bias and point
//! kinematics of the same tree of laminas in space (a test checks them against
//! [`super::planar`]'s spatial tree to rounding).

use std::ops::{Add, AddAssign, Mul, Neg, Sub};

use nalgebra::{Matrix2xX, Vector2};

use super::algebra::{linear_ops, real, Real};
use super::space::Space;
use crate::Error;

/// The pose of a frame B in a frame A: B turned by `θ` (`cos`, `sin`) and its origin at `pos`
/// (A's coordinates). Points map as `x_A = R(θ) x_B + pos`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform2<T: nalgebra::Scalar = f64> {
    /// `cos θ`.
    pub cos: T,
    /// `sin θ`.
    pub sin: T,
    /// B's origin in A (m).
    pub pos: Vector2<T>,
}

impl<T: Real> Transform2<T> {
    /// `R(θ) x`.
    #[inline]
    fn rot(&self, x: &Vector2<T>) -> Vector2<T> {
        Vector2::new(self.cos * x.x - self.sin * x.y, self.sin * x.x + self.cos * x.y)
    }
    /// `R(θ)ᵀ x`.
    #[inline]
    fn rot_t(&self, x: &Vector2<T>) -> Vector2<T> {
        Vector2::new(self.cos * x.x + self.sin * x.y, self.cos * x.y - self.sin * x.x)
    }
}

/// A planar motion vector: the velocity `lin` of a frame's origin (its axes) and its rate of turn
/// `ang` about `z`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Motion2<T: nalgebra::Scalar = f64> {
    /// Linear velocity (or acceleration) of the frame's origin (m/s).
    pub lin: Vector2<T>,
    /// Angular velocity about `z` (rad/s).
    pub ang: T,
}

/// A planar force vector: the force `lin` and the moment `ang` about the frame's origin (`z`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Force2<T: nalgebra::Scalar = f64> {
    /// Force (N).
    pub lin: Vector2<T>,
    /// Moment about the frame's origin (N m).
    pub ang: T,
}

linear_ops!(Motion2);
linear_ops!(Force2);

/// A lamina's inertia about a frame's origin, in its axes: the mass, the centre of mass and the
/// moment of inertia about `z` through the centre of mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inertia2<T: nalgebra::Scalar = f64> {
    /// Mass (kg).
    pub mass: T,
    /// Centre of mass (m).
    pub com: Vector2<T>,
    /// Moment of inertia about the centre of mass (kg m²).
    pub inertia: T,
}

/// A joint of a planar tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Joint2 {
    /// No motion.
    Fixed,
    /// A turn about `+z` (`sign = 1`) or `−z` (`sign = −1`) by the coordinate.
    Revolute {
        /// `±1`.
        sign: f64,
    },
    /// A slide along the unit vector `axis` (the placement frame's axes).
    Prismatic {
        /// The direction of motion.
        axis: Vector2<f64>,
    },
    /// `q = (x, y, θ)`: the body's origin at `(x, y)` turned by `θ`; its velocity `v` is the
    /// body's own (the origin's velocity in the body's axes, then `θ̇`), as the spatial planar
    /// joint's ([`super::joint::Joint3::Planar`]).
    Planar,
}

/// Rigid motions in the `xy` plane (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Se2;

/// `ω ẑ × x`.
#[inline]
fn turn<T: Real>(w: T, x: &Vector2<T>) -> Vector2<T> {
    Vector2::new(-(w * x.y), w * x.x)
}

/// `(a × b)·ẑ`.
#[inline]
fn wedge<T: Real>(a: &Vector2<T>, b: &Vector2<T>) -> T {
    a.x * b.y - a.y * b.x
}

impl Space for Se2 {
    type Vector<T: Real> = Vector2<T>;
    type Transform<T: Real> = Transform2<T>;
    type Motion<T: Real> = Motion2<T>;
    type Force<T: Real> = Force2<T>;
    type Inertia<T: Real> = Inertia2<T>;
    type Jacobian<T: Real> = Matrix2xX<T>;
    type Joint = Joint2;

    #[inline]
    fn vector_cast<T: Real>(v: &Vector2<f64>) -> Vector2<T> {
        Vector2::new(real(v.x), real(v.y))
    }
    #[inline]
    fn vector_dot<T: Real>(a: &Vector2<T>, b: &Vector2<T>) -> T {
        a.x * b.x + a.y * b.y
    }
    fn vector_finite(v: &Vector2<f64>) -> bool {
        v.iter().all(|x| x.is_finite())
    }

    #[inline]
    fn identity<T: Real>() -> Transform2<T> {
        Transform2 { cos: T::one(), sin: T::zero(), pos: Vector2::zeros() }
    }
    #[inline]
    fn transform_cast<T: Real>(x: &Transform2) -> Transform2<T> {
        Transform2 { cos: real(x.cos), sin: real(x.sin), pos: Self::vector_cast(&x.pos) }
    }
    #[inline]
    fn then<T: Real>(ab: &Transform2<T>, bc: &Transform2<T>) -> Transform2<T> {
        Transform2 {
            cos: ab.cos * bc.cos - ab.sin * bc.sin,
            sin: ab.sin * bc.cos + ab.cos * bc.sin,
            pos: ab.pos + ab.rot(&bc.pos),
        }
    }
    #[inline]
    fn inverse<T: Real>(ab: &Transform2<T>) -> Transform2<T> {
        Transform2 { cos: ab.cos, sin: -ab.sin, pos: -ab.rot_t(&ab.pos) }
    }
    #[inline]
    fn point<T: Real>(ab: &Transform2<T>, x: &Vector2<T>) -> Vector2<T> {
        ab.rot(x) + ab.pos
    }
    #[inline]
    fn rotate<T: Real>(ab: &Transform2<T>, x: &Vector2<T>) -> Vector2<T> {
        ab.rot(x)
    }
    #[inline]
    fn motion_to_parent<T: Real>(ab: &Transform2<T>, m: &Motion2<T>) -> Motion2<T> {
        // p × ω ẑ = −ω ẑ × p.
        Motion2 { lin: ab.rot(&m.lin) - turn(m.ang, &ab.pos), ang: m.ang }
    }
    #[inline]
    fn motion_from_parent<T: Real>(ab: &Transform2<T>, m: &Motion2<T>) -> Motion2<T> {
        Motion2 { lin: ab.rot_t(&(m.lin + turn(m.ang, &ab.pos))), ang: m.ang }
    }
    #[inline]
    fn force_to_parent<T: Real>(ab: &Transform2<T>, f: &Force2<T>) -> Force2<T> {
        let lin = ab.rot(&f.lin);
        Force2 { lin, ang: f.ang + wedge(&ab.pos, &lin) }
    }
    fn placement_valid(x: &Transform2) -> bool {
        [x.cos, x.sin, x.pos.x, x.pos.y].iter().all(|v| v.is_finite())
            && (x.cos * x.cos + x.sin * x.sin - 1.0).abs() < 1e-9
    }

    #[inline]
    fn motion_zero<T: Real>() -> Motion2<T> {
        Motion2 { lin: Vector2::zeros(), ang: T::zero() }
    }
    #[inline]
    fn motion_cast<T: Real>(m: &Motion2) -> Motion2<T> {
        Motion2 { lin: Self::vector_cast(&m.lin), ang: real(m.ang) }
    }
    #[inline]
    fn cross<T: Real>(a: &Motion2<T>, b: &Motion2<T>) -> Motion2<T> {
        // ω_a ẑ × v_b + v_a × ω_b ẑ; the turns about one axis commute.
        Motion2 { lin: turn(a.ang, &b.lin) - turn(b.ang, &a.lin), ang: T::zero() }
    }
    #[inline]
    fn cross_force<T: Real>(a: &Motion2<T>, f: &Force2<T>) -> Force2<T> {
        Force2 { lin: turn(a.ang, &f.lin), ang: wedge(&a.lin, &f.lin) }
    }
    #[inline]
    fn power<T: Real>(m: &Motion2<T>, f: &Force2<T>) -> T {
        m.lin.x * f.lin.x + m.lin.y * f.lin.y + m.ang * f.ang
    }
    #[inline]
    fn lift<T: Real>(g: &Vector2<f64>) -> Motion2<T> {
        Motion2 { lin: -Self::vector_cast::<T>(g), ang: T::zero() }
    }
    #[inline]
    fn point_velocity<T: Real>(m: &Motion2<T>, p: &Vector2<T>) -> Vector2<T> {
        m.lin + turn(m.ang, p)
    }
    #[inline]
    fn point_acceleration<T: Real>(a: &Motion2<T>, v: &Motion2<T>, p: &Vector2<T>) -> Vector2<T> {
        let vp = v.lin + turn(v.ang, p);
        a.lin + turn(a.ang, p) + turn(v.ang, &vp)
    }

    #[inline]
    fn inertia_cast<T: Real>(i: &Inertia2) -> Inertia2<T> {
        Inertia2 { mass: real(i.mass), com: Self::vector_cast(&i.com), inertia: real(i.inertia) }
    }
    #[inline]
    fn apply<T: Real>(i: &Inertia2<T>, m: &Motion2<T>) -> Force2<T> {
        // v_c = v + ω ẑ × c, h = m v_c, n = I ω + c × h.
        let h = (m.lin + turn(m.ang, &i.com)) * i.mass;
        Force2 { lin: h, ang: i.inertia * m.ang + wedge(&i.com, &h) }
    }
    #[inline]
    fn inertia_to_parent<T: Real>(i: &Inertia2<T>, x: &Transform2<T>) -> Inertia2<T> {
        Inertia2 { mass: i.mass, com: Self::point(x, &i.com), inertia: i.inertia }
    }
    fn combined<T: Real>(a: &Inertia2<T>, b: &Inertia2<T>) -> Inertia2<T> {
        let mass = a.mass + b.mass;
        if mass == T::zero() {
            return Inertia2 { mass, com: Vector2::zeros(), inertia: a.inertia + b.inertia };
        }
        let com = (a.com * a.mass + b.com * b.mass) / mass;
        let shift = |m: T, d: Vector2<T>| (d.x * d.x + d.y * d.y) * m;
        Inertia2 { mass, com, inertia: a.inertia + shift(a.mass, a.com - com) + b.inertia + shift(b.mass, b.com - com) }
    }
    fn mass_and_com(i: &Inertia2) -> (f64, Vector2<f64>) {
        (i.mass, i.com)
    }
    fn check_inertia(key: &str, i: &Inertia2) -> Result<(), Error> {
        if !(i.mass.is_finite() && i.mass >= 0.0) {
            return Err(Error::model(key, format!("its mass must be finite and >= 0 (got {})", i.mass)));
        }
        if !(i.com.iter().all(|x| x.is_finite()) && i.inertia.is_finite() && i.inertia >= 0.0) {
            return Err(Error::model(key, "its centre of mass must be finite and its inertia finite and >= 0"));
        }
        Ok(())
    }

    #[inline]
    fn nq(j: &Joint2) -> usize {
        match j {
            Joint2::Fixed => 0,
            Joint2::Revolute { .. } | Joint2::Prismatic { .. } => 1,
            Joint2::Planar => 3,
        }
    }
    #[inline]
    fn nv(j: &Joint2) -> usize {
        Self::nq(j)
    }
    fn check_joint(key: &str, j: &Joint2) -> Result<(), Error> {
        match j {
            Joint2::Revolute { sign } if sign.abs() != 1.0 => {
                Err(Error::model(key, format!("its revolute joint's sign must be 1 or -1 (got {sign})")))
            }
            Joint2::Prismatic { axis } if !(axis.iter().all(|x| x.is_finite()) && (axis.norm() - 1.0).abs() < 1e-9) => {
                Err(Error::model(key, "its prismatic joint's axis must be a unit vector"))
            }
            _ => Ok(()),
        }
    }
    #[inline]
    fn joint_transform<T: Real>(j: &Joint2, q: &[T]) -> Transform2<T> {
        match j {
            Joint2::Fixed => Self::identity(),
            Joint2::Revolute { sign } => {
                let (s, c) = q[0].sin_cos();
                Transform2 { cos: c, sin: s * real::<T>(*sign), pos: Vector2::zeros() }
            }
            Joint2::Prismatic { axis } => {
                Transform2 { cos: T::one(), sin: T::zero(), pos: Self::vector_cast::<T>(axis) * q[0] }
            }
            Joint2::Planar => {
                let (s, c) = q[2].sin_cos();
                Transform2 { cos: c, sin: s, pos: Vector2::new(q[0], q[1]) }
            }
        }
    }
    #[inline]
    fn column(j: &Joint2, k: usize) -> Motion2 {
        match j {
            Joint2::Fixed => Motion2::default(),
            Joint2::Revolute { sign } => Motion2 { lin: Vector2::zeros(), ang: *sign },
            Joint2::Prismatic { axis } => Motion2 { lin: *axis, ang: 0.0 },
            Joint2::Planar if k < 2 => {
                Motion2 { lin: Vector2::from_fn(|r, _| if r == k { 1.0 } else { 0.0 }), ang: 0.0 }
            }
            Joint2::Planar => Motion2 { lin: Vector2::zeros(), ang: 1.0 },
        }
    }
    #[inline]
    fn joint_motion<T: Real>(j: &Joint2, v: &[T]) -> Motion2<T> {
        match j {
            Joint2::Fixed => Self::motion_zero(),
            Joint2::Revolute { sign } => Motion2 { lin: Vector2::zeros(), ang: v[0] * real::<T>(*sign) },
            Joint2::Prismatic { axis } => Motion2 { lin: Self::vector_cast::<T>(axis) * v[0], ang: T::zero() },
            Joint2::Planar => Motion2 { lin: Vector2::new(v[0], v[1]), ang: v[2] },
        }
    }
    #[inline]
    fn project<T: Real>(j: &Joint2, f: &Force2<T>, out: &mut [T]) {
        match j {
            Joint2::Fixed => {}
            Joint2::Revolute { sign } => out[0] = f.ang * real::<T>(*sign),
            Joint2::Prismatic { axis } => out[0] = f.lin.x * real::<T>(axis.x) + f.lin.y * real::<T>(axis.y),
            Joint2::Planar => {
                out[0] = f.lin.x;
                out[1] = f.lin.y;
                out[2] = f.ang;
            }
        }
    }

    fn jacobian_zeros<T: Real>(n: usize) -> Matrix2xX<T> {
        Matrix2xX::zeros(n)
    }
    fn jacobian_clear<T: Real>(jac: &mut Matrix2xX<T>, n: usize) {
        if jac.ncols() == n {
            jac.fill(T::zero());
        } else {
            *jac = Matrix2xX::zeros(n);
        }
    }
    #[inline]
    fn set_jacobian_column<T: Real>(jac: &mut Matrix2xX<T>, c: usize, x: &Vector2<T>) {
        jac.set_column(c, x);
    }
}

#[cfg(test)]
mod tests {
    use super::super::algebra::{axis_angle, Force, Motion, SpatialInertia, Transform};
    use super::super::space::Se3;
    use super::*;
    use nalgebra::{Matrix3, Vector3};

    /// The spatial counterparts of the planar quantities (module docs).
    fn tf3(x: &Transform2) -> Transform {
        let angle = x.sin.atan2(x.cos);
        Transform { rot: axis_angle(&Vector3::z(), angle), pos: Vector3::new(x.pos.x, x.pos.y, 0.0) }
    }
    fn mo3(m: &Motion2) -> Motion {
        Motion::new(Vector3::new(m.lin.x, m.lin.y, 0.0), Vector3::new(0.0, 0.0, m.ang))
    }
    fn fo3(f: &Force2) -> Force {
        Force::new(Vector3::new(f.lin.x, f.lin.y, 0.0), Vector3::new(0.0, 0.0, f.ang))
    }
    fn mo2(m: &Motion) -> Motion2 {
        assert!(m.lin.z.abs() < 1e-12 && m.ang.x.abs() < 1e-12 && m.ang.y.abs() < 1e-12, "{m:?} leaves the plane");
        Motion2 { lin: m.lin.xy(), ang: m.ang.z }
    }
    fn fo2(f: &Force) -> Force2 {
        assert!(f.lin.z.abs() < 1e-12 && f.ang.x.abs() < 1e-12 && f.ang.y.abs() < 1e-12, "{f:?} leaves the plane");
        Force2 { lin: f.lin.xy(), ang: f.ang.z }
    }

    #[test]
    fn planar_algebra_is_the_spatial_algebra_in_the_plane() {
        let angle = |t: f64| (t.cos(), t.sin());
        let (c1, s1) = angle(0.7);
        let (c2, s2) = angle(-2.1);
        let a = Transform2 { cos: c1, sin: s1, pos: Vector2::new(0.3, -1.2) };
        let b = Transform2 { cos: c2, sin: s2, pos: Vector2::new(-0.4, 0.9) };
        let m = Motion2 { lin: Vector2::new(1.5, -0.2), ang: 0.8 };
        let n = Motion2 { lin: Vector2::new(-0.3, 0.6), ang: -1.1 };
        let f = Force2 { lin: Vector2::new(2.0, 0.5), ang: -0.7 };
        let p = Vector2::new(0.25, -0.5);
        let close = |x: f64, y: f64| assert!((x - y).abs() < 1e-14, "{x} vs {y}");
        let close2 = |x: &Vector2<f64>, y: &Vector3<f64>| {
            close(x.x, y.x);
            close(x.y, y.y);
            close(0.0, y.z);
        };
        let ab = Se2::then(&a, &b);
        let ab3 = tf3(&a).then(&tf3(&b));
        close2(&Se2::point(&ab, &p), &ab3.point(&Vector3::new(p.x, p.y, 0.0)));
        close2(&Se2::point(&Se2::inverse(&a), &p), &tf3(&a).inverse().point(&Vector3::new(p.x, p.y, 0.0)));
        let pairs = [
            (Se2::motion_to_parent(&a, &m), tf3(&a).motion_to_parent(&mo3(&m))),
            (Se2::motion_from_parent(&a, &m), tf3(&a).motion_from_parent(&mo3(&m))),
            (Se2::cross(&m, &n), mo3(&m).cross(&mo3(&n))),
        ];
        for (x, y) in pairs {
            let y = mo2(&y);
            close2(&x.lin, &Vector3::new(y.lin.x, y.lin.y, 0.0));
            close(x.ang, y.ang);
        }
        for (x, y) in [
            (Se2::force_to_parent(&a, &f), tf3(&a).force_to_parent(&fo3(&f))),
            (Se2::cross_force(&m, &f), mo3(&m).cross_force(&fo3(&f))),
        ] {
            let y = fo2(&y);
            close2(&x.lin, &Vector3::new(y.lin.x, y.lin.y, 0.0));
            close(x.ang, y.ang);
        }
        close(Se2::power(&m, &f), mo3(&m).dot(&fo3(&f)));
        let p3 = Vector3::new(p.x, p.y, 0.0);
        close2(&Se2::point_velocity(&m, &p), &Se3::point_velocity(&mo3(&m), &p3));
        close2(&Se2::point_acceleration(&n, &m, &p), &Se3::point_acceleration(&mo3(&n), &mo3(&m), &p3));
        // A lamina's momentum, moved and joined to another.
        let lamina = |i: &Inertia2| SpatialInertia {
            mass: i.mass,
            com: Vector3::new(i.com.x, i.com.y, 0.0),
            inertia: Matrix3::from_diagonal(&Vector3::new(0.5 * i.inertia, 0.5 * i.inertia, i.inertia)),
        };
        let i = Inertia2 { mass: 2.5, com: Vector2::new(0.1, -0.3), inertia: 0.04 };
        let j = Inertia2 { mass: 0.7, com: Vector2::new(-0.5, 0.2), inertia: 0.01 };
        let k = Se2::combined(&Se2::inertia_to_parent(&i, &a), &j);
        let k3 = lamina(&i).to_parent(&tf3(&a)).combined(&lamina(&j));
        let h = fo2(&k3.apply(&mo3(&m)));
        let h2 = Se2::apply(&k, &m);
        close2(&h2.lin, &Vector3::new(h.lin.x, h.lin.y, 0.0));
        close(h2.ang, h.ang);
    }

    #[test]
    fn bad_joints_and_inertias_are_refused_by_name() {
        let e = Se2::check_joint("body[leg]", &Joint2::Revolute { sign: 0.5 }).unwrap_err().to_string();
        assert!(e.contains("body[leg]") && e.contains("sign"), "{e}");
        let e = Se2::check_joint("body[leg]", &Joint2::Prismatic { axis: Vector2::new(1.0, 1.0) }).unwrap_err();
        assert!(e.to_string().contains("unit vector"), "{e}");
        let e = Se2::check_inertia("body[leg]", &Inertia2 { mass: -1.0, com: Vector2::zeros(), inertia: 0.0 });
        assert!(e.unwrap_err().to_string().contains("mass"));
        let e = Se2::check_inertia("body[leg]", &Inertia2 { mass: 1.0, com: Vector2::zeros(), inertia: f64::NAN });
        assert!(e.is_err());
    }
}
