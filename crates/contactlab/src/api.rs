//! The analyses as the command-line tool runs them.
//!
//! Each function takes a parsed model and the command's options, checks the options (an
//! [`Error::Argument`] names the option and its allowed range), runs the analysis and returns
//! the object that `contactlab … --json` prints, together with the data the command writes to
//! files (time histories, grids). The command-line tool and the Python package both call these
//! functions, so the two cannot report different things for the same model.
//!
//! Option names are those of the Python API (`t_max`); the command line shows them as flags
//! (`--t-max`).

use std::ops::RangeInclusive;

use nalgebra::{DVector, SVector};
use serde::Serialize;
use serde_json::{json, Value};

use crate::fixture::{self, stability, theorem4, Fixture};
use crate::hybrid::lagrangian::Lagrangian;
use crate::mechanics::double_pendulum::DoublePendulumStop;
use crate::mechanics::walkers::{CompassBiped, RimlessWheel};
use crate::twocontact::modes::{self, all_modes, solve_mode, EquilibriumModes, ModeSolution, PointState};
use crate::twocontact::nonlinear::{self, NonlinearRun, NonlinearSettings};
use crate::twocontact::sim::{EventKind, SimSettings, Simulator, State, Trajectory};
use crate::twocontact::{zod::Zod, TwoContact};
use crate::walker::model::WalkerModel;
use crate::walker::painleve::{b_negative_grid, b_negative_intervals, compass_rho_max, mu_min};
use crate::walker::slip::{jam_threshold, slip};
use crate::walker::{gait, rimless_closed_form, Gait, WalkerSettings};
use crate::zeno::bound::{theorem1, Bound, Epsilons};
use crate::zeno::model::ZenoModel;
use crate::zeno::{self as p3, Continuation, Orbit, Simulation, ZenoSettings};
use crate::Error;

fn arg(name: &str, message: impl Into<String>) -> Error {
    Error::Argument { name: name.into(), message: message.into() }
}

/// Samples of `φ` allowed for the maps and the verdict (`equilibrium maps | classify`).
pub const MAP_SAMPLES: RangeInclusive<usize> = 3..=1_000_000;
/// Samples of `φ` per cell allowed for the atlas.
pub const ATLAS_SAMPLES: RangeInclusive<usize> = 11..=100_000;
/// Grid points allowed for the scan of the equilibrium sets (`eqset analyze`).
pub const EQSET_GRID: RangeInclusive<usize> = 8..=1_000_000;
/// Grid points allowed for the μ sweep (`fixture mu-sweep`).
pub const MU_SWEEP_STEPS: RangeInclusive<usize> = 2..=100_000;
/// Starts per axis of Ω₂ allowed for P3's Theorem 1 (`zeno bound`).
pub const BOUND_GRID: RangeInclusive<usize> = 2..=101;

/// `v` as a count within `range`, or an [`Error::Argument`] naming `name` and the range.
pub fn count(name: &str, v: i64, range: RangeInclusive<usize>) -> Result<usize, Error> {
    match usize::try_from(v) {
        Ok(u) if range.contains(&u) => Ok(u),
        _ if *range.end() == usize::MAX => Err(arg(name, format!("must be an integer >= {} (got {v})", range.start()))),
        _ => Err(arg(name, format!("must be an integer in {}..={} (got {v})", range.start(), range.end()))),
    }
}

fn within(name: &str, v: usize, range: RangeInclusive<usize>) -> Result<usize, Error> {
    count(name, i64::try_from(v).unwrap_or(i64::MAX), range)
}

/// A range of counts as the command line's parsers take it.
pub fn flag_range(range: RangeInclusive<usize>) -> RangeInclusive<i64> {
    *range.start() as i64..=*range.end() as i64
}

fn positive(name: &str, v: f64) -> Result<f64, Error> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(arg(name, format!("must be a finite number > 0 (got {v})")))
    }
}

// ---------------------------------------------------------------------------------------------
// P1: the planar body on two contacts

