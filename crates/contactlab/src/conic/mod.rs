//! Conic feasibility and optimisation (LP and second-order cone) over Clarabel, with verified
//! solutions and infeasibility certificates.
//!
//! The general problem is Clarabel's standard form
//!
//! ```text
//!     minimise cᵀx   subject to   A x + s = b,   s ∈ K = K₁ × … × K_p,
//! ```
//!
//! with `Kᵢ` the zero cone `{0}`, the nonnegative orthant, or a second-order cone
//! `{(t, u) : ‖u‖₂ ≤ t}` (friction cones, P4 eq. 4 with Coulomb's law). All these cones are
//! self-dual apart from the zero cone, whose dual is the whole space.
//!
//! * *Primal infeasible*: a certificate `y ∈ K*` with `Aᵀy = 0` and `bᵀy < 0`.
//! * *Dual infeasible* (unbounded objective): a ray `d` with `−A d ∈ K` and `cᵀd < 0`.
//!
//! Certificates and solutions are re-checked on the original data ([`ConicSolution::residual`]).
//! [`find_in_cone`] answers the question most analyses ask: find `x ∈ K` with `A x = b`, or a
//! Farkas vector `y` with `Aᵀy ∈ K*` and `bᵀy < 0` proving that none exists.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::Error;

/// A cone of the product `K`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Cone {
    /// `{0} ⊂ ℝⁿ` (equality constraints).
    Zero(usize),
    /// `ℝⁿ₊`.
    Nonnegative(usize),
    /// `{(t, u) ∈ ℝ × ℝⁿ⁻¹ : ‖u‖₂ ≤ t}`.
    SecondOrder(usize),
}

impl Cone {
    /// Dimension of the cone.
    pub fn dim(&self) -> usize {
        match *self {
            Cone::Zero(n) | Cone::Nonnegative(n) | Cone::SecondOrder(n) => n,
        }
    }

    /// Distance-like violation of `v ∈ self` (0 inside).
    pub fn violation(&self, v: &[f64]) -> f64 {
        match self {
            Cone::Zero(_) => v.iter().fold(0.0, |a, x| a.max(x.abs())),
            Cone::Nonnegative(_) => v.iter().fold(0.0, |a, x| a.max(-x)),
            Cone::SecondOrder(_) => {
                let t = v[0];
                let u = v[1..].iter().map(|x| x * x).sum::<f64>().sqrt();
                ((u - t) / std::f64::consts::SQRT_2).max(0.0)
            }
        }
    }

    /// Violation of `v ∈ self*` (the dual cone).
    pub fn dual_violation(&self, v: &[f64]) -> f64 {
        match self {
            Cone::Zero(_) => 0.0,
            other => other.violation(v),
        }
    }
}

/// Outcome of a conic solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConicStatus {
    /// Optimal point found and verified.
    Solved,
    /// No feasible point; `certificate` holds `y` (module docs).
    Infeasible,
    /// Objective unbounded below; `ray` holds the direction.
    Unbounded,
    /// Iteration or time limit.
    IterationLimit,
    /// Numerical trouble, including certificates or points that fail verification.
    NumericalError,
}

/// A conic program in Clarabel's standard form (module docs).
#[derive(Debug, Clone)]
pub struct ConicProgram {
    /// Objective `c`.
    pub c: DVector<f64>,
    /// Constraint matrix `A` (`m × n`).
    pub a: DMatrix<f64>,
    /// Right-hand side `b` (length `m`).
    pub b: DVector<f64>,
    /// Cones whose dimensions add up to `m`, in row order.
    pub cones: Vec<Cone>,
}

