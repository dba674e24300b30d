//! Equilibration of an LCP, so that no verdict depends on units.
//!
//! For positive diagonal `D`, `E` and a scalar `τ > 0`, `z = τ E z''` solves LCP(q, M) exactly
//! when `z''` solves LCP(q'', M'') with `M'' = D M E`, `q'' = D q / τ`: complementarity is
//! componentwise and every factor is positive (`w = τ D⁻¹ w''`). `D` and `E` come from Ruiz's
//! iteration (rows and columns of `M` divided by the square roots of their largest entries, eight
//! times, after `M` as a whole is divided by the power of two of its largest entry, so that
//! `2^k M` ends where `M` does), `τ` makes `‖q''‖∞ = 1`. Every factor is rounded to a power of two, so scaling and
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

/// `⌊log2 x⌋` for finite `x > 0` (subnormals included), from the bits.
fn exponent(x: f64) -> i32 {
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: 2^64 x is normal and exact.
        ((((x * exp2i(64)).to_bits() >> 52) & 0x7ff) as i32) - 1023 - 64
    } else {
        biased - 1023
    }
}

/// Ruiz passes at most.
const RUIZ_PASSES: usize = 8;

/// The Ruiz factor of a row or column whose largest entry is `x`: `1/√x` rounded to a power of
/// two ([`pow2`]), read from the bits of `x` without the root and the division. With
/// `x = 2^E·m`, `m ∈ [1, 2)`, `log2(1/√x) = −(E + log2 m)/2` is a half-integer only at odd
/// powers of two, where `m = 1` (odd `E`) or `m → 2` (even `E`); elsewhere it rounds to
/// `−⌈E/2⌉`. Within `2⁻³⁰` of those ends (and for zero, subnormal or non-finite `x`) it defers
/// to the definition, whose root and division are then far from deciding, so the factor is the
/// definition's bit for bit.
#[inline]
fn ruiz_factor(x: f64) -> f64 {
    const EDGE: u64 = 1 << 22; // 2⁻³⁰ of the 52-bit fraction
    const FRAC: u64 = (1 << 52) - 1;
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & FRAC;
    if x > 0.0 && biased > 0 && biased < 0x7ff && frac > EDGE && frac < FRAC - EDGE {
        exp2i(-(biased - 1023 + 1).div_euclid(2))
    } else {
        pow2(1.0 / x.sqrt())
    }
}

/// Whether every maximum lies in `[0.500001, 1.999999]`, where [`ruiz_factor`] is 1.
fn balanced(maxima: &[f64]) -> bool {
    maxima.iter().fold(true, |all, &x| all & (0.500_001..=1.999_999).contains(&x))
}

/// Multiplies each factor by the Ruiz factor of its maximum; whether any was not 1.
fn apply_factors(factors: &mut [f64], maxima: &[f64]) -> bool {
    let mut changed = false;
    for (f, &x) in factors.iter_mut().zip(maxima) {
        let r = ruiz_factor(x);
        changed |= r != 1.0;
        *f *= r;
    }
    changed
}

