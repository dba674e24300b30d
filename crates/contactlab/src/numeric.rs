//! Small numerical routines shared by the analyses: the floor of a data scale, a dense solve
//! for the small systems of contact forces, bisection of a predicate and the maximisation of a
//! function over a box.

/// The floor of a data scale used as a divisor (`x / scale.max(SCALE_FLOOR)`): it keeps an
/// all-zero scale from dividing by zero and lies far below any physical scale (the smallest
/// normal `f64` is `2.2e-308`), so it never changes a relative tolerance on real data, in any
/// units (the scale-invariance tests multiply data by `10^±8`).
pub const SCALE_FLOOR: f64 = 1e-300;

/// [`maximize_on_box`] stops when its pattern step is below `BOX_STEP_TOL` of the box in every
/// coordinate.
pub const BOX_STEP_TOL: f64 = 1e-12;

/// `gauss` calls a matrix singular when its largest remaining pivot is below `PIVOT_TOL` of
/// the largest entry.
pub const PIVOT_TOL: f64 = 1e-13;

/// Relative asymmetry `max|A − Aᵀ| / max|A|` below which a matrix counts as symmetric (a mass
/// matrix or inertia typed with round-off in its last digits).
pub const SYMMETRY_TOL: f64 = 1e-12;

/// Whether `m` is symmetric (to [`SYMMETRY_TOL`], relative to its largest entry: the verdict
/// does not depend on units) and positive definite (its Cholesky factorisation exists), with
/// finite entries.
pub fn is_symmetric_positive_definite(m: &nalgebra::DMatrix<f64>) -> bool {
    m.iter().all(|x| x.is_finite())
        && (m - m.transpose()).amax() <= SYMMETRY_TOL * m.amax()
        && m.clone().cholesky().is_some()
}

