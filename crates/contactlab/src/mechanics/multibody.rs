//! Planar multibody trees: the dynamics of any planar mechanism of rigid bodies joined by
//! revolute, prismatic, fixed and planar (floating-base) joints, computed rather than derived by
//! hand (issue #21's core).
//!
//! # Conventions
//! The world frame has `x` to the right and `y` up; angles are counter-clockwise positive
//! (radians). Body `b` has a parent (an earlier body, or the world) and a joint whose frame sits
//! at `origin` in the parent's frame, turned by `origin_angle`. The body's frame is the joint
//! frame moved by the joint:
//!
//! | joint | coordinates | body frame from the joint frame |
//! |---|---|---|
//! | revolute, axis `s = ±1` | `θ` | turned by `s θ` |
//! | prismatic, unit axis `a` (joint frame) | `d` | moved by `d a` |
//! | fixed | none | the joint frame |
//! | planar | `x, y, θ` | moved by `(x, y)` (joint frame), then turned by `θ` |
//!
//! The generalised coordinates are the joints' coordinates in body order (a body's parent comes
//! before it). Body `b` has mass `m_b`, central inertia `I_b` and its centre of mass at `c_b` in
//! its frame. Gravity of magnitude `g` acts along `g (sin α, −cos α)` for a slope angle `α` (the
//! world `x` axis down the slope when `α > 0`, as in P1 and P2).
//!
//! # Dynamics
//! One forward pass gives every body frame's pose, velocity, the Jacobians of its origin and of
//! its angle (`J_p`, `J_φ`: `ṗ = J_p q̇`, `φ̇ = J_φ q̇`) and its *bias acceleration* (the
//! acceleration when `q̈ = 0`: `p̈ = J_p q̈ + a_b`, `φ̈ = J_φ q̈ + α_b`). With the centre of mass
//! `r_b = p_b + R(φ_b) c_b`, Kane's equations (d'Alembert's principle in generalised coordinates)
//! give
//!
//! ```text
//!   M(q) = Σ_b m_b J_cᵀ J_c + I_b J_φᵀ J_φ,
//!   h(q, q̇) = Σ_b J_cᵀ m_b (g⃗ − a_c) − J_φᵀ I_b α_b,       M q̈ = h + Σ Jᵀ λ,
//! ```
//!
//! with `J_c`, `a_c` the Jacobian and bias acceleration of the centre of mass. Every term is
//! exact to round-off: no finite differences. For a point `x` fixed in body `b`, with
//! `ρ = R(φ_b) x` and `ρ^⊥ = (−ρ_y, ρ_x)`: position `p_b + ρ`, Jacobian `J_p + ρ^⊥ J_φ`, bias
//! acceleration `a_b + α_b ρ^⊥ − ω_b² ρ`.

use nalgebra::{DMatrix, DVector, Vector2};

use crate::Error;

/// The joint between a body and its parent (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Joint {
    /// One angle; the body turns by `axis · θ` (`axis` is `+1` or `−1`).
    Revolute {
        /// `+1` (counter-clockwise) or `−1`.
        axis: f64,
    },
    /// One displacement `d` along the unit vector `axis` of the joint frame.
    Prismatic {
        /// Unit axis in the joint frame.
        axis: Vector2<f64>,
    },
    /// No coordinate.
    Fixed,
    /// Three coordinates `(x, y, θ)`: a floating base in the plane.
    Planar,
    /// Three coordinates `(x, y, θ)` along other axes: the body is moved by `x u + y s u^⊥`
    /// (joint frame) and turned by `s θ`, `u` a unit vector and `s = ±1` (a planar joint whose
    /// axis points away from the viewer, as a URDF joint may; [`Joint::Planar`] is `u = (1, 0)`,
    /// `s = 1`).
    PlanarAxes {
        /// The unit direction `u` of the `x` coordinate in the joint frame.
        x_axis: Vector2<f64>,
        /// `s = ±1`.
        sign: f64,
    },
}

impl Joint {
    /// Number of coordinates.
    pub fn dof(&self) -> usize {
        match self {
            Joint::Revolute { .. } | Joint::Prismatic { .. } => 1,
            Joint::Fixed => 0,
            Joint::Planar | Joint::PlanarAxes { .. } => 3,
        }
    }

    /// `(u, s)` of a planar joint ([`Joint::PlanarAxes`]).
    pub fn planar_axes(&self) -> Option<(Vector2<f64>, f64)> {
        match *self {
            Joint::Planar => Some((Vector2::x(), 1.0)),
            Joint::PlanarAxes { x_axis, sign } => Some((x_axis, sign)),
            _ => None,
        }
    }
}

/// A rigid body of a [`Multibody`] tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Name (for errors and output).
    pub name: String,
    /// The parent body (an index below this body's), or `None` for the world.
    pub parent: Option<usize>,
    /// The joint to the parent.
    pub joint: Joint,
    /// The joint frame's origin in the parent's frame (m).
    pub origin: Vector2<f64>,
    /// The joint frame's angle in the parent's frame (rad).
    pub origin_angle: f64,
    /// Mass `m` (kg), `≥ 0` (every coordinate must move some mass or inertia).
    pub mass: f64,
    /// Central moment of inertia `I` (kg·m²), `≥ 0`.
    pub inertia: f64,
    /// Centre of mass in the body frame (m).
    pub com: Vector2<f64>,
}

