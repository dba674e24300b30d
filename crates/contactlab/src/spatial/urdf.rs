//! URDF in space: a URDF file's links, inertials, joints and collision shapes as a
//! [`SpatialTree`], in Pinocchio's numbering. The one URDF reader: a planar mechanism read
//! from a URDF ([`crate::multibody::urdf`]) is this reading seen in its plane.
//!
//! # Bodies and coordinates
//! Bodies are the links reached from the root depth first, each link's child joints sorted by
//! joint name: the order in which Pinocchio's URDF parser (through urdfdom, which keeps joints
//! in a map by name) numbers its joints, so `q` and `v` can be pasted between the two. The one
//! difference: a `continuous` joint is one angle here (Pinocchio stores `cos, sin`).
//!
//! * `revolute`, `continuous`: one angle about the joint's axis (normalised); `prismatic`: one
//!   displacement; `fixed`: none; `floating`: a free joint (`x y z qx qy qz qw`, velocities
//!   `vx vy vz wx wy wz` in the link's axes: Pinocchio's FreeFlyer); `planar`: `x, y, θ` in the
//!   joint frame's xy plane (the axis must be that plane's normal, `z`); `spherical` (urdf-rs
//!   reads it; not in the URDF standard): a ball joint.
//! * A `<mimic>` element is ignored (each joint keeps its own coordinate), as Pinocchio ignores it
//!   by default.
//! * [`Base::Fixed`] (a bare `.urdf`): the root link is welded to the world, as the URDF says.
//!   [`Base::Floating`]: the root link gets a free joint named `root_joint`, as Pinocchio's
//!   `buildModel(path, JointModelFreeFlyer())` adds it. A root link named `world` is the world
//!   in both cases.
//!
//! Coordinate names: the joint's name for one number, `NAME.x`, `NAME.y`, `NAME.theta` for a
//! planar joint, `NAME.qx … NAME.qw` for a rotation's quaternion, `NAME.x/.y/.z` for a free
//! joint's position; velocities `NAME` or `NAME.vx … NAME.wz`.
//!
//! # Links
//! `<inertial>`: the mass, the centre of mass at the origin's `xyz`, and the inertia tensor,
//! given in the inertial frame, rotated into the link's axes by the origin's `rpy`
//! (`R I Rᵀ`). `<collision>`: spheres, boxes, cylinders and capsules, each with its pose in the
//! link; a mesh is skipped with a note in [`UrdfLinks::notes`] (its contacts would need the
//! mesh's vertices).

use std::collections::HashMap;
use std::path::Path;

use nalgebra::Rotation3;

use super::algebra::{Mat3, SpatialInertia, Transform, Vec3};
pub use super::geometry::{Collision, Shape};
use super::joint::Joint3;
use super::tree::{Body3, SpatialTree};
use crate::multibody::MAX_BODIES;
use crate::Error;

/// How the root link is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// Welded to the world (a bare URDF).
    Fixed,
    /// Free to move (a floating base, `root_joint`).
    Floating,
}

/// A URDF read as a spatial tree.
#[derive(Debug, Clone)]
pub struct UrdfSpatial {
    /// The tree (gravity `(0, 0, −9.81)`: URDF's `z` is up).
    pub tree: SpatialTree,
    /// The rest of the reading (names, collision shapes, limits), as a planar reading has it too.
    pub links: UrdfLinks,
}

/// Reads the URDF at `path` (at most [`crate::model::MAX_MODEL_BYTES`]) with its root `base`.
pub fn read(path: &Path, base: Base) -> Result<UrdfSpatial, Error> {
    let name = path.display().to_string();
    let text = crate::model::read_bounded(path)?;
    parse(&name, &text, base)
}

/// [`read`] on the text of a URDF; `name` names it in errors.
pub fn parse(name: &str, text: &str, base: Base) -> Result<UrdfSpatial, Error> {
    let r = read_links(name, &topology(name, text)?, base)?;
    let tree = SpatialTree::new(r.bodies, Vec3::new(0.0, 0.0, -9.81))
        .map_err(|e| Error::input(name, "link", one_line(&e.to_string())))?;
    Ok(UrdfSpatial { tree, links: r.rest })
}

