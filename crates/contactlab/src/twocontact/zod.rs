//! Zero-order dynamics (P1, §III-A and eq. 16) in contact space.
//!
//! At the equilibrium `s = ṡ = 0` the contact-space accelerations `a = (z̈₁, z̈₂, ẍ₁, ẍ₂)` are
//! affine in the contact forces `f = (f₁ᶻ, f₂ᶻ, f₁ˣ, f₂ˣ)`:
//!
//! ```text
//!     a = a₀ + A f,    A = J 𝓜⁻¹ Jᵀ,   a₀ = J 𝓜⁻¹ F_ex,
//! ```
//!
//! with `J` the 4×3 Jacobian of `(z₁, z₂, x₁, x₂)` with respect to `(x, z, θ)` at `θ = 0`. `A` has
//! rank 3: the four contact coordinates are tied by rigid kinematics, `x₁ = e·(z₁, z₂, x₂)`; in
//! particular with both contacts sustained `ẋ₁ = k ẋ₂`, `k = e₃`, which decides which double-slip
//! modes are admissible. P1's generalized coordinates `q = (z₁, z₂, x₂)` are rows 0, 1, 3.

use nalgebra::{DMatrix, DVector, Matrix3, Matrix4, Matrix4x3, Vector3, Vector4};

use crate::mechanics::contact_space::contact_space;

use super::TwoContact;
use crate::Error;

/// The contact geometry is singular when `|det T|` is below `SINGULAR_GEOMETRY` times the
/// product of `T`'s columns' largest entries (`T`: the normal rows of both points and the
/// tangent row of the second; its θ column is in metres, the others dimensionless).
pub const SINGULAR_GEOMETRY: f64 = 1e-9;

/// Index of `z₁` (and `f₁ᶻ`) in contact-space vectors.
pub const Z1: usize = 0;
/// Index of `z₂` (and `f₂ᶻ`).
pub const Z2: usize = 1;
/// Index of `x₁` (and `f₁ˣ`).
pub const X1: usize = 2;
/// Index of `x₂` (and `f₂ˣ`).
pub const X2: usize = 3;

/// The constant ZOD of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Zod {
    /// Delassus matrix `A` (rows `(z̈₁, z̈₂, ẍ₁, ẍ₂)`, columns `(f₁ᶻ, f₂ᶻ, f₁ˣ, f₂ˣ)`), units 1/kg.
    pub a: Matrix4<f64>,
    /// Force-free contact accelerations `a₀` (m/s²).
    pub a0: Vector4<f64>,
    /// Friction coefficients.
    pub mu: [f64; 2],
    /// Jacobian `J` of `(z₁, z₂, x₁, x₂)` with respect to `(x, z, θ)`.
    pub j: Matrix4x3<f64>,
    /// `𝓜⁻¹`.
    pub minv: Matrix3<f64>,
    /// `x₁ = e·(z₁, z₂, x₂)` (rigid kinematics).
    pub e: Vector3<f64>,
    /// Applied generalized force `F = (F_x, F_z, τ_ex)`.
    pub applied: Vector3<f64>,
    /// Mass matrix `𝓜`.
    pub mass: Matrix3<f64>,
    /// `J (JᵀJ)⁻¹`: `x = −J(JᵀJ)⁻¹g` is the minimum-norm solution of `Jᵀx = −g`.
    pub jt_pinv: Matrix4x3<f64>,
    /// Unit vector spanning the null space of `Jᵀ` (internal contact forces).
    pub null: Vector4<f64>,
}

impl Zod {
    /// Builds the ZOD; `Err` for singular geometry (`(z₁, z₂, x₂)` not independent).
    pub fn new(p: &TwoContact) -> Result<Self, Error> {
        Self::at_state(p, &Vector3::zeros(), &Vector3::zeros())
    }

