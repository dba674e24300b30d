//! Moreau–Jean time-stepping for any [`ContactSystem`]: the second route to the motion, beside
//! the event-driven hybrid core (it needs no event location, no mode choice and no Zeno
//! completion, and converges at first order). [`bilateral`] is the same scheme for systems with
//! bilateral frictional sliders (P5), and [`compare_with_event_driven`] measures the distance
//! between the two routes (P1's configurations A and D converge at first order).
//!
//! One step of size `h` from `(q_k, v_k)`:
//!
//! ```text
//!   q_m = q_k + (h/2) v_k                                     (midpoint)
//!   v_free = v_k + h M(q_m)⁻¹ h(t_k + h/2, q_m, v_k)          (no contact impulses)
//!   v_{k+1} = v_free + M⁻¹ (W_n P_n + W_t P_t)                (contact impulses)
//!   q_{k+1} = q_m + (h/2) v_{k+1}
//! ```
//!
//! The contacts that, moving freely, would be closed by the end of the step take part (midpoint
//! gap plus half a step at the free normal velocity not positive), with Newton's law and
//! Coulomb's friction at the impulse level: `0 ≤ P_n ⟂ u_n⁺ + e u_n⁻ ≥ 0` and
//! `P_t ∈ −μ P_n sgn(u_t⁺)`. With the friction force split as `P_t = β⁺ − β⁻` and the sliding
//! speed `λ` this is Stewart and Trinkle's LCP in `(P_n, β⁺, β⁻, λ)`:
//!
//! ```text
//!   w_n  = u_n^free + e u_n⁻ + G_nn P_n + G_nt (β⁺ − β⁻)          ⟂ P_n
//!   w_β⁺ = λ + u_t^free + G_tn P_n + G_tt (β⁺ − β⁻)                ⟂ β⁺
//!   w_β⁻ = λ − u_t^free − G_tn P_n − G_tt (β⁺ − β⁻)                ⟂ β⁻
//!   w_λ  = μ P_n − β⁺ − β⁻                                        ⟂ λ
//! ```
//!
//! (`G = W M⁻¹ Wᵀ` the Delassus blocks), solved by the LCP core ([`crate::lcp::solve`]: Lemke's
//! method with its certified fallback), warm-started along a run from the previous step's active
//! set ([`crate::lcp::warm`]). A sticking contact gets `u_t⁺ = 0` exactly: stick phases
//! do not creep.
//!
//! Accuracy: second order within a smooth phase (the midpoint rule), first order through
//! non-smooth events (a slip reversal, a stick, an impact): the step that straddles an event
//! leaves an error proportional to `h` times the part of the step after the event, so the
//! observed constant depends on where events fall in the step grid (tests keep it fixed).

pub mod bilateral;

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector, OVector};
use serde::Serialize;

use crate::hybrid::driver::Observer;
use crate::hybrid::lagrangian::Lagrangian;
use crate::hybrid::{DriverSettings, EventDriver, Step, Termination, Tolerances};
use crate::lcp::warm::{solve_warm, WarmStart};
use crate::lcp::{Lcp, LcpSettings, LcpStatus};
use crate::mechanics::ContactSystem;
use crate::Error;

/// The result of a time-stepping run.
#[derive(Debug, Clone, Serialize)]
pub struct Trajectory {
    /// Times `t_k`.
    pub t: Vec<f64>,
    /// Positions `q_k`.
    pub q: Vec<Vec<f64>>,
    /// Velocities `v_k`.
    pub v: Vec<Vec<f64>>,
}

/// One Moreau–Jean step (module docs); `Err(Numerical)` when the contact LCP is not solved.
pub fn step<S: ContactSystem>(
    sys: &S,
    t: f64,
    q: &DVector<f64>,
    v: &DVector<f64>,
    h: f64,
) -> Result<(DVector<f64>, DVector<f64>), Error> {
    step_warm(sys, t, q, v, h, &mut WarmStart::new())
}