/// Result of [`ConicProgram::solve`].
#[derive(Debug, Clone)]
pub struct ConicSolution {
    /// What the solver concluded (after our verification).
    pub status: ConicStatus,
    /// Primal point.
    pub x: DVector<f64>,
    /// Slack `s = b − A x`.
    pub s: DVector<f64>,
    /// Dual variable (in `K*`).
    pub y: DVector<f64>,
    /// `cᵀx`.
    pub objective: f64,
    /// Infeasibility certificate `y` when `Infeasible`.
    pub certificate: Option<DVector<f64>>,
    /// Unboundedness ray when `Unbounded`.
    pub ray: Option<DVector<f64>>,
    /// Verified residual: for a solution, the relative violation of `A x + s = b, s ∈ K`; for a
    /// certificate, its relative violation of the certificate conditions.
    pub residual: f64,
    /// Interior-point iterations.
    pub iterations: u32,
}

fn to_csc(a: &DMatrix<f64>) -> CscMatrix<f64> {
    let (m, n) = a.shape();
    let mut colptr = Vec::with_capacity(n + 1);
    let mut rowval = Vec::new();
    let mut nzval = Vec::new();
    colptr.push(0);
    for j in 0..n {
        for i in 0..m {
            let v = a[(i, j)];
            if v != 0.0 {
                rowval.push(i);
                nzval.push(v);
            }
        }
        colptr.push(rowval.len());
    }
    CscMatrix::new(m, n, colptr, rowval, nzval)
}

/// Relative tolerance for accepting solutions and certificates.
const VERIFY_TOL: f64 = 1e-6;

impl ConicProgram {
    /// Checks dimensions and finiteness.
    pub fn validate(&self) -> Result<(), Error> {
        let (m, n) = self.a.shape();
        let km: usize = self.cones.iter().map(Cone::dim).sum();
        if self.c.len() != n || self.b.len() != m || km != m {
            return Err(Error::Dimension(format!(
                "conic program: A is {m}x{n}, c has {}, b has {}, cones cover {km} rows",
                self.c.len(),
                self.b.len()
            )));
        }
        if self.cones.iter().any(|k| matches!(k, Cone::SecondOrder(d) if *d < 2) || k.dim() == 0) {
            return Err(Error::Dimension(
                "conic program: cones must be nonempty and second-order cones need dim >= 2".into(),
            ));
        }
        if !self.a.iter().chain(self.b.iter()).chain(self.c.iter()).all(|v| v.is_finite()) {
            return Err(Error::NonFinite("conic program data".into()));
        }
        Ok(())
    }

    fn cone_violation(&self, v: &DVector<f64>, dual: bool) -> f64 {
        let mut off = 0;
        let mut worst: f64 = 0.0;
        for k in &self.cones {
            let part = &v.as_slice()[off..off + k.dim()];
            worst = worst.max(if dual { k.dual_violation(part) } else { k.violation(part) });
            off += k.dim();
        }
        worst
    }

    /// Solves with Clarabel and verifies the answer.
    pub fn solve(&self) -> Result<ConicSolution, Error> {
        self.solve_to(None)
    }

