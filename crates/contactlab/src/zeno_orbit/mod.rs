//! Completed Lagrangian hybrid systems and their Zeno periodic orbits (P3, Or & Ames, for any
//! system): the general analysis on which P3's layer ([`crate::zeno`]: its models, Theorem 1,
//! figures and the continuation in `e`) and any mechanism's `orbit` and `continue`
//! ([`crate::multibody`]) stand.
//!
//! A hybrid Lagrangian `(Q, L, h)` is a [`ContactSystem`] with one frictionless contact whose
//! gap is the unilateral constraint `h(q) ≥ 0` and Newton's restitution `e` (P3, eq. 3); an
//! optional smooth control law is part of the system's bias. [`Lagrangian`] runs it as the
//! *completed* system of P3's Definition 3: free motion with impacts, and, once a Zeno execution
//! reaches its Zeno point (located by the core from the geometric decay of the impacts, not by a
//! threshold) or a plastic impact leaves the contact at rest with a positive multiplier, the
//! constrained motion on `h = 0` with the Lagrange multiplier `λ` of eq. (5), left when `λ`
//! crosses zero.
//!
//! # Coordinates
//! As P3 from eq. (7) on, the constraint is a coordinate: `q = (z, h)` with `h` the **last**
//! coordinate ([`check_coordinates`] verifies it). The constraint surface
//! `S = {h = 0, ḣ = 0}` then has the chart `y = (z, ż)` ([`ConstraintChart`]).
//!
//! # Periodic orbits
//! A *simple* periodic orbit (`e = 0`) is a constrained phase from `x* ∈ S`, a free phase and one
//! plastic impact that returns to `x*`; a *Zeno* periodic orbit (`e > 0`) returns to `x*` through
//! infinitely many impacts accumulating at a Zeno point. Both are fixed points of the return map
//! `Φ: S → S` from one entry into a constrained phase to the next (the core's
//! [`PoincareSection::Closing`]), found by Newton's method ([`ReturnMap::fixed_point`]). Starting
//! the map later along the same constrained phase returns to the same point, so `DΦ` has a zero
//! multiplier along the flow; the other multipliers decide stability, and their largest modulus
//! is the contraction rate `γ` of P3's Definition 5 for the linearised map.
//!
//! [`OrbitFamily`] is the return map as a one-parameter family for [`crate::continuation`].

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::hybrid::driver::{EventRecord, PoincareSection};
use crate::hybrid::lagrangian::{join, split, ContactMode, Lagrangian, Modes, State};
use crate::hybrid::section::{Derivatives, FixedPoint, JacobianRoute, NewtonStop, ReturnMap, SectionChart};
use crate::hybrid::{
    DriverSettings, EventDriver, EventKind, Hybrid, Observer, Step, Termination, Tolerances, ZenoRule,
};
use crate::mechanics::ContactSystem;
use crate::Error;

/// The coordinate chart P3 needs (the last coordinate is the contact's gap, `∂g/∂q` its unit
/// row) is checked to this relative accuracy at three probe points.
pub const CHART_CHECK_TOL: f64 = 1e-12;

/// The rate check of a Zeno orbit starts `RATE_PROBE` (of the chart's scale) off the fixed point
/// and follows the iterates while their scaled distance lies in
/// `[RATE_NOISE, RATE_NEIGHBOURHOOD]`: above it they leave the linear neighbourhood, below it
/// integration noise dominates.
pub const RATE_PROBE: f64 = 1e-5;
/// See [`RATE_PROBE`].
pub const RATE_NOISE: f64 = 1e-10;
/// See [`RATE_PROBE`].
pub const RATE_NEIGHBOURHOOD: f64 = 1e-2;

/// A converged fixed point is an orbit only when its residual is below `RESOLVED_FIXED_POINT`
/// of the orbit's amplitude (else the iterates shrink onto a rest point).
pub const RESOLVED_FIXED_POINT: f64 = 1e-6;

/// The front ends settle onto an orbit from the model's initial state by iterating the return
/// map at most `SETTLE_CYCLES` times, until successive iterates agree to [`SETTLE_TOL`] (scaled),
/// before Newton's method ([`settle`]).
pub const SETTLE_CYCLES: usize = 300;
/// See [`SETTLE_CYCLES`].
pub const SETTLE_TOL: f64 = 1e-7;