/// The contact-mode analysis at the equilibrium (`equilibrium modes`).
#[derive(Debug, Clone, Serialize)]
pub struct P1Modes {
    /// Equilibrium, ambiguity, Painlevé-freeness and persistence.
    pub analysis: EquilibriumModes,
    /// `k` with `ẋ₁ = k ẋ₂` while both contacts are held.
    pub k: f64,
    /// Every consistent mode at rest, with its forces and accelerations.
    pub modes: Vec<ModeSolution>,
}

/// P1's contact modes at the equilibrium under the zero-order dynamics.
pub fn p1_modes(p: &TwoContact) -> Result<P1Modes, Error> {
    let z = Zod::new(p)?;
    let analysis = modes::analyze(&z)?;
    let modes =
        all_modes().into_iter().filter_map(|m| solve_mode(&z, m, [PointState::Rest, PointState::Rest])).collect();
    Ok(P1Modes { analysis, k: z.k(), modes })
}

/// The perturbation `KEY=VALUE,...` (keys `z1`, `z2`, `x2` in m, `zd1`, `zd2`, `xd2` in m/s;
/// unspecified values are 0) as a state of the zero-order dynamics.
pub fn p1_perturbation(spec: &str) -> Result<State, Error> {
    let mut st = State { q: [0.0; 3], qd: [0.0; 3] };
    let mut seen: Vec<&str> = Vec::new();
    let bad = |m: String| arg("perturb", m);
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| bad(format!("`{part}`: expected KEY=VALUE (keys z1, z2, x2, zd1, zd2, xd2)")))?;
        let k = k.trim();
        if seen.contains(&k) {
            return Err(bad(format!("{k}: given twice")));
        }
        seen.push(k);
        let x: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| bad(format!("{k}: `{}` is not a finite number", v.trim())))?;
        match k {
            "z1" | "z2" if x < 0.0 => return Err(bad(format!("{k}: gaps must be >= 0 (got {x})"))),
            "z1" => st.q[0] = x,
            "z2" => st.q[1] = x,
            "x2" => st.q[2] = x,
            "zd1" => st.qd[0] = x,
            "zd2" => st.qd[1] = x,
            "xd2" => st.qd[2] = x,
            other => return Err(bad(format!("unknown key `{other}`; allowed: z1, z2, x2, zd1, zd2, xd2"))),
        }
    }
    Ok(st)
}

/// An event-driven run of the zero-order dynamics and the full nonlinear model from the same
/// perturbation (`equilibrium simulate`).
#[derive(Debug, Clone)]
pub struct P1Simulation {
    /// The zero-order dynamics.
    pub zod: Trajectory,
    /// The full nonlinear model (positions and velocities mapped through the linearised
    /// kinematics).
    pub nonlinear: NonlinearRun,
}

impl P1Simulation {
    /// Length of time drawn for the final, unbounded phase.
    pub fn tail(&self) -> f64 {
        (0.2 * self.zod.t_end).max(1e-3)
    }

    /// The zero-order trajectory sampled for plots and files: rows `(t, z₁, z₂, x₁, x₂)`.
    pub fn zod_samples(&self) -> Vec<[f64; 5]> {
        self.zod.sample(24, self.tail())
    }

    /// The `--json` object: outcome, end time, events, impacts and Zeno times of both models.
    pub fn summary(&self) -> Value {
        let tr = &self.zod;
        let nl = &self.nonlinear;
        let impacts = tr.events.iter().filter(|e| e.kind == EventKind::Impact).count();
        let nl_impacts = nl.events.iter().filter(|e| e.1 == EventKind::Impact).count();
        let nl_zeno: Vec<f64> = nl.events.iter().filter(|e| e.1 == EventKind::Zeno).map(|e| e.0).collect();
        json!({
            "outcome": tr.outcome, "t_end": tr.t_end, "events": tr.events.len(), "impacts": impacts,
            "zeno_times": tr.zeno_times(),
            "nonlinear": {"outcome": nl.outcome, "t_end": self.nonlinear_t_end(), "events": nl.events.len(),
                "impacts": nl_impacts, "zeno_times": nl_zeno},
        })
    }

