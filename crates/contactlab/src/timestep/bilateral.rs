//! Moreau–Jean time-stepping for systems with bilateral frictional sliders
//! ([`SliderSystem`], P5), whose normal forces depend on the motion and on the friction itself.
//!
//! One step of size `h` from `(q_k, v_k)`, with the friction forces `λ̄` constant over the step
//! (the impulse is `h λ̄`):
//!
//! ```text
//!   q_m = q_k + (h/2) v_k
//!   v_free = v_k + h M(q_m)⁻¹ h(q_m, v_k)
//!   v_{k+1} = v_free + h M⁻¹ W_T λ̄,   λ̄ ∈ −μ |n₀ + K λ̄| Sign(W_Tᵀ v_{k+1})
//!   q_{k+1} = q_m + (h/2) v_{k+1}
//! ```
//!
//! with `λ_N = n₀ + K λ̄` the normal forces at `(q_m, v_k)` with the accelerations eliminated
//! ([`SliderSystem::friction_map`]). Two routes solve the inclusion:
//!
//! * one degree of freedom ([`step`] for `N = 1`): every slider moves with `q̇`, so the step
//!   either sticks, when the generalized friction force that stops the motion,
//!   `f* = −M v_free / h`, lies in the image of the admissible set
//!   ([`crate::mechanics::sliders::FrictionMap::image`]), or slips in the direction of `v_free`
//!   (or against it) with the friction of that slip, found by enumerating the sign patterns of
//!   `λ_N`; no step is accepted whose end velocity contradicts the slip assumed;
//! * any number of degrees of freedom ([`step_lcp`]): for each sign pattern `s` of `λ_N` (the
//!   one of `n₀` first) Stewart and Trinkle's LCP with the friction bound `μ s (h n₀ + K P)`
//!   affine in the friction impulse `P = β⁺ − β⁻`, solved by the LCP core; the first solution
//!   whose normal impulses have the signs assumed is taken.
//!
//! Where no sign pattern is consistent (the Painlevé-like cases of sliders that jam) the step
//! returns `Err(Numerical)` saying so. A step that sticks sets the velocity to exactly zero (in
//! the LCP route: when every slider sticks to round-off and the sliders pin every coordinate), so
//! stick phases do not creep, and a step that starts and ends at rest stays at rest for ever
//! (the system is autonomous): [`settle`] stops there.

use nalgebra::{DMatrix, DVector, SMatrix, SVector};

use super::{march, Trajectory};
use crate::lcp::{self, Lcp, LcpSettings, LcpStatus};
use crate::mechanics::sliders::{in_image, SliderSystem};
use crate::Error;

/// A force (or a velocity) is zero when within `FORCE_ZERO` of its scale (round-off).
pub const FORCE_ZERO: f64 = 1e-12;
/// Tolerance of the impulse balance of a step, relative to `h` times the force scale.
pub const IMPULSE_TOL: f64 = 1e-9;
/// The sliders pin every coordinate when the Cholesky factor of `W Wᵀ` has no diagonal entry
/// below `PINNED_TOL` of `W`'s largest entry.
pub const PINNED_TOL: f64 = 1e-8;

fn not_definite(q: f64) -> Error {
    Error::Numerical(format!("mass matrix not positive definite at q = {q}"))
}

/// One step (module docs): the one-degree-of-freedom route for `N = 1`, [`step_lcp`] otherwise.
pub fn step<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    h: f64,
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
    if N != 1 {
        return step_lcp(sys, q, v, h);
    }
    let qm = q + v * (0.5 * h);
    let m = sys.inertia(&qm)[(0, 0)];
    if m.is_nan() || m <= 0.0 {
        return Err(not_definite(qm[0]));
    }
    let map = sys.friction_map(&qm, v).ok_or_else(|| not_definite(qm[0]))?;
    let v_free = v[0] + h * sys.forces(&qm, v)[0] / m;
    let w: SVector<f64, M> = sys.slip_jacobian(&qm).row(0).transpose();
    let f_star = -m * v_free / h;
    let tol = FORCE_ZERO * (sys.force_scale() + f_star.abs());
    let v1 = if f_star.abs() <= tol || in_image(&map.image(&w)?, f_star, tol) {
        0.0
    } else {
        let s0 = v_free.signum();
        let mut found = None;
        for sigma in [s0, -s0] {
            let d = w.map(|wi| if wi == 0.0 { 0.0 } else { sigma * wi.signum() });
            if let Some(lambda) = map.slip(&d) {
                let v1 = v_free + h * w.dot(&lambda) / m;
                if sigma * v1 > 0.0 {
                    found = Some(v1);
                    break;
                }
            }
        }
        found.ok_or_else(|| {
            Error::Numerical(format!(
                "no sign pattern of the normal forces is consistent with stick or slip at q = {} (the sliders jam)",
                qm[0]
            ))
        })?
    };
    let v1 = SVector::<f64, N>::repeat(v1);
    Ok((qm + v1 * (0.5 * h), v1))
}

