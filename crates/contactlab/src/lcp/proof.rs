//! Proofs of LCP verdicts in interval arithmetic (issue #23, part 2; [`crate::verified`]).
//!
//! * **Solved**: the returned point's complementary piece `α` (`w_α = 0`, `z_α ≥ 0`, `z_β = 0`,
//!   `w_β ≥ 0`) is a polyhedron every point of which solves the LCP; [`prove_point`] proves a
//!   point of it exists near the returned `z`, on the exact data, and encloses it. The piece is
//!   taken from Lemke's final basis when there is one, else from the point itself (`z_i`
//!   counts as positive when it moves `w` more than `w_i` is off zero).
//! * **No solution (infeasible)**: a Farkas certificate `y ≥ 0`, `Mᵀy ≤ 0`, `qᵀy = −1`
//!   (for any `z ≥ 0`, `yᵀ(Mz + q) < 0`, so `Mz + q ≥ 0` fails) is found by the dense simplex
//!   on the original data and proved to exist near it the same way, or, when that vertex is
//!   degenerate, near a certificate inside the set ([`crate::lp::centring::prove_point_centred`]).
//! * **No solution (enumeration)**, for `n ≤` [`PIECE_PROOF_MAX`]: every one of the `2ⁿ`
//!   complementary pieces is empty, each by its own Farkas certificate proved as above
//!   ([`prove_no_piece`]; the piece `z = 0` by the sign of `q` itself).

use nalgebra::{DMatrix, DVector};

use super::{Lcp, LcpSolution, LcpStatus};
use crate::interval::Interval;
use crate::lp::centring::prove_point_centred;
use crate::lp::{DenseLp, LpSettings, LpStatus};
use crate::verified::{prove_point, Polyhedron, Proof, Sign};

/// The proof status of an LCP solver's verdict (module docs).
pub fn prove(lcp: &Lcp, sol: &LcpSolution) -> Proof {
    match (sol.status, sol.reason) {
        (LcpStatus::Solved, _) => Proof::from_check(prove_solution(lcp, &sol.z, sol.basis.as_deref())),
        // super::solve has tried the proof of its no-solution verdicts already (and
        // lemke::solve alone proves nothing): its outcome is the answer.
        (LcpStatus::NoSolution, _) => sol.proof.clone(),
        _ => Proof::none("no verdict to prove"),
    }
}

/// The complementary piece `α` as a polyhedron (module docs).
pub fn piece(lcp: &Lcp, alpha: &[bool]) -> Polyhedron {
    let n = lcp.n();
    let a: Vec<usize> = (0..n).filter(|&i| alpha[i]).collect();
    let b: Vec<usize> = (0..n).filter(|&i| !alpha[i]).collect();
    Polyhedron {
        sign: (0..n).map(|i| if alpha[i] { Sign::NonNegative } else { Sign::Zero }).collect(),
        a_eq: DMatrix::from_fn(a.len(), n, |r, c| lcp.m[(a[r], c)]),
        b_eq: DVector::from_iterator(a.len(), a.iter().map(|&i| -lcp.q[i])),
        a_ge: DMatrix::from_fn(b.len(), n, |r, c| lcp.m[(b[r], c)]),
        b_ge: DVector::from_iterator(b.len(), b.iter().map(|&i| -lcp.q[i])),
        enclosure: None,
    }
}

/// A solution of the LCP proved near `z` (module docs): its enclosure, or why no proof closed.
pub fn prove_solution(
    lcp: &Lcp,
    z: &DVector<f64>,
    basis: Option<&[bool]>,
) -> Result<Vec<crate::interval::Interval>, String> {
    // On the equilibrated problem when its scaling is exact (the same solutions, mapped by
    // z = τ E z''; the same problem for the data in any power-of-two unit), else as given.
    if let Some(s) = exact_equilibration(lcp) {
        let f: Vec<f64> = s.eq.e.iter().map(|&e| e * s.eq.tau).collect();
        let zs: Option<Vec<f64>> = z.iter().zip(&f).map(|(&v, &f)| times_exact(v, 1.0 / f)).collect();
        let Some(zs) = zs else { return Err("the point does not map exactly onto the equilibrated problem".into()) };
        let x = prove_solution_as_given(&s.lcp, &DVector::from_vec(zs), basis)?;
        return Ok(x.iter().zip(&f).map(|(v, &f)| *v * Interval::exact(f)).collect());
    }
    prove_solution_as_given(lcp, z, basis)
}

