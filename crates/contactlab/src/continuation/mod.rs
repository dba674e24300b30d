//! Pseudo-arclength continuation of periodic orbits: fixed points `P(y; p) = y` of a
//! one-parameter family of return maps, with the special points met along the branch located
//! and classified.
//!
//! # The problem and its scales
//! A [`MapFamily`] gives `P(y; p)` on an `m`-dimensional section chart with its Jacobian `DP`
//! (exact, from the variational equations, where the model allows: [`crate::hybrid::section`]).
//! Continuation works in scaled unknowns `z = (y ⊘ s, p / s_p)`, with `s` the chart's scales
//! and `s_p` the parameter range `|to − from|` (or `|from|`, or 1), so that no unit changes a
//! step, a tolerance or a verdict. The parameter derivative `∂P/∂p` is a central difference
//! with step [`PARAM_STEP`]` · s_p` (two extra returns per corrector, a chord: computed once per
//! corrector); everything else is exact.
//!
//! # Predictor and corrector
//! From a point `z_k` with unit tangent `t_k` (the null vector of `[DP − I, ∂P/∂p]` in scaled
//! form, oriented as the previous one), the predictor is `z_k + h t_k` and Newton's method
//! solves `P(y; p) − y = 0`, `t_kᵀ (z − z_pred) = 0` (Keller's pseudo-arclength condition,
//! which passes folds). A step is refused and halved when the corrector does not converge in
//! [`MAX_CORRECTOR`] iterations, or when the new tangent turns by more than [`MAX_TURN`]
//! (a jump to another branch); it grows by 1.5 after a corrector of at most 3 iterations.
//! The branch ends at `to`, when the step falls below `min_step`, or after `max_points`.
//!
//! # Special points
//! Between two accepted points a test function that changes sign marks a special point, located
//! by the Illinois (modified regula falsi) method on the step length from the earlier point
//! (each trial a full corrector solve), to `locate_tol · s_p` in the parameter:
//! - **fold**: the tangent's parameter component `t_p`;
//! - **period doubling**: `det(DP + I)` (only a real multiplier through −1 changes its sign);
//!   the doubled branch is then followed on `P∘P` from the fixed point displaced along the
//!   multiplier's eigenvector ([`continue_branches`]);
//! - **Neimark–Sacker**: the number of complex multiplier pairs outside the unit circle changes
//!   (located on `|λ| − 1` of the pair nearest the circle);
//! - **nonsmooth points**, from the family's observations ([`Observation`]): its test functions
//!   (e.g. the least Painlevé `B` along the orbit), and its sequence of events along a period;
//!   when the sequence changes the point is located by bisection and classified by what
//!   appeared or vanished (grazing: an impact; sticking lost: a slip onset; Zeno onset or end).

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::hybrid::section::multipliers;

/// Relative step of the parameter difference `∂P/∂p` (of the parameter scale).
pub const PARAM_STEP: f64 = 1e-5;
/// Corrector iterations before a step is refused.
pub const MAX_CORRECTOR: usize = 8;
/// Largest angle (radians) between successive tangents of an accepted step.
pub const MAX_TURN: f64 = 0.5;
/// Largest distance of the corrected point from the predictor, relative to the step (a longer
/// correction is a jump to another branch).
pub const MAX_CORRECTION: f64 = 0.5;
/// Largest number of trial corrections spent locating one special point.
pub const MAX_LOCATE: usize = 40;

/// `P(y; p)` with its Jacobian in `y` and the return time.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// `P(y; p)`.
    pub image: DVector<f64>,
    /// `DP(y; p)` (`m × m`).
    pub jacobian: DMatrix<f64>,
    /// The return time (s).
    pub period: f64,
    /// The time of each return of a period-`k` orbit ([`Iterate`]; one entry for a map).
    pub returns: Vec<f64>,
    /// `None` when the Jacobian is exact; otherwise why it was differenced.
    pub differenced: Option<String>,
}

impl Evaluation {
    /// `P(y)` of a return map with its Jacobian: exact where the map provides it, else central
    /// differences (with the reason); `Err` when there is no return.
    pub fn of<H: crate::hybrid::Hybrid, C: crate::hybrid::section::SectionChart<H::State>>(
        map: &crate::hybrid::section::ReturnMap<'_, H, C>,
        y: &DVector<f64>,
    ) -> Result<Self, String> {
        let (ret, exact) = map.apply_exact(y).map_err(no_return)?;
        let (jacobian, differenced) = match exact {
            Ok((j, _)) => (j, None),
            Err(why) => (map.difference_jacobian(y).map_err(no_return)?, Some(why)),
        };
        Ok(Evaluation { image: ret.y, jacobian, period: ret.t, returns: vec![ret.t], differenced })
    }

    /// `P(y)` alone (see [`Evaluation::of`]).
    pub fn image_of<H: crate::hybrid::Hybrid, C: crate::hybrid::section::SectionChart<H::State>>(
        map: &crate::hybrid::section::ReturnMap<'_, H, C>,
        y: &DVector<f64>,
    ) -> Result<DVector<f64>, String> {
        map.apply(y).map(|r| r.y).map_err(no_return)
    }
}

/// Why a return map gave no return, as a family reports it.
fn no_return(t: crate::hybrid::Termination) -> String {
    format!("no return ({})", crate::output::kebab(&t))
}

/// What a family reports at a point of the branch (besides the multipliers).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Observation {
    /// The state on the section (`q` then `q̇`).
    pub state: Vec<f64>,
    /// Named quantities reported along the branch (`NaN`: not applicable).
    pub quantities: Vec<(String, f64)>,
    /// Test functions of nonsmooth points: a sign change between two points is a special point
    /// of the named kind.
    pub tests: Vec<(SpecialKind, f64)>,
    /// The events of one period, in order (`impact(swing foot, stick)`, `slip-onset(stance
    /// foot)`, ...).
    pub events: Vec<String>,
}

/// A one-parameter family of return maps (module docs).
pub trait MapFamily {
    /// Dimension of the section chart.
    fn dim(&self) -> usize;
    /// Scales of the chart's coordinates.
    fn scale(&self) -> DVector<f64>;
    /// `P(y; p)` with `DP`; `Err` says why there is no return.
    fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String>;
    /// `P(y; p)` alone (the parameter differences); by default from [`MapFamily::evaluate`].
    fn image(&self, p: f64, y: &DVector<f64>) -> Result<DVector<f64>, String> {
        self.evaluate(p, y).map(|e| e.image)
    }
    /// What is reported at a point of the branch.
    fn observe(&self, p: f64, y: &DVector<f64>) -> Observation;
}

/// The `k`-fold composition of a family's map (orbits of period `k`).
pub struct Iterate<'a, F: ?Sized> {
    /// The family.
    pub family: &'a F,
    /// How many times the map is applied.
    pub k: usize,
}

