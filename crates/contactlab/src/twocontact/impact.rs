//! Frictional inelastic impacts (P1, eq. 4) under the zero-order dynamics.
//!
//! With impulses `Λ = (Λ₁ᶻ, Λ₂ᶻ, Λ₁ˣ, Λ₂ˣ)` the contact-space velocity jumps as
//! `u⁺ = u⁻ + A Λ` (`A` the Delassus matrix). Every point touching its support (`z = 0`) is
//! either *passive* (`Λ = 0`, `ż⁺ ≥ 0`) or *active* and inelastic (`ż⁺ = 0`, `Λᶻ ≥ 0`), and then
//! sticks (`ẋ⁺ = 0`, `|Λˣ| ≤ μΛᶻ`) or slips (`Λˣ = −μ sgn(ẋ⁺) Λᶻ`). A point off its support is
//! passive. The cases are the contact modes of [`super::modes`] at the impulse level (`F` =
//! passive), with `u⁻` in the role of `a₀`; a double sticking impact stops the body and its
//! impulses form a one-parameter family, decided exactly along that family (the closed form of
//! the LP used for static `SS`, checked against it in the tests).
//!
//! Where several outcomes are consistent, P1's order of preference applies: two active points
//! before one, sticking before slipping (then the larger margin).

use nalgebra::{Vector3, Vector4};
use serde::Serialize;

use super::modes::{admissible, mode_gain, stick_family_exact, Mode, PointMode, MARGIN_TOL};
use super::zod::{Zod, X1, Z1};
use crate::Error;

/// The result of one impact.
#[derive(Debug, Clone, Serialize)]
pub struct Impact {
    /// Impulse-level mode: `F` passive, `S` sticking, `P`/`N` slipping (active points).
    pub mode: Mode,
    /// Impulses `(Λ₁ᶻ, Λ₂ᶻ, Λ₁ˣ, Λ₂ˣ)`.
    pub impulses: [f64; 4],
    /// Post-impact contact velocities `(ż₁, ż₂, ẋ₁, ẋ₂)`.
    pub u_plus: [f64; 4],
    /// Post-impact body velocity `(ẋ, ż, θ̇)`.
    pub v_plus: [f64; 3],
    /// Normalised consistency margin of the chosen outcome.
    pub margin: f64,
    /// Number of consistent outcomes in the deciding tier of the preference order.
    pub consistent_outcomes: usize,
    /// Kinetic energy lost (J), `≥ 0` for a consistent inelastic impact.
    pub energy_loss: f64,
}

/// `+1` for `P`, `−1` for `N`, else 0.
pub(crate) fn slip_sign(m: PointMode) -> f64 {
    match m {
        PointMode::P => 1.0,
        PointMode::N => -1.0,
        _ => 0.0,
    }
}

fn rank(mode: Mode) -> (usize, usize) {
    let active = [mode.0, mode.1].iter().filter(|m| **m != PointMode::F).count();
    let sticking = [mode.0, mode.1].iter().filter(|m| **m == PointMode::S).count();
    (active, sticking)
}

/// Applies the impact law to the pre-impact body velocity `v⁻`; `touching[i]` says whether
/// point `i` is on its support (`zᵢ = 0`).
pub fn impact(zod: &Zod, v_minus: &Vector3<f64>, touching: [bool; 2]) -> Result<Impact, Error> {
    impact_with(zod, &ImpactGains::new(zod), v_minus, touching)
}

/// The constant gain matrices of all 16 modes at the impulse level (see
/// [`super::modes`]): with them an impact costs a few 4×4 products per candidate.
#[derive(Debug, Clone)]
pub struct ImpactGains {
    gains: Vec<Option<nalgebra::Matrix4<f64>>>,
    /// Admissible modes (not `FF`) grouped by preference tier, best tier first.
    tiers: Vec<Vec<Mode>>,
}

/// The index `0..16` of a mode (`F, S, P, N` per point, point 1 major).
pub(crate) fn mode_index(m: Mode) -> usize {
    let idx = |p: PointMode| match p {
        PointMode::F => 0,
        PointMode::S => 1,
        PointMode::P => 2,
        PointMode::N => 3,
    };
    4 * idx(m.0) + idx(m.1)
}

impl ImpactGains {
    /// Precomputes the gains of `zod`.
    pub fn new(zod: &Zod) -> Self {
        let all = super::modes::all_modes();
        let mut gains = vec![None; 16];
        for &m in &all {
            gains[mode_index(m)] = mode_gain(zod, m);
        }
        let tiers = [(2, 2), (2, 0), (1, 1), (1, 0)]
            .iter()
            .map(|&t| all.iter().copied().filter(|&m| rank(m) == t && admissible(zod, m)).collect())
            .collect();
        Self { gains, tiers }
    }
}