    /// Final time of the nonlinear run.
    pub fn nonlinear_t_end(&self) -> f64 {
        self.nonlinear.samples.last().map_or(0.0, |s| s[0])
    }
}

/// Simulates P1's body from the perturbation `start` until rest, `t_max` (s) or `max_events`.
/// A point with zero gap and gap rate starts in sustained contact.
pub fn p1_simulate(p: &TwoContact, start: State, t_max: f64, max_events: usize) -> Result<P1Simulation, Error> {
    positive("t_max", t_max)?;
    let sim = Simulator::new(Zod::new(p)?)?;
    let sustained = [start.q[0] == 0.0 && start.qd[0] == 0.0, start.q[1] == 0.0 && start.qd[1] == 0.0];
    let zod = sim.run(start, sustained, &SimSettings { t_max, max_events, ..Default::default() })?;
    let s0 = sim.body_velocity(&start.q);
    let v0 = sim.body_velocity(&start.qd);
    let settings = NonlinearSettings { max_events, t_max, ..Default::default() };
    let nonlinear = nonlinear::simulate(p, s0, v0, sustained, usize::MAX, &settings)?;
    Ok(P1Simulation { zod, nonlinear })
}

// ---------------------------------------------------------------------------------------------
// P2: walkers

/// The `--json` object of a gait.
pub fn gait_json(g: &Gait) -> Value {
    json!({
        "converged": g.converged,
        "period": g.period,
        "post_impact_state": g.post_impact_state,
        "pre_impact_state": g.pre_impact_state,
        "multipliers": g.multipliers,
        "stable": g.stable,
        "sticking": g.sticking,
        "mu_stick": g.mu_stick,
        "impact_impulse_ratio": g.impact_impulse_ratio,
        "residual": g.residual,
        "reason": g.reason,
    })
}

/// The compass biped's initial guess of P2's gait `(θ₁, θ̇₁, θ̇₂)` after heel strike.
pub const COMPASS_GAIT_GUESS: [f64; 3] = [-0.148, 0.733, -0.501];

/// P2's periodic gait from `guess` (rimless wheel: `θ̇` after impact; compass biped:
/// `θ₁, θ̇₁, θ̇₂`); by default the closed form (27) or P2's gait.
pub fn walker_gait(m: &WalkerModel, guess: Option<&[f64]>) -> Result<Gait, Error> {
    let s = WalkerSettings::default();
    if guess.is_some_and(|g| g.iter().any(|x| !x.is_finite())) {
        return Err(arg("guess", "every value must be a finite number"));
    }
    Ok(match m {
        WalkerModel::Rimless(w) => {
            let y = match guess {
                Some([v]) => v / w.tau_c(),
                Some(v) => {
                    return Err(arg("guess", format!("the rimless wheel takes 1 value (theta_dot), got {}", v.len())))
                }
                None => rimless_closed_form(w).1,
            };
            gait(w, &DVector::from_element(1, y), &s)
        }
        WalkerModel::Compass(c) => {
            let y = match guess {
                Some(v) if v.len() == 3 => v.to_vec(),
                Some(v) => return Err(arg("guess", format!("the compass biped takes 3 values, got {}", v.len()))),
                None => COMPASS_GAIT_GUESS.to_vec(),
            };
            gait(c, &DVector::from_vec(y), &s)
        }
    })
}

/// The compass biped's grid of `(θ₁, θ₂)` on which the sign of `B` is evaluated.
#[derive(Debug, Clone)]
pub struct AngleGrid {
    /// Smallest angle (rad).
    pub lo: f64,
    /// Largest angle (rad).
    pub hi: f64,
    /// Points per axis.
    pub n: usize,
    /// `negative[j][i]`: `B < 0` at `θ₁ = at(i)`, `θ₂ = at(j)`.
    pub negative: Vec<Vec<bool>>,
}