/// Settings of the P3 analyses.
#[derive(Debug, Clone, Copy)]
pub struct ZenoSettings {
    /// Relative integration tolerance (absolute tolerances follow the system's scales).
    pub rtol: f64,
    /// Largest number of events in one run (one return of the map, or one simulation): a return
    /// through a Zeno point takes at most a few hundred impacts before the point is extrapolated.
    pub max_events: usize,
    /// Longest return time, in units of the system's time scale.
    pub max_return_time: f64,
    /// Newton tolerance on the fixed point, relative to the chart's scales.
    pub newton_tol: f64,
    /// Largest number of Newton iterations.
    pub max_newton: usize,
    /// Largest number of plain iterations of the return map when Newton's method fails (a stable
    /// orbit is their limit).
    pub max_iterates: usize,
    /// Whether [`orbit`] also measures the contraction rate from the map's iterates
    /// ([`Orbit::gamma_iterates`], 80 more returns).
    pub check_rate: bool,
    /// How the return map is differentiated (exact where the model provides derivatives).
    pub derivatives: Derivatives,
}

impl Default for ZenoSettings {
    fn default() -> Self {
        Self {
            rtol: 1e-10,
            max_events: 2_000,
            max_return_time: 1000.0,
            newton_tol: 1e-9,
            max_newton: 25,
            max_iterates: 3000,
            check_rate: true,
            derivatives: Derivatives::Exact,
        }
    }
}

impl ZenoSettings {
    /// Checks every setting (an [`Error::Argument`] names the first that is out of range).
    pub fn validate(&self) -> Result<(), Error> {
        use crate::error::{at_least_one, fraction, positive};
        fraction("rtol", self.rtol)?;
        at_least_one("max_events", self.max_events)?;
        positive("max_return_time", self.max_return_time)?;
        fraction("newton_tol", self.newton_tol)?;
        at_least_one("max_newton", self.max_newton)?;
        Ok(())
    }

    fn driver(&self, t_max: f64) -> EventDriver {
        EventDriver::new(DriverSettings {
            tol: Tolerances { rtol: self.rtol, atol: self.rtol },
            t_max,
            max_events: self.max_events,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            ..Default::default()
        })
    }
}

/// Verifies P3's coordinates: contact 0 exists, is frictionless, and its gap is the last
/// coordinate (`h(q) = q_{N−1}`, `dh = e_{N−1}`), at a few configurations.
pub fn check_coordinates<S: ContactSystem>(sys: &S) -> Result<(), Error> {
    let n = sys.dof();
    if sys.contact_count() != 1 {
        return Err(Error::model(
            "contact",
            format!(
                "a hybrid Lagrangian has one unilateral constraint; this system has {} contacts",
                sys.contact_count()
            ),
        ));
    }
    let law = sys.law(0);
    if law.mu != 0.0 || !(0.0..=1.0).contains(&law.restitution) {
        return Err(Error::model("contact", "P3's impact law is frictionless with e in [0, 1]"));
    }
    let cs = sys.coordinate_scale();
    for k in 0..3 {
        let q = DVector::<f64>::from_fn(n, |i, _| cs[i] * 0.1 * ((i + k) as f64 - 1.0));
        let dh = sys.normal_jacobian(0, &q);
        let last = n - 1;
        let ok = (sys.gap(0, &q) - q[last]).abs() <= CHART_CHECK_TOL * cs[last].max(q[last].abs())
            && (0..n).all(|i| (dh[i] - if i == last { 1.0 } else { 0.0 }).abs() <= CHART_CHECK_TOL);
        if !ok {
            return Err(Error::model(
                "coordinates",
                "P3's analyses need the constraint as the last coordinate: q = (z, h), h(q) = q[N-1]",
            ));
        }
    }
    Ok(())
}

/// The chart `y = (z, ż)` of the constraint surface `S = {h = 0, ḣ = 0}` (module docs).
#[derive(Debug, Clone)]
pub struct ConstraintChart {
    scale: DVector<f64>,
}

impl ConstraintChart {
    /// The chart with the scales of `sys` (coordinates, and coordinates per time scale).
    pub fn new<S: ContactSystem>(sys: &S) -> Self {
        let n = sys.dof();
        let cs = sys.coordinate_scale();
        let ts = sys.time_scale();
        let m = n - 1;
        Self { scale: DVector::from_fn(2 * m, |i, _| if i < m { cs[i] } else { cs[i - m] / ts }) }
    }
}

