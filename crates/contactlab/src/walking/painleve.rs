//! Where Painlevé's paradox can occur: the sign of `B(q, μ)` (P2, eqs. 21 and 32–34).
//!
//! `B = w_nᵀM⁻¹w_n − σμ w_nᵀM⁻¹w_t = d(q) − σμ c(q)` is affine in `μ`, so `B < 0` somewhere in a
//! set of configurations exactly when `μ > μ_min = min { d/(σc) : σc > 0 }` over that set. For
//! the rimless wheel this is P2's closed form `2√(κ + κ²)` (eq. 33, over all `θ`); for the compass
//! biped P2 calls a closed form an open problem and finds `μ_min ≈ 0.5533` numerically, as
//! [`mu_min`] does: the minimum over a grid, refined by a pattern search.

use nalgebra::DVector;
use serde::Serialize;

use super::model::WalkerModel;
use super::{MultibodyWalker, WalkerChart};
use crate::mechanics::walkers::{CompassBiped, RimlessWheel};
use crate::mechanics::ContactSystem;
use crate::numeric::maximize_on_box;

/// `d(q) = w_nᵀM⁻¹w_n` and `c(q) = w_nᵀM⁻¹w_t` at the stance contact (contact 0), for any
/// system.
pub fn d_and_c<S: ContactSystem>(w: &S, q: &DVector<f64>) -> (f64, f64) {
    crate::multibody::painleve::contact_dc(w, q, 0, &[])
}

/// `B(q, μ)` for slip direction `sigma`, with the walker's `μ` replaced by `mu`.
pub fn b_at<W: WalkerChart>(w: &W, angles: &[f64], mu: f64, sigma: f64) -> f64 {
    let (d, c) = d_and_c(w, &w.configuration(angles));
    d - sigma * mu * c
}

/// The smallest friction coefficient for which `B < 0` somewhere in the box of angles
/// `[lo, hi]` (per angle), with the configuration where it is attained; `None` if `σc ≤ 0`
/// everywhere (no `μ` makes `B` negative).
#[derive(Debug, Clone, Serialize)]
pub struct WalkerMuMin {
    /// `μ_min`.
    pub mu_min: f64,
    /// The angles where `d/(σc)` is smallest.
    pub at: Vec<f64>,
}

/// [`WalkerMuMin`] by a grid of `n` points per angle and a pattern search from the best point
/// ([`maximize_on_box`] on `−d/(σc)`).
pub fn mu_min<W: WalkerChart>(w: &W, sigma: f64, lo: f64, hi: f64, n: usize) -> Option<WalkerMuMin> {
    let k = w.angle_count();
    let ratio = |a: &[f64]| {
        let (d, c) = d_and_c(w, &w.configuration(a));
        if sigma * c > 0.0 {
            d / (sigma * c)
        } else {
            f64::INFINITY
        }
    };
    let (v, a) = maximize_on_box(&|a| -ratio(a), &vec![lo; k], &vec![hi; k], n, 1)?;
    Some(WalkerMuMin { mu_min: -v, at: a })
}

