//! Elementary systems whose motions are known in closed form, for checking the hybrid core and
//! as the simplest models of the papers (P3's bouncing ball).
//!
//! * [`Pendulum`]: a point mass on a massless rod, angle `θ` from the downward vertical; period
//!   `4 √(L/g) K(sin(θ₀/2))`.
//! * [`Particle`]: a point mass in the plane under a constant force, bounded by half-planes
//!   (floors, walls, inclines) with Coulomb friction and Newton restitution.
//! * [`Oscillator`]: one degree of freedom `m ẍ + c ẋ + k x = f` with a stop (a bouncing ball
//!   for `k = c = 0`; with `c < 0` a self-excited impact oscillator with a limit cycle).
//! * [`ImpactLimitCycle`]: the self-excited impact oscillator's one-impact limit cycle: the
//!   post-impact speed map, its fixed point, derivative and period, and the orbit's far turning
//!   point (where a second stop grazes it).
//! * [`FrictionOscillator`]: a block on a rough floor held by a spring: a stick band and a
//!   known amplitude decay per half cycle.
//! * [`RockingBlock`]: Housner's rectangular block rocking on its corners: the time to the
//!   first impact from rest (quadrature of the energy integral) and the rate ratio per impact
//!   `1 − (3/2) sin²α`.

use nalgebra::{SMatrix, SVector, Vector2};

use super::{ContactLaw, FixedSystem};
use crate::numeric::{bisect, side_if, Tol};

/// Housner's rocking block (1963): a uniform rectangle of half-width `b` and half-height `h`
/// rocking about its bottom corners without sliding, plastic impacts at the corners. Between
/// impacts it is an inverted pendulum about a corner, `I_O φ̈ = −m g R sin(α − φ)` with
/// `R = √(b² + h²)`, `tan α = b/h`, `I_O = (4/3) m R²` (`φ` the tilt from resting flat).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RockingBlock {
    /// Half-width `b` (m).
    pub b: f64,
    /// Half-height `h` (m).
    pub h: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
}

impl RockingBlock {
    /// The slenderness angle `α = atan(b/h)`.
    pub fn alpha(&self) -> f64 {
        (self.b / self.h).atan()
    }

    /// Housner's ratio of the rotation rates after and before an impact, `1 − (3/2) sin²α`
    /// (angular momentum about the new corner is conserved).
    pub fn rate_ratio(&self) -> f64 {
        1.0 - 1.5 * self.alpha().sin().powi(2)
    }

    /// The time from rest at tilt `φ₀ ∈ (0, α)` to the first impact (`φ = 0`), by composite
    /// Simpson quadrature of `dt = dφ/φ̇` from the energy integral, in the variable `u` with
    /// `φ = φ₀ − u²` (which removes the square-root singularity at the start), on `n` (even)
    /// intervals.
    pub fn first_impact_time(&self, phi0: f64, n: usize) -> f64 {
        let (alpha, g) = (self.alpha(), self.gravity);
        let r = self.b.hypot(self.h);
        let i_o = 4.0 / 3.0 * r * r; // per unit mass
        let rate = |phi: f64| (2.0 * g * r * ((alpha - phi0).cos() - (alpha - phi).cos()) / i_o).sqrt();
        let f = |u: f64| {
            if u == 0.0 {
                2.0 / (2.0 * g * r * (alpha - phi0).sin() / i_o).sqrt()
            } else {
                2.0 * u / rate(phi0 - u * u)
            }
        };
        let n = n.max(2) & !1;
        let step = phi0.sqrt() / n as f64;
        let weight = |k: usize| match k {
            0 => 1.0,
            k if k == n => 1.0,
            k if k % 2 == 1 => 4.0,
            _ => 2.0,
        };
        (0..=n).map(|k| weight(k) * f(k as f64 * step)).sum::<f64>() * step / 3.0
    }
}

/// A simple pendulum: `m L² θ̈ = −m g L sin θ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pendulum {
    /// Rod length `L` (m).
    pub length: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
    /// Mass `m` (kg).
    pub mass: f64,
}

