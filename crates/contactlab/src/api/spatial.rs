//! Robots in 3-D (`model inspect` on an MJCF file, or on a URDF with `--base`).

use std::path::Path;

use super::*;
use crate::spatial::contact::{contact_jacobians, contact_points, plane_of, Plane};
use crate::spatial::geometry::{Collision, Shape};
use crate::spatial::urdf::Base;
use crate::spatial::SpatialTree;

/// A 3-D model read from a file: its tree, shapes, ground planes and reference state.
#[derive(Debug, Clone)]
pub struct SpatialModel {
    /// The file.
    pub path: String,
    /// The tree.
    pub tree: SpatialTree,
    /// Configuration names (`nq`).
    pub coordinates: Vec<String>,
    /// Velocity names (`nv`).
    pub velocities: Vec<String>,
    /// The reference configuration (MJCF: MuJoCo's `qpos0`; URDF: the neutral one; a scene
    /// file: its `[initial]`).
    pub q0: Vec<f64>,
    /// The reference velocities (zero unless a scene file's `[initial]` gives them).
    pub v0: Vec<f64>,
    /// The bodies' collision shapes that may touch the ground (a scene's `contacts`; default all).
    pub shapes: Vec<Collision>,
    /// Every collision shape of the bodies, as animations draw them.
    pub drawn: Vec<Collision>,
    /// The ground planes (MJCF's world `plane` geoms).
    pub planes: Vec<GroundPlane>,
    /// Viscous damping per velocity (MJCF joints' `damping`, a scene's `[[joint]]`).
    pub damping: Vec<f64>,
    /// Joint springs (MJCF joints' `stiffness`, a scene's `[[joint]]`).
    pub springs: Vec<crate::spatial::timestep::Spring>,
    /// Joint limits (MJCF `range` of limited hinges and slides, URDF `<limit>` of revolute and
    /// prismatic joints).
    pub limits: Vec<crate::spatial::timestep::JointLimit>,
    /// The friction coefficient of a contact pair whose shape and plane give none (1,
    /// MuJoCo's default, unless a scene file's `mu` says otherwise).
    pub mu: f64,
    /// What was read but not used.
    pub notes: Vec<String>,
    /// The bodies' collision geometry read but not collided (meshes).
    pub skipped: Vec<crate::spatial::geometry::Skipped>,
    /// A scene file's `[gait]` table: what a step's strike-to-strike map is taken modulo.
    pub gait: Option<super::spatial_gait::GaitSpec3>,
    /// A scene file's `[walking]` table: the walking rule of its feet (indices into `shapes`).
    pub walking: Option<crate::spatial::timestep::Walking>,
}

impl SpatialModel {
    /// Keeps only the collision shapes named in `names` (a shape's name or its link's) as the
    /// contacts: a scene's `contacts`, `stance --contacts`. `Err((i, why))` names the first
    /// name with no collision shape, and the names that have one.
    pub fn retain_contacts(&mut self, names: &[&str]) -> Result<(), (usize, String)> {
        let tree = &self.tree;
        let body_name = |c: &Collision| c.body.map(|b| tree.bodies()[b].name.as_str());
        for (i, l) in names.iter().enumerate() {
            if !self.shapes.iter().any(|c| c.name == *l || body_name(c) == Some(l)) {
                let mut known: Vec<&str> =
                    self.shapes.iter().flat_map(|c| [Some(c.name.as_str()), body_name(c)]).flatten().collect();
                known.sort_unstable();
                known.dedup();
                known.retain(|s| !s.is_empty());
                return Err((
                    i,
                    format!(
                        "no link or collision shape named \"{l}\" has a collision shape; these do: {}",
                        known.join(", ")
                    ),
                ));
            }
        }
        let keep: Vec<bool> =
            self.shapes.iter().map(|c| names.iter().any(|l| c.name == *l || body_name(c) == Some(l))).collect();
        let mut k = keep.into_iter();
        self.shapes.retain(|_| k.next().unwrap_or(false));
        Ok(())
    }

    /// The bodies that collide only through geometry contactlab skips (meshes) and could touch
    /// a ground plane (their collision bits allow it): they pass through the ground. Each as
    /// `body (what was skipped)`; empty without ground planes.
    pub fn ignored_collisions(&self) -> Vec<String> {
        let names = |b: usize| self.tree.bodies()[b].name.clone();
        let mut out: Vec<String> = vec![];
        for s in &self.skipped {
            let has_shape = self.drawn.iter().any(|c| c.body == Some(s.body));
            let could_touch = self.planes.iter().any(|p| crate::spatial::geometry::bits_touch(s.bits, p.bits));
            if !has_shape && could_touch {
                out.push(format!("{} ({})", names(s.body), s.what));
            }
        }
        out
    }

