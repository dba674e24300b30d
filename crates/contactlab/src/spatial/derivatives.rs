//! Exact derivatives of a spatial tree's dynamics by forward-mode automatic differentiation.
//!
//! The algorithms of [`super::tree`] (and the joints, transforms, inertias and contact
//! kinematics under them) are written once for any scalar type [`Real`]: `f64` for the fast
//! path every simulation step takes, and a dual number `a + b ε` ([`num_dual::Dual64`], `ε² = 0`)
//! here. Run with the input seeded along a direction `d` (`x + d ε`), each algorithm returns its
//! value and, in the dual part, its directional derivative, exact to round-off: no difference
//! step, and no hand-derived formula for `∂M/∂q` or `∂h/∂q` to get wrong. One pass per input
//! direction; the tests check every derivative against central differences.
//!
//! Coordinates: derivatives are taken with respect to the embedded coordinates `(q, v)` as
//! stored (a quaternion's four components), each quantity evaluated at `q` with its quaternions
//! normalised, so a derivative along a quaternion's own direction is zero. Derivatives on the
//! configuration manifold (along `q ⊕ δ`, `δ` in the velocity space) are `∂f/∂q · G(q)` with
//! `G` the map `v ↦ q̇` ([`SpatialTree::qdot`]), which [`forward_dynamics_jacobian`] returns too.

use nalgebra::{DMatrix, DVector};
use num_dual::Dual64;

use super::algebra::Real;
use super::tree::SpatialTree;

/// `x` as dual numbers with unit dual part at index `k` (none if `k ≥ x.len()`).
pub fn seeded(x: &[f64], k: usize) -> Vec<Dual64> {
    x.iter().enumerate().map(|(i, &a)| Dual64::new(a, if i == k { 1.0 } else { 0.0 })).collect()
}

/// The dual parts of `y`.
pub fn tangent(y: &[Dual64]) -> Vec<f64> {
    y.iter().map(|d| d.eps).collect()
}

/// The free forward dynamics `v̇ = M(q)⁻¹ (h(q, v) + τ)` in any scalar type, `q` normalised
/// first; `None` if `M` is not positive definite or a quaternion is zero.
pub fn forward_dynamics<T: Real>(tree: &SpatialTree, q: &[T], v: &[T], tau: &[T]) -> Option<DVector<T>> {
    let mut q = q.to_vec();
    if !tree.normalize(&mut q) {
        return None;
    }
    let (m, h) = tree.mass_and_bias(&q, v);
    let f = h + DVector::from_column_slice(tau);
    m.cholesky().map(|c| c.solve(&f))
}

/// The exact Jacobians of the free forward dynamics at `(q, v, τ)`: `∂v̇/∂q` (`nv × nq`, in the
/// stored coordinates), `∂v̇/∂v` (`nv × nv`), `∂v̇/∂τ = M⁻¹`, and the map `G(q)` (`nq × nv`,
/// `q̇ = G v`), so that `∂v̇/∂q · G` is the derivative on the configuration manifold (module
/// docs). `None` if `M` is singular or the input is not finite.
pub fn forward_dynamics_jacobian(tree: &SpatialTree, q: &[f64], v: &[f64], tau: &[f64]) -> Option<DynamicsJacobian> {
    let (nq, nv) = (tree.nq(), tree.nv());
    if q.len() != nq || v.len() != nv || tau.len() != nv || !q.iter().chain(v).chain(tau).all(|x| x.is_finite()) {
        return None;
    }
    let lift = |x: &[f64]| x.iter().map(|&a| Dual64::from(a)).collect::<Vec<_>>();
    let mut d_q = DMatrix::zeros(nv, nq);
    for k in 0..nq {
        let a = forward_dynamics(tree, &seeded(q, k), &lift(v), &lift(tau))?;
        d_q.set_column(k, &DVector::from_vec(tangent(a.as_slice())));
    }
    let mut d_v = DMatrix::zeros(nv, nv);
    for k in 0..nv {
        let a = forward_dynamics(tree, &lift(q), &seeded(v, k), &lift(tau))?;
        d_v.set_column(k, &DVector::from_vec(tangent(a.as_slice())));
    }
    let mut qn = q.to_vec();
    tree.normalize(&mut qn);
    let d_tau = tree.mass_matrix(&qn).cholesky()?.inverse();
    let mut g = DMatrix::zeros(nq, nv);
    for k in 0..nv {
        let e: Vec<f64> = (0..nv).map(|i| if i == k { 1.0 } else { 0.0 }).collect();
        g.set_column(k, &tree.qdot(&qn, &e));
    }
    Some(DynamicsJacobian { d_q, d_v, d_tau, g })
}