/// A URDF's links as the reader takes them, before they make a tree (whose 3-D checks, such
/// as the inertias' triangle inequality, a planar reading does not need).
pub(crate) struct LinksRead {
    /// The bodies (the tree's, in its order).
    pub bodies: Vec<Body3>,
    /// Each link's body (`None`: the world) and the origin of the joint into it as the file
    /// gives it (the identity for the root), by link index.
    pub links: Vec<(Option<usize>, Transform)>,
    /// The rest of the reading.
    pub rest: UrdfLinks,
}

/// What a URDF's links give besides the tree: [`UrdfSpatial`]'s, and a planar reading's
/// ([`crate::multibody::urdf`]).
#[derive(Debug, Clone)]
pub struct UrdfLinks {
    /// The names of the `nq` configuration coordinates (module docs).
    pub coordinates: Vec<String>,
    /// The names of the `nv` velocity coordinates.
    pub velocities: Vec<String>,
    /// The collision shapes.
    pub collisions: Vec<Collision>,
    /// What was read but not used (meshes), one line each.
    pub notes: Vec<String>,
    /// The collision geometry skipped (meshes), per body.
    pub skipped: Vec<super::geometry::Skipped>,
    /// The `<limit>`s of revolute and prismatic joints.
    pub limits: Vec<super::timestep::JointLimit>,
}