    /// The same contact-space description at any state `(s, ṡ)` of the full nonlinear model:
    /// `J(s)`, `A(s) = J𝓜⁻¹Jᵀ` and `a₀ = J𝓜⁻¹F + ẆṠ` (with the velocity-product terms), so that
    /// the mode and impact machinery applies unchanged. At `s = ṡ = 0` this is the ZOD.
    pub fn at_state(p: &TwoContact, s0: &Vector3<f64>, v0: &Vector3<f64>) -> Result<Self, Error> {
        let body = p.body();
        let (wn1, wt1) = body.jacobian(0, s0);
        let (wn2, wt2) = body.jacobian(1, s0);
        let j = Matrix4x3::from_rows(&[wn1.transpose(), wn2.transpose(), wt1.transpose(), wt2.transpose()]);
        let m = body.mass_matrix();
        let minv = Matrix3::from_diagonal(&Vector3::new(1.0 / m[(0, 0)], 1.0 / m[(1, 1)], 1.0 / m[(2, 2)]));
        // The shared contact-space computation (P4's A and b are the same): W = Jᵀ.
        let cs = contact_space(
            &DMatrix::from_column_slice(3, 3, m.as_slice()),
            &DMatrix::from_column_slice(3, 4, j.transpose().as_slice()),
            &DVector::from_column_slice(body.applied().as_slice()),
        )
        .ok_or_else(|| Error::model("mass", "the mass matrix is not positive definite (mass and rho must be > 0)"))?;
        let a = Matrix4::from_column_slice(cs.a.as_slice());
        let (c1n, c1t) = body.jacobian_dot_v(0, s0, v0);
        let (c2n, c2t) = body.jacobian_dot_v(1, s0, v0);
        let a0 = Vector4::from_column_slice(cs.b.as_slice()) + Vector4::new(c1n, c2n, c1t, c2t);
        let t = Matrix3::from_rows(&[wn1.transpose(), wn2.transpose(), wt2.transpose()]);
        // Columns in their own units (the θ column in m): judged relative to each column's
        // largest entry, so that the verdict does not depend on the unit of length.
        let scale: f64 = (0..3).map(|c| t.column(c).amax().max(crate::numeric::SCALE_FLOOR)).product();
        let det = t.determinant();
        if det.abs() < SINGULAR_GEOMETRY * scale {
            return Err(Error::model(
                "geometry",
                "singular: z1, z2 and x2 are not independent (e.g. l1 = l2 with parallel supports)",
            ));
        }
        let tinv = t.try_inverse().ok_or_else(|| {
            Error::model("geometry", "singular: the contact normals and tangents are not independent")
        })?;
        let e = (wt1.transpose() * tinv).transpose();
        let jtj_inv = (j.transpose() * j).try_inverse().ok_or_else(|| {
            Error::model("geometry", "singular: the contact normals and tangents are not independent")
        })?;
        let jt = j.transpose();
        let minor = |skip: usize| {
            let cols: Vec<usize> = (0..4).filter(|&c| c != skip).collect();
            Matrix3::from_fn(|r, c| jt[(r, cols[c])]).determinant()
        };
        let null = Vector4::new(minor(0), -minor(1), minor(2), -minor(3));
        let null = null / null.norm().max(crate::numeric::SCALE_FLOOR);
        Ok(Zod { a, a0, mu: p.mu(), j, minv, e, applied: body.applied(), mass: m, jt_pinv: j * jtj_inv, null })
    }

    /// `ẋ₁ = k ẋ₂` when both contacts are sustained.
    pub fn k(&self) -> f64 {
        self.e[2]
    }

    /// Contact-space accelerations for contact forces `f`.
    pub fn accel(&self, f: &Vector4<f64>) -> Vector4<f64> {
        self.a0 + self.a * f
    }

