//! Painlevé's paradox at a contact of a robot in 3-D (P2, Section 2, with the slip direction a
//! unit vector of the tangent plane).
//!
//! A contact slipping with velocity `u_t` (tangent-plane coordinates `t₁, t₂` of
//! [`super::contact::Plane::tangents`]) in direction `ŝ = u_t/‖u_t‖` carries the force
//! `f_n (n − μŝ)`. With the contacts `H` that stick held closed (bilateral, three rows each),
//! the accelerations are `v̇ = a_H + P (w_n − μ W_t ŝ) f_n`, where
//! `P = M⁻¹ − M⁻¹J_Hᵀ(J_H M⁻¹J_Hᵀ)⁺J_H M⁻¹` is the constrained inverse (the pseudo-inverse:
//! four sticking feet are redundant constraints) and `a_H` the acceleration that keeps `H`
//! closed with no force at the contact. Its normal acceleration is P2's
//! `a_n = −A + B(ŝ) f_n` (eqs. 20–21) with
//!
//! ```text
//!     A = −w_nᵀ a_H − ẇ_nᵀ v,        B(ŝ) = d − μ cᵀŝ,   d = w_nᵀ P w_n > 0,   c = W_tᵀ P w_n.
//! ```
//!
//! `B` depends on the direction through `cᵀŝ` alone: it is least along `ŝ* = c/‖c‖`, where
//! `B = d − μ‖c‖`. So at a configuration some slip direction is paradoxical (`B < 0`) exactly
//! when `μ > d/‖c‖`, the directions that are form the arc `cos(ψ − ψ_c) > d/(μ‖c‖)` about
//! `ŝ*`, and a given direction `ŝ` is paradoxical when `μ > d/(cᵀŝ)` (`cᵀŝ > 0`). For a planar
//! motion `c` lies in the plane of motion and the out-of-plane slip at angle `ψ` to it needs
//! `μ > μ_planar/cos ψ`: Painlevé's rod gives `4/3` in its plane (a test checks both).
//!
//! Several contacts slipping at once (each in its own direction) give the normal accelerations
//! `a = −A + B f` with `Bᵢⱼ = w_{n,i}ᵀ P (w_{n,j} − μⱼ W_{t,j} ŝⱼ)`, whose LCP decides the
//! motion as in the planar case ([`crate::multibody::painleve`]).
//!
//! Everything here is linear algebra at one state; the slice scans and the names are
//! `api::painleve`'s in 3-D.

use nalgebra::{DMatrix, DVector, Vector2};

use super::events::EventScene;

/// Eigenvalues of `J_H M⁻¹J_Hᵀ` below this fraction of the largest count as zero (redundant
/// held rows).
const RANK_TOL: f64 = 1e-12;

/// The contacts `H` held sticking at `(q, v)`: the constrained inverse `P`, the acceleration
/// `a_H` that keeps them closed with no force at the slipping contact, and their forces
/// `λ_H = λ₀ − K F f` under a generalised force `F f` at it (three per held contact, in their
/// `(n, t₁, t₂)` rows), `K = (J_H M⁻¹J_Hᵀ)⁺J_H M⁻¹`.
pub(crate) struct Held3 {
    /// `P`.
    pub(crate) p: DMatrix<f64>,
    /// `a_H`.
    pub(crate) a: DVector<f64>,
    /// `λ₀`.
    pub(crate) lambda0: DVector<f64>,
    /// `K`.
    pub(crate) k: DMatrix<f64>,
}

/// [`Held3`] at `(q, v)` (module docs; the springs' references at `t = 0`: the analyses
/// that call it take scenes whose forces do not depend on time, [`crate::spatial::timestep::Scene3::autonomous`],
/// or an instant); `None` if `M` is not positive definite or a contact's candidates changed.
pub(crate) fn held3(sys: &EventScene<'_>, q: &[f64], v: &[f64], held: &[usize]) -> Option<Held3> {
    let (chol, a0) = sys.free_motion(0.0, q, v)?;
    let nv = v.len();
    let minv = chol.inverse();
    if held.is_empty() {
        return Some(Held3 { p: minv, a: a0, lambda0: DVector::zeros(0), k: DMatrix::zeros(0, nv) });
    }
    let kin = sys.kinematics(q, held)?;
    let jh = DMatrix::from_fn(3 * held.len(), nv, |r, c| kin[r / 3].rows[(r % 3, c)]);
    let drift = DVector::from_iterator(
        3 * held.len(),
        held.iter().enumerate().flat_map(|(k, &i)| sys.drift(q, v, i, &kin[k]).iter().copied().collect::<Vec<_>>()),
    );
    let g = &jh * &minv * jh.transpose();
    let eig = g.symmetric_eigen();
    let top = eig.eigenvalues.amax();
    if !(top.is_finite() && top > 0.0) {
        return None;
    }
    let inv = DVector::from_fn(eig.eigenvalues.len(), |i, _| {
        let l = eig.eigenvalues[i];
        if l > RANK_TOL * top {
            1.0 / l
        } else {
            0.0
        }
    });
    let gplus = &eig.eigenvectors * DMatrix::from_diagonal(&inv) * eig.eigenvectors.transpose();
    let mj = &minv * jh.transpose();
    let k = &gplus * mj.transpose();
    let lambda0 = -(&gplus * (&jh * &a0 + drift));
    let p = &minv - &mj * &k;
    let a = &a0 + &mj * &lambda0;
    Some(Held3 { p, a, lambda0, k })
}

