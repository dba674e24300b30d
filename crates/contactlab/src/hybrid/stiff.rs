//! RODAS4: the L-stable, stiffly accurate Rosenbrock method of order 4(3) with a dense output
//! of order 3 (Hairer & Wanner, *Solving Ordinary Differential Equations II*, §IV.7, the
//! coefficients of their code `rodas`), for the stiff stretches of a flow.
//!
//! # Why
//! An explicit method's step is bounded by its stability region, `h|λ| ≲ 3.3` for DOPRI5,
//! whatever the tolerance. A contact that slips slowly is such a stretch: its friction force
//! `−μλ_n u_t/‖u_t‖` turns with the slip direction at the rate `μλ_n/(m‖u_t‖)`, which grows as
//! the slip slows. A humanoid settling on the floor with slips of a millimetre a second took
//! DOPRI5 steps of 10 µs, shrinking as the slips slowed. The event driver watches DOPRI5's
//! stiffness estimate (Hairer's test, [`super::ode::Dopri5::stiff_steps`]) and, once a flow is stiff,
//! integrates it with this method until the next event ([`super::DriverSettings::stiff`]).
//!
//! # The step
//! With `W = I/(hγ) − J`, `J` the flow's Jacobian at the step's start (exact where the system
//! gives it, [`super::Hybrid::flow_jacobian`]; forward differences otherwise) and `f_t` its
//! time derivative (a forward difference, exactly zero for an autonomous flow), stage `i`
//! solves `W uᵢ = f(t + cᵢh, y + Σⱼ aᵢⱼ uⱼ) + Σⱼ (Cᵢⱼ/h) uⱼ + h dᵢ f_t`; the solution is
//! `y + Σ a₅ⱼ uⱼ + u₅ + u₆` and `u₆` is its error estimate. The error norm and the scaling are
//! DOPRI5's ([`super::ode`]), so the tolerances mean the same in both.

use nalgebra::{DMatrix, DVector};

use super::ode::{error_weight, OdeState, Step, StepFailure, Tolerances, H_MIN_REL};

/// A Rosenbrock integrator's state: tolerances, scales, the proposed next step, `f` at the
/// current point and the counters.
#[derive(Debug, Clone)]
pub struct Rodas4<S> {
    tol: Tolerances,
    scale: S,
    time_scale: f64,
    h: f64,
    f0: Option<S>,
    /// `ρ(J)` and `hρ(J)` of the last accepted step.
    rho: f64,
    h_rho: f64,
    /// Accepted steps in a row below [`TINY_REL`] of the time scale.
    tiny_run: usize,
    /// Right-hand side evaluations so far (those of difference Jacobians included).
    pub evaluations: usize,
    /// Jacobians formed so far.
    pub jacobians: usize,
    /// Rejected steps so far.
    pub rejections: usize,
}

const GAMMA: f64 = 0.25;
const C2: f64 = 0.386;
const C3: f64 = 0.21;
const C4: f64 = 0.63;
const A21: f64 = 1.544;
const A31: f64 = 0.946_678_528_081_582_6;
const A32: f64 = 0.255_701_169_898_328_4;
const A41: f64 = 3.314_825_187_068_521;
const A42: f64 = 2.896_124_015_972_201;
const A43: f64 = 0.998_641_913_997_781_7;
const A51: f64 = 1.221_224_509_226_641;
const A52: f64 = 6.019_134_481_288_629;
const A53: f64 = 12.537_083_329_320_87;
const A54: f64 = -0.687_886_036_105_895;
const C21: f64 = -5.6688;
const C31: f64 = -2.430_093_356_833_875;
const C32: f64 = -0.206_359_915_709_191_5;
const C41: f64 = -0.107_352_905_815_137_5;
const C42: f64 = -9.594_562_251_023_355;
const C43: f64 = -20.470_286_148_096_16;
const C51: f64 = 7.496_443_313_967_647;
const C52: f64 = -10.246_804_314_643_52;
const C53: f64 = -33.999_903_528_199_05;
const C54: f64 = 11.708_908_932_061_6;
const C61: f64 = 8.083_246_795_921_522;
const C62: f64 = -7.981_132_988_064_893;
const C63: f64 = -31.521_594_328_743_71;
const C64: f64 = 16.319_305_431_231_36;
const C65: f64 = -6.058_818_238_834_054;
const D1: f64 = 0.25;
const D2: f64 = -0.1043;
const D3: f64 = 0.1035;
const D4: f64 = -0.0362;
// The dense output's coefficients: y(θ) = (1 − θ) y₀ + θ (y₁ + (1 − θ)(k₁ + θ k₂)),
// k₁ = Σ H2ⱼ uⱼ, k₂ = Σ H3ⱼ uⱼ.
const H2: [f64; 5] = [
    10.126_235_083_445_86,
    -7.487_995_877_610_167,
    -34.800_918_615_557_47,
    -7.992_771_707_568_823,
    1.025_137_723_295_662,
];
const H3: [f64; 5] = [
    -0.676_280_339_280_125_3,
    6.087_714_651_680_015,
    16.430_843_208_924_78,
    24.767_225_114_183_86,
    -6.594_389_125_716_872,
];

