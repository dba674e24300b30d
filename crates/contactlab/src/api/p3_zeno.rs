//! P3 (Or & Ames): Zeno executions and orbits.

use super::*;
use nalgebra::DVector;

/// Names of the model's coordinates.
pub fn zeno_coordinates(m: &ZenoModel) -> &'static [&'static str] {
    match m {
        ZenoModel::DoublePendulum { .. } => &["theta1", "theta2"],
        ZenoModel::BouncingBall { .. } => &["x"],
    }
}

/// What `zeno simulate --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ZenoSimulationSummary {
    /// The coefficient of restitution.
    pub e: f64,
    /// End time (s).
    pub t_end: Option<f64>,
    /// How the run ended.
    pub termination: crate::hybrid::Termination,
    /// Impacts simulated.
    pub impacts: usize,
    /// Zeno points located.
    pub zeno_points: usize,
    /// Time of the first Zeno point (s).
    pub first_zeno_time: Option<f64>,
    /// Time spent on the constraint (s).
    pub constrained_time: f64,
    /// Events logged.
    pub events: usize,
}

/// The completed execution up to `t_max` (s) or `max_events` (`zeno simulate`); the
/// simulation and its `--json` object.
pub fn zeno_simulate(
    m: &ZenoModel,
    t_max: f64,
    max_events: usize,
) -> Result<(ZenoSimulation, ZenoSimulationSummary), Error> {
    positive("t_max", t_max)?;
    let settings = ZenoSettings { max_events, ..Default::default() };
    let sim = match m {
        ZenoModel::DoublePendulum { system, q0, v0 } => p3::simulate(system, q0, v0, t_max, 4, &settings)?,
        ZenoModel::BouncingBall { system, q0, v0 } => p3::simulate(system, q0, v0, t_max, 4, &settings)?,
    };
    let first_zeno = sim.events.iter().find(|ev| ev.kind == crate::hybrid::EventKind::Zeno).map(|ev| ev.t);
    let summary = ZenoSimulationSummary {
        e: m.e(),
        t_end: sim.samples.last().map(|s| s.t),
        termination: sim.termination.clone(),
        impacts: sim.impacts,
        zeno_points: sim.zeno_points,
        first_zeno_time: first_zeno,
        constrained_time: sim.constrained_time,
        events: sim.events.len(),
    };
    Ok((sim, summary))
}

type Pendulum = (DoublePendulumStop, DVector<f64>, DVector<f64>);

fn pendulum(m: &ZenoModel, name: &str, what: &str) -> Result<Pendulum, Error> {
    match m {
        ZenoModel::DoublePendulum { system, q0, v0 } => Ok((*system, q0.clone(), v0.clone())),
        ZenoModel::BouncingBall { .. } => Err(Error::input(
            name,
            "kind",
            format!(
                "{what} needs a system with periodic motion (kind = \"double-pendulum-stop\"); the bouncing ball comes to rest"
            ),
        )),
    }
}

/// The orbit from the initial state: the return map iterated to settle, then Newton.
/// The orbit reached from the model's initial state; a motion that never enters a constrained
/// phase is a result ("no orbit at this e"), not an error.
fn find_orbit<S: crate::mechanics::ContactSystem>(lag: &Lagrangian<S>, p: &Pendulum, settings: &ZenoSettings) -> Orbit {
    match p3::settle(lag, &p.1, &p.2, p3::SETTLE_CYCLES, p3::SETTLE_TOL, settings) {
        Ok(y) => p3::orbit(lag, &y, settings),
        Err(never) => Orbit::not_found(never),
    }
}

/// A periodic orbit as `zeno orbit --json` prints it. When no orbit was found only `e`,
/// `converged`, `iterations` and `reason` carry values (nothing stale).
#[derive(Debug, Clone, Serialize)]
pub struct OrbitReport {
    /// The coefficient of restitution.
    pub e: f64,
    /// Whether Newton's method converged.
    pub converged: bool,
    /// Whether the orbit returns through a Zeno point.
    pub zeno: Option<bool>,
    /// Period `T` (s).
    pub period: Option<f64>,
    /// The state `x* = (q, q̇)` where the constrained phase starts.
    pub fixed_point: Option<Vec<f64>>,
    /// Multipliers of `DΦ(x*)` as `(re, im)`.
    pub multipliers: Option<Vec<[f64; 2]>>,
    /// The local contraction rate `γ` (P3 Definition 5).
    pub gamma: Option<f64>,
    /// The same rate observed on the map's iterates.
    pub gamma_iterates: Option<f64>,
    /// Whether `γ < 1`.
    pub stable: Option<bool>,
    /// Duration of the constrained phase (s).
    pub constrained_duration: Option<f64>,
    /// Impacts simulated per cycle.
    pub impacts_per_cycle: Option<usize>,
    /// The multiplier `λ` at `x*`.
    pub lambda_start: Option<f64>,
    /// `‖Φ(y) − y‖∞` in the chart's scales.
    pub residual: Option<f64>,
    /// Newton iterations.
    pub iterations: usize,
    /// Why Newton stopped, when it did not converge.
    pub reason: Option<crate::hybrid::section::NewtonStop>,
    /// The system at this `e` (for front ends that draw the orbit).
    #[serde(skip)]
    pub system: DoublePendulumStop,
}

