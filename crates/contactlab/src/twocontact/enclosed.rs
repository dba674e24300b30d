//! P1's parameters as interval enclosures: what the proofs ([`super::proof`]) start from.
//!
//! A `planar-two-contact` file gives P1's parameters themselves, so their enclosures are the
//! file's floats (angles as [`crate::interval::Interval::angle`], which also holds the degree value a `_deg` key
//! was converted from). A multibody model gives them only through geometry (frames, centres of
//! mass, inertias, the contact lines' normals, gravity on the slope): there
//! [`crate::twocontact::from_multibody`] computes the same quantities again in interval arithmetic
//! from the file's numbers, so a proof about the enclosures holds for the body the file
//! describes, not for its floating-point parameters.

use super::TwoContact;
use crate::interval::Interval as I;

/// P1's parameters enclosed (module docs), in the body frame of [`super`]: contact point `i` at
/// `(lᵢ, −h)`, support normal `(−sin φᵢ, cos φᵢ)`, load `(f_x, f_y, τ)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Enclosed {
    /// Mass `m` (kg).
    pub mass: I,
    /// Central moment of inertia `m ρ²` (kg·m²).
    pub inertia: I,
    /// `h` (m).
    pub h: I,
    /// `l₁, l₂` (m).
    pub l: [I; 2],
    /// `sin φ₁, sin φ₂`.
    pub sin_phi: [I; 2],
    /// `cos φ₁, cos φ₂`.
    pub cos_phi: [I; 2],
    /// `μ₁, μ₂`.
    pub mu: [I; 2],
    /// The load `(f_ex sin α, −f_ex cos α, τ_ex)` (N, N, N·m).
    pub load: [I; 3],
    /// The two contacts' gaps (m) in the model the parameters were read from, each taken as
    /// closed (P1's body rests on both): exactly zero unless the reader closed a gap within its
    /// tolerance ([`crate::twocontact::from_multibody::CLOSED_TOL`]).
    pub gaps: [I; 2],
    /// Whether the model's tree was converted from a URDF in floating point
    /// ([`crate::multibody::Mechanism::tree_from_urdf`]): the enclosures then start from the
    /// converted tree's numbers, and a proof says so.
    pub tree_converted: bool,
    /// The floating-point parameters these enclose ([`Enclosed::params_of`]): a copy of the
    /// body with any parameter changed (a sweep, a scaled variant) no longer matches, and its
    /// proofs start from its own floats ([`TwoContact::enclosed`]).
    pub params: [f64; 12],
}

impl Enclosed {
    /// The enclosures of `p`'s own parameters (each float exact, angles as [`I::angle`]).
    pub fn of(p: &TwoContact) -> Enclosed {
        let ex = I::exact;
        let (p1, p2, al) = (I::angle(p.phi1), I::angle(p.phi2), I::angle(p.alpha));
        let f = ex(p.force);
        Enclosed {
            mass: ex(p.mass),
            inertia: ex(p.mass) * ex(p.rho).sqr(),
            h: ex(p.h),
            l: [ex(p.l1), ex(p.l2)],
            sin_phi: [p1.sin(), p2.sin()],
            cos_phi: [p1.cos(), p2.cos()],
            mu: [ex(p.mu1), ex(p.mu2)],
            load: [f * al.sin(), -(f * al.cos()), ex(p.torque)],
            gaps: [ex(0.0); 2],
            tree_converted: false,
            params: Enclosed::params_of(p),
        }
    }

    /// `p`'s twelve floating-point parameters, in the order of [`TwoContact`]'s fields.
    pub fn params_of(p: &TwoContact) -> [f64; 12] {
        [p.mass, p.rho, p.h, p.l1, p.l2, p.phi1, p.phi2, p.mu1, p.mu2, p.force, p.alpha, p.torque]
    }

    /// Whether both gaps are exactly zero.
    pub fn closed_exactly(&self) -> bool {
        self.gaps == [I::exact(0.0); 2]
    }
}
