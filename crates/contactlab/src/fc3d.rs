//! The 3-D frictional contact problem over exact Coulomb cones (Siconos's FC3D): given the
//! Delassus matrix `W` (3k × 3k, each contact's rows `(n, t₁, t₂)`), the free velocity `q` and
//! the friction coefficients `μᵢ`, find impulses (or forces) `r` and velocities `u = W r + q`
//! with, at every contact,
//!
//! `Kᵢ ∋ rᵢ ⟂ ûᵢ ∈ Kᵢ*`, `ûᵢ = uᵢ + μᵢ ‖u_{t,i}‖ e_n` (De Saxcé's modified velocity),
//!
//! `Kᵢ = {‖r_t‖ ≤ μᵢ r_n}` the circular cone and `Kᵢ*` its dual. This is Coulomb's law with
//! Signorini's condition exactly: a contact separates (`r = 0`, `u_n ≥ 0`), sticks (`u = 0`,
//! `r ∈ K`), or slides (`u_n = 0`, `r` on the cone's surface opposite the slip velocity). The
//! problem is not convex (friction is not associated), so it is solved as a complementarity
//! problem over the cones, not as a convex program.
//!
//! [`solve`]: nonsmooth Gauss–Seidel over the contacts (Jean and Moreau; Siconos's NSGS), each
//! contact's local problem solved exactly: separation, sticking (a 3 × 3 solve), or sliding
//! (the slip angle found as a root, scanned and bisected to round-off; De Saxcé's projected fixed
//! point if no root is found). The residual is
//! the natural map `‖r − P_K(r − ρ û)‖` relative to the data's scale, so a problem multiplied
//! by any unit gives the same status.

use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
use serde::Serialize;

use crate::numeric::min_norm_solve3;

/// Settings of [`solve`].
#[derive(Debug, Clone, Copy)]
pub struct Fc3dSettings {
    /// Relative tolerance on the natural-map residual.
    pub tolerance: f64,
    /// Most Gauss–Seidel sweeps.
    pub max_sweeps: usize,
    /// Most fixed-point iterations of one contact's sliding problem.
    pub local_iterations: usize,
}

impl Default for Fc3dSettings {
    fn default() -> Self {
        Self { tolerance: 1e-10, max_sweeps: 2000, local_iterations: 200 }
    }
}

/// How [`solve`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fc3dStatus {
    /// The residual is within the tolerance.
    Solved,
    /// `max_sweeps` was reached first (the residual says how far it got).
    IterationLimit,
    /// A local problem could not be solved (a contact's diagonal block is zero, or a value is
    /// not finite), or a sliding contact still needed a push its own friction turns away
    /// where the sweeps stopped ([`solve_with_slips`]).
    NumericalTrouble,
}

/// What [`solve`] returns.
#[derive(Debug, Clone)]
pub struct Fc3dSolution {
    /// Impulses `r` (rows `(n, t₁, t₂)` per contact).
    pub r: DVector<f64>,
    /// Velocities `u = W r + q`.
    pub u: DVector<f64>,
    /// How it ended.
    pub status: Fc3dStatus,
    /// Sweeps done.
    pub sweeps: usize,
    /// The natural-map residual relative to the data's scale.
    pub residual: f64,
}

/// The projection of `r` on the cone `‖r_t‖ ≤ μ r_n`.
pub fn project_on_cone(r: &Vector3<f64>, mu: f64) -> Vector3<f64> {
    let (rn, rt) = (r[0], nalgebra::Vector2::new(r[1], r[2]));
    let nt = rt.norm();
    // (In the cone: `r_n ≥ 0` is its own test, since for μ = 0 and `r_t = 0` the second one,
    // `0 ≤ μ r_n`, holds for a negative `r_n` too.)
    if rn >= 0.0 && nt <= mu * rn {
        return *r;
    }
    if mu * nt <= -rn {
        return Vector3::zeros();
    }
    let n = (mu * nt + rn) / (mu * mu + 1.0);
    let t = rt * (mu * n / nt);
    Vector3::new(n, t[0], t[1])
}

