//! Exact derivatives of the event-driven 3-D flow, guards and impacts, for the variational
//! equations and saltation matrices of [`crate::hybrid::variational`] (the exact route of return
//! maps and Floquet multipliers).
//!
//! Each quantity is computed a second time in dual numbers ([`crate::spatial::derivatives`]),
//! with its *pattern* fixed from the `f64` solution: the mode's constraints, and which of them
//! are independent. Seeded along each component of the stored state `x = (q, v)` (quaternion
//! components included; `q` is normalised inside, as the flow does), the dual parts give:
//!
//! * the flow's Jacobian `Df = ∂(q̇, v̇)/∂x` of a mode: `q̇ = G(q) v`, and `v̇` from
//!   `M v̇ = h + Σ cⱼ λⱼ`, `rⱼᵀ v̇ = −(drift)ⱼ` with the slip directions `ŝ = dir(u_t + δ d)`
//!   differentiated too;
//! * the gradients of the guards: a free contact's gap, a closed contact's normal force, the
//!   cone margin `μλ_n − ‖λ_t‖` of a sticking contact and the slip speed less the stop speed of
//!   a slipping one;
//! * the jump matrix of an impact, `DΔ = [[I, 0], [∂v⁺/∂q, ∂v⁺/∂v⁻]]`, from Newton's law
//!   `u_n⁺ = −e u_n⁻` on the contacts that stay closed and `u_t⁺ = 0` on those that stick:
//!   `v⁺ = v⁻ + M⁻¹ Rᵀ Λ` with `(R M⁻¹ Rᵀ) Λ = target − R v⁻`. Positions do not jump; a
//!   perturbation reaching the guard keeps the closed contacts closed, so on it `∂q⁺/∂q` is
//!   the derivative of the quaternions' normalisation, which every transition applies (the
//!   identity on a unit quaternion's tangent space, zero along its own direction). Lift-offs and
//!   starts and ends of slip move the state no further (`DΔ` = that block and the identity).
//!
//! Dependent constraints (a box sticking on four corners) are reduced to an independent subset,
//! chosen greedily in the `M⁻¹` metric (`R M⁻¹ Rᵀ`'s pivoted Cholesky with pivots below
//! [`INDEPENDENT`] of their diagonal dropped): the motion is the same. Where the subset changes
//! the answer (slipping contacts among dependent constraints, the forces of a redundant stick
//! whose least-norm choice is not smooth), where the contact point is a support point that moves
//! over a curved surface (cylinders and ellipsoids, whose drift is a difference), an impact that
//! slips, or one whose outcome is not the fixed-pattern law (a restitution lowered against an
//! energy gain), the derivative is `None`: the return map then takes differences.

use nalgebra::{DMatrix, DVector, Vector2, Vector3};
use num_dual::Dual64;

use super::modes::{Contact3Mode, Modes3};
use super::{split, EventScene, Feature, CONTACT_TOL};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::EventKind;
use crate::spatial::algebra::{real, real3, Real};
use crate::spatial::contact::{contact_jacobians_in, contact_points_in, ContactPoint3};
use crate::spatial::derivatives::{seeded, tangent};
use crate::spatial::tree::Frames;

/// A constraint is dependent on those before it when its pivot in `R M⁻¹ Rᵀ`'s Cholesky falls
/// below this fraction of its diagonal.
pub const INDEPENDENT: f64 = 1e-10;

type State = DMatrix<f64>;

/// A mode's acceleration and, unless rows were dropped, each closed contact's force.
type Solved<T> = (DVector<T>, Option<Vec<Vector3<T>>>);

/// A contact's kinematics in scalars `T`: gap, rows `(n, t₁, t₂)` (3 × nv) and drift `J̇ v`.
struct KinT<T: Real> {
    gap: T,
    rows: DMatrix<T>,
    drift: Vector3<T>,
}