/// [`step`] with the contact LCP solved through `warm`: the active set of the previous step's
/// LCP is tried first ([`crate::lcp::warm`]; same check, same status).
pub fn step_warm<S: ContactSystem>(
    sys: &S,
    t: f64,
    q: &DVector<f64>,
    v: &DVector<f64>,
    h: f64,
    warm: &mut WarmStart,
) -> Result<(DVector<f64>, DVector<f64>), Error> {
    let qm = q + v * (0.5 * h);
    let chol = sys
        .mass_matrix(&qm)
        .cholesky()
        .ok_or_else(|| Error::Numerical(format!("mass matrix not positive definite at t = {t}")))?;
    let v_free = v + chol.solve(&sys.bias(t + 0.5 * h, &qm, v)) * h;
    // A contact takes part when, moving freely, it would be closed by the end of the step (the
    // midpoint gap plus half a step at the free normal velocity): a resting contact whose gap
    // rounds to +1e-17 must not fall freely for a step.
    let active: Vec<usize> = (0..sys.contact_count())
        .filter(|&i| sys.gap(i, &qm) + 0.5 * h * sys.normal_jacobian(i, &qm).dot(&v_free).min(0.0) <= 0.0)
        .collect();
    if active.is_empty() {
        return Ok((qm + &v_free * (0.5 * h), v_free));
    }
    let k = active.len();
    let wn: Vec<DVector<f64>> = active.iter().map(|&i| sys.normal_jacobian(i, &qm)).collect();
    let wt: Vec<DVector<f64>> = active.iter().map(|&i| sys.tangent_jacobian(i, &qm)).collect();
    let bn: Vec<DVector<f64>> = wn.iter().map(|w| chol.solve(w)).collect();
    let bt: Vec<DVector<f64>> = wt.iter().map(|w| chol.solve(w)).collect();
    let mut m = DMatrix::zeros(4 * k, 4 * k);
    let mut qv = DVector::zeros(4 * k);
    for r in 0..k {
        let law = sys.law(active[r]);
        let un_minus = wn[r].dot(v);
        let e = if un_minus < 0.0 { law.restitution } else { 0.0 };
        qv[r] = wn[r].dot(&v_free) + e * un_minus;
        qv[k + r] = wt[r].dot(&v_free);
        qv[2 * k + r] = -wt[r].dot(&v_free);
        for c in 0..k {
            let (gnn, gnt) = (wn[r].dot(&bn[c]), wn[r].dot(&bt[c]));
            let (gtn, gtt) = (wt[r].dot(&bn[c]), wt[r].dot(&bt[c]));
            m[(r, c)] = gnn;
            m[(r, k + c)] = gnt;
            m[(r, 2 * k + c)] = -gnt;
            m[(k + r, c)] = gtn;
            m[(k + r, k + c)] = gtt;
            m[(k + r, 2 * k + c)] = -gtt;
            m[(2 * k + r, c)] = -gtn;
            m[(2 * k + r, k + c)] = -gtt;
            m[(2 * k + r, 2 * k + c)] = gtt;
        }
        m[(k + r, 3 * k + r)] = 1.0;
        m[(2 * k + r, 3 * k + r)] = 1.0;
        m[(3 * k + r, r)] = law.mu;
        m[(3 * k + r, k + r)] = -1.0;
        m[(3 * k + r, 2 * k + r)] = -1.0;
    }
    let sol = solve_warm(&Lcp::new(m, qv)?, &LcpSettings::default(), warm)?;
    if sol.status != LcpStatus::Solved {
        return Err(Error::Numerical(format!(
            "contact LCP at t = {t} ended with status {}",
            crate::output::kebab(&sol.status)
        )));
    }
    let mut v1 = v_free;
    for r in 0..k {
        v1.axpy(sol.z[r], &bn[r], 1.0);
        v1.axpy(sol.z[k + r] - sol.z[2 * k + r], &bt[r], 1.0);
    }
    Ok((qm + &v1 * (0.5 * h), v1))
}

