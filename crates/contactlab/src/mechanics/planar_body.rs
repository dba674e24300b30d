//! A planar rigid body touching fixed straight supports at body points (P1, Fig. 1 and eq. 1).
//!
//! Coordinates `s = (x, z, θ)`: displacement of the centre of mass from its equilibrium position
//! in a fixed frame and the rotation angle (counter-clockwise). Body point `i` sits at the
//! body-frame vector `rᵢ` from the centre of mass; its support is the line through its
//! equilibrium position with inward unit normal `nᵢ = (−sin φᵢ, cos φᵢ)` and tangent
//! `tᵢ = (cos φᵢ, sin φᵢ)`. Then
//!
//! ```text
//!     zᵢ(s) = nᵢ·(r_c + (Rot θ − I) rᵢ),    xᵢ(s) = tᵢ·(r_c + (Rot θ − I) rᵢ).
//! ```
//!
//! With P1's parameters, `rᵢ = (lᵢ, −h)`, which gives `∂zᵢ/∂θ = ηᵢ = lᵢ cos φᵢ − h sin φᵢ` and
//! `∂xᵢ/∂θ = ξᵢ = h cos φᵢ + lᵢ sin φᵢ` at `θ = 0`, and eqs. (12)–(16) of P1. The external load is a
//! force of magnitude `f_ex` at angle `α` from the support normal direction, i.e.
//! `F = f_ex (sin α, −cos α)` (gravity on a slope of angle α when `φᵢ = 0`), plus a torque `τ_ex`.

use nalgebra::{Matrix3, SMatrix, SVector, Vector2, Vector3};

use super::{ContactLaw, FixedSystem};

/// One contact point of a [`PlanarBody`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyPoint {
    /// Body-frame vector from the centre of mass to the point (m).
    pub r: Vector2<f64>,
    /// Support normal angle `φ` (rad): normal `(−sin φ, cos φ)`, tangent `(cos φ, sin φ)`.
    pub phi: f64,
    /// Friction and restitution at this point.
    pub law: ContactLaw,
}

impl BodyPoint {
    /// Inward support normal `n`.
    pub fn normal(&self) -> Vector2<f64> {
        Vector2::new(-self.phi.sin(), self.phi.cos())
    }

    /// Support tangent `t` (direction of positive slip `x`).
    pub fn tangent(&self) -> Vector2<f64> {
        Vector2::new(self.phi.cos(), self.phi.sin())
    }
}

/// A planar rigid body with point contacts on fixed lines.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanarBody {
    /// Mass `m` (kg).
    pub mass: f64,
    /// Radius of gyration `ρ` (m).
    pub rho: f64,
    /// Contact points.
    pub points: Vec<BodyPoint>,
    /// External force (N) in the fixed frame.
    pub force: Vector2<f64>,
    /// External torque `τ_ex` (N·m).
    pub torque: f64,
}

fn rot(theta: f64) -> nalgebra::Matrix2<f64> {
    let (s, c) = theta.sin_cos();
    nalgebra::Matrix2::new(c, -s, s, c)
}

fn rot_prime(theta: f64) -> nalgebra::Matrix2<f64> {
    let (s, c) = theta.sin_cos();
    nalgebra::Matrix2::new(-s, -c, c, -s)
}

impl PlanarBody {
    /// Mass matrix `diag(m, m, mρ²)`.
    pub fn mass_matrix(&self) -> Matrix3<f64> {
        Matrix3::from_diagonal(&Vector3::new(self.mass, self.mass, self.mass * self.rho * self.rho))
    }

    /// Applied generalized force `(F_x, F_z, τ_ex)`.
    pub fn applied(&self) -> Vector3<f64> {
        Vector3::new(self.force.x, self.force.y, self.torque)
    }

    /// Displacement of point `i` from its equilibrium position.
    pub fn displacement(&self, i: usize, s: &Vector3<f64>) -> Vector2<f64> {
        let r = self.points[i].r;
        Vector2::new(s.x, s.y) + (rot(s.z) - nalgebra::Matrix2::identity()) * r
    }