/// `a` if `a > b`, else `b` (one `maxsd`/`maxpd`, without branches; no NaN reaches it).
#[inline(always)]
fn larger(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// The largest magnitudes of the rows and columns of `D M E`, in one read of `M` down its
/// columns (the storage order). `D M E` is not formed: its entry `m_ij (d_i e_j)` is exact
/// (powers of two), the value a scaled copy would hold. Four rows at a time, so that the row
/// and column maxima are vector instructions.
fn maxima(m: &DMatrix<f64>, d: &[f64], e: &[f64], row_max: &mut [f64], col_max: &mut [f64]) {
    let n = row_max.len();
    row_max.fill(0.0);
    let split = n - n % 4;
    for ((col, &ej), cmax) in m.as_slice().chunks_exact(n.max(1)).zip(e).zip(col_max.iter_mut()) {
        let mut lanes = [0.0f64; 4];
        for ((xs, rms), ds) in col.chunks_exact(4).zip(row_max.chunks_exact_mut(4)).zip(d.chunks_exact(4)) {
            for l in 0..4 {
                let a = (xs[l] * (ds[l] * ej)).abs();
                rms[l] = larger(a, rms[l]);
                lanes[l] = larger(a, lanes[l]);
            }
        }
        for ((&x, rm), &di) in col[split..].iter().zip(&mut row_max[split..]).zip(&d[split..]) {
            let a = (x * (di * ej)).abs();
            *rm = larger(a, *rm);
            lanes[0] = larger(a, lanes[0]);
        }
        *cmax = larger(larger(lanes[0], lanes[1]), larger(lanes[2], lanes[3]));
    }
}

/// The factors `D`, `E`, `τ` of an LCP's equilibration (module docs), and the maps between the
/// original and the scaled problem. Finding them reads `M` once per Ruiz pass and writes no
/// copy of it; [`Equilibration::scale`] forms `(M'', q'')` when a caller needs them.
#[derive(Debug, Clone)]
pub struct Equilibration {
    /// Row factors `D`.
    pub d: DVector<f64>,
    /// Column factors `E`.
    pub e: DVector<f64>,
    /// The scalar `τ`.
    pub tau: f64,
}

impl Equilibration {
    /// The equilibration of `lcp`: Ruiz passes until every factor of a pass is 1 (a balanced
    /// problem: one read of `M`), at most `RUIZ_PASSES`; then `τ`.
    pub fn of(lcp: &Lcp) -> Self {
        let n = lcp.n();
        // First M as a whole by the power of two of its largest entry's exponent (2^⌊log2 max⌋,
        // exact), so that M and 2^k M start Ruiz from the same matrix and end at the same
        // scaled problem: the verdicts and their proofs do not depend on a power-of-two unit.
        let top = lcp.m.as_slice().iter().fold(0.0f64, |a, &x| larger(a, x.abs()));
        let start = if top > 0.0 && top.is_finite() { exp2i((-exponent(top)).clamp(-1022, 1023)) } else { 1.0 };
        let mut d = DVector::from_element(n, start);
        let mut e = DVector::from_element(n, 1.0);
        // Row and column maxima: on the stack for n ≤ 32.
        let mut stack = [0.0f64; 64];
        let mut heap = Vec::new();
        let scratch = if 2 * n <= stack.len() {
            &mut stack[..2 * n]
        } else {
            heap.resize(2 * n, 0.0);
            &mut heap[..]
        };
        let (row_max, col_max) = scratch.split_at_mut(n);
        for _ in 0..RUIZ_PASSES {
            maxima(&lcp.m, d.as_slice(), e.as_slice(), row_max, col_max);
            // A balanced pass (every maximum well inside (½, 2), where the factor is 1) ends
            // the iteration without computing factors.
            if balanced(row_max) && balanced(col_max) {
                break;
            }
            let changed = apply_factors(d.as_mut_slice(), row_max) | apply_factors(e.as_mut_slice(), col_max);
            if !changed {
                break;
            }
        }
        let tau = pow2(lcp.q.as_slice().iter().zip(d.as_slice()).fold(0.0f64, |a, (&q, &d)| a.max((q * d).abs())));
        Equilibration { d, e, tau }
    }

    /// The scaled problem `M'' = D M E`, `q'' = D q / τ`.
    pub fn scale(&self, lcp: &Lcp) -> Lcp {
        let n = lcp.n();
        let mut m = lcp.m.clone();
        for (col, &ej) in m.as_mut_slice().chunks_exact_mut(n.max(1)).zip(self.e.as_slice()) {
            for (x, &di) in col.iter_mut().zip(self.d.as_slice()) {
                *x *= di * ej;
            }
        }
        let mut q = lcp.q.component_mul(&self.d);
        q /= self.tau;
        Lcp { m, q }
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

    /// The scale-free residual `r(z)` of [`crate::lcp`]'s module docs, from the original data,
    /// `z` and `w = M z + q`: `z'' = E⁻¹ z / τ`, `w'' = D w / τ` and the norms of `M''`, `q''`
    /// are formed entry by entry, each the exact value the scaled problem holds, so the result
    /// is the residual computed on `(M'', q'')` (the products of powers of two are exact).
    pub fn residual(&self, lcp: &Lcp, z: &DVector<f64>, w: &DVector<f64>) -> f64 {
        // Row sums of |M''| accumulated down the columns (the storage order), each in column order.
        let n = lcp.n();
        let (d, e) = (self.d.as_slice(), self.e.as_slice());
        let mut sums = vec![0.0f64; n];
        for (col, &ej) in lcp.m.as_slice().chunks_exact(n.max(1)).zip(e) {
            for ((s, &x), &di) in sums.iter_mut().zip(col).zip(d) {
                *s += (x * (di * ej)).abs();
            }
        }
        let m_inf = sums.into_iter().fold(0.0, f64::max);
        self.residual_given_norm(lcp, z, w, m_inf)
    }

    /// [`Equilibration::residual`] with `‖M''‖∞` given (a caller that holds `M''` row by row
    /// sums each row in column order, as `residual` does).
    pub(crate) fn residual_given_norm(&self, lcp: &Lcp, z: &DVector<f64>, w: &DVector<f64>, m_inf: f64) -> f64 {
        let (d, e, tau) = (self.d.as_slice(), self.e.as_slice(), self.tau);
        let mut raw = 0.0f64;
        let mut z_max = 0.0f64;
        for (((&zi, &wi), &di), &ei) in z.as_slice().iter().zip(w.as_slice()).zip(d).zip(e) {
            let zs = zi / ei / tau;
            let ws = wi * di / tau;
            raw = raw.max(zs.min(ws).abs());
            z_max = z_max.max(zs.abs());
        }
        let q_max = lcp.q.as_slice().iter().zip(d).fold(0.0f64, |a, (&q, &di)| a.max((q * di / tau).abs()));
        raw / (1.0 + q_max + m_inf * z_max)
    }
}

/// An LCP with its equilibration, the scaled problem formed (module docs).
#[derive(Debug, Clone)]
pub struct Scaled {
    /// The scaled problem `(M'', q'')`.
    pub lcp: Lcp,
    /// The factors.
    pub eq: Equilibration,
}

impl Scaled {
    /// Equilibrates `lcp` and forms the scaled problem.
    pub fn new(lcp: &Lcp) -> Self {
        let eq = Equilibration::of(lcp);
        Scaled { lcp: eq.scale(lcp), eq }
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
    fn ruiz_factor_equals_its_definition() {
        let mut xs = vec![0.0, 5e-324, f64::MIN_POSITIVE, f64::MAX, f64::INFINITY, f64::NAN, -1.0];
        for k in 0..200_000 {
            // Exponents spread evenly over [−300, 300) (golden-ratio sequence), and [0.4, 2.1].
            let u = (k as f64 * 0.618_033_988_749_895).fract();
            xs.push(10f64.powf(-300.0 + 600.0 * u));
            xs.push(0.4 + 1.7 * u);
        }
        for e in -1022..=1023 {
            // Around every power of two (the ends where the rounding is decided by the root):
            // within a few ulps, and around the 2⁻³⁰ edge of the shortcut.
            let p = 2f64.powi(e);
            for u in -40i64..=40 {
                xs.push(f64::from_bits((p.to_bits() as i64 + u) as u64));
                xs.push(f64::from_bits((p.to_bits() as i64 + (1 << 22) + u) as u64));
                xs.push(f64::from_bits((p.to_bits() as i64 - (1 << 22) + u) as u64));
            }
        }
        for &x in &xs {
            assert_eq!(ruiz_factor(x).to_bits(), pow2(1.0 / x.sqrt()).to_bits(), "x = {x:e}");
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
        assert_eq!(s.eq.z_original(&s.eq.z_scaled(&z)), z);
        // w'' of a scaled point maps back to w exactly up to the rounding of the products.
        let w2 = &s.lcp.m * s.eq.z_scaled(&z) + &s.lcp.q;
        let w = lcp.w(&z);
        assert!((s.eq.w_original(&w2) - &w).amax() <= 1e-12 * w.amax());
    }
}
