//! Poincaré sections, return maps, periodic orbits and their Floquet multipliers.
//!
//! A [`SectionChart`] gives coordinates `y ∈ ℝᵐ` on a section (a surface in the state space, or
//! the states right after an event such as an impact): `lift(y)` is the state, `chart(x)` its
//! coordinates. The return map `P(y)` runs the system from `lift(y)` to its next crossing of the
//! section ([`ReturnMap::apply`]). A periodic orbit is a fixed point `P(y*) = y*`, found by Newton's
//! method on `P(y) − y` ([`ReturnMap::fixed_point`]); its Floquet multipliers are the eigenvalues
//! of the Jacobian `DP(y*)` (the nontrivial multipliers of the orbit: the trivial multiplier 1
//! along the flow and the zeros of directions the section or a plastic impact removes are not
//! among them).
//!
//! # Jacobian
//! By default ([`Derivatives::Exact`]) `DP` is exact: the variational equations are integrated
//! along the run with the system's exact flow Jacobian and the saltation matrix is applied at
//! every event ([`crate::hybrid::variational`]), so `DP(y) = Dchart · Φ(T) · Dlift(y)` costs one
//! run and is as accurate as the integration (11 digits for the compass gait at `rtol = 1e-12`;
//! the rimless wheel's β² to 1e-12). The return time's gradient `∂T/∂y` comes with it
//! ([`FixedPoint::period_gradient`]). Where the system or the chart does not provide exact
//! derivatives (a hand-written model, a Zeno point, a surface section, an impact resolved by the
//! LCP route) the map is differenced instead, and [`FixedPoint::derivatives`] says so and why.
//!
//! Central differences ([`ReturnMap::difference_jacobian`], also the cross-check
//! [`Derivatives::Differences`]) take the step of coordinate `j` equal to `∛rtol · scaleⱼ` (the
//! integration and event-location errors, `~rtol`, divided by the step plus the truncation
//! error, `~step²`, is then smallest for a mildly nonlinear map), then steps eight times smaller
//! until two successive Jacobians agree to `10⁻⁴` (relative, in the chart's scales), down to
//! `rtol^{3/4} · scaleⱼ`; without agreement the larger step of the best-agreeing pair is used.
//! Maps through many impacts (P3's Zeno orbits near the end of their branch) are smooth only on
//! a small scale and need the smaller steps. They give 5–7 digits.

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector, RowDVector};
use serde::Serialize;

use super::driver::{EventDriver, EventRecord, Observer, PoincareSection, Termination};
use super::variational::Sensitivity;
use super::{EventKind, Hybrid};

/// An exact `DP` and return-time gradient known at a point.
type Known = (DMatrix<f64>, RowDVector<f64>);

/// `DP`, how it was obtained, and the return-time gradient when exact.
type Routed = (DMatrix<f64>, JacobianRoute, Option<RowDVector<f64>>);

/// Coordinates on a Poincaré section.
pub trait SectionChart<S> {
    /// Number of coordinates `m`.
    fn dim(&self) -> usize;
    /// The state with coordinates `y`.
    fn lift(&self, y: &DVector<f64>) -> S;
    /// The coordinates of a state on the section.
    fn chart(&self, x: &S) -> DVector<f64>;
    /// Characteristic size of each coordinate (difference steps, convergence tests).
    fn scale(&self) -> DVector<f64> {
        DVector::from_element(self.dim(), 1.0)
    }
    /// `∂lift/∂y` (`n × m`, the state's components in storage order) for exact return-map
    /// derivatives ([`crate::hybrid::variational`]); `None` (the default): differences.
    fn lift_jacobian(&self, _y: &DVector<f64>) -> Option<DMatrix<f64>> {
        None
    }
    /// `∂chart/∂x` (`m × n`) at a state on the section; `None` (the default): differences.
    fn chart_jacobian(&self, _x: &S) -> Option<DMatrix<f64>> {
        None
    }
}

/// How [`ReturnMap`] differentiates the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Derivatives {
    /// Variational equations with saltation matrices ([`crate::hybrid::variational`]) where the
    /// system and the chart provide exact derivatives, central differences where they do not.
    #[default]
    Exact,
    /// Central differences only (module docs; the cross-check).
    Differences,
}

