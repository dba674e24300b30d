//! What a file is, decided in one place ([`open`]), and the commands that take any mechanism,
//! planar or in 3-D, as one entry each ([`inspect`], [`simulate`], [`painleve`], [`slip`],
//! [`jam_threshold`], [`stance`], [`orbit`], [`gait`]).
//!
//! A bare URDF is a robot in 3-D with its root held as the URDF says (`base` `"fixed"`, or
//! `"floating"`), and a planar mechanism only with `base = "planar"`; an MJCF file is a robot in
//! 3-D; a model file is a 3-D scene when it names a `urdf` with a `base` or an `mjcf`
//! ([`crate::model::ModelDoc::is_spatial_scene`]), and a planar mechanism otherwise
//! (docs/models.md). The command line and the Python package open every mechanism here.

use std::path::Path;

use super::*;

/// A mechanism as a command reads it: a planar one (`kind = "multibody"`, a URDF with
/// `base = "planar"`) or a robot in 3-D (an MJCF file, a URDF, a 3-D scene file).
#[derive(Debug, Clone)]
pub enum MechanismModel {
    /// A planar mechanism.
    Planar(Box<crate::multibody::Mechanism>),
    /// A robot in 3-D.
    Spatial(Box<SpatialModel>),
}

impl MechanismModel {
    /// The robot in 3-D, if this is one.
    pub fn spatial(&self) -> Option<&SpatialModel> {
        match self {
            Self::Spatial(m) => Some(m),
            Self::Planar(_) => None,
        }
    }

    /// The planar mechanism, if this is one.
    pub fn planar(&self) -> Option<&crate::multibody::Mechanism> {
        match self {
            Self::Planar(m) => Some(m),
            Self::Spatial(_) => None,
        }
    }
}

impl From<crate::multibody::Mechanism> for MechanismModel {
    fn from(m: crate::multibody::Mechanism) -> Self {
        Self::Planar(Box::new(m))
    }
}

impl From<SpatialModel> for MechanismModel {
    fn from(m: SpatialModel) -> Self {
        Self::Spatial(Box::new(m))
    }
}

/// Opens the mechanism at `path`, read as `base` says for a URDF (`"fixed"`, the default,
/// `"floating"` or `"planar"`; an argument error for any other file, which says itself how its
/// root is held): the one function that decides what a file is (module docs).
pub fn open(path: &Path, base: Option<&str>) -> Result<MechanismModel, Error> {
    match spatial_source(path, base)? {
        Some(source) => Ok(MechanismModel::Spatial(Box::new(spatial_model(path, source)?))),
        None => Ok(MechanismModel::Planar(Box::new(crate::multibody::model::read(path)?))),
    }
}

/// The mechanism a parsed model document holds (a Python dict, a document changed in memory):
/// a 3-D scene or a planar mechanism.
pub fn open_doc(doc: &crate::model::ModelDoc) -> Result<MechanismModel, Error> {
    match scene_of(doc)? {
        Some(m) => Ok(MechanismModel::Spatial(Box::new(m))),
        None => Ok(MechanismModel::Planar(Box::new(crate::multibody::model::from_model(doc)?))),
    }
}

/// What `model inspect --json` prints: a planar mechanism's dynamics at a state, or a robot's
/// in 3-D (the JSON is the one or the other object, untagged).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Inspection {
    /// A planar mechanism's.
    Planar(crate::multibody::inspect::Inspection),
    /// A robot's in 3-D.
    Spatial(SpatialInspection),
}

/// `model inspect`: the mechanism's dynamics at `state` and time `t` (s; springs tracking
/// moving references). A planar mechanism's state is `n` numbers (`q`, at rest) or `2n` (`q`
/// then `q̇`), default its `[initial]` table: `M`, `h`, gaps, Jacobians, energies and the
/// finite-difference check. A robot's in 3-D is `nq` numbers (`v = 0`) or `nq + nv`, default its
/// reference configuration at rest; quaternions are normalised.
pub fn inspect(m: &MechanismModel, state: Option<&[f64]>, t: f64) -> Result<Inspection, Error> {
    match m {
        MechanismModel::Planar(m) => {
            let (q, v) = mechanism_state(m, state)?;
            crate::multibody::inspect::inspect(m, t, &q, &v).map(Inspection::Planar)
        }
        MechanismModel::Spatial(m) => spatial_inspect(m, state, t).map(Inspection::Spatial),
    }
}

