//! Gaits of any mechanism: periodic orbits of the map from one strike of a contact to the next,
//! modulo the symmetry the model states (a relabelling after the strike, translation along the
//! slope), found without a guess.
//!
//! # The section and its chart
//! The section is the set of states right after a strike of the `[gait]`'s `strike` contact
//! (after the relabelling). On it some contacts are closed (their gaps vanish: the stance foot,
//! the foot that just struck, a locked knee) and some are at rest (their normal, and for
//! sticking contacts tangential, velocities vanish). [`StrikeChart`] takes these constraints from
//! a state on the section and keeps as coordinates the positions and velocities they leave free,
//! less the positions of the translation coordinates: it lifts coordinates to a state by solving
//! the gap equations for the dependent positions (Newton) and the velocity constraints for the
//! dependent velocities (linear), choosing the dependent coordinates by Gaussian elimination with
//! column pivoting. For P2's compass biped this gives P2's three coordinates (the stance angle
//! and two angular rates).
//!
//! # Finding gaits from nothing
//! Starts: the model's initial state, and its initial posture set in rigid rotation about the
//! lowest closed contact at rates `±{¼, ½, ¾, 1, 1½} √(g/L)`. From each, the passive dynamics
//! runs for up to [`SETTLE_STRIKES`] strikes; where the strike-to-strike map settles (successive
//! post-strike states agree to [`SETTLE_TOL`]), from the mean of a cycle of 2 to [`MAX_CYCLE`]
//! steps a run settles onto (past a period doubling the period-1 gait is unstable and lies amid
//! the cycle), and where two successive strikes came within [`NEAR_RETURN`] (an unstable gait is
//! passed near, not approached by iterating), Newton's method on the return map
//! ([`crate::hybrid::section::ReturnMap::fixed_point`]) looks for a fixed point. Distinct gaits
//! are reported with their period, state, Floquet multipliers (of the chart: the nontrivial
//! ones), the friction a sticking stance needs (`μ_stick`, the largest `|λ_t|/λ_n` of sticking
//! contacts along the step) and the impulse ratio `|Λ_t|/Λ_n` of the strike.

use std::ops::ControlFlow;

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::Mechanism;
use crate::hybrid::driver::{EventRecord, PoincareSection};
use crate::hybrid::lagrangian::{join, split, ContactMode, Lagrangian, Modes};
use crate::hybrid::section::{Derivatives, JacobianRoute, NewtonStop, ReturnMap, SectionChart};
use crate::hybrid::{DriverSettings, EventDriver, EventKind, Observer, Peak, Step, Tolerances, ZenoRule};
use crate::mechanics::multibody_system::MultibodySystem;
use crate::mechanics::ContactSystem;
use crate::Error;

mod search;

use search::*;
pub(crate) use search::{driver_for, orbit_details};

/// Strikes simulated from a start while waiting for the step map to settle.
pub const SETTLE_STRIKES: usize = 60;
/// Successive post-strike states settle when they agree to this, relative to the coordinates'
/// scales.
pub const SETTLE_TOL: f64 = 1e-6;
/// A constraint holds at a section state when its gap (velocity) is within this of the length
/// (velocity) scale.
pub const SECTION_TOL: f64 = 1e-8;
/// Integration steps allowed per strike (a step of a gait takes some tens): a start that falls
/// and slides, or a perturbed point that does not step, fails fast.
pub const MAX_STEPS_PER_STRIKE: usize = 5_000;
/// A run passes near a gait when two successive post-strike states agree to this (relative to
/// the coordinates' scales): its closer pair is a Newton start.
pub const NEAR_RETURN: f64 = 0.05;
/// The longest cycle of steps a settled run is recognised as (its mean is a Newton start).
pub const MAX_CYCLE: usize = 8;
/// Two gaits are the same when their section coordinates agree to this (relative to scales).
pub const SAME_GAIT_TOL: f64 = 1e-5;

/// The `[gait]` table: which strike ends a step, which coordinates translate.
#[derive(Debug, Clone, PartialEq)]
pub struct GaitSpec {
    /// The contact whose strike ends a step.
    pub strike: usize,
    /// Coordinates whose positions the symmetry shifts (translation along the slope).
    pub translation: Vec<usize>,
}

type State = DMatrix<f64>;

