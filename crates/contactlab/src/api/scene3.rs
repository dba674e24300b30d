//! Scene files of robots in 3-D: a `kind = "multibody"` file naming a URDF with its `base`, or
//! an MJCF file, with the ground, friction, contacts, joint springs and the initial state
//! (docs/models.md, "Robots in 3-D").

use std::path::Path;

use super::spatial::{spatial_model, GroundPlane, SpatialModel, SpatialSource};
use crate::model::{Fields, ModelDoc, Range};
use crate::spatial::algebra::Vec3;
use crate::spatial::contact::Plane;
use crate::spatial::urdf::Base;
use crate::Error;

/// Reads a 3-D scene file.
pub(crate) fn read(path: &Path) -> Result<SpatialModel, Error> {
    from_doc(&ModelDoc::read(path)?)
}

/// A 3-D scene from its document (the robot file's path relative to the document's file): a
/// continuation reads the document again at each value of its parameter.
pub(crate) fn from_doc(doc: &ModelDoc) -> Result<SpatialModel, Error> {
    let path = Path::new(&doc.file);
    let f = doc.fields();
    let file = doc.file.as_str();
    let kind = doc.kind()?;
    if kind != "multibody" {
        return Err(f.error("kind", format!("expected \"multibody\", got \"{kind}\"")));
    }
    let _ = (f.str_opt("name")?, f.str_opt("description")?);
    let dir = path.parent().unwrap_or(Path::new(""));
    let (robot, source) = match (f.str_opt("urdf")?, f.str_opt("mjcf")?) {
        (Some(u), None) => {
            let base = match f.str_opt("base")? {
                Some("fixed") => Base::Fixed,
                Some("floating") => Base::Floating,
                Some(other) => return Err(f.error("base", format!("got \"{other}\"; allowed: fixed, floating"))),
                None => {
                    return Err(f.error(
                        "base",
                        "missing: a 3-D scene of a URDF says how its root link is held, fixed or floating",
                    ))
                }
            };
            (u, SpatialSource::Urdf(base))
        }
        (None, Some(x)) => {
            if f.has("base") {
                return Err(f.error("base", "applies to a URDF; an MJCF file says how its bodies are held"));
            }
            (x, SpatialSource::Mjcf)
        }
        (Some(_), Some(_)) => return Err(f.error("mjcf", "give either `urdf` or `mjcf`, not both")),
        (None, None) => return Err(f.error("urdf", "missing: name the robot's `urdf` (with `base`) or `mjcf` file")),
    };
    for planar in ["plane", "body", "line", "contact", "limit"] {
        if f.has(planar) {
            return Err(f.error(
                planar,
                "is a key of planar mechanisms; a 3-D scene has gravity, slope, mu, contacts, [[ground]], [[link]], [[joint]], [walking], [gait] and [initial]",
            ));
        }
    }
    let mut m = spatial_model(&dir.join(robot), source)?;
    m.path = file.to_string();
    let mut links = vec![];
    if f.has("link") {
        for l in f.tables("link")? {
            links.push(read_link(&l, &m)?);
        }
    }

    if f.has("gravity") {
        // A vector (m/s², world axes) or a magnitude along −z.
        m.tree.gravity = if matches!(doc.table.get("gravity"), Some(toml::Value::Array(_))) {
            vec3(&f, "gravity")?
        } else {
            Vec3::new(0.0, 0.0, -f.f64("gravity", Range::NonNegative)?)
        };
    }
    if f.has("slope") || f.has("slope_deg") {
        // The floor stays where it is and gravity turns by the slope about y: +x runs downhill,
        // as a planar mechanism's `slope` says.
        if matches!(doc.table.get("gravity"), Some(toml::Value::Array(_))) {
            return Err(f.error("slope", "give either a gravity vector or a slope (with a gravity magnitude)"));
        }
        let alpha = f.angle("slope", Range::Open(-1.6, 1.6))?;
        let g = m.tree.gravity.norm();
        m.tree.gravity = Vec3::new(g * alpha.sin(), 0.0, -g * alpha.cos());
    }
    m.mu = f.f64_or("mu", m.mu, Range::NonNegative)?;

    if f.has("ground") {
        for (i, g) in f.tables("ground")?.into_iter().enumerate() {
            let name = g.str_opt("name")?.map_or_else(|| format!("ground{i}"), str::to_string);
            let point = if g.has("point") { vec3(&g, "point")? } else { Vec3::zeros() };
            let normal = if g.has("normal") { vec3(&g, "normal")? } else { Vec3::z() };
            let plane = Plane::new(point, normal).ok_or_else(|| g.error("normal", "must not be zero"))?;
            let friction = if g.has("mu") { Some(g.f64("mu", Range::NonNegative)?) } else { None };
            g.finish()?;
            m.planes.push(GroundPlane { name, plane, friction, bits: (1, 1) });
        }
    }

    let listed = f.strings("contacts")?;
    if f.has("contacts") {
        m.retain_contacts(&listed).map_err(|(i, why)| f.error(&format!("contacts[{i}]"), why))?;
    }

    if f.has("walking") {
        m.walking = Some(read_walking(&f.table("walking")?, &m)?);
    }
    if f.has("joint") {
        for j in f.tables("joint")? {
            read_joint(&j, &mut m)?;
        }
    }
    if f.has("gait") {
        m.gait = Some(read_gait(&f.table("gait")?, &m)?);
        // A step map is a map of the state only when the forces do not depend on time.
        if let Some(s) = m.springs.iter().find(|s| s.periodic()) {
            return Err(f.error(
                "gait",
                format!(
                    "a gait needs forces that do not change with time, and joint \"{}\" tracks a moving reference (amplitude and frequency); remove one of the two",
                    m.velocities[s.qvel]
                ),
            ));
        }
    }
    if !links.is_empty() {
        apply_links(&mut m, links).map_err(|why| f.error("link", why))?;
    }
    if f.has("initial") {
        let init = f.table("initial")?;
        if init.has("q") {
            m.q0 = state(&init, "q", &m.coordinates, &m.q0)?;
        }
        if init.has("v") {
            m.v0 = state(&init, "v", &m.velocities, &m.v0)?;
        }
        init.finish()?;
    }
    f.finish()?;
    Ok(m)
}