impl AngleGrid {
    /// The `k`-th grid angle.
    pub fn at(&self, k: usize) -> f64 {
        self.lo + (self.hi - self.lo) * k as f64 / (self.n - 1) as f64
    }
}

/// Painlevé's paradox of a walker (`walker painleve`).
#[derive(Debug, Clone)]
pub struct Painleve {
    /// The friction coefficient used.
    pub mu: f64,
    /// The `--json` object: `μ_min`, where `B < 0`, and (compass biped) `ρ_max`.
    pub summary: Value,
    /// The compass biped's `B < 0` grid.
    pub grid: Option<AngleGrid>,
}

/// Where `B < 0` (Painlevé's paradox) for slip direction `sigma = ±1`, with `mu` (default the
/// model's); the smallest `μ` with a paradox.
pub fn walker_painleve(m: &WalkerModel, mu: Option<f64>, sigma: i8) -> Result<Painleve, Error> {
    if sigma != 1 && sigma != -1 {
        return Err(arg("sigma", format!("must be 1 or -1 (got {sigma})")));
    }
    let model_mu = match m {
        WalkerModel::Rimless(w) => w.mu,
        WalkerModel::Compass(c) => c.mu,
    };
    let mu = mu.unwrap_or(model_mu);
    if !(mu >= 0.0 && mu.is_finite()) {
        return Err(arg("mu", format!("must be a finite number >= 0 (got {mu})")));
    }
    let sg = sigma as f64;
    Ok(match m {
        WalkerModel::Rimless(w) => {
            let mm = mu_min(w, sg, -1.5, 1.5, 301);
            let iv = b_negative_intervals(w, mu, sg, -w.half_angle(), w.half_angle(), 401);
            let summary = json!({"mu": mu, "sigma": sigma, "mu_min": mm.map(|m| m.mu_min), "b_negative": iv});
            Painleve { mu, summary, grid: None }
        }
        WalkerModel::Compass(c) => {
            let mm = mu_min(c, sg, -1.5, 1.5, 121);
            let (n, lo, hi) = (121, -1.0, 1.0);
            let grid = AngleGrid { lo, hi, n, negative: b_negative_grid(c, mu, sg, lo, hi, n) };
            let mut cells = Vec::new();
            for (j, row) in grid.negative.iter().enumerate() {
                for (i, &neg) in row.iter().enumerate() {
                    if neg {
                        cells.push((grid.at(i), grid.at(j)));
                    }
                }
            }
            let bbox = |f: fn(&(f64, f64)) -> f64| {
                cells.iter().map(f).fold([f64::INFINITY, f64::NEG_INFINITY], |b, x| [b[0].min(x), b[1].max(x)])
            };
            let summary = json!({
                "mu": mu,
                "sigma": sigma,
                "mu_min": mm.as_ref().map(|m| m.mu_min),
                "mu_min_at": mm.map(|m| m.at),
                "b_negative": {
                    "grid_cells": cells.len(),
                    "grid": {"theta_min": lo, "theta_max": hi, "points_per_axis": n},
                    "theta1_range": if cells.is_empty() { None } else { Some(bbox(|p| p.0)) },
                    "theta2_range": if cells.is_empty() { None } else { Some(bbox(|p| p.1)) },
                },
                "rho_max": compass_rho_max(c, mu, sg),
            });
            Painleve { mu, summary, grid: Some(grid) }
        }
    })
}

