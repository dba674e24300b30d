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
//!
//! The proofs do not start from these floating-point parameters: [`to_two_contact`] computes the
//! same quantities again in interval arithmetic from the file's numbers (masses, inertias,
//! origins, centres of mass, the contact points, each line's normal as written, the initial
//! configuration and the slope, angles as [`Interval::angle`]) into
//! [`TwoContact::enclosure`], so a proved verdict holds for the body the file describes.
//! The choices (which contacts are closed, the frame's orientation) are made in floats; they
//! select the system, they are not part of a claim, except that a gap the enclosure does not
//! show to be exactly zero is named in the proof as taken closed.

use nalgebra::Vector2;

use super::enclosed::Enclosed;
use super::TwoContact;
use crate::interval::{vector as iv, Interval};
use crate::mechanics::multibody::Joint;
use crate::mechanics::multibody_system::Constraint;
use crate::multibody::Mechanism;
use crate::Error;

/// A contact is closed when its gap is within this fraction of the body's size. P1 then takes it
/// closed; its gap is kept in [`TwoContact::enclosure`], and a proof about a gap that is not exactly
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
    let flip = (touching[0].2 + touching[1].2).dot(&ey) < 0.0;
    if flip {
        ex = -ex;
        ey = -ey;
    }
    let l = |p: Vector2<f64>| (p - c).dot(&ex);
    let h = -(p1 - c).dot(&ey);
    let phi = |n: Vector2<f64>| (-n.dot(&ex)).atan2(n.dot(&ey));
    let g = tree.gravity_vector() * mass;
    let mut p = TwoContact {
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
        enclosure: None,
    };
    p.enclosure = Some(enclose(m, [touching[0].0, touching[1].0], flip, Enclosed::params_of(&p)));
    p.validate().map_err(|e| Error::input(src, "contact", format!("as P1's body on two contacts: {e}")))?;
    Ok(p)
}

/// A body frame in intervals: origin and the angle's sine and cosine.
struct IFrame {
    p: [Interval; 2],
    sin: Interval,
    cos: Interval,
}

impl IFrame {
    /// `R v`.
    fn rotate(&self, v: &[Interval]) -> [Interval; 2] {
        [self.cos * v[0] - self.sin * v[1], self.sin * v[0] + self.cos * v[1]]
    }

    /// The body point `x` in the world.
    fn point(&self, x: &Vector2<f64>) -> [Interval; 2] {
        let r = self.rotate(&iv::exact(x.as_slice()));
        [self.p[0] + r[0], self.p[1] + r[1]]
    }
}

/// `(sin φ, cos φ)`, exact at `φ = 0`.
fn sin_cos(phi: Interval) -> (Interval, Interval) {
    if phi == Interval::exact(0.0) {
        (Interval::exact(0.0), Interval::exact(1.0))
    } else {
        (phi.sin(), phi.cos())
    }
}

/// `a / b`, the whole line when `b` is unknown or not proved nonzero.
fn over(a: Interval, b: Option<Interval>) -> Interval {
    b.and_then(|b| a.div(&b)).unwrap_or(Interval::ENTIRE)
}

