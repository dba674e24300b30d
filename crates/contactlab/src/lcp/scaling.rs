//! Equilibration of an LCP, so that no verdict depends on units.
//!
//! For positive diagonal `D`, `E` and a scalar `τ > 0`, `z = τ E z''` solves LCP(q, M) exactly
//! when `z''` solves LCP(q'', M'') with `M'' = D M E`, `q'' = D q / τ`: complementarity is
//! componentwise and every factor is positive (`w = τ D⁻¹ w''`). `D` and `E` come from Ruiz's
//! iteration (rows and columns of `M` divided by the square roots of their largest entries, eight
//! times), `τ` makes `‖q''‖∞ = 1`. Every factor is rounded to a power of two, so scaling and
//! unscaling are exact in floating point (no rounding, no overflow within the exponent range):
//! a point verified on the scaled problem is verified on the original one, and a problem given in
//! other units (`M, q` multiplied by `10^k`, or rows and columns by powers of ten) is solved along
//! the same path with every tolerance in the same place.

use nalgebra::{DMatrix, DVector};

use super::Lcp;

/// A power of two near `x > 0` (`1` for zero or non-finite `x`).
pub(crate) fn pow2(x: f64) -> f64 {
    if x > 0.0 && x.is_finite() {
        2f64.powi(x.log2().round().clamp(-1022.0, 1023.0) as i32)
    } else {
        1.0
    }
}

/// An LCP with its equilibration (module docs).
#[derive(Debug, Clone)]
pub struct Scaled {
    /// The scaled problem `(M'', q'')`.
    pub lcp: Lcp,
    /// Row factors `D`.
    pub d: DVector<f64>,
    /// Column factors `E`.
    pub e: DVector<f64>,
    /// The scalar `τ`.
    pub tau: f64,
}

impl Scaled {
    /// Equilibrates `lcp`.
    pub fn new(lcp: &Lcp) -> Self {
        let n = lcp.n();
        let mut m: DMatrix<f64> = lcp.m.clone();
        let mut d = DVector::from_element(n, 1.0);
        let mut e = DVector::from_element(n, 1.0);
        for _ in 0..8 {
            let r: Vec<f64> = (0..n).map(|i| pow2(1.0 / m.row(i).amax().sqrt())).collect();
            let c: Vec<f64> = (0..n).map(|j| pow2(1.0 / m.column(j).amax().sqrt())).collect();
            if r.iter().chain(&c).all(|&f| f == 1.0) {
                break;
            }
            for i in 0..n {
                for j in 0..n {
                    m[(i, j)] *= r[i] * c[j];
                }
                d[i] *= r[i];
                e[i] *= c[i];
            }
        }
        let dq = lcp.q.component_mul(&d);
        let tau = pow2(dq.amax());
        Scaled { lcp: Lcp { m, q: dq / tau }, d, e, tau }
    }

    /// `z = τ E z''`.
    pub fn z_original(&self, z: &DVector<f64>) -> DVector<f64> {
        z.component_mul(&self.e) * self.tau
    }

    /// `w = τ D⁻¹ w''`.
    pub fn w_original(&self, w: &DVector<f64>) -> DVector<f64> {
        w.component_div(&self.d) * self.tau
    }

    /// `z'' = E⁻¹ z / τ`.
    pub fn z_scaled(&self, z: &DVector<f64>) -> DVector<f64> {
        z.component_div(&self.e) / self.tau
    }

    /// The covering vector of the scaled problem that makes Lemke's method follow the same path
    /// as with covering `d` on the original problem: `D d`, divided by a power of two near its
    /// largest entry (the path does not depend on a positive factor on the covering vector, only
    /// `z₀` scales with it).
    pub fn covering(&self, d: Option<&DVector<f64>>) -> DVector<f64> {
        let c = match d {
            Some(d) => d.component_mul(&self.d),
            None => self.d.clone(),
        };
        let a = pow2(c.amax());
        c / a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_is_exact_and_equilibrates() {
        let m = DMatrix::from_row_slice(2, 2, &[1e-12, 3e-13, 0.0, 5e8]);
        let lcp = Lcp { m, q: DVector::from_vec(vec![-1e6, 2.0]) };
        let s = Scaled::new(&lcp);
        assert!(s.lcp.m.amax() <= 2.0 && s.lcp.m.amax() >= 0.25, "{}", s.lcp.m);
        assert!((s.lcp.q.amax() - 1.0).abs() <= 0.5);
        let z = DVector::from_vec(vec![3.7e5, 1e-9]);
        assert_eq!(s.z_original(&s.z_scaled(&z)), z);
        // w'' of a scaled point maps back to w exactly up to the rounding of the products.
        let w2 = &s.lcp.m * s.z_scaled(&z) + &s.lcp.q;
        let w = lcp.w(&z);
        assert!((s.w_original(&w2) - &w).amax() <= 1e-12 * w.amax());
    }
}