impl SectionChart<State> for ConstraintChart {
    fn dim(&self) -> usize {
        let n = self.scale.len() / 2 + 1;
        2 * (n - 1)
    }
    fn lift(&self, y: &DVector<f64>) -> State {
        let n = self.scale.len() / 2 + 1;
        let m = n - 1;
        let q = DVector::<f64>::from_fn(n, |i, _| if i < m { y[i] } else { 0.0 });
        let v = DVector::<f64>::from_fn(n, |i, _| if i < m { y[m + i] } else { 0.0 });
        join(&q, &v)
    }
    fn chart(&self, x: &State) -> DVector<f64> {
        let n = self.scale.len() / 2 + 1;
        let m = n - 1;
        let (q, v) = split(x);
        DVector::from_fn(2 * m, |i, _| if i < m { q[i] } else { v[i - m] })
    }
    fn scale(&self) -> DVector<f64> {
        self.scale.clone()
    }
    fn lift_jacobian(&self, _y: &DVector<f64>) -> Option<DMatrix<f64>> {
        let n = self.scale.len() / 2 + 1;
        let m = n - 1;
        Some(DMatrix::from_fn(2 * n, 2 * m, |r, c| {
            let (col, row) = (c % m + if c < m { 0 } else { n }, r);
            if row == col {
                1.0
            } else {
                0.0
            }
        }))
    }
    fn chart_jacobian(&self, _x: &State) -> Option<DMatrix<f64>> {
        self.lift_jacobian(&DVector::zeros(0)).map(|j| j.transpose())
    }
}

/// The multiplier `λ` of eq. (5) that holds the constraint at `(q, q̇)` (whatever its sign).
pub fn multiplier<S: ContactSystem>(lag: &Lagrangian<S>, q: &DVector<f64>, v: &DVector<f64>) -> f64 {
    let mut closed = Modes::free(1);
    closed.set(0, ContactMode::Slip(0));
    lag.solve_mode(&closed, 0.0, q, v).map_or(f64::NAN, |s| s.lambda_n[0])
}

/// One recorded point of a trajectory.
#[derive(Debug, Clone, Serialize)]
pub struct ZenoSample {
    /// Time.
    pub t: f64,
    /// `q`.
    pub q: Vec<f64>,
    /// `q̇`.
    pub v: Vec<f64>,
    /// Whether the constraint is held (post-Zeno or post-plastic-impact constrained phase).
    pub constrained: bool,
    /// The multiplier `λ` while constrained.
    pub lambda: Option<f64>,
}

/// One event of a trajectory.
#[derive(Debug, Clone, Serialize)]
pub struct ZenoEvent {
    /// Time.
    pub t: f64,
    /// `impact`, `zeno` (a Zeno point: the constrained phase starts) or `lift-off`.
    pub kind: EventKind,
    /// Approach speed `|ḣ⁻|` of an impact.
    pub impact_speed: Option<f64>,
    /// Kinetic energy lost in an impact.
    pub energy_loss: Option<f64>,
    /// `q` at the event (after it).
    pub q: Vec<f64>,
    /// Whether the constraint is held after the event.
    pub constrained_after: bool,
}

/// A completed execution, sampled.
#[derive(Debug, Clone, Serialize)]
pub struct ZenoSimulation {
    /// Samples in time order (the start, points inside every step, every event).
    pub samples: Vec<ZenoSample>,
    /// The events.
    pub events: Vec<ZenoEvent>,
    /// Number of impacts simulated.
    pub impacts: usize,
    /// Number of Zeno points.
    pub zeno_points: usize,
    /// Total time spent constrained.
    pub constrained_time: f64,
    /// How the run ended.
    pub termination: Termination,
}

struct PhaseRecorder<'a, S> {
    lag: &'a Lagrangian<S>,
    per_step: usize,
    samples: Vec<ZenoSample>,
    events: Vec<ZenoEvent>,
    constrained_time: f64,
}

impl<S: ContactSystem> PhaseRecorder<'_, S> {
    fn push(&mut self, t: f64, x: &State, constrained: bool) {
        let (q, v) = split(x);
        let lambda = constrained.then(|| multiplier(self.lag, &q, &v));
        self.samples.push(ZenoSample {
            t,
            q: q.iter().copied().collect(),
            v: v.iter().copied().collect(),
            constrained,
            lambda,
        });
    }
}

