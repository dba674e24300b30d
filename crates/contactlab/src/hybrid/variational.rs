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
//! At a **Zeno point** the driver extrapolates the last three impacts of contact `c` (at
//! `t₁ < t₂ < t₃`, post-impact states `x₁, x₂, x₃`, intervals `d₂ = t₂ − t₁`, `d₃ = t₃ − t₂`,
//! ratio `r = d₃/d₂`, `g = r/(1 − r)`): the Zeno time `t_z = t₃ + d₃ g` and the Aitken limit
//! `x_z = x₃ + (x₃ − x₂) g`, which [`Hybrid::zeno_limit`] maps onto the constraints that close
//! (`Π`). This is differentiated as it is computed: every impact keeps `τᵢ` and
//! `Xᵢ = Φᵢ⁺ + fᵢ⁺ τᵢ` (the post-impact state at the perturbed time), so that
//!
//! ```text
//!   δr = (δd₃ − r δd₂)/d₂,  δg = δr/(1 − r)²,  τ_z = τ₃ + δd₃ g + d₃ δg,
//!   X_z = X₃ + (X₃ − X₂) g + (x₃ − x₂) δg,       Φ⁺ = DΠ(x_z) X_z − f⁺ τ_z
//! ```
//!
//! ([`Hybrid::zeno_jacobian`] gives `DΠ`). The same formulas serve one contact's geometric
//! series and a cascade (plastic impacts of several contacts taking turns, as a kneed walker's
//! knee stops): both are extrapolated from one contact's impacts.
//!
//! Anything the system does not provide (no `Df`, a truncated Zeno series, an impact whose outcome is not
//! smooth, a grazing event with `∇gᵀ f⁻ = 0`) ends the propagation (not the run) with a
//! [`Sensitivity::failure`] saying why; callers then use differences.

use std::ops::ControlFlow;

use std::collections::VecDeque;

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
    /// The last three impacts of every contact since its last other event, as the driver's
    /// Zeno watch keeps them (module docs).
    impacts: Vec<VecDeque<Mark<H::State>>>,
}

/// An impact as the Zeno extrapolation uses it: time, post-impact state, and their derivatives
/// `τ` and `X = Φ⁺ + f⁺ τ`.
struct Mark<S> {
    t: f64,
    x: S,
    dx: DMatrix<f64>,
    tau: RowDVector<f64>,
}

fn flat<S: OdeState>(x: &S) -> DVector<f64> {
    DVector::from_column_slice(x.as_slice())
}

impl<'h, H: Hybrid> Sensitivity<'h, H> {
    /// Starts from `Φ(0) = phi0` (`n × m`).
    pub fn new(sys: &'h H, phi0: DMatrix<f64>) -> Self {
        Self { sys, phi: phi0, last: None, failure: None, at_section: None, impacts: Vec::new() }
    }

    /// Records why the derivative stops here; the run itself goes on (its return is wanted).
    fn fail(&mut self, why: impl Into<String>) -> ControlFlow<()> {
        if self.failure.is_none() {
            self.failure = Some(why.into());
        }
        ControlFlow::Continue(())
    }

