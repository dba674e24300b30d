//! URDF import: the links, inertials, joints and collision spheres of a URDF file as a planar
//! [`crate::mechanics::multibody::Multibody`] tree (`urdf = "path"` in a `kind = "multibody"` file; docs/models.md).
//!
//! # The plane
//! The mechanism moves in one plane of the URDF's world frame, named by the scene's `plane`
//! key: `xz` (default: URDF `x` to the right, `z` up, as Drake's planar examples), `yz` or `xy`.
//! With its axes `(e₁, e₂)` the plane's normal is `n = e₁ × e₂`, and a 2-D angle is
//! counter-clockwise in `(e₁, e₂)`, a rotation about `n`. Gravity acts along `−e₂` (turned by the
//! slope).
//!
//! # Joints
//! Each joint's origin must be a rotation about `n` (a frame turned in the plane), and:
//! * `revolute`, `continuous`: the axis `a` along `±n`; the coordinate is the URDF joint angle
//!   (right-handed about `a`), so the body turns by `s q` in the plane with `s = a·n`;
//! * `prismatic`: the axis in the plane;
//! * `fixed`;
//! * `planar`: the axis `a` along `±n`; the coordinates `(x, y, θ)` are those of Drake's
//!   `PlanarJoint` as Drake's URDF parser builds it: its frame `M` is the rotation closest to the
//!   identity that takes `z` to `a`, `x` and `y` are displacements along `M`'s `x` and `y` axes
//!   and `θ` the angle about `a` (for the axis `+y` of the plane `xz`, `y` points down and `θ` is
//!   clockwise);
//! * `floating`, `spherical`, or an axis out of the plane: refused, naming the joint.
//!
//! The coordinates are the moving joints' in the order of the file (a planar joint's named
//! `NAME.x`, `NAME.y`, `NAME.theta`), whatever the order of the tree. (Drake numbers them in
//! the tree's depth-first order: the same when the file lists parents' joints first, a
//! permutation by joint name otherwise.)
//!
//! # Links
//! A link's `<inertial>` gives its mass, its centre of mass (the origin, projected on the plane)
//! and its moment of inertia about `n` through the centre of mass (`nᵀ R I Rᵀ n`). An
//! `<inertial>` with a mass and no `<inertia>` has zero inertia, as Drake reads it (the `urdf-rs`
//! crate would refuse the file, so such elements are completed in memory before it parses them;
//! the file is not changed); `<visual>` elements are skipped (contactlab draws its own figures,
//! and Drake accepts visuals `urdf-rs` refuses, such as a `<material>` without a name). The root link named `world` is the world; any other root link is
//! welded to the world. A link's `<collision>` spheres are its contact points: a sphere of radius
//! `r` centred at its origin touches a line at distance `r`.

use std::collections::HashMap;
use std::path::Path;

use nalgebra::{Matrix3, Rotation3, Vector2, Vector3};

use super::MAX_BODIES;
use crate::mechanics::multibody::{Body, Joint};
use crate::Error;

/// The planes a URDF mechanism may move in (`plane` key), with their axes `e₁, e₂`.
pub const PLANES: [&str; 3] = ["xz", "yz", "xy"];

/// Tolerance on unit axes and in-plane rotations (dimensionless).
pub const PLANAR_TOL: f64 = 1e-9;

/// A collision sphere of a link, in the link's 2-D frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre (m).
    pub center: Vector2<f64>,
    /// Radius (m).
    pub radius: f64,
}

/// A URDF read as a planar tree.
#[derive(Debug, Clone)]
pub struct UrdfTree {
    /// The bodies, parents before children (the links but `world`).
    pub bodies: Vec<Body>,
    /// The first coordinate of each body's joint (file order of the joints).
    pub first: Vec<usize>,
    /// The coordinate names.
    pub coordinates: Vec<String>,
    /// Each link's collision spheres, by link name.
    pub spheres: HashMap<String, Vec<Sphere>>,
}