impl<F: MapFamily + ?Sized> MapFamily for Iterate<'_, F> {
    fn dim(&self) -> usize {
        self.family.dim()
    }
    fn scale(&self) -> DVector<f64> {
        self.family.scale()
    }
    fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String> {
        let mut e = self.family.evaluate(p, y)?;
        for _ in 1..self.k {
            let n = self.family.evaluate(p, &e.image)?;
            let mut returns = e.returns;
            returns.extend(n.returns);
            e = Evaluation {
                jacobian: &n.jacobian * &e.jacobian,
                period: e.period + n.period,
                returns,
                differenced: e.differenced.or(n.differenced),
                image: n.image,
            };
        }
        Ok(e)
    }
    fn image(&self, p: f64, y: &DVector<f64>) -> Result<DVector<f64>, String> {
        let mut y = y.clone();
        for _ in 0..self.k {
            y = self.family.image(p, &y)?;
        }
        Ok(y)
    }
    fn observe(&self, p: f64, y: &DVector<f64>) -> Observation {
        // The events of the whole period; quantities and tests the worst over its returns.
        let mut o = self.family.observe(p, y);
        let mut yk = y.clone();
        for _ in 1..self.k {
            let Ok(n) = self.family.image(p, &yk) else { break };
            yk = n;
            let ok = self.family.observe(p, &yk);
            o.events.extend(ok.events);
            for (a, b) in o.quantities.iter_mut().zip(ok.quantities) {
                // The worst over the period: the largest friction use, the least B.
                a.1 = if a.0.starts_with("min") { a.1.min(b.1) } else { a.1.max(b.1) };
            }
            for (a, b) in o.tests.iter_mut().zip(ok.tests) {
                a.1 = a.1.min(b.1);
            }
        }
        o
    }
}

/// Settings of a continuation.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The parameter's start.
    pub from: f64,
    /// Where the branch ends.
    pub to: f64,
    /// First step (scaled arclength; 1 spans the whole parameter range).
    pub step: f64,
    /// Smallest step before the branch is given up.
    pub min_step: f64,
    /// Largest step.
    pub max_step: f64,
    /// Largest number of points per branch.
    pub max_points: usize,
    /// Corrector tolerance (scaled).
    pub newton_tol: f64,
    /// Special points are located to this (relative to the parameter scale).
    pub locate_tol: f64,
    /// Period doublings followed (0: none; 2, the default: up to period 4; 3: up to period 8).
    pub max_doublings: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            from: 0.0,
            to: 1.0,
            step: 0.02,
            min_step: 1e-6,
            max_step: 0.05,
            max_points: 400,
            newton_tol: 1e-9,
            locate_tol: 1e-7,
            max_doublings: 2,
        }
    }
}

impl Settings {
    /// Checks every setting, naming the first bad one.
    pub fn validate(&self) -> Result<(), crate::Error> {
        use crate::error::positive;
        if !self.from.is_finite() || !self.to.is_finite() || self.from == self.to {
            return Err(crate::Error::argument("to", "needs finite --from and --to that differ"));
        }
        positive("step", self.step)?;
        positive("min_step", self.min_step)?;
        positive("max_step", self.max_step)?;
        crate::error::fraction("newton_tol", self.newton_tol)?;
        crate::error::fraction("locate_tol", self.locate_tol)?;
        if self.min_step > self.step || self.step > self.max_step {
            return Err(crate::Error::argument("step", "needs min_step <= step <= max_step"));
        }
        crate::error::at_least_one("max_points", self.max_points)?;
        if self.max_doublings > 6 {
            return Err(crate::Error::argument("max_doublings", "at most 6 (period 64)"));
        }
        Ok(())
    }

    fn param_scale(&self) -> f64 {
        let r = (self.to - self.from).abs();
        if r > 0.0 {
            r
        } else {
            self.from.abs().max(1.0)
        }
    }
}

/// The kind of a special point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpecialKind {
    /// The branch turns back in the parameter (a multiplier through +1).
    Fold,
    /// A multiplier through −1.
    PeriodDoubling,
    /// A complex pair of multipliers through the unit circle.
    NeimarkSacker,
    /// A sticking contact starts to slip somewhere along the orbit (`μ_stick` reached `μ`).
    StickingLost,
    /// Slip vanishes from the orbit (or a slip phase ends): the reverse of
    /// [`SpecialKind::StickingLost`].
    SlipStopped,
    /// The strike's impulse leaves the friction cone's interior (the strike starts to slip),
    /// or returns into it.
    StrikeSlip,
    /// Painlevé's paradox becomes possible on the orbit: the least `B` along it reaches 0.
    PainleveOnset,
    /// A contact that ignores scuffing (disarmed by its rule, like a swing foot mid-swing)
    /// starts or stops passing below its line: the least clearance along the orbit reaches 0.
    /// Past it the gait relies on the rule (a real foot would scuff there).
    Scuffing,
    /// An open contact touches (an impact appears in the period, or vanishes).
    Grazing,
    /// A closed contact's normal force reaches zero along the orbit (a lift-off appears).
    LiftOff,
    /// An impact series with an accumulation point appears in the period.
    ZenoOnset,
    /// It vanishes.
    ZenoEnd,
    /// The period's events change otherwise.
    EventsChanged,
}

/// A located special point.
#[derive(Debug, Clone, Serialize)]
pub struct SpecialPoint {
    /// The kind.
    pub kind: SpecialKind,
    /// The parameter there.
    pub p: f64,
    /// How well it is located: the width of the last bracket in the parameter.
    pub bracket: f64,
    /// The orbit there (the closest point corrected).
    pub point: BranchPoint,
    /// Details (the events before and after, the multiplier).
    pub detail: String,
}

/// One point of a branch.
#[derive(Debug, Clone, Serialize)]
pub struct BranchPoint {
    /// The parameter.
    pub p: f64,
    /// The fixed point in the chart's coordinates.
    pub y: Vec<f64>,
    /// The orbit's period (s; the sum over the `k` returns of a period-`k` orbit).
    pub period: f64,
    /// The time of each of its returns (s).
    pub returns: Vec<f64>,
    /// Floquet multipliers `(re, im)`, largest modulus first.
    pub multipliers: Vec<[f64; 2]>,
    /// Largest multiplier modulus.
    pub spectral_radius: f64,
    /// Every multiplier inside the unit circle.
    pub stable: bool,
    /// The corrector's residual (scaled).
    pub residual: f64,
    /// `None` when the derivatives were exact, else why they were differenced.
    pub differenced: Option<String>,
    /// The family's observation there.
    #[serde(flatten)]
    pub observation: Observation,
}