    /// The model of an MJCF file read as `path`: world `plane` geoms are the ground planes.
    pub fn from_mjcf(path: String, m: &crate::spatial::mjcf::MjcfSpatial) -> Self {
        let (planes, shapes): (Vec<Collision>, Vec<Collision>) =
            m.geoms.iter().cloned().partition(|g| g.body.is_none());
        let planes = planes
            .into_iter()
            .filter(|g| matches!(g.shape, Shape::Plane))
            .map(|g| GroundPlane { name: g.name.clone(), plane: plane_of(&g.pose), friction: g.friction, bits: g.bits })
            .collect();
        let (damping, springs) = m.passive_terms();
        SpatialModel {
            path,
            tree: m.tree.clone(),
            coordinates: m.coordinates.clone(),
            velocities: m.velocities.clone(),
            q0: m.qpos0.clone(),
            v0: vec![0.0; m.tree.nv()],
            drawn: shapes.clone(),
            shapes,
            planes,
            notes: m.notes.clone(),
            skipped: m.skipped.clone(),
            damping,
            springs,
            limits: m.limits(),
            walking: None,
            mu: 1.0,
            gait: None,
        }
    }

    /// The scene simulated: its shapes against its ground planes, with friction `mu` for every
    /// pair when given (else each pair's own, [`SpatialModel::mu`] where neither gives one) and
    /// Newton's `restitution`.
    pub fn scene(&self, mu: Option<f64>, restitution: f64) -> crate::spatial::timestep::Scene3 {
        let mut shapes = self.shapes.clone();
        let mut plane_friction: Vec<Option<f64>> = self.planes.iter().map(|p| p.friction).collect();
        if mu.is_some() {
            // One coefficient for every pair, overriding the file's.
            shapes.iter_mut().for_each(|c| c.friction = None);
            plane_friction.iter_mut().for_each(|f| *f = None);
        }
        crate::spatial::timestep::Scene3 {
            tree: self.tree.clone(),
            shapes,
            planes: self.planes.iter().map(|p| p.plane).collect(),
            mu: mu.unwrap_or(self.mu),
            plane_friction,
            plane_bits: self.planes.iter().map(|p| p.bits).collect(),
            restitution,
            damping: self.damping.clone(),
            springs: self.springs.clone(),
            walking: self.walking.clone(),
            limits: self.limits.clone(),
        }
    }
}

/// A ground plane of a [`SpatialModel`].
#[derive(Debug, Clone)]
pub struct GroundPlane {
    /// Its geom's name.
    pub name: String,
    /// The plane.
    pub plane: Plane,
    /// Its friction coefficient, if the file gives one.
    pub friction: Option<f64>,
    /// Its collision bits `(contype, conaffinity)`.
    pub bits: (u32, u32),
}

/// How a file is read as a robot in 3-D ([`spatial_source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpatialSource {
    /// An MJCF file (`.xml`), as MuJoCo loads it.
    Mjcf,
    /// A URDF file with its root link held so.
    Urdf(Base),
    /// A scene file: `kind = "multibody"` naming a `urdf` with a `base`, or an `mjcf`
    /// (docs/models.md, "Robots in 3-D").
    Scene,
}

/// Whether `path` is read as a robot in 3-D, and how (`None`: a planar model).
///
/// * an MJCF file (`.xml`) always; `base` is then an argument error (the file says how its
///   bodies are held);
/// * a URDF (`.urdf`) with its root link `base` = `"fixed"` (the default, as the URDF says) or
///   `"floating"`; `"planar"` reads it as the planar mechanism of `docs/models.md`;
/// * a model file when it is a 3-D scene (a `kind = "multibody"` file with a `base` or an
///   `mjcf` key); `base` is then an argument error (the file's `base` key says it).
pub(crate) fn spatial_source(path: &Path, base: Option<&str>) -> Result<Option<SpatialSource>, Error> {
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let held = match base {
        None => None,
        Some("fixed") => Some(Base::Fixed),
        Some("floating") => Some(Base::Floating),
        Some("planar") if ext == "urdf" => return Ok(None),
        Some("planar") => return Err(arg("base", "planar applies to a URDF")),
        Some(other) => return Err(arg("base", format!("must be fixed, floating or planar (got {other})"))),
    };
    match ext.as_str() {
        "xml" if base.is_some() => Err(arg("base", "applies to a URDF; an MJCF file says how its bodies are held")),
        "xml" => Ok(Some(SpatialSource::Mjcf)),
        "urdf" => Ok(Some(SpatialSource::Urdf(held.unwrap_or(Base::Fixed)))),
        _ => {
            let scene = crate::model::ModelDoc::read(path).ok().is_some_and(|d| d.is_spatial_scene());
            match (scene, base) {
                (true, Some(_)) => Err(arg("base", "applies to a URDF; a scene file says it with its `base` key")),
                (true, None) => Ok(Some(SpatialSource::Scene)),
                (false, Some(_)) => Err(arg("base", "applies to a URDF (or a 3-D scene file's `base` key)")),
                (false, None) => Ok(None),
            }
        }
    }
}

