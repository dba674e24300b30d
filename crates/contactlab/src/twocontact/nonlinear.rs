//! The full nonlinear model (P1, eqs. 1–2 and 15) with the same contact and impact laws, to
//! compare with the zero-order dynamics.
//!
//! The state is the body's `s = (x, z, θ)` and `ṡ`. At every instant the contact-space
//! description `J(s)`, `A(s)`, `a₀(s, ṡ)` ([`Zod::at_state`], velocity-product terms included)
//! feeds the same mode and impact machinery as the ZOD. Within a mode the motion is integrated
//! by the classical fourth-order Runge–Kutta method with a step of `step_fraction` times the
//! phase's time scale `|ṡ|/|s̈|`; events are sign changes, between steps, of
//! * the gap of a free point (impact),
//! * the slip velocity of a slipping point (stick or reversal),
//! * the normal force of a sustained point (lift-off),
//! * the friction margin `μfᶻ − |fˣ|` of a sticking point (onset of slip),
//!
//! located by bisection of the step. Sustained contacts are projected back onto `zᵢ = żᵢ = 0`
//! after every step (Newton on the gap, then the normal velocity), so they stay closed.
//!
//! No ODE crate is used: the model is a 6-dimensional non-stiff system with state-dependent
//! mode switching, which needs event functions that depend on the constraint forces of the
//! current mode; a fixed-form RK4 with bisection keeps that logic explicit (the crate
//! evaluation is in the commit that added this module).

use nalgebra::{Vector3, Vector4};

use super::impact::impact;
use super::modes::{consistent_modes, solve_equalities, Mode, PointMode, PointState};
use super::sim::{EventKind, Outcome};
use super::zod::{Zod, X1, Z1};
use super::TwoContact;
use crate::Error;

/// A crossing of P1's section in the nonlinear model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    /// Time.
    pub t: f64,
    /// Pre-impact `(ż₁, ż₂, ẋ₂)`.
    pub qd: [f64; 3],
}

/// Settings of the nonlinear simulation.
#[derive(Debug, Clone, Copy)]
pub struct NonlinearSettings {
    /// RK4 step as a fraction of the phase time scale.
    pub step_fraction: f64,
    /// Stop after this many events.
    pub max_events: usize,
    /// Stop after this many steps.
    pub max_steps: usize,
}

impl Default for NonlinearSettings {
    fn default() -> Self {
        Self { step_fraction: 2e-3, max_events: 400, max_steps: 2_000_000 }
    }
}

/// A nonlinear run: how it ended, its events and its section crossings.
#[derive(Debug, Clone)]
pub struct NonlinearRun {
    /// How it ended.
    pub outcome: Outcome,
    /// `(t, kind, point)` of every event.
    pub events: Vec<(f64, EventKind, Option<usize>)>,
    /// Section crossings (point 2 lands while point 1 is in sustained contact).
    pub crossings: Vec<Crossing>,
    /// Time history `(t, z₁, z₂, x₁, x₂)` at every accepted step.
    pub samples: Vec<[f64; 5]>,
}

struct Model<'a> {
    p: &'a TwoContact,
}

