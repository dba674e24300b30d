//! Adaptive Dormand–Prince 5(4) integration with dense output.
//!
//! The classical DOPRI5 pair (Dormand & Prince 1980; Hairer, Nørsett & Wanner, *Solving Ordinary
//! Differential Equations I*, §II.5–6): seven stages with the first-same-as-last property, local
//! extrapolation (the 5th-order solution is propagated), the 4th-order embedded estimate for step
//! control with a Lund-stabilised (PI) controller, and the 4th-order continuous extension of
//! Dormand & Prince for dense output inside every accepted step.
//!
//! The integrator is stepped by its caller, one accepted step at a time ([`Dopri5::step`]); each
//! step carries its own dense output ([`Step::eval`]), which the event driver uses to locate
//! guard zeros between the step ends. After a discontinuity (an event) the caller restarts the
//! integrator with [`Dopri5::restart`].
//!
//! # Scaling
//! The error of component `i` is measured against `atol · scaleᵢ + rtol · |yᵢ|`, where `scale` is
//! the state's characteristic magnitude supplied by the system (a length for positions, a speed
//! for velocities): absolute tolerances follow the data's units, so multiplying lengths or times
//! by a constant does not change which steps are accepted. Step sizes are bounded below by
//! `1e-14` of the system's time scale.

use std::fmt::Debug;
use std::ops::{Add, Mul, Sub};

use nalgebra::{DMatrix, SMatrix};

/// A state vector the integrator can work on: a fixed-size array of `f64` with vector-space
/// operations (implemented for every `nalgebra::SMatrix<f64, R, C>`).
pub trait OdeState:
    Clone + Debug + PartialEq + Send + Sync + Add<Output = Self> + Sub<Output = Self> + Mul<f64, Output = Self> + 'static
{
    /// The zero vector of the same shape as `self`.
    fn zeros_like(&self) -> Self;
    /// The components, in storage order.
    fn as_slice(&self) -> &[f64];
    /// The components, mutably.
    fn as_mut_slice(&mut self) -> &mut [f64];
    /// Number of components.
    fn dim(&self) -> usize {
        self.as_slice().len()
    }
}

impl<const R: usize, const C: usize> OdeState for SMatrix<f64, R, C> {
    fn zeros_like(&self) -> Self {
        SMatrix::zeros()
    }
    fn as_slice(&self) -> &[f64] {
        nalgebra::Matrix::as_slice(self)
    }
    fn as_mut_slice(&mut self) -> &mut [f64] {
        nalgebra::Matrix::as_mut_slice(self)
    }
}

/// A state whose size is known at run time (a mechanism's `(q, q̇)` as an `n × 2` matrix).
impl OdeState for DMatrix<f64> {
    fn zeros_like(&self) -> Self {
        DMatrix::zeros(self.nrows(), self.ncols())
    }
    fn as_slice(&self) -> &[f64] {
        nalgebra::Matrix::as_slice(self)
    }
    fn as_mut_slice(&mut self) -> &mut [f64] {
        nalgebra::Matrix::as_mut_slice(self)
    }
}

/// Tolerances of the integration (see the module docs for the error measure).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerances {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance, in units of each component's characteristic scale.
    pub atol: f64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Self { rtol: 1e-10, atol: 1e-10 }
    }
}

/// One accepted step `[t₀, t₀ + h]` with its dense output.
#[derive(Debug, Clone)]
pub struct Step<S> {
    /// Start time.
    pub t0: f64,
    /// Step length (`> 0`).
    pub h: f64,
    /// State at the start.
    pub y0: S,
    /// State at the end.
    pub y1: S,
    /// Derivative at the start.
    pub f0: S,
    /// Derivative at the end.
    pub f1: S,
    // Coefficients of the continuous extension (Hairer's rcont2..rcont5).
    r: [S; 4],
}

/// [`Step::max_of`] narrows its bracket to this fraction of the step.
pub const GOLDEN_TOL: f64 = 1e-6;

impl<S: OdeState> Step<S> {
    /// End time `t₀ + h`.
    pub fn t1(&self) -> f64 {
        self.t0 + self.h
    }