/// The equilibrated problem of `lcp` ([`super::scaling`]) when every scaled entry is exact, so
/// that it has exactly the solutions and the Farkas certificates of `lcp`, mapped by powers of
/// two; `None` when some entry would over- or underflow.
pub fn exact_equilibration(lcp: &Lcp) -> Option<super::scaling::Scaled> {
    let s = super::scaling::Scaled::new(lcp);
    let n = lcp.n();
    let (d, e, tau) = (&s.eq.d, &s.eq.e, s.eq.tau);
    let ok_m = (0..n).all(|i| {
        (0..n).all(|j| {
            let f = d[i] * e[j];
            f.is_normal() && times_exact(lcp.m[(i, j)], f) == Some(s.lcp.m[(i, j)])
        })
    });
    let ok_q = tau.is_normal()
        && (1.0 / tau).is_normal()
        && (0..n).all(|i| {
            d[i].is_normal() && times_exact(lcp.q[i], d[i]).and_then(|v| times_exact(v, 1.0 / tau)) == Some(s.lcp.q[i])
        });
    (ok_m && ok_q).then_some(s)
}

/// [`prove_solution`] on the data as given.
fn prove_solution_as_given(
    lcp: &Lcp,
    z: &DVector<f64>,
    basis: Option<&[bool]>,
) -> Result<Vec<crate::interval::Interval>, String> {
    let n = lcp.n();
    if z.len() != n {
        return Err("the point has the wrong length".into());
    }
    let w = lcp.w(z);
    let size: Vec<f64> =
        (0..n).map(|k| lcp.q[k].abs() + (0..n).map(|j| (lcp.m[(k, j)] * z[j]).abs()).sum::<f64>()).collect();
    let ratio = |a: f64, b: f64| if a == 0.0 { 0.0 } else { a / b };
    let from_point: Vec<bool> = (0..n)
        .map(|i| {
            let moves = (0..n).map(|k| ratio((lcp.m[(k, i)] * z[i]).abs(), size[k])).fold(0.0, f64::max);
            z[i] > 0.0 && moves > ratio(w[i].abs(), size[i])
        })
        .collect();
    let mut candidates: Vec<Vec<bool>> = basis.map(|b| vec![b.to_vec()]).unwrap_or_default();
    if !candidates.contains(&from_point) {
        candidates.push(from_point);
    }
    let mut why = String::from("no complementary piece to check");
    for alpha in candidates {
        match prove_point(&piece(lcp, &alpha), z) {
            Ok(x) => return Ok(x),
            Err(e) => why = e,
        }
    }
    Err(why)
}

/// Largest `n` for which [`prove_no_piece`] checks the `2ⁿ` pieces one by one.
pub const PIECE_PROOF_MAX: usize = 12;

/// What [`no_piece`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum NoPiece {
    /// Every one of the `2ⁿ` pieces is proved empty (the count checked).
    Proved(usize),
    /// A piece the LP finds a point in: the LCP may well have a solution there.
    Point {
        /// The piece (`true`: `w_i = 0`, `z_i ≥ 0`).
        alpha: Vec<bool>,
        /// The LP's point, as a point of the LCP (`z_β = 0`).
        z: DVector<f64>,
        /// Which piece, in words.
        why: String,
    },
    /// No proof closed, and why.
    Unproved(String),
}

/// Proves that no complementary piece holds a point (module docs): `Ok(pieces checked)`, or
/// why not (a piece the LP finds non-empty, or one whose emptiness no certificate proved).
pub fn prove_no_piece(lcp: &Lcp) -> Result<usize, String> {
    match no_piece(lcp) {
        NoPiece::Proved(k) => Ok(k),
        NoPiece::Point { why, .. } | NoPiece::Unproved(why) => Err(why),
    }
}

/// `x · f` for a power of two `f`, if that product is exact (no overflow, no bits lost to
/// underflow: scaling back gives `x` again).
fn times_exact(x: f64, f: f64) -> Option<f64> {
    let y = x * f;
    (y.is_finite() && y / f == x).then_some(y)
}

