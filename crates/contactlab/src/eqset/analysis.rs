//! `eqset analyze`: the equilibrium sets of a one-degree-of-freedom system and what Theorem 1 or
//! Theorem 2 says about each.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{equilibrium_sets, theorem1, theorem2, Condition, Theorem1, Theorem2};
use crate::mechanics::sliders::SliderSystem;
use crate::Error;

/// The analysis of one equilibrium set.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    /// Midpoint (for a periodic coordinate in `(−P/2, P/2]`).
    pub center: f64,
    /// Half width.
    pub half_width: f64,
    /// Ends.
    pub lo: f64,
    /// Ends.
    pub hi: f64,
    /// Proved attractive by Theorem 1 (`null`: no theorem applies).
    pub attractive: Option<bool>,
    /// Proved unstable by Theorem 2 (`null`: no theorem applies).
    pub unstable: Option<bool>,
    /// Which theorem decided it, or why none applies.
    pub theorem: String,
    /// Theorem 1's details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theorem1: Option<Theorem1>,
    /// Theorem 2's details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theorem2: Option<Theorem2>,
}

/// `eqset analyze`: the sets and what the theorems say about each.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The sets in order along the coordinate.
    pub sets: Vec<SetReport>,
    /// `c*` of the first set Theorem 1 was applied to.
    pub c_star: Option<f64>,
    /// Theorem 1's conditions for that set.
    pub conditions: Option<BTreeMap<String, Condition>>,
}

/// Settings of the one-degree-of-freedom analyses.
#[derive(Debug, Clone, Copy)]
pub struct EqsetSettings {
    /// Lower end of the scanned coordinate range (one period from here for a periodic
    /// coordinate).
    pub q_min: f64,
    /// Upper end (ignored for a periodic coordinate).
    pub q_max: f64,
    /// Grid points of the set scan.
    pub grid: usize,
}

impl EqsetSettings {
    /// One period centred on 0 for a periodic coordinate, else `±50` coordinate scales.
    pub fn for_system<S: SliderSystem<1, M>, const M: usize>(sys: &S) -> Self {
        match sys.period(0) {
            Some(p) => Self { q_min: -0.5 * p, q_max: 0.5 * p, grid: 4000 },
            None => {
                let s = 50.0 * sys.coordinate_scale();
                Self { q_min: -s, q_max: s, grid: 4000 }
            }
        }
    }
}

/// `eqset analyze` for a one-degree-of-freedom system: the sets, then Theorem 1 for each set
/// around a minimum of `U` and Theorem 2 for each set around a maximum.
pub fn analyze<S: SliderSystem<1, M>, const M: usize>(sys: &S, settings: &EqsetSettings) -> Result<Analysis, Error> {
    let period = sys.period(0);
    let sets = equilibrium_sets(sys, settings.q_min, settings.q_max, settings.grid)?;
    let mut reports = Vec::new();
    for (i, s) in sets.iter().enumerate() {
        let mut rep = SetReport {
            center: s.center(period),
            half_width: s.half_width(),
            lo: s.lo,
            hi: s.hi,
            attractive: None,
            unstable: None,
            theorem: String::new(),
            theorem1: None,
            theorem2: None,
        };
        if s.whole {
            rep.theorem = "none: the set is the whole scanned range (every state at rest is an equilibrium)".into();
        } else if let Some(t1) = theorem1(sys, &sets, i, settings)? {
            rep.attractive = Some(t1.attractive);
            rep.theorem = if t1.attractive {
                "Theorem 1".into()
            } else {
                let failed: Vec<&str> = t1.conditions.iter().filter(|c| !c.1.holds).map(|c| c.0.as_str()).collect();
                format!("Theorem 1 does not apply: condition(s) {} fail", failed.join(", "))
            };
            rep.theorem1 = Some(t1);
        } else if let Some(t2) = theorem2(sys, &sets, i)? {
            rep.unstable = Some(t2.unstable);
            if t2.not_attractive {
                rep.attractive = Some(false);
            }
            rep.theorem = if t2.statements["1"].holds && t2.unstable {
                "Theorem 2, statement 1".into()
            } else if t2.unstable {
                "Theorem 2, statement 3".into()
            } else {
                "Theorem 2 does not apply".into()
            };
            rep.theorem2 = Some(t2);
        } else {
            rep.theorem = "none: the set holds no equilibrium of the frictionless system".into();
        }
        reports.push(rep);
    }
    let first = reports.iter().find_map(|r| r.theorem1.as_ref());
    Ok(Analysis { c_star: first.map(|t| t.c_star), conditions: first.map(|t| t.conditions.clone()), sets: reports })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::sliders::RodTwoSliders;

    #[test]
    fn the_rods_analysis() {
        let rod = RodTwoSliders::paper();
        let a = analyze(&rod, &EqsetSettings::for_system(&rod)).unwrap();
        assert_eq!(a.sets.len(), 2);
        assert_eq!(a.sets[0].attractive, Some(true), "{:#?}", a.sets[0]);
        assert_eq!(a.sets[1].unstable, Some(true), "{:#?}", a.sets[1]);
        assert_eq!(a.sets[1].theorem, "Theorem 2, statement 3");
        let th = rod.theta_hat().unwrap();
        let mgl = 10.0;
        // The level set touches E2 at its tip π − θ̂: c* = U(π − θ̂) = m g l (1 + cos θ̂).
        let c = a.c_star.unwrap();
        assert!((c - mgl * (1.0 + th.cos())).abs() < 1e-9, "{c}");
    }
}
