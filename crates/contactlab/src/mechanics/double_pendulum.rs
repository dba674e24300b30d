//! The double pendulum with a mechanical stop of P3 (Or & Ames, Section 5, Fig. 2a): a model of a
//! leg with a passive knee that locks straight.
//!
//! Two uniform rigid links (masses `m₁, m₂`, lengths `L₁, L₂`) hang from a fixed revolute joint
//! (the hip) and are joined by a second one (the knee). Coordinates `q = (θ₁, θ₂)`: `θ₁` is the
//! angle of the upper link from the downward vertical, `θ₂` the angle of the lower link relative
//! to the upper one, both counter-clockwise positive (radians). The stop is the unilateral
//! constraint `h(q) = θ₂ ≥ 0` (the knee cannot over-extend), frictionless, with Newton's
//! restitution `e` (P3, eq. 3). Since `h` is a coordinate, `q = (z, h)` with `z = θ₁` is already
//! in the form P3 assumes from eq. (7) on.
//!
//! ```text
//!   M₁₁ = m₁L₁²/3 + m₂(L₁² + L₂²/3 + L₁L₂ cos θ₂),  M₁₂ = m₂(3L₁L₂ cos θ₂ + 2L₂²)/6,  M₂₂ = m₂L₂²/3,
//!   V   = −(m₁L₁/2 + m₂L₁) g cos θ₁ − (m₂L₂/2) g cos(θ₁ + θ₂),
//! ```
//!
//! and the optional PD torque on the hip `u₁ = −k₁(θ₁ − θ₁ₑ) − c₁θ̇₁` (`c₁ < 0` injects energy).
//! The equations of motion are `M q̈ = −C(q, q̇) − ∂V/∂q + (u₁, 0) + (0, λ)`, with the Coriolis
//! and centripetal terms `C = β sin θ₂ (−(2θ̇₁θ̇₂ + θ̇₂²), θ̇₁²)`, `β = m₂L₁L₂/2`.

use nalgebra::{Matrix2, SVector, Vector2};
use serde::Serialize;

use super::{ContactLaw, FixedSystem};

/// The PD law on the hip joint, `u₁ = −k₁(θ₁ − θ₁ₑ) − c₁θ̇₁` (N·m).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HipControl {
    /// Stiffness `k₁` (N·m/rad).
    pub k1: f64,
    /// Set point `θ₁ₑ` (rad).
    pub theta1e: f64,
    /// Damping `c₁` (N·m·s/rad); negative values inject energy.
    pub c1: f64,
}

/// The double pendulum with a stop on the knee (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DoublePendulumStop {
    /// Mass of the upper link `m₁` (kg).
    pub m1: f64,
    /// Mass of the lower link `m₂` (kg).
    pub m2: f64,
    /// Length of the upper link `L₁` (m).
    pub l1: f64,
    /// Length of the lower link `L₂` (m).
    pub l2: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
    /// Coefficient of restitution of the stop, `e ∈ [0, 1]`.
    pub e: f64,
    /// The hip torque, if any.
    pub control: Option<HipControl>,
}

impl DoublePendulumStop {
    /// P3's parameters `m₁ = m₂ = L₁ = L₂ = g = 1`, uncontrolled.
    pub fn paper(e: f64) -> Self {
        Self { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, gravity: 1.0, e, control: None }
    }

    /// P3's PD law `k₁ = 0.5, θ₁ₑ = π/9, c₁ = −0.01`.
    pub fn paper_controlled(e: f64) -> Self {
        Self { control: Some(HipControl { k1: 0.5, theta1e: std::f64::consts::PI / 9.0, c1: -0.01 }), ..Self::paper(e) }
    }

    /// The same system with another coefficient of restitution.
    pub fn with_e(&self, e: f64) -> Self {
        Self { e, ..*self }
    }

    /// `β = m₂L₁L₂/2`.
    fn beta(&self) -> f64 {
        0.5 * self.m2 * self.l1 * self.l2
    }

