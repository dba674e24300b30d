//! A typed builder of [`Mechanism`]s: a model written in code from its parameters, with the
//! same names, checks and errors as a `kind = "multibody"` file ([`super::model`]), for
//! programs that generate models (a parameter sweep over leg lengths, the papers' systems
//! built from their parameters: [`crate::walking::multibody`]).
//!
//! Bodies, lines and contacts are named; later calls refer to them by name, and
//! [`MechanismBuilder::build`] resolves the names and reports the first unknown one (or any
//! value out of range) as an [`Error::Input`] naming the builder's `source` and the key, as a
//! model file's reader would.
//!
//! ```
//! use contactlab::multibody::builder::{Inertial, MechanismBuilder};
//! use contactlab::mechanics::multibody::Joint;
//! use nalgebra::Vector2;
//!
//! // A disk of radius 0.1 rolling on a 5° slope.
//! let m = MechanismBuilder::new("<disk>", 9.81, 5f64.to_radians())
//!     .body("disk", None, Joint::Planar, Inertial { mass: 1.0, inertia: 0.005, com: Vector2::zeros() })
//!     .line("ground", Vector2::zeros(), Vector2::new(0.0, 1.0))
//!     .contact("rim", "disk", Vector2::zeros(), 0.1, "ground", 0.5)
//!     .initial(&[0.0, 0.1, 0.0], &[0.0; 3])
//!     .build()
//!     .unwrap();
//! assert_eq!(m.coordinates, ["disk.x", "disk.y", "disk.theta"]);
//! ```

use nalgebra::Vector2;

use super::gait::GaitSpec;
use super::{Mechanism, MAX_BODIES, MAX_CONSTRAINTS, MAX_DOF};
use crate::mechanics::multibody::{Body, Joint, Multibody};
use crate::mechanics::multibody_system::{Arm, Constraint, Contact, JointSpring, Relabel};
pub use crate::mechanics::reference::JointReference;
use crate::mechanics::ContactLaw;
use crate::Error;

/// A body's mass properties.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inertial {
    /// Mass `m` (kg), `≥ 0`.
    pub mass: f64,
    /// Central moment of inertia `I` (kg·m²), `≥ 0`.
    pub inertia: f64,
    /// Centre of mass in the body frame (m).
    pub com: Vector2<f64>,
}

/// Which side of a joint limit is allowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitBound {
    /// `q ≥ bound`.
    Lower(f64),
    /// `q ≤ bound`.
    Upper(f64),
}

/// A joint force on a coordinate, `τ = −k (q − r(t)) − c (q̇ − ṙ(t))` with the reference
/// `r(t)` ([`JointReference`]; a model file's `[[spring]]`: a spring and damper, a PD law).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spring {
    /// Stiffness `k` (N·m/rad or N/m).
    pub stiffness: f64,
    /// Damping `c` (negative: energy is injected).
    pub damping: f64,
    /// The reference `r(t)` (rad or m).
    pub reference: JointReference,
}

/// Where a contact that ignores scuffing is armed: above or below a threshold of a coordinate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Armed {
    /// Armed while the coordinate is above the threshold.
    Above,
    /// Armed while it is below.
    Below,
}

struct PendingContact {
    name: String,
    body: String,
    point: Vector2<f64>,
    radius: f64,
    line: String,
    mu: f64,
    restitution: f64,
    armed_if: Option<(String, Armed, f64)>,
    released_by: Vec<String>,
}

/// Builds a [`Mechanism`] (module docs).
pub struct MechanismBuilder {
    source: String,
    name: Option<String>,
    gravity: f64,
    slope: f64,
    bodies: Vec<(Body, Option<String>)>,
    lines: Vec<(String, Vector2<f64>, Vector2<f64>)>,
    contacts: Vec<PendingContact>,
    /// Name, coordinate, bound, restitution.
    limits: Vec<(String, String, LimitBound, f64)>,
    springs: Vec<(String, Spring)>,
    relabel: Option<(String, Vec<f64>, Vec<f64>)>,
    gait: Option<(String, Vec<String>)>,
    initial: Option<(Vec<f64>, Vec<f64>)>,
    /// A modifier called with nothing to modify (reported by `build`).
    misuse: Option<(String, String)>,
}