/// How `command`, an analysis of walking (`gait`, `basin`, `continue`) or of a planar
/// mechanism's orbits (`orbit`), reads `path` with `base`: `true` for a 3-D scene file, `false`
/// for a planar model (a URDF with `base = "planar"` among them), and an error naming the file
/// for a robot in 3-D that the command cannot take: a bare URDF or MJCF file (3-D for every
/// command, as [`open`] reads it) has no `[gait]` table, and `orbit` is planar only.
pub fn walking_source(path: &Path, base: Option<&str>, command: &str) -> Result<bool, Error> {
    match spatial_source(path, base)? {
        None => Ok(false),
        Some(SpatialSource::Scene) if command != "orbit" => Ok(true),
        Some(_) => Err(refusal_in_3d(path, command)),
    }
}

/// The error of `command` on a robot in 3-D it cannot take (the file `path`): `orbit` takes a
/// planar mechanism, and the walking analyses a scene file with a `[gait]` table; a URDF is told
/// that `--base planar` reads it in the plane.
pub(crate) fn refusal_in_3d(path: &Path, command: &str) -> Error {
    let planar_hint = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("urdf")) {
        " (`--base planar` reads a URDF as a planar mechanism)"
    } else {
        ""
    };
    let file = path.display().to_string();
    if command == "orbit" {
        return Error::input(
            file,
            command,
            format!("`orbit` takes a planar mechanism, and this is a robot in 3-D{planar_hint}"),
        );
    }
    Error::input(
        file,
        command,
        format!(
            "a robot in 3-D needs a scene file with a [gait] table (docs/robots.md, \"Gaits in 3-D\"); a bare \
             URDF or MJCF file has none{planar_hint}"
        ),
    )
}

/// A 3-D model's state from `nq` numbers (`v = 0`) or `nq + nv` (`q` then `v`); its reference
/// configuration at rest when `None`.
pub(crate) fn spatial_state(m: &SpatialModel, state: Option<&[f64]>) -> Result<(Vec<f64>, Vec<f64>), Error> {
    let (nq, nv) = (m.tree.nq(), m.tree.nv());
    let (q, v) = match state {
        None => (m.q0.clone(), m.v0.clone()),
        Some(s) if s.len() == nq => (s.to_vec(), vec![0.0; nv]),
        Some(s) if s.len() == nq + nv => (s[..nq].to_vec(), s[nq..].to_vec()),
        Some(s) => {
            return Err(arg(
                "state",
                format!(
                    "needs {nq} numbers (q) or {} (q then v); q is {}; got {}",
                    nq + nv,
                    m.coordinates.join(", "),
                    s.len()
                ),
            ))
        }
    };
    if q.iter().chain(&v).any(|x| !x.is_finite()) {
        return Err(arg("state", "every value must be a finite number"));
    }
    Ok((q, v))
}

/// The 3-D scene a model document is, or `None` when it is not one (a planar model's document).
pub(crate) fn scene_of(doc: &crate::model::ModelDoc) -> Result<Option<SpatialModel>, Error> {
    if !doc.is_spatial_scene() {
        return Ok(None);
    }
    super::scene3::from_doc(doc).map(Some)
}