fn vec3(f: &Fields<'_>, key: &str) -> Result<Vec3, Error> {
    let v = f.vector(key, Some(3), Range::Any)?;
    Ok(Vec3::new(v[0], v[1], v[2]))
}

/// A `[[link]]` table's override of a body: its joint frame's position in its parent's frame
/// (m) and its mass (kg).
struct LinkOverride {
    body: usize,
    pos: Option<Vec3>,
    mass: Option<f64>,
}

/// A `[[link]]` table: `name`, `pos` and `mass` (docs/models.md).
fn read_link(l: &Fields<'_>, m: &SpatialModel) -> Result<LinkOverride, Error> {
    let name = l.str_opt("name")?.ok_or_else(|| l.error("name", "missing: name a link (a body of the tree)"))?;
    let Some(body) = m.tree.body_index(name) else {
        let names: Vec<&str> = m.tree.bodies().iter().map(|b| b.name.as_str()).collect();
        return Err(l.error("name", format!("no link named \"{name}\" (the links: {})", names.join(", "))));
    };
    let pos = if l.has("pos") { Some(vec3(l, "pos")?) } else { None };
    let mass = if l.has("mass") { Some(l.f64("mass", Range::Positive)?) } else { None };
    l.finish_ref()?;
    Ok(LinkOverride { body, pos, mass })
}