    /// The potential energy of gravity.
    pub fn gravity_potential(&self, q: &Vector2<f64>) -> f64 {
        let g = self.gravity;
        -(0.5 * self.m1 + self.m2) * self.l1 * g * q[0].cos() - 0.5 * self.m2 * self.l2 * g * (q[0] + q[1]).cos()
    }

    /// The same system as a planar multibody tree: the thigh and the shank hanging from the hip
    /// (uniform links, centres of mass at mid-length), the knee stop a joint limit `θ₂ ≥ 0`, the
    /// hip's PD law a joint spring and damper. Its dynamics are computed
    /// ([`super::multibody`]), not derived by hand: the check that both agree.
    pub fn as_multibody(&self) -> Result<super::multibody_system::MultibodySystem, crate::Error> {
        use super::multibody::{Body, Joint, Multibody};
        use super::multibody_system::{Constraint, Contact, JointSpring, MultibodySystem};
        let link = |name: &str, parent, origin: Vector2<f64>, m: f64, l: f64| Body {
            name: name.into(),
            parent,
            joint: Joint::Revolute { axis: 1.0 },
            origin,
            origin_angle: 0.0,
            mass: m,
            inertia: m * l * l / 12.0,
            com: Vector2::new(0.0, -0.5 * l),
        };
        let tree = Multibody::new(
            vec![
                link("thigh", None, Vector2::zeros(), self.m1, self.l1),
                link("shank", Some(0), Vector2::new(0.0, -self.l1), self.m2, self.l2),
            ],
            self.gravity,
            0.0,
        )?;
        let stop = Contact::new(
            Constraint::JointLimit { coordinate: 1, lower: true, bound: 0.0 },
            ContactLaw { mu: 0.0, restitution: self.e },
        );
        let springs = self.control.map(|c| JointSpring::constant(0, c.k1, c.theta1e, c.c1)).into_iter().collect();
        MultibodySystem::new(tree, vec![stop], springs)
    }

    /// The hip torque `u₁` at `(θ₁, θ̇₁)`.
    pub fn torque(&self, q: &Vector2<f64>, v: &Vector2<f64>) -> f64 {
        self.control.map_or(0.0, |c| -c.k1 * (q[0] - c.theta1e) - c.c1 * v[0])
    }
}

crate::fixed_size_system!(DoublePendulumStop, 2);

impl FixedSystem<2> for DoublePendulumStop {
    fn contact_count(&self) -> usize {
        1
    }

    fn law(&self, _i: usize) -> ContactLaw {
        ContactLaw { mu: 0.0, restitution: self.e }
    }

    fn mass_matrix(&self, q: &SVector<f64, 2>) -> Matrix2<f64> {
        let (m1, m2, l1, l2) = (self.m1, self.m2, self.l1, self.l2);
        let c = q[1].cos();
        let m11 = m1 * l1 * l1 / 3.0 + m2 * (l1 * l1 + l2 * l2 / 3.0 + l1 * l2 * c);
        let m12 = m2 * (3.0 * l1 * l2 * c + 2.0 * l2 * l2) / 6.0;
        let m22 = m2 * l2 * l2 / 3.0;
        Matrix2::new(m11, m12, m12, m22)
    }

    fn bias(&self, _t: f64, q: &SVector<f64, 2>, v: &SVector<f64, 2>) -> SVector<f64, 2> {
        let g = self.gravity;
        let (s2, s12) = (q[1].sin(), (q[0] + q[1]).sin());
        let b = self.beta();
        let coriolis = Vector2::new(-b * s2 * (2.0 * v[0] * v[1] + v[1] * v[1]), b * s2 * v[0] * v[0]);
        let dv = Vector2::new(
            (0.5 * self.m1 + self.m2) * self.l1 * g * q[0].sin() + 0.5 * self.m2 * self.l2 * g * s12,
            0.5 * self.m2 * self.l2 * g * s12,
        );
        Vector2::new(self.torque(q, v), 0.0) - coriolis - dv
    }

    fn gap(&self, _i: usize, q: &SVector<f64, 2>) -> f64 {
        q[1]
    }

    fn normal_jacobian(&self, _i: usize, _q: &SVector<f64, 2>) -> SVector<f64, 2> {
        Vector2::new(0.0, 1.0)
    }

