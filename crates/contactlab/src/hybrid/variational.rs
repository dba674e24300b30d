//! Variational equations with saltation matrices: the exact derivative of a hybrid run with
//! respect to its initial state, carried along the run by an [`Observer`].
//!
//! A [`Sensitivity`] holds `Φ = ∂x(t)/∂y`, `n × m`, for initial states `x(0) = lift(y)`
//! (`Φ(0)` is the lift's Jacobian). Between events it integrates the variational equation
//!
//! ```text
//!   Φ̇ = Df(x(t)) Φ
//! ```
//!
//! over each accepted step of the driver by the three-stage Gauss–Legendre collocation rule
//! (order 6, so that its error stays below the integration's; the states at its nodes from the
//! step's dense output), with `Df` the system's exact [`Hybrid::flow_jacobian`]. At an event where guard `g` reaches zero and the reset `Δ` takes
//! `x⁻` to `x⁺` (flows `f⁻` before, `f⁺` after), the perturbed run reaches the guard at
//! `t* + δt` with
//!
//! ```text
//!   δt = τ δy,   τ = −∇gᵀ Φ⁻ / (∇gᵀ f⁻),
//! ```
//!
//! and, compared at the same time after the event, `Φ⁺ = S Φ⁻` with the **saltation matrix**
//!
//! ```text
//!   S = DΔ + (f⁺ − DΔ f⁻) ∇gᵀ / (∇gᵀ f⁻),   i.e.   Φ⁺ = DΔ (Φ⁻ + f⁻ τ) − f⁺ τ.
//! ```
//!
//! The jump matrices `DΔ` are the system's ([`Hybrid::jump_jacobian`]): for a Lagrangian system
//! the identity at a lift-off or a start or end of slip (the state does not jump, `f` may), the
//! linearized impact law at an impact (Newton's, or the frictional law with its sticking and
//! slipping pattern fixed, then the relabelling) — see
//! [`crate::hybrid::lagrangian`]'s `variational.rs`. A **section** state right after an event
//! (P3's and the gaits' sections) is `x⁺` at the perturbed time, so there
//! `∂x_sec/∂y = Φ⁺ + f⁺ τ = DΔ (Φ⁻ + f⁻ τ)` (the projection along the flow onto the guard, then
//! the reset) and the return time has the derivative `τ`. A surface section `σ(t, x) = 0` has no
//! gradient here (a closure), so it is not supported.
//!
//! At a **Zeno point** the driver extrapolates the impact series of contact `c` from the state
//! after its last simulated impact (at `t_k`, normal velocity `u` small) to the constrained state
//! at `t_z = t_k + Δ`. To first order in `u` the completed motion is the constrained flow from
//! the mass-weighted projection `Π` of that state onto the closing constraints (the impulses of
//! the remaining series add up to the projection's and to the constraint force's over `Δ`), so
//! `Φ ← DΠ Φ` ([`Hybrid::zeno_jacobian`]); the completion time moves with the last impact and
//! with `Δ = 2u/((1 − e) a)` (`a` the free normal deceleration):
//! `τ_z = τ_k + ∇Δᵀ (Φ + f⁺ τ_k)`, which a section at the Zeno point uses as above. A cascade
//! (plastic impacts of several contacts taking turns) is not such a series and is not linearized.
//!
//! Anything the system does not provide (no `Df`, a truncated Zeno series, an impact whose outcome is not
//! smooth, a grazing event with `∇gᵀ f⁻ = 0`) ends the propagation (not the run) with a
//! [`Sensitivity::failure`] saying why; callers then use differences.

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector, RowDVector};

use super::driver::{EventRecord, Observer};
use super::ode::{OdeState, Step};
use super::{EventKind, Hybrid};

/// A grazing event: `|∇gᵀ f⁻|` below this fraction of `‖S∇g‖ ‖S⁻¹f⁻‖` (in the state's own
/// scales `S`) makes the event time's derivative meaningless.
pub const GRAZING_TOL: f64 = 1e-10;