/// [`Rodas4::calm`]'s bound on `hρ(J)` (DOPRI5's stability boundary is about 3.3).
pub const CALM_HRHO: f64 = 1.0;

/// A step below this fraction of the time scale is tiny; [`TINY_STEPS`] tiny steps in a row
/// end the integration with [`StepFailure::StepTooSmall`]: each step costs a Jacobian, and a
/// flow that crawls so (a stiffness of `1e12`/s seen on a humanoid, its matrix nearly singular)
/// is one the event-driven model does not resolve at any cost worth paying.
pub const TINY_REL: f64 = 1e-9;
/// See [`TINY_REL`].
pub const TINY_STEPS: usize = 100;

/// Step-size factors: at most ×6 and at least ×0.2 a step, with safety 0.9 (Hairer's `rodas`).
const GROW_MAX: f64 = 6.0;
const SHRINK_MAX: f64 = 0.2;
const SAFETY: f64 = 0.9;

impl<S: OdeState> Rodas4<S> {
    /// An integrator with tolerances `tol`, component scales `scale` (all `> 0`) and the
    /// system's time scale (for the smallest step).
    pub fn new(tol: Tolerances, scale: S, time_scale: f64) -> Self {
        Self {
            tol,
            scale,
            time_scale,
            h: 0.0,
            f0: None,
            rho: f64::INFINITY,
            h_rho: f64::INFINITY,
            tiny_run: 0,
            evaluations: 0,
            jacobians: 0,
            rejections: 0,
        }
    }

    /// Takes over a flow at the current point, where `f0` is the vector field and `h` the
    /// step an explicit integrator proposed.
    pub fn resume(&mut self, f0: S, h: f64) {
        self.f0 = Some(f0);
        self.h = h;
        self.h_rho = f64::INFINITY;
        self.tiny_run = 0;
    }

    /// Whether the last step lay well inside an explicit method's stability region
    /// (`hρ(J) <` [`CALM_HRHO`]): the flow is no longer stiff at the step the accuracy asks for,
    /// and DOPRI5 takes such steps without a Jacobian.
    pub fn calm(&self) -> bool {
        self.h_rho < CALM_HRHO
    }

    /// The spectral radius `ρ(J)` of the last accepted step's Jacobian (estimated, 1/time):
    /// an explicit method's step there is bounded by about `3.3/ρ`.
    pub fn spectral_radius(&self) -> f64 {
        self.rho
    }

    /// The step the controller proposes next.
    pub fn proposed(&self) -> f64 {
        self.h
    }

    /// The vector field at the current point (the last step's end), once a step was taken.
    pub fn derivative(&self) -> Option<&S> {
        self.f0.as_ref()
    }

    fn sk(&self, i: usize, a: f64, b: f64) -> f64 {
        error_weight(&self.tol, &self.scale, i, a, b)
    }

