//! Gaits of robots in 3-D: a periodic orbit of the map from one strike (an impact of a collision
//! shape; the joints' stops are held, and a stop's impact is not a strike) to the next,
//! modulo the symmetries a scene's `[gait]` table states, found by Newton's method on the
//! configuration manifold ([`crate::spatial::section`]) from where the passive motion settles,
//! with its Floquet multipliers (exact: [`crate::spatial::events::variational`]).

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::spatial::SpatialModel;
use crate::hybrid::driver::{EventRecord, PoincareSection};
use crate::hybrid::section::{Derivatives, JacobianRoute, ReturnMap, SectionChart};
use crate::hybrid::{DriverSettings, EventDriver, EventKind, Observer, Tolerances, ZenoRule};
use crate::multibody::gait::GaitSettings;
use crate::spatial::algebra::Vec3;
use crate::spatial::events::{EventScene, Modes3};
use crate::spatial::section::{BodySymmetry, MirrorSymmetry, SpatialChart, Symmetry};
use crate::Error;

/// A scene's `[gait]` table (docs/models.md, "Gaits in 3-D").
#[derive(Debug, Clone, PartialEq)]
pub struct GaitSpec3 {
    /// Velocity indices (tangent coordinates) the translation symmetry shifts: a floating
    /// base's position along the ground.
    pub translation: Vec<usize>,
    /// A body-fixed rotation symmetry: the body, the axis (body axes) and the order.
    pub symmetry: Option<(usize, Vec3, usize)>,
    /// A mirror symmetry: the plane's normal (world axes) and the pairs of bodies it swaps.
    pub mirror: Option<(Vec3, Vec<(usize, usize)>)>,
    /// Strikes simulated before Newton's method starts (0: the state given is right after a
    /// strike, a gait's state warm-starting a continuation).
    pub settle: usize,
}

/// A multiplier this near 1 is reported as neutral ([`SpatialGait::neutral`]).
pub const NEUTRAL_TOL: f64 = 1e-6;

/// A 3-D gait (or why none was found: then every number is `None`, null in JSON).
#[derive(Debug, Clone, Serialize)]
pub struct SpatialGait {
    /// The file.
    pub path: String,
    /// Whether Newton's method converged.
    pub converged: bool,
    /// Why not, when it did not.
    pub reason: Option<String>,
    /// The chart's coordinates: tangent displacements `d.NAME` from the reference state and
    /// velocities `NAME` (module docs of [`crate::spatial::section`]); empty when the motion
    /// never struck.
    pub coordinates: Vec<String>,
    /// The fixed point in those coordinates.
    pub y: Option<Vec<f64>>,
    /// `‖P(y) − y‖` in the chart's scales.
    pub residual: Option<f64>,
    /// Newton iterations.
    pub iterations: usize,
    /// Strikes simulated before Newton's method.
    pub strikes_settled: usize,
    /// The step's period (s).
    pub period: Option<f64>,
    /// Floquet multipliers `(re, im)`, largest modulus first.
    pub multipliers: Option<Vec<[f64; 2]>>,
    /// Largest modulus.
    pub max_modulus: Option<f64>,
    /// Whether every multiplier is inside the unit circle and none is neutral.
    pub stable: bool,
    /// Multipliers within [`NEUTRAL_TOL`] of 1 (indices into `multipliers`): a direction
    /// along which the gait is neutral to first order (a rimless wheel's heading on a slope),
    /// which the multipliers alone cannot decide.
    pub neutral: Vec<usize>,
    /// Whether every multiplier but the neutral ones is inside the unit circle.
    pub stable_but_neutral: bool,
    /// How the Jacobian was obtained.
    pub derivatives: JacobianRoute,
    /// The state right after the strike: configuration (`nq`, the file's coordinates).
    pub q: Option<Vec<f64>>,
    /// Velocities (`nv`).
    pub v: Option<Vec<f64>>,
    /// No proof (`"proof": "none"` with `"proof_reason"`): Newton's fixed point and its
    /// multipliers are floating point (the planar rimless wheel's gait has an interval proof).
    #[serde(flatten)]
    pub proof: crate::verified::Proof,
}

impl SpatialGait {
    /// The multipliers found (none without a gait).
    pub fn multipliers_found(&self) -> &[[f64; 2]] {
        self.multipliers.as_deref().unwrap_or(&[])
    }

