//! The commands that take any mechanism, planar or a robot in 3-D, opened as the CLI opens it
//! (`contactlab::api::open`): `inspect`, `simulate`, `painleve` and `slip`.

use super::*;
use contactlab::api::{MechanismModel, Simulation};

/// The mechanism `source` names: a path (read with `base` as `contactlab::api::open` reads it)
/// or a model's `(name, text, is_json)` (a dict; `base` is then an error).
fn open(source: &Bound<'_, PyAny>, base: Option<&str>) -> PyResult<MechanismModel> {
    if let Ok((name, text, is_json)) = source.extract::<(String, String, bool)>() {
        if base.is_some() {
            return Err(to_py(contactlab::Error::argument("base", "applies to a URDF path, not to a dict")));
        }
        return contactlab::api::open_doc(&model_doc(&name, &text, is_json)?).map_err(to_py);
    }
    let path: std::path::PathBuf = source.extract()?;
    contactlab::api::open(&path, base).map_err(to_py)
}

/// A mechanism at a state, as the CLI's `model inspect --json`: `(kind, result)` with `kind`
/// `"Inspection"` (planar) or `"SpatialInspection"` (a robot in 3-D).
#[pyfunction]
#[pyo3(signature = (source, base=None, state=None, t=0.0))]
pub(crate) fn inspect(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    base: Option<&str>,
    state: Option<Vec<f64>>,
    t: f64,
) -> PyResult<(&'static str, Py<PyAny>)> {
    let m = open(source, base)?;
    let r = py.detach(|| contactlab::api::inspect(&m, state.as_deref(), t)).map_err(to_py)?;
    let kind = match r {
        contactlab::api::Inspection::Planar(_) => "Inspection",
        contactlab::api::Inspection::Spatial(_) => "SpatialInspection",
    };
    Ok((kind, object(py, &r)?))
}

/// A mechanism simulated as the CLI's `simulate --json`: `(kind, result, arrays)`. A planar
/// mechanism's (`kind` `"Simulation"`) runs event-driven and comes with its time history as
/// arrays: `t`, `q`, `v` (rows per sample), `modes`, `kinetic`, `potential` and the names; a
/// robot's in 3-D (`"SpatialSimulation"`, arrays `None`) runs by `method`.
#[pyfunction]
#[pyo3(signature = (source, base, state, t_max, h, mu, restitution, method, rtol, max_events, per_step, max_sweeps, max_steps))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    base: Option<&str>,
    state: Option<Vec<f64>>,
    t_max: f64,
    h: f64,
    mu: Option<f64>,
    restitution: f64,
    method: &str,
    rtol: f64,
    max_events: i64,
    per_step: i64,
    max_sweeps: i64,
    max_steps: i64,
) -> PyResult<(&'static str, Py<PyAny>, Option<Arrays<'py>>)> {
    use contactlab::multibody::simulate::MAX_PER_STEP;
    let s = contactlab::api::SimulateSettings {
        t_max,
        h,
        mu,
        restitution,
        method: method.parse().map_err(to_py)?,
        rtol,
        max_events: count("max_events", max_events, 1..=usize::MAX)?,
        per_step: count("per_step", per_step, 0..=MAX_PER_STEP)?,
        max_sweeps: count("max_sweeps", max_sweeps, 0..=usize::MAX)?,
        max_steps: count("max_steps", max_steps, 0..=usize::MAX)?,
        ..Default::default()
    };
    let m = open(source, base)?;
    let r = py.detach(|| contactlab::api::simulate(&m, state.as_deref(), &s)).map_err(to_py)?;
    let (sim, m) = match (r, &m) {
        (Simulation::Planar(sim), MechanismModel::Planar(m)) => (sim, m),
        (r @ Simulation::Spatial(_), _) => return Ok(("SpatialSimulation", object(py, &r)?, None)),
        (Simulation::Planar(_), _) => return Err(PyRuntimeError::new_err("simulate answered for another model")),
    };
    let (n, k) = (sim.samples.len(), m.dof());
    let d = PyDict::new(py);
    d.set_item("t", col(py, sim.samples.iter().map(|s| s.t).collect()))?;
    d.set_item("q", table(py, n, k, sim.samples.iter().flat_map(|s| s.q.iter().copied()).collect())?)?;
    d.set_item("v", table(py, n, k, sim.samples.iter().flat_map(|s| s.v.iter().copied()).collect())?)?;
    d.set_item("modes", sim.samples.iter().map(|s| s.modes.clone()).collect::<Vec<String>>())?;
    d.set_item("kinetic", col(py, sim.samples.iter().map(|s| s.kinetic).collect()))?;
    d.set_item("potential", col(py, sim.samples.iter().map(|s| s.potential.unwrap_or(f64::NAN)).collect()))?;
    d.set_item("coordinates", m.coordinates.clone())?;
    d.set_item("contacts", m.contact_names.clone())?;
    Ok(("Simulation", object(py, &sim)?, Some(d)))
}

