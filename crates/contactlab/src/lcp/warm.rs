//! Warm starts for sequences of nearby LCPs.
//!
//! Time-stepping, continuation, return maps and parameter sweeps solve long runs of LCPs that
//! differ little from one to the next, and most often keep the same *active set* `α`: the `z_i`
//! of the final complementary basis (the rest has `z = 0`, `w ≥ 0`). A [`WarmStart`] remembers
//! the active set of the last solution (its basis, [`LcpSolution::basis`], which holds the
//! degenerate `z_i = 0` a nonsingular `M_αα` needs; `z > 0` where no basis came with the
//! point); [`solve_warm`] first tries it:
//!
//! ```text
//!     M''_αα z''_α = −q''_α     (one LU factorisation, on the equilibrated problem),
//!     z''_ᾱ = 0,                z = τ E z'',  w = M z + q,
//! ```
//!
//! and accepts the point under exactly the check every other solve passes: the scale-free
//! residual of [`crate::lcp`] at most [`LcpSettings::tolerance`], and the acceptance on the data
//! as given of the module docs there (negative entries of `z''_α`
//! are set to zero first, so a basis that no longer fits shows as a large residual). When the
//! active set has changed (the residual is too large, or `M''_αα` is singular), the problem is
//! solved cold by [`super::solve`] and its active set kept for the next call. Either way the
//! status, the point and its residual mean what they mean for a cold solve; the method says
//! which route gave it ([`LcpMethod::WarmStart`]: no pivot).
//!
//! The factorisation is on the equilibrated problem, so a sequence given in other units makes
//! the same choices.

use nalgebra::{DMatrix, DVector};

use super::scaling::Equilibration;
use super::{solve, Lcp, LcpMethod, LcpSettings, LcpSolution, LcpStatus};
use crate::Error;

/// What a [`WarmStart`] has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct WarmStats {
    /// Problems solved through it.
    pub solves: usize,
    /// Solved by the remembered active set (one factorisation, no pivot).
    pub reused: usize,
    /// Solved cold (no active set yet, or it no longer fitted).
    pub cold: usize,
    /// Lemke pivots of the cold solves.
    pub pivots: usize,
}

/// The active set of the last solution of a sequence (module docs).
#[derive(Debug, Clone)]
pub struct WarmStart {
    /// `active[i]`: `z_i` in the active set of the last solution (`None`: no solution yet).
    active: Option<Vec<bool>>,
    /// Whether remembered active sets are tried (`false`: every solve cold, counted alike).
    enabled: bool,
    /// Counters.
    pub stats: WarmStats,
}

impl Default for WarmStart {
    fn default() -> Self {
        Self::new()
    }
}

impl WarmStart {
    /// A warm start with nothing remembered (the first solve is cold).
    pub fn new() -> Self {
        WarmStart { active: None, enabled: true, stats: WarmStats::default() }
    }

    /// Every solve cold, with the same counters: the reference a warm run is compared with.
    pub fn cold() -> Self {
        WarmStart { enabled: false, ..Self::new() }
    }

    /// The remembered active set, if any.
    pub fn active(&self) -> Option<&[bool]> {
        self.active.as_deref()
    }

    /// Forgets the active set (the next solve is cold); the counters stay.
    pub fn reset(&mut self) {
        self.active = None;
    }
}

/// Solves `lcp`, trying the active set remembered in `warm` first (module docs).
pub fn solve_warm(lcp: &Lcp, settings: &LcpSettings, warm: &mut WarmStart) -> Result<LcpSolution, Error> {
    lcp.validate()?;
    settings.validate(lcp.n())?;
    warm.stats.solves += 1;
    if let Some(active) = warm.active.as_deref().filter(|a| warm.enabled && a.len() == lcp.n()) {
        if let Some(sol) = solve_on_active_set(lcp, active, settings) {
            warm.stats.reused += 1;
            return Ok(sol);
        }
    }
    let sol = solve(lcp, settings)?;
    warm.stats.cold += 1;
    warm.stats.pivots += sol.pivots;
    warm.active = (warm.enabled && sol.status == LcpStatus::Solved)
        .then(|| sol.basis.clone().unwrap_or_else(|| sol.z.iter().map(|&z| z > 0.0).collect()));
    Ok(sol)
}