/// De Saxcé's modified velocity `û = u + μ ‖u_t‖ e_n`.
fn modified(u: &Vector3<f64>, mu: f64) -> Vector3<f64> {
    Vector3::new(u[0] + mu * (u[1] * u[1] + u[2] * u[2]).sqrt(), u[1], u[2])
}

/// One contact's natural-map residual `‖r − P_K(r − ρ û)‖` with `ρ = 1`.
fn local_residual(r: &Vector3<f64>, u: &Vector3<f64>, mu: f64) -> f64 {
    (r - project_on_cone(&(r - modified(u, mu)), mu)).norm()
}

/// Solves one contact's problem `u = w r + b` exactly (module docs); `None` if `w` is not
/// positive definite.
fn solve_local(
    w: &Matrix3<f64>,
    b: &Vector3<f64>,
    mu: f64,
    prev: &Vector3<f64>,
    iterations: usize,
    tol: f64,
) -> Option<Vector3<f64>> {
    // Separation.
    if b[0] >= 0.0 {
        return Some(Vector3::zeros());
    }
    // Frictionless (a joint's stop, a contact with μ = 0): the cone is the ray `r_t = 0`, and
    // the normal impulse stops the contact.
    if mu == 0.0 {
        return (w[(0, 0)] > 0.0).then(|| Vector3::new(-b[0] / w[(0, 0)], 0.0, 0.0));
    }
    // Sticking: u = 0. A contact whose tangential motion is blocked by the mechanism (a planar
    // robot's out-of-plane direction) has a singular block: its sticking impulse is the
    // pseudo-inverse's, if it does stop the contact.
    let scale = w.abs().max();
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    let stick = match w.cholesky() {
        Some(chol) => chol.solve(&-b),
        None => min_norm_solve3(w, &-b, 1e-24)?,
    };
    let stops = (w * stick + b).norm() <= 1e-9 * b.norm();
    if stops && stick[0] >= 0.0 && (stick[1] * stick[1] + stick[2] * stick[2]).sqrt() <= mu * stick[0] {
        return Some(stick);
    }
    // Sliding: u_n = 0 and r = r_n (1, −μ cos φ, −μ sin φ) opposite the slip u_t ∥ (cos φ, sin φ).
    // The slip angle φ is a root of u_t × (cos φ, sin φ) with u_t·(cos φ, sin φ) > 0: scanned
    // and bisected to round-off (the root nearest the contact's last impulse when several).
    if let Some(r) = slide(w, b, mu, prev) {
        return Some(r);
    }
    // Fallback: De Saxcé's fixed point r ← P_K(r − ρ û(w r + b)), ρ below 2 / λ_max(w).
    let lmax = w.symmetric_eigenvalues().max();
    if !(lmax.is_finite() && lmax > 0.0) {
        return None;
    }
    let rho = 1.0 / lmax;
    let mut r = Vector3::new((-b[0] / w[(0, 0)]).max(0.0), 0.0, 0.0);
    let scale = b.norm();
    for _ in 0..iterations {
        let u = w * r + b;
        let next = project_on_cone(&(r - modified(&u, mu) * rho), mu);
        let done = (next - r).norm() <= tol * rho * scale;
        r = next;
        if done {
            break;
        }
    }
    Some(r)
}