/// One step by the LCP route for any number of degrees of freedom (module docs).
pub fn step_lcp<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    h: f64,
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
    let qm = q + v * (0.5 * h);
    let chol = sys.inertia(&qm).cholesky().ok_or_else(|| not_definite(qm[0]))?;
    let map = sys.friction_map(&qm, v).ok_or_else(|| not_definite(qm[0]))?;
    let v_free = v + chol.solve(&sys.forces(&qm, v)) * h;
    let w = sys.slip_jacobian(&qm);
    let b: SMatrix<f64, N, M> = chol.solve(&w);
    let g = w.transpose() * b;
    let gamma = w.transpose() * v_free;
    let tol = IMPULSE_TOL * h * sys.force_scale();
    let mut last_status = None;
    for s in map.patterns() {
        let mut a = DMatrix::zeros(3 * M, 3 * M);
        let mut qv = DVector::zeros(3 * M);
        for r in 0..M {
            qv[r] = gamma[r];
            qv[M + r] = -gamma[r];
            qv[2 * M + r] = h * map.mu[r] * s[r] * map.n0[r];
            for c in 0..M {
                a[(r, c)] = g[(r, c)];
                a[(r, M + c)] = -g[(r, c)];
                a[(M + r, c)] = -g[(r, c)];
                a[(M + r, M + c)] = g[(r, c)];
                let dk = map.mu[r] * s[r] * map.k[(r, c)];
                a[(2 * M + r, c)] = dk;
                a[(2 * M + r, M + c)] = -dk;
            }
            a[(r, 2 * M + r)] = 1.0;
            a[(M + r, 2 * M + r)] = 1.0;
            a[(2 * M + r, r)] -= 1.0;
            a[(2 * M + r, M + r)] -= 1.0;
        }
        let sol = lcp::solve(&Lcp::new(a, qv)?, &LcpSettings::default())?;
        if sol.status != LcpStatus::Solved {
            last_status = Some(sol.status);
            continue;
        }
        let p = SVector::<f64, M>::from_fn(|i, _| sol.z[i] - sol.z[M + i]);
        let pn = map.n0 * h + map.k * p;
        if (0..M).all(|i| s[i] * pn[i] >= -tol) {
            let mut v1 = v_free + b * p;
            // Every slider sticks (to round-off) and the sliders pin every coordinate: the
            // velocity is exactly zero, so that rest is rest (no creep of round-off size).
            let vtol = FORCE_ZERO * (v_free.amax() + v.amax());
            let all_stick = (w.transpose() * v1).iter().all(|g| g.abs() <= vtol);
            if all_stick
                && (w * w.transpose()).cholesky().is_some_and(|c| c.l().diagonal().min() > PINNED_TOL * w.amax())
            {
                v1 = SVector::zeros();
            }
            return Ok((qm + v1 * (0.5 * h), v1));
        }
    }
    Err(Error::Numerical(format!(
        "no sign pattern of the normal impulses is consistent at q = {:?}{}",
        qm.as_slice(),
        last_status.map(|s| format!(" (last LCP status {})", crate::output::kebab(&s))).unwrap_or_default()
    )))
}

/// Runs `steps` steps of size `h` from `(q₀, v₀)`, keeping every `every`-th state.
pub fn run<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    q0: &SVector<f64, N>,
    v0: &SVector<f64, N>,
    h: f64,
    steps: usize,
    every: usize,
) -> Result<Trajectory, Error> {
    march(|_, q, v| step(sys, q, v, h), 0.0, q0, v0, h, steps, every)
}

/// Where a run from `(q₀, v₀)` ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settled<const N: usize> {
    /// Final configuration.
    pub q: SVector<f64, N>,
    /// Final velocity (exactly zero when `at_rest`).
    pub v: SVector<f64, N>,
    /// Whether a step started and ended at rest (then the state is an equilibrium for ever).
    pub at_rest: bool,
    /// Steps taken.
    pub steps: usize,
}

/// Steps until a step starts and ends at rest, or `max_steps`.
pub fn settle<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    q0: &SVector<f64, N>,
    v0: &SVector<f64, N>,
    h: f64,
    max_steps: usize,
) -> Result<Settled<N>, Error> {
    let (mut q, mut v) = (*q0, *v0);
    for k in 1..=max_steps {
        let (q1, v1) = step(sys, &q, &v, h)?;
        let rest = v.iter().all(|x| *x == 0.0) && v1.iter().all(|x| *x == 0.0);
        (q, v) = (q1, v1);
        if rest {
            return Ok(Settled { q, v, at_rest: true, steps: k });
        }
    }
    Ok(Settled { q, v, at_rest: false, steps: max_steps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::sliders::{RodTwoSliders, SlidingBlock};
    use nalgebra::Vector1;

    #[test]
    fn the_two_routes_agree_on_the_rod() {
        let rod = RodTwoSliders::paper();
        let h = 1e-3;
        for (th, w) in [(0.2, 0.0), (1.0, 0.0), (2.0, -1.0), (-0.3, 4.0), (3.0, 0.5), (0.1, 0.001)] {
            let (mut qa, mut va) = (Vector1::new(th), Vector1::new(w));
            let (mut qb, mut vb) = (qa, va);
            for _ in 0..400 {
                (qa, va) = step(&rod, &qa, &va, h).unwrap();
                (qb, vb) = step_lcp(&rod, &qb, &vb, h).unwrap();
                assert!((qa[0] - qb[0]).abs() < 1e-10 && (va[0] - vb[0]).abs() < 1e-9, "{qa} {va} vs {qb} {vb}");
            }
        }
    }

    #[test]
    fn the_sliding_block_sticks_in_its_band_and_loses_two_bands_per_half_cycle() {
        let b = SlidingBlock { mass: 2.0, stiffness: 50.0, gravity: 9.81, mu: 0.3 };
        let d = b.band();
        let x0 = 5.3 * d;
        let osc = b.on_floor();
        let h = osc.half_period() / 4000.0;
        let end = settle(&b, &Vector1::new(x0), &Vector1::zeros(), h, 100_000).unwrap();
        assert!(end.at_rest);
        // Closed form: 5.3δ → −3.3δ → 1.3δ → 0.7δ (inside the band, |x| ≤ δ).
        assert!((end.q[0] - 0.7 * d).abs() < 2e-3 * d, "{} vs {}", end.q[0], 0.7 * d);
        let t = end.steps as f64 * h;
        assert!((t - 3.0 * osc.half_period()).abs() < 3.0 * h, "{t}");
    }
}