impl MechanismBuilder {
    /// An empty mechanism; `source` names it in errors (`<compass biped>`), `gravity` (m/s²,
    /// `≥ 0`) and `slope` (rad) as a model file's keys.
    pub fn new(source: &str, gravity: f64, slope: f64) -> Self {
        Self {
            source: source.to_string(),
            name: None,
            gravity,
            slope,
            bodies: vec![],
            lines: vec![],
            contacts: vec![],
            limits: vec![],
            springs: vec![],
            relabel: None,
            gait: None,
            initial: None,
            misuse: None,
        }
    }

    /// Records a modifier called before what it modifies.
    fn misused(&mut self, key: &str, what: &str) {
        if self.misuse.is_none() {
            self.misuse = Some((key.to_string(), format!("called before any {what} was added")));
        }
    }

    /// The model's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// A body on `joint` to `parent` (a body added before it; `None`: the world), its joint
    /// frame at the parent's origin (see [`MechanismBuilder::joint_origin`]).
    pub fn body(mut self, name: &str, parent: Option<&str>, joint: Joint, inertial: Inertial) -> Self {
        let body = Body {
            name: name.to_string(),
            parent: None,
            joint,
            origin: Vector2::zeros(),
            origin_angle: 0.0,
            mass: inertial.mass,
            inertia: inertial.inertia,
            com: inertial.com,
        };
        self.bodies.push((body, parent.map(str::to_string)));
        self
    }

    /// Places the last body's joint frame at `origin`, turned by `angle` (rad), in its parent's
    /// frame.
    pub fn joint_origin(mut self, origin: Vector2<f64>, angle: f64) -> Self {
        match self.bodies.last_mut() {
            Some((b, _)) => {
                b.origin = origin;
                b.origin_angle = angle;
            }
            None => self.misused("joint_origin", "body"),
        }
        self
    }

    /// A line (world frame) through `point` with normal `normal` toward the free side (any
    /// nonzero length).
    pub fn line(mut self, name: &str, point: Vector2<f64>, normal: Vector2<f64>) -> Self {
        self.lines.push((name.to_string(), point, normal));
        self
    }

    /// A plastic contact of the disk of `radius` (`0`: a point) centred at `point` of `body`
    /// (body frame) against `line`, with friction coefficient `mu`.
    pub fn contact(mut self, name: &str, body: &str, point: Vector2<f64>, radius: f64, line: &str, mu: f64) -> Self {
        self.contacts.push(PendingContact {
            name: name.to_string(),
            body: body.to_string(),
            point,
            radius,
            line: line.to_string(),
            mu,
            restitution: 0.0,
            armed_if: None,
            released_by: vec![],
        });
        self
    }

    /// A frictionless joint limit on `coordinate` with Newton's restitution `e ∈ [0, 1]` (a model
    /// file's `[[limit]]`; its name is shared with the contacts'). Limits follow the contacts in
    /// the mechanism's constraint order.
    pub fn limit(mut self, name: &str, coordinate: &str, bound: LimitBound, e: f64) -> Self {
        self.limits.push((name.to_string(), coordinate.to_string(), bound, e));
        self
    }

    /// A joint force on `coordinate` (see [`Spring`]).
    pub fn spring(mut self, coordinate: &str, spring: Spring) -> Self {
        self.springs.push((coordinate.to_string(), spring));
        self
    }

    /// The last contact's Newton restitution coefficient `e ∈ [0, 1]`.
    pub fn restitution(mut self, e: f64) -> Self {
        match self.contacts.last_mut() {
            Some(c) => c.restitution = e,
            None => self.misused("restitution", "contact"),
        }
        self
    }

