//! Continuation of a 3-D gait in a parameter of its scene file ([`crate::continuation`] on the
//! strike-to-strike map of [`super::spatial_gait`]).
//!
//! The parameter is a key of the scene document ([`crate::model::param`]): `slope` (or
//! `slope_deg`), `gravity`, `mu`, `link[left_leg].pos[1]` (a hip width, carried to the leg's
//! mirror partner), `link[wheel].mass`, `joint[left_hip].stiffness`, `walking.ahead`, ... At each
//! value the document is read again (every value validated as in a file) and the event scene
//! rebuilt; the section chart keeps the reference state, constraints and coordinates it had at
//! the start ([`SpatialChart::rebind`]), and the symmetry is built (and checked) at each value.
//!
//! Reported along the branch, besides the period and the multipliers (exact, from the
//! variational equations): the post-strike state, the step's length along each translation of
//! the `[gait]` table (`step_length[NAME]`), and the step's events, whose changes are located
//! and classified (grazing: an impact appeared or vanished; sticking lost: a slip onset).

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector};

use super::spatial::SpatialModel;
use super::spatial_gait::{driver, spatial_gait, symmetry_of, GaitSpec3};
use crate::continuation::{self, Continuation, Evaluation, MapFamily, Observation, Settings};
use crate::hybrid::driver::{EventRecord, PoincareSection};
use crate::hybrid::section::{ReturnMap, SectionChart};
use crate::hybrid::{EventKind, Observer};
use crate::model::param::ParamKey;
use crate::model::ModelDoc;
use crate::multibody::gait::GaitSettings;
use crate::spatial::events::{EventScene, Modes3};
use crate::spatial::section::SpatialChart;
use crate::Error;

/// The gait's strike-to-strike maps as the parameter varies.
struct Gait3Family<'a> {
    /// The model at a parameter value.
    build: &'a dyn Fn(f64) -> Result<SpatialModel, String>,
    /// The parameter's name.
    param: &'a str,
    /// The chart at the start (its system the start's).
    chart: &'a SpatialChart<'a>,
    settings: &'a GaitSettings,
    /// Configuration indices of the `[gait]` translations, with their names.
    translations: Vec<(usize, String)>,
}

impl Gait3Family<'_> {
    /// Runs `f` on the return map at `p`.
    fn with_map<T>(
        &self,
        p: f64,
        f: impl FnOnce(&ReturnMap<'_, EventScene<'_>, SpatialChart<'_>>) -> T,
    ) -> Result<T, String> {
        let m = (self.build)(p)?;
        let spec = m.gait.clone().ok_or("the scene lost its [gait] table")?;
        let scene = m.scene(None, 0.0);
        let x = self.chart.reference_state();
        let sys = EventScene::with_stops(&scene, &x.as_slice()[..m.tree.nq()]).map_err(|e| e.to_string())?;
        let feet = sys.shape_contacts();
        if sys.nc() != self.chart.system().nc() || x.nrows() != m.tree.nq() + m.tree.nv() {
            return Err(format!("the scene at {} = {p} has other contacts or coordinates", self.param));
        }
        let symmetry = symmetry_of(&spec, &sys).map_err(|e| e.to_string())?;
        let map = ReturnMap {
            system: &sys,
            section: PoincareSection::AfterEventOf { kind: EventKind::Impact, contacts: &feet },
            chart: self.chart.rebind(&sys, symmetry),
            driver: driver(self.settings.rtol, self.settings.max_step_time * sys.time()),
            derivatives: self.settings.derivatives,
        };
        Ok(f(&map))
    }
}

/// The events of a run up to its first strike, as `kind(contact)`.
struct StepEvents {
    labels: Vec<String>,
    names: Vec<String>,
    after: Option<DMatrix<f64>>,
}

