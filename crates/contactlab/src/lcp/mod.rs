//! The linear complementarity problem (LCP) core.
//!
//! Find `z ∈ ℝⁿ` with
//!
//! ```text
//!     0 ≤ z  ⟂  w = M z + q ≥ 0,
//! ```
//!
//! written LCP(q, M) (Cottle, Pang & Stone, *The Linear Complementarity Problem*, 1992; paper P4,
//! Appendix A). Contact problems reduce to it: normal impulses or forces are `z`, gap velocities or
//! accelerations are `w` (P4, eq. 25).
//!
//! * [`lemke`]: Lemke's complementary pivoting with a covering vector and lexicographic
//!   degeneracy resolution (no cycling); secondary-ray termination is a status.
//! * [`enumerate`]: all solutions of a small LCP as polyhedral pieces.
//! * [`pivot`]: principal pivot transforms.
//! * [`classes`]: matrix-class tests (P-matrix, column adequate, column quasi-adequate).
//! * [`io`]: the Siconos test-file format and our own TOML/JSON format.
//! * [`verify`]: an independent componentwise check of a returned point on the raw data.
//! * [`proof`]: the solver's verdict proved in interval arithmetic (a solution enclosed on its
//!   complementary piece, or a Farkas certificate of infeasibility), or why it is not.
//! * [`warm`]: warm starts for sequences of nearby problems (the last active set, re-solved by
//!   one factorisation, with the same check).
//!
//! [`solve`] combines them: Lemke first; when Lemke stops on a secondary ray, a feasibility LP or
//! (for `n ≤` [`enumerate::MAX_N`]) exhaustive enumeration decides whether a solution exists, so
//! a "no-solution" answer says whether it is proved.
//!
//! # Scaling
//! Every solver works on the equilibrated problem of [`scaling`] (rows and columns of `M` and the
//! size of `q` balanced by powers of two, exactly), so the same problem in other units takes the
//! same path and gets the same verdict; points are mapped back exactly.
//!
//! # Residual
//! Every returned point is checked with the natural-map residual of the equilibrated problem
//! `(M'', q'')` at `z'' = E⁻¹z/τ`,
//!
//! ```text
//!     r(z) = ‖min(z'', M'' z'' + q'')‖∞ / (1 + ‖q''‖∞ + ‖M''‖∞ ‖z''‖∞),
//! ```
//!
//! which is zero exactly at solutions (the scaling is exact and componentwise positive), does not
//! overflow for data near the limits of `f64`, and does not change when `M` and `q` are given in
//! other units.
//!
//! # Acceptance on the data as given
//! The equilibrated problem can hide what the original data say: a factor that takes a tiny
//! entry into the subnormal range, or a point whose scaled residual is small because the
//! violated row is tiny beside the others. So a point is reported `solved` only when, besides
//! `r(z) ≤` [`LcpSettings::tolerance`], its componentwise relative error on the data as given
//! ([`verify::componentwise_error`], compensated sums, no scaling) is within the same tolerance:
//! first by an a-priori rounding-error bound from one plain pass ([`verify::error_bound`]), and
//! by the compensated route only when that bound does not settle it
//! ([`LcpSolution::violation`] is then the bound).
//! A point that fails it is refined on its complementary piece with the original data
//! ([`verify::refine_on_piece`]), then offered with its round-off entries zeroed (a degenerate
//! basic variable left at `1e-17` where it is zero: [`SNAP_TOL`]); one that still fails is
//! `numerical-error`, with the measured [`LcpSolution::violation`]. Either candidate is judged
//! by the same check, so neither can make a wrong point pass. (A solution may exist that no float vector meets: for
//! `M = [[1e-310, 1], [1e200, 1]]`, `q = (−1, 1)` it is `z = (1e310, 0)`, beyond `f64`.)
//!
//! # Proof
//! `no-solution` is never claimed as proved from a floating-point computation: [`solve`] runs the
//! interval proof of [`proof`] on the data as given (a Farkas certificate; for
//! `n ≤` [`proof::PIECE_PROOF_MAX`], every complementary piece shown empty) and reports it in
//! [`LcpSolution::proof`]; when the proof finds a point in a piece the floating-point routes
//! called empty, that point is the answer (after the acceptance above).

