//! Report section `P1`: Or & Várkonyi, planar body on two frictional contacts.
//!
//! So far: the contact-mode structure of configurations A, B and D (Fig. 3) under the zero-order
//! dynamics. The Poincaré maps R, G, the stability theorems and Figs. 3, 4, 6 and 9 follow with
//! the rest of issue #4 and are listed as pending in the section text.

use super::{Options, ProgressFn};
use crate::report::{Row, Section};
use crate::twocontact::modes::analyze;
use crate::twocontact::zod::Zod;
use crate::twocontact::TwoContact;
use crate::Error;

/// Section title.
pub const TITLE: &str = "Or & Várkonyi: planar body on two frictional contacts (contact modes so far)";

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
    })
}

fn yn(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Builds the section.
pub fn section(_opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let mut sec = Section::new(
        "P1",
        TITLE,
        "Configurations A, B, D of Fig. 3 (α = 25°, φ₁ = φ₂ = 0, μ = (0.315, 1)). Contact modes and their \
         consistency under the zero-order dynamics (eq. 16); SS consistency is decided over the whole \
         one-parameter family of forces by an LP. **Pending (issue #4):** the Poincaré maps R and G, the \
         verdicts of Theorems 2–5, weak persistence, and Figs. 3, 4, 6, 9.",
    );
    let src = "P1 §III-E and Fig. 3";
    for (k, (name, _, _, _)) in CONFIGS.iter().enumerate() {
        progress("P1", k as u64, CONFIGS.len() as u64);
        let p = config(name).expect("listed configuration");
        let eq = analyze(&Zod::new(&p)?)?;
        sec.rows.push(Row::exact(
            format!("config {name}: unambiguous frictional equilibrium"),
            "yes",
            yn(eq.equilibrium && !eq.ambiguous),
            src,
        ));
        sec.rows.push(Row::exact(
            format!("config {name}: Painlevé-free (non-Painlevé)"),
            "yes",
            yn(eq.painleve_free),
            "P1 §II: the analysis assumes it",
        ));
        let published = if *name == "A" { "yes" } else { "no" };
        sec.rows.push(Row::exact(format!("config {name}: persistent equilibrium"), published, yn(eq.persistent), src));
    }
    progress("P1", CONFIGS.len() as u64, CONFIGS.len() as u64);
    Ok(sec)
}