    /// The last contact ignores scuffing: it is armed only while `coordinate` is on `side` of
    /// `threshold`.
    pub fn armed_if(mut self, coordinate: &str, side: Armed, threshold: f64) -> Self {
        match self.contacts.last_mut() {
            Some(c) => c.armed_if = Some((coordinate.to_string(), side, threshold)),
            None => self.misused("armed_if", "contact"),
        }
        self
    }

    /// The last contact is released (opens) when `by` strikes.
    pub fn released_by(mut self, by: &str) -> Self {
        match self.contacts.last_mut() {
            Some(c) => c.released_by.push(by.to_string()),
            None => self.misused("released_by", "contact"),
        }
        self
    }

    /// After a strike of `after`, the state is relabelled `q ← P q + c`, `q̇ ← P q̇` (`P`
    /// row-major, `n × n`).
    pub fn relabel(mut self, after: &str, matrix: Vec<f64>, offset: Vec<f64>) -> Self {
        self.relabel = Some((after.to_string(), matrix, offset));
        self
    }

    /// The `[gait]` table: a step ends at a strike of `strike`; the coordinates `translation`
    /// are shifted by the symmetry.
    pub fn gait(mut self, strike: &str, translation: &[&str]) -> Self {
        self.gait = Some((strike.to_string(), translation.iter().map(|s| s.to_string()).collect()));
        self
    }

    /// The initial state (default: zero).
    pub fn initial(mut self, q: &[f64], v: &[f64]) -> Self {
        self.initial = Some((q.to_vec(), v.to_vec()));
        self
    }

    /// The joint springs, their coordinates found by `coordinate` (`build`).
    fn joint_springs(
        &self,
        coordinate: &dyn Fn(String, &str) -> Result<usize, Error>,
    ) -> Result<Vec<JointSpring>, Error> {
        let mut springs = vec![];
        for (i, (on, s)) in self.springs.iter().enumerate() {
            let key = |k: &str| format!("spring[{i}].{k}");
            let coordinate = coordinate(key("coordinate"), on)?;
            let numbers = [("stiffness", s.stiffness), ("damping", s.damping)].into_iter();
            if let Some((k, v)) = numbers.filter(|(_, v)| !v.is_finite()).chain(s.reference.invalid()).next() {
                return Err(Error::input(&self.source, key(k), format!("must be finite (frequency >= 0), got {v}")));
            }
            springs.push(JointSpring {
                coordinate,
                stiffness: s.stiffness,
                damping: s.damping,
                reference: s.reference,
            });
        }
        Ok(springs)
    }