/// The constraints of a mode or an impact, as their `f64` solution fixed them.
pub(super) struct Pattern {
    /// Per closed contact, in order: its index and, for a slip, the reference direction.
    closed: Vec<(usize, Option<[f64; 2]>)>,
    /// Which of the stacked rows are kept (independent).
    keep: Vec<bool>,
}

/// Greedy independent rows of `R` in the metric of `M⁻¹` (module docs).
fn independent(r: &DMatrix<f64>, m: &DMatrix<f64>) -> Option<Vec<bool>> {
    let chol = m.clone().cholesky()?;
    let g = r * chol.solve(&r.transpose());
    let n = g.nrows();
    let mut l: Vec<DVector<f64>> = vec![];
    let mut kept: Vec<usize> = vec![];
    let mut keep = vec![false; n];
    for k in 0..n {
        // The pivot of row k against the rows kept so far.
        let mut lk = DVector::zeros(kept.len());
        for (a, &i) in kept.iter().enumerate() {
            let s: f64 = (0..a).map(|b| l[a][b] * lk[b]).sum();
            lk[a] = (g[(k, i)] - s) / l[a][a];
        }
        let pivot = g[(k, k)] - lk.norm_squared();
        if g[(k, k)] > 0.0 && pivot > INDEPENDENT * g[(k, k)] {
            let mut row = DVector::zeros(kept.len() + 1);
            row.rows_mut(0, kept.len()).copy_from(&lk);
            row[kept.len()] = pivot.sqrt();
            l.push(row);
            kept.push(k);
            keep[k] = true;
        }
    }
    Some(keep)
}