/// Reads a robot in 3-D from `path` as `source` says.
pub(crate) fn spatial_model(path: &Path, source: SpatialSource) -> Result<SpatialModel, Error> {
    let name = path.display().to_string();
    match source {
        SpatialSource::Mjcf => Ok(SpatialModel::from_mjcf(name, &crate::spatial::mjcf::read(path)?)),
        SpatialSource::Urdf(b) => {
            let crate::spatial::urdf::UrdfSpatial { tree, links: u } = crate::spatial::urdf::read(path, b)?;
            Ok(SpatialModel {
                path: name,
                q0: tree.neutral().as_slice().to_vec(),
                v0: vec![0.0; tree.nv()],
                damping: vec![0.0; tree.nv()],
                springs: vec![],
                limits: u.limits,
                walking: None,
                mu: 1.0,
                tree,
                coordinates: u.coordinates,
                velocities: u.velocities,
                drawn: u.collisions.clone(),
                shapes: u.collisions,
                planes: vec![],
                notes: u.notes,
                skipped: u.skipped,
                gait: None,
            })
        }
        SpatialSource::Scene => super::scene3::read(path),
    }
}

/// The model part of [`SpatialInspection`].
#[derive(Debug, Clone, Serialize)]
pub struct SpatialModelInfo {
    /// The file.
    pub path: String,
    /// `nq` configuration names.
    pub coordinates: Vec<String>,
    /// `nv` velocity names.
    pub velocities: Vec<String>,
    /// The reference configuration.
    pub q0: Vec<f64>,
    /// Bodies in the tree (a MuJoCo body with several joints is several).
    pub bodies: usize,
    /// Total mass (kg).
    pub mass: f64,
}

/// One candidate contact point of a shape with a ground plane.
#[derive(Debug, Clone, Serialize)]
pub struct SpatialContactInfo {
    /// The shape's name and the plane's.
    pub shape: String,
    /// See `shape`.
    pub plane: String,
    /// The point (world).
    pub point: [f64; 3],
    /// Its gap along the plane's normal (m; negative: penetration).
    pub gap: f64,
    /// `J_n` (1 × nv): the gap's rate is `J_n v`.
    pub normal_jacobian: Vec<f64>,
    /// `J_t` (2 × nv), rows along the plane's tangents `t₁`, `t₂`.
    pub tangent_jacobian: [Vec<f64>; 2],
}

/// The finite-difference check of [`SpatialInspection`]: each a relative error.
#[derive(Debug, Clone, Serialize)]
pub struct SpatialCheck {
    /// `M` against the kinetic energy (each body's momentum, not the CRBA) by polarisation,
    /// `uᵀ M w = T(u + w) − T(u) − T(w)`, on six pairs of fixed pseudo-random directions with
    /// entries in `[½, 1½)`, each relative to `|u|ᵀ |M| |w|`.
    pub mass_matrix: f64,
    /// `d(T + V)/dt` along the free motion `v̇ = M⁻¹h` (central differences), relative to the
    /// energy's scale: the bias against `M` and the energies.
    pub energy_rate: f64,
    /// Every contact's `J_n v` against its gap's central difference along `q̇`, relative to
    /// the largest point speed.
    pub contact_jacobians: f64,
}

/// What `model inspect` gives for a 3-D model.
#[derive(Debug, Clone, Serialize)]
pub struct SpatialInspection {
    /// The model.
    pub model: SpatialModelInfo,
    /// The configuration.
    pub q: Vec<f64>,
    /// The velocity.
    pub v: Vec<f64>,
    /// `M(q)` (rows), the armature included.
    pub mass_matrix: Vec<Vec<f64>>,
    /// `h(q, v) = −(C v + g)`: `M v̇ = h + τ + Jᵀλ` (Pinocchio's `−nle`, MuJoCo's `−qfrc_bias`).
    pub bias: Vec<f64>,
    /// The joints' passive forces (damping and springs; MuJoCo's `qfrc_passive` from joints).
    pub passive_force: Vec<f64>,
    /// Candidate contacts with the ground planes.
    pub contacts: Vec<SpatialContactInfo>,
    /// Kinetic energy (J).
    pub kinetic: f64,
    /// Gravitational potential energy (J, zero at the world's origin).
    pub potential: f64,
    /// The finite-difference check.
    pub check: SpatialCheck,
    /// What the file held that was not used.
    pub notes: Vec<String>,
}

