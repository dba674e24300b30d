//! Verified linear algebra and polyhedral certificates (issue #23, part 2): what turns a
//! floating-point verdict into a proof.
//!
//! Everything here works in [`Interval`] arithmetic on the data *as given* (each `f64` is an
//! exact real), so a result marked [`ProofKind::Interval`] holds for exactly the numbers the
//! check receives, not for a rounded neighbour of them. Where those numbers are derived from a
//! model file (a normal normalised to unit length, P1's parameters of a multibody body), the
//! readers compute them a second time in interval arithmetic from the file's numbers, and the
//! check receives the enclosures ([`MatrixEnclosure`], [`crate::lp::DenseLp::prove_enclosed`],
//! [`crate::twocontact::enclosed`]): the proof then holds for every value in them, the exact one
//! included. Angles are taken as [`Interval::angle`], which also holds the value in degrees
//! that converts to an angle, so a `_deg` key is proved as written.
//!
//! * [`solve`]: an enclosure of the unique solution of `A x = b` for every `A ∈ [A]`,
//!   `b ∈ [b]`, by Rump's form of Krawczyk's test (S. M. Rump, *Verification methods*, Acta
//!   Numerica 19, 2010, Theorem 10.6): with `R ≈ mid(A)⁻¹`, `x̃ ≈ R mid(b)`,
//!   `Z ⊇ R (b − A x̃)` and `C ⊇ I − R A`, an interval vector `Y` with `Z + C Y ⊂ int Y` proves
//!   `A` nonsingular and the solution in `x̃ + Z + C Y`. `Y` is found by ε-inflation.
//! * [`prove_point`]: a point of a polyhedron `{x : sign conditions, A_eq x = b_eq,
//!   A_ge x ≥ b_ge}` proved to exist near a floating-point guess. The guess's active
//!   constraints (equalities, the inequalities it meets, the sign conditions at zero) become a
//!   linear system; a nonsingular square part of it is chosen by complete pivoting, the other
//!   free coordinates are held at the guess's floats (exact reals), the square system is
//!   solved by [`solve`], and every remaining condition is checked on the enclosure. A feasible
//!   LP, an LCP's solution on its complementary piece and a Farkas certificate of infeasibility
//!   are all such points.
//!
//! * [`crate::lp::centring::prove_point_centred`] (beside the simplex it solves with):
//!   [`prove_point`] at the guess and, when that cannot close, at a
//!   point of the polyhedron that meets as few inequalities as possible. A vertex such as the
//!   simplex's Farkas certificate often meets more inequalities than the dimension (degenerate),
//!   which no square system fixes; rounds of LPs that maximise capped slacks find, for every
//!   inequality some point leaves slack, such a point, and their average leaves all of them
//!   slack at once (the polyhedron is convex).
//!
//! When a check cannot close, the answer is [`ProofKind::None`] with the reason (typically a
//! degenerate point: a sign condition or an inequality met exactly by a coordinate the system
//! does not fix, or dependent equalities). Nothing is ever claimed that the interval
//! computation did not show.

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::interval::Interval;

/// Whether a verdict is proved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProofKind {
    /// Proved in interval arithmetic on the exact data.
    Interval,
    /// Computed in floating point only (the reason says why no proof).
    None,
}

/// The proof status of a verdict: printed as `"proof": "interval" | "none"` and, for none,
/// `"proof_reason"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// Whether the verdict is proved.
    pub proof: ProofKind,
    /// Why there is no proof.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_reason: Option<String>,
}

impl Proof {
    /// A proved verdict.
    pub fn interval() -> Self {
        Proof { proof: ProofKind::Interval, proof_reason: None }
    }

    /// An unproved verdict and why.
    pub fn none(reason: impl Into<String>) -> Self {
        Proof { proof: ProofKind::None, proof_reason: Some(reason.into()) }
    }

    /// Whether the verdict is proved.
    pub fn is_proved(&self) -> bool {
        self.proof == ProofKind::Interval
    }

