//! Small dense linear programs, solved by our own two-phase simplex method.
//!
//! The problem is
//!
//! ```text
//!     minimise   cᵀ x
//!     subject to A_eq x = b_eq,   A_ub x ≤ b_ub,   x ≥ 0.
//! ```
//!
//! This solver exists for the many *tiny* LPs (a few dozen variables) that the LCP solution
//! enumeration and the matrix-class tests solve thousands of times; for anything larger, or with
//! cones, use [`crate::conic`] (Clarabel). It uses a dense tableau, row equilibration and Bland's
//! rule, so it cannot cycle.
//!
//! Every result carries an [`LpStatus`]. An infeasible problem comes with a Farkas certificate
//! `(y_eq, y_ub)` satisfying
//!
//! ```text
//!     A_eqᵀ y_eq + A_ubᵀ y_ub ≤ 0,    y_ub ≤ 0,    b_eqᵀ y_eq + b_ubᵀ y_ub > 0,
//! ```
//!
//! which proves that no `x ≥ 0` satisfies the constraints (multiply the constraints by `y` and
//! compare signs); [`DenseLp::check_farkas`] verifies one.

pub mod centring;
mod simplex;

use nalgebra::{DMatrix, DVector};

use crate::interval::Interval;
use crate::Error;

/// The conic fallback's optimum is accepted when its relative residual is at most this.
pub const ACCEPT_RESIDUAL: f64 = 1e-7;
/// The conic fallback's infeasibility certificate is accepted when it passes the Farkas check
/// to this relative tolerance.
pub const CONIC_FARKAS_TOL: f64 = 1e-6;

/// Outcome of a dense LP solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LpStatus {
    /// An optimal point was found and verified against the original data.
    Optimal,
    /// No `x ≥ 0` satisfies the constraints; a Farkas certificate is attached.
    Infeasible,
    /// The objective is unbounded below on the feasible set; a ray is attached.
    Unbounded,
    /// The pivot limit was reached before optimality was proved.
    IterationLimit,
    /// Round-off made the result unreliable (the verified residual is too large).
    NumericalError,
}

/// A dense LP in the form `min cᵀx, A_eq x = b_eq, A_ub x ≤ b_ub, x ≥ 0`.
#[derive(Debug, Clone)]
pub struct DenseLp {
    /// Objective coefficients `c` (length `n`).
    pub c: DVector<f64>,
    /// Equality constraint matrix (`m_eq × n`, may have zero rows).
    pub a_eq: DMatrix<f64>,
    /// Equality right-hand side.
    pub b_eq: DVector<f64>,
    /// Inequality constraint matrix (`m_ub × n`, may have zero rows).
    pub a_ub: DMatrix<f64>,
    /// Inequality right-hand side.
    pub b_ub: DVector<f64>,
}

/// Result of [`DenseLp::solve`].
#[derive(Debug, Clone)]
pub struct LpSolution {
    /// What the solver concluded.
    pub status: LpStatus,
    /// The primal point (meaningful when `status` is `Optimal`).
    pub x: DVector<f64>,
    /// `cᵀx` at `x`.
    pub objective: f64,
    /// Farkas certificate `(y_eq, y_ub)` when `status` is `Infeasible`.
    pub certificate: Option<(DVector<f64>, DVector<f64>)>,
    /// A recession direction `d ≥ 0` with `A_eq d = 0`, `A_ub d ≤ 0`, `cᵀd < 0` when `Unbounded`.
    pub ray: Option<DVector<f64>>,
    /// Largest violation of the constraints (and of `x ≥ 0`) at `x`, relative to the data and `x`
    /// ([`DenseLp::residual`]).
    pub residual: f64,
    /// Simplex pivots performed (both phases).
    pub pivots: usize,
}

/// Settings of the dense simplex.
#[derive(Debug, Clone, Copy)]
pub struct LpSettings {
    /// Pivot tolerance on (equilibrated) tableau entries.
    pub pivot_tol: f64,
    /// Feasibility tolerance (relative to `1 + |b|∞`).
    pub feas_tol: f64,
    /// Maximum number of pivots; `0` means `50 (m + n) + 100`.
    pub max_pivots: usize,
}