/// One branch of orbits.
#[derive(Debug, Clone, Serialize)]
pub struct Branch {
    /// Returns per period (1; 2, 4, ... after period doublings).
    pub period_multiple: usize,
    /// The branch this one doubles (index into [`Continuation::branches`]).
    pub parent: Option<usize>,
    /// The points, in order of arclength.
    pub points: Vec<BranchPoint>,
    /// The special points met, in order.
    pub special: Vec<SpecialPoint>,
    /// Why the branch ended.
    pub end: String,
}

/// Every branch followed.
#[derive(Debug, Clone, Serialize)]
pub struct Continuation {
    /// The parameter's key.
    pub param: String,
    /// The branches: the first is the one started from; doubled branches follow.
    pub branches: Vec<Branch>,
    /// Map evaluations of the continuation's corrector and parameter differences (one per
    /// evaluation of a period-`k` map; observations and location trials' observations are not
    /// counted).
    pub evaluations: usize,
}

/// A test function of a special point, evaluated at a corrected point.
type TestFn = Box<dyn Fn(&BranchPoint, &Corrected) -> f64>;

/// A corrected point with everything the tests need.
#[derive(Clone)]
struct Corrected {
    z: DVector<f64>,
    eval: Evaluation,
    tangent: DVector<f64>,
    residual: f64,
    iterations: usize,
}

struct Engine<'a, F: MapFamily + ?Sized> {
    f: &'a F,
    s: &'a Settings,
    sc: DVector<f64>,
    ps: f64,
    count: std::cell::Cell<usize>,
}

impl<F: MapFamily + ?Sized> Engine<'_, F> {
    fn m(&self) -> usize {
        self.sc.len()
    }
    fn y_of(&self, z: &DVector<f64>) -> DVector<f64> {
        DVector::from_fn(self.m(), |i, _| z[i] * self.sc[i])
    }
    fn p_of(&self, z: &DVector<f64>) -> f64 {
        z[self.m()] * self.ps
    }
    fn z_of(&self, y: &DVector<f64>, p: f64) -> DVector<f64> {
        let m = self.m();
        DVector::from_fn(m + 1, |i, _| if i < m { y[i] / self.sc[i] } else { p / self.ps })
    }
    fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String> {
        self.count.set(self.count.get() + 1);
        self.f.evaluate(p, y)
    }
    /// `[DP − I, ∂P/∂p]` in scaled form, and the scaled residual `G`.
    fn jacobian(&self, z: &DVector<f64>, e: &Evaluation, b: &DVector<f64>) -> (DMatrix<f64>, DVector<f64>) {
        let m = self.m();
        let y = self.y_of(z);
        let mut a = DMatrix::zeros(m, m + 1);
        for r in 0..m {
            for c in 0..m {
                a[(r, c)] = e.jacobian[(r, c)] * self.sc[c] / self.sc[r] - if r == c { 1.0 } else { 0.0 };
            }
            a[(r, m)] = b[r];
        }
        let g = DVector::from_fn(m, |r, _| (e.image[r] - y[r]) / self.sc[r]);
        (a, g)
    }
    /// Scaled `∂P/∂p` by central differences.
    fn param_derivative(&self, z: &DVector<f64>) -> Result<DVector<f64>, String> {
        let (y, p) = (self.y_of(z), self.p_of(z));
        let h = PARAM_STEP * self.ps;
        self.count.set(self.count.get() + 2);
        // Central; one-sided at the end of the parameter's range (e = 0: no e < 0).
        let (a, b, width) = match (self.f.image(p + h, &y), self.f.image(p - h, &y)) {
            (Ok(a), Ok(b)) => (a, b, 2.0 * h),
            (Ok(a), Err(_)) => (a, self.f.image(p, &y)?, h),
            (Err(_), Ok(b)) => (self.f.image(p, &y)?, b, h),
            (Err(why), Err(_)) => return Err(why),
        };
        Ok(DVector::from_fn(self.m(), |r, _| (a[r] - b[r]) / width * self.ps / self.sc[r]))
    }
    /// The unit tangent at `z` oriented along `prev`.
    fn tangent(&self, a: &DMatrix<f64>, prev: &DVector<f64>) -> Option<DVector<f64>> {
        let m = self.m();
        let mut k = DMatrix::zeros(m + 1, m + 1);
        k.view_mut((0, 0), (m, m + 1)).copy_from(a);
        for c in 0..=m {
            k[(m, c)] = prev[c];
        }
        let mut rhs = DVector::zeros(m + 1);
        rhs[m] = 1.0;
        let t = k.lu().solve(&rhs)?;
        let n = t.norm();
        (n.is_finite() && n > 0.0).then(|| t / n)
    }
    /// Newton on `G = 0` and `t·(z − z_pred) = 0` from `z_pred`.
    fn correct(&self, z_pred: &DVector<f64>, t: &DVector<f64>) -> Result<Corrected, String> {
        let m = self.m();
        let mut z = z_pred.clone();
        let b = self.param_derivative(&z)?;
        for it in 1..=MAX_CORRECTOR {
            let e = self.evaluate(self.p_of(&z), &self.y_of(&z))?;
            let (a, g) = self.jacobian(&z, &e, &b);
            let res = g.amax();
            let arc = t.dot(&(&z - z_pred));
            if res <= self.s.newton_tol && it > 1 {
                let tangent = self.tangent(&a, t).ok_or("singular tangent")?;
                return Ok(Corrected { z, eval: e, tangent, residual: res, iterations: it });
            }
            let mut k = DMatrix::zeros(m + 1, m + 1);
            k.view_mut((0, 0), (m, m + 1)).copy_from(&a);
            for c in 0..=m {
                k[(m, c)] = t[c];
            }
            let mut rhs = DVector::zeros(m + 1);
            rhs.rows_mut(0, m).copy_from(&(-&g));
            rhs[m] = -arc;
            let dz = k.lu().solve(&rhs).ok_or("singular corrector")?;
            z += &dz;
            if !z.iter().all(|v| v.is_finite()) {
                return Err("the corrector diverged".into());
            }
        }
        Err(format!("no convergence in {MAX_CORRECTOR} corrector iterations"))
    }
    /// The fixed point at `p` (Newton in `y` alone, steps halved until the residual
    /// decreases), as a corrected point with its tangent.
    fn start(&self, p: f64, y0: &DVector<f64>, dir: f64) -> Result<Corrected, String> {
        let m = self.m();
        let mut z = self.z_of(y0, p);
        let mut e = self.evaluate(p, &self.y_of(&z))?;
        let (mut a, mut g) = self.jacobian(&z, &e, &DVector::zeros(m));
        for it in 1..=4 * MAX_CORRECTOR {
            if g.amax() <= self.s.newton_tol {
                let b = self.param_derivative(&z)?;
                let (a, _) = self.jacobian(&z, &e, &b);
                let mut guess = DVector::zeros(m + 1);
                guess[m] = dir;
                let tangent = self.tangent(&a, &guess).ok_or("singular tangent at the start")?;
                return Ok(Corrected { z, eval: e, tangent, residual: g.amax(), iterations: it });
            }
            let dy = a.columns(0, m).into_owned().lu().solve(&(-&g)).ok_or("singular Newton step at the start")?;
            let mut lam = 1.0;
            let mut accepted = false;
            for _ in 0..12 {
                let mut zn = z.clone();
                for i in 0..m {
                    zn[i] += lam * dy[i];
                }
                if let Ok(en) = self.evaluate(p, &self.y_of(&zn)) {
                    let (an, gn) = self.jacobian(&zn, &en, &DVector::zeros(m));
                    if gn.amax() < g.amax() {
                        (z, e, a, g) = (zn, en, an, gn);
                        accepted = true;
                        break;
                    }
                }
                lam *= 0.5;
            }
            if !accepted {
                return Err("Newton found no descent at the start".into());
            }
        }
        Err("Newton did not converge at the start".into())
    }
    fn point(&self, c: &Corrected, p_mult: &Observation) -> BranchPoint {
        let m = self.m();
        let scaled = DMatrix::from_fn(m, m, |r, k| c.eval.jacobian[(r, k)] * self.sc[k] / self.sc[r]);
        let mult = multipliers(&scaled);
        let rho = mult.first().map_or(f64::NAN, |z| z[0].hypot(z[1]));
        BranchPoint {
            p: self.p_of(&c.z),
            y: self.y_of(&c.z).iter().copied().collect(),
            period: c.eval.period,
            returns: c.eval.returns.clone(),
            stable: rho < 1.0,
            spectral_radius: rho,
            multipliers: mult,
            residual: c.residual,
            differenced: c.eval.differenced.clone(),
            observation: p_mult.clone(),
        }
    }
    fn observe(&self, c: &Corrected) -> Observation {
        self.f.observe(self.p_of(&c.z), &self.y_of(&c.z))
    }
}