    /// From the outcome of a check.
    pub fn from_check<T>(r: Result<T, String>) -> Self {
        match r {
            Ok(_) => Proof::interval(),
            Err(e) => Proof::none(e),
        }
    }
}

/// ε-inflation rounds of [`solve`] before it gives up.
pub const MAX_INFLATIONS: usize = 16;

/// `Σ_j a_j x_j` in intervals.
fn dot(a: impl Iterator<Item = Interval>, x: impl Iterator<Item = Interval>) -> Interval {
    a.zip(x).fold(Interval::exact(0.0), |s, (a, x)| s + a * x)
}

/// An enclosure of the solution of `A x = b` for every `A ∈ [A]`, `b ∈ [b]` (module docs);
/// `None` when the test does not succeed (`A` singular or too ill-conditioned to verify, or
/// non-finite data).
pub fn solve(a: &DMatrix<Interval>, b: &[Interval]) -> Option<Vec<Interval>> {
    let n = b.len();
    if a.nrows() != n || a.ncols() != n {
        return None;
    }
    if n == 0 {
        return Some(Vec::new());
    }
    let am = a.map(|v| v.mid());
    let bm = DVector::from_iterator(n, b.iter().map(|v| v.mid()));
    if !am.iter().chain(bm.iter()).all(|v| v.is_finite()) {
        return None;
    }
    let r = am.clone().lu().try_inverse()?;
    if !r.iter().all(|v| v.is_finite()) {
        return None;
    }
    let mut x = &r * &bm;
    let res = &bm - &am * &x;
    x += &r * res;
    if !x.iter().all(|v| v.is_finite()) {
        return None;
    }
    let xi: Vec<Interval> = x.iter().map(|&v| Interval::exact(v)).collect();
    // Residual enclosure b − A x̃, then Z = R (b − A x̃) and C = I − R A.
    let resid: Vec<Interval> = (0..n).map(|i| b[i] - dot((0..n).map(|j| a[(i, j)]), xi.iter().copied())).collect();
    let z: Vec<Interval> =
        (0..n).map(|i| dot((0..n).map(|k| Interval::exact(r[(i, k)])), resid.iter().copied())).collect();
    let c = DMatrix::from_fn(n, n, |i, j| {
        let ra = dot((0..n).map(|k| Interval::exact(r[(i, k)])), (0..n).map(|k| a[(k, j)]));
        Interval::exact(if i == j { 1.0 } else { 0.0 }) - ra
    });
    let mut y = z.clone();
    for _ in 0..MAX_INFLATIONS {
        let inflated: Vec<Interval> = y
            .iter()
            .zip(x.iter())
            .map(|(v, &xj)| {
                let mag = v.lo().abs().max(v.hi().abs());
                let d = 0.1 * v.width() + 4.0 * f64::EPSILON * (mag + xj.abs()) + f64::MIN_POSITIVE;
                Interval::new(v.lo() - d, v.hi() + d).unwrap_or(Interval::ENTIRE)
            })
            .collect();
        let next: Vec<Interval> =
            (0..n).map(|i| z[i] + dot((0..n).map(|j| c[(i, j)]), inflated.iter().copied())).collect();
        if next.iter().zip(&inflated).all(|(a, b)| a.inside(b)) {
            return Some(next.iter().zip(&xi).map(|(e, &x0)| x0 + *e).collect());
        }
        if !next.iter().all(|v| v.lo().is_finite() && v.hi().is_finite()) {
            return None;
        }
        y = next;
    }
    None
}

/// The sign condition on a coordinate of a [`Polyhedron`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// `x_j ≥ 0`.
    NonNegative,
    /// No condition.
    Free,
    /// `x_j = 0`.
    Zero,
}

