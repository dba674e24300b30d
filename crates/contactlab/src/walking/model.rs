//! `kind = "rimless-wheel"` and `kind = "compass-biped"` model files (schema in
//! `docs/models.md`).

use std::path::Path;

use crate::mechanics::walkers::{CompassBiped, RimlessWheel};
use crate::model::{ModelDoc, Range};
use crate::Error;

/// A walker of P2.
#[derive(Debug, Clone, Copy)]
pub enum WalkerModel {
    /// The rimless wheel.
    Rimless(RimlessWheel),
    /// The compass biped.
    Compass(CompassBiped),
}

impl WalkerModel {
    /// The friction coefficient `μ` of the stance foot.
    pub fn mu(&self) -> f64 {
        match self {
            WalkerModel::Rimless(w) => w.mu,
            WalkerModel::Compass(c) => c.mu,
        }
    }

    /// The same walker with friction coefficient `mu` (finite, `>= 0`): the one setter of `μ` for
    /// the front ends (an [`Error::Argument`] names it when out of range).
    pub fn with_mu(&self, mu: f64) -> Result<Self, Error> {
        if !(mu >= 0.0 && mu.is_finite()) {
            return Err(Error::argument("mu", format!("must be a finite number >= 0 (got {mu})")));
        }
        Ok(match self {
            WalkerModel::Rimless(w) => WalkerModel::Rimless(RimlessWheel { mu, ..*w }),
            WalkerModel::Compass(c) => WalkerModel::Compass(CompassBiped { mu, ..*c }),
        })
    }
}

/// Reads a walker from a parsed document.
pub fn from_model(doc: &ModelDoc) -> Result<WalkerModel, Error> {
    let kind = doc.kind()?;
    let f = doc.fields();
    let _ = f.str_opt("name")?;
    let _ = f.str_opt("description")?;
    let slope_range = Range::Open(-std::f64::consts::FRAC_PI_2, std::f64::consts::FRAC_PI_2);
    let m = match kind {
        "rimless-wheel" => WalkerModel::Rimless(RimlessWheel {
            spokes: f.integer("spokes", 4, 1000)? as u32,
            kappa: f.f64("kappa", Range::Closed(0.0, 1.0))?,
            slope: f.angle("slope", slope_range)?,
            mu: f.f64("mu", Range::NonNegative)?,
            mass: f.f64_or("mass", 1.0, Range::Positive)?,
            length: f.f64_or("length", 1.0, Range::Positive)?,
            gravity: f.f64_or("gravity", 1.0, Range::Positive)?,
        }),
        "compass-biped" => WalkerModel::Compass(CompassBiped {
            l: f.f64("l", Range::Positive)?,
            mass: f.f64("mass", Range::Positive)?,
            hip_mass: f.f64("hip_mass", Range::NonNegative)?,
            inertia: f.f64("inertia", Range::NonNegative)?,
            slope: f.angle("slope", slope_range)?,
            gravity: f.f64("gravity", Range::Positive)?,
            mu: f.f64("mu", Range::NonNegative)?,
        }),
        other => {
            return Err(Error::input(
                &doc.file,
                "kind",
                format!("expected \"rimless-wheel\" or \"compass-biped\", got \"{other}\""),
            ))
        }
    };
    f.finish()?;
    Ok(m)
}

/// Reads a walker model file.
pub fn read(path: &Path) -> Result<WalkerModel, Error> {
    from_model(&ModelDoc::read(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_walkers_and_names_bad_keys() {
        let rw = "kind = \"rimless-wheel\"\nspokes = 10\nkappa = 0.02\nslope_deg = 10\nmu = 0.35\n";
        let WalkerModel::Rimless(w) = from_model(&ModelDoc::parse("w.toml", rw, false).unwrap()).unwrap() else {
            panic!()
        };
        assert!((w.slope - 10f64.to_radians()).abs() < 1e-15 && w.mass == 1.0);
        let bad = from_model(&ModelDoc::parse("w.toml", &rw.replace("spokes = 10", "spokes = 3"), false).unwrap());
        assert!(bad.unwrap_err().to_string().contains("spokes"));
        let cb = "kind = \"compass-biped\"\nl = 0.8\nmass = 4\nhip_mass = 2\ninertia = 0\nslope_deg = 1\ngravity = 9.8\nmu = -1\n";
        let e = from_model(&ModelDoc::parse("c.toml", cb, false).unwrap()).unwrap_err().to_string();
        assert!(e.contains("c.toml") && e.contains("mu"), "{e}");
    }
}