impl Pendulum {
    /// The exact period from amplitude `θ₀`, `4 √(L/g) K(sin(θ₀/2))` with `K` by the
    /// arithmetic–geometric mean.
    pub fn period(&self, theta0: f64) -> f64 {
        let k = (theta0 / 2.0).sin();
        let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
        for _ in 0..40 {
            let (an, bn) = (0.5 * (a + b), (a * b).sqrt());
            a = an;
            b = bn;
        }
        4.0 * (self.length / self.gravity).sqrt() * std::f64::consts::PI / (2.0 * a)
    }
}

crate::fixed_size_system!(Pendulum, 1);

impl FixedSystem<1> for Pendulum {
    fn contact_count(&self) -> usize {
        0
    }
    fn law(&self, _i: usize) -> ContactLaw {
        ContactLaw { mu: 0.0, restitution: 0.0 }
    }
    fn mass_matrix(&self, _q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        SMatrix::<f64, 1, 1>::new(self.mass * self.length * self.length)
    }
    fn bias(&self, _t: f64, q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(-self.mass * self.gravity * self.length * q[0].sin())
    }
    fn gap(&self, _i: usize, _q: &SVector<f64, 1>) -> f64 {
        f64::INFINITY
    }
    fn normal_jacobian(&self, _i: usize, _q: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::zeros()
    }
    fn jacobian_dot_v(&self, _i: usize, _q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> (f64, f64) {
        (0.0, 0.0)
    }
    fn potential(&self, q: &SVector<f64, 1>) -> Option<f64> {
        Some(-self.mass * self.gravity * self.length * q[0].cos())
    }
    fn time_scale(&self) -> f64 {
        (self.length / self.gravity).sqrt()
    }
}

/// A half-plane `n·p ≥ d` bounding a [`Particle`]: gap `n·p − d`, tangential coordinate `t·p`
/// with `t = (n_y, −n_x)` (for a floor, `n = (0, 1)`, `t = (1, 0)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfPlane {
    /// Unit inward normal.
    pub normal: Vector2<f64>,
    /// Offset `d`.
    pub offset: f64,
    /// Contact law.
    pub law: ContactLaw,
}

impl HalfPlane {
    fn tangent(&self) -> Vector2<f64> {
        Vector2::new(self.normal.y, -self.normal.x)
    }
}

/// A point mass in the plane under a constant force `F`, bounded by half-planes.
#[derive(Debug, Clone, PartialEq)]
pub struct Particle {
    /// Mass (kg).
    pub mass: f64,
    /// Constant applied force (N), e.g. `(0, −m g)`.
    pub force: Vector2<f64>,
    /// The half-planes.
    pub walls: Vec<HalfPlane>,
    /// Characteristic length (m), for tolerances.
    pub length: f64,
}

impl Particle {
    /// A block (point mass) on a floor `z ≥ 0` inclined so that gravity has a component
    /// `g sin α` along `+x`: force `m g (sin α, −cos α)`, floor normal `(0, 1)`, friction `μ`.
    pub fn block_on_incline(mass: f64, gravity: f64, alpha: f64, mu: f64) -> Self {
        Self {
            mass,
            force: Vector2::new(alpha.sin(), -alpha.cos()) * (mass * gravity),
            walls: vec![HalfPlane {
                normal: Vector2::new(0.0, 1.0),
                offset: 0.0,
                law: ContactLaw { mu, restitution: 0.0 },
            }],
            length: 1.0,
        }
    }
}

crate::fixed_size_system!(Particle, 2);