pub mod classes;
pub mod enumerate;
pub mod io;
pub mod lemke;
pub mod optimize;
pub mod pivot;
pub mod proof;
pub mod scaling;
pub mod verify;
pub mod warm;

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::lp::{DenseLp, LpSettings, LpStatus};
use crate::Error;

/// An LCP instance `0 ≤ z ⟂ M z + q ≥ 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lcp {
    /// The square matrix `M` (`n × n`).
    pub m: DMatrix<f64>,
    /// The vector `q` (length `n`).
    pub q: DVector<f64>,
}

impl Lcp {
    /// Builds and validates an LCP (square `M`, matching `q`, finite entries).
    pub fn new(m: DMatrix<f64>, q: DVector<f64>) -> Result<Self, Error> {
        let lcp = Self { m, q };
        lcp.validate()?;
        Ok(lcp)
    }

    /// Problem size `n`.
    pub fn n(&self) -> usize {
        self.q.len()
    }

    /// Checks that `M` is square, `q` matches and all entries are finite.
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.q.len();
        if self.m.nrows() != n || self.m.ncols() != n {
            return Err(Error::Dimension(format!(
                "LCP: M is {}x{} but q has {} entries",
                self.m.nrows(),
                self.m.ncols(),
                n
            )));
        }
        if n == 0 {
            return Err(Error::Dimension("LCP: empty problem (n = 0)".into()));
        }
        // `v · 0` is 0 for a finite entry and NaN otherwise: one sum without branches (vector
        // instructions) instead of a test per entry.
        let finite = |s: &[f64]| s.iter().fold(0.0f64, |a, &v| a + v * 0.0) == 0.0;
        if !(finite(self.m.as_slice()) && finite(self.q.as_slice())) {
            return Err(Error::NonFinite("LCP data (M, q)".into()));
        }
        Ok(())
    }

    /// `w = M z + q`.
    pub fn w(&self, z: &DVector<f64>) -> DVector<f64> {
        &self.m * z + &self.q
    }

    /// The scale-free natural-map residual `r(z)` of the module docs.
    pub fn residual(&self, z: &DVector<f64>) -> f64 {
        if z.len() != self.n() {
            return f64::INFINITY;
        }
        scaling::Equilibration::of(self).residual(self, z, &self.w(z))
    }

    /// Whether the feasible set `{z ≥ 0 : M z + q ≥ 0}` is nonempty, decided by the dense simplex.
    /// Returns `None` if the LP solver could not decide.
    pub fn is_feasible(&self) -> Option<bool> {
        let n = self.n();
        // On the equilibrated problem (feasibility does not change under the scaling).
        let s = scaling::Scaled::new(self);
        let lp = DenseLp::feasibility(n, DMatrix::zeros(0, n), DVector::zeros(0), -s.lcp.m.clone(), s.lcp.q.clone());
        match lp.solve(&LpSettings::default()).ok()?.status {
            LpStatus::Optimal => Some(true),
            LpStatus::Infeasible => Some(false),
            _ => None,
        }
    }
}

/// Why an LCP solve produced no solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoSolutionReason {
    /// Lemke's method ended on a secondary ray; nothing else was proved.
    SecondaryRay,
    /// The feasible set `{z ≥ 0, Mz + q ≥ 0}` is empty (LP Farkas certificate).
    Infeasible,
    /// Exhaustive enumeration of all complementary pieces found none.
    Enumeration,
}

/// Outcome of an LCP solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LcpStatus {
    /// A solution was found and verified (`residual ≤ tolerance`).
    Solved,
    /// No solution was found; see [`LcpSolution::reason`] and [`LcpSolution::proof`].
    NoSolution,
    /// The pivot limit was reached.
    IterationLimit,
    /// Round-off trouble: a tiny pivot, non-finite values, or a point that failed verification.
    NumericalError,
}

impl LcpStatus {
    /// The status as printed in JSON (`solved`, `no-solution`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            LcpStatus::Solved => "solved",
            LcpStatus::NoSolution => "no-solution",
            LcpStatus::IterationLimit => "iteration-limit",
            LcpStatus::NumericalError => "numerical-error",
        }
    }
}

/// Which method produced an [`LcpSolution`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LcpMethod {
    /// `q ≥ 0`: `z = 0` solves it.
    Trivial,
    /// Lemke's complementary pivoting.
    Lemke,
    /// Exhaustive enumeration ([`enumerate`]).
    Enumeration,
    /// The active set of the previous problem of a sequence, re-solved by one factorisation
    /// ([`warm`]).
    WarmStart,
}