    fn jacobian_dot_v(&self, _i: usize, _q: &SVector<f64, 2>, _v: &SVector<f64, 2>) -> (f64, f64) {
        (0.0, 0.0)
    }

    fn potential(&self, q: &SVector<f64, 2>) -> Option<f64> {
        // Conservative unless the PD law has damping: the spring part has a potential.
        match self.control {
            None => Some(self.gravity_potential(q)),
            Some(c) if c.c1 == 0.0 => Some(self.gravity_potential(q) + 0.5 * c.k1 * (q[0] - c.theta1e).powi(2)),
            Some(_) => None,
        }
    }

    fn time_scale(&self) -> f64 {
        ((self.l1 + self.l2) / self.gravity).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::check::check_system;

    #[test]
    fn passes_the_finite_difference_checks() {
        // The energy balance checks M, the Coriolis terms and ∂V/∂q together (conservative
        // cases: no control, and the PD law without damping).
        let spring = HipControl { k1: 0.5, theta1e: 0.3, c1: 0.0 };
        for control in [None, Some(spring)] {
            let sys = DoublePendulumStop { m1: 1.3, m2: 0.7, l1: 0.9, l2: 1.1, gravity: 9.81, e: 0.5, control };
            assert!(sys.potential(&Vector2::zeros()).is_some());
            for (q, v) in [([-0.3, 0.2], [0.4, -1.1]), ([0.7, 0.0], [-0.2, 0.3])] {
                let r = check_system(
                    &sys,
                    0.0,
                    &nalgebra::DVector::from_column_slice(&q),
                    &nalgebra::DVector::from_column_slice(&v),
                );
                assert!(r.is_empty(), "{r:?}");
            }
        }
        // A wrong Coriolis sign is caught.
        struct Wrong(DoublePendulumStop);
        crate::fixed_size_system!(Wrong, 2);

        impl FixedSystem<2> for Wrong {
            fn contact_count(&self) -> usize {
                1
            }
            fn law(&self, i: usize) -> ContactLaw {
                self.0.law(i)
            }
            fn mass_matrix(&self, q: &SVector<f64, 2>) -> Matrix2<f64> {
                self.0.mass_matrix(q)
            }
            fn bias(&self, t: f64, q: &SVector<f64, 2>, v: &SVector<f64, 2>) -> SVector<f64, 2> {
                let b = self.0.beta() * q[1].sin();
                self.0.bias(t, q, v) + 2.0 * Vector2::new(-b * (2.0 * v[0] * v[1] + v[1] * v[1]), b * v[0] * v[0])
            }
            fn gap(&self, i: usize, q: &SVector<f64, 2>) -> f64 {
                self.0.gap(i, q)
            }
            fn normal_jacobian(&self, i: usize, q: &SVector<f64, 2>) -> SVector<f64, 2> {
                self.0.normal_jacobian(i, q)
            }
            fn jacobian_dot_v(&self, i: usize, q: &SVector<f64, 2>, v: &SVector<f64, 2>) -> (f64, f64) {
                self.0.jacobian_dot_v(i, q, v)
            }
            fn potential(&self, q: &SVector<f64, 2>) -> Option<f64> {
                self.0.potential(q)
            }
        }
        let r = check_system(
            &Wrong(DoublePendulumStop::paper(0.0)),
            0.0,
            &nalgebra::dvector![0.2, 0.4],
            &nalgebra::dvector![1.0, -0.5],
        );
        assert!(!r.is_empty());
    }

    #[test]
    fn straight_leg_is_a_rigid_rod_of_two_links() {
        // With θ₂ = 0 locked the pendulum is one rod: I_hip = m₁L₁²/3 + m₂(L₁² + L₁L₂ + L₂²/3).
        let p = DoublePendulumStop::paper(0.0);
        let m = p.mass_matrix(&Vector2::zeros());
        let i_hip = 1.0 / 3.0 + (1.0 + 1.0 + 1.0 / 3.0);
        assert!((m[(0, 0)] - i_hip).abs() < 1e-15);
    }
}
