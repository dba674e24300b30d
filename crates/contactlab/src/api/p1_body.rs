//! P1 (Or & Várkonyi): the planar body on two contacts.

use super::*;

/// The contact-mode analysis at the equilibrium (`equilibrium modes`).
#[derive(Debug, Clone, Serialize)]
pub struct P1Modes {
    /// Equilibrium, ambiguity, Painlevé-freeness and persistence.
    pub analysis: EquilibriumModes,
    /// `k` with `ẋ₁ = k ẋ₂` while both contacts are held.
    pub k: f64,
    /// Every consistent mode at rest, with its forces and accelerations.
    pub modes: Vec<BodyModeSolution>,
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
pub fn p1_classify(p: &TwoContact, samples: usize) -> Result<crate::twocontact::classify::ConfigClassification, Error> {
    within("samples", samples, MAP_SAMPLES)?;
    let mut c = crate::twocontact::classify::classify(p, samples)?;
    c.proof = Some(crate::twocontact::proof::prove_verdict(p, &c));
    Ok(c)
}

/// P1's maps `R`, `G` at the impact angles `phi` (each in `(−π/2, π/2)`), in parallel.
pub fn p1_maps_at(p: &TwoContact, phi: &[f64]) -> Result<Vec<MapPoint>, Error> {
    poincare::maps_at(&Simulator::new(Zod::new(p)?)?, phi)
}

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

/// P1's contact modes at the equilibrium under the zero-order dynamics.
pub fn p1_modes(p: &TwoContact) -> Result<P1Modes, Error> {
    let z = Zod::new(p)?;
    let analysis = modes::analyze(&z)?;
    let modes = all_modes()
        .into_iter()
        .filter_map(|m| solve_mode(&z, m, [ContactPointState::Rest, ContactPointState::Rest]))
        .collect();
    Ok(P1Modes { analysis, k: z.k(), modes })
}

/// P1's maps `R`, `G` on `samples` angles (in [`MAP_SAMPLES`]) with their fixed points.
pub fn p1_maps(p: &TwoContact, samples: usize) -> Result<P1Maps, Error> {
    within("samples", samples, MAP_SAMPLES)?;
    let sim = Simulator::new(Zod::new(p)?)?;
    poincare::maps(&sim, samples)
}

/// The perturbation `KEY=VALUE,...` (keys `z1`, `z2`, `x2` in m, `zd1`, `zd2`, `xd2` in m/s;
/// unspecified values are 0) as a state of the zero-order dynamics.
pub fn p1_perturbation(spec: &str) -> Result<SimState, Error> {
    let mut st = SimState { q: [0.0; 3], qd: [0.0; 3] };
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
    pub zod: BodyTrajectory,
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
            impacts: tr.events.iter().filter(|e| e.kind == BodyEventKind::Impact).count(),
            zeno_times: tr.zeno_times(),
            nonlinear: NonlinearSummary {
                outcome: nl.outcome,
                t_end: self.nonlinear_t_end(),
                events: nl.events.len(),
                impacts: nl.events.iter().filter(|e| e.1 == BodyEventKind::Impact).count(),
                zeno_times: nl.events.iter().filter(|e| e.1 == BodyEventKind::Zeno).map(|e| e.0).collect(),
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
    pub outcome: crate::twocontact::sim::BodyOutcome,
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
    pub outcome: crate::twocontact::sim::BodyOutcome,
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
pub fn p1_simulate(p: &TwoContact, start: SimState, t_max: f64, max_events: usize) -> Result<P1Simulation, Error> {
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
