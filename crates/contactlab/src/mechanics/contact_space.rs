//! The contact-space (Delassus) description shared by every analysis.
//!
//! With the contact Jacobian `W` (one column per contact direction: `Wλ` is the generalized force
//! of the contact forces `λ`), the mass matrix `M` and the generalized forces `h`, the contact
//! accelerations are affine in the contact forces:
//!
//! ```text
//!     Wᵀq̈ = b + A λ,    A = WᵀM⁻¹W (the Delassus matrix),    b = WᵀM⁻¹h,
//! ```
//!
//! plus the velocity-product terms `ẇᵀq̇` of moving contacts, which the caller adds. P4's `A` and
//! `b` (eq. 1) and P1's zero-order dynamics (eq. 16) are this computation; `M⁻¹` is applied by a
//! Cholesky solve, never formed.

use nalgebra::{DMatrix, DVector};

/// `A = WᵀM⁻¹W` and `b = WᵀM⁻¹h`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactSpace {
    /// The Delassus matrix (symmetric positive semidefinite).
    pub a: DMatrix<f64>,
    /// The force-free contact accelerations.
    pub b: DVector<f64>,
}

/// The contact space of `(M, W, h)`; `None` if `M` is not symmetric positive definite or the
/// dimensions disagree.
pub fn contact_space(m: &DMatrix<f64>, w: &DMatrix<f64>, h: &DVector<f64>) -> Option<ContactSpace> {
    if m.nrows() != m.ncols() || w.nrows() != m.nrows() || h.len() != m.nrows() {
        return None;
    }
    let chol = m.clone().cholesky()?;
    let minv_w = chol.solve(w);
    let minv_h = chol.solve(h);
    let mut a = w.transpose() * &minv_w;
    // Exact symmetry (the products differ by round-off).
    for i in 0..a.nrows() {
        for j in 0..i {
            let s = 0.5 * (a[(i, j)] + a[(j, i)]);
            a[(i, j)] = s;
            a[(j, i)] = s;
        }
    }
    Some(ContactSpace { a, b: w.transpose() * minv_h })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_explicit_inverse() {
        let m = DMatrix::from_row_slice(3, 3, &[2.0, 0.3, 0.0, 0.3, 1.5, 0.2, 0.0, 0.2, 0.7]);
        let w = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 0.5, 1.0, -0.2, 0.3]);
        let h = DVector::from_column_slice(&[0.1, -9.8, 0.4]);
        let cs = contact_space(&m, &w, &h).unwrap();
        let minv = m.clone().try_inverse().unwrap();
        assert!((&cs.a - w.transpose() * &minv * &w).amax() < 1e-14);
        assert!((&cs.b - w.transpose() * &minv * &h).amax() < 1e-14);
        assert_eq!(cs.a, cs.a.transpose());
        assert!(contact_space(&(-m), &w, &h).is_none());
    }
}
