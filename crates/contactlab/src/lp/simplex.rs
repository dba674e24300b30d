//! Two-phase dense tableau simplex with Bland's rule.
//!
//! Standard form after adding slacks: `[A_eq 0; A_ub I] (x, s) = b`, `(x, s) ≥ 0`. Each row is
//! scaled by its largest coefficient and negated where `b_i < 0`; one artificial variable per row
//! gives the phase-1 basis. Phase 1 minimises the sum of artificials; its final duals are the
//! Farkas certificate when the optimum is positive.

use nalgebra::DVector;

use super::{DenseLp, LpSettings, LpSolution, LpStatus};

/// Two ratios of the ratio test tie (Bland's rule decides) within `RATIO_TIE` of `1 + |ratio|`.
const RATIO_TIE: f64 = 1e-13;
/// Entries below `DROP_TOL` of the constraint matrix's largest entry are zero.
const DROP_TOL: f64 = 1e-13;
/// An infeasibility certificate is accepted when it passes the Farkas check to this relative
/// tolerance.
const FARKAS_TOL: f64 = 1e-7;
/// An artificial variable leaves the basis on a pivot entry above this.
const ARTIFICIAL_PIVOT: f64 = 1e-9;

struct Tableau {
    m: usize,
    /// Columns: `n` structural, `n_ub` slacks, `m` artificials, then the right-hand side.
    ncol: usize,
    t: Vec<f64>,
    /// Reduced-cost row (length `ncol`, last entry = minus the objective value).
    d: Vec<f64>,
    basis: Vec<usize>,
}

impl Tableau {
    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.t[i * self.ncol + j]
    }

    fn pivot(&mut self, r: usize, s: usize) {
        let nc = self.ncol;
        let p = self.t[r * nc + s];
        for v in &mut self.t[r * nc..(r + 1) * nc] {
            *v /= p;
        }
        let (before, rest) = self.t.split_at_mut(r * nc);
        let (row_r, after) = rest.split_at_mut(nc);
        for row in before.chunks_exact_mut(nc).chain(after.chunks_exact_mut(nc)) {
            let f = row[s];
            if f != 0.0 {
                for (v, &rv) in row.iter_mut().zip(row_r.iter()) {
                    *v -= f * rv;
                }
                row[s] = 0.0;
            }
        }
        let f = self.d[s];
        if f != 0.0 {
            for (v, &rv) in self.d.iter_mut().zip(row_r.iter()) {
                *v -= f * rv;
            }
            self.d[s] = 0.0;
        }
        self.basis[r] = s;
    }

    /// Bland's rule iterations over the entering columns `0..allowed`.
    /// Returns `Ok(())` at optimality, `Err(Some(col))` when column `col` is unbounded, and
    /// `Err(None)` at the pivot limit.
    ///
    /// With `bounded_below` (phase 1, whose objective is ≥ 0) a column with a negative reduced
    /// cost but no positive entry can only be round-off; it is skipped until the next pivot.
    fn run(
        &mut self,
        allowed: usize,
        tol: f64,
        pivots: &mut usize,
        max: usize,
        bounded_below: bool,
    ) -> Result<(), Option<usize>> {
        let rhs = self.ncol - 1;
        let mut skip = vec![false; allowed];
        loop {
            let Some(s) = (0..allowed).find(|&j| !skip[j] && self.d[j] < -tol) else {
                return Ok(());
            };
            let mut best: Option<(usize, f64)> = None;
            for i in 0..self.m {
                let a = self.at(i, s);
                if a > tol {
                    let ratio = self.at(i, rhs) / a;
                    best = match best {
                        None => Some((i, ratio)),
                        Some((bi, br)) => {
                            if ratio < br - RATIO_TIE * (1.0 + br.abs())
                                || (ratio <= br + RATIO_TIE * (1.0 + br.abs()) && self.basis[i] < self.basis[bi])
                            {
                                Some((i, ratio))
                            } else {
                                Some((bi, br))
                            }
                        }
                    };
                }
            }
            let Some((r, _)) = best else {
                if bounded_below {
                    skip[s] = true;
                    continue;
                }
                return Err(Some(s));
            };
            if *pivots >= max {
                return Err(None);
            }
            self.pivot(r, s);
            *pivots += 1;
            skip.iter_mut().for_each(|k| *k = false);
        }
    }
}