    /// Normal gap `zᵢ(s)` and tangential displacement `xᵢ(s)`.
    pub fn gap_slip(&self, i: usize, s: &Vector3<f64>) -> (f64, f64) {
        let d = self.displacement(i, s);
        let p = &self.points[i];
        (p.normal().dot(&d), p.tangent().dot(&d))
    }

    /// Jacobian rows `(∂zᵢ/∂s, ∂xᵢ/∂s)` at `s`.
    pub fn jacobian(&self, i: usize, s: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
        let p = &self.points[i];
        let dr = rot_prime(s.z) * p.r;
        let (n, t) = (p.normal(), p.tangent());
        (Vector3::new(n.x, n.y, n.dot(&dr)), Vector3::new(t.x, t.y, t.dot(&dr)))
    }

    /// Velocity-product terms `(ẇ_nᵀṡ, ẇ_tᵀṡ)` of point `i`: `g̈ = wᵀs̈ + ẇᵀṡ`.
    pub fn jacobian_dot_v(&self, i: usize, s: &Vector3<f64>, v: &Vector3<f64>) -> (f64, f64) {
        let p = &self.points[i];
        // d/dt (Rot'(θ) r) θ̇ = Rot''(θ) r θ̇² = −Rot(θ) r θ̇².
        let acc = -(rot(s.z) * p.r) * v.z * v.z;
        (p.normal().dot(&acc), p.tangent().dot(&acc))
    }

    /// Generalized acceleration for given contact forces `(fᵢᶻ, fᵢˣ)` (eq. 1).
    pub fn acceleration(&self, s: &Vector3<f64>, forces: &[(f64, f64)]) -> Vector3<f64> {
        let mut q = self.applied();
        for (i, &(fz, fx)) in forces.iter().enumerate() {
            let (wn, wt) = self.jacobian(i, s);
            q += wn * fz + wt * fx;
        }
        let m = self.mass_matrix();
        Vector3::new(q.x / m[(0, 0)], q.y / m[(1, 1)], q.z / m[(2, 2)])
    }
}

impl PlanarBody {
    /// Largest distance of a contact point from the centre of mass (or `ρ`): the length scale.
    pub fn size(&self) -> f64 {
        self.points.iter().fold(self.rho, |a, p| a.max(p.r.norm()))
    }
}

crate::fixed_size_system!(PlanarBody, 3);