/// Runs `steps` steps of size `h` from `(q₀, v₀)` at `t₀`, keeping every `every`-th state; each
/// step's contact LCP is warm-started from the one before ([`run_warm`]).
pub fn run<S: ContactSystem>(
    sys: &S,
    t0: f64,
    q0: &DVector<f64>,
    v0: &DVector<f64>,
    h: f64,
    steps: usize,
    every: usize,
) -> Result<Trajectory, Error> {
    run_warm(sys, t0, q0, v0, h, steps, every, &mut WarmStart::new())
}

/// [`run`] through the warm start `warm` (pass [`WarmStart::cold`] for cold solves); its
/// counters tell how many LCPs kept their active set and how many pivots the others took.
#[allow(clippy::too_many_arguments)]
pub fn run_warm<S: ContactSystem>(
    sys: &S,
    t0: f64,
    q0: &DVector<f64>,
    v0: &DVector<f64>,
    h: f64,
    steps: usize,
    every: usize,
    warm: &mut WarmStart,
) -> Result<Trajectory, Error> {
    march(|t, q, v| step_warm(sys, t, q, v, h, warm), t0, q0, v0, h, steps, every)
}

/// The loop behind every `run`: `steps` applications of `one_step(t, q, v)`, keeping every
/// `every`-th state (and the last).
pub(crate) fn march<R: nalgebra::Dim>(
    mut one_step: impl FnMut(f64, &OVector<f64, R>, &OVector<f64, R>) -> Result<(OVector<f64, R>, OVector<f64, R>), Error>,
    t0: f64,
    q0: &OVector<f64, R>,
    v0: &OVector<f64, R>,
    h: f64,
    steps: usize,
    every: usize,
) -> Result<Trajectory, Error>
where
    nalgebra::DefaultAllocator: nalgebra::allocator::Allocator<R>,
{
    if !(h > 0.0 && h.is_finite()) {
        return Err(Error::argument("h", format!("must be a finite number > 0 (got {h})")));
    }
    let every = every.max(1);
    let (mut q, mut v, mut t) = (q0.clone(), v0.clone(), t0);
    let mut out = Trajectory { t: vec![t], q: vec![q.iter().copied().collect()], v: vec![v.iter().copied().collect()] };
    for k in 1..=steps {
        (q, v) = one_step(t, &q, &v)?;
        t = t0 + k as f64 * h;
        if k % every == 0 || k == steps {
            out.t.push(t);
            out.q.push(q.iter().copied().collect());
            out.v.push(v.iter().copied().collect());
        }
    }
    Ok(out)
}

/// Records the event-driven run's steps for evaluation at any time.
struct Dense {
    steps: Vec<(Step<DMatrix<f64>>, f64)>,
}

impl<Mo> Observer<DMatrix<f64>, Mo> for Dense {
    fn on_step(&mut self, step: &Step<DMatrix<f64>>, t_end: f64, _mode: &Mo) -> ControlFlow<()> {
        self.steps.push((step.clone(), t_end));
        ControlFlow::Continue(())
    }
}

