//! `contactlab._core`: the compiled half of the `contactlab` Python package. Each function takes
//! numpy arrays or a model's text, runs the Rust analysis with the GIL released, and returns
//! numpy arrays and/or a JSON string with exactly the keys of the CLI's `--json` output (the
//! Python half turns it into result objects). Errors become Python exceptions: `ValueError` for
//! bad input, `contactlab.NumericalError` for a solver that could not conclude, `OSError` for
//! files, `RuntimeError` otherwise; nothing panics across the boundary.

use contactlab::lcp::{self, Lcp, LcpSettings};
use contactlab::model::ModelDoc;
use nalgebra::{DMatrix, DVector};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
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
    if matches!(e, contactlab::Error::Io { .. }) {
        PyOSError::new_err(e.to_string())
    } else if e.is_input_error() {
        PyValueError::new_err(e.to_string())
    } else if e.is_numerical() {
        NumericalError::new_err(e.to_string())
    } else {
        PyRuntimeError::new_err(e.to_string())
    }
}

/// An integer option as a count in `range` (a `ValueError` naming it otherwise, also for
/// negative numbers).
fn count(name: &str, v: i64, range: std::ops::RangeInclusive<usize>) -> PyResult<usize> {
    contactlab::api::count(name, v, range).map_err(to_py)
}

/// A result as Python objects (dicts, lists, floats, ints, bools, strings, None): the keys and
/// values of the CLI's `--json` output, without a trip through JSON text.
fn object(py: Python<'_>, v: &impl serde::Serialize) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(v).map_err(|e| PyRuntimeError::new_err(format!("converting the result: {e}")))?;
    Ok(value_to_py(py, &value)?.unbind())
}