impl EventScene<'_> {
    /// Contact `i`'s kinematics from `frames`, the tree's at `(q, v)` in `T` (`q` normalised,
    /// computed once for every contact); `None` for a support point (module docs) or if its
    /// shape's candidates changed.
    fn kin_in<T: Real>(&self, frames: &Frames<T>, i: usize) -> Option<KinT<T>> {
        let tree = &self.scene.tree;
        let c = &self.contacts[i];
        if c.stop().is_some() {
            let (p, rows) = self.contact_point_rows_in(frames, i)?;
            return Some(KinT { gap: p.gap, rows, drift: Vector3::zeros() });
        }
        let plane = &self.scene.planes[c.plane];
        let (p, rows) = self.contact_point_rows_in(frames, i)?;
        let (t1, t2) = plane.tangents();
        let (n, t1, t2) = (real3::<T>(&plane.normal), real3::<T>(&t1), real3::<T>(&t2));
        let project = |a: Vector3<T>| Vector3::new(n.dot(&a), t1.dot(&a), t2.dot(&a));
        let a = tree.point_velocity_product_in(frames, p.body, &p.local);
        let drift = match c.kind {
            Feature::Corner => project(a),
            Feature::Round(radius) => {
                let w = tree.angular_velocity_in(frames, p.body);
                let rho = -n * real::<T>(radius);
                project(a - w.cross(&w.cross(&rho)))
            }
            Feature::Support | Feature::Stop { .. } => return None,
        };
        Some(KinT { gap: p.gap, rows, drift })
    }

    /// [`Self::kin_in`] at `(q, v)`, for one contact.
    fn kin_t<T: Real>(&self, q: &[T], v: &[T], i: usize) -> Option<KinT<T>> {
        self.kin_in(&self.scene.tree.frames(q, Some(v)), i)
    }

    /// Contact `i`'s point and rows `(n, t₁, t₂)` (3 × nv) from `frames` (the tree's at a
    /// normalised `q`) in `T`; `None` if its shape's candidates changed.
    fn contact_point_rows_in<T: Real>(&self, frames: &Frames<T>, i: usize) -> Option<(ContactPoint3<T>, DMatrix<T>)> {
        let tree = &self.scene.tree;
        let c = &self.contacts[i];
        if let Some((gap, rows)) = self.stop_gap_rows(c, frames.q()) {
            let o = Vector3::zeros();
            return Some((ContactPoint3 { body: 0, point: o, local: o, gap }, rows));
        }
        let plane = &self.scene.planes[c.plane];
        let group = self.groups.iter().find(|g| g.0 == c.shape && g.1 == c.plane)?;
        let mut pts = contact_points_in(frames.world(), &self.scene.shapes[c.shape], plane);
        if pts.len() != group.3 {
            return None;
        }
        let p = pts.swap_remove(c.feature);
        let (jn, jt) = contact_jacobians_in(tree, frames, &p, plane);
        let nv = jn.len();
        let rows = DMatrix::from_fn(3, nv, |r, k| if r == 0 { jn[k] } else { jt[(r - 1, k)] });
        Some((p, rows))
    }

    /// Contact `i`'s gap and rows `(n, t₁, t₂)` (3 × nv) at `q` (normalised) in any scalar
    /// type (dual numbers: their exact derivatives); `None` if its shape's candidates changed.
    pub fn contact_rows<T: Real>(&self, q: &[T], i: usize) -> Option<(T, DMatrix<T>)> {
        self.contact_point_rows_in(&self.scene.tree.frames(q, None), i).map(|(p, r)| (p.gap, r))
    }

    /// `M`, and the free forces `h − d v − k (q − r(t)) + d ṙ(t)`, at `(t, q, v)` in `T`
    /// ([`crate::spatial::timestep::passive_force`]).
    fn dynamics_t<T: Real>(&self, t: f64, q: &[T], v: &[T]) -> (DMatrix<T>, DVector<T>) {
        let (m, mut f) = self.scene.tree.mass_and_bias(q, v);
        for (k, &d) in self.scene.damping.iter().enumerate() {
            f[k] -= real::<T>(d) * v[k];
        }
        for s in &self.scene.springs {
            let (r, rd) = s.reference.at(t);
            f[s.qvel] -= real::<T>(s.stiffness) * (q[s.qpos] - real(r));
            if let Some(&d) = self.scene.damping.get(s.qvel) {
                f[s.qvel] += real::<T>(d * rd);
            }
        }
        (m, f)
    }

    /// The state split into `(q, v)` with `q` normalised, in `T`.
    fn split_t<T: Real>(&self, x: &[T]) -> Option<(Vec<T>, Vec<T>)> {
        let nq = self.scene.tree.nq();
        let mut q = x[..nq].to_vec();
        self.scene.tree.normalize(&mut q).then(|| (q, x[nq..].to_vec()))
    }

    /// The constrained solve of a mode in `T`: the acceleration and, per closed contact of the
    /// pattern, its force `(λ_n, λ_t)`. With rows dropped the forces are `None`.
    fn solve_t<T: Real>(&self, pat: &Pattern, t: f64, q: &[T], v: &[T]) -> Option<Solved<T>> {
        let (m, f) = self.dynamics_t(t, q, v);
        let chol = m.cholesky()?;
        let a0 = chol.solve(&f);
        if pat.closed.is_empty() {
            return Some((a0, Some(vec![])));
        }
        let vv = DVector::from_column_slice(v);
        let delta = real::<T>(self.stop_speed());
        let (mut rows, mut cols): (Vec<DVector<T>>, Vec<DVector<T>>) = (vec![], vec![]);
        let (mut rhs, mut dirs): (Vec<T>, Vec<Option<Vector2<T>>>) = (vec![], vec![]);
        let frames = self.scene.tree.frames(q, Some(v));
        for &(i, slip) in &pat.closed {
            let k = self.kin_in(&frames, i)?;
            let row = |r: usize| k.rows.row(r).transpose();
            match slip {
                None => {
                    for r in 0..self.contacts[i].stick_rows() {
                        rhs.push(-(row(r).dot(&a0) + k.drift[r]));
                        rows.push(row(r));
                        cols.push(row(r));
                    }
                    dirs.push(None);
                }
                Some(d) => {
                    let ut = Vector2::new(row(1).dot(&vv), row(2).dot(&vv));
                    let s = (ut + Vector2::new(real::<T>(d[0]), real::<T>(d[1])) * delta).normalize();
                    let mu = real::<T>(self.contacts[i].mu);
                    rhs.push(-(row(0).dot(&a0) + k.drift[0]));
                    cols.push(row(0) - (row(1) * s[0] + row(2) * s[1]) * mu);
                    rows.push(row(0));
                    dirs.push(Some(s));
                }
            }
        }
        let idx: Vec<usize> = (0..rows.len()).filter(|&r| pat.keep[r]).collect();
        let nv = v.len();
        let rm = DMatrix::from_fn(idx.len(), nv, |a, b| rows[idx[a]][b]);
        let fm = DMatrix::from_fn(nv, idx.len(), |a, b| cols[idx[b]][a]);
        let minv_f = chol.solve(&fm);
        let lam = (&rm * &minv_f).lu().solve(&DVector::from_iterator(idx.len(), idx.iter().map(|&r| rhs[r])))?;
        let acc = a0 + &minv_f * &lam;
        if idx.len() < rows.len() {
            return Some((acc, None));
        }
        let mut force = vec![];
        let mut at = 0;
        for (k, &(i, _)) in pat.closed.iter().enumerate() {
            force.push(match dirs[k] {
                None if self.contacts[i].stick_rows() == 1 => {
                    at += 1;
                    Vector3::new(lam[at - 1], real(0.0), real(0.0))
                }
                None => {
                    at += 3;
                    Vector3::new(lam[at - 3], lam[at - 2], lam[at - 1])
                }
                Some(s) => {
                    at += 1;
                    let mu = real::<T>(self.contacts[i].mu);
                    Vector3::new(lam[at - 1], -(mu * s[0] * lam[at - 1]), -(mu * s[1] * lam[at - 1]))
                }
            });
        }
        Some((acc, Some(force)))
    }

    /// The pattern of `mode` at the state `x` (module docs); `None` if a closed contact is a
    /// support point, or slips among dependent constraints.
    pub(super) fn mode_pattern(&self, mode: &Modes3, x: &State) -> Option<Pattern> {
        let (q, v) = self.split_t(x.as_slice())?;
        let closed: Vec<(usize, Option<[f64; 2]>)> = (0..self.nc())
            .filter_map(|i| match mode.get(i) {
                Contact3Mode::Free => None,
                Contact3Mode::Stick => Some((i, None)),
                Contact3Mode::Slip(d) => Some((i, Some(d))),
            })
            .collect();
        let mut rows: Vec<DVector<f64>> = vec![];
        let frames = self.scene.tree.frames(&q, Some(&v));
        for &(i, slip) in &closed {
            let k = self.kin_in(&frames, i)?;
            let n = if slip.is_some() { 1 } else { self.contacts[i].stick_rows() };
            rows.extend((0..n).map(|r| k.rows.row(r).transpose()));
        }
        let nv = v.len();
        let r = DMatrix::from_fn(rows.len(), nv, |a, b| rows[a][b]);
        let keep = independent(&r, &self.scene.tree.mass_matrix(&q))?;
        let dropped = keep.iter().any(|k| !k);
        if dropped && closed.iter().any(|c| c.1.is_some()) {
            return None;
        }
        Some(Pattern { closed, keep })
    }

    /// The flow `(q̇, v̇)` of a pattern at `(t, x)` in `T`.
    pub(super) fn flow_t<T: Real>(&self, pat: &Pattern, t: f64, x: &[T]) -> Option<DVector<T>> {
        let (q, v) = self.split_t(x)?;
        let (acc, _) = self.solve_t(pat, t, &q, &v)?;
        let qd = self.scene.tree.qdot(&q, &v);
        Some(DVector::from_iterator(x.len(), qd.iter().chain(acc.iter()).copied()))
    }

    /// `Df` of `mode` at `(t, x)` (module docs).
    pub(super) fn flow_jacobian_at(&self, mode: &Modes3, t: f64, x: &State) -> Option<DMatrix<f64>> {
        let pat = self.mode_pattern(mode, x)?;
        let n = x.nrows();
        let mut out = DMatrix::zeros(n, n);
        for k in 0..n {
            let f = self.flow_t(&pat, t, &seeded(x.as_slice(), k))?;
            out.set_column(k, &DVector::from_vec(tangent(f.as_slice())));
        }
        out.iter().all(|a| a.is_finite()).then_some(out)
    }

    /// Guard `guard` of `mode` at `(t, x)` in `T` (as [`super::hybrid_impl`]'s `guards`).
    fn guard_t<T: Real>(&self, mode: &Modes3, pat: &Pattern, guard: usize, t: f64, x: &[T]) -> Option<T> {
        let (q, v) = self.split_t(x)?;
        let i = guard / 2;
        let cm = mode.get(i);
        if cm == Contact3Mode::Free {
            // The gap, or its penetration net `gap + gtol` (the second guard).
            let net = if guard.is_multiple_of(2) { 0.0 } else { CONTACT_TOL * self.length() };
            return self.kin_t(&q, &v, i).map(|k| k.gap + real::<T>(net));
        }
        if let (1, Contact3Mode::Slip(d)) = (guard % 2, cm) {
            let k = self.kin_t(&q, &v, i)?;
            let u = &k.rows * DVector::from_column_slice(&v);
            return Some(self.slip_stop_guard(Vector2::new(u[1], u[2]), d));
        }
        let (_, force) = self.solve_t(pat, t, &q, &v)?;
        let k = pat.closed.iter().position(|c| c.0 == i)?;
        let f = force?[k];
        Some(if guard.is_multiple_of(2) {
            f[0]
        } else if self.contacts[i].stop().is_some() {
            real::<T>(self.stop_slip_guard())
        } else {
            real::<T>(self.contacts[i].mu) * f[0] - Vector2::new(f[1], f[2]).norm()
        })
    }

    /// The gradient of guard `guard` of `mode` at `(t, x)` in the state (module docs).
    pub(super) fn guard_gradient_at(&self, mode: &Modes3, guard: usize, t: f64, x: &State) -> Option<DVector<f64>> {
        if guard / 2 >= self.nc() {
            return None;
        }
        let pat = self.mode_pattern(mode, x)?;
        let n = x.nrows();
        let mut out = DVector::zeros(n);
        for k in 0..n {
            out[k] = self.guard_t(mode, &pat, guard, t, &seeded(x.as_slice(), k))?.eps;
        }
        out.iter().all(|a| a.is_finite()).then_some(out)
    }

    /// The derivative of the map that normalises the state's quaternions (the identity on the
    /// other coordinates and on the velocities): `Φ(0)` of a run from `x`, whose start the
    /// driver normalises.
    pub fn normalization_jacobian(&self, x: &State) -> DMatrix<f64> {
        let n = x.nrows();
        let nq = self.scene.tree.nq();
        let mut out = DMatrix::identity(n, n);
        for k in 0..nq {
            let mut qd = seeded(&x.as_slice()[..nq], k);
            self.scene.tree.normalize(&mut qd);
            for (r, d) in qd.iter().enumerate() {
                out[(r, k)] = d.eps;
            }
        }
        out
    }

    /// The jump matrix of the event `ev` (module docs).
    pub(super) fn jump_jacobian_at(&self, ev: &EventRecord<State, Modes3>) -> Option<DMatrix<f64>> {
        let n = ev.before.nrows();
        let nq = self.scene.tree.nq();
        // Every transition normalises the quaternions: ∂q⁺/∂q is that map's derivative.
        let mut out = self.normalization_jacobian(&ev.before);
        match ev.info.kind {
            EventKind::LiftOff | EventKind::SlipOnset | EventKind::SlipStop | EventKind::Reset => return Some(out),
            EventKind::Impact => {}
            _ => return None,
        }
        let (q, v) = self.split_t(ev.before.as_slice())?;
        let (_, v1) = split(&ev.after, nq);
        // The pattern: the touching contacts that stay closed, sticking or (then `None`) slipping.
        let gtol = CONTACT_TOL * self.length();
        let frames = self.scene.tree.frames(&q, Some(&v));
        let speed = (0..self.nc())
            .filter_map(|i| self.kin_in(&frames, i))
            .map(|k| -(k.rows.row(0) * DVector::from_column_slice(&v))[0])
            .fold(0.0, f64::max);
        let vtol = (CONTACT_TOL * self.vel()).max(1e-8 * speed);
        let e = self.scene.restitution;
        let vv0 = DVector::from_column_slice(&v);
        let mut rows: Vec<(usize, usize)> = vec![];
        for i in 0..self.nc() {
            let k = self.kin_in(&frames, i)?;
            if k.gap.abs() > gtol {
                continue;
            }
            // Active (a normal impulse): Newton's law holds with equality.
            let (u0, u) = (&k.rows * &vv0, &k.rows * &v1);
            if u[0] > -e * u0[0].min(0.0) + vtol {
                continue;
            }
            if Vector2::new(u[1], u[2]).norm() > vtol.max(self.stop_speed()) {
                return None;
            }
            rows.extend((0..3).map(|r| (i, r)));
        }
        if rows.is_empty() {
            // No contact took an impulse (a foot that armed under the ground): no fixed law.
            return None;
        }
        let impulse = |x: &[Dual64], keep: &[bool]| -> Option<DVector<Dual64>> {
            let (q, v) = self.split_t(x)?;
            // (`M` only: the time does not enter.)
            let (m, _) = self.dynamics_t(0.0, &q, &v);
            let vv = DVector::from_column_slice(&v);
            let mut r = vec![];
            let mut target = vec![];
            for (a, &(i, c)) in rows.iter().enumerate() {
                if !keep[a] {
                    continue;
                }
                let row = self.kin_t(&q, &v, i)?.rows.row(c).transpose();
                let u = row.dot(&vv);
                let want = if c == 0 && u.re < 0.0 { -(u * e) } else { Dual64::from(0.0) };
                target.push(want - u);
                r.push(row);
            }
            let nv = v.len();
            let rm = DMatrix::from_fn(r.len(), nv, |a, b| r[a][b]);
            let chol = m.cholesky()?;
            let minv_rt = chol.solve(&rm.transpose());
            let lam = (&rm * &minv_rt).lu().solve(&DVector::from_vec(target))?;
            Some(vv + minv_rt * lam)
        };
        let mut rm = DMatrix::zeros(rows.len(), v.len());
        for (a, &(i, r)) in rows.iter().enumerate() {
            if r == 0 {
                let k = self.kin_t(&q, &v, i)?;
                rm.rows_mut(a, 3).copy_from(&k.rows);
            }
        }
        let keep = independent(&rm, &self.scene.tree.mass_matrix(&q))?;
        // The fixed-pattern law must give the run's outcome (not a lowered restitution).
        let plain: Vec<Dual64> = ev.before.iter().map(|&a| Dual64::from(a)).collect();
        let v_law: Vec<f64> = impulse(&plain, &keep)?.iter().map(|d| d.re).collect();
        let vs = self.vel();
        if v_law.iter().zip(v1.iter()).any(|(a, b)| (a - b).abs() > 1e-6 * vs.max(b.abs())) {
            return None;
        }
        for k in 0..n {
            let dv = impulse(&seeded(ev.before.as_slice(), k), &keep)?;
            for (r, d) in dv.iter().enumerate() {
                out[(nq + r, k)] = d.eps;
            }
        }
        out.iter().all(|a| a.is_finite()).then_some(out)
    }
}
