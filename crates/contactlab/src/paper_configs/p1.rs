//! P1 (Or & Várkonyi): the configurations of Fig. 3. The model files
//! `examples/two-contact/config-{A,B,D}.toml` hold the same numbers (a test checks that they do).

use crate::twocontact::TwoContact;

/// Configurations A, B, D of P1 Fig. 3 (SI units): `(name, ρ, l₁, l₂)`; α = 25°, φ = 0,
/// μ = (0.315, 1), h = 134.1 mm.
pub const CONFIGS: [(&str, f64, f64, f64); 3] =
    [("A", 0.1430, -0.0512, 0.1688), ("B", 0.1469, 0.0161, 0.0761), ("D", 0.1379, 0.0288, 0.0888)];

/// One configuration of Fig. 3 (mass 0.594 kg; the verdicts do not depend on it).
pub fn config(name: &str) -> Option<TwoContact> {
    CONFIGS.iter().find(|c| c.0 == name).map(|&(_, rho, l1, l2)| TwoContact {
        mass: 0.594,
        rho,
        h: 0.1341,
        l1,
        l2,
        phi1: 0.0,
        phi2: 0.0,
        mu1: 0.315,
        mu2: 1.0,
        force: 0.594 * 9.81,
        alpha: 25f64.to_radians(),
        torque: 0.0,
        enclosure: None,
    })
}
