//! Continuation of a mechanism's gait in any parameter of its model file
//! ([`crate::continuation`] on the strike-to-strike map of [`super::gait`]).
//!
//! The parameter is a key of the model document ([`crate::model::param`]: `slope_deg`,
//! `contact[*].mu`, `body[hip].mass`, a spring's stiffness, ...); at each parameter value the
//! document is read again (so every value is validated as in a file) and the mechanism's system
//! rebuilt. The section chart keeps the constraints and coordinates it had at the start
//! ([`StrikeChart::rebind`]), so the branch is one curve in one chart. The gait at `from` is
//! the one given, or else the first (most stable) gait [`find_gaits`] finds from nothing.
//!
//! Reported along the branch, besides the period and multipliers: the state, `μ_stick`, the
//! strike's impulse ratio, the least normalised Painlevé `B` along the step (`min_b`: P2's
//! `(d − μ|c|)/(d + μ|c|)` of each closed frictional contact; its sign change is the
//! [`SpecialKind::PainleveOnset`] test), the least clearance of a contact that ignores scuffing
//! (`min_clearance`: its lowest gap over the length scale while its arming rule keeps it from
//! striking, after it first stops rising;
//! its sign change is the [`SpecialKind::Scuffing`] test), and the step's events (their changes are grazing,
//! sticking lost, a slipping strike, Zeno onset or end).

use nalgebra::DVector;

use super::gait::{
    driver_for, find_gaits, gait_from, orbit_details, GaitSettings, GaitSpec, StrikeChart, MAX_STEPS_PER_STRIKE,
};
use super::Mechanism;
use crate::continuation::{self, Continuation, Evaluation, MapFamily, Observation, Settings, SpecialKind};
use crate::hybrid::driver::PoincareSection;
use crate::hybrid::lagrangian::{join, split, Lagrangian};
use crate::hybrid::section::{ReturnMap, SectionChart};
use crate::hybrid::EventKind;
use crate::mechanics::multibody_system::MultibodySystem;
use crate::mechanics::ContactSystem;
use crate::model::param::ParamKey;
use crate::model::ModelDoc;
use crate::Error;

/// The gait's strike-to-strike maps as the parameter varies.
struct GaitFamily<'a> {
    doc: &'a ModelDoc,
    key: &'a ParamKey,
    spec: &'a GaitSpec,
    chart: StrikeChart<'a>,
    settings: &'a GaitSettings,
    names: &'a [String],
    q0: Vec<f64>,
}

impl GaitFamily<'_> {
    fn system(&self, p: f64) -> Result<MultibodySystem, String> {
        let doc = self.doc.with_param(self.key, p).map_err(|e| e.to_string())?;
        let m = super::model::from_model(&doc).map_err(|e| e.to_string())?;
        m.system().map_err(|e| e.to_string())
    }
    fn with_map<T>(
        &self,
        p: f64,
        f: impl FnOnce(&ReturnMap<'_, Lagrangian<&MultibodySystem>, StrikeChart<'_>>) -> T,
    ) -> Result<T, String> {
        let sys = self.system(p)?;
        let lag = Lagrangian::new(&sys);
        let ts = sys.time_scale();
        let s = self.settings;
        let map = ReturnMap {
            system: &lag,
            section: PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(self.spec.strike) },
            chart: self.chart.rebind(&sys, &self.chart.reference_state()),
            driver: driver_for(s, s.max_step_time * ts, 500, MAX_STEPS_PER_STRIKE),
            derivatives: s.derivatives,
        };
        Ok(f(&map))
    }
}

impl MapFamily for GaitFamily<'_> {
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
        let Ok(sys) = self.system(p) else { return Observation::default() };
        let lag = Lagrangian::new(&sys);
        let chart = self.chart.rebind(&sys, &self.chart.reference_state());
        let mut x = chart.lift(y);
        for &k in &self.spec.translation {
            x[(k, 0)] = self.q0[k];
        }
        let s = self.settings;
        let d = orbit_details(
            &lag,
            &sys,
            &x,
            self.spec,
            self.names,
            driver_for(s, s.max_step_time * sys.time_scale(), 500, MAX_STEPS_PER_STRIKE),
        );
        let (q, v) = split(&x);
        let nan = f64::NAN;
        let mut quantities = vec![
            ("mu_stick".to_string(), d.mu_stick.unwrap_or(nan)),
            ("impulse_ratio".to_string(), d.impulse_ratio.unwrap_or(nan)),
            ("min_b".to_string(), d.min_b.unwrap_or(nan)),
            ("min_clearance".to_string(), d.min_clearance.unwrap_or(nan)),
        ];
        for (k, l) in self.spec.translation.iter().zip(&d.step_length) {
            quantities.push((format!("step_length[{k}]"), *l));
        }
        Observation {
            state: q.iter().chain(v.iter()).copied().collect(),
            quantities,
            tests: vec![
                (SpecialKind::PainleveOnset, d.min_b.unwrap_or(nan)),
                (SpecialKind::Scuffing, d.min_clearance.unwrap_or(nan)),
            ],
            events: d.labels,
        }
    }
}

