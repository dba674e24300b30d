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
//! Products of the data near the ends of the `f64` range would under- or overflow (a
//! `−1e-272 · 4e-234` is `−0.0` in floats, and a row whose only term it is would look
//! satisfied), so each row is evaluated in its own binary scale: every factor is split into a
//! significand in `[1, 2)` and an exponent, each product `M_kj z_j` is formed from the
//! significands exactly (TwoProd) and moved by the power of two that puts the row's largest
//! term near 1. Terms more than about `2⁻¹⁰⁷⁰` below the row's largest may then underflow, which
//! changes `e(z)` by less than that relative amount; nothing else is rounded but the sums.
//!
//! Each term is unchanged when rows of `(M, q)` are scaled (`s_k` and `w_k` scale alike) and
//! when columns of `M` are scaled with `z` scaled inversely (`M_kj z_j` is unchanged): the check
//! is unit-free, like the solvers' criterion, but it measures a different thing (componentwise,
//! not normwise) on different arithmetic (raw data, compensated sums), so a solver bug in the
//! equilibration, the mapping back or the residual would show here.

use nalgebra::{DMatrix, DVector};

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

/// `q_k + Σ_j M_kj z_j` by Ogita–Rump–Oishi's `Dot2` (in the working scale: for the refinement,
/// whose data are moderate).
pub(crate) fn row_value(lcp: &Lcp, k: usize, z: &DVector<f64>) -> f64 {
    let (mut s, mut c) = (lcp.q[k], 0.0);
    for (j, &zj) in z.iter().enumerate() {
        let (p, ep) = two_prod(lcp.m[(k, j)], zj);
        let (t, es) = two_sum(s, p);
        s = t;
        c += ep + es;
    }
    s + c
}

/// `x = m · 2^e` with `|m| ∈ [1, 2)` for finite nonzero `x` (subnormals included).
fn split(x: f64) -> (f64, i32) {
    let bits = x.abs().to_bits();
    let raw = (bits >> 52) as i32;
    let (m, e) = if raw == 0 {
        // Subnormal: scale up by 2^64 first (exact), then read the exponent.
        let y = x.abs() * f64::from_bits((1023 + 64) << 52);
        let r = (y.to_bits() >> 52) as i32;
        (f64::from_bits((y.to_bits() & ((1 << 52) - 1)) | (1023 << 52)), r - 1023 - 64)
    } else {
        (f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52)), raw - 1023)
    };
    (m.copysign(x), e)
}

/// `x · 2^e`, exact unless the result leaves the normal range (then rounded, or `±∞`).
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= f64::from_bits((1023 + 1000) << 52);
        e -= 1000;
    }
    while e < -1000 {
        x *= f64::from_bits((1023 - 1000) << 52);
        e += 1000;
    }
    x * f64::from_bits(((1023 + e) as u64) << 52)
}

/// Row `k` in its own binary scale (module docs): the terms `M_kj z_j` (`terms[j]`, each with
/// its error term) and `q_k`, all multiplied by one power of two that puts the largest near 1.
struct ScaledRow {
    /// `(p_j, err_j)` with `M_kj z_j · 2^−E = p_j + err_j`.
    terms: Vec<(f64, f64)>,
    /// `q_k · 2^−E`.
    q: f64,
}

impl ScaledRow {
    fn new(lcp: &Lcp, k: usize, z: &DVector<f64>) -> ScaledRow {
        let n = z.len();
        let parts: Vec<Option<(f64, f64, i32)>> = (0..n)
            .map(|j| {
                let (a, b) = (lcp.m[(k, j)], z[j]);
                (a != 0.0 && b != 0.0).then(|| {
                    let ((ma, ea), (mb, eb)) = (split(a), split(b));
                    (ma, mb, ea + eb)
                })
            })
            .collect();
        let q_exp = (lcp.q[k] != 0.0).then(|| split(lcp.q[k]).1);
        let top = parts.iter().flatten().map(|p| p.2).chain(q_exp).max().unwrap_or(0);
        let terms = parts
            .iter()
            .map(|p| match *p {
                None => (0.0, 0.0),
                Some((ma, mb, e)) => {
                    let (p, err) = two_prod(ma, mb);
                    (ldexp(p, e - top), ldexp(err, e - top))
                }
            })
            .collect();
        ScaledRow { terms, q: ldexp(lcp.q[k], -top) }
    }