/// Result of an LCP solve.
#[derive(Debug, Clone, Serialize)]
pub struct LcpSolution {
    /// What the solver concluded.
    pub status: LcpStatus,
    /// The method that produced the final answer.
    pub method: LcpMethod,
    /// Reason for `NoSolution`.
    pub reason: Option<NoSolutionReason>,
    /// Whether the verdict is proved in interval arithmetic on the data as given
    /// ([`proof`]). [`solve`] proves every `NoSolution` it returns where the proof closes (a
    /// Farkas certificate, or every complementary piece shown empty), and otherwise says why
    /// not; a `Solved` point is proved by [`proof::prove`] (not by [`solve`], which serves
    /// inner loops), and until then reads `none` with the reason "not checked".
    #[serde(flatten)]
    pub proof: crate::verified::Proof,
    /// The point `z` (meaningful when solved; otherwise the last iterate or zeros).
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub z: DVector<f64>,
    /// `w = M z + q`, computed from the original data.
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub w: DVector<f64>,
    /// The natural-map residual of `z` (module docs); `+∞` when no point is available.
    pub residual: f64,
    /// The componentwise relative error of `z` on the data as given ([`verify`]): how far the
    /// point is from complementarity, feasibility and sign, each measured against the size of
    /// the terms it is made of. A `Solved` point has both `residual` and `violation` within the
    /// tolerance. Where the a-priori rounding-error bound ([`verify::error_bound`]) settles
    /// that, this is the bound (an upper bound, a few units of `n · 2⁻⁵³`); else the
    /// compensated measurement.
    pub violation: f64,
    /// Lemke pivots performed.
    pub pivots: usize,
    /// Which `z_i` are basic in the final complementary basis, when the point came from one
    /// (Lemke's method, or a warm start that kept it): a nonsingular `M_αα` even where some
    /// `z_i` of the basis are zero (degenerate), which [`warm`] re-solves next. Not printed.
    #[serde(skip)]
    pub basis: Option<Vec<bool>>,
}

/// A progress callback: called with `(pivots so far, pivot cap)` every 256 pivots.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(usize, usize) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// Settings of [`solve`] and [`lemke::solve`].
#[derive(Debug, Clone)]
pub struct LcpSettings {
    /// Acceptance threshold on the verified residual.
    pub tolerance: f64,
    /// Smallest pivot magnitude, relative to the largest entry of the pivot column.
    pub pivot_tol: f64,
    /// Maximum number of pivots; `0` means [`default_max_pivots`].
    pub max_pivots: usize,
    /// Wall-clock limit in seconds for Lemke's method (`None`: none); when it is reached the solve
    /// ends with [`LcpStatus::IterationLimit`] and the current point.
    pub time_limit: Option<f64>,
    /// Called during long runs of Lemke's method (`None`: silent).
    pub progress: Option<Progress>,
    /// Covering vector `d > 0` of Lemke's method (`None`: all ones).
    pub covering: Option<DVector<f64>>,
    /// In [`solve`]: enumerate to settle a secondary ray when `n ≤` this (at most [`enumerate::MAX_N`]).
    pub enumerate_up_to: usize,
}

impl Default for LcpSettings {
    fn default() -> Self {
        Self {
            tolerance: 1e-9,
            pivot_tol: 1e-12,
            max_pivots: 0,
            time_limit: None,
            progress: None,
            covering: None,
            enumerate_up_to: 12,
        }
    }
}

/// The default pivot cap for size `n`: `1000 (n + 1)`, but no more than about `2·10¹⁰` dictionary
/// updates in all (each pivot costs `(n + 1)²`: some seconds), and at least `2 (n + 1)`. For
/// `n = 200` that is 201 000 pivots; for `n = 2000`, 4 995.
pub fn default_max_pivots(n: usize) -> usize {
    let budget = 2e10 / ((n + 1) as f64).powi(2);
    (budget as usize).clamp(2 * (n + 1), 1000 * (n + 1))
}

