//! P3, Theorem 1: from a stable simple periodic orbit (`e = 0`) to a guaranteed Zeno periodic
//! orbit for small `e > 0`.
//!
//! Given the simple orbit's start `x* = (z*, 0, ż*, 0)`, its pre-impact speed `v*`, and
//! `ε₁, ε₂, ε₃`, the neighbourhood `Ω = Ω₄(ε₁, ε₂, ε₃, κv*)` is the box
//! `‖z − z*‖ < ε₁, ‖ż − ż*‖ < ε₂, 0 < h < ε₃, |ḣ| < κv*` (norms: max-norm over the components
//! of `z`; for one-dimensional `z`, as in P3's example, the absolute value). The scalars of (10),
//!
//! ```text
//!   a_min = −max_Ω ḧ,  a_max = −min_Ω ḧ,  δ = √|a_max/a_min|,  ż_max = ‖ż*‖ + ε₂,
//!   z̈_max = max_Ω ‖z̈‖,  η_max = max_{Ω₁(ε₁)} ‖η(z)‖,
//! ```
//!
//! come from the unconstrained accelerations (8) maximised over the box: a grid with every
//! corner, then a pattern search from the best grid points, clamped to the box. Assumption 1's
//! `κ` and `γ` are measured on `Ω₂(ε₁, ε₂)`: a grid of starts, each run through one cycle of the
//! `e = 0` system; `κ` is the largest first pre-impact speed over `v*` (at least 1) and `γ_Ω` the
//! largest max-norm ratio `max(‖z' − z*‖/ε₁, ‖ż' − ż*‖/ε₂)` of the returns. P3's example uses
//! the orbit's multiplier `γ = 0.9404` instead; both are reported, and the conditions are
//! evaluated with each.
//!
//! Conditions (12)–(15) are each of the form `e ≤ ê`, so the largest `e` they allow is the
//! smallest `ê` (with (11) independent of `e`):
//!
//! ```text
//!   (12) e < 1/δ
//!   (13) e ≤ ε₁(1−γ)a_min / (2κv*ż_max + ε₁(1−γ)a_min δ)
//!   (14) e ≤ ε₂(1−γ) / (κv*((1+δ)η_max + 2z̈_max/a_min) + ε₂(1−γ)δ)
//!   (15) e ≤ √(2a_min ε₃) / (κv*)
//! ```

use nalgebra::DVector;
use serde::Serialize;

use super::{return_map, ConstraintChart, ZenoSettings};
use crate::hybrid::lagrangian::Lagrangian;
use crate::hybrid::section::{FirstCrossing, SectionChart};
use crate::hybrid::{EventKind, EventLog};
use crate::mechanics::ContactSystem;
use crate::numeric::maximize_on_box;
use crate::Error;

/// The sizes `ε₁, ε₂, ε₃` of the neighbourhoods.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Epsilons {
    /// `ε₁` (bound on `‖z − z*‖`).
    pub eps1: f64,
    /// `ε₂` (bound on `‖ż − ż*‖`).
    pub eps2: f64,
    /// `ε₃` (bound on `h`).
    pub eps3: f64,
}

/// The limits on `e` of conditions (12)–(15) with one choice of `γ`.
#[derive(Debug, Clone, Serialize)]
pub struct Limits {
    /// The `γ` used.
    pub gamma: f64,
    /// `ê` of (12), (13), (14), (15).
    pub e_limits: [f64; 4],
    /// The largest `e` the conditions guarantee (`0` if (11) fails or `γ ≥ 1`).
    pub e_max: f64,
}

/// Theorem 1 evaluated (module docs).
#[derive(Debug, Clone, Serialize)]
pub struct Bound {
    /// The neighbourhood sizes.
    pub eps: Epsilons,
    /// `x* = (q, q̇)` of the simple periodic orbit.
    pub x_star: Vec<f64>,
    /// Pre-impact speed `v*` of its plastic impact.
    pub v_star: f64,
    /// `κ` of Assumption 1(b), measured on `Ω₂(ε₁, ε₂)`.
    pub kappa: f64,
    /// Multiplier-based `γ` of the simple orbit (the largest multiplier modulus).
    pub gamma_multiplier: f64,
    /// `γ_Ω` of Assumption 1(a), measured on `Ω₂(ε₁, ε₂)` (≥ 1: the assumption fails for these ε).
    pub gamma_assumption: f64,
    /// Starts sampled on `Ω₂` for `κ` and `γ_Ω`.
    pub samples: usize,
    /// `a_min`.
    pub a_min: f64,
    /// `a_max`.
    pub a_max: f64,
    /// `δ`.
    pub delta: f64,
    /// `ż_max`.
    pub z_dot_max: f64,
    /// `z̈_max`.
    pub z_ddot_max: f64,
    /// `η_max`.
    pub eta_max: f64,
    /// Condition (11), `a_max ≥ a_min > 0`.
    pub condition11: bool,
    /// The limits with the multiplier `γ` (as in P3's example).
    pub with_multiplier: Limits,
    /// The limits with the measured `γ_Ω` (the assumption as stated).
    pub with_assumption: Limits,
}