impl<S: ContactSystem> Observer<State, Modes> for PhaseRecorder<'_, S> {
    fn on_start(&mut self, t: f64, x: &State, mode: &Modes) {
        self.push(t, x, mode.get(0).closed());
    }
    fn on_step(&mut self, step: &Step<State>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
        let closed = mode.get(0).closed();
        if closed {
            self.constrained_time += t_end - step.t0;
        }
        for (t, x) in step.samples(t_end, self.per_step + 1) {
            self.push(t, &x, closed);
        }
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<State, Modes>) -> ControlFlow<()> {
        if ev.info.kind == EventKind::Section {
            return ControlFlow::Continue(());
        }
        let closed = ev.mode_after.get(0).closed();
        self.push(ev.t, &ev.after, closed);
        let (q, _) = split(&ev.after);
        self.events.push(ZenoEvent {
            t: ev.t,
            kind: ev.info.kind,
            impact_speed: ev.info.impact_speed,
            energy_loss: ev.info.energy_loss,
            q: q.iter().copied().collect(),
            constrained_after: closed,
        });
        ControlFlow::Continue(())
    }
}

/// Simulates the completed execution from `(q₀, q̇₀)` over `[0, t_max]`, with `per_step`
/// samples inside every integration step.
pub fn simulate<S: ContactSystem>(
    sys: &S,
    q0: &DVector<f64>,
    v0: &DVector<f64>,
    t_max: f64,
    per_step: usize,
    settings: &ZenoSettings,
) -> Result<ZenoSimulation, Error> {
    settings.validate()?;
    check_coordinates(sys)?;
    if !(t_max > 0.0 && t_max.is_finite()) {
        return Err(Error::argument("t_max", format!("must be a finite number > 0 (got {t_max})")));
    }
    let lag = Lagrangian::new(sys);
    let mut rec = PhaseRecorder { lag: &lag, per_step, samples: vec![], events: vec![], constrained_time: 0.0 };
    let run = settings.driver(t_max).run(&lag, 0.0, join(q0, v0), &[], &mut rec);
    let impacts = rec.events.iter().filter(|e| e.kind == EventKind::Impact).count();
    let zeno_points = rec.events.iter().filter(|e| e.kind == EventKind::Zeno).count();
    Ok(ZenoSimulation {
        samples: rec.samples,
        events: rec.events,
        impacts,
        zeno_points,
        constrained_time: rec.constrained_time,
        termination: run.termination,
    })
}

/// The return map `Φ: S → S` of a system (module docs).
pub fn return_map<'a, S: ContactSystem>(
    lag: &'a Lagrangian<S>,
    settings: &ZenoSettings,
) -> ReturnMap<'a, Lagrangian<S>, ConstraintChart> {
    ReturnMap {
        system: lag,
        section: PoincareSection::Closing { contact: 0 },
        chart: ConstraintChart::new(lag.system()),
        driver: settings.driver(settings.max_return_time * lag.time_scale()),
        derivatives: settings.derivatives,
    }
}

/// What happens along one cycle of the return map from a point of `S`.
#[derive(Debug, Clone, Serialize)]
pub struct Cycle {
    /// Return time.
    pub period: f64,
    /// Duration of the constrained phase at the start (0 if `λ ≤ 0` there).
    pub constrained_duration: f64,
    /// Impacts simulated before the return (a Zeno return has infinitely many; these are the ones
    /// simulated before the Zeno point was extrapolated).
    pub impacts: usize,
    /// Whether the return is a Zeno point (otherwise a plastic impact).
    pub zeno: bool,
    /// The multiplier `λ` at the start.
    pub lambda_start: f64,
    /// Size of the motion: the largest distance of the state from the start along the cycle, in
    /// the chart's scales (`max |x_i(t) − x_i(0)| / scale_i`).
    pub amplitude: f64,
}

struct CycleObserver {
    lift_off: Option<f64>,
    impacts: usize,
    last_kind: Option<EventKind>,
    hit: Option<f64>,
    start: State,
    scale: State,
    amplitude: f64,
}

impl CycleObserver {
    fn track(&mut self, x: &State) {
        let d = (x - &self.start).component_div(&self.scale).amax();
        self.amplitude = self.amplitude.max(d);
    }
}

impl<M> Observer<State, M> for CycleObserver {
    fn on_step(&mut self, step: &Step<State>, t_end: f64, _mode: &M) -> ControlFlow<()> {
        self.track(&step.eval(t_end));
        self.track(&step.eval(0.5 * (step.t0 + t_end)));
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<State, M>) -> ControlFlow<()> {
        self.track(&ev.after);
        match ev.info.kind {
            EventKind::Section if ev.t > 0.0 => {
                self.hit = Some(ev.t);
                return ControlFlow::Break(());
            }
            EventKind::Section => {}
            EventKind::LiftOff => {
                self.lift_off.get_or_insert(ev.t);
                self.last_kind = Some(ev.info.kind);
            }
            EventKind::Impact => {
                self.impacts += 1;
                self.last_kind = Some(ev.info.kind);
            }
            k => self.last_kind = Some(k),
        }
        ControlFlow::Continue(())
    }
}