/// Painlevé's paradox at a contact of a mechanism, as the CLI's `painleve --json`: `(kind,
/// result)`, `kind` `"Painleve"` (planar: `sigma`) or `"Painleve3"` (a robot in 3-D:
/// `direction`); `slice` a list of `(coordinate, lo, hi)`.
#[pyfunction]
#[pyo3(signature = (source, base, contact, state=None, mu=None, sigma=None, direction=None, slice=vec![], points=contactlab::api::PainleveSettings::default().points, slipping=None, held=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn painleve(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    base: Option<&str>,
    contact: String,
    state: Option<Vec<f64>>,
    mu: Option<f64>,
    sigma: Option<i8>,
    direction: Option<[f64; 3]>,
    slice: Vec<(String, f64, f64)>,
    points: usize,
    slipping: Option<Vec<String>>,
    held: Option<Vec<String>>,
) -> PyResult<(&'static str, Py<PyAny>)> {
    use contactlab::multibody::painleve::SliceAxis;
    let slice = slice.into_iter().map(|(coordinate, lo, hi)| SliceAxis { coordinate, lo, hi }).collect();
    let settings = contactlab::api::PainleveSettings { contact, sigma, direction, mu, slice, points, slipping, held };
    let m = open(source, base)?;
    let r = py.detach(|| contactlab::api::painleve(&m, state.as_deref(), &settings)).map_err(to_py)?;
    let kind = match r {
        contactlab::api::Painleve::Planar(_) => "Painleve",
        contactlab::api::Painleve::Spatial(_) => "Painleve3",
    };
    Ok((kind, object(py, &r)?))
}

/// How a slip of a mechanism's contact ends, as the CLI's `slip --json`: `(kind, result)`,
/// `kind` `"Slip"` (planar) or `"Slip3"` (a robot in 3-D); with `jam_threshold` the smallest
/// initial slip speed that jams (`"JamThreshold"`, `slip --jam-threshold --json`).
#[pyfunction]
#[pyo3(signature = (source, base, contact, state=None, jam_threshold=false, along=None, max_speed=contactlab::api::JAM_MAX_SPEED))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn slip(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    base: Option<&str>,
    contact: String,
    state: Option<Vec<f64>>,
    jam_threshold: bool,
    along: Option<String>,
    max_speed: f64,
) -> PyResult<(&'static str, Py<PyAny>)> {
    let m = open(source, base)?;
    if jam_threshold {
        let r =
            py.detach(|| contactlab::api::jam_threshold(&m, state.as_deref(), &contact, along.as_deref(), max_speed));
        return Ok(("JamThreshold", object(py, &r.map_err(to_py)?)?));
    }
    if along.is_some() {
        return Err(to_py(contactlab::Error::argument("along", "only with jam_threshold")));
    }
    let r = py.detach(|| contactlab::api::slip(&m, state.as_deref(), &contact)).map_err(to_py)?;
    let kind = match r {
        contactlab::api::Slip::Planar(_) => "Slip",
        contactlab::api::Slip::Spatial(_) => "Slip3",
    };
    Ok((kind, object(py, &r)?))
}

/// P3's periodic orbit of a planar mechanism through the constrained phases of a joint limit or
/// contact, as the CLI's `orbit --json`.
#[pyfunction]
#[pyo3(signature = (source, base, constraint, state=None))]
pub(crate) fn orbit(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    base: Option<&str>,
    constraint: String,
    state: Option<Vec<f64>>,
) -> PyResult<Py<PyAny>> {
    let m = open(source, base)?;
    object(py, &py.detach(|| contactlab::api::orbit(&m, state.as_deref(), &constraint)).map_err(to_py)?)
}

/// A mechanism's gaits, as the CLI's `gait --json`: `(kind, result)`, `kind` `"GaitSearch"` (a
/// planar mechanism's every gait, or the one reached from `state`) or `"SpatialGait"` (a 3-D
/// scene's, from its `[initial]` or `state`); `rtol` `None`: the engine's.
#[pyfunction]
#[pyo3(signature = (source, base, rtol=None, state=None))]
pub(crate) fn gait(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    base: Option<&str>,
    rtol: Option<f64>,
    state: Option<Vec<f64>>,
) -> PyResult<(&'static str, Py<PyAny>)> {
    let m = open(source, base)?;
    let r = py.detach(|| contactlab::api::gait(&m, state.as_deref(), rtol)).map_err(to_py)?;
    let kind = match r {
        contactlab::api::Gaits::Planar(_) => "GaitSearch",
        contactlab::api::Gaits::Spatial(_) => "SpatialGait",
    };
    Ok((kind, object(py, &r)?))
}