fn value_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::types::{PyBool, PyFloat, PyList, PyString};
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            PyList::new(py, items.iter().map(|x| value_to_py(py, x)).collect::<PyResult<Vec<_>>>()?)?.into_any()
        }
        Value::Object(map) => {
            let d = PyDict::new(py);
            for (k, x) in map {
                d.set_item(k, value_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

fn matrix(m: &PyReadonlyArray2<'_, f64>) -> PyResult<DMatrix<f64>> {
    let shape = m.shape();
    let a = m.as_array();
    // Contiguous arrays (numpy's usual C order, or Fortran order) are copied in one piece;
    // other strides entry by entry.
    if let Some(s) = a.as_slice() {
        // Row-major data read as the transpose's columns (nalgebra's `from_row_slice` divides
        // per entry).
        return Ok(DMatrix::from_column_slice(shape[1], shape[0], s).transpose());
    }
    if let Some(s) = a.t().as_slice() {
        return Ok(DMatrix::from_column_slice(shape[0], shape[1], s));
    }
    Ok(DMatrix::from_fn(shape[0], shape[1], |i, j| a[(i, j)]))
}

fn vector(v: &PyReadonlyArray1<'_, f64>) -> DVector<f64> {
    DVector::from_iterator(v.len(), v.as_array().iter().copied())
}

/// `numpy.require(obj, dtype=float64, requirements="A")`: any array-like as an aligned float
/// array (the slow path: lists, other dtypes, arrays unpickled unaligned).
fn require_f64<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let kw = PyDict::new(py);
    kw.set_item("dtype", "float64")?;
    kw.set_item("requirements", "A")?;
    py.import("numpy")?
        .getattr("require")?
        .call((obj,), Some(&kw))
        .map_err(|e| PyValueError::new_err(format!("{name}: not an array of numbers: {e}")))
}

/// A matrix argument: an aligned float64 numpy array is read in place (any strides); anything
/// else goes through `numpy.require` first.
fn matrix_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DMatrix<f64>> {
    if let Ok(a) = obj.cast::<PyArray2<f64>>() {
        if a.is_aligned() {
            return matrix(&a.readonly());
        }
    }
    let a = require_f64(obj, name)?;
    match a.cast::<PyArray2<f64>>() {
        Ok(a) => matrix(&a.readonly()),
        Err(_) => {
            Err(PyValueError::new_err(format!("{name}: expected a 2-D array, got {} dimension(s)", a.getattr("ndim")?)))
        }
    }
}

/// A vector argument (any shape is flattened, as `numpy.ravel`).
fn vector_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<DVector<f64>> {
    if let Ok(a) = obj.cast::<PyArray1<f64>>() {
        if a.is_aligned() {
            return Ok(vector(&a.readonly()));
        }
    }
    let a = require_f64(obj, name)?.call_method0("ravel")?;
    Ok(vector(&a.cast::<PyArray1<f64>>()?.readonly()))
}

/// The rows of a matrix argument (the cells of a parameter study).
fn rows_arg(points: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<f64>>> {
    let m = matrix_arg(points, "points")?;
    Ok((0..m.nrows()).map(|i| m.row(i).iter().copied().collect()).collect())
}

fn model_doc(name: &str, text: &str, is_json: bool) -> PyResult<ModelDoc> {
    ModelDoc::parse(name, text, is_json).map_err(to_py)
}

/// A model's text parsed by one analysis's reader (`contactlab::…::model::from_model`).
fn model<T>(name: &str, text: &str, is_json: bool, from: fn(&ModelDoc) -> Result<T, contactlab::Error>) -> PyResult<T> {
    from(&model_doc(name, text, is_json)?).map_err(to_py)
}

/// The solution of an LCP (`contactlab.lcp.solve`): its fields are the keys of
/// `contactlab lcp solve --json`; `z` and `w` are numpy arrays. Frozen.
#[pyclass(frozen, module = "contactlab.lcp")]
struct LcpSolution {
    /// "solved", "no-solution", "iteration-limit" or "numerical-error".
    #[pyo3(get)]
    status: &'static str,
    /// The solution `z` (when solved).
    #[pyo3(get)]
    z: Py<PyArray1<f64>>,
    /// `w = M z + q`.
    #[pyo3(get)]
    w: Py<PyArray1<f64>>,
    /// The complementarity residual, relative to the data's scale (None if not finite).
    #[pyo3(get)]
    residual: Option<f64>,
    /// Pivots taken.
    #[pyo3(get)]
    pivots: usize,
    /// The method that concluded.
    #[pyo3(get)]
    method: String,
    /// Why Lemke's method stopped without a solution, if it did.
    #[pyo3(get)]
    reason: Option<String>,
    /// The componentwise relative error of `z` on the data as given (None if not finite).
    #[pyo3(get)]
    violation: Option<f64>,
    /// The size of the problem.
    #[pyo3(get)]
    n: usize,
    /// "interval" when the verdict is proved in interval arithmetic, else "none".
    #[pyo3(get)]
    proof: String,
    /// Why there is no proof (None when proved).
    #[pyo3(get)]
    proof_reason: Option<String>,
}

const LCP_FIELDS: [&str; 11] =
    ["status", "z", "w", "residual", "pivots", "method", "reason", "violation", "n", "proof", "proof_reason"];

#[pymethods]
impl LcpSolution {
    /// The fields as a plain dict.
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(slf.py());
        for k in LCP_FIELDS {
            d.set_item(k, slf.getattr(k)?)?;
        }
        Ok(d)
    }

    fn __getitem__<'py>(slf: &Bound<'py, Self>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        if LCP_FIELDS.contains(&key) {
            slf.getattr(key)
        } else {
            Err(pyo3::exceptions::PyKeyError::new_err(key.to_string()))
        }
    }

    fn keys(&self) -> Vec<&'static str> {
        LCP_FIELDS.to_vec()
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let mut parts = Vec::new();
        for k in LCP_FIELDS {
            let r = slf.getattr(k)?.repr()?.to_string();
            let r = if r.chars().count() <= 60 { r } else { r.chars().take(57).collect::<String>() + "..." };
            parts.push(format!("{k}={r}"));
        }
        Ok(format!("LcpSolution({})", parts.join(", ")))
    }
}