    /// [`Self::solve`] with Clarabel's gap and feasibility tolerances set to `tol` (its
    /// defaults, 1e-8, with `None`): a program whose optimum is wanted to more than the
    /// defaults give (a largest margin near a boundary). The answer is verified as by `solve`.
    pub fn solve_to(&self, tol: Option<f64>) -> Result<ConicSolution, Error> {
        self.validate()?;
        let n = self.a.ncols();
        let p = CscMatrix::zeros((n, n));
        let a = to_csc(&self.a);
        let cones: Vec<SupportedConeT<f64>> = self
            .cones
            .iter()
            .map(|k| match *k {
                Cone::Zero(d) => SupportedConeT::ZeroConeT(d),
                Cone::Nonnegative(d) => SupportedConeT::NonnegativeConeT(d),
                Cone::SecondOrder(d) => SupportedConeT::SecondOrderConeT(d),
            })
            .collect();
        let mut settings = DefaultSettings { verbose: false, ..DefaultSettings::default() };
        if let Some(tol) = tol {
            settings.tol_gap_abs = tol;
            settings.tol_gap_rel = tol;
            settings.tol_feas = tol;
            settings.tol_ktratio = tol.sqrt().min(settings.tol_ktratio);
        }
        let c: Vec<f64> = self.c.iter().copied().collect();
        let b: Vec<f64> = self.b.iter().copied().collect();
        let mut solver = DefaultSolver::new(&p, &c, &a, &b, &cones, settings)
            .map_err(|e| Error::Dimension(format!("Clarabel rejected the problem: {e}")))?;
        solver.solve();
        let sol = &solver.solution;
        let x = DVector::from_column_slice(&sol.x);
        let s = DVector::from_column_slice(&sol.s);
        let y = DVector::from_column_slice(&sol.z);
        let iterations = sol.iterations;
        let a_norm = 1.0 + self.a.amax();
        let mut out = ConicSolution {
            status: ConicStatus::NumericalError,
            objective: self.c.dot(&x),
            x,
            s,
            y,
            certificate: None,
            ray: None,
            residual: f64::INFINITY,
            iterations,
        };
        match sol.status {
            SolverStatus::Solved | SolverStatus::AlmostSolved => {
                let eq = (&self.a * &out.x + &out.s - &self.b).amax();
                let scale = 1.0 + self.b.amax() + a_norm * out.x.amax();
                out.residual = (eq / scale).max(self.cone_violation(&out.s, false) / (1.0 + out.s.amax()));
                if out.residual <= VERIFY_TOL {
                    out.status = ConicStatus::Solved;
                }
            }
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                let yv = out.y.clone();
                let by = self.b.dot(&yv);
                if by < 0.0 {
                    let r = (self.a.transpose() * &yv).amax() / (a_norm * yv.amax().max(crate::numeric::SCALE_FLOOR));
                    let k = self.cone_violation(&yv, true) / yv.amax().max(crate::numeric::SCALE_FLOOR);
                    out.residual = r.max(k);
                    if out.residual <= VERIFY_TOL {
                        out.status = ConicStatus::Infeasible;
                        out.certificate = Some(yv);
                    }
                }
            }
            SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => {
                let d = out.x.clone();
                if self.c.dot(&d) < 0.0 {
                    let ad = -(&self.a * &d);
                    out.residual =
                        self.cone_violation(&ad, false) / (a_norm * d.amax().max(crate::numeric::SCALE_FLOOR));
                    if out.residual <= VERIFY_TOL {
                        out.status = ConicStatus::Unbounded;
                        out.ray = Some(d);
                    }
                }
            }
            SolverStatus::MaxIterations | SolverStatus::MaxTime => out.status = ConicStatus::IterationLimit,
            _ => {}
        }
        Ok(out)
    }
}

/// Result of [`find_in_cone`].
#[derive(Debug, Clone)]
pub struct Feasibility {
    /// `Solved` (a point), `Infeasible` (a certificate), or a failure status.
    pub status: ConicStatus,
    /// `x ∈ K` with `A x = b` when feasible.
    pub point: Option<DVector<f64>>,
    /// `y` with `Aᵀy ∈ K*` and `bᵀy < 0` when infeasible.
    pub certificate: Option<DVector<f64>>,
    /// Verified residual of the point or certificate.
    pub residual: f64,
}