impl LcpSettings {
    /// Checks the settings against a problem of size `n`.
    pub fn validate(&self, n: usize) -> Result<(), Error> {
        if !(self.tolerance > 0.0 && self.tolerance.is_finite()) {
            return Err(Error::argument("tolerance", "must be a positive finite number"));
        }
        if !(self.pivot_tol > 0.0 && self.pivot_tol < 1.0) {
            return Err(Error::argument("pivot_tol", "must lie in (0, 1)"));
        }
        if let Some(d) = &self.covering {
            if d.len() != n {
                return Err(Error::Dimension(format!("covering vector has {} entries, n = {n}", d.len())));
            }
            if !d.iter().all(|&v| v > 0.0 && v.is_finite()) {
                return Err(Error::argument("covering", "entries must be finite and > 0"));
            }
        }
        if self.enumerate_up_to > enumerate::MAX_N {
            return Err(Error::argument("enumerate_up_to", format!("must be <= {}", enumerate::MAX_N)));
        }
        Ok(())
    }
}

/// Solves an LCP: Lemke's method, then (on a secondary ray or numerical trouble) a feasibility
/// LP and, for small `n`, exhaustive enumeration; every `NoSolution` verdict is then proved in
/// interval arithmetic where that closes (module docs, "Proof").
///
/// # Example
/// ```
/// use contactlab::lcp::{solve, Lcp, LcpSettings, LcpStatus};
/// use nalgebra::{DMatrix, DVector};
///
/// // 0 ≤ z ⟂ M z + q ≥ 0 with M positive definite: one solution, z = (4/3, 7/3).
/// let lcp = Lcp::new(DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]), DVector::from_vec(vec![-5.0, -6.0]))?;
/// let sol = solve(&lcp, &LcpSettings::default())?;
/// assert_eq!(sol.status, LcpStatus::Solved);
/// assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-12 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-12);
/// assert!(sol.residual < 1e-12 && sol.violation < 1e-15);
/// # Ok::<(), contactlab::Error>(())
/// ```
pub fn solve(lcp: &Lcp, settings: &LcpSettings) -> Result<LcpSolution, Error> {
    use crate::verified::Proof;
    let mut sol = lemke::solve(lcp, settings)?;
    if !matches!(sol.status, LcpStatus::NoSolution | LcpStatus::NumericalError) {
        return Ok(sol);
    }
    if sol.status == LcpStatus::NoSolution {
        sol.proof = Proof::none("nothing was proved: Lemke's method stopped on a secondary ray");
        // A Farkas certificate is looked for whatever the feasibility LP says (its tolerances
        // can call an empty set feasible); it is a proof only once checked in intervals.
        let infeasible = lcp.is_feasible() == Some(false);
        match proof::prove_infeasible(lcp) {
            Ok(_) => {
                sol.reason = Some(NoSolutionReason::Infeasible);
                sol.proof = Proof::interval();
                return Ok(sol);
            }
            Err(why) if infeasible => {
                sol.reason = Some(NoSolutionReason::Infeasible);
                sol.proof = Proof::none(format!(
                    "the feasibility LP found no point, but no Farkas certificate was proved on the data as given \
                     ({why})"
                ))
            }
            Err(_) => {}
        }
    }
    if lcp.n() > settings.enumerate_up_to {
        return Ok(sol);
    }
    let all = enumerate::enumerate(lcp, &enumerate::EnumSettings::default())?;
    let pivots = sol.pivots;
    let from_point = |z: &DVector<f64>, basis: Option<Vec<bool>>| {
        let mut s = LcpSolution {
            status: LcpStatus::Solved,
            method: LcpMethod::Enumeration,
            reason: None,
            proof: Proof::none(NOT_CHECKED),
            w: lcp.w(z),
            residual: lcp.residual(z),
            violation: f64::INFINITY,
            z: z.clone(),
            pivots,
            basis: None,
        };
        accept(lcp, &mut s, basis.as_deref(), settings);
        // (The pieces are ranked by their measured errors, not by bounds of them.)
        s.violation = verify::componentwise_error(lcp, &s.z);
        s
    };
    // The floating-point search's pieces: the best point, solved if it passes acceptance.
    let mut best: Option<LcpSolution> = None;
    for piece in &all.pieces {
        let alpha: Vec<bool> = (0..lcp.n()).map(|i| piece.alpha.contains(&i)).collect();
        let s = from_point(&piece.z, Some(alpha));
        if best.as_ref().is_none_or(|b| s.violation < b.violation) {
            best = Some(s);
        }
    }
    if let Some(b) = best.take() {
        if b.status == LcpStatus::Solved {
            return Ok(b);
        }
        best = Some(b);
    }
    // No accepted point: every piece decided on its own, a proof of emptiness or a point.
    let undecided = match proof::no_piece(lcp) {
        proof::NoPiece::Proved(_) => {
            sol.status = LcpStatus::NoSolution;
            sol.reason = Some(NoSolutionReason::Enumeration);
            sol.proof = Proof::interval();
            return Ok(sol);
        }
        proof::NoPiece::Point { z, alpha, why } => {
            let s = from_point(&z, Some(alpha));
            if s.status == LcpStatus::Solved {
                return Ok(s);
            }
            format!("{why}, but that point fails the check on the data as given (violation {:.1e})", s.violation)
        }
        proof::NoPiece::Unproved(why) => why,
    };
    match best {
        // Pieces that fail acceptance: numerical trouble, the smaller violation reported.
        Some(mut b) if sol.status == LcpStatus::NoSolution || b.violation < sol.violation => {
            b.status = LcpStatus::NumericalError;
            b.proof = Proof::none(undecided);
            Ok(b)
        }
        _ => {
            if sol.status == LcpStatus::NoSolution {
                if all.complete && sol.reason != Some(NoSolutionReason::Infeasible) {
                    sol.reason = Some(NoSolutionReason::Enumeration);
                }
                let before = sol.proof.proof_reason.take().unwrap_or_default();
                sol.proof = Proof::none(format!("{before}; piece by piece: {undecided}"));
            }
            Ok(sol)
        }
    }
}