impl FixedSystem<2> for Particle {
    fn contact_count(&self) -> usize {
        self.walls.len()
    }
    fn law(&self, i: usize) -> ContactLaw {
        self.walls[i].law
    }
    fn mass_matrix(&self, _q: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
        SMatrix::<f64, 2, 2>::identity() * self.mass
    }
    fn bias(&self, _t: f64, _q: &SVector<f64, 2>, _v: &SVector<f64, 2>) -> SVector<f64, 2> {
        self.force
    }
    fn gap(&self, i: usize, q: &SVector<f64, 2>) -> f64 {
        self.walls[i].normal.dot(q) - self.walls[i].offset
    }
    fn tangential(&self, i: usize, q: &SVector<f64, 2>) -> f64 {
        self.walls[i].tangent().dot(q)
    }
    fn normal_jacobian(&self, i: usize, _q: &SVector<f64, 2>) -> SVector<f64, 2> {
        self.walls[i].normal
    }
    fn tangent_jacobian(&self, i: usize, _q: &SVector<f64, 2>) -> SVector<f64, 2> {
        self.walls[i].tangent()
    }
    fn jacobian_dot_v(&self, _i: usize, _q: &SVector<f64, 2>, _v: &SVector<f64, 2>) -> (f64, f64) {
        (0.0, 0.0)
    }
    fn potential(&self, q: &SVector<f64, 2>) -> Option<f64> {
        Some(-self.force.dot(q))
    }
    fn coordinate_scale(&self) -> SVector<f64, 2> {
        SVector::repeat(self.length)
    }
    fn length_scale(&self) -> f64 {
        self.length
    }
    fn time_scale(&self) -> f64 {
        let a = self.force.norm() / self.mass;
        if a > 0.0 {
            (self.length / a).sqrt()
        } else {
            1.0
        }
    }
}

/// Which side of the stop the motion is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSide {
    /// `x ≥ position` (a floor under a bouncing ball).
    Above,
    /// `x ≤ position` (a wall to the right of an oscillator).
    Below,
}

/// `m ẍ + c ẋ + k x = f` with a frictionless stop at `position` and restitution `e`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Oscillator {
    /// Mass `m`.
    pub mass: f64,
    /// Damping `c` (negative: self-excited).
    pub damping: f64,
    /// Stiffness `k`.
    pub stiffness: f64,
    /// Constant force `f`.
    pub force: f64,
    /// Stop position.
    pub position: f64,
    /// Side of the admissible motion.
    pub side: StopSide,
    /// Coefficient of restitution `e`.
    pub restitution: f64,
    /// Characteristic length, for tolerances.
    pub length: f64,
    /// Characteristic time, for tolerances.
    pub time: f64,
}

impl Oscillator {
    /// A ball of mass `m` dropped on a floor at `0` under gravity `g`: `m ẍ = −m g`, `x ≥ 0`.
    pub fn bouncing_ball(mass: f64, gravity: f64, restitution: f64, height: f64) -> Self {
        Self {
            mass,
            damping: 0.0,
            stiffness: 0.0,
            force: -mass * gravity,
            position: 0.0,
            side: StopSide::Above,
            restitution,
            length: height,
            time: (height / gravity).sqrt(),
        }
    }

    fn sign(&self) -> f64 {
        match self.side {
            StopSide::Above => 1.0,
            StopSide::Below => -1.0,
        }
    }
}

crate::fixed_size_system!(Oscillator, 1);

impl FixedSystem<1> for Oscillator {
    fn contact_count(&self) -> usize {
        1
    }
    fn law(&self, _i: usize) -> ContactLaw {
        ContactLaw { mu: 0.0, restitution: self.restitution }
    }
    fn mass_matrix(&self, _q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        SMatrix::<f64, 1, 1>::new(self.mass)
    }
    fn bias(&self, _t: f64, q: &SVector<f64, 1>, v: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(self.force - self.damping * v[0] - self.stiffness * q[0])
    }
    fn gap(&self, _i: usize, q: &SVector<f64, 1>) -> f64 {
        self.sign() * (q[0] - self.position)
    }
    fn normal_jacobian(&self, _i: usize, _q: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(self.sign())
    }
    fn jacobian_dot_v(&self, _i: usize, _q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> (f64, f64) {
        (0.0, 0.0)
    }
    fn potential(&self, q: &SVector<f64, 1>) -> Option<f64> {
        (self.damping == 0.0).then(|| 0.5 * self.stiffness * q[0] * q[0] - self.force * q[0])
    }
    fn coordinate_scale(&self) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(self.length)
    }
    fn length_scale(&self) -> f64 {
        self.length
    }
    fn time_scale(&self) -> f64 {
        self.time
    }
    /// In closed form: `∂h/∂q = −k`, `∂h/∂q̇ = −c`, everything else constant.
    fn linearization(
        &self,
        _t: f64,
        _q: &SVector<f64, 1>,
        _v: &SVector<f64, 1>,
    ) -> Option<super::linearization::Linearization> {
        Some(super::linearization::Linearization {
            dm_dq: vec![nalgebra::DMatrix::zeros(1, 1)],
            dh_dq: nalgebra::DMatrix::from_element(1, 1, -self.stiffness),
            dh_dv: nalgebra::DMatrix::from_element(1, 1, -self.damping),
            contacts: vec![super::linearization::ContactLinearization::constant(1)],
        })
    }
}