pub(super) fn solve(lp: &DenseLp, settings: &LpSettings) -> LpSolution {
    let n = lp.n();
    let m_eq = lp.a_eq.nrows();
    let m_ub = lp.a_ub.nrows();
    let m = m_eq + m_ub;
    let n_struct = n + m_ub;
    let ncol = n_struct + m + 1;
    let rhs = ncol - 1;
    let max_pivots = if settings.max_pivots == 0 { 50 * (m + n) + 100 } else { settings.max_pivots };
    let tol = settings.pivot_tol;

    // Entries this far below the largest coefficient are round-off (e.g. a moment arm computed
    // as p × n for a normal through the reference point); row equilibration would otherwise
    // inflate them into spurious constraints.
    let drop = DROP_TOL * lp.a_eq.amax().max(lp.a_ub.amax());
    let clean = |v: f64| if v.abs() < drop { 0.0 } else { v };
    // Build the equilibrated, sign-normalised tableau.
    let mut t = vec![0.0; m * ncol];
    let mut row_factor = vec![1.0; m]; // original row = factor * tableau row
    for i in 0..m {
        let row = &mut t[i * ncol..(i + 1) * ncol];
        let b = if i < m_eq {
            for j in 0..n {
                row[j] = clean(lp.a_eq[(i, j)]);
            }
            lp.b_eq[i]
        } else {
            let k = i - m_eq;
            for j in 0..n {
                row[j] = clean(lp.a_ub[(k, j)]);
            }
            row[n + k] = 1.0;
            lp.b_ub[k]
        };
        // A row whose every coefficient fell below the drop threshold is a genuinely small-scale
        // row (not round-off) when its right-hand side is not negligible: keep it as given.
        if b.abs() >= drop && row[..n].iter().all(|&v| v == 0.0) {
            for j in 0..n {
                row[j] = if i < m_eq { lp.a_eq[(i, j)] } else { lp.a_ub[(i - m_eq, j)] };
            }
        }
        // Scale by the coefficients only: the pivot tolerance is absolute, so a large |b| must
        // not shrink the coefficients below it.
        let scale = row[..n_struct].iter().fold(0.0f64, |a, &v| a.max(v.abs()));
        let scale = if scale > 0.0 { scale } else { 1.0 };
        let sign = if b < 0.0 { -1.0 } else { 1.0 };
        let f = sign / scale;
        for v in row[..n_struct].iter_mut() {
            *v *= f;
        }
        row[rhs] = b * f;
        row[n_struct + i] = 1.0;
        row_factor[i] = 1.0 / f;
    }
    // Phase-1 reduced costs: d_j = -sum_i t_ij for structural columns, 0 for artificials.
    let mut d = vec![0.0; ncol];
    for i in 0..m {
        for j in 0..n_struct {
            d[j] -= t[i * ncol + j];
        }
        d[rhs] -= t[i * ncol + rhs];
    }
    let mut tab = Tableau { m, ncol, t, d, basis: (0..m).map(|i| n_struct + i).collect() };
    let mut pivots = 0usize;

    let fail = |status: LpStatus, pivots: usize| LpSolution {
        status,
        x: DVector::zeros(n),
        objective: f64::NAN,
        certificate: None,
        ray: None,
        residual: f64::INFINITY,
        pivots,
    };

    match tab.run(n_struct, tol, &mut pivots, max_pivots, true) {
        Ok(()) => {}
        Err(None) => return fail(LpStatus::IterationLimit, pivots),
        // Phase 1 is bounded below by 0: an "unbounded" column means round-off trouble.
        Err(Some(_)) => return fail(LpStatus::NumericalError, pivots),
    }
    let phase1 = -tab.d[rhs];
    if !phase1.is_finite() {
        return fail(LpStatus::NumericalError, pivots);
    }
    if phase1 > settings.feas_tol {
        // Duals of phase 1: for artificial column i (unit vector), d = 1 - y_i.
        let y: Vec<f64> = (0..m).map(|i| (1.0 - tab.d[n_struct + i]) / row_factor[i]).collect();
        let y_eq = DVector::from_iterator(m_eq, y[..m_eq].iter().copied());
        let y_ub = DVector::from_iterator(m_ub, y[m_eq..].iter().copied());
        let certified = lp.check_farkas(&y_eq, &y_ub, FARKAS_TOL).is_some();
        let mut sol = fail(if certified { LpStatus::Infeasible } else { LpStatus::NumericalError }, pivots);
        sol.certificate = Some((y_eq, y_ub));
        return sol;
    }
    // Drive artificial variables out of the basis (they sit at zero); drop redundant rows.
    let mut keep = vec![true; m];
    for i in 0..m {
        if tab.basis[i] >= n_struct {
            let col = (0..n_struct).max_by(|&a, &b| tab.at(i, a).abs().total_cmp(&tab.at(i, b).abs()));
            match col {
                Some(j) if tab.at(i, j).abs() > ARTIFICIAL_PIVOT => {
                    // The artificial sits at (at most) the feasibility tolerance: make it exactly
                    // zero so that a pivot of either sign keeps the basis feasible.
                    tab.t[i * ncol + rhs] = 0.0;
                    tab.pivot(i, j);
                    pivots += 1;
                }
                _ => keep[i] = false,
            }
        }
    }
    if keep.iter().any(|k| !k) {
        let mut t2 = Vec::with_capacity(tab.t.len());
        let mut b2 = Vec::new();
        for i in 0..m {
            if keep[i] {
                t2.extend_from_slice(&tab.t[i * ncol..(i + 1) * ncol]);
                b2.push(tab.basis[i]);
            }
        }
        tab.m = b2.len();
        tab.t = t2;
        tab.basis = b2;
    }
    // Phase 2 reduced costs, with the objective scaled to unit ∞-norm (the reduced-cost
    // tolerance is absolute).
    let c_scale = if lp.c.amax() > 0.0 { lp.c.amax() } else { 1.0 };
    let c_ext = |j: usize| if j < n { lp.c[j] / c_scale } else { 0.0 };
    let mut d = vec![0.0; ncol];
    for j in 0..ncol {
        d[j] = if j < n_struct { c_ext(j) } else { 0.0 };
    }
    for i in 0..tab.m {
        let cb = c_ext(tab.basis[i]);
        if cb != 0.0 {
            for j in 0..ncol {
                d[j] -= cb * tab.at(i, j);
            }
        }
    }
    tab.d = d;
    let outcome = tab.run(n_struct, tol, &mut pivots, max_pivots, false);
    let mut x = DVector::zeros(n);
    for i in 0..tab.m {
        let b = tab.basis[i];
        if b < n {
            x[b] = tab.at(i, rhs).max(0.0);
        }
    }
    match outcome {
        Ok(()) => {
            let residual = lp.residual(&x);
            let status =
                if residual <= settings.feas_tol * 10.0 { LpStatus::Optimal } else { LpStatus::NumericalError };
            LpSolution { status, objective: lp.c.dot(&x), x, certificate: None, ray: None, residual, pivots }
        }
        Err(None) => fail(LpStatus::IterationLimit, pivots),
        Err(Some(s)) => {
            // Ray: entering variable s rises by 1, basics fall by the column entries.
            let mut ray = DVector::zeros(n_struct);
            ray[s] = 1.0;
            for i in 0..tab.m {
                let b = tab.basis[i];
                if b < n_struct {
                    ray[b] = -tab.at(i, s);
                }
            }
            let ray = DVector::from_iterator(n, ray.iter().take(n).copied());
            let residual = lp.residual(&x);
            LpSolution {
                status: LpStatus::Unbounded,
                objective: f64::NEG_INFINITY,
                x,
                certificate: None,
                ray: Some(ray),
                residual,
                pivots,
            }
        }
    }
}