/// A planar tree of rigid bodies (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Multibody {
    bodies: Vec<Body>,
    /// Gravity `g` (m/s²), `≥ 0`.
    gravity: f64,
    /// Slope angle `α` (rad).
    slope: f64,
    /// The first coordinate of each body's joint.
    first: Vec<usize>,
    dof: usize,
    /// `g (sin α, −cos α)`.
    gravity_vec: Vector2<f64>,
}

/// Working storage of [`Multibody::mass_and_bias_into`]; after [`Multibody::mass_keeping_into`]
/// it also holds every body's centre-of-mass Jacobian, which [`Multibody::bias_after_mass_into`]
/// reuses.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    jc: Vec<f64>,
    moving: Vec<usize>,
    /// `3 n` rows per body (zero for bodies without mass and inertia).
    all_jc: Vec<f64>,
    /// `R(φ_b) c_b` per body.
    all_rho: Vec<Vector2<f64>>,
    /// `0, 1, …, n − 1`.
    every: Vec<usize>,
}

/// The per-body kinematics at one state ([`Multibody::frames`]).
#[derive(Debug, Clone, Default)]
pub struct Frames {
    n: usize,
    /// Origin of each body frame (world).
    pub position: Vec<Vector2<f64>>,
    /// Angle of each body frame.
    pub angle: Vec<f64>,
    /// `(sin, cos)` of each angle.
    sin_cos: Vec<(f64, f64)>,
    /// Velocity of each body frame's origin.
    pub velocity: Vec<Vector2<f64>>,
    /// Angular velocity of each body.
    pub omega: Vec<f64>,
    /// Bias acceleration of each origin (`q̈ = 0`).
    pub accel_bias: Vec<Vector2<f64>>,
    /// Bias angular acceleration of each body.
    pub alpha_bias: Vec<f64>,
    /// Rows `x, y, φ` of each body's Jacobians, `3 n` entries per body.
    jac: Vec<f64>,
    /// `(sin, cos)` of each joint frame's angle.
    joint_sc: Vec<(f64, f64)>,
    /// Each joint's own displacement of the body's origin (`d u`, `x e_x + y e_y`; zero for
    /// revolute and fixed joints).
    joint_offset: Vec<Vector2<f64>>,
}

/// Position, velocity, Jacobian and bias acceleration of a point of a body.
#[derive(Debug, Clone)]
pub struct PointKinematics {
    /// Position (world).
    pub position: Vector2<f64>,
    /// Velocity.
    pub velocity: Vector2<f64>,
    /// `2 × n` Jacobian: velocity `= J q̇`.
    pub jacobian: DMatrix<f64>,
    /// Acceleration when `q̈ = 0`.
    pub accel_bias: Vector2<f64>,
}

/// A prismatic axis is a unit vector within `UNIT_AXIS_TOL` (dimensionless).
pub const UNIT_AXIS_TOL: f64 = 1e-9;

/// `R v` for the rotation with `(sin, cos)` = `sc`.
fn rot_sc((s, c): (f64, f64), v: Vector2<f64>) -> Vector2<f64> {
    Vector2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

fn perp(v: Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-v.y, v.x)
}

/// A joint's own offset `r` of the body's origin turns with the joint frame: adds `r^⊥ J_φ` to
/// the origin's Jacobian rows (`jac`: one body's `3 n` entries).
fn offset_turns(jac: &mut [f64], n: usize, r: Vector2<f64>) {
    let rp = perp(r);
    let (pos, phi) = jac.split_at_mut(2 * n);
    for k in 0..n {
        pos[k] += rp.x * phi[k];
        pos[n + k] += rp.y * phi[k];
    }
}

/// The velocity and bias acceleration of an origin moved by a joint's offset `r` at the rate
/// `ṙ` in a joint frame turning at `ω` with bias `α`: `ω r^⊥ + ṙ`, `α r^⊥ − ω² r + 2 ω ṙ^⊥`.
fn offset_moves(
    vel: &mut Vector2<f64>,
    acc: &mut Vector2<f64>,
    r: Vector2<f64>,
    rdot: Vector2<f64>,
    w: f64,
    alpha: f64,
) {
    *vel += perp(r) * w + rdot;
    *acc += perp(r) * alpha - r * (w * w) + perp(rdot) * (2.0 * w);
}

impl Frames {
    /// Row `r` (`0, 1`: origin `x, y`; `2`: angle) of body `b`'s Jacobian.
    pub fn jacobian_row(&self, b: usize, r: usize) -> &[f64] {
        let n = self.n;
        &self.jac[(3 * b + r) * n..(3 * b + r + 1) * n]
    }

    /// `R(φ_b) x`: the point `x` of body `b`'s frame, relative to the frame's origin, in world
    /// axes.
    pub fn offset(&self, b: usize, x: &Vector2<f64>) -> Vector2<f64> {
        rot_sc(self.sin_cos[b], *x)
    }

    /// The kinematics of the point `x` (body frame) of body `b`.
    pub fn point(&self, b: usize, x: &Vector2<f64>) -> PointKinematics {
        let n = self.n;
        let rho = rot_sc(self.sin_cos[b], *x);
        let rp = perp(rho);
        let (jx, jy, jphi) = (self.jacobian_row(b, 0), self.jacobian_row(b, 1), self.jacobian_row(b, 2));
        let jacobian =
            DMatrix::from_fn(2, n, |r, k| if r == 0 { jx[k] + rp.x * jphi[k] } else { jy[k] + rp.y * jphi[k] });
        let w = self.omega[b];
        PointKinematics {
            position: self.position[b] + rho,
            velocity: self.velocity[b] + rp * w,
            jacobian,
            accel_bias: self.accel_bias[b] + rp * self.alpha_bias[b] - rho * (w * w),
        }
    }
}