/// Runs one cycle of the return map from `y ∈ S` and reports its phases; `None` if the motion
/// does not return.
pub fn cycle<S: ContactSystem>(lag: &Lagrangian<S>, y: &DVector<f64>, settings: &ZenoSettings) -> Option<Cycle> {
    let map = return_map(lag, settings);
    let x0 = map.chart.lift(y);
    let (q, v) = split(&x0);
    let lambda_start = multiplier(lag, &q, &v);
    let mut obs = CycleObserver {
        lift_off: None,
        impacts: 0,
        last_kind: None,
        hit: None,
        start: x0.clone(),
        scale: lag.state_scale(),
        amplitude: 0.0,
    };
    map.driver.run(lag, 0.0, x0, std::slice::from_ref(&map.section), &mut obs);
    let period = obs.hit?;
    let constrained_duration = if lambda_start > 0.0 { obs.lift_off.unwrap_or(period) } else { 0.0 };
    Some(Cycle {
        period,
        constrained_duration,
        impacts: obs.impacts,
        zeno: obs.last_kind == Some(EventKind::Zeno),
        lambda_start,
        amplitude: obs.amplitude,
    })
}

/// Iterates the return map from the first entry into a constrained phase after `(q₀, q̇₀)`, at
/// most `cycles` times or until two successive points agree to `tol` (relative to the chart's
/// scales); returns the last point, a guess for [`orbit`].
pub fn settle<S: ContactSystem>(
    lag: &Lagrangian<S>,
    q0: &DVector<f64>,
    v0: &DVector<f64>,
    cycles: usize,
    tol: f64,
    settings: &ZenoSettings,
) -> Result<DVector<f64>, NewtonStop> {
    let map = return_map(lag, settings);
    let mut first = crate::hybrid::section::FirstCrossing::default();
    let run = map.driver.run(lag, 0.0, join(q0, v0), std::slice::from_ref(&map.section), &mut first);
    let Some((_, x)) = first.hit else {
        return Err(NewtonStop::NeverConstrained(run.termination));
    };
    Ok(iterate(&map, &map.chart.chart(&x), tol, cycles).0)
}

/// `max_i |a_i − b_i| / scale_i`: distances on a section in its chart's scales.
fn scaled_distance(a: &DVector<f64>, b: &DVector<f64>, scale: &DVector<f64>) -> f64 {
    (0..a.len()).fold(0.0f64, |m, i| m.max(((a[i] - b[i]) / scale[i]).abs()))
}

/// Iterates `Φ` from `y` until `‖Φ(y) − y‖ ≤ tol` (chart scales), at most `max` times; returns
/// the last iterate and whether that test was met (a missing return ends the iteration).
fn iterate<C: SectionChart<State>, S: ContactSystem>(
    map: &ReturnMap<'_, Lagrangian<S>, C>,
    y: &DVector<f64>,
    tol: f64,
    max: usize,
) -> (DVector<f64>, bool) {
    let sc = map.chart.scale();
    let mut y = y.clone();
    for _ in 0..max {
        let Ok(r) = map.apply(&y) else { break };
        let d = scaled_distance(&r.y, &y, &sc);
        y = r.y;
        if d <= tol {
            return (y, true);
        }
        if !d.is_finite() {
            break;
        }
    }
    (y, false)
}

/// The observed contraction rate of the iterates of `Φ` towards the fixed point `y*`: from a
/// perturbation of `10⁻⁵` (chart scales), 80 iterations; the geometric mean of the last ten
/// distance ratios, if those ratios agree to 1 % and the distances stay above the noise.
fn contraction_rate<C: SectionChart<State>, S: ContactSystem>(
    map: &ReturnMap<'_, Lagrangian<S>, C>,
    ystar: &DVector<f64>,
) -> Option<f64> {
    let sc = map.chart.scale();
    let dist = |y: &DVector<f64>| scaled_distance(y, ystar, &sc);
    let mut y = ystar.clone();
    y[0] += RATE_PROBE * sc[0];
    let mut d = vec![dist(&y)];
    for _ in 0..80 {
        y = map.apply(&y).ok()?.y;
        let dk = dist(&y);
        d.push(dk);
        if !(RATE_NOISE..=RATE_NEIGHBOURHOOD).contains(&dk) {
            break; // leaving the neighbourhood, or down to the noise
        }
    }
    if d.len() < 12 {
        return None;
    }
    let r: Vec<f64> = d.windows(2).rev().take(10).map(|w| w[1] / w[0]).collect();
    let (lo, hi) = r.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let mean = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp();
    (hi - lo <= 0.01 * mean && mean < 1.0).then_some(mean)
}