fn sub(a: &[Interval; 2], b: &[Interval; 2]) -> [Interval; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

/// Every body's frame at `m.q0` in intervals, for a planar root (coordinates `q₀…q₂`) with
/// rigidly attached children (checked by [`to_two_contact`]).
fn enclosed_frames(m: &Mechanism) -> Vec<IFrame> {
    let q = &m.q0;
    let mut out: Vec<(IFrame, Interval)> = vec![];
    for b in m.tree.bodies() {
        let origin = iv::exact(b.origin.as_slice());
        let (mut p, mut phi) = match b.parent.and_then(|pa| out.get(pa)) {
            None => ([origin[0], origin[1]], Interval::angle(b.origin_angle)),
            Some((f, a)) => {
                let r = f.rotate(&origin);
                ([f.p[0] + r[0], f.p[1] + r[1]], *a + Interval::angle(b.origin_angle))
            }
        };
        if let Some((u, sign)) = b.joint.planar_axes() {
            let (sin, cos) = sin_cos(phi);
            let joint = IFrame { p, sin, cos };
            let ux = joint.rotate(&iv::exact(&[u.x, u.y]));
            let uy = joint.rotate(&iv::exact(&[-u.y * sign, u.x * sign]));
            let (x, y) = (Interval::exact(q[0]), Interval::exact(q[1]));
            p = [p[0] + ux[0] * x + uy[0] * y, p[1] + ux[1] * x + uy[1] * y];
            phi = phi + Interval::exact(sign) * Interval::angle(q[2]);
        }
        let (sin, cos) = sin_cos(phi);
        out.push((IFrame { p, sin, cos }, phi));
    }
    out.into_iter().map(|(f, _)| f).collect()
}

/// P1's parameters of `m` enclosed from the file's numbers (module docs), for the closed
/// contacts `closed` and the frame orientation chosen in floats (`flip`: `x` runs from the second
/// contact point to the first); `params` are the floating-point parameters they enclose.
fn enclose(m: &Mechanism, closed: [usize; 2], flip: bool, params: [f64; 12]) -> Enclosed {
    let bodies = m.tree.bodies();
    let f = enclosed_frames(m);
    let zero = Interval::exact(0.0);
    let mass = bodies.iter().fold(zero, |a, b| a + Interval::exact(b.mass));
    let com: Vec<[Interval; 2]> = bodies.iter().zip(&f).map(|(b, f)| f.point(&b.com)).collect();
    let moment = bodies.iter().zip(&com).fold([zero; 2], |a, (b, x)| {
        let mb = Interval::exact(b.mass);
        [a[0] + mb * x[0], a[1] + mb * x[1]]
    });
    let c = iv::scaled_down(&moment, &mass);
    let c = [c[0], c[1]];
    let inertia = bodies.iter().zip(&com).fold(zero, |a, (b, x)| {
        let r = sub(x, &c);
        a + Interval::exact(b.inertia) + Interval::exact(b.mass) * iv::dot(&r, &r)
    });
    // The contact points, the lines' normals as the file wrote them, and the gaps. Each unit
    // vector is divided by its length last (fewer dependent terms: a gap that is zero in the
    // file's numbers is exactly zero here).
    let mut point = [[zero; 2]; 2];
    let mut normal = [[zero; 2]; 2];
    let mut gaps = [zero; 2];
    for (k, &i) in closed.iter().enumerate() {
        let Constraint::PointOnLine { body, point: x, line_point, radius, .. } = m.contacts[i].constraint else {
            continue;
        };
        let v = m.written_normals.get(i).copied().flatten();
        normal[k] = v.map_or([Interval::ENTIRE; 2], |v| [Interval::exact(v.x), Interval::exact(v.y)]);
        point[k] = f[body].point(&x);
        let to = sub(&point[k], &[Interval::exact(line_point.x), Interval::exact(line_point.y)]);
        gaps[k] = over(iv::dot(&normal[k], &to), iv::norm(&normal[k])) - Interval::exact(radius);
    }
    // The frame: x along d, the line from contact 1 to contact 2 (or back: s = −1), y = x^⊥.
    let s = if flip { -Interval::exact(1.0) } else { Interval::exact(1.0) };
    let d = sub(&point[1], &point[0]);
    let (dx, dy) = ([s * d[0], s * d[1]], [-(s * d[1]), s * d[0]]);
    let len = iv::norm(&d);
    let along = |v: &[Interval; 2], len_v: Option<Interval>| {
        let scale = len_v.map(|l| l * len.unwrap_or(Interval::ENTIRE)).or(len);
        (over(iv::dot(v, &dx), scale), over(iv::dot(v, &dy), scale))
    };
    let (l1, h1) = along(&sub(&point[0], &c), None);
    let (l2, _) = along(&sub(&point[1], &c), None);
    let n1 = along(&normal[0], iv::norm(&normal[0]));
    let n2 = along(&normal[1], iv::norm(&normal[1]));
    let (gs, gc) = sin_cos(Interval::angle(m.tree.slope()));
    let g = mass * Interval::exact(m.tree.gravity());
    let (fx, fy) = along(&[g * gs, -(g * gc)], None);
    Enclosed {
        mass,
        inertia,
        h: -h1,
        l: [l1, l2],
        sin_phi: [-n1.0, -n2.0],
        cos_phi: [n1.1, n2.1],
        mu: [Interval::exact(m.contacts[closed[0]].law.mu), Interval::exact(m.contacts[closed[1]].law.mu)],
        load: [fx, fy, zero],
        gaps,
        tree_converted: m.tree_from_urdf,
        params,
    }
}
