//! Lemke's complementary pivoting method with lexicographic degeneracy resolution.
//!
//! The augmented problem (Cottle, Pang & Stone 1992, §4.4) is
//!
//! ```text
//!     w = q + M z + d z₀ ≥ 0,   z ≥ 0,   z₀ ≥ 0,   wᵢ zᵢ = 0,
//! ```
//!
//! with a covering vector `d > 0`. The method keeps a *dictionary* `x_B = q̄ + T x_N` over the
//! nonbasic variables only (an `n × (n + 1)` array), so one pivot costs `O(n²)`.
//!
//! 1. If `q ≥ 0`, `z = 0` solves the LCP.
//! 2. `z₀` enters; the row with the lexicographically smallest `(q̄ᵢ, B⁻¹ᵢ·) / dᵢ` leaves.
//! 3. The complement of the variable that just left enters; the minimum-ratio test picks the
//!    leaving row, `z₀` whenever it ties, otherwise the lexicographic minimum of
//!    `(q̄ᵢ, B⁻¹ᵢ·) / (−Tᵢₛ)`. Since the rows of `B⁻¹` are independent the choice is unique, no
//!    basis repeats and the method cannot cycle.
//! 4. It ends when `z₀` leaves (a solution) or when no row blocks the entering variable
//!    (a *secondary ray*: for copositive-plus `M` that proves infeasibility, in general not).
//!
//! `B⁻¹` is not stored: its column `j` is `−T·,c` when `w_j` is nonbasic in column `c` and the unit
//! vector of `w_j`'s row when `w_j` is basic, so ties cost `O(n)` per compared row.
//!
//! The final point is verified on the original data; if its residual exceeds the tolerance the
//! final basis is re-solved by an LU factorisation of the original columns before giving up with
//! `NumericalError`.

use std::cmp::Ordering;

use nalgebra::{DMatrix, DVector};

use super::scaling::Equilibration;
use super::{Lcp, LcpMethod, LcpSettings, LcpSolution, LcpStatus, NoSolutionReason};
use crate::Error;

/// Two entries of the lexicographic ratio test are equal within `LEX_TIE` of `1 + |entry|`.
const LEX_TIE: f64 = 1e-12;
/// Ratios within `RATIO_TIE · |θ|` of the minimum ratio `θ` tie (relative: absolute windows
/// misjudge small-scale data).
const RATIO_TIE: f64 = 1e-9;

/// The arrays of a solve. The last solve's are kept per thread (below [`REUSE_MAX`] entries) and
/// reused by the next, so that a small solve allocates little.
#[derive(Default)]
struct Buffers {
    /// Row-major `n × (n + 1)` coefficients.
    t: Vec<f64>,
    qbar: Vec<f64>,
    basic: Vec<usize>,
    nonbasic: Vec<usize>,
    /// For variable v: `(true, row)` if basic, `(false, column)` if nonbasic.
    pos: Vec<(bool, usize)>,
    /// The entering column (negated) and the ratios of the ratio test.
    col: Vec<f64>,
    ratios: Vec<f64>,
}

/// Dictionaries up to this many coefficients (`n ≤ 361`) leave their arrays for the next solve.
const REUSE_MAX: usize = 1 << 17;

thread_local! {
    static SPARE: std::cell::Cell<Option<Buffers>> = const { std::cell::Cell::new(None) };
}

/// Variable indices: `0..n` are `w`, `n..2n` are `z`, `2n` is `z₀`.
struct Dictionary {
    n: usize,
    b: Buffers,
    /// The wide `y += a x` kernel, `None` for the portable loop (inlined: short rows).
    axpy: Option<Axpy>,
}

impl Drop for Dictionary {
    fn drop(&mut self) {
        if self.b.t.capacity() <= REUSE_MAX {
            let b = std::mem::take(&mut self.b);
            // (A thread being torn down has no slot left: the arrays are then freed.)
            let _ = SPARE.try_with(|spare| spare.set(Some(b)));
        }
    }
}

impl Dictionary {
    #[inline]
    fn stride(&self) -> usize {
        self.n + 1
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.b.t[i * (self.n + 1) + j]
    }

    /// Entry `(i, j)` of `B⁻¹`.
    fn binv(&self, i: usize, j: usize) -> f64 {
        match self.b.pos[j] {
            (true, row) => f64::from(u8::from(row == i)),
            (false, col) => -self.at(i, col),
        }
    }