/// The smooth test functions at a point: `t_p`, `det(DP + I)` (scaled), and for
/// Neimark–Sacker the count of complex pairs outside the unit circle with the modulus − 1 of
/// the pair nearest to it.
fn smooth_tests(pt: &BranchPoint, c: &Corrected, sc: &DVector<f64>) -> (f64, f64, usize, f64) {
    let m = sc.len();
    let tp = c.tangent[m];
    let scaled = DMatrix::from_fn(m, m, |r, k| c.eval.jacobian[(r, k)] * sc[k] / sc[r]);
    let pd = (scaled + DMatrix::identity(m, m)).determinant();
    let pairs: Vec<f64> = pt.multipliers.iter().filter(|z| z[1] > 0.0).map(|z| z[0].hypot(z[1]) - 1.0).collect();
    let outside = pairs.iter().filter(|&&d| d > 0.0).count();
    let nearest = pairs.iter().copied().min_by(|a, b| a.abs().total_cmp(&b.abs())).unwrap_or(f64::NAN);
    (tp, pd, outside, nearest)
}

/// The events of a period as the special points see them: the impacts of a series that
/// accumulates at a Zeno point are folded into it, since how many of them are simulated before
/// the series is completed (to the Zeno tolerance) changes with the parameter while the motion
/// does not. The folded run is the impacts just before `zeno(X)`, less leading impacts of a
/// contact other than `X` that does not recur in it (a strike that starts the series stays).
fn essential_events(events: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = vec![];
    for ev in events {
        if let Some(x) = ev.strip_prefix("zeno(") {
            let start = out.iter().rposition(|e| !e.starts_with("impact(")).map_or(0, |k| k + 1);
            let mut from = start;
            let contact = |e: &str| e.trim_start_matches("impact(").trim_end_matches(')').to_string();
            while from < out.len() {
                let c = contact(out[from]);
                let recurs = out[from + 1..].iter().any(|e| contact(e) == c);
                if recurs || format!("{c})") == x {
                    break;
                }
                from += 1;
            }
            out.truncate(from);
        }
        out.push(ev);
    }
    out
}

/// Names what changed between two event sequences.
fn classify_events(before: &[String], after: &[String]) -> SpecialKind {
    let count = |v: &[String], pre: &str| v.iter().filter(|e| e.starts_with(pre)).count();
    let changed = |pre: &str| count(before, pre) != count(after, pre);
    let more = |pre: &str| count(after, pre) > count(before, pre);
    if changed("zeno") {
        return if more("zeno") { SpecialKind::ZenoOnset } else { SpecialKind::ZenoEnd };
    }
    if changed("impact") {
        return SpecialKind::Grazing;
    }
    // Slip appears somewhere in a period that had none (or more slip onsets), or vanishes.
    let slips = |v: &[String]| v.iter().filter(|e| e.starts_with("slip-")).count();
    if slips(before) == 0 && slips(after) > 0 || more("slip-onset") {
        return SpecialKind::StickingLost;
    }
    if slips(before) > 0 && slips(after) == 0 || changed("slip-onset") || changed("slip-stop") {
        return SpecialKind::SlipStopped;
    }
    if changed("lift-off") {
        return SpecialKind::LiftOff;
    }
    // The same events with another stick/slip outcome of an impact.
    let slipping = |v: &[String]| v.iter().filter(|e| e.starts_with("impact") && e.ends_with(", slip)")).count();
    if slipping(before) != slipping(after) {
        return SpecialKind::StrikeSlip;
    }
    SpecialKind::EventsChanged
}

/// Follows one branch from the fixed point near `y0` at `s.from`, toward `s.to`.
/// `progress(p)` is called after each point.
pub fn continue_branch<F: MapFamily + ?Sized>(
    family: &F,
    y0: &DVector<f64>,
    s: &Settings,
    progress: &dyn Fn(f64),
) -> (Branch, usize) {
    let e = Engine { f: family, s, sc: family.scale(), ps: s.param_scale(), count: std::cell::Cell::new(0) };
    let dir = (s.to - s.from).signum();
    if let Err(bad) = s.validate() {
        let end = format!("invalid settings: {bad}");
        return (Branch { period_multiple: 1, parent: None, points: vec![], special: vec![], end }, 0);
    }
    let b = match e.start(s.from, y0, dir) {
        Ok(c) => run(&e, c, 1, None, &|_| true, progress),
        Err(why) => Branch {
            period_multiple: 1,
            parent: None,
            points: vec![],
            special: vec![],
            end: format!("no orbit at the start: {why}"),
        },
    };
    (b, e.count.get())
}