/// The body as a Lagrangian contact system in `s = (x, z, θ)`: constant mass matrix, so no
/// velocity-product terms in the bias; the velocity-product terms of the contacts are
/// [`PlanarBody::jacobian_dot_v`].
impl FixedSystem<3> for PlanarBody {
    fn contact_count(&self) -> usize {
        self.points.len()
    }
    fn law(&self, i: usize) -> ContactLaw {
        self.points[i].law
    }
    fn mass_matrix(&self, _q: &SVector<f64, 3>) -> SMatrix<f64, 3, 3> {
        PlanarBody::mass_matrix(self)
    }
    fn bias(&self, _t: f64, _q: &SVector<f64, 3>, _v: &SVector<f64, 3>) -> SVector<f64, 3> {
        self.applied()
    }
    fn gap(&self, i: usize, q: &SVector<f64, 3>) -> f64 {
        self.gap_slip(i, q).0
    }
    fn tangential(&self, i: usize, q: &SVector<f64, 3>) -> f64 {
        self.gap_slip(i, q).1
    }
    fn normal_jacobian(&self, i: usize, q: &SVector<f64, 3>) -> SVector<f64, 3> {
        self.jacobian(i, q).0
    }
    fn tangent_jacobian(&self, i: usize, q: &SVector<f64, 3>) -> SVector<f64, 3> {
        self.jacobian(i, q).1
    }
    fn jacobian_dot_v(&self, i: usize, q: &SVector<f64, 3>, v: &SVector<f64, 3>) -> (f64, f64) {
        PlanarBody::jacobian_dot_v(self, i, q, v)
    }
    fn potential(&self, q: &SVector<f64, 3>) -> Option<f64> {
        Some(-(self.force.x * q.x + self.force.y * q.y + self.torque * q.z))
    }
    fn coordinate_scale(&self) -> SVector<f64, 3> {
        let l = self.size();
        Vector3::new(l, l, 1.0)
    }
    fn length_scale(&self) -> f64 {
        self.size()
    }
    fn time_scale(&self) -> f64 {
        let a = self.force.norm() / self.mass + self.torque.abs() / (self.mass * self.size());
        if a > 0.0 {
            (self.size() / a).sqrt()
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> PlanarBody {
        PlanarBody {
            mass: 0.7,
            rho: 0.14,
            points: vec![
                BodyPoint { r: Vector2::new(-0.05, -0.13), phi: 0.1, law: ContactLaw { mu: 0.3, restitution: 0.0 } },
                BodyPoint { r: Vector2::new(0.17, -0.13), phi: -0.2, law: ContactLaw { mu: 0.5, restitution: 0.0 } },
            ],
            force: Vector2::new(0.3, -6.0),
            torque: 0.02,
        }
    }

    #[test]
    fn jacobian_matches_finite_differences() {
        let b = body();
        let s = Vector3::new(0.01, -0.02, 0.3);
        for i in 0..2 {
            let (wn, wt) = b.jacobian(i, &s);
            for k in 0..3 {
                let mut sp = s;
                let mut sm = s;
                sp[k] += 1e-6;
                sm[k] -= 1e-6;
                let (zp, xp) = b.gap_slip(i, &sp);
                let (zm, xm) = b.gap_slip(i, &sm);
                assert!(((zp - zm) / 2e-6 - wn[k]).abs() < 1e-8);
                assert!(((xp - xm) / 2e-6 - wt[k]).abs() < 1e-8);
            }
        }
    }

    #[test]
    fn jacobian_dot_matches_second_derivative() {
        // g(t) along s(t) = s0 + v t: g̈(0) = ẇᵀv when s̈ = 0.
        let b = body();
        let s0 = Vector3::new(0.0, 0.0, 0.2);
        let v = Vector3::new(0.1, -0.3, 1.7);
        let h = 1e-4;
        for i in 0..2 {
            let g = |t: f64| b.gap_slip(i, &(s0 + v * t));
            let (gm, g0, gp) = (g(-h), g(0.0), g(h));
            let (an, at) = b.jacobian_dot_v(i, &s0, &v);
            assert!(((gp.0 - 2.0 * g0.0 + gm.0) / (h * h) - an).abs() < 1e-5);
            assert!(((gp.1 - 2.0 * g0.1 + gm.1) / (h * h) - at).abs() < 1e-5);
        }
    }

    #[test]
    fn passes_the_contact_system_check() {
        let b = body();
        let q = nalgebra::dvector![0.01, -0.02, 0.3];
        let v = nalgebra::dvector![0.2, -0.1, 1.1];
        let bad = crate::mechanics::check::check_system(&b, 0.0, &q, &v);
        assert!(bad.is_empty(), "{bad:?}");
    }

    #[test]
    fn p1_eta_xi_at_equilibrium() {
        // rᵢ = (lᵢ, −h): ∂z/∂θ = l cos φ − h sin φ = η, ∂x/∂θ = h cos φ + l sin φ = ξ.
        let (l, h, phi) = (0.17, 0.13, -0.2);
        let law = ContactLaw { mu: 0.5, restitution: 0.0 };
        let p = PlanarBody { points: vec![BodyPoint { r: Vector2::new(l, -h), phi, law }], ..body() };
        let (wn, wt) = p.jacobian(0, &Vector3::zeros());
        assert!((wn.z - (l * phi.cos() - h * phi.sin())).abs() < 1e-15);
        assert!((wt.z - (h * phi.cos() + l * phi.sin())).abs() < 1e-15);
    }
}
