//! A planar rigid body on two frictional point contacts (paper P1, Or & Várkonyi): contact modes,
//! zero-order dynamics and the stability of its frictional equilibrium.
//!
//! Parameters (P1, Fig. 1): mass `m`, radius of gyration `ρ`, CoM height `h` above the contact
//! points, their offsets `l₁, l₂` along the body, support normal angles `φ₁, φ₂`, friction
//! coefficients `μ₁, μ₂`, and a load: force `f_ex` at angle `α` and torque `τ_ex`. Contact point `i`
//! is the body point `(lᵢ, −h)` relative to the centre of mass; `xᵢ` is positive along
//! `(cos φᵢ, sin φᵢ)` (downhill for a body on a slope under gravity, `φ = 0`), `zᵢ` along the
//! inward normal `(−sin φᵢ, cos φᵢ)`.
//!
//! * [`zod`]: the zero-order dynamics (eq. 16) in contact space.
//! * [`modes`]: the 16 contact modes, kinematic admissibility, forces, accelerations and
//!   consistency; equilibrium, ambiguity, Painlevé-freeness and persistence.
//! * [`impact`]: frictional inelastic impacts (eq. 4) with P1's order of preference.
//! * [`sim`]: exact event-driven ZOD simulation with Zeno extrapolation.
//! * [`poincare`]: the reduced Poincaré map `R(φ)`, the growth map `G(φ)` and fixed points.
//! * [`classify`]: the verdict of Theorems 1–5 with its evidence.
//! * [`atlas`]: the verdict over a grid of parameters (Figs. 6 and 9).
//! * [`nonlinear`]: the full nonlinear model with the same contact and impact laws.
//! * [`proof`]: the maps and theorems proved over intervals of `φ` in interval arithmetic.

pub mod atlas;
pub mod classify;
pub mod enclosed;
pub mod from_multibody;
pub mod impact;
pub mod model;
pub mod modes;
pub mod nonlinear;
pub mod plots;
pub mod poincare;
pub mod proof;
pub mod sim;
pub mod zod;

use nalgebra::Vector2;
use serde::Serialize;

use crate::mechanics::planar_body::{BodyPoint, PlanarBody};
use crate::mechanics::ContactLaw;
use crate::Error;

/// A support angle `φ` is degenerate when `|cos φ|` is below this (the support is vertical).
pub const DEGENERATE_COS: f64 = 1e-9;

/// P1's parameters of a body on two contacts (SI units, radians).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TwoContact {
    /// Mass `m` (kg).
    pub mass: f64,
    /// Radius of gyration `ρ` (m).
    pub rho: f64,
    /// Height `h` of the centre of mass above the contact points (m).
    pub h: f64,
    /// Offset `l₁` of contact point 1 along the body (m).
    pub l1: f64,
    /// Offset `l₂` of contact point 2 (m).
    pub l2: f64,
    /// Support normal angle `φ₁` (rad).
    pub phi1: f64,
    /// Support normal angle `φ₂` (rad).
    pub phi2: f64,
    /// Friction coefficient `μ₁`.
    pub mu1: f64,
    /// Friction coefficient `μ₂`.
    pub mu2: f64,
    /// Magnitude `f_ex` of the external force (N).
    pub force: f64,
    /// Angle `α` of the external force (rad): force `f_ex (sin α, −cos α)`.
    pub alpha: f64,
    /// External torque `τ_ex` (N·m).
    pub torque: f64,
    /// Where P1's parameters were read from a multibody model
    /// ([`crate::twocontact::from_multibody`]): their enclosures computed from the model file's
    /// numbers, with the two contacts' gaps (each within the reader's tolerance of zero; P1 takes
    /// both closed, and a proof says so when a gap is not exactly zero). The proofs start from
    /// these rather than from the floats above. `None` for a `planar-two-contact` file (the
    /// floats are the data). Not printed with the parameters.
    #[serde(skip)]
    pub enclosure: Option<enclosed::Enclosed>,
}

impl TwoContact {
    /// The enclosures the proofs start from: [`TwoContact::enclosure`] when it was computed for
    /// these very parameters (bit for bit), else the floats themselves.
    pub fn enclosed(&self) -> enclosed::Enclosed {
        let own = enclosed::Enclosed::params_of(self).map(f64::to_bits);
        match self.enclosure {
            Some(e) if e.params.map(f64::to_bits) == own => e,
            _ => enclosed::Enclosed::of(self),
        }
    }

    /// The rigid body in the shared mechanics description.
    pub fn body(&self) -> PlanarBody {
        PlanarBody {
            mass: self.mass,
            rho: self.rho,
            points: vec![
                BodyPoint {
                    r: Vector2::new(self.l1, -self.h),
                    phi: self.phi1,
                    law: ContactLaw { mu: self.mu1, restitution: 0.0 },
                },
                BodyPoint {
                    r: Vector2::new(self.l2, -self.h),
                    phi: self.phi2,
                    law: ContactLaw { mu: self.mu2, restitution: 0.0 },
                },
            ],
            force: Vector2::new(self.alpha.sin(), -self.alpha.cos()) * self.force,
            torque: self.torque,
        }
    }

    /// Friction coefficients `(μ₁, μ₂)`.
    pub fn mu(&self) -> [f64; 2] {
        [self.mu1, self.mu2]
    }

    /// Checks physical ranges and the geometry (`cos φᵢ ≠ 0`, `(z₁, z₂, x₂)` independent).
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |k: &str, m: &str| Err(Error::model(k, m));
        let all = [
            self.mass,
            self.rho,
            self.h,
            self.l1,
            self.l2,
            self.phi1,
            self.phi2,
            self.mu1,
            self.mu2,
            self.force,
            self.alpha,
            self.torque,
        ];
        if !all.iter().all(|v| v.is_finite()) {
            return Err(Error::NonFinite("two-contact parameters".into()));
        }
        if self.mass <= 0.0 {
            return bad("mass", "must be > 0");
        }
        if self.rho <= 0.0 {
            return bad("rho", "must be > 0");
        }
        if self.mu1 < 0.0 || self.mu2 < 0.0 {
            return bad("mu", "must be >= 0");
        }
        if self.force < 0.0 {
            return bad("load.force", "must be >= 0");
        }
        for (k, p) in [("phi1", self.phi1), ("phi2", self.phi2)] {
            // The model files' range (−π/2, π/2); near its ends the support degenerates.
            if p.is_nan() || p.abs() >= std::f64::consts::FRAC_PI_2 || p.cos().abs() < DEGENERATE_COS {
                return bad(k, "must lie in (-pi/2, pi/2) with cos(phi) not vanishing (degenerate support)");
            }
        }
        zod::Zod::new(self).map(|_| ())
    }
}