impl Multibody {
    /// A tree from its bodies (each parent listed before its children), gravity `g` and slope
    /// `α`. Errors name the body and the value: a parent that is not an earlier body, a mass
    /// or inertia that is negative or not finite, a zero mass on a body that moves, an axis
    /// that is not `±1` or not a unit vector.
    pub fn new(bodies: Vec<Body>, gravity: f64, slope: f64) -> Result<Self, Error> {
        let bad = |b: &Body, key: &str, msg: String| Error::model(format!("body '{}': {key}", b.name), msg);
        if !(gravity >= 0.0 && gravity.is_finite()) {
            return Err(Error::model("gravity", format!("must be finite and >= 0, got {gravity}")));
        }
        if !slope.is_finite() {
            return Err(Error::model("slope", format!("must be finite, got {slope}")));
        }
        let mut first = Vec::with_capacity(bodies.len());
        let mut dof = 0;
        for (i, b) in bodies.iter().enumerate() {
            if let Some(p) = b.parent {
                if p >= i {
                    return Err(bad(b, "parent", format!("must be a body listed before it (index < {i}), got {p}")));
                }
            }
            let scalars = [b.origin_angle, b.mass, b.inertia];
            if !b.origin.iter().chain(b.com.iter()).chain(scalars.iter()).all(|v| v.is_finite()) {
                return Err(bad(b, "origin, com, mass or inertia", "must be finite numbers".into()));
            }
            if b.mass < 0.0 || b.inertia < 0.0 {
                return Err(bad(b, "mass, inertia", format!("must be >= 0, got {} and {}", b.mass, b.inertia)));
            }
            match b.joint {
                Joint::Revolute { axis } if axis != 1.0 && axis != -1.0 => {
                    return Err(bad(b, "axis", format!("a revolute axis must be +1 or -1, got {axis}")));
                }
                Joint::Prismatic { axis } if axis.norm().is_nan() || (axis.norm() - 1.0).abs() > UNIT_AXIS_TOL => {
                    return Err(bad(b, "axis", format!("a prismatic axis must be a unit vector, got {axis:?}")));
                }
                Joint::PlanarAxes { x_axis, sign }
                    if x_axis.norm().is_nan()
                        || (x_axis.norm() - 1.0).abs() > UNIT_AXIS_TOL
                        || (sign != 1.0 && sign != -1.0) =>
                {
                    return Err(bad(
                        b,
                        "axis",
                        format!("a planar joint needs a unit x axis and a sign of +1 or -1, got {x_axis:?}, {sign}"),
                    ));
                }
                _ => {}
            }
            first.push(dof);
            dof += b.joint.dof();
        }
        let gravity_vec = Vector2::new(slope.sin(), -slope.cos()) * gravity;
        let mb = Multibody { bodies, gravity, slope, first, dof, gravity_vec };
        mb.check_mass()?;
        Ok(mb)
    }

    /// The same tree with its coordinates in another order: `first[b]` is the first
    /// coordinate of body `b`'s joint (a joint's coordinates stay together and in their order).
    /// A URDF's coordinates follow its joints' order in the file, which need not be the order
    /// of the tree.
    pub fn with_coordinates(mut self, first: Vec<usize>) -> Result<Self, Error> {
        if first.len() != self.bodies.len() {
            return Err(Error::model(
                "coordinates",
                format!("{} first coordinates for {} bodies", first.len(), self.bodies.len()),
            ));
        }
        let mut owner = vec![None; self.dof];
        for (b, body) in self.bodies.iter().enumerate() {
            for k in first[b]..first[b] + body.joint.dof() {
                match owner.get_mut(k) {
                    Some(slot @ None) => *slot = Some(b),
                    _ => {
                        return Err(Error::model(
                            "coordinates",
                            format!("body '{}': coordinate {k} is out of range or taken twice", body.name),
                        ))
                    }
                }
            }
        }
        self.first = first;
        Ok(self)
    }

    /// Every coordinate must move some mass, or `M` is singular.
    fn check_mass(&self) -> Result<(), Error> {
        let m = self.mass_matrix(&vec![0.0; self.dof]);
        for k in 0..self.dof {
            if m[(k, k)].is_nan() || m[(k, k)] <= 0.0 {
                let owner = self
                    .bodies
                    .iter()
                    .zip(&self.first)
                    .position(|(b, &f)| f <= k && k < f + b.joint.dof())
                    .unwrap_or(0);
                let b = &self.bodies[owner];
                return Err(Error::model(
                    format!("body '{}': mass", b.name),
                    format!("coordinate {k} moves no mass or inertia"),
                ));
            }
        }
        Ok(())
    }

    /// Number of generalised coordinates.
    pub fn dof(&self) -> usize {
        self.dof
    }

    /// The bodies.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// The first coordinate of body `b`'s joint.
    pub fn first_coordinate(&self, b: usize) -> usize {
        self.first[b]
    }

    /// Gravity `g` (m/s²) as given.
    pub fn gravity(&self) -> f64 {
        self.gravity
    }