/// Solves the linear complementarity problem: find z with 0 <= z ⟂ w = M z + q >= 0.
///
/// Lemke's method; on a secondary ray a feasibility LP and, for n <= 12, exhaustive
/// enumeration. `M` (n x n) and `q` (n) are array-likes of numbers; `max_pivots` bounds the work.
///
/// Returns an `LcpSolution` with `status` ("solved", "no-solution", "iteration-limit",
/// "numerical-error"), `z` and `w` (numpy arrays), `residual`, `pivots`, `method`, `reason`,
/// `violation` (the componentwise error on the data as given), `n`, `proof` ("interval" when the
/// verdict is proved in interval arithmetic on the data as given, else "none") and
/// `proof_reason`: the keys of `contactlab lcp solve --json`. Raises ValueError for bad input
/// (shapes, NaN).
#[pyfunction]
#[pyo3(signature = (M, q, max_pivots=None))]
#[allow(non_snake_case)]
fn lcp_solve(
    py: Python<'_>,
    M: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    max_pivots: Option<usize>,
) -> PyResult<LcpSolution> {
    let problem = Lcp::new(matrix_arg(M, "M")?, vector_arg(q, "q")?).map_err(to_py)?;
    let mut settings = LcpSettings::default();
    if let Some(k) = max_pivots {
        settings.max_pivots = k.max(1);
    }
    // The fields are those of `api::LcpReport`, the CLI's JSON.
    let r = py.detach(|| contactlab::api::lcp_solve(&problem, &settings)).map_err(to_py)?;
    Ok(LcpSolution {
        status: r.status.as_str(),
        z: read_only(r.z.as_slice().to_vec().into_pyarray(py)).unbind(),
        w: read_only(r.w.as_slice().to_vec().into_pyarray(py)).unbind(),
        residual: r.residual,
        pivots: r.pivots,
        method: contactlab::output::kebab(&r.method),
        reason: r.reason.map(|x| contactlab::output::kebab(&x)),
        violation: r.violation,
        n: r.n,
        proof: contactlab::output::kebab(&r.proof.proof),
        proof_reason: r.proof.proof_reason,
    })
}

/// The Rust side of the overhead benchmark: seconds per `Lcp::new` + `lcp::solve` on the same
/// data, averaged over `reps` calls in a Rust loop.
#[pyfunction]
#[allow(non_snake_case)]
fn _time_lcp_solve(py: Python<'_>, M: &Bound<'_, PyAny>, q: &Bound<'_, PyAny>, reps: i64) -> PyResult<f64> {
    let (m, q) = (matrix_arg(M, "M")?, vector_arg(q, "q")?);
    let settings = LcpSettings::default();
    Lcp::new(m.clone(), q.clone()).map_err(to_py)?;
    let t = py.detach(|| {
        let start = std::time::Instant::now();
        for _ in 0..reps.max(1) {
            if let Ok(p) = Lcp::new(m.clone(), q.clone()) {
                std::hint::black_box(lcp::solve(&p, &settings).ok());
            }
        }
        start.elapsed().as_secs_f64()
    });
    Ok(t / reps.max(1) as f64)
}

/// The Rust side of `scripts/drake_lcp.py`: seconds per `lcp::solve`, averaged over `rounds`
/// passes through `problems` (a list of `(M, q)`, built into `Lcp`s beforehand, as Drake's
/// programs are), each solve on a different problem than the one before (as the comparison
/// times Drake: no problem is solved twice in a row).
#[pyfunction]
fn _time_lcp_solve_each(py: Python<'_>, problems: &Bound<'_, PyAny>, rounds: i64) -> PyResult<f64> {
    let mut data = Vec::new();
    for item in problems.try_iter()? {
        let item = item?;
        let (m, q) = (matrix_arg(&item.get_item(0)?, "M")?, vector_arg(&item.get_item(1)?, "q")?);
        data.push(Lcp::new(m, q).map_err(to_py)?);
    }
    let settings = LcpSettings::default();
    let rounds = rounds.max(1);
    let t = py.detach(|| {
        let start = std::time::Instant::now();
        for _ in 0..rounds {
            for p in &data {
                std::hint::black_box(lcp::solve(p, &settings).ok());
            }
        }
        start.elapsed().as_secs_f64()
    });
    Ok(t / (rounds as f64 * data.len().max(1) as f64))
}

/// Every solution of the LCP as polyhedral pieces (n ≤ 20), as the CLI's `lcp solve --all`
/// JSON.
#[pyfunction]
#[allow(non_snake_case)]
fn lcp_solve_all(py: Python<'_>, M: &Bound<'_, PyAny>, q: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let problem = Lcp::new(matrix_arg(M, "M")?, vector_arg(q, "q")?).map_err(to_py)?;
    let n = problem.n();
    let e = py.detach(|| contactlab::api::lcp_solve_all(&problem)).map_err(to_py)?;
    object(py, &e.summary(n))
}