    /// The dense output at `t ∈ [t₀, t₀ + h]` (4th order, continuous across steps).
    pub fn eval(&self, t: f64) -> S {
        let th = ((t - self.t0) / self.h).clamp(0.0, 1.0);
        if th == 1.0 {
            return self.y1.clone();
        }
        let th1 = 1.0 - th;
        // y0 + θ(r2 + θ₁(r3 + θ(r4 + θ₁ r5))), in place.
        let [r2, r3, r4, r5] = &self.r;
        let mut acc = r5.clone();
        nest(&mut acc, th1, r4);
        nest(&mut acc, th, r3);
        nest(&mut acc, th1, r2);
        nest(&mut acc, th, &self.y0);
        acc
    }

    /// `n` points `(t, x(t))` evenly spaced on `(t₀, t_end]` (`t_end` ≤ the step's end when an
    /// event cut it short), from the dense output: what observers record of a step.
    pub fn samples(&self, t_end: f64, n: usize) -> impl Iterator<Item = (f64, S)> + '_ {
        (1..=n).map(move |k| {
            let t = self.t0 + (t_end - self.t0) * k as f64 / n as f64;
            (t, self.eval(t))
        })
    }

    /// The largest value of `f(t, x(t))` on `[t₀, t_end]`, if above `floor`: `n` even samples
    /// (and the start) of the dense output, then, when the best sample beats `floor`, a
    /// golden-section search between its neighbours to [`GOLDEN_TOL`] of the step (the dense
    /// output's own accuracy; `f` unimodal there). `f` returns `−∞` where it does not apply.
    /// Observers take the largest friction use along an orbit this way, so that sampling does
    /// not decide it (a maximum between samples was 1e-4 low with 4 or 8 samples a step).
    /// [`Peak`] does the same over many steps, refining only the best one.
    pub fn max_of(&self, t_end: f64, n: usize, floor: f64, mut f: impl FnMut(f64, &S) -> f64) -> f64 {
        match self.best_sample(t_end, n, &mut f) {
            Some((k, v)) if v.partial_cmp(&floor) == Some(std::cmp::Ordering::Greater) => {
                self.refine_max(t_end, n, k, v, f)
            }
            _ => floor,
        }
    }

    /// The best of the `n + 1` even samples of `f` on `[t₀, t_end]` (start included; NaN counts
    /// as `−∞`): its index and value.
    fn best_sample(&self, t_end: f64, n: usize, mut f: impl FnMut(f64, &S) -> f64) -> Option<(usize, f64)> {
        let n = n.max(2);
        (0..=n)
            .map(|k| {
                let t = sample_time(self.t0, t_end, n, k);
                let v = f(t, &self.eval(t));
                (k, if v.is_nan() { f64::NEG_INFINITY } else { v })
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The golden-section search of [`Step::max_of`] between the neighbours of sample `k`
    /// (value `v`) of [`Step::best_sample`].
    fn refine_max(&self, t_end: f64, n: usize, k: usize, v: f64, mut f: impl FnMut(f64, &S) -> f64) -> f64 {
        let n = n.max(2);
        let at = |k: usize| sample_time(self.t0, t_end, n, k);
        let (mut a, mut b) = (at(k.saturating_sub(1)), at((k + 1).min(n)));
        let g = 0.5 * (5f64.sqrt() - 1.0);
        let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
        let (mut fc, mut fd) = (f(c, &self.eval(c)), f(d, &self.eval(d)));
        let mut top = v.max(fc).max(fd);
        while b - a > GOLDEN_TOL * self.h.abs() {
            if fc >= fd {
                (b, d, fd) = (d, c, fc);
                c = b - g * (b - a);
                fc = f(c, &self.eval(c));
                top = top.max(fc);
            } else {
                (a, c, fc) = (c, d, fd);
                d = a + g * (b - a);
                fd = f(d, &self.eval(d));
                top = top.max(fd);
            }
        }
        top
    }

    /// A step whose dense output is `y₀ + θ(Δ + (1 − θ)(k₁ + θ k₂))`, `Δ = y₁ − y₀` (the
    /// Rosenbrock method's, [`super::stiff`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn nested(t0: f64, h: f64, y0: S, y1: S, f0: S, f1: S, k1: S, k2: S) -> Self {
        let d = y1.clone() - y0.clone();
        let z = y0.zeros_like();
        Self { t0, h, y0, y1, f0, f1, r: [d, k1, k2, z] }
    }

    /// A segment known from outside the integrator (a system that advances in closed form), with
    /// cubic Hermite interpolation of its ends as dense output.
    pub fn hermite(t0: f64, h: f64, y0: S, f0: S, y1: S, f1: S) -> Self {
        // The same nested form with r5 = 0: y0 + θ(Δ + θ₁(b + θc)), b = h f0 − Δ, c = Δ − b − h f1.
        let d = y1.clone() - y0.clone();
        let b = f0.clone() * h - d.clone();
        let c = d.clone() - f1.clone() * h - b.clone();
        let z = y0.zeros_like();
        Self { t0, h, y0, y1, f0, f1, r: [d, b, c, z] }
    }
}

/// Why the integrator could not take a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StepFailure {
    #[error("step size below 1e-14 of the time scale")]
    /// The step size fell below its lower bound (`1e-14` of the time scale): a singularity, a
    /// non-finite right-hand side, or tolerances below round-off.
    StepTooSmall,
    /// The right-hand side returned a non-finite value at the start of the step.
    #[error("non-finite vector field")]
    NonFinite,
}