/// Finds `x ∈ K` with `A x = b`, or proves that none exists.
///
/// Internally: `min 0` subject to `A x + s₁ = b, s₁ ∈ {0}` and `−x + s₂ = 0, s₂ ∈ K`; a Clarabel
/// certificate `(y₁, y₂)` gives `Aᵀy₁ = y₂ ∈ K*` and `bᵀy₁ < 0`.
pub fn find_in_cone(a: &DMatrix<f64>, b: &DVector<f64>, cones: &[Cone]) -> Result<Feasibility, Error> {
    let (m, n) = a.shape();
    let kn: usize = cones.iter().map(Cone::dim).sum();
    if kn != n || b.len() != m {
        return Err(Error::Dimension(format!("find_in_cone: A is {m}x{n}, b has {}, cones cover {kn}", b.len())));
    }
    let mut big = DMatrix::zeros(m + n, n);
    big.view_mut((0, 0), (m, n)).copy_from(a);
    big.view_mut((m, 0), (n, n)).copy_from(&(-DMatrix::<f64>::identity(n, n)));
    let mut rhs = DVector::zeros(m + n);
    rhs.rows_mut(0, m).copy_from(b);
    let mut all = Vec::with_capacity(cones.len() + 1);
    if m > 0 {
        all.push(Cone::Zero(m));
    }
    all.extend_from_slice(cones);
    let prog = ConicProgram { c: DVector::zeros(n), a: big, b: rhs, cones: all };
    let sol = prog.solve()?;
    Ok(match sol.status {
        ConicStatus::Solved => {
            Feasibility { status: sol.status, point: Some(sol.x), certificate: None, residual: sol.residual }
        }
        ConicStatus::Infeasible => {
            let y = sol.certificate.as_ref().map(|y| DVector::from_iterator(m, y.iter().take(m).copied()));
            Feasibility { status: sol.status, point: None, certificate: y, residual: sol.residual }
        }
        other => Feasibility { status: other, point: None, certificate: None, residual: sol.residual },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lp_optimum() {
        // min -x - y s.t. x + 2y <= 4, 3x + y <= 6, x, y >= 0 -> (1.6, 1.2).
        let a = DMatrix::from_row_slice(4, 2, &[1.0, 2.0, 3.0, 1.0, -1.0, 0.0, 0.0, -1.0]);
        let b = DVector::from_vec(vec![4.0, 6.0, 0.0, 0.0]);
        let p = ConicProgram { c: DVector::from_vec(vec![-1.0, -1.0]), a, b, cones: vec![Cone::Nonnegative(4)] };
        let s = p.solve().unwrap();
        assert_eq!(s.status, ConicStatus::Solved);
        assert!((s.x[0] - 1.6).abs() < 1e-6 && (s.x[1] - 1.2).abs() < 1e-6);
    }

    #[test]
    fn socp_feasible_point() {
        // x in SOC(3) with x0 = 1, x1 = 0.6.
        let a = DMatrix::from_row_slice(2, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        let f = find_in_cone(&a, &DVector::from_vec(vec![1.0, 0.6]), &[Cone::SecondOrder(3)]).unwrap();
        assert_eq!(f.status, ConicStatus::Solved);
        let x = f.point.unwrap();
        assert!(x[1].hypot(x[2]) <= x[0] + 1e-7);
    }

    #[test]
    fn socp_infeasible_certificate() {
        // x0 = 1, x1 = 2 cannot lie in SOC(3).
        let a = DMatrix::from_row_slice(2, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        let b = DVector::from_vec(vec![1.0, 2.0]);
        let f = find_in_cone(&a, &b, &[Cone::SecondOrder(3)]).unwrap();
        assert_eq!(f.status, ConicStatus::Infeasible);
        let y = f.certificate.unwrap();
        assert!(b.dot(&y) < 0.0);
        let aty = a.transpose() * &y;
        assert!(Cone::SecondOrder(3).violation(aty.as_slice()) < 1e-6 * y.amax());
    }

    #[test]
    fn unbounded_lp_has_ray() {
        // min -x s.t. x >= 0.
        let p = ConicProgram {
            c: DVector::from_vec(vec![-1.0]),
            a: DMatrix::from_element(1, 1, -1.0),
            b: DVector::zeros(1),
            cones: vec![Cone::Nonnegative(1)],
        };
        assert_eq!(p.solve().unwrap().status, ConicStatus::Unbounded);
    }

    #[test]
    fn bad_dimensions() {
        let p = ConicProgram {
            c: DVector::zeros(1),
            a: DMatrix::zeros(2, 1),
            b: DVector::zeros(2),
            cones: vec![Cone::Nonnegative(1)],
        };
        assert!(p.solve().is_err());
    }
}
