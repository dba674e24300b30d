//! The modes of an [`EventScene`], the flow's constrained solve, the choice of the mode by the
//! acceleration-level contact problem, the projection onto the constraints and the impact
//! problem (module docs of [`super`]).

use std::fmt;

use nalgebra::{Cholesky, DMatrix, DVector, Dyn, Vector2, Vector3};

use super::{direction, ContactKin, EventScene, CONTACT_TOL, MAX_CONTACTS};
use crate::fc3d::{self, Fc3dSettings, Fc3dStatus};
use crate::hybrid::{FailureEvidence, FailureKind, ModeFailure};
use crate::spatial::tree::Frames;

/// A slip has stopped when its speed falls to this fraction of the velocity scale: the guard
/// `‖u_t‖ − STOP_TOL·V`, which a slip that stops crosses at a nonzero rate whatever its
/// direction does. (Near zero speed a slip's direction can spin, at a rate of its tangential
/// acceleration over its speed, while the speed hardly falls: a stiff regime in which an
/// explicit integrator stalls. At `1e-6` of the velocity scale the contact problem takes over
/// first; the stop then comes `STOP_TOL·V / ‖u̇_t‖` early, and the projection onto rest
/// removes that last slip, dissipatively.)
pub const STOP_TOL: f64 = 1e-6;

/// One contact's mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Contact3Mode {
    /// Not touching (or touching without force).
    Free,
    /// Touching, the contact point at rest.
    Stick,
    /// Touching and slipping; the force follows the current slip direction; the direction
    /// here (tangent-plane coordinates `t₁, t₂`) is the one the slip started in, used while
    /// the slip speed is far below the stop speed.
    Slip([f64; 2]),
}

impl Contact3Mode {
    /// Whether the contact is closed (held on its plane).
    pub fn closed(&self) -> bool {
        !matches!(self, Contact3Mode::Free)
    }
}

/// The modes of all contacts: `F` free, `S` stick, `P` slip (e.g. `FFFFSSPP`).
#[derive(Clone, Copy, PartialEq)]
pub struct Modes3 {
    n: u8,
    m: [Contact3Mode; MAX_CONTACTS],
    rest: bool,
}

impl Modes3 {
    /// All `n` contacts free.
    pub fn free(n: usize) -> Self {
        Self { n: n as u8, m: [Contact3Mode::Free; MAX_CONTACTS], rest: false }
    }
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.n as usize
    }
    /// Whether there are no contacts.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// Contact `i`'s mode.
    pub fn get(&self, i: usize) -> Contact3Mode {
        self.m[i]
    }
    /// Sets contact `i`'s mode.
    pub fn set(&mut self, i: usize, m: Contact3Mode) {
        self.m[i] = m;
    }
    /// Whether the mode is an equilibrium (module docs of [`super`]).
    pub fn is_rest(&self) -> bool {
        self.rest
    }
}

impl fmt::Debug for Modes3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..self.len() {
            f.write_str(match self.m[i] {
                Contact3Mode::Free => "F",
                Contact3Mode::Stick => "S",
                Contact3Mode::Slip(_) => "P",
            })?;
        }
        Ok(())
    }
}

/// A contact's state when the mode is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Class {
    /// Not in the contact problem (apart, moving away, or lifting off).
    Separated,
    /// Touching at tangential rest.
    Rest,
    /// Touching and slipping (or starting to slip) in this direction.
    Sliding(Vector2<f64>),
}

/// The flow's solution in a mode: the acceleration and each contact's force `(λ_n, λ_t)`.
#[derive(Debug, Clone)]
pub(crate) struct ModeSolution {
    pub(crate) acc: DVector<f64>,
    pub(crate) force: Vec<Vector3<f64>>,
}

/// `x` with `A x = b` of least norm: by LU where `A` is square and plainly nonsingular
/// ([`well_conditioned_solve`]), else [`crate::numeric::min_norm_solve`] (directions below
/// `1e-6` of the largest singular value dropped); `None` if `b` is not in `A`'s range to `1e-8`
/// of the data.
fn least_norm(a: &DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    if b.amax() == 0.0 {
        return Some(DVector::zeros(a.ncols()));
    }
    if let Some(x) = well_conditioned_solve(a, b) {
        return Some(x);
    }
    let x = crate::numeric::min_norm_solve(a, b, RANK_TOL)?;
    let res = (a * &x - b).norm();
    (res <= 1e-8 * (b.norm() + a.norm() * x.norm())).then_some(x)
}

