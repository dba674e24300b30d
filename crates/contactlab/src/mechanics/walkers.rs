//! The passive walkers of P2 (Or, Sections 3 and 4): the rimless wheel and the compass biped,
//! each a planar Lagrangian system with one stance contact and one swing contact.
//!
//! These structs are the walkers' parameters everywhere. Their [`ContactSystem`](crate::mechanics::ContactSystem)s, written by
//! hand in P2's coordinates, are the independent oracle of the multibody models
//! ([`crate::walking::multibody`]), on which every command and the report run P2's analyses:
//! the tests compare the two.
//!
//! # Coordinates (P2's)
//! Both models carry the position `(x, y)` of the stance foot among their coordinates: `x`
//! along the slope (downhill positive), `y` normal to it (up). The stance foot is contact 0
//! (gap `y`, tangential coordinate `x`, friction `μ`); the swing foot is contact 1 (gap: its
//! height above the slope, tangential coordinate: its position along the slope). Angles are
//! measured from the slope normal, counter-clockwise positive... in P2's figures the wheel rolls
//! to the right (downhill): `θ` grows during a step.
//!
//! * **Rimless wheel** `q = (x, y, θ)`: `θ` is the angle of the stance spoke from the normal,
//!   the hub is at `(x + l sin θ, y + l cos θ)`; the swing spoke leads by `2π/n` and touches
//!   down at `θ = π/n`, after which the spokes swap roles and `θ → θ − 2π/n` (eq. 23).
//! * **Compass biped** `q = (θ₁, θ₂, x, y)`: the hip is at `(x + 2l sin θ₁, y + 2l cos θ₁)` and
//!   the swing foot at `hip + 2l (sin θ₂, −cos θ₂)`; heel strike at `θ₁ = θ₂ > 0`, after which
//!   the legs swap roles: `(θ₁, θ₂) → (−θ₂, −θ₁)`, `(θ̇₁, θ̇₂) → (−θ̇₂, −θ̇₁)` (at heel strike
//!   `θ₁ = θ₂`, so the angles map as P2's `θᵢ → −θᵢ`; the rates must swap with the legs) (eq. 35).
//!
//! The swing foot passes through the ground during the swing ("scuffing", ignored by P2 after
//! McGeer): it is [armed](crate::mechanics::ContactSystem::armed) only once the stance leg is past the normal
//! (`θ > 0`, `θ₁ > 0`), where its gap is positive. At heel strike the stance foot is
//! [released](crate::mechanics::ContactSystem::released_by): the impulse acts at the colliding foot only, with
//! P2's plastic law (sticking impact, or Chatterjee–Ruina's slipping impact with `e = e_t = 0`).

use nalgebra::{Matrix3, Matrix4, SVector, Vector3, Vector4};
use serde::Serialize;

use super::{ContactLaw, FixedSystem};

/// P2's rimless wheel (Section 3, Fig. 3.1a).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RimlessWheel {
    /// Number of spokes `n ≥ 4`.
    pub spokes: u32,
    /// Inertia ratio `κ = I_c/(m l²)` in `[0, 1]`.
    pub kappa: f64,
    /// Slope angle `α` (rad).
    pub slope: f64,
    /// Friction coefficient at the feet.
    pub mu: f64,
    /// Mass `m` (kg).
    pub mass: f64,
    /// Spoke length `l` (m).
    pub length: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
}

impl RimlessWheel {
    /// P2 Section 3's wheel: `n = 10`, `κ = 0.02`, `α = 10°`, `m = l = 1`, and gravity `1 + κ` so
    /// that the time unit is P2's `τ_c`.
    pub fn paper(mu: f64) -> Self {
        Self { spokes: 10, kappa: 0.02, slope: 10f64.to_radians(), mu, mass: 1.0, length: 1.0, gravity: 1.02 }
    }

    /// Half the angle between spokes, `π/n`.
    pub fn half_angle(&self) -> f64 {
        std::f64::consts::PI / self.spokes as f64
    }

