//! P3's periodic orbits of any mechanism with a joint limit or contact: fixed points of the
//! return map on the constraint surface of one constraint (from one entry into its constrained
//! phase to the next), simple (`e = 0`: a plastic closing) or Zeno (`e > 0`: infinitely many
//! impacts accumulating at a Zeno point), with the multipliers and P3's contraction rate `γ`
//! ([`crate::zeno_orbit::orbit`] on the mechanism with that constraint first).

use nalgebra::DVector;
use serde::Serialize;

use super::Mechanism;
use crate::hybrid::lagrangian::Lagrangian;
use crate::mechanics::multibody_system::MultibodySystem;
use crate::zeno_orbit::{self as zeno, Orbit, ZenoSettings, SETTLE_CYCLES, SETTLE_TOL};
use crate::Error;

/// The orbit through the constrained phases of one constraint.
#[derive(Debug, Clone, Serialize)]
pub struct ConstraintOrbit {
    /// The constraint (its name).
    pub constraint: String,
    /// Its coefficient of restitution.
    pub e: f64,
    /// The orbit (P3's quantities).
    #[serde(flatten)]
    pub orbit: Orbit,
}

/// The periodic orbit reached from `(q, q̇)` through the constrained phases of `constraint`:
/// the return map is iterated until it settles, then Newton's method converges on the fixed
/// point (P3, Section 5, for any mechanism).
pub fn constraint_orbit(m: &Mechanism, q: &[f64], v: &[f64], constraint: &str) -> Result<ConstraintOrbit, Error> {
    m.check_state("state", q)?;
    m.check_state("state", v)?;
    let i = m.contact_index("constraint", constraint)?;
    struct Find<'a>(&'a [f64], &'a [f64]);
    impl Find<'_> {
        fn run(self, sys: MultibodySystem) -> Orbit {
            let lag = Lagrangian::new(sys);
            let s = ZenoSettings::default();
            let (q, v) = (DVector::<f64>::from_column_slice(self.0), DVector::<f64>::from_column_slice(self.1));
            match zeno::settle(&lag, &q, &v, SETTLE_CYCLES, SETTLE_TOL, &s) {
                Ok(y) => zeno::orbit(&lag, &y, &s),
                Err(reason) => Orbit::not_found(reason),
            }
        }
    }
    let first = m.with_contact_first(i);
    let orbit = Find(q, v).run(first.system()?);
    Ok(ConstraintOrbit { constraint: constraint.to_string(), e: m.contacts[i].law.restitution, orbit })
}