impl Model<'_> {
    fn snap(&self, s: &Vector3<f64>, v: &Vector3<f64>) -> Result<Zod, Error> {
        Zod::at_state(self.p, s, v)
    }

    fn gaps(&self, s: &Vector3<f64>) -> [f64; 2] {
        let b = self.p.body();
        [b.gap_slip(0, s).0, b.gap_slip(1, s).0]
    }

    /// Forces and body acceleration in `mode` at `(s, ṡ)`.
    fn accel(&self, mode: Mode, s: &Vector3<f64>, v: &Vector3<f64>) -> Option<(Vector4<f64>, Vector3<f64>)> {
        let z = self.snap(s, v).ok()?;
        let (f, _) = solve_equalities(&z, mode, &z.a0)?;
        Some((f, z.body_accel(&f, &z.applied)))
    }

    /// Event functions of `mode` (positive while the mode lasts).
    fn events(&self, mode: Mode, s: &Vector3<f64>, v: &Vector3<f64>, slip_sign: [f64; 2]) -> [f64; 2] {
        let gaps = self.gaps(s);
        let z = self.snap(s, v);
        let f = self.accel(mode, s, v).map(|x| x.0);
        let mut out = [f64::INFINITY; 2];
        for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
            out[i] = match (pm, &z, &f) {
                (PointMode::F, _, _) => gaps[i],
                (PointMode::P | PointMode::N, Ok(z), Some(f)) => {
                    let xd = (z.j.row(X1 + i) * v)[0];
                    (slip_sign[i] * xd).min(f[Z1 + i])
                }
                (PointMode::S, Ok(z), Some(f)) => f[Z1 + i].min(z.mu[i] * f[Z1 + i] - f[X1 + i].abs()),
                _ => f64::NAN,
            };
        }
        out
    }

    fn rk4(&self, mode: Mode, s: &Vector3<f64>, v: &Vector3<f64>, h: f64) -> Option<(Vector3<f64>, Vector3<f64>)> {
        let a1 = self.accel(mode, s, v)?.1;
        let (s2, v2) = (s + v * (h / 2.0), v + a1 * (h / 2.0));
        let a2 = self.accel(mode, &s2, &v2)?.1;
        let (s3, v3) = (s + v2 * (h / 2.0), v + a2 * (h / 2.0));
        let a3 = self.accel(mode, &s3, &v3)?.1;
        let (s4, v4) = (s + v3 * h, v + a3 * h);
        let a4 = self.accel(mode, &s4, &v4)?.1;
        Some((s + (v + v2 * 2.0 + v3 * 2.0 + v4) * (h / 6.0), v + (a1 + a2 * 2.0 + a3 * 2.0 + a4) * (h / 6.0)))
    }

    /// Puts sustained contacts back on `z = ż = 0` (Newton on the gaps, then the velocities).
    fn project(&self, s: &mut Vector3<f64>, v: &mut Vector3<f64>, sustained: [bool; 2]) {
        let body = self.p.body();
        let idx: Vec<usize> = (0..2).filter(|&i| sustained[i]).collect();
        if idx.is_empty() {
            return;
        }
        let m = body.mass_matrix();
        let minv = m.try_inverse().unwrap_or_else(nalgebra::Matrix3::identity);
        for _ in 0..3 {
            let rows: Vec<Vector3<f64>> = idx.iter().map(|&i| body.jacobian(i, s).0).collect();
            let g: Vec<f64> = idx.iter().map(|&i| body.gap_slip(i, s).0).collect();
            *s -= correction(&rows, &g, &minv);
        }
        let rows: Vec<Vector3<f64>> = idx.iter().map(|&i| body.jacobian(i, s).0).collect();
        let g: Vec<f64> = rows.iter().map(|r| r.dot(v)).collect();
        *v -= correction(&rows, &g, &minv);
    }
}

/// Mass-weighted minimum-norm `d` with `rowsᵢ·d = gᵢ`.
fn correction(rows: &[Vector3<f64>], g: &[f64], minv: &nalgebra::Matrix3<f64>) -> Vector3<f64> {
    let k = rows.len();
    let mut a = nalgebra::DMatrix::zeros(k, k);
    for i in 0..k {
        for j in 0..k {
            a[(i, j)] = rows[i].dot(&(minv * rows[j]));
        }
    }
    let lam = a.lu().solve(&nalgebra::DVector::from_column_slice(g)).unwrap_or_else(|| nalgebra::DVector::zeros(k));
    let mut d = Vector3::zeros();
    for i in 0..k {
        d += minv * rows[i] * lam[i];
    }
    d
}