/// Where a gait continuation starts: a post-strike state (`q`, `q̇`), or `None` to find the
/// gait from nothing.
pub type Start<'a> = Option<(&'a [f64], &'a [f64])>;

/// Continues a gait of the mechanism in `doc` (a `kind = "multibody"` document with a `[gait]`
/// table) in the parameter `key` from `settings.from` to `settings.to` (module docs).
pub fn continue_gait(
    doc: &ModelDoc,
    key: &ParamKey,
    start: Start<'_>,
    settings: &Settings,
    gait: &GaitSettings,
    progress: &dyn Fn(f64),
) -> Result<Continuation, Error> {
    settings.validate()?;
    crate::error::fraction("rtol", gait.rtol)?;
    // The parameter must name a number of this document, and the model at `from` must read.
    doc.param(key)?;
    let m = super::model::from_model(&doc.with_param(key, settings.from)?)?;
    let spec = m.gait.clone().ok_or_else(|| {
        Error::input(&m.source, "gait", "missing; a [gait] table names the striking contact (strike = \"...\")")
    })?;
    let g = match start {
        Some((q, v)) => gait_from(&m, q, v, gait)?.ok_or_else(|| {
            Error::argument("state", format!("Newton found no gait from this state at {key} = {}", settings.from))
        })?,
        None => {
            let found = find_gaits(&m, gait)?;
            found.gaits.into_iter().next().ok_or_else(|| {
                Error::model(
                    key.as_str(),
                    format!(
                        "no gait at {key} = {}: {}",
                        settings.from,
                        found.reason.unwrap_or_else(|| "none found".into())
                    ),
                )
            })?
        }
    };
    struct Run<'a> {
        doc: &'a ModelDoc,
        key: &'a ParamKey,
        m: &'a Mechanism,
        spec: &'a GaitSpec,
        gait: &'a GaitSettings,
        settings: &'a Settings,
        q: &'a [f64],
        v: &'a [f64],
        progress: &'a dyn Fn(f64),
    }
    impl Run<'_> {
        fn run(self, sys: MultibodySystem) -> Continuation {
            let x = join(&DVector::<f64>::from_column_slice(self.q), &DVector::<f64>::from_column_slice(self.v));
            let chart = StrikeChart::new(&sys, &x, &self.spec.translation);
            let y0 = chart.chart(&x);
            let fam = GaitFamily {
                doc: self.doc,
                key: self.key,
                spec: self.spec,
                chart,
                settings: self.gait,
                names: &self.m.contact_names,
                q0: self.m.q0.clone(),
            };
            let mut c = continuation::continue_branches(&fam, &y0, self.settings, self.progress);
            c.param = self.key.to_string();
            c
        }
    }
    Ok(Run { doc, key, m: &m, spec: &spec, gait, settings, q: &g.q, v: &g.v, progress }.run(m.system()?))
}

/// Continues P3's periodic orbit through the constrained phases of the constraint named
/// `constraint` (a joint limit or contact of the mechanism in `doc`) in the parameter `key`:
/// the orbit at `settings.from` is reached from the model's initial state (the return map
/// iterated until it settles), then followed ([`crate::zeno_orbit::OrbitFamily`]).
pub fn continue_orbit(
    doc: &ModelDoc,
    key: &ParamKey,
    constraint: &str,
    settings: &Settings,
    progress: &dyn Fn(f64),
) -> Result<Continuation, Error> {
    settings.validate()?;
    doc.param(key)?;
    let m = super::model::from_model(&doc.with_param(key, settings.from)?)?;
    let i = m.contact_index("orbit", constraint)?;
    struct Run<'a> {
        doc: &'a ModelDoc,
        key: &'a ParamKey,
        m: &'a Mechanism,
        i: usize,
        settings: &'a Settings,
        progress: &'a dyn Fn(f64),
    }
    impl Run<'_> {
        fn run(self, _sys: MultibodySystem) -> Result<Continuation, Error> {
            let (doc, key, i) = (self.doc, self.key, self.i);
            let system = move |p: f64| -> Result<MultibodySystem, String> {
                let d = doc.with_param(key, p).map_err(|e| e.to_string())?;
                let m = super::model::from_model(&d).map_err(|e| e.to_string())?;
                m.with_contact_first(i).system().map_err(|e| e.to_string())
            };
            crate::zeno_orbit::orbit_continuation(system, &self.m.q0, &self.m.v0, key, self.settings, self.progress)
        }
    }
    let first = m.with_contact_first(i);
    Run { doc, key, m: &first, i, settings, progress }.run(first.system()?)
}