/// The plane's axes `(e₁, e₂, n)` for a `plane` value of [`PLANES`].
pub fn plane_axes(plane: &str) -> Option<(Vector3<f64>, Vector3<f64>, Vector3<f64>)> {
    let (e1, e2) = match plane {
        "xz" => (Vector3::x(), Vector3::z()),
        "yz" => (Vector3::y(), Vector3::z()),
        "xy" => (Vector3::x(), Vector3::y()),
        _ => return None,
    };
    Some((e1, e2, e1.cross(&e2)))
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

/// A link's mass and its moment of inertia about the plane's normal `n` through its centre of
/// mass (the inertial frame's rotation applied), checked: the message says what is wrong.
fn mass_and_inertia(inertial: &urdf_rs::Inertial, n: &Vector3<f64>) -> Result<(f64, f64), String> {
    let r = rpy(&inertial.origin);
    let i = &inertial.inertia;
    let tensor = Matrix3::new(i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz);
    let inertia = n.dot(&(r * tensor * r.transpose() * n));
    let mass = inertial.mass.value;
    if !(mass >= 0.0 && mass.is_finite()) {
        return Err(format!("mass must be finite and >= 0, got {mass}"));
    }
    if !(inertia >= -PLANAR_TOL * (i.ixx.abs() + i.iyy.abs() + i.izz.abs()) && inertia.is_finite()) {
        return Err(format!("the moment of inertia about the plane's normal is {inertia}; it must be >= 0"));
    }
    Ok((mass, inertia.max(0.0)))
}

pub(crate) fn rpy(p: &urdf_rs::Pose) -> Matrix3<f64> {
    Rotation3::from_euler_angles(p.rpy[0], p.rpy[1], p.rpy[2]).into_inner()
}

pub(crate) fn v3(v: &urdf_rs::Vec3) -> Vector3<f64> {
    Vector3::new(v[0], v[1], v[2])
}

/// Reads the URDF at `path` (at most [`crate::model::MAX_MODEL_BYTES`]) in `plane`; errors name
/// the URDF file and the link or joint. `file`/`key` name the model file's key in errors about
/// the file itself.
pub fn read(path: &Path, plane: &str) -> Result<UrdfTree, Error> {
    let name = path.display().to_string();
    let text = crate::model::read_bounded(path)?;
    parse(&name, &text, plane)
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

/// [`read`] on the text of a URDF; `name` names it in errors.
pub fn parse(name: &str, text: &str, plane: &str) -> Result<UrdfTree, Error> {
    let err = |key: &str, msg: String| Error::input(name, key, msg);
    let (e1, e2, n) =
        plane_axes(plane).ok_or_else(|| err("plane", format!("\"{plane}\" is not one of {}", PLANES.join(", "))))?;
    let t = topology(name, text)?;
    let order = t.breadth_first();
    let Topology { robot, link_index, parent_joint, root, .. } = t;
    let world_root = robot.links[root].name == "world";
    let body_of: HashMap<usize, usize> =
        order.iter().filter(|&&l| !(world_root && l == root)).enumerate().map(|(b, &l)| (l, b)).collect();

    let in_plane = |key: &str, what: &str, v: Vector3<f64>| -> Result<Vector2<f64>, Error> {
        if v.dot(&n).abs() > PLANAR_TOL * v.norm().max(1.0) && what != "offset" {
            return Err(err(
                key,
                format!("{what} {v:?} leaves the plane {plane}; the mechanism must move in one plane"),
            ));
        }
        Ok(Vector2::new(v.dot(&e1), v.dot(&e2)))
    };
    let normal_sign = |key: &str, a: Vector3<f64>| -> Result<f64, Error> {
        let norm = a.norm();
        if !(norm > 0.0 && norm.is_finite()) {
            return Err(err(key, format!("axis {a:?} is not a direction")));
        }
        let c = a.dot(&n) / norm;
        if (c.abs() - 1.0).abs() > PLANAR_TOL {
            return Err(err(
                key,
                format!("axis {a:?} is not normal to the plane {plane}; the mechanism must move in one plane"),
            ));
        }
        Ok(c.signum())
    };

    let mut bodies = Vec::with_capacity(body_of.len());
    for &l in &order {
        let Some(&_b) = body_of.get(&l) else { continue };
        let link = &robot.links[l];
        let (parent, origin, origin_angle, joint) = match parent_joint[l] {
            None => (None, Vector2::zeros(), 0.0, Joint::Fixed),
            Some(j) => {
                let uj = &robot.joints[j];
                let key = format!("joint '{}'", uj.name);
                let r = rpy(&uj.origin);
                let rn = r * n;
                if !rn.iter().all(|x| x.is_finite()) || (rn - n).norm() > PLANAR_TOL {
                    return Err(err(
                        &key,
                        format!(
                            "the origin's rotation rpy {:?} turns the plane {plane} out of itself",
                            uj.origin.rpy.0
                        ),
                    ));
                }
                let re1 = r * e1;
                let angle = re1.dot(&e2).atan2(re1.dot(&e1));
                let origin = in_plane(&key, "offset", v3(&uj.origin.xyz))?;
                let a = v3(&uj.axis.xyz);
                let joint = match uj.joint_type {
                    urdf_rs::JointType::Revolute | urdf_rs::JointType::Continuous => {
                        Joint::Revolute { axis: normal_sign(&key, a)? }
                    }
                    urdf_rs::JointType::Prismatic => {
                        let d = in_plane(&key, "axis", a)?;
                        if !(d.norm() > 0.0 && d.norm().is_finite()) {
                            return Err(err(&key, format!("axis {a:?} is not a direction")));
                        }
                        Joint::Prismatic { axis: d / d.norm() }
                    }
                    urdf_rs::JointType::Fixed => Joint::Fixed,
                    urdf_rs::JointType::Planar => {
                        let sign = normal_sign(&key, a)?;
                        let a = a / a.norm();
                        // Drake's frame M: the rotation closest to the identity taking z to a.
                        let axis = Vector3::z().cross(&a);
                        let angle = axis.norm().atan2(a.z);
                        let axis = if axis.norm() < 1e-10 { Vector3::x() } else { axis / axis.norm() };
                        let m = Rotation3::from_axis_angle(&nalgebra::Unit::new_unchecked(axis), angle);
                        let u = m * Vector3::x();
                        Joint::PlanarAxes { x_axis: Vector2::new(u.dot(&e1), u.dot(&e2)), sign }
                    }
                    urdf_rs::JointType::Floating | urdf_rs::JointType::Spherical => {
                        return Err(err(
                            &key,
                            format!("a {:?} joint moves out of the plane; planar mechanisms take revolute, continuous, prismatic, fixed and planar joints", uj.joint_type).to_lowercase(),
                        ))
                    }
                };
                let parent = body_of.get(&link_index[uj.parent.link.as_str()]).copied();
                (parent, origin, angle, joint)
            }
        };
        let inertial = &link.inertial;
        let key = format!("link '{}'", link.name);
        let (mass, inertia) = mass_and_inertia(inertial, &n).map_err(|m| err(&key, m))?;
        let com = in_plane(&key, "offset", v3(&inertial.origin.xyz))?;
        bodies.push(Body { name: link.name.clone(), parent, joint, origin, origin_angle, mass, inertia, com });
    }
    // Coordinates in the file order of the moving joints.
    let mut first = vec![0; bodies.len()];
    let mut coordinates = vec![];
    for joint in &robot.joints {
        let b = body_of[&link_index[joint.child.link.as_str()]];
        let dof = bodies[b].joint.dof();
        first[b] = coordinates.len();
        match dof {
            0 => {}
            1 => coordinates.push(joint.name.clone()),
            _ => coordinates.extend(["x", "y", "theta"].map(|c| format!("{}.{c}", joint.name))),
        }
    }
    let mut spheres = HashMap::new();
    for link in &robot.links {
        let mut found = vec![];
        for c in &link.collision {
            if let urdf_rs::Geometry::Sphere { radius } = c.geometry {
                let key = format!("link '{}'", link.name);
                if !(radius >= 0.0 && radius.is_finite()) {
                    return Err(err(&key, format!("a collision sphere's radius must be >= 0, got {radius}")));
                }
                found.push(Sphere { center: in_plane(&key, "offset", v3(&c.origin.xyz))?, radius });
            }
        }
        spheres.insert(link.name.clone(), found);
    }
    Ok(UrdfTree { bodies, first, coordinates, spheres })
}

pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
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
