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

/// Variable indices: `0..n` are `w`, `n..2n` are `z`, `2n` is `z₀`.
struct Dictionary {
    n: usize,
    /// Row-major `n × (n + 1)` coefficients.
    t: Vec<f64>,
    qbar: Vec<f64>,
    basic: Vec<usize>,
    nonbasic: Vec<usize>,
    /// For variable v: `(true, row)` if basic, `(false, column)` if nonbasic.
    pos: Vec<(bool, usize)>,
    scratch: Vec<f64>,
    axpy: Axpy,
}

impl Dictionary {
    #[inline]
    fn stride(&self) -> usize {
        self.n + 1
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.t[i * (self.n + 1) + j]
    }

    /// Entry `(i, j)` of `B⁻¹`.
    fn binv(&self, i: usize, j: usize) -> f64 {
        match self.pos[j] {
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
        match cmp(self.qbar[a] / da, self.qbar[b] / db) {
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
        let p = self.t[r * st + s];
        // Row r: x_s = (x_r - q̄_r - Σ_{j≠s} T_rj x_j) / T_rs.
        let inv = 1.0 / p;
        {
            let row = &mut self.t[r * st..(r + 1) * st];
            for v in row.iter_mut() {
                *v *= -inv;
            }
            row[s] = inv;
        }
        self.qbar[r] *= -inv;
        self.scratch.copy_from_slice(&self.t[r * st..(r + 1) * st]);
        let qr = self.qbar[r];
        for i in 0..self.n {
            if i == r {
                continue;
            }
            let row = &mut self.t[i * st..(i + 1) * st];
            let f = row[s];
            if f == 0.0 {
                continue;
            }
            row[s] = 0.0;
            (self.axpy)(row, f, &self.scratch);
            self.qbar[i] += f * qr;
        }
        let leaving = self.basic[r];
        let entering = self.nonbasic[s];
        self.basic[r] = entering;
        self.nonbasic[s] = leaving;
        self.pos[entering] = (true, r);
        self.pos[leaving] = (false, s);
    }
}

/// A `y += a x` kernel.
type Axpy = fn(&mut [f64], f64, &[f64]);

/// Picks the `y += a x` kernel of every pivot once per solve: AVX2/FMA when the processor has
/// them and rows are long enough to profit, the portable loop otherwise.
fn pick_axpy(len: usize) -> Axpy {
    #[cfg(target_arch = "x86_64")]
    {
        if len >= 24 && std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            return axpy_avx2_detected;
        }
    }
    let _ = len;
    axpy_portable
}

#[cfg(target_arch = "x86_64")]
fn axpy_avx2_detected(y: &mut [f64], a: f64, x: &[f64]) {
    // SAFETY: only handed out by `pick_axpy` after detecting AVX2 and FMA at run time.
    unsafe { axpy_avx2(y, a, x) }
}

#[inline]
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
    let started = std::time::Instant::now();

    let done = |status, z_scaled: DVector<f64>, pivots, reason| {
        let z = eq.z_original(&z_scaled);
        let w = lcp.w(&z);
        let residual = eq.residual(lcp, &z, &w);
        let proof = crate::verified::Proof::none(if status == LcpStatus::Solved {
            super::NOT_CHECKED
        } else {
            "nothing was proved: Lemke's method alone"
        });
        let violation = super::verify::violation(lcp, &z, settings.tolerance);
        LcpSolution { status, method: LcpMethod::Lemke, reason, proof, z, w, residual, violation, pivots, basis: None }
    };

    // q'' = D q / τ.
    let (d, e, tau) = (eq.d.as_slice(), eq.e.as_slice(), eq.tau);
    let qbar: Vec<f64> = lcp.q.as_slice().iter().zip(d).map(|(&q, &di)| q * di / tau).collect();
    // (q itself, not q'': a tiny negative q_i may have underflowed to zero in q''.)
    // z = 0 exactly (not mapped back: a factor out of range would make 0 · ∞ a NaN).
    if lcp.q.iter().all(|&v| v >= 0.0) {
        let mut s = done(LcpStatus::Solved, DVector::zeros(n), 0, None);
        s.method = LcpMethod::Trivial;
        s.z = DVector::zeros(n);
        s.w = lcp.q.clone();
        s.residual = 0.0;
        s.violation = 0.0;
        return Ok(s);
    }