/// The self-excited impact oscillator `m ẍ + c ẋ + k x = 0` (`c < 0`, underdamped) with a
/// wall at `x = d > 0` (`x ≤ d`, Newton's restitution `e`): its one-impact limit cycle in closed
/// form. Between impacts the flow is linear, `x(t) = e^{σt}(a cos ω t + b sin ω t)` with
/// `σ = −c/(2m)`, `ω = √(k/m − σ²)`; from the wall with post-impact velocity `u < 0` the next
/// impact is the first `τ > 0` with `x(τ) = d` (bracketed on a grid of `1/256` of the damped
/// period, then bisected to round-off), and the post-impact velocity map is
/// `P(u) = −e ẋ(τ(u); u)` with `P'(u) = −e (ẍ τ'(u) + ∂ẋ/∂u)`, `τ'(u) = −(∂x/∂u)/ẋ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpactLimitCycle {
    /// Mass `m` (kg).
    pub mass: f64,
    /// Damping `c < 0` (N·s/m).
    pub damping: f64,
    /// Stiffness `k` (N/m).
    pub stiffness: f64,
    /// Restitution `e` in `(0, 1)`.
    pub restitution: f64,
    /// The wall's position `d > 0` (m).
    pub wall: f64,
}

impl ImpactLimitCycle {
    fn sigma_omega(&self) -> (f64, f64) {
        let sigma = -self.damping / (2.0 * self.mass);
        (sigma, (self.stiffness / self.mass - sigma * sigma).sqrt())
    }

    /// `(x, ẋ, ∂x/∂u, ∂ẋ/∂u)` at time `t` after leaving the wall with velocity `u`.
    pub fn flow(&self, t: f64, u: f64) -> (f64, f64, f64, f64) {
        let (sig, om) = self.sigma_omega();
        let (a, b) = (self.wall, (u - sig * self.wall) / om);
        let ex = (sig * t).exp();
        let (s, c) = (om * t).sin_cos();
        let x = ex * (a * c + b * s);
        let xd = ex * ((sig * a + om * b) * c + (sig * b - om * a) * s);
        (x, xd, ex * s / om, ex * (sig * s + om * c) / om)
    }

    /// The time `τ(u)` to the next impact; `None` when there is none within 64 damped periods.
    pub fn return_time(&self, u: f64) -> Option<f64> {
        let (_, om) = self.sigma_omega();
        let h = 2.0 * std::f64::consts::PI / om / 256.0;
        // The flight starts on the wall: the first grid point back at or beyond it.
        let k = (1..64 * 256).find(|&k| self.flow(k as f64 * h, u).0 >= self.wall)?;
        let (lo, hi) = ((k - 1) as f64 * h, k as f64 * h);
        Some(
            bisect(lo, hi, Tol::ROUNDOFF, |m| {
                let x = self.flow(m, u).0;
                side_if(x.is_nan() || x >= self.wall)
            })
            .mid(),
        )
    }