    /// The Jacobian by forward differences, each column's increment `√ε` of the component's
    /// size or scale.
    fn difference_jacobian(&mut self, f: &mut impl FnMut(f64, &S) -> S, t: f64, y: &S, f0: &S) -> DMatrix<f64> {
        let n = y.dim();
        let mut j = DMatrix::zeros(n, n);
        let mut yk = y.clone();
        for k in 0..n {
            let yv = y.as_slice()[k];
            let d = f64::EPSILON.sqrt() * yv.abs().max(self.scale.as_slice()[k]);
            yk.as_mut_slice()[k] = yv + d;
            let fk = f(t, &yk);
            self.evaluations += 1;
            yk.as_mut_slice()[k] = yv;
            for (i, (a, b)) in fk.as_slice().iter().zip(f0.as_slice()).enumerate() {
                j[(i, k)] = (a - b) / d;
            }
        }
        j
    }

    /// Takes one accepted step from `(t, y)` of length at most `h_max`, retrying with smaller
    /// steps on rejection; `jac` gives the flow's Jacobian at `(t, y)` (`None`: differences).
    /// [`Rodas4::resume`] must have been called at the first point.
    pub fn step(
        &mut self,
        f: &mut impl FnMut(f64, &S) -> S,
        jac: &mut impl FnMut(f64, &S) -> Option<DMatrix<f64>>,
        t: f64,
        y: &S,
        h_max: f64,
    ) -> Result<Step<S>, StepFailure> {
        let f0 = match self.f0.take() {
            Some(f0) => f0,
            None => {
                self.evaluations += 1;
                f(t, y)
            }
        };
        if !f0.as_slice().iter().all(|v| v.is_finite()) {
            return Err(StepFailure::NonFinite);
        }
        let n = y.dim();
        let h_min = H_MIN_REL * self.time_scale.max(t.abs() * 1e-2);
        let j = match jac(t, y) {
            Some(j) if j.nrows() == n && j.ncols() == n && j.iter().all(|a| a.is_finite()) => j,
            _ => self.difference_jacobian(f, t, y, &f0),
        };
        self.jacobians += 1;
        let rho = spectral_radius(&j);
        // ∂f/∂t by a forward difference: exactly zero when f does not read t.
        let dt = f64::EPSILON.sqrt() * self.time_scale.max(t.abs());
        let ft: Vec<f64> = f(t + dt, y).as_slice().iter().zip(f0.as_slice()).map(|(a, b)| (a - b) / dt).collect();
        self.evaluations += 1;
        let mut h = if self.h > 0.0 { self.h.min(h_max) } else { h_max.min(1e-6 * self.time_scale) };
        loop {
            let tiny_final = h_max < h_min && h_max > 0.0 && h == h_max;
            if h.is_nan() || (h < h_min && !tiny_final) {
                self.f0 = Some(f0);
                return Err(StepFailure::StepTooSmall);
            }
            match self.attempt(f, &j, &ft, t, y, &f0, h) {
                Some((ynew, err, u)) if err <= 1.0 => {
                    let f1 = f(t + h, &ynew);
                    self.evaluations += 1;
                    if !f1.as_slice().iter().all(|v| v.is_finite()) {
                        self.rejections += 1;
                        h *= SHRINK_MAX;
                        continue;
                    }
                    let fac = (err.powf(0.25) / SAFETY).clamp(1.0 / GROW_MAX, 1.0 / SHRINK_MAX);
                    self.h = h / fac;
                    let k1 = combination(y, &u, &H2);
                    let k2 = combination(y, &u, &H3);
                    self.f0 = Some(f1.clone());
                    self.rho = rho;
                    self.h_rho = h * rho;
                    self.tiny_run = if h < TINY_REL * self.time_scale { self.tiny_run + 1 } else { 0 };
                    if self.tiny_run > TINY_STEPS {
                        // Crawling: a flow no step of which the method can trust.
                        self.tiny_run = 0;
                        return Err(StepFailure::StepTooSmall);
                    }
                    return Ok(Step::nested(t, h, y.clone(), ynew, f0, f1, k1, k2));
                }
                Some((_, err, _)) if err.is_finite() => {
                    self.rejections += 1;
                    h /= (err.powf(0.25) / SAFETY).clamp(1.0, 1.0 / SHRINK_MAX);
                }
                _ => {
                    self.rejections += 1;
                    h *= SHRINK_MAX;
                }
            }
            self.h = h;
        }
    }