/// The minimum-norm solution `x = Aᵀ(AAᵀ)⁺b` of a consistent, rank-deficient square system,
/// through the symmetric eigendecomposition of `AAᵀ` (eigenvalues below `rank_tol` of
/// the largest count as zero). Not `A.svd().solve(b)`: nalgebra's SVD returned a wrong
/// factorisation (a residual of 4e-2 of `b`) for the rank-2 slip matrix of eight collinear feet.
pub fn min_norm_solve(
    a: &nalgebra::DMatrix<f64>,
    b: &nalgebra::DVector<f64>,
    rank_tol: f64,
) -> Option<nalgebra::DVector<f64>> {
    let aat = a * a.transpose();
    let eig = aat.symmetric_eigen();
    let top = eig.eigenvalues.amax();
    if !(top.is_finite() && top > 0.0) {
        return None;
    }
    let ub = eig.eigenvectors.transpose() * b;
    let scaled = nalgebra::DVector::from_fn(ub.len(), |i, _| {
        let l = eig.eigenvalues[i];
        if l > rank_tol * top {
            ub[i] / l
        } else {
            0.0
        }
    });
    let y = &eig.eigenvectors * scaled;
    let x = a.transpose() * y;
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// [`min_norm_solve`] with the small square systems of contact forces (`k ≤ 8`: redundant
/// contacts, met at every mode solve of a walker whose feet meet) on the stack, padded with
/// zeros, which add zero eigenvalues and leave the minimum-norm solution's first `k` entries
/// the same: about half the work (no allocation). The same solution to round-off, not bit for
/// bit: the planar hybrid core's constrained solves take it.
pub fn min_norm_solve_small(
    a: &nalgebra::DMatrix<f64>,
    b: &nalgebra::DVector<f64>,
    rank_tol: f64,
) -> Option<nalgebra::DVector<f64>> {
    let k = a.nrows();
    if a.ncols() == k && b.len() == k {
        match k {
            1..=4 => return padded::<4>(a, b, |s, bb| min_norm_solve4(s, bb, rank_tol)),
            5..=8 => return padded::<8>(a, b, |s, bb| min_norm_solve8(s, bb, rank_tol)),
            _ => {}
        }
    }
    min_norm_solve(a, b, rank_tol)
}

/// [`min_norm_solve`] of an `N × N` system on the stack (`N` = 3: one contact's cone problem in
/// `fc3d`; 4 and 8: [`min_norm_solve_small`]'s padded systems).
macro_rules! min_norm_fixed {
    ($name:ident, $n:literal) => {
        pub(crate) fn $name(
            a: &nalgebra::SMatrix<f64, $n, $n>,
            b: &nalgebra::SVector<f64, $n>,
            rank_tol: f64,
        ) -> Option<nalgebra::SVector<f64, $n>> {
            let eig = (a * a.transpose()).symmetric_eigen();
            let top = eig.eigenvalues.amax();
            if !(top.is_finite() && top > 0.0) {
                return None;
            }
            let ub = eig.eigenvectors.transpose() * b;
            let scaled = nalgebra::SVector::<f64, $n>::from_fn(|i, _| {
                let l = eig.eigenvalues[i];
                if l > rank_tol * top {
                    ub[i] / l
                } else {
                    0.0
                }
            });
            let x = a.transpose() * (eig.eigenvectors * scaled);
            x.iter().all(|v| v.is_finite()).then_some(x)
        }
    };
}
min_norm_fixed!(min_norm_solve3, 3);
min_norm_fixed!(min_norm_solve4, 4);
min_norm_fixed!(min_norm_solve8, 8);

/// A square `k × k` system, `k ≤ N`, padded with zero rows and columns into `N × N` on the
/// stack and solved by `solve` ([`min_norm_solve_small`]).
fn padded<const N: usize>(
    a: &nalgebra::DMatrix<f64>,
    b: &nalgebra::DVector<f64>,
    solve: impl Fn(&nalgebra::SMatrix<f64, N, N>, &nalgebra::SVector<f64, N>) -> Option<nalgebra::SVector<f64, N>>,
) -> Option<nalgebra::DVector<f64>> {
    let k = a.nrows();
    let mut s = nalgebra::SMatrix::<f64, N, N>::zeros();
    s.view_mut((0, 0), (k, k)).copy_from(a);
    let mut bb = nalgebra::SVector::<f64, N>::zeros();
    bb.rows_mut(0, k).copy_from(b);
    solve(&s, &bb).map(|x| nalgebra::DVector::from_column_slice(&x.as_slice()[..k]))
}

/// The rank of `a`: the eigenvalues of `AᵀA` above `tol²` times the largest (not nalgebra's
/// SVD: [`min_norm_solve`]). The eigenvalues' round-off is `1e-16` of the largest, so `tol`
/// must be well above `1e-8`.
pub fn rank(a: &nalgebra::DMatrix<f64>, tol: f64) -> usize {
    let e = (a.transpose() * a).symmetric_eigen().eigenvalues;
    let top = e.amax();
    if !(top.is_finite() && top > 0.0) {
        return 0;
    }
    e.iter().filter(|l| **l > tol * tol * top).count()
}

/// The largest value of `f` on the box `[lo, hi]` (one interval per coordinate) and where it is
/// attained: a grid of `n ≥ 2` points per coordinate (corners included), then a pattern search
/// from the `starts` best grid points, halving its step until it is `10⁻¹²` of the box (or after
/// 400 rounds). Non-finite values never win. `None` when `f` is nowhere finite on the grid.
/// Used where a smooth function of a few variables must be bounded (Theorem 1's quantities of P3,
/// P2's `μ_min`).
pub fn maximize_on_box(
    f: &dyn Fn(&[f64]) -> f64,
    lo: &[f64],
    hi: &[f64],
    n: usize,
    starts: usize,
) -> Option<(f64, Vec<f64>)> {
    let d = lo.len();
    let n = n.max(2);
    let point = |mut k: usize| -> Vec<f64> {
        (0..d)
            .map(|i| {
                let j = k % n;
                k /= n;
                lo[i] + (hi[i] - lo[i]) * j as f64 / (n - 1) as f64
            })
            .collect()
    };
    let mut vals: Vec<(f64, usize)> =
        (0..n.pow(d as u32)).map(|k| (f(&point(k)), k)).filter(|(v, _)| v.is_finite()).collect();
    vals.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best: Option<(f64, Vec<f64>)> = None;
    for &(v0, k) in vals.iter().take(starts.max(1)) {
        let (mut x, mut v) = (point(k), v0);
        let mut step: Vec<f64> = (0..d).map(|i| (hi[i] - lo[i]) / (n - 1) as f64).collect();
        for _ in 0..400 {
            let mut improved = false;
            for i in 0..d {
                for s in [1.0, -1.0] {
                    let mut y = x.clone();
                    y[i] = (y[i] + s * step[i]).clamp(lo[i], hi[i]);
                    let fy = f(&y);
                    if fy > v {
                        x = y;
                        v = fy;
                        improved = true;
                    }
                }
            }
            if !improved {
                step.iter_mut().for_each(|s| *s *= 0.5);
                if (0..d).all(|i| step[i] <= BOX_STEP_TOL * (hi[i] - lo[i])) {
                    break;
                }
            }
        }
        if best.as_ref().is_none_or(|b| v > b.0) {
            best = Some((v, x));
        }
    }
    best
}

/// Where a point of a bracket lies for [`bisect`]'s predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// On the side of the bracket's `lo` end (the predicate holds there as at `lo`).
    Lo,
    /// On the side of its `hi` end.
    Hi,
    /// Undecidable there (the predicate cannot be evaluated): the bisection stops.
    Stop,
}