impl Default for LpSettings {
    fn default() -> Self {
        Self { pivot_tol: 1e-11, feas_tol: 1e-9, max_pivots: 0 }
    }
}

impl DenseLp {
    /// A feasibility problem (zero objective) in `n` variables.
    pub fn feasibility(
        n: usize,
        a_eq: DMatrix<f64>,
        b_eq: DVector<f64>,
        a_ub: DMatrix<f64>,
        b_ub: DVector<f64>,
    ) -> Self {
        Self { c: DVector::zeros(n), a_eq, b_eq, a_ub, b_ub }
    }

    /// Number of variables.
    pub fn n(&self) -> usize {
        self.c.len()
    }

    /// Checks dimensions and finiteness of the data.
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.n();
        let dims_ok = self.a_eq.ncols() == n
            && self.a_ub.ncols() == n
            && self.a_eq.nrows() == self.b_eq.len()
            && self.a_ub.nrows() == self.b_ub.len();
        if !dims_ok {
            return Err(Error::Dimension(format!(
                "dense LP: c has {n} entries, A_eq is {}x{}, b_eq {}, A_ub is {}x{}, b_ub {}",
                self.a_eq.nrows(),
                self.a_eq.ncols(),
                self.b_eq.len(),
                self.a_ub.nrows(),
                self.a_ub.ncols(),
                self.b_ub.len()
            )));
        }
        let finite = self.c.iter().all(|v| v.is_finite())
            && self.a_eq.iter().all(|v| v.is_finite())
            && self.b_eq.iter().all(|v| v.is_finite())
            && self.a_ub.iter().all(|v| v.is_finite())
            && self.b_ub.iter().all(|v| v.is_finite());
        if !finite {
            return Err(Error::NonFinite("dense LP data".into()));
        }
        Ok(())
    }

    /// Solves the LP with the given settings.
    pub fn solve(&self, settings: &LpSettings) -> Result<LpSolution, Error> {
        self.validate()?;
        Ok(simplex::solve(self, settings))
    }

    /// Solves with the dense simplex and, if that ends in numerical trouble or at its pivot limit,
    /// again with Clarabel (interior point), whose answer is verified the same way.
    pub fn solve_robust(&self, settings: &LpSettings) -> Result<LpSolution, Error> {
        let first = self.solve(settings)?;
        if !matches!(first.status, LpStatus::NumericalError | LpStatus::IterationLimit) {
            return Ok(first);
        }
        use crate::conic::{Cone, ConicProgram, ConicStatus};
        let (me, mu, n) = (self.a_eq.nrows(), self.a_ub.nrows(), self.n());
        let mut a = DMatrix::zeros(me + mu + n, n);
        a.view_mut((0, 0), (me, n)).copy_from(&self.a_eq);
        a.view_mut((me, 0), (mu, n)).copy_from(&self.a_ub);
        a.view_mut((me + mu, 0), (n, n)).copy_from(&(-DMatrix::<f64>::identity(n, n)));
        let mut b = DVector::zeros(me + mu + n);
        b.rows_mut(0, me).copy_from(&self.b_eq);
        b.rows_mut(me, mu).copy_from(&self.b_ub);
        let mut cones = Vec::new();
        if me > 0 {
            cones.push(Cone::Zero(me));
        }
        cones.push(Cone::Nonnegative(mu + n));
        let sol = ConicProgram { c: self.c.clone(), a, b, cones }.solve()?;
        let mut out = LpSolution {
            status: LpStatus::NumericalError,
            x: sol.x.map(|v| v.max(0.0)),
            objective: sol.objective,
            certificate: None,
            ray: None,
            residual: f64::INFINITY,
            pivots: first.pivots,
        };
        match sol.status {
            ConicStatus::Solved => {
                out.residual = self.residual(&out.x);
                if out.residual <= ACCEPT_RESIDUAL {
                    out.status = LpStatus::Optimal;
                }
            }
            ConicStatus::Infeasible => {
                let z = sol.certificate.unwrap_or_else(|| DVector::zeros(me + mu + n));
                let y_eq = -z.rows(0, me).into_owned();
                let y_ub = -z.rows(me, mu).into_owned();
                if self.check_farkas(&y_eq, &y_ub, CONIC_FARKAS_TOL).is_some() {
                    out.status = LpStatus::Infeasible;
                    out.certificate = Some((y_eq, y_ub));
                    out.residual = 0.0;
                }
            }
            ConicStatus::Unbounded => {
                out.status = LpStatus::Unbounded;
                out.ray = sol.ray;
            }
            _ => {}
        }
        Ok(out)
    }

    /// Largest constraint violation at `x`, relative to
    /// `1 + max(|b_eq|∞, |b_ub|∞) + max(|A_eq|, |A_ub|)·|x|∞`.
    pub fn residual(&self, x: &DVector<f64>) -> f64 {
        let scale = 1.0 + self.b_eq.amax().max(self.b_ub.amax()) + self.a_eq.amax().max(self.a_ub.amax()) * x.amax();
        let mut r: f64 = x.iter().fold(0.0, |acc, &v| acc.max(-v));
        if self.a_eq.nrows() > 0 {
            r = r.max((&self.a_eq * x - &self.b_eq).amax());
        }
        if self.a_ub.nrows() > 0 {
            let s = &self.a_ub * x - &self.b_ub;
            r = r.max(s.iter().fold(0.0, |acc, &v| acc.max(v)));
        }
        r / scale
    }

    /// The solver's verdict proved in interval arithmetic on the data as given
    /// ([`crate::verified::prove_point`]): for `Optimal`, a feasible point enclosed near `x`
    /// (feasibility, not optimality); for `Infeasible`, the Farkas certificate `(y_eq, u = −y_ub)`
    /// normalised to `b_eqᵀy_eq − b_ubᵀu = 1`, a point of `{u ≥ 0, A_ubᵀu − A_eqᵀy_eq ≥ 0}` (then
    /// any `x ≥ 0` would give `0 ≥ (A_eqᵀy_eq − A_ubᵀu)ᵀx ≥ b_eqᵀy_eq − b_ubᵀu = 1`), or, when
    /// that vertex is degenerate, a certificate inside that set
    /// ([`centring::prove_point_centred`]).
    pub fn prove(&self, sol: &LpSolution) -> crate::verified::Proof {
        self.prove_enclosed(sol, None)
    }

    /// [`DenseLp::prove`] for every LP whose matrices lie in `enclosure` (the floats of `self`
    /// approximating them): the proof is about the exact data the enclosure was computed from
    /// ([`LpBuilder::enclosure`]). `None`: the floats are the data.
    pub fn prove_enclosed(&self, sol: &LpSolution, enclosure: Option<&LpEnclosure>) -> crate::verified::Proof {
        use crate::verified::{prove_point, MatrixEnclosure, Polyhedron, Proof, Sign};
        use centring::prove_point_centred;
        let (me, mu, n) = (self.a_eq.nrows(), self.a_ub.nrows(), self.n());
        if enclosure.is_some_and(|e| e.a_eq.shape() != self.a_eq.shape() || e.a_ub.shape() != self.a_ub.shape()) {
            return Proof::none("the LP's enclosure does not match its matrices");
        }
        match sol.status {
            LpStatus::Optimal => {
                let p = Polyhedron {
                    sign: vec![Sign::NonNegative; n],
                    a_eq: self.a_eq.clone(),
                    b_eq: self.b_eq.clone(),
                    a_ge: -&self.a_ub,
                    b_ge: -&self.b_ub,
                    enclosure: enclosure.map(|e| MatrixEnclosure { a_eq: e.a_eq.clone(), a_ge: e.a_ub.map(|v| -v) }),
                };
                Proof::from_check(prove_point(&p, &sol.x))
            }
            LpStatus::Infeasible => {
                let Some((y_eq, y_ub)) = &sol.certificate else { return Proof::none("no certificate") };
                let margin = self.b_eq.dot(y_eq) + self.b_ub.dot(y_ub);
                if !(margin > 0.0 && margin.is_finite()) {
                    return Proof::none("the certificate has no positive margin");
                }
                let mut sign = vec![Sign::Free; me];
                sign.extend(std::iter::repeat_n(Sign::NonNegative, mu));
                let mut a_ge = DMatrix::zeros(n, me + mu);
                for j in 0..n {
                    for i in 0..me {
                        a_ge[(j, i)] = -self.a_eq[(i, j)];
                    }
                    for i in 0..mu {
                        a_ge[(j, me + i)] = self.a_ub[(i, j)];
                    }
                }
                let a_eq = DMatrix::from_fn(1, me + mu, |_, c| if c < me { self.b_eq[c] } else { -self.b_ub[c - me] });
                let guess = DVector::from_fn(me + mu, |r, _| (if r < me { y_eq[r] } else { -y_ub[r - me] }) / margin);
                // Aᵀ's enclosure, with the same signs; the row bᵀ is exact data.
                let enclosure = enclosure.map(|e| MatrixEnclosure {
                    a_eq: a_eq.map(Interval::exact),
                    a_ge: DMatrix::from_fn(
                        n,
                        me + mu,
                        |j, c| if c < me { -e.a_eq[(c, j)] } else { e.a_ub[(c - me, j)] },
                    ),
                });
                let p = Polyhedron {
                    sign,
                    a_eq,
                    b_eq: DVector::from_element(1, 1.0),
                    a_ge,
                    b_ge: DVector::zeros(n),
                    enclosure,
                };
                // The simplex's certificate is a vertex, often a degenerate one: centred if need be.
                Proof::from_check(prove_point_centred(&p, &guess))
            }
            _ => Proof::none("no verdict to prove"),
        }
    }

    /// Checks a Farkas certificate `(y_eq, y_ub)` of infeasibility (see the module docs).
    /// Returns the margin `b_eqᵀy_eq + b_ubᵀy_ub` normalised by `|y|₁` when the sign
    /// conditions hold to within `tol`, otherwise `None`.
    pub fn check_farkas(&self, y_eq: &DVector<f64>, y_ub: &DVector<f64>, tol: f64) -> Option<f64> {
        let norm = y_eq.lp_norm(1) + y_ub.lp_norm(1);
        if norm == 0.0 || !norm.is_finite() {
            return None;
        }
        if y_ub.iter().any(|&v| v > tol * norm) {
            return None;
        }
        let mut aty = DVector::zeros(self.n());
        if self.a_eq.nrows() > 0 {
            aty += self.a_eq.transpose() * y_eq;
        }
        if self.a_ub.nrows() > 0 {
            aty += self.a_ub.transpose() * y_ub;
        }
        let amax = 1.0 + self.a_eq.amax().max(self.a_ub.amax());
        if aty.iter().any(|&v| v > tol * norm * amax) {
            return None;
        }
        // The margin must beat what the (tolerated) violations could account for: with
        // Aᵀy ≤ ε, a feasible x of size |x| could still produce bᵀy up to ε|x|₁.
        let violation =
            aty.iter().fold(0.0f64, |a, &v| a.max(v)) / norm + y_ub.iter().fold(0.0f64, |a, &v| a.max(v)) / norm;
        let margin = (self.b_eq.dot(y_eq) + self.b_ub.dot(y_ub)) / norm;
        let b_scale = 1.0 + self.b_eq.amax().max(self.b_ub.amax());
        (margin > 0.0 && margin > 10.0 * violation * b_scale).then_some(margin)
    }
}