    /// Lexicographic comparison of rows `a` and `b` divided by `da > 0`, `db > 0`.
    fn lex_cmp(&self, a: usize, da: f64, b: usize, db: f64) -> Ordering {
        let tol = LEX_TIE;
        let cmp = |x: f64, y: f64| {
            if (x - y).abs() <= tol * (1.0 + x.abs().max(y.abs())) {
                Ordering::Equal
            } else {
                x.total_cmp(&y)
            }
        };
        match cmp(self.b.qbar[a] / da, self.b.qbar[b] / db) {
            Ordering::Equal => {}
            o => return o,
        }
        for j in 0..self.n {
            match cmp(self.binv(a, j) / da, self.binv(b, j) / db) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        Ordering::Equal
    }

    /// Exchanges the basic variable of row `r` with the nonbasic variable of column `s`.
    fn pivot(&mut self, r: usize, s: usize) {
        let st = self.stride();
        let p = self.b.t[r * st + s];
        // Row r: x_s = (x_r - q̄_r - Σ_{j≠s} T_rj x_j) / T_rs.
        let inv = 1.0 / p;
        let b = &mut self.b;
        let (before, rest) = b.t.split_at_mut(r * st);
        let (prow, after) = rest.split_at_mut(st);
        for v in prow.iter_mut() {
            *v *= -inv;
        }
        prow[s] = inv;
        b.qbar[r] *= -inv;
        let (prow, qr, axpy) = (&*prow, b.qbar[r], self.axpy);
        // Every other row i: x_i gains T_is times the new row r.
        let update = |row: &mut [f64], qb: &mut f64| {
            let f = row[s];
            if f == 0.0 {
                return;
            }
            row[s] = 0.0;
            match axpy {
                Some(axpy) => axpy(row, f, prow),
                None => axpy_portable(row, f, prow),
            }
            *qb += f * qr;
        };
        let (q_before, q_rest) = b.qbar.split_at_mut(r);
        for (row, qb) in before.chunks_exact_mut(st).zip(q_before) {
            update(row, qb);
        }
        for (row, qb) in after.chunks_exact_mut(st).zip(&mut q_rest[1..]) {
            update(row, qb);
        }
        let leaving = self.b.basic[r];
        let entering = self.b.nonbasic[s];
        self.b.basic[r] = entering;
        self.b.nonbasic[s] = leaving;
        self.b.pos[entering] = (true, r);
        self.b.pos[leaving] = (false, s);
    }
}

/// A `y += a x` kernel.
type Axpy = fn(&mut [f64], f64, &[f64]);

/// Picks the `y += a x` kernel of every pivot once per solve: AVX2/FMA when the processor has
/// them and rows are long enough to profit, the portable loop (inlined) otherwise.
fn pick_axpy(len: usize) -> Option<Axpy> {
    #[cfg(target_arch = "x86_64")]
    {
        if len >= 24 && std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            return Some(axpy_avx2_detected);
        }
    }
    let _ = len;
    None
}

#[cfg(target_arch = "x86_64")]
fn axpy_avx2_detected(y: &mut [f64], a: f64, x: &[f64]) {
    // SAFETY: only handed out by `pick_axpy` after detecting AVX2 and FMA at run time.
    unsafe { axpy_avx2(y, a, x) }
}