    /// P2's characteristic time `√(l(1 + κ)/g)` (eq. 25 is its inverse).
    pub fn tau_c(&self) -> f64 {
        (self.length * (1.0 + self.kappa) / self.gravity).sqrt()
    }

    /// Position of the swing tip relative to the stance tip, `(Δx, Δy)`.
    fn swing_offset(&self, th: f64) -> (f64, f64) {
        let (l, b) = (self.length, th - 2.0 * self.half_angle());
        (l * (th.sin() - b.sin()), l * (th.cos() - b.cos()))
    }
}

crate::fixed_size_system!(RimlessWheel, 3);

impl FixedSystem<3> for RimlessWheel {
    fn contact_count(&self) -> usize {
        2
    }
    fn law(&self, _i: usize) -> ContactLaw {
        ContactLaw { mu: self.mu, restitution: 0.0 }
    }
    fn mass_matrix(&self, q: &SVector<f64, 3>) -> Matrix3<f64> {
        let (m, l, k) = (self.mass, self.length, self.kappa);
        let (s, c) = q[2].sin_cos();
        Matrix3::new(m, 0.0, m * l * c, 0.0, m, -m * l * s, m * l * c, -m * l * s, m * l * l * (1.0 + k))
    }
    fn bias(&self, _t: f64, q: &SVector<f64, 3>, v: &SVector<f64, 3>) -> SVector<f64, 3> {
        // −(H + G) of eq. (23).
        let (m, l, g, a) = (self.mass, self.length, self.gravity, self.slope);
        let (s, c) = q[2].sin_cos();
        let w2 = v[2] * v[2];
        let h = Vector3::new(-m * l * w2 * s, -m * l * w2 * c, 0.0);
        let gv = Vector3::new(-m * g * a.sin(), m * g * a.cos(), -m * g * l * (a + q[2]).sin());
        -(h + gv)
    }
    fn gap(&self, i: usize, q: &SVector<f64, 3>) -> f64 {
        match i {
            0 => q[1],
            _ => q[1] + self.swing_offset(q[2]).1,
        }
    }
    fn tangential(&self, i: usize, q: &SVector<f64, 3>) -> f64 {
        match i {
            0 => q[0],
            _ => q[0] + self.swing_offset(q[2]).0,
        }
    }
    fn normal_jacobian(&self, i: usize, q: &SVector<f64, 3>) -> SVector<f64, 3> {
        let (l, th) = (self.length, q[2]);
        match i {
            0 => Vector3::new(0.0, 1.0, 0.0),
            _ => Vector3::new(0.0, 1.0, -l * th.sin() + l * (th - 2.0 * self.half_angle()).sin()),
        }
    }
    fn tangent_jacobian(&self, i: usize, q: &SVector<f64, 3>) -> SVector<f64, 3> {
        let (l, th) = (self.length, q[2]);
        match i {
            0 => Vector3::new(1.0, 0.0, 0.0),
            _ => Vector3::new(1.0, 0.0, l * th.cos() - l * (th - 2.0 * self.half_angle()).cos()),
        }
    }
    fn jacobian_dot_v(&self, i: usize, q: &SVector<f64, 3>, v: &SVector<f64, 3>) -> (f64, f64) {
        if i == 0 {
            return (0.0, 0.0);
        }
        let (dx, dy) = self.swing_offset(q[2]);
        let w2 = v[2] * v[2];
        (-dy * w2, -dx * w2)
    }
    fn potential(&self, q: &SVector<f64, 3>) -> Option<f64> {
        let (m, l, g, a) = (self.mass, self.length, self.gravity, self.slope);
        Some(m * g * (q[1] * a.cos() - q[0] * a.sin() + l * (a + q[2]).cos()))
    }
    fn coordinate_scale(&self) -> SVector<f64, 3> {
        Vector3::new(self.length, self.length, 1.0)
    }
    fn length_scale(&self) -> f64 {
        self.length
    }
    fn time_scale(&self) -> f64 {
        self.tau_c()
    }
    fn armed(&self, i: usize, q: &SVector<f64, 3>) -> bool {
        i == 0 || q[2] > 0.0
    }
    fn released_by(&self, i: usize, colliding: &[usize]) -> bool {
        i == 0 && colliding.contains(&1)
    }
    fn relabel(
        &self,
        contact: usize,
        q: &SVector<f64, 3>,
        v: &SVector<f64, 3>,
    ) -> Option<(SVector<f64, 3>, SVector<f64, 3>)> {
        if contact != 1 {
            return None;
        }
        let qn = Vector3::new(self.tangential(1, q), self.gap(1, q), q[2] - 2.0 * self.half_angle());
        let vn = Vector3::new(self.tangent_jacobian(1, q).dot(v), self.normal_jacobian(1, q).dot(v), v[2]);
        Some((qn, vn))
    }
}

