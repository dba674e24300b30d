//! P1's analyses for a mechanism that is one rigid body resting on two point contacts.
//!
//! P1 describes the body in its own frame: the centre of mass at the origin, the two contact
//! points on a line at height `−h` (`r_i = (l_i, −h)`), the supports' inward normals at angles
//! `φ_i` from that frame's `y` axis (`n_i = (−sin φ_i, cos φ_i)`), and the load `f_ex (sin α,
//! −cos α)`. [`to_two_contact`] reads these from a `kind = "multibody"` model at its initial
//! configuration: the frame's `x` axis runs along the line through the two contact points, its
//! `y` axis points to the side the supports push toward; the mass and central inertia are the
//! tree's (a planar joint with any rigidly attached children), the load is gravity on the slope.
//! Every P1 analysis (`equilibrium modes`, `maps`, `classify`, `simulate`, `atlas`) then runs on
//! the user's body.

use nalgebra::Vector2;

use super::Mechanism;
use crate::mechanics::multibody::Joint;
use crate::mechanics::multibody_system::Constraint;
use crate::twocontact::TwoContact;
use crate::Error;

/// A contact is closed when its gap is within this fraction of the body's size. P1 then takes it
/// closed; its gap is kept in [`TwoContact::gaps`], and a proof about a gap that is not exactly
/// zero says it is about the body with the contact closed.
pub const CLOSED_TOL: f64 = 1e-9;

/// P1's parameters of the mechanism `m` at its initial configuration (module docs).
pub fn to_two_contact(m: &Mechanism) -> Result<TwoContact, Error> {
    let src = &m.source;
    let tree = &m.tree;
    let bodies = tree.bodies();
    let planar = matches!(bodies[0].joint, Joint::Planar | Joint::PlanarAxes { .. });
    if !planar || tree.dof() != 3 || bodies.iter().skip(1).any(|b| !matches!(b.joint, Joint::Fixed)) {
        return Err(Error::input(
            src,
            "body",
            "P1's analyses need one rigid body: a planar joint at the root and only fixed joints below it",
        ));
    }
    if !m.springs.is_empty() {
        return Err(Error::input(src, "spring", "P1's analyses take gravity as the only load; remove the springs"));
    }
    let q = &m.q0;
    let f = tree.frames(q, &[0.0; 3]);
    // Mass, centre of mass and central inertia of the rigid group.
    let mass: f64 = bodies.iter().map(|b| b.mass).sum();
    if mass <= 0.0 {
        return Err(Error::input(src, "body", "the body has no mass"));
    }
    let com_of = |k: usize| f.position[k] + f.offset(k, &bodies[k].com);
    let c = bodies.iter().enumerate().map(|(k, b)| com_of(k) * b.mass).fold(Vector2::zeros(), |a, x| a + x) / mass;
    let inertia: f64 =
        bodies.iter().enumerate().map(|(k, b)| b.inertia + b.mass * (com_of(k) - c).norm_squared()).sum();
    if inertia <= 0.0 {
        return Err(Error::input(src, "body", "the body has no moment of inertia about its centre of mass"));
    }
    // The two contacts: the point contacts closed at the initial configuration.
    let size = bodies
        .iter()
        .enumerate()
        .map(|(k, _)| (f.position[k] - c).norm())
        .chain(m.contacts.iter().filter_map(|ct| match ct.constraint {
            Constraint::PointOnLine { body, point, .. } => Some((f.position[body] + f.offset(body, &point) - c).norm()),
            _ => None,
        }))
        .fold(0.0, f64::max);
    let mut touching = vec![];
    for (i, ct) in m.contacts.iter().enumerate() {
        let Constraint::PointOnLine { body, point, line_point, normal, radius } = ct.constraint else { continue };
        let p = f.position[body] + f.offset(body, &point);
        let gap = normal.dot(&(p - line_point)) - radius;
        if gap.abs() <= CLOSED_TOL * size.max(f64::MIN_POSITIVE) {
            if radius > 0.0 {
                return Err(Error::input(
                    src,
                    format!("contact[{i}].radius"),
                    "P1's analyses take point contacts (radius 0)",
                ));
            }
            touching.push((i, p, normal, ct.law.mu, gap));
        }
    }
    if touching.len() != 2 {
        return Err(Error::input(
            src,
            "contact",
            format!(
                "P1's analyses need exactly two point contacts closed in the initial configuration; found {} ({})",
                touching.len(),
                touching.iter().map(|t| m.contact_names[t.0].as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let (p1, p2) = (touching[0].1, touching[1].1);
    let d = p2 - p1;
    if d.norm() <= 1e-9 * size {
        return Err(Error::input(src, "contact", "the two contact points coincide"));
    }
    let mut ex = d / d.norm();
    let mut ey = Vector2::new(-ex.y, ex.x);
    if (touching[0].2 + touching[1].2).dot(&ey) < 0.0 {
        ex = -ex;
        ey = -ey;
    }
    let l = |p: Vector2<f64>| (p - c).dot(&ex);
    let h = -(p1 - c).dot(&ey);
    let phi = |n: Vector2<f64>| (-n.dot(&ex)).atan2(n.dot(&ey));
    let g = tree.gravity_vector() * mass;
    let p = TwoContact {
        mass,
        rho: (inertia / mass).sqrt(),
        h,
        l1: l(p1),
        l2: l(p2),
        phi1: phi(touching[0].2),
        phi2: phi(touching[1].2),
        mu1: touching[0].3,
        mu2: touching[1].3,
        force: g.norm(),
        alpha: g.dot(&ex).atan2(-g.dot(&ey)),
        torque: 0.0,
        gaps: [touching[0].4, touching[1].4],
    };
    p.validate().map_err(|e| Error::input(src, "contact", format!("as P1's body on two contacts: {e}")))?;
    Ok(p)
}