/// Matrix classes of `M` (P, column adequate, column quasi-adequate, PSD), as the CLI's JSON.
#[pyfunction]
#[allow(non_snake_case)]
fn lcp_classes(py: Python<'_>, M: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let m = matrix_arg(M, "M")?;
    object(py, &py.detach(|| contactlab::api::lcp_classes(&m)).map_err(to_py)?)
}

/// P1: the verdict of Theorems 1–5 for a `planar-two-contact` model, as the CLI's JSON.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, samples=contactlab::twocontact::poincare::DEFAULT_SAMPLES as i64))]
fn p1_classify(py: Python<'_>, name: &str, text: &str, is_json: bool, samples: i64) -> PyResult<Py<PyAny>> {
    let samples = count("samples", samples, contactlab::api::MAP_SAMPLES)?;
    let p = p1_model(name, text, is_json)?;
    let c = py.detach(|| contactlab::api::p1_classify(&p, samples)).map_err(to_py)?;
    object(py, &c)
}

/// P1: the maps `R(φ)` and `G(φ)` on `samples` values of `φ` (NaN where undefined).
#[pyfunction]
#[pyo3(signature = (name, text, is_json, samples=contactlab::twocontact::poincare::DEFAULT_SAMPLES as i64))]
#[allow(clippy::type_complexity)]
fn p1_maps<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    samples: i64,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>)> {
    let samples = count("samples", samples, contactlab::api::MAP_SAMPLES)?;
    let p = p1_model(name, text, is_json)?;
    let pts = py.detach(|| contactlab::api::p1_maps(&p, samples)).map_err(to_py)?.maps;
    let phi: Vec<f64> = pts.iter().map(|q| q.phi).collect();
    let r: Vec<f64> = pts.iter().map(|q| q.r.unwrap_or(f64::NAN)).collect();
    let g: Vec<f64> = pts.iter().map(|q| q.g.unwrap_or(f64::NAN)).collect();
    Ok((phi.into_pyarray(py), r.into_pyarray(py), g.into_pyarray(py)))
}

/// A model of any kind, read by the registry.
fn any_model(name: &str, text: &str, is_json: bool) -> PyResult<contactlab::api::registry::Model> {
    contactlab::api::registry::read(&model_doc(name, text, is_json)?).map_err(to_py)
}

/// A parameter study's cells at `points` (one row per cell, one column per key of `keys`), in
/// parallel: P1's verdicts (as `equilibrium atlas --vary`) or P4's classifications (keys
/// `load[i]`, `mu[i]`, `mu_scale`); each cell holds its `values` and the kind's columns.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, keys, points, samples=contactlab::twocontact::poincare::DEFAULT_SAMPLES as i64))]
fn sweep_cells(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    keys: Vec<String>,
    points: &Bound<'_, PyAny>,
    samples: i64,
) -> PyResult<Py<PyAny>> {
    let samples = count("samples", samples, contactlab::api::ATLAS_SAMPLES)?;
    let m = any_model(name, text, is_json)?;
    let rows = rows_arg(points)?;
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    object(py, &py.detach(|| contactlab::api::sweep_cells(&m, &keys, &rows, samples)).map_err(to_py)?)
}

/// Checks every cell's values before a sweep starts: each value, applied alone to the model,
/// must be in its key's range (`ValueError` naming the key and the value otherwise). Cells whose
/// values are valid one by one but not together still come back `invalid` from the sweep.
#[pyfunction]
fn check_cells(name: &str, text: &str, is_json: bool, keys: Vec<String>, points: &Bound<'_, PyAny>) -> PyResult<()> {
    let rows = rows_arg(points)?;
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    contactlab::api::check_cells(&any_model(name, text, is_json)?, &keys, &rows).map_err(to_py)
}

/// The `kind` of a model.
#[pyfunction]
fn model_kind(name: &str, text: &str, is_json: bool) -> PyResult<String> {
    Ok(model_doc(name, text, is_json)?.kind().map_err(to_py)?.to_string())
}

/// The columns of a parameter-study cell for `kind` (None: the kind has no parameter studies).
#[pyfunction]
fn sweep_columns(kind: &str) -> Option<Vec<&'static str>> {
    contactlab::api::registry::sweep_columns(kind).map(<[&str]>::to_vec)
}