/// A simple (`e = 0`) or Zeno (`e > 0`) periodic orbit.
#[derive(Debug, Clone, Serialize)]
pub struct Orbit {
    /// Whether Newton's method converged.
    pub converged: bool,
    /// Whether the orbit returns through a Zeno point (infinitely many impacts).
    pub zeno: bool,
    /// Period `T`.
    pub period: f64,
    /// The state `x* = (q, q̇)` where the constrained phase starts.
    pub fixed_point: Vec<f64>,
    /// Its chart coordinates `(z, ż)`.
    pub section_point: Vec<f64>,
    /// Multipliers of `DΦ(x*)` as `(re, im)`, largest modulus first.
    pub multipliers: Vec<[f64; 2]>,
    /// Largest multiplier modulus: the local contraction rate `γ` (Definition 5).
    pub gamma: f64,
    /// The same rate observed directly: the ratio of successive distances to `x*` of the map's
    /// iterates from a small perturbation (an independent check of `gamma`, for stable orbits
    /// whose dominant multiplier is real; `None` when the ratios do not settle).
    pub gamma_iterates: Option<f64>,
    /// Whether `γ < 1` (locally exponentially stable).
    pub stable: bool,
    /// Duration of the constrained phase.
    pub constrained_duration: f64,
    /// Impacts per cycle (simulated ones, for a Zeno orbit: the rest are extrapolated).
    pub impacts_per_cycle: usize,
    /// The multiplier `λ` at `x*`.
    pub lambda_start: f64,
    /// `‖Φ(y) − y‖∞` in the chart's scales.
    pub residual: f64,
    /// Newton iterations.
    pub iterations: usize,
    /// Why Newton stopped, when it did not converge.
    pub reason: Option<NewtonStop>,
    /// How the multipliers were obtained (variational equations, or differences and why).
    pub derivatives: JacobianRoute,
}

impl Orbit {
    /// No orbit: nothing computed (every number NaN, nothing converged), with the reason.
    pub fn not_found(reason: NewtonStop) -> Self {
        Orbit {
            converged: false,
            zeno: false,
            period: f64::NAN,
            fixed_point: vec![],
            section_point: vec![],
            multipliers: vec![],
            gamma: f64::NAN,
            gamma_iterates: None,
            stable: false,
            constrained_duration: f64::NAN,
            impacts_per_cycle: 0,
            lambda_start: f64::NAN,
            residual: f64::NAN,
            iterations: 0,
            reason: Some(reason),
            derivatives: JacobianRoute::Differences("no orbit".into()),
        }
    }
}