/// Row-by-row assembly of a [`DenseLp`]; variables are `x ≥ 0`, a free variable is the
/// difference of two of them.
#[derive(Debug, Clone, Default)]
pub struct LpBuilder {
    n: usize,
    eq: Vec<(Vec<Entry>, f64)>,
    ub: Vec<(Vec<Entry>, f64)>,
    c: Vec<(usize, f64)>,
}

/// A coefficient: its column, its float and an interval enclosing the exact value it stands for.
type Entry = (usize, f64, Interval);

/// Interval enclosures of a [`DenseLp`]'s matrices (same shapes): see
/// [`DenseLp::prove_enclosed`].
#[derive(Debug, Clone, PartialEq)]
pub struct LpEnclosure {
    /// Encloses `A_eq`.
    pub a_eq: DMatrix<Interval>,
    /// Encloses `A_ub`.
    pub a_ub: DMatrix<Interval>,
}

fn exact(row: Vec<(usize, f64)>) -> Vec<Entry> {
    row.into_iter().map(|(j, v)| (j, v, Interval::exact(v))).collect()
}

impl LpBuilder {
    /// A builder over `n` nonnegative variables.
    pub fn new(n: usize) -> Self {
        Self { n, ..Default::default() }
    }

    /// Adds `k` variables and returns the index of the first.
    pub fn add_vars(&mut self, k: usize) -> usize {
        self.n += k;
        self.n - k
    }