/// Coordinates on the post-strike section (module docs).
pub struct StrikeChart<'a> {
    sys: &'a MultibodySystem,
    reference: State,
    /// Contacts whose gaps vanish on the section.
    gaps: Vec<usize>,
    /// Velocity constraints: `(contact, tangential)`.
    rests: Vec<(usize, bool)>,
    q_free: Vec<usize>,
    q_dep: Vec<usize>,
    v_free: Vec<usize>,
    v_dep: Vec<usize>,
    q_scale: DVector<f64>,
    v_scale: DVector<f64>,
}

/// Columns chosen by Gaussian elimination with column pivoting among `candidates` for the rows
/// of `a` (dependent rows dropped); returns `(kept rows, pivot columns)`.
pub(crate) fn pivots(a: &DMatrix<f64>, candidates: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut m = a.clone();
    let (rows, _) = m.shape();
    let scale = m.amax().max(f64::MIN_POSITIVE);
    let mut used_cols: Vec<usize> = vec![];
    let mut kept: Vec<usize> = vec![];
    for r in 0..rows {
        let best = candidates
            .iter()
            .copied()
            .filter(|c| !used_cols.contains(c))
            .max_by(|&x, &y| m[(r, x)].abs().total_cmp(&m[(r, y)].abs()));
        let Some(c) = best else { continue };
        if m[(r, c)].abs() <= 1e-10 * scale {
            continue; // a dependent row
        }
        for r2 in r + 1..rows {
            let f = m[(r2, c)] / m[(r, c)];
            for k in 0..m.ncols() {
                m[(r2, k)] -= f * m[(r, k)];
            }
        }
        used_cols.push(c);
        kept.push(r);
    }
    (kept, used_cols)
}

impl<'a> StrikeChart<'a> {
    /// The chart at the section state `x` (module docs); `translation` lists the coordinates
    /// whose positions are not coordinates of the chart.
    pub fn new(sys: &'a MultibodySystem, x: &State, translation: &[usize]) -> Self {
        let (gaps, rests) = Self::constraints_at(sys, x);
        Self::with_constraints(sys, x, translation, gaps, rests)
    }

    /// The chart at the section state `x` in which the coordinates `keep` (indices into
    /// `[q | q̇]`: a position `k`, a velocity `N + k`) are free coordinates; `Err(k)` names one
    /// the section's constraints fix given the others (or a translation coordinate).
    pub fn keeping(sys: &'a MultibodySystem, x: &State, translation: &[usize], keep: &[usize]) -> Result<Self, usize> {
        let n = sys.dof();
        if let Some(&k) = keep.iter().find(|&&k| k < n && translation.contains(&k)) {
            return Err(k);
        }
        let (gaps, rests) = Self::constraints_at(sys, x);
        let free = Self::with_constraints(sys, x, translation, gaps.clone(), rests.clone());
        let kept = Self::build(sys, x, translation, gaps, rests, keep);
        let lost = |a: &Self, b: &Self| a.gaps.len() < b.gaps.len() || a.rests.len() < b.rests.len();
        if lost(&kept, &free) {
            // A coordinate the constraints fix by itself, else the combination (the first).
            let alone = |k: usize| Self::build(sys, x, translation, free.gaps.clone(), free.rests.clone(), &[k]);
            return Err(keep.iter().copied().find(|&k| lost(&alone(k), &free)).unwrap_or(keep[0]));
        }
        Ok(kept)
    }

    /// The contacts closed at `x` and the velocity constraints holding there (module docs).
    fn constraints_at(sys: &MultibodySystem, x: &State) -> (Vec<usize>, Vec<(usize, bool)>) {
        let (q, v) = split(x);
        let (ls, ts) = (sys.length_scale(), sys.time_scale());
        let vs = ls / ts;
        let gaps: Vec<usize> = (0..sys.contact_count()).filter(|&i| sys.gap(i, &q).abs() <= SECTION_TOL * ls).collect();
        let mut rests = vec![];
        for &i in &gaps {
            if sys.normal_jacobian(i, &q).dot(&v).abs() <= SECTION_TOL * vs {
                rests.push((i, false));
                if sys.law(i).mu > 0.0 && sys.tangent_jacobian(i, &q).dot(&v).abs() <= SECTION_TOL * vs {
                    rests.push((i, true));
                }
            }
        }
        (gaps, rests)
    }