    /// `(P(u), P'(u))`; `None` without a return.
    pub fn map(&self, u: f64) -> Option<(f64, f64)> {
        let t = self.return_time(u)?;
        let (x, xd, dxu, dxdu) = self.flow(t, u);
        let xdd = -(self.damping * xd + self.stiffness * x) / self.mass;
        let tau_u = -dxu / xd;
        Some((-self.restitution * xd, -self.restitution * (xdd * tau_u + dxdu)))
    }

    /// The limit cycle: `(u*, P'(u*), τ(u*))`, the fixed point bracketed on a geometric grid of
    /// speeds (`P(u) − u` is negative where the negative damping wins, positive where the
    /// restitution does) and bisected; `None` when there is no such change of sign.
    pub fn limit_cycle(&self) -> Option<(f64, f64, f64)> {
        let (_, om) = self.sigma_omega();
        let f = |u: f64| self.map(u).map(|(p, _)| p - u);
        let speeds: Vec<f64> = (0..120).map(|k| -1e-3 * om * self.wall * 1.2f64.powi(k)).collect();
        let k = (1..speeds.len())
            .find(|&k| matches!((f(speeds[k - 1]), f(speeds[k])), (Some(a), Some(b)) if a < 0.0 && b >= 0.0))?;
        let br = bisect(speeds[k - 1], speeds[k], Tol::ROUNDOFF, |m| {
            f(m).map_or(crate::numeric::Side::Stop, |d| side_if(d.is_nan() || d >= 0.0))
        });
        if br.stopped {
            return None;
        }
        let u = br.mid();
        let (_, slope) = self.map(u)?;
        Some((u, slope, self.return_time(u)?))
    }

    /// The least position of the flight from the wall with velocity `u < 0`: where
    /// `ẋ = e^{σt}(A cos ωt + B sin ωt)` first vanishes, `A = σa + ωb`, `B = σb − ωa`, i.e. at
    /// `ωt = (atan2(B, A) + π/2) mod π`. A second stop at `x = x_min` grazes the orbit.
    pub fn least_position(&self, u: f64) -> f64 {
        let (sig, om) = self.sigma_omega();
        let (a, b) = (self.wall, (u - sig * self.wall) / om);
        let (aa, bb) = (sig * a + om * b, sig * b - om * a);
        let mut theta = (bb.atan2(aa) + std::f64::consts::FRAC_PI_2).rem_euclid(std::f64::consts::PI);
        if theta == 0.0 {
            theta = std::f64::consts::PI;
        }
        self.flow(theta / om, u).0
    }
}

/// A block of mass `m` on a rough floor `y ≥ 0`, held by a spring of stiffness `k` along the
/// floor: `m ẍ = −k x + f_t`, `|f_t| ≤ μ f_n`, `f_n = m g` while it rests on the floor. Sticks
/// anywhere in the band `|x| ≤ δ = μ m g / k`; from rest at `x₀` outside it, each half cycle
/// (duration `π √(m/k)`) ends at rest at `−(|x₀| − 2δ)` on the other side (P5's second model).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrictionOscillator {
    /// Mass `m` (kg).
    pub mass: f64,
    /// Spring stiffness `k` (N/m).
    pub stiffness: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
    /// Friction coefficient `μ`.
    pub mu: f64,
}

impl FrictionOscillator {
    /// Half-width of the stick band, `δ = μ m g / k`.
    pub fn band(&self) -> f64 {
        self.mu * self.mass * self.gravity / self.stiffness
    }
    /// Half period `π √(m/k)`.
    pub fn half_period(&self) -> f64 {
        std::f64::consts::PI * (self.mass / self.stiffness).sqrt()
    }
    /// The closed-form position at time `t` from rest at `x0` (`|x0| > δ`) on the floor.
    pub fn position(&self, x0: f64, t: f64) -> f64 {
        let d = self.band();
        let w = (self.stiffness / self.mass).sqrt();
        let (mut a, mut t) = (x0, t);
        loop {
            if a.abs() <= d {
                return a;
            }
            // Sliding towards the origin: the friction force points away from it.
            let c = a.signum() * d;
            if t <= std::f64::consts::PI / w {
                return c + (a - c) * (w * t).cos();
            }
            t -= std::f64::consts::PI / w;
            a = 2.0 * c - a;
        }
    }
}

