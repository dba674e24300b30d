//! A user's own mechanism: a planar multibody tree with frictional contacts, joint limits,
//! springs and PD joints, read from a `kind = "multibody"` model file ([`model`]), and the
//! analyses that take any such mechanism: [`inspect`] (what a user runs first on a new model)
//! and [`simulate`] (the event-driven hybrid core).
//!
//! The dynamics are [`MultibodySystem`]'s. Dimensions are run-time values throughout (the
//! [`crate::mechanics::ContactSystem`] trait works on `DVector`/`DMatrix`), so every analysis is
//! compiled once, whatever the number of degrees of freedom: [`Mechanism::system`] builds the
//! system (at most [`MAX_DOF`] coordinates) that the analyses run on.

pub mod basin;
pub mod builder;
pub mod continuation;
pub mod gait;
pub mod inspect;
pub mod model;
pub mod painleve;
pub mod simulate;
pub mod urdf;
pub mod zeno_orbit;

use serde::Serialize;

use crate::mechanics::multibody::Multibody;
use crate::mechanics::multibody_system::{Contact, JointSpring, Kernel, MultibodySystem, Relabel};
use crate::Error;

pub use crate::mechanics::multibody_system::MAX_DOF;

/// Largest number of bodies of a mechanism (fixed joints add bodies without coordinates).
pub const MAX_BODIES: usize = 256;

/// Largest number of unilateral constraints (contacts and joint limits) of a mechanism.
pub const MAX_CONSTRAINTS: usize = crate::hybrid::lagrangian::MAX_CONTACTS;

/// A planar mechanism with its contacts, forces and initial state, its dimension known at run
/// time (module docs).
#[derive(Debug, Clone)]
pub struct Mechanism {
    /// The file (or `<dict>`) it was read from, for errors.
    pub source: String,
    /// Optional name.
    pub name: Option<String>,
    /// The tree.
    pub tree: Multibody,
    /// Contacts and joint limits, in file order (contacts first, then limits).
    pub contacts: Vec<Contact>,
    /// Joint springs, dampers and PD laws.
    pub springs: Vec<JointSpring>,
    /// The relabelling after a strike, if any.
    pub relabel: Option<Relabel>,
    /// Names of the coordinates (a planar joint's are `body.x`, `body.y`, `body.theta`).
    pub coordinates: Vec<String>,
    /// Names of the contacts and limits.
    pub contact_names: Vec<String>,
    /// Initial configuration.
    pub q0: Vec<f64>,
    /// Initial velocity.
    pub v0: Vec<f64>,
    /// The `[gait]` table: the striking contact and the translation symmetry.
    pub gait: Option<gait::GaitSpec>,
    /// Each body's drawing outline (polygon vertices in the body frame), if the file gives one.
    pub shapes: Vec<Option<Vec<nalgebra::Vector2<f64>>>>,
    /// Each contact's line normal as the file wrote it, before normalising (what proofs start
    /// from: [`crate::twocontact::from_multibody`]), in the order of `contacts`; `None` for joint limits.
    pub written_normals: Vec<Option<nalgebra::Vector2<f64>>>,
    /// Whether the tree was converted from a URDF file in floating point (joint angles from
    /// `rpy` rotations, inertias projected on the plane's normal, planar joints' axes): proofs
    /// about its numbers say so.
    pub tree_from_urdf: bool,
    /// The tree that evaluates the dynamics ([`Kernel`]; the planar kernel unless set).
    pub kernel: Kernel,
}

impl Mechanism {
    /// Number of degrees of freedom.
    pub fn dof(&self) -> usize {
        self.tree.dof()
    }

    /// The system (at most [`MAX_DOF`] coordinates).
    pub fn system(&self) -> Result<MultibodySystem, Error> {
        let n = self.dof();
        if n == 0 || n > MAX_DOF {
            return Err(Error::input(
                &self.source,
                "body",
                format!("{n} degrees of freedom; between 1 and {MAX_DOF} are supported"),
            ));
        }
        // A step map is a map of the state only when the forces do not depend on time.
        if let (Some(_), Some(s)) = (&self.gait, self.springs.iter().find(|s| s.periodic())) {
            return Err(Error::input(
                &self.source,
                "gait",
                format!(
                    "a gait needs forces that do not change with time, and the spring on \"{}\" tracks a moving reference (amplitude and frequency); remove one of the two",
                    self.coordinates[s.coordinate]
                ),
            ));
        }
        let s = MultibodySystem::new(self.tree.clone(), self.contacts.clone(), self.springs.clone())?
            .with_kernel(self.kernel)?;
        match &self.relabel {
            Some(r) => s.with_relabel(r.clone()),
            None => Ok(s),
        }
    }