/// The Jacobians of [`forward_dynamics_jacobian`].
#[derive(Debug, Clone)]
pub struct DynamicsJacobian {
    /// `∂v̇/∂q` (`nv × nq`, stored coordinates).
    pub d_q: DMatrix<f64>,
    /// `∂v̇/∂v` (`nv × nv`).
    pub d_v: DMatrix<f64>,
    /// `∂v̇/∂τ = M⁻¹` (`nv × nv`).
    pub d_tau: DMatrix<f64>,
    /// `G(q)`: `q̇ = G v` (`nq × nv`).
    pub g: DMatrix<f64>,
}

/// The real parts of dual numbers (a value computed alongside its derivative).
pub fn values(y: &[Dual64]) -> Vec<f64> {
    y.iter().map(|d| d.re).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::tree::tests::sample as tree;

    #[test]
    fn dual_derivatives_of_the_forward_dynamics_match_central_differences() {
        let t = tree();
        let mut q: Vec<f64> = (0..t.nq()).map(|k| 0.3 * (1.7 * k as f64 + 0.4).sin()).collect();
        t.normalize(&mut q);
        let v: Vec<f64> = (0..t.nv()).map(|k| 0.8 * (0.9 * k as f64 + 1.1).cos()).collect();
        let tau: Vec<f64> = (0..t.nv()).map(|k| 0.5 * (0.3 * k as f64).sin()).collect();
        let j = forward_dynamics_jacobian(&t, &q, &v, &tau).unwrap();
        // The dual path's value is the f64 path's.
        let a = forward_dynamics(&t, &q, &v, &tau).unwrap();
        let ad = forward_dynamics(&t, &seeded(&q, 0), &seeded(&v, usize::MAX), &seeded(&tau, usize::MAX)).unwrap();
        assert!(values(ad.as_slice()).iter().zip(a.iter()).all(|(x, y)| (x - y).abs() < 1e-13 * (1.0 + y.abs())));
        let h = 1e-6;
        let fd = |dq: &[f64], dv: &[f64]| {
            let at = |s: f64| {
                let qs: Vec<f64> = q.iter().zip(dq).map(|(x, d)| x + s * d).collect();
                let vs: Vec<f64> = v.iter().zip(dv).map(|(x, d)| x + s * d).collect();
                forward_dynamics(&t, &qs, &vs, &tau).unwrap()
            };
            (at(h) - at(-h)) / (2.0 * h)
        };
        let e = |n: usize, k: usize| (0..n).map(|i| if i == k { 1.0 } else { 0.0 }).collect::<Vec<_>>();
        let scale = a.amax();
        for k in 0..t.nq() {
            let d = fd(&e(t.nq(), k), &vec![0.0; t.nv()]);
            assert!((j.d_q.column(k) - &d).amax() < 1e-7 * scale, "q[{k}]: {} vs {}", j.d_q.column(k), d);
        }
        for k in 0..t.nv() {
            let d = fd(&vec![0.0; t.nq()], &e(t.nv(), k));
            assert!((j.d_v.column(k) - &d).amax() < 1e-7 * scale, "v[{k}]");
        }
        // A quaternion's own direction changes nothing (the dynamics see it normalised): the
        // free base's (coordinates 3..7) and the ball joint's (9..13).
        let radial: Vec<f64> =
            (0..t.nq()).map(|i| if (3..7).contains(&i) || (9..13).contains(&i) { q[i] } else { 0.0 }).collect();
        assert!((&j.d_q * DVector::from_vec(radial)).amax() < 1e-12 * scale);
        // M⁻¹ times M is the identity.
        let m = t.mass_matrix(&q);
        assert!((&j.d_tau * m - DMatrix::identity(t.nv(), t.nv())).amax() < 1e-10);
    }
}
