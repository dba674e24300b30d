//! # contactlab
//!
//! Stability analysis and simulation of mechanical systems with unilateral, frictional contacts.
//!
//! ## Where to start
//!
//! * **Running an analysis as the command line does** (options checked, typed results that
//!   serialise to the `--json` output): [`api`]. Every front end (the `contactlab` binary, the
//!   Python package) only calls these functions.
//! * **Reading a model file**: [`model`] (strict TOML/JSON: every key consumed or refused, one-line
//!   errors naming file, key and range) and [`api::registry`], the one list of model kinds with
//!   their readers, documentation and the analyses that accept them. A new kind is one entry there.
//! * **Describing a mechanism in code**: implement [`mechanics::ContactSystem`] (mass matrix, bias,
//!   gaps, Jacobians; the sign conventions are written once there and every system is checked by
//!   [`mechanics::check`]) and run it with the hybrid core: [`hybrid::lagrangian::Lagrangian`] and
//!   [`hybrid::EventDriver`], with return maps and Floquet multipliers in [`hybrid::section`].
//! * **Solving a complementarity or conic problem**: [`lcp`] (Lemke, enumeration, matrix classes,
//!   an independent check of returned points in [`lcp::verify`]), [`lp`], [`conic`].
//! * **A paper's method**: [`twocontact`] (P1), [`walking`] (P2), [`zeno`] (P3), [`fixture`] (P4),
//!   [`eqset`] (P5).
//! * **The reproduction report**: [`reproduce`] builds one section per paper from the reference
//!   configurations in [`paper_configs`]; [`report`] holds rows (published vs computed, with a status that
//!   follows from the computation) and renders `REPORT.md` and `results.json`.
//!
//! ## Modules
//!
//! | module | what |
//! |---|---|
//! | [`api`] | the analyses as the front ends run them: options, typed results, files they write; the registry of model kinds |
//! | [`model`] | model files: strict reading of a document's fields |
//! | [`lcp`] | linear complementarity: Lemke, enumeration of all solutions, pivot transforms, matrix classes, independent verification |
//! | [`lp`] | our small dense simplex for tiny LPs solved many times |
//! | [`conic`] | LP / second-order-cone feasibility and optimisation over Clarabel, with certificates |
//! | [`mechanics`] | Lagrangian systems with contacts (the `ContactSystem` trait) and the papers' systems; bilateral frictional sliders (`SliderSystem`) |
//! | [`hybrid`] | the hybrid dynamics core: DOPRI5 with dense output, event location, modes, impacts, Zeno completion, Poincaré sections, Newton on return maps |
//! | [`interval`] | interval arithmetic with outward rounding (one ulp per inexact operation, any target): the ground of proved verdicts |
//! | [`verified`] | verified linear solves (Krawczyk) and proved points of polyhedra: LP and LCP certificates checked in interval arithmetic |
//! | [`timestep`] | Moreau–Jean time-stepping: unilateral contacts (any `ContactSystem`) and bilateral frictional sliders |
//! | [`twocontact`] | P1: body on two frictional contacts: zero-order dynamics, contact modes, maps R and G, verdicts, atlas |
//! | [`spatial`] | rigid bodies in space: spatial algebra, joints (revolute, prismatic, planar, ball, free), a tree's `M` (CRBA) and bias (RNEA), points' Jacobians |
//! | [`multibody`] | a user's mechanism (`kind = "multibody"`, URDF): inspect, simulate, gaits from nothing, basins, Painlevé and slips, orbits, continuation |
//! | [`painleve`] | Painlevé's A and B, Table 2.1, slip episodes of any system, jams located in desingularised time |
//! | [`zeno_orbit`] | completed executions of any Lagrangian hybrid system: Zeno completion, return maps on a constraint surface, simple and Zeno periodic orbits |
//! | [`continuation`] | pseudo-arclength continuation of families of return maps, with folds, bifurcations and event changes |
//! | [`walking`] | P2: the walkers built as multibody models ([`walking::multibody`]; their gaits by [`multibody::gait`]; Painlevé regions, slips and jams on [`painleve`] through P2's chart, [`walking::MultibodyWalker`]) and proofs (the hand-written walkers in [`mechanics::walkers`] are the tests' oracle) |
//! | [`zeno`] | P3: its models, Theorem 1, figures and continuation in e ([`continuation`] on [`zeno_orbit`]'s return map) |
//! | [`fixture`] | P4: weak, strong and frictionless stability of fixtured bodies, Theorem 4, load cones, sweeps |
//! | [`eqset`] | P5: equilibrium sets under set-valued friction, Theorems 1 and 2, basins |
//! | [`paper_configs`] | the papers' reference configurations, shared by tests, benchmarks and the report |
//! | [`reproduce`], [`report`] | the reproduction report: its sections, and its rows, tables and figures |
//! | [`plot`] | PNG/SVG plots with an embedded font |
//! | [`numeric`] | small numerical routines: the scale floor, small dense solves, bisection, box maximisation |
//! | [`output`] | what the library writes: JSON of nalgebra types, enum names in messages, files |
//!
//! ## Conventions
//! Angles are radians everywhere in the API and in files, unless a key ends in `_deg`. Solvers
//! return a status and a residual the caller can check; `Err` is for malformed input (a file's
//! key, a model's key, an option), for an analysis whose solver could not conclude, and for
//! failed output, kept apart (see [`Error`]). A physics outcome (no gait, no orbit, a jam) is a
//! result, not an error. Tolerances are relative to the data's own scales.
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
pub mod continuation;
pub mod eqset;
pub mod error;
pub mod exact;
pub mod fc3d;
pub mod fixture;
pub mod hybrid;
pub mod interval;
pub mod lcp;
pub mod lp;
pub mod mechanics;
pub mod model;
pub mod multibody;
pub mod numeric;
pub mod output;
pub mod painleve;
pub mod paper_configs;
pub mod plot;
pub mod report;
pub mod reproduce;
pub mod spatial;
pub mod timestep;
pub mod twocontact;
pub mod verified;
pub mod walking;
pub mod zeno;
pub mod zeno_orbit;

pub use error::Error;
