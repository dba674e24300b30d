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

use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use serde::Serialize;

use super::{Mechanism, Visit};
use crate::hybrid::driver::{EventRecord, Section};
use crate::hybrid::lagrangian::{join, split, ContactMode, Lagrangian, Modes};
use crate::hybrid::section::{Derivatives, JacobianRoute, ReturnMap, SectionChart};
use crate::hybrid::{DriverSettings, EventDriver, EventKind, Observer, Peak, Step, Tolerances, ZenoRule};
use crate::mechanics::multibody_system::MultibodySystem;
use crate::mechanics::ContactSystem;
use crate::Error;

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

type State<const N: usize> = SMatrix<f64, N, 2>;

/// Coordinates on the post-strike section (module docs).
pub struct StrikeChart<'a, const N: usize> {
    sys: &'a MultibodySystem<N>,
    reference: State<N>,
    /// Contacts whose gaps vanish on the section.
    gaps: Vec<usize>,
    /// Velocity constraints: `(contact, tangential)`.
    rests: Vec<(usize, bool)>,
    q_free: Vec<usize>,
    q_dep: Vec<usize>,
    v_free: Vec<usize>,
    v_dep: Vec<usize>,
    q_scale: SVector<f64, N>,
    v_scale: SVector<f64, N>,
}