/// How a Jacobian of [`ReturnMap`] was obtained.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "route", content = "why")]
pub enum JacobianRoute {
    /// Variational equations and saltation matrices: exact up to the integration tolerance.
    Variational,
    /// Central differences, because of the reason given (or because they were asked for).
    Differences(String),
}

/// One application of the return map.
#[derive(Debug, Clone)]
pub struct Return<S> {
    /// `P(y)`.
    pub y: DVector<f64>,
    /// Return time.
    pub t: f64,
    /// The state at the crossing.
    pub state: S,
    /// Events between the start and the crossing.
    pub events: usize,
}

/// Stops a run at its first section crossing after the start, keeping the time and state there
/// and counting the events before it.
#[derive(Debug, Clone)]
pub struct FirstCrossing<S> {
    /// `(t, x)` of the crossing, once it happened.
    pub hit: Option<(f64, S)>,
    /// Events (not section crossings) before it.
    pub events: usize,
}

/// The relative tolerance the difference steps of [`ReturnMap::jacobian`] assume at least
/// (round-off of the integrated map).
pub const JACOBIAN_RTOL_FLOOR: f64 = 1e-15;

/// Two successive difference Jacobians of [`ReturnMap::jacobian`] agree when their largest
/// difference is within this of `1 + ‖J‖_max`.
pub const JACOBIAN_AGREEMENT: f64 = 1e-4;

impl<S> Default for FirstCrossing<S> {
    fn default() -> Self {
        Self { hit: None, events: 0 }
    }
}

impl<S: Clone, M> Observer<S, M> for FirstCrossing<S> {
    fn on_event(&mut self, ev: &EventRecord<S, M>) -> ControlFlow<()> {
        if ev.info.kind == EventKind::Section && ev.t > 0.0 {
            self.hit = Some((ev.t, ev.after.clone()));
            return ControlFlow::Break(());
        }
        if ev.info.kind != EventKind::Section {
            self.events += 1;
        }
        ControlFlow::Continue(())
    }
}

/// A return map: a system, a section and its chart.
pub struct ReturnMap<'a, H: Hybrid, C> {
    /// The system.
    pub system: &'a H,
    /// The section.
    pub section: PoincareSection<'a, H::State>,
    /// Coordinates on it.
    pub chart: C,
    /// The driver (its settings bound each run).
    pub driver: EventDriver,
    /// How `DP` is computed.
    pub derivatives: Derivatives,
}

/// The result of [`ReturnMap::fixed_point`].
#[derive(Debug, Clone, Serialize)]
pub struct FixedPoint {
    /// Whether Newton's method converged.
    pub converged: bool,
    /// The fixed point `y*` (the last iterate if not converged).
    pub y: Vec<f64>,
    /// `‖P(y) − y‖∞` in units of the chart's scales.
    pub residual: f64,
    /// Newton iterations.
    pub iterations: usize,
    /// Return time (period of the orbit).
    pub period: f64,
    /// `DP(y*)`, row-major.
    pub jacobian: Vec<Vec<f64>>,
    /// Floquet multipliers `(re, im)`, largest modulus first.
    pub multipliers: Vec<[f64; 2]>,
    /// Largest multiplier modulus.
    pub spectral_radius: f64,
    /// Why it stopped, when it did not converge.
    pub reason: Option<NewtonStop>,
    /// How the Jacobian at `y*` was obtained.
    pub derivatives: JacobianRoute,
    /// `∂T/∂y` at `y*`: the return time's gradient (empty when differenced).
    pub period_gradient: Vec<f64>,
}

impl FixedPoint {
    /// Refuses a converged fixed point whose period is below [`MIN_STEP_TIME`] of
    /// `time_scale` ([`NewtonStop::InstantReturn`]): a gait's step takes time.
    pub fn require_step(&mut self, time_scale: f64) {
        if self.converged && self.period < MIN_STEP_TIME * time_scale {
            self.converged = false;
            self.reason = Some(NewtonStop::InstantReturn { period: self.period });
        }
    }