/// The proof reason of a `Solved` point that [`proof::prove`] has not checked.
pub const NOT_CHECKED: &str = "not checked (lcp::proof::prove proves a solved point)";

/// Acceptance on the data as given (module docs): measures `sol`'s [`LcpSolution::violation`]
/// and, for a `Solved` point that fails it, refines the point on its complementary piece
/// (`alpha`, else the point's positive entries) and keeps the better one; a point that still
/// fails becomes `NumericalError`.
pub(crate) fn accept(lcp: &Lcp, sol: &mut LcpSolution, alpha: Option<&[bool]>, settings: &LcpSettings) {
    // (A violation already measured on this point within the tolerance stands: Lemke's.)
    if sol.violation.is_nan() || sol.violation > settings.tolerance {
        sol.violation = verify::violation(lcp, &sol.z, settings.tolerance);
    }
    if sol.status != LcpStatus::Solved || sol.violation <= settings.tolerance {
        return;
    }
    let alpha = alpha.map(<[bool]>::to_vec).unwrap_or_else(|| sol.z.iter().map(|&v| v > 0.0).collect());
    // A candidate point replaces the claimed one where the check finds it better.
    let offer = |sol: &mut LcpSolution, z: Option<DVector<f64>>| {
        if let Some(z) = z {
            let v = verify::componentwise_error(lcp, &z);
            if v < sol.violation {
                sol.w = lcp.w(&z);
                sol.residual = lcp.residual(&z);
                sol.z = z;
                sol.violation = v;
            }
        }
    };
    offer(sol, verify::refine_on_piece(lcp, &alpha, &sol.z));
    if sol.violation > settings.tolerance {
        // Entries at round-off that should be zero (a degenerate basic variable): the point
        // with them zeroed, refined on the smaller piece where that block allows.
        let snapped = snap(lcp, &sol.z, &alpha);
        offer(sol, snapped);
    }
    let within = |x: f64| x <= settings.tolerance;
    if !within(sol.violation) || !within(sol.residual) {
        sol.status = LcpStatus::NumericalError;
    }
}

/// Relative size (of the equilibrated point's largest entry, times `n`) below which acceptance
/// (module docs) reads an entry of a point as round-off of zero.
pub const SNAP_TOL: f64 = 16.0 * f64::EPSILON;