/// A slip of the stance foot from `state` (rimless wheel `θ, θ̇, ẋ` with rates in units of
/// `1/τ_c` and `l/τ_c`; compass biped `θ₁, θ₂, θ̇₁, θ̇₂, ẋ` in SI), or with `jam_threshold` the
/// smallest initial slip speed up to `max_speed` that jams (`walker slip`).
pub fn walker_slip(m: &WalkerModel, state: &[f64], jam: bool, max_speed: f64) -> Result<Value, Error> {
    let s = WalkerSettings::default();
    if state.iter().any(|x| !x.is_finite()) {
        return Err(arg("state", "every value must be a finite number"));
    }
    positive("max_speed", max_speed)?;
    Ok(match m {
        WalkerModel::Rimless(w) => {
            if state.len() != 3 {
                return Err(arg(
                    "state",
                    format!("the rimless wheel takes theta,theta_dot,x_dot (got {} values)", state.len()),
                ));
            }
            let tc = w.tau_c();
            let q = SVector::<f64, 3>::new(0.0, 0.0, state[0]);
            let v = SVector::<f64, 3>::new(state[2] / tc, 0.0, state[1] / tc);
            if jam {
                let vr = SVector::<f64, 3>::new(0.0, 0.0, v[2]);
                let e_x = SVector::<f64, 3>::new(1.0, 0.0, 0.0);
                let t = jam_threshold(w, &q, &vr, &e_x, max_speed / tc, 1e-5, &s);
                json!({"jam_threshold": t.map(|x| x * tc)})
            } else {
                let e = slip(w, &q, &v, &s);
                json!({"outcome": e.outcome, "t_end": e.t_end / tc, "fn_max": e.fn_max, "state": e.state, "A": e.a_end, "B": e.b_end, "approach": e.approach})
            }
        }
        WalkerModel::Compass(c) => {
            if state.len() != 5 {
                return Err(arg(
                    "state",
                    format!(
                        "the compass biped takes theta1,theta2,theta1_dot,theta2_dot,x_dot (got {} values)",
                        state.len()
                    ),
                ));
            }
            let q = SVector::<f64, 4>::new(state[0], state[1], 0.0, 0.0);
            let v = SVector::<f64, 4>::new(state[2], state[3], state[4], 0.0);
            if jam {
                let vr = SVector::<f64, 4>::new(v[0], v[1], 0.0, 0.0);
                let e_x = SVector::<f64, 4>::new(0.0, 0.0, 1.0, 0.0);
                json!({"jam_threshold": jam_threshold(c, &q, &vr, &e_x, max_speed, 1e-5, &s)})
            } else {
                let e = slip(c, &q, &v, &s);
                json!({"outcome": e.outcome, "t_end": e.t_end, "fn_max": e.fn_max, "state": e.state, "A": e.a_end, "B": e.b_end, "approach": e.approach})
            }
        }
    })
}

/// The model's walker with friction coefficient `mu`.
pub fn with_mu(m: &WalkerModel, mu: f64) -> WalkerModel {
    match m {
        WalkerModel::Rimless(w) => WalkerModel::Rimless(RimlessWheel { mu, ..*w }),
        WalkerModel::Compass(c) => WalkerModel::Compass(CompassBiped { mu, ..*c }),
    }
}

// ---------------------------------------------------------------------------------------------
// P3: completed hybrid systems and Zeno orbits

/// The model with the coefficient of restitution `e` in [0, 1] instead of its own.
pub fn with_restitution(m: ZenoModel, e: Option<f64>) -> Result<ZenoModel, Error> {
    match e {
        None => Ok(m),
        Some(e) if (0.0..=1.0).contains(&e) => Ok(m.with_e(e)),
        Some(e) => Err(arg("e", format!("must be a number in [0, 1] (got {e})"))),
    }
}

/// Names of the model's coordinates.
pub fn zeno_coordinates(m: &ZenoModel) -> &'static [&'static str] {
    match m {
        ZenoModel::DoublePendulum { .. } => &["theta1", "theta2"],
        ZenoModel::BouncingBall { .. } => &["x"],
    }
}