    /// `Φ̇ = Df Φ` over `[t0, t1]` by one step of the three-stage Gauss–Legendre collocation
    /// rule (order 6; for a linear equation one `3n × 3n` linear solve, `3n/2 × 3n/2` for a
    /// second-order system), the states at its nodes from `x(t)`.
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
        let k = match second_order_blocks(&jac) {
            Some(nq) => collocate_second_order(&jac, &phi_s, h, nq, &a)?,
            None => collocate(&jac, &phi_s, h, &a)?,
        };
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

/// `view += alpha · b` (same shape).
fn add_scaled<S1, S2>(
    view: &mut nalgebra::Matrix<f64, nalgebra::Dyn, nalgebra::Dyn, S1>,
    alpha: f64,
    b: &nalgebra::Matrix<f64, nalgebra::Dyn, nalgebra::Dyn, S2>,
) where
    S1: nalgebra::StorageMut<f64, nalgebra::Dyn, nalgebra::Dyn>,
    S2: nalgebra::Storage<f64, nalgebra::Dyn, nalgebra::Dyn>,
{
    for c in 0..b.ncols() {
        for r in 0..b.nrows() {
            view[(r, c)] += alpha * b[(r, c)];
        }
    }
}

/// Gauss–Legendre coefficients `a_ij` (three stages).
type Butcher = [[f64; 3]; 3];

/// The stage derivatives `K_i` (stacked, `3n × m`) of the collocation step `K_i = Ã_i (Φ̃₀ +
/// h Σ_j a_ij K_j)`: one `3n × 3n` solve.
fn collocate(jac: &[DMatrix<f64>], phi: &DMatrix<f64>, h: f64, a: &Butcher) -> Result<DMatrix<f64>, String> {
    let (n, m) = phi.shape();
    let mut big = DMatrix::<f64>::identity(3 * n, 3 * n);
    let mut rhs = DMatrix::<f64>::zeros(3 * n, m);
    for i in 0..3 {
        for j in 0..3 {
            let mut view = big.view_mut((i * n, j * n), (n, n));
            add_scaled(&mut view, -h * a[i][j], &jac[i]);
        }
        rhs.view_mut((i * n, 0), (n, m)).copy_from(&(&jac[i] * phi));
    }
    big.lu().solve(&rhs).ok_or_else(|| "a singular collocation system".into())
}

/// `Some(N)` when every stage Jacobian has the form of a second-order system's flow in the
/// state's scales, `[[0, D], [P, Q]]` with `D` diagonal (`q̇ = v`) and the same at every stage:
/// the first `N` rows are zero but for the diagonal of their velocity block.
fn second_order_blocks(jac: &[DMatrix<f64>]) -> Option<usize> {
    let n = jac.first()?.nrows();
    if n % 2 != 0 || n == 0 {
        return None;
    }
    let nq = n / 2;
    let first = &jac[0];
    let shaped = |a: &DMatrix<f64>| {
        (0..nq).all(|r| a[(r, r + nq)] == first[(r, r + nq)] && (0..n).all(|c| c == r + nq || a[(r, c)] == 0.0))
    };
    jac.iter().all(shaped).then_some(nq)
}

/// [`collocate`] for a second-order system (`Ã_i = [[0, D], [P_i, Q_i]]`): the position parts
/// of the stages follow from the velocity parts, `Y^q_i = Φ^q₀ + h D Σ_j a_ij Y^v_j`, so only
/// the stage velocities `Y^v` are unknown,
///
/// ```text
///   Y^v_i − h Σ_l a_il Q_l Y^v_l − h² Σ_l (Σ_j a_ij a_jl P_j) D Y^v_l = Φ^v₀ + h Σ_j a_ij P_j Φ^q₀,
/// ```
///
/// a `3N × 3N` solve instead of `6N × 6N` (eight times less work), with the same solution;
/// then `K_i = (D Y^v_i, P_i Y^q_i + Q_i Y^v_i)`.
fn collocate_second_order(
    jac: &[DMatrix<f64>],
    phi: &DMatrix<f64>,
    h: f64,
    nq: usize,
    a: &Butcher,
) -> Result<DMatrix<f64>, String> {
    let (n, m) = phi.shape();
    let d: Vec<f64> = (0..nq).map(|r| jac[0][(r, r + nq)]).collect();
    let p = |i: usize| jac[i].view((nq, 0), (nq, nq));
    let q = |i: usize| jac[i].view((nq, nq), (nq, nq));
    // P_j D.
    let pd: Vec<DMatrix<f64>> = (0..3).map(|j| DMatrix::from_fn(nq, nq, |r, c| p(j)[(r, c)] * d[c])).collect();
    let (phi_q, phi_v) = (phi.rows(0, nq), phi.rows(nq, nq));
    let mut big = DMatrix::<f64>::identity(3 * nq, 3 * nq);
    let mut rhs = DMatrix::<f64>::zeros(3 * nq, m);
    for i in 0..3 {
        for l in 0..3 {
            let mut view = big.view_mut((i * nq, l * nq), (nq, nq));
            add_scaled(&mut view, -h * a[i][l], &q(l));
            for j in 0..3 {
                add_scaled(&mut view, -h * h * a[i][j] * a[j][l], &pd[j]);
            }
        }
        let mut r = rhs.view_mut((i * nq, 0), (nq, m));
        r.copy_from(&phi_v);
        for j in 0..3 {
            r.gemm(h * a[i][j], &p(j), &phi_q, 1.0);
        }
    }
    let yv = big.lu().solve(&rhs).ok_or("a singular collocation system")?;
    let mut k = DMatrix::<f64>::zeros(3 * n, m);
    for i in 0..3 {
        // Y^q_i = Φ^q₀ + h D Σ_j a_ij Y^v_j.
        let mut yq = phi_q.clone_owned();
        for j in 0..3 {
            let yvj = yv.rows(j * nq, nq);
            for r in 0..nq {
                for c in 0..m {
                    yq[(r, c)] += h * a[i][j] * d[r] * yvj[(r, c)];
                }
            }
        }
        let yvi = yv.rows(i * nq, nq);
        for r in 0..nq {
            for c in 0..m {
                k[(i * n + r, c)] = d[r] * yvi[(r, c)];
            }
        }
        let mut kv = k.view_mut((i * n + nq, 0), (nq, m));
        kv.gemm(1.0, &p(i), &yq, 0.0);
        kv.gemm(1.0, &q(i), &yvi, 1.0);
    }
    Ok(k)
}

impl<H: Hybrid> Sensitivity<'_, H> {
    /// The Zeno completion (module docs): the derivative of the driver's extrapolation from the
    /// last three impacts of the contact, then `DΠ` at the extrapolated state.
    fn zeno(&mut self, ev: &EventRecord<H::State, H::Mode>) -> ControlFlow<()> {
        let Some(c) = ev.info.contact else {
            return self.fail("a Zeno point without its contact");
        };
        let h = match self.impacts.get_mut(c) {
            Some(h) if h.len() >= 3 => std::mem::take(h),
            _ => return self.fail("a Zeno point without three impacts of its contact"),
        };
        let (m1, m2, m3) = (&h[h.len() - 3], &h[h.len() - 2], &h[h.len() - 1]);
        let (d2, d3) = (m2.t - m1.t, m3.t - m2.t);
        let r = d3 / d2;
        let g = r / (1.0 - r);
        let tz = m3.t + d3 * r / (1.0 - r);
        if !(d2 > 0.0 && r < 1.0) || (tz - ev.t).abs() > 1e-9 * (ev.t.abs() + d3) {
            return self.fail("a Zeno point that is not the extrapolation of its contact's impacts");
        }
        let (dd2, dd3) = (&m2.tau - &m1.tau, &m3.tau - &m2.tau);
        let dg = (&dd3 - &dd2 * r) / (d2 * (1.0 - r) * (1.0 - r));
        let tau_z = &m3.tau + &dd3 * g + &dg * d3;
        let xz = m3.x.clone() + (m3.x.clone() - m2.x.clone()) * g;
        let dxz = &m3.dx + (&m3.dx - &m2.dx) * g + flat(&(m3.x.clone() - m2.x.clone())) * &dg;
        let mut at = ev.clone();
        at.before = xz;
        let Some(dpi) = self.sys.zeno_jacobian(&at) else {
            return self.fail("no linearized Zeno completion");
        };
        let fz = flat(&self.sys.flow(&ev.mode_after, ev.t, &ev.after));
        self.phi = dpi * dxz - &fz * &tau_z;
        self.last = Some((ev.t, fz, tau_z));
        if self.phi.iter().all(|v| v.is_finite()) {
            ControlFlow::Continue(())
        } else {
            self.fail("a non-finite Zeno completion")
        }
    }

    /// Keeps the impact history as the driver's Zeno watch does: an impact joins its
    /// contact's, any other event of the contact clears it.
    fn remember(&mut self, ev: &EventRecord<H::State, H::Mode>, tau: &RowDVector<f64>, fp: &DVector<f64>) {
        let Some(c) = ev.info.contact else { return };
        if self.impacts.len() <= c {
            self.impacts.resize_with(c + 1, VecDeque::new);
        }
        let h = &mut self.impacts[c];
        if ev.info.kind != EventKind::Impact {
            h.clear();
            return;
        }
        h.push_back(Mark { t: ev.t, x: ev.after.clone(), dx: &self.phi + fp * tau, tau: tau.clone() });
        if h.len() > 3 {
            h.pop_front();
        }
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
        self.remember(ev, &tau, &fp);
        self.last = Some((ev.t, fp, tau));
        if self.phi.iter().all(|v| v.is_finite()) {
            ControlFlow::Continue(())
        } else {
            self.fail("a non-finite saltation")
        }
    }
}