    /// `w_k` in the row's scale, by `Dot2`'s compensated sum.
    fn value(&self) -> f64 {
        let (mut s, mut c) = (self.q, 0.0);
        for &(p, ep) in &self.terms {
            let (t, es) = two_sum(s, p);
            s = t;
            c += ep + es;
        }
        s + c
    }

    /// `s_k` in the row's scale.
    fn size(&self) -> f64 {
        self.q.abs() + self.terms.iter().map(|t| t.0.abs()).sum::<f64>()
    }
}

/// A point of the complementary piece `alpha` (`z_β = 0`, `(M z + q)_α = 0`) refined from
/// `z` on the data as given: Newton steps on `M_αα z_α = −q_α` whose residuals are compensated
/// dot products (the correction solved on the equilibrated block, whose factors are exact).
/// Negative entries are set to zero at the end (acceptance then judges the point). `None` when
/// the block is singular or the steps leave the floats. This is the solver's refinement, not
/// part of the check above; it shares only the compensated dot product.
pub fn refine_on_piece(lcp: &Lcp, alpha: &[bool], z: &DVector<f64>) -> Option<DVector<f64>> {
    let n = lcp.n();
    if alpha.len() != n || z.len() != n {
        return None;
    }
    let a: Vec<usize> = (0..n).filter(|&i| alpha[i]).collect();
    let mut x = DVector::from_fn(n, |i, _| if alpha[i] { z[i] } else { 0.0 });
    if a.is_empty() {
        return Some(x);
    }
    let eq = super::scaling::Equilibration::of(lcp);
    let k = a.len();
    let block = DMatrix::from_fn(k, k, |r, c| lcp.m[(a[r], a[c])] * (eq.d[a[r]] * eq.e[a[c]]));
    let lu = block.lu();
    for _ in 0..REFINE_STEPS {
        // r = −w_α, with w computed by Dot2; D r, solve, then δz = E δz''.
        let rhs = DVector::from_fn(k, |r, _| -row_value(lcp, a[r], &x) * eq.d[a[r]]);
        let dz = lu.solve(&rhs)?;
        let mut moved = false;
        for (r, &i) in a.iter().enumerate() {
            let step = dz[r] * eq.e[i];
            if !step.is_finite() {
                return None;
            }
            let next = x[i] + step;
            moved |= next != x[i];
            x[i] = next;
        }
        if !moved {
            break;
        }
    }
    for v in x.iter_mut() {
        *v = v.max(0.0);
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Newton steps of [`refine_on_piece`] at most.
pub const REFINE_STEPS: usize = 4;

/// `a / b`, with `0 / 0 = 0`.
fn ratio(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// An upper bound of `e(z)` from one plain floating-point pass over the data, by the standard
/// rounding-error analysis of a sum (Higham, *Accuracy and Stability of Numerical Algorithms*,
/// 2nd ed., §3.1): with `γ = (n + 1) u / (1 − (n + 1) u)`, `u = 2⁻⁵³`, the computed `ŵ_k` and
/// `ŝ_k` satisfy `|ŵ_k − w_k| ≤ γ s_k + ε` and `|ŝ_k − s_k| ≤ γ s_k + ε`, `ε = (n + 2) 2⁻¹⁰⁷⁴` for
/// the products that may underflow. Each ratio of the module docs is then bounded above with
/// `s_k ≥ (ŝ_k − ε)/(1 + γ)` (every bound moved by `8u` against the rounding of its own
/// evaluation). `None` where the pass cannot bound (a value not finite, a row
/// whose terms all round to zero, a negative `z_i`, or a positive `z_i` whose `|w_i|/s_i` bound
/// is not already small: then [`componentwise_error`] measures).
pub fn error_bound(lcp: &Lcp, z: &DVector<f64>, small: f64) -> Option<f64> {
    let n = lcp.n();
    if z.len() != n {
        return None;
    }
    let u = f64::EPSILON / 2.0;
    let k = (n + 1) as f64 * u;
    let g = k / (1.0 - k);
    let eps = (n + 2) as f64 * f64::from_bits(1);
    // `w` and `s` side by side (on the stack for n ≤ 32: a small solve's check allocates
    // nothing).
    let mut stack = [0.0f64; 64];
    let mut heap = Vec::new();
    let ws: &mut [f64] = if 2 * n <= stack.len() {
        &mut stack[..2 * n]
    } else {
        heap.resize(2 * n, 0.0);
        &mut heap[..]
    };
    let (w, s) = ws.split_at_mut(n);
    for ((wk, sk), &qk) in w.iter_mut().zip(s.iter_mut()).zip(lcp.q.as_slice()) {
        *wk = qk;
        *sk = qk.abs();
    }
    let m = lcp.m.as_slice();
    for (j, col) in m.chunks_exact(n.max(1)).enumerate().take(n) {
        let zj = z[j];
        if zj == 0.0 {
            continue;
        }
        if zj < 0.0 || !zj.is_finite() {
            return None;
        }
        for ((wk, sk), &mkj) in w.iter_mut().zip(s.iter_mut()).zip(col) {
            let p = mkj * zj;
            *wk += p;
            *sk += p.abs();
        }
    }
    let mut bound = 0.0f64;
    for i in 0..n {
        let (wi, si) = (w[i], s[i]);
        if !(wi.is_finite() && si.is_finite()) {
            return None;
        }
        if si == 0.0 {
            // Every term rounded to zero: exactly zero only if every term is.
            let exact = lcp.q[i] == 0.0 && (0..n).all(|j| z[j] == 0.0 || lcp.m[(i, j)] == 0.0);
            if !exact {
                return None;
            }
            continue;
        }
        let s_lo = (si - eps) / (1.0 + g) * (1.0 - 8.0 * u);
        if s_lo <= 0.0 {
            return None;
        }
        let delta = (g * (si + eps) / (1.0 - g) + eps) * (1.0 + 8.0 * u);
        let omega = ((-wi + delta).max(0.0) / s_lo) * (1.0 + 8.0 * u);
        let e = if z[i] > 0.0 {
            let r = ((wi.abs() + delta) / s_lo) * (1.0 + 8.0 * u);
            if r > small {
                return None;
            }
            omega.max(r)
        } else {
            omega
        };
        bound = bound.max(e);
    }
    Some(bound)
}

/// `e(z)` where it matters (module docs): [`error_bound`] when that bound is within `tolerance`
/// (a point then passes without the exact route), else [`componentwise_error`].
pub fn violation(lcp: &Lcp, z: &DVector<f64>, tolerance: f64) -> f64 {
    match error_bound(lcp, z, tolerance) {
        Some(b) if b <= tolerance => b,
        _ => componentwise_error(lcp, z),
    }
}

/// The componentwise relative error `e(z)` of the module docs (`+∞` for a point of the wrong
/// length or with non-finite entries).
pub fn componentwise_error(lcp: &Lcp, z: &DVector<f64>) -> f64 {
    let n = lcp.n();
    if z.len() != n || !z.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    let rows: Vec<ScaledRow> = (0..n).map(|k| ScaledRow::new(lcp, k, z)).collect();
    let w: Vec<f64> = rows.iter().map(ScaledRow::value).collect();
    let s: Vec<f64> = rows.iter().map(ScaledRow::size).collect();
    let mut worst = 0.0f64;
    for i in 0..n {
        let omega = ratio((-w[i]).max(0.0), s[i]);
        let zeta = (0..n).map(|k| ratio(rows[k].terms[i].0.abs(), s[k])).fold(0.0, f64::max);
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