    /// A search that stopped at `y` for `reason` after `iterations` Newton steps: no numbers
    /// beyond the last iterate (NaN, empty).
    pub fn failed(y: &DVector<f64>, reason: NewtonStop, iterations: usize) -> Self {
        FixedPoint {
            converged: false,
            y: y.iter().copied().collect(),
            residual: f64::NAN,
            iterations,
            period: f64::NAN,
            jacobian: vec![],
            multipliers: vec![],
            spectral_radius: f64::NAN,
            reason: Some(reason),
            derivatives: JacobianRoute::Differences("no fixed point".into()),
            period_gradient: vec![],
        }
    }
}

/// Why the search for a periodic orbit (Newton's method on a return map, and the checks after
/// it) stopped without one. Serialised as its sentence (`Display`).
#[derive(Debug, Clone, PartialEq)]
pub enum NewtonStop {
    /// The motion from the initial guess does not return to the section; how its run ended.
    NoReturn(Termination),
    /// A perturbed point did not return while the map was differenced.
    NoReturnWhileDifferencing(Termination),
    /// `DP − I` is singular (a multiplier equal to 1).
    SingularStep,
    /// No damped Newton step reduces the residual.
    NoDescent,
    /// The iteration limit was reached.
    IterationLimit(usize),
    /// The iterates shrink onto a rest point: no periodic motion (amplitude and residual relative
    /// to the state's scale).
    RestPoint {
        /// The motion's amplitude.
        amplitude: f64,
        /// The residual `‖P(y) − y‖`.
        residual: f64,
    },
    /// The orbit found has no constrained phase (P3's orbits start on the constraint surface).
    NoConstrainedPhase,
    /// The orbit found does not return through a Zeno point.
    NotZeno,
    /// The motion from the initial state never enters a constrained phase (how its run ended):
    /// with a large restitution the impacts need not accumulate.
    NeverConstrained(Termination),
    /// The fixed point returns at once: its period is below [`MIN_STEP_TIME`] of the system's
    /// time scale. The strike is met again at the instant it happened (a grazing double support,
    /// where the map is the identity to round-off), which is not a step.
    InstantReturn {
        /// The return time (s).
        period: f64,
    },
    /// Newton's method did not converge (no more specific reason recorded).
    NotConverged,
    /// A setting is out of range: the search did not start.
    InvalidSetting {
        /// The setting.
        name: String,
        /// What is wrong with it, with the allowed range.
        message: String,
    },
}

/// The shortest step, in units of a system's time scale: a fixed point of a strike-to-strike
/// map that returns sooner is [`NewtonStop::InstantReturn`]. (A step of a walker takes a good
/// fraction of its time scale; a return within a millionth of it moves nothing.)
pub const MIN_STEP_TIME: f64 = 1e-6;

impl NewtonStop {
    /// The stop for a settings check that failed (an [`crate::Error::Argument`] keeps its name).
    pub fn invalid_setting(e: crate::Error) -> Self {
        let (name, message) = e.into_setting();
        NewtonStop::InvalidSetting { name, message }
    }
}

/// For callers that need the orbit to go on (the report, benchmarks).
impl From<NewtonStop> for crate::Error {
    fn from(e: NewtonStop) -> Self {
        crate::Error::Numerical(e.to_string())
    }
}

impl std::fmt::Display for NewtonStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::output::kebab;
        match self {
            NewtonStop::NoReturn(t) => write!(f, "no return from the initial guess ({})", kebab(t)),
            NewtonStop::NoReturnWhileDifferencing(t) => write!(f, "no return while differencing ({})", kebab(t)),
            NewtonStop::SingularStep => write!(f, "DP − I is singular (a multiplier equal to 1)"),
            NewtonStop::NoDescent => write!(f, "Newton step does not reduce the residual"),
            NewtonStop::IterationLimit(n) => write!(f, "no convergence in {n} iterations"),
            NewtonStop::RestPoint { amplitude, residual } => write!(
                f,
                "the motion shrinks onto a rest point (amplitude {amplitude:.3e} of the state scale, residual \
                 {residual:.3e}): no periodic orbit"
            ),
            NewtonStop::NoConstrainedPhase => write!(f, "the orbit has no constrained phase"),
            NewtonStop::NotZeno => write!(f, "the orbit does not return through a Zeno point"),
            NewtonStop::InstantReturn { period } => write!(
                f,
                "the fixed point returns at once (after {period:.3e} s): the strike met again at its own instant, \
                 not a step"
            ),
            NewtonStop::NotConverged => write!(f, "Newton did not converge"),
            NewtonStop::InvalidSetting { name, message } => write!(f, "invalid setting {name}: {message}"),
            NewtonStop::NeverConstrained(t) => write!(
                f,
                "the motion from the initial state never enters a constrained phase (its run ended: {})",
                kebab(t)
            ),
        }
    }
}