    /// The chart with the given closed contacts (`gaps`) and velocity constraints (`rests`:
    /// `(contact, tangential)`).
    pub fn with_constraints(
        sys: &'a MultibodySystem,
        x: &State,
        translation: &[usize],
        gaps: Vec<usize>,
        rests: Vec<(usize, bool)>,
    ) -> Self {
        Self::build(sys, x, translation, gaps, rests, &[])
    }

    /// [`Self::with_constraints`] with the coordinates `keep` (indices into `[q | q̇]`) never
    /// chosen as dependent ones (rows they would have to answer are dropped).
    fn build(
        sys: &'a MultibodySystem,
        x: &State,
        translation: &[usize],
        gaps: Vec<usize>,
        rests: Vec<(usize, bool)>,
        keep: &[usize],
    ) -> Self {
        let n = sys.dof();
        let (q, _) = split(x);
        let ts = sys.time_scale();
        let q_scale = sys.coordinate_scale();
        // Columns in their coordinates' own units (a length, a radian), so that the choice of
        // coordinates does not depend on the unit of length.
        let cand_q: Vec<usize> = (0..n).filter(|k| !translation.contains(k) && !keep.contains(k)).collect();
        let gq = DMatrix::from_fn(gaps.len(), n, |r, c| sys.normal_jacobian(gaps[r], &q)[c] * q_scale[c]);
        let (kept, q_dep) = pivots(&gq, &cand_q);
        let gaps: Vec<usize> = kept.iter().map(|&r| gaps[r]).collect();
        let row = |&(i, t): &(usize, bool)| if t { sys.tangent_jacobian(i, &q) } else { sys.normal_jacobian(i, &q) };
        let cv = DMatrix::from_fn(rests.len(), n, |r, c| row(&rests[r])[c] * q_scale[c]);
        let all: Vec<usize> = (0..n).collect();
        let cand_v: Vec<usize> = (0..n).filter(|k| !keep.contains(&(n + k))).collect();
        let (kept, v_dep) = pivots(&cv, &cand_v);
        let rests: Vec<(usize, bool)> = kept.iter().map(|&r| rests[r]).collect();
        let q_free = (0..n).filter(|k| !translation.contains(k) && !q_dep.contains(k)).collect();
        let v_free = all.iter().copied().filter(|k| !v_dep.contains(k)).collect();
        let v_scale = &q_scale / ts;
        StrikeChart { sys, reference: x.clone(), gaps, rests, q_free, q_dep, v_free, v_dep, q_scale, v_scale }
    }

    /// The same chart (constraints and coordinates) on another system of the same mechanism
    /// (a parameter changed: continuation), with the reference state `x`.
    pub fn rebind<'b>(&self, sys: &'b MultibodySystem, x: &State) -> StrikeChart<'b> {
        StrikeChart {
            sys,
            reference: x.clone(),
            gaps: self.gaps.clone(),
            rests: self.rests.clone(),
            q_free: self.q_free.clone(),
            q_dep: self.q_dep.clone(),
            v_free: self.v_free.clone(),
            v_dep: self.v_dep.clone(),
            q_scale: sys.coordinate_scale(),
            v_scale: sys.coordinate_scale() / sys.time_scale(),
        }
    }

    /// The state the chart was made at (its dependent positions start Newton from it; its
    /// translation coordinates are the lifted states').
    pub fn reference_state(&self) -> State {
        self.reference.clone()
    }

    /// Names of the chart's coordinates, from the coordinate names.
    pub fn names(&self, coordinates: &[String]) -> Vec<String> {
        self.q_free
            .iter()
            .map(|&k| coordinates[k].clone())
            .chain(self.v_free.iter().map(|&k| format!("{}_dot", coordinates[k])))
            .collect()
    }
}