    /// Adds `Σ coef·x = rhs`.
    pub fn eq(&mut self, row: Vec<(usize, f64)>, rhs: f64) {
        self.eq.push((exact(row), rhs));
    }

    /// Adds `Σ coef·x ≤ rhs`.
    pub fn le(&mut self, row: Vec<(usize, f64)>, rhs: f64) {
        self.ub.push((exact(row), rhs));
    }

    /// Adds `Σ coef·x ≥ rhs`.
    pub fn ge(&mut self, row: Vec<(usize, f64)>, rhs: f64) {
        self.ge_enclosed(exact(row), rhs);
    }

    /// [`LpBuilder::eq`] with each coefficient's float and an enclosure of its exact value.
    pub fn eq_enclosed(&mut self, row: Vec<(usize, f64, Interval)>, rhs: f64) {
        self.eq.push((row, rhs));
    }

    /// [`LpBuilder::ge`] with each coefficient's float and an enclosure of its exact value.
    pub fn ge_enclosed(&mut self, row: Vec<(usize, f64, Interval)>, rhs: f64) {
        self.ub.push((row.into_iter().map(|(j, v, i)| (j, -v, -i)).collect(), -rhs));
    }

    /// Sets the objective (minimised) `Σ coef·x`.
    pub fn minimize(&mut self, c: Vec<(usize, f64)>) {
        self.c = c;
    }

