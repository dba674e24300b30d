//! Exact signs of determinants and exact ranks of small matrices of floating-point numbers, for
//! decisions that a tolerance cannot make (the matrix classes of [`crate::lcp::classes`]).
//!
//! Every finite float is a dyadic rational `m · 2^e` (`m` an integer below `2⁵³`), so a matrix
//! of floats times `2^(−e_min)` (its least exponent) is a matrix of integers whose determinant
//! has the same sign and whose rank is the same. [`det_sign`] first runs Gaussian elimination in
//! interval arithmetic ([`crate::interval`], outward rounding): when every pivot's enclosure
//! excludes zero the sign is proved by the product of their signs, which settles all but the
//! (nearly) singular minors at float cost. Only those fall back to Bareiss's fraction-free
//! elimination on big integers (Bareiss, *Sylvester's identity and multistep
//! integer-preserving Gaussian elimination*, Math. Comp. 22, 1968): every division in it is
//! exact, so the result is the determinant of the data as given, whatever its size. [`rank`] is
//! that elimination with a search over the columns.

use nalgebra::DMatrix;
use num_bigint::BigInt;
use num_traits::{Signed, Zero};

use crate::interval::Interval;

/// The sign of a real number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// `< 0`.
    Negative,
    /// `= 0`.
    Zero,
    /// `> 0`.
    Positive,
}

/// `x = m · 2^e` exactly, `m` an integer (`x` finite; `(0, 0)` for zero).
fn dyadic(x: f64) -> (i64, i32) {
    if x == 0.0 {
        return (0, 0);
    }
    let bits = x.to_bits();
    let raw = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (m, e) = if raw == 0 { (frac, -1074) } else { (frac | (1i64 << 52), raw - 1075) };
    (if x < 0.0 { -m } else { m }, e)
}

/// The matrix as integers: each entry times `2^(−e_min)`, `e_min` the least exponent of its
/// nonzero entries (a positive factor: signs of minors and ranks are kept).
fn integers(m: &DMatrix<f64>) -> Vec<Vec<BigInt>> {
    let e_min = m.iter().filter(|x| **x != 0.0).map(|x| dyadic(*x).1).min().unwrap_or(0);
    (0..m.nrows())
        .map(|i| {
            (0..m.ncols())
                .map(|j| {
                    let (mant, e) = dyadic(m[(i, j)]);
                    BigInt::from(mant) << ((e - e_min) as usize)
                })
                .collect()
        })
        .collect()
}

/// The sign of `det M` by interval elimination, `None` when a pivot's enclosure holds zero.
fn interval_det_sign(m: &DMatrix<f64>) -> Option<Sign> {
    let n = m.nrows();
    let mut a: Vec<Vec<Interval>> = (0..n).map(|i| (0..n).map(|j| Interval::exact(m[(i, j)])).collect()).collect();
    let mut negative = false;
    for k in 0..n {
        let p = (k..n).max_by(|&r, &s| a[r][k].mid().abs().total_cmp(&a[s][k].mid().abs()))?;
        if p != k {
            a.swap(p, k);
            negative = !negative;
        }
        let pivot = a[k][k];
        if !(pivot.is_positive() || pivot.is_negative()) {
            return None;
        }
        negative ^= pivot.is_negative();
        for i in k + 1..n {
            let f = a[i][k].div(&pivot)?;
            for j in k + 1..n {
                a[i][j] = a[i][j] - f * a[k][j];
            }
        }
    }
    Some(if negative { Sign::Negative } else { Sign::Positive })
}

/// Bareiss's elimination of `a` (rows × cols integers), columns taken in order and skipped
/// where they have no pivot: the rank and, when `a` is square and of full rank, the sign of its
/// determinant.
fn bareiss(mut a: Vec<Vec<BigInt>>) -> (usize, Sign) {
    let rows = a.len();
    let cols = a.first().map_or(0, Vec::len);
    let mut prev = BigInt::from(1);
    let mut negative = false;
    let mut k = 0;
    for c in 0..cols {
        if k == rows {
            break;
        }
        let Some(p) = (k..rows).find(|&r| !a[r][c].is_zero()) else { continue };
        if p != k {
            a.swap(p, k);
            negative = !negative;
        }
        for i in k + 1..rows {
            for j in c + 1..cols {
                let v = (&a[i][j] * &a[k][c] - &a[i][c] * &a[k][j]) / &prev;
                a[i][j] = v;
            }
            a[i][c] = BigInt::zero();
        }
        prev = a[k][c].clone();
        k += 1;
    }
    let sign = if k < rows || rows != cols {
        Sign::Zero
    } else if prev.is_negative() != negative {
        Sign::Negative
    } else {
        Sign::Positive
    };
    (k, sign)
}