/// The branch from the corrected start `c0`.
fn run<F: MapFamily + ?Sized>(
    e: &Engine<'_, F>,
    c0: Corrected,
    k: usize,
    parent: Option<usize>,
    genuine: &dyn Fn(&Corrected) -> bool,
    progress: &dyn Fn(f64),
) -> Branch {
    let s = e.s;
    let m = e.m();
    let dir = (s.to - s.from).signum();
    let mut cur = c0;
    let obs0 = e.observe(&cur);
    let mut points = vec![e.point(&cur, &obs0)];
    progress(points[0].p);
    let mut special = vec![];
    let mut h = s.step;
    let end;
    loop {
        if points.len() >= s.max_points {
            end = format!("{} points (max_points)", s.max_points);
            break;
        }
        let pred = &cur.z + &cur.tangent * h;
        let next = match e.correct(&pred, &cur.tangent) {
            Ok(n) if n.tangent.dot(&cur.tangent) < MAX_TURN.cos() => Err("the tangent turned too far".to_string()),
            Ok(n) if (&n.z - &pred).norm() > MAX_CORRECTION * h => Err("the corrector moved too far".to_string()),
            Ok(n) if !genuine(&n) => Err(format!("the orbit collapsed to period {}", k / 2)),
            Ok(n) => Ok(n),
            Err(why) => Err(why),
        };
        let next = match next {
            Ok(n) => n,
            Err(why) => {
                h *= 0.5;
                if h < s.min_step {
                    end = format!("step below min_step at p = {}: {why}", points.last().map_or(f64::NAN, |q| q.p));
                    break;
                }
                continue;
            }
        };
        let last = points.last().expect("a branch has its start").clone();
        let obs = e.observe(&next);
        let pt = e.point(&next, &obs);
        // Special points between `cur` and `next` (found in order along the step).
        let (tp0, pd0, ns0, near0) = smooth_tests(&last, &cur, &e.sc);
        let (tp1, pd1, ns1, near1) = smooth_tests(&pt, &next, &e.sc);
        let mut found: Vec<(SpecialKind, TestFn)> = vec![];
        if tp0 * tp1 < 0.0 {
            found.push((SpecialKind::Fold, Box::new(move |_, c: &Corrected| c.tangent[m])));
        }
        if pd0 * pd1 < 0.0 {
            let sc = e.sc.clone();
            found.push((SpecialKind::PeriodDoubling, Box::new(move |p, c: &Corrected| smooth_tests(p, c, &sc).1)));
        }
        // A pair crossing the circle (not two real multipliers meeting outside it).
        if ns0 != ns1 && near0 * near1 < 0.0 {
            let sc = e.sc.clone();
            found.push((SpecialKind::NeimarkSacker, Box::new(move |p, c: &Corrected| smooth_tests(p, c, &sc).3)));
        }
        // (A failed observation, empty state, compares with nothing.)
        let observed = !obs.state.is_empty() && !last.observation.state.is_empty();
        for (i, (kind, v1)) in obs.tests.iter().enumerate().filter(|_| observed) {
            let v0 = last.observation.tests.get(i).map_or(f64::NAN, |t| t.1);
            if v0 * v1 < 0.0 {
                // A Zeno test is positive with the Zeno orbit: its sign gives onset or end.
                let kind = match kind {
                    SpecialKind::ZenoEnd if v0 < 0.0 => SpecialKind::ZenoOnset,
                    k => *k,
                };
                found.push((kind, Box::new(move |p, _| p.observation.tests.get(i).map_or(f64::NAN, |t| t.1))));
            }
        }
        let mut here = vec![];
        for (kind, f) in found {
            here.push(locate(e, &cur, &last, &next, &pt, h, kind, &*f));
        }
        if observed && essential_events(&obs.events) != essential_events(&last.observation.events) {
            here.push(locate_events(e, &cur, &last, &next, &pt, h));
        }
        here.sort_by(|a, b| ((a.p - last.p) * (pt.p - last.p)).total_cmp(&((b.p - last.p) * (pt.p - last.p))));
        special.extend(here);
        let p_new = pt.p;
        let passed = (p_new - s.to) * dir >= 0.0;
        if passed {
            special.retain(|sp| (sp.p - s.to) * dir <= 0.0);
            // Land on `to`: the fixed point there, from the chord between the last two points.
            let w = (s.to - last.p) / (p_new - last.p);
            let z = &cur.z + (&next.z - &cur.z) * w;
            let landed = e.start(s.to, &e.y_of(&z), dir).map(|c| {
                let o = e.observe(&c);
                e.point(&c, &o)
            });
            points.push(pt);
            if let Ok(at_to) = landed {
                if (at_to.p - s.to).abs() <= f64::EPSILON * e.ps.max(s.to.abs()) {
                    points.pop();
                    points.push(at_to);
                }
            }
            progress(s.to);
            end = format!("reached {}", s.to);
            break;
        }
        let iterations = next.iterations;
        cur = next;
        points.push(pt);
        progress(p_new);
        // Back past the start (after a fold, or a doubled branch growing away from `to`).
        if (p_new - s.from) * dir < -1e-9 * e.ps {
            end = format!("turned back past the start ({} = {}) at p = {p_new}", "from", s.from);
            break;
        }
        if iterations <= 3 {
            h = (h * 1.5).min(s.max_step);
        }
    }
    Branch { period_multiple: k, parent, points, special, end }
}

/// Locates a sign change of `f` between `cur` (at step 0) and `next` (at step `h`) by the
/// Illinois method on the step length.
#[allow(clippy::too_many_arguments)]
fn locate<F: MapFamily + ?Sized>(
    e: &Engine<'_, F>,
    cur: &Corrected,
    p0: &BranchPoint,
    next: &Corrected,
    p1: &BranchPoint,
    h: f64,
    kind: SpecialKind,
    f: &dyn Fn(&BranchPoint, &Corrected) -> f64,
) -> SpecialPoint {
    let (mut a, mut fa) = (0.0, f(p0, cur));
    let (mut b, mut fb) = (h, f(p1, next));
    // The parameter at the bracket's ends (not linear in the step near a fold).
    let (mut pa, mut pb) = (p0.p, p1.p);
    let mut best = (p1.clone(), next.clone());
    let mut side = 0i8;
    let tol = e.s.locate_tol;
    for trial in 0..MAX_LOCATE {
        // (A fold inside the step can leave both ends at nearly the same parameter: try.)
        if (pb - pa).abs() <= tol * e.ps && (kind != SpecialKind::Fold || trial >= 3) {
            break;
        }
        let mut x = (a * fb - b * fa) / (fb - fa);
        if !x.is_finite() || x <= a || x >= b {
            x = 0.5 * (a + b);
        }
        let pred = &cur.z + &cur.tangent * x;
        let Ok(c) = e.correct(&pred, &cur.tangent) else { break };
        let pt = e.point(&c, &e.observe(&c));
        let fx = f(&pt, &c);
        if !fx.is_finite() {
            break;
        }
        if fx * fa > 0.0 {
            (a, fa, pa) = (x, fx, pt.p);
            if side == -1 {
                fb *= 0.5;
            }
            side = -1;
        } else {
            (b, fb, pb) = (x, fx, pt.p);
            if side == 1 {
                fa *= 0.5;
            }
            side = 1;
        }
        best = (pt, c);
        if fx == 0.0 {
            break;
        }
    }
    let bracket = (pb - pa).abs();
    let _ = (a, b);
    let detail = match kind {
        SpecialKind::PeriodDoubling | SpecialKind::NeimarkSacker | SpecialKind::Fold => {
            let z = best.0.multipliers.iter().min_by(|x, y| {
                let target = if kind == SpecialKind::PeriodDoubling { -1.0 } else { 1.0 };
                let d = |z: &[f64; 2]| {
                    if kind == SpecialKind::NeimarkSacker {
                        (z[0].hypot(z[1]) - 1.0).abs() + if z[1] == 0.0 { 1.0 } else { 0.0 }
                    } else {
                        (z[0] - target).hypot(z[1])
                    }
                };
                d(x).total_cmp(&d(y))
            });
            z.map_or(String::new(), |z| format!("multiplier {:.6} {:+.6}i", z[0], z[1]))
        }
        SpecialKind::PainleveOnset => {
            // B < 0 on the earlier point's side when the test was negative there.
            let earlier_smaller = p0.p < best.0.p;
            let side = if (fa < 0.0) == earlier_smaller { "smaller" } else { "larger" };
            format!("B < 0 somewhere on the orbit for {side} values of the parameter")
        }
        SpecialKind::Scuffing => {
            let earlier_smaller = p0.p < best.0.p;
            let side = if (fa < 0.0) == earlier_smaller { "smaller" } else { "larger" };
            format!("a contact that ignores scuffing passes below its line for {side} values of the parameter")
        }
        _ => String::new(),
    };
    SpecialPoint { kind, p: best.0.p, bracket, point: best.0, detail }
}

