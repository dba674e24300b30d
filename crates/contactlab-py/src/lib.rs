//! `contactlab._core`: the compiled half of the `contactlab` Python package. Each function takes
//! numpy arrays or a model's text, runs the Rust analysis with the GIL released, and returns
//! numpy arrays and/or a JSON string with exactly the keys of the CLI's `--json` output (the
//! Python half turns it into result objects). Errors become Python exceptions: `ValueError` for
//! bad input, `contactlab.NumericalError` for a solver that could not conclude, `OSError` for
//! files, `RuntimeError` otherwise; nothing panics across the boundary.

use contactlab::lcp::{self, classes, Lcp, LcpSettings};
use contactlab::model::ModelDoc;
use nalgebra::{DMatrix, DVector};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    _core,
    NumericalError,
    pyo3::exceptions::PyRuntimeError,
    "A solver could not conclude: numerical trouble or a work bound reached (the message says which)."
);

fn to_py(e: contactlab::Error) -> PyErr {
    if e.is_input_error() {
        PyValueError::new_err(e.to_string())
    } else if e.is_numerical() {
        NumericalError::new_err(e.to_string())
    } else if matches!(e, contactlab::Error::Io { .. }) {
        PyOSError::new_err(e.to_string())
    } else {
        PyRuntimeError::new_err(e.to_string())
    }
}

fn json_string(v: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(format!("serialising the result: {e}")))
}

fn matrix(m: &PyReadonlyArray2<'_, f64>) -> PyResult<DMatrix<f64>> {
    let shape = m.shape();
    let a = m.as_array();
    Ok(DMatrix::from_fn(shape[0], shape[1], |i, j| a[(i, j)]))
}

fn vector(v: &PyReadonlyArray1<'_, f64>) -> DVector<f64> {
    DVector::from_iterator(v.len(), v.as_array().iter().copied())
}

fn model_doc(name: &str, text: &str, is_json: bool) -> PyResult<ModelDoc> {
    ModelDoc::parse(name, text, is_json).map_err(to_py)
}

/// Solves the LCP `0 ≤ z ⟂ M z + q ≥ 0` (Lemke with its certified fallback); returns a dict
/// with the keys of the CLI's JSON, `z` and `w` as arrays (built here: no JSON round trip on
/// this hot path).
#[pyfunction]
#[pyo3(signature = (m, q, max_pivots=None))]
fn lcp_solve<'py>(
    py: Python<'py>,
    m: PyReadonlyArray2<'py, f64>,
    q: PyReadonlyArray1<'py, f64>,
    max_pivots: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let problem = Lcp::new(matrix(&m)?, vector(&q)).map_err(to_py)?;
    let mut settings = LcpSettings::default();
    if let Some(k) = max_pivots {
        settings.max_pivots = k.max(1);
    }
    let n = problem.n();
    let s = py.detach(|| lcp::solve(&problem, &settings)).map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("status", s.status.as_str())?;
    d.set_item("z", s.z.as_slice().to_vec().into_pyarray(py))?;
    d.set_item("w", s.w.as_slice().to_vec().into_pyarray(py))?;
    d.set_item("residual", contactlab::util::finite_or_none(s.residual))?;
    d.set_item("pivots", s.pivots)?;
    d.set_item("method", contactlab::util::kebab(&s.method))?;
    d.set_item("reason", s.reason.map(|r| contactlab::util::kebab(&r)))?;
    d.set_item("certified", s.certified)?;
    d.set_item("n", n)?;
    Ok(d)
}

/// Every solution of the LCP as polyhedral pieces (n ≤ 20), as the CLI's `lcp solve --all`
/// JSON.
#[pyfunction]
fn lcp_solve_all(py: Python<'_>, m: PyReadonlyArray2<'_, f64>, q: PyReadonlyArray1<'_, f64>) -> PyResult<String> {
    use contactlab::lcp::enumerate;
    let problem = Lcp::new(matrix(&m)?, vector(&q)).map_err(to_py)?;
    let n = problem.n();
    let e = py.detach(|| enumerate::enumerate(&problem, &enumerate::EnumSettings::default())).map_err(to_py)?;
    json_string(&e.summary(n))
}

/// Matrix classes of `M` (P, column adequate, column quasi-adequate, PSD), as the CLI's JSON.
#[pyfunction]
fn lcp_classes(py: Python<'_>, m: PyReadonlyArray2<'_, f64>) -> PyResult<String> {
    let m = matrix(&m)?;
    json_string(&py.detach(|| classes::all(&m)).map_err(to_py)?)
}