/// P4: weak, strong and frictionless stability of a `fixture` model, as the CLI's JSON.
#[pyfunction]
fn fixture_classify(py: Python<'_>, name: &str, text: &str, is_json: bool) -> PyResult<Py<PyAny>> {
    let f = model(name, text, is_json, contactlab::fixture::model::from_model)?;
    let c = py.detach(|| contactlab::api::fixture_classify(&f)).map_err(to_py)?;
    object(py, &c)
}

/// P5: the equilibrium sets and Theorems 1 and 2 of a `rod-two-sliders` or
/// `friction-oscillator` model, as the CLI's `eqset analyze --json`.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, grid=contactlab::api::EQSET_ANALYZE_GRID as i64))]
fn eqset_analyze(py: Python<'_>, name: &str, text: &str, is_json: bool, grid: i64) -> PyResult<Py<PyAny>> {
    let grid = count("grid", grid, contactlab::api::EQSET_GRID)?;
    let m = model(name, text, is_json, contactlab::eqset::model::from_model)?;
    object(py, &py.detach(|| contactlab::api::eqset_analyze(&m, grid)).map_err(to_py)?)
}

type Arrays<'py> = Bound<'py, PyDict>;

fn col<'py>(py: Python<'py>, v: Vec<f64>) -> Bound<'py, PyArray1<f64>> {
    v.into_pyarray(py)
}

/// A new array made read-only, so that a frozen result cannot be changed through it.
fn read_only<'py, T: numpy::Element, D>(a: Bound<'py, numpy::PyArray<T, D>>) -> Bound<'py, numpy::PyArray<T, D>> {
    // SAFETY: `a` was just created by us and nothing borrows it; clearing the WRITEABLE flag
    // only narrows what numpy allows.
    unsafe {
        (*numpy::npyffi::objects::_PyArray_GET_ITEM_DATA(a.as_array_ptr())).flags &=
            !numpy::npyffi::flags::NPY_ARRAY_WRITEABLE
    };
    a
}

/// A `rows × cols` float array from row-major data.
fn table<'py>(py: Python<'py>, rows: usize, cols: usize, data: Vec<f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    data.into_pyarray(py).reshape([rows, cols])
}

fn p1_model(name: &str, text: &str, is_json: bool) -> PyResult<contactlab::twocontact::TwoContact> {
    model(name, text, is_json, contactlab::twocontact::model::from_model)
}

/// P1: the contact modes at the equilibrium, as the CLI's `equilibrium modes --json`.
#[pyfunction]
fn p1_modes(py: Python<'_>, name: &str, text: &str, is_json: bool) -> PyResult<Py<PyAny>> {
    let p = p1_model(name, text, is_json)?;
    object(py, &py.detach(|| contactlab::api::p1_modes(&p)).map_err(to_py)?)
}

/// P1: `R(φ)` and `G(φ)` at the given impact angles (NaN where undefined), evaluated in
/// parallel; also each return's status (0 returned, 1 rest, 2 failed).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn p1_maps_at<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    phi: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<u8>>)> {
    use contactlab::twocontact::poincare::ReturnStatus;
    let p = p1_model(name, text, is_json)?;
    let phi = vector_arg(phi, "phi")?;
    let pts = py.detach(|| contactlab::api::p1_maps_at(&p, phi.as_slice())).map_err(to_py)?;
    let r = pts.iter().map(|q| q.r.unwrap_or(f64::NAN)).collect();
    let g = pts.iter().map(|q| q.g.unwrap_or(f64::NAN)).collect();
    let status: Vec<u8> = pts
        .iter()
        .map(|q| match q.status {
            ReturnStatus::Returned => 0,
            ReturnStatus::Rest => 1,
            ReturnStatus::Failed => 2,
        })
        .collect();
    Ok((col(py, r), col(py, g), status.into_pyarray(py)))
}

/// The Rust side of the `R(φ)` benchmark: seconds per evaluation of the maps at `phi` (the
/// simulator built from the parsed model, then the same parallel loop as `p1_maps_at`),
/// averaged over `reps` runs.
#[pyfunction]
fn _time_p1_maps_at(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    phi: &Bound<'_, PyAny>,
    reps: i64,
) -> PyResult<f64> {
    let p = p1_model(name, text, is_json)?;
    let phi = vector_arg(phi, "phi")?;
    let t = py
        .detach(|| -> Result<f64, contactlab::Error> {
            let start = std::time::Instant::now();
            for _ in 0..reps.max(1) {
                std::hint::black_box(contactlab::api::p1_maps_at(&p, phi.as_slice())?);
            }
            Ok(start.elapsed().as_secs_f64())
        })
        .map_err(to_py)?;
    Ok(t / reps.max(1) as f64)
}

