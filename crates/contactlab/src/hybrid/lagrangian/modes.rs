//! Contact modes and the mode solve: the forces and accelerations of a mode, its consistency
//! margins, and the choice of the next mode with the evidence of a Painlevé inconsistency or an
//! indeterminacy (module docs of [`super`]: "Flow in a mode", "Choosing the mode", "Rest").

use std::fmt;

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::constraints::{solve_parts, Part};
use super::{Lagrangian, MAX_CONTACTS};
use crate::hybrid::{Candidate, FailureKind, ModeFailure};
use crate::lp::{LpBuilder, LpSettings, LpStatus};
use crate::mechanics::ContactSystem;

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
pub(super) enum Class {
    Separated,
    Rest,
    Slipping(i8),
}

/// Contact forces and accelerations of one mode at one state.
#[derive(Debug, Clone)]
pub struct ModeSolution {
    /// `q̈`.
    pub acc: DVector<f64>,
    /// Normal forces (0 for free contacts).
    pub lambda_n: [f64; MAX_CONTACTS],
    /// Tangential forces.
    pub lambda_t: [f64; MAX_CONTACTS],
    /// Whether the constraint system was singular (redundant constraints; minimum-norm forces).
    pub redundant: bool,
}

/// Equality of every entry's bits: the exact key of the remembered mode solution.
fn same_bits<'a>(a: impl IntoIterator<Item = &'a f64>, b: &DVector<f64>) -> bool {
    a.into_iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn labelled(tested: Vec<(Modes, f64)>) -> Vec<Candidate> {
    tested.into_iter().map(|(m, margin)| Candidate { mode: m.to_string(), margin }).collect()
}

impl<S: ContactSystem> Lagrangian<S> {
    /// Forces and accelerations of `mode` at `(t, q, q̇)`; `None` if the mass matrix is not
    /// positive definite or the data are not finite.
    pub fn solve_mode(&self, mode: &Modes, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Option<ModeSolution> {
        // Free flight is cheaper to recompute than to look up.
        if (0..self.nc()).all(|i| !mode.get(i).closed()) {
            return self.solve_mode_uncached(mode, t, q, v);
        }
        if let Some((m, tc, xc, sol)) = self.last.borrow().as_ref() {
            if tc.to_bits() == t.to_bits() && same_bits(xc.column(0), q) && same_bits(xc.column(1), v) && m == mode {
                return sol.clone();
            }
        }
        let sol = self.solve_mode_uncached(mode, t, q, v);
        *self.last.borrow_mut() = Some((*mode, t, super::join(q, v), sol.clone()));
        sol
    }

    /// `M⁻¹h` with every contact free; `None` as for [`Lagrangian::solve_mode`].
    pub(super) fn free_acceleration(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Option<DVector<f64>> {
        let a0 = self.system.free_acceleration(t, q, v)?;
        a0.iter().all(|x| x.is_finite()).then_some(a0)
    }

    fn solve_mode_uncached(&self, mode: &Modes, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Option<ModeSolution> {
        let nc = self.nc();
        if (0..nc).all(|i| !mode.get(i).closed()) {
            // Free flight (the common case): no constraint forces.
            return self.free_acceleration(t, q, v).map(|acc| ModeSolution {
                acc,
                lambda_n: [0.0; MAX_CONTACTS],
                lambda_t: [0.0; MAX_CONTACTS],
                redundant: false,
            });
        }
        let m = self.system.mass_matrix(q);
        let chol = m.cholesky()?;
        let a0 = chol.solve(&self.system.bias(t, q, v));
        // Unused in slip (a part's tangential column counts only when sticking).
        let z = || DVector::<f64>::zeros(0);
        let parts = (0..nc).filter_map(|i| {
            let cm = mode.get(i);
            if !cm.closed() {
                return None;
            }
            let mu = self.system.law(i).mu;
            Some(match cm {
                ContactMode::Stick => {
                    let (wn, wt, (cn, ct)) = self.system.contact_rows(i, q, v);
                    let (col_n, col_t) = (chol.solve(&wn), chol.solve(&wt));
                    Part { slot: i, mode: cm, coef: 0.0, wn, wt, col_n, col_t, goal_n: -cn, goal_t: -ct }
                }
                _ => {
                    let coef = if let ContactMode::Slip(s) = cm { -(s as f64) * mu } else { 0.0 };
                    // One solve for the combined column w_n + coef·w_t.
                    let (wn, col, cn) = if coef != 0.0 {
                        let (wn, wt, (cn, _)) = self.system.contact_rows(i, q, v);
                        let col = &wn + wt * coef;
                        (wn, col, cn)
                    } else {
                        let wn = self.system.normal_jacobian(i, q);
                        (wn.clone(), wn, self.system.jacobian_dot_v(i, q, v).0)
                    };
                    Part {
                        slot: i,
                        mode: cm,
                        coef,
                        wn,
                        wt: z(),
                        col_n: chol.solve(&col),
                        col_t: z(),
                        goal_n: -cn,
                        goal_t: 0.0,
                    }
                }
            })
        });
        let mut sol = ModeSolution {
            acc: a0.clone(),
            lambda_n: [0.0; MAX_CONTACTS],
            lambda_t: [0.0; MAX_CONTACTS],
            redundant: false,
        };
        let count = (0..nc).filter(|&i| mode.get(i).closed()).count();
        solve_parts(parts, count, &a0, &mut sol)?;
        Some(sol)
    }

    /// Acceleration and force scales at `(t, q, q̇)` for the touching contacts: the largest
    /// force-free contact acceleration and that acceleration times the smallest effective mass.
    fn scales(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>, touching: &[bool]) -> (f64, f64) {
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
        sol: &ModeSolution,
        q: &DVector<f64>,
        v: &DVector<f64>,
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
        q: &DVector<f64>,
        v: &DVector<f64>,
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
        let combinations = (0..nc).try_fold(1usize, |n, i| n.checked_mul(cands[i].len())).unwrap_or(usize::MAX);
        if combinations > self.enumeration_limit && combinations > 1 {
            return self.lcp_mode(t, q, v, classes, &exempt[..nc], &cands[..nc], scales);
        }
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
            (0, 0) => Err(ModeFailure::among(FailureKind::Painleve, labelled(tested))),
            _ => Err(ModeFailure::among(FailureKind::Indeterminate, labelled(tested))),
        }
    }

    /// The mode from the touching contacts' acceleration-level LCP (module docs, "Many
    /// contacts"), checked by the consistency margins. `cands[i]` are contact `i`'s candidates
    /// (a single one for a forced or separated contact).
    #[allow(clippy::too_many_arguments)]
    fn lcp_mode(
        &self,
        t: f64,
        q: &DVector<f64>,
        v: &DVector<f64>,
        classes: &[Class],
        exempt: &[bool],
        cands: &[&[ContactMode]],
        scales: (f64, f64),
    ) -> Result<Modes, ModeFailure> {
        use nalgebra::DVector;
        let nc = self.nc();
        let singular = || ModeFailure::bare(FailureKind::Singular);
        let chol = self.system.mass_matrix(q).cholesky().ok_or_else(singular)?;
        let a0 = chol.solve(&self.system.bias(t, q, v));
        // Variables: per contact in the LCP, λ_n; with friction at rest also β⁺, β⁻, s.
        struct Var {
            contact: usize,
            rest: bool,
            // generalized-force column of λ_n (w_n, or w_n − sμ w_t when slipping)
            col: DVector<f64>,
        }
        let mut vars: Vec<Var> = vec![];
        let mut fixed = Modes::free(nc);
        for i in 0..nc {
            let only = cands[i];
            if only.len() == 1 {
                fixed.set(i, only[0]);
                if only[0] == ContactMode::Free {
                    continue;
                }
            }
            let wn = self.system.normal_jacobian(i, q);
            let mu = self.system.law(i).mu;
            let slip = only.iter().find_map(|m| match m {
                ContactMode::Slip(s) if only.len() <= 2 => Some(*s),
                _ => None,
            });
            let rest = mu > 0.0 && slip.is_none() && only.contains(&ContactMode::Stick);
            let col = match slip {
                Some(s) if s != 0 => wn - self.system.tangent_jacobian(i, q) * (s as f64 * mu),
                _ => wn,
            };
            vars.push(Var { contact: i, rest, col });
        }
        let k = vars.len();
        let size = k + 3 * vars.iter().filter(|x| x.rest).count();
        // Index of each block: λ_n first (k entries), then (β⁺, β⁻, s) per rest contact.
        let mut m = nalgebra::DMatrix::zeros(size, size);
        let mut qv = DVector::zeros(size);
        let mut cols: Vec<DVector<f64>> = vars.iter().map(|x| chol.solve(&x.col)).collect();
        let mut rows: Vec<(DVector<f64>, f64)> = vec![];
        let mut triple = vec![usize::MAX; k];
        let mut next = k;
        for (a, x) in vars.iter().enumerate() {
            let (cn, _) = self.system.jacobian_dot_v(x.contact, q, v);
            rows.push((self.system.normal_jacobian(x.contact, q), cn));
            if x.rest {
                triple[a] = next;
                next += 3;
            }
        }
        for (a, x) in vars.iter().enumerate() {
            if x.rest {
                let wt = self.system.tangent_jacobian(x.contact, q);
                let ct = self.system.jacobian_dot_v(x.contact, q, v).1;
                let mt = chol.solve(&wt);
                let b = triple[a];
                // Rows b, b+1: ±(ẍ) + s; row b+2: μλ_n − β⁺ − β⁻. Columns b, b+1: ±w_t.
                let n = q.len();
                cols.push(mt.clone());
                cols.push(-mt);
                cols.push(DVector::zeros(n));
                rows.push((wt.clone(), ct));
                rows.push((-wt, -ct));
                rows.push((DVector::zeros(n), 0.0));
                m[(b, b + 2)] = 1.0;
                m[(b + 1, b + 2)] = 1.0;
                m[(b + 2, a)] = self.system.law(x.contact).mu;
                m[(b + 2, b)] = -1.0;
                m[(b + 2, b + 1)] = -1.0;
            }
        }
        for (r, (w, c)) in rows.iter().enumerate() {
            qv[r] = w.dot(&a0) + c;
            for (j, col) in cols.iter().enumerate() {
                m[(r, j)] += w.dot(col);
            }
        }
        let fail = |what: String| {
            ModeFailure::among(
                FailureKind::Painleve,
                vec![crate::hybrid::Candidate { mode: what, margin: f64::NEG_INFINITY }],
            )
        };
        let lcp = crate::lcp::Lcp::new(m, qv).map_err(|e| fail(format!("contact LCP: {e}")))?;
        let sol = crate::lcp::solve(&lcp, &crate::lcp::LcpSettings::default())
            .map_err(|e| fail(format!("contact LCP: {e}")))?;
        if sol.status != crate::lcp::LcpStatus::Solved {
            return Err(fail(format!("contact LCP of {k} contacts: {}", sol.status.as_str())));
        }
        // Read the mode off the solution: forces relative to the force scale, accelerations to
        // the acceleration scale.
        let (acc_s, frc_s) = scales;
        let small = 1e3 * self.margin_tol;
        let mut mode = fixed;
        for (a, x) in vars.iter().enumerate() {
            let i = x.contact;
            if exempt[i] {
                continue;
            }
            let (lam, gap_acc) = (sol.z[a], sol.w[a]);
            if lam <= small * frc_s && gap_acc >= -small * acc_s && cands[i].contains(&ContactMode::Free) {
                mode.set(i, ContactMode::Free);
                continue;
            }
            mode.set(
                i,
                if x.rest {
                    let b = triple[a];
                    let slide = sol.z[b + 2];
                    if slide > small * acc_s {
                        // ẍ + s = 0 (β⁺ side) means ẍ < 0.
                        if sol.w[b] <= sol.w[b + 1] {
                            ContactMode::Slip(-1)
                        } else {
                            ContactMode::Slip(1)
                        }
                    } else {
                        ContactMode::Stick
                    }
                } else {
                    cands[i].iter().copied().find(|m| *m != ContactMode::Free).unwrap_or(ContactMode::Free)
                },
            );
        }
        let margin = match self.solve_mode(&mode, t, q, v) {
            Some(s) if s.redundant && self.rest_rank(&mode, q) => self.stick_family_margin(&mode, t, q, v, frc_s),
            Some(s) => self.margin(&mode, &s, q, v, classes, exempt, scales),
            None => f64::NEG_INFINITY,
        };
        if margin >= -self.margin_tol {
            mode.rest = self.rest_rank(&mode, q);
            Ok(mode)
        } else {
            Err(ModeFailure::among(
                FailureKind::Painleve,
                vec![crate::hybrid::Candidate { mode: mode.to_string(), margin }],
            ))
        }
    }

    /// Projects onto the touching contacts and decides the mode.
    pub(super) fn settle(
        &self,
        t: f64,
        q: &mut DVector<f64>,
        v: &mut DVector<f64>,
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

    /// Classes of all contacts from the state: touching when the gap and the normal velocity
    /// are within `gtol` and `vtol`, then at rest or slipping by the tangential velocity.
    pub(super) fn classes_from_state(&self, q: &DVector<f64>, v: &DVector<f64>, vtol: f64) -> Vec<Class> {
        let gtol = super::CONTACT_TOL * self.length();
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
    pub(super) fn tangential_class(&self, i: usize, q: &DVector<f64>, v: &DVector<f64>, vtol: f64) -> Class {
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

    /// Whether every closed contact of `mode` sticks (or is frictionless) and the constraint
    /// rows have rank `n`.
    fn rest_rank(&self, mode: &Modes, q: &DVector<f64>) -> bool {
        if !self.system.autonomous() {
            return false;
        }
        let mut rows: Vec<DVector<f64>> = Vec::new();
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
        let n = q.len();
        if rows.len() < n {
            return false;
        }
        let m = DMatrix::from_fn(rows.len(), n, |r, c| rows[r][c]);
        let scale = m.amax().max(crate::numeric::SCALE_FLOOR);
        m.svd(false, false).rank(super::REST_RANK_TOL * scale) == n
    }

    /// Largest normalised margin over the force family of a redundant all-stick mode (an LP;
    /// `−∞` if the equilibrium equations have no solution).
    fn stick_family_margin(&self, mode: &Modes, t: f64, q: &DVector<f64>, v: &DVector<f64>, frc_s: f64) -> f64 {
        let h = self.system.bias(t, q, v);
        let closed: Vec<usize> = (0..self.nc()).filter(|&i| mode.get(i).closed()).collect();
        // Variables: per contact λ_n = a − b, λ_t = c − d; margin τ = e − f.
        let nv = 4 * closed.len() + 2;
        let (tp, tn) = (nv - 2, nv - 1);
        let mut lp = LpBuilder::new(nv);
        for r in 0..q.len() {
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

    /// `B = w_nᵀM⁻¹(w_n − sμ w_t)` of a contact slipping in direction `s` (P2, eq. 21) and its
    /// dimensionless form `B / (w_nᵀM⁻¹w_n)`.
    pub(super) fn slip_b(&self, i: usize, s: i8, q: &DVector<f64>) -> (f64, f64) {
        let Some(chol) = self.system.mass_matrix(q).cholesky() else { return (f64::NAN, f64::NAN) };
        let wn = self.system.normal_jacobian(i, q);
        let wt = self.system.tangent_jacobian(i, q);
        let mwn = chol.solve(&wn);
        let d = mwn.dot(&wn);
        let b = mwn.dot(&(&wn - wt * (s as f64 * self.system.law(i).mu)));
        (b, b / d)
    }
}