    /// The slope angle `α` (rad) as given.
    pub fn slope(&self) -> f64 {
        self.slope
    }

    /// The gravity vector `g (sin α, −cos α)`.
    pub fn gravity_vector(&self) -> Vector2<f64> {
        self.gravity_vec
    }

    /// The kinematics of every body at `(q, q̇)` (module docs): one pass down the tree.
    pub fn frames(&self, q: &[f64], v: &[f64]) -> Frames {
        let nb = self.bodies.len();
        let mut f = Frames {
            joint_sc: Vec::with_capacity(nb),
            joint_offset: Vec::with_capacity(nb),
            position: Vec::with_capacity(nb),
            angle: Vec::with_capacity(nb),
            sin_cos: Vec::with_capacity(nb),
            velocity: Vec::with_capacity(nb),
            omega: Vec::with_capacity(nb),
            accel_bias: Vec::with_capacity(nb),
            alpha_bias: Vec::with_capacity(nb),
            ..Frames::default()
        };
        self.frames_into(q, v, &mut f);
        f
    }

    /// [`Multibody::frames`] into `f`, reusing its storage.
    pub fn frames_into(&self, q: &[f64], v: &[f64], f: &mut Frames) {
        self.positions_into(q, f);
        self.velocities_into(v, f);
    }

    /// The position-level part of [`Multibody::frames_into`]: origins, angles and Jacobians
    /// (everything that does not depend on `q̇`).
    pub fn positions_into(&self, q: &[f64], f: &mut Frames) {
        let (n, nb) = (self.dof, self.bodies.len());
        f.n = n;
        f.position.clear();
        f.angle.clear();
        f.sin_cos.clear();
        f.joint_sc.clear();
        f.joint_offset.clear();
        f.jac.clear();
        f.jac.resize(3 * n * nb, 0.0);
        for (b, body) in self.bodies.iter().enumerate() {
            // The joint frame: its origin o = p_parent + R(φ_parent) origin, its angle and the
            // angle's (sin, cos) (the parent's when the origin is not turned: one sin_cos per
            // body that turns).
            let turned = |phi: f64, parent: (f64, f64)| if body.origin_angle == 0.0 { parent } else { phi.sin_cos() };
            let (mut p, mut phi, sc) = match body.parent {
                None => (body.origin, body.origin_angle, turned(body.origin_angle, (0.0, 1.0))),
                Some(pa) => {
                    let r = rot_sc(f.sin_cos[pa], body.origin);
                    let (src, dst) = f.jac.split_at_mut(3 * n * b);
                    let parent = &src[3 * n * pa..3 * n * (pa + 1)];
                    let rp = perp(r);
                    let (px, rest) = parent.split_at(n);
                    let (py, pp) = rest.split_at(n);
                    let (dx, rest) = dst[..3 * n].split_at_mut(n);
                    let (dy, dp) = rest.split_at_mut(n);
                    for ((((dx, dy), x), y), p) in dx.iter_mut().zip(dy.iter_mut()).zip(px).zip(py).zip(pp) {
                        (*dx, *dy) = (x + rp.x * p, y + rp.y * p);
                    }
                    dp.copy_from_slice(pp);
                    let phi = f.angle[pa] + body.origin_angle;
                    (f.position[pa] + r, phi, turned(phi, f.sin_cos[pa]))
                }
            };
            let mut body_sc = sc;
            let mut offset = Vector2::zeros();
            let k0 = self.first[b];
            let row = |r: usize, k: usize| (3 * b + r) * n + k;
            match body.joint {
                Joint::Fixed => {}
                Joint::Revolute { axis } => {
                    phi += axis * q[k0];
                    f.jac[row(2, k0)] += axis;
                    body_sc = phi.sin_cos();
                }
                Joint::Prismatic { axis } => {
                    let u = rot_sc(sc, axis);
                    offset = u * q[k0];
                    offset_turns(&mut f.jac[3 * n * b..3 * n * (b + 1)], n, offset);
                    f.jac[row(0, k0)] += u.x;
                    f.jac[row(1, k0)] += u.y;
                    p += offset;
                }
                Joint::Planar | Joint::PlanarAxes { .. } => {
                    let (u, sign) = body.joint.planar_axes().unwrap_or((Vector2::x(), 1.0));
                    let (ex, ey) = (rot_sc(sc, u), rot_sc(sc, perp(u) * sign));
                    offset = ex * q[k0] + ey * q[k0 + 1];
                    offset_turns(&mut f.jac[3 * n * b..3 * n * (b + 1)], n, offset);
                    f.jac[row(0, k0)] += ex.x;
                    f.jac[row(1, k0)] += ex.y;
                    f.jac[row(0, k0 + 1)] += ey.x;
                    f.jac[row(1, k0 + 1)] += ey.y;
                    f.jac[row(2, k0 + 2)] += sign;
                    p += offset;
                    phi += sign * q[k0 + 2];
                    body_sc = phi.sin_cos();
                }
            }
            f.position.push(p);
            f.angle.push(phi);
            f.sin_cos.push(body_sc);
            f.joint_sc.push(sc);
            f.joint_offset.push(offset);
        }
    }

