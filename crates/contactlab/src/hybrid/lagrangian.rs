//! Any [`ContactSystem`] as a [`Hybrid`] system: contact modes, constraint forces, impacts and
//! the completed (post-Zeno) flow.
//!
//! The state is the `N × 2` matrix `[q | q̇]`. Each contact is free, closed and sticking, or closed
//! and slipping in the `+x` or `−x` direction ([`ContactMode`]; a closed frictionless contact is
//! `Slip(0)`).
//!
//! # Flow in a mode
//! The unknown forces are `λ_n` of every closed contact and `λ_t` of every sticking one; in slip
//! `λ_t = −s μ λ_n`. They follow from the constrained equations: `g̈ = w_nᵀq̈ + ẇ_nᵀq̇ = 0` for
//! closed contacts and `ẍ = 0` for sticking ones, with `q̈ = M⁻¹(h + Σ w λ)`, a small dense system
//! in the contact-space (Delassus) matrix `C M⁻¹ W`. Redundant constraints (a body sticking at more
//! points than it has degrees of freedom) make it singular; the motion is then still unique and is
//! computed from the minimum-norm forces, and the existence of admissible forces is decided by a
//! linear program over the whole family.
//!
//! # Guards (three per contact)
//! | mode | guard `3i` | guard `3i + 1` | guard `3i + 2` |
//! |---|---|---|---|
//! | free | gap `gᵢ` (impact) | — | — |
//! | sticking | `λ_n` (lift-off) | `μλ_n − |λ_t|` (onset of slip) | — |
//! | slipping `s` | `λ_n` (lift-off) | `s ẋᵢ` (slip stops: stick or reversal) | `B̂ᵢ` (jam) |
//! | closed, frictionless | `λ_n` (lift-off) | — | — |
//!
//! `B̂ᵢ = Bᵢ / (w_nᵀM⁻¹w_n)` with `Bᵢ = w_nᵀM⁻¹(w_n − sμ w_t)` (P2, eq. 21) is the normal
//! acceleration per unit normal force of the slipping contact, made dimensionless. While it is
//! positive the slip is consistent (`λ_n = A/B`); when it reaches zero with `A ≥ 0` the run ends
//! with a [`FailureKind::Jam`] and the values of `A`, `B` and `λ_n` as evidence: dynamic jamming
//! (P2, Definition 1) when the force grows without bound, a separation when `A` vanishes first,
//! which the caller decides from the approach ([`crate::walker::slip`]). (With several closed
//! contacts `Bᵢ` is the contact's own diagonal term, exact when it is the only closed one.)
//!
//! [`Hybrid::step_limit`] ends a step at the next extremum of a free gap predicted from its
//! second-order expansion — 1.5 times the time to an apex while the gap is below half the rise,
//! the time to a valley whose depth may reach zero — so no gap crosses zero twice within a step;
//! and, while a slipping contact's `B̂ᵢ` decreases, at half the time to `B̂ᵢ = 0`, so the steps
//! approach the pole of `λ_n` geometrically and their ends sample the approach.
//!
//! # Choosing the mode
//! After every event the next mode is chosen among all candidates compatible with each contact's
//! state (touching at tangential rest: free, stick, slip ±; touching and slipping in `s`: free,
//! slip `s`; separated: free) by the consistency inequalities: `λ_n ≥ 0`, `|λ_t| ≤ μλ_n`, a free
//! touching contact must not accelerate into its support, and a slip starting from rest must
//! accelerate in its direction. Margins are normalised by the force-free contact accelerations
//! and the matching force scale, so they do not depend on units. Exactly one consistent candidate
//! is taken; none is a Painlevé inconsistency and several an indeterminacy, reported with every
//! candidate's margin. At a lift-off and at the onset of slip the event itself fixes the
//! contact's next mode (its margin is zero at that instant by definition).
//!
//! # Impacts
//! Every contact touching its support takes part. Frictionless contacts follow Newton's law
//! `0 ≤ Λ ⟂ ġ⁺ + e ġ⁻ ≥ 0`, `ġ⁺ = ġ⁻ + A Λ`, with `A = W_nᵀ M⁻¹ W_n`: one contact in closed form,
//! several as an LCP solved by Lemke's method. With friction every contact is passive, sticking
//! (`ẋ⁺ = 0`, `|Λ_t| ≤ μΛ_n`) or slipping (`Λ_t = −sμΛ_n`, `sẋ⁺ ≥ 0`) with `ġ⁺ = −e ġ⁻` when active;
//! among the consistent outcomes the one with the most active contacts, then the most sticking
//! ones, then the largest margin is taken (P1's order of preference). For one contact with `e = 0`
//! this is the sticking impact when the sticking impulse lies in the friction cone and otherwise
//! Chatterjee and Ruina's slipping impact with `e = e_t = 0` (P2, eqs. 11–18). The system's
//! [`ContactSystem::relabel`] runs after the impact.
//!
//! # Zeno completion
//! At a Zeno point (located by the driver) the state is projected onto the contact's constraint
//! (`g = 0`, `ġ = 0`, mass-weighted) and the constrained mode is chosen as above; the contact then
//! stays closed until its normal force crosses zero (P3, Definitions 3–4).
//!
//! # Rest
//! A mode whose closed contacts all stick (or are frictionless) with constraint rows of rank `N`
//! is an equilibrium: the velocity is zero on the constraints and the run ends at rest (only for
//! an [autonomous](ContactSystem::autonomous) system).

use std::cell::Cell;
use std::fmt;

use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use serde::Serialize;

use super::{EventInfo, EventKind, FailureKind, Hybrid, ModeFailure, Transition};
use crate::lcp::{self, Lcp, LcpSettings, LcpStatus};
use crate::lp::{LpBuilder, LpSettings, LpStatus};
use crate::mechanics::ContactSystem;
use crate::util::gauss;

/// Largest number of contacts of a [`Lagrangian`] system.
pub const MAX_CONTACTS: usize = 16;

/// The mode of one contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ContactMode {
    /// Open.
    Free,
    /// Closed and sticking.
    Stick,
    /// Closed and slipping in the direction of the sign (`0`: frictionless).
    Slip(i8),
}

impl ContactMode {
    /// Whether the contact is closed.
    pub fn closed(&self) -> bool {
        !matches!(self, ContactMode::Free)
    }

    fn letter(&self) -> char {
        match self {
            ContactMode::Free => 'F',
            ContactMode::Stick => 'S',
            ContactMode::Slip(s) if *s > 0 => 'P',
            ContactMode::Slip(s) if *s < 0 => 'N',
            ContactMode::Slip(_) => 'C',
        }
    }
}

/// The modes of all contacts (`F` free, `S` stick, `P`/`N` slip in `±x`, `C` closed
/// frictionless), e.g. `FS`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Modes {
    n: u8,
    m: [ContactMode; MAX_CONTACTS],
    rest: bool,
}