impl Observer<DMatrix<f64>, Modes3> for StepEvents {
    fn on_event(&mut self, ev: &EventRecord<DMatrix<f64>, Modes3>) -> ControlFlow<()> {
        let name = ev.info.contact.and_then(|i| self.names.get(i)).cloned().unwrap_or_default();
        self.labels.push(format!("{}({name})", crate::output::kebab(&ev.info.kind)));
        if ev.info.kind == EventKind::Impact {
            self.after = Some(ev.after.clone());
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

impl MapFamily for Gait3Family<'_> {
    fn dim(&self) -> usize {
        self.chart.dim()
    }
    fn scale(&self) -> DVector<f64> {
        self.chart.scale()
    }
    fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String> {
        self.with_map(p, |map| Evaluation::of(map, y))?
    }
    fn image(&self, p: f64, y: &DVector<f64>) -> Result<DVector<f64>, String> {
        self.with_map(p, |map| Evaluation::image_of(map, y))?
    }
    fn observe(&self, p: f64, y: &DVector<f64>) -> Observation {
        let run = self.with_map(p, |map| {
            let x = map.chart.lift(y);
            let names = map.system.contacts().iter().map(|c| c.name.clone()).collect();
            let mut obs = StepEvents { labels: vec![], names, after: None };
            map.driver.run(map.system, 0.0, x.clone(), &[], &mut obs);
            (x, obs)
        });
        let Ok((x, obs)) = run else { return Observation::default() };
        let quantities = self
            .translations
            .iter()
            .map(|(k, name)| {
                let l = obs.after.as_ref().map_or(f64::NAN, |a| a[(*k, 0)] - x[(*k, 0)]);
                (format!("step_length[{name}]"), l)
            })
            .collect();
        Observation { state: x.as_slice().to_vec(), quantities, tests: vec![], events: obs.labels }
    }
}

/// Continues the gait of the 3-D scene in `doc` (a scene with a `[gait]` table) in the
/// parameter `key` from `settings.from` to `settings.to` (module docs). The gait at `from` is
/// found by [`spatial_gait`] from `state` (a post-strike state `q` then `v` with the `[gait]`
/// table's `settle`; `None`: the file's `[initial]`).
pub(crate) fn continue_spatial_gait(
    doc: &ModelDoc,
    key: &ParamKey,
    state: Option<&[f64]>,
    settings: &Settings,
    gait: &GaitSettings,
    progress: &dyn Fn(f64),
) -> Result<Continuation, Error> {
    settings.validate()?;
    doc.param(key)?;
    // The model at `from` must read (its error is the key's).
    super::scene3::from_doc(&doc.with_param(key, settings.from)?)?;
    let build = |p: f64| -> Result<SpatialModel, String> {
        let d = doc.with_param(key, p).map_err(|e| e.to_string())?;
        super::scene3::from_doc(&d).map_err(|e| e.to_string())
    };
    continue_spatial_gait_with(&build, key.as_str(), state, settings, gait, progress)
}

/// [`continue_spatial_gait`] on the models `build(p)` makes (a scene with a `[gait]` table at
/// each value of the parameter named `param`).
pub(crate) fn continue_spatial_gait_with(
    build: &dyn Fn(f64) -> Result<SpatialModel, String>,
    param: &str,
    state: Option<&[f64]>,
    settings: &Settings,
    gait: &GaitSettings,
    progress: &dyn Fn(f64),
) -> Result<Continuation, Error> {
    settings.validate()?;
    let m = build(settings.from).map_err(|e| Error::model(param, e))?;
    let g = spatial_gait(&m, state, gait)?;
    let Some(x) = g.state() else {
        return Err(Error::model(
            param,
            format!(
                "no gait at {param} = {}: {}",
                settings.from,
                g.reason.unwrap_or_else(|| "Newton's method did not converge".into())
            ),
        ));
    };
    let spec: &GaitSpec3 = m.gait.as_ref().ok_or_else(|| Error::input(&m.path, "gait", "no [gait] table: a gait's family is continued from its strike-to-strike map (docs/models.md, \"Gaits in 3-D\")"))?;
    let scene = m.scene(None, 0.0);
    let nq = m.tree.nq();
    let sys = EventScene::with_stops(&scene, &x[..nq])?;
    let xs = DMatrix::from_column_slice(x.len(), 1, &x);
    let chart = SpatialChart::new(&sys, &xs, &spec.translation, symmetry_of(spec, &sys)?);
    let y0 = chart.chart(&xs);
    let translations = spec
        .translation
        .iter()
        .map(|&k| {
            let i = configuration_index(&m, k);
            (i, m.coordinates[i].clone())
        })
        .collect();
    let fam = Gait3Family { build, param, chart: &chart, settings: gait, translations };
    let mut c = continuation::continue_branches(&fam, &y0, settings, progress);
    c.param = param.to_string();
    Ok(c)
}

/// The configuration index moved by the translational velocity `k` (a slide's, a free or
/// translation joint's first three, a planar joint's first two).
fn configuration_index(m: &SpatialModel, k: usize) -> usize {
    let tree = &m.tree;
    (0..tree.bodies().len())
        .find_map(|b| {
            let (iq, iv) = tree.joint_start(b);
            (k >= iv && k < iv + tree.bodies()[b].joint.nv()).then_some(iq + (k - iv))
        })
        .unwrap_or(k)
}
