//! Checks a [`ContactSystem`] implementation against finite differences: the Jacobians against
//! the gaps and tangential coordinates, the velocity-product terms against second derivatives
//! along a straight path, and (for conservative systems) the bias against the energy balance.

use nalgebra::DVector;

use super::ContactSystem;

/// Central-difference step of the Jacobian check, relative to each coordinate's scale.
pub const JACOBIAN_STEP: f64 = 1e-6;
/// Relative disagreement allowed between a Jacobian entry and its difference quotient (the
/// quotient's truncation error is about `JACOBIAN_STEP²`, its round-off `ε / JACOBIAN_STEP`).
pub const JACOBIAN_TOL: f64 = 1e-6;
/// Step of the second difference along `q + q̇τ` (velocity-product terms), relative to the time
/// scale.
pub const CURVATURE_STEP: f64 = 1e-4;
/// Relative disagreement allowed between `ẇᵀq̇` and its second difference (relative to the
/// system's acceleration scale `L/T²`).
pub const CURVATURE_TOL: f64 = 1e-4;
/// Step of the energy-balance check along `q ± q̇τ`, relative to the time scale.
pub const ENERGY_STEP: f64 = 1e-5;
/// Power `dE/dt` allowed in the energy balance of a conservative system, relative to the
/// largest of its terms and the kinetic energy per time scale.
pub const POWER_TOL: f64 = 1e-6;

/// Checks `sys` at `(t, q, v)`; returns one line per disagreement (empty: all agree). Steps and
/// tolerances are relative to the system's coordinate scales.
pub fn check_system<S: ContactSystem>(sys: &S, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Vec<String> {
    let mut out = Vec::new();
    let cs = sys.coordinate_scale();
    let ls = sys.length_scale();
    let ts = sys.time_scale();
    let rel = |a: f64, b: f64, s: f64| (a - b).abs() / (a.abs().max(b.abs()).max(s));
    for i in 0..sys.contact_count() {
        let (wn, wt) = (sys.normal_jacobian(i, q), sys.tangent_jacobian(i, q));
        for k in 0..q.len() {
            let h = JACOBIAN_STEP * cs[k];
            let mut qp = q.clone();
            let mut qm = q.clone();
            qp[k] += h;
            qm[k] -= h;
            let dg = (sys.gap(i, &qp) - sys.gap(i, &qm)) / (2.0 * h);
            let dx = (sys.tangential(i, &qp) - sys.tangential(i, &qm)) / (2.0 * h);
            let s = ls / cs[k];
            if rel(dg, wn[k], s) > JACOBIAN_TOL {
                out.push(format!("contact {i}: dg/dq[{k}] = {dg} by differences, w_n = {}", wn[k]));
            }
            if rel(dx, wt[k], s) > JACOBIAN_TOL {
                out.push(format!("contact {i}: dx/dq[{k}] = {dx} by differences, w_t = {}", wt[k]));
            }
        }
        // g(q + v τ): second derivative at τ = 0 is ẇᵀv (q̈ = 0 along the path).
        let tau = CURVATURE_STEP * ts;
        let g = |s: f64| sys.gap(i, &(q + v * s));
        let x = |s: f64| sys.tangential(i, &(q + v * s));
        let gdd = (g(tau) - 2.0 * g(0.0) + g(-tau)) / (tau * tau);
        let xdd = (x(tau) - 2.0 * x(0.0) + x(-tau)) / (tau * tau);
        let (cn, ct) = sys.jacobian_dot_v(i, q, v);
        let acc = ls / (ts * ts);
        if rel(gdd, cn, acc) > CURVATURE_TOL {
            out.push(format!("contact {i}: g'' along q + v t = {gdd} by differences, dot(w_n)·v = {cn}"));
        }
        if rel(xdd, ct, acc) > CURVATURE_TOL {
            out.push(format!("contact {i}: x'' along q + v t = {xdd} by differences, dot(w_t)·v = {ct}"));
        }
    }
    // Energy balance of a conservative system: dE/dt = vᵀh + ½ vᵀ Ṁ v + ∇V·v = 0.
    if let Some(_v0) = sys.potential(q) {
        let tau = ENERGY_STEP * ts;
        let vp = sys.potential(&(q + v * tau)).unwrap_or(f64::NAN);
        let vm = sys.potential(&(q - v * tau)).unwrap_or(f64::NAN);
        let dv = (vp - vm) / (2.0 * tau);
        let mdot = (sys.mass_matrix(&(q + v * tau)) - sys.mass_matrix(&(q - v * tau))) / (2.0 * tau);
        let power = v.dot(&sys.bias(t, q, v)) + 0.5 * v.dot(&(mdot * v)) + dv;
        let scale = v
            .dot(&sys.bias(t, q, v))
            .abs()
            .max(dv.abs())
            .max(sys.kinetic_energy(q, v) / ts)
            .max(crate::numeric::SCALE_FLOOR);
        if power.abs() > POWER_TOL * scale {
            out.push(format!("energy not conserved by the bias: dE/dt = {power} (scale {scale})"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::closed_form::{Particle, Pendulum};
    use crate::mechanics::FixedSystem;
    use nalgebra::SVector;

    #[test]
    fn elementary_systems_pass() {
        let p = Pendulum { length: 0.7, gravity: 9.81, mass: 2.0 };
        let q = nalgebra::dvector![0.4];
        let v = nalgebra::dvector![-1.3];
        assert!(check_system(&p, 0.0, &q, &v).is_empty(), "{:?}", check_system(&p, 0.0, &q, &v));
        let b = Particle::block_on_incline(1.5, 9.81, 0.3, 0.4);
        let q = nalgebra::dvector![0.2, 0.1];
        let v = nalgebra::dvector![0.5, -0.2];
        assert!(check_system(&b, 0.0, &q, &v).is_empty(), "{:?}", check_system(&b, 0.0, &q, &v));
    }

    #[test]
    fn detects_a_wrong_jacobian() {
        struct Wrong;
        crate::fixed_size_system!(Wrong, 1);

        impl FixedSystem<1> for Wrong {
            fn contact_count(&self) -> usize {
                1
            }
            fn law(&self, _i: usize) -> crate::mechanics::ContactLaw {
                crate::mechanics::ContactLaw { mu: 0.0, restitution: 0.0 }
            }
            fn mass_matrix(&self, _q: &SVector<f64, 1>) -> nalgebra::SMatrix<f64, 1, 1> {
                nalgebra::SMatrix::<f64, 1, 1>::new(1.0)
            }
            fn bias(&self, _t: f64, _q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> SVector<f64, 1> {
                SVector::<f64, 1>::new(-1.0)
            }
            fn gap(&self, _i: usize, q: &SVector<f64, 1>) -> f64 {
                q[0] * q[0]
            }
            fn normal_jacobian(&self, _i: usize, _q: &SVector<f64, 1>) -> SVector<f64, 1> {
                SVector::<f64, 1>::new(1.0)
            }
            fn jacobian_dot_v(&self, _i: usize, _q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> (f64, f64) {
                (0.0, 0.0)
            }
        }
        let bad = check_system(&Wrong, 0.0, &nalgebra::dvector![2.0], &nalgebra::dvector![1.0]);
        assert_eq!(bad.len(), 2, "{bad:?}"); // the Jacobian and the velocity-product term
    }
}