impl SectionChart<State> for StrikeChart<'_> {
    fn dim(&self) -> usize {
        self.q_free.len() + self.v_free.len()
    }

    fn lift(&self, y: &DVector<f64>) -> State {
        let (mut q, mut v) = split(&self.reference);
        for (j, &k) in self.q_free.iter().enumerate() {
            q[k] = y[j];
        }
        // The gaps: Newton on the dependent positions.
        let k = self.gaps.len();
        let ls = self.sys.length_scale();
        for _ in 0..30 {
            let g = DVector::from_fn(k, |r, _| self.sys.gap(self.gaps[r], &q));
            if g.amax() <= 1e-15 * ls {
                break;
            }
            let a = DMatrix::from_fn(k, k, |r, c| self.sys.normal_jacobian(self.gaps[r], &q)[self.q_dep[c]]);
            let Some(d) = a.lu().solve(&g) else { break };
            for (c, &j) in self.q_dep.iter().enumerate() {
                q[j] -= d[c];
            }
        }
        let off = self.q_free.len();
        for (j, &kk) in self.v_free.iter().enumerate() {
            v[kk] = y[off + j];
        }
        // The velocity constraints: C_dep v_dep = −C_free v_free.
        let r = self.rests.len();
        if r > 0 {
            let rows: Vec<DVector<f64>> = self
                .rests
                .iter()
                .map(|&(i, t)| if t { self.sys.tangent_jacobian(i, &q) } else { self.sys.normal_jacobian(i, &q) })
                .collect();
            for &j in &self.v_dep {
                v[j] = 0.0;
            }
            let a = DMatrix::from_fn(r, r, |a, c| rows[a][self.v_dep[c]]);
            let b = DVector::from_fn(r, |a, _| -rows[a].dot(&v));
            if let Some(d) = a.lu().solve(&b) {
                for (c, &j) in self.v_dep.iter().enumerate() {
                    v[j] = d[c];
                }
            }
        }
        join(&q, &v)
    }

    fn chart(&self, x: &State) -> DVector<f64> {
        let (q, v) = split(x);
        DVector::from_iterator(self.dim(), self.q_free.iter().map(|&k| q[k]).chain(self.v_free.iter().map(|&k| v[k])))
    }

    /// The lift's Jacobian by the implicit function theorem on its constraints: with `G` the
    /// gap rows and `C` the velocity rows (split into free and dependent columns),
    /// `δq_dep = −G_dep⁻¹ G_free δq_free` and
    /// `δq̇_dep = −C_dep⁻¹ (C_free δq̇_free + ∂(C q̇)/∂q δq)`, the last term from the model's
    /// exact derivatives of its Jacobians.
    fn lift_jacobian(&self, y: &DVector<f64>) -> Option<DMatrix<f64>> {
        let n = self.sys.dof();
        let x = self.lift(y);
        let (q, v) = split(&x);
        let (nq, nv) = (self.q_free.len(), self.v_free.len());
        let m = nq + nv;
        let mut dq = DMatrix::zeros(n, m);
        for (j, &k) in self.q_free.iter().enumerate() {
            dq[(k, j)] = 1.0;
        }
        let k = self.gaps.len();
        if k > 0 {
            let rows: Vec<DVector<f64>> = self.gaps.iter().map(|&i| self.sys.normal_jacobian(i, &q)).collect();
            let a = DMatrix::from_fn(k, k, |r, c| rows[r][self.q_dep[c]]);
            let b = DMatrix::from_fn(k, nq, |r, c| rows[r][self.q_free[c]]);
            let d = a.lu().solve(&b)?;
            for (r, &j) in self.q_dep.iter().enumerate() {
                for c in 0..nq {
                    dq[(j, c)] = -d[(r, c)];
                }
            }
        }
        let mut dv = DMatrix::zeros(n, m);
        for (j, &kk) in self.v_free.iter().enumerate() {
            dv[(kk, nq + j)] = 1.0;
        }
        let r = self.rests.len();
        if r > 0 {
            let lin = self.sys.linearization(0.0, &q, &v)?;
            let row = |&(i, t): &(usize, bool)| {
                if t {
                    self.sys.tangent_jacobian(i, &q)
                } else {
                    self.sys.normal_jacobian(i, &q)
                }
            };
            let rows: Vec<DVector<f64>> = self.rests.iter().map(row).collect();
            // ∂(C q̇)/∂q: row a is (∂w_a/∂q)ᵀ q̇.
            let dcv = DMatrix::from_fn(r, n, |a, kq| {
                let (i, t) = self.rests[a];
                let c = &lin.contacts[i];
                if t {
                    c.dwt_dq.column(kq).dot(&v)
                } else {
                    c.dwn_dq.column(kq).dot(&v)
                }
            });
            let a = DMatrix::from_fn(r, r, |a, c| rows[a][self.v_dep[c]]);
            // Everything the dependent velocities answer: C over all columns times δq̇ (the
            // free part, dependent columns zero) plus ∂(Cq̇)/∂q δq.
            let c_all = DMatrix::from_fn(r, n, |a, c| if self.v_dep.contains(&c) { 0.0 } else { rows[a][c] });
            let rhs = &c_all * &dv + &dcv * &dq;
            let d = a.lu().solve(&rhs)?;
            for (ri, &j) in self.v_dep.iter().enumerate() {
                for c in 0..m {
                    dv[(j, c)] = -d[(ri, c)];
                }
            }
        }
        let mut out = DMatrix::zeros(2 * n, m);
        out.view_mut((0, 0), (n, m)).copy_from(&dq);
        out.view_mut((n, 0), (n, m)).copy_from(&dv);
        Some(out)
    }

    fn chart_jacobian(&self, _x: &State) -> Option<DMatrix<f64>> {
        let n = self.sys.dof();
        let mut out = DMatrix::zeros(self.dim(), 2 * n);
        for (j, &k) in self.q_free.iter().enumerate() {
            out[(j, k)] = 1.0;
        }
        let nq = self.q_free.len();
        for (j, &k) in self.v_free.iter().enumerate() {
            out[(nq + j, n + k)] = 1.0;
        }
        Some(out)
    }

    fn scale(&self) -> DVector<f64> {
        DVector::from_iterator(
            self.dim(),
            self.q_free.iter().map(|&k| self.q_scale[k]).chain(self.v_free.iter().map(|&k| self.v_scale[k])),
        )
    }
}