/// The solution of a square `A x = b` by LU with partial pivoting where `A` is plainly
/// nonsingular (its pivots within [`PIVOT_RATIO`] of each other): then it is the least-norm
/// solution, to round-off, at a fraction of the eigendecomposition's cost (a flow's mode
/// problem is solved at every stage of every step). `None` otherwise.
fn well_conditioned_solve(a: &DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    if !a.is_square() {
        return None;
    }
    let lu = a.clone().lu();
    let u = lu.u();
    let d = u.diagonal().map(f64::abs);
    let (lo, hi) = (d.min(), d.max());
    if !(hi.is_finite() && lo > PIVOT_RATIO * hi) {
        return None;
    }
    let x = lu.solve(b)?;
    // Pivots bound no singular value from below (a Kahan matrix has unit pivots): a solution
    // larger than `1e6 ‖b‖ / ‖A‖` shows a direction the least-norm route would drop.
    let plain = x.norm() * a.norm() <= 1e6 * b.norm();
    (plain && x.iter().all(|v| v.is_finite())).then_some(x)
}

/// [`well_conditioned_solve`] takes a square system whose LU pivots are all above this
/// fraction of the largest (and whose solution is not large, which a small pivot ratio alone
/// does not rule out).
const PIVOT_RATIO: f64 = 1e-4;

/// Eigenvalues of `AAᵀ` below this fraction of the largest count as zero (singular values
/// below `1e-6` of the largest: above the eigenvalues' round-off, `1e-16`).
const RANK_TOL: f64 = 1e-12;

/// A remembered mode solution: the scene's identity, the mode, the time's and the state's
/// bits, the result.
type Solved = (u64, Modes3, u64, Vec<u64>, Option<ModeSolution>);

thread_local! {
    /// The last mode solution on this thread ([`EventScene::solve_mode`]).
    static LAST_SOLVED: std::cell::RefCell<Option<Solved>> = const { std::cell::RefCell::new(None) };
}