impl Modes {
    /// All `n` contacts free.
    pub fn free(n: usize) -> Self {
        Self { n: n as u8, m: [ContactMode::Free; MAX_CONTACTS], rest: false }
    }
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.n as usize
    }
    /// Whether there are no contacts.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// The mode of contact `i`.
    pub fn get(&self, i: usize) -> ContactMode {
        self.m[i]
    }
    /// Sets the mode of contact `i`.
    pub fn set(&mut self, i: usize, m: ContactMode) {
        self.m[i] = m;
    }
    /// Whether the mode is an equilibrium (module docs).
    pub fn is_rest(&self) -> bool {
        self.rest
    }
}

impl fmt::Display for Modes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..self.len() {
            write!(f, "{}", self.m[i].letter())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Modes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Modes({self})")
    }
}

impl Serialize for Modes {
    fn serialize<Se: serde::Serializer>(&self, s: Se) -> Result<Se::Ok, Se::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// The state of one contact, from which its candidate modes follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Separated,
    Rest,
    Slipping(i8),
}

/// Contact forces and accelerations of one mode at one state.
#[derive(Debug, Clone, Copy)]
pub struct ModeSolution<const N: usize> {
    /// `q̈`.
    pub acc: SVector<f64, N>,
    /// Normal forces (0 for free contacts).
    pub lambda_n: [f64; MAX_CONTACTS],
    /// Tangential forces.
    pub lambda_t: [f64; MAX_CONTACTS],
    /// Whether the constraint system was singular (redundant constraints; minimum-norm forces).
    pub redundant: bool,
}

/// A [`ContactSystem`] run as a hybrid system (module docs).
#[derive(Debug, Clone)]
pub struct Lagrangian<S, const N: usize> {
    /// The mechanical system.
    pub system: S,
    /// Normalised margin below which a consistency inequality counts as marginal.
    pub margin_tol: f64,
    /// Length and time scales of the motion, overriding the system's (see [`Lagrangian::with_scales`]).
    pub scales: Option<(f64, f64)>,
    /// The last mode solution, by mode, time and state: the integrator's last stage, the guards
    /// and the step limit all evaluate the same point at the end of a step.
    last: Cell<Option<Solved<N>>>,
}

type State<const N: usize> = SMatrix<f64, N, 2>;

/// A remembered mode solution: the mode, time and state it was computed at, and the result.
type Solved<const N: usize> = (Modes, f64, State<N>, Option<ModeSolution<N>>);

/// `[q | q̇]` from `q` and `q̇`.
pub fn join<const N: usize>(q: &SVector<f64, N>, v: &SVector<f64, N>) -> State<N> {
    SMatrix::from_columns(&[*q, *v])
}

/// `(q, q̇)` of a state.
pub fn split<const N: usize>(x: &State<N>) -> (SVector<f64, N>, SVector<f64, N>) {
    (x.column(0).into_owned(), x.column(1).into_owned())
}

const MAXK: usize = 2 * MAX_CONTACTS;

/// One contact of a constrained solve, at the acceleration level (forces) or the velocity level
/// (impulses): its mode, the rows its constraints use, the images under `M⁻¹` of the columns its
/// multipliers act on, and the values the constrained quantities must take.
#[derive(Debug, Clone, Copy)]
struct Part<const N: usize> {
    /// Where its multipliers go in the result.
    slot: usize,
    /// `Stick` (unknowns `λ_n`, `λ_t`) or `Slip(s)` (unknown `λ_n` with `λ_t = coef·λ_n`).
    mode: ContactMode,
    /// `λ_t = coef·λ_n` in slip (`−sμ`; `0` frictionless).
    coef: f64,
    wn: SVector<f64, N>,
    wt: SVector<f64, N>,
    /// `M⁻¹` times the column of `λ_n` (`w_n`, or `w_n + coef·w_t` in slip).
    col_n: SVector<f64, N>,
    /// `M⁻¹w_t` (used when sticking).
    col_t: SVector<f64, N>,
    /// Required `w_nᵀx` and, when sticking, `w_tᵀx`.
    goal_n: f64,
    goal_t: f64,
}

/// Solves the small dense system of the parts' constraints for their multipliers: every part
/// needs `w_nᵀx = goal_n` (and `w_tᵀx = goal_t` when sticking) with `x = base + Σ M⁻¹w λ`. One
/// mechanism for the forces of a mode and for the impulses of an impact. The result goes into
/// `out` (`acc` holds `x`; `out` must start with zero multipliers); `None` if it is not finite.
fn solve_parts<const N: usize>(
    parts: impl IntoIterator<Item = Part<N>>,
    count: usize,
    base: &SVector<f64, N>,
    out: &mut ModeSolution<N>,
) -> Option<()> {
    // Buffers sized for the common case of at most two constrained contacts: zeroing the largest
    // ones on every call would cost more than the solve.
    if count <= 2 {
        solve_parts_cap::<N, 4>(parts, base, out)
    } else {
        solve_parts_cap::<N, MAXK>(parts, base, out)
    }
}

fn solve_parts_cap<const N: usize, const CAP: usize>(
    parts: impl IntoIterator<Item = Part<N>>,
    base: &SVector<f64, N>,
    out: &mut ModeSolution<N>,
) -> Option<()> {
    let z = SVector::<f64, N>::zeros();
    let mut cols = [z; CAP];
    let mut rows = [(z, 0.0); CAP];
    // (slot, tangential?, slip coefficient with λ_t = coef·λ_n)
    let mut unk = [(0usize, false, 0.0f64); CAP];
    let mut k = 0;
    for p in parts {
        if k + 2 > CAP {
            return None;
        }
        match p.mode {
            ContactMode::Stick => {
                cols[k] = p.col_n;
                rows[k] = (p.wn, p.goal_n);
                unk[k] = (p.slot, false, 0.0);
                cols[k + 1] = p.col_t;
                rows[k + 1] = (p.wt, p.goal_t);
                unk[k + 1] = (p.slot, true, 0.0);
                k += 2;
            }
            ContactMode::Slip(_) => {
                cols[k] = p.col_n;
                rows[k] = (p.wn, p.goal_n);
                unk[k] = (p.slot, false, p.coef);
                k += 1;
            }
            ContactMode::Free => {}
        }
    }
    out.acc = *base;
    if k == 0 {
        return base.iter().all(|x| x.is_finite()).then_some(());
    }
    // The k × k system lives in a small stack buffer for the common sizes (zeroing the largest
    // one on every call would cost more than the solve).
    let mut small = [0.0; 36];
    let mut large = Vec::new();
    let a: &mut [f64] = if k <= 6 {
        &mut small[..k * k]
    } else {
        large.resize(k * k, 0.0);
        &mut large
    };
    let mut rhs = [0.0; CAP];
    for r in 0..k {
        for j in 0..k {
            a[r * k + j] = rows[r].0.dot(&cols[j]);
        }
        rhs[r] = rows[r].1 - rows[r].0.dot(base);
    }
    let rhs_copy = rhs;
    if !gauss(a, &mut rhs, k) {
        // Redundant constraints: minimum-norm multipliers (x is still unique).
        let am = DMatrix::from_fn(k, k, |r, c| rows[r].0.dot(&cols[c]));
        let bm = DVector::from_fn(k, |r, _| rhs_copy[r]);
        let scale = am.amax();
        let x = am.svd(true, true).solve(&bm, 1e-12 * scale).ok()?;
        rhs[..k].copy_from_slice(x.as_slice());
        out.redundant = true;
    }
    for j in 0..k {
        out.acc += cols[j] * rhs[j];
        let (slot, tang, coef) = unk[j];
        if tang {
            out.lambda_t[slot] = rhs[j];
        } else {
            out.lambda_n[slot] = rhs[j];
            if coef != 0.0 {
                out.lambda_t[slot] = coef * rhs[j];
            }
        }
    }
    out.acc.iter().all(|x| x.is_finite()).then_some(())
}