/// `{x : sign conditions, A_eq x = b_eq, A_ge x ≥ b_ge}` with exact (`f64`) data, or with
/// matrices known only as enclosures ([`MatrixEnclosure`]).
#[derive(Debug, Clone)]
pub struct Polyhedron {
    /// One sign condition per coordinate.
    pub sign: Vec<Sign>,
    /// Equality rows.
    pub a_eq: DMatrix<f64>,
    /// Their right-hand side.
    pub b_eq: DVector<f64>,
    /// Inequality rows (`≥`).
    pub a_ge: DMatrix<f64>,
    /// Their right-hand side.
    pub b_ge: DVector<f64>,
    /// Enclosures of the exact matrices when the floats above only approximate them (entries
    /// derived from a file's numbers, such as a normal normalised to unit length): a proof then
    /// holds for every matrix in the enclosure, the floats only guide the search. `None`: the
    /// floats are the data.
    pub enclosure: Option<MatrixEnclosure>,
}

/// Interval enclosures of a [`Polyhedron`]'s matrices `A_eq`, `A_ge` (same shapes).
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixEnclosure {
    /// Encloses `A_eq`.
    pub a_eq: DMatrix<Interval>,
    /// Encloses `A_ge`.
    pub a_ge: DMatrix<Interval>,
}

/// A constraint or sign condition within `ACTIVE_TOL` of holding with equality, relative to
/// the size of its terms, is taken as active by [`prove_point`].
pub const ACTIVE_TOL: f64 = 1e-9;
/// Complete pivoting stops at pivots below `RANK_TOL` of the largest scaled entry.
pub const RANK_TOL: f64 = 1e-11;

/// Which constraint a row of the active system is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Row {
    Eq(usize),
    Ge(usize),
}

impl Polyhedron {
    /// The coordinates' count.
    pub fn n(&self) -> usize {
        self.sign.len()
    }

    fn coef(&self, r: Row, j: usize) -> f64 {
        match r {
            Row::Eq(i) => self.a_eq[(i, j)],
            Row::Ge(i) => self.a_ge[(i, j)],
        }
    }

    /// The coefficient as an interval: its enclosure, or the exact float.
    fn icoef(&self, r: Row, j: usize) -> Interval {
        match (&self.enclosure, r) {
            (Some(e), Row::Eq(i)) => e.a_eq[(i, j)],
            (Some(e), Row::Ge(i)) => e.a_ge[(i, j)],
            (None, _) => Interval::exact(self.coef(r, j)),
        }
    }

    fn rhs(&self, r: Row) -> f64 {
        match r {
            Row::Eq(i) => self.b_eq[i],
            Row::Ge(i) => self.b_ge[i],
        }
    }

    /// `Σ_j a_rj x_j` in intervals.
    fn row_value(&self, r: Row, x: &[Interval]) -> Interval {
        dot((0..self.n()).map(|j| self.icoef(r, j)), x.iter().copied())
    }

    fn check(&self) -> Result<(), String> {
        let n = self.n();
        if self.a_eq.ncols() != n && self.a_eq.nrows() > 0
            || self.a_ge.ncols() != n && self.a_ge.nrows() > 0
            || self.a_eq.nrows() != self.b_eq.len()
            || self.a_ge.nrows() != self.b_ge.len()
        {
            return Err("the polyhedron's dimensions do not match".into());
        }
        let finite = self.a_eq.iter().chain(self.a_ge.iter()).chain(self.b_eq.iter()).chain(self.b_ge.iter());
        if !finite.into_iter().all(|v| v.is_finite()) {
            return Err("the polyhedron's data are not finite".into());
        }
        if let Some(e) = &self.enclosure {
            if e.a_eq.shape() != self.a_eq.shape() || e.a_ge.shape() != self.a_ge.shape() {
                return Err("the polyhedron's enclosure does not match its matrices".into());
            }
        }
        Ok(())
    }
}