/// The completed execution up to `t_max` (s) or `max_events` (`zeno simulate`); the
/// simulation and its `--json` object.
pub fn zeno_simulate(m: &ZenoModel, t_max: f64, max_events: usize) -> Result<(Simulation, Value), Error> {
    positive("t_max", t_max)?;
    let settings = ZenoSettings { max_events, ..Default::default() };
    let sim = match m {
        ZenoModel::DoublePendulum { system, q0, v0 } => p3::simulate(system, q0, v0, t_max, 4, &settings)?,
        ZenoModel::BouncingBall { system, q0, v0 } => p3::simulate(system, q0, v0, t_max, 4, &settings)?,
    };
    let first_zeno = sim.events.iter().find(|ev| ev.kind == crate::hybrid::EventKind::Zeno).map(|ev| ev.t);
    let summary = json!({
        "e": m.e(),
        "t_end": sim.samples.last().map(|s| s.t),
        "termination": sim.termination,
        "impacts": sim.impacts,
        "zeno_points": sim.zeno_points,
        "first_zeno_time": first_zeno,
        "constrained_time": sim.constrained_time,
        "events": sim.events.len(),
    });
    Ok((sim, summary))
}

type Pendulum = (DoublePendulumStop, SVector<f64, 2>, SVector<f64, 2>);