/// `z` with its round-off entries zeroed: the entries of the equilibrated point `z''` at most
/// [`SNAP_TOL`] `· n · ‖z''‖∞` (unit-free), then refined on the piece `alpha` without them
/// ([`verify::refine_on_piece`]) where that piece's block allows, else just zeroed. A
/// degenerate basic variable of Lemke's method (redundant contacts: a friction bound whose
/// normal impulse is zero) ends at round-off, and the componentwise check reads a row made of
/// it alone as wholly violated. `None` when no entry is at round-off.
fn snap(lcp: &Lcp, z: &DVector<f64>, alpha: &[bool]) -> Option<DVector<f64>> {
    let n = lcp.n();
    let zs = scaling::Equilibration::of(lcp).z_scaled(z);
    let top = zs.amax();
    let cut = SNAP_TOL * n as f64 * top;
    let tiny: Vec<usize> = (0..n).filter(|&j| z[j] != 0.0 && zs[j].abs() <= cut).collect();
    if tiny.is_empty() || !(top.is_finite() && top > 0.0) {
        return None;
    }
    let mut zeroed = z.clone();
    let mut piece = alpha.to_vec();
    for &j in &tiny {
        zeroed[j] = 0.0;
        piece[j] = false;
    }
    let refined = verify::refine_on_piece(lcp, &piece, &zeroed);
    Some(match refined {
        Some(r) if verify::componentwise_error(lcp, &r) <= verify::componentwise_error(lcp, &zeroed) => r,
        _ => zeroed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verified::Proof;

    /// `z` as a solver's claimed solution of `lcp`, not yet accepted.
    fn claimed(lcp: &Lcp, z: &DVector<f64>) -> LcpSolution {
        LcpSolution {
            status: LcpStatus::Solved,
            method: LcpMethod::Lemke,
            reason: None,
            proof: Proof::none(NOT_CHECKED),
            w: lcp.w(z),
            residual: lcp.residual(z),
            violation: f64::NAN,
            z: z.clone(),
            pivots: 0,
            basis: None,
        }
    }

    #[test]
    fn acceptance_zeroes_a_degenerate_basic_variable_at_round_off() {
        // Two friction-bound variables z1, z3 at round-off whose row (w2 = 0.3 z0 − z1 − z3, with
        // the slip z2 > 0 against it) holds only them: the componentwise check reads it as wholly
        // violated, and their piece's block is singular (refinement fails). Zeroed, the point is
        // the exact solution (0, 0, 0.5, 0); in any units.
        for scale in [1e-8, 1.0, 1e8] {
            let m = DMatrix::from_row_slice(
                4,
                4,
                &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.3, -1.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0],
            ) * scale;
            let lcp = Lcp::new(m, DVector::from_vec(vec![1.0, -0.5, 0.0, -0.5]) * scale).unwrap();
            let z = DVector::from_vec(vec![0.0, 1e-17, 0.5, 1e-17]);
            let mut sol = claimed(&lcp, &z);
            assert_eq!(verify::componentwise_error(&lcp, &z), 1.0);
            accept(&lcp, &mut sol, None, &LcpSettings::default());
            assert_eq!(sol.status, LcpStatus::Solved, "scale {scale}");
            assert_eq!(sol.z.as_slice(), &[0.0, 0.0, 0.5, 0.0]);
            assert_eq!(sol.violation, 0.0);
        }
        // The same point with those entries beyond round-off (1e-6 of the largest) is not
        // snapped into a solution.
        let m = DMatrix::from_row_slice(
            4,
            4,
            &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.3, -1.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0],
        );
        let lcp = Lcp::new(m, DVector::from_vec(vec![1.0, -0.5, 0.0, -0.5])).unwrap();
        let z = DVector::from_vec(vec![0.0, 5e-7, 0.5, 5e-7]);
        let mut sol = claimed(&lcp, &z);
        accept(&lcp, &mut sol, None, &LcpSettings::default());
        assert_eq!(sol.status, LcpStatus::NumericalError);
    }

    #[test]
    fn residual_is_zero_at_solution_and_positive_elsewhere() {
        let lcp = Lcp::new(DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]), DVector::from_vec(vec![-5.0, -6.0]))
            .unwrap();
        let z = DVector::from_vec(vec![4.0 / 3.0, 7.0 / 3.0]);
        assert!(lcp.residual(&z) < 1e-15);
        assert!(lcp.residual(&DVector::zeros(2)) > 0.1);
    }

    #[test]
    fn validation() {
        assert!(Lcp::new(DMatrix::zeros(2, 3), DVector::zeros(2)).is_err());
        assert!(Lcp::new(DMatrix::from_element(1, 1, f64::NAN), DVector::zeros(1)).is_err());
        assert!(Lcp::new(DMatrix::zeros(0, 0), DVector::zeros(0)).is_err());
    }
}
