//! The library's integration tests, one module per file, built as one test binary: one link of
//! the library and one copy of its generic code instead of one per file, and one process in
//! which the test threads share the whole suite.

mod basin;
mod beyond;
mod common;
mod continuation;
mod energy;
mod examples_agree;
mod hybrid_core;
mod hybrid_properties;
mod joint_limits;
mod joint_references;
mod lcp_exact;
mod lcp_properties;
mod lcp_scaling;
mod lcp_siconos;
mod many_contacts;
mod mechanism;
mod mu_precision;
mod multibody;
mod no_sinking;
mod open;
mod p1_dynamics;
mod p1_modes;
mod p2_walkers;
mod p3_zeno;
mod p4_fixture;
mod p5_eqset;
mod painleve_mechanism;
mod planar_on_spatial;
mod scale_invariance;
mod spatial;
mod spatial_continuation;
mod spatial_events;
mod spatial_painleve;
mod spatial_scene;
mod spatial_stance;
mod spatial_variational;
mod timestep;
mod urdf;
mod variational;