/// The second route checked against the first: time-stepping against the event-driven core
/// ([`EventDriver`] on `lag`, tolerances `1e-12`) from the state `x0 = [q | q̇]` over
/// `[0, t_end]`. For each number of steps in `steps`, the mean over the step grid of
/// `max_i |g_i(q_TS) − g_i(q_ED)|` for the observable `g` (e.g. the contact coordinates over
/// the perturbation's size). Positions are continuous through impacts, so this measure is
/// `O(h)` for a first-order scheme even where an event's position in the step grid makes the
/// error at any single time jump about.
pub fn compare_with_event_driven<S: ContactSystem>(
    lag: &Lagrangian<S>,
    sys: &S,
    x0: &DMatrix<f64>,
    t_end: f64,
    steps: &[usize],
    observe: &dyn Fn(&DVector<f64>) -> Vec<f64>,
) -> Result<Vec<f64>, Error> {
    let settings = DriverSettings { t_max: t_end, tol: Tolerances { rtol: 1e-12, atol: 1e-12 }, ..Default::default() };
    let mut dense = Dense { steps: Vec::new() };
    let ev = EventDriver::new(settings).run(lag, 0.0, x0.clone(), &[], &mut dense);
    if let Termination::Failed(f) = ev.termination {
        return Err(Error::Numerical(format!("event-driven reference failed: {f:?}")));
    }
    let final_q: DVector<f64> = ev.state.column(0).into_owned();
    let reference = |t: f64| -> DVector<f64> {
        let k = dense.steps.partition_point(|(s, _)| s.t0 <= t);
        if k == 0 {
            return x0.column(0).into_owned();
        }
        let (s, t_stop) = &dense.steps[k - 1];
        if t <= *t_stop {
            s.eval(t).column(0).into_owned()
        } else {
            final_q.clone()
        }
    };
    let (q0, v0): (DVector<f64>, DVector<f64>) = (x0.column(0).into_owned(), x0.column(1).into_owned());
    steps
        .iter()
        .map(|&m| {
            let h = t_end / m as f64;
            let tr = run(sys, 0.0, &q0, &v0, h, m, 1)?;
            let mut sum = 0.0;
            for (t, q) in tr.t.iter().zip(&tr.q).skip(1) {
                let a = observe(&DVector::from_column_slice(q));
                let b = observe(&reference(*t));
                sum += a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            }
            Ok(sum / m as f64)
        })
        .collect()
}

/// The least-squares slope of `log e` against `log h`: the observed order of convergence.
pub fn observed_order(h: &[f64], e: &[f64]) -> f64 {
    let n = h.len().min(e.len()) as f64;
    let (x, y): (Vec<f64>, Vec<f64>) = h.iter().zip(e).map(|(a, b)| (a.ln(), b.ln())).unzip();
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::closed_form::FrictionOscillator;

    fn osc() -> FrictionOscillator {
        FrictionOscillator { mass: 2.0, stiffness: 50.0, gravity: 9.81, mu: 0.3 }
    }

    #[test]
    fn friction_oscillator_sticks_in_its_band_without_creep() {
        let o = osc();
        let d = o.band();
        let x0 = 5.3 * d;
        // Three half cycles reach |x| = 5.3δ − 2δ·2 = 1.3δ, then the third ends at −(1.3 − 2)δ
        // inside the band: at rest at 0.7δ.
        let t_end = 5.0 * o.half_period();
        let h = o.half_period() / 2000.0;
        let traj =
            run(&o, 0.0, &nalgebra::dvector![x0, 0.0], &nalgebra::DVector::<f64>::zeros(2), h, (t_end / h) as usize, 1)
                .unwrap();
        let exact = o.position(x0, t_end);
        assert!((exact - 0.7 * d).abs() < 1e-12);
        let x_end = traj.q.last().unwrap()[0];
        assert!((x_end - exact).abs() < 0.01 * d, "{x_end} vs {exact}");
        // Stuck: over the last half period the block does not move at all (no creep), and the
        // floor holds it (y stays 0).
        let n = traj.t.len();
        let last: Vec<f64> = traj.q[n - 1000..].iter().map(|q| q[0]).collect();
        assert!(last.iter().all(|&x| x == last[0]), "creep");
        let ymax = traj.q.iter().fold(0.0f64, |a, q| a.max(q[1].abs()));
        assert!(ymax < 1e-12, "{ymax:e}");
    }

    #[test]
    fn first_order_convergence_to_the_closed_form() {
        let o = osc();
        let d = o.band();
        let x0 = 3.7 * d;
        let t_end = 0.8 * o.half_period();
        let err = |n: usize| {
            let h = t_end / n as f64;
            let traj =
                run(&o, 0.0, &nalgebra::dvector![x0, 0.0], &nalgebra::DVector::<f64>::zeros(2), h, n, n).unwrap();
            (traj.q.last().unwrap()[0] - o.position(x0, t_end)).abs()
        };
        let e: Vec<f64> = [200, 400, 800, 1600].iter().map(|&n| err(n)).collect();
        for w in e.windows(2) {
            let order = (w[0] / w[1]).log2();
            assert!(order > 0.8, "errors {e:?}");
        }
        assert!(e[3] < 1e-2 * d, "{e:?}");
    }
}
