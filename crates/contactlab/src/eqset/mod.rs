//! P5 (van de Wouw & Leine): equilibrium sets of mechanical systems with set-valued friction on
//! bilateral constraints, their attractivity (Theorem 1) and instability (Theorem 2).
//!
//! The systems are `M(q) q̈ − h(q, q̇) = W_T(q) λ_T` (P5 (2)) with Coulomb's law (3) on each
//! bilateral contact, `λ_Ti ∈ C_Ti = [−μᵢ|λ_Ni|, μᵢ|λ_Ni|]` while it sticks, and slip velocities
//! `γ_T = W_Tᵀ q̇` (4); the normal forces `λ_N` come from the statics.
//!
//! * [`sets`]: the equilibrium set (5), `{(q, 0) : h(q, 0) + Σᵢ W_Ti(q) C_Ti ∋ 0}`.
//!   [`equilibrium_sets`] gives it for a one-degree-of-freedom [`SliderSystem`] as a union of
//!   intervals, each end found by bisection on the exact membership test [`is_equilibrium`] (the
//!   generalized force `−h(q, 0)` in the image of Coulomb's admissible set);
//!   [`sample_equilibrium_set`] does the same on a grid for more degrees of freedom, one
//!   feasibility LP per point.
//! * [`theorems`]: [`theorem1`], the five conditions of Theorem 1 for a set around a minimum `q_e`
//!   of the potential (with 𝒰 of (9)), checked one by one (each with what was checked), and `c*`,
//!   the largest level of `V = T + U − U(q_e)` (10) whose sublevel component around the set lies
//!   in `Q` and holds no other equilibrium set, computed from the potential along the coordinate
//!   (the mountain pass to the neighbouring sets and the edge of 𝒰), not from a closed form such
//!   as (23); [`theorem2`], the statements of Theorem 2 for a set around a maximum of the
//!   potential, with P5's function (24), `V = U(q_e) − U − T`.
//! * [`analysis`]: [`analyze`], the sets and what the theorems say about each.
//! * [`basin`](mod@basin): [`basin()`], the region of attraction found by time-stepping a grid of
//!   initial states ([`crate::timestep::bilateral`]) against the estimate `{V < c*}`.
//! * [`portrait`](mod@portrait): [`portrait()`], the data of P5 Fig. 3 (window, trajectories,
//!   basin), drawn by [`plots`].
//! * [`model`]: the model files of these systems.
//!
//! The one-degree-of-freedom analyses take the coordinate periodic when
//! [`SliderSystem::period`] says so (the rod's `θ`).

/// A force, energy or power counts as zero when it is within `RELATIVE_ZERO` of its scale (the
/// model's force scale, or its energy scale: force scale × coordinate scale).
pub const RELATIVE_ZERO: f64 = 1e-12;

pub mod analysis;
pub mod basin;
pub mod model;
mod onedof;
pub mod plots;
pub mod portrait;
pub mod sets;
pub mod theorems;

use nalgebra::SVector;

pub use analysis::{analyze, Analysis, EqsetSettings, SetReport};
pub use basin::{basin, EqsetBasin, EqsetBasinSettings};
pub use portrait::{portrait, Portrait, PortraitSettings};
pub use sets::{equilibrium_sets, is_equilibrium, sample_equilibrium_set, SampledSet, SetInterval};
pub use theorems::{theorem1, theorem2, Condition, Theorem1, Theorem2};

#[cfg(doc)]
use crate::mechanics::sliders::SliderSystem;

fn v1(x: f64) -> SVector<f64, 1> {
    SVector::<f64, 1>::new(x)
}