    /// The velocity-level part of [`Multibody::frames_into`], after
    /// [`Multibody::positions_into`] on the same `f`: velocities and bias accelerations.
    pub fn velocities_into(&self, v: &[f64], f: &mut Frames) {
        f.velocity.clear();
        f.omega.clear();
        f.accel_bias.clear();
        f.alpha_bias.clear();
        for (b, body) in self.bodies.iter().enumerate() {
            let (mut vel, mut w, mut acc, alpha) = match body.parent {
                None => (Vector2::zeros(), 0.0, Vector2::zeros(), 0.0),
                Some(pa) => {
                    let r = rot_sc(f.sin_cos[pa], body.origin);
                    let (rp, wp) = (perp(r), f.omega[pa]);
                    (
                        f.velocity[pa] + rp * wp,
                        wp,
                        f.accel_bias[pa] + rp * f.alpha_bias[pa] - r * (wp * wp),
                        f.alpha_bias[pa],
                    )
                }
            };
            let k0 = self.first[b];
            let (sc, offset) = (f.joint_sc[b], f.joint_offset[b]);
            match body.joint {
                Joint::Fixed => {}
                Joint::Revolute { axis } => w += axis * v[k0],
                Joint::Prismatic { axis } => {
                    let rdot = rot_sc(sc, axis) * v[k0];
                    offset_moves(&mut vel, &mut acc, offset, rdot, w, alpha);
                }
                Joint::Planar | Joint::PlanarAxes { .. } => {
                    let (u, sign) = body.joint.planar_axes().unwrap_or((Vector2::x(), 1.0));
                    let rdot = rot_sc(sc, u) * v[k0] + rot_sc(sc, perp(u) * sign) * v[k0 + 1];
                    offset_moves(&mut vel, &mut acc, offset, rdot, w, alpha);
                    w += sign * v[k0 + 2];
                }
            }
            f.velocity.push(vel);
            f.omega.push(w);
            f.accel_bias.push(acc);
            f.alpha_bias.push(alpha);
        }
    }

    /// The mass matrix `M(q)` (module docs).
    pub fn mass_matrix(&self, q: &[f64]) -> DMatrix<f64> {
        let zeros = vec![0.0; self.dof];
        self.mass_and_bias(&self.frames(q, &zeros)).0
    }

    /// `M(q)` and `h(q, q̇)` (gravity and velocity products; no joint forces) from `frames`.
    pub fn mass_and_bias(&self, f: &Frames) -> (DMatrix<f64>, DVector<f64>) {
        let n = self.dof;
        let mut m = DMatrix::zeros(n, n);
        let mut h = DVector::zeros(n);
        self.mass_and_bias_into(f, &mut m, &mut h, &mut Scratch::default());
        (m, h)
    }

    /// [`Multibody::mass_and_bias`] into `m` (`n × n`) and `h` (`n`), with `scratch` for the
    /// centre-of-mass Jacobians: no allocation once the buffers have their sizes.
    pub fn mass_and_bias_into(&self, f: &Frames, m: &mut DMatrix<f64>, h: &mut DVector<f64>, scratch: &mut Scratch) {
        // One pass over the bodies for both (the centre-of-mass Jacobians computed once).
        let n = self.dof;
        if m.shape() != (n, n) {
            *m = DMatrix::zeros(n, n);
        }
        if h.len() != n {
            *h = DVector::zeros(n);
        }
        m.fill(0.0);
        h.fill(0.0);
        let Scratch { jc, moving, .. } = scratch;
        jc.clear();
        jc.resize(3 * n, 0.0);
        for (b, body) in self.bodies.iter().enumerate() {
            if body.mass == 0.0 && body.inertia == 0.0 {
                continue;
            }
            let rho = self.com_jacobian(f, b, jc, moving);
            self.add_body_bias(f, b, rho, jc, moving, h);
            Self::add_body_mass(body, n, jc, moving, m);
        }
        Self::mirror(m);
    }

    /// Body `b`'s term of `M` (upper triangle, a column at a time: contiguous).
    fn add_body_mass(body: &Body, n: usize, jc: &[f64], moving: &[usize], m: &mut DMatrix<f64>) {
        let ms = m.as_mut_slice();
        let (jx, rest) = jc.split_at(n);
        let (jy, jp) = rest.split_at(n);
        for &j in moving {
            let (xj, yj, pj) = (body.mass * jx[j], body.mass * jy[j], body.inertia * jp[j]);
            let col = &mut ms[j * n..j * n + j + 1];
            // Zipped slices: no bounds checks in the loop, which the compiler vectorises.
            for (((v, x), y), p) in col.iter_mut().zip(&jx[..=j]).zip(&jy[..=j]).zip(&jp[..=j]) {
                *v += x * xj + y * yj + p * pj;
            }
        }
    }

    /// Body `b`'s term of `h`.
    fn add_body_bias(
        &self,
        f: &Frames,
        b: usize,
        rho: Vector2<f64>,
        jc: &[f64],
        moving: &[usize],
        h: &mut DVector<f64>,
    ) {
        let (n, body) = (self.dof, &self.bodies[b]);
        let w = f.omega[b];
        let accel = f.accel_bias[b] + perp(rho) * f.alpha_bias[b] - rho * (w * w);
        let force = (self.gravity_vec - accel) * body.mass;
        let torque = -body.inertia * f.alpha_bias[b];
        let (jx, rest) = jc.split_at(n);
        let (jy, jp) = rest.split_at(n);
        let h = h.as_mut_slice();
        for &i in moving {
            h[i] += jx[i] * force.x + jy[i] * force.y + jp[i] * torque;
        }
    }

