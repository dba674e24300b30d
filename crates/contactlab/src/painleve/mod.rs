//! Painlevé's paradox and slip episodes at contact 0 of any [`ContactSystem`] (P2, Section 2 and
//! 3.3, for any system): P2's `A(q, q̇)` and `B(q, μ)` (eqs. 20–21) and the case of Table 2.1
//! they select ([`ab`], [`slip_case`]); how a slip episode ends, dynamic jamming located in
//! Génot and Brogliato's desingularised time, and the jam threshold ([`slip`], [`desingular`]).
//! P2's walkers ([`crate::walking`]) and any mechanism ([`crate::multibody::painleve`]) stand on
//! this module.
//!
//! Signs: `A` and `B` follow P2 (`a_n = −A + B f_n`), with the core's bias `h = −(H + G)`:
//! `A = −w_nᵀM⁻¹h − ẇ_nᵀq̇`, `B = w_nᵀM⁻¹(w_n − σμ w_t)`.

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::hybrid::{DriverSettings, EventDriver, Tolerances};
use crate::mechanics::ContactSystem;

pub mod desingular;
pub mod slip;

/// The state `[q | q̇]`.
type State = DMatrix<f64>;

/// The integration settings of a slip episode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlipSettings {
    /// Relative integration tolerance.
    pub rtol: f64,
    /// Longest episode, in units of the system's time scale.
    pub max_step_time: f64,
}

impl Default for SlipSettings {
    fn default() -> Self {
        Self { rtol: 1e-10, max_step_time: 100.0 }
    }
}

impl From<&SlipSettings> for SlipSettings {
    fn from(s: &SlipSettings) -> Self {
        *s
    }
}

impl SlipSettings {
    /// Checks every setting (an [`crate::Error::Argument`] names the first that is out of range).
    pub fn validate(&self) -> Result<(), crate::Error> {
        crate::error::fraction("rtol", self.rtol)?;
        crate::error::positive("max_step_time", self.max_step_time)?;
        Ok(())
    }

    /// The event driver of an episode at most `t_max` long.
    pub(crate) fn driver(&self, t_max: f64) -> EventDriver {
        EventDriver::new(DriverSettings {
            tol: Tolerances { rtol: self.rtol, atol: self.rtol },
            t_max,
            max_events: 50,
            ..Default::default()
        })
    }
}

/// The cases of P2's Table 2.1 for a slipping stance foot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlipCase {
    /// Case 1 (`A > 0, B > 0`): consistent slip, `f_n = A/B`.
    ConsistentSlip,
    /// Case 2 (`A < 0, B > 0`): consistent separation.
    Separation,
    /// Case 3 (`A < 0, B < 0`): slip or separation (indeterminate).
    Indeterminate,
    /// Case 4 (`A > 0, B < 0`): no finite-force solution (inconsistent).
    Inconsistent,
}

/// `A(q, q̇)` and `B(q, μ)` of P2 eqs. (20)–(21) at the stance contact (contact 0), for slip
/// direction `sigma = ±1`.
pub fn ab<S: ContactSystem>(sys: &S, q: &DVector<f64>, v: &DVector<f64>, sigma: f64) -> (f64, f64) {
    let m = sys.mass_matrix(q);
    let Some(chol) = m.cholesky() else { return (f64::NAN, f64::NAN) };
    let wn = sys.normal_jacobian(0, q);
    let wt = sys.tangent_jacobian(0, q);
    let minv_wn = chol.solve(&wn);
    let a = -minv_wn.dot(&sys.bias(0.0, q, v)) - sys.jacobian_dot_v(0, q, v).0;
    let b = minv_wn.dot(&(wn - wt * (sigma * sys.law(0).mu)));
    (a, b)
}

/// `A` and `B` of [`ab`] with the magnitudes of the terms each one sums.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AbTerms {
    /// `A` (eq. 21).
    pub a: f64,
    /// `B` (eq. 21).
    pub b: f64,
    /// `|w_nᵀM⁻¹h(q, 0)| + |w_nᵀM⁻¹(h(q, q̇) − h(q, 0)) + ẇ_nᵀq̇|`: the magnitude of `A`'s
    /// position-only (gravity) and velocity (centripetal) parts, which cancel at `A = 0`; the
    /// integrator's relative error in the state is an error in `A` relative to it.
    pub a_scale: f64,
    /// `w_nᵀM⁻¹w_n + μ|w_nᵀM⁻¹w_t|`: the scale of `B`'s terms.
    pub b_scale: f64,
}

/// [`ab`] with the scales of the terms (for deciding whether `A` or `B` is resolved from zero).
pub fn ab_terms<S: ContactSystem>(sys: &S, q: &DVector<f64>, v: &DVector<f64>, sigma: f64) -> AbTerms {
    desingular::slip_parts(sys, 0.0, q, v, sigma, &[]).map_or(
        AbTerms { a: f64::NAN, b: f64::NAN, a_scale: f64::NAN, b_scale: f64::NAN },
        |p| AbTerms { a: p.a, b: p.b, a_scale: p.a_scale, b_scale: p.b_scale },
    )
}

/// The case of Table 2.1 selected by the signs of `A` and `B`.
pub fn slip_case(a: f64, b: f64) -> SlipCase {
    match (a > 0.0, b > 0.0) {
        (true, true) => SlipCase::ConsistentSlip,
        (false, true) => SlipCase::Separation,
        (false, false) => SlipCase::Indeterminate,
        (true, false) => SlipCase::Inconsistent,
    }
}