    /// The assembled LP.
    pub fn build(&self) -> DenseLp {
        let dense = |rows: &[(Vec<Entry>, f64)]| {
            let mut a = DMatrix::zeros(rows.len(), self.n);
            for (i, (r, _)) in rows.iter().enumerate() {
                for &(j, v, _) in r {
                    a[(i, j)] += v;
                }
            }
            (a, DVector::from_iterator(rows.len(), rows.iter().map(|r| r.1)))
        };
        let (a_eq, b_eq) = dense(&self.eq);
        let (a_ub, b_ub) = dense(&self.ub);
        let mut c = DVector::zeros(self.n);
        for &(j, v) in &self.c {
            c[j] += v;
        }
        DenseLp { c, a_eq, b_eq, a_ub, b_ub }
    }

    /// The enclosures of the assembled matrices, when some coefficient was given one wider than
    /// its float ([`LpBuilder::eq_enclosed`]); `None` when the floats are the data.
    pub fn enclosure(&self) -> Option<LpEnclosure> {
        let all = self.eq.iter().chain(&self.ub).flat_map(|(r, _)| r);
        if all.into_iter().all(|&(_, v, i)| i == Interval::exact(v)) {
            return None;
        }
        let dense = |rows: &[(Vec<Entry>, f64)]| {
            let mut a = DMatrix::from_element(rows.len(), self.n, Interval::exact(0.0));
            for (i, (r, _)) in rows.iter().enumerate() {
                for &(j, _, v) in r {
                    a[(i, j)] = a[(i, j)] + v;
                }
            }
            a
        };
        Some(LpEnclosure { a_eq: dense(&self.eq), a_ub: dense(&self.ub) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn lp(c: &[f64], aeq: &[&[f64]], beq: &[f64], aub: &[&[f64]], bub: &[f64]) -> DenseLp {
        let n = c.len();
        let m = |rows: &[&[f64]]| DMatrix::from_fn(rows.len(), n, |i, j| rows[i][j]);
        DenseLp {
            c: DVector::from_column_slice(c),
            a_eq: m(aeq),
            b_eq: DVector::from_column_slice(beq),
            a_ub: m(aub),
            b_ub: DVector::from_column_slice(bub),
        }
    }

    #[test]
    fn textbook_optimum() {
        // max 3x + 5y s.t. x <= 4, 2y <= 12, 3x + 2y <= 18  -> (2, 6), value 36.
        let p = lp(&[-3.0, -5.0], &[], &[], &[&[1.0, 0.0], &[0.0, 2.0], &[3.0, 2.0]], &[4.0, 12.0, 18.0]);
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Optimal);
        assert_relative_eq!(s.objective, -36.0, epsilon = 1e-10);
        assert_relative_eq!(s.x[0], 2.0, epsilon = 1e-10);
        assert_relative_eq!(s.x[1], 6.0, epsilon = 1e-10);
    }

    #[test]
    fn equality_and_negative_rhs() {
        // min x + y s.t. x - y = -1, x + y >= 3 (i.e. -x - y <= -3) -> x = 1, y = 2.
        let p = lp(&[1.0, 1.0], &[&[1.0, -1.0]], &[-1.0], &[&[-1.0, -1.0]], &[-3.0]);
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Optimal);
        assert_relative_eq!(s.objective, 3.0, epsilon = 1e-10);
        assert!(s.residual < 1e-12);
    }

    #[test]
    fn verdicts_are_proved_in_interval_arithmetic() {
        // x + y = 1, x − y ≤ 0.25, x, y ≥ 0: feasible (proved near the optimum); adding
        // x + y ≤ 0.5 makes it infeasible (the certificate proved).
        let mut b = LpBuilder::new(2);
        b.eq(vec![(0, 1.0), (1, 1.0)], 1.0);
        b.le(vec![(0, 1.0), (1, -1.0)], 0.25);
        b.minimize(vec![(0, -1.0)]);
        let p = b.build();
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Optimal);
        assert!(p.prove(&s).is_proved(), "{:?}", p.prove(&s));
        b.le(vec![(0, 1.0), (1, 1.0)], 0.5);
        let q = b.build();
        let s = q.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Infeasible);
        assert!(q.prove(&s).is_proved(), "{:?}", q.prove(&s));
        // A certificate that does not prove infeasibility is not accepted.
        let mut bad = s.clone();
        bad.certificate = Some((DVector::from_element(1, 1.0), DVector::from_vec(vec![0.0, 0.0])));
        assert!(!q.prove(&bad).is_proved());
    }

    #[test]
    fn enclosed_data_are_proved_for_every_member() {
        // a·x = b, x ≥ 0, with the coefficient a known only as an interval around its float 1.
        let with = |lo: f64, hi: f64, b: f64| {
            let mut bld = LpBuilder::new(1);
            bld.eq_enclosed(vec![(0, 1.0, Interval::new(lo, hi).unwrap())], b);
            (bld.build(), bld.enclosure().unwrap())
        };
        // a ∈ [0.9, 1.1], b = 1: x = 1/a ≥ 0 for every member; b = −1: infeasible for every
        // member.
        for b in [1.0, -1.0] {
            let (lp, e) = with(0.9, 1.1, b);
            let s = lp.solve(&LpSettings::default()).unwrap();
            assert!(lp.prove_enclosed(&s, Some(&e)).is_proved(), "b = {b}");
        }
        // a ∈ [−1, 1]: a = 0 has no solution of a·x = 1 and a = −1 has one of a·x = −1, so
        // neither verdict of the float LP holds for every member, and neither is proved.
        for b in [1.0, -1.0] {
            let (lp, e) = with(-1.0, 1.0, b);
            let s = lp.solve(&LpSettings::default()).unwrap();
            assert!(lp.prove(&s).is_proved(), "b = {b}: the floats alone are proved");
            assert!(!lp.prove_enclosed(&s, Some(&e)).is_proved(), "b = {b}");
        }
        // Exact rows need no enclosure.
        let mut bld = LpBuilder::new(1);
        bld.eq(vec![(0, 1.0)], 1.0);
        assert!(bld.enclosure().is_none());
    }

    #[test]
    fn infeasible_has_valid_certificate() {
        // x + y = 1 and x + y >= 2.
        let p = lp(&[0.0, 0.0], &[&[1.0, 1.0]], &[1.0], &[&[-1.0, -1.0]], &[-2.0]);
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Infeasible);
        let (ye, yu) = s.certificate.unwrap();
        assert!(p.check_farkas(&ye, &yu, 1e-9).is_some());
    }

    #[test]
    fn unbounded_has_ray() {
        // min -x s.t. x - y <= 1.
        let p = lp(&[-1.0, 0.0], &[], &[], &[&[1.0, -1.0]], &[1.0]);
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Unbounded);
        let d = s.ray.unwrap();
        assert!(d.iter().all(|&v| v >= 0.0));
        assert!(p.c.dot(&d) < 0.0);
        assert!((d[0] - d[1]) <= 1e-12);
    }

    #[test]
    fn redundant_equalities() {
        // x + y = 1 twice, min x -> (0, 1).
        let p = lp(&[1.0, 0.0], &[&[1.0, 1.0], &[2.0, 2.0]], &[1.0, 2.0], &[], &[]);
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Optimal);
        assert_relative_eq!(s.x[1], 1.0, epsilon = 1e-12);
    }

    #[test]
    fn round_off_rows_are_not_inflated() {
        // The second equality is 1e-17·x − 2e-17·y = 0: round-off of an identically zero row.
        // It must not force x = 2y.
        let p = lp(&[0.0, 0.0], &[&[1.0, 1.0], &[1e-17, -2e-17]], &[1.0, 0.0], &[&[1.0, 0.0]], &[0.1]);
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_eq!(s.status, LpStatus::Optimal);
        assert!(s.x[0] <= 0.1 + 1e-12);
    }

    #[test]
    fn tiny_rows_are_not_certified_infeasible() {
        // Feasible at x = (1, 1): the second row is small-scale, not round-off (review finding).
        let p = lp(&[0.0, 0.0], &[&[1.0, 0.0], &[0.0, 1e-14]], &[1.0, 1e-14], &[], &[]);
        let s = p.solve(&LpSettings::default()).unwrap();
        assert_ne!(s.status, LpStatus::Infeasible);
        // A large right-hand side must not hide the coefficients: x ≤ 1e12 is feasible.
        let p = lp(&[0.0], &[], &[], &[&[1.0]], &[1e12]);
        assert_eq!(p.solve(&LpSettings::default()).unwrap().status, LpStatus::Optimal);
    }

    #[test]
    fn bad_dimensions_are_errors() {
        let mut p = lp(&[1.0, 0.0], &[], &[], &[&[1.0, 1.0]], &[1.0]);
        p.b_ub = DVector::zeros(3);
        assert!(p.solve(&LpSettings::default()).is_err());
        let mut p = lp(&[1.0, 0.0], &[], &[], &[&[1.0, 1.0]], &[1.0]);
        p.c[0] = f64::NAN;
        assert!(p.solve(&LpSettings::default()).is_err());
    }
}
