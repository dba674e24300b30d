//! The multibody tree's dynamics in any scalar type with dual parts: exact derivatives of `M(q)`,
//! `h(q, q̇)`, contact Jacobians and `J̇q̇` by forward-mode automatic differentiation
//! ([`num_dual`]), for the variational equations of [`crate::hybrid::variational`].
//!
//! [`Multibody`] computes the same quantities in `f64` with storage reuse and sparsity (its fast
//! path, which every simulation step takes). This module is the plain recursion of its module
//! docs, written once for any `T: DualNum<Primitive = f64>`: run with `T = f64` it reproduces the fast
//! path's values to round-off (tested), and run with dual numbers seeded along coordinates it
//! gives their derivatives exactly, with no difference step.

use num_dual::DualNum;

use super::multibody::{Joint, Multibody};

/// A planar vector of scalars `T`.
#[derive(Debug, Clone, Copy)]
pub struct V2<T> {
    /// `x`.
    pub x: T,
    /// `y`.
    pub y: T,
}

impl<T: DualNum<Primitive = f64> + Copy> V2<T> {
    fn zero() -> Self {
        Self { x: T::from(0.0), y: T::from(0.0) }
    }
    fn from_f64(x: f64, y: f64) -> Self {
        Self { x: T::from(x), y: T::from(y) }
    }
    fn add(self, o: Self) -> Self {
        Self { x: self.x + o.x, y: self.y + o.y }
    }
    fn sub(self, o: Self) -> Self {
        Self { x: self.x - o.x, y: self.y - o.y }
    }
    fn scale(self, s: T) -> Self {
        Self { x: self.x * s, y: self.y * s }
    }
    /// `v^⊥ = (−v_y, v_x)`.
    fn perp(self) -> Self {
        Self { x: -self.y, y: self.x }
    }
    /// `R v` for `(sin, cos)` = `sc`.
    fn rotated(self, (s, c): (T, T)) -> Self {
        Self { x: c * self.x - s * self.y, y: s * self.x + c * self.y }
    }
    /// The dot product with a constant vector.
    pub fn dot_f64(self, o: (f64, f64)) -> T {
        self.x * o.0 + self.y * o.1
    }
}

/// One body's kinematics ([`Multibody`]'s `Frames` in `T`).
#[derive(Debug, Clone)]
pub struct BodyState<T> {
    /// Origin of the body frame.
    pub position: V2<T>,
    /// Angle.
    pub angle: T,
    /// `(sin, cos)` of the angle.
    pub sin_cos: (T, T),
    /// Rows `x`, `y` and `φ` of the Jacobian of the origin and the angle (`n` each).
    pub jac: [Vec<T>; 3],
    /// Velocity of the origin.
    pub velocity: V2<T>,
    /// Angular velocity.
    pub omega: T,
    /// Bias acceleration of the origin (`q̈ = 0`).
    pub accel_bias: V2<T>,
    /// Bias angular acceleration.
    pub alpha_bias: T,
}

/// A point fixed in a body: position, velocity, Jacobian rows and bias acceleration.
#[derive(Debug, Clone)]
pub struct DualPointKinematics<T> {
    /// Position.
    pub position: V2<T>,
    /// Jacobian rows `x`, `y` (`n` each).
    pub jac: [Vec<T>; 2],
    /// Acceleration when `q̈ = 0`.
    pub accel_bias: V2<T>,
}

/// The tree's kinematics and dynamics at `(q, q̇)` in `T`.
#[derive(Debug, Clone)]
pub struct DualEvaluation<T> {
    n: usize,
    /// Per body.
    pub bodies: Vec<BodyState<T>>,
    /// `M`, column-major `n × n`.
    pub mass: Vec<T>,
    /// `h` (gravity and velocity products).
    pub bias: Vec<T>,
}

