//! P5 (van de Wouw & Leine): equilibrium sets of mechanical systems with set-valued friction on
//! bilateral constraints, their attractivity (Theorem 1) and instability (Theorem 2).
//!
//! * [`equilibrium_sets`]: the equilibrium set (5) of a one-degree-of-freedom
//!   [`SliderSystem`] as a union of intervals, each end found by bisection on the exact
//!   membership test [`is_equilibrium`] (the generalized force `−h(q, 0)` in the image of
//!   Coulomb's admissible set, normal forces from the statics); [`sample_equilibrium_set`] does
//!   the same on a grid for more degrees of freedom, one feasibility LP per point.
//! * [`theorem1`]: the five conditions of Theorem 1 for a set around a minimum `q_e` of the
//!   potential, checked one by one (each with what was checked), and `c*`, the largest level
//!   of `V = T + U − U(q_e)` whose sublevel component around the set lies in `Q` and holds no
//!   other equilibrium set, computed from the potential along the coordinate (the mountain
//!   pass to the neighbouring sets and the edge of `𝒰`), not from a closed form.
//! * [`theorem2`]: the statements of Theorem 2 for a set around a maximum of the potential,
//!   with P5's function (24), `V = U(q_e) − U − T`.
//! * [`basin`]: the region of attraction found by time-stepping a grid of initial states
//!   ([`crate::timestep::bilateral`]) against the estimate `{V < c*}`.
//!
//! The one-degree-of-freedom analyses take the coordinate periodic when
//! [`SliderSystem::period`] says so (the rod's `θ`).

pub mod model;
pub mod plots;

use std::collections::BTreeMap;

use nalgebra::SVector;
use rayon::prelude::*;
use serde::Serialize;

use crate::lp::{LpSettings, LpStatus};
use crate::mechanics::sliders::{in_image, sign_pattern, SliderSystem};
use crate::timestep::{bilateral, Trajectory};
use crate::util::bisect;
use crate::Error;

type V1 = SVector<f64, 1>;

fn v1(x: f64) -> V1 {
    V1::new(x)
}

/// Whether `(q, 0)` is an equilibrium: `h(q, 0) + Σ W_Ti C_Ti ∋ 0` (P5 (5)) with the normal
/// forces of the statics. One degree of freedom: `−h` in the image of the admissible set; more:
/// one feasibility LP per sign pattern of the normal forces.
pub fn is_equilibrium<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    q: &SVector<f64, N>,
) -> Result<bool, Error> {
    let map = sys.static_map(q);
    let h = sys.forces(q, &SVector::zeros());
    let w = sys.slip_jacobian(q);
    let fs = sys.force_scale();
    if N == 1 {
        let wr: SVector<f64, M> = w.row(0).transpose();
        return Ok(in_image(&map.image(&wr)?, -h[0], 1e-12 * fs));
    }
    let scale = map.scale().max(fs);
    for bits in 0..1usize << M {
        let mut lp = map.pattern_lp(&sign_pattern::<M>(bits), scale);
        for r in 0..N {
            let row = (0..M).flat_map(|j| [(j, w[(r, j)]), (M + j, -w[(r, j)])]).collect();
            lp.eq(row, -h[r] / scale);
        }
        let sol = lp.build().solve(&LpSettings::default())?;
        match sol.status {
            LpStatus::Optimal => return Ok(true),
            LpStatus::Infeasible => {}
            other => {
                return Err(Error::Numerical(format!(
                    "equilibrium LP at q = {:?} ended with status {}",
                    q.as_slice(),
                    crate::util::kebab(&other)
                )))
            }
        }
    }
    Ok(false)
}

/// A connected equilibrium set of a one-degree-of-freedom system, `{(q, 0) : lo ≤ q ≤ hi}`.
/// For a periodic coordinate a set across the seam of the scanned period has `hi` beyond it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetInterval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// The set is the whole scanned domain (for a periodic coordinate, the whole circle).
    pub whole: bool,
}

impl SetInterval {
    /// Midpoint, brought into `(−P/2, P/2]` for a period `P`.
    pub fn center(&self, period: Option<f64>) -> f64 {
        let c = 0.5 * (self.lo + self.hi);
        match period {
            Some(p) => {
                let x = c.rem_euclid(p);
                if x > 0.5 * p {
                    x - p
                } else {
                    x
                }
            }
            None => c,
        }
    }
    /// Half width.
    pub fn half_width(&self) -> f64 {
        0.5 * (self.hi - self.lo)
    }
    /// Whether `q` (any periodic image) lies in the set, up to `tol`.
    pub fn contains(&self, q: f64, period: Option<f64>, tol: f64) -> bool {
        if self.whole {
            return true;
        }
        let c = 0.5 * (self.lo + self.hi);
        let d = match period {
            Some(p) => {
                let x = q - c;
                x - p * (x / p).round()
            }
            None => q - c,
        };
        d.abs() <= self.half_width() + tol
    }
}

/// Bisection between a point `outside` and a point `inside` of a set given by `test`: the
/// last inside point once the bracket is at round-off.
fn boundary(test: &dyn Fn(f64) -> Result<bool, Error>, mut outside: f64, mut inside: f64) -> Result<f64, Error> {
    for _ in 0..200 {
        let mid = 0.5 * (outside + inside);
        if mid == outside || mid == inside {
            break;
        }
        if test(mid)? {
            inside = mid;
        } else {
            outside = mid;
        }
    }
    Ok(inside)
}

