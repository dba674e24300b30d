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
//! - **Neimark–Sacker** or **branch point**: the number of multipliers outside the unit circle
//!   changes where the branch neither turns nor doubles (two real multipliers meeting outside
//!   the circle change nothing); located on the least `||λ| − 1|`, signed by the count, and
//!   named by the multiplier on the circle there: a complex pair (Neimark–Sacker) or a real one
//!   through +1 (a branch point, where another branch crosses);
//! - **nonsmooth points**, from the family's observations ([`Observation`]): its test functions
//!   (e.g. the least Painlevé `B` along the orbit), and its sequence of events along a period;
//!   when the sequence changes the point is located by bisection and classified by what
//!   appeared or vanished (grazing: an impact; sticking lost: a slip onset; Zeno onset or end).

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

mod diagram;
mod engine;

use crate::hybrid::section::multipliers;
use engine::*;

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
    /// A real multiplier through +1 where the branch goes on (neither turns nor doubles): a
    /// pitchfork or transcritical branch point, where another branch of orbits crosses this one.
    BranchPoint,
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

/// Follows the branch from `y0` at `s.from` and, for up to `s.max_doublings` levels, the
/// doubled branch born at the first period doubling met on each branch (on `P∘P`, by branch
/// switching: `doubled_branch`).
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

    /// A linear family in the plane: `y ↦ A(p) y` with the fixed point 0 for every `p`. Case 0:
    /// `A = (1 + p) R(0.3)`, a complex pair through the circle at `p = 0`. Case 1: multipliers
    /// `1.3 − 2p ± √(0.05 − p)`, two reals outside the circle that meet at `p = 0.05`, the pair
    /// they become crossing the circle further on. Case 2: `A = diag(1 + p, 0.5)`, a real
    /// multiplier through +1 with the branch going on.
    struct Linear {
        case: u8,
    }
    impl MapFamily for Linear {
        fn dim(&self) -> usize {
            2
        }
        fn scale(&self) -> DVector<f64> {
            DVector::from_element(2, 1.0)
        }
        fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String> {
            let a = match self.case {
                0 => {
                    let (c, s) = (0.3f64.cos(), 0.3f64.sin());
                    DMatrix::from_row_slice(2, 2, &[c, -s, s, c]) * (1.0 + p)
                }
                1 => {
                    let t = 1.3 - 2.0 * p;
                    let d = 0.05 - p;
                    DMatrix::from_row_slice(2, 2, &[t, 1.0, d, t])
                }
                _ => DMatrix::from_row_slice(2, 2, &[1.0 + p, 0.0, 0.0, 0.5]),
            };
            Ok(Evaluation { image: &a * y, jacobian: a, period: 1.0, returns: vec![1.0], differenced: None })
        }
        fn observe(&self, _p: f64, _y: &DVector<f64>) -> Observation {
            Observation::default()
        }
    }

    #[test]
    fn a_pair_through_the_circle_is_neimark_sacker_and_a_real_one_through_plus_one_a_branch_point() {
        let s = Settings { from: -0.2, to: 0.2, locate_tol: 1e-10, ..Default::default() };
        let y0 = DVector::zeros(2);
        let kinds = |b: &Branch| b.special.iter().map(|s| (s.kind, s.p)).collect::<Vec<_>>();
        let (b, _) = continue_branch(&Linear { case: 0 }, &y0, &s, &|_| {});
        assert_eq!(b.special.len(), 1, "{:?}", kinds(&b));
        assert_eq!(b.special[0].kind, SpecialKind::NeimarkSacker);
        assert!(b.special[0].p.abs() < 1e-8, "{}", b.special[0].p);
        let (b, _) = continue_branch(&Linear { case: 2 }, &y0, &s, &|_| {});
        assert_eq!(b.special.len(), 1, "{:?}", kinds(&b));
        assert_eq!(b.special[0].kind, SpecialKind::BranchPoint);
        assert!(b.special[0].p.abs() < 1e-8, "{}", b.special[0].p);
        // Two reals meeting outside the circle (at p = 0.05) are no special point; the pair
        // they become crosses the circle where (1.3 − 2p)² + (p − 0.05) = 1.
        let s = Settings { from: -0.1, to: 0.3, locate_tol: 1e-10, ..Default::default() };
        let (b, _) = continue_branch(&Linear { case: 1 }, &y0, &s, &|_| {});
        let p_ns = (4.2 - (4.2f64 * 4.2 - 16.0 * 0.64).sqrt()) / 8.0;
        assert_eq!(b.special.len(), 1, "{:?}", kinds(&b));
        assert_eq!(b.special[0].kind, SpecialKind::NeimarkSacker);
        assert!((b.special[0].p - p_ns).abs() < 1e-8, "{} {p_ns}", b.special[0].p);
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