/// Carries `Φ = ∂x/∂y` along a run (module docs).
pub struct Sensitivity<'h, H: Hybrid> {
    sys: &'h H,
    /// `Φ`, `n × m`, at the latest point of the run.
    pub phi: DMatrix<f64>,
    /// `f⁺` and `τ` of the last event, at its time (for an after-event section).
    last: Option<(f64, DVector<f64>, RowDVector<f64>)>,
    /// The first reason the derivative could not be carried on, if any.
    pub failure: Option<String>,
    /// At the first section crossing after the start: `∂x_sec/∂y` and the derivative of the
    /// crossing time.
    pub at_section: Option<(DMatrix<f64>, RowDVector<f64>)>,
}

fn flat<S: OdeState>(x: &S) -> DVector<f64> {
    DVector::from_column_slice(x.as_slice())
}

impl<'h, H: Hybrid> Sensitivity<'h, H> {
    /// Starts from `Φ(0) = phi0` (`n × m`).
    pub fn new(sys: &'h H, phi0: DMatrix<f64>) -> Self {
        Self { sys, phi: phi0, last: None, failure: None, at_section: None }
    }

    /// Records why the derivative stops here; the run itself goes on (its return is wanted).
    fn fail(&mut self, why: impl Into<String>) -> ControlFlow<()> {
        if self.failure.is_none() {
            self.failure = Some(why.into());
        }
        ControlFlow::Continue(())
    }

    /// `Φ̇ = Df Φ` over `[t0, t1]` by one step of the three-stage Gauss–Legendre collocation
    /// rule (order 6; for a linear equation one `3n × 3n` linear solve), the states at its nodes
    /// from `x(t)`.
    fn propagate(&mut self, mode: &H::Mode, t0: f64, t1: f64, x: impl Fn(f64) -> H::State) -> Result<(), String> {
        let h = t1 - t0;
        if h <= 0.0 {
            return Ok(());
        }
        let r = 15f64.sqrt();
        let c = [0.5 - r / 10.0, 0.5, 0.5 + r / 10.0];
        let a = [
            [5.0 / 36.0, 2.0 / 9.0 - r / 15.0, 5.0 / 36.0 - r / 30.0],
            [5.0 / 36.0 + r / 24.0, 2.0 / 9.0, 5.0 / 36.0 - r / 24.0],
            [5.0 / 36.0 + r / 30.0, 2.0 / 9.0 + r / 15.0, 5.0 / 36.0],
        ];
        let b = [5.0 / 18.0, 4.0 / 9.0, 5.0 / 18.0];
        let mut jac = Vec::with_capacity(3);
        for ci in c {
            let t = t0 + ci * h;
            jac.push(self.sys.flow_jacobian(mode, t, &x(t)).ok_or("the system gives no flow Jacobian here")?);
        }
        let (n, m) = self.phi.shape();
        // In the state's own scales (x̃ = x / s): Ã = S⁻¹ A S, Φ̃ = S⁻¹ Φ. Positions and
        // velocities differ by the time unit, and the collocation system of the unscaled
        // equation is as ill-conditioned as that unit is far from 1 (its LU lost four digits
        // with the time unit 1e-6).
        let sc = self.sys.state_scale();
        let s: Vec<f64> = sc.as_slice().iter().map(|&v| if v > 0.0 { v } else { 1.0 }).collect();
        for a in jac.iter_mut() {
            for r in 0..n {
                for c in 0..n {
                    a[(r, c)] *= s[c] / s[r];
                }
            }
        }
        let phi_s = DMatrix::from_fn(n, m, |r, c| self.phi[(r, c)] / s[r]);
        // K_i − h Σ_j a_ij Ã_i K_j = Ã_i Φ̃₀.
        let mut big = DMatrix::<f64>::identity(3 * n, 3 * n);
        let mut rhs = DMatrix::<f64>::zeros(3 * n, m);
        for i in 0..3 {
            for j in 0..3 {
                let block = &jac[i] * (-h * a[i][j]);
                let mut view = big.view_mut((i * n, j * n), (n, n));
                view += block;
            }
            rhs.view_mut((i * n, 0), (n, m)).copy_from(&(&jac[i] * &phi_s));
        }
        let k = big.lu().solve(&rhs).ok_or("a singular collocation system")?;
        for (i, bi) in b.iter().enumerate() {
            let dk = k.view((i * n, 0), (n, m));
            for r in 0..n {
                for c in 0..m {
                    self.phi[(r, c)] += dk[(r, c)] * (h * bi * s[r]);
                }
            }
        }
        if self.phi.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err("the variational equation diverged".into())
        }
    }
}