impl serde::Serialize for NewtonStop {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Eigenvalues of a square matrix as `(re, im)`, largest modulus first.
pub fn multipliers(j: &DMatrix<f64>) -> Vec<[f64; 2]> {
    let mut ev: Vec<[f64; 2]> = j.clone().complex_eigenvalues().iter().map(|c| [c.re, c.im]).collect();
    ev.sort_by(|a, b| b[0].hypot(b[1]).total_cmp(&a[0].hypot(a[1])));
    ev
}

impl<H: Hybrid, C: SectionChart<H::State>> ReturnMap<'_, H, C> {
    /// `P(y)`; `Err` with the run's termination when the motion does not return.
    pub fn apply(&self, y: &DVector<f64>) -> Result<Return<H::State>, Termination> {
        let x0 = self.chart.lift(y);
        let mut c = FirstCrossing::default();
        let run = self.driver.run(self.system, 0.0, x0, std::slice::from_ref(&self.section), &mut c);
        match c.hit {
            Some((t, x)) => Ok(Return { y: self.chart.chart(&x), t, state: x, events: c.events }),
            None => Err(run.termination),
        }
    }

    /// `P(y)` with its exact Jacobian `DP(y)` and the return time's gradient, from one run
    /// with the variational equations ([`crate::hybrid::variational`]); the inner `Err` says why
    /// exact derivatives are not available (the return itself is then still given).
    #[allow(clippy::type_complexity)]
    pub fn apply_exact(
        &self,
        y: &DVector<f64>,
    ) -> Result<(Return<H::State>, Result<(DMatrix<f64>, RowDVector<f64>), String>), Termination> {
        match self.exact_run(y)? {
            (Some(ret), exact) => Ok((ret, exact)),
            (None, exact) => self.apply(y).map(|r| (r, exact)),
        }
    }

    /// The run behind [`ReturnMap::apply_exact`]: it stops as soon as the derivative cannot be
    /// carried on (then without the return).
    #[allow(clippy::type_complexity)]
    fn exact_run(
        &self,
        y: &DVector<f64>,
    ) -> Result<(Option<Return<H::State>>, Result<(DMatrix<f64>, RowDVector<f64>), String>), Termination> {
        let Some(l) = self.chart.lift_jacobian(y) else {
            return Ok((None, Err("the section's chart has no exact lift Jacobian".into())));
        };
        let x0 = self.chart.lift(y);
        let mut c = FirstCrossing::default();
        let mut sens = Sensitivity::new(self.system, l);
        let run = self.driver.run(self.system, 0.0, x0, std::slice::from_ref(&self.section), &mut (&mut c, &mut sens));
        let Some((t, x)) = c.hit else {
            return match sens.failure {
                Some(why) => Ok((None, Err(why))),
                None => Err(run.termination),
            };
        };
        let ret = Return { y: self.chart.chart(&x), t, state: x.clone(), events: c.events };
        let exact = match (sens.failure, sens.at_section, self.chart.chart_jacobian(&x)) {
            (Some(why), ..) => Err(why),
            (None, None, _) => Err("no derivative at the section".into()),
            (None, Some(_), None) => Err("the section's chart has no exact Jacobian".into()),
            (None, Some((phi, tau)), Some(dc)) => Ok((dc * phi, tau)),
        };
        Ok((Some(ret), exact))
    }

    /// `DP(y)` as [`ReturnMap::derivatives`] asks (exact where available, else differences).
    pub fn jacobian(&self, y: &DVector<f64>) -> Result<DMatrix<f64>, Termination> {
        self.jacobian_with_route(y).map(|(j, ..)| j)
    }

