//! `kind = "multibody"` model files (schema in `docs/models.md`, section "multibody").
//!
//! Bodies, lines, contacts, joint limits, springs, the relabelling and the initial state are
//! named; references between them are by name and checked here, so that every error names the
//! file and the key (`contact[1].body: no body named "shin"; bodies: thigh, shank`).

use std::collections::HashMap;
use std::path::Path;

use nalgebra::Vector2;

use super::{urdf, Mechanism, MAX_BODIES, MAX_CONSTRAINTS, MAX_DOF};
use crate::mechanics::multibody::{Body, Joint, Multibody};
use crate::mechanics::multibody_system::{Arm, Constraint, Contact, JointReference, JointSpring, Relabel};
use crate::mechanics::ContactLaw;
use crate::model::{Fields, ModelDoc, Range};
use crate::Error;

/// The joints a body may have (`joint` key).
pub const JOINTS: [&str; 4] = ["revolute", "prismatic", "fixed", "planar"];

/// Reads a model file with `kind = "multibody"`, or a bare URDF file (`.urdf`: the scene's
/// defaults, `gravity = 9.81`, plane `xz`, no contacts).
pub fn read(path: &std::path::Path) -> Result<Mechanism, Error> {
    from_model(&read_doc(path)?)
}

/// The document [`read`] reads: the file's, or for a bare URDF file the scene's defaults
/// naming it.
pub fn read_doc(path: &std::path::Path) -> Result<ModelDoc, Error> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("urdf")) {
        let file = path.display().to_string();
        let name = path.file_name().map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
        let text = format!("kind = \"multibody\"\ngravity = 9.81\nurdf = {}\n", toml::Value::String(name));
        let mut doc = ModelDoc::parse(&file, &text, false)?;
        doc.file = file;
        return Ok(doc);
    }
    ModelDoc::read(path)
}

/// The `[[spring]]` tables.
fn read_springs(f: &Fields, names: &Names) -> Result<Vec<JointSpring>, Error> {
    let mut springs = vec![];
    if f.has("spring") {
        for s in f.tables("spring")? {
            let coordinate = names.coordinate(&s, "coordinate")?;
            let spring = JointSpring {
                coordinate,
                stiffness: s.f64_or("stiffness", 0.0, Range::Any)?,
                damping: s.f64_or("damping", 0.0, Range::Any)?,
                reference: JointReference {
                    rest: angle_or(&s, "rest", 0.0)?,
                    amplitude: angle_or(&s, "amplitude", 0.0)?,
                    frequency: s.f64_or("frequency", 0.0, Range::NonNegative)?,
                    phase: angle_or(&s, "phase", 0.0)?,
                },
            };
            s.finish()?;
            springs.push(spring);
        }
    }
    Ok(springs)
}