/// The smallest step, relative to the larger of the time scale and 1 % of `|t|` (below it the
/// step is [`StepFailure::StepTooSmall`]).
pub const H_MIN_REL: f64 = 1e-14;
/// The initial step when the state or its derivative is negligible (`< NEGLIGIBLE_NORM` in the
/// error norm), relative to the time scale (Hairer's rule, `hinit`).
pub const H_FALLBACK_REL: f64 = 1e-6;
/// Error-norm level below which the state or its rate counts as negligible in the initial-step
/// rule.
const NEGLIGIBLE_NORM: f64 = 1e-10;
/// Curvature level below which the second trial of the initial-step rule is ignored.
const NEGLIGIBLE_CURVATURE: f64 = 1e-15;
/// Floor of the previous step's error in the step-size controller (Hairer's `facold`).
const FAC_OLD_MIN: f64 = 1e-4;

const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const A71: f64 = 35.0 / 384.0;
const A73: f64 = 500.0 / 1113.0;
const A74: f64 = 125.0 / 192.0;
const A75: f64 = -2187.0 / 6784.0;
const A76: f64 = 11.0 / 84.0;
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;
const D1: f64 = -12715105075.0 / 11282082432.0;
const D3: f64 = 87487479700.0 / 32700410799.0;
const D4: f64 = -10690763975.0 / 1880347072.0;
const D5: f64 = 701980252875.0 / 199316789632.0;
const D6: f64 = -1453857185.0 / 822651844.0;
const D7: f64 = 69997945.0 / 29380423.0;

/// The error weight of component `i` between the values `a` and `b`: `atol · scaleᵢ + rtol ·
/// max(|a|, |b|)` (module docs; the Rosenbrock method of [`super::stiff`] measures with it too).
pub(crate) fn error_weight<S: OdeState>(tol: &Tolerances, scale: &S, i: usize, a: f64, b: f64) -> f64 {
    tol.atol * scale.as_slice()[i] + tol.rtol * a.abs().max(b.abs())
}

/// `y + Σ cᵢ kᵢ`, computed in place on a copy of `y`.
fn comb<S: OdeState>(y: &S, terms: &[(&S, f64)]) -> S {
    let mut out = y.clone();
    let o = out.as_mut_slice();
    for (k, c) in terms {
        for (oi, ki) in o.iter_mut().zip(k.as_slice()) {
            *oi += c * ki;
        }
    }
    out
}

/// `y + (Σ aᵢ kᵢ) h`, element by element in this order (the sum first, then the step): the
/// rounding of the written-out vector expression, without its temporaries.
fn stage<S: OdeState>(y: &S, h: f64, terms: &[(&S, f64)]) -> S {
    let mut out = y.clone();
    let o = out.as_mut_slice();
    for (i, oi) in o.iter_mut().enumerate() {
        let mut acc = terms[0].0.as_slice()[i] * terms[0].1;
        for (k, a) in &terms[1..] {
            acc += k.as_slice()[i] * a;
        }
        *oi += acc * h;
    }
    out
}

/// `acc ← a + θ·acc`, in place (one level of the dense output's nested form).
fn nest<S: OdeState>(acc: &mut S, th: f64, a: &S) {
    for (x, ai) in acc.as_mut_slice().iter_mut().zip(a.as_slice()) {
        *x = ai + th * *x;
    }
}

/// Sample `k` of `n` even ones on `[t₀, t_end]`.
fn sample_time(t0: f64, t_end: f64, n: usize, k: usize) -> f64 {
    t0 + (t_end - t0) * k as f64 / n as f64
}