/// [`prove_no_piece`], with the point when a piece holds one.
///
/// Each piece `z_α ≥ 0`, `M_αα z_α = −q_α`, `−M_βα z_α ≤ q_β` has its columns then its rows
/// scaled by powers of two (a row by its largest coefficient or right-hand side), so the
/// simplex's tolerances see coefficients of order one whatever the units, but only where every
/// scaled entry is exact (`times_exact`): then the scaled piece
/// is empty exactly when the piece is. Where some product would over- or underflow (a `1e-300`
/// beside a `1e30` in one column), the piece's LP and its proof run on the data as given.
pub fn no_piece(lcp: &Lcp) -> NoPiece {
    let n = lcp.n();
    if n > PIECE_PROOF_MAX {
        return NoPiece::Unproved(format!(
            "{n} > {PIECE_PROOF_MAX} variables: the 2^n pieces are not checked one by one"
        ));
    }
    // The formulation: the exactly equilibrated problem (the same for the data in any
    // power-of-two unit, so the verdict does not depend on it), else the data as given; with
    // the factors that map its z back.
    let (form, f): (Lcp, Vec<f64>) = match exact_equilibration(lcp) {
        Some(s) => {
            let f = s.eq.e.iter().map(|&e| e * s.eq.tau).collect();
            (s.lcp, f)
        }
        None => (lcp.clone(), vec![1.0; n]),
    };
    for bits in 0u32..(1u32 << n) {
        let alpha: Vec<usize> = (0..n).filter(|&i| bits >> i & 1 == 1).collect();
        let in_alpha: Vec<bool> = (0..n).map(|i| bits >> i & 1 == 1).collect();
        let label = || format!("piece {:?}", alpha.iter().map(|i| i + 1).collect::<Vec<_>>());
        if alpha.is_empty() {
            // z = 0, w = q: empty exactly when some q_i < 0 (floats compare exactly).
            if lcp.q.iter().all(|&v| v >= 0.0) {
                return NoPiece::Point {
                    alpha: in_alpha,
                    z: DVector::zeros(n),
                    why: "z = 0 solves it (q >= 0)".into(),
                };
            }
            continue;
        }
        match piece_lp(&form, &alpha) {
            PieceLp::Empty => {}
            PieceLp::Point(zs) => {
                let z = DVector::from_fn(n, |i, _| zs[i] * f[i]);
                return NoPiece::Point { alpha: in_alpha, z, why: format!("{}: the LP finds a point in it", label()) };
            }
            PieceLp::Unknown(why) => return NoPiece::Unproved(format!("{}: {why}", label())),
        }
    }
    NoPiece::Proved(1 << n)
}

/// What the LP of one piece found.
enum PieceLp {
    /// Empty, proved by a Farkas certificate.
    Empty,
    /// A point (of the LCP, `z_β = 0`).
    Point(DVector<f64>),
    /// Neither, and why.
    Unknown(String),
}

/// The piece `alpha` of `lcp` by one LP (see [`no_piece`]).
fn piece_lp(lcp: &Lcp, alpha: &[usize]) -> PieceLp {
    let n = lcp.n();
    let beta: Vec<usize> = (0..n).filter(|i| !alpha.contains(i)).collect();
    let k = alpha.len();
    let entry = |r: usize, c: usize| {
        if r < k {
            lcp.m[(alpha[r], alpha[c])]
        } else {
            -lcp.m[(beta[r - k], alpha[c])]
        }
    };
    let rhs = |r: usize| if r < k { -lcp.q[alpha[r]] } else { lcp.q[beta[r - k]] };
    let pow2 = |x: f64| 1.0 / super::scaling::pow2(x);
    let mut col: Vec<f64> = (0..k).map(|c| pow2((0..n).fold(0.0f64, |a, r| a.max(entry(r, c).abs())))).collect();
    // (A row's scale counts its right-hand side: a row 0·z = b with b tiny must not read as
    // 0 = 0 to the simplex's tolerances.)
    let mut row: Vec<f64> =
        (0..n).map(|r| pow2((0..k).fold(rhs(r).abs(), |a, c| a.max((entry(r, c) * col[c]).abs())))).collect();
    let exact = (0..n).all(|r| {
        times_exact(rhs(r), row[r]).is_some()
            && (0..k).all(|c| times_exact(entry(r, c), col[c]).and_then(|v| times_exact(v, row[r])).is_some())
    });
    if !exact {
        col.iter_mut().for_each(|v| *v = 1.0);
        row.iter_mut().for_each(|v| *v = 1.0);
    }
    let scaled = |r: usize, c: usize| entry(r, c) * col[c] * row[r];
    let lp = DenseLp::feasibility(
        k,
        DMatrix::from_fn(k, k, &scaled),
        DVector::from_fn(k, |r, _| rhs(r) * row[r]),
        DMatrix::from_fn(beta.len(), k, |r, c| scaled(k + r, c)),
        DVector::from_fn(beta.len(), |r, _| rhs(k + r) * row[k + r]),
    );
    let sol = match lp.solve(&LpSettings::default()) {
        Ok(s) => s,
        Err(e) => return PieceLp::Unknown(e.to_string()),
    };
    match sol.status {
        LpStatus::Infeasible => {
            let p = lp.prove(&sol);
            if p.is_proved() {
                PieceLp::Empty
            } else {
                PieceLp::Unknown(p.proof_reason.unwrap_or_default())
            }
        }
        LpStatus::Optimal => {
            let mut z = DVector::zeros(n);
            for (c, &i) in alpha.iter().enumerate() {
                z[i] = sol.x[c] * col[c];
            }
            PieceLp::Point(z)
        }
        other => PieceLp::Unknown(format!("the LP ended {other:?}")),
    }
}