    /// The lower triangle from the upper.
    fn mirror(m: &mut DMatrix<f64>) {
        m.fill_lower_triangle_with_upper_triangle();
    }

    /// The Jacobian rows `(x, y, φ)` of body `b`'s centre of mass into `jc`, the coordinates
    /// that move it into `moving`; returns `R(φ_b) c_b`.
    fn com_jacobian(&self, f: &Frames, b: usize, jc: &mut [f64], moving: &mut Vec<usize>) -> Vector2<f64> {
        let n = self.dof;
        let rho = rot_sc(f.sin_cos[b], self.bodies[b].com);
        let rp = perp(rho);
        let (jx, jy, jphi) = (f.jacobian_row(b, 0), f.jacobian_row(b, 1), f.jacobian_row(b, 2));
        moving.clear();
        let (cx, rest) = jc[..3 * n].split_at_mut(n);
        let (cy, cp) = rest.split_at_mut(n);
        for (k, ((((cx, cy), cp), x), (y, p))) in
            cx.iter_mut().zip(cy.iter_mut()).zip(cp.iter_mut()).zip(jx).zip(jy.iter().zip(jphi)).enumerate()
        {
            (*cx, *cy, *cp) = (x + rp.x * p, y + rp.y * p, *p);
            if *cx != 0.0 || *cy != 0.0 || *p != 0.0 {
                moving.push(k);
            }
        }
        rho
    }

    /// `M(q)` (module docs) into `m` from the positions of `f`, keeping every body's
    /// centre-of-mass Jacobian in `scratch` for [`Multibody::bias_after_mass_into`].
    pub fn mass_keeping_into(&self, f: &Frames, m: &mut DMatrix<f64>, scratch: &mut Scratch) {
        let (n, nb) = (self.dof, self.bodies.len());
        if m.shape() != (n, n) {
            *m = DMatrix::zeros(n, n);
        }
        m.fill(0.0);
        let Scratch { moving, all_jc, all_rho, every, .. } = scratch;
        every.clear();
        every.extend(0..n);
        all_jc.clear();
        all_jc.resize(3 * n * nb, 0.0);
        all_rho.clear();
        all_rho.resize(nb, Vector2::zeros());
        for (b, body) in self.bodies.iter().enumerate() {
            if body.mass == 0.0 && body.inertia == 0.0 {
                continue;
            }
            let jc = &mut all_jc[3 * n * b..3 * n * (b + 1)];
            all_rho[b] = self.com_jacobian(f, b, jc, moving);
            Self::add_body_mass(body, n, jc, moving, m);
        }
        Self::mirror(m);
    }

    /// `h(q, q̇)` into `h` from the velocities of `f`, after [`Multibody::mass_keeping_into`]
    /// on the same positions with the same `scratch` (the centre-of-mass Jacobians it kept).
    pub fn bias_after_mass_into(&self, f: &Frames, h: &mut DVector<f64>, scratch: &Scratch) {
        let n = self.dof;
        if h.len() != n {
            *h = DVector::zeros(n);
        }
        h.fill(0.0);
        for (b, body) in self.bodies.iter().enumerate() {
            if body.mass == 0.0 && body.inertia == 0.0 {
                continue;
            }
            let jc = &scratch.all_jc[3 * n * b..3 * n * (b + 1)];
            self.add_body_bias(f, b, scratch.all_rho[b], jc, &scratch.every, h);
        }
    }

    /// Kinetic energy `½ q̇ᵀ M q̇`.
    pub fn kinetic_energy(&self, f: &Frames) -> f64 {
        self.bodies
            .iter()
            .enumerate()
            .map(|(b, body)| {
                let v = f.point(b, &body.com).velocity;
                0.5 * body.mass * v.norm_squared() + 0.5 * body.inertia * f.omega[b] * f.omega[b]
            })
            .sum()
    }