/// The largest value of a function along a run, as [`Step::max_of`] finds it in one step, at
/// the cost of one refinement for the whole run: each step offered is sampled, and only the
/// step holding the best sample is kept, with the mode it was taken in, and refined when the
/// value is asked for. (Refining every step whose samples beat the running best refines
/// nearly every step of a monotone function.)
#[derive(Debug, Clone)]
pub struct Peak<S, M> {
    n: usize,
    best: Option<(f64, usize, f64, Step<S>, M)>,
}

impl<S: OdeState, M: Clone> Peak<S, M> {
    /// A peak taken over `n` samples a step.
    pub fn new(n: usize) -> Self {
        Self { n: n.max(2), best: None }
    }

    /// Samples `f` (`−∞` where it does not apply) on the step up to `t_end`, taken in `mode`.
    pub fn offer(&mut self, step: &Step<S>, t_end: f64, mode: &M, mut f: impl FnMut(&M, f64, &S) -> f64) {
        let Some((k, v)) = step.best_sample(t_end, self.n, |t, x| f(mode, t, x)) else { return };
        if v > f64::NEG_INFINITY && self.best.as_ref().is_none_or(|b| v > b.0) {
            self.best = Some((v, k, t_end, step.clone(), mode.clone()));
        }
    }

    /// The largest value, refined between the samples of the best step (`None`: nothing but
    /// `−∞` was seen); `f` as given to [`Peak::offer`].
    pub fn value(&self, mut f: impl FnMut(&M, f64, &S) -> f64) -> Option<f64> {
        let (v, k, t_end, step, mode) = self.best.as_ref()?;
        Some(step.refine_max(*t_end, self.n, *k, *v, |t, x| f(mode, t, x)))
    }
}

/// The DOPRI5 integrator state: tolerances, scales, the proposed next step and the FSAL stage.
#[derive(Debug, Clone)]
pub struct Dopri5<S> {
    tol: Tolerances,
    scale: S,
    time_scale: f64,
    h: f64,
    f0: S,
    fac_old: f64,
    /// Right-hand side evaluations so far.
    pub evaluations: usize,
    /// Rejected steps so far.
    pub rejections: usize,
    /// Accepted steps in a row whose stiffness estimate `h|λ|` exceeded [`STIFF_HLAMBDA`]
    /// (reset after [`CALM_STEPS`] steps in a row below it, and at a restart).
    stiff_run: usize,
    calm_run: usize,
}

/// Hairer's stiffness test for DOPRI5: `h|λ| ≈ h‖f(y₇) − f(y₆)‖/‖y₇ − y₆‖` (the last two stages
/// at `t + h`) above this means the step is held by stability rather than accuracy. Hairer uses
/// 3.25, near the stability boundary; the PI controller holds a linear stiff mode lower, at
/// `h|λ|` 1.55 to 1.75 (measured), where 3.25 never fires.
pub const STIFF_HLAMBDA: f64 = 1.5;
/// DOPRI5's stability boundary on the negative real axis (`|R(z)| = 1` at `z ≈ −3.3`): no
/// accepted step of a stable flow exceeds about `EXPLICIT_HRHO/ρ(J)`.
pub const EXPLICIT_HRHO: f64 = 3.3;
/// Accepted steps in a row at the stability boundary after which the flow counts as stiff.
pub const STIFF_STEPS: usize = 15;
/// Accepted steps in a row below it that clear the count.
pub const CALM_STEPS: usize = 6;

impl<S: OdeState> Dopri5<S> {
    /// An integrator with tolerances `tol`, component scales `scale` (all `> 0`) and the
    /// system's time scale (for the initial step and the smallest step).
    pub fn new(tol: Tolerances, scale: S, time_scale: f64) -> Self {
        let f0 = scale.zeros_like();
        Self {
            tol,
            scale,
            time_scale,
            h: 0.0,
            f0,
            fac_old: FAC_OLD_MIN,
            evaluations: 0,
            rejections: 0,
            stiff_run: 0,
            calm_run: 0,
        }
    }

    /// Accepted steps in a row at the stability boundary (Hairer's test, [`STIFF_HLAMBDA`]; the
    /// flow counts as stiff from [`STIFF_STEPS`]), since the last restart or hand-over.
    pub fn stiff_steps(&self) -> usize {
        self.stiff_run
    }