/// What `simulate --json` prints: a planar mechanism's event-driven run, or a robot's in 3-D
/// (the JSON is the one or the other object, untagged).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Simulation {
    /// A planar mechanism's.
    Planar(crate::multibody::simulate::Simulation),
    /// A robot's in 3-D.
    Spatial(SpatialSimulation),
}

impl Simulation {
    /// The robot's run in 3-D, or an error naming what this is.
    pub fn into_spatial(self) -> Result<SpatialSimulation, Error> {
        match self {
            Self::Spatial(s) => Ok(s),
            Self::Planar(_) => Err(arg("model", "a planar mechanism's run, not a robot's in 3-D")),
        }
    }

    /// The planar mechanism's run, or an error naming what this is.
    pub fn into_planar(self) -> Result<crate::multibody::simulate::Simulation, Error> {
        match self {
            Self::Planar(s) => Ok(s),
            Self::Spatial(_) => Err(arg("model", "a robot's run in 3-D, not a planar mechanism's")),
        }
    }
}

/// [`simulate_with`] without progress.
pub fn simulate(m: &MechanismModel, state: Option<&[f64]>, s: &SimulateSettings) -> Result<Simulation, Error> {
    simulate_with(m, state, s, &mut |_| {})
}

/// `simulate`: the mechanism from `state` (as [`inspect`] reads it) up to `s.t_max`, calling
/// `progress` with the simulated time as a robot's run in 3-D goes (the command line's progress
/// bar).
///
/// A planar mechanism runs event-driven (contact modes, impacts, Zeno completion, walking rules)
/// with `t_max`, `rtol`, `max_events` and `per_step`; its contacts carry their own friction and
/// restitution, so `mu` and `method = moreau` are argument errors. A robot in 3-D runs against
/// its ground planes by `s.method` ([`SpatialMethod`]).
pub fn simulate_with(
    m: &MechanismModel,
    state: Option<&[f64]>,
    s: &SimulateSettings,
    progress: &mut dyn FnMut(f64),
) -> Result<Simulation, Error> {
    match m {
        MechanismModel::Planar(m) => {
            if s.method == SpatialMethod::Moreau {
                return Err(arg(
                    "method",
                    "moreau applies to robots in 3-D; a planar mechanism is simulated event-driven (event or auto)",
                ));
            }
            if s.mu.is_some() {
                return Err(arg(
                    "mu",
                    "applies to robots in 3-D; a planar mechanism's contacts give their own `mu` in its file",
                ));
            }
            let settings = crate::multibody::simulate::SimulateSettings {
                t_max: s.t_max,
                max_events: s.max_events,
                rtol: s.rtol,
                per_step: s.per_step,
            };
            let (q, v) = mechanism_state(m, state)?;
            crate::multibody::simulate::simulate(m, &q, &v, &settings).map(Simulation::Planar)
        }
        MechanismModel::Spatial(m) => spatial_simulate_with(m, state, s, progress).map(Simulation::Spatial),
    }
}

pub use crate::multibody::painleve::PainleveSettings;

/// What `painleve --json` prints: a planar contact's analysis or a robot's in 3-D (untagged).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Painleve {
    /// A planar mechanism's.
    Planar(Box<crate::multibody::painleve::Painleve>),
    /// A robot's in 3-D.
    Spatial(Box<Painleve3>),
}

/// `painleve`: Painlevé's paradox at a contact (P2, Section 2) at `state`: `A`, `B` and the
/// case of P2's Table 2.1, `μ_min` and the region `B < 0` over a slice of configurations, the
/// LCP of several slipping contacts. A planar contact slips in direction `s.sigma` (`s.direction`
/// is an argument error); a robot's contact in 3-D in the world direction `s.direction`
/// projected onto its tangent plane, the answer adding `B` over every slip direction
/// (`s.sigma` is an argument error).
pub fn painleve(m: &MechanismModel, state: Option<&[f64]>, s: &PainleveSettings) -> Result<Painleve, Error> {
    match m {
        MechanismModel::Planar(m) => {
            let (q, v) = mechanism_state(m, state)?;
            crate::multibody::painleve::painleve(m, &q, &v, s).map(|r| Painleve::Planar(Box::new(r)))
        }
        MechanismModel::Spatial(m) => {
            super::spatial_painleve::spatial_painleve(m, state, s).map(|r| Painleve::Spatial(Box::new(r)))
        }
    }
}

/// What `slip --json` prints: how a planar contact's slip ends, or a robot's in 3-D (untagged).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Slip {
    /// A planar mechanism's.
    Planar(SlipReport),
    /// A robot's in 3-D, whose slip direction turns.
    Spatial(Slip3Report),
}