fn labelled(tested: Vec<(Modes, f64)>) -> Vec<(String, f64)> {
    tested.into_iter().map(|(m, x)| (m.to_string(), x)).collect()
}

impl<S: ContactSystem<N>, const N: usize> Lagrangian<S, N> {
    /// Wraps `system` (at most [`MAX_CONTACTS`] contacts).
    pub fn new(system: S) -> Self {
        Self { system, margin_tol: 1e-9, scales: None, last: Cell::new(None) }
    }

    /// Uses `length` and `time` as the scales of the motion instead of the system's own: for a
    /// small perturbation of an equilibrium, whose gaps and durations are far below the body's
    /// size and natural time (P1's perturbations move by `δ²/a` in a time `δ/a`). Tolerances on
    /// gaps, velocities and integration errors follow these scales.
    pub fn with_scales(mut self, length: f64, time: f64) -> Self {
        self.scales = Some((length, time));
        self
    }

    fn length(&self) -> f64 {
        self.scales.map_or_else(|| self.system.length_scale(), |s| s.0)
    }

    fn time(&self) -> f64 {
        self.scales.map_or_else(|| self.system.time_scale(), |s| s.1)
    }

    fn nc(&self) -> usize {
        self.system.contact_count().min(MAX_CONTACTS)
    }

    fn vel_scale(&self) -> f64 {
        self.length() / self.time()
    }

