//! What the theorems read off a one-degree-of-freedom system along its coordinate: the potential
//! `U` and `U'`, its critical points (the equilibria `h(q_e, 0) = 0` of the frictionless system),
//! the region 𝒰 of P5 (9), mountain passes and sublevel spans of `U`, the neighbouring sets, and
//! the dissipation rates `D_nc = −q̇ᵀ f_nc` and `D_λT = −γ_Tᵀ λ_T` on samples.

use nalgebra::SVector;

use super::{v1, SetInterval};
use crate::mechanics::sliders::SliderSystem;
use crate::numeric::{bisect, side_if, Tol};
use crate::Error;

/// The potential rises away from an equilibrium end when `U − U_e` and `±U'` exceed `RISE_TOL`
/// of the energy and force scales.
const RISE_TOL: f64 = 1e-13;
/// The search for the rise starts `START_OFFSET` of the coordinate scale off the equilibrium end.
const START_OFFSET: f64 = 1e-9;

/// One-degree-of-freedom helpers: `U`, `U'` and the frictionless equilibria in a set.
pub(super) struct OneDof<'a, S, const M: usize> {
    pub(super) sys: &'a S,
    pub(super) period: Option<f64>,
}

impl<'a, S: SliderSystem<1, M>, const M: usize> OneDof<'a, S, M> {
    pub(super) fn u(&self, q: f64) -> f64 {
        self.sys.potential_energy(&v1(q))
    }
    /// `U'(q) = −(h(q, 0) − f_nc(q, 0))`.
    fn du(&self, q: f64) -> f64 {
        let z = v1(0.0);
        -(self.sys.forces(&v1(q), &z)[0] - self.sys.nonconservative(&v1(q), &z)[0])
    }
    /// Zeros of `U'` in `[lo, hi]` with their kind (`+1` minimum, `−1` maximum, `0` other).
    pub(super) fn critical_points(&self, lo: f64, hi: f64) -> Vec<(f64, i32)> {
        let n = 400;
        let q_at = |k: usize| lo + (hi - lo) * k as f64 / n as f64;
        let mut out = Vec::new();
        let mut prev = self.du(q_at(0));
        for k in 1..=n {
            let d = self.du(q_at(k));
            if prev < 0.0 && d >= 0.0 || prev > 0.0 && d <= 0.0 {
                let sa = prev.signum();
                let br = bisect(q_at(k - 1), q_at(k), Tol::ROUNDOFF, |m| side_if(self.du(m).signum() != sa));
                let (a, b) = (br.lo, br.hi);
                let kind = if prev < 0.0 { 1 } else { -1 };
                let q = if self.du(b) == 0.0 { b } else { 0.5 * (a + b) };
                if out.last().is_none_or(|&(p, _): &(f64, i32)| (q - p).abs() > super::RELATIVE_ZERO * (1.0 + q.abs()))
                {
                    out.push((q, kind));
                }
            }
            prev = d;
        }
        out
    }
    /// `𝒰 = (a, b)` around `q_e`: the largest interval with `U > U(q_e)` and
    /// `U'·(q − q_e) > 0` off `q_e`, scanned up to `reach` on each side; the flags say whether
    /// the scan stopped at `reach` (the interval may extend beyond).
    pub(super) fn region_u(&self, q_e: f64, reach: f64) -> ((f64, f64), (bool, bool)) {
        let ue = self.u(q_e);
        let fs = self.sys.force_scale();
        let es = fs * self.sys.coordinate_scale();
        let ok = |q: f64, dir: f64| self.u(q) - ue > RISE_TOL * es && self.du(q) * dir > RISE_TOL * fs;
        let steps = 4000;
        let mut ends = [0.0; 2];
        let mut open = [false; 2];
        for (e, dir) in [-1.0, 1.0].into_iter().enumerate() {
            let dq = reach / steps as f64;
            let mut last_ok = q_e + dir * START_OFFSET * self.sys.coordinate_scale();
            let mut end = None;
            for k in 1..=steps {
                let q = q_e + dir * dq * k as f64;
                if ok(q, dir) {
                    last_ok = q;
                } else {
                    end = Some(bisect(last_ok, q, Tol::ROUNDOFF, |m| side_if(!ok(m, dir))).hi);
                    break;
                }
            }
            ends[e] = end.unwrap_or(q_e + dir * reach);
            open[e] = end.is_none();
        }
        ((ends[0], ends[1]), (open[0], open[1]))
    }
    /// `max U` on `[a, b]`.
    pub(super) fn mountain(&self, a: f64, b: f64) -> f64 {
        let f = |x: &[f64]| self.u(x[0]);
        crate::numeric::maximize_on_box(&f, &[a.min(b)], &[a.max(b)], 2001, 3).map_or(f64::NAN, |r| r.0)
    }
    /// The interval around `q_e` where `U − U(q_e) < c`, within `(lo, hi)`.
    pub(super) fn sublevel_span(&self, q_e: f64, c: f64, lo: f64, hi: f64) -> (f64, f64) {
        let ue = self.u(q_e);
        let inside = |q: f64| self.u(q) - ue < c;
        let mut ends = [lo, hi];
        for (e, edge) in [lo, hi].into_iter().enumerate() {
            let n = 4000;
            let mut last = q_e;
            for k in 1..=n {
                let q = q_e + (edge - q_e) * k as f64 / n as f64;
                if !inside(q) {
                    ends[e] = bisect(last, q, Tol::ROUNDOFF, |m| side_if(!inside(m))).hi;
                    break;
                }
                last = q;
            }
        }
        (ends[0], ends[1])
    }
    /// The neighbouring sets of set `i` as `(end of the left one, start of the right one)`,
    /// periodic images included; `None` on a side without one.
    pub(super) fn neighbours(&self, sets: &[SetInterval], i: usize) -> (Option<f64>, Option<f64>) {
        let n = sets.len();
        match self.period {
            Some(p) if n > 1 => {
                let left = if i == 0 { sets[n - 1].hi - p } else { sets[i - 1].hi };
                let right = if i + 1 == n { sets[0].lo + p } else { sets[i + 1].lo };
                (Some(left), Some(right))
            }
            Some(_) => (None, None),
            None => ((i > 0).then(|| sets[i - 1].hi), (i + 1 < n).then(|| sets[i + 1].lo)),
        }
    }
    /// Velocity samples for the dissipation conditions.
    fn velocities(&self) -> Vec<f64> {
        let vs = self.sys.coordinate_scale() / self.sys.time_scale();
        [1e-2, 1e-1, 1.0, 10.0].iter().flat_map(|&f| [f * vs, -f * vs]).collect()
    }
    /// Smallest `(D_nc + D_λT) / (F |q̇|)` over the samples with `q̇ ≠ 0` and whether `f_nc`
    /// dissipates (conditions 3 and 4): `(min D_nc ≥ 0 and f_nc(q, 0) = 0, min total, where)`.
    pub(super) fn dissipation(&self, qs: &[f64]) -> Result<(bool, f64, f64, f64), Error> {
        let fs = self.sys.force_scale();
        let mut nc_ok = true;
        let (mut worst, mut at_q, mut at_v) = (f64::INFINITY, f64::NAN, f64::NAN);
        for &q in qs {
            let qv = v1(q);
            if self.sys.nonconservative(&qv, &v1(0.0))[0].abs() > super::RELATIVE_ZERO * fs {
                nc_ok = false;
            }
            for v in self.velocities() {
                let vv = v1(v);
                let dnc = -v * self.sys.nonconservative(&qv, &vv)[0];
                if dnc < -super::RELATIVE_ZERO * fs * v.abs() {
                    nc_ok = false;
                }
                let map = self
                    .sys
                    .friction_map(&qv, &vv)
                    .ok_or_else(|| Error::Numerical(format!("mass matrix not positive definite at q = {q}")))?;
                let w: SVector<f64, M> = self.sys.slip_jacobian(&qv).row(0).transpose();
                let gamma = w * v;
                let d = gamma.map(|g| if g == 0.0 { 0.0 } else { g.signum() });
                let lambda = map.slip(&d).ok_or_else(|| {
                    Error::Numerical(format!("no consistent slip friction at q = {q}, q̇ = {v} (the sliders jam)"))
                })?;
                let total = (dnc - gamma.dot(&lambda)) / (fs * v.abs());
                if total < worst {
                    (worst, at_q, at_v) = (total, q, v);
                }
            }
        }
        Ok((nc_ok, worst, at_q, at_v))
    }
}