/// The maximum of `f` over the box `[lo, hi]` ([`maximize_on_box`], from the three best grid
/// points).
fn maximize_box(f: &dyn Fn(&[f64]) -> f64, lo: &[f64], hi: &[f64], n: usize) -> f64 {
    maximize_on_box(f, lo, hi, n, 3).map_or(f64::NAN, |m| m.0)
}

fn limits(b: &Bound, gamma: f64) -> Limits {
    let (a, d, kv) = (b.a_min, b.delta, b.kappa * b.v_star);
    let Epsilons { eps1, eps2, eps3 } = b.eps;
    let g1 = 1.0 - gamma;
    let e_limits = [
        1.0 / d,
        eps1 * g1 * a / (2.0 * kv * b.z_dot_max + eps1 * g1 * a * d),
        eps2 * g1 / (kv * ((1.0 + d) * b.eta_max + 2.0 * b.z_ddot_max / a) + eps2 * g1 * d),
        (2.0 * a * eps3).sqrt() / kv,
    ];
    let ok = b.condition11 && gamma < 1.0;
    let e_max = if ok { e_limits.iter().copied().fold(f64::INFINITY, f64::min).max(0.0) } else { 0.0 };
    Limits { gamma, e_limits, e_max }
}

/// Evaluates Theorem 1 for the simple periodic orbit of `plastic` (the system with `e = 0`)
/// through `y_star` (chart coordinates, a converged fixed point) with multiplier modulus
/// `gamma_multiplier`; `grid` starts per axis of `Ω₂` for Assumption 1.
pub fn theorem1<S: ContactSystem>(
    plastic: &Lagrangian<S>,
    y_star: &DVector<f64>,
    gamma_multiplier: f64,
    eps: Epsilons,
    grid: usize,
    settings: &ZenoSettings,
) -> Result<Bound, Error> {
    for (k, v) in [("eps1", eps.eps1), ("eps2", eps.eps2), ("eps3", eps.eps3)] {
        if !(v > 0.0 && v.is_finite()) {
            return Err(Error::argument(k, format!("must be a finite number > 0 (got {v})")));
        }
    }
    if plastic.system().law(0).restitution != 0.0 {
        return Err(Error::model("e", "Theorem 1 starts from the simple orbit of the system with e = 0"));
    }
    let sys = plastic.system();
    let dof = sys.dof();
    let m = dof - 1;
    let map = return_map(plastic, settings);
    let chart = ConstraintChart::new(sys);
    // v*: the approach speed of the orbit's plastic impact (the last impact of the cycle).
    let x0 = chart.lift(y_star);
    // The events up to the return (the first crossing stops the run).
    let mut log = (FirstCrossing::default(), EventLog::default());
    map.driver.run(plastic, 0.0, x0.clone(), std::slice::from_ref(&map.section), &mut log);
    let log = log.1;
    let v_star = log
        .events
        .iter()
        .rev()
        .find(|e| e.info.kind == EventKind::Impact)
        .and_then(|e| e.info.impact_speed)
        .ok_or_else(|| Error::Numerical("the simple orbit has no impact".into()))?;
    let (zs, zds) = (y_star.rows(0, m).into_owned(), y_star.rows(m, m).into_owned());

    // Assumption 1 on a grid of Ω₂(ε₁, ε₂).
    let per = if 2 * m <= 4 { grid.max(2) } else { 2 };
    let mut kappa = 1.0f64;
    let mut gamma_a = 0.0f64;
    let mut samples = 0;
    for k in 0..per.pow(2 * m as u32) {
        let mut kk = k;
        let y = DVector::from_fn(2 * m, |i, _| {
            let j = kk % per;
            kk /= per;
            let u = -1.0 + 2.0 * j as f64 / (per - 1) as f64;
            y_star[i] + u * if i < m { eps.eps1 } else { eps.eps2 } * 0.999
        });
        // One run gives both the first impact (κ) and the return (γ_Ω).
        let mut log = (FirstCrossing::default(), EventLog::default());
        map.driver.run(plastic, 0.0, chart.lift(&y), std::slice::from_ref(&map.section), &mut log);
        let first = log.1.events.iter().find(|e| e.info.kind == EventKind::Impact).and_then(|e| e.info.impact_speed);
        let Some(ret) = log.0.hit.map(|(_, x)| chart.chart(&x)) else {
            return Err(Error::Numerical(format!("no return to S from the start {:?} of Ω₂", y.as_slice())));
        };
        if let Some(s) = first {
            kappa = kappa.max(s / v_star);
        }
        for i in 0..m {
            gamma_a = gamma_a.max((ret[i] - zs[i]).abs() / eps.eps1);
            gamma_a = gamma_a.max((ret[m + i] - zds[i]).abs() / eps.eps2);
        }
        samples += 1;
    }

    // The scalars (10) over Ω = Ω₄(ε₁, ε₂, ε₃, κv*): variables (z, ż, h, ḣ).
    let mut lo = Vec::with_capacity(2 * dof);
    let mut hi = Vec::with_capacity(2 * dof);
    for i in 0..m {
        lo.push(zs[i] - eps.eps1);
        hi.push(zs[i] + eps.eps1);
    }
    for i in 0..m {
        lo.push(zds[i] - eps.eps2);
        hi.push(zds[i] + eps.eps2);
    }
    lo.extend([0.0, -kappa * v_star]);
    hi.extend([eps.eps3, kappa * v_star]);
    let state = |p: &[f64]| -> (DVector<f64>, DVector<f64>) {
        let q = DVector::<f64>::from_fn(dof, |i, _| if i < m { p[i] } else { p[2 * m] });
        let v = DVector::<f64>::from_fn(dof, |i, _| if i < m { p[m + i] } else { p[2 * m + 1] });
        (q, v)
    };
    let acc = |p: &[f64]| -> DVector<f64> {
        let (q, v) = state(p);
        sys.mass_matrix(&q).cholesky().map_or(DVector::repeat(dof, f64::NAN), |c| c.solve(&sys.bias(0.0, &q, &v)))
    };
    let n = if 2 * dof <= 4 { 11 } else { 7 };
    let max_hdd = maximize_box(&|p| acc(p)[dof - 1], &lo, &hi, n);
    let min_hdd = -maximize_box(&|p| -acc(p)[dof - 1], &lo, &hi, n);
    let z_ddot_max = maximize_box(&|p| (0..m).fold(0.0f64, |a, i| a.max(acc(p)[i].abs())), &lo, &hi, n);
    // η(z) at h = 0 over Ω₁(ε₁).
    let eta = |p: &[f64]| -> f64 {
        let q = DVector::<f64>::from_fn(dof, |i, _| if i < m { p[i] } else { 0.0 });
        let Some(minv) = sys.mass_matrix(&q).try_inverse() else { return f64::NAN };
        (0..m).fold(0.0f64, |a, i| a.max((minv[(i, dof - 1)] / minv[(dof - 1, dof - 1)]).abs()))
    };
    let eta_max = maximize_box(&eta, &lo[..m], &hi[..m], 21);
    let (a_min, a_max) = (-max_hdd, -min_hdd);
    let mut b = Bound {
        eps,
        x_star: x0.column(0).iter().chain(x0.column(1).iter()).copied().collect(),
        v_star,
        kappa,
        gamma_multiplier,
        gamma_assumption: gamma_a,
        samples,
        a_min,
        a_max,
        delta: (a_max / a_min).abs().sqrt(),
        z_dot_max: zds.amax() + eps.eps2,
        z_ddot_max,
        eta_max,
        condition11: a_max >= a_min && a_min > 0.0,
        with_multiplier: Limits { gamma: f64::NAN, e_limits: [f64::NAN; 4], e_max: 0.0 },
        with_assumption: Limits { gamma: f64::NAN, e_limits: [f64::NAN; 4], e_max: 0.0 },
    };
    b.with_multiplier = limits(&b, gamma_multiplier);
    b.with_assumption = limits(&b, gamma_a);
    Ok(b)
}