    // The row-major dictionary [M'' d], written row by row (no zero fill first).
    let st = n + 1;
    let mut t = Vec::with_capacity(n * st);
    let m = lcp.m.as_slice();
    for (i, (&di, &c)) in d.iter().zip(covering.as_slice()).enumerate() {
        t.extend(m[i..].iter().step_by(n).zip(e).map(|(&x, &ej)| x * (di * ej)));
        t.push(c);
    }
    let z0 = 2 * n;
    let mut pos = vec![(false, 0); 2 * n + 1];
    for i in 0..n {
        pos[i] = (true, i);
        pos[n + i] = (false, i);
    }
    pos[z0] = (false, n);
    let mut dict = Dictionary {
        n,
        t,
        qbar,
        basic: (0..n).collect(),
        nonbasic: (n..=2 * n).collect(),
        pos,
        scratch: vec![0.0; st],
        axpy: pick_axpy(st),
    };

    // Initial pivot: z0 enters, the lexicographically most negative q_i / d_i leaves.
    let mut r = 0;
    for i in 1..n {
        if dict.lex_cmp(i, dict.at(i, n), r, dict.at(r, n)) == Ordering::Less {
            r = i;
        }
    }
    let mut leaving = dict.basic[r];
    dict.pivot(r, n);
    let mut pivots = 1usize;

    let (mut col, mut ratios) = (vec![0.0; n], vec![0.0; n]);
    loop {
        let entering = if leaving < n { leaving + n } else { leaving - n };
        let (false, s) = dict.pos[entering] else {
            return Ok(done(LcpStatus::NumericalError, DVector::zeros(n), pivots, None));
        };
        // Minimum-ratio test over rows where the entering variable drives the basic one down:
        // the column (negated) gathered once, the ratios kept for the tie test.
        for (c, row) in col.iter_mut().zip(dict.t.chunks_exact(st)) {
            *c = -row[s];
        }
        let col_max = col.iter().fold(0.0f64, |m, &x| if x.abs() > m { x.abs() } else { m });
        let thresh = settings.pivot_tol * col_max.max(crate::numeric::SCALE_FLOOR);
        // (Without branches: every quotient is formed and the blocking ones kept, so the loop
        // is vector instructions; the rows that do not block get +∞.)
        for ((ratio, &a), &qb) in ratios.iter_mut().zip(&col).zip(&dict.qbar) {
            let r = qb.max(0.0) / a;
            *ratio = if a > thresh { r } else { f64::INFINITY };
        }
        let theta = ratios.iter().fold(f64::INFINITY, |t, &r| if r < t { r } else { t });
        if !theta.is_finite() {
            if col_max.is_finite() && dict.qbar.iter().all(|v| v.is_finite()) {
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
            if ratios[i] <= theta + tie {
                if dict.basic[i] == z0 {
                    chosen = Some(i);
                    break;
                }
                chosen = match chosen {
                    None => Some(i),
                    Some(c) if dict.lex_cmp(i, col[i], c, col[c]) == Ordering::Less => Some(i),
                    keep => keep,
                };
            }
        }
        let Some(r) = chosen else {
            return Ok(done(LcpStatus::NumericalError, current_z(&dict), pivots, None));
        };
        let out_of_time =
            pivots.is_multiple_of(64) && settings.time_limit.is_some_and(|l| started.elapsed().as_secs_f64() > l);
        if pivots.is_multiple_of(256) {
            if let Some(p) = &settings.progress {
                (p.0)(pivots, max_pivots);
            }
        }
        if pivots >= max_pivots || out_of_time {
            let z = current_z(&dict);
            return Ok(done(LcpStatus::IterationLimit, z, pivots, None));
        }
        leaving = dict.basic[r];
        dict.pivot(r, s);
        pivots += 1;
        if leaving == z0 {
            break;
        }
    }

    let z = current_z(&dict);
    let mut sol = done(LcpStatus::Solved, z, pivots, None);
    if sol.residual.is_nan() || sol.residual > settings.tolerance {
        if let Some(z) = refine(&eq.scale(lcp), &dict.basic) {
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
        for &v in dict.basic.iter().filter(|v| (n..2 * n).contains(*v)) {
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
    for (i, &v) in dict.basic.iter().enumerate() {
        if (n..2 * n).contains(&v) {
            z[v - n] = dict.qbar[i].max(0.0);
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
