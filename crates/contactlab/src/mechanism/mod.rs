//! A user's own mechanism: a planar multibody tree with frictional contacts, joint limits,
//! springs and PD joints, read from a `kind = "multibody"` model file ([`model`]), and the
//! analyses that take any such mechanism: [`inspect`] (what a user runs first on a new model)
//! and [`simulate`] (the event-driven hybrid core).
//!
//! The dynamics are [`MultibodySystem`]'s, whose dimension is a type parameter (the
//! hand-written models' fast path: fixed-size matrices on the stack). A [`Mechanism`] has its
//! dimension at run time; [`Mechanism::visit`] builds the system with the matching `N` (one
//! instantiation per dimension up to [`MAX_DOF`]) and hands it to a [`Visit`], so every analysis
//! written for a `ContactSystem<N>` runs on a mechanism unchanged.

pub mod gait;
pub mod inspect;
pub mod model;
pub mod simulate;
pub mod urdf;

use serde::Serialize;

use crate::mechanics::multibody::Multibody;
use crate::mechanics::multibody_system::{Contact, JointSpring, MultibodySystem, Relabel};
use crate::Error;

/// Largest number of degrees of freedom of a mechanism.
pub const MAX_DOF: usize = 24;

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
}

/// An analysis written for any dimension: [`Mechanism::visit`] calls it with the system.
pub trait Visit {
    /// What it returns.
    type Output;
    /// Runs on the `N`-dimensional system.
    fn visit<const N: usize>(self, system: MultibodySystem<N>) -> Self::Output;
}

macro_rules! dispatch {
    ($m:expr, $v:expr, $($n:literal)*) => {
        match $m.dof() {
            $($n => Ok($v.visit($m.system::<$n>()?)),)*
            n => Err(Error::input(
                &$m.source,
                "body",
                format!("{n} degrees of freedom; at most {MAX_DOF} are supported"),
            )),
        }
    };
}

impl Mechanism {
    /// Number of degrees of freedom.
    pub fn dof(&self) -> usize {
        self.tree.dof()
    }

    /// The system with `N = dof` coordinates.
    pub fn system<const N: usize>(&self) -> Result<MultibodySystem<N>, Error> {
        let s = MultibodySystem::<N>::new(self.tree.clone(), self.contacts.clone(), self.springs.clone())?;
        match &self.relabel {
            Some(r) => s.with_relabel(r.clone()),
            None => Ok(s),
        }
    }

    /// Runs `v` on the system of the right dimension.
    pub fn visit<V: Visit>(&self, v: V) -> Result<V::Output, Error> {
        dispatch!(self, v, 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24)
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