#[inline(always)]
fn axpy_portable(y: &mut [f64], a: f64, x: &[f64]) {
    for (v, &xv) in y.iter_mut().zip(x.iter()) {
        *v += a * xv;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn axpy_avx2(y: &mut [f64], a: f64, x: &[f64]) {
    // The same loop, compiled with 256-bit vectors and fused multiply-add.
    for (v, &xv) in y.iter_mut().zip(x.iter()) {
        *v = a.mul_add(xv, *v);
    }
}

/// Runs Lemke's method on `lcp` (no fallback; see [`super::solve`] for the combined solver).
///
/// The method runs on the equilibrated problem ([`super::scaling`]), with the covering vector all
/// ones there (or the caller's, transformed so that the path is the one it asked for); the point
/// is mapped back exactly and its residual is the scale-free one of [`Lcp::residual`].
pub fn solve(lcp: &Lcp, settings: &LcpSettings) -> Result<LcpSolution, Error> {
    lcp.validate()?;
    settings.validate(lcp.n())?;
    let eq = Equilibration::of(lcp);
    // The default covering vector is all ones on the equilibrated problem (well scaled); a
    // covering vector given by the caller is transformed so the path is the one it asked for.
    let covering = match &settings.covering {
        Some(d) => eq.covering(Some(d)),
        None => DVector::from_element(lcp.n(), 1.0),
    };
    if !covering.as_slice().iter().all(|&v| v > 0.0 && v.is_finite()) {
        return Err(Error::argument("covering", "out of the range of f64 after equilibration"));
    }
    solve_equilibrated(lcp, &eq, &covering, settings)
}

/// Lemke's method on the equilibrated problem `(M'', q'')` of `lcp` under `eq`, with covering
/// vector `covering`. `M''` is not formed: the dictionary is built from `M` and the factors
/// (each entry `m_ij (d_i e_j)` exact), and every point `z''` is mapped back to `z = τ E z''`
/// and checked by [`Equilibration::residual`] on the original data.
fn solve_equilibrated(
    lcp: &Lcp,
    eq: &Equilibration,
    covering: &DVector<f64>,
    settings: &LcpSettings,
) -> Result<LcpSolution, Error> {
    let n = lcp.n();
    let max_pivots = if settings.max_pivots == 0 { super::default_max_pivots(n) } else { settings.max_pivots };
    // (The clock is read only when there is a time limit to watch.)
    let started = settings.time_limit.map(|_| std::time::Instant::now());

    // q'' = D q / τ.
    let (d, e, tau) = (eq.d.as_slice(), eq.e.as_slice(), eq.tau);
    // (q itself, not q'': a tiny negative q_i may have underflowed to zero in q''.)
    // z = 0 exactly (not mapped back: a factor out of range would make 0 · ∞ a NaN).
    if lcp.q.iter().all(|&v| v >= 0.0) {
        return Ok(LcpSolution {
            status: LcpStatus::Solved,
            method: LcpMethod::Trivial,
            reason: None,
            proof: crate::verified::Proof::none(super::NOT_CHECKED),
            z: DVector::zeros(n),
            w: lcp.q.clone(),
            residual: 0.0,
            violation: 0.0,
            pivots: 0,
            basis: None,
        });
    }
    let mut b = SPARE.try_with(std::cell::Cell::take).ok().flatten().unwrap_or_default();
    b.qbar.clear();
    b.qbar.extend(lcp.q.as_slice().iter().zip(d).map(|(&q, &di)| q * di / tau));

    // The row-major dictionary [M'' d], written down the columns of M (its storage order).
    let st = n + 1;
    let t = &mut b.t;
    t.clear();
    t.resize(n * st, 0.0);
    for ((col, &ej), j) in lcp.m.as_slice().chunks_exact(n).zip(e).zip(0..) {
        for ((&x, &di), row) in col.iter().zip(d).zip(t.chunks_exact_mut(st)) {
            row[j] = x * (di * ej);
        }
    }
    for (row, &c) in t.chunks_exact_mut(st).zip(covering.as_slice()) {
        row[n] = c;
    }
    // ‖M''‖∞ for the residual, from the rows just written (the sums the residual would form).
    let m_inf = b.t.chunks_exact(st).map(|row| row[..n].iter().fold(0.0, |s, x| s + x.abs())).fold(0.0, f64::max);

    let done = |status, z_scaled: DVector<f64>, pivots, reason| {
        let z = eq.z_original(&z_scaled);
        let w = lcp.w(&z);
        let residual = eq.residual_given_norm(lcp, &z, &w, m_inf);
        let proof = crate::verified::Proof::none(if status == LcpStatus::Solved {
            super::NOT_CHECKED
        } else {
            "nothing was proved: Lemke's method alone"
        });
        let violation = super::verify::violation(lcp, &z, settings.tolerance);
        LcpSolution { status, method: LcpMethod::Lemke, reason, proof, z, w, residual, violation, pivots, basis: None }
    };

    let z0 = 2 * n;
    b.pos.clear();
    b.pos.extend((0..n).map(|i| (true, i)).chain((0..=n).map(|c| (false, c))));
    b.basic.clear();
    b.basic.extend(0..n);
    b.nonbasic.clear();
    b.nonbasic.extend(n..=2 * n);
    for v in [&mut b.col, &mut b.ratios] {
        v.clear();
        v.resize(n, 0.0);
    }
    let mut dict = Dictionary { n, b, axpy: pick_axpy(st) };

    // Initial pivot: z0 enters, the lexicographically most negative q_i / d_i leaves.
    let mut r = 0;
    for i in 1..n {
        if dict.lex_cmp(i, dict.at(i, n), r, dict.at(r, n)) == Ordering::Less {
            r = i;
        }
    }
    let mut leaving = dict.b.basic[r];
    dict.pivot(r, n);
    let mut pivots = 1usize;

    loop {
        let entering = if leaving < n { leaving + n } else { leaving - n };
        let (false, s) = dict.b.pos[entering] else {
            return Ok(done(LcpStatus::NumericalError, DVector::zeros(n), pivots, None));
        };
        // Minimum-ratio test over rows where the entering variable drives the basic one down:
        // the column (negated) gathered once, the ratios kept for the tie test.
        for (c, row) in dict.b.col.iter_mut().zip(dict.b.t.chunks_exact(st)) {
            *c = -row[s];
        }
        let col_max = dict.b.col.iter().fold(0.0f64, |m, &x| if x.abs() > m { x.abs() } else { m });
        let thresh = settings.pivot_tol * col_max.max(crate::numeric::SCALE_FLOOR);
        // (Without branches: every quotient is formed and the blocking ones kept, so the loop
        // is vector instructions; the rows that do not block get +∞.)
        for ((ratio, &a), &qb) in dict.b.ratios.iter_mut().zip(&dict.b.col).zip(&dict.b.qbar) {
            let r = qb.max(0.0) / a;
            *ratio = if a > thresh { r } else { f64::INFINITY };
        }
        let theta = dict.b.ratios.iter().fold(f64::INFINITY, |t, &r| if r < t { r } else { t });
        if !theta.is_finite() {
            if col_max.is_finite() && dict.b.qbar.iter().all(|v| v.is_finite()) {
                let z = current_z(&dict);
                return Ok(done(LcpStatus::NoSolution, z, pivots, Some(NoSolutionReason::SecondaryRay)));
            }
            return Ok(done(LcpStatus::NumericalError, DVector::zeros(n), pivots, None));
        }
        // Relative tie window (absolute windows misjudge small-scale data).
        let tie = RATIO_TIE * theta.abs();
        let mut chosen: Option<usize> = None;
        for i in 0..n {
            // (A row that does not block has ratio +∞ > θ + tie, θ being finite here.)
            if dict.b.ratios[i] <= theta + tie {
                if dict.b.basic[i] == z0 {
                    chosen = Some(i);
                    break;
                }
                chosen = match chosen {
                    None => Some(i),
                    Some(c) if dict.lex_cmp(i, dict.b.col[i], c, dict.b.col[c]) == Ordering::Less => Some(i),
                    keep => keep,
                };
            }
        }
        let Some(r) = chosen else {
            return Ok(done(LcpStatus::NumericalError, current_z(&dict), pivots, None));
        };
        let out_of_time = pivots.is_multiple_of(64)
            && settings.time_limit.zip(started).is_some_and(|(l, t)| t.elapsed().as_secs_f64() > l);
        if pivots.is_multiple_of(256) {
            if let Some(p) = &settings.progress {
                (p.0)(pivots, max_pivots);
            }
        }
        if pivots >= max_pivots || out_of_time {
            let z = current_z(&dict);
            return Ok(done(LcpStatus::IterationLimit, z, pivots, None));
        }
        leaving = dict.b.basic[r];
        dict.pivot(r, s);
        pivots += 1;
        if leaving == z0 {
            break;
        }
    }

    let z = current_z(&dict);
    let mut sol = done(LcpStatus::Solved, z, pivots, None);
    if sol.residual.is_nan() || sol.residual > settings.tolerance {
        if let Some(z) = refine(&eq.scale(lcp), &dict.b.basic) {
            let refined = done(LcpStatus::Solved, z, pivots, None);
            if refined.residual < sol.residual {
                sol = refined;
            }
        }
        if sol.residual.is_nan() || sol.residual > settings.tolerance {
            sol.status = LcpStatus::NumericalError;
        }
    }
    if sol.status == LcpStatus::Solved {
        let mut basis = vec![false; n];
        for &v in dict.b.basic.iter().filter(|v| (n..2 * n).contains(*v)) {
            basis[v - n] = true;
        }
        super::accept(lcp, &mut sol, Some(&basis), settings);
        if sol.status == LcpStatus::Solved {
            sol.basis = Some(basis);
        }
    }
    Ok(sol)
}

fn current_z(dict: &Dictionary) -> DVector<f64> {
    let n = dict.n;
    let mut z = DVector::zeros(n);
    for (i, &v) in dict.b.basic.iter().enumerate() {
        if (n..2 * n).contains(&v) {
            z[v - n] = dict.b.qbar[i].max(0.0);
        }
    }
    z
}

/// Re-solves the basic system `[I, −M]_B x_B = q` of the (scaled) problem `lcp` by an LU factorisation.
fn refine(lcp: &Lcp, basic: &[usize]) -> Option<DVector<f64>> {
    let n = lcp.n();
    let b = DMatrix::from_fn(n, n, |i, k| {
        let v = basic[k];
        if v < n {
            f64::from(u8::from(v == i))
        } else if v < 2 * n {
            -lcp.m[(i, v - n)]
        } else {
            0.0
        }
    });
    let x = b.lu().solve(&lcp.q)?;
    let mut z = DVector::zeros(n);
    for (k, &v) in basic.iter().enumerate() {
        if (n..2 * n).contains(&v) {
            z[v - n] = x[k].max(0.0);
        }
    }
    Some(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcp(m: &[f64], q: &[f64]) -> Lcp {
        let n = q.len();
        Lcp::new(DMatrix::from_row_slice(n, n, m), DVector::from_column_slice(q)).unwrap()
    }

    #[test]
    fn two_by_two_positive_definite() {
        let p = lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let s = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!(s.status, LcpStatus::Solved);
        assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-12 && (s.z[1] - 7.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn reused_arrays_give_the_points_of_fresh_ones() {
        // The arrays a solve leaves for the next one on its thread: solves of other sizes in
        // between (larger, smaller, one ending on a ray) change no bit of the answer.
        let a = lcp(&[2.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 4.0], &[-1.0, 2.0, -3.0]);
        let fresh = std::thread::spawn({
            let a = a.clone();
            move || solve(&a, &LcpSettings::default()).unwrap()
        })
        .join()
        .unwrap();
        let big = crate::paper_configs::lcp::murty(6);
        for other in [big, lcp(&[-1.0], &[-1.0]), lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0])] {
            let _ = solve(&other, &LcpSettings::default()).unwrap();
            let again = solve(&a, &LcpSettings::default()).unwrap();
            assert_eq!(again.status, LcpStatus::Solved);
            assert_eq!(again.pivots, fresh.pivots);
            for (x, y) in again.z.iter().zip(fresh.z.iter()) {
                assert_eq!(x.to_bits(), y.to_bits());
            }
        }
    }

    #[test]
    fn trivial_when_q_nonnegative() {
        let p = lcp(&[-1.0, 0.0, 0.0, -1.0], &[0.0, 1.0]);
        let s = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!(s.status, LcpStatus::Solved);
        assert_eq!(s.pivots, 0);
    }

    #[test]
    fn infeasible_ends_on_ray() {
        // w = -z - 1 < 0 for every z >= 0.
        let p = lcp(&[-1.0], &[-1.0]);
        let s = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!(s.status, LcpStatus::NoSolution);
        assert_eq!(s.reason, Some(NoSolutionReason::SecondaryRay));
    }

    #[test]
    fn degenerate_q_does_not_cycle() {
        // Many ties in the ratio test: q has repeated entries and M is singular.
        let p = lcp(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], &[-1.0, -1.0, -1.0]);
        let s = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!(s.status, LcpStatus::Solved);
        assert!(s.residual < 1e-12);
    }

    #[test]
    fn small_scale_data_is_solved_exactly() {
        // Review finding: an absolute tie window let z0 leave early for q = (-1e-12, -2e-12).
        let p = lcp(&[1.0, 0.0, 0.0, 1.0], &[-1e-12, -2e-12]);
        let s = solve(&p, &LcpSettings::default()).unwrap();
        assert_eq!(s.status, LcpStatus::Solved);
        assert!((s.z[0] - 1e-12).abs() < 1e-24 && (s.z[1] - 2e-12).abs() < 1e-24, "{:?}", s.z);
    }

    #[test]
    fn time_limit_is_reported() {
        // Murty's path with n = 16 takes 2^16 pivots; a zero time limit stops it at once.
        let n = 16;
        let p = crate::paper_configs::lcp::murty(n);
        let settings =
            LcpSettings { time_limit: Some(0.0), covering: Some(DVector::from_element(n, 1.0)), ..Default::default() };
        let s = solve(&p, &settings).unwrap();
        assert_eq!(s.status, LcpStatus::IterationLimit);
        assert!(s.pivots <= 64);
        assert_eq!(super::super::default_max_pivots(200), 201_000);
        assert_eq!(super::super::default_max_pivots(2000), 4_995);
    }

    #[test]
    fn iteration_limit_is_reported() {
        let n = 8;
        let p = crate::paper_configs::lcp::murty(n);
        // Murty's path (covering e = 1 on the data as given) needs 2^8 pivots.
        let settings =
            LcpSettings { max_pivots: 3, covering: Some(DVector::from_element(n, 1.0)), ..Default::default() };
        let s = solve(&p, &settings).unwrap();
        assert_eq!(s.status, LcpStatus::IterationLimit);
    }
}
