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

mod defaults;
pub use defaults::*;

use std::ops::RangeInclusive;

use nalgebra::{DVector, SVector};
use serde::Serialize;

use crate::fixture::{self, stability, theorem4, Fixture};
use crate::hybrid::lagrangian::Lagrangian;
use crate::mechanics::double_pendulum::DoublePendulumStop;
use crate::model::registry::Model;
use crate::twocontact::modes::{self, all_modes, solve_mode, EquilibriumModes, ModeSolution, PointState};
use crate::twocontact::nonlinear::{self, NonlinearRun, NonlinearSettings};
use crate::twocontact::poincare::{self, FixedPoint, MapPoint};
use crate::twocontact::sim::{EventKind, SimSettings, Simulator, State, Trajectory};
use crate::twocontact::{atlas, zod::Zod, TwoContact};
use crate::walking::model::WalkerModel;
use crate::walking::painleve::{b_negative_grid, b_negative_intervals, compass_rho_max, mu_min};
use crate::walking::slip::{jam_threshold, slip};
use crate::walking::{gait, rimless_closed_form, Gait, WalkerChart, WalkerSettings};
use crate::zeno::bound::{theorem1, Bound, Epsilons};
use crate::zeno::model::ZenoModel;
use crate::zeno::{self as p3, Continuation, Orbit, Simulation, ZenoSettings};
use crate::Error;

fn arg(name: &str, message: impl Into<String>) -> Error {
    Error::Argument { name: name.into(), message: message.into() }
}

