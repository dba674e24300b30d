//! Helpers that several test modules share, each written independently of the code it checks.

pub mod desingular;
pub mod hand_written_gait;

use contactlab::api::{MechanismModel, SimulateSettings, SpatialInspection, SpatialModel, SpatialSimulation};
use contactlab::multibody::Mechanism;

/// A robot in 3-D as `api::open` reads it (`base` for a URDF: `"fixed"` or `"floating"`).
pub fn open3(path: &std::path::Path, base: Option<&str>) -> Result<SpatialModel, contactlab::Error> {
    match contactlab::api::open(path, base)? {
        MechanismModel::Spatial(m) => Ok(*m),
        MechanismModel::Planar(_) => panic!("{}: a planar mechanism, not a robot in 3-D", path.display()),
    }
}

/// A 3-D scene from its model document, as `api::open_doc` reads it.
pub fn open_doc3(doc: &contactlab::model::ModelDoc) -> Result<SpatialModel, contactlab::Error> {
    match contactlab::api::open_doc(doc)? {
        MechanismModel::Spatial(m) => Ok(*m),
        MechanismModel::Planar(_) => panic!("{}: a planar mechanism, not a 3-D scene", doc.file),
    }
}

/// `api::gait_with` of a robot in 3-D held as its model: its gait.
pub fn gait3(
    m: &SpatialModel,
    state: Option<&[f64]>,
    s: &contactlab::multibody::gait::GaitSettings,
) -> Result<contactlab::api::SpatialGait, contactlab::Error> {
    let g = contactlab::api::gait_with(&m.clone().into(), state, s)?;
    Ok(g.into_spatial().expect("a robot in 3-D has a 3-D gait"))
}

/// `api::simulate` of a robot in 3-D held as its model.
pub fn simulate3(
    m: &SpatialModel,
    state: Option<&[f64]>,
    s: &SimulateSettings,
) -> Result<SpatialSimulation, contactlab::Error> {
    contactlab::api::simulate(&MechanismModel::Spatial(Box::new(m.clone())), state, s)?.into_spatial()
}

/// `api::inspect` of a robot in 3-D held as its model.
pub fn inspect3(m: &SpatialModel, state: Option<&[f64]>, t: f64) -> Result<SpatialInspection, contactlab::Error> {
    match contactlab::api::inspect(&MechanismModel::Spatial(Box::new(m.clone())), state, t)? {
        contactlab::api::Inspection::Spatial(r) => Ok(r),
        contactlab::api::Inspection::Planar(_) => Err(contactlab::Error::argument("model", "inspected as planar")),
    }
}

/// `api::simulate` of a planar mechanism with the planar run's settings.
pub fn simulate_planar(
    m: &Mechanism,
    state: Option<&[f64]>,
    s: &contactlab::multibody::simulate::SimulateSettings,
) -> Result<contactlab::multibody::simulate::Simulation, contactlab::Error> {
    let settings = SimulateSettings {
        t_max: s.t_max,
        rtol: s.rtol,
        max_events: s.max_events,
        per_step: s.per_step,
        ..Default::default()
    };
    contactlab::api::simulate(&MechanismModel::Planar(Box::new(m.clone())), state, &settings)?.into_planar()
}

/// `api::inspect` of a planar mechanism.
pub fn inspect_planar(
    m: &Mechanism,
    state: Option<&[f64]>,
    t: f64,
) -> Result<contactlab::multibody::inspect::Inspection, contactlab::Error> {
    match contactlab::api::inspect(&MechanismModel::Planar(Box::new(m.clone())), state, t)? {
        contactlab::api::Inspection::Planar(r) => Ok(r),
        contactlab::api::Inspection::Spatial(_) => Err(contactlab::Error::argument("model", "inspected in 3-D")),
    }
}

/// `api::painleve` of a robot in 3-D held as its model.
pub fn painleve3(
    m: &SpatialModel,
    state: Option<&[f64]>,
    s: &contactlab::api::PainleveSettings,
) -> Result<contactlab::api::Painleve3, contactlab::Error> {
    match contactlab::api::painleve(&MechanismModel::Spatial(Box::new(m.clone())), state, s)? {
        contactlab::api::Painleve::Spatial(r) => Ok(*r),
        contactlab::api::Painleve::Planar(_) => Err(contactlab::Error::argument("model", "analysed as planar")),
    }
}

/// `api::slip` of a robot in 3-D held as its model.
pub fn slip3(
    m: &SpatialModel,
    state: Option<&[f64]>,
    contact: &str,
) -> Result<contactlab::api::Slip3Report, contactlab::Error> {
    match contactlab::api::slip(&MechanismModel::Spatial(Box::new(m.clone())), state, contact)? {
        contactlab::api::Slip::Spatial(r) => Ok(r),
        contactlab::api::Slip::Planar(_) => Err(contactlab::Error::argument("model", "slipped as planar")),
    }
}

/// `api::jam_threshold` of a robot in 3-D held as its model.
pub fn jam3(
    m: &SpatialModel,
    state: Option<&[f64]>,
    contact: &str,
    max_speed: f64,
) -> Result<contactlab::api::JamThresholdReport, contactlab::Error> {
    contactlab::api::jam_threshold(&MechanismModel::Spatial(Box::new(m.clone())), state, contact, None, max_speed)
}

/// `api::slip` of a planar mechanism.
pub fn slip_planar(
    m: &Mechanism,
    state: Option<&[f64]>,
    contact: &str,
) -> Result<contactlab::api::SlipReport, contactlab::Error> {
    match contactlab::api::slip(&MechanismModel::Planar(Box::new(m.clone())), state, contact)? {
        contactlab::api::Slip::Planar(r) => Ok(r),
        contactlab::api::Slip::Spatial(_) => Err(contactlab::Error::argument("model", "slipped in 3-D")),
    }
}

/// `api::jam_threshold` of a planar mechanism.
pub fn jam_planar(
    m: &Mechanism,
    state: Option<&[f64]>,
    contact: &str,
    along: Option<&str>,
    max_speed: f64,
) -> Result<contactlab::api::JamThresholdReport, contactlab::Error> {
    contactlab::api::jam_threshold(&MechanismModel::Planar(Box::new(m.clone())), state, contact, along, max_speed)
}

/// `api::stance` of a robot in 3-D held as its model, with all its contacts.
pub fn stance3(
    m: &SpatialModel,
    state: Option<&[f64]>,
    s: &contactlab::api::StanceSettings,
) -> Result<contactlab::api::Stance, contactlab::Error> {
    contactlab::api::stance(&MechanismModel::Spatial(Box::new(m.clone())), state, s, None)
}