/// Locates where the period's events change between `cur` and `next` by bisection.
fn locate_events<F: MapFamily + ?Sized>(
    e: &Engine<'_, F>,
    cur: &Corrected,
    p0: &BranchPoint,
    next: &Corrected,
    p1: &BranchPoint,
    h: f64,
) -> SpecialPoint {
    let (mut a, mut b) = (0.0, h);
    let (mut pa, mut pb) = (p0.p, p1.p);
    let ev_a = p0.observation.events.clone();
    let mut ev_b = p1.observation.events.clone();
    let mut best = p1.clone();
    let _ = next;
    for _ in 0..MAX_LOCATE {
        if (pb - pa).abs() <= e.s.locate_tol * e.ps {
            break;
        }
        // The midpoint, or (where no orbit is corrected there) a point nearer either end.
        let tried = [0.5, 0.25, 0.75, 0.125, 0.875].iter().find_map(|&f| {
            let x = a + f * (b - a);
            e.correct(&(&cur.z + &cur.tangent * x), &cur.tangent).ok().map(|c| (x, c))
        });
        let Some((x, c)) = tried else { break };
        let pt = e.point(&c, &e.observe(&c));
        if essential_events(&pt.observation.events) == essential_events(&ev_a) {
            (a, pa) = (x, pt.p);
        } else {
            (b, pb) = (x, pt.p);
            ev_b = pt.observation.events.clone();
            best = pt;
        }
    }
    let own = |v: &[String]| essential_events(v).into_iter().map(str::to_string).collect::<Vec<_>>();
    let kind = classify_events(&own(&ev_a), &own(&ev_b));
    let detail = format!("events [{}] -> [{}]", p0.observation.events.join(", "), ev_b.join(", "));
    let bracket = (pb - pa).abs();
    SpecialPoint { kind, p: best.p, bracket, point: best, detail }
}

/// Follows the branch from `y0` at `s.from` and, for up to `s.max_doublings` levels, the
/// doubled branch born at the first period doubling met on each branch (on `P∘P`, by branch
/// switching: [`doubled_branch`]).
pub fn continue_branches<F: MapFamily>(
    family: &F,
    y0: &DVector<f64>,
    s: &Settings,
    progress: &dyn Fn(f64),
) -> Continuation {
    let (first, mut count) = continue_branch(family, y0, s, progress);
    let mut branches = vec![first];
    let mut i = 0;
    while i < branches.len() {
        let k = branches[i].period_multiple;
        if k.trailing_zeros() as usize >= s.max_doublings {
            i += 1;
            continue;
        }
        let pds: Vec<SpecialPoint> =
            branches[i].special.iter().filter(|sp| sp.kind == SpecialKind::PeriodDoubling).cloned().collect();
        // The first doubling met along the branch.
        for pd in pds.into_iter().take(1) {
            let fam = Iterate { family, k: 2 * k };
            if let Some((b, n)) = doubled_branch(&fam, family, k, &pd, s, i, progress) {
                count += n;
                branches.push(b);
            }
        }
        i += 1;
    }
    Continuation { param: String::new(), branches, evaluations: count }
}

/// The doubled branch from the period doubling `pd` of a period-`k` branch (index `parent`):
/// for `P^{2k}` the doubling is a branch point where the doubled branch crosses the period-`k`
/// one along `(v, 0)`, `v` the eigenvector of the multiplier −1; a pseudo-arclength step along
/// that direction (a few lengths tried, both ways) lands on the doubled branch, which is then
/// followed away from the doubling.
fn doubled_branch<F: MapFamily>(
    fam2: &Iterate<'_, F>,
    family: &F,
    k: usize,
    pd: &SpecialPoint,
    s: &Settings,
    parent: usize,
    progress: &dyn Fn(f64),
) -> Option<(Branch, usize)> {
    let sc = family.scale();
    let m = sc.len();
    let fam1 = Iterate { family, k };
    let e = Engine { f: fam2, s, sc: sc.clone(), ps: s.param_scale(), count: std::cell::Cell::new(0) };
    let y = DVector::from_vec(pd.point.y.clone());
    let e1 = fam1.evaluate(pd.p, &y).ok()?;
    let scaled = DMatrix::from_fn(m, m, |r, c| e1.jacobian[(r, c)] * sc[c] / sc[r]);
    // The eigenvector of the multiplier nearest −1 (null vector of DP + I, scaled).
    let svd = (scaled + DMatrix::identity(m, m)).svd(false, true);
    let vt = svd.v_t?;
    let j = (0..m).min_by(|&a, &b| svd.singular_values[a].total_cmp(&svd.singular_values[b]))?;
    let mut t = DVector::zeros(m + 1);
    for i in 0..m {
        t[i] = vt[(j, i)];
    }
    let t = t.normalize();
    let z0 = e.z_of(&y, pd.p);
    // Each doubling's window in the parameter is about δ ≈ 4.67 times narrower than the last
    // (Feigenbaum), so the doubled branch bends away from its tangent ever faster: shorter first
    // steps are tried last (the period-16 orbit of the compass gait needs them).
    for h in [0.003, 0.01, 0.001, 0.03, 3e-4, 1e-4, 3e-5] {
        for sign in [1.0, -1.0] {
            let pred = &z0 + &t * (sign * h);
            let Ok(c) = e.correct(&pred, &(&t * sign)) else { continue };
            // A genuine period-2k orbit: P^k(y) differs from y.
            let yc = e.y_of(&c.z);
            let Ok(once) = fam1.image(e.p_of(&c.z), &yc) else { continue };
            let sep = (0..m).map(|i| ((once[i] - yc[i]) / sc[i]).abs()).fold(0.0, f64::max);
            if sep <= 1e3 * s.newton_tol {
                continue;
            }
            let genuine = |c: &Corrected| {
                let yc = e.y_of(&c.z);
                fam1.image(e.p_of(&c.z), &yc).is_ok_and(|once| {
                    (0..m).map(|i| ((once[i] - yc[i]) / sc[i]).abs()).fold(0.0, f64::max) > 1e3 * s.newton_tol
                })
            };
            let mut b = run(&e, c, 2 * k, Some(parent), &genuine, progress);
            // The branch is born at the doubling: its first point is the period-k orbit there,
            // traversed twice.
            if let Ok(eval) = fam2.evaluate(pd.p, &y) {
                let c0 =
                    Corrected { z: z0.clone(), eval, tangent: t.clone(), residual: pd.point.residual, iterations: 0 };
                let mut first = e.point(&c0, &pd.point.observation);
                first.observation = fam2.observe(pd.p, &y);
                // A multiplier is ±1 there: drawn as the branch it starts.
                first.stable = b.points.first().is_some_and(|p| p.stable);
                b.points.insert(0, first);
            }
            return Some((b, e.count.get()));
        }
    }
    None
}