impl EventScene<'_> {
    /// The mass matrix's factor and the free acceleration `M⁻¹ f` at `(t, q, v)`.
    pub(crate) fn free_motion(&self, t: f64, q: &[f64], v: &[f64]) -> Option<(Cholesky<f64, Dyn>, DVector<f64>)> {
        self.free_motion_in(&self.scene.tree.frames(q, Some(v)), t, q, v)
    }

    /// [`Self::free_motion`] from the frames at `(q, v)`, computed with the velocities.
    pub(crate) fn free_motion_in(
        &self,
        frames: &Frames,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Option<(Cholesky<f64, Dyn>, DVector<f64>)> {
        let tree = &self.scene.tree;
        let (m, h) = (tree.mass_matrix_in(frames), tree.bias_in(frames, v));
        let chol = m.cholesky()?;
        let f = h + self.scene.passive_force(t, q, v);
        let a0 = chol.solve(&f);
        Some((chol, a0))
    }

    /// The slip speed at which a slip stops ([`STOP_TOL`] of the velocity scale).
    pub(crate) fn stop_speed(&self) -> f64 {
        STOP_TOL * self.vel()
    }

    /// The slip-stop guard of a slipping contact with tangential velocity `ut` and reference
    /// direction `d` (module docs of [`super`]): the least of `‖u_t‖ − δ` and
    /// `‖u_t + δ d‖ − δ/2`. The second is the smaller only when the slip has turned against the
    /// direction it started in; it catches the regularised slip's trap at `u_t = −δ d`, where
    /// the friction force along `dir(u_t + δ d)` holds the slip speed at `δ` (a sliding mode
    /// that the first guard never crosses and an explicit integrator crawls through).
    pub(crate) fn slip_stop_guard<T: crate::spatial::algebra::Real>(&self, ut: Vector2<T>, d: [f64; 2]) -> T {
        let delta = self.stop_speed();
        let r = crate::spatial::algebra::real::<T>;
        let a = ut.norm() - r(delta);
        let b = (ut + Vector2::new(r(d[0] * delta), r(d[1] * delta))).norm() - r(0.5 * delta);
        if b < a {
            b
        } else {
            a
        }
    }

    /// The second guard of a closed joint stop, which cannot slip: a positive constant (the
    /// force scale) that never fires.
    pub(crate) fn stop_slip_guard(&self) -> f64 {
        self.force_scale()
    }

    /// The slip direction of a slipping contact with tangential velocity `ut` and reference
    /// `d`: that of `ut + δ d`, δ the stop speed. Well above δ it is `ut`'s; a slip starting
    /// from rest starts along `d` (against the friction force that reached the cone), not
    /// along the round-off in `ut`, whose direction differs between a symmetric edge's two
    /// corners and, with a large μ, would load one and lift the other.
    pub(super) fn slip_direction(&self, ut: Vector2<f64>, d: [f64; 2]) -> Vector2<f64> {
        let d = Vector2::new(d[0], d[1]);
        direction(ut + d * self.stop_speed(), d)
    }

    /// The flow of `mode` at `(q, v)`: the acceleration and the contact forces (module docs of
    /// [`super`]); `None` if the constraints admit no force (or `M` is singular).
    ///
    /// The integrator's last stage, the guards and the step limit evaluate the same point at the
    /// end of a step: the last solution on each thread is remembered, keyed by the scene's
    /// identity (a fresh one whenever it changes) and the exact bits of the mode and the state.
    /// A pure function of its key, so the memory cannot change a result (the test
    /// `remembered_mode_solutions_equal_fresh_ones_bit_for_bit`).
    pub(crate) fn solve_mode(&self, mode: &Modes3, t: f64, q: &[f64], v: &[f64]) -> Option<ModeSolution> {
        let hit = LAST_SOLVED.with_borrow(|last| match last {
            Some((id, m, time, key, sol))
                if *id == self.id() && m == mode && *time == t.to_bits() && super::is_state(key, q, v) =>
            {
                Some(sol.clone())
            }
            _ => None,
        });
        if let Some(sol) = hit {
            return sol;
        }
        let sol = self.solve_mode_fresh(mode, t, q, v);
        LAST_SOLVED.set(Some((self.id(), *mode, t.to_bits(), super::state_key(q, v), sol.clone())));
        sol
    }

    /// [`Self::solve_mode`], computed.
    pub(crate) fn solve_mode_fresh(&self, mode: &Modes3, t: f64, q: &[f64], v: &[f64]) -> Option<ModeSolution> {
        let nc = self.nc();
        let at = self.at_state(q, v);
        let frames = &at.frames;
        let (chol, a0) = self.free_motion_in(frames, t, q, v)?;
        let mut force = vec![Vector3::zeros(); nc];
        let closed: Vec<usize> = (0..nc).filter(|&i| mode.get(i).closed()).collect();
        if closed.is_empty() {
            return Some(ModeSolution { acc: a0, force });
        }
        let kin = self.kinematics_of(frames, at.points.as_deref()?, &closed)?;
        let vv = DVector::from_column_slice(v);
        let nv = v.len();
        let (mut rows, mut cols, mut rhs): (Vec<DVector<f64>>, Vec<DVector<f64>>, Vec<f64>) = (vec![], vec![], vec![]);
        let mut dirs = vec![];
        for (k, &i) in closed.iter().enumerate() {
            let kn = &kin[k];
            let d = self.drift_in(frames, q, v, i, kn);
            let row = |r: usize| kn.rows.row(r).transpose();
            match mode.get(i) {
                Contact3Mode::Stick => {
                    for r in 0..self.contacts[i].stick_rows() {
                        rhs.push(-(row(r).dot(&a0) + d[r]));
                        rows.push(row(r));
                        cols.push(row(r));
                    }
                    dirs.push(None);
                }
                Contact3Mode::Slip(dref) => {
                    let ut = Vector2::new(row(1).dot(&vv), row(2).dot(&vv));
                    let s = self.slip_direction(ut, dref);
                    let mu = self.contacts[i].mu;
                    rhs.push(-(row(0).dot(&a0) + d[0]));
                    cols.push(row(0) - (row(1) * s[0] + row(2) * s[1]) * mu);
                    rows.push(row(0));
                    dirs.push(Some(s));
                }
                Contact3Mode::Free => unreachable!("only closed contacts"),
            }
        }
        let r = rows.len();
        let rm = DMatrix::from_fn(r, nv, |a, b| rows[a][b]);
        let fm = DMatrix::from_fn(nv, r, |a, b| cols[b][a]);
        let minv_f = chol.solve(&fm);
        let lam = least_norm(&(&rm * &minv_f), &DVector::from_vec(rhs))?;
        let acc = a0 + &minv_f * &lam;
        let mut at = 0;
        for (k, &i) in closed.iter().enumerate() {
            force[i] = match dirs[k] {
                None if self.contacts[i].stick_rows() == 1 => {
                    at += 1;
                    Vector3::new(lam[at - 1], 0.0, 0.0)
                }
                None => {
                    at += 3;
                    Vector3::new(lam[at - 3], lam[at - 2], lam[at - 1])
                }
                Some(s) => {
                    at += 1;
                    let mu = self.contacts[i].mu;
                    Vector3::new(lam[at - 1], -mu * s[0] * lam[at - 1], -mu * s[1] * lam[at - 1])
                }
            };
        }
        Some(ModeSolution { acc, force })
    }

    /// Chooses the mode of the contacts in `classes` by the acceleration-level contact
    /// problem, then projects `(q, v)` onto the closed contacts' constraints (module docs of
    /// [`super`]).
    pub(super) fn settle(
        &self,
        t: f64,
        q: &mut DVector<f64>,
        v: &mut DVector<f64>,
        classes: &[Class],
    ) -> Result<Modes3, ModeFailure> {
        let nc = self.nc();
        let tree = &self.scene.tree;
        let singular = || ModeFailure::bare(FailureKind::Singular);
        tree.normalize(q.as_mut_slice());
        let mut modes = Modes3::free(nc);
        let touching: Vec<usize> = (0..nc).filter(|&i| classes[i] != Class::Separated).collect();
        if touching.is_empty() {
            return Ok(modes);
        }
        let frames = tree.frames(q.as_slice(), Some(v.as_slice()));
        let kin = self.kinematics_in(&frames, &touching).ok_or_else(singular)?;
        let (chol, a0) = self.free_motion(t, q.as_slice(), v.as_slice()).ok_or_else(singular)?;
        let j = stack(&kin);
        let minv_jt = chol.solve(&j.transpose());
        let w = &j * &minv_jt;
        let mut qa = &j * &a0;
        for (c, &i) in touching.iter().enumerate() {
            let d = self.drift_in(&frames, q.as_slice(), v.as_slice(), i, &kin[c]);
            for r in 0..3 {
                qa[3 * c + r] += d[r];
            }
        }
        let mus: Vec<f64> = touching.iter().map(|&i| self.contacts[i].mu).collect();
        let slips: Vec<Option<Vector2<f64>>> = touching
            .iter()
            .map(|&i| match classes[i] {
                Class::Sliding(d) => Some(d),
                _ => None,
            })
            .collect();
        let sol = patient_fc3d(&w, &qa, &mus, &slips);
        if sol.status != Fc3dStatus::Solved && (sol.residual > 1e-7 || sol.residual.is_nan()) {
            return Err(unsolved(&w, &sol, &mus, &slips, &touching));
        }
        let ascale = qa.amax();
        let fscale = ascale / w.amax().max(f64::MIN_POSITIVE);
        for (c, &i) in touching.iter().enumerate() {
            if sol.r[3 * c] <= 1e-8 * fscale || sol.r[3 * c].is_nan() {
                continue;
            }
            let at = Vector2::new(sol.u[3 * c + 1], sol.u[3 * c + 2]);
            modes.set(
                i,
                match classes[i] {
                    Class::Sliding(d) => Contact3Mode::Slip([d[0], d[1]]),
                    _ if self.contacts[i].mu > 0.0 && at.norm() <= 1e-7 * ascale => Contact3Mode::Stick,
                    _ if at.norm() == 0.0 => Contact3Mode::Stick,
                    _ => {
                        let d = at / at.norm();
                        Contact3Mode::Slip([d[0], d[1]])
                    }
                },
            );
        }
        // At rest: sticking contacts, and slips starting from rest (below the stop speed): their
        // tangential velocity is round-off, whose direction (out of a symmetric edge's plane,
        // different at its two corners) must not steer the slip; it starts at zero.
        let mut at_rest: Vec<bool> = classes.iter().map(|c| *c == Class::Rest).collect();
        for (c, &i) in touching.iter().enumerate() {
            if matches!(classes[i], Class::Sliding(_)) {
                let u = &kin[c].rows * &*v;
                at_rest[i] = Vector2::new(u[1], u[2]).norm() < self.stop_speed();
            }
        }
        // Touching contacts the problem leaves free (no force) are lifted to their planes too
        // where they lie below: a contact at zero force and zero normal acceleration stays on
        // its plane, and one left below it could sink unseen (its gap guard arms only above).
        // So is any free contact the event leaves at or below the contact tolerance (not a foot
        // the walking rule lets pass), moving away or not: neither of its guards would arm
        // there (the transition is refused if it stays there, `checked`).
        let gaps = self.gaps(q.as_slice());
        let passing = self.unarmed(q.as_slice(), |j| modes.get(j).closed());
        let gtol = CONTACT_TOL * self.length();
        let lifted: Vec<usize> = (0..nc)
            .filter(|&i| {
                !modes.get(i).closed()
                    && ((classes[i] != Class::Separated && gaps[i] < 0.0) || (gaps[i] <= -gtol && !passing[i]))
            })
            .collect();
        self.project(q, v, &modes, &at_rest, &lifted).ok_or_else(singular)?;
        // Rest: every closed contact sticks and their rows pin every velocity (and the forces
        // do not change with time: a moving reference may pull the body off later).
        let closed: Vec<usize> = (0..nc).filter(|&i| modes.get(i).closed()).collect();
        if self.scene.autonomous() && !closed.is_empty() && closed.iter().all(|&i| modes.get(i) == Contact3Mode::Stick)
        {
            let kin = self.kinematics(q.as_slice(), &closed).ok_or_else(singular)?;
            // (Columns times each velocity's scale: angular columns carry a lever arm, so their
            // size relative to linear ones depends on the unit of length.)
            let (_, vs) = self.scales();
            let rows = stack(&kin) * DMatrix::from_diagonal(&DVector::from_column_slice(vs));
            modes.rest = crate::numeric::rank(&rows, 1e-6) == tree.nv();
        }
        Ok(modes)
    }

    /// Projects `q` onto the closed contacts' gaps `g = 0` (and those of the free contacts
    /// `lifted`) and `v` onto the closed contacts' zero normal (and, sticking or starting from
    /// rest, `at_rest`, tangential) velocities, mass-weighted; `None` if `M` is singular.
    pub(super) fn project(
        &self,
        q: &mut DVector<f64>,
        v: &mut DVector<f64>,
        modes: &Modes3,
        at_rest: &[bool],
        lifted: &[usize],
    ) -> Option<()> {
        let tree = &self.scene.tree;
        let closed: Vec<usize> = (0..self.nc()).filter(|&i| modes.get(i).closed()).collect();
        let placed: Vec<usize> = closed.iter().chain(lifted).copied().collect();
        if placed.is_empty() {
            return Some(());
        }
        for _ in 0..4 {
            let kin = self.kinematics(q.as_slice(), &placed)?;
            let g = DVector::from_iterator(placed.len(), kin.iter().map(|k| k.gap));
            if g.amax() <= 1e-14 * self.length {
                break;
            }
            let jn = DMatrix::from_fn(placed.len(), tree.nv(), |r, c| kin[r].rows[(0, c)]);
            let chol = tree.mass_matrix(q.as_slice()).cholesky()?;
            let minv_jt = chol.solve(&jn.transpose());
            let lam = least_norm_any(&(&jn * &minv_jt), &g);
            let dq = -(minv_jt * lam);
            *q = tree.integrate(q.as_slice(), dq.as_slice(), 1.0);
            tree.normalize(q.as_mut_slice());
        }
        if closed.is_empty() {
            return Some(());
        }
        let kin = self.kinematics(q.as_slice(), &closed)?;
        let mut rows: Vec<DVector<f64>> = vec![];
        for (k, &i) in closed.iter().enumerate() {
            let n = if modes.get(i) == Contact3Mode::Stick || at_rest[i] { self.contacts[i].stick_rows() } else { 1 };
            for r in 0..n {
                rows.push(kin[k].rows.row(r).transpose());
            }
        }
        let r = DMatrix::from_fn(rows.len(), tree.nv(), |a, b| rows[a][b]);
        let chol = tree.mass_matrix(q.as_slice()).cholesky()?;
        let minv_rt = chol.solve(&r.transpose());
        let lam = least_norm_any(&(&r * &minv_rt), &(&r * &*v));
        *v -= minv_rt * lam;
        Some(())
    }

    /// The impact of the contacts `set` (their rows at `q`) with restitution `e` from `v`:
    /// the velocity after it, every contact's class after it and the kinetic energy lost
    /// (module docs of [`super`]). With `e > 0` an outcome that would gain energy has its
    /// restitution lowered by bisection.
    pub(super) fn impulse(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        set: &[usize],
        e: f64,
        speed: f64,
    ) -> Result<(DVector<f64>, Vec<Class>, f64), ModeFailure> {
        let tree = &self.scene.tree;
        let singular = || ModeFailure::bare(FailureKind::Singular);
        let kin = self.kinematics(q.as_slice(), set).ok_or_else(singular)?;
        let j = stack(&kin);
        let chol = tree.mass_matrix(q.as_slice()).cholesky().ok_or_else(singular)?;
        let minv_jt = chol.solve(&j.transpose());
        let w = &j * &minv_jt;
        let u0 = &j * v;
        let mus: Vec<f64> = set.iter().map(|&i| self.contacts[i].mu).collect();
        let ke0 = tree.kinetic_energy(q.as_slice(), v.as_slice());
        let outcome = |e: f64| -> Result<(DVector<f64>, f64), ModeFailure> {
            let mut qq = u0.clone();
            for c in 0..set.len() {
                qq[3 * c] += e * u0[3 * c].min(0.0);
            }
            let sol = patient_fc3d(&w, &qq, &mus, &[]);
            if sol.status != Fc3dStatus::Solved && (sol.residual > 1e-7 || sol.residual.is_nan()) {
                return Err(ModeFailure::bare(FailureKind::Impact));
            }
            let v1 = v + &minv_jt * &sol.r;
            let ke = tree.kinetic_energy(q.as_slice(), v1.as_slice());
            Ok((v1, ke))
        };
        let gains = |ke: f64| ke > ke0 * (1.0 + 1e-12);
        let (mut v1, mut ke1) = outcome(e)?;
        if e > 0.0 && gains(ke1) {
            // The largest fraction of e whose outcome keeps the energy (e = 0 never gains it).
            let (mut lo, mut hi) = (0.0, 1.0);
            let (mut vlo, mut klo) = outcome(0.0)?;
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                let (vm, km) = outcome(mid * e)?;
                if gains(km) {
                    hi = mid;
                } else {
                    lo = mid;
                    vlo = vm;
                    klo = km;
                }
            }
            v1 = vlo;
            ke1 = klo;
        }
        let u1 = &j * &v1;
        let vtol = (CONTACT_TOL * self.vel()).max(1e-8 * speed);
        let mut classes = vec![Class::Separated; self.nc()];
        for (c, &i) in set.iter().enumerate() {
            let ut = Vector2::new(u1[3 * c + 1], u1[3 * c + 2]);
            classes[i] = if u1[3 * c] > vtol { Class::Separated } else { self.tangential_class(ut, vtol) };
        }
        Ok((v1, classes, ke0 - ke1))
    }

    /// A touching contact's class from its tangential velocity `ut`: at rest up to the stop
    /// speed (or `tol`, if larger), else sliding along `ut`.
    pub(super) fn tangential_class(&self, ut: Vector2<f64>, tol: f64) -> Class {
        if ut.norm() <= tol.max(self.stop_speed()) {
            Class::Rest
        } else {
            Class::Sliding(ut / ut.norm())
        }
    }

    /// Each contact's class from the state: touching (gap within `gtol`, normal velocity within
    /// `vtol`) at rest or sliding, else separated.
    pub(super) fn classes_from_state(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        gtol: f64,
        vtol: f64,
    ) -> Option<Vec<Class>> {
        let all: Vec<usize> = (0..self.nc()).collect();
        let kin = self.kinematics(q.as_slice(), &all)?;
        Some(
            kin.iter()
                .map(|k| {
                    let u = &k.rows * v;
                    if k.gap.abs() <= gtol && u[0].abs() <= vtol {
                        self.tangential_class(Vector2::new(u[1], u[2]), vtol)
                    } else {
                        Class::Separated
                    }
                })
                .collect(),
        )
    }
}