    /// Takes a flow back from another integrator at the current point, where `f0` is the vector
    /// field and `h` the step that integrator proposed (the stiffness count starts afresh).
    pub fn resume(&mut self, f0: S, h: f64) {
        self.f0 = f0;
        self.h = h;
        self.fac_old = FAC_OLD_MIN;
        (self.stiff_run, self.calm_run) = (0, 0);
    }

    /// The vector field at the current point (the last step's end, or the restart point).
    pub fn derivative(&self) -> &S {
        &self.f0
    }

    fn sk(&self, i: usize, a: f64, b: f64) -> f64 {
        error_weight(&self.tol, &self.scale, i, a, b)
    }

    /// Hairer's stiffness test on an accepted step ([`STIFF_HLAMBDA`]).
    fn watch_stiffness(&mut self, h: f64, k6: &S, k7: &S, y6: &S, y7: &S) {
        let sq = |a: &S, b: &S| a.as_slice().iter().zip(b.as_slice()).map(|(x, y)| (x - y) * (x - y)).sum::<f64>();
        let (num, den) = (sq(k7, k6), sq(y7, y6));
        if den > 0.0 && h * (num / den).sqrt() > STIFF_HLAMBDA {
            self.calm_run = 0;
            self.stiff_run += 1;
        } else {
            self.calm_run += 1;
            if self.calm_run >= CALM_STEPS {
                self.stiff_run = 0;
            }
        }
    }

    fn norm(&self, v: &S, y: &S) -> f64 {
        let (vs, ys) = (v.as_slice(), y.as_slice());
        let n = vs.len().max(1);
        let mut s = 0.0;
        for i in 0..vs.len() {
            let r = vs[i] / self.sk(i, ys[i], ys[i]);
            s += r * r;
        }
        (s / n as f64).sqrt()
    }

    /// Restarts at `(t, y)` (after an event or at the start): evaluates `f` and chooses the
    /// initial step by Hairer's rule. `Err` if `f(t, y)` is not finite.
    pub fn restart(&mut self, f: &mut impl FnMut(f64, &S) -> S, t: f64, y: &S) -> Result<(), StepFailure> {
        let f0 = f(t, y);
        self.evaluations += 1;
        if !f0.as_slice().iter().all(|v| v.is_finite()) {
            return Err(StepFailure::NonFinite);
        }
        self.fac_old = FAC_OLD_MIN;
        (self.stiff_run, self.calm_run) = (0, 0);
        let d0 = self.norm(y, y);
        let d1 = self.norm(&f0, y);
        let h0 = if d0 < NEGLIGIBLE_NORM || d1 < NEGLIGIBLE_NORM {
            H_FALLBACK_REL * self.time_scale
        } else {
            0.01 * d0 / d1
        };
        let h0 = h0.min(self.time_scale);
        let y1 = comb(y, &[(&f0, h0)]);
        let f1 = f(t + h0, &y1);
        self.evaluations += 1;
        let d2 = self.norm(&comb(&f1, &[(&f0, -1.0)]), y) / h0;
        self.f0 = f0;
        let dm = d1.max(d2);
        let h1 = if dm <= NEGLIGIBLE_CURVATURE {
            (h0 * 1e-3).max(H_FALLBACK_REL * self.time_scale)
        } else {
            (0.01 / dm).powf(0.2)
        };
        self.h = (100.0 * h0).min(h1);
        if !self.h.is_finite() || self.h <= 0.0 {
            self.h = H_FALLBACK_REL * self.time_scale;
        }
        Ok(())
    }

    /// The step the controller proposes next.
    pub fn proposed(&self) -> f64 {
        self.h
    }

