//! P3's Zeno analyses and P5's equilibrium-set simulation, as the CLI's `zeno ...` and `eqset
//! simulate`.

use super::*;

pub(crate) fn zeno_model(
    name: &str,
    text: &str,
    is_json: bool,
    e: Option<f64>,
) -> PyResult<contactlab::zeno::model::ZenoModel> {
    let m = model(name, text, is_json, contactlab::zeno::model::from_model)?;
    match e {
        Some(e) => m.with_e(e).map_err(to_py),
        None => Ok(m),
    }
}

/// P3: the completed execution, as the CLI's `zeno simulate --json`, with the time history:
/// `t`, `q` and `v` (rows per sample), `constrained`, `lambda` (NaN when free) and the
/// coordinate names.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, t_max=contactlab::api::ZENO_T_MAX, e=None, max_events=contactlab::api::ZENO_MAX_EVENTS as i64))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn zeno_simulate<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    t_max: f64,
    e: Option<f64>,
    max_events: i64,
) -> PyResult<(Py<PyAny>, Arrays<'py>)> {
    let max_events = count("max_events", max_events, 1..=usize::MAX)?;
    let m = zeno_model(name, text, is_json, e)?;
    let (sim, v) = py.detach(|| contactlab::api::zeno_simulate(&m, t_max, max_events)).map_err(to_py)?;
    let names = contactlab::api::zeno_coordinates(&m);
    let (n, k) = (sim.samples.len(), names.len());
    let d = PyDict::new(py);
    d.set_item("t", col(py, sim.samples.iter().map(|s| s.t).collect()))?;
    d.set_item("q", table(py, n, k, sim.samples.iter().flat_map(|s| s.q.iter().copied()).collect())?)?;
    d.set_item("v", table(py, n, k, sim.samples.iter().flat_map(|s| s.v.iter().copied()).collect())?)?;
    d.set_item("constrained", sim.samples.iter().map(|s| s.constrained).collect::<Vec<bool>>().into_pyarray(py))?;
    d.set_item("lambda", col(py, sim.samples.iter().map(|s| s.lambda.unwrap_or(f64::NAN)).collect()))?;
    d.set_item("coordinates", names.to_vec())?;
    d.set_item("event_times", col(py, sim.events.iter().map(|e| e.t).collect()))?;
    d.set_item("event_kinds", sim.events.iter().map(|e| contactlab::output::kebab(&e.kind)).collect::<Vec<String>>())?;
    Ok((object(py, &v)?, d))
}

/// P3: the simple or Zeno periodic orbit, as the CLI's `zeno orbit --json`.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, e=None))]
pub(crate) fn zeno_orbit(py: Python<'_>, name: &str, text: &str, is_json: bool, e: Option<f64>) -> PyResult<Py<PyAny>> {
    let m = zeno_model(name, text, is_json, e)?;
    object(py, &py.detach(|| contactlab::api::zeno_orbit(&m, name)).map_err(to_py)?)
}

/// P3: Theorem 1's bound, as the CLI's `zeno bound --json`.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, eps1, eps2, eps3, grid=contactlab::api::ZENO_BOUND_GRID as i64))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn zeno_bound(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    eps1: f64,
    eps2: f64,
    eps3: f64,
    grid: i64,
) -> PyResult<Py<PyAny>> {
    let grid = count("grid", grid, contactlab::api::BOUND_GRID)?;
    let m = zeno_model(name, text, is_json, None)?;
    let eps = contactlab::zeno::bound::Epsilons { eps1, eps2, eps3 };
    object(py, &py.detach(|| contactlab::api::zeno_bound(&m, name, eps, grid)).map_err(to_py)?)
}

/// P3: the branch of Zeno periodic orbits in `e`, as the CLI's `zeno continue --json`, with
/// the branch as columns (`e`, `period`, `constrained_duration`, `gamma`, `impacts_per_cycle`,
/// `zeno`).
#[pyfunction]
#[pyo3(signature = (name, text, is_json, e_max=None, step=None, max_step=None, max_points=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn zeno_continuation<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    e_max: Option<f64>,
    step: Option<f64>,
    max_step: Option<f64>,
    max_points: Option<usize>,
) -> PyResult<(Py<PyAny>, Arrays<'py>)> {
    let m = zeno_model(name, text, is_json, None)?;
    let d = contactlab::continuation::Settings::default();
    let max_step = max_step.unwrap_or(d.max_step);
    let settings = contactlab::continuation::Settings {
        to: e_max.unwrap_or(contactlab::api::ZENO_E_MAX),
        step: step.unwrap_or(d.step).min(max_step),
        max_step,
        max_points: max_points.unwrap_or(d.max_points),
        ..d
    };
    let c = py.detach(|| contactlab::api::zeno_continuation(&m, name, &settings, &|_| {})).map_err(to_py)?;
    let d = PyDict::new(py);
    let pts = &c.points;
    d.set_item("e", col(py, pts.iter().map(|p| p.e).collect()))?;
    d.set_item("period", col(py, pts.iter().map(|p| p.period).collect()))?;
    d.set_item("constrained_duration", col(py, pts.iter().map(|p| p.constrained_duration).collect()))?;
    d.set_item("gamma", col(py, pts.iter().map(|p| p.gamma).collect()))?;
    d.set_item("impacts_per_cycle", pts.iter().map(|p| p.impacts_per_cycle).collect::<Vec<usize>>().into_pyarray(py))?;
    d.set_item("zeno", pts.iter().map(|p| p.zeno).collect::<Vec<bool>>().into_pyarray(py))?;
    Ok((object(py, &contactlab::api::ContinuationSummary::from(&c))?, d))
}

/// P5: time-stepping from the model's initial state, as the CLI's `eqset simulate --json`,
/// with the recorded `t`, `q`, `q_dot` and energy `V` as arrays and the coordinate's name.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, t_max=contactlab::api::EQSET_T_MAX, h=None))]
pub(crate) fn eqset_simulate<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    t_max: f64,
    h: Option<f64>,
) -> PyResult<(Py<PyAny>, Arrays<'py>)> {
    let m = model(name, text, is_json, contactlab::eqset::model::from_model)?;
    let run = py.detach(|| contactlab::api::eqset_simulate(&m, t_max, h)).map_err(to_py)?;
    let tr = &run.trajectory;
    let d = PyDict::new(py);
    d.set_item("t", col(py, tr.t.clone()))?;
    d.set_item("q", col(py, tr.q.iter().map(|q| q[0]).collect()))?;
    d.set_item("q_dot", col(py, tr.v.iter().map(|v| v[0]).collect()))?;
    d.set_item("V", col(py, run.energy.clone()))?;
    d.set_item("coordinate", m.coordinate().0)?;
    Ok((object(py, &run.summary())?, d))
}