/// FC3D ([`fc3d::solve_with_slips`]) with its default sweeps, and, if they run out, again from
/// where they stopped with [`PATIENT_SWEEPS`]: Gauss–Seidel converges slowly, not wrongly, on
/// the redundant contacts of flat feet (a humanoid's two soles on four spheres each, `W` of
/// rank well below its size), and only a problem that still fails is a failure of the mode.
fn patient_fc3d(w: &DMatrix<f64>, q: &DVector<f64>, mus: &[f64], slips: &[Option<Vector2<f64>>]) -> fc3d::Fc3dSolution {
    let sol = fc3d::solve_with_slips(w, q, mus, slips, &Fc3dSettings::default(), None);
    if sol.status != Fc3dStatus::IterationLimit {
        return sol;
    }
    let patient = Fc3dSettings { max_sweeps: PATIENT_SWEEPS, ..Default::default() };
    fc3d::solve_with_slips(w, q, mus, slips, &patient, Some(&sol.r))
}

/// The failure of an unsolved contact problem ([`patient_fc3d`]'s): a Painlevé inconsistency
/// where a sliding contact still needs a push (normal row negative, no force) and its normal
/// response to its own friction is not positive, which no force of its own can give; else
/// `unsettled`, a numerical failure with no verdict. (`touching`: the scene's contact of each
/// of the problem's.)
fn unsolved(
    w: &DMatrix<f64>,
    sol: &fc3d::Fc3dSolution,
    mus: &[f64],
    slips: &[Option<Vector2<f64>>],
    touching: &[usize],
) -> ModeFailure {
    let signature = slips.iter().enumerate().find_map(|(c, s)| {
        let d = (*s)?;
        let b = w.fixed_view::<3, 3>(3 * c, 3 * c).into_owned();
        let wn = fc3d::sliding_normal_response(&b, mus[c], &d);
        (sol.status == Fc3dStatus::NumericalTrouble && sol.r[3 * c] == 0.0 && sol.u[3 * c] < 0.0 && wn <= 0.0)
            .then(|| (touching[c], wn / b[(0, 0)]))
    });
    let evidence = |contact: Option<usize>, b_hat: Option<f64>| FailureEvidence::ContactProblem {
        status: sol.status,
        residual: sol.residual,
        sweeps: sol.sweeps,
        contact,
        b_hat,
    };
    match signature {
        Some((c, b_hat)) => ModeFailure::measured(FailureKind::Painleve, evidence(Some(c), Some(b_hat))),
        None => ModeFailure::measured(FailureKind::Unsettled, evidence(None, None)),
    }
}