impl Continuation {
    /// The bifurcation diagram: each return's time against the parameter, stable parts solid
    /// and unstable parts dashed (a period-`k` orbit has `k` curves), special points marked.
    pub fn plot(&self, title: &str) -> crate::plot::XyPlot {
        use crate::plot::{Mark, XyPlot};
        let mut plot = XyPlot::new(title, self.param.clone(), "time of a return (s)");
        for (bi, b) in self.branches.iter().enumerate() {
            let color = b.period_multiple.trailing_zeros() as usize;
            for j in 0..b.period_multiple {
                for (stable, mark) in [(true, Mark::Line), (false, Mark::Dashed)] {
                    // Each part runs on to the first point of the next, so the curve is unbroken.
                    let pts: Vec<(f64, f64)> = b
                        .points
                        .iter()
                        .enumerate()
                        .map(|(i, p)| {
                            let t = p.returns.get(j).copied().unwrap_or(f64::NAN);
                            if p.stable == stable || (i > 0 && b.points[i - 1].stable == stable) {
                                (p.p, t)
                            } else {
                                (f64::NAN, f64::NAN)
                            }
                        })
                        .collect();
                    if pts.iter().any(|q| q.0.is_finite()) {
                        let label = if j == 0 && (bi == 0 || stable) {
                            format!("period {} ({})", b.period_multiple, if stable { "stable" } else { "unstable" })
                        } else {
                            String::new()
                        };
                        plot = plot.add_colored(label, pts, mark, color);
                    }
                }
            }
        }
        let mut kinds: Vec<SpecialKind> = vec![];
        for b in &self.branches {
            for sp in &b.special {
                if !kinds.contains(&sp.kind) {
                    kinds.push(sp.kind);
                }
            }
        }
        for (i, kind) in kinds.iter().enumerate() {
            let pts: Vec<(f64, f64)> = self
                .branches
                .iter()
                .flat_map(|b| b.special.iter().filter(|sp| sp.kind == *kind))
                .flat_map(|sp| sp.point.returns.iter().map(move |&t| (sp.p, t)))
                .collect();
            plot = plot.add_colored(crate::output::kebab(kind), pts, Mark::Squares, 4 + i);
        }
        plot
    }