/// The sign of `det M`, exactly, for a square matrix of finite floats (module docs).
pub fn det_sign(m: &DMatrix<f64>) -> Sign {
    if m.nrows() == 0 {
        return Sign::Positive;
    }
    interval_det_sign(m).unwrap_or_else(|| bareiss(integers(m)).1)
}

/// The rank of `M`, exactly, for a matrix of finite floats (module docs).
pub fn rank(m: &DMatrix<f64>) -> usize {
    if m.is_empty() {
        return 0;
    }
    bareiss(integers(m)).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dyadic_decomposition_is_exact() {
        for x in [1.0, -0.75, 3.0e-310, -1.7976931348623157e308, 2f64.powi(-40), 0.1] {
            let (m, e) = dyadic(x);
            assert_eq!(m as f64 * 2f64.powi(e), x, "{x}");
        }
    }

    #[test]
    fn signs_beyond_any_tolerance() {
        // det = 2⁻⁴⁰ · 1 + 1024: far from zero; its 1 × 1 minor 2⁻⁴⁰ tiny but positive.
        let m = DMatrix::from_row_slice(2, 2, &[2f64.powi(-40), -1.0, 1024.0, 1.0]);
        assert_eq!(det_sign(&m), Sign::Positive);
        // det = 3 · fl(1/3) − 1 = −2⁻⁵⁴: the interval elimination's multiplier 1/3 is an
        // enclosure, its pivot straddles zero, and Bareiss decides.
        let m = DMatrix::from_row_slice(2, 2, &[3.0, 1.0, 1.0, 1.0 / 3.0]);
        assert_eq!(interval_det_sign(&m), None);
        assert_eq!(det_sign(&m), Sign::Negative);
        // det = 1 · (1 + 2⁻⁵²) − 1 · 1 = 2⁻⁵²: the elimination's steps are exact here and
        // the enclosures decide it.
        let e = f64::EPSILON;
        let m = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0 + e]);
        assert_eq!(interval_det_sign(&m), Some(Sign::Positive));
        let m = DMatrix::from_row_slice(2, 2, &[1.0 + e, 1.0, 1.0, 1.0]);
        assert_eq!(det_sign(&m), Sign::Positive);
        let m = DMatrix::from_row_slice(2, 2, &[1.0, 1.0 + e, 1.0, 1.0]);
        assert_eq!(det_sign(&m), Sign::Negative);
        // Exactly singular, and subnormal against huge entries.
        let m = DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1e-310, 1e300, -5.0]);
        assert_eq!(det_sign(&m), Sign::Zero);
        assert_eq!(rank(&m), 2);
        let m = DMatrix::from_row_slice(2, 2, &[1e-310, 0.0, 0.0, 1e300]);
        assert_eq!(det_sign(&m), Sign::Positive);
    }

    #[test]
    fn the_sign_agrees_with_exact_rationals_on_random_integer_matrices() {
        // Small integer matrices (many singular): Bareiss alone and with the filter agree with
        // the float determinant where that is exact (integers below 2⁵³ in every product).
        let mut s: u64 = 7;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % 5) as f64 - 2.0
        };
        for n in 1..6 {
            for _ in 0..200 {
                let m = DMatrix::from_fn(n, n, |_, _| next());
                let d = m.clone().lu().determinant().round();
                let want = if d > 0.0 {
                    Sign::Positive
                } else if d < 0.0 {
                    Sign::Negative
                } else {
                    Sign::Zero
                };
                assert_eq!(det_sign(&m), want, "{m}");
                assert_eq!(bareiss(integers(&m)).1, want, "{m}");
                assert_eq!(rank(&m) == n, want != Sign::Zero, "{m}");
            }
        }
    }
}
