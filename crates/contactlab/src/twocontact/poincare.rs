//! The reduced Poincaré map `R(φ)` and growth map `G(φ)` (P1, eqs. 6–9).
//!
//! The section `S` is "point 2 lands while point 1 is in sustained contact". By the scale
//! invariance of the ZOD a crossing is fixed up to scale by the impact angle
//! `φ = atan(ẋ₂⁻ / |ż₂⁻|)`. A return starts from `z₁ = z₂ = 0`, `ż₁ = 0`, `ż₂ = −1`,
//! `ẋ₂ = tan φ`, applies the impact and runs the event-driven ZOD to the next crossing; then
//! `R(φ)` is that crossing's angle and `G(φ) = |ż₂⁻|` (its speed relative to the start).
//! Impacts of point 1 while point 2 is in contact, and of point 2 while point 1 flies, are
//! intermediate events. Where the motion comes to rest, slides or flies away, or converges
//! through a Zeno point before returning, `R` and `G` are undefined (`None`): data, not errors.

use std::f64::consts::FRAC_PI_2;

use rayon::prelude::*;
use serde::Serialize;

use super::sim::{BodyOutcome, SimSettings, SimState, Simulator};
use crate::numeric::{try_bisect, Side, Tol};
use crate::Error;

/// One evaluation of the maps.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MapPoint {
    /// Impact angle `φ` (rad).
    pub phi: f64,
    /// `R(φ)`, if the motion returns to the section.
    pub r: Option<f64>,
    /// `G(φ)`, if the motion returns to the section.
    pub g: Option<f64>,
    /// Slipping double impacts met during the return: bit 0 with `ẋ₂ > 0`, bit 1 with `ẋ₂ < 0`
    /// (needed for weak persistence, P1 Definition 2(b)).
    pub double_slip: u8,
    /// How the return ended: `returned`, `rest` (R, G undefined: the motion stopped), or another
    /// ending (diverged, moves away, Painlevé, event limit) that leaves the maps unknown.
    pub status: ReturnStatus,
}

/// How a return ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReturnStatus {
    /// Crossed the section again: R and G defined.
    Returned,
    /// Came to rest first: R and G undefined (data, not an error).
    Rest,
    /// Anything else: the maps are unknown at this φ.
    Failed,
}

/// A bisected sign change of `R(φ) − φ` is a fixed point when `|R(φ) − φ|` is below
/// `FIXED_POINT_TOL` (rad) at its midpoint.
pub const FIXED_POINT_TOL: f64 = 1e-6;

/// The step (rad) of the central difference giving `R'(φ*)` at a fixed point.
pub const SLOPE_STEP: f64 = 1e-6;

/// Settings of a single return.
pub fn return_settings() -> SimSettings {
    // No time limit: the return time scales with the perturbation and the force (v/a); the
    // event count bounds the work.
    SimSettings { t_max: f64::INFINITY, max_events: 400, diverge_ratio: 1e12, record_phases: false }
}

/// Evaluates `R(φ)` and `G(φ)`.
pub fn return_map(sim: &Simulator, phi: f64) -> Result<MapPoint, Error> {
    if !(phi > -FRAC_PI_2 && phi < FRAC_PI_2) {
        return Err(Error::argument("phi", format!("the impact angle must lie in (-π/2, π/2), got {phi}")));
    }
    let start = SimState { q: [0.0; 3], qd: [0.0, -1.0, phi.tan()] };
    let ret = sim.return_to_section(start, [true, false], 2, &return_settings());
    let double_slip = ret.double_slip;
    match (ret.crossing, ret.outcome) {
        (Some(before), _) => {
            let zd = before.qd[1].abs();
            Ok(MapPoint {
                phi,
                r: Some((before.qd[2] / zd).atan()),
                g: Some(zd),
                double_slip,
                status: ReturnStatus::Returned,
            })
        }
        (None, BodyOutcome::Rest) => Ok(MapPoint { phi, r: None, g: None, double_slip, status: ReturnStatus::Rest }),
        _ => Ok(MapPoint { phi, r: None, g: None, double_slip, status: ReturnStatus::Failed }),
    }
}

/// `R` and `G` on `n` midpoints of `(−π/2, π/2)`, in parallel; the result does not depend on
/// the number of threads.
pub fn sample(sim: &Simulator, n: usize) -> Result<Vec<MapPoint>, Error> {
    let phis: Vec<f64> = (0..n).map(|k| -FRAC_PI_2 + std::f64::consts::PI * (k as f64 + 0.5) / n as f64).collect();
    maps_at(sim, &phis)
}

/// Evaluates `R(φ)` and `G(φ)` at each of `phis`, in parallel.
pub fn maps_at(sim: &Simulator, phis: &[f64]) -> Result<Vec<MapPoint>, Error> {
    phis.par_iter().map(|&phi| return_map(sim, phi)).collect()
}

/// Samples of `φ` over `(−π/2, π/2)` for the maps, the verdicts and the atlas: the one setting
/// the CLI's defaults and the report share.
pub const DEFAULT_SAMPLES: usize = 2001;

/// A fixed point `φ* = R(φ*)` with its growth rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MapFixedPoint {
    /// `φ*` (rad).
    pub phi: f64,
    /// `G(φ*)`.
    #[serde(rename = "G")]
    pub g: f64,
    /// `R'(φ*)` by central differences.
    pub slope: f64,
    /// `|R'(φ*)| < 1`.
    pub attracting: bool,
}

/// Fixed points of `R` and what could not be resolved.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FixedPoints {
    /// The fixed points found.
    pub points: Vec<MapFixedPoint>,
    /// Sign changes of `R(φ) − φ` whose bisection met an undefined `R` (unknown fixed points).
    pub unresolved: usize,
    /// Sign changes that are jumps of `R` across the diagonal, not fixed points.
    pub jumps: usize,
}

