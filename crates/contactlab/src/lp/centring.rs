//! A point deep inside a polyhedron, for proofs that cannot close at a vertex: the LP rounds of
//! [`centred_point`] and [`prove_point_centred`], which tries [`prove_point`] at the guess and
//! then at the centred point ([`crate::verified`]'s module docs). They live here, beside the
//! simplex they solve with, so that `verified` (the interval checks) needs no LP.

use nalgebra::{DMatrix, DVector};

use super::{DenseLp, LpSettings, LpStatus};
use crate::interval::Interval;
use crate::verified::{prove_point, Polyhedron, Sign, ACTIVE_TOL};

/// [`prove_point`] at `guess`, then, if `guess` is a point of `p` in floating point, at a point
/// of `p` as far inside it as its inequalities allow ([`centred_point`]; module docs); `Err`
/// gives the reason at `guess` when neither closes.
pub fn prove_point_centred(p: &Polyhedron, guess: &DVector<f64>) -> Result<Vec<Interval>, String> {
    let at_guess = prove_point(p, guess);
    let Err(why) = at_guess else { return at_guess };
    // Only a guess that is a point of `p` in floating point is centred: a wrong one stays
    // refused (centring looks for a point of `p` anywhere, not near the guess).
    if !nearly_in(p, guess) {
        return Err(why);
    }
    match centred_point(p, guess).map(|c| prove_point(p, &c)) {
        Some(Ok(x)) => Ok(x),
        _ => Err(why),
    }
}

/// [`prove_point_centred`] centres a guess only if it meets every condition of the polyhedron
/// to `CENTRING_TOL` of the size of the condition's terms.
pub const CENTRING_TOL: f64 = 1e-7;

/// Whether `x` meets `p`'s conditions to [`CENTRING_TOL`] (floating point).
fn nearly_in(p: &Polyhedron, x: &DVector<f64>) -> bool {
    let n = p.n();
    if x.len() != n || !x.iter().all(|v| v.is_finite()) {
        return false;
    }
    let scale = x.amax();
    let row_ok = |a: &DMatrix<f64>, b: &DVector<f64>, r: usize, eq: bool| {
        let v: f64 = (0..n).map(|i| a[(r, i)] * x[i]).sum::<f64>() - b[r];
        let size = (0..n).map(|i| (a[(r, i)] * x[i]).abs()).sum::<f64>() + b[r].abs();
        let tol = CENTRING_TOL * size;
        if eq {
            v.abs() <= tol
        } else {
            v >= -tol
        }
    };
    p.sign.iter().zip(x.iter()).all(|(s, &v)| match s {
        Sign::NonNegative => v >= -CENTRING_TOL * scale,
        Sign::Zero => v.abs() <= CENTRING_TOL * scale,
        Sign::Free => true,
    }) && (0..p.a_eq.nrows()).all(|r| row_ok(&p.a_eq, &p.b_eq, r, true))
        && (0..p.a_ge.nrows()).all(|r| row_ok(&p.a_ge, &p.b_ge, r, false))
}

/// Largest number of LP rounds of [`centred_point`].
pub const CENTRING_ROUNDS: usize = 8;