/// The equilibrium set (5) of a one-degree-of-freedom system on `[a, b]` (for a periodic
/// coordinate `b` is ignored and one period from `a` is scanned): `grid` points, then each
/// end by bisection to round-off. Sets narrower than the grid spacing can be missed.
pub fn equilibrium_sets<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    a: f64,
    b: f64,
    grid: usize,
) -> Result<Vec<SetInterval>, Error> {
    let period = sys.period(0);
    let b = period.map_or(b, |p| a + p);
    if !(a.is_finite() && b.is_finite() && b > a) {
        return Err(Error::argument("domain", format!("the domain [{a}, {b}] is empty")));
    }
    let grid = grid.max(8);
    let test = |q: f64| is_equilibrium(sys, &v1(q));
    let n = if period.is_some() { grid } else { grid + 1 };
    let q_at = |k: usize| a + (b - a) * k as f64 / grid as f64;
    let flags: Vec<bool> = (0..n).map(|k| test(q_at(k))).collect::<Result<_, _>>()?;
    if flags.iter().all(|&f| f) {
        return Ok(vec![SetInterval { lo: a, hi: b, whole: true }]);
    }
    let mut sets = Vec::new();
    let mut k = 0;
    while k < n {
        if !flags[k] {
            k += 1;
            continue;
        }
        let start = k;
        while k < n && flags[k] {
            k += 1;
        }
        let lo = if start == 0 { a } else { boundary(&test, q_at(start - 1), q_at(start))? };
        let hi = if k == n {
            if period.is_some() {
                boundary(&test, q_at(n), q_at(n - 1))?
            } else {
                b
            }
        } else {
            boundary(&test, q_at(k), q_at(k - 1))?
        };
        sets.push(SetInterval { lo, hi, whole: false });
    }
    if period.is_some() && flags[0] {
        if flags[n - 1] {
            // One set through the seam: its part at the start continues the one at the end.
            let first = sets.remove(0);
            let last = sets.last_mut().expect("a run ends at the seam");
            last.hi = first.hi + (b - a);
        } else {
            sets[0].lo = boundary(&test, a - (b - a) / grid as f64, a)?;
        }
    }
    Ok(sets)
}

/// A sampled equilibrium set of an `N`-degree-of-freedom system: the grid points that are
/// equilibria and the points of its boundary found by bisection along each grid edge that
/// crosses it.
#[derive(Debug, Clone, Serialize)]
pub struct SampledSet {
    /// Grid points in the set.
    pub inside: Vec<Vec<f64>>,
    /// Boundary points (each to round-off along its grid edge).
    pub boundary: Vec<Vec<f64>>,
    /// Grid points tested.
    pub tested: usize,
}

/// Samples the equilibrium set on a grid of `n` points per coordinate over the box `[lo, hi]`.
pub fn sample_equilibrium_set<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    lo: &SVector<f64, N>,
    hi: &SVector<f64, N>,
    n: usize,
) -> Result<SampledSet, Error> {
    let n = n.max(2);
    let total = n.pow(N as u32);
    let point = |mut k: usize| -> SVector<f64, N> {
        SVector::from_fn(|i, _| {
            let j = k % n;
            k /= n;
            lo[i] + (hi[i] - lo[i]) * j as f64 / (n - 1) as f64
        })
    };
    let flags: Vec<bool> =
        (0..total).into_par_iter().map(|k| is_equilibrium(sys, &point(k))).collect::<Result<_, _>>()?;
    let mut out = SampledSet { inside: Vec::new(), boundary: Vec::new(), tested: total };
    for k in 0..total {
        let p = point(k);
        if flags[k] {
            out.inside.push(p.iter().copied().collect());
        }
        let mut stride = 1;
        for i in 0..N {
            let j = (k / stride) % n;
            if j + 1 < n && flags[k] != flags[k + stride] {
                let (pin, pout) = if flags[k] { (p, point(k + stride)) } else { (point(k + stride), p) };
                let test = |t: f64| is_equilibrium(sys, &(pout + (pin - pout) * t));
                let t = boundary(&test, 0.0, 1.0)?;
                out.boundary.push((pout + (pin - pout) * t).iter().copied().collect());
            }
            stride *= n;
            let _ = i;
        }
    }
    Ok(out)
}

/// One checked hypothesis: whether it holds and what was checked.
#[derive(Debug, Clone, Serialize)]
pub struct Condition {
    /// Whether it holds (on the samples described).
    pub holds: bool,
    /// What was checked, with the numbers.
    pub detail: String,
}

fn cond(holds: bool, detail: impl Into<String>) -> Condition {
    Condition { holds, detail: crate::util::tidy_zeros(&detail.into()) }
}