    /// The gait's post-strike state `q` then `v` (`None` without a gait).
    pub fn state(&self) -> Option<Vec<f64>> {
        Some(self.q.as_ref()?.iter().chain(self.v.as_ref()?).copied().collect())
    }

    /// No gait, for `reason`: every number `None`.
    fn none(path: &str, reason: String, strikes_settled: usize, derivatives: JacobianRoute) -> Self {
        Self {
            path: path.to_string(),
            converged: false,
            reason: Some(reason),
            coordinates: vec![],
            y: None,
            residual: None,
            iterations: 0,
            strikes_settled,
            period: None,
            multipliers: None,
            max_modulus: None,
            stable: false,
            neutral: vec![],
            stable_but_neutral: false,
            derivatives,
            q: None,
            v: None,
            proof: crate::verified::Proof::none(GAIT_NOT_PROVED),
        }
    }
}

/// Why a 3-D gait carries no proof.
const GAIT_NOT_PROVED: &str = "Newton's fixed point and its multipliers are computed in floating point (exact \
     derivatives, no interval enclosure of the return map in 3-D yet)";

impl SpatialGait {
    /// Writes, with a gait, `gait.gif`: three of its steps from its post-strike state, run by the
    /// event driver (as `simulate --out` animates a run) and drawn from `view`.
    pub fn write_animation(
        &self,
        m: &SpatialModel,
        dir: &std::path::Path,
        view: crate::plot::render3d::View3,
    ) -> Result<(), Error> {
        let (Some(x), Some(period)) = (self.state(), self.period) else { return Ok(()) };
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let s = super::spatial::SimulateSettings { t_max: 3.0 * period, ..Default::default() };
        let run = super::spatial::spatial_simulate_with(m, Some(&x), &s, &mut |_| {})?;
        super::spatial::spatial_animation(m, &run, view, &dir.join("gait.gif"))
    }
}

/// Collects the states right after the first `want` strikes, then stops the run.
pub(crate) struct Strikes<'a> {
    /// Strikes wanted.
    pub(crate) want: usize,
    /// The contacts whose impacts are strikes (the shapes', not the joints' stops).
    pub(crate) feet: &'a [usize],
    /// The states right after them.
    pub(crate) after: Vec<DMatrix<f64>>,
}