/// The point of the active set `active` (module docs), if it passes the residual check.
pub fn solve_on_active_set(lcp: &Lcp, active: &[bool], settings: &LcpSettings) -> Option<LcpSolution> {
    let n = lcp.n();
    let eq = Equilibration::of(lcp);
    let alpha: Vec<usize> = (0..n).filter(|&i| active[i]).collect();
    let (d, e, tau) = (eq.d.as_slice(), eq.e.as_slice(), eq.tau);
    let mut z_scaled = DVector::zeros(n);
    if !alpha.is_empty() {
        let k = alpha.len();
        let m = DMatrix::from_fn(k, k, |a, b| {
            let (i, j) = (alpha[a], alpha[b]);
            lcp.m[(i, j)] * (d[i] * e[j])
        });
        let rhs = DVector::from_fn(k, |a, _| -(lcp.q[alpha[a]] * d[alpha[a]] / tau));
        let x = m.lu().solve(&rhs)?;
        for (a, &i) in alpha.iter().enumerate() {
            z_scaled[i] = x[a].max(0.0);
        }
    }
    let z = eq.z_original(&z_scaled);
    let w = lcp.w(&z);
    let residual = eq.residual(lcp, &z, &w);
    if residual.is_nan() || residual > settings.tolerance {
        return None;
    }
    let mut sol = LcpSolution {
        status: LcpStatus::Solved,
        method: LcpMethod::WarmStart,
        reason: None,
        proof: crate::verified::Proof::none(super::NOT_CHECKED),
        z,
        w,
        residual,
        violation: f64::INFINITY,
        pivots: 0,
        basis: Some(active.to_vec()),
    };
    super::accept(lcp, &mut sol, Some(active), settings);
    (sol.status == LcpStatus::Solved).then_some(sol)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `M = A Aᵀ + I` (positive definite, one solution per `q`) from a fixed integer pattern.
    fn pd(n: usize) -> DMatrix<f64> {
        let a = DMatrix::from_fn(n, n, |i, j| (((i * 7 + j * 13) % 11) as f64 - 5.0) / 5.0);
        &a * a.transpose() + DMatrix::identity(n, n)
    }

    /// A slowly drifting `q`: the active set changes a few times along the sequence.
    fn q_at(n: usize, k: usize) -> DVector<f64> {
        DVector::from_fn(n, |i, _| ((i as f64 * 1.3 + k as f64 * 0.002).sin()) - 0.2)
    }

    fn run(scale: f64, warm: &mut WarmStart) -> Vec<DVector<f64>> {
        let m = pd(8) * scale;
        (0..400)
            .map(|k| {
                let lcp = Lcp::new(m.clone(), q_at(8, k) * scale).unwrap();
                let s = solve_warm(&lcp, &LcpSettings::default(), warm).unwrap();
                assert_eq!(s.status, LcpStatus::Solved);
                assert!(crate::lcp::verify::componentwise_error(&lcp, &s.z) <= 1e-12);
                s.z
            })
            .collect()
    }

    #[test]
    fn a_drifting_sequence_reuses_active_sets_and_agrees_with_cold_solves() {
        let (mut warm, mut cold) = (WarmStart::new(), WarmStart::cold());
        let (zw, zc) = (run(1.0, &mut warm), run(1.0, &mut cold));
        for (a, b) in zw.iter().zip(&zc) {
            assert!((a - b).amax() <= 1e-12 * (1.0 + b.amax()), "{a} vs {b}");
        }
        let (w, c) = (warm.stats, cold.stats);
        assert_eq!((w.solves, c.solves, c.reused, c.cold), (400, 400, 0, 400));
        // The active set changed along the way (some cold solves after the first), and was kept
        // most of the time.
        assert!(w.cold > 1 && w.reused > 300, "{w:?}");
        assert!(c.pivots >= 5 * w.pivots, "{w:?} against {c:?}");
    }

    #[test]
    fn units_do_not_change_which_solves_are_reused() {
        let mut base = WarmStart::new();
        let z0 = run(1.0, &mut base);
        for scale in [1e-8, 1e8] {
            let mut warm = WarmStart::new();
            let z = run(scale, &mut warm);
            assert_eq!(warm.stats, base.stats, "scale {scale}");
            // z does not depend on a common factor of M and q.
            for (a, b) in z.iter().zip(&z0) {
                assert!((a - b).amax() <= 1e-12 * (1.0 + b.amax()));
            }
        }
    }

    #[test]
    fn a_stale_active_set_is_not_accepted() {
        // 0 ≤ z ⟂ z + q ≥ 0, so z = max(−q, 0). For q = (−1, 1) the active set is {0}; for
        // q = (1, −1) that set gives z₀ = −1, set to 0, and leaves w₁ = −1 < 0: refused, solved
        // cold, and the new set {1} kept.
        let eye = DMatrix::identity(2, 2);
        let mut warm = WarmStart::new();
        let a = Lcp::new(eye.clone(), DVector::from_vec(vec![-1.0, 1.0])).unwrap();
        let s = solve_warm(&a, &LcpSettings::default(), &mut warm).unwrap();
        assert_eq!((s.z[0], s.z[1]), (1.0, 0.0));
        assert_eq!(warm.active(), Some(&[true, false][..]));
        let b = Lcp::new(eye, DVector::from_vec(vec![1.0, -1.0])).unwrap();
        let s = solve_warm(&b, &LcpSettings::default(), &mut warm).unwrap();
        assert_eq!(s.method, LcpMethod::Lemke);
        assert_eq!((s.z[0], s.z[1]), (0.0, 1.0));
        assert_eq!((warm.stats.reused, warm.stats.cold), (0, 2));
        // The same problem again: now the set fits.
        let s = solve_warm(&b, &LcpSettings::default(), &mut warm).unwrap();
        assert_eq!((s.method, s.pivots), (LcpMethod::WarmStart, 0));
        assert_eq!(warm.stats.reused, 1);
    }
}
