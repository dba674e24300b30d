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
//!   degenerate, near a certificate inside the set ([`crate::verified::prove_point_centred`]).
//! * **No solution (enumeration)**, for `n ≤` [`PIECE_PROOF_MAX`]: every one of the `2ⁿ`
//!   complementary pieces is empty, each by its own Farkas certificate proved as above
//!   ([`prove_no_piece`]; the piece `z = 0` by the sign of `q` itself).

use nalgebra::{DMatrix, DVector};

use super::{Lcp, LcpSolution, LcpStatus, NoSolutionReason};
use crate::lp::{DenseLp, LpSettings, LpStatus};
use crate::verified::{prove_point, prove_point_centred, Polyhedron, Proof, Sign};

/// The proof status of an LCP solver's verdict (module docs).
pub fn prove(lcp: &Lcp, sol: &LcpSolution) -> Proof {
    match (sol.status, sol.reason) {
        (LcpStatus::Solved, _) => Proof::from_check(prove_solution(lcp, &sol.z, sol.basis.as_deref())),
        (LcpStatus::NoSolution, Some(NoSolutionReason::Infeasible)) => Proof::from_check(prove_infeasible(lcp)),
        (LcpStatus::NoSolution, Some(NoSolutionReason::Enumeration)) => Proof::from_check(prove_no_piece(lcp)),
        (LcpStatus::NoSolution, _) => Proof::none("nothing was proved: Lemke's method stopped on a secondary ray"),
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
    }
}

/// A solution of the LCP proved near `z` (module docs): its enclosure, or why no proof closed.
pub fn prove_solution(
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

/// Proves that no complementary piece holds a point (module docs): `Ok(pieces checked)`, or
/// why not (a piece the LP finds non-empty, or one whose emptiness no certificate proved).
pub fn prove_no_piece(lcp: &Lcp) -> Result<usize, String> {
    let n = lcp.n();
    if n > PIECE_PROOF_MAX {
        return Err(format!("{n} > {PIECE_PROOF_MAX} variables: the 2^n pieces are not checked one by one"));
    }
    for bits in 0u32..(1u32 << n) {
        let alpha: Vec<usize> = (0..n).filter(|&i| bits >> i & 1 == 1).collect();
        let beta: Vec<usize> = (0..n).filter(|&i| bits >> i & 1 == 0).collect();
        if alpha.is_empty() {
            // z = 0, w = q: empty exactly when some q_i < 0 (floats compare exactly).
            if lcp.q.iter().all(|&v| v >= 0.0) {
                return Err("z = 0 solves it (q >= 0)".into());
            }
            continue;
        }
        // z_α ≥ 0 with M_αα z_α = −q_α and −M_βα z_α ≤ q_β, its columns then its rows scaled by
        // powers of two (exact, so the scaled piece is empty exactly when the piece is; the
        // simplex's tolerances then see coefficients of order one whatever the units).
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
        let col: Vec<f64> = (0..k).map(|c| pow2((0..n).fold(0.0f64, |a, r| a.max(entry(r, c).abs())))).collect();
        let row: Vec<f64> =
            (0..n).map(|r| pow2((0..k).fold(0.0f64, |a, c| a.max((entry(r, c) * col[c]).abs())))).collect();
        let scaled = |r: usize, c: usize| entry(r, c) * col[c] * row[r];
        let lp = DenseLp::feasibility(
            k,
            DMatrix::from_fn(k, k, &scaled),
            DVector::from_fn(k, |r, _| rhs(r) * row[r]),
            DMatrix::from_fn(beta.len(), k, |r, c| scaled(k + r, c)),
            DVector::from_fn(beta.len(), |r, _| rhs(k + r) * row[k + r]),
        );
        let sol = lp.solve(&LpSettings::default()).map_err(|e| e.to_string())?;
        let label = || format!("piece {:?}", alpha.iter().map(|i| i + 1).collect::<Vec<_>>());
        match sol.status {
            LpStatus::Infeasible => {
                let p = lp.prove(&sol);
                if !p.is_proved() {
                    return Err(format!("{}: {}", label(), p.proof_reason.unwrap_or_default()));
                }
            }
            LpStatus::Optimal => return Err(format!("{}: the LP finds a point in it", label())),
            other => return Err(format!("{}: the LP ended {other:?}", label())),
        }
    }
    Ok(1 << n)
}

/// A Farkas certificate of `{z ≥ 0 : Mz + q ≥ 0} = ∅` found by the dense simplex and proved
/// (module docs): its enclosure, or why no proof closed.
pub fn prove_infeasible(lcp: &Lcp) -> Result<Vec<crate::interval::Interval>, String> {
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
    };
    prove_point_centred(&p, &sol.x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::{solve, LcpSettings};

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