/// Reads the links of a parsed file (module docs): the one reading of a URDF's elements, for
/// [`parse`] and for a planar reading ([`crate::multibody::urdf`]).
pub(crate) fn read_links(name: &str, t: &Topology, base: Base) -> Result<LinksRead, Error> {
    let err = |key: &str, msg: String| Error::input(name, key, msg);
    let robot = &t.robot;
    // Depth first, each link's child joints sorted by name (Pinocchio's numbering).
    let mut order = vec![];
    let mut stack = vec![t.root];
    while let Some(l) = stack.pop() {
        order.push(l);
        let mut kids = t.children[l].clone();
        kids.sort_by(|&a, &b| robot.joints[b].name.cmp(&robot.joints[a].name));
        stack.extend(kids.iter().map(|&j| t.link_index[robot.joints[j].child.link.as_str()]));
    }
    let world_root = robot.links[t.root].name == "world";
    let mut body_of = vec![None; robot.links.len()];
    let mut origin_of = vec![Transform::identity(); robot.links.len()];
    let (mut bodies, mut coordinates, mut velocities, mut limits) = (vec![], vec![], vec![], vec![]);
    for &l in &order {
        if world_root && l == t.root {
            continue;
        }
        let link = &robot.links[l];
        let (parent, placement, joint, jname) = match t.parent_joint[l] {
            None => {
                let joint = if base == Base::Floating { Joint3::Free } else { Joint3::Fixed };
                (None, Transform::identity(), joint, "root_joint".to_string())
            }
            Some(j) => {
                let uj = &robot.joints[j];
                let key = format!("joint '{}'", uj.name);
                let placement = Transform { rot: rpy(&uj.origin), pos: v3(&uj.origin.xyz) };
                if !placement.rot.iter().chain(placement.pos.iter()).all(|x| x.is_finite()) {
                    return Err(err(&key, "its origin must be finite".into()));
                }
                origin_of[l] = placement;
                let a = v3(&uj.axis.xyz);
                let unit = || {
                    let n = a.norm();
                    if n > 0.0 && n.is_finite() {
                        Ok(a / n)
                    } else {
                        Err(err(&key, format!("axis {:?} is not a direction", uj.axis.xyz.0)))
                    }
                };
                let joint = match uj.joint_type {
                    urdf_rs::JointType::Revolute | urdf_rs::JointType::Continuous => Joint3::Revolute { axis: unit()? },
                    urdf_rs::JointType::Prismatic => Joint3::Prismatic { axis: unit()? },
                    urdf_rs::JointType::Fixed => Joint3::Fixed,
                    urdf_rs::JointType::Floating => Joint3::Free,
                    urdf_rs::JointType::Spherical => Joint3::Ball,
                    urdf_rs::JointType::Planar => Joint3::Planar,
                };
                let mut parent = body_of[t.link_index[uj.parent.link.as_str()]];
                let planar_axis = if matches!(joint, Joint3::Planar) { Some(unit()?) } else { None };
                match planar_axis {
                    Some(a) if (a - Vec3::z()).norm() > 1e-12 => {
                        // Drake's reading of a planar joint about another axis: its frame M is
                        // the rotation closest to the identity that takes z to the axis; x and y
                        // move along M's axes, θ turns about the axis, and the link hangs from M
                        // turned back (unturned at zero). M is a massless body of its own.
                        let c = Vec3::z().cross(&a);
                        let turn = if c.norm() < 1e-12 { Vec3::x() } else { c / c.norm() };
                        let rot = nalgebra::Rotation3::from_axis_angle(
                            &nalgebra::Unit::new_unchecked(turn),
                            c.norm().atan2(a.z),
                        )
                        .into_inner();
                        let m = Transform { rot, pos: Vec3::zeros() };
                        let (qn, vn) = Joint3::Planar.coordinate_names(&uj.name);
                        coordinates.extend(qn);
                        velocities.extend(vn);
                        bodies.push(Body3 {
                            name: format!("{} frame", uj.name),
                            parent,
                            placement: placement.then(&m),
                            joint: Joint3::Planar,
                            inertia: SpatialInertia::zero(),
                        });
                        parent = Some(bodies.len() - 1);
                        (parent, Transform { rot: rot.transpose(), pos: Vec3::zeros() }, Joint3::Fixed, uj.name.clone())
                    }
                    _ => (parent, placement, joint, uj.name.clone()),
                }
            }
        };
        let key = format!("link '{}'", link.name);
        let inertia = inertia_of(&link.inertial).map_err(|m| err(&key, m))?;
        let (qn, vn) = joint.coordinate_names(&jname);
        // A revolute or prismatic joint's `<limit>` (a continuous one has none; `lower =
        // upper = 0`, urdf-rs's reading of a limit without bounds, is no range).
        if let Some(uj) = t.parent_joint[l].map(|j| &robot.joints[j]) {
            let (lower, upper) = (uj.limit.lower, uj.limit.upper);
            let kind = matches!(uj.joint_type, urdf_rs::JointType::Revolute | urdf_rs::JointType::Prismatic);
            if kind && qn.len() == 1 && !(lower == 0.0 && upper == 0.0) {
                if !(lower.is_finite() && upper.is_finite() && lower <= upper) {
                    return Err(err(
                        &format!("joint '{}' <limit>", uj.name),
                        format!("lower and upper must be finite with lower <= upper (got {lower} {upper})"),
                    ));
                }
                limits.push(super::timestep::JointLimit {
                    name: uj.name.clone(),
                    qpos: coordinates.len(),
                    qvel: velocities.len(),
                    lower,
                    upper,
                });
            }
        }
        coordinates.extend(qn);
        velocities.extend(vn);
        body_of[l] = Some(bodies.len());
        bodies.push(Body3 { name: link.name.clone(), parent, placement, joint, inertia });
    }
    let (mut collisions, mut notes, mut skipped) = (vec![], vec![], vec![]);
    for &l in &order {
        let Some(body) = body_of[l] else { continue };
        let link = &robot.links[l];
        let key = format!("link '{}'", link.name);
        let mut named = 0;
        for c in &link.collision {
            let pose = Transform { rot: rpy(&c.origin), pos: v3(&c.origin.xyz) };
            let positive = |what: &str, x: f64| {
                if x > 0.0 && x.is_finite() {
                    Ok(x)
                } else {
                    Err(err(&key, format!("a collision {what} must be > 0 and finite (got {x})")))
                }
            };
            let shape = match &c.geometry {
                // A sphere of radius 0 is a point (Drake's CompassGait.urdf has such feet).
                urdf_rs::Geometry::Sphere { radius } if *radius == 0.0 => Shape::Sphere { radius: 0.0 },
                urdf_rs::Geometry::Sphere { radius } => Shape::Sphere { radius: positive("sphere's radius", *radius)? },
                urdf_rs::Geometry::Box { size } => {
                    for &x in size.iter() {
                        positive("box's size", x)?;
                    }
                    Shape::Box { size: v3(size) }
                }
                urdf_rs::Geometry::Cylinder { radius, length } => Shape::Cylinder {
                    radius: positive("cylinder's radius", *radius)?,
                    length: positive("cylinder's length", *length)?,
                },
                urdf_rs::Geometry::Capsule { radius, length } => Shape::Capsule {
                    radius: positive("capsule's radius", *radius)?,
                    length: positive("capsule's length", *length)?,
                },
                urdf_rs::Geometry::Mesh { filename, .. } => {
                    notes.push(format!("{key}: collision mesh '{filename}' skipped (no contacts from meshes)"));
                    skipped.push(super::geometry::Skipped {
                        body,
                        what: format!("collision mesh '{filename}'"),
                        bits: (1, 1),
                    });
                    continue;
                }
            };
            // An unnamed shape is named after its link (`link`, then `link[1]`, … when the link
            // has several), so that contacts and scene files can name it.
            let unnamed = if named == 0 { link.name.clone() } else { format!("{}[{named}]", link.name) };
            named += 1;
            collisions.push(Collision {
                name: c.name.clone().filter(|n| !n.is_empty()).unwrap_or(unnamed),
                body: Some(body),
                pose,
                shape,
                friction: None,
                bits: (1, 1),
            });
        }
    }
    let links = body_of.into_iter().zip(origin_of).collect();
    Ok(LinksRead { bodies, links, rest: UrdfLinks { coordinates, velocities, collisions, notes, skipped, limits } })
}