    /// `DP(y)`, how it was obtained, and the return time's gradient when exact.
    #[allow(clippy::type_complexity)]
    pub fn jacobian_with_route(&self, y: &DVector<f64>) -> Result<Routed, Termination> {
        let why = match self.derivatives {
            Derivatives::Differences => "asked for".to_string(),
            Derivatives::Exact => match self.exact_run(y)?.1 {
                Ok((j, tau)) => return Ok((j, JacobianRoute::Variational, Some(tau))),
                Err(why) => why,
            },
        };
        Ok((self.difference_jacobian(y)?, JacobianRoute::Differences(why), None))
    }

    /// `DP(y)` by central differences (module docs): steps from `rtol^(1/3)` down to
    /// `rtol^(3/4)` (with `rtol` at least [`JACOBIAN_RTOL_FLOOR`]), until two successive
    /// Jacobians agree to [`JACOBIAN_AGREEMENT`] (relative to `1 + ‖J‖_max`).
    pub fn difference_jacobian(&self, y: &DVector<f64>) -> Result<DMatrix<f64>, Termination> {
        let m = self.chart.dim();
        let sc = self.chart.scale();
        let rtol = self.driver.settings.tol.rtol.max(JACOBIAN_RTOL_FLOOR);
        let at = |step: f64| -> Result<DMatrix<f64>, Termination> {
            let mut j = DMatrix::zeros(m, m);
            for k in 0..m {
                let h = step * sc[k];
                let mut yp = y.clone();
                let mut ym = y.clone();
                yp[k] += h;
                ym[k] -= h;
                let (p, q) = (self.apply(&yp)?.y, self.apply(&ym)?.y);
                for r in 0..m {
                    j[(r, k)] = (p[r] - q[r]) / (2.0 * h) * sc[k] / sc[r];
                }
            }
            Ok(j)
        };
        // Steps shrink by 8 until two successive difference Jacobians agree (a strongly nonlinear
        // map, e.g. with many impacts per return, needs a smaller step than the noise-optimal
        // one), down to rtol^(3/4), where integration noise starts to dominate; without
        // agreement, the larger step of the best-agreeing pair is taken.
        let mut step = rtol.cbrt();
        let mut j = at(step)?;
        let mut best: Option<(f64, DMatrix<f64>)> = None;
        while step / 8.0 >= rtol.powf(0.75) {
            let jn = at(step / 8.0)?;
            let diff = (&jn - &j).amax() / (1.0 + jn.amax());
            if best.as_ref().is_none_or(|b| diff < b.0) {
                best = Some((diff, j.clone()));
            }
            j = jn;
            step /= 8.0;
            if diff <= JACOBIAN_AGREEMENT {
                break;
            }
        }
        let j = best.map_or(j, |b| b.1);
        // Back from scaled to plain coordinates.
        Ok(DMatrix::from_fn(m, m, |r, c| j[(r, c)] * sc[r] / sc[c]))
    }