    /// One trial step of length `h`: the solution, its error norm and the stages `u₁..u₅`
    /// (`None` when `W` is singular or a stage is not finite).
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        &mut self,
        f: &mut impl FnMut(f64, &S) -> S,
        j: &DMatrix<f64>,
        ft: &[f64],
        t: f64,
        y: &S,
        f0: &S,
        h: f64,
    ) -> Option<(S, f64, [DVector<f64>; 5])> {
        let n = y.dim();
        let mut w = -j;
        for i in 0..n {
            w[(i, i)] += 1.0 / (h * GAMMA);
        }
        let lu = w.lu();
        let y0 = DVector::from_column_slice(y.as_slice());
        let ftv = DVector::from_column_slice(ft);
        let mut eval = |x: &DVector<f64>, c: f64, this: &mut Self| -> DVector<f64> {
            let mut s = y.clone();
            s.as_mut_slice().copy_from_slice(x.as_slice());
            this.evaluations += 1;
            DVector::from_column_slice(f(t + c * h, &s).as_slice())
        };
        let solve = |rhs: DVector<f64>| lu.solve(&rhs).filter(|u| u.iter().all(|a| a.is_finite()));
        let fv0 = DVector::from_column_slice(f0.as_slice());
        let u1 = solve(&fv0 + &ftv * (h * D1))?;
        let y2 = &y0 + &u1 * A21;
        let u2 = solve(eval(&y2, C2, self) + &u1 * (C21 / h) + &ftv * (h * D2))?;
        let y3 = &y0 + &u1 * A31 + &u2 * A32;
        let u3 = solve(eval(&y3, C3, self) + (&u1 * C31 + &u2 * C32) / h + &ftv * (h * D3))?;
        let y4 = &y0 + &u1 * A41 + &u2 * A42 + &u3 * A43;
        let u4 = solve(eval(&y4, C4, self) + (&u1 * C41 + &u2 * C42 + &u3 * C43) / h + &ftv * (h * D4))?;
        let y5 = &y0 + &u1 * A51 + &u2 * A52 + &u3 * A53 + &u4 * A54;
        let u5 = solve(eval(&y5, 1.0, self) + (&u1 * C51 + &u2 * C52 + &u3 * C53 + &u4 * C54) / h)?;
        let y6 = &y5 + &u5;
        let u6 = solve(eval(&y6, 1.0, self) + (&u1 * C61 + &u2 * C62 + &u3 * C63 + &u4 * C64 + &u5 * C65) / h)?;
        let y7 = &y6 + &u6;
        let mut acc = 0.0;
        for i in 0..n {
            let r = u6[i] / self.sk(i, y0[i], y7[i]);
            acc += r * r;
        }
        let err = (acc / n.max(1) as f64).sqrt();
        let mut ynew = y.clone();
        ynew.as_mut_slice().copy_from_slice(y7.as_slice());
        Some((ynew, err, [u1, u2, u3, u4, u5]))
    }
}

/// The spectral radius of `j`, estimated by 32 steps of the power iteration from a fixed start
/// (the geometric mean of the last eight growth factors, which a complex pair leaves
/// oscillating): deterministic, invariant to the units of the state (eigenvalues are rates),
/// exact for the dominant real eigenvalue and within the spread of the last factors otherwise.
fn spectral_radius(j: &DMatrix<f64>) -> f64 {
    let n = j.nrows();
    if n == 0 {
        return 0.0;
    }
    let mut x = DVector::from_fn(n, |i, _| if i % 2 == 0 { 1.0 } else { -0.5 } + 0.01 * i as f64);
    x /= x.norm();
    let mut log_sum = 0.0;
    for k in 0..32 {
        let y = j * &x;
        let r = y.norm();
        if r == 0.0 || !r.is_finite() {
            return if r == 0.0 { 0.0 } else { f64::INFINITY };
        }
        if k >= 24 {
            log_sum += r.ln();
        }
        x = y / r;
    }
    (log_sum / 8.0).exp()
}