/// P1: an event-driven run of the zero-order dynamics and of the nonlinear model from the
/// perturbation `KEY=VALUE,...`; the CLI's `equilibrium simulate --json` and both time
/// histories as `(t, z1, z2, x1, x2)` rows.
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn p1_simulate<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    perturb: &str,
    t_max: f64,
    max_events: i64,
) -> PyResult<(Py<PyAny>, Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>)> {
    let max_events = count("max_events", max_events, 1..=usize::MAX)?;
    let p = p1_model(name, text, is_json)?;
    let start = contactlab::api::p1_perturbation(perturb).map_err(to_py)?;
    let run = py.detach(|| contactlab::api::p1_simulate(&p, start, t_max, max_events)).map_err(to_py)?;
    let rows = |v: Vec<[f64; 5]>| {
        let n = v.len();
        (n, v.into_iter().flatten().collect::<Vec<f64>>())
    };
    let (n, zod) = rows(run.zod_samples());
    let (m, nl) = rows(run.nonlinear.samples.clone());
    Ok((object(py, &run.summary())?, table(py, n, 5, zod)?, table(py, m, 5, nl)?))
}

/// P4: Theorem 4 over all systems (32)-(35), as the CLI's `fixture theorem4 --json`.
#[pyfunction]
fn fixture_theorem4(py: Python<'_>, name: &str, text: &str, is_json: bool) -> PyResult<Py<PyAny>> {
    let f = model(name, text, is_json, contactlab::fixture::model::from_model)?;
    let (_, v) = py.detach(|| contactlab::api::fixture_theorem4(&f, &|_, _| {})).map_err(to_py)?;
    object(py, &v)
}

/// P4: the classification as the friction coefficients are scaled, as the CLI's
/// `fixture mu-sweep --json`.
#[pyfunction]
fn fixture_mu_sweep(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    max_scale: f64,
    steps: i64,
) -> PyResult<Py<PyAny>> {
    let steps = count("steps", steps, contactlab::api::MU_SWEEP_STEPS)?;
    let f = model(name, text, is_json, contactlab::fixture::model::from_model)?;
    object(py, &py.detach(|| contactlab::api::fixture_mu_sweep(&f, max_scale, steps)).map_err(to_py)?)
}

fn walker_model(name: &str, text: &str, is_json: bool) -> PyResult<contactlab::walking::model::WalkerModel> {
    model(name, text, is_json, contactlab::walking::model::from_model)
}

/// P2: the periodic gait, as the CLI's `walker gait --json`.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, guess=None, rtol=None))]
fn walker_gait(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    guess: Option<Vec<f64>>,
    rtol: Option<f64>,
) -> PyResult<Py<PyAny>> {
    let m = walker_model(name, text, is_json)?;
    object(py, &py.detach(|| contactlab::api::walker_gait(&m, guess.as_deref(), rtol)).map_err(to_py)?)
}

/// P2: Painlevé's paradox, as the CLI's `walker painleve --json`; for the compass biped also
/// the grid of angles and where `B < 0` on it (`[θ₂ index, θ₁ index]`).
#[pyfunction]
#[pyo3(signature = (name, text, is_json, mu=None, sigma=contactlab::api::WALKER_SIGMA as i64))]
#[allow(clippy::type_complexity)]
fn walker_painleve<'py>(
    py: Python<'py>,
    name: &str,
    text: &str,
    is_json: bool,
    mu: Option<f64>,
    sigma: i64,
) -> PyResult<(Py<PyAny>, Option<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<bool>>)>)> {
    let sigma = match sigma {
        1 => 1,
        -1 => -1,
        _ => return Err(PyValueError::new_err(format!("sigma: must be 1 or -1 (got {sigma})"))),
    };
    let m = walker_model(name, text, is_json)?;
    let r = py.detach(|| contactlab::api::walker_painleve(&m, mu, sigma)).map_err(to_py)?;
    let grid = match &r.grid {
        Some(g) => {
            let angles: Vec<f64> = (0..g.n).map(|k| g.at(k)).collect();
            let flat: Vec<bool> = g.negative.iter().flatten().copied().collect();
            let neg = flat.into_pyarray(py).reshape([g.negative.len(), g.n])?;
            Some((col(py, angles), neg))
        }
        None => None,
    };
    Ok((object(py, &r.summary)?, grid))
}