crate::fixed_size_system!(FrictionOscillator, 2);

impl FixedSystem<2> for FrictionOscillator {
    fn contact_count(&self) -> usize {
        1
    }
    fn law(&self, _i: usize) -> ContactLaw {
        ContactLaw { mu: self.mu, restitution: 0.0 }
    }
    fn mass_matrix(&self, _q: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
        SMatrix::<f64, 2, 2>::identity() * self.mass
    }
    fn bias(&self, _t: f64, q: &SVector<f64, 2>, _v: &SVector<f64, 2>) -> SVector<f64, 2> {
        Vector2::new(-self.stiffness * q[0], -self.mass * self.gravity)
    }
    fn gap(&self, _i: usize, q: &SVector<f64, 2>) -> f64 {
        q[1]
    }
    fn tangential(&self, _i: usize, q: &SVector<f64, 2>) -> f64 {
        q[0]
    }
    fn normal_jacobian(&self, _i: usize, _q: &SVector<f64, 2>) -> SVector<f64, 2> {
        Vector2::new(0.0, 1.0)
    }
    fn tangent_jacobian(&self, _i: usize, _q: &SVector<f64, 2>) -> SVector<f64, 2> {
        Vector2::new(1.0, 0.0)
    }
    fn jacobian_dot_v(&self, _i: usize, _q: &SVector<f64, 2>, _v: &SVector<f64, 2>) -> (f64, f64) {
        (0.0, 0.0)
    }
    fn potential(&self, q: &SVector<f64, 2>) -> Option<f64> {
        Some(0.5 * self.stiffness * q[0] * q[0] + self.mass * self.gravity * q[1])
    }
    fn coordinate_scale(&self) -> SVector<f64, 2> {
        SVector::repeat(self.band().max(f64::MIN_POSITIVE))
    }
    fn length_scale(&self) -> f64 {
        self.band().max(f64::MIN_POSITIVE)
    }
    fn time_scale(&self) -> f64 {
        (self.mass / self.stiffness).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impact_limit_cycle_is_consistent_and_free_of_units() {
        let o = ImpactLimitCycle { mass: 1.0, damping: -0.1, stiffness: 1.0, restitution: 0.8, wall: 0.5 };
        let (u, slope, tau) = o.limit_cycle().unwrap();
        assert!((o.map(u).unwrap().0 - u).abs() < 1e-12 * u.abs());
        assert!(slope.abs() < 1.0, "a stable cycle: {slope}");
        // P' against a difference quotient of P.
        let h = 1e-6 * u.abs();
        let dq = (o.map(u + h).unwrap().0 - o.map(u - h).unwrap().0) / (2.0 * h);
        assert!((dq - slope).abs() < 1e-7, "{dq} vs {slope}");
        // The least position against a fine grid of the flight.
        let grid = (0..=20_000).map(|k| o.flow(tau * k as f64 / 20_000.0, u).0).fold(f64::INFINITY, f64::min);
        let least = o.least_position(u);
        assert!(least <= grid + 1e-15 && grid - least < 1e-7, "{least} vs {grid}");
        // Kilograms, metres and seconds scaled: the same cycle in the new units.
        let (ms, ls, ts) = (1e8, 1e-8, 1e5);
        let scaled = ImpactLimitCycle {
            mass: o.mass * ms,
            damping: o.damping * ms / ts,
            stiffness: o.stiffness * ms / (ts * ts),
            restitution: o.restitution,
            wall: o.wall * ls,
        };
        let (u2, slope2, tau2) = scaled.limit_cycle().unwrap();
        assert!((u2 / (ls / ts) - u).abs() < 1e-10 * u.abs(), "{u2} vs {u}");
        assert!((slope2 - slope).abs() < 1e-9 && (tau2 / ts - tau).abs() < 1e-10 * tau);
        assert!((scaled.least_position(u2) / ls - least).abs() < 1e-10 * least.abs());
    }
}