/// The least `d/|c|` at the stance contact along one step of the walker's motion from the
/// post-impact section point `y` to its next heel strike: `B = d − μ|c|` (the worse slip
/// direction) becomes negative somewhere on that step exactly when `μ` exceeds it. For a gait
/// whose stance foot sticks the motion does not depend on `μ`, so this is the friction above
/// which Painlevé's paradox is possible on the gait (P2's `μ_min` restricted to its orbit).
/// Sampled on the dense output (8 points an integration step), the best step refined between
/// its samples ([`crate::hybrid::ode::Peak`]); `None` if the stance contact never closes or `c` stays 0.
pub fn mu_min_along_step<W: WalkerChart>(
    w: &W,
    y: &nalgebra::DVector<f64>,
    settings: &super::WalkerSettings,
) -> Option<f64> {
    use crate::hybrid::driver::EventRecord;
    use crate::hybrid::lagrangian::{Lagrangian, Modes};
    use crate::hybrid::{EventKind, Observer, Peak, Step};
    use std::ops::ControlFlow;
    type State = nalgebra::DMatrix<f64>;
    /// `−d/|c|` while the stance contact (0) is closed.
    fn neg_ratio<W: ContactSystem>(w: &W, m: &Modes, x: &State) -> f64 {
        if !m.get(0).closed() {
            return f64::NEG_INFINITY;
        }
        let (d, c) = d_and_c(w, &x.column(0).into_owned());
        -d / c.abs()
    }
    struct Least<'a, W> {
        w: &'a W,
        peak: Peak<State, Modes>,
    }
    impl<W: ContactSystem> Observer<State, Modes> for Least<'_, W> {
        fn on_step(&mut self, step: &Step<State>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
            let w = self.w;
            self.peak.offer(step, t_end, mode, |m, _, x| neg_ratio(w, m, x));
            ControlFlow::Continue(())
        }
        fn on_event(&mut self, ev: &EventRecord<State, Modes>) -> ControlFlow<()> {
            if ev.info.kind == EventKind::Impact && ev.info.contact == Some(1) {
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut obs = Least { w, peak: Peak::new(8) };
    settings.driver(settings.max_step_time * w.time_scale()).run(&Lagrangian::new(w), 0.0, w.lift(y), &[], &mut obs);
    obs.peak.value(|m, _, x| neg_ratio(w, m, x)).filter(|v| v.is_finite()).map(|v| -v)
}

/// The intervals of `θ` in `[lo, hi]` where `B(θ, μ) < 0` for a one-angle walker (the rimless
/// wheel: P2 eq. 34), from a scan of `n` points with each sign change refined by bisection.
pub fn b_negative_intervals<W: WalkerChart>(w: &W, mu: f64, sigma: f64, lo: f64, hi: f64, n: usize) -> Vec<[f64; 2]> {
    crate::numeric::negative_intervals(&|t| b_at(w, &[t], mu, sigma), lo, hi, n)
}

/// The sign of `B` on a grid of two angles (the compass biped's `(θ₁, θ₂)`): `true` where
/// `B < 0`. Rows are the second angle.
pub fn b_negative_grid<W: WalkerChart>(w: &W, mu: f64, sigma: f64, lo: f64, hi: f64, n: usize) -> Vec<Vec<bool>> {
    let at = |k: usize| lo + (hi - lo) * k as f64 / (n - 1) as f64;
    (0..n).map(|j| (0..n).map(|i| b_at(w, &[at(i), at(j)], mu, sigma) < 0.0).collect()).collect()
}

/// The compass biped's `μ_min` (σ = `sigma`, angles in `[−1.5, 1.5]`) when its legs have radius
/// of gyration `ρ = √(I_c/m)` (P2 Fig. 4.2f), on its multibody model.
pub fn compass_mu_min(c: &CompassBiped, rho: f64, sigma: f64) -> Result<Option<f64>, crate::Error> {
    let cc = CompassBiped { inertia: c.mass * rho * rho, ..*c };
    let w = MultibodyWalker::new(&WalkerModel::Compass(cc))?;
    Ok(mu_min(&w, sigma, -1.5, 1.5, 61).map(|m| m.mu_min))
}

/// The radius of gyration `ρ` at which the compass biped's region `B < 0` vanishes for friction
/// `mu` (P2: `ρ ≈ 0.4617` at `μ = 0.8`), by bisection on `μ_min(ρ) = mu` over `[0, 10 l]`;
/// `None` when there is no such region even at `ρ = 0`.
pub fn compass_rho_max(c: &CompassBiped, mu: f64, sigma: f64) -> Result<Option<f64>, crate::Error> {
    // (A model that cannot be built at some ρ is reported once, from ρ = 0 or 10 l: the
    // parameters checked there are those at every ρ in between.)
    let below = |rho: f64| Ok::<_, crate::Error>(compass_mu_min(c, rho, sigma)?.is_some_and(|m| m < mu));
    if !below(0.0)? {
        return Ok(None);
    }
    let (lo, hi) = (0.0, 10.0 * c.l);
    if below(hi)? {
        return Ok(Some(hi));
    }
    // 50 halvings of [0, 10 l].
    Ok(Some(
        crate::numeric::bisect(lo, hi, crate::numeric::Tol::abs(hi * 2f64.powi(-50)), |m| {
            crate::numeric::side_if(!below(m).unwrap_or(false))
        })
        .lo,
    ))
}

/// The case of P2's Table 2.1 (`slip_case` of `A` and `B`) of the rimless wheel with slip
/// direction `sigma`, on an `n × n` grid of `θ` over the stance range and `θ̇` in `[0, 2/τ_c]`,
/// as CSV `theta,theta_dot_tau_c,case`.
pub fn rimless_cases_csv(w: &RimlessWheel, sigma: f64, n: usize) -> Result<String, crate::Error> {
    let sys = MultibodyWalker::new(&WalkerModel::Rimless(*w))?;
    let rate_max = 2.0 / w.tau_c();
    let mut csv = String::from("theta,theta_dot_tau_c,case\n");
    for j in 0..n {
        for i in 0..n {
            let th = -w.half_angle() + 2.0 * w.half_angle() * i as f64 / (n - 1) as f64;
            let rate = rate_max * j as f64 / (n - 1) as f64;
            let (q, v) = sys.system_state(&[0.0, 0.0, th], &[sigma, 0.0, rate]);
            let (a, b) = super::ab(&sys, &q, &v, sigma);
            csv.push_str(&format!("{th},{},{}\n", rate * w.tau_c(), crate::output::kebab(&super::slip_case(a, b))));
        }
    }
    Ok(csv)
}