impl OrbitReport {
    /// Writes one period of the orbit into `dir` (nothing when there is no orbit): `orbit.csv`,
    /// `events.csv`, `time.png` and the phase portraits `phase_theta1.png`, `phase_theta2.png`.
    pub fn write_files(&self, dir: &std::path::Path) -> Result<(), Error> {
        use crate::zeno::plots;
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let (Some(x), Some(period)) = (&self.fixed_point, self.period) else { return Ok(()) };
        let (q, v) = (DVector::from_column_slice(&x[..2]), DVector::from_column_slice(&x[2..]));
        let one = p3::simulate(&self.system, &q, &v, period, 8, &ZenoSettings::default())?;
        let label = format!("e = {}", self.e);
        plots::phase_portrait(&[(label.as_str(), &one)], 0, "theta1", &dir.join("phase_theta1.png"))?;
        plots::phase_portrait(&[(label.as_str(), &one)], 1, "theta2", &dir.join("phase_theta2.png"))?;
        plots::write_simulation(&one, &["theta1", "theta2"], dir, &format!("One period of the orbit, e = {}", self.e))?;
        let (from, to) = (dir.join("trajectory.csv"), dir.join("orbit.csv"));
        std::fs::rename(&from, &to).map_err(|e| Error::write(&to, e))
    }

    fn new(system: DoublePendulumStop, o: &Orbit) -> Self {
        let ok = o.converged;
        OrbitReport {
            e: system.e,
            converged: ok,
            zeno: ok.then_some(o.zeno),
            period: ok.then_some(o.period),
            fixed_point: ok.then(|| o.fixed_point.clone()),
            multipliers: ok.then(|| o.multipliers.clone()),
            gamma: ok.then_some(o.gamma),
            gamma_iterates: o.gamma_iterates.filter(|_| ok),
            stable: ok.then_some(o.stable),
            constrained_duration: ok.then_some(o.constrained_duration),
            impacts_per_cycle: ok.then_some(o.impacts_per_cycle),
            lambda_start: ok.then_some(o.lambda_start),
            residual: ok.then_some(o.residual),
            iterations: o.iterations,
            reason: o.reason.clone(),
            system,
        }
    }
}

/// The simple or Zeno periodic orbit of the double pendulum reached from its initial state
/// (`zeno orbit`); the system and the orbit.
pub fn zeno_orbit(m: &ZenoModel, name: &str) -> Result<OrbitReport, Error> {
    let p = pendulum(m, name, "zeno orbit")?;
    // On the pendulum's multibody model: its multipliers from exact derivatives, as `orbit`
    // gives them for the same model written as a file.
    let system = crate::zeno::model::pendulum_system(&p.0)?;
    let o = find_orbit(&Lagrangian::new(system), &p, &ZenoSettings::default());
    Ok(OrbitReport::new(p.0, &o))
}

/// P3's Theorem 1 about the stable simple orbit (`e = 0`) reached from the model's initial
/// state, with the neighbourhood `eps` and `grid` starts per axis of Ω₂ (`zeno bound`).
pub fn zeno_bound(m: &ZenoModel, name: &str, eps: Epsilons, grid: usize) -> Result<Bound, Error> {
    for (k, v) in [("eps1", eps.eps1), ("eps2", eps.eps2), ("eps3", eps.eps3)] {
        positive(k, v)?;
    }
    within("grid", grid, BOUND_GRID)?;
    let p = pendulum(m, name, "zeno bound")?;
    let settings = ZenoSettings::default();
    let lag = Lagrangian::new(p.0.with_e(0.0));
    let o = find_orbit(&lag, &p, &settings);
    if !o.converged {
        return Err(Error::input(
            name,
            "initial",
            format!(
                "Theorem 1 starts from a stable simple periodic orbit (e = 0); none was found from the model's \
                 initial state: {}",
                o.reason.clone().unwrap_or(crate::hybrid::section::NewtonStop::NotConverged)
            ),
        ));
    }
    theorem1(&lag, &DVector::from_vec(o.section_point.clone()), o.gamma, eps, grid, &settings)
}

/// The branch of Zeno periodic orbits from `e = 0` up to `settings.to` (`zeno continue`): the
/// general continuation in `e` ([`p3::continuation_in_e`]; `settings.from` is taken as 0, no
/// period doublings followed); `progress(e)` as it goes.
pub fn zeno_continuation(
    m: &ZenoModel,
    name: &str,
    settings: &crate::continuation::Settings,
    progress: &dyn Fn(f64),
) -> Result<EBranch, Error> {
    let (sys, q0, v0) = pendulum(m, name, "zeno continue")?;
    if !(settings.to > 0.0 && settings.to <= 1.0) {
        return Err(arg("e_max", format!("must be a number in (0, 1] (got {})", settings.to)));
    }
    let settings = crate::continuation::Settings { from: 0.0, max_doublings: 0, ..*settings };
    p3::continuation_in_e(
        // As a multibody model: exact Jacobians for the continuation.
        |e| {
            if !(0.0..=1.0).contains(&e) {
                return Err(format!("e = {e} is outside [0, 1]"));
            }
            crate::zeno::model::pendulum_system(&sys.with_e(e)).map_err(|err| err.to_string())
        },
        q0.as_slice(),
        v0.as_slice(),
        &settings,
        progress,
    )
}

/// What `zeno continue --json` prints of a continuation.
#[derive(Debug, Clone, Serialize)]
pub struct ContinuationSummary {
    /// The largest `e` with a Zeno periodic orbit found.
    pub e_critical: Option<f64>,
    /// Where the constrained phase vanishes, if the branch reached it (located to
    /// `zeno_end_bracket`).
    pub zeno_end: Option<f64>,
    /// Its bracket in `e`.
    pub zeno_end_bracket: Option<f64>,
    /// Why the branch ended.
    pub end: String,
    /// Orbits on the branch.
    pub points: usize,
}

impl From<&EBranch> for ContinuationSummary {
    fn from(c: &EBranch) -> Self {
        ContinuationSummary {
            e_critical: c.e_critical,
            zeno_end: c.zeno_end,
            zeno_end_bracket: c.zeno_end_bracket,
            end: c.end.clone(),
            points: c.points.len(),
        }
    }
}