/// Reads a `kind = "multibody"` document.
pub fn from_model(doc: &ModelDoc) -> Result<Mechanism, Error> {
    let kind = doc.kind()?;
    if kind != "multibody" {
        return Err(Error::input(&doc.file, "kind", format!("expected \"multibody\", got \"{kind}\"")));
    }
    if doc.is_spatial_scene() {
        return Err(Error::input(
            &doc.file,
            if doc.table.contains_key("base") { "base" } else { "mjcf" },
            "makes this a robot in 3-D, which `model inspect`, `simulate` and `gait` run; this command takes planar mechanisms",
        ));
    }
    let f = doc.fields();
    let file = doc.file.as_str();
    let name = f.str_opt("name")?.map(str::to_string);
    let _ = f.str_opt("description")?;
    let gravity = f.f64("gravity", Range::NonNegative)?;
    let slope = if f.has("slope") || f.has("slope_deg") { f.angle("slope", Range::Open(-1.6, 1.6))? } else { 0.0 };

    let (tree, coordinates, spheres, shapes) = if f.has("urdf") {
        let rel = f.str_opt("urdf")?.ok_or_else(|| f.error("urdf", "expected the path of a URDF file"))?;
        let plane = f.choice("plane", &urdf::PLANES, "xz")?;
        if f.has("body") {
            return Err(f.error("body", "give either [[body]] tables or a `urdf` file, not both"));
        }
        // A path relative to the model file's directory.
        let base = Path::new(file).parent().unwrap_or(Path::new(""));
        let t = urdf::read(&base.join(rel), plane)?;
        let tree = Multibody::new(t.bodies, gravity, slope)
            .and_then(|m| m.with_coordinates(t.first))
            .map_err(|e| e.in_file(&base.join(rel).display().to_string()))?;
        let shapes = vec![None; tree.bodies().len()];
        (tree, t.coordinates, Some(t.spheres), shapes)
    } else {
        let t = read_bodies(&f)?;
        (Multibody::new(t.bodies, gravity, slope).map_err(|e| e.in_file(file))?, t.coordinates, None, t.shapes)
    };
    let n = tree.dof();
    if n > MAX_DOF {
        return Err(f.error("body", format!("{n} degrees of freedom; at most {MAX_DOF} are supported")));
    }
    let names = Names { bodies: tree.bodies().iter().map(|b| b.name.as_str()).collect(), coordinates: &coordinates };

    let lines = if f.has("line") { read_lines(&f)? } else { vec![] };
    let mut contacts = vec![];
    let mut contact_names: Vec<String> = vec![];
    let mut written_normals: Vec<Option<Vector2<f64>>> = vec![];
    let mut pending_release: Vec<(usize, Vec<String>, String)> = vec![];
    if f.has("contact") {
        for (i, c) in f.tables("contact")?.into_iter().enumerate() {
            let cname = c.str_opt("name")?.map_or_else(|| format!("contact{i}"), str::to_string);
            let body = names.body(&c, "body")?;
            let (point, radius) = match &spheres {
                Some(s) if !c.has("point") => sphere_of(&c, names.bodies[body], s)?,
                _ => (vec2_or(&c, "point", Vector2::zeros())?, c.f64_or("radius", 0.0, Range::NonNegative)?),
            };
            let (line_point, normal, written) = match c.str_opt("line")? {
                Some(l) => lines.iter().find(|(n, ..)| n == l).map(|(_, p, nv, w)| (*p, *nv, *w)).ok_or_else(|| {
                    let known: Vec<&str> = lines.iter().map(|(n, ..)| n.as_str()).collect();
                    c.error("line", format!("no [[line]] named \"{l}\"; lines: {}", list(&known)))
                })?,
                None if lines.len() == 1 => (lines[0].1, lines[0].2, lines[0].3),
                None => {
                    return Err(c.error(
                        "line",
                        format!(
                            "missing; name one of the {} [[line]] tables (optional only with one line)",
                            lines.len()
                        ),
                    ))
                }
            };
            let law = ContactLaw { mu: c.f64_or("mu", 0.0, Range::NonNegative)?, restitution: read_e(&c)? };
            let arm = if c.has("armed_if") { Some(read_arm(&c.table("armed_if")?, &names)?) } else { None };
            let released: Vec<String> = c.strings("released_by")?.into_iter().map(str::to_string).collect();
            c.finish()?;
            let constraint = Constraint::PointOnLine { body, point, line_point, normal, radius };
            pending_release.push((contacts.len(), released, format!("contact[{i}].released_by")));
            contacts.push(Contact { constraint, law, arm, released_by: vec![] });
            contact_names.push(cname);
            written_normals.push(Some(written));
        }
    }
    for (limit, name) in read_limits(&f, &names)? {
        contacts.push(limit);
        contact_names.push(name);
        written_normals.push(None);
    }
    if contacts.len() > MAX_CONSTRAINTS {
        return Err(f.error(
            "contact",
            format!("{} contacts and limits; at most {MAX_CONSTRAINTS} are supported", contacts.len()),
        ));
    }
    for (i, n) in contact_names.iter().enumerate() {
        if contact_names[..i].contains(n) {
            return Err(f.error("contact", format!("two contacts or limits are named \"{n}\"")));
        }
    }
    let contact_index = |c: &Fields, key: &str, name: &str| {
        contact_names.iter().position(|n| n == name).ok_or_else(|| {
            let known: Vec<&str> = contact_names.iter().map(String::as_str).collect();
            c.error(key, format!("no contact named \"{name}\"; contacts: {}", list(&known)))
        })
    };
    for (k, released, key) in pending_release {
        for r in released {
            let j = contact_index(&f, &key, &r)?;
            if j == k {
                return Err(f.error(&key, "a contact cannot release itself"));
            }
            contacts[k].released_by.push(j);
        }
    }

    let springs = read_springs(&f, &names)?;

    let relabel = if f.has("relabel") {
        let r = f.table("relabel")?;
        let after =
            r.str_opt("after")?.ok_or_else(|| r.error("after", "missing; the contact whose strike relabels"))?;
        let contact = contact_index(&r, "after", after)?;
        let m = r.matrix("matrix", Some((n, n)))?;
        let offset =
            if r.has("offset") { r.vector("offset", Some(n), Range::Any)? } else { nalgebra::DVector::zeros(n) };
        r.finish()?;
        let matrix = (0..n * n).map(|k| m[(k / n, k % n)]).collect();
        Some(Relabel { contact, matrix, offset: offset.iter().copied().collect() })
    } else {
        None
    };

    let gait = if f.has("gait") {
        let g = f.table("gait")?;
        let strike =
            g.str_opt("strike")?.ok_or_else(|| g.error("strike", "missing; the contact whose strike ends a step"))?;
        let strike = contact_index(&g, "strike", strike)?;
        let translation = g
            .strings("translation")?
            .into_iter()
            .map(|name| {
                coordinates.iter().position(|c| c == name).ok_or_else(|| {
                    g.error(
                        "translation",
                        format!("no coordinate named \"{name}\"; coordinates: {}", coordinates.join(", ")),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        g.finish()?;
        Some(super::gait::GaitSpec { strike, translation })
    } else {
        None
    };
    let (q0, v0) = if f.has("initial") {
        let t = f.table("initial")?;
        let q = if t.has("q") { t.vector("q", Some(n), Range::Any)?.iter().copied().collect() } else { vec![0.0; n] };
        let v = if t.has("v") { t.vector("v", Some(n), Range::Any)?.iter().copied().collect() } else { vec![0.0; n] };
        t.finish()?;
        (q, v)
    } else {
        (vec![0.0; n], vec![0.0; n])
    };
    f.finish()?;

    let m = Mechanism {
        source: file.to_string(),
        name,
        tree,
        contacts,
        springs,
        relabel,
        coordinates,
        contact_names,
        q0,
        v0,
        gait,
        shapes,
        written_normals,
        kernel: Default::default(),
        tree_from_urdf: spheres.is_some(),
    };
    // The system's own checks (arming coordinates, relabelling shape) as a last line.
    m.system().map_err(|e| e.in_file(file))?;
    Ok(m)
}

/// A URDF contact's point and radius: the link's collision sphere (`sphere = k` among several).
fn sphere_of(
    c: &Fields,
    link: &str,
    spheres: &HashMap<String, Vec<urdf::Sphere>>,
) -> Result<(Vector2<f64>, f64), Error> {
    let found = spheres.get(link).map_or(&[][..], Vec::as_slice);
    let k = if c.has("sphere") { c.integer("sphere", 0, found.len() as i64 - 1)? as usize } else { 0 };
    match found.len() {
        0 => Err(c.error(
            "point",
            format!("link \"{link}\" has no collision sphere; give the contact's `point` (and `radius`)"),
        )),
        1 => Ok((found[0].center, found[0].radius)),
        _ if c.has("sphere") => Ok((found[k].center, found[k].radius)),
        n => Err(c.error(
            "sphere",
            format!("link \"{link}\" has {n} collision spheres; choose one with `sphere` (0 to {})", n - 1),
        )),
    }
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        "(none)".into()
    } else {
        names.join(", ")
    }
}

fn has_angle(f: &Fields, key: &str) -> bool {
    // Both spellings are marked as read, so that `finish` does not call the other unknown.
    let a = f.has(key);
    let b = f.has(&format!("{key}_deg"));
    a || b
}

fn angle_or(f: &Fields, key: &str, default: f64) -> Result<f64, Error> {
    f.angle_or(key, default, Range::Any)
}

fn vec2_or(f: &Fields, key: &str, default: Vector2<f64>) -> Result<Vector2<f64>, Error> {
    if f.has(key) {
        let v = f.vector(key, Some(2), Range::Any)?;
        Ok(Vector2::new(v[0], v[1]))
    } else {
        Ok(default)
    }
}

/// A nonzero vector, made a unit vector.
fn direction(f: &Fields, key: &str) -> Result<Vector2<f64>, Error> {
    let v = f.vector(key, Some(2), Range::Any)?;
    let v = Vector2::new(v[0], v[1]);
    let n = v.norm();
    if n > 0.0 && n.is_finite() {
        Ok(v / n)
    } else {
        Err(f.error(key, format!("must be a nonzero direction, got [{}, {}]", v.x, v.y)))
    }
}

fn read_e(f: &Fields) -> Result<f64, Error> {
    f.f64_or("e", 0.0, Range::Closed(0.0, 1.0))
}

struct Names<'a> {
    bodies: Vec<&'a str>,
    coordinates: &'a [String],
}

impl Names<'_> {
    fn body(&self, f: &Fields, key: &str) -> Result<usize, Error> {
        let name = f.str_opt(key)?.ok_or_else(|| f.error(key, "missing; the name of a body"))?;
        self.bodies
            .iter()
            .position(|b| *b == name)
            .ok_or_else(|| f.error(key, format!("no body named \"{name}\"; bodies: {}", list(&self.bodies))))
    }

    fn coordinate(&self, f: &Fields, key: &str) -> Result<usize, Error> {
        let name = f.str_opt(key)?.ok_or_else(|| f.error(key, "missing; the name of a coordinate"))?;
        self.coordinates.iter().position(|c| c == name).ok_or_else(|| {
            let known: Vec<&str> = self.coordinates.iter().map(String::as_str).collect();
            f.error(key, format!("no coordinate named \"{name}\"; coordinates: {}", list(&known)))
        })
    }
}

fn read_arm(a: &Fields, names: &Names) -> Result<Arm, Error> {
    let coordinate = names.coordinate(a, "coordinate")?;
    let (above, threshold) = match (has_angle(a, "above"), has_angle(a, "below")) {
        (true, false) => (true, a.angle("above", Range::Any)?),
        (false, true) => (false, a.angle("below", Range::Any)?),
        _ => return Err(a.error("above", "give exactly one of `above` and `below`")),
    };
    a.finish_ref()?;
    Ok(Arm { coordinate, above, threshold })
}

/// The `[[limit]]` tables: each joint limit with its name.
fn read_limits(f: &Fields, names: &Names) -> Result<Vec<(Contact, String)>, Error> {
    let mut out = vec![];
    if !f.has("limit") {
        return Ok(out);
    }
    for (i, l) in f.tables("limit")?.into_iter().enumerate() {
        let name = l.str_opt("name")?.map_or_else(|| format!("limit{i}"), str::to_string);
        let coordinate = names.coordinate(&l, "coordinate")?;
        let (lower, bound) = match (has_angle(&l, "lower"), has_angle(&l, "upper")) {
            (true, false) => (true, l.angle("lower", Range::Any)?),
            (false, true) => (false, l.angle("upper", Range::Any)?),
            _ => return Err(l.error("lower", "give exactly one of `lower` and `upper` (one [[limit]] per bound)")),
        };
        let law = ContactLaw { mu: 0.0, restitution: read_e(&l)? };
        l.finish()?;
        out.push((Contact::new(Constraint::JointLimit { coordinate, lower, bound }, law), name));
    }
    Ok(out)
}

/// A named line: its name, a point, its unit normal and that normal as the file wrote it.
type Line = (String, Vector2<f64>, Vector2<f64>, Vector2<f64>);

fn read_lines(f: &Fields) -> Result<Vec<Line>, Error> {
    let mut out: Vec<Line> = vec![];
    for (i, l) in f.tables("line")?.into_iter().enumerate() {
        let name = l.str_opt("name")?.map_or_else(|| format!("line{i}"), str::to_string);
        if out.iter().any(|(n, ..)| *n == name) {
            return Err(l.error("name", format!("two lines are named \"{name}\"")));
        }
        let point = vec2_or(&l, "point", Vector2::zeros())?;
        let normal = direction(&l, "normal")?;
        let written = l.vector("normal", Some(2), Range::Any)?;
        l.finish()?;
        out.push((name, point, normal, Vector2::new(written[0], written[1])));
    }
    Ok(out)
}

/// The bodies, in file order, and the coordinate names.
/// Largest number of vertices of a body's drawing `shape`.
pub const MAX_SHAPE_VERTICES: usize = 64;

/// A body's drawing outline (polygon vertices in the body frame), if given.
type Shape = Option<Vec<Vector2<f64>>>;

/// A body's optional `shape` (polygon vertices in the body frame, for drawing).
fn read_shape(b: &Fields) -> Result<Shape, Error> {
    if !b.has("shape") {
        return Ok(None);
    }
    let m = b.matrix("shape", None)?;
    if m.ncols() != 2 || m.nrows() < 2 || m.nrows() > MAX_SHAPE_VERTICES {
        return Err(b.error(
            "shape",
            format!("a list of 2 to {MAX_SHAPE_VERTICES} points [x, y] (got {} rows of {})", m.nrows(), m.ncols()),
        ));
    }
    Ok(Some((0..m.nrows()).map(|r| Vector2::new(m[(r, 0)], m[(r, 1)])).collect()))
}

/// The `[[body]]` tables read: bodies, coordinate names, drawing outlines.
struct BodyTables {
    bodies: Vec<Body>,
    coordinates: Vec<String>,
    shapes: Vec<Shape>,
}

fn read_bodies(f: &Fields) -> Result<BodyTables, Error> {
    let tables = f.tables("body")?;
    if tables.len() > MAX_BODIES {
        return Err(f.error("body", format!("{} bodies; at most {MAX_BODIES} are supported", tables.len())));
    }
    let mut bodies: Vec<Body> = Vec::with_capacity(tables.len());
    let mut shapes = Vec::with_capacity(tables.len());
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut coordinates = vec![];
    for (i, b) in tables.into_iter().enumerate() {
        let name = b.str_opt("name")?.ok_or_else(|| b.error("name", "missing; every body has a name"))?;
        if name.is_empty() || name == "world" {
            return Err(b.error("name", format!("\"{name}\" is reserved or empty")));
        }
        if index.contains_key(name) {
            return Err(b.error("name", format!("two bodies are named \"{name}\"")));
        }
        let parent = match b.str_opt("parent")? {
            None | Some("world") => None,
            Some(p) => Some(*index.get(p).ok_or_else(|| {
                b.error("parent", format!("no body named \"{p}\" before this one (parents are listed before children)"))
            })?),
        };
        let joint = match b.choice("joint", &JOINTS, "revolute")? {
            "revolute" => {
                let s = b.f64_or("axis", 1.0, Range::Closed(-1.0, 1.0))?;
                if s != 1.0 && s != -1.0 {
                    return Err(b.error("axis", format!("a revolute axis is 1 or -1 (got {s})")));
                }
                Joint::Revolute { axis: s }
            }
            "prismatic" => Joint::Prismatic { axis: direction(&b, "axis")? },
            "fixed" => Joint::Fixed,
            _ => Joint::Planar,
        };
        match joint {
            Joint::Revolute { .. } | Joint::Prismatic { .. } => coordinates.push(name.to_string()),
            Joint::Planar | Joint::PlanarAxes { .. } => {
                for c in ["x", "y", "theta"] {
                    coordinates.push(format!("{name}.{c}"));
                }
            }
            Joint::Fixed => {}
        }
        let body = Body {
            name: name.to_string(),
            parent,
            joint,
            origin: vec2_or(&b, "origin", Vector2::zeros())?,
            origin_angle: angle_or(&b, "origin_angle", 0.0)?,
            mass: b.f64("mass", Range::NonNegative)?,
            inertia: b.f64("inertia", Range::NonNegative)?,
            com: vec2_or(&b, "com", Vector2::zeros())?,
        };
        shapes.push(read_shape(&b)?);
        b.finish()?;
        index.insert(name.to_string(), i);
        bodies.push(body);
    }
    Ok(BodyTables { bodies, coordinates, shapes })
}