/// P2: a slip of the stance foot, or the jam threshold, as the CLI's `walker slip --json`.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, state, jam_threshold=false, max_speed=contactlab::api::JAM_MAX_SPEED))]
fn walker_slip(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    state: Vec<f64>,
    jam_threshold: bool,
    max_speed: f64,
) -> PyResult<Py<PyAny>> {
    let m = walker_model(name, text, is_json)?;
    contactlab::error::positive("max_speed", max_speed).map_err(to_py)?;
    if jam_threshold {
        object(py, &py.detach(|| contactlab::api::walker_jam_threshold(&m, &state, max_speed)).map_err(to_py)?)
    } else {
        object(py, &py.detach(|| contactlab::api::walker_slip(&m, &state)).map_err(to_py)?)
    }
}

/// The cells of a basin grid, the first axis varying fastest: `axes` as `(name, lo, hi, n)`.
#[pyfunction]
fn basin_grid(axes: Vec<(String, f64, f64, i64)>) -> PyResult<Vec<Vec<f64>>> {
    use contactlab::multibody::basin::{grid, BasinAxis, MAX_CELLS};
    let axes: Vec<BasinAxis> = axes
        .into_iter()
        .map(|(name, lo, hi, n)| {
            let a = BasinAxis { n: count(&format!("vary {name}"), n, 1..=MAX_CELLS)?, name, lo, hi };
            a.validate().map_err(to_py)?;
            Ok(a)
        })
        .collect::<PyResult<_>>()?;
    if axes.is_empty() || axes.len() > 2 {
        return Err(PyValueError::new_err(format!("vary: give one or two section coordinates, got {}", axes.len())));
    }
    let total: usize = axes.iter().map(|a| a.n).product();
    if total > MAX_CELLS {
        return Err(PyValueError::new_err(format!("vary: {total} cells; at most {MAX_CELLS}")));
    }
    Ok(grid(&axes))
}

/// A basin's plan (base state and stable gaits), computed once for its chunks; as a dict.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, vary, state=None, steps=contactlab::multibody::basin::BasinSettings::default().steps as i64, capture_tol=contactlab::multibody::basin::BasinSettings::default().capture_tol, fall_height=contactlab::multibody::basin::BasinSettings::default().fall_height, rtol=contactlab::multibody::basin::BasinSettings::default().rtol, before_strike=false, max_step_time=contactlab::multibody::basin::BasinSettings::default().max_step_time))]
#[allow(clippy::too_many_arguments)]
fn basin_plan(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    vary: Vec<String>,
    state: Option<Vec<f64>>,
    steps: i64,
    capture_tol: f64,
    fall_height: f64,
    rtol: f64,
    before_strike: bool,
    max_step_time: f64,
) -> PyResult<Py<PyAny>> {
    let settings = contactlab::multibody::basin::BasinSettings {
        steps: count("steps", steps, 1..=contactlab::multibody::basin::MAX_STRIKES)?,
        capture_tol,
        fall_height,
        rtol,
        before_strike,
        max_step_time,
        ..Default::default()
    };
    // A 3-D scene's gait, or a planar mechanism's gaits.
    let m = contactlab::api::open_doc(&model_doc(name, text, is_json)?).map_err(to_py)?;
    object(py, &py.detach(|| contactlab::api::basin_plan(&m, &vary, state.as_deref(), &settings)).map_err(to_py)?)
}

/// One chunk of a basin: the cells at `points` against `plan` (the JSON text of a plan).
#[pyfunction]
fn basin_cells(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    plan: &str,
    points: Vec<Vec<f64>>,
) -> PyResult<Py<PyAny>> {
    let plan: contactlab::multibody::basin::BasinPlan =
        serde_json::from_str(plan).map_err(|e| PyValueError::new_err(format!("plan: {e}")))?;
    let m = contactlab::api::open_doc(&model_doc(name, text, is_json)?).map_err(to_py)?;
    object(py, &py.detach(|| contactlab::api::basin_cells(&m, &plan, &points, &|_, _| {})).map_err(to_py)?)
}

/// The library's default of every setting the front ends expose, by command (as
/// `contactlab::api::defaults`): the Python functions' defaults come from the same place.
#[pyfunction]
fn defaults(py: Python<'_>) -> PyResult<Py<PyAny>> {
    object(py, &contactlab::api::defaults())
}

