//! `contactlab simulate`: the event-driven hybrid core on any mechanism — contact modes
//! (free, stick, slip), impacts, Zeno completion, walking rules — with the trajectory, the
//! event log, energies and plots.

use std::ops::ControlFlow;
use std::path::Path;

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::{Mechanism, MechanismSummary};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::lagrangian::{join, split, Lagrangian, Modes};
use crate::hybrid::{DriverSettings, EventDriver, EventKind, Observer, Step, Termination, Tolerances, ZenoRule};
use crate::mechanics::multibody_system::MultibodySystem;
use crate::mechanics::ContactSystem;
use crate::plot::{Mark, XyPlot};
use crate::Error;

/// Settings of a simulation.
#[derive(Debug, Clone, Copy)]
pub struct SimulateSettings {
    /// End time (s).
    pub t_max: f64,
    /// Largest number of events.
    pub max_events: usize,
    /// Relative integration tolerance (absolute tolerances follow the model's scales).
    pub rtol: f64,
    /// Samples inside each integration step (besides its end).
    pub per_step: usize,
}

impl Default for SimulateSettings {
    fn default() -> Self {
        Self { t_max: 5.0, max_events: 10_000, rtol: 1e-10, per_step: 4 }
    }
}

/// Most samples a trajectory keeps per integration step.
pub const MAX_PER_STEP: usize = 1000;

impl SimulateSettings {
    /// Checks every setting (an [`Error::Argument`] names the first out of range).
    pub fn validate(&self) -> Result<(), Error> {
        use crate::error::{at_least_one, fraction, positive};
        positive("t_max", self.t_max)?;
        at_least_one("max_events", self.max_events)?;
        fraction("rtol", self.rtol)?;
        if self.per_step > MAX_PER_STEP {
            return Err(Error::argument("per_step", format!("must be at most {MAX_PER_STEP} (got {})", self.per_step)));
        }
        Ok(())
    }
}

/// One sample of the trajectory.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Time (s).
    pub t: f64,
    /// `q`.
    pub q: Vec<f64>,
    /// `q̇`.
    pub v: Vec<f64>,
    /// Contact modes (`F` free, `S` stick, `P`/`N` slip in `±x`, `C` closed frictionless).
    pub modes: String,
    /// Each contact's gap `g` (m; radians for a joint limit), in the model's order (contacts,
    /// then limits).
    pub gaps: Vec<f64>,
    /// Kinetic energy (J).
    pub kinetic: f64,
    /// Potential energy (J), for conservative forces.
    pub potential: Option<f64>,
}

/// One event.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// Time (s).
    pub t: f64,
    /// What happened.
    pub kind: EventKind,
    /// The contact involved (its name).
    pub contact: Option<String>,
    /// Modes before.
    pub modes_before: String,
    /// Modes after.
    pub modes_after: String,
    /// Approach speed of an impact.
    pub impact_speed: Option<f64>,
    /// Kinetic energy lost in an impact (J).
    pub energy_loss: Option<f64>,
    /// `q` after the event.
    pub q: Vec<f64>,
    /// `q̇` after the event.
    pub v: Vec<f64>,
}

/// A simulation.
#[derive(Debug, Clone, Serialize)]
pub struct Simulation {
    /// The model's names.
    pub model: MechanismSummary,
    /// How the run ended.
    pub termination: Termination,
    /// End time (s).
    pub t_end: f64,
    /// Number of events by kind.
    pub impacts: usize,
    /// Zeno points.
    pub zeno_points: usize,
    /// Stick/slip transitions (onsets and stops).
    pub slip_events: usize,
    /// Lift-offs.
    pub lift_offs: usize,
    /// Energy at the start and at the end (J), for conservative forces.
    pub energy: Option<[f64; 2]>,
    /// The events.
    pub events: Vec<Event>,
    /// The trajectory (not in the JSON summary: the CSV has it).
    #[serde(skip)]
    pub samples: Vec<Sample>,
}

