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
///
/// This is `2^round(log2 x)` (clamped to the normal range), read from the bits of `x`: with
/// `x = 2^e·m`, `m ∈ [1, 2)`, the power is `2^e` below `m = √2` and `2^(e+1)` above it. Within
/// `10⁻¹²` of `√2`, and for subnormal `x`, it defers to `log2` itself, so that the result is the
/// one `log2` and `round` give bit for bit (`log2` is off by at most an ulp, far less than
/// that margin): every equilibration, and so every solver path, stays as it was.
pub(crate) fn pow2(x: f64) -> f64 {
    if !(x > 0.0 && x.is_finite()) {
        return 1.0;
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if biased == 0 || (m - std::f64::consts::SQRT_2).abs() <= 1e-12 {
        return pow2_by_log2(x);
    }
    let k = biased - 1023 + i32::from(m > std::f64::consts::SQRT_2);
    exp2i(k.clamp(-1022, 1023))
}

/// [`pow2`] by `log2` and `round` (its definition).
fn pow2_by_log2(x: f64) -> f64 {
    exp2i(x.log2().round().clamp(-1022.0, 1023.0) as i32)
}

/// `2^k` for `k` in `[−1022, 1023]`, built from its exponent bits (the value `2f64.powi(k)`
/// gives, without the multiplications).
fn exp2i(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
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
        // Row and column maxima in one pass down the columns (the storage order).
        let mut scratch = vec![0.0f64; 3 * n];
        let (row_max, rest) = scratch.split_at_mut(n);
        let (r, c) = rest.split_at_mut(n);
        for _ in 0..8 {
            row_max.fill(0.0);
            for (j, col) in m.as_slice().chunks_exact(n.max(1)).enumerate() {
                let mut col_max = 0.0f64;
                for (i, &x) in col.iter().enumerate() {
                    let a = x.abs();
                    if a > col_max {
                        col_max = a;
                    }
                    if a > row_max[i] {
                        row_max[i] = a;
                    }
                }
                c[j] = pow2(1.0 / col_max.sqrt());
            }
            for i in 0..n {
                r[i] = pow2(1.0 / row_max[i].sqrt());
            }
            if r.iter().chain(c.iter()).all(|&f| f == 1.0) {
                break;
            }
            for (j, col) in m.as_mut_slice().chunks_exact_mut(n.max(1)).enumerate() {
                for (i, x) in col.iter_mut().enumerate() {
                    *x *= r[i] * c[j];
                }
            }
            for i in 0..n {
                d[i] *= r[i];
                e[i] *= c[i];
            }
        }
        let mut q = lcp.q.component_mul(&d);
        let tau = pow2(q.amax());
        q /= tau;
        Scaled { lcp: Lcp { m, q }, d, e, tau }
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
    fn pow2_from_bits_equals_its_definition() {
        let mut xs: Vec<f64> = Vec::new();
        for e in -1074..=1023 {
            let p = 2f64.powi(e);
            xs.extend([p, p * std::f64::consts::SQRT_2, p * 1.5, p * 1.999_999_999_999, p * 1.000_000_000_001]);
        }
        for k in -40..=40 {
            // Mantissas around √2, an ulp at a time.
            let s = f64::from_bits((std::f64::consts::SQRT_2.to_bits() as i64 + k) as u64);
            xs.extend([s, s * 1024.0, s / 1024.0, s * 2f64.powi(600), s * 2f64.powi(-600)]);
        }
        for k in 0..200_000 {
            // Exponents spread evenly over [−300, 300) (golden-ratio sequence).
            let u = (k as f64 * 0.618_033_988_749_895).fract();
            let x = 10f64.powf(-300.0 + 600.0 * u);
            xs.push(x);
            xs.push(1.0 / x.sqrt());
        }
        xs.extend([0.0, -1.0, f64::INFINITY, f64::NAN, f64::MIN_POSITIVE, 5e-324, f64::MAX]);
        for &x in &xs {
            let (a, b) = (pow2(x), if x > 0.0 && x.is_finite() { pow2_by_log2(x) } else { 1.0 });
            assert_eq!(a.to_bits(), b.to_bits(), "x = {x:e}");
        }
    }

    #[test]
    fn powers_of_two_from_bits_equal_powi() {
        for k in -1022..=1023 {
            assert_eq!(exp2i(k).to_bits(), 2f64.powi(k).to_bits(), "k = {k}");
        }
    }

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