    /// Generalized acceleration `s̈ = 𝓜⁻¹(F + Jᵀ f)` in `(x, z, θ)`.
    pub fn body_accel(&self, f: &Vector4<f64>, applied: &Vector3<f64>) -> Vector3<f64> {
        self.minv * (applied + self.j.transpose() * f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> TwoContact {
        TwoContact {
            mass: 0.6,
            rho: 0.143,
            h: 0.1341,
            l1: -0.0512,
            l2: 0.1688,
            phi1: 0.15,
            phi2: -0.1,
            mu1: 0.315,
            mu2: 1.0,
            force: 0.6 * 9.81,
            alpha: 25f64.to_radians(),
            torque: 0.03,
            enclosure: None,
        }
    }

    #[test]
    fn matches_p1_equation_16() {
        // m q̈ of eq. (16), written out literally, against rows (z1, z2, x2) of a0 + A f.
        let p = config();
        let z = Zod::new(&p).unwrap();
        let phi = [p.phi1, p.phi2];
        let l = [p.l1, p.l2];
        let eta: Vec<f64> = (0..2).map(|i| l[i] * phi[i].cos() - p.h * phi[i].sin()).collect();
        let xi: Vec<f64> = (0..2).map(|i| p.h * phi[i].cos() + l[i] * phi[i].sin()).collect();
        let r2 = p.rho * p.rho;
        let f = Vector4::new(1.3, 0.7, -0.2, 0.4); // (f1z, f2z, f1x, f2x)
        let (fz, fx) = ([f[0], f[1]], [f[2], f[3]]);
        let mut mq = [
            -p.force * (p.alpha - phi[0]).cos() + p.torque / r2 * eta[0],
            -p.force * (p.alpha - phi[1]).cos() + p.torque / r2 * eta[1],
            p.force * (p.alpha - phi[1]).sin() + p.torque / r2 * xi[1],
        ];
        for i in 0..2 {
            mq[0] += fz[i] * ((phi[0] - phi[i]).cos() + eta[i] * eta[0] / r2)
                + fx[i] * ((phi[i] - phi[0]).sin() + xi[i] * eta[0] / r2);
            mq[1] += fz[i] * ((phi[1] - phi[i]).cos() + eta[i] * eta[1] / r2)
                + fx[i] * ((phi[i] - phi[1]).sin() + xi[i] * eta[1] / r2);
            mq[2] += fz[i] * ((phi[1] - phi[i]).sin() + eta[i] * xi[1] / r2)
                + fx[i] * ((phi[i] - phi[1]).cos() + xi[i] * xi[1] / r2);
        }
        let a = z.accel(&f);
        for (row, k) in [(Z1, 0), (Z2, 1), (X2, 2)] {
            assert!((a[row] * p.mass - mq[k]).abs() < 1e-12, "row {row}: {} vs {}", a[row] * p.mass, mq[k]);
        }
    }

    #[test]
    fn full_model_matches_p1_equation_15() {
        // m q̈ of eq. (15) at a rotated, spinning state, written out literally, against the
        // full model's contact-space accelerations a₀(s, ṡ) + A(s) f (rows z1, z2, x2).
        let p = config();
        let (theta, thetad) = (0.23, -1.7);
        let s = Vector3::new(0.01, -0.02, theta);
        let v = Vector3::new(0.3, 0.1, thetad);
        let z = Zod::at_state(&p, &s, &v).unwrap();
        let phi = [p.phi1, p.phi2];
        let l = [p.l1, p.l2];
        let eta: Vec<f64> = (0..2).map(|i| l[i] * phi[i].cos() - p.h * phi[i].sin()).collect();
        let xi: Vec<f64> = (0..2).map(|i| p.h * phi[i].cos() + l[i] * phi[i].sin()).collect();
        let zeta: Vec<f64> = (0..2).map(|i| xi[i] * theta.sin() + eta[i] * theta.cos()).collect();
        let psi: Vec<f64> = (0..2).map(|i| xi[i] * theta.cos() - eta[i] * theta.sin()).collect();
        let r2 = p.rho * p.rho;
        let f = Vector4::new(1.3, 0.7, -0.2, 0.4);
        let (fz, fx) = ([f[0], f[1]], [f[2], f[3]]);
        let m = p.mass;
        let mut mq = [
            -p.force * (p.alpha - phi[0]).cos() + p.torque / r2 * zeta[0] + m * thetad * thetad * psi[0],
            -p.force * (p.alpha - phi[1]).cos() + p.torque / r2 * zeta[1] + m * thetad * thetad * psi[1],
            p.force * (p.alpha - phi[1]).sin() + p.torque / r2 * psi[1] - m * thetad * thetad * zeta[1],
        ];
        for i in 0..2 {
            mq[0] += fz[i] * ((phi[0] - phi[i]).cos() + zeta[i] * zeta[0] / r2)
                + fx[i] * ((phi[i] - phi[0]).sin() + psi[i] * zeta[0] / r2);
            mq[1] += fz[i] * ((phi[1] - phi[i]).cos() + zeta[i] * zeta[1] / r2)
                + fx[i] * ((phi[i] - phi[1]).sin() + psi[i] * zeta[1] / r2);
            mq[2] += fz[i] * ((phi[1] - phi[i]).sin() + zeta[i] * psi[1] / r2)
                + fx[i] * ((phi[i] - phi[1]).cos() + psi[i] * psi[1] / r2);
        }
        let a = z.accel(&f);
        for (row, k) in [(Z1, 0), (Z2, 1), (X2, 2)] {
            assert!((a[row] * m - mq[k]).abs() < 1e-12, "row {row}: {} vs {}", a[row] * m, mq[k]);
        }
    }

    #[test]
    fn rigid_kinematics_ties_x1() {
        let z = Zod::new(&config()).unwrap();
        // For any body velocity v: ẋ1 = e·(ż1, ż2, ẋ2).
        let v = Vector3::new(0.3, -0.1, 2.0);
        let c = z.j * v;
        assert!((c[X1] - z.e.dot(&Vector3::new(c[Z1], c[Z2], c[X2]))).abs() < 1e-12);
        // A is symmetric PSD of rank 3.
        assert!((z.a - z.a.transpose()).abs().max() < 1e-12);
        assert!(z.a.determinant().abs() < 1e-9 * z.a.norm().powi(4));
    }

    #[test]
    fn slope_with_flat_supports_has_k_one() {
        // φ1 = φ2 = 0: both points slide along the same line, ẋ1 = ẋ2 when z1, z2 are held.
        let p = TwoContact { phi1: 0.0, phi2: 0.0, torque: 0.0, ..config() };
        assert!((Zod::new(&p).unwrap().k() - 1.0).abs() < 1e-12);
        let bad = TwoContact { l1: 0.1, l2: 0.1, phi1: 0.0, phi2: 0.0, ..config() };
        assert!(Zod::new(&bad).is_err());
    }
}
