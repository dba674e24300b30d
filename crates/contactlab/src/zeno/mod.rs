//! Paper P3 (Or & Ames): completed Lagrangian hybrid systems and their Zeno periodic orbits, as
//! the paper states them. The analysis itself (simulation with Zeno completion, the return map
//! on the constraint surface, simple and Zeno periodic orbits, the family for continuation) is
//! general and lives in [`crate::zeno_orbit`], re-exported here; this layer adds P3's models
//! ([`model`]: the double pendulum with a knee stop, the bouncing ball), Theorem 1 ([`bound`],
//! conditions (10)–(15)), the figures ([`plots`]) and P3's continuation of the Zeno periodic orbit
//! as `e` grows until its constrained phase vanishes ([`continuation_in_e`]: the general
//! continuation engine, read in P3's terms).

pub mod bound;
pub mod model;
pub mod plots;

use serde::Serialize;

use crate::mechanics::ContactSystem;
pub use crate::zeno_orbit::*;

/// One orbit of P3's branch in `e` ([`continuation_in_e`]).
#[derive(Debug, Clone, Serialize)]
pub struct EPoint {
    /// Coefficient of restitution.
    pub e: f64,
    /// Period (s).
    pub period: f64,
    /// Duration of the constrained phase (s).
    pub constrained_duration: f64,
    /// `γ`: the largest multiplier modulus of the return map.
    pub gamma: f64,
    /// Impacts simulated per cycle before the Zeno point was extrapolated.
    pub impacts_per_cycle: usize,
    /// Whether the cycle's impacts accumulate at a Zeno point.
    pub zeno: bool,
    /// The fixed point in the constraint surface's chart ([`ConstraintChart`]).
    pub section_point: Vec<f64>,
}

/// P3's branch of Zeno periodic orbits as `e` grows: the general continuation's branch
/// ([`crate::continuation`], pseudo-arclength, with the end of the constrained phase located as a
/// special point), read in P3's terms.
#[derive(Debug, Clone, Serialize)]
pub struct EBranch {
    /// The orbits with a constrained phase (Zeno for `e > 0`), in the branch's order (increasing
    /// `e` unless the branch folds).
    pub points: Vec<EPoint>,
    /// The largest `e` with a Zeno periodic orbit found: the located end of the constrained
    /// phase if the branch reached it, else its last orbit.
    pub e_critical: Option<f64>,
    /// Where the constrained phase vanishes (the multiplier `λ` at its start through zero),
    /// located to `zeno_end_bracket`, if the branch reached it.
    pub zeno_end: Option<f64>,
    /// The bracket of `zeno_end` in `e`.
    pub zeno_end_bracket: Option<f64>,
    /// Why the branch ended (the general continuation's reason, or why no orbit was reached).
    pub end: String,
}

impl EBranch {
    /// P3's reading of a continuation in `e`: its first branch, up to the first orbit without
    /// a constrained phase (or, for `e > 0`, without a Zeno point).
    pub fn of(c: &crate::continuation::Continuation) -> Self {
        let Some(b) = c.branches.first() else {
            return EBranch {
                points: vec![],
                e_critical: None,
                zeno_end: None,
                zeno_end_bracket: None,
                end: "no branch".into(),
            };
        };
        let quantity = |p: &crate::continuation::BranchPoint, k: &str| {
            p.observation.quantities.iter().find(|(n, _)| n == k).map_or(f64::NAN, |(_, v)| *v)
        };
        let mut points = vec![];
        let mut end = b.end.clone();
        let mut cut = false;
        for p in &b.points {
            let zeno = p.observation.events.iter().any(|e| e.starts_with("zeno"));
            let duration = quantity(p, "constrained_duration");
            let why = if duration.is_nan() {
                Some("its cycle could not be followed to read its constrained phase")
            } else if duration <= 0.0 {
                Some("the orbit has no constrained phase")
            } else if p.p > 0.0 && !zeno {
                Some("the orbit has no Zeno point")
            } else {
                None
            };
            if let Some(why) = why {
                end = format!("at e = {}: {why}", p.p);
                cut = true;
                break;
            }
            points.push(EPoint {
                e: p.p,
                period: p.period,
                constrained_duration: duration,
                gamma: p.spectral_radius,
                impacts_per_cycle: quantity(p, "impacts").max(0.0) as usize,
                zeno,
                section_point: p.y.clone(),
            });
        }
        // The largest e of the orbits kept (after a fold the branch may turn back in e), and the
        // end of the constrained phase if located on them (not past a cut).
        let largest = points.iter().map(|p| p.e).reduce(f64::max);
        let special = b
            .special
            .iter()
            .find(|s| s.kind == crate::continuation::SpecialKind::ZenoEnd)
            .filter(|s| !cut || largest.is_some_and(|e| s.p <= e + s.bracket));
        EBranch {
            e_critical: special.map(|s| s.p).into_iter().chain(largest).reduce(f64::max),
            zeno_end: special.map(|s| s.p),
            zeno_end_bracket: special.map(|s| s.bracket),
            points,
            end,
        }
    }
}

/// Continues P3's periodic orbit of `family(e)` (the system at restitution `e`) from
/// `settings.from` toward `settings.to`: the orbit there reached from `(q0, q̇0)` by iterating
/// the return map until it settles, then followed by the general continuation
/// ([`orbit_continuation`]) and read in P3's terms ([`EBranch::of`]). No orbit reached is a
/// branch without points whose `end` says why.
pub fn continuation_in_e<S: ContactSystem, F: Fn(f64) -> Result<S, String>>(
    family: F,
    q0: &[f64],
    v0: &[f64],
    settings: &crate::continuation::Settings,
    progress: &dyn Fn(f64),
) -> Result<EBranch, crate::Error> {
    settings.validate()?;
    let key = crate::model::param::ParamKey::parse("e")?;
    match orbit_continuation(family, q0, v0, &key, settings, progress) {
        Ok(c) => Ok(EBranch::of(&c)),
        Err(e) => {
            Ok(EBranch { points: vec![], e_critical: None, zeno_end: None, zeno_end_bracket: None, end: e.to_string() })
        }
    }
}