/// Complete pivoting on the scaled matrix `e` (rows in `rows`, the `eq_rows` first: they are
/// pivoted before any inequality row): the pivot rows and columns, up to the numerical rank
/// (pivots below `rank_tol` of the largest entry stop it).
pub(crate) fn pivots(e: &mut [Vec<f64>], eq_rows: usize, rank_tol: f64) -> Vec<(usize, usize)> {
    let (m, n) = (e.len(), e.first().map_or(0, |r| r.len()));
    let top = e.iter().flatten().fold(0.0f64, |a, v| a.max(v.abs()));
    let (mut used_r, mut used_c) = (vec![false; m], vec![false; n]);
    let mut out = Vec::new();
    for phase in [0..eq_rows, eq_rows..m] {
        loop {
            let mut best: Option<(usize, usize, f64)> = None;
            for r in phase.clone().filter(|&r| !used_r[r]) {
                for c in (0..n).filter(|&c| !used_c[c]) {
                    if best.is_none_or(|b| e[r][c].abs() > b.2) {
                        best = Some((r, c, e[r][c].abs()));
                    }
                }
            }
            let Some((r, c, v)) = best else { break };
            if v <= rank_tol * top || v.is_nan() {
                break;
            }
            used_r[r] = true;
            used_c[c] = true;
            out.push((r, c));
            let pivot_row = e[r].clone();
            for (r2, row) in e.iter_mut().enumerate() {
                if used_r[r2] {
                    continue;
                }
                let f = row[c] / pivot_row[c];
                for (x, p) in row.iter_mut().zip(&pivot_row) {
                    *x -= f * p;
                }
            }
        }
    }
    out
}