/// Theorem 1 for one set.
#[derive(Debug, Clone, Serialize)]
pub struct Theorem1 {
    /// The equilibrium `q_e` of the frictionless system in the set (a minimum of `U`).
    pub q_e: f64,
    /// `𝒰`: the largest interval around `q_e` where `U > U(q_e)` and `U' ≠ 0` (P5 (9)).
    pub region_u: (f64, f64),
    /// Conditions `"1"` to `"5"`.
    pub conditions: BTreeMap<String, Condition>,
    /// `c*` (of `V = T + U − U(q_e)`).
    pub c_star: f64,
    /// What bounds `c*`.
    pub c_star_limited_by: String,
    /// The sublevel set `{V < c*}` around the set spans `q ∈ (q_lo, q_hi)`.
    pub level_set_span: (f64, f64),
    /// All five conditions hold: the set is locally attractive with `{V < c*}` in its basin.
    pub attractive: bool,
}

/// Theorem 2 for one set, with `V = U(q_e) − U − T` (P5 (24)).
#[derive(Debug, Clone, Serialize)]
pub struct Theorem2 {
    /// The equilibrium `q_e` of the frictionless system in the set (a maximum of `U`).
    pub q_e: f64,
    /// `V_E = max over the set of V`.
    pub v_e: f64,
    /// The radius `r` of the environment `D_r` (half the distance to the nearest other set).
    pub r: f64,
    /// Hypotheses shared by the statements.
    pub hypotheses: BTreeMap<String, Condition>,
    /// Statements `"1"`, `"2"`, `"3"`: whether their conditions hold.
    pub statements: BTreeMap<String, Condition>,
    /// Statement 1 or 3 applies.
    pub unstable: bool,
    /// Statement 2 applies.
    pub not_attractive: bool,
}

/// The analysis of one equilibrium set.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    /// Midpoint (for a periodic coordinate in `(−P/2, P/2]`).
    pub center: f64,
    /// Half width.
    pub half_width: f64,
    /// Ends.
    pub lo: f64,
    /// Ends.
    pub hi: f64,
    /// Proved attractive by Theorem 1 (`null`: no theorem applies).
    pub attractive: Option<bool>,
    /// Proved unstable by Theorem 2 (`null`: no theorem applies).
    pub unstable: Option<bool>,
    /// Which theorem decided it, or why none applies.
    pub theorem: String,
    /// Theorem 1's details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theorem1: Option<Theorem1>,
    /// Theorem 2's details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theorem2: Option<Theorem2>,
}

/// `eqset analyze`: the sets and what the theorems say about each.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The sets in order along the coordinate.
    pub sets: Vec<SetReport>,
    /// `c*` of the first set Theorem 1 was applied to.
    pub c_star: Option<f64>,
    /// Theorem 1's conditions for that set.
    pub conditions: Option<BTreeMap<String, Condition>>,
}

/// Settings of the one-degree-of-freedom analyses.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Lower end of the scanned coordinate range (one period from here for a periodic
    /// coordinate).
    pub q_min: f64,
    /// Upper end (ignored for a periodic coordinate).
    pub q_max: f64,
    /// Grid points of the set scan.
    pub grid: usize,
}

impl Settings {
    /// One period centred on 0 for a periodic coordinate, else `±50` coordinate scales.
    pub fn for_system<S: SliderSystem<1, M>, const M: usize>(sys: &S) -> Self {
        match sys.period(0) {
            Some(p) => Self { q_min: -0.5 * p, q_max: 0.5 * p, grid: 4000 },
            None => {
                let s = 50.0 * sys.coordinate_scale();
                Self { q_min: -s, q_max: s, grid: 4000 }
            }
        }
    }
}

/// One-degree-of-freedom helpers: `U`, `U'` and the frictionless equilibria in a set.
struct OneDof<'a, S, const M: usize> {
    sys: &'a S,
    period: Option<f64>,
}

