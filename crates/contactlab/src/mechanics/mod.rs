//! Lagrangian systems with unilateral frictional contacts: the shared description of the
//! mechanics that every analysis builds on.
//!
//! A system has generalized coordinates `s ∈ ℝⁿ`, a mass matrix `𝓜(s)`, generalized applied
//! forces `Q(s, ṡ)` (including velocity-product terms), and contacts `i`, each with a normal gap
//! `gᵢ(s) ≥ 0` and a tangential displacement `xᵢ(s)`. Their Jacobians `w_{n,i} = ∂gᵢ/∂s`,
//! `w_{t,i} = ∂xᵢ/∂s` map contact forces `(fᵢᶻ, fᵢˣ)` into generalized forces, and the
//! acceleration-level gap is `g̈ᵢ = w_{n,i}ᵀ s̈ + ẇ_{n,i}ᵀ ṡ`:
//!
//! ```text
//!     𝓜(s) s̈ = Q(s, ṡ) + Σᵢ (w_{n,i} fᵢᶻ + w_{t,i} fᵢˣ).
//! ```
//!
//! The *zero-order dynamics* (ZOD) of P1 freeze `𝓜, w, Q` at an equilibrium `s = ṡ = 0`, so that
//! contact-space accelerations are affine in the contact forces with constant coefficients (the
//! Delassus matrix `A = J𝓜⁻¹Jᵀ`, as in P4's `A`).
//!
//! [`planar_body::PlanarBody`] is the planar rigid body of P1 (Fig. 1) in this form; the walkers
//! of P2 and the Zeno orbits of P3 add their own systems behind the same quantities.

pub mod planar_body;
