//! URDF import: the links, inertials, joints and collision spheres of a URDF file as a planar
//! [`crate::mechanics::multibody::Multibody`] tree (`urdf = "path"` in a `kind = "multibody"` file; docs/models.md):
//! the one URDF reader's tree ([`crate::spatial::urdf`], the root welded) seen in a plane.
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

use nalgebra::{Matrix3, Vector2, Vector3};

use crate::mechanics::multibody::{Body, Joint};
use crate::spatial::geometry::Shape;
use crate::spatial::joint::Joint3;
use crate::spatial::urdf::{read_links, topology, Base, Topology};
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

/// A link's moment of inertia about the plane's normal `n` through its centre of mass, from
/// its inertia tensor in the link's axes, checked: the message says what is wrong.
fn inertia_about(tensor: &Matrix3<f64>, n: &Vector3<f64>) -> Result<f64, String> {
    let inertia = n.dot(&(tensor * n));
    if !(inertia >= -PLANAR_TOL * tensor.diagonal().abs().sum() && inertia.is_finite()) {
        return Err(format!("the moment of inertia about the plane's normal is {inertia}; it must be >= 0"));
    }
    Ok(inertia.max(0.0))
}

/// Reads the URDF at `path` (at most [`crate::model::MAX_MODEL_BYTES`]) in `plane`; errors name
/// the URDF file and the link or joint. `file`/`key` name the model file's key in errors about
/// the file itself.
pub fn read(path: &Path, plane: &str) -> Result<UrdfTree, Error> {
    let name = path.display().to_string();
    let text = crate::model::read_bounded(path)?;
    parse(&name, &text, plane)
}

/// [`read`] on the text of a URDF; `name` names it in errors. The file is read once, by the
/// one URDF reader ([`crate::spatial::urdf`]), and its tree seen in the plane.
pub fn parse(name: &str, text: &str, plane: &str) -> Result<UrdfTree, Error> {
    let err = |key: &str, msg: String| Error::input(name, key, msg);
    let (e1, e2, n) =
        plane_axes(plane).ok_or_else(|| err("plane", format!("\"{plane}\" is not one of {}", PLANES.join(", "))))?;
    let t = topology(name, text)?;
    let read = read_links(name, &t, Base::Fixed)?;
    let (spatial, links) = (&read.bodies, &read.links);
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
    // (The reader's axes are unit vectors.)
    let normal_sign = |key: &str, a: Vector3<f64>| -> Result<f64, Error> {
        let c = a.dot(&n);
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
        if !body_of.contains_key(&l) {
            continue;
        }
        let link = &robot.links[l];
        let (Some(b3), origin3) = links[l] else { unreachable!("every link but the world has a body") };
        let body3 = &spatial[b3];
        let (parent, origin, origin_angle, joint) = match parent_joint[l] {
            None => (None, Vector2::zeros(), 0.0, Joint::Fixed),
            Some(j) => {
                let uj = &robot.joints[j];
                let key = format!("joint '{}'", uj.name);
                let r = origin3.rot;
                let rn = r * n;
                if (rn - n).norm() > PLANAR_TOL {
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
                let origin = in_plane(&key, "offset", origin3.pos)?;
                let joint = match (uj.joint_type.clone(), &body3.joint) {
                    (urdf_rs::JointType::Revolute | urdf_rs::JointType::Continuous, Joint3::Revolute { axis }) => {
                        Joint::Revolute { axis: normal_sign(&key, *axis)? }
                    }
                    (urdf_rs::JointType::Prismatic, Joint3::Prismatic { axis }) => {
                        let d = in_plane(&key, "axis", *axis)?;
                        if !(d.norm() > 0.0 && d.norm().is_finite()) {
                            return Err(err(&key, format!("axis {axis:?} is not a direction")));
                        }
                        Joint::Prismatic { axis: d / d.norm() }
                    }
                    (urdf_rs::JointType::Fixed, _) => Joint::Fixed,
                    (urdf_rs::JointType::Planar, j3) => {
                        // Drake's frame M (the rotation closest to the identity taking z to the
                        // axis): the reader's frame body, its link hanging from it turned back
                        // by Mᵀ; the identity for the axis z (the link's own planar joint).
                        let m = if matches!(j3, Joint3::Planar) { Matrix3::identity() } else { body3.placement.rot.transpose() };
                        let sign = normal_sign(&key, m.column(2).into_owned())?;
                        let u = m.column(0).into_owned();
                        Joint::PlanarAxes { x_axis: Vector2::new(u.dot(&e1), u.dot(&e2)), sign }
                    }
                    (kind, _) => {
                        return Err(err(
                            &key,
                            format!("a {kind:?} joint moves out of the plane; planar mechanisms take revolute, continuous, prismatic, fixed and planar joints").to_lowercase(),
                        ))
                    }
                };
                let parent = body_of.get(&link_index[uj.parent.link.as_str()]).copied();
                (parent, origin, angle, joint)
            }
        };
        let key = format!("link '{}'", link.name);
        let inertia = inertia_about(&body3.inertia.inertia, &n).map_err(|m| err(&key, m))?;
        let com = in_plane(&key, "offset", body3.inertia.com)?;
        let mass = body3.inertia.mass;
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
    // Each link's collision spheres, in the file's order.
    let mut spheres: HashMap<String, Vec<Sphere>> = robot.links.iter().map(|l| (l.name.clone(), vec![])).collect();
    for c in &read.rest.collisions {
        let (Some(b3), Shape::Sphere { radius }) = (c.body, &c.shape) else { continue };
        let link = &spatial[b3].name;
        let key = format!("link '{link}'");
        let center = in_plane(&key, "offset", c.pose.pos)?;
        spheres.entry(link.clone()).or_default().push(Sphere { center, radius: *radius });
    }
    Ok(UrdfTree { bodies, first, coordinates, spheres })
}