/// `P` and `a_H` of [`Held3`].
pub(crate) fn constrained(
    sys: &EventScene<'_>,
    q: &[f64],
    v: &[f64],
    held: &[usize],
) -> Option<(DMatrix<f64>, DVector<f64>)> {
    held3(sys, q, v, held).map(|h| (h.p, h.a))
}

/// `d = w_nᵀ P w_n` and `c = W_tᵀ P w_n` of contact `i` at `q` with the contacts `held` sticking
/// (module docs); `None` where they cannot be computed.
pub fn dc(sys: &EventScene<'_>, q: &[f64], i: usize, held: &[usize]) -> Option<(f64, Vector2<f64>)> {
    let zero = vec![0.0; sys.scene().tree.nv()];
    let (p, _) = constrained(sys, q, &zero, held)?;
    let rows = &sys.kinematics(q, &[i])?[0].rows;
    let pw = &p * rows.row(0).transpose();
    let d = (rows.row(0) * &pw)[0];
    let c = Vector2::new((rows.row(1) * &pw)[0], (rows.row(2) * &pw)[0]);
    (d.is_finite() && c.iter().all(|x| x.is_finite())).then_some((d, c))
}

/// P2's parts of contact `i` at `(q, v)` with the contacts `held` sticking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parts3 {
    /// `A` (`a_n = −A + B f_n`).
    pub a: f64,
    /// `|A(q, 0)| + |A(q, v) − A(q, 0)|`: its position-only (gravity, springs) and velocity
    /// parts, which cancel where `A = 0`.
    pub a_scale: f64,
    /// `d = w_nᵀ P w_n`.
    pub d: f64,
    /// `c = W_tᵀ P w_n` (tangent-plane coordinates).
    pub c: Vector2<f64>,
    /// The contact's friction coefficient.
    pub mu: f64,
    /// The contact's slip velocity `u_t` (tangent-plane coordinates).
    pub slip: Vector2<f64>,
}

impl Parts3 {
    /// `B(ŝ) = d − μ cᵀŝ` for the unit direction `s`.
    pub fn b(&self, s: Vector2<f64>) -> f64 {
        self.d - self.mu * self.c.dot(&s)
    }

    /// `d + μ‖c‖`: the scale of `B`'s terms.
    pub fn b_scale(&self) -> f64 {
        self.d + self.mu * self.c.norm()
    }

    /// The least `μ` with `B(ŝ) < 0` (`None`: `cᵀŝ ≤ 0`, no `μ` does).
    pub fn mu_min(&self, s: Vector2<f64>) -> Option<f64> {
        let cs = self.c.dot(&s);
        (cs > 0.0).then(|| self.d / cs)
    }

    /// The least `μ` with `B < 0` in some direction, `d/‖c‖` (`None` if `c = 0`).
    pub fn mu_min_any(&self) -> Option<f64> {
        let n = self.c.norm();
        (n > 0.0).then(|| self.d / n)
    }

    /// The direction of least `B`, `c/‖c‖` (`None` if `c = 0`).
    pub fn least_b_direction(&self) -> Option<Vector2<f64>> {
        let n = self.c.norm();
        (n > 0.0).then(|| self.c / n)
    }

    /// The arc of slip directions with `B < 0` at the contact's `μ`: `[ψ_lo, ψ_hi]` (angles from
    /// `t₁` toward `t₂`, `ψ_lo < ψ_hi`, within `2π` of each other); `None` if none.
    pub fn paradox_arc(&self) -> Option<[f64; 2]> {
        let n = self.c.norm();
        if !(n > 0.0 && self.mu * n > self.d) {
            return None;
        }
        let centre = self.c[1].atan2(self.c[0]);
        let half = (self.d / (self.mu * n)).acos();
        Some([centre - half, centre + half])
    }
}