    /// Potential energy of gravity, `−Σ m_b g⃗·r_b`.
    pub fn potential_energy(&self, f: &Frames) -> f64 {
        let g = self.gravity_vector();
        self.bodies.iter().enumerate().map(|(b, body)| -body.mass * g.dot(&f.point(b, &body.com).position)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::double_pendulum::DoublePendulumStop;
    use crate::mechanics::ContactSystem;
    use nalgebra::Vector2 as V2;

    #[test]
    fn the_double_pendulum_tree_has_p3s_mass_matrix_and_bias() {
        let p = DoublePendulumStop { m1: 1.3, m2: 0.7, l1: 0.9, l2: 1.1, gravity: 9.81, e: 0.0, control: None };
        let mb = p.as_multibody().unwrap().multibody().clone();
        for (q, v) in [([0.3, -0.7], [1.1, -2.0]), ([-1.2, 0.4], [0.0, 3.0]), ([2.9, 1.5], [-0.4, 0.2])] {
            let (m, h) = mb.mass_and_bias(&mb.frames(&q, &v));
            let (qs, vs) = (nalgebra::DVector::from_column_slice(&q), nalgebra::DVector::from_column_slice(&v));
            let (m0, h0) = (p.mass_matrix(&qs), p.bias(0.0, &qs, &vs));
            for i in 0..2 {
                assert!((h[i] - h0[i]).abs() <= 1e-13 * (1.0 + h0.amax()), "h {h} vs {h0}");
                for j in 0..2 {
                    assert!((m[(i, j)] - m0[(i, j)]).abs() <= 1e-14 * m0.amax(), "M {m} vs {m0}");
                }
            }
        }
    }

    #[test]
    fn a_floating_body_has_p1s_kinematics_at_its_contact_points() {
        // P1's planar body: coordinates (x, z, θ) of the centre of mass, contacts at body points
        // r_i on lines through their rest positions. A planar joint at the world origin with the
        // centre of mass at the body origin is the same system, with gravity as its force.
        let mut paper = crate::paper_configs::p1::config("A").unwrap().body();
        paper.points[1].phi = 0.3; // a support line that is not the floor
        paper.torque = 0.0;
        let body = Body {
            name: "body".into(),
            parent: None,
            joint: Joint::Planar,
            origin: V2::zeros(),
            origin_angle: 0.0,
            mass: paper.mass,
            inertia: paper.mass * paper.rho * paper.rho,
            com: V2::zeros(),
        };
        let g = paper.force.norm() / paper.mass;
        let slope = paper.force.x.atan2(-paper.force.y);
        let mb = Multibody::new(vec![body], g, slope).unwrap();
        for (q, v) in [([0.01, -0.02, 0.3], [0.5, -1.0, 2.0]), ([-0.3, 0.1, -1.1], [0.0, 0.2, -0.7])] {
            let f = mb.frames(&q, &v);
            let (m, h) = mb.mass_and_bias(&f);
            let (qs, vs) = (nalgebra::DVector::from_column_slice(&q), nalgebra::DVector::from_column_slice(&v));
            assert!((m - DMatrix::from_iterator(3, 3, paper.mass_matrix().iter().copied())).amax() <= 1e-14);
            let h0 = paper.bias(0.0, &qs, &vs);
            assert!((0..3).all(|k| (h[k] - h0[k]).abs() <= 1e-13 * (1.0 + h0.amax())), "{h} vs {h0}");
            for (i, pt) in paper.points.iter().enumerate() {
                let k = f.point(0, &pt.r);
                let (n, t) = (pt.normal(), pt.tangent());
                let gap = n.dot(&(k.position - pt.r));
                assert!((gap - paper.gap(i, &qs)).abs() <= 1e-15, "gap");
                let (wn, wt) = (paper.normal_jacobian(i, &qs), paper.tangent_jacobian(i, &qs));
                for c in 0..3 {
                    let (jn, jt) = (
                        n.x * k.jacobian[(0, c)] + n.y * k.jacobian[(1, c)],
                        t.x * k.jacobian[(0, c)] + t.y * k.jacobian[(1, c)],
                    );
                    assert!((jn - wn[c]).abs() <= 1e-15 && (jt - wt[c]).abs() <= 1e-15, "Jacobians");
                }
                let (an, at) =
                    paper.jacobian_dot_v(i, &crate::mechanics::fixed::<3>(&qs), &crate::mechanics::fixed::<3>(&vs));
                assert!((n.dot(&k.accel_bias) - an).abs() <= 1e-14 && (t.dot(&k.accel_bias) - at).abs() <= 1e-14);
            }
        }
    }

    /// A tree with every joint kind: a floating base, a revolute arm, a prismatic slider on it, a
    /// fixed tip, revolute joints, and a floating body on the turning arm, on a slope.
    fn mixed_chain() -> Multibody {
        let b = |name: &str, parent, joint, origin: [f64; 2], angle, mass, inertia, com: [f64; 2]| Body {
            name: String::from(name),
            parent,
            joint,
            origin: V2::from(origin),
            origin_angle: angle,
            mass,
            inertia,
            com: V2::from(com),
        };
        let bodies = vec![
            b("base", None, Joint::Planar, [0.1, 0.2], 0.3, 3.0, 0.2, [0.05, -0.02]),
            b("arm", Some(0), Joint::Revolute { axis: -1.0 }, [0.3, 0.1], -0.4, 1.2, 0.05, [0.2, 0.01]),
            b(
                "slider",
                Some(1),
                Joint::Prismatic { axis: V2::new(0.6, 0.8) },
                [0.4, 0.0],
                0.2,
                0.7,
                0.02,
                [0.03, 0.04],
            ),
            b("tip", Some(2), Joint::Fixed, [0.1, 0.05], 0.5, 0.3, 0.001, [0.02, 0.0]),
            b("finger", Some(3), Joint::Revolute { axis: 1.0 }, [0.05, 0.0], 0.0, 0.2, 0.004, [0.06, -0.01]),
            b("leg", Some(0), Joint::Revolute { axis: 1.0 }, [-0.2, -0.1], 0.0, 0.9, 0.03, [0.0, -0.25]),
            // A floating body on a turning parent (the relative motion's Coriolis terms).
            b("puck", Some(1), Joint::Planar, [0.1, 0.2], 0.7, 0.4, 0.01, [0.01, 0.02]),
        ];
        Multibody::new(bodies, 9.81, 0.15).unwrap()
    }

    #[test]
    fn point_velocities_and_bias_accelerations_are_the_derivatives_of_positions() {
        // Along q(t) = q + q̇ t + ½ q̈ t²: the point's velocity is J q̇ and its acceleration
        // J q̈ + a_bias; both against central differences of the position (test only).
        let mb = mixed_chain();
        let n = mb.dof();
        assert_eq!(n, 10);
        let q0: Vec<f64> = (0..n).map(|k| 0.3 * (k as f64 * 1.7).sin()).collect();
        let v0: Vec<f64> = (0..n).map(|k| 0.8 * (k as f64 * 0.9 + 0.4).cos()).collect();
        let a0: Vec<f64> = (0..n).map(|k| (k as f64 * 2.3 + 1.0).sin()).collect();
        let at = |t: f64| -> Vec<f64> { (0..n).map(|k| q0[k] + v0[k] * t + 0.5 * a0[k] * t * t).collect() };
        let f = mb.frames(&q0, &v0);
        let dt = 1e-4;
        for b in 0..mb.bodies().len() {
            let x = V2::new(0.07, -0.03);
            let k = f.point(b, &x);
            let pos = |t: f64| mb.frames(&at(t), &v0).point(b, &x).position;
            let vel_fd = (pos(dt) - pos(-dt)) / (2.0 * dt);
            let acc_fd = (pos(dt) - pos(0.0) * 2.0 + pos(-dt)) / (dt * dt);
            let jv = &k.jacobian * DVector::from_column_slice(&v0);
            let ja = &k.jacobian * DVector::from_column_slice(&a0);
            let acc = V2::new(ja[0], ja[1]) + k.accel_bias;
            assert!((V2::new(jv[0], jv[1]) - vel_fd).norm() <= 1e-7, "body {b}: J q̇");
            assert!((k.velocity - vel_fd).norm() <= 1e-7, "body {b}: velocity");
            assert!((acc - acc_fd).norm() <= 1e-5, "body {b}: acceleration {acc} vs {acc_fd}");
        }
    }

    #[test]
    fn energy_is_conserved_without_contacts() {
        // M q̈ = h with RK4: kinetic plus potential energy stays constant, which checks h (every
        // velocity-product term) against M.
        let mb = mixed_chain();
        let n = mb.dof();
        let accel = |q: &[f64], v: &[f64]| -> Vec<f64> {
            let (m, h) = mb.mass_and_bias(&mb.frames(q, v));
            m.cholesky().expect("M is positive definite").solve(&h).iter().copied().collect()
        };
        let mut q: Vec<f64> = (0..n).map(|k| 0.2 * (k as f64).cos()).collect();
        let mut v: Vec<f64> = (0..n).map(|k| 1.5 * (k as f64 * 1.3).sin()).collect();
        let energy = |q: &[f64], v: &[f64]| {
            let f = mb.frames(q, v);
            mb.kinetic_energy(&f) + mb.potential_energy(&f)
        };
        let e0 = energy(&q, &v);
        let h = 1e-3;
        let add = |x: &[f64], d: &[f64], s: f64| -> Vec<f64> { x.iter().zip(d).map(|(a, b)| a + s * b).collect() };
        for _ in 0..1000 {
            let k1v = accel(&q, &v);
            let k1q = v.clone();
            let (q2, v2) = (add(&q, &k1q, h / 2.0), add(&v, &k1v, h / 2.0));
            let (k2q, k2v) = (v2.clone(), accel(&q2, &v2));
            let (q3, v3) = (add(&q, &k2q, h / 2.0), add(&v, &k2v, h / 2.0));
            let (k3q, k3v) = (v3.clone(), accel(&q3, &v3));
            let (q4, v4) = (add(&q, &k3q, h), add(&v, &k3v, h));
            let (k4q, k4v) = (v4.clone(), accel(&q4, &v4));
            for i in 0..n {
                q[i] += h / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
                v[i] += h / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
            }
        }
        let e1 = energy(&q, &v);
        let scale = mb.kinetic_energy(&mb.frames(&q, &v)).abs() + 1.0;
        assert!((e1 - e0).abs() <= 1e-8 * scale, "energy {e0} -> {e1}");
        // And M = Σ JᵀJ is symmetric positive definite, ½ q̇ᵀMq̇ the kinetic energy.
        let f = mb.frames(&q, &v);
        let (m, _) = mb.mass_and_bias(&f);
        assert!((&m - m.transpose()).amax() <= 1e-15 * m.amax());
        let vv = DVector::from_column_slice(&v);
        assert!((0.5 * vv.dot(&(&m * &vv)) - mb.kinetic_energy(&f)).abs() <= 1e-12 * scale);
    }

    #[test]
    fn bad_trees_are_refused_naming_the_body() {
        let ok = || mixed_chain().bodies().to_vec();
        let err = |bodies: Vec<Body>| Multibody::new(bodies, 9.81, 0.0).unwrap_err().to_string();
        let mut b = ok();
        b[2].parent = Some(4);
        assert!(err(b).contains("body 'slider': parent"));
        let mut b = ok();
        b[1].mass = -1.0;
        assert!(err(b).contains("body 'arm'"));
        let mut b = ok();
        b[1].joint = Joint::Revolute { axis: 0.5 };
        assert!(err(b).contains("axis"));
        let mut b = ok();
        b[2].joint = Joint::Prismatic { axis: V2::new(1.0, 1.0) };
        assert!(err(b).contains("unit vector"));
        let mut b = ok();
        b[4].com = V2::zeros();
        b[4].inertia = 0.0;
        assert!(err(b).contains("body 'finger': mass"));
        let mut b = ok();
        b[0].com.x = f64::NAN;
        assert!(err(b).contains("finite"));
    }
}