impl Observer<DMatrix<f64>, Modes3> for Strikes<'_> {
    fn on_event(&mut self, ev: &EventRecord<DMatrix<f64>, Modes3>) -> ControlFlow<()> {
        if ev.info.kind == EventKind::Impact && ev.info.contact.is_some_and(|c| self.feet.contains(&c)) {
            self.after.push(ev.after.clone());
            if self.after.len() >= self.want {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

/// The event driver of the gait runs (Zeno series extrapolated).
pub(crate) fn driver(rtol: f64, t_max: f64) -> EventDriver {
    EventDriver {
        settings: DriverSettings {
            tol: Tolerances { rtol, atol: rtol },
            t_max,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            ..DriverSettings::default()
        },
    }
}

/// The symmetry a `[gait]` table states, built (and checked) on `sys`.
pub(crate) fn symmetry_of(spec: &GaitSpec3, sys: &EventScene) -> Result<Option<Symmetry>, Error> {
    Ok(match (&spec.symmetry, &spec.mirror) {
        (Some((body, axis, order)), _) => Some(BodySymmetry::new(sys, *body, *axis, *order)?.into()),
        (None, Some((normal, pairs))) => Some(MirrorSymmetry::new(sys, *normal, pairs)?.into()),
        (None, None) => None,
    })
}

/// The gait of a 3-D scene with a `[gait]` table from `state` (default its `[initial]`): the
/// passive motion runs `settle` strikes, and from the state after the last Newton's method on
/// the strike-to-strike map (module docs) looks for a fixed point.
pub(crate) fn spatial_gait(m: &SpatialModel, state: Option<&[f64]>, s: &GaitSettings) -> Result<SpatialGait, Error> {
    use crate::error::{at_least_one, fraction, positive};
    let spec = m.gait.as_ref().ok_or_else(|| {
        Error::input(
            &m.path,
            "gait",
            "no [gait] table: a scene file states what a step is taken modulo (docs/models.md, \"Gaits in 3-D\")",
        )
    })?;
    fraction("rtol", s.rtol)?;
    positive("newton_tol", s.newton_tol)?;
    at_least_one("max_newton", s.max_newton)?;
    positive("max_step_time", s.max_step_time)?;
    let (mut q, v) = super::spatial::spatial_state(m, state)?;
    let scene = m.scene(None, 0.0);
    // The joints' stops are held (a start past one is put on it, as `simulate` does).
    crate::spatial::timestep::clamp_to_limits(&scene.limits, &mut q);
    let sys = EventScene::with_stops(&scene, &q)?;
    let feet = sys.shape_contacts();
    let x0 = DMatrix::from_iterator(q.len() + v.len(), 1, q.iter().chain(&v).copied());
    let x0_given = x0.clone();
    // The passive motion: `settle` strikes, bounded in time by a strike every `max_step_time`
    // time scales.
    let mut strikes = Strikes { want: spec.settle, feet: &feet, after: vec![] };
    let t_max = s.max_step_time * sys.time() * spec.settle.max(1) as f64;
    let run = if spec.settle == 0 { None } else { Some(driver(s.rtol, t_max).run(&sys, 0.0, x0, &[], &mut strikes)) };
    // A motion that never strikes (it comes to rest, or falls without a strike) has no gait:
    // a result, not an error.
    // `settle = 0`: the state given is a strike's (a gait's, warm-starting a continuation).
    let xs = if spec.settle == 0 { Some(x0_given.clone()) } else { strikes.after.last().cloned() };
    let Some(xs) = xs else {
        let why = format!(
            "the motion never strikes (its run ended: {})",
            run.as_ref().map_or_else(String::new, |r| crate::output::kebab(&r.termination))
        );
        let route = match s.derivatives {
            Derivatives::Exact => JacobianRoute::Variational,
            Derivatives::Differences => JacobianRoute::Differences("asked for".into()),
        };
        return Ok(SpatialGait::none(&m.path, why, 0, route));
    };
    let chart = SpatialChart::new(&sys, &xs, &spec.translation, symmetry_of(spec, &sys)?);
    let coordinates = chart.names(&m.velocities);
    let y0 = chart.chart(&xs);
    let map = ReturnMap {
        system: &sys,
        section: PoincareSection::AfterEventOf { kind: EventKind::Impact, contacts: &feet },
        chart,
        driver: driver(s.rtol, s.max_step_time * sys.time()),
        derivatives: s.derivatives,
    };
    let mut fp = map.fixed_point(&y0, s.newton_tol, s.max_newton);
    fp.require_step(sys.time());
    if !fp.converged {
        let why = fp.reason.as_ref().map_or_else(|| "Newton's method did not converge".into(), |r| r.to_string());
        let mut g = SpatialGait::none(&m.path, why, strikes.after.len(), fp.derivatives);
        g.coordinates = coordinates;
        g.iterations = fp.iterations;
        return Ok(g);
    }
    let x = map.chart.lift(&DVector::from_column_slice(&fp.y));
    let (nq, n) = (m.tree.nq(), x.nrows());
    let modulus = |z: &[f64; 2]| z[0].hypot(z[1]);
    let neutral: Vec<usize> = (0..fp.multipliers.len())
        .filter(|&k| (fp.multipliers[k][0] - 1.0).hypot(fp.multipliers[k][1]) <= NEUTRAL_TOL)
        .collect();
    let stable_but_neutral = fp.multipliers.iter().enumerate().all(|(k, z)| neutral.contains(&k) || modulus(z) < 1.0);
    Ok(SpatialGait {
        path: m.path.clone(),
        converged: true,
        reason: None,
        coordinates,
        y: Some(fp.y.clone()),
        residual: Some(fp.residual),
        iterations: fp.iterations,
        strikes_settled: strikes.after.len(),
        period: Some(fp.period),
        stable: stable_but_neutral && neutral.is_empty(),
        neutral,
        stable_but_neutral,
        max_modulus: Some(fp.spectral_radius),
        multipliers: Some(fp.multipliers),
        derivatives: fp.derivatives,
        q: Some(x.as_slice()[..nq].to_vec()),
        v: Some(x.as_slice()[nq..n].to_vec()),
        proof: crate::verified::Proof::none(GAIT_NOT_PROVED),
    })
}
