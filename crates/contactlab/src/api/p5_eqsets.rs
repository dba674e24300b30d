//! P5 (van de Wouw & Leine): equilibrium sets.

use super::*;

/// What `eqset analyze --json` prints: the analysis and the closed forms P5 prints.
#[derive(Debug, Clone, Serialize)]
pub struct EqsetReport {
    /// The equilibrium sets and Theorems 1 and 2.
    #[serde(flatten)]
    pub analysis: crate::eqset::Analysis,
    /// P5's closed forms for this system.
    pub closed_form: ClosedForm,
}

/// The closed forms P5 prints for its two systems.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ClosedForm {
    /// The rod of Fig. 1.
    Rod {
        /// `θ̂`, the half-width of E1 (rad).
        theta_hat: Option<f64>,
        /// `c*` of eq. (23) as printed.
        c_star_eq23: f64,
        /// `c* = m g l (1 + cos θ̂)`, the level set touching E2.
        c_star_level_set_touching_e2: Option<f64>,
    },
    /// The friction oscillator.
    Block {
        /// The half-width of the equilibrium band.
        band: f64,
    },
}

/// The equilibrium sets with Theorems 1 and 2 and the closed forms P5 prints
/// (`eqset analyze`), scanned on `grid` points.
pub fn eqset_analyze(m: &crate::eqset::model::EqsetModel, grid: usize) -> Result<EqsetReport, Error> {
    use crate::eqset::{self, model::EqsetModel, EqsetSettings};
    within("grid", grid, EQSET_GRID)?;
    Ok(match m {
        EqsetModel::Rod { system, .. } => EqsetReport {
            analysis: eqset::analyze(system, &EqsetSettings { grid, ..EqsetSettings::for_system(system) })?,
            closed_form: ClosedForm::Rod {
                theta_hat: system.theta_hat(),
                c_star_eq23: system.c_star_eq23(),
                c_star_level_set_touching_e2: system
                    .theta_hat()
                    .map(|t| system.mass * system.gravity * system.l * (1.0 + t.cos())),
            },
        },
        EqsetModel::Block { system, .. } => EqsetReport {
            analysis: eqset::analyze(system, &EqsetSettings { grid, ..EqsetSettings::for_system(system) })?,
            closed_form: ClosedForm::Block { band: system.band() },
        },
    })
}

/// What `eqset portrait --json` prints (and `summary.json` holds).
#[derive(Debug, Clone, Serialize)]
pub struct PortraitSummary {
    /// `c*` of Theorem 1, if it applies.
    pub c_star: Option<f64>,
    /// The window drawn.
    pub window: PortraitWindow,
    /// Time step (s).
    pub h: f64,
    /// Steps per run.
    pub steps: usize,
    /// Runs from the basin grid.
    pub runs: usize,
    /// The basin found against the estimate `V < c*`.
    pub basin: Option<BasinSummary>,
}

/// The window of a phase portrait.
#[derive(Debug, Clone, Serialize)]
pub struct PortraitWindow {
    /// Coordinate range.
    pub q: [f64; 2],
    /// Velocity range.
    pub q_dot: [f64; 2],
}

/// Where the starts of a grid come to rest, against the estimate `V < c*` of one set.
#[derive(Debug, Clone, Serialize)]
pub struct BasinSummary {
    /// The set (1-based) Theorem 1 was applied to.
    pub target_set: usize,
    /// The share of the grid that comes to rest in each set.
    pub share_per_set: Vec<f64>,
    /// The share still moving at the end.
    pub share_still_moving: f64,
    /// The share of the grid inside `V < c*`.
    pub share_in_estimate: f64,
    /// The share of those that come to rest in the target set.
    pub estimate_converges: f64,
    /// Starts inside the estimate that come to rest elsewhere.
    pub estimate_elsewhere: usize,
    /// The share of the basin found that the estimate covers.
    pub estimate_share_of_basin: f64,
}

/// Options of [`eqset_portrait`].
#[derive(Debug, Clone)]
pub struct PortraitOptions {
    /// Basin grid points per axis.
    pub grid: usize,
    /// Trajectories drawn.
    pub trajectories: usize,
    /// Time step (s); `None`: 1/400 of the model's time scale.
    pub h: Option<f64>,
    /// Steps per run.
    pub steps: usize,
}

/// P5's phase portrait (Fig. 3) and the basin of the set Theorem 1 applies to, by
/// time-stepping a grid of starts (`eqset portrait`); with `out`, writes `portrait.png`,
/// `basin.png`, `basin.csv` and `summary.json` there.
pub fn eqset_portrait(
    m: &crate::eqset::model::EqsetModel,
    opts: &PortraitOptions,
    out: Option<&std::path::Path>,
) -> Result<PortraitSummary, Error> {
    use crate::eqset::model::EqsetModel;
    match m {
        EqsetModel::Rod { system, .. } => portrait_of(
            system,
            m.coordinate(),
            "Rod on two frictional sliders: phase plane and V < c* (P5 Fig. 3)",
            opts,
            out,
        ),
        EqsetModel::Block { system, .. } => {
            portrait_of(system, m.coordinate(), "Friction oscillator: phase plane", opts, out)
        }
    }
}