/// Columns chosen by Gaussian elimination with column pivoting among `candidates` for the rows
/// of `a` (dependent rows dropped); returns `(kept rows, pivot columns)`.
fn pivots(a: &DMatrix<f64>, candidates: &[usize]) -> (Vec<usize>, Vec<usize>) {
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

impl<'a, const N: usize> StrikeChart<'a, N> {
    /// The chart at the section state `x` (module docs); `translation` lists the coordinates
    /// whose positions are not coordinates of the chart.
    pub fn new(sys: &'a MultibodySystem<N>, x: &State<N>, translation: &[usize]) -> Self {
        let (gaps, rests) = Self::constraints_at(sys, x);
        Self::with_constraints(sys, x, translation, gaps, rests)
    }

    /// The chart at the section state `x` in which the coordinates `keep` (indices into
    /// `[q | q̇]`: a position `k`, a velocity `N + k`) are free coordinates; `Err(k)` names one
    /// the section's constraints fix given the others (or a translation coordinate).
    pub fn keeping(
        sys: &'a MultibodySystem<N>,
        x: &State<N>,
        translation: &[usize],
        keep: &[usize],
    ) -> Result<Self, usize> {
        if let Some(&k) = keep.iter().find(|&&k| k < N && translation.contains(&k)) {
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
    fn constraints_at(sys: &MultibodySystem<N>, x: &State<N>) -> (Vec<usize>, Vec<(usize, bool)>) {
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
        sys: &'a MultibodySystem<N>,
        x: &State<N>,
        translation: &[usize],
        gaps: Vec<usize>,
        rests: Vec<(usize, bool)>,
    ) -> Self {
        Self::build(sys, x, translation, gaps, rests, &[])
    }

    /// [`Self::with_constraints`] with the coordinates `keep` (indices into `[q | q̇]`) never
    /// chosen as dependent ones (rows they would have to answer are dropped).
    fn build(
        sys: &'a MultibodySystem<N>,
        x: &State<N>,
        translation: &[usize],
        gaps: Vec<usize>,
        rests: Vec<(usize, bool)>,
        keep: &[usize],
    ) -> Self {
        let (q, _) = split(x);
        let ts = sys.time_scale();
        let cand_q: Vec<usize> = (0..N).filter(|k| !translation.contains(k) && !keep.contains(k)).collect();
        let gq = DMatrix::from_fn(gaps.len(), N, |r, c| sys.normal_jacobian(gaps[r], &q)[c]);
        let (kept, q_dep) = pivots(&gq, &cand_q);
        let gaps: Vec<usize> = kept.iter().map(|&r| gaps[r]).collect();
        let row = |&(i, t): &(usize, bool)| if t { sys.tangent_jacobian(i, &q) } else { sys.normal_jacobian(i, &q) };
        let cv = DMatrix::from_fn(rests.len(), N, |r, c| row(&rests[r])[c]);
        let all: Vec<usize> = (0..N).collect();
        let cand_v: Vec<usize> = (0..N).filter(|k| !keep.contains(&(N + k))).collect();
        let (kept, v_dep) = pivots(&cv, &cand_v);
        let rests: Vec<(usize, bool)> = kept.iter().map(|&r| rests[r]).collect();
        let q_free = (0..N).filter(|k| !translation.contains(k) && !q_dep.contains(k)).collect();
        let v_free = all.iter().copied().filter(|k| !v_dep.contains(k)).collect();
        let q_scale = sys.coordinate_scale();
        StrikeChart { sys, reference: *x, gaps, rests, q_free, q_dep, v_free, v_dep, q_scale, v_scale: q_scale / ts }
    }

    /// The same chart (constraints and coordinates) on another system of the same mechanism
    /// (a parameter changed: continuation), with the reference state `x`.
    pub fn rebind<'b>(&self, sys: &'b MultibodySystem<N>, x: &State<N>) -> StrikeChart<'b, N> {
        StrikeChart {
            sys,
            reference: *x,
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
    pub fn reference_state(&self) -> State<N> {
        self.reference
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

impl<const N: usize> SectionChart<State<N>> for StrikeChart<'_, N> {
    fn dim(&self) -> usize {
        self.q_free.len() + self.v_free.len()
    }

    fn lift(&self, y: &DVector<f64>) -> State<N> {
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
            let rows: Vec<SVector<f64, N>> = self
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

    fn chart(&self, x: &State<N>) -> DVector<f64> {
        let (q, v) = split(x);
        DVector::from_iterator(self.dim(), self.q_free.iter().map(|&k| q[k]).chain(self.v_free.iter().map(|&k| v[k])))
    }

    /// The lift's Jacobian by the implicit function theorem on its constraints: with `G` the
    /// gap rows and `C` the velocity rows (split into free and dependent columns),
    /// `δq_dep = −G_dep⁻¹ G_free δq_free` and
    /// `δq̇_dep = −C_dep⁻¹ (C_free δq̇_free + ∂(C q̇)/∂q δq)`, the last term from the model's
    /// exact derivatives of its Jacobians.
    fn lift_jacobian(&self, y: &DVector<f64>) -> Option<DMatrix<f64>> {
        let x = self.lift(y);
        let (q, v) = split(&x);
        let (nq, nv) = (self.q_free.len(), self.v_free.len());
        let m = nq + nv;
        let mut dq = DMatrix::zeros(N, m);
        for (j, &k) in self.q_free.iter().enumerate() {
            dq[(k, j)] = 1.0;
        }
        let k = self.gaps.len();
        if k > 0 {
            let rows: Vec<SVector<f64, N>> = self.gaps.iter().map(|&i| self.sys.normal_jacobian(i, &q)).collect();
            let a = DMatrix::from_fn(k, k, |r, c| rows[r][self.q_dep[c]]);
            let b = DMatrix::from_fn(k, nq, |r, c| rows[r][self.q_free[c]]);
            let d = a.lu().solve(&b)?;
            for (r, &j) in self.q_dep.iter().enumerate() {
                for c in 0..nq {
                    dq[(j, c)] = -d[(r, c)];
                }
            }
        }
        let mut dv = DMatrix::zeros(N, m);
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
            let rows: Vec<SVector<f64, N>> = self.rests.iter().map(row).collect();
            // ∂(C q̇)/∂q: row a is (∂w_a/∂q)ᵀ q̇.
            let dcv = DMatrix::from_fn(r, N, |a, kq| {
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
            let c_all = DMatrix::from_fn(r, N, |a, c| if self.v_dep.contains(&c) { 0.0 } else { rows[a][c] });
            let rhs = &c_all * &dv + &dcv * &dq;
            let d = a.lu().solve(&rhs)?;
            for (ri, &j) in self.v_dep.iter().enumerate() {
                for c in 0..m {
                    dv[(j, c)] = -d[(ri, c)];
                }
            }
        }
        let mut out = DMatrix::zeros(2 * N, m);
        out.view_mut((0, 0), (N, m)).copy_from(&dq);
        out.view_mut((N, 0), (N, m)).copy_from(&dv);
        Some(out)
    }

    fn chart_jacobian(&self, _x: &State<N>) -> Option<DMatrix<f64>> {
        let mut out = DMatrix::zeros(self.dim(), 2 * N);
        for (j, &k) in self.q_free.iter().enumerate() {
            out[(j, k)] = 1.0;
        }
        let nq = self.q_free.len();
        for (j, &k) in self.v_free.iter().enumerate() {
            out[(nq + j, N + k)] = 1.0;
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

/// Settings of [`find_gaits`].
#[derive(Debug, Clone, Copy)]
pub struct GaitSettings {
    /// Relative integration tolerance.
    pub rtol: f64,
    /// Newton tolerance (relative to the chart's scales).
    pub newton_tol: f64,
    /// Newton iterations.
    pub max_newton: usize,
    /// Longest step, in units of the model's time scale.
    pub max_step_time: f64,
    /// How the step map is differentiated (Newton and the multipliers): exact by default.
    pub derivatives: Derivatives,
}

impl Default for GaitSettings {
    fn default() -> Self {
        Self { rtol: 1e-10, newton_tol: 1e-9, max_newton: 20, max_step_time: 10.0, derivatives: Derivatives::Exact }
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
    let mut search = m.visit(Search { m, spec: &spec, settings })?;
    if search.gaits.is_empty() && m.contacts.iter().any(|c| c.law.mu > 0.0 && c.law.mu < HIGH_MU) {
        let mut sticky = m.clone();
        for c in &mut sticky.contacts {
            if c.law.mu > 0.0 {
                c.law.mu = HIGH_MU;
            }
        }
        let found = sticky.visit(Search { m: &sticky, spec: &spec, settings })?;
        search.needs_mu = found.gaits.iter().filter_map(|g| g.mu_stick).reduce(f64::min);
        if let Some(mu) = search.needs_mu {
            search.reason =
                Some(format!("no gait at the model's friction; with sticking feet the gait needs mu >= {mu:.4}"));
        }
    }
    Ok(search)
}

struct Search<'a> {
    m: &'a Mechanism,
    spec: &'a GaitSpec,
    settings: &'a GaitSettings,
}

/// Records the post-strike states of a run.
struct Strikes<const N: usize> {
    contact: usize,
    states: Vec<(f64, State<N>)>,
    limit: usize,
    /// A run ends when no strike comes for this long (s): the mechanism fell or stopped.
    patience: f64,
}

impl<const N: usize> Observer<State<N>, Modes> for Strikes<N> {
    fn on_step(&mut self, _step: &Step<State<N>>, t_end: f64, _mode: &Modes) -> ControlFlow<()> {
        let last = self.states.last().map_or(0.0, |s| s.0);
        if t_end - last > self.patience {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<State<N>, Modes>) -> ControlFlow<()> {
        if ev.info.kind == EventKind::Impact && ev.info.contact == Some(self.contact) {
            self.states.push((ev.t, ev.after));
            if self.states.len() >= self.limit {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

impl Visit for Search<'_> {
    type Output = GaitSearch;
    fn visit<const N: usize>(self, sys: MultibodySystem<N>) -> GaitSearch {
        let (m, spec, s) = (self.m, self.spec, self.settings);
        let lag = Lagrangian::new(&sys);
        let ts = sys.time_scale();
        let driver = |t_max: f64, events: usize, steps: usize| driver_for(s, t_max, events, steps);
        let starts = starting_states(&sys, m, &spec.translation);
        let scale = sys.coordinate_scale();
        let distance = |a: &State<N>, b: &State<N>| {
            (0..N)
                .filter(|k| !spec.translation.contains(k))
                .map(|k| ((a[(k, 0)] - b[(k, 0)]) / scale[k]).abs())
                .chain((0..N).map(|k| ((a[(k, 1)] - b[(k, 1)]) * ts / scale[k]).abs()))
                .fold(0.0, f64::max)
        };
        // Each start's strikes (in parallel: the system is shared, each thread has its own
        // Lagrangian and evaluation cache).
        use rayon::prelude::*;
        let runs: Vec<Vec<State<N>>> = starts
            .par_iter()
            .map(|x0| {
                let lag = Lagrangian::new(&sys);
                let patience = s.max_step_time * ts;
                let mut rec = Strikes { contact: spec.strike, states: vec![], limit: SETTLE_STRIKES, patience };
                let t_max = s.max_step_time * ts * SETTLE_STRIKES as f64;
                driver(t_max, 50 * SETTLE_STRIKES, MAX_STEPS_PER_STRIKE * SETTLE_STRIKES).run(
                    &lag,
                    0.0,
                    *x0,
                    &[],
                    &mut rec,
                );
                rec.states.into_iter().map(|(_, x)| x).collect()
            })
            .collect();
        // Newton starts: where a run settled (a stable gait), the mean of a cycle of steps a run
        // settled onto (past a period doubling the unstable period-1 gait lies amid the cycle),
        // and where two successive strikes came closest (an unstable gait is passed near, not
        // approached).
        let mut settled_at: Vec<State<N>> = vec![];
        let mut cycle_means: Vec<State<N>> = vec![];
        let mut passed_near: Vec<(f64, State<N>)> = vec![];
        for st in &runs {
            let last = st.len().saturating_sub(1);
            if st.len() >= 3 && distance(&st[last], &st[last - 1]) <= SETTLE_TOL {
                settled_at.push(st[last]);
                continue;
            }
            let cycle = (2..=MAX_CYCLE).find(|&p| {
                st.len() > 2 * p && (1..=p).all(|j| distance(&st[last + 1 - j], &st[last + 1 - j - p]) <= SETTLE_TOL)
            });
            if let Some(p) = cycle {
                // The mean in the section's chart (modulo the translation), lifted back onto it.
                let chart = StrikeChart::new(&sys, &st[last], &spec.translation);
                let mean = st[last - p + 1..]
                    .iter()
                    .map(|x| chart.chart(x))
                    .fold(None, |a: Option<DVector<f64>>, y| Some(a.map_or(y.clone(), |a| a + y)));
                if let Some(sum) = mean {
                    cycle_means.push(chart.lift(&(sum / p as f64)));
                }
                continue;
            }
            let closest = st.windows(2).map(|w| (distance(&w[0], &w[1]), w[1])).min_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((d, x)) = closest {
                if d <= NEAR_RETURN {
                    passed_near.push((d, x));
                }
            }
        }
        let (settled, cycled) = (settled_at.len(), cycle_means.len());
        passed_near.sort_by(|a, b| a.0.total_cmp(&b.0));
        let candidates: Vec<State<N>> =
            settled_at.into_iter().chain(cycle_means).chain(passed_near.into_iter().map(|p| p.1)).collect();
        let mut gaits: Vec<Gait> = vec![];
        let mut seen: Vec<State<N>> = vec![];
        for x in candidates {
            if seen.iter().any(|y| distance(&x, y) <= 1e-3) {
                continue;
            }
            seen.push(x);
            let Some(g) = newton_gait(&sys, &lag, m, spec, s, &x) else { continue };
            if gaits.iter().any(|h| {
                let hx = join(&SVector::from_column_slice(&h.q), &SVector::from_column_slice(&h.v));
                let gx = join(&SVector::from_column_slice(&g.q), &SVector::from_column_slice(&g.v));
                distance(&hx, &gx) <= SAME_GAIT_TOL
            }) {
                continue;
            }
            gaits.push(g);
        }
        gaits.sort_by(|a, b| b.stable.cmp(&a.stable).then(a.spectral_radius.total_cmp(&b.spectral_radius)));
        let reason = gaits.is_empty().then(|| {
            format!(
                "no gait found from {} starts ({settled} settled onto a repeating step, {cycled} onto a cycle of steps)",
                starts.len()
            )
        });
        GaitSearch { gaits, starts: starts.len(), settled, cycled, reason, needs_mu: None }
    }
}

pub(crate) fn driver_for(s: &GaitSettings, t_max: f64, events: usize, steps: usize) -> EventDriver {
    EventDriver::new(DriverSettings {
        tol: Tolerances { rtol: s.rtol, atol: s.rtol },
        t_max,
        max_events: events,
        max_steps: steps,
        zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
        ..Default::default()
    })
}

/// Newton's method on the strike-to-strike map from the post-strike state `x`, and the gait's
/// details; `None` if Newton does not converge. The translation coordinates of the reported
/// state are the model's initial ones (a gait is defined modulo the translation).
fn newton_gait<const N: usize>(
    sys: &MultibodySystem<N>,
    lag: &Lagrangian<&MultibodySystem<N>, N>,
    m: &Mechanism,
    spec: &GaitSpec,
    s: &GaitSettings,
    x: &State<N>,
) -> Option<Gait> {
    let ts = sys.time_scale();
    let chart = StrikeChart::new(sys, x, &spec.translation);
    let map = ReturnMap {
        system: lag,
        section: Section::AfterEvent { kind: EventKind::Impact, contact: Some(spec.strike) },
        chart,
        driver: driver_for(s, s.max_step_time * ts, 500, MAX_STEPS_PER_STRIKE),
        derivatives: s.derivatives,
    };
    let y0 = map.chart.chart(x);
    let fp = map.fixed_point(&y0, s.newton_tol, s.max_newton);
    if !fp.converged {
        return None;
    }
    let y = DVector::from_vec(fp.y.clone());
    let mut xs = map.chart.lift(&y);
    for &k in &spec.translation {
        xs[(k, 0)] = m.q0[k];
    }
    let details = orbit_details(
        lag,
        sys,
        &xs,
        spec,
        &m.contact_names,
        driver_for(s, s.max_step_time * ts, 500, MAX_STEPS_PER_STRIKE),
    );
    let (q, v) = split(&xs);
    Some(Gait {
        period: fp.period,
        q: q.iter().copied().collect(),
        v: v.iter().copied().collect(),
        section_coordinates: map.chart.names(&m.coordinates),
        section_point: fp.y.clone(),
        stable: fp.spectral_radius < 1.0,
        spectral_radius: fp.spectral_radius,
        multipliers: fp.multipliers.clone(),
        derivatives: fp.derivatives.clone(),
        mu_stick: details.mu_stick,
        impulse_ratio: details.impulse_ratio,
        step_length: details.step_length,
        residual: fp.residual,
        events_per_step: details.events,
        min_clearance: details.min_clearance,
    })
}

/// The gait through (near) the post-strike state `(q, q̇)`: Newton's method on the
/// strike-to-strike map from there, with the multipliers and details of [`find_gaits`]; `None`
/// if Newton does not converge (continuing a known gait, or refining one a user has).
pub fn gait_from(m: &Mechanism, q: &[f64], v: &[f64], settings: &GaitSettings) -> Result<Option<Gait>, Error> {
    let spec = m.gait.clone().ok_or_else(|| {
        Error::input(&m.source, "gait", "missing; a [gait] table names the striking contact (strike = \"...\")")
    })?;
    m.check_state("state", q)?;
    m.check_state("state", v)?;
    crate::error::fraction("rtol", settings.rtol)?;
    crate::error::fraction("newton_tol", settings.newton_tol)?;
    struct From<'a>(&'a Mechanism, &'a GaitSpec, &'a GaitSettings, &'a [f64], &'a [f64]);
    impl Visit for From<'_> {
        type Output = Option<Gait>;
        fn visit<const N: usize>(self, sys: MultibodySystem<N>) -> Option<Gait> {
            let lag = Lagrangian::new(&sys);
            let x = join(&SVector::<f64, N>::from_column_slice(self.3), &SVector::<f64, N>::from_column_slice(self.4));
            newton_gait(&sys, &lag, self.0, self.1, self.2, &x)
        }
    }
    m.visit(From(m, &spec, settings, q, v))
}

/// The model's initial state, and its posture in rigid rotation about the lowest closed
/// contact (module docs).
fn starting_states<const N: usize>(sys: &MultibodySystem<N>, m: &Mechanism, translation: &[usize]) -> Vec<State<N>> {
    let q0 = SVector::<f64, N>::from_column_slice(&m.q0);
    let v0 = SVector::<f64, N>::from_column_slice(&m.v0);
    let mut out = vec![join(&q0, &v0)];
    let ls = sys.length_scale();
    let pivot =
        (0..sys.contact_count()).filter(|&i| sys.gap(i, &q0).abs() <= 1e-6 * ls && sys.armed(i, &q0)).find_map(|i| {
            match sys.contacts()[i].constraint {
                crate::mechanics::multibody_system::Constraint::PointOnLine { body, point, .. } => {
                    let f = sys.multibody().frames(q0.as_slice(), &[0.0; N]);
                    Some(f.position[body] + f.offset(body, &point))
                }
                _ => None,
            }
        });
    let Some(c) = pivot else { return out };
    // Rigid rotation at unit rate about c: each body's origin moves with perp(p − c), turns at 1.
    let tree = sys.multibody();
    let f = tree.frames(q0.as_slice(), &[0.0; N]);
    let nb = tree.bodies().len();
    let mut a = DMatrix::zeros(3 * nb, N);
    let mut b = DVector::zeros(3 * nb);
    for k in 0..nb {
        let d = f.position[k] - c;
        for (r, target) in [(0, -d.y), (1, d.x), (2, 1.0)] {
            let row = f.jacobian_row(k, r);
            for j in 0..N {
                a[(3 * k + r, j)] = row[j] * if r == 2 { ls } else { 1.0 };
            }
            b[3 * k + r] = target * if r == 2 { ls } else { 1.0 };
        }
    }
    let Ok(unit) = a.svd(true, true).solve(&b, 1e-12) else { return out };
    let rate = 1.0 / sys.time_scale();
    for w in [0.25, 0.5, 0.75, 1.0, 1.5] {
        for sign in [-1.0, 1.0] {
            let v = SVector::<f64, N>::from_iterator(unit.iter().map(|u| u * w * sign * rate));
            out.push(join(&q0, &v));
        }
    }
    // A grid over the velocities the stance contact leaves free (it sticks: its normal and
    // tangential velocities vanish), for up to three such velocities.
    let ls = sys.length_scale();
    let gaps: Vec<usize> = (0..sys.contact_count()).filter(|&i| sys.gap(i, &q0).abs() <= 1e-6 * ls).collect();
    let Some(&stance) = gaps.iter().find(|&&i| sys.armed(i, &q0)) else { return out };
    let mut rests = vec![(stance, false)];
    if sys.law(stance).mu > 0.0 {
        rests.push((stance, true));
    }
    let x0 = join(&q0, &SVector::zeros());
    let chart = StrikeChart::with_constraints(sys, &x0, translation, gaps, rests);
    let (nq, nv) = (chart.q_free.len(), chart.v_free.len());
    let per_axis: usize = match nv {
        1 => 17,
        2 => 9,
        3 => 5,
        _ => 0,
    };
    if per_axis == 0 {
        return out;
    }
    let y0 = chart.chart(&x0);
    let sc = chart.scale();
    let mut idx = vec![0usize; nv];
    'grid: loop {
        let mut y = y0.clone();
        for (a, &i) in idx.iter().enumerate() {
            let frac = -1.0 + 2.0 * i as f64 / (per_axis - 1) as f64;
            y[nq + a] = frac * sc[nq + a];
        }
        if (0..nv).any(|a| y[nq + a] != 0.0) {
            out.push(chart.lift(&y));
        }
        for a in 0..nv {
            idx[a] += 1;
            if idx[a] < per_axis {
                continue 'grid;
            }
            idx[a] = 0;
        }
        break;
    }
    out
}

pub(crate) struct Details {
    pub(crate) mu_stick: Option<f64>,
    pub(crate) impulse_ratio: Option<f64>,
    pub(crate) step_length: Vec<f64>,
    pub(crate) events: usize,
    /// The events of the step: `kind(contact)`, an impact of a frictional contact with its
    /// outcome (`stick` or `slip`, from its impulse ratio).
    pub(crate) labels: Vec<String>,
    /// The least `(d − μ|c|)/(d + μ|c|)` along the step over the closed frictional contacts
    /// (P2's `B` for the worse slip direction, the other closed contacts held, normalised):
    /// negative where Painlevé's paradox is possible.
    pub(crate) min_b: Option<f64>,
    /// The clearance of the contacts whose arming rule keeps them from striking (a swing foot
    /// that ignores scuffing), over the length scale: [`Clearance::value`].
    pub(crate) min_clearance: Option<f64>,
}

/// The clearance of a contact while its arming rule keeps it from striking, along a step.
///
/// A swing foot leaves its line at the step's start (the old stance foot, released by the
/// strike) and first rises: its least gap over the whole step is that of the first instants
/// and says nothing of the swing. The clearance is therefore the least gap **after the gap
/// first stops rising** (`ġ ≤ 0`, `ġ = w_nᵀq̇`): the foot's lowest point in mid-swing, where
/// a real foot would scuff; the least value between samples is found by [`Step::max_of`].
/// A foot that rises until it is armed has as clearance its gap when last disarmed (where the
/// rule hands over: continuous with a dip that starts just before it). Negative: the gait
/// relies on the rule (the foot passes below its line); positive: it clears the line.
#[derive(Debug, Clone, Default)]
struct Clearance {
    /// Per contact: the gap has stopped rising while disarmed.
    descended: Vec<bool>,
    /// Per contact: the least gap after that.
    lowest: Vec<Option<f64>>,
    /// Per contact: the gap at the last disarmed sample while still rising.
    rising: Vec<Option<f64>>,
}

impl Clearance {
    fn new(contacts: usize) -> Self {
        Clearance { descended: vec![false; contacts], lowest: vec![None; contacts], rising: vec![None; contacts] }
    }
    /// Looks at one step of the flow (`t_end` its end) with `n` samples.
    fn look<const N: usize>(&mut self, sys: &MultibodySystem<N>, step: &Step<State<N>>, t_end: f64, n: usize) {
        let ls = sys.length_scale();
        let disarmed = |i: usize, x: &State<N>| !sys.armed(i, &x.column(0).into_owned());
        for i in (0..self.descended.len()).filter(|&i| step.samples(t_end, n).any(|(_, x)| disarmed(i, &x))) {
            // Where the rise ends within this step (the first disarmed sample with ġ ≤ 0).
            let mut from = if self.descended[i] { Some(step.t0) } else { None };
            for (t, x) in step.samples(t_end, n) {
                if !disarmed(i, &x) || from.is_some() {
                    continue;
                }
                let (q, v) = split(&x);
                if sys.normal_jacobian(i, &q).dot(&v) <= 0.0 {
                    from = Some(t - (t_end - step.t0) / n as f64);
                } else {
                    self.rising[i] = Some(sys.gap(i, &q) / ls);
                }
            }
            let Some(from) = from else { continue };
            self.descended[i] = true;
            let floor = self.lowest[i].map_or(f64::NEG_INFINITY, |m| -m);
            let low = -step.max_of(t_end, n, floor, |t, x| {
                let (q, v) = split(x);
                let past = t >= from && (t > from || sys.normal_jacobian(i, &q).dot(&v) <= 0.0);
                if past && disarmed(i, x) {
                    -sys.gap(i, &q) / ls
                } else {
                    f64::NEG_INFINITY
                }
            });
            if low.is_finite() {
                self.lowest[i] = Some(low);
            }
        }
    }
    /// The least clearance over the contacts (`None`: no contact was disarmed).
    fn value(&self) -> Option<f64> {
        (0..self.descended.len()).filter_map(|i| self.lowest[i].or(self.rising[i])).reduce(f64::min)
    }
}

/// Friction use along one step from the post-strike state `x`, the strike's impulse ratio and
/// the translation over the step.
pub(crate) fn orbit_details<const N: usize>(
    lag: &Lagrangian<&MultibodySystem<N>, N>,
    sys: &MultibodySystem<N>,
    x: &State<N>,
    spec: &GaitSpec,
    names: &[String],
    driver: EventDriver,
) -> Details {
    struct Friction<'a, const N: usize> {
        lag: &'a Lagrangian<&'a MultibodySystem<N>, N>,
        sys: &'a MultibodySystem<N>,
        strike: usize,
        /// The largest `|λ_t|/λ_n` of the sticking contacts (μ_stick).
        ratio: Peak<State<N>, Modes>,
        strike_event: Option<(State<N>, State<N>)>,
        events: usize,
        labels: Vec<(EventKind, Option<usize>)>,
        /// The largest `−B` (normalised) of the closed frictional contacts.
        neg_b: Peak<State<N>, Modes>,
        /// `(ratio, −B)` at the run's start.
        at_start: (f64, f64),
        clearance: Clearance,
    }
    /// The largest friction use `|λ_t|/λ_n` of `mode`'s sticking contacts at `(t, x)`.
    fn friction_use<const N: usize>(
        lag: &Lagrangian<&MultibodySystem<N>, N>,
        mode: &Modes,
        t: f64,
        x: &State<N>,
    ) -> f64 {
        if !(0..mode.len()).any(|i| mode.get(i) == ContactMode::Stick) {
            return f64::NEG_INFINITY;
        }
        let (q, v) = split(x);
        let Some(sol) = lag.solve_mode(mode, t, &q, &v) else { return f64::NEG_INFINITY };
        (0..mode.len())
            .filter(|&i| mode.get(i) == ContactMode::Stick && sol.lambda_n[i] > 0.0)
            .map(|i| sol.lambda_t[i].abs() / sol.lambda_n[i])
            .fold(f64::NEG_INFINITY, f64::max)
    }
    /// The largest `−(d − μ|c|)/(d + μ|c|)` over `mode`'s closed frictional contacts at `x`
    /// (the others closed held): minus the least normalised Painlevé `B`.
    fn painleve_neg_b<const N: usize>(sys: &MultibodySystem<N>, mode: &Modes, x: &State<N>) -> f64 {
        let closed: Vec<usize> =
            (0..mode.len()).filter(|&i| matches!(mode.get(i), ContactMode::Stick | ContactMode::Slip(_))).collect();
        if closed.is_empty() {
            return f64::NEG_INFINITY;
        }
        let q = x.column(0).into_owned();
        let mut worst = f64::NEG_INFINITY;
        for &i in &closed {
            let mu = sys.law(i).mu;
            if mu > 0.0 {
                let held: Vec<usize> = closed.iter().copied().filter(|&j| j != i).collect();
                let (d, c) = crate::mechanism::painleve::contact_dc(sys, &q, i, &held);
                let b = (d - mu * c.abs()) / (d + mu * c.abs());
                if b.is_finite() {
                    worst = worst.max(-b);
                }
            }
        }
        worst
    }
    impl<const N: usize> Observer<State<N>, Modes> for Friction<'_, N> {
        fn on_start(&mut self, t: f64, x: &State<N>, mode: &Modes) {
            self.at_start = (friction_use(self.lag, mode, t, x), painleve_neg_b(self.sys, mode, x));
        }
        fn on_step(&mut self, step: &Step<State<N>>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
            // Both extremes between samples too: the best step refined at the end (Peak).
            let (lag, sys) = (self.lag, self.sys);
            self.ratio.offer(step, t_end, mode, |m, t, x| friction_use(lag, m, t, x));
            self.neg_b.offer(step, t_end, mode, |m, _, x| painleve_neg_b(sys, m, x));
            self.clearance.look(self.sys, step, t_end, 8);
            ControlFlow::Continue(())
        }
        fn on_event(&mut self, ev: &EventRecord<State<N>, Modes>) -> ControlFlow<()> {
            self.events += 1;
            self.labels.push((ev.info.kind, ev.info.contact));
            if ev.info.kind == EventKind::Impact && ev.info.contact == Some(self.strike) {
                self.strike_event = Some((ev.before, ev.after));
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut obs = Friction {
        lag,
        sys,
        strike: spec.strike,
        ratio: Peak::new(8),
        strike_event: None,
        events: 0,
        labels: vec![],
        neg_b: Peak::new(8),
        at_start: (f64::NEG_INFINITY, f64::NEG_INFINITY),
        clearance: Clearance::new(sys.contact_count()),
    };
    driver.run(lag, 0.0, *x, &[], &mut obs);
    let finite = |v: f64| (v > f64::NEG_INFINITY).then_some(v);
    let mu_stick = obs
        .ratio
        .value(|m, t, x| friction_use(lag, m, t, x))
        .into_iter()
        .chain(finite(obs.at_start.0))
        .reduce(f64::max);
    let min_b = obs
        .neg_b
        .value(|m, _, x| painleve_neg_b(sys, m, x))
        .into_iter()
        .chain(finite(obs.at_start.1))
        .reduce(f64::max)
        .map(|v| -v);
    let mut impulse_ratio = None;
    let mut step_length = vec![];
    if let Some((before, after)) = obs.strike_event {
        let (q, vm) = split(&before);
        // The post-impact velocity before the relabelling: v⁺ = P⁻¹ v' (the relabelling is linear
        // in the velocities).
        let (_, va) = split(&after);
        let vp = relabel_inverse(sys, spec.strike, &q, &va);
        if let Some(vp) = vp {
            let p = sys.mass_matrix(&q) * (vp - vm);
            let (wn, wt) = (sys.normal_jacobian(spec.strike, &q), sys.tangent_jacobian(spec.strike, &q));
            let a = DMatrix::from_fn(N, 2, |r, c| if c == 0 { wn[r] } else { wt[r] });
            let pd = DVector::from_column_slice(p.as_slice());
            if let Ok(lam) = a.clone().svd(true, true).solve(&pd, 1e-12) {
                if lam[0] > 0.0 && sys.law(spec.strike).mu > 0.0 {
                    impulse_ratio = Some(lam[1].abs() / lam[0]);
                }
            }
        }
        let (qa, _) = split(&after);
        let (q0, _) = split(x);
        step_length = spec.translation.iter().map(|&k| qa[k] - q0[k]).collect();
    }
    // The strike sticks when its impulse is inside the cone (to round-off), else it slips.
    let labels = obs
        .labels
        .iter()
        .map(|&(kind, contact)| {
            let name = contact.map_or(String::new(), |i| names.get(i).cloned().unwrap_or_else(|| i.to_string()));
            let outcome = match (kind, contact, impulse_ratio) {
                (EventKind::Impact, Some(i), Some(r)) if i == spec.strike => {
                    if r < sys.law(i).mu * (1.0 - 1e-9) {
                        ", stick"
                    } else {
                        ", slip"
                    }
                }
                _ => "",
            };
            format!("{}({name}{outcome})", crate::output::kebab(&kind))
        })
        .collect();
    Details {
        mu_stick,
        impulse_ratio,
        step_length,
        events: obs.events,
        labels,
        min_b,
        min_clearance: obs.clearance.value(),
    }
}

/// `P⁻¹ v'` for the relabelling after `contact` (the identity without one).
fn relabel_inverse<const N: usize>(
    sys: &MultibodySystem<N>,
    contact: usize,
    q: &SVector<f64, N>,
    v_after: &SVector<f64, N>,
) -> Option<SVector<f64, N>> {
    // The relabelling's velocity part is linear: its matrix column by column.
    let mut p = DMatrix::zeros(N, N);
    for j in 0..N {
        let mut e = SVector::<f64, N>::zeros();
        e[j] = 1.0;
        match sys.relabel(contact, q, &e) {
            Some((_, col)) => p.set_column(j, &DVector::from_column_slice(col.as_slice())),
            None => return Some(*v_after),
        }
    }
    p.lu().solve(&DVector::from_column_slice(v_after.as_slice())).map(|s| SVector::from_column_slice(s.as_slice()))
}
