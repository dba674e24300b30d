//! # contactlab
//!
//! Stability analysis and simulation of mechanical systems with unilateral, frictional contacts.
//!
//! The crate is organised as shared mathematical cores under per-paper analyses:
//!
//! | module | what |
//! |---|---|
//! | [`lcp`] | linear complementarity: Lemke, enumeration of all solutions, pivot transforms, matrix classes |
//! | [`lp`] | our small dense simplex for tiny LPs solved many times |
//! | [`conic`] | LP / second-order-cone feasibility and optimisation over Clarabel, with certificates |
//! | [`fixture`] | P4: weak, strong and frictionless stability of fixtured bodies, Theorem 4 |
//! | [`mechanics`] | Lagrangian systems with contacts (the `ContactSystem` trait); the planar rigid body of P1, elementary systems |
//! | [`hybrid`] | the hybrid dynamics core: DOPRI5 with dense output, event location, modes, impacts, Zeno completion, Poincaré sections |
//! | [`twocontact`] | P1: body on two frictional contacts: zero-order dynamics, contact modes |
//! | [`model`] | strict reading of TOML/JSON model files (`kind` key, ranges, `_deg` angles) |
//! | [`eqset`] | P5: equilibrium sets under set-valued friction, Theorems 1 and 2, basins |
//! | [`timestep`] | Moreau–Jean time-stepping: unilateral contacts (any `ContactSystem`) and bilateral frictional sliders |
//! | [`papers`] | the papers' reference configurations, shared by tests, benchmarks and the report |
//! | [`report`] | the reproduction report: rows of published vs computed values |
//! | [`plot`] | PNG/SVG plots with an embedded font |
//! | [`reproduce`] | the sections of `contactlab reproduce`, one per paper |
//!
//! ## Conventions
//! Angles are radians everywhere in the API and in files, unless a key ends in `_deg`. Solvers
//! return a status and a residual the caller can check; `Err` is for malformed input, for an
//! analysis whose solver could not conclude, and for failed output, kept apart (see [`Error`]).
//!
//! ## Papers
//! * P1: Or & Várkonyi, planar rigid body on two frictional contacts.
//! * P2: Or, Painlevé paradox and dynamic jamming in walkers.
//! * P3: Or & Ames, Zeno periodic orbits of Lagrangian hybrid systems.
//! * P4: Pang & Trinkle, stability of fixtured bodies (LP and LCP theory).
//! * P5: van de Wouw & Leine, attractivity of equilibrium sets under set-valued friction.
#![warn(missing_docs)]
// Index loops mirror the subscripts of the equations they implement.
#![allow(clippy::needless_range_loop)]

pub mod api;
pub mod conic;
pub mod eqset;
mod error;
pub mod fixture;
pub mod hybrid;
pub mod lcp;
pub mod lp;
pub mod mechanics;
pub mod model;
pub mod papers;
pub mod plot;
pub mod report;
pub mod reproduce;
pub mod timestep;
pub mod twocontact;
pub mod util;
pub mod walker;
pub mod zeno;

pub use error::Error;
