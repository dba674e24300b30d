//! Principal pivot transforms (P4, Appendix A).
//!
//! Pivoting LCP(q, M) on a nonsingular principal submatrix `M_αα` exchanges the roles of `z_α`
//! and `w_α`:
//!
//! ```text
//!     M̂_αα = M_αα⁻¹,            M̂_αᾱ = −M_αα⁻¹ M_αᾱ,
//!     M̂_ᾱα = M_ᾱα M_αα⁻¹,       M̂_ᾱᾱ = M_ᾱᾱ − M_ᾱα M_αα⁻¹ M_αᾱ,
//!     q̂_α  = −M_αα⁻¹ q_α,        q̂_ᾱ  = q_ᾱ − M_ᾱα M_αα⁻¹ q_α.
//! ```
//!
//! Indices keep their positions: the transformed problem's variable is `ẑ = (w_α, z_ᾱ)` and its
//! `ŵ = (z_α, w_ᾱ)`, placed at the original indices. Pivoting twice on the same `α` restores `M`.

use nalgebra::{DMatrix, DVector};

use super::Lcp;
use crate::Error;

/// A principal pivot block is singular when its smallest singular value is below
/// `SINGULAR_PIVOT` of the scale.
pub const SINGULAR_PIVOT: f64 = 1e-13;

fn split(n: usize, alpha: &[usize]) -> Result<(Vec<usize>, Vec<usize>), Error> {
    let mut seen = vec![false; n];
    for &i in alpha {
        if i >= n || seen[i] {
            return Err(Error::Dimension(format!("pivot index set {alpha:?} is not a set of indices below {n}")));
        }
        seen[i] = true;
    }
    let a: Vec<usize> = (0..n).filter(|&i| seen[i]).collect();
    let b: Vec<usize> = (0..n).filter(|&i| !seen[i]).collect();
    Ok((a, b))
}

/// The principal pivot transform of `(M, q)` on `alpha` (`Err` if `M_αα` is singular).
pub fn principal_pivot(lcp: &Lcp, alpha: &[usize]) -> Result<Lcp, Error> {
    let n = lcp.n();
    let (a, b) = split(n, alpha)?;
    let sub = |r: &[usize], c: &[usize]| DMatrix::from_fn(r.len(), c.len(), |i, j| lcp.m[(r[i], c[j])]);
    let maa = sub(&a, &a);
    let inv = if a.is_empty() {
        DMatrix::zeros(0, 0)
    } else {
        let (_, s_min) = minmax_singular(&maa);
        let scale = maa.amax().max(crate::numeric::SCALE_FLOOR);
        if s_min <= SINGULAR_PIVOT * scale {
            return Err(Error::argument("alpha", format!("the principal submatrix M[{a:?}] is singular; no pivot")));
        }
        maa.clone()
            .try_inverse()
            .ok_or_else(|| Error::argument("alpha", format!("the principal submatrix M[{a:?}] is singular")))?
    };
    let mab = sub(&a, &b);
    let mba = sub(&b, &a);
    let mbb = sub(&b, &b);
    let qa = DVector::from_iterator(a.len(), a.iter().map(|&i| lcp.q[i]));
    let qb = DVector::from_iterator(b.len(), b.iter().map(|&i| lcp.q[i]));
    let h_aa = inv.clone();
    let h_ab = -(&inv * &mab);
    let h_ba = &mba * &inv;
    let h_bb = &mbb - &mba * &inv * &mab;
    let qh_a = -(&inv * &qa);
    let qh_b = &qb - &mba * &inv * &qa;
    let mut m = DMatrix::zeros(n, n);
    let mut q = DVector::zeros(n);
    for (i, &r) in a.iter().enumerate() {
        q[r] = qh_a[i];
        for (j, &c) in a.iter().enumerate() {
            m[(r, c)] = h_aa[(i, j)];
        }
        for (j, &c) in b.iter().enumerate() {
            m[(r, c)] = h_ab[(i, j)];
        }
    }
    for (i, &r) in b.iter().enumerate() {
        q[r] = qh_b[i];
        for (j, &c) in a.iter().enumerate() {
            m[(r, c)] = h_ba[(i, j)];
        }
        for (j, &c) in b.iter().enumerate() {
            m[(r, c)] = h_bb[(i, j)];
        }
    }
    Lcp::new(m, q)
}

/// Largest and smallest singular values of a square matrix (`(0, 0)` for an empty one).
pub(crate) fn minmax_singular(m: &DMatrix<f64>) -> (f64, f64) {
    if m.is_empty() {
        return (0.0, 0.0);
    }
    let sv = m.clone().singular_values();
    (sv.max(), sv.min())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::{solve, LcpSettings, LcpStatus};

    fn example() -> Lcp {
        Lcp::new(
            DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.5, -1.0, 3.0, 1.0, 0.0, 1.0, 4.0]),
            DVector::from_vec(vec![-1.0, 2.0, -3.0]),
        )
        .unwrap()
    }

    #[test]
    fn pivot_twice_is_identity() {
        let l = example();
        let p = principal_pivot(&principal_pivot(&l, &[0, 2]).unwrap(), &[0, 2]).unwrap();
        assert!((p.m - &l.m).amax() < 1e-12);
        assert!((p.q - &l.q).amax() < 1e-12);
    }

    #[test]
    fn solutions_map_to_solutions() {
        let l = example();
        let s = solve(&l, &LcpSettings::default()).unwrap();
        assert_eq!(s.status, LcpStatus::Solved);
        let alpha = [1usize];
        let p = principal_pivot(&l, &alpha).unwrap();
        // ẑ = (w_α, z_ᾱ) in place.
        let mut zh = s.z.clone();
        zh[1] = s.w[1];
        let wh = p.w(&zh);
        assert!((wh[1] - s.z[1]).abs() < 1e-12);
        assert!(p.residual(&zh) < 1e-12);
    }

    #[test]
    fn singular_block_is_an_error() {
        let l = Lcp::new(DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 1.0, 0.0]), DVector::zeros(2)).unwrap();
        assert!(principal_pivot(&l, &[0]).is_err());
        assert!(principal_pivot(&l, &[0, 1]).is_ok());
        assert!(principal_pivot(&l, &[3]).is_err());
    }
}