/// `Σ cⱼ uⱼ` in the shape of `like`.
fn combination<S: OdeState>(like: &S, u: &[DVector<f64>; 5], c: &[f64; 5]) -> S {
    let mut out = like.zeros_like();
    for (uj, cj) in u.iter().zip(c) {
        for (o, a) in out.as_mut_slice().iter_mut().zip(uj.iter()) {
            *o += cj * a;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector2, Vector3};

    /// Runs `f` from `(0, y0)` to `t_end`, returning the end state, the steps taken and the
    /// largest dense-output error against `exact` at each step's midpoint.
    fn run<const N: usize>(
        f: &mut impl FnMut(f64, &nalgebra::SVector<f64, N>) -> nalgebra::SVector<f64, N>,
        jac: &mut impl FnMut(f64, &nalgebra::SVector<f64, N>) -> Option<DMatrix<f64>>,
        y0: nalgebra::SVector<f64, N>,
        t_end: f64,
        tol: f64,
        exact: impl Fn(f64) -> nalgebra::SVector<f64, N>,
    ) -> (nalgebra::SVector<f64, N>, usize, f64) {
        let mut ode = Rodas4::new(Tolerances { rtol: tol, atol: tol }, nalgebra::SVector::repeat(1.0), 1.0);
        let (mut t, mut y, mut steps, mut dense) = (0.0, y0, 0, 0.0f64);
        ode.resume(f(0.0, &y0), 1e-4);
        while t < t_end {
            let s = ode.step(f, jac, t, &y, t_end - t).expect("a step");
            let tm = s.t0 + 0.5 * s.h;
            dense = dense.max((s.eval(tm) - exact(tm)).amax());
            t = s.t1();
            y = s.y1;
            steps += 1;
        }
        (y, steps, dense)
    }

    /// `y'' = −y` as a first-order system, its solution from `(1, 0)` and its Jacobian.
    fn oscillator(_t: f64, y: &Vector2<f64>) -> Vector2<f64> {
        Vector2::new(y[1], -y[0])
    }
    fn oscillator_at(t: f64) -> Vector2<f64> {
        Vector2::new(t.cos(), -t.sin())
    }
    fn oscillator_jacobian(_t: f64, _y: &Vector2<f64>) -> Option<DMatrix<f64>> {
        Some(DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]))
    }

    #[test]
    fn harmonic_oscillator_to_tolerance_with_exact_and_difference_jacobians() {
        // y'' = −y from (1, 0): cos t. The method meets the tolerance with the exact Jacobian
        // and with forward differences (the same code path a system without one takes).
        let (mut f, exact, mut exact_j) = (oscillator, oscillator_at, oscillator_jacobian);
        let (y, steps, dense) = run(&mut f, &mut exact_j, Vector2::new(1.0, 0.0), 10.0, 1e-10, exact);
        assert!((y - exact(10.0)).amax() < 1e-8, "{}", (y - exact(10.0)).amax());
        assert!(dense < 1e-7, "dense output {dense}");
        let mut none = |_t: f64, _y: &Vector2<f64>| None;
        let (y2, steps2, _) = run(&mut f, &mut none, Vector2::new(1.0, 0.0), 10.0, 1e-10, exact);
        assert!((y2 - exact(10.0)).amax() < 1e-8);
        assert!(steps2 <= steps + 5, "{steps2} against {steps}");
    }

    #[test]
    fn order_four_on_a_smooth_problem() {
        // Fixed tolerances 1e-6 and 1e-10: an order-4 method's step count grows by about
        // (1e4)^(1/5) ≈ 6.3 (local error h⁵); an order-2 method's would grow by 1e4^(1/3) ≈ 22.
        let (mut f, exact, mut j) = (oscillator, oscillator_at, oscillator_jacobian);
        let (_, loose, _) = run(&mut f, &mut j, Vector2::new(1.0, 0.0), 10.0, 1e-6, exact);
        let (_, tight, _) = run(&mut f, &mut j, Vector2::new(1.0, 0.0), 10.0, 1e-10, exact);
        let ratio = tight as f64 / loose as f64;
        assert!((4.0..10.0).contains(&ratio), "{loose} → {tight} steps: ratio {ratio}");
    }

    #[test]
    fn a_stiff_problem_takes_steps_set_by_its_slow_motion() {
        // Robertson-like linear stiff system: y₁' = −1e6 (y₁ − cos t) − sin t, exact y₁ = cos t
        // after the fast transient; y₂' = y₁. An explicit method needs h < 3.3e-6 (3e6 steps
        // over 10 s); this one follows cos t with steps of its own accuracy. The time term
        // exercises the f_t difference.
        let mut f = |t: f64, y: &Vector2<f64>| Vector2::new(-1e6 * (y[0] - t.cos()) - t.sin(), y[0]);
        let exact = |t: f64| Vector2::new(t.cos(), t.sin());
        let mut j = |_t: f64, _y: &Vector2<f64>| Some(DMatrix::from_row_slice(2, 2, &[-1e6, 0.0, 1.0, 0.0]));
        let (y, steps, dense) = run(&mut f, &mut j, Vector2::new(1.0, 0.0), 10.0, 1e-8, exact);
        assert!((y - exact(10.0)).amax() < 1e-6, "{}", (y - exact(10.0)).amax());
        assert!(dense < 1e-6, "dense output {dense}");
        assert!(steps < 2000, "{steps} steps");
    }

    #[test]
    fn the_spectral_radius_is_found_for_real_and_complex_dominant_eigenvalues_in_any_units() {
        // Real: diag(−1e6, −3) in a rotated basis → 1e6. Complex: a damped rotation
        // k[[−1, 1], [−1, −1]] → √2 k. Rescaling one component (units) leaves it unchanged.
        let real = DMatrix::from_row_slice(2, 2, &[-1e6, 0.0, 0.0, -3.0]);
        let c = (0.3f64).cos();
        let s = (0.3f64).sin();
        let rot = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
        let j = &rot * real * rot.transpose();
        assert!((spectral_radius(&j) / 1e6 - 1.0).abs() < 1e-9, "{}", spectral_radius(&j));
        let k = 250.0;
        let damped = DMatrix::from_row_slice(2, 2, &[-k, k, -k, -k]);
        let rho = spectral_radius(&damped);
        assert!((rho / (2f64.sqrt() * k) - 1.0).abs() < 1e-9, "{rho}");
        let scale = DMatrix::from_diagonal(&DVector::from_vec(vec![1e8, 1.0]));
        let inv = DMatrix::from_diagonal(&DVector::from_vec(vec![1e-8, 1.0]));
        let rescaled = &scale * &damped * &inv;
        assert!((spectral_radius(&rescaled) / rho - 1.0).abs() < 1e-6, "{}", spectral_radius(&rescaled));
        assert_eq!(spectral_radius(&DMatrix::zeros(3, 3)), 0.0);
    }

    #[test]
    fn a_singular_or_infinite_field_ends_with_a_failure_not_a_panic() {
        // f = 1/y₃ blows up at y₃ = 0, reached at t = 0.5: the step shrinks to its floor.
        let mut f = |_t: f64, y: &Vector3<f64>| Vector3::new(1.0, 0.0, -1.0) / (y[2] - 0.5).max(0.0);
        let mut none = |_t: f64, _y: &Vector3<f64>| None;
        let mut ode = Rodas4::new(Tolerances::default(), Vector3::repeat(1.0), 1.0);
        let (mut t, mut y) = (0.0, Vector3::new(0.0, 0.0, 1.0));
        let mut end = None;
        for _ in 0..100_000 {
            match ode.step(&mut f, &mut none, t, &y, 1.0 - t) {
                Ok(s) => {
                    t = s.t1();
                    y = s.y1;
                    if t >= 1.0 {
                        break;
                    }
                }
                Err(e) => {
                    end = Some(e);
                    break;
                }
            }
        }
        assert!(end.is_some(), "no failure at t = {t}, y = {y:?}");
    }
}