    /// Writes `branch.csv` (every point of every branch: parameter, period, each return's time,
    /// spectral radius, stability, multipliers, the family's quantities, the section state),
    /// `special.csv` (the special points) and `branch.png` ([`Continuation::plot`]).
    pub fn write_files(&self, dir: &std::path::Path, title: &str) -> Result<(), crate::Error> {
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::write(dir, e))?;
        let m = self.branches.iter().flat_map(|b| b.points.first()).map(|p| p.multipliers.len()).max().unwrap_or(0);
        let kmax = self.branches.iter().map(|b| b.period_multiple).max().unwrap_or(1);
        let first = self.branches.iter().flat_map(|b| b.points.first()).next();
        let qnames: Vec<String> =
            first.map(|p| p.observation.quantities.iter().map(|q| q.0.clone()).collect()).unwrap_or_default();
        let ns = first.map_or(0, |p| p.observation.state.len());
        let ny = first.map_or(0, |p| p.y.len());
        let mut csv = format!("branch,period_multiple,{},period", self.param);
        for j in 0..kmax {
            csv.push_str(&format!(",return_{j}"));
        }
        csv.push_str(",spectral_radius,stable");
        for j in 0..m {
            csv.push_str(&format!(",multiplier_{j}_re,multiplier_{j}_im"));
        }
        for q in &qnames {
            csv.push_str(&format!(",{q}"));
        }
        for j in 0..ny {
            csv.push_str(&format!(",y_{j}"));
        }
        for j in 0..ns {
            csv.push_str(&format!(",state_{j}"));
        }
        csv.push_str(",events\n");
        let cell =
            |v: Option<f64>| v.map_or(String::new(), |x| if x.is_finite() { format!("{x}") } else { String::new() });
        for (bi, b) in self.branches.iter().enumerate() {
            for p in &b.points {
                csv.push_str(&format!("{bi},{},{},{}", b.period_multiple, p.p, p.period));
                for j in 0..kmax {
                    csv.push_str(&format!(",{}", cell(p.returns.get(j).copied())));
                }
                csv.push_str(&format!(",{},{}", p.spectral_radius, p.stable));
                for j in 0..m {
                    let z = p.multipliers.get(j);
                    csv.push_str(&format!(",{},{}", cell(z.map(|z| z[0])), cell(z.map(|z| z[1]))));
                }
                for (j, _) in qnames.iter().enumerate() {
                    csv.push_str(&format!(",{}", cell(p.observation.quantities.get(j).map(|q| q.1))));
                }
                for j in 0..ny {
                    csv.push_str(&format!(",{}", cell(p.y.get(j).copied())));
                }
                for j in 0..ns {
                    csv.push_str(&format!(",{}", cell(p.observation.state.get(j).copied())));
                }
                csv.push_str(&format!(",\"{}\"\n", p.observation.events.join("; ")));
            }
        }
        crate::output::write_file(dir, "branch.csv", &csv)?;
        let mut sp = format!("branch,period_multiple,kind,{},bracket,period,spectral_radius,detail\n", self.param);
        for (bi, b) in self.branches.iter().enumerate() {
            for s in &b.special {
                sp.push_str(&format!(
                    "{bi},{},{},{},{},{},{},\"{}\"\n",
                    b.period_multiple,
                    crate::output::kebab(&s.kind),
                    s.p,
                    s.bracket,
                    s.point.period,
                    s.point.spectral_radius,
                    s.detail.replace('"', "'")
                ));
            }
        }
        crate::output::write_file(dir, "special.csv", &sp)?;
        self.plot(title).save(&dir.join("branch.png"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The logistic-like map `y ↦ p − y²` (as a family with exact derivatives): its fixed point
    /// `y* = (−1 + √(1 + 4p))/2` has multiplier `−2y*`, which passes −1 at `p = 3/4`; the
    /// period-2 orbit then doubles again at `p = 5/4` (closed forms).
    struct Quadratic;
    impl MapFamily for Quadratic {
        fn dim(&self) -> usize {
            1
        }
        fn scale(&self) -> DVector<f64> {
            DVector::from_element(1, 1.0)
        }
        fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String> {
            Ok(Evaluation {
                image: DVector::from_element(1, p - y[0] * y[0]),
                jacobian: DMatrix::from_element(1, 1, -2.0 * y[0]),
                period: 1.0,
                returns: vec![1.0],
                differenced: None,
            })
        }
        fn observe(&self, _p: f64, y: &DVector<f64>) -> Observation {
            Observation { state: vec![y[0]], ..Default::default() }
        }
    }

    /// A fold: `y ↦ y + p − y²/…` written so that fixed points satisfy `p = y² − 1` ... here
    /// `P(y) = y + (p − y² + 1)·0.1`, fixed points `p = y² − 1`, a fold at `p = −1`.
    struct Folding;
    impl MapFamily for Folding {
        fn dim(&self) -> usize {
            1
        }
        fn scale(&self) -> DVector<f64> {
            DVector::from_element(1, 1.0)
        }
        fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String> {
            Ok(Evaluation {
                image: DVector::from_element(1, y[0] + 0.1 * (p - y[0] * y[0] + 1.0)),
                jacobian: DMatrix::from_element(1, 1, 1.0 - 0.2 * y[0]),
                period: 1.0,
                returns: vec![1.0],
                differenced: None,
            })
        }
        fn observe(&self, _p: f64, _y: &DVector<f64>) -> Observation {
            Observation::default()
        }
    }

    #[test]
    fn period_doublings_of_the_quadratic_map_are_at_their_closed_forms() {
        let s = Settings { from: 0.2, to: 1.4, max_doublings: 2, locate_tol: 1e-10, ..Default::default() };
        let c = continue_branches(&Quadratic, &DVector::from_element(1, 0.2), &s, &|_| {});
        let b0 = &c.branches[0];
        assert!(b0.end.starts_with("reached"), "{}", b0.end);
        let pd: Vec<&SpecialPoint> = b0.special.iter().filter(|s| s.kind == SpecialKind::PeriodDoubling).collect();
        assert_eq!(pd.len(), 1);
        assert!((pd[0].p - 0.75).abs() < 1e-8, "{}", pd[0].p);
        // Along the branch the fixed point is the closed form.
        for pt in &b0.points {
            let y = (-1.0 + (1.0 + 4.0 * pt.p).sqrt()) / 2.0;
            assert!((pt.y[0] - y).abs() < 1e-8, "{} {}", pt.p, pt.y[0]);
        }
        // The doubled branch, and its own doubling at 5/4.
        let b1 = c.branches.iter().find(|b| b.period_multiple == 2).expect("a doubled branch");
        assert_eq!(b1.parent, Some(0));
        let pd2 = b1.special.iter().find(|s| s.kind == SpecialKind::PeriodDoubling).expect("second doubling");
        assert!((pd2.p - 1.25).abs() < 1e-7, "{}", pd2.p);
        assert!(b1.points.iter().all(|p| p.p >= 0.75 - 1e-9));
        assert!(c.branches.iter().any(|b| b.period_multiple == 4));
    }

    #[test]
    fn a_fold_is_passed_and_located() {
        // From p = 3 on the upper branch y = 2 toward p = −3: the branch turns at p = −1 and
        // comes back on the lower branch, ending when it passes p = 3 again.
        let s = Settings { from: 3.0, to: -3.0, max_points: 200, locate_tol: 1e-10, ..Default::default() };
        let (b, _) = continue_branch(&Folding, &DVector::from_element(1, 2.0), &s, &|_| {});
        let f = b.special.iter().find(|s| s.kind == SpecialKind::Fold).expect("a fold");
        assert!((f.p + 1.0).abs() < 1e-8, "{}", f.p);
        assert!(b.points.last().unwrap().y[0] < 0.0);
        assert!(b.end.starts_with("turned back past the start"), "{}", b.end);
    }

    #[test]
    fn impacts_of_a_zeno_series_are_folded_into_it() {
        let v = |s: &[&str]| s.iter().map(|e| e.to_string()).collect::<Vec<_>>();
        let short = v(&["impact(a)", "impact(b)", "impact(a)", "zeno(a)", "impact(foot)"]);
        let long = v(&["impact(a)", "impact(b)", "impact(a)", "impact(b)", "impact(a)", "zeno(a)", "impact(foot)"]);
        assert_eq!(essential_events(&short), ["zeno(a)", "impact(foot)"]);
        assert_eq!(essential_events(&short), essential_events(&long));
        // A strike of another contact that starts the series stays, as do events before it.
        let struck = v(&["lift-off(b)", "impact(foot)", "impact(a)", "impact(a)", "zeno(a)"]);
        assert_eq!(essential_events(&struck), ["lift-off(b)", "impact(foot)", "zeno(a)"]);
        // A grazing impact is still a change; a Zeno series appearing too.
        let grazed = v(&["impact(c)", "impact(a)", "impact(b)", "impact(a)", "zeno(a)", "impact(foot)"]);
        assert_eq!(classify_events(&own(&short), &own(&grazed)), SpecialKind::Grazing);
        assert_eq!(classify_events(&own(&v(&["impact(foot)"])), &own(&short)), SpecialKind::ZenoOnset);
    }

    fn own(v: &[String]) -> Vec<String> {
        essential_events(v).into_iter().map(str::to_string).collect()
    }

    #[test]
    fn settings_are_checked() {
        assert!(Settings::default().validate().is_ok());
        assert!(Settings { to: 0.0, ..Default::default() }.validate().is_err());
        assert!(Settings { step: 0.5, ..Default::default() }.validate().is_err());
        assert!(Settings { newton_tol: 0.0, ..Default::default() }.validate().is_err());
    }
}