    /// A fixed point of `P` by Newton's method from `y0`, to `tol` (relative to the chart's
    /// scales), with at most `max_iter` iterations (each takes `2m + 1` returns), and its
    /// Floquet multipliers.
    pub fn fixed_point(&self, y0: &DVector<f64>, tol: f64, max_iter: usize) -> FixedPoint {
        let m = self.chart.dim();
        let sc = self.chart.scale();
        let norm = |r: &DVector<f64>| (0..m).fold(0.0f64, |a, i| a.max((r[i] / sc[i]).abs()));
        let mut y = y0.clone();
        let mut reason = None;
        let mut iterations = 0;
        let fail = FixedPoint::failed;
        if let Err(e) = crate::error::positive("newton_tol", tol) {
            return fail(&y, NewtonStop::invalid_setting(e), 0);
        }
        // With exact derivatives every return comes with DP at its start (one run), so Newton
        // needs no separate run for the Jacobian at an accepted point.
        // Once exact derivatives fail (the reason kept), this search differences the map.
        let why_not: std::cell::RefCell<Option<String>> =
            std::cell::RefCell::new((self.derivatives == Derivatives::Differences).then(|| "asked for".to_string()));
        let apply = |y: &DVector<f64>| -> Result<(Return<H::State>, Option<Known>), Termination> {
            if why_not.borrow().is_some() {
                return self.apply(y).map(|r| (r, None));
            }
            let (r, e) = self.apply_exact(y)?;
            match e {
                Ok(k) => Ok((r, Some(k))),
                Err(why) => {
                    *why_not.borrow_mut() = Some(why);
                    Ok((r, None))
                }
            }
        };
        let jacobian = |y: &DVector<f64>| -> Result<Routed, Termination> {
            match why_not.borrow().clone() {
                Some(why) => Ok((self.difference_jacobian(y)?, JacobianRoute::Differences(why), None)),
                None => self.jacobian_with_route(y),
            }
        };
        let (mut ret, mut known) = match apply(&y) {
            Ok(r) => r,
            Err(t) => return fail(&y, NewtonStop::NoReturn(t), 0),
        };
        let mut res = norm(&(&ret.y - &y));
        let mut converged = res <= tol;
        while !converged && iterations < max_iter {
            iterations += 1;
            let j = match known.take() {
                Some((j, _)) => j,
                None => match jacobian(&y) {
                    Ok((j, ..)) => j,
                    Err(t) => {
                        reason = Some(NewtonStop::NoReturnWhileDifferencing(t));
                        break;
                    }
                },
            };
            let a = j - DMatrix::identity(m, m);
            let Some(dy) = a.lu().solve(&(&y - &ret.y)) else {
                reason = Some(NewtonStop::SingularStep);
                break;
            };
            // Damped step: halve until the residual decreases.
            let mut lam = 1.0;
            let mut accepted = false;
            for _ in 0..12 {
                let yn = &y + &dy * lam;
                if let Ok((rn, kn)) = apply(&yn) {
                    let resn = norm(&(&rn.y - &yn));
                    if resn < res {
                        y = yn;
                        ret = rn;
                        known = kn;
                        res = resn;
                        accepted = true;
                        break;
                    }
                }
                lam *= 0.5;
            }
            if !accepted {
                reason = Some(NewtonStop::NoDescent);
                break;
            }
            converged = res <= tol;
        }
        if !converged && reason.is_none() {
            reason = Some(NewtonStop::IterationLimit(max_iter));
        }
        let (jac, route, tau) = match known {
            Some((j, t)) => (Some(j), JacobianRoute::Variational, Some(t)),
            None => match jacobian(&y) {
                Ok((j, r, t)) => (Some(j), r, t),
                Err(t) => (None, JacobianRoute::Differences(format!("no return ({})", crate::output::kebab(&t))), None),
            },
        };
        // Eigenvalues of the Jacobian in the chart's own scales (a similar matrix, so the same
        // eigenvalues): in plain coordinates its entries differ by the ratio of the units (a
        // time unit of 1e-6 puts 1e12 between them) and the eigensolver lost four digits.
        let mult = jac
            .as_ref()
            .map(|j| multipliers(&DMatrix::from_fn(m, m, |r, c| j[(r, c)] * sc[c] / sc[r])))
            .unwrap_or_default();
        FixedPoint {
            converged,
            y: y.iter().copied().collect(),
            residual: res,
            iterations,
            period: ret.t,
            jacobian: jac.map(|j| (0..m).map(|r| (0..m).map(|c| j[(r, c)]).collect()).collect()).unwrap_or_default(),
            spectral_radius: mult.first().map_or(f64::NAN, |z| z[0].hypot(z[1])),
            multipliers: mult,
            reason,
            derivatives: route,
            period_gradient: tau.map(|t| t.iter().copied().collect()).unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_point_that_returns_at_once_is_not_a_step_in_any_unit_of_time() {
        for unit in [1e-8, 1.0, 1e8] {
            let at = |period: f64| {
                let mut fp = FixedPoint::failed(&DVector::zeros(2), NewtonStop::NotConverged, 3);
                (fp.converged, fp.reason, fp.period) = (true, None, period * unit);
                fp.require_step(0.4 * unit);
                fp
            };
            let (step, instant) = (at(0.7), at(6e-11));
            assert!(step.converged && step.reason.is_none());
            assert!(!instant.converged);
            assert!(matches!(instant.reason, Some(NewtonStop::InstantReturn { period }) if period == 6e-11 * unit));
        }
    }
}
