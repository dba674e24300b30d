//! The constrained solves shared by the modes and the impacts: the small dense system of a set
//! of contacts' constraints for their multipliers (forces at the acceleration level, impulses at
//! the velocity level), and the mass-weighted projection of a state onto constraints.

use nalgebra::{DMatrix, DVector};

use super::modes::{ContactMode, ModeSolution};
use super::{join, split, Lagrangian, State, MAX_CONTACTS};
use crate::mechanics::ContactSystem;
use crate::numeric::gauss;

const MAXK: usize = 2 * MAX_CONTACTS;

/// One contact of a constrained solve, at the acceleration level (forces) or the velocity level
/// (impulses): its mode, the rows its constraints use, the images under `M⁻¹` of the columns its
/// multipliers act on, and the values the constrained quantities must take.
#[derive(Debug, Clone)]
pub(super) struct Part {
    /// Where its multipliers go in the result.
    pub(super) slot: usize,
    /// `Stick` (unknowns `λ_n`, `λ_t`) or `Slip(s)` (unknown `λ_n` with `λ_t = coef·λ_n`).
    pub(super) mode: ContactMode,
    /// `λ_t = coef·λ_n` in slip (`−sμ`; `0` frictionless).
    pub(super) coef: f64,
    pub(super) wn: DVector<f64>,
    pub(super) wt: DVector<f64>,
    /// `M⁻¹` times the column of `λ_n` (`w_n`, or `w_n + coef·w_t` in slip).
    pub(super) col_n: DVector<f64>,
    /// `M⁻¹w_t` (used when sticking).
    pub(super) col_t: DVector<f64>,
    /// Required `w_nᵀx` and, when sticking, `w_tᵀx`.
    pub(super) goal_n: f64,
    pub(super) goal_t: f64,
}

/// Solves the small dense system of the parts' constraints for their multipliers: every part
/// needs `w_nᵀx = goal_n` (and `w_tᵀx = goal_t` when sticking) with `x = base + Σ M⁻¹w λ`. One
/// mechanism for the forces of a mode and for the impulses of an impact. The result goes into
/// `out` (`acc` holds `x`; `out` must start with zero multipliers); `None` if it is not finite.
pub(super) fn solve_parts(
    parts: impl IntoIterator<Item = Part>,
    count: usize,
    base: &DVector<f64>,
    out: &mut ModeSolution,
) -> Option<()> {
    let mut cols: Vec<DVector<f64>> = Vec::with_capacity(2 * count);
    let mut rows: Vec<(DVector<f64>, f64)> = Vec::with_capacity(2 * count);
    // (slot, tangential?, slip coefficient with λ_t = coef·λ_n)
    let mut unk: Vec<(usize, bool, f64)> = Vec::with_capacity(2 * count);
    for p in parts {
        if unk.len() + 2 > MAXK {
            return None;
        }
        match p.mode {
            ContactMode::Stick => {
                cols.push(p.col_n);
                rows.push((p.wn, p.goal_n));
                unk.push((p.slot, false, 0.0));
                cols.push(p.col_t);
                rows.push((p.wt, p.goal_t));
                unk.push((p.slot, true, 0.0));
            }
            ContactMode::Slip(_) => {
                cols.push(p.col_n);
                rows.push((p.wn, p.goal_n));
                unk.push((p.slot, false, p.coef));
            }
            ContactMode::Free => {}
        }
    }
    let k = unk.len();
    out.acc.copy_from(base);
    if k == 0 {
        return base.iter().all(|x| x.is_finite()).then_some(());
    }
    // The k × k system lives in a small stack buffer for the common sizes (zeroing the largest
    // one on every call would cost more than the solve).
    let mut small = [0.0; 36];
    let mut large = Vec::new();
    let a: &mut [f64] = if k <= 6 {
        &mut small[..k * k]
    } else {
        large.resize(k * k, 0.0);
        &mut large
    };
    let mut rhs = [0.0; MAXK];
    for r in 0..k {
        for j in 0..k {
            a[r * k + j] = rows[r].0.dot(&cols[j]);
        }
        rhs[r] = rows[r].1 - rows[r].0.dot(base);
    }
    let rhs_copy = rhs;
    if !gauss(a, &mut rhs, k) {
        // Redundant constraints: minimum-norm multipliers (x is still unique).
        let am = DMatrix::from_fn(k, k, |r, c| rows[r].0.dot(&cols[c]));
        let bm = DVector::from_fn(k, |r, _| rhs_copy[r]);
        let x = min_norm_solve(&am, &bm)?;
        rhs[..k].copy_from_slice(x.as_slice());
        out.redundant = true;
    }
    for j in 0..k {
        out.acc.axpy(rhs[j], &cols[j], 1.0);
        let (slot, tang, coef) = unk[j];
        if tang {
            out.lambda_t[slot] = rhs[j];
        } else {
            out.lambda_n[slot] = rhs[j];
            if coef != 0.0 {
                out.lambda_t[slot] = coef * rhs[j];
            }
        }
    }
    out.acc.iter().all(|x| x.is_finite()).then_some(())
}