/// `model inspect` of a 3-D model at `state` (`nq` numbers with `v = 0`, or `nq + nv`; default
/// the reference configuration at rest) and `time` (s: where the joints' springs track moving
/// references); quaternions are normalised.
pub(crate) fn spatial_inspect(m: &SpatialModel, state: Option<&[f64]>, time: f64) -> Result<SpatialInspection, Error> {
    let t = &m.tree;
    let nv = t.nv();
    let (mut q, v) = spatial_state(m, state)?;
    if !t.normalize(&mut q) {
        return Err(arg("state", "a quaternion is zero"));
    }
    let mm = t.mass_matrix(&q);
    let bias = t.bias(&q, &v);
    let passive = crate::spatial::timestep::passive_force(&m.damping, &m.springs, time, &q, &v);
    let mut contacts = vec![];
    for g in &m.planes {
        for c in m.shapes.iter().filter(|c| crate::spatial::geometry::bits_touch(c.bits, g.bits)) {
            for p in contact_points(t, &q, c, &g.plane) {
                let (jn, jt) = contact_jacobians(t, &q, &p, &g.plane);
                contacts.push(SpatialContactInfo {
                    shape: c.name.clone(),
                    plane: g.name.clone(),
                    point: [p.point.x, p.point.y, p.point.z],
                    gap: p.gap,
                    normal_jacobian: jn.iter().copied().collect(),
                    tangent_jacobian: [jt.row(0).iter().copied().collect(), jt.row(1).iter().copied().collect()],
                });
            }
        }
    }
    let check = spatial_check(m, &q, &v)?;
    let rows = (0..nv).map(|r| mm.row(r).iter().copied().collect()).collect();
    Ok(SpatialInspection {
        model: SpatialModelInfo {
            path: m.path.clone(),
            coordinates: m.coordinates.clone(),
            velocities: m.velocities.clone(),
            q0: m.q0.clone(),
            bodies: t.bodies().len(),
            mass: t.bodies().iter().map(|b| b.inertia.mass).sum(),
        },
        kinetic: t.kinetic_energy(&q, &v),
        potential: t.potential_energy(&q),
        q,
        v,
        mass_matrix: rows,
        bias: bias.as_slice().to_vec(),
        passive_force: passive.as_slice().to_vec(),
        contacts,
        check,
        notes: m.notes.clone(),
    })
}

/// Pairs of directions of [`spatial_check`]'s test of `M`.
const MASS_CHECK_PAIRS: usize = 6;

fn spatial_check(m: &SpatialModel, q: &[f64], v: &[f64]) -> Result<SpatialCheck, Error> {
    let t = &m.tree;
    let nv = t.nv();
    let mm = t.mass_matrix(q);
    // M against the kinetic energy (each body's momentum, not M) by polarisation on pairs of
    // fixed pseudo-random directions: uᵀ M w = T(u + w) − T(u) − T(w). Every entry of M enters
    // each pair with a nonzero weight, so a wrong entry shows; the cost is linear in the
    // number of pairs times `nv²` (every pair of unit vectors was cubic: 57 s for a chain of
    // 1000 bodies).
    let ke = |x: &[f64]| t.kinetic_energy(q, x);
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut direction = || -> Vec<f64> {
        (0..nv)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                0.5 + ((seed >> 11) as f64 / (1u64 << 53) as f64)
            })
            .collect()
    };
    let mut mass_err: f64 = 0.0;
    for _ in 0..MASS_CHECK_PAIRS {
        let (u, w) = (direction(), direction());
        let sum: Vec<f64> = u.iter().zip(&w).map(|(a, b)| a + b).collect();
        let polar = ke(&sum) - ke(&u) - ke(&w);
        let (uu, ww) = (DVector::from_vec(u), DVector::from_vec(w));
        let form = (uu.transpose() * &mm * &ww)[0];
        let size = (uu.abs().transpose() * mm.abs() * ww.abs())[0];
        mass_err = mass_err.max((form - polar).abs() / size.max(f64::MIN_POSITIVE));
    }
    let chol =
        mm.clone().cholesky().ok_or_else(|| Error::Numerical("the mass matrix is not positive definite".into()))?;
    let vdot = chol.solve(&t.bias(q, v));
    // Along the free motion, with a step relative to the motion's own time scale.
    let qd = t.qdot(q, v);
    // (A step for the differences only: the checks are relative whatever it is.)
    let speed = qd.abs().max().max(vdot.abs().max().sqrt());
    let h = if speed > 0.0 { 1e-5 / speed } else { 1e-5 };
    let at = |s: f64| {
        let mut qs = t.integrate(q, v, s);
        t.normalize(qs.as_mut_slice());
        let vs: Vec<f64> = v.iter().zip(vdot.iter()).map(|(a, b)| a + s * b).collect();
        (qs, vs)
    };
    let ((qa, va), (qb, vb)) = (at(h), at(-h));
    let energy = |qq: &[f64], vv: &[f64]| t.kinetic_energy(qq, vv) + t.potential_energy(qq);
    let rate = (energy(qa.as_slice(), &va) - energy(qb.as_slice(), &vb)) / (2.0 * h);
    let e_scale =
        (t.kinetic_energy(q, v) + t.potential_energy(q).abs()).max(f64::MIN_POSITIVE) * speed.max(f64::MIN_POSITIVE);
    let mut jac_err: f64 = 0.0;
    let mut point_speed: f64 = 0.0;
    for g in &m.planes {
        let plane = &g.plane;
        for c in m.shapes.iter().filter(|c| crate::spatial::geometry::bits_touch(c.bits, g.bits)) {
            let (pa, pb) = (contact_points(t, qa.as_slice(), c, plane), contact_points(t, qb.as_slice(), c, plane));
            for (k, p) in contact_points(t, q, c, plane).iter().enumerate() {
                let (jn, _) = contact_jacobians(t, q, p, plane);
                let g = jn.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
                point_speed = point_speed.max(g.abs());
                if let (Some(a), Some(b)) = (pa.get(k), pb.get(k)) {
                    jac_err = jac_err.max((g - (a.gap - b.gap) / (2.0 * h)).abs());
                }
            }
        }
    }
    Ok(SpatialCheck {
        mass_matrix: mass_err,
        energy_rate: rate.abs() / e_scale,
        contact_jacobians: jac_err / point_speed.max(f64::MIN_POSITIVE),
    })
}