impl<T: DualNum<Primitive = f64> + Copy> DualEvaluation<T> {
    /// `M[(r, c)]`.
    pub fn m(&self, r: usize, c: usize) -> T {
        self.mass[c * self.n + r]
    }

    /// The point `x` (body frame) of body `b`.
    pub fn point(&self, b: usize, x: (f64, f64)) -> DualPointKinematics<T> {
        let s = &self.bodies[b];
        let rho = V2::from_f64(x.0, x.1).rotated(s.sin_cos);
        let rp = rho.perp();
        let jac = [0, 1].map(|r| {
            let rp_r = if r == 0 { rp.x } else { rp.y };
            (0..self.n).map(|k| s.jac[r][k] + rp_r * s.jac[2][k]).collect()
        });
        let w2 = s.omega * s.omega;
        DualPointKinematics {
            position: s.position.add(rho),
            jac,
            accel_bias: s.accel_bias.add(rp.scale(s.alpha_bias)).sub(rho.scale(w2)),
        }
    }
}

/// `M`, `h` and every body's kinematics of `mb` at `(q, q̇)` (module docs; the equations are
/// those of [`Multibody`]).
/// `with_mass: false` skips `M` (left empty) where only `h` and the kinematics are wanted (`M`
/// does not depend on `q̇`: a pass seeded along the velocities has no use for it).
pub fn evaluate<T: DualNum<Primitive = f64> + Copy>(
    mb: &Multibody,
    q: &[T],
    v: &[T],
    with_mass: bool,
) -> DualEvaluation<T> {
    let n = mb.dof();
    let zero = T::from(0.0);
    let mut bodies: Vec<BodyState<T>> = Vec::with_capacity(mb.bodies().len());
    for (b, body) in mb.bodies().iter().enumerate() {
        let origin = V2::from_f64(body.origin.x, body.origin.y);
        let (mut p, mut phi, mut jac, mut vel, mut w, mut acc, alpha) = match body.parent {
            None => (
                origin,
                T::from(body.origin_angle),
                [vec![zero; n], vec![zero; n], vec![zero; n]],
                V2::zero(),
                zero,
                V2::zero(),
                zero,
            ),
            Some(pa) => {
                let s = &bodies[pa];
                let r = origin.rotated(s.sin_cos);
                let rp = r.perp();
                let jac = [
                    (0..n).map(|k| s.jac[0][k] + rp.x * s.jac[2][k]).collect(),
                    (0..n).map(|k| s.jac[1][k] + rp.y * s.jac[2][k]).collect(),
                    s.jac[2].clone(),
                ];
                (
                    s.position.add(r),
                    s.angle + body.origin_angle,
                    jac,
                    s.velocity.add(rp.scale(s.omega)),
                    s.omega,
                    s.accel_bias.add(rp.scale(s.alpha_bias)).sub(r.scale(s.omega * s.omega)),
                    s.alpha_bias,
                )
            }
        };
        let sc = phi.sin_cos();
        let k0 = mb.first_coordinate(b);
        // A joint's own offset r (and its rate ṙ) in the joint frame turning at ω: Jacobian
        // rows gain r^⊥ J_φ, the velocity ω r^⊥ + ṙ, the bias α r^⊥ − ω² r + 2 ω ṙ^⊥.
        let mut moved = |r: V2<T>, rdot: V2<T>, jac: &mut [Vec<T>; 3], p: &mut V2<T>| {
            let rp = r.perp();
            for k in 0..n {
                let jp = jac[2][k];
                jac[0][k] += rp.x * jp;
                jac[1][k] += rp.y * jp;
            }
            vel = vel.add(rp.scale(w)).add(rdot);
            acc = acc.add(rp.scale(alpha)).sub(r.scale(w * w)).add(rdot.perp().scale(w * 2.0));
            *p = p.add(r);
        };
        match body.joint {
            Joint::Fixed => {}
            Joint::Revolute { axis } => {
                phi += q[k0] * axis;
                jac[2][k0] += T::from(axis);
                w += v[k0] * axis;
            }
            Joint::Prismatic { axis } => {
                let u = V2::from_f64(axis.x, axis.y).rotated(sc);
                moved(u.scale(q[k0]), u.scale(v[k0]), &mut jac, &mut p);
                jac[0][k0] += u.x;
                jac[1][k0] += u.y;
            }
            Joint::Planar | Joint::PlanarAxes { .. } => {
                let (u, sign) = body.joint.planar_axes().unwrap_or((nalgebra::Vector2::x(), 1.0));
                let ex = V2::from_f64(u.x, u.y).rotated(sc);
                let ey = V2::from_f64(-u.y * sign, u.x * sign).rotated(sc);
                let r = ex.scale(q[k0]).add(ey.scale(q[k0 + 1]));
                let rdot = ex.scale(v[k0]).add(ey.scale(v[k0 + 1]));
                moved(r, rdot, &mut jac, &mut p);
                jac[0][k0] += ex.x;
                jac[1][k0] += ex.y;
                jac[0][k0 + 1] += ey.x;
                jac[1][k0 + 1] += ey.y;
                jac[2][k0 + 2] += T::from(sign);
                phi += q[k0 + 2] * sign;
                w += v[k0 + 2] * sign;
            }
        }
        bodies.push(BodyState {
            position: p,
            angle: phi,
            sin_cos: phi.sin_cos(),
            jac,
            velocity: vel,
            omega: w,
            accel_bias: acc,
            alpha_bias: alpha,
        });
    }
    let mass = if with_mass { vec![zero; n * n] } else { vec![] };
    let mut ev = DualEvaluation { n, bodies, mass, bias: vec![zero; n] };
    let g = mb.gravity_vector();
    for (b, body) in mb.bodies().iter().enumerate() {
        if body.mass == 0.0 && body.inertia == 0.0 {
            continue;
        }
        let c = ev.point(b, (body.com.x, body.com.y));
        let s = &ev.bodies[b];
        let force = V2::from_f64(g.x, g.y).sub(c.accel_bias).scale(T::from(body.mass));
        let torque = s.alpha_bias * -body.inertia;
        for i in 0..n {
            ev.bias[i] += c.jac[0][i] * force.x + c.jac[1][i] * force.y + s.jac[2][i] * torque;
            if !with_mass {
                continue;
            }
            // The upper triangle, mirrored.
            for j in i..n {
                let mij = (c.jac[0][i] * c.jac[0][j] + c.jac[1][i] * c.jac[1][j]) * body.mass
                    + s.jac[2][i] * s.jac[2][j] * body.inertia;
                ev.mass[j * n + i] += mij;
                if j != i {
                    ev.mass[i * n + j] += mij;
                }
            }
        }
    }
    ev
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::multibody::Body;
    use nalgebra::Vector2;
    use num_dual::DualSVec64;

    /// A floating base with a revolute arm and a prismatic slider on it, every joint kind.
    fn tree() -> Multibody {
        let body = |name: &str, parent, joint, origin: (f64, f64), angle, mass, inertia, com: (f64, f64)| Body {
            name: name.into(),
            parent,
            joint,
            origin: Vector2::new(origin.0, origin.1),
            origin_angle: angle,
            mass,
            inertia,
            com: Vector2::new(com.0, com.1),
        };
        Multibody::new(
            vec![
                body("base", None, Joint::Planar, (0.1, 0.2), 0.3, 2.0, 0.4, (0.05, -0.1)),
                body("arm", Some(0), Joint::Revolute { axis: -1.0 }, (0.3, 0.1), 0.2, 1.0, 0.1, (0.2, 0.05)),
                body(
                    "slider",
                    Some(1),
                    Joint::Prismatic { axis: Vector2::new(0.6, 0.8) },
                    (0.4, 0.0),
                    -0.5,
                    0.5,
                    0.02,
                    (0.0, 0.1),
                ),
                body("tip", Some(2), Joint::Fixed, (0.1, 0.1), 0.7, 0.3, 0.01, (0.05, 0.0)),
                body(
                    "wheel",
                    Some(0),
                    Joint::PlanarAxes { x_axis: Vector2::new(0.0, 1.0), sign: -1.0 },
                    (-0.2, 0.0),
                    0.0,
                    0.4,
                    0.03,
                    (0.0, 0.0),
                ),
            ],
            9.81,
            0.1,
        )
        .unwrap()
    }

    const Q: [f64; 8] = [0.3, -0.2, 0.7, -0.4, 0.15, 0.02, -0.03, 0.9];
    const V: [f64; 8] = [0.5, -0.3, 1.1, 0.8, -0.6, 0.2, 0.4, -1.3];

    #[test]
    fn in_f64_it_reproduces_the_fast_path() {
        let mb = tree();
        let ev = evaluate::<f64>(&mb, &Q, &V, true);
        let f = mb.frames(&Q, &V);
        let (m, h) = mb.mass_and_bias(&f);
        for r in 0..8 {
            assert!((ev.bias[r] - h[r]).abs() <= 1e-13 * (1.0 + h.amax()), "h[{r}]");
            for c in 0..8 {
                assert!((ev.m(r, c) - m[(r, c)]).abs() <= 1e-13 * m.amax(), "M[{r},{c}]");
            }
        }
        let x = Vector2::new(0.13, -0.07);
        let (a, b) = (ev.point(3, (x.x, x.y)), f.point(3, &x));
        assert!((a.position.x - b.position.x).abs() < 1e-14 && (a.position.y - b.position.y).abs() < 1e-14);
        assert!((a.accel_bias.x - b.accel_bias.x).abs() < 1e-13 && (a.accel_bias.y - b.accel_bias.y).abs() < 1e-13);
        for k in 0..8 {
            assert!(
                (a.jac[0][k] - b.jacobian[(0, k)]).abs() < 1e-14 && (a.jac[1][k] - b.jacobian[(1, k)]).abs() < 1e-14
            );
        }
    }

    #[test]
    fn dual_parts_are_the_derivatives_of_m_and_h() {
        // Seeded along every coordinate, the dual parts are ∂M/∂q_k and ∂h/∂q_k; against
        // central differences of the fast path (step 1e-6: agreement to ~1e-9).
        let mb = tree();
        let qd: Vec<DualSVec64<8>> = (0..8).map(|k| DualSVec64::from_re(Q[k]).derivative(k)).collect();
        let vd: Vec<DualSVec64<8>> = V.iter().map(|&x| DualSVec64::from_re(x)).collect();
        let ev = evaluate(&mb, &qd, &vd, true);
        let step = 1e-6;
        for k in 0..8 {
            let (mut qp, mut qm) = (Q, Q);
            qp[k] += step;
            qm[k] -= step;
            let (mp, hp) = mb.mass_and_bias(&mb.frames(&qp, &V));
            let (mm, hm) = mb.mass_and_bias(&mb.frames(&qm, &V));
            for r in 0..8 {
                let dh = (hp[r] - hm[r]) / (2.0 * step);
                let got = ev.bias[r].eps.unwrap_generic(nalgebra::Const::<8>, nalgebra::U1)[k];
                assert!((got - dh).abs() <= 1e-7 * (1.0 + dh.abs()), "dh[{r}]/dq[{k}]: {got} vs {dh}");
                for c in 0..8 {
                    let dm = (mp[(r, c)] - mm[(r, c)]) / (2.0 * step);
                    let got = ev.m(r, c).eps.unwrap_generic(nalgebra::Const::<8>, nalgebra::U1)[k];
                    assert!((got - dm).abs() <= 1e-7 * (1.0 + dm.abs()), "dM[{r},{c}]/dq[{k}]: {got} vs {dm}");
                }
            }
        }
    }
}