impl Simulation {
    /// The least gap of contact `contact` (its index) over the samples before time `until` where
    /// `keep` holds, after its gap first stops rising there (a swing foot's lowest point in
    /// mid-swing, past its lift-off from the line); `None` without such samples.
    pub fn least_gap_after_rise(&self, contact: usize, until: f64, keep: impl Fn(&Sample) -> bool) -> Option<f64> {
        let gaps: Vec<f64> = self
            .samples
            .iter()
            .filter(|r| r.t < until && keep(r))
            .filter_map(|r| r.gaps.get(contact).copied())
            .collect();
        let first_down = gaps.windows(2).position(|w| w[1] <= w[0]).unwrap_or(gaps.len().saturating_sub(1));
        gaps.get(first_down..)?.iter().copied().reduce(f64::min)
    }
}

/// Simulates `m` from `(q₀, q̇₀)`.
pub fn simulate(m: &Mechanism, q0: &[f64], v0: &[f64], settings: &SimulateSettings) -> Result<Simulation, Error> {
    settings.validate()?;
    m.check_state("q", q0)?;
    m.check_state("v", v0)?;
    Ok(Run { m, q0, v0, settings }.run(m.system()?))
}

struct Run<'a> {
    m: &'a Mechanism,
    q0: &'a [f64],
    v0: &'a [f64],
    settings: &'a SimulateSettings,
}

struct Rec<'a> {
    sys: &'a MultibodySystem,
    names: &'a [String],
    per_step: usize,
    samples: Vec<Sample>,
    events: Vec<Event>,
}

impl Rec<'_> {
    fn push(&mut self, t: f64, x: &DMatrix<f64>, mode: &Modes) {
        let (q, v) = split(x);
        self.samples.push(Sample {
            t,
            q: q.iter().copied().collect(),
            v: v.iter().copied().collect(),
            modes: mode.to_string(),
            gaps: (0..self.sys.contact_count()).map(|i| self.sys.gap(i, &q)).collect(),
            kinetic: self.sys.kinetic_energy(&q, &v),
            potential: self.sys.potential(&q),
        });
    }
}

impl Observer<DMatrix<f64>, Modes> for Rec<'_> {
    fn on_start(&mut self, t: f64, x: &DMatrix<f64>, mode: &Modes) {
        self.push(t, x, mode);
    }
    fn on_step(&mut self, step: &Step<DMatrix<f64>>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
        for (t, x) in step.samples(t_end, self.per_step + 1) {
            self.push(t, &x, mode);
        }
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<DMatrix<f64>, Modes>) -> ControlFlow<()> {
        if ev.info.kind == EventKind::Section {
            return ControlFlow::Continue(());
        }
        let (q, v) = split(&ev.after);
        self.events.push(Event {
            t: ev.t,
            kind: ev.info.kind,
            contact: ev.info.contact.and_then(|c| self.names.get(c).cloned()),
            modes_before: ev.mode_before.to_string(),
            modes_after: ev.mode_after.to_string(),
            impact_speed: ev.info.impact_speed,
            energy_loss: ev.info.energy_loss,
            q: q.iter().copied().collect(),
            v: v.iter().copied().collect(),
        });
        self.push(ev.t, &ev.after, &ev.mode_after);
        ControlFlow::Continue(())
    }
}

impl Run<'_> {
    fn run(self, sys: MultibodySystem) -> Simulation {
        let s = self.settings;
        let q0 = DVector::<f64>::from_column_slice(self.q0);
        let v0 = DVector::<f64>::from_column_slice(self.v0);
        let driver = EventDriver::new(DriverSettings {
            tol: Tolerances { rtol: s.rtol, atol: s.rtol },
            t_max: s.t_max,
            max_events: s.max_events,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            ..Default::default()
        });
        let lag = Lagrangian::new(&sys);
        let mut rec =
            Rec { sys: &sys, names: &self.m.contact_names, per_step: s.per_step, samples: vec![], events: vec![] };
        let run = driver.run(&lag, 0.0, join(&q0, &v0), &[], &mut rec);
        let count = |k: &[EventKind]| rec.events.iter().filter(|e| k.contains(&e.kind)).count();
        let energy = |x: &Sample| x.potential.map(|p| p + x.kinetic);
        let e = match (rec.samples.first().and_then(energy), rec.samples.last().and_then(energy)) {
            (Some(a), Some(b)) => Some([a, b]),
            _ => None,
        };
        Simulation {
            model: self.m.summary(),
            termination: run.termination,
            t_end: rec.samples.last().map_or(0.0, |x| x.t),
            impacts: count(&[EventKind::Impact]),
            zeno_points: count(&[EventKind::Zeno]),
            slip_events: count(&[EventKind::SlipOnset, EventKind::SlipStop]),
            lift_offs: count(&[EventKind::LiftOff]),
            energy: e,
            events: rec.events,
            samples: rec.samples,
        }
    }
}