impl<H: Hybrid> Sensitivity<'_, H> {
    /// The Zeno completion (module docs): `Φ ← DΠ Φ`, and the completion time's derivative
    /// `τ_z = τ_k + ∇Δᵀ (Φ + f⁺ τ_k)` from the last impact's.
    fn zeno(&mut self, ev: &EventRecord<H::State, H::Mode>) -> ControlFlow<()> {
        let Some((tk, fk, tau_k)) = self.last.clone() else {
            return self.fail("a Zeno point without its last impact");
        };
        if tk > ev.t {
            return self.fail("a Zeno point before its last impact");
        }
        let Some((dpi, grad)) = self.sys.zeno_jacobian(ev) else {
            return self.fail("no linearized Zeno completion");
        };
        let tau_z = &tau_k + (grad.transpose() * (&self.phi + &fk * &tau_k));
        self.phi = &dpi * &self.phi;
        let fz = flat(&self.sys.flow(&ev.mode_after, ev.t, &ev.after));
        self.last = Some((ev.t, fz, tau_z));
        ControlFlow::Continue(())
    }
}

impl<H: Hybrid> Observer<H::State, H::Mode> for Sensitivity<'_, H> {
    fn on_step(&mut self, step: &Step<H::State>, t_end: f64, mode: &H::Mode) -> ControlFlow<()> {
        if self.failure.is_some() || self.at_section.is_some() {
            return ControlFlow::Continue(());
        }
        match self.propagate(mode, step.t0, t_end, |t| step.eval(t)) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => self.fail(e),
        }
    }

    fn on_event(&mut self, ev: &EventRecord<H::State, H::Mode>) -> ControlFlow<()> {
        if self.failure.is_some() || self.at_section.is_some() {
            return ControlFlow::Continue(());
        }
        if ev.info.kind == EventKind::Section {
            if ev.t <= 0.0 {
                return ControlFlow::Continue(());
            }
            return match &self.last {
                Some((t, fp, tau)) if *t == ev.t => {
                    self.at_section = Some((&self.phi + fp * tau, tau.clone()));
                    ControlFlow::Continue(())
                }
                _ => self.fail("a surface section (its gradient is not known)"),
            };
        }
        if ev.info.kind == EventKind::Zeno && ev.guard.is_none() {
            return self.zeno(ev);
        }
        let Some(guard) = ev.guard else {
            return self.fail(format!("a {:?} event without a guard", ev.info.kind));
        };
        let Some(grad) = self.sys.guard_gradient(&ev.mode_before, guard, ev.t, &ev.before) else {
            return self.fail(format!("no gradient of the {:?} guard", ev.info.kind));
        };
        let Some(jump) = self.sys.jump_jacobian(ev) else {
            return self.fail(format!("no jump matrix of the {:?} event", ev.info.kind));
        };
        let fm = flat(&self.sys.flow(&ev.mode_before, ev.t, &ev.before));
        let fp = flat(&self.sys.flow(&ev.mode_after, ev.t, &ev.after));
        let rate = grad.dot(&fm);
        // Grazing is judged in the state's own scales (x̃ = x / s: ∇̃g = S ∇g, f̃ = S⁻¹ f, the
        // rate unchanged), so that the time unit does not decide it: in plain units the
        // accelerations outweigh the velocities in ‖f‖ by the time unit's inverse square.
        let sc = self.sys.state_scale();
        let sc = sc.as_slice();
        let s = |i: usize| if sc[i] > 0.0 { sc[i] } else { 1.0 };
        let grad_s = (0..grad.len()).map(|i| (grad[i] * s(i)).powi(2)).sum::<f64>().sqrt();
        let f_s = (0..fm.len()).map(|i| (fm[i] / s(i)).powi(2)).sum::<f64>().sqrt();
        if rate.abs().partial_cmp(&(GRAZING_TOL * grad_s * f_s)) != Some(std::cmp::Ordering::Greater) {
            return self.fail(format!("a grazing {:?} event", ev.info.kind));
        }
        let tau = -(grad.transpose() * &self.phi) / rate;
        self.phi = &jump * (&self.phi + &fm * &tau) - &fp * &tau;
        self.last = Some((ev.t, fp, tau));
        if self.phi.iter().all(|v| v.is_finite()) {
            ControlFlow::Continue(())
        } else {
            self.fail("a non-finite saltation")
        }
    }
}