/// Gauss–Seidel sweeps of [`patient_fc3d`]'s second attempt.
const PATIENT_SWEEPS: usize = 50_000;

/// The contacts' rows stacked (3k × nv).
pub(super) fn stack(kin: &[ContactKin]) -> DMatrix<f64> {
    let nv = kin.first().map_or(0, |k| k.rows.ncols());
    DMatrix::from_fn(3 * kin.len(), nv, |r, c| kin[r / 3].rows[(r % 3, c)])
}

/// [`least_norm`] without the range check (the projection's least-squares step).
fn least_norm_any(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    crate::numeric::min_norm_solve(a, b, RANK_TOL).unwrap_or_else(|| DVector::zeros(a.ncols()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lu_route_gives_the_least_norm_solution_and_leaves_singular_systems_to_it() {
        // A nonsingular system: LU's answer is the least-norm one to round-off.
        let a = DMatrix::from_fn(6, 6, |i, j| if i == j { 4.0 } else { 1.0 / (1.0 + (i + 2 * j) as f64) });
        let b = DVector::from_fn(6, |i, _| (i as f64 - 2.5) * 0.3);
        let lu = well_conditioned_solve(&a, &b).expect("plainly nonsingular");
        let eig = crate::numeric::min_norm_solve(&a, &b, RANK_TOL).unwrap();
        assert!((&lu - &eig).amax() <= 1e-13 * eig.amax(), "{lu} vs {eig}");
        assert_eq!(least_norm(&a, &b).unwrap(), lu);
        // Two equal rows (redundant contacts): not for LU; the least-norm route splits the load.
        let mut s = a.clone();
        let r0 = s.row(0).into_owned();
        s.row_mut(1).copy_from(&r0);
        let mut c = b.clone();
        c[1] = c[0];
        assert!(well_conditioned_solve(&s, &c).is_none());
        let x = least_norm(&s, &c).unwrap();
        assert!((&s * &x - &c).amax() <= 1e-12);
        // Not square: not for LU.
        assert!(well_conditioned_solve(&a.rows(0, 4).into_owned(), &b.rows(0, 4).into_owned()).is_none());
    }
}