/// The periodic orbit through `S` near `guess` (chart coordinates), by Newton's method on the
/// return map; when that fails, by iterating the map from `guess` (which converges to a stable
/// orbit) and polishing with Newton.
pub fn orbit<S: ContactSystem>(lag: &Lagrangian<S>, guess: &DVector<f64>, settings: &ZenoSettings) -> Orbit {
    let map = return_map(lag, settings);
    let invalid = settings.validate().err().map(NewtonStop::invalid_setting);
    let mut fp: FixedPoint = match &invalid {
        Some(reason) => FixedPoint::failed(guess, reason.clone(), 0),
        None => map.fixed_point(guess, settings.newton_tol, settings.max_newton),
    };
    if !fp.converged && invalid.is_none() {
        // A stable orbit is also the limit of the map's iterates: iterate, then polish.
        if let (y, true) = iterate(&map, guess, settings.newton_tol, settings.max_iterates) {
            let polished = map.fixed_point(&y, settings.newton_tol, settings.max_newton);
            if polished.converged {
                fp = polished;
            }
        }
    }
    let y = DVector::from_vec(fp.y.clone());
    let x = map.chart.lift(&y);
    let cyc = if invalid.is_none() { cycle(lag, &y, settings) } else { None };
    // A fixed point must be resolved relative to the size of its motion: a damped system whose
    // iterates shrink onto a rest point has P(y) − y → 0 without any periodic orbit.
    let amplitude = cyc.as_ref().map_or(f64::NAN, |c| c.amplitude);
    let resolved = fp.residual <= RESOLVED_FIXED_POINT * amplitude;
    if fp.converged && !resolved {
        fp.converged = false;
        // (Only a converged search gets here, so its settings were valid.)
        fp.reason = Some(NewtonStop::RestPoint { amplitude, residual: fp.residual });
    }
    let gamma = fp.spectral_radius;
    let gamma_iterates = if fp.converged && settings.check_rate { contraction_rate(&map, &y) } else { None };
    Orbit {
        converged: fp.converged,
        zeno: cyc.as_ref().is_some_and(|c| c.zeno),
        period: fp.period,
        fixed_point: x.column(0).iter().chain(x.column(1).iter()).copied().collect(),
        section_point: fp.y,
        multipliers: fp.multipliers,
        gamma,
        gamma_iterates,
        stable: gamma < 1.0,
        constrained_duration: cyc.as_ref().map_or(f64::NAN, |c| c.constrained_duration),
        impacts_per_cycle: cyc.as_ref().map_or(0, |c| c.impacts),
        lambda_start: cyc.as_ref().map_or(f64::NAN, |c| c.lambda_start),
        residual: fp.residual,
        iterations: fp.iterations,
        reason: fp.reason,
        derivatives: fp.derivatives,
    }
}

/// P3's return map on the constraint surface (of contact 0) as a one-parameter family, for
/// [`crate::continuation`]: `system(p)` is the system at parameter `p`. Reported along the
/// branch: the constrained phase's duration, the impacts simulated per cycle, the multiplier
/// `λ` at the start of the constrained phase (normalised by its scale; its sign change is where
/// the constrained phase, and with it the Zeno orbit of P3, ends) and the return's events
/// (`zeno(limit)` or one `impact(limit)` per simulated impact).
pub struct OrbitFamily<S, F> {
    /// The system at each parameter value.
    pub system: F,
    /// Integration and Newton settings.
    pub settings: ZenoSettings,
    scale: DVector<f64>,
    _s: std::marker::PhantomData<S>,
}

impl<S: ContactSystem, F: Fn(f64) -> Result<S, String>> OrbitFamily<S, F> {
    /// The family, its chart's scales taken at `p0`.
    pub fn new(system: F, p0: f64, settings: ZenoSettings) -> Result<Self, String> {
        let s = system(p0)?;
        let scale = ConstraintChart::new(&s).scale();
        Ok(Self {
            system,
            settings: ZenoSettings { check_rate: false, ..settings },
            scale,
            _s: std::marker::PhantomData,
        })
    }
}

impl<S: ContactSystem, F: Fn(f64) -> Result<S, String>> crate::continuation::MapFamily for OrbitFamily<S, F> {
    fn dim(&self) -> usize {
        self.scale.len()
    }
    fn scale(&self) -> DVector<f64> {
        self.scale.clone()
    }
    fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<crate::continuation::Evaluation, String> {
        let lag = Lagrangian::new((self.system)(p)?);
        let map = return_map(&lag, &self.settings);
        crate::continuation::Evaluation::of(&map, y)
    }
    fn image(&self, p: f64, y: &DVector<f64>) -> Result<DVector<f64>, String> {
        let lag = Lagrangian::new((self.system)(p)?);
        let map = return_map(&lag, &self.settings);
        crate::continuation::Evaluation::image_of(&map, y)
    }
    fn observe(&self, p: f64, y: &DVector<f64>) -> crate::continuation::Observation {
        let Ok(s) = (self.system)(p) else { return Default::default() };
        let lag = Lagrangian::new(s);
        let x = ConstraintChart::new(lag.system()).lift(y);
        let Some(c) = cycle(&lag, y, &self.settings) else { return Default::default() };
        let (q, v) = split(&x);
        // λ in units of the system's force scale: its mass times gravity's scale of acceleration.
        let lambda_scale =
            lag.system().mass_matrix(&q).norm() * lag.system().length_scale() / lag.system().time_scale().powi(2);
        let lambda = c.lambda_start / lambda_scale;
        let events =
            if c.zeno { vec!["zeno(limit)".to_string()] } else { vec!["impact(limit)".to_string(); c.impacts.max(1)] };
        crate::continuation::Observation {
            state: q.iter().chain(v.iter()).copied().collect(),
            quantities: vec![
                ("constrained_duration".into(), c.constrained_duration),
                ("impacts".into(), c.impacts as f64),
                ("lambda_start".into(), c.lambda_start),
            ],
            tests: vec![(crate::continuation::SpecialKind::ZenoEnd, lambda)],
            events,
        }
    }
}