/// The sliding solution of one contact (see [`solve_local`]); `None` if there is none.
fn slide(w: &Matrix3<f64>, b: &Vector3<f64>, mu: f64, prev: &Vector3<f64>) -> Option<Vector3<f64>> {
    if mu == 0.0 {
        return None;
    }
    // At slip angle φ: the impulse, and (u_t × e, u_t · e) for e = (cos φ, sin φ).
    let at = |phi: f64| -> Option<(Vector3<f64>, f64, f64)> {
        let (s, c) = phi.sin_cos();
        let d = Vector3::new(1.0, -mu * c, -mu * s);
        let den = w.row(0).dot(&d.transpose());
        if den <= 0.0 {
            return None;
        }
        let rn = -b[0] / den;
        if rn < 0.0 {
            return None;
        }
        let r = d * rn;
        let u = w * r + b;
        Some((r, u[1] * s - u[2] * c, u[1] * c + u[2] * s))
    };
    let prev_t = nalgebra::Vector2::new(prev[1], prev[2]);
    // From the last impulse's slip angle (the slip opposes r_t), secant steps on the cross
    // product: one or two usually suffice from a warm start.
    if prev_t.norm() > 0.0 {
        let (mut a, mut z) = ((-prev_t[1]).atan2(-prev_t[0]), 0.0);
        z += a + 1e-4;
        if let (Some(mut fa), Some(mut fz)) = (at(a), at(z)) {
            for _ in 0..30 {
                if fz.1 == fa.1 {
                    break;
                }
                let next = z - fz.1 * (z - a) / (fz.1 - fa.1);
                let Some(fnext) = at(next) else { break };
                (a, fa, z, fz) = (z, fz, next, fnext);
                if (z - a).abs() <= 1e-14 {
                    if fz.2 > 0.0 {
                        return Some(fz.0);
                    }
                    break;
                }
            }
        }
    }
    const N: usize = 48;
    let step = 2.0 * std::f64::consts::PI / N as f64;
    let mut best: Option<Vector3<f64>> = None;
    for k in 0..N {
        let (a, z) = (k as f64 * step, (k + 1) as f64 * step);
        let (Some(fa), Some(fz)) = (at(a), at(z)) else { continue };
        if (fa.1 > 0.0) == (fz.1 > 0.0) && fa.1 != 0.0 {
            continue;
        }
        let (mut lo, mut hi, lo_pos) = (a, z, fa.1 > 0.0);
        while hi - lo > 1e-14 {
            let m = 0.5 * (lo + hi);
            match at(m) {
                Some(fm) if (fm.1 > 0.0) == lo_pos => lo = m,
                Some(_) => hi = m,
                None => break,
            }
        }
        let Some((r, _, along)) = at(0.5 * (lo + hi)) else { continue };
        if along <= 0.0 {
            continue;
        }
        let closer = |x: &Vector3<f64>| (nalgebra::Vector2::new(x[1], x[2]) - prev_t).norm();
        if best.as_ref().is_none_or(|bst| closer(&r) < closer(bst)) {
            best = Some(r);
        }
    }
    best
}

/// Solves the FC3D problem `(W, q, μ)` (module docs), from `warm` if given.
pub fn solve(
    w: &DMatrix<f64>,
    q: &DVector<f64>,
    mu: &[f64],
    settings: &Fc3dSettings,
    warm: Option<&DVector<f64>>,
) -> Fc3dSolution {
    solve_with_slips(w, q, mu, &[], settings, warm)
}