    /// Takes one accepted step from `(t, y)` of length at most `h_max`, retrying with smaller
    /// steps on rejection. The state must be the end of the previous step or a restart point.
    pub fn step(
        &mut self,
        f: &mut impl FnMut(f64, &S) -> S,
        t: f64,
        y: &S,
        h_max: f64,
    ) -> Result<Step<S>, StepFailure> {
        let h_min = H_MIN_REL * self.time_scale.max(t.abs() * 1e-2);
        let mut h = self.h.min(h_max);
        let k1 = self.f0.clone();
        loop {
            // A step below the lower bound is allowed only when the caller asked for exactly that
            // (a final step to an end time).
            let tiny_final = h_max < h_min && h_max > 0.0 && h == h_max;
            if h.is_nan() || (h < h_min && !tiny_final) {
                return Err(StepFailure::StepTooSmall);
            }
            let y2 = comb(y, &[(&k1, h * A21)]);
            let k2 = f(t + C2 * h, &y2);
            let y3 = stage(y, h, &[(&k1, A31), (&k2, A32)]);
            let k3 = f(t + C3 * h, &y3);
            let y4 = stage(y, h, &[(&k1, A41), (&k2, A42), (&k3, A43)]);
            let k4 = f(t + C4 * h, &y4);
            let y5 = stage(y, h, &[(&k1, A51), (&k2, A52), (&k3, A53), (&k4, A54)]);
            let k5 = f(t + C5 * h, &y5);
            let y6 = stage(y, h, &[(&k1, A61), (&k2, A62), (&k3, A63), (&k4, A64), (&k5, A65)]);
            let k6 = f(t + h, &y6);
            let ynew = stage(y, h, &[(&k1, A71), (&k3, A73), (&k4, A74), (&k5, A75), (&k6, A76)]);
            let k7 = f(t + h, &ynew);
            self.evaluations += 6;
            let (k1s, k3s, k4s, k5s, k6s, k7s) =
                (k1.as_slice(), k3.as_slice(), k4.as_slice(), k5.as_slice(), k6.as_slice(), k7.as_slice());
            let (y0s, y1s) = (y.as_slice(), ynew.as_slice());
            let mut acc = 0.0;
            for i in 0..y0s.len() {
                let e = h * (k1s[i] * E1 + k3s[i] * E3 + k4s[i] * E4 + k5s[i] * E5 + k6s[i] * E6 + k7s[i] * E7);
                let r = e / self.sk(i, y0s[i], y1s[i]);
                acc += r * r;
            }
            let err = (acc / y0s.len().max(1) as f64).sqrt();
            if !err.is_finite() {
                self.rejections += 1;
                h *= 0.1;
                self.h = h;
                continue;
            }
            // Lund-stabilised controller (Hairer's DOPRI5: β = 0.04, safety 0.9).
            let fac11 = err.powf(0.2 - 0.04 * 0.75);
            if err <= 1.0 {
                let fac = (fac11 / self.fac_old.powf(0.04) / 0.9).clamp(0.1, 5.0);
                self.fac_old = err.max(FAC_OLD_MIN);
                self.h = h / fac;
                let ydiff = comb(&ynew, &[(y, -1.0)]);
                let mut bspl = comb(&ydiff, &[(&k1, -h)]);
                bspl.as_mut_slice().iter_mut().for_each(|b| *b = -*b);
                let r5 =
                    stage(&k1.zeros_like(), h, &[(&k1, D1), (&k3, D3), (&k4, D4), (&k5, D5), (&k6, D6), (&k7, D7)]);
                let r4 = comb(&ydiff, &[(&k7, -h), (&bspl, -1.0)]);
                self.watch_stiffness(h, &k6, &k7, &y6, &ynew);
                self.f0 = k7.clone();
                return Ok(Step { t0: t, h, y0: y.clone(), y1: ynew, f0: k1, f1: k7, r: [ydiff, bspl, r4, r5] });
            }
            self.rejections += 1;
            h /= (fac11 / 0.9).min(5.0);
            self.h = h;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector2;

    #[test]
    fn max_of_finds_a_maximum_between_samples() {
        // x(t) = t on [0, 2] (Hermite dense output, exact for a line); f = 1 − (x − 0.37)²
        // peaks between the samples 0, 0.5, 1, ...: found to the bracket's resolution. A NaN
        // sample does not hide the others; a floor above the peak is kept.
        let one = |v: f64| Vector2::new(v, 0.0);
        let step = Step::hermite(0.0, 2.0, one(0.0), one(1.0), one(2.0), one(1.0));
        let f = |_: f64, x: &Vector2<f64>| 1.0 - (x[0] - 0.37).powi(2);
        let top = step.max_of(2.0, 4, f64::NEG_INFINITY, f);
        assert!((top - 1.0).abs() < 1e-11, "{top}");
        assert!(step.max_of(2.0, 4, f64::NEG_INFINITY, |_, x| 1.0 - (x[0] - 0.37).powi(2) - 0.99) < 0.0101);
        let nan_first = |t: f64, x: &Vector2<f64>| if t == 0.0 { f64::NAN } else { f(t, x) };
        assert!((step.max_of(2.0, 4, f64::NEG_INFINITY, nan_first) - 1.0).abs() < 1e-11);
        assert_eq!(step.max_of(2.0, 4, 5.0, f), 5.0);
    }

    #[test]
    fn a_peak_over_steps_is_the_best_step_refined() {
        // x(t) = t over four steps of 0.5 on [0, 2]; f = 1 − (x − 1.13)² peaks inside the third
        // step, between its samples. The peak over the run equals max_of on that step; a
        // function that applies nowhere has no peak; the mode kept is the best step's.
        let one = |v: f64| Vector2::new(v, 0.0);
        let steps: Vec<Step<Vector2<f64>>> = (0..4)
            .map(|k| {
                Step::hermite(0.5 * k as f64, 0.5, one(0.5 * k as f64), one(1.0), one(0.5 * (k + 1) as f64), one(1.0))
            })
            .collect();
        let f = |m: &u8, _: f64, x: &Vector2<f64>| 1.0 - (x[0] - 1.13).powi(2) + f64::from(*m) * 0.0;
        let mut peak = Peak::new(4);
        for (k, s) in steps.iter().enumerate() {
            peak.offer(s, s.t1(), &(k as u8), f);
        }
        let v = peak.value(f).expect("a peak");
        assert!((v - 1.0).abs() < 1e-11, "{v}");
        assert_eq!(peak.best.as_ref().map(|b| b.4), Some(2));
        assert!((v - steps[2].max_of(steps[2].t1(), 4, f64::NEG_INFINITY, |t, x| f(&2, t, x))).abs() < 1e-15);
        let mut none = Peak::<Vector2<f64>, u8>::new(4);
        none.offer(&steps[0], 0.5, &0, |_, _, _| f64::NEG_INFINITY);
        assert!(none.value(|_, _, _| f64::NEG_INFINITY).is_none());
    }

    #[test]
    fn harmonic_oscillator_to_tolerance() {
        // y'' = −y from (1, 0): y(t) = cos t.
        let mut f = |_t: f64, y: &Vector2<f64>| Vector2::new(y[1], -y[0]);
        let mut ode = Dopri5::new(Tolerances::default(), Vector2::new(1.0, 1.0), 1.0);
        let (mut t, mut y) = (0.0, Vector2::new(1.0, 0.0));
        ode.restart(&mut f, t, &y).unwrap();
        let mut dense_err = 0.0f64;
        while t < 10.0 {
            let s = ode.step(&mut f, t, &y, 10.0 - t).unwrap();
            // Dense output at the midpoint.
            let tm = s.t0 + 0.5 * s.h;
            dense_err = dense_err.max((s.eval(tm)[0] - tm.cos()).abs());
            t = s.t1();
            y = s.y1;
        }
        assert!((t - 10.0).abs() < 1e-12);
        assert!((y[0] - 10f64.cos()).abs() < 1e-8, "{}", y[0] - 10f64.cos());
        assert!(dense_err < 1e-8, "dense output error {dense_err}");
    }

    #[test]
    fn polynomial_motion_is_exact_and_steps_grow() {
        // Free fall: exact for DOPRI5, so the error estimate vanishes and steps grow fast.
        let mut f = |_t: f64, y: &Vector2<f64>| Vector2::new(y[1], -9.81);
        let mut ode = Dopri5::new(Tolerances::default(), Vector2::new(1.0, 1.0), 0.3);
        let y0 = Vector2::new(1.0, 0.0);
        ode.restart(&mut f, 0.0, &y0).unwrap();
        let (mut t, mut y, mut n) = (0.0, y0, 0);
        while t < 1.0 {
            let s = ode.step(&mut f, t, &y, 1.0 - t).unwrap();
            let te = 0.37 * s.h + s.t0;
            assert!((s.eval(te)[0] - (1.0 - 0.5 * 9.81 * te * te)).abs() < 1e-13);
            t = s.t1();
            y = s.y1;
            n += 1;
        }
        assert!(n < 12, "{n} steps");
        assert!((y[0] - (1.0 - 0.5 * 9.81)).abs() < 1e-12);
    }

    #[test]
    fn hermite_segment_interpolates_ends() {
        let y0 = Vector2::new(0.0, 1.0);
        let y1 = Vector2::new(1.0, 1.0);
        let s = Step::hermite(0.0, 1.0, y0, Vector2::new(1.0, 0.0), y1, Vector2::new(1.0, 0.0));
        assert!((s.eval(0.5)[0] - 0.5).abs() < 1e-15);
        assert_eq!(s.eval(1.0), y1);
    }
}