/// Fixed points of `R`: sign changes of `R(φ) − φ` between consecutive *defined* samples,
/// refined by bisection (60 steps) and accepted only where `|R(φ) − φ|` is small at the end.
pub fn fixed_points(sim: &Simulator, samples: &[MapPoint]) -> Result<FixedPoints, Error> {
    let mut out = FixedPoints::default();
    let diff = |p: &MapPoint| p.r.map(|r| r - p.phi);
    let defined: Vec<&MapPoint> = samples.iter().filter(|p| p.r.is_some()).collect();
    for w in defined.windows(2) {
        let (Some(d0), Some(d1)) = (diff(w[0]), diff(w[1])) else { continue };
        if d0 != 0.0 && d0.signum() == d1.signum() {
            continue;
        }
        // R(φ) − φ keeps the sign it has at the left end, or not (60 halvings of the sample
        // spacing: round-off); an undefined R stops the bisection.
        let mut dlo = d0;
        let width = w[1].phi - w[0].phi;
        let br = try_bisect(w[0].phi, w[1].phi, Tol::abs(width * 2f64.powi(-60)), |mid| {
            Ok::<_, Error>(match diff(&return_map(sim, mid)?) {
                Some(d) if d.signum() == dlo.signum() && d != 0.0 => {
                    dlo = d;
                    Side::Lo
                }
                Some(_) => Side::Hi,
                None => Side::Stop,
            })
        })?;
        if br.stopped {
            out.unresolved += 1;
            continue;
        }
        let phi = br.mid();
        let p = return_map(sim, phi)?;
        match (p.r, p.g) {
            (Some(r), Some(g)) if (r - phi).abs() < FIXED_POINT_TOL => {
                let h = SLOPE_STEP;
                let (a, b) = (return_map(sim, phi - h)?, return_map(sim, phi + h)?);
                let slope = match (a.r, b.r) {
                    (Some(ra), Some(rb)) => (rb - ra) / (2.0 * h),
                    _ => f64::NAN,
                };
                out.points.push(MapFixedPoint { phi, g, slope, attracting: slope.abs() < 1.0 });
            }
            (Some(_), Some(_)) => out.jumps += 1,
            _ => out.unresolved += 1,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper_configs::p1::config;
    use crate::twocontact::zod::Zod;

    fn sim(name: &str) -> Simulator {
        Simulator::new(Zod::new(&config(name).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn config_a_has_three_interior_fixed_points_with_g_below_one() {
        // P1, Fig. 3: A has φ₁* < φ₂* = 0 < φ₃*, φ₁*, φ₃* repulsive, φ₂* attractive, G < 1.
        let s = sim("A");
        let pts = sample(&s, 201).unwrap();
        let fps = fixed_points(&s, &pts).unwrap().points;
        assert_eq!(fps.len(), 3, "{fps:?}");
        assert!(fps[0].phi < -1e-3 && fps[1].phi.abs() < 1e-6 && fps[2].phi > 1e-3, "{fps:?}");
        assert!(!fps[0].attracting && fps[1].attracting && !fps[2].attracting, "{fps:?}");
        assert!(pts.iter().filter_map(|p| p.g).all(|g| g < 1.0));
    }

    #[test]
    fn config_d_fixed_point_grows() {
        // P1: D is unstable by Theorem 2, a fixed point with G* > 1.
        let s = sim("D");
        let fps = fixed_points(&s, &sample(&s, 201).unwrap()).unwrap().points;
        assert!(fps.iter().any(|f| f.g > 1.0), "{fps:?}");
    }
}

/// The reduced Poincaré map `R(φ)` and growth map `G(φ)` on `samples` angles, with their fixed
/// points and behaviour at `±π/2` (`equilibrium maps`).
#[derive(Debug, Clone, Serialize)]
pub struct P1Maps {
    /// Number of sampled angles.
    pub samples: usize,
    /// Samples where `R` and `G` are defined (the motion returns to the section).
    pub defined: usize,
    /// Fixed points of `R`, refined by bisection.
    pub fixed_points: Vec<MapFixedPoint>,
    /// Sign changes of `R(φ) − φ` whose bisection met an undefined `R`.
    pub unresolved_fixed_points: usize,
    /// The maps' behaviour at `φ → ±π/2` (P1 Lemma 2).
    pub endpoints: [super::classify::Endpoint; 2],
    /// The samples.
    pub maps: Vec<MapPoint>,
}

impl P1Maps {
    /// Writes `maps.csv` (`phi,R,G`, empty where undefined) and the plots `R.png`, `G.png` into
    /// `dir`, titled after `title`.
    pub fn write_files(&self, dir: &std::path::Path, title: &str) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let mut csv = String::from("phi,R,G\n");
        for q in &self.maps {
            let f = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
            csv.push_str(&format!("{},{},{}\n", q.phi, f(q.r), f(q.g)));
        }
        crate::output::write_file(dir, "maps.csv", &csv)?;
        super::plots::maps_plots(self, title, dir)
    }
}

/// The maps `R`, `G` on `samples` angles with their fixed points and end behaviour.
pub fn maps(sim: &Simulator, samples: usize) -> Result<P1Maps, Error> {
    let maps = sample(sim, samples)?;
    let found = fixed_points(sim, &maps)?;
    Ok(P1Maps {
        samples: maps.len(),
        defined: maps.iter().filter(|q| q.r.is_some()).count(),
        fixed_points: found.points,
        unresolved_fixed_points: found.unresolved,
        endpoints: super::classify::endpoints(&maps),
        maps,
    })
}