/// [`solve`] where some contacts already slide in a known direction (the contact problem of
/// an event-driven mode, at the acceleration level): contact `i` with `slips[i] = Some(d)`
/// (`d` a unit vector of the tangent plane, the slip's direction) takes the force
/// `r_n (1, −μ d)` with `0 ≤ r_n ⟂ u_n ≥ 0`; the others follow the cone law. `slips` may be
/// empty (no contact slides). A sliding contact whose normal response `(Wᵢᵢ (1, −μ d))_n`
/// is not positive cannot push itself out of its support (Painlevé's inconsistency, for a
/// lone contact); Gauss–Seidel leaves it without force while it needs a push, and the others
/// may push it. If it still needs one where the sweeps stop (at their fixed point, or at
/// `max_sweeps`), the status is `NumericalTrouble`: the caller reads the contact from `u`
/// (normal row negative, no force) and tells Painlevé's signature from a stalled solver.
pub fn solve_with_slips(
    w: &DMatrix<f64>,
    q: &DVector<f64>,
    mu: &[f64],
    slips: &[Option<nalgebra::Vector2<f64>>],
    settings: &Fc3dSettings,
    warm: Option<&DVector<f64>>,
) -> Fc3dSolution {
    let k = mu.len();
    let slip = |i: usize| slips.get(i).copied().flatten();
    let n = 3 * k;
    let trouble = |r: DVector<f64>| Fc3dSolution {
        u: w * &r + q,
        r,
        status: Fc3dStatus::NumericalTrouble,
        sweeps: 0,
        residual: f64::INFINITY,
    };
    if w.nrows() != n || w.ncols() != n || q.len() != n || mu.iter().any(|m| !(m.is_finite() && *m >= 0.0)) {
        return trouble(DVector::zeros(n));
    }
    if w.iter().chain(q.iter()).any(|x| !x.is_finite()) {
        return trouble(DVector::zeros(n));
    }
    let mut r = warm.filter(|r| r.len() == n).cloned().unwrap_or_else(|| DVector::zeros(n));
    let block = |i: usize| w.fixed_view::<3, 3>(3 * i, 3 * i).into_owned();
    let (mut sweeps, mut residual) = (0, f64::INFINITY);
    // The data's velocity scale: the free velocity, else what unit impulses produce.
    let scale_u = q.abs().max().max(f64::MIN_POSITIVE);
    let rho: Vec<f64> = (0..k).map(|i| 1.0 / block(i).norm().max(f64::MIN_POSITIVE)).collect();
    let residual_of = |r: &DVector<f64>, u: &DVector<f64>| {
        (0..k)
            .map(|i| {
                let ri = Vector3::new(r[3 * i], r[3 * i + 1], r[3 * i + 2]);
                let ui = Vector3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]);
                // ρ = 1/‖Wᵢᵢ‖ makes the residual an impulse; divided by the scale of impulses.
                let rho = rho[i];
                if slip(i).is_some() {
                    // Signorini's condition on the normal row: r_n − max(0, r_n − ρ u_n).
                    return (ri[0] - (ri[0] - rho * ui[0]).max(0.0)).abs() / (rho * scale_u);
                }
                (ri - project_on_cone(&(ri - modified(&ui, mu[i]) * rho), mu[i])).norm() / (rho * scale_u)
            })
            .fold(0.0, f64::max)
    };
    // `u = W r + q`, kept up to date contact by contact (each update a 3-column product), and
    // computed afresh where a sweep's residual says the problem is solved.
    let mut u = w * &r + q;
    // Whether the last sweep met a sliding contact that needed a push its own friction turns
    // away (Painlevé's signature, `slide_along`): it takes no force that sweep, and the
    // others may yet push it out of its support in the next.
    let mut refused = false;
    while sweeps < settings.max_sweeps {
        sweeps += 1;
        let (mut moved, was_refused) = (false, std::mem::take(&mut refused));
        for i in 0..k {
            let ri = Vector3::new(r[3 * i], r[3 * i + 1], r[3 * i + 2]);
            let wii = block(i);
            let b = u.fixed_rows::<3>(3 * i) - wii * ri;
            let local = match slip(i) {
                Some(d) => Some(slide_along(&wii, &b, mu[i], &d).unwrap_or_else(|| {
                    refused = true;
                    Vector3::zeros()
                })),
                None => solve_local(&wii, &b, mu[i], &ri, settings.local_iterations, settings.tolerance),
            };
            match local {
                Some(new) if new.iter().all(|x| x.is_finite()) => {
                    let delta = new - ri;
                    if delta != Vector3::zeros() {
                        moved = true;
                        u.gemv(1.0, &w.fixed_columns::<3>(3 * i), &delta, 1.0);
                        r.fixed_rows_mut::<3>(3 * i).copy_from(&new);
                    }
                }
                _ => return trouble(r),
            }
        }
        // A sweep that changed nothing is Gauss–Seidel's fixed point: with a contact refused
        // in it, nothing the others do will change (a lone sliding contact: at once).
        if refused && !moved && was_refused {
            break;
        }
        residual = residual_of(&r, &u);
        if residual <= settings.tolerance && !refused {
            u = w * &r + q;
            residual = residual_of(&r, &u);
            if residual <= settings.tolerance {
                return Fc3dSolution { u, r, status: Fc3dStatus::Solved, sweeps, residual };
            }
        }
    }
    let u = w * &r + q;
    let residual = residual_of(&r, &u).max(if residual.is_finite() { 0.0 } else { residual });
    let status = if refused { Fc3dStatus::NumericalTrouble } else { Fc3dStatus::IterationLimit };
    Fc3dSolution { u, r, status, sweeps, residual }
}