    /// Forces and accelerations of `mode` at `(t, q, q̇)`; `None` if the mass matrix is not
    /// positive definite or the data are not finite.
    pub fn solve_mode(
        &self,
        mode: &Modes,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> Option<ModeSolution<N>> {
        // Free flight is cheaper to recompute than to look up.
        if (0..self.nc()).all(|i| !mode.get(i).closed()) {
            return self.solve_mode_uncached(mode, t, q, v);
        }
        let x = join(q, v);
        if let Some((m, tc, xc, sol)) = self.last.get() {
            if m == *mode && tc.to_bits() == t.to_bits() && xc == x {
                return sol;
            }
        }
        let sol = self.solve_mode_uncached(mode, t, q, v);
        self.last.set(Some((*mode, t, x, sol)));
        sol
    }

    fn solve_mode_uncached(
        &self,
        mode: &Modes,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> Option<ModeSolution<N>> {
        let m = self.system.mass_matrix(q);
        let chol = m.cholesky()?;
        let a0 = chol.solve(&self.system.bias(t, q, v));
        let nc = self.nc();
        if (0..nc).all(|i| !mode.get(i).closed()) {
            // Free flight (the common case): no constraint forces.
            return a0.iter().all(|x| x.is_finite()).then_some(ModeSolution {
                acc: a0,
                lambda_n: [0.0; MAX_CONTACTS],
                lambda_t: [0.0; MAX_CONTACTS],
                redundant: false,
            });
        }
        let z = SVector::<f64, N>::zeros();
        let parts = (0..nc).filter_map(|i| {
            let cm = mode.get(i);
            if !cm.closed() {
                return None;
            }
            let wn = self.system.normal_jacobian(i, q);
            let (cn, ct) = self.system.jacobian_dot_v(i, q, v);
            let mu = self.system.law(i).mu;
            Some(match cm {
                ContactMode::Stick => {
                    let wt = self.system.tangent_jacobian(i, q);
                    let (col_n, col_t) = (chol.solve(&wn), chol.solve(&wt));
                    Part { slot: i, mode: cm, coef: 0.0, wn, wt, col_n, col_t, goal_n: -cn, goal_t: -ct }
                }
                _ => {
                    let coef = if let ContactMode::Slip(s) = cm { -(s as f64) * mu } else { 0.0 };
                    // One solve for the combined column w_n + coef·w_t.
                    let col = if coef != 0.0 { wn + self.system.tangent_jacobian(i, q) * coef } else { wn };
                    Part {
                        slot: i,
                        mode: cm,
                        coef,
                        wn,
                        wt: z,
                        col_n: chol.solve(&col),
                        col_t: z,
                        goal_n: -cn,
                        goal_t: 0.0,
                    }
                }
            })
        });
        let mut sol =
            ModeSolution { acc: a0, lambda_n: [0.0; MAX_CONTACTS], lambda_t: [0.0; MAX_CONTACTS], redundant: false };
        let count = (0..nc).filter(|&i| mode.get(i).closed()).count();
        solve_parts(parts, count, &a0, &mut sol)?;
        Some(sol)
    }

    /// Acceleration and force scales at `(t, q, q̇)` for the touching contacts: the largest
    /// force-free contact acceleration and that acceleration times the smallest effective mass.
    fn scales(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>, touching: &[bool]) -> (f64, f64) {
        let Some(chol) = self.system.mass_matrix(q).cholesky() else { return (1.0, 1.0) };
        let a0 = chol.solve(&self.system.bias(t, q, v));
        let (mut acc, mut inv_m) = (0.0f64, 0.0f64);
        for i in 0..self.nc() {
            if !touching[i] {
                continue;
            }
            let (cn, ct) = self.system.jacobian_dot_v(i, q, v);
            let wn = self.system.normal_jacobian(i, q);
            let wt = self.system.tangent_jacobian(i, q);
            acc = acc.max((wn.dot(&a0) + cn).abs()).max((wt.dot(&a0) + ct).abs());
            inv_m = inv_m.max(wn.dot(&chol.solve(&wn))).max(wt.dot(&chol.solve(&wt)));
        }
        let acc = if acc > 0.0 { acc } else { self.length() / self.time().powi(2) };
        let inv_m = if inv_m > 0.0 { inv_m } else { 1.0 };
        (acc, acc / inv_m)
    }

    /// Normalised consistency margin of `mode` (module docs); contacts in `exempt` are skipped.
    #[allow(clippy::too_many_arguments)]
    fn margin(
        &self,
        mode: &Modes,
        sol: &ModeSolution<N>,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        classes: &[Class],
        exempt: &[bool],
        (acc_s, frc_s): (f64, f64),
    ) -> f64 {
        let mut m = f64::INFINITY;
        for i in 0..self.nc() {
            if exempt[i] {
                continue;
            }
            let mu = self.system.law(i).mu;
            match mode.get(i) {
                ContactMode::Free => {
                    if classes[i] != Class::Separated {
                        let wn = self.system.normal_jacobian(i, q);
                        let gdd = wn.dot(&sol.acc) + self.system.jacobian_dot_v(i, q, v).0;
                        m = m.min(gdd / acc_s);
                    }
                }
                ContactMode::Stick => {
                    m = m.min(sol.lambda_n[i] / frc_s).min((mu * sol.lambda_n[i] - sol.lambda_t[i].abs()) / frc_s);
                }
                ContactMode::Slip(s) => {
                    m = m.min(sol.lambda_n[i] / frc_s);
                    if s != 0 && classes[i] == Class::Rest {
                        let wt = self.system.tangent_jacobian(i, q);
                        let xdd = wt.dot(&sol.acc) + self.system.jacobian_dot_v(i, q, v).1;
                        m = m.min(s as f64 * xdd / acc_s);
                    }
                }
            }
        }
        m
    }

    /// Decides the mode at `(t, q, q̇)` from the contacts' classes; `forced[i]` fixes contact `i`
    /// (its margin is not checked).
    fn decide(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        classes: &[Class],
        forced: &[Option<ContactMode>],
    ) -> Result<Modes, ModeFailure> {
        let nc = self.nc();
        use ContactMode::{Free, Slip, Stick};
        let mut cands: [&[ContactMode]; MAX_CONTACTS] = [&[Free]; MAX_CONTACTS];
        let mut forced_one = [[Free]; MAX_CONTACTS];
        let mut exempt = [false; MAX_CONTACTS];
        let mut touching = [false; MAX_CONTACTS];
        for i in 0..nc {
            touching[i] = classes[i] != Class::Separated;
            if let Some(f) = forced[i] {
                forced_one[i] = [f];
                exempt[i] = true;
                continue;
            }
            let mu = self.system.law(i).mu;
            cands[i] = match classes[i] {
                Class::Separated => &[Free],
                _ if mu == 0.0 => &[Free, Slip(0)],
                Class::Rest => &[Free, Stick, Slip(1), Slip(-1)],
                Class::Slipping(1) => &[Free, Slip(1)],
                Class::Slipping(_) => &[Free, Slip(-1)],
            };
        }
        for i in 0..nc {
            if exempt[i] {
                cands[i] = &forced_one[i];
            }
        }
        let scales = self.scales(t, q, v, &touching[..nc]);
        let tol = self.margin_tol;
        let mut idx = [0usize; MAX_CONTACTS];
        let mut tested: Vec<(Modes, f64)> = Vec::with_capacity(8);
        let mut consistent: Vec<(Modes, f64)> = Vec::with_capacity(2);
        let mut marginal = 0usize;
        loop {
            let mut mode = Modes::free(nc);
            for i in 0..nc {
                mode.set(i, cands[i][idx[i]]);
            }
            let margin = match self.solve_mode(&mode, t, q, v) {
                Some(sol) if !sol.redundant => self.margin(&mode, &sol, q, v, classes, &exempt, scales),
                Some(sol) => {
                    // Redundant constraints: decide over the whole force family when at rest.
                    if self.rest_rank(&mode, q) {
                        self.stick_family_margin(&mode, t, q, v, scales.1)
                    } else {
                        self.margin(&mode, &sol, q, v, classes, &exempt, scales)
                    }
                }
                None => f64::NEG_INFINITY,
            };
            tested.push((mode, margin));
            if margin > tol {
                consistent.push((mode, margin));
            } else if margin >= -tol {
                marginal += 1;
            }
            // Next combination.
            let mut c = 0;
            loop {
                if c == nc {
                    break;
                }
                idx[c] += 1;
                if idx[c] < cands[c].len() {
                    break;
                }
                idx[c] = 0;
                c += 1;
            }
            if c == nc {
                break;
            }
        }
        match (consistent.len(), marginal) {
            (1, _) => {
                let mut mode = consistent[0].0;
                mode.rest = self.rest_rank(&mode, q);
                Ok(mode)
            }
            (0, 0) => Err(ModeFailure { kind: FailureKind::Painleve, candidates: labelled(tested) }),
            _ => Err(ModeFailure { kind: FailureKind::Indeterminate, candidates: labelled(tested) }),
        }
    }

    /// Whether every closed contact of `mode` sticks (or is frictionless) and the constraint
    /// rows have rank `N`.
    /// `B = w_nᵀM⁻¹(w_n − sμ w_t)` of a contact slipping in direction `s` (P2, eq. 21) and its
    /// dimensionless form `B / (w_nᵀM⁻¹w_n)`.
    fn slip_b(&self, i: usize, s: i8, q: &SVector<f64, N>) -> (f64, f64) {
        let Some(chol) = self.system.mass_matrix(q).cholesky() else { return (f64::NAN, f64::NAN) };
        let wn = self.system.normal_jacobian(i, q);
        let wt = self.system.tangent_jacobian(i, q);
        let mwn = chol.solve(&wn);
        let d = mwn.dot(&wn);
        let b = mwn.dot(&(wn - wt * (s as f64 * self.system.law(i).mu)));
        (b, b / d)
    }

    /// Half the time to `B̂ᵢ = 0` of every slipping contact whose `B̂ᵢ` decreases (its rate by a
    /// difference along `q̇` over `1e-7` of the time scale): the steps approach the pole of `λ_n`
    /// geometrically, so the integrator's own points resolve the approach (P2's dynamic
    /// jamming is read from them) and no step jumps across the pole.
    fn jam_step_limit(&self, mode: &Modes, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64 {
        let dt = 1e-7 * self.time();
        let mut lim = f64::INFINITY;
        for i in 0..self.nc() {
            let ContactMode::Slip(s) = mode.get(i) else { continue };
            if s == 0 || self.system.law(i).mu == 0.0 {
                continue;
            }
            let b0 = self.slip_b(i, s, q).1;
            let rate = (self.slip_b(i, s, &(q + v * dt)).1 - b0) / dt;
            if b0 > 0.0 && rate < 0.0 {
                lim = lim.min(0.5 * b0 / -rate);
            }
        }
        lim
    }

    fn rest_rank(&self, mode: &Modes, q: &SVector<f64, N>) -> bool {
        if !self.system.autonomous() {
            return false;
        }
        let mut rows: Vec<SVector<f64, N>> = Vec::new();
        for i in 0..self.nc() {
            match mode.get(i) {
                ContactMode::Free => {}
                ContactMode::Stick => {
                    rows.push(self.system.normal_jacobian(i, q));
                    rows.push(self.system.tangent_jacobian(i, q));
                }
                ContactMode::Slip(0) => rows.push(self.system.normal_jacobian(i, q)),
                ContactMode::Slip(_) => return false,
            }
        }
        if rows.len() < N {
            return false;
        }
        let m = DMatrix::from_fn(rows.len(), N, |r, c| rows[r][c]);
        let scale = m.amax().max(1e-300);
        m.svd(false, false).rank(1e-10 * scale) == N
    }

    /// Largest normalised margin over the force family of a redundant all-stick mode (an LP;
    /// `−∞` if the equilibrium equations have no solution).
    fn stick_family_margin(&self, mode: &Modes, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>, frc_s: f64) -> f64 {
        let h = self.system.bias(t, q, v);
        let closed: Vec<usize> = (0..self.nc()).filter(|&i| mode.get(i).closed()).collect();
        // Variables: per contact λ_n = a − b, λ_t = c − d; margin τ = e − f.
        let nv = 4 * closed.len() + 2;
        let (tp, tn) = (nv - 2, nv - 1);
        let mut lp = LpBuilder::new(nv);
        for r in 0..N {
            let mut row = Vec::new();
            for (k, &i) in closed.iter().enumerate() {
                let wn = self.system.normal_jacobian(i, q);
                let wt = self.system.tangent_jacobian(i, q);
                row.extend([(4 * k, wn[r]), (4 * k + 1, -wn[r]), (4 * k + 2, wt[r]), (4 * k + 3, -wt[r])]);
            }
            lp.eq(row, -h[r]);
        }
        for (k, &i) in closed.iter().enumerate() {
            let mu = self.system.law(i).mu;
            let (a, b, c, d) = (4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3);
            lp.ge(vec![(a, 1.0), (b, -1.0), (tp, -frc_s), (tn, frc_s)], 0.0);
            if mode.get(i) == ContactMode::Stick {
                lp.ge(vec![(a, mu), (b, -mu), (c, -1.0), (d, 1.0), (tp, -frc_s), (tn, frc_s)], 0.0);
                lp.ge(vec![(a, mu), (b, -mu), (c, 1.0), (d, -1.0), (tp, -frc_s), (tn, frc_s)], 0.0);
            } else {
                lp.eq(vec![(c, 1.0), (d, -1.0)], 0.0);
            }
        }
        lp.le(vec![(tp, 1.0)], 1.0);
        lp.minimize(vec![(tp, -1.0), (tn, 1.0)]);
        match lp.build().solve_robust(&LpSettings::default()) {
            Ok(s) if s.status == LpStatus::Optimal => s.x[tp] - s.x[tn],
            _ => f64::NEG_INFINITY,
        }
    }

    /// Projects `q` onto `g = 0` for the contacts in `normal`, then `q̇` onto `ġ = 0` for them and
    /// `ẋ = 0` for the contacts in `tangent` (mass-weighted, minimum-norm corrections).
    fn project(&self, q: &mut SVector<f64, N>, v: &mut SVector<f64, N>, normal: &[usize], tangent: &[usize]) {
        if normal.is_empty() && tangent.is_empty() {
            return;
        }
        let Some(chol) = self.system.mass_matrix(q).cholesky() else { return };
        // Mass-weighted minimum-norm correction d = M⁻¹Rᵀ(R M⁻¹ Rᵀ)⁻¹ err (pseudo-inverse when the
        // rows are redundant).
        let correct = |rows: &[SVector<f64, N>], err: &[f64]| -> SVector<f64, N> {
            let k = rows.len();
            let mut b = [SVector::<f64, N>::zeros(); MAXK];
            for j in 0..k {
                b[j] = chol.solve(&rows[j]);
            }
            let mut a = [0.0; MAXK * MAXK];
            let mut lam = [0.0; MAXK];
            for i in 0..k {
                for j in 0..k {
                    a[i * k + j] = rows[i].dot(&b[j]);
                }
                lam[i] = err[i];
            }
            if !gauss(&mut a, &mut lam, k) {
                let am = DMatrix::from_fn(k, k, |i, j| rows[i].dot(&b[j]));
                let scale = am.amax().max(1e-300);
                let e = DVector::from_column_slice(err);
                let x = am.svd(true, true).solve(&e, 1e-12 * scale).unwrap_or_else(|_| DVector::zeros(k));
                lam[..k].copy_from_slice(x.as_slice());
            }
            let mut d = SVector::<f64, N>::zeros();
            for j in 0..k {
                d += b[j] * lam[j];
            }
            d
        };
        let ls = self.length();
        let mut rows = [SVector::<f64, N>::zeros(); MAXK];
        let mut err = [0.0; MAXK];
        let nn = normal.len().min(MAX_CONTACTS);
        for _ in 0..4 {
            let mut done = true;
            for (k, &i) in normal[..nn].iter().enumerate() {
                rows[k] = self.system.normal_jacobian(i, q);
                err[k] = self.system.gap(i, q);
                done &= err[k].abs() <= 1e-15 * ls;
            }
            if done {
                break;
            }
            *q -= correct(&rows[..nn], &err[..nn]);
        }
        let mut k = 0;
        for &i in &normal[..nn] {
            rows[k] = self.system.normal_jacobian(i, q);
            k += 1;
        }
        for &i in tangent.iter().take(MAX_CONTACTS) {
            rows[k] = self.system.tangent_jacobian(i, q);
            k += 1;
        }
        let mut any = false;
        for j in 0..k {
            err[j] = rows[j].dot(v);
            any |= err[j] != 0.0;
        }
        if any {
            *v -= correct(&rows[..k], &err[..k]);
        }
    }

    /// Puts the contacts in `contacts` exactly on their supports with zero normal velocity
    /// (mass-weighted minimum-norm corrections of `q`, then of `q̇`).
    pub fn project_onto(&self, x: &mut State<N>, contacts: &[usize]) {
        let (mut q, mut v) = split(x);
        self.project(&mut q, &mut v, contacts, &[]);
        *x = join(&q, &v);
    }

    /// Classes of all contacts from the state: touching when the gap and the normal velocity
    /// are within `gtol` and `vtol`, then at rest or slipping by the tangential velocity.
    fn classes_from_state(&self, q: &SVector<f64, N>, v: &SVector<f64, N>, vtol: f64) -> Vec<Class> {
        let gtol = 1e-9 * self.length();
        (0..self.nc())
            .map(|i| {
                let g = self.system.gap(i, q);
                let un = self.system.normal_jacobian(i, q).dot(v);
                if g.abs() > gtol || un > vtol || !self.system.armed(i, q) {
                    return Class::Separated;
                }
                self.tangential_class(i, q, v, vtol)
            })
            .collect()
    }

    /// The class of a touching contact by its tangential velocity: frictionless, at rest (within
    /// `vtol`) or slipping in the direction of its sign.
    fn tangential_class(&self, i: usize, q: &SVector<f64, N>, v: &SVector<f64, N>, vtol: f64) -> Class {
        if self.system.law(i).mu == 0.0 {
            return Class::Slipping(0);
        }
        let ut = self.system.tangent_jacobian(i, q).dot(v);
        if ut.abs() <= vtol {
            Class::Rest
        } else {
            Class::Slipping(if ut > 0.0 { 1 } else { -1 })
        }
    }

    /// Projects onto the touching contacts and decides the mode.
    fn settle(
        &self,
        t: f64,
        q: &mut SVector<f64, N>,
        v: &mut SVector<f64, N>,
        classes: &[Class],
        forced: &[Option<ContactMode>],
    ) -> Result<Modes, ModeFailure> {
        let (mut normal, mut tangent) = ([0usize; MAX_CONTACTS], [0usize; MAX_CONTACTS]);
        let (mut nn, mut nt) = (0, 0);
        for i in 0..self.nc() {
            if classes[i] == Class::Separated || forced[i] == Some(ContactMode::Free) {
                continue;
            }
            normal[nn] = i;
            nn += 1;
            if classes[i] == Class::Rest && self.system.law(i).mu > 0.0 {
                tangent[nt] = i;
                nt += 1;
            }
        }
        self.project(q, v, &normal[..nn], &tangent[..nt]);
        self.decide(t, q, v, classes, forced)
    }

    /// The impact of the contacts in `impacting` at `(t, q, q̇⁻)` (module docs).
    fn impact(
        &self,
        mode: &Modes,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        impacting: &[usize],
    ) -> Transition<State<N>, Modes> {
        let nc = self.nc();
        let ls = self.length();
        let gtol = 1e-9 * ls;
        let fail = |kind, candidates| Transition::Failed(ModeFailure { kind, candidates });
        let mut q = *q;
        // Contacts on their supports that are not separating take part (a resting contact can
        // take an impulse); "not separating" is judged against the impacting speed.
        let vin = impacting.iter().fold(0.0f64, |a, &i| a.max(-self.system.normal_jacobian(i, &q).dot(v)));
        let mut touching = [0usize; MAX_CONTACTS];
        let mut k = 0;
        for i in 0..nc {
            if self.system.released_by(i, impacting) && !impacting.contains(&i) {
                continue;
            }
            if mode.get(i).closed()
                || impacting.contains(&i)
                || (self.system.armed(i, &q)
                    && self.system.gap(i, &q) <= gtol
                    && self.system.normal_jacobian(i, &q).dot(v) <= 1e-9 * vin)
            {
                touching[k] = i;
                k += 1;
            }
        }
        let touching = &touching[..k];
        // Put the touching contacts exactly on their supports.
        let mut vv = *v;
        self.project(&mut q, &mut vv, touching, &[]);
        let m = self.system.mass_matrix(&q);
        let Some(chol) = m.cholesky() else { return fail(FailureKind::Singular, vec![]) };
        let z = SVector::<f64, N>::zeros();
        let (mut wn, mut wt, mut bn, mut bt) =
            ([z; MAX_CONTACTS], [z; MAX_CONTACTS], [z; MAX_CONTACTS], [z; MAX_CONTACTS]);
        let (mut un, mut ut) = ([0.0; MAX_CONTACTS], [0.0; MAX_CONTACTS]);
        let (mut mu, mut target) = ([0.0; MAX_CONTACTS], [0.0; MAX_CONTACTS]);
        let mut speed = 0.0f64;
        for (j, &i) in touching.iter().enumerate() {
            wn[j] = self.system.normal_jacobian(i, &q);
            wt[j] = self.system.tangent_jacobian(i, &q);
            bn[j] = chol.solve(&wn[j]);
            bt[j] = chol.solve(&wt[j]);
            un[j] = wn[j].dot(v);
            ut[j] = wt[j].dot(v);
            let law = self.system.law(i);
            mu[j] = law.mu;
            target[j] = -law.restitution * un[j].min(0.0);
            if impacting.contains(&i) {
                speed = speed.max(-un[j]);
            }
        }
        let vref = un[..k].iter().chain(&ut[..k]).fold(speed, |a, u| a.max(u.abs())).max(1e-300);
        let mut vplus = *v;
        if mu[..k].iter().all(|&m| m == 0.0) {
            // Newton: 0 ≤ Λ ⟂ A Λ + ġ⁻ − target ≥ 0.
            if k == 1 {
                let a = wn[0].dot(&bn[0]);
                let lam = if a > 0.0 { (-(un[0] - target[0]) / a).max(0.0) } else { f64::NAN };
                vplus += bn[0] * lam;
            } else {
                let a = DMatrix::from_fn(k, k, |r, c| wn[r].dot(&bn[c]));
                let qv = DVector::from_fn(k, |r, _| un[r] - target[r]);
                let lcp = match Lcp::new(a, qv) {
                    Ok(l) => l,
                    Err(_) => return fail(FailureKind::Singular, vec![]),
                };
                match lcp::lemke::solve(&lcp, &LcpSettings::default()) {
                    Ok(s) if s.status == LcpStatus::Solved => {
                        for j in 0..k {
                            vplus += bn[j] * s.z[j];
                        }
                    }
                    Ok(s) => {
                        return fail(
                            FailureKind::Impact,
                            vec![(format!("Newton impact LCP: {}", s.status.as_str()), f64::NAN)],
                        )
                    }
                    Err(_) => return fail(FailureKind::Singular, vec![]),
                }
            }
        } else {
            match self.frictional_impact(&wn[..k], &wt[..k], &bn[..k], &bt[..k], &target[..k], &mu[..k], vref, v) {
                Ok(vp) => vplus = vp,
                Err(c) => return fail(FailureKind::Impact, c),
            }
        }
        if !vplus.iter().all(|x| x.is_finite()) {
            return fail(FailureKind::Singular, vec![]);
        }
        let energy_loss = 0.5 * v.dot(&(m * v)) - 0.5 * vplus.dot(&(m * vplus));
        let contact = impacting.first().copied();
        let (mut q2, mut v2) = (q, vplus);
        if let Some((qr, vr)) = contact.and_then(|c| self.system.relabel(c, &q2, &v2)) {
            q2 = qr;
            v2 = vr;
        }
        let classes = self.classes_from_state(&q2, &v2, 1e-9 * vref);
        let forced = [None; MAX_CONTACTS];
        match self.settle(t, &mut q2, &mut v2, &classes, &forced[..nc]) {
            Ok(mode) => Transition::Jump {
                state: join(&q2, &v2),
                mode,
                info: EventInfo {
                    kind: EventKind::Impact,
                    contact,
                    impact_speed: Some(speed),
                    energy_loss: Some(energy_loss),
                },
            },
            Err(f) => Transition::Failed(f),
        }
    }

    /// The frictional impact law by enumeration of the impulse-level modes with P1's order of
    /// preference; `Err` with every candidate's margin when none is consistent.
    #[allow(clippy::too_many_arguments)]
    fn frictional_impact(
        &self,
        wn: &[SVector<f64, N>],
        wt: &[SVector<f64, N>],
        bn: &[SVector<f64, N>],
        bt: &[SVector<f64, N>],
        target: &[f64],
        mu: &[f64],
        vref: f64,
        v: &SVector<f64, N>,
    ) -> Result<SVector<f64, N>, Vec<(String, f64)>> {
        // Impulse-level mode per contact: 0 passive, 1 stick, 2 slip +, 3 slip −.
        let k = wn.len();
        let imp_scale = vref / bn.iter().zip(wn).fold(0.0f64, |a, (b, w)| a.max(w.dot(b))).max(1e-300);
        let tol = self.margin_tol;
        let mut best: Option<((usize, usize), f64, SVector<f64, N>)> = None;
        let mut tested = Vec::new();
        let total = 4usize.pow(k as u32);
        for code in 0..total {
            let modes: Vec<usize> = (0..k).map(|j| (code / 4usize.pow(j as u32)) % 4).collect();
            // Frictionless contacts: active = code 1 with no tangential row.
            if (0..k).any(|j| mu[j] == 0.0 && modes[j] > 1) {
                continue;
            }
            // Active contacts as parts of the shared constrained solve (velocity level).
            let mut parts = Vec::with_capacity(k);
            for j in 0..k {
                let mode = match modes[j] {
                    0 => continue,
                    1 if mu[j] > 0.0 => ContactMode::Stick,
                    1 => ContactMode::Slip(0),
                    2 => ContactMode::Slip(1),
                    _ => ContactMode::Slip(-1),
                };
                let coef = match mode {
                    ContactMode::Slip(s) => -(s as f64) * mu[j],
                    _ => 0.0,
                };
                parts.push(Part {
                    slot: j,
                    mode,
                    coef,
                    wn: wn[j],
                    wt: wt[j],
                    col_n: if coef != 0.0 { bn[j] + bt[j] * coef } else { bn[j] },
                    col_t: bt[j],
                    goal_n: target[j],
                    goal_t: 0.0,
                });
            }
            let mut solved = ModeSolution {
                acc: *v,
                lambda_n: [0.0; MAX_CONTACTS],
                lambda_t: [0.0; MAX_CONTACTS],
                redundant: false,
            };
            let count = parts.len();
            if solve_parts(parts, count, v, &mut solved).is_none() || solved.redundant {
                tested.push((format!("{modes:?}"), f64::NEG_INFINITY));
                continue;
            }
            let (vp, lam_n, lam_t) = (solved.acc, solved.lambda_n, solved.lambda_t);
            let mut margin = f64::INFINITY;
            for j in 0..k {
                let unp = wn[j].dot(&vp);
                let utp = wt[j].dot(&vp);
                match modes[j] {
                    0 => margin = margin.min((unp - target[j]) / vref),
                    1 => {
                        margin = margin.min(lam_n[j] / imp_scale);
                        if mu[j] > 0.0 {
                            margin = margin.min((mu[j] * lam_n[j] - lam_t[j].abs()) / imp_scale);
                        }
                    }
                    c => {
                        let s = if c == 2 { 1.0 } else { -1.0 };
                        margin = margin.min(lam_n[j] / imp_scale).min(s * utp / vref);
                    }
                }
            }
            tested.push((format!("{modes:?}"), margin));
            if margin < -tol {
                continue;
            }
            let active = modes.iter().filter(|&&m| m != 0).count();
            let sticking = (0..k).filter(|&j| modes[j] == 1 && mu[j] > 0.0).count();
            let rank = (active, sticking);
            let better = match &best {
                None => true,
                Some((r, m, _)) => rank > *r || (rank == *r && margin > *m),
            };
            if better {
                best = Some((rank, margin, vp));
            }
        }
        best.map(|b| b.2).ok_or(tested)
    }
}

impl<S: ContactSystem<N>, const N: usize> Hybrid for Lagrangian<S, N> {
    type State = State<N>;
    type Mode = Modes;

    fn time_scale(&self) -> f64 {
        self.time()
    }

    fn state_scale(&self) -> State<N> {
        let c = self.system.coordinate_scale() * (self.length() / self.system.length_scale());
        join(&c, &(c / self.time()))
    }

    fn initial_mode(&self, t: f64, x: &mut State<N>) -> Result<Modes, ModeFailure> {
        let (mut q, mut v) = split(x);
        let nc = self.nc();
        let gtol = 1e-9 * self.length();
        let vtol = 1e-9 * self.vel_scale();
        for i in 0..nc {
            if self.system.gap(i, &q) < -gtol && self.system.armed(i, &q) {
                return Err(ModeFailure {
                    kind: FailureKind::Singular,
                    candidates: vec![(format!("initial state penetrates contact {i}"), self.system.gap(i, &q))],
                });
            }
        }
        // A contact touching its support and moving into it takes its impact first (the driver
        // asks `initial_transition`, which logs it; this keeps `initial_mode` total).
        if let Some(tr) = self.initial_transition(t, x) {
            return match tr {
                Transition::Jump { state, mode, .. } => {
                    *x = state;
                    Ok(mode)
                }
                Transition::Failed(f) => Err(f),
            };
        }
        let classes = self.classes_from_state(&q, &v, vtol);
        let mode = self.settle(t, &mut q, &mut v, &classes, &vec![None; nc])?;
        *x = join(&q, &v);
        Ok(mode)
    }

    fn initial_transition(&self, t: f64, x: &State<N>) -> Option<Transition<State<N>, Modes>> {
        let (q, v) = split(x);
        let nc = self.nc();
        let gtol = 1e-9 * self.length();
        let vtol = 1e-9 * self.vel_scale();
        let approaching: Vec<usize> = (0..nc)
            .filter(|&i| {
                let g = self.system.gap(i, &q);
                g.abs() <= gtol && self.system.armed(i, &q) && self.system.normal_jacobian(i, &q).dot(&v) < -vtol
            })
            .collect();
        (!approaching.is_empty()).then(|| self.impact(&Modes::free(nc), t, &q, &v, &approaching))
    }

    fn flow(&self, mode: &Modes, t: f64, x: &State<N>) -> State<N> {
        let (q, v) = split(x);
        match self.solve_mode(mode, t, &q, &v) {
            Some(sol) => join(&v, &sol.acc),
            None => State::<N>::repeat(f64::NAN),
        }
    }

    fn guard_count(&self, _mode: &Modes) -> usize {
        3 * self.nc()
    }

    fn guards(&self, mode: &Modes, t: f64, x: &State<N>, out: &mut [f64]) {
        let (q, v) = split(x);
        let nc = self.nc();
        let any_closed = (0..nc).any(|i| mode.get(i).closed());
        let sol = if any_closed { self.solve_mode(mode, t, &q, &v) } else { None };
        for i in 0..nc {
            let mu = self.system.law(i).mu;
            let (g0, g1) = match mode.get(i) {
                // An unarmed contact cannot fire: a large finite value (not +∞) keeps the guard
                // usable by the bracketing root finder when it arms within a step.
                ContactMode::Free if !self.system.armed(i, &q) => {
                    (self.system.gap(i, &q).abs() + self.length(), f64::INFINITY)
                }
                ContactMode::Free => (self.system.gap(i, &q), f64::INFINITY),
                cm => {
                    let (ln, lt) = sol.as_ref().map_or((f64::NAN, f64::NAN), |s| (s.lambda_n[i], s.lambda_t[i]));
                    let second = match cm {
                        ContactMode::Stick => mu * ln - lt.abs(),
                        ContactMode::Slip(s) if s != 0 => s as f64 * self.system.tangent_jacobian(i, &q).dot(&v),
                        _ => f64::INFINITY,
                    };
                    (ln, second)
                }
            };
            out[3 * i] = g0;
            out[3 * i + 1] = g1;
            out[3 * i + 2] = match mode.get(i) {
                ContactMode::Slip(s) if s != 0 => self.slip_b(i, s, &q).1,
                _ => f64::INFINITY,
            };
        }
    }

    fn step_limit(&self, mode: &Modes, t: f64, x: &State<N>) -> f64 {
        let (q, v) = split(x);
        let nc = self.nc();
        let jam = self.jam_step_limit(mode, &q, &v);
        // Only armed free contacts can strike; without one there is no further limit (and no
        // solve).
        if (0..nc).all(|i| mode.get(i).closed() || !self.system.armed(i, &q)) {
            return jam;
        }
        let Some(sol) = self.solve_mode(mode, t, &q, &v) else { return f64::INFINITY };
        let mut lim = f64::INFINITY;
        for i in 0..nc {
            if mode.get(i).closed() || !self.system.armed(i, &q) {
                continue;
            }
            let wn = self.system.normal_jacobian(i, &q);
            let g = self.system.gap(i, &q);
            let gd = wn.dot(&v);
            let gdd = wn.dot(&sol.acc) + self.system.jacobian_dot_v(i, &q, &v).0;
            // Excursion to the next extremum of the quadratic model: a rise to an apex matters
            // while the gap is in the lower half of it (a hop that may end within the step), a
            // dip to a valley while it may reach zero.
            let excursion = 0.5 * gd * gd / gdd.abs();
            if gd > 0.0 && gdd < 0.0 && g < excursion {
                lim = lim.min(1.5 * gd / -gdd);
            } else if gd < 0.0 && gdd > 0.0 && g < 2.0 * excursion {
                lim = lim.min(-gd / gdd);
            }
        }
        lim.min(jam)
    }

    fn transition(&self, mode: &Modes, fired: &[usize], t: f64, x: &State<N>) -> Transition<State<N>, Modes> {
        let (mut q, mut v) = split(x);
        let nc = self.nc();
        let mut impacting = Vec::new();
        let mut forced: Vec<Option<ContactMode>> = vec![None; nc];
        let mut classes: Vec<Class> = (0..nc)
            .map(|i| match mode.get(i) {
                ContactMode::Free => Class::Separated,
                ContactMode::Stick => Class::Rest,
                ContactMode::Slip(s) => Class::Slipping(s),
            })
            .collect();
        let mut info = EventInfo::new(EventKind::Reset, None);
        let sol = self.solve_mode(mode, t, &q, &v);
        // Dynamic jamming ends the run (the normal force has no finite continuation).
        if let Some(&k) = fired.iter().find(|&&k| k % 3 == 2) {
            let i = k / 3;
            let s = match mode.get(i) {
                ContactMode::Slip(s) => s,
                _ => 0,
            };
            let (b, bhat) = self.slip_b(i, s, &q);
            let a = b * sol.as_ref().map_or(f64::NAN, |x| x.lambda_n[i]);
            return Transition::Failed(ModeFailure {
                kind: FailureKind::Jam,
                candidates: vec![
                    (format!("contact {i}: A"), a),
                    (format!("contact {i}: B"), b),
                    (format!("contact {i}: B / (w_n' M^-1 w_n)"), bhat),
                    (format!("contact {i}: normal force"), sol.as_ref().map_or(f64::NAN, |x| x.lambda_n[i])),
                ],
            });
        }
        for &k in fired {
            let i = k / 3;
            let kind = match (k % 3, mode.get(i)) {
                (0, ContactMode::Free) => {
                    impacting.push(i);
                    EventKind::Impact
                }
                (0, _) => {
                    forced[i] = Some(ContactMode::Free);
                    classes[i] = Class::Separated;
                    EventKind::LiftOff
                }
                (_, ContactMode::Stick) => {
                    let lt = sol.as_ref().map_or(0.0, |s| s.lambda_t[i]);
                    forced[i] = Some(ContactMode::Slip(if lt > 0.0 { -1 } else { 1 }));
                    classes[i] = Class::Rest;
                    EventKind::SlipOnset
                }
                _ => {
                    classes[i] = Class::Rest;
                    EventKind::SlipStop
                }
            };
            if info.kind == EventKind::Reset {
                info = EventInfo::new(kind, Some(i));
            }
        }
        if !impacting.is_empty() {
            return self.impact(mode, t, &q, &v, &impacting);
        }
        match self.settle(t, &mut q, &mut v, &classes, &forced) {
            Ok(m) => Transition::Jump { state: join(&q, &v), mode: m, info },
            Err(f) => Transition::Failed(f),
        }
    }

    fn at_rest(&self, mode: &Modes, _x: &State<N>) -> bool {
        mode.rest
    }

    fn closed(&self, mode: &Modes, contact: usize) -> bool {
        contact < mode.len() && mode.get(contact).closed()
    }

    fn zeno_limit(
        &self,
        mode: &Modes,
        contact: usize,
        t: f64,
        x: &State<N>,
        last: &State<N>,
    ) -> Option<Transition<State<N>, Modes>> {
        let (mut q, mut v) = split(x);
        let (ql, vl) = split(last);
        let nc = self.nc();
        if contact >= nc {
            return None;
        }
        // Scales of the series at its last impact: a contact whose gap and normal velocity have
        // shrunk far below them converges with it (a cascade over several contacts).
        let vref = (0..nc).fold(0.0f64, |a, i| {
            a.max(self.system.normal_jacobian(i, &ql).dot(&vl).abs())
                .max(self.system.tangent_jacobian(i, &ql).dot(&vl).abs())
        });
        let gref = (0..nc).fold(0.0f64, |a, i| a.max(self.system.gap(i, &ql).abs()));
        let gtol = 1e-9 * self.length();
        let vtol = (1e-7 * self.vel_scale()).max(1e-6 * vref);
        let mut classes = [Class::Separated; MAX_CONTACTS];
        for i in 0..nc {
            let g = self.system.gap(i, &q);
            let un = self.system.normal_jacobian(i, &q).dot(&v);
            let joins = i == contact || mode.get(i).closed() || (g.abs() <= gtol.max(1e-6 * gref) && un.abs() <= vtol);
            if !joins {
                continue;
            }
            classes[i] = self.tangential_class(i, &q, &v, vtol);
        }
        let forced = [None; MAX_CONTACTS];
        Some(match self.settle(t, &mut q, &mut v, &classes[..nc], &forced[..nc]) {
            Ok(m) => {
                Transition::Jump { state: join(&q, &v), mode: m, info: EventInfo::new(EventKind::Zeno, Some(contact)) }
            }
            Err(f) => Transition::Failed(f),
        })
    }

    fn energy(&self, _t: f64, x: &State<N>) -> Option<f64> {
        let (q, v) = split(x);
        self.system.potential(&q).map(|p| p + self.system.kinetic_energy(&q, &v))
    }
}