/// A point of `p` proved to exist near `guess` (module docs), as an interval enclosure of each
/// coordinate; `Err` says why no proof closed.
pub fn prove_point(p: &Polyhedron, guess: &DVector<f64>) -> Result<Vec<Interval>, String> {
    p.check()?;
    let n = p.n();
    if guess.len() != n || !guess.iter().all(|v| v.is_finite()) {
        return Err("the point is not finite or has the wrong length".into());
    }
    let (me, mg) = (p.b_eq.len(), p.b_ge.len());
    let rows: Vec<Row> = (0..me).map(Row::Eq).chain((0..mg).map(Row::Ge)).collect();
    let x: Vec<f64> = (0..n).map(|j| if p.sign[j] == Sign::Zero { 0.0 } else { guess[j] }).collect();
    // The size of each row's terms at the guess (unit-free comparisons below).
    let size = |r: Row| p.rhs(r).abs() + (0..n).map(|j| (p.coef(r, j) * x[j]).abs()).sum::<f64>();
    let sizes: Vec<f64> = rows.iter().map(|&r| size(r)).collect();
    // A sign-constrained coordinate is negligible when no row feels it beyond ACTIVE_TOL.
    let negligible = |j: usize| rows.iter().zip(&sizes).all(|(&r, &s)| (p.coef(r, j) * x[j]).abs() <= ACTIVE_TOL * s);
    let mut zeroed: Vec<bool> =
        (0..n).map(|j| p.sign[j] == Sign::NonNegative && (x[j] <= 0.0 || negligible(j))).collect();
    if let Some(j) = (0..n).find(|&j| p.sign[j] == Sign::NonNegative && x[j] < 0.0 && !negligible(j)) {
        return Err(format!("the point has x[{j}] < 0"));
    }
    let mut active: Vec<bool> = (0..mg)
        .map(|i| {
            let r = Row::Ge(i);
            let v: f64 = (0..n).map(|j| p.coef(r, j) * x[j]).sum::<f64>() - p.rhs(r);
            v <= ACTIVE_TOL * sizes[me + i]
        })
        .collect();
    for _ in 0..=(n + mg) {
        let held = |j: usize| p.sign[j] == Sign::Zero || zeroed[j];
        let free: Vec<usize> = (0..n).filter(|&j| !held(j)).collect();
        let eqs: Vec<Row> = (0..me).map(Row::Eq).chain((0..mg).filter(|&i| active[i]).map(Row::Ge)).collect();
        // Column scales: the guess's size, or the size a coordinate would need to matter.
        let col: Vec<f64> = free
            .iter()
            .map(|&j| {
                if x[j] != 0.0 {
                    x[j].abs()
                } else {
                    let w = rows.iter().zip(&sizes).map(|(&r, &s)| p.coef(r, j).abs() / s.max(f64::MIN_POSITIVE));
                    let w = w.fold(0.0f64, f64::max);
                    if w > 0.0 {
                        1.0 / w
                    } else {
                        1.0
                    }
                }
            })
            .collect();
        let row_size = |r: Row| {
            let s = match r {
                Row::Eq(i) => sizes[i],
                Row::Ge(i) => sizes[me + i],
            };
            s.max(f64::MIN_POSITIVE)
        };
        let mut e: Vec<Vec<f64>> = eqs
            .iter()
            .map(|&r| free.iter().zip(&col).map(|(&j, &c)| p.coef(r, j) * c / row_size(r)).collect())
            .collect();
        let piv = pivots(&mut e, me, RANK_TOL);
        let basic: Vec<usize> = piv.iter().map(|&(_, c)| free[c]).collect();
        let chosen: Vec<Row> = piv.iter().map(|&(r, _)| eqs[r]).collect();
        // The other free coordinates stay at the guess's floats (exact reals).
        let mut xi: Vec<Interval> =
            (0..n).map(|j| if held(j) { Interval::exact(0.0) } else { Interval::exact(x[j]) }).collect();
        let k = basic.len();
        let a = DMatrix::from_fn(k, k, |r, c| p.icoef(chosen[r], basic[c]));
        let b: Vec<Interval> = chosen
            .iter()
            .map(|&r| {
                let others = dot(
                    (0..n).filter(|j| !basic.contains(j)).map(|j| p.icoef(r, j)),
                    (0..n).filter(|j| !basic.contains(j)).map(|j| xi[j]),
                );
                Interval::exact(p.rhs(r)) - others
            })
            .collect();
        let sol = solve(&a, &b).ok_or("the active system could not be verified (singular or ill-conditioned)")?;
        for (&j, v) in basic.iter().zip(sol) {
            xi[j] = v;
        }
        // Equalities left out of the solved system (dependent on it) must hold exactly on the
        // enclosure: a row of zeros with a zero right-hand side does; anything else is a
        // degenerate point no interval can prove.
        for i in 0..me {
            if chosen.contains(&Row::Eq(i)) {
                continue;
            }
            let v = p.row_value(Row::Eq(i), &xi) - Interval::exact(p.rhs(Row::Eq(i)));
            if v != Interval::exact(0.0) {
                return Err("dependent equality constraints (a degenerate point)".into());
            }
        }
        // Sign conditions of the solved coordinates; a coordinate the enclosure cannot keep
        // non-negative and whose guess is about zero is held at zero next round.
        let mut changed = false;
        for &j in &basic {
            if p.sign[j] == Sign::NonNegative && xi[j].lo() < 0.0 {
                if xi[j].mid() <= xi[j].width() || negligible(j) {
                    zeroed[j] = true;
                    changed = true;
                } else {
                    return Err(format!("x[{j}] ≥ 0 not proved: {}", xi[j]));
                }
            }
        }
        // Inequalities not in the solved system: checked on the enclosure; one that fails is
        // taken as active next round, unless it already was (then it is degenerate).
        for i in 0..mg {
            let r = Row::Ge(i);
            if chosen.contains(&r) {
                continue;
            }
            let v = p.row_value(r, &xi) - Interval::exact(p.rhs(r));
            if v.lo() < 0.0 {
                if active[i] {
                    return Err(format!("inequality {i} is met by a dependent row (a degenerate point)"));
                }
                active[i] = true;
                changed = true;
            }
        }
        if !changed {
            return Ok(xi);
        }
    }
    Err("no proof after holding every degenerate coordinate".into())
}