fn pendulum(m: &ZenoModel, name: &str, what: &str) -> Result<Pendulum, Error> {
    match m {
        ZenoModel::DoublePendulum { system, q0, v0 } => Ok((*system, *q0, *v0)),
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
fn find_orbit(lag: &Lagrangian<DoublePendulumStop, 2>, p: &Pendulum, settings: &ZenoSettings) -> Result<Orbit, Error> {
    let y = p3::settle(lag, &p.1, &p.2, 300, 1e-7, settings)?;
    Ok(p3::orbit(lag, &y, settings))
}

/// The `--json` object of an orbit at restitution `e`.
pub fn orbit_json(e: f64, o: &Orbit) -> Value {
    json!({
        "e": e,
        "converged": o.converged,
        "zeno": o.zeno,
        "period": o.period,
        "fixed_point": o.fixed_point,
        "multipliers": o.multipliers,
        "gamma": o.gamma,
        "gamma_iterates": o.gamma_iterates,
        "stable": o.stable,
        "constrained_duration": o.constrained_duration,
        "impacts_per_cycle": o.impacts_per_cycle,
        "lambda_start": o.lambda_start,
        "residual": o.residual,
        "reason": o.reason,
    })
}

/// The simple or Zeno periodic orbit of the double pendulum reached from its initial state
/// (`zeno orbit`); the system and the orbit.
pub fn zeno_orbit(m: &ZenoModel, name: &str) -> Result<(DoublePendulumStop, Orbit), Error> {
    let p = pendulum(m, name, "zeno orbit")?;
    let o = find_orbit(&Lagrangian::new(p.0), &p, &ZenoSettings::default())?;
    Ok((p.0, o))
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
    let o = find_orbit(&lag, &p, &settings)?;
    if !o.converged {
        return Err(Error::input(
            name,
            "initial",
            format!(
                "Theorem 1 starts from a stable simple periodic orbit (e = 0); none was found from the model's \
                 initial state: {}",
                o.reason.as_deref().unwrap_or("Newton did not converge")
            ),
        ));
    }
    theorem1(&lag, &DVector::from_vec(o.section_point.clone()), o.gamma, eps, grid, &settings)
}

/// The branch of Zeno periodic orbits from `e = 0` in steps of `e_step` (halved after failures)
/// up to `e_max`, its end resolved to `e_tol` (`zeno continue`); `progress(e)` as it goes.
pub fn zeno_continuation(
    m: &ZenoModel,
    name: &str,
    e_step: f64,
    e_max: f64,
    e_tol: f64,
    progress: &dyn Fn(f64),
) -> Result<Continuation, Error> {
    let (sys, q0, v0) = pendulum(m, name, "zeno continue")?;
    for (k, v) in [("e_step", e_step), ("e_max", e_max), ("e_tol", e_tol)] {
        if !(v > 0.0 && v <= 1.0) {
            return Err(arg(k, format!("must be a number in (0, 1] (got {v})")));
        }
    }
    let settings = ZenoSettings::default();
    let lag = Lagrangian::new(sys.with_e(0.0));
    let y = p3::settle(&lag, &q0, &v0, 300, 1e-7, &settings)?;
    Ok(p3::continuation_in_e(|e| sys.with_e(e), 0.0, e_step, e_max, e_tol, &y, &settings, progress))
}

/// The `--json` object of a continuation.
pub fn continuation_json(c: &Continuation) -> Value {
    json!({"e_critical": c.e_critical, "e_failed": c.e_failed, "reason": c.reason, "points": c.points.len()})
}

// ---------------------------------------------------------------------------------------------
// P4: fixtures

/// P4's Theorem 4 over all systems (32)–(35), with a Proposition 5 load when one is consistent
/// (`fixture theorem4`); the result and its `--json` object.
pub fn fixture_theorem4(
    f: &Fixture,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(theorem4::Theorem4, Value), Error> {
    let t = theorem4::theorem4(f, progress)?;
    let example = match t.consistent.first() {
        Some(sys) => {
            let load = theorem4::proposition5_load(f, sys);
            let c = stability::classify(&f.with_load(load.clone()))?;
            Some(json!({"sigma_t": sys.sigma_t, "sigma_o": sys.sigma_o, "gamma": sys.gamma,
                "load": load.iter().copied().collect::<Vec<_>>(), "classification": c.classification}))
        }
        None => None,
    };
    let per: Vec<_> = t
        .per_sigma
        .iter()
        .map(|(st, so, c, n)| json!({"sigma_t": st, "sigma_o": so, "consistent": c, "systems": n}))
        .collect();
    let undecided: Vec<_> =
        t.undecided.iter().map(|s| json!({"sigma_t": s.sigma_t, "sigma_o": s.sigma_o, "gamma": s.gamma})).collect();
    let v = json!({"ss_equals_ws": t.ss_equals_ws, "systems": t.systems, "lps": t.lps,
        "per_sigma": per, "undecided": undecided, "proposition5": example});
    Ok((t, v))
}

/// The classification as every friction coefficient is scaled by `steps` factors evenly spaced
/// in `[0, max_scale]` (`fixture mu-sweep`).
pub fn fixture_mu_sweep(f: &Fixture, max_scale: f64, steps: usize) -> Result<fixture::sweep::Sweep, Error> {
    positive("max_scale", max_scale)?;
    within("steps", steps, MU_SWEEP_STEPS)?;
    let scales: Vec<f64> = (0..steps).map(|i| max_scale * i as f64 / (steps - 1) as f64).collect();
    fixture::sweep::mu_sweep(f, &scales)
}

// ---------------------------------------------------------------------------------------------
// P5: equilibrium sets

/// The equilibrium sets with Theorems 1 and 2 and the closed forms P5 prints
/// (`eqset analyze`), scanned on `grid` points: the `--json` object and the analysis.
pub fn eqset_analyze(
    m: &crate::eqset::model::EqsetModel,
    grid: usize,
) -> Result<(Value, crate::eqset::Analysis), Error> {
    use crate::eqset::{self, model::EqsetModel, Settings};
    within("grid", grid, EQSET_GRID)?;
    let (an, closed_form) = match m {
        EqsetModel::Rod { system, .. } => (
            eqset::analyze(system, &Settings { grid, ..Settings::for_system(system) })?,
            json!({
                "theta_hat": system.theta_hat(),
                "c_star_eq23": system.c_star_eq23(),
                "c_star_level_set_touching_e2":
                    system.theta_hat().map(|t| system.mass * system.gravity * system.l * (1.0 + t.cos())),
            }),
        ),
        EqsetModel::Block { system, .. } => (
            eqset::analyze(system, &Settings { grid, ..Settings::for_system(system) })?,
            json!({ "band": system.band() }),
        ),
    };
    let mut v = serde_json::to_value(&an).map_err(|e| Error::Numerical(format!("serialising the analysis: {e}")))?;
    v["closed_form"] = closed_form;
    Ok((v, an))
}

/// A time-stepping run of a one-DOF slider model (`eqset simulate`).
#[derive(Debug, Clone)]
pub struct EqsetRun {
    /// The step size (s).
    pub h: f64,
    /// Steps taken.
    pub steps: usize,
    /// Every recorded step: `t`, `q`, `q̇`.
    pub trajectory: crate::timestep::Trajectory,
    /// The mechanical energy `T + U` at every recorded step.
    pub energy: Vec<f64>,
}

impl EqsetRun {
    /// The `--json` object: step, steps, the final state, whether it is at rest, and `V` at the
    /// start and the end.
    pub fn summary(&self) -> Value {
        let tr = &self.trajectory;
        let last = tr.t.len().saturating_sub(1);
        let at = |v: &Vec<Vec<f64>>| v.get(last).and_then(|x| x.first()).copied();
        json!({
            "h": self.h,
            "steps": self.steps,
            "t_end": tr.t.get(last),
            "q_end": at(&tr.q),
            "q_dot_end": at(&tr.v),
            "at_rest": at(&tr.v) == Some(0.0),
            "energy_start": self.energy.first(),
            "energy_end": self.energy.last(),
        })
    }
}

fn eqset_run<S: crate::mechanics::sliders::SliderSystem<1, M>, const M: usize>(
    sys: &S,
    (q0, v0): (f64, f64),
    t_max: f64,
    h: Option<f64>,
) -> Result<EqsetRun, Error> {
    use nalgebra::Vector1;
    positive("t_max", t_max)?;
    let h = eqset_step(h, sys.time_scale())?;
    let steps = (t_max / h).ceil() as usize;
    if steps > 100_000_000 {
        return Err(arg("t_max", format!("t_max / h = {steps} steps is more than the limit of 10^8")));
    }
    let every = (steps / 5000).max(1);
    let trajectory = crate::timestep::bilateral::run(sys, &Vector1::new(q0), &Vector1::new(v0), h, steps, every)?;
    let energy = trajectory
        .q
        .iter()
        .zip(&trajectory.v)
        .map(|(q, v)| sys.energy(&Vector1::new(q[0]), &Vector1::new(v[0])))
        .collect();
    Ok(EqsetRun { h, steps, trajectory, energy })
}

/// The time step of the slider models: `h` if given (finite, > 0), else 1/400 of the model's
/// time scale.
pub fn eqset_step(h: Option<f64>, time_scale: f64) -> Result<f64, Error> {
    match h {
        None => Ok(time_scale / 400.0),
        Some(h) => positive("h", h),
    }
}

/// Time-steps the model from its initial state up to `t_max` (s) with step `h` (default 1/400
/// of the model's time scale), recording at most about 5000 states.
pub fn eqset_simulate(m: &crate::eqset::model::EqsetModel, t_max: f64, h: Option<f64>) -> Result<EqsetRun, Error> {
    use crate::eqset::model::EqsetModel;
    match m {
        EqsetModel::Rod { system, .. } => eqset_run(system, m.initial(), t_max, h),
        EqsetModel::Block { system, .. } => eqset_run(system, m.initial(), t_max, h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perturbations_parse_and_bad_ones_name_the_option() {
        let s = p1_perturbation("z2=1e-4, xd2=-0.5").unwrap();
        assert_eq!(s.q, [0.0, 1e-4, 0.0]);
        assert_eq!(s.qd, [0.0, 0.0, -0.5]);
        for (spec, msg) in [
            ("z2=1,z2=2", "given twice"),
            ("z1=-1", "gaps must be >= 0"),
            ("w=1", "unknown key"),
            ("z2", "expected KEY=VALUE"),
            ("z2=nan", "not a finite number"),
        ] {
            let e = p1_perturbation(spec).unwrap_err();
            assert!(e.is_input_error() && e.to_string().starts_with("perturb: ") && e.to_string().contains(msg), "{e}");
        }
    }

    #[test]
    fn bad_options_are_argument_errors() {
        assert!(matches!(positive("t_max", f64::NAN), Err(Error::Argument { .. })));
        assert!(matches!(positive("t_max", 0.0), Err(Error::Argument { .. })));
        assert_eq!(positive("t_max", 2.0).unwrap(), 2.0);
    }
}