/// Applies the `[[link]]` overrides: a body's placement and its mass (its rotational inertia
/// scaled with it). Under a `[gait]` mirror, an override of one body of a pair that leaves its
/// partner alone is carried to the partner as its mirror image, so that the model stays its own
/// mirror image (a hip width is one number).
fn apply_links(m: &mut SpatialModel, mut links: Vec<LinkOverride>) -> Result<(), String> {
    if let Some((normal, pairs)) = m.gait.as_ref().and_then(|g| g.mirror.clone()) {
        let n = normal.normalize();
        let mut carried = vec![];
        for o in &links {
            let partner = pairs.iter().find_map(|&(a, b)| {
                if a == o.body {
                    Some(b)
                } else if b == o.body {
                    Some(a)
                } else {
                    None
                }
            });
            if let Some(p) = partner.filter(|p| !links.iter().any(|x| x.body == *p)) {
                let pos = o.pos.map(|x| x - 2.0 * x.dot(&n) * n);
                carried.push(LinkOverride { body: p, pos, mass: o.mass });
            }
        }
        links.extend(carried);
    }
    let mut bodies = m.tree.bodies().to_vec();
    for o in &links {
        let b = &mut bodies[o.body];
        if let Some(p) = o.pos {
            b.placement.pos = p;
        }
        if let Some(mass) = o.mass {
            if b.inertia.mass > 0.0 {
                b.inertia.inertia *= mass / b.inertia.mass;
            }
            b.inertia.mass = mass;
        }
    }
    m.tree = crate::spatial::tree::SpatialTree::new(bodies, m.tree.gravity)
        .and_then(|t| t.with_armature(m.tree.armature().to_vec()))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// A `[[joint]]` table: a one-coordinate joint's `stiffness` (about `reference`, default its
/// coordinate in the file's reference configuration, read before `[initial]`), `damping`, and
/// its range `lower`, `upper` (rad, or m for a slider: hard stops, [`crate::spatial::timestep::JointLimit`]).
fn read_joint(j: &Fields<'_>, m: &mut SpatialModel) -> Result<(), Error> {
    let name = j.str_opt("name")?.ok_or_else(|| j.error("name", "missing: name a joint"))?;
    let (Some(iq), Some(iv)) =
        (m.coordinates.iter().position(|c| c == name), m.velocities.iter().position(|c| c == name))
    else {
        let one: Vec<&str> = m.coordinates.iter().filter(|c| m.velocities.contains(c)).map(String::as_str).collect();
        return Err(j.error(
            "name",
            format!("no one-coordinate joint named \"{name}\" (springs and damping act on these: {})", one.join(", ")),
        ));
    };
    if j.has("damping") {
        // (Negative damping injects energy: a PD law's, as P3's hip.)
        m.damping[iv] = j.f64("damping", Range::Any)?;
    }
    if j.has("lower") || j.has("upper") {
        // A range of the scene's own, or the file's narrowed or widened: either end given
        // replaces the file's (a joint the file leaves free is unbounded on the other side).
        let old = m.limits.iter().position(|l| l.qpos == iq);
        let (lo, hi) = old.map_or((f64::NEG_INFINITY, f64::INFINITY), |k| (m.limits[k].lower, m.limits[k].upper));
        let lower = if j.has("lower") { j.f64("lower", Range::Any)? } else { lo };
        let upper = if j.has("upper") { j.f64("upper", Range::Any)? } else { hi };
        if !(lower.is_finite() && upper.is_finite() && lower <= upper) {
            return Err(j.error(
                "lower",
                format!("lower and upper must be finite numbers with lower <= upper (got {lower} and {upper}; the file gives this joint {})",
                    old.map_or("no range".to_string(), |k| format!("[{}, {}]", m.limits[k].lower, m.limits[k].upper))),
            ));
        }
        let limit = crate::spatial::timestep::JointLimit { name: name.to_string(), qpos: iq, qvel: iv, lower, upper };
        match old {
            Some(k) => m.limits[k] = limit,
            None => m.limits.push(limit),
        }
    }
    let periodic = ["amplitude", "frequency", "phase", "phase_deg"];
    if j.has("stiffness") || j.has("reference") || periodic.iter().any(|k| j.has(k)) {
        let k = j.f64_or("stiffness", 0.0, Range::NonNegative)?;
        let rest = j.f64_or("reference", m.q0[iq], Range::Any)?;
        // A periodic reference r(t) = reference + amplitude sin(frequency t + phase): a PD law
        // tracking it with the joint's damping (the planar `[[spring]]`'s).
        let reference = crate::mechanics::reference::JointReference {
            rest,
            amplitude: j.f64_or("amplitude", 0.0, Range::Any)?,
            frequency: j.f64_or("frequency", 0.0, Range::NonNegative)?,
            phase: j.angle_or("phase", 0.0, Range::Any)?,
        };
        let spring = crate::spatial::timestep::Spring { qpos: iq, qvel: iv, stiffness: k, reference };
        m.springs.retain(|s| s.qvel != iv);
        if k > 0.0 || spring.periodic() {
            m.springs.push(spring);
        }
    }
    j.finish_ref()
}

/// The `[walking]` table: `feet` (links or collision shapes), `forward` (world axes) and
/// `ahead` (m, default 0), the walking rule of [`crate::spatial::timestep::Walking`].
fn read_walking(w: &Fields<'_>, m: &SpatialModel) -> Result<crate::spatial::timestep::Walking, Error> {
    let mut feet = vec![];
    let names = w.strings("feet")?;
    if names.len() < 2 {
        return Err(w.error("feet", "name at least two feet (links or collision shapes)"));
    }
    for (i, name) in names.iter().enumerate() {
        let before = feet.len();
        for (k, c) in m.shapes.iter().enumerate() {
            if c.name == *name || c.body.is_some_and(|b| m.tree.bodies()[b].name == *name) {
                feet.push(k);
            }
        }
        if feet.len() == before {
            return Err(w.error(
                &format!("feet[{i}]"),
                format!(
                    "no contact shape of a link or shape named \"{name}\" (the scene's contacts are its candidates)"
                ),
            ));
        }
    }
    let forward = vec3(w, "forward")?;
    if forward.norm() == 0.0 {
        return Err(w.error("forward", "must not be zero: the direction of travel"));
    }
    let ahead = w.f64_or("ahead", 0.0, Range::NonNegative)?;
    w.finish_ref()?;
    Ok(crate::spatial::timestep::Walking { feet, forward: forward.normalize(), ahead })
}

/// `[initial].q` or `.v`: an array of all the values, or a table of named ones (the others
/// keep `base`'s).
fn state(init: &Fields<'_>, key: &str, names: &[String], base: &[f64]) -> Result<Vec<f64>, Error> {
    if let Ok(t) = init.table(key) {
        let mut out = base.to_vec();
        for (k, n) in names.iter().enumerate() {
            if t.has(n) {
                out[k] = t.f64(n, Range::Any)?;
            }
        }
        t.finish()?;
        return Ok(out);
    }
    let v = init.vector(key, Some(names.len()), Range::Any)?;
    Ok(v.as_slice().to_vec())
}

/// The `[gait]` table: `translation` (coordinate names the translation symmetry shifts),
/// `symmetry = { body, axis, order }` and `settle` (docs/models.md, "Gaits in 3-D").
fn read_gait(g: &Fields<'_>, m: &SpatialModel) -> Result<super::spatial_gait::GaitSpec3, Error> {
    use crate::spatial::joint::Joint3;
    let mut translation = vec![];
    for (i, name) in g.strings("translation")?.iter().enumerate() {
        // A translational coordinate: its velocity has the same index in its joint.
        let found = m.tree.bodies().iter().enumerate().find_map(|(b, body)| {
            let (iq, iv) = m.tree.joint_start(b);
            let k = (0..body.joint.nq()).find(|&k| m.coordinates[iq + k] == *name)?;
            let linear = match body.joint {
                Joint3::Prismatic { .. } => k == 0,
                Joint3::Translation | Joint3::Free => k < 3,
                Joint3::Planar => k < 2,
                _ => false,
            };
            linear.then_some(iv + k)
        });
        match found {
            Some(k) => translation.push(k),
            None => {
                return Err(g.error(
                    &format!("translation[{i}]"),
                    format!(
                        "\"{name}\" is not a translational coordinate (a floating base's x, y or z, a prismatic joint)"
                    ),
                ))
            }
        }
    }
    let symmetry = if g.has("symmetry") {
        let t = g.table("symmetry")?;
        let body_name = t.str_opt("body")?.ok_or_else(|| t.error("body", "missing: name the symmetric body"))?;
        let body =
            m.tree.body_index(body_name).ok_or_else(|| t.error("body", format!("no body named \"{body_name}\"")))?;
        let axis = vec3(&t, "axis")?;
        let order = t.f64("order", Range::Any)?;
        if !(order >= 2.0 && order.fract() == 0.0 && order <= 1e6) {
            return Err(t.error("order", format!("must be a whole number >= 2 (got {order})")));
        }
        t.finish()?;
        Some((body, axis, order as usize))
    } else {
        None
    };
    let mirror = if g.has("mirror") {
        if symmetry.is_some() {
            return Err(g.error("mirror", "give either `symmetry` or `mirror`, not both"));
        }
        let t = g.table("mirror")?;
        let normal = vec3(&t, "normal")?;
        let mut pairs = vec![];
        let body = |k: &str, name: &str| {
            m.tree.body_index(name).ok_or_else(|| t.error(k, format!("no body named \"{name}\"")))
        };
        for (i, (l, r)) in t.string_pairs("pairs")?.into_iter().enumerate() {
            let key = format!("pairs[{i}]");
            pairs.push((body(&key, l)?, body(&key, r)?));
        }
        t.finish()?;
        Some((normal, pairs))
    } else {
        None
    };
    let settle = g.f64_or("settle", 10.0, Range::Any)?;
    if !(settle >= 0.0 && settle.fract() == 0.0 && settle <= 1e5) {
        return Err(g.error(
            "settle",
            format!(
                "must be a whole number of strikes in [0, 100000] (0: [initial] is a strike's state; got {settle})"
            ),
        ));
    }
    g.finish_ref()?;
    Ok(super::spatial_gait::GaitSpec3 { translation, symmetry, mirror, settle: settle as usize })
}