/// `(sin α, cos α)`, remembered per thread for the last slope `α` (keyed by its exact bits): the
/// biped's bias is evaluated millions of times with the same slope, and this saves a third of
/// its trigonometric calls (about 4 % of a step). A pure function of `α`: the test
/// `slope_trig_does_not_depend_on_call_order` checks the values bit for bit.
fn slope_trig(alpha: f64) -> (f64, f64) {
    use std::cell::Cell;
    thread_local! {
        static LAST: Cell<(u64, f64, f64)> = const { Cell::new((u64::MAX, f64::NAN, f64::NAN)) };
    }
    LAST.with(|c| {
        let (bits, s, co) = c.get();
        if bits == alpha.to_bits() {
            (s, co)
        } else {
            let (s, co) = alpha.sin_cos();
            c.set((alpha.to_bits(), s, co));
            (s, co)
        }
    })
}

/// P2's compass biped (Section 4, Fig. 4.1a).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompassBiped {
    /// Half the leg length `l` (m): legs are `2l` long, their centres of mass at `l`.
    pub l: f64,
    /// Leg mass `m` (kg).
    pub mass: f64,
    /// Hip mass `m_h` (kg).
    pub hip_mass: f64,
    /// Leg moment of inertia about its centre of mass `I_c` (kg·m²).
    pub inertia: f64,
    /// Slope angle `α` (rad).
    pub slope: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
    /// Friction coefficient at the feet.
    pub mu: f64,
}

impl CompassBiped {
    /// P2's parameters: `l = 0.8`, `m = 4`, `m_h = 2`, `α = 1°`, `I_c = 0`, `g = 9.8`.
    pub fn paper(mu: f64) -> Self {
        Self { l: 0.8, mass: 4.0, hip_mass: 2.0, inertia: 0.0, slope: 1f64.to_radians(), gravity: 9.8, mu }
    }
}

crate::fixed_size_system!(CompassBiped, 4);