    /// The mechanism, or the first error (names resolved, values checked).
    pub fn build(self) -> Result<Mechanism, Error> {
        let src = self.source.as_str();
        let err = |key: String, msg: String| Error::input(src, key, msg);
        if let Some((key, msg)) = &self.misuse {
            return Err(err(key.clone(), msg.clone()));
        }
        if self.slope.is_nan() || self.slope.abs() >= 1.6 {
            return Err(err("slope".into(), format!("must be a finite angle in (-1.6, 1.6) rad, got {}", self.slope)));
        }
        for (i, (name, ..)) in self.lines.iter().enumerate() {
            if self.lines[..i].iter().any(|(n, ..)| n == name) {
                return Err(err(format!("line[{i}].name"), format!("two lines are named \"{name}\"")));
            }
        }
        if self.bodies.len() > MAX_BODIES {
            return Err(err("body".into(), format!("{} bodies; at most {MAX_BODIES}", self.bodies.len())));
        }
        let body_names: Vec<&str> = self.bodies.iter().map(|(b, _)| b.name.as_str()).collect();
        let mut bodies = Vec::with_capacity(self.bodies.len());
        let mut coordinates = vec![];
        for (i, (b, parent)) in self.bodies.iter().enumerate() {
            if body_names[..i].contains(&b.name.as_str()) || b.name.is_empty() || b.name == "world" {
                return Err(err(format!("body[{i}].name"), format!("\"{}\" is empty, reserved or taken", b.name)));
            }
            let mut b = b.clone();
            b.parent = match parent {
                None => None,
                Some(p) => Some(body_names[..i].iter().position(|n| n == p).ok_or_else(|| {
                    err(format!("body[{i}].parent"), format!("no body named \"{p}\" added before \"{}\"", b.name))
                })?),
            };
            match b.joint {
                Joint::Revolute { .. } | Joint::Prismatic { .. } => coordinates.push(b.name.clone()),
                Joint::Planar | Joint::PlanarAxes { .. } => {
                    coordinates.extend(["x", "y", "theta"].map(|c| format!("{}.{c}", b.name)));
                }
                Joint::Fixed => {}
            }
            bodies.push(b);
        }
        let tree = Multibody::new(bodies, self.gravity, self.slope).map_err(|e| e.in_file(src))?;
        let n = tree.dof();
        if n > MAX_DOF {
            return Err(err("body".into(), format!("{n} degrees of freedom; at most {MAX_DOF} are supported")));
        }
        let coordinate = |key: String, name: &str| {
            coordinates.iter().position(|c| c == name).ok_or_else(|| {
                err(key, format!("no coordinate named \"{name}\"; coordinates: {}", coordinates.join(", ")))
            })
        };
        let contact_names: Vec<String> =
            self.contacts.iter().map(|c| c.name.clone()).chain(self.limits.iter().map(|l| l.0.clone())).collect();
        let contact = |key: String, name: &str| {
            contact_names
                .iter()
                .position(|c| c == name)
                .ok_or_else(|| err(key, format!("no contact named \"{name}\"; contacts: {}", contact_names.join(", "))))
        };
        if contact_names.len() > MAX_CONSTRAINTS {
            return Err(err(
                "contact".into(),
                format!("{} contacts and limits; at most {MAX_CONSTRAINTS}", contact_names.len()),
            ));
        }
        let mut contacts = vec![];
        let mut written_normals = vec![];
        for (i, c) in self.contacts.iter().enumerate() {
            let key = |k: &str| format!("contact[{i}].{k}");
            if contact_names[..i].contains(&c.name) {
                return Err(err(key("name"), format!("two contacts are named \"{}\"", c.name)));
            }
            let body = body_names.iter().position(|n| *n == c.body).ok_or_else(|| {
                err(key("body"), format!("no body named \"{}\"; bodies: {}", c.body, body_names.join(", ")))
            })?;
            let (_, line_point, written) = self.lines.iter().find(|(n, ..)| *n == c.line).ok_or_else(|| {
                let known: Vec<&str> = self.lines.iter().map(|(n, ..)| n.as_str()).collect();
                err(key("line"), format!("no line named \"{}\"; lines: {}", c.line, known.join(", ")))
            })?;
            let len = written.norm();
            if !(len.is_finite() && len > 0.0) {
                return Err(err(key("line"), format!("line \"{}\" needs a finite nonzero normal", c.line)));
            }
            for (k, v, ok) in [
                ("mu", c.mu, c.mu >= 0.0 && c.mu.is_finite()),
                ("radius", c.radius, c.radius >= 0.0 && c.radius.is_finite()),
                ("restitution", c.restitution, (0.0..=1.0).contains(&c.restitution)),
            ] {
                if !ok {
                    return Err(err(key(k), format!("out of range (mu, radius >= 0, restitution in [0, 1]): {v}")));
                }
            }
            let arm = match &c.armed_if {
                None => None,
                Some((name, side, threshold)) => Some(Arm {
                    coordinate: coordinate(key("armed_if"), name)?,
                    above: *side == Armed::Above,
                    threshold: *threshold,
                }),
            };
            let released_by = c
                .released_by
                .iter()
                .map(|r| match contact(key("released_by"), r)? {
                    j if j == i => Err(err(key("released_by"), "a contact cannot release itself".into())),
                    j => Ok(j),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let constraint = Constraint::PointOnLine {
                body,
                point: c.point,
                line_point: *line_point,
                normal: written / len,
                radius: c.radius,
            };
            contacts.push(Contact {
                constraint,
                law: ContactLaw { mu: c.mu, restitution: c.restitution },
                arm,
                released_by,
            });
            written_normals.push(Some(*written));
        }
        for (i, (name, on, bound, e)) in self.limits.iter().enumerate() {
            let key = |k: &str| format!("limit[{i}].{k}");
            if contact_names[..self.contacts.len() + i].contains(name) {
                return Err(err(key("name"), format!("a contact or limit is already named \"{name}\"")));
            }
            let coordinate = coordinate(key("coordinate"), on)?;
            let (lower, bound) = match *bound {
                LimitBound::Lower(b) => (true, b),
                LimitBound::Upper(b) => (false, b),
            };
            if !bound.is_finite() {
                return Err(err(key("bound"), format!("must be finite, got {bound}")));
            }
            if !(0.0..=1.0).contains(e) {
                return Err(err(key("e"), format!("out of range [0, 1]: {e}")));
            }
            let law = ContactLaw { mu: 0.0, restitution: *e };
            contacts.push(Contact::new(Constraint::JointLimit { coordinate, lower, bound }, law));
            written_normals.push(None);
        }
        let springs = self.joint_springs(&coordinate)?;
        let relabel = match self.relabel {
            None => None,
            Some((after, matrix, offset)) => {
                if matrix.len() != n * n || offset.len() != n {
                    return Err(err(
                        "relabel".into(),
                        format!("needs an {n} x {n} matrix and {n} offsets, got {} and {}", matrix.len(), offset.len()),
                    ));
                }
                Some(Relabel { contact: contact("relabel.after".into(), &after)?, matrix, offset })
            }
        };
        let gait = match &self.gait {
            None => None,
            Some((strike, translation)) => Some(GaitSpec {
                strike: contact("gait.strike".into(), strike)?,
                translation: translation
                    .iter()
                    .map(|t| coordinate("gait.translation".into(), t))
                    .collect::<Result<Vec<_>, _>>()?,
            }),
        };
        let (q0, v0) = self.initial.unwrap_or_else(|| (vec![0.0; n], vec![0.0; n]));
        for (key, x) in [("initial.q", &q0), ("initial.v", &v0)] {
            if x.len() != n || x.iter().any(|v| !v.is_finite()) {
                return Err(err(key.into(), format!("needs {n} finite numbers ({})", coordinates.join(", "))));
            }
        }
        let shapes = vec![None; tree.bodies().len()];
        let m = Mechanism {
            source: self.source.clone(),
            name: self.name,
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
            tree_from_urdf: false,
        };
        m.system().map_err(|e| e.in_file(src))?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk() -> MechanismBuilder {
        MechanismBuilder::new("<disk>", 9.81, 0.0)
            .body("disk", None, Joint::Planar, Inertial { mass: 1.0, inertia: 0.005, com: Vector2::zeros() })
            .line("ground", Vector2::zeros(), Vector2::new(0.0, 2.0))
    }

    #[test]
    fn names_resolve_and_normals_are_made_unit() {
        let m = disk().contact("rim", "disk", Vector2::zeros(), 0.1, "ground", 0.5).build().unwrap();
        assert_eq!(m.contact_names, ["rim"]);
        match m.contacts[0].constraint {
            Constraint::PointOnLine { normal, .. } => assert_eq!(normal, Vector2::new(0.0, 1.0)),
            _ => panic!("a point on a line"),
        }
        assert_eq!(m.written_normals[0], Some(Vector2::new(0.0, 2.0)));
    }

    #[test]
    fn errors_name_the_source_and_the_key() {
        let e = disk().contact("rim", "wheel", Vector2::zeros(), 0.1, "ground", 0.5).build().unwrap_err();
        let s = e.to_string();
        assert!(s.contains("<disk>") && s.contains("contact[0].body") && s.contains("no body named \"wheel\""), "{s}");
        let e = disk().contact("rim", "disk", Vector2::zeros(), 0.1, "ground", -0.5).build().unwrap_err();
        assert!(e.to_string().contains("contact[0].mu"), "{e}");
        let e = disk().contact("rim", "disk", Vector2::zeros(), 0.0, "ground", 0.5).gait("foot", &[]).build();
        assert!(e.unwrap_err().to_string().contains("gait.strike"));
        let e = disk().initial(&[0.0, f64::NAN, 0.0], &[0.0; 3]).build().unwrap_err();
        assert!(e.to_string().contains("initial.q"), "{e}");
        let e = disk().restitution(0.5).build().unwrap_err();
        assert!(e.to_string().contains("restitution") && e.to_string().contains("before any contact"), "{e}");
        let e = disk().line("ground", Vector2::zeros(), Vector2::new(0.0, 1.0)).build().unwrap_err();
        assert!(e.to_string().contains("two lines"), "{e}");
        let e = MechanismBuilder::new("<m>", 9.81, f64::NAN).build().unwrap_err();
        assert!(e.to_string().contains("slope"), "{e}");
        let bad_mass = MechanismBuilder::new("<m>", 9.81, 0.0)
            .body("b", None, Joint::Planar, Inertial { mass: -1.0, inertia: 0.0, com: Vector2::zeros() })
            .build()
            .unwrap_err();
        assert!(bad_mass.to_string().contains("<m>") && bad_mass.to_string().contains("mass"), "{bad_mass}");
    }

    #[test]
    fn limits_and_springs_are_checked_and_named() {
        let pendulum = || {
            MechanismBuilder::new("<pendulum>", 9.81, 0.0).body(
                "link",
                None,
                Joint::Revolute { axis: 1.0 },
                Inertial { mass: 1.0, inertia: 0.1, com: Vector2::new(0.0, -0.5) },
            )
        };
        let m = pendulum()
            .limit("stop", "link", LimitBound::Upper(0.3), 0.5)
            .spring("link", Spring { stiffness: 2.0, damping: -0.1, ..Default::default() })
            .build()
            .unwrap();
        assert_eq!(m.contact_names, ["stop"]);
        assert_eq!(m.written_normals, [None]);
        assert!(
            matches!(m.contacts[0].constraint, Constraint::JointLimit { coordinate: 0, lower: false, bound } if bound == 0.3)
        );
        assert_eq!(m.contacts[0].law.restitution, 0.5);
        assert_eq!((m.springs.len(), m.springs[0].stiffness, m.springs[0].damping), (1, 2.0, -0.1));
        for (b, key) in [
            (pendulum().limit("stop", "knee", LimitBound::Lower(0.0), 0.0), "limit[0].coordinate"),
            (pendulum().limit("stop", "link", LimitBound::Lower(0.0), 1.5), "limit[0].e"),
            (pendulum().limit("stop", "link", LimitBound::Lower(f64::INFINITY), 0.0), "limit[0].bound"),
            (
                pendulum().limit("stop", "link", LimitBound::Lower(0.0), 0.0).limit(
                    "stop",
                    "link",
                    LimitBound::Upper(1.0),
                    0.0,
                ),
                "limit[1].name",
            ),
            (pendulum().spring("knee", Spring::default()), "spring[0].coordinate"),
            (pendulum().spring("link", Spring { damping: f64::NAN, ..Default::default() }), "spring[0].damping"),
            (
                pendulum().spring(
                    "link",
                    Spring {
                        reference: JointReference { frequency: -1.0, ..Default::default() },
                        ..Default::default()
                    },
                ),
                "spring[0].frequency",
            ),
        ] {
            let e = b.build().unwrap_err().to_string();
            assert!(e.contains("<pendulum>") && e.contains(key), "{key}: {e}");
        }
    }
}