/// A contact sliding in direction `d`: `r = r_n (1, −μ d)` with `0 ≤ r_n ⟂ u_n ≥ 0`, `u = w r + b`;
/// `None` when no such `r_n` exists (module docs of [`solve_with_slips`]).
fn slide_along(w: &Matrix3<f64>, b: &Vector3<f64>, mu: f64, d: &nalgebra::Vector2<f64>) -> Option<Vector3<f64>> {
    if b[0] >= 0.0 {
        return Some(Vector3::zeros());
    }
    let dir = Vector3::new(1.0, -mu * d[0], -mu * d[1]);
    let wn = sliding_normal_response(w, mu, d);
    (wn > 0.0).then(|| dir * (-b[0] / wn))
}

/// A contact sliding in direction `d` (a unit vector of the tangent plane) with friction `μ`:
/// its normal response to its own force, `(w (1, −μ d))_n`, `w` its diagonal block. Not
/// positive, its friction turns its push into its support (Painlevé; [`solve_with_slips`]).
pub fn sliding_normal_response(w: &nalgebra::Matrix3<f64>, mu: f64, d: &nalgebra::Vector2<f64>) -> f64 {
    (w * Vector3::new(1.0, -mu * d[0], -mu * d[1]))[0]
}

/// The unscaled natural-map residual of `(r, u)` at every contact (`ρ = 1`): for checks
/// independent of [`solve`]'s scaling.
pub fn natural_residual(r: &DVector<f64>, u: &DVector<f64>, mu: &[f64]) -> f64 {
    (0..mu.len())
        .map(|i| {
            let ri = Vector3::new(r[3 * i], r[3 * i + 1], r[3 * i + 2]);
            let ui = Vector3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]);
            local_residual(&ri, &ui, mu[i])
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frictionless_cone_is_the_normal_ray() {
        // μ = 0: the cone is the ray r_t = 0, r_n ≥ 0; a negative normal projects to zero (it
        // was returned as it was, and a frictionless contact separating at a tiny velocity
        // kept a residual of its whole size).
        let p = |r: [f64; 3]| project_on_cone(&Vector3::from(r), 0.0);
        assert_eq!(p([-1e-35, 0.0, 0.0]), Vector3::zeros());
        assert_eq!(p([-1.0, 0.3, 0.0]), Vector3::zeros());
        assert_eq!(p([2.0, 0.3, -0.4]), Vector3::new(2.0, 0.0, 0.0));
        assert_eq!(p([2.0, 0.0, 0.0]), Vector3::new(2.0, 0.0, 0.0));
        assert_eq!(project_on_cone(&Vector3::new(-1.0, 0.0, 0.0), 0.5), Vector3::zeros());
    }

    /// A Delassus matrix of `k` contacts: `J M⁻¹ Jᵀ` of a random body.
    fn delassus(k: usize, seed: u64) -> DMatrix<f64> {
        let mut s = seed;
        let mut rand = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let ndof = 3 * k + 2;
        let a = DMatrix::from_fn(ndof, ndof, |_, _| rand());
        let minv = &a * a.transpose() + DMatrix::identity(ndof, ndof) * 0.5;
        let j = DMatrix::from_fn(3 * k, ndof, |_, _| rand());
        &j * minv * j.transpose()
    }

    #[test]
    fn one_contact_separates_sticks_or_slides_as_coulomb_says() {
        let w = DMatrix::from_row_slice(3, 3, &[2.0, 0.3, -0.1, 0.3, 1.5, 0.2, -0.1, 0.2, 1.8]);
        let s = Fc3dSettings::default();
        // Moving away: no impulse.
        let sep = solve(&w, &DVector::from_vec(vec![0.5, 1.0, -2.0]), &[0.5], &s, None);
        assert_eq!(sep.status, Fc3dStatus::Solved);
        assert!(sep.r.norm() == 0.0);
        // Approaching slowly sideways with much friction: sticks (u = 0).
        let st = solve(&w, &DVector::from_vec(vec![-1.0, 0.1, 0.05]), &[1.0], &s, None);
        assert!(st.u.norm() < 1e-9 && st.r[0] > 0.0, "{:?}", st.u);
        // Fast sideways with little friction: slides, u_n = 0, r on the cone opposite u_t.
        let sl = solve(&w, &DVector::from_vec(vec![-1.0, 3.0, -2.0]), &[0.3], &s, None);
        assert_eq!(sl.status, Fc3dStatus::Solved);
        let (ut, rt) = (nalgebra::Vector2::new(sl.u[1], sl.u[2]), nalgebra::Vector2::new(sl.r[1], sl.r[2]));
        assert!(sl.u[0].abs() < 1e-9 && (rt.norm() - 0.3 * sl.r[0]).abs() < 1e-9);
        assert!((rt.normalize() + ut.normalize()).norm() < 1e-7, "r_t {rt:?} against u_t {ut:?}");
    }

    #[test]
    fn many_contacts_solve_to_the_natural_map_and_the_scale_does_not_matter() {
        for (k, seed) in [(2, 1), (4, 7), (8, 3)] {
            let w = delassus(k, seed);
            let q =
                DVector::from_fn(
                    3 * k,
                    |i, _| if i % 3 == 0 { -1.0 - 0.1 * i as f64 } else { 0.7 * ((i * 7) as f64).sin() },
                );
            let mu: Vec<f64> = (0..k).map(|i| 0.2 + 0.15 * i as f64).collect();
            let s = Fc3dSettings::default();
            let a = solve(&w, &q, &mu, &s, None);
            assert_eq!(a.status, Fc3dStatus::Solved, "k = {k}: residual {}", a.residual);
            let scale = q.abs().max() * w.norm().recip();
            assert!(natural_residual(&a.r, &a.u, &mu) < 1e-8 * scale.max(q.abs().max()));
            // Every impulse in its cone, every modified velocity in the dual cone.
            for i in 0..k {
                let r = Vector3::new(a.r[3 * i], a.r[3 * i + 1], a.r[3 * i + 2]);
                assert!((r - project_on_cone(&r, mu[i])).norm() < 1e-12 * (1.0 + r.norm()));
            }
            // Impulses ×1e8 and velocities ×1e-8 (W ×1e-16): the same status, impulses scaled.
            for f in [1e8, 1e-8] {
                let b = solve(&(&w * (1.0 / (f * f))), &(&q / f), &mu, &s, None);
                assert_eq!(b.status, Fc3dStatus::Solved, "factor {f}");
                assert!((&b.r / f - &a.r).abs().max() < 1e-6 * a.r.abs().max(), "factor {f}");
            }
        }
    }

    /// The Delassus matrix of a box's four bottom corners on a plane tilted by `tilt`: rows
    /// `(n, t₁, t₂)` of `[1, −[p]×]` for each corner `p`, `M = diag(m 1, I)`: 12 rows of rank 6.
    fn box_corners(tilt: f64) -> DMatrix<f64> {
        let (m, inertia) = (2.0, nalgebra::Vector3::new(0.02, 0.03, 0.04));
        let (s, c) = tilt.sin_cos();
        let (n, t1, t2) = (Vector3::new(-s, 0.0, c), Vector3::new(c, 0.0, s), Vector3::y());
        let mut j = DMatrix::zeros(12, 6);
        for (k, (x, y)) in [(0.2, 0.15), (-0.2, 0.15), (0.2, -0.15), (-0.2, -0.15)].into_iter().enumerate() {
            let p = Vector3::new(x, y, -0.1);
            for (row, d) in [n, t1, t2].into_iter().enumerate() {
                // velocity of the corner along d: d·(v + ω × p) = d·v + (p × d)·ω
                let pd = p.cross(&d);
                for col in 0..3 {
                    j[(3 * k + row, col)] = d[col];
                    j[(3 * k + row, 3 + col)] = pd[col];
                }
            }
        }
        let minv = DMatrix::from_diagonal(&DVector::from_vec(vec![
            1.0 / m,
            1.0 / m,
            1.0 / m,
            1.0 / inertia.x,
            1.0 / inertia.y,
            1.0 / inertia.z,
        ]));
        &j * minv * j.transpose()
    }

    #[test]
    fn frictionless_contacts_solve_the_normal_lcp_as_lemke_does() {
        // μ = 0 at every contact: the impulses are normal, and their normal parts solve the LCP
        // of W's normal rows (an independent route: Lemke on that LCP), the tangential rows of
        // W nonzero (a frictionless contact, not a joint's stop).
        for (k, seed) in [(3, 2), (6, 5)] {
            let w = delassus(k, seed);
            let q = DVector::from_fn(3 * k, |i, _| if i % 3 == 0 { 0.5 - (i as f64 * 1.3).sin() } else { 0.3 });
            let mu = vec![0.0; k];
            let a = solve(&w, &q, &mu, &Fc3dSettings::default(), None);
            assert_eq!(a.status, Fc3dStatus::Solved, "k = {k}: residual {}", a.residual);
            let normal = |i: usize| 3 * i;
            let lcp = crate::lcp::Lcp::new(
                DMatrix::from_fn(k, k, |r, c| w[(normal(r), normal(c))]),
                DVector::from_fn(k, |r, _| q[normal(r)]),
            )
            .unwrap();
            let z = crate::lcp::lemke::solve(&lcp, &crate::lcp::LcpSettings::default()).unwrap().z;
            for i in 0..k {
                assert_eq!((a.r[3 * i + 1], a.r[3 * i + 2]), (0.0, 0.0));
                assert!((a.r[3 * i] - z[i]).abs() <= 1e-8 * z.amax().max(1.0), "k = {k}: {} vs {}", a.r[3 * i], z[i]);
            }
        }
    }

    #[test]
    fn a_singular_block_s_sticking_impulse_is_its_least_norm_one() {
        // A contact whose second tangent the mechanism blocks (a planar robot's out-of-plane
        // direction): its block is singular, and the stack-based pseudo-inverse gives the
        // heap-based one's answer.
        let a = Matrix3::new(2.0, 0.3, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0, 0.0);
        let b = Vector3::new(-1.0, 0.4, 0.0);
        let x = min_norm_solve3(&a, &b, 1e-24).unwrap();
        let y = crate::numeric::min_norm_solve(
            &DMatrix::from_fn(3, 3, |r, c| a[(r, c)]),
            &DVector::from_fn(3, |r, _| b[r]),
            1e-24,
        )
        .unwrap();
        assert!((x - Vector3::new(y[0], y[1], y[2])).norm() < 1e-15, "{x} vs {y}");
        assert!((a * x - b).norm() < 1e-15);
    }

    #[test]
    fn redundant_contacts_of_one_body_still_solve() {
        // A box's four corners (12 rows on 6 degrees of freedom), landing with a sideways slip
        // and resting on a tilted plane.
        let w = box_corners(0.3);
        for (q, mu) in [
            (
                DVector::from_fn(12, |i, _| {
                    if i % 3 == 0 {
                        -1.0
                    } else if i % 3 == 1 {
                        0.4
                    } else {
                        0.1
                    }
                }),
                0.5,
            ),
            (
                DVector::from_fn(12, |i, _| {
                    if i % 3 == 0 {
                        -0.02
                    } else if i % 3 == 1 {
                        -0.005
                    } else {
                        0.0
                    }
                }),
                0.2,
            ),
        ] {
            let sol = solve(&w, &q, &[mu; 4], &Fc3dSettings::default(), None);
            assert_eq!(sol.status, Fc3dStatus::Solved, "residual {} after {} sweeps", sol.residual, sol.sweeps);
            assert!(natural_residual(&sol.r, &sol.u, &[mu; 4]) < 1e-8);
        }
    }

    #[test]
    fn bad_data_is_numerical_trouble_not_a_panic() {
        let w = DMatrix::from_element(3, 3, f64::NAN);
        assert_eq!(
            solve(&w, &DVector::from_element(3, -1.0), &[0.5], &Fc3dSettings::default(), None).status,
            Fc3dStatus::NumericalTrouble
        );
        let w = DMatrix::zeros(3, 3);
        assert_eq!(
            solve(&w, &DVector::from_element(3, -1.0), &[0.5], &Fc3dSettings::default(), None).status,
            Fc3dStatus::NumericalTrouble
        );
        assert_eq!(
            solve(&DMatrix::identity(3, 3), &DVector::from_element(3, -1.0), &[-0.5], &Fc3dSettings::default(), None)
                .status,
            Fc3dStatus::NumericalTrouble
        );
    }

    #[test]
    fn a_contact_sliding_in_a_given_direction_pushes_just_enough_or_has_no_solution() {
        // One contact of a random body sliding along d: r = r_n (1, −μ d) with u_n = 0 exactly,
        // beside a cone contact; and a block whose normal response to its own friction is
        // negative (Painlevé) has no solution.
        let w = delassus(2, 11);
        let q = DVector::from_vec(vec![-1.0, 0.3, -0.2, -0.5, 0.1, 0.4]);
        let d = nalgebra::Vector2::new(0.6, 0.8);
        let sol = solve_with_slips(&w, &q, &[0.5, 0.5], &[Some(d), None], &Fc3dSettings::default(), None);
        assert_eq!(sol.status, Fc3dStatus::Solved, "residual {}", sol.residual);
        let r0 = Vector3::new(sol.r[0], sol.r[1], sol.r[2]);
        assert!(r0[0] > 0.0 && (r0 - Vector3::new(1.0, -0.3, -0.4) * r0[0]).norm() < 1e-12 * r0[0]);
        assert!(sol.u[0].abs() < 1e-9, "u_n = {}", sol.u[0]);
        let r1 = Vector3::new(sol.r[3], sol.r[4], sol.r[5]);
        let u1 = Vector3::new(sol.u[3], sol.u[4], sol.u[5]);
        assert!(local_residual(&r1, &u1, 0.5) < 1e-9);
        let mut wp = Matrix3::identity();
        wp[(0, 1)] = 3.0; // the friction along +t₁ pulls the contact into its support
        let wp = DMatrix::from_fn(3, 3, |r, c| wp[(r, c)]);
        let q1 = DVector::from_vec(vec![-1.0, 0.0, 0.0]);
        let bad = solve_with_slips(
            &wp,
            &q1,
            &[0.5],
            &[Some(nalgebra::Vector2::new(1.0, 0.0))],
            &Fc3dSettings::default(),
            None,
        );
        assert_eq!(bad.status, Fc3dStatus::NumericalTrouble);
        // Gauss–Seidel's fixed point, found at the second sweep, with the push still needed.
        assert_eq!(bad.sweeps, 2);
        assert!(bad.r.amax() == 0.0 && bad.u[0] == -1.0 && bad.residual > 0.0 && bad.residual.is_finite());

        // The same contact beside a frictionless one that lifts it: a solution, with the
        // sliding contact separating (it was refused at once, before the other had pushed).
        let mut w2 = DMatrix::identity(6, 6);
        w2.view_mut((0, 0), (3, 3)).copy_from(&wp);
        w2[(0, 3)] = 0.5;
        w2[(3, 0)] = 0.5;
        let q2 = DVector::from_vec(vec![-1.0, 0.0, 0.0, -4.0, 0.0, 0.0]);
        let slips = [Some(nalgebra::Vector2::new(1.0, 0.0)), None];
        let sol = solve_with_slips(&w2, &q2, &[0.5, 0.0], &slips, &Fc3dSettings::default(), None);
        assert_eq!(sol.status, Fc3dStatus::Solved, "residual {}", sol.residual);
        assert_eq!(sol.r[0], 0.0);
        assert!((sol.r[3] - 4.0).abs() < 1e-12 && (sol.u[0] - 1.0).abs() < 1e-12, "{:?} {:?}", sol.r, sol.u);
    }
}