/// Completes every `<inertial>` that has no `<inertia>` with a zero one, as Drake reads it
/// (`urdf-rs` requires the element). Comments are not searched.
pub fn complete_inertials(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    const ZERO: &str = "<inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/>";
    while let Some(i) = find_tag(rest, "inertial") {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let Some(open_end) = tail.find('>') else { break };
        if tail[..open_end].ends_with('/') {
            // <inertial/>: nothing inside.
            out.push_str("<inertial><mass value=\"0\"/>");
            out.push_str(ZERO);
            out.push_str("</inertial>");
            rest = &tail[open_end + 1..];
            continue;
        }
        let Some(close) = tail.find("</inertial>") else { break };
        let body = &tail[..close];
        let visible = strip_comments(body);
        out.push_str(body);
        if find_tag(&visible, "inertia").is_none() {
            out.push_str(ZERO);
        }
        out.push_str("</inertial>");
        rest = &tail[close + "</inertial>".len()..];
    }
    out.push_str(rest);
    out
}

/// Removes every `<visual>` element: contactlab draws its own figures, and visuals carry what
/// `urdf-rs` may refuse and Drake accepts (a `<material>` without a name, as in Drake's
/// `CompassGait.urdf`). Comments are left alone.
pub fn strip_visuals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = find_tag(rest, "visual") {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let Some(open_end) = tail.find('>') else { break };
        if tail[..open_end].ends_with('/') {
            rest = &tail[open_end + 1..];
            continue;
        }
        match tail.find("</visual>") {
            Some(close) => rest = &tail[close + "</visual>".len()..],
            None => {
                rest = tail;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The position of the first `<NAME` followed by whitespace, `/` or `>` outside comments.
fn find_tag(text: &str, name: &str) -> Option<usize> {
    let pat = format!("<{name}");
    let mut from = 0;
    while let Some(k) = text[from..].find(&pat) {
        let at = from + k;
        let next = text[at + pat.len()..].chars().next();
        let in_comment = text[..at].rfind("<!--").is_some_and(|c| text[c..at].find("-->").is_none());
        if !in_comment && matches!(next, Some(c) if c.is_whitespace() || c == '/' || c == '>') {
            return Some(at);
        }
        from = at + pat.len();
    }
    None
}

fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        match rest[i..].find("-->") {
            Some(j) => rest = &rest[i + j + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

pub(crate) fn rpy(p: &urdf_rs::Pose) -> Mat3 {
    Rotation3::from_euler_angles(p.rpy[0], p.rpy[1], p.rpy[2]).into_inner()
}

pub(crate) fn v3(v: &urdf_rs::Vec3) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

/// A URDF's robot and its tree.
pub(crate) struct Topology {
    /// The parsed file (visuals removed, inertials completed).
    pub robot: urdf_rs::Robot,
    /// Each link's index by name.
    pub link_index: HashMap<String, usize>,
    /// The joint into each link (`None`: the root).
    pub parent_joint: Vec<Option<usize>>,
    /// Each link's child joints, in file order.
    pub children: Vec<Vec<usize>>,
    /// The root link.
    pub root: usize,
}

/// Parses a URDF (bounded: at most [`MAX_BODIES`] links) and checks that its joints form one
/// tree; errors name `name` and the link or joint.
pub(crate) fn topology(name: &str, text: &str) -> Result<Topology, Error> {
    let err = |key: &str, msg: String| Error::input(name, key, msg);
    // Bounded work before the XML parser allocates: count the elements first.
    for tag in ["link", "joint"] {
        let count = text.matches(&format!("<{tag}")).count();
        if count > 4 * (MAX_BODIES + 1) {
            return Err(err(tag, format!("{count} <{tag}> elements; at most {MAX_BODIES} links are supported")));
        }
    }
    let robot = urdf_rs::read_from_string(&complete_inertials(&strip_visuals(text)))
        .map_err(|e| err("robot", format!("not a valid URDF: {}", one_line(&e.to_string()))))?;
    if robot.links.len() > MAX_BODIES + 1 {
        return Err(err("link", format!("{} links; at most {MAX_BODIES} are supported", robot.links.len())));
    }
    let link_index: HashMap<String, usize> = robot.links.iter().enumerate().map(|(i, l)| (l.name.clone(), i)).collect();
    if link_index.len() != robot.links.len() {
        return Err(err("link", "two links have the same name".into()));
    }
    // The joint into each link.
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        let key = format!("joint '{}'", joint.name);
        let child = *link_index
            .get(joint.child.link.as_str())
            .ok_or_else(|| err(&key, format!("child link '{}' does not exist", joint.child.link)))?;
        if !link_index.contains_key(joint.parent.link.as_str()) {
            return Err(err(&key, format!("parent link '{}' does not exist", joint.parent.link)));
        }
        if parent_joint[child].is_some() {
            return Err(err(&key, format!("link '{}' is the child of two joints", joint.child.link)));
        }
        parent_joint[child] = Some(j);
    }
    let roots: Vec<usize> = (0..robot.links.len()).filter(|&l| parent_joint[l].is_none()).collect();
    let root = match roots.as_slice() {
        [r] => *r,
        [] => return Err(err("joint", "the joints form a cycle: no link is a root".into())),
        many => {
            let names: Vec<&str> = many.iter().map(|&l| robot.links[l].name.as_str()).collect();
            return Err(err("link", format!("several root links ({}); a URDF is one tree", names.join(", "))));
        }
    };
    let mut children: Vec<Vec<usize>> = vec![vec![]; robot.links.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        children[link_index[joint.parent.link.as_str()]].push(j);
    }
    let t = Topology { robot, link_index, parent_joint, children, root };
    let order = t.breadth_first();
    if order.len() != t.robot.links.len() {
        let lost = (0..t.robot.links.len()).find(|l| !order.contains(l)).unwrap_or(0);
        return Err(err("joint", format!("the joints form a cycle through link '{}'", t.robot.links[lost].name)));
    }
    Ok(t)
}

impl Topology {
    /// The links reachable from the root, breadth first (children in file order).
    pub fn breadth_first(&self) -> Vec<usize> {
        let mut order = vec![self.root];
        let mut k = 0;
        while k < order.len() {
            for &j in &self.children[order[k]] {
                order.push(self.link_index[self.robot.joints[j].child.link.as_str()]);
            }
            k += 1;
        }
        order
    }
}

pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A link's spatial inertia from its `<inertial>` (module docs); the message says what is wrong.
fn inertia_of(inertial: &urdf_rs::Inertial) -> Result<SpatialInertia, String> {
    let r = rpy(&inertial.origin);
    let i = &inertial.inertia;
    let tensor = Mat3::new(i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz);
    let mass = inertial.mass.value;
    if !(mass >= 0.0 && mass.is_finite()) {
        return Err(format!("mass must be finite and >= 0, got {mass}"));
    }
    Ok(SpatialInertia { mass, com: v3(&inertial.origin.xyz), inertia: r * tensor * r.transpose() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inertials_without_inertia_are_completed_and_comments_ignored() {
        let t = "<link><inertial><mass value=\"1\"/><!-- <inertia ixx=\"1\"/> --></inertial></link>\
                 <link><inertial><mass value=\"2\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\
                 <link><inertial/></link>";
        let out = complete_inertials(t);
        assert_eq!(out.matches("<inertia ").count(), 4, "{out}");
        assert!(out.contains("<mass value=\"1\"/><!-- <inertia ixx=\"1\"/> --><inertia ixx=\"0\""), "{out}");
        // A complete file is unchanged.
        let full = "<inertial><mass value=\"2\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>";
        assert_eq!(complete_inertials(full), full);
    }

    #[test]
    fn visuals_are_skipped() {
        let t = "<link name=\"a\"><visual><material><color rgba=\"1 0 0 1\"/></material></visual>\
                 <!-- <visual> kept </visual> --><visual/><collision/></link>";
        assert_eq!(strip_visuals(t), "<link name=\"a\"><!-- <visual> kept </visual> --><collision/></link>");
    }
}