/// Settings of [`simulate`] (a planar mechanism's run reads `t_max`, `rtol`, `max_events` and
/// `per_step`).
#[derive(Debug, Clone, Copy)]
pub struct SimulateSettings {
    /// End time (s).
    pub t_max: f64,
    /// Step length (s).
    pub h: f64,
    /// Keep every this many steps.
    pub every: usize,
    /// The friction coefficient of every contact pair (`None`: the file's, MuJoCo's larger of
    /// the pair's two; 1 where the file gives none, MuJoCo's default).
    pub mu: Option<f64>,
    /// Newton's restitution coefficient.
    pub restitution: f64,
    /// The method: event-driven (modes, impacts, Zeno) or Moreau–Jean time-stepping.
    pub method: SpatialMethod,
    /// Event-driven: the relative integration tolerance.
    pub rtol: f64,
    /// Event-driven: the largest number of events.
    pub max_events: usize,
    /// Event-driven: samples inside each integration step (besides its end).
    pub per_step: usize,
    /// Event-driven: the most integration steps (a bound on the work: the run then ends with
    /// `step-limit`).
    pub max_steps: usize,
    /// Moreau–Jean: the most Gauss–Seidel sweeps of a step's contact problem (a step that
    /// reaches it unconverged, beyond [`crate::spatial::timestep::MoreauSettings::accept`],
    /// ends the run with `iteration-limit`).
    pub max_sweeps: usize,
}

/// [`SpatialMethod::Auto`] takes Moreau–Jean above this many candidate contacts: the event
/// driver's cost grows with the contacts that can slip at once (each slow slip is a stiff
/// direction for its explicit integrator, README "Benchmarks"), time-stepping's hardly.
pub const AUTO_EVENT_CONTACTS: usize = 16;

/// How a 3-D model is simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpatialMethod {
    /// The event driver ([`crate::spatial::events`]): exact modes and impacts.
    Event,
    /// Moreau–Jean time-stepping ([`crate::spatial::timestep`]): many contacts, fixed steps.
    Moreau,
    /// The event driver for at most [`AUTO_EVENT_CONTACTS`] candidate contacts between shapes
    /// and planes (joint stops not counted), Moreau–Jean otherwise (the run's `method` says
    /// which ran).
    Auto,
}

impl std::str::FromStr for SpatialMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "event" => Ok(Self::Event),
            "moreau" => Ok(Self::Moreau),
            "auto" => Ok(Self::Auto),
            _ => Err(arg("method", format!("must be event, moreau or auto (got {s})"))),
        }
    }
}

impl std::fmt::Display for SpatialMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Event => "event",
            Self::Moreau => "moreau",
            Self::Auto => "auto",
        })
    }
}