/// P2's parts of contact `i` at `(q, v)` with the contacts `held` sticking (module docs);
/// `None` where they cannot be computed.
pub fn parts(sys: &EventScene<'_>, q: &[f64], v: &[f64], i: usize, held: &[usize]) -> Option<Parts3> {
    let (p, a_h) = constrained(sys, q, v, held)?;
    let zero = vec![0.0; v.len()];
    let (_, a_rest) = constrained(sys, q, &zero, held)?;
    let kin = sys.kinematics(q, &[i])?;
    let rows = &kin[0].rows;
    let wn = rows.row(0).transpose();
    let drift = sys.drift(q, v, i, &kin[0]);
    let a = -wn.dot(&a_h) - drift[0];
    let a_pos = -wn.dot(&a_rest);
    let pw = &p * &wn;
    let d = wn.dot(&pw);
    let c = Vector2::new((rows.row(1) * &pw)[0], (rows.row(2) * &pw)[0]);
    let vv = DVector::from_column_slice(v);
    let u = rows * &vv;
    let out = Parts3 {
        a,
        a_scale: a_pos.abs() + (a - a_pos).abs(),
        d,
        c,
        mu: sys.contacts()[i].mu,
        slip: Vector2::new(u[1], u[2]),
    };
    (a.is_finite() && d.is_finite() && c.iter().all(|x| x.is_finite())).then_some(out)
}

/// `A` and `B` of the contacts `js` slipping in the directions `dirs` (tangent-plane
/// coordinates) with the contacts `held` sticking: `a = −A + B f` (module docs).
pub fn several(
    sys: &EventScene<'_>,
    q: &[f64],
    v: &[f64],
    js: &[usize],
    dirs: &[Vector2<f64>],
    held: &[usize],
) -> Option<(DVector<f64>, DMatrix<f64>)> {
    let (p, a_h) = constrained(sys, q, v, held)?;
    let kin = sys.kinematics(q, js)?;
    let k = js.len();
    let mut a = DVector::zeros(k);
    let mut b = DMatrix::zeros(k, k);
    for r in 0..k {
        let wn = kin[r].rows.row(0).transpose();
        a[r] = -wn.dot(&a_h) - sys.drift(q, v, js[r], &kin[r])[0];
        let pw = &p * &wn;
        for c in 0..k {
            let mu = sys.contacts()[js[c]].mu;
            let rows = &kin[c].rows;
            let dir = rows.row(0) - (rows.row(1) * dirs[c][0] + rows.row(2) * dirs[c][1]) * mu;
            b[(r, c)] = (dir * &pw)[0];
        }
    }
    (a.iter().chain(b.iter()).all(|x| x.is_finite())).then_some((a, b))
}

#[cfg(test)]
mod tests {
    use nalgebra::{DMatrix, DVector, Vector2};

    use super::*;
    use crate::api::{spatial_model, spatial_source, SpatialModel};
    use crate::spatial::events::modes::{Contact3Mode, Modes3};