fn portrait_of<S: crate::mechanics::sliders::SliderSystem<1, M>, const M: usize>(
    sys: &S,
    coordinate: (&str, &str),
    title: &str,
    opts: &PortraitOptions,
    out: Option<&std::path::Path>,
) -> Result<PortraitSummary, Error> {
    use crate::eqset::{self as p5, plots, EqsetSettings, PortraitSettings};
    let settings = EqsetSettings::for_system(sys);
    let an = p5::analyze(sys, &settings)?;
    let ps = PortraitSettings {
        grid: opts.grid,
        trajectories: opts.trajectories,
        h: eqset_step(opts.h, sys.time_scale())?,
        steps: opts.steps,
    };
    let p = p5::portrait(sys, &an, &settings, &ps)?;
    let t1 = an.sets.iter().find_map(|s| s.theorem1.as_ref());
    let summary = PortraitSummary {
        c_star: an.c_star,
        window: PortraitWindow { q: [p.window_q.0, p.window_q.1], q_dot: [p.window_v.0, p.window_v.1] },
        h: ps.h,
        steps: ps.steps,
        runs: ps.grid * ps.grid,
        basin: p.basin.as_ref().map(|(k, b)| BasinSummary {
            target_set: k + 1,
            share_per_set: b.share_per_set.clone(),
            share_still_moving: b.share_moving,
            share_in_estimate: b.share_in_estimate,
            estimate_converges: b.estimate_converges,
            estimate_elsewhere: b.estimate_elsewhere,
            estimate_share_of_basin: b.estimate_of_basin,
        }),
    };
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        plots::portrait(sys, &an.sets, t1, &p.trajectories, p.window_q, coordinate, title)
            .save(&dir.join("portrait.png"))?;
        if let (Some((_, b)), Some(t1)) = (&p.basin, t1) {
            plots::basin_map(sys, b, t1, coordinate, "Where each initial state comes to rest (time-stepping)")
                .save(&dir.join("basin.png"))?;
            let q = coordinate.0;
            let mut csv = format!("{q},{q}_dot,rests_in_set,in_estimate\n");
            for ((s, e), i) in b.starts.iter().zip(&b.ends_in).zip(&b.in_estimate) {
                let e = e.map_or(String::new(), |k| (k + 1).to_string());
                csv.push_str(&format!("{},{},{e},{i}\n", s.0, s.1));
            }
            crate::output::write_file(dir, "basin.csv", &csv)?;
        }
        let text = serde_json::to_string_pretty(&summary).map_err(|e| Error::Output(e.to_string()))?;
        crate::output::write_file(dir, "summary.json", &text)?;
    }
    Ok(summary)
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
    pub fn summary(&self) -> EqsetRunSummary {
        let tr = &self.trajectory;
        let last = tr.t.len().saturating_sub(1);
        let at = |v: &Vec<Vec<f64>>| v.get(last).and_then(|x| x.first()).copied();
        EqsetRunSummary {
            h: self.h,
            steps: self.steps,
            t_end: tr.t.get(last).copied(),
            q_end: at(&tr.q),
            q_dot_end: at(&tr.v),
            at_rest: at(&tr.v) == Some(0.0),
            energy_start: self.energy.first().copied(),
            energy_end: self.energy.last().copied(),
        }
    }
}

/// What `eqset simulate --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct EqsetRunSummary {
    /// Step size (s).
    pub h: f64,
    /// Steps taken.
    pub steps: usize,
    /// End time (s).
    pub t_end: Option<f64>,
    /// Final position.
    pub q_end: Option<f64>,
    /// Final velocity.
    pub q_dot_end: Option<f64>,
    /// Whether the run ends at rest (velocity exactly zero: every slider sticks).
    pub at_rest: bool,
    /// `V = T + U` at the start.
    pub energy_start: Option<f64>,
    /// `V` at the end.
    pub energy_end: Option<f64>,
}

impl EqsetRun {
    /// Writes `trajectory.csv` (`t`, the coordinate, its rate, `V`) and `time.png` into `dir`;
    /// `coordinate` is the coordinate's name and unit.
    pub fn write_files(&self, coordinate: (&str, &str), dir: &std::path::Path) -> Result<(), Error> {
        use crate::plot::{Mark, XyPlot};
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let (name, unit) = coordinate;
        let traj = &self.trajectory;
        let mut csv = format!("t,{name},{name}_dot,V\n");
        for k in 0..traj.t.len() {
            csv.push_str(&format!("{},{},{},{}\n", traj.t[k], traj.q[k][0], traj.v[k][0], self.energy[k]));
        }
        crate::output::write_file(dir, "trajectory.csv", &csv)?;
        let pts: Vec<(f64, f64)> = traj.t.iter().zip(&traj.q).map(|(t, q)| (*t, q[0])).collect();
        XyPlot::new("Time-stepping", "t (s)", format!("{name} ({unit})"))
            .add(name, pts, Mark::Line)
            .save(&dir.join("time.png"))
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