impl Default for SimulateSettings {
    fn default() -> Self {
        // (t_max as `simulate`'s for planar mechanisms: one `--t-max` flag serves both.)
        Self {
            t_max: crate::multibody::simulate::SimulateSettings::default().t_max,
            h: 1e-3,
            every: 10,
            mu: None,
            restitution: 0.0,
            method: SpatialMethod::Auto,
            rtol: crate::multibody::simulate::SimulateSettings::default().rtol,
            max_events: crate::multibody::simulate::SimulateSettings::default().max_events,
            per_step: crate::multibody::simulate::SimulateSettings::default().per_step,
            max_sweeps: crate::fc3d::Fc3dSettings::default().max_sweeps,
            max_steps: crate::spatial::events::EventSettings::default().max_steps,
        }
    }
}

/// A 3-D model's Moreau–Jean run ([`crate::spatial::timestep::simulate`]) against its ground
/// planes from `state` (default: the reference configuration at rest), with the joints'
/// damping and springs, calling `progress` with the simulated time as the run goes.
pub(crate) fn spatial_simulate_with(
    m: &SpatialModel,
    state: Option<&[f64]>,
    s: &SimulateSettings,
    progress: &mut dyn FnMut(f64),
) -> Result<SpatialSimulation, Error> {
    let (q, v) = spatial_state(m, state)?;
    if !(s.t_max.is_finite() && s.t_max >= 0.0) {
        return Err(arg("t_max", format!("must be finite and >= 0 (got {})", s.t_max)));
    }
    let scene = m.scene(s.mu, s.restitution);
    let (coordinates, velocities) = (m.coordinates.clone(), m.velocities.clone());
    match resolve_method(&scene, &q, s.method) {
        SpatialMethod::Moreau | SpatialMethod::Auto => {
            if s.max_sweeps == 0 {
                return Err(arg("max_sweeps", "must be at least 1"));
            }
            let mut settings = crate::spatial::timestep::MoreauSettings { h: s.h, ..Default::default() };
            settings.fc3d.max_sweeps = s.max_sweeps;
            let run = crate::spatial::timestep::simulate_with(&scene, &q, &v, s.t_max, s.every, &settings, progress)?;
            Ok(SpatialSimulation {
                coordinates,
                velocities,
                method: SpatialMethod::Moreau,
                end: run.end.clone(),
                t: run.t,
                q: run.q,
                v: run.v,
                energy: run.energy,
                contacts: run.contacts,
                residual_max: Some(run.residual_max),
                unconverged: Some(run.unconverged),
                termination: None,
                events: None,
                contact_names: None,
                ignored_collisions: m.ignored_collisions(),
                start_clamped: run.start_clamped,
            })
        }
        SpatialMethod::Event => {
            let settings = crate::spatial::events::EventSettings {
                t_max: s.t_max,
                rtol: s.rtol,
                max_events: s.max_events,
                per_step: s.per_step,
                max_steps: s.max_steps,
                stops: true,
            };
            let run = crate::spatial::events::simulate_events_with(&scene, &q, &v, &settings, progress)?;
            Ok(SpatialSimulation {
                coordinates,
                velocities,
                method: SpatialMethod::Event,
                end: crate::output::kebab(&run.termination),
                t: run.t,
                q: run.q,
                v: run.v,
                energy: run.energy,
                contacts: run.touching,
                residual_max: None,
                unconverged: None,
                termination: Some(run.termination),
                events: Some(run.events),
                contact_names: Some(run.contacts.into_iter().map(|c| c.name).collect()),
                ignored_collisions: m.ignored_collisions(),
                start_clamped: run.start_clamped,
            })
        }
    }
}

/// The method that runs: [`SpatialMethod::Auto`] resolved by the scene's number of candidate
/// contacts at `q` (time-stepping where the event driver refuses them).
pub(crate) fn resolve_method(
    scene: &crate::spatial::timestep::Scene3,
    q: &[f64],
    method: SpatialMethod,
) -> SpatialMethod {
    if method != SpatialMethod::Auto {
        return method;
    }
    // (The shapes' contacts only: a joint stop is one frictionless row, never a stiff slip.)
    match crate::spatial::events::EventScene::new(scene, q) {
        Ok(sys) if sys.nc() <= AUTO_EVENT_CONTACTS => SpatialMethod::Event,
        _ => SpatialMethod::Moreau,
    }
}