/// Pseudo-arclength continuation of a model's periodic orbit in one parameter of its file, as
/// the CLI's `continue --json`.
#[pyfunction]
#[pyo3(signature = (name, text, is_json, param, to, frm=None, state=None, orbit=None, max_doublings=contactlab::continuation::Settings::default().max_doublings as i64, step=contactlab::continuation::Settings::default().step, max_step=contactlab::continuation::Settings::default().max_step, max_points=contactlab::continuation::Settings::default().max_points as i64, rtol=contactlab::multibody::gait::GaitSettings::default().rtol))]
#[allow(clippy::too_many_arguments)]
fn continuation(
    py: Python<'_>,
    name: &str,
    text: &str,
    is_json: bool,
    param: String,
    to: f64,
    frm: Option<f64>,
    state: Option<Vec<f64>>,
    orbit: Option<String>,
    max_doublings: i64,
    step: f64,
    max_step: f64,
    max_points: i64,
    rtol: f64,
) -> PyResult<Py<PyAny>> {
    let doc = model_doc(name, text, is_json)?;
    let req = contactlab::api::ContinueRequest {
        param,
        from: frm,
        to,
        state,
        orbit,
        settings: contactlab::continuation::Settings {
            step,
            max_step,
            max_points: count("max_points", max_points, 1..=1_000_000)?,
            max_doublings: count("max_doublings", max_doublings, 0..=6)?,
            ..Default::default()
        },
        gait: contactlab::multibody::gait::GaitSettings { rtol, ..Default::default() },
    };
    object(py, &py.detach(|| contactlab::api::continuation(&doc, &req, &|_| {})).map_err(to_py)?)
}

/// The compiled module.
mod mechanisms;
mod spatial;
mod zeno_eqset;
use mechanisms::*;
use spatial::*;
use zeno_eqset::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NumericalError", m.py().get_type::<NumericalError>())?;
    m.add_class::<LcpSolution>()?;
    m.add_class::<Robot>()?;
    m.add_function(wrap_pyfunction!(lcp_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_time_lcp_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_time_lcp_solve_each, m)?)?;
    m.add_function(wrap_pyfunction!(_time_p1_maps_at, m)?)?;
    m.add_function(wrap_pyfunction!(lcp_classes, m)?)?;
    m.add_function(wrap_pyfunction!(lcp_solve_all, m)?)?;
    m.add_function(wrap_pyfunction!(p1_classify, m)?)?;
    m.add_function(wrap_pyfunction!(p1_maps, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_cells, m)?)?;
    m.add_function(wrap_pyfunction!(continuation, m)?)?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add_function(wrap_pyfunction!(basin_grid, m)?)?;
    m.add_function(wrap_pyfunction!(basin_plan, m)?)?;
    m.add_function(wrap_pyfunction!(basin_cells, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_columns, m)?)?;
    m.add_function(wrap_pyfunction!(fixture_classify, m)?)?;
    m.add_function(wrap_pyfunction!(model_kind, m)?)?;
    m.add_function(wrap_pyfunction!(check_cells, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(eqset_analyze, m)?)?;
    m.add_function(wrap_pyfunction!(eqset_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(p1_modes, m)?)?;
    m.add_function(wrap_pyfunction!(p1_maps_at, m)?)?;
    m.add_function(wrap_pyfunction!(p1_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(fixture_theorem4, m)?)?;
    m.add_function(wrap_pyfunction!(fixture_mu_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(walker_gait, m)?)?;
    m.add_function(wrap_pyfunction!(walker_painleve, m)?)?;
    m.add_function(wrap_pyfunction!(walker_slip, m)?)?;
    m.add_function(wrap_pyfunction!(zeno_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(zeno_orbit, m)?)?;
    m.add_function(wrap_pyfunction!(zeno_bound, m)?)?;
    m.add_function(wrap_pyfunction!(zeno_continuation, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(walking_source, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(gait, m)?)?;
    m.add_function(wrap_pyfunction!(stance, m)?)?;
    m.add_function(wrap_pyfunction!(painleve, m)?)?;
    m.add_function(wrap_pyfunction!(slip, m)?)?;
    m.add_function(wrap_pyfunction!(orbit, m)?)?;
    Ok(())
}