/// Runs `$body` with `$w` bound to the walker inside the [`WalkerModel`] `$m`, whatever its kind:
/// the one list of walker kinds in this module (each kind implements [`WalkerChart`]).
macro_rules! with_walker {
    ($m:expr, $w:ident => $body:expr) => {
        match $m {
            WalkerModel::Rimless($w) => $body,
            WalkerModel::Compass($w) => $body,
        }
    };
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

use crate::error::positive;

// ---------------------------------------------------------------------------------------------
// The LCP core

/// What `lcp solve --json` prints (and the fields of Python's `LcpSolution`).
#[derive(Debug, Clone, Serialize)]
pub struct LcpReport {
    /// What the solver concluded.
    pub status: crate::lcp::LcpStatus,
    /// The point `z` (non-finite entries as `null`).
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub z: DVector<f64>,
    /// `w = M z + q`.
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub w: DVector<f64>,
    /// The scale-free residual (`None` when there is no point).
    pub residual: Option<f64>,
    /// Lemke pivots.
    pub pivots: usize,
    /// The method of the final answer.
    pub method: crate::lcp::LcpMethod,
    /// Why there is no solution, if there is none.
    pub reason: Option<crate::lcp::NoSolutionReason>,
    /// The componentwise relative error of `z` on the data as given
    /// ([`crate::lcp::LcpSolution::violation`]; `None` when there is no point).
    pub violation: Option<f64>,
    /// The size of the problem.
    pub n: usize,
    /// Whether the verdict is proved in interval arithmetic (`"proof": "interval" | "none"`,
    /// `"proof_reason"` when none; [`crate::lcp::proof`]).
    #[serde(flatten)]
    pub proof: crate::verified::Proof,
}

/// Solves an LCP (`lcp solve`): Lemke's method with proved fallbacks ([`crate::lcp::solve`]),
/// its verdict proved in interval arithmetic where that closes ([`crate::lcp::proof`]).
pub fn lcp_solve(problem: &crate::lcp::Lcp, settings: &crate::lcp::LcpSettings) -> Result<LcpReport, Error> {
    let sol = crate::lcp::solve(problem, settings)?;
    let proof = crate::lcp::proof::prove(problem, &sol);
    Ok(LcpReport { proof, ..LcpReport::from(sol) })
}

/// Every solution of an LCP as polyhedral pieces (`lcp solve --all`).
pub fn lcp_solve_all(problem: &crate::lcp::Lcp) -> Result<crate::lcp::enumerate::Enumeration, Error> {
    let mut e = crate::lcp::enumerate::enumerate(problem, &crate::lcp::enumerate::EnumSettings::default())?;
    e.prove_empty(problem);
    Ok(e)
}

/// The matrix classes of `M` (`lcp classes`).
pub fn lcp_classes(m: &nalgebra::DMatrix<f64>) -> Result<crate::lcp::classes::Classes, Error> {
    crate::lcp::classes::all(m)
}

impl LcpReport {
    /// Writes `solution.csv` (`i, z, w`) into `dir`.
    pub fn write_files(&self, dir: &std::path::Path) -> Result<(), Error> {
        let rows: Vec<Vec<String>> =
            (0..self.n).map(|i| vec![i.to_string(), self.z[i].to_string(), self.w[i].to_string()]).collect();
        crate::output::write_csv(dir, "solution.csv", &["i", "z", "w"], &rows)
    }
}

impl From<crate::lcp::LcpSolution> for LcpReport {
    fn from(s: crate::lcp::LcpSolution) -> Self {
        LcpReport {
            status: s.status,
            n: s.z.len(),
            z: s.z,
            w: s.w,
            residual: crate::output::finite_or_none(s.residual),
            pivots: s.pivots,
            method: s.method,
            reason: s.reason,
            violation: crate::output::finite_or_none(s.violation),
            proof: s.proof,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parameter studies over any kind that has them (`model::registry::KindDef::sweep`)

/// The cells of a parameter study, by kind; each cell holds its `values` and the kind's columns
/// ([`crate::model::registry::sweep_columns`]).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum SweepCells {
    /// P1's verdicts ([`crate::twocontact::atlas::classify_cells`]).
    TwoContact(Vec<crate::twocontact::atlas::Cell>),
    /// P4's classifications ([`crate::fixture::sweep::classify_cells`]).
    Fixture(Vec<crate::fixture::sweep::FixtureCell>),
}

fn no_studies(m: &Model) -> Error {
    let kinds: Vec<&str> =
        crate::model::registry::REGISTRY.iter().filter(|k| k.sweep.is_some()).map(|k| k.kind).collect();
    Error::model("kind", format!("parameter studies are for {} models, not {m:?}", kinds.join(", ")))
}

/// Checks the cells of a study before any work: every value, applied alone to the model, lies in
/// its key's range (an error names the first key and value that do not).
pub fn check_cells(m: &Model, keys: &[&str], points: &[Vec<f64>]) -> Result<(), Error> {
    match m {
        Model::TwoContact(p) => crate::twocontact::atlas::check_values(p, keys, points),
        Model::Fixture(f) => crate::fixture::sweep::check_values(f, keys, points),
        other => Err(no_studies(other)),
    }
}

/// The cells of a study (`samples` values of `φ` per cell for P1), in parallel.
pub fn sweep_cells(m: &Model, keys: &[&str], points: &[Vec<f64>], samples: usize) -> Result<SweepCells, Error> {
    Ok(match m {
        Model::TwoContact(p) => {
            within("samples", samples, ATLAS_SAMPLES)?;
            SweepCells::TwoContact(crate::twocontact::atlas::classify_cells(p, keys, points, samples, &|_, _| {})?)
        }
        Model::Fixture(f) => SweepCells::Fixture(crate::fixture::sweep::classify_cells(f, keys, points)?),
        other => return Err(no_studies(other)),
    })
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

impl P1Modes {
    /// Writes `modes.csv` into `dir`: every mode consistent at rest with its margin, forces
    /// `(f₁z, f₂z, f₁x, f₂x)` and accelerations `(z̈₁, z̈₂, ẍ₁, ẍ₂)`.
    pub fn write_files(&self, dir: &std::path::Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let mut csv = String::from("mode,consistent,margin,f1z,f2z,f1x,f2x,z1dd,z2dd,x1dd,x2dd\n");
        for s in &self.modes {
            let (f, ac) = (s.forces, s.accel);
            csv.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{}\n",
                s.mode, s.consistent, s.margin, f[0], f[1], f[2], f[3], ac[0], ac[1], ac[2], ac[3]
            ));
        }
        crate::output::write_file(dir, "modes.csv", &csv)
    }
}

/// P1's verdict by Theorems 1–5 on `samples` values of `φ` (`equilibrium classify`), with its
/// proof over all `φ` in interval arithmetic where one is implemented (Theorems 1–3, no
/// equilibrium) and the reason where not.
pub fn p1_classify(p: &TwoContact, samples: usize) -> Result<crate::twocontact::classify::Classification, Error> {
    within("samples", samples, MAP_SAMPLES)?;
    let mut c = crate::twocontact::classify::classify(p, samples)?;
    c.proof = Some(crate::twocontact::proof::prove_verdict(p, &c));
    Ok(c)
}

/// P1's maps `R`, `G` at the impact angles `phi` (each in `(−π/2, π/2)`), in parallel.
pub fn p1_maps_at(p: &TwoContact, phi: &[f64]) -> Result<Vec<MapPoint>, Error> {
    poincare::maps_at(&Simulator::new(Zod::new(p)?)?, phi)
}

/// Unit loads tested on the sphere by [`fixture_cones`].
pub const CONE_SAMPLES: RangeInclusive<usize> = 10..=200_000;

/// P1's atlas: the verdict of every cell of the grid spanned by `axes` (one or two), with
/// `samples` values of `φ` per cell (`equilibrium atlas`). `progress(done, total)` is called
/// from worker threads.
pub fn p1_atlas(
    p: &TwoContact,
    axes: &[atlas::Axis],
    samples: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<atlas::Cell>, Error> {
    within("samples", samples, ATLAS_SAMPLES)?;
    atlas::atlas(p, axes, samples, progress)
}

/// Shard `k` of `n` of [`p1_atlas`] (`equilibrium atlas --shard K/N`), as the file
/// [`atlas::Shard::write`] stores and [`p1_atlas_merge`] joins.
pub fn p1_atlas_shard(
    p: &TwoContact,
    title: &str,
    axes: &[atlas::Axis],
    samples: usize,
    [k, n]: [usize; 2],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<atlas::Shard, Error> {
    within("samples", samples, ATLAS_SAMPLES)?;
    let cells = atlas::atlas_shard(p, axes, samples, k, n, progress)?;
    Ok(atlas::Shard {
        format: atlas::SHARD_FORMAT.into(),
        title: title.into(),
        axes: axes.to_vec(),
        samples,
        total: axes.iter().map(|x| x.n).product(),
        shard: [k, n],
        cells: cells.into_iter().map(|(index, cell)| atlas::IndexedCell { index, cell }).collect(),
    })
}

/// Joins the shard files at `inputs` (directories holding `atlas-shard.json`, or the files)
/// into the unsharded atlas (`contactlab merge`): the first shard (for its title and axes) and
/// the cells in grid order.
pub fn p1_atlas_merge(inputs: &[std::path::PathBuf]) -> Result<(atlas::Shard, Vec<atlas::Cell>), Error> {
    let mut shards = Vec::new();
    let mut names = Vec::new();
    for input in inputs {
        let path = if input.is_dir() { input.join(atlas::SHARD_FILE) } else { input.clone() };
        shards.push(atlas::Shard::read(&path)?);
        names.push(path.display().to_string());
    }
    let cells = atlas::merge(&shards, &names)?;
    let mut first = shards.swap_remove(0);
    first.cells.clear();
    Ok((first, cells))
}

/// P4's load cones of a fixture, written as CSV and PNG files into `dir` (`fixture cones`):
/// the paths of the files.
pub fn fixture_cones(f: &Fixture, dir: &std::path::Path, samples: usize) -> Result<Vec<std::path::PathBuf>, Error> {
    within("samples", samples, CONE_SAMPLES)?;
    fixture::cones::write(f, dir, samples, "")
}

/// P4's weak, strong and frictionless stability of a fixture (`fixture classify`).
pub fn fixture_classify(f: &Fixture) -> Result<stability::Classification, Error> {
    stability::classify(f)
}

/// P1's contact modes at the equilibrium under the zero-order dynamics.
pub fn p1_modes(p: &TwoContact) -> Result<P1Modes, Error> {
    let z = Zod::new(p)?;
    let analysis = modes::analyze(&z)?;
    let modes =
        all_modes().into_iter().filter_map(|m| solve_mode(&z, m, [PointState::Rest, PointState::Rest])).collect();
    Ok(P1Modes { analysis, k: z.k(), modes })
}

/// The reduced Poincaré map `R(φ)` and growth map `G(φ)` on `samples` angles, with their fixed
/// points and behaviour at `±π/2` (`equilibrium maps`).
#[derive(Debug, Clone, Serialize)]
pub struct P1Maps {
    /// Number of sampled angles.
    pub samples: usize,
    /// Samples where `R` and `G` are defined (the motion returns to the section).
    pub defined: usize,
    /// Fixed points of `R`, refined by bisection.
    pub fixed_points: Vec<FixedPoint>,
    /// Sign changes of `R(φ) − φ` whose bisection met an undefined `R`.
    pub unresolved_fixed_points: usize,
    /// The maps' behaviour at `φ → ±π/2` (P1 Lemma 2).
    pub endpoints: [crate::twocontact::classify::Endpoint; 2],
    /// The samples.
    pub maps: Vec<MapPoint>,
}

impl P1Maps {
    /// Writes `maps.csv` (`phi,R,G`, empty where undefined) and the plots `R.png`, `G.png` into
    /// `dir`, titled after `title`.
    pub fn write_files(&self, dir: &std::path::Path, title: &str) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let mut csv = String::from("phi,R,G\n");
        for q in &self.maps {
            let f = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
            csv.push_str(&format!("{},{},{}\n", q.phi, f(q.r), f(q.g)));
        }
        crate::output::write_file(dir, "maps.csv", &csv)?;
        crate::twocontact::plots::maps_plots(self, title, dir)
    }
}

/// P1's maps `R`, `G` on `samples` angles (in [`MAP_SAMPLES`]) with their fixed points.
pub fn p1_maps(p: &TwoContact, samples: usize) -> Result<P1Maps, Error> {
    within("samples", samples, MAP_SAMPLES)?;
    let sim = Simulator::new(Zod::new(p)?)?;
    let maps = poincare::sample(&sim, samples)?;
    let found = poincare::fixed_points(&sim, &maps)?;
    Ok(P1Maps {
        samples: maps.len(),
        defined: maps.iter().filter(|q| q.r.is_some()).count(),
        fixed_points: found.points,
        unresolved_fixed_points: found.unresolved,
        endpoints: crate::twocontact::classify::endpoints(&maps),
        maps,
    })
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
    pub fn summary(&self) -> P1SimulationSummary {
        let tr = &self.zod;
        let nl = &self.nonlinear;
        P1SimulationSummary {
            outcome: tr.outcome,
            t_end: tr.t_end,
            events: tr.events.len(),
            impacts: tr.events.iter().filter(|e| e.kind == EventKind::Impact).count(),
            zeno_times: tr.zeno_times(),
            nonlinear: NonlinearSummary {
                outcome: nl.outcome,
                t_end: self.nonlinear_t_end(),
                events: nl.events.len(),
                impacts: nl.events.iter().filter(|e| e.1 == EventKind::Impact).count(),
                zeno_times: nl.events.iter().filter(|e| e.1 == EventKind::Zeno).map(|e| e.0).collect(),
            },
        }
    }

    /// Writes the runs into `dir`: `trajectory.csv` and `trajectory_nonlinear.csv` (`t,z1,z2,x1,x2`),
    /// `events.csv` (the zero-order run's events with velocities before and after) and the plots
    /// `z.png`, `x.png` (both models), titled after `title`.
    pub fn write_files(&self, dir: &std::path::Path, title: &str) -> Result<(), Error> {
        use crate::twocontact::plots::{displacement_plot, Displacement};
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let write = |name: &str, text: String| crate::output::write_file(dir, name, &text);
        let table = |rows: &[[f64; 5]]| {
            let mut csv = String::from("t,z1,z2,x1,x2\n");
            for s in rows {
                csv.push_str(&format!("{},{},{},{},{}\n", s[0], s[1], s[2], s[3], s[4]));
            }
            csv
        };
        let (tr, nl) = (&self.zod, &self.nonlinear);
        write("trajectory.csv", table(&self.zod_samples()))?;
        let mut ev =
            String::from("t,kind,point,mode,section,zd1_before,zd2_before,xd2_before,zd1_after,zd2_after,xd2_after\n");
        for e in &tr.events {
            ev.push_str(&format!(
                "{},{:?},{},{},{},{},{},{},{},{},{}\n",
                e.t,
                e.kind,
                e.point.map_or(String::new(), |p| (p + 1).to_string()),
                e.mode,
                e.section,
                e.before.qd[0],
                e.before.qd[1],
                e.before.qd[2],
                e.after.qd[0],
                e.after.qd[1],
                e.after.qd[2]
            ));
        }
        write("events.csv", ev)?;
        write("trajectory_nonlinear.csv", table(&nl.samples))?;
        let tail = self.tail();
        let normal = format!("{title}: normal displacements, ZOD and nonlinear model");
        displacement_plot(&normal, tr, Some(nl), Displacement::Normal, tail).save(&dir.join("z.png"))?;
        let tangential = format!("{title}: tangential displacements, ZOD and nonlinear model");
        displacement_plot(&tangential, tr, Some(nl), Displacement::Tangential, tail).save(&dir.join("x.png"))
    }

    /// Final time of the nonlinear run.
    pub fn nonlinear_t_end(&self) -> f64 {
        self.nonlinear.samples.last().map_or(0.0, |s| s[0])
    }
}

/// What `equilibrium simulate --json` prints: the zero-order run and the nonlinear one.
#[derive(Debug, Clone, Serialize)]
pub struct P1SimulationSummary {
    /// How the zero-order run ended.
    pub outcome: crate::twocontact::sim::Outcome,
    /// Its end time (s).
    pub t_end: f64,
    /// Events logged.
    pub events: usize,
    /// Impacts among them.
    pub impacts: usize,
    /// Times of the Zeno points (s).
    pub zeno_times: Vec<f64>,
    /// The same for the full nonlinear model.
    pub nonlinear: NonlinearSummary,
}

/// The nonlinear model's part of [`P1SimulationSummary`].
#[derive(Debug, Clone, Serialize)]
pub struct NonlinearSummary {
    /// How the run ended.
    pub outcome: crate::twocontact::sim::Outcome,
    /// End time (s).
    pub t_end: f64,
    /// Events logged.
    pub events: usize,
    /// Impacts among them.
    pub impacts: usize,
    /// Times of the Zeno points (s).
    pub zeno_times: Vec<f64>,
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

/// A gait as `walker gait --json` prints it. A gait that did not converge carries no numbers
/// (every field but `converged` and `reason` is `None`), and `mu_stick` is `None` unless the foot
/// sticks along the whole step (a slipping step has no sticking-friction requirement: its force
/// ratio is capped at the model's μ).
#[derive(Debug, Clone, Serialize)]
pub struct GaitReport {
    /// Whether Newton's method converged.
    pub converged: bool,
    /// Step period.
    pub period: Option<f64>,
    /// The state `(q, q̇)` after heel strike.
    pub post_impact_state: Option<Vec<f64>>,
    /// The state just before heel strike.
    pub pre_impact_state: Option<Vec<f64>>,
    /// Floquet multipliers `(re, im)`, largest modulus first.
    pub multipliers: Option<Vec<[f64; 2]>>,
    /// Whether every multiplier lies inside the unit circle.
    pub stable: Option<bool>,
    /// Whether the stance foot sticks along the whole step.
    pub sticking: Option<bool>,
    /// `μ_stick = max |f_t/f_n|` along a sticking step (P2 eq. 29).
    pub mu_stick: Option<f64>,
    /// `|F_t/F_n|` of the sticking impulse at heel strike (P2 eq. 13).
    pub impact_impulse_ratio: Option<f64>,
    /// `‖P(y) − y‖` in the chart's scales.
    pub residual: Option<f64>,
    /// Why Newton stopped, when it did not converge.
    pub reason: Option<crate::hybrid::section::NewtonStop>,
    /// The rimless wheel's gait proved in interval arithmetic
    /// ([`crate::walking::proof`]): the rate, multiplier and `μ_stick` enclosed, or why no
    /// proof. `None` for the compass biped (no explicit step map).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<crate::walking::proof::RimlessGaitProof>,
}

impl From<&Gait> for GaitReport {
    fn from(g: &Gait) -> Self {
        let c = |v: f64| g.converged.then_some(v);
        GaitReport {
            converged: g.converged,
            period: c(g.period),
            post_impact_state: g.converged.then(|| g.post_impact_state.clone()),
            pre_impact_state: g.converged.then(|| g.pre_impact_state.clone()),
            multipliers: g.converged.then(|| g.multipliers.clone()),
            stable: g.converged.then_some(g.stable),
            sticking: g.converged.then_some(g.sticking),
            mu_stick: (g.converged && g.sticking).then_some(g.mu_stick),
            impact_impulse_ratio: c(g.impact_impulse_ratio),
            residual: c(g.residual),
            reason: g.reason.clone(),
            proof: None,
        }
    }
}

/// P2's periodic gait from `guess` (rimless wheel: `θ̇` after impact in units of `1/τ_c`;
/// compass biped: `θ₁, θ̇₁, θ̇₂`: the walker's [`WalkerChart::section_names`]); by default the
/// closed form (27) or P2's gait.
pub fn walker_gait(m: &WalkerModel, guess: Option<&[f64]>) -> Result<GaitReport, Error> {
    let s = WalkerSettings::default();
    if guess.is_some_and(|g| g.iter().any(|x| !x.is_finite())) {
        return Err(arg("guess", "every value must be a finite number"));
    }
    with_walker!(m, w => {
        let y = match guess {
            Some(g) => {
                values_for(w.kind_name(), "guess", w.section_names(), g)?;
                w.section_from_user(g)
            }
            None => w.default_gait_guess(),
        };
        let found = gait(w, &y, &s);
        // The rimless wheel's sticking gait, proved from the closed form (27) whatever the
        // floating-point search did (also when it did not converge, e.g. with μ within round-off
        // of μ_stick, and when the gait found slips: the proof then says which sticking
        // condition fails).
        let proof = match m {
            WalkerModel::Rimless(r) => {
                let (_, rate) = crate::walking::rimless_closed_form(r);
                Some(crate::walking::proof::prove_rimless_gait(r, rate))
            }
            _ => None,
        };
        if found.converged || guess.is_some() || proof.is_some() {
            return Ok(GaitReport { proof, ..GaitReport::from(&found) });
        }
        // No guess and the default did not converge: search for the gait from nothing (the
        // compass biped as a mechanism), then converge on the built-in model from there.
        if let WalkerModel::Compass(c) = m {
            if let Some(y) = crate::mechanism::walkers::compass_gait_guess(c)? {
                return Ok(GaitReport::from(&gait(c, &y, &s)));
            }
        }
        Ok(GaitReport::from(&found))
    })
}

/// `values` has one entry per name (an [`Error::Argument`] for `option` lists them otherwise).
fn values_for(kind: &str, option: &str, names: &[&str], values: &[f64]) -> Result<(), Error> {
    if values.len() == names.len() {
        return Ok(());
    }
    let n = names.len();
    Err(arg(
        option,
        format!(
            "the {kind} takes {n} value{} ({}), got {}",
            if n == 1 { "" } else { "s" },
            names.join(","),
            values.len()
        ),
    ))
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
    /// The slip direction `σ = ±1`.
    pub sigma: i8,
    /// The `--json` object: `μ_min`, where `B < 0`, and (compass biped) `ρ_max`.
    pub summary: PainleveSummary,
    /// The compass biped's `B < 0` grid.
    pub grid: Option<AngleGrid>,
}

/// What `walker painleve --json` prints.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum PainleveSummary {
    /// A one-angle walker (the rimless wheel).
    Rimless {
        /// The friction coefficient used.
        mu: f64,
        /// Slip direction `σ = ±1`.
        sigma: i8,
        /// The smallest `μ` with `B < 0` somewhere (P2 eq. 33).
        mu_min: Option<f64>,
        /// The intervals of `θ` (rad) where `B < 0`.
        b_negative: Vec<[f64; 2]>,
    },
    /// A two-angle walker (the compass biped).
    Compass {
        /// The friction coefficient used.
        mu: f64,
        /// Slip direction `σ = ±1`.
        sigma: i8,
        /// The smallest `μ` with `B < 0` somewhere (numerical).
        mu_min: Option<f64>,
        /// The angles `(θ₁, θ₂)` where it is attained.
        mu_min_at: Option<Vec<f64>>,
        /// Where `B < 0` on the grid.
        b_negative: BNegativeGrid,
        /// The legs' radius of gyration at which the region vanishes for this `μ`.
        rho_max: Option<f64>,
    },
}

/// The compass biped's `B < 0` region on a grid of `(θ₁, θ₂)`.
#[derive(Debug, Clone, Serialize)]
pub struct BNegativeGrid {
    /// Cells with `B < 0`.
    pub grid_cells: usize,
    /// The grid.
    pub grid: GridSpec,
    /// The range of `θ₁` over those cells (`None` if there are none).
    pub theta1_range: Option<[f64; 2]>,
    /// The range of `θ₂`.
    pub theta2_range: Option<[f64; 2]>,
}

/// A square grid of angles.
#[derive(Debug, Clone, Serialize)]
pub struct GridSpec {
    /// Smallest angle (rad).
    pub theta_min: f64,
    /// Largest angle (rad).
    pub theta_max: f64,
    /// Points per axis.
    pub points_per_axis: usize,
}

impl Painleve {
    /// Writes the command's files into `dir`: for the rimless wheel the cases of P2's Table 2.1
    /// on a grid of `(θ, θ̇)` (`cases.csv`) and `regions.png` with the sticking gait (Fig. 3.2a);
    /// for the compass biped the `B < 0` grid (`b_negative.csv`, `b_negative.png` with the gait,
    /// Fig. 4.2a), the region for several μ and ρ (`b_negative_mu.png`, `b_negative_rho.png`,
    /// Fig. 4.2e, f) and `μ_min` against ρ (`mu_min_rho.png`).
    pub fn write_files(&self, m: &WalkerModel, dir: &std::path::Path) -> Result<(), Error> {
        use crate::walking::plots;
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let (mu, sigma, s) = (self.mu, self.sigma as f64, WalkerSettings::default());
        let write = |name: &str, text: String| crate::output::write_file(dir, name, &text);
        match (m.with_mu(mu)?, &self.grid) {
            (WalkerModel::Rimless(w), _) => {
                write("cases.csv", crate::walking::painleve::rimless_cases_csv(&w, sigma, 161))?;
                let g = gait(&w, &DVector::from_element(1, rimless_closed_form(&w).1), &s);
                let gy = (g.converged && g.sticking).then(|| g.section_point[0]);
                plots::rimless_regions(&w, sigma, gy, &[], &s, &dir.join("regions.png"))?;
            }
            (WalkerModel::Compass(c), grid) => {
                if let Some(grid) = grid {
                    let mut csv = String::from("theta1,theta2,b_negative\n");
                    for (j, row) in grid.negative.iter().enumerate() {
                        for (i, &neg) in row.iter().enumerate() {
                            csv.push_str(&format!("{},{},{}\n", grid.at(i), grid.at(j), neg));
                        }
                    }
                    write("b_negative.csv", csv)?;
                }
                let g = gait(&c, &c.default_gait_guess(), &s);
                let gy = g.converged.then_some(g.section_point.as_slice());
                plots::compass_b_map(&c, sigma, gy, &s, &dir.join("b_negative.png"))?;
                plots::compass_mu_min_curve(&c, sigma, 1.25 * c.l, &dir.join("mu_min_rho.png"))?;
                // Fig. 4.2(e, f): the region for μ around the given one, and for ρ up to the leg's.
                let mus: Vec<f64> = [0.75, 0.875, 1.0, 1.125, 1.25].iter().map(|f| f * mu).collect();
                let title = "Compass biped: B < 0 for several mu";
                plots::compass_nested(&c, sigma, &mus, &[], title, &dir.join("b_negative_mu.png"))?;
                let rhos: Vec<f64> = (0..5).map(|k| 0.125 * c.l * k as f64).collect();
                let title = "Compass biped: B < 0 for several rho";
                plots::compass_nested(&c, sigma, &[], &rhos, title, &dir.join("b_negative_rho.png"))?;
            }
        }
        Ok(())
    }
}

/// Where `B < 0` (Painlevé's paradox) for slip direction `sigma = ±1`, with `mu` (default the
/// model's); the smallest `μ` with a paradox.
pub fn walker_painleve(m: &WalkerModel, mu: Option<f64>, sigma: i8) -> Result<Painleve, Error> {
    if sigma != 1 && sigma != -1 {
        return Err(arg("sigma", format!("must be 1 or -1 (got {sigma})")));
    }
    let mu = m.with_mu(mu.unwrap_or(m.mu()))?.mu();
    let sg = sigma as f64;
    Ok(match m {
        WalkerModel::Rimless(w) => {
            let mm = mu_min(w, sg, -1.5, 1.5, 301);
            let iv = b_negative_intervals(w, mu, sg, -w.half_angle(), w.half_angle(), 401);
            let summary = PainleveSummary::Rimless { mu, sigma, mu_min: mm.map(|m| m.mu_min), b_negative: iv };
            Painleve { mu, sigma, summary, grid: None }
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
            let summary = PainleveSummary::Compass {
                mu,
                sigma,
                mu_min: mm.as_ref().map(|m| m.mu_min),
                mu_min_at: mm.map(|m| m.at),
                b_negative: BNegativeGrid {
                    grid_cells: cells.len(),
                    grid: GridSpec { theta_min: lo, theta_max: hi, points_per_axis: n },
                    theta1_range: (!cells.is_empty()).then(|| bbox(|p| p.0)),
                    theta2_range: (!cells.is_empty()).then(|| bbox(|p| p.1)),
                },
                rho_max: compass_rho_max(c, mu, sg),
            };
            Painleve { mu, sigma, summary, grid: Some(grid) }
        }
    })
}

/// What `walker slip --json` prints: how the slip ended (rimless wheel: times in units of
/// `τ_c`).
#[derive(Debug, Clone, Serialize)]
pub struct SlipReport {
    /// How the slip episode ended.
    pub outcome: crate::walking::slip::SlipOutcome,
    /// When.
    pub t_end: f64,
    /// The largest normal force at the stance foot during the slip.
    pub fn_max: f64,
    /// The state `(q, q̇)` at the end.
    pub state: Vec<f64>,
    /// `A` (P2 eq. 21) at the end.
    #[serde(rename = "A")]
    pub a: f64,
    /// `B` at the end.
    #[serde(rename = "B")]
    pub b: f64,
    /// How an end at P2's corner p₁ was read (the evidence of jam, separation or corner).
    pub approach: Option<crate::walking::slip::Approach>,
}

/// What `walker slip --jam-threshold --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct JamThresholdReport {
    /// The smallest initial slip speed that jams (`None`: even `max_speed` does not).
    pub jam_threshold: Option<f64>,
}

/// A walker's slip start `(q, q̇)` (SI) from `state` in the front ends' units.
fn slip_start<W: WalkerChart<N>, const N: usize>(
    w: &W,
    state: &[f64],
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
    if state.iter().any(|x| !x.is_finite()) {
        return Err(arg("state", "every value must be a finite number"));
    }
    values_for(w.kind_name(), "state", w.slip_state_names(), state)?;
    Ok(w.slip_state_from_user(state))
}

/// A slip of the stance foot from `state` (rimless wheel `θ, θ̇, ẋ` with rates in units of
/// `1/τ_c` and `l/τ_c`; compass biped `θ₁, θ₂, θ̇₁, θ̇₂, ẋ` in SI: the walker's
/// [`WalkerChart::slip_state_names`]) until it ends (`walker slip`).
pub fn walker_slip(m: &WalkerModel, state: &[f64]) -> Result<SlipReport, Error> {
    let s = WalkerSettings::default();
    with_walker!(m, w => {
        let (q, v) = slip_start(w, state)?;
        let e = slip(w, &q, &v, &s);
        Ok(SlipReport {
            outcome: e.outcome,
            t_end: e.t_end / w.time_unit(),
            fn_max: e.fn_max,
            state: e.state,
            a: e.a_end,
            b: e.b_end,
            approach: e.approach,
        })
    })
}

/// The smallest initial slip speed up to `max_speed` (in the walker's units of speed) that jams
/// from `state` (the state's own slip speed replaced; `walker slip --jam-threshold`).
pub fn walker_jam_threshold(m: &WalkerModel, state: &[f64], max_speed: f64) -> Result<JamThresholdReport, Error> {
    let s = WalkerSettings::default();
    positive("max_speed", max_speed)?;
    let jam_threshold = with_walker!(m, w => {
        let (q, v) = slip_start(w, state)?;
        let (e_x, tc) = (w.slip_direction(), w.time_unit());
        let rest = v - e_x * e_x.dot(&v);
        jam_threshold(w, &q, &rest, &e_x, max_speed / tc, JAM_THRESHOLD_TOL, &s).map(|x| x * tc)
    });
    Ok(JamThresholdReport { jam_threshold })
}

/// Relative width of the bracket [`walker_jam_threshold`] bisects down to.
pub const JAM_THRESHOLD_TOL: f64 = 1e-5;

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
) -> Result<(Simulation, ZenoSimulationSummary), Error> {
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
/// The orbit reached from the model's initial state; a motion that never enters a constrained
/// phase is a result ("no orbit at this e"), not an error.
fn find_orbit(lag: &Lagrangian<DoublePendulumStop, 2>, p: &Pendulum, settings: &ZenoSettings) -> Orbit {
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
        let (q, v) = (SVector::<f64, 2>::new(x[0], x[1]), SVector::<f64, 2>::new(x[2], x[3]));
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
    let o = find_orbit(&Lagrangian::new(p.0), &p, &ZenoSettings::default());
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
    let y = match p3::settle(&lag, &q0, &v0, p3::SETTLE_CYCLES, p3::SETTLE_TOL, &settings) {
        Ok(y) => y,
        // No orbit to start from: an empty branch, saying why (a result, not an error).
        Err(never) => {
            return Ok(p3::Continuation { points: vec![], e_critical: None, e_failed: Some(0.0), reason: Some(never) })
        }
    };
    Ok(p3::continuation_in_e(|e| sys.with_e(e), 0.0, e_step, e_max, e_tol, &y, &settings, progress))
}

/// What `zeno continue --json` prints of a continuation.
#[derive(Debug, Clone, Serialize)]
pub struct ContinuationSummary {
    /// The largest `e` with a Zeno periodic orbit found.
    pub e_critical: Option<f64>,
    /// The smallest `e` tried beyond it where none was found.
    pub e_failed: Option<f64>,
    /// What happened there.
    pub reason: Option<crate::hybrid::section::NewtonStop>,
    /// Orbits on the branch.
    pub points: usize,
}

impl From<&Continuation> for ContinuationSummary {
    fn from(c: &Continuation) -> Self {
        ContinuationSummary {
            e_critical: c.e_critical,
            e_failed: c.e_failed,
            reason: c.reason.clone(),
            points: c.points.len(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// P4: fixtures

/// What `fixture theorem4 --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Theorem4Summary {
    /// `SS(μ) = WS(μ)`: every system inconsistent (`None` if some LP was undecided).
    pub ss_equals_ws: Option<bool>,
    /// Number of systems (32)–(35).
    pub systems: usize,
    /// LPs solved.
    pub lps: usize,
    /// Per signed-vector pair.
    pub per_sigma: Vec<SigmaCount>,
    /// Systems whose LP ended in numerical trouble.
    pub undecided: Vec<SystemId>,
    /// The Proposition 5 load built from the first consistent system, classified.
    pub proposition5: Option<Proposition5>,
}

/// Consistent systems for one pair `(σ_t, σ_o)`.
#[derive(Debug, Clone, Serialize)]
pub struct SigmaCount {
    /// `σ_t`.
    pub sigma_t: Vec<i8>,
    /// `σ_o`.
    pub sigma_o: Vec<i8>,
    /// Consistent systems.
    pub consistent: usize,
    /// Systems.
    pub systems: usize,
}

/// One system (32)–(35) by its signs and index set.
#[derive(Debug, Clone, Serialize)]
pub struct SystemId {
    /// `σ_t`.
    pub sigma_t: Vec<i8>,
    /// `σ_o`.
    pub sigma_o: Vec<i8>,
    /// `γ`, 1-based.
    pub gamma: Vec<usize>,
}

/// A load built by Proposition 5 and its classification.
#[derive(Debug, Clone, Serialize)]
pub struct Proposition5 {
    /// The system it comes from.
    #[serde(flatten)]
    pub system: SystemId,
    /// The load.
    pub load: Vec<f64>,
    /// Its classification (weakly stable, not strongly, if Proposition 5 holds).
    pub classification: stability::FixtureClass,
}

/// P4's Theorem 4 over all systems (32)–(35), with a Proposition 5 load when one is consistent
/// (`fixture theorem4`); the result and its `--json` object.
pub fn fixture_theorem4(
    f: &Fixture,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(theorem4::Theorem4, Theorem4Summary), Error> {
    let t = theorem4::theorem4(f, progress)?;
    let id = |s: &theorem4::System| SystemId {
        sigma_t: s.sigma_t.clone(),
        sigma_o: s.sigma_o.clone(),
        gamma: s.gamma.clone(),
    };
    let proposition5 = match t.consistent.first() {
        Some(sys) => {
            let load = theorem4::proposition5_load(f, sys);
            let c = stability::classify(&f.with_load(load.clone()))?;
            Some(Proposition5 {
                system: id(sys),
                load: load.iter().copied().collect(),
                classification: c.classification,
            })
        }
        None => None,
    };
    let summary = Theorem4Summary {
        ss_equals_ws: t.ss_equals_ws,
        systems: t.systems,
        lps: t.lps,
        per_sigma: t
            .per_sigma
            .iter()
            .map(|(st, so, c, n)| SigmaCount { sigma_t: st.clone(), sigma_o: so.clone(), consistent: *c, systems: *n })
            .collect(),
        undecided: t.undecided.iter().map(id).collect(),
        proposition5,
    };
    Ok((t, summary))
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
    use crate::eqset::{self, model::EqsetModel, Settings};
    within("grid", grid, EQSET_GRID)?;
    Ok(match m {
        EqsetModel::Rod { system, .. } => EqsetReport {
            analysis: eqset::analyze(system, &Settings { grid, ..Settings::for_system(system) })?,
            closed_form: ClosedForm::Rod {
                theta_hat: system.theta_hat(),
                c_star_eq23: system.c_star_eq23(),
                c_star_level_set_touching_e2: system
                    .theta_hat()
                    .map(|t| system.mass * system.gravity * system.l * (1.0 + t.cos())),
            },
        },
        EqsetModel::Block { system, .. } => EqsetReport {
            analysis: eqset::analyze(system, &Settings { grid, ..Settings::for_system(system) })?,
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
    use crate::eqset::{self as p5, plots, PortraitSettings, Settings};
    let settings = Settings::for_system(sys);
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

// ---------------------------------------------------------------------------------------------
// A user's mechanism (kind = "multibody")

/// A state `(q, q̇)` from `2n` numbers (`q` then `q̇`) or `n` numbers (`q̇ = 0`); the model's
/// initial state when `None`.
pub fn mechanism_state(m: &crate::mechanism::Mechanism, state: Option<&[f64]>) -> Result<(Vec<f64>, Vec<f64>), Error> {
    let n = m.dof();
    let (q, v) = match state {
        None => (m.q0.clone(), m.v0.clone()),
        Some(s) if s.len() == 2 * n => (s[..n].to_vec(), s[n..].to_vec()),
        Some(s) if s.len() == n => (s.to_vec(), vec![0.0; n]),
        Some(s) => {
            return Err(arg(
                "state",
                format!(
                    "needs {n} numbers (q) or {} (q then q'); the coordinates are {}; got {}",
                    2 * n,
                    m.coordinates.join(", "),
                    s.len()
                ),
            ))
        }
    };
    m.check_state("state", &q)?;
    m.check_state("state", &v)?;
    Ok((q, v))
}

/// A mechanism's dynamics at a state (`model inspect`): `M`, `h`, gaps, Jacobians, energies
/// and the finite-difference check.
pub fn model_inspect(
    m: &crate::mechanism::Mechanism,
    state: Option<&[f64]>,
    t: f64,
) -> Result<crate::mechanism::inspect::Inspection, Error> {
    let (q, v) = mechanism_state(m, state)?;
    crate::mechanism::inspect::inspect(m, t, &q, &v)
}

/// Every gait of a mechanism found from nothing (`gait`): periodic orbits of its strike-to-strike
/// map modulo its symmetry, with multipliers, `μ_stick` and the impulse ratio.
pub fn mechanism_gait(
    m: &crate::mechanism::Mechanism,
    settings: &crate::mechanism::gait::GaitSettings,
) -> Result<crate::mechanism::gait::GaitSearch, Error> {
    crate::mechanism::gait::find_gaits(m, settings)
}

/// The basin of attraction of a mechanism's gaits over a grid of one or two section
/// coordinates (`basin`): each cell's outcome after up to `settings.steps` strikes, the fraction
/// per outcome. `state` is the base post-strike state `q` then `q̇` (`None`: the most stable gait
/// found). `progress(done, total)` from worker threads.
pub fn basin(
    m: &crate::mechanism::Mechanism,
    axes: &[crate::mechanism::basin::BasinAxis],
    state: Option<&[f64]>,
    settings: &crate::mechanism::basin::BasinSettings,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<crate::mechanism::basin::Basin, Error> {
    let state = basin_state(m, state)?;
    crate::mechanism::basin::basin(m, axes, state, settings, progress)
}

/// A state split into `(q, q̇)`.
type Split<'a> = Option<(&'a [f64], &'a [f64])>;

fn basin_state<'a>(m: &crate::mechanism::Mechanism, state: Option<&'a [f64]>) -> Result<Split<'a>, Error> {
    match state {
        None => Ok(None),
        Some(x) if x.len() == 2 * m.dof() => Ok(Some(x.split_at(m.dof()))),
        Some(x) => Err(Error::argument("state", format!("needs {} numbers (q then q'), got {}", 2 * m.dof(), x.len()))),
    }
}

/// The plan of a basin (its base state and stable gaits), computed once for the chunks of a
/// basin spread over workers ([`basin_cells`]).
pub fn basin_plan(
    m: &crate::mechanism::Mechanism,
    vary: &[String],
    state: Option<&[f64]>,
    settings: &crate::mechanism::basin::BasinSettings,
) -> Result<crate::mechanism::basin::BasinPlan, Error> {
    let state = basin_state(m, state)?;
    Ok(crate::mechanism::basin::plan(m, vary, state, settings)?.0)
}

/// The cells at `points` of a basin planned by [`basin_plan`] (one chunk), in parallel.
pub fn basin_cells(
    m: &crate::mechanism::Mechanism,
    plan: &crate::mechanism::basin::BasinPlan,
    points: &[Vec<f64>],
) -> Result<Vec<crate::mechanism::basin::BasinCell>, Error> {
    crate::mechanism::basin::check_plan(m, plan)?;
    crate::mechanism::basin::basin_cells(m, plan, points, &|_, _| {})
}

/// What `continue` takes besides the model.
#[derive(Debug, Clone)]
pub struct ContinueRequest {
    /// The parameter's key ([`crate::model::param`]).
    pub param: String,
    /// Its start (`None`: the model file's value).
    pub from: Option<f64>,
    /// Its end.
    pub to: f64,
    /// The post-strike state of the gait to follow (`2n` numbers), or `None` to find it.
    pub state: Option<Vec<f64>>,
    /// Follow P3's periodic orbit through this constraint's constrained phases instead of a
    /// gait (a `multibody` model's joint limit or contact; implied for P3's pendulum).
    pub orbit: Option<String>,
    /// Step control, tolerances, doublings followed (`from`, `to` are set from the fields above).
    pub settings: crate::continuation::Settings,
    /// The gait's integration settings.
    pub gait: crate::mechanism::gait::GaitSettings,
}

/// Pseudo-arclength continuation of a model's periodic orbit in one parameter of its file
/// (`continue`): the branch with its period, multipliers, `μ_stick`, impulse ratio, least
/// Painlevé `B` and events, the special points located on it (fold, period doubling,
/// Neimark–Sacker, sticking lost, slipping strike, Painlevé onset, grazing, Zeno onset or end),
/// and the doubled branches. `progress(p)` after each point.
pub fn continuation(
    doc: &crate::model::ModelDoc,
    req: &ContinueRequest,
    progress: &dyn Fn(f64),
) -> Result<crate::continuation::Continuation, Error> {
    let kind = doc.kind()?;
    if !crate::model::registry::kinds_for("continue").contains(&kind) {
        return Err(Error::model(
            "kind",
            format!(
                "continuation takes {} models, not \"{kind}\"",
                crate::model::registry::kinds_for("continue").join(", ")
            ),
        ));
    }
    let key = crate::model::param::ParamKey::parse(&req.param)?;
    let from = match req.from {
        Some(f) => f,
        None => doc.param(&key)?,
    };
    // The first step at most the largest, and the smallest at most the first.
    let s = &req.settings;
    let step = s.step.min(s.max_step);
    let settings =
        crate::continuation::Settings { from, to: req.to, step, min_step: s.min_step.min(step), ..req.settings };
    if kind == "double-pendulum-stop" {
        // P3's pendulum: its Zeno (or simple) periodic orbit through the knee stop.
        settings.validate()?;
        let m = crate::zeno::model::from_model(&doc.with_param(&key, from)?)?;
        let ZenoModel::DoublePendulum { q0, v0, .. } = m else {
            return Err(Error::model("kind", "continuation needs a pendulum with periodic motion"));
        };
        let system = |p: f64| -> Result<DoublePendulumStop, String> {
            let d = doc.with_param(&key, p).map_err(|e| e.to_string())?;
            match crate::zeno::model::from_model(&d).map_err(|e| e.to_string())? {
                ZenoModel::DoublePendulum { system, .. } => Ok(system),
                ZenoModel::BouncingBall { .. } => Err("not a pendulum".into()),
            }
        };
        return p3::orbit_continuation(system, q0.as_slice(), v0.as_slice(), &key, &settings, progress);
    }
    if let Some(c) = &req.orbit {
        return crate::mechanism::continuation::continue_orbit(doc, &key, c, &settings, progress);
    }
    let state = match &req.state {
        None => None,
        Some(x) => {
            let m = crate::mechanism::model::from_model(doc)?;
            if x.len() != 2 * m.dof() {
                return Err(Error::argument(
                    "state",
                    format!("needs {} numbers (q then q'), got {}", 2 * m.dof(), x.len()),
                ));
            }
            Some(x.split_at(m.dof()))
        }
    };
    crate::mechanism::continuation::continue_gait(doc, &key, state, &settings, &req.gait, progress)
}

/// The event-driven simulation of a mechanism from a state (`simulate`).
pub fn simulate(
    m: &crate::mechanism::Mechanism,
    state: Option<&[f64]>,
    settings: &crate::mechanism::simulate::SimulateSettings,
) -> Result<crate::mechanism::simulate::Simulation, Error> {
    let (q, v) = mechanism_state(m, state)?;
    crate::mechanism::simulate::simulate(m, &q, &v, settings)
}

/// Painlevé's paradox at a contact of a mechanism (`painleve`): `A`, `B` and the case of P2's
/// Table 2.1 at the state, `μ_min` and the region `B < 0` over a slice of configurations, the
/// LCP of several slipping contacts.
pub fn mechanism_painleve(
    m: &crate::mechanism::Mechanism,
    state: Option<&[f64]>,
    settings: &crate::mechanism::painleve::PainleveSettings,
) -> Result<crate::mechanism::painleve::Painleve, Error> {
    let (q, v) = mechanism_state(m, state)?;
    crate::mechanism::painleve::painleve(m, &q, &v, settings)
}

/// How a slip of a mechanism's contact from a state ends (`slip`): stick, reversal,
/// separation, jam, corner, impact (times in seconds).
pub fn mechanism_slip(
    m: &crate::mechanism::Mechanism,
    state: Option<&[f64]>,
    contact: &str,
) -> Result<SlipReport, Error> {
    let (q, v) = mechanism_state(m, state)?;
    let e = crate::mechanism::painleve::slip(m, &q, &v, contact, &WalkerSettings::default())?;
    Ok(SlipReport {
        outcome: e.outcome,
        t_end: e.t_end,
        fn_max: e.fn_max,
        state: e.state,
        a: e.a_end,
        b: e.b_end,
        approach: e.approach,
    })
}

/// The smallest initial slip speed of a mechanism's contact (m/s) up to `max_speed` that jams
/// from a state, its own slip speed replaced (`slip --jam-threshold`;
/// [`crate::mechanism::painleve::jam_threshold`] says along which direction of the velocities).
pub fn mechanism_jam_threshold(
    m: &crate::mechanism::Mechanism,
    state: Option<&[f64]>,
    contact: &str,
    along: Option<&str>,
    max_speed: f64,
) -> Result<JamThresholdReport, Error> {
    let (q, v) = mechanism_state(m, state)?;
    let s = WalkerSettings::default();
    let jam_threshold = crate::mechanism::painleve::jam_threshold(m, &q, &v, contact, along, max_speed, &s)?;
    Ok(JamThresholdReport { jam_threshold })
}

/// P3's periodic orbit of a mechanism through the constrained phases of `constraint` (a joint
/// limit or contact), reached from a state (`orbit`).
pub fn mechanism_orbit(
    m: &crate::mechanism::Mechanism,
    state: Option<&[f64]>,
    constraint: &str,
) -> Result<crate::mechanism::zeno_orbit::ConstraintOrbit, Error> {
    let (q, v) = mechanism_state(m, state)?;
    crate::mechanism::zeno_orbit::constraint_orbit(m, &q, &v, constraint)
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
    fn settings_validate_names_the_setting() {
        assert!(WalkerSettings::default().validate().is_ok());
        let e = WalkerSettings { max_newton: 0, ..Default::default() }.validate().unwrap_err();
        assert!(matches!(&e, Error::Argument { name, .. } if name == "max_newton"), "{e}");
        let e = WalkerSettings { rtol: f64::NAN, ..Default::default() }.validate().unwrap_err();
        assert!(matches!(&e, Error::Argument { name, .. } if name == "rtol"), "{e}");
        // The gait search stops before any work, with the setting named and no numbers.
        let w = crate::mechanics::walkers::RimlessWheel::paper(0.6);
        let g = gait(&w, &DVector::from_vec(vec![0.3]), &WalkerSettings { max_newton: 0, ..Default::default() });
        assert!(!g.converged && !g.sticking && g.period.is_nan() && g.pre_impact_state.is_empty());
        assert!(
            matches!(&g.reason, Some(crate::hybrid::section::NewtonStop::InvalidSetting { name, .. }) if name == "max_newton"),
            "{:?}",
            g.reason
        );
    }

    #[test]
    fn bad_options_are_argument_errors() {
        assert!(matches!(positive("t_max", f64::NAN), Err(Error::Argument { .. })));
        assert!(matches!(positive("t_max", 0.0), Err(Error::Argument { .. })));
        assert_eq!(positive("t_max", 2.0).unwrap(), 2.0);
    }
}