/// What `simulate --json` prints for a 3-D model.
#[derive(Debug, Clone, Serialize)]
pub struct SpatialSimulation {
    /// Configuration names (the columns of `q`).
    pub coordinates: Vec<String>,
    /// Velocity names (the columns of `v`).
    pub velocities: Vec<String>,
    /// `event` or `moreau` (the one that ran, `auto` resolved).
    pub method: SpatialMethod,
    /// How the run ended: `completed` or the one-step problem's status (Moreau–Jean); the
    /// event driver's termination (`time-limit`, `rest`, `failed`, ...).
    pub end: String,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Configurations.
    pub q: Vec<Vec<f64>>,
    /// Velocities.
    pub v: Vec<Vec<f64>>,
    /// Total mechanical energies (J): kinetic, gravitational and the joint springs' ([`crate::spatial::timestep::Scene3::energy`]).
    pub energy: Vec<f64>,
    /// Contacts at each sample: in the step's problem (Moreau–Jean); touching (event-driven).
    pub contacts: Vec<usize>,
    /// Moreau–Jean: the largest one-step residual.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub residual_max: Option<f64>,
    /// Moreau–Jean: steps accepted unconverged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconverged: Option<usize>,
    /// Event-driven: the driver's termination in full (a failure's kind and evidence: a
    /// Painlevé inconsistency, an impact without outcome, a penetrating start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination: Option<crate::hybrid::Termination>,
    /// Event-driven: the events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<crate::spatial::events::Event3>>,
    /// Event-driven: the contacts' names (`shape:point/plane`), in the modes' order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contact_names: Option<Vec<String>>,
    /// The bodies that collide only through geometry contactlab skips (meshes) and could touch
    /// the ground: they pass through it ([`SpatialModel::ignored_collisions`]).
    pub ignored_collisions: Vec<String>,
    /// The joints whose starting position lay past a stop of their range, put on that stop
    /// before the run ([`crate::spatial::timestep::JointLimit`]; both methods hold the stops).
    pub start_clamped: Vec<String>,
}

impl SpatialSimulation {
    /// Writes `trajectory.csv` (`t`, the coordinates, the velocities, `energy`, `contacts`) into
    /// `dir`.
    pub fn write_files(&self, dir: &Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let mut csv = String::from("t");
        for n in self.coordinates.iter().chain(&self.velocities) {
            csv.push(',');
            csv.push_str(n);
        }
        csv.push_str(",energy,contacts\n");
        let r = self;
        for k in 0..r.t.len() {
            let row: Vec<String> = std::iter::once(r.t[k])
                .chain(r.q[k].iter().copied())
                .chain(r.v[k].iter().copied())
                .chain([r.energy[k]])
                .map(|x| x.to_string())
                .collect();
            csv.push_str(&row.join(","));
            csv.push_str(&format!(",{}\n", r.contacts[k]));
        }
        crate::output::write_file(dir, "trajectory.csv", &csv)
    }
}

/// Writes an animated GIF of a 3-D run at `path`: each body drawn as its collision shapes
/// (shaded, hidden surfaces removed), the ground planes as checkered patches, seen from `view`
/// (its `up` is taken against the model's gravity). Frames at `GIF_FPS` of simulated time, at
/// most `GIF_MAX_FRAMES` (a longer run plays faster), as for planar mechanisms.
pub fn spatial_animation(
    m: &SpatialModel,
    r: &SpatialSimulation,
    view: crate::plot::render3d::View3,
    path: &Path,
) -> Result<(), Error> {
    use crate::plot::render3d::{save_gif_3d, shape_triangles, Frame3, Mesh, View3, PALETTE};
    let (Some(&t0), Some(&t1)) = (r.t.first(), r.t.last()) else {
        return Err(Error::Output(format!("{}: no samples to animate", path.display())));
    };
    let (frames, dt, delay_ms) = crate::multibody::simulate::gif_timing(t0, t1);
    let g = m.tree.gravity;
    let view = View3 { up: if g.norm() > 0.0 { -g / g.norm() } else { view.up }, ..view };
    let mut out = Vec::with_capacity(frames);
    let mut i = 0;
    for k in 0..frames {
        let t = t0 + dt * k as f64;
        while i + 1 < r.t.len() && r.t[i + 1] <= t {
            i += 1;
        }
        let poses = m.tree.poses(&r.q[i]);
        let meshes = m
            .drawn
            .iter()
            .filter_map(|c| {
                let b = c.body?;
                Some(Mesh {
                    triangles: shape_triangles(&c.shape, &poses[b].then(&c.pose)),
                    color: PALETTE[b % PALETTE.len()],
                })
            })
            .collect();
        out.push(Frame3 { title: format!("{}   t = {:.3} s", m.path, r.t[i]), meshes });
    }
    let planes: Vec<Plane> = m.planes.iter().map(|p| p.plane).collect();
    save_gif_3d(&out, &planes, &view, path, (640, 480), delay_ms)
}