impl<'a, S: SliderSystem<1, M>, const M: usize> OneDof<'a, S, M> {
    fn u(&self, q: f64) -> f64 {
        self.sys.potential_energy(&v1(q))
    }
    /// `U'(q) = −(h(q, 0) − f_nc(q, 0))`.
    fn du(&self, q: f64) -> f64 {
        let z = v1(0.0);
        -(self.sys.forces(&v1(q), &z)[0] - self.sys.nonconservative(&v1(q), &z)[0])
    }
    /// Zeros of `U'` in `[lo, hi]` with their kind (`+1` minimum, `−1` maximum, `0` other).
    fn critical_points(&self, lo: f64, hi: f64) -> Vec<(f64, i32)> {
        let n = 400;
        let q_at = |k: usize| lo + (hi - lo) * k as f64 / n as f64;
        let mut out = Vec::new();
        let mut prev = self.du(q_at(0));
        for k in 1..=n {
            let d = self.du(q_at(k));
            if prev < 0.0 && d >= 0.0 || prev > 0.0 && d <= 0.0 {
                let sa = prev.signum();
                let (a, b) = bisect(q_at(k - 1), q_at(k), |m| self.du(m).signum() == sa);
                let kind = if prev < 0.0 { 1 } else { -1 };
                let q = if self.du(b) == 0.0 { b } else { 0.5 * (a + b) };
                if out.last().is_none_or(|&(p, _): &(f64, i32)| (q - p).abs() > 1e-12 * (1.0 + q.abs())) {
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
    fn region_u(&self, q_e: f64, reach: f64) -> ((f64, f64), (bool, bool)) {
        let ue = self.u(q_e);
        let fs = self.sys.force_scale();
        let es = fs * self.sys.coordinate_scale();
        let ok = |q: f64, dir: f64| self.u(q) - ue > 1e-13 * es && self.du(q) * dir > 1e-13 * fs;
        let steps = 4000;
        let mut ends = [0.0; 2];
        let mut open = [false; 2];
        for (e, dir) in [-1.0, 1.0].into_iter().enumerate() {
            let dq = reach / steps as f64;
            let mut last_ok = q_e + dir * 1e-9 * self.sys.coordinate_scale();
            let mut end = None;
            for k in 1..=steps {
                let q = q_e + dir * dq * k as f64;
                if ok(q, dir) {
                    last_ok = q;
                } else {
                    end = Some(bisect(last_ok, q, |m| ok(m, dir)).1);
                    break;
                }
            }
            ends[e] = end.unwrap_or(q_e + dir * reach);
            open[e] = end.is_none();
        }
        ((ends[0], ends[1]), (open[0], open[1]))
    }
    /// `max U` on `[a, b]`.
    fn mountain(&self, a: f64, b: f64) -> f64 {
        let f = |x: &[f64]| self.u(x[0]);
        crate::util::maximize_on_box(&f, &[a.min(b)], &[a.max(b)], 2001, 3).map_or(f64::NAN, |r| r.0)
    }
    /// The interval around `q_e` where `U − U(q_e) < c`, within `(lo, hi)`.
    fn sublevel_span(&self, q_e: f64, c: f64, lo: f64, hi: f64) -> (f64, f64) {
        let ue = self.u(q_e);
        let inside = |q: f64| self.u(q) - ue < c;
        let mut ends = [lo, hi];
        for (e, edge) in [lo, hi].into_iter().enumerate() {
            let n = 4000;
            let mut last = q_e;
            for k in 1..=n {
                let q = q_e + (edge - q_e) * k as f64 / n as f64;
                if !inside(q) {
                    ends[e] = bisect(last, q, inside).1;
                    break;
                }
                last = q;
            }
        }
        (ends[0], ends[1])
    }
    /// The neighbouring sets of set `i` as `(end of the left one, start of the right one)`,
    /// periodic images included; `None` on a side without one.
    fn neighbours(&self, sets: &[SetInterval], i: usize) -> (Option<f64>, Option<f64>) {
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
    fn dissipation(&self, qs: &[f64]) -> Result<(bool, f64, f64, f64), Error> {
        let fs = self.sys.force_scale();
        let mut nc_ok = true;
        let (mut worst, mut at_q, mut at_v) = (f64::INFINITY, f64::NAN, f64::NAN);
        for &q in qs {
            let qv = v1(q);
            if self.sys.nonconservative(&qv, &v1(0.0))[0].abs() > 1e-12 * fs {
                nc_ok = false;
            }
            for v in self.velocities() {
                let vv = v1(v);
                let dnc = -v * self.sys.nonconservative(&qv, &vv)[0];
                if dnc < -1e-12 * fs * v.abs() {
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

fn samples(a: f64, b: f64, n: usize) -> Vec<f64> {
    (1..n).map(|k| a + (b - a) * k as f64 / n as f64).collect()
}

/// Theorem 1 for set `i` of `sets` (from [`equilibrium_sets`]); `None` when the set holds no
/// minimum of the potential (the theorem does not apply).
pub fn theorem1<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    sets: &[SetInterval],
    i: usize,
    settings: &Settings,
) -> Result<Option<Theorem1>, Error> {
    let set = sets[i];
    let one = OneDof::<S, M> { sys, period: sys.period(0) };
    let Some(&(q_e, _)) = one.critical_points(set.lo, set.hi).iter().find(|c| c.1 == 1) else {
        return Ok(None);
    };
    let reach = one.period.map_or(settings.q_max - settings.q_min, |p| p);
    let ((ua, ub), (open_a, open_b)) = one.region_u(q_e, reach);
    let ue = one.u(q_e);
    let es = sys.force_scale() * sys.coordinate_scale();
    let qs = samples(ua, ub, 64);
    let mut c = BTreeMap::new();
    // 1: M > 0.
    let m_min = qs.iter().map(|&q| sys.inertia(&v1(q))[(0, 0)]).fold(f64::INFINITY, f64::min);
    c.insert(
        "1".to_string(),
        cond(m_min > 0.0, format!("M(q) = M(q)ᵀ > 0 on {} samples of 𝒰 (smallest {m_min:.6})", qs.len())),
    );
    // 2: U positive definite around q_e with U' ≠ 0 on 𝒰, and the set inside 𝒰.
    let inside_u = set.lo > ua && set.hi < ub;
    let others: Vec<String> = sets
        .iter()
        .enumerate()
        .filter(|&(j, s)| {
            j != i && {
                let p = one.period.unwrap_or(0.0);
                [-p, 0.0, p].iter().any(|&sh| s.hi + sh > ua && s.lo + sh < ub)
            }
        })
        .map(|(_, s)| format!("[{:.6}, {:.6}]", s.lo, s.hi))
        .collect();
    let mut detail = format!(
        "U − U(q_e) > 0 and U' ≠ 0 on 𝒰 = ({ua:.6}, {ub:.6}) \\ {{q_e = {q_e:.6}}}{}; the set [{:.6}, {:.6}] {} 𝒰",
        if open_a || open_b { " (𝒰 reaches the scanned range)" } else { "" },
        set.lo,
        set.hi,
        if inside_u { "lies in" } else { "is not inside" }
    );
    if !others.is_empty() {
        detail += &format!(
            "; Q also meets the equilibrium set(s) {} (so, as in P5 Section IV, the estimate is restricted to the level set V < c* of condition 5)",
            others.join(", ")
        );
    }
    c.insert("2".to_string(), cond(inside_u, detail));
    // 3 and 4: dissipation.
    let (nc_ok, worst, wq, wv) = one.dissipation(&qs)?;
    c.insert(
        "3".to_string(),
        cond(nc_ok, format!("D_nc = −q̇ f_nc ≥ 0 and f_nc(q, 0) = 0 on {} samples of 𝒰 × {} velocities", qs.len(), 8)),
    );
    c.insert(
        "4".to_string(),
        cond(
            worst > 1e-9,
            format!(
                "D_nc + D_λT > 0 for q̇ ≠ 0 on the same samples: smallest (D_nc + D_λT)/(F |q̇|) = {worst:.6} at q = {wq:.4}, q̇ = {wv:.4}"
            ),
        ),
    );
    // c*: the level set must stay in Q and reach no other set.
    let (left, right) = one.neighbours(sets, i);
    let mut limits: Vec<(f64, String)> = Vec::new();
    if !open_a {
        limits.push((one.mountain(ua, q_e) - ue, format!("the edge of 𝒰 at q = {ua:.6}")));
    }
    if !open_b {
        limits.push((one.mountain(q_e, ub) - ue, format!("the edge of 𝒰 at q = {ub:.6}")));
    }
    if let Some(l) = left {
        limits.push((one.mountain(l, set.lo) - ue, format!("the equilibrium set ending at q = {l:.6}")));
    }
    if let Some(r) = right {
        limits.push((one.mountain(set.hi, r) - ue, format!("the equilibrium set starting at q = {r:.6}")));
    }
    let (c_star, by) = limits
        .into_iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or((f64::INFINITY, "nothing in the scanned range".to_string()));
    let (span_lo, span_hi) = if c_star.is_finite() {
        one.sublevel_span(q_e, c_star, ua.min(left.unwrap_or(ua)), ub.max(right.unwrap_or(ub)))
    } else {
        (ua, ub)
    };
    let v_set = one.u(set.lo).max(one.u(set.hi)) - ue;
    c.insert(
        "5".to_string(),
        cond(
            v_set < c_star - 1e-12 * es,
            format!("max of V on the set = {v_set:.6} < c* = {c_star:.6} (c* limited by {by})"),
        ),
    );
    let attractive = c.values().all(|x| x.holds);
    Ok(Some(Theorem1 {
        q_e,
        region_u: (ua, ub),
        conditions: c,
        c_star,
        c_star_limited_by: by,
        level_set_span: (span_lo, span_hi),
        attractive,
    }))
}

/// Theorem 2 for set `i` with P5's `V = U(q_e) − U − T`; `None` when the set holds no maximum of
/// the potential.
pub fn theorem2<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    sets: &[SetInterval],
    i: usize,
) -> Result<Option<Theorem2>, Error> {
    let set = sets[i];
    let one = OneDof::<S, M> { sys, period: sys.period(0) };
    let Some(&(q_e, _)) = one.critical_points(set.lo, set.hi).iter().find(|c| c.1 == -1) else {
        return Ok(None);
    };
    let ue = one.u(q_e);
    let es = sys.force_scale() * sys.coordinate_scale();
    let vq = |q: f64| ue - one.u(q);
    // V_E over the set (at rest).
    let on_set = samples(set.lo, set.hi, 400).into_iter().chain([set.lo, set.hi]);
    let (v_e, q_max) = on_set.map(|q| (vq(q), q)).fold((f64::NEG_INFINITY, 0.0), |a, b| if b.0 > a.0 { b } else { a });
    let (left, right) = one.neighbours(sets, i);
    let gap = [left.map(|l| set.lo - l), right.map(|r| r - set.hi)].into_iter().flatten().fold(f64::INFINITY, f64::min);
    let r = if gap.is_finite() { 0.5 * gap } else { sys.coordinate_scale() };
    let mut hyp = BTreeMap::new();
    hyp.insert("V_E > 0".to_string(), cond(v_e > 1e-12 * es, format!("V_E = {v_e:.6} at q = {q_max:.6}")));
    // Points arbitrarily close to the set with V > V_E: just outside the end where V = V_E.
    let eps = 1e-6 * sys.coordinate_scale();
    let outward = if (q_max - set.lo).abs() <= (q_max - set.hi).abs() { set.lo - eps } else { set.hi + eps };
    hyp.insert(
        "V(x0) > V_E arbitrarily close".to_string(),
        cond(vq(outward) > v_e, format!("V = {:.9} at q = {outward:.9}, q̇ = 0, vs V_E = {v_e:.9}", vq(outward))),
    );
    let qs: Vec<f64> = samples(set.lo - r, set.hi + r, 64);
    let (nc_ok, worst, wq, wv) = one.dissipation(&qs)?;
    let vdot_ok = nc_ok && worst >= -1e-12;
    hyp.insert(
        "V̇ ≥ 0 in W \\ E".to_string(),
        cond(
            vdot_ok,
            format!(
                "V̇ = D_nc + D_λT ≥ 0 on {} samples of D_r × 8 velocities (smallest (D_nc + D_λT)/(F|q̇|) = {worst:.6} at q = {wq:.4}, q̇ = {wv:.4})",
                qs.len()
            ),
        ),
    );
    let s_is_rest = worst > 1e-9;
    // Points of W \ E at rest: q in D_r \ E with V(q, 0) ≥ 0.
    let outside: Vec<f64> =
        samples(set.lo - r, set.lo, 50).into_iter().chain(samples(set.hi, set.hi + r, 50)).collect();
    let rest_in_w = outside.iter().find(|&&q| vq(q) >= 0.0);
    let mut st = BTreeMap::new();
    st.insert(
        "1".to_string(),
        cond(
            vdot_ok && rest_in_w.is_none(),
            match rest_in_w {
                Some(q) => format!("V̇ = 0 at rest points of W \\ E such as q = {q:.6}, so V̇ > 0 fails"),
                None => "V̇ > 0 in W \\ E".to_string(),
            },
        ),
    );
    let v_min_on_set = samples(set.lo, set.hi, 400).into_iter().map(vq).fold(f64::INFINITY, f64::min).min(vq(q_e));
    st.insert(
        "2".to_string(),
        cond(
            vdot_ok && v_min_on_set > 1e-12 * es,
            format!("E ⊂ int(W) needs V > 0 on E; its smallest value there is {v_min_on_set:.3e} (at q_e, V = 0)"),
        ),
    );
    st.insert(
        "3".to_string(),
        cond(
            vdot_ok && s_is_rest,
            format!(
                "S = {{V̇ = 0}} = {{q̇ = 0}} (dissipation > 0 off rest), and D_r (r = {r:.6}) holds no equilibrium but E, so no solution stays in S \\ E"
            ),
        ),
    );
    let pre = hyp.values().all(|c| c.holds);
    let unstable = pre && (st["1"].holds || st["3"].holds);
    let not_attractive = pre && st["2"].holds;
    Ok(Some(Theorem2 { q_e, v_e, r, hypotheses: hyp, statements: st, unstable, not_attractive }))
}

/// `eqset analyze` for a one-degree-of-freedom system: the sets, then Theorem 1 for each set
/// around a minimum of `U` and Theorem 2 for each set around a maximum.
pub fn analyze<S: SliderSystem<1, M>, const M: usize>(sys: &S, settings: &Settings) -> Result<Analysis, Error> {
    let period = sys.period(0);
    let sets = equilibrium_sets(sys, settings.q_min, settings.q_max, settings.grid)?;
    let mut reports = Vec::new();
    for (i, s) in sets.iter().enumerate() {
        let mut rep = SetReport {
            center: s.center(period),
            half_width: s.half_width(),
            lo: s.lo,
            hi: s.hi,
            attractive: None,
            unstable: None,
            theorem: String::new(),
            theorem1: None,
            theorem2: None,
        };
        if s.whole {
            rep.theorem = "none: the set is the whole scanned range (every state at rest is an equilibrium)".into();
        } else if let Some(t1) = theorem1(sys, &sets, i, settings)? {
            rep.attractive = Some(t1.attractive);
            rep.theorem = if t1.attractive {
                "Theorem 1".into()
            } else {
                let failed: Vec<&str> = t1.conditions.iter().filter(|c| !c.1.holds).map(|c| c.0.as_str()).collect();
                format!("Theorem 1 does not apply: condition(s) {} fail", failed.join(", "))
            };
            rep.theorem1 = Some(t1);
        } else if let Some(t2) = theorem2(sys, &sets, i)? {
            rep.unstable = Some(t2.unstable);
            if t2.not_attractive {
                rep.attractive = Some(false);
            }
            rep.theorem = if t2.statements["1"].holds && t2.unstable {
                "Theorem 2, statement 1".into()
            } else if t2.unstable {
                "Theorem 2, statement 3".into()
            } else {
                "Theorem 2 does not apply".into()
            };
            rep.theorem2 = Some(t2);
        } else {
            rep.theorem = "none: the set holds no equilibrium of the frictionless system".into();
        }
        reports.push(rep);
    }
    let first = reports.iter().find_map(|r| r.theorem1.as_ref());
    Ok(Analysis { c_star: first.map(|t| t.c_star), conditions: first.map(|t| t.conditions.clone()), sets: reports })
}

/// Settings of a basin computation.
#[derive(Debug, Clone, Copy)]
pub struct BasinSettings {
    /// Initial states per axis.
    pub grid: usize,
    /// Coordinate range of the initial states.
    pub q_range: (f64, f64),
    /// Velocity range of the initial states.
    pub v_range: (f64, f64),
    /// Time step.
    pub h: f64,
    /// Largest number of steps per run.
    pub max_steps: usize,
}

/// The basin of attraction found by time-stepping against Theorem 1's estimate.
#[derive(Debug, Clone, Serialize)]
pub struct Basin {
    /// Initial states `(q, q̇)`.
    pub starts: Vec<(f64, f64)>,
    /// Index of the set each run came to rest in (`None`: still moving at `max_steps`).
    pub ends_in: Vec<Option<usize>>,
    /// Whether each initial state lies in `{V < c*}` of the target set.
    pub in_estimate: Vec<bool>,
    /// Share of the grid that comes to rest in each set.
    pub share_per_set: Vec<f64>,
    /// Share of the grid still moving at the end.
    pub share_moving: f64,
    /// Share of the grid inside the estimate `{V < c*}`.
    pub share_in_estimate: f64,
    /// Share of the states in the estimate that come to rest in the target set.
    pub estimate_converges: f64,
    /// States in the estimate that come to rest in another set: Theorem 1 says none.
    pub estimate_elsewhere: usize,
    /// The estimate's share of the basin found: states in the estimate / states converging.
    pub estimate_of_basin: f64,
}

/// Time-steps a grid of initial states and classifies where each comes to rest, against the
/// estimate `{V < c*}` of Theorem 1 for set `target` (`t1` its analysis).
pub fn basin<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    sets: &[SetReport],
    target: usize,
    t1: &Theorem1,
    b: &BasinSettings,
) -> Result<Basin, Error> {
    let period = sys.period(0);
    let n = b.grid.max(2);
    let starts: Vec<(f64, f64)> = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            let q = b.q_range.0 + (b.q_range.1 - b.q_range.0) * (i as f64 + 0.5) / n as f64;
            let v = b.v_range.0 + (b.v_range.1 - b.v_range.0) * (j as f64 + 0.5) / n as f64;
            (q, v)
        })
        .collect();
    let ue = sys.potential_energy(&v1(t1.q_e));
    let in_estimate: Vec<bool> = starts
        .iter()
        .map(|&(q, v)| {
            let q = match period {
                Some(p) => q - p * ((q - t1.q_e) / p).round(),
                None => q,
            };
            q > t1.level_set_span.0 && q < t1.level_set_span.1 && sys.energy(&v1(q), &v1(v)) - ue < t1.c_star
        })
        .collect();
    let tol = 1e-9 * sys.coordinate_scale();
    let ends_in: Vec<Option<usize>> = starts
        .par_iter()
        .map(|&(q, v)| -> Result<Option<usize>, Error> {
            let end = bilateral::settle(sys, &v1(q), &v1(v), b.h, b.max_steps)?;
            if !end.at_rest {
                return Ok(None);
            }
            let ivs: Vec<SetInterval> = sets.iter().map(|s| SetInterval { lo: s.lo, hi: s.hi, whole: false }).collect();
            Ok(ivs.iter().position(|s| s.contains(end.q[0], period, tol)))
        })
        .collect::<Result<_, _>>()?;
    let total = starts.len() as f64;
    let share_per_set =
        (0..sets.len()).map(|k| ends_in.iter().filter(|e| **e == Some(k)).count() as f64 / total).collect();
    let share_moving = ends_in.iter().filter(|e| e.is_none()).count() as f64 / total;
    let inside = in_estimate.iter().filter(|&&x| x).count();
    let inside_conv = in_estimate.iter().zip(&ends_in).filter(|(i, e)| **i && **e == Some(target)).count();
    let conv = ends_in.iter().filter(|e| **e == Some(target)).count();
    let elsewhere = in_estimate.iter().zip(&ends_in).filter(|(i, e)| **i && e.is_some_and(|k| k != target)).count();
    Ok(Basin {
        estimate_elsewhere: elsewhere,
        share_in_estimate: inside as f64 / total,
        estimate_converges: if inside > 0 { inside_conv as f64 / inside as f64 } else { f64::NAN },
        estimate_of_basin: if conv > 0 { inside as f64 / conv as f64 } else { f64::NAN },
        starts,
        ends_in,
        in_estimate,
        share_per_set,
        share_moving,
    })
}

/// Settings of [`portrait`].
#[derive(Debug, Clone, Copy)]
pub struct PortraitSettings {
    /// Initial states per axis of the basin grid (`grid²` runs).
    pub grid: usize,
    /// Trajectories drawn in the portrait.
    pub trajectories: usize,
    /// Time step (s).
    pub h: f64,
    /// Steps per run.
    pub steps: usize,
}

impl PortraitSettings {
    /// A 20 × 20 basin grid, 24 drawn trajectories, `10⁴` steps of `1/400` of the time scale.
    pub fn for_system<S: SliderSystem<1, M>, const M: usize>(sys: &S) -> Self {
        Self { grid: 20, trajectories: 24, h: sys.time_scale() / 400.0, steps: 10_000 }
    }
}

/// A phase portrait (P5 Fig. 3) and the basin behind it.
#[derive(Debug, Clone)]
pub struct Portrait {
    /// Coordinate range shown.
    pub window_q: (f64, f64),
    /// Velocity range shown.
    pub window_v: (f64, f64),
    /// The drawn trajectories.
    pub trajectories: Vec<Trajectory>,
    /// The set Theorem 1 was applied to, and the basin against its estimate.
    pub basin: Option<(usize, Basin)>,
}

/// The window, trajectories and basin of a portrait: the coordinate over one period (or the
/// sets with margins), the velocity up to 1.25 times the largest speed on `V = c*`; trajectories
/// from rest across the window and from its velocity edges.
pub fn portrait<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    analysis: &Analysis,
    settings: &Settings,
    ps: &PortraitSettings,
) -> Result<Portrait, Error> {
    let period = sys.period(0);
    let window_q = match period {
        Some(p) => (settings.q_min, settings.q_min + p),
        None => {
            let reach = analysis.sets.iter().map(|s| s.lo.abs().max(s.hi.abs())).fold(0.0, f64::max);
            let half = if reach > 0.0 { 4.0 * reach } else { sys.coordinate_scale() };
            (-half, half)
        }
    };
    let target = analysis.sets.iter().position(|s| s.theorem1.is_some());
    let vmax = match target.and_then(|k| analysis.sets[k].theorem1.as_ref()) {
        Some(t1) if t1.c_star.is_finite() => {
            let m = sys.inertia(&v1(t1.q_e))[(0, 0)];
            1.25 * (2.0 * t1.c_star / m).sqrt()
        }
        _ => 0.5 * (window_q.1 - window_q.0) / sys.time_scale(),
    };
    let window_v = (-vmax, vmax);
    let n = ps.trajectories.max(2);
    let every = (ps.steps / 2000).max(1);
    let pairs = (n / 2).max(1);
    let starts: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let j = k / 2;
            let q = window_q.0 + (window_q.1 - window_q.0) * (j as f64 + 0.5) / pairs as f64;
            match (k % 2, j % 2) {
                (0, _) => (q, 0.0),
                (_, 0) => (q, vmax),
                _ => (q, -vmax),
            }
        })
        .collect();
    let trajectories: Vec<Trajectory> = starts
        .par_iter()
        .map(|&(q, v)| bilateral::run(sys, &v1(q), &v1(v), ps.h, ps.steps, every))
        .collect::<Result<_, _>>()?;
    let basin = match target {
        Some(k) => {
            let t1 = analysis.sets[k].theorem1.as_ref().expect("target has Theorem 1");
            let b = BasinSettings { grid: ps.grid, q_range: window_q, v_range: window_v, h: ps.h, max_steps: ps.steps };
            Some((k, basin(sys, &analysis.sets, k, t1, &b)?))
        }
        None => None,
    };
    Ok(Portrait { window_q, window_v, trajectories, basin })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::sliders::{RodTwoSliders, SlidingBlock};

    #[test]
    fn the_rods_sets_are_p5_eq22() {
        let rod = RodTwoSliders::paper();
        let s = Settings::for_system(&rod);
        let sets = equilibrium_sets(&rod, s.q_min, s.q_max, 1000).unwrap();
        let th = rod.theta_hat().unwrap();
        assert_eq!(sets.len(), 2, "{sets:?}");
        assert!((sets[0].lo + th).abs() < 1e-12 && (sets[0].hi - th).abs() < 1e-12, "{sets:?} vs {th}");
        let p = std::f64::consts::PI;
        assert!((sets[1].center(Some(2.0 * p)).abs() - p).abs() < 1e-12, "{sets:?}");
        assert!((sets[1].half_width() - th).abs() < 1e-12);
    }

    #[test]
    fn the_sliding_blocks_set_is_its_band() {
        let b = SlidingBlock { mass: 3.0, stiffness: 20.0, gravity: 9.81, mu: 0.4 };
        let s = Settings::for_system(&b);
        let sets = equilibrium_sets(&b, s.q_min, s.q_max, 1000).unwrap();
        assert_eq!(sets.len(), 1);
        // The membership test accepts forces within 1e-12 m g of the friction bound, which is
        // 1e-12 m g / k = (1e-12 / μ) δ in x.
        let tol = 1e-12 / b.mu * b.band() * 1.01;
        assert!((sets[0].hi - b.band()).abs() < tol && (sets[0].lo + b.band()).abs() < tol, "{sets:?} vs {}", b.band());
    }

    #[test]
    fn sampling_the_one_dof_set_finds_the_same_ends() {
        let rod = RodTwoSliders::paper();
        let th = rod.theta_hat().unwrap();
        let s = sample_equilibrium_set(&rod, &v1(-1.0), &v1(1.0), 41).unwrap();
        assert_eq!(s.boundary.len(), 2);
        for p in &s.boundary {
            assert!((p[0].abs() - th).abs() < 1e-12, "{p:?}");
        }
    }

    #[test]
    fn the_rods_analysis() {
        let rod = RodTwoSliders::paper();
        let a = analyze(&rod, &Settings::for_system(&rod)).unwrap();
        assert_eq!(a.sets.len(), 2);
        assert_eq!(a.sets[0].attractive, Some(true), "{:#?}", a.sets[0]);
        assert_eq!(a.sets[1].unstable, Some(true), "{:#?}", a.sets[1]);
        assert_eq!(a.sets[1].theorem, "Theorem 2, statement 3");
        let th = rod.theta_hat().unwrap();
        let mgl = 10.0;
        // The level set touches E2 at its tip π − θ̂: c* = U(π − θ̂) = m g l (1 + cos θ̂).
        let c = a.c_star.unwrap();
        assert!((c - mgl * (1.0 + th.cos())).abs() < 1e-9, "{c}");
    }
}