/// `slip`: how a slip of `contact` from `state` (`q` then `q̇`; default the `[initial]`) ends:
/// stick, reversal, separation, jam, corner, impact (times in seconds); in 3-D with the slip
/// direction's turn.
pub fn slip(m: &MechanismModel, state: Option<&[f64]>, contact: &str) -> Result<Slip, Error> {
    match m {
        MechanismModel::Planar(m) => {
            let (q, v) = mechanism_state(m, state)?;
            let e = crate::multibody::painleve::slip(m, &q, &v, contact, &WalkerSettings::default())?;
            Ok(Slip::Planar(SlipReport {
                outcome: e.outcome,
                t_end: e.t_end,
                fn_max: e.fn_max,
                state: e.state,
                a: e.a_end,
                b: e.b_end,
                approach: e.approach,
            }))
        }
        MechanismModel::Spatial(m) => super::spatial_painleve::spatial_slip(m, state, contact).map(Slip::Spatial),
    }
}

/// `slip --jam-threshold`: the smallest initial slip speed of `contact` (m/s, up to
/// `max_speed`) that jams from `state`, its own slip speed replaced. A planar contact's speed is
/// set on the coordinate `along` or by default by the least kinetic-energy velocity change that
/// slides it ([`crate::multibody::painleve::jam_threshold`]); a robot's in 3-D along the state's
/// slip direction (`along` is an argument error; [`crate::spatial::slip::jam_threshold3`]).
pub fn jam_threshold(
    m: &MechanismModel,
    state: Option<&[f64]>,
    contact: &str,
    along: Option<&str>,
    max_speed: f64,
) -> Result<JamThresholdReport, Error> {
    match m {
        MechanismModel::Planar(m) => {
            let (q, v) = mechanism_state(m, state)?;
            let s = WalkerSettings::default();
            let jam_threshold = crate::multibody::painleve::jam_threshold(m, &q, &v, contact, along, max_speed, &s)?;
            Ok(JamThresholdReport { jam_threshold })
        }
        MechanismModel::Spatial(m) => {
            if along.is_some() {
                return Err(arg("along", "planar models only: in 3-D the state's slip direction sets the starts"));
            }
            super::spatial_painleve::spatial_jam_threshold(m, state, contact, max_speed)
        }
    }
}

/// `stance`: the stance stability of a robot in 3-D at rest at `state` (default its `[initial]`
/// configuration; velocities, if given, are ignored; module docs of `api::stance`), with only
/// the collision shapes of the links or shapes named in `contacts` (`None`: all). A planar
/// mechanism is an argument error (its bodies at rest are P1's `equilibrium` and P4's
/// `fixture`).
pub fn stance(
    m: &MechanismModel,
    state: Option<&[f64]>,
    s: &StanceSettings,
    contacts: Option<&[String]>,
) -> Result<Stance, Error> {
    let m =
        match m {
            MechanismModel::Spatial(m) => m,
            MechanismModel::Planar(m) => return Err(Error::input(
                &m.source,
                "stance",
                "not a robot in 3-D (a scene file, an MJCF file or a URDF) but a planar mechanism: P1's `equilibrium` \
                 and P4's `fixture` analyse planar bodies at rest",
            )),
        };
    let Some(names) = contacts else {
        return super::stance::robot_stance(m, state, s);
    };
    let mut m = (**m).clone();
    let named: Vec<&str> = names.iter().map(String::as_str).collect();
    m.retain_contacts(&named).map_err(|(i, why)| arg("contacts", format!("{} (entry {}): {why}", names[i], i + 1)))?;
    super::stance::robot_stance(&m, state, s)
}

/// `orbit`: P3's periodic orbit of a planar mechanism through the constrained phases of
/// `constraint` (a joint limit or contact), reached from `state`. A robot in 3-D is an argument
/// error.
pub fn orbit(
    m: &MechanismModel,
    state: Option<&[f64]>,
    constraint: &str,
) -> Result<crate::multibody::zeno_orbit::ConstraintOrbit, Error> {
    let m = match m {
        MechanismModel::Planar(m) => m,
        MechanismModel::Spatial(m) => return Err(refusal_in_3d(Path::new(&m.path), "orbit")),
    };
    let (q, v) = mechanism_state(m, state)?;
    crate::multibody::zeno_orbit::constraint_orbit(m, &q, &v, constraint)
}