/// [`impact`] with precomputed gains (the simulator's fast path).
pub fn impact_with(
    zod: &Zod,
    gains: &ImpactGains,
    v_minus: &Vector3<f64>,
    touching: [bool; 2],
) -> Result<Impact, Error> {
    use PointMode::*;
    let u = zod.j * v_minus;
    let vel = u.amax().max(crate::numeric::SCALE_FLOOR);
    let imp = vel / zod.a.diagonal().amax().max(crate::numeric::SCALE_FLOOR);
    let m = zod.mass;
    let allowed = |i: usize, pm: PointMode| touching[i] || pm == F;
    // Candidates in P1's order of preference: tiers (active points, sticking points), best first;
    // the first tier with a consistent outcome decides (largest margin within the tier).
    let mut best: Option<(Mode, Vector4<f64>, Vector4<f64>, f64)> = None;
    let mut consistent_outcomes = 0;
    for tier in &gains.tiers {
        {
            for &mode in tier {
                let (a, b) = (mode.0, mode.1);
                if !allowed(0, a) || !allowed(1, b) {
                    continue;
                }
                let (lam, up, margin) = if mode == Mode(S, S) {
                    let (lam, t) = stick_family_exact(zod, &(m * v_minus), imp);
                    (lam, u + zod.a * lam, t)
                } else {
                    let Some(k) = gains.gains[mode_index(mode)] else { continue };
                    let lam = k * u;
                    let up = u + zod.a * lam;
                    let mut margin = f64::INFINITY;
                    for (i, pm) in [a, b].into_iter().enumerate() {
                        let (zi, xi) = (Z1 + i, X1 + i);
                        match pm {
                            F => {
                                if touching[i] {
                                    margin = margin.min(up[zi] / vel);
                                }
                            }
                            S => margin = margin.min(lam[zi] / imp).min((zod.mu[i] * lam[zi] - lam[xi].abs()) / imp),
                            P | N => margin = margin.min(lam[zi] / imp).min(slip_sign(pm) * up[xi] / vel),
                        }
                    }
                    (lam, up, margin)
                };
                if margin > -MARGIN_TOL {
                    consistent_outcomes += 1;
                    if best.as_ref().is_none_or(|b| margin > b.3) {
                        best = Some((mode, lam, up, margin));
                    }
                }
            }
        }
        if best.is_some() {
            break;
        }
    }
    let best = best.ok_or_else(|| {
        Error::Numerical(format!(
            "no consistent impact outcome for pre-impact contact velocities ({})",
            u.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
        ))
    })?;
    let (mode, lam, up, margin) = (best.0, best.1, best.2, best.3);
    let v_plus = v_minus + zod.minv * (zod.j.transpose() * lam);
    let ke = |v: &Vector3<f64>| 0.5 * v.dot(&(m * v));
    Ok(Impact {
        mode,
        impulses: lam.into(),
        u_plus: up.into(),
        v_plus: v_plus.into(),
        margin,
        consistent_outcomes,
        energy_loss: ke(v_minus) - ke(&v_plus),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper_configs::p1::config;

    fn zod(name: &str) -> Zod {
        Zod::new(&config(name).unwrap()).unwrap()
    }

    /// Body velocity with contact velocities (ż₁, ż₂, ẋ₂) = c.
    fn body_velocity(z: &Zod, c: [f64; 3]) -> Vector3<f64> {
        let t = nalgebra::Matrix3::from_rows(&[z.j.row(Z1), z.j.row(Z1 + 1), z.j.row(X1 + 1)]);
        t.try_inverse().unwrap() * Vector3::from_row_slice(&c)
    }

    #[test]
    fn impacts_are_inelastic_and_dissipative() {
        for name in ["A", "B", "D"] {
            let z = zod(name);
            for phi in [-1.4, -0.8, -0.2, 0.0, 0.3, 0.9, 1.45] {
                let v = body_velocity(&z, [0.0, -1.0, f64::tan(phi)]);
                let i = impact(&z, &v, [true, true]).unwrap();
                assert!(i.energy_loss >= -1e-12, "{name} φ = {phi}: ΔE = {}", i.energy_loss);
                // Active points end with zero normal velocity; passive ones separate.
                for (k, pm) in [i.mode.0, i.mode.1].into_iter().enumerate() {
                    if pm == PointMode::F {
                        assert!(i.u_plus[k] >= -1e-9);
                    } else {
                        assert!(i.u_plus[k].abs() < 1e-9, "{name} φ = {phi}: {:?}", i.u_plus);
                        assert!(i.impulses[k] >= -1e-12);
                    }
                }
            }
        }
    }

    #[test]
    fn flat_landing_double_impact_sticks() {
        // Both feet land together (pure downward translation), centre of mass between them, ample
        // friction: the preferred outcome is the double stick, which stops the body.
        let p = crate::twocontact::TwoContact { mu1: 5.0, mu2: 5.0, ..config("A").unwrap() };
        let z = Zod::new(&p).unwrap();
        let v = body_velocity(&z, [-1.0, -1.0, 0.0]);
        let i = impact(&z, &v, [true, true]).unwrap();
        assert_eq!(i.mode, Mode(PointMode::S, PointMode::S));
        assert!(i.v_plus.iter().all(|x| x.abs() < 1e-9));
        assert!(i.impulses[0] > 0.0 && i.impulses[1] > 0.0);
    }

    #[test]
    fn pivoting_landing_lifts_the_other_foot() {
        // Point 2 lands while the body pivots about point 1 (config A): stopping the body would
        // need a pulling impulse at point 1, so point 1 is passive and lifts off.
        let p = crate::twocontact::TwoContact { mu1: 5.0, mu2: 5.0, ..config("A").unwrap() };
        let z = Zod::new(&p).unwrap();
        let i = impact(&z, &body_velocity(&z, [0.0, -1.0, 0.0]), [true, true]).unwrap();
        assert_eq!(i.mode.0, PointMode::F);
        assert!(i.u_plus[0] > 0.0);
    }
}