impl FixedSystem<4> for CompassBiped {
    fn contact_count(&self) -> usize {
        2
    }
    fn law(&self, _i: usize) -> ContactLaw {
        ContactLaw { mu: self.mu, restitution: 0.0 }
    }
    fn mass_matrix(&self, q: &SVector<f64, 4>) -> Matrix4<f64> {
        let (l, m, mh, ic) = (self.l, self.mass, self.hip_mass, self.inertia);
        let (s1, c1) = q[0].sin_cos();
        let (s2, c2) = q[1].sin_cos();
        let c12 = c1 * c2 - s1 * s2;
        let a = (3.0 * m + 2.0 * mh) * l;
        let mt = 2.0 * m + mh;
        Matrix4::new(
            ic + (5.0 * m + 4.0 * mh) * l * l,
            2.0 * m * l * l * c12,
            a * c1,
            -a * s1,
            2.0 * m * l * l * c12,
            ic + m * l * l,
            m * l * c2,
            m * l * s2,
            a * c1,
            m * l * c2,
            mt,
            0.0,
            -a * s1,
            m * l * s2,
            0.0,
            mt,
        )
    }
    fn bias(&self, _t: f64, q: &SVector<f64, 4>, v: &SVector<f64, 4>) -> SVector<f64, 4> {
        // −(H + G) of eq. (35), with the sums of angles expanded (fewer trigonometric calls).
        let (l, m, mh, g) = (self.l, self.mass, self.hip_mass, self.gravity);
        let (s1, c1) = q[0].sin_cos();
        let (s2, c2) = q[1].sin_cos();
        let (sa, ca) = slope_trig(self.slope);
        let s12 = s1 * c2 + c1 * s2;
        let (w1, w2) = (v[0] * v[0], v[1] * v[1]);
        let a = (3.0 * m + 2.0 * mh) * l;
        let h = Vector4::new(
            -2.0 * m * l * l * s12 * w2,
            -2.0 * m * l * l * s12 * w1,
            -a * s1 * w1 - m * l * s2 * w2,
            -a * c1 * w1 + m * l * c2 * w2,
        );
        let gv = g * Vector4::new(
            -a * (s1 * ca + c1 * sa),
            -m * l * (sa * c2 - ca * s2),
            -(2.0 * m + mh) * sa,
            (2.0 * m + mh) * ca,
        );
        -(h + gv)
    }
    fn gap(&self, i: usize, q: &SVector<f64, 4>) -> f64 {
        match i {
            0 => q[3],
            _ => q[3] + 2.0 * self.l * (q[0].cos() - q[1].cos()),
        }
    }
    fn tangential(&self, i: usize, q: &SVector<f64, 4>) -> f64 {
        match i {
            0 => q[2],
            _ => q[2] + 2.0 * self.l * (q[0].sin() + q[1].sin()),
        }
    }
    fn normal_jacobian(&self, i: usize, q: &SVector<f64, 4>) -> SVector<f64, 4> {
        match i {
            0 => Vector4::new(0.0, 0.0, 0.0, 1.0),
            _ => Vector4::new(-2.0 * self.l * q[0].sin(), 2.0 * self.l * q[1].sin(), 0.0, 1.0),
        }
    }
    fn tangent_jacobian(&self, i: usize, q: &SVector<f64, 4>) -> SVector<f64, 4> {
        match i {
            0 => Vector4::new(0.0, 0.0, 1.0, 0.0),
            _ => Vector4::new(2.0 * self.l * q[0].cos(), 2.0 * self.l * q[1].cos(), 1.0, 0.0),
        }
    }
    fn jacobian_dot_v(&self, i: usize, q: &SVector<f64, 4>, v: &SVector<f64, 4>) -> (f64, f64) {
        if i == 0 {
            return (0.0, 0.0);
        }
        let l2 = 2.0 * self.l;
        let (w1, w2) = (v[0] * v[0], v[1] * v[1]);
        (-l2 * q[0].cos() * w1 + l2 * q[1].cos() * w2, -l2 * q[0].sin() * w1 - l2 * q[1].sin() * w2)
    }
    fn potential(&self, q: &SVector<f64, 4>) -> Option<f64> {
        // Heights above the slope in the world frame: stance leg centre, hip, swing leg centre.
        let (l, m, mh, g, al) = (self.l, self.mass, self.hip_mass, self.gravity, self.slope);
        let height = |x: f64, y: f64| y * al.cos() - x * al.sin();
        let (x, y) = (q[2], q[3]);
        let (s1, c1) = q[0].sin_cos();
        let (s2, c2) = q[1].sin_cos();
        let stance = height(x + l * s1, y + l * c1);
        let hip = height(x + 2.0 * l * s1, y + 2.0 * l * c1);
        let swing = height(x + 2.0 * l * s1 + l * s2, y + 2.0 * l * c1 - l * c2);
        Some(g * (m * stance + mh * hip + m * swing))
    }
    fn coordinate_scale(&self) -> SVector<f64, 4> {
        Vector4::new(1.0, 1.0, 2.0 * self.l, 2.0 * self.l)
    }
    fn length_scale(&self) -> f64 {
        2.0 * self.l
    }
    fn time_scale(&self) -> f64 {
        (2.0 * self.l / self.gravity).sqrt()
    }
    fn armed(&self, i: usize, q: &SVector<f64, 4>) -> bool {
        i == 0 || q[0] > 0.0
    }
    fn released_by(&self, i: usize, colliding: &[usize]) -> bool {
        i == 0 && colliding.contains(&1)
    }
    fn relabel(
        &self,
        contact: usize,
        q: &SVector<f64, 4>,
        v: &SVector<f64, 4>,
    ) -> Option<(SVector<f64, 4>, SVector<f64, 4>)> {
        if contact != 1 {
            return None;
        }
        let qn = Vector4::new(-q[1], -q[0], self.tangential(1, q), self.gap(1, q));
        let vn = Vector4::new(-v[1], -v[0], self.tangent_jacobian(1, q).dot(v), self.normal_jacobian(1, q).dot(v));
        Some((qn, vn))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::check::check_system;

    #[test]
    fn slope_trig_does_not_depend_on_call_order() {
        let slopes = [0.0, 1f64.to_radians(), -0.3, 1f64.to_radians(), 0.7, 0.7, -0.0, 0.0];
        for (k, &a) in slopes.iter().enumerate() {
            let (s, c) = slope_trig(a);
            let (s0, c0) = a.sin_cos();
            assert_eq!((s.to_bits(), c.to_bits()), (s0.to_bits(), c0.to_bits()), "call {k}, slope {a}");
        }
    }

    fn wheel() -> RimlessWheel {
        RimlessWheel {
            spokes: 10,
            kappa: 0.02,
            slope: 10f64.to_radians(),
            mu: 0.35,
            mass: 1.3,
            length: 0.9,
            gravity: 9.81,
        }
    }

    #[test]
    fn both_walkers_pass_the_finite_difference_checks() {
        let w = wheel();
        for (q, v) in [([0.1, 0.02, -0.2], [0.3, -0.1, 0.7]), ([-0.3, 0.0, 0.25], [0.0, 0.2, -0.4])] {
            let r = check_system(
                &w,
                0.0,
                &nalgebra::DVector::from_column_slice(&q),
                &nalgebra::DVector::from_column_slice(&v),
            );
            assert!(r.is_empty(), "{r:?}");
        }
        let cb = CompassBiped { inertia: 0.05, ..CompassBiped::paper(0.7) };
        for (q, v) in
            [([-0.15, 0.3, 0.1, 0.02], [0.7, -0.5, 0.2, -0.1]), ([0.2, -0.1, 0.0, 0.0], [-0.3, 1.1, 0.0, 0.4])]
        {
            let r = check_system(
                &cb,
                0.0,
                &nalgebra::DVector::from_column_slice(&q),
                &nalgebra::DVector::from_column_slice(&v),
            );
            assert!(r.is_empty(), "{r:?}");
        }
    }

    #[test]
    fn swing_foot_touches_down_at_heel_strike() {
        let w = wheel();
        let q = Vector3::new(0.0, 0.0, w.half_angle());
        assert!(w.gap(1, &q).abs() < 1e-15);
        // P2's W̃ at impact: (1, 0, 0) and (0, 1, −2l sin(π/n)).
        let wt = w.tangent_jacobian(1, &q);
        let wn = w.normal_jacobian(1, &q);
        assert!(wt[2].abs() < 1e-15 && (wn[2] + 2.0 * w.length * w.half_angle().sin()).abs() < 1e-15);
        let cb = CompassBiped::paper(0.7);
        let q = Vector4::new(0.148, 0.148, 0.0, 0.0);
        assert!(cb.gap(1, &q).abs() < 1e-15 && cb.armed(1, &q));
        let (qn, _) = cb.relabel(1, &q, &Vector4::zeros()).unwrap();
        assert!((qn[0] + 0.148).abs() < 1e-15 && (qn[2] - 4.0 * 0.8 * 0.148f64.sin()).abs() < 1e-12);
    }
}
