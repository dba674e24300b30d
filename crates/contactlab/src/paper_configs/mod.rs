//! The papers' reference configurations in one place, shared by the tests, the benchmarks and
//! the report (`examples/` holds the same numbers as model files; tests check that they agree).
//!
//! * [`p1`]: configurations A, B, D of P1 Fig. 3.
//! * [`p4`]: P4's Examples 1 and 2 and the numbers it prints.
//! * [`lcp`]: Murty's exponential LCPs.
//!
//! The systems of P2, P3 and P5 carry their papers' parameters as constructors on the types:
//! [`crate::mechanics::walkers::RimlessWheel::paper`], [`crate::mechanics::walkers::CompassBiped::paper`],
//! [`crate::mechanics::double_pendulum::DoublePendulumStop::paper`] and
//! [`crate::mechanics::sliders::RodTwoSliders::paper`].

pub mod lcp;
pub mod p1;
pub mod p4;