/// When [`bisect`] stops: the bracket no wider than `abs + rel · max(|lo|, |hi|)`, or its
/// midpoint rounding to an end (round-off), whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tol {
    /// Absolute width.
    pub abs: f64,
    /// Width relative to the larger end's magnitude.
    pub rel: f64,
}

impl Tol {
    /// Down to round-off.
    pub const ROUNDOFF: Tol = Tol { abs: 0.0, rel: 0.0 };

    /// A relative width.
    pub const fn rel(rel: f64) -> Tol {
        Tol { abs: 0.0, rel }
    }

    /// An absolute width.
    pub const fn abs(abs: f64) -> Tol {
        Tol { abs, rel: 0.0 }
    }
}

/// The bracket a bisection ends with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bracket {
    /// The end on the `lo` side.
    pub lo: f64,
    /// The end on the `hi` side.
    pub hi: f64,
    /// Whether the predicate stopped it ([`Side::Stop`]).
    pub stopped: bool,
}

impl Bracket {
    /// The midpoint.
    pub fn mid(&self) -> f64 {
        0.5 * (self.lo + self.hi)
    }
}

/// Most halvings of a bisection: enough to bring any two finite doubles to adjacent ones.
pub const MAX_BISECTIONS: usize = 2200;

/// Bisects `[lo, hi]` (either order) on a three-way predicate, to `tol` ([`Tol`]), at most
/// [`MAX_BISECTIONS`] halvings; the predicate is not evaluated at the ends.
pub fn bisect(lo: f64, hi: f64, tol: Tol, mut side: impl FnMut(f64) -> Side) -> Bracket {
    let never = |m: f64| -> Result<Side, std::convert::Infallible> { Ok(side(m)) };
    match try_bisect(lo, hi, tol, never) {
        Ok(b) => b,
        Err(e) => match e {},
    }
}

/// [`bisect`] with a predicate that can fail: its first error ends the bisection.
pub fn try_bisect<E>(
    mut lo: f64,
    mut hi: f64,
    tol: Tol,
    mut side: impl FnMut(f64) -> Result<Side, E>,
) -> Result<Bracket, E> {
    for _ in 0..MAX_BISECTIONS {
        if (hi - lo).abs() <= tol.abs + tol.rel * lo.abs().max(hi.abs()) {
            break;
        }
        let m = 0.5 * (lo + hi);
        if m == lo || m == hi {
            break;
        }
        match side(m)? {
            Side::Lo => lo = m,
            Side::Hi => hi = m,
            Side::Stop => return Ok(Bracket { lo, hi, stopped: true }),
        }
    }
    Ok(Bracket { lo, hi, stopped: false })
}

/// [`Side::Hi`] where `hi_side` holds, [`Side::Lo`] elsewhere.
pub fn side_if(hi_side: bool) -> Side {
    if hi_side {
        Side::Hi
    } else {
        Side::Lo
    }
}