/// Continues P3's periodic orbit of the family `system(p)` in `p` from `settings.from`, the
/// orbit there reached from `(q0, q̇0)` by iterating the return map until it settles
/// ([`settle`]).
pub fn orbit_continuation<S: ContactSystem, F: Fn(f64) -> Result<S, String>>(
    system: F,
    q0: &[f64],
    v0: &[f64],
    key: &crate::model::param::ParamKey,
    settings: &crate::continuation::Settings,
    progress: &dyn Fn(f64),
) -> Result<crate::continuation::Continuation, Error> {
    let zs = ZenoSettings::default();
    let fam = OrbitFamily::new(system, settings.from, zs).map_err(|e| Error::model(key.as_str(), e))?;
    let lag = Lagrangian::new((fam.system)(settings.from).map_err(|e| Error::model(key.as_str(), e))?);
    let y = settle(
        &lag,
        &DVector::<f64>::from_column_slice(q0),
        &DVector::<f64>::from_column_slice(v0),
        SETTLE_CYCLES,
        SETTLE_TOL,
        &zs,
    )
    .map_err(|why| {
        Error::model(
            key.as_str(),
            format!("no periodic orbit reached from the initial state at {key} = {}: {why}", settings.from),
        )
    })?;
    let mut c = crate::continuation::continue_branches(&fam, &y, settings, progress);
    c.param = key.to_string();
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::closed_form::{Particle, Pendulum};
    use crate::mechanics::double_pendulum::DoublePendulumStop;

    #[test]
    fn settings_are_validated() {
        assert!(ZenoSettings::default().validate().is_ok());
        for (bad, name) in [
            (ZenoSettings { rtol: 0.0, ..Default::default() }, "rtol"),
            (ZenoSettings { max_events: 0, ..Default::default() }, "max_events"),
            (ZenoSettings { max_return_time: f64::NAN, ..Default::default() }, "max_return_time"),
            (ZenoSettings { newton_tol: 2.0, ..Default::default() }, "newton_tol"),
        ] {
            let e = bad.validate().unwrap_err();
            assert!(matches!(&e, Error::Argument { name: n, .. } if n == name), "{e}");
        }
        let bad = ZenoSettings { rtol: -1.0, ..Default::default() };
        let p = DoublePendulumStop::paper(0.3);
        assert!(simulate(&p, &nalgebra::DVector::<f64>::zeros(2), &nalgebra::DVector::<f64>::zeros(2), 1.0, 4, &bad)
            .is_err());
        // The orbit search stops before any work, with the setting named and no numbers.
        let lag = Lagrangian::new(DoublePendulumStop::paper_controlled(0.5));
        let o = orbit(
            &lag,
            &DVector::from_vec(vec![0.0, 0.0, 0.1]),
            &ZenoSettings { newton_tol: 0.0, ..Default::default() },
        );
        assert!(!o.converged && o.period.is_nan() && o.iterations == 0);
        assert!(
            matches!(&o.reason, Some(NewtonStop::InvalidSetting { name, .. }) if name == "newton_tol"),
            "{:?}",
            o.reason
        );
    }

    #[test]
    fn coordinates_are_checked() {
        assert!(check_coordinates(&DoublePendulumStop::paper(0.3)).is_ok());
        // No contact, and a frictional contact: not a hybrid Lagrangian of P3.
        let e = check_coordinates(&Pendulum { length: 1.0, gravity: 9.81, mass: 1.0 }).unwrap_err();
        assert!(e.to_string().contains("one unilateral constraint"), "{e}");
        let e = check_coordinates(&Particle::block_on_incline(1.0, 9.81, 0.1, 0.5)).unwrap_err();
        assert!(e.to_string().contains("frictionless"), "{e}");
    }

    #[test]
    fn chart_lifts_onto_the_constraint_surface() {
        let p = DoublePendulumStop::paper(0.0);
        let c = ConstraintChart::new(&p);
        let y = DVector::from_vec(vec![0.1, -0.2]);
        let x = c.lift(&y);
        assert_eq!((x[(1, 0)], x[(1, 1)]), (0.0, 0.0));
        assert_eq!(c.chart(&x), y);
    }
}