/// Simulates the nonlinear model from `(s, ṡ)` with the given sustained contacts, stopping after
/// `max_crossings` section crossings (the initial impact counts when it is one).
pub fn simulate(
    p: &TwoContact,
    s0: Vector3<f64>,
    v0: Vector3<f64>,
    mut sustained: [bool; 2],
    max_crossings: usize,
    settings: &NonlinearSettings,
) -> Result<NonlinearRun, Error> {
    let model = Model { p };
    let (mut s, mut v) = (s0, v0);
    let mut t = 0.0;
    let mut events = Vec::new();
    let mut crossings = Vec::new();
    let mut steps = 0usize;
    // Velocity scale of the perturbation: the initial speed, or the speed the initial gaps
    // produce under the force-free accelerations.
    let gap0 = model.gaps(&s0).iter().fold(0.0f64, |a, g| a.max(*g));
    let a_free = Zod::at_state(p, &s0, &v0)?.a0.amax();
    let vscale = v0.amax().max((2.0 * a_free * gap0).sqrt()).max(1e-300);
    let mut samples: Vec<[f64; 5]> = Vec::new();
    let body = p.body();
    let record = |samples: &mut Vec<[f64; 5]>, t: f64, s: &Vector3<f64>| {
        let (z1, x1) = body.gap_slip(0, s);
        let (z2, x2) = body.gap_slip(1, s);
        samples.push([t, z1, z2, x1, x2]);
    };
    record(&mut samples, 0.0, &s);
    macro_rules! finish {
        ($outcome:expr) => {
            return Ok(NonlinearRun { outcome: $outcome, events, crossings, samples })
        };
    }
    loop {
        if events.len() >= settings.max_events || steps >= settings.max_steps {
            finish!(Outcome::Limit);
        }
        model.project(&mut s, &mut v, sustained);
        let z = model.snap(&s, &v)?;
        let u = z.j * v;
        let gaps = model.gaps(&s);
        let vtol = 1e-9 * vscale;
        // Length scale of the motion: gaps below a tiny fraction of it count as contact.
        let gtol = 1e-9 * vscale * vscale / a_free.max(1e-300);
        // A free point on (or, by round-off, just past) its support with no normal speed is a
        // sustained-contact candidate: the modes decide whether it lifts off (grazing landing).
        for i in 0..2 {
            if !sustained[i] && gaps[i] <= gtol && u[Z1 + i].abs() <= vtol {
                sustained[i] = true;
            }
        }
        if sustained.iter().any(|&x| x) {
            model.project(&mut s, &mut v, sustained);
        }
        let z = model.snap(&s, &v)?;
        let u = z.j * v;
        // Impacts.
        for i in 0..2 {
            if !sustained[i] && gaps[i] <= gtol && u[Z1 + i] < -vtol {
                let was = sustained;
                let touching = [sustained[0] || gaps[0] <= gtol, sustained[1] || gaps[1] <= gtol];
                if i == 1 && was[0] {
                    crossings.push(Crossing { t, qd: [u[Z1], u[Z1 + 1], u[X1 + 1]] });
                    if crossings.len() >= max_crossings {
                        finish!(Outcome::Limit);
                    }
                }
                let imp = match impact(&z, &v, touching) {
                    Ok(x) => x,
                    Err(_) => finish!(Outcome::ImpactFailure),
                };
                v = Vector3::from_row_slice(&imp.v_plus);
                for (k, pm) in [imp.mode.0, imp.mode.1].into_iter().enumerate() {
                    if touching[k] {
                        sustained[k] = pm != PointMode::F || imp.u_plus[k] <= 1e-9 * vscale;
                    }
                }
                events.push((t, EventKind::Impact, Some(i)));
            }
        }
        model.project(&mut s, &mut v, sustained);
        let z = model.snap(&s, &v)?;
        let u = z.j * v;
        let ps: [PointState; 2] = std::array::from_fn(|i| {
            if !sustained[i] {
                PointState::Separated
            } else if u[X1 + i].abs() <= vtol {
                PointState::Rest
            } else {
                PointState::Slip(if u[X1 + i] > 0.0 { 1 } else { -1 })
            }
        });
        let (sols, _) = consistent_modes(&z, ps);
        if sols.len() != 1 {
            finish!(Outcome::Painleve);
        }
        let mode = sols[0].mode;
        if mode == Mode(PointMode::S, PointMode::S) {
            finish!(Outcome::Rest);
        }
        for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
            sustained[i] = pm != PointMode::F;
        }
        let slip_sign = [u[X1].signum(), u[X1 + 1].signum()];
        // Integrate the mode until an event function changes sign.
        let mut ev0 = model.events(mode, &s, &v, slip_sign);
        // A point just lifting off starts at a zero gap: watch it only once it is open.
        let mut armed = [ev0[0] > 0.0, ev0[1] > 0.0];
        for (k, pm) in [mode.0, mode.1].into_iter().enumerate() {
            // A free point that starts on its support is watched once it has risen, unless it is
            // already moving into the support.
            let lifting = u[Z1 + k] > vtol || (u[Z1 + k] >= -vtol && sols[0].accel[Z1 + k] > 0.0);
            if pm == PointMode::F && !armed[k] && !lifting {
                armed[k] = true;
            }
        }
        loop {
            steps += 1;
            if steps >= settings.max_steps {
                finish!(Outcome::Limit);
            }
            let Some((_, acc)) = model.accel(mode, &s, &v) else {
                finish!(Outcome::Painleve);
            };
            let tau = (v.amax() / acc.amax().max(1e-300)).max(1e-12 * vscale / acc.amax().max(1e-300));
            let mut h = settings.step_fraction * tau.min(1e3);
            // A free point must not tunnel through its support within one step: keep the step
            // below a quarter of its predicted landing time (or of its rise to the apex).
            if let Ok(zs) = model.snap(&s, &v) {
                let uu = zs.j * v;
                let zdd = zs.j * acc + (zs.a0 - zs.j * (zs.minv * zs.applied));
                let gg = model.gaps(&s);
                for (k, pm) in [mode.0, mode.1].into_iter().enumerate() {
                    if pm == PointMode::F {
                        let (g0, w, a) = (gg[k].max(0.0), uu[Z1 + k], zdd[Z1 + k]);
                        if let Some(tl) = crate::twocontact::sim::landing_time(g0, w, a) {
                            h = h.min(0.25 * tl.max(1e-12 * tau));
                        }
                        if w > 0.0 && a < 0.0 {
                            h = h.min(0.25 * (w / -a).max(1e-12 * tau));
                        }
                    }
                }
            }
            let Some((s1, v1)) = model.rk4(mode, &s, &v, h) else {
                finish!(Outcome::Painleve);
            };
            let ev1 = model.events(mode, &s1, &v1, slip_sign);
            let crossed: Vec<usize> = (0..2).filter(|&k| armed[k] && ev1[k] < 0.0).collect();
            if crossed.is_empty() {
                s = s1;
                v = v1;
                t += h;
                record(&mut samples, t, &s);
                for k in 0..2 {
                    armed[k] |= ev1[k] > 0.0;
                }
                ev0 = ev1;
                let _ = ev0;
                if v.amax() > 1e8 * vscale {
                    finish!(Outcome::Diverged);
                }
                continue;
            }
            // Bisection of the step for the earliest crossing.
            let (mut lo, mut hi) = (0.0, h);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                let (sm, vm) = model.rk4(mode, &s, &v, mid).unwrap_or((s, v));
                let e = model.events(mode, &sm, &vm, slip_sign);
                if crossed.iter().any(|&k| e[k] < 0.0) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            let (sh, vh) = model.rk4(mode, &s, &v, hi).unwrap_or((s, v));
            s = sh;
            v = vh;
            t += hi;
            record(&mut samples, t, &s);
            let k = crossed[0];
            let kind = if [mode.0, mode.1][k] == PointMode::F { EventKind::Impact } else { EventKind::SlipStop };
            if kind == EventKind::SlipStop {
                events.push((t, kind, Some(k)));
            }
            // Landing: the gap is zero and the impact is applied at the top of the loop; a lift-off
            // (normal force reaching zero) frees the point.
            if [mode.0, mode.1][k] != PointMode::F {
                let z = model.snap(&s, &v)?;
                if let Some(f) = solve_equalities(&z, mode, &z.a0).map(|x| x.0) {
                    if f[Z1 + k] <= 0.0 {
                        sustained[k] = false;
                    }
                }
            }
            break;
        }
    }
}