    fn model(rel: &str) -> SpatialModel {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel);
        let source = spatial_source(&p, None).unwrap().unwrap();
        spatial_model(&p, source).unwrap()
    }

    /// A velocity with the contacts `held` at rest and contact `i` on its plane (its normal
    /// velocity zero) but slipping: a generic vector with those rows projected away.
    fn slipping_velocity(sys: &EventScene<'_>, q: &[f64], i: usize, held: &[usize]) -> Vec<f64> {
        let nv = sys.scene().tree.nv();
        let raw = DVector::from_fn(nv, |k, _| 0.3 + 0.17 * (k as f64 * 1.7).sin());
        let mut rows: Vec<DVector<f64>> = vec![sys.kinematics(q, &[i]).unwrap()[0].rows.row(0).transpose()];
        for k in sys.kinematics(q, held).unwrap() {
            (0..3).for_each(|r| rows.push(k.rows.row(r).transpose()));
        }
        let j = DMatrix::from_fn(rows.len(), nv, |r, c| rows[r][c]);
        let fix = crate::numeric::min_norm_solve(&j, &(&j * &raw), 1e-12).unwrap();
        (raw - fix).iter().copied().collect()
    }

    /// The simulator's own flow with contact `i` slipping in `s` and `held` sticking (its
    /// least-norm constrained solve) gives the normal force `A/B(ŝ)`: P2's `a_n = −A + B f_n`
    /// with `a_n = 0`, by an independent route.
    fn flow_force_is_a_over_b(rel: &str, contact: &str, mu: f64) {
        let m = model(rel);
        let scene = m.scene(None, 0.0);
        let q = m.q0.clone();
        let mut sys = EventScene::new(&scene, &q).unwrap();
        let i = sys.contacts().iter().position(|c| c.name.starts_with(contact)).unwrap();
        sys.set_mu(i, mu);
        let gaps = sys.gaps(&q);
        let held: Vec<usize> = (0..sys.nc()).filter(|&j| j != i && gaps[j].abs() < 1e-9).collect();
        let v = slipping_velocity(&sys, &q, i, &held);
        let p = parts(&sys, &q, &v, i, &held).unwrap();
        assert!(p.slip.norm() > 1e-3, "{rel}: the contact slips ({:?})", p.slip);
        let s = p.slip.normalize();
        let mut mode = Modes3::free(sys.nc());
        mode.set(i, Contact3Mode::Slip([s[0], s[1]]));
        held.iter().for_each(|&j| mode.set(j, Contact3Mode::Stick));
        let sol = sys.solve_mode(&mode, 0.0, &q, &v).unwrap();
        let f = sol.force[i][0];
        let expect = p.a / p.b(s);
        assert!(
            (f - expect).abs() <= 1e-9 * expect.abs().max(p.a_scale / p.b_scale()),
            "{rel}: f_n {f} vs A/B {expect}"
        );
        // And the force's friction is along −ŝ, μ times it.
        let ft = Vector2::new(sol.force[i][1], sol.force[i][2]);
        assert!((ft + s * (mu * f)).norm() <= 1e-9 * f.abs().max(1.0), "{rel}: friction {ft:?}");
    }

    #[test]
    fn the_simulator_s_slip_force_is_a_over_b() {
        flow_force_is_a_over_b("examples/spatial/painleve-rod.toml", "end", 2.0);
        flow_force_is_a_over_b("examples/spatial/painleve-rod.toml", "end", 0.5);
        flow_force_is_a_over_b("examples/spatial/finger-on-a-wall.toml", "finger", 0.6);
        // Unitree A1: one foot slipping, the other three sticking (held, with their drift).
        flow_force_is_a_over_b("examples/spatial/a1-standing.toml", "FL_foot", 0.8);
        flow_force_is_a_over_b("examples/spatial/a1-standing.toml", "RR_foot", 0.2);
    }

    #[test]
    fn two_slipping_feet_solve_the_lcp_that_the_simulator_s_flow_solves() {
        // A1 with its front feet slipping and its hind feet sticking, μ = 0.1: B is 2 × 2 and
        // the flow's forces are B⁻¹A.
        let m = model("examples/spatial/a1-standing.toml");
        let scene = m.scene(None, 0.0);
        let q = m.q0.clone();
        let mut sys = EventScene::new(&scene, &q).unwrap();
        let idx = |n: &str| sys.contacts().iter().position(|c| c.name.starts_with(n)).unwrap();
        let (fl, fr, rl, rr) = (idx("FL_foot"), idx("FR_foot"), idx("RL_foot"), idx("RR_foot"));
        (0..sys.nc()).for_each(|j| sys.set_mu(j, 0.1));
        let held = [rl, rr];
        // Both front feet on the ground but slipping.
        let nv = scene.tree.nv();
        let raw = DVector::from_fn(nv, |k, _| 0.2 + 0.1 * (k as f64 * 2.3).cos());
        let mut rows = vec![];
        for (j, all) in [(fl, false), (fr, false), (rl, true), (rr, true)] {
            let k = sys.kinematics(&q, &[j]).unwrap();
            (0..if all { 3 } else { 1 }).for_each(|r| rows.push(k[0].rows.row(r).transpose()));
        }
        let jm = DMatrix::from_fn(rows.len(), nv, |r, c| rows[r][c]);
        let v: Vec<f64> =
            (&raw - crate::numeric::min_norm_solve(&jm, &(&jm * &raw), 1e-12).unwrap()).iter().copied().collect();
        let dirs: Vec<Vector2<f64>> =
            [fl, fr].iter().map(|&j| parts(&sys, &q, &v, j, &held).unwrap().slip.normalize()).collect();
        let (a, b) = several(&sys, &q, &v, &[fl, fr], &dirs, &held).unwrap();
        let f = b.clone().lu().solve(&a).unwrap();
        let mut mode = Modes3::free(sys.nc());
        mode.set(fl, Contact3Mode::Slip([dirs[0][0], dirs[0][1]]));
        mode.set(fr, Contact3Mode::Slip([dirs[1][0], dirs[1][1]]));
        held.iter().for_each(|&j| mode.set(j, Contact3Mode::Stick));
        let sol = sys.solve_mode(&mode, 0.0, &q, &v).unwrap();
        for (k, &j) in [fl, fr].iter().enumerate() {
            assert!((sol.force[j][0] - f[k]).abs() <= 1e-9 * f.amax(), "foot {k}: {} vs {}", sol.force[j][0], f[k]);
        }
        // Each diagonal entry is the one-contact B with the other front foot free.
        let single = parts(&sys, &q, &v, fl, &held).unwrap();
        assert!((single.b(dirs[0]) - b[(0, 0)]).abs() <= 1e-12 * single.b_scale());
        assert!((single.a - a[0]).abs() <= 1e-12 * single.a_scale);
    }
}
