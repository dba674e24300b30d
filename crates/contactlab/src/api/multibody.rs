//! A user's mechanism (`kind = "multibody"`).

use super::*;

/// A state `(q, q̇)` from `2n` numbers (`q` then `q̇`) or `n` numbers (`q̇ = 0`); the model's
/// initial state when `None`.
pub(crate) fn mechanism_state(
    m: &crate::multibody::Mechanism,
    state: Option<&[f64]>,
) -> Result<(Vec<f64>, Vec<f64>), Error> {
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

/// The basin of attraction of a mechanism's gaits over a grid of one or two section
/// coordinates (`basin`): each cell's outcome after up to `settings.steps` strikes, the fraction
/// per outcome. A planar mechanism's grid lies on its gait's section (`state`: the base
/// post-strike state `q` then `q̇`; `None`: the most stable gait found); a 3-D scene's on its
/// gait's chart (tangent displacements `d.NAME` and velocities `NAME`, each cell lifted onto the
/// section; `state` as the 3-D `gait` takes it; a robot without a `[gait]` table is told what it
/// needs). `progress(done, total)`
/// from worker threads.
pub fn basin(
    m: &MechanismModel,
    axes: &[crate::multibody::basin::BasinAxis],
    state: Option<&[f64]>,
    settings: &crate::multibody::basin::BasinSettings,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<crate::multibody::basin::Basin, Error> {
    match m {
        MechanismModel::Planar(m) => {
            let state = basin_state(m, state)?;
            crate::multibody::basin::basin(m, axes, state, settings, progress)
        }
        MechanismModel::Spatial(m) => {
            walks(m, "basin")?;
            super::spatial_basin::spatial_basin(m, axes, state, settings, progress)
        }
    }
}

/// A state split into `(q, q̇)`.
type Split<'a> = Option<(&'a [f64], &'a [f64])>;

fn basin_state<'a>(m: &crate::multibody::Mechanism, state: Option<&'a [f64]>) -> Result<Split<'a>, Error> {
    match state {
        None => Ok(None),
        Some(x) if x.len() == 2 * m.dof() => Ok(Some(x.split_at(m.dof()))),
        Some(x) => Err(Error::argument("state", format!("needs {} numbers (q then q'), got {}", 2 * m.dof(), x.len()))),
    }
}

/// The plan of a basin (its base state and stable gaits) over the section coordinates `vary`,
/// computed once for the chunks of a basin spread over workers ([`basin_cells`]).
pub fn basin_plan(
    m: &MechanismModel,
    vary: &[String],
    state: Option<&[f64]>,
    settings: &crate::multibody::basin::BasinSettings,
) -> Result<crate::multibody::basin::BasinPlan, Error> {
    match m {
        MechanismModel::Planar(m) => {
            let state = basin_state(m, state)?;
            Ok(crate::multibody::basin::plan(m, vary, state, settings)?.0)
        }
        MechanismModel::Spatial(m) => {
            walks(m, "basin")?;
            super::spatial_basin::spatial_basin_plan(m, vary, state, settings)
        }
    }
}

/// The cells at `points` of a basin planned by [`basin_plan`] (one chunk), in parallel;
/// `progress(done, total)` from worker threads.
pub fn basin_cells(
    m: &MechanismModel,
    plan: &crate::multibody::basin::BasinPlan,
    points: &[Vec<f64>],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<crate::multibody::basin::BasinCell>, Error> {
    match m {
        MechanismModel::Planar(m) => {
            crate::multibody::basin::check_plan(m, plan)?;
            crate::multibody::basin::basin_cells(m, plan, points, progress)
        }
        MechanismModel::Spatial(m) => {
            walks(m, "basin")?;
            super::spatial_basin::spatial_basin_cells(m, plan, points, progress)
        }
    }
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
    pub gait: crate::multibody::gait::GaitSettings,
}

/// The model document at `path` whose key `continue` varies: a 3-D scene file, or a planar
/// model (a URDF with `base = "planar"` read as the planar mechanism of docs/models.md); a bare
/// URDF or MJCF file, a robot in 3-D without a `[gait]` table, is refused saying what it needs
/// ([`walking_source`]).
pub fn continuation_doc(path: &std::path::Path, base: Option<&str>) -> Result<crate::model::ModelDoc, Error> {
    walking_source(path, base, "continue")?;
    crate::multibody::model::read_doc(path)
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
    if !crate::api::registry::kinds_for("continue").contains(&kind) {
        return Err(Error::model(
            "kind",
            format!(
                "continuation takes {} models, not \"{kind}\"",
                crate::api::registry::kinds_for("continue").join(", ")
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
    if doc.is_spatial_scene() {
        // A robot in 3-D: its gait continued on the configuration manifold.
        if req.orbit.is_some() {
            return Err(Error::argument(
                "orbit",
                "P3's constraint orbits are continued on planar mechanisms; a 3-D scene continues its gait",
            ));
        }
        settings.validate()?;
        let gait = crate::multibody::gait::GaitSettings {
            rtol: req.gait.rtol,
            ..crate::multibody::gait::GaitSettings::spatial()
        };
        return super::spatial_continuation::continue_spatial_gait(
            doc,
            &key,
            req.state.as_deref(),
            &settings,
            &gait,
            progress,
        );
    }
    if kind == "double-pendulum-stop" {
        // P3's pendulum: its Zeno (or simple) periodic orbit through the knee stop.
        settings.validate()?;
        let m = crate::zeno::model::from_model(&doc.with_param(&key, from)?)?;
        let ZenoModel::DoublePendulum { q0, v0, .. } = m else {
            return Err(Error::model("kind", "continuation needs a pendulum with periodic motion"));
        };
        // Built as a multibody model at each parameter value: exact Jacobians.
        let system = |p: f64| -> Result<crate::mechanics::multibody_system::MultibodySystem, String> {
            let d = doc.with_param(&key, p).map_err(|e| e.to_string())?;
            match crate::zeno::model::from_model(&d).map_err(|e| e.to_string())? {
                ZenoModel::DoublePendulum { system, .. } => {
                    crate::zeno::model::pendulum_system(&system).map_err(|e| e.to_string())
                }
                ZenoModel::BouncingBall { .. } => Err("not a pendulum".into()),
            }
        };
        return p3::orbit_continuation(system, q0.as_slice(), v0.as_slice(), &key, &settings, progress);
    }
    if let Some(c) = &req.orbit {
        return crate::multibody::continuation::continue_orbit(doc, &key, c, &settings, progress);
    }
    let state = match &req.state {
        None => None,
        Some(x) => {
            let m = crate::multibody::model::from_model(doc)?;
            if x.len() != 2 * m.dof() {
                return Err(Error::argument(
                    "state",
                    format!("needs {} numbers (q then q'), got {}", 2 * m.dof(), x.len()),
                ));
            }
            Some(x.split_at(m.dof()))
        }
    };
    crate::multibody::continuation::continue_gait(doc, &key, state, &settings, &req.gait, progress)
}
