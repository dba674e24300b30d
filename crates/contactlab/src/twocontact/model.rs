//! `kind = "planar-two-contact"` model files (schema in `docs/models.md`).

use std::path::Path;

use super::TwoContact;
use crate::model::{ModelDoc, Range};
use crate::Error;

/// Reads a two-contact body from a parsed model document: `kind = "planar-two-contact"`, or a
/// `kind = "multibody"` model that is one rigid body on two point contacts
/// ([`crate::twocontact::from_multibody`]).
pub fn from_model(doc: &ModelDoc) -> Result<TwoContact, Error> {
    let kind = doc.kind()?;
    if kind == "multibody" {
        return crate::twocontact::from_multibody::to_two_contact(&crate::multibody::model::from_model(doc)?);
    }
    if kind != "planar-two-contact" {
        return Err(Error::input(&doc.file, "kind", format!("expected \"planar-two-contact\", got \"{kind}\"")));
    }
    let f = doc.fields();
    let _ = f.str_opt("name")?;
    let _ = f.str_opt("description")?;
    let half_pi = Range::Open(-std::f64::consts::FRAC_PI_2, std::f64::consts::FRAC_PI_2);
    let load = f.table("load")?;
    let p = TwoContact {
        mass: f.f64("mass", Range::Positive)?,
        rho: f.f64("rho", Range::Positive)?,
        h: f.f64("h", Range::Any)?,
        l1: f.f64("l1", Range::Any)?,
        l2: f.f64("l2", Range::Any)?,
        phi1: f.angle("phi1", half_pi)?,
        phi2: f.angle("phi2", half_pi)?,
        mu1: f.f64("mu1", Range::NonNegative)?,
        mu2: f.f64("mu2", Range::NonNegative)?,
        force: load.f64("force", Range::NonNegative)?,
        alpha: load.angle("angle", Range::Closed(-std::f64::consts::PI, std::f64::consts::PI))?,
        torque: load.f64_or("torque", 0.0, Range::Any)?,
        enclosure: None,
    };
    load.finish()?;
    f.finish()?;
    p.validate().map_err(|e| match e {
        e @ Error::Model { .. } => e.in_file(&doc.file),
        e => Error::input(&doc.file, "geometry", e.to_string()),
    })?;
    Ok(p)
}

/// Reads a two-contact model file.
pub fn read(path: &Path) -> Result<TwoContact, Error> {
    from_model(&ModelDoc::read(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"
kind = "planar-two-contact"
mass = 0.594
rho = 0.1430
h = 0.1341
l1 = -0.0512
l2 = 0.1688
phi1 = 0.0
phi2 = 0.0
mu1 = 0.315
mu2 = 1.0
[load]
force = 5.827
angle_deg = 25.0
"#;

    #[test]
    fn reads_and_validates() {
        let p = from_model(&ModelDoc::parse("a.toml", A, false).unwrap()).unwrap();
        assert!((p.alpha - 25f64.to_radians()).abs() < 1e-15);
        assert_eq!(p.torque, 0.0);
        let bad = |s: String| from_model(&ModelDoc::parse("a.toml", &s, false).unwrap()).unwrap_err().to_string();
        assert!(bad(A.replace("mu1 = 0.315", "mu1 = -1")).contains("a.toml: mu1: must be a finite number >= 0"));
        assert!(bad(A.replace("rho = 0.1430", "rho = 0")).contains("rho: must be a finite number > 0"));
        assert!(bad(A.replace("phi1 = 0.0", "phi1_deg = 90.0")).contains("phi1_deg"));
        assert!(bad(A.replace("angle_deg = 25.0", "angle_deg = 25.0\nspin = 1")).contains("load.spin: unknown key"));
        assert!(bad(A.replace("l1 = -0.0512", "l1 = 0.1688")).contains("a.toml: geometry: singular"));
        assert!(bad(A.replace("[load]", "[loads]")).contains("load: missing"));
    }
}