/// Solves the `k × k` row-major system `a y = b` in place by Gaussian elimination with partial
/// pivoting; `false` if a pivot falls below `1e-13` of the largest entry.
pub(crate) fn gauss(a: &mut [f64], b: &mut [f64], k: usize) -> bool {
    let scale = a[..k * k].iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if k == 0 {
        return true;
    }
    if !(scale > 0.0 && scale.is_finite()) {
        return false;
    }
    for c in 0..k {
        let mut p = c;
        for r in c + 1..k {
            if a[r * k + c].abs() > a[p * k + c].abs() {
                p = r;
            }
        }
        if a[p * k + c].abs() <= PIVOT_TOL * scale {
            return false;
        }
        if p != c {
            for j in 0..k {
                a.swap(p * k + j, c * k + j);
            }
            b.swap(p, c);
        }
        let d = a[c * k + c];
        for r in c + 1..k {
            let f = a[r * k + c] / d;
            if f != 0.0 {
                for j in c..k {
                    a[r * k + j] -= f * a[c * k + j];
                }
                b[r] -= f * b[c];
            }
        }
    }
    for c in (0..k).rev() {
        let mut s = b[c];
        for j in c + 1..k {
            s -= a[c * k + j] * b[j];
        }
        b[c] = s / a[c * k + c];
    }
    true
}

/// Solves the small dense system `a x = b` ([`gauss`]); `None` if it is singular to round-off.
pub(crate) fn solve_small<const M: usize>(
    a: &nalgebra::SMatrix<f64, M, M>,
    b: &nalgebra::SVector<f64, M>,
) -> Option<nalgebra::SVector<f64, M>> {
    let mut rows = a.transpose();
    let mut x = *b;
    gauss(rows.as_mut_slice(), x.as_mut_slice(), M).then_some(x)
}

/// [`negative_intervals`] bisects a sign change until the bracket is below `BRACKET_TOL` of
/// `1 + |a|` (round-off).
pub const BRACKET_TOL: f64 = 1e-15;

/// The intervals of `t` in `[lo, hi]` where `b(t) < 0`, from a scan of `n ≥ 2` points with each
/// sign change refined by bisection to [`BRACKET_TOL`].
pub fn negative_intervals(b: &dyn Fn(f64) -> f64, lo: f64, hi: f64, n: usize) -> Vec<[f64; 2]> {
    let n = n.max(2);
    let edge = |a: f64, c: f64| {
        let neg_a = b(a) < 0.0;
        bisect(a, c, Tol { abs: BRACKET_TOL, rel: BRACKET_TOL }, |m| side_if((b(m) < 0.0) != neg_a)).mid()
    };
    let mut out = Vec::new();
    let mut start: Option<f64> = if b(lo) < 0.0 { Some(lo) } else { None };
    let mut prev = lo;
    for k in 1..n {
        let t = lo + (hi - lo) * k as f64 / (n - 1) as f64;
        let (was, is) = (b(prev) < 0.0, b(t) < 0.0);
        if !was && is {
            start = Some(edge(prev, t));
        } else if was && !is {
            out.push([start.take().unwrap_or(lo), edge(prev, t)]);
        }
        prev = t;
    }
    if let Some(s) = start {
        out.push([s, hi]);
    }
    out
}

#[cfg(test)]
mod bisect_tests {
    use super::*;

    #[test]
    fn bisection_meets_its_tolerance_stops_on_request_and_takes_either_order() {
        // √2 on [1, 2]: to round-off both ends are adjacent doubles around it.
        let b = bisect(1.0, 2.0, Tol::ROUNDOFF, |x| side_if(x * x >= 2.0));
        assert!(b.lo < b.hi && b.lo.next_up() == b.hi && !b.stopped, "{b:?}");
        assert!(b.lo * b.lo < 2.0 && b.hi * b.hi >= 2.0);
        // A relative width, in units of 10^±8 of the same problem: the same number of halvings.
        for unit in [1e-8, 1.0, 1e8] {
            let mut n = 0;
            let b = bisect(unit, 2.0 * unit, Tol::rel(1e-6), |x| {
                n += 1;
                side_if(x * x >= 2.0 * unit * unit)
            });
            assert!(b.hi - b.lo <= 1e-6 * b.hi && n == 20, "{unit}: {b:?} after {n}");
        }
        // The ends in either order: the predicate's sides, not the numbers, name them.
        let b = bisect(2.0, 1.0, Tol::abs(1e-9), |x| side_if(x * x < 2.0));
        assert!((b.mid() - 2f64.sqrt()).abs() < 1e-9, "{b:?}");
        // A point where the predicate cannot decide stops it, with the bracket so far.
        let b = bisect(0.0, 1.0, Tol::ROUNDOFF, |x| if x < 0.3 { Side::Stop } else { Side::Hi });
        assert!(b.stopped && b.lo == 0.0 && b.hi == 0.5, "{b:?}");
        // An error ends it too; the work is bounded even at a zero of the bracket's end.
        let r: Result<Bracket, &str> =
            try_bisect(0.0, 1.0, Tol::ROUNDOFF, |x| if x < 0.1 { Err("no") } else { Ok(Side::Hi) });
        assert_eq!(r, Err("no"));
        let mut n = 0;
        bisect(0.0, 1.0, Tol::ROUNDOFF, |_| {
            n += 1;
            Side::Hi
        });
        assert!(n <= MAX_BISECTIONS && n > 1000, "{n}");
    }
}