/// Frames per second of [`Simulation::write_animation`]'s GIF (real time up to
/// [`GIF_MAX_FRAMES`] frames; a longer run plays faster).
pub const GIF_FPS: f64 = 25.0;

/// Largest number of frames of the animation.
pub const GIF_MAX_FRAMES: usize = 250;

/// An animation of the times `t0..t1`: its number of frames ([`GIF_FPS`] of simulated time, at
/// most [`GIF_MAX_FRAMES`]), the simulated time between frames and each frame's delay (ms).
pub(crate) fn gif_timing(t0: f64, t1: f64) -> (usize, f64, u32) {
    let frames = (((t1 - t0) * GIF_FPS).ceil() as usize + 1).clamp(1, GIF_MAX_FRAMES);
    let dt = if frames > 1 { (t1 - t0) / (frames - 1) as f64 } else { 0.0 };
    let delay_ms = ((1000.0 * dt).round() as u32).clamp(20, 1000 / GIF_FPS as u32);
    (frames, dt, delay_ms)
}

impl Simulation {
    /// Writes the animation of the run as a GIF at `path`: each body its `shape` if the model
    /// gives one, else the convex hull of its joint, its children's joints, its contact points and
    /// its centre of mass (a dot); the supports' lines; closed contacts highlighted.
    pub fn write_animation(&self, m: &Mechanism, path: &Path) -> Result<(), Error> {
        use crate::mechanics::multibody_system::Constraint;
        use crate::plot::animation::{save_gif, Scene, Support};
        use nalgebra::Vector2;
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return Err(Error::Output(format!("{}: no samples to animate", path.display())));
        };
        let (t0, t1) = (first.t, last.t);
        let (frames, dt, delay_ms) = gif_timing(t0, t1);
        let tree = &m.tree;
        let bodies = tree.bodies();
        let zeros = vec![0.0; m.dof()];
        let name = m.name.clone().unwrap_or_default();
        let mut scenes = Vec::with_capacity(frames);
        let mut i = 0;
        for k in 0..frames {
            let t = t0 + dt * k as f64;
            while i + 1 < self.samples.len() && self.samples[i + 1].t <= t {
                i += 1;
            }
            let smp = &self.samples[i];
            let f = tree.frames(&smp.q, &zeros);
            let at = |b: usize, x: &Vector2<f64>| {
                let p = f.position[b] + f.offset(b, x);
                (p.x, p.y)
            };
            let mut points: Vec<Vec<(f64, f64)>> = (0..bodies.len()).map(|b| vec![at(b, &Vector2::zeros())]).collect();
            for (b, body) in bodies.iter().enumerate() {
                if let Some(p) = body.parent {
                    let joint = at(b, &Vector2::zeros());
                    points[p].push(joint);
                }
            }
            let mut marks = vec![];
            for (c, ct) in m.contacts.iter().enumerate() {
                if let Constraint::PointOnLine { body, point, .. } = ct.constraint {
                    let x = at(body, &point);
                    points[body].push(x);
                    if smp.modes.as_bytes().get(c).is_some_and(|&ch| ch != b'F') {
                        marks.push(x);
                    }
                }
            }
            let mut dots = vec![];
            for (b, body) in bodies.iter().enumerate() {
                if body.mass > 0.0 {
                    let c = at(b, &body.com);
                    points[b].push(c);
                    dots.push(c);
                }
            }
            for (b, shape) in m.shapes.iter().enumerate() {
                if let Some(shape) = shape {
                    points[b] = shape.iter().map(|x| at(b, x)).collect();
                }
            }
            scenes.push(Scene {
                title: format!("{name}  t = {t:.3} s"),
                polygons: points
                    .into_iter()
                    .enumerate()
                    .map(|(b, p)| if m.shapes.get(b).is_some_and(Option::is_some) { p } else { hull(p) })
                    .collect(),
                dots,
                marks,
            });
        }
        let mut supports: Vec<Support> = vec![];
        for ct in &m.contacts {
            if let Constraint::PointOnLine { line_point, normal, .. } = ct.constraint {
                let s = Support { point: (line_point.x, line_point.y), normal: (normal.x, normal.y) };
                let same = |o: &Support| {
                    (o.normal.0 - s.normal.0).abs() < 1e-12
                        && (o.normal.1 - s.normal.1).abs() < 1e-12
                        && ((s.point.0 - o.point.0) * s.normal.0 + (s.point.1 - o.point.1) * s.normal.1).abs() < 1e-12
                };
                if !supports.iter().any(same) {
                    supports.push(s);
                }
            }
        }
        save_gif(&scenes, &supports, path, (480, 400), delay_ms)
    }

    /// Writes `trajectory.csv` (t, q, q̇, modes, energies), `events.csv` and `time.png`
    /// (coordinates against time, impacts marked) into `dir`.
    pub fn write_files(&self, dir: &Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let names = &self.model.coordinates;
        let mut header: Vec<String> = vec!["t".into()];
        header.extend(names.iter().cloned());
        header.extend(names.iter().map(|c| format!("{c}_dot")));
        header.extend(["modes", "kinetic", "potential"].map(String::from));
        let rows: Vec<Vec<String>> = self
            .samples
            .iter()
            .map(|s| {
                let mut r = vec![s.t.to_string()];
                r.extend(s.q.iter().chain(&s.v).map(f64::to_string));
                r.push(s.modes.clone());
                r.push(s.kinetic.to_string());
                r.push(s.potential.map_or_else(String::new, |p| p.to_string()));
                r
            })
            .collect();
        let h: Vec<&str> = header.iter().map(String::as_str).collect();
        crate::output::write_csv(dir, "trajectory.csv", &h, &rows)?;
        let rows: Vec<Vec<String>> = self
            .events
            .iter()
            .map(|e| {
                vec![
                    e.t.to_string(),
                    crate::output::kebab(&e.kind),
                    e.contact.clone().unwrap_or_default(),
                    e.modes_before.clone(),
                    e.modes_after.clone(),
                    e.impact_speed.map_or_else(String::new, |x| x.to_string()),
                    e.energy_loss.map_or_else(String::new, |x| x.to_string()),
                ]
            })
            .collect();
        crate::output::write_csv(
            dir,
            "events.csv",
            &["t", "kind", "contact", "modes_before", "modes_after", "impact_speed", "energy_loss"],
            &rows,
        )?;
        let title = self.model.name.clone().unwrap_or_else(|| "simulation".into());
        let mut p = XyPlot::new(title, "time t (s)", "coordinates (rad or m)");
        for (k, name) in names.iter().enumerate() {
            p = p.add_colored(name.clone(), self.samples.iter().map(|s| (s.t, s.q[k])).collect(), Mark::Line, k);
        }
        let impacts: Vec<(f64, f64)> =
            self.events.iter().filter(|e| e.kind == EventKind::Impact).map(|e| (e.t, e.q[0])).collect();
        if !impacts.is_empty() {
            p = p.add("impacts", impacts, Mark::Squares);
        }
        p.save(&dir.join("time.png"))
    }
}

/// The convex hull of `p` (monotone chain), counter-clockwise; fewer than three distinct points,
/// or collinear ones, give the segment between the extreme points.
fn hull(mut p: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut h: Vec<(f64, f64)> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = h.len();
        let pts: Box<dyn Iterator<Item = &(f64, f64)>> =
            if pass == 0 { Box::new(p.iter()) } else { Box::new(p.iter().rev()) };
        for &x in pts {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], x) <= 0.0 {
                h.pop();
            }
            h.push(x);
        }
        h.pop();
    }
    if h.len() < 3 {
        return vec![p[0], p[p.len() - 1]];
    }
    h
}

#[cfg(test)]
mod hull_tests {
    use super::hull;

    #[test]
    fn hulls_of_squares_segments_and_points() {
        let sq = hull(vec![(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0)]);
        assert_eq!(sq, vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]);
        assert_eq!(hull(vec![(0.0, 0.0), (2.0, 2.0), (1.0, 1.0)]), vec![(0.0, 0.0), (2.0, 2.0)]);
        assert_eq!(hull(vec![(3.0, 1.0), (3.0, 1.0)]), vec![(3.0, 1.0)]);
    }
}