/// A Farkas certificate of `{z ≥ 0 : Mz + q ≥ 0} = ∅` found by the dense simplex and proved
/// (module docs): its enclosure, or why no proof closed. On the equilibrated problem when its
/// scaling is exact ([`exact_equilibration`]; a certificate `y''` there is `y = D y'' / τ` here,
/// and the enclosure is mapped back so), else on the data as given.
pub fn prove_infeasible(lcp: &Lcp) -> Result<Vec<crate::interval::Interval>, String> {
    if let Some(s) = exact_equilibration(lcp) {
        let y = prove_infeasible_as_given(&s.lcp)?;
        return Ok(y.iter().zip(s.eq.d.iter()).map(|(v, &d)| *v * Interval::exact(d / s.eq.tau)).collect());
    }
    prove_infeasible_as_given(lcp)
}

/// [`prove_infeasible`] on the data as given.
fn prove_infeasible_as_given(lcp: &Lcp) -> Result<Vec<crate::interval::Interval>, String> {
    let n = lcp.n();
    // y ≥ 0 with Mᵀy ≤ 0 and qᵀy = −1.
    let lp = DenseLp::feasibility(
        n,
        DMatrix::from_fn(1, n, |_, c| lcp.q[c]),
        DVector::from_element(1, -1.0),
        lcp.m.transpose(),
        DVector::zeros(n),
    );
    let sol = lp.solve(&LpSettings::default()).map_err(|e| e.to_string())?;
    if sol.status != LpStatus::Optimal {
        return Err(format!("no Farkas certificate found (the LP ended {:?})", sol.status));
    }
    let p = Polyhedron {
        sign: vec![Sign::NonNegative; n],
        a_eq: DMatrix::from_fn(1, n, |_, c| lcp.q[c]),
        b_eq: DVector::from_element(1, -1.0),
        a_ge: -lcp.m.transpose(),
        b_ge: DVector::zeros(n),
        enclosure: None,
    };
    prove_point_centred(&p, &sol.x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::{solve, LcpSettings, NoSolutionReason};

    fn lcp(m: &[f64], q: &[f64]) -> Lcp {
        let n = q.len();
        Lcp::new(DMatrix::from_row_slice(n, n, m), DVector::from_row_slice(q)).unwrap()
    }

    #[test]
    fn a_solution_is_enclosed_and_proved() {
        let p = lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let sol = solve(&p, &LcpSettings::default()).unwrap();
        assert!(prove(&p, &sol).is_proved());
        let x = prove_solution(&p, &sol.z, None).unwrap();
        assert!(x[0].contains(4.0 / 3.0) && x[1].contains(7.0 / 3.0) && x[0].width() < 1e-14, "{x:?}");
        // Units: rows by 1e8, columns by 1e-8 (z by 1e8): still proved.
        let d = DMatrix::from_diagonal(&DVector::from_vec(vec![1e8, 1e-8]));
        let scaled = Lcp::new(&d * &p.m * d.clone().try_inverse().unwrap(), &d * &p.q).unwrap();
        let s2 = solve(&scaled, &LcpSettings::default()).unwrap();
        assert!(prove(&scaled, &s2).is_proved());
    }

    #[test]
    fn degenerate_zeros_are_proved_exactly() {
        // q = 0: z = 0 with w = 0 exactly; and a vertex of a segment of solutions where w₂ = 0
        // with z₂ = 0 (both degenerate): exact products and sums close the proof.
        let p = lcp(&[2.0, 1.0, 1.0, 2.0], &[0.0, 0.0]);
        assert!(prove_solution(&p, &DVector::zeros(2), None).is_ok());
        let seg = lcp(&[1.0, 1.0, 1.0, 1.0], &[-1.0, -1.0]);
        let x = prove_solution(&seg, &DVector::from_vec(vec![1.0, 0.0]), None).unwrap();
        assert!(x[0].contains(1.0) && x[1] == crate::interval::Interval::exact(0.0));
    }

    #[test]
    fn infeasibility_is_proved_by_a_farkas_certificate() {
        let p = lcp(&[-1.0, 0.0, 0.0, 1.0], &[-1.0, 0.0]);
        let sol = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!((sol.status, sol.reason), (LcpStatus::NoSolution, Some(NoSolutionReason::Infeasible)));
        assert!(prove(&p, &sol).is_proved(), "{:?}", prove(&p, &sol));
        // A feasible problem has no certificate to prove.
        assert!(prove_infeasible(&lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0])).is_err());
    }

    #[test]
    fn no_solution_by_enumeration_is_proved_piece_by_piece() {
        // M = [[2, 1], [1, −1]], q = (−1, −1): feasible (z = (1, 0) gives w = (1, 0)), yet no
        // piece holds a solution (z₁ = ½ leaves w₂ < 0, z₂ = −1, the full piece has z₂ = −⅓).
        let p = lcp(&[2.0, 1.0, 1.0, -1.0], &[-1.0, -1.0]);
        let sol = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!((sol.status, sol.reason), (LcpStatus::NoSolution, Some(NoSolutionReason::Enumeration)));
        assert!(prove(&p, &sol).is_proved(), "{:?}", prove(&p, &sol));
        assert_eq!(prove_no_piece(&p), Ok(4));
        // Units: rows by 1e8, columns by 1e-8.
        let d = DMatrix::from_diagonal(&DVector::from_vec(vec![1e8, 1e-8]));
        let scaled = Lcp::new(&d * &p.m * d.clone().try_inverse().unwrap(), &d * &p.q).unwrap();
        assert_eq!(prove_no_piece(&scaled), Ok(4));
        // A solvable problem is refused, naming the piece with a point.
        let ok = lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        assert!(prove_no_piece(&ok).is_err_and(|e| e.contains("piece [1, 2]")), "{:?}", prove_no_piece(&ok));
    }

    #[test]
    fn degenerate_pieces_stay_unproved() {
        // A singular piece: with exact data (M = [1 1; 1 1], q = −(2, 2)) the dependent
        // equality holds exactly at z = (1, 1) and the proof closes; with 0.1 (not a float) the
        // dependent row is only zero to round-off: no proof, and the reason says so.
        let exact = lcp(&[1.0, 1.0, 1.0, 1.0], &[-2.0, -2.0]);
        assert!(prove_solution(&exact, &DVector::from_vec(vec![1.0, 1.0]), Some(&[true, true])).is_ok());
        let p = lcp(&[0.1, 0.1, 0.1, 0.1], &[-0.2, -0.2]);
        let z = DVector::from_vec(vec![1.0, 1.0]);
        assert!(p.residual(&z) < 1e-15);
        let r = prove_solution(&p, &z, Some(&[true, true])).unwrap_err();
        assert!(r.contains("dependent"), "{r}");
        // Close to degenerate: the solution's z₂ = 3·2⁻⁵⁵ is below the enclosure's width, so
        // z₂ ≥ 0 cannot be shown on that piece, and z₂ = 0 leaves two equations for one
        // unknown: undecided, though the point is a solution to round-off.
        let p = lcp(&[3.0, 1.0, 1.0, 3.0], &[-3.0, -1.0 - f64::EPSILON]);
        let sol = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!(sol.status, LcpStatus::Solved);
        assert!(!prove(&p, &sol).is_proved(), "{sol:?}");
    }

    #[test]
    fn a_wrong_point_is_not_proved() {
        let p = lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        // Off the piece's solution by far more than round-off: the enclosure is of the true
        // solution, so this still proves (a point exists), but a point on the wrong piece cannot.
        assert!(prove_solution(&p, &DVector::from_vec(vec![2.5, 0.0]), None).is_err());
    }
}
