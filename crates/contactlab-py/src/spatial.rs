//! Robots in 3-D: how a file is read for the walking commands, the `Robot` class (a robot's
//! dynamics in a loop) and `stance`.

use super::*;

/// Whether `path` with `base` is a 3-D scene for `command` (`gait`, `basin`, `continue`,
/// `orbit`; `False`: a planar model), as the CLI decides (`contactlab::api::walking_source`): a
/// bare URDF or MJCF file, a robot in 3-D, is an error naming what the command needs.
#[pyfunction]
#[pyo3(signature = (path, base, command))]
pub(crate) fn walking_source(path: &str, base: Option<&str>, command: &str) -> PyResult<bool> {
    contactlab::api::walking_source(std::path::Path::new(path), base, command).map_err(to_py)
}

/// A robot in 3-D read from a file as `model inspect` reads it (an MJCF file, a URDF with its
/// `base`, a 3-D scene file), for scripts that evaluate its dynamics in a loop:
/// `mass_matrix(q)` and `bias(q, v)` (`M v̇ = bias + τ + Jᵀλ`; `bias = −(C v + g)`), numpy in
/// and out, in the file's coordinates (MuJoCo's for MJCF, Pinocchio's for URDF).
#[pyclass(frozen, module = "contactlab.model")]
pub(crate) struct Robot {
    tree: contactlab::spatial::SpatialTree,
    #[pyo3(get)]
    coordinates: Vec<String>,
    #[pyo3(get)]
    velocities: Vec<String>,
}

impl Robot {
    fn checked<'a>(&self, what: &str, x: &'a PyReadonlyArray1<'_, f64>, n: usize) -> PyResult<&'a [f64]> {
        let s = x.as_slice().map_err(|_| PyValueError::new_err(format!("{what}: needs a contiguous float64 array")))?;
        if s.len() != n || s.iter().any(|v| !v.is_finite()) {
            return Err(PyValueError::new_err(format!("{what}: needs {n} finite numbers (got {})", s.len())));
        }
        Ok(s)
    }
}

#[pymethods]
impl Robot {
    #[new]
    #[pyo3(signature = (path, base=None))]
    fn new(path: std::path::PathBuf, base: Option<&str>) -> PyResult<Self> {
        if base == Some("planar") {
            let e = "planar reads a URDF as a planar mechanism; a Robot is a robot in 3-D (fixed or floating)";
            return Err(to_py(contactlab::Error::argument("base", e)));
        }
        let contactlab::api::MechanismModel::Spatial(m) = contactlab::api::open(&path, base).map_err(to_py)? else {
            let path = path.display();
            return Err(to_py(contactlab::Error::argument(
                "model",
                format!("{path} is a planar model, not a robot in 3-D"),
            )));
        };
        Ok(Self { tree: m.tree, coordinates: m.coordinates, velocities: m.velocities })
    }

    /// The number of configuration coordinates.
    #[getter]
    fn nq(&self) -> usize {
        self.tree.nq()
    }

    /// The number of velocities.
    #[getter]
    fn nv(&self) -> usize {
        self.tree.nv()
    }

    /// The joint-space inertia `M(q)` (nv × nv), by the composite-rigid-body algorithm.
    fn mass_matrix<'py>(&self, py: Python<'py>, q: PyReadonlyArray1<'py, f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let q = self.checked("q", &q, self.tree.nq())?;
        let m = self.tree.mass_matrix(q);
        let n = self.tree.nv();
        // Symmetric: its column-major storage is its row-major one.
        // SAFETY: a new C-contiguous array that nothing else sees, every element written below.
        let out = unsafe { PyArray2::<f64>::new(py, [n, n], false) };
        unsafe { out.as_slice_mut() }
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?
            .copy_from_slice(m.as_slice());
        Ok(out)
    }

    /// The bias `−(C(q, v) v + g(q))` (nv), by recursive Newton–Euler.
    fn bias<'py>(
        &self,
        py: Python<'py>,
        q: PyReadonlyArray1<'py, f64>,
        v: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let q = self.checked("q", &q, self.tree.nq())?;
        let v = self.checked("v", &v, self.tree.nv())?;
        Ok(PyArray1::from_slice(py, self.tree.bias(q, v).as_slice()))
    }

    fn __repr__(&self) -> String {
        format!("Robot(nq={}, nv={})", self.tree.nq(), self.tree.nv())
    }
}

/// A robot's stance stability in 3-D, as the CLI's `stance --json`.
#[pyfunction]
#[pyo3(signature = (path, state=None, base=None, joints="locked", friction="coulomb", touch=contactlab::api::StanceSettings::default().touch, slope_axis=None, contacts=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn stance(
    py: Python<'_>,
    path: &str,
    state: Option<Vec<f64>>,
    base: Option<&str>,
    joints: &str,
    friction: &str,
    touch: f64,
    slope_axis: Option<[f64; 3]>,
    contacts: Option<Vec<String>>,
) -> PyResult<Py<PyAny>> {
    let joints: contactlab::api::JointHold =
        joints.parse().map_err(|e: String| PyValueError::new_err(format!("joints: {e}")))?;
    let friction = match friction {
        "coulomb" => contactlab::fixture::FrictionLaw::Coulomb,
        "pyramid" => contactlab::fixture::FrictionLaw::Pyramid,
        other => return Err(PyValueError::new_err(format!("friction: \"{other}\": allowed coulomb, pyramid"))),
    };
    let m = contactlab::api::open(std::path::Path::new(path), base).map_err(to_py)?;
    let s = contactlab::api::StanceSettings {
        joints,
        friction,
        touch,
        slope_axis: slope_axis.map(|a| contactlab::spatial::algebra::Vec3::new(a[0], a[1], a[2])),
    };
    let r = py.detach(|| contactlab::api::stance(&m, state.as_deref(), &s, contacts.as_deref()));
    object(py, &r.map_err(to_py)?)
}