/// `R(φ)` and `G(φ)` of the nonlinear model at perturbation size `delta` (the speed of the
/// landing at the section), for comparison with the ZOD maps.
pub fn return_map(p: &TwoContact, phi: f64, delta: f64) -> Result<Option<(f64, f64)>, Error> {
    // Body velocity with (ż₁, ż₂, ẋ₂) = δ (0, −1, tan φ) at the equilibrium configuration.
    let z = Zod::new(p)?;
    let t = nalgebra::Matrix3::from_rows(&[z.j.row(Z1), z.j.row(Z1 + 1), z.j.row(X1 + 1)]);
    let tinv = t.try_inverse().ok_or_else(|| Error::Unsupported("singular geometry".into()))?;
    let v0 = tinv * Vector3::new(0.0, -delta, delta * phi.tan());
    let run = simulate(p, Vector3::zeros(), v0, [true, false], 2, &NonlinearSettings::default())?;
    Ok(run.crossings.get(1).map(|c| ((c.qd[2] / c.qd[1].abs()).atan(), c.qd[1].abs() / delta)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::p1::config;
    use crate::twocontact::poincare;
    use crate::twocontact::sim::Simulator;

    #[test]
    fn nonlinear_maps_converge_to_zod_maps() {
        // ZOD against the full model for perturbations of size δ → 0: R and G agree, with an
        // error that shrinks with δ.
        for name in ["A", "D"] {
            let p = config(name).unwrap();
            let sim = Simulator::new(Zod::new(&p).unwrap()).unwrap();
            for phi in [-0.6, 0.2, 0.9] {
                let zod = poincare::return_map(&sim, phi).unwrap();
                let (Some(r0), Some(g0)) = (zod.r, zod.g) else { continue };
                let mut errs = Vec::new();
                for delta in [1e-2, 1e-3, 1e-4] {
                    let (r, g) = return_map(&p, phi, delta).unwrap().expect("the nonlinear motion returns");
                    errs.push((r - r0).abs().max((g - g0).abs() / g0));
                }
                // At least first order in δ (observed: second order, as the neglected rotation
                // terms are O(θ) = O(δ²)), or exact to round-off.
                assert!(errs[2] < 1e-4, "{name} φ = {phi}: errors {errs:?}");
                for w in errs.windows(2) {
                    assert!(w[1] <= 0.2 * w[0] + 1e-12, "{name} φ = {phi}: errors do not shrink with δ: {errs:?}");
                }
            }
        }
    }
}