/// Settings of a gait's search and Newton's method, planar ([`find_gaits`]) or in 3-D
/// (`api::gait_with`): [`Default`] is a planar mechanism's, [`GaitSettings::spatial`] a robot's
/// in 3-D.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaitSettings {
    /// Relative integration tolerance.
    pub rtol: f64,
    /// Newton tolerance on `‖P(y) − y‖` (in the chart's scales).
    pub newton_tol: f64,
    /// Newton iterations allowed.
    pub max_newton: usize,
    /// Longest step (strike to strike), in units of the model's time scale.
    pub max_step_time: f64,
    /// How the step map is differentiated (Newton and the multipliers): exact by default.
    pub derivatives: Derivatives,
}

impl Default for GaitSettings {
    fn default() -> Self {
        Self { rtol: 1e-10, newton_tol: 1e-9, max_newton: 20, max_step_time: 10.0, derivatives: Derivatives::Exact }
    }
}

impl GaitSettings {
    /// A robot's in 3-D: tighter (a 3-D gait's state is its own Newton's start, found by
    /// settling its passive motion, not by a search over many starts), and a longer bound on a
    /// step (a rolling wheel's strikes come far apart in its time scale). The 3-D gaits of the
    /// report are computed with these.
    pub const fn spatial() -> Self {
        Self { rtol: 1e-12, newton_tol: 1e-10, max_newton: 30, max_step_time: 100.0, derivatives: Derivatives::Exact }
    }
}

/// One gait.
#[derive(Debug, Clone, Serialize)]
pub struct Gait {
    /// Step period (s).
    pub period: f64,
    /// The state right after the strike (and relabelling): `q`.
    pub q: Vec<f64>,
    /// `q̇` there.
    pub v: Vec<f64>,
    /// `q` just before the strike (before its impulse and the relabelling).
    pub pre_strike_q: Vec<f64>,
    /// `q̇` there.
    pub pre_strike_v: Vec<f64>,
    /// Names of the section coordinates (the chart's).
    pub section_coordinates: Vec<String>,
    /// The fixed point in those coordinates.
    pub section_point: Vec<f64>,
    /// Floquet multipliers `(re, im)`, largest modulus first.
    pub multipliers: Vec<[f64; 2]>,
    /// Largest multiplier modulus.
    pub spectral_radius: f64,
    /// Whether every multiplier lies inside the unit circle.
    pub stable: bool,
    /// How the multipliers were obtained (variational equations, or differences and why).
    pub derivatives: JacobianRoute,
    /// Largest `|λ_t| / λ_n` of sticking contacts along the step (`None`: no sticking contact).
    pub mu_stick: Option<f64>,
    /// Whether no contact slips along the step (every closed frictional contact sticks).
    pub sticking: bool,
    /// `|Λ_t| / Λ_n` of the strike's impulse (`None` for a frictionless strike).
    pub impulse_ratio: Option<f64>,
    /// Displacement of the translation coordinates over a step.
    pub step_length: Vec<f64>,
    /// Newton's residual.
    pub residual: f64,
    /// Events per step.
    pub events_per_step: usize,
    /// The clearance (gap over the length scale) of a contact that ignores scuffing: its lowest
    /// point while its rule keeps it from striking, after it first stops rising (a swing foot
    /// in mid-swing, past its lift-off): negative when the gait relies on the rule (the foot
    /// passes below its line), `None` without such a contact.
    pub min_clearance: Option<f64>,
}

