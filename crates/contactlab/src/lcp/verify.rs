//! An independent check of a claimed LCP solution, sharing no code with the solvers.
//!
//! The solvers accept a point by the natural-map residual of the *equilibrated* problem (module
//! docs of [`crate::lcp`]). This module recomputes, from the returned `z` and the data *as given*
//! (no equilibration), the componentwise relative error
//!
//! ```text
//!     s_k  = |q_k| + Σ_j |M_kj| |z_j|               (the size of the terms of w_k)
//!     ω_i  = max(−w_i, 0) / s_i                       (infeasibility of w)
//!     ζ_i  = max_k |M_ki| |z_i| / s_k                 (how much w moves if z_i is zeroed)
//!     e_i  = max( ω_i,  ζ_i if z_i < 0,  min(|w_i| / s_i, ζ_i) if z_i > 0 )
//!     e(z) = max_i e_i
//! ```
//!
//! with `w = M z + q` evaluated by compensated dot products (Ogita, Rump & Oishi, *Accurate sum
//! and dot product*, SIAM J. Sci. Comput. 26, 2005: `Dot2`, as accurate as twice the working
//! precision), so the rounding of the check itself stays near `1e-32` relative. A ratio `0/0`
//! counts as `0` (`s_k = 0` means every term of `w_k` is zero, so `w_k = 0` exactly).
//!
//! Each term is unchanged when rows of `(M, q)` are scaled (`s_k` and `w_k` scale alike) and
//! when columns of `M` are scaled with `z` scaled inversely (`M_kj z_j` is unchanged): the check
//! is unit-free, like the solvers' criterion, but it measures a different thing (componentwise,
//! not normwise) on different arithmetic (raw data, compensated sums), so a solver bug in the
//! equilibration, the mapping back or the residual would show here.

use nalgebra::DVector;

use super::Lcp;

/// `a + b = s + err` exactly (Knuth's TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a · b = p + err` exactly (by a fused multiply-add).
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// `q_k + Σ_j M_kj z_j` by Ogita–Rump–Oishi's `Dot2`.
fn row_value(lcp: &Lcp, k: usize, z: &DVector<f64>) -> f64 {
    let (mut s, mut c) = (lcp.q[k], 0.0);
    for (j, &zj) in z.iter().enumerate() {
        let (p, ep) = two_prod(lcp.m[(k, j)], zj);
        let (t, es) = two_sum(s, p);
        s = t;
        c += ep + es;
    }
    s + c
}

/// `a / b`, with `0 / 0 = 0`.
fn ratio(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// The componentwise relative error `e(z)` of the module docs (`+∞` for a point of the wrong
/// length or with non-finite entries).
pub fn componentwise_error(lcp: &Lcp, z: &DVector<f64>) -> f64 {
    let n = lcp.n();
    if z.len() != n || !z.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    let w: Vec<f64> = (0..n).map(|k| row_value(lcp, k, z)).collect();
    let s: Vec<f64> =
        (0..n).map(|k| lcp.q[k].abs() + (0..n).map(|j| lcp.m[(k, j)].abs() * z[j].abs()).sum::<f64>()).collect();
    let mut worst = 0.0f64;
    for i in 0..n {
        let omega = ratio((-w[i]).max(0.0), s[i]);
        let zeta = (0..n).map(|k| ratio(lcp.m[(k, i)].abs() * z[i].abs(), s[k])).fold(0.0, f64::max);
        let e = if z[i] < 0.0 {
            omega.max(zeta)
        } else if z[i] > 0.0 {
            omega.max(ratio(w[i].abs(), s[i]).min(zeta))
        } else {
            omega
        };
        worst = worst.max(if e.is_nan() { f64::INFINITY } else { e });
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    fn lcp2() -> Lcp {
        Lcp::new(DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]), DVector::from_vec(vec![-5.0, -6.0])).unwrap()
    }

    #[test]
    fn zero_at_the_solution_and_large_elsewhere() {
        let lcp = lcp2();
        let z = DVector::from_vec(vec![4.0 / 3.0, 7.0 / 3.0]);
        assert!(componentwise_error(&lcp, &z) < 1e-15);
        // z = 0: w = q < 0, fully infeasible.
        assert_eq!(componentwise_error(&lcp, &DVector::zeros(2)), 1.0);
        // Both positive but w_0 > 0: not complementary.
        assert!(componentwise_error(&lcp, &DVector::from_vec(vec![3.0, 3.0])) > 0.1);
        // A negative z.
        assert!(componentwise_error(&lcp, &DVector::from_vec(vec![-1.0, 3.0])) > 0.1);
        assert_eq!(componentwise_error(&lcp, &DVector::zeros(3)), f64::INFINITY);
    }

    #[test]
    fn unit_free_under_row_and_column_scaling() {
        let lcp = lcp2();
        let z = DVector::from_vec(vec![4.0 / 3.0 + 1e-7, 7.0 / 3.0]);
        let e0 = componentwise_error(&lcp, &z);
        assert!(e0 > 1e-9 && e0 < 1e-6, "{e0}");
        for (r, c) in [(1e8, 1e-8), (1e-8, 1e8), (2f64.powi(40), 3.0)] {
            let d_r = DMatrix::from_diagonal(&DVector::from_vec(vec![r, 1.0 / r]));
            let d_c = DMatrix::from_diagonal(&DVector::from_vec(vec![c, 1.0]));
            let scaled = Lcp::new(&d_r * &lcp.m * &d_c, &d_r * &lcp.q).unwrap();
            let zs = DVector::from_vec(vec![z[0] / c, z[1]]);
            let e = componentwise_error(&scaled, &zs);
            assert!((e - e0).abs() <= 1e-6 * e0, "{e} vs {e0}");
        }
    }

    #[test]
    fn compensated_sums_see_through_cancellation() {
        // w_0 = 1e-16 + z_0 − z_1 with z_0 = z_1 = 1: summed left to right in f64 it is 0
        // (1 + 1e-16 rounds to 1), exactly it is 1e-16 > 0 while z_0 > 0, so e_0 = 1e-16 / s_0
        // with s_0 = 2 + 1e-16. Row 1 is zero, so w_1 = 0 and z_1 > 0 is complementary.
        let m = DMatrix::from_row_slice(2, 2, &[1.0, -1.0, 0.0, 0.0]);
        let lcp = Lcp::new(m, DVector::from_vec(vec![1e-16, 0.0])).unwrap();
        let e = componentwise_error(&lcp, &DVector::from_vec(vec![1.0, 1.0]));
        assert!((e - 5e-17).abs() < 1e-20, "{e}");
    }
}