#[cfg(test)]
mod box_tests {
    use super::maximize_on_box;

    #[test]
    fn box_maximum_between_grid_points_and_at_a_corner() {
        // max of −(x − 0.3)² − (y + 0.2)² over [0, 1] × [−1, 1] is 0 at (0.3, −0.2), between grid
        // points; a linear function peaks at a corner.
        let f = |p: &[f64]| -(p[0] - 0.3).powi(2) - (p[1] + 0.2).powi(2);
        let (v, at) = maximize_on_box(&f, &[0.0, -1.0], &[1.0, 1.0], 4, 3).unwrap();
        assert!(v.abs() < 1e-12 && (at[0] - 0.3).abs() < 1e-6);
        let g = |p: &[f64]| 2.0 * p[0] - p[1];
        assert!((maximize_on_box(&g, &[0.0, -1.0], &[1.0, 1.0], 3, 1).unwrap().0 - 3.0).abs() < 1e-15);
        assert!(maximize_on_box(&|_| f64::NAN, &[0.0], &[1.0], 5, 1).is_none());
    }
}

#[cfg(test)]
mod spd_tests {
    use super::is_symmetric_positive_definite;
    use nalgebra::DMatrix;

    #[test]
    fn symmetry_and_definiteness_do_not_depend_on_units() {
        let good = DMatrix::from_row_slice(2, 2, &[2.0, 0.3, 0.3, 1.0]);
        let skew = DMatrix::from_row_slice(2, 2, &[2.0, 0.3, 0.3 * (1.0 + 1e-6), 1.0]);
        let indefinite = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        for k in [1e-8, 1.0, 1e8] {
            assert!(is_symmetric_positive_definite(&(&good * k)), "k = {k}");
            assert!(!is_symmetric_positive_definite(&(&skew * k)), "k = {k}");
            assert!(!is_symmetric_positive_definite(&(&indefinite * k)), "k = {k}");
        }
        assert!(!is_symmetric_positive_definite(&DMatrix::from_row_slice(1, 1, &[f64::NAN])));
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn the_padded_minimum_norm_solve_is_the_general_one() {
        // Rank-deficient square systems (k = 2..8, rank k − 1 or k − 2), consistent right-hand
        // sides: the stack route and the heap route give the same minimum-norm solution, which
        // solves the system and has no component in A's null space.
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for k in 2..=8 {
            for drop in 1..=2.min(k - 1) {
                let r = k - drop;
                let (u, w) = (DMatrix::from_fn(k, r, |_, _| rnd()), DMatrix::from_fn(r, k, |_, _| rnd()));
                let a = &u * &w * 1e3;
                let b = &a * DVector::from_fn(k, |_, _| rnd());
                let (x, y) = (
                    super::min_norm_solve_small(&a, &b, 1e-10).unwrap(),
                    super::min_norm_solve(&a, &b, 1e-10).unwrap(),
                );
                assert!((&x - &y).amax() <= 1e-10 * y.amax(), "k = {k}: {x} vs {y}");
                assert!((&a * &x - &b).amax() <= 1e-10 * b.amax(), "k = {k}: residual");
                // x lies in the row space of A: orthogonal to the null space of A.
                let null = a.clone().svd(false, true).v_t.unwrap();
                for row in null.row_iter().skip(r) {
                    assert!(row.dot(&x.transpose()).abs() <= 1e-10 * x.amax(), "k = {k}: not the least norm");
                }
            }
        }
    }
}
