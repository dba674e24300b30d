//! `kind = "rod-two-sliders"` and `kind = "friction-oscillator"` model files (schema in
//! `docs/models.md`).

use std::path::Path;

use crate::mechanics::sliders::{RodTwoSliders, SlidingBlock};
use crate::model::{ModelDoc, Range};
use crate::Error;

/// A system of P5 with its initial state `(q₀, q̇₀)`.
#[derive(Debug, Clone, Copy)]
pub enum EqsetModel {
    /// P5's rod on two frictional sliders; `q = θ`.
    Rod {
        /// The system.
        system: RodTwoSliders,
        /// Initial `θ`.
        q0: f64,
        /// Initial `θ̇`.
        v0: f64,
    },
    /// A block on a spring with Coulomb friction on a bilateral guide; `q = x`.
    Block {
        /// The system.
        system: SlidingBlock,
        /// Initial `x`.
        q0: f64,
        /// Initial `ẋ`.
        v0: f64,
    },
}

impl EqsetModel {
    /// Initial state.
    pub fn initial(&self) -> (f64, f64) {
        match *self {
            EqsetModel::Rod { q0, v0, .. } | EqsetModel::Block { q0, v0, .. } => (q0, v0),
        }
    }
    /// Name and unit of the coordinate, for plots and tables.
    pub fn coordinate(&self) -> (&'static str, &'static str) {
        match self {
            EqsetModel::Rod { .. } => ("theta", "rad"),
            EqsetModel::Block { .. } => ("x", "m"),
        }
    }
}

/// Reads a model from a parsed document.
pub fn from_model(doc: &ModelDoc) -> Result<EqsetModel, Error> {
    let kind = doc.kind()?;
    let f = doc.fields();
    let _ = f.str_opt("name")?;
    let _ = f.str_opt("description")?;
    let initial = |key_q: &str, key_v: &str, angle: bool| -> Result<(f64, f64), Error> {
        if !f.has("initial") {
            return Ok((0.0, 0.0));
        }
        let i = f.table("initial")?;
        let q = if angle {
            if i.has(key_q) || i.has(&format!("{key_q}_deg")) {
                i.angle(key_q, Range::Any)?
            } else {
                0.0
            }
        } else {
            i.f64_or(key_q, 0.0, Range::Any)?
        };
        let v = i.f64_or(key_v, 0.0, Range::Any)?;
        i.finish()?;
        Ok((q, v))
    };
    let model = match kind {
        "rod-two-sliders" => {
            let system = RodTwoSliders {
                mass: f.f64("mass", Range::Positive)?,
                l: f.f64("l", Range::Positive)?,
                inertia: f.f64("inertia", Range::NonNegative)?,
                gravity: f.f64("gravity", Range::Positive)?,
                mu1: f.f64("mu1", Range::NonNegative)?,
                mu2: f.f64("mu2", Range::NonNegative)?,
            };
            let (q0, v0) = initial("theta", "theta_dot", true)?;
            EqsetModel::Rod { system, q0, v0 }
        }
        "friction-oscillator" => {
            let system = SlidingBlock {
                mass: f.f64("mass", Range::Positive)?,
                stiffness: f.f64("stiffness", Range::Positive)?,
                gravity: f.f64("gravity", Range::Positive)?,
                mu: f.f64("mu", Range::NonNegative)?,
            };
            let (q0, v0) = initial("x", "x_dot", false)?;
            EqsetModel::Block { system, q0, v0 }
        }
        other => {
            return Err(Error::input(
                &doc.file,
                "kind",
                format!("expected \"rod-two-sliders\" or \"friction-oscillator\", got \"{other}\""),
            ))
        }
    };
    f.finish()?;
    Ok(model)
}

/// Reads a model file.
pub fn read(path: &Path) -> Result<EqsetModel, Error> {
    from_model(&ModelDoc::read(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_rod_and_names_bad_keys() {
        let doc = ModelDoc::parse(
            "rod.toml",
            "kind = \"rod-two-sliders\"\nmass = 1.0\nl = 1.0\ninertia = 0.3333333333333333\ngravity = 10.0\nmu1 = 0.3\nmu2 = 0.3\n[initial]\ntheta_deg = 90.0\n",
            false,
        )
        .unwrap();
        let m = from_model(&doc).unwrap();
        assert!((m.initial().0 - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        for (text, key) in [
            ("kind = \"rod-two-sliders\"\nmass = 1.0\nl = 1.0\ninertia = 0.3\ngravity = 10.0\nmu1 = -0.3\nmu2 = 0.3\n", "mu1"),
            ("kind = \"rod-two-sliders\"\nmass = 1.0\nl = 1.0\ninertia = 0.3\ngravity = 10.0\nmu1 = 0.3\nmu2 = 0.3\nmu3 = 1.0\n", "mu3"),
            ("kind = \"friction-oscillator\"\nmass = 0.0\nstiffness = 1.0\ngravity = 10.0\nmu = 0.3\n", "mass"),
        ] {
            let err = from_model(&ModelDoc::parse("m.toml", text, false).unwrap()).unwrap_err().to_string();
            assert!(err.contains("m.toml") && err.contains(key), "{err}");
        }
    }
}