/// What `contactlab gait` reports.
#[derive(Debug, Clone, Serialize)]
pub struct GaitSearch {
    /// Every distinct gait found, stable first.
    pub gaits: Vec<Gait>,
    /// Starts tried.
    pub starts: usize,
    /// Starts whose step map settled.
    pub settled: usize,
    /// Starts whose step map settled onto a cycle of 2 to [`MAX_CYCLE`] steps (past a period
    /// doubling: the period-1 gait is then unstable, and Newton starts from the cycle's mean).
    pub cycled: usize,
    /// Why none was found, when none was.
    pub reason: Option<String>,
    /// When no gait was found at the model's friction: the `μ_stick` of a gait found with
    /// sticking contacts (friction raised to [`HIGH_MU`]), i.e. the friction that gait needs.
    pub needs_mu: Option<f64>,
}

/// The friction used to ask which μ a sticking gait would need.
pub const HIGH_MU: f64 = 1e3;

/// Finds the gaits of `m` (module docs); the model needs a `[gait]` table.
pub fn find_gaits(m: &Mechanism, settings: &GaitSettings) -> Result<GaitSearch, Error> {
    let spec = m.gait.clone().ok_or_else(|| {
        Error::input(&m.source, "gait", "missing; a [gait] table names the striking contact (strike = \"...\")")
    })?;
    crate::error::fraction("rtol", settings.rtol)?;
    crate::error::fraction("newton_tol", settings.newton_tol)?;
    let mut search = Search { m, spec: &spec, settings }.run(m.system()?);
    if search.gaits.is_empty() && m.contacts.iter().any(|c| c.law.mu > 0.0 && c.law.mu < HIGH_MU) {
        let mut sticky = m.clone();
        for c in &mut sticky.contacts {
            if c.law.mu > 0.0 {
                c.law.mu = HIGH_MU;
            }
        }
        let found = Search { m: &sticky, spec: &spec, settings }.run(sticky.system()?);
        search.needs_mu = found.gaits.iter().filter_map(|g| g.mu_stick).reduce(f64::min);
        if let Some(mu) = search.needs_mu {
            search.reason =
                Some(format!("no gait at the model's friction; with sticking feet the gait needs mu >= {mu:.4}"));
        }
    }
    Ok(search)
}

/// The gait through (near) the post-strike state `(q, q̇)`: Newton's method on the
/// strike-to-strike map from there, with the multipliers and details of [`find_gaits`]; `None`
/// if Newton does not converge (continuing a known gait, or refining one a user has).
pub fn gait_from(m: &Mechanism, q: &[f64], v: &[f64], settings: &GaitSettings) -> Result<Option<Gait>, Error> {
    Ok(refine_gait(m, q, v, settings)?.ok())
}

/// [`gait_from`], with the reason Newton stopped when it does not converge.
pub fn refine_gait(
    m: &Mechanism,
    q: &[f64],
    v: &[f64],
    settings: &GaitSettings,
) -> Result<Result<Gait, NewtonStop>, Error> {
    let spec = m.gait.clone().ok_or_else(|| {
        Error::input(&m.source, "gait", "missing; a [gait] table names the striking contact (strike = \"...\")")
    })?;
    m.check_state("state", q)?;
    m.check_state("state", v)?;
    crate::error::fraction("rtol", settings.rtol)?;
    crate::error::fraction("newton_tol", settings.newton_tol)?;
    struct From<'a>(&'a Mechanism, &'a GaitSpec, &'a GaitSettings, &'a [f64], &'a [f64]);
    impl From<'_> {
        fn run(self, sys: MultibodySystem) -> Result<Gait, NewtonStop> {
            let lag = Lagrangian::new(&sys);
            let x = join(&DVector::<f64>::from_column_slice(self.3), &DVector::<f64>::from_column_slice(self.4));
            newton_gait(&sys, &lag, self.0, self.1, self.2, &x)
        }
    }
    Ok(From(m, &spec, settings, q, v).run(m.system()?))
}