    /// Checks that `x` has one entry per coordinate, all finite; `what` names it in errors.
    pub fn check_state(&self, what: &str, x: &[f64]) -> Result<(), Error> {
        if x.len() != self.dof() {
            return Err(Error::argument(
                what,
                format!("needs {} entries ({}), got {}", self.dof(), self.coordinates.join(", "), x.len()),
            ));
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(Error::argument(what, format!("entry {i} ({}) is not finite", self.coordinates[i])));
        }
        Ok(())
    }

    /// The index of the contact or limit called `name`, or an error listing the names; `what`
    /// names the argument in errors.
    pub fn contact_index(&self, what: &str, name: &str) -> Result<usize, Error> {
        self.contact_names.iter().position(|n| n == name).ok_or_else(|| {
            Error::argument(what, format!("no contact '{name}'; the model has: {}", self.contact_names.join(", ")))
        })
    }

    /// The index of the coordinate called `name`, or an error listing the names.
    pub fn coordinate_index(&self, what: &str, name: &str) -> Result<usize, Error> {
        self.coordinates.iter().position(|n| n == name).ok_or_else(|| {
            Error::argument(what, format!("no coordinate '{name}'; the model has: {}", self.coordinates.join(", ")))
        })
    }

    /// The same mechanism with contact `i` moved to the front (the others keep their order),
    /// every index that names a contact (releases, relabelling, gait) renumbered: the analyses
    /// of P2 study "the stance contact", contact 0 of a system.
    pub fn with_contact_first(&self, i: usize) -> Mechanism {
        let n = self.contacts.len();
        // new index of old contact j
        let new = |j: usize| {
            if j == i {
                0
            } else if j < i {
                j + 1
            } else {
                j
            }
        };
        let order: Vec<usize> = std::iter::once(i).chain((0..n).filter(|&j| j != i)).collect();
        let mut m = self.clone();
        m.contacts = order.iter().map(|&j| self.contacts[j].clone()).collect();
        for c in &mut m.contacts {
            for r in &mut c.released_by {
                *r = new(*r);
            }
        }
        m.contact_names = order.iter().map(|&j| self.contact_names[j].clone()).collect();
        m.written_normals = order.iter().map(|&j| self.written_normals.get(j).copied().flatten()).collect();
        if let Some(r) = &mut m.relabel {
            r.contact = new(r.contact);
        }
        if let Some(g) = &mut m.gait {
            g.strike = new(g.strike);
        }
        m
    }

    /// The same mechanism with contact `i`'s friction coefficient replaced by `mu`.
    pub fn with_mu(&self, i: usize, mu: f64) -> Result<Mechanism, Error> {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::argument("mu", format!("must be a finite number >= 0 (got {mu})")));
        }
        let mut m = self.clone();
        m.contacts[i].law.mu = mu;
        Ok(m)
    }

    /// A summary of the model for output.
    pub fn summary(&self) -> MechanismSummary {
        MechanismSummary {
            name: self.name.clone(),
            dof: self.dof(),
            bodies: self.tree.bodies().iter().map(|b| b.name.clone()).collect(),
            coordinates: self.coordinates.clone(),
            contacts: self.contact_names.clone(),
        }
    }
}

/// The names in a mechanism.
#[derive(Debug, Clone, Serialize)]
pub struct MechanismSummary {
    /// Optional name.
    pub name: Option<String>,
    /// Degrees of freedom.
    pub dof: usize,
    /// Body names.
    pub bodies: Vec<String>,
    /// Coordinate names.
    pub coordinates: Vec<String>,
    /// Contact and limit names.
    pub contacts: Vec<String>,
}