/// P1: the verdict of Theorems 1–5 for a `planar-two-contact` model, as the CLI's JSON.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, samples=contactlab::twocontact::poincare::DEFAULT_SAMPLES))]
fn p1_classify(py: Python<'_>, name: &str, text: &str, is_json: bool, samples: usize) -> PyResult<String> {
    let p = contactlab::twocontact::model::from_model(&model_doc(name, text, is_json)?).map_err(to_py)?;
    let c = py.detach(|| contactlab::twocontact::classify::classify(&p, samples)).map_err(to_py)?;
    json_string(&c)
}

/// P1: the maps `R(φ)` and `G(φ)` on `samples` values of `φ` (NaN where undefined).
#[pyfunction]
#[pyo3(signature = (name, text, is_json, samples=contactlab::twocontact::poincare::DEFAULT_SAMPLES))]
#[allow(clippy::type_complexity)]
fn p1_maps<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    samples: usize,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>)> {
    use contactlab::twocontact::{poincare, sim::Simulator, zod::Zod};
    let p = contactlab::twocontact::model::from_model(&model_doc(name, text, is_json)?).map_err(to_py)?;
    let pts = py
        .detach(|| -> Result<_, contactlab::Error> { poincare::sample(&Simulator::new(Zod::new(&p)?)?, samples) })
        .map_err(to_py)?;
    let phi: Vec<f64> = pts.iter().map(|q| q.phi).collect();
    let r: Vec<f64> = pts.iter().map(|q| q.r.unwrap_or(f64::NAN)).collect();
    let g: Vec<f64> = pts.iter().map(|q| q.g.unwrap_or(f64::NAN)).collect();
    Ok((phi.into_pyarray(py), r.into_pyarray(py), g.into_pyarray(py)))
}

/// P1: the verdicts of the cells at `points` (one row per cell, one column per key of `keys`, as
/// for `equilibrium atlas --vary`), evaluated in parallel; the CLI's atlas cells as JSON.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, keys, points, samples=contactlab::twocontact::poincare::DEFAULT_SAMPLES))]
fn p1_atlas_cells(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    keys: Vec<String>,
    points: PyReadonlyArray2<'_, f64>,
    samples: usize,
) -> PyResult<String> {
    let p = contactlab::twocontact::model::from_model(&model_doc(name, text, is_json)?).map_err(to_py)?;
    let m = matrix(&points)?;
    let rows: Vec<Vec<f64>> = (0..m.nrows()).map(|i| m.row(i).iter().copied().collect()).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let cells = py
        .detach(|| contactlab::twocontact::atlas::classify_cells(&p, &keys, &rows, samples, &|_, _| {}))
        .map_err(to_py)?;
    json_string(&cells)
}

/// P4: weak, strong and frictionless stability of a `fixture` model, as the CLI's JSON.
#[pyfunction]
fn fixture_classify(py: Python<'_>, name: &str, text: &str, is_json: bool) -> PyResult<String> {
    let f = contactlab::fixture::model::from_model(&model_doc(name, text, is_json)?).map_err(to_py)?;
    let c = py.detach(|| contactlab::fixture::stability::classify(&f)).map_err(to_py)?;
    json_string(&c)
}

/// P5: the equilibrium sets and Theorems 1 and 2 of a `rod-two-sliders` or
/// `friction-oscillator` model, as the CLI's JSON (without the closed forms).
#[pyfunction]
#[pyo3(signature = (name, text, is_json, grid=4000))]
fn eqset_analyze(py: Python<'_>, name: &str, text: &str, is_json: bool, grid: usize) -> PyResult<String> {
    use contactlab::eqset::{self, model::EqsetModel, Settings};
    let m = eqset::model::from_model(&model_doc(name, text, is_json)?).map_err(to_py)?;
    let a = py
        .detach(|| match &m {
            EqsetModel::Rod { system, .. } => {
                eqset::analyze(system, &Settings { grid, ..Settings::for_system(system) })
            }
            EqsetModel::Block { system, .. } => {
                eqset::analyze(system, &Settings { grid, ..Settings::for_system(system) })
            }
        })
        .map_err(to_py)?;
    json_string(&a)
}

/// The compiled module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NumericalError", m.py().get_type::<NumericalError>())?;
    m.add_function(wrap_pyfunction!(lcp_solve, m)?)?;
    m.add_function(wrap_pyfunction!(lcp_classes, m)?)?;
    m.add_function(wrap_pyfunction!(lcp_solve_all, m)?)?;
    m.add_function(wrap_pyfunction!(p1_classify, m)?)?;
    m.add_function(wrap_pyfunction!(p1_maps, m)?)?;
    m.add_function(wrap_pyfunction!(p1_atlas_cells, m)?)?;
    m.add_function(wrap_pyfunction!(fixture_classify, m)?)?;
    m.add_function(wrap_pyfunction!(eqset_analyze, m)?)?;
    Ok(())
}