/// A point of `p` that leaves slack in every inequality and sign condition some point of `p`
/// leaves slack in (module docs), or `None` when an LP fails. Each round maximises
/// `Σ t_j` over the inequalities not yet slack in an earlier round, with `slack_j ≥ t_j r_j`,
/// `0 ≤ t_j ≤ 1` (`r_j` the size of row `j`'s terms at the guess's scale, so that units do not
/// matter); the result is the average of the rounds' points.
pub fn centred_point(p: &Polyhedron, guess: &DVector<f64>) -> Option<DVector<f64>> {
    let n = p.n();
    let scale = guess.amax().max(f64::MIN_POSITIVE);
    // Columns of the LP: each free coordinate as a difference of two, each non-negative one as
    // itself, zero ones omitted; all in units of the guess's size (x = scale · x̃, so that the
    // simplex's tolerances see numbers of order one).
    let mut cols: Vec<(usize, f64)> = vec![];
    for (i, s) in p.sign.iter().enumerate() {
        match s {
            Sign::NonNegative => cols.push((i, scale)),
            Sign::Free => {
                cols.push((i, scale));
                cols.push((i, -scale));
            }
            Sign::Zero => {}
        }
    }
    // Inequalities: the rows of A_ge, then x_i ≥ 0 for the non-negative coordinates.
    let mut rows: Vec<(DVector<f64>, f64)> =
        (0..p.a_ge.nrows()).map(|j| (DVector::from_fn(n, |i, _| p.a_ge[(j, i)]), p.b_ge[j])).collect();
    for (i, s) in p.sign.iter().enumerate() {
        if *s == Sign::NonNegative {
            rows.push((DVector::from_fn(n, |k, _| if k == i { 1.0 / scale } else { 0.0 }), 0.0));
        }
    }
    let size = |r: &DVector<f64>, b: f64| r.iter().map(|a| a.abs() * scale).sum::<f64>() + b.abs();
    let mut open: Vec<usize> = (0..rows.len()).filter(|&j| size(&rows[j].0, rows[j].1) > 0.0).collect();
    let mut points: Vec<DVector<f64>> = vec![];
    for _ in 0..CENTRING_ROUNDS {
        if open.is_empty() {
            break;
        }
        let (nc, nt) = (cols.len(), open.len());
        let nv = nc + nt;
        let mut lp_a_eq = DMatrix::zeros(p.a_eq.nrows(), nv);
        for r in 0..p.a_eq.nrows() {
            for (c, &(i, sg)) in cols.iter().enumerate() {
                lp_a_eq[(r, c)] = sg * p.a_eq[(r, i)];
            }
        }
        // −(a_j · x) + r_j t_j ≤ −b_j for every inequality (t_j only for the open ones), t ≤ 1.
        let m_ub = rows.len() + nt;
        let mut a_ub = DMatrix::zeros(m_ub, nv);
        let mut b_ub = DVector::zeros(m_ub);
        for (j, (row, b)) in rows.iter().enumerate() {
            for (c, &(i, sg)) in cols.iter().enumerate() {
                a_ub[(j, c)] = -sg * row[i];
            }
            b_ub[j] = -b;
        }
        for (k, &j) in open.iter().enumerate() {
            a_ub[(j, nc + k)] = size(&rows[j].0, rows[j].1);
            a_ub[(rows.len() + k, nc + k)] = 1.0;
            b_ub[rows.len() + k] = 1.0;
        }
        let c = DVector::from_fn(nv, |v, _| if v >= nc { -1.0 } else { 0.0 });
        let lp = DenseLp { c, a_eq: lp_a_eq, b_eq: p.b_eq.clone(), a_ub, b_ub };
        let sol = lp.solve(&LpSettings::default()).ok()?;
        if sol.status != LpStatus::Optimal {
            return None;
        }
        let mut x = DVector::zeros(n);
        for (c, &(i, sg)) in cols.iter().enumerate() {
            x[i] += sg * sol.x[c];
        }
        points.push(x);
        let before = open.len();
        open = open.iter().enumerate().filter(|&(k, _)| sol.x[nc + k] <= ACTIVE_TOL).map(|(_, &j)| j).collect();
        if open.len() == before {
            break;
        }
    }
    if points.is_empty() {
        return None;
    }
    let k = points.len() as f64;
    Some(points.iter().fold(DVector::zeros(n), |a, x| a + x) / k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centring_leaves_slack_wherever_some_point_does() {
        // {x ≥ 0, x₁ + x₂ + x₃ = 1, −x₂ ≥ 0}: x₂ = 0 for every point (an implicit equality);
        // x₁ and x₃ can both be positive. From the vertex (1, 0, 0) the centred point keeps
        // x₂ = 0 and makes x₁, x₃ positive, whatever the rows' units.
        for unit in [1.0, 1e8, 1e-8] {
            let p = Polyhedron {
                sign: vec![Sign::NonNegative; 3],
                a_eq: DMatrix::from_row_slice(1, 3, &[unit, unit, unit]),
                b_eq: DVector::from_element(1, unit),
                a_ge: DMatrix::from_row_slice(1, 3, &[0.0, -unit, 0.0]),
                b_ge: DVector::zeros(1),
                enclosure: None,
            };
            let c = centred_point(&p, &DVector::from_vec(vec![1.0, 0.0, 0.0])).unwrap();
            assert!(c[0] > 0.1 && c[2] > 0.1 && c[1].abs() < 1e-12, "{c:?}");
            assert!((c.sum() - 1.0).abs() < 1e-12, "{c:?}");
        }
        // A guess that is not a point of the set is not centred: it stays refused (centring
        // would find (½, ½) anywhere in the set, not near the guess).
        let seg = Polyhedron {
            sign: vec![Sign::NonNegative; 2],
            a_eq: DMatrix::from_row_slice(1, 2, &[1.0, 1.0]),
            b_eq: DVector::from_element(1, 1.0),
            a_ge: DMatrix::zeros(0, 2),
            b_ge: DVector::zeros(0),
            enclosure: None,
        };
        assert!(prove_point_centred(&seg, &DVector::from_vec(vec![3.0, -2.0])).is_err());
        assert!(centred_point(&seg, &DVector::from_vec(vec![3.0, -2.0])).is_some());
        // An empty polyhedron has no centred point.
        let empty = Polyhedron {
            sign: vec![Sign::NonNegative; 2],
            a_eq: DMatrix::from_row_slice(1, 2, &[1.0, 1.0]),
            b_eq: DVector::from_element(1, -1.0),
            a_ge: DMatrix::zeros(0, 2),
            b_ge: DVector::zeros(0),
            enclosure: None,
        };
        assert!(centred_point(&empty, &DVector::zeros(2)).is_none());
    }
}