/// What `gait --json` prints: a planar mechanism's gaits found without a guess, or a 3-D scene's
/// gait by Newton's method on its configuration manifold (untagged).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Gaits {
    /// A planar mechanism's (every gait found from its starts).
    Planar(Box<crate::multibody::gait::GaitSearch>),
    /// A 3-D scene's (the one reached from its `[initial]` state).
    Spatial(Box<SpatialGait>),
}

impl Gaits {
    /// The planar mechanism's gaits, if these are.
    pub fn into_planar(self) -> Option<crate::multibody::gait::GaitSearch> {
        match self {
            Self::Planar(g) => Some(*g),
            Self::Spatial(_) => None,
        }
    }

    /// The 3-D scene's gait, if this is.
    pub fn into_spatial(self) -> Option<SpatialGait> {
        match self {
            Self::Spatial(g) => Some(*g),
            Self::Planar(_) => None,
        }
    }
}

/// The settings of `gait` on `m` by default: a planar mechanism's
/// ([`GaitSettings::default`](crate::multibody::gait::GaitSettings)) or a robot's in 3-D
/// ([`GaitSettings::spatial`](crate::multibody::gait::GaitSettings::spatial)).
pub fn gait_settings(m: &MechanismModel) -> crate::multibody::gait::GaitSettings {
    match m {
        MechanismModel::Planar(_) => crate::multibody::gait::GaitSettings::default(),
        MechanismModel::Spatial(_) => crate::multibody::gait::GaitSettings::spatial(),
    }
}

/// `gait` from `state` (`None`: the model's own start) with the relative integration
/// tolerance `rtol` (`None`: the engine's, [`gait_settings`]) and the engine's other defaults:
/// [`gait_with`].
pub fn gait(m: &MechanismModel, state: Option<&[f64]>, rtol: Option<f64>) -> Result<Gaits, Error> {
    let d = gait_settings(m);
    gait_with(m, state, &crate::multibody::gait::GaitSettings { rtol: rtol.unwrap_or(d.rtol), ..d })
}

/// The gaits of a mechanism (`gait`). A planar mechanism's: without a `state`, every gait found
/// without a guess (periodic orbits of its strike-to-strike map modulo its symmetry, with
/// multipliers, `μ_stick` and the impulse ratio); with one (its post-strike `q` then `q̇`), the
/// gait Newton's method reaches from it (none, with the reason, when it does not converge). A
/// 3-D scene's: the gait from its `[initial]` state, or from `state` (`q`, or `q` then `v`),
/// after the `[gait]` table's settling strikes, by Newton's method on its configuration
/// manifold. A robot in 3-D without a `[gait]` table (a bare URDF or MJCF file) is an input
/// error saying what it needs.
pub fn gait_with(
    m: &MechanismModel,
    state: Option<&[f64]>,
    s: &crate::multibody::gait::GaitSettings,
) -> Result<Gaits, Error> {
    match m {
        MechanismModel::Planar(m) => {
            let Some(x) = state else {
                return crate::multibody::gait::find_gaits(m, s).map(|g| Gaits::Planar(Box::new(g)));
            };
            let (q, v) = mechanism_state(m, Some(x))?;
            // One start, Newton's own (no settling, no cycle).
            let (gaits, reason) = match crate::multibody::gait::refine_gait(m, &q, &v, s)? {
                Ok(g) => (vec![g], None),
                Err(stop) => (vec![], Some(format!("Newton's method from the state given: {stop}"))),
            };
            let search =
                crate::multibody::gait::GaitSearch { gaits, starts: 1, settled: 0, cycled: 0, reason, needs_mu: None };
            Ok(Gaits::Planar(Box::new(search)))
        }
        MechanismModel::Spatial(m) => {
            walks(m, "gait")?;
            spatial_gait(m, state, s).map(|g| Gaits::Spatial(Box::new(g)))
        }
    }
}

/// Refuses, for the walking analysis `command` (`gait`, `basin`), a bare URDF or MJCF file (a
/// robot in 3-D without a `[gait]` table) with [`walking_source`]'s error, which says what to
/// give. (A scene file without one is refused by the gait itself, naming the table.)
pub(crate) fn walks(m: &SpatialModel, command: &str) -> Result<(), Error> {
    let path = Path::new(&m.path);
    let bare = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("urdf") || e.eq_ignore_ascii_case("xml"));
    if m.gait.is_none() && bare {
        return Err(refusal_in_3d(path, command));
    }
    Ok(())
}