impl<S: ContactSystem> Lagrangian<S> {
    /// Projects `q` onto `g = 0` for the contacts in `normal`, then `q̇` onto `ġ = 0` for them and
    /// `ẋ = 0` for the contacts in `tangent` (mass-weighted, minimum-norm corrections).
    pub(super) fn project(&self, q: &mut DVector<f64>, v: &mut DVector<f64>, normal: &[usize], tangent: &[usize]) {
        if normal.is_empty() && tangent.is_empty() {
            return;
        }
        let Some(chol) = self.system.mass_matrix(q).cholesky() else { return };
        // Mass-weighted minimum-norm correction d = M⁻¹Rᵀ(R M⁻¹ Rᵀ)⁻¹ err (pseudo-inverse when the
        // rows are redundant).
        let correct = |rows: &[DVector<f64>], err: &[f64]| -> DVector<f64> {
            let k = rows.len();
            let b: Vec<DVector<f64>> = rows.iter().map(|r| chol.solve(r)).collect();
            let mut a = [0.0; MAXK * MAXK];
            let mut lam = [0.0; MAXK];
            for i in 0..k {
                for j in 0..k {
                    a[i * k + j] = rows[i].dot(&b[j]);
                }
                lam[i] = err[i];
            }
            if !gauss(&mut a, &mut lam, k) {
                let am = DMatrix::from_fn(k, k, |i, j| rows[i].dot(&b[j]));
                let e = DVector::from_column_slice(err);
                let x = min_norm_solve(&am, &e).unwrap_or_else(|| DVector::zeros(k));
                lam[..k].copy_from_slice(x.as_slice());
            }
            let mut d = DVector::<f64>::zeros(rows.first().map_or(0, |r| r.len()));
            for j in 0..k {
                d.axpy(lam[j], &b[j], 1.0);
            }
            d
        };
        let ls = self.length();
        let mut rows = vec![DVector::<f64>::zeros(q.len()); MAXK];
        let mut err = [0.0; MAXK];
        let nn = normal.len().min(MAX_CONTACTS);
        for _ in 0..4 {
            let mut done = true;
            for (k, &i) in normal[..nn].iter().enumerate() {
                rows[k] = self.system.normal_jacobian(i, q);
                err[k] = self.system.gap(i, q);
                done &= err[k].abs() <= super::PROJECTION_TOL * ls;
            }
            if done {
                break;
            }
            *q -= correct(&rows[..nn], &err[..nn]);
        }
        let mut k = 0;
        for &i in &normal[..nn] {
            rows[k] = self.system.normal_jacobian(i, q);
            k += 1;
        }
        for &i in tangent.iter().take(MAX_CONTACTS) {
            rows[k] = self.system.tangent_jacobian(i, q);
            k += 1;
        }
        let mut any = false;
        for j in 0..k {
            err[j] = rows[j].dot(v);
            any |= err[j] != 0.0;
        }
        if any {
            *v -= correct(&rows[..k], &err[..k]);
        }
    }

    /// Puts the contacts in `contacts` exactly on their supports with zero normal velocity
    /// (mass-weighted minimum-norm corrections of `q`, then of `q̇`).
    pub fn project_onto(&self, x: &mut State, contacts: &[usize]) {
        let (mut q, mut v) = split(x);
        self.project(&mut q, &mut v, contacts, &[]);
        *x = join(&q, &v);
    }
}

fn min_norm_solve(a: &DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    crate::numeric::min_norm_solve_small(a, b, super::RANK_TOL)
}

#[cfg(test)]
mod min_norm_tests {
    use super::*;

    #[test]
    fn the_slip_matrix_of_eight_collinear_feet_is_solved_exactly() {
        // A = 1 + x xᵀ-like rank-2 matrix of a comb's eight feet slipping (the case nalgebra's
        // SVD got wrong): the solution satisfies A x = b and is the minimum-norm one (in the
        // row space of Aᵀ... here: orthogonal to A's null space).
        let xs: Vec<f64> = (0..8).map(|i| -0.4 + 0.8 * i as f64 / 7.0).collect();
        let a = DMatrix::from_fn(8, 8, |r, j| 1.0 + xs[r] * (xs[j] - 0.03) / 0.06);
        let b = DVector::from_fn(8, |r, _| 9.81 + 2.0 * xs[r]);
        let x = min_norm_solve(&a, &b).unwrap();
        assert!((&a * &x - &b).amax() <= 1e-12 * b.amax(), "{}", (&a * &x - &b).amax());
        // Any null vector of A is orthogonal to x.
        let svd = (a.transpose() * &a).symmetric_eigen();
        for i in 0..8 {
            if svd.eigenvalues[i] < 1e-10 {
                assert!(svd.eigenvectors.column(i).dot(&x).abs() <= 1e-10 * x.norm());
            }
        }
    }
}
